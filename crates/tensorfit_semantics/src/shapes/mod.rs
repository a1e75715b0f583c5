//! Shape analysis: symbolic execution of every entry point into facts,
//! checked with the solver (LANGUAGE.md §5).

mod analysis;
mod call_path;
mod check;
mod conditions;
mod describe;
mod display;
mod einsum;
mod elements;
mod exec;
mod fact;
mod guard_index;
mod holes;
mod kernels;
mod limits;
mod migration;
mod preconditions;
mod program;
mod ranges;
mod rules;
mod semantics;
mod shown;
mod substitution;
#[cfg(test)]
mod summary_size_tests;
mod value;
mod vars;

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

use tensorfit_base::{Diagnostic, Language, TextRange};
use tensorfit_solver::{Limits, VarId};
use tensorfit_syntax::ast;

use crate::environment::Environment;
use crate::resolved_import::ResolvedImport;

pub use analysis::{EntryReport, Summary, SummarySource};
pub use conditions::DecidedCondition;
pub use holes::{ClaimPart, HolePath, HoleSolution, Place};
pub use limits::{file_time, LimitHit, LimitKind};
pub use migration::{Migration, Requirement, Writing};
pub use program::ItemIndex;
pub use ranges::{MapRanges, RangeMap};

/// The shape of a binding or an expression, as hover and the JSON report
/// show it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShapeInfo {
    /// The bound name; `None` for an expression.
    pub name: Option<String>,
    pub range: TextRange,
    /// `Struct.method`, a function name, or `None` for the script body.
    pub function: Option<String>,
    /// The shape that holds for every call (and every path reaching here).
    pub shape: String,
    /// The concrete shapes at the calls whose arguments fix them.
    pub at_calls: Vec<CallShape>,
}

/// A shape fixed by a call: `calls` leads from the outermost call (in the
/// entry point that makes it) to the call of the function itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallShape {
    pub calls: Vec<TextRange>,
    pub shape: String,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct ShapeReport {
    pub diagnostics: Vec<Diagnostic>,
    pub findings: ShapeFindings,
}

/// What the shape check finds besides diagnostics: the data hover, the
/// JSON report and the fixes are made of.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ShapeFindings {
    /// Parameters, `let`s and assignments, in source order.
    pub bindings: Vec<ShapeInfo>,
    /// Every tensor-valued expression, in source order.
    pub expressions: Vec<ShapeInfo>,
    /// Every `__` of the file, in source order.
    pub holes: Vec<HoleSolution>,
    /// Branch conditions on shapes with one possible outcome.
    pub conditions: Vec<DecidedCondition>,
    /// One per parameter written with `?` or as a bare `Tensor`.
    pub migrations: Vec<Migration>,
    /// What each function (by key: `f`, `S.forward`) asks of its callers
    /// beyond its signature, e.g. `x.shape[1] == y.shape[0]`.
    pub preconditions: BTreeMap<String, Vec<String>>,
    /// The bounds reached while checking, each once, sorted.
    pub limits: Vec<LimitHit>,
}

/// What a shape check computes beyond errors and shapes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ShapeOptions {
    pub limits: Limits,
    /// Solve holes, migrations and decided conditions (LANGUAGE.md §9).
    pub questions: bool,
    /// Whose rules the operations follow where the languages differ:
    /// PyTorch creates tensors with a size of 0, the Tensor language does
    /// not (docs/python.md). The database sets it from the file's path.
    pub language: Language,
}

/// How much of a function's analysis is worked out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Depth {
    /// Its checks: diagnostics, decided conditions and the summary its
    /// callers use. What the language server publishes first, while the
    /// user types: the shapes shown of an edited function took three
    /// quarters of its analysis (U-Net's `forward`: 60 of 80 ms).
    Checks,
    /// Also the shapes shown of its bindings and expressions, and its
    /// parameters' migrations.
    Everything,
}

