//! Symbolic execution of function bodies into facts (section 3.3 of the
//! Tensors Fitting Perfectly paper).
//!
//! A [`Frame`] executes one body: statements in order, both branches of an
//! `if` under their path conditions, a loop as skipped or entered (first and
//! last iteration, the last with fresh loop-carried values), and calls
//! through the callee's [`Summary`], instantiated by substitution.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use tensorfit_base::TextRange;
use tensorfit_solver::{Formula, Term};
use tensorfit_syntax::ast::{
    self, BinaryOp, CompareOp, ExprKind, FieldName, Pattern, StmtKind, UnaryOp,
};

use super::analysis::{Analysis, Summary};
use super::conditions::ConditionRecord;
use super::describe::describe;
use super::fact::{CallSite, Explain, Fact, FactKind, Guard};
use super::limits::{self, LimitKind};
use super::program::FunctionRef;
use super::rules::{self, Args};
use super::substitution::Substitution;
use super::value::{Instance, Layer, Shape, Value};
use crate::signature::{Signature, Source};

mod loops;

/// A tensor whose shape is shown: a binding (hover, JSON `bindings`) or
/// an expression (hover).
#[derive(Clone, Debug, PartialEq)]
pub struct ShapeRecord {
    /// The bound name; `None` for an expression.
    pub name: Option<String>,
    pub range: TextRange,
    pub value: Value,
    pub guard: Guard,
    /// Outermost first: the calls through which a callee's record reached
    /// this frame. Empty for the frame's own records.
    pub via: Vec<CallSite>,
}

/// Records kept per frame (and so per summary): enough for any real
/// function, a bound on memory for generated ones.
const MAX_RECORDS: usize = 20_000;

/// How many calls deep a callee's shapes are carried up into its callers'
/// records. Hover shows a binding's shape at each call that fixes it; past
/// this depth it shows the callee's own (symbolic) shape. Without the
/// bound, a chain of N calls keeps N² records with call paths of length N.
const MAX_RECORD_DEPTH: usize = 12;

/// A rank-dependent prelude operation applied to a tensor of unknown rank
/// while summarising: kept in the summary and applied again at each call,
/// once the arguments' ranks are known (as the paper's summaries keep calls).
#[derive(Clone, Debug, PartialEq)]
pub struct Deferred {
    pub op: String,
    pub args: Vec<(String, Value, String)>,
    /// The opaque shape that stands for the result until then.
    pub result: u32,
    pub range: TextRange,
    pub guard: Guard,
}

#[derive(Clone)]
struct Slot {
    value: Value,
    declared: Option<ast::Type>,
    /// Where the name is bound, for "where each side came from".
    defined: Option<TextRange>,
}

pub struct Frame<'f, 'a> {
    pub analysis: &'f Analysis<'a>,
    pub facts: Vec<Fact>,
    pub guard: Guard,
    scopes: Vec<HashMap<String, Slot>>,
    returns: Vec<(Guard, Value)>,
    /// The function being executed (`None`: the script body).
    pub function: Option<String>,
    self_value: Option<Value>,
    /// Still inside the `assert`s that open the body (its precondition).
    opening: bool,
    /// How many facts the precondition (parameter types, `where` clauses,
    /// opening `assert`s) stated, once the body goes past it.
    pub precondition_facts: Option<usize>,
    /// Facts of this kind are recorded as assumptions instead (used while
    /// evaluating a struct's fields for a method's `self`).
    assume_only: bool,
    known_ranks: HashMap<u32, i64>,
    pub records: Vec<ShapeRecord>,
    /// Inside a struct's field initialisers: their expressions belong to
    /// the struct, not to the function that builds the instance.
    constructing: usize,
    /// The `if`s met, for decided conditions.
    pub conditions: Vec<ConditionRecord>,
    /// Shapes, ranks and sizes read so far (tells conditions on shapes).
    shape_reads: usize,
    returned: bool,
    pub deferred: Vec<Deferred>,
    /// The facts (by index) that are extent equalities of this frame's own
    /// index-notation kernels, for [`super::kernels::bound_warnings`].
    pub kernel_bounds: Vec<usize>,
    /// While applying a callee's deferred operation: the calls it came through.
    via_context: Vec<CallSite>,
    /// The module constants whose values are being evaluated, innermost last.
    evaluating_constants: Vec<String>,
    /// The structs whose instances are being built, innermost last: a
    /// struct met again here contains itself (`recursive-struct`).
    building: Vec<String>,
    /// The assumptions taken over from callees, by path and formula: the
    /// same one met again (every callee in a chain assumes its dimensions
    /// positive) adds nothing but size.
    assumed: HashSet<(Guard, Formula)>,
    /// Steps taken: expressions evaluated, facts and shapes taken over from
    /// callees (bounded by [`limits::STEP_BUDGET`]).
    steps: u64,
    /// Calls of layer instances whose arguments do not fit the layer's
    /// `forward` (reported with the entry point's own diagnostics).
    pub argument_problems: Vec<tensorfit_base::Diagnostic>,
    /// The steps were stopped because the time budget of the entry point
    /// or its file ran out, not by their own budget.
    out_of_time: bool,
}

fn truth(formula: &Formula) -> Option<bool> {
    formula.as_const()
}

impl<'f, 'a> Frame<'f, 'a> {
    pub fn new(analysis: &'f Analysis<'a>, function: Option<String>) -> Self {
        Frame {
            analysis,
            facts: Vec::new(),
            guard: Vec::new(),
            scopes: vec![HashMap::new()],
            returns: Vec::new(),
            function,
            self_value: None,
            opening: true,
            precondition_facts: None,
            assume_only: false,
            known_ranks: HashMap::new(),
            records: Vec::new(),
            constructing: 0,
            conditions: Vec::new(),
            shape_reads: 0,
            returned: false,
            deferred: Vec::new(),
            kernel_bounds: Vec::new(),
            via_context: Vec::new(),
            evaluating_constants: Vec::new(),
            building: Vec::new(),
            assumed: HashSet::new(),
            steps: 0,
            argument_problems: Vec::new(),
            out_of_time: false,
        }
    }

    // ----------------------------------------------------------------- facts

    /// Records that `formula` must hold on the current path.
    pub fn require(
        &mut self,
        formula: Formula,
        kind: FactKind,
        range: TextRange,
        explain: Explain,
    ) {
        let kind = if self.assume_only {
            FactKind::Assumption
        } else {
            kind
        };
        if formula == Formula::truth(true) {
            return;
        }
        self.learn(&formula);
        self.facts.push(Fact {
            guard: self.guard.clone(),
            formula,
            kind,
            range,
            function: self.function.clone(),
            sides: self.sides_of(&explain),
            explain,
            via: self.via_context.clone(),
        });
    }

    /// Whether a callee's fact adds something at this call: always for a
    /// requirement (each is reported where it is stated), once for an
    /// assumption.
    fn is_new(&mut self, kind: FactKind, guard: &Guard, formula: &Formula) -> bool {
        kind != FactKind::Assumption || self.assumed.insert((guard.clone(), formula.clone()))
    }

    /// The definitions of the variables an explanation names (`x` in
    /// `x.shape[1]`), in this function.
    fn sides_of(&self, explain: &Explain) -> Vec<(TextRange, String)> {
        let texts: Vec<&str> = match explain {
            Explain::Equal { left, right, .. } => vec![&left.0, &right.0],
            Explain::Shape { subject, .. } => vec![subject],
            Explain::Text { .. } => vec![],
        };
        let mut sides = Vec::new();
        for text in texts {
            let name: String = text
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            let Some(slot) = self.lookup(&name) else {
                continue;
            };
            let Some(defined) = slot.defined else {
                continue;
            };
            if !sides.iter().any(|(r, _)| *r == defined) {
                sides.push((defined, format!("`{name}` is defined here")));
            }
        }
        sides
    }

