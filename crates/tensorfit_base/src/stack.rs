//! The stack the analysis runs on.
//!
//! The checker follows user-controlled structure (nesting, call chains)
//! recursively, each level bounded (see `MAX_NESTING` in the syntax layer
//! and the summary depth in the shape engine). Those bounds are chosen for
//! this stack: a stack overflow aborts the process and cannot be caught, so
//! every thread that analyses runs on a stack of this size.

/// Generous: untouched pages of a thread's stack cost no memory.
pub const ANALYSIS_STACK_BYTES: usize = 256 << 20;

/// Runs `work` on a thread with [`ANALYSIS_STACK_BYTES`] of stack and
/// returns its result; a panic in `work` resumes on the caller's thread.
pub fn with_analysis_stack<R: Send>(work: impl FnOnce() -> R + Send) -> R {
    std::thread::scope(|scope| {
        let thread = std::thread::Builder::new()
            .name("tensorfit-analysis".to_owned())
            .stack_size(ANALYSIS_STACK_BYTES)
            .spawn_scoped(scope, work)
            .expect("the analysis thread can be started");
        match thread.join() {
            Ok(result) => result,
            Err(payload) => std::panic::resume_unwind(payload),
        }
    })
}
