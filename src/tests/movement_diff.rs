//! The data-movement operators (Cat, Stack, SplitTensor, SplitWithSize, Permute, Slice,
//! SliceV2, Expand, Repeat), GeluMul and the several-output extremes (MaxDim, MinDim,
//! Aminmax) through their C entry points, on
//! random shapes, dims (negative too), strided views with offsets and mixed dtypes,
//! against plain loops over the logical indices written here (exact: these ops move
//! values; GeluMul against an f64 formula within 1 ulp of f32, 0.5 ulp + that for f16).
//! Also the tensor-list parameter machinery: list members re-pointed with
//! aclSetDynamic{Input,Output}TensorAddr on a repeatable executor.

use super::add_diff::Rng;
use crate::capi::meta::*;
use crate::capi::ops::{cat, gelu_mul, split_tensor, split_with_size, stack};
use crate::capi::runtime::{
    aclGetRecentErrMsg, aclInit, aclrtFree, aclrtMalloc, aclrtMemcpy, aclrtSetDevice,
    aclrtSynchronizeStream,
};
use std::ffi::{c_void, CStr};
use std::ptr::{null, null_mut};

const F32: i32 = 0;
const F16: i32 = 1;
const S32: i32 = 3;
const BOOL: i32 = 12;
const ND: i32 = 2;

fn device() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let _ = aclInit(null());
        assert_eq!(aclrtSetDevice(0), 0);
    });
}

fn err() -> String {
    unsafe { CStr::from_ptr(aclGetRecentErrMsg()) }
        .to_string_lossy()
        .into_owned()
}

/// A device buffer seen as a view: logical shape, element strides, offset.
struct T {
    dtype: i32,
    shape: Vec<usize>,
    strides: Vec<usize>,
    offset: usize,
    storage: usize,
    dev: *mut c_void,
    t: *mut aclTensor,
}

fn esize(d: i32) -> usize {
    match d {
        F16 => 2,
        BOOL => 1,
        _ => 4,
    }
}

fn encode(d: i32, v: f64) -> Vec<u8> {
    match d {
        F32 => (v as f32).to_le_bytes().to_vec(),
        F16 => half::f16::from_f64(v).to_bits().to_le_bytes().to_vec(),
        BOOL => vec![(v != 0.0) as u8],
        _ => (v as i32).to_le_bytes().to_vec(),
    }
}

fn decode(d: i32, b: &[u8]) -> f64 {
    match d {
        F32 => f32::from_le_bytes(b[..4].try_into().unwrap()) as f64,
        F16 => half::f16::from_bits(u16::from_le_bytes(b[..2].try_into().unwrap())).to_f64(),
        BOOL => (b[0] != 0) as u8 as f64,
        _ => i32::from_le_bytes(b[..4].try_into().unwrap()) as f64,
    }
}

impl T {
    /// A view of `shape`, contiguous or with gaps between rows, at an offset; storage
    /// filled with `fill(storage index)`.
    fn new(rng: &mut Rng, dtype: i32, shape: &[usize], fill: impl Fn(usize) -> f64) -> T {
        let strided = rng.next() % 2 == 0;
        let mut strides = vec![0; shape.len()];
        let mut acc = 1;
        for d in (0..shape.len()).rev() {
            strides[d] = acc;
            let pad = if strided {
                (rng.next() % 3) as usize
            } else {
                0
            };
            acc *= shape[d] + pad;
        }
        // A permuted-looking view now and then: swap the strides of two axes of equal size.
        let offset = (rng.next() % 4) as usize;
        let reach = if shape.contains(&0) {
            0
        } else {
            shape
                .iter()
                .zip(&strides)
                .map(|(n, s)| (n - 1) * s)
                .sum::<usize>()
                + 1
        };
        let storage = offset + reach + 1;
        let mut bytes = Vec::with_capacity(storage * esize(dtype));
        for i in 0..storage {
            bytes.extend(encode(dtype, fill(i)));
        }
        let mut dev = null_mut();
        assert_eq!(unsafe { aclrtMalloc(&mut dev, bytes.len().max(1), 0) }, 0);
        assert_eq!(
            unsafe {
                aclrtMemcpy(
                    dev,
                    bytes.len(),
                    bytes.as_ptr() as *const c_void,
                    bytes.len(),
                    1,
                )
            },
            0
        );
        let dims: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
        let st: Vec<i64> = strides.iter().map(|&s| s as i64).collect();
        let sto = [storage as i64];
        let t = unsafe {
            aclCreateTensor(
                dims.as_ptr(),
                dims.len() as u64,
                dtype,
                st.as_ptr(),
                offset as i64,
                ND,
                sto.as_ptr(),
                1,
                dev,
            )
        };
        assert!(!t.is_null(), "{}", err());
        T {
            dtype,
            shape: shape.to_vec(),
            strides,
            offset,
            storage,
            dev,
            t,
        }
    }

    /// A new buffer with `self`'s view (shape, strides, offset, storage), filled by `fill`.
    fn like(&self, fill: impl Fn(usize) -> f64) -> T {
        let mut bytes = Vec::with_capacity(self.storage * esize(self.dtype));
        for i in 0..self.storage {
            bytes.extend(encode(self.dtype, fill(i)));
        }
        let mut dev = null_mut();
        assert_eq!(unsafe { aclrtMalloc(&mut dev, bytes.len().max(1), 0) }, 0);
        assert_eq!(
            unsafe {
                aclrtMemcpy(
                    dev,
                    bytes.len(),
                    bytes.as_ptr() as *const c_void,
                    bytes.len(),
                    1,
                )
            },
            0
        );
        T {
            dtype: self.dtype,
            shape: self.shape.clone(),
            strides: self.strides.clone(),
            offset: self.offset,
            storage: self.storage,
            dev,
            t: null_mut(),
        }
    }

    fn bytes(&self) -> Vec<u8> {
        let n = self.storage * esize(self.dtype);
        let mut b = vec![0u8; n];
        assert_eq!(
            unsafe { aclrtMemcpy(b.as_mut_ptr() as *mut c_void, n, self.dev, n, 2) },
            0
        );
        b
    }

    fn storage_index(&self, idx: &[usize]) -> usize {
        self.offset
            + idx
                .iter()
                .zip(&self.strides)
                .map(|(i, s)| i * s)
                .sum::<usize>()
    }

    /// The element at logical `idx`.
    fn at(&self, bytes: &[u8], idx: &[usize]) -> f64 {
        let e = esize(self.dtype);
        let i = self.storage_index(idx) * e;
        decode(self.dtype, &bytes[i..i + e])
    }

    /// Every storage element outside the view, with its value.
    fn outside(&self, bytes: &[u8]) -> Vec<(usize, f64)> {
        let mut inside = vec![false; self.storage];
        for idx in indices(&self.shape) {
            inside[self.storage_index(&idx)] = true;
        }
        let e = esize(self.dtype);
        (0..self.storage)
            .filter(|i| !inside[*i])
            .map(|i| (i, decode(self.dtype, &bytes[i * e..i * e + e])))
            .collect()
    }
}

impl Drop for T {
    fn drop(&mut self) {
        if !self.t.is_null() {
            assert_eq!(aclDestroyTensor(self.t), 0);
        }
        assert_eq!(aclrtFree(self.dev), 0);
    }
}

fn indices(shape: &[usize]) -> Vec<Vec<usize>> {
    let n: usize = shape.iter().product();
    let mut out = Vec::with_capacity(n);
    for mut k in 0..n {
        let mut idx = vec![0; shape.len()];
        for d in (0..shape.len()).rev() {
            idx[d] = k % shape[d];
            k /= shape[d];
        }
        out.push(idx);
    }
    out
}

fn run(
    st: i32,
    ws: u64,
    ex: *mut aclOpExecutor,
    phase2: extern "C" fn(*mut c_void, u64, *mut aclOpExecutor, *mut c_void) -> i32,
) {
    assert_eq!(st, 0, "phase 1: {}", err());
    let mut w = null_mut();
    if ws > 0 {
        assert_eq!(unsafe { aclrtMalloc(&mut w, ws as usize, 0) }, 0);
    }
    assert_eq!(phase2(w, ws, ex, null_mut()), 0, "phase 2: {}", err());
    assert_eq!(aclrtSynchronizeStream(null_mut()), 0, "{}", err());
    if !w.is_null() {
        assert_eq!(aclrtFree(w), 0);
    }
}

/// Values exact in every dtype used here (small integers and halves).
fn val(i: usize, salt: usize) -> f64 {
    (((i * 7 + salt * 13) % 41) as f64 - 20.0) * 0.5
}

/// The result of converting `v` (exact in every dtype here but halves in s32) to `d`.
fn conv(v: f64, d: i32) -> f64 {
    if d == S32 {
        v.trunc()
    } else {
        v
    }
}

