//! Integer constraints over shapes, and their solving.
//!
//! The engine states facts in the small language of [`term`]; this crate
//! answers whether a set of facts can hold, which of them contradict each
//! other (a minimal core, for error messages), and what values they force
//! (for shapes, holes and messages). Equalities are eliminated first
//! ([`eliminate`]); Z3 sees only what remains, under a time limit. When Z3
//! cannot decide, the answer is `Unknown` and callers report nothing.

mod bounds;
mod candidates;
pub mod components;
mod contexts;
pub mod eliminate;
mod evaluate;
mod known_answers;
mod range;
mod repair;
mod simple_solver;
pub mod term;
pub mod time_cap;
mod tried_values;
mod watchdog;
mod work;
mod z3_backend;
mod z3_context;

use std::collections::BTreeSet;

pub use range::{value_range, ValueRange};
pub use term::{Formula, Term, VarId};

pub use contexts::{in_own_context, z3_held_bytes, Interrupted, Interrupts};
pub use known_answers::{
    forget_all as forget_known_answers, keep_answers, recalled as recalled_answers,
};
pub use work::with_allowance;

use candidates::Values;
use eliminate::Eliminated;
use time_cap::QueryTime;
use z3_backend::Answer;

/// A fact with the identifier callers use to find where it came from.
#[derive(Clone, Debug)]
pub struct Fact {
    pub id: u32,
    pub formula: Formula,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Limits {
    /// Per solver query.
    pub timeout_ms: u32,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits { timeout_ms: 2000 }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    Sat,
    /// The identifiers of a minimal set of facts that contradict each other.
    Unsat(Vec<u32>),
    Unknown,
}

/// What the facts say about a term's value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Forced {
    /// Only this value fits.
    Value(i64),
    /// Several values fit; one of them.
    Varies(i64),
    /// The facts are contradictory, or the solver could not decide.
    Unknown,
}

/// What an answer that the facts cannot hold must carry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Refutation {
    /// A core of facts that a message names, minimised: from elimination
    /// or Z3.
    Core,
    /// Only that there is no model (a yes/no question): the bounds the
    /// facts imply may prove it (`crate::bounds`), with every remaining
    /// fact as the core.
    Any,
}

fn raw_check(
    facts: &[&Fact],
    wanted: (&[Term], Values),
    refutation: Refutation,
    limits: Limits,
) -> (Outcome, Vec<(Term, i64)>) {
    raw_check_eliminated(|| eliminate_facts(facts), wanted, refutation, limits)
}

fn eliminate_facts(facts: &[&Fact]) -> Result<Eliminated, eliminate::Deps> {
    eliminate::eliminate(facts.iter().map(|f| (f.id, f.formula.clone())))
}

/// [`raw_check`] of the facts that `eliminated` eliminates, within the
/// query's allowance like the rest of the query.
fn raw_check_eliminated(
    eliminated: impl FnOnce() -> Result<Eliminated, eliminate::Deps>,
    (wanted, values): (&[Term], Values),
    refutation: Refutation,
    limits: Limits,
) -> (Outcome, Vec<(Term, i64)>) {
    // Z3 gets no more time than the question asking and the caps allow.
    let (timeout_ms, capped) = match time_cap::query_time(limits.timeout_ms, work::deadline()) {
        QueryTime::Run { timeout_ms, capped } => (timeout_ms, capped),
        QueryTime::CapPassed => {
            time_cap::note_cut();
            return (Outcome::Unknown, Vec::new());
        }
        QueryTime::QuestionOver => return (Outcome::Unknown, Vec::new()),
    };
    let limits = Limits { timeout_ms };
    let answer = work::bounded(timeout_ms, || {
        unbounded_check(eliminated, (wanted, values), refutation, limits)
    })
    .unwrap_or((Outcome::Unknown, Vec::new()));
    if capped && answer.0 == Outcome::Unknown {
        time_cap::note_cut();
    }
    answer
}

