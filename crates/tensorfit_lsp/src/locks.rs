//! Locks that outlive a panic.

use std::sync::{Mutex, MutexGuard};

/// A lock, even if a panic poisoned it: what the server keeps behind its
/// locks is only changed by whole assignments and setter calls, so it
/// stays consistent.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}