    /// Binds a name where the program defines it (a `let`, a parameter).
    pub fn define(&mut self, name: &str, value: Value, declared: Option<ast::Type>, at: TextRange) {
        self.scopes.last_mut().expect("scope").insert(
            name.to_owned(),
            Slot {
                value,
                declared,
                defined: Some(at),
            },
        );
    }

    pub fn assume(&mut self, formula: Formula, range: TextRange) {
        self.require(
            formula,
            FactKind::Assumption,
            range,
            Explain::Text {
                template: String::new(),
                terms: vec![],
            },
        );
    }

    /// Remembers ranks fixed on this path, to spell out opaque shapes.
    fn learn(&mut self, formula: &Formula) {
        let parts: Vec<&Formula> = match formula {
            Formula::And(parts) => parts.iter().collect(),
            other => vec![other],
        };
        for part in parts {
            if let Formula::IsZero(Term::Add(terms)) = part {
                if let [Term::Rank(base), Term::Const(c)] = terms.as_slice() {
                    // A rank past the bound stays opaque (Shape::refine).
                    match c.checked_neg().and_then(limits::spelt_rank) {
                        Some(rank) => {
                            self.known_ranks.insert(*base, rank);
                        }
                        None => self.analysis.hit(LimitKind::Rank),
                    }
                }
            }
        }
    }

    pub fn refine_shape(&self, shape: &Shape) -> Shape {
        shape.refine(&|base| self.known_ranks.get(&base).copied())
    }

    fn refine(&self, value: Value) -> Value {
        match value {
            Value::Tensor(shape) => Value::Tensor(self.refine_shape(&shape)),
            Value::Shape(shape) => Value::Shape(self.refine_shape(&shape)),
            other => other,
        }
    }

    pub fn fresh_int(&self) -> Term {
        Term::var(self.analysis.vars.fresh())
    }

    /// A fresh positive dimension.
    pub fn fresh_dim(&mut self, range: TextRange) -> Term {
        let term = self.fresh_int();
        self.assume(Formula::ge(&term, &Term::int(1)), range);
        term
    }

    // ---------------------------------------------------------------- scopes

    pub fn bind(&mut self, name: &str, value: Value, declared: Option<ast::Type>) {
        self.scopes.last_mut().expect("scope").insert(
            name.to_owned(),
            Slot {
                value,
                declared,
                defined: None,
            },
        );
    }

    /// The value a name is bound to in scope.
    pub(super) fn bound_value(&self, name: &str) -> Option<&Value> {
        self.lookup(name).map(|slot| &slot.value)
    }

    fn lookup(&self, name: &str) -> Option<&Slot> {
        self.scopes.iter().rev().find_map(|s| s.get(name))
    }

    fn assign(&mut self, name: &str, value: Value) -> Option<ast::Type> {
        for scope in self.scopes.iter_mut().rev() {
            if let Some(slot) = scope.get_mut(name) {
                slot.value = value;
                return slot.declared.clone();
            }
        }
        self.bind(name, value, None);
        None
    }

    /// Remembers the shape of a binding, to be shown.
    pub fn record(&mut self, name: &str, range: TextRange, value: &Value) {
        self.push_record(Some(name.to_owned()), range, value);
    }

    fn push_record(&mut self, name: Option<String>, range: TextRange, value: &Value) {
        if matches!(value, Value::Tensor(_)) && self.records.len() < MAX_RECORDS {
            self.records.push(ShapeRecord {
                name,
                range,
                value: value.clone(),
                guard: self.guard.clone(),
                via: Vec::new(),
            });
        }
    }

    pub fn set_self(&mut self, value: Value) {
        self.self_value = Some(value);
    }

    // ------------------------------------------------------------ statements

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

