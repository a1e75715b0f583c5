//! Small readers of tree-sitter-python nodes shared by the lowering.

use std::collections::HashMap;
use std::sync::OnceLock;

use tree_sitter::Node;

/// Every named node below `root`, itself included, depth first. Walked
/// with an explicit stack: an expression like `1 + 1 + ... + 1` nests as
/// deep as the line is long.
pub(crate) fn descendants(root: Node<'_>) -> impl Iterator<Item = Node<'_>> {
    let mut stack = vec![root];
    let mut cursor = root.walk();
    std::iter::from_fn(move || {
        let node = stack.pop()?;
        each_named_child(&mut cursor, node, |child| stack.push(child));
        Some(node)
    })
}

/// Calls `f` with each named child of `node` that is not a comment, in
/// order, as [`named_children`] lists them, through one cursor the walks
/// reuse: a new cursor and a vector per node were a tenth of a Python
/// file's check (the module context's walks visit every node of a
/// statement, the lowering's every node of a scope).
pub(crate) fn each_named_child<'t>(
    cursor: &mut tree_sitter::TreeCursor<'t>,
    node: Node<'t>,
    mut f: impl FnMut(Node<'t>),
) {
    cursor.reset(node);
    if !cursor.goto_first_child() {
        return;
    }
    loop {
        let child = cursor.node();
        if child.is_named() && !child.is_extra() {
            f(child);
        }
        if !cursor.goto_next_sibling() {
            break;
        }
    }
}

/// Whether a call's argument is a plain value (not `name=...`, `*xs` or
/// `**kw`).
pub(crate) fn is_plain_argument(argument: Node<'_>) -> bool {
    !matches!(
        argument.kind(),
        "keyword_argument" | "list_splat" | "dictionary_splat"
    )
}

/// A node met by [`descendants_with_parents`], with the two nodes above
/// it.
#[derive(Clone, Copy)]
pub(crate) struct Placed<'t> {
    pub node: Node<'t>,
    pub parent: Node<'t>,
    /// `None` when the parent is the walk's root.
    pub grandparent: Option<Node<'t>>,
}

/// [`descendants`] below `root` (not itself), each with its parent and
/// grandparent: tree-sitter's `parent` walks down from the root, so
/// asking it of every node would be quadratic in the nesting
/// (`torch.relu(torch.relu(...))` 5,000 deep).
pub(crate) fn descendants_with_parents(root: Node<'_>) -> impl Iterator<Item = Placed<'_>> {
    let stack: Vec<Placed<'_>> = named_children(root)
        .into_iter()
        .map(|node| Placed {
            node,
            parent: root,
            grandparent: None,
        })
        .collect();
    walk_placed(root, stack)
}

/// The part of [`descendants_with_parents`] of `parent` that is `node`
/// (one of its children) and what is below it, in the same order: that
/// walk is these parts, from the last child to the first.
pub(crate) fn subtree_with_parents<'t>(
    node: Node<'t>,
    parent: Node<'t>,
) -> impl Iterator<Item = Placed<'t>> {
    let top = Placed {
        node,
        parent,
        grandparent: None,
    };
    walk_placed(node, vec![top])
}

/// Pops the nodes of `stack`, pushing each one's named children.
fn walk_placed<'t>(root: Node<'t>, mut stack: Vec<Placed<'t>>) -> impl Iterator<Item = Placed<'t>> {
    let mut cursor = root.walk();
    std::iter::from_fn(move || {
        let placed = stack.pop()?;
        each_named_child(&mut cursor, placed.node, |node| {
            stack.push(Placed {
                node,
                parent: placed.node,
                grandparent: Some(placed.parent),
            })
        });
        Some(placed)
    })
}

/// Each use of the identifier `name` below `root`, with what is above it.
pub(crate) fn uses_of<'t>(
    root: Node<'t>,
    name: &'t str,
    text: &'t str,
) -> impl Iterator<Item = Placed<'t>> {
    descendants_with_parents(root)
        .filter(move |p| p.node.kind() == "identifier" && text_of(p.node, text) == name)
}

/// Whether `node` is the child `parent` has in `field`.
pub(crate) fn is_field(parent: Node<'_>, field: &str, node: Node<'_>) -> bool {
    child_by_field(parent, field).is_some_and(|child| child.id() == node.id())
}

