//! BitwiseAndTensor/Scalar, BitwiseOrTensor/Scalar, BitwiseXorTensor/Scalar, their
//! in-place forms, and BitwiseNot (reference §5.3). Operands promote (tensor-tensor, or
//! tensor-scalar); a bool result is the logical connective, an integer result the
//! bitwise one on two's complement bits. BitwiseNot's out must have self's dtype.
//!
//! The Scalar forms have their own lists (CANN's A2 code and docs): BitwiseOrScalar's self
//! and other exclude u32/u64 on Atlas A2/A3; BitwiseAndScalar's and BitwiseOrScalar's out
//! may be a float (the docs list f32 f16 f64 bf16; the A2 code only checks that the result
//! casts to out, which is also why their u32/u64 outs, absent from the docs, stay accepted).

use super::binary::{self, Compute, Dtypes, Operand};
use super::catalog::Entry;
use super::elementwise::{self as ew, Arg};
use crate::dtype::DType;
use crate::element::Bool8;
use crate::engine::kernel::{binary as kernel, unary, BinaryOp, UnaryOp};
use crate::engine::{KernelFn, Params};
use crate::error::Result;
use crate::executor::Executor;
use crate::tensor::TensorDesc;
use std::marker::PhantomData;

use DType::*;

/// The three bitwise connectives.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Bitwise {
    And,
    Or,
    Xor,
}

const AND_IN: &[DType] = &[Bool, S8, S16, S32, S64, U8, U16];
const OR_IN: &[DType] = &[Bool, S8, S16, S32, S64, U8, U16, U32, U64];
const AND_OR_OUT: &[DType] = &[Bool, S8, S16, S32, S64, U8, U16, U32, U64];
/// BitwiseOrScalar's self and other (A2 code `DTYPE_SUPPORT_LIST_DEFAULT`; doc: "self和other的
/// 数据类型不支持UINT32、UINT64" on A2/A3).
const OR_SCALAR_IN: &[DType] = &[Bool, S8, S16, S32, S64, U8, U16];
/// BitwiseAndScalar's and BitwiseOrScalar's out: the docs' A2 lists (+ u32/u64, which the A2
/// code's CanCast-only check lets through).
const AND_OR_SCALAR_OUT: &[DType] = &[
    Bool, S8, S16, S32, S64, U8, U16, U32, U64, F32, F16, F64, BF16,
];
const XOR_IN: &[DType] = &[Bool, S8, S16, S32, S64, U8];
const XOR_OUT: &[DType] = &[Bool, S8, S16, S32, S64, U8, F32, F16, F64, BF16];
const NOT_LIST: &[DType] = &[S16, S32, S64, S8, U8, Bool];

impl Bitwise {
    /// The lists of the Tensor forms, or of the Scalar forms when `scalar`.
    fn dtypes(self, scalar: bool) -> Dtypes {
        match self {
            Bitwise::And => Dtypes {
                a: AND_IN,
                b: AND_IN,
                out: if scalar {
                    AND_OR_SCALAR_OUT
                } else {
                    AND_OR_OUT
                },
            },
            Bitwise::Or if scalar => Dtypes {
                a: OR_SCALAR_IN,
                b: OR_SCALAR_IN,
                out: AND_OR_SCALAR_OUT,
            },
            Bitwise::Or => Dtypes {
                a: OR_IN,
                b: OR_IN,
                out: AND_OR_OUT,
            },
            Bitwise::Xor => Dtypes {
                a: XOR_IN,
                b: XOR_IN,
                out: XOR_OUT,
            },
        }
    }
}

/// Bit operations on integer kernel types and on bools.
trait Bits: crate::element::Element {
    fn and(self, o: Self) -> Self;
    fn or(self, o: Self) -> Self;
    fn xor(self, o: Self) -> Self;
    fn not(self) -> Self;
}
macro_rules! int_bits {
    ($($t:ty),*) => {$(
        impl Bits for $t {
            #[inline(always)] fn and(self, o: Self) -> Self { self & o }
            #[inline(always)] fn or(self, o: Self) -> Self { self | o }
            #[inline(always)] fn xor(self, o: Self) -> Self { self ^ o }
            #[inline(always)] fn not(self) -> Self { !self }
        }
    )*};
}
int_bits!(i8, u8, i16, u16, i32, u32, i64, u64);
impl Bits for Bool8 {
    #[inline(always)]
    fn and(self, o: Self) -> Self {
        Bool8::new(self.get() && o.get())
    }
    #[inline(always)]
    fn or(self, o: Self) -> Self {
        Bool8::new(self.get() || o.get())
    }
    #[inline(always)]
    fn xor(self, o: Self) -> Self {
        Bool8::new(self.get() != o.get())
    }
    #[inline(always)]
    fn not(self) -> Self {
        Bool8::new(!self.get())
    }
}

