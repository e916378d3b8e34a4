//! Phase 1 + phase 2 of the element-wise operators with arbitrary shapes, strides, offsets,
//! dtypes, scalars, aliasing and memory (device, too small, host): every call returns a
//! status (never an internal error or a crash); whatever phase 1 accepts, phase 2 runs and
//! the stream synchronizes without error; sanitizers watch every byte touched.
#![no_main]

#[path = "common.rs"]
mod common;

use aclnn_cpu::capi::base::aclrtStream;
use aclnn_cpu::capi::meta::*;
use aclnn_cpu::capi::ops::*;
use aclnn_cpu::capi::runtime::*;
use common::{assert_not_internal, Bytes};
use libfuzzer_sys::fuzz_target;
use std::ffi::c_void;
use std::ptr::{null, null_mut};

/// The dtypes aclnn knows (f32 f16 s8 s32 u8 s16 u16 u32 s64 u64 f64 bool c64 c128 bf16 c32).
const DTYPES: [i32; 16] = [0, 1, 2, 3, 4, 6, 7, 8, 9, 10, 11, 12, 16, 17, 27, 33];

fn dtype(b: &mut Bytes) -> i32 {
    let k = b.u8() as usize;
    if k < 240 {
        DTYPES[k % DTYPES.len()]
    } else {
        k as i32 - 200
    }
}

fn elem_size(dt: i32) -> usize {
    match dt {
        2 | 4 | 12 => 1,
        1 | 6 | 7 | 27 => 2,
        0 | 3 | 8 | 33 => 4,
        17 => 16,
        _ => 8,
    }
}

/// Device memory the case owns (freed at the end) and host memory it points tensors at.
struct Case {
    dev: Vec<*mut c_void>,
    host: Vec<Vec<u64>>,
    /// A tensor with a NULL data address: phase 1 accepts it (the address may be set
    /// later), phase 2 refuses it.
    null_data: bool,
    tensors: Vec<*mut aclTensor>,
    scalars: Vec<*mut aclScalar>,
}

impl Case {
    fn tensor(&mut self, b: &mut Bytes) -> *mut aclTensor {
        let dt = dtype(b);
        let rank = match b.u8() % 16 {
            15 => 9,
            r => (r % 5) as usize,
        };
        let shape: Vec<i64> = (0..rank).map(|_| (b.u8() % 5) as i64).collect();
        let contiguous = b.u8() % 2 == 0;
        let strides: Vec<i64> = (0..rank).map(|_| (b.u8() % 9) as i64).collect();
        let offset = (b.u8() % 6) as i64;
        let reach: i64 = if shape.contains(&0) {
            0
        } else if contiguous {
            shape.iter().product::<i64>() + offset
        } else {
            offset
                + shape
                    .iter()
                    .zip(&strides)
                    .map(|(d, s)| (d - 1) * s)
                    .sum::<i64>()
                + 1
        };
        let storage = [(reach + (b.u8() % 4) as i64 - 1).max(0)];
        let bytes = storage[0] as usize * elem_size(dt);
        let data: *mut c_void = match b.u8() % 16 {
            // the memory of an earlier tensor: aliasing and in-place overlap
            0 | 1 if !self.dev.is_empty() => self.dev[b.u8() as usize % self.dev.len()],
            2 => {
                self.null_data = true;
                null_mut()
            }
            3 => {
                self.host.push(vec![0u64; bytes / 8 + 1]);
                self.host.last_mut().unwrap().as_mut_ptr() as *mut c_void
            }
            k => {
                // sometimes smaller than the view needs: refused at phase 1
                let size = if k == 4 { bytes / 2 } else { bytes }.max(1);
                let mut p = null_mut();
                assert_eq!(unsafe { aclrtMalloc(&mut p, size, 0) }, 0);
                let fill = b.take(size.min(64));
                for i in 0..size {
                    unsafe {
                        *(p as *mut u8).add(i) =
                            fill.get(i % fill.len().max(1)).copied().unwrap_or(0)
                    };
                }
                self.dev.push(p);
                p
            }
        };
        let sp = if contiguous { null() } else { strides.as_ptr() };
        let t = unsafe {
            aclCreateTensor(
                shape.as_ptr(),
                rank as u64,
                dt,
                sp,
                offset,
                2,
                storage.as_ptr(),
                1,
                data,
            )
        };
        self.tensors.push(t);
        t
    }

    fn scalar(&mut self, b: &mut Bytes) -> *mut aclScalar {
        let dt = dtype(b);
        let mut v = b.take(16);
        let s = unsafe { aclCreateScalar(v.as_mut_ptr() as *mut c_void, dt) };
        self.scalars.push(s);
        s
    }
}

impl Drop for Case {
    fn drop(&mut self) {
        for t in &self.tensors {
            assert_eq!(aclDestroyTensor(*t), 0);
        }
        for s in &self.scalars {
            assert_eq!(aclDestroyScalar(*s), 0);
        }
        for p in &self.dev {
            assert_eq!(aclrtFree(*p), 0);
        }
    }
}

type Phase2 = extern "C" fn(*mut c_void, u64, *mut aclOpExecutor, aclrtStream) -> aclnnStatus;

