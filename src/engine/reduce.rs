//! The reduction engine: reductions over any set of axes (sum, mean, max, min, arg-max,
//! arg-min) and the slice-wise softmax family, for any input view.
//!
//! Each output element reduces the input elements that share its kept indices. They are
//! read in runs along the innermost reduced axis, converted into a chunk buffer in the
//! workspace (through the operator's value dtype first, as the element-wise engine does),
//! and folded into an accumulator. Sums accumulate in f64 (integers in i64, wrapping;
//! complex in complex128) — more accurate than pairwise f32 summation, with an error that
//! does not grow with the count beyond n·2⁻⁵³ — and round once to the output dtype. Output
//! elements are split across the thread pool.
//!
//! Besides sums and extremes: products (f64 / wrapping i64 / complex128), all / any (values
//! read through bool), the NaN-skipping sum, log(sum), and two reductions that read their
//! elements twice: the variance (the mean first, then the corrected two-pass sum of squared
//! deviations, Σd² − (Σd)²/n, stable when the mean is large against the spread) and
//! log-sum-exp (the max first, then Σ exp(x − max), as Softmax).

use super::vmath::exp_with;
use super::{align_up, convert, pool, run_tasks, Via, ALIGN};
use crate::dtype::DType;
use crate::element::{Wide, C128};
use crate::error::Result;
use crate::executor::{Bindings, Work, Workspace};
use crate::tensor::TensorDesc;

const CHUNK: usize = 1024;
/// Column layout: fewest rows of the outermost reduced dim per group, and most groups.
const GROUP_ROWS: usize = 256;
const MAX_GROUPS: usize = 8;
/// What a reduction computes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Reduce {
    Sum,
    Mean,
    Max,
    Min,
    ArgMax,
    ArgMin,
    /// The product (an empty product is 1).
    Prod,
    /// Whether every value is non-zero (the plan reads values through bool).
    All,
    /// Whether any value is non-zero (read through bool).
    Any,
    /// The sum of the values that are not NaN.
    NanSum,
    /// ln of the sum (ONNX ReduceLogSum).
    LogSum,
    /// ln Σ exp(x), shifted by the max (a NaN gives NaN; empty: −inf).
    LogSumExp,
    /// Σ(x − mean)² / max(0, n − correction); its square root when `root` (the std).
    Var {
        correction: i64,
        root: bool,
    },
}

/// Softmax or LogSoftmax along one axis.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Slice {
    Softmax,
    LogSoftmax,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Op {
    Reduce(Reduce),
    Slice(Slice),
}

/// A planned reduction (or slice-wise operation).
pub struct Plan {
    op: Op,
    in_binding: usize,
    in_dtype: DType,
    in_offset: usize,
    /// Values pass through this dtype before accumulating (ReduceSum's `dtype`).
    value: DType,
    /// The accumulation dtype: f64, s64 or c128.
    acc: DType,
    out_binding: usize,
    out_dtype: DType,
    out_offset: usize,
    /// Kept dims: (size, input stride, output stride).
    kept: Vec<(usize, isize, isize)>,
    /// Reduced dims (innermost last): (size, input stride).
    reduced: Vec<(usize, isize)>,
    /// For a slice op: the output stride along the axis.
    slice_out_stride: isize,
    /// Column layout, when a kept dim is the contiguous one (a sum over leading axes):
    /// outputs are produced in blocks along it, each accumulating whole rows.
    columns: Option<Columns>,
    outputs: usize,
    count: usize,
    tasks: usize,
    task_bytes: usize,
    workspace: u64,
}

/// The dtype values accumulate in.
fn accumulator(value: DType) -> DType {
    match value {
        d if d.is_complex() => DType::C128,
        d if d.is_float() => DType::F64,
        _ => DType::S64,
    }
}

