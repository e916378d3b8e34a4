//! The shape every unary element-wise operator shares — `out = f(self)`, out with self's
//! shape (no broadcasting), written to `out` or in place into selfRef — and the kernels of
//! the float functions.
//!
//! 1. self's dtype is in the operator's list, and out's too;
//! 2. the operator chooses its computation for self's dtype (integer and bool inputs of a
//!    float function compute in f32; f16/bf16 compute in f32 and round once);
//! 3. out's dtype either must equal a given dtype (Relu, Floor, ...) or must be one the
//!    result converts to (SEMANTICS §5);
//! 4. out's shape is self's; at most 8 dims.

use super::binary::Compute;
use super::elementwise::{self as ew, Arg};
use crate::dtype::DType;
use crate::element::{Bool8, Element, C128, C64};
use crate::engine::kernel::{unary, unary_wide, Src, UnaryOp};
use crate::engine::{KernelFn, Params};
use crate::error::Result;
use crate::executor::Executor;
use crate::tensor::TensorDesc;
use num_complex::ComplexFloat;
use std::marker::PhantomData;

/// How out's dtype is constrained.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum OutRule {
    /// out's dtype must equal `Compute::checked`.
    Equal,
    /// `Compute::checked` must convert to out's dtype.
    Castable,
}

/// An operator's dtype lists and out rule.
pub struct Rule {
    pub a: &'static [DType],
    pub out: &'static [DType],
    pub out_rule: OutRule,
}

