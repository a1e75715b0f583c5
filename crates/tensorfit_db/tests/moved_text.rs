//! Property test of position-free summaries: typing that only moves text
//! inside function bodies (a blank line, an indent) leaves summaries
//! unchanged, so callers keep results computed before the move. Every
//! range in those results must still follow the text: after each move, the
//! incremental report must equal a check of the edited text from scratch.
//! Run over the corpus, the examples and the engine's test programs, so that
//! every kind of result (errors pointing into callees, hover shapes at
//! calls, holes, migrations, decided conditions) is moved at least once.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use tensorfit_base::Position;
use tensorfit_db::file_report;
use tensorfit_db::{Host, NoImports, TextChange};
use tensorfit_semantics::{Limits, ShapeOptions};

const OPTIONS: ShapeOptions = ShapeOptions {
    limits: Limits { timeout_ms: 2000 },
    questions: true,
    language: tensorfit_semantics::Language::Tensor,
};

/// Moves per file, spread over its indented lines.
const MOVES: usize = 6;

fn programs() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let corpus = std::env::var_os("TENSORFIT_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("../shared/corpus"));
    let seeds = corpus.join("seeds");
    // The corpus sits beside a checkout: read when there.
    let directories = [
        seeds.is_dir().then_some(seeds),
        Some(root.join("tests/programs/papers")),
        Some(root.join("examples")),
        Some(root.join("examples/models")),
        Some(root.join("tests/programs/calls")),
        Some(root.join("tests/programs/engine")),
        Some(root.join("tests/programs/holes")),
        Some(root.join("tests/programs/migration")),
    ];
    let mut files: Vec<PathBuf> = directories
        .iter()
        .flatten()
        .flat_map(|dir| std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())))
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|e| e == "tensor"))
        .collect();
    files.sort();
    assert!(
        files.len() >= 20,
        "expected the corpus and the test programs"
    );
    files
}

/// Lines that start with an indent: inside a function or struct body.
fn indented_lines(text: &str) -> Vec<u32> {
    text.lines()
        .enumerate()
        .filter(|(_, line)| line.starts_with([' ', '\t']) && !line.trim().is_empty())
        .map(|(i, _)| i as u32)
        .collect()
}

/// As in the server, Z3's answers are kept: the incremental check, whose
/// re-analysed functions ask what they asked before the move, recalls
/// them, and must report what a check that recalls nothing reports.
#[test]
fn moving_text_in_bodies_agrees_with_checks_from_scratch() {
    tensorfit_db::keep_known_answers();
    let mut moves = 0;
    for path in programs() {
        let text = std::fs::read_to_string(&path).unwrap();
        let lines = indented_lines(&text);
        if lines.is_empty() {
            continue;
        }
        let mut host = Host::new(Arc::new(NoImports), OPTIONS);
        let file = host.set_text(&path, &text);
        file_report(host.db(), file);
        // Later lines first, so that earlier picks keep their numbers.
        let picks: Vec<u32> = (0..MOVES)
            .map(|i| lines[(MOVES - 1 - i) * (lines.len() - 1) / MOVES.max(2)])
            .collect();
        for (i, line) in picks.into_iter().enumerate() {
            // Alternately a blank line before the line and a wider indent.
            let inserted = if i % 2 == 0 { "\n" } else { "  " };
            let at = Position { line, character: 0 };
            host.apply_changes(
                &path,
                &[TextChange {
                    range: Some((at, at)),
                    text: inserted.to_owned(),
                }],
            )
            .unwrap();
            let edited = file.text(host.db()).to_string();
            let incremental = file_report(host.db(), file);
            tensorfit_db::forget_known_answers();
            let mut fresh = Host::new(Arc::new(NoImports), OPTIONS);
            let fresh_file = fresh.set_text(&path, &edited);
            let from_scratch = file_report(fresh.db(), fresh_file);
            assert_eq!(
                *incremental,
                *from_scratch,
                "{}: after inserting {inserted:?} at line {}, the incremental report differs",
                path.display(),
                line + 1
            );
            moves += 1;
        }
    }
    assert!(moves >= 90, "only {moves} moves were tried");
    assert!(
        tensorfit_db::recalled_answers() >= 50,
        "only {} of Z3's answers were recalled",
        tensorfit_db::recalled_answers()
    );
}
