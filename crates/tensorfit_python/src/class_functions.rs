//! Functions that belong to a class rather than to its instances
//! (`@classmethod`, and `@staticmethod` of a class tensorfit does not lower
//! to a struct), called through the class: `ResNet50_Weights.verify(w)`.
//!
//! Each is lowered as a function of its own named `Class::method` (see
//! [`CLASS_FUNCTION_SEPARATOR`]), and a call through a class is resolved
//! statically along the class's bases: its own functions, those its bases
//! in the file have, then those of bases imported from files the database
//! reads (torchvision's weight enums inherit `verify` from `_api.py`).
//! What `cls` is inside a classmethod is not followed (a subclass may be
//! the receiver): it is unknown.

use std::collections::BTreeMap;

use tensorfit_syntax::ast::CLASS_FUNCTION_SEPARATOR;
use tree_sitter::Node;

use crate::lower::syntax::{child_by_field, decorators, definition_of, named_children, text_of};

/// How many bases deep a class function is looked for.
pub(crate) const MAX_BASE_DEPTH: usize = 8;

/// For each method name, the function that answers it (`Base.verify`).
pub type ClassFunctions = BTreeMap<String, String>;

/// The class functions a class defines in its own body, by name, with
/// their definitions (decorated). A struct class (a module, a plain class)
/// lowers its static methods as methods, so only its class methods count.
pub(crate) fn own_class_functions<'t>(
    class: Node<'t>,
    text: &str,
    is_struct: bool,
) -> Vec<(String, Node<'t>)> {
    let Some(body) = child_by_field(class, "body") else {
        return Vec::new();
    };
    named_children(body)
        .into_iter()
        .filter(|member| {
            let decorators = decorators(*member, text);
            decorators.contains(&"classmethod")
                || (!is_struct && decorators.contains(&"staticmethod"))
        })
        .filter_map(|member| {
            let definition = definition_of(member);
            if definition.kind() != "function_definition" {
                return None;
            }
            let name = text_of(child_by_field(definition, "name")?, text);
            Some((name.to_owned(), member))
        })
        .collect()
}

/// Whether a decorated member is a class method (its first parameter is
/// the class).
pub(crate) fn is_classmethod(decorators: &[&str]) -> bool {
    decorators.contains(&"classmethod")
}

/// The class functions each class of a file answers, through the bases the
/// file defines: `own` gives each class's own function names, `bases` its
/// bases as written.
pub(crate) fn resolve_in_file(
    own: &BTreeMap<String, Vec<String>>,
    bases: &BTreeMap<String, Vec<String>>,
) -> BTreeMap<String, ClassFunctions> {
    let mut resolved = BTreeMap::new();
    for class in own.keys().chain(bases.keys()) {
        let mut functions = ClassFunctions::new();
        collect(class, own, bases, MAX_BASE_DEPTH, &mut functions);
        if !functions.is_empty() {
            resolved.insert(class.clone(), functions);
        }
    }
    resolved
}

/// Adds the functions `class` answers, its own first (the nearest
/// definition wins, as Python's method resolution mostly gives).
fn collect(
    class: &str,
    own: &BTreeMap<String, Vec<String>>,
    bases: &BTreeMap<String, Vec<String>>,
    depth: usize,
    functions: &mut ClassFunctions,
) {
    for method in own.get(class).into_iter().flatten() {
        functions
            .entry(method.clone())
            .or_insert_with(|| qualified(class, method));
    }
    let Some(depth) = depth.checked_sub(1) else {
        return;
    };
    for base in bases.get(class).into_iter().flatten() {
        collect(base, own, bases, depth, functions);
    }
}

/// The name a class function is lowered under.
pub fn qualified(class: &str, method: &str) -> String {
    format!("{class}{CLASS_FUNCTION_SEPARATOR}{method}")
}
