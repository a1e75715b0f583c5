//! A class derived from another class of the same file (`class
//! MBConvConfig(_MBConvConfig)`, `class Wide(Block)`).
//!
//! Its `super().__init__(...)` is lowered to a field of its own,
//! [`BASE_INSTANCE_FIELD`], that holds an instance of the base made with
//! those arguments; a member or method the class does not define is read
//! through that field, as Python's attribute lookup goes on to the base.
//! A class without `__init__` takes its base's: it passes all its
//! arguments on. Methods of the base run with `self` the derived instance,
//! so that what the derived class assigns or overrides is what they see.
//!
//! What this cannot model is the base's `__init__` (or a helper it calls)
//! reading or assigning `self.name` where the derived class gives itself
//! `name`: an overriding method or class attribute Python would use there,
//! an attribute the derived class set before `super().__init__` that the
//! base's assignment replaces. Such a class is not lowered as derived, and
//! stays unknown.

use std::collections::{BTreeMap, BTreeSet};

use tensorfit_syntax::ast::BASE_INSTANCE_FIELD;
use tree_sitter::Node;

use crate::context::ModuleContext;
use crate::lower::init::{assigned_on_self, class_body_assignments};
use crate::lower::syntax::{
    child_by_field, definition_of, descendants, first_parameter, named_children, text_of,
};
use crate::statement_facts::{ClassDetails, ClassFacts};

/// How long a chain of bases is followed.
const MAX_CHAIN: usize = 8;

/// Fills in `context.inherits`, and adds to `context.classes` the classes
/// derived from one of them (a module class derived from a module class is
/// a module already). `classes` are the file's top-level classes with
/// their bases as written.
pub(crate) fn find_inheritance<'a>(
    classes: &[(usize, &ClassFacts)],
    class_details: &dyn Fn(usize) -> &'a ClassDetails,
    context: &mut ModuleContext,
) {
    let statement_of: BTreeMap<&str, usize> = classes
        .iter()
        .map(|(statement, class)| (class.name.as_str(), *statement))
        .collect();
    for _ in 0..MAX_CHAIN {
        let before = (context.inherits.len(), context.classes.len());
        for (statement, class) in classes {
            let name = &class.name;
            let [base] = class.bases.as_slice() else {
                continue;
            };
            let is_struct = |n: &str| context.modules.contains(n) || context.classes.contains(n);
            if base == name
                || context.inherits.contains_key(name)
                || !is_struct(base)
                || context.sequential_builders.contains_key(name)
                || class.dataclass
                || !(context.modules.contains(name) || context.classes.contains(base))
            {
                continue;
            }
            let own = &class_details(*statement).own_attributes;
            if init_uses_any(&statement_of, class_details, base, own, context) {
                continue;
            }
            context.inherits.insert(name.clone(), base.clone());
            if context.classes.contains(base) {
                context.classes.insert(name.clone());
            }
        }
        if (context.inherits.len(), context.classes.len()) == before {
            break;
        }
    }
}

/// Whether the `__init__` of `base` or of its bases in the file, or a
/// method of theirs it calls on `self`, uses `self.name` for one of
/// `names`: in Python it would see the derived class's.
fn init_uses_any<'a>(
    statement_of: &BTreeMap<&str, usize>,
    class_details: &dyn Fn(usize) -> &'a ClassDetails,
    base: &str,
    names: &BTreeSet<String>,
    context: &ModuleContext,
) -> bool {
    let mut class = Some(base);
    for _ in 0..MAX_CHAIN {
        let Some(name) = class else { return false };
        let Some(statement) = statement_of.get(name) else {
            return false;
        };
        let facts = class_details(*statement);
        let mut pending: Vec<String> = vec!["__init__".to_owned()];
        let mut seen: BTreeSet<String> = BTreeSet::new();
        while let Some(method_name) = pending.pop() {
            if !seen.insert(method_name.clone()) {
                continue;
            }
            let Some(used) = facts.self_attributes.get(&method_name) else {
                continue;
            };
            if used.iter().any(|m| names.contains(m)) {
                return true;
            }
            pending.extend(used.iter().cloned());
        }
        class = context.inherits.get(name).map(String::as_str);
    }
    false
}

/// The attributes a function uses on its first parameter (`self.m(...)`,
/// `self.fc`, `self.fc = ...`).
pub(crate) fn self_attributes(function: Node<'_>, text: &str) -> BTreeSet<String> {
    let mut used = BTreeSet::new();
    let Some(self_name) = first_parameter(function, text) else {
        return used;
    };
    for node in descendants(function) {
        if node.kind() == "attribute"
            && child_by_field(node, "object").is_some_and(|o| text_of(o, text) == self_name)
        {
            if let Some(name) = child_by_field(node, "attribute") {
                used.insert(text_of(name, text).to_owned());
            }
        }
    }
    used
}

/// The attributes a class gives its instances itself: those its methods
/// assign on `self` (`__init__` included, registrations such as
/// `self.add_module("fc", m)` too), its methods and its class attributes.
/// Any other `self.name` in its `__init__` is the base's.
pub(crate) fn own_attributes(class: Node<'_>, text: &str) -> BTreeSet<String> {
    let mut own = BTreeSet::new();
    let members = child_by_field(class, "body")
        .map(named_children)
        .unwrap_or_default();
    for (_, name) in class_body_assignments(&members) {
        own.insert(text_of(name, text).to_owned());
    }
    for member in &members {
        let definition = definition_of(*member);
        if definition.kind() != "function_definition" {
            continue;
        }
        if let Some(name) = child_by_field(definition, "name") {
            own.insert(text_of(name, text).to_owned());
        }
        assigned_on_self(definition, text, &mut own);
    }
    own.remove(BASE_INSTANCE_FIELD);
    own
}
