//! Integer-only element-wise operators: Gcd, LeftShift(s), RightShift. Both operands promote
//! by the tensor-tensor table (tensor-scalar for LeftShifts) and compute exactly in the
//! promoted integer dtype.
//!
//! - Gcd is Euclid's algorithm on |a| and |b|: never negative except where |MIN| wraps
//!   (gcd(MIN, 0) = MIN, as torch's), gcd(0, 0) = 0.
//! - Shifts by a count outside [0, bits) are defined, as torch defines them: a left shift
//!   gives 0; a right shift of a signed value by bits or more fills with its sign
//!   (x >> (bits − 1)), of an unsigned value gives 0; a negative count of RightShift is
//!   taken as 0, as CANN's doc states. Left shifts wrap (bits shifted out are lost).

use super::binary::{self, Compute, Dtypes, Operand};
use super::catalog::Entry;
use super::modulo::method_op;
use crate::dtype::DType;
use crate::engine::kernel::binary as kernel;
use crate::engine::KernelFn;
use crate::error::Result;
use crate::executor::Executor;
use crate::scalar::Scalar;
use crate::tensor::TensorDesc;

use DType::*;

trait IntBits: crate::element::Element {
    fn gcd(self, b: Self) -> Self;
    fn shl(self, b: Self) -> Self;
    fn shr(self, b: Self) -> Self;
}
macro_rules! int_bits {
    ($($t:ty: $abs:expr),*) => {$(
        impl IntBits for $t {
            #[inline(always)]
            fn gcd(self, b: Self) -> Self {
                let abs = $abs;
                let (mut a, mut b) = (abs(self), abs(b));
                while a != 0 {
                    let c = a;
                    a = b.wrapping_rem(a);
                    b = c;
                }
                b
            }
            #[inline(always)]
            #[allow(unused_comparisons)]
            fn shl(self, b: Self) -> Self {
                if b < 0 || b as u64 >= <$t>::BITS as u64 { 0 } else { self.wrapping_shl(b as u32) }
            }
            #[inline(always)]
            #[allow(unused_comparisons)]
            fn shr(self, b: Self) -> Self {
                if b < 0 {
                    self
                } else if b as u64 >= <$t>::BITS as u64 {
                    if <$t>::MIN == 0 { 0 } else { self >> (<$t>::BITS - 1) }
                } else {
                    self >> (b as u32)
                }
            }
        }
    )*};
}
int_bits!(
    i8: |x: i8| x.wrapping_abs(), u8: |x: u8| x, i16: |x: i16| x.wrapping_abs(), u16: |x: u16| x,
    i32: |x: i32| x.wrapping_abs(), u32: |x: u32| x, i64: |x: i64| x.wrapping_abs(), u64: |x: u64| x
);

method_op!(Gcd, IntBits, gcd);
method_op!(Shl, IntBits, shl);
method_op!(Shr, IntBits, shr);

macro_rules! pick {
    ($op:ident, $p:expr) => {
        match $p {
            S8 => kernel::<$op<i8>> as KernelFn,
            U8 => kernel::<$op<u8>>,
            S16 => kernel::<$op<i16>>,
            U16 => kernel::<$op<u16>>,
            S32 => kernel::<$op<i32>>,
            U32 => kernel::<$op<u32>>,
            U64 => kernel::<$op<u64>>,
            _ => kernel::<$op<i64>>,
        }
    };
}

/// The promoted dtype must be an integer (u8 × s8 promote to s16, ...).
fn integer(p: DType, k: KernelFn) -> Result<Compute> {
    crate::ensure!(p.is_int(), "the promoted dtype {p} is not an integer dtype");
    Ok(Compute::same(p, k))
}

const GCD_IN: &[DType] = &[U8, S8, S16, S32, S64];
const GCD_OUT: &[DType] = &[U8, S8, U16, S16, S32, U32, S64, U64];
const SHIFT: &[DType] = &[S8, S16, S32, S64, U8, U16, U32, U64];
const SHIFTS: Dtypes = Dtypes {
    a: SHIFT,
    b: SHIFT,
    out: SHIFT,
};

/// aclnnGcd: the greatest common divisor.
pub fn gcd(self_: &TensorDesc, other: &TensorDesc, out: &TensorDesc) -> Result<Executor> {
    binary::build(
        "aclnnGcd",
        &Dtypes {
            a: GCD_IN,
            b: GCD_IN,
            out: GCD_OUT,
        },
        Operand::Tensor("self", self_),
        Operand::Tensor("other", other),
        Some(("out", out)),
        |p| integer(p, pick!(Gcd, p)),
    )
}

/// aclnnLeftShift: self << shiftBits.
pub fn left_shift(
    self_: &TensorDesc,
    shift_bits: &TensorDesc,
    out: &TensorDesc,
) -> Result<Executor> {
    binary::build(
        "aclnnLeftShift",
        &SHIFTS,
        Operand::Tensor("self", self_),
        Operand::Tensor("shiftBits", shift_bits),
        Some(("out", out)),
        |p| integer(p, pick!(Shl, p)),
    )
}

/// aclnnLeftShifts: self << a scalar shiftBits.
pub fn left_shifts(self_: &TensorDesc, shift_bits: &Scalar, out: &TensorDesc) -> Result<Executor> {
    binary::build(
        "aclnnLeftShifts",
        &SHIFTS,
        Operand::Tensor("self", self_),
        Operand::Scalar("shiftBits", shift_bits),
        Some(("out", out)),
        |p| integer(p, pick!(Shl, p)),
    )
}

/// aclnnRightShift: input >> shiftBits (arithmetic for signed dtypes).
pub fn right_shift(
    input: &TensorDesc,
    shift_bits: &TensorDesc,
    out: &TensorDesc,
) -> Result<Executor> {
    binary::build(
        "aclnnRightShift",
        &SHIFTS,
        Operand::Tensor("input", input),
        Operand::Tensor("shiftBits", shift_bits),
        Some(("out", out)),
        |p| integer(p, pick!(Shr, p)),
    )
}

/// Supported dtypes, for the operator table (docs/DTYPES.md).
pub const CATALOG: &[Entry] = &[
    Entry {
        ops: "Gcd",
        a: GCD_IN,
        b: GCD_IN,
        out: GCD_OUT,
        rule: "gcd(|a|, |b|) in the promoted integer dtype",
    },
    Entry {
        ops: "LeftShift, LeftShifts, RightShift",
        a: SHIFT,
        b: SHIFT,
        out: SHIFT,
        rule: "shifts; counts outside [0, bits) defined (see integer.rs)",
    },
];
