//! Every declared operator (`capi::ops::DECLARED`: a new operator is fuzzed the day it is
//! declared): phase 1 with arbitrary arguments of the declared kinds — NULLs, stale
//! handles, wrong dtypes, shapes and formats, views past their storage, host memory,
//! aliasing — then phase 2 where phase 1 succeeds. Every call returns a status (never an
//! internal error or a crash); a failing phase 1 writes no executor; whatever phase 1
//! accepts, phase 2 queues and the stream synchronizes without error; sanitizers watch
//! every byte touched.
#![no_main]

#[path = "common.rs"]
mod common;

use aclnn_cpu::capi::meta::*;
use aclnn_cpu::capi::ops::{ArgSource, Param, DECLARED, PLAIN};
use aclnn_cpu::capi::runtime::*;
use common::{assert_not_internal, Bytes};
use libfuzzer_sys::fuzz_target;
use std::ffi::{c_char, c_void};
use std::ptr::{null, null_mut};

/// The dtypes aclnn knows (f32 f16 s8 s32 u8 s16 u16 u32 s64 u64 f64 bool c64 c128 bf16 c32,
/// and the storage dtype ACL_INT4: every operator but the quantized ones must refuse it).
const DTYPES: [i32; 17] = [0, 1, 2, 3, 4, 6, 7, 8, 9, 10, 11, 12, 16, 17, 27, 33, 29];

/// Strings the declared `char *` parameters take (layouts, modes), and some they refuse.
const STRINGS: [&[u8]; 8] = [b"BSND\0", b"BNSD\0", b"BSH\0", b"TND\0", b"\0", b"none\0", b"mean\0", b"\xff\xfe\0"];

fn elem_size(dt: i32) -> usize {
    match dt {
        2 | 4 | 12 => 1,
        1 | 6 | 7 | 27 => 2,
        0 | 3 | 8 | 33 => 4,
        17 => 16,
        _ => 8,
    }
}

/// Everything one input creates, destroyed at the end. Most tensors share the case's base
/// dtype and shape (or broadcast against it) so that phase 1 often succeeds and phase 2
/// runs; the rest are arbitrary.
struct Case<'a> {
    b: Bytes<'a>,
    base_dtype: i32,
    base_shape: Vec<i64>,
    dev: Vec<*mut c_void>,
    host: Vec<Vec<u64>>,
    /// A tensor with a NULL data address: phase 1 accepts it (the address may be set
    /// later), phase 2 refuses it.
    null_data: bool,
    tensors: Vec<*mut aclTensor>,
    scalars: Vec<*mut aclScalar>,
    int_arrays: Vec<*mut aclIntArray>,
    float_arrays: Vec<*mut aclFloatArray>,
    bool_arrays: Vec<*mut aclBoolArray>,
    tensor_lists: Vec<*mut aclTensorList>,
    scalar_lists: Vec<*mut aclScalarList>,
}

