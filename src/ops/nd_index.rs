//! Index tuples along a tensor's last dim (ONNX GatherND / ScatterND, TensorFlow's
//! scatter_nd_*), as rules on the gather engine through `advanced_index::Tuple`:
//! `indices[..., :c]` holds one c-tuple per point of `B = indices.shape[:-1]`, addressing a
//! slice `t[i0, .., ic-1, ...]` of the target.
//!
//! - GatherNd (aclnnGatherNd.md): `out[b, ...] = self[indices[b], ...]`, out of shape
//!   `B + self.shape[c:]`; negativeIndexSupport lets values in [-s, 0) count from the end.
//! - ScatterNd (aclnnScatterNd.md): `out = data; out[indices[b], ...] = updates[b, ...]`.
//! - ScatterNdUpdate (aclnnScatterNdUpdate.md): the same in place on varRef.
//! - TfScatterAdd (aclnnTfScatterAdd.md): `varRef[indices[b], ...] += updates[b, ...]`,
//!   either with every index element a row of varRef (tf.scatter_add: updates =
//!   indices.shape + varRef.shape[1:]) or with c-tuples (tf.scatter_nd_add).
//! - InplaceScatterUpdate (aclnnInplaceScatterUpdate.md, the KV-cache update): batch i of
//!   updates is written into batch i of data from offset `indices[i]` along `axis`,
//!   `data[i, .., indices[i] + k, ..] = updates[i, .., k, ..]`.
//!
//! Index values are checked at phase 2 before anything is written (negative ones are out
//! of range except in GatherNd with negativeIndexSupport). Duplicate tuples: the last
//! update wins, additions happen in index order (f16/bf16 in f32, rounded each time).

use super::advanced_index::{copy_step, Coordinate, Range, Tuple, TupleWork};
use super::catalog::Entry;
use super::elementwise as ew;
use super::gather::{Axis, Index, IndexSource, Plan, Reduce, Side, Values, Walk};
use super::index::{apart, as_1d, bindings, same_dtype, INDEX};
use crate::dtype::DType;
use crate::error::Result;
use crate::executor::{Executor, Nothing};
use crate::tensor::{contiguous_strides, Dims, Strides, TensorDesc};

use DType::*;

/// aclnnGatherNd.md, Atlas A2.
const GATHER_ND: &[DType] = &[S64, S32, S8, U8, Bool, F32, F16, BF16];
/// aclnnScatterNd.md.
const SCATTER_ND: &[DType] = &[F16, F32, Bool, BF16];
/// aclnnScatterNdUpdate.md, Atlas A2.
const SCATTER_ND_UPDATE: &[DType] = &[F16, BF16, F32, S64, Bool, S8];
/// aclnnTfScatterAdd.md.
const TF_SCATTER_ADD: &[DType] = &[F32, F16, BF16, S32, S8, U8];
/// aclnnInplaceScatterUpdate.md, Atlas A2.
const SCATTER_UPDATE: &[DType] = &[S8, U8, F16, F32, S32, BF16];

/// The tuples of `indices` (bound at `binding`): its last dim split into `c` coordinates
/// over `target`'s leading dims.
fn tuples(
    indices: &TensorDesc,
    binding: usize,
    c: usize,
    target: &TensorDesc,
    range: Range,
) -> Tuple {
    let q = indices.rank();
    let space: Dims = indices.shape[..q - 1].iter().copied().collect();
    let coords = (0..c)
        .map(|k| Coordinate {
            binding,
            dtype: indices.dtype,
            offset: (indices.offset as isize + k as isize * indices.strides[q - 1]) as usize,
            shape: space.clone(),
            strides: indices.strides[..q - 1].iter().copied().collect(),
            size: target.shape[k],
            name: format!("indices[..., {k}]"),
        })
        .collect();
    Tuple {
        coords,
        points: space.iter().product(),
        range,
        target: "the indexed dims",
    }
}

/// Every element of `indices` as a 1-tuple over target's dim 0 (tf.scatter_add).
fn rows(indices: &TensorDesc, binding: usize, target: &TensorDesc) -> Tuple {
    Tuple {
        coords: vec![Coordinate {
            binding,
            dtype: indices.dtype,
            offset: indices.offset,
            shape: indices.shape.clone(),
            strides: indices.strides.clone(),
            size: target.shape[0],
            name: "indices".into(),
        }],
        points: indices.numel(),
        range: Range::NonNegative,
        target: "dim 0 of varRef",
    }
}

