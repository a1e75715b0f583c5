//! Which names a function body assigns, and how the lowering declares
//! them.
//!
//! A Python local lives from its first assignment to the end of the
//! function, whatever block assigned it; a Tensor-language `let` or `var`
//! lives to the end of its block. So a name assigned once, at the top level
//! of the body, becomes a `let` where it is assigned (its shape shows on
//! hover as any `let` does), and every other assigned name is declared by a
//! `var` at the start of the body and assigned where Python assigns it.

use std::collections::{BTreeMap, BTreeSet};

use tree_sitter::Node;

use super::syntax::{child_by_field, definition_of, each_named_child, named_children, text_of};
use crate::changed_names::{roots_changed_by, ANY_CHANGE};

#[derive(Clone, Copy, Debug, Default)]
struct Assigned {
    count: usize,
    /// Assigned inside a branch or a loop, as a loop variable, or by `+=`.
    needs_var: bool,
}

/// How a function body's locals are declared.
#[derive(Clone, Debug, Default)]
pub(crate) struct Locals {
    /// Every assigned name.
    pub all: BTreeSet<String>,
    /// Names declared by a `var` at the start of the body, in order of
    /// first assignment.
    pub hoisted: Vec<String>,
}

impl Locals {
    pub fn is_let(&self, name: &str) -> bool {
        self.all.contains(name) && !self.hoisted.iter().any(|h| h == name)
    }
}

/// The locals of a body, given its parameters (which are never declared
/// again).
pub(crate) fn locals_of(body: Node<'_>, text: &str, params: &[String]) -> Locals {
    let mut assigned: BTreeMap<String, Assigned> = BTreeMap::new();
    let mut order: Vec<String> = Vec::new();
    walk_block(
        body,
        block_depth(body),
        text,
        false,
        &mut assigned,
        &mut order,
    );
    // A `try` (or a `with` that catches) forgets the locals it changes by
    // assigning them unknown values where it stands: inside a branch or a
    // loop that assignment must reach past the block, as a `var`'s does.
    for name in changed_in_nested_catching_blocks(body, text) {
        if let Some(entry) = assigned.get_mut(&name) {
            entry.needs_var = true;
        }
    }
    let all: BTreeSet<String> = assigned.keys().cloned().collect();
    let hoisted = order
        .into_iter()
        .filter(|name| !params.contains(name))
        .filter(|name| {
            let a = assigned[name];
            a.count > 1 || a.needs_var
        })
        .collect();
    Locals { all, hoisted }
}

fn note(
    name: String,
    needs_var: bool,
    assigned: &mut BTreeMap<String, Assigned>,
    order: &mut Vec<String>,
) {
    let entry = assigned.entry(name.clone()).or_insert_with(|| {
        order.push(name);
        Assigned::default()
    });
    entry.count += 1;
    entry.needs_var |= needs_var;
}

/// `enclosing`: how many blocks enclose `block` (counted once at the
/// start of a walk, then carried down: counting up from every block
/// would be quadratic in the nesting, and tree-sitter's `parent` is itself
/// linear in the depth).
fn walk_block(
    block: Node<'_>,
    enclosing: usize,
    text: &str,
    nested: bool,
    assigned: &mut BTreeMap<String, Assigned>,
    order: &mut Vec<String>,
) {
    // Blocks nested deeper than the lowering follows are not lowered
    // either (see `MAX_DEPTH`): their names need no declaration.
    if enclosing > super::MAX_DEPTH as usize {
        return;
    }
    for statement in named_children(block) {
        walk_statement(statement, enclosing + 1, text, nested, assigned, order);
    }
}

/// `enclosing`: how many blocks enclose `statement`.
fn walk_statement(
    statement: Node<'_>,
    enclosing: usize,
    text: &str,
    nested: bool,
    assigned: &mut BTreeMap<String, Assigned>,
    order: &mut Vec<String>,
) {
    let note_all = |node: Node<'_>,
                    needs_var: bool,
                    assigned: &mut BTreeMap<String, Assigned>,
                    order: &mut Vec<String>| {
        let names = pattern_names(node, text);
        // Several names of one pattern are destructured through a temporary
        // unless all of them can be `let`s: count them like the rest.
        for name in names {
            note(name, needs_var, assigned, order);
        }
    };
    match statement.kind() {
        "expression_statement" => {
            for child in named_children(statement) {
                let mut current = Some(child);
                // `a = b = value`: the right side is an assignment too.
                while let Some(node) = current {
                    match node.kind() {
                        "assignment" => {
                            if let Some(left) = child_by_field(node, "left") {
                                if child_by_field(node, "right").is_some() {
                                    note_all(left, nested, assigned, order);
                                }
                            }
                            current = child_by_field(node, "right");
                        }
                        "augmented_assignment" => {
                            if let Some(left) = child_by_field(node, "left") {
                                note_all(left, true, assigned, order);
                            }
                            current = None;
                        }
                        _ => current = None,
                    }
                }
            }
        }
        "for_statement" => {
            if let Some(left) = child_by_field(statement, "left") {
                note_all(left, true, assigned, order);
            }
            for part in ["body", "alternative"] {
                if let Some(block) = child_by_field(statement, part) {
                    walk_nested(block, enclosing, text, assigned, order);
                }
            }
        }
        "while_statement" | "if_statement" | "try_statement" => {
            for child in named_children(statement) {
                walk_nested(child, enclosing, text, assigned, order);
            }
        }
        "with_statement" => {
            for child in named_children(statement) {
                match child.kind() {
                    "with_clause" => {
                        for item in named_children(child) {
                            for alias in as_targets(item) {
                                note_all(alias, true, assigned, order);
                            }
                        }
                    }
                    "block" => walk_block(child, enclosing, text, nested, assigned, order),
                    _ => {}
                }
            }
        }
        "function_definition" | "class_definition" | "decorated_definition" => {
            if let Some(name) = child_by_field(definition_of(statement), "name") {
                note(text_of(name, text).to_owned(), true, assigned, order);
            }
        }
        "import_statement" | "import_from_statement" => {
            for name in named_children(statement) {
                let bound = match name.kind() {
                    "aliased_import" => child_by_field(name, "alias"),
                    "dotted_name" => named_children(name).into_iter().next(),
                    _ => None,
                };
                if let Some(bound) = bound {
                    note(text_of(bound, text).to_owned(), true, assigned, order);
                }
            }
        }
        _ => {}
    }
}

