//! Differential tests of the reductions (reference §5.6: ReduceSum, Mean, MeanV2, Amax, Amin,
//! Softmax, LogSoftmax; plus ArgMax/ArgMin) against a reference written here.
//!
//! The model (reference §5.6 and the rules stated in `ops/reduce.rs`):
//! - dims: each in [-r, r-1] with r = max(rank, 1), no axis twice; an empty list means every
//!   axis (MeanV2 with noopWithEmptyAxes: an element-wise copy into out); keepDim keeps the
//!   reduced axes as size 1;
//! - ReduceSum: every element is first converted to `dtype` (the conversion model of
//!   `cast_matrix.rs`), then summed exactly and rounded once to `dtype` (= out's dtype):
//!   integers wrap (the i64 sum, wrapped into `dtype`), bool counts then tests != 0, complex
//!   per component. The exact sum is computed here with a 2100-bit fixed-point accumulator.
//!   The library accumulates in f64, so its result may differ from the correctly rounded
//!   one only when an f64 partial sum can be inexact: when every partial sum of the inputs
//!   is exactly representable in f64 (all inputs multiples of 2^q and sum|x| < 2^(q+53)) the
//!   result must be bit-exact, otherwise within n·2^-53·sum|x| + half an ulp of `dtype`.
//!   An empty sum is 0;
//! - Mean (in `dtype`) / MeanV2 (in out's dtype): the exact sum over the count, a value of
//!   the dtype (integer dtypes: truncated toward zero), then converted to out; an empty mean
//!   is NaN (0 for integer dtypes, NaN→int being 0) and refused for a complex out;
//! - Amax/Amin: self's dtype; a NaN makes the result NaN; a reduced axis of size 0 is an
//!   error. ArgMax/ArgMin: the first index of the max/min along one dim (a NaN counts as
//!   both), out s32 or s64;
//! - Softmax/LogSoftmax: exp(x - max) / sum in f64, a value of self's dtype, then cast to
//!   out (within 1 ulp of self's format + 1 ulp of out's); a NaN makes the slice NaN, an all -inf slice is NaN; slices holding +inf
//!   are not compared (unspecified);
//! - the errors of the reference table (dtype lists, dtype ≠ out dtype, out dtype for Amax,
//!   castability for Mean, dim range, repeated dims, out shape, zero-size reduced axis for
//!   Amax/Amin/ArgMax/ArgMin), leaving out untouched.
//!
//! Tensors are created over storage obtained with `as_mut_ptr()` (the library writes
//! through it); the workspace too.

use super::add_diff::{next_index, nice_bytes, ref_can_cast, Rng, View};
use super::cast_matrix::{
    at, bytes_of, convert, decode, encode, fmt_of, gen_view, kd, needed, split_f64, stored_matches,
    wrap, Fmt, Kd, Val, FMT_F32, FMT_F64,
};
use crate::dtype::DType;
use crate::executor::{Executor, Workspace};
use crate::ops::reduce as red;
use crate::tensor::TensorDesc;

use DType::*;

// ---------------------------------------------------------------------------------------
// The dtype lists (transcribed from reference §5.6; ArgMax/ArgMin from ops/reduce.rs)
// ---------------------------------------------------------------------------------------

const SUM_DT: [DType; 12] = [F16, F32, S8, S16, S32, S64, U8, Bool, F64, C64, C128, BF16];
const MEAN_DT: [DType; 11] = [F32, F16, BF16, F64, S32, S64, S16, S8, U8, C64, C128];
const EXT_DT: [DType; 10] = [F32, F16, F64, S8, S16, S32, S64, U8, Bool, BF16];
/// ArgMax/ArgMin's self: CANN's A2 list (doc and code), no bool.
const ARG_DT: [DType; 9] = [F32, F16, F64, S8, S16, S32, S64, U8, BF16];
const SOFT_DT: [DType; 4] = [F16, F32, F64, BF16];
const IDX_DT: [DType; 2] = [S32, S64];

// ---------------------------------------------------------------------------------------
// Storage, tensors, running
// ---------------------------------------------------------------------------------------

/// An 8-byte aligned storage; its address comes from a mutable borrow (outputs are
/// written through it).
struct Mem {
    words: Vec<u64>,
    len: usize,
}
impl Mem {
    fn new(len: usize) -> Mem {
        Mem {
            words: vec![0u64; len / 8 + 2],
            len,
        }
    }
    fn bytes(&self) -> &[u8] {
        // SAFETY: the words hold at least `len` bytes.
        unsafe { std::slice::from_raw_parts(self.words.as_ptr() as *const u8, self.len) }
    }
    fn bytes_mut(&mut self) -> &mut [u8] {
        // SAFETY: as above.
        unsafe { std::slice::from_raw_parts_mut(self.words.as_mut_ptr() as *mut u8, self.len) }
    }
    fn addr(&mut self) -> usize {
        self.words.as_mut_ptr() as usize
    }
}

/// A storage of `elems` elements of `d` with values from `f`.
fn mem_with(d: DType, elems: usize, mut f: impl FnMut(usize) -> [u8; 16]) -> Mem {
    let s = bytes_of(d);
    let mut m = Mem::new(elems * s);
    for e in 0..elems {
        let b = f(e);
        m.bytes_mut()[e * s..(e + 1) * s].copy_from_slice(&b[..s]);
    }
    m
}

fn tdesc(v: &View, m: &mut Mem) -> TensorDesc {
    let shape: Vec<i64> = v.shape.iter().map(|&d| d as i64).collect();
    let strides: Vec<i64> = v.strides.iter().map(|&d| d as i64).collect();
    let elems = (m.len / bytes_of(v.dtype)) as i64;
    TensorDesc::new(
        &shape,
        v.dtype as i32,
        Some(&strides),
        v.offset as i64,
        2,
        &[elems],
        m.addr(),
    )
    .expect("a valid view")
}

/// Phase 2 with a fresh 64-byte aligned workspace of the size phase 1 asked for.
pub(super) fn run(e: &Executor) -> crate::Result<()> {
    let n = e.workspace_size() as usize;
    let mut ws = vec![0u64; n / 8 + 16];
    let addr = (ws.as_mut_ptr() as usize).div_ceil(64) * 64;
    e.work.run(
        &e.bindings,
        Workspace {
            addr,
            size: n as u64,
        },
    )
}

fn contiguous_view(shape: &[usize], d: DType) -> View {
    View::contiguous(shape, d, 0)
}

// ---------------------------------------------------------------------------------------
// Exact sums
// ---------------------------------------------------------------------------------------

const LIMBS: usize = 72;

/// The exact sum of finite f64 values: a fixed-point integer in units of 2^-1074, in
/// 32-bit digits held in i64 (carries resolved when read).
#[derive(Clone)]
struct ExactSum([i64; LIMBS]);

impl ExactSum {
    fn new() -> ExactSum {
        ExactSum([0; LIMBS])
    }
    fn add(&mut self, x: f64) {
        assert!(x.is_finite());
        if x == 0.0 {
            return;
        }
        let (neg, m, e) = split_f64(x);
        let sh = (e + 1074) as u32;
        let (l, b) = ((sh / 32) as usize, sh % 32);
        let v = (m as u128) << b;
        for k in 0..3 {
            let part = ((v >> (32 * k)) & 0xffff_ffff) as i64;
            if neg {
                self.0[l + k] -= part;
            } else {
                self.0[l + k] += part;
            }
        }
    }
    /// (negative, magnitude in 32-bit digits, little endian).
    fn resolve(&self) -> (bool, [u64; LIMBS]) {
        let mut out = [0u64; LIMBS];
        let mut carry = 0i64;
        for k in 0..LIMBS {
            let t = self.0[k] + carry;
            out[k] = (t & 0xffff_ffff) as u64;
            carry = t >> 32;
        }
        if carry == 0 {
            return (false, out);
        }
        assert_eq!(carry, -1, "exact sum out of range");
        let mut c = 1u64;
        for d in out.iter_mut() {
            let t = (!*d & 0xffff_ffff) + c;
            *d = t & 0xffff_ffff;
            c = t >> 32;
        }
        (true, out)
    }
    /// The sum correctly rounded into format `f` (nearest, ties to even; overflow ±inf).
    fn round(&self, f: Fmt) -> f64 {
        let (neg, mag) = self.resolve();
        let Some(top) = (0..LIMBS).rev().find(|&k| mag[k] != 0) else {
            return 0.0;
        };
        let t = 32 * top + (63 - mag[top].leading_zeros()) as usize; // the top bit
        let bit = |i: usize| (mag[i / 32] >> (i % 32)) & 1;
        let lo = t.saturating_sub(61);
        let mut m: u128 = 0;
        for i in (lo..=t).rev() {
            m = (m << 1) | bit(i) as u128;
        }
        let sticky =
            (0..lo / 32).any(|k| mag[k] != 0) || mag[lo / 32] & ((1u64 << (lo % 32)) - 1) != 0;
        if sticky {
            m |= 1; // far below any rounding position of a 53-bit format
        }
        f.decode(f.encode_parts(neg, m, lo as i32 - 1074))
    }
}

// ---------------------------------------------------------------------------------------
// Expected values
// ---------------------------------------------------------------------------------------

/// The expectation for one real component.
#[derive(Clone, Copy, Debug)]
enum R {
    /// Numerically equal (±0 both accepted; ±inf exactly).
    Is(f64),
    /// |got - centre| <= tol (or ±inf when centre + tol is beyond the format's range).
    Near(f64, f64),
    Nan,
    /// Not compared.
    Any,
}

#[derive(Clone, Copy, Debug)]
enum Want {
    /// The stored element (bools as exactly 0/1; any NaN matches any NaN).
    Exact(Val),
    /// An integer within `tol`.
    IntNear(i128, i128),
    Real(R),
    Cplx(R, R),
    /// Not compared.
    Unchecked,
}

fn r_ok(r: R, g: f64, f: Fmt) -> bool {
    match r {
        R::Is(x) => g == x || (x.is_nan() && g.is_nan()),
        R::Near(c, t) => {
            (g - c).abs() <= t
                || (g.is_infinite() && g.signum() == c.signum() && c.abs() + t > f.max_finite())
        }
        R::Nan => g.is_nan(),
        R::Any => true,
    }
}

