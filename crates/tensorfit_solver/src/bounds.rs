//! Interval bounds that facts imply for their atoms, found without a
//! solver: each fact `t <= 0` or `t == 0` narrows the atoms of `t` through
//! sums, products with a factor of one value and floor divisions by
//! constants, a few rounds over all facts.
//!
//! The bounds are sound but not tight: every model keeps each atom inside
//! its interval, but a value inside need not belong to a model. What uses
//! them: the least value a term can take starts at its bound (a shown
//! example's dimension `x` with `(x / 4 + 1) / 4 >= 12` is at least 188,
//! which bisection with Z3 found in eight queries), and a model search
//! starts its atoms inside their bounds (`crate::repair`).

use rustc_hash::FxHashMap;

use crate::term::{Formula, Term};

/// Rounds over the facts at most: bounds that feed each other (`x <= y -
/// 1`, `y <= x - 1`) would narrow forever.
const MAX_ROUNDS: usize = 8;

/// A range of integers; `None` is no bound on that side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Interval {
    pub lo: Option<i64>,
    pub hi: Option<i64>,
}

impl Interval {
    pub const ANY: Interval = Interval { lo: None, hi: None };

    fn point(value: i64) -> Interval {
        Interval {
            lo: Some(value),
            hi: Some(value),
        }
    }

    fn at_least(value: i64) -> Interval {
        Interval {
            lo: Some(value),
            hi: None,
        }
    }

    fn at_most(value: i64) -> Interval {
        Interval {
            lo: None,
            hi: Some(value),
        }
    }

    pub(crate) fn as_point(self) -> Option<i64> {
        match (self.lo, self.hi) {
            (Some(lo), Some(hi)) if lo == hi => Some(lo),
            _ => None,
        }
    }

    fn is_empty(self) -> bool {
        matches!((self.lo, self.hi), (Some(lo), Some(hi)) if lo > hi)
    }

    fn meet(self, other: Interval) -> Interval {
        Interval {
            lo: tighter(self.lo, other.lo, i64::max),
            hi: tighter(self.hi, other.hi, i64::min),
        }
    }

    fn hull(self, other: Interval) -> Interval {
        Interval {
            lo: self.lo.zip(other.lo).map(|(a, b)| a.min(b)),
            hi: self.hi.zip(other.hi).map(|(a, b)| a.max(b)),
        }
    }

    fn add(self, other: Interval) -> Interval {
        let sum = |a: Option<i64>, b: Option<i64>| a?.checked_add(b?);
        Interval {
            lo: sum(self.lo, other.lo),
            hi: sum(self.hi, other.hi),
        }
    }

    fn neg(self) -> Interval {
        Interval {
            lo: self.hi.and_then(i64::checked_neg),
            hi: self.lo.and_then(i64::checked_neg),
        }
    }

    fn scale(self, factor: i64) -> Interval {
        let times = |a: Option<i64>| a?.checked_mul(factor);
        match factor >= 0 {
            true => Interval {
                lo: times(self.lo),
                hi: times(self.hi),
            },
            false => Interval {
                lo: times(self.hi),
                hi: times(self.lo),
            },
        }
    }

    fn mul(self, other: Interval) -> Interval {
        if let Some(c) = other.as_point() {
            return self.scale(c);
        }
        if let Some(c) = self.as_point() {
            return other.scale(c);
        }
        // Products of non-negative ranges (sizes times sizes); any other
        // product is left unbounded.
        match (self.lo, other.lo) {
            (Some(a), Some(b)) if a >= 0 && b >= 0 => Interval {
                lo: a.checked_mul(b),
                hi: self.hi.zip(other.hi).and_then(|(x, y)| x.checked_mul(y)),
            },
            _ => Interval::ANY,
        }
    }

    /// The values `v` with `v * factor` inside `self` (`factor != 0`).
    fn divided_exactly(self, factor: i64) -> Interval {
        let (lo, hi) = match factor > 0 {
            true => (self.lo, self.hi),
            false => (
                self.hi.and_then(i64::checked_neg),
                self.lo.and_then(i64::checked_neg),
            ),
        };
        let f = factor.checked_abs().unwrap_or(i64::MAX);
        Interval {
            lo: lo.map(|l| ceil_div(l, f)),
            hi: hi.map(|h| h.div_euclid(f)),
        }
    }

