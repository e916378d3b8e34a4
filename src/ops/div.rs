//! Div, Divs, InplaceDiv, InplaceDivs (true division) and DivMod, DivMods, InplaceDivMod,
//! InplaceDivMods with a rounding mode (reference §5.1).
//!
//! The computation dtype, as CANN's A2/A3 implementation chooses it: the promoted dtype
//! when it is a float or complex type, f32 when it is an integer or bool type (so integer
//! division is true division, computed in f32, then converted to out). Floor mode keeps an
//! integer promoted dtype and divides exactly in it. The out check is on the promoted dtype.
//!
//! Division by zero: floats follow IEEE (±inf, NaN); complex uses the plain formula
//! (re = (ac+bd)/(c²+d²), ...), so a zero divisor gives NaN/inf parts; integer floor
//! division by zero gives 0 (the device's value is not documented; nothing traps), and
//! MIN / -1 wraps to MIN.
//!
//! mode: 0 none (true division), 1 trunc (toward zero), 2 floor (toward -inf). Any other
//! value, and trunc/floor with a complex promoted dtype, is 161002.

use super::binary::{self, Compute, Dtypes, Operand};
use super::catalog::Entry;
use super::elementwise::ALL12;
use crate::dtype::DType;
use crate::element::{C128, C64};
use crate::engine::kernel::{binary as kernel, BinaryOp};
use crate::engine::{KernelFn, Narrow, Params};
use crate::error::Result;
use crate::executor::Executor;
use crate::scalar::Scalar;
use crate::tensor::TensorDesc;
use std::marker::PhantomData;

const DTYPES: Dtypes = Dtypes {
    a: ALL12,
    b: ALL12,
    out: ALL12,
};

/// Float and complex division.
trait Quotient: crate::element::Element {
    fn quotient(self, o: Self) -> Self;
}
macro_rules! quotient {
    ($($t:ty),*) => {$(
        impl Quotient for $t {
            #[inline(always)]
            fn quotient(self, o: Self) -> Self {
                self / o
            }
        }
    )*};
}
quotient!(f32, f64, C64, C128);

struct TrueDiv<T>(PhantomData<T>);
impl<T: Quotient> BinaryOp for TrueDiv<T> {
    type A = T;
    type B = T;
    type O = T;
    fn new(_: &Params) -> Self {
        TrueDiv(PhantomData)
    }
    #[inline(always)]
    fn apply(&self, a: T, b: T) -> T {
        a.quotient(b)
    }
}

/// Real floats rounded after dividing.
trait RealQuotient: Quotient {
    fn trunc_(self) -> Self;
    fn floor_(self) -> Self;
}
macro_rules! real_quotient {
    ($($t:ty),*) => {$(
        impl RealQuotient for $t {
            #[inline(always)]
            fn trunc_(self) -> Self {
                self.trunc()
            }
            #[inline(always)]
            fn floor_(self) -> Self {
                self.floor()
            }
        }
    )*};
}
real_quotient!(f32, f64);

struct TruncDiv<T>(PhantomData<T>);
impl<T: RealQuotient> BinaryOp for TruncDiv<T> {
    type A = T;
    type B = T;
    type O = T;
    fn new(_: &Params) -> Self {
        TruncDiv(PhantomData)
    }
    #[inline(always)]
    fn apply(&self, a: T, b: T) -> T {
        a.quotient(b).trunc_()
    }
}

struct FloorDiv<T>(PhantomData<T>);
impl<T: RealQuotient> BinaryOp for FloorDiv<T> {
    type A = T;
    type B = T;
    type O = T;
    fn new(_: &Params) -> Self {
        FloorDiv(PhantomData)
    }
    #[inline(always)]
    fn apply(&self, a: T, b: T) -> T {
        a.quotient(b).floor_()
    }
}

/// Exact integer floor division; x / 0 = 0, MIN / -1 = MIN.
pub(crate) trait IntFloorDiv: crate::element::Element {
    fn floor_div(self, o: Self) -> Self;
}
macro_rules! int_floor_div {
    ($($t:ty),*) => {$(
        impl IntFloorDiv for $t {
            #[inline(always)]
            #[allow(unused_comparisons)]
            fn floor_div(self, o: Self) -> Self {
                if o == 0 {
                    return 0;
                }
                let q = self.wrapping_div(o);
                if self.wrapping_rem(o) != 0 && ((self < 0) != (o < 0)) { q.wrapping_sub(1) } else { q }
            }
        }
    )*};
}
int_floor_div!(i8, u8, i16, i32, i64);

pub(crate) struct IntFloor<T>(PhantomData<T>);
impl<T: IntFloorDiv> BinaryOp for IntFloor<T> {
    type A = T;
    type B = T;
    type O = T;
    fn new(_: &Params) -> Self {
        IntFloor(PhantomData)
    }
    #[inline(always)]
    fn apply(&self, a: T, b: T) -> T {
        a.floor_div(b)
    }
}

/// The float or complex dtype a true or truncating division computes in.
fn division_dtype(p: DType) -> DType {
    if p.is_float() || p.is_complex() {
        p
    } else {
        DType::F32
    }
}

