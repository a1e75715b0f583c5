//! Statements: blocks and bodies, `let`/`var` and assignments, `assert`,
//! both branches of an `if` under their path conditions and the join of
//! what they leave, annotations.

use std::collections::HashMap;

use tensorfit_base::TextRange;
use tensorfit_solver::{Formula, Term};
use tensorfit_syntax::ast::{self, ExprKind, Pattern, StmtKind};

use super::loops::Iteration;
use super::{describe_type, truth, BranchOrigin, Frame, Merge, Slot};
use crate::shapes::conditions::ConditionRecord;
use crate::shapes::fact::{Explain, FactKind, ShapeClaim};
use crate::shapes::limits::LimitKind;
use crate::shapes::value::{Instance, Shape, Value};

/// How many iterations of a loop with known bounds run one by one; a
/// longer one is summarised by the loop rule.
const MAX_UNROLLED: i64 = 64;

/// The number of iterations of `for i in s..e` when both are known and
/// there are at most [`MAX_UNROLLED`].
fn unrolled_count(s: &Term, e: &Term) -> Option<i64> {
    let count = e.as_const()?.checked_sub(s.as_const()?)?;
    (count <= MAX_UNROLLED).then_some(count.max(0))
}

/// How much of a condition a message prints before it cuts it.
const WHERE_CHARS: usize = 100;

impl<'f, 'a> Frame<'f, 'a> {
    pub fn block(&mut self, stmts: &[ast::Stmt]) {
        self.scopes.push(HashMap::new());
        for stmt in stmts {
            if self.returned {
                break;
            }
            self.stmt(stmt);
        }
        self.scopes.pop();
    }

    /// Runs the statements of a body (no new scope: parameters share it).
    pub fn body(&mut self, stmts: &[ast::Stmt]) {
        for stmt in stmts {
            if self.returned {
                break;
            }
            if self.opening && !matches!(stmt.kind, StmtKind::Assert { .. }) {
                self.opening = false;
                self.precondition_facts = Some(self.facts.len());
            }
            self.stmt(stmt);
        }
    }

