//! Pooling: AvgPool2d, AvgPool3d, MaxPool, MaxPool2dWithIndices, MaxPool3dWithArgmax,
//! AdaptiveAvgPool2d/3d, AdaptiveMaxPool2d/3d (one windowed-reduction engine) and
//! GlobalAveragePool / GlobalMaxPool (rules on the reduction engine).
//!
//! The engine slides a window over 1 to 3 spatial dims of self; every other dim is a
//! "plane" dim (N, C, wherever they sit: NCHW or NHWC alike). Along each spatial axis the
//! window of output `o` is either
//! - sliding: it starts at o·s − padBefore and covers k positions dilation apart; output
//!   sizes follow PyTorch's `pooling_output_shape_pad_lr`: ⌊(in + padBefore + padAfter −
//!   dilation·(k − 1) − 1 + (ceil ? s − 1 : 0))/s⌋ + 1, less one where ceil mode would start
//!   the last window past the input and the left padding;
//! - adaptive: [⌊o·in/out⌋, ⌈(o + 1)·in/out⌉) (PyTorch's start_index/end_index).
//!
//! What a window computes:
//! - Average: the sum of the window's input elements (padding counts as 0), accumulated in
//!   f64 from the exact values and divided once by divisorOverride if non-zero, else by the
//!   window's size clipped to input + padding (countIncludePad) or to the input alone; a
//!   window with no input element gives 0. Rounded once into out's dtype: within 0.5 ulp
//!   of the exact mean plus the f64 sum's error (≤ k·2⁻⁵³ relative), i.e. ≤ 1 ulp.
//! - Max: the largest input element of the window, NaN if any is NaN, padding ignored
//!   (−inf for a window entirely in padding). Exact. With indices: the flat index of that
//!   element within self's spatial volume (row-major over the spatial dims), exactly as
//!   torch's CPU kernels choose it: the first maximum, the last NaN, and the window's first
//!   input element when every element is −inf.
//!
//! Planes run in parallel. An out (or indices) that overlaps self is computed from a copy of
//! self taken into the workspace first (every input read before any output is written).

use super::catalog::Entry;
use super::elementwise as ew;
use crate::dtype::DType;
use crate::element::{Element, Wide};
use crate::engine::{align_up, convert, pool, ALIGN};
use crate::error::Result;
use crate::executor::{Bindings, Executor, Nothing, Work, Workspace};
use crate::format::Format;
use crate::tensor::TensorDesc;

use DType::*;
/// AvgPool2d's A2 list (aclnnAvgPool2d.md).
const AVG: &[DType] = &[F32, F16, BF16];
/// MaxPool's A2 list (aclnn_max_pool.cpp, `SELF_OUT_DTYPE_SUPPORT_910B_LIST`).
const MAX: &[DType] = &[F32, F16];
/// AvgPool3d, AdaptiveAvgPool2d/3d, AdaptiveMaxPool3d, MaxPool2dWithIndices and
/// MaxPool3dWithArgmax: the A2 lists of their docs.
const FLOATS: &[DType] = &[F32, F16, BF16];
/// AdaptiveMaxPool2d's A2 list (aclnnAdaptiveMaxPool2d.md, with DOUBLE).
const ADAPTIVE_MAX_2D: &[DType] = &[F32, F16, BF16, F64];
/// GlobalAveragePool's list (aclnnGlobalAveragePool.md).
const GLOBAL_AVG: &[DType] = &[F32, F16, F64, BF16];
/// GlobalMaxPool's list (aclnnGlobalMaxPool.md: no BF16).
const GLOBAL_MAX: &[DType] = &[F32, F16, F64];
/// MaxPool2dWithIndices' indices.
const INDICES_2D: &[DType] = &[S32, S64];
/// MaxPool3dWithArgmax's and AdaptiveMaxPool3d's indices on A2 (no INT64).
const INDICES_3D: &[DType] = &[S32];

/// What a window computes.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Reduce {
    Max,
    Avg {
        count_include_pad: bool,
        /// Non-zero: the divisor of every window.
        divisor: i64,
    },
}

/// The input positions one output reads along one axis: `first, first + step, ..` below
/// `end`, and the window's size clipped to the input plus the after-padding (the
/// countIncludePad divisor).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Span {
    first: usize,
    end: usize,
    step: usize,
    padded: usize,
}

impl Span {
    fn count(&self) -> usize {
        if self.first >= self.end {
            0
        } else {
            (self.end - self.first).div_ceil(self.step)
        }
    }
}

/// One spatial axis: the input size and the span of every output position.
#[derive(Clone, Debug, PartialEq)]
struct Axis {
    input: usize,
    spans: Vec<Span>,
}

/// A sliding window along one axis.
#[derive(Clone, Copy, Debug)]
struct Sliding {
    k: i64,
    s: i64,
    dilation: i64,
    before: i64,
    after: i64,
}

impl Sliding {
    /// PyTorch's pooling output size; None if it is not positive.
    fn output(&self, input: usize, ceil: bool) -> Option<usize> {
        let i = input as i64;
        let num = i + self.before + self.after - self.dilation * (self.k - 1) - 1
            + if ceil { self.s - 1 } else { 0 };
        let mut out = num.div_euclid(self.s) + 1;
        if ceil && (out - 1) * self.s >= i + self.before {
            out -= 1;
        }
        (out > 0).then_some(out as usize)
    }

    fn axis(&self, input: usize, ceil: bool) -> Option<Axis> {
        let n = self.output(input, ceil)?;
        let i = input as i64;
        let spans = (0..n as i64)
            .map(|o| {
                let start = o * self.s - self.before;
                let reach = (start + self.dilation * (self.k - 1) + 1).min(i);
                let mut first = start;
                while first < 0 {
                    first += self.dilation;
                }
                let padded = (start + self.k).min(i + self.after) - start;
                Span {
                    first: first as usize,
                    end: reach.max(first) as usize,
                    step: self.dilation as usize,
                    padded: padded.max(0) as usize,
                }
            })
            .collect();
        Some(Axis { input, spans })
    }
}

impl Axis {
    /// PyTorch's adaptive windows: output `o` covers [⌊o·in/out⌋, ⌈(o + 1)·in/out⌉).
    fn adaptive(input: usize, output: usize) -> Axis {
        let spans = (0..output)
            .map(|o| {
                let first = o * input / output;
                let end = ((o + 1) * input).div_ceil(output);
                Span {
                    first,
                    end,
                    step: 1,
                    padded: end - first,
                }
            })
            .collect();
        Axis { input, spans }
    }

    /// A size-1 axis standing for a spatial dim the tensor does not have.
    fn unit() -> Axis {
        Axis {
            input: 1,
            spans: vec![Span {
                first: 0,
                end: 1,
                step: 1,
                padded: 1,
            }],
        }
    }

    fn output(&self) -> usize {
        self.spans.len()
    }
}

