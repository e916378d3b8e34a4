//! Maximum, Minimum: the element-wise larger/smaller of two tensors after promotion
//! (reference §5.1). A NaN in either operand gives NaN (as torch.maximum does); between
//! -0.0 and +0.0, Maximum gives +0.0 and Minimum -0.0. Bool: "or" / "and".

use super::binary::{self, Compute, Dtypes, Operand};
use super::catalog::Entry;
use crate::dtype::DType;
use crate::element::Bool8;
use crate::engine::kernel::{binary as kernel, BinaryOp};
use crate::engine::{KernelFn, Params};
use crate::error::Result;
use crate::executor::Executor;
use crate::tensor::TensorDesc;
use std::marker::PhantomData;

use DType::*;
const LIST: &[DType] = &[F32, F16, F64, S32, S64, S16, S8, U8, Bool, BF16];
const DTYPES: Dtypes = Dtypes {
    a: LIST,
    b: LIST,
    out: LIST,
};

pub(crate) trait Extremum: crate::element::Element {
    fn maximum(self, o: Self) -> Self;
    fn minimum(self, o: Self) -> Self;
}
macro_rules! int_extremum {
    ($($t:ty),*) => {$(
        impl Extremum for $t {
            #[inline(always)] fn maximum(self, o: Self) -> Self { self.max(o) }
            #[inline(always)] fn minimum(self, o: Self) -> Self { self.min(o) }
        }
    )*};
}
int_extremum!(i8, u8, i16, i32, i64);
macro_rules! float_extremum {
    ($($t:ty),*) => {$(
        impl Extremum for $t {
            #[inline(always)]
            fn maximum(self, o: Self) -> Self {
                if self.is_nan() || o.is_nan() { <$t>::NAN }
                else if self == o { if self.is_sign_negative() { o } else { self } }
                else if self > o { self } else { o }
            }
            #[inline(always)]
            fn minimum(self, o: Self) -> Self {
                if self.is_nan() || o.is_nan() { <$t>::NAN }
                else if self == o { if self.is_sign_negative() { self } else { o } }
                else if self < o { self } else { o }
            }
        }
    )*};
}
float_extremum!(f32, f64);
impl Extremum for Bool8 {
    #[inline(always)]
    fn maximum(self, o: Self) -> Self {
        Bool8::new(self.get() || o.get())
    }
    #[inline(always)]
    fn minimum(self, o: Self) -> Self {
        Bool8::new(self.get() && o.get())
    }
}

struct Max<T>(PhantomData<T>);
impl<T: Extremum> BinaryOp for Max<T> {
    type A = T;
    type B = T;
    type O = T;
    fn new(_: &Params) -> Self {
        Max(PhantomData)
    }
    #[inline(always)]
    fn apply(&self, a: T, b: T) -> T {
        a.maximum(b)
    }
}

struct Min<T>(PhantomData<T>);
impl<T: Extremum> BinaryOp for Min<T> {
    type A = T;
    type B = T;
    type O = T;
    fn new(_: &Params) -> Self {
        Min(PhantomData)
    }
    #[inline(always)]
    fn apply(&self, a: T, b: T) -> T {
        a.minimum(b)
    }
}

macro_rules! pick {
    ($op:ident, $p:expr) => {
        match $p.compute() {
            F64 => kernel::<$op<f64>> as KernelFn,
            S8 => kernel::<$op<i8>>,
            U8 => kernel::<$op<u8>>,
            S16 => kernel::<$op<i16>>,
            S32 => kernel::<$op<i32>>,
            S64 => kernel::<$op<i64>>,
            Bool => kernel::<$op<Bool8>>,
            _ => kernel::<$op<f32>>,
        }
    };
}

/// Maximum's computation for the promoted dtype (the foreach operators reuse it).
pub(crate) fn max_compute(p: DType) -> Compute {
    Compute::same(p, pick!(Max, p))
}

/// Minimum's computation for the promoted dtype.
pub(crate) fn min_compute(p: DType) -> Compute {
    Compute::same(p, pick!(Min, p))
}

/// aclnnMaximum.
pub fn maximum(self_: &TensorDesc, other: &TensorDesc, out: &TensorDesc) -> Result<Executor> {
    binary::build(
        "aclnnMaximum",
        &DTYPES,
        Operand::Tensor("self", self_),
        Operand::Tensor("other", other),
        Some(("out", out)),
        |p| Ok(Compute::same(p, pick!(Max, p))),
    )
}

/// aclnnMinimum.
pub fn minimum(self_: &TensorDesc, other: &TensorDesc, out: &TensorDesc) -> Result<Executor> {
    binary::build(
        "aclnnMinimum",
        &DTYPES,
        Operand::Tensor("self", self_),
        Operand::Tensor("other", other),
        Some(("out", out)),
        |p| Ok(Compute::same(p, pick!(Min, p))),
    )
}

/// Supported dtypes, for the operator table (docs/DTYPES.md).
pub const CATALOG: &[Entry] = &[Entry {
    ops: "Maximum, Minimum",
    a: LIST,
    b: LIST,
    out: LIST,
    rule: "max/min, NaN propagates",
}];
