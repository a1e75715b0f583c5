//! Name checks: the failure kinds of Rink's model language that need no
//! shapes, plus call arity and named arguments.
//!
//! One walk over a file with lexical scopes. Alongside scoping it tracks
//! which `var`s are definitely assigned (a forward data-flow over the
//! statement tree) to find reads before initialisation.

use std::collections::{BTreeSet, HashMap, HashSet};

use tensorfit_base::{Code, Diagnostic, TextRange};
use tensorfit_syntax::ast::{self, ExprKind, FieldName, Pattern, StmtKind};

use crate::module_scope::{struct_members, ModuleItemKind, ModuleScope, StructMembers};
use crate::resolve::TENSOR_PROPERTIES;
use crate::suggest::did_you_mean;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum BindingKind {
    Let,
    Var,
    Param,
    LoopVar,
    DimName,
    Segment,
    IndexVar,
}

impl BindingKind {
    fn describe(self) -> &'static str {
        match self {
            BindingKind::Let => "declared with `let`",
            BindingKind::Var => "a `var`",
            BindingKind::Param => "a parameter",
            BindingKind::LoopVar => "a loop variable",
            BindingKind::DimName => "a dimension name",
            BindingKind::Segment => "a dimension segment",
            BindingKind::IndexVar => "an index variable",
        }
    }
}

struct Binding {
    name: String,
    kind: BindingKind,
    range: TextRange,
}

type BindingId = usize;

#[derive(Default)]
struct Scope {
    names: HashMap<String, BindingId>,
    /// Bare subscripts in index notation declare index variables here.
    collects_indices: bool,
}

/// The set of `var`s definitely assigned on every path reaching a point;
/// `None` when no path reaches it (after `return`).
type Assigned = Option<HashSet<BindingId>>;

pub(crate) struct NameChecker<'a> {
    module: &'a ModuleScope,
    names_in_errors: &'a BTreeSet<String>,
    bindings: Vec<Binding>,
    scopes: Vec<Scope>,
    assigned: Assigned,
    reported_uninitialized: HashSet<BindingId>,
    current_struct: Option<(String, StructMembers)>,
    in_function: bool,
    in_method: bool,
    /// Suggestions compare a name with every name in scope; a file with
    /// thousands of unknown names gets them for the first few only.
    suggestions_left: usize,
    /// The constant whose value is being checked (a read of it there is a
    /// definition through itself).
    current_constant: Option<String>,
    pub diagnostics: Vec<Diagnostic>,
}

/// How many "did you mean" searches one file may run.
const SUGGESTION_BUDGET: usize = 50;

enum Resolved<'m> {
    Local(BindingId),
    Module(&'m ModuleItemKind, TextRange),
    Unresolved,
}

impl<'a> NameChecker<'a> {
    pub fn new(module: &'a ModuleScope, names_in_errors: &'a BTreeSet<String>) -> Self {
        NameChecker {
            module,
            names_in_errors,
            bindings: Vec::new(),
            scopes: Vec::new(),
            assigned: Some(HashSet::new()),
            reported_uninitialized: HashSet::new(),
            current_struct: None,
            in_function: false,
            in_method: false,
            suggestions_left: SUGGESTION_BUDGET,
            current_constant: None,
            diagnostics: Vec::new(),
        }
    }

    pub fn check_file(&mut self, file: &ast::SourceFile) {
        for item in &file.items {
            match item {
                ast::Item::Const(c) => {
                    self.current_constant = c.name.as_ref().map(|n| n.text.clone());
                    self.with_fresh_scopes(|this| {
                        if let Some(ty) = &c.ty {
                            this.ty(ty, false);
                        }
                        this.expr(&c.value);
                    });
                    self.current_constant = None;
                }
                ast::Item::Import(_) => {}
                ast::Item::Function(f) => self.function(f),
                ast::Item::Struct(s) => self.structure(s),
            }
        }
        self.with_fresh_scopes(|this| {
            for stmt in &file.script {
                this.stmt(stmt);
            }
        });
    }

