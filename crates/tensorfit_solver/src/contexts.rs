//! Z3 contexts per unit of work, and interrupting them.
//!
//! Each unit of work (one function's analysis) gets a context of its own,
//! and in it one solver that all its queries share, so that Z3's answers
//! depend on that work alone; a writer interrupts the running queries of
//! its database before it waits for them to finish.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::{Arc, Mutex};

use crate::known_answers::{self, Query, Trail};
use crate::simple_solver::SimpleSolver;
use crate::z3_backend::{replay, Answer};
use crate::z3_context::Z3Context;

/// Runs `work` so that the Z3 queries it makes use a context of their own,
/// made when its first query reaches Z3 (most analyses never do), and can
/// be interrupted through `interrupts`. `Err` when they were: the work's
/// result then holds unknowns it would not otherwise, and is to be thrown
/// away.
///
/// Z3 numbers terms in the order a context first sees them, and its search
/// (so the model it finds and the core it reports) follows those numbers.
/// In one context per thread, an answer would depend on the queries that
/// ran before it on that thread: an incremental check and a check from
/// scratch could give different example values. A context per unit of work
/// (one function's analysis) makes its answers depend on that work alone.
/// (Measured on ResNet-50 with one context per thread: the same outputs,
/// but one query took anywhere from 4 to 73 ms depending on what the
/// context had seen, where a fresh context takes 5 ms every time.)
/// Making a context costs 5–15 ms the first time and under 1 ms once the
/// memory of a dropped one is reused (`keep_freed_contexts_memory`): too
/// much to make one per query or per unit of work that does not need one.
pub fn in_own_context<R>(
    interrupts: &Arc<Interrupts>,
    work: impl FnOnce() -> R,
) -> Result<R, Interrupted> {
    SCOPES.with(|s| {
        s.borrow_mut().push(Scope {
            session: None,
            interrupts: interrupts.clone(),
            interrupted: false,
            trail: Some(Trail::START),
            unreplayed: Vec::new(),
        })
    });
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(work));
    let scope = SCOPES.with(|s| s.borrow_mut().pop());
    match outcome {
        Ok(_) if scope.is_some_and(|s| s.interrupted) => Err(Interrupted),
        Ok(result) => Ok(result),
        Err(payload) => std::panic::resume_unwind(payload),
    }
}

struct Scope {
    /// `None` until the unit makes its first Z3 query.
    session: Option<Rc<Session>>,
    interrupts: Arc<Interrupts>,
    interrupted: bool,
    /// The queries made so far, under which answers are kept; `None` once
    /// one was not answered (see [`crate::known_answers`]).
    trail: Option<Trail>,
    /// Queries answered from earlier units that this unit's context has not
    /// seen yet.
    unreplayed: Vec<Query>,
}

/// A context and the one solver its queries use, each in a scope of its
/// own (see `crate::simple_solver`). The solver's kernel is set up by the
/// context's first query, so the queries after it cost only their solving.
struct Session {
    // Declared first: dropped before the context it lives in.
    solver: SimpleSolver,
    context: Z3Context,
}

impl Session {
    fn new() -> Option<Rc<Session>> {
        static MALLOC_TUNED: std::sync::Once = std::sync::Once::new();
        MALLOC_TUNED.call_once(keep_freed_contexts_memory);
        let context = Z3Context::new()?;
        let solver = SimpleSolver::new(&context)?;
        Some(Rc::new(Session { solver, context }))
    }
}

#[cfg(test)]
thread_local! {
    /// The queries put to Z3 on this thread.
    pub(crate) static Z3_RUNS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

thread_local! {
    /// The units of work running on this thread, innermost last.
    static SCOPES: RefCell<Vec<Scope>> = const { RefCell::new(Vec::new()) };
}

/// Lets a new context reuse the memory of the ones dropped before it.
///
/// A context allocates about 16 MiB in chunks large enough that glibc maps
/// each one afresh and unmaps it on free: every context paid for those
/// pages again (page faults were 16 % of a U-Net check), though the unit of
/// work before it had just freed the same amount. Keeping chunks up to
/// 32 MiB in the heap, and up to 64 MiB of free heap before it is returned
/// to the system, makes a context after the first cost under 1 ms.
fn keep_freed_contexts_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // glibc's <malloc.h>; setting either stops its own adjustment.
        const M_TRIM_THRESHOLD: i32 = -1;
        const M_MMAP_THRESHOLD: i32 = -3;
        extern "C" {
            fn mallopt(param: i32, value: i32) -> i32;
        }
        // SAFETY: plain settings of the allocator, safe at any time.
        unsafe {
            mallopt(M_MMAP_THRESHOLD, 32 << 20);
            mallopt(M_TRIM_THRESHOLD, 64 << 20);
        }
    }
}

