//! Joining and splitting along an axis: Cat, Stack, SplitTensor, SplitWithSize. Each is
//! one strided copy per member (the element-wise engine, converting where the dtypes
//! differ) between the member and its slice of the other side, run in order as one
//! operator (`executor::Sequence`). Nothing is gathered twice: the slices are views.
//!
//! - Cat (aclnnCat.md, op_api): 1-D empty members are left out first (torch's legacy
//!   rule); nothing left is success with nothing to do. The members' dtypes promote
//!   (complex128 refused, as on the device) and the result casts to out; each member is
//!   converted straight to out's dtype. All have out's format (a public one), the same
//!   rank (≤ 8) and the same dims but `dim`; out's shape is theirs with `dim` summed.
//! - Stack: members of one shape (rank ≤ 7) side by side along a new axis `dim` in
//!   [-(rank+1), rank]; dtypes as Cat.
//! - SplitTensor: chunks of `splitSections` along `dim` (the last may be smaller; a dim of
//!   size 0 gives one empty chunk); SplitWithSize: chunks of the given sizes, which sum to
//!   the dim. out holds one tensor per chunk, of self's dtype and the chunk's shape.
//!
//! - ChunkCat (torch._chunk_cat; aclnnChunkCat.md, op_api): each member (d0, rest..) is cut
//!   along dim 0 into numChunks chunks of ceil(d0 / numChunks) rows (the last ones padded
//!   with zeros), each chunk flattened; chunk c of every member, side by side, is row c of
//!   out (numChunks, Σ rows·|rest|). Only dim 0 (as on the device); members of one dtype
//!   (f32, f16, bf16), converted to out's (f32 stays f32); empty members are left out.
//!   Per member: one copy of its whole chunks, one of a partial chunk, zero fills.
//!
//! The out slices of Cat/Stack/ChunkCat must not overlap a member (the copies run in order, so a
//! later member would read what an earlier one wrote): refused.

use super::catalog::Entry;
use super::copy::convert_into;
use super::elementwise::{self as ew, Arg};
use crate::dtype::{promote, DType};
use crate::error::{Error, Result};
use crate::executor::{Bindings, Executor, ListParam, Nothing, Sequence};
use crate::tensor::TensorDesc;

use DType::*;
/// aclnnCat.md's Atlas A2 list.
const CAT: &[DType] = &[F32, F16, S32, S64, S16, S8, U8, Bool, F64, C64, BF16];
const STACK: &[DType] = &[
    F16, F32, S8, S16, S32, S64, U8, U16, U32, U64, Bool, F64, C64, C128, BF16,
];
/// aclnnChunkCat's Atlas A2 list (members and out).
const CHUNK_CAT: &[DType] = &[F32, F16, BF16];
const SPLIT: &[DType] = &[
    F32, F16, F64, S32, U32, S64, U64, S16, U16, S8, U8, Bool, C128, C64, BF16,
];

/// Whether two views may share an element (their byte spans in one storage intersect).
fn may_overlap(a: &TensorDesc, b: &TensorDesc) -> bool {
    match (a.byte_span(), b.byte_span()) {
        (Some((a0, a1)), Some((b0, b1))) => a0 < b1 && b0 < a1,
        _ => false,
    }
}

/// The members' promoted dtype, checked against the list and out.
fn promoted(
    api: &str,
    members: &[(usize, &TensorDesc)],
    allowed: &[DType],
    out: &TensorDesc,
) -> Result<DType> {
    let mut p = members[0].1.dtype;
    for &(i, t) in members {
        crate::ensure!(
            allowed.contains(&t.dtype),
            "tensors[{i}] has dtype {}, which {api} does not support",
            t.dtype
        );
        p = promote(p, t.dtype).ok_or_else(|| {
            Error::Invalid(format!(
                "tensors[{i}] dtype {} and dtype {p} cannot be promoted to a common dtype",
                t.dtype
            ))
        })?;
    }
    crate::ensure!(
        p != C128 || allowed.contains(&C128),
        "the tensors promote to {p}, which {api} does not implement"
    );
    crate::ensure!(
        allowed.contains(&out.dtype),
        "out has dtype {}, which {api} does not support",
        out.dtype
    );
    ew::check_out_cast(p, "out", out)?;
    Ok(p)
}