fn check(want: Want, od: DType, got: &[u8]) -> Result<(), String> {
    let g = decode(od, got);
    let ok = match (want, g) {
        (Want::Unchecked, _) => true,
        (Want::Exact(v), _) => stored_matches(od, got, v),
        (Want::IntNear(q, t), Val::I(i)) => (i - q).abs() <= t,
        (Want::Real(r), Val::F(x)) => r_ok(r, x, fmt_of(od)),
        (Want::Cplx(a, b), Val::C(x, y)) => r_ok(a, x, fmt_of(od)) && r_ok(b, y, fmt_of(od)),
        _ => false,
    };
    if ok {
        Ok(())
    } else {
        Err(format!("got {g:?}, want {want:?}"))
    }
}

fn ulp_of(f: Fmt, x: f64) -> f64 {
    if x.is_finite() {
        f.ulp(x)
    } else {
        0.0
    }
}

/// 2^k for any k (clamped to the f64 range).
fn p2(k: i32) -> f64 {
    2f64.powi(k.clamp(-1074, 1023))
}

/// The sum (or mean) of real values `xs`, already in float dtype `d`, computed with f64
/// accumulation and rounded once to `d`.
fn real_sum_want(xs: &[f64], d: DType, mean: bool) -> R {
    let n = xs.len();
    if mean && n == 0 {
        return R::Nan;
    }
    let pinf = xs.iter().any(|&x| x == f64::INFINITY);
    let ninf = xs.iter().any(|&x| x == f64::NEG_INFINITY);
    if xs.iter().any(|x| x.is_nan()) || (pinf && ninf) {
        return R::Nan;
    }
    if pinf || ninf {
        return R::Is(if pinf {
            f64::INFINITY
        } else {
            f64::NEG_INFINITY
        });
    }
    let f = fmt_of(d);
    let mut acc = ExactSum::new();
    let mut abs = 0.0f64;
    let mut q = i32::MAX; // the smallest exponent of a set bit of any input
    for &x in xs {
        acc.add(x);
        abs += x.abs();
        if x != 0.0 {
            let (_, m, e) = split_f64(x);
            q = q.min(e + m.trailing_zeros() as i32);
        }
    }
    let exact = q == i32::MAX || abs * (1.0 + 1e-9) < p2(q.saturating_add(53));
    let err = n as f64 * p2(-53) * abs; // the f64 accumulation's error bound
    if !mean {
        if exact {
            return R::Is(acc.round(f));
        }
        let s = acc.round(FMT_F64);
        return R::Near(s, err + 0.5 * ulp_of(f, s.abs() + err));
    }
    let c = acc.round(FMT_F64) / n as f64;
    if exact {
        return if f == FMT_F64 {
            R::Is(c)
        } else {
            R::Near(c, 0.5 * ulp_of(f, c))
        };
    }
    let e = err / n as f64 + 2.0 * ulp_of(FMT_F64, c);
    R::Near(c, e + 0.5 * ulp_of(f, c.abs() + e))
}

/// The sum or mean of values already converted to dtype `d`.
fn sum_want(xs: &[Val], d: DType, mean: bool) -> Want {
    let n = xs.len() as i128;
    match kd(d) {
        Kd::Bool => Want::Exact(Val::B(xs.iter().any(|v| matches!(v, Val::B(true))))),
        Kd::Int => {
            let s: i128 = xs
                .iter()
                .map(|v| match v {
                    Val::I(i) => *i,
                    _ => unreachable!(),
                })
                .sum();
            if !mean {
                return Want::Exact(Val::I(wrap(s, d)));
            }
            if n == 0 {
                return Want::Exact(Val::I(0)); // NaN -> 0
            }
            let s64 = wrap(s, S64);
            // The library divides the i64 sum as an f64: exact below 2^53.
            let tol = if s64.abs() < 1 << 53 {
                0
            } else {
                (s64.abs() as f64 * p2(-52) / n as f64).ceil() as i128 + 1
            };
            Want::IntNear(s64 / n, tol)
        }
        Kd::Float => {
            let fs: Vec<f64> = xs
                .iter()
                .map(|v| match v {
                    Val::F(x) => *x,
                    _ => unreachable!(),
                })
                .collect();
            Want::Real(real_sum_want(&fs, d, mean))
        }
        Kd::Complex => {
            let (re, im): (Vec<f64>, Vec<f64>) = xs
                .iter()
                .map(|v| match v {
                    Val::C(r, i) => (*r, *i),
                    _ => unreachable!(),
                })
                .unzip();
            Want::Cplx(real_sum_want(&re, d, mean), real_sum_want(&im, d, mean))
        }
    }
}

/// The expectation `w` (a value of dtype `d`) converted to out dtype `od` (a cast the
/// operator may perform: float/int -> float, int -> int, complex -> complex).
fn cast_want(w: Want, d: DType, od: DType) -> Want {
    if d == od {
        return w;
    }
    let r_cast = |r: R| -> R {
        let f = fmt_of(od);
        match r {
            R::Is(x) => R::Is(f.round(x)),
            R::Near(c, t) => R::Near(c, t + ulp_of(f, c.abs() + t)),
            r => r,
        }
    };
    match (w, kd(od)) {
        (Want::Unchecked, _) => Want::Unchecked,
        (Want::Exact(v), _) => Want::Exact(convert(v, od)),
        (Want::IntNear(q, 0), _) => Want::Exact(convert(Val::I(q), od)),
        // An inexact s64 mean (|sum| >= 2^53, see `integer_mean_keeps_s64_precision`)
        // wrapped into a narrower integer: no usable bound.
        (Want::IntNear(q, t), Kd::Int) if wrap(q - t, od) + 2 * t != wrap(q + t, od) => {
            Want::Unchecked
        }
        (Want::IntNear(q, t), Kd::Int) => Want::IntNear(wrap(q, od), t),
        (Want::IntNear(q, t), _) => {
            Want::Real(R::Near(q as f64, t as f64 + ulp_of(fmt_of(od), q as f64)))
        }
        (Want::Real(r), _) => Want::Real(r_cast(r)),
        (Want::Cplx(a, b), _) => Want::Cplx(r_cast(a), r_cast(b)),
    }
}

fn num(v: Val) -> f64 {
    match v {
        Val::B(b) => b as u8 as f64,
        Val::I(i) => i as f64,
        Val::F(x) => x,
        Val::C(..) => unreachable!(),
    }
}

/// Amax/Amin of values of dtype `d` (non-empty).
fn extreme_want(xs: &[Val], d: DType, max: bool) -> Want {
    let better = |a: f64, b: f64| if max { a > b } else { a < b };
    match kd(d) {
        Kd::Bool => {
            let bs = xs.iter().map(|v| matches!(v, Val::B(true)));
            Want::Exact(Val::B(if max {
                bs.clone().any(|b| b)
            } else {
                bs.clone().all(|b| b)
            }))
        }
        Kd::Int => {
            let is = xs.iter().map(|v| match v {
                Val::I(i) => *i,
                _ => unreachable!(),
            });
            Want::Exact(Val::I(if max {
                is.max().unwrap()
            } else {
                is.min().unwrap()
            }))
        }
        _ => {
            if xs.iter().any(|v| num(*v).is_nan()) {
                return Want::Real(R::Nan);
            }
            let mut best = num(xs[0]);
            for v in &xs[1..] {
                if better(num(*v), best) {
                    best = num(*v);
                }
            }
            Want::Real(R::Is(best))
        }
    }
}

/// a > b for two non-NaN real values of one dtype (integers compared exactly).
fn greater(a: Val, b: Val) -> bool {
    match (a, b) {
        (Val::I(x), Val::I(y)) => x > y,
        _ => num(a) > num(b),
    }
}

/// The first index of the max/min (the first NaN if any).
fn arg_want(xs: &[Val], max: bool) -> Want {
    if let Some(i) = xs.iter().position(|v| num(*v).is_nan()) {
        return Want::Exact(Val::I(i as i128));
    }
    let mut at_ = 0;
    for (i, &v) in xs.iter().enumerate() {
        if if max {
            greater(v, xs[at_])
        } else {
            greater(xs[at_], v)
        } {
            at_ = i;
        }
    }
    Want::Exact(Val::I(at_ as i128))
}

/// Softmax/LogSoftmax of one slice of self dtype `sd`, per element, into out dtype `od`:
/// within 1 ulp of `sd` (the result is a value of self's dtype) plus 1 ulp of `od` (the cast
/// to out) of the value computed in f64.
fn slice_want(xs: &[f64], sd: DType, od: DType, log: bool) -> Vec<Want> {
    let n = xs.len();
    if xs.iter().any(|x| x.is_nan()) || xs.iter().all(|&x| x == f64::NEG_INFINITY) {
        return vec![Want::Real(R::Nan); n];
    }
    if xs.contains(&f64::INFINITY) {
        return vec![Want::Real(R::Any); n];
    }
    let (fs, f) = (fmt_of(sd), fmt_of(od));
    let m = xs.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let s: f64 = xs.iter().map(|&x| (x - m).exp()).sum();
    xs.iter()
        .map(|&x| {
            if x == f64::NEG_INFINITY {
                return Want::Real(R::Is(if log { f64::NEG_INFINITY } else { 0.0 }));
            }
            let eps = p2(-52);
            if log {
                let v = x - m - s.ln();
                let e = 8.0 * eps * (x.abs() + m.abs() + s.ln().abs() + 1.0);
                Want::Real(R::Near(v, e + ulp_of(fs, v) + ulp_of(f, v)))
            } else {
                let v = (x - m).exp() / s;
                let e = v * eps * (2.0 * n as f64 + 4.0 * (x - m).abs() + 8.0);
                Want::Real(R::Near(v, e + ulp_of(fs, v) + ulp_of(f, v)))
            }
        })
        .collect()
}

// ---------------------------------------------------------------------------------------
// Cases
// ---------------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ROp {
    Sum,
    Mean,
    MeanV2,
    Amax,
    Amin,
    ArgMax,
    ArgMin,
    Softmax,
    LogSoftmax,
}
use ROp::*;
const ALL_OPS: [ROp; 9] = [
    Sum, Mean, MeanV2, Amax, Amin, ArgMax, ArgMin, Softmax, LogSoftmax,
];

fn multi_dim(op: ROp) -> bool {
    matches!(op, Sum | Mean | MeanV2 | Amax | Amin)
}
fn is_slice(op: ROp) -> bool {
    matches!(op, Softmax | LogSoftmax)
}

