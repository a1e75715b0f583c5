//! A class lowered to a struct (PYTHON.md §2): `__init__`'s parameters are
//! the struct's, its body the struct's `init`, each `self.name = value` a
//! field, class attributes (`expansion = 4`) class fields, and every other
//! `def` a method.
//!
//! `__init__` runs for each instance, with everything a statement can do
//! (branches on the arguments, loops, lists, helper methods): inside it,
//! `self.name` is the local name `self.name`, which no Python identifier
//! can be, and each field reads its final value. A dataclass is a struct
//! whose parameters and fields are its annotated attributes.

use std::collections::BTreeSet;

use tensorfit_base::TextRange;
use tensorfit_syntax::ast::*;
use tree_sitter::Node;

use super::syntax::{
    child_by_field, decorated, decorators, descendants, descendants_with_parents, each_named_child,
    first_parameter, init_method, is_field, named_children, text_of, uses_of, Placed,
};
use super::{derived, methods_of, registered, Lowerer, Scope, ScopeKind};
use crate::changed_names::SHARED_VALUE_CHANGES;

/// The prefix of the local that holds a field inside `init`.
pub(super) const FIELD_PREFIX: &str = "self.";

/// How deeply helper methods are inlined into `__init__` (a helper that
/// calls a helper...); deeper calls are unknown.
const MAX_INLINED: usize = 4;

/// The local that holds the field `field` inside `init`.
pub(super) fn field_local(field: &str, range: TextRange) -> Expr {
    Expr {
        kind: ExprKind::Name(format!("{FIELD_PREFIX}{field}")),
        range,
    }
}

/// The field `field` as a name, for `note_field`.
pub(super) fn field_name(field: &str, range: TextRange) -> Name {
    Name {
        text: field.to_owned(),
        range,
    }
}

/// A field as `__init__` assigns it.
pub(super) struct InitField {
    name: Name,
    statement: TextRange,
}