/// A list holding new tensor handles that view the same storage as `ts` (a list owns
/// its tensors, so it gets its own).
fn list_of(ts: &[&T]) -> *mut aclTensorList {
    let hs: Vec<*const aclTensor> = ts
        .iter()
        .map(|t| {
            let dims: Vec<i64> = t.shape.iter().map(|&d| d as i64).collect();
            let st: Vec<i64> = t.strides.iter().map(|&s| s as i64).collect();
            let sto = [t.storage as i64];
            unsafe {
                aclCreateTensor(
                    dims.as_ptr(),
                    dims.len() as u64,
                    t.dtype,
                    st.as_ptr(),
                    t.offset as i64,
                    ND,
                    sto.as_ptr(),
                    1,
                    t.dev,
                ) as *const aclTensor
            }
        })
        .collect();
    let l = unsafe { aclCreateTensorList(hs.as_ptr(), hs.len() as u64) };
    assert!(!l.is_null(), "{}", err());
    l
}

#[test]
fn cat_and_stack_match_a_loop() {
    device();
    let mut rng = Rng::new(0xca7);
    for case in 0..120 {
        let rank = 1 + (rng.next() % 4) as usize;
        let base: Vec<usize> = (0..rank).map(|_| (rng.next() % 4) as usize + 1).collect();
        let n = 1 + (rng.next() % 4) as usize;
        let stacking = case % 3 == 2;
        let ax = (rng.next() % (rank as u64 + stacking as u64)) as usize;
        let dtypes = [F32, F16, S32];
        let mut ins = vec![];
        for k in 0..n {
            let mut shape = base.clone();
            if !stacking {
                shape[ax] = (rng.next() % 4) as usize; // 0 too
            }
            let d = dtypes[(rng.next() % 3) as usize];
            ins.push(T::new(&mut rng, d, &shape, |i| val(i, k)));
        }
        // Promotion: f32 over f16 over s32 (an integer with a float gives the float).
        let has = |d| ins.iter().any(|t| t.dtype == d);
        let out_dtype = if has(F32) {
            F32
        } else if has(F16) {
            F16
        } else {
            S32
        };
        let mut out_shape = base.clone();
        if stacking {
            out_shape.insert(ax, n);
        } else {
            out_shape[ax] = ins.iter().map(|t| t.shape[ax]).sum();
        }
        let out = T::new(&mut rng, out_dtype, &out_shape, |_| 99.0);
        let refs: Vec<&T> = ins.iter().collect();
        let list = list_of(&refs);
        let dim = if rng.next() % 2 == 0 {
            ax as i64
        } else {
            ax as i64 - (rank + stacking as usize) as i64
        };
        let (mut ws, mut ex) = (0u64, null_mut());
        if stacking {
            let st =
                unsafe { stack::aclnnStackGetWorkspaceSize(list, dim, out.t, &mut ws, &mut ex) };
            run(st, ws, ex, stack::aclnnStack);
        } else {
            let st = unsafe { cat::aclnnCatGetWorkspaceSize(list, dim, out.t, &mut ws, &mut ex) };
            run(st, ws, ex, cat::aclnnCat);
        }
        let ob = out.bytes();
        let inb: Vec<Vec<u8>> = ins.iter().map(|t| t.bytes()).collect();
        for idx in indices(&out.shape) {
            let (k, src) = if stacking {
                let mut s = idx.clone();
                let k = s.remove(ax);
                (k, s)
            } else {
                let mut s = idx.clone();
                let mut k = 0;
                while s[ax] >= ins[k].shape[ax] {
                    s[ax] -= ins[k].shape[ax];
                    k += 1;
                }
                (k, s)
            };
            let want = conv(ins[k].at(&inb[k], &src), out_dtype);
            assert_eq!(
                out.at(&ob, &idx),
                want,
                "case {case} at {idx:?} (from tensors[{k}] {src:?})"
            );
        }
        for (i, v) in out.outside(&ob) {
            assert_eq!(
                v, 99.0,
                "case {case}: out storage {i} outside the view was written"
            );
        }
        assert_eq!(aclDestroyTensorList(list), 0);
    }
}

#[test]
fn cat_skips_1d_empty_members_and_checks_shapes() {
    device();
    let mut rng = Rng::new(7);
    let a = T::new(&mut rng, F32, &[2, 3], |i| i as f64);
    let e = T::new(&mut rng, F32, &[0], |_| 0.0);
    let b = T::new(&mut rng, F32, &[1, 3], |i| 100.0 + i as f64);
    let out = T::new(&mut rng, F32, &[3, 3], |_| -1.0);
    let list = list_of(&[&a, &e, &b]);
    let (mut ws, mut ex) = (0u64, null_mut());
    let st = unsafe { cat::aclnnCatGetWorkspaceSize(list, 0, out.t, &mut ws, &mut ex) };
    run(st, ws, ex, cat::aclnnCat);
    let ob = out.bytes();
    assert_eq!(out.at(&ob, &[2, 1]), b.at(&b.bytes(), &[0, 1]));
    // errors: dims differ off the axis; dim out of range; wrong out shape; NULL list
    let c = T::new(&mut rng, F32, &[1, 4], |_| 0.0);
    let bad = list_of(&[&a, &c]);
    for (l, dim, o, code, needle) in [
        (bad, 0i64, out.t, 161002, "dim 1 of tensors[1] is 4"),
        (list, 2, out.t, 161002, "dim 2 is out of range"),
        (list, -3, out.t, 161002, "dim -3 is out of range"),
        (
            list,
            1,
            out.t,
            161002,
            "dim 0 of tensors[2] is 1 but 2 in tensors[0]",
        ),
        (null_mut(), 0, out.t, 161001, "argument 'tensors' is NULL"),
        (list, 0, null_mut(), 161001, "argument 'out' is NULL"),
    ] {
        let (mut ws, mut ex) = (0u64, null_mut());
        let st = unsafe { cat::aclnnCatGetWorkspaceSize(l, dim, o, &mut ws, &mut ex) };
        assert_eq!(st, code, "{}", err());
        assert!(err().contains(needle), "{needle}: {}", err());
        assert!(ex.is_null());
    }
    // a list whose members are all 1-D empty: success, nothing to do
    let only_empty = list_of(&[&e]);
    let (mut ws, mut ex) = (0u64, null_mut());
    let st = unsafe { cat::aclnnCatGetWorkspaceSize(only_empty, 0, out.t, &mut ws, &mut ex) };
    run(st, ws, ex, cat::aclnnCat);
    assert_eq!(out.bytes(), ob);
    // out overlapping a member is refused
    let alias = list_of(&[&out]);
    let (mut ws, mut ex) = (0u64, null_mut());
    let st = unsafe { cat::aclnnCatGetWorkspaceSize(alias, 0, out.t, &mut ws, &mut ex) };
    assert_eq!(st, 161002);
    assert!(err().contains("overlaps"), "{}", err());
    for l in [list, bad, only_empty, alias] {
        assert_eq!(aclDestroyTensorList(l), 0);
    }
}

#[test]
fn splits_match_a_loop() {
    device();
    let mut rng = Rng::new(0x5b1);
    for case in 0..120 {
        let rank = 1 + (rng.next() % 4) as usize;
        let shape: Vec<usize> = (0..rank).map(|_| (rng.next() % 6) as usize).collect();
        let ax = (rng.next() % rank as u64) as usize;
        let dtype = [F32, F16, S32][(rng.next() % 3) as usize];
        let x = T::new(&mut rng, dtype, &shape, |i| val(i, 3));
        let n = shape[ax];
        let by_sections = case % 2 == 0;
        let sizes: Vec<usize> = if by_sections {
            let s = 1 + (rng.next() % 4) as usize;
            if n == 0 {
                vec![0]
            } else {
                (0..n.div_ceil(s)).map(|k| s.min(n - k * s)).collect()
            }
        } else {
            let mut left = n;
            let mut v = vec![];
            while left > 0 || v.is_empty() || rng.next() % 4 == 0 {
                let s = if left == 0 {
                    0
                } else {
                    1 + (rng.next() as usize % left)
                };
                v.push(s);
                left -= s;
                if v.len() > 6 {
                    break;
                }
            }
            let rest: usize = v.iter().sum();
            if rest < n {
                v.push(n - rest);
            }
            v
        };
        let outs: Vec<T> = sizes
            .iter()
            .map(|&s| {
                let mut sh = shape.clone();
                sh[ax] = s;
                T::new(&mut rng, dtype, &sh, |_| 77.0)
            })
            .collect();
        let refs: Vec<&T> = outs.iter().collect();
        let list = list_of(&refs);
        let dim = if rng.next() % 2 == 0 {
            ax as i64
        } else {
            ax as i64 - rank as i64
        };
        let (mut ws, mut ex) = (0u64, null_mut());
        if by_sections {
            let s = if n == 0 { 1 } else { sizes[0] as u64 };
            let st = unsafe {
                split_tensor::aclnnSplitTensorGetWorkspaceSize(x.t, s, dim, list, &mut ws, &mut ex)
            };
            run(st, ws, ex, split_tensor::aclnnSplitTensor);
        } else {
            let sz: Vec<i64> = sizes.iter().map(|&s| s as i64).collect();
            let arr = unsafe { aclCreateIntArray(sz.as_ptr(), sz.len() as u64) };
            let st = unsafe {
                split_with_size::aclnnSplitWithSizeGetWorkspaceSize(
                    x.t, arr, dim, list, &mut ws, &mut ex,
                )
            };
            run(st, ws, ex, split_with_size::aclnnSplitWithSize);
            assert_eq!(aclDestroyIntArray(arr), 0);
        }
        let xb = x.bytes();
        let mut start = 0;
        for (k, o) in outs.iter().enumerate() {
            let ob = o.bytes();
            for idx in indices(&o.shape) {
                let mut src = idx.clone();
                src[ax] += start;
                assert_eq!(
                    o.at(&ob, &idx),
                    x.at(&xb, &src),
                    "case {case}: out[{k}] at {idx:?}"
                );
            }
            for (i, v) in o.outside(&ob) {
                assert_eq!(
                    v, 77.0,
                    "case {case}: out[{k}] storage {i} outside the view was written"
                );
            }
            start += o.shape[ax];
        }
        assert_eq!(aclDestroyTensorList(list), 0);
    }
}

