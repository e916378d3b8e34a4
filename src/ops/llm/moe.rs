//! MoE routing (hicann/ops-transformer `moe/`): the steps around the expert matmuls of a
//! mixture-of-experts layer, as CANN's aclnnMoe* operators do them on Atlas A2.
//!
//! - Gating (MoeGatingTopKSoftmax, V2): per token, the k largest softmax probabilities
//!   of its expert logits and their experts (V2 renorm 1: the top k logits, then their
//!   softmax).
//! - Dispatch (MoeInitRouting): the (token, slot) pairs sorted by expert (a stable sort:
//!   equal experts keep their order in expertIdx, as the device's sort does), the tokens'
//!   rows gathered in that order, and the map back (expandedRowIdx).
//! - MoeInitRoutingV2: the same over token-major slots (slot p is token p / k), dropless
//!   or dropping each expert's slots past expertCapacity, with the experts' counts.
//! - Counting (MoeComputeExpertTokens): each expert's end in the sorted expert list.
//! - Combine (MoeFinalizeRouting, V2): per token, the scaled sum of its experts' output
//!   rows (+ the expert's bias) and the skip inputs.
//!
//! One small engine serves them all: `stable_order` (the dispatch permutation), `gather`
//! (rows copied bit for bit in their own dtype, by a row map) and `Combine` (the weighted
//! sum of mapped rows). Index tensors live in device memory and are read at phase 2: a
//! value out of range fails the run with a message naming the entry, and nothing is
//! written (ACL_ERROR_RT_AICORE_EXCEPTION at synchronize).
//!
//! Numbers: softmax in f32 with the row's max subtracted (exp, an f32 sum in expert order,
//! one division), rounded once to y's dtype: within 2^-21 relative of the f64 softmax
//! (f32's exp is within an ulp and the sum of E terms within E·2^-24, E ≤ 1024 here)
//! before y's rounding. The top k is taken on the f32 probabilities (renorm 0) or the
//! logits (renorm 1), largest first, equal values in expert order, NaN largest (as torch).
//! The combine adds in f32 (f16/bf16 widen exactly): per expert slot `scale·(row + bias)`,
//! the slots in order, then x1, then x2, rounded once: within (K+2)·2^-24 relative to the
//! sum of the magnitudes, plus half an ulp of out's dtype.

use super::dense::{bindings, load, store};
use crate::dtype::DType;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::executor::{Bindings, Executor, Work, Workspace};
use crate::ops::catalog::Entry;
use crate::tensor::TensorDesc;
use half::{bf16, f16};

use DType::*;
pub(crate) const FLOATS: &[DType] = &[F16, BF16, F32];
pub(crate) const INDEX: &[DType] = &[S32];
pub(crate) const FINISHED: &[DType] = &[Bool];
/// Largest k of the gating top-k.
const MAX_K: i64 = 1024;
/// Largest numExperts of MoeComputeExpertTokens, and its input's element bound.
const MAX_EXPERTS: i64 = 2048;
const MAX_SORTED: usize = 1 << 24;

// ---------------------------------------------------------------------------------------
// Checks shared by the family
// ---------------------------------------------------------------------------------------

/// `t` must have one of `allowed`'s dtypes and the ND format.
fn dtype_in(api: &str, name: &str, t: &TensorDesc, allowed: &[DType]) -> Result<()> {
    let names: Vec<String> = allowed.iter().map(|d| d.to_string()).collect();
    crate::ensure!(
        allowed.contains(&t.dtype),
        "{api}: {name} has dtype {}; it must be {}",
        t.dtype,
        names.join(" or ")
    );
    crate::ensure!(
        t.format.is_public(),
        "{api}: {name} has format {}; it must be ND",
        t.format
    );
    Ok(())
}

/// `t` must have shape `want`.
fn shape_is(api: &str, name: &str, t: &TensorDesc, want: &[usize]) -> Result<()> {
    crate::ensure!(
        t.shape[..] == want[..],
        "{api}: {name} has shape {:?}; it must be {want:?}",
        t.shape
    );
    Ok(())
}

/// `t` must have `rank` dims.
fn rank_is(api: &str, name: &str, t: &TensorDesc, rank: usize) -> Result<()> {
    crate::ensure!(
        t.rank() == rank,
        "{api}: {name} has {} dims ({:?}); it must have {rank}",
        t.rank(),
        t.shape
    );
    Ok(())
}

/// `t` must have `x`'s dtype.
fn same_dtype(api: &str, name: &str, t: &TensorDesc, x_name: &str, x: &TensorDesc) -> Result<()> {
    crate::ensure!(
        t.dtype == x.dtype,
        "{api}: {name} has dtype {} but {x_name} has {}: they must be the same",
        t.dtype,
        x.dtype
    );
    Ok(())
}

// ---------------------------------------------------------------------------------------
// The routing engine
// ---------------------------------------------------------------------------------------

/// The positions 0..experts.len() ordered by expert, equal experts in position order.
fn stable_order(experts: &[i64]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..experts.len()).collect();
    order.sort_by_key(|&p| experts[p]);
    order
}

