//! `acl/acl_prof.h`: the aclprof C API CANN programs use to start and stop profiling, with
//! CANN's prototypes and enums. The profile itself is `crate::profile`: a Chrome trace event
//! file and an op summary CSV written into the directory given to aclprofInit, one pair per
//! aclprofStart..aclprofStop:
//! `<dir>/aclnn_cpu_trace_<pid>_<n>.json` and `<dir>/aclnn_cpu_trace_<pid>_<n>.op_summary.csv`.
//!
//! Order CANN requires, and what breaking it returns: aclprofInit once (again:
//! ACL_ERROR_REPEAT_INITIALIZE; while ACLNN_CPU_PROFILE is set, which plays msprof's
//! command-line role: ACL_ERROR_PROF_API_CONFLICT), aclprofCreateConfig, aclprofStart
//! (before aclprofInit: ACL_ERROR_UNINITIALIZE; twice: ACL_ERROR_PROF_ALREADY_RUN),
//! aclprofStop with the same config (not started: ACL_ERROR_PROF_NOT_RUN),
//! aclprofDestroyConfig, aclprofFinalize (a running profile is stopped and written first).
//! The AI Core metrics and data-type switches are validated and recorded in the log; every
//! run records the whole timeline. Model subscription, its op-info readers and step info
//! are declared and refuse with ACL_ERROR_FEATURE_UNSUPPORTED. The msproftx calls (stamps, marks, push/pop, ranges) draw
//! on the calling thread's track.

use super::arg;
use super::base::{
    aclError, aclrtStream, ACL_ERROR_PROF_ALREADY_RUN, ACL_ERROR_PROF_API_CONFLICT,
    ACL_ERROR_PROF_NOT_RUN, ACL_ERROR_REPEAT_INITIALIZE,
};
use super::guard;
use super::handle::{self, Handle};
use super::runtime::stream_arg;
use crate::error::{acl, Error, Result};
use crate::profile::{self, Detail};
use std::ffi::c_char;
use std::path::PathBuf;
use std::sync::{Mutex, MutexGuard};

pub const ACL_PROF_ACL_API: u64 = 0x00000001;
pub const ACL_PROF_TASK_TIME: u64 = 0x00000002;
pub const ACL_PROF_AICORE_METRICS: u64 = 0x00000004;
pub const ACL_PROF_AICPU: u64 = 0x00000008;
pub const ACL_PROF_L2CACHE: u64 = 0x00000010;
pub const ACL_PROF_HCCL_TRACE: u64 = 0x00000020;
pub const ACL_PROF_TRAINING_TRACE: u64 = 0x00000040;
pub const ACL_PROF_MSPROFTX: u64 = 0x00000080;
pub const ACL_PROF_RUNTIME_API: u64 = 0x00000100;
pub const ACL_PROF_TASK_TIME_L0: u64 = 0x00000800;
pub const ACL_PROF_TASK_MEMORY: u64 = 0x00001000;
pub const ACL_PROF_OP_ATTR: u64 = 0x00004000;

pub const ACL_PROF_MAX_OP_NAME_LEN: u32 = 257;
pub const ACL_PROF_MAX_OP_TYPE_LEN: u32 = 65;

/// Every data-type switch CANN's header defines.
const KNOWN_DATA_TYPES: u64 = ACL_PROF_ACL_API
    | ACL_PROF_TASK_TIME
    | ACL_PROF_AICORE_METRICS
    | ACL_PROF_AICPU
    | ACL_PROF_L2CACHE
    | ACL_PROF_HCCL_TRACE
    | ACL_PROF_TRAINING_TRACE
    | ACL_PROF_MSPROFTX
    | ACL_PROF_RUNTIME_API
    | ACL_PROF_TASK_TIME_L0
    | ACL_PROF_TASK_MEMORY
    | ACL_PROF_OP_ATTR;

/// The longest result path aclprofInit accepts (CANN's limit).
const MAX_PATH_LEN: usize = 4096;
/// The longest message a stamp or mark carries.
const MAX_MESSAGE_LEN: usize = 128;