impl Lowerer<'_> {
    pub(super) fn module_class(&mut self, class: Node<'_>) -> Struct {
        let body = child_by_field(class, "body");
        let members = body.map(named_children).unwrap_or_default();
        let init = init_method(class, self.text);
        let class_fields = self.class_attributes(&members);
        let class_name = child_by_field(class, "name").map(|n| self.text(n).to_owned());
        let outer_derived = self.derived.take();
        let registers = class_name
            .as_ref()
            .and_then(|name| self.context.class_bases.get(name))
            .and_then(|bases| registered::container_base(bases, &self.context.imported));
        let outer_registers = std::mem::replace(&mut self.registers, registers);
        self.derived = class_name
            .and_then(|name| self.context.inherits.get(&name))
            .map(|base| derived::Derived {
                base: base.clone(),
                own: crate::inheritance::own_attributes(class, self.text),
            });
        let (params, init_body, assigned) = match init {
            Some(init) => self.init(init, &class_fields),
            None => self
                .inherited_init(TextRange::empty(self.range(class).end as usize))
                .unwrap_or((Vec::new(), None, Vec::new())),
        };
        self.derived = outer_derived;
        let mut mutated = mutated_fields(class, self.text, &self.context.attributes_set_on_others);
        if registers.is_some() && (!mutated.is_empty() || changes_self_in_methods(class, self.text))
        {
            mutated.insert(REGISTERED_MODULES_FIELD.to_owned());
        }
        let mut fields: Vec<Field> = Vec::new();
        let attribute_fields = class_fields.iter().map(|f| (f.name.clone(), f.range));
        let init_fields = assigned.into_iter().map(|f| (f.name, f.statement));
        for (name, range) in attribute_fields.chain(init_fields) {
            if fields.iter().any(|f| f.name.text == name.text) {
                continue;
            }
            let kind = match mutated.contains(&name.text) {
                true => ExprKind::Unknown(format!("`self.{}` {CHANGED_AFTER_INIT}", name.text)),
                false => ExprKind::Name(format!("{FIELD_PREFIX}{}", name.text)),
            };
            fields.push(Field {
                value: Expr {
                    kind,
                    range: name.range,
                },
                name,
                ty: None,
                range,
            });
        }
        // `setattr(self, name, v)` by a computed name in another method
        // may set any attribute.
        if mutated.contains(DYNAMIC_ATTRIBUTES_FIELD)
            && !fields
                .iter()
                .any(|f| f.name.text == DYNAMIC_ATTRIBUTES_FIELD)
        {
            let at = TextRange::empty(self.range(class).start as usize);
            fields.push(Field {
                name: Name {
                    text: DYNAMIC_ATTRIBUTES_FIELD.to_owned(),
                    range: at,
                },
                ty: None,
                value: Expr {
                    kind: ExprKind::Unknown(
                        "`setattr(self, ...)` is called outside `__init__`".to_owned(),
                    ),
                    range: at,
                },
                range: at,
            });
        }
        let methods = self.methods(class);
        self.registers = outer_registers;
        Struct {
            name: child_by_field(class, "name").map(|n| self.name(n)),
            params: Some(params),
            class_fields,
            init: init_body,
            fields,
            methods,
            enumeration: None,
            range: self.range(class),
        }
    }

    /// A dataclass: its annotated attributes are, in order, the parameters
    /// of its `__init__` and its fields. A field that `__post_init__` or
    /// another method may change is unknown (whisper's `Tokenizer` builds
    /// its `sot_sequence` there, over the default `()`).
    pub(super) fn dataclass(&mut self, class: Node<'_>) -> Struct {
        let members = child_by_field(class, "body")
            .map(named_children)
            .unwrap_or_default();
        let assigned = mutated_fields(class, self.text, &self.context.attributes_set_on_others);
        let mut touched = std::collections::BTreeSet::new();
        let post_init = methods_of(class, self.text)
            .into_iter()
            .find(|(name, _)| name == "__post_init__");
        if let Some((_, method)) = post_init {
            post_init_changes(method, self.text, &mut touched);
        }
        let mut params = Vec::new();
        let mut fields = Vec::new();
        for (assignment, left) in class_body_assignments(&members) {
            let Some(annotation) = child_by_field(assignment, "type") else {
                continue;
            };
            if self.text(annotation).contains("ClassVar") {
                continue;
            }
            let name = self.name(left);
            let default = child_by_field(assignment, "right")
                .filter(|d| !is_field_factory(*d, self.text))
                .map(|d| self.expr(d));
            params.push(Param {
                is_self: false,
                variadic: false,
                collects: None,
                name: name.clone(),
                ty: self.annotation(annotation),
                default,
                range: self.range(assignment),
            });
            // A number, string or tuple changes only by assignment.
            let changes_in_place = !is_immutable(self.text(annotation));
            let changed = assigned.contains(&name.text)
                || touched.contains(ANY_FIELD)
                || (changes_in_place && touched.contains(&name.text));
            let kind = match changed {
                true => ExprKind::Unknown(format!("`self.{}` {CHANGED_AFTER_INIT}", name.text)),
                false => ExprKind::Name(name.text.clone()),
            };
            fields.push(Field {
                value: Expr {
                    kind,
                    range: name.range,
                },
                name,
                ty: None,
                range: self.range(assignment),
            });
        }
        Struct {
            name: child_by_field(class, "name").map(|n| self.name(n)),
            params: Some(params),
            class_fields: Vec::new(),
            init: None,
            fields,
            methods: self.methods(class),
            enumeration: None,
            range: self.range(class),
        }
    }

    fn methods(&mut self, class: Node<'_>) -> Vec<Function> {
        methods_of(class, self.text)
            .into_iter()
            .map(|(_, method)| {
                self.function(method, &decorators(decorated(method), self.text), true)
            })
            .collect()
    }

    /// `name = value` in the class body.
    fn class_attributes(&mut self, members: &[Node<'_>]) -> Vec<Field> {
        let mut attributes: Vec<Field> = Vec::new();
        for (assignment, left) in class_body_assignments(members) {
            let Some(right) = child_by_field(assignment, "right") else {
                continue;
            };
            // `WORLD = None` in a class body is a slot the program fills
            // later (`GroupMember.WORLD = pg`), not a constant.
            let value = match right.kind() {
                "none" => self.unknown(right, "a class attribute set to `None` is assigned later"),
                _ => self.expr(right),
            };
            let field = Field {
                name: self.name(left),
                ty: None,
                value,
                range: self.range(assignment),
            };
            // Assigned again, the last value is the class's.
            attributes.retain(|a| a.name.text != field.name.text);
            attributes.push(field);
        }
        attributes
    }

    /// `__init__`: its parameters, its body, and the fields it assigns.
    fn init(
        &mut self,
        init: Node<'_>,
        class_fields: &[Field],
    ) -> (Vec<Param>, Option<Block>, Vec<InitField>) {
        let saved_shift = self.shift;
        if let Some(place) = (self.placement)(init.start_byte()) {
            self.shift = place as isize - init.start_byte() as isize;
        }
        let body = child_by_field(init, "body");
        let mut self_name = None;
        let mut params = Vec::new();
        for (param, bare) in self.parameters(init, true) {
            match param.is_self {
                true => self_name = Some(param.name.text),
                false => params.push(self.constructor_param(param, bare, body)),
            }
        }
        let Some(body) = body else {
            self.shift = saved_shift;
            return (params, None, Vec::new());
        };
        let param_names: Vec<String> = params.iter().map(|p| p.name.text.clone()).collect();
        let scope = Scope::of_body(ScopeKind::Init, body, self.text, param_names, self_name);
        let outer_scope = std::mem::replace(&mut self.scope, scope);
        let outer_fields = self.init_fields.replace(Vec::new());
        let at = TextRange::empty(self.range(body).start as usize);
        let mut stmts: Vec<Stmt> = self.hoisted_locals(at);
        let attributes_start = self.dynamic_attributes_start(body, at);
        let body_stmts = self.block_statements(body);
        let assigned = std::mem::replace(&mut self.init_fields, outer_fields).unwrap_or_default();
        self.scope = outer_scope;
        // Every field is declared before the body, so that one assigned in
        // a branch or a loop is assigned, not declared, there. A class
        // attribute is bound before the body runs.
        let mut declared: Vec<&str> = Vec::new();
        for field in &assigned {
            let name = field.name.text.as_str();
            if declared.contains(&name) || class_fields.iter().any(|f| f.name.text == name) {
                continue;
            }
            declared.push(name);
            stmts.push(declare(format!("{FIELD_PREFIX}{name}"), at));
        }
        stmts.extend(attributes_start);
        stmts.extend(body_stmts);
        let range = self.range(body);
        self.shift = saved_shift;
        (params, Some(Block { stmts, range }), assigned)
    }

    /// A `var` for each local of the scope assigned more than once or
    /// under control flow (see `locals`).
    pub(super) fn hoisted_locals(&self, at: TextRange) -> Vec<Stmt> {
        self.scope
            .locals
            .hoisted
            .iter()
            .map(|name| declare(name.clone(), at))
            .collect()
    }

    /// A parameter of `__init__`. Unannotated and without a default, it is
    /// read as a number (`TypeKind::Number`, an `Int` that may be a float)
    /// when `__init__` uses it only as a number (passed on, in arithmetic,
    /// compared): channel counts, widths, sizes, which is what most
    /// constructor parameters of a model are, and probabilities. One that
    /// is called, indexed, iterated or has attributes read (a block class,
    /// a list, a config) stays unknown.
    fn constructor_param(&self, mut param: Param, bare: bool, body: Option<Node<'_>>) -> Param {
        let used_as_number =
            || body.is_none_or(|body| only_used_as_number(body, &param.name.text, self.text));
        if bare && used_as_number() {
            param.ty = Some(Type {
                kind: TypeKind::Number,
                range: TextRange::empty(param.name.range.end as usize),
            });
        }
        param
    }

    /// In `__init__`, the field `self.name` as a target or a value: the
    /// local that holds it. `None` for any other attribute.
    pub(super) fn init_field(&mut self, attribute: Node<'_>) -> Option<Expr> {
        if self.scope.kind != ScopeKind::Init
            || attribute.kind() != "attribute"
            || !self.is_self(child_by_field(attribute, "object"))
        {
            return None;
        }
        let name = child_by_field(attribute, "attribute")?;
        Some(Expr {
            kind: ExprKind::Name(format!("{FIELD_PREFIX}{}", self.text(name))),
            range: self.range(attribute),
        })
    }

    /// `self.name = value` in `__init__`: the field's assignment, noted as
    /// one of the struct's fields.
    pub(super) fn assign_field(
        &mut self,
        target: Node<'_>,
        value: Expr,
        range: TextRange,
    ) -> Option<Stmt> {
        let local = self.init_field(target)?;
        let attribute = child_by_field(target, "attribute")?;
        let name = self.name(attribute);
        Some(self.note_field(name, local, value, range))
    }

    pub(super) fn note_field(
        &mut self,
        name: Name,
        local: Expr,
        value: Expr,
        range: TextRange,
    ) -> Stmt {
        if let Some(fields) = &mut self.init_fields {
            fields.push(InitField {
                name,
                statement: range,
            });
        }
        Stmt {
            kind: StmtKind::Assign {
                target: local,
                op: AssignOp::Assign,
                value,
            },
            range,
        }
    }

    /// `self.register_buffer("mask", value)`, `self.add_module("fc", m)`
    /// in `__init__`: the field's assignment.
    pub(super) fn registration(&mut self, call: Node<'_>, range: TextRange) -> Option<Stmt> {
        let function = child_by_field(call, "function")?;
        if self.scope.kind != ScopeKind::Init
            || function.kind() != "attribute"
            || !self.is_self(child_by_field(function, "object"))
        {
            return None;
        }
        let method = child_by_field(function, "attribute").map(|a| self.text(a));
        let registers_module = matches!(method, Some("add_module" | "register_module"));
        // A container class registers modules in its container (see
        // `registered`).
        if registers_module && self.registers.is_some() {
            return None;
        }
        if !registers_module && !matches!(method, Some("register_buffer" | "register_parameter")) {
            return None;
        }
        let args = named_children(child_by_field(call, "arguments")?);
        let (Some(name), Some(value)) = (args.first(), args.get(1)) else {
            return None;
        };
        let field = self.string_literal(*name)?;
        let value = self.expr(*value);
        let name = Name {
            text: field.clone(),
            range: self.range(*name),
        };
        let local = Expr {
            kind: ExprKind::Name(format!("{FIELD_PREFIX}{field}")),
            range: name.range,
        };
        Some(self.note_field(name, local, value, range))
    }

    /// `self.helper(...)` in `__init__` (ResNet's `self._make_layer(...)`):
    /// the helper's body runs in place, in a block of its own whose first
    /// statements bind its parameters, and the call's value is what it
    /// returns. It may read and assign fields (`self.inplanes = ...`).
    /// `None` when the call is not to a helper that can be inlined (one
    /// that returns before its last statement).
    pub(super) fn inline_helper(&mut self, call: Node<'_>) -> Option<Expr> {
        let function = child_by_field(call, "function")?;
        if self.scope.kind != ScopeKind::Init
            || self.pending.is_none()
            || function.kind() != "attribute"
            || !self.is_self(child_by_field(function, "object"))
            || self.inlining.len() >= MAX_INLINED
        {
            return None;
        }
        let name = self.text(child_by_field(function, "attribute")?).to_owned();
        if self.inlining.contains(&name) {
            return None;
        }
        let class = enclosing_class(call)?;
        let (_, helper) = methods_of(class, self.text)
            .into_iter()
            .find(|(n, _)| *n == name)?;
        let body = child_by_field(helper, "body")?;
        if !returns_only_at_end(body) || unpacks_arguments(call, helper) {
            return None;
        }
        // A static method has no `self` (MobileNetV3's
        // `self.adjust_channels(c, width_mult)`); a class method's first
        // parameter is the class, which is not inlined.
        let written = decorators(decorated(helper), self.text);
        let has_self = match () {
            _ if written.contains(&"staticmethod") => false,
            _ if written.contains(&"classmethod") => return None,
            _ => true,
        };
        let range = self.range(call);
        let at = TextRange::empty(range.start as usize);
        let arguments = self.arguments(call);
        let result = self.temporary();
        let mut inner = Vec::new();
        let mut self_name = None;
        let mut param_names = Vec::new();
        let params = self.parameters(helper, has_self);
        let bound = bind_helper_arguments(&params, arguments);
        for ((param, _), value) in params.iter().zip(bound) {
            if param.is_self {
                self_name = Some(param.name.text.clone());
                continue;
            }
            param_names.push(param.name.text.clone());
            let value = value.or_else(|| param.default.clone()).unwrap_or(Expr {
                kind: ExprKind::Unknown(format!("`{}` is not given", param.name.text)),
                range,
            });
            inner.push(Stmt {
                kind: StmtKind::Let {
                    pattern: Pattern::Name(param.name.clone()),
                    ty: None,
                    value,
                },
                range: at,
            });
        }
        // Made of the helper's text alone, so the same at every call.
        let scope = self
            .helper_scopes
            .entry(body.id())
            .or_insert_with(|| {
                Scope::of_body(ScopeKind::Init, body, self.text, param_names, self_name)
            })
            .clone();
        let outer_scope = std::mem::replace(&mut self.scope, scope);
        let outer_result = self.helper_result.replace(result.clone());
        self.inlining.push(name);
        inner.extend(self.hoisted_locals(at));
        inner.extend(self.block_statements(body));
        self.inlining.pop();
        self.helper_result = outer_result;
        self.scope = outer_scope;
        let pending = self.pending.as_mut()?;
        pending.push(declare(result.clone(), at));
        // A block of its own: the helper's locals end with it.
        pending.push(Stmt {
            kind: StmtKind::If {
                condition: Expr {
                    kind: ExprKind::Bool(true),
                    range: at,
                },
                then_branch: Block {
                    stmts: inner,
                    range,
                },
                else_branch: None,
            },
            range,
        });
        Some(Expr {
            kind: ExprKind::Name(result),
            range,
        })
    }

    /// Whether `node` is the method's `self`.
    pub(super) fn is_self(&self, node: Option<Node<'_>>) -> bool {
        node.is_some_and(|n| {
            n.kind() == "identifier" && self.scope.self_name.as_deref() == Some(self.text(n))
        })
    }
}