fn unbounded_check(
    eliminated: impl FnOnce() -> Result<Eliminated, eliminate::Deps>,
    (wanted, values): (&[Term], Values),
    refutation: Refutation,
    limits: Limits,
) -> (Outcome, Vec<(Term, i64)>) {
    let mut eliminated = match eliminated() {
        Ok(eliminated) => eliminated,
        Err(core) => return (Outcome::Unsat(core.into_iter().collect()), Vec::new()),
    };
    let resolved: Vec<Term> = wanted.iter().map(|t| eliminated.resolve(t).0).collect();
    if eliminated.remaining.is_empty() && resolved.iter().all(|t| t.as_const().is_some()) {
        let values = wanted
            .iter()
            .cloned()
            .zip(resolved.iter().map(|t| t.as_const().unwrap_or(0)))
            .collect();
        return (Outcome::Sat, values);
    }
    let formulas: Vec<&Formula> = eliminated.remaining.iter().map(|d| &d.formula).collect();
    if refutation == Refutation::Any && refuted_by_bounds(&formulas) {
        let core: BTreeSet<u32> = eliminated
            .remaining
            .iter()
            .flat_map(|d| d.deps.iter().copied())
            .collect();
        return (Outcome::Unsat(core.into_iter().collect()), Vec::new());
    }
    if let Some(values) = candidates::find_model(&formulas, &resolved, values) {
        return (Outcome::Sat, wanted.iter().cloned().zip(values).collect());
    }
    match z3_backend::solve(&formulas, &[], &resolved, limits.timeout_ms) {
        Answer::Sat(values) => {
            let values = wanted
                .iter()
                .zip(&resolved)
                .filter_map(|(original, r)| {
                    let value = r.as_const().or_else(|| values.get(r).copied())?;
                    Some((original.clone(), value))
                })
                .collect();
            (Outcome::Sat, values)
        }
        Answer::Unsat(indices) => {
            let core: BTreeSet<u32> = indices
                .into_iter()
                .flat_map(|i| eliminated.remaining[i].deps.iter().copied())
                .collect();
            (Outcome::Unsat(core.into_iter().collect()), Vec::new())
        }
        Answer::Unknown => (Outcome::Unknown, Vec::new()),
    }
}

/// Whether `facts` can all hold; when not, a minimal contradicting subset.
pub fn check(facts: &[Fact], limits: Limits) -> Outcome {
    let all: Vec<&Fact> = facts.iter().collect();
    match raw_check(&all, (&[], Values::Any), Refutation::Core, limits).0 {
        Outcome::Unsat(core) => Outcome::Unsat(minimize(facts, core, limits)),
        other => other,
    }
}

/// Deletion-based minimisation: drop each member whose removal keeps the
/// contradiction. The latest facts (largest ids) are tried first, so that
/// the core keeps the earliest explanation.
fn minimize(facts: &[Fact], core: Vec<u32>, limits: Limits) -> Vec<u32> {
    let mut core: Vec<u32> = core;
    core.sort_unstable();
    let mut i = core.len();
    while i > 0 {
        i -= 1;
        if core.len() <= 1 {
            break;
        }
        let candidate: Vec<u32> = core.iter().copied().filter(|id| *id != core[i]).collect();
        let subset: Vec<&Fact> = facts.iter().filter(|f| candidate.contains(&f.id)).collect();
        if let Outcome::Unsat(smaller) =
            raw_check(&subset, (&[], Values::Any), Refutation::Core, limits).0
        {
            core = smaller;
            core.sort_unstable();
            i = i.min(core.len());
        }
    }
    core
}

/// One model's values for `terms`, if the facts can hold.
pub fn model(facts: &[Fact], terms: &[Term], limits: Limits) -> Option<Vec<i64>> {
    model_for(facts, (terms, Values::Shown), limits)
}

fn model_for(facts: &[Fact], wanted: (&[Term], Values), limits: Limits) -> Option<Vec<i64>> {
    let all: Vec<&Fact> = facts.iter().collect();
    let count = wanted.0.len();
    match raw_check(&all, wanted, Refutation::Any, limits) {
        (Outcome::Sat, values) if values.len() == count => {
            Some(values.into_iter().map(|(_, v)| v).collect())
        }
        _ => None,
    }
}

