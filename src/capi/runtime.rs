//! `acl/acl_rt.h`: process set-up, the device, streams, events, memory and the recent
//! error message. Runtime functions return `aclError` (0 = ACL_SUCCESS).

use super::arg;
use super::base::{aclError, aclrtContext, aclrtEvent, aclrtStream};
use super::guard;
use super::handle::{self, Handle};
use super::misuse;
use crate::error::{acl, Error, Result};
use crate::profile::{self, Detail};
use crate::runtime::event::Event;
use crate::runtime::memory::{self, Pages, Space};
use crate::runtime::stream::{self, Stream};
use crate::runtime::usage;
use crate::runtime::{self as rt};
use std::ffi::{c_char, c_void};
use std::sync::Arc;

/// An aclrtMemcpyKind value as it arrives from C (validated before use).
pub type aclrtMemcpyKindRaw = i32;
/// An aclrtMemMallocPolicy value as it arrives from C.
pub type aclrtMemMallocPolicyRaw = i32;
/// An aclrtMemAttr value as it arrives from C.
pub type aclrtMemAttrRaw = i32;
/// Storage for an aclrtRunMode result.
pub type aclrtRunModeRaw = i32;
/// Storage for an aclrtEventRecordedStatus result.
pub type aclrtEventRecordedStatusRaw = i32;
/// Storage for an aclrtEventStatus result.
pub type aclrtEventStatusRaw = i32;
/// Storage for an aclrtStreamStatus result.
pub type aclrtStreamStatusRaw = i32;

/// Direction of a copy. Every kind is a plain copy on the CPU device.
#[repr(C)]
#[allow(dead_code)]
pub enum aclrtMemcpyKind {
    ACL_MEMCPY_HOST_TO_HOST,
    ACL_MEMCPY_HOST_TO_DEVICE,
    ACL_MEMCPY_DEVICE_TO_HOST,
    ACL_MEMCPY_DEVICE_TO_DEVICE,
    ACL_MEMCPY_DEFAULT,
    ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE,
    ACL_MEMCPY_INNER_DEVICE_TO_DEVICE,
    ACL_MEMCPY_INTER_DEVICE_TO_DEVICE,
}

/// Allocation policy: the huge-page policies ask for transparent huge pages for large
/// allocations (`memory::Pages`), the NORMAL_ONLY ones for ordinary pages; the rest is ignored.
#[repr(C)]
#[allow(dead_code)]
pub enum aclrtMemMallocPolicy {
    ACL_MEM_MALLOC_HUGE_FIRST = 0,
    ACL_MEM_MALLOC_HUGE_ONLY = 1,
    ACL_MEM_MALLOC_NORMAL_ONLY = 2,
    ACL_MEM_MALLOC_HUGE_FIRST_P2P = 3,
    ACL_MEM_MALLOC_HUGE_ONLY_P2P = 4,
    ACL_MEM_MALLOC_NORMAL_ONLY_P2P = 5,
    ACL_MEM_MALLOC_HUGE1G_ONLY = 6,
    ACL_MEM_MALLOC_HUGE1G_ONLY_P2P = 7,
    ACL_MEM_TYPE_LOW_BAND_WIDTH = 0x0100,
    ACL_MEM_TYPE_HIGH_BAND_WIDTH = 0x1000,
    ACL_MEM_ACCESS_USER_SPACE_READONLY = 0x100000,
}

/// Memory kinds for aclrtGetMemInfo; every kind reports the machine's RAM.
#[repr(C)]
#[allow(dead_code)]
pub enum aclrtMemAttr {
    ACL_DDR_MEM,
    ACL_HBM_MEM,
    ACL_DDR_MEM_HUGE,
    ACL_DDR_MEM_NORMAL,
    ACL_HBM_MEM_HUGE,
    ACL_HBM_MEM_NORMAL,
    ACL_DDR_MEM_P2P_HUGE,
    ACL_DDR_MEM_P2P_NORMAL,
    ACL_HBM_MEM_P2P_HUGE,
    ACL_HBM_MEM_P2P_NORMAL,
    ACL_HBM_MEM_HUGE1G,
    ACL_HBM_MEM_P2P_HUGE1G,
    ACL_MEM_NORMAL,
    ACL_MEM_HUGE,
    ACL_MEM_HUGE1G,
    ACL_MEM_P2P_NORMAL,
    ACL_MEM_P2P_HUGE,
    ACL_MEM_P2P_HUGE1G,
}

