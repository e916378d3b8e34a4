//! Device and pinned-host memory. Every allocation is recorded by address and size, so
//! frees of unknown pointers are errors and a tensor's bytes can be checked against the
//! allocation that holds them.

use crate::error::{acl, Error, Result};
use std::alloc::{alloc_zeroed, dealloc, Layout};
use std::cell::Cell;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};

/// Every allocation (device and pinned host) is 512-byte aligned. CANN promises far more
/// than 32 on the device (its allocations are page aligned), and clients rely on it: ggml's
/// CANN buffer type assumes 128 and runs out of room with less.
pub const ALIGN: usize = 512;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Space {
    Device,
    Host,
}

#[derive(Clone, Copy, Debug)]
pub struct Allocation {
    pub base: usize,
    /// Bytes the caller asked for.
    pub size: usize,
    pub space: Space,
    /// The device whose memory it is (-1 for host memory).
    pub device: i32,
    /// Unique per allocation (never reused), so memory freed and allocated again at the
    /// same address is told apart from the allocation queued work was planned with.
    pub id: u64,
    /// Bytes obtained for it; 0 for a run of mapped virtual memory (`vmm`), which is not
    /// obtained here and cannot be freed with aclrtFree.
    layout_size: usize,
}

static ALLOCS: Mutex<BTreeMap<usize, Allocation>> = Mutex::new(BTreeMap::new());
/// Allocations removed so far (bumped under the ALLOCS lock): while it has not changed,
/// an allocation seen live is still live.
static FREES: AtomicU64 = AtomicU64::new(0);

/// Allocations this thread found recently, valid while FREES equals `frees`: every operator
/// call looks up each of its tensors twice, and the same few allocations come back.
struct Recent {
    frees: Cell<u64>,
    /// [start, end) of each remembered allocation (empty slots: [0, 0)), compared first.
    spans: [Cell<(usize, usize)>; RECENT_SLOTS],
    slots: [Cell<Allocation>; RECENT_SLOTS],
    next: Cell<usize>,
}

const RECENT_SLOTS: usize = 4;

const NO_ALLOCATION: Allocation = Allocation {
    base: 0,
    size: 0,
    space: Space::Host,
    device: -1,
    id: 0,
    layout_size: 0,
};

thread_local! {
    static RECENT: Recent = const {
        Recent {
            frees: Cell::new(u64::MAX),
            spans: [const { Cell::new((0, 0)) }; RECENT_SLOTS],
            slots: [const { Cell::new(NO_ALLOCATION) }; RECENT_SLOTS],
            next: Cell::new(0),
        }
    };
}
static NEXT_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

/// A new allocation identity (never 0, never reused).
pub fn next_id() -> u64 {
    NEXT_ID.fetch_add(1, Ordering::Relaxed)
}

/// Replaces the records of reservation [base, base+size) by `runs` (start, bytes, device) of
/// mapped memory, each an allocation with identity `id` (`vmm`). Records removed count as
/// frees, so no thread keeps a stale one.
pub(crate) fn set_mapped(base: usize, size: usize, runs: &[(usize, usize, i32)], id: u64) {
    let mut m = allocs();
    let old: Vec<usize> = m.range(base..base + size).map(|(&k, _)| k).collect();
    for k in old {
        m.remove(&k);
    }
    FREES.fetch_add(1, Ordering::Release);
    for &(at, n, device) in runs {
        m.insert(
            at,
            Allocation {
                base: at,
                size: n,
                space: Space::Device,
                device,
                id,
                layout_size: 0,
            },
        );
    }
}

fn allocs() -> MutexGuard<'static, BTreeMap<usize, Allocation>> {
    ALLOCS.lock().unwrap_or_else(|e| e.into_inner())
}

/// `allocate_on` device 0 (host memory for `Space::Host`).
pub fn allocate(size: usize, space: Space, pages: Pages) -> Result<*mut u8> {
    allocate_on(size, space, 0, pages)
}