    /// Runs `body` in a new, empty stack of scopes (items see no locals).
    fn with_fresh_scopes(&mut self, body: impl FnOnce(&mut Self)) {
        let saved_scopes = std::mem::replace(&mut self.scopes, vec![Scope::default()]);
        let saved_assigned = self.assigned.replace(HashSet::new());
        body(self);
        self.scopes = saved_scopes;
        self.assigned = saved_assigned;
    }

    // ---------------------------------------------------------------- items

    fn function(&mut self, f: &ast::Function) {
        self.with_fresh_scopes(|this| {
            this.in_function = true;
            this.in_method = f.has_self();
            // Parameters first, so that types may refer to any of them.
            for param in f.params.iter().filter(|p| !p.is_self) {
                this.declare(&param.name.text, BindingKind::Param, param.name.range);
            }
            for param in &f.params {
                if let Some(ty) = &param.ty {
                    this.ty(ty, true);
                }
                if let Some(default) = &param.default {
                    this.expr(default);
                }
            }
            if let Some(ty) = &f.return_type {
                this.ty(ty, true);
            }
            for clause in &f.where_clauses {
                this.expr(clause);
            }
            if let Some(body) = &f.body {
                this.block_in_new_scope(body);
            }
            this.in_function = false;
            this.in_method = false;
        });
    }

    fn structure(&mut self, s: &ast::Struct) {
        let mut members = struct_members(s);
        let struct_name = s.name.as_ref().map(|n| n.text.clone()).unwrap_or_default();
        for signature in members.methods.values_mut() {
            signature.display_name = format!("{struct_name}.{}", signature.display_name);
        }
        self.report_duplicate_members(s);
        let saved = self.current_struct.replace((struct_name, members));
        self.with_fresh_scopes(|this| {
            for param in s.params.iter().flatten() {
                this.declare(&param.name.text, BindingKind::Param, param.name.range);
            }
            for param in s.params.iter().flatten() {
                if let Some(ty) = &param.ty {
                    this.ty(ty, true);
                }
                if let Some(default) = &param.default {
                    this.expr(default);
                }
            }
            for field in &s.fields {
                if let Some(ty) = &field.ty {
                    this.ty(ty, true);
                }
                this.expr(&field.value);
            }
        });
        for method in &s.methods {
            self.function(method);
        }
        self.current_struct = saved;
    }

    fn report_duplicate_members(&mut self, s: &ast::Struct) {
        let mut seen: HashMap<&str, TextRange> = HashMap::new();
        let names = s
            .fields
            .iter()
            .map(|f| &f.name)
            .chain(s.methods.iter().filter_map(|m| m.name.as_ref()));
        for name in names {
            if let Some(first) = seen.get(name.text.as_str()) {
                self.diagnostics.push(
                    Diagnostic::new(
                        Code::RedeclaredName,
                        name.range,
                        format!("`{}` is already a member of this struct", name.text),
                    )
                    .with_related(*first, format!("`{}` is first declared here", name.text)),
                );
            } else {
                seen.insert(&name.text, name.range);
            }
        }
    }

    // ---------------------------------------------------------------- types

    /// Checks the names in a type. With `binds_names`, a bare name that is
    /// not yet bound declares a dimension name (signatures and annotations).
    fn ty(&mut self, ty: &ast::Type, binds_names: bool) {
        match &ty.kind {
            ast::TypeKind::Tensor { dims: Some(dims) } => {
                for dim in dims {
                    self.dim(dim, binds_names);
                }
            }
            ast::TypeKind::Tuple(elements) => {
                for element in elements {
                    self.ty(element, binds_names);
                }
            }
            _ => {}
        }
    }

