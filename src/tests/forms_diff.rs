//! Differential tests of the entry points of the "whole headers" commit, driven through the
//! C ABI as a CANN program drives them (aclCreateTensor over aclrtMalloc'd storage, phase 1,
//! aclrtMalloc'd workspace, phase 2 on a stream, aclrtSynchronizeStream, aclrtMemcpy back):
//!
//! - aclnn_clamp.h, tensor bounds: ClampTensor (min and max, min only, max only),
//!   ClampMinTensor, InplaceClampMinTensor, ClampMaxTensor, InplaceClampMaxTensor;
//! - aclnn_clamp.h, scalar bounds: ClampMin, ClampMax, InplaceClampMax (and Clamp, which
//!   shares their rule);
//! - aclnn_round.h: RoundDecimals, InplaceRoundDecimals;
//! - aclnn_convolution.h: ConvTbc, ConvDepthwise2d;
//!
//! Every random case has random shapes (0-d, empty, broadcasting), random strided views
//! (permuted, padded, offset, stride-0 inputs), random dtypes (mostly from the operator's
//! lists, sometimes not: those must be refused with 161002, writing nothing) and "nice"
//! values (NaN, ±inf, ±0, subnormals, integer extremes, halves). Two references:
//!
//! 1. a plain f64 model written here from the rules (promotion by add_diff's transcribed
//!    table; conversions exact, by integer arithmetic), checked against the library
//!    element by element, bit for bit where the operator is exact;
//! 2. PyTorch (`torch_ref`, one python process per test): torch.clamp with tensor / scalar
//!    bounds, torch.round(x, decimals=d), torch.conv_tbc, torch.nn.functional.conv2d with
//!    groups. Where torch 1.13 lacks a dtype (f16 clamp/round on the CPU) or rounds
//!    intermediates (bf16 round), the torch program computes in f32 and rounds once into
//!    the dtype, which is the rule. Without torch this part is skipped (torch_ref).
//!
//! Bounds:
//! - Clamp (every form, every dtype): exact. The result is one of the operands converted to
//!   the promoted dtype P, then converted to out; the model must match bit for bit (NaN any
//!   NaN). Against torch the sign of a zero result may differ where self and a bound are
//!   zeros of opposite signs (torch's vectorised and scalar loops disagree there) and where
//!   torch refuses an integer scalar bound outside the dtype's range (the library
//!   saturates it): such elements/cases are checked against the model only.
//! - RoundDecimals: exact for f32/f64 (`nearbyint(x·10^d)/10^d`, or `nearbyint(x/10^-d)·10^-d`
//!   for d < 0, in the dtype's arithmetic with 10^|d| correctly rounded into it) and for
//!   f16/bf16 (the same in f32, rounded once); integers exact (unchanged for d >= 0, the
//!   nearest multiple of 10^-d, halves to even, for d < 0, wrapping).
//! - ConvTbc / ConvDepthwise2d (computed in f32): with S the sum of |terms| of an output
//!   element (bias included), K their number and p out's precision,
//!   |got − want| <= (K + 2)·2^-23·S + 2^-p·(|want| + E) + tiny (conv_diff.rs's bound);
//!   the f64 model agrees with torch's f64 result within 2^-40·S.

use super::add_diff::{
    conv as cvt, decode, nice_bytes, pow2, ref_broadcast, ref_can_cast, ref_promote, round_float,
    same, size, wrap, Rng, Sc, View, V,
};
use super::matmul_diff::{at, bytes_for, gen_view};
use super::torch_ref::{Array, Batch, Outcome as TorchOutcome};
use crate::capi::base::aclrtStream;
use crate::capi::meta::{
    aclCreateIntArray, aclCreateScalar, aclCreateTensor, aclDestroyIntArray, aclDestroyScalar,
    aclDestroyTensor, aclIntArray, aclOpExecutor, aclScalar, aclTensor,
};
use crate::capi::ops::{clamp, convolution, round};
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
const H2D: i32 = 1;
const D2H: i32 = 2;
const ND: i32 = 2;
const NCL: i32 = 47;
const NCHW: i32 = 0;

// ---------------------------------------------------------------------------------------
// The C ABI driver
// ---------------------------------------------------------------------------------------

fn init_runtime() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let r = aclInit(std::ptr::null());
        assert!(r == 0 || r == 100002, "aclInit returned {r}");
        assert_eq!(aclrtSetDevice(0), 0, "aclrtSetDevice(0)");
    });
}

fn recent_error() -> String {
    let p = aclGetRecentErrMsg();
    if p.is_null() {
        return String::new();
    }
    // SAFETY: a NUL-terminated string owned by the library.
    unsafe { std::ffi::CStr::from_ptr(p) }
        .to_string_lossy()
        .into_owned()
}

type Phase2 = extern "C" fn(*mut c_void, u64, *mut aclOpExecutor, aclrtStream) -> i32;
type Ws = *mut u64;
type Ex = *mut *mut aclOpExecutor;

/// Device storages (uploaded from host bytes) and the handles created over them, released
/// on drop.
struct Dev {
    mem: Vec<*mut c_void>,
    sizes: Vec<usize>,
    tensors: Vec<*mut aclTensor>,
    scalars: Vec<*mut aclScalar>,
    arrays: Vec<*mut aclIntArray>,
}

impl Dev {
    fn new(host: &[Vec<u8>]) -> Dev {
        init_runtime();
        let mut d = Dev {
            mem: vec![],
            sizes: vec![],
            tensors: vec![],
            scalars: vec![],
            arrays: vec![],
        };
        for h in host {
            let p = d.malloc(h.len());
            // SAFETY: both ranges hold h.len() bytes.
            let r = unsafe { aclrtMemcpy(p, h.len(), h.as_ptr() as *const c_void, h.len(), H2D) };
            assert_eq!(r, 0, "aclrtMemcpy H2D");
            d.sizes.push(h.len());
        }
        d
    }
    fn malloc(&mut self, bytes: usize) -> *mut c_void {
        let mut p: *mut c_void = null_mut();
        // SAFETY: &mut p is a valid out-parameter.
        let r = unsafe { aclrtMalloc(&mut p, bytes.max(1), 0) };
        assert!(r == 0 && !p.is_null(), "aclrtMalloc({bytes}): {r}");
        self.mem.push(p);
        p
    }
    /// A tensor for `v` over its storage, in aclFormat `format`.
    fn tensor(&mut self, v: &View, format: i32) -> *mut aclTensor {
        let dims: Vec<i64> = v.shape.iter().map(|&d| d as i64).collect();
        let strides: Vec<i64> = v.strides.iter().map(|&d| d as i64).collect();
        let storage = [(self.sizes[v.storage] / size(v.dtype)) as i64];
        // SAFETY: the arrays hold the stated number of elements; the storage is device memory.
        let t = unsafe {
            aclCreateTensor(
                dims.as_ptr(),
                dims.len() as u64,
                v.dtype as i32,
                strides.as_ptr(),
                v.offset as i64,
                format,
                storage.as_ptr(),
                1,
                self.mem[v.storage],
            )
        };
        assert!(!t.is_null(), "aclCreateTensor({v:?}): {}", recent_error());
        self.tensors.push(t);
        t
    }
    fn opt_tensor(&mut self, v: Option<&View>, format: i32) -> *mut aclTensor {
        v.map_or(null_mut(), |v| self.tensor(v, format))
    }
    fn scalar(&mut self, s: &Sc) -> *mut aclScalar {
        let mut bytes = s.bytes;
        // SAFETY: bytes hold one element of the dtype.
        let p = unsafe { aclCreateScalar(bytes.as_mut_ptr() as *mut c_void, s.dtype as i32) };
        assert!(!p.is_null(), "aclCreateScalar({s:?}): {}", recent_error());
        self.scalars.push(p);
        p
    }
    fn opt_scalar(&mut self, s: Option<&Sc>) -> *mut aclScalar {
        s.map_or(null_mut(), |s| self.scalar(s))
    }
    fn ints(&mut self, v: &[i64]) -> *mut aclIntArray {
        // SAFETY: v holds v.len() values.
        let p = unsafe { aclCreateIntArray(v.as_ptr(), v.len() as u64) };
        assert!(!p.is_null());
        self.arrays.push(p);
        p
    }
    fn read(&self) -> Vec<Vec<u8>> {
        (0..self.sizes.len())
            .map(|k| {
                let mut h = vec![0u8; self.sizes[k]];
                // SAFETY: both ranges hold sizes[k] bytes.
                let r = unsafe {
                    aclrtMemcpy(
                        h.as_mut_ptr() as *mut c_void,
                        h.len(),
                        self.mem[k],
                        h.len(),
                        D2H,
                    )
                };
                assert_eq!(r, 0, "aclrtMemcpy D2H");
                h
            })
            .collect()
    }
    /// Phase 1 (`p1` gets the workspaceSize and executor out-parameters), then on success
    /// phase 2 on the default stream and a synchronisation. Ok(workspace size) or the
    /// phase-1 refusal (status, message); a refusal must write neither out-parameter and
    /// leave every storage as it was.
    fn call(&mut self, p1: impl FnOnce(Ws, Ex) -> i32, p2: Phase2) -> Result<u64, (i32, String)> {
        const WS0: u64 = 0xDEAD_BEEF;
        let ex0 = 0x5A5A_5A50usize as *mut aclOpExecutor;
        let (mut ws, mut ex) = (WS0, ex0);
        let before = self.read();
        let st = p1(&mut ws, &mut ex);
        if st != OK {
            let msg = recent_error();
            assert!(
                ws == WS0 && ex == ex0,
                "refused ({st}: {msg}) but wrote the out-parameters"
            );
            assert!(!msg.is_empty(), "refused ({st}) without a message");
            assert!(
                self.read() == before,
                "refused ({st}: {msg}) but device memory changed"
            );
            return Err((st, msg));
        }
        assert!(!ex.is_null() && ex != ex0);
        let wsp = if ws > 0 {
            self.malloc(ws as usize)
        } else {
            null_mut()
        };
        let r = p2(wsp, ws, ex, null_mut());
        assert_eq!(r, 0, "phase 2 returned {r}: {}", recent_error());
        let r = aclrtSynchronizeStream(null_mut());
        assert_eq!(r, 0, "aclrtSynchronizeStream: {}", recent_error());
        Ok(ws)
    }
}

impl Drop for Dev {
    fn drop(&mut self) {
        for &t in &self.tensors {
            aclDestroyTensor(t);
        }
        for &s in &self.scalars {
            aclDestroyScalar(s);
        }
        for &a in &self.arrays {
            aclDestroyIntArray(a);
        }
        for &m in &self.mem {
            aclrtFree(m);
        }
    }
}

// ---------------------------------------------------------------------------------------
// Views, values, arrays
// ---------------------------------------------------------------------------------------

/// Row-major successor of `idx` in `shape`; false after the last.
fn next(idx: &mut [usize], shape: &[usize]) -> bool {
    for j in (0..idx.len()).rev() {
        idx[j] += 1;
        if idx[j] < shape[j] {
            return true;
        }
        idx[j] = 0;
    }
    false
}

/// Every multi-index of `shape`, row-major.
fn indices(shape: &[usize]) -> Vec<Vec<usize>> {
    let n: usize = shape.iter().product();
    let mut v = Vec::with_capacity(n);
    let mut idx = vec![0usize; shape.len()];
    for _ in 0..n {
        v.push(idx.clone());
        next(&mut idx, shape);
    }
    v
}

/// Storage element of `v` read at out multi-index `idx` (v broadcast from the right).
fn at_bcast(v: &View, idx: &[usize]) -> usize {
    let lead = idx.len() - v.shape.len();
    let mut e = v.offset;
    for j in 0..v.shape.len() {
        if v.shape[j] != 1 {
            e += idx[lead + j] * v.strides[j];
        }
    }
    e
}

fn bytes_at<'a>(mem: &'a [Vec<u8>], v: &View, e: usize) -> &'a [u8] {
    let sz = size(v.dtype);
    &mem[v.storage][e * sz..(e + 1) * sz]
}

/// The value of `v` at out index `idx` (broadcast) in storages `mem`.
fn read_b(mem: &[Vec<u8>], v: &View, idx: &[usize]) -> V {
    decode(v.dtype, bytes_at(mem, v, at_bcast(v, idx)))
}

/// `v`'s elements as a contiguous array (for torch).
fn array_of(mem: &[Vec<u8>], v: &View) -> Array {
    let mut bytes = Vec::with_capacity(v.numel() * size(v.dtype));
    for idx in indices(&v.shape) {
        bytes.extend_from_slice(bytes_at(mem, v, at(v, &idx)));
    }
    Array {
        dtype: v.dtype,
        shape: v.shape.clone(),
        bytes,
    }
}

/// A 0-element array of dtype `d`: tells a torch program the out dtype.
fn dtype_tag(d: DType) -> Array {
    Array {
        dtype: d,
        shape: vec![0],
        bytes: vec![],
    }
}

/// Host storages for `views` (storage indices dense from 0), filled with random bytes.
fn storages(rng: &mut Rng, views: &[&View]) -> Vec<Vec<u8>> {
    let n = views.iter().map(|v| v.storage + 1).max().unwrap_or(0);
    (0..n)
        .map(|s| (0..bytes_for(views, s)).map(|_| rng.next() as u8).collect())
        .collect()
}

/// Writes `bytes` (one element) at element `e` of `v`'s storage.
fn put(mem: &mut [Vec<u8>], v: &View, e: usize, bytes: &[u8]) {
    let sz = size(v.dtype);
    mem[v.storage][e * sz..(e + 1) * sz].copy_from_slice(&bytes[..sz]);
}

/// Fills every element of view `v` with `gen`'s bytes.
fn fill(mem: &mut [Vec<u8>], v: &View, mut gen: impl FnMut() -> [u8; 16]) {
    for idx in indices(&v.shape) {
        let b = gen();
        put(mem, v, at(v, &idx), &b);
    }
}

/// The little-endian bytes of value `x` (exact in `d`) as an element of `d`.
fn enc(d: DType, x: V) -> [u8; 16] {
    let mut b = [0u8; 16];
    let n = size(d);
    match (d, x) {
        (Bool, V::B(v)) => b[0] = v as u8,
        (S8 | U8 | S16 | S32 | S64 | U16 | U32 | U64, V::I(i)) => {
            let u = wrap(i, d) as u128;
            for (k, byte) in b.iter_mut().enumerate().take(n) {
                *byte = (u >> (8 * k)) as u8;
            }
        }
        (F64, V::F(v)) => b[..8].copy_from_slice(&v.to_le_bytes()),
        (F32, V::F(v)) => b[..4].copy_from_slice(&(v as f32).to_le_bytes()),
        (F16, V::F(v)) => b[..2].copy_from_slice(&half::f16::from_f64(v).to_le_bytes()),
        (BF16, V::F(v)) => b[..2].copy_from_slice(&half::bf16::from_f64(v).to_le_bytes()),
        _ => panic!("enc({d:?}, {x:?})"),
    }
    b
}

