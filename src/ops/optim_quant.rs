//! aclnnApplyAdamWQuant (CANN's optim/apply_adam_w_quant): one AdamW step whose moment
//! states are kept as 8-bit codes into a 256-entry map, block-wise scaled — the 8-bit
//! block-wise AdamW of bitsandbytes.
//!
//! Each block of 256 consecutive elements (row-major; the last block may be shorter) has
//! one scale per state (absmaxMRef, absmaxVRef). The step, in f32 in the order of CANN's
//! golden script (tests/assets/golden.py) and device kernel:
//! - the state is decoded: `m = qmapM[mRef]·absmaxM[b]`, `v = qmapV[vRef]·absmaxV[b]`;
//! - with `t = step + 1` (the INT64 step as f32, plus one as the kernel does),
//!   `c1 = 1 − β1^t`, `c2 = √(1 − β2^t)`, `stepSize = −lr·c2/c1`, `g = grad·gnormScale`:
//!   `m = m·β1 + (1 − β1)·g`, `v = v·β2 + (1 − β2)·g²`,
//!   `θ = θ + stepSize·m / (√v + eps·c2)`, then `θ = θ·(1 − lr·λ)` when λ > 0;
//! - the block's new scales are `max|m|` and `max v` (NaN when any is);
//! - each state is coded again: `x = state / scale` (a zero scale divides by 1), the code
//!   is the nearest map entry (`argmin |x − q|`, the first on ties, 0 for NaN: torch's
//!   argmin); where the map has a negative entry, a code whose entry has the other sign
//!   than x moves one step towards x's side (clamped to 0..255). The doc's constraint:
//!   the map is ascending; any map gives the argmin's code (a sorted one by bisection).
//!
//! The double attributes are used as f32, as the device's tiling passes them. varRef is
//! f32/f16/bf16 (grad of its dtype), read exactly and written rounded once; mRef/vRef are
//! UINT8, the maps and scales FLOAT32, step one INT64. quantModeOptional is a reserved
//! parameter without meaning (the doc): any value, or NULL. Checks, in the tiling's order:
//! blockSize 256, var/grad/mRef/vRef of one shape, the maps of one shape with 256
//! elements, step of shape [1]; then the doc's constraint that each scale list has
//! ⌈numel/256⌉ elements. An empty varRef is refused, as the device's tiling refuses it
//! (no core to run on). Views of any strides and offsets; the outputs must be apart from
//! each other and from the inputs.
//!
//! The device kernel's own sign fix moves the other way (towards the entry's side) and
//! skips v; CANN's golden and bitsandbytes move towards x's side for both: this follows
//! the golden. The two agree on every map with an entry at 0 or symmetric about it.

use super::catalog::Entry;
use super::elementwise as ew;
use super::foreach::Layout;
use super::optim::{in_place_apart, read_scalar, Access};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::executor::{Bindings, Executor, Work, Workspace};
use crate::tensor::TensorDesc;
use rayon::prelude::*;

use DType::*;

/// Elements sharing one scale (the only block size the device takes).
const BLOCK: usize = 256;

/// Entries of a quantization map.
const MAP: usize = 256;

/// Blocks of one task.
const TASK_BLOCKS: usize = 64;