/// Bindings of a list-in, tensor-out operator: the members, then out.
fn list_in(tensors: &[&TensorDesc], out: &TensorDesc) -> (Bindings, Vec<ListParam>) {
    let mut views: Vec<Option<TensorDesc>> = tensors.iter().map(|t| Some((*t).clone())).collect();
    views.push(Some(out.clone()));
    let n = tensors.len();
    let b = Bindings {
        tensors: std::sync::Arc::new(views),
        n_inputs: n,
        outputs: smallvec::smallvec![n],
    };
    (
        b,
        vec![ListParam {
            output: false,
            ir_index: 0,
            any_index: 0,
            first: 0,
            len: n,
        }],
    )
}

/// Copies each (member binding, slice of out) pair, or out slices from self for a split.
fn sequence(
    api: &'static str,
    bindings: Bindings,
    lists: Vec<ListParam>,
    copies: Vec<(usize, TensorDesc, usize, TensorDesc)>,
) -> Result<Executor> {
    let mut seq = Sequence::new();
    for (src_binding, src, dst_binding, dst) in copies {
        if dst.is_empty() {
            continue;
        }
        let step = convert_into(api, Arg::Tensor("src", &src), "out", &dst)?;
        seq.push(step, &[src_binding, dst_binding]);
    }
    let mut e = Executor::new(api, bindings, seq);
    e.lists = lists;
    Ok(e)
}

/// aclnnCat.
pub fn cat(tensors: &[&TensorDesc], dim: i64, out: &TensorDesc) -> Result<Executor> {
    const API: &str = "aclnnCat";
    let members: Vec<(usize, &TensorDesc)> = tensors
        .iter()
        .enumerate()
        .filter(|(_, t)| !(t.rank() == 1 && t.shape[0] == 0))
        .map(|(i, t)| (i, *t))
        .collect();
    let (bindings, lists) = list_in(tensors, out);
    if members.is_empty() {
        return Ok(Executor::new(API, bindings, Nothing));
    }
    promoted(API, &members, CAT, out)?;
    let (i0, t0) = members[0];
    crate::ensure!(
        t0.format.is_public(),
        "tensors[{i0}] has format {}; {API} takes ND, NCHW, NHWC, HWCN, NDHWC or NCDHW",
        t0.format
    );
    for &(i, t) in &members {
        crate::ensure!(
            t.format == t0.format,
            "tensors[{i}] has format {} but tensors[{i0}] has {}: they must be equal",
            t.format,
            t0.format
        );
    }
    crate::ensure!(
        out.format == t0.format,
        "out has format {} but the tensors have {}: they must be equal",
        out.format,
        t0.format
    );
    let rank = t0.rank();
    crate::ensure!(
        rank <= 8,
        "tensors[{i0}] has {rank} dims; at most 8 are supported"
    );
    let ax = ew::axis("dim", dim, rank, "the tensors")?;
    let mut total = 0usize;
    for &(i, t) in &members {
        crate::ensure!(
            t.rank() == rank,
            "tensors[{i}] has {} dims but tensors[{i0}] has {rank}",
            t.rank()
        );
        for d in (0..rank).filter(|&d| d != ax) {
            crate::ensure!(
                t.shape[d] == t0.shape[d],
                "dim {d} of tensors[{i}] is {} but {} in tensors[{i0}]: only dim {ax} may differ",
                t.shape[d],
                t0.shape[d]
            );
        }
        total += t.shape[ax];
    }
    let mut want = t0.shape.clone();
    want[ax] = total;
    crate::ensure!(
        out.shape == want,
        "out has shape {:?} but the tensors concatenated along dim {ax} have shape {:?}",
        out.shape,
        want
    );
    out.check_output("out")?;
    let n = tensors.len();
    let mut copies = Vec::with_capacity(members.len());
    let mut start = 0;
    for &(i, t) in &members {
        let slice = out.narrowed(ax, start, t.shape[ax]);
        crate::ensure!(
            t.is_empty() || !may_overlap(t, &slice) || t.addr != out.addr,
            "tensors[{i}] overlaps its place in out: {API} needs out apart from the tensors"
        );
        start += t.shape[ax];
        copies.push((i, t.clone(), n, slice));
    }
    sequence(API, bindings, lists, copies)
}

