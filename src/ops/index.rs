//! Index-driven copies along one dim, as rules on the gather engine (`gather.rs`):
//!
//! - IndexSelect (aclnnIndexSelect.md): `out[.., i, ..] = self[.., index[i], ..]`, index
//!   0-D or 1-D, values in [0, n).
//! - GatherV2 (aclnnGatherV2.md): out's dims are self's with `dim` replaced by index's
//!   dims; CANN's kernel runs with negative indices allowed: values in [-n, n) wrap.
//! - Embedding (aclnnEmbedding.md): rows of a 2-D weight, `out = weight[indices]`, values
//!   in [0, rows).
//! - IndexCopy, InplaceIndexCopy (aclnnIndexCopy&aclnnInplaceIndexCopy.md):
//!   `out = self; out[.., index[i], ..] = source[.., i, ..]`; duplicates: the last wins.
//! - IndexFillTensor, InplaceIndexFillTensor: `out = self; out[.., index[i], ..] = value`,
//!   index an aclIntArray (checked here, at phase 1; negatives wrap as CANN does).
//!
//! Moves are exact (bit copies; a bool is written as 0/1). Index tensors are read at
//! phase 2: an out-of-range value fails the run before anything is written (see gather.rs).

use super::catalog::Entry;
use super::copy::convert_into;
use super::elementwise::{self as ew, Arg};
use super::gather::{
    may_overlap, placed, GatherWork, Index, IndexSource, Plan, Reduce, Side, Values, Walk,
};
use crate::dtype::DType;
use crate::error::Result;
use crate::executor::{Bindings, Executor, Nothing, Sequence, Work, Workspace};
use crate::scalar::Scalar;
use crate::tensor::{Dims, Strides, TensorDesc};
use std::sync::Arc;

use DType::*;
/// Index dtypes of every operator here.
pub(crate) const INDEX: &[DType] = &[S32, S64];
/// The Atlas A2 lists of aclnnIndexSelect.md, aclnnGatherV2.md, aclnnEmbedding.md,
/// aclnnIndexCopy.md and aclnnIndexFillTensor.md.
const INDEX_SELECT: &[DType] = &[
    F32, F16, BF16, S64, S32, S16, S8, U8, U16, U32, U64, Bool, F64, C64, C128,
];
const GATHER_V2: &[DType] = &[F32, F16, S64, S32, S16, S8, U8, Bool, F64, C64, C128, BF16];
/// aclnnGatherV3.md.
const GATHER_V3: &[DType] = &[F32, F16, S64, S32, S16, S8, U8, Bool, F64, C64];
const EMBEDDING: &[DType] = &[BF16, F32, F16, S64, S32, S16, S8, U8, Bool, F64, C64, C128];
const INDEX_COPY: &[DType] = &[F32, BF16, F16, S32, S64, S16, S8, U8, F64, Bool, C128, C64];
const INDEX_FILL: &[DType] = &[S32, F16, F32, S64, Bool, BF16];
/// aclnnIndexAdd.md.
const INDEX_ADD: &[DType] = &[F32, F16, S32, S16, S8, U8, F64, S64, Bool, BF16];
/// aclnnGather.md and aclnnTake.md.
const GATHER: &[DType] = &[
    F64, F16, BF16, F32, S32, U32, S64, U64, S16, U16, S8, U8, Bool,
];
const TAKE: &[DType] = &[
    U64, S64, U32, F32, S32, U16, S16, F16, BF16, S8, U8, F64, C64, C128, Bool,
];

/// A 0-d view as the 1-D view of its one element (the shape CANN's kernels see).
pub(crate) fn as_1d(t: &TensorDesc) -> TensorDesc {
    let mut v = t.clone();
    if v.rank() == 0 {
        v.shape = smallvec::smallvec![1];
        v.strides = smallvec::smallvec![1];
    }
    v
}

/// Bindings `inputs` then `out` (or, in place, the first input as the output).
pub(crate) fn bindings(inputs: &[&TensorDesc], out: Option<&TensorDesc>) -> Bindings {
    let mut tensors: Vec<Option<TensorDesc>> = inputs.iter().map(|t| Some((*t).clone())).collect();
    let n_inputs = tensors.len();
    let o = match out {
        Some(o) => {
            tensors.push(Some(o.clone()));
            n_inputs
        }
        None => 0,
    };
    Bindings {
        tensors: Arc::new(tensors),
        n_inputs,
        outputs: smallvec::smallvec![o],
    }
}

