//! Classifying and cleaning float values: IsFinite, IsInf, IsPosInf, IsNegInf, Signbit
//! (predicates of one tensor), IsClose (of two), NanToNum (replaces NaN and ±inf).
//!
//! The predicates are exact: f16/bf16 widen to f32 without loss, integers are finite and
//! never infinite, and Signbit reads the sign bit (true for −0.0 and a negative NaN; for an
//! integer, x < 0). Their result is bool, converted to out by the conversion rule.
//!
//! IsClose follows torch.isclose: `a == b`, or both NaN with equalNan, or
//! |a − b| ≤ atol + |rtol·b| with |a − b| finite (skipped when rtol and atol are both 0);
//! the tolerance test is evaluated in f64, where |a − b| of two f32 values is exact.

use super::binary::{self, Compute, Dtypes, Operand};
use super::catalog::Entry;
use super::unary::{self, OutRule, Rule};
use crate::dtype::DType;
use crate::element::{convert, Bool8, Element};
use crate::engine::kernel::{binary as binary_kernel, unary as unary_kernel, BinaryOp, UnaryOp};
use crate::engine::{KernelFn, Params, Via};
use crate::error::Result;
use crate::executor::Executor;
use crate::scalar::Scalar;
use crate::tensor::TensorDesc;
use std::marker::PhantomData;

use DType::*;

/// Value classes of a kernel element.
trait Classify: Element {
    fn finite(self) -> bool;
    fn pos_inf(self) -> bool;
    fn neg_inf(self) -> bool;
    fn sign_bit(self) -> bool;
    fn nan(self) -> bool;
}
macro_rules! classify_float {
    ($($t:ty),*) => {$(
        impl Classify for $t {
            // x − x is +0 exactly when x is finite, NaN for ±inf and NaN. (`is_finite`
            // compiles to an abs-and-compare that valgrind's emulation answers wrongly
            // for NaN; this subtract-and-compare it emulates right, and it is as exact.)
            #[inline(always)] fn finite(self) -> bool { self - self == 0.0 }
            #[inline(always)] fn pos_inf(self) -> bool { self == <$t>::INFINITY }
            #[inline(always)] fn neg_inf(self) -> bool { self == <$t>::NEG_INFINITY }
            #[inline(always)] fn sign_bit(self) -> bool { self.is_sign_negative() }
            #[inline(always)] fn nan(self) -> bool { self.is_nan() }
        }
    )*};
}
classify_float!(f32, f64);
macro_rules! classify_int {
    ($($t:ty),*) => {$(
        impl Classify for $t {
            #[inline(always)] fn finite(self) -> bool { true }
            #[inline(always)] fn pos_inf(self) -> bool { false }
            #[inline(always)] fn neg_inf(self) -> bool { false }
            #[inline(always)] #[allow(unused_comparisons)] fn sign_bit(self) -> bool { self < 0 }
            #[inline(always)] fn nan(self) -> bool { false }
        }
    )*};
}
classify_int!(i8, u8, i16, u16, i32, u32, i64, u64);
impl Classify for Bool8 {
    fn finite(self) -> bool {
        true
    }
    fn pos_inf(self) -> bool {
        false
    }
    fn neg_inf(self) -> bool {
        false
    }
    fn sign_bit(self) -> bool {
        false
    }
    fn nan(self) -> bool {
        false
    }
}

/// Predicate ids.
mod p {
    pub const FINITE: u8 = 0;
    pub const INF: u8 = 1;
    pub const POS_INF: u8 = 2;
    pub const NEG_INF: u8 = 3;
    pub const SIGN_BIT: u8 = 4;
}

struct Pred<T, const P: u8>(PhantomData<T>);
impl<T: Classify, const P: u8> UnaryOp for Pred<T, P> {
    type A = T;
    type O = Bool8;
    fn new(_: &Params) -> Self {
        Pred(PhantomData)
    }
    #[inline(always)]
    fn apply(&self, a: T) -> Bool8 {
        Bool8::new(match P {
            p::FINITE => a.finite(),
            p::INF => a.pos_inf() || a.neg_inf(),
            p::POS_INF => a.pos_inf(),
            p::NEG_INF => a.neg_inf(),
            _ => a.sign_bit(),
        })
    }
}

/// Picks `$op<T>` for the kernel type of compute dtype `$c`.
macro_rules! by_kernel_type {
    ($op:ident, $c:expr $(, $extra:tt)?) => {
        match $c {
            F64 => unary_kernel_or_binary!($op<f64 $(, $extra)?>),
            S8 => unary_kernel_or_binary!($op<i8 $(, $extra)?>),
            U8 => unary_kernel_or_binary!($op<u8 $(, $extra)?>),
            S16 => unary_kernel_or_binary!($op<i16 $(, $extra)?>),
            U16 => unary_kernel_or_binary!($op<u16 $(, $extra)?>),
            S32 => unary_kernel_or_binary!($op<i32 $(, $extra)?>),
            U32 => unary_kernel_or_binary!($op<u32 $(, $extra)?>),
            S64 => unary_kernel_or_binary!($op<i64 $(, $extra)?>),
            U64 => unary_kernel_or_binary!($op<u64 $(, $extra)?>),
            Bool => unary_kernel_or_binary!($op<Bool8 $(, $extra)?>),
            _ => unary_kernel_or_binary!($op<f32 $(, $extra)?>),
        }
    };
}

