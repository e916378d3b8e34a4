//! Root info, groups of ranks and communicators.
//!
//! HcclGetRootInfo makes a blob naming a new group (this process's id and a number unique in
//! it). Each rank's HcclCommInitRootInfo joins that group and waits, up to
//! HCCL_CONNECT_TIMEOUT, for all nRanks to join; HcclCommInitAll makes a whole group at once.
//! A communicator is one rank's handle on a group: its rank, its device, and the sequence
//! number of its next collective.

use crate::engine::Group;
use crate::error::{HcclError, Result, HCCL_E_NOT_SUPPORT};
use std::collections::HashMap;
use std::sync::atomic::{AtomicI32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// sizeof(HcclRootInfo).
pub const ROOT_INFO_BYTES: usize = 4108;
/// hcclCommName's size in HcclCommConfig (and the buffer HcclGetCommName writes).
pub const COMM_NAME_MAX: usize = 128;
const MAGIC: &[u8; 16] = b"aclnn-cpu hccl1\0";

pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Seconds from environment variable `name` (fractions allowed), or `default`.
fn seconds(name: &str, default: f64) -> f64 {
    match std::env::var(name) {
        Ok(v) => match v.trim().parse::<f64>() {
            Ok(s) if s >= 0.0 && s.is_finite() => s,
            _ => {
                eprintln!("[HCCL] {name}={v:?} is not a number of seconds; using {default}");
                default
            }
        },
        Err(_) => default,
    }
}

/// How long HcclCommInitRootInfo waits for every rank to join: HCCL_CONNECT_TIMEOUT seconds
/// (default 120, HCCL's).
pub fn connect_timeout() -> Duration {
    Duration::from_secs_f64(seconds("HCCL_CONNECT_TIMEOUT", 120.0))
}

/// How long a collective waits for the other ranks: HCCL_EXEC_TIMEOUT seconds (default
/// 1836, HCCL's); 0 means no limit, as on the device.
pub fn exec_timeout() -> Option<Duration> {
    let s = seconds("HCCL_EXEC_TIMEOUT", 1836.0);
    (s > 0.0).then(|| Duration::from_secs_f64(s))
}

/// The point in time a wait of `timeout` from now ends (None: never).
pub fn deadline(timeout: Option<Duration>) -> Option<Instant> {
    timeout.and_then(|t| Instant::now().checked_add(t))
}

/// The contents of a root info blob.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RootInfo {
    pub pid: u32,
    pub id: u64,
}

impl RootInfo {
    pub fn new() -> RootInfo {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        RootInfo {
            pid: std::process::id(),
            id: NEXT.fetch_add(1, Ordering::Relaxed),
        }
    }

    pub fn write(&self, out: &mut [u8; ROOT_INFO_BYTES]) {
        out.fill(0);
        out[..16].copy_from_slice(MAGIC);
        out[16..20].copy_from_slice(&self.pid.to_le_bytes());
        out[24..32].copy_from_slice(&self.id.to_le_bytes());
    }

    /// The blob's root info: HCCL_E_PARA if it is not one HcclGetRootInfo made, and
    /// HCCL_E_NOT_SUPPORT if another process made it (ranks in several processes are not
    /// implemented yet: docs/hccl.md).
    pub fn read(blob: &[u8; ROOT_INFO_BYTES]) -> Result<RootInfo> {
        if &blob[..16] != MAGIC {
            return Err(HcclError::para(
                "rootInfo was not made by HcclGetRootInfo (its contents are not a root info)",
            ));
        }
        let r = RootInfo {
            pid: u32::from_le_bytes(blob[16..20].try_into().unwrap()),
            id: u64::from_le_bytes(blob[24..32].try_into().unwrap()),
        };
        if r.pid != std::process::id() {
            return Err(HcclError::new(
                HCCL_E_NOT_SUPPORT,
                format!(
                    "rootInfo was made by process {}, this is process {}: ranks in several processes are not implemented (all ranks of a communicator run in one process, one thread per device)",
                    r.pid,
                    std::process::id()
                ),
            ));
        }
        Ok(r)
    }
}

impl Default for RootInfo {
    fn default() -> Self {
        RootInfo::new()
    }
}

/// One rank's communicator.
pub struct Comm {
    pub group: Arc<Group>,
    pub rank: u32,
    pub device: i32,
    /// The sequence number of this rank's next collective, taken when the stream runs it:
    /// the k-th collective each rank runs on a communicator meets the others' k-th.
    pub next_seq: AtomicU64,
    /// The first failure of queued work (HcclGetCommAsyncError), 0 while none.
    pub async_error: AtomicI32,
}

impl Comm {
    pub fn new(group: Arc<Group>, rank: u32, device: i32) -> Comm {
        Comm {
            group,
            rank,
            device,
            next_seq: AtomicU64::new(0),
            async_error: AtomicI32::new(0),
        }
    }
}

/// Live communicators by handle: a handle not in it (never made, or destroyed) is refused
/// instead of being dereferenced.
static COMMS: Mutex<Vec<(usize, Arc<Comm>)>> = Mutex::new(Vec::new());

pub fn register(c: Comm) -> usize {
    let c = Arc::new(c);
    let handle = Arc::as_ptr(&c) as usize;
    lock(&COMMS).push((handle, c));
    handle
}

pub fn lookup(handle: usize) -> Result<Arc<Comm>> {
    if handle == 0 {
        return Err(HcclError::ptr("comm"));
    }
    lock(&COMMS)
        .iter()
        .find(|(h, _)| *h == handle)
        .map(|(_, c)| c.clone())
        .ok_or_else(|| {
            HcclError::para(format!(
                "comm {handle:#x} is not a live communicator (never initialized, or destroyed)"
            ))
        })
}

pub fn unregister(handle: usize) -> Result<Arc<Comm>> {
    if handle == 0 {
        return Err(HcclError::ptr("comm"));
    }
    let mut all = lock(&COMMS);
    let i = all.iter().position(|(h, _)| *h == handle).ok_or_else(|| {
        HcclError::para(format!(
            "comm {handle:#x} is not a live communicator (never initialized, or destroyed already)"
        ))
    })?;
    Ok(all.swap_remove(i).1)
}

/// Groups whose ranks are still joining, by root info id.
static JOINING: Mutex<Option<HashMap<u64, Arc<Group>>>> = Mutex::new(None);

/// HcclCommInitRootInfo: joins rank `rank` of `n` on `device` to the group of `root`, and
/// waits until all n ranks have joined (HCCL_E_TIMEOUT after HCCL_CONNECT_TIMEOUT).
pub fn join(root: RootInfo, n: u32, rank: u32, device: i32, name: Option<String>) -> Result<Comm> {
    let group = {
        let mut joining = lock(&JOINING);
        let map = joining.get_or_insert_with(HashMap::new);
        let g = map
            .entry(root.id)
            .or_insert_with(|| {
                Arc::new(Group::new(
                    n,
                    name.clone()
                        .unwrap_or_else(|| format!("hccl_world_{}_{}", root.pid, root.id)),
                ))
            })
            .clone();
        if g.size != n {
            return Err(HcclError::para(format!(
                "nRanks {n} differs from the {} another rank of this root info passed",
                g.size
            )));
        }
        g
    };
    group.join(rank, device, connect_timeout(), || {
        // Every rank is in: a later init with the same blob makes a new group.
        let mut joining = lock(&JOINING);
        if let Some(map) = joining.as_mut() {
            if map.get(&root.id).is_some_and(|g| Arc::ptr_eq(g, &group)) {
                map.remove(&root.id);
            }
        }
    })?;
    Ok(Comm::new(group, rank, device))
}
