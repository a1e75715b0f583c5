//! The threads analyses run on: a few, made once, for the server's life.
//!
//! Not tokio's blocking pool, for two reasons. Z3 gives every thread that
//! makes a query a default context of its own (about 16 MiB), kept until
//! the thread ends, and the blocking pool grows to as many threads as the
//! busiest moment of the session wanted: resident memory crept up with
//! them. And the blocking pool also reads stdin: analyses filling it would
//! delay reading the edit that cancels them.

use std::collections::VecDeque;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Condvar, Mutex, MutexGuard, OnceLock};

/// Enough for a request to be answered beside a running check on two
/// cores; each costs one idle Z3 context.
const THREADS: usize = 4;

type Job = Box<dyn FnOnce() + Send>;

/// The threads and the work waiting for one.
///
/// A job goes to the thread that became idle last, not to any idle one:
/// memory one thread freed is reused by that thread's next analysis and
/// not by another's (each Z3 context, about 16 MiB, went to fresh pages
/// when the next check ran on another thread: 17 MiB more resident after
/// every check, until 100 MiB or a trim, and then 6 ms of page faults in
/// every check). Sequential work, the common case, stays on one thread;
/// the others serve what runs beside it.
struct Pool {
    state: Mutex<PoolState>,
    /// One per thread: its job has arrived.
    wake: Vec<Condvar>,
}

#[derive(Default)]
struct PoolState {
    /// Work that found every thread busy, oldest first.
    waiting: VecDeque<Job>,
    /// The idle threads, the one idle last at the end.
    idle: Vec<usize>,
    /// A job handed to each thread, until it takes it.
    handed: Vec<Option<Job>>,
}

fn pool() -> Option<&'static Pool> {
    static POOL: OnceLock<Option<&'static Pool>> = OnceLock::new();
    *POOL.get_or_init(|| {
        let pool: &'static Pool = Box::leak(Box::new(Pool {
            state: Mutex::new(PoolState {
                handed: (0..THREADS).map(|_| None).collect(),
                ..PoolState::default()
            }),
            wake: (0..THREADS).map(|_| Condvar::new()).collect(),
        }));
        let started = (0..THREADS)
            .filter(|&i| {
                std::thread::Builder::new()
                    .name(format!("tensorfit-analysis-{i}"))
                    .stack_size(tensorfit_base::ANALYSIS_STACK_BYTES)
                    .spawn(move || serve(pool, i))
                    .is_ok()
            })
            .count();
        (started > 0).then_some(pool)
    })
}

impl Pool {
    fn lock(&self) -> MutexGuard<'_, PoolState> {
        // Every update of the state is one step: a panic leaves it whole.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn submit(&self, job: Job) {
        let mut state = self.lock();
        match state.idle.pop() {
            Some(thread) => {
                state.handed[thread] = Some(job);
                self.wake[thread].notify_one();
            }
            None => state.waiting.push_back(job),
        }
    }

    /// The next job for `thread`: waiting work, or what is handed to it
    /// once it is idle.
    fn next_job(&self, thread: usize) -> Job {
        let mut state = self.lock();
        if let Some(job) = state.waiting.pop_front() {
            return job;
        }
        state.idle.push(thread);
        loop {
            if let Some(job) = state.handed[thread].take() {
                return job;
            }
            state = self.wake[thread]
                .wait(state)
                .unwrap_or_else(|e| e.into_inner());
        }
    }
}

fn serve(pool: &Pool, thread: usize) {
    crate::scheduling::run_as_analysis();
    loop {
        // A job catches its own panics (see `run`).
        pool.next_job(thread)();
    }
}

/// Runs `work` on an analysis thread, starting at once (not when the
/// answer is first awaited); `Err` with the payload when it panicked
/// (salsa's `Cancelled` among them), which costs this work only.
pub(crate) fn run<T: Send + 'static>(
    work: impl FnOnce() -> T + Send + 'static,
) -> impl std::future::Future<Output = std::thread::Result<T>> {
    let (answer, answered) = tokio::sync::oneshot::channel();
    // `work` and what it captured (a database snapshot) are dropped before
    // the answer is sent: whoever waits for the answer and then edits must
    // not wait on this snapshot.
    let job: Job = Box::new(move || {
        let _ = answer.send(catch_unwind(AssertUnwindSafe(work)));
    });
    match pool() {
        Some(pool) => pool.submit(job),
        None => job(),
    }
    async move {
        answered
            .await
            .unwrap_or_else(|_| Err(Box::new("the analysis thread stopped")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn thread_name() -> String {
        std::thread::current().name().unwrap_or("").to_owned()
    }

    /// Waits until every thread is idle again (its answer is sent just
    /// before that: a fixed sleep was too short on a loaded machine).
    async fn all_idle() {
        let pool = pool().expect("the pool's threads started");
        for _ in 0..5_000 {
            if pool.lock().idle.len() == THREADS {
                return;
            }
            tokio::time::sleep(std::time::Duration::from_millis(1)).await;
        }
        panic!("the pool's threads stayed busy for 5 s");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn work_runs_on_a_few_threads_and_a_panic_costs_only_that_work() {
        for _ in 0..THREADS {
            assert!(run(|| -> u32 { panic!("a defect") }).await.is_err());
        }
        let tasks: Vec<_> = (0..50)
            .map(|i| {
                tokio::spawn(run(move || {
                    std::thread::sleep(std::time::Duration::from_millis(2));
                    (i, thread_name())
                }))
            })
            .collect();
        let mut threads = std::collections::BTreeSet::new();
        for (i, task) in tasks.into_iter().enumerate() {
            let (answer, thread) = task.await.unwrap().expect("no panic");
            assert_eq!(answer, i);
            assert!(thread.starts_with("tensorfit-analysis-"), "{thread}");
            threads.insert(thread);
        }
        assert!(threads.len() <= THREADS, "{threads:?}");
        // (One test: the pool is the process's, and another test's work
        // would take the threads this one watches.)
        every_job_is_done_and_sequential_work_keeps_its_thread().await;
    }

    /// Work submitted from many tasks at once, some of it finding every
    /// thread busy, all gets done; work that comes one job at a time, each
    /// after the last is over, stays on one thread.
    async fn every_job_is_done_and_sequential_work_keeps_its_thread() {
        for round in 0..20 {
            let tasks: Vec<_> = (0..3 * THREADS)
                .map(|i| {
                    tokio::spawn(run(move || {
                        std::thread::sleep(std::time::Duration::from_micros(200 * (i % 3) as u64));
                        i + round
                    }))
                })
                .collect();
            for (i, task) in tasks.into_iter().enumerate() {
                assert_eq!(task.await.unwrap().expect("no panic"), i + round);
            }
        }
        let mut threads = std::collections::BTreeSet::new();
        for _ in 0..20 {
            all_idle().await;
            threads.insert(run(thread_name).await.expect("no panic"));
        }
        assert_eq!(threads.len(), 1, "{threads:?}");
    }
}
