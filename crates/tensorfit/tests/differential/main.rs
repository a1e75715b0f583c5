//! The differential soundness test (issue 8): the static verdicts of
//! tensorfit against runs of its reference interpreter, on generated
//! programs and on every corpus, example and test program.
//!
//! `TENSORFIT_DIFF_PROGRAMS=N` changes how many programs are generated
//! (1,000 by default); a disagreement prints the program.

mod compare;
mod generator;

use std::path::{Path, PathBuf};

use compare::{judge, Tally};
use tensorfit_run::Limits;

/// Small limits: generated programs are small, and a runaway one should
/// stop quickly.
fn limits() -> Limits {
    Limits {
        max_steps: 2_000_000,
        max_elements: 1 << 26,
        ..Limits::default()
    }
}

fn report(name: &str, tally: &Tally) {
    eprintln!(
        "{name}: {} programs, {} runs, {} failures where an error is reported, {} failures where none is (missed), {} dimensions compared, {} hole fillings, {} disagreements",
        tally.programs,
        tally.runs,
        tally.failures_reported,
        tally.missed,
        tally.dimensions,
        tally.filled,
        tally.disagreements.len()
    );
    for d in tally.disagreements.iter().take(5) {
        eprintln!("\n{d}");
    }
    if std::env::var_os("TENSORFIT_DIFF_MISSED").is_some() {
        for m in &tally.missed_details {
            eprintln!("\nmissed: {m}");
        }
    }
}

#[test]
fn generated_programs_agree_with_their_runs() {
    let count: u64 = std::env::var("TENSORFIT_DIFF_PROGRAMS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000);
    let mut tally = Tally::default();
    let mut statements = 0;
    for seed in 0..count {
        let program = generator::generate(seed);
        statements += program.statements;
        let path = PathBuf::from(format!("generated_{seed}.tensor"));
        tally.add(judge(&path, &program.text, &[seed, seed + 1], limits()));
    }
    eprintln!("{statements} statements generated");
    report("generated", &tally);
    assert!(tally.programs >= count as usize);
    assert!(
        tally.disagreements.is_empty(),
        "{} disagreements",
        tally.disagreements.len()
    );
}

/// Every `.tensor` file of the corpus, the examples and the test programs.
fn files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut out = Vec::new();
    for dir in ["../shared/corpus", "examples", "tests/programs"] {
        walk(&root.join(dir), &mut out);
    }
    out.sort();
    out
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            walk(&path, out);
        } else if path.extension().is_some_and(|e| e == "tensor") {
            out.push(path);
        }
    }
}

#[test]
fn written_programs_agree_with_their_runs() {
    let mut tally = Tally::default();
    let files = files();
    assert!(files.len() > 50, "the programs were not found");
    for path in &files {
        let text = std::fs::read_to_string(path).expect("readable");
        tally.add(judge(path, &text, &[0], Limits::default()));
    }
    report("written", &tally);
    assert!(
        tally.disagreements.is_empty(),
        "{} disagreements",
        tally.disagreements.len()
    );
}