/// aclnnApplyAdamWQuant: varRef, mRef, vRef, absmaxMRef and absmaxVRef updated in place.
#[allow(clippy::too_many_arguments)]
pub fn apply_adam_w_quant(
    var: &TensorDesc,
    grad: &TensorDesc,
    m: &TensorDesc,
    v: &TensorDesc,
    qmap_m: &TensorDesc,
    qmap_v: &TensorDesc,
    absmax_m: &TensorDesc,
    absmax_v: &TensorDesc,
    step: &TensorDesc,
    lr: f64,
    beta1: f64,
    beta2: f64,
    weight_decay: f64,
    eps: f64,
    gnorm_scale: f64,
    _quant_mode: Option<&str>,
    block_size: i64,
) -> Result<Executor> {
    const API: &str = "aclnnApplyAdamWQuant";
    // The op definition's dtypes and formats.
    ew::check_tensor("varRef", var, &[F32, F16, BF16])?;
    ew::check_tensor("grad", grad, &[F32, F16, BF16])?;
    ew::check_dtype_of("grad", grad, "varRef", var)?;
    for (name, t) in [("mRef", m), ("vRef", v)] {
        ew::check_tensor(name, t, &[U8])?;
    }
    for (name, t) in [
        ("qmapM", qmap_m),
        ("qmapV", qmap_v),
        ("absmaxMRef", absmax_m),
        ("absmaxVRef", absmax_v),
    ] {
        ew::check_tensor(name, t, &[F32])?;
    }
    ew::check_tensor("step", step, &[S64])?;
    // The tiling's checks, in its order.
    crate::ensure!(
        block_size == BLOCK as i64,
        "blockSize is {block_size}: it must be {BLOCK}"
    );
    for (name, t) in [("grad", grad), ("mRef", m), ("vRef", v)] {
        crate::ensure!(
            t.shape == var.shape,
            "tensor '{name}' has shape {:?} but 'varRef' has {:?}: they must be equal",
            &t.shape[..],
            &var.shape[..]
        );
    }
    crate::ensure!(
        qmap_m.shape == qmap_v.shape && qmap_m.numel() == MAP,
        "qmapM has shape {:?} and qmapV {:?}: both must have one shape of {MAP} elements",
        &qmap_m.shape[..],
        &qmap_v.shape[..]
    );
    crate::ensure!(
        step.shape[..] == [1],
        "tensor 'step' has shape {:?}: it must be [1]",
        &step.shape[..]
    );
    // The doc's constraints.
    crate::ensure!(
        var.rank() >= 1,
        "tensor 'varRef' has 0 dims: it must have 1 to 8"
    );
    let n = var.numel();
    crate::ensure!(
        n > 0,
        "tensor 'varRef' is empty (shape {:?}): the device has no block to update",
        &var.shape[..]
    );
    let blocks = n.div_ceil(BLOCK);
    for (name, t) in [("absmaxMRef", absmax_m), ("absmaxVRef", absmax_v)] {
        crate::ensure!(
            t.numel() == blocks,
            "tensor '{name}' has {} elements: it must have ceil({n}/{BLOCK}) = {blocks}, one per block of varRef",
            t.numel()
        );
    }
    in_place_apart(
        &[
            ("grad", grad),
            ("qmapM", qmap_m),
            ("qmapV", qmap_v),
            ("step", step),
        ],
        &[
            ("varRef", var),
            ("mRef", m),
            ("vRef", v),
            ("absmaxMRef", absmax_m),
            ("absmaxVRef", absmax_v),
        ],
    )?;
    // Bindings in the header's order.
    let mut layout = Layout::new();
    let bvar = layout.inout(Some(var));
    let bgrad = layout.input(Some(grad));
    let bm = layout.inout(Some(m));
    let bv = layout.inout(Some(v));
    let bqm = layout.input(Some(qmap_m));
    let bqv = layout.input(Some(qmap_v));
    let bam = layout.inout(Some(absmax_m));
    let bav = layout.inout(Some(absmax_v));
    let bstep = layout.input(Some(step));
    let work = QuantAdamWWork {
        var: Access::of(bvar, var),
        grad: Access::of(bgrad, grad),
        codes: [Access::of(bm, m), Access::of(bv, v)],
        maps: [Access::of(bqm, qmap_m), Access::of(bqv, qmap_v)],
        scales: [Access::of(bam, absmax_m), Access::of(bav, absmax_v)],
        step: bstep,
        numel: n,
        hyper: Hyper {
            lr: lr as f32,
            beta1: beta1 as f32,
            beta2: beta2 as f32,
            weight_decay: weight_decay as f32,
            eps: eps as f32,
            gnorm_scale: gnorm_scale as f32,
        },
    };
    Ok(layout.executor_with(API, work))
}

/// The attributes, as the device's tiling holds them (f32).
#[derive(Clone, Copy, Debug)]
struct Hyper {
    lr: f32,
    beta1: f32,
    beta2: f32,
    weight_decay: f32,
    eps: f32,
    gnorm_scale: f32,
}

/// The per-run constants of the step at `step` (the kernel's scalar work, in f32).
#[derive(Clone, Copy, Debug)]
struct StepConstants {
    step_size: f32,
    eps_c2: f32,
    one_minus_beta1: f32,
    one_minus_beta2: f32,
    decay_factor: f32,
}

impl Hyper {
    fn at_step(&self, step: i64) -> StepConstants {
        let t = step as f32 + 1.0;
        let c1 = 1.0 - self.beta1.powf(t);
        let c2 = (1.0 - self.beta2.powf(t)).sqrt();
        StepConstants {
            step_size: -self.lr * c2 / c1,
            eps_c2: self.eps * c2,
            one_minus_beta1: 1.0 - self.beta1,
            one_minus_beta2: 1.0 - self.beta2,
            decay_factor: 1.0 - self.lr * self.weight_decay,
        }
    }
}

