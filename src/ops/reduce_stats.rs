//! The statistical and logical reductions of CANN's math library, as rules on the reduction
//! engine (`engine::reduce`): All, Any, Prod, ProdDim, Var, VarCorrection, Std, VarMean,
//! StdMeanCorrection, LogSumExp, ReduceLogSum, ReduceNansum and MaxV2.
//!
//! dims as in `reduce.rs`: each in [-rank, rank-1] (a 0-d tensor counts as rank 1), no
//! repeats, an empty list reduces every axis (ReduceLogSum and MaxV2 with their noop flag:
//! none, a copy).
//!
//! Numbers (every result rounds once from f64 to the result dtype):
//! - Var/Std: the mean, then the corrected two-pass sum Σd² − (Σd)²/n of the deviations
//!   d = x − mean, in f64, divided by max(0, n − correction) (Var's `unbiased` is correction
//!   1). Relative error a few f64 ulp times the condition (mean/σ)², far below f32's ulp for
//!   a mean of 1e4 with variance 1e-4: the f32/f16/bf16 result is the correctly rounded
//!   value but in rare double-rounding cases (≤ 1 ulp). A NaN or inf gives NaN; an empty set
//!   NaN (CANN fills NaN), n ≤ correction gives inf (0/0 = NaN when every deviation is 0).
//!   The value is rounded to self's dtype, then cast to out's (CANN casts the result).
//! - LogSumExp: in f32 as CANN (integers and f16/bf16 cast to f32 first): max, then
//!   ln Σ exp(x − max) + max in f64 (≤ 1 f32 ulp); NaN propagates, all −inf or empty gives
//!   −inf, a +inf gives +inf.
//! - ReduceLogSum: ln of the f64 sum; an empty `data` fills `reduce` with 0, as CANN's code
//!   does (not ln 0).
//! - Prod: self is converted to `dtype` first, the product accumulates in f64 (integers in
//!   wrapping i64, complex in complex128): exact for integers as torch's wrapping product,
//!   floats within n·2⁻⁵³ relative before the final rounding. An empty product is 1.
//! - ReduceNansum: self converted to `dtype`, NaN counted as 0, summed in f64 / i64.
//! - All/Any: a value is true when non-zero (NaN is true); empty: All true, Any false.

use super::catalog::Entry;
use super::elementwise::{self as ew, Arg};
use super::reduce::{axes, reduced_out, reduced_shape};
use crate::dtype::DType;
use crate::engine::reduce::{Op, Plan, Reduce};
use crate::engine::Via;
use crate::error::{Error, Result};
use crate::executor::{Bindings, Executor, Nothing, Sequence};
use crate::tensor::TensorDesc;

use DType::*;
/// aclnnAll.md / aclnnAny.md (Atlas A2).
const LOGICAL_IN: &[DType] = &[Bool, U8, S8, S16, S32, S64, F32, F16, BF16, F64];
const ALL_OUT: &[DType] = &[Bool, U8];
const ANY_OUT: &[DType] = &[Bool];
/// aclnnProd.md / aclnnProdDim.md.
const PROD: &[DType] = &[F16, F32, F64, S8, U8, S16, S32, S64, Bool, C64, C128, BF16];
/// aclnnVar*.md, aclnnStd*.md.
const MOMENTS: &[DType] = &[F32, F16, BF16];
/// aclnnLogSumExp.md.
const LSE_IN: &[DType] = &[F32, F16, BF16, S32, S64, S16, S8, U8, Bool];
const LSE_OUT: &[DType] = &[F32, F16, BF16];
/// aclnnReduceLogSum.md.
const LOG_SUM: &[DType] = &[F16, F32, BF16];
/// aclnnReduceNansum.md.
const NANSUM: &[DType] = &[F16, F32, S8, S16, S32, S64, U8, Bool, BF16];
/// aclnnMaxV2.md.
const MAX_V2: &[DType] = &[F32, F16, S8, S16, S32, S64, U8, F64, Bool, BF16];

/// One output of a reduction: its view, what it computes, and the dtype values pass
/// through (the result rounds to it before it is cast to the output).
struct Output<'a> {
    name: &'static str,
    view: &'a TensorDesc,
    how: Reduce,
    value: DType,
}

