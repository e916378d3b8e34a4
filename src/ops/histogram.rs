//! Counting ops: Bincount (aclnn_bincount.h, torch.bincount) and Histc (aclnn_histc.h,
//! torch.histc).
//!
//! One shared kernel, [`tally`]: each element's bin (or none), plus a weight or 1, is added
//! into a histogram. Counts accumulate in int64 (exact); weights in f32 when they are f32
//! (as torch and CANN keep them) and in f64 otherwise (CANN casts other weights to
//! double), in element order, one thread, so a float result is torch's sum to the bit.
//! The histogram is then converted to out's dtype.
//!
//! Bincount: self is 1-D and non-negative; out (sized by the caller) needs at least
//! max(self) + 1 and minlength elements. What lives in device memory (a negative value, a
//! value past out's end) is checked when the work runs, before anything is written.
//!
//! Histc: `bins` equal bins over [min, max] (min and max converted to self's dtype, as
//! CANN does; min == max: the data's range, and a range of one value widened by 1 on both
//! sides, as torch). Values outside the range and NaN are left out (torch 1.13's CPU histc
//! counts a NaN in bin 0); max goes into the last bin. The bin is torch 1.13's CPU formula step for step: the edges are torch's
//! linspace(min, max, bins + 1) ends (its vectorised last element included: with bins + 1 a
//! multiple of 16 (f32) or 8 (f64), max − 7·step (fused) + 7·step, resp. 3·step), an element
//! counts when lo ≤ x ≤ hi, in bin `(int)((x − lo) / (hi − lo) · bins)`, bins − 1 for bins.
//! f32 and f16 selves compute in f32 (f16 values and edges widened exactly), integer selves
//! in f64 (exact below 2^53). Counts are int64 (torch's f32 counts are exact below 2^24).

use super::advanced_index::walk_offsets;
use super::catalog::Entry;
use super::elementwise as ew;
use super::index::apart;
use crate::dtype::{can_cast, DType};
use crate::engine::convert;
use crate::error::{Error, Result};
use crate::executor::{Bindings, Executor, Nothing, Work, Workspace};
use crate::scalar::Scalar;
use crate::tensor::TensorDesc;
use std::sync::Arc;

use DType::*;

/// aclnnBincount.md: self, weights and out.
const BINCOUNT_SELF: &[DType] = &[S8, S16, S32, S64, U8];
const BINCOUNT_WEIGHTS: &[DType] = &[F32, F16, F64, S8, S16, S32, S64, U8, Bool];
const BINCOUNT_OUT: &[DType] = &[F32, F64, S32, S64];
/// aclnnHistc.md (Atlas A2): self and out.
const HISTC: &[DType] = &[F32, F16, S64, S32, S16, S8, U8];
/// CANN's op_api: the largest histogram it builds.
const MAX_BINS: usize = i32::MAX as usize;

/// What each element adds to its bin.
pub(crate) enum Weights {
    One,
    F32(Vec<f32>),
    F64(Vec<f64>),
}

/// A histogram in its accumulation dtype.
pub(crate) enum Counts {
    I64(Vec<i64>),
    F32(Vec<f32>),
    F64(Vec<f64>),
}

/// The shared counting kernel: element k goes into bin `bin[k]` (none when negative),
/// adding `weights`' k-th value, or 1; `bins` bins. Element order, so sums are exact for
/// counts and torch's sequential sums for floats.
pub(crate) fn tally(bins: usize, bin: &[i64], weights: &Weights) -> Counts {
    fn add<T: Copy + std::ops::AddAssign + Default>(
        bins: usize,
        bin: &[i64],
        w: impl Fn(usize) -> T,
    ) -> Vec<T> {
        let mut h = vec![T::default(); bins];
        for (k, &b) in bin.iter().enumerate() {
            if b >= 0 {
                h[b as usize] += w(k);
            }
        }
        h
    }
    match weights {
        Weights::One => Counts::I64(add(bins, bin, |_| 1i64)),
        Weights::F32(w) => Counts::F32(add(bins, bin, |k| w[k])),
        Weights::F64(w) => Counts::F64(add(bins, bin, |k| w[k])),
    }
}

