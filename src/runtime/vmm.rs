//! Virtual memory management (aclrtReserveMemAddress & co.): address ranges reserved with
//! no access, physical memory allocated apart from any address, and mappings of the one
//! into the other. As on the device, a reserved range is inaccessible until mapped: the
//! pages are PROT_NONE, and no tracked allocation covers them, so an operator or a copy that
//! touches them is refused at the call, never run into a fault.
//!
//! Physical memory is a memfd of its size; mapping it places its pages (MAP_SHARED |
//! MAP_FIXED) at the reserved address, so two mappings of one handle alias as on the device.
//! Each maximal run of mapped bytes in a reservation is registered with `memory` as one
//! device allocation, which is what lets a tensor span two adjacent mappings (ggml's pool
//! grows by mapping chunk after chunk) while bounds and use-after-unmap stay checked.

use super::memory;
use crate::error::{acl, Error, Result};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};

/// The granularity of reservations, physical allocations and mappings (2 MiB: the device's
/// huge page, what aclrtMemGetAllocationGranularity reports for both options).
pub const GRANULARITY: usize = 2 << 20;

/// Physical memory from aclrtMallocPhysical.
pub struct Physical {
    fd: i32,
    pub size: usize,
    pub device: i32,
}

impl Drop for Physical {
    fn drop(&mut self) {
        // SAFETY: the memfd this value owns.
        #[cfg(all(target_os = "linux", not(miri)))]
        unsafe {
            libc::close(self.fd);
        }
        memory::release_capacity(self.device, self.size);
    }
}

struct Mapping {
    size: usize,
    phys: Arc<Physical>,
}

struct Reservation {
    size: usize,
    /// The identity its mapped runs carry as allocations (`memory::Allocation::id`): new at
    /// each unmap, so work planned before an unmap can never run after it.
    id: u64,
    /// Mappings by start address.
    maps: BTreeMap<usize, Mapping>,
}

static RESERVED: Mutex<BTreeMap<usize, Reservation>> = Mutex::new(BTreeMap::new());

fn reserved() -> MutexGuard<'static, BTreeMap<usize, Reservation>> {
    RESERVED.lock().unwrap_or_else(|e| e.into_inner())
}

fn invalid(msg: String) -> Error {
    Error::runtime(acl::ACL_ERROR_INVALID_PARAM, msg)
}

fn check_granular(what: &str, v: usize) -> Result<()> {
    if v % GRANULARITY != 0 {
        return Err(invalid(format!(
            "{what} {v:#x} must be a multiple of the allocation granularity {GRANULARITY:#x} \
             (aclrtMemGetAllocationGranularity)"
        )));
    }
    Ok(())
}

/// aclrtReserveMemAddress: `size` bytes of address space aligned to `alignment` (0: the
/// granularity), with no access until mapped.
pub fn reserve(size: usize, alignment: usize) -> Result<usize> {
    if size == 0 {
        return Err(invalid("size is 0".into()));
    }
    check_granular("size", size)?;
    let align = if alignment == 0 {
        GRANULARITY
    } else {
        alignment
    };
    if !align.is_power_of_two() || align % GRANULARITY != 0 {
        return Err(invalid(format!(
            "alignment {alignment:#x} must be 0 or a power-of-two multiple of the granularity {GRANULARITY:#x}"
        )));
    }
    let base = map_none(size, align)?;
    reserved().insert(
        base,
        Reservation {
            size,
            id: memory::next_id(),
            maps: BTreeMap::new(),
        },
    );
    Ok(base)
}

/// aclrtReleaseMemAddress: `base` must be a reservation with nothing mapped in it.
pub fn release(base: usize) -> Result<()> {
    let mut g = reserved();
    let Some(r) = g.get(&base) else {
        return Err(invalid(format!(
            "virPtr {base:#x} is not the start of a range reserved with aclrtReserveMemAddress"
        )));
    };
    if let Some((&at, m)) = r.maps.iter().next() {
        return Err(invalid(format!(
            "the range at {base:#x} still has {} mapping(s) (the first: {} bytes at {at:#x}); \
             unmap them with aclrtUnmapMem first",
            r.maps.len(),
            m.size
        )));
    }
    let size = r.size;
    g.remove(&base);
    unmap_pages(base, size);
    Ok(())
}

