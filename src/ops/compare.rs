//! EqTensor, NeTensor, GtTensor, GeTensor, LtTensor, LeTensor, their Scalar forms and all
//! their in-place forms (reference §5.2): `out = (self OP other) ? 1 : 0`.
//!
//! The operands are compared in their promoted dtype (tensor-tensor table; the Scalar
//! forms use the tensor-scalar relation, so the scalar is first converted to the tensor's
//! dtype class); f16/bf16 compare exactly in f32. Floats follow IEEE: every comparison
//! with NaN is false except `!=`. The bool result is converted to out's dtype (any dtype
//! bool converts to: bool, integers, floats); in-place forms write 0/1 into selfRef.
//!
//! An integer tensor ordered against an integer scalar outside the tensor dtype's range
//! (GtScalar, GeScalar, LtScalar, LeScalar: `s8 x > 300`) compares exactly, as CANN's A2
//! code does by promoting the tensor with the scalar's dtype: the result is the same for
//! every element (x > 300 is false for every s8 x), not the comparison with the scalar
//! wrapped into the tensor's dtype. EqScalar/NeScalar compute in the tensor's dtype on the
//! device too (the scalar is converted with a C cast, so it wraps: `s8 x == 300` is
//! `x == 44`), and so do they here.

use super::binary::{self, Compute, Dtypes, Operand};
use super::catalog::Entry;
use super::elementwise as ew;
use crate::dtype::DType;
use crate::element::Wide;
use crate::element::{Bool8, C128, C64};
use crate::engine::kernel::{binary as kernel, BinaryOp, Equal, Ordered};
use crate::engine::{KernelFn, Params};
use crate::error::Result;
use crate::executor::Executor;
use crate::scalar::Scalar;
use crate::tensor::TensorDesc;
use std::marker::PhantomData;

use DType::*;

/// The six relations.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Relation {
    Eq,
    Ne,
    Gt,
    Ge,
    Lt,
    Le,
}

const EQ_IN: &[DType] = &[F64, F16, F32, BF16, S64, S32, S8, U8, Bool, S16, C64, C128];
const GT_IN: &[DType] = &[
    F64, F16, F32, S32, U32, S64, U64, S16, U16, S8, U8, Bool, BF16,
];
const GT_OUT: &[DType] = &[
    F64, F16, F32, S32, U32, S64, U64, S16, U16, S8, U8, Bool, BF16, C64, C128,
];
const LE_IN: &[DType] = &[S8, U8, S16, S32, S64, F16, U16, BF16, F32, F64, Bool];
const LE_OUT: &[DType] = &[
    F32, S32, S64, F16, S16, S8, U8, F64, U32, U64, Bool, U16, C64, C128, BF16,
];

impl Relation {
    fn dtypes(self) -> Dtypes {
        match self {
            Relation::Eq | Relation::Ne => Dtypes {
                a: EQ_IN,
                b: EQ_IN,
                out: EQ_IN,
            },
            Relation::Gt | Relation::Ge | Relation::Lt => Dtypes {
                a: GT_IN,
                b: GT_IN,
                out: GT_OUT,
            },
            Relation::Le => Dtypes {
                a: LE_IN,
                b: LE_IN,
                out: LE_OUT,
            },
        }
    }
}

struct Cmp<T, const R: u8>(PhantomData<T>);
impl<T: Ordered, const R: u8> BinaryOp for Cmp<T, R> {
    type A = T;
    type B = T;
    type O = Bool8;
    fn new(_: &Params) -> Self {
        Cmp(PhantomData)
    }
    #[inline(always)]
    fn apply(&self, a: T, b: T) -> Bool8 {
        Bool8::new(match R {
            0 => a.equal(b),
            1 => !a.equal(b),
            2 => b.less(a),
            3 => b.less_eq(a),
            4 => a.less(b),
            _ => a.less_eq(b),
        })
    }
}

/// Equality of complex numbers (no ordering).
struct CmpEq<T, const NE: bool>(PhantomData<T>);
impl<T: Equal, const NE: bool> BinaryOp for CmpEq<T, NE> {
    type A = T;
    type B = T;
    type O = Bool8;
    fn new(_: &Params) -> Self {
        CmpEq(PhantomData)
    }
    #[inline(always)]
    fn apply(&self, a: T, b: T) -> Bool8 {
        Bool8::new(a.equal(b) != NE)
    }
}

