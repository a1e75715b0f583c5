//! The Python front end: PyTorch code read into the same syntax tree as the
//! Tensor language (`tensorfit_syntax::ast`), so that the analysis, the
//! database and the `ide` layer work on it unchanged (PYTHON.md,
//! docs/architecture.md "The Python front end").
//!
//! Like the Tensor parser it never fails: any text gives a tree. Python
//! syntax errors are the Python language server's to report, so none are
//! reported here; what does not parse, and everything tensorfit does not
//! model, lowers to an `Unknown` expression that the analysis treats as a
//! value it knows nothing about.
//!
//! The file is cut into pieces as a `.tensor` file is ([`outline`]): each
//! function, module class and top-level statement is lowered on its own
//! ([`lower_piece`]) with the file's [`ModuleContext`] (its imports and
//! top-level names), so that an edit inside one method lowers only it.

mod annotation_style;
mod changed_names;
mod class_functions;
mod context;
mod enumerations;
mod inheritance;
mod lower;
mod outline;
mod parser_input;
mod statement_facts;
mod tensor_changes;
mod torch_names;

use std::collections::BTreeSet;
use std::sync::Arc;

use tensorfit_base::TextRange;
use tensorfit_syntax::{ast, LoweredPiece, Parse};

pub use annotation_style::{annotation_style, AnnotationStyle};
pub use class_functions::ClassFunctions;
pub use context::{
    is_modelled_module, module_candidates, module_context, package_candidates, relative_imports,
    ModuleContext,
};
pub use outline::outline;
pub use parser_input::{parse_cut, Cut as ParseCut, CutReason, MAX_HIDDEN_RUNS};
pub use statement_facts::{class_details, statement_facts, ClassDetails, StatementFacts};

/// How the names the lowering makes up (destructuring temporaries,
/// jaxtyping's anonymous `...` segments) begin: no Python identifier can,
/// and what is shown of a file leaves them out.
pub const TEMPORARY_PREFIX: &str = "$tmp";

/// Runs tree-sitter-python, reusing `old` (already edited) for incremental
/// parsing, on what [`parser_input`](parser_input::parser_input) gives it
/// of `text`: the same nodes at the same offsets, in time linear in the
/// text.
pub fn parse_tree(text: &str, old: Option<&tree_sitter::Tree>) -> tree_sitter::Tree {
    let input = parser_input::parser_input(text);
    let included = included_ranges(&input.text, &input.hidden);
    thread_local! {
        static PARSER: std::cell::RefCell<tree_sitter::Parser> = std::cell::RefCell::new({
            let mut parser = tree_sitter::Parser::new();
            parser
                .set_language(&tree_sitter_python::LANGUAGE.into())
                .expect("the bundled Python grammar matches the tree-sitter runtime");
            parser
        });
    }
    PARSER.with(|parser| {
        let mut parser = parser.borrow_mut();
        // Empty: the whole text (the parser is reused: always set).
        parser
            .set_included_ranges(&included)
            .expect("ranges in order, within the text");
        parser
            .parse(&*input.text, old)
            .expect("a parser with a language and no cancellation always returns a tree")
    })
}

/// The ranges of `text` outside `hidden` (in order, disjoint), with their
/// points; none when nothing is hidden.
fn included_ranges(text: &str, hidden: &[std::ops::Range<usize>]) -> Vec<tree_sitter::Range> {
    if hidden.is_empty() {
        return Vec::new();
    }
    let mut bounds: Vec<usize> = Vec::with_capacity(hidden.len() * 2 + 2);
    bounds.push(0);
    for range in hidden {
        bounds.push(range.start);
        bounds.push(range.end);
    }
    bounds.push(text.len());
    // The point of each bound, in one pass over the text.
    let mut points = Vec::with_capacity(bounds.len());
    let (mut row, mut line_start, mut at) = (0usize, 0usize, 0usize);
    for &bound in &bounds {
        for (offset, byte) in text.as_bytes()[at..bound].iter().enumerate() {
            if *byte == b'\n' {
                row += 1;
                line_start = at + offset + 1;
            }
        }
        at = at.max(bound);
        points.push(tree_sitter::Point::new(row, bound - line_start));
    }
    bounds
        .chunks(2)
        .zip(points.chunks(2))
        .filter(|(b, _)| b[0] < b[1])
        .map(|(b, p)| tree_sitter::Range {
            start_byte: b[0],
            end_byte: b[1],
            start_point: p[0],
            end_point: p[1],
        })
        .collect()
}

