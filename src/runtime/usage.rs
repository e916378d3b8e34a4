//! Which device memory queued work uses. Every task that touches device memory (an
//! operator's phase 2, aclrtMemcpyAsync, aclrtMemsetAsync) carries a `Ticket` naming the
//! allocations and byte ranges it reads and writes, from the moment it is queued until it
//! has run (or was dropped unrun). This gives:
//! - aclrtFree waits for the queued work that still uses the allocation it frees;
//! - a task whose memory was freed anyway (a free racing with the queuing) is skipped and
//!   reports an error at synchronize instead of touching freed memory;
//! - a synchronous copy that reads bytes queued work has not finished writing (the device
//!   would read stale data) is reported.

use super::memory::{self, Allocation};
use super::signal::Signal;
use smallvec::SmallVec;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};

/// One range of one device allocation a task touches: bytes [lo, hi] inclusive.
#[derive(Clone, Copy, Debug)]
pub struct Use {
    pub base: usize,
    pub id: u64,
    pub lo: usize,
    pub hi: usize,
    pub write: bool,
}

impl Use {
    /// The range [lo, hi] of allocation `a`.
    pub fn of(a: &Allocation, lo: usize, hi: usize, write: bool) -> Use {
        Use {
            base: a.base,
            id: a.id,
            lo,
            hi,
            write,
        }
    }
}

/// The ranges one task uses, inline: an operator's tensors and workspace, or a copy's two
/// sides, without a heap allocation per call.
pub type Uses = SmallVec<[Use; 4]>;

struct Pending {
    /// The API that queued the task ("aclnnAdd"), for messages.
    api: &'static str,
    uses: Uses,
}

/// Queued tasks by ticket key, in queuing order: tasks mostly finish in that order, so the
/// one finishing is found at the front.
static PENDING: Mutex<VecDeque<(u64, Pending)>> = Mutex::new(VecDeque::new());
/// Signalled when a task's ticket is dropped and aclrtFree waits (used with PENDING).
static DONE: Signal = Signal::new();
static NEXT: AtomicU64 = AtomicU64::new(1);

fn pending() -> MutexGuard<'static, VecDeque<(u64, Pending)>> {
    PENDING.lock().unwrap_or_else(|e| e.into_inner())
}

/// Registration of a queued task's memory; dropping it (the task ran or was discarded)
/// releases the memory for aclrtFree.
pub struct Ticket {
    key: u64,
    /// Registered in PENDING (it uses device memory).
    registered: bool,
    /// `memory::frees()` read before the uses were checked live.
    frees: u64,
}

impl Drop for Ticket {
    fn drop(&mut self) {
        if !self.registered {
            return;
        }
        let mut m = pending();
        if let Some(i) = m.iter().position(|(k, _)| *k == self.key) {
            m.remove(i);
        }
        let waiting = DONE.waiting();
        drop(m);
        if waiting {
            DONE.notify_all();
        }
    }
}

impl Ticket {
    /// Registers `uses` for a task about to be queued by `api`; `frees` is `memory::frees()`
    /// read before the uses were found live.
    pub fn new(api: &'static str, uses: Uses, frees: u64) -> Ticket {
        let key = NEXT.fetch_add(1, Ordering::Relaxed);
        let registered = !uses.is_empty();
        if registered {
            pending().push_back((key, Pending { api, uses }));
        }
        Ticket {
            key,
            registered,
            frees,
        }
    }

    /// The first use whose allocation has been freed since the ticket was made.
    fn freed(&self) -> Option<Use> {
        if !self.registered || memory::frees() == self.frees {
            return None; // no memory, or nothing at all has been freed since
        }
        let g = pending();
        let (_, p) = g.iter().find(|(k, _)| *k == self.key)?;
        memory::first_freed(&p.uses, |u| (u.base, u.id)).copied()
    }