/// The fields a method other than `__init__` assigns (`self.cache = x`,
/// `self.steps += 1`): state that changes after construction, so its value
/// from `__init__` (often `None`) is not what other methods read.
///
/// `_load_from_state_dict` runs only in `load_state_dict`, which the
/// analysis follows where it is called (`Builtin::LoadState`): what it
/// changes is as built until then, unless the class loads itself.
fn mutated_fields(
    class: Node<'_>,
    text: &str,
    set_on_others: &BTreeSet<String>,
) -> std::collections::BTreeSet<String> {
    let loads_itself = text_of(class, text).contains("self.load_state_dict(")
        || text_of(class, text).contains("self._load_from_state_dict(");
    let mut mutated = std::collections::BTreeSet::new();
    let methods = methods_of(class, text);
    for (name, method) in &methods {
        if name == LOAD_HOOK && !loads_itself {
            continue;
        }
        assigned_on_self(*method, text, &mut mutated);
        // A helper only `__init__` calls (`self._build_layers()` appending
        // to `self.blocks`) builds the instance: it is inlined there.
        let called_elsewhere = methods.iter().any(|(other, body)| {
            other != name && text_of(*body, text).contains(&format!(".{name}("))
        });
        if called_elsewhere || !calls_own_method(class, name, text) {
            changed_through_self(*method, text, &mut mutated);
        }
    }
    mutated.extend(none_fields_set_from_outside(class, text, set_on_others));
    mutated
}