/// `name` and `out` share no memory (the engine reads inputs while it writes).
pub(crate) fn apart(
    api: &str,
    name: &str,
    t: &TensorDesc,
    out_name: &str,
    out: &TensorDesc,
) -> Result<()> {
    crate::ensure!(
        !may_overlap(t, out),
        "{name} ({}) overlaps {out_name} ({}): {api} needs them in separate memory",
        t.describe(),
        out.describe()
    );
    Ok(())
}

/// `dim` in [-r, r) for r = max(rank, 1) (a 0-d tensor has one dim to name, as CANN treats it).
fn dim_of(name: &str, dim: i64, rank: usize, what: &str) -> Result<usize> {
    ew::axis(name, dim, rank.max(1), what)
}

/// The gather `out = src[.., index[..], ..]` along src's `ax`: src dim d is iteration dim
/// `src_at[d]` (ax's entry unused), index dim j is iteration dim `idx_at[j]`; iteration
/// space = out's (1-D if 0-d). Bindings: [src, index, out].
#[allow(clippy::too_many_arguments)]
fn gather_plan(
    api: &'static str,
    src: &TensorDesc,
    ax: usize,
    index: &TensorDesc,
    src_at: &[usize],
    idx_at: &[usize],
    out: &TensorDesc,
    wrap: bool,
    names: (&'static str, &'static str),
) -> Result<Executor> {
    let b = bindings(&[src, index], Some(out));
    if src.is_empty() || index.is_empty() || out.is_empty() {
        return Ok(Executor::new(api, b, Nothing));
    }
    out.check_output("out")?;
    apart(api, names.1, src, "out", out)?;
    apart(api, names.0, index, "out", out)?;
    let (s, i, o) = (as_1d(src), as_1d(index), as_1d(out));
    let rank = o.rank();
    let mut src_strides: Strides = smallvec::smallvec![0; rank];
    for (d, &at) in src_at.iter().enumerate() {
        if d != ax {
            src_strides[at] = s.strides[d];
        }
    }
    let plan = Plan {
        shape: o.shape.clone(),
        parallel: rank,
        dst: Walk::new(2, &o, o.strides.clone()),
        values: Values::Tensor(Walk::new(0, &s, src_strides)),
        index: Index {
            source: IndexSource::Tensor {
                walk: Walk::new(1, &i, placed(&i, idx_at, rank)),
                dtype: index.dtype,
            },
            side: Side::Source,
            axis: super::gather::Axis::Dim {
                size: s.shape[ax],
                stride: s.strides[ax],
            },
            wrap,
            skip_outside: false,
            name: names.0,
            target: format!("dim {ax} of {} (size {})", names.1, s.shape[ax]),
        },
        dtype: src.dtype,
        reduce: Reduce::Copy,
    };
    Ok(Executor::new(api, b, GatherWork { api, plan }))
}

/// Checks out's shape equals `of`'s.
pub(crate) fn same_shape(
    out_name: &str,
    out: &TensorDesc,
    of_name: &str,
    of: &TensorDesc,
) -> Result<()> {
    crate::ensure!(
        out.shape == of.shape,
        "{out_name} has shape {:?} but must have {of_name}'s shape {:?}",
        out.shape,
        of.shape
    );
    Ok(())
}

/// The executor of an operator planned as an optional `plan` on its output: out of place
/// (`out` given) `out = self` first, in place the plan alone (or nothing).
pub(crate) fn planned(
    api: &'static str,
    b: Bindings,
    self_: &TensorDesc,
    out: Option<&TensorDesc>,
    plan: Option<Plan>,
) -> Result<Executor> {
    match (out, plan) {
        (Some(o), plan) => copy_then(api, b, self_, o, plan),
        (None, Some(plan)) => Ok(Executor::new(api, b, GatherWork { api, plan })),
        (None, None) => Ok(Executor::new(api, b, Nothing)),
    }
}

/// Checks out's dtype equals `of`'s.
pub(crate) fn same_dtype(
    out_name: &str,
    out: &TensorDesc,
    of_name: &str,
    of: &TensorDesc,
) -> Result<()> {
    crate::ensure!(
        out.dtype == of.dtype,
        "{out_name} has dtype {} but must have {of_name}'s dtype {}",
        out.dtype,
        of.dtype
    );
    Ok(())
}

