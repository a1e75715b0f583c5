//! The checking procedure of an entry point (section 3.5 of the Tensors
//! Fitting Perfectly paper), and where and how its errors are reported
//! (LANGUAGE.md §5).
//!
//! For each path condition, weakest first: the path is feasible if the
//! facts of weaker paths allow it; then, if the path's own facts make the
//! whole unsatisfiable, a minimal core names the contradiction. The error
//! goes to the last fact of the core in execution order (or to the call
//! through which it came); that fact is set aside and the path is checked
//! again, so independent failures are all reported, each once.

use std::collections::HashSet;

use tensorfit_base::{Code, Diagnostic, TextRange};
use tensorfit_solver::{
    self as solver, components, time_cap, Fact as SolverFact, Forced, Outcome, Term,
};

use super::analysis::Analysis;
use super::display;
use super::fact::{Explain, Fact, FactKind, Guard, ShapeClaim};
use super::guard_index::GuardIndex;

pub struct EntryOutcome {
    pub diagnostics: Vec<Diagnostic>,
    /// Indices of the facts errors were reported at.
    pub set_aside: HashSet<usize>,
    /// The paths that can run once the errors are set aside: their branch
    /// conditions and the indices of the facts that hold on them.
    pub consistent: Vec<(Guard, Vec<usize>)>,
}

/// Path-condition literals are given ids after the facts'.
pub(super) const GUARD_ID_BASE: u32 = 1 << 30;

/// The facts at `indices` and the path's conditions, as the solver takes them.
pub(super) fn solver_facts(
    facts: &[Fact],
    indices: impl Iterator<Item = usize>,
    path: &Guard,
) -> Vec<SolverFact> {
    let mut result: Vec<SolverFact> = indices
        .map(|i| SolverFact {
            id: i as u32,
            formula: facts[i].formula.clone(),
        })
        .collect();
    result.extend(path.iter().enumerate().map(|(k, literal)| SolverFact {
        id: GUARD_ID_BASE + k as u32,
        formula: literal.clone(),
    }));
    result
}

/// Checks an entry point whose first `precondition` facts are its
/// precondition (parameter types, `where` clauses, opening `assert`s).
pub fn check_entry(analysis: &Analysis<'_>, facts: &[Fact], precondition: usize) -> EntryOutcome {
    let mut outcome = check_paths(analysis, facts);
    // A precondition that cannot hold makes the unconditional path fail,
    // so only a function with errors is asked about it: no query otherwise.
    if outcome.diagnostics.is_empty() {
        return outcome;
    }
    if let Some(contradiction) = contradictory_precondition(analysis, &facts[..precondition]) {
        // Only the contradiction is said; what holds once it is set aside
        // still answers holes and shows shapes.
        outcome.diagnostics = contradiction;
    }
    outcome
}

/// Whether a Python function's own `raise` guards contradict the facts
/// that hold on every path (`len(t.size()) != 1` and `len(t.size()) != 2`
/// both raising for `t = args[1]`, `t = args[2]`): then what it was taken
/// for is wrong (a parameter without annotation read as a tensor is a
/// tuple), and the function says nothing, at home or at its calls.
pub fn guards_refute_parameters(analysis: &Analysis<'_>, facts: &[Fact]) -> bool {
    let unconditional = |f: &&Fact| f.guard.is_empty();
    if !facts
        .iter()
        .filter(unconditional)
        .any(|f| f.kind == FactKind::Guard)
    {
        return false;
    }
    let items: Vec<SolverFact> = facts
        .iter()
        .enumerate()
        .filter(|(_, f)| unconditional(f))
        .map(|(i, f)| SolverFact {
            id: i as u32,
            formula: f.formula.clone(),
        })
        .collect();
    match solver::check(&items, analysis.limits) {
        Outcome::Unsat(core) => core
            .iter()
            .any(|id| facts[*id as usize].kind == FactKind::Guard),
        _ => false,
    }
}