pub(crate) fn true_div(p: DType) -> Result<Compute> {
    let c = division_dtype(p);
    let k = match c.compute() {
        DType::F64 => kernel::<TrueDiv<f64>> as KernelFn,
        DType::C64 => kernel::<TrueDiv<C64>>,
        DType::C128 => kernel::<TrueDiv<C128>>,
        _ => kernel::<TrueDiv<f32>>,
    };
    Ok(Compute::with(p, c, k).narrowed(Narrow::binary::<TrueDiv<f32>>()))
}

fn rounded_div(p: DType, mode: i64) -> Result<Compute> {
    crate::ensure!(
        (0..=2).contains(&mode),
        "mode {mode} is not a rounding mode: 0 (none), 1 (trunc) or 2 (floor)"
    );
    if mode == 0 {
        return true_div(p);
    }
    crate::ensure!(
        !p.is_complex(),
        "mode {mode} ({}) is not defined for the complex promoted dtype {p}",
        if mode == 1 { "trunc" } else { "floor" }
    );
    if mode == 2 && p.is_int() {
        let k = match p {
            DType::S8 => kernel::<IntFloor<i8>> as KernelFn,
            DType::U8 => kernel::<IntFloor<u8>>,
            DType::S16 => kernel::<IntFloor<i16>>,
            DType::S32 => kernel::<IntFloor<i32>>,
            _ => kernel::<IntFloor<i64>>,
        };
        return Ok(Compute::same(p, k));
    }
    let c = division_dtype(p);
    let k = match (mode, c.compute()) {
        (1, DType::F64) => kernel::<TruncDiv<f64>> as KernelFn,
        (1, _) => kernel::<TruncDiv<f32>>,
        (_, DType::F64) => kernel::<FloorDiv<f64>>,
        (_, _) => kernel::<FloorDiv<f32>>,
    };
    Ok(Compute::with(p, c, k))
}

fn t<'a>(name: &'static str, d: &'a TensorDesc) -> Operand<'a> {
    Operand::Tensor(name, d)
}

/// aclnnDiv: `out = self / other`.
pub fn div(self_: &TensorDesc, other: &TensorDesc, out: &TensorDesc) -> Result<Executor> {
    binary::build(
        "aclnnDiv",
        &DTYPES,
        t("self", self_),
        t("other", other),
        Some(("out", out)),
        true_div,
    )
}
/// aclnnDivs.
pub fn divs(self_: &TensorDesc, other: &Scalar, out: &TensorDesc) -> Result<Executor> {
    binary::build(
        "aclnnDivs",
        &DTYPES,
        t("self", self_),
        Operand::Scalar("other", other),
        Some(("out", out)),
        true_div,
    )
}
/// aclnnInplaceDiv.
pub fn inplace_div(self_ref: &TensorDesc, other: &TensorDesc) -> Result<Executor> {
    binary::build(
        "aclnnInplaceDiv",
        &DTYPES,
        t("selfRef", self_ref),
        t("other", other),
        None,
        true_div,
    )
}
/// aclnnInplaceDivs.
pub fn inplace_divs(self_ref: &TensorDesc, other: &Scalar) -> Result<Executor> {
    binary::build(
        "aclnnInplaceDivs",
        &DTYPES,
        t("selfRef", self_ref),
        Operand::Scalar("other", other),
        None,
        true_div,
    )
}
/// aclnnDivMod: `out = round_mode(self / other)`.
pub fn div_mod(
    self_: &TensorDesc,
    other: &TensorDesc,
    mode: i64,
    out: &TensorDesc,
) -> Result<Executor> {
    binary::build(
        "aclnnDivMod",
        &DTYPES,
        t("self", self_),
        t("other", other),
        Some(("out", out)),
        |p| rounded_div(p, mode),
    )
}
/// aclnnDivMods.
pub fn div_mods(
    self_: &TensorDesc,
    other: &Scalar,
    mode: i64,
    out: &TensorDesc,
) -> Result<Executor> {
    binary::build(
        "aclnnDivMods",
        &DTYPES,
        t("self", self_),
        Operand::Scalar("other", other),
        Some(("out", out)),
        |p| rounded_div(p, mode),
    )
}
/// aclnnInplaceDivMod.
pub fn inplace_div_mod(self_ref: &TensorDesc, other: &TensorDesc, mode: i64) -> Result<Executor> {
    binary::build(
        "aclnnInplaceDivMod",
        &DTYPES,
        t("selfRef", self_ref),
        t("other", other),
        None,
        |p| rounded_div(p, mode),
    )
}
/// aclnnInplaceDivMods.
pub fn inplace_div_mods(self_ref: &TensorDesc, other: &Scalar, mode: i64) -> Result<Executor> {
    binary::build(
        "aclnnInplaceDivMods",
        &DTYPES,
        t("selfRef", self_ref),
        Operand::Scalar("other", other),
        None,
        |p| rounded_div(p, mode),
    )
}

/// Supported dtypes, for the operator table (docs/DTYPES.md).
pub const CATALOG: &[Entry] = &[
    Entry {
        ops: "Div, Divs, InplaceDiv, InplaceDivs",
        a: ALL12,
        b: ALL12,
        out: ALL12,
        rule: "true division (integers in f32)",
    },
    Entry {
        ops: "DivMod, DivMods, InplaceDivMod, InplaceDivMods",
        a: ALL12,
        b: ALL12,
        out: ALL12,
        rule: "division rounded by mode 0/1/2",
    },
];
