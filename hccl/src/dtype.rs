//! HcclDataType and HcclReduceOp, which of them each kind of collective accepts (Atlas A2's
//! lists from HCCL's documentation), and the element-wise reduction kernels.
//!
//! Reductions run in rank order, one step per rank: `acc = acc op x_k` for k = 1..n, each
//! step rounded to the dtype (f16 and bf16 compute in f32 and round once per step, exactly
//! as a sequential f16 reduction: f32 holds every f16/bf16 sum and product correctly
//! rounded before the second rounding). The result does not depend on timing and is the
//! same bytes on every rank. Integers wrap. MAX and MIN propagate NaN.

use crate::error::{HcclError, Result};
use half::{bf16, f16};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DType {
    Int8,
    Int16,
    Int32,
    Fp16,
    Fp32,
    Int64,
    Uint64,
    Uint8,
    Uint16,
    Uint32,
    Fp64,
    Bfp16,
    Int128,
}

impl DType {
    pub fn from_raw(v: i32) -> Option<DType> {
        use DType::*;
        Some(match v {
            0 => Int8,
            1 => Int16,
            2 => Int32,
            3 => Fp16,
            4 => Fp32,
            5 => Int64,
            6 => Uint64,
            7 => Uint8,
            8 => Uint16,
            9 => Uint32,
            10 => Fp64,
            11 => Bfp16,
            12 => Int128,
            _ => return None,
        })
    }

    pub fn size(self) -> usize {
        use DType::*;
        match self {
            Int8 | Uint8 => 1,
            Int16 | Uint16 | Fp16 | Bfp16 => 2,
            Int32 | Uint32 | Fp32 => 4,
            Int64 | Uint64 | Fp64 => 8,
            Int128 => 16,
        }
    }

    pub fn name(self) -> &'static str {
        use DType::*;
        match self {
            Int8 => "HCCL_DATA_TYPE_INT8",
            Int16 => "HCCL_DATA_TYPE_INT16",
            Int32 => "HCCL_DATA_TYPE_INT32",
            Fp16 => "HCCL_DATA_TYPE_FP16",
            Fp32 => "HCCL_DATA_TYPE_FP32",
            Int64 => "HCCL_DATA_TYPE_INT64",
            Uint64 => "HCCL_DATA_TYPE_UINT64",
            Uint8 => "HCCL_DATA_TYPE_UINT8",
            Uint16 => "HCCL_DATA_TYPE_UINT16",
            Uint32 => "HCCL_DATA_TYPE_UINT32",
            Fp64 => "HCCL_DATA_TYPE_FP64",
            Bfp16 => "HCCL_DATA_TYPE_BFP16",
            Int128 => "HCCL_DATA_TYPE_INT128",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReduceOp {
    Sum,
    Prod,
    Max,
    Min,
}

impl ReduceOp {
    pub fn name(self) -> &'static str {
        match self {
            ReduceOp::Sum => "HCCL_REDUCE_SUM",
            ReduceOp::Prod => "HCCL_REDUCE_PROD",
            ReduceOp::Max => "HCCL_REDUCE_MAX",
            ReduceOp::Min => "HCCL_REDUCE_MIN",
        }
    }
}

/// What a collective does with the elements: moves them (broadcast, gather, all-to-all,
/// send/recv) or reduces them (all-reduce, reduce, reduce-scatter).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Use {
    Move,
    Reduce,
}

/// The dtype argument `name` of `raw`, if the Atlas A2 device accepts it for `usage`:
/// moves take every integer and float type but INT128; reductions int8, int16, int32, int64,
/// fp16, fp32 and bfp16. Others are HCCL_E_NOT_SUPPORT, as HCCL's parameter check returns.
pub fn check_dtype(name: &str, raw: i32, usage: Use) -> Result<DType> {
    let d = DType::from_raw(raw)
        .ok_or_else(|| HcclError::not_support(format!("{name} {raw} is not an HcclDataType")))?;
    use DType::*;
    let ok = match usage {
        Use::Move => d != Int128,
        Use::Reduce => matches!(d, Int8 | Int16 | Int32 | Int64 | Fp16 | Fp32 | Bfp16),
    };
    if !ok {
        let list = match usage {
            Use::Move => {
                "int8, uint8, int16, uint16, int32, uint32, int64, uint64, fp16, fp32, fp64, bfp16"
            }
            Use::Reduce => "int8, int16, int32, int64, fp16, fp32, bfp16",
        };
        return Err(HcclError::not_support(format!(
            "{name} {} is not supported here (Atlas A2 supports {list})",
            d.name()
        )));
    }
    Ok(d)
}

/// The reduce op argument `raw` for dtype `d`: SUM, PROD, MAX, MIN; PROD not for int16 and
/// bfp16 (HCCL's Atlas A2 list). Otherwise HCCL_E_NOT_SUPPORT.
pub fn check_op(raw: i32, d: DType) -> Result<ReduceOp> {
    let op = match raw {
        0 => ReduceOp::Sum,
        1 => ReduceOp::Prod,
        2 => ReduceOp::Max,
        3 => ReduceOp::Min,
        _ => {
            return Err(HcclError::not_support(format!(
                "op {raw} is not an HcclReduceOp (SUM 0, PROD 1, MAX 2, MIN 3)"
            )))
        }
    };
    if op == ReduceOp::Prod && matches!(d, DType::Int16 | DType::Bfp16) {
        return Err(HcclError::not_support(format!(
            "op HCCL_REDUCE_PROD is not supported for {} (Atlas A2)",
            d.name()
        )));
    }
    Ok(op)
}

/// One element type's reduction step.
trait Elem: Copy {
    fn step(op: ReduceOp, a: Self, b: Self) -> Self;
}

