//! Activations: the point-wise ones that take attributes (Elu, LeakyRelu, Softplus,
//! Hardsigmoid, Hardswish, Threshold, GeluV2, Selu, LogSigmoid, Shrink, Erfinv,
//! RReluWithNoise's inference form, Hardtanh), the binary ones (AddRelu, Heaviside) and
//! the gated ones that split a dim into halves (GeluMul, SwiGlu, GeGlu, GeGluV3,
//! FatreluMul).
//!
//! Point-wise activations are rules on the element-wise engine: one kernel, `Pointwise`,
//! evaluates the formula `F` in f64 from the value in the compute dtype (f16/bf16 widen to
//! f32 exactly; f64 stays f64) and rounds once into it, so f32/f16/bf16 results are within
//! 0.5 ulp of the exact formula plus the C library's error on exp/expm1/log1p/erfc
//! (< 1 ulp of f64), i.e. correctly rounded but in rare ties of double rounding (≤ 1 ulp).
//! Attributes (aclScalars) are converted to f32 first, as the device does (`ToFloat`).
//!
//! Gated activations (`gated`) view the two halves of `dim` of their input as two operands
//! (no copy) and run one binary kernel, also in f64 from the f32 values and rounded once.

use super::binary::Compute;
use super::catalog::Entry;
use super::elementwise::{self as ew, Arg};
use super::unary::{self, erfc64, OutRule, Rule};
use crate::dtype::{can_cast, DType};
use crate::element::Wide;
use crate::engine::kernel::{
    binary, binary_wide, unary as unary_kernel, unary_wide, BinaryOp, UnaryOp,
};
use crate::engine::{KernelFn, Params, Via};
use crate::error::Result;
use crate::executor::{Bindings, Executor, Sequence};
use crate::scalar::Scalar;
use crate::tensor::TensorDesc;
use std::marker::PhantomData;

use DType::*;
const HALFS: &[DType] = &[F32, F16, BF16];
/// Elu and LeakyRelu: CANN's A2 code (`DTYPE_SUPPORT_LIST`, `ASCEND910B_..._LIST`) takes f64
/// too, though the docs list f32/f16/bf16 only: we follow the code.
const HALFS_F64: &[DType] = &[F32, F16, BF16, F64];
/// Hardsigmoid's A2 list (aclnn_hardsigmoid.cpp) has int32.
const HARDSIGMOID: &[DType] = &[F32, F16, BF16, S32];
/// Threshold's A2 list (aclnn_threshold.cpp).
const THRESHOLD: &[DType] = &[F32, F16, BF16, S8, U8, S16, S32, S64];
/// Every dtype an out may be converted to (the cast rule decides per case).
const ANY_REAL: &[DType] = &[F32, F16, F64, BF16, S8, U8, S16, S32, S64, Bool];

/// The formulas of `Pointwise` (x is the input, a the attributes).
mod f {
    /// x > 0 ? scale·x : alpha·scale·(e^(inputScale·x) − 1); a = [alpha, scale, inputScale].
    pub const ELU: u8 = 0;
    /// Elu whose alpha or inputScale is ±inf/NaN: the device computes
    /// `(x <= 0 ? −alpha : x)·scale` instead (aclnn_elu.cpp); a = [alpha, scale].
    pub const ELU_NONFINITE: u8 = 1;
    /// x > 0 ? x : slope·x; a = [slope].
    pub const LEAKY_RELU: u8 = 2;
    /// beta·x > threshold ? x : ln(1 + e^(beta·x))/beta; a = [beta, threshold].
    pub const SOFTPLUS: u8 = 3;
    /// min(max(x + 3, 0), 6)/6.
    pub const HARDSIGMOID: u8 = 4;
    /// x·min(max(x + 3, 0), 6)/6.
    pub const HARDSWISH: u8 = 5;
    /// 0.5·x·(1 + erf(x/√2)), as 0.5·x·erfc(−x/√2) (no cancellation for x < 0).
    pub const GELU_ERF: u8 = 6;
    /// 0.5·x·(1 + tanh(√(2/π)(x + 0.044715x³))), as x·sigmoid(2u) (no cancellation).
    pub const GELU_TANH: u8 = 7;
    /// x·sigmoid(x).
    pub const SILU: u8 = 8;
    /// x > 0 ? x : alpha·(e^(x/alpha) − 1); a = [alpha].
    pub const CELU: u8 = 9;
    /// x·tanh(ln(1 + e^x)).
    pub const MISH: u8 = 10;
    /// x > l ? x − l : x < −l ? x + l : 0 (NaN gives 0, as torch); a = [lambd].
    pub const SOFTSHRINK: u8 = 11;
    /// −l ≤ x ≤ l ? 0 : x (NaN stays NaN); a = [lambd].
    pub const HARDSHRINK: u8 = 12;
    /// x·sigmoid(beta·x); a = [beta].
    pub const SWISH: u8 = 13;
    /// x·sigmoid(1.702·x) (aclnnFastGelu.md).
    pub const FAST_GELU: u8 = 14;
    /// sigmoid(x) (GLU's gate).
    pub const SIGMOID: u8 = 15;
    /// scale·(max(0, x) + min(0, alpha·(e^x − 1))) with SELU's constants.
    pub const SELU: u8 = 16;
    /// ln(sigmoid(x)) = −ln(1 + e^(−x)), without overflow on either side.
    pub const LOGSIGMOID: u8 = 17;
    /// x > l ? x − bias : x < −l ? x + bias : 0 (ONNX Shrink; NaN gives 0); a = [lambd, bias].
    pub const SHRINK: u8 = 18;
    /// erf⁻¹(x): ±inf at ±1, NaN beyond.
    pub const ERFINV: u8 = 19;
    /// ln(z/(1 − z)), z = x clamped to [eps, 1 − eps] when eps ≥ 0; a = [eps, 1 − eps, eps ≥ 0].
    pub const LOGIT: u8 = 20;
    /// x >= 0 ? scale·x : alpha·scale·(e^(inputScale·x) − 1) (EluV2's kernel selects on
    /// x >= 0, so a non-finite alpha gives 0 at x = 0); a = [alpha, scale, inputScale].
    pub const ELU_V2: u8 = 21;
    /// x·(sgn(x)·(−0.1444·(min(|0.7071·x|, 1.769) − 1.769)² + 0.5) + 0.5), sgn(x) =
    /// (x + 1e-12)/|x + 1e-12| taken in f32 as the kernel does (NaN where x + 1e-12 is 0)
    /// (aclnnFastGeluV2.md).
    pub const FAST_GELU_V2: u8 = 22;
}

/// SELU's alpha and scale (aclnnSelu.md, torch.nn.SELU).
const SELU_ALPHA: f64 = 1.673_263_242_354_377_284_817_042_991_671_7;
const SELU_SCALE: f64 = 1.050_700_987_355_480_493_419_334_985_294_6;

/// erf⁻¹(x) in f64: Giles' single-precision approximation ("Approximating the erfinv
/// function", 2010) refined by two Newton steps on erf (or, for |x| > 0.5, on erfc against
/// the exact 1 − |x|, so the residual keeps its digits near ±1): relative error ~1e-15,
/// far below an f32 ulp.
fn erfinv64(x: f64) -> f64 {
    if x.is_nan() || x.abs() > 1.0 {
        return f64::NAN;
    }
    if x.abs() == 1.0 {
        return x * f64::INFINITY;
    }
    let w = -((1.0 - x) * (1.0 + x)).ln();
    let p = if w < 5.0 {
        let w = w - 2.5;
        let mut p = 2.810_226_36e-08;
        for c in [
            3.432_739_39e-07,
            -3.523_387_7e-06,
            -4.391_506_54e-06,
            0.000_218_580_87,
            -0.001_253_725_03,
            -0.004_177_681_64,
            0.246_640_727,
            1.501_409_41,
        ] {
            p = c + p * w;
        }
        p
    } else {
        let w = w.sqrt() - 3.0;
        let mut p = -0.000_200_214_257;
        for c in [
            0.000_100_950_558,
            0.001_349_343_22,
            -0.003_673_428_44,
            0.005_739_507_73,
            -0.007_622_461_3,
            0.009_438_870_47,
            1.001_674_06,
            2.832_976_82,
        ] {
            p = c + p * w;
        }
        p
    };
    let mut y = p * x;
    let (a, one_minus) = (x.abs(), 1.0 - x.abs());
    for _ in 0..2 {
        let ya = y.abs();
        // erf(|y|) − |x|, through erfc where erf is close to 1.
        let r = if a > 0.5 {
            one_minus - super::unary::erfc64(ya)
        } else {
            super::unary::erf64(ya) - a
        };
        let step = r / (std::f64::consts::FRAC_2_SQRT_PI * (-ya * ya).exp());
        if !step.is_finite() {
            break;
        }
        y = (ya - step).copysign(x);
    }
    y
}

/// min(max(v, 0), 6) with NaN propagating (torch's hardsigmoid/hardswish).
fn relu6(v: f64) -> f64 {
    if v.is_nan() {
        v
    } else {
        v.clamp(0.0, 6.0)
    }
}

/// ln(1 + e^z) without overflow.
fn log1p_exp(z: f64) -> f64 {
    if z > 0.0 {
        z + (-z).exp().ln_1p()
    } else {
        z.exp().ln_1p()
    }
}

