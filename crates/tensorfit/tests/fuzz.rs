//! The fuzz smoke CI runs (docs/testing.md gives the long runs): mutated
//! programs through `tensorfit check`, one process each, and an LSP editing
//! session through `tensorfit lsp`. Seeds are fixed, so a failure
//! reproduces with `tensorfit-fuzz` and the same seed.

use std::path::{Path, PathBuf};
use std::time::Duration;

use tensorfit_fuzz::{mutants, programs, session};

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
