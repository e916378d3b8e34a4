//! Resampling and patches: UpsampleNearest1d/2d/3d and UpsampleNearestExact1d/2d/3d
//! (aclnn_upsample_nearest_*.h) and Im2col (aclnn_im2col.h). All are gathers
//! (`engine::remap`) and exact: values move, never mix.
//!
//! - Nearest: output index `d` along a resized axis reads `min(floor(d · scale), in − 1)`
//!   with `scale = in / out` computed in f32 and the product in f32 (PyTorch's legacy
//!   `nearest` and the CANN formula), with torch's two shortcuts (out = in: identity;
//!   out = 2·in: `d / 2`), which agree with the formula where f32 is exact; with a scale,
//!   torch 1.13 takes them only in its channels-last kernel (see `nearest_map`). Exact reads
//!   `min(floor((d + 0.5) · scale), in − 1)` (torch's `nearest-exact`). A positive
//!   `scales` argument gives `scale = 1 / scales` instead (torch's rule).
//! - Im2col (torch.nn.functional.unfold): for each kernel offset (ki, kj) the
//!   (N, C, OH, OW) slice `out[:, c·kh·kw + ki·kw + kj, oh·OW + ow]` reads
//!   `self[:, c, oh·sh − ph + ki·dh, ow·sw − pw + kj·dw]`, zero outside self: kh·kw gathers
//!   run as one operator.

use super::catalog::Entry;
use super::elementwise as ew;
use crate::dtype::{can_cast, DType};
use crate::element::Element;
use crate::engine::remap::{self, Remap, FILL};
use crate::error::Result;
use crate::executor::{Bindings, Executor, Nothing, Sequence, Work, Workspace};
use crate::format::Format;
use crate::tensor::TensorDesc;

use DType::*;
/// aclnnUpsampleNearest2d, Atlas A2 (ASCEND910B list of aclnn_upsample_nearest_2d.cpp).
const NEAREST: &[DType] = &[F16, F32, F64, U8, BF16];
/// aclnnUpsampleNearest3d, Atlas A2 (no u8 there).
const NEAREST_3D: &[DType] = &[F16, F32, F64, BF16];
/// aclnnUpsampleNearestExact1d / Exact2d.
const EXACT: &[DType] = &[F32, F16, BF16, U8];
/// aclnnUpsampleNearestExact3d.
const EXACT_3D: &[DType] = &[F32, F16, BF16];
/// aclnnIm2col, Atlas A2.
const IM2COL: &[DType] = &[F32, F16, BF16];

/// The source index along an axis resized from `input` to `output` elements, for each
/// output index (`output`, `input` > 0), as torch computes it: the scale is
/// `(float)(1 / scales)` for a positive `scales`, else `(float)input / output`; legacy
/// nearest reads `min(⌊(float)d · scale⌋, input − 1)` (without scales: identity when the
/// sizes agree, `d / 2` when out is twice in), nearest-exact `min(⌊(float)((d + 0.5) · scale)⌋, input − 1)`.
pub(crate) fn nearest_map(
    input: usize,
    output: usize,
    scales: f64,
    exact: bool,
    channels_last_kernel: bool,
) -> Vec<i64> {
    // Without a scale the shortcuts agree with the formula. With one, torch 1.13 takes them
    // only in its channels-last kernel (2-d/3-d, channel-last memory, which includes C = 1);
    // its channels-first and 1-d kernels apply the formula whatever the sizes (out = in with
    // scale 1.3 reads 0, 0 there, 0, 1 in the channels-last kernel).
    let shortcuts = !exact && (scales <= 0.0 || channels_last_kernel);
    if shortcuts && output == input {
        return (0..output as i64).collect();
    }
    if shortcuts && output == 2 * input {
        return (0..output as i64).map(|d| d / 2).collect();
    }
    let scale = if scales > 0.0 {
        (1.0 / scales) as f32
    } else {
        input as f32 / output as f32
    };
    let last = input as i64 - 1;
    (0..output)
        .map(|d| {
            let x = if exact {
                ((d as f64 + 0.5) * scale as f64) as f32
            } else {
                d as f32 * scale
            };
            (x.floor() as i64).min(last)
        })
        .collect()
}

fn two_bindings(a: &TensorDesc, b: &TensorDesc) -> Bindings {
    Bindings {
        tensors: std::sync::Arc::new(vec![Some(a.clone()), Some(b.clone())]),
        n_inputs: 1,
        outputs: smallvec::smallvec![1],
    }
}

/// One nearest-neighbour entry point: its name, dtypes, the formats it takes (the first
/// channel-last one, if any, puts C last) and whether it is the exact variant.
struct Nearest {
    api: &'static str,
    list: &'static [DType],
    formats: &'static [Format],
    exact: bool,
    /// Empty self/out accepted (Exact2d); else refused.
    empty_ok: bool,
}

