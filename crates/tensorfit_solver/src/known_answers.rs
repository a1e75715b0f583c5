//! Z3's answers kept from one unit of work to the next.
//!
//! In the editor, every key re-analyses the function it lands in, and that
//! analysis asks Z3 what the one before it asked whenever the key added no
//! fact (a comment, a statement not yet parsed, a deletion back to an
//! earlier text): on U-Net's `forward`, one 95-fact query, half of a key's
//! time. Those answers are kept here.
//!
//! A unit's answers depend on the order of its queries: Z3 numbers terms
//! in the order its context first sees them, and its search follows those
//! numbers (see `crate::contexts`). So an answer is kept under the whole
//! sequence of queries its unit made up to it (a *trail*), never under the
//! query alone: a unit that asks what an earlier unit asked, in the same
//! order, gets exactly the answers Z3 gave that unit. Those queries are not
//! shown to Z3 then; if the unit later asks something new, they are replayed
//! first, so its context has seen what the earlier unit's had
//! (`crate::contexts` does this). Answers Z3 did not give (a time-out, an
//! interrupt) are never kept, and a unit that had one keeps nothing more.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;

use crate::term::{Formula, Term};
use crate::z3_backend::Answer;

static KEEPING: AtomicBool = AtomicBool::new(false);

static RECALLED: AtomicU64 = AtomicU64::new(0);

/// How many answers have been recalled in this process (tests show that
/// what they compare was recalled).
pub fn recalled() -> u64 {
    RECALLED.load(Ordering::Relaxed)
}

/// From now on, Z3's answers are kept and recalled. The language server
/// turns this on; a command-line check, which analyses each function once,
/// would only pay for copying its queries.
pub fn keep_answers() {
    KEEPING.store(true, Ordering::Relaxed);
}

pub(crate) fn keeping() -> bool {
    KEEPING.load(Ordering::Relaxed)
}

/// One question to Z3, as `crate::z3_backend::solve` takes it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Query {
    pub tracked: Vec<Formula>,
    pub untracked: Vec<Formula>,
    pub wanted: Vec<Term>,
}

/// The queries a unit has made so far (an identifier given out here; the
/// unit that made none is [`Trail::START`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Trail(u64);

impl Trail {
    pub const START: Trail = Trail(0);
}

/// How many answers a generation holds; at most two generations are kept.
/// A key needs the last few dozen; U-Net's queries print as 5 KB of text
/// on average (19 KB at most), so this keeps a few MiB.
const GENERATION: usize = 128;

struct Known {
    /// Answers found or used since the older generation was set aside.
    current: Generation,
    older: Generation,
    next_trail: u64,
}

/// Answers by query, then by the trail they were asked after (a query is
/// looked up without copying it; few trails share one query).
#[derive(Default)]
struct Generation {
    answers: HashMap<Query, Vec<KeptAnswer>>,
    len: usize,
}

struct KeptAnswer {
    after: Trail,
    next: Trail,
    answer: Answer,
}

static KNOWN: Mutex<Option<Known>> = Mutex::new(None);

fn with_known<R>(f: impl FnOnce(&mut Known) -> R) -> R {
    // Every update is one step: the maps stay consistent under a panic.
    let mut known = KNOWN.lock().unwrap_or_else(|e| e.into_inner());
    let known = known.get_or_insert_with(|| Known {
        current: Generation::default(),
        older: Generation::default(),
        next_trail: 1,
    });
    f(known)
}

/// Z3's answer to `query` asked after `trail`, and the trail after it, if a
/// unit has asked the same before.
pub(crate) fn recall(trail: Trail, query: &Query) -> Option<(Trail, Answer)> {
    with_known(|known| {
        let found = match known.current.find(trail, query) {
            Some(kept) => (kept.next, kept.answer.clone()),
            None => {
                // Kept in the older generation: used again, so it moves up.
                let kept = known.older.take(trail, query)?;
                let found = (kept.next, kept.answer.clone());
                known.insert(query.clone(), kept);
                found
            }
        };
        RECALLED.fetch_add(1, Ordering::Relaxed);
        Some(found)
    })
}

/// Keeps Z3's `answer` to `query` asked after `trail`; the trail after it.
/// `None` for an answer Z3 did not give (unknown), which is not kept.
pub(crate) fn remember(trail: Trail, query: Query, answer: &Answer) -> Option<Trail> {
    if matches!(answer, Answer::Unknown) {
        return None;
    }
    with_known(|known| {
        let next = Trail(known.next_trail);
        known.next_trail += 1;
        let kept = KeptAnswer {
            after: trail,
            next,
            answer: answer.clone(),
        };
        known.insert(query, kept);
        Some(next)
    })
}

/// Drops every kept answer: benchmarks of a cold check start from none,
/// and tests compare with a solver that has none.
pub fn forget_all() {
    with_known(|known| {
        known.current = Generation::default();
        known.older = Generation::default();
    });
}