impl Plan {
    /// Plans `op` over `axes` (sorted, distinct) of `input`, writing `out` (whose shape the
    /// caller checked: the kept dims, with or without size-1 reduced dims).
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        op: Op,
        input: &TensorDesc,
        in_binding: usize,
        axes: &[usize],
        value: Via,
        out: &TensorDesc,
        out_binding: usize,
    ) -> Plan {
        let rank = input.rank();
        let mut kept = Vec::new();
        let mut reduced = Vec::new();
        // Output strides for the kept dims: out has either all dims (keepDim) or only the kept ones.
        let keep_all = out.rank() == rank;
        let mut oi = 0;
        for d in 0..rank {
            let is_reduced = axes.contains(&d);
            let out_stride = if keep_all || !is_reduced {
                let s = out.strides.get(oi).copied().unwrap_or(0);
                oi += 1;
                s
            } else {
                0
            };
            if is_reduced {
                reduced.push((input.shape[d], input.strides[d], out_stride));
            } else {
                kept.push((input.shape[d], input.strides[d], out_stride));
            }
        }
        // The innermost reduced dim is the one read in runs: the smallest input stride.
        reduced.sort_by_key(|r| std::cmp::Reverse(r.1));
        let slice_out_stride = reduced.first().map_or(0, |r| r.2);
        let reduced: Vec<(usize, isize)> = reduced.into_iter().map(|(n, s, _)| (n, s)).collect();
        let outputs: usize = kept.iter().map(|k| k.0).product();
        let count: usize = reduced.iter().map(|r| r.0).product();
        let acc = accumulator(value.value);
        let threads = pool().current_num_threads();
        let columns = Columns::plan(op, &kept, &reduced, count, threads);
        // Units of work split across threads: output elements, or column blocks.
        let units = columns.as_ref().map_or(outputs, |c| c.units());
        let tasks = if outputs == 0 {
            0
        } else {
            units
                .min(threads)
                .min((outputs * count.max(1)).div_ceil(32 * 1024))
                .max(1)
        };
        let slice_len = if matches!(op, Op::Slice(_)) { count } else { 0 };
        let run = columns.as_ref().map_or(CHUNK, |c| c.block.max(CHUNK));
        // Per task: a conversion buffer, a buffer for the value dtype, then the slice's
        // values (softmax) or, last, the column sums (with row groups those are partials
        // outside the task regions instead).
        let task_bytes = 2 * align_up(run * 16)
            + align_up(slice_len * 8)
            + columns.as_ref().map_or(0, |c| {
                if c.groups == 1 {
                    align_up(c.block * 16)
                } else {
                    0
                }
            });
        let workspace = if tasks == 0 {
            0
        } else {
            let partials = columns.as_ref().map_or(0, |c| c.partials_bytes());
            (tasks * task_bytes + partials + ALIGN) as u64
        };
        Plan {
            op,
            in_binding,
            in_dtype: input.dtype,
            in_offset: input.offset,
            value: value.value,
            acc,
            out_binding,
            out_dtype: out.dtype,
            out_offset: out.offset,
            kept,
            reduced,
            slice_out_stride,
            columns,
            outputs,
            count,
            tasks,
            task_bytes,
            workspace,
        }
    }

    /// Input element offsets of the reduced set, run by run: calls `f(offset, stride, len)`.
    fn for_runs(&self, base: isize, mut f: impl FnMut(isize, isize, usize)) {
        let Some(&(inner, inner_stride)) = self.reduced.last() else {
            f(base, 0, 1);
            return;
        };
        let outer = &self.reduced[..self.reduced.len() - 1];
        let runs: usize = outer.iter().map(|r| r.0).product();
        for r in 0..runs {
            let mut rem = r;
            let mut off = base;
            for &(n, s) in outer.iter().rev() {
                off += (rem % n) as isize * s;
                rem /= n;
            }
            f(off, inner_stride, inner);
        }
    }

    /// The input and output element offsets of output element `o`.
    fn offsets(&self, mut o: usize) -> (isize, isize) {
        let (mut i, mut w) = (self.in_offset as isize, self.out_offset as isize);
        for &(n, si, so) in self.kept.iter().rev() {
            let x = (o % n) as isize;
            o /= n;
            i += x * si;
            w += x * so;
        }
        (i, w)
    }

    /// Reads `len` elements (stride `stride`) at input element `off` into `buf` as f64 /
    /// i64 / c128, through the value dtype.
    unsafe fn read(
        &self,
        src: usize,
        off: isize,
        stride: isize,
        len: usize,
        buf: usize,
        mid: usize,
    ) {
        let p = (src as isize + off * self.in_dtype.size() as isize) as *const u8;
        // SAFETY: the run lies inside the input view; buffers hold CHUNK elements.
        unsafe {
            if self.value == self.in_dtype || self.value == self.acc {
                convert::run(p, self.in_dtype, stride, buf as *mut u8, self.acc, 1, len);
            } else {
                convert::run(p, self.in_dtype, stride, mid as *mut u8, self.value, 1, len);
                convert::run(
                    mid as *const u8,
                    self.value,
                    1,
                    buf as *mut u8,
                    self.acc,
                    1,
                    len,
                );
            }
        }
    }

    /// Reduces the elements of one output position into its value (as a Wide).
    unsafe fn reduce_one(&self, src: usize, base: isize, region: usize, how: Reduce) -> Wide {
        if matches!(how, Reduce::Var { .. } | Reduce::LogSumExp) {
            // SAFETY: as for every reduction: offsets from validated views, the task's region.
            return unsafe { self.two_pass(src, base, region, how) };
        }
        let buf = region;
        let mid = region + align_up(CHUNK * 16);
        let mut sum_f = 0.0f64;
        let mut sum_c = C128::new(0.0, 0.0);
        let mut sum_i = 0i64;
        let mut best = f64::NAN;
        let mut best_i = i64::MIN;
        let mut best_at = 0usize;
        let mut seen = 0usize;
        let mut nan_at: Option<usize> = None;
        let mut prod_f = 1.0f64;
        let mut prod_c = C128::new(1.0, 0.0);
        let mut prod_i = 1i64;
        // All: no zero seen yet; Any: a non-zero seen.
        let mut all = true;
        let mut any = false;
        let float = self.acc == DType::F64;
        let direct =
            matches!(how, Reduce::Sum | Reduce::Mean | Reduce::LogSum) && self.direct_float();
        self.for_runs(base, |off, stride, len| {
            if direct && stride == 1 {
                // SAFETY: the run lies inside the input view.
                sum_f += unsafe { self.direct_sum(src, off, len) };
                return;
            }
            let mut done = 0;
            while done < len {
                let n = CHUNK.min(len - done);
                // SAFETY: within the view; the buffers were sized in phase 1.
                unsafe { self.read(src, off + done as isize * stride, stride, n, buf, mid) };
                match (self.acc, how) {
                    (DType::F64, Reduce::Sum | Reduce::Mean | Reduce::LogSum) => {
                        // SAFETY: n f64 values were just written.
                        let v = unsafe { std::slice::from_raw_parts(buf as *const f64, n) };
                        sum_f += lane_sum(v);
                    }
                    (DType::F64, Reduce::NanSum) => {
                        // SAFETY: as above.
                        let v = unsafe { std::slice::from_raw_parts(buf as *const f64, n) };
                        sum_f += lane_sum_map(v, |x| if x.is_nan() { 0.0 } else { x });
                    }
                    (DType::F64, Reduce::Prod) => {
                        // SAFETY: as above.
                        let v = unsafe { std::slice::from_raw_parts(buf as *const f64, n) };
                        prod_f *= lanes::<_, _, LANES>(v, 1.0, |a, x| a * x)
                            .iter()
                            .product::<f64>();
                    }
                    (DType::C128, Reduce::Prod) => {
                        // SAFETY: n complex128 values were just written.
                        let v = unsafe { std::slice::from_raw_parts(buf as *const C128, n) };
                        for z in v {
                            prod_c *= z;
                        }
                    }
                    (_, Reduce::All | Reduce::Any) => {
                        // Values were read through bool (the rule plans it so): 0 or 1.
                        // SAFETY: n i64 values were just written.
                        let v = unsafe { std::slice::from_raw_parts(buf as *const i64, n) };
                        all &= v.iter().all(|&x| x != 0);
                        any |= v.iter().any(|&x| x != 0);
                    }
                    (DType::S64, Reduce::Prod) => {
                        // SAFETY: n i64 values were just written.
                        let v = unsafe { std::slice::from_raw_parts(buf as *const i64, n) };
                        prod_i = lanes::<_, _, LANES>(v, 1i64, |a, x| a.wrapping_mul(x))
                            .iter()
                            .fold(prod_i, |a, &b| a.wrapping_mul(b));
                    }
                    (DType::C128, _) => {
                        // SAFETY: n complex128 values were just written.
                        let v = unsafe { std::slice::from_raw_parts(buf as *const C128, n) };
                        for z in v {
                            sum_c += z;
                        }
                    }
                    (DType::F64, _) => {
                        // SAFETY: as above.
                        let v = unsafe { std::slice::from_raw_parts(buf as *const f64, n) };
                        for (j, &x) in v.iter().enumerate() {
                            let at = seen + j;
                            if x.is_nan() {
                                nan_at.get_or_insert(at);
                                continue;
                            }
                            let better = match how {
                                Reduce::Max | Reduce::ArgMax => best.is_nan() || x > best,
                                _ => best.is_nan() || x < best,
                            };
                            if better {
                                best = x;
                                best_at = at;
                            }
                        }
                    }
                    (_, Reduce::Sum | Reduce::Mean | Reduce::NanSum | Reduce::LogSum) => {
                        // SAFETY: n i64 values were just written.
                        let v = unsafe { std::slice::from_raw_parts(buf as *const i64, n) };
                        sum_i = sum_i.wrapping_add(wrapping_lane_sum(v));
                    }
                    _ => {
                        // SAFETY: as above.
                        let v = unsafe { std::slice::from_raw_parts(buf as *const i64, n) };
                        for (j, &x) in v.iter().enumerate() {
                            let better = match how {
                                Reduce::Max | Reduce::ArgMax => seen + j == 0 || x > best_i,
                                _ => seen + j == 0 || x < best_i,
                            };
                            if better {
                                best_i = x;
                                best_at = seen + j;
                            }
                        }
                    }
                }
                seen += n;
                done += n;
            }
        });
        let count = self.count as f64;
        match how {
            Reduce::Sum if self.acc == DType::C128 => Wide::Complex(sum_c.re, sum_c.im),
            Reduce::Mean if self.acc == DType::C128 => {
                Wide::Complex(sum_c.re / count, sum_c.im / count)
            }
            Reduce::Sum if float => Wide::Float(sum_f),
            // An empty mean is 0/0: NaN.
            Reduce::Mean if float => Wide::Float(sum_f / count),
            Reduce::Sum => Wide::Int(sum_i as i128),
            // An integer mean divides the i64 accumulator exactly, truncating toward zero as
            // float->int conversion does (then rounds to the dtype like every result).
            Reduce::Mean if self.count > 0 => Wide::Int(sum_i as i128 / self.count as i128),
            Reduce::Mean => Wide::Float(f64::NAN),
            // NaN propagates, and is where the first NaN is for the arg forms.
            Reduce::Max | Reduce::Min if float => {
                Wide::Float(if nan_at.is_some() { f64::NAN } else { best })
            }
            Reduce::Max | Reduce::Min => Wide::Int(best_i as i128),
            Reduce::ArgMax | Reduce::ArgMin => Wide::Int(nan_at.unwrap_or(best_at) as i128),
            Reduce::NanSum if self.acc == DType::C128 => Wide::Complex(sum_c.re, sum_c.im),
            Reduce::NanSum if float => Wide::Float(sum_f),
            Reduce::NanSum => Wide::Int(sum_i as i128),
            Reduce::LogSum if float => Wide::Float(sum_f.ln()),
            Reduce::LogSum => Wide::Float((sum_i as f64).ln()),
            Reduce::Prod if self.acc == DType::C128 => Wide::Complex(prod_c.re, prod_c.im),
            Reduce::Prod if float => Wide::Float(prod_f),
            Reduce::Prod => Wide::Int(prod_i as i128),
            Reduce::All => Wide::Int(all as i128),
            Reduce::Any => Wide::Int(any as i128),
            Reduce::Var { .. } | Reduce::LogSumExp => unreachable!("two-pass reductions"),
        }
    }

    /// Calls `f` with the reduced values of the output position at `base`, in chunks of f64
    /// (the plan's accumulator is f64 for the reductions that use this).
    unsafe fn for_chunks(&self, src: usize, base: isize, region: usize, mut f: impl FnMut(&[f64])) {
        let buf = region;
        let mid = region + align_up(CHUNK * 16);
        self.for_runs(base, |off, stride, len| {
            let mut done = 0;
            while done < len {
                let n = CHUNK.min(len - done);
                // SAFETY: within the view; the buffers were sized in phase 1; n f64 values
                // are written before they are read.
                unsafe {
                    self.read(src, off + done as isize * stride, stride, n, buf, mid);
                    f(std::slice::from_raw_parts(buf as *const f64, n));
                }
                done += n;
            }
        });
    }

    /// The reductions that read their elements twice: a statistic of the whole set first
    /// (the mean, the max), then a sum that depends on it.
    unsafe fn two_pass(&self, src: usize, base: isize, region: usize, how: Reduce) -> Wide {
        debug_assert_eq!(self.acc, DType::F64);
        let n = self.count as f64;
        match how {
            Reduce::Var { correction, root } => {
                let mut sum = 0.0;
                // SAFETY (both passes): the caller's guarantees.
                unsafe { self.for_chunks(src, base, region, |v| sum += lane_sum(v)) };
                // An empty set: 0/0 = NaN, as torch (and CANN, which fills NaN).
                let mean = sum / n;
                let (mut squares, mut deviations) = (0.0, 0.0);
                unsafe {
                    self.for_chunks(src, base, region, |v| {
                        squares += lane_sum_map(v, |x| (x - mean) * (x - mean));
                        deviations += lane_sum_map(v, |x| x - mean);
                    })
                };
                // The corrected two-pass form: the second term removes the rounding error
                // of the mean (Chan, Golub & LeVeque).
                let ss = squares - deviations * deviations / n;
                let var = ss / (n - correction as f64).max(0.0);
                Wide::Float(if root { var.sqrt() } else { var })
            }
            Reduce::LogSumExp => {
                let mut max = f64::NEG_INFINITY;
                let mut nan = false;
                unsafe {
                    self.for_chunks(src, base, region, |v| {
                        let m = lane_max(v);
                        nan |= m.is_nan();
                        max = max.max(m);
                    })
                };
                if nan {
                    return Wide::Float(f64::NAN);
                }
                // All −inf (or empty): Σ exp = 0, ln 0 = −inf; a +inf max: the sum is +inf.
                let shift = if max.is_infinite() { 0.0 } else { max };
                let mut sum = 0.0;
                unsafe {
                    self.for_chunks(src, base, region, |v| {
                        sum += lane_sum_map(v, |x| exp_with::<false>(x - shift))
                    })
                };
                Wide::Float(sum.ln() + shift)
            }
            _ => unreachable!("{how:?} is a one-pass reduction"),
        }
    }

    /// Softmax / LogSoftmax of the slice at `base`, written at `out_base` (stride along the axis).
    unsafe fn slice_one(
        &self,
        src: usize,
        base: isize,
        dst: usize,
        out_base: isize,
        region: usize,
        how: Slice,
    ) {
        let buf = region;
        let mid = region + align_up(CHUNK * 16);
        let vals = region + 2 * align_up(CHUNK * 16);
        let len = self.count;
        let mut at = 0;
        self.for_runs(base, |off, stride, n_run| {
            let mut done = 0;
            while done < n_run {
                let n = CHUNK.min(n_run - done);
                // SAFETY: within the view; `vals` holds `count` f64 values (sized in phase 1).
                unsafe {
                    self.read(
                        src,
                        off + done as isize * stride,
                        stride,
                        n,
                        vals + at * 8,
                        mid,
                    )
                };
                at += n;
                done += n;
            }
        });
        // SAFETY: `vals` holds `count` f64 values (sized in phase 1), all written just above.
        let v = unsafe { std::slice::from_raw_parts_mut(vals as *mut f64, len) };
        // Stable: subtract the max; a NaN anywhere makes the slice NaN.
        let max = lane_max(v);
        let shift = if max.is_infinite() { 0.0 } else { max };
        slice_kernel(v, shift, how);
        let p = (dst as isize + out_base * self.out_dtype.size() as isize) as *mut u8;
        let out_step = self.slice_out_stride * self.out_dtype.size() as isize;
        // SAFETY: the slice lies inside the output view; `buf` holds CHUNK values of any dtype.
        unsafe {
            if self.value == self.out_dtype || self.value == DType::F64 {
                convert::run(
                    vals as *const u8,
                    DType::F64,
                    1,
                    p,
                    self.out_dtype,
                    self.slice_out_stride,
                    len,
                );
            } else {
                // The result is a value of self's dtype first, then converted to out.
                let mut done = 0;
                while done < len {
                    let n = CHUNK.min(len - done);
                    convert::run(
                        (vals + done * 8) as *const u8,
                        DType::F64,
                        1,
                        buf as *mut u8,
                        self.value,
                        1,
                        n,
                    );
                    let q = (p as isize + done as isize * out_step) as *mut u8;
                    convert::run(
                        buf as *const u8,
                        self.value,
                        1,
                        q,
                        self.out_dtype,
                        self.slice_out_stride,
                        n,
                    );
                    done += n;
                }
            }
        }
    }
}

