//! Differential tests of the math headers of issue 21 (element-wise part): the inverse
//! trigonometric/hyperbolic functions, Sinc, Lgamma, Digamma, Frac, Square, Atan2,
//! LogAddExp(2), XLogY (tensor and scalar forms), Xlog1py, FloorDivide(s), Remainder,
//! Fmod, Gcd, the shifts, IsFinite/IsInf/IsPosInf/IsNegInf/Signbit/IsClose, NanToNum,
//! Complex, Polar, Real, Lerp(s), Addr and Rsub(s).
//!
//! Each random case draws shapes (0-d, empty, broadcasting), strided views (permuted,
//! padded, offset, stride-0 inputs), dtypes from the operator's lists and "nice" values
//! (NaN, ±inf, ±0, subnormals, integer extremes), runs the rule's executor and checks every
//! element of out's view, and that nothing outside the view was written.
//!
//! References, per operator:
//! - float functions: torch 1.13 in f64 on the inputs converted to the computation dtype
//!   (the promoted dtype's float: integers in f32), and the result must be within a stated
//!   number of ulps of out's format (or of the computation's, when coarser): 1 ulp where
//!   the library evaluates in f64 and rounds once (Sinc, Lgamma, Digamma, Atan2, LogAddExp,
//!   XLogY, Xlog1py, Polar), 2 ulps where f32 inputs go through the C library's f32
//!   functions (Acos, ..., Atanh), 2 ulps for f64 results (plus 1e-13 absolute for Digamma
//!   and Lgamma, whose f64 references are computed by other algorithms);
//! - exact operators (FloorDivide, Remainder, Fmod, Frac, Square, Gcd, NanToNum, Real,
//!   predicates, IsClose): torch in the promoted dtype (f16/bf16 through f32, rounded once),
//!   compared bit for bit after the conversion to out; integer division by zero, which
//!   torch refuses, follows the library's documented convention (x // 0 = 0, x % 0 = x,
//!   fmod(x, 0) = x) in the torch program;
//! - shifts, Complex: an exact model written here (torch 1.13 has no u16/u32/u64 and
//!   leaves shifts out of range undefined);
//! - Lerp, Addr: torch in f32 (f16/bf16 inputs widened), within 2 ulps of f32 relative to
//!   the operands' magnitude (torch may fuse multiply-adds), then out's rounding;
//! - Rsub(s): bit for bit against Sub(s) with the operands exchanged.
//!
//! Without torch the torch-referenced checks are skipped (torch_ref).

use super::add_diff::{
    conv, decode, desc, nice_bytes, ref_can_cast, ref_promote, ref_promote_scalar, run_exec, same,
    size, Buf, Rng, Sc, View, V,
};
use super::matmul_diff::{at, gen_view, need_elems};
use super::torch_ref::{Array, Batch};
use crate::dtype::DType::{self, *};
use crate::error::Error;
use crate::executor::Executor;
use crate::ops;
use crate::scalar::Scalar;
use crate::tensor::TensorDesc;

// ---------------------------------------------------------------------------------------
// Operands
// ---------------------------------------------------------------------------------------

/// A tensor of a case: its view over its own storage.
struct Operand {
    view: View,
    buf: Buf,
}

impl Operand {
    fn input(rng: &mut Rng, dtype: DType, shape: &[usize]) -> Operand {
        let view = gen_view(rng, shape, dtype, 0, true);
        let n = need_elems(&view) + 2;
        let sz = size(dtype);
        let mut buf = Buf::new(n * sz);
        for e in 0..n {
            let b = nice_bytes(rng, dtype);
            buf.bytes_mut()[e * sz..(e + 1) * sz].copy_from_slice(&b[..sz]);
        }
        Operand { view, buf }
    }
    fn output(rng: &mut Rng, dtype: DType, shape: &[usize]) -> Operand {
        let view = gen_view(rng, shape, dtype, 0, false);
        let n = need_elems(&view) + 2;
        let mut buf = Buf::new(n * size(dtype));
        buf.bytes_mut().fill(0xA5);
        Operand { view, buf }
    }
    fn desc(&self) -> TensorDesc {
        desc(&self.view, &self.buf).expect("a valid view")
    }
    fn dtype(&self) -> DType {
        self.view.dtype
    }
    /// Element offsets of the view in row-major order.
    fn offsets(&self) -> Vec<usize> {
        let shape = &self.view.shape;
        let n: usize = shape.iter().product();
        let mut idx = vec![0usize; shape.len()];
        let mut out = Vec::with_capacity(n);
        for _ in 0..n {
            out.push(at(&self.view, &idx));
            for d in (0..shape.len()).rev() {
                idx[d] += 1;
                if idx[d] < shape[d] {
                    break;
                }
                idx[d] = 0;
            }
        }
        out
    }
    /// The view's elements, contiguous (torch's input).
    fn array(&self) -> Array {
        let sz = size(self.dtype());
        let mut bytes = vec![];
        for e in self.offsets() {
            bytes.extend_from_slice(&self.buf.bytes()[e * sz..(e + 1) * sz]);
        }
        Array {
            dtype: self.dtype(),
            shape: self.view.shape.clone(),
            bytes,
        }
    }
    fn values(&self) -> Vec<V> {
        let sz = size(self.dtype());
        self.offsets()
            .iter()
            .map(|&e| decode(self.dtype(), &self.buf.bytes()[e * sz..(e + 1) * sz]))
            .collect()
    }
    /// Storage bytes outside the view (must be untouched by a write into the view).
    fn outside(&self) -> Vec<(usize, u8)> {
        let sz = size(self.dtype());
        let inside: std::collections::HashSet<usize> = self.offsets().into_iter().collect();
        let b = self.buf.bytes();
        (0..b.len())
            .filter(|i| !inside.contains(&(i / sz)))
            .map(|i| (i, b[i]))
            .collect()
    }
}

/// Row-major index into an input of shape `shape` of out's element `i` (broadcasting).
fn bcast_index(out_shape: &[usize], shape: &[usize], i: usize) -> usize {
    let mut idx = vec![0usize; out_shape.len()];
    let mut r = i;
    for d in (0..out_shape.len()).rev() {
        idx[d] = r % out_shape[d].max(1);
        r /= out_shape[d].max(1);
    }
    let lead = out_shape.len() - shape.len();
    let mut k = 0;
    for j in 0..shape.len() {
        k = k * shape[j] + if shape[j] == 1 { 0 } else { idx[lead + j] };
    }
    k
}

fn array_values(a: &Array) -> Vec<V> {
    (0..a.numel()).map(|i| decode(a.dtype, a.elem(i))).collect()
}

