//! Sorting along one dim (aclnn_argsort.h): Argsort, as torch.argsort(stable=True).
//!
//! Each line along the dim becomes 128-bit keys — the value's order-preserving 64-bit key
//! in the high half, its index in the low half — sorted as plain integers, so ties keep
//! their index order (stable, ascending and descending alike) and one integer sort does
//! the work of a comparator. Floats order as torch orders them: −0 equals +0, and NaN is
//! the largest value (last ascending, first descending; NaNs among themselves by index).
//! Lines are sorted in parallel, one per task; a single long line is sorted by the pool
//! (`par_sort_unstable`). Scratch space lives in the workspace, per task.

use super::catalog::Entry;
use super::elementwise as ew;
use crate::dtype::DType;
use crate::engine::{align_up, convert, pool, run_tasks, ALIGN};
use crate::error::Result;
use crate::executor::{Bindings, Executor, Nothing, Work, Workspace};
use crate::tensor::TensorDesc;
use rayon::slice::ParallelSliceMut;

use DType::*;
/// aclnnArgsort, Atlas A2 (DTYPE_SUPPORT_LIST_910B of aclnn_argsort.cpp).
const ARGSORT: &[DType] = &[F32, F16, S8, S16, S32, S64, U8, BF16];
const INDEX: &[DType] = &[S64];
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
    /// Workspace bytes of one task: the keys (16 bytes each) and the widened line (8).
    fn task_bytes(&self) -> usize {
        align_up(self.line_len() * 16) + align_up(self.line_len() * 8)
    }

    /// (offset in self, offset in the indices output) of line `l`'s first element.
    fn line_offsets(&self, l: usize) -> (isize, isize) {
        let out = &self.indices.1;
        let (mut rest, mut so, mut oo) = (l, 0isize, 0isize);
        for a in (0..self.src.rank()).rev() {
            if a == self.axis {
                continue;
            }
            let i = rest % self.src.shape[a];
            rest /= self.src.shape[a];
            so += i as isize * self.src.strides[a];
            oo += i as isize * out.strides[a];
        }
        (so, oo)
    }

    /// Sorts line `l` with the task scratch at `scratch`.
    ///
    /// # Safety
    /// `src0` / `idx0` are the first elements of the bound views; `scratch` holds
    /// `task_bytes()` bytes, 16-byte aligned, used by no other task.
    unsafe fn line(&self, l: usize, src0: usize, idx0: usize, scratch: usize, parallel: bool) {
        let n = self.line_len();
        let (so, oo) = self.line_offsets(l);
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
            for (i, k) in keys.iter().enumerate() {
                *idx.add(i) = *k as u64 as i64;
            }
            let out = &self.indices.1;
            convert::run(
                idx as *const u8,
                S64,
                1,
                (idx0 as *mut u8).offset(oo * out.dtype.size() as isize),
                out.dtype,
                out.strides[self.axis],
                n,
            );
        }
    }
}

impl Work for Sort {
    fn workspace_size(&self) -> u64 {
        (self.tasks * self.task_bytes() + ALIGN) as u64
    }
    fn check(&self, b: &Bindings) -> Result<()> {
        crate::ensure!(
            !overlap(b.view(0)?, b.view(self.indices.0)?),
            "self now overlaps out, which it did not when the executor was planned; plan again"
        );
        Ok(())
    }
    fn run(&self, b: &Bindings, ws: Workspace) -> Result<()> {
        self.check(b)?;
        let src0 = b.addr(0)? + self.src.offset * self.src.dtype.size();
        let (ib, iv) = &self.indices;
        let idx0 = b.addr(*ib)? + iv.offset * iv.dtype.size();
        let base = align_up(ws.addr);
        let lines = self.lines();
        let tb = self.task_bytes();
        let parallel = lines < pool().current_num_threads() && self.line_len() >= PARALLEL_LINE;
        if parallel {
            for l in 0..lines {
                // SAFETY: one line at a time in task 0's scratch.
                unsafe { self.line(l, src0, idx0, base, true) };
            }
            return Ok(());
        }
        let per = lines.div_ceil(self.tasks);
        run_tasks(self.tasks, |t| {
            for l in t * per..((t + 1) * per).min(lines) {
                // SAFETY: task t's own scratch; the bound views.
                unsafe { self.line(l, src0, idx0, base + t * tb, false) };
            }
        });
        Ok(())
    }
    fn small(&self) -> bool {
        self.src.numel() <= 4096
    }
}

/// aclnnArgsort: `out = argsort(self, dim, descending)` (stable), s64 indices.
pub fn argsort(self_: &TensorDesc, dim: i64, descending: bool, out: &TensorDesc) -> Result<Executor> {
    const API: &str = "aclnnArgsort";
    ew::check_tensor("self", self_, ARGSORT)?;
    ew::check_tensor("out", out, INDEX)?;
    let axis = ew::axis("dim", dim, self_.rank().max(1), "self")?;
    let n = if self_.rank() == 0 { 1 } else { self_.shape[axis] };
    crate::ensure!(
        n <= i32::MAX as usize,
        "dim {dim} of self has {n} elements: {API} sorts at most 2^31 − 1"
    );
    // aclnn_argsort.cpp (not RegBase): a bf16 line of one element is refused.
    crate::ensure!(
        !(self_.dtype == BF16 && n == 1 && self_.rank() > 0),
        "self is bf16 and dim {dim} has size 1, which {API} does not support on Atlas A2"
    );
    ew::check_result_shape("out", out, &self_.shape)?;
    let bindings = Bindings {
        tensors: std::sync::Arc::new(vec![Some(self_.clone()), Some(out.clone())]),
        n_inputs: 1,
        outputs: smallvec::smallvec![1],
    };
    if self_.is_empty() {
        return Ok(Executor::new(API, bindings, Nothing));
    }
    crate::ensure!(
        !overlap(self_, out),
        "out shares memory with self: {API} needs them apart"
    );
    let (mut src, mut idx) = (self_.clone(), out.clone());
    if src.rank() == 0 {
        for v in [&mut src, &mut idx] {
            v.shape.push(1);
            v.strides.push(0);
        }
    }
    let lines = src.numel() / n;
    let plan = Sort {
        src,
        axis,
        descending,
        indices: (1, idx),
        tasks: lines.min(pool().current_num_threads()).max(1),
    };
    Ok(Executor::new(API, bindings, plan))
}

fn overlap(a: &TensorDesc, b: &TensorDesc) -> bool {
    matches!((a.byte_span(), b.byte_span()), (Some(x), Some(y)) if x.0 <= y.1 && y.0 <= x.1)
}

/// Supported dtypes, for the README's operator table.
pub const CATALOG: &[Entry] = &[Entry {
    ops: "Argsort",
    a: ARGSORT,
    b: &[],
    out: INDEX,
    rule: "indices that sort along dim (stable; NaN largest, −0 = +0)",
}];
