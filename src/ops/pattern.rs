//! Patterned tensors without an input: Eye (aclnn_eye.h, torch.eye) and Linspace
//! (aclnn_linspace.h, torch.linspace).
//!
//! - Eye: out (n, m) is zero, then its diagonal (a strided view of out: stride
//!   `s0 + s1`) is one; two conversions of a scalar (`copy::convert_into`), exact.
//! - Linspace: `steps` values from start to end inclusive, in out's row-major order, as
//!   torch computes them — `step = (end − start) / (steps − 1)`, the first half
//!   `start + step·i`, the second half `end − step·(steps − 1 − i)` (so end is exact) — in
//!   f64, rounded once into out's dtype (integers truncate toward zero), exactly (the tests
//!   compare bit for bit with that formula). torch computes a float out in out's own dtype
//!   (and in vector lanes as `base + lane·step`), so an f32 result agrees with torch's within
//!   2 f32 ulps of max(|start|, |end|) plus half an ulp of the result (tested to that bound).

use super::catalog::Entry;
use super::copy::convert_into;
use super::elementwise::{self as ew, Arg};
use crate::dtype::DType;
use crate::element::Wide;
use crate::engine::{convert, pool, run_tasks};
use crate::error::Result;
use crate::executor::{Bindings, Executor, Nothing, Sequence, Work, Workspace};
use crate::scalar::Scalar;
use crate::tensor::TensorDesc;

use DType::*;
/// aclnnEye.md, Atlas A2.
const EYE: &[DType] = &[F16, F32, S32, S16, S8, U8, S64, Bool, BF16];
/// aclnnLinspace.md, Atlas A2: start/end, and out.
const BOUNDS: &[DType] = &[S8, S16, S32, S64, U8, Bool, F32, F16, F64, BF16];
const LINSPACE: &[DType] = &[S8, S16, S32, U8, F32, F16, F64, BF16];
const CHUNK: usize = 1024;

/// aclnnEye: out (n, m) with ones on the diagonal, zeros elsewhere.
pub fn eye(n: i64, m: i64, out: &TensorDesc) -> Result<Executor> {
    const API: &str = "aclnnEye";
    ew::check_tensor("out", out, EYE)?;
    crate::ensure!(
        out.rank() == 2,
        "out has {} dims but {API} writes a 2-d (n, m) tensor",
        out.rank()
    );
    crate::ensure!(n >= 0 && m >= 0, "n {n} and m {m} must be non-negative");
    ew::check_result_shape("out", out, &[n as usize, m as usize])?;
    let bindings = Bindings {
        tensors: std::sync::Arc::new(vec![Some(out.clone())]),
        n_inputs: 0,
        outputs: smallvec::smallvec![0],
    };
    if out.is_empty() {
        return Ok(Executor::new(API, bindings, Nothing));
    }
    let mut diag = out.clone();
    diag.shape = smallvec::smallvec![n.min(m) as usize];
    diag.strides = smallvec::smallvec![out.strides[0] + out.strides[1]];
    let mut seq = Sequence::new();
    let zero = convert_into(API, Arg::Scalar(Scalar::from_value(0u8)), "out", out)?;
    seq.push(zero, &[0]);
    let one = convert_into(API, Arg::Scalar(Scalar::from_value(1u8)), "out", &diag)?;
    seq.push(one, &[0]);
    Ok(Executor::new(API, bindings, seq))
}

/// The values of a Linspace, written into the view bound at 0.
struct Spaced {
    start: f64,
    end: f64,
    steps: usize,
}

impl Spaced {
    fn value(&self, i: usize) -> f64 {
        if self.steps == 1 {
            return self.start;
        }
        let step = (self.end - self.start) / (self.steps - 1) as f64;
        if i < self.steps / 2 {
            self.start + step * i as f64
        } else {
            self.end - step * (self.steps - 1 - i) as f64
        }
    }
}

