//! The syntax layer: text in, typed syntax tree and syntax diagnostics out.
//!
//! Parsing never fails. Whatever the input, [`parse`] returns a complete
//! [`ast::SourceFile`] (with `Missing` placeholders where text is absent)
//! and a diagnostic for each syntax error, saying what was expected.

pub mod ast;
pub mod dump;
mod lower;
mod outline;
pub mod print;
mod size_cut;
mod syntax_errors;

use std::collections::BTreeSet;

use tensorfit_base::{Diagnostic, TextRange};

pub use lower::{Placement, MAX_NESTING};
pub use outline::{outline, ItemHead, Outline, OutlinePiece, UniqueKeys};
pub use size_cut::size_cut;

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

impl Parse {
    /// Where the first syntax error starts: before it, the tree is the
    /// text's as written.
    pub fn first_syntax_error(&self) -> Option<usize> {
        self.diagnostics
            .iter()
            .filter(|d| d.code == tensorfit_base::Code::SyntaxError)
            .map(|d| d.range.start as usize)
            .min()
    }
}

/// Parses a Tensor source text.
pub fn parse(text: &str) -> Parse {
    lower_tree(&parse_tree(text, None), text)
}

/// One top-level piece of a file (see [`outline`]) lowered on its own.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LoweredPiece {
    /// The item, or the statement, of the piece (more than one, or none,
    /// only where the piece's text is broken).
    pub file: ast::SourceFile,
    /// Problems found while lowering (syntax errors are the whole file's:
    /// see [`syntax_errors`]).
    pub diagnostics: Vec<Diagnostic>,
    pub names_in_errors: BTreeSet<String>,
}

/// Parses and lowers the text of one piece of a file, starting at offset
/// `base`. `places` moves the methods of a struct: each is the offset of a
/// method in `text` and where it is to start. The result depends on
/// nothing but the arguments, so that a piece whose text and places did not
/// change need not be lowered again.
///
/// Only for pieces without syntax errors (see [`OutlinePiece::broken`]):
/// tree-sitter recovers from an error differently when it sees the piece
/// without the text before it, so a broken piece is lowered from the
/// file's tree with [`lower_piece_in`].
pub fn lower_piece(text: &str, base: usize, places: &[(usize, usize)]) -> LoweredPiece {
    let tree = parse_tree(text, None);
    let placement = |range: TextRange| {
        places
            .iter()
            .find(|(at, _)| *at == range.start as usize)
            .map(|(_, place)| *place)
    };
    lowered_piece(lower::lower_with(&tree, text, Some(&placement), base))
}

/// What [`lower_piece`] gives for the piece of the file's tree at `range`,
/// read from that tree (`places` are relative to the piece's start).
pub fn lower_piece_in(
    tree: &tree_sitter::Tree,
    text: &str,
    range: TextRange,
    base: usize,
    places: &[(usize, usize)],
) -> LoweredPiece {
    let Some(child) = root_child_at(tree, range) else {
        return LoweredPiece::default();
    };
    let start = range.start as usize;
    let placement = |at: TextRange| {
        places
            .iter()
            .find(|(offset, _)| offset + start == at.start as usize)
            .map(|(_, place)| *place)
    };
    let shift = base as isize - start as isize;
    lowered_piece(lower::lower_child(child, text, Some(&placement), shift))
}

/// The named child of the root that spans exactly `range`. Found by
/// descending through the hidden nodes tree-sitter balances a repetition
/// into, not by walking the root's children: lowering each piece of a file
/// of 10,000 from its tree that way was quadratic.
pub fn root_child_at(tree: &tree_sitter::Tree, range: TextRange) -> Option<tree_sitter::Node<'_>> {
    let child = tree
        .root_node()
        .first_named_child_for_byte(range.start as usize)?;
    (child.start_byte() == range.start as usize && child.end_byte() == range.end as usize)
        .then_some(child)
}

fn lowered_piece(lowered: lower::Lowered) -> LoweredPiece {
    LoweredPiece {
        file: lowered.file,
        diagnostics: lowered.diagnostics,
        names_in_errors: lowered.names_in_errors,
    }
}

/// The syntax errors of a parsed text, in its offsets.
pub fn syntax_errors(tree: &tree_sitter::Tree, text: &str) -> Vec<Diagnostic> {
    syntax_errors::collect(tree, text)
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
    thread_local! {
        /// Made once per thread: the database parses every piece of a file
        /// on its own, and a new parser costs as much as a small piece.
        static PARSER: std::cell::RefCell<tree_sitter::Parser> = std::cell::RefCell::new({
            let mut parser = tree_sitter::Parser::new();
            parser
                .set_language(&tree_sitter_tensor::LANGUAGE.into())
                .expect("the bundled grammar matches the tree-sitter runtime");
            parser
        });
    }
    // A file too long to check is read up to an item (`size_cut.rs`).
    let included = match size_cut::size_cut(text) {
        Some(cut) => vec![tree_sitter::Range {
            start_byte: 0,
            end_byte: cut,
            start_point: tree_sitter::Point::new(0, 0),
            end_point: point_at(text, cut),
        }],
        None => Vec::new(),
    };
    PARSER.with(|parser| {
        let mut parser = parser.borrow_mut();
        // Empty: the whole text (the parser is reused: always set).
        parser
            .set_included_ranges(&included)
            .expect("a range within the text");
        parser
            .parse(text, old)
            .expect("a parser with a language and no cancellation always returns a tree")
    })
}

/// The row and byte column of `offset` in `text`.
fn point_at(text: &str, offset: usize) -> tree_sitter::Point {
    let before = &text.as_bytes()[..offset];
    let row = before.iter().filter(|b| **b == b'\n').count();
    let line_start = before
        .iter()
        .rposition(|b| *b == b'\n')
        .map_or(0, |n| n + 1);
    tree_sitter::Point::new(row, offset - line_start)
}
