//! 2-D pooling: AvgPool2d and MaxPool, one window engine.
//!
//! Both slide a kH×kW window with strides (sH, sW) over the (H, W) planes of an NCHW (or CHW)
//! self; the window of output (oh, ow) starts at (oh·sH − padTop, ow·sW − padLeft). Output
//! sizes follow PyTorch's formula: ⌊(in + padBefore + padAfter − k + (ceil ? s − 1 : 0))/s⌋ + 1,
//! less one where ceil mode would start the last window past the input and the left
//! padding (a window must start inside the input or the left padding).
//!
//! - Average: the sum of the window's input elements (padding counts as 0), accumulated in
//!   f64 from the exact values and divided once by divisorOverride if non-zero, else by the
//!   window's size clipped to input + padding (countIncludePad) or to the input alone; a
//!   window with no input element gives 0. Rounded once into out's dtype: within 0.5 ulp
//!   of the exact mean plus the f64 sum's error (≤ k·2⁻⁵³ relative), i.e. ≤ 1 ulp.
//! - Max: the largest input element of the window, NaN if any is NaN (torch's rule),
//!   padding ignored (−inf for a window entirely in padding). Exact.
//!
//! Planes run in parallel. An out that overlaps self is computed from a copy of self taken
//! into the workspace first (every input read before any output is written).

use super::catalog::Entry;
use super::elementwise as ew;
use crate::dtype::DType;
use crate::element::{Element, Wide};
use crate::error::Result;
use crate::executor::{Bindings, Executor, Nothing, Work, Workspace};
use crate::format::Format;
use crate::tensor::TensorDesc;

use DType::*;
/// AvgPool2d's A2 list (aclnnAvgPool2d.md).
const AVG: &[DType] = &[F32, F16, BF16];
/// MaxPool's A2 list (aclnn_max_pool.cpp, `SELF_OUT_DTYPE_SUPPORT_910B_LIST`).
const MAX: &[DType] = &[F32, F16];

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

/// One spatial axis of the window: kernel, stride, padding before/after, input and output sizes.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Axis {
    k: usize,
    s: usize,
    before: usize,
    after: usize,
    input: usize,
    output: usize,
}

impl Axis {
    /// PyTorch's pooling output size (`pooling_output_shape_pad_lr`, dilation 1); None if
    /// it is not positive.
    fn new(
        input: usize,
        k: usize,
        s: usize,
        before: usize,
        after: usize,
        ceil: bool,
    ) -> Option<Axis> {
        let (i, k_, s_, b) = (input as i64, k as i64, s as i64, before as i64);
        let num = i + b + after as i64 - k_ + if ceil { s_ - 1 } else { 0 };
        let mut out = num.div_euclid(s_) + 1;
        if ceil && (out - 1) * s_ >= i + b {
            out -= 1;
        }
        (out > 0).then(|| Axis {
            k,
            s,
            before,
            after,
            input,
            output: out as usize,
        })
    }

    /// Output `o`'s window: (start, end) clipped to the input, and its size clipped to the
    /// input plus padding.
    #[inline(always)]
    fn window(&self, o: usize) -> (usize, usize, usize) {
        let start = (o * self.s) as i64 - self.before as i64;
        let end_padded = (start + self.k as i64).min((self.input + self.after) as i64);
        let padded = (end_padded - start) as usize;
        let lo = start.max(0) as usize;
        let hi = (end_padded.min(self.input as i64)).max(lo as i64) as usize;
        (lo, hi, padded)
    }
}

/// A planned pooling: `planes` (N·C) planes of self and out, strided.
struct Plan {
    reduce: Reduce,
    dtype: DType,
    h: Axis,
    w: Axis,
    planes: usize,
    /// Per tensor: the stride between planes (the N and C dims, flattened) as (size, stride)
    /// pairs, then the H and W strides; and the offset.
    in_lead: Vec<(usize, isize)>,
    in_hw: [isize; 2],
    in_offset: usize,
    out_lead: Vec<(usize, isize)>,
    out_hw: [isize; 2],
    out_offset: usize,
    /// self is copied (as f64, contiguous planes) into the workspace first: out overlaps it.
    staged: bool,
}

