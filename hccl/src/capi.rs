//! The exported entry points of hccl/hccl.h. Each runs inside `entry` (panics caught; an
//! error is returned as its HcclResult and recorded as "<api>: <message>" for
//! aclGetRecentErrMsg and the log), checks its arguments in HCCL's order (pointers, count,
//! dtype, op, ranks), checks every buffer against the device memory of the communicator's
//! device, and queues the work on the stream.
#![allow(non_snake_case, clippy::missing_safety_doc, clippy::too_many_arguments)]

use crate::acl;
use crate::comm::{self, Comm, RootInfo, COMM_NAME_MAX, ROOT_INFO_BYTES};
use crate::dtype::{check_dtype, check_op, DType, Use};
use crate::engine::{Desc, Group, Kind, Transfer};
use crate::error::*;
use std::ffi::{c_char, c_void};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::Ordering;
use std::sync::Arc;

type HcclComm = *mut c_void;
type AclStream = *mut c_void;

/// What the stream reports at its next synchronize when HCCL work on it failed
/// (ACL_ERROR_RT_INTERNAL_ERROR); HcclGetCommAsyncError gives the HCCL code.
const STREAM_FAILURE: i32 = 507000;

fn entry(api: &str, body: impl FnOnce() -> Result<()>) -> i32 {
    let e = match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => return HCCL_SUCCESS,
        Ok(Err(e)) => e,
        Err(_) => HcclError::new(HCCL_E_INTERNAL, "internal error (a panic)"),
    };
    acl::report(api, &e.to_string());
    e.code
}

fn non_null<T>(p: *const T, name: &str) -> Result<()> {
    if p.is_null() {
        Err(HcclError::ptr(name))
    } else {
        Ok(())
    }
}

/// `n` u64 values of a host array argument.
unsafe fn host_u64s(p: *const c_void, n: usize, name: &str) -> Result<Vec<u64>> {
    non_null(p, name)?;
    // SAFETY: the caller passes an array of n uint64 values, as HCCL documents.
    Ok(unsafe { std::slice::from_raw_parts(p as *const u64, n) }.to_vec())
}

/// The checked context of one collective call: the communicator, its stream and the
/// allocations its buffers are in (checked again when the stream runs the work).
struct Call {
    comm: Arc<Comm>,
    stream: AclStream,
    held: Vec<(usize, u64)>,
}

impl Call {
    fn new(comm: HcclComm, stream: AclStream) -> Result<Call> {
        non_null(stream, "stream")?;
        let comm = comm::lookup(comm as usize)?;
        let d = acl::stream_device(stream)?;
        if d != comm.device {
            return Err(HcclError::para(format!(
                "stream belongs to device {d}; rank {} of the communicator works on device {}",
                comm.rank, comm.device
            )));
        }
        Ok(Call {
            comm,
            stream,
            held: Vec::new(),
        })
    }

    fn size(&self) -> u32 {
        self.comm.group.size
    }

    /// Buffer `name` holds `count` elements of `d` from element `from` on: aligned to the
    /// element, inside one allocation of the communicator's device.
    fn buffer(&mut self, name: &str, p: *const c_void, d: DType, count: u64) -> Result<usize> {
        non_null(p, name)?;
        let at = p as usize;
        if at % d.size() != 0 {
            return Err(HcclError::para(format!(
                "{name} {at:#x} is not aligned to {} bytes, the size of {}",
                d.size(),
                d.name()
            )));
        }
        let bytes = count
            .checked_mul(d.size() as u64)
            .filter(|&b| b <= isize::MAX as u64)
            .ok_or_else(|| HcclError::para(format!("count {count} of {} is too large", d.name())))?
            as usize;
        let (dev, id) = acl::device_memory(at, bytes.max(1)).map_err(|e| {
            HcclError::para(format!(
                "{name} ({count} elements of {}): {}",
                d.name(),
                e.msg
            ))
        })?;
        if dev != self.comm.device {
            return Err(HcclError::para(format!(
                "{name} is memory of device {dev}; rank {} of the communicator works on device {}",
                self.comm.rank, self.comm.device
            )));
        }
        self.held.push((at, id));
        Ok(at)
    }

    /// `count` elements for each rank (AllGather's output, AlltoAll's buffers, ...).
    fn all_ranks(&self, name: &str, count: u64) -> Result<u64> {
        count
            .checked_mul(self.size() as u64)
            .ok_or_else(|| HcclError::para(format!("{name} {count} is too large")))
    }

    fn root(&self, root: u32) -> Result<u32> {
        if root >= self.size() {
            return Err(HcclError::para(format!(
                "root {root} is not a rank of the communicator (0..{})",
                self.size() - 1
            )));
        }
        Ok(root)
    }

    fn peer(&self, name: &str, peer: u32) -> Result<u32> {
        if peer >= self.size() {
            return Err(HcclError::para(format!(
                "{name} {peer} is not a rank of the communicator (0..{})",
                self.size() - 1
            )));
        }
        if peer == self.comm.rank {
            return Err(HcclError::para(format!(
                "{name} {peer} is this rank itself"
            )));
        }
        Ok(peer)
    }