impl Nearest {
    /// out = self resized to `output_size` over its `scales.len()` spatial dims.
    fn plan(
        &self,
        self_: &TensorDesc,
        output_size: &[i64],
        scales: &[f64],
        out: &TensorDesc,
    ) -> Result<Executor> {
        let api = self.api;
        let s = scales.len();
        ew::check_tensor("self", self_, self.list)?;
        ew::check_tensor("out", out, self.list)?;
        ew::check_same_dtype("out", out, self_)?;
        crate::ensure!(
            output_size.len() == s,
            "outputSize {output_size:?} must have {s} value{}",
            if s > 1 { "s" } else { "" }
        );
        crate::ensure!(
            self_.rank() == s + 2 && out.rank() == s + 2,
            "self has {} dims and out {}: {api} takes {}-d tensors",
            self_.rank(),
            out.rank(),
            s + 2
        );
        check_sizes_and_formats(api, output_size, scales, self.formats, self_, out)?;
        let channel_last = matches!(self_.format, Format::NHWC | Format::NDHWC);
        let spatial: Vec<usize> = if channel_last {
            (1..=s).collect()
        } else {
            (2..2 + s).collect()
        };
        let c = if channel_last { s + 1 } else { 1 };
        if self.empty_ok {
            crate::ensure!(
                spatial.iter().all(|&a| self_.shape[a] > 0)
                    || self_.shape[0] == 0
                    || self_.shape[c] == 0,
                "self {:?} is empty in a spatial dim: {api} cannot resize it",
                self_.shape
            );
        } else {
            crate::ensure!(
                spatial
                    .iter()
                    .chain(std::iter::once(&c))
                    .all(|&a| self_.shape[a] > 0),
                "self {:?} is empty in its C or a spatial dim: {api} needs them non-empty",
                self_.shape
            );
        }
        let mut want = self_.shape.to_vec();
        for (k, &a) in spatial.iter().enumerate() {
            want[a] = output_size[k] as usize;
        }
        ew::check_result_shape("out", out, &want)?;
        // The kernel torch 1.13 would run (see nearest_map).
        let channels_last_kernel = s >= 2 && (channel_last || self_.shape[c] == 1);
        let maps = (0..s + 2)
            .map(|a| match spatial.iter().position(|&x| x == a) {
                Some(k) => nearest_map(
                    self_.shape[a],
                    want[a],
                    scales[k],
                    self.exact,
                    channels_last_kernel,
                ),
                None => (0..want[a] as i64).collect(),
            })
            .collect();
        Ok(remap::executor(
            api,
            self_,
            out,
            maps,
            remap::zero(self_.dtype),
        ))
    }
}

const NCL_ND: &[Format] = &[Format::NCL, Format::ND];
const NCHW_NHWC: &[Format] = &[Format::NCHW, Format::NHWC];
const NCHW_NHWC_ND: &[Format] = &[Format::NCHW, Format::NHWC, Format::ND];
const NCDHW_NDHWC_ND: &[Format] = &[Format::NCDHW, Format::NDHWC, Format::ND];

/// aclnnUpsampleNearest2d: (N, C, H, W) -> (N, C, outputSize[0], outputSize[1]) in NCHW,
/// (N, H, W, C) -> (N, outputSize[0], outputSize[1], C) in NHWC.
pub fn upsample_nearest_2d(
    self_: &TensorDesc,
    output_size: &[i64],
    out: &TensorDesc,
) -> Result<Executor> {
    let n = Nearest {
        api: "aclnnUpsampleNearest2d",
        list: NEAREST,
        formats: NCHW_NHWC,
        exact: false,
        empty_ok: false,
    };
    n.plan(self_, output_size, &[0.0, 0.0], out)
}

/// aclnnUpsampleNearest1d: (N, C, L) -> (N, C, outputSize[0]).
pub fn upsample_nearest_1d(
    self_: &TensorDesc,
    output_size: &[i64],
    out: &TensorDesc,
) -> Result<Executor> {
    let n = Nearest {
        api: "aclnnUpsampleNearest1d",
        list: NEAREST,
        formats: NCL_ND,
        exact: false,
        empty_ok: false,
    };
    n.plan(self_, output_size, &[0.0], out)
}

/// aclnnUpsampleNearest3d: (N, C, D, H, W) resized; a positive scale replaces in/out.
pub fn upsample_nearest_3d(
    self_: &TensorDesc,
    output_size: &[i64],
    scales_d: f64,
    scales_h: f64,
    scales_w: f64,
    out: &TensorDesc,
) -> Result<Executor> {
    let n = Nearest {
        api: "aclnnUpsampleNearest3d",
        list: NEAREST_3D,
        formats: NCDHW_NDHWC_ND,
        exact: false,
        empty_ok: false,
    };
    n.plan(self_, output_size, &[scales_d, scales_h, scales_w], out)
}

