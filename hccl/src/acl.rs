//! The aclnn-cpu runtime, reached through its private hooks (src/capi/hccl_hooks.rs in the
//! main crate) and a few public acl calls. The symbols are looked up at run time in the
//! process (dlsym): an HCCL program links -lascendcl anyway, and so libhccl.so neither
//! embeds a second runtime nor depends on a link order.

use crate::error::{HcclError, Result, HCCL_E_RUNTIME};
use std::ffi::{c_char, c_void, CStr, CString};
use std::sync::OnceLock;

pub type HostRun = unsafe extern "C" fn(*mut c_void, *mut c_char, usize) -> i32;
pub type HostRelease = unsafe extern "C" fn(*mut c_void);

type LaunchFn =
    unsafe extern "C" fn(*mut c_void, Option<HostRun>, Option<HostRelease>, *mut c_void) -> i32;
type StreamDeviceFn = unsafe extern "C" fn(*mut c_void, *mut i32) -> i32;
type DeviceMemoryFn = unsafe extern "C" fn(*const c_void, usize, *mut i32, *mut u64) -> i32;
type ReportFn = unsafe extern "C" fn(*const c_char, *const c_char);
type GetDeviceFn = unsafe extern "C" fn(*mut i32) -> i32;
type GetCountFn = unsafe extern "C" fn(*mut u32) -> i32;
type RecentMsgFn = unsafe extern "C" fn() -> *const c_char;

struct Runtime {
    launch: LaunchFn,
    stream_device: StreamDeviceFn,
    device_memory: DeviceMemoryFn,
    report: ReportFn,
    get_device: GetDeviceFn,
    get_count: GetCountFn,
    recent_msg: RecentMsgFn,
}

/// Looks `name` up in the process, else in an already loaded aclnn-cpu library (when the
/// program opened it RTLD_LOCAL).
fn symbol(name: &CStr) -> Option<*mut c_void> {
    // SAFETY: dlsym/dlopen with NUL-terminated names.
    unsafe {
        let p = libc::dlsym(libc::RTLD_DEFAULT, name.as_ptr());
        if !p.is_null() {
            return Some(p);
        }
        for lib in [c"libaclnn_cpu.so", c"libascendcl.so"] {
            let h = libc::dlopen(lib.as_ptr(), libc::RTLD_NOW | libc::RTLD_NOLOAD);
            if !h.is_null() {
                let p = libc::dlsym(h, name.as_ptr());
                if !p.is_null() {
                    return Some(p);
                }
            }
        }
        None
    }
}

fn runtime() -> Result<&'static Runtime> {
    static RT: OnceLock<Option<Runtime>> = OnceLock::new();
    RT.get_or_init(|| {
        macro_rules! get {
            ($name:literal) => {
                // SAFETY: the symbol has the signature the aclnn-cpu runtime exports.
                unsafe { std::mem::transmute::<*mut c_void, _>(symbol($name)?) }
            };
        }
        Some(Runtime {
            launch: get!(c"aclnnCpuLaunchHostTask"),
            stream_device: get!(c"aclnnCpuStreamDevice"),
            device_memory: get!(c"aclnnCpuDeviceMemory"),
            report: get!(c"aclnnCpuReportError"),
            get_device: get!(c"aclrtGetDevice"),
            get_count: get!(c"aclrtGetDeviceCount"),
            recent_msg: get!(c"aclGetRecentErrMsg"),
        })
    })
    .as_ref()
    .ok_or_else(|| {
        HcclError::new(
            HCCL_E_RUNTIME,
            "the aclnn-cpu runtime is not loaded: link the program with -lascendcl",
        )
    })
}

/// The runtime's message for a call that just failed with `code`, as an HCCL_E_RUNTIME.
fn failed(rt: &Runtime, what: &str, code: i32) -> HcclError {
    // SAFETY: aclGetRecentErrMsg returns a NUL-terminated string or NULL.
    let msg = unsafe {
        let p = (rt.recent_msg)();
        if p.is_null() {
            String::new()
        } else {
            CStr::from_ptr(p).to_string_lossy().into_owned()
        }
    };
    HcclError::new(
        HCCL_E_RUNTIME,
        format!("{what} failed with aclError {code}: {msg}"),
    )
}

/// The device the calling thread works on (aclrtGetDevice).
pub fn current_device() -> Result<i32> {
    let rt = runtime()?;
    let mut d = -1;
    // SAFETY: writes one i32.
    match unsafe { (rt.get_device)(&mut d) } {
        0 => Ok(d),
        c => Err(failed(rt, "aclrtGetDevice", c)),
    }
}

/// How many devices there are (aclrtGetDeviceCount).
pub fn device_count() -> Result<u32> {
    let rt = runtime()?;
    let mut n = 0;
    // SAFETY: writes one u32.
    match unsafe { (rt.get_count)(&mut n) } {
        0 => Ok(n),
        c => Err(failed(rt, "aclrtGetDeviceCount", c)),
    }
}

/// The device `stream` belongs to.
pub fn stream_device(stream: *mut c_void) -> Result<i32> {
    let rt = runtime()?;
    let mut d = -1;
    // SAFETY: the hook validates the handle.
    match unsafe { (rt.stream_device)(stream, &mut d) } {
        0 => Ok(d),
        c => Err(failed(rt, "the stream", c).with_code(crate::error::HCCL_E_PARA)),
    }
}

/// The device and allocation identity of [ptr, ptr + bytes), which must be device memory.
pub fn device_memory(ptr: usize, bytes: usize) -> Result<(i32, u64)> {
    let rt = runtime()?;
    let (mut d, mut id) = (-1, 0);
    // SAFETY: the hook only looks the address up.
    match unsafe { (rt.device_memory)(ptr as *const c_void, bytes, &mut d, &mut id) } {
        0 => Ok((d, id)),
        c => Err(failed(rt, "the device memory check", c).with_code(crate::error::HCCL_E_PARA)),
    }
}

/// Queues `run(ctx)` on `stream`; `release(ctx)` is called exactly once in every case.
pub fn launch(
    stream: *mut c_void,
    run: HostRun,
    release: HostRelease,
    ctx: *mut c_void,
) -> Result<()> {
    let rt = match runtime() {
        Ok(rt) => rt,
        Err(e) => {
            // SAFETY: the caller's context, released as promised.
            unsafe { release(ctx) };
            return Err(e);
        }
    };
    // SAFETY: the hook takes ownership of ctx (released through `release`).
    match unsafe { (rt.launch)(stream, Some(run), Some(release), ctx) } {
        0 => Ok(()),
        c => Err(failed(rt, "queueing on the stream", c)),
    }
}

/// Records "<api>: <msg>" as the thread's recent error message and logs it.
pub fn report(api: &str, msg: &str) {
    if let Ok(rt) = runtime() {
        let a = CString::new(api).unwrap_or_default();
        let m = CString::new(msg.replace('\0', "\\0")).unwrap_or_default();
        // SAFETY: two NUL-terminated strings.
        unsafe { (rt.report)(a.as_ptr(), m.as_ptr()) }
    }
}

impl HcclError {
    fn with_code(mut self, code: i32) -> HcclError {
        self.code = code;
        self
    }
}
