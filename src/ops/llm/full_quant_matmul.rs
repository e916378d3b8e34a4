//! QuantMatmulV3 / V4 (hicann/ops-nn aclnnQuantMatmulV4.md), the fully quantized product:
//! both operands are integers and the result is dequantized per output channel (and, V4,
//! per token):
//! - x1 (m, k) — (k, m) with transposeX1 — and x2 (k, n) — (n, k) with transposeX2 —
//!   INT8, ACL_INT4, or INT32 carrying eight int4 along the inner dim (then transposeX1 is
//!   false); any strides;
//! - `acc = x1 @ x2` exact in int32 (wrapping, as the cube's int32 accumulator), plus an
//!   INT32 bias; then in f32 `acc·scale[j] (·pertoken[i]) (+ float bias) (+ offset)`,
//!   rounded once to out (f16/bf16 to nearest even; int8 half to even, saturated);
//! - scale (1,) or (n,): FLOAT32/BFLOAT16, or UINT64/INT64 as aclnnTransQuantParam(V2)
//!   writes it (the f32 scale's bits masked by 0xFFFFE000 in bits 0-31, a 9-bit offset in
//!   bits 37-45 that an INT8 out adds when no offset tensor is given, bit 46 set);
//! - offset (1,) or (n,) FLOAT32, only with an INT8 out; pertokenScaleOptional (m,)
//!   FLOAT32; bias (n,) INT32, or FLOAT32/BFLOAT16 (bf16 out) / FLOAT32/FLOAT16 (f16 out
//!   with a pertoken scale);
//! - the dtype combinations of Atlas A2's table.
//!
//! Refused with ACLNN_ERR_PARAM_INVALID naming them: batched operands (more than 2 dims,
//! not implemented), FRACTAL_NZ x2, an INT32 out (not implemented), empty tensors (the
//! device refuses them).

use super::dense::{bindings, load_view, store};
use super::int4;
use crate::dtype::DType::{self, *};
use crate::error::Result;
use crate::executor::{Bindings, Executor, Work, Workspace};
use crate::ops::elementwise as ew;
use crate::tensor::TensorDesc;

pub(crate) const OPERANDS: &[DType] = &[S8, S4, S32];
pub(crate) const SCALES: &[DType] = &[U64, S64, F32, BF16];
pub(crate) const OUTS: &[DType] = &[F16, BF16, S8];
const BIASES: &[DType] = &[S32, F32, F16, BF16];

/// aclnnQuantMatmulV3: QuantMatmulV4 without a per-token scale.
#[allow(clippy::too_many_arguments)]
pub fn quant_matmul_v3(
    x1: &TensorDesc,
    x2: &TensorDesc,
    scale: &TensorDesc,
    offset: Option<&TensorDesc>,
    bias: Option<&TensorDesc>,
    transpose_x1: bool,
    transpose_x2: bool,
    out: &TensorDesc,
) -> Result<Executor> {
    rule(
        "aclnnQuantMatmulV3",
        x1,
        x2,
        scale,
        offset,
        None,
        bias,
        transpose_x1,
        transpose_x2,
        out,
    )
}

/// aclnnQuantMatmulV4.
#[allow(clippy::too_many_arguments)]
pub fn quant_matmul_v4(
    x1: &TensorDesc,
    x2: &TensorDesc,
    scale: &TensorDesc,
    offset: Option<&TensorDesc>,
    pertoken: Option<&TensorDesc>,
    bias: Option<&TensorDesc>,
    transpose_x1: bool,
    transpose_x2: bool,
    out: &TensorDesc,
) -> Result<Executor> {
    rule(
        "aclnnQuantMatmulV4",
        x1,
        x2,
        scale,
        offset,
        pertoken,
        bias,
        transpose_x1,
        transpose_x2,
        out,
    )
}

/// An operand as the int8/int4 matrix it holds (an INT32 one re-expressed).
fn operand(name: &str, t: &TensorDesc) -> Result<TensorDesc> {
    ew::check_tensor(name, t, OPERANDS)?;
    crate::ensure!(
        t.rank() == 2,
        "{name} has {} dims: batched operands (3 to 6 dims) are not implemented by aclnn-cpu; it must have 2",
        t.rank()
    );
    let g = if t.dtype == S32 {
        int4::unpacked_view(t)?
    } else {
        t.clone()
    };
    if t.dtype == S4 {
        let inner = int4::inner_dim(t);
        crate::ensure!(
            t.shape[inner] % 2 == 0,
            "{name} is ACL_INT4: its inner dim ({}) must be even",
            t.shape[inner]
        );
    }
    Ok(g)
}