#[test]
fn split_errors_name_the_problem() {
    device();
    let mut rng = Rng::new(11);
    let x = T::new(&mut rng, F32, &[5, 2], |i| i as f64);
    let a = T::new(&mut rng, F32, &[3, 2], |_| 0.0);
    let b = T::new(&mut rng, F32, &[2, 2], |_| 0.0);
    let h = T::new(&mut rng, F16, &[2, 2], |_| 0.0);
    let two = list_of(&[&a, &b]);
    let wrong_dtype = list_of(&[&a, &h]);
    let one = list_of(&[&a]);
    for (l, sec, dim, needle) in [
        (
            one,
            3u64,
            0i64,
            "out holds 1 tensors but self [5, 2] splits into 2 chunks",
        ),
        (
            wrong_dtype,
            3,
            0,
            "out[1] has dtype ACL_FLOAT16 but self has ACL_FLOAT",
        ),
        (two, 3, 2, "dim 2 is out of range"),
        (two, 0, 0, "splitSections is 0"),
        (
            two,
            2,
            0,
            "out holds 2 tensors but self [5, 2] splits into 3 chunks",
        ),
    ] {
        let (mut ws, mut ex) = (0u64, null_mut());
        let st = unsafe {
            split_tensor::aclnnSplitTensorGetWorkspaceSize(x.t, sec, dim, l, &mut ws, &mut ex)
        };
        assert_eq!(st, 161002, "{needle}: {}", err());
        assert!(err().contains(needle), "{needle}: {}", err());
    }
    let sz = [3i64, 1];
    let arr = unsafe { aclCreateIntArray(sz.as_ptr(), 2) };
    let (mut ws, mut ex) = (0u64, null_mut());
    let st = unsafe {
        split_with_size::aclnnSplitWithSizeGetWorkspaceSize(x.t, arr, 0, two, &mut ws, &mut ex)
    };
    assert_eq!(st, 161002);
    assert!(
        err().contains("splitSize [3, 1] sums to 4 but dim 0"),
        "{}",
        err()
    );
    assert_eq!(aclDestroyIntArray(arr), 0);
    for l in [two, wrong_dtype, one] {
        assert_eq!(aclDestroyTensorList(l), 0);
    }
}

/// A repeatable Cat re-pointed member by member runs on the new memory; so does a
/// repeatable SplitTensor's output list.
#[test]
fn list_members_are_re_pointed_with_set_dynamic_tensor_addr() {
    device();
    let mut rng = Rng::new(3);
    let a = T::new(&mut rng, F32, &[2], |i| i as f64);
    let b = T::new(&mut rng, F32, &[3], |i| 10.0 + i as f64);
    let b2 = b.like(|i| 50.0 + i as f64);
    let out = T::new(&mut rng, F32, &[5], |_| 0.0);
    let list = list_of(&[&a, &b]);
    let (mut ws, mut ex) = (0u64, null_mut());
    assert_eq!(
        unsafe { cat::aclnnCatGetWorkspaceSize(list, 0, out.t, &mut ws, &mut ex) },
        0
    );
    assert_eq!(unsafe { aclSetAclOpExecutorRepeatable(ex) }, 0);
    run(0, ws, ex, cat::aclnnCat);
    let read = |t: &T| {
        let by = t.bytes();
        indices(&t.shape)
            .iter()
            .map(|i| t.at(&by, i))
            .collect::<Vec<_>>()
    };
    let joined = |x: &T, y: &T| [read(x), read(y)].concat();
    assert_eq!(read(&out), joined(&a, &b));
    // member 1 of input list 0 now reads b2's memory (b2 has the same view)
    let st = unsafe { aclSetDynamicInputTensorAddr(ex, 0, 1, list, b2.dev) };
    assert_eq!(st, 0, "{}", err());
    run(0, ws, ex, cat::aclnnCat);
    assert_eq!(read(&out), joined(&a, &b2));
    // out of range: a list parameter that does not exist, a member past the list
    assert_eq!(
        unsafe { aclSetDynamicInputTensorAddr(ex, 1, 0, list, b2.dev) },
        161002
    );
    assert!(
        err().contains("irIndex 1 is not a tensor-list parameter"),
        "{}",
        err()
    );
    assert_eq!(
        unsafe { aclSetDynamicInputTensorAddr(ex, 0, 2, list, b2.dev) },
        161002
    );
    assert_eq!(
        unsafe { aclSetDynamicOutputTensorAddr(ex, 0, 0, list, b2.dev) },
        161002
    );
    assert_eq!(unsafe { aclDestroyAclOpExecutor(ex) }, 0);

    // SplitTensor: re-point output member 0
    let x = T::new(&mut rng, F32, &[4], |i| 100.0 + i as f64);
    let o1 = T::new(&mut rng, F32, &[2], |_| 0.0);
    // one view for the three, so any of them can stand for another
    let o2 = o1.like(|_| 0.0);
    let o1b = o1.like(|_| 0.0);
    let outs = list_of(&[&o1, &o2]);
    let (mut ws, mut ex) = (0u64, null_mut());
    assert_eq!(
        unsafe {
            split_tensor::aclnnSplitTensorGetWorkspaceSize(x.t, 2, 0, outs, &mut ws, &mut ex)
        },
        0
    );
    assert_eq!(unsafe { aclSetAclOpExecutorRepeatable(ex) }, 0);
    assert_eq!(
        unsafe { aclSetDynamicOutputTensorAddr(ex, 0, 0, outs, o1b.dev) },
        0,
        "{}",
        err()
    );
    run(0, ws, ex, split_tensor::aclnnSplitTensor);
    let xs = read(&x);
    assert_eq!(read(&o1b), xs[..2]);
    assert_eq!(read(&o1), vec![0.0, 0.0]);
    assert_eq!(read(&o2), xs[2..]);
    // the whole-operator index: self is parameter 0, the output list parameter 1
    assert_eq!(
        unsafe { aclSetDynamicTensorAddr(ex, 1, 1, outs, o1.dev) },
        0,
        "{}",
        err()
    );
    run(0, ws, ex, split_tensor::aclnnSplitTensor);
    assert_eq!(read(&o1), xs[2..]);
    assert_eq!(unsafe { aclDestroyAclOpExecutor(ex) }, 0);
    assert_eq!(aclDestroyTensorList(list), 0);
    assert_eq!(aclDestroyTensorList(outs), 0);
}

fn gelu_ref(x: f64, tanh: bool) -> f64 {
    if tanh {
        let k = (2.0 / std::f64::consts::PI).sqrt();
        0.5 * x * (1.0 + (k * (x + 0.044715 * x * x * x)).tanh())
    } else {
        // erf from its series/continued fraction is not in std: use the identity with the
        // complementary error function computed by a high-precision series.
        0.5 * x * (1.0 + erf_series(x / std::f64::consts::SQRT_2))
    }
}