#[derive(Clone, Debug)]
struct Case {
    op: ROp,
    self_v: View,
    out_v: View,
    /// dims (single-dim ops: exactly one).
    dims: Vec<i64>,
    keep: bool,
    /// ReduceSum / Mean: the dtype parameter.
    dtype: DType,
    /// MeanV2: noopWithEmptyAxes.
    noop: bool,
    /// Value profile: 0 exact-friendly, 1 special values and extremes, 2 random mantissas.
    profile: u8,
    slack: (usize, usize),
}

impl Case {
    fn noop_copy(&self) -> bool {
        self.op == MeanV2 && self.noop && self.dims.is_empty()
    }
    /// The dtype values are computed in.
    fn value_dtype(&self) -> DType {
        match self.op {
            Sum | Mean => self.dtype,
            MeanV2 => self.out_v.dtype,
            _ => self.self_v.dtype,
        }
    }
}

/// Normalised sorted axes, or None when a dim is out of range or repeated.
fn ref_axes(dims: &[i64], rank: usize, all_if_empty: bool) -> Option<Vec<usize>> {
    if dims.is_empty() && all_if_empty {
        return Some((0..rank).collect());
    }
    let r = rank.max(1) as i64;
    let mut seen = vec![];
    for &d in dims {
        if d < -r || d >= r {
            return None;
        }
        let a = ((d + r) % r) as usize;
        if seen.contains(&a) {
            return None;
        }
        seen.push(a);
    }
    let mut a: Vec<usize> = seen.into_iter().filter(|&a| a < rank).collect();
    a.sort();
    Some(a)
}

fn ref_out_shape(shape: &[usize], axes: &[usize], keep: bool) -> Vec<usize> {
    (0..shape.len())
        .filter_map(|d| match (axes.contains(&d), keep) {
            (true, true) => Some(1),
            (true, false) => None,
            (false, _) => Some(shape[d]),
        })
        .collect()
}

/// Why phase 1 must refuse the case (None: it must accept it).
fn expected_error(c: &Case) -> Option<&'static str> {
    let (sd, od) = (c.self_v.dtype, c.out_v.dtype);
    let shape = &c.self_v.shape;
    match c.op {
        Sum => {
            if !SUM_DT.contains(&sd) || !SUM_DT.contains(&c.dtype) || !SUM_DT.contains(&od) {
                return Some("dtype not supported");
            }
            if od != c.dtype {
                return Some("out dtype != dtype");
            }
        }
        Mean | MeanV2 => {
            let d = c.value_dtype();
            if !MEAN_DT.contains(&sd) || !MEAN_DT.contains(&od) || !MEAN_DT.contains(&d) {
                return Some("dtype not supported");
            }
            // MeanV2's out must have self's dtype (CANN's A2 code and doc).
            if c.op == MeanV2 && od != sd {
                return Some("MeanV2 out dtype != self dtype");
            }
            if !ref_can_cast(sd, d) || !ref_can_cast(d, od) {
                return Some("not castable");
            }
        }
        Amax | Amin => {
            if !EXT_DT.contains(&sd) || od != sd {
                return Some("dtype");
            }
        }
        ArgMax | ArgMin => {
            if !ARG_DT.contains(&sd) || !IDX_DT.contains(&od) {
                return Some("dtype");
            }
        }
        Softmax | LogSoftmax => {
            if !SOFT_DT.contains(&sd) || !SOFT_DT.contains(&od) {
                return Some("dtype");
            }
        }
    }
    if c.noop_copy() {
        return (c.out_v.shape != *shape).then_some("out shape");
    }
    let Some(axes) = ref_axes(&c.dims, shape.len(), multi_dim(c.op)) else {
        return Some("dims");
    };
    // ArgMax over an axis of size 0 succeeds and writes nothing (CANN's A2 code).
    if matches!(c.op, Amax | Amin | ArgMin) && axes.iter().any(|&a| shape[a] == 0) {
        return Some("reduced axis of size 0");
    }
    // Reference §5.6: an empty mean is NaN, "not allowed for complex out".
    if matches!(c.op, Mean | MeanV2) && kd(od) == Kd::Complex && axes.iter().any(|&a| shape[a] == 0)
    {
        return Some("empty mean into a complex out");
    }
    let want = if is_slice(c.op) {
        shape.clone()
    } else {
        ref_out_shape(shape, &axes, c.keep)
    };
    // Equal shapes, or one element each (CANN's CheckShapeAndScalarSame).
    let numel = |s: &[usize]| s.iter().product::<usize>();
    (c.out_v.shape != want && !(numel(&c.out_v.shape) == 1 && numel(&want) == 1))
        .then_some("out shape")
}

fn shuffle<T>(rng: &mut Rng, v: &mut [T]) {
    for i in (1..v.len()).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        v.swap(i, j);
    }
}

fn gen_dims(rng: &mut Rng, rank: usize, multi: bool) -> Vec<i64> {
    let r = rank.max(1) as i64;
    if !multi {
        let a = rng.below(r as u64) as i64;
        return vec![if rng.pct(40) { a - r } else { a }];
    }
    if rank == 0 {
        return match rng.below(3) {
            0 => vec![],
            1 => vec![0],
            _ => vec![-1],
        };
    }
    if rng.pct(20) {
        return vec![];
    }
    let mut axes: Vec<i64> = (0..r).filter(|_| rng.pct(45)).collect();
    if axes.is_empty() {
        axes.push(rng.below(r as u64) as i64);
    }
    shuffle(rng, &mut axes);
    axes.into_iter()
        .map(|a| if rng.pct(40) { a - r } else { a })
        .collect()
}

fn gen_shape(rng: &mut Rng) -> Vec<usize> {
    let rank = rng.below(6) as usize;
    (0..rank)
        .map(|_| {
            if rng.pct(4) {
                0
            } else {
                1 + rng.below(6) as usize
            }
        })
        .collect()
}

fn castable_from(sd: DType, list: &[DType]) -> Vec<DType> {
    list.iter()
        .copied()
        .filter(|&d| ref_can_cast(sd, d))
        .collect()
}

/// A random case over `shape` (random when None).
fn gen_case(rng: &mut Rng, big: Option<Vec<usize>>, op: Option<ROp>) -> Case {
    let op = op.unwrap_or_else(|| rng.pick(&ALL_OPS));
    let self_list: &[DType] = match op {
        Sum => &SUM_DT,
        Mean | MeanV2 => &MEAN_DT,
        Amax | Amin => &EXT_DT,
        ArgMax | ArgMin => &ARG_DT,
        Softmax | LogSoftmax => &SOFT_DT,
    };
    let sd = rng.pick(self_list);
    let shape = big.clone().unwrap_or_else(|| gen_shape(rng));
    let rank = shape.len();
    let mut dims = gen_dims(rng, rank, multi_dim(op));
    let keep = rng.pct(50);
    let noop = rng.pct(30);
    let mut dtype = match op {
        Sum => rng.pick(&SUM_DT),
        Mean => rng.pick(&castable_from(sd, &MEAN_DT)),
        _ => sd,
    };
    let mut od = match op {
        Sum => dtype,
        Mean if rng.pct(50) => dtype,
        Mean => rng.pick(&castable_from(dtype, &MEAN_DT)),
        MeanV2 => sd,
        Amax | Amin => sd,
        ArgMax | ArgMin => rng.pick(&IDX_DT),
        Softmax | LogSoftmax => rng.pick(&SOFT_DT),
    };
    let mut sd = sd;
    // The right out shape (when the dims are valid).
    let good_shape = |dims: &[i64], keep: bool| -> Vec<usize> {
        if op == MeanV2 && noop && dims.is_empty() || is_slice(op) {
            return shape.clone();
        }
        match ref_axes(dims, rank, multi_dim(op)) {
            Some(a) => ref_out_shape(&shape, &a, keep),
            None => shape.clone(),
        }
    };
    let mut out_shape = good_shape(&dims, keep);
    if big.is_none() && rng.pct(10) {
        // An invalid case: the model decides whether it is (still) an error.
        let r = rank.max(1) as i64;
        match rng.below(6) {
            0 => {
                let bad = if rng.pct(50) {
                    r + rng.below(2) as i64
                } else {
                    -r - 1 - rng.below(2) as i64
                };
                if multi_dim(op) {
                    dims.push(bad);
                } else {
                    dims[0] = bad;
                }
            }
            1 if multi_dim(op) && !dims.is_empty() => {
                let d = dims[rng.below(dims.len() as u64) as usize];
                dims.push(if rng.pct(50) {
                    d
                } else if d < 0 {
                    d + r
                } else {
                    d - r
                });
            }
            2 => {
                if !out_shape.is_empty() && rng.pct(60) {
                    let k = rng.below(out_shape.len() as u64) as usize;
                    out_shape[k] += 1;
                } else if rng.pct(50) {
                    out_shape.push(2);
                } else {
                    out_shape = good_shape(&dims, !keep);
                    if out_shape == good_shape(&dims, keep) {
                        out_shape.insert(0, 1);
                    }
                }
            }
            3 => {
                od = match op {
                    Sum => rng.pick(&SUM_DT),
                    Mean => rng.pick(&[Bool, U16, S32, F32, C64]),
                    MeanV2 => rng.pick(&[Bool, U16, S8, F16]),
                    Amax | Amin => rng.pick(&EXT_DT),
                    ArgMax | ArgMin => rng.pick(&[F32, S16, U8, Bool, U64]),
                    Softmax | LogSoftmax => rng.pick(&[S32, C64, Bool, F32]),
                }
            }
            4 => {
                sd = match op {
                    Sum => rng.pick(&[U16, U32, U64]),
                    Mean | MeanV2 => rng.pick(&[Bool, U16, U32]),
                    Amax | Amin => rng.pick(&[C64, C128, U16]),
                    ArgMax | ArgMin => rng.pick(&[C64, C128, U16, Bool]),
                    Softmax | LogSoftmax => rng.pick(&[S32, S64, Bool, U8, C64]),
                }
            }
            _ => {
                dtype = match op {
                    Sum => rng.pick(&[U16, U32, U64]),
                    Mean => rng.pick(&[Bool, S32, U16, C64]),
                    _ => dtype,
                };
                if op == Sum && rng.pct(50) {
                    od = dtype;
                }
            }
        }
    }
    let self_v = gen_view(rng, &shape, sd, true);
    let out_v = gen_view(rng, &out_shape, od, false);
    let profile = match rng.below(20) {
        0..=8 => 0,
        9..=13 => 1,
        _ => 2,
    };
    Case {
        op,
        self_v,
        out_v,
        dims,
        keep,
        dtype,
        noop,
        profile,
        slack: (rng.below(6) as usize, rng.below(6) as usize),
    }
}