/// What analysing one function (or the script body) gives: its summary for
/// its callers, its own report, and what the file-wide questions need.
/// Ranges are those of the file the analysis was given.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FunctionOutcome {
    /// `None` for the script body and for a key that names nothing.
    pub summary: Option<Arc<Summary>>,
    pub report: EntryReport,
    pub migrations: Vec<Migration>,
    /// The paths that mention a hole, for [`assemble`].
    pub hole_paths: Vec<HolePath>,
    /// Where errors were reported, left out of hole solving.
    pub set_aside: Vec<Place>,
    /// The claims of called functions that fail for a call made here: the
    /// called function's own view does not assume them
    /// ([`claims_refuted_at_calls`]).
    pub refuted_claims: Vec<ClaimPart>,
    /// The calls made here that fail a precondition of the called function.
    pub failed_calls: Vec<TextRange>,
    /// The holes the analysis evaluated.
    pub holes: BTreeMap<TextRange, VarId>,
    /// The bounds the analysis reached (what it left unchecked).
    pub limits: Vec<LimitHit>,
}

/// Analyses the function or method `key` (see [`FunctionRef::key`]) of
/// `file`, taking the summaries of the file's other functions from `source`.
pub fn analyse_function(
    file: &ast::SourceFile,
    imports: &[ResolvedImport],
    key: &str,
    options: ShapeOptions,
    source: &dyn SummarySource,
    not_assumed: &[ClaimPart],
) -> FunctionOutcome {
    let program = program::Program::new(file, Environment::builtin(imports));
    analyse_in(
        program,
        key,
        (options, Depth::Everything),
        source,
        not_assumed,
    )
}

/// [`analyse_function`] for a file whose function bodies are stripped (an
/// interface), indexed once for all its functions: `function` is the key
/// of the function and its definition, body included.
pub fn analyse_function_in_interface(
    interface: &ast::SourceFile,
    index: Arc<ItemIndex>,
    (key, definition): (&str, &ast::Function),
    environment: Environment<'_>,
    options: (ShapeOptions, Depth),
    source: &dyn SummarySource,
    not_assumed: &[ClaimPart],
) -> FunctionOutcome {
    let program = program::Program::indexed(interface, index, environment, Some((key, definition)));
    analyse_in(program, key, options, source, not_assumed)
}

/// `not_assumed`: the function's claims that fail for some call of it
/// ([`claims_refuted_at_calls`]); its own view is analysed without
/// assuming them. Its summary, for its callers, is analysed with none.
fn analyse_in(
    program: program::Program<'_>,
    key: &str,
    (options, depth): (ShapeOptions, Depth),
    source: &dyn SummarySource,
    not_assumed: &[ClaimPart],
) -> FunctionOutcome {
    let Some(function) = program.by_key(key) else {
        return FunctionOutcome::default();
    };
    let mut analysis = analysis::Analysis::new(program, options, Some(source));
    analysis.depth = depth;
    analysis.not_assumed = not_assumed.iter().cloned().collect();
    let summary = limits::within_entry_time(
        options.limits,
        |kind| analysis.hit(kind),
        || analysis.summarise_here(function),
    );
    outcome_of(analysis, summary)
}

/// Analyses `statements` of the script body (the file's top-level
/// statements): all of them, or a group that shares no variable with the
/// rest (see [`crate::independent_groups`]). `file`'s own script is not
/// read, so it may be an interface indexed once for every group.
pub fn analyse_script(
    file: &ast::SourceFile,
    index: Arc<ItemIndex>,
    statements: &[ast::Stmt],
    environment: Environment<'_>,
    (options, depth): (ShapeOptions, Depth),
    source: &dyn SummarySource,
) -> FunctionOutcome {
    let program = program::Program::indexed(file, index, environment, None);
    let mut analysis = analysis::Analysis::new(program, options, Some(source));
    analysis.depth = depth;
    limits::within_entry_time(
        options.limits,
        |kind| analysis.hit(kind),
        || analysis.check_script(statements),
    );
    outcome_of(analysis, None)
}