impl Case<'_> {
    fn dtype(&mut self) -> i32 {
        match self.b.u8() {
            k @ 0..=159 if k < 96 => self.base_dtype,
            k @ 0..=239 => DTYPES[k as usize % DTYPES.len()],
            k => k as i32 - 200,
        }
    }

    /// Tensor memory: device memory of the right size (or too small), an earlier
    /// tensor's (aliasing), host memory, or NULL.
    fn memory(&mut self, bytes: usize) -> *mut c_void {
        match self.b.u8() % 16 {
            0 | 1 if !self.dev.is_empty() => self.dev[self.b.u8() as usize % self.dev.len()],
            2 => {
                self.null_data = true;
                null_mut()
            }
            3 => {
                self.host.push(vec![0u64; bytes / 8 + 1]);
                self.host.last_mut().unwrap().as_mut_ptr() as *mut c_void
            }
            k => {
                let size = if k == 4 { bytes / 2 } else { bytes }.max(1);
                let mut p = null_mut();
                assert_eq!(unsafe { aclrtMalloc(&mut p, size, 0) }, 0);
                let fill = self.b.take(size.min(64));
                for i in 0..size {
                    let v = fill.get(i % fill.len().max(1)).copied().unwrap_or(0);
                    unsafe { *(p as *mut u8).add(i) = v };
                }
                self.dev.push(p);
                p
            }
        }
    }

    fn new_tensor(&mut self) -> *mut aclTensor {
        let dt = self.dtype();
        let shape: Vec<i64> = match self.b.u8() % 8 {
            0..=3 => self.base_shape.clone(),
            4 => {
                // broadcasts against the base shape: some axes 1, some leading ones gone
                let drop = self.b.u8() as usize % (self.base_shape.len() + 1);
                let mask = self.b.u8();
                self.base_shape[drop..]
                    .iter()
                    .enumerate()
                    .map(|(i, d)| if mask >> (i % 8) & 1 == 1 { 1 } else { *d })
                    .collect()
            }
            _ => {
                let rank = match self.b.u8() % 16 {
                    15 => 9,
                    r => (r % 5) as usize,
                };
                (0..rank).map(|_| (self.b.u8() % 5) as i64).collect()
            }
        };
        let rank = shape.len();
        let contiguous = self.b.u8() % 2 == 0;
        let strides: Vec<i64> = (0..rank).map(|_| (self.b.u8() % 9) as i64).collect();
        let offset = (self.b.u8() % 6) as i64;
        let reach: i64 = if shape.contains(&0) {
            0
        } else if contiguous {
            shape.iter().product::<i64>() + offset
        } else {
            offset + shape.iter().zip(&strides).map(|(d, s)| (d - 1) * s).sum::<i64>() + 1
        };
        let storage = [(reach + (self.b.u8() % 4) as i64 - 1).max(0)];
        let data = self.memory(storage[0] as usize * elem_size(dt));
        let format = match self.b.u8() % 16 {
            0 => (self.b.u8() % 40) as i32 - 1,
            _ => 2,
        };
        let sp = if contiguous { null() } else { strides.as_ptr() };
        unsafe { aclCreateTensor(shape.as_ptr(), rank as u64, dt, sp, offset, format, storage.as_ptr(), 1, data) }
    }

    fn new_scalar(&mut self) -> *mut aclScalar {
        let dt = self.dtype();
        let mut v = self.b.take(16);
        unsafe { aclCreateScalar(v.as_mut_ptr() as *mut c_void, dt) }
    }

    /// NULL (k == 0), a stale handle (k == 1: created, then destroyed), or a live one.
    fn pick<T>(&mut self, make: impl Fn(&mut Self) -> *mut T, destroy: impl Fn(*mut T)) -> (u8, *mut T) {
        match self.b.u8() % 32 {
            0 => (0, null_mut()),
            1 => {
                let p = make(self);
                destroy(p);
                (1, p)
            }
            _ => (2, make(self)),
        }
    }

    fn small_ints(&mut self) -> Vec<i64> {
        let n = (self.b.u8() % 5) as usize;
        (0..n).map(|_| self.int_value()).collect()
    }

    fn int_value(&mut self) -> i64 {
        match self.b.u8() % 16 {
            0 => self.b.i64(),
            k => (k as i64 % 8) - 3,
        }
    }
}

impl ArgSource for Case<'_> {
    fn out_is_null(&mut self, _: &Param) -> bool {
        self.b.u8() % 16 == 0
    }
    fn tensor(&mut self, _: &Param) -> *mut aclTensor {
        let (k, t) = self.pick(Case::new_tensor, |t| assert_eq!(aclDestroyTensor(t), 0));
        if k == 2 {
            self.tensors.push(t);
        }
        t
    }
    fn scalar(&mut self, _: &Param) -> *mut aclScalar {
        let (k, s) = self.pick(Case::new_scalar, |s| assert_eq!(aclDestroyScalar(s), 0));
        if k == 2 {
            self.scalars.push(s);
        }
        s
    }
    fn int_array(&mut self, _: &Param) -> *mut aclIntArray {
        let (k, a) = self.pick(
            |c| {
                let v = c.small_ints();
                unsafe { aclCreateIntArray(v.as_ptr(), v.len() as u64) }
            },
            |a| assert_eq!(aclDestroyIntArray(a), 0),
        );
        if k == 2 {
            self.int_arrays.push(a);
        }
        a
    }
    fn float_array(&mut self, _: &Param) -> *mut aclFloatArray {
        let (k, a) = self.pick(
            |c| {
                let v: Vec<f32> = c.small_ints().iter().map(|x| *x as f32 * 0.5).collect();
                unsafe { aclCreateFloatArray(v.as_ptr(), v.len() as u64) }
            },
            |a| assert_eq!(aclDestroyFloatArray(a), 0),
        );
        if k == 2 {
            self.float_arrays.push(a);
        }
        a
    }
    fn bool_array(&mut self, _: &Param) -> *mut aclBoolArray {
        let (k, a) = self.pick(
            |c| {
                let v: Vec<bool> = c.small_ints().iter().map(|x| *x > 0).collect();
                unsafe { aclCreateBoolArray(v.as_ptr(), v.len() as u64) }
            },
            |a| assert_eq!(aclDestroyBoolArray(a), 0),
        );
        if k == 2 {
            self.bool_arrays.push(a);
        }
        a
    }
    fn tensor_list(&mut self, _: &Param) -> *mut aclTensorList {
        let (k, l) = self.pick(
            |c| {
                let n = (c.b.u8() % 5) as usize;
                let v: Vec<*const aclTensor> = (0..n).map(|_| c.new_tensor() as *const _).collect();
                let l = unsafe { aclCreateTensorList(v.as_ptr(), n as u64) };
                if l.is_null() {
                    // a member failed to create: the list owns nothing
                    v.iter().filter(|t| !t.is_null()).for_each(|t| assert_eq!(aclDestroyTensor(*t), 0));
                }
                l
            },
            |l| assert_eq!(aclDestroyTensorList(l), 0),
        );
        if k == 2 {
            self.tensor_lists.push(l);
        }
        l
    }
    fn scalar_list(&mut self, _: &Param) -> *mut aclScalarList {
        let (k, l) = self.pick(
            |c| {
                let n = (c.b.u8() % 5) as usize;
                let v: Vec<*const aclScalar> = (0..n).map(|_| c.new_scalar() as *const _).collect();
                let l = unsafe { aclCreateScalarList(v.as_ptr(), n as u64) };
                if l.is_null() {
                    // a member failed to create: the list owns nothing
                    v.iter().filter(|t| !t.is_null()).for_each(|t| assert_eq!(aclDestroyScalar(*t), 0));
                }
                l
            },
            |l| assert_eq!(aclDestroyScalarList(l), 0),
        );
        if k == 2 {
            self.scalar_lists.push(l);
        }
        l
    }
    fn int(&mut self, _: &Param) -> i64 {
        self.int_value()
    }
    fn float(&mut self, _: &Param) -> f64 {
        match self.b.u8() % 8 {
            0 => f64::from_bits(self.b.i64() as u64),
            k => k as f64 * 0.25 - 0.5,
        }
    }
    fn bool(&mut self, _: &Param) -> bool {
        self.b.u8() % 2 == 1
    }
    fn dtype(&mut self, _: &Param) -> i32 {
        Case::dtype(self)
    }
    fn string(&mut self, _: &Param) -> *const c_char {
        match self.b.u8() % 16 {
            15 => null(),
            k => STRINGS[k as usize % STRINGS.len()].as_ptr() as *const c_char,
        }
    }
}