/// A quantization map: its entries and how codes are found in it.
struct QuantMap {
    q: [f32; MAP],
    /// Ascending without NaN: the nearest entry is found by bisection.
    sorted: bool,
    /// Some entry is negative: codes keep their value's sign (the sign fix).
    signed: bool,
}

impl QuantMap {
    fn new(q: [f32; MAP]) -> QuantMap {
        QuantMap {
            sorted: q.iter().all(|x| !x.is_nan()) && q.windows(2).all(|w| w[0] <= w[1]),
            signed: q.iter().any(|&x| x < 0.0),
            q,
        }
    }

    /// The code of normalized value `x`: torch.argmin(|x − q|) (f32 distances; the first
    /// minimum; the first NaN distance wins), then the sign fix.
    fn code(&self, x: f32) -> u8 {
        let mut j = if x.is_nan() {
            0
        } else if self.sorted {
            self.nearest_sorted(x)
        } else {
            self.nearest_scan(x)
        };
        if self.signed && x * self.q[j] < 0.0 {
            if x > 0.0 {
                j = (j + 1).min(MAP - 1);
            } else if x < 0.0 {
                j = j.saturating_sub(1);
            }
        }
        j as u8
    }

    fn nearest_scan(&self, x: f32) -> usize {
        let mut best = 0;
        let mut best_d = f32::INFINITY;
        for (j, &q) in self.q.iter().enumerate() {
            let d = (x - q).abs();
            if d.is_nan() {
                return j;
            }
            if d < best_d || j == 0 {
                best = j;
                best_d = d;
            }
        }
        best
    }

    /// On an ascending map the f32 distances fall to the entries around x and rise after
    /// (rounding is monotonic), so the minimum is at one of the two, and its first
    /// occurrence on the left is found by walking back over equal distances.
    fn nearest_sorted(&self, x: f32) -> usize {
        let k = self.q.partition_point(|&q| q < x);
        let right = (k < MAP).then(|| self.q[k] - x);
        match (k.checked_sub(1), right) {
            (Some(l), r) if r.is_none_or(|r| x - self.q[l] <= r) => {
                let d = x - self.q[l];
                let mut j = l;
                while j > 0 && x - self.q[j - 1] == d {
                    j -= 1;
                }
                j
            }
            _ => k,
        }
    }
}

struct QuantAdamWWork {
    var: Access,
    grad: Access,
    /// mRef, vRef.
    codes: [Access; 2],
    /// qmapM, qmapV.
    maps: [Access; 2],
    /// absmaxMRef, absmaxVRef.
    scales: [Access; 2],
    step: usize,
    numel: usize,
    hyper: Hyper,
}

/// Base addresses of the bindings, read once per run.
struct Bases {
    var: usize,
    grad: usize,
    codes: [usize; 2],
    scales: [usize; 2],
}

impl QuantAdamWWork {
    /// Updates block `b` (elements `b·256..`, at most 256 of them).
    ///
    /// # Safety
    /// The bases are the bindings' addresses, which phase 2 checked hold the views.
    unsafe fn block(&self, b: usize, at: &Bases, maps: &[QuantMap; 2], k: &StepConstants) {
        let first = b * BLOCK;
        let n = BLOCK.min(self.numel - first);
        let h = &self.hyper;
        let mut theta = [0f32; BLOCK];
        let mut g = [0f32; BLOCK];
        let mut state = [[0f32; BLOCK]; 2];
        let mut scale = [[0f32; 1]; 2];
        // SAFETY: the views lie in their device memory (the caller).
        unsafe {
            self.var.read(at.var, first, &mut theta[..n]);
            self.grad.read(at.grad, first, &mut g[..n]);
            for s in 0..2 {
                self.codes[s].read(at.codes[s], first, &mut state[s][..n]);
                self.scales[s].read(at.scales[s], b, &mut scale[s]);
            }
        }
        // Decode: the codes are read as f32 (0..=255, exactly).
        for s in 0..2 {
            let (q, a) = (&maps[s].q, scale[s][0]);
            for x in &mut state[s][..n] {
                *x = q[*x as usize] * a;
            }
        }
        let [m, v] = &mut state;
        for i in 0..n {
            let gi = g[i] * h.gnorm_scale;
            m[i] = m[i] * h.beta1 + k.one_minus_beta1 * gi;
            v[i] = v[i] * h.beta2 + k.one_minus_beta2 * (gi * gi);
            let denom = v[i].sqrt() + k.eps_c2;
            let mut p = theta[i] + k.step_size * m[i] / denom;
            if h.weight_decay > 0.0 {
                p *= k.decay_factor;
            }
            theta[i] = p;
        }
        // New scales (torch.max: NaN when any element is), then the codes.
        let abs_m = nan_max(m[..n].iter().map(|x| x.abs()));
        let abs_v = nan_max(v[..n].iter().copied());
        for (s, a) in [abs_m, abs_v].into_iter().enumerate() {
            scale[s][0] = a;
            let d = if a == 0.0 { 1.0 } else { a };
            for x in &mut state[s][..n] {
                *x = maps[s].code(*x / d) as f32;
            }
        }
        // SAFETY: as above; the outputs are apart (phase 1).
        unsafe {
            self.var.write(at.var, first, &theta[..n]);
            for s in 0..2 {
                self.codes[s].write(at.codes[s], first, &state[s][..n]);
                self.scales[s].write(at.scales[s], b, &scale[s]);
            }
        }
    }
}

