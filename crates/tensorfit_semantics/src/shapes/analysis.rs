//! One analysis of a file: summaries of its functions, checked once each.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::Arc;

use tensorfit_base::{Diagnostic, TextRange};
use tensorfit_solver::{Formula, Limits, Term, VarId};
use tensorfit_syntax::ast;

use super::check;
use super::conditions::{self, DecidedCondition};
use super::exec::{Frame, ShapeRecord};
use super::fact::{Fact, FactKind};
use super::holes::{self, ClaimPart, HolePath, Place};
use super::limits::{self, LimitKind, SummaryDepth};
use super::migration::{self, Migration};
use super::program::{FunctionRef, Program};
use super::shown::{self, ShownShape};
use super::value::{Shape, Value};
use super::vars::VarGen;

/// What a function means to its callers: placeholders for its parameters,
/// the facts its body states about them (minus those that fail on their
/// own, which are reported inside the function), and its result.
///
/// A summary is self-contained: its variables are those of the analysis
/// that made it (`first_var..end_var`, named in `var_names`) and holes, so
/// that it can be cached and instantiated by other analyses.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    /// The summarised function (for facts of deferred operations).
    pub function: Option<String>,
    pub params: Vec<(String, Value)>,
    /// Rank-dependent operations to apply at each call, in order.
    pub deferred: Vec<super::exec::Deferred>,
    pub facts: Vec<Fact>,
    pub result: Value,
    /// The function's shapes (and those of its callees, through its calls),
    /// instantiated at each call for hover's per-call shapes.
    pub records: Vec<ShapeRecord>,
    /// Variables created while summarising, renamed at each call.
    pub first_var: VarId,
    pub end_var: VarId,
    pub var_names: Arc<BTreeMap<VarId, String>>,
    /// The function's conditions on unknown values
    /// ([`Analysis::opaque_vars`]): what it states on paths they decide is
    /// only assumed at a call.
    pub opaque_vars: Arc<BTreeSet<VarId>>,
    /// The parameters that held a list or a dict at entry, with their
    /// values when the function returns: what a caller's container passed
    /// there holds after the call. A parameter not here is not followed
    /// (see `exec::in_place`).
    pub in_place: Vec<(String, Value)>,
    /// The function lost track of a value that known numbers would have
    /// decided (a name formatted from a number, a list or module built in
    /// a loop whose count is a placeholder): a call that passes known
    /// numbers gets a summary of its own (see `exec::specialise`).
    pub numbers_decide: bool,
    /// An operation of the function needed the rank of a tensor it does
    /// not know (`x.chunk(2, dim=1)` of a parameter): a call that passes
    /// tensors of known ranks gets a summary of its own.
    pub ranks_decide: bool,
}

/// Where an analysis gets the summaries of the checked file's functions
/// from: a cache shared by every analysis of the file (the incremental
/// database, or a memo for a one-off check). `None` for a function that is
/// being summarised (a recursive call) or that does not exist.
pub trait SummarySource {
    fn summary(&self, key: &str) -> Option<Arc<Summary>>;

    /// The summary of the function `key` of the `import`th import (in the
    /// order the imports were given), if the source keeps those too:
    /// `None` has the analysis summarise it itself. A summary given here
    /// must carry no shape records (an imported function's shapes are not
    /// the checked file's) and the imported file's own offsets.
    fn imported_summary(&self, import: usize, key: &str) -> Option<Option<Arc<Summary>>> {
        let _ = (import, key);
        None
    }

    /// The body of the file's function `key`, for an analysis that sees
    /// only the file's interface (see `Analysis::summary_for_arguments`).
    fn body(&self, key: &str) -> Option<Arc<ast::Block>> {
        let _ = key;
        None
    }

    /// The body of the function `key` of the `import`th import, which the
    /// importing file's interface does not carry: a call that passes it
    /// values its placeholders cannot stand for (`head(x, 10)`) summarises
    /// it again for them, as a function of the same file would be.
    fn imported_body(&self, import: usize, key: &str) -> Option<Arc<ast::Block>> {
        let _ = (import, key);
        None
    }
}

/// The outcome of checking one entry point.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EntryReport {
    pub function: Option<String>,
    pub diagnostics: Vec<Diagnostic>,
    pub shapes: Vec<ShownShape>,
    pub conditions: Vec<DecidedCondition>,
    /// What the function asks of its callers beyond its signature.
    pub preconditions: Vec<String>,
}

