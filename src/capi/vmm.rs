//! `acl/acl_rt.h`, virtual memory management: reserve an address range, allocate physical
//! memory, map the one into the other (`runtime::vmm` holds the rules). ggml's CANN memory
//! pool grows this way.

use super::arg;
use super::base::aclError;
use super::guard;
use super::handle::{self, Handle};
use crate::error::{acl, Error, Result};
use crate::runtime::vmm::{self, Physical};
use crate::runtime::{self as rt, usage};
use std::ffi::c_void;
use std::sync::Arc;

/// An aclrtMemLocationType value as it arrives from C.
pub type aclrtMemLocationTypeRaw = i32;
/// An aclrtMemAllocationType value as it arrives from C.
pub type aclrtMemAllocationTypeRaw = i32;
/// An aclrtMemHandleType value as it arrives from C.
pub type aclrtMemHandleTypeRaw = i32;
/// An aclrtMemGranularityOptions value as it arrives from C.
pub type aclrtMemGranularityOptionsRaw = i32;

/// Where physical memory lives: only the device is supported (as in CANN).
#[repr(C)]
#[allow(dead_code)]
pub enum aclrtMemLocationType {
    ACL_MEM_LOCATION_TYPE_HOST = 0,
    ACL_MEM_LOCATION_TYPE_DEVICE,
}

#[repr(C)]
pub struct aclrtMemLocation {
    pub id: u32,
    pub r#type: aclrtMemLocationTypeRaw,
}

#[repr(C)]
#[allow(dead_code)]
pub enum aclrtMemAllocationType {
    ACL_MEM_ALLOCATION_TYPE_PINNED = 0,
}

#[repr(C)]
#[allow(dead_code)]
pub enum aclrtMemHandleType {
    ACL_MEM_HANDLE_TYPE_NONE = 0,
}

/// The properties of a physical allocation.
#[repr(C)]
pub struct aclrtPhysicalMemProp {
    pub handleType: aclrtMemHandleTypeRaw,
    pub allocationType: aclrtMemAllocationTypeRaw,
    pub memAttr: super::runtime::aclrtMemAttrRaw,
    pub location: aclrtMemLocation,
    pub reserve: u64,
}

#[repr(C)]
#[allow(dead_code)]
pub enum aclrtMemGranularityOptions {
    ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM,
    ACL_RT_MEM_ALLOC_GRANULARITY_RECOMMENDED,
    ACL_RT_MEM_ALLOC_GRANULARITY_UNDEF = 0xFFFF,
}

/// A physical allocation from aclrtMallocPhysical.
pub type aclrtDrvMemHandle = *mut c_void;

struct PhysicalHandle(Arc<Physical>);
impl Handle for PhysicalHandle {
    const KIND: &'static str = "aclrtDrvMemHandle";
}

fn bad_handle(e: Error) -> Error {
    match e {
        Error::BadHandle { .. } => Error::runtime(acl::ACL_ERROR_RT_INVALID_HANDLE, e.to_string()),
        e => e,
    }
}

fn invalid(msg: String) -> Error {
    Error::runtime(acl::ACL_ERROR_INVALID_PARAM, msg)
}

/// The device a property block names (checked: pinned device memory without a handle type).
///
/// # Safety
/// `prop` must be NULL or point to an aclrtPhysicalMemProp.
unsafe fn prop_device(prop: *const aclrtPhysicalMemProp) -> Result<i32> {
    arg::non_null(prop, "prop")?;
    // SAFETY: non-NULL, and the caller passes a property block.
    let p = unsafe { &*prop };
    if p.handleType != aclrtMemHandleType::ACL_MEM_HANDLE_TYPE_NONE as i32 {
        return Err(invalid(format!(
            "prop->handleType {} must be ACL_MEM_HANDLE_TYPE_NONE (0)",
            p.handleType
        )));
    }
    if p.allocationType != aclrtMemAllocationType::ACL_MEM_ALLOCATION_TYPE_PINNED as i32 {
        return Err(invalid(format!(
            "prop->allocationType {} must be ACL_MEM_ALLOCATION_TYPE_PINNED (0)",
            p.allocationType
        )));
    }
    if p.location.r#type != aclrtMemLocationType::ACL_MEM_LOCATION_TYPE_DEVICE as i32 {
        return Err(invalid(format!(
            "prop->location.type {} must be ACL_MEM_LOCATION_TYPE_DEVICE (1): host physical memory is not supported",
            p.location.r#type
        )));
    }
    let id = i32::try_from(p.location.id).unwrap_or(i32::MAX);
    rt::device::check_id("prop->location.id", id)?;
    Ok(id)
}

