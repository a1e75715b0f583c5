//! Translation of the constraint language to Z3, confined to this module.
//!
//! Every query builds and solves its formulas on the calling thread, in its
//! unit of work's context (`crate::contexts`), and returns plain data.
//! Opaque shapes are an integer rank and an uninterpreted function from
//! positions to dimensions (section 3.4 of the Tensors Fitting Perfectly
//! paper); positivity of dimensions is added as an axiom for every position
//! a query mentions.

use std::collections::{BTreeSet, HashMap};

use crate::known_answers::Query;
use crate::simple_solver::{Satisfiable, SimpleSolver};
use crate::term::{Formula, Term, VarId};
use crate::z3_context::{Ast, Z3Context};

#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Answer {
    Sat(HashMap<Term, i64>),
    /// Indices into the tracked facts.
    Unsat(Vec<usize>),
    Unknown,
}

/// Builds a query's terms in `context`, each variable, rank and dimension
/// function once. `None` wherever Z3 refused to build a term.
struct Translator<'c> {
    context: &'c Z3Context,
    ints: HashMap<VarId, Ast>,
    ranks: HashMap<VarId, Ast>,
    dims: HashMap<VarId, z3_sys::Z3_func_decl>,
    bools: HashMap<VarId, Ast>,
    dim_atoms: BTreeSet<(VarId, Term)>,
}