pub struct Analysis<'a> {
    pub program: Program<'a>,
    pub vars: VarGen,
    pub limits: Limits,
    /// Holes, migrations and decided conditions are wanted.
    pub questions: bool,
    /// Whether shapes shown and migrations are worked out.
    pub depth: super::Depth,
    /// The file's language: how messages write what they quote.
    pub language: tensorfit_base::Language,
    /// What its constructs mean where the languages differ.
    pub semantics: super::semantics::Semantics,
    /// How its shapes' arithmetic is written (`//` in Python).
    pub notation: super::display::Notation,
    /// The variables that stand for a condition or a loop count computed
    /// from a value nothing is known of: a path they decide may never be
    /// taken, so a failure only on such paths is no proof (see
    /// `check::check_paths`).
    pub opaque_vars: RefCell<BTreeSet<VarId>>,
    /// The variables of Python numbers that may hold a float
    /// (`ast::TypeKind::Number`) made by this analysis: a comparison that
    /// orders one is not decided over the integers, where `0 < p < 1`
    /// never holds (see `Frame::orders_a_fraction`). A summary made by
    /// another analysis does not carry them: its renamed variables are
    /// read as integers.
    pub fractional_vars: RefCell<BTreeSet<VarId>>,
    /// Summaries of the file's own functions; imported ones are made here.
    source: Option<&'a dyn SummarySource>,
    /// The holes this analysis evaluated.
    holes: RefCell<BTreeMap<TextRange, VarId>>,
    /// `None` while the function is being summarised (a recursive call).
    summaries: RefCell<HashMap<String, Option<Arc<Summary>>>>,
    /// Functions summarised for the values of single calls, by function
    /// and values.
    instance_summaries: RefCell<HashMap<String, Option<Arc<Summary>>>>,
    /// The functions being summarised for a call's values right now. A
    /// recursive call of one gets no summary of its own: its values may
    /// differ at every level (`close(a, e, msg=f"{msg} [{i}]")` in
    /// diffusers' test helpers), which went a thousand summaries deep.
    specialising: RefCell<HashSet<String>>,
    pub reports: RefCell<Vec<EntryReport>>,
    /// Names the program gives to dimensions (`let batch = x.shape[0]`).
    names: RefCell<HashMap<Term, String>>,
    /// The paths of every entry point that mention a hole.
    pub hole_paths: RefCell<Vec<HolePath>>,
    /// Where errors were reported, in any entry point.
    pub set_aside_places: RefCell<HashSet<Place>>,
    /// The claims (parts, see [`Fact::part`]) of called functions that
    /// failed for a call made here.
    pub refuted_claims: RefCell<HashSet<ClaimPart>>,
    /// The calls made here that fail a precondition of the called function
    /// (not only a claim of it): they show no shape a parameter may have.
    /// Only with questions (migrations read them).
    pub failed_calls: RefCell<HashSet<TextRange>>,
    /// The entry point's own claims that are checked but not assumed: those
    /// that fail for some call of it (LANGUAGE.md §5, "a failed claim is
    /// not assumed afterwards").
    pub not_assumed: HashSet<ClaimPart>,
    /// The migrations of the file's functions' parameters.
    pub migrations: RefCell<Vec<Migration>>,
    /// The bounds this analysis reached.
    pub limits_hit: RefCell<BTreeSet<LimitKind>>,
}

impl<'a> Analysis<'a> {
    pub fn new(
        program: Program<'a>,
        options: super::ShapeOptions,
        source: Option<&'a dyn SummarySource>,
    ) -> Self {
        Analysis {
            program,
            vars: VarGen::default(),
            limits: options.limits,
            questions: options.questions,
            depth: super::Depth::Everything,
            language: options.language,
            semantics: super::semantics::Semantics::of(options.language),
            notation: super::display::Notation::of(options.language),
            opaque_vars: RefCell::new(BTreeSet::new()),
            fractional_vars: RefCell::new(BTreeSet::new()),
            source,
            holes: RefCell::new(BTreeMap::new()),
            summaries: RefCell::new(HashMap::new()),
            instance_summaries: RefCell::new(HashMap::new()),
            specialising: RefCell::new(HashSet::new()),
            reports: RefCell::new(Vec::new()),
            names: RefCell::new(HashMap::new()),
            hole_paths: RefCell::new(Vec::new()),
            limits_hit: RefCell::new(BTreeSet::new()),
            set_aside_places: RefCell::new(HashSet::new()),
            refuted_claims: RefCell::new(HashSet::new()),
            failed_calls: RefCell::new(HashSet::new()),
            not_assumed: HashSet::new(),
            migrations: RefCell::new(Vec::new()),
        }
    }