fn check_paths(analysis: &Analysis<'_>, facts: &[Fact]) -> EntryOutcome {
    let index = GuardIndex::new(facts);
    // Each distinct guard of a checked fact, by the first fact that has it.
    let mut seen: HashSet<&[u32]> = HashSet::new();
    let mut paths: Vec<usize> = Vec::new();
    for (i, fact) in facts.iter().enumerate() {
        if fact.kind.is_checked() && seen.insert(index.of_fact(i)) {
            paths.push(i);
        }
    }
    paths.sort_by_key(|i| facts[*i].guard.len());

    let mut set_aside = HashSet::new();
    let mut diagnostics: Vec<Diagnostic> = Vec::new();
    let mut reported_ranges: HashSet<(TextRange, bool)> = HashSet::new();
    let mut consistent = Vec::new();
    let opaque = OpaqueLiterals::new(analysis);
    // Failures on paths decided by an unknown value, reported at the end
    // only if they happen whichever way the unknowns decide.
    let mut undecided: Vec<(usize, Vec<SolverFact>)> = Vec::new();
    let mut infeasible: Vec<&Guard> = Vec::new();
    // Checking time is bounded per entry point and per file: past the
    // budget, the paths not yet checked are left unreported rather than
    // delaying the answer.
    'paths: for &first in &paths {
        let path = &facts[first].guard;
        let path_numbers = index.of_fact(first);
        let literals = index.path(path_numbers);
        let active: Vec<usize> = (0..facts.len())
            .filter(|i| !set_aside.contains(i) && index.holds_on(&literals, *i))
            .collect();
        let items = solver_facts(facts, active.iter().copied(), path);
        // Independent groups of facts are checked apart: a script of many
        // unrelated lines is many small problems.
        let groups = components::components(items.iter().map(|f| &f.formula));
        // Feasibility: the weaker paths' facts allow this path's conditions.
        for group in &groups {
            let weaker: Vec<SolverFact> = group
                .iter()
                .map(|k| &items[*k])
                .filter(|f| f.id >= GUARD_ID_BASE || index.of_fact(f.id as usize) != path_numbers)
                .cloned()
                .collect();
            let has_literal = weaker.iter().any(|f| f.id >= GUARD_ID_BASE);
            if has_literal && solver::check(&weaker, analysis.limits) != Outcome::Sat {
                infeasible.push(path);
                continue 'paths;
            }
        }
        let mut decided = true;
        for group in &groups {
            let own = group.iter().any(|k| {
                let id = items[*k].id;
                id < GUARD_ID_BASE && index.of_fact(id as usize) == path_numbers
            });
            if !own {
                // Only weaker facts: checked on their own path already.
                continue;
            }
            loop {
                if time_cap::is_up() {
                    return EntryOutcome {
                        diagnostics,
                        set_aside,
                        consistent,
                    };
                }
                let all: Vec<SolverFact> = group
                    .iter()
                    .map(|k| &items[*k])
                    .filter(|f| f.id >= GUARD_ID_BASE || !set_aside.contains(&(f.id as usize)))
                    .cloned()
                    .collect();
                let core = match solver::check(&all, analysis.limits) {
                    Outcome::Unsat(core) => core,
                    Outcome::Sat => break,
                    Outcome::Unknown => {
                        decided = false;
                        break;
                    }
                };
                let Some(chosen) = core
                    .iter()
                    .filter(|id| **id < GUARD_ID_BASE)
                    .map(|id| *id as usize)
                    .filter(|i| facts[*i].kind.is_checked())
                    .max()
                else {
                    decided = false;
                    break;
                };
                set_aside.insert(chosen);
                let rest: Vec<SolverFact> = all
                    .iter()
                    .filter(|f| core.contains(&f.id) && f.id != chosen as u32)
                    .cloned()
                    .collect();
                if opaque.decides(&facts[chosen].guard) {
                    undecided.push((chosen, rest));
                    continue;
                }
                report(
                    analysis,
                    &facts[chosen],
                    &rest,
                    &mut diagnostics,
                    &mut reported_ranges,
                );
            }
        }
        if decided {
            let holding = active
                .into_iter()
                .filter(|i| !set_aside.contains(i))
                .collect();
            consistent.push((path.clone(), holding));
        }
    }
    for (chosen, rest) in &undecided {
        // For each unknown the path depends on, the statement also fails
        // (or cannot run) on a path where it went the other way.
        let failed: Vec<&Guard> = opaque
            .siblings(facts, *chosen)
            .filter(|i| set_aside.contains(i) || infeasible.contains(&&facts[*i].guard))
            .map(|i| &facts[i].guard)
            .collect();
        let fails_everywhere = facts[*chosen]
            .guard
            .iter()
            .filter(|literal| opaque.is_opaque(literal))
            .all(|literal| {
                let negated = tensorfit_solver::Formula::not(literal);
                failed.iter().any(|guard| {
                    guard
                        .iter()
                        .any(|g| *g == negated || tensorfit_solver::Formula::not(g) == *literal)
                })
            });
        if fails_everywhere {
            report(
                analysis,
                &facts[*chosen],
                rest,
                &mut diagnostics,
                &mut reported_ranges,
            );
        }
    }
    EntryOutcome {
        diagnostics,
        set_aside,
        consistent,
    }
}