/// erf(z) by its Taylor series (|z| < 3) or the asymptotic expansion of erfc: ~1e-15
/// relative, independent of the C library the implementation uses.
fn erf_series(z: f64) -> f64 {
    if z.abs() < 3.0 {
        let mut sum = 0.0f64;
        let mut term = z;
        let mut n = 0.0;
        while term.abs() > 1e-20 * sum.abs().max(1e-300) {
            sum += term / (2.0 * n + 1.0);
            n += 1.0;
            term *= -z * z / n;
        }
        sum * 2.0 / std::f64::consts::PI.sqrt()
    } else {
        let t = 1.0 / (z * z);
        let mut s = 1.0;
        let mut term = 1.0;
        for k in 1..12 {
            term *= -(2.0 * k as f64 - 1.0) * t / 2.0;
            s += term;
        }
        let erfc = (-z * z).exp() / (z.abs() * std::f64::consts::PI.sqrt()) * s;
        z.signum() * (1.0 - erfc)
    }
}

#[test]
fn gelu_mul_matches_the_formula() {
    device();
    let mut rng = Rng::new(0x9e1);
    for case in 0..60 {
        let rank = 2 + (rng.next() % 3) as usize;
        let mut shape: Vec<usize> = (0..rank).map(|_| (rng.next() % 4) as usize + 1).collect();
        shape[rank - 1] = 2 * ((rng.next() % 5) as usize + 1);
        let dtype = if case % 2 == 0 { F32 } else { F16 };
        let x = T::new(&mut rng, dtype, &shape, |i| val(i, case) * 0.37);
        let mut oshape = shape.clone();
        oshape[rank - 1] /= 2;
        let out = T::new(&mut rng, dtype, &oshape, |_| 5.0);
        let tanh = rng.next() % 2 == 0;
        let mode: &[u8] = if tanh {
            b"tanh\0"
        } else if case % 3 == 0 {
            b"none\0"
        } else {
            b"\0"
        };
        let approx = if !tanh && case % 3 == 1 {
            null_mut()
        } else if mode == b"\0" {
            b"none\0".as_ptr() as *mut _
        } else {
            mode.as_ptr() as *mut _
        };
        let (mut ws, mut ex) = (0u64, null_mut());
        let st =
            unsafe { gelu_mul::aclnnGeluMulGetWorkspaceSize(x.t, approx, out.t, &mut ws, &mut ex) };
        run(st, ws, ex, gelu_mul::aclnnGeluMul);
        let (xb, ob) = (x.bytes(), out.bytes());
        let d = oshape[rank - 1];
        for idx in indices(&oshape) {
            let mut j = idx.clone();
            let a = x.at(&xb, &idx);
            j[rank - 1] += d;
            let b = x.at(&xb, &j);
            let want = gelu_ref(a, tanh) * b;
            let got = out.at(&ob, &idx);
            let ulp = if dtype == F32 {
                f32::EPSILON as f64
            } else {
                2f64.powi(-10)
            };
            let tol = ulp * want.abs().max(2f64.powi(-14)) * 1.01;
            assert!(
                (got - want).abs() <= tol,
                "case {case} at {idx:?}: gelu({a})·{b} = {want}, got {got}"
            );
        }
        for (i, v) in out.outside(&ob) {
            assert_eq!(v, 5.0, "case {case}: out storage {i} was written");
        }
    }
    // errors: a mode it does not have, an odd last dim, out of the wrong shape
    let x = T::new(&mut rng, F32, &[2, 4], |i| i as f64);
    let out = T::new(&mut rng, F32, &[2, 2], |_| 0.0);
    let odd = T::new(&mut rng, F32, &[2, 3], |i| i as f64);
    let (mut ws, mut ex) = (0u64, null_mut());
    let st = unsafe {
        gelu_mul::aclnnGeluMulGetWorkspaceSize(
            x.t,
            b"erf\0".as_ptr() as *mut _,
            out.t,
            &mut ws,
            &mut ex,
        )
    };
    assert_eq!(st, 161002);
    assert!(
        err().contains("approximateOptional is \"erf\""),
        "{}",
        err()
    );
    let st = unsafe {
        gelu_mul::aclnnGeluMulGetWorkspaceSize(odd.t, null_mut(), out.t, &mut ws, &mut ex)
    };
    assert_eq!(st, 161002);
    assert!(err().contains("last dim is 3"), "{}", err());
    let st =
        unsafe { gelu_mul::aclnnGeluMulGetWorkspaceSize(x.t, null_mut(), x.t, &mut ws, &mut ex) };
    assert_eq!(st, 161002);
    assert!(err().contains("last dim halved"), "{}", err());
}

/// MaxDim / MinDim / Aminmax: several outputs from one call, against loops (first index
/// of the extreme; a NaN is the extreme and its first index is reported).
#[test]
fn several_outputs_match_a_loop() {
    use crate::capi::ops::{aminmax, max_dim, min_dim};
    device();
    let mut rng = Rng::new(0xe47);
    for case in 0..90 {
        let rank = 1 + (rng.next() % 3) as usize;
        let shape: Vec<usize> = (0..rank).map(|_| 1 + (rng.next() % 4) as usize).collect();
        let ax = (rng.next() % rank as u64) as usize;
        let keep = rng.next() % 2 == 0;
        let dtype = if case % 3 == 0 { F16 } else { F32 };
        // small values with ties, and a NaN now and then
        let x = T::new(&mut rng, dtype, &shape, |i| {
            if (i * 31 + case) % 17 == 0 {
                f64::NAN
            } else {
                ((i * 13 + case) % 5) as f64 - 2.0
            }
        });
        let mut oshape = shape.clone();
        if keep {
            oshape[ax] = 1;
        } else {
            oshape.remove(ax);
        }
        let out = T::new(&mut rng, dtype, &oshape, |_| 9.0);
        let idx_t = T::new(&mut rng, S32, &oshape, |_| 9.0);
        let mx = case % 2 == 0;
        let (mut ws, mut ex) = (0u64, null_mut());
        if mx {
            let st = unsafe {
                max_dim::aclnnMaxDimGetWorkspaceSize(
                    x.t, ax as i64, keep, out.t, idx_t.t, &mut ws, &mut ex,
                )
            };
            run(st, ws, ex, max_dim::aclnnMaxDim);
        } else {
            let st = unsafe {
                min_dim::aclnnMinDimGetWorkspaceSize(
                    x.t,
                    ax as i64 - rank as i64,
                    keep,
                    out.t,
                    idx_t.t,
                    &mut ws,
                    &mut ex,
                )
            };
            run(st, ws, ex, min_dim::aclnnMinDim);
        }
        let (xb, ob, ib) = (x.bytes(), out.bytes(), idx_t.bytes());
        for oi in indices(&oshape) {
            let mut src = oi.clone();
            if !keep {
                src.insert(ax, 0);
            }
            let (mut best, mut at) = (f64::NAN, usize::MAX);
            for k in 0..shape[ax] {
                src[ax] = k;
                let v = x.at(&xb, &src);
                let better = at == usize::MAX
                    || (!best.is_nan() && (v.is_nan() || if mx { v > best } else { v < best }));
                if better {
                    best = v;
                    at = k;
                }
            }
            let got = out.at(&ob, &oi);
            assert!(
                got == best || (got.is_nan() && best.is_nan()),
                "case {case} at {oi:?}: {got} vs {best}"
            );
            assert_eq!(idx_t.at(&ib, &oi), at as f64, "case {case} index at {oi:?}");
        }
        // Aminmax over the same axis and over every axis (dim empty)
        let all = case % 4 == 1;
        let (mshape, dims): (Vec<usize>, Vec<i64>) = if all {
            (if keep { vec![1; rank] } else { vec![] }, vec![])
        } else {
            (oshape.clone(), vec![ax as i64])
        };
        let lo = T::new(&mut rng, dtype, &mshape, |_| 9.0);
        let hi = T::new(&mut rng, dtype, &mshape, |_| 9.0);
        let arr = unsafe { aclCreateIntArray(dims.as_ptr(), dims.len() as u64) };
        let (mut ws, mut ex) = (0u64, null_mut());
        let st = unsafe {
            aminmax::aclnnAminmaxGetWorkspaceSize(x.t, arr, keep, lo.t, hi.t, &mut ws, &mut ex)
        };
        run(st, ws, ex, aminmax::aclnnAminmax);
        assert_eq!(aclDestroyIntArray(arr), 0);
        let (lb, hb) = (lo.bytes(), hi.bytes());
        for oi in indices(&mshape) {
            let mut vals = vec![];
            for si in indices(&shape) {
                let same = if all {
                    true
                } else {
                    let mut r = si.clone();
                    if keep {
                        r[ax] = 0;
                    } else {
                        r.remove(ax);
                    }
                    r == oi
                };
                if same {
                    vals.push(x.at(&xb, &si));
                }
            }
            let nan = vals.iter().any(|v| v.is_nan());
            let want_lo = if nan {
                f64::NAN
            } else {
                vals.iter().cloned().fold(f64::INFINITY, f64::min)
            };
            let want_hi = if nan {
                f64::NAN
            } else {
                vals.iter().cloned().fold(f64::NEG_INFINITY, f64::max)
            };
            for (t, b, w) in [(&lo, &lb, want_lo), (&hi, &hb, want_hi)] {
                let g = t.at(b, &oi);
                assert!(
                    g == w || (g.is_nan() && w.is_nan()),
                    "case {case} aminmax at {oi:?}: {g} vs {w}"
                );
            }
        }
    }
    // errors: indices of a float dtype, a size-0 dim, outputs of another dtype
    let x = T::new(&mut rng, F32, &[2, 0], |_| 0.0);
    let o = T::new(&mut rng, F32, &[2], |_| 0.0);
    let i = T::new(&mut rng, S32, &[2], |_| 0.0);
    let (mut ws, mut ex) = (0u64, null_mut());
    let st =
        unsafe { max_dim::aclnnMaxDimGetWorkspaceSize(x.t, 1, false, o.t, i.t, &mut ws, &mut ex) };
    assert_eq!(st, 161002);
    assert!(err().contains("has size 0"), "{}", err());
    let st =
        unsafe { max_dim::aclnnMaxDimGetWorkspaceSize(x.t, 0, false, o.t, o.t, &mut ws, &mut ex) };
    assert_eq!(st, 161002);
    assert!(
        err().contains("tensor 'indices' has dtype ACL_FLOAT"),
        "{}",
        err()
    );
    let st = unsafe {
        max_dim::aclnnMaxDimGetWorkspaceSize(x.t, 0, false, o.t, null_mut(), &mut ws, &mut ex)
    };
    assert_eq!(st, 161001);
    assert!(err().contains("argument 'indices' is NULL"), "{}", err());
}

