//! WeightQuantBatchMatmulV2 (hicann/ops-nn aclnnWeightQuantBatchMatmulV2.md), the
//! pseudo-quantized product llama.cpp's CANN back-end runs Q8_0 weights on:
//! `y = x @ ANTIQUANT(weight) + bias` with `ANTIQUANT(w) = (w + antiquantOffset) *
//! antiquantScale`, on Atlas A2's path:
//! - x (m, k) f16 or bf16, any view (ggml passes a contiguous one); weight (k, n) int8 or
//!   int4 (ACL_INT4, two a byte, its innermost storage dim even), any view (ggml passes
//!   the transposed storage of its (n, k) rows), or INT32 carrying int4 eight to an int32
//!   (aclnnConvertWeightToINT4Pack's ND output: (k, n/8), or (k/8, n) seen transposed);
//!   y (m, n) of x's dtype;
//! - antiquantScale of x's dtype, per tensor ((1,) or (1, 1)), per channel ((n,) or
//!   (1, n)) or, with antiquantGroupSize G (a multiple of 32 in [32, k-1]), per group
//!   ((⌈k/G⌉, n): row i of weight uses scale row i / G); antiquantOffset (optional) of
//!   the same dtype and shape;
//! - bias (optional) (n,) or (1, n): f16 with an f16 x, f32 with a bf16 x;
//! - k and n in [1, 65535], m ≥ 1 (the device refuses empty tensors).
//!
//! Numbers: each weight is dequantized in f32, `(w + offset) * scale`, and rounded to x's
//! dtype (the cube multiplies x's dtype); the product accumulates in f32 on the GEMM, the
//! bias is added in f32 and the sum rounded once to y: within k·2^-24 of the f64 product of
//! the rounded operands (relative to Σ|x·w|), plus half an ulp of y's dtype.
//!
//! Not implemented, refused with ACLNN_ERR_PARAM_INVALID naming them: FRACTAL_NZ
//! weights, UINT64/INT64 antiquantScale and INT32 antiquantOffset (the fixed-point
//! per-channel mode), and the output quantization (quantScaleOptional/quantOffsetOptional,
//! int8 y).

use super::dense::{bindings, load, store};
use crate::dtype::DType;
use crate::engine::convert;
use crate::error::Result;
use crate::executor::{Bindings, Executor, Work, Workspace};
use crate::ops::elementwise as ew;
use crate::ops::gemm::Mat;
use crate::ops::panel::{Layout, PanelProduct};
use crate::ops::weight_dot::{self, Int8Columns};
use crate::tensor::TensorDesc;

use DType::*;
pub(crate) const X: &[DType] = &[F16, BF16];
pub(crate) const WEIGHT: &[DType] = &[S8, S4, S32];
/// k and n are at most this on Atlas A2.
const MAX_KN: usize = 65535;

/// How antiquantScale applies.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Granularity {
    Tensor,
    Channel,
    /// One scale row per this many rows of weight.
    Group(usize),
}

