//! SWhere(condition, self, other, out): `out = condition ? self : other` (reference §5.3),
//! with all three broadcast together. condition is bool or u8 (non-zero is true); self
//! and other promote (tensor-tensor) and the selected value is cast to out.

use super::catalog::Entry;
use super::elementwise::{self as ew, Arg};
use crate::dtype::{promote, DType};
use crate::element::Bool8;
use crate::engine::kernel::{ternary, TernaryOp};
use crate::engine::{KernelFn, Params, Via};
use crate::error::{Error, Result};
use crate::executor::Executor;
use crate::scalar::Scalar;
use crate::tensor::TensorDesc;
use crate::with_compute_dtype;
use std::marker::PhantomData;

use DType::*;
const CONDITION: &[DType] = &[U8, Bool];
const VALUES: &[DType] = &[
    F32, S32, U64, S64, U32, F16, U16, S16, S8, U8, F64, Bool, C64, C128, BF16,
];

struct Select<T>(PhantomData<T>);
impl<T: crate::element::Element> TernaryOp for Select<T> {
    type A = Bool8;
    type B = T;
    type C = T;
    type O = T;
    fn new(_: &Params) -> Self {
        Select(PhantomData)
    }
    #[inline(always)]
    fn apply(&self, c: Bool8, a: T, b: T) -> T {
        // Canonical: a selected bool byte 0x27 is written as 1.
        if c.get() {
            a.canonical()
        } else {
            b.canonical()
        }
    }
}

/// aclnnSWhere.
pub fn s_where(
    condition: &TensorDesc,
    self_: &TensorDesc,
    other: &TensorDesc,
    out: &TensorDesc,
) -> Result<Executor> {
    ew::check_tensor("condition", condition, CONDITION)?;
    ew::check_tensor("self", self_, VALUES)?;
    ew::check_tensor("other", other, VALUES)?;
    ew::check_tensor("out", out, VALUES)?;
    let p = promote(self_.dtype, other.dtype).ok_or_else(|| {
        Error::Invalid(format!(
            "self dtype {} and other dtype {} cannot be promoted to a common dtype",
            self_.dtype, other.dtype
        ))
    })?;
    ew::check_out_cast(p, "out", out)?;
    ew::check_out_shape(
        p,
        &[
            ("condition", &condition.shape),
            ("self", &self_.shape),
            ("other", &other.shape),
        ],
        "out",
        out,
    )?;
    // Selecting moves values: the promoted dtype's storage type is exact (no f32 detour).
    let k = with_compute_dtype!(p.compute(), T => ternary::<Select<T>> as KernelFn);
    let v = Via::of(p);
    ew::executor(
        "aclnnSWhere",
        &[
            Arg::Tensor("condition", condition),
            Arg::Tensor("self", self_),
            Arg::Tensor("other", other),
        ],
        &[Via::exact(Bool), v, v],
        "out",
        out,
        v,
        k,
        Params::default(),
        false,
    )
}

/// `mask ? value : self`, in self's dtype (the masked fill).
struct Fill<T>(PhantomData<T>);
impl<T: crate::element::Element> TernaryOp for Fill<T> {
    type A = T;
    type B = Bool8;
    type C = T;
    type O = T;
    fn new(_: &Params) -> Self {
        Fill(PhantomData)
    }
    #[inline(always)]
    fn apply(&self, x: T, m: Bool8, v: T) -> T {
        if m.get() {
            v.canonical()
        } else {
            x.canonical()
        }
    }
}

/// aclnnInplaceMaskedFill{Scalar,Tensor}.md: selfRef and value dtypes (Atlas A2); mask bool.
const FILL: &[DType] = &[Bool, S8, S32, S64, F32, F16, BF16];

/// selfRef = mask ? value : selfRef, mask (and a tensor value) broadcast to selfRef's
/// shape; value converted to selfRef's dtype by the conversion rule.
fn masked_fill(
    api: &'static str,
    self_ref: &TensorDesc,
    mask: &TensorDesc,
    value: Arg,
) -> Result<Executor> {
    ew::check_tensor("selfRef", self_ref, FILL)?;
    ew::check_tensor("mask", mask, &[Bool])?;
    let mut shapes: Vec<(&str, &[usize])> =
        vec![("selfRef", &self_ref.shape), ("mask", &mask.shape)];
    match &value {
        Arg::Tensor(_, v) => {
            ew::check_tensor("value", v, FILL)?;
            shapes.push(("value", &v.shape));
        }
        Arg::Scalar(v) => ew::check_scalar_dtype("value", v.dtype, FILL)?,
    }
    ew::check_out_shape(self_ref.dtype, &shapes, "selfRef", self_ref)?;
    // Selecting moves values: f16/bf16 through f32 and back are exact. A scalar value is
    // converted to selfRef's dtype once, first (not through f32: no double rounding).
    let value = match value {
        Arg::Scalar(s) => Arg::Scalar(s.cast(self_ref.dtype)),
        t => t,
    };
    let k = with_compute_dtype!(self_ref.dtype.compute(), T => ternary::<Fill<T>> as KernelFn);
    let v = Via::of(self_ref.dtype);
    ew::executor(
        api,
        &[
            Arg::Tensor("selfRef", self_ref),
            Arg::Tensor("mask", mask),
            value,
        ],
        &[v, Via::exact(Bool), v],
        "selfRef",
        self_ref,
        v,
        k,
        Params::default(),
        true,
    )
}

/// aclnnInplaceMaskedFillScalar.
pub fn inplace_masked_fill_scalar(
    self_ref: &TensorDesc,
    mask: &TensorDesc,
    value: &Scalar,
) -> Result<Executor> {
    masked_fill(
        "aclnnInplaceMaskedFillScalar",
        self_ref,
        mask,
        Arg::Scalar(*value),
    )
}

/// aclnnInplaceMaskedFillTensor.
pub fn inplace_masked_fill_tensor(
    self_ref: &TensorDesc,
    mask: &TensorDesc,
    value: &TensorDesc,
) -> Result<Executor> {
    masked_fill(
        "aclnnInplaceMaskedFillTensor",
        self_ref,
        mask,
        Arg::Tensor("value", value),
    )
}

/// Supported dtypes, for the operator table (docs/DTYPES.md).
pub const CATALOG: &[Entry] = &[
    Entry {
        ops: "SWhere",
        a: VALUES,
        b: CONDITION,
        out: VALUES,
        rule: "condition ? self : other (b: condition)",
    },
    Entry {
        ops: "InplaceMaskedFillScalar, InplaceMaskedFillTensor",
        a: FILL,
        b: &[Bool],
        out: FILL,
        rule: "selfRef = mask ? value : selfRef (b: mask; value broadcast, converted)",
    },
];
