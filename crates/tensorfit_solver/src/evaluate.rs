//! Terms and formulas evaluated under an assignment of their atoms: how the
//! searches before Z3 (`crate::candidates`, `crate::repair`) test a
//! candidate model.

use crate::term::{Formula, Term, VarId};

/// Values for the atoms of a query: integers for variables, ranks and
/// dimensions, truths for boolean variables. `None` for an atom it does not
/// value (the evaluation is then undecided).
pub(crate) trait Assignment {
    fn atom(&self, atom: &Term) -> Option<i64>;
    fn truth(&self, var: VarId) -> Option<bool>;
}

fn floor_div(a: i64, b: i64) -> Option<i64> {
    if b == 0 {
        return None;
    }
    Some(a.div_euclid(b) - i64::from(b < 0 && a.rem_euclid(b) != 0))
}

/// The term's value (floor division, as the encoding's); `None` on an
/// overflow, a division by zero or an atom not valued.
pub(crate) fn term(term: &Term, at: &dyn Assignment) -> Option<i64> {
    crate::work::charge(1);
    Some(match term {
        Term::Const(c) => *c,
        Term::Rank(_) | Term::Var(_) | Term::Dim(..) => at.atom(term)?,
        Term::Add(parts) => parts
            .iter()
            .try_fold(0i64, |sum, p| sum.checked_add(self::term(p, at)?))?,
        Term::Mul(a, b) => self::term(a, at)?.checked_mul(self::term(b, at)?)?,
        Term::Div(a, b) => floor_div(self::term(a, at)?, self::term(b, at)?)?,
        Term::Rem(a, b) => {
            let (x, y) = (self::term(a, at)?, self::term(b, at)?);
            x.checked_sub(y.checked_mul(floor_div(x, y)?)?)?
        }
        Term::Ite(c, a, b) => match formula(c, at)? {
            true => self::term(a, at)?,
            false => self::term(b, at)?,
        },
    })
}

/// The formula's truth; `None` where a term in it has no value.
pub(crate) fn formula(formula: &Formula, at: &dyn Assignment) -> Option<bool> {
    crate::work::charge(1);
    Some(match formula {
        Formula::Const(v) => *v,
        Formula::Var(v) => at.truth(*v)?,
        Formula::IsZero(t) => term(t, at)? == 0,
        Formula::NonPositive(t) => term(t, at)? <= 0,
        Formula::Not(inner) => !self::formula(inner, at)?,
        Formula::And(parts) => {
            for p in parts {
                if !self::formula(p, at)? {
                    return Some(false);
                }
            }
            true
        }
        Formula::Or(parts) => {
            for p in parts {
                if self::formula(p, at)? {
                    return Some(true);
                }
            }
            false
        }
    })
}

/// Whether the formula holds (an undecided one does not).
pub(crate) fn holds(f: &Formula, at: &dyn Assignment) -> bool {
    formula(f, at) == Some(true)
}