    /// The unknown of the hole at `range`: the same in every analysis and
    /// every call, as a hole is a constant of the program.
    pub fn hole(&self, range: TextRange) -> VarId {
        *self
            .holes
            .borrow_mut()
            .entry(range)
            .or_insert_with(|| self.vars.hole(range))
    }

    /// Remembers that the program calls `term` `name` (the first name wins).
    pub fn name_term(&self, term: &Term, name: &str) {
        if term.as_const().is_none() {
            self.names
                .borrow_mut()
                .entry(term.clone())
                .or_insert_with(|| name.to_owned());
        }
    }

    pub fn term_name(&self, term: &Term) -> Option<String> {
        self.names.borrow().get(term).cloned()
    }

    pub fn holes_by_range(&self) -> BTreeMap<TextRange, VarId> {
        self.holes.borrow().clone()
    }

    /// What later questions (holes) need of a checked entry point.
    fn remember(&self, facts: &[Fact], outcome: &check::EntryOutcome) {
        // Kept even without questions: the callee's own diagnostics
        // depend on them.
        self.refuted_claims.borrow_mut().extend(
            outcome
                .set_aside
                .iter()
                .map(|i| &facts[*i])
                .filter(|fact| fact.kind == FactKind::Claim && !fact.via.is_empty())
                .map(|fact| ((fact.function.clone(), fact.range), fact.part)),
        );
        if !self.questions {
            return;
        }
        self.failed_calls.borrow_mut().extend(
            outcome
                .set_aside
                .iter()
                .map(|i| &facts[*i])
                .filter(|fact| fact.kind != FactKind::Claim)
                .filter_map(|fact| fact.via.first().map(|call| call.range)),
        );
        self.set_aside_places.borrow_mut().extend(
            outcome
                .set_aside
                .iter()
                .map(|i| (facts[*i].function.clone(), facts[*i].range)),
        );
        self.hole_paths
            .borrow_mut()
            .extend(holes::paths_with_holes(facts, &outcome.consistent));
    }

    /// Answers one question about the entry point (its shown shapes, a
    /// parameter's migration, its decided conditions) within
    /// [`limits::QUESTION_NODES`] and the time of a few queries; `None`
    /// (nothing to say) past them.
    pub fn question<R>(&self, ask: impl FnOnce() -> R) -> Option<R> {
        let time = self
            .limits
            .timeout_ms
            .saturating_mul(limits::QUESTION_QUERIES);
        let answer = tensorfit_solver::with_allowance(limits::QUESTION_NODES, time, ask);
        if answer.is_none() {
            self.hit(LimitKind::Question);
        }
        answer
    }

    /// Notes that a bound was reached (the part past it says nothing).
    pub fn hit(&self, kind: LimitKind) {
        self.limits_hit.borrow_mut().insert(kind);
    }

    /// The summary of `function`: this analysis's own (being made, or made),
    /// the source's for the file's functions, or made here (imports).
    pub fn summary(&self, function: FunctionRef<'a>) -> Option<Arc<Summary>> {
        let key = function.key();
        if let Some(known) = self.summaries.borrow().get(&key) {
            return known.clone();
        }
        // A closure is made by the body this analysis runs: no source
        // knows it.
        if function.is_closure() {
            return self.summarise_here(function);
        }
        if let (true, Some(source)) = (function.local, self.source) {
            return source.summary(&key);
        }
        let import = self.program.import_of(&function);
        if let (Some(import), Some(source)) = (import, self.source) {
            if let Some(summary) = source.imported_summary(import, &key) {
                return summary;
            }
        }
        self.summarise_here(function)
    }