/// AI Core metrics to collect (validated; the CPU device has no AI Core counters).
#[repr(C)]
#[allow(dead_code)]
pub enum aclprofAicoreMetrics {
    ACL_AICORE_ARITHMETIC_UTILIZATION = 0,
    ACL_AICORE_PIPE_UTILIZATION = 1,
    ACL_AICORE_MEMORY_BANDWIDTH = 2,
    ACL_AICORE_L0B_AND_WIDTH = 3,
    ACL_AICORE_RESOURCE_CONFLICT_RATIO = 4,
    ACL_AICORE_MEMORY_UB = 5,
    ACL_AICORE_L2_CACHE = 6,
    ACL_AICORE_PIPE_EXECUTE_UTILIZATION = 7,
    ACL_AICORE_MEMORY_ACCESS = 8,
    ACL_AICORE_NONE = 0xFF,
}

#[repr(C)]
#[allow(dead_code)]
pub enum aclprofStepTag {
    ACL_STEP_START = 0,
    ACL_STEP_END = 1,
}

/// aclprofSetConfig's settings (accepted and logged).
#[repr(C)]
#[allow(dead_code)]
pub enum aclprofConfigType {
    ACL_PROF_ARGS_MIN = 0,
    ACL_PROF_STORAGE_LIMIT,
    ACL_PROF_AIV_METRICS,
    ACL_PROF_SYS_HARDWARE_MEM_FREQ,
    ACL_PROF_LLC_MODE,
    ACL_PROF_SYS_IO_FREQ,
    ACL_PROF_SYS_INTERCONNECTION_FREQ,
    ACL_PROF_DVPP_FREQ,
    ACL_PROF_HOST_SYS,
    ACL_PROF_HOST_SYS_USAGE,
    ACL_PROF_HOST_SYS_USAGE_FREQ,
    ACL_PROF_ARGS_MAX,
}

/// An aclprofAicoreMetrics value as it arrives from C (validated before use).
pub type aclprofAicoreMetricsRaw = i32;
/// An aclprofConfigType value as it arrives from C (validated before use).
pub type aclprofConfigTypeRaw = i32;
/// An aclprofStepTag value as it arrives from C.
pub type aclprofStepTagRaw = i32;

/// What to profile: made by aclprofCreateConfig, passed to aclprofStart and aclprofStop.
pub struct aclprofConfig {
    devices: Vec<u32>,
    metrics: i32,
    data_types: u64,
}
impl Handle for aclprofConfig {
    const KIND: &'static str = "aclprofConfig";
}

/// AI Core events to count (CANN declares it opaque; no function here makes one).
pub struct aclprofAicoreEvents {
    _private: u8,
}

/// Declared opaque by CANN's header for calls this library does not provide (model
/// subscription, step info, stop configs).
pub struct aclprofStopConfig {
    _private: u8,
}
pub struct aclprofSubscribeConfig {
    _private: u8,
}
pub struct aclprofStepInfo {
    _private: u8,
}

/// A msproftx stamp: a message for aclprofMark, aclprofPush and aclprofRangeStart.
pub struct Stamp {
    message: String,
}
impl Handle for Stamp {
    const KIND: &'static str = "aclprofStamp";
}

#[derive(Default)]
struct State {
    /// The result directory from aclprofInit.
    dir: Option<PathBuf>,
    /// The config of the profile running (aclprofStart..aclprofStop), by address.
    running: Option<usize>,
    /// Profiles started so far (the file number).
    runs: u32,
    /// Open ranges: id -> (name, start).
    ranges: Vec<(u32, String, u64)>,
    next_range: u32,
}

static STATE: Mutex<State> = Mutex::new(State {
    dir: None,
    running: None,
    runs: 0,
    ranges: Vec::new(),
    next_range: 0,
});

fn state() -> MutexGuard<'static, State> {
    STATE.lock().unwrap_or_else(|e| e.into_inner())
}

thread_local! {
    /// aclprofPush's open spans on this thread: (message, start).
    static PUSHED: std::cell::RefCell<Vec<(String, u64)>> = const { std::cell::RefCell::new(Vec::new()) };
}

fn invalid(msg: impl Into<String>) -> Error {
    Error::runtime(acl::ACL_ERROR_INVALID_PARAM, msg)
}

/// A C string of at most `len` bytes (stopping at a NUL), as UTF-8 (lossy).
///
/// # Safety
/// A non-NULL `p` must be readable up to its NUL or `len` bytes.
unsafe fn bounded_str(p: *const c_char, len: usize, name: &'static str) -> Result<String> {
    arg::non_null(p, name)?;
    let mut n = 0;
    // SAFETY: the caller's contract: readable up to the NUL or `len` bytes.
    while n < len && unsafe { *p.add(n) } != 0 {
        n += 1;
    }
    let bytes = unsafe { std::slice::from_raw_parts(p as *const u8, n) };
    Ok(String::from_utf8_lossy(bytes).into_owned())
}

