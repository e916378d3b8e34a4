//! Scatter, ScatterValue, InplaceScatter, InplaceScatterValue (aclnnScatter&aclnnInplaceScatter.md,
//! ONNX ScatterElements): `out = self`, then for every position p of index
//! `out[p with p[dim] = index[p]] (reduce)= src[p]` — a rule on the gather engine.
//!
//! reduce: 0 replaces (the last of equal indices wins, as a sequential loop), 1 adds,
//! 2 multiplies, in the compute dtype (f16/bf16 in f32, rounded after each combination as
//! PyTorch's CPU kernel does; integers wrap; bool: or / and). CANN's op_api also names
//! 3..5 (max, min, mean) as experimental; they, and any other value, are refused.
//! index values in [0, self.size(dim)), checked at phase 2 before anything is written.

use super::catalog::Entry;
use super::elementwise as ew;
use super::gather::{IndexSource, Reduce, Values, Walk};
use super::index::{apart, as_1d, bindings, planned, same_dtype, same_shape, scatter_plan, INDEX};
use crate::dtype::DType;
use crate::error::Result;
use crate::executor::Executor;
use crate::scalar::Scalar;
use crate::tensor::TensorDesc;

use DType::*;
/// aclnnScatter.md, Atlas A2.
const SCATTER: &[DType] = &[U8, S8, S16, S32, S64, Bool, F16, F32, F64, C64, C128, BF16];

fn reduce_of(reduce: i64) -> Result<Reduce> {
    Ok(match reduce {
        0 => Reduce::Copy,
        1 => Reduce::Add,
        2 => Reduce::Mul,
        3..=5 => crate::bail!(
            "reduce {reduce} ({}) is an experimental mode of CANN's kernel that this library does not implement; \
             use 0 (replace), 1 (add) or 2 (multiply)",
            ["max", "min", "mean"][(reduce - 3) as usize]
        ),
        _ => crate::bail!("reduce {reduce} is not a reduction: it must be 0 (replace), 1 (add) or 2 (multiply)"),
    })
}