    /// The summary of `function` for calls that pass the values `fixed`
    /// (see `exec::specialise`), made once per such values and analysis;
    /// `None` past [`limits::MAX_CALL_SUMMARIES`] or in a recursive call.
    pub fn summary_for_arguments(
        &self,
        function: FunctionRef<'a>,
        fixed: &[(String, Value)],
    ) -> Option<Arc<Summary>> {
        use std::hash::{Hash, Hasher};
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        format!("{fixed:?}").hash(&mut hasher);
        let key = format!("{}#{:x}", function.key(), hasher.finish());
        if let Some(known) = self.instance_summaries.borrow().get(&key) {
            return known.clone();
        }
        if self.instance_summaries.borrow().len() >= limits::MAX_CALL_SUMMARIES {
            self.hit(LimitKind::CallSummaries);
            return None;
        }
        // A recursive call: unknown, as with the same values (`None`
        // above, while that summary is made).
        if self.specialising.borrow().contains(&function.key()) {
            return None;
        }
        let Some(_nested) = SummaryDepth::enter() else {
            self.hit(LimitKind::CallDepth);
            return None;
        };
        self.instance_summaries
            .borrow_mut()
            .insert(key.clone(), None);
        self.specialising.borrow_mut().insert(function.key());
        let (summary, _, _) = self.summarise(function.clone(), Some(fixed));
        self.specialising.borrow_mut().remove(&function.key());
        let summary = Arc::new(summary);
        self.instance_summaries
            .borrow_mut()
            .insert(key, Some(summary.clone()));
        Some(summary)
    }

    /// Summarises `function` in this analysis (checking it, and finding
    /// the migrations of its parameters).
    pub fn summarise_here(&self, function: FunctionRef<'a>) -> Option<Arc<Summary>> {
        let key = function.key();
        let Some(_nested) = SummaryDepth::enter() else {
            // A call chain deeper than any real program: its result is
            // unknown (LANGUAGE.md §5), and the stack stays bounded.
            self.hit(LimitKind::CallDepth);
            return None;
        };
        self.summaries.borrow_mut().insert(key.clone(), None);
        let (summary, mut migrations, paths) = self.summarise(function.clone(), None);
        let summary = Arc::new(summary);
        self.summaries
            .borrow_mut()
            .insert(key, Some(summary.clone()));
        // Examples are found by calling the summary, so only now.
        for migration in &mut migrations {
            let Some((_, placeholder)) = summary
                .params
                .iter()
                .find(|(n, _)| *n == migration.parameter)
            else {
                continue;
            };
            let mut ranks = migration::candidate_ranks(placeholder, migration.forced_rank);
            let query = migration::ExampleQuery {
                function: function.clone(),
                summary: &summary,
                placeholder,
                paths: &paths,
            };
            self.question(|| {
                if let Some(rank) = migration::determine_rank(self, &query, migration, &ranks) {
                    ranks = vec![rank];
                }
                migration::find_example(self, &query, migration, &ranks)
            });
        }
        self.migrations.borrow_mut().extend(migrations);
        Some(summary)
    }

