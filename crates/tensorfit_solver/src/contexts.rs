//! Z3 contexts per unit of work, and interrupting them.
//!
//! Each unit of work (one function's analysis) gets a context of its own,
//! so that Z3's answers depend on that work alone; a writer interrupts the
//! running queries of its database before it waits for them to finish.

use std::cell::RefCell;
use std::sync::{Arc, Mutex};

use z3::{Config, Context};

use crate::z3_backend::Answer;
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
/// Making a context costs about half a millisecond, too much to make one
/// per query or per unit of work that does not need one.
pub fn in_own_context<R>(
    interrupts: &Arc<Interrupts>,
    work: impl FnOnce() -> R,
) -> Result<R, Interrupted> {
    SCOPES.with(|s| {
        s.borrow_mut().push(Scope {
            context: None,
            interrupts: interrupts.clone(),
            interrupted: false,
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
    context: Option<Context>,
    interrupts: Arc<Interrupts>,
    interrupted: bool,
}

thread_local! {
    /// The units of work running on this thread, innermost last.
    static SCOPES: RefCell<Vec<Scope>> = const { RefCell::new(Vec::new()) };
}

/// `with_z3_config` and `with_z3_context` ask for `Send + Sync` so that Z3
/// objects cannot be moved to another context's thread. Here the closure
/// runs on this thread before they return, and the only things crossing
/// are plain data and the context handle itself, kept on this thread.
struct OnThisThread<T>(T);
unsafe impl<T> Send for OnThisThread<T> {}
unsafe impl<T> Sync for OnThisThread<T> {}

thread_local! {
    /// The context of queries made outside any unit of work (tests, and
    /// checks outside the database), one per thread.
    static OUTSIDE_UNITS: RefCell<Option<Context>> = const { RefCell::new(None) };
}

fn new_context() -> Context {
    z3::with_z3_config(&Config::new(), || OnThisThread(Context::thread_local())).0
}

/// Runs `query` in the innermost unit of work's context (made now if this
/// is its first query), or in the thread's context outside any, within
/// `timeout_ms` (see [`crate::watchdog`]). A query of a stopped group, or
/// of a unit already interrupted, is not run. A context whose query ran
/// out of time was interrupted, and Z3 may keep it so: it is replaced.
pub(crate) fn in_scope_context(timeout_ms: u32, query: impl FnOnce() -> Answer) -> Answer {
    let scope = SCOPES.with(|s| {
        let mut scopes = s.borrow_mut();
        let scope = scopes.last_mut()?;
        let context = scope.context.get_or_insert_with(new_context);
        Some((context.clone(), scope.interrupts.clone(), scope.interrupted))
    });
    let Some((context, interrupts, interrupted)) = scope else {
        let context =
            OUTSIDE_UNITS.with(|c| c.borrow_mut().get_or_insert_with(new_context).clone());
        let (answer, timed_out) = timed(&context, timeout_ms, query);
        if timed_out {
            OUTSIDE_UNITS.with(|c| c.borrow_mut().take());
        }
        return answer;
    };
    let mark_interrupted = || {
        SCOPES.with(|s| {
            if let Some(scope) = s.borrow_mut().last_mut() {
                scope.interrupted = true;
            }
        })
    };
    if interrupted {
        return Answer::Unknown;
    }
    let Some(token) = interrupts.register(context.get_z3_context()) else {
        mark_interrupted();
        return Answer::Unknown;
    };
    let (answer, timed_out) = timed(&context, timeout_ms, query);
    if interrupts.deregister(token) {
        mark_interrupted();
        return Answer::Unknown;
    }
    if timed_out {
        SCOPES.with(|s| {
            if let Some(scope) = s.borrow_mut().last_mut() {
                scope.context = None;
            }
        });
    }
    answer
}

/// Runs `query` in `context` under the watchdog; whether it ran out of
/// time (its answer is then unknown).
fn timed(context: &Context, timeout_ms: u32, query: impl FnOnce() -> Answer) -> (Answer, bool) {
    let timing = crate::watchdog::start(context.get_z3_context(), timeout_ms);
    let query = OnThisThread(query);
    let answer = z3::with_z3_context(context, move || {
        let query = query;
        OnThisThread((query.0)())
    })
    .0;
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

    fn register(&self, context: z3_sys::Z3_context) -> Option<u64> {
        let mut state = self.lock();
        if state.stopped {
            return None;
        }
        let token = state.next_token;
        state.next_token += 1;
        state.running.push((token, context.as_ptr() as usize));
        Some(token)
    }

    /// Whether the query may have been interrupted.
    fn deregister(&self, token: u64) -> bool {
        let mut state = self.lock();
        state.running.retain(|(t, _)| *t != token);
        state.stopped
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, InterruptState> {
        // The state stays consistent under a panic: every update is one step.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
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