impl Plan {
    /// f32 or f64 values summed straight from memory in f64: converting them through a
    /// buffer first would change nothing (f32 -> f64 is exact) but cost a pass.
    fn direct_float(&self) -> bool {
        self.acc == DType::F64
            && matches!(self.in_dtype, DType::F32 | DType::F64)
            && (self.value == self.in_dtype || self.value == DType::F64)
    }

    /// Sum in f64 of `len` contiguous f32/f64 input elements at element offset `off`.
    unsafe fn direct_sum(&self, src: usize, off: isize, len: usize) -> f64 {
        let p = (src as isize + off * self.in_dtype.size() as isize) as usize;
        // SAFETY: the caller passes a run inside the input view.
        unsafe {
            if self.in_dtype == DType::F32 {
                lane_sum_f32(std::slice::from_raw_parts(p as *const f32, len))
            } else {
                lane_sum(std::slice::from_raw_parts(p as *const f64, len))
            }
        }
    }

    /// Column layout: the first input and output offsets of column block `cb` (an index over
    /// the other kept dims and the blocks along the contiguous one), and its length.
    fn column_origin(&self, c: &Columns, cb: usize) -> (isize, isize, usize) {
        let outer = cb / c.blocks;
        let first = (cb % c.blocks) * c.block;
        let (mut ib, mut ob) = (self.in_offset as isize, self.out_offset as isize);
        let mut o = outer;
        for &(size, si, so) in c.outer.iter().rev() {
            let x = (o % size) as isize;
            o /= size;
            ib += x * si;
            ob += x * so;
        }
        (
            ib + first as isize,
            ob + first as isize * c.out_stride,
            c.block.min(c.len - first),
        )
    }