    fn dim(&mut self, dim: &ast::Dim, binds_names: bool) {
        match dim {
            ast::Dim::Unknown(_) => {}
            ast::Dim::Segment {
                name, args: None, ..
            } => {
                if !matches!(self.resolve(&name.text), Resolved::Local(_)) {
                    self.declare(&name.text, BindingKind::Segment, name.range);
                }
            }
            ast::Dim::Segment {
                name,
                args: Some(args),
                ..
            } => {
                if name.text != "broadcast" {
                    self.diagnostics.push(Diagnostic::new(
                        Code::UnknownFunction,
                        name.range,
                        format!(
                            "unknown segment function `{}`; the only one is `broadcast`",
                            name.text
                        ),
                    ));
                }
                for arg in args {
                    self.use_name(&arg.text, arg.range);
                }
            }
            ast::Dim::Expr(expr) => match &expr.kind {
                ExprKind::Name(name)
                    if binds_names && matches!(self.resolve(name), Resolved::Unresolved) =>
                {
                    self.declare(name, BindingKind::DimName, expr.range);
                }
                _ => self.expr(expr),
            },
        }
    }

    // ----------------------------------------------------------- statements

    fn block_in_new_scope(&mut self, block: &ast::Block) {
        self.scopes.push(Scope::default());
        for stmt in &block.stmts {
            self.stmt(stmt);
        }
        self.scopes.pop();
    }

    fn stmt(&mut self, stmt: &ast::Stmt) {
        match &stmt.kind {
            StmtKind::Let { pattern, ty, value } => {
                self.definition_value(pattern, Some(value));
                if let Some(ty) = ty {
                    self.ty(ty, true);
                }
                self.declare_pattern(pattern, BindingKind::Let, true);
            }
            StmtKind::Var { pattern, ty, value } => {
                self.definition_value(pattern, value.as_ref());
                if let Some(ty) = ty {
                    self.ty(ty, true);
                }
                self.declare_pattern(pattern, BindingKind::Var, value.is_some());
            }
            StmtKind::Assign { target, op, value } => self.assignment(target, *op, value),
            StmtKind::Assert { condition, message } => {
                self.expr(condition);
                if let Some(message) = message {
                    self.expr(message);
                }
            }
            StmtKind::If {
                condition,
                then_branch,
                else_branch,
            } => {
                self.expr(condition);
                let before = self.assigned.clone();
                self.block_in_new_scope(then_branch);
                let after_then = std::mem::replace(&mut self.assigned, before);
                match else_branch {
                    Some(ast::ElseBranch::Block(block)) => self.block_in_new_scope(block),
                    Some(ast::ElseBranch::If(nested)) => {
                        self.scopes.push(Scope::default());
                        self.stmt(nested);
                        self.scopes.pop();
                    }
                    None => {}
                }
                let after_else = self.assigned.take();
                self.assigned = join(after_then, after_else);
            }
            StmtKind::For {
                variable,
                start,
                end,
                body,
            } => {
                self.expr(start);
                self.expr(end);
                self.loop_body(|this| {
                    if let Some(variable) = variable {
                        this.declare(&variable.text, BindingKind::LoopVar, variable.range);
                    }
                    for stmt in &body.stmts {
                        this.stmt(stmt);
                    }
                });
            }
            StmtKind::While { condition, body } => {
                self.expr(condition);
                self.loop_body(|this| {
                    for stmt in &body.stmts {
                        this.stmt(stmt);
                    }
                });
            }
            StmtKind::Return(value) => {
                if let Some(value) = value {
                    self.expr(value);
                }
                if !self.in_function {
                    self.diagnostics.push(Diagnostic::new(
                        Code::ReturnOutsideFunction,
                        stmt.range,
                        "`return` outside of a function: the script body has no result",
                    ));
                }
                self.assigned = None;
            }
            StmtKind::Expr(expr) => self.expr(expr),
        }
    }

    /// A loop body may run zero times: what it assigns is not assigned after.
    fn loop_body(&mut self, body: impl FnOnce(&mut Self)) {
        let before = self.assigned.clone();
        self.scopes.push(Scope::default());
        body(self);
        self.scopes.pop();
        self.assigned = before;
    }

    /// The right side of `let`/`var`; for index notation, with the
    /// left-hand indices in scope.
    fn definition_value(&mut self, pattern: &Pattern, value: Option<&ast::Expr>) {
        let Some(value) = value else { return };
        match pattern {
            Pattern::Index { indices, .. } => self.index_notation(indices, value),
            _ => self.expr(value),
        }
    }

