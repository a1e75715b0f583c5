//! Time budgets above the single query: the check of a file, and of one of
//! its entry points.
//!
//! Each query has its time limit, but a file whose queries all run to it
//! would take that limit times the number of its queries. So a file's
//! check and each entry point's analysis run under a cap, a deadline that
//! every query inside them respects: a query gets the least of its own
//! limit and the time its caps have left, and none once a cap has passed
//! (its answer is `Unknown`, which callers never report). What a cap cut
//! short is counted ([`cuts`]) so that the analysis can say which part was
//! left unchecked.
//!
//! The caps are thread-local because the analysis of a file runs on one
//! thread (the incremental database computes a callee on the thread that
//! asks for it).

use std::cell::Cell;
use std::time::{Duration, Instant};

thread_local! {
    /// The deadline of the file being checked on this thread.
    static FILE: Cell<Option<Instant>> = const { Cell::new(None) };
    /// The deadline of the entry point being analysed on this thread.
    static ENTRY: Cell<Option<Instant>> = const { Cell::new(None) };
    /// Queries refused or cut short by a cap on this thread, ever.
    static CUTS: Cell<u64> = const { Cell::new(0) };
}

/// Puts a cap back when dropped, also when the work unwinds (a cancelled
/// analysis must not leave its deadline to the next one on the thread).
struct Restore {
    cap: &'static std::thread::LocalKey<Cell<Option<Instant>>>,
    previous: Option<Instant>,
}

impl Drop for Restore {
    fn drop(&mut self) {
        self.cap.with(|c| c.set(self.previous));
    }
}

fn under<R>(
    cap: &'static std::thread::LocalKey<Cell<Option<Instant>>>,
    deadline: Instant,
    work: impl FnOnce() -> R,
) -> R {
    let previous = cap.with(|c| c.replace(Some(deadline)));
    let _restore = Restore { cap, previous };
    work()
}

/// Runs the check of a file within `budget`. Inside the check of another
/// file (an import checked for its importer), the earlier deadline stays.
pub fn for_file<R>(budget: Duration, work: impl FnOnce() -> R) -> R {
    let mut deadline = Instant::now() + budget;
    if let Some(outer) = FILE.with(Cell::get) {
        deadline = deadline.min(outer);
    }
    under(&FILE, deadline, work)
}

/// Runs the analysis of one entry point within `budget` (and within its
/// file's). A callee analysed on the way gets a budget of its own: what it
/// finds is kept for every caller, so it must not be cut by one caller's.
pub fn for_entry<R>(budget: Duration, work: impl FnOnce() -> R) -> R {
    under(&ENTRY, Instant::now() + budget, work)
}

/// The earliest deadline among the caps.
fn deadline() -> Option<Instant> {
    [FILE.with(Cell::get), ENTRY.with(Cell::get)]
        .into_iter()
        .flatten()
        .min()
}

/// Whether a cap on this thread has passed, for work that is left out
/// when it has: that counts as a cut (see [`cuts`]).
pub fn is_up() -> bool {
    let up = deadline().is_some_and(|d| Instant::now() >= d);
    if up {
        note_cut();
    }
    up
}

/// Whether the file's cap has passed.
pub fn file_is_up() -> bool {
    FILE.with(Cell::get).is_some_and(|d| Instant::now() >= d)
}

/// How long a query may run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum QueryTime {
    /// This many milliseconds; `capped` when a cap, not the query's own
    /// limit, sets them.
    Run { timeout_ms: u32, capped: bool },
    /// A cap has passed: the query does not run.
    CapPassed,
    /// The question asking has no time left: the query does not run.
    QuestionOver,
}

/// The time limit of a query: `timeout_ms`, or less when a cap or
/// `question` (the deadline of the question asking, if any) comes sooner.
pub(crate) fn query_time(timeout_ms: u32, question: Option<Instant>) -> QueryTime {
    let now = Instant::now();
    let millis_to = |d: Instant| {
        u32::try_from(d.saturating_duration_since(now).as_millis()).unwrap_or(u32::MAX)
    };
    let cap = deadline().map(millis_to);
    let question = question.map(millis_to);
    if cap == Some(0) {
        return QueryTime::CapPassed;
    }
    if question == Some(0) {
        return QueryTime::QuestionOver;
    }
    let cap = cap.unwrap_or(u32::MAX);
    let question = question.unwrap_or(u32::MAX);
    QueryTime::Run {
        timeout_ms: timeout_ms.min(cap).min(question),
        capped: cap < timeout_ms.min(question),
    }
}

/// Notes a query refused or cut short by a cap.
pub(crate) fn note_cut() {
    CUTS.with(|c| c.set(c.get() + 1));
}

/// How many queries caps have refused or cut short on this thread so far:
/// compare before and after a piece of work.
pub fn cuts() -> u64 {
    CUTS.with(Cell::get)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(timeout_ms: u32) -> QueryTime {
        query_time(timeout_ms, None)
    }

    fn limit(time: QueryTime) -> u32 {
        match time {
            QueryTime::Run { timeout_ms, .. } => timeout_ms,
            other => panic!("no time: {other:?}"),
        }
    }

    #[test]
    fn a_query_gets_what_its_caps_have_left() {
        assert_eq!(
            run(2_000),
            QueryTime::Run {
                timeout_ms: 2_000,
                capped: false
            }
        );
        for_file(Duration::from_secs(3_600), || {
            for_entry(Duration::from_millis(500), || {
                let time = run(2_000);
                assert!(limit(time) <= 500);
                assert!(matches!(time, QueryTime::Run { capped: true, .. }));
                // A longer budget inside does not extend the file's.
                for_file(Duration::from_secs(7_200), || {
                    assert!(limit(run(2_000)) <= 500)
                });
                // A question's own deadline that comes first is no cap.
                let soon = Instant::now() + Duration::from_millis(100);
                let time = query_time(2_000, Some(soon));
                assert!(limit(time) <= 100);
                assert!(matches!(time, QueryTime::Run { capped: false, .. }));
                assert_eq!(
                    query_time(2_000, Some(Instant::now())),
                    QueryTime::QuestionOver
                );
            });
            assert_eq!(limit(run(2_000)), 2_000);
        });
    }

    #[test]
    fn past_a_cap_no_query_runs_and_the_cap_is_lifted_after() {
        for_entry(Duration::ZERO, || {
            let before = cuts();
            assert!(is_up());
            assert_eq!(cuts(), before + 1, "work left out is counted");
            assert_eq!(run(2_000), QueryTime::CapPassed);
        });
        assert!(!is_up());
        let cut_short = std::panic::catch_unwind(|| {
            for_file(Duration::ZERO, || panic!("cancelled"));
        });
        assert!(cut_short.is_err());
        assert!(!is_up(), "an unwinding check leaves no cap behind");
    }

    #[test]
    fn a_callee_entry_has_its_own_budget() {
        for_entry(Duration::ZERO, || {
            for_entry(Duration::from_secs(3_600), || assert!(!is_up()));
            assert!(is_up());
        });
    }
}
