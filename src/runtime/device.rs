//! The emulated devices: how many there are (ACLNN_CPU_DEVICE_COUNT), which one each host
//! thread works on (aclrtSetDevice is per thread, as on the NPU), their memory capacity
//! (ACLNN_CPU_DEVICE_MEMORY) and which pairs have peer access enabled.

use crate::error::{acl, Error, Result};
use std::cell::Cell;
use std::sync::OnceLock;

/// Devices when ACLNN_CPU_DEVICE_COUNT is unset.
pub const DEFAULT_COUNT: u32 = 1;
/// At most this many devices (a 910B server has 8 or 16; HCCL tests go to 8).
pub const MAX_COUNT: u32 = 64;
/// Memory per device when ACLNN_CPU_DEVICE_MEMORY is unset: that of a 64 GB 910B.
pub const DEFAULT_MEMORY: usize = 64 << 30;

fn env_number(name: &str) -> Option<u64> {
    let v = std::env::var(name).ok()?;
    let v = v.trim();
    // Accepts plain bytes or a K/M/G suffix (powers of 1024).
    let (digits, shift) = match v.chars().last()? {
        'k' | 'K' => (&v[..v.len() - 1], 10),
        'm' | 'M' => (&v[..v.len() - 1], 20),
        'g' | 'G' => (&v[..v.len() - 1], 30),
        _ => (v, 0),
    };
    digits.parse::<u64>().ok()?.checked_mul(1 << shift)
}

/// The number of devices: ACLNN_CPU_DEVICE_COUNT (1..=64), default 1. Read once; an invalid
/// value is reported on stderr and the default used.
pub fn count() -> u32 {
    static COUNT: OnceLock<u32> = OnceLock::new();
    *COUNT.get_or_init(|| match std::env::var("ACLNN_CPU_DEVICE_COUNT") {
        Err(_) => DEFAULT_COUNT,
        Ok(_) => match env_number("ACLNN_CPU_DEVICE_COUNT") {
            Some(n) if (1..=MAX_COUNT as u64).contains(&n) => n as u32,
            _ => {
                eprintln!(
                    "aclnn-cpu: ACLNN_CPU_DEVICE_COUNT must be 1..={MAX_COUNT}; using {DEFAULT_COUNT}"
                );
                DEFAULT_COUNT
            }
        },
    })
}

/// Bytes of memory each device has: ACLNN_CPU_DEVICE_MEMORY (bytes, or with a K/M/G
/// suffix), default 64 GiB. Allocations past it fail as on the device.
pub fn capacity() -> usize {
    static CAPACITY: OnceLock<usize> = OnceLock::new();
    *CAPACITY.get_or_init(|| match std::env::var("ACLNN_CPU_DEVICE_MEMORY") {
        Err(_) => DEFAULT_MEMORY,
        Ok(_) => match env_number("ACLNN_CPU_DEVICE_MEMORY") {
            Some(n) if n > 0 && n <= isize::MAX as u64 => n as usize,
            _ => {
                eprintln!(
                    "aclnn-cpu: ACLNN_CPU_DEVICE_MEMORY must be a positive byte count; using {DEFAULT_MEMORY}"
                );
                DEFAULT_MEMORY
            }
        },
    })
}

/// `id` names a device (0..count), else ACL_ERROR_RT_INVALID_DEVICEID naming `what`.
pub fn check_id(what: &str, id: i32) -> Result<usize> {
    let n = count();
    if id < 0 || id as u32 >= n {
        return Err(Error::runtime(
            acl::ACL_ERROR_RT_INVALID_DEVICEID,
            format!(
                "{what} {id} does not exist: {n} device{} (ids 0..{}; ACLNN_CPU_DEVICE_COUNT sets how many)",
                if n == 1 { "" } else { "s" },
                n - 1
            ),
        ));
    }
    Ok(id as usize)
}

thread_local! {
    /// The device this thread set with aclrtSetDevice (-1: none yet).
    static CURRENT: Cell<i32> = const { Cell::new(-1) };
}

/// The device this thread selected, if it selected one.
pub fn thread_device() -> Option<i32> {
    let d = CURRENT.with(Cell::get);
    (d >= 0).then_some(d)
}

pub fn set_thread_device(id: Option<i32>) {
    CURRENT.with(|c| c.set(id.unwrap_or(-1)));
}

/// Peer access enabled from device `a` to device `b` (row-major count × count).
static PEERS: std::sync::Mutex<Vec<bool>> = std::sync::Mutex::new(Vec::new());

fn peers() -> std::sync::MutexGuard<'static, Vec<bool>> {
    let mut g = PEERS.lock().unwrap_or_else(|e| e.into_inner());
    let n = count() as usize;
    if g.len() != n * n {
        *g = vec![false; n * n];
    }
    g
}

/// aclrtDeviceCanAccessPeer: every pair of distinct devices can (they share the host's
/// memory); a device and itself cannot be peers.
pub fn can_access_peer(device: i32, peer: i32) -> Result<bool> {
    check_id("deviceId", device)?;
    check_id("peerDeviceId", peer)?;
    Ok(device != peer)
}

/// aclrtDeviceEnablePeerAccess / DisablePeerAccess from `current` to `peer`. Enabling a
/// device for itself is accepted and changes nothing (the device reaches its own memory).
pub fn set_peer_access(current: i32, peer: i32, on: bool) -> Result<()> {
    let a = check_id("current device", current)?;
    let b = check_id("peerDeviceId", peer)?;
    if a == b {
        return Ok(());
    }
    let n = count() as usize;
    let mut g = peers();
    if !on && !g[a * n + b] {
        return Err(Error::runtime(
            acl::ACL_ERROR_INVALID_PARAM,
            format!("peer access from device {current} to device {peer} is not enabled"),
        ));
    }
    g[a * n + b] = on;
    Ok(())
}

/// Whether work on device `from` may touch memory of device `to`.
pub fn peer_enabled(from: i32, to: i32) -> bool {
    if from == to {
        return true;
    }
    let n = count() as usize;
    let (a, b) = (from as usize, to as usize);
    a < n && b < n && peers()[a * n + b]
}

/// aclFinalize / a reset: forgets the peer links of `device` (all devices when None).
pub fn clear_peers(device: Option<usize>) {
    let n = count() as usize;
    let mut g = peers();
    match device {
        None => g.iter_mut().for_each(|p| *p = false),
        Some(d) => {
            for i in 0..n {
                g[d * n + i] = false;
                g[i * n + d] = false;
            }
        }
    }
}