    /// Checks the right side of an index-notation statement: the left-hand
    /// indices and every bare subscript are statement-local index variables.
    fn index_notation(&mut self, indices: &[ast::Name], value: &ast::Expr) {
        self.scopes.push(Scope {
            collects_indices: true,
            ..Scope::default()
        });
        for index in indices {
            self.declare(&index.text, BindingKind::IndexVar, index.range);
        }
        self.expr(value);
        self.scopes.pop();
    }

    fn declare_pattern(&mut self, pattern: &Pattern, kind: BindingKind, initialized: bool) {
        match pattern {
            Pattern::Name(name) | Pattern::Index { name, .. } => {
                let id = self.declare(&name.text, kind, name.range);
                if initialized {
                    self.mark_assigned(id);
                }
            }
            Pattern::Tuple { elements, .. } => {
                for element in elements {
                    self.declare_pattern(element, kind, initialized);
                }
            }
            Pattern::Missing(_) => {}
        }
    }

    fn assignment(&mut self, target: &ast::Expr, op: ast::AssignOp, value: &ast::Expr) {
        let (name, name_range) = match &target.kind {
            ExprKind::Name(name) => {
                self.expr(value);
                (name.as_str(), target.range)
            }
            ExprKind::Subscript {
                value: tensor,
                indices,
            } => {
                let Some(name) = tensor.as_name() else { return };
                let index_names: Vec<ast::Name> = indices
                    .iter()
                    .filter_map(|i| {
                        Some(ast::Name {
                            text: i.as_name()?.to_owned(),
                            range: i.range,
                        })
                    })
                    .collect();
                self.index_notation(&index_names, value);
                (name, tensor.range)
            }
            _ => {
                self.expr(value);
                return;
            }
        };
        match self.resolve(name) {
            Resolved::Local(id) => {
                let binding = &self.bindings[id];
                match binding.kind {
                    BindingKind::Var | BindingKind::Param => {
                        if op == ast::AssignOp::AddAssign {
                            self.check_initialized(id, name_range);
                        }
                        self.mark_assigned(id);
                    }
                    kind => {
                        let declared_at = binding.range;
                        self.diagnostics.push(
                            Diagnostic::new(
                                Code::AssignToImmutable,
                                name_range,
                                format!("cannot assign to `{name}`: it is {}", kind.describe()),
                            )
                            .with_related(declared_at, format!("`{name}` is declared here")),
                        );
                    }
                }
            }
            Resolved::Module(kind, range) => {
                let what = match kind {
                    ModuleItemKind::Const => "a constant",
                    ModuleItemKind::Function(_) => "a function",
                    ModuleItemKind::Struct(_) => "a struct",
                    ModuleItemKind::Prelude(_) | ModuleItemKind::PreludeValue => {
                        "defined by the prelude"
                    }
                };
                let mut diagnostic = Diagnostic::new(
                    Code::AssignToImmutable,
                    name_range,
                    format!("cannot assign to `{name}`: it is {what}"),
                );
                if !range.is_empty() {
                    diagnostic =
                        diagnostic.with_related(range, format!("`{name}` is declared here"));
                }
                self.diagnostics.push(diagnostic);
            }
            Resolved::Unresolved => {
                if !self.names_in_errors.contains(name) {
                    let hint = self.suggestion(name);
                    self.diagnostics.push(Diagnostic::new(
                        Code::AssignToUndeclared,
                        name_range,
                        format!(
                            "cannot assign to `{name}`: it is not declared (declare it with `var {name} = ...`){hint}"
                        ),
                    ));
                }
            }
        }
    }

    // ---------------------------------------------------------- expressions