/// The same answer for every element.
struct Always<T, const V: bool>(PhantomData<T>);
impl<T: crate::element::Element, const V: bool> BinaryOp for Always<T, V> {
    type A = T;
    type B = T;
    type O = Bool8;
    fn new(_: &Params) -> Self {
        Always(PhantomData)
    }
    #[inline(always)]
    fn apply(&self, _: T, _: T) -> Bool8 {
        Bool8::new(V)
    }
}

/// The inclusive range of an integer dtype.
fn int_range(d: DType) -> Option<(i128, i128)> {
    Some(match d {
        S8 => (i8::MIN as i128, i8::MAX as i128),
        U8 => (0, u8::MAX as i128),
        S16 => (i16::MIN as i128, i16::MAX as i128),
        U16 => (0, u16::MAX as i128),
        S32 => (i32::MIN as i128, i32::MAX as i128),
        U32 => (0, u32::MAX as i128),
        S64 => (i64::MIN as i128, i64::MAX as i128),
        U64 => (0, u64::MAX as i128),
        _ => return None,
    })
}

/// For an ordering of an integer P against an integer scalar outside P's range, the
/// answer every element gets (`x > v` for every x of P when v is below P's minimum).
fn out_of_range_answer(rel: Relation, p: DType, scalar: &Scalar) -> Option<bool> {
    let (lo, hi) = int_range(p)?;
    let Wide::Int(v) = scalar.wide() else {
        return None;
    };
    let above = match rel {
        Relation::Gt | Relation::Ge => false,
        Relation::Lt | Relation::Le => true,
        // Computed in P with the scalar wrapped, as the device does.
        Relation::Eq | Relation::Ne => return None,
    };
    if v > hi {
        Some(above)
    } else if v < lo {
        Some(!above)
    } else {
        None
    }
}

fn typed<const R: u8>(c: DType) -> Result<KernelFn> {
    Ok(match c {
        F32 => kernel::<Cmp<f32, R>> as KernelFn,
        F64 => kernel::<Cmp<f64, R>>,
        S8 => kernel::<Cmp<i8, R>>,
        U8 => kernel::<Cmp<u8, R>>,
        S16 => kernel::<Cmp<i16, R>>,
        U16 => kernel::<Cmp<u16, R>>,
        S32 => kernel::<Cmp<i32, R>>,
        U32 => kernel::<Cmp<u32, R>>,
        S64 => kernel::<Cmp<i64, R>>,
        U64 => kernel::<Cmp<u64, R>>,
        Bool => kernel::<Cmp<Bool8, R>>,
        C64 if R <= 1 => {
            if R == 0 {
                kernel::<CmpEq<C64, false>>
            } else {
                kernel::<CmpEq<C64, true>>
            }
        }
        C128 if R <= 1 => {
            if R == 0 {
                kernel::<CmpEq<C128, false>>
            } else {
                kernel::<CmpEq<C128, true>>
            }
        }
        other => {
            crate::bail!("complex numbers ({other}) are not ordered; only Eq and Ne compare them")
        }
    })
}

fn compute(rel: Relation, p: DType) -> Result<Compute> {
    let c = p.compute();
    let k = match rel {
        Relation::Eq => typed::<0>(c)?,
        Relation::Ne => typed::<1>(c)?,
        Relation::Gt => typed::<2>(c)?,
        Relation::Ge => typed::<3>(c)?,
        Relation::Lt => typed::<4>(c)?,
        Relation::Le => typed::<5>(c)?,
    };
    Ok(Compute::predicate(p, k))
}

/// `out = self OP other` (other a tensor or a scalar); `out == None` writes into selfRef.
pub fn compare(
    api: &'static str,
    rel: Relation,
    self_: &TensorDesc,
    other: Operand,
    out: Option<&TensorDesc>,
) -> Result<Executor> {
    let name = if out.is_some() { "self" } else { "selfRef" };
    binary::build(
        api,
        &rel.dtypes(),
        Operand::Tensor(name, self_),
        other,
        out.map(|o| ("out", o)),
        |p| {
            if let Operand::Scalar(_, s) = other {
                if let Some(v) = out_of_range_answer(rel, p, s) {
                    let k = crate::with_compute_dtype!(p, T => if v {
                        kernel::<Always<T, true>> as KernelFn
                    } else {
                        kernel::<Always<T, false>> as KernelFn
                    });
                    return Ok(Compute::predicate(p, k));
                }
            }
            compute(rel, p)
        },
    )
}

