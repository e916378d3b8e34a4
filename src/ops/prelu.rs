//! Prelu(self, weight, out): `out = self > 0 ? self : weight·self`, the weight applied along
//! dim 1 (the channels) — the ONNX PRelu unidirectional rule: weight has 1 element, or as
//! many as self has channels (self.shape[1], or 1 for a 0-d or 1-D self), laid along one dim.
//! self and weight are f32, f16 or bf16 and promote; out has self's shape.

use super::binary::{Compute, Dtypes};
use super::catalog::Entry;
use super::elementwise::{self as ew, Arg};
use crate::dtype::{promote, DType};
use crate::engine::kernel::{binary, BinaryOp};
use crate::engine::{KernelFn, Params};
use crate::error::{Error, Result};
use crate::executor::Executor;
use crate::tensor::TensorDesc;
use std::marker::PhantomData;

use DType::*;
const LIST: &[DType] = &[F32, F16, BF16];
const DTYPES: Dtypes = Dtypes {
    a: LIST,
    b: LIST,
    out: LIST,
};

struct Prelu<T>(PhantomData<T>);
impl<T: crate::element::Element + PartialOrd + Default + std::ops::Mul<Output = T>> BinaryOp
    for Prelu<T>
{
    type A = T;
    type B = T;
    type O = T;
    fn new(_: &Params) -> Self {
        Prelu(PhantomData)
    }
    #[inline(always)]
    fn apply(&self, x: T, w: T) -> T {
        if x > T::default() {
            x
        } else {
            w * x
        }
    }
}

/// The weight as a view over self's shape: its elements along dim 1, stride 0 elsewhere.
fn weight_view(self_: &TensorDesc, weight: &TensorDesc) -> Result<TensorDesc> {
    let channels = if self_.rank() >= 2 { self_.shape[1] } else { 1 };
    let n = weight.numel();
    crate::ensure!(
        n == 1 || n == channels,
        "weight has {n} elements; it must have 1 or as many as self's channels (self.shape[1] = {channels})"
    );
    // The one dim the weight's elements run along (any other dims have size 1).
    let stride = weight
        .shape
        .iter()
        .zip(&weight.strides)
        .find(|(d, _)| **d > 1)
        .map_or(0, |(_, s)| *s);
    crate::ensure!(
        weight.shape.iter().filter(|d| **d > 1).count() <= 1,
        "weight of shape {:?} must lay its elements along one dim",
        weight.shape
    );
    let mut v = weight.clone();
    v.shape = smallvec::smallvec![1; self_.rank()];
    v.strides = smallvec::smallvec![0; self_.rank()];
    // n == channels also when both are 0: the view stays empty (it must not reach one element
    // of an empty weight, whose memory phase 1 never checked).
    if self_.rank() >= 2 && n != 1 {
        v.shape[1] = channels;
        v.strides[1] = stride;
    }
    Ok(v)
}

/// aclnnPrelu.
pub fn prelu(self_: &TensorDesc, weight: &TensorDesc, out: &TensorDesc) -> Result<Executor> {
    ew::check_tensor("self", self_, DTYPES.a)?;
    ew::check_tensor("weight", weight, DTYPES.b)?;
    ew::check_tensor("out", out, DTYPES.out)?;
    let p = promote(self_.dtype, weight.dtype).ok_or_else(|| {
        Error::Invalid(format!(
            "self dtype {} and weight dtype {} cannot be promoted",
            self_.dtype, weight.dtype
        ))
    })?;
    ew::check_out_cast(p, "out", out)?;
    ew::check_out_shape(p, &[("self", &self_.shape)], "out", out)?;
    let w = weight_view(self_, weight)?;
    let k = if p == F64 {
        binary::<Prelu<f64>> as KernelFn
    } else {
        binary::<Prelu<f32>> as KernelFn
    };
    let c = Compute::same(p, k);
    ew::executor(
        "aclnnPrelu",
        &[Arg::Tensor("self", self_), Arg::Tensor("weight", &w)],
        &[c.input, c.input],
        "out",
        out,
        c.result,
        c.kernel,
        c.params,
        false,
    )
}

/// Supported dtypes, for the operator table (docs/DTYPES.md).
pub const CATALOG: &[Entry] = &[Entry {
    ops: "Prelu",
    a: LIST,
    b: LIST,
    out: LIST,
    rule: "x > 0 ? x : w·x, w along dim 1",
}];

#[cfg(test)]
mod tests {
    use super::prelu;
    use crate::executor::Workspace;
    use crate::tensor::TensorDesc;

    fn run(x: &[f32], xs: &[i64], w: &[f32], ws: &[i64]) -> Result<Vec<f32>, crate::Error> {
        let mut out = vec![0f32; x.len()];
        let t = |v: &[f32], s: &[i64]| {
            TensorDesc::new(s, 0, None, 0, 2, s, v.as_ptr() as usize).unwrap()
        };
        let o = TensorDesc::new(xs, 0, None, 0, 2, xs, out.as_mut_ptr() as usize).unwrap();
        let e = prelu(&t(x, xs), &t(w, ws), &o)?;
        let mut buf = vec![0u64; (e.workspace_size() as usize).div_ceil(8) + 8];
        e.work.run(
            &e.bindings,
            Workspace {
                addr: buf.as_mut_ptr() as usize,
                size: (buf.len() * 8) as u64,
            },
        )?;
        Ok(out)
    }

    #[test]
    fn prelu_weight_runs_along_dim_1_onnx_unidirectional() {
        // x of shape (2, 3, 2): channel c scales the negatives by w[c].
        let x: Vec<f32> = (0..12).map(|i| i as f32 - 6.0).collect();
        let w = [0.5f32, 2.0, -1.0];
        let got = run(&x, &[2, 3, 2], &w, &[3]).unwrap();
        let want: Vec<f32> = x
            .iter()
            .enumerate()
            .map(|(i, &v)| if v > 0.0 { v } else { w[(i / 2) % 3] * v })
            .collect();
        assert_eq!(got, want);
        // One weight for every channel; NaN stays NaN.
        let got = run(&[-2.0, 3.0, f32::NAN], &[3], &[0.25], &[1]).unwrap();
        assert_eq!(&got[..2], &[-0.5, 3.0]);
        assert!(got[2].is_nan());
        // A weight per channel must match self.shape[1].
        assert!(run(&x, &[2, 3, 2], &[1.0, 2.0], &[2]).is_err());
        // No channels, no weights: an empty result (the weight's view stays empty).
        assert_eq!(run(&[], &[2, 0, 3], &[], &[0]).unwrap(), Vec::<f32>::new());
    }
}
