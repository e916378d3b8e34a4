//! ReduceSum, Mean, MeanV2, Amax, Amin, ArgMax, ArgMin, Softmax and LogSoftmax
//! (reference §5.6), on the reduction engine.
//!
//! dims: each in [-rank, rank-1] (a 0-d tensor counts as rank 1), no repeats; an empty
//! list means every axis (MeanV2 with noopWithEmptyAxes: none — a copy). keepDim keeps
//! reduced axes as size 1. ReduceSum converts self to `dtype` first and sums (out's dtype
//! must be `dtype`); Mean computes in `dtype` (self must cast to it, it to out). Sums and
//! means accumulate in f64 (integers in i64, complex in complex128) and round once: an
//! empty sum is 0, an empty mean NaN. Amax/Amin keep self's dtype, propagate NaN, and
//! refuse a reduced axis of size 0. ArgMax/ArgMin give the first index of the max/min
//! (a NaN counts as the max and the min); they take no bool (CANN's A2 lists), and over a
//! reduced axis of size 0 ArgMin is refused while ArgMax succeeds without writing out (CANN's
//! A2 code returns before any work for an empty self). Softmax/LogSoftmax subtract the slice's max
//! (stable for large inputs); a NaN makes its slice NaN.

use super::catalog::Entry;
use super::elementwise::{self as ew, Arg};
use crate::dtype::{can_cast, DType};
use crate::engine::reduce::{Op, Plan, Reduce, Slice};
use crate::engine::{Params, Via};
use crate::error::{Error, Result};
use crate::executor::{Bindings, Executor, Nothing};
use crate::tensor::TensorDesc;

use DType::*;
const SUM: &[DType] = &[F16, F32, S8, S16, S32, S64, U8, Bool, F64, C64, C128, BF16];
const MEAN: &[DType] = &[F32, F16, BF16, F64, S32, S64, S16, S8, U8, C64, C128];
const EXTREMA: &[DType] = &[F32, F16, F64, S8, S16, S32, S64, U8, Bool, BF16];
const SOFTMAX: &[DType] = &[F16, F32, F64, BF16];
const INDEX: &[DType] = &[S32, S64];
/// ArgMax/ArgMin's self: CANN's A2 list (no bool, unlike Amax/Amin).
const INDEXED: &[DType] = &[F32, F16, F64, S8, S16, S32, S64, U8, BF16];

/// Normalised, sorted axes; `all_if_empty` turns an empty list into every axis.
pub fn axes(name: &str, dims: &[i64], rank: usize, all_if_empty: bool) -> Result<Vec<usize>> {
    if dims.is_empty() && all_if_empty {
        return Ok((0..rank).collect());
    }
    let r = rank.max(1) as i64;
    let mut out = Vec::new();
    for &d in dims {
        crate::ensure!(
            (-r..r).contains(&d),
            "{name} contains {d}, outside [{}, {}] for a tensor of {rank} dims",
            -r,
            r - 1
        );
        let a = d.rem_euclid(r) as usize;
        crate::ensure!(!out.contains(&a), "{name} {dims:?} repeats axis {a}");
        out.push(a);
    }
    out.retain(|a| *a < rank); // a 0-d tensor has no axis to reduce
    out.sort_unstable();
    Ok(out)
}

/// The reduced shape.
pub(super) fn reduced_shape(shape: &[usize], axes: &[usize], keep: bool) -> Vec<usize> {
    shape
        .iter()
        .enumerate()
        .filter_map(|(d, &n)| match (axes.contains(&d), keep) {
            (true, true) => Some(1),
            (true, false) => None,
            (false, _) => Some(n),
        })
        .collect()
}

/// The out view the reduction writes: `out` when it has the reduced shape. As CANN's check
/// (`CheckShapeAndScalarSame`) allows, a one-element out also takes a one-element result
/// whatever the two shapes (ggml sums everything into a [1] out, the result being 0-d): the
/// view is then seen with the result's shape.
pub(super) fn reduced_out(out: &TensorDesc, shape: &[usize]) -> Result<TensorDesc> {
    if out.shape[..] != shape[..] && out.numel() == 1 && shape.iter().product::<usize>() == 1 {
        out.check_output("out")?;
        let mut v = out.clone();
        v.shape = shape.iter().copied().collect();
        v.strides = shape.iter().map(|_| 0).collect();
        return Ok(v);
    }
    ew::check_result_shape("out", out, shape)?;
    Ok(out.clone())
}