fn is_float(d: DType) -> bool {
    matches!(d, F16 | BF16 | F32 | F64)
}
fn is_int(d: DType) -> bool {
    matches!(d, S8 | U8 | S16 | S32 | S64 | U16 | U32 | U64)
}

fn int_range(d: DType) -> (i128, i128) {
    match d {
        S8 => (i8::MIN as i128, i8::MAX as i128),
        U8 => (0, u8::MAX as i128),
        S16 => (i16::MIN as i128, i16::MAX as i128),
        S32 => (i32::MIN as i128, i32::MAX as i128),
        S64 => (i64::MIN as i128, i64::MAX as i128),
        _ => unreachable!("{d:?}"),
    }
}

/// A random output shape: rank 0..=5, dims 1..=4, now and then a 0.
fn gen_shape(rng: &mut Rng, max_rank: u64) -> Vec<usize> {
    let rank = rng.below(max_rank + 1) as usize;
    (0..rank)
        .map(|_| {
            if rng.pct(4) {
                0
            } else {
                1 + rng.below(4) as usize
            }
        })
        .collect()
}

/// `n` shapes broadcasting exactly to `out`; input `full` (if any) keeps out's shape.
fn gen_bcast_shapes(
    rng: &mut Rng,
    out: &[usize],
    n: usize,
    full: Option<usize>,
) -> Vec<Vec<usize>> {
    let mut shapes = vec![out.to_vec(); n];
    for j in 0..out.len() {
        if out[j] == 1 {
            continue;
        }
        let keeper = full.unwrap_or_else(|| rng.below(n as u64) as usize);
        for (i, s) in shapes.iter_mut().enumerate() {
            if i != keeper && Some(i) != full && rng.pct(40) {
                s[j] = 1;
            }
        }
    }
    for (i, s) in shapes.iter_mut().enumerate() {
        if Some(i) == full || rng.pct(50) {
            continue;
        }
        let ones = s.iter().take_while(|&&d| d == 1).count();
        let k = rng.below(ones as u64 + 1) as usize;
        *s = s[k..].to_vec();
    }
    shapes
}

/// Both zeros (of any signs), or the same value.
fn same_but_zero_sign(a: V, b: V) -> bool {
    match (a, b) {
        (V::F(x), V::F(y)) if x == 0.0 && y == 0.0 => true,
        _ => same(a, b),
    }
}

/// Decoded torch output element `i` of array `a`.
fn torch_elem(a: &Array, i: usize) -> V {
    decode(a.dtype, a.elem(i))
}

// ---------------------------------------------------------------------------------------
// Clamp with tensor bounds
// ---------------------------------------------------------------------------------------

/// self and out dtypes of every Clamp form (aclnnClampTensor.md), and the bounds'.
const CLAMP_LIST: [DType; 9] = [F32, F16, F64, BF16, S8, U8, S16, S32, S64];
const BOUND_LIST: [DType; 10] = [F32, F16, F64, BF16, S8, U8, S16, S32, S64, Bool];
/// Dtypes no Clamp form takes.
const OTHERS: [DType; 5] = [U16, U32, U64, C64, C128];

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum TForm {
    /// ClampTensor with both bounds.
    Both,
    /// ClampTensor, clipValueMax NULL.
    MinNull,
    /// ClampTensor, clipValueMin NULL.
    MaxNull,
    Min,
    InplaceMin,
    Max,
    InplaceMax,
}
const TFORMS: [TForm; 7] = [
    TForm::Both,
    TForm::MinNull,
    TForm::MaxNull,
    TForm::Min,
    TForm::InplaceMin,
    TForm::Max,
    TForm::InplaceMax,
];

impl TForm {
    fn has_min(self) -> bool {
        !matches!(self, TForm::MaxNull | TForm::Max | TForm::InplaceMax)
    }
    fn has_max(self) -> bool {
        !matches!(self, TForm::MinNull | TForm::Min | TForm::InplaceMin)
    }
    fn inplace(self) -> bool {
        matches!(self, TForm::InplaceMin | TForm::InplaceMax)
    }
}

#[derive(Clone, Debug)]
struct TCase {
    form: TForm,
    x: View,
    lo: Option<View>,
    hi: Option<View>,
    /// None: in place (x is the output).
    out: Option<View>,
}

impl TCase {
    fn views(&self) -> Vec<&View> {
        let mut v = vec![&self.x];
        v.extend(self.lo.as_ref());
        v.extend(self.hi.as_ref());
        v.extend(self.out.as_ref());
        v
    }
    fn out_view(&self) -> &View {
        self.out.as_ref().unwrap_or(&self.x)
    }
    fn inputs(&self) -> Vec<&View> {
        let mut v = vec![&self.x];
        v.extend(self.lo.as_ref());
        v.extend(self.hi.as_ref());
        v
    }
    /// The promoted dtype of self and the bounds (add_diff's table).
    fn promoted(&self) -> Option<DType> {
        let mut p = Some(self.x.dtype);
        for b in self.inputs().iter().skip(1) {
            p = p.and_then(|p| ref_promote(p, b.dtype));
        }
        p
    }
    /// Why the model refuses the case, if it does.
    fn refusal(&self) -> Option<String> {
        let o = self.out_view();
        if !CLAMP_LIST.contains(&self.x.dtype) {
            return Some(format!("self dtype {:?}", self.x.dtype));
        }
        for b in self.inputs().iter().skip(1) {
            if !BOUND_LIST.contains(&b.dtype) {
                return Some(format!("bound dtype {:?}", b.dtype));
            }
        }
        if !CLAMP_LIST.contains(&o.dtype) {
            return Some(format!("out dtype {:?}", o.dtype));
        }
        let p = match self.promoted() {
            Some(p) if CLAMP_LIST.contains(&p) => p,
            p => return Some(format!("promoted dtype {p:?}")),
        };
        if !ref_can_cast(p, o.dtype) {
            return Some(format!("{p:?} cannot be cast to {:?}", o.dtype));
        }
        let shapes: Vec<&[usize]> = self.inputs().iter().map(|v| &v.shape[..]).collect();
        match ref_broadcast(&shapes) {
            Some(s) if s == o.shape => None,
            Some(s) => Some(format!("broadcast {s:?} != out {:?}", o.shape)),
            None => Some("shapes do not broadcast".into()),
        }
    }
}

/// max (`upper` false) or min of two values of P with NaN propagating, max(-0, +0) = +0
/// and min(-0, +0) = -0 (the Maximum/Minimum rule).
fn extremum(a: V, b: V, upper: bool) -> V {
    match (a, b) {
        (V::I(x), V::I(y)) => V::I(if upper { x.min(y) } else { x.max(y) }),
        (V::F(x), V::F(y)) => V::F(if x.is_nan() || y.is_nan() {
            f64::NAN
        } else if x == y && x == 0.0 {
            let neg = if upper {
                x.is_sign_negative() || y.is_sign_negative()
            } else {
                x.is_sign_negative() && y.is_sign_negative()
            };
            if neg {
                -0.0
            } else {
                0.0
            }
        } else if (x < y) == upper {
            x
        } else {
            y
        }),
        _ => panic!("extremum of {a:?} and {b:?}"),
    }
}

/// The model's out element: min(max(x, lo), hi) in P, converted to out.
fn clamp_tensor_want(p: DType, out: DType, x: V, lo: Option<V>, hi: Option<V>) -> V {
    let mut y = cvt(x, p);
    if let Some(lo) = lo {
        y = extremum(y, cvt(lo, p), false);
    }
    if let Some(hi) = hi {
        y = extremum(y, cvt(hi, p), true);
    }
    cvt(y, out)
}

fn pick_dtype(rng: &mut Rng, list: &[DType], pct_valid: u64) -> DType {
    if rng.pct(pct_valid) {
        rng.pick(list)
    } else {
        rng.pick(&[&OTHERS[..], &[Bool]].concat())
    }
}

/// An out dtype for promoted `p`: p itself, a castable one, any of the list, or another.
fn pick_out(rng: &mut Rng, p: Option<DType>) -> DType {
    let castable: Vec<DType> = CLAMP_LIST
        .iter()
        .copied()
        .filter(|&d| p.is_some_and(|p| ref_can_cast(p, d)))
        .collect();
    match rng.below(100) {
        0..=39 if p.is_some_and(|p| CLAMP_LIST.contains(&p)) => p.unwrap(),
        0..=84 if !castable.is_empty() => rng.pick(&castable),
        0..=96 => rng.pick(&CLAMP_LIST),
        _ => rng.pick(&OTHERS),
    }
}

fn gen_tcase(rng: &mut Rng, form: TForm) -> TCase {
    let out_shape = gen_shape(rng, 5);
    let n = 1 + form.has_min() as usize + form.has_max() as usize;
    let full = form.inplace().then_some(0);
    let mut shapes = gen_bcast_shapes(rng, &out_shape, n, full);
    let mut out_shape = out_shape;
    if rng.pct(4) {
        // A bound that does not broadcast (or, rarely, still does).
        let i = 1 + rng.below(n as u64 - 1) as usize;
        if let Some(j) = (!shapes[i].is_empty()).then(|| rng.below(shapes[i].len() as u64)) {
            shapes[i][j as usize] += 2;
        } else {
            shapes[i] = vec![2; out_shape.len() + 1];
        }
    }
    if rng.pct(3) && !form.inplace() {
        out_shape.push(1 + rng.below(2) as usize);
    }
    let xd = pick_dtype(rng, &CLAMP_LIST, 93);
    let mut k = 1;
    let mut bound = |rng: &mut Rng, has: bool| {
        has.then(|| {
            let d = pick_dtype(rng, &BOUND_LIST, 95);
            let v = gen_view(rng, &shapes[k], d, k, true);
            k += 1;
            v
        })
    };
    let x = gen_view(rng, &shapes[0], xd, 0, !form.inplace());
    let lo = bound(rng, form.has_min());
    let hi = bound(rng, form.has_max());
    let mut case = TCase {
        form,
        x,
        lo,
        hi,
        out: None,
    };
    if !form.inplace() {
        let od = pick_out(rng, case.promoted());
        let mut o = gen_view(rng, &out_shape, od, n, false);
        // Sometimes out is self itself (the same view of the same storage).
        let expanded = case
            .x
            .strides
            .iter()
            .zip(&case.x.shape)
            .any(|(s, d)| *s == 0 && *d > 1);
        if case.x.shape == o.shape && !expanded && od == case.x.dtype && rng.pct(25) {
            o = View {
                storage: 0,
                ..case.x.clone()
            };
        }
        case.out = Some(o);
    } else if rng.pct(25) {
        // An in-place bound that is a view of selfRef's own storage.
        let b = if form.has_min() {
            &mut case.lo
        } else {
            &mut case.hi
        };
        if let Some(b) = b.as_mut() {
            b.storage = 0;
        }
    }
    // Dense storage numbers.
    let mut ids: Vec<usize> = case.views().iter().map(|v| v.storage).collect();
    ids.sort();
    ids.dedup();
    let remap = |v: &mut View| v.storage = ids.iter().position(|&s| s == v.storage).unwrap();
    remap(&mut case.x);
    case.lo.as_mut().map(remap);
    case.hi.as_mut().map(remap);
    case.out.as_mut().map(remap);
    case
}

/// Random bytes for a bound or self element: nice values, small integers, halves.
fn clamp_value(rng: &mut Rng, d: DType) -> [u8; 16] {
    if rng.pct(25) && (is_int(d) || is_float(d)) {
        let v = rng.below(9) as i64 - 4;
        if is_int(d) {
            return enc(d, V::I(v as i128));
        }
        return enc(d, V::F(v as f64 / 2.0));
    }
    nice_bytes(rng, d)
}

/// Phase 1 of the case's entry point.
///
/// # Safety
/// The handles are live (or NULL where the form passes NULL).
unsafe fn tcase_phase1(
    form: TForm,
    x: *mut aclTensor,
    lo: *mut aclTensor,
    hi: *mut aclTensor,
    out: *mut aclTensor,
    ws: Ws,
    ex: Ex,
) -> i32 {
    use clamp::*;
    unsafe {
        match form {
            TForm::Both | TForm::MinNull | TForm::MaxNull => {
                aclnnClampTensorGetWorkspaceSize(x, lo, hi, out, ws, ex)
            }
            TForm::Min => aclnnClampMinTensorGetWorkspaceSize(x, lo, out, ws, ex),
            TForm::InplaceMin => aclnnInplaceClampMinTensorGetWorkspaceSize(x, lo, ws, ex),
            TForm::Max => aclnnClampMaxTensorGetWorkspaceSize(x, hi, out, ws, ex),
            TForm::InplaceMax => aclnnInplaceClampMaxTensorGetWorkspaceSize(x, hi, ws, ex),
        }
    }
}

fn tcase_phase2(form: TForm) -> Phase2 {
    use clamp::*;
    match form {
        TForm::Both | TForm::MinNull | TForm::MaxNull => aclnnClampTensor,
        TForm::Min => aclnnClampMinTensor,
        TForm::InplaceMin => aclnnInplaceClampMinTensor,
        TForm::Max => aclnnClampMaxTensor,
        TForm::InplaceMax => aclnnInplaceClampMaxTensor,
    }
}

/// What one run gave: the storages before and after, or the refusal.
struct Ran {
    before: Vec<Vec<u8>>,
    after: Result<Vec<Vec<u8>>, (i32, String)>,
}

fn run_tcase(case: &TCase, rng: &mut Rng) -> Ran {
    let mut mem = storages(rng, &case.views());
    for v in case.inputs() {
        let d = v.dtype;
        fill(&mut mem, v, || clamp_value(rng, d));
    }
    let mut dev = Dev::new(&mem);
    let x = dev.tensor(&case.x, ND);
    let lo = dev.opt_tensor(case.lo.as_ref(), ND);
    let hi = dev.opt_tensor(case.hi.as_ref(), ND);
    let out = dev.opt_tensor(case.out.as_ref(), ND);
    // SAFETY: live handles; NULL where the form has no such argument.
    let r = dev.call(
        |ws, ex| unsafe { tcase_phase1(case.form, x, lo, hi, out, ws, ex) },
        tcase_phase2(case.form),
    );
    Ran {
        before: mem,
        after: r.map(|_| dev.read()),
    }
}