    fn queue(self, api: &'static str, work: Work) -> Result<()> {
        let job = Box::new(Job {
            api,
            comm: self.comm,
            held: self.held,
            work,
        });
        acl::launch(
            self.stream,
            run_job,
            release_job,
            Box::into_raw(job) as *mut c_void,
        )
    }
}

enum Work {
    Collective(Arc<Desc>),
    Exchange {
        sends: Vec<Transfer>,
        recvs: Vec<Transfer>,
    },
}

/// Queued work: what the stream runs (possibly more than once, when captured and replayed).
struct Job {
    api: &'static str,
    comm: Arc<Comm>,
    held: Vec<(usize, u64)>,
    work: Work,
}

impl Job {
    fn run(&self) -> Result<()> {
        let still_held = self
            .held
            .iter()
            .try_for_each(|&(p, id)| match acl::device_memory(p, 1) {
                Ok((_, now)) if now == id => Ok(()),
                _ => Err(HcclError::new(
                    HCCL_E_MEMORY,
                    format!(
                        "device memory {p:#x} was freed before the stream ran this {}",
                        self.api
                    ),
                )),
            });
        let c = &self.comm;
        match &self.work {
            Work::Collective(d) => {
                let seq = c.next_seq.fetch_add(1, Ordering::Relaxed);
                c.group.collective(c.rank, seq, d.clone(), still_held.err())
            }
            Work::Exchange { sends, recvs } => {
                still_held?;
                c.group.exchange(c.rank, sends, recvs)
            }
        }
    }
}

unsafe extern "C" fn run_job(ctx: *mut c_void, msg: *mut c_char, len: usize) -> i32 {
    // SAFETY: ctx is the Job queued by Call::queue, alive until release_job.
    let job = unsafe { &*(ctx as *const Job) };
    let r = catch_unwind(AssertUnwindSafe(|| job.run()))
        .unwrap_or_else(|_| Err(HcclError::new(HCCL_E_INTERNAL, "internal error (a panic)")));
    let Err(e) = r else { return 0 };
    let _ = job
        .comm
        .async_error
        .compare_exchange(0, e.code, Ordering::Relaxed, Ordering::Relaxed);
    let text = format!(
        "{} (rank {} of {}): {e}",
        job.api, job.comm.rank, job.comm.group.name
    );
    if len > 0 && !msg.is_null() {
        let n = text.len().min(len - 1);
        // SAFETY: msg is writable for len bytes.
        unsafe {
            std::ptr::copy_nonoverlapping(text.as_ptr(), msg as *mut u8, n);
            *msg.add(n) = 0;
        }
    }
    STREAM_FAILURE
}

unsafe extern "C" fn release_job(ctx: *mut c_void) {
    // SAFETY: made by Box::into_raw in Call::queue; released once.
    drop(unsafe { Box::from_raw(ctx as *mut Job) });
}

fn desc(api: &'static str, kind: Kind, dtype: DType, count: u64) -> Desc {
    Desc {
        api,
        kind,
        dtype,
        op: None,
        root: 0,
        count,
        send: 0,
        recv: 0,
        send_parts: Vec::new(),
        recv_parts: Vec::new(),
        matrix: Vec::new(),
    }
}

// ---------------------------------------------------------------------------------------
// Communicators

#[no_mangle]
pub unsafe extern "C" fn HcclGetRootInfo(rootInfo: *mut c_void) -> i32 {
    entry("HcclGetRootInfo", || {
        non_null(rootInfo, "rootInfo")?;
        let mut blob = [0u8; ROOT_INFO_BYTES];
        RootInfo::new().write(&mut blob);
        // SAFETY: rootInfo points to an HcclRootInfo (ROOT_INFO_BYTES bytes).
        unsafe {
            std::ptr::copy_nonoverlapping(blob.as_ptr(), rootInfo as *mut u8, ROOT_INFO_BYTES)
        };
        Ok(())
    })
}

/// HcclCommConfig's comm name, if set (and checks its header and deterministic field).
unsafe fn config_name(config: *const c_void) -> Result<Option<String>> {
    if config.is_null() {
        return Err(HcclError::ptr("config"));
    }
    // SAFETY: config points to an HcclCommConfig; its header says how much of it there is.
    unsafe {
        let b = config as *const u8;
        let size = (b as *const usize).read_unaligned();
        let magic = (b.add(8) as *const u32).read_unaligned();
        if magic != 0xf0f0_f0f0 {
            return Err(HcclError::para(format!(
                "config's magic word is {magic:#x}, not 0xf0f0f0f0: initialize it with HcclCommConfigInit"
            )));
        }
        if size >= 32 {
            let det = (b.add(28) as *const u32).read_unaligned();
            if det != 0xffff_ffff && det > 1 {
                return Err(HcclError::para(format!(
                    "config->hcclDeterministic is {det}; it must be 0 or 1"
                )));
            }
        }
        if size < 32 + COMM_NAME_MAX {
            return Ok(None);
        }
        let name = std::slice::from_raw_parts(b.add(32), COMM_NAME_MAX);
        let Some(len) = name.iter().position(|&c| c == 0) else {
            return Err(HcclError::para(format!(
                "config->hcclCommName is not NUL-terminated within {COMM_NAME_MAX} bytes"
            )));
        };
        Ok((len > 0).then(|| String::from_utf8_lossy(&name[..len]).into_owned()))
    }
}

