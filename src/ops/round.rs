//! RoundDecimals, InplaceRoundDecimals: self rounded to `decimals` decimal places, halves
//! to even, as torch.round(x, decimals=d):
//!
//! - floats: `nearbyint(x·10^d) / 10^d` for d ≥ 0 and `nearbyint(x / 10^-d) · 10^-d` for
//!   d < 0, with 10^|d| = C's pow(10, |d|) in f64 rounded into the computation dtype,
//!   as torch's kernel takes it (f16/bf16 compute in f32 and round once; a 10^|d| that
//!   overflows gives NaN for finite x, as torch's does);
//! - integers (s32, s64): unchanged for d ≥ 0; for d < 0, the exact integer nearest to
//!   x / 10^-d (halves to even) times 10^-d, wrapping like the dtype's arithmetic.
//!
//! out has self's dtype and shape (aclnnRoundDecimals.md: the same dtype lists as Round).

use super::binary::Compute;
use super::unary::{self, OutRule, Rule};
use crate::dtype::DType;
use crate::engine::kernel::{unary as unary_kernel, UnaryOp};
use crate::engine::{KernelFn, Params};
use crate::error::Result;
use crate::executor::Executor;
use crate::tensor::TensorDesc;

use DType::*;
const ROUND: &[DType] = &[BF16, F16, F32, F64, S32, S64];

struct Decimals<T> {
    d: i64,
    scale: T,
}

macro_rules! float_decimals {
    ($t:ty) => {
        impl UnaryOp for Decimals<$t> {
            type A = $t;
            type O = $t;
            fn new(p: &Params) -> Self {
                let d = p.ints[0];
                // C's pow(10, |d|) in f64, then into the dtype, as torch's kernel
                // (`static_cast<scalar_t>(std::pow(10, decimals))`); powi's repeated
                // products are off by an ulp from |d| = 33 on.
                let scale = (10.0f64).powf(d.unsigned_abs() as f64) as $t;
                Decimals { d, scale }
            }
            #[inline(always)]
            fn apply(&self, x: $t) -> $t {
                if self.d >= 0 {
                    (x * self.scale).round_ties_even() / self.scale
                } else {
                    (x / self.scale).round_ties_even() * self.scale
                }
            }
        }
    };
}
float_decimals!(f32);
float_decimals!(f64);

/// Integers: `scale` is 10^-d (d < 0; 10^20 already exceeds twice every i64, so larger
/// |d| round everything to 0 the same way), or 1 for d >= 0 (unchanged).
struct IntDecimals<T> {
    scale: i128,
    _t: std::marker::PhantomData<T>,
}

macro_rules! int_decimals {
    ($t:ty) => {
        impl UnaryOp for IntDecimals<$t> {
            type A = $t;
            type O = $t;
            fn new(p: &Params) -> Self {
                // |d| without negating d: -i64::MIN overflows (it wrapped to i64::MIN, so
                // the scale became 1 and nothing was rounded).
                let d = p.ints[0];
                let k = if d < 0 {
                    d.unsigned_abs().min(20) as u32
                } else {
                    0
                };
                IntDecimals {
                    scale: 10i128.pow(k),
                    _t: std::marker::PhantomData,
                }
            }
            #[inline(always)]
            fn apply(&self, x: $t) -> $t {
                let s = self.scale;
                if s == 1 {
                    return x;
                }
                let x = x as i128;
                let (mut q, r) = (x.div_euclid(s), x.rem_euclid(s));
                if 2 * r > s || (2 * r == s && q % 2 != 0) {
                    q += 1;
                }
                (q * s) as $t
            }
        }
    };
}
int_decimals!(i32);
int_decimals!(i64);

fn compute(d: DType, decimals: i64) -> Result<Compute> {
    let k = match d.compute() {
        F32 => unary_kernel::<Decimals<f32>> as KernelFn,
        F64 => unary_kernel::<Decimals<f64>>,
        S32 => unary_kernel::<IntDecimals<i32>>,
        S64 => unary_kernel::<IntDecimals<i64>>,
        other => crate::bail!("no RoundDecimals kernel for {other}"),
    };
    let mut c = Compute::same(d, k);
    c.params.ints.push(decimals);
    Ok(c)
}

const RULE: Rule = Rule {
    a: ROUND,
    out: ROUND,
    out_rule: OutRule::Equal,
};

/// aclnnRoundDecimals.
pub fn round_decimals(self_: &TensorDesc, decimals: i64, out: &TensorDesc) -> Result<Executor> {
    unary::build(
        "aclnnRoundDecimals",
        &RULE,
        "self",
        self_,
        Some(("out", out)),
        |d| compute(d, decimals),
    )
}

/// aclnnInplaceRoundDecimals.
pub fn inplace_round_decimals(self_ref: &TensorDesc, decimals: i64) -> Result<Executor> {
    unary::build(
        "aclnnInplaceRoundDecimals",
        &RULE,
        "selfRef",
        self_ref,
        None,
        |d| compute(d, decimals),
    )
}

/// Supported dtypes, for the operator table (docs/DTYPES.md).
pub const CATALOG: &[super::catalog::Entry] = &[super::catalog::Entry {
    ops: "RoundDecimals, InplaceRoundDecimals",
    a: ROUND,
    b: &[],
    out: ROUND,
    rule: "rounded to `decimals` places, halves to even (torch.round(x, decimals))",
}];