    pub(super) fn stmt(&mut self, stmt: &ast::Stmt) {
        // Past the budget a body says nothing (its analysis is dropped),
        // so nothing more of it runs: an empty loop costs a step too.
        if !self.step(1) {
            return;
        }
        match &stmt.kind {
            StmtKind::Let { pattern, ty, value }
            | StmtKind::Var {
                pattern,
                ty,
                value: Some(value),
            } => {
                let v = match (pattern, &value.kind) {
                    (Pattern::Index { indices, .. }, _) => self.index_statement(
                        crate::shapes::kernels::Target {
                            indices: std::borrow::Cow::Borrowed(indices),
                            existing: None,
                        },
                        value,
                    ),
                    // `let m = e |-> [...]`: the claim is about `m`.
                    (
                        Pattern::Name(name),
                        ExprKind::ShapeAssert {
                            value: inner,
                            pattern: dims,
                            ..
                        },
                    ) => {
                        let v = self.expr(inner);
                        self.shape_assertion(&v, name.text.clone(), dims, value.range);
                        self.refine(v)
                    }
                    _ => self.expr(value),
                };
                if let Some(ty) = ty {
                    let subject = match pattern {
                        Pattern::Name(name) => name.text.clone(),
                        _ => self.describe(value),
                    };
                    self.check_annotation(&v, ty, &subject, stmt.range);
                }
                self.bind_pattern(pattern, v, ty.clone());
            }
            StmtKind::Var {
                pattern,
                ty,
                value: None,
            } => {
                if let Pattern::Name(name) = pattern {
                    self.bind(&name.text, Value::Unknown, ty.clone());
                }
            }
            StmtKind::Assign { target, op, value } => {
                if let Some(target) = self.kernel_target(target) {
                    // `A[j] += …`, `A[i, j] = …`: index notation into an
                    // existing tensor, which keeps its shape.
                    self.index_statement(target, value);
                    return;
                }
                let v = self.expr(value);
                let v = match (&target.kind, op) {
                    (ExprKind::Name(name), ast::AssignOp::AddAssign) => {
                        let old = self.bound_value(name).cloned().unwrap_or(Value::Unknown);
                        added_in_place(old, v)
                    }
                    _ => v,
                };
                if let ExprKind::Name(name) = &target.kind {
                    let declared = self.assign(name, v.clone());
                    if let Some(ty) = declared {
                        self.check_annotation(&v, &ty, name, stmt.range);
                    }
                    self.record(name, target.range, &v);
                }
            }
            StmtKind::Assert {
                condition, guard, ..
            } => {
                let formula = self.condition(condition);
                // A Python guard is assumed even at the opening: a function
                // that always raises there (`__setattr__` of a frozen
                // object) is no error until something calls it.
                let kind = if *guard && self.function.is_some() {
                    FactKind::Guard
                } else if self.opening && self.function.is_some() {
                    FactKind::Precondition
                } else {
                    FactKind::Claim
                };
                let explain = match guard {
                    true => self.explain_guard(condition),
                    false => self.explain_assertion(condition),
                };
                self.require(formula, kind, stmt.range, explain);
            }
            StmtKind::If {
                condition,
                then_branch,
                else_branch,
            } => {
                let reads_before = self.shape_reads;
                // A condition on a value nothing is known of (Python's
                // `isinstance(x, int)`, an attribute of an unknown object)
                // decides paths the program may never take: what fails on
                // them is no proof of an error, so their facts are only
                // assumed.
                let value = self.expr(condition);
                let (c, opaque) = match self.truthiness(&value) {
                    Some(f) => (f, false),
                    None => (self.opaque_condition(), true),
                };
                if self.constructing == 0 {
                    self.conditions.push(ConditionRecord {
                        range: condition.range,
                        statement: stmt.range,
                        then_branch: then_branch.range,
                        else_branch: else_branch.as_ref().map(|e| match e {
                            ast::ElseBranch::Block(block) => block.range,
                            ast::ElseBranch::If(nested) => nested.range,
                        }),
                        formula: c.clone(),
                        guard: self.guard.clone(),
                        reads_shapes: self.shape_reads > reads_before,
                    });
                }
                let text = self.describe(condition);
                let origin = BranchOrigin {
                    at: condition.range,
                    when_true: format!("`{text}` is true"),
                    when_false: format!("`{text}` is false"),
                };
                self.branch(
                    c,
                    origin,
                    |this| this.on_path(opaque, |this| this.block(&then_branch.stmts)),
                    |this| {
                        this.on_path(opaque, |this| match else_branch {
                            Some(ast::ElseBranch::Block(block)) => this.block(&block.stmts),
                            Some(ast::ElseBranch::If(nested)) => this.stmt(nested),
                            None => {}
                        })
                    },
                );
            }
            StmtKind::For {
                variable,
                start,
                end,
                body,
            } => {
                let s = self.opaque_int(start);
                let e = self.opaque_int(end);
                if let Some(count) = unrolled_count(&s, &e) {
                    // Known bounds (Python's `for i in range(3)`, and every
                    // loop of a constructor called with numbers): each
                    // iteration runs, which is exact.
                    let first = s.as_const().unwrap_or(0);
                    // A body that does not read the loop's variable and
                    // leaves the state as it found it would do the same
                    // again: the iterations after it add nothing (nested
                    // loops over `range(k)` that change no shape cost
                    // their depth, not k to the depth).
                    let same_each_time = !variable
                        .as_ref()
                        .is_some_and(|v| self.reads_name(&body.stmts, &v.text));
                    for k in 0..count {
                        if self.returned || !self.step(1) {
                            break;
                        }
                        let before = same_each_time.then(|| self.loop_state());
                        self.scopes.push(HashMap::new());
                        if let Some(v) = variable {
                            self.bind(&v.text, Value::Int(Term::int(first + k)), None);
                        }
                        self.block(&body.stmts);
                        self.scopes.pop();
                        if before.is_some_and(|before| self.loop_state_is(&before)) {
                            break;
                        }
                    }
                    return;
                }
                // A container or module the loop builds is lost over a
                // count a call's numbers may know (RegNet's `for i in
                // range(depth): self.add_module(...)`).
                let built_before = self.containers_assigned_in(&body.stmts);
                let entered = Formula::lt(&s, &e);
                let again = |_: &mut Self| Formula::lt(&Term::add(&s, &Term::int(1)), &e);
                self.run_loop(
                    entered,
                    stmt.range,
                    &body.stmts,
                    again,
                    |this, iteration| {
                        let i = match iteration {
                            Iteration::First => s.clone(),
                            Iteration::Second => Term::add(&s, &Term::int(1)),
                            Iteration::Last => {
                                let i = this.fresh_int();
                                this.assume(
                                    Formula::and([Formula::le(&s, &i), Formula::lt(&i, &e)]),
                                    stmt.range,
                                );
                                i
                            }
                        };
                        this.scopes.push(HashMap::new());
                        if let Some(v) = variable {
                            this.bind(&v.text, Value::Int(i), None);
                        }
                        this.block(&body.stmts);
                        this.scopes.pop();
                    },
                );
                let lost = built_before
                    .iter()
                    .any(|name| matches!(self.bound_value(name), Some(Value::Unknown)));
                if lost && self.analysis.semantics.calls_redo_with_known_numbers {
                    self.numbers_decide = true;
                }
            }
            StmtKind::While { condition, body } => {
                let entered = self.opaque_or_condition(condition);
                let again = |this: &mut Self| this.opaque_or_condition(condition);
                self.run_loop(entered, stmt.range, &body.stmts, again, |this, _| {
                    this.block(&body.stmts)
                });
            }
            StmtKind::Return(value) => {
                let v = value.as_ref().map(|v| self.expr(v)).unwrap_or(Value::None);
                if let (Some(ty), Some(expr)) = (self.result_type.clone(), value) {
                    self.check_result(&v, &ty, &self.describe(expr), stmt.range);
                }
                self.returns.push(self.exit(v));
                self.returned = true;
            }
            StmtKind::Expr(expr) => {
                self.expr(expr);
            }
        }
    }