/// Writes output binding `dst` (rows of `h` elements) from input binding `src` (rows of
/// `h`): row i is source row `rows[i]`, or zeros for None. The elements move in their own
/// dtype, bit for bit.
fn gather(t: &Bindings, src: usize, dst: usize, h: usize, rows: &[Option<usize>]) -> Result<()> {
    fn typed<T: Element>(
        t: &Bindings,
        src: usize,
        dst: usize,
        h: usize,
        rows: &[Option<usize>],
    ) -> Result<()> {
        let x = load::<T>(t, src, &t.view(src)?.shape)?;
        let mut out = vec![T::default(); rows.len() * h];
        for (o, r) in out.chunks_mut(h.max(1)).zip(rows) {
            if let Some(r) = r {
                o.copy_from_slice(&x[r * h..(r + 1) * h]);
            }
        }
        store(t, dst, &out)
    }
    match t.view(src)?.dtype {
        F16 => typed::<f16>(t, src, dst, h, rows),
        BF16 => typed::<bf16>(t, src, dst, h, rows),
        _ => typed::<f32>(t, src, dst, h, rows),
    }
}

/// A binding's elements as i64, row-major.
fn indices(t: &Bindings, b: usize) -> Result<Vec<i64>> {
    load::<i64>(t, b, &t.view(b)?.shape)
}

/// A run-time refusal of an index read from device memory.
fn bad_index(api: &str, what: String) -> Error {
    Error::Invalid(format!("{api}: {what}"))
}

// ---------------------------------------------------------------------------------------
// Gating: softmax and top k
// ---------------------------------------------------------------------------------------

/// The k largest of `v`, largest first: equal values (-0 and +0 too) in index order, NaN
/// largest.
fn top_k(v: &[f32], k: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..v.len()).collect();
    // A stable sort, descending: ties keep index order.
    order.sort_by(|&a, &b| {
        let (x, y) = (v[a], v[b]);
        match (x.is_nan(), y.is_nan()) {
            (true, true) => std::cmp::Ordering::Equal,
            (true, false) => std::cmp::Ordering::Less,
            (false, true) => std::cmp::Ordering::Greater,
            _ => y.partial_cmp(&x).expect("no NaN"),
        }
    });
    order.truncate(k);
    order
}

/// softmax(v) in f32: the max subtracted, exp, an f32 sum in order, one division each.
fn softmax(v: &[f32]) -> Vec<f32> {
    let m = v.iter().fold(f32::NEG_INFINITY, |m, &x| {
        if x.is_nan() || m.is_nan() {
            f32::NAN
        } else {
            m.max(x)
        }
    });
    let e: Vec<f32> = v.iter().map(|&x| (x - m).exp()).collect();
    let s: f32 = e.iter().sum();
    e.iter().map(|&x| x / s).collect()
}

struct Gating {
    rows: usize,
    experts: usize,
    k: usize,
    /// V2 renorm 1: top k of the logits, then their softmax.
    renorm: bool,
    has_finished: bool,
    /// V1: rowIdxOut (binding 4).
    row_idx: bool,
    /// V2: softmaxResultOutOptional (binding 4).
    softmax_out: bool,
}

impl Work for Gating {
    fn workspace_size(&self) -> u64 {
        0
    }
    fn run(&self, t: &Bindings, _: Workspace) -> Result<()> {
        use rayon::prelude::*;
        let (e, k) = (self.experts, self.k);
        let x = load::<f32>(t, 0, &t.view(0)?.shape)?;
        let finished = if self.has_finished {
            load::<u8>(t, 1, &t.view(1)?.shape)?
        } else {
            vec![0; self.rows]
        };
        let mut y = vec![0f32; self.rows * k];
        let mut idx = vec![0i32; self.rows * k];
        let mut probs = vec![0f32; if self.softmax_out { x.len() } else { 0 }];
        let row = |r: usize, y: &mut [f32], idx: &mut [i32], probs: &mut [f32]| {
            let logits = &x[r * e..(r + 1) * e];
            let top = if self.renorm {
                let top = top_k(logits, k);
                let picked: Vec<f32> = top.iter().map(|&i| logits[i]).collect();
                y.copy_from_slice(&softmax(&picked));
                top
            } else {
                let p = softmax(logits);
                let top = top_k(&p, k);
                for (y, &i) in y.iter_mut().zip(&top) {
                    *y = p[i];
                }
                if !probs.is_empty() {
                    probs.copy_from_slice(&p);
                }
                top
            };
            for (o, &i) in idx.iter_mut().zip(&top) {
                // A finished row routes every slot to the expert past the last.
                *o = if finished[r] != 0 { e as i32 } else { i as i32 };
            }
        };
        crate::engine::pool().install(|| {
            if self.softmax_out {
                y.par_chunks_mut(k)
                    .zip(idx.par_chunks_mut(k))
                    .zip(probs.par_chunks_mut(e))
                    .enumerate()
                    .for_each(|(r, ((y, i), p))| row(r, y, i, p));
            } else {
                y.par_chunks_mut(k)
                    .zip(idx.par_chunks_mut(k))
                    .enumerate()
                    .for_each(|(r, (y, i))| row(r, y, i, &mut []));
            }
        });
        store(t, 2, &y)?;
        store(t, 3, &idx)?;
        if self.row_idx {
            // rowIdx[r, j] = j·rows + r: the slot-major position of (r, j).
            let row_idx: Vec<i32> = (0..self.rows * k)
                .map(|p| ((p % k) * self.rows + p / k) as i32)
                .collect();
            store(t, 4, &row_idx)?;
        }
        if self.softmax_out {
            store(t, 4, &probs)?;
        }
        Ok(())
    }
}