/// aclnnUpsampleNearestExact1d: (N, C, L) resized, pixel centres aligned.
pub fn upsample_nearest_exact_1d(
    self_: &TensorDesc,
    output_size: &[i64],
    scales: f64,
    out: &TensorDesc,
) -> Result<Executor> {
    let n = Nearest {
        api: "aclnnUpsampleNearestExact1d",
        list: EXACT,
        formats: NCL_ND,
        exact: true,
        empty_ok: false,
    };
    n.plan(self_, output_size, &[scales], out)
}

/// aclnnUpsampleNearestExact2d: (N, C, H, W) resized, pixel centres aligned.
pub fn upsample_nearest_exact_2d(
    self_: &TensorDesc,
    output_size: &[i64],
    scales_h: f64,
    scales_w: f64,
    out: &TensorDesc,
) -> Result<Executor> {
    let n = Nearest {
        api: "aclnnUpsampleNearestExact2d",
        list: EXACT,
        formats: NCHW_NHWC_ND,
        exact: true,
        empty_ok: true,
    };
    n.plan(self_, output_size, &[scales_h, scales_w], out)
}

/// aclnnUpsampleNearestExact3d: (N, C, D, H, W) resized, pixel centres aligned.
pub fn upsample_nearest_exact_3d(
    self_: &TensorDesc,
    output_size: &[i64],
    scales_d: f64,
    scales_h: f64,
    scales_w: f64,
    out: &TensorDesc,
) -> Result<Executor> {
    let n = Nearest {
        api: "aclnnUpsampleNearestExact3d",
        list: EXACT_3D,
        formats: NCDHW_NDHWC_ND,
        exact: true,
        empty_ok: false,
    };
    n.plan(self_, output_size, &[scales_d, scales_h, scales_w], out)
}

fn pair(name: &str, v: &[i64], min: i64) -> Result<[usize; 2]> {
    crate::ensure!(v.len() == 2, "{name} {v:?} must have 2 values (H, W)");
    for &x in v {
        crate::ensure!(
            x >= min,
            "{name} {v:?}: value {x} must be {}",
            if min == 0 { "non-negative" } else { "positive" }
        );
        crate::ensure!(x <= 1 << 31, "{name} {v:?}: value {x} is too large");
    }
    Ok([v[0] as usize, v[1] as usize])
}

/// aclnnIm2col: (N, C, H, W) -> (N, C·kh·kw, L), or (C, H, W) -> (C·kh·kw, L), L = OH·OW
/// with `OH = (H + 2·ph − dh·(kh − 1) − 1) / sh + 1` (floor; at least 1). out's dtype
/// may differ from self's (converted, as the device casts its result).
pub fn im2col(
    self_: &TensorDesc,
    kernel_size: &[i64],
    dilation: &[i64],
    padding: &[i64],
    stride: &[i64],
    out: &TensorDesc,
) -> Result<Executor> {
    const API: &str = "aclnnIm2col";
    ew::check_tensor("self", self_, IM2COL)?;
    let k = self_.rank();
    crate::ensure!(
        k == 3 || k == 4,
        "self has {k} dims: {API} takes (C, H, W) or (N, C, H, W)"
    );
    crate::ensure!(
        self_.shape[k - 3..].iter().all(|&n| n > 0),
        "self {:?} is empty in its C, H or W dim",
        self_.shape
    );
    let kk = pair("kernelSize", kernel_size, 1)?;
    let dil = pair("dilation", dilation, 1)?;
    let pad = pair("padding", padding, 0)?;
    let st = pair("stride", stride, 1)?;
    ew::check_tensor("out", out, IM2COL)?;
    crate::ensure!(
        can_cast(self_.dtype, out.dtype),
        "out has dtype {}, which self's dtype {} cannot be converted to",
        out.dtype,
        self_.dtype
    );
    let (c, hi, wi) = (self_.shape[k - 3], self_.shape[k - 2], self_.shape[k - 1]);
    let n = if k == 4 { self_.shape[0] } else { 1 };
    let span = |size: usize, a: usize| -> i64 {
        let full = size as i64 + 2 * pad[a] as i64 - (dil[a] as i64 * (kk[a] as i64 - 1) + 1);
        full.div_euclid(st[a] as i64) + 1
    };
    let (oh, ow) = (span(hi, 0), span(wi, 1));
    crate::ensure!(
        oh >= 1 && ow >= 1,
        "the kernel {kk:?} with dilation {dil:?}, padding {pad:?} and stride {st:?} does not fit self's {hi}x{wi} image: {oh}x{ow} blocks"
    );
    let (oh, ow) = (oh as usize, ow as usize);
    let rows = c * kk[0] * kk[1];
    let want: Vec<usize> = if k == 4 {
        vec![n, rows, oh * ow]
    } else {
        vec![rows, oh * ow]
    };
    ew::check_result_shape("out", out, &want)?;
    crate::ensure!(
        !remap::overlaps(self_, out),
        "out shares memory with self: {API} needs them apart"
    );
    let bindings = two_bindings(self_, out);
    if out.is_empty() {
        return Ok(Executor::new(API, bindings, Nothing));
    }
    // self as (N, C, H, W) and, per kernel offset, out as an (N, C, OH, OW) view.
    let mut src = self_.clone();
    let mut o = out.clone();
    if k == 3 {
        src.shape.insert(0, 1);
        src.strides.insert(0, 0);
        o.shape.insert(0, 1);
        o.strides.insert(0, 0);
    }
    let (os1, os2) = (o.strides[1], o.strides[2]);
    let mut seq = Sequence::new();
    for ki in 0..kk[0] {
        for kj in 0..kk[1] {
            let mut v = o.clone();
            v.shape = smallvec::smallvec![n, c, oh, ow];
            v.strides = smallvec::smallvec![
                o.strides[0],
                os1 * (kk[0] * kk[1]) as isize,
                os2 * ow as isize,
                os2
            ];
            v.offset = o.offset + (ki * kk[1] + kj) * os1 as usize;
            let axis = |size: usize, a: usize, off: usize, count: usize| -> Vec<i64> {
                (0..count as i64)
                    .map(|x| {
                        let i = x * st[a] as i64 - pad[a] as i64 + (off * dil[a]) as i64;
                        if (0..size as i64).contains(&i) {
                            i
                        } else {
                            FILL
                        }
                    })
                    .collect()
            };
            let maps = vec![
                (0..n as i64).collect(),
                (0..c as i64).collect(),
                axis(hi, 0, ki, oh),
                axis(wi, 1, kj, ow),
            ];
            let plan = Remap::new(&src, 0, &v, 1, maps, None, remap::zero(src.dtype));
            seq.push(Executor::new(API, two_bindings(&src, &v), plan), &[0, 1]);
        }
    }
    Ok(Executor::new(API, bindings, seq))
}