/// Reserves `size` bytes of address space (a multiple of the granularity), aligned to
/// `alignment` (0: the granularity). Nothing in it is accessible until aclrtMapMem.
/// `expectPtr` must be NULL and `flags` 0 or 1 (the page type).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtReserveMemAddress(
    virPtr: *mut *mut c_void,
    size: usize,
    alignment: usize,
    expectPtr: *mut c_void,
    flags: u64,
) -> aclError {
    guard::acl("aclrtReserveMemAddress", || {
        arg::non_null(virPtr, "virPtr")?;
        crate::ensure!(expectPtr.is_null(), "expectPtr {expectPtr:?} must be NULL");
        crate::ensure!(flags <= 1, "flags {flags} must be 0 or 1 (the page type)");
        rt::require_device()?;
        let base = vmm::reserve(size, alignment)?;
        unsafe { arg::write(virPtr, "virPtr", base as *mut c_void) }
    })
}

/// Releases a reservation; everything mapped in it must be unmapped first.
#[unsafe(no_mangle)]
pub extern "C" fn aclrtReleaseMemAddress(virPtr: *mut c_void) -> aclError {
    guard::acl("aclrtReleaseMemAddress", || {
        arg::non_null(virPtr, "virPtr")?;
        vmm::release(virPtr as usize)
    })
}

/// Allocates `size` bytes (a multiple of the granularity) of the device's memory named by
/// `prop`, counted against its capacity, with no address. `flags` must be 0.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtMallocPhysical(
    handle: *mut aclrtDrvMemHandle,
    size: usize,
    prop: *const aclrtPhysicalMemProp,
    flags: u64,
) -> aclError {
    guard::acl("aclrtMallocPhysical", || {
        arg::non_null(handle, "handle")?;
        crate::ensure!(flags == 0, "flags {flags} must be 0");
        let device = unsafe { prop_device(prop)? };
        rt::require_device()?;
        let p = vmm::malloc_physical(size, device)?;
        let h = handle::into_raw(PhysicalHandle(p));
        unsafe { arg::write(handle, "handle", h as aclrtDrvMemHandle) }
    })
}

/// Frees physical memory; it must not be mapped anywhere.
#[unsafe(no_mangle)]
pub extern "C" fn aclrtFreePhysical(handle: aclrtDrvMemHandle) -> aclError {
    guard::acl("aclrtFreePhysical", || {
        arg::non_null(handle, "handle")?;
        let p = handle as *mut PhysicalHandle;
        {
            // SAFETY: validated as a live handle by the registry.
            let h = unsafe { handle::borrow(p, "handle") }.map_err(bad_handle)?;
            if vmm::is_mapped(&h.0) {
                return Err(invalid(
                    "the physical memory is still mapped: aclrtUnmapMem each mapping first".into(),
                ));
            }
        }
        handle::destroy(p, "handle").map_err(bad_handle)
    })
}

/// Maps `size` bytes of `handle` from `offset` at `virPtr`, inside a reservation where
/// nothing is mapped yet (all multiples of the granularity). `flags` must be 0.
#[unsafe(no_mangle)]
pub extern "C" fn aclrtMapMem(
    virPtr: *mut c_void,
    size: usize,
    offset: usize,
    handle: aclrtDrvMemHandle,
    flags: u64,
) -> aclError {
    guard::acl("aclrtMapMem", || {
        arg::non_null(virPtr, "virPtr")?;
        arg::non_null(handle, "handle")?;
        crate::ensure!(flags == 0, "flags {flags} must be 0");
        // SAFETY: validated as a live handle by the registry.
        let h = unsafe { handle::borrow(handle as *const PhysicalHandle, "handle") }
            .map_err(bad_handle)?;
        vmm::map(virPtr as usize, size, offset, h.0.clone())
    })
}

/// Unmaps the mapping that starts at `virPtr`, after the work queued on the reservation has
/// finished; its addresses are inaccessible again.
#[unsafe(no_mangle)]
pub extern "C" fn aclrtUnmapMem(virPtr: *mut c_void) -> aclError {
    guard::acl("aclrtUnmapMem", || {
        arg::non_null(virPtr, "virPtr")?;
        let Some((lo, hi)) = vmm::reservation_range(virPtr as usize) else {
            return Err(invalid(format!(
                "virPtr {virPtr:?} is not inside a range reserved with aclrtReserveMemAddress"
            )));
        };
        usage::free_range_when_unused(lo, hi - 1, || vmm::unmap(virPtr as usize))
    })
}

/// The granularity of reservations, physical allocations and mappings: 2 MiB for both
/// options.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtMemGetAllocationGranularity(
    prop: *mut aclrtPhysicalMemProp,
    option: aclrtMemGranularityOptionsRaw,
    granularity: *mut usize,
) -> aclError {
    guard::acl("aclrtMemGetAllocationGranularity", || {
        arg::non_null(granularity, "granularity")?;
        unsafe { prop_device(prop)? };
        crate::ensure!(
            option == aclrtMemGranularityOptions::ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM as i32
                || option
                    == aclrtMemGranularityOptions::ACL_RT_MEM_ALLOC_GRANULARITY_RECOMMENDED as i32,
            "option {option} must be ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM (0) or _RECOMMENDED (1)"
        );
        unsafe { arg::write(granularity, "granularity", vmm::GRANULARITY) }
    })
}