    /// A condition whose value nothing is known of ([`Analysis::opaque_vars`]).
    pub(in crate::shapes) fn opaque_condition(&mut self) -> Formula {
        let v = self.analysis.vars.fresh();
        self.analysis.opaque_vars.borrow_mut().insert(v);
        Formula::var(v)
    }

    fn opaque_or_condition(&mut self, condition: &ast::Expr) -> Formula {
        match self.expr(condition) {
            Value::Bool(f) => f,
            _ => self.opaque_condition(),
        }
    }

    /// An integer (a loop bound); one nothing is known of is opaque
    /// ([`Analysis::opaque_vars`]): `for x in items` of an unknown list.
    fn opaque_int(&mut self, expr: &ast::Expr) -> Term {
        match self.expr(expr) {
            Value::Int(t) => t,
            _ => {
                let v = self.analysis.vars.fresh();
                self.analysis.opaque_vars.borrow_mut().insert(v);
                Term::var(v)
            }
        }
    }

    /// Runs `run`; with `opaque`, on a path of an unknown condition, whose
    /// facts are assumed, not checked.
    fn on_path(&mut self, opaque: bool, run: impl FnOnce(&mut Self)) {
        let saved = self.assume_only;
        self.assume_only |= opaque;
        run(self);
        self.assume_only = saved;
    }

