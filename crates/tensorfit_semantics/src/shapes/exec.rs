//! Symbolic execution of function bodies into facts (section 3.3 of the
//! Tensors Fitting Perfectly paper).
//!
//! A [`Frame`] executes one body: statements in order, both branches of an
//! `if` under their path conditions, a loop as skipped or entered (first and
//! last iteration, the last with fresh loop-carried values), and calls
//! through the callee's [`Summary`], instantiated by substitution.
//!
//! This file holds the frame itself: its state, the facts it states, its
//! scopes and its step budget. What it executes is in the modules below,
//! each an `impl Frame` of its own: `statements`, `expressions`, `calls`,
//! `instantiation` (structs, summaries at a call, unification) and
//! `loops`.

use std::collections::{HashMap, HashSet};

use tensorfit_base::TextRange;
use tensorfit_solver::{Formula, Term};
use tensorfit_syntax::ast;

use super::analysis::Analysis;
use super::call_path::CallPath;
use super::conditions::ConditionRecord;
use super::describe::describe;
use super::fact::{CallSite, Construction, Explain, Fact, FactKind, Guard};
use super::limits::{self, LimitKind};
use super::value::{Shape, Value};

mod builtins;
mod callables;
mod calls;
mod closures;
mod comparisons;
mod container_methods;
mod enumerations;
mod expressions;
mod functional;
mod identity;
mod in_place;
mod instantiation;
mod learnt;
mod loops;
mod module_children;
mod module_methods;
mod numbers;
mod ordering;
mod pytorch_keywords;
mod rule_context;
mod sequences;
mod specialise;
pub(in crate::shapes) use specialise::holds_symbolic_term;
mod spelling;
mod statements;
mod str_format;
mod str_methods;
mod strings;
mod subscripts;
mod tensor_items;
mod unpacking;
mod updates;

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
    pub via: CallPath,
}

/// Records kept per frame (and so per summary): enough for any real
/// function, a bound on memory for generated ones.
const MAX_RECORDS: usize = 20_000;

/// How many calls deep a callee's shapes are carried up into its callers'
/// records. Hover shows a binding's shape at each call that fixes it; past
/// this depth it shows the callee's own (symbolic) shape. Without the
/// bound, a chain of N calls keeps N² records with call paths of length N.
const MAX_RECORD_DEPTH: usize = 8;

/// How many records one call takes over for one place (a binding in some
/// callee) reached through calls nested in it, each through its own call
/// path. Hover lists eight per place; a function that calls its callee
/// twice, repeated down a chain, doubles the paths at each level. (The
/// callee's own shapes are all taken.) Counted per call, so that a script
/// analysed in groups (`script_groups.rs`) shows what the whole one does.
const MAX_PATHS_PER_PLACE: usize = 8;

/// How many structs deep a method's `self` is built (its fields, their
/// fields, ...). Each method of a chain of N structs, each holding the one
/// before, built all the structs below it: N² constructions, and as many
/// fields kept in the summaries. Past this depth an instance keeps its
/// parameters (all that calling its methods needs) and no fields: a read
/// of one is unknown. Real models read a few levels (`self.encoder.layers`).
pub(super) const MAX_ASSUMED_SELF_DEPTH: usize = 8;

/// How many records one call takes over in all: enough for ResNet-50's
/// `forward` (about 350), a bound on memory for a file of thousands of
/// functions each calling the one before twice.
const MAX_RECORDS_PER_CALL: usize = 512;

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
pub(super) struct Slot {
    value: Value,
    declared: Option<ast::Type>,
    /// Where the name is bound, for "where each side came from".
    defined: Option<TextRange>,
}

/// A `return` met: its path, its value, and the values then of the
/// parameters watched for changes in place (see `in_place`).
#[derive(Clone)]
pub(super) struct Exit {
    guard: Guard,
    value: Value,
    watched: Vec<Value>,
}

