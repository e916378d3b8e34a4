//! The private C ABI through which `libhccl.so` (the `hccl/` crate) reaches this runtime:
//! queue a host task on an aclrtStream, in order with the aclnn work around it; ask which
//! device a stream and a device pointer belong to; record an error message the way every
//! other call does (`aclGetRecentErrMsg`, the plog). Not part of any CANN header: the
//! library finds these symbols with dlsym, so it neither links to nor embeds the runtime.

use super::base::{aclError, aclrtStream};
use super::guard;
use super::runtime::stream_arg;
use crate::error::{acl, Error};
use crate::runtime::memory::{self, Space};
use crate::runtime::stream::Failure;
use std::ffi::{c_char, c_void, CStr};
use std::sync::Arc;

/// Runs a host task: returns 0, or the aclError the stream reports at its next synchronize,
/// having written a NUL-terminated message of at most `msg_len` bytes to `msg`.
pub type HostRun = unsafe extern "C" fn(ctx: *mut c_void, msg: *mut c_char, msg_len: usize) -> i32;
/// Releases a host task's context, once, when no launch refers to it any more.
pub type HostRelease = unsafe extern "C" fn(ctx: *mut c_void);

/// A host task and its context. A captured stream replays it, so `run` may be called more
/// than once; `release` runs when the last launch holding it is dropped.
struct HostTask {
    run: HostRun,
    release: Option<HostRelease>,
    ctx: *mut c_void,
}

// SAFETY: the caller of aclnnCpuLaunchHostTask promises that ctx may be used from the
// stream's thread and released from any thread (it is libhccl's own heap object).
unsafe impl Send for HostTask {}
unsafe impl Sync for HostTask {}

impl HostTask {
    fn call(&self) -> Result<(), Failure> {
        let mut msg = [0 as c_char; 1024];
        // SAFETY: run and ctx as given to aclnnCpuLaunchHostTask; msg is writable for its length.
        let code = unsafe { (self.run)(self.ctx, msg.as_mut_ptr(), msg.len()) };
        if code == 0 {
            return Ok(());
        }
        *msg.last_mut().unwrap() = 0;
        // SAFETY: NUL-terminated just above.
        let text = unsafe { CStr::from_ptr(msg.as_ptr()) }
            .to_string_lossy()
            .into_owned();
        Err(Failure { code, msg: text })
    }
}

impl Drop for HostTask {
    fn drop(&mut self) {
        if let Some(release) = self.release {
            // SAFETY: called once, after the last use of ctx.
            unsafe { release(self.ctx) }
        }
    }
}

/// Queues `run(ctx)` on `stream` (NULL: the current device's default stream) after the work
/// already queued there; a captured stream records it for replay. `release(ctx)` is called
/// exactly once whatever happens, also when this call fails.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnCpuLaunchHostTask(
    stream: aclrtStream,
    run: Option<HostRun>,
    release: Option<HostRelease>,
    ctx: *mut c_void,
) -> aclError {
    guard::acl("aclnnCpuLaunchHostTask", || {
        let Some(run) = run else {
            if let Some(release) = release {
                // SAFETY: as promised to the caller, released also on failure.
                unsafe { release(ctx) }
            }
            return Err(Error::Null("run".into()));
        };
        let task = Arc::new(HostTask { run, release, ctx });
        let s = stream_arg(stream, "stream")?;
        s.launch(Arc::new(move |stream, dry| {
            if dry {
                return Ok(());
            }
            let t = task.clone();
            stream.enqueue(Box::new(move || t.call()))
        }))
    })
}

/// The device `stream` belongs to (NULL: the current device's default stream).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnCpuStreamDevice(stream: aclrtStream, device: *mut i32) -> aclError {
    guard::acl("aclnnCpuStreamDevice", || {
        let d = stream_arg(stream, "stream")?.device;
        unsafe { super::arg::write(device, "device", d) }
    })
}

/// Which device's memory holds all of [ptr, ptr + size), and the identity of the allocation
/// (never reused, so memory freed and allocated again is told apart). Fails with
/// ACL_ERROR_INVALID_PARAM and a message when the bytes are not one device allocation's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnCpuDeviceMemory(
    ptr: *const c_void,
    size: usize,
    device: *mut i32,
    id: *mut u64,
) -> aclError {
    guard::acl("aclnnCpuDeviceMemory", || {
        let p = ptr as usize;
        let bad = |why: String| Error::runtime(acl::ACL_ERROR_INVALID_PARAM, why);
        let a = memory::find(p).ok_or_else(|| {
            bad(format!(
                "{p:#x} is not in memory allocated with aclrtMalloc"
            ))
        })?;
        if a.space != Space::Device {
            return Err(bad(format!(
                "{p:#x} is host memory (aclrtMallocHost); device memory (aclrtMalloc) is required"
            )));
        }
        if p.checked_add(size).is_none_or(|end| end > a.base + a.size) {
            return Err(bad(format!(
                "{size} bytes at {p:#x} run past the end of the allocation of {} bytes at {:#x}",
                a.size, a.base
            )));
        }
        unsafe {
            super::arg::write(device, "device", a.device)?;
            super::arg::write(id, "id", a.id)
        }
    })
}

/// Records `msg` as the calling thread's recent error message (aclGetRecentErrMsg) and logs
/// it at error level under `api`'s module, as a failing runtime call does.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnCpuReportError(api: *const c_char, msg: *const c_char) {
    let text = |p: *const c_char| {
        if p.is_null() {
            String::new()
        } else {
            // SAFETY: the caller passes NUL-terminated strings.
            unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
        }
    };
    let (api, msg) = (text(api), text(msg));
    let line = format!("{api}: {msg}");
    crate::plog::init();
    log::error!(target: "HCCL", "{line}");
    guard::set_last_error(&line);
}
