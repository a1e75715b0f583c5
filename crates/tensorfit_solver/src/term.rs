//! The constraint language: integer terms over shape facts and formulas
//! over them.
//!
//! Terms are built through smart constructors that fold constants and keep
//! sums in a canonical linear form, so that equal facts are equal values and
//! most facts about concrete shapes never need the solver.

use std::collections::BTreeMap;
use std::sync::Arc;

/// A symbolic integer, a boolean variable, or an opaque shape (a tensor of
/// unknown rank), depending on where it is used.
pub type VarId = u32;

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Term {
    Const(i64),
    Var(VarId),
    /// The rank of the opaque shape `VarId`.
    Rank(VarId),
    /// Dimension `index` (0-based, from the front) of the opaque shape.
    Dim(VarId, Arc<Term>),
    /// A sum, in canonical form: atoms scaled by `Mul(Const, atom)`, sorted,
    /// with the constant (if any) last.
    Add(Vec<Term>),
    Mul(Arc<Term>, Arc<Term>),
    /// Floor division (rounds towards negative infinity).
    Div(Arc<Term>, Arc<Term>),
    /// The remainder of floor division (the sign of the divisor).
    Rem(Arc<Term>, Arc<Term>),
    Ite(Arc<Formula>, Arc<Term>, Arc<Term>),
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Formula {
    Const(bool),
    Var(VarId),
    /// `term == 0`
    IsZero(Term),
    /// `term <= 0`
    NonPositive(Term),
    Not(Arc<Formula>),
    And(Vec<Formula>),
    Or(Vec<Formula>),
}

// ---------------------------------------------------------------- linear

/// `constant + Σ coefficient · atom`
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Linear {
    pub constant: i64,
    pub atoms: BTreeMap<Term, i64>,
}

impl Linear {
    pub fn of(term: &Term) -> Option<Linear> {
        let mut linear = Linear::default();
        linear.add_term(term, 1)?;
        Some(linear)
    }

    fn add_term(&mut self, term: &Term, factor: i64) -> Option<()> {
        match term {
            Term::Const(c) => self.constant = self.constant.checked_add(c.checked_mul(factor)?)?,
            Term::Add(parts) => {
                for part in parts {
                    self.add_term(part, factor)?;
                }
            }
            Term::Mul(a, b) => match (&**a, &**b) {
                (Term::Const(c), other) | (other, Term::Const(c)) => {
                    self.add_term(other, factor.checked_mul(*c)?)?
                }
                _ => self.add_atom(term.clone(), factor)?,
            },
            _ => self.add_atom(term.clone(), factor)?,
        }
        Some(())
    }

    fn add_atom(&mut self, atom: Term, factor: i64) -> Option<()> {
        let entry = self.atoms.entry(atom).or_insert(0);
        *entry = entry.checked_add(factor)?;
        Some(())
    }

    pub fn into_term(mut self) -> Term {
        self.atoms.retain(|_, c| *c != 0);
        let mut parts: Vec<Term> = self
            .atoms
            .into_iter()
            .map(|(atom, c)| {
                if c == 1 {
                    atom
                } else {
                    Term::Mul(Arc::new(Term::Const(c)), Arc::new(atom))
                }
            })
            .collect();
        if self.constant != 0 || parts.is_empty() {
            parts.push(Term::Const(self.constant));
        }
        if parts.len() == 1 {
            parts.pop().expect("one part")
        } else {
            Term::Add(parts)
        }
    }

    fn checked_scale(&self, factor: i64) -> Option<Linear> {
        Some(Linear {
            constant: self.constant.checked_mul(factor)?,
            atoms: self
                .atoms
                .iter()
                .map(|(a, c)| Some((a.clone(), c.checked_mul(factor)?)))
                .collect::<Option<_>>()?,
        })
    }
}

fn gcd(a: i64, b: i64) -> i64 {
    let (mut a, mut b) = (a.unsigned_abs(), b.unsigned_abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a.min(i64::MAX as u64) as i64
}

fn floor_div(a: i64, b: i64) -> Option<i64> {
    if b == 0 {
        return None;
    }
    let q = a.checked_div(b)?;
    if (a % b != 0) && ((a < 0) != (b < 0)) {
        q.checked_sub(1)
    } else {
        Some(q)
    }
}

// ----------------------------------------------------------- constructors

impl Term {
    pub fn int(value: i64) -> Term {
        Term::Const(value)
    }

    pub fn var(id: VarId) -> Term {
        Term::Var(id)
    }

    pub fn rank(shape: VarId) -> Term {
        Term::Rank(shape)
    }

    pub fn dim(shape: VarId, index: Term) -> Term {
        Term::Dim(shape, Arc::new(index))
    }

    pub fn as_const(&self) -> Option<i64> {
        match self {
            Term::Const(c) => Some(*c),
            _ => None,
        }
    }

    fn linear_combine(a: &Term, b: &Term, b_factor: i64) -> Term {
        let combined = Linear::of(a).and_then(|mut la| {
            la.add_term(b, b_factor)?;
            Some(la)
        });
        match combined {
            Some(linear) => linear.into_term(),
            // Overflow while folding: keep the sum unfolded for the solver.
            None => Term::Add(vec![
                a.clone(),
                if b_factor == 1 {
                    b.clone()
                } else {
                    Term::Mul(Arc::new(Term::Const(b_factor)), Arc::new(b.clone()))
                },
            ]),
        }
    }

    pub fn add(a: &Term, b: &Term) -> Term {
        Term::linear_combine(a, b, 1)
    }

    /// The sum of `parts`, in order: the same term as adding them one at a
    /// time from 0 with [`Term::add`], built once. (Adding one at a time
    /// turns the partial sum into a map and back at every part; building
    /// sums once took U-Net's check from about 61 to 58 ms as a process.)
    pub fn sum(parts: impl IntoIterator<Item = Term>) -> Term {
        let parts: Vec<Term> = parts.into_iter().collect();
        let mut linear = Linear::default();
        if parts.iter().all(|part| linear.add_term(part, 1).is_some()) {
            return linear.into_term();
        }
        // An overflow along the way: the partial sums are kept unfolded
        // where they overflowed, as adding one at a time keeps them.
        parts
            .iter()
            .fold(Term::Const(0), |sum, part| Term::add(&sum, part))
    }

    pub fn sub(a: &Term, b: &Term) -> Term {
        Term::linear_combine(a, b, -1)
    }

    pub fn neg(a: &Term) -> Term {
        Term::sub(&Term::Const(0), a)
    }

    pub fn mul(a: &Term, b: &Term) -> Term {
        let scaled = |c: i64, t: &Term| {
            Linear::of(t)
                .and_then(|l| l.checked_scale(c))
                .map(Linear::into_term)
        };
        match (a, b) {
            (Term::Const(c), t) | (t, Term::Const(c)) => {
                scaled(*c, t).unwrap_or_else(|| Term::Mul(Arc::new(a.clone()), Arc::new(b.clone())))
            }
            _ => {
                let (x, y) = if a <= b { (a, b) } else { (b, a) };
                Term::Mul(Arc::new(x.clone()), Arc::new(y.clone()))
            }
        }
    }

    pub fn div(a: &Term, b: &Term) -> Term {
        // ⌊⌊x / k⌋ / c⌋ = ⌊x / (k·c)⌋ for positive k and c and every
        // integer x: two poolings by 2 read as one by 4.
        if let (Term::Div(x, k), Some(c)) = (a, b.as_const().filter(|c| *c > 0)) {
            if let Some(kc) = k
                .as_const()
                .filter(|k| *k > 0)
                .and_then(|k| k.checked_mul(c))
            {
                return Term::div(x, &Term::Const(kc));
            }
        }
        match (a, b) {
            (Term::Const(x), Term::Const(y)) => match floor_div(*x, *y) {
                Some(q) => Term::Const(q),
                None => Term::Div(Arc::new(a.clone()), Arc::new(b.clone())),
            },
            (_, Term::Const(1)) => a.clone(),
            (_, Term::Const(c)) if *c > 1 => {
                // (c·x + k) / c = x + k / c when c divides everything.
                if let Some(linear) = Linear::of(a) {
                    let divisible =
                        linear.constant % c == 0 && linear.atoms.values().all(|k| k % c == 0);
                    if divisible {
                        let divided = Linear {
                            constant: linear.constant / c,
                            atoms: linear
                                .atoms
                                .iter()
                                .map(|(t, k)| (t.clone(), k / c))
                                .collect(),
                        };
                        return divided.into_term();
                    }
                    // (x + q·c + r) / c = (x + r) / c + q, with 0 <= r < c.
                    let q = floor_div(linear.constant, *c).unwrap_or(0);
                    if q != 0 {
                        let mut rest = linear.clone();
                        rest.constant -= q * c;
                        let inner = Term::Div(Arc::new(rest.into_term()), Arc::new(b.clone()));
                        return Term::add(&inner, &Term::Const(q));
                    }
                }
                Term::Div(Arc::new(a.clone()), Arc::new(b.clone()))
            }
            _ => Term::Div(Arc::new(a.clone()), Arc::new(b.clone())),
        }
    }

    /// `k` when `self` is `k · other` as linear expressions for a constant
    /// `k` (e.g. `3·n` of `n`), so a symbolic size divides into a known
    /// number of parts; `None` when that cannot be read off the terms.
    pub fn multiple_of(&self, other: &Term) -> Option<i64> {
        let (a, b) = (Linear::of(self)?, Linear::of(other)?);
        if let (Some(x), Some(y)) = (self.as_const(), other.as_const()) {
            return (y != 0 && x % y == 0).then(|| x / y);
        }
        let (atom, coefficient) = b.atoms.iter().find(|(_, c)| **c != 0)?;
        let numerator = *a.atoms.get(atom)?;
        if numerator % coefficient != 0 {
            return None;
        }
        let k = numerator / coefficient;
        let scaled = b.checked_scale(k)?;
        let same = scaled.constant == a.constant
            && scaled.atoms.iter().filter(|(_, c)| **c != 0).count()
                == a.atoms.iter().filter(|(_, c)| **c != 0).count()
            && scaled
                .atoms
                .iter()
                .all(|(t, c)| *c == 0 || a.atoms.get(t) == Some(c));
        same.then_some(k)
    }

    pub fn rem(a: &Term, b: &Term) -> Term {
        match (a, b) {
            (Term::Const(x), Term::Const(y)) => match floor_div(*x, *y) {
                Some(q) => Term::Const(x - q * y),
                None => Term::Rem(Arc::new(a.clone()), Arc::new(b.clone())),
            },
            (_, Term::Const(1)) => Term::Const(0),
            _ => Term::Rem(Arc::new(a.clone()), Arc::new(b.clone())),
        }
    }

    pub fn ite(condition: &Formula, then: &Term, otherwise: &Term) -> Term {
        match condition {
            Formula::Const(true) => then.clone(),
            Formula::Const(false) => otherwise.clone(),
            _ if then == otherwise => then.clone(),
            _ => Term::Ite(
                Arc::new(condition.clone()),
                Arc::new(then.clone()),
                Arc::new(otherwise.clone()),
            ),
        }
    }

    /// Rebuilds the term bottom-up, replacing atoms (`Var`, `Rank`, `Dim`
    /// after its index is rewritten) for which `f` answers, and folding.
    pub fn rewrite(&self, f: &mut dyn FnMut(&Term) -> Option<Term>) -> Term {
        crate::work::charge(1);
        match self {
            Term::Const(_) => self.clone(),
            Term::Var(_) | Term::Rank(_) => f(self).unwrap_or_else(|| self.clone()),
            Term::Dim(shape, index) => {
                let rebuilt = Term::Dim(*shape, Arc::new(index.rewrite(f)));
                f(&rebuilt).unwrap_or(rebuilt)
            }
            Term::Add(parts) => Term::sum(parts.iter().map(|part| part.rewrite(f))),
            Term::Mul(a, b) => Term::mul(&a.rewrite(f), &b.rewrite(f)),
            Term::Div(a, b) => Term::div(&a.rewrite(f), &b.rewrite(f)),
            Term::Rem(a, b) => Term::rem(&a.rewrite(f), &b.rewrite(f)),
            Term::Ite(c, a, b) => Term::ite(&c.rewrite(f), &a.rewrite(f), &b.rewrite(f)),
        }
    }

    /// The degree of the term as a polynomial in its atoms (a quotient or
    /// remainder counts as the product of its sides), saturating.
    pub fn degree(&self) -> u32 {
        crate::work::charge(1);
        match self {
            Term::Const(_) => 0,
            Term::Var(_) | Term::Rank(_) => 1,
            Term::Dim(_, index) => 1 + index.degree(),
            Term::Add(parts) => parts.iter().map(Term::degree).max().unwrap_or(0),
            Term::Mul(a, b) | Term::Div(a, b) | Term::Rem(a, b) => {
                a.degree().saturating_add(b.degree())
            }
            Term::Ite(c, a, b) => c.degree().max(a.degree()).max(b.degree()),
        }
    }

    /// Replaces boolean variables inside conditions (`Ite`) where `f` answers.
    pub fn rewrite_bools(&self, f: &mut dyn FnMut(VarId) -> Option<Formula>) -> Term {
        match self {
            Term::Const(_) | Term::Var(_) | Term::Rank(_) => self.clone(),
            Term::Dim(shape, index) => Term::Dim(*shape, Arc::new(index.rewrite_bools(f))),
            Term::Add(parts) => Term::sum(parts.iter().map(|p| p.rewrite_bools(f))),
            Term::Mul(a, b) => Term::mul(&a.rewrite_bools(f), &b.rewrite_bools(f)),
            Term::Div(a, b) => Term::div(&a.rewrite_bools(f), &b.rewrite_bools(f)),
            Term::Rem(a, b) => Term::rem(&a.rewrite_bools(f), &b.rewrite_bools(f)),
            Term::Ite(c, a, b) => Term::ite(
                &c.rewrite_bools(f),
                &a.rewrite_bools(f),
                &b.rewrite_bools(f),
            ),
        }
    }

    /// Visits every atom (`Var`, `Rank`, `Dim`) and boolean variable.
    pub fn visit_atoms(&self, f: &mut dyn FnMut(&Term)) {
        match self {
            Term::Const(_) => {}
            Term::Var(_) | Term::Rank(_) => f(self),
            Term::Dim(_, index) => {
                index.visit_atoms(f);
                f(self);
            }
            Term::Add(parts) => parts.iter().for_each(|p| p.visit_atoms(f)),
            Term::Mul(a, b) | Term::Div(a, b) | Term::Rem(a, b) => {
                a.visit_atoms(f);
                b.visit_atoms(f);
            }
            Term::Ite(c, a, b) => {
                c.visit_atoms(f);
                a.visit_atoms(f);
                b.visit_atoms(f);
            }
        }
    }
}

impl Formula {
    pub fn truth(value: bool) -> Formula {
        Formula::Const(value)
    }

    pub fn var(id: VarId) -> Formula {
        Formula::Var(id)
    }

    fn compare(difference: Term, zero_test: bool) -> Formula {
        if let Some(c) = difference.as_const() {
            return Formula::Const(if zero_test { c == 0 } else { c <= 0 });
        }
        // Canonical form: divide by the gcd of the coefficients and, for
        // equalities, make the first coefficient positive.
        let difference = match Linear::of(&difference) {
            Some(linear) => {
                let g = linear.atoms.values().fold(0, |g, c| gcd(g, *c));
                let mut linear = linear;
                if g > 1 {
                    if zero_test && linear.constant % g != 0 {
                        return Formula::Const(false);
                    }
                    let constant = if zero_test {
                        linear.constant / g
                    } else {
                        // c·x + k <= 0  ⇔  x + ceil(k / c) <= 0 for c = g > 0
                        -floor_div(-linear.constant, g).unwrap_or(0)
                    };
                    linear = Linear {
                        constant,
                        atoms: linear
                            .atoms
                            .iter()
                            .map(|(t, c)| (t.clone(), c / g))
                            .collect(),
                    };
                }
                if zero_test && linear.atoms.values().next().is_some_and(|c| *c < 0) {
                    linear = linear.checked_scale(-1).unwrap_or(linear);
                }
                linear.into_term()
            }
            None => difference,
        };
        if zero_test {
            Formula::IsZero(difference)
        } else {
            Formula::NonPositive(difference)
        }
    }

    /// Whether the formula holds because ranks are never negative
    /// (`rank(x) >= 0`, `rank(x) + rank(y) >= -2`). Kept as written (the
    /// solver's eliminations learn `hole >= 0` from `rank(x) >= 0` and
    /// `hole == rank(x)`), but a requirement of this form can never fail.
    pub fn holds_for_any_ranks(&self) -> bool {
        let Formula::NonPositive(difference) = self else {
            return false;
        };
        Linear::of(difference).is_some_and(|linear| {
            linear.constant <= 0
                && linear
                    .atoms
                    .iter()
                    .all(|(atom, c)| matches!(atom, Term::Rank(_)) && *c < 0)
        })
    }

    pub fn eq(a: &Term, b: &Term) -> Formula {
        Formula::compare(Term::sub(a, b), true)
    }

    pub fn ne(a: &Term, b: &Term) -> Formula {
        Formula::not(&Formula::eq(a, b))
    }

    pub fn le(a: &Term, b: &Term) -> Formula {
        Formula::compare(Term::sub(a, b), false)
    }

    pub fn lt(a: &Term, b: &Term) -> Formula {
        Formula::le(&Term::add(a, &Term::Const(1)), b)
    }

    pub fn ge(a: &Term, b: &Term) -> Formula {
        Formula::le(b, a)
    }

    pub fn gt(a: &Term, b: &Term) -> Formula {
        Formula::lt(b, a)
    }

    pub fn not(a: &Formula) -> Formula {
        match a {
            Formula::Const(v) => Formula::Const(!v),
            Formula::Not(inner) => (**inner).clone(),
            _ => Formula::Not(Arc::new(a.clone())),
        }
    }

    pub fn and(parts: impl IntoIterator<Item = Formula>) -> Formula {
        let mut flat = Vec::new();
        for part in parts {
            match part {
                Formula::Const(true) => {}
                Formula::Const(false) => return Formula::Const(false),
                Formula::And(inner) => flat.extend(inner),
                other => flat.push(other),
            }
        }
        flat.dedup();
        match flat.len() {
            0 => Formula::Const(true),
            1 => flat.pop().expect("one"),
            _ => Formula::And(flat),
        }
    }

    pub fn or(parts: impl IntoIterator<Item = Formula>) -> Formula {
        let mut flat = Vec::new();
        for part in parts {
            match part {
                Formula::Const(false) => {}
                Formula::Const(true) => return Formula::Const(true),
                Formula::Or(inner) => flat.extend(inner),
                other => flat.push(other),
            }
        }
        flat.dedup();
        match flat.len() {
            0 => Formula::Const(false),
            1 => flat.pop().expect("one"),
            _ => Formula::Or(flat),
        }
    }

    pub fn implies(a: &Formula, b: &Formula) -> Formula {
        Formula::or([Formula::not(a), b.clone()])
    }

    pub fn iff(a: &Formula, b: &Formula) -> Formula {
        Formula::and([Formula::implies(a, b), Formula::implies(b, a)])
    }

    pub fn as_const(&self) -> Option<bool> {
        match self {
            Formula::Const(v) => Some(*v),
            _ => None,
        }
    }

    /// Rebuilds with `f` applied to every term atom (see [`Term::rewrite`])
    /// and `g` to every boolean variable.
    pub fn rewrite(&self, f: &mut dyn FnMut(&Term) -> Option<Term>) -> Formula {
        crate::work::charge(1);
        match self {
            Formula::Const(_) | Formula::Var(_) => self.clone(),
            Formula::IsZero(t) => Formula::compare(t.rewrite(f), true),
            Formula::NonPositive(t) => Formula::compare(t.rewrite(f), false),
            Formula::Not(inner) => Formula::not(&inner.rewrite(f)),
            Formula::And(parts) => Formula::and(parts.iter().map(|p| p.rewrite(f))),
            Formula::Or(parts) => Formula::or(parts.iter().map(|p| p.rewrite(f))),
        }
    }

    /// The highest [`Term::degree`] of its terms.
    pub fn degree(&self) -> u32 {
        match self {
            Formula::Const(_) | Formula::Var(_) => 0,
            Formula::IsZero(t) | Formula::NonPositive(t) => t.degree(),
            Formula::Not(inner) => inner.degree(),
            Formula::And(parts) | Formula::Or(parts) => {
                parts.iter().map(Formula::degree).max().unwrap_or(0)
            }
        }
    }

    /// Replaces boolean variables where `f` answers, also inside terms.
    pub fn rewrite_bools(&self, f: &mut dyn FnMut(VarId) -> Option<Formula>) -> Formula {
        match self {
            Formula::Const(_) => self.clone(),
            Formula::Var(v) => f(*v).unwrap_or_else(|| self.clone()),
            Formula::IsZero(t) => Formula::compare(t.rewrite_bools(f), true),
            Formula::NonPositive(t) => Formula::compare(t.rewrite_bools(f), false),
            Formula::Not(inner) => Formula::not(&inner.rewrite_bools(f)),
            Formula::And(parts) => {
                Formula::and(parts.iter().map(|p| p.rewrite_bools(f)).collect::<Vec<_>>())
            }
            Formula::Or(parts) => {
                Formula::or(parts.iter().map(|p| p.rewrite_bools(f)).collect::<Vec<_>>())
            }
        }
    }

    pub fn visit_atoms(&self, f: &mut dyn FnMut(&Term)) {
        match self {
            Formula::Const(_) | Formula::Var(_) => {}
            Formula::IsZero(t) | Formula::NonPositive(t) => t.visit_atoms(f),
            Formula::Not(inner) => inner.visit_atoms(f),
            Formula::And(parts) | Formula::Or(parts) => parts.iter().for_each(|p| p.visit_atoms(f)),
        }
    }

    /// Whether a boolean variable occurs in the formula, its terms included.
    pub fn mentions_bool_vars(&self) -> bool {
        let mut found = false;
        self.visit_bool_vars(&mut |_| found = true);
        found
    }

    pub fn visit_bool_vars(&self, f: &mut dyn FnMut(VarId)) {
        match self {
            Formula::Var(v) => f(*v),
            Formula::Not(inner) => inner.visit_bool_vars(f),
            Formula::And(parts) | Formula::Or(parts) => {
                parts.iter().for_each(|p| p.visit_bool_vars(f))
            }
            Formula::IsZero(t) | Formula::NonPositive(t) => t.visit_bool_vars(f),
            Formula::Const(_) => {}
        }
    }
}

impl Term {
    /// Whether a boolean variable occurs in the term (in a condition).
    pub fn mentions_bool_vars(&self) -> bool {
        let mut found = false;
        self.visit_bool_vars(&mut |_| found = true);
        found
    }

    pub(crate) fn visit_bool_vars(&self, f: &mut dyn FnMut(VarId)) {
        match self {
            Term::Ite(c, a, b) => {
                c.visit_bool_vars(f);
                a.visit_bool_vars(f);
                b.visit_bool_vars(f);
            }
            Term::Add(parts) => parts.iter().for_each(|p| p.visit_bool_vars(f)),
            Term::Mul(a, b) | Term::Div(a, b) | Term::Rem(a, b) => {
                a.visit_bool_vars(f);
                b.visit_bool_vars(f);
            }
            Term::Dim(_, index) => index.visit_bool_vars(f),
            Term::Const(_) | Term::Var(_) | Term::Rank(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn x() -> Term {
        Term::var(0)
    }

    #[test]
    fn a_rank_is_never_negative() {
        let rank = Term::rank(3);
        assert!(Formula::ge(&rank, &Term::int(0)).holds_for_any_ranks());
        assert!(
            Formula::ge(&Term::add(&rank, &Term::rank(4)), &Term::int(-2)).holds_for_any_ranks()
        );
        // Not so: a rank of at least one, or a rank against a variable.
        assert!(!Formula::ge(&rank, &Term::int(1)).holds_for_any_ranks());
        assert!(!Formula::ge(&rank, &x()).holds_for_any_ranks());
        assert!(!Formula::eq(&rank, &Term::int(0)).holds_for_any_ranks());
    }

    #[test]
    fn sums_are_canonical() {
        let a = Term::add(
            &Term::add(&x(), &Term::int(2)),
            &Term::sub(&x(), &Term::int(2)),
        );
        let b = Term::mul(&Term::int(2), &x());
        assert_eq!(a, b);
        assert_eq!(Term::sub(&x(), &x()), Term::int(0));
    }

    /// `Term::sum` is adding one part at a time, built once: the same
    /// term for sums that cancel, scale, nest or overflow.
    #[test]
    fn a_sum_is_the_parts_added_one_at_a_time() {
        let y = Term::var(1);
        let scaled = |c: i64, t: &Term| Term::mul(&Term::int(c), t);
        let quotient = Term::div(&Term::add(&x(), &Term::int(3)), &Term::int(4));
        let product = Term::mul(&x(), &y);
        let cases: Vec<Vec<Term>> = vec![
            vec![],
            vec![x()],
            vec![x(), Term::int(2), Term::neg(&x())],
            vec![
                scaled(3, &y),
                Term::add(&x(), &y),
                Term::int(-5),
                quotient.clone(),
            ],
            vec![
                product.clone(),
                scaled(-1, &product),
                quotient,
                Term::rank(2),
            ],
            vec![scaled(i64::MAX, &x()), x(), y.clone(), Term::int(1)],
            vec![Term::int(i64::MAX), Term::int(1), Term::int(-1), y.clone()],
            vec![
                Term::int(i64::MIN),
                Term::int(-1),
                scaled(2, &y),
                Term::int(3),
            ],
        ];
        for parts in cases {
            let one_at_a_time = parts
                .iter()
                .fold(Term::int(0), |sum, part| Term::add(&sum, part));
            assert_eq!(Term::sum(parts.clone()), one_at_a_time, "{parts:?}");
        }
    }

    #[test]
    fn multiples_are_read_off_linear_terms() {
        let y = Term::var(1);
        let three_x = Term::mul(&Term::int(3), &x());
        assert_eq!(three_x.multiple_of(&x()), Some(3));
        let six_x_plus_y = Term::add(
            &Term::mul(&Term::int(6), &x()),
            &Term::mul(&Term::int(2), &y),
        );
        let three_x_plus_y = Term::add(&three_x, &y);
        assert_eq!(six_x_plus_y.multiple_of(&three_x_plus_y), Some(2));
        assert_eq!(Term::int(12).multiple_of(&Term::int(4)), Some(3));
        assert_eq!(Term::int(12).multiple_of(&Term::int(5)), None);
        // 3x + 1 is no multiple of x; 3x is none of x + y.
        assert_eq!(Term::add(&three_x, &Term::int(1)).multiple_of(&x()), None);
        assert_eq!(three_x.multiple_of(&Term::add(&x(), &y)), None);
        assert_eq!(x().multiple_of(&Term::mul(&Term::int(2), &x())), None);
    }

    #[test]
    fn constants_fold_with_floor_semantics() {
        assert_eq!(Term::div(&Term::int(7), &Term::int(2)), Term::int(3));
        assert_eq!(Term::div(&Term::int(-7), &Term::int(2)), Term::int(-4));
        assert_eq!(Term::rem(&Term::int(-7), &Term::int(2)), Term::int(1));
        assert!(matches!(
            Term::div(&Term::int(1), &Term::int(0)),
            Term::Div(..)
        ));
        // (x - 2) / 2 + 1 = x / 2
        let halved = Term::add(
            &Term::div(&Term::sub(&x(), &Term::int(2)), &Term::int(2)),
            &Term::int(1),
        );
        assert_eq!(halved, Term::div(&x(), &Term::int(2)));
        // (4x + 8) / 4 = x + 2 exactly.
        let exact = Term::div(
            &Term::add(&Term::mul(&Term::int(4), &x()), &Term::int(8)),
            &Term::int(4),
        );
        assert_eq!(exact, Term::add(&x(), &Term::int(2)));
    }

    #[test]
    fn overflow_is_left_to_the_solver() {
        let big = Term::mul(&Term::int(i64::MAX), &Term::int(4));
        assert!(matches!(big, Term::Mul(..)));
    }

    #[test]
    fn comparisons_fold_and_normalise() {
        assert_eq!(
            Formula::eq(&Term::int(10), &Term::int(30)),
            Formula::Const(false)
        );
        assert_eq!(
            Formula::eq(&x(), &Term::int(3)),
            Formula::eq(&Term::int(3), &x())
        );
        assert_eq!(
            Formula::eq(&Term::mul(&Term::int(2), &x()), &Term::int(3)),
            Formula::Const(false)
        );
        assert_eq!(
            Formula::lt(&x(), &Term::int(5)),
            Formula::le(&x(), &Term::int(4))
        );
        assert_eq!(
            Formula::le(&Term::mul(&Term::int(2), &x()), &Term::int(5)),
            Formula::le(&x(), &Term::int(2))
        );
    }

    #[test]
    fn rewriting_substitutes_and_folds() {
        let term = Term::dim(7, Term::sub(&Term::rank(7), &Term::int(1)));
        let rewritten = term.rewrite(&mut |atom| match atom {
            Term::Rank(7) => Some(Term::int(2)),
            Term::Dim(7, index) if **index == Term::int(1) => Some(Term::int(10)),
            _ => None,
        });
        assert_eq!(rewritten, Term::int(10));
    }
}

// ---------------------------------------------------------------- choices

/// A value merged after an `if` is a choice `ite(c, a, b)` on the branch
/// condition `c`. Deciding the choice splits a fact about it into one fact
/// per branch, so that a failure on one path is not hidden by the other.
impl Term {
    /// Whether any choice (`ite`) occurs in the term.
    pub fn has_choice(&self) -> bool {
        match self {
            Term::Ite(..) => true,
            Term::Add(parts) => parts.iter().any(Term::has_choice),
            Term::Mul(a, b) | Term::Div(a, b) | Term::Rem(a, b) => a.has_choice() || b.has_choice(),
            Term::Dim(_, index) => index.has_choice(),
            Term::Const(_) | Term::Var(_) | Term::Rank(_) => false,
        }
    }

    /// Whether a choice on `condition` occurs in the term.
    pub fn chooses_on(&self, condition: &Formula) -> bool {
        match self {
            Term::Ite(c, a, b) => {
                **c == *condition
                    || c.chooses_on(condition)
                    || a.chooses_on(condition)
                    || b.chooses_on(condition)
            }
            Term::Add(parts) => parts.iter().any(|p| p.chooses_on(condition)),
            Term::Mul(a, b) | Term::Div(a, b) | Term::Rem(a, b) => {
                a.chooses_on(condition) || b.chooses_on(condition)
            }
            Term::Dim(_, index) => index.chooses_on(condition),
            Term::Const(_) | Term::Var(_) | Term::Rank(_) => false,
        }
    }

    /// The term with every choice on `condition` replaced by the branch
    /// taken when the condition is `holds`.
    pub fn decide(&self, condition: &Formula, holds: bool) -> Term {
        match self {
            Term::Ite(c, a, b) if **c == *condition => {
                if holds {
                    a.decide(condition, holds)
                } else {
                    b.decide(condition, holds)
                }
            }
            Term::Ite(c, a, b) => Term::ite(
                &c.decide(condition, holds),
                &a.decide(condition, holds),
                &b.decide(condition, holds),
            ),
            Term::Add(parts) => Term::sum(parts.iter().map(|part| part.decide(condition, holds))),
            Term::Mul(a, b) => Term::mul(&a.decide(condition, holds), &b.decide(condition, holds)),
            Term::Div(a, b) => Term::div(&a.decide(condition, holds), &b.decide(condition, holds)),
            Term::Rem(a, b) => Term::rem(&a.decide(condition, holds), &b.decide(condition, holds)),
            Term::Dim(shape, index) => Term::Dim(*shape, Arc::new(index.decide(condition, holds))),
            Term::Const(_) | Term::Var(_) | Term::Rank(_) => self.clone(),
        }
    }
}

impl Formula {
    /// Whether a choice on `condition` occurs in the formula's terms.
    pub fn chooses_on(&self, condition: &Formula) -> bool {
        match self {
            Formula::Const(_) | Formula::Var(_) => false,
            Formula::IsZero(t) | Formula::NonPositive(t) => t.chooses_on(condition),
            Formula::Not(inner) => inner.chooses_on(condition),
            Formula::And(parts) | Formula::Or(parts) => {
                parts.iter().any(|p| p.chooses_on(condition))
            }
        }
    }

    /// [`Term::decide`] on every term of the formula.
    pub fn decide(&self, condition: &Formula, holds: bool) -> Formula {
        match self {
            Formula::Const(_) | Formula::Var(_) => self.clone(),
            Formula::IsZero(t) => Formula::compare(t.decide(condition, holds), true),
            Formula::NonPositive(t) => Formula::compare(t.decide(condition, holds), false),
            Formula::Not(inner) => Formula::not(&inner.decide(condition, holds)),
            Formula::And(parts) => Formula::and(
                parts
                    .iter()
                    .map(|p| p.decide(condition, holds))
                    .collect::<Vec<_>>(),
            ),
            Formula::Or(parts) => Formula::or(
                parts
                    .iter()
                    .map(|p| p.decide(condition, holds))
                    .collect::<Vec<_>>(),
            ),
        }
    }
}

#[cfg(test)]
mod choice_tests {
    use super::*;

    #[test]
    fn nested_floor_divisions_by_constants_are_one() {
        let x = Term::var(1);
        let twice = Term::div(&Term::div(&x, &Term::int(2)), &Term::int(2));
        assert_eq!(twice, Term::div(&x, &Term::int(4)));
        // The identity holds for negative numerators too, as floors.
        for n in -40..40 {
            let nested = floor_div(floor_div(n, 3).unwrap(), 5);
            assert_eq!(nested, floor_div(n, 15), "{n}");
        }
        // A divisor that is not a positive constant is kept.
        let by_var = Term::div(&Term::div(&x, &Term::var(2)), &Term::int(2));
        assert!(matches!(by_var, Term::Div(..)));
    }

    #[test]
    fn deciding_a_choice_takes_its_branch_everywhere() {
        let c = Formula::var(9);
        let w = Term::ite(&c, &Term::int(4), &Term::int(5));
        let fact = Formula::eq(&Term::add(&w, &Term::var(1)), &Term::int(6));
        assert!(fact.chooses_on(&c));
        assert!(!fact.chooses_on(&Formula::var(8)));
        assert_eq!(
            fact.decide(&c, true),
            Formula::eq(&Term::var(1), &Term::int(2))
        );
        assert_eq!(
            fact.decide(&c, false),
            Formula::eq(&Term::var(1), &Term::int(1))
        );
        // Only the choice on `c` is decided.
        let other = Term::ite(&Formula::var(8), &w, &Term::int(0));
        assert_eq!(
            other.decide(&c, false),
            Term::ite(&Formula::var(8), &Term::int(5), &Term::int(0))
        );
    }
}