/// Runs `query` with the innermost unit of work's solver (made now if this
/// is its first query), or with a session of its own outside any unit,
/// within `timeout_ms` (see [`crate::watchdog`]). A query of a stopped
/// group, or of a unit already interrupted, is not run. A context whose
/// query ran out of time was interrupted, and Z3 may keep it so: it is
/// replaced.
///
/// Where answers are kept, `kept` is the query as data: in a unit, an
/// answer Z3 gave an earlier unit that asked the same queries in the same
/// order is recalled instead of running `query` (see
/// [`crate::known_answers`]), and the recalled queries are put to this
/// unit's context before its first new one, so that Z3 answers that one as
/// it would have without them.
pub(crate) fn in_scope_context(
    timeout_ms: u32,
    kept: Option<Query>,
    query: impl FnOnce(&Z3Context, &SimpleSolver) -> Answer,
) -> Answer {
    let kept = match kept.map(recall) {
        Some(Ok(answer)) => return answer,
        Some(Err(query)) => Some(query),
        None => None,
    };
    let scope = SCOPES.with(|s| {
        let mut scopes = s.borrow_mut();
        let scope = scopes.last_mut()?;
        if scope.session.is_none() {
            scope.session = Session::new();
        }
        Some((
            scope.session.clone(),
            scope.interrupts.clone(),
            scope.interrupted,
            std::mem::take(&mut scope.unreplayed),
        ))
    });
    let Some((session, interrupts, interrupted, unreplayed)) = scope else {
        // Outside any unit of work (tests, mostly), each query is a unit of
        // its own: a context kept for the thread would hold every term of
        // every query.
        let Some(session) = Session::new() else {
            return Answer::Unknown;
        };
        return timed(&session, timeout_ms, query).0;
    };
    let with_scope = |change: &mut dyn FnMut(&mut Scope)| {
        SCOPES.with(|s| {
            if let Some(scope) = s.borrow_mut().last_mut() {
                change(scope);
            }
        })
    };
    let Some(session) = session.filter(|_| !interrupted) else {
        with_scope(&mut |scope| scope.trail = None);
        return Answer::Unknown;
    };
    let Some(registered) = interrupts.register(session.context.raw()) else {
        with_scope(&mut |scope| scope.interrupted = true);
        return Answer::Unknown;
    };
    let replayed_in_time = unreplayed
        .iter()
        .all(|earlier| !timed(&session, timeout_ms, |c, s| replay(c, s, earlier)).1);
    let (answer, timed_out) = match replayed_in_time {
        true => timed(&session, timeout_ms, query),
        false => (Answer::Unknown, true),
    };
    if registered.deregister() {
        with_scope(&mut |scope| scope.interrupted = true);
        return Answer::Unknown;
    }
    let mut kept = kept;
    with_scope(&mut |scope| {
        if timed_out {
            scope.session = None;
        }
        // After an answer Z3 did not give, or a query not kept, the unit's
        // context is not what a unit with the same kept queries would
        // have: nothing more is kept.
        let trail = scope.trail.take();
        if let (Some(trail), Some(query)) = (trail, kept.take()) {
            scope.trail = known_answers::remember(trail, query, &answer);
        }
    });
    answer
}

/// The answer an earlier unit of work got to the same queries as the
/// innermost one's, in the same order, and then `query`; the query back
/// when there is none.
fn recall(query: Query) -> Result<Answer, Query> {
    SCOPES.with(|s| {
        let mut scopes = s.borrow_mut();
        let Some(scope) = scopes.last_mut().filter(|scope| !scope.interrupted) else {
            return Err(query);
        };
        let Some((next, answer)) = scope
            .trail
            .and_then(|trail| known_answers::recall(trail, &query))
        else {
            return Err(query);
        };
        scope.trail = Some(next);
        scope.unreplayed.push(query);
        Ok(answer)
    })
}

/// Runs `query` in the session under the watchdog; whether it ran out of
/// time (its answer is then unknown).
fn timed(
    session: &Session,
    timeout_ms: u32,
    query: impl FnOnce(&Z3Context, &SimpleSolver) -> Answer,
) -> (Answer, bool) {
    let timing = crate::watchdog::start(session.context.raw(), timeout_ms);
    #[cfg(test)]
    Z3_RUNS.with(|runs| runs.set(runs.get() + 1));
    let answer = query(&session.context, &session.solver);
    match timing.finish() {
        true => (Answer::Unknown, true),
        false => (answer, false),
    }
}

