//! A bound on the solver's own work, besides Z3's.
//!
//! Before Z3 sees a query, elimination substitutes equalities into the
//! other facts and the candidate search evaluates them. Terms that share
//! sub-terms (a dimension that depends on the one before it, twice, at each
//! of N layers) can grow exponentially under substitution, which no Z3
//! time limit covers. Every rewritten node is charged here; a query that
//! runs past [`NODES_PER_QUERY`] nodes or its time limit answers unknown
//! (what the analysis does with any undecided query: it says nothing).

use std::cell::Cell;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::time::{Duration, Instant};

/// Nodes one query may rewrite: real queries rewrite a few thousand.
pub const NODES_PER_QUERY: u64 = 1_000_000;

/// How often (in nodes) the clock is read.
const CLOCK_EVERY: u64 = 16_384;

#[derive(Clone, Copy)]
struct Meter {
    left: u64,
    deadline: Instant,
    until_clock: u64,
}

thread_local! {
    static METER: Cell<Option<Meter>> = const { Cell::new(None) };
}

/// The unwinding payload of a query out of work (never a panic: no hook
/// runs, nothing is printed).
struct OutOfWork;

/// Charges `nodes` to the running query, if any; unwinds to [`bounded`]
/// when its allowance or its time is spent.
pub(crate) fn charge(nodes: u64) {
    METER.with(|meter| {
        let Some(mut m) = meter.get() else { return };
        m.left = m.left.saturating_sub(nodes);
        m.until_clock = m.until_clock.saturating_sub(nodes);
        let out_of_time = m.until_clock == 0 && {
            m.until_clock = CLOCK_EVERY;
            Instant::now() >= m.deadline
        };
        meter.set(Some(m));
        if m.left == 0 || out_of_time {
            resume_unwind(Box::new(OutOfWork));
        }
    });
}

/// The deadline of the running question or query, if any.
pub(crate) fn deadline() -> Option<Instant> {
    METER.with(Cell::get).map(|m| m.deadline)
}

/// Runs one query's work with an allowance of [`NODES_PER_QUERY`] nodes
/// and `timeout_ms`; `None` when either ran out.
pub(crate) fn bounded<R>(timeout_ms: u32, work: impl FnOnce() -> R) -> Option<R> {
    with_allowance(NODES_PER_QUERY, timeout_ms, work)
}

/// Runs `work` with an allowance of `nodes` rewritten nodes and
/// `timeout_ms`; `None` when either ran out. Inside another allowance
/// (a question made of many queries), the inner one is also bounded by
/// what the outer has left, and what it spends is the outer's too.
pub fn with_allowance<R>(nodes: u64, timeout_ms: u32, work: impl FnOnce() -> R) -> Option<R> {
    let outer = METER.with(Cell::get);
    let mut meter = Meter {
        left: nodes,
        deadline: Instant::now() + Duration::from_millis(u64::from(timeout_ms)),
        until_clock: CLOCK_EVERY,
    };
    if let Some(outer) = outer {
        meter.left = meter.left.min(outer.left);
        meter.deadline = meter.deadline.min(outer.deadline);
    }
    let given = meter.left;
    METER.with(|m| m.set(Some(meter)));
    let outcome = catch_unwind(AssertUnwindSafe(work));
    let left = METER.with(|m| m.get()).map_or(0, |m| m.left);
    METER.with(|m| {
        m.set(outer.map(|mut outer| {
            outer.left = outer.left.saturating_sub(given - left.min(given));
            outer
        }))
    });
    match outcome {
        Ok(result) => Some(result),
        Err(payload) if payload.is::<OutOfWork>() => None,
        Err(payload) => resume_unwind(payload),
    }
}

/// The share of the allowance one search that only saves work may spend
/// (see [`searching`]): a fortieth of a question's 2,000,000 nodes. With
/// it U-Net's sets of up to 96 facts are still decided without Z3 (no Z3
/// query in its check), and torchvision's detection heads, with sets of
/// 250-375 facts, report what they reported before the searches.
pub(crate) const SEARCH_NODES: u64 = 50_000;

/// Runs a search that only saves work (a model or a refutation found
/// without Z3) on at most `nodes` of the running query's or question's
/// allowance: `None` when it spent them, and the caller goes on without
/// its answer. On sets of hundreds of facts (torchvision's detection
/// heads) an unbounded search spent a question's whole allowance, which
/// Z3 would have answered within it.
pub(crate) fn searching<R>(nodes: u64, search: impl FnOnce() -> Option<R>) -> Option<R> {
    with_allowance(nodes, u32::MAX, search).flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn work_past_the_allowance_is_cut_off() {
        let spent = bounded(60_000, || {
            for _ in 0..NODES_PER_QUERY {
                charge(1);
            }
        });
        assert!(spent.is_none());
        // Outside a query nothing is counted.
        charge(NODES_PER_QUERY * 2);
        assert_eq!(bounded(60_000, || 7), Some(7));
    }

    #[test]
    fn queries_inside_a_question_share_its_allowance() {
        let answers = with_allowance(1_000, 60_000, || {
            let first = with_allowance(800, 60_000, || charge(600));
            // Only 400 are left to the question, whatever the query asks.
            let second = with_allowance(800, 60_000, || charge(600));
            (first, second)
        });
        assert_eq!(answers, Some((Some(()), None)));
        // The question itself is out of work once its queries spent it.
        assert_eq!(
            with_allowance(1_000, 60_000, || {
                let _ = with_allowance(2_000, 60_000, || charge(1_500));
                charge(1);
            }),
            None
        );
    }

    #[test]
    fn a_search_spends_only_its_share() {
        let answers = with_allowance(1_000, 60_000, || {
            let gave_up = searching(300, || {
                charge(400);
                Some(1)
            });
            // The query goes on with what the search left it.
            let found = searching(300, || {
                charge(100);
                Some(2)
            });
            charge(500);
            (gave_up, found)
        });
        assert_eq!(answers, Some((None, Some(2))));
    }

    #[test]
    fn work_past_the_time_limit_is_cut_off() {
        let started = Instant::now();
        let spent = bounded(50, || loop {
            charge(1);
            if started.elapsed() > Duration::from_secs(5) {
                break;
            }
        });
        assert!(spent.is_none());
        assert!(started.elapsed() < Duration::from_secs(5));
    }
}
