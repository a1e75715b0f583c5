//! A Python file cut into the pieces the database lowers one by one: each
//! top-level function, module class and constant, and each statement of
//! the script, with the keys the Tensor outline gives the same kinds of
//! item (`f`, `struct Net`, `Net.forward`, `const N`).

use tensorfit_base::TextRange;
use tensorfit_syntax::{ItemHead, Outline, OutlinePiece, UniqueKeys};
use tree_sitter::{Node, Tree};

use crate::class_functions::{own_class_functions, qualified};
use crate::context::ModuleContext;
use crate::lower::syntax::{child_by_field, decorated, definition_of, named_children, text_of};
use crate::lower::{is_main_guard, methods_of};

/// The pieces of a parsed Python text, given its context (which says
/// which classes are modules and which names constants).
pub fn outline(tree: &Tree, text: &str, context: &ModuleContext) -> Outline {
    let mut outline = Outline::default();
    let mut keys = UniqueKeys::default();
    let mut unique = |key: String| keys.unique(key);
    for node in named_children(tree.root_node()) {
        let range = TextRange::new(node.start_byte(), node.end_byte());
        let definition = definition_of(node);
        let item = match definition.kind() {
            "function_definition" => Some((name_of(definition, text), Vec::new())),
            // Lowered to a function of the class's name.
            "class_definition"
                if context
                    .sequential_builders
                    .contains_key(&name_of(definition, text)) =>
            {
                Some((name_of(definition, text), Vec::new()))
            }
            "class_definition" => {
                let name = name_of(definition, text);
                let is_enum = context.enums.contains_key(&name);
                let is_struct = context.modules.contains(&name) || context.classes.contains(&name);
                let functions = own_class_functions(definition, text);
                if !is_struct && !is_enum && functions.is_empty() {
                    // A class with bases that are not modules and no class
                    // functions: nothing the analysis reads.
                    continue;
                }
                // A struct's methods are keyed `Net.forward`, its class
                // functions as the function items they are lowered to.
                let methods = methods_of(definition, text)
                    .into_iter()
                    .filter(|_| is_struct)
                    .map(|(method, node)| (format!("{name}.{method}"), decorated(node)))
                    .chain(
                        functions
                            .into_iter()
                            .map(|(function, node)| (qualified(&name, &function), node)),
                    )
                    .map(|(key, placed)| {
                        (
                            unique(key),
                            TextRange::new(placed.start_byte(), placed.end_byte()),
                        )
                    })
                    .collect();
                let key = match is_struct {
                    true => format!("struct {name}"),
                    false => format!("class {name}"),
                };
                Some((key, methods))
            }
            "import_statement" | "import_from_statement" | "future_import_statement" => continue,
            "expression_statement" => match constant_name(node, text) {
                Some(name) if context.constants.contains(&name) => {
                    Some((format!("const {name}"), Vec::new()))
                }
                _ => None,
            },
            "if_statement" if is_main_guard(node, text) => None,
            kind if is_statement(kind) => None,
            // `ERROR` and anything else: nothing the lowering keeps.
            _ => continue,
        };
        outline.pieces.push(OutlinePiece {
            range,
            // Each Python piece is lowered from its own text, whatever
            // errors it holds (see `tensorfit_python::lower_piece`).
            broken: false,
            item: item.map(|(key, methods)| ItemHead {
                key: unique(key),
                methods,
            }),
        });
    }
    outline
}

fn is_statement(kind: &str) -> bool {
    matches!(
        kind,
        "expression_statement"
            | "if_statement"
            | "for_statement"
            | "while_statement"
            | "with_statement"
            | "try_statement"
            | "assert_statement"
    )
}

fn name_of(node: Node<'_>, text: &str) -> String {
    child_by_field(node, "name").map_or_else(|| "?".to_owned(), |n| text_of(n, text).to_owned())
}

/// `NAME = value` at the top level: the name.
pub(crate) fn constant_name(statement: Node<'_>, text: &str) -> Option<String> {
    let assignment = named_children(statement).into_iter().next()?;
    if assignment.kind() != "assignment" {
        return None;
    }
    let left = child_by_field(assignment, "left")?;
    (left.kind() == "identifier").then(|| text_of(left, text).to_owned())
}
