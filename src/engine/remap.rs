//! The remap engine: `out[i] = src[m(i)]`, or a fill value where `m(i)` names no source
//! element, for maps that are separable per axis: the source index along axis `a` depends
//! only on the output index along `a` (`maps[a][i_a]`, or `FILL`). Every moving operator of
//! the shape family is such a map — padding (constant, reflection, replication, circular),
//! flips, nearest-neighbour resampling, one kernel offset of Im2col — and Tril/Triu are the
//! identity map with a band over the last two axes (`Band`) outside which the fill is written.
//!
//! Phase 1 turns the last axis's map into runs (maximal stretches where the source index
//! moves by a constant step: a pad is fill, a run of step 1, fill; a reflection is runs of
//! step -1 and 1; a flip one run of step -1), so phase 2 moves each run with one strided
//! conversion (`convert::run`, which also converts src's dtype to out's). Rows (every index
//! but the last) are split across the pool's threads. Values are moved, never computed on:
//! results are exact (conversions by the library's one rule).
//!
//! A source that overlaps the output (other than an in-place identity, Tril/Triu on
//! selfRef) is first copied into the workspace, contiguous, so every element is read before
//! any is written.

use super::{align_up, convert, pool, run_tasks};
use crate::error::Result;
use crate::executor::{Bindings, Work, Workspace};
use crate::tensor::{contiguous_strides, TensorDesc};

/// "No source element here": the output element is the fill value.
pub const FILL: i64 = -1;

/// The elements kept by Tril/Triu: those whose column − row (over the last two axes) is in
/// `[lo, hi]`; the others are the fill value.
#[derive(Clone, Copy, Debug)]
pub struct Band {
    pub lo: i64,
    pub hi: i64,
}

/// A stretch of the last axis: `len` outputs from `at`, reading source indices
/// `src, src + step, ...` (or the fill value when `src == FILL`).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Run {
    at: usize,
    len: usize,
    src: i64,
    step: i64,
}

fn runs_of(map: &[i64]) -> Vec<Run> {
    let mut runs = Vec::new();
    let mut j = 0;
    while j < map.len() {
        let src = map[j];
        let mut len = 1;
        let step = if src == FILL || j + 1 >= map.len() || map[j + 1] == FILL {
            0
        } else {
            map[j + 1] - src
        };
        while j + len < map.len() {
            let next = map[j + len];
            let fits = if src == FILL {
                next == FILL
            } else {
                next != FILL && next == src + step * len as i64
            };
            if !fits {
                break;
            }
            len += 1;
        }
        runs.push(Run {
            at: j,
            len,
            src,
            step,
        });
        j += len;
    }
    runs
}

/// The planned gather of one source view into one output view.
pub struct Remap {
    src: TensorDesc,
    out: TensorDesc,
    src_binding: usize,
    out_binding: usize,
    /// Source index per output index, for every axis but the last.
    maps: Vec<Vec<i64>>,
    /// The last axis, as runs.
    runs: Vec<Run>,
    band: Option<Band>,
    /// The fill value in src's dtype (converted to out's with the rest).
    fill: [u8; 16],
    /// src overlaps out: copied into the workspace first.
    staged: bool,
    /// src is out's own view read in place, element by element (an identity map).
    in_place: bool,
}

/// Whether two views' byte ranges intersect (they may share memory).
pub(crate) fn overlaps(a: &TensorDesc, b: &TensorDesc) -> bool {
    matches!((a.byte_span(), b.byte_span()), (Some(x), Some(y)) if x.0 <= y.1 && y.0 <= x.1)
}

fn same_view(a: &TensorDesc, b: &TensorDesc) -> bool {
    a.addr == b.addr
        && a.offset == b.offset
        && a.dtype == b.dtype
        && a.shape == b.shape
        && a.strides == b.strides
}

/// A 0-d view as one axis of one element (the engines walk at least one axis).
pub(crate) fn at_least_1d(t: &TensorDesc) -> TensorDesc {
    let mut v = t.clone();
    if v.rank() == 0 {
        v.shape.push(1);
        v.strides.push(0);
    }
    v
}