/// Where the program runs (the CPU device is the host).
#[repr(C)]
#[allow(dead_code)]
pub enum aclrtRunMode {
    ACL_DEVICE,
    ACL_HOST,
}

/// Result of aclrtQueryEventStatus.
#[repr(C)]
#[allow(dead_code)]
pub enum aclrtEventRecordedStatus {
    ACL_EVENT_RECORDED_STATUS_NOT_READY = 0,
    ACL_EVENT_RECORDED_STATUS_COMPLETE = 1,
}

/// Result of aclrtStreamQuery.
#[repr(C)]
#[allow(dead_code)]
pub enum aclrtStreamStatus {
    ACL_STREAM_STATUS_COMPLETE = 0,
    ACL_STREAM_STATUS_NOT_READY = 1,
    ACL_STREAM_STATUS_RESERVED = 0xFFFF,
}

/// Result of aclrtQueryEvent (deprecated).
#[repr(C)]
#[allow(dead_code)]
pub enum aclrtEventStatus {
    ACL_EVENT_STATUS_COMPLETE = 0,
    ACL_EVENT_STATUS_NOT_READY = 1,
    ACL_EVENT_STATUS_RESERVED = 2,
}

pub(crate) struct StreamHandle(pub(crate) Arc<Stream>);
impl Handle for StreamHandle {
    const KIND: &'static str = "aclrtStream";
}

struct EventHandle(Arc<Event>);

/// The device's one context: every context handle stands for it.
struct ContextHandle;
impl Handle for ContextHandle {
    const KIND: &'static str = "aclrtContext";
}

thread_local! {
    static CURRENT_CONTEXT: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}
impl Handle for EventHandle {
    const KIND: &'static str = "aclrtEvent";
}

/// The stream behind an aclrtStream argument; NULL is the default stream.
pub(crate) fn stream_arg(s: aclrtStream, name: &'static str) -> Result<Arc<Stream>> {
    let device = rt::require_device()?;
    if s.is_null() {
        return stream::default_stream(device);
    }
    // SAFETY: validated as a live stream handle by the registry.
    let h = unsafe { handle::borrow(s as *const StreamHandle, name) }.map_err(bad_handle)?;
    Ok(h.0.clone())
}

fn event_arg(e: aclrtEvent, name: &'static str) -> Result<Arc<Event>> {
    // SAFETY: validated as a live event handle by the registry.
    let h = unsafe { handle::borrow(e as *const EventHandle, name) }.map_err(bad_handle)?;
    Ok(h.0.clone())
}

/// Destroying an object after aclFinalize frees it but reports that aclFinalize had
/// already destroyed it.
fn after_finalize(what: &str) -> Result<()> {
    if rt::is_initialized() {
        return Ok(());
    }
    Err(Error::runtime(
        acl::ACL_ERROR_UNINITIALIZE,
        format!("aclFinalize has already destroyed this {what}; its handle is now released"),
    ))
}

/// Runtime functions report unknown handles with the runtime's own code.
fn bad_handle(e: Error) -> Error {
    match e {
        Error::BadHandle { .. } => Error::runtime(acl::ACL_ERROR_RT_INVALID_HANDLE, e.to_string()),
        e => e,
    }
}

/// Initialises the runtime. `configPath` may be NULL. Once per process: a second call
/// returns ACL_ERROR_REPEAT_INITIALIZE.
#[unsafe(no_mangle)]
pub extern "C" fn aclInit(configPath: *const c_char) -> aclError {
    let _ = configPath;
    crate::plog::init();
    guard::acl("aclInit", || {
        rt::init()?;
        log::info!(target: crate::plog::ASCENDCL, "aclInit: the runtime is initialised");
        crate::profile::start_from_env();
        Ok(())
    })
}

