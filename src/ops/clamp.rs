//! Clamp and its forms: `out = min(max(self, min), max)`.
//!
//! - Scalar bounds (Clamp, ClampMin, ClampMax, InplaceClampMax): either may be NULL (not
//!   both: ACLNN_ERR_PARAM_NULLPTR, as CANN). The computation dtype is the tensor-scalar
//!   promotion of self with each bound (an integer tensor with a float bound computes in
//!   f32); the bounds are converted to it once (an integer bound beyond an integer dtype's
//!   range saturates). Then as with tensor bounds: NaN in self or in a bound gives NaN,
//!   between -0.0 and +0.0 Maximum's and Minimum's rule applies, a min above max gives max
//!   everywhere (as torch.clamp). CANN converts a scalar bound to a tensor and runs the
//!   same ClipByValueV2 kernel as for tensor bounds (aclnn_clamp.cpp), so both forms treat
//!   a NaN or a signed zero alike.
//! - Tensor bounds (ClampTensor, ClampMinTensor, ClampMaxTensor and the in-place forms):
//!   self and the bounds broadcast together and promote (tensor-tensor; a bound may be
//!   bool); the result is cast to out. A NaN in self or in a bound gives NaN (torch.clamp
//!   with tensor bounds); between -0.0 and +0.0 the bound's max/min rule of Maximum and
//!   Minimum applies. An empty bound gives an empty broadcast, so nothing to compute.

use super::catalog::Entry;
use super::elementwise::{self as ew, Arg};
use super::extremum::Extremum;
use crate::dtype::{promote, promote_with_scalar, DType};
use crate::element::Bool8;
use crate::element::Wide;
use crate::engine::kernel::{binary, ternary, unary, BinaryOp, TernaryOp, UnaryOp};
use crate::engine::{KernelFn, Params, Via};
use crate::error::{Error, Result};
use crate::executor::Executor;
use crate::scalar::Scalar;
use crate::tensor::TensorDesc;
use std::marker::PhantomData;

use DType::*;
const LIST: &[DType] = &[F32, F16, F64, BF16, S8, U8, S16, S32, S64];
/// Tensor bounds may also be bool (aclnnClampTensor.md).
const BOUNDS: &[DType] = &[F32, F16, F64, BF16, S8, U8, S16, S32, S64, Bool];

struct ClampOp<T> {
    lo: Option<T>,
    hi: Option<T>,
    _t: PhantomData<T>,
}
/// `minimum(maximum(x, lo), hi)` with the scalar bounds: the tensor-bound rule (a scalar
/// bound is the same kernel's bound tensor on the device).
impl<T: Extremum> UnaryOp for ClampOp<T> {
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
            y = y.maximum(lo);
        }
        if let Some(hi) = self.hi {
            y = y.minimum(hi);
        }
        y
    }
}

/// aclnnClamp: either bound may be NULL, not both.
pub fn clamp(
    self_: &TensorDesc,
    min: Option<&Scalar>,
    max: Option<&Scalar>,
    out: &TensorDesc,
) -> Result<Executor> {
    clamp_scalars("aclnnClamp", self_, min, max, Some(out))
}

/// aclnnClampMin: `max(self, min)`.
pub fn clamp_min(self_: &TensorDesc, min: &Scalar, out: &TensorDesc) -> Result<Executor> {
    clamp_scalars("aclnnClampMin", self_, Some(min), None, Some(out))
}

/// aclnnClampMax: `min(self, max)`.
pub fn clamp_max(self_: &TensorDesc, max: &Scalar, out: &TensorDesc) -> Result<Executor> {
    clamp_scalars("aclnnClampMax", self_, None, Some(max), Some(out))
}

/// aclnnInplaceClampMax: `selfRef = min(selfRef, max)`.
pub fn inplace_clamp_max(self_ref: &TensorDesc, max: &Scalar) -> Result<Executor> {
    clamp_scalars("aclnnInplaceClampMax", self_ref, None, Some(max), None)
}

fn both_null() -> Error {
    Error::Null("clipValueMin and clipValueMax are both NULL; at least one bound is needed".into())
}

