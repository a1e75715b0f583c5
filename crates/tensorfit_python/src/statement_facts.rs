//! What the module context learns from one top-level statement, read off
//! that statement's subtree alone.
//!
//! The context of a file ([`crate::module_context`]) is made from the
//! facts of its top-level statements ([`crate::ModuleContext::from_statements`]).
//! A statement's facts depend on its text only, so the database keeps
//! them for every statement an edit did not touch: typing in one class
//! walks that class again, not the whole file (the whole-file walks were
//! a quarter of a key in torchvision's `resnet.py`).
//!
//! Lists read by walking the subtree are in the order of
//! [`crate::lower::syntax::descendants_with_parents`] of the file's root,
//! which visits the top-level statements from the last to the first: the
//! context joins them in that order, so that it is the one a walk of the
//! whole file gives.

use std::collections::{BTreeMap, BTreeSet};

use tree_sitter::Node;

use crate::changed_names::{Alias, ChangedObjects, MODULE_FUNCTION_CHANGES, SHARED_VALUE_CHANGES};
use crate::class_functions::{is_classmethod, own_class_functions};
use crate::lower::syntax::{
    child_by_field, decorated, decorators, definition_of, is_field, named_children,
    subtree_with_parents, text_of, Placed,
};

/// What one top-level statement tells the module context.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StatementFacts {
    /// Each name an import binds, with the dotted path it stands for, in
    /// order (a later import of a name wins).
    pub(crate) imports: Vec<(String, String)>,
    /// The module of `from module import *`.
    pub(crate) star_import: Option<String>,
    /// The name of a function defined here.
    pub(crate) function: Option<String>,
    /// A class defined here.
    pub(crate) class: Option<ClassFacts>,
    /// Each top-level name assigned here (or declared `global` in a
    /// function here), with whether the value is a constant (literals and
    /// arithmetic only): a name is a constant if it is assigned once, so.
    pub(crate) assignments: Vec<(String, bool)>,
    /// The names of `assignments` a plain `name = value` binds (not a
    /// compound statement, `+=` or `global`).
    pub(crate) simply_bound: Vec<String>,
    /// The top-level names assigned a list or dict literal here.
    pub(crate) containers: Vec<String>,
    /// The names used here other than by reading an item (`cfgs["A"]`)
    /// or being assigned: a list or dict so used may change in place.
    pub(crate) used_otherwise: BTreeSet<String>,
    /// The attribute chains made of names alone (`models.resnet50`), each
    /// once, in walk order.
    pub(crate) attribute_chains: Vec<String>,
    /// Attributes assigned on an object other than `self` (`m.bias = ...`).
    pub(crate) attributes_set_on_others: BTreeSet<String>,
    /// The names of the scope around them that the functions and lambdas
    /// here may change when they run, with the function (the first found).
    pub(crate) changed_by_functions: Vec<(String, String)>,
    /// The aliases the statement makes outside the functions and classes
    /// in it (`crate::changed_names::aliases_of`).
    pub(crate) aliases: Vec<Alias>,
    /// The paths of the values the statement may change in place, as a
    /// change of a value shared by two names counts.
    pub(crate) objects_changed: Vec<Vec<String>>,
}

/// What the context needs of a class definition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ClassFacts {
    pub name: String,
    /// Its bases as written (`nn.Module`).
    pub bases: Vec<String>,
    /// Whether its body defines `__init__` and nothing else that counts.
    pub only_init: bool,
    /// Whether, being `only_init`, its base's code would read what it
    /// sets (not read otherwise).
    pub sets_what_base_reads: bool,
    /// Whether a decorator makes it a dataclass.
    pub dataclass: bool,
    /// Its own class functions, each with whether it is a class method.
    pub class_functions: Vec<(String, bool)>,
}

/// What inheritance within a file needs of a class: read only for the
/// classes it asks about (a walk of every method), through the function
/// [`crate::ModuleContext::from_statements`] is given.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClassDetails {
    /// The attributes it sets or defines (`crate::inheritance::own_attributes`).
    pub(crate) own_attributes: BTreeSet<String>,
    /// For each method (the first of a name), the attributes of `self` it
    /// reads or sets.
    pub(crate) self_attributes: BTreeMap<String, BTreeSet<String>>,
}