// ---------------------------------------------------------------------------------------
// Interpolating resizes: one separable taps kernel
// ---------------------------------------------------------------------------------------

/// aclnnUpsampleLinear1d, Atlas A2.
const LINEAR_1D: &[DType] = &[F32, F16, BF16];
/// aclnnUpsampleBilinear2d, Atlas A2 (DOUBLE only in NHWC).
const BILINEAR: &[DType] = &[F32, BF16, F16, F64];
/// aclnnUpsampleTrilinear3d, Atlas A2.
const TRILINEAR: &[DType] = &[F32, F16, BF16, F64];
/// aclnnUpsampleBicubic2d, Atlas A2.
const BICUBIC: &[DType] = &[F32, F16, BF16];
/// aclnnUpsampleNearest1dV2, Atlas A2.
const NEAREST_1D_V2: &[DType] = &[F32, BF16, F16, U8];
/// aclnnUpsampleNearest2dV2, Atlas A2.
const NEAREST_2D_V2: &[DType] = &[F32, BF16, F16, F64, U8];

/// The arithmetic type of an interpolation: f32 for f16/bf16/f32, f64 for f64.
trait Acc: Copy + std::ops::Add<Output = Self> + std::ops::Mul<Output = Self> {
    const ZERO: Self;
    fn of(x: f64) -> Self;
    fn get(self) -> f64;
}
impl Acc for f32 {
    const ZERO: f32 = 0.0;
    fn of(x: f64) -> f32 {
        x as f32
    }
    fn get(self) -> f64 {
        self as f64
    }
}
impl Acc for f64 {
    const ZERO: f64 = 0.0;
    fn of(x: f64) -> f64 {
        x
    }
    fn get(self) -> f64 {
        self
    }
}

/// One resized axis: every output index reads `n` input indices with weights
/// (`index[o·n + t]`, `weight[o·n + t]`, the weights exact values of the arithmetic type).
#[derive(Clone, Debug)]
struct AxisTaps {
    n: usize,
    index: Vec<usize>,
    weight: Vec<f64>,
}

impl AxisTaps {
    fn unit() -> AxisTaps {
        AxisTaps {
            n: 1,
            index: vec![0],
            weight: vec![1.0],
        }
    }
    fn outputs(&self) -> usize {
        self.index.len() / self.n
    }
}

/// torch's area_pixel_compute_scale in the arithmetic type A (each division rounded once
/// into A: the f64 quotient of two A values rounds to A's correctly rounded quotient).
fn pixel_scale<A: Acc>(input: usize, output: usize, align_corners: bool, scales: f64) -> A {
    let div = |x: usize, y: usize| A::of(A::of(x as f64).get() / A::of(y as f64).get());
    if align_corners {
        if output > 1 {
            div(input - 1, output - 1)
        } else {
            A::ZERO
        }
    } else if scales > 0.0 {
        A::of(1.0 / scales)
    } else {
        div(input, output)
    }
}

