//! A model looked for atom by atom, for a question whose answer shows no
//! value (whether facts can hold, or whether a term can differ from one
//! model's value), when no uniform valuation fits (`crate::candidates`).
//!
//! Each such question Z3 answered cost a context (about 13 ms and 16 MiB
//! the first time in a process) for fact sets as plain as "the rank is 3 or
//! 4, the channels (`x.shape[-3]`) are 3, and `i < 1` or `0 <= j < i`":
//! torchvision's ResNet asked six. Three steps decide most of them:
//!
//! - every rank takes one of [`RANKS`] in turn (those that the facts
//!   about ranks alone refute are skipped), so that a dimension indexed
//!   from the end sits at a known position and equalities about it are
//!   substituted (`crate::eliminate`);
//! - starting from every atom at the value nearest 1 inside the bounds
//!   the facts imply (`crate::bounds`), the first fact that fails is
//!   repaired by the one change of one of its atoms (to a small value, one
//!   the fact names, or a neighbour of its own) that makes the most facts
//!   hold (on large sets: the first that makes the failing fact and more
//!   facts hold), for at most [`MAX_MOVES`] changes;
//! - when no change helps, one change is pinned and the bounds implied
//!   again move every other atom (`Search::with_one_atom_pinned`).
//!
//! What is found is a model: every fact holds under it, every dimension is
//! positive (substituted ones too), and every dimension sits at a position
//! the search knows (two dimensions at computed positions could meet at
//! one with two values). Finding none says nothing: Z3 is asked then.

use std::collections::{HashMap, HashSet};

use rustc_hash::FxHashMap;

use crate::bounds::{Bounds, Interval};
use crate::evaluate::{self, Assignment};
use crate::term::{Formula, Term, VarId};
use crate::tried_values::RANKS;

/// The most facts for which every change is weighed against every fact
/// (U-Net's larger sets, up to 95 facts with floor divisions, made that
/// search a tenth slower than Z3). In larger sets a change is weighed only
/// when it makes the failing fact hold, and the first that makes more
/// facts hold is made: enough where the starting values (inside the
/// bounds) already satisfy all but one fact, such as "some dimension
/// differs from the first model's".
const MAX_FACTS: usize = 32;

/// How many changes one search makes at most.
const MAX_MOVES: usize = 24;

/// The distances from an atom's value to the neighbours it is changed to.
const NEIGHBOURS: &[i64] = &[1, -1, 2, 4, 8, 16];

/// How many single changes [`Search::with_one_atom_pinned`] tries.
const MAX_PINS: usize = 16;

/// The values an atom is changed to, besides those its fact names.
const STEPS: &[i64] = &[0, 1, 2, 3, 4, 8, 64];

/// A model of `formulas` and the values of `wanted` in it, the boolean
/// variables in `stated` keeping their truths (branches taken).
pub(crate) fn find_model(
    formulas: &[&Formula],
    wanted: &[Term],
    stated: &HashMap<VarId, bool>,
) -> Option<Vec<i64>> {
    let mut has_rank = false;
    let mut note_rank = |atom: &Term| has_rank |= matches!(atom, Term::Rank(_));
    formulas.iter().for_each(|f| f.visit_atoms(&mut note_rank));
    wanted.iter().for_each(|t| t.visit_atoms(&mut note_rank));
    let ranks: Vec<Option<i64>> = match has_rank {
        true => {
            let about_ranks = facts_about_ranks_alone(formulas);
            RANKS
                .iter()
                .copied()
                .filter(|&rank| ranks_may_be(&about_ranks, rank))
                .map(Some)
                .collect()
        }
        false => vec![None],
    };
    ranks
        .into_iter()
        .find_map(|rank| with_ranks(formulas, wanted, stated, rank))
}

fn reads_a_rank(formula: &Formula) -> bool {
    let mut found = false;
    formula.visit_atoms(&mut |atom| found |= matches!(atom, Term::Rank(_)));
    found
}

/// The facts that read ranks and nothing else (`rank(x) == 3 or rank(x)
/// == 4`): every rank at a value is refuted by them alone, before a
/// search (an elimination and the bounds of every fact) is spent on it.
fn facts_about_ranks_alone<'f>(formulas: &[&'f Formula]) -> Vec<&'f Formula> {
    formulas
        .iter()
        .copied()
        .filter(|f| {
            let mut only_ranks = true;
            f.visit_atoms(&mut |atom| only_ranks &= matches!(atom, Term::Rank(_)));
            only_ranks && !f.mentions_bool_vars()
        })
        .collect()
}