    /// `assertion `a == b` does not hold: a = 10, b = 30`, naming the value
    /// of every operand that is not a literal.
    pub(super) fn explain_assertion(&mut self, condition: &ast::Expr) -> Explain {
        let template = format!("assertion `{}` does not hold", self.describe(condition));
        self.explain_condition(template, condition)
    }

    /// `if x.size(-1) % n_head != 0: raise` runs: x.size(-1) % n_head = 2`:
    /// a Python guard (the negation of the `if`'s condition) that fails.
    fn explain_guard(&mut self, condition: &ast::Expr) -> Explain {
        match &condition.kind {
            ExprKind::Unary {
                op: ast::UnaryOp::Not,
                operand,
            } => {
                let template = format!("`if {}: raise` raises", self.describe(operand));
                self.explain_condition(template, operand)
            }
            _ => {
                let template = format!(
                    "`{}` is false, so the `raise` runs",
                    self.describe(condition)
                );
                self.explain_condition(template, condition)
            }
        }
    }

    /// `where c % (r * r) == 0` does not hold: c % (r * r) = 2`: a
    /// declaration's requirement, written in full (a clause is short), with
    /// its operands' values.
    pub(in crate::shapes) fn explain_where(&mut self, clause: &ast::Expr) -> Explain {
        let template = format!(
            "`where {}` does not hold",
            tensorfit_syntax::print::expr_within(clause, WHERE_CHARS)
        );
        self.explain_condition(template, clause)
    }

    fn explain_condition(&mut self, mut template: String, condition: &ast::Expr) -> Explain {
        let mut terms = Vec::new();
        if let ExprKind::Compare { operands, .. } = &condition.kind {
            let mut shown = Vec::new();
            for operand in operands {
                if matches!(operand.kind, ExprKind::Int(_)) {
                    continue;
                }
                if let Value::Int(term) = self.expr(operand) {
                    shown.push(format!(
                        "{} = {{}}",
                        tensorfit_syntax::print::expr_within(operand, WHERE_CHARS)
                    ));
                    terms.push(term);
                }
            }
            if !shown.is_empty() {
                template = format!("{template}: {}", shown.join(", "));
            }
        }
        Explain::Text { template, terms }
    }

    /// Runs both branches under their conditions and joins what follows.
    /// `origin` names the two paths, for the errors about values merged
    /// after them.
    pub(super) fn branch(
        &mut self,
        c: Formula,
        origin: BranchOrigin,
        then: impl FnOnce(&mut Self),
        otherwise: impl FnOnce(&mut Self),
    ) {
        match truth(&c) {
            Some(true) => return then(self),
            Some(false) => return otherwise(self),
            None => {}
        }
        // Both paths start from a copy of the scopes, and the join walks
        // them: a branch costs what it copies.
        if !self.step(self.slots()) {
            return;
        }
        let before_scopes = self.scopes.clone();
        let before_guard = self.guard.clone();
        let before_learnt = self.learnt.clone();

        self.guard.push(c.clone());
        then(self);
        // What the path that leaves the branch went through: its condition,
        // and the conditions under which a nested branch did not return
        // (`if a: if b: return` goes on only where `!(a && b)`).
        let then_path = self.path_since(before_guard.len(), &c);
        let then_scopes = std::mem::replace(&mut self.scopes, before_scopes);
        let then_returned = std::mem::replace(&mut self.returned, false);
        self.learnt = before_learnt.clone();

        self.guard = before_guard.clone();
        let not_c = Formula::not(&c);
        self.guard.push(not_c.clone());
        otherwise(self);
        let else_path = self.path_since(before_guard.len(), &not_c);
        let else_returned = self.returned;
        self.learnt = before_learnt;

        match (then_returned, else_returned) {
            (true, true) => self.returned = true,
            // Only the else path continues: keep its scopes and condition.
            (true, false) => {}
            (false, true) => {
                self.scopes = then_scopes;
                self.guard = before_guard;
                self.guard.extend(then_path);
                self.returned = false;
            }
            (false, false) => {
                self.guard = before_guard;
                if then_path.len() > 1 || else_path.len() > 1 {
                    self.guard.push(Formula::or([
                        Formula::and(then_path),
                        Formula::and(else_path),
                    ]));
                }
                let else_scopes = std::mem::take(&mut self.scopes);
                self.note_merge(Merge {
                    condition: c.clone(),
                    origin,
                });
                self.scopes = self.join_scopes(&c, then_scopes, else_scopes);
            }
        }
    }

