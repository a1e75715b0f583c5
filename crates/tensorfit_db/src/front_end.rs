//! The one place the database chooses a front end: a file's language comes
//! from its path (`.py` is Python, anything else the Tensor language), and
//! each step from text to lowered pieces goes to that language's crate.
//! Everything after lowering is the same for both.

use tensorfit_base::{Diagnostic, Language, TextRange};
use tensorfit_python::ModuleContext;
use tensorfit_semantics::LimitKind;
use tensorfit_syntax::{LoweredPiece, Outline, Parse};

/// Parses with the language's grammar, reusing `old` (already edited).
pub fn parse_tree(
    language: Language,
    text: &str,
    old: Option<&tree_sitter::Tree>,
) -> tree_sitter::Tree {
    #[cfg(test)]
    PARSES.with(|parses| parses.set(parses.get() + 1));
    match language {
        Language::Tensor => tensorfit_syntax::parse_tree(text, old),
        Language::Python => tensorfit_python::parse_tree(text, old),
    }
}

/// Where the parse of a file stops short of its end, and why (see
/// `tensorfit_python::parse_cut`, `tensorfit_syntax::size_cut`).
pub fn unread_from(language: Language, text: &str) -> Option<(LimitKind, usize)> {
    match language {
        Language::Tensor => {
            tensorfit_syntax::size_cut(text).map(|offset| (LimitKind::FileSize, offset))
        }
        Language::Python => tensorfit_python::parse_cut(text).map(|cut| {
            let kind = match cut.why {
                tensorfit_python::CutReason::Size => LimitKind::FileSize,
                tensorfit_python::CutReason::Continuations => LimitKind::Continuations,
            };
            (kind, cut.offset)
        }),
    }
}