    fn expr(&mut self, expr: &ast::Expr) {
        match &expr.kind {
            ExprKind::Name(name) => self.use_name(name, expr.range),
            ExprKind::SelfValue => {
                if !self.in_method {
                    self.diagnostics.push(Diagnostic::new(
                        Code::SelfOutsideMethod,
                        expr.range,
                        "`self` is only available in the methods of a struct",
                    ));
                }
            }
            ExprKind::Int(_)
            | ExprKind::Float(_)
            | ExprKind::Bool(_)
            | ExprKind::Str(_)
            | ExprKind::Hole
            | ExprKind::UnknownDim
            | ExprKind::Missing => {}
            ExprKind::List(elements) | ExprKind::Tuple(elements) => {
                for element in elements {
                    self.expr(element);
                }
            }
            ExprKind::Call { callee, args } => self.call(expr, callee, args),
            ExprKind::Subscript { value, indices } => {
                self.expr(value);
                let tensor_indexing = !is_shape_like(value);
                for index in indices {
                    match &index.kind {
                        ExprKind::Name(name) if tensor_indexing && self.collecting_indices() => {
                            self.use_index(name, index.range);
                        }
                        _ => self.expr(index),
                    }
                }
            }
            ExprKind::Field { value, field } => {
                self.expr(value);
                if let FieldName::Named(name) = field {
                    self.member_access(value, name, false);
                }
            }
            ExprKind::Unary { operand, .. } => self.expr(operand),
            ExprKind::Binary { lhs, rhs, .. } => {
                self.expr(lhs);
                self.expr(rhs);
            }
            ExprKind::Compare { operands, .. } => {
                for operand in operands {
                    self.expr(operand);
                }
            }
            ExprKind::ShapeAssert { value, pattern, .. } => {
                self.expr(value);
                for dim in pattern {
                    self.expr(dim);
                }
            }
            ExprKind::Reduction { bindings, body, .. } => {
                for binding in bindings {
                    if let Some((start, end)) = &binding.range {
                        self.expr(start);
                        self.expr(end);
                    }
                }
                self.scopes.push(Scope {
                    collects_indices: true,
                    ..Scope::default()
                });
                for binding in bindings {
                    self.declare(
                        &binding.index.text,
                        BindingKind::IndexVar,
                        binding.index.range,
                    );
                }
                self.expr(body);
                self.scopes.pop();
            }
        }
    }

    fn call(&mut self, call: &ast::Expr, callee: &ast::Expr, args: &[ast::Arg]) {
        match &callee.kind {
            ExprKind::Name(name) => match self.resolve(name) {
                Resolved::Local(id) => self.read_local(id, callee.range),
                Resolved::Module(kind, _) => match kind {
                    ModuleItemKind::Function(signature) | ModuleItemKind::Struct(signature) => {
                        signature.check_call(0, args, call.range, &mut self.diagnostics)
                    }
                    ModuleItemKind::Prelude(signature) => {
                        signature.check_call(0, args, call.range, &mut self.diagnostics)
                    }
                    ModuleItemKind::Const | ModuleItemKind::PreludeValue => {
                        self.diagnostics.push(Diagnostic::new(
                            Code::UnknownFunction,
                            callee.range,
                            format!("`{name}` is a value, not a function"),
                        ));
                    }
                },
                Resolved::Unresolved => {
                    if !self.names_in_errors.contains(name) {
                        let hint = self.suggestion(name);
                        self.diagnostics.push(Diagnostic::new(
                            Code::UnknownFunction,
                            callee.range,
                            format!("unknown function `{name}`{hint}"),
                        ));
                    }
                }
            },
            ExprKind::Field {
                value,
                field: FieldName::Named(method),
            } => {
                self.expr(value);
                self.member_access(value, method, true);
                let signature = if matches!(value.kind, ExprKind::SelfValue) {
                    self.current_struct
                        .as_ref()
                        .and_then(|(_, m)| m.methods.get(&method.text))
                        .cloned()
                } else if !self.module.member_names.contains(&method.text) {
                    match self.module.items.get(&method.text).map(|item| &item.kind) {
                        Some(ModuleItemKind::Prelude(signature)) => {
                            // `x.f(args)` means `f(x, args)`.
                            signature.check_call(1, args, call.range, &mut self.diagnostics);
                            None
                        }
                        _ => None,
                    }
                } else {
                    None
                };
                if let Some(signature) = signature {
                    signature.check_call(0, args, call.range, &mut self.diagnostics);
                }
            }
            _ => self.expr(callee),
        }
        for arg in args {
            self.expr(&arg.value);
        }
    }

