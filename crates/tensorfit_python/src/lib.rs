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

mod context;
mod lower;
mod outline;
mod torch_names;

use std::collections::BTreeSet;
use std::sync::Arc;

use tensorfit_syntax::{ast, LoweredPiece, Outline, Parse};

pub use context::{module_context, ModuleContext};
pub use outline::outline;

/// Runs tree-sitter-python, reusing `old` (already edited) for incremental
/// parsing.
pub fn parse_tree(text: &str, old: Option<&tree_sitter::Tree>) -> tree_sitter::Tree {
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
        parser
            .borrow_mut()
            .parse(text, old)
            .expect("a parser with a language and no cancellation always returns a tree")
    })
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
    let placement = |at: usize| {
        places
            .iter()
            .find(|(offset, _)| *offset == at)
            .map(|(_, place)| *place)
    };
    let mut file = ast::SourceFile {
        language: tensorfit_base::Language::Python,
        ..ast::SourceFile::default()
    };
    let root = tree.root_node();
    let mut lowerer = lower::Lowerer::new(text, context, &placement, base as isize);
    let mut cursor = root.walk();
    for node in root.named_children(&mut cursor) {
        lowerer.top_level(node, &mut file);
    }
    file.holes = lowerer.finish();
    LoweredPiece {
        file,
        diagnostics: Vec::new(),
        names_in_errors: BTreeSet::new(),
    }
}

/// Parses and lowers a whole Python file at its own offsets (for tools and
/// tests that do not go through the database).
pub fn parse(text: &str) -> Parse {
    let tree = parse_tree(text, None);
    let context = module_context(&tree, text);
    let mut file = ast::SourceFile {
        language: tensorfit_base::Language::Python,
        ..ast::SourceFile::default()
    };
    for piece in &outline(&tree, text).pieces {
        let range = piece.range.as_usize();
        let lowered = lower_piece(&text[range.clone()], range.start, &[], &context);
        file.items.extend(lowered.file.items);
        file.script.extend(lowered.file.script);
        file.holes.extend(lowered.file.holes);
    }
    file.holes.sort();
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

#[doc(hidden)]
pub fn outline_of(text: &str) -> Outline {
    outline(&parse_tree(text, None), text)
}