/// The fields `__init__` sets to `None` that the file sets on another
/// object (`m.bias = mean.view(-1)` in a loop over `self.modules()`: the
/// adaptive norms of PyTorch-GAN's MUNIT, whose `forward` asserts they
/// were). Such a field is assigned after `__init__` by someone else; a
/// field `__init__` gives a value keeps it (`self.lm_head.weight = ...`
/// ties an `nn.Linear`'s weight, not a `LayerNorm` class's `weight`).
fn none_fields_set_from_outside(
    class: Node<'_>,
    text: &str,
    set_on_others: &BTreeSet<String>,
) -> BTreeSet<String> {
    let mut found = std::collections::BTreeSet::new();
    let Some(init) = init_method(class, text) else {
        return found;
    };
    let Some(self_name) = first_parameter(init, text) else {
        return found;
    };
    fn assignments(root: Node<'_>) -> Vec<(Node<'_>, Node<'_>)> {
        descendants(root)
            .filter(|n| n.kind() == "assignment")
            .filter_map(|n| Some((child_by_field(n, "left")?, child_by_field(n, "right")?)))
            .filter(|(left, _)| left.kind() == "attribute")
            .collect()
    }
    let is_self = |object: Option<Node<'_>>| {
        object.is_some_and(|o| o.kind() == "identifier" && text_of(o, text) == self_name)
    };
    let set_to_none: std::collections::BTreeSet<&str> = assignments(init)
        .into_iter()
        .filter(|(left, right)| right.kind() == "none" && is_self(child_by_field(*left, "object")))
        .filter_map(|(left, _)| child_by_field(left, "attribute").map(|a| text_of(a, text)))
        .collect();
    if set_to_none.is_empty() {
        return found;
    }
    for field in set_to_none {
        if set_on_others.contains(field) {
            found.insert(field.to_owned());
        }
    }
    found
}