/// The named children that are not comments.
pub(crate) fn named_children(node: Node<'_>) -> Vec<Node<'_>> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor)
        .filter(|child| !child.is_extra())
        .collect()
}

/// A child by field name, with the field's id looked up once (tree-sitter
/// finds a field's id by comparing names).
pub(crate) fn child_by_field<'t>(node: Node<'t>, name: &str) -> Option<Node<'t>> {
    static IDS: OnceLock<HashMap<&'static str, u16>> = OnceLock::new();
    let ids = IDS.get_or_init(|| {
        let language: tree_sitter::Language = tree_sitter_python::LANGUAGE.into();
        (1..=language.field_count() as u16)
            .filter_map(|id| Some((language.field_name_for_id(id)?, id)))
            .collect()
    });
    node.child_by_field_id(*ids.get(name)?)
}

pub(crate) fn text_of<'t>(node: Node<'_>, text: &'t str) -> &'t str {
    text.get(node.start_byte()..node.end_byte()).unwrap_or("")
}

/// The function or class a decorated definition decorates; any other node
/// itself.
pub(crate) fn definition_of(node: Node<'_>) -> Node<'_> {
    match node.kind() {
        "decorated_definition" => child_by_field(node, "definition").unwrap_or(node),
        _ => node,
    }
}

/// A class's `__init__` (decorated or not), if it defines one.
pub(crate) fn init_method<'t>(class: Node<'t>, text: &str) -> Option<Node<'t>> {
    named_children(child_by_field(class, "body")?)
        .into_iter()
        .map(definition_of)
        .find(|member| {
            member.kind() == "function_definition"
                && child_by_field(*member, "name").is_some_and(|n| text_of(n, text) == "__init__")
        })
}

/// The decorated definition around a definition, or the definition: the
/// item as the outline places it (from its first decorator).
pub(crate) fn decorated(definition: Node<'_>) -> Node<'_> {
    definition
        .parent()
        .filter(|p| p.kind() == "decorated_definition")
        .unwrap_or(definition)
}

/// The name of a function's first parameter (a method's `self`, whatever
/// it is called).
pub(crate) fn first_parameter<'t>(function: Node<'_>, text: &'t str) -> Option<&'t str> {
    child_by_field(function, "parameters")
        .and_then(|p| named_children(p).into_iter().next())
        .filter(|p| p.kind() == "identifier")
        .map(|p| text_of(p, text))
}

/// The decorators' texts (`staticmethod`, `torch.no_grad()`).
pub(crate) fn decorators<'t>(node: Node<'_>, text: &'t str) -> Vec<&'t str> {
    if node.kind() != "decorated_definition" {
        return Vec::new();
    }
    named_children(node)
        .into_iter()
        .filter(|child| child.kind() == "decorator")
        .map(|child| text_of(child, text).trim_start_matches('@').trim())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The walks reuse one cursor; they must meet the nodes, parents and
    /// grandparents that listing each node's named children meets, in the
    /// same order (some callers keep the first node found).
    #[test]
    fn walks_visit_what_named_children_lists_in_the_same_order() {
        let text = "\
import torch  # a comment
class Net(torch.nn.Module):
    def forward(self, x):  # another
        # between statements
        y = torch.relu(x[:, 0] + 1)
        return [y, {'a': (x, y)}]
";
        let tree = crate::parse_tree(text, None);
        let root = tree.root_node();
        let mut expected = Vec::new();
        let mut stack = vec![(root, None::<Node<'_>>, None::<Node<'_>>)];
        while let Some((node, parent, grandparent)) = stack.pop() {
            expected.push((
                node.id(),
                parent.map(|p| p.id()),
                grandparent.map(|g| g.id()),
            ));
            stack.extend(
                named_children(node)
                    .into_iter()
                    .map(|child| (child, Some(node), parent)),
            );
        }
        let walked: Vec<usize> = descendants(root).map(|n| n.id()).collect();
        let listed: Vec<usize> = expected.iter().map(|(id, _, _)| *id).collect();
        assert_eq!(walked, listed);
        let with_parents: Vec<_> = descendants_with_parents(root)
            .map(|p| {
                (
                    p.node.id(),
                    Some(p.parent.id()),
                    p.grandparent.map(|g| g.id()),
                )
            })
            .collect();
        assert_eq!(with_parents, expected[1..].to_vec());
        assert!(
            listed.len() > 30,
            "the text has a real tree: {}",
            listed.len()
        );
    }
}