impl Drop for Case<'_> {
    fn drop(&mut self) {
        for t in &self.tensors {
            assert_eq!(aclDestroyTensor(*t), 0);
        }
        for s in &self.scalars {
            assert_eq!(aclDestroyScalar(*s), 0);
        }
        for a in &self.int_arrays {
            assert_eq!(aclDestroyIntArray(*a), 0);
        }
        for a in &self.float_arrays {
            assert_eq!(aclDestroyFloatArray(*a), 0);
        }
        for a in &self.bool_arrays {
            assert_eq!(aclDestroyBoolArray(*a), 0);
        }
        for l in &self.tensor_lists {
            assert_eq!(aclDestroyTensorList(*l), 0);
        }
        for l in &self.scalar_lists {
            assert_eq!(aclDestroyScalarList(*l), 0);
        }
        for p in &self.dev {
            assert_eq!(aclrtFree(*p), 0);
        }
    }
}

fuzz_target!(|data: &[u8]| {
    common::device();
    let mut b = Bytes(data);
    // Pairs first, then the plain functions (aclnnCalculateMatmulWeightSize).
    let pick = (b.u8() as usize | (b.u8() as usize) << 8) % (DECLARED.len() + PLAIN.len());
    let op = &DECLARED[pick.min(DECLARED.len() - 1)];
    let base_dtype = DTYPES[b.u8() as usize % DTYPES.len()];
    let rank = (b.u8() % 5) as usize;
    let base_shape = (0..rank).map(|_| (b.u8() % 5) as i64).collect();
    let mut c = Case {
        b,
        base_dtype,
        base_shape,
        dev: vec![],
        host: vec![],
        null_data: false,
        tensors: vec![],
        scalars: vec![],
        int_arrays: vec![],
        float_arrays: vec![],
        bool_arrays: vec![],
        tensor_lists: vec![],
        scalar_lists: vec![],
    };
    if let Some(f) = PLAIN.get(pick.wrapping_sub(DECLARED.len())) {
        let st = unsafe { (f.call)(&mut c) };
        assert_not_internal(f.name, st);
        return;
    }
    let name = op.name;
    let mut ws = 0u64;
    let mut ex: *mut aclOpExecutor = null_mut();
    let st = unsafe { (op.phase1)(&mut c, &mut ws, &mut ex) };
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
    let st2 = (op.phase2)(wp, ws, ex, null_mut());
    if st2 != 0 && c.null_data {
        assert_not_internal(name, st2);
        assert_eq!(unsafe { aclDestroyAclOpExecutor(ex) }, 0);
    } else if st2 != 0 {
        let msg = unsafe { std::ffi::CStr::from_ptr(aclGetRecentErrMsg()) };
        panic!("{name}: phase 1 succeeded but phase 2 returned {st2}: {}", msg.to_string_lossy());
    }
    // The run may refuse the data it finds (an index out of range: the device's AI-core
    // exception, reported at synchronize); any other failure of queued work is a bug.
    let sync = aclrtSynchronizeStream(null_mut());
    if sync != 0 && sync != aclnn_cpu::error::acl::ACL_ERROR_RT_AICORE_EXCEPTION {
        let msg = unsafe { std::ffi::CStr::from_ptr(aclGetRecentErrMsg()) };
        panic!("{name}: the queued work failed ({sync}): {}", msg.to_string_lossy());
    }
    if !wp.is_null() {
        assert_eq!(aclrtFree(wp), 0);
    }
});