/// The attributes the file's `assignments` (every assignment node of it)
/// assign on an object other than a method's `self` (`m.bias = ...`):
/// read from the whole file into the module's context, as a class is
/// lowered alone.
pub(crate) fn attributes_set_on_others(assignments: &[Node<'_>], text: &str) -> BTreeSet<String> {
    assignments
        .iter()
        .filter_map(|n| child_by_field(*n, "left"))
        .filter(|left| left.kind() == "attribute")
        .filter(|left| {
            child_by_field(*left, "object")
                .is_none_or(|o| o.kind() != "identifier" || text_of(o, text) != "self")
        })
        .filter_map(|left| child_by_field(left, "attribute"))
        .map(|a| text_of(a, text).to_owned())
        .collect()
}

/// Whether an annotation names a type whose values never change in place.
fn is_immutable(annotation: &str) -> bool {
    let outer = annotation
        .trim()
        .strip_prefix("Optional[")
        .map_or(annotation.trim(), |inner| inner.trim_end_matches(']'));
    let head = outer.split('[').next().unwrap_or(outer).trim();
    let head = head.rsplit('.').next().unwrap_or(head);
    matches!(
        head,
        "int" | "float" | "str" | "bool" | "bytes" | "complex" | "tuple" | "Tuple" | "frozenset"
    )
}

/// Stands for every field in a set of changed fields.
const ANY_FIELD: &str = "*";

/// The fields a dataclass's `__post_init__` may change in place, beside
/// those it assigns ([`assigned_on_self`]): each whose method it calls
/// (`self.table.update(...)`) or which it passes to a call; and
/// [`ANY_FIELD`] where it calls a method of `self` or sets attributes by
/// name (`object.__setattr__` in a frozen dataclass), which may assign any.
fn post_init_changes(
    method: Node<'_>,
    text: &str,
    changed: &mut std::collections::BTreeSet<String>,
) {
    let Some(self_name) = first_parameter(method, text) else {
        return;
    };
    let body = text_of(method, text);
    if body.contains("setattr") || body.contains("__dict__") {
        changed.insert(ANY_FIELD.to_owned());
        return;
    }
    let is_callee = |node: Node<'_>, parent: Option<Node<'_>>| {
        parent.is_some_and(|p| p.kind() == "call" && child_by_field(p, "function") == Some(node))
    };
    for Placed {
        node,
        parent,
        grandparent,
    } in descendants_with_parents(method)
    {
        let on_self = child_by_field(node, "object").is_some_and(|o| text_of(o, text) == self_name);
        if node.kind() != "attribute" || !on_self {
            continue;
        }
        if is_callee(node, Some(parent)) {
            changed.insert(ANY_FIELD.to_owned());
            continue;
        }
        let method_called = parent.kind() == "attribute" && is_callee(parent, grandparent);
        let passed = matches!(parent.kind(), "argument_list" | "keyword_argument");
        if method_called || passed {
            if let Some(name) = child_by_field(node, "attribute") {
                changed.insert(text_of(name, text).to_owned());
            }
        }
    }
}

/// Whether a method other than `__init__` changes `self` as a container
/// in place (`self.append(m)` in a `ModuleList` class, `self[k] = m`,
/// `del self[k]`).
fn changes_self_in_methods(class: Node<'_>, text: &str) -> bool {
    methods_of(class, text).into_iter().any(|(_, method)| {
        let Some(self_name) = first_parameter(method, text) else {
            return false;
        };
        let is_self = |node: Option<Node<'_>>| node.is_some_and(|o| text_of(o, text) == self_name);
        descendants_with_parents(method).any(|Placed { node, parent, .. }| match node.kind() {
            // `self.append(m)`, `self.update(...)`.
            "call" => child_by_field(node, "function").is_some_and(|f| {
                f.kind() == "attribute"
                    && is_self(child_by_field(f, "object"))
                    && child_by_field(f, "attribute").is_some_and(|a| {
                        super::containers::IN_PLACE_METHODS.contains(&text_of(a, text))
                    })
            }),
            // `self[k] = m`, `del self[k]`.
            "subscript" => {
                let changed = matches!(parent.kind(), "delete_statement" | "expression_list")
                    || (matches!(parent.kind(), "assignment" | "augmented_assignment")
                        && child_by_field(parent, "left") == Some(node));
                changed && is_self(child_by_field(node, "value"))
            }
            _ => false,
        })
    })
}

/// Whether the class's `__init__` calls its method `name` (`self.name(`).
fn calls_own_method(class: Node<'_>, name: &str, text: &str) -> bool {
    init_method(class, text).is_some_and(|init| text_of(init, text).contains(&format!(".{name}(")))
}

/// The fields whose value a method changes in place through `self`, as a
/// list, dict or set is changed (`self.items.append(v)`,
/// `self.stat["tps"].append(v)`, `self.seen.add(k)`): another method
/// reads them as they are then, not as `__init__` left them. A tensor
/// field's in-place arithmetic (`self.weight.normal_()`) keeps its shape
/// and is not counted.
fn changed_through_self(
    method: Node<'_>,
    text: &str,
    found: &mut std::collections::BTreeSet<String>,
) {
    let Some(self_name) = first_parameter(method, text) else {
        return;
    };
    for path in crate::changed_names::objects_changed_by(method, text, SHARED_VALUE_CHANGES) {
        if let [root, field, ..] = path.as_slice() {
            if root == self_name {
                found.insert(field.clone());
            }
        }
    }
}

/// The method `nn.Module.load_state_dict` calls on every module it loads.
const LOAD_HOOK: &str = "_load_from_state_dict";

/// What a method assigns on its first parameter, whole or in part
/// (`self.fc = m`, `self.steps += 1`, `self.blocks[0] = b`), or registers
/// by a literal name (`self.add_module("fc", m)`).
pub(crate) fn assigned_on_self(
    function: Node<'_>,
    text: &str,
    found: &mut std::collections::BTreeSet<String>,
) {
    let Some(self_name) = first_parameter(function, text) else {
        return;
    };
    let on_self = |node: Node<'_>| {
        child_by_field(node, "object").is_some_and(|o| text_of(o, text) == self_name)
    };
    for node in descendants(function) {
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
                        "attribute" => {}
                        _ => targets.extend(named_children(target)),
                    }
                }
            }
            // `setattr(self, "name", v)`, or by a computed name.
            "call" if is_setattr_of(node, self_name, text) => {
                let name = child_by_field(node, "arguments")
                    .and_then(|a| named_children(a).into_iter().nth(1));
                match name.filter(|n| n.kind() == "string") {
                    Some(literal) => {
                        let literal = text_of(literal, text);
                        found.insert(literal.trim_matches(|c| c == '"' || c == '\'').to_owned());
                    }
                    None => {
                        found.insert(DYNAMIC_ATTRIBUTES_FIELD.to_owned());
                    }
                }
            }
            "call" => {
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
    }
}