/// A random shape of up to 3 dims, sometimes empty, and shapes that broadcast to it.
fn shapes(rng: &mut Rng, n: usize) -> (Vec<usize>, Vec<Vec<usize>>) {
    let rank = rng.below(4) as usize;
    let out: Vec<usize> = (0..rank)
        .map(|_| {
            if rng.pct(5) {
                0
            } else {
                1 + rng.below(5) as usize
            }
        })
        .collect();
    let full = rng.below(n.max(1) as u64) as usize;
    let ins = (0..n)
        .map(|k| {
            if k == full {
                return out.clone();
            }
            let drop = if rank > 0 && rng.pct(25) {
                rng.below(rank as u64 + 1) as usize
            } else {
                0
            };
            out[drop..]
                .iter()
                .map(|&d| if d != 0 && rng.pct(20) { 1 } else { d })
                .collect()
        })
        .collect();
    (out, ins)
}

fn random_scalar(rng: &mut Rng, d: DType) -> Sc {
    Sc {
        dtype: d,
        bytes: nice_bytes(rng, d),
    }
}

// ---------------------------------------------------------------------------------------
// Checking a result
// ---------------------------------------------------------------------------------------

/// How an element is compared with its reference.
#[derive(Clone, Copy, Debug)]
enum Check {
    /// The reference (in the computation dtype) converted to out, bit for bit.
    Exact,
    /// A float reference in f64: within `ulps` ulps of the coarser of out's format and
    /// the computation's (`abs` more where the references' own algorithms differ).
    Ulps { ulps: f64, abs: f64 },
    /// Within `ulps` ulps of f32 at the magnitude `scale` (given per element), then out's.
    Scaled { ulps: f64 },
}

fn precision(d: DType) -> (i32, i32) {
    // (mantissa bits with the implicit one, minimum normal exponent)
    match d {
        F16 => (11, -14),
        BF16 => (8, -126),
        F32 | C64 => (24, -126),
        _ => (53, -1022),
    }
}

fn coarser(a: DType, b: DType) -> DType {
    if precision(a).0 <= precision(b).0 {
        a
    } else {
        b
    }
}

fn ulp(d: DType, x: f64) -> f64 {
    let (p, emin) = precision(d);
    let e = if x == 0.0 || !x.is_finite() {
        emin
    } else {
        (((x.abs().to_bits() >> 52) as i32) - 1023).max(emin)
    };
    2f64.powi(e - (p - 1))
}

fn as_f64(v: V) -> f64 {
    match v {
        V::B(b) => b as u8 as f64,
        V::I(i) => i as f64,
        V::F(x) => x,
        V::C(re, _) => re,
    }
}

/// Compares out's element `got` (of dtype `o`) with reference `want`; `c` is the
/// computation dtype, `scale` the magnitude for `Check::Scaled`.
fn close(check: Check, c: DType, o: DType, got: V, want: V, scale: f64) -> bool {
    match check {
        Check::Exact => same(
            got,
            conv(
                if c.is_complex() || c == Bool {
                    want
                } else {
                    conv(want, c)
                },
                o,
            ),
        ),
        Check::Ulps { ulps, abs } => float_close(c, o, got, want, ulps, abs, 0.0),
        Check::Scaled { ulps } => float_close(c, o, got, want, ulps, 0.0, scale),
    }
}

fn float_close(c: DType, o: DType, got: V, want: V, ulps: f64, abs: f64, scale: f64) -> bool {
    let parts = |v: V| match v {
        V::C(re, im) => vec![re, im],
        v => vec![as_f64(v)],
    };
    let (g, w) = (parts(got), parts(want));
    g.len() == w.len()
        && g.iter().zip(&w).all(|(&g, &w)| {
            let f = coarser(c, o);
            let r = match conv(conv(V::F(w), if c.is_complex() { o } else { c }), o) {
                V::F(x) => x,
                V::C(x, _) => x,
                _ => unreachable!(),
            };
            if w.is_nan() {
                return g.is_nan();
            }
            if !r.is_finite() || !g.is_finite() {
                // Overflow at the rounding edge may go either way by one ulp.
                return g == r
                    || (g.is_finite() != r.is_finite()
                        && (g.abs() - w.abs()).abs() <= ulps * ulp(f, w.abs().min(f64::MAX)));
            }
            (g - w).abs()
                <= ulps * ulp(f, w).max(ulp(o, r))
                    + abs
                    + ulps * ulp(F32, scale) * (scale > 0.0) as u8 as f64
        })
}

// ---------------------------------------------------------------------------------------
// The operator table
// ---------------------------------------------------------------------------------------

/// How the computation dtype follows from the promoted dtype.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Comp {
    /// Float functions: the promoted float, f32 for integer and bool.
    Floating,
    /// The promoted dtype itself (exact operators; f16/bf16 through f32).
    Promoted,
    /// A predicate: bool.
    Predicate,
}

fn computation(comp: Comp, p: DType) -> DType {
    match comp {
        Comp::Floating if !p.is_float() && !p.is_complex() => F32,
        Comp::Predicate => Bool,
        _ => p,
    }
}

type Build = fn(&[TensorDesc], &[Scalar], &TensorDesc, bool) -> crate::Result<Executor>;

/// One operator form: `inputs` tensors (dtype list `ins`), `scalars` scalar operands
/// (dtype list `sins`), out from `outs`.
struct Op {
    name: &'static str,
    tensors: usize,
    scalars: usize,
    ins: &'static [DType],
    sins: &'static [DType],
    outs: &'static [DType],
    comp: Comp,
    /// Every input must have the same dtype (and out, for `same_out`).
    same_in: bool,
    same_out: bool,
    /// Whether the first tensor's shape must be out's (unary operators, in-place forms).
    unary: bool,
    /// Whether the scalar comes first (XLogYScalarSelf, RemainderScalarTensor).
    scalar_first: bool,
    /// The torch program: inputs `x`, `y`, `z` are converted to the computation dtype `c`
    /// (float functions: then to f64); it assigns `out`.
    torch: &'static str,
    check: Check,
    build: Build,
}