/// Lowers the text of one piece of a file (see [`outline`]), starting at
/// offset `base`; `places` moves the methods of a class as for
/// [`tensorfit_syntax::lower_piece`]. The result depends only on the
/// arguments.
pub fn lower_piece(
    text: &str,
    base: usize,
    places: &[(usize, usize)],
    context: &ModuleContext,
) -> LoweredPiece {
    let tree = parse_tree(text, None);
    let root = tree.root_node();
    let mut cursor = root.walk();
    let nodes: Vec<_> = root.named_children(&mut cursor).collect();
    lower_nodes(&nodes, text, (0, base), places, context)
}

/// What [`lower_piece`] gives for the piece of the file's tree at `range`
/// (a child of the root), read from that tree instead of parsing the
/// piece's text again; `text` is the file's. `None` when no child is at
/// `range`, or when it holds a syntax error: a broken piece is lowered
/// from its own text, whose parse recovers on the piece alone.
pub fn lower_piece_in(
    tree: &tree_sitter::Tree,
    text: &str,
    range: TextRange,
    base: usize,
    places: &[(usize, usize)],
    context: &ModuleContext,
) -> Option<LoweredPiece> {
    let node = clean_root_child(tree, range)?;
    Some(lower_nodes(
        &[node],
        text,
        (range.start as usize, base),
        places,
        context,
    ))
}

/// The declaration of the top-level function at `range` of the file's
/// tree, as the database cuts [`lower_piece_in`]'s (no body, the range
/// ending where the body starts), without lowering its body. `None` for
/// any other piece, and where [`lower_piece_in`] gives none.
pub fn declare_function_in(
    tree: &tree_sitter::Tree,
    text: &str,
    range: TextRange,
    base: usize,
    places: &[(usize, usize)],
    context: &ModuleContext,
) -> Option<ast::Function> {
    let node = clean_root_child(tree, range)?;
    let start = range.start as usize;
    let placement = placement_of(places, start);
    let shift = base as isize - start as isize;
    lower::Lowerer::new(text, context, &placement, shift).signature(node)
}

/// The root's child at `range`, unless it holds a syntax error (such a
/// piece is lowered from its own text: see [`lower_piece_in`]).
fn clean_root_child(tree: &tree_sitter::Tree, range: TextRange) -> Option<tree_sitter::Node<'_>> {
    tensorfit_syntax::root_child_at(tree, range).filter(|node| !node.has_error())
}

/// Where `places` (offsets relative to a piece starting at `start`) put
/// the methods of a piece.
fn placement_of(places: &[(usize, usize)], start: usize) -> impl Fn(usize) -> Option<usize> + '_ {
    move |at: usize| {
        places
            .iter()
            .find(|(offset, _)| offset + start == at)
            .map(|(_, place)| *place)
    }
}