/// aclnnWeightQuantBatchMatmulV2.
#[allow(clippy::too_many_arguments)]
pub fn weight_quant_batch_matmul_v2(
    x: &TensorDesc,
    bound_weight: &TensorDesc,
    antiquant_scale: &TensorDesc,
    antiquant_offset: Option<&TensorDesc>,
    quant_scale: Option<&TensorDesc>,
    quant_offset: Option<&TensorDesc>,
    bias: Option<&TensorDesc>,
    antiquant_group_size: i64,
    y: &TensorDesc,
) -> Result<Executor> {
    ew::check_tensor("x", x, X)?;
    let weight = bound_weight;
    crate::ensure!(
        weight.format != crate::format::Format::FRACTAL_NZ,
        "weight in ACL_FORMAT_FRACTAL_NZ is not implemented by aclnn-cpu for aclnnWeightQuantBatchMatmulV2"
    );
    ew::check_tensor("weight", weight, WEIGHT)?;
    crate::ensure!(
        weight.rank() == 2,
        "weight {:?} must have 2 dims",
        weight.shape
    );
    // The weight as the (k, n) matrix of int8 or int4 values it holds.
    let logical = match weight.dtype {
        S32 => super::int4::unpacked_view(weight)?,
        _ => weight.clone(),
    };
    if weight.dtype == S4 {
        check_inner_even(weight)?;
    }
    let weight = &logical;
    crate::ensure!(
        !matches!(antiquant_scale.dtype, U64 | S64),
        "antiquantScale of dtype {} (the fixed-point per-channel mode) is not implemented by aclnn-cpu",
        antiquant_scale.dtype
    );
    crate::ensure!(
        antiquant_scale.dtype == x.dtype,
        "antiquantScale has dtype {} but x has {}: they must be the same",
        antiquant_scale.dtype,
        x.dtype
    );
    if let Some(o) = antiquant_offset {
        crate::ensure!(
            o.dtype != S32,
            "antiquantOffset of dtype ACL_INT32 (the fixed-point per-channel mode) is not implemented by aclnn-cpu"
        );
        crate::ensure!(
            o.dtype == x.dtype,
            "antiquantOffset has dtype {} but x has {}: they must be the same",
            o.dtype,
            x.dtype
        );
    }
    crate::ensure!(
        quant_offset.is_none() || quant_scale.is_some(),
        "quantOffsetOptional is given but quantScaleOptional is NULL"
    );
    crate::ensure!(
        quant_scale.is_none(),
        "the output quantization (quantScaleOptional, an ACL_INT8 y) is not implemented by aclnn-cpu"
    );
    if let Some(b) = bias {
        let want = if x.dtype == BF16 { F32 } else { F16 };
        crate::ensure!(
            b.dtype == want,
            "biasOptional has dtype {} but with x of dtype {} it must be {want}",
            b.dtype,
            x.dtype
        );
    }
    ew::check_tensor("y", y, X)?;
    crate::ensure!(
        y.dtype == x.dtype,
        "y has dtype {} but x has {}: they must be the same",
        y.dtype,
        x.dtype
    );
    crate::ensure!(
        x.rank() == 2 && weight.rank() == 2 && y.rank() == 2,
        "x {:?}, weight {:?} and y {:?} must have 2 dims",
        x.shape,
        weight.shape,
        y.shape
    );
    let (m, k, n) = (x.shape[0], x.shape[1], weight.shape[1]);
    crate::ensure!(
        weight.shape[0] == k,
        "x of shape {:?} and weight of shape {:?} differ in the reduce dim k",
        x.shape,
        weight.shape
    );
    crate::ensure!(
        (1..=MAX_KN).contains(&k) && (1..=MAX_KN).contains(&n) && m >= 1,
        "m = {m}, k = {k}, n = {n}: k and n must be in [1, {MAX_KN}] and m at least 1 (empty tensors are not supported)"
    );
    ew::check_result_shape("y", y, &[m, n])?;
    let g = antiquant_group_size;
    crate::ensure!(
        g == 0 || (g >= 32 && g % 32 == 0 && (g as usize) < k),
        "antiquantGroupSize {g} must be 0 or a multiple of 32 in [32, k-1] (k = {k})"
    );
    let s = &antiquant_scale.shape[..];
    let granularity = if g > 0 {
        let groups = k.div_ceil(g as usize);
        crate::ensure!(
            s == [groups, n],
            "antiquantScale has shape {s:?}; with antiquantGroupSize {g} it must be [{groups}, {n}] (⌈k/G⌉, n)"
        );
        Granularity::Group(g as usize)
    } else if s == [1] || s == [1, 1] {
        Granularity::Tensor
    } else if s == [n] || s == [1, n] {
        Granularity::Channel
    } else {
        crate::bail!(
            "antiquantScale has shape {s:?}; it must be (1,) or (1, 1) per tensor, ({n},) or (1, {n}) per channel, or (⌈k/G⌉, {n}) with antiquantGroupSize G"
        )
    };
    if let Some(o) = antiquant_offset {
        crate::ensure!(
            o.shape[..] == *s,
            "antiquantOffset has shape {:?} but antiquantScale has {s:?}: they must be the same",
            o.shape
        );
    }
    if let Some(b) = bias {
        crate::ensure!(
            b.shape[..] == [n] || b.shape[..] == [1, n],
            "biasOptional has shape {:?}; it must be ({n},) or (1, {n})",
            b.shape
        );
    }
    let bd = bindings(
        &[
            Some(x),
            Some(bound_weight),
            Some(antiquant_scale),
            antiquant_offset,
            quant_scale,
            quant_offset,
            bias,
        ],
        &[Some(y)],
    );
    Ok(Executor::new(
        "aclnnWeightQuantBatchMatmulV2",
        bd,
        Wqbmm {
            m,
            k,
            n,
            granularity,
            scale_shape: s.to_vec(),
            compute: x.dtype,
            weight: logical.clone(),
            has_offset: antiquant_offset.is_some(),
            bias: bias.map(|b| b.shape.to_vec()),
        },
    ))
}