/// The path-condition literals that test an opaque value
/// ([`Analysis::opaque_vars`]).
struct OpaqueLiterals {
    vars: std::collections::BTreeSet<tensorfit_solver::VarId>,
}

impl OpaqueLiterals {
    fn new(analysis: &Analysis<'_>) -> OpaqueLiterals {
        OpaqueLiterals {
            vars: analysis.opaque_vars.borrow().clone(),
        }
    }

    fn is_opaque(&self, literal: &tensorfit_solver::Formula) -> bool {
        super::fact::tests_any(literal, &self.vars)
    }

    /// Whether an opaque value decides part of the path.
    fn decides(&self, guard: &Guard) -> bool {
        guard.iter().any(|literal| self.is_opaque(literal))
    }

    /// The facts the same statement states on the paths that differ from
    /// `fact`'s only in what opaque values decide (a fact that holds
    /// trivially on one of them is not stated there at all).
    fn siblings<'f>(&'f self, facts: &'f [Fact], fact: usize) -> impl Iterator<Item = usize> + 'f {
        let decided = |guard: &Guard| -> Vec<tensorfit_solver::Formula> {
            guard
                .iter()
                .filter(|literal| !self.is_opaque(literal))
                .cloned()
                .collect()
        };
        let of = &facts[fact];
        let known = decided(&of.guard);
        (0..facts.len()).filter(move |i| {
            let other = &facts[*i];
            other.range == of.range
                && other.kind == of.kind
                && other.part == of.part
                && other.via == of.via
                && decided(&other.guard) == known
        })
    }
}

/// A precondition that cannot hold for any call, as the one diagnostic of
/// its function: at its last clause in the contradiction, with the others
/// as related places. Nothing else is reported: no call reaches the body,
/// and a failure found there by setting a clause aside would contradict the
/// clauses the programmer wrote (`where a * b == 7, a > 1, b > 1` is not a
/// reason to say what happens when `a = 1`).
fn contradictory_precondition(
    analysis: &Analysis<'_>,
    precondition: &[Fact],
) -> Option<Vec<Diagnostic>> {
    if precondition.iter().all(|f| !f.kind.is_checked()) {
        return None; // types alone are always satisfiable: no query
    }
    let unconditional = (0..precondition.len()).filter(|i| precondition[*i].guard.is_empty());
    let items = solver_facts(precondition, unconditional, &Vec::new());
    let Outcome::Unsat(core) = solver::check(&items, analysis.limits) else {
        return None;
    };
    let stated = |id: &&u32| precondition[**id as usize].kind.is_checked();
    let chosen = *core.iter().filter(stated).max()? as usize;
    let rest: Vec<SolverFact> = items
        .iter()
        .filter(|f| core.contains(&f.id) && f.id != chosen as u32)
        .cloned()
        .collect();
    let mut diagnostics = Vec::new();
    report(
        analysis,
        &precondition[chosen],
        &rest,
        &mut diagnostics,
        &mut HashSet::new(),
    );
    let others: Vec<TextRange> = core
        .iter()
        .filter(stated)
        .filter(|id| **id as usize != chosen)
        .map(|id| precondition[*id as usize].range)
        .collect();
    Some(
        diagnostics
            .into_iter()
            .map(|diagnostic| {
                others.iter().fold(diagnostic, |d, range| {
                    d.with_related(*range, "this part of the precondition contradicts it")
                })
            })
            .collect(),
    )
}