const INV_TRIG_IN: &[DType] = &[S8, S16, S32, S64, U8, Bool, F32, F16, F64];
const INV_TRIG_OUT: &[DType] = &[F32, F16, F64];
const ATAN_IN: &[DType] = &[S8, S16, S32, S64, U8, Bool, F32, F16, F64, BF16];
const ATAN_OUT: &[DType] = &[F32, F16, F64, BF16];
const GAMMA: &[DType] = &[F32, F16, F64];
const HALFS: &[DType] = &[F32, F16, BF16];
const XLOGY_IN: &[DType] = &[F32, F16, S32, S64, S16, S8, U8, Bool, BF16];
const FD_IN: &[DType] = &[F32, F16, F64, S32, S64, S16, S8, U8, Bool, BF16];
const FD_OUT: &[DType] = &[F32, F16, F64, S32, S64, S16, S8, U8, C64, C128, BF16];
const REM: &[DType] = &[S32, S64, F16, F32, F64, BF16];
const REM_OUT: &[DType] = &[U8, S8, S16, S32, S64, F16, F32, F64, C64, C128, BF16];
const FMOD: &[DType] = &[F64, BF16, F16, F32, S32, S64, S8, U8];
const GCD_IN: &[DType] = &[U8, S8, S16, S32, S64];
const GCD_OUT: &[DType] = &[U8, S8, S16, S32, S64];
const FLOATS: &[DType] = &[F32, F16, F64, BF16];
const IS_INF_IN: &[DType] = &[F32, F16, F64, BF16, S8, S16, S32, S64, U8, Bool];
const SIGNBIT_IN: &[DType] = &[F32, F16, BF16, S32, S64, S16, S8, U8, Bool, F64];
const SIGNBIT_OUT: &[DType] = &[Bool, F32, F16, BF16, F64, S8, U8, S16, S32, S64];
const ISCLOSE_IN: &[DType] = &[F32, S32, S64, F16, S16, S8, U8, F64, Bool, BF16];
const NAN_TO_NUM: &[DType] = &[F16, F32, S8, S16, S32, S64, U8, Bool, BF16];
const ADDR: &[DType] = &[F32, F16, F64, S8, S16, S32, S64, U8, Bool, BF16];
const REAL_IN: &[DType] = &[F32, F16, C64, C128];

const F_SPECIAL: Check = Check::Ulps {
    ulps: 1.0,
    abs: 0.0,
};
const F_LIBM: Check = Check::Ulps {
    ulps: 2.0,
    abs: 0.0,
};
const F_GAMMA: Check = Check::Ulps {
    ulps: 2.0,
    abs: 1e-13,
};

macro_rules! un {
    ($name:literal, $ins:expr, $outs:expr, $comp:expr, $same_out:expr, $torch:expr, $check:expr, $f:path) => {
        Op {
            name: $name,
            tensors: 1,
            scalars: 0,
            ins: $ins,
            sins: &[],
            outs: $outs,
            comp: $comp,
            same_in: false,
            same_out: $same_out,
            unary: true,
            scalar_first: false,
            torch: $torch,
            check: $check,
            build: |t, _, o, _| $f(&t[0], o),
        }
    };
}
macro_rules! bin {
    ($name:literal, $ins:expr, $outs:expr, $comp:expr, $torch:expr, $check:expr, $f:path) => {
        Op {
            name: $name,
            tensors: 2,
            scalars: 0,
            ins: $ins,
            sins: &[],
            outs: $outs,
            comp: $comp,
            same_in: false,
            same_out: false,
            unary: false,
            scalar_first: false,
            torch: $torch,
            check: $check,
            build: |t, _, o, _| $f(&t[0], &t[1], o),
        }
    };
}
macro_rules! bin_scalar {
    ($name:literal, $ins:expr, $outs:expr, $comp:expr, $first:expr, $torch:expr, $check:expr, $build:expr) => {
        Op {
            name: $name,
            tensors: 1,
            scalars: 1,
            ins: $ins,
            sins: $ins,
            outs: $outs,
            comp: $comp,
            same_in: false,
            same_out: false,
            unary: true,
            scalar_first: $first,
            torch: $torch,
            check: $check,
            build: $build,
        }
    };
}

/// torch's integer division by zero raises: the programs apply the library's convention.
const FLOOR_DIV_T: &str = "if x.dtype == torch.bool:\n    x, y = x.to(torch.uint8), y.to(torch.uint8)\nif c.is_floating_point:\n    out = torch.div(w(x), w(y), rounding_mode='floor')\nelse:\n    z0 = y == 0\n    out = torch.div(x, torch.where(z0, torch.ones_like(y), y), rounding_mode='floor')\n    out = torch.where(z0, torch.zeros_like(out), out)";
const REMAINDER_T: &str = "if c.is_floating_point:\n    out = torch.remainder(w(x), w(y))\nelse:\n    z0 = y == 0\n    out = torch.remainder(x, torch.where(z0, torch.ones_like(y), y))\n    out = torch.where(z0, x.expand_as(out), out)";
const FMOD_T: &str = "if c.is_floating_point:\n    out = torch.fmod(w(x), w(y))\nelse:\n    z0 = y == 0\n    out = torch.fmod(x, torch.where(z0, torch.ones_like(y), y))\n    out = torch.where(z0, x.expand_as(out), out)";