/// Drains every stream, destroys streams and events and frees all device memory.
/// Handles the program still holds become invalid: using them returns an error.
#[unsafe(no_mangle)]
pub extern "C" fn aclFinalize() -> aclError {
    guard::acl("aclFinalize", || {
        rt::finalize()?;
        crate::profile::stop_env();
        Ok(())
    })
}

/// The message of the most recent failing call on this thread ("" if none), which this
/// call clears, as CANN documents: a second call returns "" unless another call failed in
/// between. The text names the API, the parameter, the rule and the values. Valid until
/// this thread's next aclGetRecentErrMsg call.
#[unsafe(no_mangle)]
pub extern "C" fn aclGetRecentErrMsg() -> *const c_char {
    guard::fetch_last_error()
}

/// The runtime version this library is compatible with (1.17.0).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtGetVersion(
    majorVersion: *mut i32,
    minorVersion: *mut i32,
    patchVersion: *mut i32,
) -> aclError {
    guard::acl("aclrtGetVersion", || unsafe {
        arg::write(majorVersion, "majorVersion", 1)?;
        arg::write(minorVersion, "minorVersion", 17)?;
        arg::write(patchVersion, "patchVersion", 0)
    })
}

/// Opens device `deviceId` (only 0 exists) and its default stream.
#[unsafe(no_mangle)]
pub extern "C" fn aclrtSetDevice(deviceId: i32) -> aclError {
    guard::acl("aclrtSetDevice", || rt::set_device(deviceId))
}

/// Waits for the device's work and releases it. Repeated SetDevice calls need one reset.
#[unsafe(no_mangle)]
pub extern "C" fn aclrtResetDevice(deviceId: i32) -> aclError {
    guard::acl("aclrtResetDevice", || rt::reset_device(deviceId))
}

/// The current device id.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtGetDevice(deviceId: *mut i32) -> aclError {
    guard::acl("aclrtGetDevice", || unsafe {
        arg::write(deviceId, "deviceId", rt::current_device()?)
    })
}

/// Number of devices: ACLNN_CPU_DEVICE_COUNT (default 1).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtGetDeviceCount(count: *mut u32) -> aclError {
    guard::acl("aclrtGetDeviceCount", || unsafe {
        arg::write(count, "count", rt::device::count())
    })
}

/// Whether `deviceId` can reach `peerDeviceId`'s memory: 1 for any two distinct devices
/// (they share the host's memory), 0 for a device and itself.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtDeviceCanAccessPeer(
    canAccessPeer: *mut i32,
    deviceId: i32,
    peerDeviceId: i32,
) -> aclError {
    guard::acl("aclrtDeviceCanAccessPeer", || unsafe {
        arg::non_null(canAccessPeer, "canAccessPeer")?;
        let can = rt::device::can_access_peer(deviceId, peerDeviceId)?;
        arg::write(canAccessPeer, "canAccessPeer", can as i32)
    })
}

/// Lets this thread's device reach `peerDeviceId`'s memory (device-to-device copies between
/// them). `flags` must be 0.
#[unsafe(no_mangle)]
pub extern "C" fn aclrtDeviceEnablePeerAccess(peerDeviceId: i32, flags: u32) -> aclError {
    guard::acl("aclrtDeviceEnablePeerAccess", || {
        crate::ensure!(flags == 0, "flags {flags} must be 0 (reserved)");
        rt::device::set_peer_access(rt::require_device()?, peerDeviceId, true)
    })
}

/// Withdraws what aclrtDeviceEnablePeerAccess granted; an error if it was not enabled.
#[unsafe(no_mangle)]
pub extern "C" fn aclrtDeviceDisablePeerAccess(peerDeviceId: i32) -> aclError {
    guard::acl("aclrtDeviceDisablePeerAccess", || {
        rt::device::set_peer_access(rt::require_device()?, peerDeviceId, false)
    })
}

