//! Creation: Arange and Range write `start + i·step` into a 1-D out. No input tensor: the
//! values are generated in chunks (integers exactly in i128 when start and step are
//! integers, floats in f64, as torch's accumulate type) and converted into out's dtype by
//! the library's conversion rule on the way out (`engine::convert`), chunks in parallel.
//!
//! - Arange (aclnnArange.md): [start, end): `ceil((end − start) / step)` values.
//! - Range (torch.range): [start, end]: `floor((end − start) / step) + 1` values.
//! step ≠ 0 and points from start toward end (start = end gives none for Arange); out
//! is 1-D with exactly that many elements.
//!
//! OneHot (aclnnOneHot.md, op_api): `out = offValue` everywhere, then `onValue` scattered to
//! `out[.., self[p], ..]` (the class axis inserted at `axis`) for every p whose class is in
//! [0, numClasses): two steps on the element-wise and the scatter engines. A class outside
//! that range (negative, or ≥ numClasses) leaves its vector all offValue, as the doc states.
//! onValue/offValue: their first element, of out's dtype.

use super::catalog::Entry;
use super::elementwise as ew;
use crate::dtype::DType;
use crate::element::Wide;
use crate::engine::{convert, run_tasks};
use crate::error::Result;
use crate::executor::{Bindings, Executor, Nothing, Sequence, Work, Workspace};
use crate::scalar::Scalar;
use crate::tensor::TensorDesc;

use DType::*;
/// aclnnArange.md (Atlas A2): start/end/step, and out.
const BOUNDS: &[DType] = &[F16, F32, F64, U8, S8, S16, S32, S64, Bool, BF16];
const OUT: &[DType] = &[F16, F32, F64, S32, S64, BF16];
const CHUNK: usize = 1024;

/// `start + i·step` for i in 0..n, into the strided 1-D view bound at 0.
struct Iota {
    start: Wide,
    step: Wide,
    n: usize,
}

impl Work for Iota {
    fn workspace_size(&self) -> u64 {
        0
    }
    fn run(&self, b: &Bindings, _: Workspace) -> Result<()> {
        let out = b.view(0)?;
        let base = b.addr(0)? + out.offset * out.dtype.size();
        let stride = out.strides[0];
        let chunks = self.n.div_ceil(CHUNK);
        let threads = crate::engine::pool()
            .current_num_threads()
            .min(chunks.div_ceil(16))
            .max(1);
        let (start, step, n, dtype) = (self.start, self.step, self.n, out.dtype);
        run_tasks(threads, |t| {
            let mut ints = [0i64; CHUNK];
            let mut floats = [0f64; CHUNK];
            for c in (t..chunks).step_by(threads) {
                let lo = c * CHUNK;
                let len = CHUNK.min(n - lo);
                let dst = (base as isize + lo as isize * stride * dtype.size() as isize) as *mut u8;
                // SAFETY: elements lo..lo+len of the output view (checked at phase 1 and 2).
                unsafe {
                    match (start, step) {
                        (Wide::Int(s), Wide::Int(d)) => {
                            for (k, v) in ints[..len].iter_mut().enumerate() {
                                *v = (s + (lo + k) as i128 * d) as i64;
                            }
                            convert::run(
                                ints.as_ptr() as *const u8,
                                S64,
                                1,
                                dst,
                                dtype,
                                stride,
                                len,
                            );
                        }
                        _ => {
                            let (s, d) = (as_f64(start), as_f64(step));
                            for (k, v) in floats[..len].iter_mut().enumerate() {
                                *v = s + (lo + k) as f64 * d;
                            }
                            convert::run(
                                floats.as_ptr() as *const u8,
                                F64,
                                1,
                                dst,
                                dtype,
                                stride,
                                len,
                            );
                        }
                    }
                }
            }
        });
        Ok(())
    }
}

fn as_f64(w: Wide) -> f64 {
    match w {
        Wide::Int(i) => i as f64,
        Wide::Float(f) => f,
        Wide::Bool(b) => b as u8 as f64,
        Wide::Complex(re, _) => re,
    }
}

/// Bools count as 0/1 integers.
fn value(s: &Scalar) -> Wide {
    match s.wide() {
        Wide::Bool(b) => Wide::Int(b as i128),
        w => w,
    }
}