/// One executor computing every output from `self_` over `ax` (one engine plan each, run in
/// order). Each out view must have the reduced shape (`shape`) or be one element for a
/// one-element result.
fn reduction(
    api: &'static str,
    self_: &TensorDesc,
    ax: &[usize],
    keep: bool,
    outs: &[Output],
) -> Result<Executor> {
    let shape = reduced_shape(&self_.shape, ax, keep);
    let mut views = vec![Some(self_.clone())];
    let mut planned = Vec::new();
    for o in outs {
        let v = reduced_out(o.view, &shape).map_err(|e| match e {
            Error::Invalid(m) => Error::Invalid(format!("{}: {m}", o.name)),
            e => e,
        })?;
        views.push(Some(o.view.clone()));
        planned.push(v);
    }
    let bindings = Bindings {
        tensors: std::sync::Arc::new(views),
        n_inputs: 1,
        outputs: (1..=outs.len()).collect(),
    };
    if planned.iter().all(|o| o.is_empty()) {
        return Ok(Executor::new(api, bindings, Nothing));
    }
    let mut seq = Sequence::new();
    for (i, (o, view)) in outs.iter().zip(&planned).enumerate() {
        let step = Bindings {
            tensors: std::sync::Arc::new(vec![Some(self_.clone()), Some(view.clone())]),
            n_inputs: 1,
            outputs: smallvec::smallvec![1],
        };
        let plan = Plan::new(
            Op::Reduce(o.how),
            self_,
            0,
            ax,
            Via::exact(o.value),
            view,
            1,
        );
        seq.push(Executor::new(api, step, plan), &[0, 1 + i]);
    }
    Ok(Executor::new(api, bindings, seq))
}

/// `out = self` converted (the noop forms with an empty axis list).
fn copy(
    api: &'static str,
    self_: &TensorDesc,
    out_name: &'static str,
    out: &TensorDesc,
) -> Result<Executor> {
    ew::check_out_shape(self_.dtype, &[("self", &self_.shape)], out_name, out)?;
    super::copy::convert_into(api, Arg::Tensor("self", self_), out_name, out)
}

/// A raw aclDataType argument.
fn dtype_arg(name: &str, raw: i32, allowed: &[DType]) -> Result<DType> {
    let d = DType::from_raw(raw).map_err(|e| Error::Invalid(format!("argument '{name}': {e}")))?;
    crate::ensure!(
        allowed.contains(&d),
        "{name} {d} is not supported; supported: {allowed:?}"
    );
    Ok(d)
}

fn logical(
    api: &'static str,
    how: Reduce,
    out_dtypes: &[DType],
    self_: &TensorDesc,
    dim: &[i64],
    keep: bool,
    out: &TensorDesc,
) -> Result<Executor> {
    ew::check_tensor("self", self_, LOGICAL_IN)?;
    ew::check_tensor("out", out, out_dtypes)?;
    let ax = axes("dim", dim, self_.rank(), true)?;
    let o = Output {
        name: "out",
        view: out,
        how,
        value: Bool,
    };
    reduction(api, self_, &ax, keep, &[o])
}

/// aclnnAll: whether every element over `dim` is non-zero (an empty dim: every axis).
pub fn all(self_: &TensorDesc, dim: &[i64], keep: bool, out: &TensorDesc) -> Result<Executor> {
    logical("aclnnAll", Reduce::All, ALL_OUT, self_, dim, keep, out)
}

/// aclnnAny: whether any element over `dim` is non-zero (an empty dim: every axis).
pub fn any(self_: &TensorDesc, dim: &[i64], keep: bool, out: &TensorDesc) -> Result<Executor> {
    logical("aclnnAny", Reduce::Any, ANY_OUT, self_, dim, keep, out)
}

fn prod_impl(
    api: &'static str,
    self_: &TensorDesc,
    dims: &[i64],
    keep: bool,
    dtype: i32,
    out: &TensorDesc,
) -> Result<Executor> {
    ew::check_tensor("self", self_, PROD)?;
    let d = dtype_arg("dtype", dtype, PROD)?;
    ew::check_tensor("out", out, PROD)?;
    crate::ensure!(
        out.dtype == d,
        "out has dtype {} but dtype is {d}; they must be equal",
        out.dtype
    );
    crate::ensure!(
        !(self_.is_empty() && d.is_complex()),
        "self {:?} is empty: the out dtype may not be complex ({d}) then",
        self_.shape
    );
    let ax = axes("dim", dims, self_.rank(), true)?;
    let o = Output {
        name: "out",
        view: out,
        how: Reduce::Prod,
        value: d,
    };
    reduction(api, self_, &ax, keep, &[o])
}

/// aclnnProd: the product of every element, in `dtype` (= out's dtype), into one element.
pub fn prod(self_: &TensorDesc, dtype: i32, out: &TensorDesc) -> Result<Executor> {
    prod_impl("aclnnProd", self_, &[], false, dtype, out)
}

/// aclnnProdDim: the product along `dim`, in `dtype` (= out's dtype).
pub fn prod_dim(
    self_: &TensorDesc,
    dim: i64,
    keep: bool,
    dtype: i32,
    out: &TensorDesc,
) -> Result<Executor> {
    prod_impl("aclnnProdDim", self_, &[dim], keep, dtype, out)
}