// ---------------------------------------------------------------------------------------
// Values
// ---------------------------------------------------------------------------------------

fn gen_real(rng: &mut Rng, profile: u8) -> f64 {
    match profile {
        0 => (rng.below(129) as f64 - 64.0) * p2(-(rng.below(5) as i32)),
        _ => {
            let sign = if rng.pct(50) { -1.0 } else { 1.0 };
            let m = 1.0 + (rng.next() >> 12) as f64 * p2(-52);
            sign * m * p2(rng.below(21) as i32 - 10)
        }
    }
}

/// Softmax inputs: moderate values, some ±1e4, a few -inf, NaN, +inf and zeros.
fn gen_soft(rng: &mut Rng) -> f64 {
    match rng.below(200) {
        0..=1 => f64::NAN,
        2 => f64::INFINITY,
        3..=8 => f64::NEG_INFINITY,
        9..=18 => {
            let s = if rng.pct(50) { -1.0 } else { 1.0 };
            s * (1e4 + rng.below(64) as f64 * 0.25)
        }
        19..=24 => 0.0,
        _ => {
            let m = 1.0 + (rng.next() >> 12) as f64 * p2(-52);
            let s = if rng.pct(50) { -1.0 } else { 1.0 };
            s * m * p2(rng.below(9) as i32 - 5)
        }
    }
}

/// Keeps f64 values far from overflow (so that no f64 partial sum can overflow).
fn tame(x: f64) -> f64 {
    if x.is_finite() && x.abs() > p2(1000) {
        x * p2(-200)
    } else {
        x
    }
}

/// One random element of dtype `d` as bytes.
fn gen_elem(rng: &mut Rng, d: DType, profile: u8, soft: bool) -> [u8; 16] {
    match kd(d) {
        Kd::Bool => nice_bytes(rng, d),
        Kd::Int => {
            if profile == 0 && !rng.pct(5) {
                encode(d, convert(Val::I(rng.below(19) as i128 - 9), d))
            } else {
                nice_bytes(rng, d)
            }
        }
        Kd::Float | Kd::Complex if soft => {
            let x = gen_soft(rng);
            encode(d, convert(Val::F(x), d))
        }
        Kd::Float | Kd::Complex if profile == 1 && d != C32 => {
            let b = nice_bytes(rng, d);
            match decode(d, &b) {
                Val::F(x) => encode(d, Val::F(tame(x))),
                Val::C(x, y) => encode(d, Val::C(tame(x), tame(y))),
                _ => unreachable!(),
            }
        }
        Kd::Float => encode(d, convert(Val::F(gen_real(rng, profile)), d)),
        Kd::Complex => {
            let f = fmt_of(d);
            let re = f.round(gen_real(rng, profile));
            let im = if rng.pct(15) {
                0.0
            } else {
                f.round(gen_real(rng, profile))
            };
            encode(d, Val::C(re, im))
        }
    }
}

// ---------------------------------------------------------------------------------------
// Running a case
// ---------------------------------------------------------------------------------------

fn call(c: &Case, s: &TensorDesc, o: &TensorDesc) -> crate::Result<Executor> {
    let dim = || c.dims[0];
    match c.op {
        Sum => red::reduce_sum(s, &c.dims, c.keep, c.dtype as i32, o),
        Mean => red::mean(s, &c.dims, c.keep, c.dtype as i32, o),
        MeanV2 => red::mean_v2(s, &c.dims, c.keep, c.noop, o),
        Amax => red::amax(s, &c.dims, c.keep, o),
        Amin => red::amin(s, &c.dims, c.keep, o),
        ArgMax => red::argmax(s, dim(), c.keep, o),
        ArgMin => red::argmin(s, dim(), c.keep, o),
        Softmax => red::softmax(s, dim(), o),
        LogSoftmax => red::log_softmax(s, dim(), o),
    }
}

fn unravel(mut i: usize, shape: &[usize]) -> Vec<usize> {
    let mut idx = vec![0; shape.len()];
    for d in (0..shape.len()).rev() {
        idx[d] = i % shape[d];
        i /= shape[d];
    }
    idx
}

/// (output multi-index, expectation) for every output element of an accepted case.
fn reference(c: &Case, src: &Mem) -> Vec<(Vec<usize>, Want)> {
    let sv = &c.self_v;
    let (sd, od) = (sv.dtype, c.out_v.dtype);
    let s = bytes_of(sd);
    let val = |e: usize| decode(sd, &src.bytes()[e * s..(e + 1) * s]);
    let shape = &sv.shape;
    let rank = shape.len();
    let n: usize = shape.iter().product();
    if c.noop_copy() {
        let mut idx = vec![0; rank];
        let mut out = vec![];
        for _ in 0..n {
            out.push((idx.clone(), Want::Exact(convert(val(at(sv, &idx)), od))));
            next_index(&mut idx, shape);
        }
        return out;
    }
    let axes = ref_axes(&c.dims, rank, multi_dim(c.op)).unwrap();
    if c.op == ArgMax && axes.iter().any(|&a| shape[a] == 0) {
        return vec![]; // nothing is written
    }
    let kept: Vec<usize> = (0..rank).filter(|d| !axes.contains(d)).collect();
    let kshape: Vec<usize> = kept.iter().map(|&d| shape[d]).collect();
    let ngroups: usize = kshape.iter().product();
    // Each group: (storage element, row-major input position), in row-major order.
    let mut groups: Vec<Vec<(usize, usize)>> = vec![vec![]; ngroups];
    if ngroups > 0 {
        let mut idx = vec![0; rank];
        for lin in 0..n {
            let key = kept.iter().fold(0, |k, &d| k * shape[d] + idx[d]);
            groups[key].push((at(sv, &idx), lin));
            next_index(&mut idx, shape);
        }
    }
    let mut out = vec![];
    for (g, members) in groups.iter().enumerate() {
        let vals: Vec<Val> = members.iter().map(|&(e, _)| val(e)).collect();
        if is_slice(c.op) {
            let xs: Vec<f64> = vals.iter().map(|v| num(*v)).collect();
            let ws = slice_want(&xs, sd, od, c.op == LogSoftmax);
            for (&(_, lin), w) in members.iter().zip(ws) {
                out.push((unravel(lin, shape), w));
            }
            continue;
        }
        let kidx = unravel(g, &kshape);
        let oidx = if c.out_v.shape.len() == rank {
            let mut full = vec![0; rank];
            for (k, &d) in kept.iter().enumerate() {
                full[d] = kidx[k];
            }
            full
        } else {
            kidx
        };
        let vd = c.value_dtype();
        let conv: Vec<Val> = vals.iter().map(|&v| convert(v, vd)).collect();
        let w = match c.op {
            Sum => sum_want(&conv, vd, false),
            Mean | MeanV2 => cast_want(sum_want(&conv, vd, true), vd, od),
            Amax => extreme_want(&vals, sd, true),
            Amin => extreme_want(&vals, sd, false),
            ArgMax => arg_want(&vals, true),
            ArgMin => arg_want(&vals, false),
            _ => unreachable!(),
        };
        out.push((oidx, w));
    }
    out
}

#[derive(Default, Debug)]
struct Outcome {
    refused: bool,
    outputs: usize,
}

fn all_positions(v: &View) -> Vec<usize> {
    let n: usize = v.shape.iter().product();
    let mut idx = vec![0; v.shape.len()];
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        out.push(at(v, &idx));
        next_index(&mut idx, &v.shape);
    }
    out
}

fn run_case(c: &Case, rng: &mut Rng) -> Result<Outcome, String> {
    let sd = c.self_v.dtype;
    let od = c.out_v.dtype;
    let soft = is_slice(c.op);
    let s_elems = needed(&c.self_v) + c.slack.0;
    let o_elems = needed(&c.out_v) + c.slack.1;
    let mut src = mem_with(sd, s_elems, |_| gen_elem(rng, sd, c.profile, soft));
    let mut dst = mem_with(od, o_elems, |_| {
        let mut b = [0u8; 16];
        b.iter_mut().for_each(|x| *x = rng.next() as u8);
        b
    });
    let src_before = src.bytes().to_vec();
    let dst_before = dst.bytes().to_vec();
    let (s, o) = (tdesc(&c.self_v, &mut src), tdesc(&c.out_v, &mut dst));
    let expect = expected_error(c);
    let r = call(c, &s, &o);
    if let Some(why) = expect {
        return match r {
            Ok(_) => Err(format!("accepted, but the model refuses it: {why}")),
            Err(_) if dst.bytes() != dst_before => Err("refused, but out was written".into()),
            Err(_) => Ok(Outcome {
                refused: true,
                outputs: 0,
            }),
        };
    }
    let exec = r.map_err(|e| format!("refused ({e}), but the model accepts it"))?;
    run(&exec).map_err(|e| format!("phase 2 failed: {e}"))?;
    if src.bytes() != src_before {
        return Err("self was modified".into());
    }
    let want = reference(c, &src);
    let ob = bytes_of(od);
    let mut inside = vec![false; o_elems];
    let mut errs = vec![];
    for (idx, w) in &want {
        let e = at(&c.out_v, idx);
        inside[e] = true;
        if let Err(m) = check(*w, od, &dst.bytes()[e * ob..(e + 1) * ob]) {
            errs.push(format!("out{idx:?}: {m}"));
        }
    }
    let positions = all_positions(&c.out_v);
    let untouched = c.op == ArgMax && want.is_empty();
    if positions.len() != want.len() && !untouched {
        errs.push(format!(
            "{} outputs expected, out has {}",
            want.len(),
            positions.len()
        ));
    }
    for (e, &ins) in inside.iter().enumerate() {
        if !ins && dst.bytes()[e * ob..(e + 1) * ob] != dst_before[e * ob..(e + 1) * ob] {
            errs.push(format!("storage element {e} outside out was written"));
            break;
        }
    }
    if !errs.is_empty() {
        let n = errs.len();
        errs.truncate(6);
        return Err(format!("{n} wrong: {}", errs.join("; ")));
    }
    Ok(Outcome {
        refused: false,
        outputs: want.len(),
    })
}

fn describe(c: &Case) -> String {
    format!(
        "{:?} self {:?} {:?} strides {:?} off {} | dims {:?} keep {} dtype {:?} noop {} | out {:?} {:?} strides {:?} off {} | profile {}",
        c.op,
        c.self_v.dtype,
        c.self_v.shape,
        c.self_v.strides,
        c.self_v.offset,
        c.dims,
        c.keep,
        c.dtype,
        c.noop,
        c.out_v.dtype,
        c.out_v.shape,
        c.out_v.strides,
        c.out_v.offset,
        c.profile
    )
}