/// Formula `id` at x with attributes `a`, in f64.
#[inline(always)]
fn eval<T: Real>(id: u8, x: f64, a: &[f64; 3]) -> f64 {
    let sigmoid = T::sigmoid;
    match id {
        f::ELU => {
            if x > 0.0 {
                a[1] * x
            } else {
                a[0] * a[1] * (x * a[2]).exp_m1()
            }
        }
        f::ELU_NONFINITE => {
            if x <= 0.0 {
                -a[0] * a[1]
            } else {
                x * a[1]
            }
        }
        f::LEAKY_RELU => {
            if x > 0.0 {
                x
            } else {
                x * a[0]
            }
        }
        f::SOFTPLUS => {
            let z = x * a[0];
            if z > a[1] {
                x
            } else {
                log1p_exp(z) / a[0]
            }
        }
        f::HARDSIGMOID => relu6(x + 3.0) / 6.0,
        f::HARDSWISH => x * relu6(x + 3.0) / 6.0,
        f::GELU_ERF => gelu::<T>(x, false),
        f::GELU_TANH => gelu::<T>(x, true),
        f::CELU => {
            if x > 0.0 {
                x
            } else {
                a[0] * (x / a[0]).exp_m1()
            }
        }
        f::MISH => x * log1p_exp(x).tanh(),
        f::SOFTSHRINK => {
            if x > a[0] {
                x - a[0]
            } else if x < -a[0] {
                x + a[0]
            } else {
                0.0
            }
        }
        f::HARDSHRINK => {
            if x >= -a[0] && x <= a[0] {
                0.0
            } else {
                x
            }
        }
        f::SWISH => x * sigmoid(a[0] * x),
        f::FAST_GELU => x * sigmoid(1.702 * x),
        f::SIGMOID => sigmoid(x),
        f::SELU => {
            if x > 0.0 {
                SELU_SCALE * x
            } else {
                SELU_SCALE * SELU_ALPHA * x.exp_m1()
            }
        }
        f::LOGSIGMOID => -log1p_exp(-x),
        f::SHRINK => {
            if x > a[0] {
                x - a[1]
            } else if x < -a[0] {
                x + a[1]
            } else {
                0.0
            }
        }
        f::ERFINV => erfinv64(x),
        f::ELU_V2 => {
            if x >= 0.0 {
                a[1] * x
            } else {
                a[0] * a[1] * (x * a[2]).exp_m1()
            }
        }
        f::FAST_GELU_V2 => {
            if x.is_nan() {
                return x;
            }
            let t = x as f32 + 1e-12f32;
            let sgn = (t / t.abs()) as f64;
            let c = (0.7071 * x).abs().min(1.769) - 1.769;
            x * (sgn * (-0.1444 * c * c + 0.5) + 0.5)
        }
        f::LOGIT => {
            let z = if a[2] != 0.0 && !x.is_nan() {
                x.max(a[0]).min(a[1])
            } else {
                x
            };
            (z / (1.0 - z)).ln()
        }
        _ => x * sigmoid(x),
    }
}

/// GELU, exact (`tanh == false`) or the tanh approximation.
#[inline(always)]
fn gelu<T: Real>(x: f64, tanh: bool) -> f64 {
    if tanh {
        let k = (2.0 / std::f64::consts::PI).sqrt();
        x * T::sigmoid(2.0 * k * (x + 0.044715 * x * x * x))
    } else {
        0.5 * x * erfc64(-x / std::f64::consts::SQRT_2)
    }
}

/// The compute types a point-wise kernel reads and writes (f32, f64), to and from f64.
pub(super) trait Real: crate::element::Element {
    fn widen(self) -> f64;
    fn narrow(v: f64) -> Self;
    /// The sigmoid the formulas use for this compute type: f32 results take the
    /// vectorised one (4 f64 ulps, invisible after rounding to f32), f64 results the
    /// library's (their bound is that of the C library's exp).
    fn sigmoid(x: f64) -> f64;
}
impl Real for f32 {
    #[inline(always)]
    fn sigmoid(x: f64) -> f64 {
        crate::engine::vmath::sigmoid(x)
    }
    #[inline(always)]
    fn widen(self) -> f64 {
        self as f64
    }
    #[inline(always)]
    fn narrow(v: f64) -> Self {
        v as f32
    }
}
impl Real for f64 {
    fn sigmoid(x: f64) -> f64 {
        crate::engine::vmath::sigmoid_libm(x)
    }
    #[inline(always)]
    fn widen(self) -> f64 {
        self
    }
    #[inline(always)]
    fn narrow(v: f64) -> Self {
        v
    }
}

/// The attributes a kernel was planned with (f64 scalars in `Params::scalars`).
fn attrs(p: &Params) -> [f64; 3] {
    let mut a = [0.0; 3];
    for (k, s) in p.scalars.iter().take(3).enumerate() {
        a[k] = s.get::<f64>();
    }
    a
}

/// Formula `F` on a real compute type.
struct Pointwise<T, const F: u8> {
    a: [f64; 3],
    _t: PhantomData<T>,
}
impl<T: Real, const F: u8> UnaryOp for Pointwise<T, F> {
    type A = T;
    type O = T;
    fn new(p: &Params) -> Self {
        Pointwise {
            a: attrs(p),
            _t: PhantomData,
        }
    }
    #[inline(always)]
    fn apply(&self, x: T) -> T {
        T::narrow(eval::<T>(F, x.widen(), &self.a))
    }
}

/// The kernel of formula `F` for a float dtype.
fn pointwise_kernel<const F: u8>(d: DType) -> KernelFn {
    match d {
        F64 => unary_kernel::<Pointwise<f64, F>> as KernelFn,
        // The same function as aclnnGelu's, with its fast f32 kernel.
        _ if F == f::GELU_TANH => super::unary::gelu_f32,
        // f32: the exponentials are the cost, AVX-512 doubles the lanes where present
        _ => unary_wide::<Pointwise<f32, F>>,
    }
}

/// An attribute scalar as the device reads it: converted to f32 (`aclScalar::ToFloat`).
fn attr(s: &Scalar) -> Scalar {
    let v = match s.wide() {
        Wide::Bool(b) => b as u8 as f64,
        Wide::Int(i) => i as f64,
        Wide::Float(x) => x,
        Wide::Complex(re, _) => re,
    };
    Scalar::from_value(v as f32 as f64)
}

/// A scalar attribute whose dtype must convert to `to` (CANN's CanCast / result cast rule).
fn check_attr(name: &str, s: &Scalar, to: DType) -> Result<()> {
    crate::ensure!(
        can_cast(s.dtype, to),
        "scalar '{name}' has dtype {}, which cannot be converted to {to}",
        s.dtype
    );
    Ok(())
}