fn executor(
    api: &'static str,
    op: Op,
    self_: &TensorDesc,
    axes: &[usize],
    value: Via,
    out: &TensorDesc,
) -> Executor {
    let bindings = Bindings {
        tensors: std::sync::Arc::new(vec![Some(self_.clone()), Some(out.clone())]),
        n_inputs: 1,
        outputs: smallvec::smallvec![1],
    };
    if out.is_empty() {
        return Executor::new(api, bindings, Nothing);
    }
    let plan = Plan::new(op, self_, 0, axes, value, out, 1);
    Executor::new(api, bindings, plan)
}

/// aclnnReduceSum.
pub fn reduce_sum(
    self_: &TensorDesc,
    dims: &[i64],
    keep: bool,
    dtype: i32,
    out: &TensorDesc,
) -> Result<Executor> {
    ew::check_tensor("self", self_, SUM)?;
    let d = DType::from_raw(dtype).map_err(|e| Error::Invalid(format!("argument 'dtype': {e}")))?;
    crate::ensure!(SUM.contains(&d), "dtype {d} is not supported");
    ew::check_tensor("out", out, SUM)?;
    crate::ensure!(
        out.dtype == d,
        "out has dtype {} but dtype is {d}; they must be equal",
        out.dtype
    );
    let ax = axes("dims", dims, self_.rank(), true)?;
    let out = &reduced_out(out, &reduced_shape(&self_.shape, &ax, keep))?;
    Ok(executor(
        "aclnnReduceSum",
        Op::Reduce(Reduce::Sum),
        self_,
        &ax,
        Via::exact(d),
        out,
    ))
}

fn mean_impl(
    api: &'static str,
    self_: &TensorDesc,
    dims: &[i64],
    keep: bool,
    value: DType,
    out: &TensorDesc,
    noop_if_empty: bool,
) -> Result<Executor> {
    ew::check_tensor("self", self_, MEAN)?;
    ew::check_tensor("out", out, MEAN)?;
    crate::ensure!(MEAN.contains(&value), "dtype {value} is not supported");
    crate::ensure!(
        can_cast(self_.dtype, value),
        "self dtype {} cannot be cast to dtype {value}",
        self_.dtype
    );
    ew::check_out_cast(value, "out", out)?;
    if dims.is_empty() && noop_if_empty {
        ew::check_out_shape(value, &[("self", &self_.shape)], "out", out)?;
        let v = Via::exact(out.dtype);
        return ew::executor(
            api,
            &[Arg::Tensor("self", self_)],
            &[v],
            "out",
            out,
            v,
            super::copy::copy_kernel(out.dtype),
            Params::default(),
            false,
        );
    }
    let ax = axes("dim", dims, self_.rank(), true)?;
    let out = &reduced_out(out, &reduced_shape(&self_.shape, &ax, keep))?;
    crate::ensure!(
        !(ax.iter().any(|&a| self_.shape[a] == 0) && out.dtype.is_complex()),
        "the mean over an empty axis is NaN, which a complex out ({}) cannot hold",
        out.dtype
    );
    Ok(executor(
        api,
        Op::Reduce(Reduce::Mean),
        self_,
        &ax,
        Via::exact(value),
        out,
    ))
}

/// aclnnMean: the mean in `dtype`.
pub fn mean(
    self_: &TensorDesc,
    dims: &[i64],
    keep: bool,
    dtype: i32,
    out: &TensorDesc,
) -> Result<Executor> {
    let d = DType::from_raw(dtype).map_err(|e| Error::Invalid(format!("argument 'dtype': {e}")))?;
    mean_impl("aclnnMean", self_, dims, keep, d, out, false)
}

/// aclnnMeanV2: the mean in self's dtype, which out must have (CANN's A2 code:
/// `CheckDtypeValidONNX`, OP_CHECK_DTYPE_NOT_SAME; doc: out's dtype 需要和self一致); with no
/// dims and noopWithEmptyAxes, a copy.
pub fn mean_v2(
    self_: &TensorDesc,
    dims: &[i64],
    keep: bool,
    noop_with_empty_axes: bool,
    out: &TensorDesc,
) -> Result<Executor> {
    ew::check_tensor("self", self_, MEAN)?;
    ew::check_tensor("out", out, MEAN)?;
    crate::ensure!(
        out.dtype == self_.dtype,
        "out has dtype {} but must have self's dtype {}",
        out.dtype,
        self_.dtype
    );
    mean_impl(
        "aclnnMeanV2",
        self_,
        dims,
        keep,
        out.dtype,
        out,
        noop_with_empty_axes,
    )
}