fn outcome_of(analysis: analysis::Analysis<'_>, summary: Option<Arc<Summary>>) -> FunctionOutcome {
    let holes = analysis.holes_by_range();
    let mut set_aside: Vec<Place> = analysis.set_aside_places.take().into_iter().collect();
    set_aside.sort();
    let mut refuted_claims: Vec<ClaimPart> = analysis.refuted_claims.take().into_iter().collect();
    refuted_claims.sort();
    let mut failed_calls: Vec<TextRange> = analysis.failed_calls.take().into_iter().collect();
    failed_calls.sort();
    let function = analysis
        .reports
        .borrow()
        .last()
        .and_then(|r| r.function.clone());
    let limits = analysis
        .limits_hit
        .take()
        .into_iter()
        .map(|kind| LimitHit {
            kind,
            function: function.clone(),
            from_line: None,
        })
        .collect();
    FunctionOutcome {
        limits,
        summary,
        // Functions summarised here for other files report nothing.
        report: analysis.reports.take().pop().unwrap_or_default(),
        migrations: analysis.migrations.take(),
        hole_paths: analysis.hole_paths.take(),
        set_aside,
        refuted_claims,
        failed_calls,
        holes,
    }
}

/// The claims of the function `key` that fail for some call of it, made
/// in any of `outcomes` (the file's functions and script). A failed claim
/// is not assumed afterwards (LANGUAGE.md §5): the function's own view
/// (its shapes, holes, migrations and the errors of its body) is analysed
/// again without them, while its callers keep the summary that checks them.
pub fn claims_refuted_at_calls(key: &str, outcomes: &[&FunctionOutcome]) -> Vec<ClaimPart> {
    let mut claims: Vec<ClaimPart> = outcomes
        .iter()
        .flat_map(|o| &o.refuted_claims)
        .filter(|((function, _), _)| function.as_deref() == Some(key))
        .cloned()
        .collect();
    claims.sort();
    claims.dedup();
    claims
}

/// The names of the functions and methods [`analyse_function`] takes, in
/// source order.
pub fn entry_keys(file: &ast::SourceFile) -> Vec<String> {
    program::Program::local_entry_points(file)
        .iter()
        .map(|f| f.key())
        .collect()
}

/// Checks every function, method and the script body of a file, at once.
/// The incremental database does the same function by function.
pub fn check_shapes(
    file: &ast::SourceFile,
    imports: &[ResolvedImport],
    options: ShapeOptions,
) -> ShapeReport {
    check_shapes_in_groups(
        file,
        imports,
        options,
        crate::independent_groups(&file.script),
    )
}

/// [`check_shapes`] with the script analysed whole, as one entry point:
/// what analysing it in independent groups must agree with (tested).
pub fn check_shapes_whole_script(
    file: &ast::SourceFile,
    imports: &[ResolvedImport],
    options: ShapeOptions,
) -> ShapeReport {
    let whole = vec![(0..file.script.len()).collect()];
    check_shapes_in_groups(file, imports, options, whole)
}

fn check_shapes_in_groups(
    file: &ast::SourceFile,
    imports: &[ResolvedImport],
    options: ShapeOptions,
    script_groups: Vec<Vec<usize>>,
) -> ShapeReport {
    tensorfit_solver::time_cap::for_file(file_time(options.limits), || {
        let memo = Memo {
            file,
            imports,
            options,
            recursion: crate::RecursiveGroups::of_file(file),
            bases: RefCell::new(HashMap::new()),
            outcomes: RefCell::new(HashMap::new()),
            order: RefCell::new(Vec::new()),
        };
        for key in entry_keys(file) {
            memo.summary(&key);
        }
        let index = Arc::new(ItemIndex::new(file));
        let script: Vec<FunctionOutcome> = script_groups
            .into_iter()
            .map(|group| {
                let statements: Vec<ast::Stmt> =
                    group.iter().map(|&i| file.script[i].clone()).collect();
                analyse_script(
                    file,
                    index.clone(),
                    &statements,
                    Environment::builtin(imports),
                    (options, Depth::Everything),
                    &memo,
                )
            })
            .collect();
        let views = memo.views(&script);
        let outcomes = memo.outcomes.borrow();
        let mut all: Vec<&FunctionOutcome> = memo
            .order
            .borrow()
            .iter()
            .filter_map(|key| views.get(key).or(outcomes.get(key)?.as_ref()))
            .collect();
        all.extend(&script);
        assemble(file, imports, &all, options)
    })
}