/// aclnnStack.
pub fn stack(tensors: &[&TensorDesc], dim: i64, out: &TensorDesc) -> Result<Executor> {
    const API: &str = "aclnnStack";
    crate::ensure!(
        !tensors.is_empty(),
        "tensors is empty: {API} needs at least one tensor"
    );
    let members: Vec<(usize, &TensorDesc)> = tensors.iter().copied().enumerate().collect();
    promoted(API, &members, STACK, out)?;
    let t0 = tensors[0];
    let rank = t0.rank();
    crate::ensure!(
        rank <= 7,
        "tensors[0] has {rank} dims; {API} takes at most 7"
    );
    let ax = ew::axis("dim", dim, rank + 1, "the stacked result")?;
    for (i, t) in tensors.iter().enumerate() {
        crate::ensure!(
            t.shape == t0.shape,
            "tensors[{i}] has shape {:?} but tensors[0] has {:?}: stacked tensors must have one shape",
            t.shape,
            t0.shape
        );
    }
    let mut want = t0.shape.clone();
    want.insert(ax, tensors.len());
    crate::ensure!(
        out.shape == want,
        "out has shape {:?} but {} tensors of shape {:?} stacked along dim {ax} have shape {want:?}",
        out.shape,
        tensors.len(),
        t0.shape
    );
    out.check_output("out")?;
    let (bindings, lists) = list_in(tensors, out);
    let n = tensors.len();
    let mut copies = Vec::with_capacity(n);
    for (i, t) in tensors.iter().enumerate() {
        let slice = out.selected(ax, i);
        crate::ensure!(
            t.is_empty() || !may_overlap(t, &slice) || t.addr != out.addr,
            "tensors[{i}] overlaps its place in out: {API} needs out apart from the tensors"
        );
        copies.push((i, (*t).clone(), n, slice));
    }
    sequence(API, bindings, lists, copies)
}

/// Splits `self_` along `dim` into chunks of `sizes` written to `out`.
fn split(
    api: &'static str,
    self_: &TensorDesc,
    ax: usize,
    sizes: &[usize],
    out: &[&TensorDesc],
) -> Result<Executor> {
    crate::ensure!(
        out.len() == sizes.len(),
        "out holds {} tensors but self {:?} splits into {} chunks along dim {ax} ({sizes:?})",
        out.len(),
        self_.shape,
        sizes.len()
    );
    let mut start = 0;
    let mut copies = Vec::with_capacity(out.len());
    for (i, (o, &len)) in out.iter().zip(sizes).enumerate() {
        crate::ensure!(
            o.dtype == self_.dtype,
            "out[{i}] has dtype {} but self has {}: the chunks keep self's dtype",
            o.dtype,
            self_.dtype
        );
        let chunk = self_.narrowed(ax, start, len);
        crate::ensure!(
            o.shape == chunk.shape,
            "out[{i}] has shape {:?} but chunk {i} of self along dim {ax} has shape {:?}",
            o.shape,
            chunk.shape
        );
        o.check_output("out")?;
        crate::ensure!(
            o.is_empty() || !may_overlap(o, self_) || o.addr != self_.addr,
            "out[{i}] overlaps self: {api} needs its outputs apart from self"
        );
        copies.push((0, chunk, 1 + i, (*o).clone()));
        start += len;
    }
    let mut views: Vec<Option<TensorDesc>> = vec![Some(self_.clone())];
    views.extend(out.iter().map(|o| Some((*o).clone())));
    let bindings = Bindings {
        tensors: std::sync::Arc::new(views),
        n_inputs: 1,
        outputs: (1..=out.len()).collect(),
    };
    let lists = vec![ListParam {
        output: true,
        ir_index: 0,
        any_index: 1,
        first: 1,
        len: out.len(),
    }];
    sequence(api, bindings, lists, copies)
}

fn check_split_self(api: &str, self_: &TensorDesc, out: &[&TensorDesc]) -> Result<()> {
    ew::check_tensor("self", self_, SPLIT)?;
    crate::ensure!(
        self_.rank() >= 1,
        "self is a scalar (0 dims): {api} splits along a dim"
    );
    for (i, o) in out.iter().enumerate() {
        crate::ensure!(
            SPLIT.contains(&o.dtype),
            "out[{i}] has dtype {}, which {api} does not support",
            o.dtype
        );
    }
    Ok(())
}

/// aclnnSplitTensor.
pub fn split_tensor(
    self_: &TensorDesc,
    sections: u64,
    dim: i64,
    out: &[&TensorDesc],
) -> Result<Executor> {
    const API: &str = "aclnnSplitTensor";
    check_split_self(API, self_, out)?;
    let ax = ew::axis("dim", dim, self_.rank(), "self")?;
    let n = self_.shape[ax];
    crate::ensure!(
        sections > 0 || n == 0,
        "splitSections is 0: it must be positive to split dim {ax} of size {n}"
    );
    let sizes: Vec<usize> = if n == 0 {
        vec![0]
    } else {
        let s = sections.min(n as u64) as usize;
        (0..n.div_ceil(s)).map(|k| s.min(n - k * s)).collect()
    };
    split(API, self_, ax, &sizes, out)
}