/// The facts of `statement`, a named child of the file's root `root`.
pub fn statement_facts(root: Node<'_>, statement: Node<'_>, text: &str) -> StatementFacts {
    let mut facts = StatementFacts::default();
    collect_imports(statement, text, &mut facts.imports);
    facts.star_import = star_import(statement, text);
    let definition = definition_of(statement);
    match (definition.kind(), child_by_field(definition, "name")) {
        ("function_definition", Some(name)) => {
            facts.function = Some(text_of(name, text).to_owned());
        }
        ("class_definition", Some(name)) => {
            facts.class = Some(class_facts(definition, text_of(name, text), text));
        }
        _ => {}
    }
    if statement.kind() == "expression_statement" {
        for assignment in named_children(statement) {
            match assignment.kind() {
                "assignment" => {
                    let before = facts.assignments.len();
                    note_assignment(assignment, text, &mut facts);
                    let bound = facts.assignments[before..].iter().map(|(n, _)| n.clone());
                    facts.simply_bound.extend(bound);
                }
                // `x += 1` assigns `x` again: it is no constant.
                "augmented_assignment" => {
                    if let Some(left) = child_by_field(assignment, "left") {
                        for name in crate::lower::locals::pattern_names(left, text) {
                            facts.assignments.push((name, false));
                        }
                    }
                }
                _ => {}
            }
        }
    } else if is_compound_statement(statement.kind()) {
        // A name assigned in an `if` or a loop of the script is a
        // variable of the script, never a constant.
        for name in crate::lower::locals::locals_of_statement(statement, text) {
            facts.assignments.push((name, false));
        }
    }
    read_subtree(root, statement, text, &mut facts);
    // The top-level function or class's own body is its own scope.
    if !matches!(statement.kind(), "function_definition" | "class_definition") {
        facts.aliases = crate::changed_names::aliases_of(statement, text);
    }
    facts
}

/// One walk of the statement's subtree: `global` declarations, attribute
/// chains, assignments to attributes, functions and lambdas, the names
/// used other than by reading an item, and the objects changed in place.
fn read_subtree(root: Node<'_>, statement: Node<'_>, text: &str, facts: &mut StatementFacts) {
    let mut assignments = Vec::new();
    let mut functions = Vec::new();
    let mut chains = BTreeSet::new();
    let mut changed = ChangedObjects::new(SHARED_VALUE_CHANGES);
    for placed in subtree_with_parents(statement, root) {
        let node = placed.node;
        changed.visit(node, (node != statement).then_some(placed.parent), text);
        match node.kind() {
            // A name a function declares `global` may be assigned whenever
            // that function runs: never a constant (detectron2's
            // `_LOCAL_PROCESS_GROUP = None`, set by
            // `create_local_process_group`).
            "global_statement" => {
                for name in named_children(node) {
                    facts
                        .assignments
                        .push((text_of(name, text).to_owned(), false));
                }
            }
            "attribute" => {
                let chain = text_of(node, text);
                let simple = chain
                    .chars()
                    .all(|c| c.is_alphanumeric() || c == '_' || c == '.');
                if simple && chains.insert(chain) {
                    facts.attribute_chains.push(chain.to_owned());
                }
            }
            "assignment" => assignments.push(node),
            "function_definition" | "lambda" => functions.push(node),
            "identifier" if !only_reads_an_item(placed) => {
                let name = text_of(node, text);
                if !facts.used_otherwise.contains(name) {
                    facts.used_otherwise.insert(name.to_owned());
                }
            }
            _ => {}
        }
    }
    facts.objects_changed = changed.paths;
    facts.attributes_set_on_others =
        crate::lower::init::attributes_set_on_others(&assignments, text);
    facts.changed_by_functions =
        crate::changed_names::changed_by_functions(functions, text, MODULE_FUNCTION_CHANGES)
            .into_iter()
            .collect();
}

fn class_facts(class: Node<'_>, name: &str, text: &str) -> ClassFacts {
    let only_init = only_init(class, text);
    ClassFacts {
        name: name.to_owned(),
        bases: bases(class, text),
        only_init,
        sets_what_base_reads: only_init && sets_what_base_reads(class, text),
        dataclass: decorators(decorated(class), text)
            .iter()
            .any(|d| crate::lower::is_dataclass(d)),
        class_functions: own_class_functions(class, text)
            .into_iter()
            .map(|(method, member)| (method, is_classmethod(&decorators(member, text))))
            .collect(),
    }
}

/// The details of the class `statement` defines (none for another
/// statement).
pub fn class_details(statement: Node<'_>, text: &str) -> ClassDetails {
    let class = definition_of(statement);
    if class.kind() != "class_definition" {
        return ClassDetails::default();
    }
    let mut self_attributes = BTreeMap::new();
    for member in child_by_field(class, "body")
        .map(named_children)
        .unwrap_or_default()
    {
        let definition = definition_of(member);
        if definition.kind() != "function_definition" {
            continue;
        }
        if let Some(method) = child_by_field(definition, "name") {
            self_attributes
                .entry(text_of(method, text).to_owned())
                .or_insert_with(|| crate::inheritance::self_attributes(definition, text));
        }
    }
    ClassDetails {
        own_attributes: crate::inheritance::own_attributes(class, text),
        self_attributes,
    }
}