    /// `floor(v / divisor)` for `v` in `self` (`divisor > 0`).
    fn floor_div(self, divisor: i64) -> Interval {
        Interval {
            lo: self.lo.map(|l| l.div_euclid(divisor)),
            hi: self.hi.map(|h| h.div_euclid(divisor)),
        }
    }

    /// The values `v` with `floor(v / divisor)` inside `self`.
    fn before_floor_div(self, divisor: i64) -> Interval {
        Interval {
            lo: self.lo.and_then(|l| l.checked_mul(divisor)),
            hi: self
                .hi
                .and_then(|h| h.checked_mul(divisor)?.checked_add(divisor - 1)),
        }
    }
}

fn tighter(a: Option<i64>, b: Option<i64>, pick: fn(i64, i64) -> i64) -> Option<i64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(pick(a, b)),
        (a, b) => a.or(b),
    }
}

fn ceil_div(a: i64, b: i64) -> i64 {
    let q = a.div_euclid(b);
    q + i64::from(a.rem_euclid(b) != 0)
}

/// The facts contradict each other: some atom has no value left.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Contradiction;

/// The bounds of atoms (variables, ranks, dimensions) the facts imply.
#[derive(Default, Debug)]
pub(crate) struct Bounds {
    atoms: FxHashMap<Term, Interval>,
}

impl Bounds {
    /// The bounds `formulas` imply (each a fact that holds).
    pub(crate) fn implied_by(formulas: &[&Formula]) -> Result<Bounds, Contradiction> {
        let mut bounds = Bounds::default();
        for _ in 0..MAX_ROUNDS {
            let mut changed = false;
            for formula in formulas {
                changed |= bounds.assume(formula)?;
            }
            if !changed {
                break;
            }
        }
        Ok(bounds)
    }

    /// The range of `term`'s values in any model.
    pub(crate) fn of(&self, term: &Term) -> Interval {
        crate::work::charge(1);
        match term {
            Term::Const(c) => Interval::point(*c),
            Term::Var(_) | Term::Dim(..) => self.atom(term),
            Term::Rank(_) => self.atom(term),
            Term::Add(parts) => parts
                .iter()
                .fold(Interval::point(0), |sum, p| sum.add(self.of(p))),
            Term::Mul(a, b) => self.of(a).mul(self.of(b)),
            Term::Div(a, b) => match b.as_const() {
                Some(c) if c > 0 => self.of(a).floor_div(c),
                _ => Interval::ANY,
            },
            Term::Rem(_, b) => match b.as_const() {
                Some(c) if c > 0 => Interval {
                    lo: Some(0),
                    hi: Some(c - 1),
                },
                _ => Interval::ANY,
            },
            Term::Ite(_, a, b) => self.of(a).hull(self.of(b)),
        }
    }

    fn atom(&self, atom: &Term) -> Interval {
        let known = self.atoms.get(atom).copied().unwrap_or(Interval::ANY);
        match atom {
            // A rank is never negative.
            Term::Rank(_) => known.meet(Interval {
                lo: Some(0),
                hi: None,
            }),
            _ => known,
        }
    }

    /// Narrows by one fact; whether any bound changed. A disjunction
    /// narrows only when the bounds refute all of its parts but one.
    fn assume(&mut self, formula: &Formula) -> Result<bool, Contradiction> {
        match formula {
            Formula::Const(false) => Err(Contradiction),
            Formula::NonPositive(t) => self.restrict(t, Interval::at_most(0)),
            Formula::IsZero(t) => self.restrict(t, Interval::point(0)),
            Formula::Not(inner) => match &**inner {
                Formula::NonPositive(t) => self.restrict(t, Interval::at_least(1)),
                Formula::IsZero(t) => {
                    let range = self.of(t);
                    match (range.lo, range.hi) {
                        (Some(0), Some(0)) => Err(Contradiction),
                        (Some(0), _) => self.restrict(t, Interval::at_least(1)),
                        (_, Some(0)) => self.restrict(t, Interval::at_most(-1)),
                        _ => Ok(false),
                    }
                }
                _ => Ok(false),
            },
            Formula::And(parts) => {
                let mut changed = false;
                for p in parts {
                    changed |= self.assume(p)?;
                }
                Ok(changed)
            }
            Formula::Or(parts) => {
                let mut open = parts.iter().filter(|p| !self.refutes(p));
                match (open.next(), open.next()) {
                    (None, _) => Err(Contradiction),
                    (Some(only), None) => self.assume(only),
                    _ => Ok(false),
                }
            }
            Formula::Const(true) | Formula::Var(_) => Ok(false),
        }
    }