    /// The function's summary, the migrations of its parameters still
    /// without examples, and its own paths, which an example must keep
    /// holding ([`migration::paths`]).
    ///
    /// With `fixed`, the summary for calls that pass those values
    /// ([`Analysis::summary_for_arguments`]); they are not parameters of
    /// the summary, which every such call shares.
    fn summarise(
        &self,
        function: FunctionRef<'a>,
        fixed: Option<&[(String, Value)]>,
    ) -> (Summary, Vec<Migration>, Vec<migration::PathFacts>) {
        let key = function.key();
        let first_var = self.vars.now();
        let mut frame = Frame::new(self, Some(key.clone()));
        // A summary for a call's own terms runs on the caller's unknowns:
        // the names it binds them to (`n, c, h, w = x.size()`) are not the
        // caller's, whose shapes would show them.
        frame.names_terms = !fixed.is_some_and(|fixed| {
            fixed
                .iter()
                .any(|(_, value)| super::exec::holds_symbolic_term(value))
        });
        let mut params = Vec::new();
        let fixed_value = |name: &str| {
            fixed
                .and_then(|f| f.iter().find(|(n, _)| n == name))
                .map(|(_, v)| v.clone())
        };
        if let Some(instance) = fixed_value("self") {
            frame.set_self(instance);
        } else if let Some(owner) = function.owner.filter(|_| function.function.has_self()) {
            let owner_params: Vec<(String, Value, String)> = owner
                .params
                .iter()
                .flatten()
                .map(|p| {
                    (
                        p.name.text.clone(),
                        placeholder(&mut frame, p.ty.as_ref(), &p.name.text, p.range),
                        p.name.text.clone(),
                    )
                })
                .collect();
            let instance = frame.construct_assumed(owner, owner_params);
            frame.set_self(instance.clone());
            params.push(("self".to_owned(), instance));
        }
        for param in function.function.params.iter().filter(|p| !p.is_self) {
            if let Some(value) = fixed_value(&param.name.text) {
                frame.watch_in_place(&param.name.text, &value);
                frame.define(&param.name.text, value, None, param.name.range);
                continue;
            }
            let value = placeholder(&mut frame, param.ty.as_ref(), &param.name.text, param.range);
            frame.watch_in_place(&param.name.text, &value);
            frame.define(&param.name.text, value.clone(), None, param.name.range);
            frame.record(&param.name.text, param.name.range, &value);
            params.push((param.name.text.clone(), value));
        }
        for clause in &function.function.where_clauses {
            let condition = frame.condition(clause);
            let explain = frame.explain_where(clause);
            frame.require(condition, FactKind::Precondition, clause.range, explain);
        }
        // A summary for fixed arguments is made in its callers' analyses,
        // which see the file's interface, without bodies: the source has
        // the body.
        let fetched = match (&function.function.body, fixed, self.source) {
            (None, Some(_), Some(source)) if function.local => source.body(&key),
            (None, Some(_), Some(source)) => self
                .program
                .import_of(&function)
                .and_then(|import| source.imported_body(import, &key)),
            _ => None,
        };
        if fixed.is_some() && function.function.body.is_none() && fetched.is_none() {
            let summary = self.unknown_summary(key, params, first_var);
            return (summary, Vec::new(), Vec::new());
        }
        let mut in_place = Vec::new();
        let result = match function.function.body.as_ref().or(fetched.as_deref()) {
            Some(body) => {
                frame.result_type = function.function.return_type.clone();
                frame.body(&body.stmts);
                frame.require_return_at_end(body);
                in_place = frame.changed_in_place();
                let returned = frame.result();
                match &function.function.return_type {
                    Some(ty) => declared_result(&mut frame, ty, returned, body.range),
                    None => returned,
                }
            }
            None => match &function.function.return_type {
                Some(ty) => instantiate_type(&mut frame, ty, function.function.range),
                None => Value::None,
            },
        };
        let end_var = self.vars.now();
        if frame.out_of_steps() {
            // Past its budget a body says nothing, to its callers either.
            self.hit(frame.stopped_by());
            return self.saying_nothing(function, key, params, first_var);
        }
        if fixed.is_some() {
            // Checked at each call, where the instance comes from: the
            // method's own report is its placeholder summary's.
            let summary = Summary {
                function: Some(key),
                params,
                deferred: std::mem::take(&mut frame.deferred),
                facts: std::mem::take(&mut frame.facts),
                result,
                records: Vec::new(),
                first_var,
                end_var,
                var_names: Arc::new(self.vars.names_between(first_var, end_var)),
                opaque_vars: self.opaque_between(first_var, end_var),
                in_place,
                numbers_decide: frame.numbers_decide,
                ranks_decide: frame.ranks_decide,
            };
            return (summary, Vec::new(), Vec::new());
        }
        let precondition = frame.precondition_facts.unwrap_or(frame.facts.len());
        let facts = std::mem::take(&mut frame.facts);
        if self.semantics.untyped_parameters_may_be_any_value
            && check::guards_refute_parameters(self, &facts)
        {
            return self.saying_nothing(function, key, params, first_var);
        }
        let mut outcome = check::check_entry(self, &facts, precondition);
        self.remember(&facts, &outcome);
        let mut migrations = Vec::new();
        let mut paths = Vec::new();
        let records = if function.local {
            let (warnings, unproven) =
                super::kernels::bound_warnings(self, &facts, &outcome, &frame.kernel_bounds);
            outcome.diagnostics.extend(warnings);
            outcome
                .diagnostics
                .extend(std::mem::take(&mut frame.argument_problems));
            let records = std::mem::take(&mut frame.records);
            let mut hidden = outcome.set_aside.clone();
            hidden.extend(unproven);
            let shapes = self.shown(&facts, &hidden, &records);
            let conditions = match self.questions {
                true => self
                    .question(|| {
                        conditions::decide(self, &facts, &outcome.set_aside, &frame.conditions)
                    })
                    .unwrap_or_default(),
                false => Vec::new(),
            };
            migrations = function
                .function
                .params
                .iter()
                .filter(|_| self.depth == super::Depth::Everything)
                .filter(|p| self.questions && !p.is_self && migration::is_gradual(p.ty.as_ref()))
                .filter_map(|p| {
                    let (_, value) = params.iter().find(|(n, _)| *n == p.name.text)?;
                    self.question(|| migration::migrate(self, &key, p, value, &facts))
                        .flatten()
                })
                .collect();
            if !migrations.is_empty() {
                paths = migration::paths(&facts, &outcome);
            }
            let preconditions =
                super::preconditions::describe(self, function, &facts, &outcome.set_aside);
            self.reports.borrow_mut().push(EntryReport {
                function: Some(key.clone()),
                diagnostics: outcome.diagnostics,
                shapes,
                conditions,
                preconditions,
            });
            records
        } else {
            // Ranges in another file mean nothing to this file's callers.
            Vec::new()
        };
        let facts = facts
            .into_iter()
            .enumerate()
            .filter(|(i, _)| !outcome.set_aside.contains(i))
            .map(|(_, f)| f)
            .collect();
        let deferred = std::mem::take(&mut frame.deferred);
        let summary = Summary {
            function: Some(key),
            params,
            deferred,
            facts,
            result,
            records,
            first_var,
            end_var,
            var_names: Arc::new(self.vars.names_between(first_var, end_var)),
            opaque_vars: self.opaque_between(first_var, end_var),
            in_place,
            numbers_decide: frame.numbers_decide,
            ranks_decide: frame.ranks_decide,
        };
        (summary, migrations, paths)
    }