fn ops_table() -> Vec<Op> {
    use ops::{classify as cl, math as m, modulo as md, special as sp};
    vec![
        un!("Acos", INV_TRIG_IN, INV_TRIG_OUT, Comp::Floating, false, "out = torch.acos(x)", F_LIBM, m::acos),
        un!("Asin", INV_TRIG_IN, INV_TRIG_OUT, Comp::Floating, false, "out = torch.asin(x)", F_LIBM, m::asin),
        un!("Atan", ATAN_IN, ATAN_OUT, Comp::Floating, false, "out = torch.atan(x)", F_LIBM, m::atan),
        un!("Acosh", GAMMA, GAMMA, Comp::Floating, false, "out = torch.acosh(x)", F_LIBM, m::acosh),
        un!("Asinh", INV_TRIG_IN, INV_TRIG_OUT, Comp::Floating, false, "out = torch.asinh(x)", F_LIBM, m::asinh),
        un!("Atanh", INV_TRIG_IN, INV_TRIG_OUT, Comp::Floating, false, "out = torch.atanh(x)", F_LIBM, m::atanh),
        un!("Sinc", ATAN_IN, ATAN_OUT, Comp::Floating, false, "out = torch.sinc(x)", F_SPECIAL, m::sinc),
        un!("Lgamma", GAMMA, GAMMA, Comp::Floating, true, "out = torch.lgamma(x)", F_GAMMA, m::lgamma),
        un!("Digamma", GAMMA, GAMMA, Comp::Floating, true, "out = torch.digamma(x)", F_GAMMA, m::digamma),
        un!("Frac", &[F16, F32, U8, S8, S16, S32, S64, BF16], &[F16, F32, U8, S8, S16, S32, S64, BF16], Comp::Promoted, true,
            "out = torch.frac(w(x)) if c.is_floating_point else torch.zeros_like(x)", Check::Exact, m::frac),
        un!("Square", &[F32, F16, BF16, S32, S64], &[F32, F16, BF16, S32, S64], Comp::Promoted, true,
            "out = w(x) * w(x) if c.is_floating_point else x * x", Check::Exact, m::square),
        un!("IsFinite", FLOATS, &[Bool], Comp::Predicate, false, "out = torch.isfinite(x)", Check::Exact, cl::is_finite),
        un!("IsInf", IS_INF_IN, &[Bool], Comp::Predicate, false, "out = torch.isinf(x)", Check::Exact, cl::is_inf),
        un!("IsPosInf", FLOATS, &[Bool], Comp::Predicate, false, "out = torch.isposinf(x)", Check::Exact, cl::is_pos_inf),
        un!("IsNegInf", FLOATS, &[Bool], Comp::Predicate, false, "out = torch.isneginf(x)", Check::Exact, cl::is_neg_inf),
        un!("Signbit", SIGNBIT_IN, SIGNBIT_OUT, Comp::Predicate, false,
            "out = torch.signbit(x) if x.dtype != torch.bool else torch.zeros_like(x)", Check::Exact, cl::signbit),
        un!("Real", REAL_IN, &[F32, F16, F64], Comp::Promoted, false,
            "out = torch.real(x) if x.is_complex() else x", Check::Exact, ops::complex::real),
        bin!("Atan2", ATAN_IN, ATAN_OUT, Comp::Floating, "out = torch.atan2(x, y)", F_SPECIAL, sp::atan2),
        bin!("LogAddExp", &[F16, F32, F64, U8, S8, S16, S32, S64, Bool, BF16], HALFS, Comp::Floating,
            "out = torch.logaddexp(x, y)", F_SPECIAL, sp::log_add_exp),
        bin!("LogAddExp2", &[F16, F32, F64, U8, S8, S16, S32, S64, Bool, BF16], HALFS, Comp::Floating,
            "out = torch.logaddexp2(x, y)", F_SPECIAL, sp::log_add_exp2),
        bin!("XLogYTensor", XLOGY_IN, HALFS, Comp::Floating, "out = torch.xlogy(x, y)", F_SPECIAL, sp::x_log_y_tensor),
        bin!("FloorDivide", FD_IN, FD_OUT, Comp::Promoted, FLOOR_DIV_T, Check::Exact, md::floor_divide),
        bin!("RemainderTensorTensor", REM, REM_OUT, Comp::Promoted, REMAINDER_T, Check::Exact, md::remainder_tensor_tensor),
        bin!("FmodTensor", FMOD, FMOD, Comp::Promoted, FMOD_T, Check::Exact, md::fmod_tensor),
        bin!("Gcd", GCD_IN, GCD_OUT, Comp::Promoted, "out = torch.gcd(x, y)", Check::Exact, ops::integer::gcd),
        Op {
            same_in: true,
            ..bin!("IsClose", ISCLOSE_IN, &[Bool], Comp::Predicate,
                "x, y = torch.broadcast_tensors(x.double(), y.double())\nout = torch.isclose(x, y, rtol=1e-3, atol=1e-5, equal_nan=True)",
                Check::Exact, is_close_fixed)
        },
        Op {
            same_in: true,
            same_out: true,
            ..bin!("Xlog1py", HALFS, HALFS, Comp::Floating, "out = torch.special.xlog1py(x, y)", F_SPECIAL, sp::xlog1py)
        },
        bin_scalar!("FloorDivides", FD_IN, FD_IN, Comp::Promoted, false, FLOOR_DIV_T, Check::Exact,
            |t, s, o, _| md::floor_divides(&t[0], &s[0], o)),
        bin_scalar!("RemainderTensorScalar", REM, REM_OUT, Comp::Promoted, false, REMAINDER_T, Check::Exact,
            |t, s, o, _| md::remainder_tensor_scalar(&t[0], &s[0], o)),
        bin_scalar!("RemainderScalarTensor", REM, REM, Comp::Promoted, true, REMAINDER_T, Check::Exact,
            |t, s, o, _| md::remainder_scalar_tensor(&s[0], &t[0], o)),
        bin_scalar!("FmodScalar", FMOD, FMOD, Comp::Promoted, false, FMOD_T, Check::Exact,
            |t, s, o, _| md::fmod_scalar(&t[0], &s[0], o)),
        bin_scalar!("XLogYScalarOther", XLOGY_IN, HALFS, Comp::Floating, false, "out = torch.xlogy(x, y)", F_SPECIAL,
            |t, s, o, _| sp::x_log_y_scalar_other(&t[0], &s[0], o)),
        bin_scalar!("XLogYScalarSelf", &[F32, F16, F64, S32, S64, S16, S8, U8, Bool, BF16], HALFS, Comp::Floating, true,
            "out = torch.xlogy(x, y)", F_SPECIAL, |t, s, o, _| sp::x_log_y_scalar_self(&s[0], &t[0], o)),
        Op {
            same_in: true,
            same_out: true,
            unary: true,
            tensors: 3,
            ..bin!("Lerp", HALFS, HALFS, Comp::Promoted, "out = torch.lerp(w(x), w(y), w(z))",
                Check::Scaled { ulps: 2.0 }, lerp3)
        },
    ]
}

fn is_close_fixed(a: &TensorDesc, b: &TensorDesc, o: &TensorDesc) -> crate::Result<Executor> {
    ops::classify::is_close(a, b, 1e-3, 1e-5, true, o)
}
fn lerp3(_: &TensorDesc, _: &TensorDesc, _: &TensorDesc) -> crate::Result<Executor> {
    unreachable!("Lerp builds through `build3`")
}

/// The promoted dtype of a case's operands (None: not promotable).
fn promoted(op: &Op, tensors: &[DType], scalars: &[DType]) -> Option<DType> {
    let mut p = tensors[0];
    for &d in &tensors[1..] {
        p = ref_promote(p, d)?;
    }
    for &s in scalars {
        p = ref_promote_scalar(p, s)?;
    }
    let _ = op;
    Some(p)
}

fn torch_name(d: DType) -> &'static str {
    match d {
        F32 => "float32",
        F64 => "float64",
        F16 => "float16",
        BF16 => "bfloat16",
        S8 => "int8",
        U8 => "uint8",
        S16 => "int16",
        S32 => "int32",
        S64 => "int64",
        Bool => "bool",
        C64 => "complex64",
        C128 => "complex128",
        _ => unreachable!(),
    }
}

/// The torch program of `op` for computation dtype `c` and promoted dtype `p`: the inputs
/// converted (float functions: through the computation dtype to f64).
fn program(op: &Op, p: DType, c: DType) -> String {
    let conv_in = match op.comp {
        Comp::Floating => format!(
            ".to(torch.{}).to(torch.{}).double()",
            torch_name(p),
            torch_name(c)
        ),
        Comp::Promoted => format!(".to(torch.{})", torch_name(p)),
        Comp::Predicate => String::new(),
    };
    let n = op.tensors + op.scalars;
    // f16/bf16 compute in f32 (the library's rule); `w` widens them.
    let mut s = format!(
        "c = torch.{}\nw = lambda t: t.float() if t.dtype in (torch.float16, torch.bfloat16) else t\n",
        torch_name(c)
    );
    // A float function converts a scalar operand straight to the computation dtype (the
    // engine's conversion), not through the promoted one: −3 stays −3 beside a u8 tensor.
    let scalar_conv = match op.comp {
        Comp::Floating => format!(".to(torch.{}).double()", torch_name(c)),
        _ => conv_in.clone(),
    };
    for (k, v) in ["x", "y", "z"].iter().take(n).enumerate() {
        let is_scalar = if op.scalar_first {
            k < op.scalars
        } else {
            k >= op.tensors
        };
        let cv = if is_scalar { &scalar_conv } else { &conv_in };
        s += &format!("{v} = a[{k}]{cv}\n");
    }
    s += op.torch;
    s += "\n";
    s
}