/// The checks of both gating versions; returns (rows, experts).
fn check_gating(
    api: &str,
    x: &TensorDesc,
    finished: Option<&TensorDesc>,
    k: i64,
    y: &TensorDesc,
    expert_idx: &TensorDesc,
) -> Result<(usize, usize)> {
    dtype_in(api, "x", x, FLOATS)?;
    crate::ensure!(
        matches!(x.rank(), 2 | 3),
        "{api}: x has {} dims ({:?}); it must have 2 or 3",
        x.rank(),
        x.shape
    );
    let r = x.rank();
    let experts = x.shape[r - 1];
    crate::ensure!(
        k > 0 && k <= MAX_K && k as usize <= experts,
        "{api}: k is {k}; it must be in [1, {MAX_K}] and at most the experts of x ({experts}, x's last dim)"
    );
    if let Some(f) = finished {
        dtype_in(api, "finishedOptional", f, FINISHED)?;
        shape_is(api, "finishedOptional", f, &x.shape[..r - 1])?;
    }
    let mut out_shape = x.shape.to_vec();
    out_shape[r - 1] = k as usize;
    dtype_in(api, "yOut", y, FLOATS)?;
    same_dtype(api, "yOut", y, "x", x)?;
    shape_is(api, "yOut", y, &out_shape)?;
    dtype_in(api, "expertIdxOut", expert_idx, INDEX)?;
    shape_is(api, "expertIdxOut", expert_idx, &out_shape)?;
    y.check_output("yOut")?;
    expert_idx.check_output("expertIdxOut")?;
    crate::ensure!(
        x.shape.iter().all(|&d| d <= i32::MAX as usize),
        "{api}: x {:?} has a dim above 2147483647",
        x.shape
    );
    Ok((x.numel() / experts.max(1), experts))
}

/// aclnnMoeGatingTopKSoftmax: `yOut, expertIdxOut = topk(softmax(x), k)`, rowIdxOut the
/// slot-major position of each (row, slot); a finished row's experts are all E.
pub fn gating_top_k_softmax(
    x: &TensorDesc,
    finished: Option<&TensorDesc>,
    k: i64,
    y: &TensorDesc,
    expert_idx: &TensorDesc,
    row_idx: &TensorDesc,
) -> Result<Executor> {
    const API: &str = "aclnnMoeGatingTopKSoftmax";
    let (rows, experts) = check_gating(API, x, finished, k, y, expert_idx)?;
    dtype_in(API, "rowIdxOut", row_idx, INDEX)?;
    shape_is(API, "rowIdxOut", row_idx, &y.shape)?;
    row_idx.check_output("rowIdxOut")?;
    Ok(Executor::new(
        API,
        bindings(
            &[Some(x), finished],
            &[Some(y), Some(expert_idx), Some(row_idx)],
        ),
        Gating {
            rows,
            experts,
            k: k as usize,
            renorm: false,
            has_finished: finished.is_some(),
            row_idx: true,
            softmax_out: false,
        },
    ))
}

/// aclnnMoeGatingTopKSoftmaxV2: renorm 0 as V1 (and the f32 softmax written when
/// outputSoftmaxResultFlag), renorm 1 `yOut = softmax(topk(x, k))`.
#[allow(clippy::too_many_arguments)]
pub fn gating_top_k_softmax_v2(
    x: &TensorDesc,
    finished: Option<&TensorDesc>,
    k: i64,
    renorm: i64,
    output_softmax: bool,
    y: &TensorDesc,
    expert_idx: &TensorDesc,
    softmax_out: Option<&TensorDesc>,
) -> Result<Executor> {
    const API: &str = "aclnnMoeGatingTopKSoftmaxV2";
    let (rows, experts) = check_gating(API, x, finished, k, y, expert_idx)?;
    crate::ensure!(
        matches!(renorm, 0 | 1),
        "{API}: renorm is {renorm}; it must be 0 (softmax, then top k) or 1 (top k, then softmax)"
    );
    // The softmax is an output only when asked for and computed (renorm 0).
    let write_softmax = renorm == 0 && output_softmax;
    if write_softmax {
        let Some(s) = softmax_out else {
            crate::bail!(
                "{API}: outputSoftmaxResultFlag is true but softmaxResultOutOptional is NULL"
            );
        };
        dtype_in(API, "softmaxResultOutOptional", s, &[F32])?;
        shape_is(API, "softmaxResultOutOptional", s, &x.shape)?;
        s.check_output("softmaxResultOutOptional")?;
    }
    let third = softmax_out.filter(|_| write_softmax);
    Ok(Executor::new(
        API,
        bindings(&[Some(x), finished], &[Some(y), Some(expert_idx), third]),
        Gating {
            rows,
            experts,
            k: k as usize,
            renorm: renorm == 1,
            has_finished: finished.is_some(),
            row_idx: false,
            softmax_out: write_softmax,
        },
    ))
}

// ---------------------------------------------------------------------------------------
// Dispatch: MoeInitRouting
// ---------------------------------------------------------------------------------------

struct InitRouting {
    n: usize,
    k: usize,
    h: usize,
    /// Rows of expandedXOut: min(n, activeNum)·k.
    active_rows: usize,
}