/// Where the program runs: ACL_HOST (1) — the CPU device is the host.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtGetRunMode(runMode: *mut aclrtRunModeRaw) -> aclError {
    guard::acl("aclrtGetRunMode", || unsafe {
        arg::write(runMode, "runMode", aclrtRunMode::ACL_HOST as i32)
    })
}

/// The SoC name this device presents: `Ascend910B3` (an Atlas A2 part, whose dtype lists the
/// operators follow), or the value of ACLNN_CPU_SOC_NAME. Clients pick code paths by it
/// (ggml builds for the SoC that npu-smi reports and checks it at run time).
#[unsafe(no_mangle)]
pub extern "C" fn aclrtGetSocName() -> *const c_char {
    rt::soc_name().as_ptr()
}

/// Waits until every stream of this thread's device has finished its work.
#[unsafe(no_mangle)]
pub extern "C" fn aclrtSynchronizeDevice() -> aclError {
    let _span = profile::HostSpan::begin("aclrtSynchronizeDevice", "sync", || Detail::None);
    guard::acl("aclrtSynchronizeDevice", || {
        stream::synchronize_device(rt::require_device()?)
    })
}

/// Creates a stream. Destroy it with aclrtDestroyStream.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtCreateStream(stream: *mut aclrtStream) -> aclError {
    guard::acl("aclrtCreateStream", || {
        arg::non_null(stream, "stream")?;
        let device = rt::require_device()?;
        let h = handle::into_raw(StreamHandle(Stream::create(device)?));
        unsafe { arg::write(stream, "stream", h as aclrtStream) }
    })
}

/// Creates a stream; priority and flag are accepted and ignored.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtCreateStreamWithConfig(
    stream: *mut aclrtStream,
    priority: u32,
    flag: u32,
) -> aclError {
    let _ = (priority, flag);
    unsafe { aclrtCreateStream(stream) }
}

/// Waits for the stream's work, then destroys it. Not NULL (the default stream is not destroyed).
#[unsafe(no_mangle)]
pub extern "C" fn aclrtDestroyStream(stream: aclrtStream) -> aclError {
    guard::acl("aclrtDestroyStream", || {
        arg::non_null(stream, "stream")?;
        let h = handle::take(stream as *mut StreamHandle, "stream").map_err(bad_handle)?;
        let r = h.0.shutdown();
        if profile::on() {
            profile::forget_stream(&h.0);
        }
        after_finalize("stream")?;
        r
    })
}

/// Blocks until all work queued on `stream` (NULL: the default stream) has completed.
/// Reports a failure of any of that work.
#[unsafe(no_mangle)]
pub extern "C" fn aclrtSynchronizeStream(stream: aclrtStream) -> aclError {
    let _span = profile::HostSpan::begin("aclrtSynchronizeStream", "sync", || Detail::None);
    guard::acl("aclrtSynchronizeStream", || {
        stream_arg(stream, "stream")?.synchronize()
    })
}

/// As aclrtSynchronizeStream; `timeout` (ms, -1 = forever) is accepted and not enforced.
#[unsafe(no_mangle)]
pub extern "C" fn aclrtSynchronizeStreamWithTimeout(stream: aclrtStream, timeout: i32) -> aclError {
    let _ = timeout;
    aclrtSynchronizeStream(stream)
}

/// Whether all work queued on `stream` has completed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtStreamQuery(
    stream: aclrtStream,
    status: *mut aclrtStreamStatusRaw,
) -> aclError {
    guard::acl("aclrtStreamQuery", || {
        arg::non_null(status, "status")?;
        let idle = stream_arg(stream, "stream")?.is_idle();
        let v = if idle {
            aclrtStreamStatus::ACL_STREAM_STATUS_COMPLETE
        } else {
            aclrtStreamStatus::ACL_STREAM_STATUS_NOT_READY
        };
        unsafe { arg::write(status, "status", v as i32) }
    })
}