fn build(
    api: &'static str,
    start: &Scalar,
    end: &Scalar,
    step: &Scalar,
    out: &TensorDesc,
    inclusive: bool,
) -> Result<Executor> {
    for (name, s) in [("start", start), ("end", end), ("step", step)] {
        ew::check_scalar_dtype(name, s.dtype, BOUNDS)?;
    }
    ew::check_tensor("out", out, OUT)?;
    let (s, e, d) = (value(start), value(end), value(step));
    let (sf, ef, df) = (as_f64(s), as_f64(e), as_f64(d));
    crate::ensure!(
        df != 0.0 && df.is_finite(),
        "step {step} must be finite and non-zero"
    );
    crate::ensure!(
        sf.is_finite() && ef.is_finite(),
        "start {start} and end {end} must be finite"
    );
    crate::ensure!(
        (df > 0.0 && sf <= ef) || (df < 0.0 && sf >= ef),
        "start {start}, end {end} and step {step} do not describe a range: step must point from start toward end"
    );
    let n = match (s, e, d) {
        (Wide::Int(s), Wide::Int(e), Wide::Int(d)) => {
            let span = e - s;
            if inclusive {
                span / d + 1
            } else {
                (span + d - d.signum()) / d
            }
        }
        _ => {
            let q = (ef - sf) / df;
            (if inclusive { q.floor() + 1.0 } else { q.ceil() }) as i128
        }
    };
    crate::ensure!(
        n >= 0 && n < (1i128 << 40),
        "the range has {n} elements, more than an out can hold"
    );
    let n = n as usize;
    // CANN checks only out's dtype: the kernel fills out's elements in order, so any shape
    // with the range's count is accepted (ggml passes a 4-D out of shape [1, 1, 1, n]). It is
    // seen as the 1-D run it is; a multi-dim out must be one run in memory.
    crate::ensure!(
        out.numel() == n,
        "out has shape {:?} ({} elements) but the range from {start} to {end} by {step} has {n} elements",
        out.shape,
        out.numel()
    );
    let out = &as_run(out)?;
    out.check_output("out")?;
    let bindings = Bindings {
        tensors: std::sync::Arc::new(vec![Some(out.clone())]),
        n_inputs: 0,
        outputs: smallvec::smallvec![0],
    };
    if n == 0 {
        return Ok(Executor::new(api, bindings, Nothing));
    }
    Ok(Executor::new(
        api,
        bindings,
        Iota {
            start: s,
            step: d,
            n,
        },
    ))
}

/// `t` as a 1-D view of its elements in row-major order: itself when 1-D; a multi-dim view
/// whose elements are one run (equal steps in row-major order) as that run.
fn as_run(t: &TensorDesc) -> Result<TensorDesc> {
    if t.rank() == 1 {
        return Ok(t.clone());
    }
    let mut step: Option<isize> = None;
    let mut want: Option<isize> = None;
    for d in (0..t.rank()).rev() {
        if t.shape[d] <= 1 {
            continue;
        }
        let st = *step.get_or_insert(t.strides[d]);
        let w = *want.get_or_insert(st);
        crate::ensure!(
            t.strides[d] == w,
            "out (shape {:?} strides {:?}) is not one run of elements; a multi-dim out of a range must be",
            t.shape,
            t.strides
        );
        want = Some(w * t.shape[d] as isize);
    }
    let mut v = t.clone();
    v.shape = smallvec::smallvec![t.numel()];
    v.strides = smallvec::smallvec![step.unwrap_or(1)];
    Ok(v)
}

/// aclnnArange: [start, end) by step.
pub fn arange(start: &Scalar, end: &Scalar, step: &Scalar, out: &TensorDesc) -> Result<Executor> {
    build("aclnnArange", start, end, step, out, false)
}

/// aclnnRange: [start, end] by step.
pub fn range(start: &Scalar, end: &Scalar, step: &Scalar, out: &TensorDesc) -> Result<Executor> {
    build("aclnnRange", start, end, step, out, true)
}

/// aclnnOneHot's self on Atlas A2 (u8 is Ascend 950 only), and its values and out.
const ONE_HOT_SELF: &[DType] = &[S32, S64];
const ONE_HOT_VALUE: &[DType] = &[F16, F32, S32, S64];

/// The first element of `t` as a 0-d view.
fn first_element(t: &TensorDesc) -> TensorDesc {
    let mut v = t.clone();
    v.shape.clear();
    v.strides.clear();
    v
}

