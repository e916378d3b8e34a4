//! The masked softmax family over the last dim of attention scores: ScaledMaskedSoftmax,
//! its backward ScaledMaskedSoftmaxBackward, and MaskedSoftmaxWithRelPosBias (Swin window
//! attention). Each row (one index of the leading dims) is read whole, built into the
//! softmax's input in the precision the device uses, and the softmax itself is the
//! reduction engine's row softmax (`engine::reduce::softmax_row`: max-subtracted, in f64).
//!
//! - ScaledMaskedSoftmax: y = softmax(masked_fill(x·scale, mask, −10000)) over S2, for x
//!   [B, N, S1, S2] and a bool mask [B|1, N|1, S1, S2] (true = masked). As the A2 kernel
//!   (scaled_masked_softmax_v2.h): f16 multiplies in f16 by scale rounded to f16 (the
//!   product rounded once) and fills −10000 in f16; f32 multiplies in f32 by (float)scale;
//!   bf16 converts to f32 first. The softmax is computed in f64 and rounded to f32, then
//!   (f16/bf16) to y's dtype, as the kernel's f32 softmax and its final cast. fixedTriuMask
//!   must be false; S2 in (0, 4096]; B, N or S1 may be 0 (nothing is written).
//! - ScaledMaskedSoftmaxBackward: with t = gradOutput·y (f32),
//!   out = (t − Σt·y)·scale, 0 where mask is true, all in f32 (f16/bf16 read into f32,
//!   rounded once at the end); Σt is summed in the order of CANN's reference
//!   (tests/st/.../executor_aclnnScaledMaskedSoftmaxBackward.py: rows of ≤ 1024 padded to
//!   64 with zeros, pairwise over blocks of 8, the blocks added into 8 lanes in order, the
//!   lanes pairwise; longer rows pairwise over blocks of 64, the block sums pairwise), so
//!   the result is that reference's bit for bit. S2 ≤ 4096; empty tensors write nothing.
//! - MaskedSoftmaxWithRelPosBias: out = softmax(x·scaleValue + attenMask + relativePosBias)
//!   for x (B·W, N, S1, S2) or (B, W, N, S1, S2), attenMask (W, S1, S2), (W, 1, S1, S2) or
//!   (1, W, 1, S1, S2) broadcast over B and N, relativePosBias (N, S1, S2), (1, N, S1, S2)
//!   or (1, 1, N, S1, S2) broadcast over B and W; one dtype for all. In f32 as the kernel
//!   (f16/bf16 converted first), in its order: x·(float)scaleValue (skipped when
//!   |(float)scaleValue − 1| ≤ FLT_EPSILON, as its tiling), + attenMask, + bias; softmax
//!   as above. innerPrecisionMode is a reserved field (the op's proto) and is ignored. The
//!   tiling refuses empty dims; its 561002 (ACLNN_ERR_INNER_TILING_ERROR) for shape and
//!   dtype errors is reported as ACLNN_ERR_PARAM_INVALID, as every phase-1 check here.
//!
//! The row softmax (all three forward rules) rounds x − max to f32 as the kernels' f32
//! SoftMax, then takes exponentials, sum and quotients in f64 (the engine's row softmax)
//! and rounds once to f32: a NaN, a +inf (after scaling) or a row all −inf makes the row
//! NaN, as torch and the device. Bounds: against torch's f32 softmax ≤ 4 ulp in f32
//! (torch's f32 exponentials and sum), ≤ 1 ulp in f16/bf16 (bit for bit over the tests'
//! cases). An output may be exactly an input's view (every row is read before it is
//! written); any other overlap with an input is refused.

use super::catalog::Entry;
use super::elementwise as ew;
use super::pool::{load, overlap, store};
use crate::dtype::DType;
use crate::element::Element;
use crate::engine::reduce::softmax_row;
use crate::error::Result;
use crate::executor::{bindings, Bindings, Executor, Nothing, Work, Workspace};
use crate::tensor::TensorDesc;

use DType::*;
/// The A2 lists of the three operators (their docs and op_api).
const LIST: &[DType] = &[F32, F16, BF16];
const MASK: &[DType] = &[Bool];
/// The value masked positions take before the softmax (the kernel's MASK_VAL).
const MASK_FILL: f64 = -10000.0;
/// The largest S2 the A2 kernels take (op_api D_LIMIT).
const MAX_S2: usize = 4096;

