//! Float arithmetic on f16/bf16 storage — the fused kernels of Add/Sub/Mul/Div
//! (`engine/narrow.rs`), and Maximum/Minimum through the engine's buffers — against a
//! scalar reference: each element widened with the `half` crate, computed in f32 by plain
//! Rust arithmetic, and rounded back with `half` — bit for bit, NaN payloads included (but
//! for two NaN operands, see below)
//! (SEMANTICS §5: f16/bf16 compute in f32, rounded once).
//!
//! Every 16-bit pattern appears as the first operand (NaNs, infinities, subnormals, both
//! zeros), against patterns chosen to land on rounding boundaries; lengths leave tails of
//! every size after the 16-lane blocks; operands are contiguous, repeated (a broadcast
//! (1,) tensor or a scalar), strided (read through the engine's buffers), or the output
//! itself (in place).

use super::add_diff::{run_exec, Buf, Rng};
use crate::dtype::DType;
use crate::executor::Executor;
use crate::ops::{add, div, extremum, mul};
use crate::scalar::Scalar;
use crate::tensor::TensorDesc;
use half::{bf16, f16};

fn widen(d: DType, x: u16) -> f32 {
    match d {
        DType::F16 => f16::from_bits(x).to_f32(),
        _ => bf16::from_bits(x).to_f32(),
    }
}

fn narrow(d: DType, x: f32) -> u16 {
    match d {
        DType::F16 => f16::from_f32(x).to_bits(),
        _ => bf16::from_f32(x).to_bits(),
    }
}

/// A 1-D tensor of `n` 16-bit elements, `stride` apart, over `buf`.
fn tensor(d: DType, buf: &Buf, n: usize, stride: usize) -> TensorDesc {
    let storage = (buf.bytes().len() / 2) as i64;
    TensorDesc::new(
        &[n as i64],
        d as i32,
        Some(&[stride as i64]),
        0,
        2,
        &[storage],
        buf.addr(),
    )
    .expect("a valid view")
}

fn buf_of(v: &[u16]) -> Buf {
    let mut b = Buf::new(v.len() * 2);
    for (c, x) in b.bytes_mut().chunks_exact_mut(2).zip(v) {
        c.copy_from_slice(&x.to_le_bytes());
    }
    b
}

fn read(b: &Buf) -> Vec<u16> {
    b.bytes()
        .chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .collect()
}

/// How the second operand reaches the kernel.
#[derive(Clone, Copy, Debug)]
enum Other {
    /// A tensor of the output's length, `stride` elements apart in its storage.
    Tensor { stride: usize },
    /// A (1,) tensor broadcast over the output.
    Broadcast,
    /// An aclScalar of dtype f32.
    Scalar,
}

/// The operators under test: (name, scalar reference on f32 values of a, b and alpha).
#[derive(Clone, Copy, Debug)]
enum Op {
    Add,
    Sub,
    Mul,
    Div,
    Max,
    Min,
}

