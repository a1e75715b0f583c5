//! Time limits for Z3 queries, enforced by interrupting them from a thread
//! of our own.
//!
//! Z3's `timeout` parameter starts and stops a timer thread for every
//! query. In Debian's Z3 4.8.12 that handshake can deadlock: the test suite
//! once hung forever with the query's thread waiting for the timer's mutex
//! while the timer thread waited on its condition. A language server that
//! hangs in a query never answers again, so tensorfit sets no `timeout` and
//! instead registers each query's deadline here; one thread, started on
//! first use, calls `Z3_interrupt` on the queries whose deadline has passed.

use std::collections::HashMap;
use std::sync::{Condvar, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

struct Watchdog {
    state: Mutex<State>,
    changed: Condvar,
}

#[derive(Default)]
struct State {
    next_token: u64,
    /// Running queries by token: their deadline, their context (as an
    /// address: only used under the lock, while the query runs) and whether
    /// they were interrupted.
    running: HashMap<u64, (Instant, usize, bool)>,
}

/// A query being timed; [`Timed::finish`] says whether it ran out of time.
/// Dropped unfinished (the query's work unwound when its own allowance ran
/// out, see `crate::work`), it stops the timing all the same: a context
/// left registered would be interrupted after it is freed.
pub(crate) struct Timed {
    token: u64,
}

/// Starts timing a query about to run on `context`.
pub(crate) fn start(context: z3_sys::Z3_context, timeout_ms: u32) -> Timed {
    let watchdog = watchdog();
    let mut state = watchdog.lock();
    let token = state.next_token;
    state.next_token += 1;
    let deadline = Instant::now() + Duration::from_millis(u64::from(timeout_ms));
    state
        .running
        .insert(token, (deadline, context.as_ptr() as usize, false));
    watchdog.changed.notify_one();
    Timed { token }
}

impl Timed {
    /// Stops timing; `true` when the query was interrupted for its time
    /// limit (its answer is then unknown, and the context was interrupted).
    pub(crate) fn finish(self) -> bool {
        let mut state = watchdog().lock();
        state
            .running
            .remove(&self.token)
            .is_some_and(|(_, _, fired)| fired)
    }
}

impl Drop for Timed {
    fn drop(&mut self) {
        // After `finish` the token is gone and this removes nothing.
        watchdog().lock().running.remove(&self.token);
    }
}

fn watchdog() -> &'static Watchdog {
    static WATCHDOG: OnceLock<&'static Watchdog> = OnceLock::new();
    WATCHDOG.get_or_init(|| {
        let watchdog: &'static Watchdog = Box::leak(Box::new(Watchdog {
            state: Mutex::default(),
            changed: Condvar::new(),
        }));
        std::thread::Builder::new()
            .name("z3-time-limits".to_owned())
            .spawn(move || watchdog.run())
            .expect("a thread for the solver's time limits");
        watchdog
    })
}

impl Watchdog {
    fn lock(&self) -> MutexGuard<'_, State> {
        // Every update is one step: the state is consistent after a panic.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn run(&self) {
        let mut state = self.lock();
        loop {
            let now = Instant::now();
            for (deadline, context, fired) in state.running.values_mut() {
                if !*fired && *deadline <= now {
                    *fired = true;
                    // Safety: a query stays registered only while it runs
                    // (its context alive), and removing it takes this lock.
                    if let Some(context) =
                        std::ptr::NonNull::new(*context as *mut z3_sys::_Z3_context)
                    {
                        unsafe { z3_sys::Z3_interrupt(context) };
                    }
                }
            }
            let next = state
                .running
                .values()
                .filter(|(_, _, fired)| !fired)
                .map(|(deadline, _, _)| *deadline)
                .min();
            state = match next {
                Some(deadline) => {
                    let wait = deadline.saturating_duration_since(now);
                    self.changed
                        .wait_timeout(state, wait)
                        .unwrap_or_else(|e| e.into_inner())
                        .0
                }
                None => self.changed.wait(state).unwrap_or_else(|e| e.into_inner()),
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A query whose work unwinds (its own allowance spent, see
    /// `crate::work`) must not stay registered: its context is freed with
    /// its unit, and the watchdog would interrupt freed memory when the
    /// deadline passed (fairseq's benchmarking `core.py` aborted so).
    #[test]
    fn a_query_that_unwinds_is_timed_no_more() {
        // Never dereferenced: the deadline is a minute away, and the test
        // fails before it if the query is still registered.
        let context = z3_sys::Z3_context::dangling();
        let token = std::cell::Cell::new(None);
        let unwound = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let timed = start(context, 60_000);
            token.set(Some(timed.token));
            std::panic::resume_unwind(Box::new("out of work"));
        }));
        assert!(unwound.is_err());
        let token = token.get().expect("the query started");
        assert!(!watchdog().lock().running.contains_key(&token));

        let finished = start(context, 60_000);
        let token = finished.token;
        assert!(!finished.finish());
        assert!(!watchdog().lock().running.contains_key(&token));
    }
}