/// aclnnSlice.md's normalisation of start/end for an axis of size n (the reference).
fn ref_slice(n: i64, start: i64, end: i64, step: i64) -> Vec<usize> {
    let s = if start < -n {
        0
    } else if start >= n {
        n
    } else {
        (start + n) % n
    };
    let e = if end < -n {
        s
    } else if end >= n {
        n
    } else {
        s.max((end + n) % n)
    };
    (s..e).step_by(step as usize).map(|i| i as usize).collect()
}

/// Permute, Slice, SliceV2, Expand and Repeat against loops over logical indices.
#[test]
fn views_match_a_loop() {
    use crate::capi::ops::{expand, permute, repeat, slice, slice_v2};
    device();
    let mut rng = Rng::new(0x71e);
    for case in 0..200 {
        let rank = 1 + (rng.next() % 4) as usize;
        let shape: Vec<usize> = (0..rank).map(|_| 1 + (rng.next() % 4) as usize).collect();
        let dtype = [F32, F16, S32][case % 3];
        let x = T::new(&mut rng, dtype, &shape, |i| val(i, case));
        let xb = x.bytes();
        let (mut ws, mut ex) = (0u64, null_mut());
        // (out shape, index map out -> self)
        type Map = Box<dyn Fn(&[usize]) -> Vec<usize>>;
        let (oshape, map, name): (Vec<usize>, Map, &str);
        let out;
        match case % 5 {
            0 => {
                let mut perm: Vec<usize> = (0..rank).collect();
                for i in (1..rank).rev() {
                    perm.swap(i, (rng.next() % (i as u64 + 1)) as usize);
                }
                let dims: Vec<i64> = perm
                    .iter()
                    .map(|&p| {
                        if rng.next() % 2 == 0 {
                            p as i64
                        } else {
                            p as i64 - rank as i64
                        }
                    })
                    .collect();
                oshape = perm.iter().map(|&p| shape[p]).collect();
                out = T::new(&mut rng, dtype, &oshape, |_| 99.0);
                let arr = unsafe { aclCreateIntArray(dims.as_ptr(), rank as u64) };
                let st = unsafe {
                    permute::aclnnPermuteGetWorkspaceSize(x.t, arr, out.t, &mut ws, &mut ex)
                };
                run(st, ws, ex, permute::aclnnPermute);
                assert_eq!(aclDestroyIntArray(arr), 0);
                let p = perm.clone();
                map = Box::new(move |o: &[usize]| {
                    let mut s = vec![0; o.len()];
                    for (i, &a) in p.iter().enumerate() {
                        s[a] = o[i];
                    }
                    s
                });
                name = "Permute";
            }
            1 | 2 => {
                let k = if case % 5 == 1 {
                    1
                } else {
                    rank.min(1 + (rng.next() % 2) as usize)
                };
                let mut axes: Vec<usize> = (0..rank).collect();
                for i in (1..rank).rev() {
                    axes.swap(i, (rng.next() % (i as u64 + 1)) as usize);
                }
                axes.truncate(k);
                let mut picks: Vec<Vec<usize>> = shape.iter().map(|&n| (0..n).collect()).collect();
                let (mut st_, mut en, mut sp) = (vec![], vec![], vec![]);
                for &a in &axes {
                    let n = shape[a] as i64;
                    let s = (rng.next() % (2 * n as u64 + 3)) as i64 - n - 1;
                    let e = (rng.next() % (2 * n as u64 + 3)) as i64 - n - 1;
                    let e = if rng.next() % 4 == 0 { i64::MAX } else { e };
                    let p = 1 + (rng.next() % 3) as i64;
                    picks[a] = ref_slice(n, s, e, p);
                    st_.push(s);
                    en.push(e);
                    sp.push(p);
                }
                oshape = picks.iter().map(|p| p.len()).collect();
                out = T::new(&mut rng, dtype, &oshape, |_| 99.0);
                if k == 1 && case % 5 == 1 {
                    let dim = if rng.next() % 2 == 0 {
                        axes[0] as i64
                    } else {
                        axes[0] as i64 - rank as i64
                    };
                    let st = unsafe {
                        slice::aclnnSliceGetWorkspaceSize(
                            x.t, dim, st_[0], en[0], sp[0], out.t, &mut ws, &mut ex,
                        )
                    };
                    run(st, ws, ex, slice::aclnnSlice);
                    name = "Slice";
                } else {
                    let ax: Vec<i64> = axes.iter().map(|&a| a as i64).collect();
                    let mk = |v: &[i64]| unsafe { aclCreateIntArray(v.as_ptr(), v.len() as u64) };
                    let (a1, a2, a3, a4) = (mk(&st_), mk(&en), mk(&ax), mk(&sp));
                    let st = unsafe {
                        slice_v2::aclnnSliceV2GetWorkspaceSize(
                            x.t, a1, a2, a3, a4, out.t, &mut ws, &mut ex,
                        )
                    };
                    run(st, ws, ex, slice_v2::aclnnSliceV2);
                    for a in [a1, a2, a3, a4] {
                        assert_eq!(aclDestroyIntArray(a), 0);
                    }
                    name = "SliceV2";
                }
                map = Box::new(move |o: &[usize]| {
                    o.iter().enumerate().map(|(d, &i)| picks[d][i]).collect()
                });
            }
            3 => {
                // Expand: some dims of size 1 grow, some new leading dims
                let lead = (rng.next() % 3) as usize;
                let xs = shape.clone();
                let mut size: Vec<i64> = (0..lead).map(|_| 1 + (rng.next() % 3) as i64).collect();
                for &n in &xs {
                    size.push(if n == 1 && rng.next() % 2 == 0 {
                        3
                    } else if rng.next() % 2 == 0 {
                        -1
                    } else {
                        n as i64
                    });
                }
                oshape = size
                    .iter()
                    .enumerate()
                    .map(|(i, &s)| if s == -1 { xs[i - lead] } else { s as usize })
                    .collect();
                out = T::new(&mut rng, dtype, &oshape, |_| 99.0);
                let arr = unsafe { aclCreateIntArray(size.as_ptr(), size.len() as u64) };
                let st = unsafe {
                    expand::aclnnExpandGetWorkspaceSize(x.t, arr, out.t, &mut ws, &mut ex)
                };
                run(st, ws, ex, expand::aclnnExpand);
                assert_eq!(aclDestroyIntArray(arr), 0);
                map = Box::new(move |o: &[usize]| {
                    o[lead..]
                        .iter()
                        .zip(&xs)
                        .map(|(&i, &n)| if n == 1 { 0 } else { i })
                        .collect()
                });
                name = "Expand";
            }
            _ => {
                let lead = (rng.next() % 2) as usize;
                let reps: Vec<i64> = (0..rank + lead)
                    .map(|_| (rng.next() % 3) as i64 + (case % 7 != 0) as i64)
                    .collect();
                let xs = shape.clone();
                oshape = (0..rank + lead)
                    .map(|i| reps[i] as usize * if i >= lead { xs[i - lead] } else { 1 })
                    .collect();
                out = T::new(&mut rng, dtype, &oshape, |_| 99.0);
                let arr = unsafe { aclCreateIntArray(reps.as_ptr(), reps.len() as u64) };
                let st = unsafe {
                    repeat::aclnnRepeatGetWorkspaceSize(x.t, arr, out.t, &mut ws, &mut ex)
                };
                run(st, ws, ex, repeat::aclnnRepeat);
                assert_eq!(aclDestroyIntArray(arr), 0);
                map = Box::new(move |o: &[usize]| {
                    o[lead..].iter().zip(&xs).map(|(&i, &n)| i % n).collect()
                });
                name = "Repeat";
            }
        }
        let ob = out.bytes();
        for oi in indices(&oshape) {
            let si = map(&oi);
            assert_eq!(
                out.at(&ob, &oi),
                x.at(&xb, &si),
                "case {case} {name}: out{oi:?} should be self{si:?}"
            );
        }
        for (i, v) in out.outside(&ob) {
            assert_eq!(
                v, 99.0,
                "case {case} {name}: out storage {i} outside the view was written"
            );
        }
    }
}