/// Allocates zeroed memory (zeroed so that no uninitialised byte is ever read) of `device`
/// (ignored for host memory). As on the device the real size is rounded up to 32 bytes
/// plus 32 bytes of padding, and a device's allocations together stay within its capacity.
pub fn allocate_on(size: usize, space: Space, device: i32, pages: Pages) -> Result<*mut u8> {
    let device = if space == Space::Host { -1 } else { device };
    if size == 0 {
        return Err(Error::runtime(
            acl::ACL_ERROR_INVALID_PARAM,
            "size is 0; allocations must be at least 1 byte",
        ));
    }
    let layout_size = size
        .checked_add(31 + 32)
        .map(|s| s & !31)
        .filter(|s| *s <= isize::MAX as usize - ALIGN)
        .ok_or_else(|| {
            Error::runtime(
                acl::ACL_ERROR_BAD_ALLOC,
                format!("size {size} is too large"),
            )
        })?;
    if device >= 0 {
        reserve_capacity(device, size)?;
    }
    // SAFETY: layout_size is non-zero and at most isize::MAX - ALIGN.
    let p = unsafe { obtain(layout_size, pages) };
    if p.is_null() {
        if device >= 0 {
            release_capacity(device, size);
        }
        return Err(Error::runtime(
            acl::ACL_ERROR_RT_MEMORY_ALLOCATION,
            format!("out of memory allocating {size} bytes (the host has no more)"),
        ));
    }
    allocs().insert(
        p as usize,
        Allocation {
            base: p as usize,
            size,
            space,
            device,
            id: next_id(),
            layout_size,
        },
    );
    Ok(p)
}

/// Allocations of at least this many bytes are mapped on their own, aligned to 2 MiB, and
/// when asked for (`Pages::Huge`) advised for 2 MiB pages (transparent huge pages, where
/// the kernel gives them on request): a large tensor then costs one TLB entry per 2 MiB
/// instead of 512, which matters most when it is read across rows (a transposed view
/// touches a new 4 KiB page per element; at 16M f32 elements E5 ran 15% faster, E6 too).
/// Smaller allocations come from the Rust allocator.
const HUGE: usize = 2 << 20;

/// Which pages a large allocation asks for (aclrtMalloc's policy).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pages {
    /// Huge pages where the system gives them (ACL_MEM_MALLOC_HUGE_FIRST and _ONLY).
    Huge,
    /// Ordinary pages (ACL_MEM_MALLOC_NORMAL_ONLY, host memory).
    Normal,
}

/// `size` zeroed bytes aligned to ALIGN (null when out of memory).
///
/// # Safety
/// `size` must be non-zero and at most `isize::MAX - ALIGN`.
unsafe fn obtain(size: usize, pages: Pages) -> *mut u8 {
    #[cfg(all(target_os = "linux", not(miri)))]
    if size >= HUGE {
        // SAFETY: an anonymous private mapping (zero-filled); only the aligned middle of
        // it is kept, the head and tail are unmapped.
        unsafe {
            let len = mapped_len(size);
            let total = len + HUGE;
            let p = libc::mmap(
                std::ptr::null_mut(),
                total,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            );
            if p == libc::MAP_FAILED {
                return std::ptr::null_mut();
            }
            let start = p as usize;
            let aligned = start.next_multiple_of(HUGE);
            if aligned > start {
                libc::munmap(p, aligned - start);
            }
            let end = start + total;
            if end > aligned + len {
                libc::munmap((aligned + len) as *mut libc::c_void, end - aligned - len);
            }
            if pages == Pages::Huge {
                // Advice only: without huge pages the mapping works the same.
                libc::madvise(aligned as *mut libc::c_void, len, libc::MADV_HUGEPAGE);
            }
            return aligned as *mut u8;
        }
    }
    // Small allocations (and other systems) take ordinary pages.
    let _ = pages;
    // SAFETY: the caller guarantees a non-zero size that fits a layout.
    unsafe { alloc_zeroed(Layout::from_size_align_unchecked(size, ALIGN)) }
}

