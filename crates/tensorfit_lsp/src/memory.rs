//! What the server holds in memory, and handing back what it does not.

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

/// Hands the allocator's free pages back to the system, once a round of
/// checks is over: what a check freed would otherwise stay resident until
/// the next one needed it.
pub(crate) fn return_free_pages() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only releases memory malloc does not hand out.
    unsafe {
        libc::malloc_trim(0);
    }
}
