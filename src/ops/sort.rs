//! Sorting along one dim: Argsort (aclnn_argsort.h, torch.argsort(stable=True)), Sort
//! (aclnn_sort.h, torch.sort: values and indices) and Topk (aclnn_topk.h, torch.topk: the
//! first k of the sorted line).
//!
//! Each line along the dim becomes 128-bit keys — the value's order-preserving 64-bit key
//! in the high half, its index in the low half — sorted as plain integers, so ties keep
//! their index order (stable, ascending and descending alike) and one integer sort does
//! the work of a comparator. Floats order as torch orders them: −0 equals +0, and NaN is
//! the largest value (last ascending, first descending; NaNs among themselves by index).
//! Lines are sorted in parallel, one per task; a single long line is sorted by the pool
//! (`par_sort_unstable`). Scratch space lives in the workspace, per task. Sort is stable
//! whatever `stable` says (a stable order is one of the orders an unstable sort may give),
//! and so is Topk (torch leaves the order of ties open).

use super::catalog::Entry;
use super::elementwise as ew;
use crate::dtype::DType;
use crate::engine::remap::{at_least_1d, overlaps};
use crate::engine::{align_up, convert, pool, run_tasks, ALIGN};
use crate::error::Result;
use crate::executor::{Bindings, Executor, Nothing, Work, Workspace};
use crate::tensor::TensorDesc;
use rayon::slice::ParallelSliceMut;

use DType::*;
/// aclnnArgsort, Atlas A2 (DTYPE_SUPPORT_LIST_910B of aclnn_argsort.cpp).
const ARGSORT: &[DType] = &[F32, F16, S8, S16, S32, S64, U8, BF16];
const INDEX: &[DType] = &[S64];
/// aclnnSort.md, Atlas A2 (self and valuesOut).
const SORT: &[DType] = &[BF16, F16, F32, S8, S16, S32, S64, U8, Bool];
/// aclnnTopk.md, Atlas A2.
const TOPK: &[DType] = &[S8, U8, S16, S32, S64, F16, F32, F64, BF16];
/// Lines at least this long are sorted by the whole pool when there are fewer lines
/// than threads.
const PARALLEL_LINE: usize = 1 << 15;

/// The order-preserving key of a float (exact in f64): NaN above +inf, −0 as +0.
fn float_key(x: f64) -> u64 {
    if x.is_nan() {
        return u64::MAX;
    }
    let bits = (x + 0.0).to_bits();
    if bits >> 63 == 1 {
        !bits
    } else {
        bits | 1 << 63
    }
}

fn int_key(x: i64) -> u64 {
    (x as u64) ^ (1 << 63)
}

/// The planned sort of self (binding 0) along `axis`, writing the first `k` positions of
/// each sorted line to the outputs.
struct Sort {
    src: TensorDesc,
    axis: usize,
    descending: bool,
    /// (binding, view) of the indices output.
    indices: (usize, TensorDesc),
    /// (binding, view) of the values output, if any.
    values: Option<(usize, TensorDesc)>,
    /// Sorted positions written per line (the outputs' size along the axis).
    k: usize,
    /// Tasks the workspace is carved for.
    tasks: usize,
}

impl Sort {
    fn line_len(&self) -> usize {
        self.src.shape[self.axis]
    }
    fn lines(&self) -> usize {
        self.src.numel() / self.line_len().max(1)
    }
    /// Workspace bytes of one task: the keys (16 bytes each), the widened line (8) and
    /// the gathered values (16).
    fn task_bytes(&self) -> usize {
        let n = self.line_len();
        align_up(n * 16)
            + align_up(n * 8)
            + if self.values.is_some() {
                align_up(n * 16)
            } else {
                0
            }
    }

    /// Offsets of line `l`'s first element in self, the indices and the values output.
    fn line_offsets(&self, l: usize) -> (isize, isize, isize) {
        let out = &self.indices.1;
        let (mut rest, mut so, mut oo, mut vo) = (l, 0isize, 0isize, 0isize);
        for a in (0..self.src.rank()).rev() {
            if a == self.axis {
                continue;
            }
            let i = rest % self.src.shape[a];
            rest /= self.src.shape[a];
            so += i as isize * self.src.strides[a];
            oo += i as isize * out.strides[a];
            if let Some((_, v)) = &self.values {
                vo += i as isize * v.strides[a];
            }
        }
        (so, oo, vo)
    }

