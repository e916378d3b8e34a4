//! The unary math and activation operators (reference §5.4 and CANN's ops-math headers
//! for Erf, Log2, Exp2): each states its dtype lists, how it computes and its out rule;
//! `unary.rs` does the rest.
//!
//! Float functions compute in f32 for f32/f16/bf16 and integer/bool inputs and in f64
//! for f64 (results within the C library's bounds: < 1 ulp for exp, log, sin, cos, tanh,
//! sqrt is exact), then round once to the result dtype. Complex functions use the
//! principal branches. Integer Abs and Neg wrap (|-128| = -128 for s8).

use super::binary::Compute;
use super::catalog::Entry;
use super::unary::{self, f, floating, kernel, Modulus, OutRule, Rule};
use crate::dtype::DType;
use crate::engine::kernel::unary as unary_kernel;
use crate::engine::{KernelFn, Params, Via};
use crate::error::Result;
use crate::executor::Executor;
use crate::tensor::TensorDesc;

use DType::*;

const FLOATS: &[DType] = &[F32, F16, F64, C64, C128, BF16];
/// Abs: CANN's A2 code (`ASCEND910B_DTYPE_DTYPE_SUPPORT_LIST`) has complex64 but not complex32
/// (only the regbase list has it), though the doc lists COMPLEX32: we follow the code.
const ABS_IN: &[DType] = &[F32, F16, F64, BF16, S8, S16, S32, S64, U8, Bool, C64];
const NEG: &[DType] = &[S8, S32, S64, F16, BF16, F32, F64, C64, C128];
const EXP_IN: &[DType] = &[F32, F16, F64, C64, C128, Bool, S64, BF16];
const LOG_IN: &[DType] = &[Bool, S64, S32, S16, S8, U8, F32, F16, F64, C64, C128, BF16];
const TANH_IN: &[DType] = &[F32, F16, Bool, U8, S8, S16, S32, S64, BF16];
const HALFS: &[DType] = &[F32, F16, BF16];
/// Relu: CANN's A2 code (`DTYPE_SUPPORT_LIST` + bf16) and InplaceRelu's doc take u8 too
/// (Relu's doc omits it); max(x, 0) of a u8 is x.
const RELU: &[DType] = &[F32, F16, S8, U8, S32, S64, BF16];
const FLOOR: &[DType] = &[F64, F32, F16, BF16, S64, S32, S16, S8, U64, U32, U16, U8];
const CEIL: &[DType] = &[F16, F32, F64, BF16];
const ROUND: &[DType] = &[BF16, F16, F32, F64, S32, S64];
const SIGN: &[DType] = &[F64, F32, F16, S32, S64, C64, C128, Bool, BF16];
/// Exp2's self (its A2 list: bool, the integers but u16-u64, the real floats).
const EXP2_IN: &[DType] = &[F32, F16, F64, BF16, S64, S32, S16, S8, U8, Bool];
/// Erf's self: CANN's A2 code (`DTYPE_SUPPORT_LIST_910B`) f64 f32 f16 bf16 bool s64; the doc
/// gives bf16 to A3 only, the code to every 910B-910E (A2 included) - we follow the code.
const ERF_IN: &[DType] = &[F32, F16, F64, BF16, S64, Bool];
/// Log2: CANN's A2 code (`DTYPE_SUPPORT_LIST_910B`, outs `ASCEND910B_OUTPUT_DTYPE_SUPPORT_LIST`)
/// and doc take complex too.
const LOG2_IN: &[DType] = &[F32, F16, F64, BF16, S64, S32, S16, S8, U8, Bool, C64, C128];
const REAL_FLOATS: &[DType] = &[F32, F16, F64, BF16];
// The lists of CANN's docs (aclnnExpm1.md, aclnnLog1p.md, ...; Atlas A2).
const EXPM1_IN: &[DType] = &[S64, Bool, F32, F16, BF16];
const LOG1P_IN: &[DType] = &[S8, S16, S32, S64, U8, Bool, F32, F16, F64, BF16];
const LOG10_IN: &[DType] = &[S8, S16, S32, S64, U8, Bool, F32, F16, F64, BF16, C64, C128];
const LOG10_OUT: &[DType] = &[F32, F16, BF16, F64, C64, C128];
const COSH: &[DType] = &[F32, F16, F64];
const SINH_TAN_IN: &[DType] = &[S8, S16, S32, S64, U8, Bool, F16, BF16, F32, F64, C64, C128];
const TRUNC: &[DType] = &[F32, F16, BF16];
const ERFC_IN: &[DType] = &[F64, F32, F16, Bool, S64];
const ERFC_OUT: &[DType] = &[F64, F32, F16];
// Inverse trigonometric and hyperbolic functions, Sinc, Lgamma, Digamma, Frac, Square: the
// Atlas A2 lists of CANN's docs (aclnnAcos.md, ...); integer and bool inputs compute in f32.
const INV_TRIG_IN: &[DType] = &[S8, S16, S32, S64, U8, Bool, F32, F16, F64];
const INV_TRIG_OUT: &[DType] = &[F32, F16, F64];
/// Atan's and Sinc's lists have bf16 on A2 too.
const ATAN_IN: &[DType] = &[S8, S16, S32, S64, U8, Bool, F32, F16, F64, BF16];
const ATAN_OUT: &[DType] = &[F32, F16, F64, BF16];
/// Acosh, Lgamma, Digamma: the real floats but bf16.
const GAMMA: &[DType] = &[F32, F16, F64];
const FRAC: &[DType] = &[F16, F32, U8, S8, S16, S32, S64, BF16];
const SQUARE: &[DType] = &[F32, F16, BF16, S32, S64];