/// Element offset of plane `p` given the leading (size, stride) dims.
fn plane_offset(lead: &[(usize, isize)], mut p: usize) -> isize {
    let mut off = 0;
    for &(n, s) in lead.iter().rev() {
        off += (p % n) as isize * s;
        p /= n;
    }
    off
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
    fn run_typed<T: Element>(&self, src: usize, dst: usize, ws: usize) {
        let (h, w) = (self.h, self.w);
        let plane_len = h.input * w.input;
        if self.staged {
            // Every plane of self into the workspace, before any output is written.
            crate::engine::run_tasks(self.planes, |p| {
                let base = plane_offset(&self.in_lead, p) + self.in_offset as isize;
                let buf = (ws as *mut f64).wrapping_add(p * plane_len);
                for y in 0..h.input {
                    for x in 0..w.input {
                        let i = base + y as isize * self.in_hw[0] + x as isize * self.in_hw[1];
                        // SAFETY: i is inside self's view; the buffer holds planes·H·W f64.
                        unsafe { *buf.add(y * w.input + x) = load::<T>(src, i) };
                    }
                }
            });
        }
        crate::engine::run_tasks(self.planes, |p| {
            let in_base = plane_offset(&self.in_lead, p) + self.in_offset as isize;
            let out_base = plane_offset(&self.out_lead, p) + self.out_offset as isize;
            let read = |y: usize, x: usize| -> f64 {
                if self.staged {
                    // SAFETY: inside the staged copy.
                    unsafe { *(ws as *const f64).add(p * plane_len + y * w.input + x) }
                } else {
                    let i = in_base + y as isize * self.in_hw[0] + x as isize * self.in_hw[1];
                    // SAFETY: inside self's view.
                    unsafe { load::<T>(src, i) }
                }
            };
            for oy in 0..h.output {
                let (y0, y1, ph) = h.window(oy);
                for ox in 0..w.output {
                    let (x0, x1, pw) = w.window(ox);
                    let v = match self.reduce {
                        Reduce::Max => {
                            let mut m = f64::NEG_INFINITY;
                            for y in y0..y1 {
                                for x in x0..x1 {
                                    let v = read(y, x);
                                    if v > m || v.is_nan() {
                                        m = v;
                                        if v.is_nan() {
                                            break;
                                        }
                                    }
                                }
                            }
                            m
                        }
                        Reduce::Avg {
                            count_include_pad,
                            divisor,
                        } => {
                            if y0 >= y1 || x0 >= x1 {
                                0.0
                            } else {
                                let mut s = 0.0;
                                for y in y0..y1 {
                                    for x in x0..x1 {
                                        s += read(y, x);
                                    }
                                }
                                let d = if divisor != 0 {
                                    divisor as f64
                                } else if count_include_pad {
                                    (ph * pw) as f64
                                } else {
                                    ((y1 - y0) * (x1 - x0)) as f64
                                };
                                s / d
                            }
                        }
                    };
                    let o = out_base + oy as isize * self.out_hw[0] + ox as isize * self.out_hw[1];
                    // SAFETY: o is inside out's view, which no other plane's task writes.
                    unsafe { store::<T>(dst, o, v) };
                }
            }
        });
    }
}

impl Work for Plan {
    fn workspace_size(&self) -> u64 {
        if self.staged {
            (self.planes * self.h.input * self.w.input * 8) as u64
        } else {
            0
        }
    }
    fn run(&self, t: &Bindings, ws: Workspace) -> Result<()> {
        let (src, dst) = (t.addr(0)?, t.addr(1)?);
        match self.dtype {
            F16 => self.run_typed::<half::f16>(src, dst, ws.addr),
            BF16 => self.run_typed::<half::bf16>(src, dst, ws.addr),
            _ => self.run_typed::<f32>(src, dst, ws.addr),
        }
        Ok(())
    }
}

/// The (N·C planes, H, W) split of a 3-D (CHW) or 4-D (NCHW) view.
fn split(t: &TensorDesc) -> (Vec<(usize, isize)>, [isize; 2], [usize; 2]) {
    let r = t.rank();
    let lead = (0..r - 2).map(|d| (t.shape[d], t.strides[d])).collect();
    (
        lead,
        [t.strides[r - 2], t.strides[r - 1]],
        [t.shape[r - 2], t.shape[r - 1]],
    )
}

/// `[a]` or `[a, b]` (one value for both axes); `what` names the parameter for messages.
fn pair(name: &str, v: &[i64], default: Option<[i64; 2]>) -> Result<[i64; 2]> {
    match (v, default) {
        ([], Some(d)) => Ok(d),
        ([a], _) => Ok([*a, *a]),
        ([a, b], _) => Ok([*a, *b]),
        _ => crate::bail!(
            "{name} has {} values {v:?}; it takes {}1 or 2",
            v.len(),
            if default.is_some() { "0, " } else { "" }
        ),
    }
}