/// Sets what a stream does after a failing task: 0 continues, 1 stops (both report the
/// failure at the next synchronize; queued work still runs in order).
#[unsafe(no_mangle)]
pub extern "C" fn aclrtSetStreamFailureMode(stream: aclrtStream, mode: u64) -> aclError {
    guard::acl("aclrtSetStreamFailureMode", || {
        crate::ensure!(
            mode <= 1,
            "mode {mode} is not a stream failure mode (0 continue, 1 stop)"
        );
        stream_arg(stream, "stream").map(drop)
    })
}

/// Creates a context on `deviceId` and makes it current (it also opens the device, as
/// aclrtSetDevice does). Destroy it with aclrtDestroyContext.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtCreateContext(context: *mut aclrtContext, deviceId: i32) -> aclError {
    guard::acl("aclrtCreateContext", || {
        arg::non_null(context, "context")?;
        rt::set_device(deviceId)?;
        let h = handle::into_raw(ContextHandle) as usize;
        CURRENT_CONTEXT.with(|c| c.set(h));
        unsafe { arg::write(context, "context", h as aclrtContext) }
    })
}

/// Destroys a context made by aclrtCreateContext.
#[unsafe(no_mangle)]
pub extern "C" fn aclrtDestroyContext(context: aclrtContext) -> aclError {
    guard::acl("aclrtDestroyContext", || {
        arg::non_null(context, "context")?;
        handle::take(context as *mut ContextHandle, "context").map_err(bad_handle)?;
        CURRENT_CONTEXT.with(|c| {
            if c.get() == context as usize {
                c.set(0)
            }
        });
        Ok(())
    })
}

/// Makes `context` the calling thread's current context.
#[unsafe(no_mangle)]
pub extern "C" fn aclrtSetCurrentContext(context: aclrtContext) -> aclError {
    guard::acl("aclrtSetCurrentContext", || {
        // SAFETY: validated by the registry.
        unsafe { handle::borrow(context as *const ContextHandle, "context") }
            .map_err(bad_handle)?;
        CURRENT_CONTEXT.with(|c| c.set(context as usize));
        Ok(())
    })
}

/// The calling thread's current context (the device's default context once a device is set).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtGetCurrentContext(context: *mut aclrtContext) -> aclError {
    guard::acl("aclrtGetCurrentContext", || {
        arg::non_null(context, "context")?;
        let mut cur = CURRENT_CONTEXT.with(|c| c.get());
        if cur == 0 || !handle::is_live(cur as *const ContextHandle) {
            rt::require_device()?;
            static DEFAULT: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
            cur = *DEFAULT.get_or_init(|| handle::into_raw(ContextHandle) as usize);
        }
        unsafe { arg::write(context, "context", cur as aclrtContext) }
    })
}

/// Creates an event. Destroy it with aclrtDestroyEvent.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtCreateEvent(event: *mut aclrtEvent) -> aclError {
    guard::acl("aclrtCreateEvent", || {
        arg::non_null(event, "event")?;
        let h = handle::into_raw(EventHandle(Event::create()));
        unsafe { arg::write(event, "event", h as aclrtEvent) }
    })
}

/// Creates an event; `flag` is accepted and ignored.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtCreateEventWithFlag(event: *mut aclrtEvent, flag: u32) -> aclError {
    let _ = flag;
    unsafe { aclrtCreateEvent(event) }
}

/// Destroys an event.
#[unsafe(no_mangle)]
pub extern "C" fn aclrtDestroyEvent(event: aclrtEvent) -> aclError {
    guard::acl("aclrtDestroyEvent", || {
        arg::non_null(event, "event")?;
        handle::take(event as *mut EventHandle, "event")
            .map_err(bad_handle)
            .map(drop)
    })
}