struct Op<T, const B: u8>(PhantomData<T>);
impl<T: Bits, const B: u8> BinaryOp for Op<T, B> {
    type A = T;
    type B = T;
    type O = T;
    fn new(_: &Params) -> Self {
        Op(PhantomData)
    }
    #[inline(always)]
    fn apply(&self, a: T, b: T) -> T {
        match B {
            0 => a.and(b),
            1 => a.or(b),
            _ => a.xor(b),
        }
    }
}

struct Not<T>(PhantomData<T>);
impl<T: Bits> UnaryOp for Not<T> {
    type A = T;
    type O = T;
    fn new(_: &Params) -> Self {
        Not(PhantomData)
    }
    #[inline(always)]
    fn apply(&self, a: T) -> T {
        a.not()
    }
}

macro_rules! by_int_dtype {
    ($p:expr, $T:ident => $e:expr) => {
        match $p {
            S8 => {
                type $T = i8;
                $e
            }
            U8 => {
                type $T = u8;
                $e
            }
            S16 => {
                type $T = i16;
                $e
            }
            U16 => {
                type $T = u16;
                $e
            }
            S32 => {
                type $T = i32;
                $e
            }
            U32 => {
                type $T = u32;
                $e
            }
            S64 => {
                type $T = i64;
                $e
            }
            U64 => {
                type $T = u64;
                $e
            }
            Bool => {
                type $T = Bool8;
                $e
            }
            other => {
                crate::bail!("bitwise operations are not defined for the promoted dtype {other}")
            }
        }
    };
}

fn compute(b: Bitwise, p: DType) -> Result<Compute> {
    let k = match b {
        Bitwise::And => by_int_dtype!(p, T => kernel::<Op<T, 0>> as KernelFn),
        Bitwise::Or => by_int_dtype!(p, T => kernel::<Op<T, 1>> as KernelFn),
        Bitwise::Xor => by_int_dtype!(p, T => kernel::<Op<T, 2>> as KernelFn),
    };
    Ok(Compute::same(p, k))
}

/// `out = self B other` (other a tensor or a scalar); `out == None` writes into selfRef.
pub fn bitwise(
    api: &'static str,
    b: Bitwise,
    self_: &TensorDesc,
    other: Operand,
    out: Option<&TensorDesc>,
) -> Result<Executor> {
    let name = if out.is_some() { "self" } else { "selfRef" };
    binary::build(
        api,
        &b.dtypes(matches!(other, Operand::Scalar(..))),
        Operand::Tensor(name, self_),
        other,
        out.map(|o| ("out", o)),
        |p| compute(b, p),
    )
}

/// aclnnBitwiseNot: `out = ~self` (logical not for bool); out has self's dtype and shape.
pub fn not(self_: &TensorDesc, out: &TensorDesc) -> Result<Executor> {
    ew::check_tensor("self", self_, NOT_LIST)?;
    ew::check_tensor("out", out, NOT_LIST)?;
    crate::ensure!(
        out.dtype == self_.dtype,
        "out has dtype {} but must have self's dtype {}",
        out.dtype,
        self_.dtype
    );
    ew::check_out_shape(self_.dtype, &[("self", &self_.shape)], "out", out)?;
    let d = self_.dtype;
    let k = by_int_dtype!(d, T => unary::<Not<T>> as KernelFn);
    let c = Compute::same(d, k);
    ew::executor(
        "aclnnBitwiseNot",
        &[Arg::Tensor("self", self_)],
        &[c.input],
        "out",
        out,
        c.result,
        c.kernel,
        c.params,
        false,
    )
}

/// Supported dtypes, for the operator table (docs/DTYPES.md).
pub const CATALOG: &[Entry] = &[
    Entry {
        ops: "BitwiseAndTensor, InplaceBitwiseAndTensor",
        a: AND_IN,
        b: AND_IN,
        out: AND_OR_OUT,
        rule: "bitwise and (logical for bool)",
    },
    Entry {
        ops: "BitwiseAndScalar, InplaceBitwiseAndScalar",
        a: AND_IN,
        b: AND_IN,
        out: AND_OR_SCALAR_OUT,
        rule: "bitwise and (logical for bool)",
    },
    Entry {
        ops: "BitwiseOrTensor, InplaceBitwiseOrTensor",
        a: OR_IN,
        b: OR_IN,
        out: AND_OR_OUT,
        rule: "bitwise or (logical for bool)",
    },
    Entry {
        ops: "BitwiseOrScalar, InplaceBitwiseOrScalar",
        a: OR_SCALAR_IN,
        b: OR_SCALAR_IN,
        out: AND_OR_SCALAR_OUT,
        rule: "bitwise or (logical for bool)",
    },
    Entry {
        ops: "BitwiseXorTensor, BitwiseXorScalar (+ Inplace)",
        a: XOR_IN,
        b: XOR_IN,
        out: XOR_OUT,
        rule: "bitwise xor (logical for bool)",
    },
    Entry {
        ops: "BitwiseNot",
        a: NOT_LIST,
        b: &[],
        out: NOT_LIST,
        rule: "~x, out dtype = self dtype",
    },
];