/// Var, Std and their forms with the mean: `outs` are (name, view, is the std / the mean).
fn moments(
    api: &'static str,
    self_: &TensorDesc,
    dim: Option<&[i64]>,
    correction: i64,
    keep: bool,
    outs: &[(&'static str, &TensorDesc, Moment)],
) -> Result<Executor> {
    ew::check_tensor("self", self_, MOMENTS)?;
    for (name, t, _) in outs {
        ew::check_tensor(name, t, MOMENTS)?;
    }
    let ax = axes("dim", dim.unwrap_or(&[]), self_.rank(), true)?;
    let outs: Vec<Output> = outs
        .iter()
        .map(|&(name, view, m)| Output {
            name,
            view,
            how: match m {
                Moment::Mean => Reduce::Mean,
                Moment::Var => Reduce::Var {
                    correction,
                    root: false,
                },
                Moment::Std => Reduce::Var {
                    correction,
                    root: true,
                },
            },
            value: self_.dtype,
        })
        .collect();
    reduction(api, self_, &ax, keep, &outs)
}

#[derive(Clone, Copy)]
enum Moment {
    Mean,
    Var,
    Std,
}

/// aclnnVar: the variance over `dim` (NULL or empty: every axis), unbiased: correction 1.
pub fn var(
    self_: &TensorDesc,
    dim: Option<&[i64]>,
    unbiased: bool,
    keep: bool,
    out: &TensorDesc,
) -> Result<Executor> {
    let c = unbiased as i64;
    moments(
        "aclnnVar",
        self_,
        dim,
        c,
        keep,
        &[("out", out, Moment::Var)],
    )
}

/// aclnnVarCorrection: the variance with divisor max(0, n − correction).
pub fn var_correction(
    self_: &TensorDesc,
    dim: Option<&[i64]>,
    correction: i64,
    keep: bool,
    out: &TensorDesc,
) -> Result<Executor> {
    let outs = [("out", out, Moment::Var)];
    moments("aclnnVarCorrection", self_, dim, correction, keep, &outs)
}

/// aclnnStd: the standard deviation with divisor max(0, n − correction).
pub fn std_dev(
    self_: &TensorDesc,
    dim: Option<&[i64]>,
    correction: i64,
    keep: bool,
    out: &TensorDesc,
) -> Result<Executor> {
    let outs = [("out", out, Moment::Std)];
    moments("aclnnStd", self_, dim, correction, keep, &outs)
}

/// aclnnVarMean: the variance and the mean.
pub fn var_mean(
    self_: &TensorDesc,
    dim: Option<&[i64]>,
    correction: i64,
    keep: bool,
    var_out: &TensorDesc,
    mean_out: &TensorDesc,
) -> Result<Executor> {
    let outs = [
        ("varOut", var_out, Moment::Var),
        ("meanOut", mean_out, Moment::Mean),
    ];
    moments("aclnnVarMean", self_, dim, correction, keep, &outs)
}

/// aclnnStdMeanCorrection: the standard deviation and the mean.
pub fn std_mean_correction(
    self_: &TensorDesc,
    dim: Option<&[i64]>,
    correction: i64,
    keep: bool,
    std_out: &TensorDesc,
    mean_out: &TensorDesc,
) -> Result<Executor> {
    let outs = [
        ("stdOut", std_out, Moment::Std),
        ("meanOut", mean_out, Moment::Mean),
    ];
    moments(
        "aclnnStdMeanCorrection",
        self_,
        dim,
        correction,
        keep,
        &outs,
    )
}

/// aclnnLogSumExp: ln Σ exp(self) over `dim` (empty: every axis), computed in f32.
pub fn log_sum_exp(
    self_: &TensorDesc,
    dim: &[i64],
    keep: bool,
    out: &TensorDesc,
) -> Result<Executor> {
    ew::check_tensor("self", self_, LSE_IN)?;
    ew::check_tensor("out", out, LSE_OUT)?;
    let ax = axes("dim", dim, self_.rank(), true)?;
    let o = Output {
        name: "out",
        view: out,
        how: Reduce::LogSumExp,
        value: F32,
    };
    reduction("aclnnLogSumExp", self_, &ax, keep, &[o])
}

/// aclnnReduceLogSum: ln Σ data over `axes`; an empty `axes` with noopWithEmptyAxes copies.
pub fn reduce_log_sum(
    data: &TensorDesc,
    axes_: &[i64],
    keep: bool,
    noop_with_empty_axes: bool,
    reduce: &TensorDesc,
) -> Result<Executor> {
    const API: &str = "aclnnReduceLogSum";
    ew::check_tensor("data", data, LOG_SUM)?;
    ew::check_tensor("reduce", reduce, LOG_SUM)?;
    crate::ensure!(
        reduce.dtype == data.dtype,
        "reduce has dtype {} but must have data's dtype {}",
        reduce.dtype,
        data.dtype
    );
    let ax = axes("axes", axes_, data.rank(), !noop_with_empty_axes)?;
    if axes_.is_empty() && noop_with_empty_axes {
        return copy(API, data, "reduce", reduce);
    }
    if data.is_empty() {
        // CANN fills `reduce` with 0 when data is empty (its code's FillScalar(0)).
        ew::check_result_shape("reduce", reduce, &reduced_shape(&data.shape, &ax, keep))?;
        let zero = Arg::Scalar(crate::scalar::Scalar::from_value(0u8));
        return super::copy::convert_into(API, zero, "reduce", reduce);
    }
    let o = Output {
        name: "reduce",
        view: reduce,
        how: Reduce::LogSum,
        value: data.dtype,
    };
    reduction(API, data, &ax, keep, &[o])
}

/// aclnnReduceNansum: the sum over `dim` (empty: every axis) of self in `dtype`, NaN as 0.
pub fn reduce_nansum(
    self_: &TensorDesc,
    dim: &[i64],
    keep: bool,
    dtype: i32,
    out: &TensorDesc,
) -> Result<Executor> {
    ew::check_tensor("self", self_, NANSUM)?;
    let d = dtype_arg("dtype", dtype, NANSUM)?;
    ew::check_tensor("out", out, NANSUM)?;
    crate::ensure!(
        out.dtype == d,
        "out has dtype {} but dtype is {d}; they must be equal",
        out.dtype
    );
    ew::check_out_cast(self_.dtype, "out", out)?;
    let ax = axes("dim", dim, self_.rank(), true)?;
    let o = Output {
        name: "out",
        view: out,
        how: Reduce::NanSum,
        value: d,
    };
    reduction("aclnnReduceNansum", self_, &ax, keep, &[o])
}

/// aclnnMaxV2: the maximum over `dims` (NaN propagates); an empty `dims` reduces every axis,
/// or copies with noopWithEmptyDims.
pub fn max_v2(
    self_: &TensorDesc,
    dims: &[i64],
    keep: bool,
    noop_with_empty_dims: bool,
    out: &TensorDesc,
) -> Result<Executor> {
    const API: &str = "aclnnMaxV2";
    ew::check_tensor("self", self_, MAX_V2)?;
    ew::check_tensor("out", out, MAX_V2)?;
    crate::ensure!(
        out.dtype == self_.dtype,
        "out has dtype {} but must have self's dtype {}",
        out.dtype,
        self_.dtype
    );
    if dims.is_empty() && noop_with_empty_dims {
        return copy(API, self_, "out", out);
    }
    let ax = axes("dims", dims, self_.rank(), true)?;
    for &a in &ax {
        crate::ensure!(
            self_.shape[a] > 0,
            "axis {a} of self {:?} has size 0: it has no maximum",
            self_.shape
        );
    }
    let o = Output {
        name: "out",
        view: out,
        how: Reduce::Max,
        value: self_.dtype,
    };
    reduction(API, self_, &ax, keep, &[o])
}

/// Supported dtypes, for the operator table (docs/DTYPES.md).
pub const CATALOG: &[Entry] = &[
    Entry {
        ops: "All",
        a: LOGICAL_IN,
        b: &[],
        out: ALL_OUT,
        rule: "every element over dims non-zero; empty → true",
    },
    Entry {
        ops: "Any",
        a: LOGICAL_IN,
        b: &[],
        out: ANY_OUT,
        rule: "any element over dims non-zero; empty → false",
    },
    Entry {
        ops: "Prod, ProdDim",
        a: PROD,
        b: &[],
        out: PROD,
        rule: "product in dtype (f64 / wrapping i64 accumulation), out dtype = dtype",
    },
    Entry {
        ops: "Var, VarCorrection, Std, VarMean, StdMeanCorrection",
        a: MOMENTS,
        b: &[],
        out: MOMENTS,
        rule: "two-pass f64, divisor max(0, n − correction); empty → NaN",
    },
    Entry {
        ops: "LogSumExp",
        a: LSE_IN,
        b: &[],
        out: LSE_OUT,
        rule: "ln Σ exp(x − max) + max in f32",
    },
    Entry {
        ops: "ReduceLogSum",
        a: LOG_SUM,
        b: &[],
        out: LOG_SUM,
        rule: "ln Σ, out dtype = data dtype; empty data → 0",
    },
    Entry {
        ops: "ReduceNansum",
        a: NANSUM,
        b: &[],
        out: NANSUM,
        rule: "sum in dtype with NaN as 0, out dtype = dtype",
    },
    Entry {
        ops: "MaxV2",
        a: MAX_V2,
        b: &[],
        out: MAX_V2,
        rule: "max over dims, NaN propagates; noop copies",
    },
];
