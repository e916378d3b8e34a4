//! Sorting along one dim: Argsort (aclnn_argsort.h, torch.argsort(stable=True)), Sort
//! (aclnn_sort.h, torch.sort: values and indices) and Topk (aclnn_topk.h, torch.topk: the
//! first k of the sorted line); and the order statistics, one sorted position per line:
//! Kthvalue (aclnn_kthvalue.h: the k-th smallest), Median / MedianDim and NanMedian /
//! NanMedianDim (aclnn_median.h: the lower median, `(n − 1) / 2`, of the whole tensor or
//! along a dim).
//!
//! The order statistics are the positions of CANN's stable ascending sort (its op_api
//! sorts, then gathers the position), so a tie gives the index that comes first among the
//! tied values, which torch (a quickselect) leaves open. Median: a line holding NaN gives
//! NaN and the index of its first NaN (torch's rule); NanMedian takes the lower median of
//! the line's non-NaN values, and of an all-NaN line its first element (NaN, index 0 among
//! the NaNs: the device's `(count − 1) / 2` truncates to 0). A position is found by a
//! selection (`select_nth_unstable`) over the same unique keys, which gives exactly the
//! element a full sort would put there. An empty self: Median fills valuesOut with NaN
//! (INT64_MIN / INT32_MIN for int64 / int32, 0 for the other integers), NanMedian with NaN
//! (0 for integers), as CANN's op_api does; the dim forms and Kthvalue write nothing.
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
/// aclnnKthvalue.md, Atlas A2 (DAV_2201 list of aclnn_kthvalue.cpp).
const KTHVALUE: &[DType] = &[BF16, F16, F32, S8, S16, S32, S64, U8];
/// aclnnMedian.md / aclnnMedianDim.md / aclnnNanMedian(Dim).md, Atlas A2.
const MEDIAN: &[DType] = &[F32, F16, U8, S8, S16, S32, S64, BF16];
/// Lines at least this long are sorted by the whole pool when there are fewer lines
/// than threads.
const PARALLEL_LINE: usize = 1 << 15;

