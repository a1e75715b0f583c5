//! A file lowered piece by piece (as the incremental database lowers it)
//! must be the file lowered whole: the same items, statements, holes,
//! names inside errors and diagnostics. Run over every program of the
//! repository and the corpus, broken ones included.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use tensorfit_base::TextRange;
use tensorfit_syntax::{ast, lower_piece, lower_piece_in, outline, parse_tree, syntax_errors};

fn programs() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let corpus = std::env::var_os("TENSORFIT_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("../shared/corpus"));
    let mut files = Vec::new();
    let mut directories = vec![root.join("examples"), root.join("tests/programs")];
    // The corpus sits beside a checkout: read when there.
    directories.extend(corpus.is_dir().then_some(corpus));
    while let Some(dir) = directories.pop() {
        for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                directories.push(path);
            } else if path.extension().is_some_and(|e| e == "tensor") {
                files.push(path);
            }
        }
    }
    files.sort();
    assert!(
        files.len() >= 30,
        "expected the corpus and the test programs"
    );
    files
}

/// The file lowered piece by piece, each piece at its own offsets.
fn lowered_in_pieces(text: &str) -> tensorfit_syntax::Parse {
    let tree = parse_tree(text, None);
    let outline = outline(&tree, text);
    let mut file = ast::SourceFile::default();
    let mut diagnostics = syntax_errors(&tree, text);
    let mut names_in_errors = outline.names_in_errors.clone();
    for piece in &outline.pieces {
        let start = piece.range.start as usize;
        let places: Vec<(usize, usize)> = piece
            .item
            .iter()
            .flat_map(|item| &item.methods)
            .map(|(_, range)| (range.start as usize - start, range.start as usize))
            .collect();
        let lowered = if piece.broken {
            lower_piece_in(&tree, text, piece.range, start, &places)
        } else {
            lower_piece(&text[piece.range.as_usize()], start, &places)
        };
        file.items.extend(lowered.file.items);
        file.script.extend(lowered.file.script);
        file.holes.extend(lowered.file.holes);
        diagnostics.extend(lowered.diagnostics);
        names_in_errors.extend(lowered.names_in_errors);
    }
    diagnostics.sort_by_key(|d| (d.range.start, d.range.end));
    tensorfit_syntax::Parse {
        file: std::sync::Arc::new(file),
        diagnostics,
        names_in_errors,
    }
}

#[test]
fn pieces_lower_as_the_whole_file() {
    for path in programs() {
        let text = std::fs::read_to_string(&path).expect("readable");
        let whole = tensorfit_syntax::parse(&text);
        let pieces = lowered_in_pieces(&text);
        assert_eq!(whole.file, pieces.file, "{}", path.display());
        assert_eq!(whole.diagnostics, pieces.diagnostics, "{}", path.display());
        assert_eq!(
            whole.names_in_errors,
            pieces.names_in_errors,
            "{}",
            path.display()
        );
    }
}

/// Broken text too: every program cut short at a few places, mid-token.
#[test]
fn pieces_of_truncated_programs_lower_as_the_whole_file() {
    for path in programs() {
        let text = std::fs::read_to_string(&path).expect("readable");
        for cut in 1..32 {
            let mut end = text.len() * cut / 32;
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            let text = &text[..end];
            let whole = tensorfit_syntax::parse(text);
            let pieces = lowered_in_pieces(text);
            let at = format!("{} cut at {end}", path.display());
            assert_eq!(whole.file, pieces.file, "{at}");
            assert_eq!(whole.diagnostics, pieces.diagnostics, "{at}");
            assert_eq!(whole.names_in_errors, pieces.names_in_errors, "{at}");
        }
    }
}

#[test]
fn keys_are_unique_and_name_methods() {
    let text = "fn f() {}\nfn f() {}\nstruct S {\n  fn m(self) {}\n}\nlet x = 1\nconst c = 2\n";
    let tree = parse_tree(text, None);
    let outline = outline(&tree, text);
    let keys: Vec<Option<&str>> = outline
        .pieces
        .iter()
        .map(|p| p.item.as_ref().map(|i| i.key.as_str()))
        .collect();
    assert_eq!(
        keys,
        [
            Some("f"),
            Some("f#2"),
            Some("struct S"),
            None,
            Some("const c")
        ]
    );
    let methods = &outline.pieces[2].item.as_ref().expect("an item").methods;
    assert_eq!(methods, &[("S.m".to_owned(), TextRange::new(33, 46))]);
    let unique: BTreeSet<_> = keys.iter().collect();
    assert_eq!(unique.len(), keys.len());
}