/// Summaries for a one-off check: each function analysed once, on first use.
struct Memo<'f> {
    file: &'f ast::SourceFile,
    imports: &'f [ResolvedImport],
    options: ShapeOptions,
    recursion: crate::RecursiveGroups,
    /// The base summaries of the functions in cycles of calls.
    bases: RefCell<HashMap<String, Option<Arc<Summary>>>>,
    /// `None` while the function is being analysed.
    outcomes: RefCell<HashMap<String, Option<FunctionOutcome>>>,
    order: RefCell<Vec<String>>,
}

/// The summaries one function's analysis sees (see
/// [`crate::RecursiveGroups::view`] for those of its own cycle of calls).
struct MemoView<'m, 'f> {
    memo: &'m Memo<'f>,
    cycle: crate::CycleView<'m>,
}

impl SummarySource for MemoView<'_, '_> {
    fn summary(&self, key: &str) -> Option<Arc<Summary>> {
        match self.cycle.callee(key) {
            crate::CalleeSummary::Own => self.memo.summary(key),
            crate::CalleeSummary::Base => self.memo.base_summary(key),
            crate::CalleeSummary::Unknown => None,
        }
    }
}

impl<'f> Memo<'f> {
    fn view<'m>(&'m self, key: &'m str, base: bool) -> MemoView<'m, 'f> {
        MemoView {
            memo: self,
            cycle: self.recursion.view(key, base),
        }
    }

    /// The functions' own views where they differ from their outcomes:
    /// those with claims that fail at calls, analysed again without
    /// assuming them (see [`claims_refuted_at_calls`]).
    fn views(&self, script: &[FunctionOutcome]) -> HashMap<String, FunctionOutcome> {
        let refuted: Vec<(String, Vec<ClaimPart>)> = {
            let outcomes = self.outcomes.borrow();
            let mut all: Vec<&FunctionOutcome> = outcomes.values().flatten().collect();
            all.extend(script);
            self.order
                .borrow()
                .iter()
                .map(|key| (key.clone(), claims_refuted_at_calls(key, &all)))
                .filter(|(_, claims)| !claims.is_empty())
                .collect()
        };
        refuted
            .into_iter()
            .map(|(key, claims)| {
                let view = analyse_function(
                    self.file,
                    self.imports,
                    &key,
                    self.options,
                    &self.view(&key, false),
                    &claims,
                );
                (key, view)
            })
            .collect()
    }

    fn base_summary(&self, key: &str) -> Option<Arc<Summary>> {
        if let Some(known) = self.bases.borrow().get(key) {
            return known.clone();
        }
        let outcome = analyse_function(
            self.file,
            self.imports,
            key,
            self.options,
            &self.view(key, true),
            &[],
        );
        self.bases
            .borrow_mut()
            .insert(key.to_owned(), outcome.summary.clone());
        outcome.summary
    }
}

impl SummarySource for Memo<'_> {
    fn summary(&self, key: &str) -> Option<Arc<Summary>> {
        if let Some(known) = self.outcomes.borrow().get(key) {
            return known.as_ref()?.summary.clone();
        }
        self.outcomes.borrow_mut().insert(key.to_owned(), None);
        let outcome = analyse_function(
            self.file,
            self.imports,
            key,
            self.options,
            &self.view(key, false),
            &[],
        );
        let summary = outcome.summary.clone();
        self.outcomes
            .borrow_mut()
            .insert(key.to_owned(), Some(outcome));
        self.order.borrow_mut().push(key.to_owned());
        summary
    }
}