struct Wqbmm {
    m: usize,
    k: usize,
    n: usize,
    granularity: Granularity,
    scale_shape: Vec<usize>,
    /// x's dtype: the dequantized weights are rounded to it.
    compute: DType,
    /// The weight's geometry as int8 or int4 elements (an INT32 weight re-expressed).
    weight: TensorDesc,
    has_offset: bool,
    bias: Option<Vec<usize>>,
}

/// Binding indexes (the prototype's order).
const XB: usize = 0;
const WB: usize = 1;
const SCALE: usize = 2;
const OFFSET: usize = 3;
const BIAS: usize = 6;
const YB: usize = 7;

impl Wqbmm {
    /// The scale (or offset) element row `i`, column `j` of weight uses.
    fn param_index(&self, i: usize, j: usize) -> usize {
        match self.granularity {
            Granularity::Tensor => 0,
            Granularity::Channel => j,
            Granularity::Group(g) => (i / g) * self.n + j,
        }
    }
}

impl Work for Wqbmm {
    fn workspace_size(&self) -> u64 {
        0
    }
    fn accepts_int4(&self) -> bool {
        true
    }
    fn run(&self, t: &Bindings, _: Workspace) -> Result<()> {
        let (m, k, n) = (self.m, self.k, self.n);
        let x = load::<f32>(t, XB, &[m, k])?;
        let scale = load::<f32>(t, SCALE, &self.scale_shape)?;
        let offset = if self.has_offset {
            Some(load::<f32>(t, OFFSET, &self.scale_shape)?)
        } else {
            None
        };
        let weight = WeightRuns {
            base: t.addr(WB)?,
            dtype: self.weight.dtype,
            offset: self.weight.offset as isize,
        };
        let (rs, cs) = (self.weight.strides[0], self.weight.strides[1]);
        let layout = Layout::for_strides(rs, cs);
        // Rows of weight sharing one scale (and offset) row.
        let rows_per_param = match self.granularity {
            Granularity::Group(g) => g,
            _ => k,
        };
        let param = |g: usize, j: usize| self.param_index(g * rows_per_param, j);
        let dequantize = |v: &mut f32, i: usize| {
            let shifted = offset.as_ref().map_or(*v, |o| *v + o[i]);
            *v = shifted * scale[i];
        };
        // Contiguous int8 or int4 columns and f16 x (ggml's Q8_0 and Q4_0): one pass
        // dequantizes and rounds (int4 unpacked to int8 first).
        let fused = rs == 1 && self.compute == F16 && layout == Layout::Columns;
        // A panel of weight's columns j0.., dequantized and rounded to x's dtype.
        let fill = |j0: usize, wb: usize, buf: &mut [f32]| {
            if fused {
                let mut unpacked = Vec::new();
                let groups = k.div_ceil(rows_per_param);
                let (mut shifts, mut scales) = (vec![0f32; groups], vec![0f32; groups]);
                for (c, col) in buf.chunks_exact_mut(k).enumerate() {
                    let j = j0 + c;
                    let column = match weight.dtype {
                        S4 => {
                            unpacked.resize(k, 0);
                            weight.unpack_int4(j as isize * cs, &mut unpacked);
                            &unpacked[..]
                        }
                        _ => weight.int8_run(j as isize * cs, k),
                    };
                    for g in 0..groups {
                        let i = param(g, j);
                        shifts[g] = offset.as_ref().map_or(0.0, |o| o[i]);
                        scales[g] = scale[i];
                    }
                    dequantize_i8_to_f16(column, rows_per_param, &shifts, &scales, col);
                }
                return;
            }
            match layout {
                Layout::Columns => {
                    for (c, col) in buf.chunks_exact_mut(k).enumerate() {
                        let j = j0 + c;
                        weight.read(j as isize * cs, rs, col);
                        for (g, run) in col.chunks_mut(rows_per_param).enumerate() {
                            let i = param(g, j);
                            run.iter_mut().for_each(|v| dequantize(v, i));
                        }
                    }
                }
                Layout::Rows => {
                    for (p, row) in buf.chunks_exact_mut(wb).enumerate() {
                        weight.read(p as isize * rs + j0 as isize * cs, cs, row);
                        let g = p / rows_per_param;
                        for (c, v) in row.iter_mut().enumerate() {
                            dequantize(v, param(g, j0 + c));
                        }
                    }
                }
            }
            round_all(self.compute, buf);
        };
        // The fused int8 case straight from the weight for small m (the same bits):
        // each call gathers its columns' group shifts and scales.
        let groups = k.div_ceil(rows_per_param);
        let int8 = Int8Columns {
            // The view's first element (read only when the weight is int8).
            base: weight.base.wrapping_add_signed(weight.offset),
            col_stride: cs,
            group: rows_per_param,
        };
        let direct = |xr: &[f32], j0: usize, sums: &mut [f32]| {
            let mut shifts = vec![0f32; sums.len() * groups];
            let mut scales = vec![0f32; sums.len() * groups];
            // Element (g, j) of the scale (offset) at g·gs + j·js: no division a column,
            // and the groups of neighbouring columns read together.
            let (gs, js) = match self.granularity {
                Granularity::Tensor => (0, 0),
                Granularity::Channel => (0, 1),
                Granularity::Group(_) => (n, 1),
            };
            for g in 0..groups {
                for c in 0..sums.len() {
                    let i = g * gs + (j0 + c) * js;
                    shifts[c * groups + g] = offset.as_ref().map_or(0.0, |o| o[i]);
                    scales[c * groups + g] = scale[i];
                }
            }
            // SAFETY: the kernels run (checked below); the columns lie in the weight's
            // view.
            unsafe { weight_dot::int8_columns(int8, xr, j0, &shifts, &scales, sums) }
        };
        let direct: Option<&crate::ops::panel::Direct> = (fused
            && weight.dtype == S8
            && (rows_per_param % 8 == 0 || rows_per_param >= k)
            && weight_dot::available())
        .then_some(&direct);
        let mut y = vec![0f32; m * n];
        let product = PanelProduct {
            m,
            n,
            k,
            lhs: Mat {
                ptr: x.as_ptr(),
                rs: k as isize,
                cs: 1,
            },
            dst: Mat {
                ptr: y.as_mut_ptr(),
                rs: n as isize,
                cs: 1,
            },
            scale: None,
            alpha: 1.0,
            layout,
            fill: &fill,
            direct,
        };
        // SAFETY: x and y are the buffers above; the weight runs lie in its view, which
        // phase 2 checked against its device memory.
        unsafe { product.run() };
        if let Some(shape) = &self.bias {
            let b = load::<f32>(t, BIAS, shape)?;
            for row in y.chunks_mut(n) {
                for (v, b) in row.iter_mut().zip(&b) {
                    *v += b;
                }
            }
        }
        store(t, YB, &y)
    }
}

