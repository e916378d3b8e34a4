//! Cast, InplaceCopy, InplaceFillScalar and InplaceZero (reference §5.3, CANN's ops-math
//! headers): the conversions. They convert by the library's one conversion rule
//! (`element.rs`): float->int truncates toward zero and saturates (NaN -> 0), int->int
//! wraps, int->float and float->float round to nearest even (overflow -> ±inf),
//! bool->x is 0/1, x->bool is x != 0, complex->complex per component, real->complex is
//! (x, 0), complex->real keeps the real part (Cast only).
//!
//! InplaceCopy is the general strided copy: src broadcasts to selfRef's shape, any views
//! on both sides, and a src that overlaps selfRef is read completely before selfRef is
//! written. It refuses complex -> non-complex (the imaginary part would be lost silently).

use super::catalog::Entry;
use super::elementwise::{self as ew, Arg};
use crate::broadcast::broadcasts_to;
use crate::dtype::DType;
use crate::element::{Bool8, Element};
use crate::engine::kernel::{unary, UnaryOp};
use crate::engine::{KernelFn, Kernels, Params, Src, Via};
use crate::error::{Error, Result};
use crate::executor::Executor;
use crate::scalar::Scalar;
use crate::tensor::TensorDesc;

use DType::*;
const CAST: &[DType] = &[
    F16, F32, F64, S8, U8, S16, U16, S32, U32, S64, U64, Bool, C64, C128, BF16,
];
/// InplaceZero's selfRef: CANN's A2 list (`DTYPE_SUPPORT_LIST` of aclnn_zero.cpp, and its
/// doc) has no u32/u64.
const ZERO: &[DType] = &[
    F16, F32, F64, S8, U8, S16, U16, S32, S64, Bool, C64, C128, BF16,
];

/// Copies elements of `SIZE` bytes: the kernel of every conversion (the engine converts
/// on the way in, so the kernel only moves bytes).
///
/// # Safety
/// See `KernelFn`.
unsafe fn copy<const SIZE: usize>(n: usize, ins: &[Src], out: *mut u8, _: &Params) {
    // SAFETY: the engine passes n elements of SIZE bytes (one for a scalar source).
    unsafe {
        match ins[0] {
            Src::Slice(p) => std::ptr::copy(p, out, n * SIZE),
            Src::Scalar(p) => {
                for i in 0..n {
                    std::ptr::copy_nonoverlapping(p, out.add(i * SIZE), SIZE);
                }
            }
        }
    }
}

pub fn copy_kernel(d: DType) -> Kernels {
    if d == Bool {
        // Bools are re-encoded as 0/1 (the engine converts any other byte on the way in,
        // but a bool read directly keeps its byte): not a plain move.
        return Kernels::from(unary::<Canonical> as KernelFn);
    }
    Kernels::moving(match d.size() {
        1 => copy::<1>,
        2 => copy::<2>,
        4 => copy::<4>,
        8 => copy::<8>,
        _ => copy::<16>,
    })
}

/// A bool written as 0 or 1.
struct Canonical;
impl UnaryOp for Canonical {
    type A = Bool8;
    type O = Bool8;
    fn new(_: &Params) -> Self {
        Canonical
    }
    #[inline(always)]
    fn apply(&self, a: Bool8) -> Bool8 {
        a.canonical()
    }
}

/// Writes `src` (a tensor or a scalar), converted to out's dtype, into `out`.
pub(crate) fn convert_into(
    api: &'static str,
    src: Arg,
    out_name: &'static str,
    out: &TensorDesc,
) -> Result<Executor> {
    let v = Via::exact(out.dtype);
    ew::executor(
        api,
        &[src],
        &[v],
        out_name,
        out,
        v,
        copy_kernel(out.dtype),
        Params::default(),
        false,
    )
}

/// aclnnCast: `out = (dtype) self`; out must have dtype `dtype` and self's shape.
pub fn cast(self_: &TensorDesc, dtype: i32, out: &TensorDesc) -> Result<Executor> {
    ew::check_tensor("self", self_, CAST)?;
    let d = DType::from_raw(dtype).map_err(|e| Error::Invalid(format!("argument 'dtype': {e}")))?;
    crate::ensure!(
        CAST.contains(&d),
        "dtype {d} is not a dtype aclnnCast converts to"
    );
    ew::check_tensor("out", out, CAST)?;
    crate::ensure!(
        out.dtype == d,
        "out has dtype {} but the requested dtype is {d}",
        out.dtype
    );
    ew::check_out_shape(d, &[("self", &self_.shape)], "out", out)?;
    convert_into("aclnnCast", Arg::Tensor("self", self_), "out", out)
}

