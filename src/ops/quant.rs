//! Quantize and dequantize (hicann/ops-nn `quant/`): AscendQuant (V3), AscendAntiQuant,
//! DynamicQuant (V2). One rule shape for all: read the float (or integer) operand in f32,
//! apply scale and offset broadcast along one axis (or per row, computed), round, saturate
//! and write. Quantized outputs are INT8, ACL_INT4 (two a byte) or INT32 carrying eight
//! int4 (`llm::int4`).
//!
//! Numbers (all in f32, as Atlas A2's vector units compute them; f16/bf16 operands widen
//! exactly):
//! - AscendQuant: `y = R(x·scale + offset)` (sqrtMode: `x·scale·scale + offset`, left to
//!   right), R the roundMode — `round` half to even, `floor`, `ceil`, `trunc` — then
//!   saturated to the output's range ([-128, 127] or [-8, 7]; NaN gives 0). Exact: the
//!   f32 operations are IEEE, so the result is determined bit for bit.
//! - AscendAntiQuant: `y = (x + offset)·scale` (sqrtMode: `·scale` twice) in f32, rounded
//!   once to y (f16/bf16).
//! - DynamicQuant: per row (last dim) `in = x·smooth`; symmetric: `scale = max|in| / M`,
//!   `y = R(in / scale)` with M the output's maximum (127 or 7); asymmetric (V2 with
//!   offsetOut): `scale = (max − min) / (M − m)`, `offset = M − max / scale`,
//!   `y = R(in / scale + offset)`; R is half to even, then saturation. A row whose scale
//!   is 0 (all zeros; constant, in the asymmetric form) divides by 0: a NaN result
//!   converts to 0, as the device's casts convert it.
//!
//! Refused with ACLNN_ERR_PARAM_INVALID, by name: the FRACTAL_NZ forms, the roundMode
//! `hybrid` and the HIFLOAT8/FLOAT8 outputs (not on Atlas A2), DynamicQuantV2's
//! groupIndexOptional (per-expert smooth scales, not implemented).

use crate::dtype::DType::{self, *};
use crate::error::Result;
use crate::executor::{Bindings, Executor, Work, Workspace};
use crate::format::Format;
use crate::ops::elementwise as ew;
use crate::ops::llm::dense::{bindings, load_view, store};
use crate::ops::llm::int4;
use crate::tensor::TensorDesc;

pub(crate) const QUANT_X: &[DType] = &[F32, F16, BF16];
pub(crate) const QUANT_Y: &[DType] = &[S8, S32, S4];
pub(crate) const ANTI_X: &[DType] = &[S8, S32, S4];
pub(crate) const ANTI_SCALE: &[DType] = &[F32, BF16];
pub(crate) const ANTI_Y: &[DType] = &[F16, BF16];
pub(crate) const DYN_X: &[DType] = &[F16, BF16];
pub(crate) const F32_ONLY: &[DType] = &[F32];

/// How a real value becomes an integer (AscendQuant's roundMode).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Rounding {
    HalfEven,
    Floor,
    Ceil,
    Trunc,
}

impl Rounding {
    fn parse(mode: &str) -> Result<Rounding> {
        Ok(match mode {
            "round" => Rounding::HalfEven,
            "floor" => Rounding::Floor,
            "ceil" => Rounding::Ceil,
            "trunc" => Rounding::Trunc,
            "hybrid" => crate::bail!(
                "roundMode \"hybrid\" (HIFLOAT8 outputs) is not supported on Atlas A2; use round, floor, ceil or trunc"
            ),
            m => crate::bail!(
                "roundMode {m:?} is not one of \"round\", \"floor\", \"ceil\", \"trunc\""
            ),
        })
    }

    fn apply(self, v: f32) -> f32 {
        match self {
            Rounding::HalfEven => v.round_ties_even(),
            Rounding::Floor => v.floor(),
            Rounding::Ceil => v.ceil(),
            Rounding::Trunc => v.trunc(),
        }
    }
}

/// A quantized output: its dtype's range and the element view values are written through
/// (an INT32 output is the int4 view of its bytes).
#[derive(Clone, Debug)]
struct QuantOut {
    min: f32,
    max: f32,
    /// The output as int8 or int4 elements.
    geometry: TensorDesc,
}