#[allow(clippy::too_many_arguments)]
fn rule(
    api: &'static str,
    x1: &TensorDesc,
    x2: &TensorDesc,
    scale: &TensorDesc,
    offset: Option<&TensorDesc>,
    pertoken: Option<&TensorDesc>,
    bias: Option<&TensorDesc>,
    transpose_x1: bool,
    transpose_x2: bool,
    out: &TensorDesc,
) -> Result<Executor> {
    crate::ensure!(
        x2.format != crate::format::Format::FRACTAL_NZ,
        "x2 in ACL_FORMAT_FRACTAL_NZ is not implemented by aclnn-cpu for {api}"
    );
    let g1 = operand("x1", x1)?;
    let g2 = operand("x2", x2)?;
    let int4_a = x1.dtype != S8;
    crate::ensure!(
        int4_a == (x2.dtype != S8),
        "x1 is {} and x2 is {}: both must be INT8, or both int4 (ACL_INT4 or INT32)",
        x1.dtype,
        x2.dtype
    );
    crate::ensure!(
        !(int4_a && transpose_x1),
        "transposeX1 must be false with int4 operands"
    );
    ew::check_tensor("scale", scale, SCALES)?;
    ew::check_tensor("out", out, &[F16, BF16, S8, S32])?;
    crate::ensure!(
        out.dtype != S32,
        "out of dtype ACL_INT32 is not implemented by aclnn-cpu"
    );
    let (m, k) = if transpose_x1 {
        (g1.shape[1], g1.shape[0])
    } else {
        (g1.shape[0], g1.shape[1])
    };
    let (k2, n) = if transpose_x2 {
        (g2.shape[1], g2.shape[0])
    } else {
        (g2.shape[0], g2.shape[1])
    };
    crate::ensure!(
        k == k2,
        "x1 {:?} (transposeX1 {transpose_x1}) and x2 {:?} (transposeX2 {transpose_x2}) differ in k: {k} and {k2}",
        g1.shape,
        g2.shape
    );
    crate::ensure!(
        m > 0 && k > 0 && n > 0,
        "m = {m}, k = {k}, n = {n}: empty tensors are not supported"
    );
    ew::check_result_shape("out", out, &[m, n])?;
    let fixed_point = matches!(scale.dtype, U64 | S64);
    crate::ensure!(
        scale.rank() == 1 && (scale.shape[0] == 1 || scale.shape[0] == n),
        "scale has shape {:?}; it must be (1,) or ({n},)",
        scale.shape
    );
    if let Some(o) = offset {
        ew::check_tensor("offset", o, &[F32])?;
        crate::ensure!(
            out.dtype == S8,
            "offset is given but out is {}: only an ACL_INT8 out takes an offset",
            out.dtype
        );
        crate::ensure!(
            o.rank() == 1 && (o.shape[0] == 1 || o.shape[0] == n),
            "offset has shape {:?}; it must be (1,) or ({n},)",
            o.shape
        );
    }
    if let Some(p) = pertoken {
        ew::check_tensor("pertokenScaleOptional", p, &[F32])?;
        crate::ensure!(
            p.shape[..] == [m],
            "pertokenScaleOptional has shape {:?}; it must be ({m},)",
            p.shape
        );
    }
    if let Some(b) = bias {
        ew::check_tensor("bias", b, BIASES)?;
        crate::ensure!(
            b.shape[..] == [n],
            "bias has shape {:?}; it must be ({n},) (the batched (batch, 1, n) form is not implemented)",
            b.shape
        );
    }
    // Atlas A2's dtype combinations.
    let bias_d = bias.map(|b| b.dtype);
    let ok = match (fixed_point, out.dtype) {
        (true, F16) => pertoken.is_none() && offset.is_none() && matches!(bias_d, None | Some(S32)),
        (true, S8) => !int4_a && pertoken.is_none() && matches!(bias_d, None | Some(S32)),
        (false, BF16) => offset.is_none() && matches!(bias_d, None | Some(S32 | BF16 | F32)),
        (false, F16) => {
            pertoken.is_some()
                && scale.dtype == F32
                && offset.is_none()
                && matches!(bias_d, None | Some(S32 | F16 | F32))
        }
        _ => false,
    };
    crate::ensure!(
        ok,
        "{api}: x1 {}, x2 {}, scale {}, offset {}, bias {}, pertokenScale {}, out {} is not one of Atlas A2's combinations",
        x1.dtype,
        x2.dtype,
        scale.dtype,
        offset.map_or("NULL".into(), |o| o.dtype.to_string()),
        bias_d.map_or("NULL".into(), |d| d.to_string()),
        pertoken.map_or("NULL".into(), |p| p.dtype.to_string()),
        out.dtype
    );
    let bd = bindings(
        &[Some(x1), Some(x2), Some(scale), offset, pertoken, bias],
        &[Some(out)],
    );
    Ok(Executor::new(
        api,
        bd,
        FullQuantMm {
            m,
            k,
            n,
            x1: g1,
            x2: g2,
            transpose_x1,
            transpose_x2,
            fixed_point,
        },
    ))
}

