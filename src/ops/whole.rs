//! Whole-tensor results: Trace (the sum of a matrix's diagonal), Dot (the inner product of
//! two vectors), Equal (whether two tensors have the same shape and values) and
//! InplaceOne (every element set to 1).
//!
//! - Trace is the reduction engine's sum over the diagonal seen as a 1-D view (stride = the
//!   sum of the matrix's two strides): f64 accumulation rounded once (f16/bf16 included),
//!   integers and bool summed exactly in i64 (wrapping) into an int64 out, as torch.trace.
//! - Dot: floats multiply and accumulate in f64 in index order and round once to out's
//!   dtype (a product of f32/f16/bf16 values is exact in f64; the result is within one ulp
//!   of the exactly rounded dot product but for cancellation, |error| ≤ n·2⁻⁵³·Σ|xᵢyᵢ|);
//!   integers in wrapping i64, then truncated to out's dtype (int8/uint8/int32 wrap as the
//!   device's same-dtype accumulation does). One thread: the result does not depend on the
//!   thread count.
//! - Equal: values compared after both are converted to the promoted dtype (bf16 compares
//!   as f32, which is exact); a NaN equals nothing, -0.0 equals +0.0. Different shapes give
//!   false, two empty tensors of one shape true.

use super::catalog::Entry;
use super::dense;
use super::elementwise as ew;
use super::reduce::reduced_out;
use crate::dtype::DType;
use crate::engine::reduce::{Op, Plan, Reduce};
use crate::engine::Via;
use crate::error::Result;
use crate::executor::{Bindings, Executor, Work, Workspace};
use crate::scalar::Scalar;
use crate::tensor::TensorDesc;

use DType::*;
/// aclnnTrace.md (Atlas A2).
const TRACE_IN: &[DType] = &[F32, F16, F64, C64, C128, S32, S64, S16, S8, U8, Bool, BF16];
const TRACE_OUT: &[DType] = &[BF16, F16, F32, F64, C64, C128, S64];
/// aclnnDot.md (Atlas A2).
const DOT: &[DType] = &[F32, F16, BF16, S8, S32, U8];
/// aclnnEqual.md (Atlas A2).
const EQUAL: &[DType] = &[
    F32, S32, S64, F16, S16, S8, U8, Bool, F64, U16, U32, U64, BF16,
];
/// aclnnInplaceOne.md.
const ONE: &[DType] = &[F32, F16, F64, S8, S16, S32, S64, U8, U16, Bool, BF16];

fn bindings(views: Vec<TensorDesc>, n_inputs: usize) -> Bindings {
    let n = views.len();
    Bindings {
        tensors: std::sync::Arc::new(views.into_iter().map(Some).collect()),
        n_inputs,
        outputs: (n_inputs..n).collect(),
    }
}

/// aclnnTrace: `out = Σᵢ self[i][i]` for a 2-D self into a 0-d out (int64 for integer and
/// bool self, else self's dtype). An empty self gives 0.
pub fn trace(self_: &TensorDesc, out: &TensorDesc) -> Result<Executor> {
    const API: &str = "aclnnTrace";
    crate::ensure!(
        self_.rank() == 2,
        "self has {} dims ({:?}); trace expects a matrix",
        self_.rank(),
        self_.shape
    );
    crate::ensure!(
        out.rank() == 0,
        "out has shape {:?}; trace expects a 0-d out",
        out.shape
    );
    ew::check_tensor("self", self_, TRACE_IN)?;
    let want = if self_.dtype.is_float() || self_.dtype.is_complex() {
        self_.dtype
    } else {
        S64
    };
    ew::check_tensor("out", out, TRACE_OUT)?;
    crate::ensure!(
        out.dtype == want,
        "out has dtype {} but must be {want} for self of dtype {}",
        out.dtype,
        self_.dtype
    );
    let n = self_.shape[0].min(self_.shape[1]);
    let mut diag = self_.clone();
    diag.shape = smallvec::smallvec![n];
    diag.strides = smallvec::smallvec![self_.strides[0] + self_.strides[1]];
    let out_v = reduced_out(out, &[])?;
    let b = Bindings {
        tensors: std::sync::Arc::new(vec![Some(self_.clone()), Some(out.clone())]),
        n_inputs: 1,
        outputs: smallvec::smallvec![1],
    };
    // The step sees the diagonal and out's 0-d view at the operator's addresses.
    let step_b = Bindings {
        tensors: std::sync::Arc::new(vec![Some(diag.clone()), Some(out_v.clone())]),
        n_inputs: 1,
        outputs: smallvec::smallvec![1],
    };
    let plan = Plan::new(
        Op::Reduce(Reduce::Sum),
        &diag,
        0,
        &[0],
        Via::exact(want),
        &out_v,
        1,
    );
    let mut seq = crate::executor::Sequence::new();
    seq.push(Executor::new(API, step_b, plan), &[0, 1]);
    Ok(Executor::new(API, b, seq))
}