/// aclnnIndexSelect.
pub fn index_select(
    self_: &TensorDesc,
    dim: i64,
    index: &TensorDesc,
    out: &TensorDesc,
) -> Result<Executor> {
    const API: &str = "aclnnIndexSelect";
    ew::check_tensor("self", self_, INDEX_SELECT)?;
    same_dtype("out", out, "self", self_)?;
    ew::check_tensor("index", index, INDEX)?;
    ew::check_tensor("out", out, INDEX_SELECT)?;
    let rank = self_.rank();
    crate::ensure!(
        rank > 0 || out.rank() == 0,
        "self is a scalar (0 dims), so out must be one too, but it has shape {:?}",
        out.shape
    );
    let ax = dim_of("dim", dim, rank, "self")?;
    crate::ensure!(
        index.rank() <= 1,
        "index has {} dims; it must be 0-D or 1-D",
        index.rank()
    );
    let k = index.numel();
    if rank == 0 {
        crate::ensure!(
            k == 1 || index.is_empty(),
            "self is a scalar (0 dims), so index must have one element, but it has {k}"
        );
    }
    if !self_.is_empty() && !index.is_empty() {
        let mut want: Dims = self_.shape.clone();
        if rank > 0 {
            want[ax] = k;
        }
        ew::check_result_shape("out", out, &want)?;
    }
    let r = rank.max(1);
    let all: Vec<usize> = (0..r).collect();
    gather_plan(
        API,
        self_,
        ax,
        index,
        &all,
        &[ax],
        out,
        false,
        ("index", "self"),
    )
}

/// aclnnGatherV2.
pub fn gather_v2(
    self_: &TensorDesc,
    dim: i64,
    index: &TensorDesc,
    out: &TensorDesc,
) -> Result<Executor> {
    along_index_dims("aclnnGatherV2", GATHER_V2, true, self_, dim, index, out)
}

/// aclnnGatherV3 (aclnnGatherV3.md): GatherV2 with index values in [0, n). Atlas A2 runs
/// only dim 0 and batchDims 0 (others are refused, as the doc says); `mode` picks a device
/// kernel (0..=2) and changes no result.
pub fn gather_v3(
    self_: &TensorDesc,
    dim: i64,
    index: &TensorDesc,
    batch_dims: i64,
    mode: i64,
    out: &TensorDesc,
) -> Result<Executor> {
    crate::ensure!((0..=2).contains(&mode), "mode {mode} is not one of 0, 1, 2");
    crate::ensure!(
        batch_dims == 0,
        "batchDims {batch_dims} is not supported: Atlas A2 supports batchDims 0 only"
    );
    crate::ensure!(
        self_.rank() > 0 && (dim == 0 || dim == -(self_.rank() as i64)),
        "dim {dim} is not supported: Atlas A2 gathers along dim 0 only (self has {} dims)",
        self_.rank()
    );
    along_index_dims("aclnnGatherV3", GATHER_V3, false, self_, dim, index, out)
}

/// GatherV2 and GatherV3: self's `dim` replaced by index's dims (`wrap`: negative values
/// count from the end).
fn along_index_dims(
    api: &'static str,
    dtypes: &[DType],
    wrap: bool,
    self_: &TensorDesc,
    dim: i64,
    index: &TensorDesc,
    out: &TensorDesc,
) -> Result<Executor> {
    same_dtype("out", out, "self", self_)?;
    ew::check_tensor("self", self_, dtypes)?;
    ew::check_tensor("index", index, INDEX)?;
    let rank = self_.rank();
    let ax = dim_of("dim", dim, rank, "self")?;
    let q = index.rank().max(1);
    let idx_shape: Dims = if index.rank() == 0 {
        smallvec::smallvec![1]
    } else {
        index.shape.clone()
    };
    let want: Dims = if rank == 0 {
        Dims::new()
    } else {
        self_.shape[..ax]
            .iter()
            .chain(idx_shape.iter())
            .chain(self_.shape[ax + 1..].iter())
            .copied()
            .collect()
    };
    crate::ensure!(
        want.len() <= ew::MAX_DIMS,
        "out would have {} dims (self's {rank} with dim {ax} replaced by index's {q}); at most {} are supported",
        want.len(),
        ew::MAX_DIMS
    );
    ew::check_tensor("out", out, dtypes)?;
    ew::check_result_shape("out", out, &want)?;
    if rank == 0 {
        // One element: out (0-d) takes self's element if index's first value is 0 or -1.
        return gather_plan(
            api,
            self_,
            0,
            index,
            &[0],
            &[],
            out,
            wrap,
            ("index", "self"),
        );
    }
    let src_at: Vec<usize> = (0..rank)
        .map(|d| if d < ax { d } else { d + q - 1 })
        .collect();
    let idx_at: Vec<usize> = (ax..ax + q).collect();
    gather_plan(
        api,
        self_,
        ax,
        index,
        &src_at,
        &idx_at,
        out,
        wrap,
        ("index", "self"),
    )
}