impl Work for InitRouting {
    fn workspace_size(&self) -> u64 {
        0
    }
    fn run(&self, t: &Bindings, _: Workspace) -> Result<()> {
        const API: &str = "aclnnMoeInitRouting";
        let nk = self.n * self.k;
        let row_idx = indices(t, 1)?;
        let experts = indices(t, 2)?;
        // rowIdx must be a permutation of 0..n·k (it names each slot's expanded row).
        let mut seen = vec![false; nk];
        for (p, &r) in row_idx.iter().enumerate() {
            if r < 0 || r as u64 >= nk as u64 || seen[r as usize] {
                return Err(bad_index(
                    API,
                    format!(
                        "rowIdx[{}][{}] is {r}; rowIdx must hold each of 0..{nk} once",
                        p / self.k,
                        p % self.k
                    ),
                ));
            }
            seen[r as usize] = true;
        }
        let order = stable_order(&experts);
        let sorted_rows: Vec<usize> = order.iter().map(|&p| row_idx[p] as usize).collect();
        let mut expanded_row_idx = vec![0i32; nk];
        for (i, &r) in sorted_rows.iter().enumerate() {
            expanded_row_idx[r] = i as i32;
        }
        let sorted_experts: Vec<i32> = order.iter().map(|&p| experts[p] as i32).collect();
        let rows: Vec<Option<usize>> = sorted_rows[..self.active_rows]
            .iter()
            .map(|&r| Some(r % self.n))
            .collect();
        gather(t, 0, 3, self.h, &rows)?;
        store(t, 4, &expanded_row_idx)?;
        store(t, 5, &sorted_experts)
    }
}

/// aclnnMoeInitRouting: the (token, slot) pairs sorted by expert; expandedXOut row i is
/// x's row of the i-th (its first min(n, activeNum)·k), expandedRowIdxOut[rowIdx of the
/// i-th] = i, expandedExpertIdxOut the sorted experts.
pub fn init_routing(
    x: &TensorDesc,
    row_idx: &TensorDesc,
    expert_idx: &TensorDesc,
    active_num: i64,
    expanded_x: &TensorDesc,
    expanded_row_idx: &TensorDesc,
    expanded_expert_idx: &TensorDesc,
) -> Result<Executor> {
    const API: &str = "aclnnMoeInitRouting";
    dtype_in(API, "x", x, FLOATS)?;
    dtype_in(API, "rowIdx", row_idx, INDEX)?;
    dtype_in(API, "expertIdx", expert_idx, INDEX)?;
    for (name, t) in [("x", x), ("rowIdx", row_idx), ("expertIdx", expert_idx)] {
        rank_is(API, name, t, 2)?;
    }
    let (n, h, k) = (x.shape[0], x.shape[1], expert_idx.shape[1]);
    crate::ensure!(
        row_idx.shape[0] == n && expert_idx.shape[0] == n,
        "{API}: the first dims of x {:?}, rowIdx {:?} and expertIdx {:?} must be equal",
        x.shape,
        row_idx.shape,
        expert_idx.shape
    );
    shape_is(API, "rowIdx", row_idx, &expert_idx.shape)?;
    crate::ensure!(
        active_num >= 0,
        "{API}: activeNum is {active_num}; it must be non-negative"
    );
    let active_rows = n.min(active_num as usize) * k;
    dtype_in(API, "expandedXOut", expanded_x, FLOATS)?;
    same_dtype(API, "expandedXOut", expanded_x, "x", x)?;
    shape_is(API, "expandedXOut", expanded_x, &[active_rows, h])?;
    for (name, t) in [
        ("expandedRowIdxOut", expanded_row_idx),
        ("expandedExpertIdxOut", expanded_expert_idx),
    ] {
        dtype_in(API, name, t, INDEX)?;
        shape_is(API, name, t, &[n * k])?;
    }
    for (name, t) in [
        ("expandedXOut", expanded_x),
        ("expandedRowIdxOut", expanded_row_idx),
        ("expandedExpertIdxOut", expanded_expert_idx),
    ] {
        t.check_output(name)?;
    }
    Ok(Executor::new(
        API,
        bindings(
            &[Some(x), Some(row_idx), Some(expert_idx)],
            &[
                Some(expanded_x),
                Some(expanded_row_idx),
                Some(expanded_expert_idx),
            ],
        ),
        InitRouting {
            n,
            k,
            h,
            active_rows,
        },
    ))
}

/// How many of each expert 0..experts `sorted` (ascending) holds.
fn histogram(sorted: &[i64], experts: usize) -> Vec<i32> {
    let mut h = vec![0i32; experts];
    for &e in sorted {
        h[e as usize] += 1;
    }
    h
}

struct InitRoutingV2 {
    k: usize,
    h: usize,
    /// Dropless: rows of expandedXOut (activeNum, else n·k).
    active_rows: usize,
    experts: usize,
    /// Drop/pad mode: each expert's rows, in expandedXOut (E, C, H).
    capacity: Option<usize>,
    /// expertTokensCountOrCumsumFlag in the dropless mode: 1 cumsum, 2 count, 0 none.
    counts: i64,
    /// expertTokensBeforeCapacityFlag in the drop/pad mode.
    before_capacity: bool,
}

