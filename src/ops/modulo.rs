//! Division with a rounded quotient and its remainders: FloorDivide(s), Remainder (tensor
//! and scalar forms, the remainder of floor division: its sign is the divisor's) and Fmod
//! (the remainder of truncating division: its sign is the dividend's), as torch computes
//! them (the device's golden).
//!
//! Floats compute in the promoted dtype (f16/bf16 in f32, rounded once) and are exact:
//! the remainder is C's `fmod` (exact), moved into the divisor's sign by adding the divisor
//! when the signs differ; the floor quotient is Python's `(a − fmod(a, b)) / b` corrected
//! to the nearest integer (so `a == b·q + r` holds as closely as floats allow, and
//! 1 // 0.1 is 9, not 10); division by zero gives IEEE's ±inf/NaN.
//!
//! Integers compute exactly in the promoted dtype. Division by zero does not trap: as with
//! DivMod's floor mode, `x // 0 = 0`, so that `x == (x // y)·y + x % y` still holds, the
//! remainders give `x % 0 = x` and `fmod(x, 0) = x` (torch raises; the device's value is
//! not documented). `MIN // −1 = MIN` and `MIN % −1 = 0` wrap.

use super::binary::{self, Compute, Dtypes, Operand};
use super::catalog::Entry;
use super::div::IntFloor;
use crate::dtype::DType;
use crate::engine::kernel::binary as kernel;
use crate::engine::KernelFn;
use crate::error::Result;
use crate::executor::Executor;
use crate::scalar::Scalar;
use crate::tensor::TensorDesc;

use DType::*;

/// Exact float remainders and Python's floor quotient.
trait FloatMod: crate::element::Element {
    fn floor_quotient(self, b: Self) -> Self;
    fn floor_rem(self, b: Self) -> Self;
    fn trunc_rem(self, b: Self) -> Self;
}
macro_rules! float_mod {
    ($($t:ty),*) => {$(
        impl FloatMod for $t {
            #[inline(always)]
            fn floor_quotient(self, b: Self) -> Self {
                let a = self;
                if b == 0.0 {
                    return a / b;
                }
                let m = a % b;
                let mut q = (a - m) / b;
                if m != 0.0 && ((b < 0.0) != (m < 0.0)) {
                    q -= 1.0;
                }
                if q == 0.0 {
                    return (0.0 as $t).copysign(a / b);
                }
                let f = q.floor();
                if q - f > 0.5 { f + 1.0 } else { f }
            }
            #[inline(always)]
            fn floor_rem(self, b: Self) -> Self {
                let m = self % b;
                if m != 0.0 && ((b < 0.0) != (m < 0.0)) { m + b } else { m }
            }
            #[inline(always)]
            fn trunc_rem(self, b: Self) -> Self {
                self % b
            }
        }
    )*};
}
float_mod!(f32, f64);

/// Exact integer remainders (`x % 0 = x`).
trait IntMod: crate::element::Element {
    fn floor_rem(self, b: Self) -> Self;
    fn trunc_rem(self, b: Self) -> Self;
}
macro_rules! int_mod {
    ($($t:ty),*) => {$(
        impl IntMod for $t {
            #[inline(always)]
            #[allow(unused_comparisons)]
            fn floor_rem(self, b: Self) -> Self {
                if b == 0 {
                    return self;
                }
                let m = self.wrapping_rem(b);
                if m != 0 && ((b < 0) != (m < 0)) { m.wrapping_add(b) } else { m }
            }
            #[inline(always)]
            fn trunc_rem(self, b: Self) -> Self {
                if b == 0 { self } else { self.wrapping_rem(b) }
            }
        }
    )*};
}
int_mod!(i8, u8, i16, i32, i64);

/// `$name<T>`: the binary operation `a.$method(b)` of a trait `$bound` (shared with
/// integer.rs).
macro_rules! method_op {
    ($name:ident, $bound:ident, $method:ident) => {
        struct $name<T>(std::marker::PhantomData<T>);
        impl<T: $bound> crate::engine::kernel::BinaryOp for $name<T> {
            type A = T;
            type B = T;
            type O = T;
            fn new(_: &crate::engine::Params) -> Self {
                $name(std::marker::PhantomData)
            }
            #[inline(always)]
            fn apply(&self, a: T, b: T) -> T {
                a.$method(b)
            }
        }
    };
}
pub(crate) use method_op;

method_op!(FloorQuotient, FloatMod, floor_quotient);
method_op!(FloorRem, FloatMod, floor_rem);
method_op!(TruncRem, FloatMod, trunc_rem);
method_op!(IntFloorRem, IntMod, floor_rem);
method_op!(IntTruncRem, IntMod, trunc_rem);