/// Records the event on `stream`: it completes when the stream reaches this point.
#[unsafe(no_mangle)]
pub extern "C" fn aclrtRecordEvent(event: aclrtEvent, stream: aclrtStream) -> aclError {
    guard::acl("aclrtRecordEvent", || {
        let event = event_arg(event, "event")?;
        stream_arg(stream, "stream")?.launch(Arc::new(move |stream, dry| {
            if dry {
                return Ok(());
            }
            event.record(stream)
        }))
    })
}

/// Forgets the event's earlier records.
#[unsafe(no_mangle)]
pub extern "C" fn aclrtResetEvent(event: aclrtEvent, stream: aclrtStream) -> aclError {
    guard::acl("aclrtResetEvent", || {
        stream_arg(stream, "stream")?;
        event_arg(event, "event")?.reset()
    })
}

/// Blocks until the event's latest record has completed.
#[unsafe(no_mangle)]
pub extern "C" fn aclrtSynchronizeEvent(event: aclrtEvent) -> aclError {
    let _span = profile::HostSpan::begin("aclrtSynchronizeEvent", "sync", || {
        Detail::Event(event as usize)
    });
    guard::acl("aclrtSynchronizeEvent", || {
        event_arg(event, "event")?.synchronize()
    })
}

/// Makes work queued on `stream` after this call wait for the event's latest record.
#[unsafe(no_mangle)]
pub extern "C" fn aclrtStreamWaitEvent(stream: aclrtStream, event: aclrtEvent) -> aclError {
    guard::acl("aclrtStreamWaitEvent", || {
        let event = event_arg(event, "event")?;
        stream_arg(stream, "stream")?.launch(Arc::new(move |stream, dry| {
            if dry {
                return Ok(());
            }
            event.wait_on(stream)
        }))
    })
}

/// Whether the event's latest record has completed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtQueryEventStatus(
    event: aclrtEvent,
    status: *mut aclrtEventRecordedStatusRaw,
) -> aclError {
    guard::acl("aclrtQueryEventStatus", || {
        let done = event_arg(event, "event")?.is_complete()?;
        let v = if done {
            aclrtEventRecordedStatus::ACL_EVENT_RECORDED_STATUS_COMPLETE
        } else {
            aclrtEventRecordedStatus::ACL_EVENT_RECORDED_STATUS_NOT_READY
        };
        unsafe { arg::write(status, "status", v as i32) }
    })
}

/// Deprecated form of aclrtQueryEventStatus.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtQueryEvent(
    event: aclrtEvent,
    status: *mut aclrtEventStatusRaw,
) -> aclError {
    guard::acl("aclrtQueryEvent", || {
        let done = event_arg(event, "event")?.is_complete()?;
        let v = if done {
            aclrtEventStatus::ACL_EVENT_STATUS_COMPLETE
        } else {
            aclrtEventStatus::ACL_EVENT_STATUS_NOT_READY
        };
        unsafe { arg::write(status, "status", v as i32) }
    })
}

/// Milliseconds between two completed events.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtEventElapsedTime(
    ms: *mut f32,
    startEvent: aclrtEvent,
    endEvent: aclrtEvent,
) -> aclError {
    guard::acl("aclrtEventElapsedTime", || {
        let v = Event::elapsed_ms(
            &*event_arg(startEvent, "startEvent")?,
            &*event_arg(endEvent, "endEvent")?,
        )?;
        unsafe { arg::write(ms, "ms", v) }
    })
}