/// Builds `out = f(self)`; `out == None` writes in place into self (named selfRef).
pub fn build(
    api: &'static str,
    rule: &Rule,
    self_name: &'static str,
    self_: &TensorDesc,
    out: Option<(&'static str, &TensorDesc)>,
    choose: impl FnOnce(DType) -> Result<Compute>,
) -> Result<Executor> {
    ew::check_tensor(self_name, self_, rule.a)?;
    let (out_name, out_desc) = out.unwrap_or((self_name, self_));
    if out.is_some() {
        ew::check_tensor(out_name, out_desc, rule.out)?;
    }
    let c = choose(self_.dtype)?;
    match rule.out_rule {
        OutRule::Equal => crate::ensure!(
            out_desc.dtype == c.checked,
            "'{out_name}' has dtype {} but must have dtype {} for {self_name} of dtype {}",
            out_desc.dtype,
            c.checked,
            self_.dtype
        ),
        OutRule::Castable => ew::check_out_cast(c.checked, out_name, out_desc)?,
    }
    ew::check_out_shape(
        c.input.value,
        &[(self_name, &self_.shape)],
        out_name,
        out_desc,
    )?;
    ew::executor(
        api,
        &[Arg::Tensor(self_name, self_)],
        &[c.input],
        out_name,
        out_desc,
        c.result,
        c.kernel,
        c.params,
        out.is_none(),
    )
}

/// The float dtype a float function computes in: float and complex dtypes compute in
/// themselves, integer and bool dtypes in f32 (as CANN's Sin of s32 does).
pub fn floating(d: DType) -> DType {
    if d.is_float() || d.is_complex() {
        d
    } else {
        DType::F32
    }
}

/// Function ids: the kernels are generic over them.
pub mod f {
    pub const EXP: u8 = 0;
    pub const LOG: u8 = 1;
    pub const SQRT: u8 = 2;
    pub const RSQRT: u8 = 3;
    pub const SIN: u8 = 4;
    pub const COS: u8 = 5;
    pub const TANH: u8 = 6;
    pub const SIGMOID: u8 = 7;
    pub const GELU: u8 = 8;
    pub const SILU: u8 = 9;
    pub const FLOOR: u8 = 10;
    pub const CEIL: u8 = 11;
    pub const ROUND: u8 = 12;
    pub const RECIPROCAL: u8 = 13;
    pub const ERF: u8 = 14;
    pub const LOG2: u8 = 15;
    pub const EXP2: u8 = 16;
    pub const NEG: u8 = 17;
    pub const SIGN: u8 = 18;
    pub const RELU: u8 = 19;
    pub const ABS: u8 = 20;
    pub const EXPM1: u8 = 21;
    pub const LOG1P: u8 = 22;
    pub const LOG10: u8 = 23;
    pub const COSH: u8 = 24;
    pub const SINH: u8 = 25;
    pub const TAN: u8 = 26;
    pub const TRUNC: u8 = 27;
    pub const ERFC: u8 = 28;
    pub const ACOS: u8 = 29;
    pub const ASIN: u8 = 30;
    pub const ATAN: u8 = 31;
    pub const ACOSH: u8 = 32;
    pub const ASINH: u8 = 33;
    pub const ATANH: u8 = 34;
    pub const SINC: u8 = 35;
    pub const LGAMMA: u8 = 36;
    pub const DIGAMMA: u8 = 37;
    pub const FRAC: u8 = 38;
    pub const SQUARE: u8 = 39;
}

unsafe extern "C" {
    // The C library's error function (glibc's libm, which Rust's std already links).
    fn erf(x: f64) -> f64;
    fn erff(x: f32) -> f32;
    fn erfc(x: f64) -> f64;
    fn erfcf(x: f32) -> f32;
    // The inverse hyperbolic functions: Rust's own overflow for |x| near the top of the
    // range (x + √(x²+1) in the dtype), the C library's do not.
    fn acosh(x: f64) -> f64;
    fn acoshf(x: f32) -> f32;
    fn asinh(x: f64) -> f64;
    fn asinhf(x: f32) -> f32;
    fn atanh(x: f64) -> f64;
    fn atanhf(x: f32) -> f32;
    // The reentrant log-gamma (the plain one writes the global `signgam`).
    fn lgamma_r(x: f64, sign: *mut i32) -> f64;
}

/// ln|Γ(x)| in f64 (glibc's lgamma_r: +inf at 0 and the negative integers).
pub(crate) fn lgamma64(x: f64) -> f64 {
    let mut sign = 0i32;
    // SAFETY: a pure C math function writing only `sign`.
    unsafe { lgamma_r(x, &mut sign) }
}

/// ψ(x) = d/dx ln Γ(x) in f64, with torch's special values: ψ(±0) = ∓inf, NaN at the
/// negative integers and -inf. Negative arguments reflect through ψ(1−x) − π/tan(πx)
/// (the tangent taken of the fractional part, so it stays accurate); positive ones climb
/// with ψ(x) = ψ(x+1) − 1/x to x ≥ 10 and finish with the asymptotic series
/// ln x − 1/(2x) − Σ B₂ₖ/(2k·x²ᵏ) (error below 1e-17 relative there).
pub(crate) fn digamma64(x: f64) -> f64 {
    if x == 0.0 {
        return f64::INFINITY.copysign(-x);
    }
    if x.is_nan() || x == f64::NEG_INFINITY {
        return f64::NAN;
    }
    if x < 0.0 {
        if x == x.trunc() {
            return f64::NAN;
        }
        let r = x - x.trunc();
        return digamma64(1.0 - x) - std::f64::consts::PI / (std::f64::consts::PI * r).tan();
    }
    let mut x = x;
    let mut acc = 0.0;
    while x < 10.0 {
        acc -= 1.0 / x;
        x += 1.0;
    }
    if x == f64::INFINITY {
        return x;
    }
    // B₂ₖ/(2k) for k = 1..8.
    const C: [f64; 8] = [
        1.0 / 12.0,
        -1.0 / 120.0,
        1.0 / 252.0,
        -1.0 / 240.0,
        1.0 / 132.0,
        -691.0 / 32760.0,
        1.0 / 12.0,
        -3617.0 / 8160.0,
    ];
    let z = 1.0 / (x * x);
    let mut series = 0.0;
    for c in C.iter().rev() {
        series = series * z + c;
    }
    acc + x.ln() - 0.5 / x - series * z
}

/// sin(πx)/(πx), 1 at 0 (torch's sinc), in f64.
pub(crate) fn sinc64(x: f64) -> f64 {
    if x == 0.0 {
        1.0
    } else {
        let p = std::f64::consts::PI * x;
        p.sin() / p
    }
}

/// The C library's error function in f64.
pub(crate) fn erf64(x: f64) -> f64 {
    // SAFETY: a pure libm function.
    unsafe { erf(x) }
}

/// The C library's complementary error function in f64 (accurate where 1 − erf cancels).
pub(crate) fn erfc64(x: f64) -> f64 {
    // SAFETY: a pure C math function.
    unsafe { erfc(x) }
}

/// Real float functions (f32, f64), from the C library where it has them.
pub trait RealFloat: Element + PartialOrd + std::ops::Neg<Output = Self> {
    const ZERO: Self;
    const ONE: Self;
    fn from_f64(v: f64) -> Self;
    fn call(self, f: u8) -> Self;
}

macro_rules! real_float {
    ($t:ty, $erf:ident, $erfc:ident, $acosh:ident, $asinh:ident, $atanh:ident, $sigmoid:ident) => {
        impl RealFloat for $t {
            const ZERO: Self = 0.0;
            const ONE: Self = 1.0;
            #[inline(always)]
            fn from_f64(v: f64) -> Self {
                v as $t
            }
            #[inline(always)]
            fn call(self, id: u8) -> Self {
                let x = self;
                // 1/(1+e^-x) in f64 without overflow on either side, so f32 results (the
                // activations below too) round once and stay accurate down to subnormal
                // results: the vectorised form for f32, the C library's exp for f64
                // (see `vmath`).
                let sigmoid = crate::engine::vmath::$sigmoid;
                let w = x as f64;
                match id {
                    f::EXP => x.exp(),
                    f::LOG => x.ln(),
                    f::SQRT => x.sqrt(),
                    f::RSQRT => 1.0 / x.sqrt(),
                    f::SIN => x.sin(),
                    f::COS => x.cos(),
                    f::TANH => x.tanh(),
                    f::SIGMOID => sigmoid(w) as $t,
                    // The tanh approximation CANN documents, 0.5x(1+tanh(u)), written as
                    // x·sigmoid(2u) (the same function) so it does not cancel for x < 0.
                    f::GELU => {
                        let k = (2.0 / std::f64::consts::PI).sqrt();
                        (w * sigmoid(2.0 * k * (w + 0.044715 * w * w * w))) as $t
                    }
                    f::SILU => (w * sigmoid(w)) as $t,
                    f::FLOOR => x.floor(),
                    f::CEIL => x.ceil(),
                    f::ROUND => x.round_ties_even(),
                    f::RECIPROCAL => 1.0 / x,
                    // SAFETY: a pure C math function.
                    f::ERF => unsafe { $erf(x) },
                    // SAFETY: a pure C math function.
                    f::ERFC => unsafe { $erfc(x) },
                    f::EXPM1 => x.exp_m1(),
                    f::LOG1P => x.ln_1p(),
                    f::LOG10 => x.log10(),
                    f::COSH => x.cosh(),
                    f::SINH => x.sinh(),
                    f::TAN => x.tan(),
                    f::TRUNC => x.trunc(),
                    f::LOG2 => x.log2(),
                    f::EXP2 => x.exp2(),
                    f::ACOS => x.acos(),
                    f::ASIN => x.asin(),
                    f::ATAN => x.atan(),
                    // SAFETY (these three): pure C math functions.
                    f::ACOSH => unsafe { $acosh(x) },
                    f::ASINH => unsafe { $asinh(x) },
                    f::ATANH => unsafe { $atanh(x) },
                    // In f64 and rounded once (f32 results are then correctly rounded
                    // but for the f64 evaluation's own error, far below an f32 ulp).
                    f::SINC => sinc64(w) as $t,
                    f::LGAMMA => lgamma64(w) as $t,
                    f::DIGAMMA => digamma64(w) as $t,
                    // x − trunc(x): exact; ±inf gives NaN, as torch's frac does.
                    f::FRAC => x - x.trunc(),
                    f::SQUARE => x * x,
                    f::NEG => -x,
                    f::SIGN => {
                        if x > 0.0 {
                            1.0
                        } else if x < 0.0 {
                            -1.0
                        } else {
                            x // ±0 and NaN keep themselves
                        }
                    }
                    f::RELU => {
                        if x > 0.0 || x.is_nan() {
                            x
                        } else {
                            0.0
                        }
                    }
                    _ => x.abs(),
                }
            }
        }
    };
}
real_float!(f32, erff, erfcf, acoshf, asinhf, atanhf, sigmoid);
real_float!(f64, erf, erfc, acosh, asinh, atanh, sigmoid_libm);

/// Complex functions (complex64, complex128).
pub trait ComplexFn: Element {
    fn call(self, f: u8) -> Self;
}
macro_rules! complex_fn {
    ($t:ty, $r:ty) => {
        impl ComplexFn for $t {
            #[inline(always)]
            fn call(self, id: u8) -> Self {
                let z = self;
                match id {
                    f::EXP => z.exp(),
                    f::LOG => z.ln(),
                    f::SQRT => z.sqrt(),
                    f::RSQRT => z.sqrt().recip(),
                    f::SIN => z.sin(),
                    f::COS => z.cos(),
                    f::TANH => z.tanh(),
                    f::RECIPROCAL => z.recip(),
                    f::NEG => -z,
                    f::LOG10 => z.log10(),
                    f::COSH => z.cosh(),
                    f::SINH => z.sinh(),
                    f::TAN => z.tan(),
                    f::ACOS => z.acos(),
                    f::ASIN => z.asin(),
                    f::ATAN => z.atan(),
                    f::ACOSH => z.acosh(),
                    f::ASINH => z.asinh(),
                    f::ATANH => z.atanh(),
                    f::SQUARE => z * z,
                    // 1/(1+e^-z), in complex128 and rounded once.
                    f::SIGMOID => {
                        let one = num_complex::Complex::new(1.0f64, 0.0);
                        let w = num_complex::Complex::new(z.re as f64, z.im as f64);
                        let w = one / (one + (-w).exp());
                        <$t>::new(w.re as $r, w.im as $r)
                    }
                    // ln z / ln 2 (principal branch), in complex128 and rounded once.
                    f::LOG2 => {
                        let w = num_complex::Complex::new(z.re as f64, z.im as f64).ln()
                            / std::f64::consts::LN_2;
                        <$t>::new(w.re as $r, w.im as $r)
                    }
                    // z / |z|, and 0 for 0.
                    _ => {
                        let a = z.abs();
                        if a == 0.0 {
                            <$t>::new(0.0, 0.0)
                        } else {
                            z / a
                        }
                    }
                }
            }
        }
    };
}
complex_fn!(C64, f32);
complex_fn!(C128, f64);

/// A real float function.
pub struct Real<T, const F: u8>(PhantomData<T>);
impl<T: RealFloat, const F: u8> UnaryOp for Real<T, F> {
    type A = T;
    type O = T;
    fn new(_: &Params) -> Self {
        Real(PhantomData)
    }
    #[inline(always)]
    fn apply(&self, a: T) -> T {
        a.call(F)
    }
}

/// A complex function.
pub struct Cplx<T, const F: u8>(PhantomData<T>);
impl<T: ComplexFn, const F: u8> UnaryOp for Cplx<T, F> {
    type A = T;
    type O = T;
    fn new(_: &Params) -> Self {
        Cplx(PhantomData)
    }
    #[inline(always)]
    fn apply(&self, a: T) -> T {
        a.call(F)
    }
}

/// |z| of a complex number, in its component type.
pub struct Modulus<T>(PhantomData<T>);
impl UnaryOp for Modulus<C64> {
    type A = C64;
    type O = f32;
    fn new(_: &Params) -> Self {
        Modulus(PhantomData)
    }
    #[inline(always)]
    fn apply(&self, a: C64) -> f32 {
        a.norm()
    }
}
impl UnaryOp for Modulus<C128> {
    type A = C128;
    type O = f64;
    fn new(_: &Params) -> Self {
        Modulus(PhantomData)
    }
    #[inline(always)]
    fn apply(&self, a: C128) -> f64 {
        a.norm()
    }
}

/// Integer functions: wrapping abs and negation, relu, sign; floor/round are identities.
pub trait IntFn: Element {
    fn call(self, f: u8) -> Self;
}
macro_rules! int_fn {
    ($($t:ty),*) => {$(
        impl IntFn for $t {
            #[inline(always)]
            #[allow(unused_comparisons)]
            fn call(self, id: u8) -> Self {
                match id {
                    f::NEG => (0 as $t).wrapping_sub(self),
                    f::ABS => if self < 0 { (0 as $t).wrapping_sub(self) } else { self },
                    f::RELU => if self < 0 { 0 } else { self },
                    f::SIGN => if self > 0 { 1 } else if self == 0 { 0 } else { (0 as $t).wrapping_sub(1) },
                    f::SQUARE => self.wrapping_mul(self),
                    f::FRAC => 0,
                    _ => self,
                }
            }
        }
    )*};
}
int_fn!(i8, u8, i16, u16, i32, u32, i64, u64);
impl IntFn for Bool8 {
    #[inline(always)]
    fn call(self, _: u8) -> Self {
        Bool8::new(self.get())
    }
}

/// An integer (or bool) function.
pub struct Int<T, const F: u8>(PhantomData<T>);
impl<T: IntFn, const F: u8> UnaryOp for Int<T, F> {
    type A = T;
    type O = T;
    fn new(_: &Params) -> Self {
        Int(PhantomData)
    }
    #[inline(always)]
    fn apply(&self, a: T) -> T {
        a.call(F)
    }
}

/// aclnnGelu's f32 kernel: on FMA hardware `vmath::gelu_tanh_f32_fma` (≤ 3 ulp; 8 or 16
/// f32 lanes, which is what brings Gelu near the memory bandwidth) for x ≥ −9, the f64
/// formula (≤ 1 ulp) for the other values (NaN, x < −9 where results get subnormal) and
/// on CPUs without FMA. A result depends on its input value only, not on its neighbours.
///
/// # Safety
/// See `KernelFn`.
pub(super) unsafe fn gelu_f32(n: usize, ins: &[Src], out: *mut u8, params: &Params) {
    use crate::engine::vmath::{gelu_tanh_f32_fma, map_f32_blocks};
    #[inline(always)]
    fn run(x: &[f32], y: &mut [f32]) {
        let slow = |v: f32| v.call(f::GELU);
        map_f32_blocks(x, y, |v| v >= -9.0, gelu_tanh_f32_fma, slow);
    }
    #[cfg(target_arch = "x86_64")]
    {
        #[target_feature(enable = "avx512f,avx2,fma")]
        fn avx512(x: &[f32], y: &mut [f32]) {
            run(x, y)
        }
        #[target_feature(enable = "avx2,fma")]
        fn avx2(x: &[f32], y: &mut [f32]) {
            run(x, y)
        }
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
        {
            let wide = std::arch::is_x86_feature_detected!("avx512f");
            // SAFETY: the CPU has the features each function is compiled for.
            let run = |x: &[f32], y: &mut [f32]| unsafe {
                if wide {
                    avx512(x, y)
                } else {
                    avx2(x, y)
                }
            };
            // SAFETY: the engine passes `n` writable, aligned f32 and `n` readable ones (one
            // for a scalar operand).
            let y = unsafe { std::slice::from_raw_parts_mut(out as *mut f32, n) };
            match ins[0] {
                // SAFETY: as above.
                Src::Slice(x) => run(unsafe { std::slice::from_raw_parts(x as *const f32, n) }, y),
                Src::Scalar(x) => {
                    let mut one = [0f32];
                    // SAFETY: as above.
                    run(&[unsafe { *(x as *const f32) }], &mut one);
                    y.fill(one[0]);
                }
            }
            return;
        }
    }
    // SAFETY: forwarded from the caller.
    unsafe { unary_wide::<Real<f32, { f::GELU }>>(n, ins, out, params) }
}

/// The kernel of function `F` for compute dtype `c` (f16/bf16 compute in f32).
pub fn kernel<const F: u8>(c: DType) -> Result<KernelFn> {
    Ok(match c.compute() {
        // The exponential-based activations are arithmetic-bound: their f32 kernels also
        // have an AVX-512 build (the others are not compiled a third time; the branch is
        // resolved per F at compile time).
        DType::F32 if F == f::GELU => gelu_f32 as KernelFn,
        DType::F32 if const { matches!(F, f::SIGMOID | f::SILU) } => {
            unary_wide::<Real<f32, F>> as KernelFn
        }
        DType::F32 => unary::<Real<f32, F>> as KernelFn,
        DType::F64 => unary::<Real<f64, F>>,
        DType::C64 => unary::<Cplx<C64, F>>,
        DType::C128 => unary::<Cplx<C128, F>>,
        DType::S8 => unary::<Int<i8, F>>,
        DType::U8 => unary::<Int<u8, F>>,
        DType::S16 => unary::<Int<i16, F>>,
        DType::U16 => unary::<Int<u16, F>>,
        DType::S32 => unary::<Int<i32, F>>,
        DType::U32 => unary::<Int<u32, F>>,
        DType::S64 => unary::<Int<i64, F>>,
        DType::U64 => unary::<Int<u64, F>>,
        DType::Bool => unary::<Int<Bool8, F>>,
        other => crate::bail!("no kernel for {other}"),
    })
}