/// Whether every rank at `rank` satisfies the facts about ranks alone.
fn ranks_may_be(about_ranks: &[&Formula], rank: i64) -> bool {
    struct EveryRank(i64);
    impl Assignment for EveryRank {
        fn atom(&self, atom: &Term) -> Option<i64> {
            matches!(atom, Term::Rank(_)).then_some(self.0)
        }
        fn truth(&self, _: VarId) -> Option<bool> {
            None
        }
    }
    about_ranks
        .iter()
        .all(|f| evaluate::formula(f, &EveryRank(rank)) != Some(false))
}

/// The search with every rank at `rank`.
fn with_ranks(
    formulas: &[&Formula],
    wanted: &[Term],
    stated: &HashMap<VarId, bool>,
    rank: Option<i64>,
) -> Option<Vec<i64>> {
    let mut fix = |atom: &Term| match (atom, rank) {
        (Term::Rank(_), Some(rank)) => Some(Term::int(rank)),
        _ => None,
    };
    // Only facts about a rank change (the others would be rebuilt as
    // they are).
    let fixed = formulas.iter().enumerate().map(|(i, f)| match rank {
        Some(_) if reads_a_rank(f) => (i as u32, f.rewrite(&mut fix)),
        _ => (i as u32, (*f).clone()),
    });
    let mut eliminated = crate::eliminate::eliminate(fixed).ok()?;
    let mut facts: Vec<Formula> = std::mem::take(&mut eliminated.remaining)
        .into_iter()
        .map(|derived| derived.formula)
        .collect();
    // A substituted dimension is positive through what it equals.
    let substituted: Vec<Term> = eliminated
        .eliminated_atoms()
        .filter(|atom| matches!(atom, Term::Dim(..)))
        .cloned()
        .collect();
    for dim in substituted {
        let value = eliminated.resolve(&dim).0;
        facts.push(Formula::ge(&value, &Term::int(1)));
    }
    let wanted: Vec<Term> = wanted
        .iter()
        .map(|t| eliminated.resolve(&t.rewrite(&mut fix)).0)
        .collect();
    let formulas: Vec<&Formula> = facts.iter().collect();
    let bounds = Bounds::implied_by(&formulas).ok()?;
    let start = Search::new(&facts, &wanted, stated, &bounds)?;
    let weighing = match facts.len() > MAX_FACTS {
        true => Weighing::FirstFix,
        false => Weighing::Best,
    };
    let mut search = start.clone();
    let found = match search.run(&facts, weighing) {
        Some(()) => search,
        None => start.with_one_atom_pinned(&facts, &wanted, &bounds)?,
    };
    wanted
        .iter()
        .map(|t| evaluate::term(t, &found.values))
        .collect()
}

/// The atoms' values being searched.
#[derive(Clone, Default)]
struct Values {
    ints: FxHashMap<Term, i64>,
    bools: HashMap<VarId, bool>,
}

impl Assignment for Values {
    fn atom(&self, atom: &Term) -> Option<i64> {
        self.ints.get(atom).copied()
    }

    fn truth(&self, var: VarId) -> Option<bool> {
        self.bools.get(&var).copied()
    }
}

#[derive(Clone)]
struct Search<'a> {
    values: Values,
    stated: &'a HashMap<VarId, bool>,
}

/// Which change of a failing fact's atoms is made.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Weighing {
    /// The one that makes the most facts hold.
    Best,
    /// The first that makes the failing fact hold and more facts hold.
    FirstFix,
}

/// One change the search may make.
#[derive(Clone)]
enum Move {
    Int(Term, i64),
    Bool(VarId, bool),
}

impl<'a> Search<'a> {
    /// Every atom at the value nearest 1 that its bounds allow (each
    /// boolean at its stated truth, else false); `None` where an atom is
    /// no variable or dimension at a known position.
    fn new(
        facts: &[Formula],
        wanted: &[Term],
        stated: &'a HashMap<VarId, bool>,
        bounds: &Bounds,
    ) -> Option<Self> {
        let mut values = Values::default();
        let mut placed = true;
        let mut note = |atom: &Term| match atom {
            Term::Var(_) => {
                values
                    .ints
                    .insert(atom.clone(), nearest_one(bounds.of(atom)));
            }
            Term::Dim(_, index) if index.as_const().is_some() => {
                let start = nearest_one(bounds.of(atom)).max(1);
                values.ints.insert(atom.clone(), start);
            }
            _ => placed = false,
        };
        facts.iter().for_each(|f| f.visit_atoms(&mut note));
        wanted.iter().for_each(|t| t.visit_atoms(&mut note));
        if !placed {
            return None;
        }
        let mut note_bool = |var: VarId| {
            values
                .bools
                .insert(var, stated.get(&var).copied().unwrap_or(false));
        };
        facts.iter().for_each(|f| f.visit_bool_vars(&mut note_bool));
        wanted
            .iter()
            .for_each(|t| t.visit_bool_vars(&mut note_bool));
        Some(Search { values, stated })
    }

