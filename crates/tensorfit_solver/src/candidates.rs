//! A shortcut before Z3: most fact sets that survive elimination are
//! plainly satisfiable (a rank at least 2, a dimension at least 1). Trying
//! a few uniform assignments proves that without building a solver.
//!
//! Every atom gets the same value, so equal positions of a dimension
//! function get equal values (the function stays a function), dimensions
//! are positive and ranks non-negative: a satisfying assignment is a model.

use std::collections::HashMap;

use crate::evaluate::{self, Assignment};
use crate::term::{Formula, Term, VarId};
use crate::tried_values::{CANDIDATES, RANKS};

/// The values atoms take: every rank one, every dimension and variable
/// another. Equal positions of a dimension function still get equal
/// values, so a satisfying valuation is a model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Valuation {
    rank: i64,
    other: i64,
}

impl Valuation {
    fn uniform(value: i64) -> Valuation {
        Valuation {
            rank: value,
            other: value,
        }
    }
}

/// The valuations tried, in order: the uniform ones, then (for a question
/// of satisfiability alone) ranks apart from the rest. Values of `wanted`
/// terms reach messages and examples, so those questions keep the uniform
/// valuations their answers have always come from (or Z3's).
fn valuations(satisfiability_only: bool) -> impl Iterator<Item = Valuation> {
    let uniform = CANDIDATES.iter().map(|&v| Valuation::uniform(v));
    let apart = RANKS
        .iter()
        .flat_map(|&rank| {
            CANDIDATES
                .iter()
                .map(move |&other| Valuation { rank, other })
        })
        .filter(move |v| satisfiability_only && v.rank != v.other);
    uniform.chain(apart)
}

/// A valuation with the boolean variables' truths.
struct Uniform<'a> {
    value: Valuation,
    bools: &'a HashMap<VarId, bool>,
}

impl Assignment for Uniform<'_> {
    fn atom(&self, atom: &Term) -> Option<i64> {
        Some(match atom {
            Term::Rank(_) => self.value.rank,
            _ => self.value.other,
        })
    }

    fn truth(&self, var: VarId) -> Option<bool> {
        self.bools.get(&var).copied()
    }
}

/// What the values of the `wanted` terms are for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Values {
    /// They reach the user (an example in a message): they keep coming
    /// from the uniform valuations, or from Z3, as they always have.
    Shown,
    /// Any model's will do (whether a term is forced to one value, which
    /// asks next whether it can differ from the first model's).
    Any,
}

/// A valuation (see [`valuations`]) under which every formula holds, and
/// the values of `wanted` under it. A boolean variable that a formula states alone (`b`
/// or `not b`: a branch taken) gets that value; the others are all false,
/// then all true. Where any values will do, a model is also looked for
/// atom by atom (see `crate::repair`).
pub(crate) fn find_model(
    formulas: &[&Formula],
    wanted: &[Term],
    values: Values,
) -> Option<Vec<i64>> {
    let mut stated: HashMap<VarId, bool> = HashMap::new();
    for f in formulas {
        match f {
            Formula::Var(v) => stated.insert(*v, true),
            Formula::Not(inner) => match &**inner {
                Formula::Var(v) => stated.insert(*v, false),
                _ => None,
            },
            _ => None,
        };
    }
    let mut bool_vars = Vec::new();
    for f in formulas {
        f.visit_bool_vars(&mut |v| bool_vars.push(v));
    }
    let any_values = wanted.is_empty() || values == Values::Any;
    // A branch chosen by a boolean that only the wanted terms read (a
    // shown dimension of `x if flag else y`) is valued too, where any
    // values will do; the values shown keep coming from Z3's models.
    if any_values {
        for t in wanted {
            t.visit_bool_vars(&mut |v| bool_vars.push(v));
        }
    }
    let truths = |truth: bool| -> HashMap<VarId, bool> {
        bool_vars
            .iter()
            .map(|v| (*v, stated.get(v).copied().unwrap_or(truth)))
            .collect()
    };
    for truth in [false, true] {
        let bools = truths(truth);
        for value in valuations(any_values) {
            let at = Uniform {
                value,
                bools: &bools,
            };
            if formulas.iter().all(|f| evaluate::holds(f, &at)) {
                return wanted.iter().map(|t| evaluate::term(t, &at)).collect();
            }
        }
    }
    if !any_values {
        return None;
    }
    crate::work::searching(crate::work::SEARCH_NODES, || {
        crate::repair::find_model(formulas, wanted, &stated)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_bounds_have_a_uniform_model() {
        let rank = Term::rank(3);
        let f = Formula::ge(&rank, &Term::int(2));
        assert!(find_model(&[&f], &[], Values::Shown).is_some());
    }

    #[test]
    fn branches_taken_keep_their_truth() {
        // b and not c: neither all-false nor all-true satisfies both.
        let (b, c) = (Formula::Var(1), Formula::not(&Formula::Var(2)));
        let rank = Formula::ge(&Term::rank(3), &Term::int(2));
        assert!(find_model(&[&b, &c, &rank], &[], Values::Shown).is_some());
        // A contradiction about the same variable still has no model.
        let not_b = Formula::not(&Formula::Var(1));
        assert!(find_model(&[&b, &not_b], &[], Values::Any).is_none());
    }

    #[test]
    fn ranks_may_differ_from_dimensions() {
        // A rank of 3 or 4 and a last dimension of at least 5: no uniform
        // value fits both.
        let rank = Term::rank(2);
        let last = Term::dim(2, Term::add(&rank, &Term::int(-1)));
        let facts = [
            Formula::or([
                Formula::eq(&rank, &Term::int(3)),
                Formula::eq(&rank, &Term::int(4)),
            ]),
            Formula::ge(&last, &Term::int(5)),
        ];
        let facts: Vec<&Formula> = facts.iter().collect();
        assert!(find_model(&facts, &[], Values::Shown).is_some());
        // Values asked for keep to the uniform valuations.
        assert!(find_model(&facts, std::slice::from_ref(&last), Values::Shown).is_none());
    }

    #[test]
    fn a_branch_only_the_wanted_terms_read_is_valued_where_any_values_do() {
        // A shown dimension `h if flag else 2 * h`: `flag` is in no fact.
        let h = Term::var(1);
        let shown = Term::ite(&Formula::Var(9), &h, &Term::mul(&Term::int(2), &h));
        let fact = Formula::ge(&h, &Term::int(1));
        let wanted = std::slice::from_ref(&shown);
        assert_eq!(find_model(&[&fact], wanted, Values::Any), Some(vec![2]));
        // Values shown keep coming from Z3.
        assert_eq!(find_model(&[&fact], wanted, Values::Shown), None);
    }

    #[test]
    fn contradictions_have_none() {
        let x = Term::var(1);
        let a = Formula::ge(&x, &Term::int(5));
        let b = Formula::le(&x, &Term::int(2));
        assert!(find_model(&[&a, &b], &[], Values::Any).is_none());
    }
}