/// Whether `call` is the builtin `setattr` of the method's `self`.
fn is_setattr_of(call: Node<'_>, self_name: &str, text: &str) -> bool {
    let calls_setattr = child_by_field(call, "function")
        .is_some_and(|f| f.kind() == "identifier" && text_of(f, text) == "setattr");
    let first =
        child_by_field(call, "arguments").and_then(|a| named_children(a).into_iter().next());
    calls_setattr && first.is_some_and(|o| text_of(o, text) == self_name)
}

/// `var name` (unknown until assigned).
fn declare(name: String, at: TextRange) -> Stmt {
    declare_with(
        Name {
            text: name,
            range: at,
        },
        None,
        at,
    )
}

/// `var name = value` (or `var name` without one), placed at `at`.
pub(super) fn declare_with(name: Name, value: Option<Expr>, at: TextRange) -> Stmt {
    Stmt {
        kind: StmtKind::Var {
            pattern: Pattern::Name(name),
            ty: None,
            value,
        },
        range: at,
    }
}

/// Whether a call or the helper it calls unpacks arguments (`*xs`,
/// `**kw`): the inlining binds arguments as written, so it leaves those to
/// the analysis's binder.
fn unpacks_arguments(call: Node<'_>, helper: Node<'_>) -> bool {
    let kinds = |node: Option<Node<'_>>| {
        node.map(named_children)
            .unwrap_or_default()
            .into_iter()
            .map(|n| n.kind())
            .collect::<Vec<_>>()
    };
    kinds(child_by_field(call, "arguments"))
        .into_iter()
        .chain(kinds(child_by_field(helper, "parameters")))
        .any(|kind| kind.contains("splat"))
}