    /// The conditions a branch's path added to the guard since it had
    /// `start` of them, or just the branch's own condition where the
    /// guard is not that path's (it was reset below `start`).
    fn path_since(&self, start: usize, condition: &Formula) -> Vec<Formula> {
        match self.guard.get(start..) {
            Some(path) if !path.is_empty() => path.to_vec(),
            _ => vec![condition.clone()],
        }
    }

    pub(super) fn join_scopes(
        &mut self,
        c: &Formula,
        then_scopes: Vec<HashMap<String, Slot>>,
        mut else_scopes: Vec<HashMap<String, Slot>>,
    ) -> Vec<HashMap<String, Slot>> {
        // The else path's maps, changed in place: a method's scope holds
        // every `self.<field>` its class set, and a branch changes few.
        for (then_scope, else_scope) in then_scopes.iter().zip(&mut else_scopes) {
            for (name, slot) in else_scope.iter_mut() {
                if let Some(then_slot) = then_scope.get(name) {
                    slot.value = if then_slot.value == slot.value {
                        // Moved, not copied: most names at a join.
                        let same = std::mem::replace(&mut slot.value, Value::Unknown);
                        self.merge_same(c, same)
                    } else {
                        self.merge(c, &then_slot.value, &slot.value)
                    };
                }
                slot.defined = None;
            }
        }
        else_scopes
    }

    /// The value that is `a` when `c` holds and `b` otherwise; unknown
    /// when that value would be too large (a loop full of branches merges
    /// its values again at each one).
    pub(super) fn merge(&mut self, c: &Formula, a: &Value, b: &Value) -> Value {
        let merged = self.merge_values(c, a, b);
        let both_unknown = matches!((a, b), (Value::Unknown, Value::Unknown));
        self.merged_within_limits(c, merged, both_unknown)
    }

    /// [`Self::merge`] of a value with itself, without copying it.
    fn merge_same(&mut self, c: &Formula, value: Value) -> Value {
        let both_unknown = matches!(value, Value::Unknown);
        let merged = match value {
            // Its merged formula is spelt out (see `merge_values`).
            Value::Bool(_) => self.merge_values(c, &value, &value),
            value => self.refine(value),
        };
        self.merged_within_limits(c, merged, both_unknown)
    }

    fn merged_within_limits(&mut self, c: &Formula, merged: Value, both_unknown: bool) -> Value {
        if merged.too_large() {
            self.analysis.hit(LimitKind::TermSize);
            return Value::Unknown;
        }
        // Lost over a condition the function's placeholders decide
        // (DenseNet's `if self.memory_efficient and ...` with a flag of
        // `self`): a call's known values decide it.
        let lost = matches!(merged, Value::Unknown) && !both_unknown;
        if lost
            && self.analysis.semantics.calls_redo_with_known_numbers
            && self.placeholders_decide(c)
        {
            self.numbers_decide = true;
        }
        merged
    }

    /// Whether a condition is on the function's placeholders only (no
    /// value nothing is known of).
    fn placeholders_decide(&self, c: &Formula) -> bool {
        let vars = tensorfit_solver::components::variables(c);
        let opaque = self.analysis.opaque_vars.borrow();
        !vars.is_empty() && vars.iter().all(|v| !opaque.contains(v))
    }

