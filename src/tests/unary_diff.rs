//! Differential tests of the unary operators (reference §5.4, plus Erf/Log2/Exp2 from CANN's
//! ops-math headers) and of Clamp, against references written here.
//!
//! Model of `out = f(self)`:
//! - a float function (Exp, Log, Sqrt, Rsqrt, Sin, Cos, Tanh, Sigmoid, Reciprocal, Erf,
//!   Log2, Exp2) computes in self's dtype when it is float or complex and in f32 for
//!   integer and bool inputs (the input is first rounded to f32); f16/bf16 compute in f32
//!   and round once to f16/bf16; the result is then converted to out's dtype (the
//!   conversion model of `cast_matrix.rs`);
//! - Abs, Neg, Relu, Floor, Ceil, Round, Sign, Gelu, Silu compute in self's dtype (integers
//!   exactly, wrapping: |-128| = -128 in s8);
//! - out's dtype must be castable from the computation dtype (SEMANTICS §5) or, for the
//!   ops the reference marks "same dtype" (Abs, Relu, Gelu, Silu, Floor, Ceil, Round,
//!   Sign), equal to it (Abs of complex: the part dtype).
//!
//! Exact operations are compared bit for bit (Sqrt and Reciprocal are correctly rounded:
//! a double rounding through f64 is harmless for them). Transcendental results are
//! compared with a reference evaluated in f64 (the exact value for f32 purposes) and must
//! be within a stated number of ulps of the result's format (see `F32_ULPS`); for f16 and
//! bf16 results, within 1 ulp of f16/bf16. Complex results are checked normwise against
//! textbook formulas evaluated in f64.

use super::add_diff::{nice_bytes, ref_can_cast, run_exec, Rng, View};
use super::cast_matrix::{
    all_indices, at, contiguous, convert, decode, encode, fmt_of, gen_view, kd, needed,
    outside_untouched, pow2, same_val, stored_matches, view, wrap, Fmt, Kd, Store, Val, ALL16,
    FMT_BF16, FMT_F16, FMT_F32, FMT_F64,
};
use crate::dtype::DType;
use crate::executor::Executor;
use crate::ops::clamp::clamp;
use crate::ops::math as m;
use crate::scalar::Scalar;
use crate::tensor::TensorDesc;

use DType::*;

unsafe extern "C" {
    /// The C library's double-precision error function.
    fn erf(x: f64) -> f64;
}

fn erf64(x: f64) -> f64 {
    // SAFETY: a pure C math function.
    unsafe { erf(x) }
}

// ---------------------------------------------------------------------------------------
// The operator table (transcribed from reference §5.4)
// ---------------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fun {
    Abs,
    Neg,
    Exp,
    Log,
    Sqrt,
    Rsqrt,
    Sin,
    Cos,
    Tanh,
    Sigmoid,
    Relu,
    Gelu,
    Silu,
    Floor,
    Ceil,
    Round,
    Sign,
    Reciprocal,
    Erf,
    Log2,
    Exp2,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Rule {
    /// The computation dtype must convert to out's dtype.
    Castable,
    /// out's dtype must be the computation dtype (Abs of complex: its part dtype).
    Equal,
}

type OutFn = fn(&TensorDesc, &TensorDesc) -> crate::Result<Executor>;
type InFn = fn(&TensorDesc) -> crate::Result<Executor>;

struct OpDef {
    fun: Fun,
    f: OutFn,
    fi: InFn,
    ins: &'static [DType],
    outs: &'static [DType],
    rule: Rule,
}

const FLOATS: &[DType] = &[F32, F16, F64, C64, C128, BF16];
const REAL_FLOATS: &[DType] = &[F32, F16, F64, BF16];
const HALFS: &[DType] = &[F32, F16, BF16];
const LOG_IN: &[DType] = &[Bool, S64, S32, S16, S8, U8, F32, F16, F64, C64, C128, BF16];
const EXP2_IN: &[DType] = &[F32, F16, F64, BF16, S64, S32, S16, S8, U8, Bool];

const OPS: &[OpDef] = &[
    OpDef {
        fun: Fun::Abs,
        f: m::abs,
        fi: m::inplace_abs,
        // CANN's A2 code: no complex32 (its doc lists it; the A2 list does not).
        ins: &[F32, F16, F64, BF16, S8, S16, S32, S64, U8, Bool, C64],
        outs: &[F32, F16, F64, BF16, S8, S16, S32, S64, U8, Bool],
        rule: Rule::Equal,
    },
    OpDef {
        fun: Fun::Neg,
        f: m::neg,
        fi: m::inplace_neg,
        ins: &[S8, S32, S64, F16, BF16, F32, F64, C64, C128],
        outs: &[S8, S32, S64, F16, BF16, F32, F64, C64, C128],
        rule: Rule::Castable,
    },
    OpDef {
        fun: Fun::Exp,
        f: m::exp,
        fi: m::inplace_exp,
        ins: &[F32, F16, F64, C64, C128, Bool, S64, BF16],
        outs: FLOATS,
        rule: Rule::Castable,
    },
    OpDef {
        fun: Fun::Log,
        f: m::log,
        fi: m::inplace_log,
        ins: LOG_IN,
        outs: FLOATS,
        rule: Rule::Castable,
    },
    OpDef {
        fun: Fun::Sqrt,
        f: m::sqrt,
        fi: m::inplace_sqrt,
        ins: LOG_IN,
        outs: FLOATS,
        rule: Rule::Castable,
    },
    OpDef {
        fun: Fun::Rsqrt,
        f: m::rsqrt,
        fi: m::inplace_rsqrt,
        ins: LOG_IN,
        outs: FLOATS,
        rule: Rule::Castable,
    },
    OpDef {
        fun: Fun::Sin,
        f: m::sin,
        fi: m::inplace_sin,
        ins: LOG_IN,
        outs: FLOATS,
        rule: Rule::Castable,
    },
    OpDef {
        fun: Fun::Cos,
        f: m::cos,
        fi: m::inplace_cos,
        ins: LOG_IN,
        outs: FLOATS,
        rule: Rule::Castable,
    },
    OpDef {
        fun: Fun::Tanh,
        f: m::tanh,
        fi: m::inplace_tanh,
        ins: &[F32, F16, Bool, U8, S8, S16, S32, S64, BF16],
        outs: HALFS,
        rule: Rule::Castable,
    },
    OpDef {
        fun: Fun::Sigmoid,
        f: m::sigmoid,
        fi: m::inplace_sigmoid,
        ins: HALFS,
        outs: HALFS,
        rule: Rule::Castable,
    },
    OpDef {
        fun: Fun::Relu,
        f: m::relu,
        fi: m::inplace_relu,
        ins: &[F32, F16, S8, U8, S32, S64, BF16],
        outs: &[F32, F16, S8, U8, S32, S64, BF16],
        rule: Rule::Equal,
    },
    OpDef {
        fun: Fun::Gelu,
        f: m::gelu,
        fi: m::inplace_gelu,
        ins: HALFS,
        outs: HALFS,
        rule: Rule::Equal,
    },
    OpDef {
        fun: Fun::Silu,
        f: m::silu,
        fi: m::inplace_silu,
        ins: HALFS,
        outs: HALFS,
        rule: Rule::Equal,
    },
    OpDef {
        fun: Fun::Floor,
        f: m::floor,
        fi: m::inplace_floor,
        ins: &[F64, F32, F16, BF16, S64, S32, S16, S8, U64, U32, U16, U8],
        outs: &[F64, F32, F16, BF16, S64, S32, S16, S8, U64, U32, U16, U8],
        rule: Rule::Equal,
    },
    OpDef {
        fun: Fun::Ceil,
        f: m::ceil,
        fi: m::inplace_ceil,
        ins: &[F16, F32, F64, BF16],
        outs: &[F16, F32, F64, BF16],
        rule: Rule::Equal,
    },
    OpDef {
        fun: Fun::Round,
        f: m::round,
        fi: m::inplace_round,
        ins: &[BF16, F16, F32, F64, S32, S64],
        outs: &[BF16, F16, F32, F64, S32, S64],
        rule: Rule::Equal,
    },
    OpDef {
        fun: Fun::Sign,
        f: m::sign,
        fi: m::inplace_sign,
        ins: &[F64, F32, F16, S32, S64, C64, C128, Bool, BF16],
        outs: &[F64, F32, F16, S32, S64, C64, C128, Bool, BF16],
        rule: Rule::Equal,
    },
    OpDef {
        fun: Fun::Reciprocal,
        f: m::reciprocal,
        fi: m::inplace_reciprocal,
        ins: LOG_IN,
        outs: FLOATS,
        rule: Rule::Castable,
    },
    // Not in reference §5.4: dtype lists as the library states them (CANN ops-math headers).
    OpDef {
        fun: Fun::Erf,
        f: m::erf,
        fi: m::inplace_erf,
        // CANN's A2 code and doc: no s32/s16/s8/u8 (bf16: the A2 code).
        ins: &[F32, F16, F64, BF16, S64, Bool],
        outs: REAL_FLOATS,
        rule: Rule::Castable,
    },
    OpDef {
        fun: Fun::Log2,
        f: m::log2,
        fi: m::inplace_log2,
        // CANN's A2 code and doc: complex too.
        ins: &[F32, F16, F64, BF16, S64, S32, S16, S8, U8, Bool, C64, C128],
        outs: FLOATS,
        rule: Rule::Castable,
    },
    OpDef {
        fun: Fun::Exp2,
        f: m::exp2,
        fi: m::inplace_exp2,
        ins: EXP2_IN,
        outs: REAL_FLOATS,
        rule: Rule::Castable,
    },
];

fn op(fun: Fun) -> &'static OpDef {
    OPS.iter().find(|o| o.fun == fun).unwrap()
}