/// A view over the row axes (B, W, N, S1, S2): offset and element strides, 0 along the
/// axes a broadcast operand does not have.
#[derive(Clone, Copy, Debug)]
struct Axes {
    binding: usize,
    offset: isize,
    strides: [isize; 5],
}

impl Axes {
    /// Element `j` of row `r` = (b, w, n, s1).
    #[inline(always)]
    fn at(&self, r: [usize; 4], j: usize) -> isize {
        self.offset
            + (0..4)
                .map(|k| r[k] as isize * self.strides[k])
                .sum::<isize>()
            + j as isize * self.strides[4]
    }
}

/// `t`'s dims mapped onto the row axes: `map[k]` is the row axis of t's dim k. Axes t does
/// not have, or where it has size 1 against a larger row axis, get stride 0.
fn axes(binding: usize, t: &TensorDesc, map: &[usize], dims: &[usize; 5]) -> Axes {
    let mut strides = [0isize; 5];
    for (k, &axis) in map.iter().enumerate() {
        if t.shape[k] == dims[axis] && dims[axis] != 1 {
            strides[axis] = t.strides[k];
        }
    }
    Axes {
        binding,
        offset: t.offset as isize,
        strides,
    }
}

/// What each row computes.
#[derive(Clone, Copy, Debug)]
enum Rule {
    /// softmax(masked_fill(x·scale, mask, −10000)).
    Scaled { scale: f64 },
    /// (t − Σt·y)·scale, t = gradOutput·y; 0 where masked.
    Backward { scale: f32 },
    /// softmax(x·scale + mask + bias); `scale` None when the tiling skips the multiply.
    RelPosBias { scale: Option<f32> },
}

struct Plan {
    rule: Rule,
    dtype: DType,
    dims: [usize; 5],
    /// x (forward ops) or gradOutput.
    x: Axes,
    /// y (the backward's softmax output).
    y: Option<Axes>,
    mask: Option<Axes>,
    bias: Option<Axes>,
    out: Axes,
}

/// Σ v in f32 in the order of CANN's reference for the backward (see the module doc).
fn reference_sum(v: &[f32]) -> f32 {
    if v.len() <= 1024 {
        let padded = v.len().div_ceil(64) * 64;
        let at = |i: usize| v.get(i).copied().unwrap_or(0.0);
        let mut lanes = [0f32; 8];
        for block in 0..padded / 8 {
            let mut w: [f32; 8] = std::array::from_fn(|k| at(block * 8 + k));
            let s = pairwise(&mut w);
            if block < 8 {
                lanes[block] = s;
            } else {
                lanes[block % 8] += s;
            }
        }
        pairwise(&mut lanes)
    } else {
        let mut blocks: Vec<f32> = v
            .chunks(64)
            .map(|c| {
                let mut w = [0f32; 64];
                w[..c.len()].copy_from_slice(c);
                pairwise(&mut w[..c.len()])
            })
            .collect();
        pairwise(&mut blocks)
    }
}

/// A softmax row computed as the kernels' f32 SoftMax does in its one inexact step that
/// matters: x − max rounded to f32 (for an element far below the max that rounding, not the
/// exponential's, dominates an f32 softmax's error). The values are f32s; the exponentials,
/// their sum and the quotients then come from the engine's f64 row softmax (the shifted
/// row's max is exactly 0), to be rounded by the caller.
fn softmax_f32_shifted(v: &mut [f64]) {
    let max = v.iter().fold(f64::NEG_INFINITY, |m, &x| {
        if x > m || x.is_nan() || m.is_nan() {
            if m.is_nan() {
                m
            } else {
                x
            }
        } else {
            m
        }
    });
    v.iter_mut()
        .for_each(|x| *x = (*x as f32 - max as f32) as f64);
    softmax_row(v);
}

/// Pairwise (tree) sum in place: neighbours added level by level, an odd level padded
/// with a zero.
fn pairwise(w: &mut [f32]) -> f32 {
    let mut n = w.len();
    if n == 0 {
        return 0.0;
    }
    while n > 1 {
        let half = n.div_ceil(2);
        for i in 0..half {
            let b = if 2 * i + 1 < n { w[2 * i + 1] } else { 0.0 };
            w[i] = w[2 * i] + b;
        }
        n = half;
    }
    w[0]
}

impl Plan {
    fn rows(&self) -> usize {
        self.dims[..4].iter().product()
    }