/// Initialises profiling with `profilerResultPath` (`length` bytes at most) as the directory
/// the profiles are written to; it is created if absent.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclprofInit(profilerResultPath: *const c_char, length: usize) -> aclError {
    guard::acl("aclprofInit", || {
        arg::non_null(profilerResultPath, "profilerResultPath")?;
        if length == 0 || length > MAX_PATH_LEN {
            return Err(invalid(format!(
                "length {length} must be in [1, {MAX_PATH_LEN}] (the length of profilerResultPath)"
            )));
        }
        let path = unsafe { bounded_str(profilerResultPath, length, "profilerResultPath") }?;
        if path.is_empty() {
            return Err(invalid("profilerResultPath is an empty string"));
        }
        if std::env::var_os(profile::PROFILE_ENV).is_some_and(|v| !v.is_empty()) {
            return Err(Error::runtime(
                ACL_ERROR_PROF_API_CONFLICT,
                format!("profiling is already on through {} (the command-line switch); the aclprof API cannot be used with it", profile::PROFILE_ENV),
            ));
        }
        let mut st = state();
        if st.dir.is_some() {
            return Err(Error::runtime(
                ACL_ERROR_REPEAT_INITIALIZE,
                "aclprofInit was already called (call aclprofFinalize first)",
            ));
        }
        std::fs::create_dir_all(&path).map_err(|e| {
            invalid(format!(
                "profilerResultPath '{path}' cannot be created as a directory: {e}"
            ))
        })?;
        log::info!(target: crate::plog::PROFILING, "aclprofInit: profiles go to {path}");
        st.dir = Some(PathBuf::from(path));
        Ok(())
    })
}

/// Sets a profiling option. The CPU device has no such collectors: the value is checked
/// (a known type, not NULL) and logged.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclprofSetConfig(
    configType: aclprofConfigTypeRaw,
    config: *const c_char,
    configLength: usize,
) -> aclError {
    guard::acl("aclprofSetConfig", || {
        let max = aclprofConfigType::ACL_PROF_ARGS_MAX as i32;
        if configType <= 0 || configType >= max {
            return Err(invalid(format!(
                "configType {configType} is not an aclprofConfigType value in (0, {max})"
            )));
        }
        let value = unsafe { bounded_str(config, configLength, "config") }?;
        log::info!(target: crate::plog::PROFILING, "aclprofSetConfig: type {configType} = '{value}' (accepted, not used by the CPU device)");
        Ok(())
    })
}

/// Ends profiling: a profile still running is stopped and written, the directory forgotten.
#[unsafe(no_mangle)]
pub extern "C" fn aclprofFinalize() -> aclError {
    guard::acl("aclprofFinalize", || {
        let mut st = state();
        if st.dir.is_none() {
            return Err(Error::runtime(
                acl::ACL_ERROR_UNINITIALIZE,
                "aclprofFinalize without aclprofInit",
            ));
        }
        let r = if st.running.take().is_some() {
            write_profile()
        } else {
            Ok(())
        };
        st.dir = None;
        st.ranges.clear();
        r
    })
}

fn write_profile() -> Result<()> {
    match profile::stop() {
        Ok(_) => Ok(()),
        Err(e) => Err(Error::runtime(
            acl::ACL_ERROR_INTERNAL_ERROR,
            format!("the profile cannot be written: {e}"),
        )),
    }
}

/// Makes a profiling configuration for the devices listed. NULL on error (the message:
/// aclGetRecentErrMsg).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclprofCreateConfig(
    deviceIdList: *mut u32,
    deviceNums: u32,
    aicoreMetrics: aclprofAicoreMetricsRaw,
    aicoreEvents: *const aclprofAicoreEvents,
    dataTypeConfig: u64,
) -> *mut aclprofConfig {
    let _ = aicoreEvents;
    guard::ptr("aclprofCreateConfig", || {
        let devices =
            unsafe { arg::slice(deviceIdList, deviceNums as u64, "deviceIdList") }?.to_vec();
        let count = crate::runtime::device::count();
        if let Some(d) = devices.iter().find(|&&d| d >= count) {
            return Err(invalid(format!(
                "deviceIdList holds device {d}, but there are {count} device(s)"
            )));
        }
        if !((0..=8).contains(&aicoreMetrics) || aicoreMetrics == 0xFF) {
            return Err(invalid(format!(
                "aicoreMetrics {aicoreMetrics} is not an aclprofAicoreMetrics value"
            )));
        }
        let unknown = dataTypeConfig & !KNOWN_DATA_TYPES;
        if unknown != 0 {
            return Err(invalid(format!("dataTypeConfig {dataTypeConfig:#x} has switches acl_prof.h does not define: {unknown:#x}")));
        }
        Ok(handle::into_raw(aclprofConfig {
            devices,
            metrics: aicoreMetrics,
            data_types: dataTypeConfig,
        }))
    })
}