/// The lexicographically least values of `terms` (each at least `floor`)
/// in a model of the facts: the same answer whatever model the solver
/// happens to find first, which depends on the queries its context saw
/// before (an example shown to the user must not change with an unrelated
/// edit). Each term in turn, the earlier ones fixed to their least values,
/// is first tried at the lower bound the facts imply (`crate::bounds`);
/// usually a model has it there, and no search is needed. Otherwise it is
/// lowered by bisection below the value of a model. Past
/// `MAX_LOWERING_QUERIES` the last model is the answer.
pub fn least_model(facts: &[Fact], terms: &[Term], floor: i64, limits: Limits) -> Option<Vec<i64>> {
    const MAX_LOWERING_QUERIES: usize = 48;
    // Any model's values will do: the least ones are the answer.
    let any_model = |asked: &[Fact]| model_for(asked, (terms, Values::Any), limits);
    let mut asked: Vec<Fact> = facts.to_vec();
    let mut best: Option<Vec<i64>> = None;
    let mut queries = 0;
    for i in 0..terms.len() {
        let formulas: Vec<&Formula> = asked.iter().map(|f| &f.formula).collect();
        let implied = work::searching(work::SEARCH_NODES, || {
            Some(bounds::Bounds::implied_by(&formulas).map(|b| b.of(&terms[i]).lo))
        });
        let bound = match implied {
            Some(Ok(lo)) => lo.map_or(floor, |lo| lo.max(floor)),
            Some(Err(bounds::Contradiction)) => return None,
            None => floor,
        };
        asked.push(fixed(&terms[i], bound));
        if let Some(values) = any_model(&asked) {
            best = Some(values);
            continue;
        }
        asked.pop();
        let mut current = match best.take() {
            Some(values) if values[i] > bound => values,
            _ => any_model(&asked)?,
        };
        // Invariant: a model with terms[i] == high exists; none below low.
        let (mut low, mut high) = (bound + 1, current[i]);
        while low < high && queries < MAX_LOWERING_QUERIES {
            queries += 1;
            let middle = low + (high - low) / 2;
            asked.push(Fact {
                id: u32::MAX,
                formula: Formula::le(&terms[i], &Term::int(middle)),
            });
            let lowered = any_model(&asked);
            asked.pop();
            match lowered {
                Some(values) => {
                    high = values[i];
                    current = values;
                }
                None => low = middle + 1,
            }
        }
        if low < high {
            return Some(current); // out of queries: the last model
        }
        asked.push(fixed(&terms[i], high));
        best = Some(current);
    }
    match best {
        Some(values) => Some(values),
        None => any_model(&asked),
    }
}

/// The fact that `term` equals `value`.
fn fixed(term: &Term, value: i64) -> Fact {
    Fact {
        id: u32::MAX,
        formula: Formula::eq(term, &Term::int(value)),
    }
}

/// Whether the facts force `term` to one value.
pub fn forced(facts: &[Fact], term: &Term, limits: Limits) -> Forced {
    // Only whether the term can differ from this model's value is shown.
    let wanted = (std::slice::from_ref(term), Values::Any);
    let Some(values) = model_for(facts, wanted, limits) else {
        return Forced::Unknown;
    };
    let value = values[0];
    if implied_points(facts, std::slice::from_ref(term))[0].is_some() {
        return Forced::Value(value);
    }
    let mut others: Vec<Fact> = facts.to_vec();
    others.push(Fact {
        id: u32::MAX,
        formula: Formula::ne(term, &Term::int(value)),
    });
    match check_unminimized(&others, limits) {
        Outcome::Unsat(_) => Forced::Value(value),
        Outcome::Sat => Forced::Varies(value),
        Outcome::Unknown => Forced::Unknown,
    }
}