/// The length of the mapping `obtain` keeps for a large allocation: whole 2 MiB pages.
#[cfg(all(target_os = "linux", not(miri)))]
fn mapped_len(size: usize) -> usize {
    size.div_ceil(HUGE) * HUGE
}

/// Returns memory from `obtain(size)`.
///
/// # Safety
/// `p` must come from `obtain(size)` and not have been given back.
unsafe fn give_back(p: *mut u8, size: usize) {
    #[cfg(all(target_os = "linux", not(miri)))]
    if size >= HUGE {
        // SAFETY: the mapping `obtain` kept for this size.
        unsafe { libc::munmap(p as *mut libc::c_void, mapped_len(size)) };
        return;
    }
    // SAFETY: allocated by `obtain` with this layout.
    unsafe { dealloc(p, Layout::from_size_align_unchecked(size, ALIGN)) }
}

/// Frees an allocation made by `allocate` in the same space.
pub fn release(p: *mut u8, space: Space) -> Result<()> {
    let what = if space == Space::Device {
        "aclrtMalloc"
    } else {
        "aclrtMallocHost"
    };
    if p.is_null() {
        return Err(Error::runtime(
            acl::ACL_ERROR_INVALID_PARAM,
            "pointer is NULL",
        ));
    }
    let a = {
        let mut m = allocs();
        match m.get(&(p as usize)) {
            Some(a) if a.layout_size == 0 => {
                return Err(Error::runtime(
                    acl::ACL_ERROR_INVALID_PARAM,
                    format!("{p:?} is memory mapped with aclrtMapMem, not from {what}: release it with aclrtUnmapMem"),
                ))
            }
            Some(a) if a.space == space => {
                let a = *a;
                m.remove(&(p as usize));
                FREES.fetch_add(1, Ordering::Release);
                a
            }
            _ => {
                return Err(Error::runtime(
                    acl::ACL_ERROR_INVALID_PARAM,
                    format!("{p:?} is not the start of a live allocation from {what} (freed twice, or never allocated)"),
                ))
            }
        }
    };
    if a.device >= 0 {
        release_capacity(a.device, a.size);
    }
    // SAFETY: obtained by `allocate` with this size and just unregistered.
    unsafe { give_back(p, a.layout_size) };
    Ok(())
}

/// Bytes in use per device (aclrtMalloc and mapped physical memory), against its capacity.
static IN_USE: Mutex<Vec<usize>> = Mutex::new(Vec::new());

/// Counts `size` more bytes on `device`, or fails as the device does when it has no room.
pub(crate) fn reserve_capacity(device: i32, size: usize) -> Result<()> {
    let cap = super::device::capacity();
    let mut u = IN_USE.lock().unwrap_or_else(|e| e.into_inner());
    let d = device as usize;
    if u.len() <= d {
        u.resize(d + 1, 0);
    }
    if size > cap - u[d].min(cap) {
        return Err(Error::runtime(
            acl::ACL_ERROR_RT_MEMORY_ALLOCATION,
            format!(
                "device {device} is out of memory: {size} bytes asked for, {} of its {cap} bytes in use \
                 (ACLNN_CPU_DEVICE_MEMORY sets the capacity)",
                u[d]
            ),
        ));
    }
    u[d] += size;
    Ok(())
}

pub(crate) fn release_capacity(device: i32, size: usize) {
    let mut u = IN_USE.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(n) = u.get_mut(device as usize) {
        *n = n.saturating_sub(size);
    }
}

/// Bytes allocated on `device`.
pub fn in_use(device: i32) -> usize {
    let u = IN_USE.lock().unwrap_or_else(|e| e.into_inner());
    u.get(device as usize).copied().unwrap_or(0)
}

/// How many allocations have been freed so far: read it before checking memory, and
/// memory checked live is still live while it has not changed.
pub fn frees() -> u64 {
    FREES.load(Ordering::Acquire)
}

