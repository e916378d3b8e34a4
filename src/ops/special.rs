//! The binary float functions of CANN's math library: Atan2, LogAddExp, LogAddExp2, the
//! XLogY forms and Xlog1py.
//!
//! Each computes in the float dtype of the promoted dtype (integer and bool operands in
//! f32, as CANN's docs state for Atan2 and XLogY), evaluates the function in f64 and rounds
//! once to that dtype: f32, f16 and bf16 results are then correctly rounded but for the
//! f64 evaluation's own error (a few f64 ulps, far below one ulp of f32); f64 results are
//! within 2 ulp of the exact value (the C library's atan2, log1p, exp, log).
//!
//! Special values follow torch: LogAddExp(±inf, ±inf) is that infinity (not NaN), XLogY
//! gives 0 when x is 0 unless y is NaN, Xlog1py likewise.

use super::binary::{self, Compute, Dtypes, Operand};
use super::catalog::Entry;
use super::elementwise as ew;
use super::unary::floating;
use crate::dtype::DType;
use crate::engine::kernel::{binary as kernel, BinaryOp};
use crate::engine::{KernelFn, Params};
use crate::error::Result;
use crate::executor::Executor;
use crate::scalar::Scalar;
use crate::tensor::TensorDesc;
use std::marker::PhantomData;

use DType::*;

/// Function ids (the kernel is generic over them).
mod g {
    pub const ATAN2: u8 = 0;
    pub const LOG_ADD_EXP: u8 = 1;
    pub const LOG_ADD_EXP2: u8 = 2;
    pub const XLOGY: u8 = 3;
    pub const XLOG1PY: u8 = 4;
}

/// `f(a, b)` of function `id`, in f64.
fn eval(id: u8, a: f64, b: f64) -> f64 {
    match id {
        g::ATAN2 => a.atan2(b),
        g::LOG_ADD_EXP | g::LOG_ADD_EXP2 => {
            if a.is_infinite() && a == b {
                return a;
            }
            let m = if a > b { a } else { b };
            let d = -(a - b).abs();
            if id == g::LOG_ADD_EXP {
                m + d.exp().ln_1p()
            } else {
                m + d.exp2().ln_1p() / std::f64::consts::LN_2
            }
        }
        _ => {
            if b.is_nan() {
                f64::NAN
            } else if a == 0.0 {
                0.0
            } else if id == g::XLOGY {
                a * b.ln()
            } else {
                a * b.ln_1p()
            }
        }
    }
}

/// A float kernel type the functions compute in.
trait Float: crate::element::Element {
    fn to_f64(self) -> f64;
    fn from_f64(v: f64) -> Self;
}
impl Float for f32 {
    #[inline(always)]
    fn to_f64(self) -> f64 {
        self as f64
    }
    #[inline(always)]
    fn from_f64(v: f64) -> Self {
        v as f32
    }
}
impl Float for f64 {
    #[inline(always)]
    fn to_f64(self) -> f64 {
        self
    }
    #[inline(always)]
    fn from_f64(v: f64) -> Self {
        v
    }
}

struct Fn2<T, const F: u8>(PhantomData<T>);
impl<T: Float, const F: u8> BinaryOp for Fn2<T, F> {
    type A = T;
    type B = T;
    type O = T;
    fn new(_: &Params) -> Self {
        Fn2(PhantomData)
    }
    #[inline(always)]
    fn apply(&self, a: T, b: T) -> T {
        T::from_f64(eval(F, a.to_f64(), b.to_f64()))
    }
}

/// The computation of function `F` for promoted dtype `p`: in `floating(p)`.
fn compute<const F: u8>(p: DType) -> Result<Compute> {
    let c = floating(p);
    let k = match c.compute() {
        F64 => kernel::<Fn2<f64, F>> as KernelFn,
        _ => kernel::<Fn2<f32, F>>,
    };
    Ok(Compute::with(c, c, k))
}