/// Where torch 1.13's division-rounding kernels disagree with themselves, and so are no
/// reference, elements are not compared:
/// - its floor division gives NaN or ±inf where the quotient overflows or an operand is
///   infinite, depending on whether its vectorised or scalar loop ran (the library follows
///   the scalar loop, Python's algorithm);
/// - its vectorised fmod (Sleef's, behind FloorDivide, Remainder and Fmod) returns NaN for
///   a subnormal divisor and for quotients beyond 2^24, where C's fmod is exact.
fn torch_path_dependent(op: &str, args: &[V], want: V) -> bool {
    if !matches!(
        op,
        "FloorDivide"
            | "FloorDivides"
            | "RemainderTensorTensor"
            | "RemainderTensorScalar"
            | "RemainderScalarTensor"
            | "FmodTensor"
            | "FmodScalar"
    ) || args.len() != 2
    {
        return false;
    }
    let (a, b) = (as_f64(args[0]), as_f64(args[1]));
    let want_special = matches!(want, V::F(w) if w.is_nan() || w.is_infinite());
    let floor_div = op.starts_with("FloorDivide");
    (floor_div && want_special && (a / b).is_infinite())
        || (b != 0.0 && b.abs() < f32::MIN_POSITIVE as f64)
        || (want_special
            && a.is_finite()
            && b.is_finite()
            && b != 0.0
            && (a / b).abs() > 16777216.0)
}

struct Run {
    op_name: &'static str,
    /// Each input's shape and values (scalars: shape []).
    inputs: Vec<(Vec<usize>, Vec<V>)>,
    c: DType,
    out: Operand,
    before: Vec<(usize, u8)>,
    scales: Vec<f64>,
    torch_case: usize,
}

#[test]
fn element_wise_ops_match_torch_on_random_views_and_dtypes() {
    let table = ops_table();
    let mut rng = Rng::new(21);
    let mut batch = Batch::new();
    let mut runs: Vec<Run> = vec![];
    for op in &table {
        let mut done = 0;
        let mut tries = 0;
        while done < 40 && tries < 2000 {
            tries += 1;
            let td: Vec<DType> = if op.same_in {
                vec![rng.pick(op.ins); op.tensors]
            } else {
                (0..op.tensors).map(|_| rng.pick(op.ins)).collect()
            };
            let sd: Vec<DType> = (0..op.scalars).map(|_| rng.pick(op.sins)).collect();
            let Some(p) = promoted(op, &td, &sd) else {
                continue;
            };
            // Real computes in the part dtype of a complex self.
            let c = match (op.name, p) {
                ("Real", C64) => F32,
                ("Real", C128) => F64,
                _ => computation(op.comp, p),
            };
            let o = if op.same_out {
                td[0]
            } else {
                rng.pick(op.outs)
            };
            if !ref_can_cast(c, o) {
                continue;
            }
            if matches!(op.name, "Lgamma" | "Digamma" | "Frac" | "Square") && o != td[0] {
                continue;
            }
            let (out_shape, in_shapes) = shapes(&mut rng, op.tensors);
            let in_shapes: Vec<Vec<usize>> = if op.unary {
                vec![out_shape.clone(); op.tensors]
            } else {
                in_shapes
            };
            let ins: Vec<Operand> = td
                .iter()
                .zip(&in_shapes)
                .map(|(&d, s)| Operand::input(&mut rng, d, s))
                .collect();
            let scs: Vec<Sc> = sd.iter().map(|&d| random_scalar(&mut rng, d)).collect();
            let out = Operand::output(&mut rng, o, &out_shape);
            let descs: Vec<TensorDesc> = ins.iter().map(|t| t.desc()).collect();
            let scalars: Vec<Scalar> = scs.iter().map(|s| s.to_scalar()).collect();
            let exec = if op.name == "Lerp" {
                ops::lerp::lerp(&descs[0], &descs[1], &descs[2], &out.desc())
            } else {
                (op.build)(&descs, &scalars, &out.desc(), false)
            };
            let exec = match exec {
                Ok(e) => e,
                Err(e) => panic!(
                    "{}: phase 1 refused ins {td:?} scalars {sd:?} out {o:?}: {e}",
                    op.name
                ),
            };
            let before = out.outside();
            run_exec(&exec).unwrap_or_else(|e| panic!("{}: run failed: {e}", op.name));
            // Lerp's tolerance scale: the larger operand per element.
            let scales = if op.name == "Lerp" {
                let vals: Vec<Vec<V>> = ins.iter().map(|t| t.values()).collect();
                (0..out.view.numel())
                    .map(|i| {
                        vals[..2]
                            .iter()
                            .map(|v| as_f64(v[i % v.len().max(1)]).abs())
                            .fold(0.0, f64::max)
                    })
                    .collect()
            } else {
                vec![]
            };
            let prog = batch.program(&program(op, p, c));
            let mut arrays: Vec<Option<Array>> = vec![];
            let scalar_arrays: Vec<Option<Array>> = scs
                .iter()
                .map(|s| {
                    Some(Array {
                        dtype: s.dtype,
                        shape: vec![],
                        bytes: s.bytes[..size(s.dtype)].to_vec(),
                    })
                })
                .collect();
            if op.scalar_first {
                arrays.extend(scalar_arrays.clone());
            }
            arrays.extend(ins.iter().map(|t| Some(t.array())));
            if !op.scalar_first {
                arrays.extend(scalar_arrays);
            }
            let torch_case = batch.case(prog, arrays);
            let mut inputs: Vec<(Vec<usize>, Vec<V>)> = ins
                .iter()
                .map(|t| (t.view.shape.clone(), t.values()))
                .collect();
            let sv: Vec<(Vec<usize>, Vec<V>)> =
                scs.iter().map(|s| (vec![], vec![s.value()])).collect();
            if op.scalar_first {
                inputs.splice(0..0, sv);
            } else {
                inputs.extend(sv);
            }
            runs.push(Run {
                inputs,
                op_name: op.name,
                c,
                out,
                before,
                scales,
                torch_case,
            });
            done += 1;
        }
        assert!(done >= 20, "{}: only {done} valid cases generated", op.name);
    }
    for r in &runs {
        assert_eq!(
            r.out.outside(),
            r.before,
            "{}: wrote outside out's view",
            r.op_name
        );
    }
    let Some(results) = batch.run("math_diff element-wise") else {
        return;
    };
    let mut failures = vec![];
    for r in &runs {
        let op = table.iter().find(|o| o.name == r.op_name).unwrap();
        let want = match &results[r.torch_case] {
            Ok(a) => array_values(&a[0]),
            Err(e) => panic!("{}: torch raised {e}", r.op_name),
        };
        let got = r.out.values();
        // Lerp's scale is laid out like out (broadcast inputs are read at out's index).
        for (i, g) in got.iter().enumerate() {
            let w = want[i % want.len().max(1)];
            let scale = r.scales.get(i).copied().unwrap_or(0.0);
            let args: Vec<V> = r
                .inputs
                .iter()
                .map(|(shape, v)| v[bcast_index(&r.out.view.shape, shape, i)])
                .collect();
            if !close(op.check, r.c, r.out.dtype(), *g, w, scale)
                && !torch_path_dependent(op.name, &args, w)
                && failures.len() < 30
            {
                failures.push(format!(
                    "{} (compute {:?}, out {:?}) element {i} of {args:?}: got {g:?}, torch {w:?}",
                    r.op_name,
                    r.c,
                    r.out.dtype()
                ));
            }
        }
    }
    assert!(failures.is_empty(), "mismatches:\n{}", failures.join("\n"));
}