#[test]
fn view_errors_name_the_problem() {
    use crate::capi::ops::{expand, permute, repeat, slice};
    device();
    let mut rng = Rng::new(5);
    let x = T::new(&mut rng, F32, &[2, 3], |i| i as f64);
    let o = T::new(&mut rng, F32, &[3, 2], |_| 0.0);
    let h = T::new(&mut rng, F16, &[3, 2], |_| 0.0);
    let (mut ws, mut ex) = (0u64, null_mut());
    let arr = |v: &[i64]| unsafe { aclCreateIntArray(v.as_ptr(), v.len() as u64) };
    for (dims, out, needle) in [
        (vec![1i64, 1], o.t, "names axis 1 twice"),
        (vec![1], o.t, "dims [1] has 1 values but self has 2 dims"),
        (vec![2, 0], o.t, "dims value 2 is out of range"),
        (
            vec![1, 0],
            h.t,
            "out has dtype ACL_FLOAT16 but must have self's dtype ACL_FLOAT",
        ),
        (
            vec![0, 1],
            o.t,
            "out has shape [3, 2] but the result has shape [2, 3]",
        ),
    ] {
        let a = arr(&dims);
        let st = unsafe { permute::aclnnPermuteGetWorkspaceSize(x.t, a, out, &mut ws, &mut ex) };
        assert_eq!(st, 161002, "{needle}");
        assert!(err().contains(needle), "{needle}: {}", err());
        assert_eq!(aclDestroyIntArray(a), 0);
    }
    let st = unsafe { slice::aclnnSliceGetWorkspaceSize(x.t, 0, 0, 2, 0, o.t, &mut ws, &mut ex) };
    assert_eq!(st, 161002);
    assert!(err().contains("step 0 must be positive"), "{}", err());
    let a = arr(&[4, 3]);
    let st = unsafe { expand::aclnnExpandGetWorkspaceSize(x.t, a, o.t, &mut ws, &mut ex) };
    assert_eq!(st, 161002);
    assert!(err().contains("cannot expand self [2, 3]"), "{}", err());
    let st = unsafe { repeat::aclnnRepeatGetWorkspaceSize(x.t, a, o.t, &mut ws, &mut ex) };
    assert_eq!(st, 161002);
    assert!(
        err().contains("out has shape [3, 2] but the result has shape [8, 9]"),
        "{}",
        err()
    );
    assert_eq!(aclDestroyIntArray(a), 0);
}

/// Five repeated axes are ten view axes, past the engine's eight: the leading ones run as
/// steps of one operator.
#[test]
fn repeat_past_eight_axes() {
    use crate::capi::ops::repeat;
    device();
    let mut rng = Rng::new(9);
    let x = T::new(&mut rng, F32, &[2, 3, 2, 2, 3], |i| i as f64);
    let oshape = [4, 6, 4, 2, 6];
    let out = T::new(&mut rng, F32, &oshape, |_| -1.0);
    let reps = [2i64, 2, 2, 1, 2];
    let a = unsafe { aclCreateIntArray(reps.as_ptr(), 5) };
    let (mut ws, mut ex) = (0u64, null_mut());
    let st = unsafe { repeat::aclnnRepeatGetWorkspaceSize(x.t, a, out.t, &mut ws, &mut ex) };
    run(st, ws, ex, repeat::aclnnRepeat);
    assert_eq!(aclDestroyIntArray(a), 0);
    let (xb, ob) = (x.bytes(), out.bytes());
    for oi in indices(&oshape) {
        let si: Vec<usize> = oi.iter().zip(&x.shape).map(|(&i, &n)| i % n).collect();
        assert_eq!(out.at(&ob, &oi), x.at(&xb, &si), "out{oi:?}");
    }
}

/// Expm1, Log1p, Log10, Cosh, Sinh, Tan, Trunc, Erfc (and their in-place forms) on f32 and
/// f16 views against torch's float64 functions of the same input values: within 2 ulp of
/// f32 (C-library functions evaluated in f32), 1 ulp of f16 (computed in f32, rounded
/// once); special values (±0, ±inf, NaN, subnormals, domain edges) included.
#[test]
fn new_float_functions_match_torch() {
    use super::torch_ref::{Array, Batch};
    use crate::capi::ops::{cosh, erfc, expm1, log10, log1p, sinh, tan, trunc};
    type P1 = unsafe extern "C" fn(
        *const aclTensor,
        *mut aclTensor,
        *mut u64,
        *mut *mut aclOpExecutor,
    ) -> i32;
    type I1 = fn(*mut aclTensor, *mut u64, *mut *mut aclOpExecutor) -> i32;
    type P2 = extern "C" fn(*mut c_void, u64, *mut aclOpExecutor, *mut c_void) -> i32;
    let fns: [(&str, P1, P2, I1, P2, &[i32]); 8] = [
        (
            "expm1",
            expm1::aclnnExpm1GetWorkspaceSize,
            expm1::aclnnExpm1,
            |t, w, e| unsafe { expm1::aclnnInplaceExpm1GetWorkspaceSize(t, w, e) },
            expm1::aclnnInplaceExpm1,
            &[F32, F16],
        ),
        (
            "log1p",
            log1p::aclnnLog1pGetWorkspaceSize,
            log1p::aclnnLog1p,
            |t, w, e| unsafe { log1p::aclnnInplaceLog1pGetWorkspaceSize(t, w, e) },
            log1p::aclnnInplaceLog1p,
            &[F32, F16],
        ),
        (
            "log10",
            log10::aclnnLog10GetWorkspaceSize,
            log10::aclnnLog10,
            |t, w, e| unsafe { log10::aclnnInplaceLog10GetWorkspaceSize(t, w, e) },
            log10::aclnnInplaceLog10,
            &[F32, F16],
        ),
        (
            "cosh",
            cosh::aclnnCoshGetWorkspaceSize,
            cosh::aclnnCosh,
            |t, w, e| unsafe { cosh::aclnnInplaceCoshGetWorkspaceSize(t, w, e) },
            cosh::aclnnInplaceCosh,
            &[F32, F16],
        ),
        (
            "sinh",
            sinh::aclnnSinhGetWorkspaceSize,
            sinh::aclnnSinh,
            |t, w, e| unsafe { sinh::aclnnInplaceSinhGetWorkspaceSize(t, w, e) },
            sinh::aclnnInplaceSinh,
            &[F32, F16],
        ),
        (
            "tan",
            tan::aclnnTanGetWorkspaceSize,
            tan::aclnnTan,
            |t, w, e| unsafe { tan::aclnnInplaceTanGetWorkspaceSize(t, w, e) },
            tan::aclnnInplaceTan,
            &[F32, F16],
        ),
        (
            "trunc",
            trunc::aclnnTruncGetWorkspaceSize,
            trunc::aclnnTrunc,
            |t, w, e| unsafe { trunc::aclnnInplaceTruncGetWorkspaceSize(t, w, e) },
            trunc::aclnnInplaceTrunc,
            &[F32, F16],
        ),
        (
            "erfc",
            erfc::aclnnErfcGetWorkspaceSize,
            erfc::aclnnErfc,
            |t, w, e| unsafe { erfc::aclnnInplaceErfcGetWorkspaceSize(t, w, e) },
            erfc::aclnnInplaceErfc,
            &[F32, F16],
        ),
    ];
    device();
    let mut rng = Rng::new(0xf10a7);
    let specials = [
        0.0,
        -0.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        1e-40,
        -1e-40,
        -1.0,
        1.0,
        -0.999,
        0.5,
        88.5,
        -88.5,
        1e-7,
        3.0e4,
        -10.0,
        10.0,
        1.5707963,
    ];
    let mut batch = Batch::new();
    let mut pending = vec![];
    for (name, p1, p2, i1, i2, dtypes) in fns {
        let prog = batch.program(&format!("out = torch.{name}(a[0].double())"));
        for &dtype in dtypes {
            for inplace in [false, true] {
                let n = 64;
                let vals: Vec<f64> = (0..n)
                    .map(|i| {
                        if i < specials.len() {
                            specials[i]
                        } else {
                            let u = (rng.next() % 1_000_000) as f64 / 1e6;
                            let scale = [1.0, 10.0, 0.01, 90.0][i % 4];
                            (u * 2.0 - 1.0) * scale
                        }
                    })
                    .collect();
                // the value each element holds in its dtype
                let stored: Vec<f64> = vals
                    .iter()
                    .map(|&v| decode(dtype, &encode(dtype, v)))
                    .collect();
                let x = T::new(&mut rng, dtype, &[n], |_| 0.0);
                let mut bytes = x.bytes();
                let e = esize(dtype);
                for (k, &v) in stored.iter().enumerate() {
                    let at = x.storage_index(&[k]) * e;
                    bytes[at..at + e].copy_from_slice(&encode(dtype, v));
                }
                assert_eq!(
                    unsafe {
                        aclrtMemcpy(
                            x.dev,
                            bytes.len(),
                            bytes.as_ptr() as *const c_void,
                            bytes.len(),
                            1,
                        )
                    },
                    0
                );
                let (mut ws, mut ex) = (0u64, null_mut());
                let got_t = if inplace {
                    let st = i1(x.t, &mut ws, &mut ex);
                    run(st, ws, ex, i2);
                    None
                } else {
                    let out = T::new(&mut rng, dtype, &[n], |_| 7.0);
                    let st = unsafe { p1(x.t, out.t, &mut ws, &mut ex) };
                    run(st, ws, ex, p2);
                    Some(out)
                };
                let src = got_t.as_ref().unwrap_or(&x);
                let ob = src.bytes();
                let got: Vec<f64> = (0..n).map(|k| src.at(&ob, &[k])).collect();
                let case = batch.case(prog, vec![Some(Array::f64s(&[n], &stored))]);
                pending.push((case, name, dtype, inplace, stored, got));
            }
        }
    }
    let Some(results) = batch.run("new_float_functions_match_torch") else {
        return;
    };
    for (case, name, dtype, inplace, input, got) in pending {
        let want = results[case]
            .as_ref()
            .unwrap_or_else(|e| panic!("{name}: torch: {e}"))[0]
            .to_f64s();
        for k in 0..got.len() {
            let w = want[k];
            // torch in f64, rounded to f32 then to out's dtype (the library computes in f32)
            let w = if dtype == F16 {
                half::f16::from_f64(w as f32 as f64).to_f64()
            } else {
                w as f32 as f64
            };
            let g = got[k];
            let ulp = if dtype == F16 {
                2f64.powi(-10)
            } else {
                2f64.powi(-23)
            };
            let tiny = if dtype == F16 {
                2f64.powi(-24)
            } else {
                2f64.powi(-149)
            };
            let ok = (g.is_nan() && w.is_nan())
                || g == w
                || (g.is_finite()
                    && w.is_finite()
                    && (g - w).abs() <= 2.0 * ulp * w.abs().max(tiny / ulp));
            assert!(
                ok,
                "{name} {} {}: x = {:e}: got {g:e}, torch {w:e}",
                if dtype == F16 { "f16" } else { "f32" },
                if inplace { "in place" } else { "" },
                input[k]
            );
        }
    }
}