/// aclnnEmbedding.
pub fn embedding(weight: &TensorDesc, indices: &TensorDesc, out: &TensorDesc) -> Result<Executor> {
    const API: &str = "aclnnEmbedding";
    ew::check_tensor("weight", weight, EMBEDDING)?;
    same_dtype("out", out, "weight", weight)?;
    ew::check_tensor("indices", indices, INDEX)?;
    ew::check_tensor("out", out, EMBEDDING)?;
    crate::ensure!(
        weight.rank() == 2,
        "weight has {} dims; the embedding matrix must be 2-D",
        weight.rank()
    );
    let q = indices.rank();
    let want: Dims = indices
        .shape
        .iter()
        .chain(&weight.shape[1..])
        .copied()
        .collect();
    crate::ensure!(
        out.rank() == q + 1,
        "out has {} dims but must have one more than indices ({q})",
        out.rank()
    );
    ew::check_result_shape("out", out, &want)?;
    let idx_at: Vec<usize> = (0..q).collect();
    if q == 0 {
        // A 0-d index: out is the row itself.
        return gather_plan(
            API,
            weight,
            0,
            indices,
            &[0, 0],
            &[],
            out,
            false,
            ("indices", "weight"),
        );
    }
    gather_plan(
        API,
        weight,
        0,
        indices,
        &[0, q],
        &idx_at,
        out,
        false,
        ("indices", "weight"),
    )
}

/// aclnnGather (ONNX GatherElements, torch.gather): `out[p] = self[p with p[dim] = index[p]]`;
/// index values in [-n, n) (negatives wrap, aclnnGather.md).
pub fn gather(
    self_: &TensorDesc,
    dim: i64,
    index: &TensorDesc,
    out: &TensorDesc,
) -> Result<Executor> {
    const API: &str = "aclnnGather";
    ew::check_tensor("self", self_, GATHER)?;
    ew::check_tensor("index", index, INDEX)?;
    ew::check_tensor("out", out, GATHER)?;
    same_dtype("out", out, "self", self_)?;
    let r = self_.rank();
    crate::ensure!(
        index.rank() == r,
        "self has {r} dims and index {}: they must have the same number",
        index.rank()
    );
    ew::check_result_shape("out", out, &index.shape)?;
    let ax = dim_of("dim", dim, r, "self")?;
    for d in (0..r).filter(|&d| d != ax) {
        crate::ensure!(
            index.shape[d] <= self_.shape[d],
            "index {:?} is larger than self {:?} in dim {d}: only dim {ax} may be larger",
            index.shape,
            self_.shape
        );
    }
    let all: Vec<usize> = (0..r.max(1)).collect();
    gather_plan(
        API,
        self_,
        ax,
        index,
        &all,
        &all,
        out,
        true,
        ("index", "self"),
    )
}

/// aclnnTake (torch.take): `out[p] = self.flatten()[index[p]]`, index values in
/// [0, numel) (aclnnTake.md: no negative indices).
pub fn take(self_: &TensorDesc, index: &TensorDesc, out: &TensorDesc) -> Result<Executor> {
    const API: &str = "aclnnTake";
    ew::check_tensor("self", self_, TAKE)?;
    ew::check_tensor("index", index, INDEX)?;
    ew::check_tensor("out", out, TAKE)?;
    same_dtype("out", out, "self", self_)?;
    ew::check_result_shape("out", out, &index.shape)?;
    let b = bindings(&[self_, index], Some(out));
    if out.is_empty() {
        return Ok(Executor::new(API, b, Nothing));
    }
    apart(API, "self", self_, "out", out)?;
    apart(API, "index", index, "out", out)?;
    let (s, i, o) = (as_1d(self_), as_1d(index), as_1d(out));
    let plan = Plan {
        shape: o.shape.clone(),
        parallel: o.rank(),
        dst: Walk::new(2, &o, o.strides.clone()),
        values: Values::Tensor(Walk::new(0, &s, smallvec::smallvec![0; o.rank()])),
        index: Index {
            source: IndexSource::Tensor {
                walk: Walk::new(1, &i, i.strides.clone()),
                dtype: index.dtype,
            },
            side: Side::Source,
            axis: super::gather::Axis::Flat {
                shape: s.shape.clone(),
                strides: s.strides.clone(),
            },
            wrap: false,
            skip_outside: false,
            name: "index",
            target: format!("the {} elements of self", self_.numel()),
        },
        dtype: self_.dtype,
        reduce: Reduce::Copy,
    };
    Ok(Executor::new(API, b, GatherWork { api: API, plan }))
}