/// Puts the outcomes of a file's analyses together: solves its holes and
/// gathers diagnostics and shapes.
pub fn assemble(
    file: &ast::SourceFile,
    imports: &[ResolvedImport],
    outcomes: &[&FunctionOutcome],
    options: ShapeOptions,
) -> ShapeReport {
    ShapeReport {
        diagnostics: assemble_diagnostics(outcomes),
        findings: assemble_findings(file, Environment::builtin(imports), outcomes, options),
    }
}

/// The diagnostics of a file's analyses, with a hint for each decided
/// condition: all that [`assemble`] reads of the outcomes' reports but
/// their `diagnostics` and `conditions`, without solving holes or writing
/// shapes (the language server publishes these first).
pub fn assemble_diagnostics(outcomes: &[&FunctionOutcome]) -> Vec<Diagnostic> {
    let mut diagnostics = Vec::new();
    for entry in outcomes.iter().map(|o| &o.report) {
        diagnostics.extend(entry.diagnostics.iter().cloned());
        diagnostics.extend(entry.conditions.iter().map(decided_hint));
    }
    diagnostics.sort_by_key(|d| (d.range.start, d.range.end));
    // One check can be made more than once (a deferred `LSTM` call, once
    // per tensor of its result): the same message at the same place is
    // reported once, even when others at that place come between.
    let mut seen = std::collections::HashSet::new();
    diagnostics.retain(|d| seen.insert((d.range, d.message.clone())));
    diagnostics
}