/// A predicate of self's values: bool results.
fn predicate<const P: u8>(d: DType) -> Result<Compute> {
    macro_rules! unary_kernel_or_binary {
        ($t:ty) => {
            unary_kernel::<$t> as KernelFn
        };
    }
    let k = by_kernel_type!(Pred, d.compute(), P);
    Ok(Compute::predicate(d, k))
}

const FLOATS: &[DType] = &[F32, F16, F64, BF16];
const BOOL: &[DType] = &[Bool];
const IS_INF_IN: &[DType] = &[F32, F16, F64, BF16, S8, S16, S32, S64, U8, Bool];
const SIGNBIT_IN: &[DType] = &[
    F32, F16, BF16, S32, U32, S64, U64, S16, U16, S8, U8, Bool, F64,
];
/// Signbit's out: bool or any dtype bool converts to.
const SIGNBIT_OUT: &[DType] = &[
    Bool, F32, F16, BF16, F64, S8, U8, S16, U16, S32, U32, S64, U64,
];

macro_rules! predicates {
    ($($(#[$doc:meta])* $name:ident, $api:literal, ($self_name:literal), $a:expr, $out:expr, $p:expr;)*) => {$(
        $(#[$doc])*
        pub fn $name(self_: &TensorDesc, out: &TensorDesc) -> Result<Executor> {
            let rule = Rule { a: $a, out: $out, out_rule: OutRule::Castable };
            unary::build($api, &rule, $self_name, self_, Some(("out", out)), predicate::<{ $p }>)
        }
    )*};
}

predicates! {
    /// aclnnIsFinite: neither ±inf nor NaN.
    is_finite, "aclnnIsFinite", ("self"), FLOATS, BOOL, p::FINITE;
    /// aclnnIsInf: ±inf (integers and bool: false).
    is_inf, "aclnnIsInf", ("x"), IS_INF_IN, BOOL, p::INF;
    /// aclnnIsPosInf: +inf.
    is_pos_inf, "aclnnIsPosInf", ("self"), FLOATS, BOOL, p::POS_INF;
    /// aclnnIsNegInf: −inf.
    is_neg_inf, "aclnnIsNegInf", ("self"), FLOATS, BOOL, p::NEG_INF;
    /// aclnnSignbit: the sign bit is set (−0.0 included).
    signbit, "aclnnSignbit", ("self"), SIGNBIT_IN, SIGNBIT_OUT, p::SIGN_BIT;
}

// ---------------------------------------------------------------------------------------
// IsClose
// ---------------------------------------------------------------------------------------

struct Close<T> {
    rtol: f64,
    atol: f64,
    equal_nan: bool,
    _t: PhantomData<T>,
}
impl<T: Classify> BinaryOp for Close<T> {
    type A = T;
    type B = T;
    type O = Bool8;
    fn new(p: &Params) -> Self {
        Close {
            rtol: p.scalars[0].get::<f64>(),
            atol: p.scalars[1].get::<f64>(),
            equal_nan: p.ints[0] != 0,
            _t: PhantomData,
        }
    }
    #[inline(always)]
    fn apply(&self, a: T, b: T) -> Bool8 {
        let (a, b) = (a.canonical(), b.canonical());
        if a == b || (self.equal_nan && a.nan() && b.nan()) {
            return Bool8::new(true);
        }
        if self.rtol == 0.0 && self.atol == 0.0 {
            return Bool8::new(false);
        }
        let (x, y) = (convert::<T, f64>(a), convert::<T, f64>(b));
        let err = (x - y).abs();
        Bool8::new(err.is_finite() && err <= self.atol + (self.rtol * y).abs())
    }
}

const ISCLOSE_IN: &[DType] = &[F32, S32, S64, F16, S16, S8, U8, F64, Bool, BF16];

/// aclnnIsClose: self and other of one dtype; out bool.
pub fn is_close(
    self_: &TensorDesc,
    other: &TensorDesc,
    rtol: f64,
    atol: f64,
    equal_nan: bool,
    out: &TensorDesc,
) -> Result<Executor> {
    super::elementwise::check_same_dtype("other", other, self_)?;
    binary::build(
        "aclnnIsClose",
        &Dtypes {
            a: ISCLOSE_IN,
            b: ISCLOSE_IN,
            out: BOOL,
        },
        Operand::Tensor("self", self_),
        Operand::Tensor("other", other),
        Some(("out", out)),
        |d| {
            macro_rules! unary_kernel_or_binary {
                ($t:ty) => {
                    binary_kernel::<$t> as KernelFn
                };
            }
            let k = by_kernel_type!(Close, d.compute());
            Ok(Compute {
                params: Params {
                    scalars: smallvec::smallvec![
                        Scalar::from_value(rtol),
                        Scalar::from_value(atol)
                    ],
                    ints: smallvec::smallvec![equal_nan as i64],
                },
                ..Compute::predicate(d, k)
            })
        },
    )
}

// ---------------------------------------------------------------------------------------
// NanToNum
// ---------------------------------------------------------------------------------------

/// NaN, +inf and −inf replaced by the given values (converted to the result dtype when it
/// is stored, as torch's static_cast); integers and bool unchanged.
struct NanToNum<T> {
    nan: f32,
    pos: f32,
    neg: f32,
    _t: PhantomData<T>,
}
trait Replace: Classify {
    fn replace(self, nan: f32, pos: f32, neg: f32) -> Self;
}
impl Replace for f32 {
    #[inline(always)]
    fn replace(self, nan: f32, pos: f32, neg: f32) -> Self {
        if self.is_nan() {
            nan
        } else if self == f32::INFINITY {
            pos
        } else if self == f32::NEG_INFINITY {
            neg
        } else {
            self
        }
    }
}
macro_rules! replace_identity {
    ($($t:ty),*) => {$(
        impl Replace for $t {
            #[inline(always)]
            fn replace(self, _: f32, _: f32, _: f32) -> Self { self }
        }
    )*};
}
replace_identity!(i8, u8, i16, i32, i64, Bool8);
impl<T: Replace> UnaryOp for NanToNum<T> {
    type A = T;
    type O = T;
    fn new(p: &Params) -> Self {
        NanToNum {
            nan: p.scalars[0].get::<f32>(),
            pos: p.scalars[1].get::<f32>(),
            neg: p.scalars[2].get::<f32>(),
            _t: PhantomData,
        }
    }
    #[inline(always)]
    fn apply(&self, a: T) -> T {
        a.replace(self.nan, self.pos, self.neg)
    }
}

const NAN_TO_NUM: &[DType] = &[F16, F32, S8, S16, S32, S64, U8, Bool, BF16];

fn nan_to_num_compute(d: DType, nan: f32, posinf: f32, neginf: f32) -> Result<Compute> {
    let k = match d.compute() {
        S8 => unary_kernel::<NanToNum<i8>> as KernelFn,
        U8 => unary_kernel::<NanToNum<u8>>,
        S16 => unary_kernel::<NanToNum<i16>>,
        S32 => unary_kernel::<NanToNum<i32>>,
        S64 => unary_kernel::<NanToNum<i64>>,
        Bool => unary_kernel::<NanToNum<Bool8>>,
        _ => unary_kernel::<NanToNum<f32>>,
    };
    Ok(Compute {
        params: Params {
            scalars: smallvec::smallvec![
                Scalar::from_value(nan),
                Scalar::from_value(posinf),
                Scalar::from_value(neginf)
            ],
            ints: smallvec::smallvec![],
        },
        input: Via::of(d),
        ..Compute::same(d, k)
    })
}

const NAN_TO_NUM_RULE: Rule = Rule {
    a: NAN_TO_NUM,
    out: NAN_TO_NUM,
    out_rule: OutRule::Castable,
};

/// aclnnNanToNum: NaN → nan, +inf → posinf, −inf → neginf.
pub fn nan_to_num(
    self_: &TensorDesc,
    nan: f32,
    posinf: f32,
    neginf: f32,
    out: &TensorDesc,
) -> Result<Executor> {
    unary::build(
        "aclnnNanToNum",
        &NAN_TO_NUM_RULE,
        "self",
        self_,
        Some(("out", out)),
        |d| nan_to_num_compute(d, nan, posinf, neginf),
    )
}

/// aclnnInplaceNanToNum.
pub fn inplace_nan_to_num(
    self_ref: &TensorDesc,
    nan: f32,
    posinf: f32,
    neginf: f32,
) -> Result<Executor> {
    unary::build(
        "aclnnInplaceNanToNum",
        &NAN_TO_NUM_RULE,
        "selfRef",
        self_ref,
        None,
        |d| nan_to_num_compute(d, nan, posinf, neginf),
    )
}

/// Supported dtypes, for the operator table (docs/DTYPES.md).
pub const CATALOG: &[Entry] = &[
    Entry {
        ops: "IsFinite, IsPosInf, IsNegInf",
        a: FLOATS,
        b: &[],
        out: BOOL,
        rule: "value class, exact",
    },
    Entry {
        ops: "IsInf",
        a: IS_INF_IN,
        b: &[],
        out: BOOL,
        rule: "±inf (integers: false)",
    },
    Entry {
        ops: "Signbit",
        a: SIGNBIT_IN,
        b: &[],
        out: SIGNBIT_OUT,
        rule: "sign bit set (−0.0 true)",
    },
    Entry {
        ops: "IsClose",
        a: ISCLOSE_IN,
        b: ISCLOSE_IN,
        out: BOOL,
        rule: "|a−b| ≤ atol + |rtol·b| (torch.isclose), one dtype",
    },
    Entry {
        ops: "NanToNum, InplaceNanToNum",
        a: NAN_TO_NUM,
        b: &[],
        out: NAN_TO_NUM,
        rule: "NaN/±inf replaced (integers unchanged)",
    },
];