/// torch's area_pixel_compute_source_index: `scale·d` (align corners) or
/// `scale·(d + ½) − ½` evaluated in double and rounded into A (negative clamped to 0 unless
/// cubic).
fn source_index<A: Acc>(scale: A, d: usize, align_corners: bool, cubic: bool) -> A {
    if align_corners {
        scale * A::of(d as f64)
    } else {
        let s = A::of(scale.get() * (d as f64 + 0.5) - 0.5);
        if !cubic && s.get() < 0.0 {
            A::ZERO
        } else {
            s
        }
    }
}

/// Linear taps (torch's compute_source_index_and_lambda): out = in is the identity.
fn linear_taps<A: Acc>(input: usize, output: usize, align_corners: bool, scales: f64) -> AxisTaps {
    let mut index = Vec::with_capacity(2 * output);
    let mut weight = Vec::with_capacity(2 * output);
    let scale: A = pixel_scale(input, output, align_corners, scales);
    for d in 0..output {
        if input == output {
            index.extend([d, 0]);
            weight.extend([1.0, 0.0]);
            continue;
        }
        let real = source_index(scale, d, align_corners, false);
        let i0 = (real.get() as usize).min(input - 1);
        let i1 = if i0 < input - 1 { i0 + 1 } else { i0 };
        let l1 = A::of((real.get() - i0 as f64).clamp(0.0, 1.0));
        let l0 = A::of(1.0 - l1.get());
        index.extend([i0, i1]);
        weight.extend([l0.get(), l1.get()]);
    }
    AxisTaps {
        n: 2,
        index,
        weight,
    }
}

/// Cubic-convolution taps, A = −0.75, indices clamped to the border (torch's
/// upsample_bicubic2d).
fn cubic_taps<A: Acc>(input: usize, output: usize, align_corners: bool, scales: f64) -> AxisTaps {
    let a = A::of(-0.75);
    let one = A::of(1.0);
    let c1 = |x: A| (((a + A::of(2.0)) * x + A::of(-(a.get() + 3.0))) * x * x) + one;
    let c2 = |x: A| {
        (((a * x + A::of(-5.0 * a.get())) * x + A::of(8.0 * a.get())) * x) + A::of(-4.0 * a.get())
    };
    let scale: A = pixel_scale(input, output, align_corners, scales);
    let mut index = Vec::with_capacity(4 * output);
    let mut weight = Vec::with_capacity(4 * output);
    for d in 0..output {
        let real = source_index(scale, d, align_corners, true);
        let fl = real.get().floor();
        let t = A::of(real.get() - fl);
        let t2 = A::of(1.0 - t.get());
        let w = [c2(t + one), c1(t), c1(t2), c2(t2 + one)];
        for (j, wj) in w.iter().enumerate() {
            let i = (fl as i64 - 1 + j as i64).clamp(0, input as i64 - 1);
            index.push(i as usize);
            weight.push(wj.get());
        }
    }
    AxisTaps {
        n: 4,
        index,
        weight,
    }
}

/// A tensor's plane dims (size, stride), its 3 spatial strides (0 for a missing axis) and
/// offset.
#[derive(Clone, Debug)]
struct Lay {
    lead: Vec<(usize, isize)>,
    spatial: [isize; 3],
    offset: isize,
}

impl Lay {
    fn new(t: &TensorDesc, spatial: &[usize]) -> Lay {
        let lead = (0..t.rank())
            .filter(|d| !spatial.contains(d))
            .map(|d| (t.shape[d], t.strides[d]))
            .collect();
        let mut sp = [0isize; 3];
        let pad = 3 - spatial.len();
        for (i, &d) in spatial.iter().enumerate() {
            sp[pad + i] = t.strides[d];
        }
        Lay {
            lead,
            spatial: sp,
            offset: t.offset as isize,
        }
    }
    fn plane(&self, mut p: usize) -> isize {
        let mut off = self.offset;
        for &(n, s) in self.lead.iter().rev() {
            off += (p % n) as isize * s;
            p /= n;
        }
        off
    }
}

/// The planned interpolation: self (binding 0) into out (1), `axes` the D, H, W taps
/// (unit where the operator has fewer spatial dims).
struct Taps {
    dtype: DType,
    axes: [AxisTaps; 3],
    planes: usize,
    input: Lay,
    out: Lay,
}