/// The leading `c` dims of `t` as one flat axis.
fn leading(t: &TensorDesc, c: usize) -> Axis {
    Axis::Flat {
        shape: t.shape[..c].iter().copied().collect(),
        strides: t.strides[..c].iter().copied().collect(),
    }
}

/// The last index dim: a tuple length in [1, rank].
fn tuple_len(indices: &TensorDesc, rank: usize, target: &str) -> Result<usize> {
    crate::ensure!(
        (1..=ew::MAX_DIMS).contains(&indices.rank()),
        "indices has {} dims; it must have 1 to {}",
        indices.rank(),
        ew::MAX_DIMS
    );
    let c = indices.shape[indices.rank() - 1];
    crate::ensure!(
        (1..=rank).contains(&c),
        "indices' last dim is {c}: an index tuple must have 1 to {rank} values ({target} has {rank} dims)",
    );
    Ok(c)
}

/// aclnnGatherNd.
pub fn gather_nd(
    self_: &TensorDesc,
    indices: &TensorDesc,
    negative_index_support: bool,
    out: &TensorDesc,
) -> Result<Executor> {
    const API: &str = "aclnnGatherNd";
    ew::check_tensor("self", self_, GATHER_ND)?;
    ew::check_tensor("indices", indices, INDEX)?;
    ew::check_tensor("out", out, GATHER_ND)?;
    same_dtype("out", out, "self", self_)?;
    let r = self_.rank();
    crate::ensure!(r >= 1, "self is a scalar (0 dims); it must have 1 to 8");
    let c = tuple_len(indices, r, "self")?;
    let q = indices.rank();
    let want: Dims = indices.shape[..q - 1]
        .iter()
        .chain(&self_.shape[c..])
        .copied()
        .collect();
    ew::check_result_shape("out", out, &want)?;
    let b = bindings(&[self_, indices], Some(out));
    if out.is_empty() {
        return Ok(Executor::new(API, b, Nothing));
    }
    apart(API, "self", self_, "out", out)?;
    apart(API, "indices", indices, "out", out)?;
    let o1 = as_1d(out);
    let nb = q - 1;
    let space = contiguous_strides(&indices.shape[..nb]);
    let (src, host): (Strides, Strides) = if want.is_empty() {
        (smallvec::smallvec![0], smallvec::smallvec![0])
    } else {
        (
            std::iter::repeat_n(0, nb)
                .chain(self_.strides[c..].iter().copied())
                .collect(),
            space
                .iter()
                .copied()
                .chain(std::iter::repeat_n(0, r - c))
                .collect(),
        )
    };
    let plan = Plan {
        shape: o1.shape.clone(),
        parallel: o1.rank(),
        dst: Walk::new(2, &o1, o1.strides.clone()),
        values: Values::Tensor(Walk::new(0, self_, src)),
        index: Index {
            source: IndexSource::Host {
                values: Vec::new(),
                strides: host,
            },
            side: Side::Source,
            axis: leading(self_, c),
            wrap: false,
            skip_outside: false,
            name: "indices",
            target: "self".into(),
        },
        dtype: self_.dtype,
        reduce: Reduce::Copy,
    };
    let range = if negative_index_support {
        Range::Wrapping
    } else {
        Range::NonNegative
    };
    let mut tuple = tuples(indices, 1, c, self_, range);
    tuple.target = "the leading dims of self";
    Ok(TupleWork::executor(API, b, tuple, plan, None))
}

/// The scatter `var[tuple(b), ...] (op)= updates[b, ...]` of tuples of length `c` over the
/// space `space`: var's own dims first (split across threads), the space's last (in order).
fn scatter_tuples(
    var: &TensorDesc,
    var_at: usize,
    c: usize,
    space: &[usize],
    updates: &TensorDesc,
    updates_at: usize,
    reduce: Reduce,
) -> Plan {
    let nb = space.len();
    let r = var.rank();
    let host = contiguous_strides(space);
    let mut shape: Dims = var.shape[c..].iter().copied().collect();
    shape.extend_from_slice(space);
    let dst: Strides = var.strides[c..]
        .iter()
        .copied()
        .chain(std::iter::repeat_n(0, nb))
        .collect();
    let vals: Strides = updates.strides[nb..]
        .iter()
        .chain(&updates.strides[..nb])
        .copied()
        .collect();
    let idx: Strides = std::iter::repeat_n(0, r - c)
        .chain(host.iter().copied())
        .collect();
    let (shape, dst, vals, idx) = if shape.is_empty() {
        (
            smallvec::smallvec![1],
            smallvec::smallvec![0],
            smallvec::smallvec![0],
            smallvec::smallvec![0],
        )
    } else {
        (shape, dst, vals, idx)
    };
    Plan {
        shape,
        parallel: r - c,
        dst: Walk::new(var_at, var, dst),
        values: Values::Tensor(Walk::new(updates_at, updates, vals)),
        index: Index {
            source: IndexSource::Host {
                values: Vec::new(),
                strides: idx,
            },
            side: Side::Destination,
            axis: leading(var, c),
            wrap: false,
            skip_outside: false,
            name: "indices",
            target: String::new(),
        },
        dtype: var.dtype,
        reduce,
    }
}