    fn run_typed<T: Element>(&self, t: &Bindings) -> Result<()> {
        let addr = |a: &Axes| t.addr(a.binding);
        let xa = addr(&self.x)?;
        let ya = self.y.as_ref().map(addr).transpose()?;
        let ma = self.mask.as_ref().map(addr).transpose()?;
        let ba = self.bias.as_ref().map(addr).transpose()?;
        let oa = addr(&self.out)?;
        let [b_, w_, n_, s1, s2] = self.dims;
        let rows = self.rows();
        let per = rows
            .div_ceil(crate::engine::pool().current_num_threads().max(1) * 4)
            .max(1);
        crate::engine::run_tasks(rows.div_ceil(per), |task| {
            let mut vals = vec![0f64; s2];
            let mut prod = vec![0f32; s2];
            let mut ys = vec![0f32; s2];
            for row in task * per..((task + 1) * per).min(rows) {
                let r = [
                    row / (w_ * n_ * s1) % b_,
                    row / (n_ * s1) % w_,
                    row / s1 % n_,
                    row % s1,
                ];
                // SAFETY (every load/store): indexes inside views checked against their
                // storage in phase 1; the mask is bool bytes.
                let x = |j| unsafe { load::<T>(xa, self.x.at(r, j)) };
                let masked = |j| match (ma, &self.mask) {
                    (Some(m), Some(v)) => unsafe { *((m as *const u8).offset(v.at(r, j))) != 0 },
                    _ => false,
                };
                let out = |j, v: f64| unsafe { store::<T>(oa, self.out.at(r, j), v) };
                match self.rule {
                    Rule::Scaled { scale } => {
                        let s16 = half::f16::from_f64(scale).to_f64();
                        for (j, v) in vals.iter_mut().enumerate() {
                            *v = if masked(j) {
                                MASK_FILL
                            } else if self.dtype == F16 {
                                // Two f16 values: the f64 product is exact, rounded once.
                                half::f16::from_f64(x(j) * s16).to_f64()
                            } else {
                                (x(j) as f32 * scale as f32) as f64
                            };
                        }
                        softmax_f32_shifted(&mut vals);
                        for (j, &v) in vals.iter().enumerate() {
                            out(j, v as f32 as f64);
                        }
                    }
                    Rule::RelPosBias { scale } => {
                        let (bias, bv) = (ba.unwrap(), self.bias.as_ref().unwrap());
                        for (j, v) in vals.iter_mut().enumerate() {
                            let mut e = x(j) as f32;
                            if let Some(s) = scale {
                                e *= s;
                            }
                            if let (Some(m), Some(mv)) = (ma, &self.mask) {
                                e += unsafe { load::<T>(m, mv.at(r, j)) } as f32;
                            }
                            e += unsafe { load::<T>(bias, bv.at(r, j)) } as f32;
                            *v = e as f64;
                        }
                        softmax_f32_shifted(&mut vals);
                        for (j, &v) in vals.iter().enumerate() {
                            out(j, v as f32 as f64);
                        }
                    }
                    Rule::Backward { scale } => {
                        let (y, yv) = (ya.unwrap(), self.y.as_ref().unwrap());
                        for j in 0..s2 {
                            ys[j] = unsafe { load::<T>(y, yv.at(r, j)) } as f32;
                            prod[j] = x(j) as f32 * ys[j];
                        }
                        let sum = reference_sum(&prod);
                        // Written after the whole row is read: out may be an input's view.
                        for j in 0..s2 {
                            let v = if masked(j) {
                                0.0
                            } else {
                                (prod[j] - sum * ys[j]) * scale
                            };
                            out(j, v as f64);
                        }
                    }
                }
            }
        });
        Ok(())
    }
}

impl Work for Plan {
    fn workspace_size(&self) -> u64 {
        0
    }
    fn run(&self, t: &Bindings, _: Workspace) -> Result<()> {
        match self.dtype {
            F16 => self.run_typed::<half::f16>(t),
            BF16 => self.run_typed::<half::bf16>(t),
            _ => self.run_typed::<f32>(t),
        }
    }
}

/// Outputs may not overlap inputs, except by being exactly one of `same_ok`'s views.
fn check_apart(
    api: &str,
    outs: &[(&str, &TensorDesc)],
    ins: &[(&str, &TensorDesc)],
    same_ok: &[&str],
) -> Result<()> {
    let same = |a: &TensorDesc, b: &TensorDesc| {
        a.addr == b.addr && a.offset == b.offset && a.strides == b.strides && a.shape == b.shape
    };
    for (on, o) in outs {
        o.check_output(on)?;
        for (iname, i) in ins {
            crate::ensure!(
                !overlap(o, i) || (same_ok.contains(iname) && same(o, i)),
                "{on} overlaps {iname} in memory: {api} needs its output apart from its inputs{}",
                if same_ok.contains(iname) {
                    format!(" (or exactly {iname}'s view)")
                } else {
                    String::new()
                }
            );
        }
    }
    Ok(())
}