impl QuantOut {
    /// Checks `y` against the float operand's shape `x` and builds its geometry.
    fn new(y: &TensorDesc, x: &[usize], name: &str) -> Result<QuantOut> {
        ew::check_tensor(name, y, QUANT_Y)?;
        crate::ensure!(
            y.format != Format::FRACTAL_NZ,
            "{name} in ACL_FORMAT_FRACTAL_NZ is not implemented by aclnn-cpu"
        );
        let last = x.last().copied().unwrap_or(1);
        let mut want = x.to_vec();
        match y.dtype {
            S32 => {
                crate::ensure!(
                    last % 8 == 0,
                    "{name} is ACL_INT32 (eight int4 an element): the last dim of x ({last}) must be a multiple of 8"
                );
                if let Some(l) = want.last_mut() {
                    *l /= 8;
                }
            }
            S4 => crate::ensure!(
                last % 2 == 0,
                "{name} is ACL_INT4: the last dim of x ({last}) must be even"
            ),
            _ => {}
        }
        ew::check_result_shape(name, y, &want)?;
        let geometry = if y.dtype == S32 {
            int4::unpacked_view(y)?
        } else {
            y.clone()
        };
        let (min, max) = if y.dtype == S8 {
            (-128.0, 127.0)
        } else {
            (-8.0, 7.0)
        };
        Ok(QuantOut { min, max, geometry })
    }

    /// Saturates rounded values into the output's range (NaN: 0) and writes them.
    fn write(&self, t: &Bindings, b: usize, values: &[f32]) -> Result<()> {
        let q: Vec<i8> = values
            .iter()
            .map(|&v| {
                if v.is_nan() {
                    0
                } else {
                    v.clamp(self.min, self.max) as i8
                }
            })
            .collect();
        if self.geometry.dtype == S8 {
            store(t, b, &q)
        } else {
            int4::store(t, b, &self.geometry, &q)
        }
    }
}