    /// Repairs the first failing fact until all hold (`Some`) or no
    /// change helps (`None`).
    fn run(&mut self, facts: &[Formula], weighing: Weighing) -> Option<()> {
        let mut holding = self.holding(facts);
        for _ in 0..MAX_MOVES {
            let failing = facts.iter().find(|f| !evaluate::holds(f, &self.values));
            let Some(failing) = failing else {
                return Some(());
            };
            let mut best: Option<(usize, Move)> = None;
            for candidate in self.moves(failing) {
                let undo = self.apply(&candidate);
                let weighed = match weighing {
                    Weighing::Best => true,
                    Weighing::FirstFix => evaluate::holds(failing, &self.values),
                };
                let now = match weighed {
                    true => self.holding(facts),
                    false => 0,
                };
                self.apply(&undo);
                if now > best.as_ref().map_or(holding, |(n, _)| *n) {
                    best = Some((now, candidate));
                    if weighing == Weighing::FirstFix {
                        break;
                    }
                }
            }
            let (now, chosen) = best?;
            self.apply(&chosen);
            holding = now;
        }
        facts
            .iter()
            .all(|f| evaluate::holds(f, &self.values))
            .then_some(())
    }

    /// Where changing one atom breaks facts that other atoms could mend
    /// (a dimension made 2 where another must be at least twice it): a
    /// change of one of the first failing fact's atoms is pinned, the
    /// bounds are implied again, and every atom starts anew inside them.
    /// The changes that make the failing fact hold as they stand are
    /// tried first; then the others (`x` changed so that `(x / 4 - 3) *
    /// (y / 4 - 3) == 256` lets `y` follow). At most [`MAX_PINS`] changes
    /// inside the atoms' bounds are tried.
    fn with_one_atom_pinned(
        &self,
        facts: &[Formula],
        wanted: &[Term],
        bounds: &Bounds,
    ) -> Option<Search<'a>> {
        let failing = facts.iter().find(|f| !evaluate::holds(f, &self.values))?;
        let formulas: Vec<&Formula> = facts.iter().collect();
        let inside: Vec<(Term, i64)> = self
            .moves(failing)
            .into_iter()
            .filter_map(|change| match change {
                Move::Int(atom, value) => Some((atom, value)),
                Move::Bool(..) => None,
            })
            .filter(|(atom, value)| {
                let range = bounds.of(atom);
                range.lo.is_none_or(|lo| *value >= lo) && range.hi.is_none_or(|hi| *value <= hi)
            })
            .collect();
        let (fixing, others): (Vec<_>, Vec<_>) = inside.into_iter().partition(|(atom, value)| {
            let mut changed = self.clone();
            changed.apply(&Move::Int(atom.clone(), *value));
            evaluate::holds(failing, &changed.values)
        });
        for (atom, value) in fixing.into_iter().chain(others).take(MAX_PINS) {
            let pin = Formula::eq(&atom, &Term::int(value));
            let mut pinned = formulas.clone();
            pinned.push(&pin);
            let Ok(bounds) = Bounds::implied_by(&pinned) else {
                continue;
            };
            let anew = Search::new(facts, wanted, self.stated, &bounds)?;
            if facts.iter().all(|f| evaluate::holds(f, &anew.values)) {
                return Some(anew);
            }
        }
        None
    }

    fn holding(&self, facts: &[Formula]) -> usize {
        facts
            .iter()
            .filter(|f| evaluate::holds(f, &self.values))
            .count()
    }

    /// Makes the change; what undoes it.
    fn apply(&mut self, change: &Move) -> Move {
        match change {
            Move::Int(atom, value) => {
                let old = self.values.ints.insert(atom.clone(), *value).unwrap_or(1);
                Move::Int(atom.clone(), old)
            }
            Move::Bool(var, value) => {
                let old = self.values.bools.insert(*var, *value).unwrap_or(false);
                Move::Bool(*var, old)
            }
        }
    }

    /// The changes of the fact's atoms, in the order they occur: to each of
    /// [`STEPS`], of the constants the fact names and their neighbours, and
    /// of the atom's own neighbours (a dimension stays positive); a boolean
    /// not stated is flipped.
    fn moves(&self, fact: &Formula) -> Vec<Move> {
        let mut constants = Vec::new();
        constants_in_formula(fact, &mut constants);
        let mut tried: Vec<i64> = STEPS.to_vec();
        for c in constants {
            for value in [
                c,
                c.saturating_add(1),
                c.saturating_sub(1),
                c.saturating_neg(),
            ] {
                if !tried.contains(&value) {
                    tried.push(value);
                }
            }
        }
        let mut atoms = Vec::new();
        let mut seen = HashSet::new();
        fact.visit_atoms(&mut |atom| {
            if seen.insert(atom.clone()) {
                atoms.push(atom.clone());
            }
        });
        let mut moves = Vec::new();
        for atom in atoms {
            let current = self.values.ints.get(&atom).copied();
            let positive = matches!(atom, Term::Dim(..));
            // Its own neighbours last: a dimension at its lower bound
            // (140) that must differ from a model's, also after floor
            // divisions by powers of two (`140 / 2 != 70`).
            let neighbours = current
                .into_iter()
                .flat_map(|v| NEIGHBOURS.iter().map(move |d| v.saturating_add(*d)))
                .filter(|v| !tried.contains(v));
            for value in tried.iter().copied().chain(neighbours) {
                if Some(value) != current && (!positive || value >= 1) {
                    moves.push(Move::Int(atom.clone(), value));
                }
            }
        }
        let mut bools = Vec::new();
        fact.visit_bool_vars(&mut |var| {
            if !self.stated.contains_key(&var) && !bools.contains(&var) {
                bools.push(var);
            }
        });
        for var in bools {
            let current = self.values.bools.get(&var).copied().unwrap_or(false);
            moves.push(Move::Bool(var, !current));
        }
        moves
    }
}