/// The maximum, NaN when any value is (torch.max).
fn nan_max(mut it: impl Iterator<Item = f32>) -> f32 {
    let mut m = f32::NEG_INFINITY;
    for x in it.by_ref() {
        if x.is_nan() {
            return x;
        }
        if x > m {
            m = x;
        }
    }
    m
}

impl Work for QuantAdamWWork {
    fn workspace_size(&self) -> u64 {
        0
    }
    fn run(&self, b: &Bindings, _: Workspace) -> Result<()> {
        let step = read_scalar(b, self.step)?;
        let k = self.hyper.at_step(step as i64);
        let mut maps = Vec::with_capacity(2);
        for a in &self.maps {
            let mut q = [0f32; MAP];
            // SAFETY: phase 2 checked the map lies in its device memory.
            unsafe { a.read(b.addr(a.binding)?, 0, &mut q) };
            maps.push(QuantMap::new(q));
        }
        let maps: [QuantMap; 2] = maps
            .try_into()
            .map_err(|_| Error::Internal("two quantization maps".into()))?;
        let at = Bases {
            var: b.addr(self.var.binding)?,
            grad: b.addr(self.grad.binding)?,
            codes: [
                b.addr(self.codes[0].binding)?,
                b.addr(self.codes[1].binding)?,
            ],
            scales: [
                b.addr(self.scales[0].binding)?,
                b.addr(self.scales[1].binding)?,
            ],
        };
        let blocks = self.numel.div_ceil(BLOCK);
        let task = |t: usize| {
            for blk in t * TASK_BLOCKS..((t + 1) * TASK_BLOCKS).min(blocks) {
                // SAFETY: phase 2 checked every view lies in its device memory.
                unsafe { self.block(blk, &at, &maps, &k) };
            }
        };
        let tasks = blocks.div_ceil(TASK_BLOCKS);
        if tasks <= 1 {
            (0..tasks).for_each(task);
        } else {
            crate::engine::pool().install(|| (0..tasks).into_par_iter().for_each(task));
        }
        Ok(())
    }
    fn describe(&self) -> String {
        format!(
            "aclnnApplyAdamWQuant: {} elements in {} blocks",
            self.numel,
            self.numel.div_ceil(BLOCK)
        )
    }
}

/// Supported dtypes, for the operator table (docs/DTYPES.md).
pub const CATALOG: &[Entry] = &[Entry {
    ops: "ApplyAdamWQuant",
    a: &[F32, F16, BF16],
    b: &[U8],
    out: &[F32, F16, BF16],
    rule: "AdamW with 8-bit block-wise quantized moments (bitsandbytes), in f32",
}];

#[cfg(test)]
mod tests {
    use super::*;

    /// The bisection agrees with the scan on ascending maps with repeated entries.
    #[test]
    fn quant_map_bisection_is_the_argmin() {
        let mut seed = 0x9e37_79b9u32;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            seed
        };
        for case in 0..200 {
            let mut q = [0f32; MAP];
            for x in q.iter_mut() {
                // Coarse values so that entries repeat and distances tie.
                *x = ((next() % 64) as f32 - 32.0) / 16.0;
            }
            if case % 2 == 0 {
                q.sort_by(f32::total_cmp);
            }
            let map = QuantMap::new(q);
            assert_eq!(
                map.sorted,
                case % 2 == 0 || q.windows(2).all(|w| w[0] <= w[1])
            );
            for _ in 0..200 {
                let x = ((next() % 160) as f32 - 80.0) / 32.0;
                let scan = map.nearest_scan(x);
                if map.sorted {
                    assert_eq!(map.nearest_sorted(x), scan, "case {case} x {x} map {q:?}");
                }
            }
        }
    }
}
