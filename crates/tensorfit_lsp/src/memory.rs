//! What the server holds in memory, and handing back what it does not.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// The answer of `tensorfit/memory`: `heapBytes`, what Rust code holds on
/// the heap (`null` unless the server counts allocations,
/// `TENSORFIT_COUNT_HEAP=1`), and `z3Bytes`, what Z3 holds by its own
/// estimate (it allocates with malloc, outside Rust's allocator, and each
/// of its contexts costs about 16 MiB).
pub(crate) fn held() -> serde_json::Value {
    serde_json::json!({
        "heapBytes": tensorfit_base::live_heap_bytes(),
        "z3Bytes": tensorfit_db::z3_held_bytes(),
    })
}

/// How long the server must have started no check before it hands free
/// pages back: a pause in typing, not the gap between two keys.
const QUIET_BEFORE_RETURNING: Duration = Duration::from_millis(500);

/// How much more than after the last return of free pages the process may
/// hold before they are handed back as soon as a round of checks is over,
/// quiet or not: about three Z3 contexts. Relative, not absolute: a large
/// file's analyses hold more than any fixed budget, and a trim after
/// every round then slowed requests answered during it (a trim walks
/// the heap: inlay hints' p99 went from 0.7 to 7–8 ms on 1,000 functions).
const GROWTH_BUDGET: u64 = 48 << 20;

/// The resident memory just after the last return of free pages.
static RESIDENT_AFTER_RETURN: AtomicU64 = AtomicU64::new(0);

/// The rounds of checks started in this process (malloc's pages are the
/// process's, so the quiet that counts is the process's too).
static ROUNDS_STARTED: AtomicU64 = AtomicU64::new(0);

/// Notes that a round of checks starts; the number to give
/// [`return_free_pages_after`] when it is over.
pub(crate) fn round_started() -> u64 {
    ROUNDS_STARTED.fetch_add(1, Ordering::Relaxed) + 1
}

/// Hands the allocator's free pages back to the system after `round`:
/// at once if the process grew by more than [`GROWTH_BUDGET`] since they
/// were last handed back, else once
/// no round started for [`QUIET_BEFORE_RETURNING`]. What a check freed
/// would otherwise stay resident until the next one needed it. Not after
/// every round: each check makes a Z3 context, whose 16 MiB were then
/// faulted in again (4,170 page faults, 6 ms of every check of U-Net's
/// `forward` while typing, against 0.5 ms when the pages are still there).
pub(crate) async fn return_free_pages_after(round: u64) {
    let budget = RESIDENT_AFTER_RETURN.load(Ordering::Relaxed) + GROWTH_BUDGET;
    if resident_bytes().is_none_or(|bytes| bytes <= budget) {
        tokio::time::sleep(QUIET_BEFORE_RETURNING).await;
        if ROUNDS_STARTED.load(Ordering::Relaxed) != round {
            return; // a later round hands them back
        }
    }
    let _ = crate::analysis_pool::run(return_free_pages).await;
    if let Some(bytes) = resident_bytes() {
        RESIDENT_AFTER_RETURN.store(bytes, Ordering::Relaxed);
    }
}

/// The process's resident memory (Linux), in bytes.
fn resident_bytes() -> Option<u64> {
    // statm: sizes in pages, the second one resident.
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096)
}

fn return_free_pages() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only releases memory malloc does not hand out.
    unsafe {
        libc::malloc_trim(0);
    }
}