/// Roll against `out[(i + shift) mod n] = x[i]` per rolled dim (a dim named twice adds
/// its shifts), and the flattened roll for empty dims (contiguous views only).
#[test]
fn roll_matches_a_loop() {
    use crate::capi::ops::roll;
    device();
    let mut rng = Rng::new(0x7011);
    for case in 0..150 {
        let rank = 1 + (rng.next() % 4) as usize;
        let shape: Vec<usize> = (0..rank).map(|_| (rng.next() % 5) as usize).collect();
        let dtype = [F32, F16, S32][case % 3];
        let x = T::new(&mut rng, dtype, &shape, |i| val(i, case));
        let out = T::new(&mut rng, dtype, &shape, |_| 99.0);
        let flat = case % 5 == 0;
        let k = 1 + (rng.next() % 3) as usize;
        let dims: Vec<i64> = if flat {
            vec![]
        } else {
            (0..k)
                .map(|_| (rng.next() % (2 * rank as u64)) as i64 - rank as i64)
                .collect()
        };
        let shifts: Vec<i64> = (0..if flat { 1 } else { k })
            .map(|_| (rng.next() % 23) as i64 - 11)
            .collect();
        let sa = unsafe { aclCreateIntArray(shifts.as_ptr(), shifts.len() as u64) };
        let da = if flat && case % 2 == 0 {
            null_mut()
        } else {
            unsafe { aclCreateIntArray(dims.as_ptr(), dims.len() as u64) }
        };
        let (mut ws, mut ex) = (0u64, null_mut());
        let st = unsafe { roll::aclnnRollGetWorkspaceSize(x.t, sa, da, out.t, &mut ws, &mut ex) };
        let contiguous = |t: &T| {
            let mut want = 1;
            (0..t.shape.len()).rev().all(|d| {
                let ok = t.shape[d] <= 1 || t.strides[d] == want;
                want *= t.shape[d].max(1);
                ok
            })
        };
        if flat && !(contiguous(&x) && contiguous(&out)) {
            assert_eq!(st, 161002, "case {case}");
            assert!(err().contains("must be contiguous"), "{}", err());
        } else {
            run(st, ws, ex, roll::aclnnRoll);
            let (xb, ob) = (x.bytes(), out.bytes());
            let n_all: usize = shape.iter().product();
            for si in indices(&shape) {
                let oi: Vec<usize> = if flat {
                    let lin = si.iter().zip(&shape).fold(0, |acc, (&i, &n)| acc * n + i);
                    let mut l = (lin as i64 + shifts[0]).rem_euclid(n_all as i64) as usize;
                    let mut o = vec![0; rank];
                    for d in (0..rank).rev() {
                        o[d] = l % shape[d];
                        l /= shape[d];
                    }
                    o
                } else {
                    let mut o = si.clone();
                    for (&d, &s) in dims.iter().zip(&shifts) {
                        let a = d.rem_euclid(rank as i64) as usize;
                        o[a] = (o[a] as i64 + s).rem_euclid(shape[a] as i64) as usize;
                    }
                    o
                };
                assert_eq!(
                    out.at(&ob, &oi),
                    x.at(&xb, &si),
                    "case {case}: x{si:?} -> out{oi:?} (shifts {shifts:?}, dims {dims:?})"
                );
            }
            for (i, v) in out.outside(&ob) {
                assert_eq!(
                    v, 99.0,
                    "case {case}: out storage {i} outside the view was written"
                );
            }
        }
        assert_eq!(aclDestroyIntArray(sa), 0);
        if !da.is_null() {
            assert_eq!(aclDestroyIntArray(da), 0);
        }
    }
}

