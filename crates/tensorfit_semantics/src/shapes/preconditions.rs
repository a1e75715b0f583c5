//! What a function asks of its callers beyond its signature, as hover
//! shows it: the preconditions of the operations in its body and of the
//! functions it calls, written as the language writes conditions.

use std::collections::HashSet;

use super::analysis::Analysis;
use super::display;
use super::fact::{Fact, FactKind};
use super::program::FunctionRef;

/// At most this many are listed; a function asking more is unusual, and
/// hover must stay readable.
const MAX_SHOWN: usize = 12;

/// The preconditions among `facts` (a summary's, minus those `set_aside`
/// as errors) that do not come from the signature (parameter types and
/// `where` clauses say those already) and are not true for every call.
/// Ones with no name in the program (a dimension of an unknown result)
/// are left out rather than shown as `?`.
pub fn describe(
    analysis: &Analysis<'_>,
    function: FunctionRef<'_>,
    facts: &[Fact],
    set_aside: &HashSet<usize>,
) -> Vec<String> {
    let body = function.function.body.as_ref().map(|b| b.range);
    let mut shown: Vec<String> = Vec::new();
    for (i, fact) in facts.iter().enumerate() {
        if fact.kind != FactKind::Precondition || set_aside.contains(&i) {
            continue;
        }
        let from_body = !fact.via.is_empty()
            || body.is_some_and(|b| b.start <= fact.range.start && fact.range.end <= b.end);
        if !from_body || fact.formula.as_const() == Some(true) {
            continue;
        }
        let Some(mut text) = display::condition(analysis, &fact.formula) else {
            continue;
        };
        if !fact.guard.is_empty() {
            let guard = tensorfit_solver::Formula::and(fact.guard.iter().cloned());
            let Some(when) = display::condition(analysis, &guard) else {
                continue;
            };
            text = format!("{text} when {when}");
        }
        if !shown.contains(&text) {
            shown.push(text);
        }
        if shown.len() == MAX_SHOWN {
            break;
        }
    }
    shown
}