/// One tensor of the pooling: its plane dims as (size, stride) pairs, its three spatial
/// strides (0 for a missing axis) and its offset.
#[derive(Clone, Debug)]
struct Layout {
    lead: Vec<(usize, isize)>,
    spatial: [isize; 3],
    offset: isize,
}

impl Layout {
    /// `t` with `spatial` its spatial dims (1 to 3, in order).
    fn new(t: &TensorDesc, spatial: &[usize]) -> Layout {
        let lead = (0..t.rank())
            .filter(|d| !spatial.contains(d))
            .map(|d| (t.shape[d], t.strides[d]))
            .collect();
        let mut sp = [0isize; 3];
        let pad = 3 - spatial.len();
        for (i, &d) in spatial.iter().enumerate() {
            sp[pad + i] = t.strides[d];
        }
        Layout {
            lead,
            spatial: sp,
            offset: t.offset as isize,
        }
    }

    /// Element offset of plane `p`.
    fn plane(&self, mut p: usize) -> isize {
        let mut off = self.offset;
        for &(n, s) in self.lead.iter().rev() {
            off += (p % n) as isize * s;
            p /= n;
        }
        off
    }

    #[inline(always)]
    fn at(&self, base: isize, y: [usize; 3]) -> isize {
        base + y[0] as isize * self.spatial[0]
            + y[1] as isize * self.spatial[1]
            + y[2] as isize * self.spatial[2]
    }
}

/// A planned pooling over `planes` planes: self (binding 0), out (1), indices (2, if any).
struct Plan {
    reduce: Reduce,
    dtype: DType,
    /// S32 or S64.
    index: Option<DType>,
    axes: [Axis; 3],
    planes: usize,
    input: Layout,
    out: Layout,
    indices: Option<Layout>,
    /// self is copied (as f64, contiguous planes) into the workspace first: an output
    /// overlaps it.
    staged: bool,
}

/// Reads element `i` (element offset from the storage start) of the float type T as f64
/// (the loss rules read through it too).
#[inline(always)]
pub(super) unsafe fn load<T: Element>(base: usize, i: isize) -> f64 {
    // SAFETY: the caller passes an index inside a view checked against its storage.
    let v = unsafe { *(base as *const T).offset(i) };
    match v.to_wide() {
        Wide::Float(x) => x,
        _ => unreachable!("pooling reads float dtypes only"),
    }
}

/// Writes `v` rounded once into the float type T at element `i`.
#[inline(always)]
pub(super) unsafe fn store<T: Element>(base: usize, i: isize, v: f64) {
    // SAFETY: the caller passes an index inside an output view.
    unsafe { *(base as *mut T).offset(i) = T::from_wide(Wide::Float(v)) };
}

/// Whether two views' byte ranges ([first, last], absolute) intersect.
pub(super) fn overlap(a: &TensorDesc, b: &TensorDesc) -> bool {
    matches!((a.byte_span(), b.byte_span()), (Some(x), Some(y)) if x.0 <= y.1 && y.0 <= x.1)
}

impl Plan {
    fn volume(&self) -> usize {
        self.axes.iter().map(|a| a.input).product()
    }

    /// Runs `each(plane)` over every plane, in parallel chunks.
    fn over_planes(&self, each: impl Fn(usize) + Sync) {
        let work = self.planes * self.axes.iter().map(|a| a.output()).product::<usize>();
        let tasks = self.planes.min(work.div_ceil(1 << 14)).clamp(1, 256);
        let per = self.planes.div_ceil(tasks);
        crate::engine::run_tasks(tasks, |t| {
            for p in t * per..((t + 1) * per).min(self.planes) {
                each(p);
            }
        });
    }

    /// Whether the separable path runs: no indices to find and self apart from out.
    fn separable(&self) -> bool {
        self.indices.is_none() && !self.staged
    }

    /// f64 values of a separable task's buffers: the plane, and the plane reduced along
    /// axis 2, then 1, then 0.
    fn separable_sizes(&self) -> [usize; 4] {
        let [a0, a1, a2] = &self.axes;
        let (n0, n1, n2) = (a0.input, a1.input, a2.input);
        let (o0, o1, o2) = (a0.output(), a1.output(), a2.output());
        [n0 * n1 * n2, n0 * n1 * o2, n0 * o1 * o2, o0 * o1 * o2]
    }

    /// (planes per task, tasks) of the separable path, whose tasks have their buffers.
    fn separable_blocks(&self) -> (usize, usize) {
        let per = self
            .planes
            .div_ceil(pool().current_num_threads().max(1) * 4)
            .max(1);
        (per, self.planes.div_ceil(per))
    }

    fn separable_task_bytes(&self) -> usize {
        self.separable_sizes()
            .iter()
            .map(|&n| align_up(n.max(1) * 8))
            .sum()
    }

    /// The window reduction as one pass per axis: a window is the product of its spans
    /// along the three axes, so its max (NaN if any is NaN) or sum is the reduction along
    /// axis 2 of each input row, then along axis 1, then axis 0. Each plane is read once
    /// into f64 (one conversion per row), the passes along axes 1 and 0 combine whole
    /// contiguous rows (they vectorise), and the results are written back one conversion
    /// per row. The sums are added in that order instead of the window's row-major one
    /// (the bound stays the f64 sum's).
    fn run_separable<T: Element>(&self, src: usize, dst: usize, ws: usize) {
        let [a0, a1, a2] = &self.axes;
        let (n0, n1, n2) = (a0.input, a1.input, a2.input);
        let (o1, o2) = (a1.output(), a2.output());
        let sizes = self.separable_sizes();
        let (per, tasks) = self.separable_blocks();
        let base = ws.div_ceil(ALIGN) * ALIGN;
        let task_bytes = self.separable_task_bytes();
        let max = self.reduce == Reduce::Max;
        let identity = if max { f64::NEG_INFINITY } else { 0.0 };
        // axis 2's window sizes, once (a span's count divides), and its windows in runs
        let counts2: Vec<usize> = a2.spans.iter().map(|w| w.count()).collect();
        let runs2 = WindowRun::of(&a2.spans);
        let size = T::DTYPE.size() as isize;
        crate::engine::run_tasks(tasks, |t| {
            let mut at = base + t * task_bytes;
            // SAFETY: task t's four buffers, inside the workspace sized for `tasks` of them.
            let [a, b, c, d] = sizes.map(|n| {
                let buf = unsafe { std::slice::from_raw_parts_mut(at as *mut f64, n) };
                at += align_up(n.max(1) * 8);
                buf
            });
            for p in t * per..((t + 1) * per).min(self.planes) {
                let in_base = self.input.plane(p);
                for r in 0..n0 * n1 {
                    let (y0, y1) = if n0 == 1 { (0, r) } else { (r / n1, r % n1) };
                    let i = self.input.at(in_base, [y0, y1, 0]);
                    // SAFETY: the row lies inside self's view; `a` holds the plane.
                    unsafe {
                        convert::run(
                            (src as isize + i * size) as *const u8,
                            T::DTYPE,
                            self.input.spatial[2],
                            a[r * n2..].as_mut_ptr() as *mut u8,
                            F64,
                            1,
                            n2,
                        )
                    };
                }
                for r in 0..n0 * n1 {
                    let row = &a[r * n2..(r + 1) * n2];
                    let out = &mut b[r * o2..(r + 1) * o2];
                    for run in &runs2 {
                        run.reduce(max, identity, row, out);
                    }
                }
                along(max, identity, a1, n0, n1, o2, b, c);
                along(max, identity, a0, 1, n0, o1 * o2, c, d);
                let out_base = self.out.plane(p);
                for (o0, w0) in a0.spans.iter().enumerate() {
                    for (o1_, w1) in a1.spans.iter().enumerate() {
                        let row = &mut d[(o0 * o1 + o1_) * o2..][..o2];
                        if let Reduce::Avg {
                            count_include_pad,
                            divisor,
                        } = self.reduce
                        {
                            let (c01, p01) = (w0.count() * w1.count(), w0.padded * w1.padded);
                            for ((v, w2), c2) in row.iter_mut().zip(&a2.spans).zip(&counts2) {
                                let count = c01 * c2;
                                *v = if count == 0 {
                                    0.0
                                } else if divisor != 0 {
                                    *v / divisor as f64
                                } else if count_include_pad {
                                    *v / (p01 * w2.padded) as f64
                                } else {
                                    *v / count as f64
                                };
                            }
                        }
                        let o = self.out.at(out_base, [o0, o1_, 0]);
                        // SAFETY: the row lies inside out's view, which no other task writes.
                        unsafe {
                            convert::run(
                                row.as_ptr() as *const u8,
                                F64,
                                1,
                                (dst as isize + o * size) as *mut u8,
                                T::DTYPE,
                                self.out.spatial[2],
                                o2,
                            )
                        };
                    }
                }
            }
        });
    }