/// The message of a failing fact, with the values the rest of the
/// contradiction forces on its terms. Where terms stay symbolic, one
/// assignment of the program's names shows the clash in numbers.
pub(super) fn explain(analysis: &Analysis<'_>, explain: &Explain, rest: &[SolverFact]) -> String {
    let forced = |term: &Term| -> Option<i64> {
        term.as_const()
            .or_else(|| match solver::forced(rest, term, analysis.limits) {
                Forced::Value(value) => Some(value),
                _ => None,
            })
    };
    // The terms the message shows, each a number or symbolic.
    let shown = |terms: &[Term]| -> Vec<Result<i64, Term>> {
        terms
            .iter()
            .map(|t| forced(t).ok_or_else(|| t.clone()))
            .collect()
    };
    let text = |value: &Result<i64, Term>| match value {
        Ok(v) => v.to_string(),
        Err(t) => display::term(analysis, t),
    };
    match explain {
        Explain::Equal { what, left, right } => {
            let values = shown(&[left.1.clone(), right.1.clone()]);
            let message = format!(
                "{what}: {} = {} but {} = {}",
                left.0,
                text(&values[0]),
                right.0,
                text(&values[1])
            );
            match counterexample(analysis, &values, rest) {
                Some((with, numbers)) => {
                    format!(
                        "{message} (for example, {with} gives {} and {})",
                        numbers[0], numbers[1]
                    )
                }
                None => message,
            }
        }
        Explain::Shape {
            subject,
            actual,
            claimed,
            claim,
        } => {
            let actual = match &actual.rest {
                None => Some(actual.clone()),
                Some(opaque) => {
                    forced(&Term::rank(opaque.base)).map(|rank| actual.refine(&|_| Some(rank)))
                }
            };
            let Some(dims) = actual.as_ref().and_then(|a| a.dims().map(<[Term]>::to_vec)) else {
                return match claim {
                    ShapeClaim::Asserted => {
                        format!("{subject} does not have the shape {claimed} it is asserted to have")
                    }
                    ShapeClaim::ResultOf(function) => format!(
                        "`{function}` returns {subject}, which does not have its result type {claimed}"
                    ),
                };
            };
            let values = shown(&dims);
            let listed = values.iter().map(text).collect::<Vec<String>>().join(", ");
            let message = match claim {
                ShapeClaim::Asserted => {
                    format!("{subject} has shape [{listed}] here but is asserted to be {claimed}")
                }
                ShapeClaim::ResultOf(function) => format!(
                    "`{function}` returns {subject} of shape [{listed}] here, but its result type is {claimed}"
                ),
            };
            match counterexample(analysis, &values, rest) {
                Some((with, numbers)) => {
                    let numbers: Vec<String> = numbers.iter().map(i64::to_string).collect();
                    format!(
                        "{message} (for example, {with} gives [{}])",
                        numbers.join(", ")
                    )
                }
                None => message,
            }
        }
        Explain::Text { template, terms } => {
            let values = shown(terms);
            let mut message = String::new();
            let mut listed = values.iter().map(text);
            let mut parts = template.split("{}").peekable();
            while let Some(part) = parts.next() {
                message.push_str(part);
                if parts.peek().is_some() {
                    message.push_str(&listed.next().unwrap_or_else(|| "?".to_owned()));
                }
            }
            match counterexample(analysis, &values, rest) {
                Some((with, numbers)) => {
                    let numbers: Vec<String> = numbers.iter().map(i64::to_string).collect();
                    format!(
                        "{message} (for example, {with} gives {})",
                        numbers.join(" and ")
                    )
                }
                None => message,
            }
        }
    }
}

/// Named unknowns shown in an example, at most.
const MAX_EXAMPLE_NAMES: usize = 4;

/// Values of the program's names under which the failing fact fails (it
/// fails under every assignment the rest allows; one makes the clash
/// concrete): `n = 3`, and the values of `terms` under it. `None` when all
/// terms are numbers already or nothing symbolic has a name.
fn counterexample(
    analysis: &Analysis<'_>,
    terms: &[Result<i64, Term>],
    rest: &[SolverFact],
) -> Option<(String, Vec<i64>)> {
    let symbolic: Vec<&Term> = terms.iter().filter_map(|t| t.as_ref().err()).collect();
    let mut names: Vec<(String, Term)> = Vec::new();
    for term in &symbolic {
        term.visit_atoms(&mut |atom| {
            let name = display::term(analysis, atom);
            if name != "?" && !names.iter().any(|(n, _)| *n == name) {
                names.push((name, atom.clone()));
            }
        });
    }
    names.truncate(MAX_EXAMPLE_NAMES);
    if names.is_empty() {
        return None;
    }
    let mut asked: Vec<Term> = names.iter().map(|(_, t)| t.clone()).collect();
    asked.extend(terms.iter().map(|t| match t {
        Ok(v) => Term::int(*v),
        Err(t) => t.clone(),
    }));
    let values = solver::model(rest, &asked, analysis.limits)?;
    let (of_names, of_terms) = values.split_at(names.len());
    let assignment: Vec<String> = names
        .iter()
        .zip(of_names)
        .map(|((name, _), value)| format!("{name} = {value}"))
        .collect();
    Some((assignment.join(" and "), of_terms.to_vec()))
}

