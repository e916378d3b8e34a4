//! The CPU "device": process state (aclInit/aclFinalize, the current device), device
//! memory, in-order asynchronous streams and events.

pub mod device;
pub mod event;
pub mod memory;
pub mod signal;
pub mod stream;
pub mod usage;
pub mod vmm;

use crate::error::{acl, Error, Result};
use std::sync::{Mutex, MutexGuard};

#[derive(Default)]
struct State {
    initialized: bool,
    finalized: bool,
    /// Per device: aclrtSetDevice calls not yet matched by aclrtResetDevice.
    device_refs: Vec<u32>,
}

static STATE: Mutex<State> = Mutex::new(State {
    initialized: false,
    finalized: false,
    device_refs: Vec::new(),
});

fn state() -> MutexGuard<'static, State> {
    STATE.lock().unwrap_or_else(|e| e.into_inner())
}

/// aclInit: once per process; a second call is ACL_ERROR_REPEAT_INITIALIZE.
pub fn init() -> Result<()> {
    let mut s = state();
    if s.initialized {
        return Err(Error::runtime(
            acl::ACL_ERROR_REPEAT_INITIALIZE,
            "aclInit was already called in this process",
        ));
    }
    s.initialized = true;
    s.finalized = false;
    Ok(())
}

/// aclFinalize: drains and destroys every stream and event and frees all device memory.
/// Objects the program still holds become invalid handles (calls on them return errors).
pub fn finalize() -> Result<()> {
    {
        let mut s = state();
        if !s.initialized {
            let code = if s.finalized {
                acl::ACL_ERROR_REPEAT_FINALIZE
            } else {
                acl::ACL_ERROR_UNINITIALIZE
            };
            return Err(Error::runtime(
                code,
                "aclFinalize without a matching aclInit",
            ));
        }
        s.initialized = false;
        s.finalized = true;
        s.device_refs.clear();
    }
    device::set_thread_device(None);
    device::clear_peers(None);
    stream::destroy_all();
    event::destroy_all();
    vmm::destroy_all();
    memory::free_all();
    Ok(())
}

pub fn is_initialized() -> bool {
    state().initialized
}

/// The device this thread works on: the one it set with aclrtSetDevice, or, for a thread
/// that set none, the lowest device another thread has open (the CPU device lets such a
/// thread work instead of failing). Fails unless aclInit and aclrtSetDevice were called:
/// what the device requires before memory, streams and kernels can be used.
pub fn require_device() -> Result<i32> {
    let s = state();
    if !s.initialized {
        return Err(Error::runtime(
            acl::ACL_ERROR_UNINITIALIZE,
            "aclInit has not been called (or aclFinalize was)",
        ));
    }
    let open = |d: i32| s.device_refs.get(d as usize).is_some_and(|&r| r > 0);
    match device::thread_device() {
        Some(d) if open(d) => Ok(d),
        Some(d) => Err(Error::runtime(
            acl::ACL_ERROR_RT_CONTEXT_NULL,
            format!(
                "device {d} was reset with aclrtResetDevice: call aclrtSetDevice({d}) again first"
            ),
        )),
        None => (0..s.device_refs.len() as i32)
            .find(|&d| open(d))
            .ok_or_else(|| {
                Error::runtime(
                    acl::ACL_ERROR_RT_CONTEXT_NULL,
                    "no device is set: call aclrtSetDevice(0) first",
                )
            }),
    }
}

/// aclrtSetDevice: opens `id` and makes it this thread's device.
pub fn set_device(id: i32) -> Result<()> {
    let d = device::check_id("deviceId", id)?;
    let mut s = state();
    if !s.initialized {
        return Err(Error::runtime(
            acl::ACL_ERROR_UNINITIALIZE,
            "aclInit has not been called",
        ));
    }
    if s.device_refs.len() < device::count() as usize {
        s.device_refs.resize(device::count() as usize, 0);
    }
    s.device_refs[d] += 1;
    device::set_thread_device(Some(id));
    Ok(())
}

/// aclrtResetDevice: waits for the device's work and closes it; repeated SetDevice calls
/// need only one reset. Streams and memory stay valid to destroy and free afterwards, as on
/// the device (clients tear down in that order).
pub fn reset_device(id: i32) -> Result<()> {
    let d = device::check_id("deviceId", id)?;
    stream::synchronize_device(id)?;
    let mut s = state();
    if !s.initialized {
        return Err(Error::runtime(
            acl::ACL_ERROR_UNINITIALIZE,
            "aclInit has not been called",
        ));
    }
    if let Some(r) = s.device_refs.get_mut(d) {
        *r = 0;
    }
    drop(s);
    device::clear_peers(Some(d));
    Ok(())
}

/// ACLNN_CPU_SOC_NAME, or `Ascend910B3`; read once.
pub fn soc_name() -> &'static std::ffi::CStr {
    static NAME: std::sync::OnceLock<std::ffi::CString> = std::sync::OnceLock::new();
    NAME.get_or_init(|| {
        std::env::var("ACLNN_CPU_SOC_NAME")
            .ok()
            .filter(|v| !v.is_empty())
            .and_then(|v| std::ffi::CString::new(v).ok())
            .unwrap_or_else(|| c"Ascend910B3".to_owned())
    })
}

pub fn current_device() -> Result<i32> {
    require_device()
}