    /// What a function that says nothing gives: an empty report of its own
    /// (if it is the file's) and a summary that tells its callers nothing.
    fn saying_nothing(
        &self,
        function: FunctionRef<'a>,
        key: String,
        params: Vec<(String, Value)>,
        first_var: VarId,
    ) -> (Summary, Vec<Migration>, Vec<migration::PathFacts>) {
        if function.local {
            self.reports.borrow_mut().push(EntryReport {
                function: Some(key.clone()),
                ..EntryReport::default()
            });
        }
        let summary = self.unknown_summary(key, params, first_var);
        (summary, Vec::new(), Vec::new())
    }

    /// The opaque variables made while summarising one function.
    fn opaque_between(&self, first: VarId, end: VarId) -> Arc<BTreeSet<VarId>> {
        Arc::new(
            self.opaque_vars
                .borrow()
                .range(first..end)
                .copied()
                .collect(),
        )
    }

    /// A summary that says nothing: no facts, an unknown result.
    fn unknown_summary(
        &self,
        key: String,
        params: Vec<(String, Value)>,
        first_var: VarId,
    ) -> Summary {
        let end_var = self.vars.now();
        Summary {
            function: Some(key),
            params,
            deferred: Vec::new(),
            facts: Vec::new(),
            result: Value::Unknown,
            records: Vec::new(),
            first_var,
            end_var,
            var_names: Arc::new(self.vars.names_between(first_var, end_var)),
            opaque_vars: self.opaque_between(first_var, end_var),
            in_place: Vec::new(),
            numbers_decide: false,
            ranks_decide: false,
        }
    }

    /// The shapes shown of an entry point's bindings and expressions, when
    /// its analysis goes that deep.
    fn shown(
        &self,
        facts: &[Fact],
        hidden: &HashSet<usize>,
        records: &[ShapeRecord],
    ) -> Vec<ShownShape> {
        match self.depth {
            super::Depth::Checks => Vec::new(),
            super::Depth::Everything => self
                .question(|| shown::show(self, facts, hidden, records))
                .unwrap_or_default(),
        }
    }

    /// Checks the script body (top-level statements).
    pub fn check_script(&self, script: &[ast::Stmt]) {
        let mut frame = Frame::new(self, None);
        frame.body(script);
        if frame.out_of_steps() {
            self.hit(frame.stopped_by());
            self.reports.borrow_mut().push(EntryReport::default());
            return;
        }
        let facts = std::mem::take(&mut frame.facts);
        // The script has no precondition.
        let mut outcome = check::check_entry(self, &facts, 0);
        self.remember(&facts, &outcome);
        let (warnings, unproven) =
            super::kernels::bound_warnings(self, &facts, &outcome, &frame.kernel_bounds);
        outcome.diagnostics.extend(warnings);
        outcome
            .diagnostics
            .extend(std::mem::take(&mut frame.argument_problems));
        let mut hidden = outcome.set_aside.clone();
        hidden.extend(unproven);
        let shapes = self.shown(&facts, &hidden, &frame.records);
        let conditions = match self.questions {
            true => self
                .question(|| {
                    conditions::decide(self, &facts, &outcome.set_aside, &frame.conditions)
                })
                .unwrap_or_default(),
            false => Vec::new(),
        };
        self.reports.borrow_mut().push(EntryReport {
            function: None,
            diagnostics: outcome.diagnostics,
            shapes,
            conditions,
            preconditions: Vec::new(),
        });
    }
}