/// Reads binding `i`'s view in row-major order, each element converted to `to` (an 8- or
/// 4-byte dtype) and returned as raw little-endian bytes in a u64.
fn load(b: &Bindings, i: usize, to: DType) -> Result<Vec<u64>> {
    let t = b.view(i)?;
    let e = t.dtype.size() as isize;
    let base = (b.addr(i)? + t.offset * t.dtype.size()) as isize;
    let mut out = Vec::with_capacity(t.numel());
    walk_offsets(&t.shape, &t.strides, 0, t.numel(), |_, o| {
        let mut w = [0u8; 8];
        // SAFETY: an element of the bound view; w holds one element of `to`.
        unsafe {
            convert::run(
                (base + o * e) as *const u8,
                t.dtype,
                1,
                w.as_mut_ptr(),
                to,
                1,
                1,
            )
        };
        out.push(u64::from_le_bytes(w));
    });
    Ok(out)
}

/// Writes the histogram into binding `i`'s view (its first `counts` elements).
fn store(b: &Bindings, i: usize, counts: &Counts) -> Result<()> {
    let t = b.view(i)?;
    let e = t.dtype.size() as isize;
    let base = (b.addr(i)? + t.offset * t.dtype.size()) as isize;
    let (src, dt, es) = match counts {
        Counts::I64(v) => (v.as_ptr() as *const u8, S64, 8),
        Counts::F32(v) => (v.as_ptr() as *const u8, F32, 4),
        Counts::F64(v) => (v.as_ptr() as *const u8, F64, 8),
    };
    let n = match counts {
        Counts::I64(v) => v.len(),
        Counts::F32(v) => v.len(),
        Counts::F64(v) => v.len(),
    }
    .min(t.numel());
    walk_offsets(&t.shape, &t.strides, 0, n, |k, o| {
        // SAFETY: element k of the histogram and an element of out's bound view.
        unsafe {
            convert::run(
                src.add(k * es),
                dt,
                1,
                (base + o * e) as *mut u8,
                t.dtype,
                1,
                1,
            )
        };
    });
    Ok(())
}

/// Bincount's work: bindings (self, weights?, out).
struct Bincount {
    weights: Option<usize>,
    out: usize,
}

impl Work for Bincount {
    fn workspace_size(&self) -> u64 {
        0
    }
    fn run(&self, b: &Bindings, _: Workspace) -> Result<()> {
        let len = b.view(self.out)?.numel();
        let values: Vec<i64> = load(b, 0, S64)?.into_iter().map(|v| v as i64).collect();
        for (k, &v) in values.iter().enumerate() {
            if v < 0 {
                return Err(Error::Invalid(format!(
                    "aclnnBincount: self[{k}] is {v}; self must be non-negative: nothing was written"
                )));
            }
            if v as u64 >= len as u64 {
                return Err(Error::Invalid(format!(
                    "aclnnBincount: self[{k}] is {v}, but out has {len} elements; out needs max(self) + 1 (at least {}): nothing was written",
                    v + 1
                )));
            }
        }
        let weights = match self.weights {
            None => Weights::One,
            Some(w) if b.view(w)?.dtype == F32 => Weights::F32(
                load(b, w, F32)?
                    .into_iter()
                    .map(|v| f32::from_bits(v as u32))
                    .collect(),
            ),
            Some(w) => Weights::F64(load(b, w, F64)?.into_iter().map(f64::from_bits).collect()),
        };
        store(b, self.out, &tally(len, &values, &weights))
    }
}

/// Zeroes out (Bincount of an empty self with minlength > 0).
struct Zero;

impl Work for Zero {
    fn workspace_size(&self) -> u64 {
        0
    }
    fn run(&self, b: &Bindings, _: Workspace) -> Result<()> {
        let n = b.view(0)?.numel();
        store(b, 0, &Counts::I64(vec![0; n]))
    }
}

