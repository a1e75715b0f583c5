//! The one place the database chooses a front end: a file's language comes
//! from its path (`.py` is Python, anything else the Tensor language), and
//! each step from text to lowered pieces goes to that language's crate.
//! Everything after lowering is the same for both.

use tensorfit_base::{Diagnostic, Language};
use tensorfit_python::ModuleContext;
use tensorfit_syntax::{LoweredPiece, Outline, Parse};

/// Parses with the language's grammar, reusing `old` (already edited).
pub fn parse_tree(
    language: Language,
    text: &str,
    old: Option<&tree_sitter::Tree>,
) -> tree_sitter::Tree {
    match language {
        Language::Tensor => tensorfit_syntax::parse_tree(text, old),
        Language::Python => tensorfit_python::parse_tree(text, old),
    }
}

/// The file's pieces; a Python file's need its context (see
/// [`module_context`]), computed once per edit by the database.
pub fn outline(tree: &tree_sitter::Tree, text: &str, context: Option<&ModuleContext>) -> Outline {
    match context {
        None => tensorfit_syntax::outline(tree, text),
        Some(context) => tensorfit_python::outline(tree, text, context),
    }
}

/// What every piece of a Python file needs from the rest of it; `None` for
/// the Tensor language, whose pieces need nothing.
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
