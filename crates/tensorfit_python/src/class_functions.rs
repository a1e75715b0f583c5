//! Functions that belong to a class rather than to its instances
//! (`@classmethod`, and `@staticmethod` of a class tensorfit does not lower
//! to a struct), called through the class: `ResNet50_Weights.verify(w)`.
//!
//! Each is lowered as a function of its own named `Class::method` (see
//! [`CLASS_FUNCTION_SEPARATOR`]), and a call through a class is resolved
//! statically along the class's bases
//! ([`crate::ModuleContext::class_functions`]): its own functions, then
//! its bases', in the file or imported from files the database reads
//! (torchvision's weight enums inherit `verify` from `_api.py`).
//! What `cls` is inside a classmethod is not followed (a subclass may be
//! the receiver): it is unknown.

use std::collections::{BTreeMap, BTreeSet};

use tensorfit_syntax::ast::CLASS_FUNCTION_SEPARATOR;
use tree_sitter::Node;

use crate::lower::syntax::{child_by_field, decorators, definition_of, named_children, text_of};

/// How many bases deep a class function is looked for.
pub(crate) const MAX_BASE_DEPTH: usize = 8;

/// For each method name, the function that answers it (`Base::verify`).
pub type ClassFunctions = BTreeMap<String, String>;

/// Each class's own class functions, by name.
pub type OwnClassFunctions = BTreeMap<String, BTreeSet<String>>;

/// The class functions a class defines in its own body, by name, with
/// their definitions (decorated): class methods and static methods. A
/// struct class (a module, a plain class) lowers its static methods as
/// methods too, called on an instance (`self.adjust_channels(c, w)`); as
/// class functions they answer calls through the class
/// (`InvertedResidualConfig.adjust_channels`, also in a `partial`).
pub(crate) fn own_class_functions<'t>(class: Node<'t>, text: &str) -> Vec<(String, Node<'t>)> {
    let Some(body) = child_by_field(class, "body") else {
        return Vec::new();
    };
    named_children(body)
        .into_iter()
        .filter(|member| {
            let decorators = decorators(*member, text);
            is_classmethod(&decorators) || decorators.contains(&"staticmethod")
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

/// The name a class function is lowered under.
pub fn qualified(class: &str, method: &str) -> String {
    format!("{class}{CLASS_FUNCTION_SEPARATOR}{method}")
}