/// The symbolic value of a parameter declared with `ty`: fresh unknowns
/// named after the program (`x`, `n`), bound in the frame as they appear.
pub fn placeholder(
    frame: &mut Frame<'_, '_>,
    ty: Option<&ast::Type>,
    name: &str,
    range: TextRange,
) -> Value {
    let Some(ty) = ty else { return Value::Unknown };
    match &ty.kind {
        ast::TypeKind::Int => Value::Int(Term::var(frame.analysis.vars.named(name))),
        ast::TypeKind::Number => {
            let v = frame.analysis.vars.named(name);
            frame.analysis.fractional_vars.borrow_mut().insert(v);
            Value::Int(Term::var(v))
        }
        ast::TypeKind::Bool => Value::Bool(Formula::var(frame.analysis.vars.named(name))),
        ast::TypeKind::Float => Value::Float(None),
        ast::TypeKind::Shape => {
            let shape = Shape::opaque(frame.analysis.vars.named(name));
            frame.assume(shape.well_formed(), range);
            Value::Shape(shape)
        }
        ast::TypeKind::Tensor { dims: None } => {
            let shape = Shape::opaque(frame.analysis.vars.named(name));
            frame.assume(shape.well_formed(), range);
            Value::Tensor(shape)
        }
        ast::TypeKind::Tensor { dims: Some(dims) } => {
            Value::Tensor(pattern_shape(frame, dims, name, range, true))
        }
        ast::TypeKind::Tuple(items) => Value::Tuple(
            items
                .iter()
                .enumerate()
                .map(|(i, t)| placeholder(frame, Some(t), &format!("{name}.{i}"), range))
                .collect(),
        ),
        ast::TypeKind::Named(_) | ast::TypeKind::Missing => Value::Unknown,
    }
}

/// The shape a `Tensor[...]` type describes: the dimensions before the
/// segment, the segment (if any), the dimensions after it. Names not yet
/// bound become fresh dimensions (with `binds`, bound for the rest of the
/// signature).
fn pattern_shape(
    frame: &mut Frame<'_, '_>,
    dims: &[ast::Dim],
    name: &str,
    range: TextRange,
    binds: bool,
) -> Shape {
    let mut before = Vec::new();
    let mut segment: Option<Shape> = None;
    let mut after = Vec::new();
    for (i, dim) in dims.iter().enumerate() {
        let term = match dim {
            ast::Dim::Unknown(_) => {
                let t = Term::var(frame.analysis.vars.named(&format!("{name}.shape[{i}]")));
                frame.assume(Formula::ge(&t, &Term::int(1)), range);
                t
            }
            ast::Dim::Segment {
                name: segment_name,
                args,
                ..
            } => {
                segment = Some(segment_shape(
                    frame,
                    &segment_name.text,
                    args.as_deref(),
                    range,
                    binds,
                ));
                continue;
            }
            ast::Dim::Expr(expr) => match &expr.kind {
                ExprName(n) if frame_lookup_int(frame, n).is_none() => {
                    let t = Term::var(frame.analysis.vars.named(n));
                    frame.assume(Formula::ge(&t, &Term::int(1)), range);
                    if binds {
                        frame.bind(n, Value::Int(t.clone()), None);
                    }
                    t
                }
                _ => frame.int(expr),
            },
        };
        if segment.is_some() {
            after.push(term);
        } else {
            before.push(term);
        }
    }
    let Some(segment) = segment else {
        return Shape::known(before);
    };
    Shape::known(before)
        .concat(&segment)
        .and_then(|s| s.concat(&Shape::known(after)))
        .unwrap_or_else(|| Shape::opaque(frame.analysis.vars.fresh()))
}