    /// Whether no values inside the bounds make `formula` hold.
    fn refutes(&self, formula: &Formula) -> bool {
        match formula {
            Formula::Const(value) => !value,
            Formula::Var(_) => false,
            Formula::NonPositive(t) => self.of(t).lo.is_some_and(|lo| lo > 0),
            Formula::IsZero(t) => {
                let range = self.of(t);
                range.lo.is_some_and(|lo| lo > 0) || range.hi.is_some_and(|hi| hi < 0)
            }
            Formula::Not(inner) => match &**inner {
                Formula::NonPositive(t) => self.of(t).hi.is_some_and(|hi| hi <= 0),
                Formula::IsZero(t) => self.of(t).as_point() == Some(0),
                _ => false,
            },
            Formula::And(parts) => parts.iter().any(|p| self.refutes(p)),
            Formula::Or(parts) => parts.iter().all(|p| self.refutes(p)),
        }
    }

    /// Narrows the atoms of `term` so that its value can lie in `target`.
    fn restrict(&mut self, term: &Term, target: Interval) -> Result<bool, Contradiction> {
        crate::work::charge(1);
        let now = self.of(term);
        let wanted = now.meet(target);
        if wanted.is_empty() {
            return Err(Contradiction);
        }
        if wanted == now {
            return Ok(false);
        }
        match term {
            Term::Const(_) => Ok(false),
            Term::Var(_) | Term::Rank(_) | Term::Dim(..) => {
                self.atoms.insert(term.clone(), wanted);
                Ok(true)
            }
            Term::Add(parts) => {
                let mut changed = false;
                for (k, part) in parts.iter().enumerate() {
                    let others = parts
                        .iter()
                        .enumerate()
                        .filter(|(j, _)| *j != k)
                        .fold(Interval::point(0), |sum, (_, p)| sum.add(self.of(p)));
                    changed |= self.restrict(part, wanted.add(others.neg()))?;
                }
                Ok(changed)
            }
            // A factor of one value (a constant, or an atom the facts
            // fixed) divides the other's range.
            Term::Mul(a, b) => match (self.of(a).as_point(), self.of(b).as_point()) {
                (Some(c), _) if c != 0 => self.restrict(b, wanted.divided_exactly(c)),
                (_, Some(c)) if c != 0 => self.restrict(a, wanted.divided_exactly(c)),
                _ => Ok(false),
            },
            Term::Div(a, b) => match b.as_const() {
                Some(c) if c > 0 => self.restrict(a, wanted.before_floor_div(c)),
                _ => Ok(false),
            },
            Term::Rem(..) | Term::Ite(..) => Ok(false),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bounds(facts: &[Formula]) -> Result<Bounds, Contradiction> {
        let facts: Vec<&Formula> = facts.iter().collect();
        Bounds::implied_by(&facts)
    }

    #[test]
    fn floor_divisions_are_undone() {
        // (x / 4 + 1) / 4 >= 12: x / 4 + 1 >= 48, x / 4 >= 47, x >= 188.
        let x = Term::var(1);
        let inner = Term::add(&Term::div(&x, &Term::int(4)), &Term::int(1));
        let fact = Formula::ge(&Term::div(&inner, &Term::int(4)), &Term::int(12));
        let found = bounds(&[fact]).unwrap();
        assert_eq!(found.of(&x).lo, Some(188));
        assert_eq!(found.of(&x).hi, None);
    }

    #[test]
    fn equalities_bound_both_sides_and_reach_other_atoms() {
        // (y / 4 + 1) / 4 == 12 and x == 2 * y: y in 188..=203, x in 376..=406.
        let (x, y) = (Term::var(1), Term::var(2));
        let inner = Term::add(&Term::div(&y, &Term::int(4)), &Term::int(1));
        let facts = [
            Formula::eq(&Term::div(&inner, &Term::int(4)), &Term::int(12)),
            Formula::eq(&x, &Term::mul(&Term::int(2), &y)),
        ];
        let found = bounds(&facts).unwrap();
        assert_eq!(
            found.of(&y),
            Interval {
                lo: Some(188),
                hi: Some(203)
            }
        );
        assert_eq!(
            found.of(&x),
            Interval {
                lo: Some(376),
                hi: Some(406)
            }
        );
    }

    #[test]
    fn a_factor_fixed_by_the_facts_divides_the_product() {
        // (x / 4 - 3) * (y / 4 - 3) == 256 (a flattened feature map) with
        // x == 17: y / 4 - 3 == 256, so y is in 1036..=1039.
        let (x, y) = (Term::var(1), Term::var(2));
        let side = |t: &Term| Term::sub(&Term::div(t, &Term::int(4)), &Term::int(3));
        let facts = [
            Formula::eq(&Term::mul(&side(&x), &side(&y)), &Term::int(256)),
            Formula::eq(&x, &Term::int(17)),
        ];
        let found = bounds(&facts).unwrap();
        assert_eq!(
            found.of(&y),
            Interval {
                lo: Some(1036),
                hi: Some(1039)
            }
        );
    }

    #[test]
    fn negations_and_disjunctions_the_bounds_decide() {
        // "Some shown dimension differs from the model's" where the facts
        // fix them all: every part refuted.
        let (d, e) = (Term::dim(1, Term::int(1)), Term::var(2));
        let fixed = [
            Formula::eq(&d, &Term::int(1)),
            Formula::eq(&Term::div(&e, &Term::int(4)), &Term::int(8)),
        ];
        let differs = Formula::or([
            Formula::ne(&d, &Term::int(1)),
            Formula::ne(&Term::div(&e, &Term::int(4)), &Term::int(8)),
        ]);
        let mut facts = fixed.to_vec();
        facts.push(differs);
        assert_eq!(bounds(&facts).unwrap_err(), Contradiction);
        // One part left open is assumed: e != 32 at e's lower end moves it.
        let mut facts = fixed.to_vec();
        facts.push(Formula::or([
            Formula::ne(&d, &Term::int(1)),
            Formula::ne(&e, &Term::int(32)),
        ]));
        assert_eq!(
            bounds(&facts).unwrap().of(&e),
            Interval {
                lo: Some(33),
                hi: Some(35)
            }
        );
    }

    #[test]
    fn contradictions_and_what_is_not_read() {
        let x = Term::var(1);
        let contradiction = [
            Formula::ge(&x, &Term::int(5)),
            Formula::le(&Term::mul(&Term::int(3), &x), &Term::int(14)),
        ];
        assert_eq!(bounds(&contradiction).unwrap_err(), Contradiction);
        // A disjunction narrows nothing; a rank is never negative.
        let either = Formula::or([
            Formula::ge(&x, &Term::int(5)),
            Formula::le(&x, &Term::int(2)),
        ]);
        let found = bounds(&[either]).unwrap();
        assert_eq!(found.of(&x), Interval::ANY);
        assert_eq!(found.of(&Term::rank(3)).lo, Some(0));
    }

    #[test]
    fn bounds_that_feed_each_other_stop() {
        // x <= y - 1 and y <= x - 1 have no model, which interval bounds
        // never prove: they only climb. The rounds are bounded.
        let (x, y) = (Term::var(1), Term::var(2));
        let facts = [
            Formula::le(&x, &Term::sub(&y, &Term::int(1))),
            Formula::le(&y, &Term::sub(&x, &Term::int(1))),
            Formula::ge(&x, &Term::int(0)),
        ];
        // Each round moves the bounds up by about two, and stops.
        let found = bounds(&facts).unwrap();
        let lowest = found.of(&x).lo.unwrap();
        assert!(
            (2..=2 * MAX_ROUNDS as i64 + 2).contains(&lowest),
            "{lowest}"
        );
    }
}