/// The live allocation containing `addr`, if any.
pub fn find(addr: usize) -> Option<Allocation> {
    let frees = frees();
    let hit = RECENT.with(|r| {
        if r.frees.get() != frees {
            return None;
        }
        let (lo_hi, slots) = (&r.spans, &r.slots);
        (0..RECENT_SLOTS).find_map(|i| {
            let (lo, hi) = lo_hi[i].get();
            (lo <= addr && addr < hi).then(|| slots[i].get())
        })
    });
    if hit.is_some() {
        return hit;
    }
    let m = allocs();
    let (_, a) = m.range(..=addr).next_back()?;
    let a = (addr < a.base + a.size).then_some(*a)?;
    // Under the lock FREES is exact: remember `a` as live for that count.
    let frees = FREES.load(Ordering::Relaxed);
    drop(m);
    RECENT.with(|r| {
        if r.frees.get() != frees {
            r.spans.iter().for_each(|c| c.set((0, 0)));
            r.frees.set(frees);
        }
        let i = r.next.get();
        r.spans[i].set((a.base, a.base + a.size));
        r.slots[i].set(a);
        r.next.set((i + 1) % RECENT_SLOTS);
    });
    Some(a)
}

/// The first of `items` whose allocation (`key`: its base and id) has been freed, looked
/// up under one lock.
pub fn first_freed<T>(items: &[T], key: impl Fn(&T) -> (usize, u64)) -> Option<&T> {
    let m = allocs();
    items.iter().find(|x| {
        let (base, id) = key(x);
        // The record holding `base`: an aclrtMalloc allocation starts there; a run of mapped
        // memory may have grown below it (`set_mapped`) and keeps its identity.
        !m.range(..=base)
            .next_back()
            .is_some_and(|(_, a)| a.id == id && base < a.base + a.size.max(1))
    })
}

/// Frees everything (aclFinalize).
pub fn free_all() {
    let all: Vec<Allocation> = {
        let mut m = allocs();
        FREES.fetch_add(1, Ordering::Release);
        std::mem::take(&mut *m).into_values().collect()
    };
    for a in all.into_iter().filter(|a| a.layout_size > 0) {
        if a.device >= 0 {
            release_capacity(a.device, a.size);
        }
        // SAFETY: each was obtained by `allocate` with this size; the map no longer has it.
        unsafe { give_back(a.base as *mut u8, a.layout_size) };
    }
}

/// Bytes currently allocated in a space.
pub fn allocated(space: Space) -> usize {
    allocs()
        .values()
        .filter(|a| a.space == space)
        .map(|a| a.size)
        .sum()
}

/// aclrtMemcpyKind values 0..=7 (HOST_TO_HOST .. INTER_DEVICE_TO_DEVICE).
pub fn check_memcpy_kind(kind: i32) -> Result<()> {
    if !(0..=7).contains(&kind) {
        return Err(Error::runtime(
            acl::ACL_ERROR_INVALID_PARAM,
            format!("kind {kind} is not an aclrtMemcpyKind value (0..7)"),
        ));
    }
    Ok(())
}

/// Checks a copy's arguments: non-NULL pointers and count <= destMax.
pub fn check_copy(dst: usize, dest_max: usize, src: usize, count: usize) -> Result<()> {
    if dst == 0 || src == 0 {
        let which = if dst == 0 { "dst" } else { "src" };
        return Err(Error::runtime(
            acl::ACL_ERROR_INVALID_PARAM,
            format!("{which} is NULL"),
        ));
    }
    if count > dest_max {
        return Err(Error::runtime(
            acl::ACL_ERROR_INVALID_PARAM,
            format!("count {count} is larger than destMax {dest_max}"),
        ));
    }
    Ok(())
}

/// Copies `count` bytes (overlap allowed, as memmove).
///
/// # Safety
/// Both ranges must be valid for `count` bytes.
pub unsafe fn copy(dst: usize, src: usize, count: usize) {
    // SAFETY: forwarded from the caller.
    unsafe { std::ptr::copy(src as *const u8, dst as *mut u8, count) }
}

/// Sets `count` bytes to `value as u8`.
///
/// # Safety
/// The range must be valid for `count` bytes.
pub unsafe fn set(dst: usize, value: i32, count: usize) {
    // SAFETY: forwarded from the caller.
    unsafe { std::ptr::write_bytes(dst as *mut u8, value as u8, count) }
}

