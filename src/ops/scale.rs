//! Scale (Caffe's Scale layer, CANN's aclnnScale.md): `y = x·scale (+ bias)`, scale and bias
//! covering x's dims [axis, axis + k) and broadcasting over the others, as an element-wise
//! operation over a broadcast view of them (stride 0 outside those dims).
//!
//! k: scaleFromBlob true: numAxes (−1: to the last dim; 0: scale is one element), and scale
//! must have exactly x's shape over those dims; false: scale's rank, scale's dims equal x's
//! from axis (a one-element scale of rank ≤ 1 broadcasts everywhere). x, scale, bias and y
//! share one dtype (f32, f16, bf16; Atlas A2); f16/bf16 compute in f32 and round once; the
//! product is rounded to f32 before bias is added (a multiply then an add, no fused
//! multiply-add).

use super::catalog::Entry;
use super::elementwise::{self as ew, Arg};
use crate::dtype::DType;
use crate::engine::kernel::{binary, ternary, Arith, BinaryOp, TernaryOp};
use crate::engine::{KernelFn, Params, Via};
use crate::error::Result;
use crate::executor::Executor;
use crate::tensor::TensorDesc;
use std::marker::PhantomData;

use DType::*;

const SCALE: &[DType] = &[F32, F16, BF16];

struct Mul<T>(PhantomData<T>);
impl<T: Arith> BinaryOp for Mul<T> {
    type A = T;
    type B = T;
    type O = T;
    fn new(_: &Params) -> Self {
        Mul(PhantomData)
    }
    #[inline(always)]
    fn apply(&self, x: T, s: T) -> T {
        x.mul(s)
    }
}

struct MulAdd<T>(PhantomData<T>);
impl<T: Arith> TernaryOp for MulAdd<T> {
    type A = T;
    type B = T;
    type C = T;
    type O = T;
    fn new(_: &Params) -> Self {
        MulAdd(PhantomData)
    }
    #[inline(always)]
    fn apply(&self, x: T, s: T, b: T) -> T {
        x.mul(s).add(b)
    }
}

/// `t` (scale or bias) seen with x's rank: its dims at x's [axis, axis + k), the others of
/// size 1 (a one-element `t` broadcasting everywhere when `all`).
fn broadcast_view(t: &TensorDesc, rank: usize, axis: usize, all: bool) -> TensorDesc {
    let mut v = t.clone();
    v.shape = smallvec::smallvec![1; rank];
    v.strides = smallvec::smallvec![0; rank];
    if !all {
        for (i, (&n, &s)) in t.shape.iter().zip(&t.strides).enumerate() {
            v.shape[axis + i] = n;
            v.strides[axis + i] = s;
        }
    }
    v
}

/// aclnnScale.
#[allow(clippy::too_many_arguments)]
pub fn scale(
    x: &TensorDesc,
    scale: &TensorDesc,
    bias: Option<&TensorDesc>,
    axis: i64,
    num_axes: i64,
    scale_from_blob: bool,
    y: &TensorDesc,
) -> Result<Executor> {
    const API: &str = "aclnnScale";
    ew::check_tensor("x", x, SCALE)?;
    for (name, t) in [("scale", Some(scale)), ("bias", bias), ("y", Some(y))] {
        if let Some(t) = t {
            crate::ensure!(
                t.dtype == x.dtype,
                "{name} has dtype {} but must have x's dtype {}",
                t.dtype,
                x.dtype
            );
        }
    }
    crate::ensure!(
        y.shape == x.shape,
        "y has shape {:?} but must have x's shape {:?}",
        y.shape,
        x.shape
    );
    if let Some(b) = bias {
        crate::ensure!(
            b.shape == scale.shape,
            "bias has shape {:?} but must have scale's shape {:?}",
            b.shape,
            scale.shape
        );
    }
    for (name, t) in [("x", x), ("scale", scale)] {
        crate::ensure!(
            t.rank() <= 8,
            "{name} has {} dims; at most 8 are supported",
            t.rank()
        );
    }
    let rank = x.rank();
    let ax = ew::axis("axis", axis, rank, "x")?;
    crate::ensure!(
        num_axes >= -1,
        "numAxes must be >= -1, but it is {num_axes}"
    );
    let all = if scale_from_blob {
        if num_axes == 0 {
            crate::ensure!(
                scale.numel() == 1,
                "numAxes is 0, so scale must have one element, but its shape is {:?}",
                scale.shape
            );
            true
        } else {
            let k = if num_axes == -1 {
                rank - ax
            } else {
                num_axes as usize
            };
            crate::ensure!(
                ax + k <= rank,
                "axis {ax} + numAxes {num_axes} must be <= the {rank} dims of x"
            );
            crate::ensure!(
                scale.shape[..] == x.shape[ax..ax + k],
                "scale has shape {:?} but x {:?} with axis {axis} and numAxes {num_axes} needs {:?}",
                scale.shape,
                x.shape,
                &x.shape[ax..ax + k]
            );
            false
        }
    } else {
        let k = scale.rank();
        crate::ensure!(
            ax + k <= rank,
            "axis {ax} + scale's {k} dims must be <= the {rank} dims of x"
        );
        if scale.numel() == 1 && k <= 1 {
            true
        } else {
            crate::ensure!(
                scale.shape[..] == x.shape[ax..ax + k],
                "scale has shape {:?} but must equal x {:?}'s dims from axis {axis}",
                scale.shape,
                x.shape
            );
            false
        }
    };
    let sv = broadcast_view(scale, rank, ax, all);
    let bv = bias.map(|b| broadcast_view(b, rank, ax, all));
    let v = Via::of(x.dtype);
    match &bv {
        None => ew::executor(
            API,
            &[Arg::Tensor("x", x), Arg::Tensor("scale", &sv)],
            &[v, v],
            "y",
            y,
            v,
            crate::with_compute_dtype!(x.dtype.compute(), T => binary::<Mul<T>> as KernelFn),
            Params::default(),
            false,
        ),
        Some(b) => ew::executor(
            API,
            &[
                Arg::Tensor("x", x),
                Arg::Tensor("scale", &sv),
                Arg::Tensor("bias", b),
            ],
            &[v, v, v],
            "y",
            y,
            v,
            crate::with_compute_dtype!(x.dtype.compute(), T => ternary::<MulAdd<T>> as KernelFn),
            Params::default(),
            false,
        ),
    }
}

/// Supported dtypes, for the operator table (docs/DTYPES.md).
pub const CATALOG: &[Entry] = &[Entry {
    ops: "Scale",
    a: SCALE,
    b: SCALE,
    out: SCALE,
    rule: "x·scale (+ bias), scale over x's dims [axis, axis + k)",
}];
