//! A file cut into its top-level pieces, read off the tree without lowering
//! it: each item and each statement of the script, with the keys that name
//! items across edits.
//!
//! The incremental database lowers each piece from its own text (see
//! [`crate::lower_piece`]), so that an edit lowers again only the pieces
//! whose text changed. Cutting the file is the part every edit pays for,
//! which is why it only looks at the root's children and their names.

use std::collections::{BTreeSet, HashMap};

use tensorfit_base::TextRange;
use tree_sitter::{Node, Tree};

use crate::lower::{identifiers_in, FieldById};

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outline {
    /// In source order.
    pub pieces: Vec<OutlinePiece>,
    /// Identifiers inside unparsable top-level text, which lowers to
    /// nothing (see [`crate::Parse::names_in_errors`]).
    pub names_in_errors: BTreeSet<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutlinePiece {
    pub range: TextRange,
    /// `None` for a statement of the script.
    pub item: Option<ItemHead>,
    /// The piece holds a syntax error (see [`crate::lower_piece`]).
    pub broken: bool,
}

/// What names an item across edits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ItemHead {
    /// Unique in the file: `f`, `struct S`, `const c`, `import "p"`; a
    /// repeated one gets `#2`, `#3`.
    pub key: String,
    /// A struct's methods, keyed `S.m` (also unique), with their ranges.
    pub methods: Vec<(String, TextRange)>,
}

/// Makes item keys unique in a file: a repeated key gets `#2`, `#3`
/// (shared with the Python front end's outline).
#[derive(Default)]
pub struct UniqueKeys(HashMap<String, usize>);

impl UniqueKeys {
    pub fn unique(&mut self, key: String) -> String {
        let count = self.0.entry(key.clone()).or_insert(0);
        *count += 1;
        match *count {
            1 => key,
            n => format!("{key}#{n}"),
        }
    }
}

/// The pieces of a parsed text.
pub fn outline(tree: &Tree, text: &str) -> Outline {
    let mut outline = Outline::default();
    let mut keys = UniqueKeys::default();
    let mut unique = |key: String| keys.unique(key);
    let root = tree.root_node();
    let mut cursor = root.walk();
    for node in root.named_children(&mut cursor) {
        if node.is_extra() {
            continue;
        }
        let range = TextRange::new(node.start_byte(), node.end_byte());
        let item = match node.kind() {
            "function_definition" | "extern_function" => Some((name_of(node, text), Vec::new())),
            "struct_definition" => {
                let name = name_of(node, text);
                let methods = methods_of(node, text)
                    .into_iter()
                    .map(|(method, range)| (unique(format!("{name}.{method}")), range))
                    .collect();
                Some((format!("struct {name}"), methods))
            }
            "const_declaration" => Some((format!("const {}", name_of(node, text)), Vec::new())),
            "import_declaration" => {
                let path = node.field("path").map_or("", |p| text_of(p, text));
                Some((format!("import {path}"), Vec::new()))
            }
            _ if node.is_error() => {
                identifiers_in(node, text, &mut outline.names_in_errors);
                continue;
            }
            _ if is_statement(node.kind()) => None,
            // Nothing the lowering would keep.
            _ => continue,
        };
        outline.pieces.push(OutlinePiece {
            range,
            broken: node.has_error(),
            item: item.map(|(key, methods)| ItemHead {
                key: unique(key),
                methods,
            }),
        });
    }
    outline
}

/// The kinds lowered as statements of the script (see `Lowerer::statement`).
fn is_statement(kind: &str) -> bool {
    matches!(
        kind,
        "let_statement"
            | "var_statement"
            | "assignment"
            | "assert_statement"
            | "if_statement"
            | "for_statement"
            | "while_statement"
            | "return_statement"
            | "expression_statement"
    )
}

fn text_of<'t>(node: Node<'_>, text: &'t str) -> &'t str {
    text.get(node.start_byte()..node.end_byte()).unwrap_or("")
}

/// The item's name as lowering reads it: `?` when it is missing or broken.
fn name_of(node: Node<'_>, text: &str) -> String {
    match node.field("name") {
        Some(name) if name.kind() == "identifier" && !name.is_error() && !name.is_missing() => {
            text_of(name, text).to_owned()
        }
        _ => "?".to_owned(),
    }
}

fn methods_of(node: Node<'_>, text: &str) -> Vec<(String, TextRange)> {
    let Some(body) = node.field("body") else {
        return Vec::new();
    };
    let mut cursor = body.walk();
    body.named_children(&mut cursor)
        .filter(|member| member.kind() == "function_definition")
        .map(|member| {
            (
                name_of(member, text),
                TextRange::new(member.start_byte(), member.end_byte()),
            )
        })
        .collect()
}