    /// `task`, run only if all its memory is still allocated; otherwise it fails (the
    /// stream reports it at the next synchronize) without touching anything.
    pub fn wrap<F>(
        self,
        api: &'static str,
        task: F,
    ) -> impl FnOnce() -> crate::runtime::stream::TaskResult + Send + 'static
    where
        F: FnOnce() -> crate::runtime::stream::TaskResult + Send + 'static,
    {
        move || {
            let ticket = self;
            if let Some(u) = ticket.freed() {
                return Err(format!(
                    "{api}: device memory {:#x} (the aclrtMalloc allocation at {:#x}) was freed with aclrtFree \
                     before this queued work ran; the work was skipped",
                    u.lo, u.base
                )
                .into());
            }
            let r = task();
            drop(ticket);
            r
        }
    }
}

/// aclrtFree / aclrtFreeHost: blocks until no queued task uses the allocation at `base`
/// any more, then runs `free` while no task can be registered (a task registered after it
/// finds its memory gone and is skipped: `Ticket::wrap`).
pub fn free_when_unused<R>(base: usize, free: impl FnOnce() -> R) -> R {
    free_range_when_unused(base, base, free)
}

/// The same for every allocation starting in [lo, hi] (aclrtUnmapMem: the runs of a
/// reservation, `vmm`).
pub fn free_range_when_unused<R>(lo: usize, hi: usize, free: impl FnOnce() -> R) -> R {
    let mut g = pending();
    while g
        .iter()
        .any(|(_, p)| p.uses.iter().any(|u| lo <= u.base && u.base <= hi))
    {
        g = DONE.wait(g);
    }
    let r = free();
    drop(g);
    r
}

/// A queued, unfinished task that writes (or, with `any_use`, reads or writes) bytes
/// [lo, hi]: its API name and the overlapping range.
pub fn conflict(lo: usize, hi: usize, any_use: bool) -> Option<(&'static str, Use)> {
    let g = pending();
    g.iter().find_map(|(_, p)| {
        p.uses
            .iter()
            .find(|u| (u.write || any_use) && u.lo <= hi && lo <= u.hi)
            .map(|u| (p.api, *u))
    })
}

/// Number of queued, unfinished tasks that use device memory (leak checks).
pub fn pending_count() -> usize {
    pending().len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::memory::{allocate, find, release, Pages, Space};
    use std::sync::atomic::AtomicBool;
    use std::sync::Arc;

    fn ticket_on(p: *mut u8, write: bool) -> Ticket {
        let frees = crate::runtime::memory::frees();
        let a = find(p as usize).unwrap();
        Ticket::new(
            "test",
            smallvec::smallvec![Use::of(&a, a.base, a.base + a.size - 1, write)],
            frees,
        )
    }

    #[test]
    fn work_on_freed_memory_is_skipped_and_reported() {
        let p = allocate(64, Space::Device, Pages::Normal).unwrap();
        let ran = Arc::new(AtomicBool::new(false));
        let r2 = ran.clone();
        let task = ticket_on(p, true).wrap(
            "aclnnTest",
            Box::new(move || {
                r2.store(true, Ordering::SeqCst);
                Ok(())
            }),
        );
        // A free that did not wait (a race with the queuing): the task must not run.
        release(p, Space::Device).unwrap();
        let err = task().unwrap_err().msg;
        assert!(err.contains("aclnnTest") && err.contains("freed"), "{err}");
        assert!(!ran.load(Ordering::SeqCst));
    }

    #[test]
    fn free_waits_for_queued_work_and_conflicts_are_seen() {
        let p = allocate(64, Space::Device, Pages::Normal).unwrap();
        let t = ticket_on(p, true);
        let base = p as usize;
        assert!(conflict(base + 8, base + 8, false).is_some_and(|(api, _)| api == "test"));
        let freed = Arc::new(AtomicBool::new(false));
        let f2 = freed.clone();
        let h = std::thread::spawn(move || {
            free_when_unused(base, || release(base as *mut u8, Space::Device).unwrap());
            f2.store(true, Ordering::SeqCst);
        });
        std::thread::sleep(std::time::Duration::from_millis(50));
        assert!(
            !freed.load(Ordering::SeqCst),
            "aclrtFree did not wait for the queued work"
        );
        drop(t);
        h.join().unwrap();
        assert!(freed.load(Ordering::SeqCst));
        assert!(conflict(base + 8, base + 8, false).is_none());
    }
}