impl Work for InitRoutingV2 {
    fn workspace_size(&self) -> u64 {
        0
    }
    fn run(&self, t: &Bindings, _: Workspace) -> Result<()> {
        const API: &str = "aclnnMoeInitRoutingV2";
        let experts = indices(t, 1)?;
        let counted = self.capacity.is_some() || self.counts > 0;
        if counted {
            if let Some(p) = experts
                .iter()
                .position(|&e| e < 0 || e as u64 >= self.experts as u64)
            {
                return Err(bad_index(
                    API,
                    format!(
                        "expertIdx[{}][{}] is {}; it must be in [0, expertNum = {})",
                        p / self.k,
                        p % self.k,
                        experts[p],
                        self.experts
                    ),
                ));
            }
        }
        // The slots, token-major, sorted by expert: slot p is token p / k.
        let order = stable_order(&experts);
        let sorted: Vec<i64> = order.iter().map(|&p| experts[p]).collect();
        let mut expanded_row_idx = vec![-1i32; experts.len()];
        let rows: Vec<Option<usize>> = if let Some(c) = self.capacity {
            // Each expert keeps its first C slots (in sorted order); the rest are dropped
            // (-1) and the rows left over are zeros.
            let mut rows = vec![None; self.experts * c];
            let mut start = 0;
            for (e, &count) in histogram(&sorted, self.experts).iter().enumerate() {
                for r in 0..(count as usize).min(c) {
                    let p = order[start + r];
                    expanded_row_idx[p] = (e * c + r) as i32;
                    rows[e * c + r] = Some(p / self.k);
                }
                start += count as usize;
            }
            rows
        } else {
            for (i, &p) in order.iter().enumerate() {
                expanded_row_idx[p] = i as i32;
            }
            order[..self.active_rows]
                .iter()
                .map(|&p| Some(p / self.k))
                .collect()
        };
        gather(t, 0, 2, self.h, &rows)?;
        store(t, 3, &expanded_row_idx)?;
        if self.counts > 0 || self.before_capacity {
            let mut h = histogram(&sorted, self.experts);
            if self.counts == 1 {
                for e in 1..h.len() {
                    h[e] += h[e - 1];
                }
            }
            store(t, if self.before_capacity { 5 } else { 4 }, &h)?;
        }
        Ok(())
    }
}

/// aclnnMoeInitRoutingV2: the slots of expertIdx (token-major) stably sorted by expert;
/// dropless (dropPadMode 0): expandedXOut row i is token sortedSlot[i] / k (the first
/// activeNum rows when activeNum > 0), expandedRowIdxOut[sortedSlot[i]] = i, and each
/// expert's count or its cumsum; drop/pad (1): expert e's first expertCapacity slots fill
/// rows e·C.. of expandedXOut (E, C, H), zeros after them, a dropped slot's row -1, and
/// each expert's count before the drop.
#[allow(clippy::too_many_arguments)]
pub fn init_routing_v2(
    x: &TensorDesc,
    expert_idx: &TensorDesc,
    active_num: i64,
    expert_capacity: i64,
    expert_num: i64,
    drop_pad_mode: i64,
    counts_flag: i64,
    before_capacity_flag: bool,
    expanded_x: &TensorDesc,
    expanded_row_idx: &TensorDesc,
    counts_out: Option<&TensorDesc>,
    before_capacity_out: Option<&TensorDesc>,
) -> Result<Executor> {
    const API: &str = "aclnnMoeInitRoutingV2";
    dtype_in(API, "x", x, FLOATS)?;
    dtype_in(API, "expertIdx", expert_idx, INDEX)?;
    rank_is(API, "x", x, 2)?;
    rank_is(API, "expertIdx", expert_idx, 2)?;
    let (n, h, k) = (x.shape[0], x.shape[1], expert_idx.shape[1]);
    crate::ensure!(
        expert_idx.shape[0] == n,
        "{API}: the first dims of x {:?} and expertIdx {:?} must be equal",
        x.shape,
        expert_idx.shape
    );
    for (name, v) in [
        ("activeNum", active_num),
        ("expertCapacity", expert_capacity),
        ("expertNum", expert_num),
    ] {
        crate::ensure!(v >= 0, "{API}: {name} is {v}; it must be non-negative");
    }
    crate::ensure!(
        matches!(drop_pad_mode, 0 | 1),
        "{API}: dropPadMode is {drop_pad_mode}; it must be 0 (dropless) or 1 (drop/pad)"
    );
    let drop = drop_pad_mode == 1;
    crate::ensure!(
        !drop || expert_capacity > 0 && expert_num > 0,
        "{API}: with dropPadMode 1, expertCapacity ({expert_capacity}) and expertNum ({expert_num}) must be positive"
    );
    crate::ensure!(
        (0..=2).contains(&counts_flag),
        "{API}: expertTokensCountOrCumsumFlag is {counts_flag}; it must be 0 (none), 1 (cumsum) or 2 (count)"
    );
    crate::ensure!(
        counts_flag == 0 || expert_num > 0,
        "{API}: expertTokensCountOrCumsumFlag {counts_flag} needs expertNum > 0 (it is {expert_num})"
    );
    crate::ensure!(
        !(drop && n > 0 && expert_capacity as usize > n),
        "{API}: expertCapacity {expert_capacity} exceeds x's {n} rows (dropPadMode 1)"
    );
    let nk = n * k;
    let active_rows = if active_num > 0 {
        nk.min(active_num as usize)
    } else {
        nk
    };
    let (e, c) = (expert_num as usize, expert_capacity as usize);
    dtype_in(API, "expandedXOut", expanded_x, FLOATS)?;
    same_dtype(API, "expandedXOut", expanded_x, "x", x)?;
    if drop {
        shape_is(API, "expandedXOut", expanded_x, &[e, c, h])?;
    } else {
        shape_is(API, "expandedXOut", expanded_x, &[active_rows, h])?;
    }
    dtype_in(API, "expandedRowIdxOut", expanded_row_idx, INDEX)?;
    shape_is(API, "expandedRowIdxOut", expanded_row_idx, &[nk])?;
    expanded_x.check_output("expandedXOut")?;
    expanded_row_idx.check_output("expandedRowIdxOut")?;
    // The optional outputs are written only in the mode that defines them.
    let counts = if drop { 0 } else { counts_flag };
    let before_capacity = drop && before_capacity_flag;
    let mut third = None;
    let mut fourth = None;
    for (used, name, t, slot) in [
        (
            counts > 0,
            "expertTokensCountOrCumsumOutOptional",
            counts_out,
            &mut third,
        ),
        (
            before_capacity,
            "expertTokensBeforeCapacityOutOptional",
            before_capacity_out,
            &mut fourth,
        ),
    ] {
        if !used {
            continue;
        }
        let Some(t) = t else {
            crate::bail!("{API}: {name} is NULL but its flag asks for it");
        };
        dtype_in(API, name, t, INDEX)?;
        shape_is(API, name, t, &[e])?;
        t.check_output(name)?;
        *slot = Some(t);
    }
    Ok(Executor::new(
        API,
        bindings(
            &[Some(x), Some(expert_idx)],
            &[Some(expanded_x), Some(expanded_row_idx), third, fourth],
        ),
        InitRoutingV2 {
            k,
            h,
            active_rows,
            experts: e,
            capacity: drop.then_some(c),
            counts,
            before_capacity,
        },
    ))
}