// ---------------------------------------------------------------------------------------
// Models written here: shifts (every integer dtype, unsigned ones included), Complex
// ---------------------------------------------------------------------------------------

fn int_bits(d: DType) -> (u32, bool) {
    match d {
        S8 => (8, true),
        U8 => (8, false),
        S16 => (16, true),
        U16 => (16, false),
        S32 => (32, true),
        U32 => (32, false),
        S64 => (64, true),
        _ => (64, false),
    }
}

/// `a` wrapped into dtype `d` (two's complement).
fn wrap_to(a: i128, d: DType) -> i128 {
    let (bits, signed) = int_bits(d);
    let m = a & ((1i128 << bits) - 1);
    if signed && m >= 1i128 << (bits - 1) {
        m - (1i128 << bits)
    } else {
        m
    }
}

fn shift_model(d: DType, a: i128, b: i128) -> i128 {
    let (bits, _) = int_bits(d);
    if b < 0 || b >= bits as i128 {
        0
    } else {
        wrap_to(a << b, d)
    }
}

#[test]
fn shifts_match_the_model_for_every_integer_dtype() {
    let mut rng = Rng::new(7);
    let dtypes = [S8, U8, S16, U16, S32, U32, S64, U64];
    for case in 0..200 {
        let d = rng.pick(&dtypes);
        let left = case % 2 == 0;
        let (out_shape, in_shapes) = shapes(&mut rng, 2);
        let a = Operand::input(&mut rng, d, &in_shapes[0]);
        let mut b = Operand::input(&mut rng, d, &in_shapes[1]);
        // Mostly counts near the width, some negative and huge.
        let sz = size(d);
        let n = b.buf.bytes().len() / sz;
        for e in 0..n {
            let v: i128 = match rng.below(4) {
                0 => rng.below(int_bits(d).0 as u64 + 3) as i128,
                1 => -(rng.below(5) as i128) - 1,
                _ => rng.below(70) as i128,
            };
            let w = wrap_to(v, d);
            let bytes = (w as u128).to_le_bytes();
            b.buf.bytes_mut()[e * sz..(e + 1) * sz].copy_from_slice(&bytes[..sz]);
        }
        let out = Operand::output(&mut rng, d, &out_shape);
        let exec = if left {
            ops::integer::left_shift(&a.desc(), &b.desc(), &out.desc())
        } else {
            ops::integer::right_shift(&a.desc(), &b.desc(), &out.desc())
        }
        .unwrap();
        run_exec(&exec).unwrap();
        let got = out.values();
        let (av, bv) = (a.values(), b.values());
        let bcast = |vals: &[V], shape: &[usize], i: usize| vals[bcast_index(&out_shape, shape, i)];
        for (i, g) in got.iter().enumerate() {
            let (V::I(x), V::I(y)) = (bcast(&av, &in_shapes[0], i), bcast(&bv, &in_shapes[1], i))
            else {
                unreachable!()
            };
            let want = if left {
                shift_model(d, x, y)
            } else if y < 0 {
                x
            } else if y >= int_bits(d).0 as i128 {
                if x < 0 {
                    -1
                } else {
                    0
                }
            } else {
                x >> y
            };
            assert_eq!(
                *g,
                V::I(want),
                "{} {d:?}: {x} by {y}",
                if left { "<<" } else { ">>" }
            );
        }
    }
}

#[test]
fn complex_is_exact_and_real_takes_it_apart() {
    let mut rng = Rng::new(3);
    for _ in 0..60 {
        let (pa, pb) = (rng.pick(&[F32, F16, F64]), rng.pick(&[F32, F16, F64]));
        let p = ref_promote(pa, pb).unwrap();
        let o = rng.pick(&[C64, C128]);
        let (out_shape, in_shapes) = shapes(&mut rng, 2);
        let re = Operand::input(&mut rng, pa, &in_shapes[0]);
        let im = Operand::input(&mut rng, pb, &in_shapes[1]);
        let out = Operand::output(&mut rng, o, &out_shape);
        let exec = ops::complex::complex(&re.desc(), &im.desc(), &out.desc()).unwrap();
        run_exec(&exec).unwrap();
        // Broadcasting is exercised by the torch test; here inputs of out's shape only.
        if in_shapes[0] != out_shape || in_shapes[1] != out_shape {
            continue;
        }
        for ((g, r), i) in out.values().iter().zip(re.values()).zip(im.values()) {
            let part = |v: V| as_f64(conv(conv(v, p), if o == C64 { F32 } else { F64 }));
            let want = V::C(part(r), part(i));
            assert!(
                same(*g, want),
                "complex({r:?}, {i:?}) = {g:?}, want {want:?}"
            );
        }
    }
}

// ---------------------------------------------------------------------------------------
// Rsub against Sub, Polar / Addr / NanToNum against torch
// ---------------------------------------------------------------------------------------

#[test]
fn rsub_is_sub_with_the_operands_exchanged() {
    let mut rng = Rng::new(5);
    let list = [S8, U8, S16, S32, S64, F16, F32, F64, BF16];
    for k in 0..80 {
        let (da, db) = (rng.pick(&list), rng.pick(&list));
        let Some(p) = ref_promote(da, db) else {
            continue;
        };
        let alpha = Sc::int(
            if p.is_float() { F32 } else { S32 },
            rng.below(5) as i64 - 2,
        );
        let (out_shape, in_shapes) = shapes(&mut rng, 2);
        let a = Operand::input(&mut rng, da, &in_shapes[0]);
        let b = Operand::input(&mut rng, db, &in_shapes[1]);
        let o1 = Operand::output(&mut rng, p, &out_shape);
        let o2 = Operand::output(&mut rng, p, &out_shape);
        let al = alpha.to_scalar();
        let (e1, e2) = if k % 2 == 0 {
            (
                ops::add::rsub(&a.desc(), &b.desc(), &al, &o1.desc()).unwrap(),
                ops::add::sub(&b.desc(), &a.desc(), &al, &o2.desc()).unwrap(),
            )
        } else {
            if in_shapes[1] != out_shape {
                continue;
            }
            let s = random_scalar(&mut rng, db).to_scalar();
            let a = Operand::input(&mut rng, da, &out_shape);
            let r1 = ops::add::rsubs(&a.desc(), &s, &al, &o1.desc());
            let Ok(r1) = r1 else { continue };
            // Subs with the scalar first does not exist: compare with Sub of a 0-d tensor
            // only where the promotions agree (a float tensor keeps its dtype).
            if !da.is_float() {
                continue;
            }
            let t0 = Operand::input(&mut rng, s.dtype, &[]);
            let _ = (r1, t0);
            continue;
        };
        run_exec(&e1).unwrap();
        run_exec(&e2).unwrap();
        for (g, w) in o1.values().iter().zip(o2.values()) {
            assert!(same(*g, w), "Rsub {da:?} {db:?}: {g:?} != Sub's {w:?}");
        }
    }
}

