//! Building complex numbers and taking them apart: Complex (real + i·imag), Polar
//! (abs·e^(i·angle)) and Real (the real part).
//!
//! Complex is exact: its parts promote (f16 × f32 = f32, ...) to the real dtype whose
//! complex dtype is the result (f16 → complex32, f32 → complex64, f64 → complex128), then
//! convert to out (complex ↔ complex only). Polar computes abs·cos(angle) and
//! abs·sin(angle) in f64 and rounds each part once to f32 (within 1 ulp of the exact
//! parts). Real of a real tensor copies it; of a complex one, its real part in the
//! component dtype.

use super::binary::{self, Compute, Dtypes, Operand};
use super::catalog::Entry;
use super::elementwise as ew;
use super::unary::{self, OutRule, Rule};
use crate::dtype::DType;
use crate::element::{C128, C64};
use crate::engine::kernel::{binary as binary_kernel, unary as unary_kernel, BinaryOp, UnaryOp};
use crate::engine::{KernelFn, Params, Via};
use crate::error::Result;
use crate::executor::Executor;
use crate::tensor::TensorDesc;

use DType::*;

struct MakeComplex64;
impl BinaryOp for MakeComplex64 {
    type A = f32;
    type B = f32;
    type O = C64;
    fn new(_: &Params) -> Self {
        MakeComplex64
    }
    #[inline(always)]
    fn apply(&self, re: f32, im: f32) -> C64 {
        C64::new(re, im)
    }
}
struct MakeComplex128;
impl BinaryOp for MakeComplex128 {
    type A = f64;
    type B = f64;
    type O = C128;
    fn new(_: &Params) -> Self {
        MakeComplex128
    }
    #[inline(always)]
    fn apply(&self, re: f64, im: f64) -> C128 {
        C128::new(re, im)
    }
}

struct Polar;
impl BinaryOp for Polar {
    type A = f32;
    type B = f32;
    type O = C64;
    fn new(_: &Params) -> Self {
        Polar
    }
    #[inline(always)]
    fn apply(&self, abs: f32, angle: f32) -> C64 {
        let (r, t) = (abs as f64, angle as f64);
        C64::new((r * t.cos()) as f32, (r * t.sin()) as f32)
    }
}

/// The real part of a complex number, in its component type.
struct RealPart<T>(std::marker::PhantomData<T>);
impl UnaryOp for RealPart<C64> {
    type A = C64;
    type O = f32;
    fn new(_: &Params) -> Self {
        RealPart(std::marker::PhantomData)
    }
    #[inline(always)]
    fn apply(&self, z: C64) -> f32 {
        z.re
    }
}
impl UnaryOp for RealPart<C128> {
    type A = C128;
    type O = f64;
    fn new(_: &Params) -> Self {
        RealPart(std::marker::PhantomData)
    }
    #[inline(always)]
    fn apply(&self, z: C128) -> f64 {
        z.re
    }
}
/// A real value is its own real part.
struct Same<T>(std::marker::PhantomData<T>);
impl<T: crate::element::Element> UnaryOp for Same<T> {
    type A = T;
    type O = T;
    fn new(_: &Params) -> Self {
        Same(std::marker::PhantomData)
    }
    #[inline(always)]
    fn apply(&self, x: T) -> T {
        x
    }
}

const PARTS: &[DType] = &[F32, F16, F64];
const COMPLEX_OUT: &[DType] = &[C64, C32, C128];

/// aclnnComplex: `out = real + i·imag`.
pub fn complex(real: &TensorDesc, imag: &TensorDesc, out: &TensorDesc) -> Result<Executor> {
    binary::build(
        "aclnnComplex",
        &Dtypes {
            a: PARTS,
            b: PARTS,
            out: COMPLEX_OUT,
        },
        Operand::Tensor("real", real),
        Operand::Tensor("imag", imag),
        Some(("out", out)),
        |p| {
            let (result, k) = match p {
                F64 => (C128, binary_kernel::<MakeComplex128> as KernelFn),
                F16 => (C32, binary_kernel::<MakeComplex64> as KernelFn),
                _ => (C64, binary_kernel::<MakeComplex64> as KernelFn),
            };
            Ok(Compute {
                checked: result,
                input: Via::of(p),
                result: Via::of(result),
                kernel: k,
                narrow: None,
                params: Params::default(),
            })
        },
    )
}

/// aclnnPolar: `out = input·(cos angle + i·sin angle)`; f32 parts, complex64 out.
pub fn polar(input: &TensorDesc, angle: &TensorDesc, out: &TensorDesc) -> Result<Executor> {
    ew::check_same_dtype("angle", angle, input)?;
    binary::build(
        "aclnnPolar",
        &Dtypes {
            a: &[F32],
            b: &[F32],
            out: &[C64],
        },
        Operand::Tensor("input", input),
        Operand::Tensor("angle", angle),
        Some(("out", out)),
        |_| {
            Ok(Compute {
                checked: C64,
                input: Via::exact(F32),
                result: Via::exact(C64),
                kernel: binary_kernel::<Polar>,
                narrow: None,
                params: Params::default(),
            })
        },
    )
}

const REAL_IN: &[DType] = &[F32, F16, C64, C32, C128];
const REAL_OUT: &[DType] = &[F32, F16, F64];

/// aclnnReal: the real part (a real tensor: itself).
pub fn real(self_: &TensorDesc, out: &TensorDesc) -> Result<Executor> {
    let rule = Rule {
        a: REAL_IN,
        out: REAL_OUT,
        out_rule: OutRule::Castable,
    };
    unary::build("aclnnReal", &rule, "self", self_, Some(("out", out)), |d| {
        let (part, k) = match d.compute() {
            C64 => (F32, unary_kernel::<RealPart<C64>> as KernelFn),
            C128 => (F64, unary_kernel::<RealPart<C128>> as KernelFn),
            F64 => (F64, unary_kernel::<Same<f64>> as KernelFn),
            _ => (F32, unary_kernel::<Same<f32>> as KernelFn),
        };
        // complex32 reads through complex64; its part is f16.
        let checked = match d {
            C32 | F16 => F16,
            _ => part,
        };
        Ok(Compute {
            checked,
            input: Via::of(d),
            result: Via {
                value: checked,
                kernel: part,
            },
            kernel: k,
            narrow: None,
            params: Params::default(),
        })
    })
}

/// Supported dtypes, for the operator table (docs/DTYPES.md).
pub const CATALOG: &[Entry] = &[
    Entry {
        ops: "Complex",
        a: PARTS,
        b: PARTS,
        out: COMPLEX_OUT,
        rule: "real + i·imag, exact",
    },
    Entry {
        ops: "Polar",
        a: &[F32],
        b: &[F32],
        out: &[C64],
        rule: "abs·(cos θ + i·sin θ)",
    },
    Entry {
        ops: "Real",
        a: REAL_IN,
        b: &[],
        out: REAL_OUT,
        rule: "the real part (real tensors: a copy)",
    },
];