/// Dot's work: bindings self, tensor, out.
struct DotWork {
    n: usize,
}

impl Work for DotWork {
    fn workspace_size(&self) -> u64 {
        0
    }
    fn small(&self) -> bool {
        self.n <= 4096
    }
    fn run(&self, b: &Bindings, _: Workspace) -> Result<()> {
        let (x, y, out) = (b.view(0)?, b.view(1)?, b.view(2)?);
        let (xa, ya, oa) = (b.addr(0)?, b.addr(1)?, b.addr(2)?);
        const CHUNK: usize = 1024;
        let mut fx = [0f64; CHUNK];
        let mut fy = [0f64; CHUNK];
        let mut ix = [0i64; CHUNK];
        let mut iy = [0i64; CHUNK];
        let float = x.dtype.is_float();
        let (mut fs, mut is) = (0f64, 0i64);
        let mut lo = 0;
        while lo < self.n {
            let len = CHUNK.min(self.n - lo);
            // SAFETY: elements lo..lo+len of the 1-D views x and y (checked at phase 1/2).
            unsafe {
                for (t, a, fb, ib) in [(x, xa, &mut fx, &mut ix), (y, ya, &mut fy, &mut iy)] {
                    let size = t.dtype.size() as isize;
                    let src = (a as isize + (t.offset as isize + lo as isize * t.strides[0]) * size)
                        as *const u8;
                    if float {
                        crate::engine::convert::run(
                            src,
                            t.dtype,
                            t.strides[0],
                            fb.as_mut_ptr() as *mut u8,
                            F64,
                            1,
                            len,
                        );
                    } else {
                        crate::engine::convert::run(
                            src,
                            t.dtype,
                            t.strides[0],
                            ib.as_mut_ptr() as *mut u8,
                            S64,
                            1,
                            len,
                        );
                    }
                }
            }
            if float {
                for k in 0..len {
                    fs += fx[k] * fy[k];
                }
            } else {
                for k in 0..len {
                    is = is.wrapping_add(ix[k].wrapping_mul(iy[k]));
                }
            }
            lo += len;
        }
        // SAFETY: out is a 0-d output view.
        unsafe {
            if float {
                dense::scatter(&fs as *const f64 as *const u8, F64, out, oa);
            } else {
                // Truncation to out's width: the low bits of the wrapping sum.
                let v: i64 = match out.dtype {
                    S8 => is as i8 as i64,
                    U8 => is as u8 as i64,
                    S32 => is as i32 as i64,
                    _ => is,
                };
                dense::scatter(&v as *const i64 as *const u8, S64, out, oa);
            }
        }
        Ok(())
    }
}

/// aclnnDot: `out = Σ self[i]·tensor[i]` for 1-D self and tensor of one length and one
/// dtype (out's too), into a 0-d out. Empty vectors give 0.
pub fn dot(self_: &TensorDesc, tensor: &TensorDesc, out: &TensorDesc) -> Result<Executor> {
    const API: &str = "aclnnDot";
    ew::check_same_dtype("tensor", tensor, self_)?;
    ew::check_same_dtype("out", out, self_)?;
    ew::check_tensor("self", self_, DOT)?;
    crate::ensure!(
        self_.rank() == 1 && tensor.rank() == 1,
        "expected 1-D self and tensor, but got shapes {:?} and {:?}",
        self_.shape,
        tensor.shape
    );
    crate::ensure!(
        self_.shape[0] == tensor.shape[0],
        "self has {} elements but tensor has {}: they must be equal",
        self_.shape[0],
        tensor.shape[0]
    );
    crate::ensure!(
        out.rank() == 0,
        "out has shape {:?}; Dot expects a 0-d out",
        out.shape
    );
    out.check_output("out")?;
    let b = bindings(vec![self_.clone(), tensor.clone(), out.clone()], 2);
    Ok(Executor::new(API, b, DotWork { n: self_.shape[0] }))
}

/// Equal's work: bindings self, other, out; compared in `p` (None: the shapes differ or
/// both are empty, and the answer is `fixed`).
struct EqualWork {
    p: DType,
    fixed: Option<bool>,
}