impl Taps {
    /// out = Σ_a w0·(Σ_b w1·(Σ_c w2·x)) in A, innermost axis W (torch's nesting).
    fn run_typed<T: Element, A: Acc>(&self, src: usize, dst: usize) {
        let [a0, a1, a2] = &self.axes;
        let (o0n, o1n, o2n) = (a0.outputs(), a1.outputs(), a2.outputs());
        let work = self.planes * o0n * o1n * o2n;
        let tasks = self.planes.min(work.div_ceil(1 << 14)).clamp(1, 256);
        let per = self.planes.div_ceil(tasks);
        let [s0, s1, s2] = self.input.spatial;
        let [d0, d1, d2] = self.out.spatial;
        crate::engine::run_tasks(tasks, |t| {
            for p in t * per..((t + 1) * per).min(self.planes) {
                let ib = self.input.plane(p);
                let ob = self.out.plane(p);
                for o0 in 0..o0n {
                    for o1 in 0..o1n {
                        for o2 in 0..o2n {
                            let mut acc0 = A::ZERO;
                            for k0 in o0 * a0.n..(o0 + 1) * a0.n {
                                let b0 = ib + a0.index[k0] as isize * s0;
                                let mut acc1 = A::ZERO;
                                for k1 in o1 * a1.n..(o1 + 1) * a1.n {
                                    let b1 = b0 + a1.index[k1] as isize * s1;
                                    let mut acc2 = A::ZERO;
                                    for k2 in o2 * a2.n..(o2 + 1) * a2.n {
                                        let i = b1 + a2.index[k2] as isize * s2;
                                        // SAFETY: every tap index is inside self's shape.
                                        let x = A::of(unsafe { super::pool::load::<T>(src, i) });
                                        acc2 = acc2 + x * A::of(a2.weight[k2]);
                                    }
                                    acc1 = acc1 + acc2 * A::of(a1.weight[k1]);
                                }
                                acc0 = acc0 + acc1 * A::of(a0.weight[k0]);
                            }
                            let o = ob + o0 as isize * d0 + o1 as isize * d1 + o2 as isize * d2;
                            // SAFETY: o is inside out's view, written by this plane's task only.
                            unsafe { super::pool::store::<T>(dst, o, acc0.get()) };
                        }
                    }
                }
            }
        });
    }
}

impl Work for Taps {
    fn workspace_size(&self) -> u64 {
        0
    }
    fn run(&self, t: &Bindings, _: Workspace) -> Result<()> {
        let (src, dst) = (t.addr(0)?, t.addr(1)?);
        match self.dtype {
            F16 => self.run_typed::<half::f16, f32>(src, dst),
            BF16 => self.run_typed::<half::bf16, f32>(src, dst),
            F64 => self.run_typed::<f64, f64>(src, dst),
            _ => self.run_typed::<f32, f32>(src, dst),
        }
        Ok(())
    }
}

/// Which taps an interpolating entry point uses.
#[derive(Clone, Copy, PartialEq)]
enum Kernel {
    Linear,
    Cubic,
}

/// One interpolating entry point.
struct Interp {
    api: &'static str,
    list: &'static [DType],
    formats: &'static [Format],
    kernel: Kernel,
    /// Empty self/out refused entirely (Linear1d); else only N (and C) may be 0.
    no_empty: bool,
}