    /// `accs[i] += x[i]` for n accumulators of the plan's accumulation dtype.
    unsafe fn accumulate(&self, accs: usize, x: usize, n: usize) {
        // SAFETY: the caller passes n accumulators at each address, not overlapping.
        unsafe {
            match self.acc {
                DType::F64 => add_into::<f64>(accs, x, n),
                DType::C128 => add_into::<f64>(accs, x, 2 * n),
                _ => {
                    let a = std::slice::from_raw_parts_mut(accs as *mut i64, n);
                    let b = std::slice::from_raw_parts(x as *const i64, n);
                    a.iter_mut()
                        .zip(b)
                        .for_each(|(a, &b)| *a = a.wrapping_add(b));
                }
            }
        }
    }

    /// Column layout: sums group `group` of the reduced rows (see `Columns::groups`) of
    /// column block `cb` into `accs`, adding each reduced position's row segment (no strided
    /// gathers, every input byte read once, in order).
    unsafe fn column_sums(
        &self,
        c: &Columns,
        cb: usize,
        group: usize,
        src: usize,
        accs: usize,
        region: usize,
    ) {
        let run = align_up(c.block.max(CHUNK) * 16);
        let (buf, mid) = (region, region + run);
        let (ib, _, n) = self.column_origin(c, cb);
        let (rows, row_stride) = self.reduced[0];
        let direct = self.direct_float();
        // SAFETY (whole body): offsets come from validated views; the buffers were sized in
        // phase 1 (a block of elements of up to 16 bytes each).
        unsafe {
            std::ptr::write_bytes(accs as *mut u8, 0, n * self.acc.size());
            for r in rows * group / c.groups..rows * (group + 1) / c.groups {
                for_each_offset(&self.reduced[1..], ib + r as isize * row_stride, |off| {
                    if direct {
                        let p = src + off as usize * self.in_dtype.size();
                        if self.in_dtype == DType::F32 {
                            add_widened(
                                std::slice::from_raw_parts_mut(accs as *mut f64, n),
                                std::slice::from_raw_parts(p as *const f32, n),
                            );
                        } else {
                            add_into::<f64>(accs, p, n);
                        }
                        return;
                    }
                    self.read(src, off, 1, n, buf, mid);
                    self.accumulate(accs, buf, n);
                });
            }
        }
    }