    fn run_typed<T: Element>(&self, src: usize, dst: usize, idx: usize, ws: usize) {
        if self.separable() {
            return self.run_separable::<T>(src, dst, ws);
        }
        let [a0, a1, a2] = &self.axes;
        let (n1, n2) = (a1.input, a2.input);
        let vol = self.volume();
        if self.staged {
            // Every plane of self into the workspace, before any output is written.
            self.over_planes(|p| {
                let base = self.input.plane(p);
                let buf = (ws as *mut f64).wrapping_add(p * vol);
                for y0 in 0..a0.input {
                    for y1 in 0..n1 {
                        for y2 in 0..n2 {
                            let i = self.input.at(base, [y0, y1, y2]);
                            // SAFETY: i is inside self's view; the buffer holds planes·vol f64.
                            unsafe { *buf.add((y0 * n1 + y1) * n2 + y2) = load::<T>(src, i) };
                        }
                    }
                }
            });
        }
        self.over_planes(|p| {
            let in_base = self.input.plane(p);
            let out_base = self.out.plane(p);
            let idx_base = self.indices.as_ref().map(|l| l.plane(p));
            let read = |y: [usize; 3]| -> f64 {
                if self.staged {
                    // SAFETY: inside the staged copy of plane p.
                    unsafe { *(ws as *const f64).add(p * vol + (y[0] * n1 + y[1]) * n2 + y[2]) }
                } else {
                    // SAFETY: inside self's view.
                    unsafe { load::<T>(src, self.input.at(in_base, y)) }
                }
            };
            for (o0, w0) in a0.spans.iter().enumerate() {
                for (o1, w1) in a1.spans.iter().enumerate() {
                    for (o2, w2) in a2.spans.iter().enumerate() {
                        let (v, at) = window(self.reduce, [w0, w1, w2], [n1, n2], &read);
                        let o = self.out.at(out_base, [o0, o1, o2]);
                        // SAFETY: o is inside out's view, which no other plane's task writes.
                        unsafe { store::<T>(dst, o, v) };
                        if let (Some(l), Some(b)) = (&self.indices, idx_base) {
                            let i = l.at(b, [o0, o1, o2]);
                            // SAFETY: inside indices' view, of the planned integer dtype;
                            // `at` < vol, which the rule checked fits the dtype.
                            unsafe {
                                if self.index == Some(S32) {
                                    *(idx as *mut i32).offset(i) = at as i32;
                                } else {
                                    *(idx as *mut i64).offset(i) = at as i64;
                                }
                            }
                        }
                    }
                }
            }
        });
    }
}

/// Max (NaN if either is NaN) or sum of two values; branch-free, so row loops vectorise.
#[inline(always)]
fn combine(max: bool, m: f64, v: f64) -> f64 {
    if max {
        if v > m || v.is_nan() {
            v
        } else {
            m
        }
    } else {
        m + v
    }
}

/// Consecutive windows of an axis with the same size and step whose starts advance by the
/// same stride (the interior of a pooling axis is one run, each border window usually its
/// own): reduced position by position across the run's windows, so the inner loop is a
/// strided load and one combine per window instead of a loop per window, with each window's
/// values combined in the same order (the same bits).
#[derive(Clone, Copy, Debug)]
struct WindowRun {
    /// Output positions [out, out + len).
    out: usize,
    len: usize,
    first: usize,
    stride: usize,
    count: usize,
    step: usize,
}

impl WindowRun {
    fn of(spans: &[Span]) -> Vec<WindowRun> {
        let mut runs: Vec<WindowRun> = Vec::new();
        for (o, w) in spans.iter().enumerate() {
            let count = w.count();
            if let Some(last) = runs.last_mut() {
                let next = last.first + last.len * last.stride;
                let fits = last.count == count && (count <= 1 || last.step == w.step);
                if fits && (last.len == 1 && w.first > last.first || w.first == next) {
                    if last.len == 1 {
                        last.stride = w.first - last.first;
                    }
                    last.len += 1;
                    continue;
                }
            }
            runs.push(WindowRun {
                out: o,
                len: 1,
                first: w.first,
                stride: 0,
                count,
                step: w.step.max(1),
            });
        }
        runs
    }

    /// out[o] = identity combined with each of window o's values in order.
    #[inline(always)]
    fn reduce(&self, max: bool, identity: f64, row: &[f64], out: &mut [f64]) {
        let acc = &mut out[self.out..self.out + self.len];
        acc.fill(identity);
        for j in 0..self.count {
            let start = self.first + j * self.step;
            // Checked once here, so the strided loads below vectorise.
            assert!(start + (self.len - 1) * self.stride < row.len());
            // SAFETY: start + i·stride ≤ the position just checked, for every i < len.
            let at = |i: usize| unsafe { *row.get_unchecked(start + i * self.stride) };
            if max {
                for (i, m) in acc.iter_mut().enumerate() {
                    *m = combine(true, *m, at(i));
                }
            } else {
                for (i, m) in acc.iter_mut().enumerate() {
                    *m += at(i);
                }
            }
        }
    }
}