/// What [`assemble`] finds besides diagnostics: holes solved, shapes
/// written, decided conditions, migrations and preconditions.
pub fn assemble_findings(
    file: &ast::SourceFile,
    environment: Environment<'_>,
    outcomes: &[&FunctionOutcome],
    options: ShapeOptions,
) -> ShapeFindings {
    // What bounds solving the holes reached (they belong to no one entry
    // point: they are listed as the script's).
    let mut hole_limits: Vec<LimitKind> = Vec::new();
    let holes = if options.questions {
        // The paths are copied apart from one another before they meet, so
        // this analysis's fresh variables cannot clash with theirs.
        let program = program::Program::new(file, environment);
        let analysis = analysis::Analysis::new(
            program,
            ShapeOptions {
                questions: true,
                ..options
            },
            None,
        );
        // The holes of a file are one more entry point's worth of work.
        let deadline = std::time::Instant::now() + limits::entry_time(options.limits);
        let mut evaluated = BTreeMap::new();
        let mut paths = Vec::new();
        let mut set_aside = HashSet::new();
        for outcome in outcomes {
            evaluated.extend(outcome.holes.iter().map(|(r, v)| (*r, *v)));
            paths.extend(outcome.hole_paths.iter().cloned());
            set_aside.extend(outcome.set_aside.iter().cloned());
        }
        let solved = limits::within_entry_time(
            options.limits,
            |kind| analysis.hit(kind),
            || {
                holes::solve(
                    &analysis,
                    &file.holes,
                    &evaluated,
                    &paths,
                    &set_aside,
                    deadline,
                )
            },
        );
        hole_limits = analysis.limits_hit.take().into_iter().collect();
        solved
    } else {
        Vec::new()
    };
    let mut limits: Vec<LimitHit> = outcomes
        .iter()
        .flat_map(|o| o.limits.iter().cloned())
        .collect();
    limits.extend(hole_limits.into_iter().map(|kind| LimitHit {
        kind,
        function: None,
        from_line: None,
    }));
    limits.sort();
    limits.dedup();
    let mut findings = ShapeFindings {
        limits,
        holes,
        migrations: outcomes
            .iter()
            .flat_map(|o| o.migrations.iter().cloned())
            .collect(),
        ..ShapeFindings::default()
    };
    let mut at_calls: Vec<(TextRange, Option<String>, CallShape)> = Vec::new();
    for entry in outcomes.iter().map(|o| &o.report) {
        if let (Some(key), false) = (&entry.function, entry.preconditions.is_empty()) {
            findings
                .preconditions
                .insert(key.clone(), entry.preconditions.clone());
        }
        findings.conditions.extend(entry.conditions.iter().cloned());
        for shown in &entry.shapes {
            let shape = shown::format(&shown.dims);
            if !shown.calls.is_empty() {
                let call = CallShape {
                    calls: shown.calls.clone(),
                    shape,
                };
                at_calls.push((shown.range, shown.name.clone(), call));
                continue;
            }
            let info = ShapeInfo {
                name: shown.name.clone(),
                range: shown.range,
                function: entry.function.clone(),
                shape,
                at_calls: Vec::new(),
            };
            if info.name.is_some() {
                findings.bindings.push(info);
            } else {
                findings.expressions.push(info);
            }
        }
    }
    // Indexed once: a file has as many of these as it has calls times
    // bindings, and a linear search each made editing large files slow.
    let index = |list: &[ShapeInfo]| -> HashMap<(TextRange, Option<String>), usize> {
        // Reversed, so that the first of equal keys is the one kept.
        list.iter()
            .enumerate()
            .rev()
            .map(|(i, info)| ((info.range, info.name.clone()), i))
            .collect()
    };
    let (binding_index, expression_index) =
        (index(&findings.bindings), index(&findings.expressions));
    // In source order of the calls, whichever entry point (function or
    // group of the script's statements) they were found in.
    at_calls.sort_by(|a, b| a.2.calls.cmp(&b.2.calls));
    for (range, name, call) in at_calls {
        let (list, index) = if name.is_some() {
            (&mut findings.bindings, &binding_index)
        } else {
            (&mut findings.expressions, &expression_index)
        };
        if let Some(&i) = index.get(&(range, name)) {
            let info = &mut list[i];
            if !info.at_calls.contains(&call) {
                info.at_calls.push(call);
            }
        }
    }
    // A call that fails a precondition does not show a shape the parameter
    // may have (one that refutes only a claim does: the claim is wrong).
    let failing: HashSet<TextRange> = outcomes
        .iter()
        .flat_map(|o| o.failed_calls.iter().copied())
        .collect();
    for migration in &mut findings.migrations {
        // The parameter's binding is its name, where the migration's range
        // also covers the type.
        let Some(binding) = findings.bindings.iter().find(|b| {
            b.range.start == migration.range.start
                && b.name.as_deref() == Some(migration.parameter.as_str())
        }) else {
            continue;
        };
        let mut shapes: Vec<String> = Vec::new();
        for call in &binding.at_calls {
            if call.calls.iter().any(|c| failing.contains(c)) {
                continue;
            }
            if !shapes.contains(&call.shape) {
                shapes.push(call.shape.clone());
            }
        }
        migration.agree_with_calls(shapes);
    }
    findings.bindings.sort_by_key(|b| b.range.start);
    findings.conditions.sort_by_key(|c| c.range);
    findings.migrations.sort_by_key(|m| m.range);
    findings
        .expressions
        .sort_by_key(|e| (e.range.start, std::cmp::Reverse(e.range.end)));
    findings
}

fn decided_hint(decided: &DecidedCondition) -> Diagnostic {
    let outcome = if decided.always { "true" } else { "false" };
    let consequence = match (decided.always, decided.dead_branch.is_some()) {
        (true, true) => ": the `else` branch never runs",
        (true, false) => "",
        (false, true) if decided.live_branch.is_some() => ": the `if` branch never runs",
        (false, _) => ": the `if` never runs its body",
    };
    let mut hint = Diagnostic::new(
        tensorfit_base::Code::DecidedCondition,
        decided.range,
        format!("this condition is always {outcome}{consequence}"),
    );
    if let Some(dead) = decided.dead_branch {
        hint = hint.with_related(dead, "this branch never runs");
    }
    hint
}