    /// Column layout: writes column block `cb`'s outputs from its sums `accs`.
    unsafe fn column_finish(&self, c: &Columns, cb: usize, accs: usize, dst: usize) {
        let (_, ob, n) = self.column_origin(c, cb);
        let mean = matches!(self.op, Op::Reduce(Reduce::Mean));
        let count = self.count as f64;
        // SAFETY: `accs` holds n sums; output offsets come from the validated view.
        unsafe {
            for j in 0..n {
                let w = match self.acc {
                    DType::F64 => {
                        let v = *(accs as *const f64).add(j);
                        Wide::Float(if mean { v / count } else { v })
                    }
                    DType::C128 => {
                        let p = (accs as *const f64).add(2 * j);
                        let (re, im) = (*p, *p.add(1));
                        if mean {
                            Wide::Complex(re / count, im / count)
                        } else {
                            Wide::Complex(re, im)
                        }
                    }
                    _ => {
                        let v = *(accs as *const i64).add(j) as i128;
                        Wide::Int(if mean { v / self.count as i128 } else { v })
                    }
                };
                let p = (dst as isize
                    + (ob + j as isize * c.out_stride) * self.out_dtype.size() as isize)
                    as *mut u8;
                write_wide(round_to(w, self.value), p, self.out_dtype);
            }
        }
    }
}

/// The column layout of a sum or mean whose input's contiguous dim is kept.
#[derive(Debug)]
struct Columns {
    /// Length of the contiguous kept dim, its output stride, and its blocks of `block`.
    len: usize,
    out_stride: isize,
    block: usize,
    blocks: usize,
    /// The other kept dims: (size, input stride, output stride).
    outer: Vec<(usize, isize, isize)>,
    /// The outermost reduced dim is summed in this many groups of rows, each into partial
    /// sums that are then added in group order: every thread streams whole rows, in order,
    /// instead of a segment of each row. The count depends only on the shape, so results do
    /// not depend on the number of threads.
    groups: usize,
}