/// One separable pass along an axis of `axis.input` positions: `from` holds `outer` blocks
/// of `axis.input` rows of `inner` values; `to` gets, per block and output position, the
/// combination of the rows the position's span covers.
#[allow(clippy::too_many_arguments)]
fn along(
    max: bool,
    identity: f64,
    axis: &Axis,
    outer: usize,
    input: usize,
    inner: usize,
    from: &[f64],
    to: &mut [f64],
) {
    let outputs = axis.output();
    for q in 0..outer {
        for (o, w) in axis.spans.iter().enumerate() {
            let acc = &mut to[(q * outputs + o) * inner..][..inner];
            acc.fill(identity);
            let mut y = w.first;
            while y < w.end {
                let row = &from[(q * input + y) * inner..][..inner];
                if max {
                    acc.iter_mut()
                        .zip(row)
                        .for_each(|(m, &v)| *m = combine(true, *m, v));
                } else {
                    acc.iter_mut().zip(row).for_each(|(m, &v)| *m += v);
                }
                y += w.step;
            }
        }
    }
}

/// One window's value and, for Max, the flat spatial index of the element chosen.
#[inline(always)]
fn window(
    reduce: Reduce,
    w: [&Span; 3],
    [n1, n2]: [usize; 2],
    read: &impl Fn([usize; 3]) -> f64,
) -> (f64, usize) {
    let flat = |y0: usize, y1: usize, y2: usize| (y0 * n1 + y1) * n2 + y2;
    let positions = |s: &Span| (s.first..s.end).step_by(s.step);
    match reduce {
        Reduce::Max => {
            let mut m = f64::NEG_INFINITY;
            let mut at = flat(w[0].first, w[1].first, w[2].first);
            for y0 in positions(w[0]) {
                for y1 in positions(w[1]) {
                    for y2 in positions(w[2]) {
                        let v = read([y0, y1, y2]);
                        if v > m || v.is_nan() {
                            m = v;
                            at = flat(y0, y1, y2);
                        }
                    }
                }
            }
            (m, at)
        }
        Reduce::Avg {
            count_include_pad,
            divisor,
        } => {
            let count: usize = w.iter().map(|s| s.count()).product();
            if count == 0 {
                return (0.0, 0);
            }
            let mut s = 0.0;
            for y0 in positions(w[0]) {
                for y1 in positions(w[1]) {
                    for y2 in positions(w[2]) {
                        s += read([y0, y1, y2]);
                    }
                }
            }
            let d = if divisor != 0 {
                divisor as f64
            } else if count_include_pad {
                w.iter().map(|s| s.padded).product::<usize>() as f64
            } else {
                count as f64
            };
            (s / d, 0)
        }
    }
}

impl Work for Plan {
    fn workspace_size(&self) -> u64 {
        if self.separable() {
            (self.separable_blocks().1 * self.separable_task_bytes() + ALIGN) as u64
        } else if self.staged {
            (self.planes * self.volume() * 8) as u64
        } else {
            0
        }
    }
    fn run(&self, t: &Bindings, ws: Workspace) -> Result<()> {
        let (src, dst) = (t.addr(0)?, t.addr(1)?);
        let idx = if self.indices.is_some() {
            t.addr(2)?
        } else {
            0
        };
        match self.dtype {
            F16 => self.run_typed::<half::f16>(src, dst, idx, ws.addr),
            BF16 => self.run_typed::<half::bf16>(src, dst, idx, ws.addr),
            F64 => self.run_typed::<f64>(src, dst, idx, ws.addr),
            _ => self.run_typed::<f32>(src, dst, idx, ws.addr),
        }
        Ok(())
    }
}

/// A pooling of self over its dims `spatial` (1 to 3, in order) along `axes` (one per
/// spatial dim), into out and optionally indices, whose shapes must be the computed one.
struct Pooling<'a> {
    api: &'static str,
    reduce: Reduce,
    self_: &'a TensorDesc,
    spatial: Vec<usize>,
    axes: Vec<Axis>,
    out: &'a TensorDesc,
    indices: Option<(&'static str, &'a TensorDesc)>,
}

impl Pooling<'_> {
    fn plan(self) -> Result<Executor> {
        let self_ = self.self_;
        let mut want = self_.shape.to_vec();
        for (&d, a) in self.spatial.iter().zip(&self.axes) {
            want[d] = a.output();
        }
        ew::check_result_shape("out", self.out, &want)?;
        let mut tensors = vec![Some(self_.clone()), Some(self.out.clone())];
        let mut outputs = smallvec::smallvec![1];
        if let Some((name, idx)) = self.indices {
            ew::check_result_shape(name, idx, &want)?;
            crate::ensure!(
                !overlap(self.out, idx),
                "out ({}) and {name} ({}) share memory: the two outputs must be disjoint",
                self.out.describe(),
                idx.describe()
            );
            let volume: usize = self.spatial.iter().map(|&d| self_.shape[d]).product();
            crate::ensure!(
                idx.dtype == S64 || volume <= i32::MAX as usize,
                "self's spatial volume {volume} exceeds the int32 range of {name}"
            );
            tensors.push(Some(idx.clone()));
            outputs.push(2);
        }
        let staged =
            overlap(self_, self.out) || self.indices.is_some_and(|(_, idx)| overlap(self_, idx));
        let bindings = Bindings {
            tensors: std::sync::Arc::new(tensors),
            n_inputs: 1,
            outputs,
        };
        if self.out.is_empty() {
            return Ok(Executor::new(self.api, bindings, Nothing));
        }
        // Missing spatial dims (1-D and 2-D pools) are leading size-1 axes.
        let axes: Vec<Axis> = (self.spatial.len()..3)
            .map(|_| Axis::unit())
            .chain(self.axes)
            .collect();
        let axes: [Axis; 3] = axes.try_into().expect("1 to 3 spatial axes");
        let planes = (0..self_.rank())
            .filter(|d| !self.spatial.contains(d))
            .map(|d| self_.shape[d])
            .product();
        let plan = Plan {
            reduce: self.reduce,
            dtype: self_.dtype,
            index: self.indices.map(|(_, t)| t.dtype),
            axes,
            planes,
            input: Layout::new(self_, &self.spatial),
            out: Layout::new(self.out, &self.spatial),
            indices: self.indices.map(|(_, t)| Layout::new(t, &self.spatial)),
            staged,
        };
        Ok(Executor::new(self.api, bindings, plan))
    }
}

/// `[a]` or `[a, b, ..]` (`n` values, one value for every axis); `default` for an empty list.
fn expand<const N: usize>(name: &str, v: &[i64], default: Option<[i64; N]>) -> Result<[i64; N]> {
    match (v.len(), default) {
        (0, Some(d)) => Ok(d),
        (1, _) => Ok([v[0]; N]),
        (n, _) if n == N => Ok(v.try_into().unwrap()),
        _ => crate::bail!(
            "{name} has {} values {v:?}; it takes {}1 or {N}",
            v.len(),
            if default.is_some() { "0, " } else { "" }
        ),
    }
}