/// dstType (an aclDataType value) must name y's dtype, among `allowed`.
fn check_dst_type(dst: i64, y: &TensorDesc, allowed: &[DType]) -> Result<()> {
    let d = match dst {
        34..=36 => crate::bail!("dstType {dst} (HIFLOAT8/FLOAT8) is not supported on Atlas A2"),
        v => DType::from_raw_storage(v as i32)
            .ok()
            .filter(|d| allowed.contains(d) && v as i32 as i64 == v),
    };
    let Some(d) = d else {
        crate::bail!(
            "dstType {dst} is not one of {}",
            allowed
                .iter()
                .map(|d| format!("{} ({})", *d as i32, d))
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    crate::ensure!(
        y.dtype == d,
        "dstType {dst} names {d} but y has dtype {}",
        y.dtype
    );
    Ok(())
}

/// The view of a scale (or offset) that broadcasts it along `axis` of a rank-`rank`
/// operand: a 1-D tensor of length > 1 is laid along `axis`; any other shape broadcasts
/// as it is.
fn along_axis(v: &TensorDesc, axis: usize, rank: usize) -> TensorDesc {
    let mut g = v.clone();
    if v.rank() == 1 && v.shape[0] > 1 && axis + 1 < rank {
        for _ in axis + 1..rank {
            g.shape.push(1);
            g.strides.push(0);
        }
    }
    g
}

/// The shape checks of a scale applying along `axis` of `x`: 1-D of length x[axis] or 1,
/// or of x's rank with every dim 1 except `axis` (x[axis] or 1).
fn check_param_shape(name: &str, s: &TensorDesc, x: &[usize], axis: usize) -> Result<()> {
    let ok = if s.rank() == 1 {
        s.shape[0] == x[axis] || s.shape[0] == 1
    } else {
        s.rank() == x.len()
            && s.shape
                .iter()
                .enumerate()
                .all(|(d, &n)| n == 1 || (d == axis && n == x[axis]))
    };
    crate::ensure!(
        ok,
        "{name} has shape {:?}; for x of shape {x:?} and axis {axis} it must be ({},) or (1,), or have x's rank with every dim 1 but dim {axis} (of {} or 1)",
        s.shape,
        x[axis],
        x[axis]
    );
    Ok(())
}

/// aclnnAscendQuant: AscendQuantV3 along the last axis.
#[allow(clippy::too_many_arguments)]
pub fn ascend_quant(
    x: &TensorDesc,
    scale: &TensorDesc,
    offset: Option<&TensorDesc>,
    sqrt_mode: bool,
    round_mode: &str,
    dst_type: i64,
    y: &TensorDesc,
) -> Result<Executor> {
    quant_rule(
        "aclnnAscendQuant",
        x,
        scale,
        offset,
        sqrt_mode,
        round_mode,
        dst_type,
        -1,
        y,
    )
}

/// aclnnAscendQuantV3: `y = round(x·scale (·scale) + offset)` along `axis` (one of x's
/// last two dims).
#[allow(clippy::too_many_arguments)]
pub fn ascend_quant_v3(
    x: &TensorDesc,
    scale: &TensorDesc,
    offset: Option<&TensorDesc>,
    sqrt_mode: bool,
    round_mode: &str,
    dst_type: i64,
    axis: i64,
    y: &TensorDesc,
) -> Result<Executor> {
    quant_rule(
        "aclnnAscendQuantV3",
        x,
        scale,
        offset,
        sqrt_mode,
        round_mode,
        dst_type,
        axis,
        y,
    )
}

#[allow(clippy::too_many_arguments)]
fn quant_rule(
    api: &'static str,
    x: &TensorDesc,
    scale: &TensorDesc,
    offset: Option<&TensorDesc>,
    sqrt_mode: bool,
    round_mode: &str,
    dst_type: i64,
    axis: i64,
    y: &TensorDesc,
) -> Result<Executor> {
    ew::check_tensor("x", x, QUANT_X)?;
    for (name, t) in [("x", Some(x)), ("scale", Some(scale)), ("offset", offset)] {
        if let Some(t) = t {
            crate::ensure!(
                t.format != Format::FRACTAL_NZ,
                "{name} in ACL_FORMAT_FRACTAL_NZ is not implemented by aclnn-cpu"
            );
        }
    }
    ew::check_tensor("scale", scale, QUANT_X)?;
    crate::ensure!(
        x.dtype == F32 || scale.dtype == x.dtype,
        "scale has dtype {} but x has {}: unless x is ACL_FLOAT they must be the same",
        scale.dtype,
        x.dtype
    );
    if let Some(o) = offset {
        ew::check_tensor("offset", o, QUANT_X)?;
        crate::ensure!(
            o.dtype == scale.dtype && o.shape == scale.shape,
            "offset ({} {:?}) must have scale's dtype and shape ({} {:?})",
            o.dtype,
            o.shape,
            scale.dtype,
            scale.shape
        );
    }
    let rounding = Rounding::parse(round_mode)?;
    check_dst_type(dst_type, y, QUANT_Y)?;
    let r = x.rank();
    crate::ensure!((1..=8).contains(&r), "x has {r} dims; it must have 1 to 8");
    let lo = if r >= 2 { r as i64 - 2 } else { 0 };
    let a = if axis < 0 { axis + r as i64 } else { axis };
    crate::ensure!(
        (lo..r as i64).contains(&a),
        "axis {axis} must name one of x's last two dims ([-2, -1] or [{}, {}]) for x of {r} dims",
        r as i64 - 2,
        r as i64 - 1
    );
    let axis = a as usize;
    check_param_shape("scale", scale, &x.shape, axis)?;
    let out = QuantOut::new(y, &x.shape, "y")?;
    let bd = bindings(&[Some(x), Some(scale), offset], &[Some(y)]);
    Ok(Executor::new(
        api,
        bd,
        Quantize {
            shape: x.shape.to_vec(),
            scale: along_axis(scale, axis, r),
            offset: offset.map(|o| along_axis(o, axis, r)),
            sqrt_mode,
            rounding,
            out,
        },
    ))
}

struct Quantize {
    shape: Vec<usize>,
    /// scale and offset as views that broadcast to x.
    scale: TensorDesc,
    offset: Option<TensorDesc>,
    sqrt_mode: bool,
    rounding: Rounding,
    out: QuantOut,
}

impl Work for Quantize {
    fn workspace_size(&self) -> u64 {
        0
    }
    fn accepts_int4(&self) -> bool {
        true
    }
    fn run(&self, t: &Bindings, _: Workspace) -> Result<()> {
        let x = load_view::<f32>(t, 0, t.view(0)?, &self.shape)?;
        let s = load_view::<f32>(t, 1, &self.scale, &self.shape)?;
        let o = match &self.offset {
            Some(g) => Some(load_view::<f32>(t, 2, g, &self.shape)?),
            None => None,
        };
        let v: Vec<f32> = (0..x.len())
            .map(|i| {
                let mut p = x[i] * s[i];
                if self.sqrt_mode {
                    p *= s[i];
                }
                if let Some(o) = &o {
                    p += o[i];
                }
                self.rounding.apply(p)
            })
            .collect();
        self.out.write(t, 3, &v)
    }
}

/// aclnnAscendAntiQuant: `y = (x + offset)·scale (·scale)`, x INT8, ACL_INT4 or INT32
/// (eight int4), scale and offset 1-D along x's last dim (or of length 1), y f16/bf16.
pub fn ascend_anti_quant(
    x: &TensorDesc,
    scale: &TensorDesc,
    offset: Option<&TensorDesc>,
    dst_type: i64,
    sqrt_mode: bool,
    y: &TensorDesc,
) -> Result<Executor> {
    ew::check_tensor("x", x, ANTI_X)?;
    ew::check_tensor("scale", scale, ANTI_SCALE)?;
    if let Some(o) = offset {
        ew::check_tensor("offset", o, ANTI_SCALE)?;
        crate::ensure!(
            o.dtype == scale.dtype && o.shape == scale.shape,
            "offset ({} {:?}) must have scale's dtype and shape ({} {:?})",
            o.dtype,
            o.shape,
            scale.dtype,
            scale.shape
        );
    }
    check_dst_type(dst_type, y, ANTI_Y)?;
    ew::check_tensor("y", y, ANTI_Y)?;
    crate::ensure!(x.rank() <= 8, "x has {} dims; at most 8", x.rank());
    let geometry = match x.dtype {
        S32 => int4::unpacked_view(x)?,
        _ => x.clone(),
    };
    if x.dtype == S4 {
        let last = x.shape.last().copied().unwrap_or(1);
        crate::ensure!(
            last % 2 == 0,
            "x is ACL_INT4: its last dim ({last}) must be even"
        );
        crate::ensure!(
            x.strides[..] == crate::tensor::contiguous_strides(&x.shape)[..],
            "x is ACL_INT4 and not contiguous ({}): ACL_INT4 x must be contiguous",
            x.describe()
        );
    }
    let shape = geometry.shape.to_vec();
    let last = shape.last().copied().unwrap_or(1);
    crate::ensure!(
        scale.rank() == 1 && (scale.shape[0] == last || scale.shape[0] == 1),
        "scale has shape {:?}; it must be 1-D of length {last} (x's last dim, in int4 values) or 1",
        scale.shape
    );
    ew::check_result_shape("y", y, &shape)?;
    let bd = bindings(&[Some(x), Some(scale), offset], &[Some(y)]);
    Ok(Executor::new(
        "aclnnAscendAntiQuant",
        bd,
        AntiQuantize {
            x: geometry,
            shape,
            sqrt_mode,
        },
    ))
}

struct AntiQuantize {
    /// x as int8 or int4 elements.
    x: TensorDesc,
    shape: Vec<usize>,
    sqrt_mode: bool,
}

impl Work for AntiQuantize {
    fn workspace_size(&self) -> u64 {
        0
    }
    fn accepts_int4(&self) -> bool {
        true
    }
    fn run(&self, t: &Bindings, _: Workspace) -> Result<()> {
        let x = load_view::<f32>(t, 0, &self.x, &self.shape)?;
        let s = load_view::<f32>(t, 1, t.view(1)?, &self.shape)?;
        let o = match t.tensors[2].as_ref() {
            Some(v) => Some(load_view::<f32>(t, 2, v, &self.shape)?),
            None => None,
        };
        let v: Vec<f32> = (0..x.len())
            .map(|i| {
                let mut p = (x[i] + o.as_ref().map_or(0.0, |o| o[i])) * s[i];
                if self.sqrt_mode {
                    p *= s[i];
                }
                p
            })
            .collect();
        store(t, 3, &v)
    }
}

/// aclnnDynamicQuant: per-row symmetric quantization into INT8 / ACL_INT4 / INT32 (eight
/// int4), the row scales into scaleOut (f32, x's shape without its last dim).
pub fn dynamic_quant(
    x: &TensorDesc,
    smooth: Option<&TensorDesc>,
    y: &TensorDesc,
    scale: &TensorDesc,
) -> Result<Executor> {
    dynamic_rule("aclnnDynamicQuant", x, smooth, None, y, scale, None)
}

/// aclnnDynamicQuantV2: DynamicQuant with dstType, and the asymmetric form when offsetOut
/// is given.
#[allow(clippy::too_many_arguments)]
pub fn dynamic_quant_v2(
    x: &TensorDesc,
    smooth: Option<&TensorDesc>,
    group_index: Option<&TensorDesc>,
    dst_type: i64,
    y: &TensorDesc,
    scale: &TensorDesc,
    offset: Option<&TensorDesc>,
) -> Result<Executor> {
    crate::ensure!(
        group_index.is_none() || smooth.is_some(),
        "groupIndexOptional is given but smoothScalesOptional is NULL"
    );
    crate::ensure!(
        group_index.is_none(),
        "groupIndexOptional (per-expert smooth scales) is not implemented by aclnn-cpu"
    );
    check_dst_type(dst_type, y, QUANT_Y)?;
    dynamic_rule("aclnnDynamicQuantV2", x, smooth, None, y, scale, offset)
}

fn dynamic_rule(
    api: &'static str,
    x: &TensorDesc,
    smooth: Option<&TensorDesc>,
    _group_index: Option<&TensorDesc>,
    y: &TensorDesc,
    scale: &TensorDesc,
    offset: Option<&TensorDesc>,
) -> Result<Executor> {
    ew::check_tensor("x", x, DYN_X)?;
    crate::ensure!(
        (2..=8).contains(&x.rank()),
        "x has {} dims; it must have 2 to 8",
        x.rank()
    );
    let h = x.shape[x.rank() - 1];
    if let Some(s) = smooth {
        ew::check_tensor("smoothScalesOptional", s, DYN_X)?;
        crate::ensure!(
            s.dtype == x.dtype && s.shape[..] == [h],
            "smoothScalesOptional ({} {:?}) must have x's dtype and shape [{h}] (x's last dim)",
            s.dtype,
            s.shape
        );
    }
    let out = QuantOut::new(y, &x.shape, "yOut")?;
    if y.dtype == S4 {
        crate::ensure!(
            y.strides[..] == crate::tensor::contiguous_strides(&y.shape)[..],
            "yOut is ACL_INT4 and not contiguous ({}): it must be contiguous",
            y.describe()
        );
    }
    let rows_shape = &x.shape[..x.rank() - 1];
    ew::check_tensor("scaleOut", scale, F32_ONLY)?;
    ew::check_result_shape("scaleOut", scale, rows_shape)?;
    if let Some(o) = offset {
        ew::check_tensor("offsetOut", o, F32_ONLY)?;
        ew::check_result_shape("offsetOut", o, rows_shape)?;
    }
    let bd = bindings(&[Some(x), smooth], &[Some(y), Some(scale), offset]);
    Ok(Executor::new(
        api,
        bd,
        DynamicQuantize {
            shape: x.shape.to_vec(),
            out,
            asymmetric: offset.is_some(),
        },
    ))
}

struct DynamicQuantize {
    shape: Vec<usize>,
    out: QuantOut,
    asymmetric: bool,
}

impl Work for DynamicQuantize {
    fn workspace_size(&self) -> u64 {
        0
    }
    fn accepts_int4(&self) -> bool {
        true
    }
    fn run(&self, t: &Bindings, _: Workspace) -> Result<()> {
        let h = *self.shape.last().unwrap_or(&1);
        let mut x = load_view::<f32>(t, 0, t.view(0)?, &self.shape)?;
        if let Some(v) = t.tensors[1].as_ref() {
            let s = load_view::<f32>(t, 1, v, &[h])?;
            for row in x.chunks_mut(h.max(1)) {
                for (a, b) in row.iter_mut().zip(&s) {
                    *a *= b;
                }
            }
        }
        let rows = if h == 0 { 0 } else { x.len() / h };
        let (qmin, qmax) = (self.out.min, self.out.max);
        let mut scales = vec![0f32; rows];
        let mut offsets = vec![0f32; rows];
        for (r, row) in x.chunks_mut(h.max(1)).enumerate().take(rows) {
            let (scale, offset) = if self.asymmetric {
                let max = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
                let min = row.iter().copied().fold(f32::INFINITY, f32::min);
                let scale = (max - min) / (qmax - qmin);
                (scale, qmax - max / scale)
            } else {
                let max = row.iter().fold(0f32, |m, v| m.max(v.abs()));
                (max / qmax, 0.0)
            };
            for v in row.iter_mut() {
                *v = (*v / scale + offset).round_ties_even();
            }
            scales[r] = scale;
            offsets[r] = if offset.is_nan() { 0.0 } else { offset };
        }
        self.out.write(t, 2, &x)?;
        store(t, 3, &scales)?;
        if self.asymmetric {
            store(t, 4, &offsets)?;
        }
        Ok(())
    }
}

/// aclnnTransQuantParamV2: FLOAT32 scale (and offset) into the UINT64/INT64 words the
/// quantized matmuls read: `(bits(scale) & 0xFFFFE000) | 1 << 46`, and with an offset its
/// value rounded (half away from zero), clamped to [-256, 255], in bits 37-45. Shapes
/// (1,), (n,) or (1, n) (a scale of (g,), (g, 1) or (g, n) without offset); a 1-D out has
/// the longer of the scale's and offset's lengths, a 2-D one the scale's shape.
pub fn trans_quant_param_v2(
    scale: &TensorDesc,
    offset: Option<&TensorDesc>,
    out: &TensorDesc,
) -> Result<Executor> {
    ew::check_tensor("scale", scale, F32_ONLY)?;
    ew::check_tensor("out", out, &[U64, S64])?;
    let dims_ok = |t: &TensorDesc| (1..=2).contains(&t.rank()) && !t.is_empty();
    crate::ensure!(
        dims_ok(scale),
        "scale has shape {:?}; it must have 1 or 2 dims and not be empty",
        scale.shape
    );
    let want: Vec<usize> = match offset {
        None => scale.shape.to_vec(),
        Some(o) => {
            ew::check_tensor("offset", o, F32_ONLY)?;
            let vector = |t: &TensorDesc| t.rank() == 1 || (t.rank() == 2 && t.shape[0] == 1);
            crate::ensure!(
                dims_ok(o) && vector(o) && vector(scale),
                "with an offset, scale {:?} and offset {:?} must each be (t,) or (1, n)",
                scale.shape,
                o.shape
            );
            let (ls, lo) = (scale.shape[scale.rank() - 1], o.shape[o.rank() - 1]);
            crate::ensure!(
                ls == lo || ls == 1 || lo == 1,
                "scale {:?} and offset {:?} do not broadcast: their lengths must be equal or 1",
                scale.shape,
                o.shape
            );
            if scale.rank() == 1 {
                vec![ls.max(lo)]
            } else {
                scale.shape.to_vec()
            }
        }
    };
    ew::check_result_shape("out", out, &want)?;
    if let Some(o) = offset {
        let n = *want.last().unwrap_or(&1);
        let lo = o.shape[o.rank() - 1];
        crate::ensure!(
            lo == 1 || lo == n,
            "offset {:?} does not broadcast to out {want:?}",
            o.shape
        );
    }
    let bd = bindings(&[Some(scale), offset], &[Some(out)]);
    Ok(Executor::new(
        "aclnnTransQuantParamV2",
        bd,
        TransQuantParam { shape: want },
    ))
}

struct TransQuantParam {
    shape: Vec<usize>,
}

/// One quant-param word (aclnnTransQuantParam's format).
pub(crate) fn quant_param_word(scale: f32, offset: Option<f32>) -> u64 {
    let mut w = (scale.to_bits() as u64 & 0xFFFF_E000) | 1 << 46;
    if let Some(o) = offset {
        let o = if o.is_nan() {
            0
        } else {
            (o.round() as i64).clamp(-256, 255)
        };
        w = (w & 0x4000_FFFF_FFFF) | ((o as u64 & 0x1ff) << 37);
    }
    w
}

impl Work for TransQuantParam {
    fn workspace_size(&self) -> u64 {
        0
    }
    fn small(&self) -> bool {
        true
    }
    fn run(&self, t: &Bindings, _: Workspace) -> Result<()> {
        let vec_view = |v: &TensorDesc| {
            // a (t,) or (1, n) view broadcast along out's last dim
            let mut g = v.clone();
            if g.rank() > self.shape.len() {
                g.shape.remove(0);
                g.strides.remove(0);
            }
            g
        };
        let s = load_view::<f32>(t, 0, &vec_view(t.view(0)?), &self.shape)?;
        let o = match t.tensors[1].as_ref() {
            Some(v) => Some(load_view::<f32>(t, 1, &vec_view(v), &self.shape)?),
            None => None,
        };
        let words: Vec<i64> = (0..s.len())
            .map(|i| quant_param_word(s[i], o.as_ref().map(|o| o[i])) as i64)
            .collect();
        store(t, 2, &words)
    }
}

pub(crate) const DEQUANT_X: &[DType] = &[S32];
pub(crate) const DEQUANT_BIAS: &[DType] = &[F32, BF16, F16, S32];
/// Atlas A2 tiles at most this many rows (M) of x.
const DEQUANT_MAX_M: usize = 25000;

/// aclnnDequantBias: `out = R((x (+ bias)) · weightScale · activateScale (+ bias))` of an
/// int32 (M, N) x. An INT32 bias adds to x in int32 (wrapping) before the conversion; a
/// float one adds last. Each step is one f32 operation, as the kernel's vector unit does
/// them, so the result is determined bit for bit. An empty activateScale or bias is absent
/// (the tiling's rule). The device reports the shape and optional-dtype errors as tiling
/// errors (561002); here they are ACLNN_ERR_PARAM_INVALID at phase 1.
pub fn dequant_bias(
    x: &TensorDesc,
    weight_scale: &TensorDesc,
    activate_scale: Option<&TensorDesc>,
    bias: Option<&TensorDesc>,
    output_dtype: i64,
    out: &TensorDesc,
) -> Result<Executor> {
    ew::check_tensor("x", x, DEQUANT_X)?;
    ew::check_tensor("weightScale", weight_scale, ANTI_SCALE)?;
    ew::check_tensor("out", out, ANTI_Y)?;
    crate::ensure!(
        output_dtype == 1 || output_dtype == 27,
        "outputDtype {output_dtype} is not 1 (FLOAT16) or 27 (BFLOAT16)"
    );
    // The kernels pair FLOAT weightScale with FLOAT16 out, BFLOAT16 with BFLOAT16.
    let want = if weight_scale.dtype == F32 { F16 } else { BF16 };
    crate::ensure!(
        out.dtype == want && output_dtype == want as i64,
        "weightScale is {} so outputDtype must be {} ({want}) and out {want}; got outputDtype {output_dtype}, out {}",
        weight_scale.dtype,
        want as i32,
        out.dtype
    );
    crate::ensure!(
        x.rank() == 2,
        "x has {} dims; it must be 2-D (M, N)",
        x.rank()
    );
    crate::ensure!(
        weight_scale.rank() == 1,
        "weightScale has {} dims; it must be 1-D (N)",
        weight_scale.rank()
    );
    for (name, t) in [
        ("activateScaleOptional", activate_scale),
        ("biasOptional", bias),
    ] {
        if let Some(t) = t {
            crate::ensure!(
                t.rank() == 1,
                "{name} has {} dims; it must be 1-D",
                t.rank()
            );
        }
    }
    crate::ensure!(
        out.rank() == 2,
        "out has {} dims; it must be 2-D (M, N)",
        out.rank()
    );
    let (m, n) = (x.shape[0], x.shape[1]);
    crate::ensure!(
        weight_scale.shape[0] == n,
        "weightScale has length {} but x's dim 1 (N) is {n}",
        weight_scale.shape[0]
    );
    let activate_scale = activate_scale.filter(|t| t.numel() > 0);
    let bias = bias.filter(|t| t.numel() > 0);
    if let Some(a) = activate_scale {
        crate::ensure!(
            a.shape[0] == m,
            "activateScaleOptional has length {} but x's dim 0 (M) is {m}",
            a.shape[0]
        );
    }
    if let Some(b) = bias {
        crate::ensure!(
            b.shape[0] == n,
            "biasOptional has length {} but x's dim 1 (N) is {n}",
            b.shape[0]
        );
    }
    ew::check_result_shape("out", out, &[m, n])?;
    if let Some(a) = activate_scale {
        ew::check_tensor("activateScaleOptional", a, F32_ONLY)?;
    }
    if let Some(b) = bias {
        ew::check_tensor("biasOptional", b, DEQUANT_BIAS)?;
    }
    crate::ensure!(
        m <= DEQUANT_MAX_M,
        "x has M = {m} rows; Atlas A2 allows at most {DEQUANT_MAX_M}"
    );
    let bd = bindings(
        &[Some(x), Some(weight_scale), activate_scale, bias],
        &[Some(out)],
    );
    Ok(Executor::new("aclnnDequantBias", bd, Dequantize { m, n }))
}

struct Dequantize {
    m: usize,
    n: usize,
}

impl Work for Dequantize {
    fn workspace_size(&self) -> u64 {
        0
    }
    fn run(&self, t: &Bindings, _: Workspace) -> Result<()> {
        let (m, n) = (self.m, self.n);
        let shape = [m, n];
        let x = load_view::<i32>(t, 0, t.view(0)?, &shape)?;
        let ws = load_view::<f32>(t, 1, t.view(1)?, &[n])?;
        let asc = match t.tensors[2].as_ref() {
            Some(v) => Some(load_view::<f32>(t, 2, v, &[m])?),
            None => None,
        };
        let bias = t.tensors[3].as_ref();
        let int_bias = match bias {
            Some(v) if v.dtype == S32 => Some(load_view::<i32>(t, 3, v, &[n])?),
            _ => None,
        };
        let float_bias = match bias {
            Some(v) if v.dtype != S32 => Some(load_view::<f32>(t, 3, v, &[n])?),
            _ => None,
        };
        let mut v = vec![0f32; m * n];
        for r in 0..m {
            for c in 0..n {
                let a = x[r * n + c];
                let a = int_bias.as_ref().map_or(a, |b| a.wrapping_add(b[c]));
                let mut p = a as f32 * ws[c];
                if let Some(s) = &asc {
                    p *= s[r];
                }
                if let Some(b) = &float_bias {
                    p += b[c];
                }
                v[r * n + c] = p;
            }
        }
        store(t, 4, &v)
    }
}

use super::catalog::Entry;

/// Supported dtypes, for the operator table (docs/DTYPES.md).
pub const CATALOG: &[Entry] = &[
    Entry {
        ops: "AscendQuant, AscendQuantV3",
        a: QUANT_X,
        b: QUANT_X,
        out: QUANT_Y,
        rule: "round(x·scale (·scale) + offset) along one of the last two axes, in f32 (roundMode round/floor/ceil/trunc), saturated to int8 / int4 / eight int4 an INT32 (NZ refused)",
    },
    Entry {
        ops: "AscendAntiQuant",
        a: ANTI_X,
        b: ANTI_SCALE,
        out: ANTI_Y,
        rule: "(x + offset)·scale (·scale) along the last axis, in f32, rounded once",
    },
    Entry {
        ops: "DynamicQuant, DynamicQuantV2",
        a: DYN_X,
        b: DYN_X,
        out: QUANT_Y,
        rule: "per row: scale = max|x·smooth| / qmax (V2 with offsetOut: asymmetric), y = round(x·smooth / scale (+ offset)), in f32 (groupIndex refused)",
    },
    Entry {
        ops: "DequantBias",
        a: DEQUANT_X,
        b: ANTI_SCALE,
        out: ANTI_Y,
        rule: "(x (+ int32 bias))·weightScale·activateScale (+ float bias) of an int32 (M, N) x, in f32 step by step, rounded once",
    },
    Entry {
        ops: "TransQuantParamV2",
        a: F32_ONLY,
        b: F32_ONLY,
        out: &[U64, S64],
        rule: "f32 scale (and offset) into the 64-bit quant-param words the quantized matmuls read (scale bits & 0xFFFFE000, bit 46, a 9-bit offset in bits 37-45)",
    },
];