/// Which quantity an operator computes.
#[derive(Clone, Copy)]
enum What {
    FloorQuotient,
    FloorRem,
    TruncRem,
}

/// The kernel of `what` for promoted dtype `p` (computed in p; bool as u8).
fn compute(what: What, p: DType) -> Result<Compute> {
    crate::ensure!(
        !p.is_complex(),
        "the promoted dtype {p} is complex, which has no floor or remainder"
    );
    macro_rules! ints {
        ($op:ident) => {
            match p {
                S8 => kernel::<$op<i8>> as KernelFn,
                U8 | Bool => kernel::<$op<u8>>,
                S16 => kernel::<$op<i16>>,
                S32 => kernel::<$op<i32>>,
                _ => kernel::<$op<i64>>,
            }
        };
    }
    macro_rules! floats {
        ($op:ident) => {
            match p.compute() {
                F64 => kernel::<$op<f64>> as KernelFn,
                _ => kernel::<$op<f32>>,
            }
        };
    }
    crate::ensure!(
        p.is_float() || p.is_int() || p == Bool,
        "the promoted dtype {p} is not supported"
    );
    let k = match (what, p.is_float()) {
        (What::FloorQuotient, true) => floats!(FloorQuotient),
        (What::FloorRem, true) => floats!(FloorRem),
        (What::TruncRem, true) => floats!(TruncRem),
        (What::FloorQuotient, false) => ints!(IntFloor),
        (What::FloorRem, false) => ints!(IntFloorRem),
        (What::TruncRem, false) => ints!(IntTruncRem),
    };
    // Bool operands divide as the integers 0 and 1.
    let c = if p == Bool { U8 } else { p };
    Ok(Compute::with(p, c, k))
}

const FD_IN: &[DType] = &[F32, F16, F64, S32, S64, S16, S8, U8, Bool, BF16];
const FD_OUT: &[DType] = &[F32, F16, F64, S32, S64, S16, S8, U8, C64, C128, BF16];
const FLOOR_DIVIDE: Dtypes = Dtypes {
    a: FD_IN,
    b: FD_IN,
    out: FD_OUT,
};
/// FloorDivides' out takes bool, not complex.
const FLOOR_DIVIDES: Dtypes = Dtypes {
    a: FD_IN,
    b: FD_IN,
    out: FD_IN,
};
const REM: &[DType] = &[S32, S64, F16, F32, F64, BF16];
const REM_OUT: &[DType] = &[U8, S8, S16, S32, S64, F16, F32, F64, C64, C128, BF16];
const REMAINDER: Dtypes = Dtypes {
    a: REM,
    b: REM,
    out: REM_OUT,
};
/// RemainderScalarTensor's out is one of the operand dtypes.
const REMAINDER_SCALAR_SELF: Dtypes = Dtypes {
    a: REM,
    b: REM,
    out: REM,
};
const FMOD: &[DType] = &[F64, BF16, F16, F32, S32, S64, S8, U8];
const FMODS: Dtypes = Dtypes {
    a: FMOD,
    b: FMOD,
    out: FMOD,
};

fn t<'a>(name: &'static str, d: &'a TensorDesc) -> Operand<'a> {
    Operand::Tensor(name, d)
}
fn s<'a>(name: &'static str, v: &'a Scalar) -> Operand<'a> {
    Operand::Scalar(name, v)
}