// ---------------------------------------------------------------------------------------
// The differential tests
// ---------------------------------------------------------------------------------------

#[test]
fn model_self_checks() {
    // The exact accumulator against sums that are exact in f64, and against cancellation.
    let mut a = ExactSum::new();
    for x in [1e30, 1.0, -1e30, 0.5, -3.25] {
        a.add(x);
    }
    assert_eq!(a.round(FMT_F64), -1.75);
    let mut b = ExactSum::new();
    b.add(f64::MAX);
    b.add(f64::MAX);
    b.add(-f64::MAX);
    assert_eq!(b.round(FMT_F64), f64::MAX);
    let mut t = ExactSum::new();
    t.add(1.0);
    t.add(p2(-24)); // a tie in f32: rounds to even (1.0)
    assert_eq!(t.round(FMT_F32), 1.0);
    t.add(p2(-1074)); // just above the tie
    assert_eq!(t.round(FMT_F32), 1.0 + p2(-23));
    let mut z = ExactSum::new();
    z.add(p2(-1074));
    z.add(-p2(-1074));
    assert_eq!(z.round(FMT_F64), 0.0);
    // The axes model.
    assert_eq!(ref_axes(&[], 3, true), Some(vec![0, 1, 2]));
    assert_eq!(ref_axes(&[-1, 0], 3, true), Some(vec![0, 2]));
    assert_eq!(ref_axes(&[1, -2], 3, true), None);
    assert_eq!(ref_axes(&[3], 3, true), None);
    assert_eq!(ref_axes(&[-1], 0, true), Some(vec![]));
    assert_eq!(ref_axes(&[0, -1], 0, true), None);
    // Arg: first index, NaN first.
    let v = |x: &[f64]| x.iter().map(|&x| Val::F(x)).collect::<Vec<_>>();
    assert!(matches!(
        arg_want(&v(&[1.0, 3.0, 3.0]), true),
        Want::Exact(Val::I(1))
    ));
    assert!(matches!(
        arg_want(&v(&[1.0, f64::NAN, 0.0, f64::NAN]), false),
        Want::Exact(Val::I(1))
    ));
}

