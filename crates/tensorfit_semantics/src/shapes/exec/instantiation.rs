//! Instantiating what a call brings: a struct's instance, a callee's
//! summary (its facts, records and deferred operations under the call's
//! substitution), and the unification of argument shapes with parameter
//! types.

use std::collections::HashMap;
use std::sync::Arc;

use tensorfit_base::TextRange;
use tensorfit_solver::{Formula, Term};
use tensorfit_syntax::ast::{self};

use super::{
    Frame, ShapeRecord, Slot, MAX_ASSUMED_SELF_DEPTH, MAX_PATHS_PER_PLACE, MAX_RECORDS,
    MAX_RECORDS_PER_CALL, MAX_RECORD_DEPTH,
};
use crate::shapes::analysis::Summary;
use crate::shapes::call_path::CallPath;
use crate::shapes::fact::{tests_any, CallSite, Explain, Fact, FactKind, Guard, Rewrite};
use crate::shapes::limits::{self, LimitKind};
use crate::shapes::rules::{self, Args};
use crate::shapes::substitution::Substitution;
use crate::shapes::value::{Instance, Rest, Shape, Value};
use crate::shapes::vars::VarGen;

/// Where a struct is constructed, as [`Frame::construct_at`] reports it.
pub enum ConstructionSite {
    /// No call: a method's `self`, assumed.
    None,
    /// A call of a struct of the file being checked.
    ThisFile(CallSite),
    /// A call of an imported struct.
    OtherFile(CallSite),
}

impl<'f, 'a> Frame<'f, 'a> {
    /// `Struct(args)`: evaluates the fields from the parameters.
    pub fn construct(&mut self, def: &ast::Struct, bound: Vec<(String, Value, String)>) -> Value {
        self.construct_at(def, bound, ConstructionSite::None)
    }

    /// `Struct(args)` at `site`. What another file's struct requires is
    /// reported as a failure of the call (as an imported function's
    /// requirements are), not at its own text; what this file's requires
    /// is reported at its text, naming the construction that fails it.
    pub fn construct_at(
        &mut self,
        def: &ast::Struct,
        bound: Vec<(String, Value, String)>,
        site: ConstructionSite,
    ) -> Value {
        let (site, local_site) = match site {
            ConstructionSite::None => (None, None),
            ConstructionSite::ThisFile(call) => (None, Some(call)),
            ConstructionSite::OtherFile(call) => (Some(call), None),
        };
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
        let params: Vec<(String, Value)> = bound
            .iter()
            .map(|(n, v, _)| (n.clone(), v.clone()))
            .collect();
        if self.assume_only && self.constructing >= MAX_ASSUMED_SELF_DEPTH {
            // Deep inside a method's `self`: its parameters are what a call
            // of its methods needs; a field read from here is unknown.
            return Value::Instance(Arc::new(Instance {
                struct_name: name,
                params,
                fields: Vec::new(),
                fields_unknown: true,
            }));
        }
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
        let saved_function = site.as_ref().map(|_| self.function.replace(name.clone()));
        if let Some(site) = &site {
            self.via_context.insert(0, site.clone());
        }
        let local = local_site.is_some();
        self.local_constructions.extend(local_site);
        self.run_init(def);
        for field in &def.fields {
            let value = self.expr(&field.value);
            self.bind(&field.name.text, value.clone(), None);
            // Another method may change a tensor field in place, which is
            // not followed: its items are not kept.
            fields.push((field.name.text.clone(), value.without_elements()));
        }
        if local {
            self.local_constructions.pop();
        }
        if let Some(saved) = saved_function {
            self.via_context.remove(0);
            self.function = saved;
        }
        self.building.pop();
        self.constructing -= 1;
        if self.analysis.semantics.callees_change_arguments {
            self.note_init_changes(&bound);
        }
        self.scopes.pop();
        Value::Instance(Arc::new(Instance {
            struct_name: name,
            params,
            fields,
            fields_unknown: false,
        }))
    }