/// Clamp with scalar bounds into `out`, or in place into self (`out == None`).
fn clamp_scalars(
    api: &'static str,
    self_: &TensorDesc,
    min: Option<&Scalar>,
    max: Option<&Scalar>,
    out: Option<&TensorDesc>,
) -> Result<Executor> {
    if min.is_none() && max.is_none() {
        return Err(both_null());
    }
    let (out_name, out_desc) = match out {
        Some(o) => ("out", o),
        None => ("selfRef", self_),
    };
    let self_name = if out.is_some() { "self" } else { "selfRef" };
    ew::check_tensor(self_name, self_, LIST)?;
    let out = out_desc;
    ew::check_tensor(out_name, out, LIST)?;
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
    ew::check_out_cast(p, out_name, out)?;
    ew::check_out_shape(p, &[(self_name, &self_.shape)], out_name, out)?;
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
    let k = scalar_bounds_kernel(c);
    let v = Via::of(p);
    ew::executor(
        api,
        &[Arg::Tensor(self_name, self_)],
        &[v],
        out_name,
        out,
        v,
        k,
        params,
        out_name == "selfRef",
    )
}

/// The scalar-bound clamp kernel for compute dtype `c` (params: scalars [lo, hi] in `c`,
/// ints [has lo, has hi]); Hardtanh runs on it too.
pub(super) fn scalar_bounds_kernel(c: DType) -> KernelFn {
    match c {
        F64 => unary::<ClampOp<f64>> as KernelFn,
        S8 => unary::<ClampOp<i8>>,
        U8 => unary::<ClampOp<u8>>,
        S16 => unary::<ClampOp<i16>>,
        S32 => unary::<ClampOp<i32>>,
        S64 => unary::<ClampOp<i64>>,
        _ => unary::<ClampOp<f32>>,
    }
}

/// `min(max(x, lo), hi)` with both bounds tensors.
struct ClampBoth<T>(PhantomData<T>);
impl<T: Extremum> TernaryOp for ClampBoth<T> {
    type A = T;
    type B = T;
    type C = T;
    type O = T;
    fn new(_: &Params) -> Self {
        ClampBoth(PhantomData)
    }
    #[inline(always)]
    fn apply(&self, x: T, lo: T, hi: T) -> T {
        x.maximum(lo).minimum(hi)
    }
}

/// `max(x, lo)` (`MAX = false`: the lower bound) or `min(x, hi)`.
struct ClampOne<T, const UPPER: bool>(PhantomData<T>);
impl<T: Extremum, const UPPER: bool> BinaryOp for ClampOne<T, UPPER> {
    type A = T;
    type B = T;
    type O = T;
    fn new(_: &Params) -> Self {
        ClampOne(PhantomData)
    }
    #[inline(always)]
    fn apply(&self, x: T, b: T) -> T {
        if UPPER {
            x.minimum(b)
        } else {
            x.maximum(b)
        }
    }
}

macro_rules! for_compute {
    ($c:expr, $t:ident => $e:expr) => {
        match $c {
            F64 => {
                type $t = f64;
                $e
            }
            S8 => {
                type $t = i8;
                $e
            }
            U8 => {
                type $t = u8;
                $e
            }
            S16 => {
                type $t = i16;
                $e
            }
            S32 => {
                type $t = i32;
                $e
            }
            S64 => {
                type $t = i64;
                $e
            }
            Bool => {
                type $t = Bool8;
                $e
            }
            _ => {
                type $t = f32;
                $e
            }
        }
    };
}

/// aclnnClampTensor: either bound may be NULL, not both.
pub fn clamp_tensor(
    self_: &TensorDesc,
    min: Option<&TensorDesc>,
    max: Option<&TensorDesc>,
    out: &TensorDesc,
) -> Result<Executor> {
    clamp_tensors("aclnnClampTensor", self_, min, max, Some(out))
}

/// aclnnClampMinTensor.
pub fn clamp_min_tensor(
    self_: &TensorDesc,
    min: &TensorDesc,
    out: &TensorDesc,
) -> Result<Executor> {
    clamp_tensors("aclnnClampMinTensor", self_, Some(min), None, Some(out))
}