fn extremum(
    api: &'static str,
    how: Reduce,
    self_: &TensorDesc,
    dims: &[i64],
    keep: bool,
    out: &TensorDesc,
) -> Result<Executor> {
    ew::check_tensor("self", self_, EXTREMA)?;
    ew::check_tensor("out", out, EXTREMA)?;
    crate::ensure!(
        out.dtype == self_.dtype,
        "out has dtype {} but must have self's dtype {}",
        out.dtype,
        self_.dtype
    );
    let ax = axes("dim", dims, self_.rank(), true)?;
    for &a in &ax {
        crate::ensure!(
            self_.shape[a] > 0,
            "axis {a} of self {:?} has size 0: it has no maximum or minimum",
            self_.shape
        );
    }
    let out = &reduced_out(out, &reduced_shape(&self_.shape, &ax, keep))?;
    Ok(executor(
        api,
        Op::Reduce(how),
        self_,
        &ax,
        Via::exact(self_.dtype),
        out,
    ))
}

/// aclnnMax: the maximum of every element (NaN propagates; an empty self is refused), into
/// a one-element out (0-d or [1]) of self's dtype.
pub fn max(self_: &TensorDesc, out: &TensorDesc) -> Result<Executor> {
    extremum("aclnnMax", Reduce::Max, self_, &[], false, out)
}

/// aclnnMin: the minimum of every element, as Max.
pub fn min(self_: &TensorDesc, out: &TensorDesc) -> Result<Executor> {
    extremum("aclnnMin", Reduce::Min, self_, &[], false, out)
}

/// aclnnAmax.
pub fn amax(self_: &TensorDesc, dims: &[i64], keep: bool, out: &TensorDesc) -> Result<Executor> {
    extremum("aclnnAmax", Reduce::Max, self_, dims, keep, out)
}

/// aclnnAmin.
pub fn amin(self_: &TensorDesc, dims: &[i64], keep: bool, out: &TensorDesc) -> Result<Executor> {
    extremum("aclnnAmin", Reduce::Min, self_, dims, keep, out)
}

fn arg(
    api: &'static str,
    how: Reduce,
    self_: &TensorDesc,
    dim: i64,
    keep: bool,
    out: &TensorDesc,
) -> Result<Executor> {
    ew::check_tensor("self", self_, INDEXED)?;
    ew::check_tensor("out", out, INDEX)?;
    let ax = axes("dim", &[dim], self_.rank(), false)?;
    let empty_axis = ax.iter().any(|&a| self_.shape[a] == 0);
    crate::ensure!(
        !(empty_axis && matches!(how, Reduce::ArgMin)),
        "axis {} of self {:?} has size 0: it has no minimum",
        ax[0],
        self_.shape
    );
    let out = &reduced_out(out, &reduced_shape(&self_.shape, &ax, keep))?;
    if empty_axis {
        // ArgMax over an empty axis: success, out is not written (as on the device).
        let bindings = Bindings {
            tensors: std::sync::Arc::new(vec![Some(self_.clone()), Some(out.clone())]),
            n_inputs: 1,
            outputs: smallvec::smallvec![1],
        };
        return Ok(Executor::new(api, bindings, Nothing));
    }
    Ok(executor(
        api,
        Op::Reduce(how),
        self_,
        &ax,
        Via::exact(self_.dtype),
        out,
    ))
}

/// aclnnArgMax: the index of the first maximum along `dim`.
pub fn argmax(self_: &TensorDesc, dim: i64, keep: bool, out: &TensorDesc) -> Result<Executor> {
    arg("aclnnArgMax", Reduce::ArgMax, self_, dim, keep, out)
}

/// aclnnArgMin: the index of the first minimum along `dim`.
pub fn argmin(self_: &TensorDesc, dim: i64, keep: bool, out: &TensorDesc) -> Result<Executor> {
    arg("aclnnArgMin", Reduce::ArgMin, self_, dim, keep, out)
}

fn slice(
    api: &'static str,
    how: Slice,
    self_: &TensorDesc,
    dim: i64,
    out: &TensorDesc,
) -> Result<Executor> {
    ew::check_tensor("self", self_, SOFTMAX)?;
    ew::check_tensor("out", out, SOFTMAX)?;
    ew::check_out_cast(self_.dtype, "out", out)?;
    let ax = axes("dim", &[dim], self_.rank(), false)?;
    let out = &reduced_out(out, &self_.shape)?;
    Ok(executor(
        api,
        Op::Slice(how),
        self_,
        &ax,
        Via::exact(self_.dtype),
        out,
    ))
}