/// The mask's broadcast to x's [B, N, S1, S2], as the op_api checks it.
fn check_mask_4d(api: &str, x_name: &str, x: &TensorDesc, mask: &TensorDesc) -> Result<()> {
    for (k, which) in [(0, "first (B)"), (1, "second (N)")] {
        crate::ensure!(
            mask.shape[k] == x.shape[k] || mask.shape[k] == 1,
            "{api}: mask {:?} does not broadcast to {x_name} {:?}: their {which} dims differ and mask's is not 1",
            mask.shape,
            x.shape
        );
    }
    crate::ensure!(
        mask.shape[2..] == x.shape[2..],
        "{api}: mask {:?} and {x_name} {:?} must be the same in the last two dims (S1, S2)",
        mask.shape,
        x.shape
    );
    Ok(())
}

/// aclnnScaledMaskedSoftmax: y = softmax(masked_fill(x·scale, mask, −10000), −1).
pub fn scaled_masked_softmax(
    x: &TensorDesc,
    mask: &TensorDesc,
    scale: f64,
    fixed_triu_mask: bool,
    y: &TensorDesc,
) -> Result<Executor> {
    const API: &str = "aclnnScaledMaskedSoftmax";
    ew::check_tensor("x", x, LIST)?;
    ew::check_tensor("mask", mask, MASK)?;
    ew::check_tensor("y", y, LIST)?;
    ew::check_dtype_of("y", y, "x", x)?;
    for (name, t) in [("x", x), ("mask", mask), ("y", y)] {
        crate::ensure!(
            t.rank() == 4,
            "{name} has {} dims ({:?}); {API} takes 4-D [B, N, S1, S2] tensors",
            t.rank(),
            t.shape
        );
    }
    check_mask_4d(API, "x", x, mask)?;
    crate::ensure!(
        (1..=MAX_S2).contains(&x.shape[3]),
        "x's last dim (S2) is {}; it must be in (0, {MAX_S2}]",
        x.shape[3]
    );
    crate::ensure!(
        !fixed_triu_mask,
        "fixedTriuMask is true; {API} supports only false (a mask tensor)"
    );
    ew::check_result_shape("y", y, &x.shape)?;
    check_apart(API, &[("y", y)], &[("x", x), ("mask", mask)], &["x"])?;
    let b = bindings(&[Some(x), Some(mask)], &[Some(y)]);
    if x.is_empty() {
        return Ok(Executor::new(API, b, Nothing));
    }
    let dims = [x.shape[0], 1, x.shape[1], x.shape[2], x.shape[3]];
    let map = [0, 2, 3, 4];
    let plan = Plan {
        rule: Rule::Scaled { scale },
        dtype: x.dtype,
        dims,
        x: axes(0, x, &map, &dims),
        y: None,
        mask: Some(axes(1, mask, &map, &dims)),
        bias: None,
        out: axes(2, y, &map, &dims),
    };
    Ok(Executor::new(API, b, plan))
}

