//! PowTensorTensor, InplacePowTensorTensor, PowTensorScalar, InplacePowTensorScalar,
//! PowScalarTensor: `out = self ^ exponent` (reference §5.1).
//!
//! Rules: the dtype lists below; not both operands bool; tensor-tensor promotion, or the
//! tensor-scalar relation when one side is a scalar. A scalar exponent with an integral
//! promoted dtype must be >= 0 and fit that dtype (161002 otherwise). Floats use the
//! C library's pow (f16/bf16 in f32, rounded once); integers raise by repeated squaring
//! with wrapping, and a negative tensor exponent gives 1 for base 1, ±1 for base -1 and 0
//! otherwise (integer results have no fractions; nothing traps); complex numbers use
//! exp(b·ln a).

use super::binary::{self, Compute, Dtypes, Operand};
use super::catalog::Entry;
use crate::dtype::DType;
use crate::element::{Wide, C128, C64};
use crate::engine::kernel::{binary as kernel, BinaryOp};
use crate::engine::{KernelFn, Params};
use crate::error::Result;
use crate::executor::Executor;
use crate::scalar::Scalar;
use crate::tensor::TensorDesc;
use std::marker::PhantomData;

use DType::*;
const INPUTS: &[DType] = &[F32, F16, F64, S16, Bool, S32, S64, S8, U8, C64, C128, BF16];
const OUTPUTS: &[DType] = &[
    F32, F16, F64, S16, Bool, S32, S64, S8, U8, C64, C128, BF16, U16, U32, U64,
];
const INPLACE: &[DType] = &[F32, F16, F64, S32, S64, S8, U8, C64, C128, S16, BF16];
const DTYPES: Dtypes = Dtypes {
    a: INPUTS,
    b: INPUTS,
    out: OUTPUTS,
};
const INPLACE_DTYPES: Dtypes = Dtypes {
    a: INPLACE,
    b: INPUTS,
    out: OUTPUTS,
};

trait Power: crate::element::Element {
    fn power(self, e: Self) -> Self;
}
impl Power for f32 {
    #[inline(always)]
    fn power(self, e: Self) -> Self {
        self.powf(e)
    }
}
impl Power for f64 {
    #[inline(always)]
    fn power(self, e: Self) -> Self {
        self.powf(e)
    }
}
impl Power for C64 {
    #[inline(always)]
    fn power(self, e: Self) -> Self {
        self.powc(e)
    }
}
impl Power for C128 {
    #[inline(always)]
    fn power(self, e: Self) -> Self {
        self.powc(e)
    }
}
macro_rules! int_power {
    ($($t:ty),*) => {$(
        impl Power for $t {
            #[inline(always)]
            #[allow(unused_comparisons)]
            fn power(self, e: Self) -> Self {
                if e < 0 {
                    // No integer fractions: only 1 and -1 survive a negative exponent.
                    return match self as i64 {
                        1 => 1,
                        -1 => if e % 2 == 0 { 1 } else { self },
                        _ => 0,
                    };
                }
                let (mut base, mut e, mut acc): ($t, u64, $t) = (self, e as u64, 1);
                while e > 0 {
                    if e & 1 == 1 {
                        acc = acc.wrapping_mul(base);
                    }
                    base = base.wrapping_mul(base);
                    e >>= 1;
                }
                acc
            }
        }
    )*};
}
int_power!(i8, u8, i16, i32, i64);

struct Pow<T>(PhantomData<T>);
impl<T: Power> BinaryOp for Pow<T> {
    type A = T;
    type B = T;
    type O = T;
    fn new(_: &Params) -> Self {
        Pow(PhantomData)
    }
    #[inline(always)]
    fn apply(&self, a: T, b: T) -> T {
        a.power(b)
    }
}

pub(crate) fn compute(p: DType) -> Result<Compute> {
    let k = match p.compute() {
        F32 => kernel::<Pow<f32>> as KernelFn,
        F64 => kernel::<Pow<f64>>,
        C64 => kernel::<Pow<C64>>,
        C128 => kernel::<Pow<C128>>,
        S8 => kernel::<Pow<i8>>,
        U8 => kernel::<Pow<u8>>,
        S16 => kernel::<Pow<i16>>,
        S32 => kernel::<Pow<i32>>,
        S64 => kernel::<Pow<i64>>,
        other => crate::bail!("pow is not defined for the promoted dtype {other}"),
    };
    Ok(Compute::same(p, k))
}