/// aclnnSoftmax along `dim`.
pub fn softmax(self_: &TensorDesc, dim: i64, out: &TensorDesc) -> Result<Executor> {
    slice("aclnnSoftmax", Slice::Softmax, self_, dim, out)
}

/// aclnnLogSoftmax along `dim`.
pub fn log_softmax(self_: &TensorDesc, dim: i64, out: &TensorDesc) -> Result<Executor> {
    slice("aclnnLogSoftmax", Slice::LogSoftmax, self_, dim, out)
}

/// Supported dtypes, for the operator table (docs/DTYPES.md).
pub const CATALOG: &[Entry] = &[
    Entry {
        ops: "ReduceSum",
        a: SUM,
        b: &[],
        out: SUM,
        rule: "sum over dims (f64 accumulation), out dtype = dtype",
    },
    Entry {
        ops: "Mean",
        a: MEAN,
        b: &[],
        out: MEAN,
        rule: "mean over dims in dtype; empty → NaN",
    },
    Entry {
        ops: "MeanV2",
        a: MEAN,
        b: &[],
        out: MEAN,
        rule: "mean over dims, out dtype = self dtype; empty → NaN",
    },
    Entry {
        ops: "Amax, Amin",
        a: EXTREMA,
        b: &[],
        out: EXTREMA,
        rule: "max/min over dims, NaN propagates",
    },
    Entry {
        ops: "Max, Min",
        a: EXTREMA,
        b: &[],
        out: EXTREMA,
        rule: "max/min of every element into one, NaN propagates",
    },
    Entry {
        ops: "ArgMax, ArgMin",
        a: INDEXED,
        b: &[],
        out: INDEX,
        rule: "first index of the max/min along dim",
    },
    Entry {
        ops: "Softmax, LogSoftmax",
        a: SOFTMAX,
        b: &[],
        out: SOFTMAX,
        rule: "along dim, max-subtracted",
    },
];

#[cfg(test)]
mod tests {
    use crate::executor::{Executor, Workspace};
    use crate::tensor::TensorDesc;

    /// A tensor over `v` (written through the pointer, so `v` is taken mutably).
    fn t(v: &mut [f32], shape: &[i64]) -> TensorDesc {
        TensorDesc::new(shape, 0, None, 0, 2, shape, v.as_mut_ptr() as usize).unwrap()
    }

    fn run(e: Executor) {
        let mut ws = vec![0u64; (e.workspace_size() as usize).div_ceil(8) + 8];
        e.work
            .run(
                &e.bindings,
                Workspace {
                    addr: ws.as_mut_ptr() as usize,
                    size: (ws.len() * 8) as u64,
                },
            )
            .unwrap();
    }

    #[test]
    fn reductions_on_a_2x3_matrix() {
        let mut x = [1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0];
        let x23 = t(&mut x, &[2, 3]);
        let (mut o1, mut o2, mut o3, mut sm) = ([0f32; 1], [0f32; 2], [0f32; 3], [0f32; 6]);
        run(super::reduce_sum(&x23, &[1], false, 0, &t(&mut o2, &[2])).unwrap());
        assert_eq!(o2, [6.0, 15.0]);
        run(super::reduce_sum(&x23, &[-2], false, 0, &t(&mut o3, &[3])).unwrap());
        assert_eq!(o3, [5.0, 7.0, 9.0]);
        run(super::mean(&x23, &[], true, 0, &t(&mut o1, &[1, 1])).unwrap());
        assert_eq!(o1, [3.5]);
        run(super::amax(&x23, &[0], false, &t(&mut o3, &[3])).unwrap());
        assert_eq!(o3, [4.0, 5.0, 6.0]);
        let mut idx = [7i64; 2];
        let it = TensorDesc::new(&[2], 9, None, 0, 2, &[2], idx.as_mut_ptr() as usize).unwrap();
        run(super::argmin(&x23, 1, false, &it).unwrap());
        assert_eq!(idx, [0, 0]);
        run(super::softmax(&x23, -1, &t(&mut sm, &[2, 3])).unwrap());
        let e = [
            1f64,
            std::f64::consts::E,
            std::f64::consts::E * std::f64::consts::E,
        ];
        let s: f64 = e.iter().sum();
        for i in 0..6 {
            assert!((sm[i] as f64 - e[i % 3] / s).abs() < 1e-7, "{sm:?}");
        }
        // Errors: a repeated dim, a dim out of range, a wrong out shape.
        assert!(super::reduce_sum(&x23, &[1, -1], false, 0, &t(&mut o2, &[2])).is_err());
        assert!(super::reduce_sum(&x23, &[2], false, 0, &t(&mut o2, &[2])).is_err());
        assert!(super::reduce_sum(&x23, &[1], true, 0, &t(&mut o2, &[2])).is_err());
    }

