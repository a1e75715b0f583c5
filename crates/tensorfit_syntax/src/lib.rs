//! The syntax layer: text in, typed syntax tree and syntax diagnostics out.
//!
//! Parsing never fails. Whatever the input, [`parse`] returns a complete
//! [`ast::SourceFile`] (with `Missing` placeholders where text is absent)
//! and a diagnostic for each syntax error, saying what was expected.

pub mod ast;
mod lower;
mod syntax_errors;

use std::collections::BTreeSet;

use tensorfit_base::Diagnostic;

pub use lower::{Placement, MAX_NESTING};

/// The result of parsing one file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Parse {
    pub file: std::sync::Arc<ast::SourceFile>,
    /// Syntax errors, then problems found while lowering, in source order.
    pub diagnostics: Vec<Diagnostic>,
    /// Identifiers that occur inside unparsable text. A later layer treats
    /// them as possibly declared, so that one typo does not turn every later
    /// use of a name into a second error.
    pub names_in_errors: BTreeSet<String>,
}

/// Parses a Tensor source text.
pub fn parse(text: &str) -> Parse {
    lower_tree(&parse_tree(text, None), text)
}

/// Lowers an already parsed text with its items moved where `placement`
/// says (the incremental database gives each function offsets of its own,
/// so that editing one function does not move the others). Diagnostics are
/// those of [`parse`], so none are returned.
pub fn lower_placed(
    tree: &tree_sitter::Tree,
    text: &str,
    placement: Placement<'_>,
) -> ast::SourceFile {
    lower::lower_with(tree, text, Some(placement)).file
}

/// Parses `text`, keeping the tree (for incremental reparsing).
pub fn parse_with_tree(text: &str, old: Option<&tree_sitter::Tree>) -> (Parse, tree_sitter::Tree) {
    let tree = parse_tree(text, old);
    (lower_tree(&tree, text), tree)
}

/// Syntax diagnostics and the lowered tree of a parsed text.
pub fn lower_tree(tree: &tree_sitter::Tree, text: &str) -> Parse {
    let mut diagnostics = syntax_errors::collect(tree, text);
    let mut lowered = lower::lower(tree, text);
    diagnostics.append(&mut lowered.diagnostics);
    diagnostics.sort_by_key(|d| (d.range.start, d.range.end));
    Parse {
        file: std::sync::Arc::new(lowered.file),
        diagnostics,
        names_in_errors: lowered.names_in_errors,
    }
}

/// Runs tree-sitter, reusing `old` (already edited) for incremental parsing.
pub fn parse_tree(text: &str, old: Option<&tree_sitter::Tree>) -> tree_sitter::Tree {
    let mut parser = tree_sitter::Parser::new();
    parser
        .set_language(&tree_sitter_tensor::LANGUAGE.into())
        .expect("the bundled grammar matches the tree-sitter runtime");
    parser
        .parse(text, old)
        .expect("a parser with a language and no cancellation always returns a tree")
}
