//! Shared by the fuzz targets: a reader over the fuzzer's bytes and the device set-up.
#![allow(dead_code)]

use aclnn_cpu::capi::runtime::{aclInit, aclrtSetDevice};

/// Reads values from the input; past its end everything reads as 0.
pub struct Bytes<'a>(pub &'a [u8]);

impl Bytes<'_> {
    pub fn u8(&mut self) -> u8 {
        match self.0.split_first() {
            Some((b, rest)) => {
                self.0 = rest;
                *b
            }
            None => 0,
        }
    }
    pub fn i64(&mut self) -> i64 {
        let mut v = [0u8; 8];
        for b in &mut v {
            *b = self.u8();
        }
        i64::from_le_bytes(v)
    }
    pub fn i32(&mut self) -> i32 {
        self.i64() as i32
    }
    pub fn take(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.u8()).collect()
    }
}

/// aclInit + aclrtSetDevice(0), once per process.
pub fn device() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        assert_eq!(aclInit(std::ptr::null()), 0);
        assert_eq!(aclrtSetDevice(0), 0);
    });
}

/// Statuses that mean a bug in the library: ACLNN_ERR_INNER (a caught panic or an internal
/// inconsistency) and ACLNN_ERR_INNER_NULLPTR.
pub fn assert_not_internal(api: &str, status: i32) {
    if status == 561000 || status == 561103 {
        let msg =
            unsafe { std::ffi::CStr::from_ptr(aclnn_cpu::capi::runtime::aclGetRecentErrMsg()) };
        panic!(
            "{api} returned internal error {status}: {}",
            msg.to_string_lossy()
        );
    }
}
