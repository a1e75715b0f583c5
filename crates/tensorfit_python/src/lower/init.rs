//! A module class lowered to a struct: `__init__`'s parameters are the
//! struct's, each `self.name = value` a field, class attributes
//! (`expansion = 4`) fields too, and every other `def` a method.
//!
//! `__init__` is read straight through: a local it assigns is replaced by
//! its value where a field reads it (`hidden = 4 * n_embd` then
//! `nn.Linear(n_embd, hidden)`). A field or local assigned under an `if`, a
//! loop or a `try` is unknown: such bodies are not followed yet.

use std::collections::HashMap;

use tensorfit_syntax::ast::*;
use tree_sitter::Node;

use super::syntax::{child_by_field, decorators, definition_of, named_children};
use super::{methods_of, Lowerer, Scope, ScopeKind};

const NOT_FOLLOWED: &str = "it is set under control flow in `__init__`, which is not followed yet";

impl Lowerer<'_> {
    pub(super) fn module_class(&mut self, class: Node<'_>) -> Struct {
        let body = child_by_field(class, "body");
        let members = body.map(named_children).unwrap_or_default();
        let init = members.iter().map(|m| definition_of(*m)).find(|m| {
            m.kind() == "function_definition"
                && child_by_field(*m, "name").is_some_and(|n| self.text(n) == "__init__")
        });
        let mut fields: Vec<Field> = Vec::new();
        // Class attributes first: `__init__` runs after they are set.
        for member in &members {
            if member.kind() != "expression_statement" {
                continue;
            }
            for assignment in named_children(*member) {
                if assignment.kind() != "assignment" {
                    continue;
                }
                if let (Some(left), Some(right)) = (
                    child_by_field(assignment, "left"),
                    child_by_field(assignment, "right"),
                ) {
                    if left.kind() == "identifier" {
                        let value = self.expr(right);
                        set_field(&mut fields, self.name(left), value, self.range(assignment));
                    }
                }
            }
        }
        let mut params = Vec::new();
        if let Some(init) = init {
            let body = child_by_field(init, "body");
            let mut self_name = None;
            for (param, bare) in self.parameters(init, true) {
                match param.is_self {
                    true => self_name = Some(param.name.text),
                    false => params.push(self.constructor_param(param, bare, body)),
                }
            }
            let param_names = params.iter().map(|p| p.name.text.clone()).collect();
            let outer = std::mem::replace(
                &mut self.scope,
                Scope {
                    kind: ScopeKind::Init,
                    params: param_names,
                    self_name,
                    locals: Default::default(),
                    substitutions: HashMap::new(),
                },
            );
            if let Some(block) = child_by_field(init, "body") {
                self.init_block(block, &mut fields, false);
            }
            self.scope = outer;
        }
        let methods = methods_of(class, self.text)
            .into_iter()
            .map(|(_, method)| {
                let decorated = method
                    .parent()
                    .filter(|p| p.kind() == "decorated_definition")
                    .unwrap_or(method);
                self.function(method, &decorators(decorated, self.text), true)
            })
            .collect();
        Struct {
            name: child_by_field(class, "name").map(|n| self.name(n)),
            params: Some(params),
            fields,
            methods,
            range: self.range(class),
        }
    }

    /// A parameter of `__init__`. Unannotated and without a default, it is
    /// read as an `Int` when `__init__` uses it only as a number (passed
    /// on, in arithmetic, compared): channel counts, widths, sizes, which
    /// is what most constructor parameters of a model are. One that is
    /// called, indexed, iterated or has attributes read (a block class, a
    /// list, a config) stays unknown.
    fn constructor_param(&self, mut param: Param, bare: bool, body: Option<Node<'_>>) -> Param {
        let used_as_number =
            || body.is_none_or(|body| only_used_as_number(body, &param.name.text, self.text));
        if bare && used_as_number() {
            param.ty = Some(Type {
                kind: TypeKind::Int,
                range: tensorfit_base::TextRange::empty(param.name.range.end as usize),
            });
        }
        param
    }

    /// The statements of `__init__` (or of a `with` inside it); `unknown`
    /// when they run under control flow, which makes what they set unknown.
    fn init_block(&mut self, block: Node<'_>, fields: &mut Vec<Field>, unknown: bool) {
        self.nested(|this| this.init_statements(block, fields, unknown));
    }

    fn init_statements(&mut self, block: Node<'_>, fields: &mut Vec<Field>, unknown: bool) {
        for statement in named_children(block) {
            match statement.kind() {
                "expression_statement" => {
                    for child in named_children(statement) {
                        self.init_expression_statement(child, fields, unknown);
                    }
                }
                "with_statement" => {
                    if let Some(body) = child_by_field(statement, "body") {
                        self.init_block(body, fields, unknown);
                    }
                }
                "if_statement" | "for_statement" | "while_statement" | "try_statement" => {
                    for child in named_children(statement) {
                        self.init_nested(child, fields);
                    }
                }
                _ => {}
            }
        }
    }

    fn init_nested(&mut self, node: Node<'_>, fields: &mut Vec<Field>) {
        match node.kind() {
            "block" => self.init_block(node, fields, true),
            "elif_clause" | "else_clause" | "except_clause" | "finally_clause" => {
                for child in named_children(node) {
                    self.init_nested(child, fields);
                }
            }
            _ => {}
        }
    }

    fn init_expression_statement(
        &mut self,
        node: Node<'_>,
        fields: &mut Vec<Field>,
        unknown: bool,
    ) {
        match node.kind() {
            "assignment" => {
                let (Some(left), Some(right)) =
                    (child_by_field(node, "left"), child_by_field(node, "right"))
                else {
                    return;
                };
                let value = match unknown {
                    true => self.unknown(right, NOT_FOLLOWED),
                    false => self.expr(right),
                };
                self.init_assign(left, value, node, fields);
            }
            "augmented_assignment" => {
                if let Some(left) = child_by_field(node, "left") {
                    let value = self.unknown(node, NOT_FOLLOWED);
                    self.init_assign(left, value, node, fields);
                }
            }
            // `self.register_buffer("mask", value)`, `self.add_module("fc", m)`.
            "call" => {
                let Some(function) = child_by_field(node, "function") else {
                    return;
                };
                if function.kind() != "attribute"
                    || !self.is_self(child_by_field(function, "object"))
                {
                    return;
                }
                let method = child_by_field(function, "attribute").map(|a| self.text(a));
                if !matches!(
                    method,
                    Some("register_buffer" | "register_parameter" | "add_module")
                ) {
                    return;
                }
                let args = child_by_field(node, "arguments")
                    .map(named_children)
                    .unwrap_or_default();
                let (Some(name), Some(value)) = (args.first(), args.get(1)) else {
                    return;
                };
                let Some(field_name) = self.string_literal(*name) else {
                    return;
                };
                let value = match unknown {
                    true => self.unknown(*value, NOT_FOLLOWED),
                    false => self.expr(*value),
                };
                let name = Name {
                    text: field_name,
                    range: self.range(*name),
                };
                set_field(fields, name, value, self.range(node));
            }
            _ => {}
        }
    }

    fn init_assign(
        &mut self,
        left: Node<'_>,
        value: Expr,
        statement: Node<'_>,
        fields: &mut Vec<Field>,
    ) {
        match left.kind() {
            "attribute" if self.is_self(child_by_field(left, "object")) => {
                if let Some(attribute) = child_by_field(left, "attribute") {
                    let name = self.name(attribute);
                    // Later initialisers that read `self.name` read this
                    // value (not a parameter of the same name).
                    if is_small(&value) {
                        self.scope
                            .substitutions
                            .insert(format!("self.{}", name.text), value.clone());
                    }
                    set_field(fields, name, value, self.range(statement));
                }
            }
            "identifier" => {
                let name = self.text(left).to_owned();
                let value = match is_small(&value) {
                    true => value,
                    false => self.unknown(left, "its value is too large to follow in `__init__`"),
                };
                self.scope.substitutions.insert(name, value);
            }
            // `self.a, self.b = ...` and other patterns: what they set is
            // unknown.
            _ => {
                let mut stack = vec![left];
                while let Some(node) = stack.pop() {
                    match node.kind() {
                        "attribute" if self.is_self(child_by_field(node, "object")) => {
                            if let Some(attribute) = child_by_field(node, "attribute") {
                                let name = self.name(attribute);
                                let value = self.unknown(node, "it is set by destructuring, which is not followed in `__init__` yet");
                                set_field(fields, name, value, self.range(statement));
                            }
                        }
                        "identifier" => {
                            let name = self.text(node).to_owned();
                            let value = self.unknown(node, "it is set by destructuring, which is not followed in `__init__` yet");
                            self.scope.substitutions.insert(name, value);
                        }
                        _ => stack.extend(named_children(node)),
                    }
                }
            }
        }
    }

    /// Whether `node` is the method's `self`.
    pub(super) fn is_self(&self, node: Option<Node<'_>>) -> bool {
        node.is_some_and(|n| {
            n.kind() == "identifier" && self.scope.self_name.as_deref() == Some(self.text(n))
        })
    }
}