/// aclrtMallocPhysical: `size` bytes of `device`'s memory, counted against its capacity.
pub fn malloc_physical(size: usize, device: i32) -> Result<Arc<Physical>> {
    if size == 0 {
        return Err(invalid("size is 0".into()));
    }
    check_granular("size", size)?;
    memory::reserve_capacity(device, size)?;
    match memfd(size) {
        Ok(fd) => Ok(Arc::new(Physical { fd, size, device })),
        Err(e) => {
            memory::release_capacity(device, size);
            Err(e)
        }
    }
}

/// Whether `p` is mapped anywhere (aclrtFreePhysical refuses then).
pub fn is_mapped(p: &Arc<Physical>) -> bool {
    reserved()
        .values()
        .any(|r| r.maps.values().any(|m| Arc::ptr_eq(&m.phys, p)))
}

/// The reservation holding [va, va+size), by base, or an error naming the rule.
fn holding(g: &BTreeMap<usize, Reservation>, va: usize, size: usize) -> Result<usize> {
    let found = g
        .range(..=va)
        .next_back()
        .filter(|(&b, r)| va < b + r.size)
        .map(|(&b, r)| (b, r.size));
    let Some((base, rsize)) = found else {
        return Err(invalid(format!(
            "virPtr {va:#x} is not inside a range reserved with aclrtReserveMemAddress"
        )));
    };
    if size > base + rsize - va {
        return Err(invalid(format!(
            "[{va:#x}, +{size:#x}) runs past the end of its reserved range ({rsize:#x} bytes at {base:#x})"
        )));
    }
    Ok(base)
}

/// aclrtMapMem: `size` bytes of `phys` from `offset`, at `va` inside a reservation, where
/// nothing is mapped yet.
pub fn map(va: usize, size: usize, offset: usize, phys: Arc<Physical>) -> Result<()> {
    if size == 0 {
        return Err(invalid("size is 0".into()));
    }
    check_granular("virPtr", va)?;
    check_granular("size", size)?;
    check_granular("offset", offset)?;
    if offset > phys.size || size > phys.size - offset {
        return Err(invalid(format!(
            "offset {offset:#x} + size {size:#x} runs past the physical allocation's {:#x} bytes",
            phys.size
        )));
    }
    let mut g = reserved();
    let base = holding(&g, va, size)?;
    let r = g.get_mut(&base).expect("found above");
    let overlap = r
        .maps
        .range(..va + size)
        .next_back()
        .filter(|(&at, m)| at + m.size > va);
    if let Some((&at, m)) = overlap {
        return Err(invalid(format!(
            "[{va:#x}, +{size:#x}) overlaps the mapping of {} bytes at {at:#x}: a range is mapped once \
             (aclrtUnmapMem it first)",
            m.size
        )));
    }
    map_fd(va, size, phys.fd, offset)?;
    r.maps.insert(va, Mapping { size, phys });
    publish(base, r);
    Ok(())
}

/// aclrtUnmapMem: `va` must be where a mapping starts; its pages become inaccessible again.
/// The caller waits until no queued work uses the reservation (`reservation_range`).
pub fn unmap(va: usize) -> Result<()> {
    let mut g = reserved();
    let base = holding(&g, va, 1)?;
    let r = g.get_mut(&base).expect("found above");
    let Some(m) = r.maps.remove(&va) else {
        return Err(invalid(format!(
            "virPtr {va:#x} is not the start of a mapping made with aclrtMapMem (never mapped, or unmapped already)"
        )));
    };
    // No access before the pages go: an operator checked now is refused.
    r.id = memory::next_id();
    publish(base, r);
    remap_none(va, m.size);
    Ok(())
}

/// The reservation holding `va`, as [base, base+size), for waiting on queued work.
pub fn reservation_range(va: usize) -> Option<(usize, usize)> {
    let g = reserved();
    let (&b, r) = g.range(..=va).next_back()?;
    (va < b + r.size).then_some((b, b + r.size))
}

/// Registers each maximal run of mapped bytes of reservation `base` as a device allocation
/// (`memory::set_mapped`), all with the reservation's identity: a run grows as chunks are
/// mapped next to it (queued work on it stays valid), and an unmap renews the identity.
fn publish(base: usize, r: &Reservation) {
    let mut runs: Vec<(usize, usize, i32)> = vec![];
    for (&at, m) in &r.maps {
        match runs.last_mut() {
            Some((s, n, d)) if *s + *n == at && *d == m.phys.device => *n += m.size,
            _ => runs.push((at, m.size, m.phys.device)),
        }
    }
    memory::set_mapped(base, r.size, &runs, r.id);
}