/// The most neighbouring elements of the last dim a scatter step moves (see scatter_plan).
const SCATTER_BLOCK: usize = 256;

/// The scatter `dst[.., index[i], ..] = values[.., i, ..]` along `ax` over an iteration
/// space of `shape` (values' shape), with `ax` walked last (in order: the last of equal
/// indices wins). `dst` is bound at `dst_binding`, values at `src_binding`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn scatter_plan(
    dst: &TensorDesc,
    dst_binding: usize,
    ax: usize,
    shape: &[usize],
    values: Values,
    values_strides: Option<&[isize]>,
    index: IndexSource,
    index_strides_at_ax: Option<Strides>,
    reduce: Reduce,
    names: (&'static str, String),
) -> Plan {
    let d = as_1d(dst);
    let rank = shape.len();
    // Iteration order: every dim but ax, then ax. When ax is not the last dim, the last dim
    // is cut into blocks of `block` and its block walked inside ax: [.., last / block, ax,
    // block]. Each task then moves `block` neighbouring elements per step along ax instead
    // of one element a row apart (a cache line and a page per element); every destination
    // element still receives its values in ax's order (the sums, and which of equal
    // indices wins, are unchanged).
    let order: Vec<usize> = (0..rank).filter(|&k| k != ax).chain([ax]).collect();
    // The largest block (a divisor of the last dim) that leaves tasks enough to share.
    let block = if rank >= 2 && ax != rank - 1 {
        let last = shape[rank - 1];
        let others: usize = order[..rank - 2].iter().map(|&k| shape[k]).product();
        let want = (crate::engine::pool().current_num_threads() * 4).min(others * last);
        (1..=SCATTER_BLOCK.min(last))
            .rev()
            .find(|b| last % b == 0 && others * (last / b) >= want)
            .unwrap_or(1)
    } else {
        1
    };
    let permute = |s: &[isize]| -> Strides {
        let p: Strides = order.iter().map(|&k| s[k]).collect();
        if block == 1 {
            return p;
        }
        // p ends [.., s_last, s_ax]
        let (s_last, s_ax) = (p[rank - 2], p[rank - 1]);
        let mut q: Strides = p[..rank - 2].iter().copied().collect();
        q.extend([s_last * block as isize, s_ax, s_last]);
        q
    };
    let iter_shape: Dims = if block == 1 {
        order.iter().map(|&k| shape[k]).collect()
    } else {
        let mut q: Dims = order[..rank - 2].iter().map(|&k| shape[k]).collect();
        q.extend([shape[rank - 1] / block, shape[ax], block]);
        q
    };
    let mut dst_strides = d.strides.clone();
    dst_strides[ax] = 0;
    let values = match values {
        Values::Tensor(w) => Values::Tensor(Walk {
            strides: permute(values_strides.unwrap_or(&w.strides)),
            ..w
        }),
        c => c,
    };
    let index = match index {
        IndexSource::Tensor { walk, dtype } => IndexSource::Tensor {
            walk: Walk {
                strides: permute(index_strides_at_ax.as_deref().unwrap_or(&walk.strides)),
                ..walk
            },
            dtype,
        },
        IndexSource::Host { values, strides } => IndexSource::Host {
            strides: permute(index_strides_at_ax.as_deref().unwrap_or(&strides)),
            values,
        },
    };
    Plan {
        shape: iter_shape,
        // every dim before ax (with a block, the blocks of the last dim too)
        parallel: rank - 1,
        dst: Walk::new(dst_binding, &d, permute(&dst_strides)),
        values,
        index: Index {
            source: index,
            side: Side::Destination,
            axis: super::gather::Axis::Dim {
                size: d.shape[ax],
                stride: d.strides[ax],
            },
            wrap: false,
            skip_outside: false,
            name: names.0,
            target: names.1,
        },
        dtype: dst.dtype,
        reduce,
    }
}