/// The helper's parameters (`self` first) given the call's arguments:
/// positional ones in order, keyword ones by name.
fn bind_helper_arguments(params: &[(Param, bool)], arguments: Vec<Arg>) -> Vec<Option<Expr>> {
    let mut bound: Vec<Option<Expr>> = vec![None; params.len()];
    let mut next = params.iter().position(|(p, _)| !p.is_self).unwrap_or(0);
    for argument in arguments {
        match &argument.name {
            Some(name) => {
                if let Some(i) = params.iter().position(|(p, _)| p.name.text == name.text) {
                    bound[i] = Some(argument.value);
                }
            }
            None => {
                if next < bound.len() {
                    bound[next] = Some(argument.value);
                    next += 1;
                }
            }
        }
    }
    bound
}

/// The assignments to a plain name in a class body (`expansion = 4`,
/// `n_embd: int = 768`), with that name.
pub(crate) fn class_body_assignments<'t>(members: &[Node<'t>]) -> Vec<(Node<'t>, Node<'t>)> {
    members
        .iter()
        .filter(|m| m.kind() == "expression_statement")
        .flat_map(|m| named_children(*m))
        .filter(|a| a.kind() == "assignment")
        .filter_map(|a| {
            Some((
                a,
                child_by_field(a, "left").filter(|l| l.kind() == "identifier")?,
            ))
        })
        .collect()
}