    /// Sums and means over leading axes (the column layout: the contiguous dim is kept,
    /// blocks of outputs accumulate whole rows), against a plain f64 loop: several blocks,
    /// a partial last block, kept outer dims, keepDim, an i32 input summed in i64, and row
    /// groups (the sums are exact in f64 here, so any order must give the loop's result).
    #[test]
    fn sums_over_leading_axes_match_a_plain_loop() {
        for (shape, dims) in [
            (vec![7usize, 2100], vec![0i64]),
            (vec![5, 3, 1100], vec![0, 1]),
            (vec![4, 3, 40], vec![1]),
            (vec![3, 4, 2, 17], vec![0, 2]),
            // Enough rows for groups of rows summed separately, then added in order.
            (vec![1300, 40], vec![0]),
            (vec![600, 3, 70], vec![0, 1]),
            (vec![2, 2100, 33], vec![1]),
            (vec![5000, 17], vec![0]),
        ] {
            let n: usize = shape.iter().product();
            let mut x: Vec<f32> = (0..n)
                .map(|i| ((i * 7919) % 1000) as f32 / 7.0 - 60.0)
                .collect();
            let mut xi: Vec<i32> = (0..n)
                .map(|i| ((i * 7919) % 2001) as i32 - 1000 + i32::MAX / 4)
                .collect();
            let rank = shape.len();
            let reduced: Vec<usize> = dims.iter().map(|&d| d as usize).collect();
            let kept: Vec<usize> = (0..rank).filter(|d| !reduced.contains(d)).collect();
            let out_n: usize = kept.iter().map(|&d| shape[d]).product();
            let count = n / out_n;
            // Reference: every input element added to the output its kept indices name.
            let (mut want, mut want_i) = (vec![0f64; out_n], vec![0i64; out_n]);
            for (i, (&v, &vi)) in x.iter().zip(&xi).enumerate() {
                let mut rem = i;
                let mut idx = vec![0; rank];
                for d in (0..rank).rev() {
                    idx[d] = rem % shape[d];
                    rem /= shape[d];
                }
                let o = kept.iter().fold(0, |a, &d| a * shape[d] + idx[d]);
                want[o] += v as f64;
                want_i[o] = want_i[o].wrapping_add(vi as i64);
            }
            let ishape: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
            let oshape: Vec<i64> = kept.iter().map(|&d| shape[d] as i64).collect();
            let keep_shape: Vec<i64> = (0..rank)
                .map(|d| {
                    if reduced.contains(&d) {
                        1
                    } else {
                        shape[d] as i64
                    }
                })
                .collect();
            let xt = t(&mut x, &ishape);
            let mut sum = vec![0f32; out_n];
            run(super::reduce_sum(&xt, &dims, false, 0, &t(&mut sum, &oshape)).unwrap());
            let mut mean = vec![0f32; out_n];
            run(super::mean(&xt, &dims, true, 0, &t(&mut mean, &keep_shape)).unwrap());
            for o in 0..out_n {
                assert_eq!(sum[o], want[o] as f32, "{shape:?} {dims:?} sum[{o}]");
                assert_eq!(
                    mean[o],
                    (want[o] / count as f64) as f32,
                    "{shape:?} {dims:?} mean[{o}]"
                );
            }
            let xit =
                TensorDesc::new(&ishape, 3, None, 0, 2, &ishape, xi.as_mut_ptr() as usize).unwrap();
            let mut si = vec![0i64; out_n];
            let st =
                TensorDesc::new(&oshape, 9, None, 0, 2, &oshape, si.as_mut_ptr() as usize).unwrap();
            run(super::reduce_sum(&xit, &dims, false, 9, &st).unwrap());
            assert_eq!(si, want_i, "{shape:?} {dims:?} i32 -> i64 sums");
        }
    }
}