unsafe fn init_root_info(
    n: u32,
    root: *const c_void,
    rank: u32,
    name: Option<String>,
    out: *mut HcclComm,
) -> Result<()> {
    non_null(root, "rootInfo")?;
    non_null(out, "comm")?;
    if n == 0 {
        return Err(HcclError::para("nRanks is 0"));
    }
    if rank >= n {
        return Err(HcclError::para(format!(
            "rank {rank} is not below nRanks {n}"
        )));
    }
    // SAFETY: root points to an HcclRootInfo.
    let blob = unsafe { &*(root as *const [u8; ROOT_INFO_BYTES]) };
    let info = RootInfo::read(blob)?;
    let device = acl::current_device()?;
    let c = comm::join(info, n, rank, device, name)?;
    // SAFETY: out checked non-null.
    unsafe { *out = comm::register(c) as HcclComm };
    Ok(())
}

#[no_mangle]
pub unsafe extern "C" fn HcclCommInitRootInfo(
    nRanks: u32,
    rootInfo: *const c_void,
    rank: u32,
    comm: *mut HcclComm,
) -> i32 {
    entry("HcclCommInitRootInfo", || unsafe {
        init_root_info(nRanks, rootInfo, rank, None, comm)
    })
}

#[no_mangle]
pub unsafe extern "C" fn HcclCommInitRootInfoConfig(
    nRanks: u32,
    rootInfo: *const c_void,
    rank: u32,
    config: *const c_void,
    comm: *mut HcclComm,
) -> i32 {
    entry("HcclCommInitRootInfoConfig", || unsafe {
        let name = config_name(config)?;
        init_root_info(nRanks, rootInfo, rank, name, comm)
    })
}

#[no_mangle]
pub unsafe extern "C" fn HcclCommInitAll(
    ndev: u32,
    devices: *mut i32,
    comms: *mut HcclComm,
) -> i32 {
    entry("HcclCommInitAll", || unsafe {
        if ndev == 0 {
            return Err(HcclError::para("ndev is 0"));
        }
        non_null(devices, "devices")?;
        non_null(comms, "comms")?;
        let devs = std::slice::from_raw_parts(devices, ndev as usize).to_vec();
        let count = acl::device_count()?;
        for (i, &d) in devs.iter().enumerate() {
            if d < 0 || d as u32 >= count {
                return Err(HcclError::para(format!(
                    "devices[{i}] = {d} is not a device (0..{}; ACLNN_CPU_DEVICE_COUNT sets how many)",
                    count - 1
                )));
            }
            if let Some(j) = devs[..i].iter().position(|&e| e == d) {
                return Err(HcclError::para(format!(
                    "devices[{i}] and devices[{j}] are both device {d}"
                )));
            }
        }
        let info = RootInfo::new();
        let g = Arc::new(Group::with_devices(
            &devs,
            format!("hccl_world_{}_{}", info.pid, info.id),
        ));
        for (r, &d) in devs.iter().enumerate() {
            *comms.add(r) = comm::register(Comm::new(g.clone(), r as u32, d)) as HcclComm;
        }
        Ok(())
    })
}

#[no_mangle]
pub extern "C" fn HcclCommDestroy(comm: HcclComm) -> i32 {
    entry("HcclCommDestroy", || {
        comm::unregister(comm as usize).map(drop)
    })
}

