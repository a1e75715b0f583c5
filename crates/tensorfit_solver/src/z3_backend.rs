//! Translation of the constraint language to Z3, confined to this module.
//!
//! The `z3` crate keeps its context in thread-local storage, so every query
//! builds and solves its formulas on the calling thread and returns plain
//! data. Opaque shapes are an integer rank and an uninterpreted function
//! from positions to dimensions (section 3.4 of the Tensors Fitting
//! Perfectly paper); positivity of dimensions is added as an axiom for every
//! position a query mentions.

use std::collections::{BTreeSet, HashMap};

use z3::ast::{Bool, Int};
use z3::{FuncDecl, SatResult, Sort};

use crate::simple_solver::SimpleSolver;

use crate::term::{Formula, Term, VarId};

pub(crate) enum Answer {
    Sat(HashMap<Term, i64>),
    /// Indices into the tracked facts.
    Unsat(Vec<usize>),
    Unknown,
}

#[derive(Default)]
struct Translator {
    ints: HashMap<VarId, Int>,
    ranks: HashMap<VarId, Int>,
    dims: HashMap<VarId, FuncDecl>,
    bools: HashMap<VarId, Bool>,
    dim_atoms: BTreeSet<(VarId, Term)>,
}

impl Translator {
    fn term(&mut self, term: &Term) -> Int {
        crate::work::charge(1);
        match term {
            Term::Const(c) => Int::from_i64(*c),
            Term::Var(v) => self
                .ints
                .entry(*v)
                .or_insert_with(|| Int::new_const(format!("v{v}")))
                .clone(),
            Term::Rank(s) => self.rank(*s),
            Term::Dim(s, index) => {
                self.dim_atoms.insert((*s, (**index).clone()));
                let index = self.term(index);
                let f = self.dims.entry(*s).or_insert_with(|| {
                    FuncDecl::new(format!("d{s}"), &[&Sort::int()], &Sort::int())
                });
                f.apply(&[&index])
                    .as_int()
                    .expect("dimension functions return integers")
            }
            Term::Add(parts) => {
                let parts: Vec<Int> = parts.iter().map(|p| self.term(p)).collect();
                Int::add(&parts.iter().collect::<Vec<_>>())
            }
            Term::Mul(a, b) => self.term(a) * self.term(b),
            Term::Div(a, b) => {
                let (a, b) = (self.term(a), self.term(b));
                floor_div(&a, &b)
            }
            Term::Rem(a, b) => {
                let (a, b) = (self.term(a), self.term(b));
                let q = floor_div(&a, &b);
                a - b * q
            }
            Term::Ite(c, a, b) => {
                let c = self.formula(c);
                c.ite(&self.term(a), &self.term(b))
            }
        }
    }

    fn rank(&mut self, s: VarId) -> Int {
        self.ranks
            .entry(s)
            .or_insert_with(|| Int::new_const(format!("r{s}")))
            .clone()
    }

    fn formula(&mut self, formula: &Formula) -> Bool {
        match formula {
            Formula::Const(v) => Bool::from_bool(*v),
            Formula::Var(v) => self
                .bools
                .entry(*v)
                .or_insert_with(|| Bool::new_const(format!("b{v}")))
                .clone(),
            Formula::IsZero(t) => self.term(t).eq(Int::from_i64(0)),
            Formula::NonPositive(t) => self.term(t).le(Int::from_i64(0)),
            Formula::Not(inner) => self.formula(inner).not(),
            Formula::And(parts) => {
                let parts: Vec<Bool> = parts.iter().map(|p| self.formula(p)).collect();
                Bool::and(&parts.iter().collect::<Vec<_>>())
            }
            Formula::Or(parts) => {
                let parts: Vec<Bool> = parts.iter().map(|p| self.formula(p)).collect();
                Bool::or(&parts.iter().collect::<Vec<_>>())
            }
        }
    }

    /// Ranks are non-negative; a dimension inside its rank is positive.
    fn axioms(&mut self) -> Vec<Bool> {
        let mut axioms = Vec::new();
        let shapes: BTreeSet<VarId> = self.ranks.keys().chain(self.dims.keys()).copied().collect();
        for s in shapes {
            axioms.push(self.rank(s).ge(Int::from_i64(0)));
        }
        let atoms: Vec<(VarId, Term)> = self.dim_atoms.iter().cloned().collect();
        for (s, index) in atoms {
            let position = self.term(&index);
            let rank = self.rank(s);
            let value = self.term(&Term::dim(s, index));
            let inside = position.ge(Int::from_i64(0)) & position.lt(&rank);
            axioms.push(inside.implies(value.ge(Int::from_i64(1))));
        }
        axioms
    }
}

/// Floor division: Z3's `div` is Euclidean, which differs for negative divisors.
fn floor_div(a: &Int, b: &Int) -> Int {
    let zero = Int::from_i64(0);
    b.gt(&zero).ite(&(a / b), &(-a.clone() / -b.clone()))
}

/// Checks `tracked` facts (reported in a core) together with `untracked`
/// ones; on `Sat`, the values of `wanted` terms in one model.
/// The highest degree of a product of unknowns Z3 is asked about. Z3
/// 4.8.12's non-linear arithmetic does not always heed an interrupt: a
/// remainder of a product of 26 dimensions runs for minutes past its time
/// limit, one of 16 is answered in milliseconds. Real shapes multiply a
/// handful (`b * c * h * w`).
const MAX_DEGREE: u32 = 16;

pub(crate) fn solve(
    tracked: &[&Formula],
    untracked: &[Formula],
    wanted: &[Term],
    timeout_ms: u32,
) -> Answer {
    let degree = tracked
        .iter()
        .copied()
        .chain(untracked)
        .map(Formula::degree)
        .chain(wanted.iter().map(Term::degree))
        .max()
        .unwrap_or(0);
    if degree > MAX_DEGREE {
        return Answer::Unknown;
    }
    crate::contexts::in_scope_context(timeout_ms, |solver| {
        solve_in_context(solver, tracked, untracked, wanted)
    })
}

fn solve_in_context(
    solver: &SimpleSolver,
    tracked: &[&Formula],
    untracked: &[Formula],
    wanted: &[Term],
) -> Answer {
    // No `timeout` parameter: the caller's watchdog interrupts the query
    // (Z3 4.8.12's own timer can deadlock; see crate::watchdog).
    let solver = solver.scope();
    let mut translator = Translator::default();
    let mut literals = Vec::with_capacity(tracked.len());
    for (i, formula) in tracked.iter().enumerate() {
        let literal = Bool::new_const(format!("track{i}"));
        let encoded = translator.formula(formula);
        solver.assert(&literal.implies(&encoded));
        literals.push(literal);
    }
    for formula in untracked {
        let encoded = translator.formula(formula);
        solver.assert(&encoded);
    }
    let wanted_ints: Vec<Int> = wanted.iter().map(|t| translator.term(t)).collect();
    for axiom in translator.axioms() {
        solver.assert(&axiom);
    }
    match solver.check_assumptions(&literals) {
        SatResult::Sat => {
            let Some(values) = solver.model_values(&wanted_ints) else {
                return Answer::Unknown;
            };
            let values = wanted
                .iter()
                .zip(values)
                .filter_map(|(term, value)| Some((term.clone(), value?)))
                .collect();
            Answer::Sat(values)
        }
        SatResult::Unsat => Answer::Unsat(solver.core_indices(&literals)),
        SatResult::Unknown => Answer::Unknown,
    }
}