impl Remap {
    /// `maps[a]` gives, for each index along out's axis `a`, the index along src's axis
    /// `a` (src and out have the same rank) or `FILL`. `fill` is in src's dtype.
    pub fn new(
        src: &TensorDesc,
        src_binding: usize,
        out: &TensorDesc,
        out_binding: usize,
        mut maps: Vec<Vec<i64>>,
        band: Option<Band>,
        fill: &[u8],
    ) -> Remap {
        debug_assert_eq!(src.rank(), out.rank());
        debug_assert_eq!(maps.len(), out.rank());
        let (src, out) = (at_least_1d(src), at_least_1d(out));
        if maps.is_empty() {
            maps.push(vec![0]);
        }
        let last = maps.pop().unwrap();
        let identity = maps
            .iter()
            .chain(std::iter::once(&last))
            .all(|m| m.iter().enumerate().all(|(i, &s)| s == i as i64));
        let runs = runs_of(&last);
        let in_place = identity && same_view(&src, &out);
        let staged = !in_place && overlaps(&src, &out);
        let mut f = [0u8; 16];
        f[..fill.len()].copy_from_slice(fill);
        Remap {
            src,
            out,
            src_binding,
            out_binding,
            maps,
            runs,
            band,
            fill: f,
            staged,
            in_place,
        }
    }

    fn rows(&self) -> usize {
        self.out.shape[..self.out.rank() - 1].iter().product()
    }

    /// Writes output row `row` (row-major over every axis but the last). `src` is the
    /// source's first element's address with strides `ss`; `dst` out's first element.
    ///
    /// # Safety
    /// The addresses are the bound views' (checked at planning: every map index is inside
    /// src's shape, every output index inside out's).
    unsafe fn row(&self, row: usize, src: *const u8, ss: &[isize], dst: *mut u8) {
        let k = self.out.rank();
        let (sd, od) = (self.src.dtype, self.out.dtype);
        let (se, oe) = (sd.size() as isize, od.size() as isize);
        let mut rest = row;
        let mut s_off = 0isize;
        let mut o_off = 0isize;
        let mut filled = false;
        let mut band_row = 0i64;
        for a in (0..k - 1).rev() {
            let n = self.out.shape[a];
            let i = rest % n;
            rest /= n;
            if a == k - 2 {
                band_row = i as i64;
            }
            o_off += i as isize * self.out.strides[a];
            let m = self.maps[a][i];
            if m == FILL {
                filled = true;
            } else {
                s_off += m as isize * ss[a];
            }
        }
        let n = self.out.shape[k - 1];
        // The kept columns [keep_lo, keep_hi) of this row.
        let (keep_lo, keep_hi) = match self.band {
            Some(b) => (
                (band_row + b.lo).clamp(0, n as i64) as usize,
                (band_row.saturating_add(b.hi) + 1).clamp(0, n as i64) as usize,
            ),
            None => (0, n),
        };
        let (sl, ol) = (ss[k - 1], self.out.strides[k - 1]);
        let fill = self.fill.as_ptr();
        // SAFETY (whole block): offsets within the views, as the caller guarantees.
        unsafe {
            let out_at = |j: usize| dst.offset((o_off + j as isize * ol) * oe);
            let put_fill = |from: usize, to: usize| {
                if to > from {
                    convert::run(fill, sd, 0, out_at(from), od, ol, to - from);
                }
            };
            for r in &self.runs {
                let (lo, hi) = (r.at, r.at + r.len);
                if filled || r.src == FILL {
                    put_fill(lo, hi);
                    continue;
                }
                let (a, b) = (lo.max(keep_lo), hi.min(keep_hi));
                if a >= b {
                    put_fill(lo, hi);
                    continue;
                }
                put_fill(lo, a);
                let first = r.src + r.step * (a - lo) as i64;
                convert::run(
                    src.offset((s_off + first as isize * sl) * se),
                    sd,
                    r.step as isize * sl,
                    out_at(a),
                    od,
                    ol,
                    b - a,
                );
                put_fill(b, hi);
            }
        }
    }
}

/// The executor of `out = gather(src)` for a one-input operator: src bound at 0, out at 1
/// (nothing to run when out is empty).
pub fn executor(
    api: &'static str,
    src: &TensorDesc,
    out: &TensorDesc,
    maps: Vec<Vec<i64>>,
    fill: &[u8],
) -> crate::executor::Executor {
    use crate::executor::{Executor, Nothing};
    let bindings = Bindings {
        tensors: std::sync::Arc::new(vec![Some(src.clone()), Some(out.clone())]),
        n_inputs: 1,
        outputs: smallvec::smallvec![1],
    };
    if out.is_empty() {
        return Executor::new(api, bindings, Nothing);
    }
    Executor::new(api, bindings, Remap::new(src, 0, out, 1, maps, None, fill))
}

/// The zero of `d`, as the fill of a gather that never fills (or fills with zeros).
pub fn zero(d: crate::dtype::DType) -> &'static [u8] {
    &[0u8; 16][..d.size()]
}

