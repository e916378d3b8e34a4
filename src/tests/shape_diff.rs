//! Differential tests of the shape family (issue 17) through the C entry points, as a CANN
//! program calls them: Tril/Triu (and in place), ConstantPadNd, the reflection /
//! replication / circular pads, UpsampleNearest2d, Im2col, Cumsum/CumsumV2, Argsort.
//!
//! Every random case has random shapes (empty and 0-d where the operator allows them),
//! random views for every tensor (axes laid out in a random order, gaps between rows, an
//! offset), random dtypes of the operator's list and "nice" values (NaN, ±inf, ±0, integer
//! extremes). References, written here from the rules, independently of the library:
//!
//! - the moving operators (triangles, pads, resampling, patches): the element each output
//!   element must be, from the index formulas (reflection by repeated mirroring, not the
//!   closed form), compared byte for byte; storage outside out's view must be untouched;
//! - Cumsum: a sequential loop in the documented accumulator (f32 for f16/bf16/f32, f64,
//!   i64 wrapping), bit for bit;
//! - Argsort: a stable comparison sort with torch's order (NaN largest, −0 = +0).
//!
//! PyTorch (`torch_ref`) checks the references themselves on a sample: F.pad,
//! F.interpolate(mode="nearest"), F.unfold, torch.tril/triu, torch.sort(stable=True); where
//! torch is missing that part is skipped.

use super::add_diff::Rng;
use super::torch_ref::{Array, Batch};
use crate::capi::meta::{
    aclCreateIntArray, aclCreateScalar, aclCreateTensor, aclDestroyIntArray, aclDestroyScalar,
    aclDestroyTensor, aclIntArray, aclOpExecutor, aclScalar, aclTensor,
};
use crate::capi::ops;
use crate::capi::runtime::{
    aclGetRecentErrMsg, aclInit, aclrtFree, aclrtMalloc, aclrtMemcpy, aclrtSetDevice,
    aclrtSynchronizeStream,
};
use crate::dtype::DType::{self, *};
use std::ffi::c_void;
use std::ptr::null_mut;

const OK: i32 = 0;
const NULLPTR: i32 = 161001;
const INVALID: i32 = 161002;
const ND: i32 = 2;
const NCHW: i32 = 0;
const NHWC: i32 = 1;

pub(super) type Phase2 = extern "C" fn(*mut c_void, u64, *mut aclOpExecutor, *mut c_void) -> i32;

pub(super) fn init() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let r = aclInit(std::ptr::null());
        assert!(r == 0 || r == 100002, "aclInit: {r}");
        assert_eq!(aclrtSetDevice(0), 0);
    });
}

pub(super) fn err() -> String {
    let p = aclGetRecentErrMsg();
    if p.is_null() {
        return String::new();
    }
    // SAFETY: a NUL-terminated string owned by the library.
    unsafe { std::ffi::CStr::from_ptr(p) }
        .to_string_lossy()
        .into_owned()
}

// ---------------------------------------------------------------------------------------
// Views and device buffers
// ---------------------------------------------------------------------------------------

/// A view: logical shape, element strides, offset, over `storage` elements.
#[derive(Clone, Debug)]
pub(super) struct View {
    pub(super) dtype: DType,
    pub(super) shape: Vec<usize>,
    pub(super) strides: Vec<usize>,
    pub(super) offset: usize,
    pub(super) storage: usize,
}

impl View {
    pub(super) fn contiguous(dtype: DType, shape: &[usize]) -> View {
        let mut strides = vec![0; shape.len()];
        let mut acc = 1;
        for d in (0..shape.len()).rev() {
            strides[d] = acc;
            acc *= shape[d].max(1);
        }
        View {
            dtype,
            shape: shape.to_vec(),
            strides,
            offset: 0,
            storage: acc.max(1),
        }
    }

    /// Axes laid out in a random order, with random gaps and offset (mostly non-trivial).
    pub(super) fn random(rng: &mut Rng, dtype: DType, shape: &[usize]) -> View {
        let k = shape.len();
        let mut order: Vec<usize> = (0..k).collect();
        if rng.pct(40) {
            for i in (1..k).rev() {
                order.swap(i, rng.below(i as u64 + 1) as usize);
            }
        }
        let mut strides = vec![0; k];
        let mut acc = 1;
        for &a in order.iter().rev() {
            strides[a] = acc;
            acc *= shape[a].max(1)
                + if rng.pct(30) {
                    rng.below(3) as usize
                } else {
                    0
                };
        }
        let offset = if rng.pct(60) {
            rng.below(5) as usize
        } else {
            0
        };
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
        View {
            dtype,
            shape: shape.to_vec(),
            strides,
            offset,
            storage: offset + reach + rng.below(3) as usize + 1,
        }
    }

    pub(super) fn numel(&self) -> usize {
        self.shape.iter().product()
    }
    pub(super) fn at(&self, idx: &[usize]) -> usize {
        self.offset
            + idx
                .iter()
                .zip(&self.strides)
                .map(|(i, s)| i * s)
                .sum::<usize>()
    }
    /// Every logical index, row-major.
    pub(super) fn indices(&self) -> Vec<Vec<usize>> {
        let n = self.numel();
        (0..n)
            .map(|mut k| {
                let mut idx = vec![0; self.shape.len()];
                for d in (0..self.shape.len()).rev() {
                    idx[d] = k % self.shape[d];
                    k /= self.shape[d];
                }
                idx
            })
            .collect()
    }
    pub(super) fn bytes(&self) -> usize {
        self.storage * self.dtype.size()
    }
    /// The bytes of the element at storage index `i` of `mem`.
    pub(super) fn elem<'a>(&self, mem: &'a [u8], i: usize) -> &'a [u8] {
        let e = self.dtype.size();
        &mem[i * e..(i + 1) * e]
    }
    /// The view's elements as a contiguous array (for torch).
    pub(super) fn array(&self, mem: &[u8]) -> Array {
        let mut bytes = vec![];
        for idx in self.indices() {
            bytes.extend_from_slice(self.elem(mem, self.at(&idx)));
        }
        Array {
            dtype: self.dtype,
            shape: self.shape.clone(),
            bytes,
        }
    }
}

/// Device memory and handles of one call, released on drop.
pub(super) struct Dev {
    mem: Vec<(*mut c_void, usize)>,
    tensors: Vec<*mut aclTensor>,
    arrays: Vec<*mut aclIntArray>,
    scalars: Vec<*mut aclScalar>,
}

impl Dev {
    pub(super) fn new() -> Dev {
        init();
        Dev {
            mem: vec![],
            tensors: vec![],
            arrays: vec![],
            scalars: vec![],
        }
    }
    /// Uploads `host`; returns its index.
    pub(super) fn upload(&mut self, host: &[u8]) -> usize {
        let mut p = null_mut();
        // SAFETY: valid out-parameter; both ranges hold host.len() bytes.
        unsafe {
            assert_eq!(aclrtMalloc(&mut p, host.len().max(1), 0), 0);
            assert_eq!(
                aclrtMemcpy(p, host.len(), host.as_ptr() as *const c_void, host.len(), 1),
                0
            );
        }
        self.mem.push((p, host.len()));
        self.mem.len() - 1
    }
    pub(super) fn download(&self, k: usize) -> Vec<u8> {
        let (p, n) = self.mem[k];
        let mut h = vec![0u8; n];
        // SAFETY: both ranges hold n bytes.
        unsafe { assert_eq!(aclrtMemcpy(h.as_mut_ptr() as *mut c_void, n, p, n, 2), 0) };
        h
    }
    pub(super) fn tensor(&mut self, v: &View, mem: usize, format: i32) -> *mut aclTensor {
        let dims: Vec<i64> = v.shape.iter().map(|&d| d as i64).collect();
        let st: Vec<i64> = v.strides.iter().map(|&d| d as i64).collect();
        let sto = [v.storage as i64];
        // SAFETY: arrays of the stated lengths; device storage of v.storage elements.
        let t = unsafe {
            aclCreateTensor(
                dims.as_ptr(),
                dims.len() as u64,
                v.dtype as i32,
                st.as_ptr(),
                v.offset as i64,
                format,
                sto.as_ptr(),
                1,
                self.mem[mem].0,
            )
        };
        assert!(!t.is_null(), "aclCreateTensor {v:?}: {}", err());
        self.tensors.push(t);
        t
    }
    /// A contiguous tensor of zeros.
    pub(super) fn zeros(&mut self, d: DType, shape: &[usize]) -> *mut aclTensor {
        let v = View::contiguous(d, shape);
        let m = self.upload(&vec![0u8; v.bytes()]);
        self.tensor(&v, m, ND)
    }
    pub(super) fn ints(&mut self, v: &[i64]) -> *mut aclIntArray {
        // SAFETY: v holds v.len() values.
        let p = unsafe { aclCreateIntArray(v.as_ptr(), v.len() as u64) };
        assert!(!p.is_null());
        self.arrays.push(p);
        p
    }
    pub(super) fn scalar(&mut self, dtype: DType, bytes: &[u8]) -> *mut aclScalar {
        let mut b = [0u8; 16];
        b[..bytes.len()].copy_from_slice(bytes);
        // SAFETY: b holds one element of dtype.
        let p = unsafe { aclCreateScalar(b.as_mut_ptr() as *mut c_void, dtype as i32) };
        assert!(!p.is_null());
        self.scalars.push(p);
        p
    }
}

impl Drop for Dev {
    fn drop(&mut self) {
        for &t in &self.tensors {
            aclDestroyTensor(t);
        }
        for &a in &self.arrays {
            aclDestroyIntArray(a);
        }
        for &s in &self.scalars {
            aclDestroyScalar(s);
        }
        for &(p, _) in &self.mem {
            aclrtFree(p);
        }
    }
}