pub struct Frame<'f, 'a> {
    pub analysis: &'f Analysis<'a>,
    pub facts: Vec<Fact>,
    pub guard: Guard,
    scopes: Vec<HashMap<String, Slot>>,
    returns: Vec<Exit>,
    /// The parameters that held a list or a dict at entry, whose values
    /// each `return` notes (see `in_place`).
    watched: Vec<String>,
    /// What the last call through a summary left in the containers it was
    /// given, by argument text (see `in_place`).
    changed_by_call: Option<Vec<(String, Value)>>,
    /// Something became unknown that known numbers would decide (see
    /// [`Summary::numbers_decide`](crate::shapes::analysis::Summary)).
    pub numbers_decide: bool,
    /// An operation needed the rank of a tensor the function does not
    /// know (see [`Summary::ranks_decide`](crate::shapes::analysis::Summary)).
    pub ranks_decide: bool,
    /// Whether tensors' items are kept (`shapes::elements`): not past a
    /// statement that may change a tensor in place
    /// (`Builtin::TensorsChangeInPlace`).
    pub keeps_items: bool,
    /// Whether the names this function binds numbers to name their terms
    /// in what users see (see `Analysis::name_term`).
    pub names_terms: bool,
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
    learnt: learnt::Learnt,
    pub records: Vec<ShapeRecord>,
    /// Inside a struct's field initialisers: their expressions belong to
    /// the struct, not to the function that builds the instance.
    constructing: usize,
    /// The `if`s met, for decided conditions.
    pub conditions: Vec<ConditionRecord>,
    /// Shapes, ranks and sizes read so far (tells conditions on shapes).
    shape_reads: usize,
    returned: bool,
    /// The declared result type of the function being executed: each
    /// `return` must fit it.
    pub result_type: Option<ast::Type>,
    pub deferred: Vec<Deferred>,
    /// The facts (by index) that are extent equalities of this frame's own
    /// index-notation kernels, for [`super::kernels::bound_warnings`].
    pub kernel_bounds: Vec<usize>,
    /// While applying a callee's deferred operation: the calls it came through.
    via_context: Vec<CallSite>,
    /// The constructions of this file's classes being run, innermost last
    /// (an imported class's is in `via_context`).
    local_constructions: Vec<CallSite>,
    /// The module constants whose values are being evaluated, innermost last.
    evaluating_constants: Vec<String>,
    /// The structs whose instances are being built, and the functions and
    /// classes whose arguments are being bound, innermost last: a struct
    /// met again here contains itself (`recursive-struct`), a default that
    /// calls its own function or class has no value.
    building: Vec<String>,
    /// The assumptions taken over from callees, by path and formula: the
    /// same one met again (every callee in a chain assumes its dimensions
    /// positive) adds nothing but size.
    assumed: HashSet<(Guard, Formula)>,
    /// The requirements taken over from callees, by kind, path, formula and
    /// the statement (place and part) that states them: the same
    /// requirement reached through a second call (`f(x) + f(x)`, repeated
    /// down a chain) fails exactly when the first does, and PyTorch raises
    /// at the first. (Two parts of one claim may have the same formula at a
    /// call, `8 == 16`, and are refuted one by one.)
    required: HashSet<(FactKind, Guard, Formula, TextRange, u32)>,
    /// Where each precondition stated so far is in `facts`, by path and
    /// formula: a callee's precondition equal to one of them fails exactly
    /// when that earlier one does, and PyTorch raises at the earlier. Taken
    /// over anyway, a chain of N modules each applying a layer to its input
    /// (`rank(x) >= 1` at every level) would carry N copies up to the top,
    /// N² in all. An entry is checked against `facts` before it is used, as
    /// a rolled-back loop body or a refused call truncates them.
    preconditions: HashMap<(Guard, Formula), usize>,
    /// Steps taken: expressions evaluated, facts and shapes taken over from
    /// callees (bounded by [`limits::STEP_BUDGET`]).
    steps: u64,
    /// Calls of layer instances whose arguments do not fit the layer's
    /// `forward` (reported with the entry point's own diagnostics).
    pub argument_problems: Vec<tensorfit_base::Diagnostic>,
    /// The steps were stopped because the time budget of the entry point
    /// or its file ran out, not by their own budget.
    out_of_time: bool,
    /// The branch conditions values were merged on after an `if` or a
    /// loop (`ite(c, a, b)`): a fact about such a value is stated once per
    /// branch ([`Frame::push_fact`]).
    merged_on: Vec<Merge>,
    /// The layer being applied, where the program constructs it.
    layer_site: Option<LayerSite>,
}

/// A layer a call applies, and where the program constructs it (a struct
/// field, a `let`): an error about one of its constructor's arguments
/// points there.
#[derive(Clone, Debug)]
pub(super) struct LayerSite {
    pub name: String,
    pub constructed: TextRange,
    /// The constructor's arguments, by parameter name.
    pub parameters: Vec<String>,
}

/// A condition values were merged on, and how to name its two sides in a
/// message (the failing path of an error about a merged value).
#[derive(Clone, Debug)]
pub(super) struct Merge {
    pub condition: Formula,
    pub origin: BranchOrigin,
}