macro_rules! int_elem {
    ($($t:ty),*) => {$(
        impl Elem for $t {
            #[inline(always)]
            fn step(op: ReduceOp, a: $t, b: $t) -> $t {
                match op {
                    ReduceOp::Sum => a.wrapping_add(b),
                    ReduceOp::Prod => a.wrapping_mul(b),
                    ReduceOp::Max => a.max(b),
                    ReduceOp::Min => a.min(b),
                }
            }
        }
    )*};
}
int_elem!(i8, i16, i32, i64);

macro_rules! float_elem {
    ($($t:ty),*) => {$(
        impl Elem for $t {
            #[inline(always)]
            fn step(op: ReduceOp, a: $t, b: $t) -> $t {
                match op {
                    ReduceOp::Sum => a + b,
                    ReduceOp::Prod => a * b,
                    ReduceOp::Max => if a.is_nan() || b.is_nan() { a + b } else if b > a { b } else { a },
                    ReduceOp::Min => if a.is_nan() || b.is_nan() { a + b } else if b < a { b } else { a },
                }
            }
        }
    )*};
}
float_elem!(f32);

/// f16 and bf16: in f32, rounded once per step.
macro_rules! half_elem {
    ($($t:ty),*) => {$(
        impl Elem for $t {
            #[inline(always)]
            fn step(op: ReduceOp, a: $t, b: $t) -> $t {
                <$t>::from_f32(f32::step(op, a.to_f32(), b.to_f32()))
            }
        }
    )*};
}
half_elem!(f16, bf16);

/// `acc[i] = acc[i] op src[i]` over `n` elements of type T.
///
/// # Safety
/// `acc` and `src` are valid for `n` elements (any alignment); they do not overlap.
unsafe fn step_all<T: Elem>(op: ReduceOp, acc: *mut u8, src: *const u8, n: usize) {
    let (acc, src) = (acc as *mut T, src as *const T);
    for i in 0..n {
        // SAFETY: in bounds per the contract.
        unsafe {
            let a = acc.add(i).read_unaligned();
            let b = src.add(i).read_unaligned();
            acc.add(i).write_unaligned(T::step(op, a, b));
        }
    }
}

/// One reduction step over `n` elements of `d`: `acc = acc op src`.
///
/// # Safety
/// `acc` and `src` are valid for `n` elements of `d` and do not overlap; `d` is a dtype
/// `check_dtype(.., Use::Reduce)` accepted.
pub unsafe fn reduce_step(d: DType, op: ReduceOp, acc: *mut u8, src: *const u8, n: usize) {
    // SAFETY: forwarded.
    unsafe {
        match d {
            DType::Int8 => step_all::<i8>(op, acc, src, n),
            DType::Int16 => step_all::<i16>(op, acc, src, n),
            DType::Int32 => step_all::<i32>(op, acc, src, n),
            DType::Int64 => step_all::<i64>(op, acc, src, n),
            DType::Fp16 => step_all::<f16>(op, acc, src, n),
            DType::Fp32 => step_all::<f32>(op, acc, src, n),
            DType::Bfp16 => step_all::<bf16>(op, acc, src, n),
            other => unreachable!("{other:?} is refused for reductions at the call"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reduce<T: Copy>(d: DType, op: ReduceOp, xs: &[T]) -> T {
        let mut acc = xs[0];
        for x in &xs[1..] {
            unsafe {
                reduce_step(
                    d,
                    op,
                    &mut acc as *mut T as *mut u8,
                    x as *const T as *const u8,
                    1,
                )
            };
        }
        acc
    }

    #[test]
    fn f16_sum_rounds_each_step_in_rank_order() {
        // 2048 + 1 + 1 in f16: 2048+1 rounds to 2048 (ties to even), twice.
        let xs = [f16::from_f32(2048.0), f16::ONE, f16::ONE];
        assert_eq!(reduce(DType::Fp16, ReduceOp::Sum, &xs).to_f32(), 2048.0);
        let xs = [f16::ONE, f16::ONE, f16::from_f32(2048.0)];
        assert_eq!(reduce(DType::Fp16, ReduceOp::Sum, &xs).to_f32(), 2050.0);
    }

    #[test]
    fn integers_wrap_and_floats_propagate_nan() {
        assert_eq!(reduce(DType::Int8, ReduceOp::Sum, &[100i8, 100]), -56);
        assert_eq!(reduce(DType::Int32, ReduceOp::Prod, &[1 << 16, 1 << 16]), 0);
        assert!(reduce(DType::Fp32, ReduceOp::Max, &[1.0f32, f32::NAN, 3.0]).is_nan());
        assert!(reduce(DType::Fp32, ReduceOp::Min, &[f32::NAN, 1.0f32]).is_nan());
        assert_eq!(
            reduce(DType::Fp32, ReduceOp::Min, &[2.0f32, -1.0, 3.0]),
            -1.0
        );
        let b = [bf16::from_f32(1.5), bf16::from_f32(-3.0)];
        assert_eq!(reduce(DType::Bfp16, ReduceOp::Max, &b).to_f32(), 1.5);
    }

    #[test]
    fn dtype_and_op_lists_follow_atlas_a2() {
        assert!(check_dtype("dataType", 12, Use::Move).is_err());
        assert!(check_dtype("dataType", 10, Use::Move).is_ok());
        assert_eq!(
            check_dtype("dataType", 10, Use::Reduce).unwrap_err().code,
            5
        );
        assert_eq!(check_dtype("dataType", 99, Use::Move).unwrap_err().code, 5);
        assert_eq!(check_op(1, DType::Bfp16).unwrap_err().code, 5);
        assert_eq!(check_op(1, DType::Fp16).unwrap(), ReduceOp::Prod);
        assert_eq!(check_op(255, DType::Fp32).unwrap_err().code, 5);
    }
}
