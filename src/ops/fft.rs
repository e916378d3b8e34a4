//! Fourier transforms of CANN's math library, on rustfft / realfft (mixed-radix and
//! Bluestein plans for any length, run-time dispatched to AVX/SSE):
//! - aclRfft1D (acl_rfft1d.h): `torch.view_as_real(torch.fft.rfft(self, n, dim, norm))` —
//!   the transform of every line of FLOAT `self` along `dim`, zero-padded or cut to `n`
//!   (−1: the dim's size; 1..=262144), the `n/2 + 1` non-negative frequencies as
//!   (real, imaginary) pairs in a trailing dim of 2 (out: self's shape with `n/2 + 1` at
//!   `dim`, then 2). norm 1: none ("backward"), 2: `1/n` ("forward"), 3: `1/√n` ("ortho").
//! - aclStft (acl_stft.h): `torch.stft(self, nFft, hopLength, winLength, window,
//!   center=False, normalized, onesided, return_complex)` — self [L] or [B, L] already
//!   padded by the caller (the doc), frames `T = (L − nFft)/hopLength + 1`, the window
//!   (ones when NULL) of winLength zero-padded to nFft on both sides (`(nFft − winLength)/2`
//!   on the left, as CANN's op_api pads it), `N = nFft/2 + 1` (onesided) or nFft bins; out
//!   [B?, N, T] complex, or [B?, N, T, 2] real (returnComplex false); normalized scales by
//!   `1/√nFft`. FLOAT32/DOUBLE/COMPLEX64/COMPLEX128 (the window of self's dtype; complex
//!   input only two-sided); out's dtype is the doc's table's (FLOAT32 and COMPLEX64 give
//!   COMPLEX64 or FLOAT32, DOUBLE and COMPLEX128 give COMPLEX128 or DOUBLE).
//!
//! Both read their input exactly, transform in f64 and round each output once: within
//! half an ulp of the result's dtype of the exact transform plus 1e-13 of the line's (or
//! frame's) largest output. The device multiplies by an f32 DFT matrix (for n ≤ 4096) or
//! runs f32 radix stages: its results carry f32 rounding errors these do not. Views of any
//! strides and offsets; lines (frames) run in parallel.

use super::catalog::Entry;
use super::elementwise as ew;
use crate::dtype::DType;
use crate::engine::{convert, run_tasks};
use crate::error::Result;
use crate::executor::{bindings, Bindings, Executor, Nothing, Work, Workspace};
use crate::tensor::TensorDesc;
use num_complex::Complex64;
use realfft::{RealFftPlanner, RealToComplex};
use rustfft::{Fft, FftPlanner};
use std::sync::Arc;

use DType::*;

/// aclRfft1D.md, Atlas A2.
const RFFT: &[DType] = &[F32];
/// aclStft.md, Atlas A2 (self, window and out).
const STFT: &[DType] = &[F32, F64, C64, C128];
/// The longest transform aclRfft1D plans (its op_api's bound on n).
const MAX_RFFT: i64 = 262_144;
/// aclRfft1D's rank bound (its op_api).
const MAX_RFFT_DIMS: usize = 7;
/// Lines (frames) of one task.
const TASK_LINES: usize = 16;

/// The storage offset (elements) of line `l` of a view: `l` is the row-major index over
/// every dim of `shape` but `axis`.
fn line_offset(shape: &[usize], strides: &[isize], axis: usize, mut l: usize) -> isize {
    let mut off = 0isize;
    for d in (0..shape.len()).rev() {
        if d == axis {
            continue;
        }
        off += (l % shape[d]) as isize * strides[d];
        l /= shape[d];
    }
    off
}