/// aclnnScaledMaskedSoftmaxBackward: out = (gradOutput·y − Σ(gradOutput·y)·y)·scale, 0
/// where mask is true.
pub fn scaled_masked_softmax_backward(
    grad_output: &TensorDesc,
    y: &TensorDesc,
    mask: &TensorDesc,
    scale: f64,
    fix_triu_mask: bool,
    out: &TensorDesc,
) -> Result<Executor> {
    const API: &str = "aclnnScaledMaskedSoftmaxBackward";
    ew::check_tensor("gradOutput", grad_output, LIST)?;
    ew::check_tensor("y", y, LIST)?;
    ew::check_tensor("mask", mask, MASK)?;
    ew::check_tensor("out", out, LIST)?;
    ew::check_dtype_of("y", y, "gradOutput", grad_output)?;
    ew::check_dtype_of("out", out, "gradOutput", grad_output)?;
    crate::ensure!(
        grad_output.rank() == 4,
        "gradOutput has {} dims ({:?}); {API} takes 4-D [B, N, S1, S2] tensors",
        grad_output.rank(),
        grad_output.shape
    );
    crate::ensure!(
        grad_output.shape[3] <= MAX_S2,
        "gradOutput's last dim (S2) is {}; it must be at most {MAX_S2}",
        grad_output.shape[3]
    );
    crate::ensure!(
        y.shape == grad_output.shape,
        "y has shape {:?} but must have gradOutput's shape {:?}",
        y.shape,
        grad_output.shape
    );
    crate::ensure!(
        out.shape == grad_output.shape,
        "out has shape {:?} but must have gradOutput's shape {:?}",
        out.shape,
        grad_output.shape
    );
    crate::ensure!(
        mask.rank() == 4,
        "mask has {} dims ({:?}); {API} takes a 4-D [B|1, N|1, S1, S2] mask",
        mask.rank(),
        mask.shape
    );
    check_mask_4d(API, "gradOutput", grad_output, mask)?;
    crate::ensure!(
        !fix_triu_mask,
        "fixTriuMask is true; {API} supports only false (a mask tensor)"
    );
    check_apart(
        API,
        &[("out", out)],
        &[("gradOutput", grad_output), ("y", y), ("mask", mask)],
        &["gradOutput", "y"],
    )?;
    let b = bindings(&[Some(grad_output), Some(y), Some(mask)], &[Some(out)]);
    if grad_output.is_empty() {
        return Ok(Executor::new(API, b, Nothing));
    }
    let s = &grad_output.shape;
    let dims = [s[0], 1, s[1], s[2], s[3]];
    let map = [0, 2, 3, 4];
    let plan = Plan {
        rule: Rule::Backward {
            scale: scale as f32,
        },
        dtype: grad_output.dtype,
        dims,
        x: axes(0, grad_output, &map, &dims),
        y: Some(axes(1, y, &map, &dims)),
        mask: Some(axes(2, mask, &map, &dims)),
        bias: None,
        out: axes(3, out, &map, &dims),
    };
    Ok(Executor::new(API, b, plan))
}

