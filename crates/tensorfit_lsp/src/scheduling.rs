//! How the server's threads are scheduled: one core is kept for the
//! threads that answer the editor, analyses and edits run on the others,
//! and analyses at a lower priority.
//!
//! Right after a key, a check of the new text and the edit's parse run
//! while the editor asks for a hover. With every thread free to run
//! anywhere, `perf sched` over the editing bench (two cores) showed the
//! slow hovers (about 1 % over 2 ms) waiting on a core busy with a check
//! or the edit, often while the other core was idle: a thread woken onto
//! a busy core waits for the running one's time slice to end (1.5-4 ms
//! there), and an idle core does not take over a thread that ran a moment
//! ago (the kernel keeps it where its cache is warm). Nice values and
//! shorter slices for the protocol's threads did not help there; a core
//! of their own does (docs/benchmarks.md, fifteenth session). The
//! protocol's work is small (decoding a frame, a lookup in a kept
//! analysis, writing the answer), so one core serves it, and the checks
//! have all others. A machine with one core, or a process allowed on one,
//! is left as it is.

/// How much lower than the protocol's threads analyses run (a nice value):
/// on a machine busy with other programs, checks take the smaller share of
/// a core. (It does not let a hover in sooner: a woken thread still waits
/// for a running check's time slice; the core of their own does that.)
const ANALYSIS_NICENESS: i32 = 5;

/// Makes the calling thread an analysis thread: off the protocol's core,
/// at a lower priority (Linux: priorities are per thread). Failing is
/// harmless: the thread keeps the process's.
pub(crate) fn run_as_analysis() {
    keep_off_the_protocol_core();
    #[cfg(target_os = "linux")]
    // SAFETY: gettid has no preconditions; setpriority on our own thread
    // only changes its scheduling.
    unsafe {
        let thread = libc::syscall(libc::SYS_gettid) as libc::id_t;
        libc::setpriority(libc::PRIO_PROCESS, thread, ANALYSIS_NICENESS);
    }
}

/// Keeps the calling thread on the protocol's core: the highest-numbered
/// core the process may run on (the lowest measured the same in the
/// bench). Threads it starts inherit this.
pub(crate) fn keep_on_the_protocol_core() {
    #[cfg(target_os = "linux")]
    if let Some((mut only, protocol)) = process_cores_and_protocol_core() {
        // SAFETY: a plain bit array, written in place.
        unsafe {
            libc::CPU_ZERO(&mut only);
            libc::CPU_SET(protocol, &mut only);
        }
        set_own_cores(&only);
    }
}

/// Keeps the calling thread off the protocol's core: on every other core
/// the process may run on, whatever the thread that started it was
/// allowed.
pub(crate) fn keep_off_the_protocol_core() {
    #[cfg(target_os = "linux")]
    if let Some((mut others, protocol)) = process_cores_and_protocol_core() {
        // SAFETY: a plain bit array, written in place.
        unsafe { libc::CPU_CLR(protocol, &mut others) };
        set_own_cores(&others);
    }
}

/// The cores the process may run on (its main thread's, which no call
/// here restricts) and the one kept for the protocol; `None` when there
/// is no second core to keep it from.
#[cfg(target_os = "linux")]
fn process_cores_and_protocol_core() -> Option<(libc::cpu_set_t, usize)> {
    // SAFETY: `cpu_set_t` is a plain bit array (all zeros is the empty
    // set), which sched_getaffinity fills for the process's main thread.
    unsafe {
        let mut allowed: libc::cpu_set_t = std::mem::zeroed();
        let size = std::mem::size_of::<libc::cpu_set_t>();
        if libc::sched_getaffinity(libc::getpid(), size, &mut allowed) != 0 {
            return None;
        }
        if libc::CPU_COUNT(&allowed) < 2 {
            return None;
        }
        let protocol = (0..libc::CPU_SETSIZE as usize)
            .rev()
            .find(|&core| libc::CPU_ISSET(core, &allowed))?;
        Some((allowed, protocol))
    }
}

/// Restricts the calling thread to `cores`. Failing is harmless: the
/// thread runs where it ran.
#[cfg(target_os = "linux")]
fn set_own_cores(cores: &libc::cpu_set_t) {
    // SAFETY: pid 0 is the calling thread; the set is read only.
    unsafe {
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), cores);
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    /// The cores the calling thread may run on.
    fn own_cores() -> Vec<usize> {
        // SAFETY: as in `process_cores_and_protocol_core`, for this thread.
        unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            let size = std::mem::size_of::<libc::cpu_set_t>();
            assert_eq!(libc::sched_getaffinity(0, size, &mut set), 0);
            (0..libc::CPU_SETSIZE as usize)
                .filter(|&core| libc::CPU_ISSET(core, &set))
                .collect()
        }
    }

    #[test]
    fn the_protocol_and_the_analyses_share_no_core() {
        let process = own_cores();
        let (protocol, analysis) = std::thread::spawn(|| {
            keep_on_the_protocol_core();
            // Started by a protocol thread, as the analysis pool is.
            let analysis = std::thread::spawn(|| {
                run_as_analysis();
                // SAFETY: gettid has no preconditions; getpriority reads.
                let niceness = unsafe {
                    let thread = libc::syscall(libc::SYS_gettid) as libc::id_t;
                    libc::getpriority(libc::PRIO_PROCESS, thread)
                };
                assert_eq!(niceness, ANALYSIS_NICENESS);
                own_cores()
            });
            (own_cores(), analysis.join().unwrap())
        })
        .join()
        .unwrap();
        if process.len() < 2 {
            assert_eq!((protocol, analysis), (process.clone(), process));
            return;
        }
        let last = *process.last().unwrap();
        assert_eq!(protocol, vec![last]);
        assert_eq!(analysis, process[..process.len() - 1].to_vec());
    }
}
