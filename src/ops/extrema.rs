//! Extremes with several outputs: MaxDim / MinDim (the values and their indices along one
//! dim, as torch.max(x, dim)) and Aminmax (the minimum and the maximum over dims). Each
//! output is one reduction-engine plan; the plans run in order as one operator
//! (`executor::Sequence`), so nothing is computed twice but the input's reads.
//!
//! NaN: a NaN is the maximum and the minimum (the value NaN, the index of the first NaN);
//! ties give the first index. A reduced dim of size 0 has no extreme: refused.

use super::catalog::Entry;
use super::elementwise as ew;
use super::reduce::{axes, reduced_out, reduced_shape};
use crate::dtype::DType;
use crate::engine::reduce::{Op, Plan, Reduce};
use crate::engine::Via;
use crate::error::Result;
use crate::executor::{Bindings, Executor, Nothing, Sequence};
use crate::tensor::TensorDesc;

use DType::*;
/// aclnnMaxDim.md / aclnnMinDim.md, Atlas A2 (no INT32 there).
const DIM: &[DType] = &[F32, F16, S64, Bool, BF16];
const INDEX: &[DType] = &[S32, S64];
/// aclnnAminmax.md.
const AMINMAX: &[DType] = &[F32, BF16, F16, F64, S8, S16, S32, S64, U8, Bool];

/// One executor writing `outs[i]` with reduction `ops[i]` of `self_` over `ax`.
fn several(
    api: &'static str,
    self_: &TensorDesc,
    ax: &[usize],
    outs: &[(&TensorDesc, Reduce)],
) -> Executor {
    let mut views = vec![Some(self_.clone())];
    views.extend(outs.iter().map(|(o, _)| Some((*o).clone())));
    let bindings = Bindings {
        tensors: std::sync::Arc::new(views),
        n_inputs: 1,
        outputs: (1..=outs.len()).collect(),
    };
    if outs.iter().all(|(o, _)| o.is_empty()) {
        return Executor::new(api, bindings, Nothing);
    }
    let mut seq = Sequence::new();
    for (i, (out, how)) in outs.iter().enumerate() {
        let step_bindings = Bindings {
            tensors: std::sync::Arc::new(vec![Some(self_.clone()), Some((*out).clone())]),
            n_inputs: 1,
            outputs: smallvec::smallvec![1],
        };
        let plan = Plan::new(
            Op::Reduce(*how),
            self_,
            0,
            ax,
            Via::exact(self_.dtype),
            out,
            1,
        );
        seq.push(Executor::new(api, step_bindings, plan), &[0, 1 + i]);
    }
    Executor::new(api, bindings, seq)
}

fn dim_extreme(
    api: &'static str,
    value: Reduce,
    index: Reduce,
    self_: &TensorDesc,
    dim: i64,
    keep: bool,
    out: &TensorDesc,
    indices: &TensorDesc,
) -> Result<Executor> {
    ew::check_tensor("self", self_, DIM)?;
    ew::check_tensor("out", out, DIM)?;
    ew::check_tensor("indices", indices, INDEX)?;
    crate::ensure!(
        self_.rank() >= 1,
        "self is a scalar (0 dims): {api} reduces along a dim"
    );
    crate::ensure!(
        out.dtype == self_.dtype,
        "out has dtype {} but must have self's dtype {}",
        out.dtype,
        self_.dtype
    );
    let ax = axes("dim", &[dim], self_.rank(), false)?;
    crate::ensure!(
        self_.shape[ax[0]] > 0,
        "dim {dim} of self {:?} has size 0: it has no extreme",
        self_.shape
    );
    let shape = reduced_shape(&self_.shape, &ax, keep);
    ew::check_result_shape("out", out, &shape)?;
    ew::check_result_shape("indices", indices, &shape)?;
    Ok(several(api, self_, &ax, &[(out, value), (indices, index)]))
}

/// aclnnMaxDim: the maximum along `dim` and its index.
pub fn max_dim(
    self_: &TensorDesc,
    dim: i64,
    keep: bool,
    out: &TensorDesc,
    indices: &TensorDesc,
) -> Result<Executor> {
    dim_extreme(
        "aclnnMaxDim",
        Reduce::Max,
        Reduce::ArgMax,
        self_,
        dim,
        keep,
        out,
        indices,
    )
}

/// aclnnMinDim: the minimum along `dim` and its index.
pub fn min_dim(
    self_: &TensorDesc,
    dim: i64,
    keep: bool,
    out: &TensorDesc,
    indices: &TensorDesc,
) -> Result<Executor> {
    dim_extreme(
        "aclnnMinDim",
        Reduce::Min,
        Reduce::ArgMin,
        self_,
        dim,
        keep,
        out,
        indices,
    )
}