/// An out-of-place operator as `out = self` then the in-place `work` on out (bound at
/// `out_binding` of `b`).
pub(crate) fn copy_then(
    api: &'static str,
    b: Bindings,
    self_: &TensorDesc,
    out: &TensorDesc,
    work: Option<Plan>,
) -> Result<Executor> {
    let out_binding = b.outputs[0];
    let mut steps = Sequence::new();
    steps.push(
        convert_into(api, Arg::Tensor("self", self_), "out", out)?,
        &[0, out_binding],
    );
    let Some(plan) = work else {
        return Ok(Executor::new(api, b, steps));
    };
    // The index is checked before the copy: a failing run writes nothing.
    let index = plan.index.clone();
    let all: Vec<usize> = (0..b.tensors.len()).collect();
    steps.push(
        Executor::new(api, b.clone(), GatherWork { api, plan }),
        &all,
    );
    Ok(Executor::new(api, b, CheckedFirst { api, index, steps }))
}

/// A sequence whose index tensor is checked before its first step runs.
struct CheckedFirst {
    api: &'static str,
    index: Index,
    steps: Sequence,
}

impl Work for CheckedFirst {
    fn workspace_size(&self) -> u64 {
        self.steps.workspace_size()
    }
    fn check(&self, b: &Bindings) -> Result<()> {
        self.steps.check(b)
    }
    fn run(&self, b: &Bindings, ws: Workspace) -> Result<()> {
        self.index.check(self.api, b)?;
        self.steps.run(b, ws)
    }
    fn small(&self) -> bool {
        self.steps.small()
    }
}

/// What differs between IndexCopy and IndexAdd: names, dtypes, how source meets self.
struct AlongDim {
    api: &'static str,
    dtypes: &'static [DType],
    self_name: &'static str,
    out_name: &'static str,
    reduce: Reduce,
}

/// aclnnIndexCopy, aclnnInplaceIndexCopy (out None), aclnnIndexAdd(V2):
/// `out = self; out[.., index[i], ..] (op)= source[.., i, ..]` along dim.
fn along_dim_rule(
    k: AlongDim,
    self_ref: &TensorDesc,
    dim: i64,
    index: &TensorDesc,
    source: &TensorDesc,
    out: Option<&TensorDesc>,
) -> Result<Executor> {
    let AlongDim {
        api,
        dtypes,
        self_name,
        out_name,
        reduce,
    } = k;
    ew::check_tensor(self_name, self_ref, dtypes)?;
    ew::check_tensor("index", index, INDEX)?;
    same_dtype("source", source, self_name, self_ref)?;
    ew::check_tensor("source", source, dtypes)?;
    crate::ensure!(
        index.rank() <= 1,
        "index has {} dims; it must be 0-D or 1-D",
        index.rank()
    );
    if let Some(o) = out {
        same_dtype(out_name, o, self_name, self_ref)?;
        same_shape(out_name, o, self_name, self_ref)?;
    }
    let (rs, rsrc) = (self_ref.rank(), source.rank());
    crate::ensure!(
        rsrc > 0 || index.numel() == 1,
        "source is a scalar (0 dims), so index must have one element, but it has {}",
        index.numel()
    );
    crate::ensure!(
        rs == rsrc || rs == 0 || rsrc == 0,
        "{self_name} has {rs} dims and source {rsrc}: they must have the same number"
    );
    let ax = dim_of("dim", dim, rs, self_name)?;
    let (s1, src1) = (as_1d(self_ref), as_1d(source));
    crate::ensure!(
        s1.rank() == src1.rank(),
        "{self_name} {:?} and source {:?} must have the same number of dims",
        self_ref.shape,
        source.shape
    );
    for d in (0..s1.rank()).filter(|&d| d != ax) {
        crate::ensure!(
            s1.shape[d] == src1.shape[d],
            "{self_name} {:?} and source {:?} differ in dim {d}: only dim {ax} may differ",
            self_ref.shape,
            source.shape
        );
    }
    crate::ensure!(
        rsrc == 0 || index.numel() == src1.shape[ax],
        "index has {} elements but source has {} along dim {ax}: they must be equal",
        index.numel(),
        src1.shape[ax]
    );
    let dst = out.unwrap_or(self_ref);
    let b = bindings(&[self_ref, index, source], out);
    let dst_binding = b.outputs[0];
    if self_ref.is_empty() || dst.is_empty() {
        return Ok(Executor::new(api, b, Nothing));
    }
    dst.check_output(if out.is_some() { out_name } else { self_name })?;
    apart(api, "source", source, "the output", dst)?;
    apart(api, "index", index, "the output", dst)?;
    let plan = (!index.is_empty() && !source.is_empty()).then(|| {
        let i1 = as_1d(index);
        let mut idx: Strides = smallvec::smallvec![0; s1.rank()];
        idx[ax] = i1.strides[0];
        scatter_plan(
            dst,
            dst_binding,
            ax,
            &src1.shape,
            Values::Tensor(Walk::new(2, &src1, src1.strides.clone())),
            None,
            IndexSource::Tensor {
                walk: Walk::new(1, &i1, idx.clone()),
                dtype: index.dtype,
            },
            Some(idx),
            reduce,
            (
                "index",
                format!("dim {ax} of {self_name} (size {})", s1.shape[ax]),
            ),
        )
    });
    planned(api, b, self_ref, out, plan)
}