/// (free, total) bytes of `device`'s memory: its capacity less what is allocated on it.
pub fn mem_info(device: i32) -> (usize, usize) {
    let cap = super::device::capacity();
    (cap.saturating_sub(in_use(device)), cap)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `find` answers from the thread's recent allocations; a free anywhere must make it look
    /// again, so freed memory is never reported live (and a new allocation at the same address
    /// is told apart by its id).
    #[test]
    fn find_does_not_remember_freed_allocations() {
        let p = allocate(256, Space::Device, Pages::Normal).unwrap();
        let base = p as usize;
        let first = find(base + 100).unwrap();
        assert_eq!((first.base, first.size), (base, 256));
        assert_eq!(find(base + 255).unwrap().id, first.id, "a remembered hit");
        assert!(
            find(base + 256).is_none_or(|a| a.base != base),
            "past the end"
        );
        // Freed from another thread: this thread's remembered copy must not be used.
        std::thread::spawn(move || release(base as *mut u8, Space::Device).unwrap())
            .join()
            .unwrap();
        assert!(find(base + 100).is_none_or(|a| a.id != first.id));
        let q = allocate(256, Space::Device, Pages::Normal).unwrap();
        let again = find(q as usize).unwrap();
        assert_ne!(again.id, first.id);
        release(q, Space::Device).unwrap();
        assert!(find(q as usize).is_none_or(|a| a.id != again.id));
    }

    /// Whether the kernel may back the mapping holding `addr` with huge pages
    /// (`THPeligible` in /proc/self/smaps); None where that is not reported.
    fn thp_eligible(addr: usize) -> Option<bool> {
        let smaps = std::fs::read_to_string("/proc/self/smaps").ok()?;
        let mut inside = false;
        for line in smaps.lines() {
            if let Some((range, _)) = line.split_once(' ') {
                if let Some((lo, hi)) = range.split_once('-') {
                    if let (Ok(lo), Ok(hi)) =
                        (usize::from_str_radix(lo, 16), usize::from_str_radix(hi, 16))
                    {
                        inside = lo <= addr && addr < hi;
                        continue;
                    }
                }
            }
            if inside {
                if let Some(v) = line.strip_prefix("THPeligible:") {
                    return Some(v.trim() == "1");
                }
            }
        }
        None
    }

    /// Large allocations (their own mapping) are zeroed, aligned, whole and given back;
    /// with `Pages::Huge` the kernel may use huge pages for them, with `Pages::Normal` not
    /// (checked where the kernel gives huge pages only on request).
    #[test]
    fn large_allocations_are_zeroed_aligned_and_take_the_pages_asked_for() {
        let on_request = std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled")
            .is_ok_and(|s| s.contains("[madvise]"));
        for (size, pages) in [
            (HUGE - 63, Pages::Huge),
            (5 * HUGE + 12345, Pages::Huge),
            (3 * HUGE, Pages::Normal),
            (HUGE - 64, Pages::Huge),
        ] {
            for _ in 0..2 {
                let p = allocate(size, Space::Device, pages).unwrap();
                assert_eq!(p as usize % ALIGN, 0);
                // SAFETY: `size` bytes were allocated at p.
                let bytes = unsafe { std::slice::from_raw_parts_mut(p, size) };
                assert!(bytes.iter().all(|&b| b == 0), "{size}: not zeroed");
                bytes.fill(0xA5); // every byte writable; the next round must see zeros again
                let mapped = size + 31 + 32 >= HUGE; // the layout size decides
                if mapped && cfg!(target_os = "linux") && on_request {
                    assert_eq!(p as usize % HUGE, 0, "{size}: not 2 MiB aligned");
                    if let Some(eligible) = thp_eligible(p as usize) {
                        assert_eq!(eligible, pages == Pages::Huge, "{size} {pages:?}");
                    }
                }
                release(p, Space::Device).unwrap();
            }
        }
    }
}