/// A float function of `d` computed in the float dtype `floating(d)`.
fn float_fn<const F: u8>(d: DType) -> Result<Compute> {
    let c = floating(d);
    Ok(Compute::with(c, c, kernel::<F>(c)?))
}

/// A function computed in self's own dtype, out of the same dtype.
fn same_fn<const F: u8>(d: DType) -> Result<Compute> {
    Ok(Compute::same(d, kernel::<F>(d)?))
}

/// Abs: |x| in self's dtype; complex gives its modulus in the component dtype.
fn abs_compute(d: DType) -> Result<Compute> {
    let (part, k) = match d {
        C64 => (
            F32,
            unary_kernel::<Modulus<crate::element::C64>> as KernelFn,
        ),
        C128 => (
            F64,
            unary_kernel::<Modulus<crate::element::C128>> as KernelFn,
        ),
        _ => return same_fn::<{ f::ABS }>(d),
    };
    Ok(Compute {
        checked: part,
        input: Via::of(d),
        result: Via::of(part),
        kernel: k,
        narrow: None,
        params: Params::default(),
    })
}

/// Declares an operator's two entry points. The parameter names are CANN's own, as its
/// headers spell them (Cos takes `input`/`inputRef`, Sign writes `result`, InplaceSqrt
/// takes `self`), so messages name what the caller's header names.
macro_rules! unary_ops {
    ($($(#[$doc:meta])* $name:ident, $inplace:ident, $api:literal, $iapi:literal,
       ($self_name:literal, $out_name:literal, $iname:literal),
       $a:expr, $out:expr, $rule:ident, $choose:expr;)*) => {$(
        $(#[$doc])*
        pub fn $name(self_: &TensorDesc, out: &TensorDesc) -> Result<Executor> {
            let rule = Rule { a: $a, out: $out, out_rule: OutRule::$rule };
            unary::build($api, &rule, $self_name, self_, Some(($out_name, out)), $choose)
        }
        #[doc = concat!("The in-place form (", $iapi, ").")]
        pub fn $inplace(self_ref: &TensorDesc) -> Result<Executor> {
            let rule = Rule { a: $a, out: $out, out_rule: OutRule::$rule };
            unary::build($iapi, &rule, $iname, self_ref, None, $choose)
        }
    )*};
}

unary_ops! {
    /// aclnnAbs: |x|; out has self's dtype (complex: its component dtype).
    abs, inplace_abs, "aclnnAbs", "aclnnInplaceAbs", ("self", "out", "selfRef"), ABS_IN, &[F32, F16, F64, BF16, S8, S16, S32, S64, U8, Bool], Equal, abs_compute;
    /// aclnnNeg: -x.
    neg, inplace_neg, "aclnnNeg", "aclnnInplaceNeg", ("self", "out", "selfRef"), NEG, NEG, Castable, same_fn::<{ f::NEG }>;
    /// aclnnExp: e^x.
    exp, inplace_exp, "aclnnExp", "aclnnInplaceExp", ("self", "out", "selfRef"), EXP_IN, FLOATS, Castable, float_fn::<{ f::EXP }>;
    /// aclnnLog: ln x (negative -> NaN, 0 -> -inf).
    log, inplace_log, "aclnnLog", "aclnnInplaceLog", ("self", "out", "selfRef"), LOG_IN, FLOATS, Castable, float_fn::<{ f::LOG }>;
    /// aclnnSqrt: √x (negative -> NaN).
    sqrt, inplace_sqrt, "aclnnSqrt", "aclnnInplaceSqrt", ("self", "out", "self"), LOG_IN, FLOATS, Castable, float_fn::<{ f::SQRT }>;
    /// aclnnRsqrt: 1/√x.
    rsqrt, inplace_rsqrt, "aclnnRsqrt", "aclnnInplaceRsqrt", ("self", "out", "selfRef"), LOG_IN, FLOATS, Castable, float_fn::<{ f::RSQRT }>;
    /// aclnnSin.
    sin, inplace_sin, "aclnnSin", "aclnnInplaceSin", ("self", "out", "selfRef"), LOG_IN, FLOATS, Castable, float_fn::<{ f::SIN }>;
    /// aclnnCos (its parameter is named `input`).
    cos, inplace_cos, "aclnnCos", "aclnnInplaceCos", ("input", "out", "inputRef"), LOG_IN, FLOATS, Castable, float_fn::<{ f::COS }>;
    /// aclnnTanh.
    tanh, inplace_tanh, "aclnnTanh", "aclnnInplaceTanh", ("self", "out", "selfRef"), TANH_IN, HALFS, Castable, float_fn::<{ f::TANH }>;
    /// aclnnRelu: max(x, 0) (NaN stays NaN); out has self's dtype.
    relu, inplace_relu, "aclnnRelu", "aclnnInplaceRelu", ("self", "out", "selfRef"), RELU, RELU, Equal, same_fn::<{ f::RELU }>;
    /// aclnnGelu: the tanh approximation 0.5x(1+tanh(√(2/π)(x+0.044715x³))).
    gelu, inplace_gelu, "aclnnGelu", "aclnnInplaceGelu", ("self", "out", "selfRef"), HALFS, HALFS, Equal, same_fn::<{ f::GELU }>;
    /// aclnnSilu: x/(1+e^-x).
    silu, inplace_silu, "aclnnSilu", "aclnnInplaceSilu", ("self", "out", "selfRef"), HALFS, HALFS, Equal, same_fn::<{ f::SILU }>;
    /// aclnnFloor: ⌊x⌋ (integers unchanged).
    floor, inplace_floor, "aclnnFloor", "aclnnInplaceFloor", ("self", "out", "selfRef"), FLOOR, FLOOR, Equal, same_fn::<{ f::FLOOR }>;
    /// aclnnCeil: ⌈x⌉.
    ceil, inplace_ceil, "aclnnCeil", "aclnnInplaceCeil", ("self", "out", "selfRef"), CEIL, CEIL, Equal, same_fn::<{ f::CEIL }>;
    /// aclnnRound: to the nearest integer, halves to even (integers unchanged).
    round, inplace_round, "aclnnRound", "aclnnInplaceRound", ("self", "out", "selfRef"), ROUND, ROUND, Equal, same_fn::<{ f::ROUND }>;
    /// aclnnSign: -1, 0 or 1 (±0 and NaN keep themselves; complex: z/|z|); out ("result") has self's dtype.
    sign, inplace_sign, "aclnnSign", "aclnnInplaceSign", ("self", "result", "selfRef"), SIGN, SIGN, Equal, same_fn::<{ f::SIGN }>;
    /// aclnnReciprocal: 1/x.
    reciprocal, inplace_reciprocal, "aclnnReciprocal", "aclnnInplaceReciprocal", ("self", "out", "selfRef"), LOG_IN, FLOATS, Castable, float_fn::<{ f::RECIPROCAL }>;
    /// aclnnErf: the error function.
    erf, inplace_erf, "aclnnErf", "aclnnInplaceErf", ("self", "out", "selfRef"), ERF_IN, REAL_FLOATS, Castable, float_fn::<{ f::ERF }>;
    /// aclnnLog2.
    log2, inplace_log2, "aclnnLog2", "aclnnInplaceLog2", ("self", "out", "selfRef"), LOG2_IN, FLOATS, Castable, float_fn::<{ f::LOG2 }>;
    /// aclnnExp2: 2^x.
    exp2, inplace_exp2, "aclnnExp2", "aclnnInplaceExp2", ("self", "out", "selfRef"), EXP2_IN, REAL_FLOATS, Castable, float_fn::<{ f::EXP2 }>;
    /// aclnnExpm1: e^x − 1, accurate near 0.
    expm1, inplace_expm1, "aclnnExpm1", "aclnnInplaceExpm1", ("self", "out", "selfRef"), EXPM1_IN, REAL_FLOATS, Castable, float_fn::<{ f::EXPM1 }>;
    /// aclnnLog1p: ln(1 + x), accurate near 0.
    log1p, inplace_log1p, "aclnnLog1p", "aclnnInplaceLog1p", ("self", "out", "selfRef"), LOG1P_IN, REAL_FLOATS, Castable, float_fn::<{ f::LOG1P }>;
    /// aclnnLog10.
    log10, inplace_log10, "aclnnLog10", "aclnnInplaceLog10", ("self", "out", "selfRef"), LOG10_IN, LOG10_OUT, Castable, float_fn::<{ f::LOG10 }>;
    /// aclnnCosh.
    cosh, inplace_cosh, "aclnnCosh", "aclnnInplaceCosh", ("self", "out", "selfRef"), COSH, COSH, Castable, float_fn::<{ f::COSH }>;
    /// aclnnSinh.
    sinh, inplace_sinh, "aclnnSinh", "aclnnInplaceSinh", ("self", "out", "selfRef"), SINH_TAN_IN, FLOATS, Castable, float_fn::<{ f::SINH }>;
    /// aclnnTan.
    tan, inplace_tan, "aclnnTan", "aclnnInplaceTan", ("self", "out", "selfRef"), SINH_TAN_IN, FLOATS, Castable, float_fn::<{ f::TAN }>;
    /// aclnnTrunc: rounded toward zero; out has self's dtype.
    trunc, inplace_trunc, "aclnnTrunc", "aclnnInplaceTrunc", ("self", "out", "selfRef"), TRUNC, TRUNC, Equal, same_fn::<{ f::TRUNC }>;
    /// aclnnErfc: 1 − erf(x), accurate for large x.
    erfc, inplace_erfc, "aclnnErfc", "aclnnInplaceErfc", ("self", "out", "selfRef"), ERFC_IN, ERFC_OUT, Castable, float_fn::<{ f::ERFC }>;
    /// aclnnAcos: arccos x (|x| > 1 -> NaN).
    acos, inplace_acos, "aclnnAcos", "aclnnInplaceAcos", ("input", "out", "inputRef"), INV_TRIG_IN, INV_TRIG_OUT, Castable, float_fn::<{ f::ACOS }>;
    /// aclnnAsin: arcsin x.
    asin, inplace_asin, "aclnnAsin", "aclnnInplaceAsin", ("self", "out", "selfRef"), INV_TRIG_IN, INV_TRIG_OUT, Castable, float_fn::<{ f::ASIN }>;
    /// aclnnAtan: arctan x.
    atan, inplace_atan, "aclnnAtan", "aclnnInplaceAtan", ("input", "out", "inputRef"), ATAN_IN, ATAN_OUT, Castable, float_fn::<{ f::ATAN }>;
    /// aclnnAcosh: arcosh x (x < 1 -> NaN).
    acosh, inplace_acosh, "aclnnAcosh", "aclnnInplaceAcosh", ("self", "out", "selfRef"), GAMMA, GAMMA, Castable, float_fn::<{ f::ACOSH }>;
    /// aclnnAsinh: arsinh x.
    asinh, inplace_asinh, "aclnnAsinh", "aclnnInplaceAsinh", ("input", "out", "inputRef"), INV_TRIG_IN, INV_TRIG_OUT, Castable, float_fn::<{ f::ASINH }>;
    /// aclnnAtanh: artanh x (±1 -> ±inf, |x| > 1 -> NaN).
    atanh, inplace_atanh, "aclnnAtanh", "aclnnInplaceAtanh", ("input", "out", "inputRef"), INV_TRIG_IN, INV_TRIG_OUT, Castable, float_fn::<{ f::ATANH }>;
    /// aclnnSinc: sin(πx)/(πx), 1 at 0; computed in f64 (f64: the formula's own rounding).
    sinc, inplace_sinc, "aclnnSinc", "aclnnInplaceSinc", ("self", "out", "selfRef"), ATAN_IN, ATAN_OUT, Castable, float_fn::<{ f::SINC }>;
    /// aclnnFrac: x − trunc(x), exact (integers: 0); out has self's dtype.
    frac, inplace_frac, "aclnnFrac", "aclnnInplaceFrac", ("input", "out", "inputRef"), FRAC, FRAC, Equal, same_fn::<{ f::FRAC }>;
}

/// Declares a unary operator without an in-place form (CANN's header has none).
macro_rules! unary_op {
    ($($(#[$doc:meta])* $name:ident, $api:literal, ($self_name:literal, $out_name:literal),
       $a:expr, $out:expr, $rule:ident, $choose:expr;)*) => {$(
        $(#[$doc])*
        pub fn $name(self_: &TensorDesc, out: &TensorDesc) -> Result<Executor> {
            let rule = Rule { a: $a, out: $out, out_rule: OutRule::$rule };
            unary::build($api, &rule, $self_name, self_, Some(($out_name, out)), $choose)
        }
    )*};
}

unary_op! {
    /// aclnnLgamma: ln|Γ(x)| (+inf at 0 and the negative integers), computed in f64; out has
    /// self's dtype.
    lgamma, "aclnnLgamma", ("self", "out"), GAMMA, GAMMA, Equal, float_fn::<{ f::LGAMMA }>;
    /// aclnnDigamma: ψ(x) (∓inf at ±0, NaN at the negative integers), computed in f64; out
    /// has self's dtype.
    digamma, "aclnnDigamma", ("self", "out"), GAMMA, GAMMA, Equal, float_fn::<{ f::DIGAMMA }>;
    /// aclnnSquare: x·x (integers wrap); out has self's dtype.
    square, "aclnnSquare", ("self", "out"), SQUARE, SQUARE, Equal, same_fn::<{ f::SQUARE }>;
}

/// AsinhV2 (CANN's aclnn_asinh_v2.cpp): f16 computes in f32 into an f16 out; f32, f64, the
/// integers and bool compute in f32 (f64 is first rounded to f32) into an f32 out.
const ASINH_V2_IN: &[DType] = &[F16, F32, F64, S8, S16, S32, S64, U8, Bool];
const ASINH_V2_OUT: &[DType] = &[F16, F32];

/// aclnnAsinhV2: arsinh x, in f32 (out: f16 for f16 x, else f32).
pub fn asinh_v2(x: &TensorDesc, out: &TensorDesc) -> Result<Executor> {
    let rule = Rule {
        a: ASINH_V2_IN,
        out: ASINH_V2_OUT,
        out_rule: OutRule::Equal,
    };
    crate::ensure!(
        x.rank() <= 8 && out.rank() <= 8,
        "x has {} dims and out {}; at most 8 are supported",
        x.rank(),
        out.rank()
    );
    unary::build("aclnnAsinhV2", &rule, "x", x, Some(("out", out)), |d| {
        float_fn::<{ f::ASINH }>(if d == F16 { F16 } else { F32 })
    })
}

/// InplaceSigmoid's selfRef: CANN's A2 code (`GetSelfRefDtypeList` = `DTYPE_OUT_LIST`) and
/// doc take f64 and complex too, unlike Sigmoid's documented self.
const SIGMOID_INPLACE: &[DType] = &[F32, F16, F64, C64, C128, BF16];

/// aclnnSigmoid: 1/(1+e^-x).
pub fn sigmoid(self_: &TensorDesc, out: &TensorDesc) -> Result<Executor> {
    let rule = Rule {
        a: HALFS,
        out: HALFS,
        out_rule: OutRule::Castable,
    };
    unary::build(
        "aclnnSigmoid",
        &rule,
        "self",
        self_,
        Some(("out", out)),
        float_fn::<{ f::SIGMOID }>,
    )
}

/// The in-place form (aclnnInplaceSigmoid): f32 f16 f64 c64 c128 bf16 (complex:
/// 1/(1+e^-z)).
pub fn inplace_sigmoid(self_ref: &TensorDesc) -> Result<Executor> {
    let rule = Rule {
        a: SIGMOID_INPLACE,
        out: SIGMOID_INPLACE,
        out_rule: OutRule::Castable,
    };
    unary::build(
        "aclnnInplaceSigmoid",
        &rule,
        "selfRef",
        self_ref,
        None,
        float_fn::<{ f::SIGMOID }>,
    )
}

/// Supported dtypes, for the operator table (docs/DTYPES.md).
pub const CATALOG: &[Entry] = &[
    Entry {
        ops: "AsinhV2",
        a: ASINH_V2_IN,
        b: &[],
        out: ASINH_V2_OUT,
        rule: "arsinh x in f32 (f16 x: f16 out; else f32 out)",
    },
    Entry {
        ops: "Abs",
        a: ABS_IN,
        b: &[],
        out: ABS_IN,
        rule: "|x| (complex: modulus in the part dtype)",
    },
    Entry {
        ops: "Neg, InplaceNeg",
        a: NEG,
        b: &[],
        out: NEG,
        rule: "−x",
    },
    Entry {
        ops: "Exp, InplaceExp",
        a: EXP_IN,
        b: &[],
        out: FLOATS,
        rule: "e^x",
    },
    Entry {
        ops: "Log, Sqrt, Rsqrt, Sin, Cos, Reciprocal (+ Inplace)",
        a: LOG_IN,
        b: &[],
        out: FLOATS,
        rule: "float functions (integers in f32)",
    },
    Entry {
        ops: "Tanh, InplaceTanh",
        a: TANH_IN,
        b: &[],
        out: HALFS,
        rule: "tanh x",
    },
    Entry {
        ops: "Sigmoid",
        a: HALFS,
        b: &[],
        out: HALFS,
        rule: "1/(1+e^−x)",
    },
    Entry {
        ops: "InplaceSigmoid",
        a: SIGMOID_INPLACE,
        b: &[],
        out: SIGMOID_INPLACE,
        rule: "1/(1+e^−x) (complex: 1/(1+e^−z))",
    },
    Entry {
        ops: "Relu, InplaceRelu",
        a: RELU,
        b: &[],
        out: RELU,
        rule: "max(x, 0), out dtype = self dtype",
    },
    Entry {
        ops: "Gelu, Silu",
        a: HALFS,
        b: &[],
        out: HALFS,
        rule: "tanh-approximate GELU; x·sigmoid(x)",
    },
    Entry {
        ops: "Floor, InplaceFloor",
        a: FLOOR,
        b: &[],
        out: FLOOR,
        rule: "⌊x⌋, out dtype = self dtype",
    },
    Entry {
        ops: "Ceil, InplaceCeil",
        a: CEIL,
        b: &[],
        out: CEIL,
        rule: "⌈x⌉",
    },
    Entry {
        ops: "Round, InplaceRound",
        a: ROUND,
        b: &[],
        out: ROUND,
        rule: "half to even",
    },
    Entry {
        ops: "Sign",
        a: SIGN,
        b: &[],
        out: SIGN,
        rule: "−1/0/1 (complex z/|z|)",
    },
    Entry {
        ops: "Erf, InplaceErf",
        a: ERF_IN,
        b: &[],
        out: REAL_FLOATS,
        rule: "erf x (s64 and bool in f32)",
    },
    Entry {
        ops: "Exp2, InplaceExp2",
        a: EXP2_IN,
        b: &[],
        out: REAL_FLOATS,
        rule: "2^x (integers in f32)",
    },
    Entry {
        ops: "Log2, InplaceLog2",
        a: LOG2_IN,
        b: &[],
        out: FLOATS,
        rule: "log₂ x (integers in f32; complex: ln z / ln 2)",
    },
    Entry {
        ops: "Expm1, Log1p (+ Inplace)",
        a: LOG1P_IN,
        b: &[],
        out: REAL_FLOATS,
        rule: "e^x − 1, ln(1 + x) (Expm1 takes s64 bool f32 f16 bf16)",
    },
    Entry {
        ops: "Log10, Sinh, Tan (+ Inplace)",
        a: LOG10_IN,
        b: &[],
        out: LOG10_OUT,
        rule: "float and complex functions (integers in f32)",
    },
    Entry {
        ops: "Cosh, InplaceCosh",
        a: COSH,
        b: &[],
        out: COSH,
        rule: "cosh x",
    },
    Entry {
        ops: "Trunc, InplaceTrunc",
        a: TRUNC,
        b: &[],
        out: TRUNC,
        rule: "rounded toward zero, out dtype = self dtype",
    },
    Entry {
        ops: "Erfc, InplaceErfc",
        a: ERFC_IN,
        b: &[],
        out: ERFC_OUT,
        rule: "1 − erf(x)",
    },
    Entry {
        ops: "Acos, Asin, Asinh, Atanh (+ Inplace)",
        a: INV_TRIG_IN,
        b: &[],
        out: INV_TRIG_OUT,
        rule: "inverse trigonometric/hyperbolic (integers in f32)",
    },
    Entry {
        ops: "Atan, Sinc (+ Inplace)",
        a: ATAN_IN,
        b: &[],
        out: ATAN_OUT,
        rule: "arctan x; sin(πx)/(πx) (integers in f32)",
    },
    Entry {
        ops: "Acosh, InplaceAcosh, Lgamma, Digamma",
        a: GAMMA,
        b: &[],
        out: GAMMA,
        rule: "arcosh x; ln|Γ(x)|; ψ(x) (Lgamma, Digamma: out dtype = self dtype)",
    },
    Entry {
        ops: "Frac, InplaceFrac",
        a: FRAC,
        b: &[],
        out: FRAC,
        rule: "x − trunc(x), out dtype = self dtype",
    },
    Entry {
        ops: "Square",
        a: SQUARE,
        b: &[],
        out: SQUARE,
        rule: "x·x (integers wrap), out dtype = self dtype",
    },
];
