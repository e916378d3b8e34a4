//! Lerp (tensor weight) and Lerps (scalar weight): `self + weight·(end − self)`.
//!
//! As torch computes it, in f32 for f32/f16/bf16 (rounded once to the result): for
//! weight < 0.5 (NaN is not), `self + weight·(end − self)`; otherwise `end − (end − self)·(1 − weight)`,
//! so that weight 1 gives `end` exactly. Each product and sum rounds (no fused
//! multiply-add). self, end and weight (Lerp) share one dtype, as CANN's doc requires.

use super::binary::{self, Compute, Dtypes, Operand};
use super::catalog::Entry;
use super::elementwise::{self as ew, Arg};
use crate::dtype::DType;
use crate::engine::kernel::{binary as binary_kernel, ternary, BinaryOp, TernaryOp};
use crate::engine::{Params, Via};
use crate::error::Result;
use crate::executor::Executor;
use crate::scalar::Scalar;
use crate::tensor::TensorDesc;

use DType::*;

#[inline(always)]
fn interpolate(a: f32, b: f32, w: f32) -> f32 {
    if w < 0.5 {
        a + w * (b - a)
    } else {
        b - (b - a) * (1.0 - w)
    }
}

struct LerpTensor;
impl TernaryOp for LerpTensor {
    type A = f32;
    type B = f32;
    type C = f32;
    type O = f32;
    fn new(_: &Params) -> Self {
        LerpTensor
    }
    #[inline(always)]
    fn apply(&self, a: f32, b: f32, w: f32) -> f32 {
        interpolate(a, b, w)
    }
}

struct LerpScalar(f32);
impl BinaryOp for LerpScalar {
    type A = f32;
    type B = f32;
    type O = f32;
    fn new(p: &Params) -> Self {
        LerpScalar(p.scalars[0].get::<f32>())
    }
    #[inline(always)]
    fn apply(&self, a: f32, b: f32) -> f32 {
        interpolate(a, b, self.0)
    }
}

const HALFS: &[DType] = &[F32, F16, BF16];
/// Lerps' out may be f64 too (the f32 result converts to it).
const LERPS_OUT: &[DType] = &[F32, F16, BF16, F64];

fn lerp_tensor(
    api: &'static str,
    self_name: &'static str,
    self_: &TensorDesc,
    end: &TensorDesc,
    weight: &TensorDesc,
    out: Option<&TensorDesc>,
) -> Result<Executor> {
    ew::check_tensor(self_name, self_, HALFS)?;
    ew::check_tensor("end", end, HALFS)?;
    ew::check_tensor("weight", weight, HALFS)?;
    ew::check_same_dtype("end", end, self_)?;
    ew::check_same_dtype("weight", weight, self_)?;
    let (out_name, out_desc) = match out {
        Some(o) => {
            ew::check_tensor("out", o, HALFS)?;
            ew::check_same_dtype("out", o, self_)?;
            ("out", o)
        }
        None => (self_name, self_),
    };
    let d = self_.dtype;
    ew::check_out_shape(
        d,
        &[
            (self_name, &self_.shape),
            ("end", &end.shape),
            ("weight", &weight.shape),
        ],
        out_name,
        out_desc,
    )?;
    let v = Via::of(d);
    ew::executor(
        api,
        &[
            Arg::Tensor(self_name, self_),
            Arg::Tensor("end", end),
            Arg::Tensor("weight", weight),
        ],
        &[v, v, v],
        out_name,
        out_desc,
        v,
        ternary::<LerpTensor> as crate::engine::KernelFn,
        Params::default(),
        out.is_none(),
    )
}

/// aclnnLerp.
pub fn lerp(
    self_: &TensorDesc,
    end: &TensorDesc,
    weight: &TensorDesc,
    out: &TensorDesc,
) -> Result<Executor> {
    lerp_tensor("aclnnLerp", "self", self_, end, weight, Some(out))
}

/// aclnnInplaceLerp: into selfRef (the broadcast shape must be selfRef's).
pub fn inplace_lerp(
    self_ref: &TensorDesc,
    end: &TensorDesc,
    weight: &TensorDesc,
) -> Result<Executor> {
    lerp_tensor("aclnnInplaceLerp", "selfRef", self_ref, end, weight, None)
}

fn lerp_scalar(
    api: &'static str,
    self_name: &'static str,
    self_: &TensorDesc,
    end: &TensorDesc,
    weight: &Scalar,
    out: Option<&TensorDesc>,
) -> Result<Executor> {
    ew::check_tensor(self_name, self_, HALFS)?;
    ew::check_same_dtype("end", end, self_)?;
    crate::ensure!(
        crate::dtype::can_cast_value(weight.dtype, self_.dtype),
        "scalar 'weight' of dtype {} cannot be converted to {self_name}'s dtype {}",
        weight.dtype,
        self_.dtype
    );
    let w = weight.cast(F32);
    binary::build(
        api,
        &Dtypes {
            a: HALFS,
            b: HALFS,
            out: LERPS_OUT,
        },
        Operand::Tensor(self_name, self_),
        Operand::Tensor("end", end),
        out.map(|o| ("out", o)),
        |p| {
            Ok(Compute {
                params: Params {
                    scalars: smallvec::smallvec![w],
                    ints: smallvec::smallvec![],
                },
                ..Compute::same(p, binary_kernel::<LerpScalar>)
            })
        },
    )
}

/// aclnnLerps: a scalar weight.
pub fn lerps(
    self_: &TensorDesc,
    end: &TensorDesc,
    weight: &Scalar,
    out: &TensorDesc,
) -> Result<Executor> {
    lerp_scalar("aclnnLerps", "self", self_, end, weight, Some(out))
}

/// aclnnInplaceLerps.
pub fn inplace_lerps(self_ref: &TensorDesc, end: &TensorDesc, weight: &Scalar) -> Result<Executor> {
    lerp_scalar("aclnnInplaceLerps", "selfRef", self_ref, end, weight, None)
}

/// Supported dtypes, for the operator table (docs/DTYPES.md).
pub const CATALOG: &[Entry] = &[
    Entry {
        ops: "Lerp, InplaceLerp",
        a: HALFS,
        b: HALFS,
        out: HALFS,
        rule: "self + weight·(end − self), one dtype, in f32",
    },
    Entry {
        ops: "Lerps, InplaceLerps",
        a: HALFS,
        b: HALFS,
        out: LERPS_OUT,
        rule: "the same with a scalar weight",
    },
];