/// Writes `vals` to `n` positions `o, o + step, ...` of the view at `base` (element
/// offsets): complex dtypes take each value whole; real ones its real part at `o` and its
/// imaginary part at `o + pair` (the trailing (real, imaginary) dim's stride).
///
/// # Safety
/// Every written element must lie in the view's device memory.
unsafe fn write_spectrum(
    base: usize,
    d: DType,
    o: isize,
    step: isize,
    pair: isize,
    vals: &[Complex64],
) {
    let z = d.size() as isize;
    let src = vals.as_ptr() as *const u8;
    // SAFETY: `vals` holds vals.len() complex values (pairs of f64); the caller vouches for
    // the destination.
    unsafe {
        if d.is_complex() {
            let dst = (base as isize + o * z) as *mut u8;
            convert::run(src, C128, 1, dst, d, step, vals.len());
        } else {
            for (part, at) in [(0usize, o), (8, o + pair)] {
                let dst = (base as isize + at * z) as *mut u8;
                convert::run(src.add(part), F64, 2, dst, d, step, vals.len());
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// aclRfft1D.

struct Rfft {
    src: TensorDesc,
    out: TensorDesc,
    axis: usize,
    /// Elements read per line: min(n, the dim's size); the rest of n is zero.
    read: usize,
    scale: f64,
    plan: Arc<dyn RealToComplex<f64>>,
}

/// aclRfft1DGetWorkspaceSize: the checks of CANN's op_api, in its order.
pub fn rfft1d(
    self_: &TensorDesc,
    n: i64,
    dim: i64,
    norm: i64,
    out: &TensorDesc,
) -> Result<Executor> {
    const API: &str = "aclRfft1D";
    let b = bindings(&[Some(self_)], &[Some(out)]);
    if self_.is_empty() {
        // The op_api returns before any other check.
        return Ok(Executor::new(API, b, Nothing));
    }
    ew::check_tensor("self", self_, RFFT)?;
    let rank = self_.rank();
    crate::ensure!(
        (1..=MAX_RFFT_DIMS).contains(&rank),
        "tensor 'self' has {rank} dims: it must have 1 to {MAX_RFFT_DIMS}"
    );
    crate::ensure!(
        (1..=MAX_RFFT).contains(&n) || n == -1,
        "n is {n}: it must be in [1, {MAX_RFFT}], or -1 (the dim's size)"
    );
    crate::ensure!(
        (1..=3).contains(&norm),
        "norm is {norm}: it must be 1 (none), 2 (1/n) or 3 (1/sqrt(n))"
    );
    let r = rank as i64;
    crate::ensure!(
        (-r..r).contains(&dim),
        "dim is {dim}: it must be in [{}, {}] for the {rank}-d self",
        -r,
        r - 1
    );
    let axis = dim.rem_euclid(r) as usize;
    let len = self_.shape[axis];
    let n = if n == -1 { len as i64 } else { n };
    crate::ensure!(
        n <= MAX_RFFT,
        "n is -1 and self's dim {axis} has {len} elements: a transform of at most {MAX_RFFT} is planned"
    );
    let n = n as usize;
    let mut want: Vec<usize> = self_.shape.to_vec();
    want[axis] = n / 2 + 1;
    want.push(2);
    crate::ensure!(
        out.dtype == F32 && out.shape[..] == want[..],
        "tensor 'out' has dtype {} and shape {:?}: it must be FLOAT of shape {want:?} (self's with n/2 + 1 at dim {axis}, then 2)",
        out.dtype,
        &out.shape[..]
    );
    out.check_output("out")?;
    crate::ensure!(
        !crate::engine::remap::overlaps(self_, out),
        "tensor 'out' shares memory with 'self': they must be apart"
    );
    let scale = match norm {
        1 => 1.0,
        2 => 1.0 / n as f64,
        _ => 1.0 / (n as f64).sqrt(),
    };
    let plan = RealFftPlanner::<f64>::new().plan_fft_forward(n);
    let work = Rfft {
        src: self_.clone(),
        out: out.clone(),
        axis,
        read: len.min(n),
        scale,
        plan,
    };
    Ok(Executor::new(API, b, work))
}

impl Work for Rfft {
    fn workspace_size(&self) -> u64 {
        0
    }
    fn run(&self, b: &Bindings, _: Workspace) -> Result<()> {
        let (src, out) = (b.addr(0)?, b.addr(1)?);
        let lines = self.src.numel() / self.src.shape[self.axis];
        let rank = self.src.rank();
        let (os, ost) = (&self.out.shape[..rank], &self.out.strides[..rank]);
        run_tasks(lines.div_ceil(TASK_LINES), |t| {
            let mut x = self.plan.make_input_vec();
            let mut spec = self.plan.make_output_vec();
            let mut scratch = self.plan.make_scratch_vec();
            for l in t * TASK_LINES..((t + 1) * TASK_LINES).min(lines) {
                let so = self.src.offset as isize
                    + line_offset(&self.src.shape, &self.src.strides, self.axis, l);
                x.fill(0.0);
                // SAFETY: phase 2 checked the views lie in their device memory; the line
                // holds `read` elements at stride strides[axis].
                unsafe {
                    convert::run(
                        (src as isize + so * 4) as *const u8,
                        F32,
                        self.src.strides[self.axis],
                        x.as_mut_ptr() as *mut u8,
                        F64,
                        1,
                        self.read,
                    )
                };
                // The lengths match the plan's own buffers: it cannot fail.
                let _ = self
                    .plan
                    .process_with_scratch(&mut x, &mut spec, &mut scratch);
                if self.scale != 1.0 {
                    for c in spec.iter_mut() {
                        *c *= self.scale;
                    }
                }
                let oo = self.out.offset as isize + line_offset(os, ost, self.axis, l);
                // SAFETY: the out line holds n/2 + 1 pairs (phase 1 checked its shape).
                unsafe {
                    write_spectrum(
                        out,
                        F32,
                        oo,
                        self.out.strides[self.axis],
                        self.out.strides[rank],
                        &spec,
                    )
                };
            }
        });
        Ok(())
    }
    fn describe(&self) -> String {
        format!(
            "aclRfft1D: {} line(s) of {} along dim {}",
            self.src.numel() / self.src.shape[self.axis],
            self.plan.len(),
            self.axis
        )
    }
}

// ---------------------------------------------------------------------------------------
// aclStft.

struct Stft {
    src: TensorDesc,
    window: Option<TensorDesc>,
    out: TensorDesc,
    batch: usize,
    frames: usize,
    bins: usize,
    hop: usize,
    win_length: usize,
    scale: f64,
    plan: Arc<dyn Fft<f64>>,
}

/// The out dtype the doc's table gives self's dtype.
fn stft_out_dtype(self_dtype: DType, return_complex: bool) -> DType {
    match (self_dtype, return_complex) {
        (F32 | C64, true) => C64,
        (F64 | C128, true) => C128,
        (F32 | C64, false) => F32,
        _ => F64,
    }
}

/// aclStftGetWorkspaceSize: the checks of CANN's op_api, in its order, then the doc's
/// dtype table for out.
#[allow(clippy::too_many_arguments)]
pub fn stft(
    self_: &TensorDesc,
    window: Option<&TensorDesc>,
    out: &TensorDesc,
    n_fft: i64,
    hop_length: i64,
    win_length: i64,
    normalized: bool,
    onesided: bool,
    return_complex: bool,
) -> Result<Executor> {
    const API: &str = "aclStft";
    ew::check_tensor("self", self_, STFT)?;
    if let Some(w) = window {
        ew::check_tensor("windowOptional", w, STFT)?;
        ew::check_dtype_of("windowOptional", w, "self", self_)?;
    }
    ew::check_tensor("out", out, STFT)?;
    crate::ensure!(
        (1..=2).contains(&self_.rank()),
        "tensor 'self' has {} dims: it must be [L] or [B, L]",
        self_.rank()
    );
    crate::ensure!(
        (2..=4).contains(&out.rank()),
        "tensor 'out' has {} dims: it must have 2 to 4",
        out.rank()
    );
    let batched = self_.rank() == 2;
    let len = self_.shape[self_.rank() - 1];
    crate::ensure!(n_fft > 0, "nFft is {n_fft}: it must be > 0");
    crate::ensure!(
        len as i64 >= n_fft,
        "self's length {len} is less than nFft {n_fft}: it must be at least nFft"
    );
    crate::ensure!(hop_length > 0, "hopLength is {hop_length}: it must be > 0");
    crate::ensure!(
        win_length > 0 && win_length <= n_fft,
        "winLength is {win_length}: it must be in (0, nFft = {n_fft}]"
    );
    let complex_input = self_.dtype.is_complex();
    if let Some(w) = window {
        crate::ensure!(
            w.rank() == 1 && w.shape[0] as i64 == win_length,
            "tensor 'windowOptional' has shape {:?}: it must be [winLength] = [{win_length}]",
            &w.shape[..]
        );
    }
    crate::ensure!(
        !(complex_input && onesided),
        "self is {} and onesided is true: a complex input takes onesided false only",
        self_.dtype
    );
    let (n_fft, hop) = (n_fft as usize, hop_length as usize);
    let frames = (len - n_fft) / hop + 1;
    let bins = if onesided { n_fft / 2 + 1 } else { n_fft };
    let batch = if batched { self_.shape[0] } else { 1 };
    let mut want: Vec<usize> = if batched {
        vec![batch, bins, frames]
    } else {
        vec![bins, frames]
    };
    if !return_complex {
        want.push(2);
    }
    crate::ensure!(
        out.shape[..] == want[..],
        "tensor 'out' has shape {:?}: it must be {want:?} ([B,] N, T{})",
        &out.shape[..],
        if return_complex { "" } else { ", 2" }
    );
    let want_dtype = stft_out_dtype(self_.dtype, return_complex);
    crate::ensure!(
        out.dtype == want_dtype,
        "tensor 'out' has dtype {}: self {} with returnComplex {return_complex} gives {want_dtype}",
        out.dtype,
        self_.dtype
    );
    let b = bindings(&[Some(self_), window], &[Some(out)]);
    if self_.is_empty() {
        return Ok(Executor::new(API, b, Nothing));
    }
    out.check_output("out")?;
    for (name, t) in [("self", Some(self_)), ("windowOptional", window)] {
        if let Some(t) = t {
            crate::ensure!(
                !crate::engine::remap::overlaps(t, out),
                "tensor 'out' shares memory with '{name}': they must be apart"
            );
        }
    }
    let work = Stft {
        src: self_.clone(),
        window: window.cloned(),
        out: out.clone(),
        batch,
        frames,
        bins,
        hop,
        win_length: win_length as usize,
        scale: if normalized {
            1.0 / (n_fft as f64).sqrt()
        } else {
            1.0
        },
        plan: FftPlanner::<f64>::new().plan_fft_forward(n_fft),
    };
    Ok(Executor::new(API, b, work))
}

impl Work for Stft {
    fn workspace_size(&self) -> u64 {
        0
    }
    fn run(&self, b: &Bindings, _: Workspace) -> Result<()> {
        let n_fft = self.plan.len();
        // The window padded to nFft, centred (ones over winLength without one).
        let left = (n_fft - self.win_length) / 2;
        let mut wpad = vec![Complex64::new(0.0, 0.0); n_fft];
        match &self.window {
            Some(w) => {
                let base = b.addr(1)?;
                // SAFETY: phase 2 checked the window lies in its device memory.
                unsafe {
                    convert::run(
                        (base + w.offset * w.dtype.size()) as *const u8,
                        w.dtype,
                        w.strides[0],
                        wpad[left..].as_mut_ptr() as *mut u8,
                        C128,
                        1,
                        self.win_length,
                    )
                };
            }
            None => wpad[left..left + self.win_length].fill(Complex64::new(1.0, 0.0)),
        }
        let (src, out) = (b.addr(0)?, b.addr(2)?);
        let (s, o) = (&self.src, &self.out);
        let (ss, zs) = (s.strides[s.rank() - 1], s.dtype.size() as isize);
        let batched = s.rank() == 2;
        // out's strides of batch, bin, frame and (real out) the (re, im) pair.
        let ob = if batched { o.strides[0] } else { 0 };
        let k = batched as usize;
        let (obin, oframe) = (o.strides[k], o.strides[k + 1]);
        let pair = if o.rank() == k + 3 {
            o.strides[k + 2]
        } else {
            0
        };
        let tasks = self.batch * self.frames;
        run_tasks(tasks.div_ceil(TASK_LINES), |t| {
            let mut buf = vec![Complex64::new(0.0, 0.0); n_fft];
            let mut scratch = vec![Complex64::new(0.0, 0.0); self.plan.get_inplace_scratch_len()];
            for f in t * TASK_LINES..((t + 1) * TASK_LINES).min(tasks) {
                let (bi, m) = (f / self.frames, f % self.frames);
                let row = if batched {
                    bi as isize * s.strides[0]
                } else {
                    0
                };
                let at = s.offset as isize + row + (m * self.hop) as isize * ss;
                // SAFETY: the frame's nFft elements lie in self (phase 1: L ≥ nFft and
                // T frames of hopLength fit).
                unsafe {
                    convert::run(
                        (src as isize + at * zs) as *const u8,
                        s.dtype,
                        ss,
                        buf.as_mut_ptr() as *mut u8,
                        C128,
                        1,
                        n_fft,
                    )
                };
                for (x, w) in buf.iter_mut().zip(&wpad) {
                    *x *= w;
                }
                self.plan.process_with_scratch(&mut buf, &mut scratch);
                if self.scale != 1.0 {
                    for c in buf[..self.bins].iter_mut() {
                        *c *= self.scale;
                    }
                }
                let oo = o.offset as isize + bi as isize * ob + m as isize * oframe;
                // SAFETY: the out column holds `bins` values (phase 1 checked its shape).
                unsafe { write_spectrum(out, o.dtype, oo, obin, pair, &buf[..self.bins]) };
            }
        });
        Ok(())
    }
    fn describe(&self) -> String {
        format!(
            "aclStft: {} × {} frame(s) of {}, {} bin(s)",
            self.batch,
            self.frames,
            self.plan.len(),
            self.bins
        )
    }
}

/// Supported dtypes, for the operator table (docs/DTYPES.md).
pub const CATALOG: &[Entry] = &[
    Entry {
        ops: "aclRfft1D",
        a: RFFT,
        b: &[],
        out: RFFT,
        rule: "torch.fft.rfft as (re, im) pairs, in f64",
    },
    Entry {
        ops: "aclStft",
        a: STFT,
        b: STFT,
        out: STFT,
        rule: "torch.stft(center=False), in f64",
    },
];