impl Op {
    fn reference(self, a: f32, b: f32, alpha: f32) -> f32 {
        match self {
            Op::Add if alpha == 1.0 => a + b,
            Op::Add => a + alpha * b,
            Op::Sub => a - alpha * b,
            Op::Mul => a * b,
            Op::Div => a / b,
            // NaN if either is; of two zeros, max takes +0 and min -0.
            Op::Max | Op::Min if a.is_nan() || b.is_nan() => f32::NAN,
            Op::Max if a == b => f32::from_bits(a.to_bits() & b.to_bits()),
            Op::Min if a == b => f32::from_bits(a.to_bits() | b.to_bits()),
            Op::Max => {
                if a > b {
                    a
                } else {
                    b
                }
            }
            Op::Min => {
                if a < b {
                    a
                } else {
                    b
                }
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn build(
        self,
        a: &TensorDesc,
        b: Result<&TensorDesc, &Scalar>,
        alpha: &Scalar,
        out: Option<&TensorDesc>,
    ) -> crate::Result<Executor> {
        match (self, b, out) {
            (Op::Add, Ok(b), Some(o)) => add::add(a, b, alpha, o),
            (Op::Add, Err(s), Some(o)) => add::adds(a, s, alpha, o),
            (Op::Add, Ok(b), None) => add::inplace_add(a, b, alpha),
            (Op::Add, Err(s), None) => add::inplace_adds(a, s, alpha),
            (Op::Sub, Ok(b), Some(o)) => add::sub(a, b, alpha, o),
            (Op::Sub, Err(s), Some(o)) => add::subs(a, s, alpha, o),
            (Op::Sub, Ok(b), None) => add::inplace_sub(a, b, alpha),
            (Op::Sub, Err(s), None) => add::inplace_subs(a, s, alpha),
            (Op::Mul, Ok(b), Some(o)) => mul::mul(a, b, o),
            (Op::Mul, Err(s), Some(o)) => mul::muls(a, s, o),
            (Op::Mul, Ok(b), None) => mul::inplace_mul(a, b),
            (Op::Mul, Err(s), None) => mul::inplace_muls(a, s),
            (Op::Div, Ok(b), Some(o)) => div::div(a, b, o),
            (Op::Div, Err(s), Some(o)) => div::divs(a, s, o),
            (Op::Div, Ok(b), None) => div::inplace_div(a, b),
            (Op::Div, Err(s), None) => div::inplace_divs(a, s),
            // Maximum and Minimum take two tensors and an out only; a scalar other is
            // passed as a (1,) tensor and in place writes into self's own memory.
            (Op::Max, Ok(b), o) => extremum::maximum(a, b, o.unwrap_or(a)),
            (Op::Min, Ok(b), o) => extremum::minimum(a, b, o.unwrap_or(a)),
            (Op::Max | Op::Min, Err(_), _) => unreachable!("no scalar form"),
        }
    }
}

/// Second operands: patterns next to rounding boundaries and the special values.
fn others(d: DType, rng: &mut Rng, n: usize) -> Vec<u16> {
    let special: [u16; 10] = match d {
        DType::F16 => [
            0x0000, 0x8000, 0x7C00, 0xFC00, 0x7E01, 0x7C01, 0x0001, 0x03FF, 0x3C00, 0x3C01,
        ],
        _ => [
            0x0000, 0x8000, 0x7F80, 0xFF80, 0x7FC1, 0x7F81, 0x0001, 0x007F, 0x3F80, 0x3F81,
        ],
    };
    (0..n)
        .map(|_| {
            if rng.pct(10) {
                rng.pick(&special)
            } else {
                rng.next() as u16
            }
        })
        .collect()
}

/// Runs one case and compares every output element with the reference.
fn check(d: DType, op: Op, other: Other, inplace: bool, alpha: f32, n: usize, rng: &mut Rng) {
    let a: Vec<u16> = (0..n)
        .map(|i| (i as u16).wrapping_mul(40503) ^ (i >> 16) as u16)
        .collect();
    let what = format!("{d} {op:?} {other:?} inplace={inplace} alpha={alpha} n={n}");
    // The operator converts alpha and a scalar to the computation dtype first.
    let alpha16 = widen(d, narrow(d, alpha));
    let scalar = f32::from_bits(0x3DCC_CCCD); // 0.1, not exact in either dtype
    let (b_vals, b_stride, b_len): (Vec<u16>, usize, usize) = match other {
        Other::Tensor { stride } => (others(d, rng, n * stride), stride, n),
        Other::Broadcast => (others(d, rng, 1), 1, 1),
        Other::Scalar => (vec![narrow(d, scalar)], 1, 1),
    };
    let b_at = |i: usize| match other {
        Other::Tensor { stride } => b_vals[i * stride],
        _ => b_vals[0],
    };
    let a_buf = buf_of(&a);
    let b_buf = buf_of(&b_vals);
    let out_buf = Buf::new(n * 2);
    let ta = tensor(d, &a_buf, n, 1);
    let tb = tensor(d, &b_buf, b_len, b_stride);
    let to = tensor(d, &out_buf, n, 1);
    let s = Scalar::from_value(scalar);
    let b = match other {
        Other::Scalar => Err(&s),
        _ => Ok(&tb),
    };
    let exec = op
        .build(
            &ta,
            b,
            &Scalar::from_value(alpha),
            (!inplace).then_some(&to),
        )
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    run_exec(&exec).unwrap_or_else(|e| panic!("{what}: {e}"));
    let got = read(if inplace { &a_buf } else { &out_buf });
    for i in 0..n {
        let (x, y) = (widen(d, a[i]), widen(d, b_at(i)));
        let want = narrow(d, op.reference(x, y, alpha16));
        // With two NaN operands the result is a NaN, carrying either payload: the compiler
        // may swap the operands of a commutative operation, so which one is not fixed.
        if x.is_nan() && y.is_nan() {
            assert!(
                widen(d, got[i]).is_nan(),
                "{what}: element {i}: {:#06x} is not NaN",
                got[i]
            );
            continue;
        }
        assert_eq!(
            got[i],
            want,
            "{what}: element {i}: a={:#06x} b={:#06x} gave {:#06x}, expected {want:#06x}",
            a[i],
            b_at(i),
            got[i]
        );
    }
}

#[test]
fn f16_and_bf16_arithmetic_match_a_scalar_f32_reference() {
    let mut rng = Rng::new(0x16);
    for d in [DType::F16, DType::BF16] {
        // Every 16-bit pattern as the first operand, in one call.
        for op in [Op::Add, Op::Sub, Op::Mul, Op::Div, Op::Max, Op::Min] {
            check(
                d,
                op,
                Other::Tensor { stride: 1 },
                false,
                1.0,
                65536 + 7,
                &mut rng,
            );
        }
        check(
            d,
            Op::Add,
            Other::Tensor { stride: 1 },
            false,
            2.5,
            65536,
            &mut rng,
        );
        check(
            d,
            Op::Sub,
            Other::Tensor { stride: 1 },
            false,
            -0.3,
            65536,
            &mut rng,
        );
        // Tails of every length after the 16-lane blocks, and every way in.
        for n in [1, 2, 15, 16, 17, 31, 33, 1000, 1024 + 9] {
            for other in [
                Other::Tensor { stride: 1 },
                Other::Tensor { stride: 3 },
                Other::Broadcast,
                Other::Scalar,
            ] {
                for inplace in [false, true] {
                    let scalar = matches!(other, Other::Scalar);
                    let ops: &[Op] = if scalar {
                        &[Op::Add, Op::Sub, Op::Mul, Op::Div]
                    } else {
                        &[Op::Add, Op::Sub, Op::Mul, Op::Div, Op::Max, Op::Min]
                    };
                    let op = rng.pick(ops);
                    let alpha = rng.pick(&[1.0, 0.7, -3.0]);
                    check(d, op, other, inplace, alpha, n, &mut rng);
                }
            }
        }
    }
}