/// Runs of a bound int8 or int4 weight's elements (int4: element e is nibble e % 2 of
/// byte e / 2, the low one first), read as f32.
struct WeightRuns {
    base: usize,
    dtype: DType,
    /// The view's first element.
    offset: isize,
}

impl WeightRuns {
    /// `out.len()` contiguous int4 elements from element `start` (past the view's
    /// offset), as int8 values.
    fn unpack_int4(&self, start: isize, out: &mut [i8]) {
        debug_assert_eq!(self.dtype, S4);
        let first = (self.offset + start) as usize;
        let bytes = self.base as *const u8;
        let (head, rest) = out.split_at_mut((first % 2).min(out.len()));
        if let Some(v) = head.first_mut() {
            // SAFETY: the high nibble of the run's first byte, an element of the view.
            *v = unsafe { *bytes.add(first / 2) } as i8 >> 4;
        }
        let at = first.div_ceil(2);
        let (pairs, odd) = rest.split_at_mut(rest.len() & !1);
        for (i, two) in pairs.chunks_exact_mut(2).enumerate() {
            // SAFETY: both nibbles are elements of the run.
            let byte = unsafe { *bytes.add(at + i) } as i8;
            two[0] = (byte << 4) >> 4;
            two[1] = byte >> 4;
        }
        if let Some(v) = odd.first_mut() {
            // SAFETY: the low nibble of the run's last byte.
            *v = (unsafe { *bytes.add(at + pairs.len() / 2) } as i8) << 4 >> 4;
        }
    }