/// updates must have shape `B + var.shape[c:]`.
fn check_updates(
    updates: &TensorDesc,
    space: &[usize],
    var_name: &str,
    var: &TensorDesc,
    c: usize,
) -> Result<()> {
    let want: Dims = space.iter().chain(&var.shape[c..]).copied().collect();
    crate::ensure!(
        updates.shape == want,
        "updates has shape {:?} but must have {want:?} (indices.shape[:-1] {space:?} + {var_name}.shape[{c}:])",
        updates.shape
    );
    Ok(())
}

/// ScatterNd (out given: `out = data` first) and ScatterNdUpdate (in place on data).
fn scatter_nd_rule(
    api: &'static str,
    dtypes: &[DType],
    names: (&'static str, &'static str),
    data: &TensorDesc,
    indices: &TensorDesc,
    updates: &TensorDesc,
    out: Option<&TensorDesc>,
) -> Result<Executor> {
    let (data_name, updates_name) = names;
    ew::check_tensor(data_name, data, dtypes)?;
    ew::check_tensor("indices", indices, INDEX)?;
    ew::check_tensor(updates_name, updates, dtypes)?;
    same_dtype(updates_name, updates, data_name, data)?;
    if let Some(o) = out {
        ew::check_tensor("out", o, dtypes)?;
        same_dtype("out", o, data_name, data)?;
        super::index::same_shape("out", o, data_name, data)?;
    }
    let r = data.rank();
    crate::ensure!(
        r >= 1,
        "{data_name} is a scalar (0 dims); it must have 1 to 8"
    );
    if out.is_none() {
        crate::ensure!(
            indices.rank() >= 2,
            "indices has {} dims; it must have at least 2 (the last holds the index tuples)",
            indices.rank()
        );
    }
    let c = tuple_len(indices, r, data_name)?;
    let space: Dims = indices.shape[..indices.rank() - 1]
        .iter()
        .copied()
        .collect();
    check_updates(updates, &space, data_name, data, c)?;
    let b = bindings(&[data, indices, updates], out);
    let dst = out.unwrap_or(data);
    if dst.is_empty() {
        return Ok(Executor::new(api, b, Nothing));
    }
    dst.check_output(if out.is_some() { "out" } else { data_name })?;
    apart(api, updates_name, updates, "the output", dst)?;
    apart(api, "indices", indices, "the output", dst)?;
    let before = match out {
        Some(o) => Some(copy_step(api, &b, data, 0, o)?),
        None => None,
    };
    let plan = scatter_tuples(dst, b.outputs[0], c, &space, updates, 2, Reduce::Copy);
    let mut tuple = tuples(indices, 1, c, data, Range::NonNegative);
    tuple.target = if out.is_some() {
        "the leading dims of data"
    } else {
        "the leading dims of varRef"
    };
    Ok(TupleWork::executor(api, b, tuple, plan, before))
}

/// aclnnScatterNd.
pub fn scatter_nd(
    data: &TensorDesc,
    indices: &TensorDesc,
    updates: &TensorDesc,
    out: &TensorDesc,
) -> Result<Executor> {
    scatter_nd_rule(
        "aclnnScatterNd",
        SCATTER_ND,
        ("data", "updates"),
        data,
        indices,
        updates,
        Some(out),
    )
}

/// aclnnScatterNdUpdate.
pub fn scatter_nd_update(
    var_ref: &TensorDesc,
    indices: &TensorDesc,
    updates: &TensorDesc,
) -> Result<Executor> {
    scatter_nd_rule(
        "aclnnScatterNdUpdate",
        SCATTER_ND_UPDATE,
        ("varRef", "updates"),
        var_ref,
        indices,
        updates,
        None,
    )
}