impl Interp {
    fn plan(
        &self,
        self_: &TensorDesc,
        output_size: &[i64],
        align_corners: bool,
        scales: &[f64],
        out: &TensorDesc,
    ) -> Result<Executor> {
        let api = self.api;
        let s = scales.len();
        ew::check_tensor("self", self_, self.list)?;
        ew::check_tensor("out", out, self.list)?;
        ew::check_same_dtype("out", out, self_)?;
        crate::ensure!(
            self_.rank() == s + 2 && out.rank() == s + 2,
            "self has {} dims and out {}: {api} takes {}-d tensors",
            self_.rank(),
            out.rank(),
            s + 2
        );
        crate::ensure!(
            output_size.len() == s,
            "outputSize {output_size:?} must have {s} value{}",
            if s > 1 { "s" } else { "" }
        );
        check_sizes_and_formats(api, output_size, scales, self.formats, self_, out)?;
        if api == "aclnnUpsampleBilinear2d" {
            crate::ensure!(
                self_.dtype != F64 || self_.format == Format::NHWC,
                "self is DOUBLE in format {}: {api} takes DOUBLE only in NHWC",
                self_.format
            );
        }
        let channel_last = matches!(self_.format, Format::NHWC | Format::NDHWC);
        let spatial: Vec<usize> = if channel_last {
            (1..=s).collect()
        } else {
            (2..2 + s).collect()
        };
        let c = if channel_last { s + 1 } else { 1 };
        if self.no_empty {
            crate::ensure!(
                !self_.is_empty(),
                "self {:?} is empty: {api} does not take empty tensors",
                self_.shape
            );
        } else {
            crate::ensure!(
                spatial.iter().all(|&a| self_.shape[a] > 0),
                "self {:?} is empty in a spatial dim: {api} cannot resize it",
                self_.shape
            );
        }
        let _ = c;
        let mut want = self_.shape.to_vec();
        for (k, &a) in spatial.iter().enumerate() {
            want[a] = output_size[k] as usize;
        }
        ew::check_result_shape("out", out, &want)?;
        crate::ensure!(
            !remap::overlaps(self_, out),
            "out shares memory with self: {api} needs them apart"
        );
        let bindings = two_bindings(self_, out);
        if out.is_empty() {
            return Ok(Executor::new(api, bindings, Nothing));
        }
        let wide = self_.dtype == F64;
        let taps: Vec<AxisTaps> = (0..3 - s)
            .map(|_| AxisTaps::unit())
            .chain(spatial.iter().enumerate().map(|(k, &a)| {
                let (i, o) = (self_.shape[a], want[a]);
                match (self.kernel, wide) {
                    (Kernel::Linear, false) => linear_taps::<f32>(i, o, align_corners, scales[k]),
                    (Kernel::Linear, true) => linear_taps::<f64>(i, o, align_corners, scales[k]),
                    (Kernel::Cubic, false) => cubic_taps::<f32>(i, o, align_corners, scales[k]),
                    (Kernel::Cubic, true) => cubic_taps::<f64>(i, o, align_corners, scales[k]),
                }
            }))
            .collect();
        let planes = (0..self_.rank())
            .filter(|d| !spatial.contains(d))
            .map(|d| self_.shape[d])
            .product();
        let plan = Taps {
            dtype: self_.dtype,
            axes: taps.try_into().expect("3 axes"),
            planes,
            input: Lay::new(self_, &spatial),
            out: Lay::new(out, &spatial),
        };
        Ok(Executor::new(api, bindings, plan))
    }
}

const NCL_ONLY: &[Format] = &[Format::NCL, Format::ND];
const NCHW_ND: &[Format] = &[Format::NCHW, Format::ND];

/// aclnnUpsampleLinear1d: (N, C, L) -> (N, C, outputSize[0]), linear taps.
pub fn upsample_linear_1d(
    self_: &TensorDesc,
    output_size: &[i64],
    align_corners: bool,
    scales: f64,
    out: &TensorDesc,
) -> Result<Executor> {
    Interp {
        api: "aclnnUpsampleLinear1d",
        list: LINEAR_1D,
        formats: NCL_ONLY,
        kernel: Kernel::Linear,
        no_empty: true,
    }
    .plan(self_, output_size, align_corners, &[scales], out)
}

/// aclnnUpsampleBilinear2d: (N, C, H, W) (NHWC: (N, H, W, C)) resized, bilinear taps.
pub fn upsample_bilinear_2d(
    self_: &TensorDesc,
    output_size: &[i64],
    align_corners: bool,
    scales_h: f64,
    scales_w: f64,
    out: &TensorDesc,
) -> Result<Executor> {
    Interp {
        api: "aclnnUpsampleBilinear2d",
        list: BILINEAR,
        formats: NCHW_NHWC,
        kernel: Kernel::Linear,
        no_empty: false,
    }
    .plan(
        self_,
        output_size,
        align_corners,
        &[scales_h, scales_w],
        out,
    )
}

/// aclnnUpsampleTrilinear3d: (N, C, D, H, W) (NDHWC too) resized, trilinear taps.
#[allow(clippy::too_many_arguments)]
pub fn upsample_trilinear_3d(
    self_: &TensorDesc,
    output_size: &[i64],
    align_corners: bool,
    scales_d: f64,
    scales_h: f64,
    scales_w: f64,
    out: &TensorDesc,
) -> Result<Executor> {
    Interp {
        api: "aclnnUpsampleTrilinear3d",
        list: TRILINEAR,
        formats: NCDHW_NDHWC_ND,
        kernel: Kernel::Linear,
        no_empty: false,
    }
    .plan(
        self_,
        output_size,
        align_corners,
        &[scales_d, scales_h, scales_w],
        out,
    )
}

/// aclnnUpsampleBicubic2d: (N, C, H, W) resized, 4×4 cubic-convolution taps.
pub fn upsample_bicubic_2d(
    self_: &TensorDesc,
    output_size: &[i64],
    align_corners: bool,
    scales_h: f64,
    scales_w: f64,
    out: &TensorDesc,
) -> Result<Executor> {
    Interp {
        api: "aclnnUpsampleBicubic2d",
        list: BICUBIC,
        formats: NCHW_ND,
        kernel: Kernel::Cubic,
        no_empty: false,
    }
    .plan(
        self_,
        output_size,
        align_corners,
        &[scales_h, scales_w],
        out,
    )
}