    /// `len` contiguous int8 elements from element `start` (past the view's offset).
    fn int8_run(&self, start: isize, len: usize) -> &[i8] {
        debug_assert_eq!(self.dtype, S8);
        // SAFETY: a run of int8 elements of the weight's view (see `Wqbmm::run`), which
        // outlives the product.
        unsafe {
            std::slice::from_raw_parts((self.base as *const i8).offset(self.offset + start), len)
        }
    }

    /// `out.len()` elements from element `start` (past the view's offset), `stride` apart.
    fn read(&self, start: isize, stride: isize, out: &mut [f32]) {
        let first = self.offset + start;
        match self.dtype {
            S4 if stride == 1 => {
                // Unpacked through a stack buffer: no allocation on this per-row path.
                let mut values = [0i8; 256];
                for (c, chunk) in out.chunks_mut(values.len()).enumerate() {
                    let v = &mut values[..chunk.len()];
                    self.unpack_int4(start + (c * 256) as isize, v);
                    chunk
                        .iter_mut()
                        .zip(v.iter())
                        .for_each(|(o, &w)| *o = w as f32);
                }
            }
            S4 => {
                let bytes = self.base as *const u8;
                for (i, v) in out.iter_mut().enumerate() {
                    let e = (first + i as isize * stride) as usize;
                    // SAFETY: e is an element of the weight's view (see `run`).
                    let byte = unsafe { *bytes.add(e / 2) };
                    let nibble = if e % 2 == 1 { byte >> 4 } else { byte & 0x0f };
                    *v = (((nibble << 4) as i8) >> 4) as f32;
                }
            }
            _ if stride == 1 => {
                // SAFETY: as below, a contiguous run of int8 elements of the view.
                let run = unsafe {
                    std::slice::from_raw_parts((self.base as *const i8).offset(first), out.len())
                };
                out.iter_mut().zip(run).for_each(|(v, &w)| *v = w as f32);
            }
            _ => {
                let values = self.base as *const i8;
                for (i, v) in out.iter_mut().enumerate() {
                    // SAFETY: as above, an int8 element of the view.
                    *v = unsafe { *values.offset(first + i as isize * stride) } as f32;
                }
            }
        }
    }
}