/// The class a node is in.
fn enclosing_class(node: Node<'_>) -> Option<Node<'_>> {
    let mut current = node.parent();
    while let Some(n) = current {
        if n.kind() == "class_definition" {
            return Some(n);
        }
        current = n.parent();
    }
    None
}

/// Whether a body's only `return` (if any) is its last statement.
fn returns_only_at_end(body: Node<'_>) -> bool {
    let statements = named_children(body);
    let Some((last, rest)) = statements.split_last() else {
        return true;
    };
    let mut stack: Vec<Node<'_>> = rest.to_vec();
    if last.kind() != "return_statement" {
        stack.push(*last);
    }
    let mut cursor = body.walk();
    while let Some(node) = stack.pop() {
        match node.kind() {
            "return_statement" | "yield" => return false,
            "function_definition" | "class_definition" | "lambda" => {}
            _ => each_named_child(&mut cursor, node, |child| stack.push(child)),
        }
    }
    true
}

/// `field(default_factory=...)`: a dataclass default that is not a value.
fn is_field_factory(node: Node<'_>, text: &str) -> bool {
    node.kind() == "call"
        && child_by_field(node, "function")
            .is_some_and(|f| matches!(text_of(f, text), "field" | "dataclasses.field"))
}

/// Whether every use of `name` in `body` is as a number: not the object of
/// an attribute, a callee, a subscripted value, an iterable or unpacked.
fn only_used_as_number(body: Node<'_>, name: &str, text: &str) -> bool {
    uses_of(body, name, text).all(|Placed { node, parent, .. }| {
        let is = |field: &str| is_field(parent, field, node);
        let non_numeric = match parent.kind() {
            "attribute" => is("object"),
            "call" => is("function"),
            "subscript" => is("value"),
            "for_statement" | "for_in_clause" => is("right"),
            "list_splat" | "dictionary_splat" => true,
            // `downsample is None`: an optional object.
            "comparison_operator" => text_of(parent, text).contains(" is "),
            _ => false,
        };
        !non_numeric
    })
}