fn not_both_bool(a: DType, b: DType) -> Result<()> {
    crate::ensure!(
        !(a == Bool && b == Bool),
        "self and exponent cannot both be ACL_BOOL"
    );
    Ok(())
}

/// A scalar exponent for an integral result must be a non-negative value of that dtype.
fn check_scalar_exponent(p: DType, e: &Scalar) -> Result<()> {
    if !p.is_int() {
        return Ok(());
    }
    let fits = match e.wide() {
        Wide::Int(i) => e.cast(p).wide() == Wide::Int(i),
        Wide::Bool(_) => true,
        _ => false,
    };
    crate::ensure!(fits, "exponent {e} does not fit the promoted dtype {p}");
    crate::ensure!(
        !matches!(e.wide(), Wide::Int(i) if i < 0),
        "exponent {e} is negative; integers cannot be raised to negative powers (promoted dtype {p})"
    );
    Ok(())
}

/// aclnnPowTensorTensor.
pub fn pow_tensor_tensor(
    self_: &TensorDesc,
    exponent: &TensorDesc,
    out: &TensorDesc,
) -> Result<Executor> {
    not_both_bool(self_.dtype, exponent.dtype)?;
    binary::build(
        "aclnnPowTensorTensor",
        &DTYPES,
        Operand::Tensor("self", self_),
        Operand::Tensor("exponent", exponent),
        Some(("out", out)),
        compute,
    )
}

/// aclnnInplacePowTensorTensor.
pub fn inplace_pow_tensor_tensor(self_: &TensorDesc, exponent: &TensorDesc) -> Result<Executor> {
    not_both_bool(self_.dtype, exponent.dtype)?;
    binary::build(
        "aclnnInplacePowTensorTensor",
        &INPLACE_DTYPES,
        Operand::Tensor("self", self_),
        Operand::Tensor("exponent", exponent),
        None,
        compute,
    )
}

/// aclnnPowTensorScalar.
pub fn pow_tensor_scalar(
    self_: &TensorDesc,
    exponent: &Scalar,
    out: &TensorDesc,
) -> Result<Executor> {
    not_both_bool(self_.dtype, exponent.dtype)?;
    binary::build(
        "aclnnPowTensorScalar",
        &DTYPES,
        Operand::Tensor("self", self_),
        Operand::Scalar("exponent", exponent),
        Some(("out", out)),
        |p| check_scalar_exponent(p, exponent).and_then(|()| compute(p)),
    )
}

/// aclnnInplacePowTensorScalar.
pub fn inplace_pow_tensor_scalar(self_: &TensorDesc, exponent: &Scalar) -> Result<Executor> {
    not_both_bool(self_.dtype, exponent.dtype)?;
    binary::build(
        "aclnnInplacePowTensorScalar",
        &DTYPES,
        Operand::Tensor("self", self_),
        Operand::Scalar("exponent", exponent),
        None,
        |p| check_scalar_exponent(p, exponent).and_then(|()| compute(p)),
    )
}

/// aclnnPowScalarTensor: a scalar base raised to a tensor of exponents; out has the
/// exponent's shape.
pub fn pow_scalar_tensor(
    self_: &Scalar,
    exponent: &TensorDesc,
    out: &TensorDesc,
) -> Result<Executor> {
    const ST: &[DType] = &[F32, F16, F64, S16, S32, S64, S8, U8, C64, C128, BF16];
    binary::build(
        "aclnnPowScalarTensor",
        &Dtypes {
            a: ST,
            b: ST,
            out: OUTPUTS,
        },
        Operand::Scalar("self", self_),
        Operand::Tensor("exponent", exponent),
        Some(("out", out)),
        compute,
    )
}

/// Supported dtypes, for the operator table (docs/DTYPES.md).
pub const CATALOG: &[Entry] = &[
    Entry {
        ops: "PowTensorTensor, PowTensorScalar, PowScalarTensor",
        a: INPUTS,
        b: INPUTS,
        out: OUTPUTS,
        rule: "self ^ exponent (not both bool)",
    },
    Entry {
        ops: "InplacePowTensorTensor, InplacePowTensorScalar",
        a: INPLACE,
        b: INPUTS,
        out: INPLACE,
        rule: "self = self ^ exponent",
    },
];