    /// Checks `value.name` (`is_call`: `value.name(...)`).
    fn member_access(&mut self, value: &ast::Expr, name: &ast::Name, is_call: bool) {
        if matches!(value.kind, ExprKind::SelfValue) {
            let Some((struct_name, members)) = &self.current_struct else {
                return;
            };
            if !members.contains(&name.text) {
                let candidates: Vec<&str> = members
                    .fields
                    .iter()
                    .chain(&members.params)
                    .map(String::as_str)
                    .chain(members.methods.keys().map(String::as_str))
                    .collect();
                self.diagnostics.push(Diagnostic::new(
                    Code::UnknownField,
                    name.range,
                    format!(
                        "`{struct_name}` has no field, parameter or method named `{}`{}",
                        name.text,
                        did_you_mean(&name.text, candidates)
                    ),
                ));
            }
            return;
        }
        let known = self.module.member_names.contains(&name.text)
            || TENSOR_PROPERTIES.contains(&name.text.as_str())
            || (is_call
                && matches!(
                    self.module.items.get(&name.text).map(|i| &i.kind),
                    Some(ModuleItemKind::Prelude(_))
                ));
        if known || self.names_in_errors.contains(&name.text) {
            return;
        }
        let message = if is_call {
            format!(
                "unknown method `{}`: no prelude operation or struct method has this name{}",
                name.text,
                self.member_suggestion(&name.text, true)
            )
        } else {
            format!(
                "unknown field `{}`: tensors have `shape` and `rank`, and no struct has a member of this name{}",
                name.text,
                self.member_suggestion(&name.text, false)
            )
        };
        let code = if is_call {
            Code::UnknownFunction
        } else {
            Code::UnknownField
        };
        self.diagnostics
            .push(Diagnostic::new(code, name.range, message));
    }

    fn member_suggestion(&mut self, name: &str, is_call: bool) -> String {
        if !self.take_suggestion() {
            return String::new();
        }
        let prelude_ops = self
            .module
            .items
            .iter()
            .filter(|(_, item)| is_call && matches!(item.kind, ModuleItemKind::Prelude(_)))
            .map(|(name, _)| name.as_str());
        let candidates = self
            .module
            .member_names
            .iter()
            .map(String::as_str)
            .chain(TENSOR_PROPERTIES.iter().copied())
            .chain(prelude_ops);
        did_you_mean(name, candidates)
    }

    // ---------------------------------------------------------------- names

    fn collecting_indices(&self) -> bool {
        self.scopes.iter().any(|s| s.collects_indices)
    }

    /// A bare subscript in index notation: an index variable, declared by
    /// its first use in the innermost index-collecting scope.
    fn use_index(&mut self, name: &str, range: TextRange) {
        if let Resolved::Local(id) = self.resolve(name) {
            if self.bindings[id].kind == BindingKind::IndexVar {
                return;
            }
        }
        let scope = self
            .scopes
            .iter()
            .rposition(|s| s.collects_indices)
            .expect("collecting indices");
        let id = self.bindings.len();
        self.bindings.push(Binding {
            name: name.to_owned(),
            kind: BindingKind::IndexVar,
            range,
        });
        self.scopes[scope].names.insert(name.to_owned(), id);
    }