/// `out[i] = f16((w[i] + shift[g]) * scale[g])` widened back to f32, g = i / group: the
/// dequantization of an int8 run whose every `group` elements share a scale and offset,
/// in one pass (with AVX2 and F16C: eight values an instruction, while the groups are
/// multiples of 8; the products and sums are the same f32 operations, and the rounding
/// the same IEEE conversion, as the general path's).
fn dequantize_i8_to_f16(w: &[i8], group: usize, shift: &[f32], scale: &[f32], out: &mut [f32]) {
    debug_assert!(w.len() == out.len() && shift.len() == w.len().div_ceil(group));
    let scalar = |i: usize, v: i8| {
        let g = i / group;
        half::f16::from_f32((v as f32 + shift[g]) * scale[g]).to_f32()
    };
    #[cfg(target_arch = "x86_64")]
    {
        #[target_feature(enable = "avx2,f16c")]
        unsafe fn fast(w: &[i8], group: usize, shift: &[f32], scale: &[f32], out: &mut [f32]) {
            use std::arch::x86_64::*;
            let n = w.len() / 8 * 8;
            for (g, start) in (0..n).step_by(group).enumerate() {
                let (sh, sc) = (_mm256_set1_ps(shift[g]), _mm256_set1_ps(scale[g]));
                for i in (start..(start + group).min(n)).step_by(8) {
                    // SAFETY: i + 8 <= n <= both lengths.
                    unsafe {
                        let bytes = _mm_loadl_epi64(w.as_ptr().add(i) as *const __m128i);
                        let v = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(bytes));
                        let d = _mm256_mul_ps(_mm256_add_ps(v, sh), sc);
                        let h = _mm256_cvtps_ph::<_MM_FROUND_TO_NEAREST_INT>(d);
                        _mm256_storeu_ps(out.as_mut_ptr().add(i), _mm256_cvtph_ps(h));
                    }
                }
            }
        }
        if group % 8 == 0
            && std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("f16c")
        {
            // SAFETY: the CPU has the features the function is compiled for.
            unsafe { fast(w, group, shift, scale, out) };
            let n = w.len() / 8 * 8;
            for i in n..w.len() {
                out[i] = scalar(i, w[i]);
            }
            return;
        }
    }
    for (i, (o, &v)) in out.iter_mut().zip(w).enumerate() {
        *o = scalar(i, v);
    }
}

/// Every value rounded to `d` (f16 or bf16) and widened back, by the library's conversions.
fn round_all(d: DType, values: &mut [f32]) {
    let mut narrow = [0u16; 512];
    for chunk in values.chunks_mut(narrow.len()) {
        let n = chunk.len();
        // SAFETY: both buffers hold n contiguous elements of their dtype.
        unsafe {
            convert::run(
                chunk.as_ptr() as *const u8,
                F32,
                1,
                narrow.as_mut_ptr() as *mut u8,
                d,
                1,
                n,
            );
            convert::run(
                narrow.as_ptr() as *const u8,
                d,
                1,
                chunk.as_mut_ptr() as *mut u8,
                F32,
                1,
                n,
            );
        }
    }
}