/// Supported dtypes, for the operator table (docs/DTYPES.md).
pub const CATALOG: &[Entry] = &[
    Entry {
        ops: "EqTensor, NeTensor, EqScalar, NeScalar (+ Inplace)",
        a: EQ_IN,
        b: EQ_IN,
        out: EQ_IN,
        rule: "1/0 of ==, !=",
    },
    Entry {
        ops: "GtTensor, GeTensor, LtTensor, GtScalar, GeScalar, LtScalar (+ Inplace)",
        a: GT_IN,
        b: GT_IN,
        out: GT_OUT,
        rule: "1/0 of >, >=, <",
    },
    Entry {
        ops: "LeTensor, LeScalar (+ Inplace)",
        a: LE_IN,
        b: LE_IN,
        out: LE_OUT,
        rule: "1/0 of <=",
    },
    Entry {
        ops: "IsInTensorScalar, IsInScalarTensor",
        a: ISIN,
        b: ISIN,
        out: &[Bool],
        rule: "element == testElement (invert: !=); scalar element: any over testElements",
    },
];

/// IsInTensorScalar's and IsInScalarTensor's dtypes (Atlas A2 lists of CANN's op_api; bool,
/// the wide unsigned integers and complex are refused there).
const ISIN: &[DType] = &[F32, F16, BF16, F64, S8, S16, S32, S64, U8];

/// The equality predicate (`invert`: inequality) computed in `p`.
fn equality(invert: bool, p: DType) -> Result<Compute> {
    compute(if invert { Relation::Ne } else { Relation::Eq }, p)
}

/// The dtype IsIn compares in (CANN's A2 rule, not torch's wrapped-number rule): a float
/// tensor keeps its dtype; a float scalar with an integer tensor promotes by the tensor-tensor
/// table (an f64 scalar compares an s32 tensor in f64); otherwise the tensor's dtype (the
/// integer scalar is converted to it with a C cast, as EqScalar).
fn isin_dtype(tensor: DType, scalar: DType, full: bool) -> Option<DType> {
    if full {
        return crate::dtype::promote(tensor, scalar);
    }
    if tensor.is_float() {
        Some(tensor)
    } else if scalar.is_float() {
        crate::dtype::promote(tensor, scalar)
    } else {
        Some(tensor)
    }
}

fn isin_compared(
    tensor_name: &str,
    tensor: &TensorDesc,
    scalar_name: &str,
    scalar: &Scalar,
    full: bool,
) -> Result<DType> {
    let p = isin_dtype(tensor.dtype, scalar.dtype, full).filter(|p| ISIN.contains(p));
    p.ok_or_else(|| {
        crate::error::Error::Invalid(format!(
            "{tensor_name} dtype {} and {scalar_name} dtype {} do not promote to a dtype IsIn compares in",
            tensor.dtype, scalar.dtype
        ))
    })
}

/// aclnnIsInTensorScalar: `out = (element == testElement)` (`invert`: `!=`), a bool tensor
/// of element's shape; assumeUnique changes nothing.
pub fn isin_tensor_scalar(
    element: &TensorDesc,
    test_element: &Scalar,
    _assume_unique: bool,
    invert: bool,
    out: &TensorDesc,
) -> Result<Executor> {
    ew::check_tensor("element", element, ISIN)?;
    ew::check_scalar_dtype("testElement", test_element.dtype, ISIN)?;
    ew::check_tensor("out", out, &[Bool])?;
    let p = isin_compared("element", element, "testElement", test_element, false)?;
    for (name, t) in [("element", element), ("out", out)] {
        crate::ensure!(
            t.rank() <= 8,
            "{name} has {} dims; at most 8 are supported",
            t.rank()
        );
    }
    ew::check_result_shape("out", out, &element.shape)?;
    binary::build(
        "aclnnIsInTensorScalar",
        &Dtypes {
            a: ISIN,
            b: ISIN,
            out: &[Bool],
        },
        Operand::Tensor("element", element),
        Operand::Scalar("testElement", test_element),
        Some(("out", out)),
        |_| equality(invert, p),
    )
}