/// A block or clause inside a branch or loop: everything assigned there
/// needs a `var`.
fn walk_nested(
    node: Node<'_>,
    enclosing: usize,
    text: &str,
    assigned: &mut BTreeMap<String, Assigned>,
    order: &mut Vec<String>,
) {
    match node.kind() {
        "block" => walk_block(node, enclosing, text, true, assigned, order),
        "elif_clause" | "else_clause" | "except_clause" | "finally_clause" => {
            for child in named_children(node) {
                if child.kind() == "block" {
                    walk_block(child, enclosing, text, true, assigned, order);
                }
            }
            if node.kind() == "except_clause" {
                if let Some(alias) = child_by_field(node, "alias") {
                    for name in pattern_names(alias, text) {
                        note(name, true, assigned, order);
                    }
                }
            }
        }
        _ => {}
    }
}

/// The `as` targets of a `with` item.
fn as_targets(item: Node<'_>) -> Vec<Node<'_>> {
    let mut found = Vec::new();
    let mut stack = vec![item];
    while let Some(node) = stack.pop() {
        if node.kind() == "as_pattern_target" {
            found.extend(named_children(node));
            continue;
        }
        stack.extend(named_children(node));
    }
    found
}

/// The names a target binds: `x`, `a, b`, `(a, (b, c))`, `[a, *rest]`;
/// none for `self.x` or `x[i]`.
pub(crate) fn pattern_names(node: Node<'_>, text: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut stack = vec![node];
    while let Some(node) = stack.pop() {
        match node.kind() {
            "identifier" => names.push(text_of(node, text).to_owned()),
            "pattern_list"
            | "tuple_pattern"
            | "list_pattern"
            | "tuple"
            | "list"
            | "list_splat_pattern"
            | "parenthesized_expression" => {
                let mut children = named_children(node);
                children.reverse();
                stack.extend(children);
            }
            _ => {}
        }
    }
    names
}

/// The names changed in place (`log.append(t)`, `fill(log)`) inside a
/// `try` or a catching `with` that stands in a branch or a loop of `body`,
/// not counting the bodies of functions defined there.
fn changed_in_nested_catching_blocks(body: Node<'_>, text: &str) -> BTreeSet<String> {
    let mut changed = BTreeSet::new();
    // Statements of the body's own top level are not nested.
    let mut stack: Vec<Node<'_>> = named_children(body)
        .into_iter()
        .flat_map(named_children)
        .collect();
    let mut cursor = body.walk();
    while let Some(node) = stack.pop() {
        match node.kind() {
            "function_definition" | "class_definition" | "lambda" => continue,
            "try_statement" => {}
            "with_statement" if super::statements::catches_exceptions(node, text) => {}
            _ => {
                each_named_child(&mut cursor, node, |child| stack.push(child));
                continue;
            }
        }
        changed.extend(roots_changed_by(node, text, ANY_CHANGE));
    }
    changed
}

/// Every name a statement assigns, at any depth, in order of first
/// assignment.
pub(crate) fn locals_of_statement(statement: Node<'_>, text: &str) -> Vec<String> {
    let mut assigned = BTreeMap::new();
    let mut order = Vec::new();
    let enclosing = block_depth(statement);
    walk_statement(statement, enclosing, text, true, &mut assigned, &mut order);
    order
}

/// How many blocks enclose `node`, counted up to just past the lowering's
/// limit.
fn block_depth(node: Node<'_>) -> usize {
    let mut depth = 0;
    let mut current = node.parent();
    while let Some(parent) = current {
        if parent.kind() == "block" {
            depth += 1;
            if depth > super::MAX_DEPTH as usize {
                break;
            }
        }
        current = parent.parent();
    }
    depth
}