/// Allocates `size` bytes of this thread's device's memory (512-byte aligned, zeroed). Past
/// the device's capacity (ACLNN_CPU_DEVICE_MEMORY) it fails with
/// ACL_ERROR_RT_MEMORY_ALLOCATION. Free with aclrtFree.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtMalloc(
    devPtr: *mut *mut c_void,
    size: usize,
    policy: aclrtMemMallocPolicyRaw,
) -> aclError {
    guard::acl("aclrtMalloc", || {
        arg::non_null(devPtr, "devPtr")?;
        crate::ensure!(
            (0..=7).contains(&(policy & 0xff)) && policy & !0x1011ff == 0,
            "policy {policy} is not an aclrtMemMallocPolicy value"
        );
        let device = rt::require_device()?;
        let normal_only = [
            aclrtMemMallocPolicy::ACL_MEM_MALLOC_NORMAL_ONLY as u32,
            aclrtMemMallocPolicy::ACL_MEM_MALLOC_NORMAL_ONLY_P2P as u32,
        ]
        .contains(&(policy as u32 & 0xff));
        let pages = if normal_only {
            Pages::Normal
        } else {
            Pages::Huge
        };
        let p = memory::allocate_on(size, Space::Device, device, pages)?;
        unsafe { arg::write(devPtr, "devPtr", p as *mut c_void) }
    })
}

/// Frees device memory from aclrtMalloc, after the device's queued work has finished
/// (so no queued kernel can touch freed memory).
#[unsafe(no_mangle)]
pub extern "C" fn aclrtFree(devPtr: *mut c_void) -> aclError {
    guard::acl("aclrtFree", || {
        arg::non_null(devPtr, "devPtr")?;
        usage::free_when_unused(devPtr as usize, || {
            memory::release(devPtr as *mut u8, Space::Device)
        })
    })
}

/// Allocates host memory. Free with aclrtFreeHost.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtMallocHost(hostPtr: *mut *mut c_void, size: usize) -> aclError {
    guard::acl("aclrtMallocHost", || {
        arg::non_null(hostPtr, "hostPtr")?;
        let p = memory::allocate(size, Space::Host, Pages::Normal)?;
        unsafe { arg::write(hostPtr, "hostPtr", p as *mut c_void) }
    })
}

/// Frees host memory from aclrtMallocHost.
#[unsafe(no_mangle)]
pub extern "C" fn aclrtFreeHost(hostPtr: *mut c_void) -> aclError {
    guard::acl("aclrtFreeHost", || {
        arg::non_null(hostPtr, "hostPtr")?;
        usage::free_when_unused(hostPtr as usize, || {
            memory::release(hostPtr as *mut u8, Space::Host)
        })
    })
}

/// Copies `count` bytes synchronously. `destMax` is the capacity of `dst`; count > destMax
/// is an error. Every kind is a plain copy on the CPU device.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtMemcpy(
    dst: *mut c_void,
    destMax: usize,
    src: *const c_void,
    count: usize,
    kind: aclrtMemcpyKindRaw,
) -> aclError {
    let _span = profile::HostSpan::begin("aclrtMemcpy", "memcpy", || Detail::Bytes(count));
    guard::acl("aclrtMemcpy", || {
        memory::check_memcpy_kind(kind)?;
        memory::check_copy(dst as usize, destMax, src as usize, count)?;
        misuse::copy("aclrtMemcpy", dst as usize, src as usize, count, false)?;
        // SAFETY: the caller promises both ranges are valid for `count` bytes.
        unsafe { memory::copy(dst as usize, src as usize, count) };
        Ok(())
    })
}

/// Queues a copy on `stream`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtMemcpyAsync(
    dst: *mut c_void,
    destMax: usize,
    src: *const c_void,
    count: usize,
    kind: aclrtMemcpyKindRaw,
    stream: aclrtStream,
) -> aclError {
    guard::acl("aclrtMemcpyAsync", || {
        memory::check_memcpy_kind(kind)?;
        memory::check_copy(dst as usize, destMax, src as usize, count)?;
        let (d, s) = (dst as usize, src as usize);
        let held = held_by(&[d, s]);
        stream_arg(stream, "stream")?.launch(Arc::new(move |stream, dry| {
            still_held("aclrtMemcpyAsync", &held)?;
            let ticket = misuse::copy("aclrtMemcpyAsync", d, s, count, true)?;
            if dry {
                return Ok(());
            }
            let copy = move || {
                // SAFETY: the caller keeps both ranges valid until the stream is synchronized.
                unsafe { memory::copy(d, s, count) };
                Ok(())
            };
            if profile::on() {
                let copy = profile::on_stream(
                    stream,
                    "aclrtMemcpyAsync",
                    "memcpy",
                    Detail::Bytes(count),
                    copy,
                );
                return stream.enqueue(Box::new(ticket.wrap("aclrtMemcpyAsync", copy)));
            }
            stream.enqueue(Box::new(ticket.wrap("aclrtMemcpyAsync", copy)))
        }))
    })
}