    /// Sorts line `l` with the task scratch at `scratch`.
    ///
    /// # Safety
    /// `src0` / `idx0` are the first elements of the bound views; `scratch` holds
    /// `task_bytes()` bytes, 16-byte aligned, used by no other task.
    unsafe fn line(
        &self,
        l: usize,
        src0: usize,
        outs: (usize, usize),
        scratch: usize,
        parallel: bool,
    ) {
        let (idx0, val0) = outs;
        let n = self.line_len();
        let k = self.k;
        let (so, oo, vo) = self.line_offsets(l);
        let sd = self.src.dtype;
        let float = sd.is_float();
        // SAFETY (whole block): scratch regions of n elements each; views as planned.
        unsafe {
            let keys = std::slice::from_raw_parts_mut(scratch as *mut u128, n);
            let wide = (scratch + align_up(n * 16)) as *mut u8;
            convert::run(
                (src0 as *const u8).offset(so * sd.size() as isize),
                sd,
                self.src.strides[self.axis],
                wide,
                if float { F64 } else { S64 },
                1,
                n,
            );
            for (i, k) in keys.iter_mut().enumerate() {
                let key = if float {
                    float_key(*(wide as *const f64).add(i))
                } else {
                    int_key(*(wide as *const i64).add(i))
                };
                let key = if self.descending { !key } else { key };
                *k = (key as u128) << 64 | i as u128;
            }
            if parallel {
                pool().install(|| keys.par_sort_unstable());
            } else {
                keys.sort_unstable();
            }
            // The indices, widened in place over the line buffer, then converted out.
            let idx = wide as *mut i64;
            for (i, key) in keys[..k].iter().enumerate() {
                *idx.add(i) = *key as u64 as i64;
            }
            let out = &self.indices.1;
            convert::run(
                idx as *const u8,
                S64,
                1,
                (idx0 as *mut u8).offset(oo * out.dtype.size() as isize),
                out.dtype,
                out.strides[self.axis],
                k,
            );
            // The values: self's elements gathered in sorted order, then converted out.
            if let Some((_, v)) = &self.values {
                let e = sd.size();
                let gathered = (scratch + align_up(n * 16) + align_up(n * 8)) as *mut u8;
                let line0 = (src0 as *const u8).offset(so * e as isize);
                for j in 0..k {
                    let i = *idx.add(j) as isize;
                    std::ptr::copy_nonoverlapping(
                        line0.offset(i * self.src.strides[self.axis] * e as isize),
                        gathered.add(j * e),
                        e,
                    );
                }
                convert::run(
                    gathered,
                    sd,
                    1,
                    (val0 as *mut u8).offset(vo * v.dtype.size() as isize),
                    v.dtype,
                    v.strides[self.axis],
                    k,
                );
            }
        }
    }
}

impl Work for Sort {
    fn workspace_size(&self) -> u64 {
        (self.tasks * self.task_bytes() + ALIGN) as u64
    }
    fn check(&self, b: &Bindings) -> Result<()> {
        let src = b.view(0)?;
        crate::ensure!(
            !overlaps(src, b.view(self.indices.0)?),
            "self now overlaps the indices output, which it did not when the executor was planned; plan again"
        );
        if let Some((vb, _)) = &self.values {
            crate::ensure!(
                !overlaps(src, b.view(*vb)?),
                "self now overlaps the values output, which it did not when the executor was planned; plan again"
            );
        }
        Ok(())
    }
    fn run(&self, b: &Bindings, ws: Workspace) -> Result<()> {
        self.check(b)?;
        let src0 = b.addr(0)? + self.src.offset * self.src.dtype.size();
        let (ib, iv) = &self.indices;
        let idx0 = b.addr(*ib)? + iv.offset * iv.dtype.size();
        let val0 = match &self.values {
            Some((vb, v)) => b.addr(*vb)? + v.offset * v.dtype.size(),
            None => 0,
        };
        let outs = (idx0, val0);
        let base = align_up(ws.addr);
        let lines = self.lines();
        let tb = self.task_bytes();
        let parallel = lines < pool().current_num_threads() && self.line_len() >= PARALLEL_LINE;
        if parallel {
            for l in 0..lines {
                // SAFETY: one line at a time in task 0's scratch.
                unsafe { self.line(l, src0, outs, base, true) };
            }
            return Ok(());
        }
        let per = lines.div_ceil(self.tasks);
        run_tasks(self.tasks, |t| {
            for l in t * per..((t + 1) * per).min(lines) {
                // SAFETY: task t's own scratch; the bound views.
                unsafe { self.line(l, src0, outs, base + t * tb, false) };
            }
        });
        Ok(())
    }
    fn small(&self) -> bool {
        self.src.numel() <= 4096
    }
}

