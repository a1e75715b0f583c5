//! How much heap the process holds, for bounds that are about memory
//! rather than steps (the interpreter's tensors) and for memory tests. The
//! binary installs [`CountingAllocator`] as its global allocator; it counts
//! only once [`count_heap`] is called, because a shared counter updated on
//! every allocation costs a check about 7 % of its time (ResNet-50 and the
//! other example models: 0.55 s against 0.51 s, measured).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Bytes allocated minus bytes freed since counting started (wrapping: a
/// block allocated before and freed after takes it below its start).
static LIVE: AtomicUsize = AtomicUsize::new(0);
static COUNTING: AtomicBool = AtomicBool::new(false);

/// The system allocator, counting the bytes it holds once asked to.
pub struct CountingAllocator;

// SAFETY: every call is passed to `System` unchanged; only a counter is
// kept beside it.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let pointer = System.alloc(layout);
        if !pointer.is_null() && COUNTING.load(Ordering::Relaxed) {
            LIVE.fetch_add(layout.size(), Ordering::Relaxed);
        }
        pointer
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let pointer = System.alloc_zeroed(layout);
        if !pointer.is_null() && COUNTING.load(Ordering::Relaxed) {
            LIVE.fetch_add(layout.size(), Ordering::Relaxed);
        }
        pointer
    }

    unsafe fn dealloc(&self, pointer: *mut u8, layout: Layout) {
        System.dealloc(pointer, layout);
        if COUNTING.load(Ordering::Relaxed) {
            LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        }
    }

    unsafe fn realloc(&self, pointer: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let moved = System.realloc(pointer, layout, new_size);
        if !moved.is_null() && COUNTING.load(Ordering::Relaxed) {
            LIVE.fetch_add(new_size, Ordering::Relaxed);
            LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        }
        moved
    }
}

/// Starts counting (where [`CountingAllocator`] is the global allocator).
/// Called early: what was allocated before is not counted.
pub fn count_heap() {
    COUNTING.store(true, Ordering::Relaxed);
}

/// Bytes held on the heap now, as far as counted, if counting.
pub fn live_heap_bytes() -> Option<usize> {
    COUNTING
        .load(Ordering::Relaxed)
        .then(|| (LIVE.load(Ordering::Relaxed) as isize).max(0) as usize)
}