/// Where the layer whose argument the failing fact compares is
/// constructed, with the argument's value that would fit when the rest of
/// the contradiction forces one: `fc1` is constructed here: in_features =
/// 2304 would fit.
fn construction_note(
    analysis: &Analysis<'_>,
    fact: &Fact,
    rest: &[SolverFact],
) -> Option<(TextRange, String)> {
    let construction = fact.construction.as_ref()?;
    let Explain::Equal { left, right, .. } = &fact.explain else {
        return None;
    };
    let (argument, other) = if construction.argument_on_right {
        (right, left)
    } else {
        (left, right)
    };
    let here = format!("`{}` is constructed here", construction.layer);
    let fits =
        other
            .1
            .as_const()
            .or_else(|| match solver::forced(rest, &other.1, analysis.limits) {
                Forced::Value(value) => Some(value),
                _ => None,
            });
    let note = match fits {
        Some(value) => format!("{here}: {} = {value} would fit", argument.0),
        None => here,
    };
    Some((construction.range, note))
}

/// `what` and a callee in backticks, as the file writes it: a Python
/// class's function is `Class.method`, not the analysis's `Class::method`.
fn naming(analysis: &Analysis<'_>, what: &str, callee: &str) -> String {
    let callee = super::program::closure_name(callee);
    let callee = match analysis.language.is_python() {
        true => tensorfit_syntax::ast::python_function_name(callee),
        false => callee.into(),
    };
    format!("{what} `{callee}`")
}

fn report(
    analysis: &Analysis<'_>,
    fact: &Fact,
    rest: &[SolverFact],
    diagnostics: &mut Vec<Diagnostic>,
    reported: &mut HashSet<(TextRange, bool)>,
) {
    let message = explain(analysis, &fact.explain, rest);
    let code = Code::ShapeMismatch;
    let construction = construction_note(analysis, fact, rest);
    let with_sides = |mut diagnostic: Diagnostic| {
        for (range, note) in fact.sides.iter().chain(&construction) {
            diagnostic = diagnostic.with_related(*range, note.clone());
        }
        diagnostic
    };
    let Some(call) = fact.via.first() else {
        if reported.insert((fact.range, false)) {
            let mut diagnostic = with_sides(Diagnostic::new(code, fact.range, message));
            // A class's own requirement that fails for one construction
            // (`Block("flash")` against `assert mode in self.MODES`): the
            // construction is where the value comes from.
            if let Some(site) = &fact.constructed_at {
                diagnostic = diagnostic.with_related(
                    site.range,
                    naming(analysis, "for this construction of", &site.callee),
                );
            }
            diagnostics.push(diagnostic);
        }
        return;
    };
    // The function is fine on its own but fails for this call.
    let inner_local = fact
        .function
        .as_deref()
        .is_some_and(|f| analysis.program.is_local(f));
    if reported.insert((call.range, false)) {
        let mut diagnostic = Diagnostic::new(
            code,
            call.range,
            format!(
                "{} fails: {message}",
                naming(analysis, "this call of", &call.callee)
            ),
        );
        if inner_local {
            diagnostic = diagnostic.with_related(
                fact.range,
                naming(
                    analysis,
                    "the requirement that fails, in",
                    fact.function.as_deref().unwrap_or("?"),
                ),
            );
            if let Some((range, note)) = &construction {
                diagnostic = diagnostic.with_related(*range, note.clone());
            }
        }
        // Each inner call is in the body of the callee before it; only
        // those in this file can be pointed at (an imported function's
        // calls are in its own file).
        for (outer, inner) in fact.via.iter().zip(fact.via.iter().skip(1)) {
            if !analysis.program.is_local(&outer.callee) {
                break;
            }
            diagnostic = diagnostic.with_related(
                inner.range,
                naming(analysis, "through this call of", &inner.callee),
            );
        }
        diagnostics.push(diagnostic);
    }
    if fact.kind == FactKind::Claim && inner_local && reported.insert((fact.range, true)) {
        diagnostics.push(
            Diagnostic::new(
                code,
                fact.range,
                format!("{message}, for the call `{}`", call.text),
            )
            .with_related(
                call.range,
                naming(analysis, "the claim fails for this call of", &call.callee),
            ),
        );
    }
}