/// The planner shared by Argsort, Sort and Topk: `self_` sorted along `dim`, the first
/// `k` positions (None: all) written to `indices` and, if given, `values`.
#[allow(clippy::too_many_arguments)]
fn plan(
    api: &'static str,
    list: &[DType],
    self_: &TensorDesc,
    dim: i64,
    descending: bool,
    k: Option<i64>,
    values: Option<(&'static str, &TensorDesc)>,
    indices: (&'static str, &TensorDesc),
) -> Result<Executor> {
    ew::check_tensor("self", self_, list)?;
    if let Some((name, v)) = values {
        ew::check_tensor(name, v, list)?;
        ew::check_same_dtype(name, v, self_)?;
    }
    ew::check_tensor(indices.0, indices.1, INDEX)?;
    let axis = ew::axis("dim", dim, self_.rank().max(1), "self")?;
    let n = if self_.rank() == 0 {
        1
    } else {
        self_.shape[axis]
    };
    crate::ensure!(
        n <= i32::MAX as usize,
        "dim {dim} of self has {n} elements: {api} sorts at most 2^31 − 1"
    );
    // aclnn_argsort.cpp / aclnnSort.md (not RegBase): a bf16 line of one element is refused.
    crate::ensure!(
        k.is_some() || !(self_.dtype == BF16 && n == 1 && self_.rank() > 0),
        "self is bf16 and dim {dim} has size 1, which {api} does not support on Atlas A2"
    );
    let k = match k {
        Some(k) => {
            crate::ensure!(
                (0..=n as i64).contains(&k),
                "k {k} must be in [0, {n}] (the size of dim {dim} of self)"
            );
            k as usize
        }
        None => n,
    };
    let mut shape = self_.shape.to_vec();
    if self_.rank() > 0 {
        shape[axis] = k;
    }
    if let Some((name, v)) = values {
        ew::check_result_shape(name, v, &shape)?;
    }
    ew::check_result_shape(indices.0, indices.1, &shape)?;
    let mut views = vec![Some(self_.clone())];
    views.extend(values.map(|(_, v)| Some(v.clone())));
    views.push(Some(indices.1.clone()));
    let nv = views.len();
    let bindings = Bindings {
        tensors: std::sync::Arc::new(views),
        n_inputs: 1,
        outputs: (1..nv).collect(),
    };
    if self_.is_empty() || k == 0 {
        return Ok(Executor::new(api, bindings, Nothing));
    }
    for (name, o) in values.into_iter().chain(std::iter::once(indices)) {
        crate::ensure!(
            !overlaps(self_, o),
            "{name} shares memory with self: {api} needs them apart"
        );
    }
    let src = at_least_1d(self_);
    let lines = src.numel() / n;
    let plan = Sort {
        src,
        axis,
        descending,
        indices: (nv - 1, at_least_1d(indices.1)),
        values: values.map(|(_, v)| (1, at_least_1d(v))),
        k,
        tasks: lines.min(pool().current_num_threads()).max(1),
    };
    Ok(Executor::new(api, bindings, plan))
}

/// aclnnArgsort: `out = argsort(self, dim, descending)` (stable), s64 indices.
pub fn argsort(
    self_: &TensorDesc,
    dim: i64,
    descending: bool,
    out: &TensorDesc,
) -> Result<Executor> {
    plan(
        "aclnnArgsort",
        ARGSORT,
        self_,
        dim,
        descending,
        None,
        None,
        ("out", out),
    )
}

/// aclnnSort: `valuesOut, indicesOut = sort(self, dim, descending)` (stable in any case).
pub fn sort(
    self_: &TensorDesc,
    _stable: bool,
    dim: i64,
    descending: bool,
    values_out: &TensorDesc,
    indices_out: &TensorDesc,
) -> Result<Executor> {
    plan(
        "aclnnSort",
        SORT,
        self_,
        dim,
        descending,
        None,
        Some(("valuesOut", values_out)),
        ("indicesOut", indices_out),
    )
}

/// aclnnTopk: the `k` largest (or smallest) elements along `dim`, in sorted order (which
/// `sorted` = false also permits), ties by index.
#[allow(clippy::too_many_arguments)]
pub fn topk(
    self_: &TensorDesc,
    k: i64,
    dim: i64,
    largest: bool,
    _sorted: bool,
    values_out: &TensorDesc,
    indices_out: &TensorDesc,
) -> Result<Executor> {
    plan(
        "aclnnTopk",
        TOPK,
        self_,
        dim,
        largest,
        Some(k),
        Some(("valuesOut", values_out)),
        ("indicesOut", indices_out),
    )
}

/// Supported dtypes, for the operator table (docs/DTYPES.md).
pub const CATALOG: &[Entry] = &[
    Entry {
        ops: "Argsort",
        a: ARGSORT,
        b: &[],
        out: INDEX,
        rule: "indices that sort along dim (stable; NaN largest, −0 = +0)",
    },
    Entry {
        ops: "Sort",
        a: SORT,
        b: &[],
        out: SORT,
        rule: "values and s64 indices sorted along dim (stable; NaN largest)",
    },
    Entry {
        ops: "Topk",
        a: TOPK,
        b: &[],
        out: TOPK,
        rule: "the k largest/smallest along dim, sorted, and their s64 indices",
    },
];
