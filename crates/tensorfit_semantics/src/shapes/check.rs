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
use tensorfit_solver::{self as solver, Fact as SolverFact, Forced, Outcome, Term};

use super::analysis::Analysis;
use super::display;
use super::exec::BindingRecord;
use super::fact::{Explain, Fact, FactKind, Guard};
use super::value::Value;

pub struct EntryOutcome {
    pub diagnostics: Vec<Diagnostic>,
    /// Indices of the facts errors were reported at.
    pub set_aside: HashSet<usize>,
}

/// An entry point gets at most the time of this many solver time-outs.
const ENTRY_BUDGET_QUERIES: u64 = 5;

/// Path-condition literals are given ids after the facts'.
const GUARD_ID_BASE: u32 = 1 << 30;

fn guard_implies(path: &Guard, guard: &Guard) -> bool {
    guard.iter().all(|literal| path.contains(literal))
}

fn solver_facts(
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

pub fn check_entry(analysis: &Analysis<'_>, facts: &[Fact]) -> EntryOutcome {
    let mut paths: Vec<Guard> = Vec::new();
    for fact in facts.iter().filter(|f| f.kind != FactKind::Assumption) {
        if !paths.contains(&fact.guard) {
            paths.push(fact.guard.clone());
        }
    }
    paths.sort_by_key(Vec::len);

    let mut set_aside = HashSet::new();
    let mut diagnostics: Vec<Diagnostic> = Vec::new();
    let mut reported_ranges: HashSet<(TextRange, bool)> = HashSet::new();
    // Checking time is bounded per entry point: past the budget, the paths
    // not yet checked are left unreported rather than delaying the answer.
    let started = std::time::Instant::now();
    let budget = std::time::Duration::from_millis(
        u64::from(analysis.limits.timeout_ms) * ENTRY_BUDGET_QUERIES,
    );
    for path in &paths {
        loop {
            if started.elapsed() > budget {
                return EntryOutcome {
                    diagnostics,
                    set_aside,
                };
            }
            let active: Vec<usize> = (0..facts.len())
                .filter(|i| !set_aside.contains(i) && guard_implies(path, &facts[*i].guard))
                .collect();
            let weaker = active.iter().copied().filter(|i| &facts[*i].guard != path);
            let feasibility = solver_facts(facts, weaker, path);
            if solver::check(&feasibility, analysis.limits) != Outcome::Sat {
                break;
            }
            let all = solver_facts(facts, active.iter().copied(), path);
            let Outcome::Unsat(core) = solver::check(&all, analysis.limits) else {
                break;
            };
            let Some(chosen) = core
                .iter()
                .filter(|id| **id < GUARD_ID_BASE)
                .map(|id| *id as usize)
                .filter(|i| facts[*i].kind != FactKind::Assumption)
                .max()
            else {
                break;
            };
            set_aside.insert(chosen);
            let rest: Vec<SolverFact> = all
                .iter()
                .filter(|f| core.contains(&f.id) && f.id != chosen as u32)
                .cloned()
                .collect();
            report(
                analysis,
                &facts[chosen],
                &rest,
                &mut diagnostics,
                &mut reported_ranges,
            );
        }
    }
    EntryOutcome {
        diagnostics,
        set_aside,
    }
}

/// The message of a failing fact, with the values the rest of the
/// contradiction forces on its terms.
fn explain(analysis: &Analysis<'_>, explain: &Explain, rest: &[SolverFact]) -> String {
    let rest_facts = rest;
    let show = |term: &Term| -> String {
        match term.as_const() {
            Some(value) => value.to_string(),
            None => match solver::forced(rest, term, analysis.limits) {
                Forced::Value(value) => value.to_string(),
                _ => display::term(analysis, term),
            },
        }
    };
    match explain {
        Explain::Equal { what, left, right } => {
            format!(
                "{what}: {} = {} but {} = {}",
                left.0,
                show(&left.1),
                right.0,
                show(&right.1)
            )
        }
        Explain::Shape {
            subject,
            actual,
            claimed,
        } => {
            let actual = match &actual.rest {
                None => Some(actual.clone()),
                Some(rest) => {
                    match solver::forced(rest_facts, &Term::rank(rest.base), analysis.limits) {
                        Forced::Value(rank) => Some(actual.refine(&|_| Some(rank))),
                        _ => None,
                    }
                }
            };
            match actual.as_ref().and_then(|a| a.dims().map(<[Term]>::to_vec)) {
                Some(dims) => {
                    let shown: Vec<String> = dims.iter().map(show).collect();
                    format!(
                        "{subject} has shape [{}] here but is asserted to be {claimed}",
                        shown.join(", ")
                    )
                }
                None => {
                    format!("{subject} does not have the shape {claimed} it is asserted to have")
                }
            }
        }
        Explain::Text { template, terms } => {
            let mut message = String::new();
            let mut values = terms.iter().map(show);
            let mut parts = template.split("{}").peekable();
            while let Some(part) = parts.next() {
                message.push_str(part);
                if parts.peek().is_some() {
                    message.push_str(&values.next().unwrap_or_else(|| "?".to_owned()));
                }
            }
            message
        }
    }
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
    let with_sides = |mut diagnostic: Diagnostic| {
        for (range, note) in &fact.sides {
            diagnostic = diagnostic.with_related(*range, note.clone());
        }
        diagnostic
    };
    let Some(call) = fact.via.first() else {
        if reported.insert((fact.range, false)) {
            diagnostics.push(with_sides(Diagnostic::new(code, fact.range, message)));
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
            format!("this call of `{}` fails: {message}", call.callee),
        );
        if inner_local {
            diagnostic = diagnostic.with_related(
                fact.range,
                format!(
                    "the requirement that fails, in `{}`",
                    fact.function.as_deref().unwrap_or("?")
                ),
            );
        }
        for inner in fact.via.iter().skip(1) {
            diagnostic = diagnostic.with_related(
                inner.range,
                format!("through this call of `{}`", inner.callee),
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
                format!("the claim fails for this call of `{}`", call.callee),
            ),
        );
    }
}

/// The shapes of the bindings of an entry point, as shown to users.
pub fn show_bindings(
    analysis: &Analysis<'_>,
    facts: &[Fact],
    set_aside: &HashSet<usize>,
    bindings: &[BindingRecord],
) -> Vec<(BindingRecord, String)> {
    let mut result = Vec::new();
    for binding in bindings {
        let Value::Tensor(shape) = &binding.value else {
            continue;
        };
        let active: Vec<SolverFact> = (0..facts.len())
            .filter(|i| !set_aside.contains(i) && guard_implies(&binding.guard, &facts[*i].guard))
            .map(|i| SolverFact {
                id: i as u32,
                formula: facts[i].formula.clone(),
            })
            .chain(binding.guard.iter().enumerate().map(|(k, l)| SolverFact {
                id: GUARD_ID_BASE + k as u32,
                formula: l.clone(),
            }))
            .collect();
        let shown = display::shape(analysis, shape, &active);
        result.push((binding.clone(), shown));
    }
    result
}