    fn use_name(&mut self, name: &str, range: TextRange) {
        match self.resolve(name) {
            Resolved::Local(id) => self.read_local(id, range),
            // `const n = n + 1` has no value. Names are checked one item at
            // a time, so a cycle through other constants is not seen here.
            Resolved::Module(ModuleItemKind::Const, _)
                if self.current_constant.as_deref() == Some(name) =>
            {
                self.diagnostics.push(Diagnostic::new(
                    Code::CyclicConstant,
                    range,
                    format!("`{name}` is defined in terms of itself, so it has no value"),
                ));
            }
            Resolved::Module(..) => {}
            Resolved::Unresolved => {
                if !self.names_in_errors.contains(name) {
                    let hint = self.suggestion(name);
                    self.diagnostics.push(Diagnostic::new(
                        Code::UndeclaredName,
                        range,
                        format!("`{name}` is not declared{hint}"),
                    ));
                }
            }
        }
    }

    fn read_local(&mut self, id: BindingId, range: TextRange) {
        if self.bindings[id].kind == BindingKind::Var {
            self.check_initialized(id, range);
        }
    }

    fn check_initialized(&mut self, id: BindingId, range: TextRange) {
        let Some(assigned) = &self.assigned else {
            return;
        };
        if assigned.contains(&id) || self.reported_uninitialized.contains(&id) {
            return;
        }
        self.reported_uninitialized.insert(id);
        let binding = &self.bindings[id];
        self.diagnostics.push(
            Diagnostic::new(
                Code::UninitializedRead,
                range,
                format!(
                    "`{}` is read before it is initialized on some path",
                    binding.name
                ),
            )
            .with_related(
                binding.range,
                format!("`{}` is declared here without a value", binding.name),
            ),
        );
    }

    fn mark_assigned(&mut self, id: BindingId) {
        if let Some(assigned) = &mut self.assigned {
            assigned.insert(id);
        }
    }

    fn resolve(&self, name: &str) -> Resolved<'a> {
        for scope in self.scopes.iter().rev() {
            if let Some(&id) = scope.names.get(name) {
                return Resolved::Local(id);
            }
        }
        match self.module.items.get(name) {
            Some(item) => Resolved::Module(&item.kind, item.range),
            None => Resolved::Unresolved,
        }
    }

    fn declare(&mut self, name: &str, kind: BindingKind, range: TextRange) -> BindingId {
        let scope = self
            .scopes
            .last_mut()
            .expect("a scope is always open while checking");
        if let Some(&previous) = scope.names.get(name) {
            let first = &self.bindings[previous];
            let diagnostic = Diagnostic::new(
                Code::RedeclaredName,
                range,
                format!("`{name}` is already declared in this scope"),
            )
            .with_related(first.range, format!("`{name}` is first declared here"));
            self.diagnostics.push(diagnostic);
        }
        let id = self.bindings.len();
        self.bindings.push(Binding {
            name: name.to_owned(),
            kind,
            range,
        });
        self.scopes
            .last_mut()
            .expect("scope")
            .names
            .insert(name.to_owned(), id);
        id
    }

    fn take_suggestion(&mut self) -> bool {
        let available = self.suggestions_left > 0;
        self.suggestions_left = self.suggestions_left.saturating_sub(1);
        available
    }

    fn suggestion(&mut self, name: &str) -> String {
        if !self.take_suggestion() {
            return String::new();
        }
        let locals = self
            .scopes
            .iter()
            .flat_map(|s| s.names.keys().map(String::as_str));
        let items = self.module.items.keys().map(String::as_str);
        did_you_mean(name, locals.chain(items))
    }
}

/// `x.shape[i]` and `x.size()[i]` index a shape, not a tensor.
fn is_shape_like(value: &ast::Expr) -> bool {
    match &value.kind {
        ExprKind::Field {
            field: FieldName::Named(name),
            ..
        } => name.text == "shape",
        ExprKind::Call { callee, .. } => matches!(
            &callee.kind,
            ExprKind::Field { field: FieldName::Named(name), .. } if name.text == "size"
        ),
        _ => false,
    }
}

/// What is assigned after an `if`: assigned on both branches, where a
/// branch that cannot finish (it returned) does not count.
fn join(a: Assigned, b: Assigned) -> Assigned {
    match (a, b) {
        (None, other) | (other, None) => other,
        (Some(a), Some(b)) => Some(a.intersection(&b).copied().collect()),
    }
}