/// Destroys a configuration from aclprofCreateConfig.
#[unsafe(no_mangle)]
pub extern "C" fn aclprofDestroyConfig(profilerConfig: *const aclprofConfig) -> aclError {
    guard::acl("aclprofDestroyConfig", || {
        arg::non_null(profilerConfig, "profilerConfig")?;
        if state().running == Some(profilerConfig as usize) {
            return Err(invalid(
                "profilerConfig is the config of the profile running: call aclprofStop first",
            ));
        }
        handle::destroy(profilerConfig as *mut aclprofConfig, "profilerConfig")
    })
}

fn config_arg<'a>(c: *const aclprofConfig) -> Result<&'a aclprofConfig> {
    arg::non_null(c, "profilerConfig")?;
    // SAFETY: validated as a live aclprofConfig by the handle registry.
    unsafe { handle::borrow(c, "profilerConfig") }
}

/// Starts recording the timeline.
#[unsafe(no_mangle)]
pub extern "C" fn aclprofStart(profilerConfig: *const aclprofConfig) -> aclError {
    guard::acl("aclprofStart", || {
        let cfg = config_arg(profilerConfig)?;
        let mut st = state();
        let Some(dir) = st.dir.clone() else {
            return Err(Error::runtime(
                acl::ACL_ERROR_UNINITIALIZE,
                "aclprofStart before aclprofInit",
            ));
        };
        if st.running.is_some() {
            return Err(Error::runtime(
                ACL_ERROR_PROF_ALREADY_RUN,
                "a profile is already running (aclprofStart twice without aclprofStop)",
            ));
        }
        st.runs += 1;
        st.running = Some(profilerConfig as usize);
        let out = dir.join(format!(
            "aclnn_cpu_trace_{}_{}.json",
            std::process::id(),
            st.runs
        ));
        log::info!(target: crate::plog::PROFILING,
            "aclprofStart: devices {:?}, aicoreMetrics {}, dataTypeConfig {:#x}; writing {} at aclprofStop",
            cfg.devices, cfg.metrics, cfg.data_types, out.display());
        profile::start(out);
        Ok(())
    })
}

/// Stops recording and writes the trace and the op summary.
#[unsafe(no_mangle)]
pub extern "C" fn aclprofStop(profilerConfig: *const aclprofConfig) -> aclError {
    guard::acl("aclprofStop", || {
        config_arg(profilerConfig)?;
        let mut st = state();
        match st.running {
            None => {
                return Err(Error::runtime(
                    ACL_ERROR_PROF_NOT_RUN,
                    "no profile is running (aclprofStop without aclprofStart)",
                ))
            }
            Some(c) if c != profilerConfig as usize => {
                return Err(invalid(
                    "profilerConfig is not the config the running profile was started with",
                ))
            }
            Some(_) => {}
        }
        st.running = None;
        write_profile()
    })
}

/// Marks a point in the timeline with `msg` (`msgLen` bytes at most), on the calling
/// thread's track and, when the stream reaches it, on `stream`'s.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclprofMarkEx(
    msg: *const c_char,
    msgLen: usize,
    stream: aclrtStream,
) -> aclError {
    guard::acl("aclprofMarkEx", || {
        if msgLen == 0 || msgLen > MAX_MESSAGE_LEN {
            return Err(invalid(format!(
                "msgLen {msgLen} must be in [1, {MAX_MESSAGE_LEN}]"
            )));
        }
        let text = unsafe { bounded_str(msg, msgLen, "msg") }?;
        let stream = stream_arg(stream, "stream")?;
        if profile::on() {
            profile::host_instant("aclprofMarkEx", Detail::Message(text.clone()));
            let key = profile::stream_key(&stream);
            profile::stream_seen(&stream);
            stream.enqueue(Box::new(move || {
                profile::stream_instant(key, "aclprofMarkEx", Detail::Message(text));
                Ok(())
            }))?;
        }
        Ok(())
    })
}