/// The value of `range` nearest 1: where a search starts an atom.
fn nearest_one(range: Interval) -> i64 {
    match (range.lo, range.hi) {
        (Some(lo), _) if lo > 1 => lo,
        (_, Some(hi)) if hi < 1 => hi,
        _ => 1,
    }
}

fn constants_in_formula(formula: &Formula, found: &mut Vec<i64>) {
    match formula {
        Formula::Const(_) | Formula::Var(_) => {}
        Formula::IsZero(t) | Formula::NonPositive(t) => constants_in_term(t, found),
        Formula::Not(inner) => constants_in_formula(inner, found),
        Formula::And(parts) | Formula::Or(parts) => {
            parts.iter().for_each(|p| constants_in_formula(p, found))
        }
    }
}

fn constants_in_term(term: &Term, found: &mut Vec<i64>) {
    match term {
        Term::Const(c) => found.push(*c),
        Term::Var(_) | Term::Rank(_) => {}
        Term::Dim(_, index) => constants_in_term(index, found),
        Term::Add(parts) => parts.iter().for_each(|p| constants_in_term(p, found)),
        Term::Mul(a, b) | Term::Div(a, b) | Term::Rem(a, b) => {
            constants_in_term(a, found);
            constants_in_term(b, found);
        }
        Term::Ite(c, a, b) => {
            constants_in_formula(c, found);
            constants_in_term(a, found);
            constants_in_term(b, found);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(facts: &[Formula], wanted: &[Term]) -> Option<Vec<i64>> {
        let facts: Vec<&Formula> = facts.iter().collect();
        find_model(&facts, wanted, &HashMap::new())
    }

    #[test]
    fn a_dimension_from_the_end_is_placed_once_the_rank_is() {
        // rank 3 or 4, x.shape[-3] == 3, and i < 1 or 0 <= j < i.
        let rank = Term::rank(7);
        let channels = Term::dim(7, Term::sub(&rank, &Term::int(3)));
        let (i, j) = (Term::var(1), Term::var(2));
        let facts = [
            Formula::or([
                Formula::eq(&rank, &Term::int(3)),
                Formula::eq(&rank, &Term::int(4)),
            ]),
            Formula::eq(&channels, &Term::int(3)),
            Formula::or([
                Formula::lt(&i, &Term::int(1)),
                Formula::and([Formula::ge(&j, &Term::int(0)), Formula::lt(&j, &i)]),
            ]),
        ];
        let values = model(&facts, &[rank.clone(), channels.clone(), i.clone()]).unwrap();
        assert_eq!(values[0], 3);
        assert_eq!(values[1], 3);
        assert!(values[2] < 1);
    }

    #[test]
    fn ranks_the_rank_facts_refute_are_not_searched() {
        let (rank, x) = (Term::rank(7), Term::var(1));
        let image = Formula::or([
            Formula::eq(&rank, &Term::int(3)),
            Formula::eq(&rank, &Term::int(4)),
        ]);
        let mixed = Formula::ge(&Term::add(&rank, &x), &Term::int(9));
        let about = facts_about_ranks_alone(&[&image, &mixed]);
        assert_eq!(about.len(), 1);
        let tried: Vec<i64> = RANKS
            .iter()
            .copied()
            .filter(|r| ranks_may_be(&about, *r))
            .collect();
        assert_eq!(tried, vec![3, 4]);
    }

    #[test]
    fn a_contradiction_has_no_model() {
        let x = Term::var(1);
        let facts = [
            Formula::ge(&x, &Term::int(5)),
            Formula::le(&x, &Term::int(2)),
        ];
        assert_eq!(model(&facts, &[]), None);
    }

    #[test]
    fn a_substituted_dimension_stays_positive() {
        // d = n - 5 with n <= 5: no model with d positive.
        let n = Term::var(1);
        let d = Term::dim(2, Term::int(0));
        let facts = [
            Formula::eq(&d, &Term::sub(&n, &Term::int(5))),
            Formula::le(&n, &Term::int(5)),
            Formula::ge(&Term::rank(2), &Term::int(1)),
        ];
        assert_eq!(model(&facts, &[]), None);
    }

    #[test]
    fn atoms_start_inside_their_bounds() {
        // 75 facts (past MAX_FACTS) that hold with every atom at its lower
        // bound: x / 4 >= 35 and y >= 2 * x / 4 - 8.
        let (x, y) = (Term::var(1), Term::var(2));
        let quarter = Term::div(&x, &Term::int(4));
        let mut facts = vec![
            Formula::ge(&quarter, &Term::int(35)),
            Formula::ge(
                &y,
                &Term::sub(&Term::mul(&Term::int(2), &quarter), &Term::int(8)),
            ),
        ];
        for k in 0..73 {
            facts.push(Formula::ge(&x, &Term::int(k)));
        }
        assert_eq!(model(&facts, &[x, y]), Some(vec![140, 62]));
    }

    #[test]
    fn a_change_that_breaks_other_facts_moves_them_along() {
        // d must differ from 1, and e and f must be at least twice d: d = 2
        // alone breaks both; pinned, the bounds move e and f to 4.
        let d = Term::dim(1, Term::int(0));
        let e = Term::dim(1, Term::int(1));
        let f = Term::dim(1, Term::int(2));
        let twice_d = Term::mul(&Term::int(2), &d);
        let facts = [
            Formula::eq(&Term::rank(1), &Term::int(3)),
            Formula::ge(&e, &twice_d),
            Formula::ge(&f, &twice_d),
            Formula::ge(&e, &Term::int(2)),
            Formula::ge(&f, &Term::int(2)),
            Formula::ne(&d, &Term::int(1)),
        ];
        let values = model(&facts, &[d, e, f]).unwrap();
        assert_ne!(values[0], 1);
        assert!(values[1] >= 2 * values[0] && values[2] >= 2 * values[0]);
    }

    #[test]
    fn a_value_at_its_bound_can_be_moved_past_a_floor_division() {
        // x >= 140 and x / 2 != 70: 141 still halves to 70; 142 does not.
        let x = Term::var(1);
        let facts = [
            Formula::ge(&x, &Term::int(140)),
            Formula::ne(&Term::div(&x, &Term::int(2)), &Term::int(70)),
        ];
        let values = model(&facts, std::slice::from_ref(&x)).unwrap();
        assert!(values[0] >= 142, "{values:?}");
    }

    #[test]
    fn a_dimension_at_a_computed_position_is_left_to_z3() {
        let at = Term::var(1);
        let facts = [Formula::eq(&Term::dim(2, at.clone()), &Term::int(9))];
        assert_eq!(model(&facts, &[]), None);
    }
}
