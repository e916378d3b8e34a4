//! The CPU "device": process state (aclInit/aclFinalize, the current device), device
//! memory, in-order asynchronous streams and events.

pub mod event;
pub mod memory;
pub mod signal;
pub mod stream;
pub mod usage;

use crate::error::{acl, Error, Result};
use std::sync::{Mutex, MutexGuard};

/// The one device this library presents.
pub const DEVICE_COUNT: u32 = 1;

#[derive(Default)]
struct State {
    initialized: bool,
    finalized: bool,
    /// aclrtSetDevice calls not yet matched by aclrtResetDevice.
    device_refs: u32,
}

static STATE: Mutex<State> = Mutex::new(State {
    initialized: false,
    finalized: false,
    device_refs: 0,
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
        s.device_refs = 0;
    }
    stream::destroy_all();
    event::destroy_all();
    memory::free_all();
    Ok(())
}

pub fn is_initialized() -> bool {
    state().initialized
}

/// Fails unless aclInit and aclrtSetDevice were called: what the device requires before
/// memory, streams and kernels can be used.
pub fn require_device() -> Result<()> {
    let s = state();
    if !s.initialized {
        return Err(Error::runtime(
            acl::ACL_ERROR_UNINITIALIZE,
            "aclInit has not been called (or aclFinalize was)",
        ));
    }
    if s.device_refs == 0 {
        return Err(Error::runtime(
            acl::ACL_ERROR_RT_CONTEXT_NULL,
            "no device is set: call aclrtSetDevice(0) first",
        ));
    }
    Ok(())
}

fn check_device_id(id: i32) -> Result<()> {
    if id < 0 || id as u32 >= DEVICE_COUNT {
        return Err(Error::runtime(
            acl::ACL_ERROR_RT_INVALID_DEVICEID,
            format!(
                "deviceId {id} does not exist; this CPU device has ids 0..{}",
                DEVICE_COUNT - 1
            ),
        ));
    }
    Ok(())
}

pub fn set_device(id: i32) -> Result<()> {
    check_device_id(id)?;
    let mut s = state();
    if !s.initialized {
        return Err(Error::runtime(
            acl::ACL_ERROR_UNINITIALIZE,
            "aclInit has not been called",
        ));
    }
    s.device_refs += 1;
    Ok(())
}

/// aclrtResetDevice: waits for all work; repeated SetDevice calls need only one reset.
pub fn reset_device(id: i32) -> Result<()> {
    check_device_id(id)?;
    stream::synchronize_all()?;
    let mut s = state();
    if !s.initialized {
        return Err(Error::runtime(
            acl::ACL_ERROR_UNINITIALIZE,
            "aclInit has not been called",
        ));
    }
    s.device_refs = 0;
    Ok(())
}

pub fn current_device() -> Result<i32> {
    require_device()?;
    Ok(0)
}