/// aclnnTfScatterAdd.
pub fn tf_scatter_add(
    var_ref: &TensorDesc,
    indices: &TensorDesc,
    updates: &TensorDesc,
) -> Result<Executor> {
    const API: &str = "aclnnTfScatterAdd";
    ew::check_tensor("varRef", var_ref, TF_SCATTER_ADD)?;
    ew::check_tensor("indices", indices, INDEX)?;
    ew::check_tensor("updates", updates, TF_SCATTER_ADD)?;
    same_dtype("updates", updates, "varRef", var_ref)?;
    let r = var_ref.rank();
    crate::ensure!(r >= 1, "varRef is a scalar (0 dims); it must have 1 to 8");
    crate::ensure!(
        !var_ref.is_empty() || indices.is_empty(),
        "varRef is empty but indices has {} elements",
        indices.numel()
    );
    // tf.scatter_add: updates = indices.shape + varRef.shape[1:].
    let as_rows: Dims = indices
        .shape
        .iter()
        .chain(&var_ref.shape[1..])
        .copied()
        .collect();
    let nd = indices.rank() >= 1 && (1..=r).contains(&indices.shape[indices.rank() - 1]);
    let (tuple, c, space) = if updates.shape == as_rows {
        (rows(indices, 1, var_ref), 1, indices.shape.clone())
    } else if nd {
        let c = indices.shape[indices.rank() - 1];
        let space: Dims = indices.shape[..indices.rank() - 1]
            .iter()
            .copied()
            .collect();
        check_updates(updates, &space, "varRef", var_ref, c).map_err(|_| {
            crate::error::Error::Invalid(format!(
                "updates has shape {:?} but must be indices.shape + varRef.shape[1:] = {as_rows:?}, or indices.shape[:-1] + varRef.shape[{c}:] = {:?}",
                updates.shape,
                space.iter().chain(&var_ref.shape[c..]).copied().collect::<Vec<_>>()
            ))
        })?;
        let mut t = tuples(indices, 1, c, var_ref, Range::NonNegative);
        t.target = "the leading dims of varRef";
        (t, c, space)
    } else {
        crate::bail!(
            "updates has shape {:?} but must be indices.shape + varRef.shape[1:] = {as_rows:?} (or, for index tuples, indices.shape[:-1] + varRef.shape[indices.shape[-1]:])",
            updates.shape
        );
    };
    let b = bindings(&[var_ref, indices, updates], None);
    if var_ref.is_empty() || updates.is_empty() {
        return Ok(Executor::new(API, b, Nothing));
    }
    var_ref.check_output("varRef")?;
    apart(API, "updates", updates, "varRef", var_ref)?;
    apart(API, "indices", indices, "varRef", var_ref)?;
    let plan = scatter_tuples(var_ref, 0, c, &space, updates, 2, Reduce::Add);
    Ok(TupleWork::executor(API, b, tuple, plan, None))
}

