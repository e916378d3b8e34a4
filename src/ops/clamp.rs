//! Clamp(self, clipValueMin, clipValueMax, out): `out = min(max(self, min), max)` with
//! scalar bounds, either of which may be NULL (not both). The computation dtype is the
//! tensor-scalar promotion of self with each bound (an integer tensor with a float bound
//! computes in f32); the bounds are converted to it once (an integer bound beyond an
//! integer dtype's range saturates). NaN stays NaN; a min above max
//! gives max everywhere (as torch.clamp).

use super::catalog::Entry;
use super::elementwise::{self as ew, Arg};
use crate::dtype::{promote, promote_with_scalar, DType};
use crate::element::Wide;
use crate::engine::kernel::{unary, UnaryOp};
use crate::engine::{KernelFn, Params, Via};
use crate::error::{Error, Result};
use crate::executor::Executor;
use crate::scalar::Scalar;
use crate::tensor::TensorDesc;
use std::marker::PhantomData;

use DType::*;
const LIST: &[DType] = &[F32, F16, F64, BF16, S8, U8, S16, S32, S64];

struct ClampOp<T> {
    lo: Option<T>,
    hi: Option<T>,
    _t: PhantomData<T>,
}
impl<T: crate::element::Element + PartialOrd> UnaryOp for ClampOp<T> {
    type A = T;
    type O = T;
    fn new(p: &Params) -> Self {
        let get = |i: usize| (p.ints[i] != 0).then(|| p.scalars[i].get::<T>());
        ClampOp {
            lo: get(0),
            hi: get(1),
            _t: PhantomData,
        }
    }
    #[inline(always)]
    fn apply(&self, x: T) -> T {
        let mut y = x;
        if let Some(lo) = self.lo {
            if y < lo {
                y = lo;
            }
        }
        if let Some(hi) = self.hi {
            if y > hi {
                y = hi;
            }
        }
        y
    }
}

/// aclnnClamp.
pub fn clamp(
    self_: &TensorDesc,
    min: Option<&Scalar>,
    max: Option<&Scalar>,
    out: &TensorDesc,
) -> Result<Executor> {
    ew::check_tensor("self", self_, LIST)?;
    ew::check_tensor("out", out, LIST)?;
    crate::ensure!(
        min.is_some() || max.is_some(),
        "clipValueMin and clipValueMax are both NULL; at least one bound is needed"
    );
    let mut p = self_.dtype;
    for (name, b) in [("clipValueMin", min), ("clipValueMax", max)] {
        if let Some(b) = b {
            ew::check_scalar_dtype(name, b.dtype, LIST)?;
            let q = promote_with_scalar(self_.dtype, b.dtype).ok_or_else(|| {
                Error::Invalid(format!(
                    "self dtype {} and {name} dtype {} cannot be promoted",
                    self_.dtype, b.dtype
                ))
            })?;
            p = promote(p, q).unwrap_or(q);
        }
    }
    ew::check_out_cast(p, "out", out)?;
    ew::check_out_shape(p, &[("self", &self_.shape)], "out", out)?;
    let c = p.compute();
    // A bound outside an integer dtype's range saturates (comparing with it is exact: every
    // s8 value is above -1000), rather than wrapping into the range.
    let to_p = |s: &Scalar| match s.wide() {
        Wide::Int(i) if p.is_int() && s.cast(p).wide() != Wide::Int(i) => {
            Scalar::from_value(i as f64).cast(p)
        }
        _ => s.cast(p),
    };
    let bound = |b: Option<&Scalar>| {
        b.map(|s| to_p(s).cast(c))
            .unwrap_or_else(|| Scalar::from_value(0u8).cast(c))
    };
    let params = Params {
        scalars: smallvec::smallvec![bound(min), bound(max)],
        ints: smallvec::smallvec![min.is_some() as i64, max.is_some() as i64],
    };
    let k = match c {
        F64 => unary::<ClampOp<f64>> as KernelFn,
        S8 => unary::<ClampOp<i8>>,
        U8 => unary::<ClampOp<u8>>,
        S16 => unary::<ClampOp<i16>>,
        S32 => unary::<ClampOp<i32>>,
        S64 => unary::<ClampOp<i64>>,
        _ => unary::<ClampOp<f32>>,
    };
    let v = Via::of(p);
    ew::executor(
        "aclnnClamp",
        &[Arg::Tensor("self", self_)],
        &[v],
        "out",
        out,
        v,
        k,
        params,
        false,
    )
}

/// Supported dtypes, for the README's operator table.
pub const CATALOG: &[Entry] = &[Entry {
    ops: "Clamp",
    a: LIST,
    b: LIST,
    out: LIST,
    rule: "min(max(x, min), max); either bound may be NULL",
}];
