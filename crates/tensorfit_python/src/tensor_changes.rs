//! Changes of a tensor in place, as Python code writes them.
//!
//! PyTorch's tensors are shared between the names that hold them, and
//! tensorfit's values are not (PYTHON.md §3): a shape never changes in
//! place but for a few methods, but a tensor's items do (`t.add_(1)`,
//! `t += 1`, `t[0] = 5`, `torch.add(a, b, out=t)`,
//! `nn.init.constant_(t, 5.0)`). The analysis keeps a tensor's items
//! (`shapes::elements`) only up to the first statement that may make such
//! a change; the few methods that change a shape make their local
//! unknown.

use tree_sitter::Node;

use crate::lower::syntax::{child_by_field, descendants};

/// Whether a method or function name is PyTorch's spelling of a change
/// in place: a trailing underscore (`add_`, `normal_`), not a private or
/// special name.
fn is_in_place_name(name: &str) -> bool {
    name.len() > 1 && name.ends_with('_') && !name.starts_with('_')
}

/// The methods that change a tensor's shape in place.
const SHAPE_CHANGING: &[&str] = &[
    "unsqueeze_",
    "squeeze_",
    "resize_",
    "resize_as_",
    "t_",
    "transpose_",
    "swapdims_",
    "swapaxes_",
    "as_strided_",
    "set_",
];

/// Whether `x.method(...)` may change `x`'s shape in place.
pub(crate) fn changes_shape_in_place(method: &str) -> bool {
    SHAPE_CHANGING.contains(&method)
}

/// Whether a statement (anything inside it) may change a tensor in place.
pub(crate) fn may_change_tensors_in_place(statement: Node<'_>, text: &str) -> bool {
    let name_of = |node: Node<'_>| &text[node.byte_range()];
    descendants(statement).any(|node| match node.kind() {
        "augmented_assignment" => true,
        "assignment" => child_by_field(node, "left").is_some_and(|left| left.kind() == "subscript"),
        "keyword_argument" => child_by_field(node, "name").is_some_and(|n| name_of(n) == "out"),
        "call" => match child_by_field(node, "function") {
            Some(f) if f.kind() == "attribute" => {
                child_by_field(f, "attribute").is_some_and(|a| is_in_place_name(name_of(a)))
            }
            Some(f) if f.kind() == "identifier" => is_in_place_name(name_of(f)),
            _ => false,
        },
        _ => false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn changes(source: &str) -> bool {
        let tree = crate::parse_tree(source, None);
        let statement = tree.root_node().named_child(0).unwrap();
        may_change_tensors_in_place(statement, source)
    }

    #[test]
    fn changes_in_place_are_recognised() {
        for source in [
            "t.add_(1)",
            "t += 1",
            "t[0] = 5",
            "torch.add(a, b, out=t)",
            "nn.init.constant_(t, 5.0)",
            "constant_(t, 5.0)",
            "for i in range(3):\n    t.data.fill_(i)",
            "y = f(t.mul_(2))",
        ] {
            assert!(changes(source), "{source}");
        }
        for source in [
            "t = t + 1",
            "y = t.add(1)",
            "x.__init__()",
            "f(_)",
            "a.b = 3",
        ] {
            assert!(!changes(source), "{source}");
        }
    }
}