/// aclnnBincount: `out = bincount(self, weights, minlength)` into the caller's out.
pub fn bincount(
    self_: &TensorDesc,
    weights: Option<&TensorDesc>,
    minlength: i64,
    out: &TensorDesc,
) -> Result<Executor> {
    const API: &str = "aclnnBincount";
    // aclnn_bincount.cpp's order: dtypes (self, out, weights), then shapes.
    ew::check_tensor("self", self_, BINCOUNT_SELF)?;
    ew::check_tensor("out", out, BINCOUNT_OUT)?;
    if let Some(w) = weights {
        ew::check_tensor("weights", w, BINCOUNT_WEIGHTS)?;
    }
    crate::ensure!(
        self_.rank() == 1,
        "self has {} dims; it must be 1-D",
        self_.rank()
    );
    if let Some(w) = weights {
        crate::ensure!(
            w.shape == self_.shape,
            "weights has shape {:?} but must have self's shape {:?}",
            w.shape,
            self_.shape
        );
    }
    crate::ensure!(
        out.rank() == 1,
        "out has {} dims; it must be 1-D",
        out.rank()
    );
    let len = out.shape[0];
    if self_.is_empty() {
        let bindings = Bindings {
            tensors: Arc::new(vec![Some(out.clone())]),
            n_inputs: 0,
            outputs: smallvec::smallvec![0],
        };
        if minlength <= 0 || out.is_empty() {
            return Ok(Executor::new(API, bindings, Nothing));
        }
        out.check_output("out")?;
        return Ok(Executor::new(API, bindings, Zero));
    }
    crate::ensure!(
        len.max(minlength.max(0) as usize) <= MAX_BINS,
        "out has {len} elements and minlength is {minlength}: the histogram may have at most {MAX_BINS} bins"
    );
    crate::ensure!(
        minlength <= len as i64,
        "minlength is {minlength} but out has {len} elements; out must have at least minlength elements"
    );
    let mut views = vec![Some(self_.clone())];
    views.extend(weights.map(|w| Some(w.clone())));
    views.push(Some(out.clone()));
    let nv = views.len();
    let bindings = Bindings {
        tensors: Arc::new(views),
        n_inputs: nv - 1,
        outputs: smallvec::smallvec![nv - 1],
    };
    out.check_output("out")?;
    apart(API, "self", self_, "out", out)?;
    if let Some(w) = weights {
        apart(API, "weights", w, "out", out)?;
    }
    let work = Bincount {
        weights: weights.map(|_| 1),
        out: nv - 1,
    };
    Ok(Executor::new(API, bindings, work))
}

/// torch 1.13's histc bin of each value (−1: left out), in `$t`: edges lo, hi (torch's
/// linspace ends, `$block` its vector loop's block), `bins` bins.
macro_rules! histc_bins {
    ($name:ident, $t:ty, $block:expr) => {
        fn $name(values: &[f64], lo: f64, hi: f64, bins: usize) -> Vec<i64> {
            let (start, end) = (lo as $t, hi as $t);
            let step = (end - start) / bins as $t;
            let k = ($block / 2 - 1) as $t;
            let hi = if (bins + 1) % $block == 0 {
                (-step).mul_add(k, end) + k * step
            } else {
                end
            };
            values
                .iter()
                .map(|&v| {
                    let x = v as $t;
                    if !(x >= start && x <= hi) {
                        return -1;
                    }
                    let p = ((x - start) / (hi - start) * bins as $t) as i64;
                    p.min(bins as i64 - 1)
                })
                .collect()
        }
    };
}
histc_bins!(histc_bins_f32, f32, 16usize);
histc_bins!(histc_bins_f64, f64, 8usize);

/// Histc's work: bindings (self, out).
struct Histc {
    bins: usize,
    /// The range (in the compute dtype), or None: the data's.
    range: Option<(f64, f64)>,
    /// The compute dtype: F32 or F64.
    via: DType,
}

impl Work for Histc {
    fn workspace_size(&self) -> u64 {
        0
    }
    fn run(&self, b: &Bindings, _: Workspace) -> Result<()> {
        let values: Vec<f64> = if self.via == F32 {
            load(b, 0, F32)?
                .into_iter()
                .map(|v| f32::from_bits(v as u32) as f64)
                .collect()
        } else {
            load(b, 0, F64)?.into_iter().map(f64::from_bits).collect()
        };
        let (mut lo, mut hi) = match self.range {
            Some(r) => r,
            None => {
                let lo = values.iter().copied().fold(f64::INFINITY, |a, v| {
                    if v < a || v.is_nan() {
                        v
                    } else {
                        a
                    }
                });
                let hi = values.iter().copied().fold(f64::NEG_INFINITY, |a, v| {
                    if v > a || v.is_nan() {
                        v
                    } else {
                        a
                    }
                });
                if !(lo.is_finite() && hi.is_finite()) {
                    return Err(Error::Invalid(format!(
                        "aclnnHistc: min == max, so the range is self's, [{lo}, {hi}], which is not finite: nothing was written"
                    )));
                }
                (lo, hi)
            }
        };
        if lo == hi {
            lo -= 1.0;
            hi += 1.0;
        }
        let idx = if self.via == F32 {
            histc_bins_f32(&values, lo, hi, self.bins)
        } else {
            histc_bins_f64(&values, lo, hi, self.bins)
        };
        store(b, 1, &tally(self.bins, &idx, &Weights::One))
    }
}