/// CANN's rule for an ACL_INT4 weight: its inner axis — the dim its storage runs along,
/// stride 1 — has an even length, so no byte holds the end of one line and the start of
/// the next.
fn check_inner_even(w: &TensorDesc) -> Result<()> {
    let inner = super::int4::inner_dim(w);
    crate::ensure!(
        w.shape[inner] % 2 == 0,
        "weight of dtype ACL_INT4 ({}): its inner axis (dim {inner}, of length {}) must be even",
        w.describe(),
        w.shape[inner]
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The one-pass int8 dequantization gives the general path's bits: the same f32 sum
    /// and product, rounded by the library's f16 conversion, over every int8 value, odd
    /// lengths (the scalar tail), and scales that make f16 subnormals, ties and overflow.
    #[test]
    fn fused_int8_dequantization_is_the_general_paths_bits() {
        let w: Vec<i8> = (0..=255u8).map(|b| b as i8).chain([3, -7, 1]).collect();
        for &(shift, scale) in &[
            (0.0f32, 1.0f32),
            (0.0, 0.0078125),
            (0.5, 1.0 / 3.0),
            (-1.25, 1e-7),
            (0.0, 6.1e-5),
            (2.0, 600.0),
            (0.0, -0.1),
            (0.0, f32::NAN),
        ] {
            for len in [w.len(), 13, 8, 1] {
                let mut fused = vec![0f32; len];
                dequantize_i8_to_f16(&w[..len], len.max(1), &[shift], &[scale], &mut fused);
                let mut general: Vec<f32> = w[..len]
                    .iter()
                    .map(|&v| (v as f32 + shift) * scale)
                    .collect();
                round_all(F16, &mut general);
                for (i, (a, b)) in fused.iter().zip(&general).enumerate() {
                    assert!(
                        a.to_bits() == b.to_bits() || a.is_nan() && b.is_nan(),
                        "w {} shift {shift} scale {scale}: fused {a} general {b}",
                        w[i]
                    );
                }
            }
        }
    }

    /// Grouped scales: each group of 32 (and the scalar tail) uses its own scale and shift.
    #[test]
    fn fused_int8_dequantization_uses_each_groups_scale() {
        let w: Vec<i8> = (0..259).map(|i| ((i * 89 + 7) % 256) as u8 as i8).collect();
        let groups = w.len().div_ceil(32);
        let shifts: Vec<f32> = (0..groups).map(|g| g as f32 * 0.25 - 1.0).collect();
        let scales: Vec<f32> = (0..groups)
            .map(|g| 0.001 * (g as f32 + 1.0).powi(3))
            .collect();
        let mut fused = vec![0f32; w.len()];
        dequantize_i8_to_f16(&w, 32, &shifts, &scales, &mut fused);
        let mut general: Vec<f32> = w
            .iter()
            .enumerate()
            .map(|(i, &v)| (v as f32 + shifts[i / 32]) * scales[i / 32])
            .collect();
        round_all(F16, &mut general);
        assert!(fused
            .iter()
            .zip(&general)
            .all(|(a, b)| a.to_bits() == b.to_bits()));
    }

    /// Unpacking an int4 run gives each element's nibble (low first, sign-extended) for
    /// every start parity and length.
    #[test]
    fn int4_runs_unpack_nibble_by_nibble() {
        let bytes: Vec<u8> = (0..512u32).map(|i| (i * 37 + 11) as u8).collect();
        let nibble = |e: usize| {
            let b = bytes[e / 2];
            (((if e % 2 == 1 { b >> 4 } else { b & 15 }) << 4) as i8) >> 4
        };
        for offset in [0isize, 1, 2, 5] {
            let runs = WeightRuns {
                base: bytes.as_ptr() as usize,
                dtype: S4,
                offset,
            };
            for start in 0..4isize {
                for len in [0usize, 1, 2, 7, 30, 600] {
                    let mut got = vec![0i8; len];
                    runs.unpack_int4(start, &mut got);
                    let first = (offset + start) as usize;
                    let want: Vec<i8> = (first..first + len).map(nibble).collect();
                    assert_eq!(got, want, "offset {offset} start {start} len {len}");
                    let mut wide = vec![0f32; len];
                    runs.read(start, 1, &mut wide);
                    assert!(wide.iter().zip(&want).all(|(a, &b)| *a == b as f32));
                }
            }
        }
    }

    /// The direct int8 kernel gives the bits of the fused dequantization followed by the
    /// panel's dot, for per-channel (group = k) and grouped (8, 32) scales, k with and
    /// without a 16-element tail, and 1 to 9 columns.
    #[test]
    fn direct_int8_dots_are_the_panel_paths_bits() {
        use crate::ops::panel::kernels::dot;
        if !weight_dot::available() {
            return;
        }
        for &k in &[8usize, 24, 32, 100, 1024] {
            for group in [k, 8, 32] {
                if group % 8 != 0 && group < k {
                    continue;
                }
                let groups = k.div_ceil(group);
                for cols in 1..=9usize {
                    let n = cols + 1; // columns 1 .. 1 + cols
                    let w: Vec<i8> = (0..n * k)
                        .map(|i| ((i * 89 + 7) % 256) as u8 as i8)
                        .collect();
                    let x: Vec<f32> = (0..k).map(|p| (p as f32 * 0.37).sin() * 3.0).collect();
                    let param = |c: usize, g: usize| {
                        let e = (c * 31 + g * 7) as f32;
                        ((e % 5.0) * 0.5 - 1.0, 0.001 * (e % 13.0 + 1.0))
                    };
                    let mut shifts = vec![0f32; cols * groups];
                    let mut scales = vec![0f32; cols * groups];
                    for c in 0..cols {
                        for g in 0..groups {
                            (shifts[c * groups + g], scales[c * groups + g]) = param(1 + c, g);
                        }
                    }
                    let int8 = Int8Columns {
                        base: w.as_ptr() as usize,
                        col_stride: k as isize,
                        group,
                    };
                    let mut sums = vec![0f32; cols];
                    // SAFETY: w holds every column.
                    unsafe { weight_dot::int8_columns(int8, &x, 1, &shifts, &scales, &mut sums) };
                    for (c, s) in sums.iter().enumerate() {
                        let j = 1 + c;
                        let (sh, sc): (Vec<f32>, Vec<f32>) =
                            (0..groups).map(|g| param(j, g)).unzip();
                        let mut col = vec![0f32; k];
                        dequantize_i8_to_f16(&w[j * k..(j + 1) * k], group, &sh, &sc, &mut col);
                        let want = dot(&x, &col);
                        assert_eq!(
                            s.to_bits(),
                            want.to_bits(),
                            "k {k} group {group} cols {cols} col {c}"
                        );
                    }
                }
            }
        }
    }
}

/// aclnnWeightQuantBatchMatmulV3: V2 with innerPrecise, 0 (high precision) or 1 (high
/// performance). CANN's high-performance path only differs for A16W4 per-group FRACTAL_NZ
/// weights, which aclnn-cpu refuses; with ND weights both values compute as V2 does.
#[allow(clippy::too_many_arguments)]
pub fn weight_quant_batch_matmul_v3(
    x: &TensorDesc,
    weight: &TensorDesc,
    antiquant_scale: &TensorDesc,
    antiquant_offset: Option<&TensorDesc>,
    quant_scale: Option<&TensorDesc>,
    quant_offset: Option<&TensorDesc>,
    bias: Option<&TensorDesc>,
    antiquant_group_size: i64,
    inner_precise: i64,
    y: &TensorDesc,
) -> Result<Executor> {
    crate::ensure!(
        inner_precise == 0 || inner_precise == 1,
        "innerPrecise is {inner_precise}; it must be 0 (high precision) or 1 (high performance)"
    );
    crate::ensure!(
        weight.format != crate::format::Format::FRACTAL_NZ,
        "weight in ACL_FORMAT_FRACTAL_NZ is not implemented by aclnn-cpu for aclnnWeightQuantBatchMatmulV3"
    );
    let mut e = weight_quant_batch_matmul_v2(
        x,
        weight,
        antiquant_scale,
        antiquant_offset,
        quant_scale,
        quant_offset,
        bias,
        antiquant_group_size,
        y,
    )?;
    e.api = "aclnnWeightQuantBatchMatmulV3";
    Ok(e)
}