impl Work for Spaced {
    fn workspace_size(&self) -> u64 {
        0
    }
    fn run(&self, b: &Bindings, _: Workspace) -> Result<()> {
        let out = b.view(0)?;
        let base = b.addr(0)? + out.offset * out.dtype.size();
        // Rows along the last axis (a 0-d out: one row of one element).
        let k = out.rank();
        let (last, ls) = if k == 0 {
            (1, 0)
        } else {
            (out.shape[k - 1], out.strides[k - 1])
        };
        let rows = self.steps / last.max(1);
        let pieces = last.div_ceil(CHUNK);
        let jobs = rows * pieces;
        let threads = pool().current_num_threads().min(jobs.div_ceil(16)).max(1);
        let e = out.dtype.size() as isize;
        run_tasks(threads, |t| {
            let mut vals = [0f64; CHUNK];
            for job in (t..jobs).step_by(threads) {
                let (row, piece) = (job / pieces, job % pieces);
                let (mut rest, mut off) = (row, 0isize);
                for a in (0..k.saturating_sub(1)).rev() {
                    off += (rest % out.shape[a]) as isize * out.strides[a];
                    rest /= out.shape[a];
                }
                let lo = piece * CHUNK;
                let len = CHUNK.min(last - lo);
                for (j, v) in vals[..len].iter_mut().enumerate() {
                    *v = self.value(row * last + lo + j);
                }
                // SAFETY: elements lo..lo+len of one row of the bound view.
                unsafe {
                    convert::run(
                        vals.as_ptr() as *const u8,
                        F64,
                        1,
                        (base as *mut u8).offset((off + lo as isize * ls) * e),
                        out.dtype,
                        ls,
                        len,
                    );
                }
            }
        });
        Ok(())
    }
}

pub(crate) fn as_f64(s: &Scalar) -> f64 {
    match s.wide() {
        Wide::Int(i) => i as f64,
        Wide::Float(f) => f,
        Wide::Bool(b) => b as u8 as f64,
        Wide::Complex(re, _) => re,
    }
}

/// aclnnLinspace: `steps` evenly spaced values from start to end (inclusive) into out
/// (any shape of `steps` elements, row-major).
pub fn linspace(start: &Scalar, end: &Scalar, steps: i64, out: &TensorDesc) -> Result<Executor> {
    const API: &str = "aclnnLinspace";
    ew::check_scalar_dtype("start", start.dtype, BOUNDS)?;
    ew::check_scalar_dtype("end", end.dtype, BOUNDS)?;
    ew::check_tensor("out", out, LINSPACE)?;
    crate::ensure!(steps >= 0, "steps {steps} must be non-negative");
    crate::ensure!(
        out.numel() as i64 == steps,
        "out has shape {:?} ({} elements) but steps is {steps}",
        out.shape,
        out.numel()
    );
    out.check_output("out")?;
    let bindings = Bindings {
        tensors: std::sync::Arc::new(vec![Some(out.clone())]),
        n_inputs: 0,
        outputs: smallvec::smallvec![0],
    };
    if steps == 0 {
        return Ok(Executor::new(API, bindings, Nothing));
    }
    let (s, e) = (as_f64(start), as_f64(end));
    crate::ensure!(
        s.is_finite() && e.is_finite(),
        "start {start} and end {end} must be finite"
    );
    let plan = Spaced {
        start: s,
        end: e,
        steps: steps as usize,
    };
    Ok(Executor::new(API, bindings, plan))
}

/// Supported dtypes, for the operator table (docs/DTYPES.md).
pub const CATALOG: &[Entry] = &[
    Entry {
        ops: "Eye",
        a: &[],
        b: &[],
        out: EYE,
        rule: "(n, m) with ones on the diagonal",
    },
    Entry {
        ops: "Linspace",
        a: BOUNDS,
        b: &[],
        out: LINSPACE,
        rule: "steps values from start to end inclusive (torch's two-sided formula in f64); a: start/end",
    },
];