    fn stmt(&mut self, stmt: &ast::Stmt) {
        match &stmt.kind {
            StmtKind::Let { pattern, ty, value }
            | StmtKind::Var {
                pattern,
                ty,
                value: Some(value),
            } => {
                let v = match (pattern, &value.kind) {
                    (Pattern::Index { indices, .. }, _) => self.index_statement(
                        super::kernels::Target {
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
                        _ => describe(value),
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
                if let (ExprKind::Name(name), ast::AssignOp::Assign) = (&target.kind, op) {
                    let declared = self.assign(name, v.clone());
                    if let Some(ty) = declared {
                        self.check_annotation(&v, &ty, name, stmt.range);
                    }
                    self.record(name, target.range, &v);
                }
            }
            StmtKind::Assert { condition, .. } => {
                let formula = self.condition(condition);
                let kind = if self.opening && self.function.is_some() {
                    FactKind::Precondition
                } else {
                    FactKind::Claim
                };
                let explain = self.explain_assertion(condition);
                self.require(formula, kind, stmt.range, explain);
            }
            StmtKind::If {
                condition,
                then_branch,
                else_branch,
            } => {
                let reads_before = self.shape_reads;
                let c = self.condition(condition);
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
                self.branch(
                    c,
                    |this| this.block(&then_branch.stmts),
                    |this| match else_branch {
                        Some(ast::ElseBranch::Block(block)) => this.block(&block.stmts),
                        Some(ast::ElseBranch::If(nested)) => this.stmt(nested),
                        None => {}
                    },
                );
            }
            StmtKind::For {
                variable,
                start,
                end,
                body,
            } => {
                let s = self.int(start);
                let e = self.int(end);
                let entered = Formula::lt(&s, &e);
                self.run_loop(entered, stmt.range, &body.stmts, |this, first| {
                    let i = if first {
                        s.clone()
                    } else {
                        let i = this.fresh_int();
                        this.assume(
                            Formula::and([Formula::le(&s, &i), Formula::lt(&i, &e)]),
                            stmt.range,
                        );
                        i
                    };
                    this.scopes.push(HashMap::new());
                    if let Some(v) = variable {
                        this.bind(&v.text, Value::Int(i), None);
                    }
                    this.block(&body.stmts);
                    this.scopes.pop();
                });
            }
            StmtKind::While { condition, body } => {
                let entered = self.condition(condition);
                self.run_loop(entered, stmt.range, &body.stmts, |this, _| {
                    this.block(&body.stmts)
                });
            }
            StmtKind::Return(value) => {
                let v = value.as_ref().map(|v| self.expr(v)).unwrap_or(Value::None);
                self.returns.push((self.guard.clone(), v));
                self.returned = true;
            }
            StmtKind::Expr(expr) => {
                self.expr(expr);
            }
        }
    }

    /// `assertion `a == b` does not hold: a = 10, b = 30`, naming the value
    /// of every operand that is not a literal.
    fn explain_assertion(&mut self, condition: &ast::Expr) -> Explain {
        let mut template = format!("assertion `{}` does not hold", describe(condition));
        let mut terms = Vec::new();
        if let ExprKind::Compare { operands, .. } = &condition.kind {
            let mut shown = Vec::new();
            for operand in operands {
                if matches!(operand.kind, ExprKind::Int(_)) {
                    continue;
                }
                if let Value::Int(term) = self.expr(operand) {
                    shown.push(format!("{} = {{}}", describe(operand)));
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
    fn branch(
        &mut self,
        c: Formula,
        then: impl FnOnce(&mut Self),
        otherwise: impl FnOnce(&mut Self),
    ) {
        match truth(&c) {
            Some(true) => return then(self),
            Some(false) => return otherwise(self),
            None => {}
        }
        let before_scopes = self.scopes.clone();
        let before_guard = self.guard.clone();
        let before_ranks = self.known_ranks.clone();

        self.guard.push(c.clone());
        then(self);
        let then_scopes = std::mem::replace(&mut self.scopes, before_scopes);
        let then_returned = std::mem::replace(&mut self.returned, false);
        self.known_ranks = before_ranks.clone();

        self.guard = before_guard.clone();
        self.guard.push(Formula::not(&c));
        otherwise(self);
        let else_returned = self.returned;
        self.known_ranks = before_ranks;

        match (then_returned, else_returned) {
            (true, true) => self.returned = true,
            // Only the else path continues: keep its scopes and condition.
            (true, false) => {}
            (false, true) => {
                self.scopes = then_scopes;
                self.guard = before_guard;
                self.guard.push(c);
                self.returned = false;
            }
            (false, false) => {
                self.guard = before_guard;
                let else_scopes = std::mem::take(&mut self.scopes);
                self.scopes = self.join_scopes(&c, then_scopes, else_scopes);
            }
        }
    }

    fn join_scopes(
        &mut self,
        c: &Formula,
        then_scopes: Vec<HashMap<String, Slot>>,
        else_scopes: Vec<HashMap<String, Slot>>,
    ) -> Vec<HashMap<String, Slot>> {
        then_scopes
            .into_iter()
            .zip(else_scopes)
            .map(|(then_scope, else_scope)| {
                else_scope
                    .into_iter()
                    .map(|(name, else_slot)| {
                        let merged = match then_scope.get(&name) {
                            Some(then_slot) => self.merge(c, &then_slot.value, &else_slot.value),
                            None => else_slot.value.clone(),
                        };
                        (
                            name,
                            Slot {
                                value: merged,
                                declared: else_slot.declared,
                                defined: None,
                            },
                        )
                    })
                    .collect()
            })
            .collect()
    }

    /// The value that is `a` when `c` holds and `b` otherwise.
    fn merge(&mut self, c: &Formula, a: &Value, b: &Value) -> Value {
        let (a, b) = (&self.refine(a.clone()), &self.refine(b.clone()));
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
            (Value::Float, Value::Float) => Value::Float,
            _ if a == b => a.clone(),
            _ => Value::Unknown,
        }
    }

    fn bind_pattern(&mut self, pattern: &Pattern, value: Value, declared: Option<ast::Type>) {
        match pattern {
            Pattern::Name(name) => {
                if let Value::Int(term) = &value {
                    self.analysis.name_term(term, &name.text);
                }
                self.record(&name.text, name.range, &value);
                self.define(&name.text, value, declared, name.range);
            }
            Pattern::Tuple { elements, .. } => {
                let items = match value {
                    Value::Tuple(items) | Value::List(items) if items.len() == elements.len() => {
                        items
                    }
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

    /// `let x: T = v`: the value must fit the annotation.
    fn check_annotation(&mut self, value: &Value, ty: &ast::Type, subject: &str, range: TextRange) {
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
        let Some(actual) = shape.dims().map(<[Term]>::to_vec) else {
            return;
        };
        let mut parts = vec![Formula::eq(
            &Term::int(actual.len() as i64),
            &Term::int(dims.len() as i64),
        )];
        if actual.len() == dims.len() {
            for (dim, term) in dims.iter().zip(&actual) {
                if let ast::Dim::Expr(expr) = dim {
                    match &expr.kind {
                        ExprKind::Name(name)
                            if self.lookup(name).is_none()
                                && self.analysis.program.constant(name).is_none() =>
                        {
                            self.bind(name, Value::Int(term.clone()), None);
                        }
                        _ => {
                            let expected = self.int(expr);
                            parts.push(Formula::eq(term, &expected));
                        }
                    }
                }
            }
        }
        let claimed = format!(
            "Tensor[{}]",
            dims.iter().map(describe_dim).collect::<Vec<_>>().join(", ")
        );
        self.require(
            Formula::and(parts),
            FactKind::Claim,
            range,
            Explain::Shape {
                subject: subject.to_owned(),
                actual: Shape::known(actual),
                claimed,
            },
        );
    }

    // ----------------------------------------------------------- expressions

    pub fn condition(&mut self, expr: &ast::Expr) -> Formula {
        match self.expr(expr) {
            Value::Bool(f) => f,
            _ => Formula::var(self.analysis.vars.fresh()),
        }
    }

    pub fn int(&mut self, expr: &ast::Expr) -> Term {
        match self.expr(expr) {
            Value::Int(t) => t,
            _ => self.fresh_int(),
        }
    }

    /// Counts `n` steps; `false` once the budget is spent, after which the
    /// frame only winds down (every expression is unknown).
    /// The clock is read once every so many steps, to stop a body whose
    /// entry point or file has used up its time.
    fn step(&mut self, n: u64) -> bool {
        const CLOCK_EVERY: u64 = 1_024;
        let before = self.steps;
        self.steps = self.steps.saturating_add(n);
        if before / CLOCK_EVERY != self.steps / CLOCK_EVERY
            && self.steps <= limits::STEP_BUDGET
            && tensorfit_solver::time_cap::is_up()
        {
            self.out_of_time = true;
            self.steps = limits::STEP_BUDGET + 1;
        }
        self.steps <= limits::STEP_BUDGET
    }

    /// Whether this body went past its step budget (or its time): what it
    /// found is incomplete, so it must say nothing.
    pub fn out_of_steps(&self) -> bool {
        self.steps > limits::STEP_BUDGET
    }

    /// The bound that stopped this body, once [`Self::out_of_steps`].
    pub fn stopped_by(&self) -> LimitKind {
        if self.out_of_time && tensorfit_solver::time_cap::file_is_up() {
            LimitKind::FileTime
        } else if self.out_of_time {
            LimitKind::Time
        } else {
            LimitKind::Steps
        }
    }

    pub fn expr(&mut self, expr: &ast::Expr) -> Value {
        if !self.step(1) {
            return Value::Unknown;
        }
        let value = self.expr_inner(expr);
        let value = if limits::too_large(&value) {
            // Dimensions that double at each step (broadcasting shapes that
            // depend on unknowns) would swamp memory and the solver.
            self.analysis.hit(LimitKind::TermSize);
            Value::Unknown
        } else {
            value
        };
        let value = self.refine(value);
        if self.constructing == 0 {
            self.push_record(None, expr.range, &value);
        }
        value
    }

    fn expr_inner(&mut self, expr: &ast::Expr) -> Value {
        match &expr.kind {
            ExprKind::Name(name) => self.name(name),
            ExprKind::SelfValue => self.self_value.clone().unwrap_or(Value::Unknown),
            ExprKind::Int(v) => Value::Int(Term::int(*v)),
            ExprKind::Float(_) => Value::Float,
            ExprKind::Bool(v) => Value::Bool(Formula::truth(*v)),
            ExprKind::Str(s) => Value::Str(s.clone()),
            ExprKind::Hole => Value::Int(Term::var(self.analysis.hole(expr.range))),
            ExprKind::UnknownDim | ExprKind::Missing | ExprKind::Reduction { .. } => Value::Unknown,
            ExprKind::List(items) => Value::List(items.iter().map(|i| self.expr(i)).collect()),
            ExprKind::Tuple(items) => Value::Tuple(items.iter().map(|i| self.expr(i)).collect()),
            ExprKind::Call { callee, args } => self.call(expr, callee, args),
            ExprKind::Subscript { value, indices } => {
                let v = self.expr(value);
                let [index] = indices.as_slice() else {
                    return Value::Unknown;
                };
                self.subscript(&v, index, describe(value), expr.range)
            }
            ExprKind::Field { value, field } => {
                let v = self.expr(value);
                match field {
                    FieldName::Index(i, _) => match v {
                        Value::Tuple(items) | Value::List(items) => {
                            items.get(*i as usize).cloned().unwrap_or(Value::Unknown)
                        }
                        _ => Value::Unknown,
                    },
                    FieldName::Named(name) => self.field(&v, &name.text),
                }
            }
            ExprKind::Unary { op, operand } => {
                let v = self.expr(operand);
                match (op, v) {
                    (UnaryOp::Neg, Value::Int(t)) => Value::Int(Term::neg(&t)),
                    (UnaryOp::Neg, v @ (Value::Tensor(_) | Value::Float)) => v,
                    (UnaryOp::Not, Value::Bool(f)) => Value::Bool(Formula::not(&f)),
                    _ => Value::Unknown,
                }
            }
            ExprKind::Binary { op, lhs, rhs } => self.binary(expr, *op, lhs, rhs),
            ExprKind::Compare { operands, ops } => {
                let values: Vec<Value> = operands.iter().map(|o| self.expr(o)).collect();
                if let ([op], [a, b]) = (ops.as_slice(), values.as_slice()) {
                    if matches!(a, Value::Tensor(_)) || matches!(b, Value::Tensor(_)) {
                        // PyTorch's element-wise comparison: a boolean tensor.
                        let bound = vec![
                            ("input".to_owned(), a.clone(), describe(&operands[0])),
                            ("other".to_owned(), b.clone(), describe(&operands[1])),
                        ];
                        return self.elementwise_comparison(*op, bound, expr.range);
                    }
                }
                let mut parts = Vec::new();
                for (i, op) in ops.iter().enumerate() {
                    match compare(*op, &values[i], &values[i + 1]) {
                        Some(f) => parts.push(f),
                        None => return Value::Bool(Formula::var(self.analysis.vars.fresh())),
                    }
                }
                Value::Bool(Formula::and(parts))
            }
            ExprKind::ShapeAssert { value, pattern, .. } => {
                let v = self.expr(value);
                self.shape_assertion(&v, describe(value), pattern, expr.range);
                v
            }
        }
    }

    /// `a == b` (and the other comparisons) with a tensor operand, as the
    /// prelude's `eq` (`ne`, `lt`, ...).
    fn elementwise_comparison(
        &mut self,
        op: CompareOp,
        bound: Vec<(String, Value, String)>,
        range: TextRange,
    ) -> Value {
        self.apply_or_defer(op.prelude_name(), bound, range)
    }

    /// A rank-dependent prelude rule applied to operands that are not a
    /// call's arguments (`a @ b`, `a == b`): kept for each call while an
    /// operand's rank is unknown, as calls of those operations are.
    fn apply_or_defer(
        &mut self,
        name: &str,
        bound: Vec<(String, Value, String)>,
        range: TextRange,
    ) -> Value {
        if self.has_opaque_tensor(&bound) {
            return self.defer(name, bound, range);
        }
        rules::apply(self, name, &Args::new(bound), range).unwrap_or(Value::Unknown)
    }

    fn name(&mut self, name: &str) -> Value {
        self.value_of(name).unwrap_or(Value::Unknown)
    }

    /// The value of a name in scope or of a constant, refined.
    pub fn value_of(&mut self, name: &str) -> Option<Value> {
        if let Some(slot) = self.lookup(name) {
            let value = slot.value.clone();
            return Some(self.refine(value));
        }
        let constant = self.analysis.program.constant(name)?;
        // A constant defined through itself (`const n = n + 1`, often a
        // half-typed line) has no value; evaluating it would not end.
        if self.evaluating_constants.iter().any(|c| c == name) {
            return Some(Value::Unknown);
        }
        self.evaluating_constants.push(name.to_owned());
        let value = self.expr(&constant.value.clone());
        self.evaluating_constants.pop();
        Some(value)
    }

    fn subscript(
        &mut self,
        value: &Value,
        index: &ast::Expr,
        subject: String,
        range: TextRange,
    ) -> Value {
        let i = self.int(index);
        match value {
            Value::Shape(shape) => {
                let Some(i) = i.as_const() else {
                    return Value::Int(self.fresh_int());
                };
                self.require(
                    shape.index_in_range(i),
                    FactKind::Precondition,
                    range,
                    Explain::Text {
                        template: format!(
                            "index {i} is out of range for {subject}, which has {{}} dimensions"
                        ),
                        terms: vec![shape.rank()],
                    },
                );
                Value::Int(shape.dim(i).unwrap_or_else(|| self.fresh_int()))
            }
            // `x[i]`: PyTorch's basic indexing selects along dimension 0.
            Value::Tensor(shape) => {
                let shape = self.refine_shape(shape);
                self.require(
                    shape.index_in_range(0),
                    FactKind::Precondition,
                    range,
                    Explain::Text {
                        template: format!("cannot index {subject}: it has no dimensions"),
                        terms: vec![],
                    },
                );
                let size = shape.dim(0).unwrap_or_else(|| self.fresh_int());
                self.require(
                    Formula::and([Formula::le(&Term::neg(&size), &i), Formula::lt(&i, &size)]),
                    FactKind::Precondition,
                    range,
                    Explain::Text {
                        template: format!(
                            "index {{}} is out of range for dimension 0 of {subject}, of size {{}}"
                        ),
                        terms: vec![i.clone(), size.clone()],
                    },
                );
                Value::Tensor(shape.slice(1, 0))
            }
            Value::List(items) | Value::Tuple(items) => match i.as_const() {
                Some(k) if k >= 0 => items.get(k as usize).cloned().unwrap_or(Value::Unknown),
                Some(k) => items
                    .get((items.len() as i64 + k).max(0) as usize)
                    .cloned()
                    .unwrap_or(Value::Unknown),
                None => Value::Unknown,
            },
            _ => Value::Unknown,
        }
    }

    fn field(&mut self, value: &Value, name: &str) -> Value {
        if matches!((value, name), (Value::Tensor(_), "shape" | "rank")) {
            self.shape_reads += 1;
        }
        match (value, name) {
            (Value::Tensor(shape), "shape") => Value::Shape(shape.clone()),
            (Value::Tensor(shape), "rank") => Value::Int(shape.rank()),
            (Value::Instance(instance), _) => {
                instance.member(name).cloned().unwrap_or(Value::Unknown)
            }
            _ => Value::Unknown,
        }
    }

    fn binary(
        &mut self,
        expr: &ast::Expr,
        op: BinaryOp,
        lhs: &ast::Expr,
        rhs: &ast::Expr,
    ) -> Value {
        let a = self.expr(lhs);
        let b = self.expr(rhs);
        match (op, &a, &b) {
            (BinaryOp::And, Value::Bool(x), Value::Bool(y)) => {
                Value::Bool(Formula::and([x.clone(), y.clone()]))
            }
            (BinaryOp::Or, Value::Bool(x), Value::Bool(y)) => {
                Value::Bool(Formula::or([x.clone(), y.clone()]))
            }
            (_, Value::Int(x), Value::Int(y)) if op != BinaryOp::MatMul => {
                if matches!(op, BinaryOp::Div | BinaryOp::Rem) {
                    self.require(
                        Formula::ne(y, &Term::int(0)),
                        FactKind::Precondition,
                        expr.range,
                        Explain::Text {
                            template: format!("division by zero: `{}` is 0", describe(rhs)),
                            terms: vec![],
                        },
                    );
                }
                Value::Int(match op {
                    BinaryOp::Add => Term::add(x, y),
                    BinaryOp::Sub => Term::sub(x, y),
                    BinaryOp::Mul => Term::mul(x, y),
                    BinaryOp::Div => Term::div(x, y),
                    BinaryOp::Rem => Term::rem(x, y),
                    _ => return Value::Unknown,
                })
            }
            (BinaryOp::MatMul, _, _) => {
                let bound = vec![
                    ("input".to_owned(), a, describe(lhs)),
                    ("other".to_owned(), b, describe(rhs)),
                ];
                self.apply_or_defer("matmul", bound, expr.range)
            }
            (
                BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Div | BinaryOp::Rem,
                _,
                _,
            ) => {
                let (Some(x), Some(y)) = (a.tensor_shape(), b.tensor_shape()) else {
                    return Value::Unknown;
                };
                if !matches!(a, Value::Tensor(_)) && !matches!(b, Value::Tensor(_)) {
                    return Value::Float;
                }
                let (x, y) = (self.refine_shape(&x), self.refine_shape(&y));
                let scalar = |s: &Shape| s.dims().is_some_and(<[Term]>::is_empty);
                let opaque = x.dims().is_none() || y.dims().is_none();
                if opaque && x != y && !scalar(&x) && !scalar(&y) {
                    let bound = vec![
                        ("input".to_owned(), a, describe(lhs)),
                        ("other".to_owned(), b, describe(rhs)),
                    ];
                    return self.defer("add", bound, expr.range);
                }
                let shape =
                    rules::broadcast(self, &x, &y, (&describe(lhs), &describe(rhs)), expr.range);
                Value::Tensor(shape)
            }
            _ => Value::Unknown,
        }
    }

    fn shape_assertion(
        &mut self,
        value: &Value,
        subject: String,
        pattern: &[ast::Expr],
        range: TextRange,
    ) {
        let Value::Tensor(shape) = value else { return };
        let claimed = format!(
            "[{}]",
            pattern.iter().map(describe).collect::<Vec<_>>().join(", ")
        );
        let mut parts = vec![Formula::eq(&shape.rank(), &Term::int(pattern.len() as i64))];
        for (i, dim) in pattern.iter().enumerate() {
            if matches!(dim.kind, ExprKind::UnknownDim) {
                continue;
            }
            let expected = self.int(dim);
            if let Some(actual) = shape.dim(i as i64) {
                parts.push(Formula::eq(&actual, &expected));
            }
        }
        self.require(
            Formula::and(parts),
            FactKind::Claim,
            range,
            Explain::Shape {
                subject,
                actual: shape.clone(),
                claimed,
            },
        );
    }

    // ----------------------------------------------------------------- calls

    fn call(&mut self, call: &ast::Expr, callee: &ast::Expr, args: &[ast::Arg]) -> Value {
        let text = describe(call);
        self.call_inner(call, callee, args, &text)
    }

    fn call_inner(
        &mut self,
        call: &ast::Expr,
        callee: &ast::Expr,
        args: &[ast::Arg],
        text: &str,
    ) -> Value {
        match &callee.kind {
            ExprKind::Name(name) => {
                if let Some(slot) = self.lookup(name) {
                    let target = slot.value.clone();
                    return self.call_value(&target, args, call.range, text);
                }
                let program = &self.analysis.program;
                if let Some(function) = program.function(name) {
                    let bound = self.bind_args(&function.function.params, None, args);
                    return self.call_summary(function, bound, call.range, text);
                }
                if let Some((def, _)) = program.struct_def(name) {
                    let bound = self.bind_args(def.params.as_deref().unwrap_or(&[]), None, args);
                    return self.construct(def, bound);
                }
                if let Some(contract) = program.prelude_op(name) {
                    if name == "einsum" {
                        if let Some(value) = self.call_einsum(args) {
                            return value;
                        }
                    }
                    let bound = self.bind_args(&contract.params, None, args);
                    return self.call_prelude(name, contract, bound, call.range);
                }
                Value::Unknown
            }
            ExprKind::Field {
                value,
                field: FieldName::Named(method),
            } => {
                let receiver = self.expr(value);
                match &receiver {
                    Value::Instance(instance) => {
                        if let Some(function) = self
                            .analysis
                            .program
                            .method(&instance.struct_name, &method.text)
                        {
                            let mut bound =
                                vec![("self".to_owned(), receiver.clone(), "self".to_owned())];
                            bound.extend(self.bind_args(&function.function.params, None, args));
                            return self.call_summary(function, bound, call.range, text);
                        }
                        let member = instance
                            .member(&method.text)
                            .cloned()
                            .unwrap_or(Value::Unknown);
                        self.call_value(&member, args, call.range, text)
                    }
                    _ => match self.analysis.program.prelude_op(&method.text) {
                        Some(contract) => {
                            let mut bound = self.bind_args(&contract.params, Some(1), args);
                            if let Some(first) = contract.params.first() {
                                bound.insert(
                                    0,
                                    (first.name.text.clone(), receiver.clone(), describe(value)),
                                );
                            }
                            self.call_prelude(&method.text, contract, bound, call.range)
                        }
                        None => Value::Unknown,
                    },
                }
            }
            _ => {
                let target = self.expr(callee);
                self.call_value(&target, args, call.range, text)
            }
        }
    }

    /// Applies a callable value (layer or instance) to one evaluated argument.
    pub fn apply_to(
        &mut self,
        target: &Value,
        input: Value,
        text: &str,
        range: TextRange,
    ) -> Value {
        match target {
            Value::Layer(layer) => {
                rules::call_layer(self, layer, vec![(input, text.to_owned())], range)
            }
            Value::Instance(instance) => match self
                .analysis
                .program
                .method(&instance.struct_name, "forward")
            {
                Some(forward) => {
                    let Some(param) = forward.function.params.iter().find(|p| !p.is_self) else {
                        return Value::Unknown;
                    };
                    let bound = vec![
                        ("self".to_owned(), target.clone(), "self".to_owned()),
                        (param.name.text.clone(), input, text.to_owned()),
                    ];
                    self.call_summary(forward, bound, range, text)
                }
                None => Value::Unknown,
            },
            _ => Value::Unknown,
        }
    }

    /// Calling a value: a layer applies its rule, an instance its `forward`.
    fn call_value(
        &mut self,
        target: &Value,
        args: &[ast::Arg],
        range: TextRange,
        text: &str,
    ) -> Value {
        match target {
            Value::Layer(layer) => {
                let values: Vec<(Value, String)> = args
                    .iter()
                    .map(|a| (self.expr(&a.value), describe(&a.value)))
                    .collect();
                let inputs = self.bind_layer_inputs(&layer.kind, args, values, range);
                rules::call_layer(self, layer, inputs, range)
            }
            Value::Instance(instance) => match self
                .analysis
                .program
                .method(&instance.struct_name, "forward")
            {
                Some(forward) => {
                    let mut bound = vec![("self".to_owned(), target.clone(), "self".to_owned())];
                    bound.extend(self.bind_args(&forward.function.params, None, args));
                    self.call_summary(forward, bound, range, text)
                }
                None => Value::Unknown,
            },
            _ => Value::Unknown,
        }
    }

    /// A layer call's arguments in the order of the layer's `forward`
    /// parameters (`None` where one is not given), bound as any call's; what
    /// does not fit (`attn(q, k, v, key_mask: m)`) is reported at the end of
    /// the entry point. The layer's kind is known here, not to the name
    /// checks.
    fn bind_layer_inputs(
        &mut self,
        kind: &str,
        args: &[ast::Arg],
        values: Vec<(Value, String)>,
        range: TextRange,
    ) -> Vec<(Value, String)> {
        let Some(signature) =
            crate::registry::operation(kind).and_then(|op| op.forward_signature())
        else {
            return values;
        };
        let names: Vec<Option<&str>> = args
            .iter()
            .map(|a| a.name.as_ref().map(|n| n.text.as_str()))
            .collect();
        let binding = signature.bind(0, &names);
        for problem in &binding.problems {
            let diagnostic = signature.diagnostic(problem, args, range);
            if !self.argument_problems.contains(&diagnostic) {
                self.argument_problems.push(diagnostic);
            }
        }
        signature
            .params
            .iter()
            .zip(&binding.params)
            .map(|(param, sources)| match sources.first() {
                Some(Source::Arg(i)) => values[*i].clone(),
                _ if param.required => (Value::Unknown, param.name.clone()),
                _ => (Value::None, param.name.clone()),
            })
            .collect()
    }

    /// Binds a call's arguments to `params` ([`Signature::bind`]) after the
    /// first `skip` (a method's receiver, bound by the caller). Every
    /// argument is evaluated, in order, whether it fits or not (what does
    /// not fit is the name checks' to report); a parameter not given takes
    /// its default, or is unknown.
    pub fn bind_args(
        &mut self,
        params: &[ast::Param],
        skip: Option<usize>,
        args: &[ast::Arg],
    ) -> Vec<(String, Value, String)> {
        let skip = skip.unwrap_or(0);
        let names: Vec<Option<&str>> = args
            .iter()
            .map(|a| a.name.as_ref().map(|n| n.text.as_str()))
            .collect();
        let binding = Signature::from_params("", params).bind(skip, &names);
        let values: Vec<(Value, String)> = args
            .iter()
            .map(|arg| (self.expr(&arg.value), describe(&arg.value)))
            .collect();
        let params: Vec<&ast::Param> = params.iter().filter(|p| !p.is_self).collect();
        params
            .iter()
            .zip(&binding.params)
            .skip(skip)
            .map(|(param, sources)| {
                let mut given = sources.iter().filter_map(|source| match source {
                    Source::Arg(i) => Some(values[*i].clone()),
                    Source::Receiver(_) => None,
                });
                let (value, text) = if param.variadic {
                    let items: Vec<Value> = given.map(|(value, _)| value).collect();
                    // `zeros(2, 3)` and `zeros([2, 3])` mean the same.
                    match items.as_slice() {
                        [single @ (Value::List(_) | Value::Tuple(_) | Value::Shape(_))] => {
                            (single.clone(), String::new())
                        }
                        _ => (Value::List(items), String::new()),
                    }
                } else {
                    given.next().unwrap_or_else(|| {
                        let value = param
                            .default
                            .as_ref()
                            .map(|d| self.default_value(d))
                            .unwrap_or(Value::Unknown);
                        (value, param.name.text.clone())
                    })
                };
                (param.name.text.clone(), value, text)
            })
            .collect()
    }

    fn default_value(&mut self, expr: &ast::Expr) -> Value {
        match &expr.kind {
            ExprKind::Name(name) if name == "None" => Value::None,
            _ => {
                let saved = std::mem::replace(&mut self.scopes, vec![HashMap::new()]);
                let value = self.expr(expr);
                self.scopes = saved;
                value
            }
        }
    }

    fn call_prelude(
        &mut self,
        name: &str,
        contract: &'a ast::Function,
        bound: Vec<(String, Value, String)>,
        range: TextRange,
    ) -> Value {
        if matches!(name, "size" | "dim" | "numel") {
            self.shape_reads += 1;
        }
        let infers_a_size = bound.iter().any(|(n, v, _)| {
            n == "shape"
                && v.as_dims()
                    .and_then(|d| d.dims().map(|d| d.contains(&Term::int(-1))))
                    .unwrap_or(true)
        });
        let needs_ranks = crate::registry::needs_known_ranks(name, infers_a_size);
        if needs_ranks && self.has_opaque_tensor(&bound) {
            return self.defer(name, bound, range);
        }
        let args = Args::new(bound);
        // The registry says whether the contract or a built-in rule gives
        // the shape; a rule that cannot tell (an argument not modelled)
        // leaves it to the contract.
        let by_rule = crate::registry::operation(name)
            .is_some_and(|op| op.shape == crate::registry::ShapeBy::Rule);
        if by_rule {
            if let Some(value) = rules::apply(self, name, &args, range) {
                return value;
            }
        }
        // A layer constructor returns its own type: `Conv2d(...) -> Conv2d`.
        let constructs_layer = matches!(
            contract.return_type.as_ref().map(|t| &t.kind),
            Some(ast::TypeKind::Named(ty)) if ty.text == name
        );
        if constructs_layer {
            return Value::Layer(Arc::new(Layer {
                kind: name.to_owned(),
                args: args.into_pairs(),
            }));
        }
        // A contract: instantiate its summary like any function's.
        let function = FunctionRef {
            function: contract,
            owner: None,
            local: false,
        };
        self.call_summary(function, args.into_triples(), range, name)
    }

    pub(super) fn has_opaque_tensor(&self, bound: &[(String, Value, String)]) -> bool {
        let opaque = |v: &Value| matches!(v, Value::Tensor(shape) if self.refine_shape(shape).dims().is_none());
        bound.iter().any(|(_, v, _)| match v {
            Value::List(items) | Value::Tuple(items) => items.iter().any(opaque),
            other => opaque(other),
        })
    }

    /// Records a deferred operation; its result is a fresh opaque shape.
    /// Keeps a rank-dependent operation in the summary, to be applied at
    /// each call; its result stands for the operation's until then.
    pub fn defer(
        &mut self,
        op: &str,
        args: Vec<(String, Value, String)>,
        range: TextRange,
    ) -> Value {
        let result = self.analysis.vars.fresh();
        let shape = Shape::opaque(result);
        self.assume(shape.well_formed(), range);
        self.deferred.push(Deferred {
            op: op.to_owned(),
            args,
            result,
            range,
            guard: self.guard.clone(),
        });
        Value::Tensor(shape)
    }

    /// `Struct(args)`: evaluates the fields from the parameters.
    pub fn construct(&mut self, def: &ast::Struct, bound: Vec<(String, Value, String)>) -> Value {
        let name = def
            .name
            .as_ref()
            .map(|n| n.text.clone())
            .unwrap_or_default();
        // An instance that contains itself has no value (reported as
        // `recursive-struct`); building it again would never end.
        if self.building.contains(&name) {
            return Value::Unknown;
        }
        let params: Vec<(String, Value)> = bound.into_iter().map(|(n, v, _)| (n, v)).collect();
        self.scopes.push(
            params
                .iter()
                .map(|(n, v)| {
                    (
                        n.clone(),
                        Slot {
                            value: v.clone(),
                            declared: None,
                            defined: None,
                        },
                    )
                })
                .collect(),
        );
        let mut fields = Vec::new();
        self.constructing += 1;
        self.building.push(name.clone());
        for field in &def.fields {
            let value = self.expr(&field.value);
            self.bind(&field.name.text, value.clone(), None);
            fields.push((field.name.text.clone(), value));
        }
        self.building.pop();
        self.constructing -= 1;
        self.scopes.pop();
        Value::Instance(Arc::new(Instance {
            struct_name: name,
            params,
            fields,
        }))
    }

    /// Evaluates a struct's fields for a method's `self` without checking
    /// them again: they were checked where the instance was built.
    pub fn construct_assumed(
        &mut self,
        def: &ast::Struct,
        bound: Vec<(String, Value, String)>,
    ) -> Value {
        let saved = std::mem::replace(&mut self.assume_only, true);
        let value = self.construct(def, bound);
        self.assume_only = saved;
        value
    }

    /// Instantiates the callee's summary with the arguments.
    pub fn call_summary(
        &mut self,
        function: FunctionRef<'a>,
        bound: Vec<(String, Value, String)>,
        range: TextRange,
        text: &str,
    ) -> Value {
        let Some(summary) = self.analysis.summary(function) else {
            return Value::Unknown;
        };
        let call = CallSite {
            range,
            callee: function.key(),
            text: text.to_owned(),
        };
        self.instantiate(&summary, call, bound)
    }

    fn instantiate(
        &mut self,
        summary: &Summary,
        call_site: CallSite,
        bound: Vec<(String, Value, String)>,
    ) -> Value {
        let (callee, range) = (call_site.callee.as_str(), call_site.range);
        let mut substitution = Substitution::default();
        substitution.internal = (summary.first_var..summary.end_var).collect();
        substitution.names = Some(summary.var_names.clone());
        for (name, placeholder) in &summary.params {
            let Some((_, actual, text)) = bound.iter().find(|(n, _, _)| n == name) else {
                continue;
            };
            self.unify(
                placeholder,
                actual,
                &mut substitution,
                name,
                text,
                callee,
                range,
            );
        }
        if !self.step((summary.facts.len() + summary.records.len()) as u64) {
            return Value::Unknown;
        }
        let facts_before = self.facts.len();
        let resolved = self.resolve_deferred(summary, &mut substitution, &call_site);
        let result = substitution.value(&summary.result, &self.analysis.vars);
        if !resolved || limits::too_large(&result) {
            // Dimensions that grow at each call (a residual block whose
            // convolution lacks its kernel size, repeated): unknown from
            // here on, with none of the call's facts.
            self.analysis.hit(LimitKind::TermSize);
            self.facts.truncate(facts_before);
            return Value::Unknown;
        }
        let vars = &self.analysis.vars;
        for fact in &summary.facts {
            let Some(guard) = self.guard_at_call(&fact.guard, &mut substitution) else {
                // A branch this call never takes (e.g. on a struct's Bool).
                continue;
            };
            let formula = substitution.formula(&fact.formula, vars);
            if limits::formula_too_large(&formula) {
                self.analysis.hit(LimitKind::TermSize);
                self.facts.truncate(facts_before);
                return Value::Unknown;
            }
            let explain = match &fact.explain {
                Explain::Equal { what, left, right } => Explain::Equal {
                    what: what.clone(),
                    left: (left.0.clone(), substitution.term(&left.1, vars)),
                    right: (right.0.clone(), substitution.term(&right.1, vars)),
                },
                Explain::Shape {
                    subject,
                    actual,
                    claimed,
                } => Explain::Shape {
                    subject: subject.clone(),
                    actual: substitution.shape(actual, vars),
                    claimed: claimed.clone(),
                },
                Explain::Text { template, terms } => Explain::Text {
                    template: template.clone(),
                    terms: terms.iter().map(|t| substitution.term(t, vars)).collect(),
                },
            };
            let mut via = vec![call_site.clone()];
            via.extend(fact.via.iter().cloned());
            if formula == Formula::truth(true) || !self.is_new(fact.kind, &guard, &formula) {
                continue;
            }
            self.learn(&formula);
            self.facts.push(Fact {
                guard,
                formula,
                kind: fact.kind,
                range: fact.range,
                function: fact.function.clone(),
                explain,
                via,
                sides: fact.sides.clone(),
            });
        }
        self.instantiate_records(summary, &mut substitution, &call_site);
        self.refine(result)
    }

    /// A callee's path condition at this call: the caller's, then the
    /// callee's substituted; `None` when the call never takes that path.
    fn guard_at_call(&self, inner: &Guard, substitution: &mut Substitution) -> Option<Guard> {
        let inner: Vec<Formula> = inner
            .iter()
            .map(|g| substitution.formula(g, &self.analysis.vars))
            .collect();
        if inner.iter().any(|g| g.as_const() == Some(false)) {
            return None;
        }
        let mut guard = self.guard.clone();
        guard.extend(inner.into_iter().filter(|g| g.as_const() != Some(true)));
        Some(guard)
    }

    /// The callee's shapes as they are for this call (hover shows those
    /// the call's arguments fix).
    fn instantiate_records(
        &mut self,
        summary: &Summary,
        substitution: &mut Substitution,
        call_site: &CallSite,
    ) {
        let vars = &self.analysis.vars;
        for record in &summary.records {
            if self.records.len() >= MAX_RECORDS {
                break;
            }
            if record.via.len() >= MAX_RECORD_DEPTH {
                continue;
            }
            let Some(guard) = self.guard_at_call(&record.guard, substitution) else {
                continue;
            };
            let mut via = vec![call_site.clone()];
            via.extend(record.via.iter().cloned());
            let value = substitution.value(&record.value, vars);
            self.records.push(ShapeRecord {
                name: record.name.clone(),
                range: record.range,
                value: self.refine(value),
                guard,
                via,
            });
        }
    }

    /// Applies the callee's deferred operations to the substituted arguments;
    /// each result replaces the opaque shape that stood for it.
    ///
    /// `false` when a result grew past [`limits::MAX_TERM_SIZE`]: the call
    /// is then unknown.
    fn resolve_deferred(
        &mut self,
        summary: &Summary,
        substitution: &mut Substitution,
        call_site: &CallSite,
    ) -> bool {
        for deferred in &summary.deferred {
            let vars = &self.analysis.vars;
            let args: Vec<(String, Value, String)> = deferred
                .args
                .iter()
                .map(|(n, v, t)| (n.clone(), substitution.value(v, vars), t.clone()))
                .collect();
            let guard: Vec<Formula> = deferred
                .guard
                .iter()
                .map(|g| substitution.formula(g, vars))
                .collect();
            let saved_guard = self.guard.clone();
            let saved_function = std::mem::replace(&mut self.function, summary.function.clone());
            self.guard.extend(guard);
            self.via_context.insert(0, call_site.clone());
            let undecided = deferred.op == "select"
                && !matches!(args.first(), Some((_, Value::Bool(c), _)) if c.as_const().is_some());
            let value = if undecided || (deferred.op != "select" && self.has_opaque_tensor(&args)) {
                self.defer(&deferred.op, args, deferred.range)
            } else {
                rules::apply(self, &deferred.op, &Args::new(args), deferred.range)
                    .unwrap_or(Value::Unknown)
            };
            self.via_context.remove(0);
            self.function = saved_function;
            self.guard = saved_guard;
            if limits::too_large(&value) {
                self.analysis.hit(LimitKind::TermSize);
                return false;
            }
            if let Value::Tensor(shape) = value {
                substitution.shapes.insert(deferred.result, shape);
            }
        }
        true
    }

    /// Matches a summary's placeholder with an argument: placeholders are
    /// substituted, anything else the placeholder fixes becomes a fact of
    /// the call (the callee's parameter type).
    #[allow(clippy::too_many_arguments)]
    fn unify(
        &mut self,
        placeholder: &Value,
        actual: &Value,
        substitution: &mut Substitution,
        param: &str,
        text: &str,
        callee: &str,
        range: TextRange,
    ) {
        match (placeholder, actual) {
            (Value::Int(Term::Var(v)), Value::Int(t)) if !substitution.ints.contains_key(v) => {
                substitution.ints.insert(*v, t.clone());
            }
            (Value::Int(p), Value::Int(t)) => {
                let p = substitution.term(p, &self.analysis.vars);
                self.require(
                    Formula::eq(&p, t),
                    FactKind::Precondition,
                    range,
                    Explain::Equal {
                        what: format!("argument `{param}` of `{callee}`"),
                        left: (text.to_owned(), t.clone()),
                        right: ("the parameter".to_owned(), p),
                    },
                );
            }
            (Value::Bool(Formula::Var(v)), Value::Bool(f)) => {
                substitution.bools.insert(*v, f.clone());
            }
            (Value::Tensor(p), Value::Tensor(a)) | (Value::Shape(p), Value::Shape(a)) => {
                self.unify_shape(p, a, substitution, param, text, callee, range)
            }
            (Value::Shape(p), other) => {
                if let Some(a) = other.as_dims() {
                    self.unify_shape(p, &a, substitution, param, text, callee, range)
                }
            }
            (Value::Tuple(ps), Value::Tuple(actuals)) if ps.len() == actuals.len() => {
                for (p, a) in ps.iter().zip(actuals) {
                    self.unify(p, a, substitution, param, text, callee, range);
                }
            }
            (Value::Instance(p), Value::Instance(a)) if p.struct_name == a.struct_name => {
                for ((name, pv), (_, av)) in p.params.iter().zip(&a.params) {
                    self.unify(pv, av, substitution, name, name, callee, range);
                }
            }
            _ => {}
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn unify_shape(
        &mut self,
        placeholder: &Shape,
        actual: &Shape,
        substitution: &mut Substitution,
        param: &str,
        text: &str,
        callee: &str,
        range: TextRange,
    ) {
        let actual = self.refine_shape(actual);
        let fixed = placeholder.head.len() + placeholder.rest.as_ref().map_or(0, |r| r.tail.len());
        let rank_ok = match &placeholder.rest {
            None => Formula::eq(&actual.rank(), &Term::int(fixed as i64)),
            Some(_) => Formula::ge(&actual.rank(), &Term::int(fixed as i64)),
        };
        self.require(
            rank_ok,
            FactKind::Precondition,
            range,
            Explain::Text {
                template: format!(
                    "`{callee}` expects `{param}` of rank {}{fixed}, but `{text}` has rank {{}}",
                    if placeholder.rest.is_some() {
                        "at least "
                    } else {
                        ""
                    }
                ),
                terms: vec![actual.rank()],
            },
        );
        let mut pairs: Vec<(Term, i64)> = placeholder
            .head
            .iter()
            .enumerate()
            .map(|(i, t)| (t.clone(), i as i64))
            .collect();
        if let Some(rest) = &placeholder.rest {
            let n = rest.tail.len() as i64;
            pairs.extend(
                rest.tail
                    .iter()
                    .enumerate()
                    .map(|(j, t)| (t.clone(), j as i64 - n)),
            );
            let slice = actual.slice(placeholder.head.len(), rest.tail.len());
            match substitution.shapes.get(&rest.base).cloned() {
                // A segment seen in an earlier parameter (`a: Tensor[..s],
                // b: Tensor[..s]`): this argument must repeat it.
                Some(earlier) => {
                    let start = placeholder.head.len();
                    self.require_same_segment(&earlier, &slice, start, param, text, callee, range)
                }
                None => {
                    substitution.shapes.insert(rest.base, slice);
                }
            }
        }
        for (p, index) in pairs {
            let Some(a) = actual.dim(index) else { continue };
            match p {
                Term::Var(v)
                    if !substitution.ints.contains_key(&v)
                        && substitution.internal.contains(&v) =>
                {
                    substitution.ints.insert(v, a);
                }
                p => {
                    let expected = substitution.term(&p, &self.analysis.vars);
                    let position = if index < 0 {
                        format!("{index}")
                    } else {
                        index.to_string()
                    };
                    self.require(
                        Formula::eq(&a, &expected),
                        FactKind::Precondition,
                        range,
                        Explain::Equal {
                            what: format!("shape mismatch in the call of `{callee}`"),
                            left: (format!("{text}.shape[{position}]"), a.clone()),
                            right: (
                                format!("parameter `{param}` has shape[{position}]"),
                                expected,
                            ),
                        },
                    );
                }
            }
        }
    }

    /// `slice` (of argument `text`, from its dimension `start`) must equal
    /// the `earlier` binding of the same segment: the same rank and the
    /// same dimensions.
    #[allow(clippy::too_many_arguments)]
    fn require_same_segment(
        &mut self,
        earlier: &Shape,
        slice: &Shape,
        start: usize,
        param: &str,
        text: &str,
        callee: &str,
        range: TextRange,
    ) {
        self.require(
            Formula::eq(&slice.rank(), &earlier.rank()),
            FactKind::Precondition,
            range,
            Explain::Equal {
                what: format!("shape mismatch in the call of `{callee}`"),
                left: (
                    format!("the rank of `{param}`'s segment in `{text}`"),
                    slice.rank(),
                ),
                right: (format!("in `{callee}`'s earlier parameter"), earlier.rank()),
            },
        );
        let (Some(now), Some(before)) = (slice.dims(), earlier.dims()) else {
            return;
        };
        if now.len() != before.len() {
            return;
        }
        for (i, (a, b)) in now.iter().zip(before).enumerate() {
            self.require(
                Formula::eq(a, b),
                FactKind::Precondition,
                range,
                Explain::Equal {
                    what: format!("shape mismatch in the call of `{callee}`"),
                    left: (format!("{text}.shape[{}]", start + i), a.clone()),
                    right: (
                        format!("the same segment of `{callee}`'s earlier parameter"),
                        b.clone(),
                    ),
                },
            );
        }
    }

    /// The merged result of the body's `return`s.
    pub fn result(&mut self) -> Value {
        let mut result: Option<Value> = None;
        let returns = self.returns.clone();
        for (guard, value) in returns.iter().rev() {
            result = Some(match result {
                None => value.clone(),
                Some(later) => {
                    let condition = Formula::and(guard.iter().cloned());
                    self.merge(&condition, value, &later)
                }
            });
        }
        result.unwrap_or(Value::None)
    }
}

fn describe_dim(dim: &ast::Dim) -> String {
    match dim {
        ast::Dim::Unknown(_) => "?".to_owned(),
        ast::Dim::Segment { name, .. } => format!("..{}", name.text),
        ast::Dim::Expr(expr) => describe(expr),
    }
}

fn compare(op: CompareOp, a: &Value, b: &Value) -> Option<Formula> {
    match (a, b) {
        (Value::Int(x), Value::Int(y)) => Some(match op {
            CompareOp::Eq => Formula::eq(x, y),
            CompareOp::Ne => Formula::ne(x, y),
            CompareOp::Lt => Formula::lt(x, y),
            CompareOp::Le => Formula::le(x, y),
            CompareOp::Gt => Formula::gt(x, y),
            CompareOp::Ge => Formula::ge(x, y),
        }),
        (Value::Bool(x), Value::Bool(y)) if matches!(op, CompareOp::Eq | CompareOp::Ne) => {
            let same = Formula::iff(x, y);
            Some(if op == CompareOp::Eq {
                same
            } else {
                Formula::not(&same)
            })
        }
        _ if matches!(op, CompareOp::Eq | CompareOp::Ne) => {
            let (x, y) = (a.as_dims()?, b.as_dims()?);
            let same = shapes_equal(&x, &y)?;
            Some(if op == CompareOp::Eq {
                same
            } else {
                Formula::not(&same)
            })
        }
        _ => None,
    }
}

/// Equality of two shapes, when it can be stated without quantifiers.
pub fn shapes_equal(x: &Shape, y: &Shape) -> Option<Formula> {
    let (known, other) = match (x.dims(), y.dims()) {
        (Some(a), Some(b)) => {
            if a.len() != b.len() {
                return Some(Formula::truth(false));
            }
            return Some(Formula::and(
                a.iter()
                    .zip(b)
                    .map(|(p, q)| Formula::eq(p, q))
                    .collect::<Vec<_>>(),
            ));
        }
        (Some(a), None) => (a, y),
        (None, Some(b)) => (b, x),
        (None, None) => return None,
    };
    let mut parts = vec![Formula::eq(&other.rank(), &Term::int(known.len() as i64))];
    for (i, t) in known.iter().enumerate() {
        parts.push(Formula::eq(&other.dim(i as i64)?, t));
    }
    Some(Formula::and(parts))
}