/// A query of a live communicator: `value(comm)` written to `out` (named `name`).
unsafe fn query<T>(
    api: &str,
    comm: HcclComm,
    out: *mut T,
    name: &str,
    value: impl FnOnce(&Comm) -> T,
) -> i32 {
    entry(api, || {
        let c = comm::lookup(comm as usize)?;
        non_null(out, name)?;
        // SAFETY: out checked non-null; the caller passes a writable T.
        unsafe { *out = value(&c) };
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn HcclGetRankId(comm: HcclComm, rank: *mut u32) -> i32 {
    unsafe { query("HcclGetRankId", comm, rank, "rank", |c| c.rank) }
}

#[no_mangle]
pub unsafe extern "C" fn HcclGetRankSize(comm: HcclComm, rankSize: *mut u32) -> i32 {
    unsafe {
        query("HcclGetRankSize", comm, rankSize, "rankSize", |c| {
            c.group.size
        })
    }
}

/// Writes the name, NUL-terminated, into the caller's buffer of COMM_NAME_MAX_LENGTH bytes.
#[no_mangle]
pub unsafe extern "C" fn HcclGetCommName(comm: HcclComm, commName: *mut c_char) -> i32 {
    entry("HcclGetCommName", || {
        let c = comm::lookup(comm as usize)?;
        non_null(commName, "commName")?;
        let name = c.group.name.as_bytes();
        let n = name.len().min(COMM_NAME_MAX - 1);
        unsafe {
            std::ptr::copy_nonoverlapping(name.as_ptr(), commName as *mut u8, n);
            *commName.add(n) = 0;
        }
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn HcclGetCommAsyncError(comm: HcclComm, asyncError: *mut i32) -> i32 {
    unsafe {
        query(
            "HcclGetCommAsyncError",
            comm,
            asyncError,
            "asyncError",
            |c| c.async_error.load(Ordering::Relaxed),
        )
    }
}

#[no_mangle]
pub extern "C" fn HcclGetErrorString(code: i32) -> *const c_char {
    description(code).as_ptr()
}

/// The process-wide HCCL_DETERMINISTIC setting (results are deterministic either way).
static DETERMINISTIC: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(0);

#[no_mangle]
pub extern "C" fn HcclSetConfig(config: i32, configValue: i32) -> i32 {
    entry("HcclSetConfig", || {
        if config != 0 {
            return Err(HcclError::para(format!(
                "config {config} is not an HcclConfig (HCCL_DETERMINISTIC 0)"
            )));
        }
        if !(0..=1).contains(&configValue) {
            return Err(HcclError::para(format!(
                "HCCL_DETERMINISTIC value {configValue} must be 0 or 1"
            )));
        }
        DETERMINISTIC.store(configValue, Ordering::Relaxed);
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn HcclGetConfig(config: i32, configValue: *mut i32) -> i32 {
    entry("HcclGetConfig", || {
        if config != 0 {
            return Err(HcclError::para(format!(
                "config {config} is not an HcclConfig (HCCL_DETERMINISTIC 0)"
            )));
        }
        non_null(configValue, "configValue")?;
        unsafe { *configValue = DETERMINISTIC.load(Ordering::Relaxed) };
        Ok(())
    })
}

/// The config items HcclCommInitRootInfoConfig honours: those below
/// HCCL_COMM_CONFIG_SUPPORT_INIT_BY_ENV (buffer size and op expansion mode are accepted and
/// have no effect here).
#[no_mangle]
pub extern "C" fn HcclGetCommConfigCapability() -> u32 {
    4
}

// ---------------------------------------------------------------------------------------
// Collectives

unsafe fn reduce_common(
    api: &'static str,
    kind: Kind,
    send: *mut c_void,
    recv: *mut c_void,
    count: u64,
    dtype: i32,
    op: i32,
    root: u32,
    comm: HcclComm,
    stream: AclStream,
) -> Result<()> {
    if count == 0 {
        return Ok(()); // HCCL returns success before any other check
    }
    let mut call = Call::new(comm, stream)?;
    non_null(send, "sendBuf")?;
    let recv_needed = kind != Kind::Reduce || root == call.comm.rank;
    if recv_needed {
        non_null(recv, "recvBuf")?;
    }
    let d = check_dtype("dataType", dtype, Use::Reduce)?;
    let op = check_op(op, d)?;
    let root = if kind == Kind::Reduce {
        call.root(root)?
    } else {
        0
    };
    let (send_elems, recv_elems) = match kind {
        Kind::ReduceScatter => (call.all_ranks("recvCount", count)?, count),
        _ => (count, count),
    };
    let mut x = desc(api, kind, d, count);
    x.op = Some(op);
    x.root = root;
    x.send = call.buffer("sendBuf", send, d, send_elems)?;
    if recv_needed {
        x.recv = call.buffer("recvBuf", recv, d, recv_elems)?;
    }
    call.queue(api, Work::Collective(Arc::new(x)))
}

#[no_mangle]
pub unsafe extern "C" fn HcclAllReduce(
    sendBuf: *mut c_void,
    recvBuf: *mut c_void,
    count: u64,
    dataType: i32,
    op: i32,
    comm: HcclComm,
    stream: AclStream,
) -> i32 {
    entry("HcclAllReduce", || unsafe {
        reduce_common(
            "HcclAllReduce",
            Kind::AllReduce,
            sendBuf,
            recvBuf,
            count,
            dataType,
            op,
            0,
            comm,
            stream,
        )
    })
}

#[no_mangle]
pub unsafe extern "C" fn HcclReduce(
    sendBuf: *mut c_void,
    recvBuf: *mut c_void,
    count: u64,
    dataType: i32,
    op: i32,
    root: u32,
    comm: HcclComm,
    stream: AclStream,
) -> i32 {
    entry("HcclReduce", || unsafe {
        reduce_common(
            "HcclReduce",
            Kind::Reduce,
            sendBuf,
            recvBuf,
            count,
            dataType,
            op,
            root,
            comm,
            stream,
        )
    })
}

#[no_mangle]
pub unsafe extern "C" fn HcclReduceScatter(
    sendBuf: *mut c_void,
    recvBuf: *mut c_void,
    recvCount: u64,
    dataType: i32,
    op: i32,
    comm: HcclComm,
    stream: AclStream,
) -> i32 {
    entry("HcclReduceScatter", || unsafe {
        reduce_common(
            "HcclReduceScatter",
            Kind::ReduceScatter,
            sendBuf,
            recvBuf,
            recvCount,
            dataType,
            op,
            0,
            comm,
            stream,
        )
    })
}

/// The largest end (count + displacement) of per-rank parts, in elements.
fn extent(name: &str, parts: &[(u64, u64)]) -> Result<u64> {
    parts.iter().enumerate().try_fold(0u64, |m, (i, &(c, d))| {
        c.checked_add(d).map(|e| m.max(e)).ok_or_else(|| {
            HcclError::para(format!(
                "{name}[{i}]: count {c} + displacement {d} overflows"
            ))
        })
    })
}

unsafe fn parts(
    counts: *const c_void,
    displs: *const c_void,
    n: usize,
    cn: &str,
    dn: &str,
) -> Result<Vec<(u64, u64)>> {
    let c = unsafe { host_u64s(counts, n, cn)? };
    let d = unsafe { host_u64s(displs, n, dn)? };
    Ok(c.into_iter().zip(d).collect())
}

#[no_mangle]
pub unsafe extern "C" fn HcclReduceScatterV(
    sendBuf: *mut c_void,
    sendCounts: *const c_void,
    sendDispls: *const c_void,
    recvBuf: *mut c_void,
    recvCount: u64,
    dataType: i32,
    op: i32,
    comm: HcclComm,
    stream: AclStream,
) -> i32 {
    const API: &str = "HcclReduceScatterV";
    entry(API, || unsafe {
        let mut call = Call::new(comm, stream)?;
        non_null(sendBuf, "sendBuf")?;
        non_null(recvBuf, "recvBuf")?;
        let d = check_dtype("dataType", dataType, Use::Reduce)?;
        let op = check_op(op, d)?;
        let p = parts(
            sendCounts,
            sendDispls,
            call.size() as usize,
            "sendCounts",
            "sendDispls",
        )?;
        let mut x = desc(API, Kind::ReduceScatterV, d, recvCount);
        x.op = Some(op);
        x.send = call.buffer("sendBuf", sendBuf, d, extent("sendCounts", &p)?)?;
        x.recv = call.buffer("recvBuf", recvBuf, d, recvCount)?;
        x.send_parts = p;
        call.queue(API, Work::Collective(Arc::new(x)))
    })
}

#[no_mangle]
pub unsafe extern "C" fn HcclBroadcast(
    buf: *mut c_void,
    count: u64,
    dataType: i32,
    root: u32,
    comm: HcclComm,
    stream: AclStream,
) -> i32 {
    const API: &str = "HcclBroadcast";
    entry(API, || {
        if count == 0 {
            return Ok(()); // HCCL returns success before any other check
        }
        let mut call = Call::new(comm, stream)?;
        non_null(buf, "buf")?;
        let d = check_dtype("dataType", dataType, Use::Move)?;
        let root = call.root(root)?;
        let mut x = desc(API, Kind::Broadcast, d, count);
        x.root = root;
        x.send = call.buffer("buf", buf, d, count)?;
        x.recv = x.send;
        call.queue(API, Work::Collective(Arc::new(x)))
    })
}

#[no_mangle]
pub unsafe extern "C" fn HcclScatter(
    sendBuf: *mut c_void,
    recvBuf: *mut c_void,
    recvCount: u64,
    dataType: i32,
    root: u32,
    comm: HcclComm,
    stream: AclStream,
) -> i32 {
    const API: &str = "HcclScatter";
    entry(API, || {
        if recvCount == 0 {
            return Ok(()); // HCCL returns success before any other check
        }
        let mut call = Call::new(comm, stream)?;
        let root = call.root(root)?;
        let is_root = root == call.comm.rank;
        if is_root {
            non_null(sendBuf, "sendBuf")?;
        }
        non_null(recvBuf, "recvBuf")?;
        let d = check_dtype("dataType", dataType, Use::Move)?;
        let mut x = desc(API, Kind::Scatter, d, recvCount);
        x.root = root;
        if is_root {
            let all = call.all_ranks("recvCount", recvCount)?;
            x.send = call.buffer("sendBuf", sendBuf, d, all)?;
        }
        x.recv = call.buffer("recvBuf", recvBuf, d, recvCount)?;
        call.queue(API, Work::Collective(Arc::new(x)))
    })
}

#[no_mangle]
pub unsafe extern "C" fn HcclAllGather(
    sendBuf: *mut c_void,
    recvBuf: *mut c_void,
    sendCount: u64,
    dataType: i32,
    comm: HcclComm,
    stream: AclStream,
) -> i32 {
    const API: &str = "HcclAllGather";
    entry(API, || {
        if sendCount == 0 {
            return Ok(()); // HCCL returns success before any other check
        }
        let mut call = Call::new(comm, stream)?;
        non_null(sendBuf, "sendBuf")?;
        non_null(recvBuf, "recvBuf")?;
        let d = check_dtype("dataType", dataType, Use::Move)?;
        let all = call.all_ranks("sendCount", sendCount)?;
        let mut x = desc(API, Kind::AllGather, d, sendCount);
        x.send = call.buffer("sendBuf", sendBuf, d, sendCount)?;
        x.recv = call.buffer("recvBuf", recvBuf, d, all)?;
        call.queue(API, Work::Collective(Arc::new(x)))
    })
}

#[no_mangle]
pub unsafe extern "C" fn HcclAllGatherV(
    sendBuf: *mut c_void,
    sendCount: u64,
    recvBuf: *mut c_void,
    recvCounts: *const c_void,
    recvDispls: *const c_void,
    dataType: i32,
    comm: HcclComm,
    stream: AclStream,
) -> i32 {
    const API: &str = "HcclAllGatherV";
    entry(API, || unsafe {
        let mut call = Call::new(comm, stream)?;
        non_null(sendBuf, "sendBuf")?;
        non_null(recvBuf, "recvBuf")?;
        let d = check_dtype("dataType", dataType, Use::Move)?;
        let p = parts(
            recvCounts,
            recvDispls,
            call.size() as usize,
            "recvCounts",
            "recvDispls",
        )?;
        let mut x = desc(API, Kind::AllGatherV, d, sendCount);
        x.send = call.buffer("sendBuf", sendBuf, d, sendCount)?;
        x.recv = call.buffer("recvBuf", recvBuf, d, extent("recvCounts", &p)?)?;
        x.recv_parts = p;
        call.queue(API, Work::Collective(Arc::new(x)))
    })
}

/// AlltoAll's send and receive dtypes must be the same type.
fn same_types(send: i32, recv: i32) -> Result<DType> {
    let s = check_dtype("sendType", send, Use::Move)?;
    let r = check_dtype("recvType", recv, Use::Move)?;
    if s != r {
        return Err(HcclError::para(format!(
            "sendType {} and recvType {} differ",
            s.name(),
            r.name()
        )));
    }
    Ok(s)
}

fn no_overlap(a: usize, a_len: u64, b: usize, b_len: u64, es: usize) -> Result<()> {
    let (ae, be) = (a + a_len as usize * es, b + b_len as usize * es);
    if a_len > 0 && b_len > 0 && a < be && b < ae {
        return Err(HcclError::para(format!(
            "sendBuf [{a:#x}, {ae:#x}) and recvBuf [{b:#x}, {be:#x}) overlap"
        )));
    }
    Ok(())
}

#[no_mangle]
pub unsafe extern "C" fn HcclAlltoAll(
    sendBuf: *const c_void,
    sendCount: u64,
    sendType: i32,
    recvBuf: *const c_void,
    recvCount: u64,
    recvType: i32,
    comm: HcclComm,
    stream: AclStream,
) -> i32 {
    const API: &str = "HcclAlltoAll";
    entry(API, || {
        if sendCount == 0 {
            return Ok(()); // HCCL returns success before any other check
        }
        let mut call = Call::new(comm, stream)?;
        non_null(sendBuf, "sendBuf")?;
        non_null(recvBuf, "recvBuf")?;
        let d = same_types(sendType, recvType)?;
        if sendCount != recvCount {
            return Err(HcclError::para(format!(
                "sendCount {sendCount} and recvCount {recvCount} differ"
            )));
        }
        let all = call.all_ranks("sendCount", sendCount)?;
        let mut x = desc(API, Kind::AlltoAll, d, sendCount);
        x.send = call.buffer("sendBuf", sendBuf, d, all)?;
        x.recv = call.buffer("recvBuf", recvBuf, d, all)?;
        no_overlap(x.send, all, x.recv, all, d.size())?;
        call.queue(API, Work::Collective(Arc::new(x)))
    })
}

#[no_mangle]
pub unsafe extern "C" fn HcclAlltoAllV(
    sendBuf: *const c_void,
    sendCounts: *const c_void,
    sdispls: *const c_void,
    sendType: i32,
    recvBuf: *const c_void,
    recvCounts: *const c_void,
    rdispls: *const c_void,
    recvType: i32,
    comm: HcclComm,
    stream: AclStream,
) -> i32 {
    const API: &str = "HcclAlltoAllV";
    entry(API, || unsafe {
        let mut call = Call::new(comm, stream)?;
        let n = call.size() as usize;
        let sp = parts(sendCounts, sdispls, n, "sendCounts", "sdispls")?;
        let rp = parts(recvCounts, rdispls, n, "recvCounts", "rdispls")?;
        let d = same_types(sendType, recvType)?;
        let (se, re) = (extent("sendCounts", &sp)?, extent("recvCounts", &rp)?);
        let mut x = desc(API, Kind::AlltoAllV, d, 0);
        if se > 0 {
            x.send = call.buffer("sendBuf", sendBuf, d, se)?;
        }
        if re > 0 {
            x.recv = call.buffer("recvBuf", recvBuf, d, re)?;
        }
        no_overlap(x.send, se, x.recv, re, d.size())?;
        x.send_parts = sp;
        x.recv_parts = rp;
        call.queue(API, Work::Collective(Arc::new(x)))
    })
}

#[no_mangle]
pub unsafe extern "C" fn HcclAlltoAllVC(
    sendBuf: *const c_void,
    sendCountMatrix: *const c_void,
    sendType: i32,
    recvBuf: *const c_void,
    recvType: i32,
    comm: HcclComm,
    stream: AclStream,
) -> i32 {
    const API: &str = "HcclAlltoAllVC";
    entry(API, || unsafe {
        let mut call = Call::new(comm, stream)?;
        let n = call.size() as usize;
        let m = host_u64s(sendCountMatrix, n * n, "sendCountMatrix")?;
        let d = same_types(sendType, recvType)?;
        let r = call.comm.rank as usize;
        let sum = |it: Vec<u64>| {
            it.into_iter()
                .try_fold(0u64, |a, c| a.checked_add(c))
                .ok_or_else(|| HcclError::para("sendCountMatrix's counts overflow"))
        };
        let se = sum(m[r * n..r * n + n].to_vec())?;
        let re = sum((0..n).map(|k| m[k * n + r]).collect())?;
        let mut x = desc(API, Kind::AlltoAllVC, d, 0);
        if se > 0 {
            x.send = call.buffer("sendBuf", sendBuf, d, se)?;
        }
        if re > 0 {
            x.recv = call.buffer("recvBuf", recvBuf, d, re)?;
        }
        no_overlap(x.send, se, x.recv, re, d.size())?;
        x.matrix = m;
        call.queue(API, Work::Collective(Arc::new(x)))
    })
}

#[no_mangle]
pub unsafe extern "C" fn HcclBarrier(comm: HcclComm, stream: AclStream) -> i32 {
    const API: &str = "HcclBarrier";
    entry(API, || {
        let call = Call::new(comm, stream)?;
        call.queue(
            API,
            Work::Collective(Arc::new(desc(API, Kind::Barrier, DType::Int8, 0))),
        )
    })
}

// ---------------------------------------------------------------------------------------
// Point to point

unsafe fn one_way(
    api: &'static str,
    send: bool,
    buf: *mut c_void,
    count: u64,
    dtype: i32,
    peer: u32,
    comm: HcclComm,
    stream: AclStream,
) -> Result<()> {
    if count == 0 {
        return Ok(()); // HCCL returns success before any other check
    }
    let mut call = Call::new(comm, stream)?;
    let (bname, pname) = if send {
        ("sendBuf", "destRank")
    } else {
        ("recvBuf", "srcRank")
    };
    non_null(buf, bname)?;
    let d = check_dtype("dataType", dtype, Use::Move)?;
    let peer = call.peer(pname, peer)?;
    let t = Transfer {
        peer,
        ptr: call.buffer(bname, buf, d, count)?,
        count,
        dtype: d,
    };
    let work = if send {
        Work::Exchange {
            sends: vec![t],
            recvs: vec![],
        }
    } else {
        Work::Exchange {
            sends: vec![],
            recvs: vec![t],
        }
    };
    call.queue(api, work)
}

#[no_mangle]
pub unsafe extern "C" fn HcclSend(
    sendBuf: *mut c_void,
    count: u64,
    dataType: i32,
    destRank: u32,
    comm: HcclComm,
    stream: AclStream,
) -> i32 {
    entry("HcclSend", || unsafe {
        one_way(
            "HcclSend", true, sendBuf, count, dataType, destRank, comm, stream,
        )
    })
}

#[no_mangle]
pub unsafe extern "C" fn HcclRecv(
    recvBuf: *mut c_void,
    count: u64,
    dataType: i32,
    srcRank: u32,
    comm: HcclComm,
    stream: AclStream,
) -> i32 {
    entry("HcclRecv", || unsafe {
        one_way(
            "HcclRecv", false, recvBuf, count, dataType, srcRank, comm, stream,
        )
    })
}

/// HcclSendRecvItem as C lays it out.
#[repr(C)]
struct SendRecvItem {
    kind: i32,
    buf: *mut c_void,
    count: u64,
    dtype: i32,
    remote: u32,
}

#[no_mangle]
pub unsafe extern "C" fn HcclBatchSendRecv(
    sendRecvInfo: *mut c_void,
    itemNum: u32,
    comm: HcclComm,
    stream: AclStream,
) -> i32 {
    const API: &str = "HcclBatchSendRecv";
    entry(API, || unsafe {
        let mut call = Call::new(comm, stream)?;
        non_null(sendRecvInfo, "sendRecvInfo")?;
        let items =
            std::slice::from_raw_parts(sendRecvInfo as *const SendRecvItem, itemNum as usize);
        let (mut sends, mut recvs) = (Vec::new(), Vec::new());
        for (i, it) in items.iter().enumerate() {
            let send = match it.kind {
                0 => true,
                1 => false,
                k => {
                    return Err(HcclError::para(format!(
                    "sendRecvInfo[{i}].sendRecvType {k} is neither HCCL_SEND (0) nor HCCL_RECV (1)"
                )))
                }
            };
            let d = check_dtype(&format!("sendRecvInfo[{i}].dataType"), it.dtype, Use::Move)?;
            let peer = call.peer(&format!("sendRecvInfo[{i}].remoteRank"), it.remote)?;
            let ptr = if it.count == 0 {
                it.buf as usize
            } else {
                call.buffer(&format!("sendRecvInfo[{i}].buf"), it.buf, d, it.count)?
            };
            let t = Transfer {
                peer,
                ptr,
                count: it.count,
                dtype: d,
            };
            if send {
                sends.push(t)
            } else {
                recvs.push(t)
            }
        }
        if items.is_empty() {
            return Ok(());
        }
        call.queue(API, Work::Exchange { sends, recvs })
    })
}

// ---------------------------------------------------------------------------------------
// Documented, not implemented here: HCCL_E_NOT_SUPPORT with a message naming what.

fn not_implemented(api: &str, what: &str) -> i32 {
    entry(api, || {
        Err(HcclError::not_support(format!(
            "{what} is not implemented by aclnn-cpu (docs/hccl.md)"
        )))
    })
}

#[no_mangle]
pub extern "C" fn HcclCommInitClusterInfo(
    clusterInfo: *const c_char,
    rank: u32,
    comm: *mut HcclComm,
) -> i32 {
    let _ = (clusterInfo, rank, comm);
    not_implemented(
        "HcclCommInitClusterInfo",
        "a rank table file (use HcclCommInitRootInfo or HcclCommInitAll)",
    )
}

#[no_mangle]
pub extern "C" fn HcclCommInitClusterInfoConfig(
    clusterInfo: *const c_char,
    rank: u32,
    config: *mut c_void,
    comm: *mut HcclComm,
) -> i32 {
    let _ = (clusterInfo, rank, config, comm);
    not_implemented(
        "HcclCommInitClusterInfoConfig",
        "a rank table file (use HcclCommInitRootInfoConfig)",
    )
}

#[no_mangle]
pub extern "C" fn HcclCreateSubCommConfig(
    comm: *mut HcclComm,
    rankNum: u32,
    rankIds: *mut u32,
    subCommId: u64,
    subCommRankId: u32,
    config: *mut c_void,
    subComm: *mut HcclComm,
) -> i32 {
    let _ = (
        comm,
        rankNum,
        rankIds,
        subCommId,
        subCommRankId,
        config,
        subComm,
    );
    not_implemented("HcclCreateSubCommConfig", "a sub-communicator")
}

#[no_mangle]
pub extern "C" fn HcclCommSuspend(comm: HcclComm) -> i32 {
    let _ = comm;
    not_implemented("HcclCommSuspend", "suspending a communicator")
}

#[no_mangle]
pub extern "C" fn HcclCommResume(comm: HcclComm) -> i32 {
    let _ = comm;
    not_implemented("HcclCommResume", "resuming a communicator")
}

#[no_mangle]
pub extern "C" fn HcclCommSetMemoryRange(
    comm: HcclComm,
    base: *mut c_void,
    size: usize,
    alignment: usize,
    flags: u64,
) -> i32 {
    let _ = (comm, base, size, alignment, flags);
    not_implemented("HcclCommSetMemoryRange", "a communicator memory range")
}

#[no_mangle]
pub extern "C" fn HcclCommUnsetMemoryRange(comm: HcclComm, base: *mut c_void) -> i32 {
    let _ = (comm, base);
    not_implemented("HcclCommUnsetMemoryRange", "a communicator memory range")
}

#[no_mangle]
pub extern "C" fn HcclCommActivateCommMemory(
    comm: HcclComm,
    virPtr: *mut c_void,
    size: usize,
    offset: usize,
    handle: *mut c_void,
    flags: u64,
) -> i32 {
    let _ = (comm, virPtr, size, offset, handle, flags);
    not_implemented("HcclCommActivateCommMemory", "communicator memory")
}

#[no_mangle]
pub extern "C" fn HcclCommDeactivateCommMemory(comm: HcclComm, virPtr: *mut c_void) -> i32 {
    let _ = (comm, virPtr);
    not_implemented("HcclCommDeactivateCommMemory", "communicator memory")
}