/// Where a two-way split of the paths is written, and its two sides in
/// words: "`wide` is true", "the loop is skipped".
#[derive(Clone, Debug)]
pub(super) struct BranchOrigin {
    /// The `if` condition or the loop.
    pub at: TextRange,
    pub when_true: String,
    pub when_false: String,
}

/// How the related note naming an error's path begins (the differential
/// test reads it: such an error holds on that path only).
const PATH_NOTE: &str = "on the failing path, ";

/// How many merge conditions one fact is split on (2^n facts at most);
/// past that, the fact is kept whole (a path's failure may then hide
/// behind another path, but nothing false is reported).
const MAX_BRANCH_SPLITS: usize = 4;

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
            watched: Vec::new(),
            changed_by_call: None,
            numbers_decide: false,
            ranks_decide: false,
            keeps_items: true,
            names_terms: true,
            function,
            self_value: None,
            opening: true,
            precondition_facts: None,
            assume_only: false,
            learnt: learnt::Learnt::default(),
            records: Vec::new(),
            constructing: 0,
            conditions: Vec::new(),
            shape_reads: 0,
            returned: false,
            result_type: None,
            deferred: Vec::new(),
            kernel_bounds: Vec::new(),
            via_context: Vec::new(),
            local_constructions: Vec::new(),
            evaluating_constants: Vec::new(),
            building: Vec::new(),
            assumed: HashSet::new(),
            required: HashSet::new(),
            preconditions: HashMap::new(),
            steps: 0,
            argument_problems: Vec::new(),
            layer_site: None,
            out_of_time: false,
            merged_on: Vec::new(),
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
        self.require_part(formula, kind, range, explain, 0);
    }

    /// A claim stated in parts (see [`Fact::part`]), each its own fact.
    pub fn require_claim(&mut self, parts: Vec<Formula>, range: TextRange, explain: Explain) {
        for (part, formula) in parts.into_iter().enumerate() {
            self.require_part(
                formula,
                FactKind::Claim,
                range,
                explain.clone(),
                part as u32,
            );
        }
    }

    fn require_part(
        &mut self,
        formula: Formula,
        kind: FactKind,
        range: TextRange,
        explain: Explain,
        part: u32,
    ) {
        let kind = if self.assume_only {
            FactKind::Assumption
        } else {
            kind
        };
        if formula == Formula::truth(true) || self.not_assumed(kind, range, part) {
            return;
        }
        let fact = Fact {
            guard: self.guard.clone(),
            formula,
            kind,
            range,
            function: self.function.clone(),
            sides: self.sides_of(&explain),
            construction: self.construction_of(&explain),
            explain,
            via: CallPath::of(&self.via_context),
            constructed_at: self.local_constructions.last().cloned(),
            part,
        };
        self.push_fact(fact);
    }

    /// A claim of the entry point that fails for some call of it: checked
    /// at those calls (where it is reported), and not assumed here, where
    /// it would decide shapes and holes the calls contradict.
    fn not_assumed(&self, kind: FactKind, range: TextRange, part: u32) -> bool {
        kind == FactKind::Claim
            && self.via_context.is_empty()
            && self
                .analysis
                .not_assumed
                .contains(&((self.function.clone(), range), part))
    }

    /// States a fact. One about a value merged after an `if` is stated per
    /// branch, under that branch's condition: LANGUAGE.md §5 reports a
    /// failure on *some* reachable path, and `ite(c, 4, 5) == 4` alone
    /// would be satisfied by the path where `c` holds.
    fn push_fact(&mut self, fact: Fact) {
        if fact.kind != FactKind::Assumption && fact.formula.holds_for_any_ranks() {
            // A requirement no rank can fail (`rank(x) >= 0`, which each
            // tensor passed on to an unannotated parameter states): stated,
            // it would be taken over by every caller up a chain of calls.
            return;
        }
        let mut pending = vec![(fact, 0)];
        while let Some((fact, splits)) = pending.pop() {
            let splittable = fact.kind.is_checked() && splits < MAX_BRANCH_SPLITS;
            let merge = splittable
                .then(|| {
                    self.merged_on
                        .iter()
                        .find(|m| fact.formula.chooses_on(&m.condition))
                })
                .flatten()
                .cloned();
            let Some(Merge { condition, origin }) = merge else {
                self.learn(&fact);
                if fact.kind == FactKind::Precondition && fact.formula.as_const().is_none() {
                    self.preconditions
                        .insert((fact.guard.clone(), fact.formula.clone()), self.facts.len());
                }
                self.facts.push(fact);
                continue;
            };
            for holds in [false, true] {
                // A path that took the other side already cannot take this one.
                let other_side = if holds {
                    Formula::not(&condition)
                } else {
                    condition.clone()
                };
                let mut branch = fact.on_branch(&condition, holds);
                if fact.guard.contains(&other_side) || branch.formula == Formula::truth(true) {
                    continue;
                }
                let side = if holds {
                    &origin.when_true
                } else {
                    &origin.when_false
                };
                branch.sides.push((origin.at, format!("{PATH_NOTE}{side}")));
                pending.push((branch, splits + 1));
            }
        }
    }

    /// Values were merged on a condition: facts about them are split.
    pub(super) fn note_merge(&mut self, merge: Merge) {
        let known = self
            .merged_on
            .iter()
            .any(|m| m.condition == merge.condition);
        if merge.condition.as_const().is_none() && !known {
            self.merged_on.push(merge);
        }
    }

    /// Whether a callee's fact adds something at this call: an assumption
    /// once per path and formula; a requirement this call decides (false:
    /// the call fails) always, as each failing call is reported; another
    /// once per path, formula and the statement that states it.
    fn is_new(
        &mut self,
        kind: FactKind,
        guard: &Guard,
        formula: &Formula,
        at: (TextRange, u32),
    ) -> bool {
        match kind {
            FactKind::Assumption => self.assumed.insert((guard.clone(), formula.clone())),
            _ if formula.as_const().is_some() => true,
            _ => self
                .required
                .insert((kind, guard.clone(), formula.clone(), at.0, at.1)),
        }
    }

    /// Whether a precondition with this path and formula is already stated
    /// (see `preconditions`).
    fn states_precondition(&self, guard: &Guard, formula: &Formula) -> bool {
        let key = (guard.clone(), formula.clone());
        self.preconditions.get(&key).is_some_and(|&at| {
            self.facts.get(at).is_some_and(|fact| {
                fact.kind == FactKind::Precondition
                    && fact.guard == *guard
                    && fact.formula == *formula
            })
        })
    }

    /// The construction of the layer being applied, when one side of the
    /// equality `explain` states is one of its constructor's arguments
    /// (`in_features`, `normalized_shape[0]`) and not a name of the code.
    fn construction_of(&self, explain: &Explain) -> Option<Construction> {
        let site = self.layer_site.as_ref()?;
        let Explain::Equal { left, right, .. } = explain else {
            return None;
        };
        let is_argument = |text: &str| {
            let name = leading_name(text);
            site.parameters.iter().any(|p| *p == name) && self.lookup(name).is_none()
        };
        let argument_on_right = match (is_argument(&left.0), is_argument(&right.0)) {
            (false, true) => true,
            (true, false) => false,
            _ => return None,
        };
        Some(Construction {
            range: site.constructed,
            layer: site.name.clone(),
            argument_on_right,
        })
    }

    /// Runs `apply` with `site` as the layer being applied.
    pub(super) fn applying_layer<R>(
        &mut self,
        site: Option<LayerSite>,
        apply: impl FnOnce(&mut Self) -> R,
    ) -> R {
        let outer = std::mem::replace(&mut self.layer_site, site);
        let result = apply(self);
        self.layer_site = outer;
        result
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
            let name = leading_name(text);
            let Some(slot) = self.lookup(name) else {
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

    /// Remembers what this path fixes, to spell out shapes
    /// ([`learnt::Learnt`]); values only from facts of this very path (a
    /// callee's fact may hold on a branch of its own only).
    fn learn(&mut self, fact: &Fact) {
        let on_this_path = fact.guard == self.guard;
        if let learnt::Lesson::RankTooLarge = self.learnt.learn(&fact.formula, on_this_path) {
            self.analysis.hit(LimitKind::Rank);
        }
    }

    /// Whether a requirement stated since fact `from` is false on this
    /// very path whatever the values: PyTorch raises there (an operation
    /// refusing its input, an argument that cannot have its parameter's
    /// type), so the call has no result to go on with (one mistake, one
    /// error).
    pub(super) fn refused_since(&self, from: usize) -> bool {
        self.facts[from.min(self.facts.len())..].iter().any(|fact| {
            fact.kind == FactKind::Precondition
                && fact.guard == self.guard
                && fact.formula.as_const() == Some(false)
        })
    }

    /// `term` with the integers this path has fixed spelt out.
    pub fn known(&self, term: &Term) -> Term {
        self.learnt.known(term)
    }

    pub fn refine_shape(&self, shape: &Shape) -> Shape {
        shape.refine(&|base| self.learnt.ranks.get(&base).copied())
    }

    /// `value` refined (see [`Frame::refine`]), copied only when a known
    /// rank changes it: a branch join refines every value it merges.
    fn refined<'v>(&self, value: &'v Value) -> std::borrow::Cow<'v, Value> {
        let rank_of = |base| self.learnt.ranks.get(&base).copied();
        match value {
            Value::Tensor(shape) | Value::Shape(shape) if shape.refines_with(&rank_of) => {
                std::borrow::Cow::Owned(self.refine(value.clone()))
            }
            _ => std::borrow::Cow::Borrowed(value),
        }
    }

    fn refine(&self, value: Value) -> Value {
        let rank_of = |base| self.learnt.ranks.get(&base).copied();
        match value {
            Value::Tensor(shape) => Value::Tensor(shape.into_refined(&rank_of)),
            Value::Shape(shape) => Value::Shape(shape.into_refined(&rank_of)),
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

    pub(super) fn lookup(&self, name: &str) -> Option<&Slot> {
        self.scopes.iter().rev().find_map(|s| s.get(name))
    }

    pub(super) fn assign(&mut self, name: &str, value: Value) -> Option<ast::Type> {
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
        // A constructor's statements run for each instance, in whatever
        // function builds it: their shapes are not that function's.
        if self.constructing > 0 {
            return;
        }
        self.push_record(Some(name.to_owned()), range, value);
    }

    fn push_record(&mut self, name: Option<String>, range: TextRange, value: &Value) {
        let value = match value {
            Value::Elements(_) => value.clone().without_elements(),
            _ => value.clone(),
        };
        if matches!(value, Value::Tensor(_)) && self.records.len() < MAX_RECORDS {
            self.records.push(ShapeRecord {
                name,
                range,
                value,
                guard: self.guard.clone(),
                via: CallPath::default(),
            });
        }
    }

    pub fn set_self(&mut self, value: Value) {
        self.self_value = Some(value);
    }

    // ------------------------------------------------------------ statements

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

    /// The merged result of the body's `return`s.
    pub fn result(&mut self) -> Value {
        let exits = self
            .returns
            .iter()
            .map(|exit| (exit.guard.clone(), exit.value.clone()))
            .collect();
        self.merge_exits(exits).unwrap_or(Value::None)
    }

    /// The values a body leaves with, one per way out in order, each with
    /// its path: merged so that each holds where its path is the first
    /// taken. `None` without a way out.
    fn merge_exits(&mut self, exits: Vec<(Guard, Value)>) -> Option<Value> {
        let mut merged: Option<Value> = None;
        for (guard, value) in exits.into_iter().rev() {
            merged = Some(match merged {
                None => value,
                Some(later) => {
                    let condition = Formula::and(guard);
                    self.merge(&condition, &value, &later)
                }
            });
        }
        merged
    }

    /// The exit of the body by a `return` of `value` here.
    fn exit(&self, value: Value) -> Exit {
        Exit {
            guard: self.guard.clone(),
            value,
            watched: self.watched_now(),
        }
    }
}

/// A type as the program writes it: `Tensor[n, 8]`, `(Tensor, Int)`.
pub(crate) fn describe_type(ty: &ast::Type) -> String {
    match &ty.kind {
        ast::TypeKind::Int | ast::TypeKind::Number => "Int".to_owned(),
        ast::TypeKind::Bool => "Bool".to_owned(),
        ast::TypeKind::Float => "Float".to_owned(),
        ast::TypeKind::Shape => "Shape".to_owned(),
        ast::TypeKind::Tensor { dims: None } => "Tensor".to_owned(),
        ast::TypeKind::Tensor { dims: Some(dims) } => format!(
            "Tensor[{}]",
            dims.iter().map(describe_dim).collect::<Vec<_>>().join(", ")
        ),
        ast::TypeKind::Tuple(items) => format!(
            "({})",
            items
                .iter()
                .map(describe_type)
                .collect::<Vec<_>>()
                .join(", ")
        ),
        ast::TypeKind::Named(name) => name.text.clone(),
        ast::TypeKind::Missing => "_".to_owned(),
    }
}

fn describe_dim(dim: &ast::Dim) -> String {
    match dim {
        ast::Dim::Unknown(_) => "?".to_owned(),
        ast::Dim::Segment { name, .. } => format!("..{}", name.text),
        ast::Dim::Expr(expr) => describe(expr),
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

/// The name a described value starts with: `z` of `z.shape[-1]`.
fn leading_name(text: &str) -> &str {
    let end = text
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(text.len());
    &text[..end]
}
