//! Decided branch conditions (LANGUAGE.md §9; question Q3 of Generalizing
//! Shape Analysis with Gradual Types): an `if` on shapes whose condition,
//! under every other fact of its entry point that does not depend on this
//! branch (assertions after it included), can only be true or only false.

use std::collections::{BTreeMap, HashSet};

use tensorfit_base::TextRange;
use tensorfit_solver::{self as solver, Fact as SolverFact, Formula, Outcome};

use super::analysis::Analysis;
use super::check::GUARD_ID_BASE;
use super::fact::{as_implications, Fact, Guard};

/// An `if` met while executing an entry point.
#[derive(Clone, Debug)]
pub struct ConditionRecord {
    /// The condition expression.
    pub range: TextRange,
    /// The whole `if` statement (what a fix replaces).
    pub statement: TextRange,
    pub then_branch: TextRange,
    /// The `else` block, or the `if` that follows `else`.
    pub else_branch: Option<TextRange>,
    pub formula: Formula,
    /// The path condition the `if` is reached under.
    pub guard: Guard,
    /// Evaluating the condition read a shape, a rank or a size.
    pub reads_shapes: bool,
}

/// A condition with one possible outcome.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecidedCondition {
    pub range: TextRange,
    pub statement: TextRange,
    pub always: bool,
    /// The branch that never runs (`None` for an always-true `if` without
    /// `else`).
    pub dead_branch: Option<TextRange>,
    /// The branch that always runs, if any.
    pub live_branch: Option<TextRange>,
}

/// The id of the branch's own condition, after the facts' and the path's.
const CONDITION_ID: u32 = u32::MAX - 1;

/// The verdict of one record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Verdict {
    Always(bool),
    Open,
}

/// Decides the conditions of one entry point.
pub fn decide(
    analysis: &Analysis<'_>,
    facts: &[Fact],
    set_aside: &HashSet<usize>,
    records: &[ConditionRecord],
) -> Vec<DecidedCondition> {
    // A place met several times (the iterations of a loop) is decided only
    // when every visit agrees.
    let mut verdicts: BTreeMap<TextRange, (Verdict, &ConditionRecord)> = BTreeMap::new();
    for record in records.iter().filter(|r| r.reads_shapes) {
        let verdict = verdict(analysis, facts, set_aside, record);
        verdicts
            .entry(record.range)
            .and_modify(|(known, _)| {
                if *known != verdict {
                    *known = Verdict::Open;
                }
            })
            .or_insert((verdict, record));
    }
    verdicts
        .into_values()
        .filter_map(|(verdict, record)| {
            let Verdict::Always(always) = verdict else {
                return None;
            };
            let (live, dead) = if always {
                (Some(record.then_branch), record.else_branch)
            } else {
                (record.else_branch, Some(record.then_branch))
            };
            Some(DecidedCondition {
                range: record.range,
                statement: record.statement,
                always,
                dead_branch: dead,
                live_branch: live,
            })
        })
        .collect()
}

fn verdict(
    analysis: &Analysis<'_>,
    facts: &[Fact],
    set_aside: &HashSet<usize>,
    record: &ConditionRecord,
) -> Verdict {
    let negated = Formula::not(&record.formula);
    // The facts that do not depend on this branch, each under its own path
    // condition, and the path condition of the `if` itself.
    let mut context = as_implications(facts.iter().enumerate().filter(|(i, f)| {
        !set_aside.contains(i)
            && !f
                .guard
                .iter()
                .any(|l| *l == record.formula || *l == negated)
    }));
    context.extend(record.guard.iter().enumerate().map(|(k, l)| SolverFact {
        id: GUARD_ID_BASE + k as u32,
        formula: l.clone(),
    }));
    // An `if` that cannot be reached says nothing.
    if solver::check_unminimized(&context, analysis.limits) != Outcome::Sat {
        return Verdict::Open;
    }
    if let Some(value) = record.formula.as_const() {
        return Verdict::Always(value);
    }
    let can_be = |outcome: &Formula| {
        let mut with = context.clone();
        with.push(SolverFact {
            id: CONDITION_ID,
            formula: outcome.clone(),
        });
        solver::check_unminimized(&with, analysis.limits)
    };
    match (can_be(&record.formula), can_be(&negated)) {
        (Outcome::Sat, Outcome::Unsat(_)) => Verdict::Always(true),
        (Outcome::Unsat(_), Outcome::Sat) => Verdict::Always(false),
        _ => Verdict::Open,
    }
}