/// The value scattered: a tensor src or a scalar value.
enum Src<'a> {
    Tensor(&'a TensorDesc),
    Value(&'a Scalar),
}

fn scatter_rule(
    api: &'static str,
    self_: &TensorDesc,
    dim: i64,
    index: &TensorDesc,
    src: Src,
    reduce: i64,
    out: Option<&TensorDesc>,
) -> Result<Executor> {
    let self_name = if out.is_some() { "self" } else { "selfRef" };
    if let Src::Value(v) = src {
        crate::ensure!(
            self_.dtype.is_complex() || !v.dtype.is_complex(),
            "value has dtype {} but {self_name} has {}: a complex value needs a complex {self_name}",
            v.dtype,
            self_.dtype
        );
    }
    ew::check_tensor(self_name, self_, SCATTER)?;
    if let Src::Tensor(s) = src {
        crate::ensure!(
            s.dtype == self_.dtype,
            "src has dtype {} but must have {self_name}'s dtype {}",
            s.dtype,
            self_.dtype
        );
    }
    if let Some(o) = out {
        same_dtype("out", o, self_name, self_)?;
    }
    if !index.is_empty() {
        ew::check_tensor("index", index, INDEX)?;
    }
    let reduce = reduce_of(reduce)?;
    let mut inputs = vec![self_, index];
    if let Src::Tensor(s) = src {
        inputs.push(s);
    }
    let b = bindings(&inputs, out);
    let dst = out.unwrap_or(self_);
    let empty_index = || planned(api, b.clone(), self_, out, None);
    if index.is_empty() && matches!(src, Src::Value(_)) {
        return empty_index();
    }
    let r = self_.rank();
    let src_shape = match src {
        Src::Tensor(s) => s.shape.clone(),
        Src::Value(_) => index.shape.clone(),
    };
    crate::ensure!(
        index.rank() == r && src_shape.len() == r,
        "{self_name} {:?}, index {:?} and src {:?} must have the same number of dims",
        self_.shape,
        index.shape,
        src_shape
    );
    if let Some(o) = out {
        same_shape("out", o, self_name, self_)?;
    }
    let lo = (-(r as i64)).min(r as i64 - 1);
    let hi = (-(r as i64)).max(r as i64 - 1);
    crate::ensure!(
        (lo..=hi).contains(&dim),
        "dim {dim} is out of range for {self_name} of {r} dims: it must be in [{lo}, {hi}]"
    );
    let ax = if dim < 0 {
        (dim + r as i64).max(0)
    } else {
        dim
    } as usize;
    for d in 0..r {
        crate::ensure!(
            index.shape[d] <= src_shape[d],
            "index {:?} is larger than src {:?} in dim {d}: index.size(d) <= src.size(d) for every d",
            index.shape,
            src_shape
        );
        crate::ensure!(
            d == ax || index.shape[d] <= self_.shape[d],
            "index {:?} is larger than {self_name} {:?} in dim {d}: index.size(d) <= {self_name}.size(d) for every d != dim",
            index.shape,
            self_.shape
        );
    }
    if index.is_empty() || self_.is_empty() {
        return empty_index();
    }
    dst.check_output(if out.is_some() { "out" } else { "selfRef" })?;
    apart(api, "index", index, "the output", dst)?;
    let i1 = as_1d(index);
    let values = match src {
        Src::Tensor(s) => {
            apart(api, "src", s, "the output", dst)?;
            let s1 = as_1d(s);
            Values::Tensor(Walk::new(2, &s1, s1.strides.clone()))
        }
        Src::Value(v) => Values::Constant(v.cast(self_.dtype)),
    };
    let s1 = as_1d(self_);
    let plan = scatter_plan(
        dst,
        b.outputs[0],
        ax,
        &i1.shape,
        values,
        None,
        IndexSource::Tensor {
            walk: Walk::new(1, &i1, i1.strides.clone()),
            dtype: index.dtype,
        },
        None,
        reduce,
        (
            "index",
            format!("dim {ax} of {self_name} (size {})", s1.shape[ax]),
        ),
    );
    planned(api, b, self_, out, Some(plan))
}

/// aclnnScatter.
pub fn scatter(
    self_: &TensorDesc,
    dim: i64,
    index: &TensorDesc,
    src: &TensorDesc,
    reduce: i64,
    out: &TensorDesc,
) -> Result<Executor> {
    scatter_rule(
        "aclnnScatter",
        self_,
        dim,
        index,
        Src::Tensor(src),
        reduce,
        Some(out),
    )
}

/// aclnnScatterAdd (aclnnScatterAdd.md): aclnnScatter with reduce 1.
pub fn scatter_add(
    self_: &TensorDesc,
    dim: i64,
    index: &TensorDesc,
    src: &TensorDesc,
    out: &TensorDesc,
) -> Result<Executor> {
    scatter_rule(
        "aclnnScatterAdd",
        self_,
        dim,
        index,
        Src::Tensor(src),
        1,
        Some(out),
    )
}

/// aclnnScatterValue.
pub fn scatter_value(
    self_: &TensorDesc,
    dim: i64,
    index: &TensorDesc,
    value: &Scalar,
    reduce: i64,
    out: &TensorDesc,
) -> Result<Executor> {
    scatter_rule(
        "aclnnScatterValue",
        self_,
        dim,
        index,
        Src::Value(value),
        reduce,
        Some(out),
    )
}

/// aclnnInplaceScatter.
pub fn inplace_scatter(
    self_ref: &TensorDesc,
    dim: i64,
    index: &TensorDesc,
    src: &TensorDesc,
    reduce: i64,
) -> Result<Executor> {
    scatter_rule(
        "aclnnInplaceScatter",
        self_ref,
        dim,
        index,
        Src::Tensor(src),
        reduce,
        None,
    )
}

/// aclnnInplaceScatterValue.
pub fn inplace_scatter_value(
    self_ref: &TensorDesc,
    dim: i64,
    index: &TensorDesc,
    value: &Scalar,
    reduce: i64,
) -> Result<Executor> {
    scatter_rule(
        "aclnnInplaceScatterValue",
        self_ref,
        dim,
        index,
        Src::Value(value),
        reduce,
        None,
    )
}

/// What Atlas A2 runs of ScatterReduce (aclnnScatterReduce.md): FLOAT32, reduce 1 (add)
/// with includeSelf true; every other combination is refused there.
fn scatter_reduce_a2(self_: &TensorDesc, reduce: i64, include_self: bool) -> Result<()> {
    crate::ensure!(
        self_.dtype == DType::F32,
        "self has dtype {}: on Atlas A2 ScatterReduce supports FLOAT32 only",
        self_.dtype
    );
    crate::ensure!(
        reduce == 1 && include_self,
        "reduce {reduce} with includeSelf {include_self} is not supported: Atlas A2 runs reduce 1 (add) with includeSelf true only"
    );
    Ok(())
}

/// aclnnScatterReduce: `out = self; out[index[p] along dim] += src[p]` (Atlas A2's one mode).
#[allow(clippy::too_many_arguments)]
pub fn scatter_reduce(
    self_: &TensorDesc,
    dim: i64,
    index: &TensorDesc,
    src: &TensorDesc,
    reduce: i64,
    include_self: bool,
    out: &TensorDesc,
) -> Result<Executor> {
    ew::check_tensor("self", self_, SCATTER)?;
    scatter_reduce_a2(self_, reduce, include_self)?;
    scatter_rule(
        "aclnnScatterReduce",
        self_,
        dim,
        index,
        Src::Tensor(src),
        1,
        Some(out),
    )
}

/// aclnnInplaceScatterReduce.
pub fn inplace_scatter_reduce(
    self_ref: &TensorDesc,
    dim: i64,
    index: &TensorDesc,
    src: &TensorDesc,
    reduce: i64,
    include_self: bool,
) -> Result<Executor> {
    ew::check_tensor("selfRef", self_ref, SCATTER)?;
    scatter_reduce_a2(self_ref, reduce, include_self)?;
    scatter_rule(
        "aclnnInplaceScatterReduce",
        self_ref,
        dim,
        index,
        Src::Tensor(src),
        1,
        None,
    )
}

/// Supported dtypes, for the operator table (docs/DTYPES.md).
pub const CATALOG: &[Entry] = &[
    Entry {
        ops: "Scatter, ScatterValue, InplaceScatter, InplaceScatterValue, ScatterAdd",
        a: SCATTER,
        b: INDEX,
        out: SCATTER,
        rule: "out = self; out[index[p] along dim] = / += / *= src[p] (reduce 0/1/2; b: index)",
    },
    Entry {
        ops: "ScatterReduce, InplaceScatterReduce",
        a: &[DType::F32],
        b: INDEX,
        out: &[DType::F32],
        rule: "ScatterAdd: reduce 1 (add) with includeSelf, the one combination Atlas A2 runs",
    },
];