    fn merge_values(&mut self, c: &Formula, a: &Value, b: &Value) -> Value {
        // The same value on both paths (most names at a join) is itself,
        // as the cases below would make it (`ite(c, x, x)` is `x`), but
        // for a `Bool`, whose merged formula they spell out.
        if a == b && !matches!(a, Value::Bool(_)) {
            return self.refine(a.clone());
        }
        // Items that differ between the paths: the tensors' shapes.
        if a != b && (a.holds_elements() || b.holds_elements()) {
            let (a, b) = (a.clone().without_elements(), b.clone().without_elements());
            return self.merge_values(c, &a, &b);
        }
        let (a, b) = (self.refined(a), self.refined(b));
        let (a, b) = (a.as_ref(), b.as_ref());
        match (a, b) {
            (Value::Int(x), Value::Int(y)) => Value::Int(Term::ite(c, x, y)),
            (Value::Bool(x), Value::Bool(y)) => Value::Bool(Formula::or([
                Formula::and([c.clone(), x.clone()]),
                Formula::and([Formula::not(c), y.clone()]),
            ])),
            (Value::Tensor(x), Value::Tensor(y)) | (Value::Shape(x), Value::Shape(y)) => {
                let shape = match (x.dims(), y.dims()) {
                    (Some(xd), Some(yd)) if xd.len() == yd.len() => {
                        Shape::known(xd.iter().zip(yd).map(|(p, q)| Term::ite(c, p, q)).collect())
                    }
                    _ if x == y => x.clone(),
                    // Decided where the condition is known (at a call).
                    _ if matches!(a, Value::Tensor(_)) => {
                        let bound = vec![
                            (
                                "condition".to_owned(),
                                Value::Bool(c.clone()),
                                String::new(),
                            ),
                            ("input".to_owned(), a.clone(), String::new()),
                            ("other".to_owned(), b.clone(), String::new()),
                        ];
                        return self.defer("select", bound, TextRange::default());
                    }
                    _ => Shape::opaque(self.analysis.vars.fresh()),
                };
                if matches!(a, Value::Tensor(_)) {
                    Value::Tensor(shape)
                } else {
                    Value::Shape(shape)
                }
            }
            (Value::Float(x), Value::Float(y)) => Value::Float(if x == y { *x } else { None }),
            _ if a == b => a.clone(),
            (Value::List(x), Value::List(y)) if x.len() == y.len() => Value::List(
                x.iter()
                    .zip(y)
                    .map(|(p, q)| self.merge_values(c, p, q))
                    .collect(),
            ),
            // A dict with a key set on one path only (`kwargs["init_weights"]
            // = False` under `if weights is not None`): the key's value is
            // unknown, which covers its absence too (a parameter left to
            // its default takes a value the unknown one includes).
            (Value::Instance(x), Value::Instance(y)) if x.is_dict() && y.is_dict() => {
                let mut names: Vec<&String> = x.fields.iter().map(|(n, _)| n).collect();
                for (n, _) in &y.fields {
                    if !names.contains(&n) {
                        names.push(n);
                    }
                }
                let member = |d: &Instance, n: &str| d.member(n).cloned();
                let fields = names
                    .into_iter()
                    .map(|n| {
                        let value = match (member(x, n), member(y, n)) {
                            (Some(p), Some(q)) => self.merge_values(c, &p, &q),
                            _ => Value::Unknown,
                        };
                        (n.clone(), value)
                    })
                    .collect();
                Instance::dict(fields)
            }
            _ => Value::Unknown,
        }
    }