impl Fun {
    /// Integer and bool inputs compute in f32.
    fn float_fn(self) -> bool {
        matches!(
            self,
            Fun::Exp
                | Fun::Log
                | Fun::Sqrt
                | Fun::Rsqrt
                | Fun::Sin
                | Fun::Cos
                | Fun::Tanh
                | Fun::Sigmoid
                | Fun::Reciprocal
                | Fun::Erf
                | Fun::Log2
                | Fun::Exp2
        )
    }
    /// Correctly rounded (or exact) in every format.
    fn exact(self) -> bool {
        !matches!(
            self,
            Fun::Exp
                | Fun::Log
                | Fun::Rsqrt
                | Fun::Sin
                | Fun::Cos
                | Fun::Tanh
                | Fun::Sigmoid
                | Fun::Gelu
                | Fun::Silu
                | Fun::Erf
                | Fun::Log2
                | Fun::Exp2
        )
    }
    /// The stated bound, in f32 ulps of the exact result, for results computed in f32.
    fn f32_ulps(self) -> f64 {
        F32_ULPS
            .iter()
            .find(|(f, _)| *f == self)
            .map(|(_, u)| *u)
            .unwrap_or(0.5)
    }
    /// Absolute error allowed besides the ulp bound for an f32 computation at input x
    /// (the formulas' own limits: see `F32_ULPS`).
    fn f32_abs(self, x: f64) -> f64 {
        match self {
            // x·sigmoid(..): a subnormal sigmoid value (spacing 2^-149) scaled by |x|.
            Fun::Gelu | Fun::Silu => x.abs() * pow2(-149),
            _ => 0.0,
        }
    }
    /// The real function, evaluated in f64 (for f32 purposes, the exact value).
    fn ref64(self, x: f64) -> f64 {
        let sigmoid = |x: f64| {
            if x >= 0.0 {
                1.0 / (1.0 + (-x).exp())
            } else {
                let e = x.exp();
                e / (1.0 + e)
            }
        };
        match self {
            Fun::Exp => x.exp(),
            Fun::Log => x.ln(),
            Fun::Sqrt => x.sqrt(),
            Fun::Rsqrt => 1.0 / x.sqrt(),
            Fun::Sin => x.sin(),
            Fun::Cos => x.cos(),
            Fun::Tanh => x.tanh(),
            Fun::Sigmoid => sigmoid(x),
            Fun::Reciprocal => 1.0 / x,
            Fun::Erf => erf64(x),
            Fun::Log2 => x.log2(),
            Fun::Exp2 => x.exp2(),
            // x/(1+e^-x) = x*sigmoid(x); at -inf the documented formula gives NaN (-inf/inf).
            Fun::Silu => {
                if x == f64::NEG_INFINITY {
                    f64::NAN
                } else if x == f64::INFINITY {
                    x
                } else {
                    x * sigmoid(x)
                }
            }
            // 0.5x(1 + tanh(u)) = x*sigmoid(2u): no cancellation in the reference.
            // At -inf the documented formula gives -inf*0 = NaN.
            Fun::Gelu => {
                if x == f64::NEG_INFINITY {
                    f64::NAN
                } else if x == f64::INFINITY {
                    x
                } else {
                    let u = (2.0 / std::f64::consts::PI).sqrt() * (x + 0.044715 * x * x * x);
                    if u.is_infinite() {
                        if u > 0.0 {
                            x
                        } else {
                            -0.0
                        }
                    } else {
                        x * sigmoid(2.0 * u)
                    }
                }
            }
            Fun::Neg => -x,
            Fun::Abs => x.abs(),
            Fun::Relu => {
                if x > 0.0 || x.is_nan() {
                    x
                } else {
                    0.0
                }
            }
            Fun::Floor => x.floor(),
            Fun::Ceil => x.ceil(),
            Fun::Round => round_half_even(x),
            Fun::Sign => {
                if x > 0.0 {
                    1.0
                } else if x < 0.0 {
                    -1.0
                } else {
                    x
                }
            }
        }
    }
    /// Zero results may have either sign (the reference leaves it open).
    fn zero_sign_free(self) -> bool {
        matches!(self, Fun::Relu | Fun::Round | Fun::Sign)
    }
}

/// The stated bounds (ulps of the exact result) for f32 computations, chosen from the
/// measurements printed by `f32_accuracy_sweep`: glibc's f32 functions (exp, log, sin,
/// cos, tanh, erf, log2, exp2), 1/sqrt (two roundings), and the activations, which the
/// library evaluates in f64 and rounds once, but for Gelu: on FMA hardware its f32 form
/// (`vmath::gelu_tanh_f32_fma`, measured 2.3 ulp over every f32 in [−9, 9]).
const F32_ULPS: &[(Fun, f64)] = &[
    (Fun::Exp, 1.0),
    (Fun::Log, 1.0),
    (Fun::Rsqrt, 1.5),
    (Fun::Sin, 1.0),
    (Fun::Cos, 1.0),
    (Fun::Tanh, 2.0),
    (Fun::Sigmoid, 1.0),
    (Fun::Gelu, 3.0),
    (Fun::Silu, 1.0),
    (Fun::Erf, 2.0),
    (Fun::Log2, 1.0),
    (Fun::Exp2, 1.0),
];
/// Bound for f64 computations (the C library's double functions).
const F64_ULPS: f64 = 2.0;

fn round_half_even(x: f64) -> f64 {
    if !x.is_finite() || x.abs() >= pow2(52) {
        return x;
    }
    let f = x.floor();
    let d = x - f; // exact
    let r = if d > 0.5 || (d == 0.5 && f % 2.0 != 0.0) {
        f + 1.0
    } else {
        f
    };
    if r == 0.0 {
        0.0f64.copysign(x)
    } else {
        r
    }
}

// ---------------------------------------------------------------------------------------
// Complex references (textbook formulas in f64)
// ---------------------------------------------------------------------------------------

fn c_ref(fun: Fun, x: f64, y: f64) -> (f64, f64) {
    let hyp = x.hypot(y);
    let sqrt = |x: f64, y: f64| -> (f64, f64) {
        let r = x.hypot(y);
        if r == 0.0 {
            return (0.0, y);
        }
        if x >= 0.0 {
            let t = ((r + x) / 2.0).sqrt();
            (t, y / (2.0 * t))
        } else {
            let t = ((r - x) / 2.0).sqrt();
            (y.abs() / (2.0 * t), t.copysign(y))
        }
    };
    let recip = |x: f64, y: f64| {
        let n = x * x + y * y;
        (x / n, -y / n)
    };
    match fun {
        Fun::Exp => (x.exp() * y.cos(), x.exp() * y.sin()),
        Fun::Log => (hyp.ln(), y.atan2(x)),
        Fun::Log2 => (
            hyp.ln() / std::f64::consts::LN_2,
            y.atan2(x) / std::f64::consts::LN_2,
        ),
        Fun::Sqrt => sqrt(x, y),
        Fun::Rsqrt => {
            let (a, b) = sqrt(x, y);
            recip(a, b)
        }
        Fun::Sin => (x.sin() * y.cosh(), x.cos() * y.sinh()),
        Fun::Cos => (x.cos() * y.cosh(), -(x.sin() * y.sinh())),
        Fun::Reciprocal => recip(x, y),
        Fun::Sigmoid => {
            // 1/(1+e^-z)
            let m = (-x).exp();
            recip(1.0 + m * (-y).cos(), m * (-y).sin())
        }
        Fun::Neg => (-x, -y),
        Fun::Sign => {
            if hyp == 0.0 {
                (0.0, 0.0)
            } else {
                (x / hyp, y / hyp)
            }
        }
        _ => panic!("{fun:?} has no complex form"),
    }
}

/// Normwise relative bound for complex results, in units of the part format's epsilon, at
/// z = x + iy: Sigmoid's 1/(1+e^-z) loses |e^-z|·|result| digits to the cancellation in
/// 1+e^-z near its poles (the reference too), so its bound grows with that amplification.
fn c_bound(fun: Fun, x: f64, y: f64) -> f64 {
    match fun {
        Fun::Neg => 0.0,
        Fun::Sigmoid => {
            let (a, b) = c_ref(fun, x, y);
            8.0 * (1.0 + (-x).exp() * a.hypot(b))
        }
        _ => 8.0,
    }
}

// ---------------------------------------------------------------------------------------
// The model
// ---------------------------------------------------------------------------------------

/// The dtype `fun` computes in for self dtype `d`.
fn compute_dtype(fun: Fun, d: DType) -> DType {
    if fun.float_fn() && matches!(kd(d), Kd::Int | Kd::Bool) {
        F32
    } else {
        d
    }
}

/// The dtype whose conversion to out the rule checks.
fn checked_dtype(fun: Fun, d: DType) -> DType {
    let c = compute_dtype(fun, d);
    match (fun, c) {
        (Fun::Abs, C32) => F16,
        (Fun::Abs, C64) => F32,
        (Fun::Abs, C128) => F64,
        _ => c,
    }
}

/// The selfRef list of the in-place form when it differs from self's: InplaceSigmoid
/// (CANN's A2 code and doc: f32 f16 f64 c64 c128 bf16; Sigmoid's self: f32 f16 bf16).
fn inplace_ins(op: &OpDef) -> &'static [DType] {
    match op.fun {
        Fun::Sigmoid => &[F32, F16, F64, C64, C128, BF16],
        _ => op.ins,
    }
}

/// Phase 1 of the in-place form must accept selfRef dtype `d`.
fn accepts_inplace(op: &OpDef, d: DType) -> bool {
    if !inplace_ins(op).contains(&d) {
        return false;
    }
    let c = checked_dtype(op.fun, d);
    match op.rule {
        Rule::Castable => ref_can_cast(c, d),
        Rule::Equal => d == c,
    }
}

/// Phase 1 must accept self dtype `d` with out dtype `o` (same shapes).
fn accepts(op: &OpDef, d: DType, o: DType) -> bool {
    if !op.ins.contains(&d) || !op.outs.contains(&o) {
        return false;
    }
    let c = checked_dtype(op.fun, d);
    match op.rule {
        Rule::Castable => ref_can_cast(c, o),
        Rule::Equal => o == c,
    }
}

/// What one output element must be.
#[derive(Debug, Clone, Copy)]
enum Want {
    /// Bit-exact (any NaN; with `zero_free`, ±0 equal).
    Exact(Val, bool),
    /// The kernel's result is within `kulps` ulps of `kfmt` of the real value `r` (or within
    /// `abs`), then rounded by each of `steps` (the compute dtype's and out's formats when
    /// they are narrower): the result must equal that chain applied to `r`, or be within
    /// `kulps` ulps of `kfmt` plus one ulp of each step of `r`. If `grid` is set, the
    /// result must be a value of that format (it was rounded there before a widening).
    Near {
        r: f64,
        kfmt: Fmt,
        kulps: f64,
        steps: [Option<Fmt>; 2],
        abs: f64,
        grid: Option<Fmt>,
    },
    /// Normwise: |got - r| <= k * eps(fmt) * max(|r|, floor).
    NearC {
        r: (f64, f64),
        fmt: Fmt,
        k: f64,
        floor: f64,
    },
}