#[cfg(test)]
thread_local! {
    /// The texts parsed on this thread (tests count them).
    pub(crate) static PARSES: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// The file's pieces; a Python file's need its context (see
/// [`module_context`]), computed once per edit by the database.
pub fn outline(tree: &tree_sitter::Tree, text: &str, context: Option<&ModuleContext>) -> Outline {
    match context {
        None => tensorfit_syntax::outline(tree, text),
        Some(context) => tensorfit_python::outline(tree, text, context),
    }
}

/// What every piece of a Python file needs from the rest of it, made from
/// the whole tree; `None` for the Tensor language, whose pieces need
/// nothing. The database makes it from each statement's facts instead
/// (`crate::top_statements`), so that an edit reads one statement again;
/// the tests here cut files without a database.
#[cfg(test)]
pub fn module_context(
    language: Language,
    tree: &tree_sitter::Tree,
    text: &str,
) -> Option<ModuleContext> {
    match language {
        Language::Tensor => None,
        Language::Python => Some(tensorfit_python::module_context(tree, text)),
    }
}

/// One piece lowered from its own text (see `tensorfit_syntax::lower_piece`).
pub fn lower_piece(
    text: &str,
    base: usize,
    places: &[(usize, usize)],
    context: Option<&ModuleContext>,
) -> LoweredPiece {
    match context {
        None => tensorfit_syntax::lower_piece(text, base, places),
        Some(context) => tensorfit_python::lower_piece(text, base, places, context),
    }
}

/// [`lower_piece`] read from the file's tree, where the piece at `range`
/// is a clean child of its root; `None` otherwise (the piece is then
/// lowered from its own text). Both give the same lowering (tested), so
/// the file is parsed once per version.
pub fn lower_piece_in(
    tree: &tree_sitter::Tree,
    text: &str,
    range: TextRange,
    base: usize,
    places: &[(usize, usize)],
    context: Option<&ModuleContext>,
) -> Option<LoweredPiece> {
    match context {
        None => {
            let clean =
                tensorfit_syntax::root_child_at(tree, range).is_some_and(|n| !n.has_error());
            clean.then(|| tensorfit_syntax::lower_piece_in(tree, text, range, base, places))
        }
        Some(context) => tensorfit_python::lower_piece_in(tree, text, range, base, places, context),
    }
}

/// The declaration of a Python piece that is a top-level function, its
/// body not lowered (see `tensorfit_python::declare_function_in`); `None`
/// for any other piece, and for a Tensor piece.
pub fn declare_function_in(
    tree: &tree_sitter::Tree,
    text: &str,
    range: TextRange,
    base: usize,
    places: &[(usize, usize)],
    context: Option<&ModuleContext>,
) -> Option<tensorfit_syntax::ast::Function> {
    tensorfit_python::declare_function_in(tree, text, range, base, places, context?)
}

/// The syntax errors to report: Python's are the Python language server's
/// (PYTHON.md §1), so none.
pub fn syntax_errors(language: Language, tree: &tree_sitter::Tree, text: &str) -> Vec<Diagnostic> {
    match language {
        Language::Tensor => tensorfit_syntax::syntax_errors(tree, text),
        Language::Python => Vec::new(),
    }
}

/// The whole file lowered at its own offsets.
pub fn lower_tree(language: Language, tree: &tree_sitter::Tree, text: &str) -> Parse {
    match language {
        Language::Tensor => tensorfit_syntax::lower_tree(tree, text),
        Language::Python => tensorfit_python::lower_tree(tree, text),
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use tensorfit_fuzz::programs;

    use super::*;

    /// Lowering a piece from the file's tree (one parse per version) gives
    /// what parsing the piece's own text gives, and a top-level Python
    /// function's signature alone its declaration, on every program of the
    /// test suite, the examples and the shared corpus when present, each
    /// at a place of its own (methods moved too) to exercise the offsets.
    #[test]
    fn a_piece_lowered_from_the_files_tree_is_the_piece_parsed_alone() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let files = programs::collect(&programs::default_directories(&root)).unwrap();
        let (mut compared, mut from_text, mut declared_functions) = (0, 0, 0);
        for program in &files {
            let Ok(text) = std::str::from_utf8(&program.bytes) else {
                continue;
            };
            let (path, language) = (&program.path, program.language());
            let tree = parse_tree(language, text, None);
            let context = module_context(language, &tree, text);
            for (n, piece) in outline(&tree, text, context.as_ref())
                .pieces
                .iter()
                .enumerate()
            {
                if piece.broken {
                    continue;
                }
                let start = piece.range.start as usize;
                let base = 1_000_000 + 10_000 * n;
                let places: Vec<(usize, usize)> = piece
                    .item
                    .iter()
                    .flat_map(|head| &head.methods)
                    .enumerate()
                    .map(|(k, (_, method))| (method.start as usize - start, 5_000_000 + 1_000 * k))
                    .collect();
                let alone = lower_piece(
                    &text[piece.range.as_usize()],
                    base,
                    &places,
                    context.as_ref(),
                );
                let declared =
                    declare_function_in(&tree, text, piece.range, base, &places, context.as_ref());
                if let Some(declared) = declared {
                    // A function declared without lowering its body is
                    // the declaration cut from its whole lowering.
                    let [tensorfit_syntax::ast::Item::Function(whole)] =
                        alone.file.items.as_slice()
                    else {
                        panic!("{}: {:?} is no function", path.display(), piece.range);
                    };
                    assert_eq!(
                        declared,
                        crate::items::without_body(whole),
                        "{}: the function at {:?}",
                        path.display(),
                        piece.range
                    );
                    declared_functions += 1;
                }
                match lower_piece_in(&tree, text, piece.range, base, &places, context.as_ref()) {
                    Some(in_tree) => {
                        assert_eq!(
                            in_tree,
                            alone,
                            "{}: the piece at {:?}",
                            path.display(),
                            piece.range
                        );
                        compared += 1;
                    }
                    None => from_text += 1,
                }
            }
        }
        assert!(
            files.len() >= 60,
            "the programs were not found: {}",
            files.len()
        );
        assert!(compared >= 500, "{compared} pieces compared");
        assert!(
            declared_functions >= 100,
            "{declared_functions} functions declared"
        );
        // Only pieces with a syntax error (Python's, lowered from their
        // own text) are not read from the tree.
        assert!(
            from_text * 20 < compared,
            "{from_text} of {compared} not read from the tree"
        );
    }

    /// A Python piece holding a syntax error is lowered from its own text
    /// (its parse recovers on the piece alone), not from the file's tree.
    #[test]
    fn a_broken_python_piece_is_not_read_from_the_tree() {
        let text = "import torch\n\ndef f(x):\n    return x +\n\ny = 1\n";
        let tree = parse_tree(Language::Python, text, None);
        let context = module_context(Language::Python, &tree, text);
        let pieces = outline(&tree, text, context.as_ref()).pieces;
        let read = |range| lower_piece_in(&tree, text, range, 0, &[], context.as_ref()).is_some();
        let broken = pieces
            .iter()
            .find(|p| text[p.range.as_usize()].starts_with("def"));
        assert!(!read(broken.expect("the def's piece").range));
        let clean = pieces
            .iter()
            .find(|p| text[p.range.as_usize()].starts_with("y ="));
        assert!(read(clean.expect("the assignment's piece").range));
    }
}