/// aclnnInplaceClampMinTensor.
pub fn inplace_clamp_min_tensor(self_ref: &TensorDesc, min: &TensorDesc) -> Result<Executor> {
    clamp_tensors(
        "aclnnInplaceClampMinTensor",
        self_ref,
        Some(min),
        None,
        None,
    )
}

/// aclnnClampMaxTensor.
pub fn clamp_max_tensor(
    self_: &TensorDesc,
    max: &TensorDesc,
    out: &TensorDesc,
) -> Result<Executor> {
    clamp_tensors("aclnnClampMaxTensor", self_, None, Some(max), Some(out))
}

/// aclnnInplaceClampMaxTensor.
pub fn inplace_clamp_max_tensor(self_ref: &TensorDesc, max: &TensorDesc) -> Result<Executor> {
    clamp_tensors(
        "aclnnInplaceClampMaxTensor",
        self_ref,
        None,
        Some(max),
        None,
    )
}

/// Clamp with tensor bounds into `out`, or in place into self (`out == None`; the bounds
/// must then broadcast to selfRef's shape).
fn clamp_tensors(
    api: &'static str,
    self_: &TensorDesc,
    min: Option<&TensorDesc>,
    max: Option<&TensorDesc>,
    out: Option<&TensorDesc>,
) -> Result<Executor> {
    if min.is_none() && max.is_none() {
        return Err(both_null());
    }
    let self_name = if out.is_some() { "self" } else { "selfRef" };
    let (out_name, out) = match out {
        Some(o) => ("out", o),
        None => ("selfRef", self_),
    };
    ew::check_tensor(self_name, self_, LIST)?;
    ew::check_tensor(out_name, out, LIST)?;
    // Named as CANN's headers name them (ClampMaxTensor's bound is `max`).
    let max_name = if api.contains("MaxTensor") {
        "max"
    } else {
        "clipValueMax"
    };
    let bounds: Vec<(&'static str, &TensorDesc)> = [("clipValueMin", min), (max_name, max)]
        .into_iter()
        .filter_map(|(n, t)| t.map(|t| (n, t)))
        .collect();
    let mut p = self_.dtype;
    for (name, b) in &bounds {
        ew::check_tensor(name, b, BOUNDS)?;
        p = promote(p, b.dtype).ok_or_else(|| {
            Error::Invalid(format!(
                "self dtype {} and {name} dtype {} cannot be promoted to a common dtype",
                self_.dtype, b.dtype
            ))
        })?;
    }
    crate::ensure!(
        LIST.contains(&p),
        "the promoted dtype {p} of self and the bounds is not one {api} computes in"
    );
    ew::check_out_cast(p, out_name, out)?;
    let mut shapes: Vec<(&str, &[usize])> = vec![(self_name, &self_.shape)];
    shapes.extend(bounds.iter().map(|(n, t)| (*n, &t.shape[..])));
    ew::check_out_shape(p, &shapes, out_name, out)?;
    let v = Via::of(p);
    let mut args = vec![Arg::Tensor(self_name, self_)];
    args.extend(bounds.iter().map(|(n, t)| Arg::Tensor(n, t)));
    let k = match (min.is_some(), max.is_some()) {
        (true, true) => for_compute!(p.compute(), T => ternary::<ClampBoth<T>> as KernelFn),
        (true, false) => for_compute!(p.compute(), T => binary::<ClampOne<T, false>> as KernelFn),
        _ => for_compute!(p.compute(), T => binary::<ClampOne<T, true>> as KernelFn),
    };
    ew::executor(
        api,
        &args,
        &vec![v; args.len()],
        out_name,
        out,
        v,
        k,
        Params::default(),
        out_name == "selfRef",
    )
}

/// Supported dtypes, for the operator table (docs/DTYPES.md).
pub const CATALOG: &[Entry] = &[
    Entry {
        ops: "Clamp, ClampMin, ClampMax, InplaceClampMax",
        a: LIST,
        b: LIST,
        out: LIST,
        rule: "min(max(x, min), max) with scalar bounds; Clamp's bounds may be NULL (not both)",
    },
    Entry {
        ops: "ClampTensor, ClampMinTensor, ClampMaxTensor (+ Inplace)",
        a: LIST,
        b: BOUNDS,
        out: LIST,
        rule: "the same with broadcast tensor bounds (promoted; NaN propagates)",
    },
];