    pub(super) fn bind_pattern(
        &mut self,
        pattern: &Pattern,
        value: Value,
        declared: Option<ast::Type>,
    ) {
        match pattern {
            Pattern::Name(name) => {
                // Hidden names (`$tmp1`, a front end's temporaries) name
                // nothing users see.
                match &value {
                    Value::Int(term) if self.names_terms && !name.text.starts_with('$') => {
                        self.analysis.name_term(term, &name.text)
                    }
                    _ => {}
                }
                self.record(&name.text, name.range, &value);
                self.define(&name.text, value, declared, name.range);
            }
            Pattern::Tuple { elements, range } => {
                let items = match value {
                    Value::Tuple(items) | Value::List(items) if items.len() == elements.len() => {
                        items
                    }
                    Value::Shape(shape) => self.unpack_shape(&shape, elements.len(), *range),
                    _ => vec![Value::Unknown; elements.len()],
                };
                for (element, item) in elements.iter().zip(items) {
                    self.bind_pattern(element, item, None);
                }
            }
            Pattern::Index { name, .. } => {
                self.record(&name.text, name.range, &value);
                self.define(&name.text, value, declared, name.range);
            }
            Pattern::Missing(_) => {}
        }
    }

    /// `let (b, t, c) = x.shape` (Python's `B, T, C = x.size()`): the shape
    /// has exactly as many dimensions as there are names (Python raises
    /// otherwise), and each name is its dimension. Of a shape whose rank is
    /// not known here, this states the rank, as indexing states a lower
    /// bound, so that the rest of the function knows the dimensions.
    fn unpack_shape(&mut self, shape: &Shape, count: usize, range: TextRange) -> Vec<Value> {
        let rank = shape.rank();
        self.require(
            Formula::eq(&rank, &Term::int(count as i64)),
            FactKind::Precondition,
            range,
            Explain::Text {
                template: format!("a shape of {{}} dimensions is unpacked into {count} names"),
                terms: vec![rank],
            },
        );
        let shape = self.refine_shape(shape);
        (0..count)
            .map(|i| match shape.dim(i as i64) {
                Some(dim) => Value::Int(dim),
                None => Value::Unknown,
            })
            .collect()
    }

    /// A function whose result type is a tensor (or a tuple) must not
    /// reach the end of its body: on a path that does, it returns nothing.
    pub fn require_return_at_end(&mut self, body: &ast::Block) {
        let Some(ty) = self.result_type.clone() else {
            return;
        };
        let returns_tensors = matches!(
            ty.kind,
            ast::TypeKind::Tensor { .. } | ast::TypeKind::Tuple(_)
        );
        if self.returned || !returns_tensors {
            return;
        }
        let end = body.range.end as usize;
        let function = self.function.clone().unwrap_or_default();
        self.require(
            Formula::truth(false),
            FactKind::Claim,
            TextRange::new(end.saturating_sub(1), end),
            Explain::Text {
                template: format!(
                    "`{function}` can reach the end of its body without `return`, but its result type is {}",
                    describe_type(&ty)
                ),
                terms: Vec::new(),
            },
        );
    }

    /// `let x: T = v`: the value must fit the annotation.
    pub(super) fn check_annotation(
        &mut self,
        value: &Value,
        ty: &ast::Type,
        subject: &str,
        range: TextRange,
    ) {
        self.check_claimed_shape(value, ty, subject, range, ShapeClaim::Asserted);
    }

    /// `return v` in a function with a result type: the value must have
    /// it. Names of the type not bound by the signature stand for this
    /// `return` alone (two paths may return different extents for them).
    fn check_result(&mut self, value: &Value, ty: &ast::Type, subject: &str, range: TextRange) {
        let function = self.function.clone().unwrap_or_default();
        self.scopes.push(HashMap::new());
        match (value, &ty.kind) {
            (Value::Tuple(values), ast::TypeKind::Tuple(types)) if values.len() == types.len() => {
                for (i, (value, ty)) in values.iter().zip(types).enumerate() {
                    let subject = format!("{subject}.{i}");
                    let claim = ShapeClaim::ResultOf(function.clone());
                    self.check_claimed_shape(value, ty, &subject, range, claim);
                }
            }
            _ => {
                self.check_claimed_shape(value, ty, subject, range, ShapeClaim::ResultOf(function))
            }
        }
        self.scopes.pop();
    }