const ATAN2_IN: &[DType] = &[S8, S16, S32, S64, U8, Bool, F32, F16, F64, BF16];
const ATAN2_OUT: &[DType] = &[F32, F16, F64, BF16];
const ATAN2: Dtypes = Dtypes {
    a: ATAN2_IN,
    b: ATAN2_IN,
    out: ATAN2_OUT,
};
/// LogAddExp(2) take the unsigned integers too (u16/u32/u64 promote only with themselves).
const LAE_IN: &[DType] = &[
    F16, F32, F64, U8, S8, U16, S16, U32, S32, U64, S64, Bool, BF16,
];
const HALFS: &[DType] = &[F32, F16, BF16];
const LAE: Dtypes = Dtypes {
    a: LAE_IN,
    b: LAE_IN,
    out: HALFS,
};
/// XLogY's tensor operands (the ScalarSelf form takes f64 too).
const XLOGY_IN: &[DType] = &[F32, F16, S32, S64, S16, S8, U8, Bool, BF16];
const XLOGY_SELF_IN: &[DType] = &[F32, F16, F64, S32, S64, S16, S8, U8, Bool, BF16];
const XLOGY: Dtypes = Dtypes {
    a: XLOGY_IN,
    b: XLOGY_IN,
    out: HALFS,
};
const XLOGY_SCALAR_SELF: Dtypes = Dtypes {
    a: XLOGY_SELF_IN,
    b: XLOGY_SELF_IN,
    out: HALFS,
};
/// InplaceXLogYScalarOther writes selfRef, so selfRef must be a float.
const XLOGY_INPLACE_SCALAR: Dtypes = Dtypes {
    a: HALFS,
    b: XLOGY_IN,
    out: HALFS,
};

fn t<'a>(name: &'static str, d: &'a TensorDesc) -> Operand<'a> {
    Operand::Tensor(name, d)
}
fn s<'a>(name: &'static str, v: &'a Scalar) -> Operand<'a> {
    Operand::Scalar(name, v)
}

/// aclnnAtan2: the angle of (other, self), in (−π, π].
pub fn atan2(self_: &TensorDesc, other: &TensorDesc, out: &TensorDesc) -> Result<Executor> {
    binary::build(
        "aclnnAtan2",
        &ATAN2,
        t("self", self_),
        t("other", other),
        Some(("out", out)),
        compute::<{ g::ATAN2 }>,
    )
}

/// aclnnInplaceAtan2.
pub fn inplace_atan2(self_ref: &TensorDesc, other: &TensorDesc) -> Result<Executor> {
    binary::build(
        "aclnnInplaceAtan2",
        &ATAN2,
        t("selfRef", self_ref),
        t("other", other),
        None,
        compute::<{ g::ATAN2 }>,
    )
}

/// aclnnLogAddExp: ln(eˣ + eʸ), as max + ln(1 + e^−|x−y|).
pub fn log_add_exp(self_: &TensorDesc, other: &TensorDesc, out: &TensorDesc) -> Result<Executor> {
    binary::build(
        "aclnnLogAddExp",
        &LAE,
        t("self", self_),
        t("other", other),
        Some(("out", out)),
        compute::<{ g::LOG_ADD_EXP }>,
    )
}

/// aclnnLogAddExp2: log₂(2ˣ + 2ʸ).
pub fn log_add_exp2(self_: &TensorDesc, other: &TensorDesc, out: &TensorDesc) -> Result<Executor> {
    binary::build(
        "aclnnLogAddExp2",
        &LAE,
        t("self", self_),
        t("other", other),
        Some(("out", out)),
        compute::<{ g::LOG_ADD_EXP2 }>,
    )
}

/// aclnnXLogYTensor: x·ln y (0 where x is 0, unless y is NaN).
pub fn x_log_y_tensor(
    self_: &TensorDesc,
    other: &TensorDesc,
    out: &TensorDesc,
) -> Result<Executor> {
    binary::build(
        "aclnnXLogYTensor",
        &XLOGY,
        t("self", self_),
        t("other", other),
        Some(("out", out)),
        compute::<{ g::XLOGY }>,
    )
}