fn random_run(seed: u64, cases: usize, big: bool) -> [usize; 9] {
    let mut rng = Rng::new(seed);
    let mut ok = [0usize; 9];
    let mut refused = [0usize; 9];
    let shapes: [&[usize]; 8] = [
        &[3, 5000],
        &[5000, 3],
        &[40, 60, 50],
        &[2, 70000],
        &[300, 301],
        &[130000],
        &[7, 1100, 9],
        &[1, 2100, 1, 40],
    ];
    let mut failures = vec![];
    for i in 0..cases {
        let shape = big.then(|| shapes[i % shapes.len()].to_vec());
        // big cases: every operator in turn (72 = 9 operators x 8 shapes)
        let op = big.then(|| ALL_OPS[(i / shapes.len()) % ALL_OPS.len()]);
        let case = gen_case(&mut rng, shape, op);
        let k = ALL_OPS.iter().position(|o| *o == case.op).unwrap();
        match run_case(&case, &mut rng) {
            Ok(o) if o.refused => refused[k] += 1,
            Ok(o) => {
                ok[k] += 1;
                let _ = o.outputs;
            }
            Err(e) => failures.push(format!("case {i}: {}\n    {e}", describe(&case))),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {cases} cases failed (seed {seed}):\n{}",
        failures.len(),
        failures[..failures.len().min(12)].join("\n")
    );
    for (k, op) in ALL_OPS.iter().enumerate() {
        assert!(ok[k] > 0, "{op:?}: no case accepted");
        assert!(big || refused[k] > 0, "{op:?}: no case refused");
    }
    ok
}

#[test]
fn reductions_match_the_model_on_random_shapes_views_and_dtypes() {
    let ok = random_run(0x5EED_0001, 6000, false);
    assert!(
        ok.iter().all(|&n| n > 200),
        "too few accepted cases: {ok:?}"
    );
}

/// Long reduced runs (beyond the engine's 1024-element chunks), many outputs (split across
/// the thread pool), transposed and strided views.
#[test]
fn large_reductions_cross_chunk_and_task_boundaries() {
    random_run(0x5EED_0002, 72, true);
}

/// A valid random case of `op` with the given dtypes (views, shape, dims random).
fn pair_case(rng: &mut Rng, op: ROp, sd: DType, dtype: DType, od: DType) -> Case {
    let shape = gen_shape(rng);
    let dims = gen_dims(rng, shape.len(), multi_dim(op));
    let keep = rng.pct(50);
    let axes = ref_axes(&dims, shape.len(), multi_dim(op)).unwrap();
    let out_shape = if is_slice(op) {
        shape.clone()
    } else {
        ref_out_shape(&shape, &axes, keep)
    };
    Case {
        op,
        self_v: gen_view(rng, &shape, sd, true),
        out_v: gen_view(rng, &out_shape, od, false),
        dims,
        keep,
        dtype,
        noop: false,
        profile: rng.below(3) as u8,
        slack: (rng.below(4) as usize, rng.below(4) as usize),
    }
}

/// Every supported dtype combination of every operator, a few random cases each.
#[test]
fn every_dtype_combination() {
    let mut rng = Rng::new(0x5EED_0003);
    let mut cases = vec![];
    for _ in 0..4 {
        for sd in SUM_DT {
            for d in SUM_DT {
                cases.push(pair_case(&mut rng, Sum, sd, d, d));
            }
        }
        for sd in MEAN_DT {
            for d in castable_from(sd, &MEAN_DT) {
                for od in castable_from(d, &MEAN_DT) {
                    cases.push(pair_case(&mut rng, Mean, sd, d, od));
                }
            }
            cases.push(pair_case(&mut rng, MeanV2, sd, sd, sd));
        }
        for sd in EXT_DT {
            for op in [Amax, Amin] {
                cases.push(pair_case(&mut rng, op, sd, sd, sd));
            }
        }
        for sd in ARG_DT {
            for op in [ArgMax, ArgMin] {
                for od in IDX_DT {
                    cases.push(pair_case(&mut rng, op, sd, sd, od));
                }
            }
        }
        for sd in SOFT_DT {
            for od in SOFT_DT {
                for op in [Softmax, LogSoftmax] {
                    cases.push(pair_case(&mut rng, op, sd, sd, od));
                }
            }
        }
    }
    let mut failures = vec![];
    let mut accepted = 0;
    for (i, c) in cases.iter().enumerate() {
        match run_case(c, &mut rng) {
            Ok(o) => accepted += !o.refused as usize,
            Err(e) => failures.push(format!("case {i}: {}\n    {e}", describe(c))),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} failed:\n{}",
        failures.len(),
        cases.len(),
        failures[..failures.len().min(12)].join("\n")
    );
    // Only Amax/Amin/ArgMax/ArgMin over a zero-size axis may be refused.
    assert!(
        accepted * 100 >= cases.len() * 95,
        "{accepted} of {}",
        cases.len()
    );
}

// ---------------------------------------------------------------------------------------
// Hand-made cases
// ---------------------------------------------------------------------------------------

/// A contiguous tensor of `d` holding `vals` (converted by the model), its storage.
fn input(d: DType, shape: &[usize], vals: &[Val]) -> (TensorDesc, Mem) {
    let n: usize = shape.iter().product();
    assert_eq!(vals.len(), n);
    let mut m = mem_with(d, n.max(1), |e| {
        if e < n {
            encode(d, convert(vals[e], d))
        } else {
            [0; 16]
        }
    });
    let t = tdesc(&contiguous_view(shape, d), &mut m);
    (t, m)
}

fn fl(xs: &[f64]) -> Vec<Val> {
    xs.iter().map(|&x| Val::F(x)).collect()
}
fn ints(xs: &[i128]) -> Vec<Val> {
    xs.iter().map(|&x| Val::I(x)).collect()
}

/// An output of `d` and `shape`, filled with 0xA5 bytes.
fn output(d: DType, shape: &[usize]) -> (TensorDesc, Mem) {
    let n: usize = shape.iter().product();
    let mut m = Mem::new(n.max(1) * bytes_of(d));
    m.bytes_mut().fill(0xA5);
    let t = tdesc(&contiguous_view(shape, d), &mut m);
    (t, m)
}

fn read(m: &Mem, d: DType, n: usize) -> Vec<Val> {
    let s = bytes_of(d);
    (0..n)
        .map(|e| decode(d, &m.bytes()[e * s..(e + 1) * s]))
        .collect()
}

fn read_f(m: &Mem, d: DType, n: usize) -> Vec<f64> {
    read(m, d, n).into_iter().map(num).collect()
}

fn ok(r: crate::Result<Executor>) {
    run(&r.expect("phase 1")).expect("phase 2");
}

/// Phase 1 must fail with a message containing every needle, leaving out's bytes alone.
fn refused(r: crate::Result<Executor>, out: &Mem, needles: &[&str]) {
    let e = match r {
        Ok(_) => panic!("accepted; expected an error mentioning {needles:?}"),
        Err(e) => e,
    };
    assert_eq!(e.status(), 161002, "{e}");
    let msg = e.to_string();
    for n in needles {
        assert!(msg.contains(n), "message {msg:?} lacks {n:?}");
    }
    assert!(out.bytes().iter().all(|&b| b == 0xA5), "out was written");
}

#[test]
fn reduce_sum_converts_to_dtype_first_and_rounds_once() {
    // 0.1 (f64) to f16 is 0.0999755859375; three of them sum to 0.2999267578125, a tie in
    // f16 that rounds to 0.2998046875. Summing first (0.3) would give 0.300048828125.
    let (s, _m) = input(F64, &[3], &fl(&[0.1, 0.1, 0.1]));
    let (o, om) = output(F16, &[]);
    ok(red::reduce_sum(&s, &[], false, F16 as i32, &o));
    assert_eq!(read_f(&om, F16, 1), [0.2998046875]);
    // 4096 ones into f16: one rounding at the end (an f16 accumulator would stop at 2048).
    let (s, _m) = input(F32, &[4096], &fl(&[1.0; 4096]));
    let (o, om) = output(F16, &[1]);
    ok(red::reduce_sum(&s, &[0], true, F16 as i32, &o));
    assert_eq!(read_f(&om, F16, 1), [4096.0]);
    // 4097 ones: 4097 rounds to 4096 (tie to even) in f16, 4099 to 4100.
    let (s, _m) = input(F32, &[4099], &fl(&[1.0; 4099]));
    let (o, om) = output(F16, &[]);
    ok(red::reduce_sum(&s, &[-1], false, F16 as i32, &o));
    assert_eq!(read_f(&om, F16, 1), [4100.0]);
    // f32 -> s32 truncates each element first: 1.9 + 1.9 - 0.9 -> 1 + 1 + 0 = 2.
    let (s, _m) = input(F32, &[3], &fl(&[1.9, 1.9, -0.9]));
    let (o, om) = output(S32, &[]);
    ok(red::reduce_sum(&s, &[], false, S32 as i32, &o));
    assert!(matches!(read(&om, S32, 1)[0], Val::I(2)));
    // s64 -> f32 rounds each element: 2^24 + 1 -> 2^24, twice: 2^25 (not 2^25 + 2).
    let (s, _m) = input(S64, &[2], &ints(&[(1 << 24) + 1, (1 << 24) + 1]));
    let (o, om) = output(F32, &[]);
    ok(red::reduce_sum(&s, &[0], false, F32 as i32, &o));
    assert_eq!(read_f(&om, F32, 1), [(1u64 << 25) as f64]);
    // Integers wrap in the dtype: s8 100 + 100 = -56, u8 200 + 100 = 44, s32 wraps too.
    let (s, _m) = input(S8, &[2], &ints(&[100, 100]));
    let (o, om) = output(S8, &[]);
    ok(red::reduce_sum(&s, &[], false, S8 as i32, &o));
    assert!(matches!(read(&om, S8, 1)[0], Val::I(-56)));
    let (s, _m) = input(U8, &[2], &ints(&[200, 100]));
    let (o, om) = output(U8, &[]);
    ok(red::reduce_sum(&s, &[], false, U8 as i32, &o));
    assert!(matches!(read(&om, U8, 1)[0], Val::I(44)));
    let (s, _m) = input(S32, &[3], &ints(&[i32::MAX as i128, 1, 1]));
    let (o, om) = output(S32, &[]);
    ok(red::reduce_sum(&s, &[], false, S32 as i32, &o));
    assert!(matches!(read(&om, S32, 1)[0], Val::I(x) if x == i32::MIN as i128 + 1));
    // ... but not in a wider dtype: the same s32 values summed as s64.
    let (o, om) = output(S64, &[]);
    ok(red::reduce_sum(&s, &[], false, S64 as i32, &o));
    assert!(matches!(read(&om, S64, 1)[0], Val::I(x) if x == i32::MAX as i128 + 2));
    // Complex: per component.
    let (s, _m) = input(
        C64,
        &[3],
        &[Val::C(1.0, -2.0), Val::C(0.5, 4.0), Val::C(-3.0, 0.25)],
    );
    let (o, om) = output(C64, &[]);
    ok(red::reduce_sum(&s, &[], false, C64 as i32, &o));
    assert!(matches!(read(&om, C64, 1)[0], Val::C(r, i) if r == -1.5 && i == 2.25));
}

#[test]
fn reduce_sum_of_bool_counts() {
    // Bytes 0, 1, 2, 255 (any non-zero byte is true): 3 true of 5, along the last dim.
    let n = 10;
    let mut m = Mem::new(n);
    m.bytes_mut()
        .copy_from_slice(&[0, 1, 2, 255, 0, 0, 0, 0, 0, 7]);
    let s = tdesc(&contiguous_view(&[2, 5], Bool), &mut m);
    let (o, om) = output(S64, &[2]);
    ok(red::reduce_sum(&s, &[1], false, S64 as i32, &o));
    assert!(matches!(read(&om, S64, 2)[..], [Val::I(3), Val::I(1)]));
    // With dtype s32, f32: the same counts.
    let (o, om) = output(S32, &[2, 1]);
    ok(red::reduce_sum(&s, &[-1], true, S32 as i32, &o));
    assert!(matches!(read(&om, S32, 2)[..], [Val::I(3), Val::I(1)]));
    let (o, om) = output(F32, &[]);
    ok(red::reduce_sum(&s, &[], false, F32 as i32, &o));
    assert_eq!(read_f(&om, F32, 1), [4.0]);
    // With dtype bool: any (stored as exactly 1).
    let (o, om) = output(Bool, &[5]);
    ok(red::reduce_sum(&s, &[0], false, Bool as i32, &o));
    assert_eq!(&om.bytes()[..5], &[0, 1, 1, 1, 1]);
}

#[test]
fn empty_inputs_sum_to_zero_and_average_to_nan() {
    for d in SUM_DT {
        for keep in [false, true] {
            let (s, _m) = input(d, &[2, 0, 3], &[]);
            let shape: &[usize] = if keep { &[2, 1, 3] } else { &[2, 3] };
            let (o, om) = output(d, shape);
            ok(red::reduce_sum(&s, &[1], keep, d as i32, &o));
            for v in read(&om, d, 6) {
                assert!(
                    matches!(v, Val::B(false) | Val::I(0))
                        || matches!(v, Val::F(x) if x == 0.0)
                        || matches!(v, Val::C(r, i) if r == 0.0 && i == 0.0),
                    "{d:?}: {v:?}"
                );
            }
            // All axes of an empty tensor: one 0.
            let (o, om) = output(d, &[]);
            ok(red::reduce_sum(&s, &[], false, d as i32, &o));
            assert!(!matches!(read(&om, d, 1)[0], Val::I(x) if x != 0), "{d:?}");
        }
    }
    for d in [F32, F16, BF16, F64] {
        let (s, _m) = input(d, &[0, 4], &[]);
        let (o, om) = output(d, &[1, 4]);
        ok(red::mean(&s, &[0], true, d as i32, &o));
        assert!(read_f(&om, d, 4).iter().all(|x| x.is_nan()), "{d:?}");
        let (o, om) = output(d, &[]);
        ok(red::mean_v2(&s, &[], false, false, &o));
        assert!(read_f(&om, d, 1)[0].is_nan(), "{d:?}");
    }
    // An empty output: nothing to do, nothing written.
    let (s, _m) = input(F32, &[0, 4], &[]);
    let (o, om) = output(F32, &[0]);
    ok(red::amax(&s, &[1], false, &o));
    ok(red::argmin(&s, 1, false, &output(S64, &[0]).0));
    ok(red::softmax(&s, 0, &output(F32, &[0, 4]).0));
    assert!(om.bytes().iter().all(|&b| b == 0xA5));
    // Amax/Amin/ArgMax/ArgMin over a reduced axis of size 0: refused.
    let (o, om) = output(F32, &[4]);
    refused(red::amax(&s, &[0], false, &o), &om, &["size 0"]);
    refused(
        red::amin(&s, &[], false, &output(F32, &[]).0),
        &om,
        &["size 0"],
    );
    let (oi, oim) = output(S64, &[4]);
    refused(red::argmin(&s, -2, false, &oi), &oim, &["size 0"]);
    // ArgMax over it succeeds and writes nothing (CANN's A2 code returns for an empty self);
    // out's shape is still checked.
    run(&red::argmax(&s, 0, false, &oi).unwrap()).unwrap();
    assert!(oim.bytes().iter().all(|&b| b == 0xA5));
    let (oi, oim) = output(S32, &[1, 4]);
    run(&red::argmax(&s, -2, true, &oi).unwrap()).unwrap();
    assert!(oim.bytes().iter().all(|&b| b == 0xA5));
    refused(
        red::argmax(&s, 0, false, &output(S64, &[3]).0),
        &oim,
        &["shape"],
    );
    // Bool is no dtype of ArgMax/ArgMin (CANN's A2 list); Amax/Amin take it.
    let (b, _bm) = input(Bool, &[2], &[Val::B(true), Val::B(false)]);
    for f in [red::argmax, red::argmin] {
        refused(f(&b, 0, false, &output(S64, &[]).0), &oim, &["ACL_BOOL"]);
    }
    ok(red::amax(&b, &[0], false, &output(Bool, &[]).0));
}

#[test]
fn zero_d_inputs() {
    let (s, _m) = input(F32, &[], &fl(&[2.5]));
    for dims in [&[][..], &[0], &[-1]] {
        for keep in [false, true] {
            let (o, om) = output(F64, &[]);
            ok(red::reduce_sum(&s, dims, keep, F64 as i32, &o));
            assert_eq!(read_f(&om, F64, 1), [2.5]);
            let (o, om) = output(F32, &[]);
            ok(red::mean(&s, dims, keep, F32 as i32, &o));
            assert_eq!(read_f(&om, F32, 1), [2.5]);
            let (o, om) = output(F32, &[]);
            ok(red::amin(&s, dims, keep, &o));
            assert_eq!(read_f(&om, F32, 1), [2.5]);
        }
    }
    for dim in [0, -1] {
        let (o, om) = output(S32, &[]);
        ok(red::argmax(&s, dim, true, &o));
        assert!(matches!(read(&om, S32, 1)[0], Val::I(0)));
        let (o, om) = output(F32, &[]);
        ok(red::softmax(&s, dim, &o));
        assert_eq!(read_f(&om, F32, 1), [1.0]);
        let (o, om) = output(F64, &[]);
        ok(red::log_softmax(&s, dim, &o));
        assert_eq!(read_f(&om, F64, 1), [0.0]);
    }
    let (o, om) = output(F32, &[]);
    refused(
        red::reduce_sum(&s, &[1], false, F32 as i32, &o),
        &om,
        &["dims", "1"],
    );
    refused(red::amax(&s, &[0, -1], false, &o), &om, &["repeats"]);
    refused(red::softmax(&s, -2, &o), &om, &["dim", "-2"]);
    // A one-element out takes the one-element result whatever its shape (CANN's
    // CheckShapeAndScalarSame): [1] for a 0-d sum; a two-element out is refused.
    let (o1, om1) = output(F32, &[1]);
    ok(red::reduce_sum(&s, &[], false, F32 as i32, &o1));
    assert_eq!(read_f(&om1, F32, 1), [2.5]);
    refused(
        red::reduce_sum(&s, &[], false, F32 as i32, &output(F32, &[2]).0),
        &om,
        &["shape"],
    );
}

#[test]
fn nan_propagates_in_amax_amin_and_counts_for_argmax_argmin() {
    let n = f64::NAN;
    for d in [F32, F16, BF16, F64] {
        let (s, _m) = input(
            d,
            &[3, 4],
            &fl(&[1.0, n, 3.0, -1.0, 5.0, 5.0, -2.0, -2.0, 0.0, -0.0, 7.0, n]),
        );
        let (o, om) = output(d, &[3]);
        ok(red::amax(&s, &[1], false, &o));
        let g = read_f(&om, d, 3);
        assert!(g[0].is_nan() && g[1] == 5.0 && g[2].is_nan(), "{d:?} {g:?}");
        ok(red::amin(&s, &[-1], false, &o));
        let g = read_f(&om, d, 3);
        assert!(
            g[0].is_nan() && g[1] == -2.0 && g[2].is_nan(),
            "{d:?} {g:?}"
        );
        let (o, om) = output(d, &[1, 4]);
        ok(red::amax(&s, &[0], true, &o));
        let g = read_f(&om, d, 4);
        assert!(
            g[0] == 5.0 && g[1].is_nan() && g[2] == 7.0 && g[3].is_nan(),
            "{d:?} {g:?}"
        );
        for (api, max) in [("argmax", true), ("argmin", false)] {
            let (o, om) = output(S64, &[3, 1]);
            let f = if max { red::argmax } else { red::argmin };
            ok(f(&s, 1, true, &o));
            let g = read(&om, S64, 3);
            // first NaN; the first of two equal maxima (5, 5) / minima (-2, -2); the NaN at 3
            let want = [1, if max { 0 } else { 2 }, 3];
            for k in 0..3 {
                assert!(
                    matches!(g[k], Val::I(x) if x == want[k]),
                    "{api} {d:?} {g:?}"
                );
            }
        }
    }
    // ±0 are equal: the first index wins.
    let (s, _m) = input(F32, &[2], &fl(&[-0.0, 0.0]));
    let (o, om) = output(S32, &[]);
    ok(red::argmax(&s, 0, false, &o));
    assert!(matches!(read(&om, S32, 1)[0], Val::I(0)));
    // Integers and bool.
    let (s, _m) = input(S8, &[4], &ints(&[-128, 127, 127, -128]));
    let (o, om) = output(S32, &[]);
    ok(red::argmin(&s, 0, false, &o));
    assert!(matches!(read(&om, S32, 1)[0], Val::I(0)));
    ok(red::argmax(&s, 0, false, &o));
    assert!(matches!(read(&om, S32, 1)[0], Val::I(1)));
    let (s, _m) = input(Bool, &[3], &[Val::B(false), Val::B(true), Val::B(true)]);
    let (o, om) = output(Bool, &[]);
    ok(red::amax(&s, &[], false, &o));
    assert_eq!(om.bytes()[0], 1);
    ok(red::amin(&s, &[], false, &o));
    assert_eq!(om.bytes()[0], 0);
}

#[test]
fn softmax_is_stable_and_nan_poisons_its_slice() {
    for sd in SOFT_DT {
        for od in SOFT_DT {
            let xs = [1e4, -1e4, 1e4 - 1.0, 0.0, -1e4, 1e4, 1e4, -0.5];
            let (s, sm) = input(sd, &[2, 4], &fl(&xs));
            let stored = read_f(&sm, sd, 8); // f16/bf16 round 1e4 - 1
                                             // The result is a value of self's dtype, then cast to out: the coarser one counts.
            let tol_of = |d: DType| -> f64 {
                match d {
                    F64 => 1e-14,
                    F32 => 1e-6,
                    F16 => 2e-3,
                    _ => 1.6e-2,
                }
            };
            let tol = tol_of(sd).max(tol_of(od));
            let (o, om) = output(od, &[2, 4]);
            ok(red::softmax(&s, 1, &o));
            let g = read_f(&om, od, 8);
            assert!(
                g.iter().all(|x| x.is_finite() && *x >= 0.0),
                "{sd:?}->{od:?} {g:?}"
            );
            let (ol, olm) = output(od, &[2, 4]);
            ok(red::log_softmax(&s, -1, &ol));
            let gl = read_f(&olm, od, 8);
            assert!(
                gl.iter().all(|x| x.is_finite() && *x <= 0.0),
                "{sd:?}->{od:?} {gl:?}"
            );
            for r in 0..2 {
                let row = &stored[r * 4..r * 4 + 4];
                let m = row.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
                let sum: f64 = row.iter().map(|x| (x - m).exp()).sum();
                let gsum: f64 = g[r * 4..r * 4 + 4].iter().sum();
                assert!(
                    (gsum - 1.0).abs() < 2.0 * tol,
                    "{sd:?}->{od:?} row {r} sums to {gsum}"
                );
                for k in 0..4 {
                    let (x, i) = (row[k], r * 4 + k);
                    let want = (x - m).exp() / sum;
                    assert!(
                        (g[i] - want).abs() <= tol * want.max(1e-3),
                        "{sd:?}->{od:?} [{i}] {} vs {want}",
                        g[i]
                    );
                    let lw = x - m - sum.ln();
                    assert!(
                        (gl[i] - lw).abs() <= tol * (1.0 + lw.abs()),
                        "{sd:?}->{od:?} log [{i}] {} vs {lw}",
                        gl[i]
                    );
                }
            }
            assert_eq!(g[1], 0.0);
        }
    }
    // A NaN makes its slice (and only its slice) NaN; along dim 0 here.
    let n = f64::NAN;
    let (s, _m) = input(F32, &[3, 2], &fl(&[1.0, 2.0, n, 3.0, 0.0, 4.0]));
    let (o, om) = output(F32, &[3, 2]);
    ok(red::softmax(&s, 0, &o));
    let g = read_f(&om, F32, 6);
    assert!(g[0].is_nan() && g[2].is_nan() && g[4].is_nan(), "{g:?}");
    let col: f64 = [g[1], g[3], g[5]].iter().sum();
    assert!((col - 1.0).abs() < 1e-6 && g.iter().skip(1).step_by(2).all(|x| x.is_finite()));
    ok(red::log_softmax(&s, -2, &o));
    let g = read_f(&om, F32, 6);
    assert!(
        g[0].is_nan() && g[2].is_nan() && g[4].is_nan() && g[1].is_finite(),
        "{g:?}"
    );
    // -inf elements get 0 (log: -inf); an all -inf slice is NaN.
    let ni = f64::NEG_INFINITY;
    let (s, _m) = input(F64, &[2, 2], &fl(&[ni, 0.0, ni, ni]));
    let (o, om) = output(F64, &[2, 2]);
    ok(red::softmax(&s, 1, &o));
    let g = read_f(&om, F64, 4);
    assert!(
        g[0] == 0.0 && g[1] == 1.0 && g[2].is_nan() && g[3].is_nan(),
        "{g:?}"
    );
    ok(red::log_softmax(&s, 1, &o));
    let g = read_f(&om, F64, 4);
    assert!(g[0] == ni && g[1] == 0.0 && g[2].is_nan(), "{g:?}");
}

#[test]
fn mean_dims_dtype_and_mean_v2_noop() {
    let xs = fl(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let (s, _m) = input(F32, &[2, 3], &xs);
    // Mean v1: an empty dim list reduces every axis (the library's reading of §5.6).
    let (o, om) = output(F32, &[1, 1]);
    ok(red::mean(&s, &[], true, F32 as i32, &o));
    assert_eq!(read_f(&om, F32, 1), [3.5]);
    let (o, om) = output(F64, &[3]);
    ok(red::mean(&s, &[0], false, F64 as i32, &o));
    assert_eq!(read_f(&om, F64, 3), [2.5, 3.5, 4.5]);
    // MeanV2 computes in self's dtype, which out must have; noopWithEmptyAxes: a copy;
    // false: every axis.
    let (o, om) = output(F32, &[2, 3]);
    ok(red::mean_v2(&s, &[], false, true, &o));
    assert_eq!(read_f(&om, F32, 6), [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let (o, om) = output(F32, &[]);
    ok(red::mean_v2(&s, &[], false, false, &o));
    assert_eq!(read_f(&om, F32, 1), [3.5]);
    for od in [F64, F16, BF16, S32, C64] {
        for (dims, noop) in [(&[][..], true), (&[][..], false), (&[0][..], false)] {
            let shape: &[usize] = match (dims.len(), noop) {
                (0, true) => &[2, 3],
                (0, false) => &[],
                _ => &[3],
            };
            let (o, om) = output(od, shape);
            refused(
                red::mean_v2(&s, dims, false, noop, &o),
                &om,
                &["out", "self's dtype"],
            );
        }
    }
    let (o, om) = output(F32, &[2, 1]);
    ok(red::mean_v2(&s, &[-1], true, true, &o));
    assert_eq!(read_f(&om, F32, 2), [2.0, 5.0]);
    // Integer means truncate toward zero: (-1 + -2) / 2 = -1, (1 + 2) / 2 = 1.
    let (s, _m) = input(S32, &[2, 2], &ints(&[-1, -2, 1, 2]));
    let (o, om) = output(S32, &[2]);
    ok(red::mean(&s, &[1], false, S32 as i32, &o));
    assert!(matches!(read(&om, S32, 2)[..], [Val::I(-1), Val::I(1)]));
    // Errors: bool self; dtype not reachable from self; dtype not castable to out.
    let (b, _bm) = input(Bool, &[2], &[Val::B(true), Val::B(false)]);
    let (o, om) = output(F32, &[]);
    refused(
        red::mean(&b, &[], false, F32 as i32, &o),
        &om,
        &["self", "ACL_BOOL"],
    );
    refused(red::mean_v2(&b, &[], false, false, &o), &om, &["self"]);
    refused(
        red::mean(&s, &[], false, Bool as i32, &output(Bool, &[]).0),
        &om,
        &[],
    );
    let (f, _fm) = input(F32, &[2], &fl(&[1.0, 2.0]));
    let (oi, oim) = output(S32, &[]);
    refused(
        red::mean(&f, &[], false, S32 as i32, &oi),
        &oim,
        &["cannot be cast"],
    );
    refused(
        red::mean(&f, &[], false, F32 as i32, &oi),
        &oim,
        &["cannot be cast", "out"],
    );
    refused(
        red::mean(&f, &[0, 0], false, F32 as i32, &o),
        &om,
        &["repeats"],
    );
}

#[test]
fn phase_one_errors_name_the_problem() {
    let (s, _m) = input(F32, &[2, 3], &fl(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]));
    let (o2, o2m) = output(F32, &[2]);
    let (o3, o3m) = output(F32, &[3]);
    // dims out of range / repeated / wrong out shape, for each multi-dim operator.
    refused(
        red::reduce_sum(&s, &[2], false, F32 as i32, &o2),
        &o2m,
        &["dims", "2", "[-2, 1]"],
    );
    refused(
        red::reduce_sum(&s, &[-3], false, F32 as i32, &o2),
        &o2m,
        &["dims", "-3"],
    );
    refused(
        red::reduce_sum(&s, &[1, -1], false, F32 as i32, &o2),
        &o2m,
        &["repeats"],
    );
    refused(
        red::reduce_sum(&s, &[1], true, F32 as i32, &o2),
        &o2m,
        &["shape", "[2, 1]"],
    );
    refused(
        red::reduce_sum(&s, &[0], false, F32 as i32, &o2),
        &o2m,
        &["shape", "[3]"],
    );
    refused(
        red::mean(&s, &[5], false, F32 as i32, &o2),
        &o2m,
        &["dim", "5"],
    );
    refused(red::amax(&s, &[0, 1, 0], false, &o2), &o2m, &["repeats"]);
    refused(red::amin(&s, &[1], true, &o3), &o3m, &["shape"]);
    refused(
        red::argmax(&s, 2, false, &output(S64, &[2]).0),
        &o2m,
        &["dim"],
    );
    refused(
        red::log_softmax(&s, -3, &output(F32, &[2, 3]).0),
        &o2m,
        &["dim", "-3"],
    );
    refused(red::softmax(&s, 1, &o2), &o2m, &["shape"]);
    // dtypes: ReduceSum dtype != out dtype; dtype unsupported.
    refused(
        red::reduce_sum(&s, &[1], false, F64 as i32, &o2),
        &o2m,
        &["dtype", "must be equal"],
    );
    let (ou, oum) = output(U16, &[2]);
    refused(
        red::reduce_sum(&s, &[1], false, U16 as i32, &ou),
        &oum,
        &["not supported"],
    );
    refused(red::reduce_sum(&s, &[1], false, 99, &o2), &o2m, &["dtype"]);
    // Amax/Amin: out must have self's dtype.
    let (o2d, o2dm) = output(F64, &[2]);
    refused(red::amax(&s, &[1], false, &o2d), &o2dm, &["self's dtype"]);
    refused(red::amin(&s, &[1], false, &o2d), &o2dm, &["self's dtype"]);
    // ArgMax: out s32/s64 only; complex self refused.
    refused(red::argmax(&s, 1, false, &o2), &o2m, &["out"]);
    let (c, _cm) = input(C64, &[2], &[Val::C(1.0, 0.0), Val::C(0.0, 1.0)]);
    refused(
        red::amax(&c, &[], false, &output(C64, &[]).0),
        &o2m,
        &["self"],
    );
    // Softmax: s32 self refused, s32 out refused.
    let (i, _im) = input(S32, &[2, 3], &ints(&[1, 2, 3, 4, 5, 6]));
    let (o23, o23m) = output(F32, &[2, 3]);
    refused(red::softmax(&i, 1, &o23), &o23m, &["self", "ACL_INT32"]);
    refused(red::log_softmax(&i, 1, &o23), &o23m, &["self"]);
    let (oi23, oi23m) = output(S32, &[2, 3]);
    refused(red::softmax(&s, 1, &oi23), &oi23m, &["out"]);
}

/// Reference §5.6: "The result is computed in `dtype` and cast to out" (and the library's
/// own rule: "Mean computes in `dtype`"). With dtype f16 and out f32 the mean must be an
/// f16 value; with dtype s32 and out f32 an integer.
#[test]
fn mean_result_is_rounded_to_dtype_before_out() {
    let (s, _m) = input(F32, &[3], &fl(&[1.0, 1.0, 1.0 + p2(-9)]));
    // exact mean 1 + 2^-9/3 = 1.000651..; in f16 (ulp 2^-10): 1.0 + 2^-10 (0.6667 ulp rounds up)
    let (o, om) = output(F32, &[]);
    ok(red::mean(&s, &[], false, F16 as i32, &o));
    let g = read_f(&om, F32, 1)[0];
    assert_eq!(g, 1.0 + p2(-10), "mean in f16 then cast to f32: got {g:e}");
    let (i, _im) = input(S32, &[2], &ints(&[1, 2]));
    let (o, om) = output(F32, &[]);
    ok(red::mean(&i, &[], false, S32 as i32, &o));
    let g = read_f(&om, F32, 1)[0];
    assert_eq!(
        g,
        g.trunc(),
        "mean of (1, 2) in s32 must be an integer, got {g}"
    );
}

/// An integer mean of one s64 element is that element: the i64 sum must not go through f64.
#[test]
fn integer_mean_keeps_s64_precision() {
    let big = (1i128 << 53) + 1;
    let (s, _m) = input(S64, &[1, 2], &ints(&[big, big]));
    let (o, om) = output(S64, &[1]);
    ok(red::mean(&s, &[1], false, S64 as i32, &o));
    let g = read(&om, S64, 1)[0];
    assert!(
        matches!(g, Val::I(x) if x == big),
        "mean of (2^53+1, 2^53+1): got {g:?}"
    );
}

/// Reference §5.6: "Mean on an empty self fills out with NaN (not allowed for complex out)".
#[test]
fn mean_of_empty_into_complex_out_is_refused() {
    let (s, _m) = input(C64, &[0], &[]);
    let (o, om) = output(C64, &[]);
    refused(red::mean(&s, &[], false, C64 as i32, &o), &om, &["complex"]);
    refused(
        red::mean_v2(&s, &[0], true, false, &output(C64, &[1]).0),
        &om,
        &["complex"],
    );
    // Reducing a non-empty axis (the empty one kept): an empty out, accepted.
    let (s2, _m2) = input(C128, &[0, 3], &[]);
    ok(red::mean(
        &s2,
        &[1],
        false,
        C128 as i32,
        &output(C128, &[0]).0,
    ));
    refused(
        red::mean(&s2, &[0], false, C128 as i32, &output(C128, &[3]).0),
        &om,
        &["complex"],
    );
}

// ---------------------------------------------------------------------------------------
// Accuracy of long f32 sums
// ---------------------------------------------------------------------------------------

/// Sums `xs` (f32) with ReduceSum(dtype f32) and returns (result, exact sum as f64 rounded,
/// error in f32 ulps of the exact sum).
fn sum_f32(xs: &[f32]) -> (f64, f64, f64) {
    let n = xs.len();
    let mut m = Mem::new(n * 4);
    for (k, x) in xs.iter().enumerate() {
        m.bytes_mut()[4 * k..4 * k + 4].copy_from_slice(&x.to_le_bytes());
    }
    let s = tdesc(&contiguous_view(&[n], F32), &mut m);
    let (o, om) = output(F32, &[]);
    ok(red::reduce_sum(&s, &[], false, F32 as i32, &o));
    let got = read_f(&om, F32, 1)[0];
    let mut acc = ExactSum::new();
    xs.iter().for_each(|&x| acc.add(x as f64));
    let exact = acc.round(FMT_F64);
    (got, exact, (got - exact).abs() / FMT_F32.ulp(exact))
}

/// 10^7 f32 elements. The library accumulates in f64, so the error before the final
/// rounding is at most n·2^-53·sum|x| (< 0.012 f32 ulp of the result for these inputs):
/// the result must be within 0.5 ulp + that, i.e. the correctly rounded sum or (only when
/// the exact sum is within 0.012 ulp of a tie) its neighbour: asserted as <= 1 ulp, and
/// exactly the correctly rounded sum for inputs whose f64 partial sums are exact.
#[test]
fn f32_sums_of_ten_million_elements_are_within_one_ulp() {
    let n = 10_000_000;
    let mut rng = Rng::new(77);
    // (a) uniform in [0, 1) with full 24-bit mantissas at every magnitude.
    let xs: Vec<f32> = (0..n)
        .map(|_| {
            let u = (rng.next() >> 11) as f64 * p2(-53);
            u as f32
        })
        .collect();
    let (got, exact, ulps) = sum_f32(&xs);
    let bound = 0.5 + n as f64 * p2(-53) * exact / FMT_F32.ulp(exact);
    assert!(bound < 0.52, "bound {bound}");
    assert!(
        ulps <= bound,
        "[0,1): got {got}, exact {exact}, {ulps} ulp > {bound}"
    );
    // The naive f32 loop is far off; the library is not.
    let naive: f32 = xs.iter().sum();
    assert!(((naive as f64) - exact).abs() / FMT_F32.ulp(exact) > 10.0);
    // (b) 1e8 then 10^7 - 1 ones (an f32 accumulator would stay at 1e8): exact in f64, so
    // the result is the correctly rounded 109999999 -> 110000000.
    let mut xs = vec![1.0f32; n];
    xs[0] = 1e8;
    let (got, exact, _) = sum_f32(&xs);
    assert_eq!(exact, 109_999_999.0);
    assert_eq!(got, 110_000_000.0);
    // (c) the same with the big value last, and with 1e8 and -1e8 around the ones:
    // cancellation leaves 9999998, exactly representable.
    xs[0] = 1.0;
    xs[n - 1] = 1e8;
    assert_eq!(sum_f32(&xs).0, 110_000_000.0);
    xs[0] = 1e8;
    xs[n - 1] = -1e8;
    assert_eq!(sum_f32(&xs).0, 9_999_998.0);
    // (d) alternating ±(1 + k·2^-23): large cancellation, many mantissa bits.
    let xs: Vec<f32> = (0..n)
        .map(|k| {
            let v = 1.0 + (k % 4096) as f32 * 2f32.powi(-23);
            if k % 2 == 0 {
                v
            } else {
                -v * 0.999
            }
        })
        .collect();
    // Every value is a multiple of 2^-24 and sum|x| < 2^25: every f64 partial sum is exact,
    // so the result must be the correctly rounded sum (0 ulp), whatever the order.
    let (got, exact, _) = sum_f32(&xs);
    let abs: f64 = xs.iter().map(|x| x.abs() as f64).sum();
    assert!(abs < p2(25) && xs.iter().all(|&x| (x as f64 * p2(24)).fract() == 0.0));
    let mut acc = ExactSum::new();
    xs.iter().for_each(|&x| acc.add(x as f64));
    assert_eq!(got, acc.round(FMT_F32), "alternating: exact sum {exact}");
}