/// Declares the out and in-place forms of one rule with a tensor or scalar `other`.
macro_rules! forms {
    ($($(#[$doc:meta])* $name:ident($a:ident: $at:ty, $b:ident: $bt:ty $(, $out:ident)?)
       => $api:literal, $dtypes:expr, $what:expr, ($an:literal, $am:ident), ($bn:literal, $bm:ident);)*) => {$(
        $(#[$doc])*
        pub fn $name($a: $at, $b: $bt $(, $out: &TensorDesc)?) -> Result<Executor> {
            #[allow(unused_mut, unused_assignments)]
            let mut dest = None;
            $(dest = Some(("out", $out));)?
            binary::build($api, &$dtypes, $am($an, $a), $bm($bn, $b), dest, |p| compute($what, p))
        }
    )*};
}

forms! {
    /// aclnnFloorDivide: ⌊self / other⌋.
    floor_divide(self_: &TensorDesc, other: &TensorDesc, out)
        => "aclnnFloorDivide", FLOOR_DIVIDE, What::FloorQuotient, ("self", t), ("other", t);
    /// aclnnFloorDivides: with a scalar `other` (tensor-scalar promotion).
    floor_divides(self_: &TensorDesc, other: &Scalar, out)
        => "aclnnFloorDivides", FLOOR_DIVIDES, What::FloorQuotient, ("self", t), ("other", s);
    /// aclnnInplaceFloorDivide.
    inplace_floor_divide(self_ref: &TensorDesc, other: &TensorDesc)
        => "aclnnInplaceFloorDivide", FLOOR_DIVIDE, What::FloorQuotient, ("selfRef", t), ("other", t);
    /// aclnnInplaceFloorDivides.
    inplace_floor_divides(self_ref: &TensorDesc, other: &Scalar)
        => "aclnnInplaceFloorDivides", FLOOR_DIVIDES, What::FloorQuotient, ("selfRef", t), ("other", s);
    /// aclnnRemainderTensorTensor: self − ⌊self / other⌋·other (the divisor's sign).
    remainder_tensor_tensor(self_: &TensorDesc, other: &TensorDesc, out)
        => "aclnnRemainderTensorTensor", REMAINDER, What::FloorRem, ("self", t), ("other", t);
    /// aclnnRemainderTensorScalar.
    remainder_tensor_scalar(self_: &TensorDesc, other: &Scalar, out)
        => "aclnnRemainderTensorScalar", REMAINDER, What::FloorRem, ("self", t), ("other", s);
    /// aclnnRemainderScalarTensor: a scalar dividend.
    remainder_scalar_tensor(self_: &Scalar, other: &TensorDesc, out)
        => "aclnnRemainderScalarTensor", REMAINDER_SCALAR_SELF, What::FloorRem, ("self", s), ("other", t);
    /// aclnnInplaceRemainderTensorTensor.
    inplace_remainder_tensor_tensor(self_ref: &TensorDesc, other: &TensorDesc)
        => "aclnnInplaceRemainderTensorTensor", REMAINDER, What::FloorRem, ("selfRef", t), ("other", t);
    /// aclnnInplaceRemainderTensorScalar.
    inplace_remainder_tensor_scalar(self_ref: &TensorDesc, other: &Scalar)
        => "aclnnInplaceRemainderTensorScalar", REMAINDER, What::FloorRem, ("selfRef", t), ("other", s);
    /// aclnnFmodTensor: self − trunc(self / other)·other (the dividend's sign).
    fmod_tensor(self_: &TensorDesc, other: &TensorDesc, out)
        => "aclnnFmodTensor", FMODS, What::TruncRem, ("self", t), ("other", t);
    /// aclnnFmodScalar.
    fmod_scalar(self_: &TensorDesc, other: &Scalar, out)
        => "aclnnFmodScalar", FMODS, What::TruncRem, ("self", t), ("other", s);
    /// aclnnInplaceFmodTensor.
    inplace_fmod_tensor(self_ref: &TensorDesc, other: &TensorDesc)
        => "aclnnInplaceFmodTensor", FMODS, What::TruncRem, ("selfRef", t), ("other", t);
    /// aclnnInplaceFmodScalar.
    inplace_fmod_scalar(self_ref: &TensorDesc, other: &Scalar)
        => "aclnnInplaceFmodScalar", FMODS, What::TruncRem, ("selfRef", t), ("other", s);
}

/// Supported dtypes, for the operator table (docs/DTYPES.md).
pub const CATALOG: &[Entry] = &[
    Entry {
        ops: "FloorDivide, InplaceFloorDivide",
        a: FD_IN,
        b: FD_IN,
        out: FD_OUT,
        rule: "⌊self/other⌋ (Python's float algorithm; integers exact, x//0 = 0)",
    },
    Entry {
        ops: "FloorDivides, InplaceFloorDivides",
        a: FD_IN,
        b: FD_IN,
        out: FD_IN,
        rule: "⌊self/other⌋ with a scalar other",
    },
    Entry {
        ops: "RemainderTensorTensor, RemainderTensorScalar (+ Inplace)",
        a: REM,
        b: REM,
        out: REM_OUT,
        rule: "floor remainder, the divisor's sign (x % 0 = x for integers)",
    },
    Entry {
        ops: "RemainderScalarTensor",
        a: REM,
        b: REM,
        out: REM,
        rule: "floor remainder of a scalar dividend",
    },
    Entry {
        ops: "FmodTensor, FmodScalar (+ Inplace)",
        a: FMOD,
        b: FMOD,
        out: FMOD,
        rule: "truncated remainder, the dividend's sign (fmod(x, 0) = x for integers)",
    },
];