/// aclnnSplitWithSize.
pub fn split_with_size(
    self_: &TensorDesc,
    split_size: &[i64],
    dim: i64,
    out: &[&TensorDesc],
) -> Result<Executor> {
    const API: &str = "aclnnSplitWithSize";
    check_split_self(API, self_, out)?;
    let ax = ew::axis("dim", dim, self_.rank(), "self")?;
    crate::ensure!(
        split_size.iter().all(|&s| s >= 0),
        "splitSize {split_size:?} has a negative size"
    );
    let total: i128 = split_size.iter().map(|&s| s as i128).sum();
    crate::ensure!(
        total == self_.shape[ax] as i128,
        "splitSize {split_size:?} sums to {total} but dim {ax} of self {:?} has size {}",
        self_.shape,
        self_.shape[ax]
    );
    let sizes: Vec<usize> = split_size.iter().map(|&s| s as usize).collect();
    split(API, self_, ax, &sizes, out)
}

/// A view of `out` (numChunks, width) for one member's block at column `col`: chunks
/// `c0..c0 + chunks`, rows `r0..r0 + rows` of each, every row `rest` (row-major, flattened).
fn chunk_block(
    out: &TensorDesc,
    col: usize,
    c0: usize,
    chunks: usize,
    r0: usize,
    rows: usize,
    rest: &[usize],
) -> TensorDesc {
    let r: usize = rest.iter().product();
    let mut v = out.clone();
    let inner = crate::tensor::contiguous_strides(rest);
    v.shape = [chunks, rows].iter().chain(rest).copied().collect();
    v.strides = [out.strides[0], r as isize * out.strides[1]]
        .iter()
        .copied()
        .chain(inner.iter().map(|&s| s * out.strides[1]))
        .collect();
    v.offset = out.offset + c0 * out.strides[0] as usize + (col + r0 * r) * out.strides[1] as usize;
    v
}

/// `t` seen as chunks of `rows` rows: rows `r0..r0 + chunks·rows` as (chunks, rows, rest..).
fn as_chunks(t: &TensorDesc, r0: usize, chunks: usize, rows: usize) -> TensorDesc {
    let mut v = t.narrowed(0, r0, chunks * rows);
    v.shape[0] = rows;
    v.shape.insert(0, chunks);
    v.strides.insert(0, rows as isize * t.strides[0]);
    v
}