/// `out = F(self)` (or in place) for the float formulas, computed in self's dtype.
#[allow(clippy::too_many_arguments)]
fn pointwise<const F: u8>(
    api: &'static str,
    rule: &Rule,
    self_name: &'static str,
    self_: &TensorDesc,
    out: Option<(&'static str, &TensorDesc)>,
    attributes: &[Scalar],
) -> Result<Executor> {
    let params = Params {
        scalars: attributes.iter().map(attr).collect(),
        ints: Default::default(),
    };
    unary::build(api, rule, self_name, self_, out, move |d| {
        let mut c = Compute::same(d, pointwise_kernel::<F>(d));
        c.params = params;
        Ok(c)
    })
}

const ELU_RULE: Rule = Rule {
    a: HALFS_F64,
    out: HALFS_F64,
    out_rule: OutRule::Castable,
};

fn elu_common(
    api: &'static str,
    self_name: &'static str,
    self_: &TensorDesc,
    alpha: &Scalar,
    scale: &Scalar,
    input_scale: &Scalar,
    out: Option<&TensorDesc>,
) -> Result<Executor> {
    ew::check_tensor(self_name, self_, HALFS_F64)?;
    check_attr("scale", scale, F32)?;
    check_attr("alpha", alpha, F32)?;
    check_attr("inputScale", input_scale, F32)?;
    let finite = |s: &Scalar| attr(s).get::<f64>().is_finite();
    if finite(alpha) && finite(input_scale) {
        pointwise::<{ f::ELU }>(
            api,
            &ELU_RULE,
            self_name,
            self_,
            out.map(|o| ("out", o)),
            &[*alpha, *scale, *input_scale],
        )
    } else {
        pointwise::<{ f::ELU_NONFINITE }>(
            api,
            &ELU_RULE,
            self_name,
            self_,
            out.map(|o| ("out", o)),
            &[*alpha, *scale],
        )
    }
}

/// aclnnElu: x > 0 ? scale·x : alpha·scale·(e^(inputScale·x) − 1). With a non-finite alpha
/// or inputScale the device computes `(x <= 0 ? −alpha : x)·scale`, and so do we.
pub fn elu(
    self_: &TensorDesc,
    alpha: &Scalar,
    scale: &Scalar,
    input_scale: &Scalar,
    out: &TensorDesc,
) -> Result<Executor> {
    elu_common(
        "aclnnElu",
        "self",
        self_,
        alpha,
        scale,
        input_scale,
        Some(out),
    )
}

/// aclnnInplaceElu.
pub fn inplace_elu(
    self_ref: &TensorDesc,
    alpha: &Scalar,
    scale: &Scalar,
    input_scale: &Scalar,
) -> Result<Executor> {
    elu_common(
        "aclnnInplaceElu",
        "selfRef",
        self_ref,
        alpha,
        scale,
        input_scale,
        None,
    )
}

/// aclnnEluV2: x >= 0 ? scale·x : alpha·scale·(e^(inputScale·x) − 1) for f32/f16/bf16, out
/// of self's dtype and shape; the scalars must convert to f32 (checked scale, alpha,
/// inputScale, as aclnn_elu_v2.cpp) and are read as f32.
pub fn elu_v2(
    self_: &TensorDesc,
    alpha: &Scalar,
    scale: &Scalar,
    input_scale: &Scalar,
    out: &TensorDesc,
) -> Result<Executor> {
    const RULE: Rule = Rule {
        a: HALFS,
        out: HALFS,
        out_rule: OutRule::Equal,
    };
    crate::ensure!(
        out.dtype == self_.dtype,
        "out has dtype {} but must have self's dtype {}",
        out.dtype,
        self_.dtype
    );
    ew::check_tensor("self", self_, HALFS)?;
    check_attr("scale", scale, F32)?;
    check_attr("alpha", alpha, F32)?;
    check_attr("inputScale", input_scale, F32)?;
    pointwise::<{ f::ELU_V2 }>(
        "aclnnEluV2",
        &RULE,
        "self",
        self_,
        Some(("out", out)),
        &[*alpha, *scale, *input_scale],
    )
}

/// aclnnLeakyRelu: x > 0 ? x : negativeSlope·x (NaN stays NaN).
pub fn leaky_relu(self_: &TensorDesc, slope: &Scalar, out: &TensorDesc) -> Result<Executor> {
    pointwise::<{ f::LEAKY_RELU }>(
        "aclnnLeakyRelu",
        &ELU_RULE,
        "self",
        self_,
        Some(("out", out)),
        &[*slope],
    )
}

/// aclnnInplaceLeakyRelu.
pub fn inplace_leaky_relu(self_ref: &TensorDesc, slope: &Scalar) -> Result<Executor> {
    pointwise::<{ f::LEAKY_RELU }>(
        "aclnnInplaceLeakyRelu",
        &ELU_RULE,
        "selfRef",
        self_ref,
        None,
        &[*slope],
    )
}

/// aclnnSoftplus: beta·x > threshold ? x : ln(1 + e^(beta·x))/beta (torch.nn.functional.softplus).
pub fn softplus(
    self_: &TensorDesc,
    beta: &Scalar,
    threshold: &Scalar,
    out: &TensorDesc,
) -> Result<Executor> {
    const RULE: Rule = Rule {
        a: HALFS,
        out: ANY_REAL,
        out_rule: OutRule::Castable,
    };
    ew::check_tensor("self", self_, HALFS)?;
    check_attr("beta", beta, self_.dtype)?;
    check_attr("threshold", threshold, self_.dtype)?;
    pointwise::<{ f::SOFTPLUS }>(
        "aclnnSoftplus",
        &RULE,
        "self",
        self_,
        Some(("out", out)),
        &[*beta, *threshold],
    )
}

/// Hardsigmoid of int32: ⌊min(max(x + 3, 0), 6)/6⌋ in integers, i.e. 1 for x ≥ 3, else 0.
struct HardsigmoidInt;
impl UnaryOp for HardsigmoidInt {
    type A = i32;
    type O = i32;
    fn new(_: &Params) -> Self {
        HardsigmoidInt
    }
    #[inline(always)]
    fn apply(&self, x: i32) -> i32 {
        (x >= 3) as i32
    }
}

fn hardsigmoid_common(
    self_: &TensorDesc,
    out: Option<&TensorDesc>,
    api: &'static str,
) -> Result<Executor> {
    const RULE: Rule = Rule {
        a: HARDSIGMOID,
        out: HARDSIGMOID,
        out_rule: OutRule::Equal,
    };
    unary::build(api, &RULE, "self", self_, out.map(|o| ("out", o)), |d| {
        Ok(match d {
            S32 => Compute::same(d, unary_kernel::<HardsigmoidInt> as KernelFn),
            _ => Compute::same(d, pointwise_kernel::<{ f::HARDSIGMOID }>(d)),
        })
    })
}

/// aclnnHardsigmoid: min(max(x + 3, 0), 6)/6; out has self's dtype (and int32 is computed
/// in integers, see `HardsigmoidInt`).
pub fn hardsigmoid(self_: &TensorDesc, out: &TensorDesc) -> Result<Executor> {
    hardsigmoid_common(self_, Some(out), "aclnnHardsigmoid")
}

/// aclnnInplaceHardsigmoid (its parameter is named `self`).
pub fn inplace_hardsigmoid(self_: &TensorDesc) -> Result<Executor> {
    hardsigmoid_common(self_, None, "aclnnInplaceHardsigmoid")
}

/// aclnnHardsigmoidV2: Hardsigmoid's rule (aclnn_hardsigmoid_v2.cpp has the same A2 list,
/// int32 included, and the same integer form).
pub fn hardsigmoid_v2(self_: &TensorDesc, out: &TensorDesc) -> Result<Executor> {
    hardsigmoid_common(self_, Some(out), "aclnnHardsigmoidV2")
}

/// aclnnInplaceHardsigmoidV2 (its parameter is named `self`).
pub fn inplace_hardsigmoid_v2(self_: &TensorDesc) -> Result<Executor> {
    hardsigmoid_common(self_, None, "aclnnInplaceHardsigmoidV2")
}

const HARDSWISH_RULE: Rule = Rule {
    a: HALFS,
    out: HALFS,
    out_rule: OutRule::Castable,
};

/// aclnnHardswish: x·min(max(x + 3, 0), 6)/6.
pub fn hardswish(self_: &TensorDesc, out: &TensorDesc) -> Result<Executor> {
    pointwise::<{ f::HARDSWISH }>(
        "aclnnHardswish",
        &HARDSWISH_RULE,
        "self",
        self_,
        Some(("out", out)),
        &[],
    )
}

/// aclnnInplaceHardswish (its parameter is named `self`).
pub fn inplace_hardswish(self_: &TensorDesc) -> Result<Executor> {
    pointwise::<{ f::HARDSWISH }>(
        "aclnnInplaceHardswish",
        &HARDSWISH_RULE,
        "self",
        self_,
        None,
        &[],
    )
}

/// `x <= threshold ? value : x` in the compute type (torch.threshold: NaN stays NaN).
struct ThresholdOp<T> {
    threshold: T,
    value: T,
}
impl<T: crate::element::Element + PartialOrd> UnaryOp for ThresholdOp<T> {
    type A = T;
    type O = T;
    fn new(p: &Params) -> Self {
        ThresholdOp {
            threshold: p.scalars[0].get::<T>(),
            value: p.scalars[1].get::<T>(),
        }
    }
    #[inline(always)]
    fn apply(&self, x: T) -> T {
        if x <= self.threshold {
            self.value
        } else {
            x
        }
    }
}

fn threshold_common(
    api: &'static str,
    self_name: &'static str,
    self_: &TensorDesc,
    threshold: &Scalar,
    value: &Scalar,
    out: Option<&TensorDesc>,
) -> Result<Executor> {
    const RULE: Rule = Rule {
        a: THRESHOLD,
        out: ANY_REAL,
        out_rule: OutRule::Castable,
    };
    unary::build(api, &RULE, self_name, self_, out.map(|o| ("out", o)), |d| {
        let c = d.compute();
        // The scalars take self's dtype (an f16 threshold is an f16 value), then widen.
        let params = Params {
            scalars: smallvec::smallvec![threshold.cast(d).cast(c), value.cast(d).cast(c)],
            ints: Default::default(),
        };
        let k = match c {
            F64 => unary_kernel::<ThresholdOp<f64>> as KernelFn,
            S8 => unary_kernel::<ThresholdOp<i8>>,
            U8 => unary_kernel::<ThresholdOp<u8>>,
            S16 => unary_kernel::<ThresholdOp<i16>>,
            S32 => unary_kernel::<ThresholdOp<i32>>,
            S64 => unary_kernel::<ThresholdOp<i64>>,
            _ => unary_kernel::<ThresholdOp<f32>>,
        };
        let mut comp = Compute::same(d, k);
        comp.params = params;
        Ok(comp)
    })
}

/// aclnnThreshold: `x <= threshold ? value : x`, the scalars converted to self's dtype.
pub fn threshold(
    self_: &TensorDesc,
    threshold: &Scalar,
    value: &Scalar,
    out: &TensorDesc,
) -> Result<Executor> {
    threshold_common("aclnnThreshold", "self", self_, threshold, value, Some(out))
}

/// aclnnInplaceThreshold.
pub fn inplace_threshold(
    self_ref: &TensorDesc,
    threshold: &Scalar,
    value: &Scalar,
) -> Result<Executor> {
    threshold_common(
        "aclnnInplaceThreshold",
        "selfRef",
        self_ref,
        threshold,
        value,
        None,
    )
}

/// `x > threshold ? x : value` in f32 (ThresholdV2's kernel: a NaN x gives value).
struct ThresholdGt {
    threshold: f32,
    value: f32,
}
impl UnaryOp for ThresholdGt {
    type A = f32;
    type O = f32;
    fn new(p: &Params) -> Self {
        ThresholdGt {
            threshold: p.scalars[0].get::<f32>(),
            value: p.scalars[1].get::<f32>(),
        }
    }
    #[inline(always)]
    fn apply(&self, x: f32) -> f32 {
        if x > self.threshold {
            x
        } else {
            self.value
        }
    }
}

/// aclnnThresholdV2: `x > threshold ? x : value` for f32/f16/bf16, out of self's dtype and
/// shape; the scalars are read as f32 (`ToFloat`) and converted to self's dtype, as the
/// kernel does. Unlike aclnnThreshold (and torch), a NaN x gives value.
pub fn threshold_v2(
    self_: &TensorDesc,
    threshold: &Scalar,
    value: &Scalar,
    out: &TensorDesc,
) -> Result<Executor> {
    const RULE: Rule = Rule {
        a: HALFS,
        out: HALFS,
        out_rule: OutRule::Equal,
    };
    let (t, v) = (attr(threshold), attr(value));
    unary::build(
        "aclnnThresholdV2",
        &RULE,
        "self",
        self_,
        Some(("out", out)),
        move |d| {
            let mut c = Compute::same(d, unary_kernel::<ThresholdGt> as KernelFn);
            c.params = Params {
                scalars: smallvec::smallvec![t.cast(d).cast(F32), v.cast(d).cast(F32)],
                ints: Default::default(),
            };
            Ok(c)
        },
    )
}

/// aclnnFastGeluV2: the doc's piecewise-polynomial GELU (see `f::FAST_GELU_V2`); x
/// f32/f16/bf16, out of x's dtype and shape.
pub fn fast_gelu_v2(x: &TensorDesc, out: &TensorDesc) -> Result<Executor> {
    const RULE: Rule = Rule {
        a: HALFS,
        out: HALFS,
        out_rule: OutRule::Equal,
    };
    pointwise::<{ f::FAST_GELU_V2 }>("aclnnFastGeluV2", &RULE, "x", x, Some(("out", out)), &[])
}

/// aclnnGeluV2: GELU with `approximate` 0 (exact, erf) or 1 (tanh); y has x's dtype. Like
/// the device (aclnn_gelu_v2.cpp maps every value but 1 to "none"), other values compute
/// the exact form.
pub fn gelu_v2(x: &TensorDesc, approximate: i64, y: &TensorDesc) -> Result<Executor> {
    const RULE: Rule = Rule {
        a: HALFS,
        out: HALFS,
        out_rule: OutRule::Equal,
    };
    if approximate == 1 {
        pointwise::<{ f::GELU_TANH }>("aclnnGeluV2", &RULE, "x", x, Some(("y", y)), &[])
    } else {
        pointwise::<{ f::GELU_ERF }>("aclnnGeluV2", &RULE, "x", x, Some(("y", y)), &[])
    }
}

// ---------------------------------------------------------------------------------------
// Gated activations: act(one half of a dim) · the other half
// ---------------------------------------------------------------------------------------

/// `act(a)·b` in f64 from the compute type's values, rounded once; `G` is a `Pointwise`
/// formula (GELU_ERF, GELU_TANH, SILU or SIGMOID).
struct Gated<T, const G: u8>(PhantomData<T>);
impl<T: Real, const G: u8> BinaryOp for Gated<T, G> {
    type A = T;
    type B = T;
    type O = T;
    fn new(_: &Params) -> Self {
        Gated(PhantomData)
    }
    #[inline(always)]
    fn apply(&self, a: T, b: T) -> T {
        T::narrow(eval::<T>(G, a.widen(), &[0.0; 3]) * b.widen())
    }
}

/// The gated kernel and the activation's own kernel of formula `G` for a float dtype.
fn gated_kernels<const G: u8>(d: DType) -> (KernelFn, KernelFn) {
    let product = match d {
        F64 => binary::<Gated<f64, G>> as KernelFn,
        _ => binary_wide::<Gated<f32, G>>,
    };
    (product, pointwise_kernel::<G>(d))
}

/// The halves of a gated activation: `x` split along `axis`; `activated` names the half the
/// activation applies to (the left one unless `activate_left` is false).
struct Halves {
    activated: TensorDesc,
    gate: TensorDesc,
    /// x's shape with `axis` halved: the shape of every output.
    shape: crate::tensor::Dims,
}

fn halves(x_name: &str, x: &TensorDesc, axis: usize, activate_left: bool) -> Result<Halves> {
    let n = x.shape[axis];
    crate::ensure!(
        n % 2 == 0,
        "{x_name} has shape {:?}: its dim {axis} ({n}) must be even to split into halves",
        x.shape
    );
    let (left, right) = (x.narrowed(axis, 0, n / 2), x.narrowed(axis, n / 2, n / 2));
    let mut shape = x.shape.clone();
    shape[axis] = n / 2;
    let (activated, gate) = if activate_left {
        (left, right)
    } else {
        (right, left)
    };
    Ok(Halves {
        activated,
        gate,
        shape,
    })
}

/// An output of a gated activation: x's dtype and the halved shape.
fn check_gated_out(
    name: &str,
    out: &TensorDesc,
    x_name: &str,
    x: &TensorDesc,
    h: &Halves,
) -> Result<()> {
    crate::ensure!(
        out.dtype == x.dtype,
        "{name} has dtype {} but must have {x_name}'s dtype {}",
        out.dtype,
        x.dtype
    );
    ew::check_result_shape(name, out, &h.shape)
}

/// Plans `out = act(activated)·gate` and, with `out_act`, `out_act = act(activated)`:
/// bindings are x, out (and out_act); both halves of x are bound to x's one binding, so
/// re-pointing x moves both.
fn gated(
    api: &'static str,
    x_name: &'static str,
    x: &TensorDesc,
    h: &Halves,
    kernels: (KernelFn, KernelFn),
    out_name: &'static str,
    out: &TensorDesc,
    out_act: Option<(&'static str, &TensorDesc)>,
) -> Result<Executor> {
    let v = Via::of(x.dtype);
    let (gk, ak) = kernels;
    let mut seq = Sequence::new();
    let mut tensors = vec![Some(x.clone()), Some(out.clone())];
    let mut outputs: crate::executor::Outputs = smallvec::smallvec![1];
    // The product first: the engine reads its inputs before writing out even where out
    // overlaps x. The second step could not: with two outputs, none may overlap x or
    // the other (the device computes into buffers of its own and copies).
    let step = ew::executor(
        api,
        &[
            Arg::Tensor(x_name, &h.activated),
            Arg::Tensor(x_name, &h.gate),
        ],
        &[v, v],
        out_name,
        out,
        v,
        gk,
        Params::default(),
        false,
    )?;
    seq.push(step, &[0, 0, 1]);
    if let Some((name, oa)) = out_act {
        for (a, an, b, bn) in [
            (out, out_name, x, x_name),
            (oa, name, x, x_name),
            (out, out_name, oa, name),
        ] {
            crate::ensure!(
                !super::pool::overlap(a, b),
                "{an} overlaps {bn} in memory: {api} does not support outputs that overlap self or each other"
            );
        }
        let step = ew::executor(
            api,
            &[Arg::Tensor(x_name, &h.activated)],
            &[v],
            name,
            oa,
            v,
            ak,
            Params::default(),
            false,
        )?;
        seq.push(step, &[0, 2]);
        tensors.push(Some(oa.clone()));
        outputs.push(2);
    }
    let bindings = Bindings {
        tensors: std::sync::Arc::new(tensors),
        n_inputs: 1,
        outputs,
    };
    Ok(Executor::new(api, bindings, seq))
}

/// aclnnGeluMul (aclnnGeluMul.md): input's last dim (even, ≤ 1024) splits into halves x1,
/// x2; `out = gelu(x1)·x2`. `approximate` is "none" (erf, the default for NULL) or "tanh".
/// Inputs of 2 to 8 dims whose other dims multiply to at most 200000, f32/f16/bf16.
pub fn gelu_mul(
    input: &TensorDesc,
    approximate: Option<&str>,
    out: &TensorDesc,
) -> Result<Executor> {
    const API: &str = "aclnnGeluMul";
    ew::check_tensor("input", input, HALFS)?;
    ew::check_tensor("out", out, HALFS)?;
    let g = match approximate.unwrap_or("none") {
        "none" => gated_kernels::<{ f::GELU_ERF }>(input.dtype),
        "tanh" => gated_kernels::<{ f::GELU_TANH }>(input.dtype),
        other => crate::bail!("approximateOptional is {other:?}: {API} takes \"none\" or \"tanh\""),
    };
    crate::ensure!(
        out.dtype == input.dtype,
        "out has dtype {} but must have input's dtype {}",
        out.dtype,
        input.dtype
    );
    let rank = input.rank();
    crate::ensure!(
        (2..=8).contains(&rank),
        "input has {rank} dims {:?}; {API} takes 2 to 8",
        input.shape
    );
    let last = input.shape[rank - 1];
    crate::ensure!(
        last % 2 == 0 && last <= 1024,
        "input's last dim is {last}: it must be even and at most 1024"
    );
    let rows: usize = input.shape[..rank - 1].iter().product();
    crate::ensure!(
        rows <= 200_000,
        "input's dims but the last multiply to {rows}; {API} takes at most 200000"
    );
    let h = halves("input", input, rank - 1, true)?;
    crate::ensure!(
        out.shape == h.shape,
        "out has shape {:?} but must be input's shape with the last dim halved, {:?}",
        out.shape,
        h.shape
    );
    out.check_output("out")?;
    gated(API, "input", input, &h, g, "out", out, None)
}

/// aclnnSwiGlu (aclnnSwiGlu.md): `out = silu(A)·B`, A and B the halves of x along `dim`
/// (even); out has x's dtype, f32/f16/bf16.
pub fn swi_glu(x: &TensorDesc, dim: i64, out: &TensorDesc) -> Result<Executor> {
    const API: &str = "aclnnSwiGlu";
    ew::check_tensor("x", x, HALFS)?;
    ew::check_tensor("out", out, HALFS)?;
    crate::ensure!(x.rank() > 0, "x is 0-d: {API} needs a dim to split");
    let axis = ew::axis("dim", dim, x.rank(), "x")?;
    let h = halves("x", x, axis, true)?;
    check_gated_out("out", out, "x", x, &h)?;
    gated(
        API,
        "x",
        x,
        &h,
        gated_kernels::<{ f::SILU }>(x.dtype),
        "out",
        out,
        None,
    )
}

fn geglu_common(
    api: &'static str,
    self_: &TensorDesc,
    dim: i64,
    approximate: i64,
    activate_left: bool,
    out: &TensorDesc,
    out_gelu: &TensorDesc,
) -> Result<Executor> {
    ew::check_tensor("self", self_, HALFS)?;
    ew::check_tensor("out", out, HALFS)?;
    ew::check_tensor("outGelu", out_gelu, HALFS)?;
    crate::ensure!(
        self_.rank() > 0,
        "self is 0-d: {api} needs a dim to split into halves"
    );
    let axis = ew::axis("dim", dim, self_.rank(), "self")?;
    let h = halves("self", self_, axis, activate_left)?;
    check_gated_out("out", out, "self", self_, &h)?;
    check_gated_out("outGelu", out_gelu, "self", self_, &h)?;
    let g = match approximate {
        0 => gated_kernels::<{ f::GELU_ERF }>(self_.dtype),
        1 => gated_kernels::<{ f::GELU_TANH }>(self_.dtype),
        _ => crate::bail!("approximate is {approximate}: it must be 0 (none) or 1 (tanh)"),
    };
    gated(
        api,
        "self",
        self_,
        &h,
        g,
        "out",
        out,
        Some(("outGelu", out_gelu)),
    )
}

/// aclnnGeGlu: `outGelu = gelu(B)`, `out = A·gelu(B)` with A, B the halves of self along
/// `dim` (CANN's GeGlu activates the right half: aclnn_geglu.cpp passes activateLeft false).
pub fn geglu(
    self_: &TensorDesc,
    dim: i64,
    approximate: i64,
    out: &TensorDesc,
    out_gelu: &TensorDesc,
) -> Result<Executor> {
    geglu_common("aclnnGeGlu", self_, dim, approximate, false, out, out_gelu)
}

/// aclnnGeGluV3: GeGlu whose activated half is the left one when `activateLeft`.
pub fn geglu_v3(
    self_: &TensorDesc,
    dim: i64,
    approximate: i64,
    activate_left: bool,
    out: &TensorDesc,
    out_gelu: &TensorDesc,
) -> Result<Executor> {
    geglu_common(
        "aclnnGeGluV3",
        self_,
        dim,
        approximate,
        activate_left,
        out,
        out_gelu,
    )
}

/// aclnnGlu: `out = A·sigmoid(B)`, A and B the halves of self along `dim` (even);
/// f32/f16/bf16/f64, out a dtype self converts to.
pub fn glu(self_: &TensorDesc, dim: i64, out: &TensorDesc) -> Result<Executor> {
    const API: &str = "aclnnGlu";
    ew::check_tensor("self", self_, HALFS_F64)?;
    ew::check_tensor("out", out, HALFS_F64)?;
    ew::check_out_cast(self_.dtype, "out", out)?;
    crate::ensure!(self_.rank() > 0, "self is 0-d: {API} needs a dim to split");
    let axis = ew::axis("dim", dim, self_.rank(), "self")?;
    let h = halves("self", self_, axis, false)?;
    ew::check_result_shape("out", out, &h.shape)?;
    gated(
        API,
        "self",
        self_,
        &h,
        gated_kernels::<{ f::SIGMOID }>(self_.dtype),
        "out",
        out,
        None,
    )
}

const HALFS_CASTABLE: Rule = Rule {
    a: HALFS,
    out: HALFS,
    out_rule: OutRule::Castable,
};
const HALFS_EQUAL: Rule = Rule {
    a: HALFS,
    out: HALFS,
    out_rule: OutRule::Equal,
};

fn celu_common(
    api: &'static str,
    name: &'static str,
    x: &TensorDesc,
    alpha: &Scalar,
    out: Option<&TensorDesc>,
) -> Result<Executor> {
    ew::check_tensor(name, x, HALFS)?;
    check_attr("alpha", alpha, F32)?;
    let a = attr(alpha).get::<f64>();
    crate::ensure!(
        a != 0.0 && !a.is_nan(),
        "alpha is {a}: {api} needs a non-zero alpha"
    );
    pointwise::<{ f::CELU }>(
        api,
        &HALFS_CASTABLE,
        name,
        x,
        out.map(|o| ("out", o)),
        &[*alpha],
    )
}

/// aclnnCelu: x > 0 ? x : alpha·(e^(x/alpha) − 1); alpha non-zero.
pub fn celu(self_: &TensorDesc, alpha: &Scalar, out: &TensorDesc) -> Result<Executor> {
    celu_common("aclnnCelu", "self", self_, alpha, Some(out))
}

/// aclnnInplaceCelu.
pub fn inplace_celu(self_ref: &TensorDesc, alpha: &Scalar) -> Result<Executor> {
    celu_common("aclnnInplaceCelu", "selfRef", self_ref, alpha, None)
}

/// aclnnMish: x·tanh(ln(1 + e^x)); out has self's dtype.
pub fn mish(self_: &TensorDesc, out: &TensorDesc) -> Result<Executor> {
    pointwise::<{ f::MISH }>(
        "aclnnMish",
        &HALFS_EQUAL,
        "self",
        self_,
        Some(("out", out)),
        &[],
    )
}

/// aclnnInplaceMish.
pub fn inplace_mish(self_ref: &TensorDesc) -> Result<Executor> {
    pointwise::<{ f::MISH }>(
        "aclnnInplaceMish",
        &HALFS_EQUAL,
        "selfRef",
        self_ref,
        None,
        &[],
    )
}

/// aclnnSoftshrink: x > lambd ? x − lambd : x < −lambd ? x + lambd : 0; lambd ≥ 0.
pub fn softshrink(self_: &TensorDesc, lambd: &Scalar, out: &TensorDesc) -> Result<Executor> {
    ew::check_tensor("self", self_, HALFS)?;
    let l = attr(lambd).get::<f64>();
    crate::ensure!(l >= 0.0, "lambd is {l}: it must be >= 0");
    pointwise::<{ f::SOFTSHRINK }>(
        "aclnnSoftshrink",
        &HALFS_CASTABLE,
        "self",
        self_,
        Some(("out", out)),
        &[*lambd],
    )
}

/// aclnnHardshrink: −lambd ≤ x ≤ lambd ? 0 : x (a negative lambd counts as 0, as on the device).
pub fn hardshrink(self_: &TensorDesc, lambd: &Scalar, out: &TensorDesc) -> Result<Executor> {
    let l = attr(lambd).get::<f64>();
    let l = Scalar::from_value(if l < 0.0 { 0.0f32 } else { l as f32 });
    pointwise::<{ f::HARDSHRINK }>(
        "aclnnHardshrink",
        &HALFS_CASTABLE,
        "self",
        self_,
        Some(("out", out)),
        &[l],
    )
}

/// aclnnSwish: x·sigmoid(beta·x), beta 1 when NULL.
pub fn swish(self_: &TensorDesc, beta: Option<&Scalar>, out: &TensorDesc) -> Result<Executor> {
    let beta = match beta {
        Some(b) => {
            check_attr("betaOptional", b, F32)?;
            *b
        }
        None => Scalar::from_value(1.0f32),
    };
    pointwise::<{ f::SWISH }>(
        "aclnnSwish",
        &HALFS_CASTABLE,
        "self",
        self_,
        Some(("out", out)),
        &[beta],
    )
}

/// aclnnFastGelu: x·sigmoid(1.702·x); out has self's dtype.
pub fn fast_gelu(self_: &TensorDesc, out: &TensorDesc) -> Result<Executor> {
    pointwise::<{ f::FAST_GELU }>(
        "aclnnFastGelu",
        &HALFS_EQUAL,
        "self",
        self_,
        Some(("out", out)),
        &[],
    )
}

// ---------------------------------------------------------------------------------------
// Selu, LogSigmoid, Shrink, Erfinv, RReluWithNoise (eval), Hardtanh, AddRelu, Heaviside,
// FatreluMul
// ---------------------------------------------------------------------------------------

/// Selu's A2 list (aclnn_selu.cpp): int32 and int8 too.
const SELU: &[DType] = &[F32, F16, S32, S8, BF16];
/// Erfinv's inputs (aclnnErfinv.md): integers and bool compute in f32.
const ERFINV_IN: &[DType] = &[F32, F16, BF16, Bool, S8, S16, S32, S64, U8];
/// Shrink's list (aclnn_shrink.cpp).
const SHRINK: &[DType] = &[F32, F16];
/// Hardtanh's A2 list (aclnn_hardtanh.cpp); its bounds take the same dtypes.
const HARDTANH: &[DType] = &[F16, F32, F64, S8, U8, S16, S32, S64, BF16];
/// AddRelu's A2 list (aclnn_add_relu.cpp).
const ADD_RELU: &[DType] = &[BF16, F16, F32, S8, U8, S16, S32, S64];

/// The value/kernel dtypes of a float formula on `d`: floats as usual (f16/bf16 through
/// f32); an integer input is read into f32 and the f32 result rounds back into `d` (by the
/// conversion rule: truncation) before any cast to out, as the device's integer kernels do.
fn float_formula_via(d: DType) -> Via {
    if d.is_float() {
        Via::of(d)
    } else {
        Via {
            value: d,
            kernel: F32,
        }
    }
}

fn selu_common(
    api: &'static str,
    name: &'static str,
    x: &TensorDesc,
    out: Option<&TensorDesc>,
) -> Result<Executor> {
    const RULE: Rule = Rule {
        a: SELU,
        out: SELU,
        out_rule: OutRule::Castable,
    };
    unary::build(api, &RULE, name, x, out.map(|o| ("out", o)), |d| {
        let v = float_formula_via(d);
        Ok(Compute {
            checked: d,
            input: v,
            result: v,
            kernel: pointwise_kernel::<{ f::SELU }>(v.kernel),
            narrow: None,
            params: Params::default(),
        })
    })
}

/// aclnnSelu: scale·(max(0, x) + min(0, alpha·(e^x − 1))), alpha ≈ 1.6733, scale ≈ 1.0507
/// (torch's constants); int8/int32 compute in f32 and truncate into self's dtype; the
/// result is then converted to out (any dtype of the list).
pub fn selu(self_: &TensorDesc, out: &TensorDesc) -> Result<Executor> {
    selu_common("aclnnSelu", "self", self_, Some(out))
}

/// aclnnInplaceSelu.
pub fn inplace_selu(self_ref: &TensorDesc) -> Result<Executor> {
    selu_common("aclnnInplaceSelu", "selfRef", self_ref, None)
}

/// aclnnLogSigmoid: ln(1/(1 + e^(−x))), computed as −ln(1 + e^(−x)) without overflow;
/// out has self's dtype.
pub fn log_sigmoid(self_: &TensorDesc, out: &TensorDesc) -> Result<Executor> {
    log_sigmoid_as("aclnnLogSigmoid", self_, out)
}

/// aclnnLogSigmoidForward: LogSigmoid; `buffer` is the device kernel's scratch for the
/// backward pass, which CANN's own implementation does not write either (it may be NULL).
pub fn log_sigmoid_forward(
    self_: &TensorDesc,
    out: &TensorDesc,
    _buffer: Option<&TensorDesc>,
) -> Result<Executor> {
    log_sigmoid_as("aclnnLogSigmoidForward", self_, out)
}

fn log_sigmoid_as(api: &'static str, self_: &TensorDesc, out: &TensorDesc) -> Result<Executor> {
    pointwise::<{ f::LOGSIGMOID }>(api, &HALFS_EQUAL, "self", self_, Some(("out", out)), &[])
}

/// aclnnShrink (ONNX Shrink): x > lambd ? x − bias : x < −lambd ? x + bias : 0, lambd ≥ 0;
/// lambd and bias are read as f32 (`ToFloat`); out is f32 or f16.
pub fn shrink(
    self_: &TensorDesc,
    lambd: &Scalar,
    bias: &Scalar,
    out: &TensorDesc,
) -> Result<Executor> {
    const RULE: Rule = Rule {
        a: SHRINK,
        out: SHRINK,
        out_rule: OutRule::Castable,
    };
    ew::check_tensor("self", self_, SHRINK)?;
    ew::check_tensor("out", out, SHRINK)?;
    crate::ensure!(
        self_.shape == out.shape,
        "self has shape {:?} but out has {:?}: they must be equal",
        self_.shape,
        out.shape
    );
    let l = attr(lambd).get::<f64>();
    crate::ensure!(l >= 0.0 || l.is_nan(), "lambd is {l}: it must be >= 0");
    pointwise::<{ f::SHRINK }>(
        "aclnnShrink",
        &RULE,
        "self",
        self_,
        Some(("out", out)),
        &[*lambd, *bias],
    )
}

fn erfinv_common(
    api: &'static str,
    name: &'static str,
    x: &TensorDesc,
    out: Option<&TensorDesc>,
) -> Result<Executor> {
    let rule = Rule {
        a: if out.is_some() { ERFINV_IN } else { HALFS },
        out: HALFS,
        out_rule: OutRule::Castable,
    };
    unary::build(api, &rule, name, x, out.map(|o| ("out", o)), |d| {
        let c = unary::floating(d);
        Ok(Compute::same(c, pointwise_kernel::<{ f::ERFINV }>(c)))
    })
}

/// aclnnErfinv: the inverse error function (±inf at ±1, NaN outside [−1, 1]); integer
/// and bool inputs compute in f32; out is a float dtype the result converts to.
pub fn erfinv(self_: &TensorDesc, out: &TensorDesc) -> Result<Executor> {
    erfinv_common("aclnnErfinv", "self", self_, Some(out))
}

/// aclnnInplaceErfinv (f32/f16/bf16).
pub fn inplace_erfinv(self_ref: &TensorDesc) -> Result<Executor> {
    erfinv_common("aclnnInplaceErfinv", "selfRef", self_ref, None)
}

#[allow(clippy::too_many_arguments)]
fn rrelu_common(
    api: &'static str,
    self_: &TensorDesc,
    noise: &TensorDesc,
    lower: &Scalar,
    upper: &Scalar,
    training: bool,
    out: Option<&TensorDesc>,
) -> Result<Executor> {
    const RULE: Rule = Rule {
        a: HALFS,
        out: HALFS,
        out_rule: OutRule::Equal,
    };
    ew::check_tensor("self", self_, HALFS)?;
    ew::check_tensor("noise", noise, HALFS)?;
    for (name, s) in [("lower", lower), ("upper", upper)] {
        ew::check_scalar_dtype(name, s.dtype, HALFS)?;
    }
    let o = out.unwrap_or(self_);
    ew::check_tensor("out", o, HALFS)?;
    for (name, t) in [("self", self_), ("noise", noise)] {
        crate::ensure!(
            t.dtype == o.dtype,
            "{name} has dtype {} but out has {}: {api} needs one dtype",
            t.dtype,
            o.dtype
        );
    }
    crate::ensure!(
        self_.shape == o.shape,
        "self has shape {:?} but out has {:?}: they must be equal",
        self_.shape,
        o.shape
    );
    crate::ensure!(
        !training,
        "training is true: {api}'s training form draws its slopes from the device's random \
         generator (seed, offset), which aclnn-cpu does not reproduce; only the inference \
         form (training false) is implemented"
    );
    // Inference: LeakyRelu with slope (lower + upper)/2, computed in f32 as the device does.
    let slope = (attr(lower).get::<f64>() as f32 + attr(upper).get::<f64>() as f32) / 2.0;
    pointwise::<{ f::LEAKY_RELU }>(
        api,
        &RULE,
        "self",
        self_,
        out.map(|o| ("out", o)),
        &[Scalar::from_value(slope)],
    )
}

/// aclnnRReluWithNoise, inference form (training false): x > 0 ? x : x·(lower + upper)/2;
/// noise is checked (dtype) but not read or written. The training form (random slopes
/// from the device's generator) returns ACLNN_ERR_PARAM_INVALID naming it.
#[allow(clippy::too_many_arguments)]
pub fn rrelu_with_noise(
    self_: &TensorDesc,
    noise: &TensorDesc,
    lower: &Scalar,
    upper: &Scalar,
    training: bool,
    _seed: i64,
    _offset: i64,
    out: &TensorDesc,
) -> Result<Executor> {
    rrelu_common(
        "aclnnRReluWithNoise",
        self_,
        noise,
        lower,
        upper,
        training,
        Some(out),
    )
}

/// aclnnInplaceRReluWithNoise: the inference form in place into self.
pub fn inplace_rrelu_with_noise(
    self_: &TensorDesc,
    noise: &TensorDesc,
    lower: &Scalar,
    upper: &Scalar,
    training: bool,
    _seed: i64,
    _offset: i64,
) -> Result<Executor> {
    rrelu_common(
        "aclnnInplaceRReluWithNoise",
        self_,
        noise,
        lower,
        upper,
        training,
        None,
    )
}

fn hardtanh_common(
    api: &'static str,
    name: &'static str,
    self_: &TensorDesc,
    min: &Scalar,
    max: &Scalar,
    out: Option<&TensorDesc>,
) -> Result<Executor> {
    const RULE: Rule = Rule {
        a: HARDTANH,
        out: HARDTANH,
        out_rule: OutRule::Equal,
    };
    ew::check_tensor(name, self_, HARDTANH)?;
    for (n, s) in [("clipValueMin", min), ("clipValueMax", max)] {
        ew::check_scalar_dtype(n, s.dtype, HARDTANH)?;
    }
    if let Some(o) = out {
        crate::ensure!(
            o.dtype == self_.dtype,
            "out has dtype {} but must have self's dtype {}",
            o.dtype,
            self_.dtype
        );
    }
    // The device compares the bounds in min's kind (integers as i64, floats as f64).
    let bad = if min.dtype.is_int() {
        min.cast(S64).get::<i64>() > max.cast(S64).get::<i64>()
    } else {
        min.cast(F64).get::<f64>() > max.cast(F64).get::<f64>()
    };
    crate::ensure!(
        !bad,
        "clipValueMin {:?} is greater than clipValueMax {:?}: min must be <= max",
        min.cast(F64).get::<f64>(),
        max.cast(F64).get::<f64>()
    );
    unary::build(api, &RULE, name, self_, out.map(|o| ("out", o)), |d| {
        let c = d.compute();
        // The bounds become tensors of self's dtype (ConvertToTensor), then widen.
        let mut comp = Compute::same(d, super::clamp::scalar_bounds_kernel(c));
        comp.params = Params {
            scalars: smallvec::smallvec![min.cast(d).cast(c), max.cast(d).cast(c)],
            ints: smallvec::smallvec![1, 1],
        };
        Ok(comp)
    })
}

/// aclnnHardtanh: min(max(x, clipValueMin), clipValueMax) in self's dtype (the bounds
/// converted to it; NaN stays NaN); out has self's dtype; min > max is refused.
pub fn hardtanh(
    self_: &TensorDesc,
    min: &Scalar,
    max: &Scalar,
    out: &TensorDesc,
) -> Result<Executor> {
    hardtanh_common("aclnnHardtanh", "self", self_, min, max, Some(out))
}

/// aclnnInplaceHardtanh.
pub fn inplace_hardtanh(self_ref: &TensorDesc, min: &Scalar, max: &Scalar) -> Result<Executor> {
    hardtanh_common("aclnnInplaceHardtanh", "selfRef", self_ref, min, max, None)
}

/// `relu(a + alpha·b)` in the kernel type (NaN stays NaN; alpha in `Params::scalars[0]`).
struct PlusRelu<T>(T);
impl<T: crate::engine::kernel::Arith + super::extremum::Extremum> BinaryOp for PlusRelu<T> {
    type A = T;
    type B = T;
    type O = T;
    fn new(p: &Params) -> Self {
        PlusRelu(p.scalars[0].get::<T>())
    }
    #[inline(always)]
    fn apply(&self, a: T, b: T) -> T {
        a.add(self.0.mul(b)).maximum(T::default())
    }
}

fn add_relu_common(
    api: &'static str,
    self_name: &'static str,
    self_: &TensorDesc,
    other: &TensorDesc,
    alpha: &Scalar,
    out: Option<&TensorDesc>,
) -> Result<Executor> {
    use super::binary::{self as bin, Dtypes, Operand};
    const DTYPES: Dtypes = Dtypes {
        a: ADD_RELU,
        b: ADD_RELU,
        out: ADD_RELU,
    };
    ew::check_scalar_dtype("alpha", alpha.dtype, ADD_RELU)?;
    if out.is_none() {
        let shape = crate::broadcast::broadcast_shapes(&[
            (self_name, &self_.shape),
            ("other", &other.shape),
        ])?;
        crate::ensure!(
            shape[..] == self_.shape[..],
            "selfRef has shape {:?} but the broadcast shape is {shape:?}: it must hold the result",
            self_.shape
        );
    }
    bin::build(
        api,
        &DTYPES,
        Operand::Tensor(self_name, self_),
        Operand::Tensor("other", other),
        out.map(|o| ("out", o)),
        |p| {
            crate::ensure!(
                can_cast(alpha.dtype, p),
                "alpha of dtype {} cannot be cast to the promoted dtype {p}",
                alpha.dtype
            );
            let c = p.compute();
            // Floats add in f32 with alpha read as f32 (the device's Axpy); integers with
            // alpha converted to the promoted dtype.
            let a = if p.is_float() {
                attr(alpha).cast(c)
            } else {
                alpha.cast(p).cast(c)
            };
            let k = match c {
                S8 => binary::<PlusRelu<i8>> as KernelFn,
                U8 => binary::<PlusRelu<u8>>,
                S16 => binary::<PlusRelu<i16>>,
                S32 => binary::<PlusRelu<i32>>,
                S64 => binary::<PlusRelu<i64>>,
                _ => binary::<PlusRelu<f32>>,
            };
            let mut comp = Compute::same(p, k);
            comp.params = Params {
                scalars: smallvec::smallvec![a],
                ints: Default::default(),
            };
            Ok(comp)
        },
    )
}

/// aclnnAddRelu: relu(self + alpha·other), self and other broadcast and promote; the
/// result (in the promoted dtype) is converted to out. f16/bf16 compute in f32 and round
/// once (a multiply and an add, not fused).
pub fn add_relu(
    self_: &TensorDesc,
    other: &TensorDesc,
    alpha: &Scalar,
    out: &TensorDesc,
) -> Result<Executor> {
    add_relu_common("aclnnAddRelu", "self", self_, other, alpha, Some(out))
}

/// aclnnInplaceAddRelu: selfRef = relu(selfRef + alpha·other); selfRef holds the
/// broadcast shape.
pub fn inplace_add_relu(
    self_ref: &TensorDesc,
    other: &TensorDesc,
    alpha: &Scalar,
) -> Result<Executor> {
    add_relu_common(
        "aclnnInplaceAddRelu",
        "selfRef",
        self_ref,
        other,
        alpha,
        None,
    )
}

/// `x == 0 ? v : (x > 0 ? 1 : 0)` (torch.heaviside: NaN gives 0).
struct HeavisideOp<T>(PhantomData<T>);
impl<T: Real> BinaryOp for HeavisideOp<T> {
    type A = T;
    type B = T;
    type O = T;
    fn new(_: &Params) -> Self {
        HeavisideOp(PhantomData)
    }
    #[inline(always)]
    fn apply(&self, x: T, v: T) -> T {
        let w = x.widen();
        if w == 0.0 {
            v
        } else {
            T::narrow((w > 0.0) as u8 as f64)
        }
    }
}

/// aclnnHeaviside: the step function, `values` where input is ±0; input, values and out
/// of one dtype (f32/f16/bf16, as torch), input and values broadcast to out's shape.
pub fn heaviside(input: &TensorDesc, values: &TensorDesc, out: &TensorDesc) -> Result<Executor> {
    const API: &str = "aclnnHeaviside";
    for (n, t) in [("input", input), ("values", values), ("out", out)] {
        ew::check_tensor(n, t, HALFS)?;
    }
    for (n, t) in [("values", values), ("out", out)] {
        crate::ensure!(
            t.dtype == input.dtype,
            "{n} has dtype {} but must have input's dtype {}",
            t.dtype,
            input.dtype
        );
    }
    ew::check_out_shape(
        input.dtype,
        &[("input", &input.shape), ("values", &values.shape)],
        "out",
        out,
    )?;
    out.check_output("out")?;
    let v = Via::of(input.dtype);
    ew::executor(
        API,
        &[Arg::Tensor("input", input), Arg::Tensor("values", values)],
        &[v, v],
        "out",
        out,
        v,
        binary::<HeavisideOp<f32>> as KernelFn,
        Params::default(),
        false,
    )
}

/// `(x1 > t ? x1 : 0)·x2` in f64 from the f32 values, rounded once.
struct FatreluMulOp;
impl crate::engine::kernel::TernaryOp for FatreluMulOp {
    type A = f32;
    type B = f32;
    type C = f32;
    type O = f32;
    fn new(_: &Params) -> Self {
        FatreluMulOp
    }
    #[inline(always)]
    fn apply(&self, x1: f32, x2: f32, t: f32) -> f32 {
        let a = if x1 > t { x1 as f64 } else { 0.0 };
        (a * x2 as f64) as f32
    }
}

/// aclnnFatreluMul (aclnnFatreluMul.md): input's last dim (even, ≤ 1024) splits into
/// halves x1, x2; `out = (x1 > threshold ? x1 : 0)·x2`, threshold a one-element tensor of
/// input's dtype read when the work runs. Inputs of 2 to 8 dims whose other dims multiply
/// to at most 200000, f32/f16/bf16; out has input's dtype.
pub fn fatrelu_mul(
    input: &TensorDesc,
    threshold: &TensorDesc,
    out: &TensorDesc,
) -> Result<Executor> {
    const API: &str = "aclnnFatreluMul";
    for (n, t) in [("input", input), ("threshold", threshold), ("out", out)] {
        ew::check_tensor(n, t, HALFS)?;
    }
    for (n, t) in [("threshold", threshold), ("out", out)] {
        crate::ensure!(
            t.dtype == input.dtype,
            "{n} has dtype {} but must have input's dtype {}",
            t.dtype,
            input.dtype
        );
    }
    crate::ensure!(
        threshold.numel() == 1,
        "threshold has shape {:?}: it must hold exactly one element",
        threshold.shape
    );
    let rank = input.rank();
    crate::ensure!(
        (2..=8).contains(&rank),
        "input has {rank} dims {:?}; {API} takes 2 to 8",
        input.shape
    );
    let last = input.shape[rank - 1];
    crate::ensure!(
        last % 2 == 0 && last <= 1024,
        "input's last dim is {last}: it must be even and at most 1024"
    );
    let rows: usize = input.shape[..rank - 1].iter().product();
    crate::ensure!(
        rows <= 200_000,
        "input's dims but the last multiply to {rows}; {API} takes at most 200000"
    );
    let h = halves("input", input, rank - 1, true)?;
    crate::ensure!(
        out.shape == h.shape,
        "out has shape {:?} but must be input's shape with the last dim halved, {:?}",
        out.shape,
        h.shape
    );
    out.check_output("out")?;
    // The threshold as a 0-d view of its one element (any rank broadcasts then).
    let mut t0 = threshold.clone();
    t0.shape.clear();
    t0.strides.clear();
    t0.format = crate::format::Format::ND;
    let v = Via::of(input.dtype);
    let step = ew::executor(
        API,
        &[
            Arg::Tensor("input", &h.activated),
            Arg::Tensor("input", &h.gate),
            Arg::Tensor("threshold", &t0),
        ],
        &[v, v, v],
        "out",
        out,
        v,
        crate::engine::kernel::ternary::<FatreluMulOp> as KernelFn,
        Params::default(),
        false,
    )?;
    let mut seq = Sequence::new();
    seq.push(step, &[0, 0, 1, 2]);
    let bindings = Bindings {
        tensors: std::sync::Arc::new(vec![
            Some(input.clone()),
            Some(threshold.clone()),
            Some(out.clone()),
        ]),
        n_inputs: 2,
        outputs: smallvec::smallvec![2],
    };
    Ok(Executor::new(API, bindings, seq))
}

/// aclnnLogit (loss group): ln(z/(1 − z)) with z = input clamped to [eps, 1 − eps] when
/// eps ≥ 0 (eps < 0, CANN's suggested −1, clamps nothing); eps is read as f32 and 1 − eps
/// computed in f32, as the device's kernel does; out has input's dtype and shape.
pub fn logit(input: &TensorDesc, eps: f64, out: &TensorDesc) -> Result<Executor> {
    let e = eps as f32;
    let attrs = [
        Scalar::from_value(e),
        Scalar::from_value(1.0f32 - e),
        Scalar::from_value((e >= 0.0) as u8 as f32),
    ];
    pointwise::<{ f::LOGIT }>(
        "aclnnLogit",
        &HALFS_EQUAL,
        "input",
        input,
        Some(("out", out)),
        &attrs,
    )
}

/// Supported dtypes, for the operator table (docs/DTYPES.md).
pub const CATALOG: &[Entry] = &[
    Entry {
        ops: "Elu, InplaceElu",
        a: HALFS_F64,
        b: &[],
        out: HALFS_F64,
        rule: "x > 0 ? scale·x : alpha·scale·(e^(inputScale·x) − 1)",
    },
    Entry {
        ops: "EluV2",
        a: HALFS,
        b: &[],
        out: HALFS,
        rule: "x >= 0 ? scale·x : alpha·scale·(e^(inputScale·x) − 1), out dtype = self dtype",
    },
    Entry {
        ops: "ThresholdV2",
        a: HALFS,
        b: &[],
        out: HALFS,
        rule: "x > threshold ? x : value (NaN gives value), out dtype = self dtype",
    },
    Entry {
        ops: "FastGeluV2",
        a: HALFS,
        b: &[],
        out: HALFS,
        rule: "x·(sgn(x)·(−0.1444·(min(|0.7071x|, 1.769) − 1.769)² + 0.5) + 0.5)",
    },
    Entry {
        ops: "LeakyRelu, InplaceLeakyRelu",
        a: HALFS_F64,
        b: &[],
        out: HALFS_F64,
        rule: "x > 0 ? x : negativeSlope·x",
    },
    Entry {
        ops: "Softplus",
        a: HALFS,
        b: &[],
        out: HALFS,
        rule: "beta·x > threshold ? x : ln(1 + e^(beta·x))/beta",
    },
    Entry {
        ops: "Hardsigmoid, InplaceHardsigmoid, HardsigmoidV2, InplaceHardsigmoidV2",
        a: HARDSIGMOID,
        b: &[],
        out: HARDSIGMOID,
        rule: "min(max(x + 3, 0), 6)/6, out dtype = self dtype",
    },
    Entry {
        ops: "Hardswish, InplaceHardswish",
        a: HALFS,
        b: &[],
        out: HALFS,
        rule: "x·min(max(x + 3, 0), 6)/6",
    },
    Entry {
        ops: "Threshold, InplaceThreshold",
        a: THRESHOLD,
        b: &[],
        out: THRESHOLD,
        rule: "x <= threshold ? value : x",
    },
    Entry {
        ops: "GeluV2",
        a: HALFS,
        b: &[],
        out: HALFS,
        rule: "GELU, approximate 0 (erf) / 1 (tanh)",
    },
    Entry {
        ops: "GeluMul",
        a: HALFS,
        b: &[],
        out: HALFS,
        rule: "gelu(x1)·x2 of input's last-dim halves (approximate \"none\"/\"tanh\")",
    },
    Entry {
        ops: "Celu, InplaceCelu",
        a: HALFS,
        b: &[],
        out: HALFS,
        rule: "x > 0 ? x : alpha·(e^(x/alpha) − 1)",
    },
    Entry {
        ops: "Mish, InplaceMish",
        a: HALFS,
        b: &[],
        out: HALFS,
        rule: "x·tanh(ln(1 + e^x)), out dtype = self dtype",
    },
    Entry {
        ops: "Softshrink, Hardshrink",
        a: HALFS,
        b: &[],
        out: HALFS,
        rule: "x shrunk toward 0 by lambd / zeroed within [−lambd, lambd]",
    },
    Entry {
        ops: "Swish, FastGelu",
        a: HALFS,
        b: &[],
        out: HALFS,
        rule: "x·sigmoid(beta·x) (beta 1 if NULL); x·sigmoid(1.702·x)",
    },
    Entry {
        ops: "Glu",
        a: HALFS_F64,
        b: &[],
        out: HALFS_F64,
        rule: "A·sigmoid(B), A and B the halves of dim",
    },
    Entry {
        ops: "SwiGlu",
        a: HALFS,
        b: &[],
        out: HALFS,
        rule: "silu(A)·B, A and B the halves of dim",
    },
    Entry {
        ops: "GeGlu, GeGluV3",
        a: HALFS,
        b: &[],
        out: HALFS,
        rule: "out = gelu(half)·other half, outGelu = gelu(half) (GeGlu: the right half; V3: activateLeft)",
    },
    Entry {
        ops: "Selu, InplaceSelu",
        a: SELU,
        b: &[],
        out: SELU,
        rule: "scale·(max(0, x) + min(0, alpha·(e^x − 1))); integers in f32, truncated",
    },
    Entry {
        ops: "LogSigmoid, LogSigmoidForward",
        a: HALFS,
        b: &[],
        out: HALFS,
        rule: "−ln(1 + e^(−x)), out dtype = self dtype",
    },
    Entry {
        ops: "Shrink",
        a: SHRINK,
        b: &[],
        out: SHRINK,
        rule: "x > lambd ? x − bias : x < −lambd ? x + bias : 0",
    },
    Entry {
        ops: "Erfinv",
        a: ERFINV_IN,
        b: &[],
        out: HALFS,
        rule: "erf⁻¹(x); integers and bool in f32",
    },
    Entry {
        ops: "InplaceErfinv",
        a: HALFS,
        b: &[],
        out: HALFS,
        rule: "erf⁻¹(x) in place",
    },
    Entry {
        ops: "RReluWithNoise, InplaceRReluWithNoise",
        a: HALFS,
        b: HALFS,
        out: HALFS,
        rule: "inference: x > 0 ? x : x·(lower + upper)/2 (training refused)",
    },
    Entry {
        ops: "Hardtanh, InplaceHardtanh",
        a: HARDTANH,
        b: &[],
        out: HARDTANH,
        rule: "min(max(x, min), max) in self's dtype",
    },
    Entry {
        ops: "AddRelu, InplaceAddRelu",
        a: ADD_RELU,
        b: ADD_RELU,
        out: ADD_RELU,
        rule: "relu(self + alpha·other), broadcast and promoted",
    },
    Entry {
        ops: "Heaviside",
        a: HALFS,
        b: HALFS,
        out: HALFS,
        rule: "x == 0 ? values : x > 0, one dtype",
    },
    Entry {
        ops: "FatreluMul",
        a: HALFS,
        b: HALFS,
        out: HALFS,
        rule: "(x1 > threshold ? x1 : 0)·x2 of input's last-dim halves",
    },
    Entry {
        ops: "Logit",
        a: HALFS,
        b: &[],
        out: HALFS,
        rule: "ln(z/(1 − z)), z = clamp(x, eps, 1 − eps) for eps ≥ 0",
    },
];