// ---------------------------------------------------------------------------------------
// Counting: MoeComputeExpertTokens
// ---------------------------------------------------------------------------------------

struct ExpertTokens {
    experts: usize,
}

impl Work for ExpertTokens {
    fn workspace_size(&self) -> u64 {
        0
    }
    fn run(&self, t: &Bindings, _: Workspace) -> Result<()> {
        let sorted = indices(t, 0)?;
        // The binary search of the device: on a sorted list, the count of values ≤ e.
        let ends: Vec<i32> = (0..self.experts as i64)
            .map(|e| sorted.partition_point(|&v| v <= e) as i32)
            .collect();
        store(t, 1, &ends)
    }
}

/// aclnnMoeComputeExpertTokens: out[e] = the end (one past the last position) of expert
/// e's run in the sorted sortedExperts (an unsorted list gives a binary search's answer).
pub fn compute_expert_tokens(
    sorted_experts: &TensorDesc,
    num_experts: i64,
    out: &TensorDesc,
) -> Result<Executor> {
    const API: &str = "aclnnMoeComputeExpertTokens";
    dtype_in(API, "sortedExperts", sorted_experts, INDEX)?;
    crate::ensure!(
        sorted_experts.numel() < MAX_SORTED,
        "{API}: sortedExperts has {} elements; it must have fewer than 2^24",
        sorted_experts.numel()
    );
    crate::ensure!(
        num_experts > 0 && num_experts <= MAX_EXPERTS,
        "{API}: numExperts is {num_experts}; it must be in [1, {MAX_EXPERTS}]"
    );
    dtype_in(API, "out", out, INDEX)?;
    shape_is(API, "out", out, &[num_experts as usize])?;
    out.check_output("out")?;
    Ok(Executor::new(
        API,
        bindings(&[Some(sorted_experts)], &[Some(out)]),
        ExpertTokens {
            experts: num_experts as usize,
        },
    ))
}

// ---------------------------------------------------------------------------------------
// Combine: MoeFinalizeRouting (V2)
// ---------------------------------------------------------------------------------------

/// Where token i's slot j finds its row in expandedRowIdx, and what it holds.
#[derive(Clone, Copy, Debug, PartialEq)]
enum DropPad {
    /// 0: dropless, slot-major positions (i + j·n).
    DroplessSlotMajor,
    /// 1: dropped/padded (expandedX (E, C, H), -1 a dropped slot), slot-major.
    PaddedSlotMajor,
    /// 2: dropless, token-major positions (i·k + j).
    DroplessTokenMajor,
    /// 3: dropped/padded, token-major.
    PaddedTokenMajor,
}

impl DropPad {
    fn from(mode: i64) -> Option<DropPad> {
        Some(match mode {
            0 => DropPad::DroplessSlotMajor,
            1 => DropPad::PaddedSlotMajor,
            2 => DropPad::DroplessTokenMajor,
            3 => DropPad::PaddedTokenMajor,
            _ => return None,
        })
    }
    fn padded(self) -> bool {
        matches!(self, DropPad::PaddedSlotMajor | DropPad::PaddedTokenMajor)
    }
    fn position(self, i: usize, j: usize, n: usize, k: usize) -> usize {
        match self {
            DropPad::DroplessSlotMajor | DropPad::PaddedSlotMajor => i + j * n,
            _ => i * k + j,
        }
    }
}

/// The combine's bindings: expandedX 0, expandedRowIdx 1, x1 2, x2 3, bias 4, scales 5,
/// expertIdx 6, out 7 (V2's order; V1 binds in it too).
struct Combine {
    api: &'static str,
    n: usize,
    k: usize,
    h: usize,
    /// Rows of expandedX (E·C in the padded modes).
    rows: usize,
    /// Rows of bias (the experts).
    experts: usize,
    mode: DropPad,
    has: [bool; 7],
}

