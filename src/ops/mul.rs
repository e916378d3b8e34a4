//! Mul, Muls, InplaceMul, InplaceMuls: `out = self * other` (reference §5.1). ALL12
//! dtypes; bool multiplies as "and"; integers wrap; f16/bf16 compute in f32, rounded once.

use super::binary::{self, Compute, Dtypes, Operand};
use super::catalog::Entry;
use super::elementwise::ALL12;
use crate::engine::kernel::{binary as kernel, Arith, BinaryOp};
use crate::engine::{KernelFn, Narrow, Params};
use crate::error::Result;
use crate::executor::Executor;
use crate::scalar::Scalar;
use crate::tensor::TensorDesc;
use crate::with_compute_dtype;
use std::marker::PhantomData;

const DTYPES: Dtypes = Dtypes {
    a: ALL12,
    b: ALL12,
    out: ALL12,
};

struct Times<T>(PhantomData<T>);
impl<T: Arith> BinaryOp for Times<T> {
    type A = T;
    type B = T;
    type O = T;
    fn new(_: &Params) -> Self {
        Times(PhantomData)
    }
    #[inline(always)]
    fn apply(&self, a: T, b: T) -> T {
        a.mul(b)
    }
}

/// Mul's computation for the promoted dtype (Ger reuses it on broadcast views).
pub(crate) fn compute(p: crate::dtype::DType) -> Result<Compute> {
    Ok(Compute::same(
        p,
        with_compute_dtype!(p.compute(), T => kernel::<Times<T>> as KernelFn),
    )
    .narrowed(Narrow::binary::<Times<f32>>()))
}

/// aclnnMul.
pub fn mul(self_: &TensorDesc, other: &TensorDesc, out: &TensorDesc) -> Result<Executor> {
    binary::build(
        "aclnnMul",
        &DTYPES,
        Operand::Tensor("self", self_),
        Operand::Tensor("other", other),
        Some(("out", out)),
        compute,
    )
}

/// aclnnMuls.
pub fn muls(self_: &TensorDesc, other: &Scalar, out: &TensorDesc) -> Result<Executor> {
    binary::build(
        "aclnnMuls",
        &DTYPES,
        Operand::Tensor("self", self_),
        Operand::Scalar("other", other),
        Some(("out", out)),
        compute,
    )
}

/// aclnnInplaceMul.
pub fn inplace_mul(self_ref: &TensorDesc, other: &TensorDesc) -> Result<Executor> {
    binary::build(
        "aclnnInplaceMul",
        &DTYPES,
        Operand::Tensor("selfRef", self_ref),
        Operand::Tensor("other", other),
        None,
        compute,
    )
}

/// aclnnInplaceMuls.
pub fn inplace_muls(self_ref: &TensorDesc, other: &Scalar) -> Result<Executor> {
    binary::build(
        "aclnnInplaceMuls",
        &DTYPES,
        Operand::Tensor("selfRef", self_ref),
        Operand::Scalar("other", other),
        None,
        compute,
    )
}

/// Supported dtypes, for the operator table (docs/DTYPES.md).
pub const CATALOG: &[Entry] = &[Entry {
    ops: "Mul, Muls, InplaceMul, InplaceMuls",
    a: ALL12,
    b: ALL12,
    out: ALL12,
    rule: "self · other",
}];