/// aclnnOneHot: `out[.., j, ..] = self[..] == j ? onValue : offValue`, j on axis `axis`.
pub fn one_hot(
    self_: &TensorDesc,
    num_classes: i32,
    on_value: &TensorDesc,
    off_value: &TensorDesc,
    axis: i64,
    out: &TensorDesc,
) -> Result<Executor> {
    use super::gather::{Axis, GatherWork, Index, IndexSource, Plan, Reduce, Side, Values, Walk};
    const API: &str = "aclnnOneHot";
    ew::check_tensor("self", self_, ONE_HOT_SELF)?;
    ew::check_tensor("out", out, ONE_HOT_VALUE)?;
    ew::check_tensor("onValue", on_value, ONE_HOT_VALUE)?;
    ew::check_tensor("offValue", off_value, ONE_HOT_VALUE)?;
    for (name, t) in [("onValue", on_value), ("offValue", off_value)] {
        crate::ensure!(
            !t.is_empty(),
            "{name} is empty (shape {:?}); its first element is the value written",
            t.shape
        );
        crate::ensure!(
            t.dtype == out.dtype,
            "{name} has dtype {} but must have out's dtype {}",
            t.dtype,
            out.dtype
        );
    }
    // ew::check_tensor has held every rank to 8; self's class axis makes out one longer.
    let classes = num_classes as i64;
    if self_.is_empty() {
        crate::ensure!(
            classes > 0,
            "numClasses is {classes}; with an empty self it must be greater than 0"
        );
    } else {
        crate::ensure!(
            classes >= 0,
            "numClasses is {classes}; it must be at least 0"
        );
    }
    let rank = self_.rank();
    crate::ensure!(
        (-1..=rank as i64).contains(&axis),
        "axis is {axis}; it must be in [-1, {rank}] (self has {rank} dims; -1 is the last place)"
    );
    crate::ensure!(
        out.rank() == rank + 1,
        "out has {} dims but must have one more than self's {rank}",
        out.rank()
    );
    let ax = if axis < 0 { rank } else { axis as usize };
    let mut want = self_.shape.clone();
    want.insert(ax, classes as usize);
    crate::ensure!(
        out.shape == want,
        "out has shape {:?} but self's shape {:?} with numClasses {classes} inserted at axis {axis} is {:?}",
        out.shape,
        self_.shape,
        want
    );
    let b = super::index::bindings(&[self_, on_value, off_value], Some(out));
    if self_.is_empty() || classes == 0 {
        return Ok(Executor::new(API, b, Nothing));
    }
    out.check_output("out")?;
    for (name, t) in [
        ("self", self_),
        ("onValue", on_value),
        ("offValue", off_value),
    ] {
        super::index::apart(API, name, t, "out", out)?;
    }
    let (on, off) = (first_element(on_value), first_element(off_value));
    let mut steps = Sequence::new();
    steps.push(
        super::copy::convert_into(API, ew::Arg::Tensor("offValue", &off), "out", out)?,
        &[2, 3],
    );
    // The scatter walks self's shape; out's class axis is where self's value lands.
    let mut dst_strides = out.strides.clone();
    let class_stride = dst_strides.remove(ax);
    let plan = Plan {
        shape: self_.shape.clone(),
        parallel: rank,
        dst: Walk::new(3, out, dst_strides),
        values: Values::Tensor(Walk::new(1, &on, smallvec::smallvec![0; rank])),
        index: Index {
            source: IndexSource::Tensor {
                walk: Walk::new(0, self_, self_.strides.clone()),
                dtype: self_.dtype,
            },
            side: Side::Destination,
            axis: Axis::Dim {
                size: classes as usize,
                stride: class_stride,
            },
            wrap: false,
            skip_outside: true,
            name: "self",
            target: format!("the class axis (numClasses {classes})"),
        },
        dtype: out.dtype,
        reduce: Reduce::Copy,
    };
    steps.push(
        Executor::new(API, b.clone(), GatherWork { api: API, plan }),
        &[0, 1, 2, 3],
    );
    Ok(Executor::new(API, b, steps))
}

/// Supported dtypes, for the operator table (docs/DTYPES.md).
pub const CATALOG: &[Entry] = &[
    Entry {
        ops: "Arange, Range",
        a: BOUNDS,
        b: &[],
        out: OUT,
        rule: "start + i·step over [start, end) (Range: [start, end]); a: start/end/step",
    },
    Entry {
        ops: "OneHot",
        a: ONE_HOT_SELF,
        b: &[],
        out: ONE_HOT_VALUE,
        rule: "out[.., j, ..] = self == j ? onValue : offValue (j on axis; classes outside [0, numClasses) all offValue; b: onValue/offValue = out's dtype)",
    },
];