/// aclnnIsInScalarTensor: `out = any(testElements == element)` (`invert`: its negation,
/// computed as `all(testElements != element)`), a 0-d bool tensor. An empty testElements
/// gives `invert`, as does a NaN element. testElements of 10 or more elements promote with
/// element by the tensor-tensor table (CANN's threshold), fewer by IsInTensorScalar's rule.
pub fn isin_scalar_tensor(
    element: &Scalar,
    test_elements: &TensorDesc,
    _assume_unique: bool,
    invert: bool,
    out: &TensorDesc,
) -> Result<Executor> {
    const API: &str = "aclnnIsInScalarTensor";
    ew::check_scalar_dtype("element", element.dtype, ISIN)?;
    ew::check_tensor("testElements", test_elements, ISIN)?;
    ew::check_tensor("out", out, &[Bool])?;
    let p = isin_compared(
        "testElements",
        test_elements,
        "element",
        element,
        test_elements.numel() >= 10,
    )?;
    crate::ensure!(
        test_elements.rank() <= 8,
        "testElements has {} dims; at most 8 are supported",
        test_elements.rank()
    );
    crate::ensure!(
        out.rank() == 0,
        "out has shape {:?}; it must be a 0-d tensor",
        out.shape
    );
    out.check_output("out")?;
    // testElements == element (or !=) into a contiguous bool staging tensor in the
    // workspace, then any (or all) of it into out.
    let n = test_elements.numel();
    let staged = TensorDesc {
        dtype: Bool,
        format: crate::format::Format::ND,
        shape: test_elements.shape.clone(),
        strides: crate::tensor::contiguous_strides(&test_elements.shape),
        offset: 0,
        storage_shape: smallvec::smallvec![n],
        addr: STAGED_ADDR,
    };
    let cmp = binary::build(
        API,
        &Dtypes {
            a: ISIN,
            b: ISIN,
            out: &[Bool],
        },
        Operand::Tensor("testElements", test_elements),
        Operand::Scalar("element", element),
        Some(("out", &staged)),
        |_| equality(invert, p),
    )?;
    let reduce = if invert {
        super::reduce_stats::all(&staged, &[], false, out)?
    } else {
        super::reduce_stats::any(&staged, &[], false, out)?
    };
    let bindings = crate::executor::Bindings {
        tensors: std::sync::Arc::new(vec![Some(test_elements.clone()), Some(out.clone())]),
        n_inputs: 1,
        outputs: smallvec::smallvec![1],
    };
    Ok(Executor::new(
        API,
        bindings,
        Staged {
            cmp: cmp.work,
            cmp_bindings: cmp.bindings,
            reduce: reduce.work,
            reduce_bindings: reduce.bindings,
            bytes: n as u64,
        },
    ))
}

/// A placeholder address for the staging tensor until the run gives it the workspace's.
const STAGED_ADDR: usize = 0x1000;

/// IsInScalarTensor's work: the comparison into the workspace, then its reduction.
struct Staged {
    cmp: std::sync::Arc<dyn crate::executor::Work>,
    /// testElements, staged.
    cmp_bindings: crate::executor::Bindings,
    reduce: std::sync::Arc<dyn crate::executor::Work>,
    /// staged, out.
    reduce_bindings: crate::executor::Bindings,
    bytes: u64,
}

impl Staged {
    fn staged_size(&self) -> u64 {
        self.bytes.div_ceil(64) * 64
    }
}

/// `b` with binding `i` at `addr` for each `(i, addr)`.
fn readdressed(b: &crate::executor::Bindings, at: &[(usize, usize)]) -> crate::executor::Bindings {
    let mut b = b.clone();
    let views = std::sync::Arc::make_mut(&mut b.tensors);
    for &(i, addr) in at {
        if let Some(v) = views[i].as_mut() {
            v.addr = addr;
        }
    }
    b
}

impl crate::executor::Work for Staged {
    fn workspace_size(&self) -> u64 {
        self.staged_size() + self.cmp.workspace_size().max(self.reduce.workspace_size())
    }
    fn run(&self, b: &crate::executor::Bindings, ws: crate::executor::Workspace) -> Result<()> {
        let (test, out) = (b.view(0)?.addr, b.view(1)?.addr);
        let staged = if self.bytes == 0 {
            STAGED_ADDR
        } else {
            ws.addr
        };
        let rest = crate::executor::Workspace {
            addr: ws.addr + self.staged_size() as usize,
            size: ws.size.saturating_sub(self.staged_size()),
        };
        if self.bytes > 0 {
            let cb = readdressed(&self.cmp_bindings, &[(0, test), (1, staged)]);
            self.cmp.run(&cb, rest)?;
        }
        let rb = readdressed(&self.reduce_bindings, &[(0, staged), (1, out)]);
        self.reduce.run(&rb, rest)
    }
}