impl Work for Combine {
    fn workspace_size(&self) -> u64 {
        0
    }
    fn run(&self, t: &Bindings, _: Workspace) -> Result<()> {
        use rayon::prelude::*;
        let (n, k, h, api) = (self.n, self.k, self.h, self.api);
        // Every index checked before anything is written.
        let row_idx = indices(t, 1)?;
        let experts = if self.has[6] { indices(t, 6)? } else { vec![] };
        let mut slots: Vec<(Option<usize>, usize)> = Vec::with_capacity(n * k);
        for i in 0..n {
            for j in 0..k {
                let p = self.mode.position(i, j, n, k);
                let r = row_idx[p];
                let row = if r == -1 && self.mode.padded() {
                    None
                } else if r < 0 || r as u64 >= self.rows as u64 {
                    return Err(bad_index(
                        api,
                        format!(
                            "expandedRowIdx[{p}] is {r}; it must be in [0, {}){}",
                            self.rows,
                            if self.mode.padded() {
                                " or -1 (dropped)"
                            } else {
                                ""
                            }
                        ),
                    ));
                } else {
                    Some(r as usize)
                };
                let e = if self.has[4] {
                    let e = experts[i * k + j];
                    if e < 0 || e as u64 >= self.experts as u64 {
                        return Err(bad_index(
                            api,
                            format!(
                                "the expert index [{i}][{j}] is {e}; it must be in [0, {}) (the rows of bias)",
                                self.experts
                            ),
                        ));
                    }
                    e as usize
                } else {
                    0
                };
                slots.push((row, e));
            }
        }
        let f32s = |b: usize| -> Result<Vec<f32>> {
            if self.has[b] || b == 0 {
                load::<f32>(t, b, &t.view(b)?.shape)
            } else {
                Ok(vec![])
            }
        };
        let (ex, x1, x2, bias, scales) = (f32s(0)?, f32s(2)?, f32s(3)?, f32s(4)?, f32s(5)?);
        let mut out = vec![0f32; n * h];
        crate::engine::pool().install(|| {
            out.par_chunks_mut(h.max(1)).enumerate().for_each(|(i, o)| {
                for j in 0..k {
                    let (row, e) = slots[i * k + j];
                    let s = if self.has[5] { scales[i * k + j] } else { 1.0 };
                    for (c, v) in o.iter_mut().enumerate() {
                        let x = row.map_or(0.0, |r| ex[r * h + c]);
                        let b = if self.has[4] { bias[e * h + c] } else { 0.0 };
                        *v += s * (x + b);
                    }
                }
                for (skip, has) in [(&x1, self.has[2]), (&x2, self.has[3])] {
                    if has {
                        for (v, s) in o.iter_mut().zip(&skip[i * h..(i + 1) * h]) {
                            *v += s;
                        }
                    }
                }
            })
        });
        store(t, 7, &out)
    }
}

/// The combine's checks (V2's; V1 passes its required inputs as present).
#[allow(clippy::too_many_arguments)]
fn combine(
    api: &'static str,
    expanded_x: &TensorDesc,
    expanded_row_idx: &TensorDesc,
    x1: Option<&TensorDesc>,
    x2: Option<&TensorDesc>,
    bias: Option<&TensorDesc>,
    scales: Option<&TensorDesc>,
    expert_idx: Option<&TensorDesc>,
    drop_pad_mode: i64,
    out: &TensorDesc,
) -> Result<Executor> {
    let Some(mode) = DropPad::from(drop_pad_mode) else {
        crate::bail!(
            "{api}: dropPadMode is {drop_pad_mode}; it must be 0, 1, 2 or 3 (dropless or dropped/padded, slot- or token-major expandedRowIdx)"
        );
    };
    dtype_in(api, "expandedX", expanded_x, FLOATS)?;
    dtype_in(api, "expandedRowIdx", expanded_row_idx, INDEX)?;
    // V1 documents expandedRowIdx as (n, k) but is fed MoeInitRouting's (n·k): both
    // are read as n·k entries, slot-major.
    let v1 = !api.ends_with("V2");
    crate::ensure!(
        expanded_row_idx.rank() == 1 || v1 && expanded_row_idx.rank() == 2,
        "{api}: expandedRowIdx has {} dims ({:?}); it must have 1{}",
        expanded_row_idx.rank(),
        expanded_row_idx.shape,
        if v1 { " or 2" } else { "" }
    );
    let xd = expanded_x.dtype;
    for (name, t) in [("x1", x1), ("x2", x2), ("bias", bias)] {
        if let Some(t) = t {
            dtype_in(api, name, t, FLOATS)?;
            same_dtype(api, name, t, "expandedX", expanded_x)?;
        }
    }
    if let Some(s) = scales {
        dtype_in(api, "scales", s, FLOATS)?;
        crate::ensure!(
            s.dtype == xd || (!v1 && xd == BF16 && s.dtype == F32),
            "{api}: scales has dtype {} but expandedX has {xd}: they must be the same{}",
            s.dtype,
            if !v1 { " (or FLOAT with BFLOAT16)" } else { "" }
        );
        rank_is(api, "scales", s, 2)?;
        crate::ensure!(s.shape[1] > 0, "{api}: scales {:?} has K = 0", s.shape);
    }
    let nk = expanded_row_idx.numel();
    let k = scales.map_or(1, |s| s.shape[1]);
    let n = scales.map_or(nk, |s| s.shape[0]);
    crate::ensure!(
        n * k == nk,
        "{api}: expandedRowIdx has {nk} entries but scales {:?} asks for {n}·{k}",
        scales.map(|s| s.shape.to_vec()).unwrap_or_default()
    );
    let (rows, h, padded_experts) = if mode.padded() {
        crate::ensure!(
            expanded_x.rank() == 3,
            "{api}: expandedX has {} dims ({:?}); it must have 3 (E, C, H) with dropPadMode {drop_pad_mode}",
            expanded_x.rank(),
            expanded_x.shape
        );
        let s = &expanded_x.shape;
        (s[0] * s[1], s[2], Some(s[0]))
    } else {
        crate::ensure!(
            expanded_x.rank() == 2,
            "{api}: expandedX has {} dims ({:?}); it must have 2 with dropPadMode {drop_pad_mode}",
            expanded_x.rank(),
            expanded_x.shape
        );
        (expanded_x.shape[0], expanded_x.shape[1], None)
    };
    for (name, t) in [("x1", x1), ("x2", x2)] {
        if let Some(t) = t {
            shape_is(api, name, t, &[n, h])?;
        }
    }
    crate::ensure!(
        !(x2.is_some() && x1.is_none()),
        "{api}: x2Optional is given but x1Optional is NULL: x2 needs x1"
    );
    let mut experts = 0;
    if let Some(b) = bias {
        crate::ensure!(
            expert_idx.is_some(),
            "{api}: bias is given but expertIdx is NULL: the bias rows are chosen by expert"
        );
        rank_is(api, "bias", b, 2)?;
        crate::ensure!(
            b.shape[1] == h && b.shape[0] > 0,
            "{api}: bias has shape {:?}; it must be (E, {h}) with E > 0",
            b.shape
        );
        if let Some(e) = padded_experts {
            crate::ensure!(
                b.shape[0] == e,
                "{api}: bias has {} rows but expandedX {:?} has E = {e}: they must be equal with dropPadMode {drop_pad_mode}",
                b.shape[0],
                expanded_x.shape
            );
        }
        crate::ensure!(
            b.shape[0] >= k,
            "{api}: bias has E = {} rows, fewer than K = {k}",
            b.shape[0]
        );
        experts = b.shape[0];
    }
    if let Some(e) = expert_idx {
        dtype_in(api, "expertIdx", e, INDEX)?;
        shape_is(api, "expertIdx", e, &[n, k])?;
    }
    dtype_in(api, "out", out, FLOATS)?;
    same_dtype(api, "out", out, "expandedX", expanded_x)?;
    shape_is(api, "out", out, &[n, h])?;
    out.check_output("out")?;
    let present = [
        true,
        true,
        x1.is_some(),
        x2.is_some(),
        bias.is_some(),
        scales.is_some(),
        expert_idx.is_some(),
    ];
    Ok(Executor::new(
        api,
        bindings(
            &[
                Some(expanded_x),
                Some(expanded_row_idx),
                x1,
                x2,
                bias,
                scales,
                expert_idx,
            ],
            &[Some(out)],
        ),
        Combine {
            api,
            n,
            k,
            h,
            rows,
            experts,
            mode,
            has: present,
        },
    ))
}