impl Known {
    fn insert(&mut self, query: Query, kept: KeptAnswer) {
        if self.current.len >= GENERATION {
            self.older = std::mem::take(&mut self.current);
        }
        self.current.len += 1;
        self.current.answers.entry(query).or_default().push(kept);
    }
}

impl Generation {
    fn find(&self, after: Trail, query: &Query) -> Option<&KeptAnswer> {
        self.answers.get(query)?.iter().find(|k| k.after == after)
    }

    fn take(&mut self, after: Trail, query: &Query) -> Option<KeptAnswer> {
        let kept = self.answers.get_mut(query)?;
        let at = kept.iter().position(|k| k.after == after)?;
        self.len -= 1;
        Some(kept.swap_remove(at))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    /// The kept answers are the process's: a test that forgets them must
    /// not run beside one that expects to recall.
    static KEPT: Mutex<()> = Mutex::new(());

    fn alone() -> std::sync::MutexGuard<'static, ()> {
        keep_answers();
        KEPT.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn query(bound: i64) -> Query {
        // x <= bound
        let x = Term::Var(900_000 + bound as u32);
        Query {
            tracked: vec![Formula::NonPositive(Term::Add(vec![
                x,
                Term::Const(-bound),
            ]))],
            untracked: Vec::new(),
            wanted: Vec::new(),
        }
    }

    #[test]
    fn an_answer_is_recalled_only_after_the_same_trail() {
        let _alone = alone();
        let first = remember(Trail::START, query(1), &Answer::Unsat(vec![0])).unwrap();
        let second = remember(first, query(2), &Answer::Sat(HashMap::new())).unwrap();
        // The same two queries in the same order: both recalled, and the
        // trail leads to the same place.
        let (again, answer) = recall(Trail::START, &query(1)).unwrap();
        assert_eq!(again, first);
        assert!(matches!(answer, Answer::Unsat(ref core) if core == &[0]));
        assert_eq!(recall(again, &query(2)).unwrap().0, second);
        // The second query asked first: Z3 might answer it otherwise.
        assert!(recall(Trail::START, &query(2)).is_none());
        assert!(recall(second, &query(1)).is_none());
    }

    /// `x * y = 12` and a bound on one of them: non-linear, so Z3 answers
    /// it, and the model it finds for `x` depends on the search.
    fn product_query(bound_on: u32, at_least: i64) -> Query {
        let (x, y) = (Term::Var(800_001), Term::Var(800_002));
        let product = Term::Mul(Arc::new(x.clone()), Arc::new(y));
        let bounded = Term::Var(800_000 + bound_on);
        Query {
            tracked: vec![
                Formula::IsZero(Term::Add(vec![product, Term::Const(-12)])),
                // at_least - v <= 0
                Formula::NonPositive(Term::Add(vec![
                    Term::Mul(Arc::new(Term::Const(-1)), Arc::new(bounded)),
                    Term::Const(at_least),
                ])),
            ],
            untracked: Vec::new(),
            wanted: vec![x],
        }
    }

    /// The answers of one unit of work asking `queries` in turn, and how
    /// many of them it put to Z3.
    fn unit(queries: &[Query]) -> (Vec<Answer>, usize) {
        let interrupts = Arc::new(crate::contexts::Interrupts::default());
        crate::contexts::in_own_context(&interrupts, || {
            let before = crate::contexts::Z3_RUNS.with(|runs| runs.get());
            let answers = queries
                .iter()
                .map(|q| {
                    let tracked: Vec<&Formula> = q.tracked.iter().collect();
                    crate::z3_backend::solve(&tracked, &q.untracked, &q.wanted, 10_000)
                })
                .collect();
            let runs = crate::contexts::Z3_RUNS.with(|runs| runs.get()) - before;
            (answers, runs)
        })
        .unwrap()
    }

    #[test]
    fn a_unit_asking_something_new_replays_what_it_recalled() {
        let _alone = alone();
        let (q1, q2, q3) = (
            product_query(1, 2),
            product_query(2, 3),
            product_query(1, 3),
        );
        let (first, runs) = unit(&[q1.clone(), q2.clone()]);
        assert_eq!(runs, 2);
        assert!(first.iter().all(|a| matches!(a, Answer::Sat(_))));
        // The same queries again: nothing reaches Z3.
        let (again, runs) = unit(&[q1.clone(), q2.clone()]);
        assert_eq!((again, runs), (first.clone(), 0));
        // A new second query: the first is recalled, then put to Z3 before
        // the new one, so the context has seen what it would have.
        let (recalled, runs) = unit(&[q1.clone(), q3.clone()]);
        assert_eq!(runs, 2);
        assert_eq!(recalled[0], first[0]);
        // And the answers are those of a unit that recalled nothing.
        forget_all();
        assert_eq!(unit(&[q1, q3]), (recalled, 2));
    }

    #[test]
    fn unknown_answers_are_not_kept() {
        let _alone = alone();
        assert!(remember(Trail::START, query(3), &Answer::Unknown).is_none());
        assert!(recall(Trail::START, &query(3)).is_none());
    }
}