fuzz_target!(|data: &[u8]| {
    common::device();
    let mut b = Bytes(data);
    let mut c = Case {
        dev: vec![],
        host: vec![],
        null_data: false,
        tensors: vec![],
        scalars: vec![],
    };
    let op = b.u8() % 20;
    let t0 = c.tensor(&mut b);
    let t1 = c.tensor(&mut b);
    let t2 = c.tensor(&mut b);
    let s0 = c.scalar(&mut b);
    let s1 = if b.u8() % 4 == 0 {
        null_mut()
    } else {
        c.scalar(&mut b)
    };
    let aux = b.i32();
    let mut ws = 0u64;
    let mut ex: *mut aclOpExecutor = null_mut();
    let (w, e) = (&mut ws as *mut u64, &mut ex as *mut *mut aclOpExecutor);
    let (st, name, p2): (i32, &str, Phase2) = unsafe {
        match op {
            0 => (
                add::aclnnAddGetWorkspaceSize(t0, t1, s0, t2, w, e),
                "Add",
                add::aclnnAdd,
            ),
            1 => (
                add::aclnnAddsGetWorkspaceSize(t0, s0, s1, t2, w, e),
                "Adds",
                add::aclnnAdds,
            ),
            2 => (
                sub::aclnnSubGetWorkspaceSize(t0, t1, s0, t2, w, e),
                "Sub",
                sub::aclnnSub,
            ),
            3 => (
                mul::aclnnMulGetWorkspaceSize(t0, t1, t2, w, e),
                "Mul",
                mul::aclnnMul,
            ),
            4 => (
                mul::aclnnMulsGetWorkspaceSize(t0, s0, t2, w, e),
                "Muls",
                mul::aclnnMuls,
            ),
            5 => (
                div::aclnnDivGetWorkspaceSize(t0, t1, t2, w, e),
                "Div",
                div::aclnnDiv,
            ),
            6 => (
                div::aclnnDivModGetWorkspaceSize(t0, t1, aux % 4, t2, w, e),
                "DivMod",
                div::aclnnDivMod,
            ),
            7 => (
                maximum::aclnnMaximumGetWorkspaceSize(t0, t1, t2, w, e),
                "Maximum",
                maximum::aclnnMaximum,
            ),
            8 => (
                eq_tensor::aclnnEqTensorGetWorkspaceSize(t0, t1, t2, w, e),
                "EqTensor",
                eq_tensor::aclnnEqTensor,
            ),
            9 => (
                logical_and::aclnnLogicalAndGetWorkspaceSize(t0, t1, t2, w, e),
                "LogicalAnd",
                logical_and::aclnnLogicalAnd,
            ),
            10 => (
                cast::aclnnCastGetWorkspaceSize(t0, aux % 40, t2, w, e),
                "Cast",
                cast::aclnnCast,
            ),
            11 => (
                abs::aclnnAbsGetWorkspaceSize(t0, t2, w, e),
                "Abs",
                abs::aclnnAbs,
            ),
            12 => (
                exp::aclnnExpGetWorkspaceSize(t0, t2, w, e),
                "Exp",
                exp::aclnnExp,
            ),
            13 => (
                neg::aclnnNegGetWorkspaceSize(t0, t2, w, e),
                "Neg",
                neg::aclnnNeg,
            ),
            14 => (
                sigmoid::aclnnSigmoidGetWorkspaceSize(t0, t2, w, e),
                "Sigmoid",
                sigmoid::aclnnSigmoid,
            ),
            15 => (
                add::aclnnInplaceAddGetWorkspaceSize(t0, t1, s0, w, e),
                "InplaceAdd",
                add::aclnnInplaceAdd,
            ),
            16 => (
                copy::aclnnInplaceCopyGetWorkspaceSize(t0, t1, w, e),
                "InplaceCopy",
                copy::aclnnInplaceCopy,
            ),
            17 => (
                pow::aclnnPowTensorScalarGetWorkspaceSize(t0, s0, t2, w, e),
                "PowTensorScalar",
                pow::aclnnPowTensorScalar,
            ),
            18 => (
                s_where::aclnnSWhereGetWorkspaceSize(t1, t0, t2, t2, w, e),
                "SWhere",
                s_where::aclnnSWhere,
            ),
            _ => (
                clamp::aclnnClampGetWorkspaceSize(t0, s0, s1, t2, w, e),
                "Clamp",
                clamp::aclnnClamp,
            ),
        }
    };
    assert_not_internal(name, st);
    if st != 0 {
        assert!(ex.is_null(), "{name}: a failing phase 1 wrote its executor");
        return;
    }
    assert!(!ex.is_null());
    if ws > 1 << 26 {
        assert_eq!(unsafe { aclDestroyAclOpExecutor(ex) }, 0);
        return;
    }
    let mut wp = null_mut();
    if ws > 0 {
        assert_eq!(unsafe { aclrtMalloc(&mut wp, ws as usize, 0) }, 0);
    }
    let st2 = p2(wp, ws, ex, null_mut());
    if st2 != 0 && c.null_data {
        assert_not_internal(name, st2);
        assert_eq!(unsafe { aclDestroyAclOpExecutor(ex) }, 0);
    } else if st2 != 0 {
        let msg = unsafe { std::ffi::CStr::from_ptr(aclGetRecentErrMsg()) };
        panic!(
            "{name}: phase 1 succeeded but phase 2 returned {st2}: {}",
            msg.to_string_lossy()
        );
    }
    let sync = aclrtSynchronizeStream(null_mut());
    if sync != 0 {
        let msg = unsafe { std::ffi::CStr::from_ptr(aclGetRecentErrMsg()) };
        panic!(
            "{name}: the queued work failed ({sync}): {}",
            msg.to_string_lossy()
        );
    }
    if !wp.is_null() {
        assert_eq!(aclrtFree(wp), 0);
    }
});