impl Columns {
    fn plan(
        op: Op,
        kept: &[(usize, isize, isize)],
        reduced: &[(usize, isize)],
        count: usize,
        threads: usize,
    ) -> Option<Columns> {
        if !matches!(op, Op::Reduce(Reduce::Sum | Reduce::Mean)) || count < 2 {
            return None;
        }
        // The kept dim read contiguously; worth it when its rows are long enough to stream.
        let k = kept.iter().position(|&(n, si, _)| si == 1 && n >= 16)?;
        if reduced
            .iter()
            .any(|&(n, s)| n > 1 && s.unsigned_abs() < kept[k].0)
        {
            return None;
        }
        let mut outer = kept.to_vec();
        let (len, _, out_stride) = outer.remove(k);
        let groups = (reduced[0].0 / GROUP_ROWS).clamp(1, MAX_GROUPS);
        // Long row segments stream best (each is read once, in order): whole rows when row
        // groups share out the work, else one block per thread when there are no other kept
        // dims to share out; within what stays in L2 either way.
        let per_thread = if groups > 1 || outer.iter().any(|o| o.0 > 1) {
            len
        } else {
            len.div_ceil(threads)
        };
        let block = per_thread.clamp(CHUNK, 16 * CHUNK).next_multiple_of(64);
        Some(Columns {
            len,
            out_stride,
            block,
            blocks: len.div_ceil(block),
            outer,
            groups,
        })
    }

    /// Column blocks: the other kept dims times the blocks along the contiguous one.
    fn column_blocks(&self) -> usize {
        self.outer.iter().map(|o| o.0).product::<usize>() * self.blocks
    }

    /// Units of work: a group of rows of a column block.
    fn units(&self) -> usize {
        self.column_blocks() * self.groups
    }

    /// Workspace for the groups' partial sums (none with a single group).
    fn partials_bytes(&self) -> usize {
        if self.groups > 1 {
            self.units() * align_up(self.block * 16)
        } else {
            0
        }
    }
}

/// Calls `f` with the input offset of every position of the reduced dims (odometer order).
fn for_each_offset(reduced: &[(usize, isize)], base: isize, mut f: impl FnMut(isize)) {
    let rank = reduced.len();
    if reduced.iter().any(|r| r.0 == 0) {
        return;
    }
    let mut idx = [0usize; 8];
    let mut off = base;
    loop {
        f(off);
        let mut d = rank;
        loop {
            if d == 0 {
                return;
            }
            d -= 1;
            idx[d] += 1;
            off += reduced[d].1;
            if idx[d] < reduced[d].0 {
                break;
            }
            off -= reduced[d].1 * reduced[d].0 as isize;
            idx[d] = 0;
        }
    }
}

/// `acc[i] += x[i]` over n values (the compiler vectorises it).
unsafe fn add_into<T: Copy + std::ops::AddAssign>(acc: usize, x: usize, n: usize) {
    // SAFETY: the caller passes n valid values at each address, not overlapping.
    let (a, b) = unsafe {
        (
            std::slice::from_raw_parts_mut(acc as *mut T, n),
            std::slice::from_raw_parts(x as *const T, n),
        )
    };
    a.iter_mut().zip(b).for_each(|(a, &b)| *a += b);
}

// acc[i] += x[i] as f64.
with_avx2!(add_widened(acc: &mut [f64], x: &[f32]) -> () {
    acc.iter_mut().zip(x).for_each(|(a, &b)| *a += f64::from(b));
});

// Sum of f32 values in f64, in 2·LANES interleaved partial sums.
with_avx2!(lane_sum_f32(v: &[f32]) -> f64 {
    lanes::<_, _, { 2 * LANES }>(v, 0.0, |a, x| a + f64::from(x)).iter().sum()
});

/// The largest value, or NaN if any is NaN, in lanes that vectorise.
#[inline(always)]
fn lane_max<T: Copy + Into<f64>>(v: &[T]) -> f64 {
    let acc = lanes::<_, _, LANES>(v, (f64::NEG_INFINITY, false), |(m, nan), x| {
        let x: f64 = x.into();
        (if x > m { x } else { m }, nan | x.is_nan())
    });
    if acc.iter().any(|a| a.1) {
        f64::NAN
    } else {
        acc.iter().fold(f64::NEG_INFINITY, |a, b| a.max(b.0))
    }
}

/// Lanes of independent partial sums: the adds vectorise and pipeline, and the order (hence
/// the result) is fixed for a given length.
const LANES: usize = 8;

/// Partial sums of `lane_sum_map`: four vectors of eight f64, so that four independent add
/// chains hide the add latency (with one vector of eight the statistics passes of the norms
/// ran at a quarter of the load throughput).
const SUM_LANES: usize = 32;

/// Sum of `v` in f64 over SUM_LANES interleaved partial sums.
#[inline(always)]
pub(crate) fn lane_sum(v: &[f64]) -> f64 {
    lane_sum_map(v, |x| x)
}

/// Sum of `f(x)` over `v`, in SUM_LANES interleaved partial sums. Generic over the element
/// type so that f32 values widened inside `f` sum to the same bits as the same values
/// converted to an f64 buffer first (the row engine's f32 path relies on it).
#[inline(always)]
pub(crate) fn lane_sum_map<T: Copy>(v: &[T], f: impl Fn(T) -> f64) -> f64 {
    lanes::<_, _, SUM_LANES>(v, 0.0, |a, x| a + f(x))
        .iter()
        .sum()
}