/// aclnnMaskedSoftmaxWithRelPosBias: out = softmax(x·scaleValue + attenMask +
/// relativePosBias, −1) (see the module doc for the shapes).
pub fn masked_softmax_with_rel_pos_bias(
    x: &TensorDesc,
    atten_mask: Option<&TensorDesc>,
    relative_pos_bias: &TensorDesc,
    scale_value: f64,
    _inner_precision_mode: i64,
    out: &TensorDesc,
) -> Result<Executor> {
    const API: &str = "aclnnMaskedSoftmaxWithRelPosBias";
    ew::check_tensor("x", x, LIST)?;
    if let Some(m) = atten_mask {
        ew::check_tensor("attenMaskOptional", m, LIST)?;
        ew::check_dtype_of("attenMaskOptional", m, "x", x)?;
    }
    ew::check_tensor("relativePosBias", relative_pos_bias, LIST)?;
    ew::check_dtype_of("relativePosBias", relative_pos_bias, "x", x)?;
    ew::check_tensor("out", out, LIST)?;
    ew::check_dtype_of("out", out, "x", x)?;
    let xs = &x.shape;
    crate::ensure!(
        matches!(x.rank(), 4 | 5),
        "x has {} dims ({xs:?}); it must be 4-D (B*W, N, S1, S2) or 5-D (B, W, N, S1, S2)",
        x.rank()
    );
    crate::ensure!(
        !xs.contains(&0),
        "x has shape {xs:?}: {API} takes no empty dim"
    );
    // (B, W, N, S1, S2); a 4-D x's first dim splits by the mask's W.
    let (n, s1, s2) = (xs[xs.len() - 3], xs[xs.len() - 2], xs[xs.len() - 1]);
    let mut dims = if x.rank() == 5 {
        [xs[0], xs[1], n, s1, s2]
    } else {
        [xs[0], 1, n, s1, s2]
    };
    if let Some(m) = atten_mask {
        let ms = &m.shape;
        // The mask's (W, S1, S2) and the dims that must be 1.
        let (w, ones): (usize, &[usize]) = match m.rank() {
            3 => (ms[0], &[]),
            4 => (ms[0], &ms[1..2]),
            5 => (ms[1], &[ms[0], ms[2]][..]),
            r => crate::bail!(
                "attenMaskOptional has {r} dims ({ms:?}); it must be (W, S1, S2), (W, 1, S1, S2) or (1, W, 1, S1, S2)"
            ),
        };
        crate::ensure!(
            ones.iter().all(|&d| d == 1) && !ms.contains(&0),
            "attenMaskOptional has shape {ms:?}; it must be (W, S1, S2), (W, 1, S1, S2) or (1, W, 1, S1, S2) with no empty dim"
        );
        if x.rank() == 4 {
            crate::ensure!(
                xs[0].is_multiple_of(w),
                "x {xs:?} and attenMaskOptional {ms:?}: x's first dim (B*W) must be a multiple of the mask's W = {w}"
            );
            dims[0] = xs[0] / w;
            dims[1] = w;
        }
        crate::ensure!(
            dims[1] == w && ms[ms.len() - 2..] == [s1, s2],
            "attenMaskOptional {ms:?} does not match x {xs:?}: (W, S1, S2) must be x's ({}, {s1}, {s2})",
            dims[1]
        );
    }
    let bs = &relative_pos_bias.shape;
    let lead_ones = match relative_pos_bias.rank() {
        3 => 0,
        4 => 1,
        5 => 2,
        r => crate::bail!(
            "relativePosBias has {r} dims ({bs:?}); it must be (N, S1, S2), (1, N, S1, S2) or (1, 1, N, S1, S2)"
        ),
    };
    crate::ensure!(
        bs[..lead_ones].iter().all(|&d| d == 1) && bs[lead_ones..] == [n, s1, s2],
        "relativePosBias {bs:?} does not match x {xs:?}: it must be (N, S1, S2) = ({n}, {s1}, {s2}), with leading 1s"
    );
    ew::check_result_shape("out", out, xs)?;
    let mut ins = vec![("x", x), ("relativePosBias", relative_pos_bias)];
    if let Some(m) = atten_mask {
        ins.push(("attenMaskOptional", m));
    }
    check_apart(API, &[("out", out)], &ins, &["x"])?;
    let b = bindings(
        &[Some(x), atten_mask, Some(relative_pos_bias)],
        &[Some(out)],
    );
    // x and out: a 4-D x's first dim is (B, W) flattened, W innermost.
    let x_axes = |binding: usize, t: &TensorDesc| {
        if t.rank() == 5 {
            axes(binding, t, &[0, 1, 2, 3, 4], &dims)
        } else {
            let st = &t.strides;
            let s0 = st[0];
            Axes {
                binding,
                offset: t.offset as isize,
                strides: [s0 * dims[1] as isize, s0, st[1], st[2], st[3]],
            }
        }
    };
    let mask = atten_mask.map(|m| {
        let map: &[usize] = match m.rank() {
            3 => &[1, 3, 4],
            4 => &[1, 2, 3, 4],
            _ => &[0, 1, 2, 3, 4],
        };
        axes(1, m, map, &dims)
    });
    let bias_map: Vec<usize> = (0..relative_pos_bias.rank())
        .map(|k| {
            if k < lead_ones {
                k // a leading 1: broadcast whatever it maps to
            } else {
                [2, 3, 4][k - lead_ones]
            }
        })
        .collect();
    let s = scale_value as f32;
    let plan = Plan {
        rule: Rule::RelPosBias {
            scale: ((s - 1.0).abs() > f32::EPSILON).then_some(s),
        },
        dtype: x.dtype,
        dims,
        x: x_axes(0, x),
        y: None,
        mask,
        bias: Some(axes(2, relative_pos_bias, &bias_map, &dims)),
        out: x_axes(3, out),
    };
    Ok(Executor::new(API, b, plan))
}

/// Supported dtypes, for the operator table (docs/DTYPES.md).
pub const CATALOG: &[Entry] = &[
    Entry {
        ops: "ScaledMaskedSoftmax",
        a: LIST,
        b: MASK,
        out: LIST,
        rule: "y = softmax(masked_fill(x·scale, mask, −10000)) over S2; x·scale in f16 for f16, f32 else; softmax f32",
    },
    Entry {
        ops: "ScaledMaskedSoftmaxBackward",
        a: LIST,
        b: MASK,
        out: LIST,
        rule: "out = (dy·y − Σ(dy·y)·y)·scale, 0 where masked; f32, CANN's reference summation order",
    },
    Entry {
        ops: "MaskedSoftmaxWithRelPosBias",
        a: LIST,
        b: LIST,
        out: LIST,
        rule: "out = softmax(x·scaleValue + attenMask + relativePosBias) over S2, in f32",
    },
];
