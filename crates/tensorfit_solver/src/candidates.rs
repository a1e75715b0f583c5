//! A shortcut before Z3: most fact sets that survive elimination are
//! plainly satisfiable (a rank at least 2, a dimension at least 1). Trying
//! a few uniform assignments proves that without building a solver.
//!
//! Every atom gets the same value, so equal positions of a dimension
//! function get equal values (the function stays a function), dimensions
//! are positive and ranks non-negative: a satisfying assignment is a model.

use std::collections::HashMap;

use crate::term::{Formula, Term, VarId};

/// The uniform values tried, in order.
const CANDIDATES: &[i64] = &[1, 2, 3, 4, 8, 64];

fn floor_div(a: i64, b: i64) -> Option<i64> {
    if b == 0 {
        return None;
    }
    Some(a.div_euclid(b) - i64::from(b < 0 && a.rem_euclid(b) != 0))
}

fn eval_term(term: &Term, value: i64, bools: &HashMap<VarId, bool>) -> Option<i64> {
    crate::work::charge(1);
    Some(match term {
        Term::Const(c) => *c,
        Term::Var(_) | Term::Rank(_) | Term::Dim(..) => value,
        Term::Add(parts) => parts
            .iter()
            .try_fold(0i64, |sum, p| sum.checked_add(eval_term(p, value, bools)?))?,
        Term::Mul(a, b) => eval_term(a, value, bools)?.checked_mul(eval_term(b, value, bools)?)?,
        Term::Div(a, b) => floor_div(eval_term(a, value, bools)?, eval_term(b, value, bools)?)?,
        Term::Rem(a, b) => {
            let (x, y) = (eval_term(a, value, bools)?, eval_term(b, value, bools)?);
            x.checked_sub(y.checked_mul(floor_div(x, y)?)?)?
        }
        Term::Ite(c, a, b) => {
            if eval_formula(c, value, bools)? {
                eval_term(a, value, bools)?
            } else {
                eval_term(b, value, bools)?
            }
        }
    })
}

fn eval_formula(formula: &Formula, value: i64, bools: &HashMap<VarId, bool>) -> Option<bool> {
    crate::work::charge(1);
    Some(match formula {
        Formula::Const(v) => *v,
        Formula::Var(v) => *bools.get(v)?,
        Formula::IsZero(t) => eval_term(t, value, bools)? == 0,
        Formula::NonPositive(t) => eval_term(t, value, bools)? <= 0,
        Formula::Not(inner) => !eval_formula(inner, value, bools)?,
        Formula::And(parts) => {
            for p in parts {
                if !eval_formula(p, value, bools)? {
                    return Some(false);
                }
            }
            true
        }
        Formula::Or(parts) => {
            for p in parts {
                if eval_formula(p, value, bools)? {
                    return Some(true);
                }
            }
            false
        }
    })
}

/// A uniform value under which every formula holds, and the values of
/// `wanted` under it. A boolean variable that a formula states alone (`b`
/// or `not b`: a branch taken) gets that value; the others are all false,
/// then all true.
pub(crate) fn find_model(formulas: &[&Formula], wanted: &[Term]) -> Option<Vec<i64>> {
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
    for truth in [false, true] {
        let bools: HashMap<VarId, bool> = bool_vars
            .iter()
            .map(|v| (*v, stated.get(v).copied().unwrap_or(truth)))
            .collect();
        for &value in CANDIDATES {
            if formulas
                .iter()
                .all(|f| eval_formula(f, value, &bools) == Some(true))
            {
                return wanted.iter().map(|t| eval_term(t, value, &bools)).collect();
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_bounds_have_a_uniform_model() {
        let rank = Term::rank(3);
        let f = Formula::ge(&rank, &Term::int(2));
        assert!(find_model(&[&f], &[]).is_some());
    }

    #[test]
    fn branches_taken_keep_their_truth() {
        // b and not c: neither all-false nor all-true satisfies both.
        let (b, c) = (Formula::Var(1), Formula::not(&Formula::Var(2)));
        let rank = Formula::ge(&Term::rank(3), &Term::int(2));
        assert!(find_model(&[&b, &c, &rank], &[]).is_some());
        // A contradiction about the same variable still has no model.
        let not_b = Formula::not(&Formula::Var(1));
        assert!(find_model(&[&b, &not_b], &[]).is_none());
    }

    #[test]
    fn contradictions_have_none() {
        let x = Term::var(1);
        let a = Formula::ge(&x, &Term::int(5));
        let b = Formula::le(&x, &Term::int(2));
        assert!(find_model(&[&a, &b], &[]).is_none());
    }
}