/// aclFinalize: every mapping and reservation goes (physical handles the program still
/// holds stay valid to free).
pub fn destroy_all() {
    let all = std::mem::take(&mut *reserved());
    for (base, r) in all {
        memory::set_mapped(base, r.size, &[], 0);
        unmap_pages(base, r.size);
    }
}

#[cfg(all(target_os = "linux", not(miri)))]
fn map_none(size: usize, align: usize) -> Result<usize> {
    // SAFETY: a fresh anonymous PROT_NONE mapping; only its aligned middle is kept.
    unsafe {
        let total = size + align;
        let p = libc::mmap(
            std::ptr::null_mut(),
            total,
            libc::PROT_NONE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
            -1,
            0,
        );
        if p == libc::MAP_FAILED {
            return Err(Error::runtime(
                acl::ACL_ERROR_RT_MEMORY_ALLOCATION,
                format!("cannot reserve {size:#x} bytes of address space"),
            ));
        }
        let start = p as usize;
        let aligned = start.next_multiple_of(align);
        if aligned > start {
            libc::munmap(p, aligned - start);
        }
        let end = start + total;
        if end > aligned + size {
            libc::munmap((aligned + size) as *mut libc::c_void, end - aligned - size);
        }
        Ok(aligned)
    }
}

#[cfg(all(target_os = "linux", not(miri)))]
fn unmap_pages(base: usize, size: usize) {
    // SAFETY: a range this module reserved and no longer tracks.
    unsafe { libc::munmap(base as *mut libc::c_void, size) };
}

#[cfg(all(target_os = "linux", not(miri)))]
fn remap_none(va: usize, size: usize) {
    // SAFETY: replaces the pages of a mapping this module made, inside its reservation.
    unsafe {
        libc::mmap(
            va as *mut libc::c_void,
            size,
            libc::PROT_NONE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE | libc::MAP_FIXED,
            -1,
            0,
        );
    }
}

#[cfg(all(target_os = "linux", not(miri)))]
fn memfd(size: usize) -> Result<i32> {
    // SAFETY: plain system calls on a new descriptor.
    unsafe {
        let fd = libc::memfd_create(c"aclnn-cpu-physical".as_ptr(), libc::MFD_CLOEXEC);
        if fd < 0 {
            return Err(Error::runtime(
                acl::ACL_ERROR_RT_MEMORY_ALLOCATION,
                "cannot create physical memory (memfd_create failed)".to_string(),
            ));
        }
        if libc::ftruncate(fd, size as libc::off_t) != 0 {
            libc::close(fd);
            return Err(Error::runtime(
                acl::ACL_ERROR_RT_MEMORY_ALLOCATION,
                format!("cannot size physical memory to {size} bytes"),
            ));
        }
        Ok(fd)
    }
}

#[cfg(all(target_os = "linux", not(miri)))]
fn map_fd(va: usize, size: usize, fd: i32, offset: usize) -> Result<()> {
    // SAFETY: `va..va+size` lies in a reservation of this module with nothing mapped there.
    let p = unsafe {
        libc::mmap(
            va as *mut libc::c_void,
            size,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_SHARED | libc::MAP_FIXED,
            fd,
            offset as libc::off_t,
        )
    };
    if p == libc::MAP_FAILED {
        return Err(Error::runtime(
            acl::ACL_ERROR_RT_MEMORY_ALLOCATION,
            format!("cannot map {size:#x} bytes at {va:#x}"),
        ));
    }
    Ok(())
}

#[cfg(not(all(target_os = "linux", not(miri))))]
fn unsupported() -> Error {
    Error::runtime(
        crate::capi::base::ACL_ERROR_API_NOT_SUPPORT,
        "virtual memory management needs Linux".to_string(),
    )
}
#[cfg(not(all(target_os = "linux", not(miri))))]
fn map_none(_: usize, _: usize) -> Result<usize> {
    Err(unsupported())
}
#[cfg(not(all(target_os = "linux", not(miri))))]
fn unmap_pages(_: usize, _: usize) {}
#[cfg(not(all(target_os = "linux", not(miri))))]
fn remap_none(_: usize, _: usize) {}
#[cfg(not(all(target_os = "linux", not(miri))))]
fn memfd(_: usize) -> Result<i32> {
    Err(unsupported())
}
#[cfg(not(all(target_os = "linux", not(miri))))]
fn map_fd(_: usize, _: usize, _: i32, _: usize) -> Result<()> {
    Err(unsupported())
}