struct FullQuantMm {
    m: usize,
    k: usize,
    n: usize,
    x1: TensorDesc,
    x2: TensorDesc,
    transpose_x1: bool,
    transpose_x2: bool,
    fixed_point: bool,
}

const X1: usize = 0;
const X2: usize = 1;
const SCALE: usize = 2;
const OFFSET: usize = 3;
const PERTOKEN: usize = 4;
const BIAS: usize = 5;
const OUT: usize = 6;

/// The f32 scale and 9-bit offset a TransQuantParam word holds.
pub(crate) fn decode_quant_param(word: u64) -> (f32, f32) {
    let scale = f32::from_bits((word & 0xFFFF_E000) as u32);
    let off9 = ((word >> 37) & 0x1ff) as i32;
    let offset = if off9 >= 256 { off9 - 512 } else { off9 };
    (scale, offset as f32)
}

/// `op` of binding `b`'s 1-D view of length 1 or `n`, as `n` values.
fn per_channel<T: crate::element::Element + Copy>(
    t: &Bindings,
    b: usize,
    n: usize,
) -> Result<Vec<T>> {
    let v = t.view(b)?;
    let full = load_view::<T>(t, b, v, &[v.shape[0]])?;
    Ok((0..n)
        .map(|j| full[if full.len() == 1 { 0 } else { j }])
        .collect())
}

impl Work for FullQuantMm {
    fn workspace_size(&self) -> u64 {
        0
    }
    fn accepts_int4(&self) -> bool {
        true
    }
    fn run(&self, t: &Bindings, _: Workspace) -> Result<()> {
        let (m, k, n) = (self.m, self.k, self.n);
        // Both operands row-major with k innermost: a (m, k) and b (n, k).
        let transposed = |g: &TensorDesc| g.permuted(&[1, 0], g.format);
        let a_view = if self.transpose_x1 {
            transposed(&self.x1)
        } else {
            self.x1.clone()
        };
        let b_view = if self.transpose_x2 {
            self.x2.clone()
        } else {
            transposed(&self.x2)
        };
        let a = load_view::<i32>(t, X1, &a_view, &[m, k])?;
        let b = load_view::<i32>(t, X2, &b_view, &[n, k])?;
        let mut acc = vec![0i32; m * n];
        for i in 0..m {
            let ar = &a[i * k..(i + 1) * k];
            for j in 0..n {
                let br = &b[j * k..(j + 1) * k];
                acc[i * n + j] = ar
                    .iter()
                    .zip(br)
                    .fold(0i32, |s, (x, y)| s.wrapping_add(x.wrapping_mul(*y)));
            }
        }
        let (scale, packed_offset): (Vec<f32>, Vec<f32>) = if self.fixed_point {
            let words = per_channel::<i64>(t, SCALE, n)?;
            words.iter().map(|&w| decode_quant_param(w as u64)).unzip()
        } else {
            (per_channel::<f32>(t, SCALE, n)?, vec![0.0; n])
        };
        let offset = match t.tensors[OFFSET] {
            Some(_) => per_channel::<f32>(t, OFFSET, n)?,
            None => packed_offset,
        };
        let pertoken = match t.tensors[PERTOKEN] {
            Some(_) => Some(load_view::<f32>(t, PERTOKEN, t.view(PERTOKEN)?, &[m])?),
            None => None,
        };
        let (int_bias, float_bias) = match t.tensors[BIAS].as_ref() {
            Some(v) if v.dtype == S32 => (Some(per_channel::<i32>(t, BIAS, n)?), None),
            Some(_) => (None, Some(per_channel::<f32>(t, BIAS, n)?)),
            None => (None, None),
        };
        let out_d = t.view(OUT)?.dtype;
        let mut y = vec![0f32; m * n];
        for i in 0..m {
            for j in 0..n {
                let mut a = acc[i * n + j];
                if let Some(b) = &int_bias {
                    a = a.wrapping_add(b[j]);
                }
                let mut v = a as f32 * scale[j];
                if let Some(p) = &pertoken {
                    v *= p[i];
                }
                if let Some(b) = &float_bias {
                    v += b[j];
                }
                if out_d == S8 {
                    v = (v + offset[j]).round_ties_even();
                    v = if v.is_nan() {
                        0.0
                    } else {
                        v.clamp(-128.0, 127.0)
                    };
                }
                y[i * n + j] = v;
            }
        }
        store(t, OUT, &y)
    }
}