/// Checks that storage bytes outside `out`'s elements did not change.
fn check_untouched(before: &[Vec<u8>], after: &[Vec<u8>], out: &View) -> Result<(), String> {
    let mut written: Vec<Vec<bool>> = before.iter().map(|b| vec![false; b.len()]).collect();
    let sz = size(out.dtype);
    for idx in indices(&out.shape) {
        let e = at(out, &idx) * sz;
        written[out.storage][e..e + sz]
            .iter_mut()
            .for_each(|w| *w = true);
    }
    for (k, (b, a)) in before.iter().zip(after).enumerate() {
        for i in 0..b.len() {
            if !written[k][i] && a[i] != b[i] {
                return Err(format!(
                    "storage {k} byte {i} outside the output changed: {:#04x} -> {:#04x}",
                    b[i], a[i]
                ));
            }
        }
    }
    Ok(())
}

/// The torch program for the tensor-bound forms: a = [self, min or None, max or None, out tag].
const CLAMP_TENSOR_PY: &str = "x, lo, hi, o = a
ts = [t for t in (x, lo, hi) if t is not None]
p = ts[0].dtype
for t in ts[1:]:
    p = torch.promote_types(p, t.dtype)
c = torch.float32 if p in (torch.float16, torch.bfloat16) else p
cv = lambda t: None if t is None else t.to(p).to(c)
out = torch.clamp(cv(x), cv(lo), cv(hi)).to(p).to(o.dtype)";

#[derive(Default, Debug)]
struct Stats {
    ran: usize,
    refused: usize,
    elements: usize,
    torch_cases: usize,
    torch_elements: usize,
    torch_declined: usize,
}

fn run_clamp_tensor_random(seed: u64, n: usize) {
    let mut rng = Rng::new(seed);
    let mut batch = Batch::new();
    let prog = batch.program(CLAMP_TENSOR_PY);
    let mut pending = vec![];
    let mut per_form: std::collections::HashMap<TForm, (usize, usize)> = Default::default();
    let mut st = Stats::default();
    let mut failures = vec![];
    for i in 0..n {
        let form = TFORMS[i % TFORMS.len()];
        let case = gen_tcase(&mut rng, form);
        let ran = run_tcase(&case, &mut rng);
        let why = case.refusal();
        let after = match (&why, ran.after) {
            (Some(_), Err((INVALID, _))) => {
                st.refused += 1;
                per_form.entry(form).or_default().1 += 1;
                continue;
            }
            (Some(w), Err((s, m))) => {
                failures.push(format!(
                    "#{i}: refused with {s} ({m}), model: 161002 ({w})\n{case:?}"
                ));
                continue;
            }
            (Some(w), Ok(_)) => {
                failures.push(format!(
                    "#{i}: accepted, but the model refuses: {w}\n{case:?}"
                ));
                continue;
            }
            (None, Err((s, m))) => {
                failures.push(format!("#{i}: refused with {s}: {m}\n{case:?}"));
                continue;
            }
            (None, Ok(a)) => a,
        };
        st.ran += 1;
        per_form.entry(form).or_default().0 += 1;
        let o = case.out_view();
        let p = case.promoted().unwrap();
        let mut got = vec![];
        let mut bad = None;
        for idx in indices(&o.shape) {
            let x = read_b(&ran.before, &case.x, &idx);
            let lo = case.lo.as_ref().map(|v| read_b(&ran.before, v, &idx));
            let hi = case.hi.as_ref().map(|v| read_b(&ran.before, v, &idx));
            let want = clamp_tensor_want(p, o.dtype, x, lo, hi);
            let g = decode(o.dtype, bytes_at(&after, o, at(o, &idx)));
            if bad.is_none() && !same(g, want) {
                bad = Some(format!(
                    "at {idx:?}: self {x:?} min {lo:?} max {hi:?} (P {p:?}): want {want:?}, got {g:?}"
                ));
            }
            got.push(g);
        }
        st.elements += got.len();
        if let Some(b) = bad {
            failures.push(format!("#{i} ({form:?}): {b}\n{case:?}"));
            continue;
        }
        if let Err(e) = check_untouched(&ran.before, &after, o) {
            failures.push(format!("#{i} ({form:?}): {e}\n{case:?}"));
            continue;
        }
        let arr = |v: &Option<View>| v.as_ref().map(|v| array_of(&ran.before, v));
        let c = batch.case(
            prog,
            vec![
                Some(array_of(&ran.before, &case.x)),
                arr(&case.lo),
                arr(&case.hi),
                Some(dtype_tag(o.dtype)),
            ],
        );
        pending.push((c, i, got, case));
    }
    if let Some(results) = batch.run("clamp tensor forms") {
        for (c, i, got, case) in &pending {
            compare_torch(&results[*c], got, &mut st, &mut failures, || {
                format!("#{i} ({:?}) {case:?}", case.form)
            });
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {n} clamp cases failed; the first ones:\n\n{}",
        failures.len(),
        failures[..failures.len().min(4)].join("\n\n")
    );
    eprintln!("clamp tensor forms: {st:?}; per form (ran, refused): {per_form:?}");
    for f in TFORMS {
        let (r, x) = per_form.get(&f).copied().unwrap_or_default();
        assert!(r >= 20 && x >= 3, "{f:?}: ran {r}, refused {x}");
    }
    if batch.len() > 0 && st.torch_cases > 0 {
        assert!(st.torch_elements > 1000, "{st:?}");
    }
}

/// The library's values `got` (already checked against the model) against torch's output.
fn compare_torch(
    r: &TorchOutcome,
    got: &[V],
    st: &mut Stats,
    failures: &mut Vec<String>,
    what: impl Fn() -> String,
) {
    match r {
        Err(e) => {
            st.torch_declined += 1;
            let _ = e;
        }
        Ok(outs) => {
            st.torch_cases += 1;
            let t = &outs[0];
            if t.numel() != got.len() {
                failures.push(format!(
                    "torch gave {} elements, the library {}: {}",
                    t.numel(),
                    got.len(),
                    what()
                ));
                return;
            }
            for (k, g) in got.iter().enumerate() {
                let tv = torch_elem(t, k);
                if !same_but_zero_sign(*g, tv) {
                    failures.push(format!(
                        "element {k}: torch {tv:?}, library {g:?}: {}",
                        what()
                    ));
                    return;
                }
            }
            st.torch_elements += got.len();
        }
    }
}

#[test]
fn clamp_tensor_forms_match_model_and_torch() {
    run_clamp_tensor_random(0xC1A4_0001, 1400);
}

// ---------------------------------------------------------------------------------------
// Clamp with scalar bounds
// ---------------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum SForm {
    /// aclnnClamp with both bounds.
    Clamp,
    /// aclnnClamp, clipValueMax NULL.
    ClampLo,
    /// aclnnClamp, clipValueMin NULL.
    ClampHi,
    Min,
    Max,
    InplaceMax,
}
const SFORMS: [SForm; 6] = [
    SForm::Clamp,
    SForm::ClampLo,
    SForm::ClampHi,
    SForm::Min,
    SForm::Max,
    SForm::InplaceMax,
];
impl SForm {
    fn has_min(self) -> bool {
        matches!(self, SForm::Clamp | SForm::ClampLo | SForm::Min)
    }
    fn has_max(self) -> bool {
        !matches!(self, SForm::ClampLo | SForm::Min)
    }
}

#[derive(Clone, Debug)]
struct SCase {
    form: SForm,
    x: View,
    lo: Option<Sc>,
    hi: Option<Sc>,
    out: Option<View>,
}

/// The tensor-scalar computation dtype of one bound: a float self keeps its dtype, an
/// integer self with a float bound computes in f32, with an integer bound in its own dtype.
fn ts_dtype(x: DType, s: DType) -> DType {
    if is_int(x) && is_float(s) {
        F32
    } else {
        x
    }
}

impl SCase {
    fn out_view(&self) -> &View {
        self.out.as_ref().unwrap_or(&self.x)
    }
    fn bounds(&self) -> Vec<&Sc> {
        self.lo.iter().chain(self.hi.iter()).collect()
    }
    fn promoted(&self) -> Option<DType> {
        let mut p = Some(self.x.dtype);
        for s in self.bounds() {
            p = p.and_then(|p| ref_promote(p, ts_dtype(self.x.dtype, s.dtype)));
        }
        p
    }
    fn refusal(&self) -> Option<String> {
        let o = self.out_view();
        if !CLAMP_LIST.contains(&self.x.dtype) || !CLAMP_LIST.contains(&o.dtype) {
            return Some("self/out dtype".into());
        }
        if self.bounds().iter().any(|s| !CLAMP_LIST.contains(&s.dtype)) {
            return Some("bound dtype".into());
        }
        let p = self.promoted().unwrap();
        if !ref_can_cast(p, o.dtype) {
            return Some(format!("{p:?} cannot be cast to {:?}", o.dtype));
        }
        (self.x.shape != o.shape).then(|| "out shape != self shape".into())
    }
}

/// A scalar bound converted to P: rounded into a float P; an integer beyond an integer P's
/// range saturates.
fn bound_to_p(s: &Sc, p: DType) -> V {
    match s.value() {
        V::I(i) if is_int(p) => {
            let (lo, hi) = int_range(p);
            V::I(i.clamp(lo, hi))
        }
        v => cvt(v, p),
    }
}

/// The model's out element: the tensor-bound rule with the bounds already in P.
fn clamp_scalar_want(p: DType, out: DType, x: V, lo: Option<V>, hi: Option<V>) -> V {
    clamp_tensor_want(p, out, x, lo, hi)
}

fn gen_scalar(rng: &mut Rng) -> Sc {
    let d = pick_dtype(rng, &CLAMP_LIST, 94);
    match rng.below(10) {
        0..=2 if d != Bool && !matches!(d, C64 | C128) => Sc::int(d, rng.below(9) as i64 - 4),
        3 if is_float(d) => {
            let mut b = [0u8; 16];
            b.copy_from_slice(&enc(d, V::F(rng.below(9) as f64 / 2.0 - 2.0)));
            Sc { dtype: d, bytes: b }
        }
        4 if is_int(d) => Sc::int(d, rng.pick(&[1000, -1000, 300, -129, 128, 70000])),
        _ => Sc {
            dtype: d,
            bytes: nice_bytes(rng, d),
        },
    }
}

fn gen_scase(rng: &mut Rng, form: SForm) -> SCase {
    let shape = gen_shape(rng, 5);
    let inplace = form == SForm::InplaceMax;
    let xd = pick_dtype(rng, &CLAMP_LIST, 94);
    let x = gen_view(rng, &shape, xd, 0, !inplace);
    let lo = form.has_min().then(|| gen_scalar(rng));
    let hi = form.has_max().then(|| gen_scalar(rng));
    let mut case = SCase {
        form,
        x,
        lo,
        hi,
        out: None,
    };
    if !inplace {
        let mut oshape = shape.clone();
        if rng.pct(3) {
            oshape.insert(0, 2);
        }
        let od = pick_out(rng, case.promoted());
        let mut o = gen_view(rng, &oshape, od, 1, false);
        let expanded = case
            .x
            .strides
            .iter()
            .zip(&shape)
            .any(|(s, d)| *s == 0 && *d > 1);
        if od == xd && oshape == shape && !expanded && rng.pct(25) {
            o = case.x.clone();
        }
        case.out = Some(o);
    }
    case
}

/// # Safety
/// Live handles (NULL where the form passes NULL).
unsafe fn scase_phase1(
    form: SForm,
    x: *mut aclTensor,
    lo: *mut aclScalar,
    hi: *mut aclScalar,
    out: *mut aclTensor,
    ws: Ws,
    ex: Ex,
) -> i32 {
    use clamp::*;
    unsafe {
        match form {
            SForm::Clamp | SForm::ClampLo | SForm::ClampHi => {
                aclnnClampGetWorkspaceSize(x, lo, hi, out, ws, ex)
            }
            SForm::Min => aclnnClampMinGetWorkspaceSize(x, lo, out, ws, ex),
            SForm::Max => aclnnClampMaxGetWorkspaceSize(x, hi, out, ws, ex),
            SForm::InplaceMax => aclnnInplaceClampMaxGetWorkspaceSize(x, hi, ws, ex),
        }
    }
}

fn scase_phase2(form: SForm) -> Phase2 {
    use clamp::*;
    match form {
        SForm::Clamp | SForm::ClampLo | SForm::ClampHi => aclnnClamp,
        SForm::Min => aclnnClampMin,
        SForm::Max => aclnnClampMax,
        SForm::InplaceMax => aclnnInplaceClampMax,
    }
}

/// The torch program for the scalar-bound forms: a = [self, min or None, max or None, out
/// tag], each bound a 1-element array of its own dtype. P is torch's scalar promotion; the
/// bounds become 0-d tensors of P so that torch's tensor-bound clamp (NaN propagating: its
/// scalar clamp_min/clamp_max ignore a NaN bound, its two-bound scalar clamp does not) is
/// the rule; f16/bf16 (no CPU clamp for f16 in torch 1.13) clamp in f32.
const CLAMP_SCALAR_PY: &str = "x, lo, hi, o = a
sv = lambda t: None if t is None else t.reshape(()).item()
lo, hi = sv(lo), sv(hi)
p = x.dtype
for v in (lo, hi):
    if v is not None:
        p = torch.promote_types(p, torch.result_type(x, v))
c = torch.float32 if p in (torch.float16, torch.bfloat16) else p
bt = lambda v: None if v is None else torch.tensor(v, dtype=torch.float64 if isinstance(v, float) else torch.int64).to(p).to(c)
out = torch.clamp(x.to(p).to(c), bt(lo), bt(hi)).to(p).to(o.dtype)";

fn sc_array(s: &Sc) -> Array {
    Array {
        dtype: s.dtype,
        shape: vec![1],
        bytes: s.bytes[..size(s.dtype)].to_vec(),
    }
}