#[test]
fn polar_addr_and_nan_to_num_match_torch() {
    let mut rng = Rng::new(11);
    let mut batch = Batch::new();
    let mut runs = vec![];
    // Polar.
    for _ in 0..20 {
        let (out_shape, in_shapes) = shapes(&mut rng, 2);
        let r = Operand::input(&mut rng, F32, &in_shapes[0]);
        let t = Operand::input(&mut rng, F32, &in_shapes[1]);
        let out = Operand::output(&mut rng, C64, &out_shape);
        run_exec(&ops::complex::polar(&r.desc(), &t.desc(), &out.desc()).unwrap()).unwrap();
        let prog = batch.program("out = torch.polar(a[0].double(), a[1].double())");
        let case = batch.case(prog, vec![Some(r.array()), Some(t.array())]);
        runs.push((F32, out, case, F_SPECIAL, vec![]));
    }
    // Addr: self broadcasting to (n, m), beta 0 sometimes (self not read).
    for _ in 0..60 {
        let d = rng.pick(ADDR);
        let (n, m) = (rng.below(4) as usize, 1 + rng.below(4) as usize);
        let self_shape = match rng.below(3) {
            0 => vec![n, m],
            1 => vec![m],
            _ => vec![],
        };
        let s = Operand::input(&mut rng, d, &self_shape);
        let v1 = Operand::input(&mut rng, d, &[n]);
        let v2 = Operand::input(&mut rng, d, &[m]);
        let int = !d.is_float();
        let sd = if d == Bool {
            Bool
        } else if int {
            S64
        } else {
            F64
        };
        let pick = |rng: &mut Rng| -> Sc {
            match sd {
                Bool => Sc::int(Bool, rng.below(2) as i64),
                S64 => Sc::int(S64, rng.below(5) as i64 - 2),
                _ => Sc::f64(F64, [0.0, 1.0, -0.5, 2.0, 1.25][rng.below(5) as usize]),
            }
        };
        let (beta, alpha) = (pick(&mut rng), pick(&mut rng));
        let out = Operand::output(&mut rng, d, &[n, m]);
        let e = ops::addr::addr(
            &s.desc(),
            &v1.desc(),
            &v2.desc(),
            Some(&beta.to_scalar()),
            Some(&alpha.to_scalar()),
            &out.desc(),
        )
        .unwrap();
        run_exec(&e).unwrap();
        let prog = batch.program(
            "w = lambda t: t.float() if t.dtype in (torch.float16, torch.bfloat16) else t\n\
             b, al = a[3].item(), a[4].item()\n\
             out = torch.addr(w(a[0]), w(a[1]), w(a[2]), beta=b, alpha=al)",
        );
        let sc_arr = |s: &Sc| Array {
            dtype: s.dtype,
            shape: vec![],
            bytes: s.bytes[..size(s.dtype)].to_vec(),
        };
        let case = batch.case(
            prog,
            vec![
                Some(s.array()),
                Some(v1.array()),
                Some(v2.array()),
                Some(sc_arr(&beta)),
                Some(sc_arr(&alpha)),
            ],
        );
        // Floats: within 2 ulps of f32 at the magnitude of the terms.
        let scales: Vec<f64> = {
            let (sv, av, bv) = (s.values(), v1.values(), v2.values());
            let (be, al) = (as_f64(beta.value()).abs(), as_f64(alpha.value()).abs());
            (0..n * m)
                .map(|k| {
                    let (i, j) = (k / m, k % m);
                    let sval = match self_shape.len() {
                        2 => sv[k],
                        1 => sv[j],
                        _ => sv[0],
                    };
                    al * (as_f64(av[i]) * as_f64(bv[j])).abs() + be * as_f64(sval).abs()
                })
                .collect()
        };
        let check = if d.is_float() {
            Check::Scaled { ulps: 2.0 }
        } else {
            Check::Exact
        };
        runs.push((if d.is_float() { F32 } else { d }, out, case, check, scales));
    }
    // NanToNum.
    for _ in 0..30 {
        let d = rng.pick(NAN_TO_NUM);
        let shape = shapes(&mut rng, 1).0;
        let x = Operand::input(&mut rng, d, &shape);
        let out = Operand::output(&mut rng, d, &shape);
        let vals = [0.0f32, 1.5, -2.0, 3.0e38, -65504.0, 1e-40];
        let (nan, pos, neg) = (rng.pick(&vals), rng.pick(&vals), rng.pick(&vals));
        run_exec(&ops::classify::nan_to_num(&x.desc(), nan, pos, neg, &out.desc()).unwrap())
            .unwrap();
        let prog = batch.program(&format!(
            "x = a[0]\nout = torch.nan_to_num(x.float(), {nan:e}, {pos:e}, {neg:e}) if x.is_floating_point() else x"
        ));
        let case = batch.case(prog, vec![Some(x.array())]);
        runs.push((
            if d.is_float() { F32 } else { d },
            out,
            case,
            Check::Exact,
            vec![],
        ));
    }
    let Some(results) = batch.run("math_diff polar/addr/nan_to_num") else {
        return;
    };
    for (c, out, case, check, scales) in &runs {
        let want = array_values(&results[*case].as_ref().expect("torch ran")[0]);
        for (i, g) in out.values().iter().enumerate() {
            let scale = scales.get(i).copied().unwrap_or(0.0);
            assert!(
                close(*check, *c, out.dtype(), *g, want[i], scale),
                "{:?} element {i}: got {g:?}, torch {:?}",
                out.dtype(),
                want[i]
            );
        }
    }
}

// ---------------------------------------------------------------------------------------
// Refusals at phase 1 (161002), nothing run
// ---------------------------------------------------------------------------------------

fn refused(r: crate::Result<Executor>, what: &str, needle: &str) {
    match r {
        Err(Error::Invalid(m)) => {
            assert!(m.contains(needle), "{what}: message {m:?} lacks {needle:?}")
        }
        Err(e) => panic!("{what}: {e:?} is not 161002"),
        Ok(_) => panic!("{what} was accepted"),
    }
}