/// aclnnIndexCopy.
pub fn index_copy(
    self_ref: &TensorDesc,
    dim: i64,
    index: &TensorDesc,
    source: &TensorDesc,
    out_ref: &TensorDesc,
) -> Result<Executor> {
    along_dim_rule(
        copy_kind("aclnnIndexCopy"),
        self_ref,
        dim,
        index,
        source,
        Some(out_ref),
    )
}

/// aclnnInplaceIndexCopy.
pub fn inplace_index_copy(
    self_ref: &TensorDesc,
    dim: i64,
    index: &TensorDesc,
    source: &TensorDesc,
) -> Result<Executor> {
    along_dim_rule(
        copy_kind("aclnnInplaceIndexCopy"),
        self_ref,
        dim,
        index,
        source,
        None,
    )
}

fn copy_kind(api: &'static str) -> AlongDim {
    AlongDim {
        api,
        dtypes: INDEX_COPY,
        self_name: "selfRef",
        out_name: "outRef",
        reduce: Reduce::Copy,
    }
}

/// aclnnIndexAdd and aclnnIndexAddV2 (whose `mode` only chooses a device kernel).
fn index_add_rule(
    api: &'static str,
    self_: &TensorDesc,
    dim: i64,
    index: &TensorDesc,
    source: &TensorDesc,
    alpha: &Scalar,
    out: &TensorDesc,
) -> Result<Executor> {
    crate::ensure!(
        crate::dtype::can_cast(alpha.dtype, self_.dtype),
        "alpha has dtype {} which cannot be converted to self's dtype {}",
        alpha.dtype,
        self_.dtype
    );
    let k = AlongDim {
        api,
        dtypes: INDEX_ADD,
        self_name: "self",
        out_name: "out",
        reduce: Reduce::AddScaled(alpha.cast(self_.dtype)),
    };
    along_dim_rule(k, self_, dim, index, source, Some(out))
}

/// aclnnIndexAdd.
pub fn index_add(
    self_: &TensorDesc,
    dim: i64,
    index: &TensorDesc,
    source: &TensorDesc,
    alpha: &Scalar,
    out: &TensorDesc,
) -> Result<Executor> {
    index_add_rule("aclnnIndexAdd", self_, dim, index, source, alpha, out)
}

/// aclnnIndexAddV2: IndexAdd; `mode` (0: the device's high-performance kernel) changes no result.
pub fn index_add_v2(
    self_: &TensorDesc,
    dim: i64,
    index: &TensorDesc,
    source: &TensorDesc,
    alpha: &Scalar,
    _mode: i64,
    out: &TensorDesc,
) -> Result<Executor> {
    index_add_rule("aclnnIndexAddV2", self_, dim, index, source, alpha, out)
}