impl Work for EqualWork {
    fn workspace_size(&self) -> u64 {
        0
    }
    fn small(&self) -> bool {
        self.fixed.is_some()
    }
    fn run(&self, b: &Bindings, _: Workspace) -> Result<()> {
        let out = b.view(2)?;
        let oa = b.addr(2)?;
        let eq = match self.fixed {
            Some(v) => v,
            None => {
                let (x, y) = (b.view(0)?, b.view(1)?);
                let (xa, ya) = (b.addr(0)?, b.addr(1)?);
                let p = self.p;
                let n = x.numel();
                let sz = p.size();
                let mut bx = vec![0u8; n * sz];
                let mut by = vec![0u8; n * sz];
                // SAFETY: bx/by hold n elements of p; x and y are bound views of n elements.
                unsafe {
                    dense::gather(x, xa, bx.as_mut_ptr(), p);
                    dense::gather(y, ya, by.as_mut_ptr(), p);
                }
                if p.is_float() {
                    let mut fx = vec![0f64; n];
                    let mut fy = vec![0f64; n];
                    // SAFETY: contiguous runs of n elements.
                    unsafe {
                        crate::engine::convert::run(
                            bx.as_ptr(),
                            p,
                            1,
                            fx.as_mut_ptr() as *mut u8,
                            F64,
                            1,
                            n,
                        );
                        crate::engine::convert::run(
                            by.as_ptr(),
                            p,
                            1,
                            fy.as_mut_ptr() as *mut u8,
                            F64,
                            1,
                            n,
                        );
                    }
                    fx.iter().zip(&fy).all(|(a, b)| a == b)
                } else if p == Bool {
                    bx.iter().zip(&by).all(|(a, b)| (*a != 0) == (*b != 0))
                } else {
                    bx == by
                }
            }
        };
        let v = eq as u8;
        // SAFETY: out is a one-element bool output view.
        unsafe { dense::scatter(&v as *const u8, Bool, out, oa) };
        Ok(())
    }
}

/// aclnnEqual: whether self and other have the same shape and the same values (out: a
/// one-element bool tensor of shape [1]).
pub fn equal(self_: &TensorDesc, other: &TensorDesc, out: &TensorDesc) -> Result<Executor> {
    const API: &str = "aclnnEqual";
    let p = crate::dtype::promote(self_.dtype, other.dtype).ok_or_else(|| {
        crate::error::Error::Invalid(format!(
            "self dtype {} and other dtype {} cannot be promoted to a common dtype",
            self_.dtype, other.dtype
        ))
    })?;
    crate::ensure!(
        EQUAL.contains(&p),
        "self dtype {} and other dtype {} promote to {p}, which is not supported (supported: {})",
        self_.dtype,
        other.dtype,
        EQUAL
            .iter()
            .map(|d| d.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    );
    ew::check_tensor("out", out, &[Bool])?;
    for (name, t) in [("self", self_), ("other", other), ("out", out)] {
        crate::ensure!(
            t.rank() <= 8,
            "{name} has {} dims; at most 8 are supported",
            t.rank()
        );
    }
    ew::check_result_shape("out", out, &[1])?;
    out.check_output("out")?;
    let fixed = if self_.shape != other.shape {
        Some(false)
    } else if self_.is_empty() {
        Some(true)
    } else {
        None
    };
    let p = if p == BF16 { F32 } else { p };
    let b = bindings(vec![self_.clone(), other.clone(), out.clone()], 2);
    Ok(Executor::new(API, b, EqualWork { p, fixed }))
}

/// aclnnInplaceOne: every element of selfRef becomes 1.
pub fn inplace_one(self_ref: &TensorDesc) -> Result<Executor> {
    ew::check_tensor("selfRef", self_ref, ONE)?;
    super::copy::convert_into(
        "aclnnInplaceOne",
        ew::Arg::Scalar(Scalar::from_value(1u8)),
        "selfRef",
        self_ref,
    )
}

/// Supported dtypes, for the operator table (docs/DTYPES.md).
pub const CATALOG: &[Entry] = &[
    Entry {
        ops: "Trace",
        a: TRACE_IN,
        b: &[],
        out: TRACE_OUT,
        rule: "sum of a matrix's diagonal (integers into int64)",
    },
    Entry {
        ops: "Dot",
        a: DOT,
        b: DOT,
        out: DOT,
        rule: "inner product of two vectors, f64 accumulation",
    },
    Entry {
        ops: "Equal",
        a: EQUAL,
        b: EQUAL,
        out: &[Bool],
        rule: "same shape and values, one bool",
    },
    Entry {
        ops: "InplaceOne",
        a: ONE,
        b: &[],
        out: ONE,
        rule: "fills with 1",
    },
];
