//! aclCreateTensor / aclInitTensor with arbitrary dims, strides, offsets, dtypes, formats and
//! storage: never a crash, and every tensor it accepts answers its getters consistently.
#![no_main]

#[path = "common.rs"]
mod common;

use aclnn_cpu::capi::meta::*;
use common::Bytes;
use libfuzzer_sys::fuzz_target;

fn dims(b: &mut Bytes, n: usize) -> Vec<i64> {
    (0..n)
        .map(|_| match b.u8() % 8 {
            0 => b.i64(),
            k => (b.u8() % 8) as i64 + (k as i64 - 4).min(0),
        })
        .collect()
}

fuzz_target!(|data: &[u8]| {
    let mut b = Bytes(data);
    let rank = (b.u8() % 12) as usize;
    let view = dims(&mut b, rank);
    let dtype = if b.u8() % 8 == 0 {
        b.i32()
    } else {
        (b.u8() % 36) as i32
    };
    let strides = dims(&mut b, rank);
    let contiguous = b.u8() % 4 == 0;
    let offset = if b.u8() % 8 == 0 {
        b.i64()
    } else {
        (b.u8() % 8) as i64
    };
    let format = if b.u8() % 8 == 0 {
        b.i32()
    } else {
        (b.u8() % 36) as i32 - 1
    };
    let srank = (b.u8() % 4) as usize;
    let storage = dims(&mut b, srank);
    let stride_ptr = if contiguous {
        std::ptr::null()
    } else {
        strides.as_ptr()
    };
    // The data address is never dereferenced by aclCreateTensor.
    let addr = (b.u8() as usize * 64) as *mut std::ffi::c_void;
    unsafe {
        let t = aclCreateTensor(
            view.as_ptr(),
            rank as u64,
            dtype,
            stride_ptr,
            offset,
            format,
            storage.as_ptr(),
            srank as u64,
            addr,
        );
        if t.is_null() {
            return;
        }
        let (mut off, mut fmt, mut dt) = (0i64, 0i32, 0i32);
        assert_eq!(aclGetViewOffset(t, &mut off), 0);
        assert_eq!(off, offset);
        assert_eq!(aclGetFormat(t, &mut fmt), 0);
        assert_eq!(aclGetDataType(t, &mut dt), 0);
        assert_eq!(dt, dtype);
        // Re-initialise with the reversed dims: accepted or refused, never a crash; on
        // refusal the tensor keeps its old description.
        let rview: Vec<i64> = view.iter().rev().copied().collect();
        let st = aclInitTensor(
            t,
            rview.as_ptr(),
            rank as u64,
            dtype,
            std::ptr::null(),
            offset,
            format,
            storage.as_ptr(),
            srank as u64,
            addr,
        );
        if st != 0 {
            assert_eq!(aclGetViewOffset(t, &mut off), 0);
            assert_eq!(off, offset);
        }
        common::assert_not_internal("aclInitTensor", st);
        assert_eq!(aclDestroyTensor(t), 0);
        assert_ne!(aclDestroyTensor(t), 0);
    }
});