/// aclnnInplaceScatterUpdate: `data[i, .., indices[i] + k, ..] = updates[i, .., k, ..]`
/// along `axis` (indices 1-D, one offset per batch, or 0-D for one batch; offsets in
/// [0, c - e] for a data axis of c and an updates axis of e, checked at run time).
pub fn inplace_scatter_update(
    data: &TensorDesc,
    indices: &TensorDesc,
    updates: &TensorDesc,
    axis: i64,
) -> Result<Executor> {
    const API: &str = "aclnnInplaceScatterUpdate";
    ew::check_tensor("data", data, SCATTER_UPDATE)?;
    ew::check_tensor("indices", indices, INDEX)?;
    ew::check_tensor("updates", updates, SCATTER_UPDATE)?;
    same_dtype("updates", updates, "data", data)?;
    let r = data.rank();
    crate::ensure!(
        (2..=ew::MAX_DIMS).contains(&r),
        "data has {r} dims; it must have 2 to {}",
        ew::MAX_DIMS
    );
    crate::ensure!(
        updates.rank() == r,
        "updates has {} dims and data {r}: they must have the same number",
        updates.rank()
    );
    crate::ensure!(
        indices.rank() <= 2,
        "indices has {} dims; it must be 0-D, 1-D or 2-D",
        indices.rank()
    );
    crate::ensure!(
        indices.rank() < 2,
        "2-D indices are not supported here: the documented forms are 0-D and 1-D (one offset per batch)"
    );
    crate::ensure!(
        !data.is_empty() && !indices.is_empty() && !updates.is_empty(),
        "data {:?}, indices {:?} and updates {:?} must not be empty",
        data.shape,
        indices.shape,
        updates.shape
    );
    let ri = r as i64;
    crate::ensure!(
        axis > -ri && axis < ri && axis != 0,
        "axis {axis} is out of range: it must be in ({}, {ri}) and not 0 (dim 0 holds the batches)",
        -ri
    );
    let ax = axis.rem_euclid(ri) as usize;
    crate::ensure!(
        indices.rank() == 1 || updates.shape[0] == 1,
        "indices is 0-D, so updates' dim 0 must be 1, but it is {}",
        updates.shape[0]
    );
    let batches = updates.shape[0];
    crate::ensure!(
        indices.numel() == batches && batches <= data.shape[0],
        "indices has {} offsets and updates {batches} batches (data {}): one offset per batch of updates, at most data's",
        indices.numel(),
        data.shape[0]
    );
    for d in (1..r).filter(|&d| d != ax) {
        crate::ensure!(
            updates.shape[d] == data.shape[d],
            "updates {:?} and data {:?} differ in dim {d}: only axis {ax} may differ",
            updates.shape,
            data.shape
        );
    }
    let (c, e) = (data.shape[ax], updates.shape[ax]);
    crate::ensure!(
        e <= c,
        "updates has {e} elements along axis {ax} but data only {c}"
    );
    data.check_output("data")?;
    apart(API, "updates", updates, "data", data)?;
    apart(API, "indices", indices, "data", data)?;
    let b = bindings(&[data, indices, updates], None);
    let i1 = as_1d(indices);
    let mut host: Strides = smallvec::smallvec![0; r];
    host[0] = 1;
    let plan = Plan {
        shape: updates.shape.clone(),
        // Batches never meet: every dim may be split.
        parallel: r,
        dst: Walk::new(0, data, data.strides.clone()),
        values: Values::Tensor(Walk::new(2, updates, updates.strides.clone())),
        index: Index {
            source: IndexSource::Host {
                values: Vec::new(),
                strides: host,
            },
            side: Side::Destination,
            axis: Axis::Dim {
                size: c - e + 1,
                stride: data.strides[ax],
            },
            wrap: false,
            skip_outside: false,
            name: "indices",
            target: String::new(),
        },
        dtype: data.dtype,
        reduce: Reduce::Copy,
    };
    let tuple = Tuple {
        coords: vec![Coordinate {
            binding: 1,
            dtype: indices.dtype,
            offset: i1.offset,
            shape: i1.shape.clone(),
            strides: i1.strides.clone(),
            size: c - e + 1,
            name: "indices".into(),
        }],
        points: batches,
        range: Range::NonNegative,
        target: "the offsets along data's axis (offset + updates' length must fit)",
    };
    Ok(TupleWork::executor(API, b, tuple, plan, None))
}

/// Supported dtypes, for the operator table (docs/DTYPES.md).
pub const CATALOG: &[Entry] = &[
    Entry {
        ops: "GatherNd",
        a: GATHER_ND,
        b: INDEX,
        out: GATHER_ND,
        rule: "out[b, ...] = self[indices[b, :], ...] (ONNX GatherND; negatives wrap with negativeIndexSupport)",
    },
    Entry {
        ops: "ScatterNd",
        a: SCATTER_ND,
        b: INDEX,
        out: SCATTER_ND,
        rule: "out = data; out[indices[b, :], ...] = updates[b, ...] (ONNX ScatterND; the last duplicate wins)",
    },
    Entry {
        ops: "ScatterNdUpdate",
        a: SCATTER_ND_UPDATE,
        b: INDEX,
        out: SCATTER_ND_UPDATE,
        rule: "varRef[indices[b, :], ...] = updates[b, ...] in place",
    },
    Entry {
        ops: "TfScatterAdd",
        a: TF_SCATTER_ADD,
        b: INDEX,
        out: TF_SCATTER_ADD,
        rule: "varRef[indices[b], ...] += updates[b, ...] (tf.scatter_add, or tuples as tf.scatter_nd_add; in index order)",
    },
    Entry {
        ops: "InplaceScatterUpdate",
        a: SCATTER_UPDATE,
        b: INDEX,
        out: SCATTER_UPDATE,
        rule: "data[i, .., indices[i] + k, ..] = updates[i, .., k, ..] along axis (one offset per batch)",
    },
];