/// aclnnMoeFinalizeRouting: `out[i] = x1[i] + x2[i] + Σ_j scales[i,j]·(expandedX[
/// expandedRowIdx[i + j·n]] + bias[expandedExpertIdx[i,j]])` (expandedRowIdx of n·k
/// entries, 1-D or (n, k)).
#[allow(clippy::too_many_arguments)]
pub fn finalize_routing(
    expanded_x: &TensorDesc,
    x1: &TensorDesc,
    x2: Option<&TensorDesc>,
    bias: &TensorDesc,
    scales: &TensorDesc,
    expanded_row_idx: &TensorDesc,
    expanded_expert_idx: &TensorDesc,
    out: &TensorDesc,
) -> Result<Executor> {
    const API: &str = "aclnnMoeFinalizeRouting";
    combine(
        API,
        expanded_x,
        expanded_row_idx,
        Some(x1),
        x2,
        Some(bias),
        Some(scales),
        Some(expanded_expert_idx),
        0,
        out,
    )
}

/// aclnnMoeFinalizeRoutingV2: the combine with every input but expandedX and
/// expandedRowIdx optional (scales 1, no bias, no skips) and the four dropPadModes.
#[allow(clippy::too_many_arguments)]
pub fn finalize_routing_v2(
    expanded_x: &TensorDesc,
    expanded_row_idx: &TensorDesc,
    x1: Option<&TensorDesc>,
    x2: Option<&TensorDesc>,
    bias: Option<&TensorDesc>,
    scales: Option<&TensorDesc>,
    expert_idx: Option<&TensorDesc>,
    drop_pad_mode: i64,
    out: &TensorDesc,
) -> Result<Executor> {
    combine(
        "aclnnMoeFinalizeRoutingV2",
        expanded_x,
        expanded_row_idx,
        x1,
        x2,
        bias,
        scales,
        expert_idx,
        drop_pad_mode,
        out,
    )
}

/// Supported dtypes, for the operator table (docs/DTYPES.md).
pub const CATALOG: &[Entry] = &[
    Entry {
        ops: "MoeGatingTopKSoftmax, MoeGatingTopKSoftmaxV2",
        a: FLOATS,
        b: FINISHED,
        out: FLOATS,
        rule: "top k of softmax(x) over the experts in f32 (V2 renorm 1: softmax of the top k logits), expert indices INT32, finished rows routed to expert E",
    },
    Entry {
        ops: "MoeInitRouting",
        a: FLOATS,
        b: INDEX,
        out: FLOATS,
        rule: "(token, slot) pairs stably sorted by expert, x's rows gathered bit for bit, the inverse map and sorted experts INT32",
    },
    Entry {
        ops: "MoeInitRoutingV2",
        a: FLOATS,
        b: INDEX,
        out: FLOATS,
        rule: "token-major slots stably sorted by expert, rows gathered bit for bit; dropless (activeNum rows, counts or cumsum) or drop/pad to (E, C, H) with -1 for a dropped slot",
    },
    Entry {
        ops: "MoeComputeExpertTokens",
        a: INDEX,
        b: &[],
        out: INDEX,
        rule: "each expert's end in the sorted expert list (binary search)",
    },
    Entry {
        ops: "MoeFinalizeRouting, MoeFinalizeRoutingV2",
        a: FLOATS,
        b: INDEX,
        out: FLOATS,
        rule: "x1 + x2 + Σ scales·(expandedX[expandedRowIdx] + bias[expert]) in f32 (V2: optional inputs, dropPadMode 0-3, -1 a dropped slot)",
    },
];