/// aclnnIndexFillTensor and aclnnInplaceIndexFillTensor (out None).
fn index_fill_rule(
    api: &'static str,
    self_: &TensorDesc,
    dim: i64,
    index: &[i64],
    value: &Scalar,
    out: Option<&TensorDesc>,
) -> Result<Executor> {
    let self_name = if out.is_some() { "self" } else { "selfRef" };
    ew::check_tensor(self_name, self_, INDEX_FILL)?;
    if let Some(o) = out {
        same_dtype("out", o, self_name, self_)?;
    }
    let b = bindings(&[self_], out);
    if self_.is_empty() {
        return Ok(Executor::new(api, b, Nothing));
    }
    if let Some(o) = out {
        same_shape("out", o, self_name, self_)?;
    }
    let ax = dim_of("dim", dim, self_.rank(), self_name)?;
    let s1 = as_1d(self_);
    let n = s1.shape[ax] as i64;
    let mut wrapped = Vec::with_capacity(index.len());
    for (i, &v) in index.iter().enumerate() {
        crate::ensure!(
            (-n..n).contains(&v),
            "index[{i}] = {v} is out of range [{}, {n}) for dim {ax} of {self_name} (size {n})",
            -n
        );
        wrapped.push(v.rem_euclid(n));
    }
    crate::ensure!(
        !value.dtype.is_complex(),
        "value has dtype {}: a complex value is not supported",
        value.dtype
    );
    let dst = out.unwrap_or(self_);
    dst.check_output(if out.is_some() { "out" } else { "selfRef" })?;
    let plan = (!wrapped.is_empty()).then(|| {
        let mut shape = s1.shape.clone();
        shape[ax] = wrapped.len();
        let mut idx: Strides = smallvec::smallvec![0; shape.len()];
        idx[ax] = 1;
        scatter_plan(
            dst,
            b.outputs[0],
            ax,
            &shape,
            Values::Constant(value.cast(self_.dtype)),
            None,
            IndexSource::Host {
                values: wrapped,
                strides: idx,
            },
            None,
            Reduce::Copy,
            ("index", format!("dim {ax} of {self_name}")),
        )
    });
    planned(api, b, self_, out, plan)
}

/// aclnnIndexFillTensor.
pub fn index_fill_tensor(
    self_: &TensorDesc,
    dim: i64,
    index: &[i64],
    value: &Scalar,
    out: &TensorDesc,
) -> Result<Executor> {
    index_fill_rule("aclnnIndexFillTensor", self_, dim, index, value, Some(out))
}

/// aclnnInplaceIndexFillTensor.
pub fn inplace_index_fill_tensor(
    self_ref: &TensorDesc,
    dim: i64,
    index: &[i64],
    value: &Scalar,
) -> Result<Executor> {
    index_fill_rule(
        "aclnnInplaceIndexFillTensor",
        self_ref,
        dim,
        index,
        value,
        None,
    )
}

/// Supported dtypes, for the operator table (docs/DTYPES.md).
pub const CATALOG: &[Entry] = &[
    Entry {
        ops: "IndexSelect",
        a: INDEX_SELECT,
        b: INDEX,
        out: INDEX_SELECT,
        rule: "self[.., index[i], ..] along dim (b: index; values in [0, n), checked at run time)",
    },
    Entry {
        ops: "GatherV2",
        a: GATHER_V2,
        b: INDEX,
        out: GATHER_V2,
        rule: "self's dim replaced by index's dims (b: index; values in [-n, n), negatives wrap)",
    },
    Entry {
        ops: "GatherV3",
        a: GATHER_V3,
        b: INDEX,
        out: GATHER_V3,
        rule: "GatherV2 with index values in [0, n) (dim 0, batchDims 0 on Atlas A2)",
    },
    Entry {
        ops: "Embedding",
        a: EMBEDDING,
        b: INDEX,
        out: EMBEDDING,
        rule: "rows weight[indices] of a 2-D weight (b: indices)",
    },
    Entry {
        ops: "Gather",
        a: GATHER,
        b: INDEX,
        out: GATHER,
        rule: "out[p] = self[p with p[dim] = index[p]] (GatherElements; b: index; negatives wrap)",
    },
    Entry {
        ops: "Take",
        a: TAKE,
        b: INDEX,
        out: TAKE,
        rule: "out[p] = self.flatten()[index[p]] (b: index; values in [0, numel))",
    },
    Entry {
        ops: "IndexCopy, InplaceIndexCopy",
        a: INDEX_COPY,
        b: INDEX,
        out: INDEX_COPY,
        rule: "out = self; out[.., index[i], ..] = source[.., i, ..] (b: index; the last duplicate wins)",
    },
    Entry {
        ops: "IndexAdd, IndexAddV2",
        a: INDEX_ADD,
        b: INDEX,
        out: INDEX_ADD,
        rule: "out = self; out[.., index[i], ..] += alpha·source[.., i, ..] (b: index; in index order)",
    },
    Entry {
        ops: "IndexFillTensor, InplaceIndexFillTensor",
        a: INDEX_FILL,
        b: &[],
        out: INDEX_FILL,
        rule: "out = self; out[.., index[i], ..] = value (index an int array, negatives wrap)",
    },
];
