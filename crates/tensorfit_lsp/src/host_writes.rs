//! Changes to the database, applied in order on a thread of their own.
//!
//! Applying an edit waits until the analyses it cancels have stopped
//! (salsa's setter waits for every snapshot to be dropped), a few
//! milliseconds when a check is running. Done in the notification's
//! handler, that wait held up every message after it: the protocol's
//! messages are handled one after another, so a hover sent right after a
//! key waited for the cancelled check. Handlers instead queue the change
//! and return; this thread applies the changes in the order they were
//! queued. Readers of the database first wait until every change queued
//! before them is applied, so they never see an older text than the
//! client has sent.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{mpsc, Arc, Mutex};

use tokio::sync::{oneshot, watch};

use crate::locks::lock;

/// A change of the state `S` (the server's).
type Write<S> = Box<dyn FnOnce(&mut S) + Send>;
/// A write, and whom to tell when it is applied.
type Queued<S> = (Write<S>, oneshot::Sender<()>);

/// The writes of a state `S` (the server's `State`), in order.
pub(crate) struct HostWrites<S> {
    /// `None` when the thread could not be started: writes are then
    /// applied where they are queued.
    queue: Option<Mutex<mpsc::Sender<Queued<S>>>>,
    state: Arc<Mutex<S>>,
    /// How many writes were queued, and how many applied.
    queued: AtomicU64,
    applied: watch::Receiver<u64>,
    applied_here: watch::Sender<u64>,
}

impl<S: Send + 'static> HostWrites<S> {
    pub(crate) fn new(state: Arc<Mutex<S>>) -> HostWrites<S> {
        let (applied_here, applied) = watch::channel(0u64);
        let (sender, receiver) = mpsc::channel::<Queued<S>>();
        let thread_state = state.clone();
        let thread_applied = applied_here.clone();
        let started = std::thread::Builder::new()
            .name("tensorfit-host-writes".to_owned())
            .spawn(move || {
                crate::scheduling::keep_off_the_protocol_core();
                for (write, done) in receiver {
                    apply(&thread_state, write, &thread_applied);
                    let _ = done.send(());
                }
            })
            .is_ok();
        HostWrites {
            queue: started.then(|| Mutex::new(sender)),
            state,
            queued: AtomicU64::new(0),
            applied,
            applied_here,
        }
    }

    /// Queues `write`; the receiver is told when it is applied. Returns at
    /// once: call it before any `.await` of the handler, so that writes are
    /// queued in the order the client sent them.
    pub(crate) fn queue(
        &self,
        write: impl FnOnce(&mut S) + Send + 'static,
    ) -> oneshot::Receiver<()> {
        let (done, applied) = oneshot::channel();
        self.queued.fetch_add(1, Ordering::SeqCst);
        let write: Write<S> = Box::new(write);
        let unsent = match &self.queue {
            Some(queue) => lock(queue).send((write, done)).err().map(|e| e.0),
            None => Some((write, done)),
        };
        if let Some((write, done)) = unsent {
            apply(&self.state, write, &self.applied_here);
            let _ = done.send(());
        }
        applied
    }

    /// Waits until every write queued so far is applied.
    pub(crate) async fn caught_up(&self) {
        let queued = self.queued.load(Ordering::SeqCst);
        let mut applied = self.applied.clone();
        let _ = applied.wait_for(|&n| n >= queued).await;
    }
}

fn apply<S>(state: &Mutex<S>, write: Write<S>, applied: &watch::Sender<u64>) {
    // A defect in one write must not stop the ones after it (the state's
    // inputs are changed by whole setter calls, so it stays consistent).
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| write(&mut lock(state))));
    applied.send_modify(|n| *n += 1);
}