/// Checks self's and out's dtypes (equal, in `list`), that they have the same rank in
/// `ranks`, and that only the first dim of a full-rank self may be 0.
fn check_tensors(
    self_: &TensorDesc,
    out: &TensorDesc,
    list: &[DType],
    ranks: [usize; 2],
) -> Result<()> {
    super::views::check(list, self_, out)?;
    let r = self_.rank();
    crate::ensure!(
        ranks.contains(&r) && out.rank() == r,
        "self has {r} dims {:?} and out {} dims: both must have {} or {} dims",
        self_.shape,
        out.rank(),
        ranks[0],
        ranks[1]
    );
    let from = if r == ranks[1] { 1 } else { 0 };
    crate::ensure!(
        self_.shape[from..].iter().all(|&d| d > 0),
        "self has shape {:?}: only its batch dim may be 0",
        self_.shape
    );
    Ok(())
}

/// self and out (and indices) of one format, which is public (no private layouts).
fn check_same_format(self_: &TensorDesc, others: &[(&str, &TensorDesc)]) -> Result<()> {
    crate::ensure!(
        self_.format.is_public(),
        "self has the private format {}",
        self_.format
    );
    for (name, t) in others {
        crate::ensure!(
            t.format == self_.format,
            "self has format {} and {name} {}: they must be the same",
            self_.format,
            t.format
        );
    }
    Ok(())
}

/// The last `n` dims of a rank-`r` tensor.
fn last(r: usize, n: usize) -> Vec<usize> {
    (r - n..r).collect()
}

fn no_output(self_: &TensorDesc, what: String) -> crate::Error {
    crate::Error::Invalid(format!(
        "self has shape {:?}: {what} leave no output",
        self_.shape
    ))
}

/// aclnnAvgPool2d: kernelSize of 1 or 2 values (> 0), strides of 0 (= kernel), 1 or 2
/// (> 0), paddings of 1 or 2 (≥ 0, at most half the kernel), ceilMode, countIncludePad,
/// divisorOverride (0: off), cubeMathType 0..4 (every value computes as above). self and
/// out: NCHW 4-D or NCL 3-D, f32/f16/bf16, one dtype; only the batch dim may be empty.
#[allow(clippy::too_many_arguments)]
pub fn avg_pool2d(
    self_: &TensorDesc,
    kernel: &[i64],
    strides: &[i64],
    paddings: &[i64],
    ceil_mode: bool,
    count_include_pad: bool,
    divisor_override: i64,
    cube_math_type: i64,
    out: &TensorDesc,
) -> Result<Executor> {
    check_tensors(self_, out, AVG, [3, 4])?;
    let want = if self_.rank() == 4 {
        Format::NCHW
    } else {
        Format::NCL
    };
    for (name, t) in [("self", self_), ("out", out)] {
        crate::ensure!(
            t.format == want,
            "{name} has format {}; a {}-D AvgPool2d tensor must be {want}",
            t.format,
            self_.rank()
        );
    }
    let k = expand::<2>("kernelSize", kernel, None)?;
    let s = expand::<2>("strides", strides, Some(k))?;
    let p = expand::<2>("paddings", paddings, None)?;
    check_window(k, s, p)?;
    super::matmul::check_cube_math_type(cube_math_type)?;
    let axes = sliding_axes(self_, k, s, p, [1; 2], ceil_mode, true, || {
        format!("kernelSize {k:?}, strides {s:?} and paddings {p:?}")
    })?;
    avg(
        "aclnnAvgPool2d",
        self_,
        axes,
        count_include_pad,
        divisor_override,
        out,
    )
}

/// aclnnAvgPool3d: kernelSize of 1 or 3 values in (0, the input's size], stride of 0 (=
/// kernel), 1 or 3 values (> 0), padding of 1 or 3 values in [0, kernel/2]; ceilMode,
/// countIncludePad, divisorOverride (0: off) as AvgPool2d. self and out: 4-D (CDHW) or 5-D
/// (NCDHW), one dtype and format, f32/f16/bf16; only the batch dim may be empty.
#[allow(clippy::too_many_arguments)]
pub fn avg_pool3d(
    self_: &TensorDesc,
    kernel: &[i64],
    stride: &[i64],
    padding: &[i64],
    ceil_mode: bool,
    count_include_pad: bool,
    divisor_override: i64,
    out: &TensorDesc,
) -> Result<Executor> {
    check_tensors(self_, out, FLOATS, [4, 5])?;
    check_same_format(self_, &[("out", out)])?;
    let k = expand::<3>("kernelSize", kernel, None)?;
    let s = expand::<3>("stride", stride, Some(k))?;
    let p = expand::<3>("padding", padding, None)?;
    check_window(k, s, p)?;
    let r = self_.rank();
    for d in 0..3 {
        crate::ensure!(
            k[d] as usize <= self_.shape[r - 3 + d],
            "kernelSize {k:?} exceeds self's spatial size {:?}",
            &self_.shape[r - 3..]
        );
    }
    let axes = sliding_axes(self_, k, s, p, [1; 3], ceil_mode, true, || {
        format!("kernelSize {k:?}, stride {s:?} and padding {p:?}")
    })?;
    avg(
        "aclnnAvgPool3d",
        self_,
        axes,
        count_include_pad,
        divisor_override,
        out,
    )
}

/// Kernels > 0, strides > 0, paddings in [0, kernel/2] (the average pools and the indexed
/// max pools).
fn check_window<const N: usize>(k: [i64; N], s: [i64; N], p: [i64; N]) -> Result<()> {
    crate::ensure!(k.iter().all(|&v| v > 0), "kernelSize {k:?} must be > 0");
    crate::ensure!(s.iter().all(|&v| v > 0), "stride {s:?} must be > 0");
    crate::ensure!(
        (0..N).all(|d| p[d] >= 0 && 2 * p[d] <= k[d]),
        "padding {p:?} must be in [0, kernelSize/2] for kernelSize {k:?}"
    );
    Ok(())
}

/// The sliding axes over self's last N dims with symmetric padding. `fit`: a window
/// larger than the padded input is refused (torch's average pools refuse it).
#[allow(clippy::too_many_arguments)]
fn sliding_axes<const N: usize>(
    self_: &TensorDesc,
    k: [i64; N],
    s: [i64; N],
    p: [i64; N],
    dilation: [i64; N],
    ceil: bool,
    fit: bool,
    describe: impl Fn() -> String,
) -> Result<Vec<Axis>> {
    let r = self_.rank();
    (0..N)
        .map(|d| {
            let n = self_.shape[r - N + d];
            let w = Sliding {
                k: k[d],
                s: s[d],
                dilation: dilation[d],
                before: p[d],
                after: p[d],
            };
            w.axis(n, ceil)
                .filter(|_| !fit || n as i64 + 2 * p[d] >= k[d])
                .ok_or_else(|| no_output(self_, describe()))
        })
        .collect()
}