/// [`forced`] for several terms over the same facts, in a few queries
/// rather than two per term: after a first model, each query asks for a
/// model where some term not yet seen to vary differs from its first
/// value; the terms that differ vary, and when no such model exists the
/// rest are forced. (Most shown dimensions vary, and one model usually
/// shows most of them doing so.)
pub fn forced_many(facts: &[Fact], terms: &[Term], limits: Limits) -> Vec<Forced> {
    let all: Vec<&Fact> = facts.iter().collect();
    // The facts eliminated by the first query, kept for the others: each
    // adds one fact, which is substituted into a copy (eliminating all the
    // facts again was most of a U-Net check's time).
    let mut kept: Option<Eliminated> = None;
    let keeping = || {
        let eliminated = eliminate_facts(&all)?;
        kept = Some(eliminated.clone());
        Ok(eliminated)
    };
    let first = match raw_check_eliminated(keeping, (terms, Values::Any), Refutation::Any, limits) {
        (Outcome::Sat, values) if values.len() == terms.len() => {
            values.into_iter().map(|(_, v)| v).collect::<Vec<i64>>()
        }
        _ => return vec![Forced::Unknown; terms.len()],
    };
    let mut result: Vec<Forced> = first.iter().map(|v| Forced::Varies(*v)).collect();
    // Terms whose bounds leave one value need no query.
    let points = implied_points(facts, terms);
    for (i, point) in points.iter().enumerate() {
        if point.is_some() {
            result[i] = Forced::Value(first[i]);
        }
    }
    let mut open: Vec<usize> = (0..terms.len()).filter(|i| points[*i].is_none()).collect();
    while !open.is_empty() {
        let differs = Formula::or(
            open.iter()
                .map(|i| Formula::ne(&terms[*i], &Term::int(first[*i])))
                .collect::<Vec<_>>(),
        );
        let extra = Fact {
            id: u32::MAX,
            formula: differs,
        };
        let mut asked = all.clone();
        asked.push(&extra);
        let wanted: Vec<Term> = open.iter().map(|i| terms[*i].clone()).collect();
        let eliminated = || {
            let extended = kept
                .as_ref()
                .and_then(|kept| kept.with_last(extra.id, &extra.formula));
            extended.unwrap_or_else(|| eliminate_facts(&asked))
        };
        match raw_check_eliminated(eliminated, (&wanted, Values::Any), Refutation::Any, limits) {
            (Outcome::Sat, values) if values.len() == wanted.len() => {
                let before = open.len();
                let still: Vec<usize> = open
                    .iter()
                    .zip(&values)
                    .filter(|(i, (_, v))| *v == first[**i])
                    .map(|(i, _)| *i)
                    .collect();
                if still.len() == before {
                    // A model without its values: give up on the rest.
                    for i in &open {
                        result[*i] = Forced::Unknown;
                    }
                    break;
                }
                open = still;
            }
            (Outcome::Unsat(_), _) => {
                for i in &open {
                    result[*i] = Forced::Value(first[*i]);
                }
                break;
            }
            _ => {
                for i in &open {
                    result[*i] = Forced::Unknown;
                }
                break;
            }
        }
    }
    result
}

/// For each term, the one value the facts' bounds leave it, if they leave
/// one (`crate::bounds`: sound, so a model's value is that value). Only
/// for facts known to have a model.
fn implied_points(facts: &[Fact], terms: &[Term]) -> Vec<Option<i64>> {
    let formulas: Vec<&Formula> = facts.iter().map(|f| &f.formula).collect();
    let points = work::searching(work::SEARCH_NODES, || {
        let bounds = bounds::Bounds::implied_by(&formulas).ok()?;
        Some(terms.iter().map(|t| bounds.of(t).as_point()).collect())
    });
    points.unwrap_or_else(|| vec![None; terms.len()])
}

/// Whether the bounds the facts imply leave some atom no value: a proof
/// that they have no model (see [`Refutation::Any`]).
fn refuted_by_bounds(formulas: &[&Formula]) -> bool {
    work::searching(work::SEARCH_NODES, || {
        bounds::Bounds::implied_by(formulas).is_err().then_some(())
    })
    .is_some()
}