/// aclnnChunkCat.
pub fn chunk_cat(
    tensors: &[&TensorDesc],
    dim: i64,
    num_chunks: i64,
    out: &TensorDesc,
) -> Result<Executor> {
    const API: &str = "aclnnChunkCat";
    crate::ensure!(
        dim == 0,
        "dim is {dim}; {API} supports only dim 0 (as CANN's kernel)"
    );
    let (bindings, lists) = list_in(tensors, out);
    if tensors.is_empty() {
        return Ok(Executor::new(API, bindings, Nothing));
    }
    let d0 = tensors[0].dtype;
    crate::ensure!(
        CHUNK_CAT.contains(&d0),
        "tensors[0] has dtype {d0}, which {API} does not support; supported: FLOAT, FLOAT16, BFLOAT16"
    );
    for (i, t) in tensors.iter().enumerate().skip(1) {
        crate::ensure!(
            t.dtype == d0,
            "tensors[{i}] has dtype {} but tensors[0] has {d0}: {API} expects one dtype",
            t.dtype
        );
    }
    crate::ensure!(
        CHUNK_CAT.contains(&out.dtype),
        "out has dtype {}, which {API} does not support; supported: FLOAT, FLOAT16, BFLOAT16",
        out.dtype
    );
    crate::ensure!(
        d0 != F32 || out.dtype == F32,
        "out has dtype {} but the tensors are FLOAT: out must be FLOAT (its element at least as wide)",
        out.dtype
    );
    for (i, t) in tensors.iter().enumerate() {
        crate::ensure!(
            t.format.is_public(),
            "tensors[{i}] has format {}; {API} takes ND, NCHW, NHWC, HWCN, NDHWC or NCDHW",
            t.format
        );
    }
    crate::ensure!(
        out.format.is_public(),
        "out has format {}; {API} takes ND, NCHW, NHWC, HWCN, NDHWC or NCDHW",
        out.format
    );
    for (i, t) in tensors.iter().enumerate() {
        crate::ensure!(
            t.rank() <= 8,
            "tensors[{i}] has {} dims; at most 8 are supported",
            t.rank()
        );
        crate::ensure!(
            t.rank() > 0,
            "tensors[{i}] has 0 dims; it needs a dim 0 to cut"
        );
    }
    crate::ensure!(
        num_chunks > 0,
        "numChunks is {num_chunks}; it must be at least 1"
    );
    let n = num_chunks as usize;
    let members: Vec<(usize, &TensorDesc)> = tensors
        .iter()
        .enumerate()
        .filter(|(_, t)| !t.is_empty())
        .map(|(i, t)| (i, *t))
        .collect();
    if members.is_empty() {
        return Ok(Executor::new(API, bindings, Nothing));
    }
    // Each member's rows per chunk and its block's width.
    let blocks: Vec<(usize, usize)> = members
        .iter()
        .map(|(_, t)| {
            let rows = t.shape[0].div_ceil(n);
            (rows, rows * t.shape[1..].iter().product::<usize>())
        })
        .collect();
    let width: usize = blocks.iter().map(|b| b.1).sum();
    crate::ensure!(
        out.shape[..] == [n, width],
        "out has shape {:?} but the tensors cut into {n} chunks give [{n}, {width}]",
        out.shape
    );
    out.check_output("out")?;
    let slot = tensors.len();
    let zero = crate::scalar::Scalar::from_value(0u8);
    let mut seq = Sequence::new();
    let mut col = 0;
    for (&(i, t), &(rows, w)) in members.iter().zip(&blocks) {
        crate::ensure!(
            !may_overlap(t, out) || t.addr != out.addr,
            "tensors[{i}] overlaps out: {API} needs out apart from the tensors"
        );
        let rest = &t.shape[1..];
        let full = t.shape[0] / rows;
        let part = t.shape[0] - full * rows;
        let mut copy = |src: TensorDesc, dst: TensorDesc| -> Result<()> {
            if !dst.is_empty() {
                let step = convert_into(API, Arg::Tensor("tensors", &src), "out", &dst)?;
                seq.push(step, &[i, slot]);
            }
            Ok(())
        };
        // The chunk axis adds a dim: a rank-8 member is copied chunk by chunk.
        if t.rank() < 8 {
            copy(
                as_chunks(t, 0, full, rows),
                chunk_block(out, col, 0, full, 0, rows, rest),
            )?;
        } else {
            for c in 0..full {
                copy(
                    as_chunks(t, c * rows, 1, rows),
                    chunk_block(out, col, c, 1, 0, rows, rest),
                )?;
            }
        }
        if part > 0 {
            copy(
                as_chunks(t, full * rows, 1, part),
                chunk_block(out, col, full, 1, 0, part, rest),
            )?;
        }
        // Zeros: the partial chunk's missing rows, then the chunks past the member's rows.
        let tail = full + (part > 0) as usize;
        for fill in [
            (part > 0).then(|| chunk_block(out, col, full, 1, part, rows - part, rest)),
            Some(chunk_block(out, col, tail, n - tail, 0, rows, rest)),
        ]
        .into_iter()
        .flatten()
        .filter(|f| !f.is_empty())
        {
            seq.push(convert_into(API, Arg::Scalar(zero), "out", &fill)?, &[slot]);
        }
        col += w;
    }
    let mut e = Executor::new(API, bindings, seq);
    e.lists = lists;
    Ok(e)
}

/// Supported dtypes, for the operator table (docs/DTYPES.md).
pub const CATALOG: &[Entry] = &[
    Entry {
        ops: "Cat",
        a: CAT,
        b: &[],
        out: CAT,
        rule: "joined along dim (1-D empty members skipped; promoted, cast to out)",
    },
    Entry {
        ops: "Stack",
        a: STACK,
        b: &[],
        out: STACK,
        rule: "joined along a new dim (promoted, cast to out)",
    },
    Entry {
        ops: "ChunkCat",
        a: CHUNK_CAT,
        b: &[],
        out: CHUNK_CAT,
        rule: "row c of out = chunk c (ceil(d0 / numChunks) rows along dim 0, zero-padded, flattened) of every member, side by side; dim 0 only",
    },
    Entry {
        ops: "SplitTensor, SplitWithSize",
        a: SPLIT,
        b: &[],
        out: SPLIT,
        rule: "chunks along dim, into a tensor list of self's dtype",
    },
];
