//! Cdist: the p-norm distance between every point (row) of x1 and every point of x2,
//! torch.cdist(x1, x2, p, compute_mode = 2).
//!
//! x1 [.., P, M] and x2 [.., R, M] (2-8 dims, f32/f16/bf16, one dtype, as the A2 column
//! of CANN's aclnnCdist.md) have batch dims (all but the last two) that broadcast;
//! out is [broadcast batch.., P, R] of the same dtype:
//! out[b, i, j] = (Σₖ |x1[b, i, k] − x2[b, j, k]|ᵖ)^(1/p), with the special norms
//! p = 0: the count of k where the difference is not 0; p = 1: Σ|d|; p = 2: √Σd²;
//! p = inf: max |d|. A NaN difference makes the distance NaN for every p (torch's p = 0
//! and inf kernels keep or drop it by the operand order of their vector min/max).
//!
//! Phase 1 checks in the op_api's order (aclnn_cdist.cpp): null; dtypes (x1, x2, out in
//! the list, x2 and out of x1's dtype); ranks 2-8; x1 and x2 with the same last dim
//! (M); p non-negative and not NaN; compute_mode 2 when |p − 2| < 1e-6 (the device runs
//! only the direct, not the matrix-product, Euclidean path); then the batch broadcast.
//! The op_api returns early (success, nothing written) when any dim but the last of x1
//! or x2 is 0, before its broadcast check; here too. Beyond the op_api, out's shape
//! must be the result's, and out may not overlap x1 or x2.
//!
//! Precision: every difference and sum in f64 from the exact inputs, rounded once to the
//! output dtype (CANN's golden computes in f32 for f16/bf16, torch in the input's
//! dtype). Bound: within 1 ulp of the output dtype against torch's float64 cdist of
//! the same values rounded to that dtype (equal in all but ties of double rounding).
//! M = 0 gives zeros, as the op_api's Fill.

use super::catalog::Entry;
use super::elementwise as ew;
use super::pool::{load, overlap, store};
use crate::dtype::DType;
use crate::element::Element;
use crate::error::Result;
use crate::executor::{Bindings, Executor, Nothing, Work, Workspace};
use crate::tensor::TensorDesc;

use DType::*;
/// The A2 list (aclnnCdist.md, op_api DTYPE_SUPPORT_LIST).
const LIST: &[DType] = &[F32, F16, BF16];
/// The op_api's MIN_DIM_LEN and MAX_DIM_LEN.
const MIN_RANK: usize = 2;
const MAX_RANK: usize = 8;

/// Which norm a row computes (the kernels' cases).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Norm {
    Zero,
    One,
    Two,
    Inf,
    General(f64),
}

impl Norm {
    fn of(p: f32) -> Norm {
        match p {
            0.0 => Norm::Zero,
            1.0 => Norm::One,
            2.0 => Norm::Two,
            p if p.is_infinite() => Norm::Inf,
            p => Norm::General(p as f64),
        }
    }

    /// The distance between rows `a` and `b`.
    fn distance(self, a: &[f64], b: &[f64]) -> f64 {
        let diffs = a.iter().zip(b).map(|(x, y)| (x - y).abs());
        // NaN-propagating max and count (see the module doc).
        let max_nan = |m: f64, d: f64| if d > m || d.is_nan() { d } else { m };
        match self {
            Norm::Zero => diffs.fold(0.0, |s, d| {
                if d.is_nan() || s.is_nan() {
                    f64::NAN
                } else {
                    s + (d != 0.0) as u8 as f64
                }
            }),
            Norm::One => diffs.sum(),
            Norm::Two => diffs.map(|d| d * d).sum::<f64>().sqrt(),
            Norm::Inf => diffs.fold(0.0, |m, d| if m.is_nan() { m } else { max_nan(m, d) }),
            Norm::General(p) => diffs.map(|d| d.powf(p)).sum::<f64>().powf(1.0 / p),
        }
    }
}

/// A tensor seen as [batch.., rows, M]: offset, the strides of the broadcast batch dims
/// (0 along dims it lacks or broadcasts), of its rows and of M.
#[derive(Clone, Debug)]
struct Matrix {
    binding: usize,
    offset: isize,
    batch: Vec<isize>,
    row: isize,
    col: isize,
}

impl Matrix {
    fn new(binding: usize, t: &TensorDesc, batch: &[usize]) -> Matrix {
        let r = t.rank();
        let lead = batch.len() - (r - 2);
        let strides = (0..batch.len())
            .map(|k| match k.checked_sub(lead) {
                Some(d) if t.shape[d] == batch[k] && batch[k] != 1 => t.strides[d],
                _ => 0,
            })
            .collect();
        Matrix {
            binding,
            offset: t.offset as isize,
            batch: strides,
            row: t.strides[r - 2],
            col: t.strides[r - 1],
        }
    }

    /// Offset of the start of batch `b` (its flat index in `dims`).
    fn base(&self, mut b: usize, dims: &[usize]) -> isize {
        let mut at = self.offset;
        for k in (0..dims.len()).rev() {
            at += (b % dims[k]) as isize * self.batch[k];
            b /= dims[k];
        }
        at
    }
}

struct Plan {
    norm: Norm,
    dtype: DType,
    batch: Vec<usize>,
    p: usize,
    r: usize,
    m: usize,
    x1: Matrix,
    x2: Matrix,
    out: Matrix,
}