fn run_clamp_scalar_random(seed: u64, n: usize) {
    let mut rng = Rng::new(seed);
    let mut batch = Batch::new();
    let prog = batch.program(CLAMP_SCALAR_PY);
    let mut pending = vec![];
    let mut per_form: std::collections::HashMap<SForm, (usize, usize)> = Default::default();
    let mut st = Stats::default();
    let mut failures = vec![];
    for i in 0..n {
        let form = SFORMS[i % SFORMS.len()];
        let case = gen_scase(&mut rng, form);
        let mut views = vec![&case.x];
        views.extend(case.out.as_ref());
        let mut mem = storages(&mut rng, &views);
        let d = case.x.dtype;
        fill(&mut mem, &case.x, || clamp_value(&mut rng, d));
        let mut dev = Dev::new(&mem);
        let x = dev.tensor(&case.x, ND);
        let out = dev.opt_tensor(case.out.as_ref(), ND);
        let lo = dev.opt_scalar(case.lo.as_ref());
        let hi = dev.opt_scalar(case.hi.as_ref());
        let r = dev.call(
            // SAFETY: live handles.
            |ws, ex| unsafe { scase_phase1(form, x, lo, hi, out, ws, ex) },
            scase_phase2(form),
        );
        let after = match (case.refusal(), r) {
            (Some(_), Err((INVALID, _))) => {
                st.refused += 1;
                per_form.entry(form).or_default().1 += 1;
                continue;
            }
            (None, Ok(_)) => dev.read(),
            (w, r) => {
                failures.push(format!("#{i}: model {w:?}, library {r:?}\n{case:?}"));
                continue;
            }
        };
        st.ran += 1;
        per_form.entry(form).or_default().0 += 1;
        let o = case.out_view();
        let p = case.promoted().unwrap();
        let lo_p = case.lo.as_ref().map(|s| bound_to_p(s, p));
        let hi_p = case.hi.as_ref().map(|s| bound_to_p(s, p));
        let mut got = vec![];
        let mut bad = None;
        for idx in indices(&o.shape) {
            let x = read_b(&mem, &case.x, &idx);
            let want = clamp_scalar_want(p, o.dtype, x, lo_p, hi_p);
            let g = decode(o.dtype, bytes_at(&after, o, at(o, &idx)));
            if bad.is_none() && !same(g, want) {
                bad = Some(format!(
                    "at {idx:?}: self {x:?} min {lo_p:?} max {hi_p:?} (P {p:?}): want {want:?}, got {g:?}"
                ));
            }
            got.push(g);
        }
        st.elements += got.len();
        if let Some(b) = bad {
            failures.push(format!("#{i} ({form:?}): {b}\n{case:?}"));
            continue;
        }
        if let Err(e) = check_untouched(&mem, &after, o) {
            failures.push(format!("#{i} ({form:?}): {e}\n{case:?}"));
            continue;
        }
        // torch wraps or refuses an integer bound outside an integer P (the library
        // saturates it): the model alone checks those.
        let in_range = |s: &Sc| match (s.value(), is_int(p)) {
            (V::I(i), true) => (int_range(p).0..=int_range(p).1).contains(&i),
            _ => true,
        };
        if !case.bounds().iter().all(|s| in_range(s)) {
            st.torch_declined += 1;
            continue;
        }
        let c = batch.case(
            prog,
            vec![
                Some(array_of(&mem, &case.x)),
                case.lo.as_ref().map(sc_array),
                case.hi.as_ref().map(sc_array),
                Some(dtype_tag(o.dtype)),
            ],
        );
        pending.push((c, i, got, case));
    }
    if let Some(results) = batch.run("clamp scalar forms") {
        for (c, i, got, case) in &pending {
            compare_torch(&results[*c], got, &mut st, &mut failures, || {
                format!("#{i} ({:?}) {case:?}", case.form)
            });
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {n} scalar clamp cases failed; the first ones:\n\n{}",
        failures.len(),
        failures[..failures.len().min(4)].join("\n\n")
    );
    eprintln!("clamp scalar forms: {st:?}; per form (ran, refused): {per_form:?}");
    for f in SFORMS {
        let (r, x) = per_form.get(&f).copied().unwrap_or_default();
        assert!(r >= 20 && x >= 3, "{f:?}: ran {r}, refused {x}");
    }
}

#[test]
fn clamp_scalar_forms_match_model_and_torch() {
    run_clamp_scalar_random(0xC1A4_0002, 1200);
}

// ---------------------------------------------------------------------------------------
// RoundDecimals
// ---------------------------------------------------------------------------------------

const ROUND_LIST: [DType; 6] = [BF16, F16, F32, F64, S32, S64];

#[derive(Clone, Debug)]
struct RCase {
    x: View,
    decimals: i64,
    /// None: InplaceRoundDecimals.
    out: Option<View>,
}

impl RCase {
    fn out_view(&self) -> &View {
        self.out.as_ref().unwrap_or(&self.x)
    }
    fn refusal(&self) -> Option<String> {
        let o = self.out_view();
        if !ROUND_LIST.contains(&self.x.dtype) {
            return Some(format!("self dtype {:?}", self.x.dtype));
        }
        if o.dtype != self.x.dtype {
            return Some(format!(
                "out dtype {:?} != self {:?}",
                o.dtype, self.x.dtype
            ));
        }
        (o.shape != self.x.shape)
            .then(|| format!("out shape {:?} != self {:?}", o.shape, self.x.shape))
    }
}

/// 10^k correctly rounded into f64 (inf past the range), from its decimal spelling.
fn ten_pow(k: u64) -> f64 {
    format!("1e{k}").parse().unwrap()
}

/// The scale of the definition: C's pow(10, k) (torch's `std::pow(10, decimals)`), which
/// is 10^k correctly rounded but for a few k where glibc takes the other neighbour (23 and
/// 210: 10^23 is a tie).
fn c_pow10(k: u64) -> f64 {
    10f64.powf(k as f64)
}

/// round(x, decimals) in dtype `d` by the rule: floats compute in f32 (f16, bf16, f32) or
/// f64, every operation rounded into that dtype, then once into `d`; integers exactly.
fn round_want(d: DType, decimals: i64, x: V) -> V {
    let k = decimals.unsigned_abs();
    match x {
        V::F(x) => {
            let c = if d == F64 { F64 } else { F32 };
            let r = |v: f64| round_float(v, c); // one rounding into c (exact for f64)
            let s = r(c_pow10(k));
            let y = if decimals >= 0 {
                r(r(x * s).round_ties_even() / s)
            } else {
                r(r(x / s).round_ties_even() * s)
            };
            V::F(round_float(y, d))
        }
        V::I(i) => {
            if decimals >= 0 {
                return V::I(i);
            }
            if k >= 30 {
                return V::I(0); // 10^30 > 2·|every s64|: everything rounds to 0
            }
            let s = 10i128.pow(k as u32);
            let (mut q, r) = (i.div_euclid(s), i.rem_euclid(s));
            if 2 * r > s || (2 * r == s && q % 2 != 0) {
                q += 1;
            }
            V::I(wrap(q * s, d))
        }
        V::B(_) | V::C(..) => unreachable!(),
    }
}

fn gen_decimals(rng: &mut Rng) -> i64 {
    match rng.below(100) {
        0..=54 => rng.below(13) as i64 - 4,
        55..=74 => rng.below(25) as i64 - 12,
        75..=84 => {
            let k = 20 + rng.below(21) as i64;
            if rng.pct(50) {
                k
            } else {
                -k
            }
        }
        85..=89 => rng.pick(&[
            i64::MIN,
            i64::MAX,
            i32::MAX as i64 + 1,
            -(i32::MAX as i64) - 2,
            307,
            308,
            309,
            -308,
            -309,
            23,
            -23,
            33,
            -37,
            210,
            -210,
        ]),
        _ => 0,
    }
}

/// A value for RoundDecimals: nice values, binary fractions (ties after scaling), odd
/// multiples of 5·10^j (integer ties for negative decimals), integers near 2^24 / 2^53.
fn round_value(rng: &mut Rng, d: DType, decimals: i64) -> [u8; 16] {
    let sign = if rng.pct(50) { -1.0 } else { 1.0 };
    match rng.below(12) {
        0..=4 => nice_bytes(rng, d),
        10 | 11 if is_float(d) => {
            // of the order of 10^-decimals, so that the scaled value has a few digits
            let m = sign * rng.below(2000) as f64 / 8.0;
            let k = decimals.unsigned_abs().min(400);
            let v = if decimals >= 0 {
                m / ten_pow(k)
            } else {
                m * ten_pow(k)
            };
            enc(d, V::F(round_float(v, d)))
        }
        5 | 6 if is_float(d) => {
            let v = (rng.below(64) as f64) / (1u64 << rng.below(5)) as f64;
            enc(d, V::F(round_float(sign * v, d)))
        }
        7 if is_float(d) => {
            let p = if d == F64 { 52 } else { 23 };
            let v = pow2(p) + rng.below(64) as f64 - 32.0;
            enc(
                d,
                V::F(round_float(sign * v / pow2(rng.below(4) as i32), d)),
            )
        }
        _ => {
            let t = (2 * rng.below(20) as i128 + 1) * 5 * 10i128.pow(rng.below(6) as u32);
            let t = if sign < 0.0 { -t } else { t };
            if is_int(d) {
                enc(d, V::I(t))
            } else if is_float(d) {
                enc(d, V::F(round_float(t as f64, d)))
            } else {
                nice_bytes(rng, d)
            }
        }
    }
}

fn gen_rcase(rng: &mut Rng, inplace: bool) -> RCase {
    let shape = gen_shape(rng, 4);
    let xd = if rng.pct(92) {
        rng.pick(&ROUND_LIST)
    } else {
        rng.pick(&[S8, U8, S16, Bool, C64, U16])
    };
    let x = gen_view(rng, &shape, xd, 0, !inplace);
    let decimals = gen_decimals(rng);
    let out = (!inplace).then(|| {
        let od = if rng.pct(92) {
            xd
        } else {
            rng.pick(&ROUND_LIST)
        };
        let mut oshape = shape.clone();
        if rng.pct(3) {
            oshape.push(2);
        }
        let expanded = x.strides.iter().zip(&shape).any(|(s, d)| *s == 0 && *d > 1);
        if od == xd && oshape == shape && !expanded && rng.pct(20) {
            x.clone()
        } else {
            gen_view(rng, &oshape, od, 1, false)
        }
    });
    RCase { x, decimals, out }
}

/// torch.round(x, decimals=d); f16 (no CPU kernel in torch 1.13) and bf16 (torch rounds
/// every intermediate to bf16) in f32, rounded once. a = [self, decimals].
const ROUND_PY: &str = "x, d = a[0], a[1].item()
if x.dtype in (torch.float16, torch.bfloat16):
    out = torch.round(x.float(), decimals=d).to(x.dtype)
else:
    out = torch.round(x, decimals=d)";

fn run_round_random(seed: u64, n: usize) {
    let mut rng = Rng::new(seed);
    let mut batch = Batch::new();
    let prog = batch.program(ROUND_PY);
    let mut pending = vec![];
    let mut st = Stats::default();
    let mut failures = vec![];
    let (mut ran_dt, mut refused_forms) = (std::collections::BTreeMap::new(), [0usize; 2]);
    for i in 0..n {
        let inplace = i % 3 == 2;
        let case = gen_rcase(&mut rng, inplace);
        let mut views = vec![&case.x];
        views.extend(case.out.as_ref());
        let mut mem = storages(&mut rng, &views);
        let d = case.x.dtype;
        fill(&mut mem, &case.x, || {
            round_value(&mut rng, d, case.decimals)
        });
        let mut dev = Dev::new(&mem);
        let x = dev.tensor(&case.x, ND);
        let out = dev.opt_tensor(case.out.as_ref(), ND);
        let dec = case.decimals;
        let r = if inplace {
            dev.call(
                // SAFETY: live handles.
                |ws, ex| unsafe {
                    round::aclnnInplaceRoundDecimalsGetWorkspaceSize(x, dec, ws, ex)
                },
                round::aclnnInplaceRoundDecimals,
            )
        } else {
            dev.call(
                // SAFETY: live handles.
                |ws, ex| unsafe { round::aclnnRoundDecimalsGetWorkspaceSize(x, dec, out, ws, ex) },
                round::aclnnRoundDecimals,
            )
        };
        let after = match (case.refusal(), r) {
            (Some(_), Err((INVALID, _))) => {
                st.refused += 1;
                refused_forms[inplace as usize] += 1;
                continue;
            }
            (None, Ok(_)) => dev.read(),
            (w, r) => {
                failures.push(format!("#{i}: model {w:?}, library {r:?}\n{case:?}"));
                continue;
            }
        };
        st.ran += 1;
        *ran_dt
            .entry(format!("{d:?}{}", if inplace { "/inplace" } else { "" }))
            .or_insert(0) += 1;
        let o = case.out_view();
        let mut got = vec![];
        let mut bad = None;
        for idx in indices(&o.shape) {
            let xv = read_b(&mem, &case.x, &idx);
            let want = round_want(d, dec, xv);
            let g = decode(o.dtype, bytes_at(&after, o, at(o, &idx)));
            if bad.is_none() && !same(g, want) {
                bad = Some(format!(
                    "at {idx:?}: round({xv:?}, {dec}): want {want:?}, got {g:?}"
                ));
            }
            got.push(g);
        }
        st.elements += got.len();
        if let Some(b) = bad {
            failures.push(format!("#{i} ({d:?}): {b}\n{case:?}"));
            continue;
        }
        if let Err(e) = check_untouched(&mem, &after, o) {
            failures.push(format!("#{i}: {e}\n{case:?}"));
            continue;
        }
        if is_float(d) {
            let c = batch.case(
                prog,
                vec![Some(array_of(&mem, &case.x)), Some(Array::int(dec))],
            );
            pending.push((c, i, got, case));
        }
    }
    if let Some(results) = batch.run("round decimals") {
        for (c, i, got, case) in &pending {
            compare_torch_exact(&results[*c], got, &mut st, &mut failures, || {
                format!("#{i} {case:?}")
            });
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {n} RoundDecimals cases failed; the first ones:\n\n{}",
        failures.len(),
        failures[..failures.len().min(4)].join("\n\n")
    );
    eprintln!("round decimals: {st:?}; ran per dtype: {ran_dt:?}; refused (out, inplace): {refused_forms:?}");
    assert!(
        ran_dt.len() == 12 && refused_forms.iter().all(|&r| r >= 5),
        "{ran_dt:?} {refused_forms:?}"
    );
}

/// As compare_torch, but bit for bit (RoundDecimals has no signed-zero freedom).
fn compare_torch_exact(
    r: &TorchOutcome,
    got: &[V],
    st: &mut Stats,
    failures: &mut Vec<String>,
    what: impl Fn() -> String,
) {
    match r {
        Err(e) => failures.push(format!("torch refused ({e}): {}", what())),
        Ok(outs) => {
            st.torch_cases += 1;
            let t = &outs[0];
            for (k, g) in got.iter().enumerate() {
                let tv = torch_elem(t, k);
                if !same(*g, tv) {
                    failures.push(format!(
                        "element {k}: torch {tv:?}, library {g:?}: {}",
                        what()
                    ));
                    return;
                }
            }
            st.torch_elements += got.len();
        }
    }
}

#[test]
fn round_decimals_matches_model_and_torch() {
    run_round_random(0x20D_0003, 1500);
}

// ---------------------------------------------------------------------------------------
// ConvTbc and ConvDepthwise2d
// ---------------------------------------------------------------------------------------

const CONV_LIST: [DType; 3] = [F32, F16, BF16];

/// Whether bias dtype `b` goes with input/weight dtype `d`: any two of f32/f16/bf16 (they
/// promote, as in Convolution).
fn bias_ok(b: DType, d: DType) -> bool {
    CONV_LIST.contains(&b) && CONV_LIST.contains(&d)
}

/// A value exact in `d`, |x| < 8 (conv_diff's).
fn conv_val(rng: &mut Rng, d: DType) -> f64 {
    match rng.below(8) {
        0 => 0.0,
        1..=2 => rng.below(9) as f64 - 4.0,
        _ => {
            let sign = if rng.next() & 1 == 1 { -1.0 } else { 1.0 };
            let frac = (rng.next() >> 11) as f64 / pow2(53);
            round_float(sign * (1.0 + frac) * pow2(rng.below(4) as i32 - 2), d)
        }
    }
}

/// (precision, smallest subnormal) of an output dtype.
fn prec(d: DType) -> (i32, f64) {
    match d {
        F16 => (11, pow2(-24)),
        BF16 => (8, pow2(-133)),
        _ => (24, pow2(-149)),
    }
}

/// conv_diff's bound: an f32 sum of K terms of magnitude sum S in any order, then one
/// rounding into out's dtype.
fn conv_close(got: f64, want: f64, s: f64, k: usize, out: DType) -> bool {
    let e = (k + 2) as f64 * pow2(-23) * s;
    let (p, tiny) = prec(out);
    (got - want).abs() <= e + pow2(-p) * (want.abs() + e) + tiny
}

/// An f64 accumulator per output element: (sum, sum of |terms|, terms).
#[derive(Clone, Copy, Default, Debug)]
struct Acc(f64, f64, usize);
impl Acc {
    fn add(&mut self, t: f64) {
        self.0 += t;
        self.1 += t.abs();
        self.2 += 1;
    }
}

#[derive(Clone, Debug)]
struct TbcCase {
    x: View,
    w: View,
    b: View,
    out: View,
    pad: i64,
    /// aclFormat of self, weight, output (ND or NCL).
    formats: [i32; 3],
}

impl TbcCase {
    fn views(&self) -> Vec<&View> {
        vec![&self.x, &self.w, &self.b, &self.out]
    }
    fn refusal(&self) -> Option<String> {
        let (x, w, b, o) = (&self.x, &self.w, &self.b, &self.out);
        if !CONV_LIST.contains(&x.dtype) || x.dtype != w.dtype || w.dtype != o.dtype {
            return Some(format!("dtypes {:?} {:?} {:?}", x.dtype, w.dtype, o.dtype));
        }
        if !bias_ok(b.dtype, x.dtype) || !CONV_LIST.contains(&b.dtype) {
            return Some(format!("bias dtype {:?}", b.dtype));
        }
        if !(0..=255).contains(&self.pad) {
            return Some(format!("pad {}", self.pad));
        }
        let (t, bt, cin) = (x.shape[0], x.shape[1], x.shape[2]);
        let (k, wcin, cout) = (w.shape[0], w.shape[1], w.shape[2]);
        if wcin != cin || k == 0 || b.shape != [cout] {
            return Some("weight / bias shape".into());
        }
        // A non-empty self must cover the kernel (as Convolution's rule, and CANN's with
        // pad 0); an empty one only needs a non-negative output length.
        let tout = t as i64 + 2 * self.pad - k as i64 + 1;
        let least = if x.numel() > 0 { 1 } else { 0 };
        if tout < least || o.shape != [tout as usize, bt, cout] {
            return Some(format!("output shape {:?}, T' = {tout}", o.shape));
        }
        None
    }
    /// The f64 model per output element (row-major over (T', B, Cout)).
    fn reference(&self, mem: &[Vec<u8>]) -> Vec<Acc> {
        let rd = |v: &View, idx: &[usize]| match decode(v.dtype, bytes_at(mem, v, at(v, idx))) {
            V::F(f) => f,
            x => panic!("{x:?}"),
        };
        let (t, cin) = (self.x.shape[0], self.x.shape[2]);
        let (k, cout) = (self.w.shape[0], self.w.shape[2]);
        let o = &self.out.shape;
        let mut acc = vec![Acc::default(); o.iter().product()];
        for (e, idx) in indices(o).iter().enumerate() {
            let (to, bi, co) = (idx[0] as i64, idx[1], idx[2]);
            for kk in 0..k {
                let ti = to + kk as i64 - self.pad;
                if ti < 0 || ti >= t as i64 {
                    continue;
                }
                for ci in 0..cin {
                    acc[e].add(rd(&self.x, &[ti as usize, bi, ci]) * rd(&self.w, &[kk, ci, co]));
                }
            }
            let _ = cout;
            acc[e].add(rd(&self.b, &[co]));
        }
        acc
    }
}

fn pick_conv_dtype(rng: &mut Rng, d: DType, pct_same: u64) -> DType {
    if rng.pct(pct_same) {
        d
    } else if rng.pct(85) {
        rng.pick(&CONV_LIST)
    } else {
        rng.pick(&[F64, S32, Bool])
    }
}

fn gen_tbc(rng: &mut Rng) -> TbcCase {
    let dim = |rng: &mut Rng, lo: u64, hi: u64| {
        if rng.pct(5) {
            0
        } else {
            (lo + rng.below(hi - lo + 1)) as usize
        }
    };
    let (t, bt, cin, cout) = (
        dim(rng, 1, 7),
        dim(rng, 1, 3),
        dim(rng, 1, 4),
        dim(rng, 1, 4),
    );
    let k = 1 + rng.below(4) as usize;
    let pad = if rng.pct(4) {
        rng.pick(&[-1, 256, 300, i64::MIN])
    } else {
        rng.below(4) as i64
    };
    let mut tout = (t as i64 + 2 * pad.clamp(0, 255) - k as i64 + 1).max(0) as usize;
    if rng.pct(3) {
        tout += 1;
    }
    let d = rng.pick(&CONV_LIST);
    let mut wcin = cin;
    if rng.pct(3) {
        wcin += 1;
    }
    let mut bshape = vec![cout];
    if rng.pct(2) {
        bshape = vec![cout + 1];
    }
    let x = gen_view(rng, &[t, bt, cin], d, 0, true);
    let (wd, bd, od) = (
        pick_conv_dtype(rng, d, 95),
        pick_conv_dtype(rng, d, 85),
        pick_conv_dtype(rng, d, 95),
    );
    let w = gen_view(rng, &[k, wcin, cout], wd, 1, true);
    let b = gen_view(rng, &bshape, bd, 2, true);
    let out = gen_view(rng, &[tout, bt, cout], od, 3, false);
    let f = |rng: &mut Rng| if rng.pct(30) { NCL } else { ND };
    TbcCase {
        x,
        w,
        b,
        out,
        pad,
        formats: [f(rng), f(rng), f(rng)],
    }
}

const TBC_PY: &str = "x, w, b, p = a
out = torch.conv_tbc(x.double(), w.double(), b.double(), p.item())";

/// Checks `got` (out's elements, row-major) against the model (bound) and records the
/// model values for the torch comparison.
fn check_conv(
    acc: &[Acc],
    got: &[f64],
    od: DType,
    what: &dyn Fn() -> String,
) -> Result<(), String> {
    for (e, (a, &g)) in acc.iter().zip(got).enumerate() {
        if !conv_close(g, a.0, a.1, a.2, od) {
            return Err(format!(
                "element {e}: want {} (S {}, K {}), got {g}: {}",
                a.0,
                a.1,
                a.2,
                what()
            ));
        }
    }
    Ok(())
}

fn out_values(after: &[Vec<u8>], o: &View) -> Vec<f64> {
    indices(&o.shape)
        .iter()
        .map(
            |idx| match decode(o.dtype, bytes_at(after, o, at(o, idx))) {
                V::F(f) => f,
                x => panic!("{x:?}"),
            },
        )
        .collect()
}

/// The model against torch's f64 result: within 2^-40·S.
fn model_vs_torch(
    r: &TorchOutcome,
    acc: &[Acc],
    st: &mut Stats,
    failures: &mut Vec<String>,
    what: &dyn Fn() -> String,
) {
    match r {
        Err(e) => failures.push(format!("torch refused ({e}): {}", what())),
        Ok(outs) => {
            let t = outs[0].to_f64s();
            if t.len() != acc.len() {
                failures.push(format!(
                    "torch gave {} elements, the model {}: {}",
                    t.len(),
                    acc.len(),
                    what()
                ));
                return;
            }
            for (e, (a, tv)) in acc.iter().zip(&t).enumerate() {
                if (a.0 - tv).abs() > pow2(-40) * a.1 {
                    failures.push(format!(
                        "element {e}: torch {tv}, model {} (S {}): {}",
                        a.0,
                        a.1,
                        what()
                    ));
                    return;
                }
            }
            st.torch_cases += 1;
            st.torch_elements += t.len();
        }
    }
}

fn fill_conv(rng: &mut Rng, mem: &mut [Vec<u8>], views: &[&View]) {
    for v in views {
        let d = v.dtype;
        fill(mem, v, || {
            if is_float(d) {
                enc(d, V::F(conv_val(rng, d)))
            } else {
                nice_bytes(rng, d)
            }
        });
    }
}

#[test]
fn conv_tbc_matches_model_and_torch() {
    let mut rng = Rng::new(0x7BC_0004);
    let mut batch = Batch::new();
    let prog = batch.program(TBC_PY);
    let (mut st, mut failures, mut pending) = (Stats::default(), vec![], vec![]);
    let mut empty_in = 0;
    for i in 0..500 {
        let case = gen_tbc(&mut rng);
        let mut mem = storages(&mut rng, &case.views());
        fill_conv(&mut rng, &mut mem, &[&case.x, &case.w, &case.b]);
        let mut dev = Dev::new(&mem);
        let x = dev.tensor(&case.x, case.formats[0]);
        let w = dev.tensor(&case.w, case.formats[1]);
        let b = dev.tensor(&case.b, ND);
        let o = dev.tensor(&case.out, case.formats[2]);
        let (pad, cube) = (case.pad, (i % 3) as i8);
        let r = dev.call(
            // SAFETY: live handles.
            |ws, ex| unsafe {
                convolution::aclnnConvTbcGetWorkspaceSize(x, w, b, pad, o, cube, ws, ex)
            },
            convolution::aclnnConvTbc,
        );
        let after = match (case.refusal(), r) {
            (Some(_), Err((INVALID, _))) => {
                st.refused += 1;
                continue;
            }
            (None, Ok(_)) => dev.read(),
            (w, r) => {
                failures.push(format!("#{i}: model {w:?}, library {r:?}\n{case:?}"));
                continue;
            }
        };
        st.ran += 1;
        empty_in += (case.x.numel() == 0 && case.out.numel() > 0) as usize;
        let acc = case.reference(&mem);
        let got = out_values(&after, &case.out);
        st.elements += got.len();
        let what = || format!("#{i} {case:?}");
        if let Err(e) = check_conv(&acc, &got, case.out.dtype, &what)
            .and_then(|()| check_untouched(&mem, &after, &case.out))
        {
            failures.push(e);
            continue;
        }
        let c = batch.case(
            prog,
            vec![
                Some(array_of(&mem, &case.x)),
                Some(array_of(&mem, &case.w)),
                Some(array_of(&mem, &case.b)),
                Some(Array::int(pad)),
            ],
        );
        pending.push((c, i, acc, case));
    }
    if let Some(results) = batch.run("conv_tbc") {
        for (c, i, acc, case) in &pending {
            model_vs_torch(&results[*c], acc, &mut st, &mut failures, &|| {
                format!("#{i} {case:?}")
            });
        }
    }
    assert!(
        failures.is_empty(),
        "{} ConvTbc cases failed; the first ones:\n\n{}",
        failures.len(),
        failures[..failures.len().min(4)].join("\n\n")
    );
    eprintln!("conv_tbc: {st:?}, {empty_in} with an empty self and a non-empty output");
    assert!(
        st.ran >= 250 && st.refused >= 40 && empty_in >= 3,
        "{st:?} {empty_in}"
    );
}

#[derive(Clone, Debug)]
struct DwCase {
    x: View,
    w: View,
    b: Option<View>,
    out: View,
    kernel: Vec<i64>,
    stride: Vec<i64>,
    padding: Vec<i64>,
    dilation: Vec<i64>,
}

impl DwCase {
    fn views(&self) -> Vec<&View> {
        let mut v = vec![&self.x, &self.w];
        v.extend(self.b.as_ref());
        v.push(&self.out);
        v
    }
    fn refusal(&self) -> Option<String> {
        let (x, w, o) = (&self.x, &self.w, &self.out);
        if !CONV_LIST.contains(&x.dtype) || w.dtype != x.dtype || o.dtype != x.dtype {
            return Some(format!("dtypes {:?} {:?} {:?}", x.dtype, w.dtype, o.dtype));
        }
        if self.b.as_ref().is_some_and(|b| b.dtype != x.dtype) {
            return Some("bias dtype".into());
        }
        let (n, c, h, wd) = (x.shape[0], x.shape[1], x.shape[2], x.shape[3]);
        let (cout, one, kh, kw) = (w.shape[0], w.shape[1], w.shape[2], w.shape[3]);
        if one != 1 || self.kernel != [kh as i64, kw as i64] {
            return Some("weight dim 1 / kernelSize".into());
        }
        if self.stride.len() != 2 || self.padding.len() != 2 || self.dilation.len() != 2 {
            return Some("attribute lengths".into());
        }
        if self.stride.iter().chain(&self.dilation).any(|&v| v <= 0)
            || self.padding.iter().any(|&v| v < 0)
        {
            return Some("attribute values".into());
        }
        if c == 0 || cout % c != 0 || kh == 0 || kw == 0 {
            return Some("channels".into());
        }
        if self.b.as_ref().is_some_and(|b| b.shape != [cout]) {
            return Some("bias shape".into());
        }
        let mut want = vec![n, cout];
        for (i, (inp, k)) in [(h, kh), (wd, kw)].into_iter().enumerate() {
            let span = self.dilation[i] * (k as i64 - 1) + 1;
            let padded = inp as i64 + 2 * self.padding[i];
            if padded < span {
                return Some("padded input smaller than the kernel".into());
            }
            want.push(((padded - span) / self.stride[i] + 1) as usize);
        }
        (o.shape != want).then(|| format!("out shape {:?}, want {want:?}", o.shape))
    }
    fn reference(&self, mem: &[Vec<u8>]) -> Vec<Acc> {
        let rd = |v: &View, idx: &[usize]| match decode(v.dtype, bytes_at(mem, v, at(v, idx))) {
            V::F(f) => f,
            x => panic!("{x:?}"),
        };
        let (c, h, wd) = (
            self.x.shape[1],
            self.x.shape[2] as i64,
            self.x.shape[3] as i64,
        );
        let (cout, kh, kw) = (self.w.shape[0], self.w.shape[2], self.w.shape[3]);
        let m = cout / c;
        let (s, p, d) = (&self.stride, &self.padding, &self.dilation);
        let o = &self.out.shape;
        let mut acc = vec![Acc::default(); o.iter().product()];
        for (e, idx) in indices(o).iter().enumerate() {
            let (n, co, i, j) = (idx[0], idx[1], idx[2] as i64, idx[3] as i64);
            for a in 0..kh {
                for b in 0..kw {
                    let (y, x) = (
                        i * s[0] - p[0] + a as i64 * d[0],
                        j * s[1] - p[1] + b as i64 * d[1],
                    );
                    if y < 0 || y >= h || x < 0 || x >= wd {
                        continue;
                    }
                    let xv = rd(&self.x, &[n, co / m, y as usize, x as usize]);
                    acc[e].add(xv * rd(&self.w, &[co, 0, a, b]));
                }
            }
            if let Some(bv) = &self.b {
                acc[e].add(rd(bv, &[co]));
            }
        }
        acc
    }
}

fn gen_dw(rng: &mut Rng) -> DwCase {
    let n = if rng.pct(5) {
        0
    } else {
        1 + rng.below(2) as usize
    };
    let c = 1 + rng.below(4) as usize;
    let mut cout = c * (1 + rng.below(3) as usize);
    if rng.pct(3) {
        cout += 1;
    }
    let (h, w) = (1 + rng.below(7) as usize, 1 + rng.below(7) as usize);
    let (kh, kw) = (1 + rng.below(3) as usize, 1 + rng.below(3) as usize);
    let stride = vec![1 + rng.below(3) as i64, 1 + rng.below(2) as i64];
    let dilation = vec![1 + rng.below(2) as i64, 1 + rng.below(2) as i64];
    let mut padding = vec![rng.below(3) as i64, rng.below(3) as i64];
    // Keep most cases valid: enough padding for the dilated kernel.
    for (i, (inp, k)) in [(h, kh), (w, kw)].into_iter().enumerate() {
        let span = dilation[i] * (k as i64 - 1) + 1;
        while (inp as i64 + 2 * padding[i]) < span && rng.pct(90) {
            padding[i] += 1;
        }
    }
    let mut oshape = vec![n, cout];
    for (i, (inp, k)) in [(h, kh), (w, kw)].into_iter().enumerate() {
        let span = dilation[i] * (k as i64 - 1) + 1;
        oshape.push(((inp as i64 + 2 * padding[i] - span).max(0) / stride[i] + 1) as usize);
    }
    if rng.pct(3) {
        oshape[3] += 1;
    }
    let mut kernel = vec![kh as i64, kw as i64];
    if rng.pct(4) {
        kernel[rng.below(2) as usize] += 1;
    }
    let mut stride = stride;
    if rng.pct(2) {
        stride[0] = 0;
    }
    if rng.pct(3) {
        padding = vec![padding[0], padding[0], padding[1], padding[1]];
    }
    let wdim1 = if rng.pct(3) { 2 } else { 1 };
    let d = rng.pick(&CONV_LIST);
    let (wd, bd, od) = (
        pick_conv_dtype(rng, d, 95),
        pick_conv_dtype(rng, d, 95),
        pick_conv_dtype(rng, d, 95),
    );
    let x = gen_view(rng, &[n, c, h, w], d, 0, true);
    let wv = gen_view(rng, &[cout, wdim1, kh, kw], wd, 1, true);
    let b = rng.pct(70).then(|| {
        let bs = if rng.pct(3) { cout + 1 } else { cout };
        gen_view(rng, &[bs], bd, 2, true)
    });
    let out = gen_view(rng, &oshape, od, 3, false);
    let mut case = DwCase {
        x,
        w: wv,
        b,
        out,
        kernel,
        stride,
        padding,
        dilation,
    };
    if case.b.is_none() {
        case.out.storage = 2;
    }
    case
}

const DW_PY: &str = "x, w, b, at = a
at = at.tolist()
out = F.conv2d(x.double(), w.double(), None if b is None else b.double(), stride=at[0:2], padding=at[2:4], dilation=at[4:6], groups=x.shape[1])";

#[test]
fn conv_depthwise2d_matches_model_and_torch() {
    let mut rng = Rng::new(0xD3E_0005);
    let mut batch = Batch::new();
    let prog = batch.program(DW_PY);
    let (mut st, mut failures, mut pending) = (Stats::default(), vec![], vec![]);
    for i in 0..400 {
        let case = gen_dw(&mut rng);
        let mut mem = storages(&mut rng, &case.views());
        let mut ins = vec![&case.x, &case.w];
        ins.extend(case.b.as_ref());
        fill_conv(&mut rng, &mut mem, &ins);
        let mut dev = Dev::new(&mem);
        let x = dev.tensor(&case.x, NCHW);
        let w = dev.tensor(&case.w, NCHW);
        let b = dev.opt_tensor(case.b.as_ref(), ND);
        let o = dev.tensor(&case.out, NCHW);
        let ks = dev.ints(&case.kernel);
        let s = dev.ints(&case.stride);
        let p = dev.ints(&case.padding);
        let dl = dev.ints(&case.dilation);
        let cube = (i % 3) as i8;
        let r = dev.call(
            // SAFETY: live handles.
            |ws, ex| unsafe {
                convolution::aclnnConvDepthwise2dGetWorkspaceSize(
                    x, w, ks, b, s, p, dl, o, cube, ws, ex,
                )
            },
            convolution::aclnnConvDepthwise2d,
        );
        let after = match (case.refusal(), r) {
            (Some(_), Err((INVALID, _))) => {
                st.refused += 1;
                continue;
            }
            (None, Ok(_)) => dev.read(),
            (w, r) => {
                failures.push(format!("#{i}: model {w:?}, library {r:?}\n{case:?}"));
                continue;
            }
        };
        st.ran += 1;
        let acc = case.reference(&mem);
        let got = out_values(&after, &case.out);
        st.elements += got.len();
        let what = || format!("#{i} {case:?}");
        if let Err(e) = check_conv(&acc, &got, case.out.dtype, &what)
            .and_then(|()| check_untouched(&mem, &after, &case.out))
        {
            failures.push(e);
            continue;
        }
        let attrs: Vec<i64> = [&case.stride[..], &case.padding, &case.dilation].concat();
        let c = batch.case(
            prog,
            vec![
                Some(array_of(&mem, &case.x)),
                Some(array_of(&mem, &case.w)),
                case.b.as_ref().map(|b| array_of(&mem, b)),
                Some(Array::i64s(&[6], &attrs)),
            ],
        );
        pending.push((c, i, acc, case));
    }
    if let Some(results) = batch.run("conv_depthwise2d") {
        for (c, i, acc, case) in &pending {
            model_vs_torch(&results[*c], acc, &mut st, &mut failures, &|| {
                format!("#{i} {case:?}")
            });
        }
    }
    assert!(
        failures.is_empty(),
        "{} ConvDepthwise2d cases failed; the first ones:\n\n{}",
        failures.len(),
        failures[..failures.len().min(4)].join("\n\n")
    );
    eprintln!("conv_depthwise2d: {st:?}");
    assert!(st.ran >= 200 && st.refused >= 40, "{st:?}");
}

// ---------------------------------------------------------------------------------------
// Errors, named: statuses, and messages that name the API and the parameter
// ---------------------------------------------------------------------------------------

/// A contiguous view of `shape` over its own storage `storage`.
fn cv(shape: &[usize], d: DType, storage: usize) -> View {
    View::contiguous(shape, d, storage)
}

/// Zeroed host storages for `views`.
fn zeroed(views: &[&View]) -> Vec<Vec<u8>> {
    let n = views.iter().map(|v| v.storage + 1).max().unwrap_or(0);
    (0..n).map(|s| vec![0u8; bytes_for(views, s)]).collect()
}

/// The call must be refused with `status`, its message naming `api` (the phase-1 name)
/// and every needle.
#[track_caller]
fn refused(r: Result<u64, (i32, String)>, status: i32, api: &str, needles: &[&str]) {
    match r {
        Ok(_) => panic!("{api}: accepted; expected {status} naming {needles:?}"),
        Err((st, msg)) => {
            assert_eq!(st, status, "{api}: {msg}");
            assert!(
                msg.contains(api),
                "{api}: the message does not name the API: {msg}"
            );
            for n in needles {
                assert!(
                    msg.contains(n),
                    "{api}: the message does not name {n:?}: {msg}"
                );
            }
        }
    }
}

/// A scalar of a float/int value in dtype `d`.
fn scal(d: DType, x: f64) -> Sc {
    let v = if is_int(d) { V::I(x as i128) } else { V::F(x) };
    Sc {
        dtype: d,
        bytes: enc(d, v),
    }
}

#[test]
fn clamp_tensor_errors_name_the_parameter() {
    use clamp::*;
    let (s23, s3, s4) = (&[2usize, 3][..], &[3usize][..], &[4usize][..]);
    let views = [
        cv(s23, F32, 0),
        cv(s3, F32, 1),
        cv(s3, F32, 2),
        cv(s23, F32, 3),
        cv(s23, Bool, 4),
        cv(s3, C64, 5),
        cv(s23, S32, 6),
        cv(s4, F32, 7),
        cv(&[3, 2], F32, 8),
        cv(s3, U16, 9),
        cv(&[2, 2, 3], F32, 10),
    ];
    let vr: Vec<&View> = views.iter().collect();
    let mut dev = Dev::new(&zeroed(&vr));
    let t: Vec<*mut aclTensor> = views.iter().map(|v| dev.tensor(v, ND)).collect();
    let (x, lo, hi, out, xb, c64, os32, lo4, out32, u16b, big) = (
        t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7], t[8], t[9], t[10],
    );
    let n = null_mut::<aclTensor>();
    let ct = "aclnnClampTensorGetWorkspaceSize";
    macro_rules! ct {
        ($a:expr, $b:expr, $c:expr, $d:expr) => {
            // SAFETY: live handles or NULL.
            dev.call(
                |ws, ex| unsafe { aclnnClampTensorGetWorkspaceSize($a, $b, $c, $d, ws, ex) },
                aclnnClampTensor,
            )
        };
    }
    // both bounds NULL: ACLNN_ERR_PARAM_NULLPTR naming both
    refused(
        ct!(x, n, n, out),
        NULLPTR,
        ct,
        &["clipValueMin", "clipValueMax"],
    );
    refused(ct!(n, lo, hi, out), NULLPTR, ct, &["'self'"]);
    refused(ct!(x, lo, hi, n), NULLPTR, ct, &["'out'"]);
    // dtypes
    refused(ct!(xb, lo, hi, out), INVALID, ct, &["'self'", "BOOL"]);
    refused(ct!(x, c64, hi, out), INVALID, ct, &["'clipValueMin'"]);
    refused(ct!(x, lo, u16b, out), INVALID, ct, &["'clipValueMax'"]);
    refused(ct!(x, lo, hi, xb), INVALID, ct, &["'out'"]);
    refused(
        ct!(x, lo, hi, os32),
        INVALID,
        ct,
        &["'out'", "cannot be cast"],
    );
    // shapes: a bound that does not broadcast, an out of another shape
    refused(
        ct!(x, lo4, hi, out),
        INVALID,
        ct,
        &["clipValueMin", "[4]", "broadcast"],
    );
    refused(ct!(x, lo, hi, out32), INVALID, ct, &["'out'", "[3, 2]"]);
    // the single-bound forms: their bound is required
    let cm = "aclnnClampMinTensorGetWorkspaceSize";
    // SAFETY (all calls below): live handles or NULL.
    refused(
        dev.call(
            |ws, ex| unsafe { aclnnClampMinTensorGetWorkspaceSize(x, n, out, ws, ex) },
            aclnnClampMinTensor,
        ),
        NULLPTR,
        cm,
        &["'clipValueMin'"],
    );
    refused(
        dev.call(
            |ws, ex| unsafe { aclnnClampMinTensorGetWorkspaceSize(x, lo4, out, ws, ex) },
            aclnnClampMinTensor,
        ),
        INVALID,
        cm,
        &["clipValueMin"],
    );
    let cx = "aclnnClampMaxTensorGetWorkspaceSize";
    refused(
        dev.call(
            |ws, ex| unsafe { aclnnClampMaxTensorGetWorkspaceSize(x, n, out, ws, ex) },
            aclnnClampMaxTensor,
        ),
        NULLPTR,
        cx,
        &["'max'"],
    );
    refused(
        dev.call(
            |ws, ex| unsafe { aclnnClampMaxTensorGetWorkspaceSize(x, c64, out, ws, ex) },
            aclnnClampMaxTensor,
        ),
        INVALID,
        cx,
        &["'max'"],
    );
    let im = "aclnnInplaceClampMinTensorGetWorkspaceSize";
    refused(
        dev.call(
            |ws, ex| unsafe { aclnnInplaceClampMinTensorGetWorkspaceSize(n, lo, ws, ex) },
            aclnnInplaceClampMinTensor,
        ),
        NULLPTR,
        im,
        &["'selfRef'"],
    );
    refused(
        dev.call(
            |ws, ex| unsafe { aclnnInplaceClampMinTensorGetWorkspaceSize(x, n, ws, ex) },
            aclnnInplaceClampMinTensor,
        ),
        NULLPTR,
        im,
        &["'clipValueMin'"],
    );
    // in place: a bound that would grow selfRef, a result selfRef cannot hold
    refused(
        dev.call(
            |ws, ex| unsafe { aclnnInplaceClampMinTensorGetWorkspaceSize(x, big, ws, ex) },
            aclnnInplaceClampMinTensor,
        ),
        INVALID,
        im,
        &["'selfRef'", "[2, 3]"],
    );
    let ix = "aclnnInplaceClampMaxTensorGetWorkspaceSize";
    refused(
        dev.call(
            |ws, ex| unsafe { aclnnInplaceClampMaxTensorGetWorkspaceSize(os32, hi, ws, ex) },
            aclnnInplaceClampMaxTensor,
        ),
        INVALID,
        ix,
        &["'selfRef'", "cannot be cast"],
    );
    refused(
        dev.call(
            |ws, ex| unsafe { aclnnInplaceClampMaxTensorGetWorkspaceSize(x, n, ws, ex) },
            aclnnInplaceClampMaxTensor,
        ),
        NULLPTR,
        ix,
        &["'max'"],
    );
}

#[test]
fn clamp_scalar_errors_name_the_parameter() {
    use clamp::*;
    let views = [
        cv(&[3], F32, 0),
        cv(&[3], F32, 1),
        cv(&[3], S32, 2),
        cv(&[2, 3], F32, 3),
    ];
    let vr: Vec<&View> = views.iter().collect();
    let mut dev = Dev::new(&zeroed(&vr));
    let (x, out, xi, out23) = (
        dev.tensor(&views[0], ND),
        dev.tensor(&views[1], ND),
        dev.tensor(&views[2], ND),
        dev.tensor(&views[3], ND),
    );
    let half = dev.scalar(&scal(F32, 2.5));
    let u16s = dev.scalar(&Sc::int(U16, 1));
    let b = dev.scalar(&Sc::int(Bool, 1));
    let n = null_mut::<aclScalar>();
    // SAFETY (every call): live handles or NULL.
    let c = "aclnnClampGetWorkspaceSize";
    refused(
        dev.call(
            |ws, ex| unsafe { aclnnClampGetWorkspaceSize(x, n, n, out, ws, ex) },
            aclnnClamp,
        ),
        NULLPTR,
        c,
        &["clipValueMin", "clipValueMax"],
    );
    refused(
        dev.call(
            |ws, ex| unsafe { aclnnClampGetWorkspaceSize(x, b, n, out, ws, ex) },
            aclnnClamp,
        ),
        INVALID,
        c,
        &["'clipValueMin'"],
    );
    refused(
        dev.call(
            |ws, ex| unsafe { aclnnClampGetWorkspaceSize(x, half, half, out23, ws, ex) },
            aclnnClamp,
        ),
        INVALID,
        c,
        &["'out'", "[2, 3]"],
    );
    let cm = "aclnnClampMinGetWorkspaceSize";
    refused(
        dev.call(
            |ws, ex| unsafe { aclnnClampMinGetWorkspaceSize(x, n, out, ws, ex) },
            aclnnClampMin,
        ),
        NULLPTR,
        cm,
        &["'clipValueMin'"],
    );
    refused(
        dev.call(
            |ws, ex| unsafe { aclnnClampMinGetWorkspaceSize(x, u16s, out, ws, ex) },
            aclnnClampMin,
        ),
        INVALID,
        cm,
        &["'clipValueMin'", "UINT16"],
    );
    let cx = "aclnnClampMaxGetWorkspaceSize";
    refused(
        dev.call(
            |ws, ex| unsafe { aclnnClampMaxGetWorkspaceSize(x, n, out, ws, ex) },
            aclnnClampMax,
        ),
        NULLPTR,
        cx,
        &["'clipValueMax'"],
    );
    // an s32 self with a float bound computes in f32, which an s32 out cannot hold
    let o32 = dev.tensor(&views[2], ND);
    refused(
        dev.call(
            |ws, ex| unsafe { aclnnClampMaxGetWorkspaceSize(xi, half, o32, ws, ex) },
            aclnnClampMax,
        ),
        INVALID,
        cx,
        &["'out'", "cannot be cast"],
    );
    let ix = "aclnnInplaceClampMaxGetWorkspaceSize";
    refused(
        dev.call(
            |ws, ex| unsafe { aclnnInplaceClampMaxGetWorkspaceSize(xi, half, ws, ex) },
            aclnnInplaceClampMax,
        ),
        INVALID,
        ix,
        &["'selfRef'", "cannot be cast"],
    );
    refused(
        dev.call(
            |ws, ex| unsafe { aclnnInplaceClampMaxGetWorkspaceSize(x, n, ws, ex) },
            aclnnInplaceClampMax,
        ),
        NULLPTR,
        ix,
        &["'clipValueMax'"],
    );
    refused(
        dev.call(
            |ws, ex| unsafe { aclnnInplaceClampMaxGetWorkspaceSize(null_mut(), half, ws, ex) },
            aclnnInplaceClampMax,
        ),
        NULLPTR,
        ix,
        &["'selfRef'"],
    );
}

#[test]
fn round_decimals_errors_name_the_parameter() {
    use round::*;
    let views = [
        cv(&[2, 3], F16, 0),
        cv(&[2, 3], F32, 1),
        cv(&[3, 2], F16, 2),
        cv(&[2, 3], S8, 3),
        cv(&[2, 3], Bool, 4),
    ];
    let vr: Vec<&View> = views.iter().collect();
    let mut dev = Dev::new(&zeroed(&vr));
    let t: Vec<*mut aclTensor> = views.iter().map(|v| dev.tensor(v, ND)).collect();
    let (x, o32, o32t, s8, b) = (t[0], t[1], t[2], t[3], t[4]);
    let n = null_mut::<aclTensor>();
    let r = "aclnnRoundDecimalsGetWorkspaceSize";
    // SAFETY (every call): live handles or NULL.
    let mut call = |a, o, d| {
        dev.call(
            |ws, ex| unsafe { aclnnRoundDecimalsGetWorkspaceSize(a, d, o, ws, ex) },
            aclnnRoundDecimals,
        )
    };
    refused(call(n, o32, 1), NULLPTR, r, &["'self'"]);
    refused(call(x, n, 1), NULLPTR, r, &["'out'"]);
    refused(call(s8, s8, 1), INVALID, r, &["'self'", "INT8"]);
    refused(call(x, o32, 1), INVALID, r, &["out", "FLOAT16"]);
    refused(call(x, o32t, 1), INVALID, r, &["out"]);
    let _ = o32t;
    let ir = "aclnnInplaceRoundDecimalsGetWorkspaceSize";
    refused(
        dev.call(
            |ws, ex| unsafe { aclnnInplaceRoundDecimalsGetWorkspaceSize(n, 2, ws, ex) },
            aclnnInplaceRoundDecimals,
        ),
        NULLPTR,
        ir,
        &["'selfRef'"],
    );
    refused(
        dev.call(
            |ws, ex| unsafe { aclnnInplaceRoundDecimalsGetWorkspaceSize(b, 2, ws, ex) },
            aclnnInplaceRoundDecimals,
        ),
        INVALID,
        ir,
        &["'selfRef'", "BOOL"],
    );
}

#[test]
fn conv_tbc_errors_name_the_parameter() {
    use convolution::*;
    // self (T 5, B 2, Cin 3), weight (K 2, 3, Cout 4), bias (4), output (5 + 2·1 − 2 + 1, 2, 4)
    let views = [
        cv(&[5, 2, 3], F32, 0),
        cv(&[2, 3, 4], F32, 1),
        cv(&[4], F32, 2),
        cv(&[6, 2, 4], F32, 3),
        cv(&[2, 2, 4], F32, 4),
        cv(&[5], F32, 5),
        cv(&[6, 2, 4], F16, 6),
        cv(&[2, 3, 4], F16, 7),
        cv(&[5, 2, 3, 1], F32, 8),
        cv(&[5, 2, 3], F64, 9),
        cv(&[7, 2, 4], F32, 10),
    ];
    let vr: Vec<&View> = views.iter().collect();
    let mut dev = Dev::new(&zeroed(&vr));
    let t: Vec<*mut aclTensor> = views.iter().map(|v| dev.tensor(v, ND)).collect();
    let (x, w, b, o) = (t[0], t[1], t[2], t[3]);
    let (w_cin2, b5, o16, w16, x4, x64, o7) = (t[4], t[5], t[6], t[7], t[8], t[9], t[10]);
    let x_nchw = dev.tensor(&cv(&[5, 2, 3], F32, 0), NCHW);
    let n = null_mut::<aclTensor>();
    let api = "aclnnConvTbcGetWorkspaceSize";
    // SAFETY (every call): live handles or NULL.
    let mut call = |x, w, b, pad, o, cube| {
        dev.call(
            |ws, ex| unsafe { aclnnConvTbcGetWorkspaceSize(x, w, b, pad, o, cube, ws, ex) },
            aclnnConvTbc,
        )
    };
    assert_eq!(
        call(x, w, b, 1, o, 0).map(|_| ()),
        Ok(()),
        "the baseline is valid"
    );
    refused(call(x, w, n, 1, o, 0), NULLPTR, api, &["'bias'"]);
    refused(call(n, w, b, 1, o, 0), NULLPTR, api, &["'self'"]);
    refused(call(x, n, b, 1, o, 0), NULLPTR, api, &["'weight'"]);
    refused(call(x, w, b, 1, n, 0), NULLPTR, api, &["'output'"]);
    for pad in [-1, 256, i64::MAX, i64::MIN] {
        refused(call(x, w, b, pad, o, 0), INVALID, api, &["pad", "[0, 255]"]);
    }
    refused(
        call(x, w_cin2, b, 1, o, 0),
        INVALID,
        api,
        &["weight", "input channels"],
    );
    refused(call(x, w, b5, 1, o, 0), INVALID, api, &["bias", "[5]"]);
    refused(
        call(x, w, b, 1, o16, 0),
        INVALID,
        api,
        &["'output'", "FLOAT16"],
    );
    refused(
        call(x, w16, b, 1, o, 0),
        INVALID,
        api,
        &["'weight'", "FLOAT16"],
    );
    refused(
        call(x64, w, b, 1, o, 0),
        INVALID,
        api,
        &["'self'", "DOUBLE"],
    );
    refused(call(x4, w, b, 1, o, 0), INVALID, api, &["self", "4 dims"]);
    refused(
        call(x, w, b, 1, o7, 0),
        INVALID,
        api,
        &["output", "[7, 2, 4]", "[6, 2, 4]"],
    );
    refused(call(x, w, b, 1, o, 9), INVALID, api, &["cubeMathType"]);
    refused(
        call(x_nchw, w, b, 1, o, 0),
        INVALID,
        api,
        &["'self'", "NCHW"],
    );
}

#[test]
fn conv_depthwise2d_errors_name_the_parameter() {
    use convolution::*;
    // self (1, 2, 5, 5), weight (4, 1, 3, 3), bias (4), out (1, 4, 5, 5) with padding [1, 1]
    let views = [
        cv(&[1, 2, 5, 5], F32, 0),
        cv(&[4, 1, 3, 3], F32, 1),
        cv(&[4], F32, 2),
        cv(&[1, 4, 5, 5], F32, 3),
        cv(&[4, 2, 3, 3], F32, 4),
        cv(&[3, 1, 3, 3], F32, 5),
        cv(&[3], F32, 6),
        cv(&[1, 4, 5, 4], F32, 7),
        cv(&[4], F16, 8),
        cv(&[1, 4, 5, 5], BF16, 9),
    ];
    let vr: Vec<&View> = views.iter().collect();
    let mut dev = Dev::new(&zeroed(&vr));
    let t: Vec<*mut aclTensor> = views.iter().map(|v| dev.tensor(v, NCHW)).collect();
    let b = dev.tensor(&views[2], ND);
    let b3 = dev.tensor(&views[6], ND);
    let b16 = dev.tensor(&views[8], ND);
    let (x, w, o, w2, w3, o_bad, o_bf) = (t[0], t[1], t[3], t[4], t[5], t[7], t[9]);
    let x_nd = dev.tensor(&views[0], ND);
    let ks = dev.ints(&[3, 3]);
    let ks_bad = dev.ints(&[3, 2]);
    let one = dev.ints(&[1, 1]);
    let zero = dev.ints(&[0, 1]);
    let pad4 = dev.ints(&[1, 1, 1, 1]);
    let n = null_mut::<aclTensor>();
    let na = null_mut::<aclIntArray>();
    let api = "aclnnConvDepthwise2dGetWorkspaceSize";
    // SAFETY (every call): live handles or NULL.
    let mut call = |x, w, ks, b, s, p, d, o| {
        dev.call(
            |ws, ex| unsafe {
                aclnnConvDepthwise2dGetWorkspaceSize(x, w, ks, b, s, p, d, o, 0, ws, ex)
            },
            aclnnConvDepthwise2d,
        )
    };
    assert_eq!(
        call(x, w, ks, b, one, one, one, o).map(|_| ()),
        Ok(()),
        "the baseline is valid"
    );
    assert_eq!(
        call(x, w, ks, n, one, one, one, o).map(|_| ()),
        Ok(()),
        "bias may be NULL"
    );
    refused(
        call(x, w, na, b, one, one, one, o),
        NULLPTR,
        api,
        &["'kernelSize'"],
    );
    refused(
        call(x, w, ks, b, na, one, one, o),
        NULLPTR,
        api,
        &["'stride'"],
    );
    refused(
        call(n, w, ks, b, one, one, one, o),
        NULLPTR,
        api,
        &["'self'"],
    );
    refused(
        call(x, w, ks_bad, b, one, one, one, o),
        INVALID,
        api,
        &["kernelSize", "[3, 2]"],
    );
    refused(
        call(x, w2, ks, b, one, one, one, o),
        INVALID,
        api,
        &["weight", "second dim must be 1"],
    );
    refused(
        call(x, w3, ks, b3, one, one, one, o),
        INVALID,
        api,
        &["weight", "multiple of self"],
    );
    refused(
        call(x, w, ks, b3, one, one, one, o),
        INVALID,
        api,
        &["bias", "[3]"],
    );
    refused(
        call(x, w, ks, b16, one, one, one, o),
        INVALID,
        api,
        &["'bias'", "FLOAT16"],
    );
    refused(
        call(x, w, ks, b, one, one, one, o_bf),
        INVALID,
        api,
        &["'out'", "BF16"],
    );
    refused(
        call(x, w, ks, b, one, pad4, one, o),
        INVALID,
        api,
        &["padding", "4 values"],
    );
    refused(
        call(x, w, ks, b, zero, one, one, o),
        INVALID,
        api,
        &["stride", "> 0"],
    );
    refused(
        call(x, w, ks, b, one, one, one, o_bad),
        INVALID,
        api,
        &["'out'", "[1, 4, 5, 4]"],
    );
    refused(
        call(x_nd, w, ks, b, one, one, one, o),
        INVALID,
        api,
        &["'self'", "ND"],
    );
}

// ---------------------------------------------------------------------------------------
// Special values, named
// ---------------------------------------------------------------------------------------

/// Contiguous storages holding `vals` (one per view, in order); runs `p1`/`p2` and returns
/// the values of view `out` (an index into `views`).
fn run_values(
    views: &[View],
    vals: &[&[V]],
    out: usize,
    formats: &[i32],
    call: impl FnOnce(&mut Dev, &[*mut aclTensor]) -> Result<u64, (i32, String)>,
) -> Vec<V> {
    let vr: Vec<&View> = views.iter().collect();
    let mut mem = zeroed(&vr);
    for (v, xs) in views.iter().zip(vals) {
        for (k, idx) in indices(&v.shape).iter().enumerate() {
            put(&mut mem, v, at(v, idx), &enc(v.dtype, xs[k]));
        }
    }
    let mut dev = Dev::new(&mem);
    let t: Vec<*mut aclTensor> = views
        .iter()
        .zip(formats.iter().chain(std::iter::repeat(&ND)))
        .map(|(v, &f)| dev.tensor(v, f))
        .collect();
    call(&mut dev, &t).unwrap_or_else(|e| panic!("refused: {e:?}"));
    let after = dev.read();
    let o = &views[out];
    indices(&o.shape)
        .iter()
        .map(|idx| decode(o.dtype, bytes_at(&after, o, at(o, idx))))
        .collect()
}

fn fl(v: &[f64]) -> Vec<V> {
    v.iter().map(|&x| V::F(x)).collect()
}
fn it(v: &[i128]) -> Vec<V> {
    v.iter().map(|&x| V::I(x)).collect()
}

#[track_caller]
fn assert_values(got: &[V], want: &[V]) {
    assert!(
        got.len() == want.len() && got.iter().zip(want).all(|(g, w)| same(*g, *w)),
        "got {got:?}\nwant {want:?}"
    );
}

#[test]
fn clamp_tensor_special_values() {
    use clamp::*;
    let (nan, inf) = (f64::NAN, f64::INFINITY);
    // NaN in self, min or max gives NaN; ±inf bounds; -0 against +0; min > max gives max.
    let x = fl(&[nan, 1.0, 1.0, -0.0, 0.0, 5.0, -inf, inf]);
    let lo = fl(&[0.0, nan, 0.0, 0.0, -0.0, 7.0, -inf, 0.0]);
    let hi = fl(&[1.0, 2.0, nan, 1.0, -0.0, 3.0, 1.0, inf]);
    let v = [
        cv(&[8], F32, 0),
        cv(&[8], F32, 1),
        cv(&[8], F32, 2),
        cv(&[8], F32, 3),
    ];
    let got = run_values(&v, &[&x, &lo, &hi], 3, &[], |d, t| {
        // SAFETY: live handles.
        d.call(
            |ws, ex| unsafe { aclnnClampTensorGetWorkspaceSize(t[0], t[1], t[2], t[3], ws, ex) },
            aclnnClampTensor,
        )
    });
    assert_values(&got, &fl(&[nan, nan, nan, 0.0, -0.0, 3.0, -inf, inf]));
    // Bool bounds on an s8 self (computed in s8), both broadcast: (3, 1) and (1, 4) to (3, 4).
    let x = it(&[-128, 0, 1, 127, 5, -1, 2, 0, 1, 1, 1, 1]);
    let lo = vec![V::B(true), V::B(false), V::B(true)];
    let hi = vec![V::B(true), V::B(true), V::B(false), V::B(true)];
    let v = [
        cv(&[3, 4], S8, 0),
        cv(&[3, 1], Bool, 1),
        cv(&[1, 4], Bool, 2),
        cv(&[3, 4], S8, 3),
    ];
    let got = run_values(&v, &[&x, &lo, &hi], 3, &[], |d, t| {
        // SAFETY: live handles.
        d.call(
            |ws, ex| unsafe { aclnnClampTensorGetWorkspaceSize(t[0], t[1], t[2], t[3], ws, ex) },
            aclnnClampTensor,
        )
    });
    // row 0: clamp to [1, hi]; row 1: [0, hi]; row 2: [1, hi]; hi = [1, 1, 0, 1]
    assert_values(&got, &it(&[1, 1, 0, 1, 1, 0, 0, 0, 1, 1, 0, 1]));
    // Integer extremes; a u8 self with an s8 bound promotes to s16, held by an s64 out.
    let x = it(&[0, 255, 128, 7]);
    let hi = it(&[-128, 127, -1, 7]);
    let v = [cv(&[4], U8, 0), cv(&[4], S8, 1), cv(&[4], S64, 2)];
    let got = run_values(&v, &[&x, &hi], 2, &[], |d, t| {
        // SAFETY: live handles.
        d.call(
            |ws, ex| unsafe { aclnnClampMaxTensorGetWorkspaceSize(t[0], t[1], t[2], ws, ex) },
            aclnnClampMaxTensor,
        )
    });
    assert_values(&got, &it(&[-128, 127, -1, 7]));
    // In place with an f16 selfRef and an f64 bound: computed in f64, rounded into f16.
    let x = fl(&[0.5, 2.0, -3.0]);
    let lo = fl(&[1.0 / 3.0]);
    let v = [cv(&[3], F16, 0), cv(&[1], F64, 1)];
    let got = run_values(&v, &[&x, &lo], 0, &[], |d, t| {
        // SAFETY: live handles.
        d.call(
            |ws, ex| unsafe { aclnnInplaceClampMinTensorGetWorkspaceSize(t[0], t[1], ws, ex) },
            aclnnInplaceClampMinTensor,
        )
    });
    assert_values(&got, &fl(&[0.5, 2.0, round_float(1.0 / 3.0, F16)]));
    // Empty: nothing to do, workspace 0.
    let v = [cv(&[0, 3], F32, 0), cv(&[3], F32, 1), cv(&[0, 3], F32, 2)];
    let got = run_values(&v, &[&[], &fl(&[0.0; 3])], 2, &[], |d, t| {
        // SAFETY: live handles.
        let r = d.call(
            |ws, ex| unsafe { aclnnClampMinTensorGetWorkspaceSize(t[0], t[1], t[2], ws, ex) },
            aclnnClampMinTensor,
        );
        assert_eq!(r, Ok(0));
        r
    });
    assert!(got.is_empty());
}

#[test]
fn clamp_scalar_special_values() {
    use clamp::*;
    let (nan, inf) = (f64::NAN, f64::INFINITY);
    let x = fl(&[nan, 1.0, -0.0, 0.0, -inf, inf, 0.5]);
    let v = [cv(&[7], F32, 0), cv(&[7], F32, 1)];
    let run = |lo: Option<Sc>, hi: Option<Sc>, which: u8| {
        run_values(&v, &[&x], 1, &[], |d, t| {
            let (l, h) = (d.opt_scalar(lo.as_ref()), d.opt_scalar(hi.as_ref()));
            // SAFETY: live handles or NULL.
            match which {
                0 => d.call(
                    |ws, ex| unsafe { aclnnClampGetWorkspaceSize(t[0], l, h, t[1], ws, ex) },
                    aclnnClamp,
                ),
                1 => d.call(
                    |ws, ex| unsafe { aclnnClampMinGetWorkspaceSize(t[0], l, t[1], ws, ex) },
                    aclnnClampMin,
                ),
                _ => d.call(
                    |ws, ex| unsafe { aclnnClampMaxGetWorkspaceSize(t[0], h, t[1], ws, ex) },
                    aclnnClampMax,
                ),
            }
        })
    };
    // a NaN bound gives NaN everywhere, as a NaN bound tensor does
    assert_values(&run(Some(scal(F32, nan)), None, 1), &fl(&[nan; 7]));
    assert_values(&run(None, Some(scal(F64, nan)), 2), &fl(&[nan; 7]));
    // max(-0, +0) = +0, min(+0, -0) = -0
    assert_values(
        &run(Some(scal(F32, 0.0)), None, 1),
        &fl(&[nan, 1.0, 0.0, 0.0, 0.0, inf, 0.5]),
    );
    assert_values(
        &run(None, Some(scal(F32, -0.0)), 2),
        &fl(&[nan, -0.0, -0.0, -0.0, -inf, -0.0, -0.0]),
    );
    // min > max: max everywhere but NaN
    assert_values(
        &run(Some(scal(S32, 3.0)), Some(scal(S64, -2.0)), 0),
        &fl(&[nan, -2.0, -2.0, -2.0, -2.0, -2.0, -2.0]),
    );
    // InplaceClampMax on an s16 selfRef with an s64 bound past its range (saturates to 32767)
    let xs = it(&[-32768, 32767, 0]);
    let v = [cv(&[3], S16, 0)];
    let got = run_values(&v, &[&xs], 0, &[], |d, t| {
        let h = d.scalar(&Sc::int(S64, 1 << 40));
        // SAFETY: live handles.
        d.call(
            |ws, ex| unsafe { aclnnInplaceClampMaxGetWorkspaceSize(t[0], h, ws, ex) },
            aclnnInplaceClampMax,
        )
    });
    assert_values(&got, &xs);
}

#[test]
fn round_decimals_special_values() {
    use round::*;
    let (nan, inf) = (f64::NAN, f64::INFINITY);
    let run = |d: DType, xs: &[V], decimals: i64, inplace: bool| {
        let v = [cv(&[xs.len()], d, 0), cv(&[xs.len()], d, 1)];
        run_values(&v, &[xs], if inplace { 0 } else { 1 }, &[], |dev, t| {
            // SAFETY: live handles.
            if inplace {
                dev.call(
                    |ws, ex| unsafe {
                        aclnnInplaceRoundDecimalsGetWorkspaceSize(t[0], decimals, ws, ex)
                    },
                    aclnnInplaceRoundDecimals,
                )
            } else {
                dev.call(
                    |ws, ex| unsafe {
                        aclnnRoundDecimalsGetWorkspaceSize(t[0], decimals, t[1], ws, ex)
                    },
                    aclnnRoundDecimals,
                )
            }
        })
    };
    // halves to even, the sign of zero kept
    let x = fl(&[0.5, 1.5, 2.5, -0.5, -2.5, inf, -inf, nan, -0.0]);
    assert_values(
        &run(F32, &x, 0, false),
        &fl(&[0.0, 2.0, 2.0, -0.0, -2.0, inf, -inf, nan, -0.0]),
    );
    // 0.125·100 = 12.5 -> 12 -> 0.12 (in f64); 0.375·100 = 37.5 -> 38
    let got = run(F64, &fl(&[0.125, 0.375, -0.125]), 2, true);
    assert_values(&got, &fl(&[12.0 / 100.0, 38.0 / 100.0, -12.0 / 100.0]));
    // negative decimals: to tens, hundreds; halves to even
    assert_values(
        &run(F32, &fl(&[25.0, 35.0, -25.0, 149.0]), -1, false),
        &fl(&[20.0, 40.0, -20.0, 150.0]),
    );
    // 10^|d| past the dtype's range: NaN (inf/inf, 0·inf)
    assert_values(&run(F32, &fl(&[1.0, 0.0, -3.0]), 39, false), &fl(&[nan; 3]));
    assert_values(&run(F64, &fl(&[1.0, 0.0]), -400, false), &fl(&[nan; 2]));
    // f16 and bf16 compute in f32, rounded once: round(1.25, 1) = 1.2 -> f16 1.2001953125
    assert_values(
        &run(F16, &fl(&[1.25]), 1, false),
        &fl(&[round_float(1.2f32 as f64, F16)]),
    );
    assert_values(
        &run(BF16, &fl(&[1.25]), 1, true),
        &fl(&[round_float(1.2f32 as f64, BF16)]),
    );
    // integers: unchanged for decimals >= 0; exact for decimals < 0 (halves to even, wrapping)
    let xi = it(&[
        25,
        35,
        -25,
        -35,
        149,
        151,
        i32::MIN as i128,
        i32::MAX as i128,
    ]);
    assert_values(&run(S32, &xi, 3, false), &xi);
    assert_values(
        &run(S32, &xi, -1, false),
        &it(&[
            20,
            40,
            -20,
            -40,
            150,
            150,
            -2147483650i128 as i32 as i128,
            2147483650i128 as i32 as i128,
        ]),
    );
    assert_values(
        &run(S32, &xi, -9, true),
        &it(&[0, 0, 0, 0, 0, 0, -2_000_000_000, 2_000_000_000]),
    );
    let xl = it(&[i64::MAX as i128, i64::MIN as i128, 5, -5]);
    // |s64| < 0.93·10^19: the extremes round to ±10^19, which wraps
    let e19 = 10i128.pow(19);
    assert_values(
        &run(S64, &xl, -19, false),
        &it(&[wrap(e19, S64), wrap(-e19, S64), 0, 0]),
    );
    assert_values(&run(S64, &xl, -20, false), &it(&[0, 0, 0, 0]));
    assert_values(&run(S64, &xl, i64::MIN, false), &it(&[0, 0, 0, 0]));
    assert_values(
        &run(S64, &xl, -18, false),
        &it(&[9_000_000_000_000_000_000, -9_000_000_000_000_000_000, 0, 0]),
    );
}

#[test]
fn conv_tbc_and_depthwise_by_hand() {
    use convolution::*;
    // ConvTbc: T 3, B 1, Cin 1, Cout 1, K 2, pad 1: x = [1, 2, 3], w = [10, 1], bias 0.5
    // y[t] = 0.5 + x[t-1]·10 + x[t]·1 over t = 0..3 (zero padding)
    let v = [
        cv(&[3, 1, 1], F32, 0),
        cv(&[2, 1, 1], F32, 1),
        cv(&[1], F32, 2),
        cv(&[4, 1, 1], F32, 3),
    ];
    let got = run_values(
        &v,
        &[&fl(&[1.0, 2.0, 3.0]), &fl(&[10.0, 1.0]), &fl(&[0.5])],
        3,
        &[ND, NCL, ND, NCL],
        |d, t| {
            // SAFETY: live handles.
            d.call(
                |ws, ex| unsafe {
                    aclnnConvTbcGetWorkspaceSize(t[0], t[1], t[2], 1, t[3], 0, ws, ex)
                },
                aclnnConvTbc,
            )
        },
    );
    assert_values(&got, &fl(&[1.5, 12.5, 23.5, 30.5]));
    // ConvTbc with T = 0: every output element is the bias (as torch.conv_tbc)
    let v = [
        cv(&[0, 2, 3], F16, 0),
        cv(&[1, 3, 2], F16, 1),
        cv(&[2], F32, 2),
        cv(&[4, 2, 2], F16, 3),
    ];
    let got = run_values(
        &v,
        &[&[], &fl(&[1.0; 6]), &fl(&[-1.0, 2.5])],
        3,
        &[],
        |d, t| {
            // SAFETY: live handles.
            d.call(
                |ws, ex| unsafe {
                    aclnnConvTbcGetWorkspaceSize(t[0], t[1], t[2], 2, t[3], 0, ws, ex)
                },
                aclnnConvTbc,
            )
        },
    );
    assert_values(&got, &fl(&[-1.0, 2.5].repeat(8)));
    // ConvDepthwise2d: 2 channels, multiplier 2, 2x2 input, 1x1 kernels: out channel k is
    // input channel k/2 times weight k, plus bias k
    let x = fl(&[1.0, 2.0, 3.0, 4.0, -1.0, -2.0, -3.0, -4.0]);
    let w = fl(&[1.0, 2.0, 3.0, 0.5]);
    let b = fl(&[0.0, 1.0, 0.0, -1.0]);
    let v = [
        cv(&[1, 2, 2, 2], BF16, 0),
        cv(&[4, 1, 1, 1], BF16, 1),
        cv(&[4], BF16, 2),
        cv(&[1, 4, 2, 2], BF16, 3),
    ];
    let got = run_values(&v, &[&x, &w, &b], 3, &[NCHW, NCHW, ND, NCHW], |d, t| {
        let (ks, one, zero) = (d.ints(&[1, 1]), d.ints(&[1, 1]), d.ints(&[0, 0]));
        // SAFETY: live handles.
        d.call(
            |ws, ex| unsafe {
                aclnnConvDepthwise2dGetWorkspaceSize(
                    t[0], t[1], ks, t[2], one, zero, one, t[3], 1, ws, ex,
                )
            },
            aclnnConvDepthwise2d,
        )
    });
    assert_values(
        &got,
        &fl(&[
            1.0, 2.0, 3.0, 4.0, 3.0, 5.0, 7.0, 9.0, -3.0, -6.0, -9.0, -12.0, -1.5, -2.0, -2.5, -3.0,
        ]),
    );
}