/// The top-level `nodes` of a piece that starts at `at.0` in `text`, placed
/// to start at `at.1` (`places` relative to the piece's start).
fn lower_nodes(
    nodes: &[tree_sitter::Node<'_>],
    text: &str,
    (start, base): (usize, usize),
    places: &[(usize, usize)],
    context: &ModuleContext,
) -> LoweredPiece {
    let placement = placement_of(places, start);
    let mut file = ast::SourceFile::default();
    let shift = base as isize - start as isize;
    let mut lowerer = lower::Lowerer::new(text, context, &placement, shift);
    for &node in nodes {
        lowerer.top_level(node, &mut file);
    }
    file.holes = lowerer.finish();
    LoweredPiece {
        file,
        diagnostics: Vec::new(),
        names_in_errors: BTreeSet::new(),
    }
}

/// Lowers a whole parsed Python file at its own offsets (for the
/// database's whole-file view and for tools that do not cut it in pieces).
pub fn lower_tree(tree: &tree_sitter::Tree, text: &str) -> Parse {
    let context = module_context(tree, text);
    let mut file = ast::SourceFile::default();
    let no_places = |_: usize| None;
    let mut lowerer = lower::Lowerer::new(text, &context, &no_places, 0);
    let root = tree.root_node();
    let mut cursor = root.walk();
    for node in root.named_children(&mut cursor) {
        lowerer.top_level(node, &mut file);
    }
    file.holes = lowerer.finish();
    Parse {
        file: Arc::new(file),
        diagnostics: Vec::new(),
        names_in_errors: BTreeSet::new(),
    }
}

/// Whether a Python text uses PyTorch: `tensorfit check` on a directory
/// reads only such files (a Django view or a plain script says nothing).
pub fn imports_torch(text: &str) -> bool {
    let tree = parse_tree(text, None);
    module_context(&tree, text).imports_torch()
}

#[cfg(test)]
mod tests {
    use super::*;
    use tensorfit_syntax::ast::{Item, StmtKind, TypeKind};

    fn function(text: &str) -> ast::Function {
        let parse = lower_tree(&parse_tree(text, None), text);
        match &parse.file.items[0] {
            Item::Function(f) => f.clone(),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn bare_parameters_are_tensors_and_unread_annotations_gradual() {
        let f = function("def f(x, n: int, s: str, p=0.5, m=None):\n    return x\n");
        let kinds: Vec<Option<TypeKind>> = f
            .params
            .iter()
            .map(|p| p.ty.as_ref().map(|t| t.kind.clone()))
            .collect();
        assert_eq!(
            kinds,
            [
                Some(TypeKind::Tensor { dims: None }),
                Some(TypeKind::Int),
                None,
                Some(TypeKind::Float),
                None
            ]
        );
    }

    /// The builtins on numbers are calls the analysis computes
    /// (`shapes::exec::numbers`): the lowering passes them on by name.
    #[test]
    fn float_and_int_builtins() {
        let called = |source: &str| {
            let f = function(source);
            let body = f.body.as_ref().unwrap();
            let StmtKind::Return(Some(value)) = &body.stmts[0].kind else {
                panic!("{f:?}");
            };
            tensorfit_syntax::print::expr(value)
        };
        assert_eq!(
            called("def f(x):\n    return float(x)\n"),
            "builtins.float(x)"
        );
        assert_eq!(
            called("def f(n: int):\n    return int(n)\n"),
            "builtins.int(n)"
        );
        assert_eq!(
            called("import math\ndef f(x):\n    return math.ceil(x * 0.5)\n"),
            "math.ceil(x * 0.5)"
        );
        assert_eq!(
            called("def f(a, b):\n    return max(a, b) if a else min(a, b, 2)\n"),
            "builtins.conditional(a, builtins.max(a, b), builtins.min(a, b, 2))"
        );
        // `round(x, 2)` is a float: not a size.
        assert!(called("def f(x):\n    return round(x, 2)\n").contains("unknown"));
    }

    #[test]
    fn int_of_a_quotient_of_sizes_is_integer_division() {
        let f = function("def f(p: int, w: int):\n    return int(p * (w / 64.0)) * 2\n");
        let StmtKind::Return(Some(value)) = &f.body.as_ref().unwrap().stmts[0].kind else {
            panic!("{f:?}");
        };
        assert_eq!(
            tensorfit_syntax::print::expr(value),
            "builtins.int(p * w // 64) * 2"
        );
    }

    #[test]
    fn init_runs_as_statements_and_fields_read_what_it_leaves() {
        let text = "import torch.nn as nn\nclass M(nn.Module):\n    scale = 2\n    def __init__(self, n):\n        super().__init__()\n        if n > 1:\n            self.a = nn.Linear(n, n)\n        else:\n            self.a = None\n        self.b = self.a\n";
        let parse = lower_tree(&parse_tree(text, None), text);
        let Item::Struct(s) = &parse.file.items[0] else {
            panic!("{:?}", parse.file.items);
        };
        let fields: Vec<(&str, String)> = s
            .fields
            .iter()
            .map(|f| {
                (
                    f.name.text.as_str(),
                    tensorfit_syntax::print::expr(&f.value),
                )
            })
            .collect();
        assert_eq!(
            fields,
            [
                ("scale", "self.scale".to_owned()),
                ("a", "self.a".to_owned()),
                ("b", "self.b".to_owned())
            ]
        );
        assert_eq!(s.class_fields.len(), 1);
        let kinds: Vec<&str> = s
            .init
            .as_ref()
            .unwrap()
            .stmts
            .iter()
            .map(|stmt| match &stmt.kind {
                StmtKind::Var { .. } => "var",
                StmtKind::If { .. } => "if",
                StmtKind::Assign { .. } => "assign",
                _ => "other",
            })
            .collect();
        assert_eq!(kinds, ["var", "var", "if", "assign"]);
    }
}