/// The order-preserving key of a float (exact in f64): NaN above +inf, −0 as +0.
pub(super) fn float_key(x: f64) -> u64 {
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

/// The order-preserving key of a signed integer.
pub(super) fn int_key(x: i64) -> u64 {
    (x as u64) ^ (1 << 63)
}

/// Which sorted positions of each line the outputs receive.
#[derive(Clone, Copy, Debug)]
enum Take {
    /// The first k (Sort and Argsort: all; Topk: k), along the outputs' axis.
    Leading(usize),
    /// One position, found per line; the outputs have size 1 along the axis.
    One(Rank),
}

/// The sorted position an order statistic takes.
#[derive(Clone, Copy, Debug)]
enum Rank {
    /// The k-th smallest, 0-based (Kthvalue's k − 1).
    Kth(usize),
    /// The lower median, (n − 1) / 2; the first NaN of a line holding one (Median).
    Median,
    /// The lower median of the non-NaN values; position 0 when all are NaN (NanMedian).
    NanMedian,
}

impl Rank {
    /// The position in a sorted line of `n` elements of which `nan` are NaN (sorted last).
    fn position(self, n: usize, nan: usize) -> usize {
        match self {
            Rank::Kth(k) => k,
            Rank::Median if nan > 0 => n - nan,
            Rank::Median => (n - 1) / 2,
            Rank::NanMedian => (n - nan).saturating_sub(1) / 2,
        }
    }
}

/// The planned sort of self (binding 0) along `axis` (or of all of it, `whole`), writing
/// the positions `take` names of each sorted line to the outputs.
struct Sort {
    src: TensorDesc,
    axis: usize,
    /// The one line is all of src, in row-major order (Median, NanMedian).
    whole: bool,
    descending: bool,
    /// (binding, view) of the indices output, if any.
    indices: Option<(usize, TensorDesc)>,
    /// (binding, view) of the values output, if any.
    values: Option<(usize, TensorDesc)>,
    take: Take,
    /// Tasks the workspace is carved for.
    tasks: usize,
}

impl Sort {
    fn line_len(&self) -> usize {
        if self.whole {
            self.src.numel()
        } else {
            self.src.shape[self.axis]
        }
    }
    fn lines(&self) -> usize {
        self.src.numel() / self.line_len().max(1)
    }
    /// Element `i` of the line starting at `so`, as an element offset from src's first.
    fn at(&self, so: isize, i: usize) -> isize {
        if !self.whole {
            return so + i as isize * self.src.strides[self.axis];
        }
        let (mut rest, mut o) = (i, so);
        for a in (0..self.src.rank()).rev() {
            o += (rest % self.src.shape[a]) as isize * self.src.strides[a];
            rest /= self.src.shape[a];
        }
        o
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
        let (mut rest, mut so, mut oo, mut vo) = (l, 0isize, 0isize, 0isize);
        if self.whole {
            return (0, 0, 0);
        }
        for a in (0..self.src.rank()).rev() {
            if a == self.axis {
                continue;
            }
            let i = rest % self.src.shape[a];
            rest /= self.src.shape[a];
            so += i as isize * self.src.strides[a];
            if let Some((_, o)) = &self.indices {
                oo += i as isize * o.strides[a];
            }
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
        let (so, oo, vo) = self.line_offsets(l);
        let sd = self.src.dtype;
        let e = sd.size() as isize;
        let float = sd.is_float();
        let wd = if float { F64 } else { S64 };
        // SAFETY (whole block): scratch regions of n elements each; views as planned.
        unsafe {
            let keys = std::slice::from_raw_parts_mut(scratch as *mut u128, n);
            let wide = (scratch + align_up(n * 16)) as *mut u8;
            let src = src0 as *const u8;
            if self.whole {
                for i in 0..n {
                    convert::run(
                        src.offset(self.at(so, i) * e),
                        sd,
                        1,
                        wide.add(i * 8),
                        wd,
                        1,
                        1,
                    );
                }
            } else {
                let stride = self.src.strides[self.axis];
                convert::run(src.offset(so * e), sd, stride, wide, wd, 1, n);
            }
            let mut nan = 0;
            for (i, k) in keys.iter_mut().enumerate() {
                let key = if float {
                    let x = *(wide as *const f64).add(i);
                    nan += x.is_nan() as usize;
                    float_key(x)
                } else {
                    int_key(*(wide as *const i64).add(i))
                };
                let key = if self.descending { !key } else { key };
                *k = (key as u128) << 64 | i as u128;
            }
            let k = match self.take {
                Take::Leading(k) => {
                    if parallel {
                        pool().install(|| keys.par_sort_unstable());
                    } else {
                        keys.sort_unstable();
                    }
                    k
                }
                Take::One(rank) => {
                    // The keys are distinct (the index is part of each), so the selected
                    // key is the one a full sort puts at that position.
                    let p = rank.position(n, nan);
                    keys.select_nth_unstable(p);
                    keys[0] = keys[p];
                    1
                }
            };
            // The indices, widened in place over the line buffer, then converted out.
            let idx = wide as *mut i64;
            for (i, key) in keys[..k].iter().enumerate() {
                *idx.add(i) = *key as u64 as i64;
            }
            if let Some((_, out)) = &self.indices {
                convert::run(
                    idx as *const u8,
                    S64,
                    1,
                    (idx0 as *mut u8).offset(oo * out.dtype.size() as isize),
                    out.dtype,
                    out.strides[self.axis],
                    k,
                );
            }
            // The values: self's elements gathered in sorted order, then converted out.
            if let Some((_, v)) = &self.values {
                let gathered = (scratch + align_up(n * 16) + align_up(n * 8)) as *mut u8;
                for j in 0..k {
                    let i = *idx.add(j) as usize;
                    std::ptr::copy_nonoverlapping(
                        src.offset(self.at(so, i) * e),
                        gathered.add(j * e as usize),
                        e as usize,
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
        if let Some((ib, _)) = &self.indices {
            crate::ensure!(
                !overlaps(src, b.view(*ib)?),
                "self now overlaps the indices output, which it did not when the executor was planned; plan again"
            );
        }
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
        let idx0 = match &self.indices {
            Some((ib, iv)) => b.addr(*ib)? + iv.offset * iv.dtype.size(),
            None => 0,
        };
        let val0 = match &self.values {
            Some((vb, v)) => b.addr(*vb)? + v.offset * v.dtype.size(),
            None => 0,
        };
        let outs = (idx0, val0);
        let base = align_up(ws.addr);
        let lines = self.lines();
        let tb = self.task_bytes();
        let parallel = matches!(self.take, Take::Leading(_))
            && lines < pool().current_num_threads()
            && self.line_len() >= PARALLEL_LINE;
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
        whole: false,
        descending,
        indices: Some((nv - 1, at_least_1d(indices.1))),
        values: values.map(|(_, v)| (1, at_least_1d(v))),
        take: Take::Leading(k),
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

/// The result shape of a reduction of `self_` along `axis` (kept as 1 or removed).
fn reduced_shape(self_: &TensorDesc, axis: usize, keepdim: bool) -> Vec<usize> {
    let mut shape = self_.shape.to_vec();
    if self_.rank() > 0 {
        if keepdim {
            shape[axis] = 1;
        } else {
            shape.remove(axis);
        }
    }
    shape
}

/// CANN's CheckReduceOutShape: an output of the result's shape, or of any shape when both
/// hold one element.
fn check_reduced_out(name: &str, out: &TensorDesc, want: &[usize]) -> Result<()> {
    let one = out.numel() == 1 && want.iter().product::<usize>() == 1;
    crate::ensure!(
        out.shape[..] == want[..] || one,
        "{name} has shape {:?} but the result has shape {want:?}",
        out.shape
    );
    out.check_output(name)
}

/// valuesOut and indicesOut of a reduction of `self_` along `axis`.
fn check_reduced_outs(
    self_: &TensorDesc,
    axis: usize,
    keepdim: bool,
    values_out: &TensorDesc,
    indices_out: &TensorDesc,
) -> Result<()> {
    let want = reduced_shape(self_, axis, keepdim);
    check_reduced_out("valuesOut", values_out, &want)?;
    check_reduced_out("indicesOut", indices_out, &want)
}

/// An order statistic's output as the engine walks it: src's rank with size 1 along
/// `axis` (an output without the axis gets it back with stride 0; a one-element output of
/// another shape is its one element).
fn line_output(out: &TensorDesc, src: &TensorDesc, axis: usize) -> TensorDesc {
    let mut v = out.clone();
    let mut shape = src.shape.to_vec();
    shape[axis] = 1;
    if out.shape[..] == shape[..] {
        return v;
    }
    if out.numel() == 1 {
        v.shape = shape.iter().copied().collect();
        v.strides = smallvec::smallvec![0; shape.len()];
        return v;
    }
    v.shape.insert(axis, 1);
    v.strides.insert(axis, 0);
    v
}

/// The lines an order statistic takes its position in.
#[derive(Clone, Copy)]
enum Lines {
    /// Along an axis.
    Along(usize),
    /// All of self, as one line in row-major order.
    Whole,
    /// None: the run writes nothing (CANN's empty cases).
    Nothing,
}

/// The planner of the order statistics: the `rank` position of each line of `self_` to
/// `values` and, if given, `indices`. The outputs' shapes are checked by the caller.
fn select(
    api: &'static str,
    self_: &TensorDesc,
    lines: Lines,
    rank: Rank,
    values: (&'static str, &TensorDesc),
    indices: Option<(&'static str, &TensorDesc)>,
) -> Result<Executor> {
    let mut views = vec![Some(self_.clone()), Some(values.1.clone())];
    views.extend(indices.map(|(_, i)| Some(i.clone())));
    let nv = views.len();
    let bindings = Bindings {
        tensors: std::sync::Arc::new(views),
        n_inputs: 1,
        outputs: (1..nv).collect(),
    };
    if self_.is_empty() || values.1.is_empty() || matches!(lines, Lines::Nothing) {
        return Ok(Executor::new(api, bindings, Nothing));
    }
    for (name, o) in std::iter::once(values).chain(indices) {
        crate::ensure!(
            !overlaps(self_, o),
            "{name} shares memory with self: {api} needs them apart"
        );
    }
    let src = at_least_1d(self_);
    let (whole, axis) = match lines {
        Lines::Along(a) => (false, a),
        _ => (true, 0),
    };
    let out_view = |o: &TensorDesc| {
        if whole {
            let mut v = o.clone();
            v.shape = smallvec::smallvec![1];
            v.strides = smallvec::smallvec![1];
            v
        } else {
            line_output(o, &src, axis)
        }
    };
    let lines = if whole {
        1
    } else {
        src.numel() / src.shape[axis]
    };
    let plan = Sort {
        axis,
        whole,
        descending: false,
        indices: indices.map(|(_, i)| (2, out_view(i))),
        values: Some((1, out_view(values.1))),
        take: Take::One(rank),
        tasks: lines.min(pool().current_num_threads()).max(1),
        src,
    };
    Ok(Executor::new(api, bindings, plan))
}

/// aclnnKthvalue: the k-th smallest element (k from 1) along `dim` and its index, the
/// first among ties (CANN's stable sort); NaN is the largest.
pub fn kthvalue(
    self_: &TensorDesc,
    k: i64,
    dim: i64,
    keepdim: bool,
    values_out: &TensorDesc,
    indices_out: &TensorDesc,
) -> Result<Executor> {
    const API: &str = "aclnnKthvalue";
    // aclnn_kthvalue.cpp's order: dim and k, then the dtypes, then the rank.
    let axis = ew::axis("dim", dim, self_.rank().max(1), "self")?;
    let n = if self_.rank() == 0 {
        1
    } else {
        self_.shape[axis]
    };
    crate::ensure!(
        (1..=n as i64).contains(&k),
        "k {k} is out of range: it must be in [1, {n}] (the size of dim {dim} of self)"
    );
    ew::check_tensor("self", self_, KTHVALUE)?;
    ew::check_tensor("valuesOut", values_out, KTHVALUE)?;
    ew::check_same_dtype("valuesOut", values_out, self_)?;
    ew::check_tensor("indicesOut", indices_out, INDEX)?;
    if !self_.is_empty() {
        check_reduced_outs(self_, axis, keepdim, values_out, indices_out)?;
    }
    select(
        API,
        self_,
        Lines::Along(axis),
        Rank::Kth(k as usize - 1),
        ("valuesOut", values_out),
        Some(("indicesOut", indices_out)),
    )
}

/// The checks Median and NanMedian share (aclnn_median.cpp's CheckParams).
fn check_whole(self_: &TensorDesc, out_name: &str, out: &TensorDesc) -> Result<()> {
    ew::check_tensor("self", self_, MEDIAN)?;
    ew::check_tensor(out_name, out, MEDIAN)?;
    ew::check_same_dtype(out_name, out, self_)?;
    let r = self_.rank();
    crate::ensure!(
        !(self_.dtype == BF16 && r > 0 && self_.shape[r - 1] == 1),
        "self is bf16 and its last dim has size 1, which is not supported on Atlas A2"
    );
    Ok(())
}

/// `out` filled with `value` (the result of a median of nothing), bound after self.
fn fill_empty(
    api: &'static str,
    self_: &TensorDesc,
    out: &TensorDesc,
    value: crate::scalar::Scalar,
) -> Result<Executor> {
    let fill = super::copy::convert_into(api, ew::Arg::Scalar(value), "valuesOut", out)?;
    let mut seq = crate::executor::Sequence::new();
    seq.push(fill, &[1]);
    let bindings = Bindings {
        tensors: std::sync::Arc::new(vec![Some(self_.clone()), Some(out.clone())]),
        n_inputs: 1,
        outputs: smallvec::smallvec![1],
    };
    Ok(Executor::new(api, bindings, seq))
}

/// aclnnMedian: the lower median of all of self; NaN if self holds one.
pub fn median(self_: &TensorDesc, values_out: &TensorDesc) -> Result<Executor> {
    const API: &str = "aclnnMedian";
    use crate::scalar::Scalar;
    check_whole(self_, "valuesOut", values_out)?;
    if self_.is_empty() && !values_out.is_empty() {
        values_out.check_output("valuesOut")?;
        let value = match self_.dtype {
            S64 => Scalar::from_value(i64::MIN),
            S32 => Scalar::from_value(i32::MIN),
            d if d.is_float() => Scalar::from_value(f32::NAN),
            _ => Scalar::from_value(0i64),
        };
        return fill_empty(API, self_, values_out, value);
    }
    if !values_out.is_empty() {
        check_reduced_out("valuesOut", values_out, &[1])?;
    }
    select(
        API,
        self_,
        Lines::Whole,
        Rank::Median,
        ("valuesOut", values_out),
        None,
    )
}

/// aclnnNanMedian: the lower median of self's non-NaN elements (NaN if there are none).
pub fn nan_median(self_: &TensorDesc, out: &TensorDesc) -> Result<Executor> {
    const API: &str = "aclnnNanMedian";
    use crate::scalar::Scalar;
    check_whole(self_, "out", out)?;
    if self_.is_empty() {
        out.check_output("out")?;
        let value = if self_.dtype.is_float() {
            Scalar::from_value(f32::NAN)
        } else {
            Scalar::from_value(0i64)
        };
        return fill_empty(API, self_, out, value);
    }
    check_reduced_out("out", out, &[1])?;
    select(
        API,
        self_,
        Lines::Whole,
        Rank::NanMedian,
        ("out", out),
        None,
    )
}

/// The checks MedianDim and NanMedianDim share (aclnn_median.cpp's CheckParamsDim); the axis.
fn check_dim(
    self_: &TensorDesc,
    dim: i64,
    keep_dim: bool,
    values_out: &TensorDesc,
    indices_out: &TensorDesc,
) -> Result<usize> {
    ew::check_tensor("self", self_, MEDIAN)?;
    ew::check_tensor("valuesOut", values_out, MEDIAN)?;
    ew::check_same_dtype("valuesOut", values_out, self_)?;
    ew::check_tensor("indicesOut", indices_out, INDEX)?;
    let axis = ew::axis("dim", dim, self_.rank().max(1), "self")?;
    let r = self_.rank();
    let want = if r == 0 || keep_dim { r } else { r - 1 };
    for (name, o) in [("valuesOut", values_out), ("indicesOut", indices_out)] {
        crate::ensure!(
            o.rank() == want,
            "{name} has {} dims but must have {want} (self has {r}, keepDim is {keep_dim})",
            o.rank()
        );
    }
    crate::ensure!(
        !(self_.dtype == BF16 && r > 0 && self_.shape[axis] == 1),
        "self is bf16 and dim {dim} has size 1, which is not supported on Atlas A2"
    );
    Ok(axis)
}

/// aclnnMedianDim: the lower median along `dim` and its index (the first among ties; a
/// line holding NaN gives NaN and its first NaN's index).
pub fn median_dim(
    self_: &TensorDesc,
    dim: i64,
    keep_dim: bool,
    values_out: &TensorDesc,
    indices_out: &TensorDesc,
) -> Result<Executor> {
    let axis = check_dim(self_, dim, keep_dim, values_out, indices_out)?;
    // CANN returns before the shape check when any of them is empty, and writes nothing.
    let empty = self_.is_empty() || values_out.is_empty() || indices_out.is_empty();
    if !empty {
        check_reduced_outs(self_, axis, keep_dim, values_out, indices_out)?;
    }
    select(
        "aclnnMedianDim",
        self_,
        if empty {
            Lines::Nothing
        } else {
            Lines::Along(axis)
        },
        Rank::Median,
        ("valuesOut", values_out),
        Some(("indicesOut", indices_out)),
    )
}

/// aclnnNanMedianDim: the lower median of the non-NaN values along `dim` and its index.
pub fn nan_median_dim(
    self_: &TensorDesc,
    dim: i64,
    keep_dim: bool,
    values_out: &TensorDesc,
    indices_out: &TensorDesc,
) -> Result<Executor> {
    let axis = check_dim(self_, dim, keep_dim, values_out, indices_out)?;
    if self_.is_empty() {
        crate::ensure!(
            self_.shape[axis] != 0,
            "dim {dim} of self has size 0: NanMedianDim needs a non-empty reduced dim"
        );
    } else {
        check_reduced_outs(self_, axis, keep_dim, values_out, indices_out)?;
    }
    select(
        "aclnnNanMedianDim",
        self_,
        Lines::Along(axis),
        Rank::NanMedian,
        ("valuesOut", values_out),
        Some(("indicesOut", indices_out)),
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
    Entry {
        ops: "Kthvalue",
        a: KTHVALUE,
        b: &[],
        out: KTHVALUE,
        rule: "the k-th smallest along dim and its s64 index (first among ties; NaN largest)",
    },
    Entry {
        ops: "Median, MedianDim, NanMedian, NanMedianDim",
        a: MEDIAN,
        b: &[],
        out: MEDIAN,
        rule: "the lower median (of all, or along dim with its s64 index); NaN-propagating or NaN-ignoring",
    },
];