/// aclnnAminmax: the minimum and the maximum over `dim` (empty: every axis).
pub fn aminmax(
    self_: &TensorDesc,
    dim: &[i64],
    keep: bool,
    min_out: &TensorDesc,
    max_out: &TensorDesc,
) -> Result<Executor> {
    const API: &str = "aclnnAminmax";
    ew::check_tensor("self", self_, AMINMAX)?;
    for (name, o) in [("minOut", min_out), ("maxOut", max_out)] {
        ew::check_tensor(name, o, AMINMAX)?;
        crate::ensure!(
            o.dtype == self_.dtype,
            "{name} has dtype {} but must have self's dtype {}",
            o.dtype,
            self_.dtype
        );
    }
    let ax = axes("dim", dim, self_.rank(), true)?;
    if dim.len() == 1 {
        crate::ensure!(
            ax.is_empty() || self_.shape[ax[0]] > 0,
            "dim {dim:?} of self {:?} has size 0: it has no minimum or maximum",
            self_.shape
        );
    } else {
        crate::ensure!(
            !self_.is_empty(),
            "self {:?} is empty: it has no minimum or maximum",
            self_.shape
        );
    }
    let shape = reduced_shape(&self_.shape, &ax, keep);
    ew::check_result_shape("minOut", min_out, &shape)?;
    ew::check_result_shape("maxOut", max_out, &shape)?;
    Ok(several(
        API,
        self_,
        &ax,
        &[(min_out, Reduce::Min), (max_out, Reduce::Max)],
    ))
}

/// Checks AminmaxAll's / AminmaxDim's dtypes (CANN's list; both outs have self's dtype).
fn check_minmax_dtypes(
    self_: &TensorDesc,
    min_out: &TensorDesc,
    max_out: &TensorDesc,
) -> Result<()> {
    ew::check_tensor("self", self_, AMINMAX)?;
    for (name, o) in [("minOut", min_out), ("maxOut", max_out)] {
        ew::check_tensor(name, o, AMINMAX)?;
        ew::check_same_dtype(name, o, self_)?;
    }
    Ok(())
}

/// aclnnAminmaxAll: the minimum and the maximum of every element, into one-element outs
/// (0-d or any shape of one element, as CANN's `CheckShapeAndScalarSame`). An empty self
/// writes nothing (CANN returns at once); NaN is both extremes.
pub fn aminmax_all(
    self_: &TensorDesc,
    min_out: &TensorDesc,
    max_out: &TensorDesc,
) -> Result<Executor> {
    const API: &str = "aclnnAminmaxAll";
    check_minmax_dtypes(self_, min_out, max_out)?;
    let ax: Vec<usize> = (0..self_.rank()).collect();
    if self_.is_empty() {
        let b = Bindings {
            tensors: std::sync::Arc::new(vec![
                Some(self_.clone()),
                Some(min_out.clone()),
                Some(max_out.clone()),
            ]),
            n_inputs: 1,
            outputs: smallvec::smallvec![1, 2],
        };
        return Ok(Executor::new(API, b, Nothing));
    }
    let min_v = one_element(API, "minOut", min_out)?;
    let max_v = one_element(API, "maxOut", max_out)?;
    Ok(several(
        API,
        self_,
        &ax,
        &[(&min_v, Reduce::Min), (&max_v, Reduce::Max)],
    ))
}

/// A one-element out seen as the 0-d result.
fn one_element(api: &str, name: &str, out: &TensorDesc) -> Result<TensorDesc> {
    crate::ensure!(
        out.numel() == 1,
        "{name} has shape {:?} ({} elements) but {api} writes one element",
        out.shape,
        out.numel()
    );
    out.check_output(name)?;
    reduced_out(out, &[])
}

/// aclnnAminmaxDim: the minimum and the maximum along `dim` (a 0-d self: dim in [-1, 0]).
/// The dim must not have size 0; an otherwise empty self writes nothing.
pub fn aminmax_dim(
    self_: &TensorDesc,
    dim: i64,
    keep: bool,
    min_out: &TensorDesc,
    max_out: &TensorDesc,
) -> Result<Executor> {
    const API: &str = "aclnnAminmaxDim";
    check_minmax_dtypes(self_, min_out, max_out)?;
    let ax = axes("dim", &[dim], self_.rank(), false)?;
    crate::ensure!(
        ax.is_empty() || self_.shape[ax[0]] > 0,
        "dim {dim} of self {:?} has size 0: it has no minimum or maximum",
        self_.shape
    );
    let shape = reduced_shape(&self_.shape, &ax, keep);
    ew::check_result_shape("minOut", min_out, &shape)?;
    ew::check_result_shape("maxOut", max_out, &shape)?;
    Ok(several(
        API,
        self_,
        &ax,
        &[(min_out, Reduce::Min), (max_out, Reduce::Max)],
    ))
}

/// Supported dtypes, for the operator table (docs/DTYPES.md).
pub const CATALOG: &[Entry] = &[
    Entry {
        ops: "MaxDim, MinDim",
        a: DIM,
        b: &[],
        out: DIM,
        rule: "max/min along dim and its first index (out, indices s32/s64); NaN is the extreme",
    },
    Entry {
        ops: "Aminmax, AminmaxAll, AminmaxDim",
        a: AMINMAX,
        b: &[],
        out: AMINMAX,
        rule: "min and max over dims, two outputs",
    },
];