/// aclnnInplaceCopy: `selfRef = src`, broadcast to selfRef's shape and converted to its dtype.
pub fn inplace_copy(self_ref: &TensorDesc, src: &TensorDesc) -> Result<Executor> {
    ew::check_tensor("selfRef", self_ref, CAST)?;
    ew::check_tensor("src", src, CAST)?;
    crate::ensure!(
        !(src.dtype.is_complex() && !self_ref.dtype.is_complex()),
        "src dtype {} cannot be copied into selfRef dtype {}: the imaginary part would be lost",
        src.dtype,
        self_ref.dtype
    );
    crate::ensure!(
        broadcasts_to(&src.shape, &self_ref.shape),
        "src of shape {:?} does not broadcast to selfRef's shape {:?}",
        src.shape,
        self_ref.shape
    );
    convert_into(
        "aclnnInplaceCopy",
        Arg::Tensor("src", src),
        "selfRef",
        self_ref,
    )
}

/// aclnnInplaceFillScalar: every element of selfRef becomes `value` converted to its dtype.
pub fn inplace_fill_scalar(self_ref: &TensorDesc, value: &Scalar) -> Result<Executor> {
    ew::check_tensor("selfRef", self_ref, CAST)?;
    crate::ensure!(
        !(value.dtype.is_complex() && !self_ref.dtype.is_complex()),
        "value {value} cannot fill selfRef of dtype {}: the imaginary part would be lost",
        self_ref.dtype
    );
    convert_into(
        "aclnnInplaceFillScalar",
        Arg::Scalar(*value),
        "selfRef",
        self_ref,
    )
}

/// InplaceFillTensor's selfRef: aclnn_fill_tensor.cpp's Atlas A2 list (its doc omits
/// double and the complex types, which the code accepts).
const FILL_TENSOR: &[DType] = &[F32, S32, S64, F16, S16, S8, U8, F64, Bool, C64, C128, BF16];

/// aclnnInplaceFillTensor: every element of selfRef becomes value's one element (a 0-d
/// or one-element 1-D tensor, read when the operator runs) converted to its dtype.
pub fn inplace_fill_tensor(self_ref: &TensorDesc, value: &TensorDesc) -> Result<Executor> {
    ew::check_tensor("selfRef", self_ref, FILL_TENSOR)?;
    ew::check_tensor("value", value, CAST)?;
    crate::ensure!(
        value.rank() == 0 || (value.rank() == 1 && value.shape[0] == 1),
        "value shape should be 0D or 1D with size = 1, but got {:?}",
        value.shape
    );
    crate::ensure!(
        !(value.dtype.is_complex() && !self_ref.dtype.is_complex()),
        "value dtype {} cannot fill selfRef of dtype {}: the imaginary part would be lost",
        value.dtype,
        self_ref.dtype
    );
    // The one element as a 0-d view (a [1] view would not broadcast to a 0-d selfRef).
    let v = if value.rank() == 1 {
        value.selected(0, 0)
    } else {
        value.clone()
    };
    convert_into(
        "aclnnInplaceFillTensor",
        Arg::Tensor("value", &v),
        "selfRef",
        self_ref,
    )
}

/// aclnnInplaceZero: every element of selfRef becomes 0.
pub fn inplace_zero(self_ref: &TensorDesc) -> Result<Executor> {
    ew::check_tensor("selfRef", self_ref, ZERO)?;
    convert_into(
        "aclnnInplaceZero",
        Arg::Scalar(Scalar::from_value(0u8)),
        "selfRef",
        self_ref,
    )
}

/// Supported dtypes, for the operator table (docs/DTYPES.md).
pub const CATALOG: &[Entry] = &[
    Entry {
        ops: "Cast",
        a: CAST,
        b: &[],
        out: CAST,
        rule: "conversion to dtype (out dtype = dtype)",
    },
    Entry {
        ops: "InplaceCopy",
        a: CAST,
        b: CAST,
        out: CAST,
        rule: "selfRef = src (broadcast, converted; not complex→real)",
    },
    Entry {
        ops: "InplaceFillScalar",
        a: CAST,
        b: &[],
        out: CAST,
        rule: "selfRef = value",
    },
    Entry {
        ops: "InplaceFillTensor",
        a: FILL_TENSOR,
        b: CAST,
        out: FILL_TENSOR,
        rule: "selfRef = value's element (0-d or one-element tensor)",
    },
    Entry {
        ops: "InplaceZero",
        a: ZERO,
        b: &[],
        out: ZERO,
        rule: "selfRef = 0",
    },
];