    /// A Python class's construction before its fields are read (nothing
    /// for a Tensor-language struct): the class attributes, then
    /// `__init__`'s statements, in the scope of the
    /// parameters, where both leave `self.<field>` names.
    fn run_init(&mut self, def: &ast::Struct) {
        for attribute in &def.class_fields {
            let value = self.expr(&attribute.value);
            self.bind(&format!("self.{}", attribute.name.text), value, None);
        }
        let Some(init) = &def.init else {
            return;
        };
        // `return` in `__init__` ends it, not the function being analysed.
        let saved_returns = std::mem::take(&mut self.returns);
        let saved_returned = std::mem::replace(&mut self.returned, false);
        let saved_result_type = self.result_type.take();
        for stmt in &init.stmts {
            if self.returned {
                break;
            }
            self.stmt(stmt);
        }
        self.returns = saved_returns;
        self.returned = saved_returned;
        self.result_type = saved_result_type;
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

    pub(super) fn instantiate(
        &mut self,
        summary: &Summary,
        call_site: CallSite,
        bound: Vec<(String, Value, String)>,
    ) -> Value {
        let (callee, range) = (call_site.callee.as_str(), call_site.range);
        let mut substitution = Substitution::default();
        substitution.internal = (summary.first_var..summary.end_var).collect();
        substitution.names = Some(summary.var_names.clone());
        let arguments_from = self.facts.len();
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
        if self.refused_since(arguments_from) {
            // An argument that cannot be what the parameter's type says:
            // the call is that one error, with no body run.
            return Value::Unknown;
        }
        if !self.step((summary.facts.len() + summary.records.len()) as u64) {
            return Value::Unknown;
        }
        let facts_before = self.facts.len();
        let resolved = self.resolve_deferred(summary, &mut substitution, &call_site);
        let result = substitution.value(&summary.result, &self.analysis.vars);
        if !resolved || result.too_large() {
            // Dimensions that grow at each call (a residual block whose
            // convolution lacks its kernel size, repeated): unknown from
            // here on, with none of the call's facts.
            self.analysis.hit(LimitKind::TermSize);
            self.facts.truncate(facts_before);
            return Value::Unknown;
        }
        let vars = &self.analysis.vars;
        // The paths (as this call takes them) on which a precondition of
        // the callee (its own, or an operation's contract) is false for
        // this call's arguments: PyTorch raises there, so what the callee
        // states after it, on those paths, never runs; its values would be
        // those of a tensor the operation refused. (A failed claim is the
        // analysis's, not PyTorch's: the code after it still runs, and
        // still answers holes.)
        let mut raised: Vec<Guard> = Vec::new();
        for fact in &summary.facts {
            let Some(guard) = self.guard_at_call(&fact.guard, &mut substitution) else {
                // A branch this call never takes (e.g. on a struct's Bool).
                continue;
            };
            if raised.iter().any(|at| at.iter().all(|g| guard.contains(g))) {
                continue;
            }
            let formula = substitution.formula(&fact.formula, vars);
            // A guard of the callee is what its callers must meet; what the
            // callee states on a path an unknown value decides, the call may
            // never reach.
            let kind = match fact.kind {
                _ if fact
                    .guard
                    .iter()
                    .any(|l| tests_any(l, &summary.opaque_vars)) =>
                {
                    FactKind::Assumption
                }
                FactKind::Guard => FactKind::Precondition,
                kind => kind,
            };
            if formula.as_const() == Some(false) && kind == FactKind::Precondition {
                raised.push(guard.clone());
            }
            if limits::formula_too_large(&formula) {
                self.analysis.hit(LimitKind::TermSize);
                self.facts.truncate(facts_before);
                return Value::Unknown;
            }
            let explain = fact.explain.rewritten(&mut AtCall {
                substitution: &mut substitution,
                vars,
            });
            // Inside another file's struct being built, the call is that
            // construction's too: its site comes first, as for the facts
            // the struct states itself (see `construct_at`).
            let via = self.via_context.iter().rev().fold(
                CallPath::through(call_site.clone(), &fact.via),
                |inner, site| CallPath::through(site.clone(), &inner),
            );
            if formula == Formula::truth(true)
                || !self.is_new(kind, &guard, &formula, (fact.range, fact.part))
                || (kind == FactKind::Precondition
                    && formula.as_const().is_none()
                    && self.states_precondition(&guard, &formula))
            {
                continue;
            }
            self.push_fact(Fact {
                guard,
                formula,
                kind: match self.assume_only {
                    true => FactKind::Assumption,
                    false => kind,
                },
                range: fact.range,
                function: fact.function.clone(),
                explain,
                via,
                sides: fact.sides.clone(),
                part: fact.part,
                construction: fact.construction.clone(),
                constructed_at: fact
                    .constructed_at
                    .clone()
                    .or_else(|| self.local_constructions.last().cloned()),
            });
        }
        self.instantiate_records(summary, &mut substitution, &call_site);
        if raised.contains(&self.guard) {
            // The call raises whatever path the callee takes: it has no
            // result to go on with.
            return Value::Unknown;
        }
        self.note_changed_in_place(summary, &mut substitution, &bound);
        let result = self.with_large_terms_named(result, range);
        self.refine(result)
    }

    /// `value` with each dimension or number of more than
    /// [`limits::MAX_JOINED_DIM`] nodes replaced by a new unknown equal to
    /// it. A callee that uses its input's dimension twice in one of its
    /// result's (`x + mlp(x)` broadcasts to "8 where x's is 1, else x's")
    /// doubles the expression at each call of a chain of such calls (a
    /// transformer's twelve blocks); the solver keeps what it is, and the
    /// next call substitutes a name.
    fn with_large_terms_named(&mut self, value: Value, range: TextRange) -> Value {
        match value {
            Value::Int(term) => Value::Int(self.named_if_large(&term, range)),
            Value::Tensor(shape) => Value::Tensor(self.shape_with_large_terms_named(&shape, range)),
            Value::Shape(shape) => Value::Shape(self.shape_with_large_terms_named(&shape, range)),
            Value::Tuple(items) => Value::Tuple(
                items
                    .into_iter()
                    .map(|item| self.with_large_terms_named(item, range))
                    .collect(),
            ),
            Value::List(items) => Value::List(
                items
                    .into_iter()
                    .map(|item| self.with_large_terms_named(item, range))
                    .collect(),
            ),
            other => other,
        }
    }

    fn shape_with_large_terms_named(&mut self, shape: &Shape, range: TextRange) -> Shape {
        let head = shape
            .head
            .iter()
            .map(|t| self.named_if_large(t, range))
            .collect();
        let rest = shape.rest.as_ref().map(|rest| Rest {
            tail: rest
                .tail
                .iter()
                .map(|t| self.named_if_large(t, range))
                .collect(),
            ..rest.clone()
        });
        Shape { head, rest }
    }

    /// `term`, or past [`limits::MAX_JOINED_DIM`] nodes a new unknown
    /// assumed equal to it (see `with_large_terms_named`).
    pub(super) fn named_if_large(&mut self, term: &Term, range: TextRange) -> Term {
        if !limits::term_over(term, limits::MAX_JOINED_DIM) {
            return term.clone();
        }
        let named = self.fresh_int();
        self.assume(Formula::eq(&named, term), range);
        named
    }

    /// A callee's path condition at this call: the caller's, then the
    /// callee's substituted; `None` when the call never takes that path.
    pub(super) fn guard_at_call(
        &self,
        inner: &Guard,
        substitution: &mut Substitution,
    ) -> Option<Guard> {
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
    pub(super) fn instantiate_records(
        &mut self,
        summary: &Summary,
        substitution: &mut Substitution,
        call_site: &CallSite,
    ) {
        let vars = &self.analysis.vars;
        let mut paths: HashMap<(TextRange, Option<String>), usize> = HashMap::new();
        let mut taken = 0;
        for record in &summary.records {
            if self.records.len() >= MAX_RECORDS || taken >= MAX_RECORDS_PER_CALL {
                break;
            }
            if record.via.len() >= MAX_RECORD_DEPTH {
                continue;
            }
            if !record.via.is_empty() {
                let paths = paths
                    .entry((record.range, record.name.clone()))
                    .or_default();
                if *paths >= MAX_PATHS_PER_PLACE {
                    continue;
                }
                *paths += 1;
            }
            taken += 1;
            let Some(guard) = self.guard_at_call(&record.guard, substitution) else {
                continue;
            };
            let via = CallPath::through(call_site.clone(), &record.via);
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
    pub(super) fn resolve_deferred(
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
            if value.too_large() {
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
    pub(super) fn unify(
        &mut self,
        placeholder: &Value,
        actual: &Value,
        substitution: &mut Substitution,
        param: &str,
        text: &str,
        callee: &str,
        range: TextRange,
    ) {
        // A summary's placeholder stands for a tensor, not its items.
        if actual.holds_elements() {
            let tensor = actual.clone().without_elements();
            return self.unify(
                placeholder,
                &tensor,
                substitution,
                param,
                text,
                callee,
                range,
            );
        }
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
    pub(super) fn unify_shape(
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
    pub(super) fn require_same_segment(
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
}

/// A callee's explanation as it reads at a call.
struct AtCall<'s> {
    substitution: &'s mut Substitution,
    vars: &'s VarGen,
}

impl Rewrite for AtCall<'_> {
    fn term(&mut self, term: &Term) -> Term {
        self.substitution.term(term, self.vars)
    }

    fn shape(&mut self, shape: &Shape) -> Shape {
        self.substitution.shape(shape, self.vars)
    }
}