fn coarsest(fmts: &[Fmt]) -> Fmt {
    *fmts.iter().min_by_key(|f| f.mbits).unwrap()
}

/// Every value of `b` is a value of `a`.
fn contains(a: Fmt, b: Fmt) -> bool {
    a.ebits >= b.ebits && a.mbits >= b.mbits
}

/// The rounding steps after a kernel computing in `kfmt`: to the compute dtype's format
/// `cf`, then to out's format `of`, each only when it narrows.
fn near(r: f64, kfmt: Fmt, kulps: f64, cf: Fmt, of: Fmt, abs: f64) -> Want {
    let mut steps = [None, None];
    let mut last = kfmt;
    if !contains(cf, last) {
        steps[0] = Some(cf);
        last = cf;
    }
    if !contains(of, last) {
        steps[1] = Some(of);
    }
    let grid = if contains(of, cf) && cf != of {
        Some(cf)
    } else {
        None
    };
    Want::Near {
        r,
        kfmt,
        kulps,
        steps,
        abs,
        grid,
    }
}

/// The expected out element for input `x` of dtype `d`, out dtype `o`.
fn expected(fun: Fun, d: DType, o: DType, x: Val) -> Want {
    let c = compute_dtype(fun, d);
    let xc = convert(x, c);
    let kfmt = if c == F64 || c == C128 {
        FMT_F64
    } else {
        FMT_F32
    };
    match xc {
        Val::B(b) => Want::Exact(convert(Val::B(b), o), false), // Abs/Sign of bool: identity
        Val::I(i) => {
            let r = match fun {
                Fun::Neg => wrap(-i, c),
                Fun::Abs => wrap(i.abs(), c),
                Fun::Relu => i.max(0),
                Fun::Sign => i.signum(),
                Fun::Floor | Fun::Round => i,
                _ => panic!("{fun:?} on integers"),
            };
            Want::Exact(convert(Val::I(r), o), false)
        }
        Val::F(v) => {
            let r = fun.ref64(v);
            if fun.exact() {
                // exact in the kernel format, then rounded to the compute dtype, then to out
                let e = convert(Val::F(kfmt.round(r)), c);
                Want::Exact(convert(e, o), fun.zero_sign_free())
            } else {
                let (kulps, abs) = if kfmt == FMT_F32 {
                    (fun.f32_ulps(), fun.f32_abs(v))
                } else {
                    (F64_ULPS, 0.0)
                };
                near(r, kfmt, kulps, fmt_of(c), fmt_of(o), abs)
            }
        }
        Val::C(re, im) => {
            if fun == Fun::Abs {
                return near(re.hypot(im), kfmt, 1.0, fmt_of(c), fmt_of(o), 0.0);
            }
            let r = c_ref(fun, re, im);
            if fun == Fun::Neg {
                return Want::Exact(convert(Val::C(r.0, r.1), o), false);
            }
            let f = coarsest(&[kfmt, fmt_of(c), fmt_of(o)]);
            Want::NearC {
                r,
                fmt: f,
                k: c_bound(fun, re, im),
                floor: if matches!(fun, Fun::Log | Fun::Log2) {
                    1.0
                } else {
                    0.0
                },
            }
        }
    }
}

/// Error of `got` against the real reference `r` in ulps of `fmt` (0 when both are the
/// same non-finite value, infinity when they disagree on NaN or infinity).
fn ulp_err(got: f64, r: f64, fmt: Fmt) -> f64 {
    if r.is_nan() || got.is_nan() {
        return if r.is_nan() && got.is_nan() {
            0.0
        } else {
            f64::INFINITY
        };
    }
    if r.is_infinite() || got.is_infinite() {
        if got == r || got == fmt.round(r) {
            return 0.0;
        }
        if r.is_finite() && fmt != FMT_F64 {
            // an overflow to inf counts as the value 2^(emax+1)
            let g = pow2(fmt.bias() + 1).copysign(got);
            return (g - r).abs() / fmt.ulp(r);
        }
        return f64::INFINITY;
    }
    (got - r).abs() / fmt.ulp(r)
}