/// aclnnHistc: `out = histc(self, bins, min, max)`.
pub fn histc(
    self_: &TensorDesc,
    bins: i64,
    min: &Scalar,
    max: &Scalar,
    out: &TensorDesc,
) -> Result<Executor> {
    const API: &str = "aclnnHistc";
    // aclnn_histc.cpp's order: dtypes, min/max finite, bins and min <= max, out's dtype, shapes.
    ew::check_tensor("self", self_, HISTC)?;
    ew::check_tensor("out", out, HISTC)?;
    for (name, s) in [("min", min), ("max", max)] {
        crate::ensure!(
            !s.dtype.is_complex(),
            "{name} is a complex scalar ({s}); it must be real"
        );
    }
    let (lo32, hi32) = (min.cast(F32).get::<f32>(), max.cast(F32).get::<f32>());
    let same_inf = lo32.is_infinite() && lo32 == hi32;
    crate::ensure!(
        same_inf || (lo32.is_finite() && hi32.is_finite()),
        "the range [min, max] = [{lo32}, {hi32}] is not finite"
    );
    crate::ensure!(bins > 0, "bins is {bins}; it must be greater than 0");
    let int = !self_.dtype.is_float();
    if int {
        let (a, b) = (min.cast(S32).get::<i32>(), max.cast(S32).get::<i32>());
        crate::ensure!(
            a <= b,
            "min ({a}) is greater than max ({b}) (as int32, self being {})",
            self_.dtype
        );
    } else {
        crate::ensure!(lo32 <= hi32, "min ({lo32}) is greater than max ({hi32})");
    }
    crate::ensure!(
        can_cast(out.dtype, self_.dtype),
        "out has dtype {}, which cannot be cast to self's dtype {}",
        out.dtype,
        self_.dtype
    );
    crate::ensure!(
        out.rank() == 1,
        "out has {} dims; it must be 1-D",
        out.rank()
    );
    crate::ensure!(
        self_.rank() <= 8,
        "self has {} dims; at most 8 are supported",
        self_.rank()
    );
    crate::ensure!(
        out.numel() as u64 == bins as u64,
        "out has {} elements but must have bins = {bins}",
        out.numel()
    );
    if self_.is_empty() {
        let bindings = Bindings {
            tensors: Arc::new(vec![Some(out.clone())]),
            n_inputs: 0,
            outputs: smallvec::smallvec![0],
        };
        out.check_output("out")?;
        return Ok(Executor::new(API, bindings, Zero));
    }
    // min == max (CANN's test: as int64 for integer selves, within 1e-6 as f32 else): the
    // data's range. Otherwise min and max in self's dtype, widened exactly.
    let via = if int { F64 } else { F32 };
    let range = if int {
        if min.cast(S64).get::<i64>() == max.cast(S64).get::<i64>() {
            None
        } else {
            let f = |s: &Scalar| s.cast(self_.dtype).cast(F64).get::<f64>();
            Some((f(min), f(max)))
        }
    } else if same_inf || (hi32 - lo32).abs() < 1e-6 {
        None
    } else {
        let f = |s: &Scalar| s.cast(self_.dtype).cast(F32).get::<f32>() as f64;
        Some((f(min), f(max)))
    };
    let bindings = Bindings {
        tensors: Arc::new(vec![Some(self_.clone()), Some(out.clone())]),
        n_inputs: 1,
        outputs: smallvec::smallvec![1],
    };
    out.check_output("out")?;
    apart(API, "self", self_, "out", out)?;
    let work = Histc {
        bins: bins as usize,
        range,
        via,
    };
    Ok(Executor::new(API, bindings, work))
}

/// Supported dtypes, for the operator table (docs/DTYPES.md).
pub const CATALOG: &[Entry] = &[
    Entry {
        ops: "Bincount",
        a: BINCOUNT_SELF,
        b: BINCOUNT_WEIGHTS,
        out: BINCOUNT_OUT,
        rule: "out[self[i]] += weights[i] (or 1): counts in int64, f32 weights in f32, others in f64",
    },
    Entry {
        ops: "Histc",
        a: HISTC,
        b: &[],
        out: HISTC,
        rule: "count per equal bin of [min, max] (min == max: the data's range), torch's bin formula; out castable to self",
    },
];
