//! `acl/acl_mdl.h`, the model runtime instance API that stream capture uses
//! (aclmdlRICaptureBegin .. aclmdlRICaptureEnd, aclmdlRIExecuteAsync): work launched on a
//! stream while it is captured is checked and recorded instead of run; the recorded graph
//! then replays on any stream with no phase-1 cost (each launch checks its memory again, so
//! memory freed since the capture is refused, not touched). ggml's CANN back-end captures
//! each compute graph once this way (USE_ACL_GRAPH) and replays it.

use super::arg;
use super::base::{aclError, aclrtStream};
use super::guard;
use super::handle::{self, Handle};
use super::runtime::stream_arg;
use crate::error::{acl, Error};
use crate::runtime::stream::Replay;
use std::ffi::c_void;

/// A captured graph (aclmdlRICaptureEnd); destroy it with aclmdlRIDestroy.
pub type aclmdlRI = *mut c_void;

/// An aclmdlRICaptureMode value as it arrives from C.
pub type aclmdlRICaptureModeRaw = i32;
/// Storage for an aclmdlRICaptureStatus result.
pub type aclmdlRICaptureStatusRaw = i32;

/// Which calls other threads may make while a stream is captured. Every mode records the
/// same way here: the only call refused during a capture is synchronizing the captured
/// stream, which no mode allows.
#[repr(C)]
#[allow(dead_code)]
pub enum aclmdlRICaptureMode {
    ACL_MODEL_RI_CAPTURE_MODE_GLOBAL = 0,
    ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL,
    ACL_MODEL_RI_CAPTURE_MODE_RELAXED,
}

/// Whether a stream is being captured (aclmdlRICaptureGetInfo).
#[repr(C)]
#[allow(dead_code)]
pub enum aclmdlRICaptureStatus {
    ACL_MODEL_RI_CAPTURE_STATUS_NONE = 0,
    ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE,
    ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED,
}

struct ModelHandle(Vec<Replay>);
impl Handle for ModelHandle {
    const KIND: &'static str = "aclmdlRI";
}

thread_local! {
    static THREAD_MODE: std::cell::Cell<i32> = const { std::cell::Cell::new(0) };
}

/// Unknown handles are reported with the runtime's own code.
fn bad_handle(e: Error) -> Error {
    match e {
        Error::BadHandle { .. } => Error::runtime(acl::ACL_ERROR_RT_INVALID_HANDLE, e.to_string()),
        e => e,
    }
}

fn check_mode(mode: i32) -> crate::error::Result<()> {
    if !(0..=2).contains(&mode) {
        return Err(Error::runtime(
            acl::ACL_ERROR_INVALID_PARAM,
            format!("mode {mode} is not an aclmdlRICaptureMode value (0 GLOBAL, 1 THREAD_LOCAL, 2 RELAXED)"),
        ));
    }
    Ok(())
}

/// Starts capturing `stream` (not the default stream): work launched on it is recorded
/// until aclmdlRICaptureEnd.
#[unsafe(no_mangle)]
pub extern "C" fn aclmdlRICaptureBegin(
    stream: aclrtStream,
    mode: aclmdlRICaptureModeRaw,
) -> aclError {
    guard::acl("aclmdlRICaptureBegin", || {
        check_mode(mode)?;
        crate::ensure!(
            !stream.is_null(),
            "stream is NULL: the default stream cannot be captured"
        );
        stream_arg(stream, "stream")?.begin_capture()
    })
}

/// Whether `stream` is being captured. `modelRI` receives NULL: the graph exists only once
/// the capture ends.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclmdlRICaptureGetInfo(
    stream: aclrtStream,
    status: *mut aclmdlRICaptureStatusRaw,
    modelRI: *mut aclmdlRI,
) -> aclError {
    guard::acl("aclmdlRICaptureGetInfo", || unsafe {
        arg::non_null(status, "status")?;
        let active = stream_arg(stream, "stream")?.is_capturing();
        let s = if active {
            aclmdlRICaptureStatus::ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE
        } else {
            aclmdlRICaptureStatus::ACL_MODEL_RI_CAPTURE_STATUS_NONE
        };
        arg::write(status, "status", s as i32)?;
        if !modelRI.is_null() {
            arg::write(modelRI, "modelRI", std::ptr::null_mut())?;
        }
        Ok(())
    })
}

/// Ends the capture of `stream` and returns the recorded graph.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclmdlRICaptureEnd(
    stream: aclrtStream,
    modelRI: *mut aclmdlRI,
) -> aclError {
    guard::acl("aclmdlRICaptureEnd", || unsafe {
        arg::non_null(modelRI, "modelRI")?;
        let work = stream_arg(stream, "stream")?.end_capture()?;
        let h = handle::into_raw(ModelHandle(work));
        arg::write(modelRI, "modelRI", h as aclmdlRI)
    })
}

/// Queues the recorded graph on `stream`, in the order it was captured, after checking every
/// launch (memory freed since the capture refuses the whole replay).
#[unsafe(no_mangle)]
pub extern "C" fn aclmdlRIExecuteAsync(modelRI: aclmdlRI, stream: aclrtStream) -> aclError {
    guard::acl("aclmdlRIExecuteAsync", || {
        arg::non_null(modelRI, "modelRI")?;
        // SAFETY: validated as a live handle by the registry.
        let m = unsafe { handle::borrow(modelRI as *const ModelHandle, "modelRI") }
            .map_err(bad_handle)?;
        let s = stream_arg(stream, "stream")?;
        // Every launch is checked before any is queued: a refused replay runs nothing.
        for r in &m.0 {
            r(&s, true)?;
        }
        for r in &m.0 {
            s.launch(r.clone())?;
        }
        Ok(())
    })
}

/// Destroys a captured graph (work it queued is not affected).
#[unsafe(no_mangle)]
pub extern "C" fn aclmdlRIDestroy(modelRI: aclmdlRI) -> aclError {
    guard::acl("aclmdlRIDestroy", || {
        arg::non_null(modelRI, "modelRI")?;
        handle::destroy(modelRI as *mut ModelHandle, "modelRI").map_err(bad_handle)
    })
}

/// Prints how many launches the graph holds (stderr).
#[unsafe(no_mangle)]
pub extern "C" fn aclmdlRIDebugPrint(modelRI: aclmdlRI) -> aclError {
    guard::acl("aclmdlRIDebugPrint", || {
        arg::non_null(modelRI, "modelRI")?;
        // SAFETY: validated as a live handle by the registry.
        let m = unsafe { handle::borrow(modelRI as *const ModelHandle, "modelRI") }
            .map_err(bad_handle)?;
        eprintln!("aclmdlRI {modelRI:?}: {} captured launches", m.0.len());
        Ok(())
    })
}

/// Swaps this thread's capture mode with `*mode`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclmdlRICaptureThreadExchangeMode(
    mode: *mut aclmdlRICaptureModeRaw,
) -> aclError {
    guard::acl("aclmdlRICaptureThreadExchangeMode", || unsafe {
        arg::non_null(mode, "mode")?;
        let new = *mode;
        check_mode(new)?;
        let old = THREAD_MODE.with(|m| m.replace(new));
        arg::write(mode, "mode", old)
    })
}