fn avg(
    api: &'static str,
    self_: &TensorDesc,
    axes: Vec<Axis>,
    count_include_pad: bool,
    divisor: i64,
    out: &TensorDesc,
) -> Result<Executor> {
    let r = self_.rank();
    Pooling {
        api,
        reduce: Reduce::Avg {
            count_include_pad,
            divisor,
        },
        self_,
        spatial: last(r, axes.len()),
        axes,
        out,
        indices: None,
    }
    .plan()
}

/// aclnnMaxPool: kernelShape of 1 or 2 values (> 0), strides of 0 (= 1), 1 or 2 (> 0),
/// pads of 0, 1, 2 (top = bottom, left = right) or 4 ([top, left, bottom, right]), each
/// axis' two pads summing to at most its kernel; autoPad 0 (NOTSET) only and dilations of
/// 1 only (the device refuses others, ACLNN_ERR_PARAM_INVALID); ceilMode 0/non-zero.
/// self and out: 3-D or 4-D, one public format, f32/f16.
#[allow(clippy::too_many_arguments)]
pub fn max_pool(
    self_: &TensorDesc,
    kernel: &[i64],
    strides: &[i64],
    auto_pad: i64,
    pads: &[i64],
    dilations: &[i64],
    ceil_mode: i64,
    out: &TensorDesc,
) -> Result<Executor> {
    check_tensors(self_, out, MAX, [3, 4])?;
    crate::ensure!(
        self_.format == out.format,
        "self has format {} and out {}: they must be the same",
        self_.format,
        out.format
    );
    let k = expand::<2>("kernelShape", kernel, None)?;
    let s = expand::<2>("strides", strides, Some([1, 1]))?;
    let [top, left, bottom, right] = match pads {
        [] => [0; 4],
        [a] => [*a; 4],
        [a, b] => [*a, *b, *a, *b],
        [a, b, c, d] => [*a, *b, *c, *d],
        _ => crate::bail!(
            "pads has {} values {pads:?}; it takes 0, 1, 2 or 4",
            pads.len()
        ),
    };
    crate::ensure!(
        matches!(dilations.len(), 0 | 1 | 2 | 4),
        "dilations has {} values {dilations:?}; it takes 0, 1, 2 or 4",
        dilations.len()
    );
    crate::ensure!(
        auto_pad == 0,
        "autoPad is {auto_pad}: only 0 (NOTSET) is supported"
    );
    crate::ensure!(
        dilations.iter().all(|&d| d == 1),
        "dilations {dilations:?}: only dilation 1 is supported along each spatial axis"
    );
    crate::ensure!(
        k.iter().all(|&v| v > 0),
        "kernelShape {kernel:?} must be > 0"
    );
    crate::ensure!(s.iter().all(|&v| v > 0), "strides {strides:?} must be > 0");
    crate::ensure!(
        [top, left, bottom, right].iter().all(|&v| v >= 0),
        "pads {pads:?} must be >= 0"
    );
    crate::ensure!(
        top + bottom <= k[0] && left + right <= k[1],
        "pads {pads:?}: the two pads of an axis must sum to at most its kernel {k:?}"
    );
    let r = self_.rank();
    let axis = |d: usize, before: i64, after: i64| {
        Sliding {
            k: k[d],
            s: s[d],
            dilation: 1,
            before,
            after,
        }
        .axis(self_.shape[r - 2 + d], ceil_mode != 0)
        .ok_or_else(|| {
            no_output(
                self_,
                format!("kernelShape {k:?}, strides {s:?} and pads {pads:?}"),
            )
        })
    };
    let axes = vec![axis(0, top, bottom)?, axis(1, left, right)?];
    max("aclnnMaxPool", self_, last(r, 2), axes, out, None)
}

fn max<'a>(
    api: &'static str,
    self_: &'a TensorDesc,
    spatial: Vec<usize>,
    axes: Vec<Axis>,
    out: &'a TensorDesc,
    indices: Option<(&'static str, &'a TensorDesc)>,
) -> Result<Executor> {
    Pooling {
        api,
        reduce: Reduce::Max,
        self_,
        spatial,
        axes,
        out,
        indices,
    }
    .plan()
}

/// indices' dtype in `list`.
fn check_indices(name: &str, t: &TensorDesc, list: &[DType]) -> Result<()> {
    ew::check_tensor(name, t, list)
}

/// aclnnMaxPool2dWithIndices: kernelSize of 1 or 2 values (> 0), stride of 0 (= kernel),
/// 1 or 2 (> 0), padding of 1 or 2 in [0, kernel/2] (−inf padding), dilation of 1 or 2
/// values, 1 only (A2: the device refuses others), ceilMode. self and out: 3-D (CHW) or
/// 4-D (NCHW), one dtype (f32/f16/bf16) and format (NCHW or ND: A2 has no NHWC); indices:
/// out's shape, int32 or int64, the flat index within the H×W plane. Only the batch dim
/// may be empty.
#[allow(clippy::too_many_arguments)]
pub fn max_pool2d_with_indices(
    self_: &TensorDesc,
    kernel: &[i64],
    stride: &[i64],
    padding: &[i64],
    dilation: &[i64],
    ceil_mode: bool,
    out: &TensorDesc,
    indices: &TensorDesc,
) -> Result<Executor> {
    check_tensors(self_, out, FLOATS, [3, 4])?;
    check_indices("indices", indices, INDICES_2D)?;
    check_same_format(self_, &[("out", out)])?;
    crate::ensure!(
        self_.format != Format::NHWC,
        "self has format NHWC: Atlas A2's MaxPool2dWithIndices takes NCHW or ND, not NHWC"
    );
    let axes = indexed_windows::<2>(self_, kernel, stride, padding, dilation, ceil_mode)?;
    max(
        "aclnnMaxPool2dWithIndices",
        self_,
        last(self_.rank(), 2),
        axes,
        out,
        Some(("indices", indices)),
    )
}

/// The windows of the indexed max pools over self's last N dims: kernelSize of 1 or N
/// values (> 0), stride of 0 (= kernel), 1 or N (> 0), padding of 1 or N in [0, kernel/2],
/// dilation of 1 or N values, > 0 and 1 only (A2's kernels take no other), ceil mode.
fn indexed_windows<const N: usize>(
    self_: &TensorDesc,
    kernel: &[i64],
    stride: &[i64],
    padding: &[i64],
    dilation: &[i64],
    ceil_mode: bool,
) -> Result<Vec<Axis>> {
    let k = expand::<N>("kernelSize", kernel, None)?;
    let s = expand::<N>("stride", stride, Some(k))?;
    let p = expand::<N>("padding", padding, None)?;
    let d = expand::<N>("dilation", dilation, None)?;
    check_window(k, s, p)?;
    crate::ensure!(d.iter().all(|&v| v > 0), "dilation {d:?} must be > 0");
    crate::ensure!(
        d.iter().all(|&v| v == 1),
        "dilation {d:?}: only dilation 1 is supported (Atlas A2)"
    );
    sliding_axes(self_, k, s, p, d, ceil_mode, false, || {
        format!("kernelSize {k:?}, stride {s:?}, padding {p:?} and dilation {d:?}")
    })
}