/// The tracked allocations holding `ptrs` when an async copy is launched (or captured):
/// (pointer, allocation id).
fn held_by(ptrs: &[usize]) -> Vec<(usize, u64)> {
    ptrs.iter()
        .filter_map(|&p| memory::find(p).map(|a| (p, a.id)))
        .collect()
}

/// A replayed copy must find each of its device pointers in the allocation it was captured
/// with: memory freed since (which would otherwise look like host memory) is refused.
fn still_held(api: &str, held: &[(usize, u64)]) -> Result<()> {
    for &(p, id) in held {
        if !memory::find(p).is_some_and(|a| a.id == id) {
            return Err(Error::runtime(
                acl::ACL_ERROR_INVALID_PARAM,
                format!("{api}: device memory {p:#x} was freed after this copy was captured"),
            ));
        }
    }
    Ok(())
}

/// Sets `count` bytes at `devPtr` to `(uint8_t)value`; count > maxCount is an error.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtMemset(
    devPtr: *mut c_void,
    maxCount: usize,
    value: i32,
    count: usize,
) -> aclError {
    let _span = profile::HostSpan::begin("aclrtMemset", "memcpy", || Detail::Bytes(count));
    guard::acl("aclrtMemset", || {
        memory::check_copy(devPtr as usize, maxCount, 1, count)?;
        misuse::copy("aclrtMemset", devPtr as usize, 0, count, false)?;
        // SAFETY: the caller promises the range is valid for `count` bytes.
        unsafe { memory::set(devPtr as usize, value, count) };
        Ok(())
    })
}

/// Queues a memset on `stream`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtMemsetAsync(
    devPtr: *mut c_void,
    maxCount: usize,
    value: i32,
    count: usize,
    stream: aclrtStream,
) -> aclError {
    guard::acl("aclrtMemsetAsync", || {
        memory::check_copy(devPtr as usize, maxCount, 1, count)?;
        let d = devPtr as usize;
        let held = held_by(&[d]);
        stream_arg(stream, "stream")?.launch(Arc::new(move |stream, dry| {
            still_held("aclrtMemsetAsync", &held)?;
            let ticket = misuse::copy("aclrtMemsetAsync", d, 0, count, true)?;
            if dry {
                return Ok(());
            }
            let set = move || {
                // SAFETY: the caller keeps the range valid until the stream is synchronized.
                unsafe { memory::set(d, value, count) };
                Ok(())
            };
            if profile::on() {
                let set = profile::on_stream(
                    stream,
                    "aclrtMemsetAsync",
                    "memcpy",
                    Detail::Bytes(count),
                    set,
                );
                return stream.enqueue(Box::new(ticket.wrap("aclrtMemsetAsync", set)));
            }
            stream.enqueue(Box::new(ticket.wrap("aclrtMemsetAsync", set)))
        }))
    })
}

/// Free and total bytes of this thread's device's memory: its capacity
/// (ACLNN_CPU_DEVICE_MEMORY, default 64 GiB) less what is allocated on it.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtGetMemInfo(
    attr: aclrtMemAttrRaw,
    free: *mut usize,
    total: *mut usize,
) -> aclError {
    guard::acl("aclrtGetMemInfo", || {
        crate::ensure!(
            (0..=17).contains(&attr),
            "attr {attr} is not an aclrtMemAttr value"
        );
        arg::non_null(free, "free")?;
        arg::non_null(total, "total")?;
        let (f, t) = memory::mem_info(rt::require_device()?);
        unsafe {
            arg::write(free, "free", f)?;
            arg::write(total, "total", t)
        }
    })
}