impl Plan {
    fn run_typed<T: Element>(&self, t: &Bindings) -> Result<()> {
        let (a1, a2, ao) = (
            t.addr(self.x1.binding)?,
            t.addr(self.x2.binding)?,
            t.addr(self.out.binding)?,
        );
        let (p, r, m) = (self.p, self.r, self.m);
        let rows = self.batch.iter().product::<usize>() * p;
        let per = rows
            .div_ceil(crate::engine::pool().current_num_threads().max(1) * 4)
            .max(1);
        crate::engine::run_tasks(rows.div_ceil(per), |task| {
            let mut a = vec![0f64; m];
            // x2's batch (R rows of M), read once per batch a task meets.
            let mut others = vec![0f64; r * m];
            let mut loaded = usize::MAX;
            for row in task * per..((task + 1) * per).min(rows) {
                let (b, i) = (row / p, row % p);
                // SAFETY (every load/store): indexes inside views checked against their
                // storage in phase 1.
                if loaded != b {
                    let base = self.x2.base(b, &self.batch);
                    for (j, o) in others.chunks_exact_mut(m.max(1)).enumerate() {
                        for (k, v) in o.iter_mut().enumerate() {
                            let at = base + j as isize * self.x2.row + k as isize * self.x2.col;
                            *v = unsafe { load::<T>(a2, at) };
                        }
                    }
                    loaded = b;
                }
                let base = self.x1.base(b, &self.batch) + i as isize * self.x1.row;
                for (k, v) in a.iter_mut().enumerate() {
                    *v = unsafe { load::<T>(a1, base + k as isize * self.x1.col) };
                }
                let obase = self.out.base(b, &self.batch) + i as isize * self.out.row;
                for j in 0..r {
                    let d = self.norm.distance(&a, &others[j * m..(j + 1) * m]);
                    unsafe { store::<T>(ao, obase + j as isize * self.out.col, d) };
                }
            }
        });
        Ok(())
    }
}

impl Work for Plan {
    fn workspace_size(&self) -> u64 {
        0
    }
    fn run(&self, t: &Bindings, _: Workspace) -> Result<()> {
        match self.dtype {
            F16 => self.run_typed::<half::f16>(t),
            BF16 => self.run_typed::<half::bf16>(t),
            _ => self.run_typed::<f32>(t),
        }
    }
}

/// aclnnCdist: out[.., i, j] = ‖x1[.., i, :] − x2[.., j, :]‖_p.
pub fn cdist(
    x1: &TensorDesc,
    x2: &TensorDesc,
    p: f32,
    compute_mode: i64,
    out: &TensorDesc,
) -> Result<Executor> {
    const API: &str = "aclnnCdist";
    ew::check_tensor("x1", x1, LIST)?;
    ew::check_tensor("x2", x2, LIST)?;
    ew::check_tensor("out", out, LIST)?;
    ew::check_dtype_of("x1", x1, "out", out)?;
    ew::check_dtype_of("x2", x2, "out", out)?;
    for (name, t) in [("x1", x1), ("x2", x2), ("out", out)] {
        crate::ensure!(
            (MIN_RANK..=MAX_RANK).contains(&t.rank()),
            "{API}: {name} has {} dims ({:?}); it must have {MIN_RANK} to {MAX_RANK}",
            t.rank(),
            t.shape
        );
    }
    let (r1, r2) = (x1.rank(), x2.rank());
    let m = x1.shape[r1 - 1];
    crate::ensure!(
        m == x2.shape[r2 - 1],
        "{API}: x1 {:?} and x2 {:?} must have the same last dim (the points' size M): {m} and {}",
        x1.shape,
        x2.shape,
        x2.shape[r2 - 1]
    );
    crate::ensure!(
        p >= 0.0,
        "{API}: p is {p}; it must be non-negative (inf allowed) and not NaN"
    );
    crate::ensure!(
        (p as f64 - 2.0).abs() >= 1e-6 || compute_mode == 2,
        "{API}: compute_mode is {compute_mode}; with p = 2 only compute_mode 2 (no matrix-product path) is supported"
    );
    let bindings = Bindings {
        tensors: std::sync::Arc::new(vec![Some(x1.clone()), Some(x2.clone()), Some(out.clone())]),
        n_inputs: 2,
        outputs: smallvec::smallvec![2],
    };
    // The op_api's early return: a 0 in any dim but the last (M) writes nothing.
    let empty = |t: &TensorDesc| t.shape[..t.rank() - 1].contains(&0);
    if empty(x1) || empty(x2) {
        return Ok(Executor::new(API, bindings, Nothing));
    }
    let batch = crate::broadcast::broadcast_shapes(&[
        ("x1", &x1.shape[..r1 - 2]),
        ("x2", &x2.shape[..r2 - 2]),
    ])
    .map_err(|e| crate::Error::Invalid(format!("{API}: batch dims of x1 and x2: {e}")))?;
    let (pn, rn) = (x1.shape[r1 - 2], x2.shape[r2 - 2]);
    let mut want = batch.to_vec();
    want.extend([pn, rn]);
    ew::check_result_shape("out", out, &want)?;
    for (name, t) in [("x1", x1), ("x2", x2)] {
        crate::ensure!(
            !overlap(out, t),
            "{API}: out overlaps {name} in memory; the output must be apart from the inputs"
        );
    }
    let batch = batch.to_vec();
    let plan = Plan {
        norm: Norm::of(p),
        dtype: x1.dtype,
        p: pn,
        r: rn,
        m,
        x1: Matrix::new(0, x1, &batch),
        x2: Matrix::new(1, x2, &batch),
        out: Matrix::new(2, out, &batch),
        batch,
    };
    Ok(Executor::new(API, bindings, plan))
}

pub const CATALOG: &[Entry] = &[Entry {
    ops: "Cdist",
    a: LIST,
    b: LIST,
    out: LIST,
    rule: "out[.., i, j] = ‖x1[.., i, :] − x2[.., j, :]‖_p (p = 0, 1, 2, inf, general), f64, rounded once",
}];