#[test]
fn documented_constraints_are_refused_at_phase1() {
    let mut rng = Rng::new(1);
    let t = |rng: &mut Rng, d: DType, s: &[usize]| Operand::input(rng, d, s);
    let (f32a, f16a, s32a, c64a) = (
        t(&mut rng, F32, &[2, 3]),
        t(&mut rng, F16, &[2, 3]),
        t(&mut rng, S32, &[2, 3]),
        t(&mut rng, C64, &[2, 3]),
    );
    let o_s32 = Operand::output(&mut rng, S32, &[2, 3]);
    let o_f32 = Operand::output(&mut rng, F32, &[2, 3]);
    let o_f32_bad = Operand::output(&mut rng, F32, &[3, 2]);
    let o_bool = Operand::output(&mut rng, Bool, &[2, 3]);
    refused(
        ops::math::acos(&f32a.desc(), &o_s32.desc()),
        "Acos into s32",
        "does not support",
    );
    refused(
        ops::math::acos(&c64a.desc(), &o_f32.desc()),
        "Acos of c64",
        "does not support",
    );
    refused(
        ops::math::lgamma(&f16a.desc(), &o_f32.desc()),
        "Lgamma f16 -> f32",
        "must have dtype",
    );
    refused(
        ops::math::inplace_acos(&s32a.desc()),
        "InplaceAcos of s32",
        "cannot be cast",
    );
    refused(
        ops::math::asin(&f32a.desc(), &o_f32_bad.desc()),
        "Asin out shape",
        "shape",
    );
    refused(
        ops::classify::is_close(
            &f32a.desc(),
            &f16a.desc(),
            1e-5,
            1e-8,
            false,
            &o_bool.desc(),
        ),
        "IsClose of f32 and f16",
        "must have self's dtype",
    );
    refused(
        ops::classify::is_finite(&f32a.desc(), &o_f32.desc()),
        "IsFinite into f32",
        "does not support",
    );
    refused(
        ops::special::xlog1py(&f32a.desc(), &f16a.desc(), &o_f32.desc()),
        "Xlog1py mixed",
        "dtype",
    );
    refused(
        ops::integer::gcd(&f32a.desc(), &s32a.desc(), &o_s32.desc()),
        "Gcd of f32",
        "does not support",
    );
    refused(
        ops::integer::left_shift(&s32a.desc(), &f32a.desc(), &o_s32.desc()),
        "LeftShift by f32",
        "does not support",
    );
    refused(
        ops::complex::polar(&f16a.desc(), &f16a.desc(), &o_f32.desc()),
        "Polar of f16",
        "does not support",
    );
    refused(
        ops::lerp::lerp(&f32a.desc(), &f16a.desc(), &f32a.desc(), &o_f32.desc()),
        "Lerp mixed",
        "dtype",
    );
    refused(
        ops::modulo::remainder_tensor_tensor(&c64a.desc(), &f32a.desc(), &o_f32.desc()),
        "Remainder c64",
        "does not support",
    );
    refused(
        ops::special::atan2(&f32a.desc(), &f32a.desc(), &o_s32.desc()),
        "Atan2 into s32",
        "does not support",
    );
    // Addr: 2-D vectors, a float alpha with integer tensors, a bool beta with floats.
    let v = t(&mut rng, F32, &[2]);
    let w = t(&mut rng, F32, &[3]);
    let iv = t(&mut rng, S32, &[2]);
    let iw = t(&mut rng, S32, &[3]);
    let f = Sc::f64(F64, 0.5).to_scalar();
    let b = Sc::int(Bool, 1).to_scalar();
    refused(
        ops::addr::addr(
            &f32a.desc(),
            &f32a.desc(),
            &w.desc(),
            None,
            None,
            &o_f32.desc(),
        ),
        "Addr 2-D vec1",
        "1-D",
    );
    refused(
        ops::addr::addr(
            &s32a.desc(),
            &iv.desc(),
            &iw.desc(),
            None,
            Some(&f),
            &o_s32.desc(),
        ),
        "Addr float alpha",
        "alphaOptional",
    );
    refused(
        ops::addr::addr(
            &f32a.desc(),
            &v.desc(),
            &w.desc(),
            Some(&b),
            None,
            &o_f32.desc(),
        ),
        "Addr bool beta",
        "betaOptional",
    );
    let empty = t(&mut rng, F32, &[0, 3]);
    let v0 = t(&mut rng, F32, &[0]);
    refused(
        ops::addr::inplace_addr(&empty.desc(), &v0.desc(), &w.desc(), None, None),
        "InplaceAddr empty",
        "non-empty",
    );
}

// ---------------------------------------------------------------------------------------
// Max / Min of a whole tensor
// ---------------------------------------------------------------------------------------

#[test]
fn whole_tensor_max_and_min_match_torch() {
    let mut rng = Rng::new(17);
    let list = [F32, F16, F64, S8, S16, S32, S64, U8, Bool, BF16];
    let mut batch = Batch::new();
    let mut runs = vec![];
    for k in 0..60 {
        let d = rng.pick(&list);
        let mut shape = shapes(&mut rng, 1).0;
        for s in shape.iter_mut() {
            *s = (*s).max(1);
        }
        let x = Operand::input(&mut rng, d, &shape);
        let out_shape: &[usize] = if k % 2 == 0 { &[] } else { &[1] };
        let out = Operand::output(&mut rng, d, out_shape);
        let max = k % 4 < 2;
        let e = if max {
            ops::reduce::max(&x.desc(), &out.desc())
        } else {
            ops::reduce::min(&x.desc(), &out.desc())
        }
        .unwrap();
        let before = out.outside();
        run_exec(&e).unwrap();
        assert_eq!(out.outside(), before);
        let prog = batch.program(if max {
            "out = torch.max(a[0])"
        } else {
            "out = torch.min(a[0])"
        });
        runs.push((out, batch.case(prog, vec![Some(x.array())])));
    }
    // An empty self has no maximum; out of another dtype is refused.
    let empty = Operand::input(&mut rng, F32, &[0, 2]);
    let o = Operand::output(&mut rng, F32, &[]);
    refused(
        ops::reduce::max(&empty.desc(), &o.desc()),
        "Max of an empty tensor",
        "size 0",
    );
    let x = Operand::input(&mut rng, F32, &[3]);
    let oh = Operand::output(&mut rng, F16, &[]);
    refused(
        ops::reduce::min(&x.desc(), &oh.desc()),
        "Min into f16",
        "self's dtype",
    );
    let Some(results) = batch.run("math_diff max/min") else {
        return;
    };
    for (out, case) in &runs {
        let want = array_values(&results[*case].as_ref().expect("torch ran")[0]);
        let got = out.values();
        assert!(
            same(got[0], want[0]),
            "{:?}: got {:?}, torch {:?}",
            out.dtype(),
            got[0],
            want[0]
        );
    }
}