/// `..name` (bound on first sight) or `..broadcast(a, b)`.
fn segment_shape(
    frame: &mut Frame<'_, '_>,
    name: &str,
    args: Option<&[ast::Name]>,
    range: TextRange,
    binds: bool,
) -> Shape {
    if let Some(args) = args {
        let shapes: Vec<Shape> = args
            .iter()
            .filter_map(|a| segment_of(frame, &a.text))
            .collect();
        return match shapes.as_slice() {
            [a, b] => super::rules::broadcast(frame, a, b, (&args[0].text, &args[1].text), range),
            _ => Shape::opaque(frame.analysis.vars.fresh()),
        };
    }
    if let Some(bound) = segment_of(frame, name) {
        return bound;
    }
    let shape = Shape::opaque(frame.analysis.vars.named(&format!("..{name}")));
    frame.assume(shape.well_formed(), range);
    if binds {
        frame.bind(&format!("..{name}"), Value::Shape(shape.clone()), None);
    }
    shape
}

use tensorfit_syntax::ast::ExprKind::Name as ExprName;

fn frame_lookup_int(frame: &mut Frame<'_, '_>, name: &str) -> Option<Term> {
    frame.value_of(name)?.as_int().cloned()
}

/// A segment bound earlier in the signature (kept under `..name`).
fn segment_of(frame: &mut Frame<'_, '_>, name: &str) -> Option<Shape> {
    match frame.value_of(&format!("..{name}"))? {
        Value::Shape(shape) => Some(shape),
        _ => None,
    }
}

/// What callers see of a function with a result type: the declared type
/// where it states a dimension in terms of the signature, the returned
/// value where it leaves one open (`?`, a name of its own, a segment, a
/// bare `Tensor`). Where the type holds the two agree; where it does not,
/// the `return` is the one error and callers go on from the declaration.
fn declared_result(
    frame: &mut Frame<'_, '_>,
    ty: &ast::Type,
    returned: Value,
    range: TextRange,
) -> Value {
    let ast::TypeKind::Tensor { dims: Some(dims) } = &ty.kind else {
        return returned;
    };
    let stated: Vec<Option<Term>> = dims
        .iter()
        .map(|dim| match dim {
            ast::Dim::Expr(expr) if names_are_bound(frame, expr) => Some(frame.int(expr)),
            _ => None,
        })
        .collect();
    if stated.iter().all(Option::is_some) {
        return Value::Tensor(Shape::known(stated.into_iter().flatten().collect()));
    }
    let returned_dims = returned
        .tensor_shape()
        .and_then(|shape| shape.dims().map(<[Term]>::to_vec));
    match returned_dims {
        Some(actual) if actual.len() == stated.len() => Value::Tensor(Shape::known(
            stated
                .into_iter()
                .zip(actual)
                .map(|(stated, actual)| stated.unwrap_or(actual))
                .collect(),
        )),
        _ if matches!(returned, Value::Tensor(_)) => returned,
        _ => instantiate_type(frame, ty, range),
    }
}

/// Every name in `expr` has a value here (a parameter, a dimension of the
/// signature, a constant).
fn names_are_bound(frame: &mut Frame<'_, '_>, expr: &ast::Expr) -> bool {
    match &expr.kind {
        ast::ExprKind::Int(_) => true,
        ExprName(name) => {
            frame.value_of(name).is_some() || frame.analysis.program.constant(name).is_some()
        }
        ast::ExprKind::Unary { operand, .. } => names_are_bound(frame, operand),
        ast::ExprKind::Binary { lhs, rhs, .. } => {
            names_are_bound(frame, lhs) && names_are_bound(frame, rhs)
        }
        _ => false,
    }
}

/// A contract's result type, with the names its parameters bound.
fn instantiate_type(frame: &mut Frame<'_, '_>, ty: &ast::Type, range: TextRange) -> Value {
    match &ty.kind {
        ast::TypeKind::Tensor { dims: Some(dims) } => {
            Value::Tensor(pattern_shape(frame, dims, "result", range, false))
        }
        ast::TypeKind::Tensor { dims: None } => {
            let shape = Shape::opaque(frame.analysis.vars.fresh());
            frame.assume(shape.well_formed(), range);
            Value::Tensor(shape)
        }
        ast::TypeKind::Int | ast::TypeKind::Number => Value::Int(frame.fresh_int()),
        // What an operation answers about its data (`torch.equal`): a
        // path it decides is not known to be taken.
        ast::TypeKind::Bool => Value::Bool(frame.opaque_condition()),
        ast::TypeKind::Float => Value::Float(None),
        ast::TypeKind::Shape => Value::Shape(Shape::opaque(frame.analysis.vars.fresh())),
        _ => Value::Unknown,
    }
}