/// Makes a msproftx stamp (a message holder). NULL on error.
#[unsafe(no_mangle)]
pub extern "C" fn aclprofCreateStamp() -> *mut std::ffi::c_void {
    guard::ptr("aclprofCreateStamp", || {
        Ok(handle::into_raw(Stamp {
            message: String::new(),
        }) as *mut std::ffi::c_void)
    })
}

/// Destroys a stamp from aclprofCreateStamp (NULL or a stale stamp: nothing happens, as the
/// function returns nothing; the message says why).
#[unsafe(no_mangle)]
pub extern "C" fn aclprofDestroyStamp(stamp: *mut std::ffi::c_void) {
    guard::guard(
        "aclprofDestroyStamp",
        |_| (),
        || {
            arg::non_null(stamp, "stamp")?;
            handle::destroy(stamp as *mut Stamp, "stamp")
        },
    )
}

fn stamp_message(stamp: *mut std::ffi::c_void) -> Result<String> {
    arg::non_null(stamp, "stamp")?;
    // SAFETY: validated as a live stamp by the handle registry.
    Ok(unsafe { handle::borrow(stamp as *const Stamp, "stamp") }?
        .message
        .clone())
}

/// Sets the stamp's message (`msgLen` bytes at most, up to 128).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclprofSetStampTraceMessage(
    stamp: *mut std::ffi::c_void,
    msg: *const c_char,
    msgLen: u32,
) -> aclError {
    guard::acl("aclprofSetStampTraceMessage", || {
        arg::non_null(stamp, "stamp")?;
        if msgLen == 0 || msgLen as usize > MAX_MESSAGE_LEN {
            return Err(invalid(format!(
                "msgLen {msgLen} must be in [1, {MAX_MESSAGE_LEN}]"
            )));
        }
        let text = unsafe { bounded_str(msg, msgLen as usize, "msg") }?;
        // SAFETY: validated as a live stamp by the handle registry.
        unsafe { handle::borrow_mut(stamp as *mut Stamp, "stamp") }?.message = text;
        Ok(())
    })
}

/// Marks this moment on the calling thread's track with the stamp's message.
#[unsafe(no_mangle)]
pub extern "C" fn aclprofMark(stamp: *mut std::ffi::c_void) -> aclError {
    guard::acl("aclprofMark", || {
        let m = stamp_message(stamp)?;
        if profile::on() {
            profile::host_instant("aclprofMark", Detail::Message(m));
        }
        Ok(())
    })
}

/// Opens a span on the calling thread with the stamp's message; aclprofPop closes it.
#[unsafe(no_mangle)]
pub extern "C" fn aclprofPush(stamp: *mut std::ffi::c_void) -> aclError {
    guard::acl("aclprofPush", || {
        let m = stamp_message(stamp)?;
        PUSHED.with(|p| p.borrow_mut().push((m, profile::now())));
        Ok(())
    })
}

/// Closes the calling thread's latest aclprofPush span.
#[unsafe(no_mangle)]
pub extern "C" fn aclprofPop() -> aclError {
    guard::acl("aclprofPop", || {
        let (m, start) = PUSHED
            .with(|p| p.borrow_mut().pop())
            .ok_or_else(|| invalid("aclprofPop without a matching aclprofPush on this thread"))?;
        if profile::on() {
            profile::host_span("aclprofPush", "msproftx", start, Detail::Message(m));
        }
        Ok(())
    })
}

/// Opens a range (any thread may close it) with the stamp's message; writes its id.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclprofRangeStart(
    stamp: *mut std::ffi::c_void,
    rangeId: *mut u32,
) -> aclError {
    guard::acl("aclprofRangeStart", || {
        let m = stamp_message(stamp)?;
        arg::non_null(rangeId, "rangeId")?;
        let mut st = state();
        st.next_range = st.next_range.wrapping_add(1);
        let id = st.next_range;
        st.ranges.push((id, m, profile::now()));
        unsafe { arg::write(rangeId, "rangeId", id) }
    })
}