/// outputSize's values in (0, 2^31), the scales (D, H, W: the last `scales.len()`) finite and
/// non-negative, self's format one of `formats` and out's the same.
fn check_sizes_and_formats(
    api: &str,
    output_size: &[i64],
    scales: &[f64],
    formats: &[Format],
    self_: &TensorDesc,
    out: &TensorDesc,
) -> Result<()> {
    crate::ensure!(
        output_size.iter().all(|&x| x > 0 && x < 1 << 31),
        "outputSize {output_size:?} must be positive"
    );
    for (name, &x) in ["scalesD", "scalesH", "scalesW"][3 - scales.len().min(3)..]
        .iter()
        .zip(scales)
    {
        crate::ensure!(
            x >= 0.0 && x.is_finite(),
            "{name} {x} must be a finite non-negative scale"
        );
    }
    crate::ensure!(
        formats.contains(&self_.format),
        "self has format {}: {api} takes {}",
        self_.format,
        formats
            .iter()
            .map(|f| f.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    );
    crate::ensure!(
        out.format == self_.format,
        "out has format {} but must have self's format {}",
        out.format,
        self_.format
    );
    Ok(())
}

/// aclnnUpsampleNearest1dV2: UpsampleNearest1d with a float scale.
pub fn upsample_nearest_1d_v2(
    self_: &TensorDesc,
    output_size: &[i64],
    scale_l: f32,
    out: &TensorDesc,
) -> Result<Executor> {
    let n = Nearest {
        api: "aclnnUpsampleNearest1dV2",
        list: NEAREST_1D_V2,
        formats: NCL_ND,
        exact: false,
        empty_ok: false,
    };
    n.plan(self_, output_size, &[scale_l as f64], out)
}

/// aclnnUpsampleNearest2dV2: UpsampleNearest2d with float scales.
pub fn upsample_nearest_2d_v2(
    self_: &TensorDesc,
    output_size: &[i64],
    scales_h: f32,
    scales_w: f32,
    out: &TensorDesc,
) -> Result<Executor> {
    let n = Nearest {
        api: "aclnnUpsampleNearest2dV2",
        list: NEAREST_2D_V2,
        formats: NCHW_NHWC,
        exact: false,
        empty_ok: false,
    };
    n.plan(self_, output_size, &[scales_h as f64, scales_w as f64], out)
}

/// Supported dtypes, for the operator table (docs/DTYPES.md).
pub const CATALOG: &[Entry] = &[
    Entry {
        ops: "UpsampleNearest1d, UpsampleNearest2d",
        a: NEAREST,
        b: &[],
        out: NEAREST,
        rule: "nearest-neighbour resize of L / H, W (NCL; NCHW/NHWC): src = min(⌊dst·in/out⌋, in − 1) in f32",
    },
    Entry {
        ops: "UpsampleNearest3d",
        a: NEAREST_3D,
        b: &[],
        out: NEAREST_3D,
        rule: "the same over D, H, W (NCDHW/NDHWC); a positive scale gives in/out = 1/scale",
    },
    Entry {
        ops: "UpsampleNearestExact1d, UpsampleNearestExact2d",
        a: EXACT,
        b: &[],
        out: EXACT,
        rule: "nearest-exact resize: src = min(⌊(dst + ½)·in/out⌋, in − 1)",
    },
    Entry {
        ops: "UpsampleNearestExact3d",
        a: EXACT_3D,
        b: &[],
        out: EXACT_3D,
        rule: "nearest-exact resize of D, H, W",
    },
    Entry {
        ops: "Im2col",
        a: IM2COL,
        b: &[],
        out: IM2COL,
        rule: "sliding kernel blocks as columns (N, C·kh·kw, L), zero padding, dilation, stride",
    },
    Entry {
        ops: "UpsampleLinear1d, UpsampleBicubic2d",
        a: LINEAR_1D,
        b: &[],
        out: LINEAR_1D,
        rule: "linear (2 taps) / cubic-convolution (4 taps, A = −0.75) resize in f32, torch's source index (alignCorners, scales)",
    },
    Entry {
        ops: "UpsampleBilinear2d, UpsampleTrilinear3d",
        a: BILINEAR,
        b: &[],
        out: BILINEAR,
        rule: "separable linear taps over H, W (D, H, W) in f32 (f64 for DOUBLE; Bilinear2d DOUBLE in NHWC only)",
    },
    Entry {
        ops: "UpsampleNearest1dV2",
        a: NEAREST_1D_V2,
        b: &[],
        out: NEAREST_1D_V2,
        rule: "UpsampleNearest1d with a float scaleL (positive: in/out = 1/scale)",
    },
    Entry {
        ops: "UpsampleNearest2dV2",
        a: NEAREST_2D_V2,
        b: &[],
        out: NEAREST_2D_V2,
        rule: "UpsampleNearest2d with float scalesH, scalesW",
    },
];