/// Wrapping i64 sum (integer sums wrap as the device's do), in lanes that vectorise.
fn wrapping_lane_sum(v: &[i64]) -> i64 {
    lanes::<_, _, LANES>(v, 0i64, |a, x| a.wrapping_add(x))
        .iter()
        .fold(0, |a, &b| a.wrapping_add(b))
}

/// Folds `v` into N interleaved accumulators (element i into lane i mod N): independent
/// lanes vectorise and pipeline, and the order, hence the result, is fixed for a length.
#[inline(always)]
fn lanes<T: Copy, A: Copy, const N: usize>(v: &[T], zero: A, add: impl Fn(A, T) -> A) -> [A; N] {
    let mut acc = [zero; N];
    let chunks = v.chunks_exact(N);
    let tail = chunks.remainder();
    for c in chunks {
        for j in 0..N {
            acc[j] = add(acc[j], c[j]);
        }
    }
    for (j, &x) in tail.iter().enumerate() {
        acc[j] = add(acc[j], x);
    }
    acc
}

/// The stable softmax of one row in place, on the Softmax slice's kernel (each exponential
/// once, divided by their f64 sum), shifted by the row's max even when it is infinite: a
/// +inf makes the row NaN and an all −inf row is NaN, as torch and the device's SoftMax
/// (the Softmax slice instead shifts an infinite max by 0). A NaN makes the row NaN. For
/// operators that build their rows themselves (the masked softmax family) and round the
/// result as they need.
pub fn softmax_row(v: &mut [f64]) {
    let max = lane_max(v);
    slice_kernel(v, max, Slice::Softmax);
}

/// The log-softmax of one row in place (x − max − ln Σ e^(x − max), each exponential once,
/// on the LogSoftmax slice's kernel), shifted by the row's max even when it is infinite, as
/// `softmax_row`: a NaN, a +inf or an all −inf row gives NaN everywhere.
pub fn log_softmax_row(v: &mut [f64]) {
    let max = lane_max(v);
    slice_kernel(v, max, Slice::LogSoftmax);
}

/// The log-softmax of an f32 row read where it lies, as (shift, ln Σ e^(x − shift)): the
/// value at x is then `(x as f64 − shift) − ln_sum`, the bits `log_softmax_row` gives for the
/// row widened to f64 (the same max, the same exponentials summed in the same order), without
/// the f64 copy of the row.
pub fn log_softmax_terms(v: &[f32]) -> (f64, f64) {
    let shift = lane_max(v);
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512f") {
            // SAFETY: the CPU has the features the function is compiled for.
            return (shift, unsafe { exp_sum_avx512(v, shift) }.ln());
        }
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
        {
            // SAFETY: as above.
            return (shift, unsafe { exp_sum_avx2(v, shift) }.ln());
        }
    }
    (shift, exp_sum_with::<false>(v, shift).ln())
}

/// Σ e^(x − shift) as the LogSoftmax slice's kernel sums it.
#[inline(always)]
fn exp_sum_with<const FMA: bool>(v: &[f32], shift: f64) -> f64 {
    lane_sum_map(v, |x| exp_with::<FMA>(f64::from(x) - shift))
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx2,fma")]
unsafe fn exp_sum_avx512(v: &[f32], shift: f64) -> f64 {
    exp_sum_with::<true>(v, shift)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn exp_sum_avx2(v: &[f32], shift: f64) -> f64 {
    exp_sum_with::<true>(v, shift)
}

/// Softmax / LogSoftmax of one slice in place, given its max (`shift`): each exponential is
/// computed once. Runs with AVX2+FMA where the CPU has them (4 lanes and fused steps).
fn slice_kernel(v: &mut [f64], shift: f64, how: Slice) {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512f") {
            // SAFETY: the CPU has the features the function is compiled for.
            return unsafe { slice_kernel_avx512(v, shift, how) };
        }
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
        {
            // SAFETY: the CPU has the features the function is compiled for.
            return unsafe { slice_kernel_avx2(v, shift, how) };
        }
    }
    slice_kernel_with::<false>(v, shift, how)
}