/// The imports of the statements (alone) of the file's root: the
/// dotted path each bound name stands for.
pub(crate) fn imports_of(root: Node<'_>, text: &str) -> BTreeMap<String, String> {
    let mut imports = Vec::new();
    for node in named_children(root) {
        collect_imports(node, text, &mut imports);
    }
    imports.into_iter().collect()
}

fn bases(class: Node<'_>, text: &str) -> Vec<String> {
    let Some(list) = child_by_field(class, "superclasses") else {
        return Vec::new();
    };
    named_children(list)
        .into_iter()
        .filter(|b| matches!(b.kind(), "identifier" | "attribute"))
        .map(|b| dotted(b, text))
        .collect()
}

fn collect_imports(node: Node<'_>, text: &str, imported: &mut Vec<(String, String)>) {
    match node.kind() {
        // `import torch`, `import torch.nn as nn`, `import torch.nn` (binds
        // `torch`).
        "import_statement" => {
            for name in named_children(node) {
                match name.kind() {
                    "dotted_name" => {
                        let dotted = text_of(name, text);
                        let head = dotted.split('.').next().unwrap_or(dotted).trim();
                        imported.push((head.to_owned(), head.to_owned()));
                    }
                    "aliased_import" => {
                        if let (Some(path), Some(alias)) =
                            (child_by_field(name, "name"), child_by_field(name, "alias"))
                        {
                            imported.push((text_of(alias, text).to_owned(), dotted(path, text)));
                        }
                    }
                    _ => {}
                }
            }
        }
        // `from torch import nn`, `from torch.nn import functional as F`,
        // `from .blocks import Bottleneck`.
        "import_from_statement" => {
            let Some(module) = child_by_field(node, "module_name") else {
                return;
            };
            let module = dotted(module, text);
            let mut cursor = node.walk();
            for name in node.children_by_field_name("name", &mut cursor) {
                let (path, alias) = match name.kind() {
                    "aliased_import" => {
                        match (child_by_field(name, "name"), child_by_field(name, "alias")) {
                            (Some(path), Some(alias)) => (dotted(path, text), text_of(alias, text)),
                            _ => continue,
                        }
                    }
                    _ => (dotted(name, text), text_of(name, text)),
                };
                let separator = if module.ends_with('.') { "" } else { "." };
                imported.push((alias.to_owned(), format!("{module}{separator}{path}")));
            }
        }
        _ => {}
    }
}

/// The module of `from module import *`.
fn star_import(node: Node<'_>, text: &str) -> Option<String> {
    if node.kind() != "import_from_statement" {
        return None;
    }
    let mut cursor = node.walk();
    let star = node
        .children(&mut cursor)
        .any(|child| child.kind() == "wildcard_import");
    star.then(|| child_by_field(node, "module_name").map(|m| dotted(m, text)))?
}

fn dotted(node: Node<'_>, text: &str) -> String {
    text_of(node, text)
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect()
}

/// Whether a class body defines `__init__` and nothing else but a
/// docstring: no other method, no class attribute.
fn only_init(class: Node<'_>, text: &str) -> bool {
    let Some(body) = child_by_field(class, "body") else {
        return false;
    };
    let mut has_init = false;
    for member in named_children(body) {
        let definition = definition_of(member);
        match definition.kind() {
            "function_definition" => {
                let name = child_by_field(definition, "name").map(|n| text_of(n, text));
                // A hook that only renames the checkpoint's keys (ViT's
                // `MLPBlock`) changes no layer.
                if name == Some("_load_from_state_dict") && !changes_self(definition, text) {
                    continue;
                }
                if name != Some("__init__") || member.kind() == "decorated_definition" {
                    return false;
                }
                has_init = true;
            }
            // A docstring, or a class attribute of a literal value
            // (`_version = 2`, which only `state_dict` reads).
            "expression_statement"
                if named_children(member).iter().all(|c| {
                    matches!(c.kind(), "string" | "concatenated_string")
                        || (c.kind() == "assignment"
                            && child_by_field(*c, "right").is_some_and(|r| {
                                matches!(
                                    r.kind(),
                                    "integer" | "float" | "string" | "true" | "false" | "none"
                                )
                            }))
                }) => {}
            _ => return false,
        }
    }
    has_init
}

