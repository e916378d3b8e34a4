//! Resampling and patches: UpsampleNearest1d/2d/3d and UpsampleNearestExact1d/2d/3d
//! (aclnn_upsample_nearest_*.h) and Im2col (aclnn_im2col.h). All are gathers
//! (`engine::remap`) and exact: values move, never mix.
//!
//! - Nearest: output index `d` along a resized axis reads `min(floor(d · scale), in − 1)`
//!   with `scale = in / out` computed in f32 and the product in f32 (PyTorch's legacy
//!   `nearest` and the CANN formula), with torch's two shortcuts (out = in: identity;
//!   out = 2·in: `d / 2`), which agree with the formula where f32 is exact. Exact reads
//!   `min(floor((d + 0.5) · scale), in − 1)` (torch's `nearest-exact`). A positive
//!   `scales` argument gives `scale = 1 / scales` instead (torch's rule).
//! - Im2col (torch.nn.functional.unfold): for each kernel offset (ki, kj) the
//!   (N, C, OH, OW) slice `out[:, c·kh·kw + ki·kw + kj, oh·OW + ow]` reads
//!   `self[:, c, oh·sh − ph + ki·dh, ow·sw − pw + kj·dw]`, zero outside self: kh·kw gathers
//!   run as one operator.

use super::catalog::Entry;
use super::elementwise as ew;
use crate::dtype::{can_cast, DType};
use crate::engine::remap::{self, Remap, FILL};
use crate::error::Result;
use crate::executor::{Bindings, Executor, Nothing, Sequence};
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
/// nearest reads `min(⌊(float)d · scale⌋, input − 1)` (identity when the sizes agree, `d / 2`
/// when out is twice in), nearest-exact `min(⌊(float)((d + 0.5) · scale)⌋, input − 1)`.
pub(crate) fn nearest_map(input: usize, output: usize, scales: f64, exact: bool) -> Vec<i64> {
    if !exact && output == input {
        return (0..output as i64).collect();
    }
    if !exact && output == 2 * input {
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
        crate::ensure!(
            output_size.iter().all(|&x| x > 0 && x < 1 << 31),
            "outputSize {output_size:?} must be positive"
        );
        for (name, &x) in ["scalesD", "scalesH", "scalesW"][3 - s.min(3)..]
            .iter()
            .zip(scales)
        {
            crate::ensure!(
                x >= 0.0 && x.is_finite(),
                "{name} {x} must be a finite non-negative scale"
            );
        }
        crate::ensure!(
            self.formats.contains(&self_.format),
            "self has format {}: {api} takes {}",
            self_.format,
            self.formats
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
        let maps = (0..s + 2)
            .map(|a| match spatial.iter().position(|&x| x == a) {
                Some(k) => nearest_map(self_.shape[a], want[a], scales[k], self.exact),
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
];