/// aclnnMaxPool2dWithMask: its indices are the device's private bit mask of shape
/// [N, C, kH·kW, (⌈Hout·Wout/16⌉ + 1)·32] (int8), a layout only the device's
/// MaxPool2dWithMaskBackward reads; it is not reproduced. Every call is refused with
/// ACLNN_ERR_PARAM_INVALID after the parameter checks (use MaxPool2dWithIndices).
#[allow(clippy::too_many_arguments)]
pub fn max_pool2d_with_mask(
    self_: &TensorDesc,
    kernel: &[i64],
    stride: &[i64],
    padding: &[i64],
    dilation: &[i64],
    ceil_mode: bool,
    out: &TensorDesc,
    indices: &TensorDesc,
) -> Result<Executor> {
    check_tensors(self_, out, FLOATS, [3, 4])?;
    check_indices("indices", indices, &[S8])?;
    check_same_format(self_, &[("out", out)])?;
    indexed_windows::<2>(self_, kernel, stride, padding, dilation, ceil_mode)?;
    crate::bail!(
        "MaxPool2dWithMask's indices are the device's private int8 bit-mask layout, which \
         this implementation does not reproduce; use aclnnMaxPool2dWithIndices"
    )
}

/// aclnnMaxPool3dWithArgmax: kernelSize of 1 or 3 values (> 0), stride of 0 (= kernel), 1
/// or 3 (> 0), padding of 1 or 3 in [0, kernel/2], dilation of 1 or 3 values, 1 only
/// (A2), ceilMode. self and out: 4-D (CDHW) or 5-D (NCDHW), one dtype (f32/f16/bf16);
/// formats NCDHW, NCHW or ND (A2 has no NDHWC), the same for out and indices; indices:
/// int32 (A2 has no int64), the flat index within the D×H×W volume (which must fit int32).
#[allow(clippy::too_many_arguments)]
pub fn max_pool3d_with_argmax(
    self_: &TensorDesc,
    kernel: &[i64],
    stride: &[i64],
    padding: &[i64],
    dilation: &[i64],
    ceil_mode: bool,
    out: &TensorDesc,
    indices: &TensorDesc,
) -> Result<Executor> {
    check_tensors(self_, out, FLOATS, [4, 5])?;
    check_indices("indices", indices, INDICES_3D)?;
    check_same_format(self_, &[("out", out), ("indices", indices)])?;
    crate::ensure!(
        matches!(self_.format, Format::NCDHW | Format::NCHW | Format::ND),
        "self has format {}: MaxPool3dWithArgmax takes NCDHW, NCHW or ND (A2 has no NDHWC)",
        self_.format
    );
    let axes = indexed_windows::<3>(self_, kernel, stride, padding, dilation, ceil_mode)?;
    max(
        "aclnnMaxPool3dWithArgmax",
        self_,
        last(self_.rank(), 3),
        axes,
        out,
        Some(("indices", indices)),
    )
}

/// outputSize: exactly N values, each > 0.
fn check_output_size<const N: usize>(v: &[i64]) -> Result<[usize; N]> {
    crate::ensure!(
        v.len() == N,
        "outputSize has {} values {v:?}; it takes {N}",
        v.len()
    );
    crate::ensure!(v.iter().all(|&x| x > 0), "outputSize {v:?} must be > 0");
    Ok(std::array::from_fn(|i| v[i] as usize))
}

fn adaptive_axes(self_: &TensorDesc, spatial: &[usize], size: &[usize]) -> Vec<Axis> {
    spatial
        .iter()
        .zip(size)
        .map(|(&d, &o)| Axis::adaptive(self_.shape[d], o))
        .collect()
}

/// aclnnAdaptiveAvgPool2d: outputSize of 2 values (> 0); self and out 3-D NCL or 4-D NCHW
/// (the format must match the rank), one dtype (f32/f16/bf16) and format; only the batch
/// dim may be empty. Each output averages its adaptive window (bound as AvgPool2d).
pub fn adaptive_avg_pool2d(
    self_: &TensorDesc,
    output_size: &[i64],
    out: &TensorDesc,
) -> Result<Executor> {
    check_tensors(self_, out, FLOATS, [3, 4])?;
    check_same_format(self_, &[("out", out)])?;
    let want = if self_.rank() == 4 {
        Format::NCHW
    } else {
        Format::NCL
    };
    crate::ensure!(
        self_.format == want,
        "self has format {} but is {}-D: AdaptiveAvgPool2d takes NCL (3-D) or NCHW (4-D)",
        self_.format,
        self_.rank()
    );
    let size = check_output_size::<2>(output_size)?;
    let spatial = last(self_.rank(), 2);
    let axes = adaptive_axes(self_, &spatial, &size);
    avg("aclnnAdaptiveAvgPool2d", self_, axes, false, 0, out)
}

/// aclnnAdaptiveAvgPool3d: outputSize of 3 values (> 0); self and out 4-D or 5-D, one dtype
/// (f32/f16/bf16) and format (NCDHW, NCHW or ND); only the batch dim may be empty.
pub fn adaptive_avg_pool3d(
    self_: &TensorDesc,
    output_size: &[i64],
    out: &TensorDesc,
) -> Result<Executor> {
    check_tensors(self_, out, FLOATS, [4, 5])?;
    check_same_format(self_, &[("out", out)])?;
    check_3d_format(self_, "AdaptiveAvgPool3d")?;
    let size = check_output_size::<3>(output_size)?;
    let spatial = last(self_.rank(), 3);
    let axes = adaptive_axes(self_, &spatial, &size);
    avg("aclnnAdaptiveAvgPool3d", self_, axes, false, 0, out)
}

fn check_3d_format(self_: &TensorDesc, op: &str) -> Result<()> {
    crate::ensure!(
        matches!(self_.format, Format::NCDHW | Format::NCHW | Format::ND),
        "self has format {}: {op} takes NCDHW, NCHW or ND",
        self_.format
    );
    Ok(())
}