/// InplaceMaskedFillScalar / InplaceMaskedFillTensor: a broadcast bool mask selects value
/// (a scalar, or a tensor broadcast to selfRef) over selfRef's elements, in place, on any
/// views; value converted to selfRef's dtype.
#[test]
fn masked_fill_matches_a_loop() {
    use crate::capi::ops::{masked_fill_scalar, masked_fill_tensor};
    device();
    let mut rng = Rng::new(0x3a5c);
    for case in 0..120 {
        let rank = 1 + (rng.next() % 3) as usize;
        let shape: Vec<usize> = (0..rank).map(|_| (rng.next() % 4) as usize + 1).collect();
        let dtype = [F32, F16, S32][case % 3];
        let x = T::new(&mut rng, dtype, &shape, |i| val(i, case));
        let before = x.bytes();
        // mask: a trailing part of the shape, some dims 1
        let drop = (rng.next() % rank as u64) as usize;
        let mshape: Vec<usize> = shape[drop..]
            .iter()
            .map(|&n| if rng.next() % 3 == 0 { 1 } else { n })
            .collect();
        let mask = T::new(&mut rng, BOOL, &mshape, |i| {
            ((i * 7 + case) % 3 == 0) as u8 as f64
        });
        let (mut ws, mut ex) = (0u64, null_mut());
        let tensor_value = case % 2 == 1;
        let mut value_t = None;
        let scalar_v = -2.75;
        if tensor_value {
            let vshape: Vec<usize> = shape[rank - 1..]
                .iter()
                .map(|&n| if rng.next() % 2 == 0 { 1 } else { n })
                .collect();
            let v = T::new(&mut rng, F32, &vshape, |i| 1000.0 + i as f64 * 0.5);
            let st = unsafe {
                masked_fill_tensor::aclnnInplaceMaskedFillTensorGetWorkspaceSize(
                    x.t, mask.t, v.t, &mut ws, &mut ex,
                )
            };
            run(st, ws, ex, masked_fill_tensor::aclnnInplaceMaskedFillTensor);
            value_t = Some(v);
        } else {
            let mut f = scalar_v as f32;
            let s = unsafe { aclCreateScalar(&mut f as *mut f32 as *mut c_void, F32) };
            let st = unsafe {
                masked_fill_scalar::aclnnInplaceMaskedFillScalarGetWorkspaceSize(
                    x.t, mask.t, s, &mut ws, &mut ex,
                )
            };
            run(st, ws, ex, masked_fill_scalar::aclnnInplaceMaskedFillScalar);
            assert_eq!(aclDestroyScalar(s), 0);
        }
        let (xb, mb) = (x.bytes(), mask.bytes());
        for idx in indices(&shape) {
            let mi: Vec<usize> = idx[drop..]
                .iter()
                .zip(&mshape)
                .map(|(&i, &n)| if n == 1 { 0 } else { i })
                .collect();
            let want = if mask.at(&mb, &mi) != 0.0 {
                match &value_t {
                    Some(v) => {
                        let vb = v.bytes();
                        let vi: Vec<usize> = idx[rank - 1..]
                            .iter()
                            .zip(&v.shape)
                            .map(|(&i, &n)| if n == 1 { 0 } else { i })
                            .collect();
                        conv(v.at(&vb, &vi), dtype)
                    }
                    None => conv(scalar_v, dtype),
                }
            } else {
                x.at(&before, &idx)
            };
            assert_eq!(x.at(&xb, &idx), want, "case {case} at {idx:?}");
        }
        for (i, v) in x.outside(&xb) {
            let e = esize(dtype);
            assert_eq!(
                v,
                decode(dtype, &before[i * e..i * e + e]),
                "case {case}: storage {i} outside the view changed"
            );
        }
    }
    // errors: a non-bool mask, a mask that does not broadcast
    let x = T::new(&mut rng, F32, &[2, 3], |i| i as f64);
    let m = T::new(&mut rng, F32, &[3], |_| 1.0);
    let m2 = T::new(&mut rng, BOOL, &[2], |_| 1.0);
    let mut f = 1.0f32;
    let s = unsafe { aclCreateScalar(&mut f as *mut f32 as *mut c_void, F32) };
    let (mut ws, mut ex) = (0u64, null_mut());
    let st = unsafe {
        masked_fill_scalar::aclnnInplaceMaskedFillScalarGetWorkspaceSize(
            x.t, m.t, s, &mut ws, &mut ex,
        )
    };
    assert_eq!(st, 161002);
    assert!(
        err().contains("tensor 'mask' has dtype ACL_FLOAT"),
        "{}",
        err()
    );
    let st = unsafe {
        masked_fill_scalar::aclnnInplaceMaskedFillScalarGetWorkspaceSize(
            x.t, m2.t, s, &mut ws, &mut ex,
        )
    };
    assert_eq!(st, 161002, "{}", err());
    assert_eq!(aclDestroyScalar(s), 0);
}

/// Arange / Range against torch.arange / the inclusive count (torch.range is deprecated in
/// 1.13 but computes the same), on strided 1-D outs of each dtype, with integer and float
/// bounds and negative steps.
#[test]
fn arange_and_range_match_torch() {
    use super::torch_ref::{Array, Batch};
    use crate::capi::ops::{arange, range};
    device();
    let mut rng = Rng::new(0xa4a);
    let mut batch = Batch::new();
    let prog = batch.program("s, e, d = a[0].item(), a[1].item(), a[2].item()\nout = torch.arange(s, e, d, dtype=torch.float64) if a[3].item() == 0 else torch.range(s, e, d, dtype=torch.float64)");
    let mut pending = vec![];
    let cases: Vec<(f64, f64, f64)> = vec![
        (0.0, 10.0, 1.0),
        (0.0, 10.0, 3.0),
        (5.0, -5.0, -2.0),
        (0.5, 3.2, 0.3),
        (-1.0, 1.0, 0.25),
        (1.0, 1.0, 1.0),
        (0.0, 1.0, 0.1),
        (100.0, 0.0, -7.0),
    ];
    for (case, &(s, e, d)) in cases.iter().enumerate() {
        for inclusive in [false, true] {
            if inclusive && s == e {
                continue;
            }
            let ints = s.fract() == 0.0 && e.fract() == 0.0 && d.fract() == 0.0;
            let n = if inclusive {
                ((e - s) / d).floor() as usize + 1
            } else {
                ((e - s) / d).ceil() as usize
            };
            for dtype in [F32, F16, S32] {
                if dtype == S32 && !ints {
                    continue;
                }
                let out = T::new(&mut rng, dtype, &[n], |_| 99.0);
                let sc = |v: f64| {
                    if ints {
                        let mut x = v as i64;
                        unsafe { aclCreateScalar(&mut x as *mut i64 as *mut c_void, 9) }
                    } else {
                        let mut x = v;
                        unsafe { aclCreateScalar(&mut x as *mut f64 as *mut c_void, 11) }
                    }
                };
                let (a, b, c) = (sc(s), sc(e), sc(d));
                let (mut ws, mut ex) = (0u64, null_mut());
                if inclusive {
                    let st = unsafe {
                        range::aclnnRangeGetWorkspaceSize(a, b, c, out.t, &mut ws, &mut ex)
                    };
                    run(st, ws, ex, range::aclnnRange);
                } else {
                    let st = unsafe {
                        arange::aclnnArangeGetWorkspaceSize(a, b, c, out.t, &mut ws, &mut ex)
                    };
                    run(st, ws, ex, arange::aclnnArange);
                }
                for x in [a, b, c] {
                    assert_eq!(aclDestroyScalar(x), 0);
                }
                let ob = out.bytes();
                let got: Vec<f64> = (0..n).map(|i| out.at(&ob, &[i])).collect();
                // the value in f64 (or i64), converted once to out's dtype
                for (i, &g) in got.iter().enumerate() {
                    let w = decode(dtype, &encode(dtype, s + i as f64 * d));
                    assert_eq!(
                        g,
                        w,
                        "case {case} {} dtype {dtype}: element {i}",
                        if inclusive { "Range" } else { "Arange" }
                    );
                }
                for (i, v) in out.outside(&ob) {
                    assert_eq!(
                        v, 99.0,
                        "case {case}: out storage {i} outside the view was written"
                    );
                }
                let k = batch.case(
                    prog,
                    vec![
                        Some(Array::f64s(&[1], &[s])),
                        Some(Array::f64s(&[1], &[e])),
                        Some(Array::f64s(&[1], &[d])),
                        Some(Array::int(inclusive as i64)),
                    ],
                );
                pending.push((k, n, case, inclusive));
            }
        }
    }
    // errors: a step pointing away, a zero step, an out of the wrong length
    let out = T::new(&mut rng, F32, &[3], |_| 0.0);
    let mut v = [0.0f64, 3.0, -1.0, 0.0];
    let s: Vec<*mut aclScalar> = v
        .iter_mut()
        .map(|x| unsafe { aclCreateScalar(x as *mut f64 as *mut c_void, 11) })
        .collect();
    let (mut ws, mut ex) = (0u64, null_mut());
    assert_eq!(
        unsafe { arange::aclnnArangeGetWorkspaceSize(s[0], s[1], s[2], out.t, &mut ws, &mut ex) },
        161002
    );
    assert!(
        err().contains("step must point from start toward end"),
        "{}",
        err()
    );
    assert_eq!(
        unsafe { arange::aclnnArangeGetWorkspaceSize(s[0], s[1], s[3], out.t, &mut ws, &mut ex) },
        161002
    );
    assert!(err().contains("non-zero"), "{}", err());
    assert_eq!(
        unsafe { range::aclnnRangeGetWorkspaceSize(s[0], s[1], s[1], out.t, &mut ws, &mut ex) },
        161002
    );
    assert!(err().contains("has 2 elements"), "{}", err());
    for x in s {
        assert_eq!(aclDestroyScalar(x), 0);
    }
    let Some(results) = batch.run("arange_and_range_match_torch") else {
        return;
    };
    for (k, n, case, inclusive) in pending {
        let want = results[k].as_ref().unwrap_or_else(|e| panic!("torch: {e}"))[0].to_f64s();
        assert_eq!(
            want.len(),
            n,
            "case {case} {}: torch has {} elements, we have {n}",
            if inclusive { "range" } else { "arange" },
            want.len()
        );
    }
}