/// The same with AVX-512 (8 lanes: the exponentials' polynomial is the kernel's cost).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx2,fma")]
unsafe fn slice_kernel_avx512(v: &mut [f64], shift: f64, how: Slice) {
    slice_kernel_with::<true>(v, shift, how)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn slice_kernel_avx2(v: &mut [f64], shift: f64, how: Slice) {
    slice_kernel_with::<true>(v, shift, how)
}

#[inline(always)]
fn slice_kernel_with<const FMA: bool>(v: &mut [f64], shift: f64, how: Slice) {
    match how {
        Slice::Softmax => {
            v.iter_mut().for_each(|x| *x = exp_with::<FMA>(*x - shift));
            let sum = lane_sum(v);
            v.iter_mut().for_each(|x| *x /= sum);
        }
        Slice::LogSoftmax => {
            let sum: f64 = lane_sum_map(v, |x| exp_with::<FMA>(x - shift));
            let log_sum = sum.ln();
            v.iter_mut().for_each(|x| *x = *x - shift - log_sum)
        }
    }
}

impl Work for Plan {
    fn workspace_size(&self) -> u64 {
        self.workspace
    }

    fn run(&self, t: &Bindings, ws: Workspace) -> Result<()> {
        if self.outputs == 0 {
            return Ok(());
        }
        let src = t.addr(self.in_binding)?;
        let dst = t.addr(self.out_binding)?;
        let base = ws.addr.div_ceil(ALIGN) * ALIGN;
        if let Some(c) = &self.columns {
            let partials = base + self.tasks * self.task_bytes;
            let slot = align_up(c.block * 16);
            // With one group, a task's column sums are the last `slot` bytes of its region.
            let accs_at = self.task_bytes - slot;
            // Each unit sums its group of rows; with one group that is the whole sum.
            self.in_tasks(c.units(), |i, u| {
                let region = base + i * self.task_bytes;
                let (cb, g) = (u / c.groups, u % c.groups);
                // SAFETY: offsets come from validated views; the unit's partial sums (or,
                // with one group, its outputs) and the task's region belong to it alone.
                unsafe {
                    if c.groups == 1 {
                        self.column_sums(c, cb, 0, src, region + accs_at, region);
                        self.column_finish(c, cb, region + accs_at, dst);
                    } else {
                        self.column_sums(c, cb, g, src, partials + u * slot, region);
                    }
                }
            });
            if c.groups > 1 {
                // The groups' partial sums, added in group order, give each block's sums.
                self.in_tasks(c.column_blocks(), |_, cb| {
                    let first = partials + cb * c.groups * slot;
                    let n = self.column_origin(c, cb).2;
                    // SAFETY: the block's partial sums belong to this unit alone.
                    unsafe {
                        for g in 1..c.groups {
                            self.accumulate(first, first + g * slot, n);
                        }
                        self.column_finish(c, cb, first, dst);
                    }
                });
            }
            return Ok(());
        }
        self.in_tasks(self.outputs, |i, o| {
            let region = base + i * self.task_bytes;
            let (ib, ob) = self.offsets(o);
            // SAFETY: offsets come from validated views; the region is this task's.
            unsafe {
                match self.op {
                    Op::Reduce(how) => {
                        let mut w = self.reduce_one(src, ib, region, how);
                        // The result is a value of the computation dtype first (Mean in
                        // f16 rounds to f16), then converted to out; indices are exact.
                        if !matches!(
                            how,
                            Reduce::ArgMax | Reduce::ArgMin | Reduce::All | Reduce::Any
                        ) {
                            w = round_to(w, self.value);
                        }
                        let p = (dst as isize + ob * self.out_dtype.size() as isize) as *mut u8;
                        write_wide(w, p, self.out_dtype);
                    }
                    Op::Slice(how) => self.slice_one(src, ib, dst, ob, region, how),
                }
            }
        });
        Ok(())
    }
}

impl Plan {
    /// Runs `f(task, unit)` for units 0..units, split into at most `tasks` contiguous ranges
    /// on the thread pool.
    fn in_tasks(&self, units: usize, f: impl Fn(usize, usize) + Sync) {
        let tasks = self.tasks.min(units).max(1);
        let task = |i: usize| {
            for u in units * i / tasks..units * (i + 1) / tasks {
                f(i, u);
            }
        };
        if tasks == 1 {
            task(0);
        } else {
            run_tasks(tasks, task);
        }
    }
}

/// A value rounded to `dtype` (and back to an exact Wide).
fn round_to(w: Wide, dtype: DType) -> Wide {
    crate::with_dtype!(dtype, T => <T as crate::element::Element>::from_wide(w).to_wide())
}

/// Writes one value, converted to `dtype` by the conversion rule.
unsafe fn write_wide(w: Wide, p: *mut u8, dtype: DType) {
    crate::with_dtype!(dtype, T => {
        let v: T = <T as crate::element::Element>::from_wide(w);
        // SAFETY: p is an element of the output view.
        unsafe { (p as *mut T).write_unaligned(v) }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::vmath::exp;

    #[test]
    fn softmax_and_log_softmax_slices_agree_with_their_formulas() {
        let mut v: Vec<f64> = (0..1000).map(|i| i as f64 * 0.731 - 300.0).collect();
        let w: Vec<f64> = v.iter().map(|&x| exp(x)).collect();
        let mut fused = v.clone();
        slice_kernel(&mut fused, 0.0, Slice::Softmax);
        let sum: f64 = w.iter().sum();
        for (f, e) in fused.iter().zip(&w) {
            assert!(
                (f - e / sum).abs() <= 1e-15 * (e / sum) + 1e-300,
                "{f} vs {}",
                e / sum
            );
        }
        slice_kernel(&mut v, 0.0, Slice::LogSoftmax);
        assert!((v[999] - (999.0 * 0.731 - 300.0 - sum.ln())).abs() < 1e-12);
    }

    #[test]
    fn lane_sums_add_every_element_once() {
        for n in 0..40 {
            let v: Vec<f64> = (0..n).map(|i| i as f64).collect();
            assert_eq!(lane_sum(&v), (n * n.max(1) - n) as f64 / 2.0);
            let w: Vec<i64> = (0..n).map(|i| i64::MAX - i).collect();
            let want = w.iter().fold(0i64, |a, &b| a.wrapping_add(b));
            assert_eq!(wrapping_lane_sum(&w), want);
        }
    }

    #[test]
    fn odometer_visits_every_reduced_offset_once() {
        let mut seen = Vec::new();
        for_each_offset(&[(2, 100), (3, 10), (2, 1)], 5, |o| seen.push(o));
        let mut want = Vec::new();
        for a in 0..2 {
            for b in 0..3 {
                for c in 0..2 {
                    want.push(5 + a * 100 + b * 10 + c);
                }
            }
        }
        assert_eq!(seen, want);
        for_each_offset(&[(2, 1), (0, 4)], 0, |_| panic!("empty"));
    }
}
