//! Add, Adds, InplaceAdd, InplaceAdds: `out = self + alpha * other` (reference §5.1).
//!
//! Rules, in the order CANN checks them: self/other dtypes in ALL12; self and other
//! promote (tensor-tensor table; Adds: the tensor-scalar relation); alpha applies to the
//! promoted dtype (a bool result takes only an integral or bool alpha; otherwise alpha
//! must not be complex for a real result, nor float for an integer one); the promoted
//! dtype casts to out; at most 8 dims; the broadcast shape is out's shape exactly.
//! alpha is converted to the promoted dtype first, then the sum is computed (f16/bf16 in
//! f32, rounded once) as `self + alpha*other` — a multiply and an add, not fused.

use super::elementwise::{self as ew, Arg, ALL12};
use crate::dtype::{can_cast_value, promote, promote_with_scalar, DType};
use crate::engine::kernel::{binary, Arith, BinaryOp};
use crate::engine::{KernelFn, Params};
use crate::error::Result;
use crate::executor::Executor;
use crate::scalar::Scalar;
use crate::tensor::TensorDesc;
use crate::with_compute_dtype;
use std::marker::PhantomData;

/// `a + b`.
struct Plus<T>(PhantomData<T>);
impl<T: Arith> BinaryOp for Plus<T> {
    type A = T;
    type B = T;
    type O = T;
    fn new(_: &Params) -> Self {
        Plus(PhantomData)
    }
    #[inline(always)]
    fn apply(&self, a: T, b: T) -> T {
        a.add(b)
    }
}

/// `a + alpha*b`, alpha being `params.scalars[0]` in the kernel dtype.
struct PlusScaled<T>(T);
impl<T: Arith> BinaryOp for PlusScaled<T> {
    type A = T;
    type B = T;
    type O = T;
    fn new(p: &Params) -> Self {
        PlusScaled(p.scalars[0].get::<T>())
    }
    #[inline(always)]
    fn apply(&self, a: T, b: T) -> T {
        a.add(self.0.mul(b))
    }
}

fn check_alpha(alpha: &Scalar, promoted: DType) -> Result<()> {
    let ok = if promoted == DType::Bool {
        alpha.dtype.is_integral_or_bool()
    } else {
        can_cast_value(alpha.dtype, promoted)
    };
    crate::ensure!(
        ok,
        "alpha of dtype {} cannot be applied to the promoted dtype {promoted}: {}",
        alpha.dtype,
        if promoted.is_integral_or_bool() {
            "integer and bool results need an integer or bool alpha"
        } else {
            "a real result cannot take a complex alpha"
        }
    );
    ew::check_scalar_dtype("alpha", alpha.dtype, ALL12)
}

/// The kernel for a promoted dtype, and its parameters (alpha in the kernel dtype).
fn kernel(promoted: DType, alpha: &Scalar) -> (KernelFn, Params) {
    let compute = promoted.compute();
    if alpha.is_one() {
        let k = with_compute_dtype!(compute, T => binary::<Plus<T>> as KernelFn);
        (k, Params::default())
    } else {
        // alpha is converted to the promoted dtype first (as the device does), then to the kernel's.
        let a = alpha.cast(promoted).cast(compute);
        let k = with_compute_dtype!(compute, T => binary::<PlusScaled<T>> as KernelFn);
        (
            k,
            Params {
                scalars: vec![a],
                ints: vec![],
            },
        )
    }
}

fn build(
    api: &'static str,
    self_name: &'static str,
    self_: &TensorDesc,
    other: Arg,
    alpha: &Scalar,
    out: &TensorDesc,
    inplace: bool,
) -> Result<Executor> {
    ew::check_tensor(self_name, self_, ALL12)?;
    let promoted = match &other {
        Arg::Tensor(name, t) => {
            ew::check_tensor(name, t, ALL12)?;
            promote(self_.dtype, t.dtype).ok_or_else(|| {
                crate::Error::Invalid(format!(
                    "{self_name} dtype {} and {name} dtype {} cannot be promoted to a common dtype",
                    self_.dtype, t.dtype
                ))
            })?
        }
        Arg::Scalar(s) => {
            ew::check_scalar_dtype("other", s.dtype, ALL12)?;
            promote_with_scalar(self_.dtype, s.dtype).ok_or_else(|| {
                crate::Error::Invalid(format!(
                    "{self_name} dtype {} and scalar other dtype {} cannot be promoted to a common dtype",
                    self_.dtype, s.dtype
                ))
            })?
        }
    };
    check_alpha(alpha, promoted)?;
    crate::ensure!(
        ALL12.contains(&promoted),
        "the promoted dtype {promoted} is not supported"
    );
    let out_name = if inplace { self_name } else { "out" };
    if !inplace {
        ew::check_tensor("out", out, ALL12)?;
    }
    ew::check_out_cast(promoted, out_name, out)?;
    let shapes: Vec<(&str, &[usize])> = match &other {
        Arg::Tensor(name, t) => vec![(self_name, &self_.shape[..]), (*name, &t.shape[..])],
        Arg::Scalar(_) => vec![(self_name, &self_.shape[..])],
    };
    ew::check_out_shape(promoted, &shapes, out_name, out)?;
    let (k, params) = kernel(promoted, alpha);
    let compute = promoted.compute();
    ew::executor(
        api,
        &[Arg::Tensor(self_name, self_), other],
        &[compute, compute],
        out_name,
        out,
        compute,
        k,
        params,
        inplace,
    )
}

/// aclnnAdd: `out = self + alpha * other`.
pub fn add(
    self_: &TensorDesc,
    other: &TensorDesc,
    alpha: &Scalar,
    out: &TensorDesc,
) -> Result<Executor> {
    build(
        "aclnnAdd",
        "self",
        self_,
        Arg::Tensor("other", other),
        alpha,
        out,
        false,
    )
}

/// aclnnAdds: `out = self + alpha * other` with a scalar `other`.
pub fn adds(
    self_: &TensorDesc,
    other: &Scalar,
    alpha: &Scalar,
    out: &TensorDesc,
) -> Result<Executor> {
    build(
        "aclnnAdds",
        "self",
        self_,
        Arg::Scalar(*other),
        alpha,
        out,
        false,
    )
}

/// aclnnInplaceAdd: `selfRef += alpha * other`.
pub fn inplace_add(self_ref: &TensorDesc, other: &TensorDesc, alpha: &Scalar) -> Result<Executor> {
    build(
        "aclnnInplaceAdd",
        "selfRef",
        self_ref,
        Arg::Tensor("other", other),
        alpha,
        self_ref,
        true,
    )
}

/// aclnnInplaceAdds: `selfRef += alpha * other` with a scalar `other` (no complex selfRef).
pub fn inplace_adds(self_ref: &TensorDesc, other: &Scalar, alpha: &Scalar) -> Result<Executor> {
    crate::ensure!(
        !self_ref.dtype.is_complex(),
        "tensor 'selfRef' has dtype {}; aclnnInplaceAdds does not support complex tensors",
        self_ref.dtype
    );
    build(
        "aclnnInplaceAdds",
        "selfRef",
        self_ref,
        Arg::Scalar(*other),
        alpha,
        self_ref,
        true,
    )
}