/// Closes a range from aclprofRangeStart: a span on the calling thread's track.
#[unsafe(no_mangle)]
pub extern "C" fn aclprofRangeStop(rangeId: u32) -> aclError {
    guard::acl("aclprofRangeStop", || {
        let mut st = state();
        let i = st
            .ranges
            .iter()
            .position(|r| r.0 == rangeId)
            .ok_or_else(|| {
                invalid(format!(
                    "rangeId {rangeId} is not an open range (from aclprofRangeStart)"
                ))
            })?;
        let (_, m, start) = st.ranges.remove(i);
        drop(st);
        if profile::on() {
            profile::host_span("aclprofRange", "msproftx", start, Detail::Message(m));
        }
        Ok(())
    })
}

// ---------------------------------------------------------------- not provided
//
// Model subscription (op timings delivered through a pipe) and step info need a model
// runtime this library does not have. The calls exist so CANN programs link, and refuse
// with ACL_ERROR_FEATURE_UNSUPPORTED and a message naming the call; the op-info readers,
// which only read subscription records, refuse the same way (or return 0 / NULL where the
// prototype has no status).

fn unsupported(what: &str) -> Result<()> {
    Err(Error::runtime(
        super::base::ACL_ERROR_FEATURE_UNSUPPORTED,
        format!("{what} is not provided by aclnn-cpu (no model subscription); use aclprofStart/aclprofStop for a timeline"),
    ))
}

/// Not provided: ACL_ERROR_FEATURE_UNSUPPORTED.
#[unsafe(no_mangle)]
pub extern "C" fn aclprofModelSubscribe(
    modelId: u32,
    profSubscribeConfig: *const aclprofSubscribeConfig,
) -> aclError {
    let _ = (modelId, profSubscribeConfig);
    guard::acl("aclprofModelSubscribe", || {
        unsupported("model subscription")
    })
}

/// Not provided: ACL_ERROR_FEATURE_UNSUPPORTED.
#[unsafe(no_mangle)]
pub extern "C" fn aclprofModelUnSubscribe(modelId: u32) -> aclError {
    let _ = modelId;
    guard::acl("aclprofModelUnSubscribe", || {
        unsupported("model subscription")
    })
}

/// Not provided: NULL (the message: aclGetRecentErrMsg).
#[unsafe(no_mangle)]
pub extern "C" fn aclprofCreateSubscribeConfig(
    timeInfoSwitch: i8,
    aicoreMetrics: aclprofAicoreMetricsRaw,
    fd: *mut std::ffi::c_void,
) -> *mut aclprofSubscribeConfig {
    let _ = (timeInfoSwitch, aicoreMetrics, fd);
    guard::ptr("aclprofCreateSubscribeConfig", || {
        unsupported("model subscription").map(|()| std::ptr::null_mut())
    })
}

/// Not provided: ACL_ERROR_FEATURE_UNSUPPORTED.
#[unsafe(no_mangle)]
pub extern "C" fn aclprofDestroySubscribeConfig(
    profSubscribeConfig: *const aclprofSubscribeConfig,
) -> aclError {
    let _ = profSubscribeConfig;
    guard::acl("aclprofDestroySubscribeConfig", || {
        unsupported("model subscription")
    })
}

/// Not provided: ACL_ERROR_FEATURE_UNSUPPORTED.
#[unsafe(no_mangle)]
pub extern "C" fn aclprofGetOpDescSize(opDescSize: *mut usize) -> aclError {
    let _ = opDescSize;
    guard::acl("aclprofGetOpDescSize", || {
        unsupported("subscription op info")
    })
}

/// Not provided: ACL_ERROR_FEATURE_UNSUPPORTED.
#[unsafe(no_mangle)]
pub extern "C" fn aclprofGetOpNum(
    opInfo: *const std::ffi::c_void,
    opInfoLen: usize,
    opNumber: *mut u32,
) -> aclError {
    let _ = (opInfo, opInfoLen, opNumber);
    guard::acl("aclprofGetOpNum", || unsupported("subscription op info"))
}

/// Not provided: ACL_ERROR_FEATURE_UNSUPPORTED.
#[unsafe(no_mangle)]
pub extern "C" fn aclprofGetOpTypeLen(
    opInfo: *const std::ffi::c_void,
    opInfoLen: usize,
    index: u32,
    opTypeLen: *mut usize,
) -> aclError {
    let _ = (opInfo, opInfoLen, index, opTypeLen);
    guard::acl("aclprofGetOpTypeLen", || {
        unsupported("subscription op info")
    })
}