/// Checks one stored element against the model; Err(description).
fn check(o: DType, got: &[u8], want: Want) -> Result<f64, String> {
    let g = decode(o, got);
    match want {
        Want::Exact(w, zero_free) => {
            if stored_matches(o, got, w) {
                return Ok(0.0);
            }
            if zero_free {
                if let (Val::F(a), Val::F(b)) = (g, w) {
                    if a == 0.0 && b == 0.0 {
                        return Ok(0.0);
                    }
                }
            }
            Err(format!("got {g:?}, want {w:?}"))
        }
        Want::Near {
            r,
            kfmt,
            kulps,
            steps,
            abs,
            grid,
        } => {
            let Val::F(gv) = g else {
                return Err(format!("got {g:?}, not a real float"));
            };
            if let Some(gf) = grid {
                if gv.is_finite() && gf.round(gv) != gv {
                    return Err(format!("got {gv:e}, which was not rounded to {gf:?}"));
                }
            }
            let mut chain = kfmt.round(r);
            let mut tol = kulps * kfmt.ulp(r);
            for f in steps.iter().flatten() {
                chain = f.round(chain);
                tol += f.ulp(r);
            }
            if r.is_nan() || gv.is_nan() {
                return if r.is_nan() && gv.is_nan() {
                    Ok(0.0)
                } else {
                    Err(format!("got {gv:e}, want {r:e}"))
                };
            }
            if gv == chain {
                return Ok(if r.is_finite() {
                    (gv - r).abs() / kfmt.ulp(r)
                } else {
                    0.0
                });
            }
            let d = (gv - r).abs();
            if gv.is_finite() && r.is_finite() && (d <= tol || d <= abs) {
                Ok(d / kfmt.ulp(r))
            } else {
                Err(format!(
                    "got {gv:e}, want {r:e} (chain {chain:e}; error {d:e} > {tol:e} = {kulps} ulp of {kfmt:?} + steps {steps:?}; abs {abs:e})"
                ))
            }
        }
        Want::NearC { r, fmt, k, floor } => {
            let Val::C(a, b) = g else {
                return Err(format!("got {g:?}, not complex"));
            };
            let n = r.0.hypot(r.1).max(floor);
            let err = (a - r.0).hypot(b - r.1);
            let eps = pow2(-(fmt.mbits as i32));
            if err <= k * eps * n {
                Ok(err / (eps * n))
            } else {
                Err(format!(
                    "got ({a:e}, {b:e}), want ({:e}, {:e}): {:.2} eps > {k}",
                    r.0,
                    r.1,
                    err / (eps * n)
                ))
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Input values
// ---------------------------------------------------------------------------------------

/// The part of the real line where `fun` is interesting.
fn domain(fun: Fun) -> f64 {
    match fun {
        Fun::Exp => 90.0,
        Fun::Exp2 => 130.0,
        Fun::Sin | Fun::Cos => 1e4,
        Fun::Tanh | Fun::Erf => 6.0,
        Fun::Sigmoid | Fun::Silu => 40.0,
        Fun::Gelu => 8.0,
        Fun::Floor | Fun::Ceil | Fun::Round => 20.0,
        _ => 1e3,
    }
}

/// A random input element of dtype `d` for `fun` (raw bytes).
fn gen_input(rng: &mut Rng, fun: Fun, d: DType) -> [u8; 16] {
    match kd(d) {
        Kd::Complex => {
            let part = |rng: &mut Rng| -> f64 {
                match rng.below(6) {
                    0 => 0.0,
                    1 => rng.below(9) as f64 - 4.0,
                    _ => (rng.next() >> 11) as f64 / pow2(53) * 16.0 - 8.0,
                }
            };
            let (mut re, mut im) = (part(rng), part(rng));
            if re == 0.0 && im == 0.0 && fun != Fun::Sign {
                re = 0.75;
            }
            if fun == Fun::Abs && rng.pct(20) {
                re *= 1e30;
                im *= 1e-30;
            }
            let f = fmt_of(d);
            encode(d, Val::C(f.round(re), f.round(im)))
        }
        Kd::Float if rng.pct(55) => {
            let a = domain(fun);
            let u = (rng.next() >> 11) as f64 / pow2(53);
            let x = match rng.below(4) {
                0 => (u * 2.0 - 1.0) * a,
                1 => (u * 2.0 - 1.0) * 4.0,
                2 => (rng.below(41) as f64 - 20.0) * 0.5, // halves: ties for Round
                _ => (u * 2.0 - 1.0) * a * pow2(-(rng.below(30) as i32)),
            };
            encode(d, Val::F(fmt_of(d).round(x)))
        }
        _ => nice_bytes(rng, d),
    }
}

// ---------------------------------------------------------------------------------------
// Running
// ---------------------------------------------------------------------------------------

/// Runs `fun` (out-of-place, or in place when `ov` is None) on views over fresh storages
/// filled by `fill`; checks every element and the storage outside the output view.
/// Returns the largest error measured (ulps or eps) or a report.
fn run_unary(
    fun: Fun,
    sv: &View,
    ov: Option<&View>,
    rng: &mut Rng,
    mut fill: impl FnMut(&mut Rng) -> [u8; 16],
) -> Result<f64, String> {
    let opd = op(fun);
    let d = sv.dtype;
    let mut s = Store::new(d, needed(sv) + 1, rng);
    for e in 0..s.elems() {
        let b = fill(rng);
        s.set(e, &b);
    }
    let snapshot: Vec<Val> = (0..s.elems()).map(|e| s.val(e)).collect();
    let o = ov.map(|v| Store::new(v.dtype, needed(v) + 1, rng));
    let before = match &o {
        Some(o) => o.buf.bytes().to_vec(),
        None => s.buf.bytes().to_vec(),
    };
    let sd = s.desc(sv);
    let exec = match (&o, ov) {
        (Some(o), Some(v)) => (opd.f)(&sd, &o.desc(v)),
        _ => (opd.fi)(&sd),
    }
    .map_err(|e| format!("{fun:?}: phase 1 refused: {e}"))?;
    if sv.shape.contains(&0) && exec.workspace_size() != 0 {
        return Err(format!(
            "{fun:?}: an empty output asks for workspace {}",
            exec.workspace_size()
        ));
    }
    run_exec(&exec).map_err(|e| format!("{fun:?}: run: {e}"))?;
    let (out_store, out_view) = match (&o, ov) {
        (Some(o), Some(v)) => (o, v),
        _ => (&s, sv),
    };
    let od = out_view.dtype;
    let mut worst: f64 = 0.0;
    for idx in all_indices(&sv.shape) {
        let x = snapshot[at(sv, &idx)];
        let want = expected(fun, d, od, x);
        let got = out_store.get(at(out_view, &idx));
        match check(od, got, want) {
            Ok(e) => worst = worst.max(e),
            Err(msg) => {
                return Err(format!(
                    "{fun:?} {d:?} -> {od:?} at {idx:?}: input {x:?}: {msg}\n  self {sv:?}\n  out {ov:?}"
                ))
            }
        }
    }
    outside_untouched(out_store, out_view, &before).map_err(|e| format!("{fun:?}: {e}"))?;
    let _ = &mut s;
    Ok(worst)
}

fn gen_shape(rng: &mut Rng) -> Vec<usize> {
    if rng.pct(5) {
        return vec![1500 + rng.below(1500) as usize];
    }
    let rank = rng.below(5) as usize;
    (0..rank)
        .map(|_| {
            if rng.pct(4) {
                0
            } else {
                1 + rng.below(5) as usize
            }
        })
        .collect()
}

// ---------------------------------------------------------------------------------------
// Tests: phase 1 rules
// ---------------------------------------------------------------------------------------

fn tensor(dtype: DType, shape: &[usize], rng: &mut Rng) -> (Store, TensorDesc) {
    let v = contiguous(shape, dtype);
    let s = Store::new(dtype, needed(&v).max(1), rng);
    let d = s.desc(&v);
    (s, d)
}

/// Every op x self dtype x out dtype (16 x 16), out-of-place and in place: phase 1
/// accepts exactly what the model accepts.
#[test]
fn phase1_dtype_rules_for_every_op_and_dtype_pair() {
    let mut rng = Rng::new(0x0D7);
    let mut bad = Vec::new();
    let mut accepted = 0;
    for opd in OPS {
        for &d in &ALL16 {
            let (_s, s) = tensor(d, &[2, 3], &mut rng);
            for &o in &ALL16 {
                let (_o, out) = tensor(o, &[2, 3], &mut rng);
                let want = accepts(opd, d, o);
                let got = (opd.f)(&s, &out);
                if got.is_ok() != want {
                    bad.push(format!(
                        "{:?}({d:?}) -> {o:?}: ok = {}, want {want} ({:?})",
                        opd.fun,
                        got.is_ok(),
                        got.err()
                    ));
                }
                accepted += want as usize;
            }
            let want = accepts_inplace(opd, d);
            let got = (opd.fi)(&s);
            if got.is_ok() != want {
                bad.push(format!(
                    "Inplace{:?}({d:?}): ok = {}, want {want} ({:?})",
                    opd.fun,
                    got.is_ok(),
                    got.err()
                ));
            }
        }
    }
    assert!(accepted > 300);
    assert!(
        bad.is_empty(),
        "{} disagreements:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

#[test]
fn phase1_shape_rank_and_named_out_rules() {
    let mut rng = Rng::new(0x5A);
    // shape mismatch, no broadcasting, for every op
    for opd in OPS {
        let d = opd.ins[0];
        let o = *opd.outs.iter().find(|&&o| accepts(opd, d, o)).unwrap();
        let (_a, s) = tensor(d, &[2, 3], &mut rng);
        for shape in [&[3, 2][..], &[6], &[1, 3], &[2, 1], &[], &[1, 2, 3]] {
            let (_b, out) = tensor(o, shape, &mut rng);
            assert!(
                (opd.f)(&s, &out).is_err(),
                "{:?} out shape {shape:?}",
                opd.fun
            );
        }
        let (_c, s1) = tensor(d, &[1, 3], &mut rng);
        let (_e, out) = tensor(o, &[2, 3], &mut rng);
        assert!(
            (opd.f)(&s1, &out).is_err(),
            "{:?}: self (1,3) must not broadcast to out (2,3)",
            opd.fun
        );
        // 9 dims
        let (_f, s9) = tensor(d, &[1; 9], &mut rng);
        let (_g, o9) = tensor(o, &[1; 9], &mut rng);
        assert!((opd.f)(&s9, &o9).is_err(), "{:?}: 9 dims", opd.fun);
        assert!((opd.fi)(&s9).is_err(), "{:?}: 9 dims in place", opd.fun);
        // 8 dims is fine
        let (_h, s8) = tensor(d, &[1; 8], &mut rng);
        let (_i, o8) = tensor(o, &[1; 8], &mut rng);
        assert!((opd.f)(&s8, &o8).is_ok(), "{:?}: 8 dims", opd.fun);
        // an out whose elements overlap
        let st = Store::new(o, 3, &mut rng);
        let ov = st.desc(&view(&[2, 3], &[0, 1], 0, o));
        assert!((opd.f)(&s, &ov).is_err(), "{:?}: overlapping out", opd.fun);
    }
    // The named out rules.
    let refused = |fun: Fun, d: DType, o: DType, rng: &mut Rng| {
        let (_a, s) = tensor(d, &[4], rng);
        let (_b, out) = tensor(o, &[4], rng);
        assert!(
            (op(fun).f)(&s, &out).is_err(),
            "{fun:?}({d:?}) -> {o:?} must be refused"
        );
    };
    refused(Fun::Relu, F32, F16, &mut rng);
    refused(Fun::Relu, S32, S64, &mut rng);
    refused(Fun::Relu, F16, F32, &mut rng);
    refused(Fun::Floor, F32, F64, &mut rng);
    refused(Fun::Floor, S32, F32, &mut rng);
    refused(Fun::Gelu, F32, F16, &mut rng);
    refused(Fun::Gelu, BF16, F32, &mut rng);
    refused(Fun::Silu, F16, F32, &mut rng);
    refused(Fun::Exp, S64, S64, &mut rng); // float -> int not allowed
    refused(Fun::Exp, Bool, Bool, &mut rng);
    refused(Fun::Exp, F32, S32, &mut rng);
    refused(Fun::Exp, F32, C64, &mut rng); // real -> complex not allowed
    refused(Fun::Exp, C64, F32, &mut rng); // complex -> real not allowed
    refused(Fun::Sin, S32, S32, &mut rng);
    refused(Fun::Abs, C64, C64, &mut rng);
    refused(Fun::Abs, C64, F64, &mut rng);
    refused(Fun::Abs, F32, F64, &mut rng);
    // unsupported self dtypes
    for (fun, d) in [
        (Fun::Sigmoid, F64),
        (Fun::Relu, U16),
        (Fun::Relu, Bool),
        (Fun::Ceil, S32),
        (Fun::Tanh, F64),
        (Fun::Tanh, C64),
        (Fun::Exp, S32),
        (Fun::Exp, U8),
        (Fun::Abs, C128),
        (Fun::Abs, C32),
        (Fun::Abs, U16),
        (Fun::Neg, U8),
        (Fun::Neg, S16),
        (Fun::Neg, Bool),
        (Fun::Floor, Bool),
        (Fun::Round, S8),
        (Fun::Sign, U8),
        (Fun::Gelu, F64),
        (Fun::Log, U16),
        (Fun::Log, C32),
        (Fun::Erf, C64),
        (Fun::Erf, S32),
        (Fun::Erf, S16),
        (Fun::Erf, S8),
        (Fun::Erf, U8),
    ] {
        for &o in &ALL16 {
            refused(fun, d, o, &mut rng);
        }
    }
    // and accepted ones the reference names
    let ok = |fun: Fun, d: DType, o: DType, rng: &mut Rng| {
        let (_a, s) = tensor(d, &[4], rng);
        let (_b, out) = tensor(o, &[4], rng);
        assert!(
            (op(fun).f)(&s, &out).is_ok(),
            "{fun:?}({d:?}) -> {o:?} must be accepted"
        );
    };
    ok(Fun::Exp, S64, F32, &mut rng);
    ok(Fun::Exp, Bool, F16, &mut rng);
    ok(Fun::Abs, C64, F32, &mut rng);
    ok(Fun::Sin, S32, F64, &mut rng);
    ok(Fun::Neg, S8, S64, &mut rng);
    ok(Fun::Neg, F16, F64, &mut rng);
    ok(Fun::Exp, F16, F64, &mut rng);
    ok(Fun::Exp, C64, C128, &mut rng);
}

// ---------------------------------------------------------------------------------------
// Tests: values on random views
// ---------------------------------------------------------------------------------------

/// Every op, every self dtype of its list, random accepted out dtypes, random views
/// (transposed, gapped, offset, stride-0 inputs, 0-d, empty, several chunks), in place or
/// not, against the model.
#[test]
fn every_unary_op_matches_model_on_random_views_and_dtypes() {
    let mut rng = Rng::new(0x0_0A1);
    let mut bad = Vec::new();
    let mut runs = 0;
    for opd in OPS {
        let mut dtypes = opd.ins.to_vec();
        dtypes.extend(inplace_ins(opd).iter().filter(|d| !opd.ins.contains(d)));
        for d in dtypes {
            let outs: Vec<DType> = ALL16
                .iter()
                .copied()
                .filter(|&o| accepts(opd, d, o))
                .collect();
            for _ in 0..10 {
                let shape = gen_shape(&mut rng);
                let inplace = accepts_inplace(opd, d) && (outs.is_empty() || rng.pct(30));
                let sv = gen_view(&mut rng, &shape, d, !inplace);
                let ov = if inplace {
                    None
                } else {
                    let o = rng.pick(&outs);
                    Some(gen_view(&mut rng, &shape, o, false))
                };
                let fun = opd.fun;
                match run_unary(fun, &sv, ov.as_ref(), &mut rng, |r| gen_input(r, fun, d)) {
                    Ok(_) => runs += 1,
                    Err(e) => bad.push(e),
                }
            }
        }
    }
    assert!(runs > 1500, "{runs}");
    assert!(
        bad.is_empty(),
        "{} failures:\n{}",
        bad.len(),
        bad[..bad.len().min(15)].join("\n")
    );
}

// ---------------------------------------------------------------------------------------
// Tests: accuracy sweeps (these produce the numbers quoted in the library's notes)
// ---------------------------------------------------------------------------------------

const TRANSCENDENTAL: &[Fun] = &[
    Fun::Exp,
    Fun::Log,
    Fun::Sqrt,
    Fun::Rsqrt,
    Fun::Sin,
    Fun::Cos,
    Fun::Tanh,
    Fun::Sigmoid,
    Fun::Gelu,
    Fun::Silu,
    Fun::Erf,
    Fun::Log2,
    Fun::Exp2,
    Fun::Reciprocal,
];

/// Runs `fun` on contiguous 1-d `d` -> `d` for the given raw inputs and returns, per
/// element, (input, output) values.
fn run_1d(fun: Fun, d: DType, inputs: &[u64], rng: &mut Rng) -> Vec<(f64, f64)> {
    let n = inputs.len();
    let f = fmt_of(d);
    let mut s = Store::new(d, n, rng);
    for (k, &b) in inputs.iter().enumerate() {
        s.set(k, &b.to_le_bytes());
    }
    let o = Store::new(d, n, rng);
    let v = contiguous(&[n], d);
    let e = (op(fun).f)(&s.desc(&v), &o.desc(&v)).unwrap();
    run_exec(&e).unwrap();
    let _ = &mut s;
    (0..n)
        .map(|k| {
            let x = f.decode(inputs[k]);
            let y = match decode(d, o.get(k)) {
                Val::F(y) => y,
                v => panic!("{v:?}"),
            };
            (x, y)
        })
        .collect()
}

/// The largest error of `fun` measured in ulps of format `f` (over every point), and the
/// largest absolute error among points beyond the ulp bound but within the absolute
/// allowance.
struct Measured {
    max_ulps: f64,
    at: f64,
    tail_abs: f64,
    tail_at: f64,
    fails: Vec<String>,
}

fn measure(
    fun: Fun,
    d: DType,
    pairs: &[(f64, f64)],
    ulps: f64,
    abs: impl Fn(f64) -> f64,
) -> Measured {
    let f = fmt_of(d);
    let mut m = Measured {
        max_ulps: 0.0,
        at: 0.0,
        tail_abs: 0.0,
        tail_at: 0.0,
        fails: Vec::new(),
    };
    for &(x, y) in pairs {
        let r = fun.ref64(x);
        if fun.exact() {
            let w = f.round(r);
            if !(same_val(Val::F(w), Val::F(y))) {
                m.fails.push(format!(
                    "{fun:?}({x:e}) = {y:e}, want {w:e} (correctly rounded)"
                ));
            }
            continue;
        }
        let e = ulp_err(y, r, f);
        if e.is_finite() && e > m.max_ulps {
            m.max_ulps = e;
            m.at = x;
        }
        if e > ulps {
            if y.is_finite() && r.is_finite() && (y - r).abs() <= abs(x) {
                if (y - r).abs() > m.tail_abs {
                    m.tail_abs = (y - r).abs();
                    m.tail_at = x;
                }
            } else {
                m.fails.push(format!(
                    "{fun:?}({x:e}) = {y:e}, want {r:e}: {e:.3} ulps > {ulps}"
                ));
            }
        }
    }
    m
}

/// f32 inputs for an accuracy sweep: random bits over the whole range and dense samples
/// of the op's interesting interval.
fn f32_sweep_inputs(fun: Fun, rng: &mut Rng, n: usize) -> Vec<u64> {
    let a = domain(fun);
    (0..n)
        .map(|k| {
            let x: f32 = match k % 4 {
                0 => f32::from_bits(rng.next() as u32),
                1 => ((rng.next() >> 11) as f64 / pow2(53) * 2.0 - 1.0) as f32 * a as f32,
                2 => ((rng.next() >> 11) as f64 / pow2(53) * 2.0 - 1.0) as f32 * 4.0,
                _ => ((rng.next() >> 11) as f64 / pow2(53) * 2.0 - 1.0) as f32 * 0.01,
            };
            x.to_bits() as u64
        })
        .collect()
}

/// f32 sweep: 60k inputs per op; the max error must be within the stated bound. Run with
/// `--nocapture` to print the table.
#[test]
fn f32_accuracy_sweep() {
    let mut rng = Rng::new(0xACC32);
    let mut fails = Vec::new();
    let mut table =
        String::from("op           max ulp (f32)   at x            | tail abs err  at x\n");
    for &fun in TRANSCENDENTAL {
        let inputs = f32_sweep_inputs(fun, &mut rng, 60_000);
        let pairs = run_1d(fun, F32, &inputs, &mut rng);
        let me = measure(fun, F32, &pairs, fun.f32_ulps(), |x| fun.f32_abs(x));
        table += &format!(
            "{:<12} {:<15.4} {:<15e} | {:<13e} {:e}\n",
            format!("{fun:?}"),
            me.max_ulps,
            me.at,
            me.tail_abs,
            me.tail_at
        );
        fails.extend(me.fails.into_iter().take(5));
    }
    eprintln!("{table}");
    assert!(fails.is_empty(), "{}", fails.join("\n"));
}

/// f16 and bf16: every one of the 65536 encodings, out in the same dtype; results must be
/// within 1 ulp of f16/bf16 (plus the ops' absolute allowances scaled to the format).
#[test]
fn f16_bf16_exhaustive_accuracy() {
    let mut rng = Rng::new(0xACC16);
    let inputs: Vec<u64> = (0..65536u64).collect();
    let mut fails = Vec::new();
    let mut table =
        String::from("op           max ulp (f16)  at x         | max ulp (bf16)  at x\n");
    for &fun in TRANSCENDENTAL {
        let mut row = format!("{:<12}", format!("{fun:?}"));
        for d in [F16, BF16] {
            let pairs = run_1d(fun, d, &inputs, &mut rng);
            let me = measure(fun, d, &pairs, 1.0, |x| fun.f32_abs(x));
            row += &format!(" {:<14.4} {:<12e} |", me.max_ulps, me.at);
            fails.extend(me.fails.into_iter().take(5));
            // and every result was rounded to the format (decode of stored bits: always true),
            // and sqrt/reciprocal are correctly rounded (checked in `measure`)
        }
        table += &row;
        table.push('\n');
    }
    eprintln!("{table}");
    assert!(fails.is_empty(), "{}", fails.join("\n"));
}

/// f64: the results against known values (the library uses the C library's double
/// functions; these pin them within 1 ulp).
#[test]
fn f64_known_values() {
    use std::f64::consts::*;
    let mut rng = Rng::new(64);
    let cases: &[(Fun, f64, f64)] = &[
        (Fun::Exp, 1.0, E),
        (Fun::Exp, LN_2, 2.0),
        (Fun::Exp, 0.0, 1.0),
        (Fun::Exp, -745.2, 0.0),
        (Fun::Exp, 709.0, 8.218407461554972e307),
        (Fun::Log, E, 1.0),
        (Fun::Log, 2.0, LN_2),
        (Fun::Log, 10.0, LN_10),
        (Fun::Log, 1e-300, -690.7755278982137),
        (Fun::Sqrt, 2.0, SQRT_2),
        (Fun::Sqrt, 0.5, FRAC_1_SQRT_2),
        (Fun::Rsqrt, 2.0, FRAC_1_SQRT_2),
        (Fun::Rsqrt, 4.0, 0.5),
        (Fun::Sin, FRAC_PI_2, 1.0),
        (Fun::Sin, PI, 1.2246467991473532e-16),
        (Fun::Sin, 1e22, -0.8522008497671888),
        (Fun::Cos, 0.0, 1.0),
        (Fun::Cos, PI, -1.0),
        (Fun::Cos, 1.0, 0.5403023058681398),
        (Fun::Reciprocal, 3.0, 1.0 / 3.0),
        (Fun::Erf, 1.0, 0.8427007929497149),
        (Fun::Erf, 0.5, 0.5204998778130465),
        (Fun::Erf, -2.0, -0.9953222650189527),
        (Fun::Log2, 10.0, LOG2_10),
        (Fun::Log2, E, LOG2_E),
        (Fun::Log2, 0.125, -3.0),
        (Fun::Exp2, 0.5, SQRT_2),
        (Fun::Exp2, -1074.0, 5e-324),
        (Fun::Exp2, 10.0, 1024.0),
    ];
    let inputs: Vec<u64> = cases.iter().map(|c| c.1.to_bits()).collect();
    for fun in [
        Fun::Exp,
        Fun::Log,
        Fun::Sqrt,
        Fun::Rsqrt,
        Fun::Sin,
        Fun::Cos,
        Fun::Reciprocal,
        Fun::Erf,
        Fun::Log2,
        Fun::Exp2,
    ] {
        let sel: Vec<usize> = (0..cases.len()).filter(|&k| cases[k].0 == fun).collect();
        let ins: Vec<u64> = sel.iter().map(|&k| inputs[k]).collect();
        let out = run_1d(fun, F64, &ins, &mut rng);
        for (j, &k) in sel.iter().enumerate() {
            let (x, y) = out[j];
            let want = cases[k].2;
            let e = ulp_err(y, want, FMT_F64);
            assert!(
                e <= 1.0,
                "{fun:?}({x:e}) = {y:e}, want {want:e} ({e:.2} ulps)"
            );
        }
    }
    // f64 tanh is not in the lists; f64 sweep against the f64 C functions, 2 ulps.
    let ins: Vec<u64> = (0..4000)
        .map(|_| (((rng.next() >> 11) as f64 / pow2(53) * 2.0 - 1.0) * 50.0).to_bits())
        .collect();
    for &fun in &[
        Fun::Exp,
        Fun::Sin,
        Fun::Cos,
        Fun::Erf,
        Fun::Log2,
        Fun::Exp2,
        Fun::Rsqrt,
    ] {
        let pairs = run_1d(fun, F64, &ins, &mut rng);
        let me = measure(fun, F64, &pairs, F64_ULPS, |_| 0.0);
        assert!(
            me.fails.is_empty(),
            "{:?}",
            &me.fails[..me.fails.len().min(5)]
        );
    }
}

// ---------------------------------------------------------------------------------------
// Tests: edges
// ---------------------------------------------------------------------------------------

/// Runs `fun` on one f32 value (0-d) and returns the f32 result.
fn f32_of(fun: Fun, x: f32) -> f32 {
    let mut rng = Rng::new(x.to_bits() as u64);
    let out = run_1d(fun, F32, &[x.to_bits() as u64], &mut rng);
    out[0].1 as f32
}

fn f64_of(fun: Fun, x: f64) -> f64 {
    let mut rng = Rng::new(x.to_bits());
    run_1d(fun, F64, &[x.to_bits()], &mut rng)[0].1
}

fn same32(a: f32, b: f32) -> bool {
    (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits()
}

#[test]
fn edge_values_f32_and_f64() {
    let inf = f32::INFINITY;
    let nan = f32::NAN;
    #[rustfmt::skip]
    let cases: &[(Fun, f32, f32)] = &[
        (Fun::Exp, f32::NEG_INFINITY, 0.0), (Fun::Exp, inf, inf), (Fun::Exp, nan, nan),
        (Fun::Exp, -0.0, 1.0), (Fun::Exp, 89.0, inf), (Fun::Exp, -104.0, 0.0), (Fun::Exp, 1e-30, 1.0),
        (Fun::Log, 0.0, f32::NEG_INFINITY), (Fun::Log, -0.0, f32::NEG_INFINITY), (Fun::Log, -1.0, nan),
        (Fun::Log, inf, inf), (Fun::Log, f32::NEG_INFINITY, nan), (Fun::Log, 1.0, 0.0), (Fun::Log, nan, nan),
        (Fun::Sqrt, -1.0, nan), (Fun::Sqrt, -0.0, -0.0), (Fun::Sqrt, inf, inf), (Fun::Sqrt, f32::NEG_INFINITY, nan),
        (Fun::Sqrt, 0.0, 0.0), (Fun::Sqrt, 0.25, 0.5),
        (Fun::Rsqrt, 0.0, inf), (Fun::Rsqrt, -0.0, f32::NEG_INFINITY), (Fun::Rsqrt, -1.0, nan), (Fun::Rsqrt, inf, 0.0),
        (Fun::Sin, -0.0, -0.0), (Fun::Sin, inf, nan), (Fun::Sin, nan, nan), (Fun::Sin, 1e-30, 1e-30),
        (Fun::Cos, inf, nan), (Fun::Cos, -0.0, 1.0), (Fun::Cos, f32::NEG_INFINITY, nan),
        (Fun::Tanh, inf, 1.0), (Fun::Tanh, f32::NEG_INFINITY, -1.0), (Fun::Tanh, -0.0, -0.0), (Fun::Tanh, 1e-30, 1e-30),
        (Fun::Tanh, 20.0, 1.0), (Fun::Tanh, nan, nan),
        (Fun::Sigmoid, inf, 1.0), (Fun::Sigmoid, f32::NEG_INFINITY, 0.0), (Fun::Sigmoid, nan, nan), (Fun::Sigmoid, 0.0, 0.5),
        (Fun::Silu, inf, inf), (Fun::Silu, 0.0, 0.0), (Fun::Silu, nan, nan),
        (Fun::Gelu, inf, inf), (Fun::Gelu, 0.0, 0.0), (Fun::Gelu, nan, nan),
        (Fun::Reciprocal, 0.0, inf), (Fun::Reciprocal, -0.0, f32::NEG_INFINITY), (Fun::Reciprocal, inf, 0.0),
        (Fun::Reciprocal, f32::NEG_INFINITY, -0.0), (Fun::Reciprocal, 4.0, 0.25), (Fun::Reciprocal, 1e-39, inf),
        (Fun::Erf, inf, 1.0), (Fun::Erf, f32::NEG_INFINITY, -1.0), (Fun::Erf, -0.0, -0.0), (Fun::Erf, nan, nan),
        (Fun::Log2, 0.0, f32::NEG_INFINITY), (Fun::Log2, 8.0, 3.0), (Fun::Log2, -1.0, nan), (Fun::Log2, 1e-45, -149.0),
        (Fun::Exp2, f32::NEG_INFINITY, 0.0), (Fun::Exp2, 10.0, 1024.0), (Fun::Exp2, 128.0, inf), (Fun::Exp2, -149.0, 1e-45),
        (Fun::Floor, -0.5, -1.0), (Fun::Floor, -0.0, -0.0), (Fun::Floor, 2.5, 2.0), (Fun::Floor, inf, inf), (Fun::Floor, nan, nan),
        (Fun::Floor, 8388609.0, 8388609.0),
        (Fun::Ceil, -0.5, -0.0), (Fun::Ceil, 0.2, 1.0), (Fun::Ceil, f32::NEG_INFINITY, f32::NEG_INFINITY),
        (Fun::Round, 2.5, 2.0), (Fun::Round, 3.5, 4.0), (Fun::Round, -2.5, -2.0), (Fun::Round, 0.49999997, 0.0),
        (Fun::Round, 8388609.0, 8388609.0), (Fun::Round, 1.5, 2.0), (Fun::Round, nan, nan), (Fun::Round, -inf, -inf),
        (Fun::Sign, -3.0, -1.0), (Fun::Sign, 1e-45, 1.0), (Fun::Sign, nan, nan), (Fun::Sign, -inf, -1.0),
        (Fun::Abs, -0.0, 0.0), (Fun::Abs, -inf, inf), (Fun::Abs, nan, nan),
        (Fun::Neg, 0.0, -0.0), (Fun::Neg, -inf, inf),
        (Fun::Relu, -inf, 0.0), (Fun::Relu, nan, nan), (Fun::Relu, -1e-45, 0.0), (Fun::Relu, 3.0, 3.0),
    ];
    let mut bad = Vec::new();
    for &(fun, x, want) in cases {
        let got = f32_of(fun, x);
        let zero_free = fun.zero_sign_free() && got == 0.0 && want == 0.0;
        if !(same32(got, want) || zero_free) {
            bad.push(format!(
                "f32 {fun:?}({x:e}) = {got:e} ({:#x}), want {want:e}",
                got.to_bits()
            ));
        }
        // and in f64 when the op takes f64 (results are the same values in these cases
        // except where an f32 overflow/underflow threshold is involved)
        let takes_f64 = op(fun).ins.contains(&F64);
        let thresholds = matches!(
            (fun, x),
            (Fun::Exp, 89.0)
                | (Fun::Exp, -104.0)
                | (Fun::Exp2, 128.0)
                | (Fun::Exp2, -149.0)
                | (Fun::Log2, 1e-45)
                | (Fun::Reciprocal, 1e-39)
                | (Fun::Sign, 1e-45)
                | (Fun::Relu, -1e-45)
                | (Fun::Exp, 1e-30)
                | (Fun::Sin, 1e-30)
                | (Fun::Tanh, 1e-30)
        );
        if takes_f64 && !thresholds {
            let g = f64_of(fun, x as f64);
            let w = want as f64;
            let zero_free = fun.zero_sign_free() && g == 0.0 && w == 0.0;
            if !((g.is_nan() && w.is_nan()) || g.to_bits() == w.to_bits() || zero_free) {
                bad.push(format!("f64 {fun:?}({x:e}) = {g:e}, want {w:e}"));
            }
        }
    }
    // -inf into Silu and Gelu: the documented formulas give -inf/inf and -inf*0, i.e. NaN
    // (as PyTorch's); the mathematical limit is -0. Either is accepted; see the report.
    for fun in [Fun::Silu, Fun::Gelu] {
        let g = f32_of(fun, f32::NEG_INFINITY);
        if !(g.is_nan() || g == 0.0) {
            bad.push(format!("{fun:?}(-inf) = {g:e}"));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// The activations' tails in f32: where e^-x overflows f32 (x < -88.72) Silu's exact
/// result is still a normal f32 (-2.4e-37 at x = -88.8) and Sigmoid's a subnormal one;
/// Gelu's exact result underflows gradually for x in [-10.5, -9]. (A first version computed
/// x/(1+e^-x) in f32 and returned -0 / 0 there, and 0.5x(1+tanh u) lost all precision to
/// cancellation for x < -3.)
#[test]
fn activation_tails_in_f32_are_accurate() {
    let mut bad = Vec::new();
    let tails: [(Fun, f32, f32); 3] = [
        (Fun::Silu, -110.0, -60.0),
        (Fun::Sigmoid, -110.0, -60.0),
        (Fun::Gelu, -12.0, -2.0),
    ];
    let mut rng = Rng::new(0x7A11);
    for (fun, lo, hi) in tails {
        let ins: Vec<u64> = (0..20000)
            .map(|k| (lo + (hi - lo) * k as f32 / 20000.0).to_bits() as u64)
            .collect();
        for (x, y) in run_1d(fun, F32, &ins, &mut rng) {
            let r = fun.ref64(x);
            let e = ulp_err(y, r, FMT_F32);
            if e > fun.f32_ulps() && (y - r).abs() > fun.f32_abs(x) {
                bad.push(format!("{fun:?}({x}) = {y:e}, exact {r:e} ({e:.1} ulps)"));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "{} bad, first: {}",
        bad.len(),
        bad[..bad.len().min(10)].join("\n")
    );
}

/// Integer and bool inputs of float functions compute in f32 (an f64 out shows it: the
/// values are f32 values), f16 inputs compute in f32 and round once to f16.
#[test]
fn integer_inputs_compute_in_f32_and_halfs_round_once() {
    let mut rng = Rng::new(0x1F32);
    let run = |fun: Fun, d: DType, vals: &[Val], o: DType, rng: &mut Rng| -> Vec<f64> {
        let n = vals.len();
        let mut s = Store::new(d, n, rng);
        for (k, v) in vals.iter().enumerate() {
            s.set(k, &encode(d, *v));
        }
        let out = Store::new(o, n, rng);
        let e = (op(fun).f)(
            &s.desc(&contiguous(&[n], d)),
            &out.desc(&contiguous(&[n], o)),
        )
        .unwrap();
        run_exec(&e).unwrap();
        let _ = &mut s;
        (0..n)
            .map(|k| match decode(o, out.get(k)) {
                Val::F(y) => y,
                v => panic!("{v:?}"),
            })
            .collect()
    };
    // sin(s32 10) = sinf(10.0f), seen through an f64 out
    let got = run(
        Fun::Sin,
        S32,
        &[Val::I(10), Val::I(16777217), Val::I(-3)],
        F64,
        &mut rng,
    );
    assert_eq!(got[0], FMT_F32.round(got[0]), "computed in f32");
    assert!(ulp_err(got[0], 10f64.sin(), FMT_F32) <= 1.0, "{}", got[0]);
    assert_eq!(got[0], (10.0f32).sin() as f64);
    // 16777217 rounds to 16777216 in f32 first
    assert_eq!(got[1], (16777216.0f32).sin() as f64);
    // sqrt of s64 2 into f64: the correctly rounded f32 sqrt(2)
    let got = run(
        Fun::Sqrt,
        S64,
        &[Val::I(2), Val::I((1 << 60) + 1)],
        F64,
        &mut rng,
    );
    assert_eq!(got[0], FMT_F32.round(2f64.sqrt()));
    assert_eq!(got[1], pow2(30));
    // exp of bool: e in f32, 1
    let got = run(
        Fun::Exp,
        Bool,
        &[Val::B(true), Val::B(false)],
        F64,
        &mut rng,
    );
    assert_eq!(got, [FMT_F32.round(std::f64::consts::E), 1.0]);
    // reciprocal of u8 3 in f16: f32 1/3 rounded to f16
    let got = run(Fun::Reciprocal, U8, &[Val::I(3)], F16, &mut rng);
    assert_eq!(got[0], FMT_F16.round(1.0 / 3.0));
    // exp of f16 1.0 with an f32 out: f16(e) = 2.71875 (rounded once to f16, then widened)
    let got = run(Fun::Exp, F16, &[Val::F(1.0), Val::F(-1.0)], F32, &mut rng);
    assert_eq!(got[0], 2.71875);
    assert_eq!(got[1], FMT_F16.round((-1f64).exp()));
    // bf16 in, f64 out: on the bf16 grid
    let got = run(Fun::Log, BF16, &[Val::F(3.0)], F64, &mut rng);
    assert_eq!(got[0], FMT_BF16.round(3f64.ln()));
    // tanh of s8 / u8
    let got = run(Fun::Tanh, S8, &[Val::I(-1), Val::I(0)], F32, &mut rng);
    assert!(ulp_err(got[0], (-1f64).tanh(), FMT_F32) <= 2.0);
    assert_eq!(got[1].to_bits(), 0);
}

/// Abs wraps on integers, Neg wraps; Abs of c64 is the f32 modulus; c32 is refused (CANN's
/// A2 list).
#[test]
fn integer_wrapping_and_complex_abs() {
    let mut rng = Rng::new(0xAB5);
    let sv = contiguous(&[4], S8);
    let mut s = Store::new(S8, 4, &mut rng);
    for (k, v) in [-128i8, -5, 0, 127].iter().enumerate() {
        s.set(k, &v.to_le_bytes());
    }
    let o = Store::new(S8, 4, &mut rng);
    run_exec(&m::abs(&s.desc(&sv), &o.desc(&sv)).unwrap()).unwrap();
    assert_eq!(o.buf.bytes(), [128u8, 5, 0, 127]);
    run_exec(&m::neg(&s.desc(&sv), &o.desc(&sv)).unwrap()).unwrap();
    assert_eq!(o.buf.bytes(), [128u8, 5, 0, 129]);
    // Neg of s8 -128 into s32: wraps in s8 first
    let o32 = Store::new(S32, 4, &mut rng);
    run_exec(&m::neg(&s.desc(&sv), &o32.desc(&contiguous(&[4], S32))).unwrap()).unwrap();
    assert_eq!(&o32.buf.bytes()[..4], (-128i32).to_le_bytes());
    // |3 + 4i| = 5 exactly; |1e30 + 1e30 i| does not overflow
    let cv = contiguous(&[3], C64);
    let mut c = Store::new(C64, 3, &mut rng);
    for (k, (a, b)) in [(3.0f32, 4.0f32), (1e30, 1e30), (-0.0, -0.0)]
        .iter()
        .enumerate()
    {
        c.set(k, &[a.to_le_bytes(), b.to_le_bytes()].concat());
    }
    let f = Store::new(F32, 3, &mut rng);
    run_exec(&m::abs(&c.desc(&cv), &f.desc(&contiguous(&[3], F32))).unwrap()).unwrap();
    let got: Vec<f32> = f
        .buf
        .bytes()
        .chunks(4)
        .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
        .collect();
    assert_eq!(got[0], 5.0);
    assert!(
        ulp_err(got[1] as f64, 1e30f32 as f64 * 2f64.sqrt(), FMT_F32) <= 1.0,
        "{}",
        got[1]
    );
    assert_eq!(got[2].to_bits(), 0);
    // c32 is no Abs dtype on Atlas A2, into f16 or any other out
    let hv = contiguous(&[1], C32);
    let h = Store::new(C32, 1, &mut rng);
    let hf = Store::new(F16, 1, &mut rng);
    match m::abs(&h.desc(&hv), &hf.desc(&contiguous(&[1], F16))) {
        Err(e) => assert!(e.to_string().contains("ACL_COMPLEX32"), "{e}"),
        Ok(_) => panic!("Abs of complex32 accepted"),
    }
    let _ = (&mut s, &mut c);
}

/// exp/log/log2/sigmoid/sqrt/sin/cos/rsqrt/reciprocal/sign of c64 and c128 against the textbook
/// formulas in f64, normwise; a few exact values.
#[test]
fn complex_functions_match_formulas() {
    let mut rng = Rng::new(0xC0C0);
    let mut worst = Vec::new();
    for fun in [
        Fun::Exp,
        Fun::Log,
        Fun::Log2,
        Fun::Sigmoid,
        Fun::Sqrt,
        Fun::Sin,
        Fun::Cos,
        Fun::Rsqrt,
        Fun::Reciprocal,
        Fun::Sign,
        Fun::Neg,
    ] {
        for d in [C64, C128] {
            let sv = contiguous(&[3000], d);
            // Sigmoid takes complex only in place (InplaceSigmoid).
            let ov = (fun != Fun::Sigmoid).then(|| contiguous(&[3000], d));
            let w = run_unary(fun, &sv, ov.as_ref(), &mut rng, |r| gen_input(r, fun, d))
                .unwrap_or_else(|e| panic!("{e}"));
            worst.push(format!("{fun:?} {d:?}: {w:.2} eps"));
        }
    }
    eprintln!("complex normwise max error: {}", worst.join(", "));
    // exact-ish values in c128
    let mut rng = Rng::new(5);
    let cv = contiguous(&[1], C128);
    let one = |fun: Fun, re: f64, im: f64, rng: &mut Rng| -> (f64, f64) {
        let mut s = Store::new(C128, 1, rng);
        s.set(0, &encode(C128, Val::C(re, im)));
        let o = Store::new(C128, 1, rng);
        run_exec(&(op(fun).f)(&s.desc(&cv), &o.desc(&cv)).unwrap()).unwrap();
        let _ = &mut s;
        match o.val(0) {
            Val::C(a, b) => (a, b),
            _ => unreachable!(),
        }
    };
    use std::f64::consts::*;
    let close = |a: (f64, f64), b: (f64, f64)| {
        (a.0 - b.0).abs() <= 4e-16 * b.0.abs().max(1e-300) + 1e-300
            && (a.1 - b.1).abs() <= 4e-16 * b.1.abs().max(1e-300) + 1e-300
    };
    let g = one(Fun::Exp, 0.0, PI, &mut rng);
    assert!(
        (g.0 + 1.0).abs() < 1e-15 && (g.1 - 1.2246467991473532e-16).abs() < 1e-30,
        "{g:?}"
    );
    assert!(close(one(Fun::Log, -1.0, 0.0, &mut rng), (0.0, PI)));
    assert!(close(one(Fun::Sqrt, -4.0, 0.0, &mut rng), (0.0, 2.0)));
    assert!(close(one(Fun::Sqrt, 0.0, 2.0, &mut rng), (1.0, 1.0)));
    let g = one(Fun::Sin, 0.0, 1.0, &mut rng);
    assert!(g.0 == 0.0 && (g.1 - 1f64.sinh()).abs() <= 2.3e-16, "{g:?}");
    let g = one(Fun::Cos, 0.0, 1.0, &mut rng);
    assert!((g.0 - 1f64.cosh()).abs() <= 4.5e-16 && g.1 == 0.0, "{g:?}");
    assert!(close(one(Fun::Reciprocal, 0.0, 2.0, &mut rng), (0.0, -0.5)));
    assert!(close(one(Fun::Sign, -3.0, 4.0, &mut rng), (-0.6, 0.8)));
    assert_eq!(one(Fun::Sign, 0.0, 0.0, &mut rng), (0.0, 0.0));
}

// ---------------------------------------------------------------------------------------
// Clamp
// ---------------------------------------------------------------------------------------

const CLAMP_LIST: &[DType] = &[F32, F16, F64, BF16, S8, U8, S16, S32, S64];

/// The computation dtype of Clamp: a float tensor keeps its dtype; an integer tensor
/// keeps its dtype unless a bound is a float (then f32) (reference §5.0 TensorScalar).
fn clamp_dtype(d: DType, bounds: &[DType]) -> DType {
    if kd(d) == Kd::Int && bounds.iter().any(|b| kd(*b) == Kd::Float) {
        F32
    } else {
        d
    }
}

fn sc(d: DType, v: Val) -> Scalar {
    Scalar::from_bytes(d, &encode(d, v))
}

fn clamp_ref(x: Val, lo: Option<Val>, hi: Option<Val>, p: DType) -> Val {
    let x = convert(x, p);
    let lo = lo.map(|v| convert(v, p));
    let hi = hi.map(|v| convert(v, p));
    // max then min, NaN propagating, max(-0, +0) = +0 and min(-0, +0) = -0 (the
    // Maximum/Minimum rule, as for tensor bounds).
    let ext = |a: Val, b: Val, upper: bool| match (a, b) {
        (Val::I(a), Val::I(b)) => Val::I(if upper { a.min(b) } else { a.max(b) }),
        (Val::F(a), Val::F(b)) => Val::F(if a.is_nan() || b.is_nan() {
            f64::NAN
        } else if a == b && a == 0.0 {
            let neg = if upper {
                a.is_sign_negative() || b.is_sign_negative()
            } else {
                a.is_sign_negative() && b.is_sign_negative()
            };
            if neg {
                -0.0
            } else {
                0.0
            }
        } else if (a < b) == upper {
            a
        } else {
            b
        }),
        _ => unreachable!(),
    };
    let mut y = x;
    if let Some(l) = lo {
        y = ext(y, l, false);
    }
    if let Some(h) = hi {
        y = ext(y, h, true);
    }
    y
}

/// A bound value in the range of every dtype of the list (so no wrapping is involved).
fn gen_bound(rng: &mut Rng, d: DType) -> Val {
    match kd(d) {
        Kd::Int => Val::I(rng.below(100) as i128),
        _ => Val::F(fmt_of(d).round(rng.below(400) as f64 * 0.25 - 20.0)),
    }
}

#[test]
fn clamp_matches_model_on_random_views_and_dtypes() {
    let mut rng = Rng::new(0xC1A);
    let mut bad = Vec::new();
    let mut ran = 0;
    for case in 0..1500 {
        let d = rng.pick(CLAMP_LIST);
        let (lo_d, hi_d) = (rng.pick(CLAMP_LIST), rng.pick(CLAMP_LIST));
        let which = rng.below(3); // 0: both, 1: min only, 2: max only
        let lo = (which != 2).then(|| (lo_d, gen_bound(&mut rng, lo_d)));
        let hi = (which != 1).then(|| (hi_d, gen_bound(&mut rng, hi_d)));
        let bound_dts: Vec<DType> = lo.iter().chain(hi.iter()).map(|b| b.0).collect();
        let p = clamp_dtype(d, &bound_dts);
        let outs: Vec<DType> = CLAMP_LIST
            .iter()
            .copied()
            .filter(|&o| ref_can_cast(p, o))
            .collect();
        let o = if rng.pct(5) {
            rng.pick(&ALL16)
        } else {
            rng.pick(&outs)
        };
        let shape = gen_shape(&mut rng);
        let sv = gen_view(&mut rng, &shape, d, true);
        let ov = gen_view(&mut rng, &shape, o, false);
        let mut s = Store::new(d, needed(&sv) + 1, &mut rng);
        for e in 0..s.elems() {
            let b = if rng.pct(50) {
                nice_bytes(&mut rng, d)
            } else {
                encode(d, convert(gen_bound(&mut rng, F64), d))
            };
            s.set(e, &b);
        }
        let out = Store::new(o, needed(&ov) + 1, &mut rng);
        let before = out.buf.bytes().to_vec();
        let los = lo.map(|(t, v)| sc(t, v));
        let his = hi.map(|(t, v)| sc(t, v));
        let r = clamp(&s.desc(&sv), los.as_ref(), his.as_ref(), &out.desc(&ov));
        let accept = CLAMP_LIST.contains(&o) && ref_can_cast(p, o);
        match r {
            Ok(e) if accept => run_exec(&e).unwrap(),
            Ok(_) => {
                bad.push(format!(
                    "case {case}: clamp({d:?}, {lo:?}, {hi:?}) -> {o:?} accepted"
                ));
                continue;
            }
            Err(e) if accept => {
                bad.push(format!(
                    "case {case}: clamp({d:?}, {lo:?}, {hi:?}) -> {o:?} refused: {e}"
                ));
                continue;
            }
            Err(_) => continue,
        }
        ran += 1;
        for idx in all_indices(&shape) {
            let x = s.val(at(&sv, &idx));
            let want = convert(clamp_ref(x, lo.map(|b| b.1), hi.map(|b| b.1), p), o);
            let got = out.get(at(&ov, &idx));
            if !stored_matches(o, got, want) {
                bad.push(format!(
                    "case {case}: clamp({d:?} {x:?}, {lo:?}, {hi:?}) in {p:?} -> {o:?}: got {:?}, want {want:?}",
                    decode(o, got)
                ));
                break;
            }
        }
        if let Err(e) = outside_untouched(&out, &ov, &before) {
            bad.push(format!("case {case}: {e}"));
        }
        let _ = &mut s;
    }
    assert!(ran > 1000, "{ran}");
    assert!(bad.is_empty(), "{}", bad[..bad.len().min(15)].join("\n"));
}

#[test]
fn clamp_named_cases() {
    let mut rng = Rng::new(0xC1B);
    let run = |d: DType,
               xs: &[Val],
               lo: Option<Scalar>,
               hi: Option<Scalar>,
               o: DType,
               rng: &mut Rng|
     -> crate::Result<Vec<Val>> {
        let n = xs.len();
        let mut s = Store::new(d, n, rng);
        for (k, x) in xs.iter().enumerate() {
            s.set(k, &encode(d, *x));
        }
        let out = Store::new(o, n, rng);
        let e = clamp(
            &s.desc(&contiguous(&[n], d)),
            lo.as_ref(),
            hi.as_ref(),
            &out.desc(&contiguous(&[n], o)),
        )?;
        run_exec(&e).unwrap();
        let _ = &mut s;
        Ok((0..n).map(|k| out.val(k)).collect())
    };
    let f = |v: &[f64]| v.iter().map(|&x| Val::F(x)).collect::<Vec<_>>();
    let i = |v: &[i128]| v.iter().map(|&x| Val::I(x)).collect::<Vec<_>>();
    let nan = f64::NAN;
    // both bounds; NaN stays NaN; infinities clamp
    let got = run(
        F32,
        &f(&[-3.0, -1.5, 0.0, 2.5, nan, f64::INFINITY, f64::NEG_INFINITY]),
        Some(sc(F32, Val::F(-1.0))),
        Some(sc(F32, Val::F(2.0))),
        F32,
        &mut rng,
    )
    .unwrap();
    let want = f(&[-1.0, -1.0, 0.0, 2.0, nan, 2.0, -1.0]);
    assert!(
        got.iter().zip(&want).all(|(a, b)| same_val(*a, *b)),
        "{got:?}"
    );
    // min only / max only
    let got = run(
        F64,
        &f(&[-3.0, 5.0]),
        Some(sc(S32, Val::I(0))),
        None,
        F64,
        &mut rng,
    )
    .unwrap();
    assert!(
        same_val(got[0], Val::F(0.0)) && same_val(got[1], Val::F(5.0)),
        "{got:?}"
    );
    let got = run(
        F64,
        &f(&[-3.0, 5.0]),
        None,
        Some(sc(S32, Val::I(0))),
        F64,
        &mut rng,
    )
    .unwrap();
    assert!(
        same_val(got[0], Val::F(-3.0)) && same_val(got[1], Val::F(0.0)),
        "{got:?}"
    );
    // both NULL: refused
    assert!(run(F32, &f(&[1.0]), None, None, F32, &mut rng).is_err());
    // int tensor with a float bound computes in f32: s32 out refused, f32 out gets f32 values
    let xs = i(&[-3, -1, 0, 1, 3, 16777217]);
    assert!(run(
        S32,
        &xs,
        Some(sc(F32, Val::F(-1.5))),
        Some(sc(F32, Val::F(1.5))),
        S32,
        &mut rng
    )
    .is_err());
    let got = run(
        S32,
        &xs,
        Some(sc(F32, Val::F(-1.5))),
        Some(sc(F64, Val::F(1e9))),
        F32,
        &mut rng,
    )
    .unwrap();
    let want = f(&[-1.5, -1.0, 0.0, 1.0, 3.0, 16777216.0]);
    assert!(
        got.iter().zip(&want).all(|(a, b)| same_val(*a, *b)),
        "{got:?}"
    );
    // int tensor with int bounds stays integer
    let got = run(
        S8,
        &i(&[-128, -4, 0, 50, 127]),
        Some(sc(S64, Val::I(-3))),
        Some(sc(U8, Val::I(100))),
        S8,
        &mut rng,
    )
    .unwrap();
    assert_eq!(got, i(&[-3, -3, 0, 50, 100]));
    // min > max gives max everywhere
    let got = run(
        F32,
        &f(&[-5.0, 0.0, 5.0]),
        Some(sc(F32, Val::F(2.0))),
        Some(sc(F32, Val::F(1.0))),
        F32,
        &mut rng,
    )
    .unwrap();
    assert_eq!(got, f(&[1.0, 1.0, 1.0]));
    // f16 tensor: the bound rounds to f16 first (0.1 -> 0.0999755859375)
    let b = FMT_F16.round(0.1);
    let got = run(
        F16,
        &f(&[0.0, b, 1.0]),
        Some(sc(F32, Val::F(FMT_F32.round(0.1)))),
        None,
        F16,
        &mut rng,
    )
    .unwrap();
    assert_eq!(got, f(&[b, b, 1.0]));
    // unsupported dtypes
    for d in [Bool, U16, U32, U64, C64, C128, C32] {
        assert!(
            run(d, &[], Some(sc(F32, Val::F(0.0))), None, F32, &mut rng).is_err(),
            "self {d:?}"
        );
        assert!(
            run(F32, &[], Some(sc(F32, Val::F(0.0))), None, d, &mut rng).is_err(),
            "out {d:?}"
        );
    }
    assert!(
        run(
            F32,
            &f(&[1.0]),
            Some(sc(Bool, Val::B(true))),
            None,
            F32,
            &mut rng
        )
        .is_err(),
        "bool bound"
    );
    assert!(
        run(
            F32,
            &f(&[1.0]),
            Some(sc(C64, Val::C(1.0, 0.0))),
            None,
            F32,
            &mut rng
        )
        .is_err(),
        "complex bound"
    );
    // shape mismatch
    let s = Store::new(F32, 6, &mut rng);
    let o = Store::new(F32, 6, &mut rng);
    assert!(clamp(
        &s.desc(&contiguous(&[2, 3], F32)),
        Some(&sc(F32, Val::F(0.0))),
        None,
        &o.desc(&contiguous(&[3, 2], F32))
    )
    .is_err());
}

/// An integer bound outside the tensor dtype's range is converted to it by wrapping, so
/// clamp(s8 [-100, 5, 100], min = 1000 (s32) ... ) compares with a wrapped bound:
/// min -1000 -> 24, max 1000 -> -24, and every element becomes -24. The comparison of an
/// s8 value with -1000 or 1000 is exact, so the result must be the input unchanged (or the
/// call refused, as PyTorch refuses a bound that overflows the tensor dtype).
#[test]
fn clamp_integer_bound_outside_the_tensor_range_does_not_wrap() {
    let mut rng = Rng::new(0xC1C);
    let xs = [-100i8, 5, 100];
    for (lo, hi) in [
        (Some(-1000i128), Some(1000i128)),
        (Some(-1000), None),
        (None, Some(300)),
    ] {
        let mut s = Store::new(S8, 3, &mut rng);
        for (k, v) in xs.iter().enumerate() {
            s.set(k, &v.to_le_bytes());
        }
        let o = Store::new(S8, 3, &mut rng);
        let los = lo.map(|v| sc(S32, Val::I(v)));
        let his = hi.map(|v| sc(S32, Val::I(v)));
        let r = clamp(
            &s.desc(&contiguous(&[3], S8)),
            los.as_ref(),
            his.as_ref(),
            &o.desc(&contiguous(&[3], S8)),
        );
        if let Ok(e) = r {
            run_exec(&e).unwrap();
            let got: Vec<Val> = (0..3).map(|k| o.val(k)).collect();
            assert_eq!(
                got,
                xs.map(|x| Val::I(x as i128)),
                "clamp(s8, {lo:?}, {hi:?})"
            );
        }
        let _ = &mut s;
    }
}
