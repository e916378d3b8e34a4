//! A condition variable that is signalled only when a thread waits on it. std's Condvar
//! makes every notify a futex system call, waiter or not, which costs more than a small
//! operator; streams, usage tickets and events signal on every task they finish.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, MutexGuard};
use std::time::Duration;

/// A Condvar plus the number of threads waiting on it. Always used with one mutex: waits
/// take that mutex's guard, and `waiting` must be read while holding it, so a waiter that
/// has not yet started waiting has not yet released the lock (no lost wake-up).
#[derive(Default)]
pub struct Signal {
    cv: Condvar,
    /// Changed only while the mutex is held.
    waiters: AtomicUsize,
}

impl Signal {
    pub const fn new() -> Signal {
        Signal {
            cv: Condvar::new(),
            waiters: AtomicUsize::new(0),
        }
    }

    /// Blocks until signalled (or a spurious wake-up), counted as a waiter meanwhile.
    pub fn wait<'a, T>(&self, guard: MutexGuard<'a, T>) -> MutexGuard<'a, T> {
        self.waiters.fetch_add(1, Ordering::Relaxed);
        let guard = self.cv.wait(guard).unwrap_or_else(|e| e.into_inner());
        self.waiters.fetch_sub(1, Ordering::Relaxed);
        guard
    }

    /// `wait`, for at most `timeout`.
    pub fn wait_timeout<'a, T>(
        &self,
        guard: MutexGuard<'a, T>,
        timeout: Duration,
    ) -> MutexGuard<'a, T> {
        self.waiters.fetch_add(1, Ordering::Relaxed);
        let guard = self
            .cv
            .wait_timeout(guard, timeout)
            .unwrap_or_else(|e| e.into_inner())
            .0;
        self.waiters.fetch_sub(1, Ordering::Relaxed);
        guard
    }

    /// Whether a thread waits; read it while holding the mutex, signal after releasing it.
    pub fn waiting(&self) -> bool {
        self.waiters.load(Ordering::Relaxed) > 0
    }

    pub fn notify_one(&self) {
        self.cv.notify_one();
    }

    pub fn notify_all(&self) {
        self.cv.notify_all();
    }
}