    fn check_claimed_shape(
        &mut self,
        value: &Value,
        ty: &ast::Type,
        subject: &str,
        range: TextRange,
        claim: ShapeClaim,
    ) {
        let Some(shape) = value
            .tensor_shape()
            .filter(|_| matches!(value, Value::Tensor(_)))
        else {
            return;
        };
        let ast::TypeKind::Tensor { dims: Some(dims) } = &ty.kind else {
            return;
        };
        let shape = self.refine_shape(&shape);
        // Dimensions before a segment `..s` are matched from the front,
        // those after it from the back; the segment itself is not checked.
        let segment = dims
            .iter()
            .position(|d| matches!(d, ast::Dim::Segment { .. }));
        let (front, back) = match segment {
            Some(at) => (&dims[..at], &dims[at + 1..]),
            None => (dims.as_slice(), &dims[..0]),
        };
        let fixed = Term::int((front.len() + back.len()) as i64);
        let mut parts = vec![match segment {
            Some(_) => Formula::ge(&shape.rank(), &fixed),
            None => Formula::eq(&shape.rank(), &fixed),
        }];
        let positions = (0..front.len() as i64).chain(-(back.len() as i64)..0);
        for (dim, position) in front.iter().chain(back).zip(positions) {
            let ast::Dim::Expr(expr) = dim else {
                continue;
            };
            // Under a rank that differs, the dimension is meaningless; the
            // rank part above already fails then.
            let Some(term) = shape.dim(position) else {
                continue;
            };
            match &expr.kind {
                ExprKind::Name(name)
                    if self.lookup(name).is_none()
                        && self.analysis.program.constant(name).is_none() =>
                {
                    self.bind(name, Value::Int(term.clone()), None);
                }
                _ => {
                    let expected = self.int(expr);
                    parts.push(Formula::eq(&term, &expected));
                }
            }
        }
        let claimed = describe_type(ty);
        self.require_claim(
            parts,
            range,
            Explain::Shape {
                subject: subject.to_owned(),
                actual: shape,
                claimed,
                claim,
            },
        );
    }

    // ----------------------------------------------------------- expressions
}

/// Python's `name += value`: a list or tuple extended (`layers +=
/// [block]`), a number increased (`channels += growth`); a tensor is added
/// to in place and keeps its shape. Anything else is not known.
fn added_in_place(old: Value, value: Value) -> Value {
    match (old, value) {
        (Value::List(mut items), Value::List(more) | Value::Tuple(more)) => {
            items.extend(more);
            Value::List(items)
        }
        (Value::Tuple(mut items), Value::Tuple(more)) => {
            items.extend(more);
            Value::Tuple(items)
        }
        (Value::Int(a), Value::Int(b)) => Value::Int(Term::add(&a, &b)),
        (old @ (Value::Float(_) | Value::Int(_)), value @ (Value::Float(_) | Value::Int(_))) => {
            super::numbers::arithmetic(ast::BinaryOp::Add, &old, &value)
                .unwrap_or(Value::Float(None))
        }
        (tensor @ Value::Tensor(_), _) => tensor,
        (tensor @ Value::Elements(_), _) => tensor.without_elements(),
        _ => Value::Unknown,
    }
}

impl Frame<'_, '_> {
    /// The names a loop body assigns that hold a list, a dict, an object
    /// or a layer before it.
    fn containers_assigned_in(&self, body: &[ast::Stmt]) -> Vec<String> {
        let mut assigned = std::collections::HashSet::new();
        super::loops::assigned_names(body, &mut assigned);
        assigned
            .into_iter()
            .filter(|name| {
                matches!(
                    self.bound_value(name),
                    Some(Value::List(_) | Value::Instance(_) | Value::Layer(_))
                )
            })
            .collect()
    }
}