impl<'c> Translator<'c> {
    fn new(context: &'c Z3Context) -> Translator<'c> {
        Translator {
            context,
            ints: HashMap::new(),
            ranks: HashMap::new(),
            dims: HashMap::new(),
            bools: HashMap::new(),
            dim_atoms: BTreeSet::new(),
        }
    }

    fn term(&mut self, term: &Term) -> Option<Ast> {
        crate::work::charge(1);
        let z3 = self.context;
        match term {
            Term::Const(c) => z3.int(*c),
            Term::Var(v) => cached(&mut self.ints, *v, || z3.int_const(&format!("v{v}"))),
            Term::Rank(s) => self.rank(*s),
            Term::Dim(s, index) => {
                self.dim_atoms.insert((*s, (**index).clone()));
                let index = self.term(index)?;
                let function = cached(&mut self.dims, *s, || z3.int_function(&format!("d{s}")))?;
                z3.apply(function, index)
            }
            Term::Add(parts) => {
                let parts = parts
                    .iter()
                    .map(|p| self.term(p))
                    .collect::<Option<Vec<Ast>>>()?;
                z3.add(&parts)
            }
            Term::Mul(a, b) => {
                let (a, b) = (self.term(a)?, self.term(b)?);
                z3.mul(a, b)
            }
            Term::Div(a, b) => {
                let (a, b) = (self.term(a)?, self.term(b)?);
                self.floor_div(a, b)
            }
            Term::Rem(a, b) => {
                let (a, b) = (self.term(a)?, self.term(b)?);
                let q = self.floor_div(a, b)?;
                z3.sub(a, z3.mul(b, q)?)
            }
            Term::Ite(c, a, b) => {
                let c = self.formula(c)?;
                let (a, b) = (self.term(a)?, self.term(b)?);
                z3.ite(c, a, b)
            }
        }
    }

    /// Floor division: Z3's `div` is Euclidean, which differs for negative
    /// divisors.
    fn floor_div(&self, a: Ast, b: Ast) -> Option<Ast> {
        let z3 = self.context;
        let positive = z3.gt(b, z3.int(0)?)?;
        let quotient = z3.euclidean_div(a, b)?;
        let flipped = z3.euclidean_div(z3.neg(a)?, z3.neg(b)?)?;
        z3.ite(positive, quotient, flipped)
    }

    fn rank(&mut self, s: VarId) -> Option<Ast> {
        let z3 = self.context;
        cached(&mut self.ranks, s, || z3.int_const(&format!("r{s}")))
    }

    fn formula(&mut self, formula: &Formula) -> Option<Ast> {
        let z3 = self.context;
        match formula {
            Formula::Const(v) => z3.boolean(*v),
            Formula::Var(v) => cached(&mut self.bools, *v, || z3.bool_const(&format!("b{v}"))),
            Formula::IsZero(t) => z3.eq(self.term(t)?, z3.int(0)?),
            Formula::NonPositive(t) => z3.le(self.term(t)?, z3.int(0)?),
            Formula::Not(inner) => z3.not(self.formula(inner)?),
            Formula::And(parts) => {
                let parts = parts
                    .iter()
                    .map(|p| self.formula(p))
                    .collect::<Option<Vec<Ast>>>()?;
                z3.and(&parts)
            }
            Formula::Or(parts) => {
                let parts = parts
                    .iter()
                    .map(|p| self.formula(p))
                    .collect::<Option<Vec<Ast>>>()?;
                z3.or(&parts)
            }
        }
    }

    /// Ranks are non-negative; a dimension inside its rank is positive.
    fn axioms(&mut self) -> Option<Vec<Ast>> {
        let z3 = self.context;
        let mut axioms = Vec::new();
        let shapes: BTreeSet<VarId> = self.ranks.keys().chain(self.dims.keys()).copied().collect();
        for s in shapes {
            axioms.push(z3.ge(self.rank(s)?, z3.int(0)?)?);
        }
        let atoms: Vec<(VarId, Term)> = self.dim_atoms.iter().cloned().collect();
        for (s, index) in atoms {
            let position = self.term(&index)?;
            let rank = self.rank(s)?;
            let value = self.term(&Term::dim(s, index))?;
            let inside = z3.and(&[z3.ge(position, z3.int(0)?)?, z3.lt(position, rank)?])?;
            axioms.push(z3.implies(inside, z3.ge(value, z3.int(1)?)?)?);
        }
        Some(axioms)
    }
}

/// `map[key]`, made with `make` the first time.
fn cached<T: Copy>(
    map: &mut HashMap<VarId, T>,
    key: VarId,
    make: impl FnOnce() -> Option<T>,
) -> Option<T> {
    if let Some(value) = map.get(&key) {
        return Some(*value);
    }
    let value = make()?;
    map.insert(key, value);
    Some(value)
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
    // Kept only where answers are (the language server).
    let kept = crate::known_answers::keeping().then(|| Query {
        tracked: tracked.iter().map(|f| (*f).clone()).collect(),
        untracked: untracked.to_vec(),
        wanted: wanted.to_vec(),
    });
    crate::contexts::in_scope_context(timeout_ms, kept, |context, solver| {
        solve_in_context(context, solver, tracked, untracked, wanted).unwrap_or(Answer::Unknown)
    })
}

/// Puts a query answered from an earlier unit of work to this unit's
/// context, so that it has seen what that unit's had (see
/// `crate::known_answers`).
pub(crate) fn replay(context: &Z3Context, solver: &SimpleSolver, query: &Query) -> Answer {
    let tracked: Vec<&Formula> = query.tracked.iter().collect();
    solve_in_context(context, solver, &tracked, &query.untracked, &query.wanted)
        .unwrap_or(Answer::Unknown)
}

fn solve_in_context(
    context: &Z3Context,
    solver: &SimpleSolver,
    tracked: &[&Formula],
    untracked: &[Formula],
    wanted: &[Term],
) -> Option<Answer> {
    // No `timeout` parameter: the caller's watchdog interrupts the query
    // (Z3 4.8.12's own timer can deadlock; see crate::watchdog).
    let solver = solver.scope();
    let mut translator = Translator::new(context);
    let mut literals = Vec::with_capacity(tracked.len());
    for (i, formula) in tracked.iter().enumerate() {
        let literal = context.bool_const(&format!("track{i}"))?;
        let encoded = translator.formula(formula)?;
        solver.assert(context.implies(literal, encoded)?);
        literals.push(literal);
    }
    for formula in untracked {
        solver.assert(translator.formula(formula)?);
    }
    let wanted_asts = wanted
        .iter()
        .map(|t| translator.term(t))
        .collect::<Option<Vec<Ast>>>()?;
    for axiom in translator.axioms()? {
        solver.assert(axiom);
    }
    Some(match solver.check_assumptions(&literals) {
        Satisfiable::Yes => {
            let values = solver.model_values(context, &wanted_asts)?;
            let values = wanted
                .iter()
                .zip(values)
                .filter_map(|(term, value)| Some((term.clone(), value?)))
                .collect();
            Answer::Sat(values)
        }
        Satisfiable::No => Answer::Unsat(solver.core_indices(&literals)),
        Satisfiable::Unknown => Answer::Unknown,
    })
}