/// Whether a class gives itself a class attribute (but `_version`, which
/// only `state_dict` reads) or uses `self` before its
/// `super().__init__(...)`: its base's code would read what it sets.
fn sets_what_base_reads(class: Node<'_>, text: &str) -> bool {
    let Some(body) = child_by_field(class, "body") else {
        return false;
    };
    let members = named_children(body);
    let attribute = members.iter().any(|member| {
        named_children(*member).into_iter().any(|c| {
            c.kind() == "assignment"
                && child_by_field(c, "left").is_some_and(|l| text_of(l, text) != "_version")
        })
    });
    let Some(init) = crate::lower::syntax::init_method(class, text) else {
        return attribute;
    };
    let mut before_super = child_by_field(init, "body")
        .map(named_children)
        .unwrap_or_default()
        .into_iter()
        .take_while(|statement| !text_of(*statement, text).contains("super().__init__"));
    attribute || before_super.any(|statement| uses_self(init, statement, text))
}

/// Whether a method uses its `self` at all, but as its parameter (a
/// state-dict hook that only renames keys calls `super()...`).
fn changes_self(method: Node<'_>, text: &str) -> bool {
    child_by_field(method, "body").is_none_or(|body| uses_self(method, body, text))
}

/// Whether `self` (the first parameter of `method`) is used in `node`.
fn uses_self(method: Node<'_>, node: Node<'_>, text: &str) -> bool {
    match crate::lower::syntax::first_parameter(method, text) {
        Some(self_name) => crate::lower::syntax::uses_of(node, self_name, text)
            .next()
            .is_some(),
        None => true,
    }
}

/// The statements that hold blocks of their own (a class or a function
/// is an item, not a statement).
pub(crate) fn is_compound_statement(kind: &str) -> bool {
    matches!(
        kind,
        "if_statement" | "for_statement" | "while_statement" | "with_statement" | "try_statement"
    )
}

/// Notes a top-level `name = value` (or a pattern of names), whether the
/// value is a constant, and whether it is a list or dict literal.
fn note_assignment(node: Node<'_>, text: &str, facts: &mut StatementFacts) {
    let Some(left) = child_by_field(node, "left") else {
        return;
    };
    let right = child_by_field(node, "right");
    if left.kind() == "identifier" {
        let name = text_of(left, text).to_owned();
        if right.is_some_and(|r| matches!(r.kind(), "list" | "dictionary")) {
            facts.containers.push(name.clone());
        }
        facts
            .assignments
            .push((name, right.is_some_and(is_constant)));
    } else {
        for name in crate::lower::locals::pattern_names(left, text) {
            facts.assignments.push((name, false));
        }
    }
}

/// Whether this use of a name reads an item of its value (`cfgs["A"]`,
/// not assigned to) or assigns the name itself.
fn only_reads_an_item(
    Placed {
        node,
        parent,
        grandparent,
    }: Placed<'_>,
) -> bool {
    let assigned = |p: Node<'_>, target: Node<'_>| {
        matches!(p.kind(), "assignment" | "augmented_assignment") && is_field(p, "left", target)
    };
    let read_item = parent.kind() == "subscript"
        && is_field(parent, "value", node)
        && grandparent.is_none_or(|p| !assigned(p, parent));
    read_item || (parent.kind() == "assignment" && is_field(parent, "left", node))
}

/// Literals and arithmetic of literals: what a module-level constant such
/// as `N_EMBD = 768` or `HIDDEN = 4 * 768` holds, and lists, tuples and
/// string-keyed dicts of them (VGG's `cfgs = {"A": [64, "M", 128]}`).
/// Walked with an explicit stack: `N = 1 + 1 + ... + 1` nests as deep as
/// the line is long.
fn is_constant(node: Node<'_>) -> bool {
    let mut stack = vec![node];
    while let Some(node) = stack.pop() {
        match node.kind() {
            "integer" | "float" | "true" | "false" | "none" => {}
            "string" => {
                if named_children(node)
                    .iter()
                    .any(|c| c.kind() == "interpolation")
                {
                    return false;
                }
            }
            "list" | "tuple" => stack.extend(named_children(node)),
            "dictionary" => {
                for pair in named_children(node) {
                    let key = child_by_field(pair, "key");
                    let value = child_by_field(pair, "value");
                    match (pair.kind(), key, value) {
                        ("pair", Some(key), Some(value)) if key.kind() == "string" => {
                            stack.push(key);
                            stack.push(value);
                        }
                        _ => return false,
                    }
                }
            }
            // Their operators are unnamed tokens: the named children are
            // the operands.
            "unary_operator" | "binary_operator" | "parenthesized_expression" => {
                let operands = named_children(node);
                if operands.is_empty() {
                    return false;
                }
                stack.extend(operands);
            }
            _ => return false,
        }
    }
    true
}