/// Not provided: ACL_ERROR_FEATURE_UNSUPPORTED.
#[unsafe(no_mangle)]
pub extern "C" fn aclprofGetOpType(
    opInfo: *const std::ffi::c_void,
    opInfoLen: usize,
    index: u32,
    opType: *mut c_char,
    opTypeLen: usize,
) -> aclError {
    let _ = (opInfo, opInfoLen, index, opType, opTypeLen);
    guard::acl("aclprofGetOpType", || unsupported("subscription op info"))
}

/// Not provided: ACL_ERROR_FEATURE_UNSUPPORTED.
#[unsafe(no_mangle)]
pub extern "C" fn aclprofGetOpNameLen(
    opInfo: *const std::ffi::c_void,
    opInfoLen: usize,
    index: u32,
    opNameLen: *mut usize,
) -> aclError {
    let _ = (opInfo, opInfoLen, index, opNameLen);
    guard::acl("aclprofGetOpNameLen", || {
        unsupported("subscription op info")
    })
}

/// Not provided: ACL_ERROR_FEATURE_UNSUPPORTED.
#[unsafe(no_mangle)]
pub extern "C" fn aclprofGetOpName(
    opInfo: *const std::ffi::c_void,
    opInfoLen: usize,
    index: u32,
    opName: *mut c_char,
    opNameLen: usize,
) -> aclError {
    let _ = (opInfo, opInfoLen, index, opName, opNameLen);
    guard::acl("aclprofGetOpName", || unsupported("subscription op info"))
}

/// Not provided: 0 (the message: aclGetRecentErrMsg).
#[unsafe(no_mangle)]
pub extern "C" fn aclprofGetOpStart(
    opInfo: *const std::ffi::c_void,
    opInfoLen: usize,
    index: u32,
) -> u64 {
    let _ = (opInfo, opInfoLen, index);
    guard::guard(
        "aclprofGetOpStart",
        |_| 0,
        || unsupported("subscription op info").map(|()| 0),
    )
}

/// Not provided: 0 (the message: aclGetRecentErrMsg).
#[unsafe(no_mangle)]
pub extern "C" fn aclprofGetOpEnd(
    opInfo: *const std::ffi::c_void,
    opInfoLen: usize,
    index: u32,
) -> u64 {
    let _ = (opInfo, opInfoLen, index);
    guard::guard(
        "aclprofGetOpEnd",
        |_| 0,
        || unsupported("subscription op info").map(|()| 0),
    )
}

/// Not provided: 0 (the message: aclGetRecentErrMsg).
#[unsafe(no_mangle)]
pub extern "C" fn aclprofGetOpDuration(
    opInfo: *const std::ffi::c_void,
    opInfoLen: usize,
    index: u32,
) -> u64 {
    let _ = (opInfo, opInfoLen, index);
    guard::guard(
        "aclprofGetOpDuration",
        |_| 0,
        || unsupported("subscription op info").map(|()| 0),
    )
}

/// Not provided: 0 (the message: aclGetRecentErrMsg).
#[unsafe(no_mangle)]
pub extern "C" fn aclprofGetModelId(
    opInfo: *const std::ffi::c_void,
    opInfoLen: usize,
    index: u32,
) -> usize {
    let _ = (opInfo, opInfoLen, index);
    guard::guard(
        "aclprofGetModelId",
        |_| 0,
        || unsupported("subscription op info").map(|()| 0),
    )
}

/// Not provided: ACL_ERROR_FEATURE_UNSUPPORTED.
#[unsafe(no_mangle)]
pub extern "C" fn aclprofGetStepTimestamp(
    stepInfo: *mut aclprofStepInfo,
    tag: aclprofStepTagRaw,
    stream: aclrtStream,
) -> aclError {
    let _ = (stepInfo, tag, stream);
    guard::acl("aclprofGetStepTimestamp", || unsupported("step info"))
}

/// Not provided: NULL (the message: aclGetRecentErrMsg).
#[unsafe(no_mangle)]
pub extern "C" fn aclprofCreateStepInfo() -> *mut aclprofStepInfo {
    guard::ptr("aclprofCreateStepInfo", || {
        unsupported("step info").map(|()| std::ptr::null_mut())
    })
}

/// Not provided: does nothing (no step info can exist).
#[unsafe(no_mangle)]
pub extern "C" fn aclprofDestroyStepInfo(stepinfo: *mut aclprofStepInfo) {
    let _ = stepinfo;
}