/// Plans the pooling of `self_` into `out` with the two axes; out's shape must be the
/// computed one.
fn plan(
    api: &'static str,
    reduce: Reduce,
    self_: &TensorDesc,
    out: &TensorDesc,
    h: Axis,
    w: Axis,
) -> Result<Executor> {
    let mut want = self_.shape.clone();
    let r = want.len();
    want[r - 2] = h.output;
    want[r - 1] = w.output;
    ew::check_result_shape("out", out, &want)?;
    let bindings = Bindings {
        tensors: std::sync::Arc::new(vec![Some(self_.clone()), Some(out.clone())]),
        n_inputs: 1,
        outputs: smallvec::smallvec![1],
    };
    if out.is_empty() {
        return Ok(Executor::new(api, bindings, Nothing));
    }
    let (in_lead, in_hw, _) = split(self_);
    let (out_lead, out_hw, _) = split(out);
    let staged = overlap(self_, out);
    let plan = Plan {
        reduce,
        dtype: self_.dtype,
        h,
        w,
        planes: self_.shape[..r - 2].iter().product(),
        in_lead,
        in_hw,
        in_offset: self_.offset,
        out_lead,
        out_hw,
        out_offset: out.offset,
        staged,
    };
    Ok(Executor::new(api, bindings, plan))
}

/// Checks self's and out's dtypes (equal, in `list`) and rank (3 or 4, C·H·W non-empty).
fn check_tensors(self_: &TensorDesc, out: &TensorDesc, list: &[DType]) -> Result<()> {
    super::views::check(list, self_, out)?;
    let r = self_.rank();
    crate::ensure!(
        (r == 3 || r == 4) && out.rank() == r,
        "self has {r} dims {:?} and out {} dims: both must be 3-D (CHW) or 4-D (NCHW)",
        self_.shape,
        out.rank()
    );
    crate::ensure!(
        self_.shape[r - 3..].iter().all(|&d| d > 0),
        "self has shape {:?}: only its batch dim may be 0",
        self_.shape
    );
    Ok(())
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
    check_tensors(self_, out, AVG)?;
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
    let k = pair("kernelSize", kernel, None)?;
    let s = pair("strides", strides, Some(k))?;
    let p = pair("paddings", paddings, None)?;
    crate::ensure!(
        k.iter().all(|&v| v > 0),
        "kernelSize {kernel:?} must be > 0"
    );
    crate::ensure!(s.iter().all(|&v| v > 0), "strides {strides:?} must be > 0");
    crate::ensure!(
        p.iter().all(|&v| v >= 0),
        "paddings {paddings:?} must be >= 0"
    );
    crate::ensure!(
        2 * p[0] <= k[0] && 2 * p[1] <= k[1],
        "paddings {p:?} must be at most half of kernelSize {k:?}"
    );
    super::matmul::check_cube_math_type(cube_math_type)?;
    let r = self_.rank();
    let axis = |d: usize| {
        let n = self_.shape[r - 2 + d];
        // A window larger than the padded input has no place to start (torch refuses it).
        let fits = n as i64 + 2 * p[d] >= k[d];
        Axis::new(n, k[d] as usize, s[d] as usize, p[d] as usize, p[d] as usize, ceil_mode)
            .filter(|_| fits)
            .ok_or_else(|| {
                crate::Error::Invalid(format!(
                    "self has shape {:?}: kernelSize {k:?}, strides {s:?} and paddings {p:?} leave no output",
                    self_.shape
                ))
            })
    };
    let (h, w) = (axis(0)?, axis(1)?);
    plan(
        "aclnnAvgPool2d",
        Reduce::Avg {
            count_include_pad,
            divisor: divisor_override,
        },
        self_,
        out,
        h,
        w,
    )
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
    check_tensors(self_, out, MAX)?;
    crate::ensure!(
        self_.format == out.format,
        "self has format {} and out {}: they must be the same",
        self_.format,
        out.format
    );
    let k = pair("kernelShape", kernel, None)?;
    let s = pair("strides", strides, Some([1, 1]))?;
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
    let axis = |d: usize, b: i64, a: i64| {
        Axis::new(self_.shape[r - 2 + d], k[d] as usize, s[d] as usize, b as usize, a as usize, ceil_mode != 0)
            .ok_or_else(|| {
                crate::Error::Invalid(format!(
                    "self has shape {:?}: kernelShape {k:?}, strides {s:?} and pads {pads:?} leave no output",
                    self_.shape
                ))
            })
    };
    let (h, w) = (axis(0, top, bottom)?, axis(1, left, right)?);
    plan("aclnnMaxPool", Reduce::Max, self_, out, h, w)
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
        ops: "MaxPool",
        a: MAX,
        b: &[],
        out: MAX,
        rule: "max over kH×kW windows of CHW/NCHW planes, NaN propagates (dilation 1, autoPad 0)",
    },
];