/// Phase 1, then (on success) phase 2 with a fresh workspace and a synchronisation.
pub(super) fn call(
    p1: impl FnOnce(*mut u64, *mut *mut aclOpExecutor) -> i32,
    p2: Phase2,
) -> Result<(), (i32, String)> {
    let mut ws = 0u64;
    let mut ex = null_mut();
    let st = p1(&mut ws, &mut ex);
    if st != OK {
        return Err((st, err()));
    }
    let mut w = null_mut();
    if ws > 0 {
        // SAFETY: valid out-parameter.
        assert_eq!(unsafe { aclrtMalloc(&mut w, ws as usize, 0) }, 0);
    }
    let st = p2(w, ws, ex, null_mut());
    assert_eq!(st, OK, "phase 2: {}", err());
    assert_eq!(aclrtSynchronizeStream(null_mut()), 0, "{}", err());
    if !w.is_null() {
        aclrtFree(w);
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Values
// ---------------------------------------------------------------------------------------

pub(super) fn enc(d: DType, v: f64) -> Vec<u8> {
    match d {
        S4 => unreachable!("ACL_INT4 is a storage dtype: no table of these tests covers it"),
        F32 => (v as f32).to_le_bytes().to_vec(),
        F64 => v.to_le_bytes().to_vec(),
        F16 => half::f16::from_f64(v).to_le_bytes().to_vec(),
        BF16 => half::bf16::from_f64(v).to_le_bytes().to_vec(),
        S8 => (v as i8).to_le_bytes().to_vec(),
        U8 => (v as u8).to_le_bytes().to_vec(),
        S16 => (v as i16).to_le_bytes().to_vec(),
        U16 => (v as u16).to_le_bytes().to_vec(),
        S32 => (v as i32).to_le_bytes().to_vec(),
        U32 => (v as u32).to_le_bytes().to_vec(),
        S64 => (v as i64).to_le_bytes().to_vec(),
        U64 => (v as u64).to_le_bytes().to_vec(),
        Bool => vec![(v != 0.0) as u8],
        C64 => [(v as f32).to_le_bytes(), (-v as f32).to_le_bytes()].concat(),
        C128 => [v.to_le_bytes(), (-v).to_le_bytes()].concat(),
        C32 => panic!("no c32 here"),
    }
}

pub(super) fn dec(d: DType, b: &[u8]) -> f64 {
    match d {
        F32 => f32::from_le_bytes(b[..4].try_into().unwrap()) as f64,
        F64 => f64::from_le_bytes(b[..8].try_into().unwrap()),
        F16 => half::f16::from_le_bytes(b[..2].try_into().unwrap()).to_f64(),
        BF16 => half::bf16::from_le_bytes(b[..2].try_into().unwrap()).to_f64(),
        S8 => b[0] as i8 as f64,
        U8 => b[0] as f64,
        S16 => i16::from_le_bytes(b[..2].try_into().unwrap()) as f64,
        S32 => i32::from_le_bytes(b[..4].try_into().unwrap()) as f64,
        S64 => i64::from_le_bytes(b[..8].try_into().unwrap()) as f64,
        Bool => (b[0] != 0) as u8 as f64,
        d => panic!("dec of {d}"),
    }
}

/// A random element of `d`: specials and small values for floats, any bits for integers.
pub(super) fn nice(rng: &mut Rng, d: DType) -> Vec<u8> {
    if d.is_float() || d.is_complex() {
        let v = match rng.below(10) {
            0 => f64::NAN,
            1 => f64::INFINITY,
            2 => f64::NEG_INFINITY,
            3 => -0.0,
            4 => 0.0,
            _ => (rng.below(64) as f64 - 32.0) * 0.25,
        };
        return enc(d, v);
    }
    if d == Bool {
        return vec![rng.below(2) as u8];
    }
    let bits = rng.next().to_le_bytes();
    bits[..d.size()].to_vec()
}

pub(super) fn fill(rng: &mut Rng, v: &View) -> Vec<u8> {
    (0..v.storage).flat_map(|_| nice(rng, v.dtype)).collect()
}

/// Checks that `after` equals `before` outside `v`'s elements.
pub(super) fn untouched(v: &View, before: &[u8], after: &[u8]) -> Result<(), String> {
    let mut inside = vec![false; v.storage];
    for idx in v.indices() {
        inside[v.at(&idx)] = true;
    }
    for i in 0..v.storage {
        if !inside[i] && v.elem(before, i) != v.elem(after, i) {
            return Err(format!(
                "storage element {i} outside out's view was written"
            ));
        }
    }
    Ok(())
}

/// Compares out's elements with `want(idx)` (the bytes each must be), byte for byte.
pub(super) fn check_out(
    what: &str,
    out: &View,
    got: &[u8],
    want: impl Fn(&[usize]) -> Vec<u8>,
) -> Result<(), String> {
    for idx in out.indices() {
        let g = out.elem(got, out.at(&idx));
        let w = want(&idx);
        if g != &w[..] {
            return Err(format!("{what}: out{idx:?} is {g:?}, want {w:?}"));
        }
    }
    Ok(())
}

pub(super) fn pick(rng: &mut Rng, list: &[DType]) -> DType {
    list[rng.below(list.len() as u64) as usize]
}

pub(super) fn rand_shape(rng: &mut Rng, rank: usize, max: u64, empty_pct: u64) -> Vec<usize> {
    (0..rank)
        .map(|_| {
            if rng.pct(empty_pct) {
                0
            } else {
                1 + rng.below(max) as usize
            }
        })
        .collect()
}

// ---------------------------------------------------------------------------------------
// Tril / Triu
// ---------------------------------------------------------------------------------------

const TRIANGLE: &[DType] = &[
    F64, F32, F16, BF16, S64, S32, S16, U8, S8, Bool, U64, U32, U16,
];

#[test]
fn tril_triu_match_the_triangle_formula_on_random_views() {
    let mut rng = Rng::new(17);
    let mut batch = Batch::new();
    let mut torch_cases = vec![];
    for case in 0..300 {
        let upper = case % 2 == 1;
        let inplace = rng.pct(30);
        let dtype = pick(&mut rng, TRIANGLE);
        let rank = 2 + rng.below(3) as usize;
        let shape = rand_shape(&mut rng, rank, 6, 4);
        let diag = match rng.below(8) {
            0 => i64::MIN,
            1 => i64::MAX,
            _ => rng.below(13) as i64 - 6,
        };
        let sv = View::random(&mut rng, dtype, &shape);
        let ov = if inplace {
            sv.clone()
        } else {
            View::random(&mut rng, dtype, &shape)
        };
        let (sm, om) = (fill(&mut rng, &sv), fill(&mut rng, &ov));
        let mut dev = Dev::new();
        let s = dev.upload(&sm);
        let st = dev.tensor(&sv, s, ND);
        let (o, r) = if inplace {
            let r = call(
                |w, e| unsafe {
                    if upper {
                        ops::triu::aclnnInplaceTriuGetWorkspaceSize(st, diag, w, e)
                    } else {
                        ops::tril::aclnnInplaceTrilGetWorkspaceSize(st, diag, w, e)
                    }
                },
                if upper {
                    ops::triu::aclnnInplaceTriu
                } else {
                    ops::tril::aclnnInplaceTril
                },
            );
            (s, r)
        } else {
            let o = dev.upload(&om);
            let ot = dev.tensor(&ov, o, ND);
            let r = call(
                |w, e| unsafe {
                    if upper {
                        ops::triu::aclnnTriuGetWorkspaceSize(st, diag, ot, w, e)
                    } else {
                        ops::tril::aclnnTrilGetWorkspaceSize(st, diag, ot, w, e)
                    }
                },
                if upper {
                    ops::triu::aclnnTriu
                } else {
                    ops::tril::aclnnTril
                },
            );
            (o, r)
        };
        r.unwrap_or_else(|e| panic!("case {case} {shape:?} {dtype}: refused {e:?}"));
        let got = dev.download(o);
        let before = if inplace { &sm } else { &om };
        let keep = |i: usize, j: usize| {
            let d = j as i128 - i as i128;
            if upper {
                d >= diag as i128
            } else {
                d <= diag as i128
            }
        };
        check_out("tril/triu", &ov, &got, |idx| {
            let (i, j) = (idx[rank - 2], idx[rank - 1]);
            if keep(i, j) {
                let b = sv.elem(&sm, sv.at(idx)).to_vec();
                if dtype == Bool {
                    vec![(b[0] != 0) as u8]
                } else {
                    b
                }
            } else {
                vec![0u8; dtype.size()]
            }
        })
        .and_then(|_| untouched(&ov, before, &got))
        .unwrap_or_else(|e| {
            panic!("case {case} {shape:?} {dtype} diag {diag} upper {upper} inplace {inplace}: {e}")
        });
        if torch_cases.len() < 40 && diag.abs() < 10 && dtype == F32 {
            let p = batch.program(if upper {
                "out = torch.triu(a[0], a[1].item())"
            } else {
                "out = torch.tril(a[0], a[1].item())"
            });
            batch.case(p, vec![Some(sv.array(&sm)), Some(Array::int(diag))]);
            torch_cases.push((ov.clone(), got));
        }
    }
    if let Some(res) = batch.run("tril/triu") {
        for (k, (ov, got)) in torch_cases.iter().enumerate() {
            let t = res[k].as_ref().expect("torch raised");
            assert_eq!(t[0].bytes, ov.array(got).bytes, "torch case {k}");
        }
    }
}

#[test]
fn tril_triu_refusals() {
    let mut dev = Dev::new();
    let v1 = View::contiguous(F32, &[4]);
    let v2 = View::contiguous(F32, &[2, 3]);
    let m1 = dev.upload(&vec![0u8; v1.bytes()]);
    let m2 = dev.upload(&vec![0u8; v2.bytes()]);
    let t1 = dev.tensor(&v1, m1, ND);
    let t2 = dev.tensor(&v2, m2, ND);
    let v3 = View::contiguous(S32, &[2, 3]);
    let m3 = dev.upload(&vec![0u8; v3.bytes()]);
    let t3 = dev.tensor(&v3, m3, ND);
    let v4 = View::contiguous(F32, &[3, 2]);
    let m4 = dev.upload(&vec![0u8; v4.bytes()]);
    let t4 = dev.tensor(&v4, m4, ND);
    let c64 = View::contiguous(C64, &[2, 2]);
    let m5 = dev.upload(&vec![0u8; c64.bytes()]);
    let t5 = dev.tensor(&c64, m5, ND);
    let e = |r: Result<(), (i32, String)>| r.unwrap_err();
    let tril = |a, b| {
        call(
            |w, x| unsafe { ops::tril::aclnnTrilGetWorkspaceSize(a, 0, b, w, x) },
            ops::tril::aclnnTril,
        )
    };
    assert_eq!(e(tril(null_mut(), t2)).0, NULLPTR);
    assert_eq!(e(tril(t2, null_mut())).0, NULLPTR);
    let (c, m) = e(tril(t1, t1));
    assert!(c == INVALID && m.contains("at least 2"), "{m}");
    let (c, m) = e(tril(t2, t3));
    assert!(c == INVALID && m.contains("dtype"), "{m}");
    let (c, m) = e(tril(t2, t4));
    assert!(c == INVALID && m.contains("shape"), "{m}");
    let (c, m) = e(tril(t5, t5));
    assert!(c == INVALID && m.contains("dtype"), "{m}");
    let r = call(
        |w, x| unsafe { ops::triu::aclnnInplaceTriuGetWorkspaceSize(t1, 1, w, x) },
        ops::triu::aclnnInplaceTriu,
    );
    assert_eq!(e(r).0, INVALID);
}

// ---------------------------------------------------------------------------------------
// Pads
// ---------------------------------------------------------------------------------------

const CONSTANT: &[DType] = &[
    F32, S32, F16, S8, F64, S16, S64, U64, U32, U16, U8, Bool, C64, C128, BF16,
];
const MIRROR: &[DType] = &[Bool, S8, U8, S16, F16, BF16, S32, F32, S64, F64, C64, C128];
const CIRCULAR: &[DType] = &[F16, BF16, F32, S8, S32];

#[derive(Clone, Copy, Debug, PartialEq)]
enum Mode {
    Constant,
    Reflect,
    Replicate,
    Circular,
}

/// The source index of output index `i` along an axis of `n` with leading pad `lo`, by
/// the mode's definition (reflection: mirror repeatedly until inside).
fn pad_source(mode: Mode, i: i64, lo: i64, n: i64) -> Option<i64> {
    let mut x = i - lo;
    if (0..n).contains(&x) {
        return Some(x);
    }
    match mode {
        Mode::Constant => None,
        Mode::Reflect => {
            while !(0..n).contains(&x) {
                x = if x < 0 { -x } else { 2 * (n - 1) - x };
            }
            Some(x)
        }
        Mode::Replicate => Some(if x < 0 { 0 } else { n - 1 }),
        Mode::Circular => Some(((x % n) + n) % n),
    }
}

fn padded_shape(shape: &[usize], pad: &[i64]) -> Vec<usize> {
    let k = shape.len();
    (0..k)
        .map(|a| {
            let p = k - 1 - a;
            let (lo, hi) = if 2 * p + 1 < pad.len() {
                (pad[2 * p], pad[2 * p + 1])
            } else {
                (0, 0)
            };
            (shape[a] as i64 + lo + hi).max(0) as usize
        })
        .collect()
}

/// Runs one pad case; Ok(got) or the refusal.
fn run_pad(
    mode: Mode,
    dims: usize,
    sv: &View,
    sm: &[u8],
    pad: &[i64],
    value: Option<(DType, Vec<u8>)>,
    ov: &View,
    om: &[u8],
) -> Result<Vec<u8>, (i32, String)> {
    let mut dev = Dev::new();
    let s = dev.upload(sm);
    let o = dev.upload(om);
    let st = dev.tensor(sv, s, ND);
    let ot = dev.tensor(ov, o, ND);
    let pa = dev.ints(pad);
    let r = match mode {
        Mode::Constant => {
            let (vd, vb) = value.unwrap();
            let sc = dev.scalar(vd, &vb);
            call(
                |w, e| unsafe {
                    ops::constant_pad_nd::aclnnConstantPadNdGetWorkspaceSize(st, pa, sc, ot, w, e)
                },
                ops::constant_pad_nd::aclnnConstantPadNd,
            )
        }
        _ => {
            macro_rules! go {
                ($m:ident, $p1:ident, $p2:ident) => {
                    call(
                        |w, e| unsafe { ops::$m::$p1(st, pa, ot, w, e) },
                        ops::$m::$p2,
                    )
                };
            }
            match (mode, dims) {
                (Mode::Reflect, 1) => go!(
                    reflection_pad1d,
                    aclnnReflectionPad1dGetWorkspaceSize,
                    aclnnReflectionPad1d
                ),
                (Mode::Reflect, 2) => go!(
                    reflection_pad2d,
                    aclnnReflectionPad2dGetWorkspaceSize,
                    aclnnReflectionPad2d
                ),
                (Mode::Reflect, 3) => go!(
                    reflection_pad3d,
                    aclnnReflectionPad3dGetWorkspaceSize,
                    aclnnReflectionPad3d
                ),
                (Mode::Replicate, 1) => go!(
                    replication_pad1d,
                    aclnnReplicationPad1dGetWorkspaceSize,
                    aclnnReplicationPad1d
                ),
                (Mode::Replicate, 2) => go!(
                    replication_pad2d,
                    aclnnReplicationPad2dGetWorkspaceSize,
                    aclnnReplicationPad2d
                ),
                (Mode::Replicate, 3) => go!(
                    replication_pad3d,
                    aclnnReplicationPad3dGetWorkspaceSize,
                    aclnnReplicationPad3d
                ),
                (Mode::Circular, 2) => go!(
                    circular_pad2d,
                    aclnnCircularPad2dGetWorkspaceSize,
                    aclnnCircularPad2d
                ),
                (Mode::Circular, 3) => go!(
                    circular_pad3d,
                    aclnnCircularPad3dGetWorkspaceSize,
                    aclnnCircularPad3d
                ),
                _ => unreachable!(),
            }
        }
    };
    r.map(|_| dev.download(o))
}

fn check_pad(
    mode: Mode,
    sv: &View,
    sm: &[u8],
    pad: &[i64],
    fill: &[u8],
    ov: &View,
    om: &[u8],
    got: &[u8],
) -> Result<(), String> {
    let k = sv.shape.len();
    check_out("pad", ov, got, |idx| {
        let mut src = vec![0; k];
        for a in 0..k {
            let p = k - 1 - a;
            let lo = if 2 * p + 1 < pad.len() { pad[2 * p] } else { 0 };
            match pad_source(mode, idx[a] as i64, lo, sv.shape[a] as i64) {
                Some(x) => src[a] = x as usize,
                None => return fill.to_vec(),
            }
        }
        let b = sv.elem(sm, sv.at(&src)).to_vec();
        if sv.dtype == Bool {
            vec![(b[0] != 0) as u8]
        } else {
            b
        }
    })?;
    untouched(ov, om, got)
}

#[test]
fn constant_pad_nd_matches_the_index_formula() {
    let mut rng = Rng::new(23);
    let mut torch = Batch::new();
    let mut torch_cases = vec![];
    let mut ran = 0;
    for case in 0..400 {
        let dtype = pick(&mut rng, CONSTANT);
        let rank = rng.below(5) as usize;
        let shape = rand_shape(&mut rng, rank, 5, 5);
        let pairs = rng.below(rank as u64 + 1) as usize;
        let pad: Vec<i64> = (0..2 * pairs).map(|_| rng.below(7) as i64 - 2).collect();
        let (vd, v) = if dtype.is_float() || dtype.is_complex() {
            (
                pick(&mut rng, &[F32, F64, F16]),
                (rng.below(9) as f64 - 4.0) * 0.5,
            )
        } else if dtype == Bool {
            (Bool, rng.below(2) as f64)
        } else {
            (pick(&mut rng, &[S32, S64, U8]), rng.below(100) as f64)
        };
        // value converted to self's dtype: exact here (small values; a real value is the
        // real part of a complex fill).
        let fill_value = match dtype {
            C64 => [(v as f32).to_le_bytes(), 0f32.to_le_bytes()].concat(),
            C128 => [v.to_le_bytes(), 0f64.to_le_bytes()].concat(),
            d => enc(d, v),
        };
        let sv = View::random(&mut rng, dtype, &shape);
        // Valid per the device's rules?
        let mut valid = true;
        let (mut positive, mut zero) = (false, false);
        for p in 0..pairs {
            let (lo, hi, n) = (pad[2 * p], pad[2 * p + 1], shape[rank - 1 - p] as i64);
            valid &= n + lo.min(hi).min(lo + hi) >= 0;
            positive |= lo > 0 || hi > 0;
            zero |= n + lo + hi == 0;
        }
        valid &= !(positive && zero);
        let want_shape = padded_shape(&shape, &pad);
        let ov = View::random(&mut rng, dtype, &want_shape);
        let (sm, om) = (fill(&mut rng, &sv), fill(&mut rng, &ov));
        match run_pad(
            Mode::Constant,
            0,
            &sv,
            &sm,
            &pad,
            Some((vd, enc(vd, v))),
            &ov,
            &om,
        ) {
            Ok(got) => {
                assert!(valid, "case {case}: {shape:?} pad {pad:?} accepted");
                check_pad(Mode::Constant, &sv, &sm, &pad, &fill_value, &ov, &om, &got)
                    .unwrap_or_else(|e| panic!("case {case} {dtype} {shape:?} pad {pad:?}: {e}"));
                ran += 1;
                if dtype == F32 && torch_cases.len() < 40 {
                    let p = torch.program("out = F.pad(a[0], a[1].tolist(), value=a[2].item())");
                    torch.case(
                        p,
                        vec![
                            Some(sv.array(&sm)),
                            Some(Array::i64s(&[pad.len()], &pad)),
                            Some(Array::f64s(&[1], &[v])),
                        ],
                    );
                    torch_cases.push((ov.clone(), got));
                }
            }
            Err((c, m)) => {
                assert!(
                    !valid && c == INVALID,
                    "case {case} {dtype} {shape:?} pad {pad:?}: refused {c} {m}"
                );
            }
        }
    }
    assert!(ran > 200, "only {ran} valid cases");
    if let Some(res) = torch.run("constant pad") {
        for (k, (ov, got)) in torch_cases.iter().enumerate() {
            let t = res[k].as_ref().expect("torch raised");
            assert_eq!(t[0].bytes, ov.array(got).bytes, "torch case {k}");
        }
    }
}

#[test]
fn constant_pad_nd_refusals() {
    let sv = View::contiguous(F32, &[2, 3]);
    let sm = vec![0u8; sv.bytes()];
    let v = Some((F32, enc(F32, 1.0)));
    let r = |pad: &[i64], ov: &View| {
        run_pad(
            Mode::Constant,
            0,
            &sv,
            &sm,
            pad,
            v.clone(),
            ov,
            &vec![0u8; ov.bytes()],
        )
    };
    let (c, m) = r(&[1], &View::contiguous(F32, &[2, 4])).unwrap_err();
    assert!(c == INVALID && m.contains("pairs"), "{m}");
    let (c, m) = r(&[0, 0, 0, 0, 0, 0], &sv).unwrap_err();
    assert!(c == INVALID && m.contains("twice"), "{m}");
    let (c, m) = r(&[-4, 0], &sv).unwrap_err();
    assert!(c == INVALID && m.contains("negative"), "{m}");
    let (c, m) = r(&[1, 1], &View::contiguous(F32, &[2, 4])).unwrap_err();
    assert!(c == INVALID && m.contains("shape"), "{m}");
    let (c, m) = r(&[1, 0], &View::contiguous(S32, &[2, 4])).unwrap_err();
    assert!(c == INVALID && m.contains("dtype"), "{m}");
    // a positive pad with a dim cropped to nothing
    let (c, m) = r(&[1, 0, -2, 0], &View::contiguous(F32, &[0, 4])).unwrap_err();
    assert!(c == INVALID && m.contains("size 0"), "{m}");
    // NULLs
    let mut dev = Dev::new();
    let s = dev.upload(&sm);
    let st = dev.tensor(&sv, s, ND);
    let pa = dev.ints(&[0, 0]);
    let sc = dev.scalar(F32, &enc(F32, 0.0));
    let r = call(
        |w, e| unsafe {
            ops::constant_pad_nd::aclnnConstantPadNdGetWorkspaceSize(st, pa, null_mut(), st, w, e)
        },
        ops::constant_pad_nd::aclnnConstantPadNd,
    );
    assert_eq!(r.unwrap_err().0, NULLPTR);
    let r = call(
        |w, e| unsafe {
            ops::constant_pad_nd::aclnnConstantPadNdGetWorkspaceSize(st, null_mut(), sc, st, w, e)
        },
        ops::constant_pad_nd::aclnnConstantPadNd,
    );
    assert_eq!(r.unwrap_err().0, NULLPTR);
}

#[test]
fn edge_pads_match_their_definitions() {
    let mut rng = Rng::new(29);
    let mut torch = Batch::new();
    let mut torch_cases = vec![];
    let mut ran = 0;
    for case in 0..600 {
        let (mode, dims) = match case % 8 {
            0 => (Mode::Reflect, 1),
            1 => (Mode::Reflect, 2),
            2 => (Mode::Reflect, 3),
            3 => (Mode::Replicate, 1),
            4 => (Mode::Replicate, 2),
            5 => (Mode::Replicate, 3),
            6 => (Mode::Circular, 2),
            _ => (Mode::Circular, 3),
        };
        let list = if mode == Mode::Circular {
            CIRCULAR
        } else {
            MIRROR
        };
        let dtype = pick(&mut rng, list);
        let rank = dims + 1 + rng.below(2) as usize;
        let mut shape = rand_shape(&mut rng, rank, 5, 0);
        if rank == dims + 2 && rng.pct(10) {
            shape[0] = 0;
        }
        let pad: Vec<i64> = (0..2 * dims)
            .map(|p| {
                let n = shape[rank - 1 - p / 2] as i64;
                if rng.pct(5) {
                    n
                } else {
                    rng.below(n as u64 * 2 - 1) as i64 - (n - 1)
                }
            })
            .collect();
        let mut valid = !(shape[0] == 0 && rank == dims + 1);
        for p in 0..dims {
            let n = shape[rank - 1 - p] as i64;
            let (lo, hi) = (pad[2 * p], pad[2 * p + 1]);
            valid &= lo < n && hi < n && lo > -n && hi > -n && n + lo + hi >= 1;
        }
        let want_shape = padded_shape(&shape, &pad);
        let sv = View::random(&mut rng, dtype, &shape);
        let ov = View::random(&mut rng, dtype, &want_shape);
        let (sm, om) = (fill(&mut rng, &sv), fill(&mut rng, &ov));
        match run_pad(mode, dims, &sv, &sm, &pad, None, &ov, &om) {
            Ok(got) => {
                assert!(
                    valid || shape[0] == 0,
                    "case {case} {mode:?}{dims} {shape:?} pad {pad:?} accepted"
                );
                check_pad(mode, &sv, &sm, &pad, &[], &ov, &om, &got).unwrap_or_else(|e| {
                    panic!("case {case} {mode:?}{dims} {dtype} {shape:?} pad {pad:?}: {e}")
                });
                ran += 1;
                // torch 1.13's circular pad needs the batch dim
                let torch_ok = mode != Mode::Circular || rank == dims + 2;
                if dtype == F32
                    && torch_ok
                    && torch_cases.len() < 60
                    && !sv.shape.contains(&0)
                    && pad.iter().all(|&p| p >= 0)
                {
                    let m = match mode {
                        Mode::Reflect => "reflect",
                        Mode::Replicate => "replicate",
                        _ => "circular",
                    };
                    let p = torch.program(&format!("out = F.pad(a[0], a[1].tolist(), mode='{m}')"));
                    torch.case(
                        p,
                        vec![Some(sv.array(&sm)), Some(Array::i64s(&[pad.len()], &pad))],
                    );
                    torch_cases.push((ov.clone(), got));
                }
            }
            Err((c, m)) => assert!(
                !valid && c == INVALID,
                "case {case} {mode:?}{dims} {shape:?} pad {pad:?}: refused {c} {m}"
            ),
        }
    }
    assert!(ran > 300, "only {ran} valid cases");
    if let Some(res) = torch.run("edge pads") {
        for (k, (ov, got)) in torch_cases.iter().enumerate() {
            let t = res[k].as_ref().expect("torch raised");
            assert_eq!(t[0].bytes, ov.array(got).bytes, "torch case {k}");
        }
    }
}

#[test]
fn edge_pads_refuse_bad_ranks_and_padding() {
    let sv = View::contiguous(F32, &[2, 3]);
    let sm = vec![0u8; sv.bytes()];
    let om = vec![0u8; 64];
    let r = |mode, dims, s: &View, pad: &[i64], o: &View| {
        run_pad(
            mode,
            dims,
            s,
            &vec![0u8; s.bytes()],
            pad,
            None,
            o,
            &vec![0u8; o.bytes()],
        )
    };
    let _ = (&sm, &om);
    let (c, m) = r(
        Mode::Reflect,
        1,
        &View::contiguous(F32, &[3]),
        &[1, 1],
        &View::contiguous(F32, &[5]),
    )
    .unwrap_err();
    assert!(c == INVALID && m.contains("dims"), "{m}");
    let (c, m) = r(Mode::Reflect, 1, &sv, &[1], &View::contiguous(F32, &[2, 4])).unwrap_err();
    assert!(c == INVALID && m.contains("values"), "{m}");
    let (c, m) = r(
        Mode::Reflect,
        1,
        &sv,
        &[3, 0],
        &View::contiguous(F32, &[2, 6]),
    )
    .unwrap_err();
    assert!(c == INVALID && m.contains("smaller"), "{m}");
    let (c, m) = r(
        Mode::Replicate,
        2,
        &View::contiguous(F32, &[1, 2, 3]),
        &[0, 0, 1, 0],
        &View::contiguous(F32, &[1, 2, 3]),
    )
    .unwrap_err();
    assert!(c == INVALID && m.contains("shape"), "{m}");
    let (c, m) = r(
        Mode::Circular,
        2,
        &View::contiguous(F64, &[1, 2, 3]),
        &[0, 0, 0, 0],
        &View::contiguous(F64, &[1, 2, 3]),
    )
    .unwrap_err();
    assert!(c == INVALID && m.contains("dtype"), "{m}");
    // a 2-d reflection self may not be empty
    let (c, m) = r(
        Mode::Reflect,
        1,
        &View::contiguous(F32, &[0, 3]),
        &[1, 1],
        &View::contiguous(F32, &[0, 5]),
    )
    .unwrap_err();
    assert!(c == INVALID && m.contains("empty"), "{m}");
}

// ---------------------------------------------------------------------------------------
// UpsampleNearest2d
// ---------------------------------------------------------------------------------------

#[test]
fn upsample_nearest_2d_matches_the_f32_index_formula() {
    let mut rng = Rng::new(31);
    let mut torch = Batch::new();
    let mut torch_cases = vec![];
    for case in 0..200 {
        let dtype = pick(&mut rng, &[F16, F32, F64, U8, BF16]);
        let nhwc = rng.pct(25);
        let (n, c, h, w) = (
            rng.below(3) as usize,
            1 + rng.below(3) as usize,
            1 + rng.below(7) as usize,
            1 + rng.below(7) as usize,
        );
        let (oh, ow) = (1 + rng.below(17) as usize, 1 + rng.below(17) as usize);
        let (ss, os) = if nhwc {
            (vec![n, h, w, c], vec![n, oh, ow, c])
        } else {
            (vec![n, c, h, w], vec![n, c, oh, ow])
        };
        let sv = View::random(&mut rng, dtype, &ss);
        let ov = View::random(&mut rng, dtype, &os);
        let (sm, om) = (fill(&mut rng, &sv), fill(&mut rng, &ov));
        let mut dev = Dev::new();
        let (s, o) = (dev.upload(&sm), dev.upload(&om));
        let fmt = if nhwc { NHWC } else { NCHW };
        let st = dev.tensor(&sv, s, fmt);
        let ot = dev.tensor(&ov, o, fmt);
        let size = dev.ints(&[oh as i64, ow as i64]);
        call(
            |wk, e| unsafe {
                ops::upsample_nearest_2d::aclnnUpsampleNearest2dGetWorkspaceSize(
                    st, size, ot, wk, e,
                )
            },
            ops::upsample_nearest_2d::aclnnUpsampleNearest2d,
        )
        .unwrap_or_else(|e| panic!("case {case}: {e:?}"));
        let got = dev.download(o);
        // torch's nearest: floor(dst · (float)(in / out)) in f32, at most in − 1.
        let src = |d: usize, inp: usize, out: usize| -> usize {
            let scale = inp as f32 / out as f32;
            ((d as f32 * scale).floor() as usize).min(inp - 1)
        };
        let (ha, wa) = if nhwc { (1, 2) } else { (2, 3) };
        check_out("nearest", &ov, &got, |idx| {
            let mut si = idx.to_vec();
            si[ha] = src(idx[ha], h, oh);
            si[wa] = src(idx[wa], w, ow);
            sv.elem(&sm, sv.at(&si)).to_vec()
        })
        .and_then(|_| untouched(&ov, &om, &got))
        .unwrap_or_else(|e| panic!("case {case} {ss:?} -> {oh}x{ow}: {e}"));
        if !nhwc && dtype == F32 && n > 0 && torch_cases.len() < 60 {
            let p = torch.program("out = F.interpolate(a[0], size=a[1].tolist(), mode='nearest')");
            torch.case(
                p,
                vec![
                    Some(sv.array(&sm)),
                    Some(Array::i64s(&[2], &[oh as i64, ow as i64])),
                ],
            );
            torch_cases.push((ov.clone(), got));
        }
    }
    // Large ratios where f32 rounding of the scale matters.
    for (inp, out) in [
        (3usize, 7usize),
        (7, 10),
        (10, 3),
        (13, 1000),
        (1000, 999),
        (5, 11),
    ] {
        let sv = View::contiguous(F32, &[1, 1, 1, inp]);
        let sm: Vec<u8> = (0..inp).flat_map(|i| (i as f32).to_le_bytes()).collect();
        let ov = View::contiguous(F32, &[1, 1, 1, out]);
        let p = torch.program("out = F.interpolate(a[0], size=a[1].tolist(), mode='nearest')");
        torch.case(
            p,
            vec![
                Some(sv.array(&sm)),
                Some(Array::i64s(&[2], &[1, out as i64])),
            ],
        );
        let mut dev = Dev::new();
        let (s, o) = (dev.upload(&sm), dev.upload(&vec![0u8; ov.bytes()]));
        let st = dev.tensor(&sv, s, NCHW);
        let ot = dev.tensor(&ov, o, NCHW);
        let size = dev.ints(&[1, out as i64]);
        call(
            |wk, e| unsafe {
                ops::upsample_nearest_2d::aclnnUpsampleNearest2dGetWorkspaceSize(
                    st, size, ot, wk, e,
                )
            },
            ops::upsample_nearest_2d::aclnnUpsampleNearest2d,
        )
        .unwrap();
        torch_cases.push((ov.clone(), dev.download(o)));
    }
    if let Some(res) = torch.run("upsample nearest") {
        for (k, (ov, got)) in torch_cases.iter().enumerate() {
            let t = res[k].as_ref().expect("torch raised");
            assert_eq!(t[0].bytes, ov.array(got).bytes, "torch case {k}");
        }
    }
}

#[test]
fn upsample_nearest_2d_refusals() {
    let mut dev = Dev::new();
    let mk = |dev: &mut Dev, d: DType, s: &[usize], f: i32| {
        let v = View::contiguous(d, s);
        let m = dev.upload(&vec![0u8; v.bytes()]);
        dev.tensor(&v, m, f)
    };
    let a = mk(&mut dev, F32, &[1, 2, 3, 4], NCHW);
    let b = mk(&mut dev, F32, &[1, 2, 6, 8], NCHW);
    let c = mk(&mut dev, F32, &[1, 3, 6, 8], NCHW);
    let d = mk(&mut dev, S32, &[1, 2, 6, 8], NCHW);
    let e = mk(&mut dev, F32, &[1, 2, 6, 8], ND);
    let ok = dev.ints(&[6, 8]);
    let zero = dev.ints(&[0, 8]);
    let three = dev.ints(&[6, 8, 1]);
    let r = |s, size, o| {
        call(
            |w, x| unsafe {
                ops::upsample_nearest_2d::aclnnUpsampleNearest2dGetWorkspaceSize(s, size, o, w, x)
            },
            ops::upsample_nearest_2d::aclnnUpsampleNearest2d,
        )
    };
    assert!(r(a, ok, b).is_ok());
    assert_eq!(r(a, null_mut(), b).unwrap_err().0, NULLPTR);
    for (s, size, o, what) in [
        (a, ok, c, "shape"),
        (a, ok, d, "dtype"),
        (a, zero, b, "positive"),
        (a, three, b, "2 values"),
        (a, ok, e, "format"),
    ] {
        let (code, m) = r(s, size, o).unwrap_err();
        assert!(code == INVALID && m.contains(what), "{what}: {m}");
    }
}

// ---------------------------------------------------------------------------------------
// Im2col
// ---------------------------------------------------------------------------------------

#[test]
fn im2col_matches_the_unfold_formula() {
    let mut rng = Rng::new(37);
    let mut torch = Batch::new();
    let mut torch_cases = vec![];
    let mut ran = 0;
    for case in 0..250 {
        let dtype = pick(&mut rng, &[F32, F16, BF16]);
        let odtype = if rng.pct(20) {
            pick(&mut rng, &[F32, F16, BF16])
        } else {
            dtype
        };
        let batched = rng.pct(70);
        let (n, c, h, w) = (
            rng.below(3) as usize,
            1 + rng.below(3) as usize,
            1 + rng.below(7) as usize,
            1 + rng.below(7) as usize,
        );
        let kk = [1 + rng.below(3) as usize, 1 + rng.below(3) as usize];
        let dil = [1 + rng.below(2) as usize, 1 + rng.below(2) as usize];
        let pad = [rng.below(3) as usize, rng.below(3) as usize];
        let st = [1 + rng.below(3) as usize, 1 + rng.below(2) as usize];
        let span = |size: usize, a: usize| {
            (size as i64 + 2 * pad[a] as i64 - (dil[a] * (kk[a] - 1) + 1) as i64)
                .div_euclid(st[a] as i64)
                + 1
        };
        let (oh, ow) = (span(h, 0), span(w, 1));
        let ss = if batched {
            vec![n, c, h, w]
        } else {
            vec![c, h, w]
        };
        let sv = View::random(&mut rng, dtype, &ss);
        let sm = fill(&mut rng, &sv);
        let valid = oh >= 1 && ow >= 1;
        let (oh, ow) = (oh.max(1) as usize, ow.max(1) as usize);
        let os = if batched {
            vec![n, c * kk[0] * kk[1], oh * ow]
        } else {
            vec![c * kk[0] * kk[1], oh * ow]
        };
        let ov = View::random(&mut rng, odtype, &os);
        let om = fill(&mut rng, &ov);
        let mut dev = Dev::new();
        let (s, o) = (dev.upload(&sm), dev.upload(&om));
        let stt = dev.tensor(&sv, s, ND);
        let ot = dev.tensor(&ov, o, ND);
        let i64s = |v: [usize; 2]| [v[0] as i64, v[1] as i64];
        let (ka, da, pa, sa) = (
            dev.ints(&i64s(kk)),
            dev.ints(&i64s(dil)),
            dev.ints(&i64s(pad)),
            dev.ints(&i64s(st)),
        );
        let r = call(
            |wk, e| unsafe {
                ops::im2col::aclnnIm2colGetWorkspaceSize(stt, ka, da, pa, sa, ot, wk, e)
            },
            ops::im2col::aclnnIm2col,
        );
        if !valid {
            assert_eq!(r.unwrap_err().0, INVALID, "case {case}");
            continue;
        }
        r.unwrap_or_else(|e| panic!("case {case}: {e:?}"));
        ran += 1;
        let got = dev.download(o);
        check_out("im2col", &ov, &got, |idx| {
            let (b, row, l) = if batched {
                (idx[0], idx[1], idx[2])
            } else {
                (0, idx[0], idx[1])
            };
            let (ch, ki, kj) = (row / (kk[0] * kk[1]), row / kk[1] % kk[0], row % kk[1]);
            let (y, x) = (l / ow, l % ow);
            let hi = (y * st[0] + ki * dil[0]) as i64 - pad[0] as i64;
            let wi = (x * st[1] + kj * dil[1]) as i64 - pad[1] as i64;
            if hi < 0 || wi < 0 || hi >= h as i64 || wi >= w as i64 {
                return enc(odtype, 0.0);
            }
            let si = if batched {
                vec![b, ch, hi as usize, wi as usize]
            } else {
                vec![ch, hi as usize, wi as usize]
            };
            let v = dec(dtype, sv.elem(&sm, sv.at(&si)));
            if v.is_nan() {
                // the NaN's payload is the conversion's; compare NaN-ness via a canonical quiet NaN
                let g = dec(odtype, ov.elem(&got, ov.at(idx)));
                return if g.is_nan() {
                    ov.elem(&got, ov.at(idx)).to_vec()
                } else {
                    enc(odtype, v)
                };
            }
            enc(odtype, v)
        })
        .and_then(|_| untouched(&ov, &om, &got))
        .unwrap_or_else(|e| panic!("case {case} {ss:?} k{kk:?} d{dil:?} p{pad:?} s{st:?}: {e}"));
        if dtype == F32 && odtype == F32 && batched && n > 0 && torch_cases.len() < 50 {
            let p = torch.program("out = F.unfold(a[0], kernel_size=a[1].tolist(), dilation=a[2].tolist(), padding=a[3].tolist(), stride=a[4].tolist())");
            let arr = |v: [usize; 2]| Some(Array::i64s(&[2], &i64s(v)));
            torch.case(
                p,
                vec![Some(sv.array(&sm)), arr(kk), arr(dil), arr(pad), arr(st)],
            );
            torch_cases.push((ov.clone(), got));
        }
    }
    assert!(ran > 150, "only {ran}");
    if let Some(res) = torch.run("im2col") {
        for (k, (ov, got)) in torch_cases.iter().enumerate() {
            let t = res[k].as_ref().expect("torch raised");
            assert_eq!(t[0].bytes, ov.array(got).bytes, "torch case {k}");
        }
    }
}

#[test]
fn im2col_refusals() {
    let mut dev = Dev::new();
    let sv = View::contiguous(F32, &[1, 2, 4, 4]);
    let s = dev.upload(&vec![0u8; sv.bytes()]);
    let st = dev.tensor(&sv, s, ND);
    let ov = View::contiguous(F32, &[1, 8, 9]);
    let o = dev.upload(&vec![0u8; ov.bytes()]);
    let ot = dev.tensor(&ov, o, ND);
    let k2 = dev.ints(&[2, 2]);
    let one = dev.ints(&[1, 1]);
    let zero = dev.ints(&[0, 0]);
    let neg = dev.ints(&[-1, 0]);
    let three = dev.ints(&[1, 1, 1]);
    let r = |k, d, p, s| {
        call(
            |w, e| unsafe { ops::im2col::aclnnIm2colGetWorkspaceSize(st, k, d, p, s, ot, w, e) },
            ops::im2col::aclnnIm2col,
        )
    };
    assert!(r(k2, one, zero, one).is_ok());
    assert_eq!(r(null_mut(), one, zero, one).unwrap_err().0, NULLPTR);
    for (k, d, p, s, what) in [
        (zero, one, zero, one, "positive"),
        (k2, zero, zero, one, "positive"),
        (k2, one, neg, one, "non-negative"),
        (k2, one, zero, three, "2 values"),
        (k2, one, one, one, "shape"),
    ] {
        let (c, m) = r(k, d, p, s).unwrap_err();
        assert!(c == INVALID && m.contains(what), "{what}: {m}");
    }
}

// ---------------------------------------------------------------------------------------
// Cumsum
// ---------------------------------------------------------------------------------------

const CUMSUM: &[DType] = &[F32, F16, S32, F64, U8, S8, S16, S64, BF16];

/// The running sums of `xs` (already in out's dtype `d`) in d's accumulator, encoded.
fn scan_ref(d: DType, xs: &[f64], raw: &[Vec<u8>], exclusive: bool) -> Vec<Vec<u8>> {
    let mut out = vec![];
    match d {
        F16 | BF16 | F32 => {
            let mut acc = 0f32;
            for &x in xs {
                if exclusive {
                    out.push(enc(d, acc as f64));
                }
                acc += x as f32;
                if !exclusive {
                    out.push(enc(d, acc as f64));
                }
            }
        }
        F64 => {
            let mut acc = 0f64;
            for &x in xs {
                if exclusive {
                    out.push(enc(d, acc));
                }
                acc += x;
                if !exclusive {
                    out.push(enc(d, acc));
                }
            }
        }
        _ => {
            let mut acc = 0i64;
            for r in raw {
                let mut b = [0u8; 8];
                b[..d.size()].copy_from_slice(r);
                let mut v = i64::from_le_bytes(b);
                if d.is_int() && d != U8 {
                    let sh = 64 - 8 * d.size() as u32;
                    v = v << sh >> sh; // sign-extend
                }
                if exclusive {
                    out.push(acc.to_le_bytes()[..d.size()].to_vec());
                }
                acc = acc.wrapping_add(v);
                if !exclusive {
                    out.push(acc.to_le_bytes()[..d.size()].to_vec());
                }
            }
        }
    }
    out
}

/// One element of dtype `s` converted to dtype `d` (values of the cases are small
/// integers and quarters, NaN and infinities, so this is exact; float→int truncates).
pub(super) fn convert_elem(s: DType, d: DType, b: &[u8]) -> Vec<u8> {
    if s == d {
        return b.to_vec();
    }
    let v = dec(s, b);
    if d.is_int() {
        let t = if v.is_nan() { 0.0 } else { v.trunc() };
        let (lo, hi) = match d {
            S8 => (-128.0, 127.0),
            U8 => (0.0, 255.0),
            S16 => (-32768.0, 32767.0),
            S32 => (i32::MIN as f64, i32::MAX as f64),
            _ => (i64::MIN as f64, i64::MAX as f64),
        };
        if s.is_float() {
            return enc(d, t.clamp(lo, hi));
        }
        // int -> int wraps
        let mut b8 = [0u8; 8];
        b8[..s.size()].copy_from_slice(b);
        let mut x = i64::from_le_bytes(b8);
        if s != U8 {
            let sh = 64 - 8 * s.size() as u32;
            x = x << sh >> sh;
        }
        return x.to_le_bytes()[..d.size()].to_vec();
    }
    enc(d, v)
}

/// A scan case's shape: every 8th case one long line (beyond one 256-element block of
/// the single-line path, alone or beside a size-1 dim), else a random small shape.
fn scan_shape(rng: &mut Rng, case: usize, max: u64) -> (usize, Vec<usize>) {
    if case % 8 == 0 {
        let long = 257 + rng.below(1000) as usize;
        return match rng.below(3) {
            0 => (1, vec![long]),
            1 => (2, vec![1, long]),
            _ => (2, vec![long, 1]),
        };
    }
    let rank = rng.below(4) as usize;
    (rank, rand_shape(rng, rank, max, 4))
}

#[test]
fn cumsum_is_the_sequential_sum_in_the_accumulator() {
    let mut rng = Rng::new(41);
    for case in 0..400 {
        let v2 = case % 2 == 1;
        let sd = pick(&mut rng, CUMSUM);
        let od = if v2 || rng.pct(60) {
            sd
        } else {
            pick(&mut rng, CUMSUM)
        };
        let max = if rng.pct(20) { 40 } else { 6 };
        let (rank, shape) = scan_shape(&mut rng, case, max);
        let dim = if rank == 0 {
            rng.below(2) as i64 - 1
        } else {
            rng.below(2 * rank as u64) as i64 - rank as i64
        };
        let (exclusive, reverse) = if v2 {
            (rng.pct(50), rng.pct(50))
        } else {
            (false, false)
        };
        let sv = View::random(&mut rng, sd, &shape);
        let ov = View::random(&mut rng, od, &shape);
        let mut sm = fill(&mut rng, &sv);
        // Mostly finite values, so sums are informative; small ones across dtypes, so the
        // reference's conversions are exact.
        if (sd.is_float() && rng.pct(70)) || sd != od {
            for i in 0..sv.storage {
                let b = enc(sd, (rng.below(64) as f64 - 32.0) * 0.25);
                sm[i * sd.size()..(i + 1) * sd.size()].copy_from_slice(&b);
            }
        }
        let om = fill(&mut rng, &ov);
        let mut dev = Dev::new();
        let (s, o) = (dev.upload(&sm), dev.upload(&om));
        let st = dev.tensor(&sv, s, ND);
        let ot = dev.tensor(&ov, o, ND);
        let r = if v2 {
            call(
                |w, e| unsafe {
                    ops::cumsum::aclnnCumsumV2GetWorkspaceSize(
                        st, dim, exclusive, reverse, ot, w, e,
                    )
                },
                ops::cumsum::aclnnCumsumV2,
            )
        } else {
            call(
                |w, e| unsafe {
                    ops::cumsum::aclnnCumsumGetWorkspaceSize(st, dim, od as i32, ot, w, e)
                },
                ops::cumsum::aclnnCumsum,
            )
        };
        r.unwrap_or_else(|e| panic!("case {case}: {e:?}"));
        let got = dev.download(o);
        let axis = if rank == 0 {
            0
        } else {
            dim.rem_euclid(rank as i64) as usize
        };
        let mut want = std::collections::HashMap::new();
        for idx in sv.indices() {
            if rank > 0 && idx[axis] != 0 {
                continue;
            }
            let n = if rank == 0 { 1 } else { shape[axis] };
            let mut line: Vec<Vec<usize>> = (0..n)
                .map(|k| {
                    let mut i = idx.clone();
                    if rank > 0 {
                        i[axis] = k;
                    }
                    i
                })
                .collect();
            if reverse {
                line.reverse();
            }
            let raw: Vec<Vec<u8>> = line
                .iter()
                .map(|i| convert_elem(sd, od, sv.elem(&sm, sv.at(i))))
                .collect();
            let xs: Vec<f64> = if od.is_float() {
                raw.iter().map(|b| dec(od, b)).collect()
            } else {
                vec![]
            };
            for (i, v) in line.iter().zip(scan_ref(od, &xs, &raw, exclusive)) {
                want.insert(i.clone(), v);
            }
        }
        check_out("cumsum", &ov, &got, |idx| {
            let w = want[idx].clone();
            // any NaN is the same NaN for a sum
            if od.is_float() && dec(od, &w).is_nan() && dec(od, ov.elem(&got, ov.at(idx))).is_nan()
            {
                return ov.elem(&got, ov.at(idx)).to_vec();
            }
            w
        })
        .and_then(|_| untouched(&ov, &om, &got))
        .unwrap_or_else(|e| {
            panic!("case {case} {sd}->{od} {shape:?} dim {dim} excl {exclusive} rev {reverse}: {e}")
        });
    }
}

#[test]
fn cumsum_refusals() {
    let mut dev = Dev::new();
    let a = dev.zeros(F32, &[2, 3]);
    let b = dev.zeros(F32, &[2, 3]);
    let c = dev.zeros(F32, &[3, 2]);
    let d = dev.zeros(Bool, &[2, 3]);
    let e = dev.zeros(S32, &[2, 3]);
    let v1 = |s, dim, o| {
        call(
            |w, x| unsafe { ops::cumsum::aclnnCumsumGetWorkspaceSize(s, dim, F32 as i32, o, w, x) },
            ops::cumsum::aclnnCumsum,
        )
    };
    let v2 = |s, dim, o| {
        call(
            |w, x| unsafe {
                ops::cumsum::aclnnCumsumV2GetWorkspaceSize(s, dim, true, false, o, w, x)
            },
            ops::cumsum::aclnnCumsumV2,
        )
    };
    assert!(v1(a, -2, b).is_ok());
    assert_eq!(v1(null_mut(), 0, b).unwrap_err().0, NULLPTR);
    for (r, what) in [
        (v1(a, 2, b), "out of range"),
        (v1(a, 0, c), "shape"),
        (v1(d, 0, b), "dtype"),
        (v1(a, 0, e), "dtype"),
        (v2(a, 0, e), "dtype"),
        (v2(a, -3, b), "out of range"),
    ] {
        let (code, m) = r.unwrap_err();
        assert!(code == INVALID && m.contains(what), "{what}: {m}");
    }
}

// ---------------------------------------------------------------------------------------
// Argsort
// ---------------------------------------------------------------------------------------

const ARGSORT: &[DType] = &[F32, F16, S8, S16, S32, S64, U8, BF16];

/// torch's order of two values: NaN largest (NaNs equal), −0 = +0.
pub(super) fn torch_cmp(a: f64, b: f64) -> std::cmp::Ordering {
    match (a.is_nan(), b.is_nan()) {
        (true, true) => std::cmp::Ordering::Equal,
        (true, false) => std::cmp::Ordering::Greater,
        (false, true) => std::cmp::Ordering::Less,
        _ => a.partial_cmp(&b).unwrap(),
    }
}

pub(super) fn int_value(d: DType, b: &[u8]) -> i128 {
    let mut b8 = [0u8; 8];
    b8[..d.size()].copy_from_slice(b);
    let x = i64::from_le_bytes(b8);
    if d == U8 {
        x as i128
    } else {
        let sh = 64 - 8 * d.size() as u32;
        (x << sh >> sh) as i128
    }
}

#[test]
fn argsort_is_torchs_stable_order() {
    let mut rng = Rng::new(43);
    let mut torch = Batch::new();
    let mut torch_cases = vec![];
    for case in 0..300 {
        let dtype = pick(&mut rng, ARGSORT);
        let rank = rng.below(4) as usize;
        let long = rng.pct(5);
        let mut shape = rand_shape(&mut rng, rank, 7, 4);
        let dim = if rank == 0 {
            rng.below(2) as i64 - 1
        } else {
            rng.below(2 * rank as u64) as i64 - rank as i64
        };
        let axis = if rank == 0 {
            0
        } else {
            dim.rem_euclid(rank as i64) as usize
        };
        if long && rank > 0 {
            shape = vec![1; rank];
            shape[axis] = 40_000;
        }
        if dtype == BF16 && rank > 0 && shape[axis] == 1 {
            shape[axis] = 2;
        }
        let descending = rng.pct(50);
        let sv = View::random(&mut rng, dtype, &shape);
        let ov = View::random(&mut rng, S64, &shape);
        let mut sm = fill(&mut rng, &sv);
        if dtype.is_int() && rng.pct(50) {
            // many ties
            for i in 0..sv.storage {
                let b = enc(dtype, rng.below(4) as f64);
                sm[i * dtype.size()..(i + 1) * dtype.size()].copy_from_slice(&b);
            }
        }
        let om = fill(&mut rng, &ov);
        let mut dev = Dev::new();
        let (s, o) = (dev.upload(&sm), dev.upload(&om));
        let st = dev.tensor(&sv, s, ND);
        let ot = dev.tensor(&ov, o, ND);
        call(
            |w, e| unsafe {
                ops::argsort::aclnnArgsortGetWorkspaceSize(st, dim, descending, ot, w, e)
            },
            ops::argsort::aclnnArgsort,
        )
        .unwrap_or_else(|e| panic!("case {case}: {e:?}"));
        let got = dev.download(o);
        let mut want = std::collections::HashMap::new();
        for idx in sv.indices() {
            if rank > 0 && idx[axis] != 0 {
                continue;
            }
            let n = if rank == 0 { 1 } else { shape[axis] };
            let at = |k: usize| {
                let mut i = idx.clone();
                if rank > 0 {
                    i[axis] = k;
                }
                i
            };
            let mut order: Vec<usize> = (0..n).collect();
            if dtype.is_float() {
                let vals: Vec<f64> = (0..n)
                    .map(|k| dec(dtype, sv.elem(&sm, sv.at(&at(k)))))
                    .collect();
                order.sort_by(|&a, &b| {
                    let c = torch_cmp(vals[a], vals[b]);
                    if descending {
                        c.reverse()
                    } else {
                        c
                    }
                });
            } else {
                let vals: Vec<i128> = (0..n)
                    .map(|k| int_value(dtype, sv.elem(&sm, sv.at(&at(k)))))
                    .collect();
                order.sort_by(|&a, &b| {
                    let c = vals[a].cmp(&vals[b]);
                    if descending {
                        c.reverse()
                    } else {
                        c
                    }
                });
            }
            for (j, &src) in order.iter().enumerate() {
                want.insert(at(j), (src as i64).to_le_bytes().to_vec());
            }
        }
        check_out("argsort", &ov, &got, |idx| want[idx].clone())
            .and_then(|_| untouched(&ov, &om, &got))
            .unwrap_or_else(|e| {
                panic!("case {case} {dtype} {shape:?} dim {dim} desc {descending}: {e}")
            });
        if !long && !matches!(dtype, BF16 | F16) && torch_cases.len() < 80 {
            let p = torch.program("out = torch.sort(a[0], dim=a[1].item(), descending=bool(a[2].item()), stable=True)[1]");
            torch.case(
                p,
                vec![
                    Some(sv.array(&sm)),
                    Some(Array::int(dim)),
                    Some(Array::int(descending as i64)),
                ],
            );
            torch_cases.push((ov.clone(), got));
        }
    }
    if let Some(res) = torch.run("argsort") {
        for (k, (ov, got)) in torch_cases.iter().enumerate() {
            let t = res[k].as_ref().expect("torch raised");
            assert_eq!(t[0].bytes, ov.array(got).bytes, "torch case {k}");
        }
    }
}

#[test]
fn argsort_refusals() {
    let mut dev = Dev::new();
    let a = dev.zeros(F32, &[2, 3]);
    let i = dev.zeros(S64, &[2, 3]);
    let i32_ = dev.zeros(S32, &[2, 3]);
    let bad = dev.zeros(F64, &[2, 3]);
    let b1 = dev.zeros(BF16, &[2, 1]);
    let i1 = dev.zeros(S64, &[2, 1]);
    let r = |s, dim, o| {
        call(
            |w, x| unsafe { ops::argsort::aclnnArgsortGetWorkspaceSize(s, dim, false, o, w, x) },
            ops::argsort::aclnnArgsort,
        )
    };
    assert!(r(a, 1, i).is_ok());
    assert_eq!(r(a, 0, null_mut()).unwrap_err().0, NULLPTR);
    for (res, what) in [
        (r(a, 2, i), "out of range"),
        (r(a, 0, i32_), "dtype"),
        (r(bad, 0, i), "dtype"),
        (r(b1, 1, i1), "size 1"),
    ] {
        let (code, m) = res.unwrap_err();
        assert!(code == INVALID && m.contains(what), "{what}: {m}");
    }
}

// ---------------------------------------------------------------------------------------
// Flip
// ---------------------------------------------------------------------------------------

const FLIP: &[DType] = &[F16, F32, S32, S16, S64, Bool, S8, U8, F64, C64, C128, BF16];

#[test]
fn flip_reverses_the_named_dims() {
    let mut rng = Rng::new(47);
    for case in 0..300 {
        let dtype = pick(&mut rng, FLIP);
        let rank = 1 + rng.below(4) as usize;
        let shape = rand_shape(&mut rng, rank, 5, 4);
        let mut dims: Vec<i64> = vec![];
        for d in 0..rank as i64 {
            if rng.pct(50) {
                dims.push(if rng.pct(50) { d - rank as i64 } else { d });
            }
        }
        let dup = rng.pct(5) && !dims.is_empty();
        if dup {
            dims.push(
                dims[0]
                    + if dims[0] < 0 {
                        rank as i64
                    } else {
                        -(rank as i64)
                    },
            );
        }
        let inplace_view = rng.pct(10);
        let sv = View::random(&mut rng, dtype, &shape);
        let ov = if inplace_view {
            sv.clone()
        } else {
            View::random(&mut rng, dtype, &shape)
        };
        let (sm, om) = (fill(&mut rng, &sv), fill(&mut rng, &ov));
        let mut dev = Dev::new();
        let s = dev.upload(&sm);
        let st = dev.tensor(&sv, s, ND);
        // out may be self's own view: the flip must read everything before writing.
        let (o, ot) = if inplace_view {
            (s, st)
        } else {
            let o = dev.upload(&om);
            (o, dev.tensor(&ov, o, ND))
        };
        let da = dev.ints(&dims);
        let r = call(
            |w, e| unsafe { ops::flip::aclnnFlipGetWorkspaceSize(st, da, ot, w, e) },
            ops::flip::aclnnFlip,
        );
        if dup {
            assert_eq!(r.unwrap_err().0, INVALID, "case {case}");
            continue;
        }
        r.unwrap_or_else(|e| panic!("case {case}: {e:?}"));
        let got = dev.download(o);
        let flipped: Vec<bool> = (0..rank)
            .map(|a| {
                dims.iter()
                    .any(|&d| d.rem_euclid(rank as i64) as usize == a)
            })
            .collect();
        check_out("flip", &ov, &got, |idx| {
            let si: Vec<usize> = (0..rank)
                .map(|a| {
                    if flipped[a] {
                        shape[a] - 1 - idx[a]
                    } else {
                        idx[a]
                    }
                })
                .collect();
            let b = sv.elem(&sm, sv.at(&si)).to_vec();
            if dtype == Bool {
                vec![(b[0] != 0) as u8]
            } else {
                b
            }
        })
        .and_then(|_| untouched(&ov, if inplace_view { &sm } else { &om }, &got))
        .unwrap_or_else(|e| panic!("case {case} {dtype} {shape:?} dims {dims:?}: {e}"));
    }
}

// ---------------------------------------------------------------------------------------
// Sort, Topk
// ---------------------------------------------------------------------------------------

/// The stable sorted order of a line of `dtype` elements (torch's order).
fn ref_order(dtype: DType, line: &[Vec<u8>], descending: bool) -> Vec<usize> {
    let mut order: Vec<usize> = (0..line.len()).collect();
    if dtype.is_float() {
        let vals: Vec<f64> = line.iter().map(|b| dec(dtype, b)).collect();
        order.sort_by(|&a, &b| {
            let c = torch_cmp(vals[a], vals[b]);
            if descending {
                c.reverse()
            } else {
                c
            }
        });
    } else {
        let vals: Vec<i128> = line
            .iter()
            .map(|b| {
                if dtype == Bool {
                    b[0] as i128
                } else {
                    int_value(dtype, b)
                }
            })
            .collect();
        order.sort_by(|&a, &b| {
            let c = vals[a].cmp(&vals[b]);
            if descending {
                c.reverse()
            } else {
                c
            }
        });
    }
    order
}

#[test]
fn sort_and_topk_give_the_stable_order_and_its_values() {
    let mut rng = Rng::new(53);
    let mut torch = Batch::new();
    let mut torch_cases = vec![];
    for case in 0..300 {
        let topk = case % 2 == 1;
        let list: &[DType] = if topk {
            &[S8, U8, S16, S32, S64, F16, F32, F64, BF16]
        } else {
            &[BF16, F16, F32, S8, S16, S32, S64, U8, Bool]
        };
        let dtype = pick(&mut rng, list);
        let rank = rng.below(4) as usize;
        let mut shape = rand_shape(&mut rng, rank, 7, 4);
        let dim = if rank == 0 {
            rng.below(2) as i64 - 1
        } else {
            rng.below(2 * rank as u64) as i64 - rank as i64
        };
        let axis = if rank == 0 {
            0
        } else {
            dim.rem_euclid(rank as i64) as usize
        };
        if dtype == BF16 && rank > 0 && shape[axis] == 1 && !topk {
            shape[axis] = 2;
        }
        let n = if rank == 0 { 1 } else { shape[axis] };
        // (a 0-d self has one element to take: k = 1)
        let k = if topk && rank > 0 {
            rng.below(n as u64 + 1) as usize
        } else {
            n
        };
        let descending = rng.pct(50);
        let mut oshape = shape.clone();
        if rank > 0 {
            oshape[axis] = k;
        }
        let sv = View::random(&mut rng, dtype, &shape);
        let vv = View::random(&mut rng, dtype, &oshape);
        let iv = View::random(&mut rng, S64, &oshape);
        let mut sm = fill(&mut rng, &sv);
        if rng.pct(50) {
            for i in 0..sv.storage {
                let b = enc(dtype, rng.below(4) as f64);
                sm[i * dtype.size()..(i + 1) * dtype.size()].copy_from_slice(&b);
            }
        }
        let (vm, im) = (fill(&mut rng, &vv), fill(&mut rng, &iv));
        let mut dev = Dev::new();
        let (s, v, i) = (dev.upload(&sm), dev.upload(&vm), dev.upload(&im));
        let (st, vt, it) = (
            dev.tensor(&sv, s, ND),
            dev.tensor(&vv, v, ND),
            dev.tensor(&iv, i, ND),
        );
        let r = if topk {
            call(
                |w, e| unsafe {
                    ops::topk::aclnnTopkGetWorkspaceSize(
                        st, k as i64, dim, descending, true, vt, it, w, e,
                    )
                },
                ops::topk::aclnnTopk,
            )
        } else {
            call(
                |w, e| unsafe {
                    ops::sort::aclnnSortGetWorkspaceSize(
                        st,
                        rng.pct(50),
                        dim,
                        descending,
                        vt,
                        it,
                        w,
                        e,
                    )
                },
                ops::sort::aclnnSort,
            )
        };
        r.unwrap_or_else(|e| panic!("case {case}: {e:?}"));
        let (gv, gi) = (dev.download(v), dev.download(i));
        let mut want_v = std::collections::HashMap::new();
        let mut want_i = std::collections::HashMap::new();
        for idx in sv.indices() {
            if rank > 0 && idx[axis] != 0 {
                continue;
            }
            let at = |j: usize| {
                let mut x = idx.clone();
                if rank > 0 {
                    x[axis] = j;
                }
                x
            };
            let line: Vec<Vec<u8>> = (0..n)
                .map(|j| sv.elem(&sm, sv.at(&at(j))).to_vec())
                .collect();
            let order = ref_order(dtype, &line, descending);
            for j in 0..k {
                let b = line[order[j]].clone();
                want_v.insert(
                    at(j),
                    if dtype == Bool {
                        vec![(b[0] != 0) as u8]
                    } else {
                        b
                    },
                );
                want_i.insert(at(j), (order[j] as i64).to_le_bytes().to_vec());
            }
        }
        check_out("values", &vv, &gv, |idx| {
            want_v.get(idx).cloned().unwrap_or_else(|| {
                panic!("case {case} {shape:?} axis {axis} k {k}: no value for {idx:?}")
            })
        })
        .and_then(|_| check_out("indices", &iv, &gi, |idx| want_i[idx].clone()))
        .and_then(|_| untouched(&vv, &vm, &gv))
        .and_then(|_| untouched(&iv, &im, &gi))
        .unwrap_or_else(|e| {
            panic!(
                "case {case} topk {topk} {dtype} {shape:?} dim {dim} k {k} desc {descending}: {e}"
            )
        });
        if topk && matches!(dtype, F32 | S32 | S64) && k > 0 && torch_cases.len() < 60 {
            // torch.topk's tie order is its own: compare the values only.
            let p = torch.program("out = torch.topk(a[0], a[1].item(), dim=a[2].item(), largest=bool(a[3].item()), sorted=True)[0]");
            torch.case(
                p,
                vec![
                    Some(sv.array(&sm)),
                    Some(Array::int(k as i64)),
                    Some(Array::int(dim)),
                    Some(Array::int(descending as i64)),
                ],
            );
            torch_cases.push((vv.clone(), gv));
        }
    }
    if let Some(res) = torch.run("topk") {
        // as values: ties of −0 and +0 may be taken in either order
        for (k, (vv, got)) in torch_cases.iter().enumerate() {
            let t = res[k].as_ref().expect("torch raised");
            let e = vv.dtype.size();
            let ours: Vec<f64> = vv
                .array(got)
                .bytes
                .chunks(e)
                .map(|b| dec(vv.dtype, b))
                .collect();
            let theirs: Vec<f64> = t[0].bytes.chunks(e).map(|b| dec(vv.dtype, b)).collect();
            assert!(
                ours.iter()
                    .zip(&theirs)
                    .all(|(a, b)| a == b || (a.is_nan() && b.is_nan())),
                "torch case {k}: {ours:?} vs {theirs:?}"
            );
        }
    }
}

#[test]
fn sort_and_topk_refusals() {
    let mut dev = Dev::new();
    let a = dev.zeros(F32, &[2, 3]);
    let v = dev.zeros(F32, &[2, 3]);
    let i = dev.zeros(S64, &[2, 3]);
    let v2 = dev.zeros(F32, &[2, 2]);
    let i2 = dev.zeros(S64, &[2, 2]);
    let h = dev.zeros(F16, &[2, 3]);
    let sort = |s, vo, io| {
        call(
            |w, e| unsafe {
                ops::sort::aclnnSortGetWorkspaceSize(s, false, -1, false, vo, io, w, e)
            },
            ops::sort::aclnnSort,
        )
    };
    let topk = |k, vo, io| {
        call(
            |w, e| unsafe {
                ops::topk::aclnnTopkGetWorkspaceSize(a, k, 1, true, true, vo, io, w, e)
            },
            ops::topk::aclnnTopk,
        )
    };
    assert!(sort(a, v, i).is_ok());
    assert!(topk(2, v2, i2).is_ok());
    assert_eq!(sort(a, null_mut(), i).unwrap_err().0, NULLPTR);
    for (r, what) in [
        (sort(a, h, i), "dtype"),
        (sort(a, v, v), "dtype"),
        (topk(4, v2, i2), "k 4"),
        (topk(-1, v2, i2), "k -1"),
        (topk(2, v, i), "shape"),
    ] {
        let (c, m) = r.unwrap_err();
        assert!(c == INVALID && m.contains(what), "{what}: {m}");
    }
}

// ---------------------------------------------------------------------------------------
// Cumprod, Cummax, Cummin
// ---------------------------------------------------------------------------------------

const CUMPROD: &[DType] = &[F32, F16, BF16, F64, S8, S16, S32, S64, U8];
const CUMEXT: &[DType] = &[F16, F32, F64, U8, S8, S16, S32, S64, Bool, BF16];

/// The lines of `v` along `axis` (rank 0: the one element), each as its logical indices.
fn lines(v: &View, axis: usize) -> Vec<Vec<Vec<usize>>> {
    let rank = v.shape.len();
    let n = if rank == 0 { 1 } else { v.shape[axis] };
    v.indices()
        .into_iter()
        .filter(|idx| rank == 0 || idx[axis] == 0)
        .map(|idx| {
            (0..n)
                .map(|k| {
                    let mut i = idx.clone();
                    if rank > 0 {
                        i[axis] = k;
                    }
                    i
                })
                .collect()
        })
        .collect()
}

#[test]
fn cumprod_is_the_sequential_product_in_the_accumulator() {
    let mut rng = Rng::new(59);
    for case in 0..300 {
        let inplace = rng.pct(25);
        let sd = pick(&mut rng, CUMPROD);
        let undefined = inplace || rng.pct(50);
        let od = if undefined {
            sd
        } else {
            pick(&mut rng, CUMPROD)
        };
        let (rank, shape) = scan_shape(&mut rng, case, 6);
        let dim = if rank == 0 {
            rng.below(2) as i64 - 1
        } else {
            rng.below(2 * rank as u64) as i64 - rank as i64
        };
        let axis = if rank == 0 {
            0
        } else {
            dim.rem_euclid(rank as i64) as usize
        };
        let sv = View::random(&mut rng, sd, &shape);
        let ov = if inplace {
            sv.clone()
        } else {
            View::random(&mut rng, od, &shape)
        };
        let mut sm = fill(&mut rng, &sv);
        if sd.is_float() || sd != od {
            for i in 0..sv.storage {
                let b = enc(
                    sd,
                    [-2.0, -1.5, -1.0, -0.5, 0.0, 0.5, 1.0, 1.25, 2.0, 3.0][rng.below(10) as usize],
                );
                sm[i * sd.size()..(i + 1) * sd.size()].copy_from_slice(&b);
            }
        }
        let om = fill(&mut rng, &ov);
        let mut dev = Dev::new();
        let s = dev.upload(&sm);
        let st = dev.tensor(&sv, s, ND);
        let dd = pick(&mut rng, &[S32, S64]);
        let dsc = dev.scalar(dd, &(dim.to_le_bytes()[..dd.size()]));
        let o = if inplace {
            call(
                |w, e| unsafe { ops::cumprod::aclnnInplaceCumprodGetWorkspaceSize(st, dsc, w, e) },
                ops::cumprod::aclnnInplaceCumprod,
            )
            .unwrap_or_else(|e| panic!("case {case}: {e:?}"));
            s
        } else {
            let o = dev.upload(&om);
            let ot = dev.tensor(&ov, o, ND);
            let dt = if undefined { -1 } else { od as i32 };
            call(
                |w, e| unsafe { ops::cumprod::aclnnCumprodGetWorkspaceSize(st, dsc, dt, ot, w, e) },
                ops::cumprod::aclnnCumprod,
            )
            .unwrap_or_else(|e| panic!("case {case}: {e:?}"));
            o
        };
        let got = dev.download(o);
        let mut want = std::collections::HashMap::new();
        for line in lines(&sv, axis) {
            let raw: Vec<Vec<u8>> = line
                .iter()
                .map(|i| convert_elem(sd, od, sv.elem(&sm, sv.at(i))))
                .collect();
            match od {
                F16 | BF16 | F32 => {
                    let mut acc = 1f32;
                    for (i, b) in line.iter().zip(&raw) {
                        acc *= dec(od, b) as f32;
                        want.insert(i.clone(), enc(od, acc as f64));
                    }
                }
                F64 => {
                    let mut acc = 1f64;
                    for (i, b) in line.iter().zip(&raw) {
                        acc *= dec(od, b);
                        want.insert(i.clone(), enc(od, acc));
                    }
                }
                _ => {
                    let mut acc = 1i64;
                    for (i, b) in line.iter().zip(&raw) {
                        acc = acc.wrapping_mul(int_value(od, b) as i64);
                        want.insert(i.clone(), acc.to_le_bytes()[..od.size()].to_vec());
                    }
                }
            }
        }
        check_out("cumprod", &ov, &got, |idx| want[idx].clone())
            .and_then(|_| untouched(&ov, if inplace { &sm } else { &om }, &got))
            .unwrap_or_else(|e| {
                panic!("case {case} {sd}->{od} {shape:?} dim {dim} inplace {inplace}: {e}")
            });
    }
}

#[test]
fn cummax_cummin_follow_torch() {
    let mut rng = Rng::new(61);
    let mut torch = Batch::new();
    let mut torch_cases = vec![];
    for case in 0..300 {
        let max = case % 2 == 0;
        let dtype = pick(&mut rng, CUMEXT);
        let idt = pick(&mut rng, &[S32, S64]);
        let (rank, shape) = scan_shape(&mut rng, case, 6);
        let dim = if rank == 0 {
            rng.below(2) as i64 - 1
        } else {
            rng.below(2 * rank as u64) as i64 - rank as i64
        };
        let axis = if rank == 0 {
            0
        } else {
            dim.rem_euclid(rank as i64) as usize
        };
        let sv = View::random(&mut rng, dtype, &shape);
        let vv = View::random(&mut rng, dtype, &shape);
        let iv = View::random(&mut rng, idt, &shape);
        let mut sm = fill(&mut rng, &sv);
        if rng.pct(50) {
            for i in 0..sv.storage {
                let b = enc(dtype, rng.below(3) as f64);
                sm[i * dtype.size()..(i + 1) * dtype.size()].copy_from_slice(&b);
            }
        }
        let (vm, im) = (fill(&mut rng, &vv), fill(&mut rng, &iv));
        let mut dev = Dev::new();
        let (s, v, i) = (dev.upload(&sm), dev.upload(&vm), dev.upload(&im));
        let (st, vt, it) = (
            dev.tensor(&sv, s, ND),
            dev.tensor(&vv, v, ND),
            dev.tensor(&iv, i, ND),
        );
        if max {
            call(
                |w, e| unsafe { ops::cummax::aclnnCummaxGetWorkspaceSize(st, dim, vt, it, w, e) },
                ops::cummax::aclnnCummax,
            )
        } else {
            call(
                |w, e| unsafe { ops::cummin::aclnnCumminGetWorkspaceSize(st, dim, vt, it, w, e) },
                ops::cummin::aclnnCummin,
            )
        }
        .unwrap_or_else(|e| panic!("case {case}: {e:?}"));
        let (gv, gi) = (dev.download(v), dev.download(i));
        let mut want = std::collections::HashMap::new();
        for line in lines(&sv, axis) {
            // torch: x replaces the running value when x is NaN, or the value is no NaN and
            // x >= it (max) / x <= it (min).
            let mut best: Option<(usize, Vec<u8>)> = None;
            for (k, i) in line.iter().enumerate() {
                let b = sv.elem(&sm, sv.at(i)).to_vec();
                let take = match &best {
                    None => true,
                    Some((_, cur)) => {
                        if dtype.is_float() {
                            let (x, c) = (dec(dtype, &b), dec(dtype, cur));
                            x.is_nan() || (!c.is_nan() && if max { x >= c } else { x <= c })
                        } else {
                            let (x, c) = if dtype == Bool {
                                (b[0] as i128, cur[0] as i128)
                            } else {
                                (int_value(dtype, &b), int_value(dtype, cur))
                            };
                            if max {
                                x >= c
                            } else {
                                x <= c
                            }
                        }
                    }
                };
                if take {
                    best = Some((k, b));
                }
                let (bk, bv) = best.clone().unwrap();
                let bv = if dtype == Bool {
                    vec![(bv[0] != 0) as u8]
                } else {
                    bv
                };
                want.insert(
                    i.clone(),
                    (bv, (bk as i64).to_le_bytes()[..idt.size()].to_vec()),
                );
            }
        }
        check_out("values", &vv, &gv, |idx| {
            let w = want[idx].0.clone();
            // a NaN's payload may change on the way through f64
            if dtype.is_float()
                && dec(dtype, &w).is_nan()
                && dec(dtype, vv.elem(&gv, vv.at(idx))).is_nan()
            {
                return vv.elem(&gv, vv.at(idx)).to_vec();
            }
            w
        })
        .and_then(|_| check_out("indices", &iv, &gi, |idx| want[idx].1.clone()))
        .and_then(|_| untouched(&vv, &vm, &gv))
        .and_then(|_| untouched(&iv, &im, &gi))
        .unwrap_or_else(|e| panic!("case {case} max {max} {dtype} {shape:?} dim {dim}: {e}"));
        if dtype == F32 && torch_cases.len() < 60 {
            let p = torch.program(if max {
                "r = torch.cummax(a[0], a[1].item()); out = (r[0], r[1])"
            } else {
                "r = torch.cummin(a[0], a[1].item()); out = (r[0], r[1])"
            });
            torch.case(p, vec![Some(sv.array(&sm)), Some(Array::int(dim))]);
            torch_cases.push((vv.clone(), gv, iv.clone(), gi));
        }
    }
    if let Some(res) = torch.run("cummax/cummin") {
        for (k, (vv, gv, iv, gi)) in torch_cases.iter().enumerate() {
            let t = res[k].as_ref().expect("torch raised");
            let ours: Vec<f64> = vv.array(gv).to_f64s();
            let theirs = t[0].to_f64s();
            assert!(
                ours.iter()
                    .zip(&theirs)
                    .all(|(a, b)| a == b || (a.is_nan() && b.is_nan())),
                "torch case {k} values"
            );
            let idx: Vec<i64> = iv
                .array(gi)
                .bytes
                .chunks(iv.dtype.size())
                .map(|c| int_value(iv.dtype, c) as i64)
                .collect();
            let tidx: Vec<i64> = t[1]
                .bytes
                .chunks(8)
                .map(|c| i64::from_le_bytes(c.try_into().unwrap()))
                .collect();
            assert_eq!(idx, tidx, "torch case {k} indices");
        }
    }
}

// ---------------------------------------------------------------------------------------
// UpsampleNearest1d/3d, UpsampleNearestExact1d/2d/3d
// ---------------------------------------------------------------------------------------

#[test]
fn nearest_variants_match_torch() {
    let mut rng = Rng::new(67);
    let mut torch = Batch::new();
    let mut torch_cases = vec![];
    for case in 0..240 {
        let (s, exact) = [(1, false), (3, false), (1, true), (2, true), (3, true)][case % 5];
        let list: &[DType] = match (s, exact) {
            (3, false) => &[F16, F32, F64, BF16],
            (3, true) => &[F32, F16, BF16],
            (_, false) => &[F16, F32, F64, U8, BF16],
            _ => &[F32, F16, BF16, U8],
        };
        let dtype = pick(&mut rng, list);
        let ins: Vec<usize> = (0..s).map(|_| 1 + rng.below(6) as usize).collect();
        // A scale now and then (the output size is then floor(in · scale), as torch makes it).
        let use_scales = s != 1 || exact;
        let scales: Vec<f64> = (0..s)
            .map(|_| {
                if use_scales && rng.pct(30) {
                    [0.5, 1.5, 2.0, 2.5, 3.0][rng.below(5) as usize]
                } else {
                    0.0
                }
            })
            .collect();
        let outs: Vec<usize> = (0..s)
            .map(|k| {
                if scales[k] > 0.0 {
                    ((ins[k] as f64 * scales[k]).floor() as usize).max(1)
                } else {
                    1 + rng.below(13) as usize
                }
            })
            .collect();
        let scales: Vec<f64> = (0..s)
            .map(|k| {
                if scales[k] > 0.0 && (ins[k] as f64 * scales[k]).floor() >= 1.0 {
                    scales[k]
                } else {
                    0.0
                }
            })
            .collect();
        let (n, c) = (1 + rng.below(2) as usize, 1 + rng.below(3) as usize);
        let mut ss = vec![n, c];
        ss.extend(&ins);
        let mut os = vec![n, c];
        os.extend(&outs);
        let sv = View::random(&mut rng, dtype, &ss);
        let ov = View::random(&mut rng, dtype, &os);
        let (sm, om) = (fill(&mut rng, &sv), fill(&mut rng, &ov));
        let mut dev = Dev::new();
        let (sb, ob) = (dev.upload(&sm), dev.upload(&om));
        let fmt = match s {
            1 => 47, // NCL
            2 => NCHW,
            _ => 30, // NCDHW
        };
        let st = dev.tensor(&sv, sb, fmt);
        let ot = dev.tensor(&ov, ob, fmt);
        let size: Vec<i64> = outs.iter().map(|&x| x as i64).collect();
        let sz = dev.ints(&size);
        use ops::{
            upsample_nearest_1d as u1, upsample_nearest_3d as u3, upsample_nearest_exact1d as e1,
            upsample_nearest_exact2d as e2, upsample_nearest_exact3d as e3,
        };
        let r = match (s, exact) {
            (1, false) => call(
                |w, e| unsafe { u1::aclnnUpsampleNearest1dGetWorkspaceSize(st, sz, ot, w, e) },
                u1::aclnnUpsampleNearest1d,
            ),
            (3, false) => call(
                |w, e| unsafe {
                    u3::aclnnUpsampleNearest3dGetWorkspaceSize(
                        st, sz, scales[0], scales[1], scales[2], ot, w, e,
                    )
                },
                u3::aclnnUpsampleNearest3d,
            ),
            (1, true) => call(
                |w, e| unsafe {
                    e1::aclnnUpsampleNearestExact1dGetWorkspaceSize(st, sz, scales[0], ot, w, e)
                },
                e1::aclnnUpsampleNearestExact1d,
            ),
            (2, true) => call(
                |w, e| unsafe {
                    e2::aclnnUpsampleNearestExact2dGetWorkspaceSize(
                        st, sz, scales[0], scales[1], ot, w, e,
                    )
                },
                e2::aclnnUpsampleNearestExact2d,
            ),
            _ => call(
                |w, e| unsafe {
                    e3::aclnnUpsampleNearestExact3dGetWorkspaceSize(
                        st, sz, scales[0], scales[1], scales[2], ot, w, e,
                    )
                },
                e3::aclnnUpsampleNearestExact3d,
            ),
        };
        r.unwrap_or_else(|e| panic!("case {case}: {e:?}"));
        let got = dev.download(ob);
        // torch's index arithmetic (float scale; the exact variant's (d + 0.5) · scale in
        // double, rounded to float before the floor).
        let src = |d: usize, k: usize| -> usize {
            let (i, o) = (ins[k], outs[k]);
            if !exact && o == i {
                return d;
            }
            if !exact && o == 2 * i {
                return d / 2;
            }
            let scale = if scales[k] > 0.0 {
                (1.0 / scales[k]) as f32
            } else {
                i as f32 / o as f32
            };
            let x = if exact {
                ((d as f64 + 0.5) * scale as f64) as f32
            } else {
                d as f32 * scale
            };
            (x.floor() as usize).min(i - 1)
        };
        check_out("nearest", &ov, &got, |idx| {
            let mut si = idx.to_vec();
            for k in 0..s {
                si[2 + k] = src(idx[2 + k], k);
            }
            sv.elem(&sm, sv.at(&si)).to_vec()
        })
        .and_then(|_| untouched(&ov, &om, &got))
        .unwrap_or_else(|e| {
            panic!("case {case} s {s} exact {exact} {ss:?} -> {outs:?} scales {scales:?}: {e}")
        });
        if dtype == F32 && torch_cases.len() < 80 {
            let mode = if exact { "nearest-exact" } else { "nearest" };
            let prog = if scales.iter().all(|&x| x > 0.0) {
                format!("out = F.interpolate(a[0], scale_factor=a[1].tolist(), mode='{mode}', recompute_scale_factor=False)")
            } else if scales.iter().all(|&x| x == 0.0) {
                format!("out = F.interpolate(a[0], size=a[2].tolist(), mode='{mode}')")
            } else {
                continue;
            };
            let p = torch.program(&prog);
            torch.case(
                p,
                vec![
                    Some(sv.array(&sm)),
                    Some(Array::f64s(&[s], &scales)),
                    Some(Array::i64s(&[s], &size)),
                ],
            );
            torch_cases.push((ov.clone(), got));
        }
    }
    if let Some(res) = torch.run("nearest variants") {
        for (k, (ov, got)) in torch_cases.iter().enumerate() {
            let t = res[k].as_ref().expect("torch raised");
            assert_eq!(t[0].bytes, ov.array(got).bytes, "torch case {k}");
        }
    }
}

// ---------------------------------------------------------------------------------------
// Eye, Linspace
// ---------------------------------------------------------------------------------------

#[test]
fn eye_is_the_identity_on_any_view() {
    let mut rng = Rng::new(71);
    for case in 0..100 {
        let dtype = pick(&mut rng, &[F16, F32, S32, S16, S8, U8, S64, Bool, BF16]);
        let (n, m) = (rng.below(6) as usize, rng.below(6) as usize);
        let ov = View::random(&mut rng, dtype, &[n, m]);
        let om = fill(&mut rng, &ov);
        let mut dev = Dev::new();
        let o = dev.upload(&om);
        let ot = dev.tensor(&ov, o, ND);
        call(
            |w, e| unsafe { ops::eye::aclnnEyeGetWorkspaceSize(n as i64, m as i64, ot, w, e) },
            ops::eye::aclnnEye,
        )
        .unwrap_or_else(|e| panic!("case {case}: {e:?}"));
        let got = dev.download(o);
        check_out("eye", &ov, &got, |idx| {
            enc(dtype, (idx[0] == idx[1]) as u8 as f64)
        })
        .and_then(|_| untouched(&ov, &om, &got))
        .unwrap_or_else(|e| panic!("case {case} {dtype} ({n}, {m}): {e}"));
    }
    let mut dev = Dev::new();
    let v = View::contiguous(F32, &[2, 3]);
    let o = dev.upload(&vec![0u8; v.bytes()]);
    let t = dev.tensor(&v, o, ND);
    for (n, m, what) in [(3, 3, "shape"), (-1, 3, "non-negative")] {
        let (c, msg) = call(
            |w, e| unsafe { ops::eye::aclnnEyeGetWorkspaceSize(n, m, t, w, e) },
            ops::eye::aclnnEye,
        )
        .unwrap_err();
        assert!(c == INVALID && msg.contains(what), "{what}: {msg}");
    }
}

#[test]
fn linspace_is_torchs_two_sided_formula() {
    let mut rng = Rng::new(73);
    let mut torch = Batch::new();
    let mut torch_cases = vec![];
    let mut torch_cases_bounds = vec![];
    for case in 0..200 {
        let od = pick(&mut rng, &[S8, S16, S32, U8, F32, F16, F64, BF16]);
        let (sd, ed) = (
            pick(&mut rng, &[S32, S64, F32, F64, F16]),
            pick(&mut rng, &[S32, F32, F64]),
        );
        let steps = rng.below(40) as usize;
        let (start, end) = (
            (rng.below(41) as f64 - 20.0) * 0.75,
            (rng.below(41) as f64 - 20.0) * 1.25,
        );
        let (start, end) = if sd.is_int() {
            (start.trunc(), end)
        } else {
            (start, end)
        };
        let end = if ed.is_int() { end.trunc() } else { end };
        let shape = if rng.pct(30) && steps % 2 == 0 && steps > 0 {
            vec![2, steps / 2]
        } else {
            vec![steps]
        };
        let ov = View::random(&mut rng, od, &shape);
        let om = fill(&mut rng, &ov);
        let mut dev = Dev::new();
        let o = dev.upload(&om);
        let ot = dev.tensor(&ov, o, ND);
        let (s, e) = (
            dev.scalar(sd, &enc(sd, start)),
            dev.scalar(ed, &enc(ed, end)),
        );
        call(
            |w, x| unsafe {
                ops::linspace::aclnnLinspaceGetWorkspaceSize(s, e, steps as i64, ot, w, x)
            },
            ops::linspace::aclnnLinspace,
        )
        .unwrap_or_else(|e| panic!("case {case}: {e:?}"));
        let got = dev.download(o);
        let (st, en) = (dec(sd, &enc(sd, start)), dec(ed, &enc(ed, end)));
        let want = |i: usize| -> f64 {
            if steps == 1 {
                return st;
            }
            let step = (en - st) / (steps - 1) as f64;
            if i < steps / 2 {
                st + step * i as f64
            } else {
                en - step * (steps - 1 - i) as f64
            }
        };
        let cols = *shape.last().unwrap();
        check_out("linspace", &ov, &got, |idx| {
            let i = if idx.len() == 2 {
                idx[0] * cols + idx[1]
            } else {
                idx[0]
            };
            let v = want(i);
            enc(od, if od.is_int() { v.trunc() } else { v })
        })
        .and_then(|_| untouched(&ov, &om, &got))
        .unwrap_or_else(|e| panic!("case {case} {sd}/{ed} -> {od} {start}..{end} x{steps}: {e}"));
        if od == F32 && steps > 0 && torch_cases.len() < 50 {
            let p = torch.program(
                "out = torch.linspace(a[0].item(), a[1].item(), a[2].item(), dtype=torch.float32)",
            );
            torch.case(
                p,
                vec![
                    Some(Array::f64s(&[1], &[st])),
                    Some(Array::f64s(&[1], &[en])),
                    Some(Array::int(steps as i64)),
                ],
            );
            torch_cases.push((ov.clone(), got));
            torch_cases_bounds.push((st, en));
        }
    }
    if let Some(res) = torch.run("linspace") {
        // torch computes in f32 (start + step·i, vectorised as base + lane·step): within
        // 2 f32 ulps of max(|start|, |end|) of it, plus our own rounding.
        for (k, (ov, got)) in torch_cases.iter().enumerate() {
            let t = &res[k].as_ref().expect("torch raised")[0];
            let ours = ov.array(got).to_f64s();
            let (st, en) = (torch_cases_bounds[k].0, torch_cases_bounds[k].1);
            let big = st.abs().max(en.abs()).max(f32::MIN_POSITIVE as f64);
            for (a, b) in ours.iter().zip(t.to_f64s()) {
                let tol = 2.0 * big * f32::EPSILON as f64 + a.abs() * f32::EPSILON as f64;
                assert!((a - b).abs() <= tol, "torch case {k}: {a} vs {b}");
            }
        }
    }
    let mut dev = Dev::new();
    let v = View::contiguous(F32, &[3]);
    let o = dev.upload(&vec![0u8; v.bytes()]);
    let t = dev.tensor(&v, o, ND);
    let s = dev.scalar(F32, &enc(F32, 0.0));
    for (steps, what) in [(4, "steps is 4"), (-1, "non-negative")] {
        let (c, m) = call(
            |w, x| unsafe { ops::linspace::aclnnLinspaceGetWorkspaceSize(s, s, steps, t, w, x) },
            ops::linspace::aclnnLinspace,
        )
        .unwrap_err();
        assert!(c == INVALID && m.contains(what), "{what}: {m}");
    }
}
