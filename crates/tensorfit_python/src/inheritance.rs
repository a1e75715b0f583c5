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
use crate::lower::syntax::{child_by_field, decorators, definition_of, named_children, text_of};

/// How long a chain of bases is followed.
const MAX_CHAIN: usize = 8;

/// Fills in `context.inherits`, and adds to `context.classes` the classes
/// derived from one of them (a module class derived from a module class is
/// a module already). `classes` are the file's top-level classes with
/// their bases as written.
pub(crate) fn find_inheritance(
    classes: &[(String, Vec<String>, Node<'_>)],
    text: &str,
    context: &mut ModuleContext,
) {
    let node_of: BTreeMap<&str, Node<'_>> = classes
        .iter()
        .map(|(name, _, node)| (name.as_str(), *node))
        .collect();
    for _ in 0..MAX_CHAIN {
        let before = (context.inherits.len(), context.classes.len());
        for (name, bases, class) in classes {
            let [base] = bases.as_slice() else { continue };
            let is_struct = |n: &str| context.modules.contains(n) || context.classes.contains(n);
            if base == name
                || context.inherits.contains_key(name)
                || !is_struct(base)
                || context.sequential_builders.contains_key(name)
                || is_dataclass(*class, text)
                || !(context.modules.contains(name) || context.classes.contains(base))
            {
                continue;
            }
            let own = own_attributes(*class, text);
            if init_uses_any(&node_of, base, &own, context, text) {
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
fn init_uses_any(
    node_of: &BTreeMap<&str, Node<'_>>,
    base: &str,
    names: &BTreeSet<String>,
    context: &ModuleContext,
    text: &str,
) -> bool {
    let mut class = Some(base);
    for _ in 0..MAX_CHAIN {
        let Some(name) = class else { return false };
        let Some(node) = node_of.get(name) else {
            return false;
        };
        let mut pending: Vec<String> = vec!["__init__".to_owned()];
        let mut seen: BTreeSet<String> = BTreeSet::new();
        while let Some(method_name) = pending.pop() {
            if !seen.insert(method_name.clone()) {
                continue;
            }
            let Some(function) = method(*node, &method_name, text) else {
                continue;
            };
            let used = self_attributes(function, text);
            if used.iter().any(|m| names.contains(m)) {
                return true;
            }
            pending.extend(used);
        }
        class = context.inherits.get(name).map(String::as_str);
    }
    false
}

/// The methods a class body defines, `__init__` aside.
fn own_methods(class: Node<'_>, text: &str) -> BTreeSet<String> {
    let Some(body) = child_by_field(class, "body") else {
        return BTreeSet::new();
    };
    named_children(body)
        .into_iter()
        .map(definition_of)
        .filter(|d| d.kind() == "function_definition")
        .filter_map(|d| child_by_field(d, "name").map(|n| text_of(n, text).to_owned()))
        .filter(|name| name != "__init__")
        .collect()
}

fn method<'t>(class: Node<'t>, name: &str, text: &str) -> Option<Node<'t>> {
    named_children(child_by_field(class, "body")?)
        .into_iter()
        .map(definition_of)
        .find(|d| {
            d.kind() == "function_definition"
                && child_by_field(*d, "name").is_some_and(|n| text_of(n, text) == name)
        })
}

/// The attributes a function uses on its first parameter (`self.m(...)`,
/// `self.fc`, `self.fc = ...`).
fn self_attributes(function: Node<'_>, text: &str) -> BTreeSet<String> {
    let self_name = child_by_field(function, "parameters")
        .and_then(|p| named_children(p).into_iter().next())
        .filter(|p| p.kind() == "identifier")
        .map(|p| text_of(p, text));
    let mut calls = BTreeSet::new();
    let Some(self_name) = self_name else {
        return calls;
    };
    let mut stack = vec![function];
    while let Some(node) = stack.pop() {
        if node.kind() == "attribute"
            && child_by_field(node, "object").is_some_and(|o| text_of(o, text) == self_name)
        {
            if let Some(name) = child_by_field(node, "attribute") {
                calls.insert(text_of(name, text).to_owned());
            }
        }
        stack.extend(named_children(node));
    }
    calls
}

fn is_dataclass(class: Node<'_>, text: &str) -> bool {
    let decorated = class
        .parent()
        .filter(|p| p.kind() == "decorated_definition");
    decorated.is_some_and(|d| {
        decorators(d, text).iter().any(|written| {
            let name = written.split('(').next().unwrap_or(written).trim();
            matches!(name, "dataclass" | "dataclasses.dataclass")
        })
    })
}

/// The attributes a class gives its instances itself: those its methods
/// assign on `self` (`__init__` included, registrations such as
/// `self.add_module("fc", m)` too), its methods and its class attributes.
/// Any other `self.name` in its `__init__` is the base's.
pub(crate) fn own_attributes(class: Node<'_>, text: &str) -> BTreeSet<String> {
    let mut own = own_methods(class, text);
    let Some(body) = child_by_field(class, "body") else {
        return own;
    };
    for member in named_children(body) {
        let definition = definition_of(member);
        match definition.kind() {
            "function_definition" => {
                own.insert(
                    child_by_field(definition, "name")
                        .map(|n| text_of(n, text).to_owned())
                        .unwrap_or_default(),
                );
                assigned_on_self(definition, text, &mut own);
            }
            "expression_statement" => {
                for statement in named_children(definition) {
                    if let Some(left) = child_by_field(statement, "left") {
                        own.insert(text_of(left, text).to_owned());
                    }
                }
            }
            _ => {}
        }
    }
    own.remove(BASE_INSTANCE_FIELD);
    own
}

/// What a method assigns as `self.name` or registers by a literal name.
fn assigned_on_self(function: Node<'_>, text: &str, found: &mut BTreeSet<String>) {
    let self_name = child_by_field(function, "parameters")
        .and_then(|p| named_children(p).into_iter().next())
        .filter(|p| p.kind() == "identifier")
        .map(|p| text_of(p, text));
    let Some(self_name) = self_name else { return };
    let on_self = |node: Node<'_>| {
        child_by_field(node, "object").is_some_and(|o| text_of(o, text) == self_name)
    };
    let mut stack = vec![function];
    while let Some(node) = stack.pop() {
        match node.kind() {
            "assignment" | "augmented_assignment" => {
                let mut targets: Vec<Node<'_>> = child_by_field(node, "left").into_iter().collect();
                while let Some(target) = targets.pop() {
                    match target.kind() {
                        "attribute" if on_self(target) => {
                            if let Some(name) = child_by_field(target, "attribute") {
                                found.insert(text_of(name, text).to_owned());
                            }
                        }
                        "attribute" | "subscript" => {}
                        _ => targets.extend(named_children(target)),
                    }
                }
            }
            "call" => {
                // `self.add_module("fc", m)`, `self.register_buffer(...)`.
                let registered = child_by_field(node, "function")
                    .filter(|f| f.kind() == "attribute" && on_self(*f))
                    .and_then(|_| child_by_field(node, "arguments"))
                    .and_then(|a| named_children(a).into_iter().next())
                    .filter(|first| first.kind() == "string");
                if let Some(name) = registered {
                    let literal = text_of(name, text);
                    found.insert(literal.trim_matches(|c| c == '"' || c == '\'').to_owned());
                }
            }
            _ => {}
        }
        stack.extend(named_children(node));
    }
}