/// aclnnAdaptiveMaxPool2d: outputSize of 2 values (> 0); self and outputOut 3-D or 4-D, one
/// dtype (f32/f16/bf16/f64); self's format NCHW, NCL or ND (channels first) or NHWC (4-D,
/// spatial dims 1 and 2); indicesOut int64 of outputOut's shape, the flat index within the
/// H×W plane. Only the batch dim may be empty.
pub fn adaptive_max_pool2d(
    self_: &TensorDesc,
    output_size: &[i64],
    out: &TensorDesc,
    indices: &TensorDesc,
) -> Result<Executor> {
    check_tensors(self_, out, ADAPTIVE_MAX_2D, [3, 4])?;
    check_indices("indicesOut", indices, &[S64])?;
    let spatial = match self_.format {
        Format::NCHW | Format::NCL | Format::ND => last(self_.rank(), 2),
        Format::NHWC if self_.rank() == 4 => vec![1, 2],
        f => crate::bail!(
            "self has format {f} and {} dims: AdaptiveMaxPool2d takes NCHW, NCL, ND or a 4-D NHWC",
            self_.rank()
        ),
    };
    let size = check_output_size::<2>(output_size)?;
    let axes = adaptive_axes(self_, &spatial, &size);
    max(
        "aclnnAdaptiveMaxPool2d",
        self_,
        spatial,
        axes,
        out,
        Some(("indicesOut", indices)),
    )
}

/// aclnnAdaptiveMaxPool3d: outputSize of 3 values (> 0); self and outputOut 4-D or 5-D, one
/// dtype (f32/f16/bf16) and format (NCDHW, NCHW or ND); indicesOut int32 (A2 has no int64)
/// of outputOut's shape, the flat index within the D×H×W volume (which must fit int32).
pub fn adaptive_max_pool3d(
    self_: &TensorDesc,
    output_size: &[i64],
    out: &TensorDesc,
    indices: &TensorDesc,
) -> Result<Executor> {
    check_tensors(self_, out, FLOATS, [4, 5])?;
    check_indices("indicesOut", indices, INDICES_3D)?;
    check_same_format(self_, &[("outputOut", out)])?;
    check_3d_format(self_, "AdaptiveMaxPool3d")?;
    let size = check_output_size::<3>(output_size)?;
    let spatial = last(self_.rank(), 3);
    let axes = adaptive_axes(self_, &spatial, &size);
    max(
        "aclnnAdaptiveMaxPool3d",
        self_,
        spatial,
        axes,
        out,
        Some(("indicesOut", indices)),
    )
}

/// The checks of the global pools: self and out 4-D to 8-D, the same rank, dtype (in
/// `list`) and format (ND, NCHW or NCDHW); out's first two dims self's, the rest 1.
/// Returns the reduced dims (2..rank).
fn check_global(self_: &TensorDesc, out: &TensorDesc, list: &[DType]) -> Result<Vec<i64>> {
    super::views::check(list, self_, out)?;
    let r = self_.rank();
    crate::ensure!(
        (4..=8).contains(&r) && out.rank() == r,
        "self has {r} dims and out {} dims: both must have the same rank, 4 to 8",
        out.rank()
    );
    check_same_format(self_, &[("out", out)])?;
    crate::ensure!(
        matches!(self_.format, Format::ND | Format::NCHW | Format::NCDHW),
        "self has format {}: global pooling takes ND, NCHW or NCDHW",
        self_.format
    );
    let mut want = self_.shape.to_vec();
    want[2..].iter_mut().for_each(|d| *d = 1);
    ew::check_result_shape("out", out, &want)?;
    Ok((2..r as i64).collect())
}

/// aclnnGlobalAveragePool: the mean over every dim after the first two (keepdim), on the
/// reduction engine (f64 accumulation, rounded once: ≤ 1 ulp); f32/f16/f64/bf16, 4-D to 8-D.
pub fn global_average_pool(self_: &TensorDesc, out: &TensorDesc) -> Result<Executor> {
    let dims = check_global(self_, out, GLOBAL_AVG)?;
    Ok(super::reduce::mean_v2(self_, &dims, true, false, out)?.renamed("aclnnGlobalAveragePool"))
}

/// aclnnGlobalMaxPool: the maximum over every dim after the first two (keepdim, NaN
/// propagates, exact); f32/f16/f64, 4-D to 8-D; an empty spatial dim is refused.
pub fn global_max_pool(self_: &TensorDesc, out: &TensorDesc) -> Result<Executor> {
    let dims = check_global(self_, out, GLOBAL_MAX)?;
    Ok(super::reduce::amax(self_, &dims, true, out)?.renamed("aclnnGlobalMaxPool"))
}

/// Supported dtypes, for the operator table (docs/DTYPES.md).
pub const CATALOG: &[Entry] = &[
    Entry {
        ops: "AvgPool2d",
        a: AVG,
        b: &[],
        out: AVG,
        rule: "mean over kH×kW windows of NCHW/NCL planes (ceilMode, countIncludePad, divisorOverride)",
    },
    Entry {
        ops: "AvgPool3d",
        a: FLOATS,
        b: &[],
        out: FLOATS,
        rule: "mean over kD×kH×kW windows of (N)CDHW volumes (ceilMode, countIncludePad, divisorOverride)",
    },
    Entry {
        ops: "MaxPool",
        a: MAX,
        b: &[],
        out: MAX,
        rule: "max over kH×kW windows of CHW/NCHW planes, NaN propagates (dilation 1, autoPad 0)",
    },
    Entry {
        ops: "MaxPool2dWithIndices",
        a: FLOATS,
        b: &[],
        out: FLOATS,
        rule: "max over kH×kW windows and its flat index in the plane (indices s32/s64; dilation 1)",
    },
    Entry {
        ops: "MaxPool2dWithMask",
        a: FLOATS,
        b: &[],
        out: FLOATS,
        rule: "refused (ACLNN_ERR_PARAM_INVALID): the device's int8 bit-mask indices are not reproduced",
    },
    Entry {
        ops: "MaxPool3dWithArgmax",
        a: FLOATS,
        b: &[],
        out: FLOATS,
        rule: "max over kD×kH×kW windows and its flat index in the volume (indices s32; dilation 1)",
    },
    Entry {
        ops: "AdaptiveAvgPool2d, AdaptiveAvgPool3d",
        a: FLOATS,
        b: &[],
        out: FLOATS,
        rule: "mean over torch's adaptive windows of the last 2/3 dims",
    },
    Entry {
        ops: "AdaptiveMaxPool2d",
        a: ADAPTIVE_MAX_2D,
        b: &[],
        out: ADAPTIVE_MAX_2D,
        rule: "max over adaptive windows of NCHW/NCL/NHWC planes and its flat index (indicesOut s64)",
    },
    Entry {
        ops: "AdaptiveMaxPool3d",
        a: FLOATS,
        b: &[],
        out: FLOATS,
        rule: "max over adaptive windows of (N)CDHW volumes and its flat index (indicesOut s32)",
    },
    Entry {
        ops: "GlobalAveragePool",
        a: GLOBAL_AVG,
        b: &[],
        out: GLOBAL_AVG,
        rule: "mean over every dim after N, C (4-D to 8-D, keepdim)",
    },
    Entry {
        ops: "GlobalMaxPool",
        a: GLOBAL_MAX,
        b: &[],
        out: GLOBAL_MAX,
        rule: "max over every dim after N, C (4-D to 8-D, keepdim), NaN propagates",
    },
];