/// Rows per task: enough elements for a task to be worth its wake-up.
const GRAIN: usize = 32 * 1024;

/// Runs `f(row)` for every row in `0..rows`, split over the pool's threads.
fn for_rows(rows: usize, row_len: usize, f: impl Fn(usize) + Sync) {
    let per_task = (GRAIN / row_len.max(1)).max(1);
    let tasks = rows
        .div_ceil(per_task)
        .min(pool().current_num_threads())
        .max(1);
    let chunk = rows.div_ceil(tasks);
    run_tasks(tasks, |t| {
        for r in t * chunk..((t + 1) * chunk).min(rows) {
            f(r);
        }
    });
}

/// Copies the strided view `v` at `base` into `dst`, contiguous (same dtype).
///
/// # Safety
/// `base` is `v`'s storage; `dst` holds `v.numel()` elements.
unsafe fn stage(v: &TensorDesc, base: usize, dst: usize) {
    let k = v.rank();
    let n = v.shape[k - 1];
    let rows: usize = v.shape[..k - 1].iter().product();
    let e = v.dtype.size();
    for_rows(rows, n, |row| {
        let (mut rest, mut off) = (row, v.offset as isize);
        for a in (0..k - 1).rev() {
            off += (rest % v.shape[a]) as isize * v.strides[a];
            rest /= v.shape[a];
        }
        // SAFETY: one row of the view into its slot of the contiguous copy.
        unsafe {
            convert::run(
                (base as *const u8).offset(off * e as isize),
                v.dtype,
                v.strides[k - 1],
                (dst + row * n * e) as *mut u8,
                v.dtype,
                1,
                n,
            );
        }
    });
}

impl Work for Remap {
    fn workspace_size(&self) -> u64 {
        if self.staged {
            (align_up(self.src.numel() * self.src.dtype.size()) + super::ALIGN) as u64
        } else {
            0
        }
    }

    fn check(&self, b: &Bindings) -> Result<()> {
        let (src, out) = (b.view(self.src_binding)?, b.view(self.out_binding)?);
        if !self.staged
            && !(self.in_place && same_view(src, out))
            && overlaps(&at_least_1d(src), &at_least_1d(out))
        {
            crate::bail!(
                "the input now overlaps the output, which it did not when the executor was planned; plan again"
            );
        }
        Ok(())
    }

    fn run(&self, b: &Bindings, ws: Workspace) -> Result<()> {
        self.check(b)?;
        if self.out.is_empty() {
            return Ok(());
        }
        let dst = b.addr(self.out_binding)?;
        let dst0 = dst + self.out.offset * self.out.dtype.size();
        let (src0, strides) = if self.src.is_empty() {
            (0usize, self.src.strides.clone())
        } else if self.staged {
            let at = align_up(ws.addr);
            // SAFETY: the workspace holds the contiguous copy (workspace_size).
            unsafe { stage(&self.src, b.addr(self.src_binding)?, at) };
            (at, contiguous_strides(&self.src.shape))
        } else {
            let s = b.addr(self.src_binding)?;
            (
                s + self.src.offset * self.src.dtype.size(),
                self.src.strides.clone(),
            )
        };
        let n = self.out.shape[self.out.rank() - 1];
        for_rows(self.rows(), n, |row| {
            // SAFETY: the views were checked at planning and their addresses now.
            unsafe { self.row(row, src0 as *const u8, &strides, dst0 as *mut u8) }
        });
        Ok(())
    }

    fn small(&self) -> bool {
        self.out.numel() <= 4096
    }
}

/// Runs of a map, for tests of the planner.
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_of_pad_reflection_and_repeats() {
        let r = runs_of(&[FILL, FILL, 0, 1, 2, FILL]);
        assert_eq!(r.len(), 3);
        assert_eq!((r[1].at, r[1].len, r[1].src, r[1].step), (2, 3, 0, 1));
        let r = runs_of(&[2, 1, 0, 1, 2, 1, 0]);
        assert_eq!(r.len(), 3);
        assert_eq!((r[0].src, r[0].step, r[0].len), (2, -1, 3));
        let r = runs_of(&[0, 0, 1, 1]);
        assert_eq!(r.len(), 2);
        assert_eq!((r[0].step, r[0].len), (0, 2));
        let r = runs_of(&[5]);
        assert_eq!(
            r,
            vec![Run {
                at: 0,
                len: 1,
                src: 5,
                step: 0
            }]
        );
    }
}
