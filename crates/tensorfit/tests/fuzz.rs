//! The fuzz smoke CI runs (docs/testing.md gives the long runs): mutated
//! programs through `tensorfit check`, one process each, and an LSP editing
//! session through `tensorfit lsp`. Seeds are fixed, so a failure
//! reproduces with `tensorfit-fuzz` and the same seed.

use std::path::{Path, PathBuf};
use std::time::Duration;

use tensorfit_fuzz::{crowd, mutants, pathological, programs, session};

fn binary() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_tensorfit"))
}

fn seed_programs() -> Vec<programs::Program> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let found = programs::collect(&programs::default_directories(&root)).unwrap();
    assert!(found.len() >= 60, "only {} programs", found.len());
    found
}

fn scratch(name: &str) -> PathBuf {
    let directory = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&directory);
    directory
}

#[test]
fn three_thousand_mutants_neither_abort_nor_hang() {
    let settings = mutants::Settings {
        binary: binary(),
        count: 3_000,
        seed: 1,
        jobs: 2,
        // A debug build: about ten times slower than a release one.
        hang_after: Duration::from_secs(20),
        keep: Some(scratch("fuzz-failures")),
    };
    let outcomes = mutants::run(&settings, &seed_programs(), &scratch("fuzz-mutants")).unwrap();
    let summary = mutants::Summary::of(&outcomes);
    println!("{}", summary.report());
    assert_eq!(summary.mutants, 3_000);
    let violations = summary.violations(10.0, 1024.0);
    assert!(
        violations.is_empty(),
        "{}\n{}",
        summary.report(),
        violations.join("\n")
    );
}

#[test]
fn an_editing_session_ends_as_a_fresh_server_sees_it() {
    let settings = session::Settings {
        binary: binary(),
        steps: 1_000,
        seed: 1,
        answer_within: Duration::from_secs(60),
    };
    let report = session::run(&settings, &seed_programs(), &scratch("fuzz-session")).unwrap();
    println!("{}", report.summary());
    assert!(report.failure.is_none(), "{}", report.summary());
    assert!(report.requests > 100, "{}", report.summary());
}

/// The pathological families of the reliability issue at the sizes it
/// measured (docs/testing.md has the release build's figures): each ends
/// within its bound, under 1 GiB, with its bug reported or its cut said.
/// The bound is the file's time budget (8 s) with room for a debug build's
/// slower front end, which the budget does not cover.
#[test]
fn pathological_programs_stay_within_their_budgets() {
    let bounds = pathological::Bounds {
        time: Duration::from_secs(40),
        memory_mib: 1024,
    };
    let directory = scratch("fuzz-pathological");
    let mut problems = Vec::new();
    for family in pathological::FAMILIES {
        for size in [family.small, family.large] {
            let outcome = pathological::check(
                &binary(),
                family,
                size,
                &directory.join(family.name),
                &bounds,
            )
            .unwrap();
            println!("{}", outcome.line());
            if outcome.problem.is_some() {
                problems.push(outcome.line());
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// A thousand documents opened back to back and a 20 MiB one, then every
/// way a session can end (see `tensorfit_fuzz::crowd`).
#[test]
fn a_crowd_of_documents_is_diagnosed_once_each_and_every_exit_ends_the_server() {
    let settings = crowd::Settings {
        binary: &binary(),
        documents: 1_000,
        huge_mib: 20,
        within: Duration::from_secs(240),
    };
    let report = crowd::crowd(&settings, &seed_programs(), &scratch("fuzz-crowd")).unwrap();
    println!("{}", report.summary());
    assert_eq!(report.documents, 1_000);
    let wrong = crowd::exits(&binary(), &scratch("fuzz-exits"));
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