/// Like [`check`], without minimising the core: for yes/no questions.
pub fn check_unminimized(facts: &[Fact], limits: Limits) -> Outcome {
    let all: Vec<&Fact> = facts.iter().collect();
    raw_check(&all, (&[], Values::Any), Refutation::Any, limits).0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fact(id: u32, formula: Formula) -> Fact {
        Fact { id, formula }
    }

    #[test]
    fn cores_are_minimal_and_reach_through_the_solver() {
        let x = Term::var(1);
        let y = Term::var(2);
        // x*y is non-linear: it survives elimination and reaches Z3.
        let facts = vec![
            fact(0, Formula::ge(&x, &Term::int(1))),
            fact(1, Formula::eq(&Term::mul(&x, &y), &Term::int(7))),
            fact(2, Formula::eq(&y, &Term::int(2))),
            fact(3, Formula::ge(&Term::var(3), &Term::int(0))),
        ];
        assert_eq!(check(&facts, Limits::default()), Outcome::Unsat(vec![1, 2]));
    }

    /// A rank of 3 or 4 (an image or a batch of them) with its channels
    /// fixed and a condition on two sizes: that the facts can hold, and
    /// that the rank is not forced, are decided before Z3 (a context for
    /// it costs more than a model file's whole check).
    #[test]
    fn a_rank_of_three_or_four_is_decided_without_z3() {
        let rank = Term::rank(7);
        let channels = Term::dim(7, Term::sub(&rank, &Term::int(3)));
        let height = Term::dim(7, Term::sub(&rank, &Term::int(2)));
        let (i, j, stride) = (Term::var(1), Term::var(2), Term::var(3));
        let facts = vec![
            fact(
                0,
                Formula::or([
                    Formula::eq(&rank, &Term::int(3)),
                    Formula::eq(&rank, &Term::int(4)),
                ]),
            ),
            fact(1, Formula::eq(&channels, &Term::int(3))),
            fact(
                2,
                Formula::or([
                    Formula::lt(&i, &Term::int(1)),
                    Formula::and([Formula::ge(&j, &Term::int(0)), Formula::lt(&j, &i)]),
                ]),
            ),
            fact(3, Formula::ge(&stride, &Term::int(1))),
            fact(
                4,
                Formula::ge(
                    &Term::div(&Term::sub(&height, &Term::int(1)), &stride),
                    &Term::int(0),
                ),
            ),
        ];
        let before = contexts::Z3_RUNS.with(|runs| runs.get());
        assert!(matches!(
            forced(&facts, &rank, Limits::default()),
            Forced::Varies(_)
        ));
        assert_eq!(check(&facts, Limits::default()), Outcome::Sat);
        assert_eq!(contexts::Z3_RUNS.with(|runs| runs.get()), before);
        // That the channels cannot differ from 3 takes a proof: Z3's.
        assert_eq!(
            forced(&facts, &channels, Limits::default()),
            Forced::Value(3)
        );
    }

    #[test]
    fn unknown_ranks_reason_through_dimension_functions() {
        // conv1 wants x.shape[-3] == 2, conv2 wants x.shape[-3] == 4.
        let channel = Term::dim(9, Term::sub(&Term::rank(9), &Term::int(3)));
        let facts = vec![
            fact(0, Formula::ge(&Term::rank(9), &Term::int(3))),
            fact(1, Formula::eq(&channel, &Term::int(2))),
            fact(2, Formula::eq(&channel, &Term::int(4))),
        ];
        assert_eq!(check(&facts, Limits::default()), Outcome::Unsat(vec![1, 2]));
    }

    #[test]
    fn forced_values_and_ranges() {
        let hole = Term::var(1);
        let facts = vec![fact(
            0,
            Formula::eq(&Term::mul(&hole, &Term::int(64)), &Term::int(20480)),
        )];
        assert_eq!(forced(&facts, &hole, Limits::default()), Forced::Value(320));
        let free = Term::var(2);
        let facts = vec![fact(0, Formula::ge(&free, &Term::int(1)))];
        assert!(matches!(
            forced(&facts, &free, Limits::default()),
            Forced::Varies(_)
        ));
    }

    #[test]
    fn least_models_are_lexicographically_least() {
        let (a, b) = (Term::var(1), Term::var(2));
        // a * b == 12 (non-linear: Z3 picks a model), a >= 3, b >= 2.
        let facts = vec![
            fact(0, Formula::eq(&Term::mul(&a, &b), &Term::int(12))),
            fact(1, Formula::ge(&a, &Term::int(3))),
            fact(2, Formula::ge(&b, &Term::int(2))),
        ];
        let terms = [a.clone(), b.clone()];
        assert_eq!(
            least_model(&facts, &terms, 1, Limits::default()),
            Some(vec![3, 4])
        );
        // Listed the other way, the least is taken for b first.
        assert_eq!(
            least_model(&facts, &[b, a], 1, Limits::default()),
            Some(vec![2, 6])
        );
        let contradictory = vec![fact(0, Formula::ge(&Term::int(0), &Term::int(1)))];
        assert_eq!(
            least_model(&contradictory, &terms, 1, Limits::default()),
            None
        );
    }

    /// An example's dimensions behind pooling layers: the least values
    /// (188 for `(x / 4 + 1) / 4 >= 12`, then the least `y` whose quarter
    /// matches) come from the bounds the facts imply, each confirmed by a
    /// model, without Z3; which dimensions are forced likewise.
    #[test]
    fn least_models_and_forced_values_from_bounds_without_z3() {
        let (x, y, batch) = (Term::var(1), Term::var(2), Term::var(3));
        let pooled = |t: &Term| {
            let inner = Term::add(&Term::div(t, &Term::int(4)), &Term::int(1));
            Term::div(&inner, &Term::int(4))
        };
        let facts = vec![
            fact(0, Formula::ge(&x, &Term::int(1))),
            fact(1, Formula::ge(&y, &Term::int(1))),
            fact(2, Formula::ge(&batch, &Term::int(1))),
            fact(3, Formula::ge(&pooled(&x), &Term::int(12))),
            fact(4, Formula::eq(&pooled(&x), &pooled(&y))),
            fact(5, Formula::ge(&Term::div(&y, &Term::int(2)), &Term::int(7))),
        ];
        let before = contexts::Z3_RUNS.with(|runs| runs.get());
        let terms = [batch.clone(), x.clone(), y.clone()];
        assert_eq!(
            least_model(&facts, &terms, 1, Limits::default()),
            Some(vec![1, 188, 188])
        );
        let mut pinned = facts.clone();
        pinned.push(fact(6, Formula::eq(&x, &Term::int(188))));
        pinned.push(fact(7, Formula::le(&batch, &Term::int(1))));
        let forced = forced_many(&pinned, &[batch, x, pooled(&y)], Limits::default());
        assert_eq!(
            forced,
            vec![Forced::Value(1), Forced::Value(188), Forced::Value(12)]
        );
        assert_eq!(contexts::Z3_RUNS.with(|runs| runs.get()), before);
    }

    /// Whether a shown dimension can differ, where pooling fixed it:
    /// refuted by the bounds for a yes/no question; a message's core still
    /// comes from Z3.
    #[test]
    fn yes_no_questions_are_refuted_by_bounds() {
        let x = Term::var(1);
        let pooled = Term::div(&x, &Term::int(4));
        let facts = vec![
            fact(0, Formula::eq(&pooled, &Term::int(8))),
            fact(1, Formula::ge(&x, &Term::int(1))),
            fact(2, Formula::ne(&pooled, &Term::int(8))),
        ];
        let before = contexts::Z3_RUNS.with(|runs| runs.get());
        assert!(matches!(
            check_unminimized(&facts, Limits::default()),
            Outcome::Unsat(_)
        ));
        assert_eq!(
            forced(&facts[..2], &pooled, Limits::default()),
            Forced::Value(8)
        );
        assert_eq!(contexts::Z3_RUNS.with(|runs| runs.get()), before);
        assert_eq!(check(&facts, Limits::default()), Outcome::Unsat(vec![0, 2]));
    }

    #[test]
    fn forced_many_agrees_with_forced() {
        let (a, b, c, d) = (Term::var(1), Term::var(2), Term::var(3), Term::var(4));
        let facts = vec![
            fact(
                0,
                Formula::eq(&Term::mul(&a, &Term::int(64)), &Term::int(20480)),
            ),
            fact(1, Formula::ge(&b, &Term::int(1))),
            // c * c = 49 (non-linear, so Z3 decides it) and d = b + c.
            fact(2, Formula::eq(&Term::mul(&c, &c), &Term::int(49))),
            fact(3, Formula::ge(&c, &Term::int(0))),
            fact(4, Formula::eq(&d, &Term::add(&b, &c))),
        ];
        let terms = [
            a.clone(),
            b.clone(),
            c.clone(),
            d.clone(),
            Term::sub(&d, &b),
        ];
        let many = forced_many(&facts, &terms, Limits::default());
        for (term, got) in terms.iter().zip(&many) {
            let one = forced(&facts, term, Limits::default());
            match (one, got) {
                (Forced::Value(x), Forced::Value(y)) => assert_eq!(x, *y, "{term:?}"),
                (Forced::Varies(_), Forced::Varies(_)) => {}
                (one, got) => panic!("{term:?}: forced {one:?}, forced_many {got:?}"),
            }
        }
        assert_eq!(many[0], Forced::Value(320));
        assert_eq!(many[2], Forced::Value(7));
        assert_eq!(many[4], Forced::Value(7));
        let contradictory = vec![
            fact(0, Formula::eq(&a, &Term::int(1))),
            fact(1, Formula::eq(&a, &Term::int(2))),
        ];
        assert_eq!(
            forced_many(&contradictory, &[a], Limits::default()),
            vec![Forced::Unknown]
        );
    }

    #[test]
    fn queries_of_one_session_leave_nothing_behind() {
        // One unit of work's queries share a solver, each in a scope of its
        // own: a contradiction, a query cut short (out of work), and a
        // query with the same tracking names must not see each other. (A
        // scope taken back while a query unwinds is tested in z3_context.)
        let interrupts = std::sync::Arc::new(Interrupts::default());
        let (x, y) = (Term::var(1), Term::var(2));
        let product = Formula::eq(&Term::mul(&x, &y), &Term::int(12));
        let answers = in_own_context(&interrupts, || {
            // Products of unknowns: elimination leaves them to Z3.
            let square = |v: i64| Formula::eq(&Term::mul(&x, &x), &Term::int(v));
            let contradiction = vec![fact(0, product.clone()), fact(1, square(25))];
            let first = check(&contradiction, Limits::default());
            let cut = with_allowance(3, 2000, || {
                check(&[fact(0, product.clone())], Limits::default())
            });
            let fits = vec![
                fact(0, product.clone()),
                fact(1, square(9)),
                fact(2, Formula::ge(&x, &Term::int(0))),
            ];
            let second = check(&fits, Limits::default());
            let values = model(&fits, std::slice::from_ref(&y), Limits::default());
            (first, cut, second, values)
        })
        .expect("not interrupted");
        assert_eq!(answers.0, Outcome::Unsat(vec![0, 1]));
        assert!(matches!(answers.1, None | Some(Outcome::Unknown)));
        assert_eq!(answers.2, Outcome::Sat);
        assert_eq!(answers.3, Some(vec![4]));
    }

    #[test]
    fn dimensions_are_positive() {
        let d = Term::dim(4, Term::int(0));
        let facts = vec![
            fact(0, Formula::ge(&Term::rank(4), &Term::int(1))),
            fact(1, Formula::le(&d, &Term::int(0))),
        ];
        assert_eq!(check(&facts, Limits::default()), Outcome::Unsat(vec![0, 1]));
    }
}