/// aclnnInplaceXLogYTensor.
pub fn inplace_x_log_y_tensor(self_ref: &TensorDesc, other: &TensorDesc) -> Result<Executor> {
    binary::build(
        "aclnnInplaceXLogYTensor",
        &XLOGY,
        t("selfRef", self_ref),
        t("other", other),
        None,
        compute::<{ g::XLOGY }>,
    )
}

/// aclnnXLogYScalarSelf: a scalar x, a tensor y (tensor-scalar promotion).
pub fn x_log_y_scalar_self(
    self_: &Scalar,
    other: &TensorDesc,
    out: &TensorDesc,
) -> Result<Executor> {
    binary::build(
        "aclnnXLogYScalarSelf",
        &XLOGY_SCALAR_SELF,
        s("self", self_),
        t("other", other),
        Some(("out", out)),
        compute::<{ g::XLOGY }>,
    )
}

/// aclnnXLogYScalarOther: a tensor x, a scalar y.
pub fn x_log_y_scalar_other(
    self_: &TensorDesc,
    other: &Scalar,
    out: &TensorDesc,
) -> Result<Executor> {
    binary::build(
        "aclnnXLogYScalarOther",
        &XLOGY,
        t("self", self_),
        s("other", other),
        Some(("out", out)),
        compute::<{ g::XLOGY }>,
    )
}

/// aclnnInplaceXLogYScalarOther.
pub fn inplace_x_log_y_scalar_other(self_ref: &TensorDesc, other: &Scalar) -> Result<Executor> {
    binary::build(
        "aclnnInplaceXLogYScalarOther",
        &XLOGY_INPLACE_SCALAR,
        t("selfRef", self_ref),
        s("other", other),
        None,
        compute::<{ g::XLOGY }>,
    )
}

/// aclnnXlog1py: `z = x·ln(1 + y)` (0 where x is 0, unless y is NaN); x, y and z share
/// one dtype (f32, f16, bf16).
pub fn xlog1py(x: &TensorDesc, y: &TensorDesc, z: &TensorDesc) -> Result<Executor> {
    ew::check_tensor("x", x, HALFS)?;
    ew::check_same_dtype("y", y, x)?;
    ew::check_same_dtype("z", z, x)?;
    binary::build(
        "aclnnXlog1py",
        &Dtypes {
            a: HALFS,
            b: HALFS,
            out: HALFS,
        },
        t("x", x),
        t("y", y),
        Some(("z", z)),
        compute::<{ g::XLOG1PY }>,
    )
}

/// Supported dtypes, for the operator table (docs/DTYPES.md).
pub const CATALOG: &[Entry] = &[
    Entry {
        ops: "Atan2, InplaceAtan2",
        a: ATAN2_IN,
        b: ATAN2_IN,
        out: ATAN2_OUT,
        rule: "atan2(self, other) (integers in f32)",
    },
    Entry {
        ops: "LogAddExp, LogAddExp2",
        a: LAE_IN,
        b: LAE_IN,
        out: HALFS,
        rule: "ln(eˣ+eʸ), log₂(2ˣ+2ʸ) (integers in f32)",
    },
    Entry {
        ops: "XLogYTensor, XLogYScalarOther (+ Inplace)",
        a: XLOGY_IN,
        b: XLOGY_IN,
        out: HALFS,
        rule: "x·ln y, 0 at x = 0 (integers in f32)",
    },
    Entry {
        ops: "XLogYScalarSelf",
        a: XLOGY_SELF_IN,
        b: XLOGY_SELF_IN,
        out: HALFS,
        rule: "x·ln y with a scalar x",
    },
    Entry {
        ops: "Xlog1py",
        a: HALFS,
        b: HALFS,
        out: HALFS,
        rule: "x·ln(1+y), one dtype",
    },
];