/// Sets a field: a field set again keeps its place and takes the new value
/// (the last assignment is the one forward sees).
fn set_field(fields: &mut Vec<Field>, name: Name, value: Expr, range: tensorfit_base::TextRange) {
    match fields.iter_mut().find(|f| f.name.text == name.text) {
        Some(field) => {
            field.value = value;
        }
        None => fields.push(Field {
            name,
            ty: None,
            value,
            range,
        }),
    }
}

/// Whether a value is small enough to copy where it is read: copies of
/// copies must not grow without bound.
fn is_small(value: &Expr) -> bool {
    value.descendants().take(65).count() <= 64
}

/// Whether every use of `name` in `body` is as a number: not the object of
/// an attribute, a callee, a subscripted value, an iterable or unpacked.
fn only_used_as_number(body: Node<'_>, name: &str, text: &str) -> bool {
    let mut stack = vec![body];
    while let Some(node) = stack.pop() {
        if node.kind() == "identifier" && super::syntax::text_of(node, text) == name {
            let Some(parent) = node.parent() else {
                continue;
            };
            let is =
                |field: &str| child_by_field(parent, field).is_some_and(|c| c.id() == node.id());
            let non_numeric = match parent.kind() {
                "attribute" => is("object"),
                "call" => is("function"),
                "subscript" => is("value"),
                "for_statement" | "for_in_clause" => is("right"),
                "list_splat" | "dictionary_splat" => true,
                _ => false,
            };
            if non_numeric {
                return false;
            }
        }
        stack.extend(named_children(node));
    }
    true
}