/// The Z3 queries of a group of units of work (one database and its
/// snapshots), which a writer stops before it waits for them to finish.
#[derive(Default)]
pub struct Interrupts {
    state: Mutex<InterruptState>,
}

#[derive(Default)]
struct InterruptState {
    stopped: bool,
    next_token: u64,
    /// The running queries' contexts (as addresses: the pointers are only
    /// used under the lock, while their queries run).
    running: Vec<(u64, usize)>,
}

/// The work was interrupted (see [`Interrupts::stop`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Interrupted;

impl Interrupts {
    /// Interrupts the group's running queries and answers every new one
    /// with unknown (marking its unit interrupted) until [`Self::resume`].
    pub fn stop(&self) {
        let mut state = self.lock();
        state.stopped = true;
        for (_, context) in &state.running {
            // Safety: a context stays registered only while its query runs
            // (the unit holds it alive), and deregistering takes this lock.
            if let Some(context) = std::ptr::NonNull::new(*context as *mut z3_sys::_Z3_context) {
                unsafe { z3_sys::Z3_interrupt(context) };
            }
        }
    }

    pub fn resume(&self) {
        self.lock().stopped = false;
    }

    fn register(&self, context: z3_sys::Z3_context) -> Option<Registered<'_>> {
        let mut state = self.lock();
        if state.stopped {
            return None;
        }
        let token = state.next_token;
        state.next_token += 1;
        state.running.push((token, context.as_ptr() as usize));
        Some(Registered {
            interrupts: self,
            token,
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, InterruptState> {
        // The state stays consistent under a panic: every update is one step.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// A query's context registered with its group's [`Interrupts`] while the
/// query runs. Dropped without [`Registered::deregister`] (the query's work
/// unwound when its allowance ran out, see `crate::work`), it deregisters
/// all the same: a context left registered would be interrupted by the
/// next edit after it is freed.
struct Registered<'i> {
    interrupts: &'i Interrupts,
    token: u64,
}

impl Registered<'_> {
    /// Whether the query may have been interrupted.
    fn deregister(self) -> bool {
        let mut state = self.interrupts.lock();
        state.running.retain(|(t, _)| *t != self.token);
        state.stopped
    }
}

impl Drop for Registered<'_> {
    fn drop(&mut self) {
        // After `deregister` the token is gone and this removes nothing.
        let mut state = self.interrupts.lock();
        state.running.retain(|(t, _)| *t != self.token);
    }
}

extern "C" {
    // In Z3's C API since 4.8; z3-sys does not declare it.
    fn Z3_get_estimated_alloc_size() -> u64;
}

/// The bytes Z3 holds in all its contexts (its own estimate), for memory
/// measurements: Z3 allocates with malloc, not through Rust's allocator.
pub fn z3_held_bytes() -> u64 {
    // SAFETY: reads a global counter; no arguments, no context needed.
    unsafe { Z3_get_estimated_alloc_size() }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// As for the watchdog (`crate::watchdog`): a query whose work unwinds
    /// leaves its context registered with its group no more, or the next
    /// edit's [`Interrupts::stop`] would interrupt it after it is freed.
    #[test]
    fn a_query_that_unwinds_leaves_its_group() {
        let interrupts = Interrupts::default();
        // Never dereferenced unless the registration is left behind, which
        // the assertion below catches first.
        let context = z3_sys::Z3_context::dangling();
        let unwound = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let _registered = interrupts.register(context).expect("not stopped");
            std::panic::resume_unwind(Box::new("out of work"));
        }));
        assert!(unwound.is_err());
        assert!(interrupts.lock().running.is_empty());

        let registered = interrupts.register(context).expect("not stopped");
        assert!(!registered.deregister());
        assert!(interrupts.lock().running.is_empty());
        interrupts.stop();
        assert!(interrupts.register(context).is_none());
    }

    /// End to end: a query whose translation runs out of its allowance
    /// unwinds through the unit's Z3 session and leaves nothing
    /// registered, and the unit's next query is answered.
    #[test]
    fn a_unit_goes_on_after_a_query_out_of_work() {
        let interrupts = Arc::new(Interrupts::default());
        let answers = in_own_context(&interrupts, || {
            let cut = crate::work::with_allowance(10, 60_000, || {
                in_scope_context(60_000, None, |_, _| {
                    crate::work::charge(100);
                    Answer::Unknown
                })
            });
            let next = in_scope_context(60_000, None, |_, _| Answer::Unsat(Vec::new()));
            (cut, next)
        })
        .expect("not interrupted");
        assert!(answers.0.is_none());
        assert!(matches!(answers.1, Answer::Unsat(_)));
        assert!(interrupts.lock().running.is_empty());
    }
}
