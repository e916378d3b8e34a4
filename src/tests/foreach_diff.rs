//! The foreach operators through their C entry points, against PyTorch's `_foreach_*` (torch
//! 1.13, the device's golden) or a plain loop: random list lengths (0, 1, several), mixed
//! member shapes (0-d and empty members too), strided, transposed and offset views on
//! every side, the dtypes of each operator's Atlas A2 list. Arithmetic is exact (bit for
//! bit); the C library's functions within 2 ulp of f32 (torch uses other vector
//! routines) and 1 ulp of f16/bf16; Lerp of f16/bf16 within 1 ulp (torch 1.13 rounds after
//! each step). Also the errors (list lengths, dtypes, shapes, aliasing) and that a list of
//! 1,000 members is one executor running one work.

use super::add_diff::Rng;
use super::torch_ref::{Array, Batch};
use crate::capi::base::aclrtStream;
use crate::capi::meta::*;
use crate::capi::ops::*;
use crate::capi::runtime::{
    aclGetRecentErrMsg, aclInit, aclrtFree, aclrtMalloc, aclrtMemcpy, aclrtSetDevice,
    aclrtSynchronizeStream,
};
use crate::dtype::DType;
use std::ffi::{c_void, CStr};
use std::ptr::{null, null_mut};

pub(super) fn device() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let _ = aclInit(null());
        assert_eq!(aclrtSetDevice(0), 0);
    });
}

pub(super) fn err() -> String {
    unsafe { CStr::from_ptr(aclGetRecentErrMsg()) }
        .to_string_lossy()
        .into_owned()
}

pub(super) fn encode(d: DType, v: f64) -> Vec<u8> {
    match d {
        DType::F32 => (v as f32).to_le_bytes().to_vec(),
        DType::F16 => half::f16::from_f64(v).to_bits().to_le_bytes().to_vec(),
        DType::BF16 => half::bf16::from_f64(v).to_bits().to_le_bytes().to_vec(),
        DType::F64 => v.to_le_bytes().to_vec(),
        DType::S32 => (v as i32).to_le_bytes().to_vec(),
        DType::S64 => (v as i64).to_le_bytes().to_vec(),
        DType::S16 => (v as i16).to_le_bytes().to_vec(),
        DType::S8 => (v as i8).to_le_bytes().to_vec(),
        DType::U8 => (v as u8).to_le_bytes().to_vec(),
        d => panic!("no encoding for {d}"),
    }
}

/// A device buffer seen as a view (logical values row-major in `vals`).
pub(super) struct View {
    pub(super) dtype: DType,
    shape: Vec<usize>,
    strides: Vec<usize>,
    offset: usize,
    storage: usize,
    dev: *mut c_void,
}

const SENTINEL: f64 = 77.0;

impl View {
    /// A view of `shape` (contiguous, with gaps, transposed or offset at random), its
    /// elements `vals` (row-major), every other storage element SENTINEL.
    pub(super) fn new(rng: &mut Rng, dtype: DType, shape: &[usize], vals: &[f64]) -> View {
        let rank = shape.len();
        let mut order: Vec<usize> = (0..rank).collect();
        if rank >= 2 && rng.pct(30) {
            order.swap(rank - 1, rank - 2); // a transposed view
        }
        let mut strides = vec![0; rank];
        let mut acc = 1;
        for &d in order.iter().rev() {
            strides[d] = acc;
            acc *= shape[d] + if rng.pct(30) { 1 } else { 0 };
        }
        let offset = if rng.pct(50) {
            rng.below(3) as usize
        } else {
            0
        };
        let reach: usize = if shape.contains(&0) {
            0
        } else {
            shape
                .iter()
                .zip(&strides)
                .map(|(n, s)| (n - 1) * s)
                .sum::<usize>()
                + 1
        };
        let storage = offset + reach + 1;
        let mut v = View {
            dtype,
            shape: shape.to_vec(),
            strides,
            offset,
            storage,
            dev: null_mut(),
        };
        let mut host = vec![SENTINEL; storage];
        for (i, pos) in v.positions().into_iter().enumerate() {
            host[pos] = vals[i];
        }
        let bytes: Vec<u8> = host.iter().flat_map(|&x| encode(dtype, x)).collect();
        assert_eq!(unsafe { aclrtMalloc(&mut v.dev, bytes.len(), 0) }, 0);
        let r = unsafe {
            aclrtMemcpy(
                v.dev,
                bytes.len(),
                bytes.as_ptr() as *const c_void,
                bytes.len(),
                1,
            )
        };
        assert_eq!(r, 0);
        v
    }

    fn numel(&self) -> usize {
        self.shape.iter().product()
    }

    /// Storage positions of the logical elements, row-major.
    fn positions(&self) -> Vec<usize> {
        let n = self.numel();
        (0..n)
            .map(|mut i| {
                let mut p = self.offset;
                for d in (0..self.shape.len()).rev() {
                    p += (i % self.shape[d]) * self.strides[d];
                    i /= self.shape[d];
                }
                p
            })
            .collect()
    }

    pub(super) fn tensor(&self) -> *mut aclTensor {
        let dims: Vec<i64> = self.shape.iter().map(|&d| d as i64).collect();
        let st: Vec<i64> = self.strides.iter().map(|&s| s as i64).collect();
        let sto = [self.storage as i64];
        let t = unsafe {
            aclCreateTensor(
                dims.as_ptr(),
                dims.len() as u64,
                self.dtype as i32,
                st.as_ptr(),
                self.offset as i64,
                2,
                sto.as_ptr(),
                1,
                self.dev,
            )
        };
        assert!(!t.is_null(), "{}", err());
        t
    }

    fn storage_bytes(&self) -> Vec<u8> {
        let n = self.storage * self.dtype.size();
        let mut b = vec![0u8; n];
        let r = unsafe { aclrtMemcpy(b.as_mut_ptr() as *mut c_void, n, self.dev, n, 2) };
        assert_eq!(r, 0);
        b
    }

    /// The view's elements as a contiguous array, and whether storage outside it kept
    /// its sentinel.
    pub(super) fn read(&self) -> (Array, bool) {
        let b = self.storage_bytes();
        let sz = self.dtype.size();
        let pos = self.positions();
        let mut bytes = Vec::with_capacity(pos.len() * sz);
        for &p in &pos {
            bytes.extend_from_slice(&b[p * sz..(p + 1) * sz]);
        }
        let sent = encode(self.dtype, SENTINEL);
        let inside: std::collections::HashSet<usize> = pos.into_iter().collect();
        let kept = (0..self.storage)
            .filter(|p| !inside.contains(p))
            .all(|p| b[p * sz..(p + 1) * sz] == sent[..]);
        (
            Array {
                dtype: self.dtype,
                shape: self.shape.clone(),
                bytes,
            },
            kept,
        )
    }
}

impl Drop for View {
    fn drop(&mut self) {
        aclrtFree(self.dev);
    }
}

fn list(views: &[View]) -> *mut aclTensorList {
    let hs: Vec<*const aclTensor> = views.iter().map(|v| v.tensor() as *const _).collect();
    let l = unsafe { aclCreateTensorList(hs.as_ptr(), hs.len() as u64) };
    assert!(!l.is_null(), "{}", err());
    l
}

fn scalar_of(d: DType, v: f64) -> *mut aclScalar {
    let b = encode(d, v);
    let s = unsafe { aclCreateScalar(b.as_ptr() as *mut c_void, d as i32) };
    assert!(!s.is_null());
    s
}

fn array(d: DType, shape: &[usize], vals: &[f64]) -> Array {
    Array {
        dtype: d,
        shape: shape.to_vec(),
        bytes: vals.iter().flat_map(|&x| encode(d, x)).collect(),
    }
}

pub(super) type Phase2 =
    extern "C" fn(*mut c_void, u64, *mut aclOpExecutor, aclrtStream) -> aclnnStatus;

/// Runs phase 2 (with a workspace if asked) and synchronizes.
pub(super) fn run(
    status: aclnnStatus,
    ws: u64,
    ex: *mut aclOpExecutor,
    phase2: Phase2,
    what: &str,
) {
    assert_eq!(status, 0, "{what}: {}", err());
    let mut w = null_mut();
    if ws > 0 {
        assert_eq!(unsafe { aclrtMalloc(&mut w, ws as usize, 0) }, 0);
    }
    assert_eq!(phase2(w, ws, ex, null_mut()), 0, "{what}: {}", err());
    assert_eq!(aclrtSynchronizeStream(null_mut()), 0, "{what}: {}", err());
    if !w.is_null() {
        aclrtFree(w);
    }
}

fn f32_bits_close(a: f32, b: f32, ulps: u32) -> bool {
    if a.is_nan() && b.is_nan() {
        return true;
    }
    if a == b {
        return true;
    }
    if a.is_sign_negative() != b.is_sign_negative() || a.is_infinite() || b.is_infinite() {
        return false;
    }
    a.to_bits().abs_diff(b.to_bits()) <= ulps
}

/// Element-wise comparison of our result with the reference (`ulps` for floats).
pub(super) fn compare(what: &str, got: &Array, want: &Array, ulps: u32) {
    assert_eq!(got.numel(), want.numel(), "{what}: element count");
    let sz = got.dtype.size();
    for i in 0..got.numel() {
        let (g, w) = (got.elem(i), &want.bytes[i * sz..(i + 1) * sz]);
        let ok = match got.dtype {
            DType::F32 => f32_bits_close(
                f32::from_le_bytes(g.try_into().unwrap()),
                f32::from_le_bytes(w.try_into().unwrap()),
                ulps,
            ),
            DType::F16 | DType::BF16 => {
                let (a, b) = (
                    u16::from_le_bytes(g.try_into().unwrap()),
                    u16::from_le_bytes(w.try_into().unwrap()),
                );
                let nan = |x: u16| {
                    if got.dtype == DType::F16 {
                        half::f16::from_bits(x).is_nan()
                    } else {
                        half::bf16::from_bits(x).is_nan()
                    }
                };
                a == b || (nan(a) && nan(b)) || (a >> 15 == b >> 15 && a.abs_diff(b) as u32 <= ulps)
            }
            _ => g == w,
        };
        assert!(
            ok,
            "{what}: element {i} is {:?} but the reference has {:?}",
            got.to_f64s_lossy(i),
            want.to_f64s_lossy_at(i, got.dtype)
        );
    }
}

impl Array {
    fn to_f64s_lossy(&self, i: usize) -> f64 {
        value_of(self.dtype, self.elem(i))
    }
    fn to_f64s_lossy_at(&self, i: usize, d: DType) -> f64 {
        let sz = d.size();
        value_of(d, &self.bytes[i * sz..(i + 1) * sz])
    }
}

pub(super) fn value_of(d: DType, b: &[u8]) -> f64 {
    match d {
        DType::F32 => f32::from_le_bytes(b.try_into().unwrap()) as f64,
        DType::F16 => half::f16::from_le_bytes(b.try_into().unwrap()).to_f64(),
        DType::BF16 => half::bf16::from_le_bytes(b.try_into().unwrap()).to_f64(),
        DType::S32 => i32::from_le_bytes(b.try_into().unwrap()) as f64,
        DType::S16 => i16::from_le_bytes(b.try_into().unwrap()) as f64,
        DType::S8 => b[0] as i8 as f64,
        DType::U8 => b[0] as f64,
        _ => f64::NAN,
    }
}

/// The reference's common part: the inputs unpacked; f16/bf16 computed in f32 from the
/// scalars rounded to x's dtype, and rounded once at the end (the library's rule; torch
/// 1.13's CPU kernels round some 16-bit steps twice).
const PRELUDE: &str = "n = int(a[0].item()); s = a[1].item(); S = a[2].tolist()
X = list(a[3:3 + n]); Y = list(a[3 + n:3 + 2 * n]); Z = list(a[3 + 2 * n:3 + 3 * n])
dt = X[0].dtype if n else None
lowp = dt in (torch.float16, torch.bfloat16)
if lowp:
    rs = lambda v: float(torch.tensor(v, dtype=torch.float64).to(dt).float())
    s = rs(s); S = [rs(v) for v in S]
    X = [x.float() for x in X]; Y = [y.float() for y in Y]; Z = [z.float() for z in Z]
out = []
";

fn reference(torch: &str) -> String {
    format!("{PRELUDE}if n > 0:\n    {torch}\nif lowp:\n    out = [o.to(dt) for o in out]")
}

/// How a case's second operand and alpha are passed.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Form {
    Unary,
    /// x1, x2 (and an alpha tensor for Add/Sub).
    List,
    /// x1, x2, an aclScalar alpha.
    ListV2,
    /// A one-element device tensor.
    ScalarTensor,
    ScalarV2,
    ScalarList,
}

struct Case {
    name: &'static str,
    form: Form,
    dtypes: &'static [DType],
    /// torch: X (list 0), Y (list 1), s (the scalar), S (the scalar list); assigns out.
    torch: &'static str,
    /// Input values: general, positive, in [-1, 1].
    domain: u8,
    ulps: u32,
}

use DType::*;
const F: &[DType] = &[F32, F16, BF16];
const FI: &[DType] = &[F32, F16, BF16, S32];
const FI8: &[DType] = &[F32, F16, BF16, S32, S16, S8, U8];

const CASES: &[Case] = &[
    Case {
        name: "AddList",
        form: Form::List,
        dtypes: FI8,
        torch: "out = torch._foreach_add(X, Y, alpha=s)",
        domain: 0,
        ulps: 0,
    },
    Case {
        name: "AddListV2",
        form: Form::ListV2,
        dtypes: FI8,
        torch: "out = torch._foreach_add(X, Y, alpha=s)",
        domain: 0,
        ulps: 0,
    },
    Case {
        name: "SubList",
        form: Form::List,
        dtypes: FI8,
        torch: "out = torch._foreach_sub(X, Y, alpha=s)",
        domain: 0,
        ulps: 0,
    },
    Case {
        name: "SubListV2",
        form: Form::ListV2,
        dtypes: FI8,
        torch: "out = torch._foreach_sub(X, Y, alpha=s)",
        domain: 0,
        ulps: 0,
    },
    Case {
        name: "MulList",
        form: Form::List,
        dtypes: FI8,
        torch: "out = torch._foreach_mul(X, Y)",
        domain: 0,
        ulps: 0,
    },
    Case {
        name: "DivList",
        form: Form::List,
        dtypes: F,
        torch: "out = torch._foreach_div(X, Y)",
        domain: 0,
        ulps: 0,
    },
    Case {
        name: "MaximumList",
        form: Form::List,
        dtypes: FI,
        torch: "out = torch._foreach_maximum(X, Y)",
        domain: 0,
        ulps: 0,
    },
    Case {
        name: "MinimumList",
        form: Form::List,
        dtypes: FI,
        torch: "out = torch._foreach_minimum(X, Y)",
        domain: 0,
        ulps: 0,
    },
    Case {
        name: "PowList",
        form: Form::List,
        dtypes: F,
        torch: "out = [torch.pow(x, y) for x, y in zip(X, Y)]",
        domain: 1,
        ulps: 2,
    },
    Case {
        name: "AddScalar",
        form: Form::ScalarTensor,
        dtypes: FI8,
        torch: "out = torch._foreach_add(X, s)",
        domain: 0,
        ulps: 0,
    },
    Case {
        name: "AddScalarV2",
        form: Form::ScalarV2,
        dtypes: FI8,
        torch: "out = torch._foreach_add(X, s)",
        domain: 0,
        ulps: 0,
    },
    Case {
        name: "AddScalarList",
        form: Form::ScalarList,
        dtypes: FI,
        torch: "out = torch._foreach_add(X, S)",
        domain: 0,
        ulps: 0,
    },
    Case {
        name: "SubScalar",
        form: Form::ScalarTensor,
        dtypes: FI,
        torch: "out = torch._foreach_sub(X, s)",
        domain: 0,
        ulps: 0,
    },
    Case {
        name: "SubScalarV2",
        form: Form::ScalarV2,
        dtypes: FI,
        torch: "out = torch._foreach_sub(X, s)",
        domain: 0,
        ulps: 0,
    },
    Case {
        name: "SubScalarList",
        form: Form::ScalarList,
        dtypes: FI,
        torch: "out = torch._foreach_sub(X, S)",
        domain: 0,
        ulps: 0,
    },
    Case {
        name: "MulScalar",
        form: Form::ScalarTensor,
        dtypes: FI,
        torch: "out = torch._foreach_mul(X, s)",
        domain: 0,
        ulps: 0,
    },
    Case {
        name: "MulScalarV2",
        form: Form::ScalarV2,
        dtypes: FI,
        torch: "out = torch._foreach_mul(X, s)",
        domain: 0,
        ulps: 0,
    },
    Case {
        name: "MulScalarList",
        form: Form::ScalarList,
        dtypes: FI,
        torch: "out = torch._foreach_mul(X, S)",
        domain: 0,
        ulps: 0,
    },
    Case {
        name: "DivScalar",
        form: Form::ScalarTensor,
        dtypes: F,
        torch: "out = torch._foreach_div(X, s)",
        domain: 0,
        ulps: 0,
    },
    Case {
        name: "DivScalarV2",
        form: Form::ScalarV2,
        dtypes: F,
        torch: "out = torch._foreach_div(X, s)",
        domain: 0,
        ulps: 0,
    },
    Case {
        name: "DivScalarList",
        form: Form::ScalarList,
        dtypes: F,
        torch: "out = torch._foreach_div(X, S)",
        domain: 0,
        ulps: 0,
    },
    Case {
        name: "MaximumScalar",
        form: Form::ScalarTensor,
        dtypes: FI,
        torch: "out = [torch.maximum(x, torch.tensor(s, dtype=x.dtype)) for x in X]",
        domain: 0,
        ulps: 0,
    },
    Case {
        name: "MaximumScalarV2",
        form: Form::ScalarV2,
        dtypes: FI,
        torch: "out = [torch.maximum(x, torch.tensor(s, dtype=x.dtype)) for x in X]",
        domain: 0,
        ulps: 0,
    },
    Case {
        name: "MaximumScalarList",
        form: Form::ScalarList,
        dtypes: FI,
        torch: "out = [torch.maximum(x, torch.tensor(v, dtype=x.dtype)) for x, v in zip(X, S)]",
        domain: 0,
        ulps: 0,
    },
    Case {
        name: "MinimumScalar",
        form: Form::ScalarTensor,
        dtypes: FI,
        torch: "out = [torch.minimum(x, torch.tensor(s, dtype=x.dtype)) for x in X]",
        domain: 0,
        ulps: 0,
    },
    Case {
        name: "MinimumScalarV2",
        form: Form::ScalarV2,
        dtypes: FI,
        torch: "out = [torch.minimum(x, torch.tensor(s, dtype=x.dtype)) for x in X]",
        domain: 0,
        ulps: 0,
    },
    Case {
        name: "MinimumScalarList",
        form: Form::ScalarList,
        dtypes: FI,
        torch: "out = [torch.minimum(x, torch.tensor(v, dtype=x.dtype)) for x, v in zip(X, S)]",
        domain: 0,
        ulps: 0,
    },
    Case {
        name: "PowScalar",
        form: Form::ScalarTensor,
        dtypes: F,
        torch: "out = [torch.pow(x, torch.tensor(s, dtype=x.dtype)) for x in X]",
        domain: 1,
        ulps: 2,
    },
    Case {
        name: "PowScalarV2",
        form: Form::ScalarV2,
        dtypes: F,
        torch: "out = [torch.pow(x, torch.tensor(s, dtype=x.dtype)) for x in X]",
        domain: 1,
        ulps: 2,
    },
    Case {
        name: "PowScalarList",
        form: Form::ScalarList,
        dtypes: F,
        torch: "out = [torch.pow(x, torch.tensor(v, dtype=x.dtype)) for x, v in zip(X, S)]",
        domain: 1,
        ulps: 2,
    },
    Case {
        name: "Abs",
        form: Form::Unary,
        dtypes: F,
        torch: "out = torch._foreach_abs(X)",
        domain: 0,
        ulps: 0,
    },
    Case {
        name: "Acos",
        form: Form::Unary,
        dtypes: F,
        torch: "out = [torch.acos(x) for x in X]",
        domain: 2,
        ulps: 2,
    },
    Case {
        name: "Asin",
        form: Form::Unary,
        dtypes: F,
        torch: "out = [torch.asin(x) for x in X]",
        domain: 2,
        ulps: 2,
    },
    Case {
        name: "Atan",
        form: Form::Unary,
        dtypes: F,
        torch: "out = [torch.atan(x) for x in X]",
        domain: 0,
        ulps: 2,
    },
    Case {
        name: "Cos",
        form: Form::Unary,
        dtypes: F,
        torch: "out = torch._foreach_cos(X)",
        domain: 0,
        ulps: 2,
    },
    Case {
        name: "Cosh",
        form: Form::Unary,
        dtypes: F,
        torch: "out = torch._foreach_cosh(X)",
        domain: 2,
        ulps: 2,
    },
    Case {
        name: "Erf",
        form: Form::Unary,
        dtypes: F,
        torch: "out = torch._foreach_erf(X)",
        domain: 0,
        ulps: 2,
    },
    Case {
        name: "Erfc",
        form: Form::Unary,
        dtypes: F,
        torch: "out = torch._foreach_erfc(X)",
        domain: 0,
        ulps: 2,
    },
    Case {
        name: "Exp",
        form: Form::Unary,
        dtypes: F,
        torch: "out = torch._foreach_exp(X)",
        domain: 0,
        ulps: 2,
    },
    Case {
        name: "Expm1",
        form: Form::Unary,
        dtypes: F,
        torch: "out = torch._foreach_expm1(X)",
        domain: 0,
        ulps: 2,
    },
    Case {
        name: "Log",
        form: Form::Unary,
        dtypes: F,
        torch: "out = torch._foreach_log(X)",
        domain: 1,
        ulps: 2,
    },
    Case {
        name: "Log10",
        form: Form::Unary,
        dtypes: F,
        torch: "out = torch._foreach_log10(X)",
        domain: 1,
        ulps: 2,
    },
    Case {
        name: "Log1p",
        form: Form::Unary,
        dtypes: F,
        torch: "out = torch._foreach_log1p(X)",
        domain: 1,
        ulps: 2,
    },
    Case {
        name: "Log2",
        form: Form::Unary,
        dtypes: F,
        torch: "out = torch._foreach_log2(X)",
        domain: 1,
        ulps: 2,
    },
    Case {
        name: "Neg",
        form: Form::Unary,
        dtypes: FI8,
        torch: "out = torch._foreach_neg(X)",
        domain: 0,
        ulps: 0,
    },
    Case {
        name: "Reciprocal",
        form: Form::Unary,
        dtypes: F,
        torch: "out = torch._foreach_reciprocal(X)",
        domain: 0,
        ulps: 0,
    },
    Case {
        name: "Sigmoid",
        form: Form::Unary,
        dtypes: F,
        torch: "out = torch._foreach_sigmoid(X)",
        domain: 0,
        ulps: 2,
    },
    Case {
        name: "Sign",
        form: Form::Unary,
        dtypes: &[F32, F16, BF16, S8, S32],
        torch: "out = [torch.sign(x) for x in X]",
        domain: 3,
        ulps: 0,
    },
    Case {
        name: "Sin",
        form: Form::Unary,
        dtypes: F,
        torch: "out = torch._foreach_sin(X)",
        domain: 0,
        ulps: 2,
    },
    Case {
        name: "Sinh",
        form: Form::Unary,
        dtypes: F,
        torch: "out = torch._foreach_sinh(X)",
        domain: 2,
        ulps: 2,
    },
    Case {
        name: "Sqrt",
        form: Form::Unary,
        dtypes: F,
        torch: "out = torch._foreach_sqrt(X)",
        domain: 1,
        ulps: 0,
    },
    Case {
        name: "Tan",
        form: Form::Unary,
        dtypes: F,
        torch: "out = torch._foreach_tan(X)",
        domain: 2,
        ulps: 2,
    },
    Case {
        name: "Tanh",
        form: Form::Unary,
        dtypes: F,
        torch: "out = torch._foreach_tanh(X)",
        domain: 0,
        ulps: 2,
    },
];

/// Calls the entry point of `name` with the case's arguments.
#[allow(clippy::too_many_arguments)]
unsafe fn call(
    name: &str,
    x: *mut aclTensorList,
    y: *mut aclTensorList,
    alpha_t: *mut aclTensor,
    s: *mut aclScalar,
    sl: *mut aclScalarList,
    out: *mut aclTensorList,
    ws: &mut u64,
    ex: &mut *mut aclOpExecutor,
) -> (aclnnStatus, Phase2) {
    macro_rules! go {
        ($m:ident, $p1:ident, $p2:ident, $($a:expr),*) => {
            (unsafe { $m::$p1($($a,)* ws, ex) }, $m::$p2 as Phase2)
        };
    }
    match name {
        "AddList" => go!(
            foreach_add_list,
            aclnnForeachAddListGetWorkspaceSize,
            aclnnForeachAddList,
            x,
            y,
            alpha_t,
            out
        ),
        "AddListV2" => go!(
            foreach_add_list_v2,
            aclnnForeachAddListV2GetWorkspaceSize,
            aclnnForeachAddListV2,
            x,
            y,
            s,
            out
        ),
        "SubList" => go!(
            foreach_sub_list,
            aclnnForeachSubListGetWorkspaceSize,
            aclnnForeachSubList,
            x,
            y,
            alpha_t,
            out
        ),
        "SubListV2" => go!(
            foreach_sub_list_v2,
            aclnnForeachSubListV2GetWorkspaceSize,
            aclnnForeachSubListV2,
            x,
            y,
            s,
            out
        ),
        "MulList" => go!(
            foreach_mul_list,
            aclnnForeachMulListGetWorkspaceSize,
            aclnnForeachMulList,
            x,
            y,
            out
        ),
        "DivList" => go!(
            foreach_div_list,
            aclnnForeachDivListGetWorkspaceSize,
            aclnnForeachDivList,
            x,
            y,
            out
        ),
        "MaximumList" => go!(
            foreach_maximum_list,
            aclnnForeachMaximumListGetWorkspaceSize,
            aclnnForeachMaximumList,
            x,
            y,
            out
        ),
        "MinimumList" => go!(
            foreach_minimum_list,
            aclnnForeachMinimumListGetWorkspaceSize,
            aclnnForeachMinimumList,
            x,
            y,
            out
        ),
        "PowList" => go!(
            foreach_pow_list,
            aclnnForeachPowListGetWorkspaceSize,
            aclnnForeachPowList,
            x,
            y,
            out
        ),
        "AddScalar" => go!(
            foreach_add_scalar,
            aclnnForeachAddScalarGetWorkspaceSize,
            aclnnForeachAddScalar,
            x,
            alpha_t,
            out
        ),
        "AddScalarV2" => go!(
            foreach_add_scalar_v2,
            aclnnForeachAddScalarV2GetWorkspaceSize,
            aclnnForeachAddScalarV2,
            x,
            s,
            out
        ),
        "AddScalarList" => go!(
            foreach_add_scalar_list,
            aclnnForeachAddScalarListGetWorkspaceSize,
            aclnnForeachAddScalarList,
            x,
            sl,
            out
        ),
        "SubScalar" => go!(
            foreach_sub_scalar,
            aclnnForeachSubScalarGetWorkspaceSize,
            aclnnForeachSubScalar,
            x,
            alpha_t,
            out
        ),
        "SubScalarV2" => go!(
            foreach_sub_scalar_v2,
            aclnnForeachSubScalarV2GetWorkspaceSize,
            aclnnForeachSubScalarV2,
            x,
            s,
            out
        ),
        "SubScalarList" => go!(
            foreach_sub_scalar_list,
            aclnnForeachSubScalarListGetWorkspaceSize,
            aclnnForeachSubScalarList,
            x,
            sl,
            out
        ),
        "MulScalar" => go!(
            foreach_mul_scalar,
            aclnnForeachMulScalarGetWorkspaceSize,
            aclnnForeachMulScalar,
            x,
            alpha_t,
            out
        ),
        "MulScalarV2" => go!(
            foreach_mul_scalar_v2,
            aclnnForeachMulScalarV2GetWorkspaceSize,
            aclnnForeachMulScalarV2,
            x,
            s,
            out
        ),
        "MulScalarList" => go!(
            foreach_mul_scalar_list,
            aclnnForeachMulScalarListGetWorkspaceSize,
            aclnnForeachMulScalarList,
            x,
            sl,
            out
        ),
        "DivScalar" => go!(
            foreach_div_scalar,
            aclnnForeachDivScalarGetWorkspaceSize,
            aclnnForeachDivScalar,
            x,
            alpha_t,
            out
        ),
        "DivScalarV2" => go!(
            foreach_div_scalar_v2,
            aclnnForeachDivScalarV2GetWorkspaceSize,
            aclnnForeachDivScalarV2,
            x,
            s,
            out
        ),
        "DivScalarList" => go!(
            foreach_div_scalar_list,
            aclnnForeachDivScalarListGetWorkspaceSize,
            aclnnForeachDivScalarList,
            x,
            sl,
            out
        ),
        "MaximumScalar" => go!(
            foreach_maximum_scalar,
            aclnnForeachMaximumScalarGetWorkspaceSize,
            aclnnForeachMaximumScalar,
            x,
            alpha_t,
            out
        ),
        "MaximumScalarV2" => go!(
            foreach_maximum_scalar_v2,
            aclnnForeachMaximumScalarV2GetWorkspaceSize,
            aclnnForeachMaximumScalarV2,
            x,
            s,
            out
        ),
        "MaximumScalarList" => go!(
            foreach_maximum_scalar_list,
            aclnnForeachMaximumScalarListGetWorkspaceSize,
            aclnnForeachMaximumScalarList,
            x,
            sl,
            out
        ),
        "MinimumScalar" => go!(
            foreach_minimum_scalar,
            aclnnForeachMinimumScalarGetWorkspaceSize,
            aclnnForeachMinimumScalar,
            x,
            alpha_t,
            out
        ),
        "MinimumScalarV2" => go!(
            foreach_minimum_scalar_v2,
            aclnnForeachMinimumScalarV2GetWorkspaceSize,
            aclnnForeachMinimumScalarV2,
            x,
            s,
            out
        ),
        "MinimumScalarList" => go!(
            foreach_minimum_scalar_list,
            aclnnForeachMinimumScalarListGetWorkspaceSize,
            aclnnForeachMinimumScalarList,
            x,
            sl,
            out
        ),
        "PowScalar" => go!(
            foreach_pow_scalar,
            aclnnForeachPowScalarGetWorkspaceSize,
            aclnnForeachPowScalar,
            x,
            alpha_t,
            out
        ),
        "PowScalarV2" => go!(
            foreach_pow_scalar_v2,
            aclnnForeachPowScalarV2GetWorkspaceSize,
            aclnnForeachPowScalarV2,
            x,
            s,
            out
        ),
        "PowScalarList" => go!(
            foreach_pow_scalar_list,
            aclnnForeachPowScalarListGetWorkspaceSize,
            aclnnForeachPowScalarList,
            x,
            sl,
            out
        ),
        "Abs" => go!(
            foreach_abs,
            aclnnForeachAbsGetWorkspaceSize,
            aclnnForeachAbs,
            x,
            out
        ),
        "Acos" => go!(
            foreach_acos,
            aclnnForeachAcosGetWorkspaceSize,
            aclnnForeachAcos,
            x,
            out
        ),
        "Asin" => go!(
            foreach_asin,
            aclnnForeachAsinGetWorkspaceSize,
            aclnnForeachAsin,
            x,
            out
        ),
        "Atan" => go!(
            foreach_atan,
            aclnnForeachAtanGetWorkspaceSize,
            aclnnForeachAtan,
            x,
            out
        ),
        "Cos" => go!(
            foreach_cos,
            aclnnForeachCosGetWorkspaceSize,
            aclnnForeachCos,
            x,
            out
        ),
        "Cosh" => go!(
            foreach_cosh,
            aclnnForeachCoshGetWorkspaceSize,
            aclnnForeachCosh,
            x,
            out
        ),
        "Erf" => go!(
            foreach_erf,
            aclnnForeachErfGetWorkspaceSize,
            aclnnForeachErf,
            x,
            out
        ),
        "Erfc" => go!(
            foreach_erfc,
            aclnnForeachErfcGetWorkspaceSize,
            aclnnForeachErfc,
            x,
            out
        ),
        "Exp" => go!(
            foreach_exp,
            aclnnForeachExpGetWorkspaceSize,
            aclnnForeachExp,
            x,
            out
        ),
        "Expm1" => go!(
            foreach_expm1,
            aclnnForeachExpm1GetWorkspaceSize,
            aclnnForeachExpm1,
            x,
            out
        ),
        "Log" => go!(
            foreach_log,
            aclnnForeachLogGetWorkspaceSize,
            aclnnForeachLog,
            x,
            out
        ),
        "Log10" => go!(
            foreach_log10,
            aclnnForeachLog10GetWorkspaceSize,
            aclnnForeachLog10,
            x,
            out
        ),
        "Log1p" => go!(
            foreach_log1p,
            aclnnForeachLog1pGetWorkspaceSize,
            aclnnForeachLog1p,
            x,
            out
        ),
        "Log2" => go!(
            foreach_log2,
            aclnnForeachLog2GetWorkspaceSize,
            aclnnForeachLog2,
            x,
            out
        ),
        "Neg" => go!(
            foreach_neg,
            aclnnForeachNegGetWorkspaceSize,
            aclnnForeachNeg,
            x,
            out
        ),
        "Reciprocal" => go!(
            foreach_reciprocal,
            aclnnForeachReciprocalGetWorkspaceSize,
            aclnnForeachReciprocal,
            x,
            out
        ),
        "Sigmoid" => go!(
            foreach_sigmoid,
            aclnnForeachSigmoidGetWorkspaceSize,
            aclnnForeachSigmoid,
            x,
            out
        ),
        "Sign" => go!(
            foreach_sign,
            aclnnForeachSignGetWorkspaceSize,
            aclnnForeachSign,
            x,
            out
        ),
        "Sin" => go!(
            foreach_sin,
            aclnnForeachSinGetWorkspaceSize,
            aclnnForeachSin,
            x,
            out
        ),
        "Sinh" => go!(
            foreach_sinh,
            aclnnForeachSinhGetWorkspaceSize,
            aclnnForeachSinh,
            x,
            out
        ),
        "Sqrt" => go!(
            foreach_sqrt,
            aclnnForeachSqrtGetWorkspaceSize,
            aclnnForeachSqrt,
            x,
            out
        ),
        "Tan" => go!(
            foreach_tan,
            aclnnForeachTanGetWorkspaceSize,
            aclnnForeachTan,
            x,
            out
        ),
        "Tanh" => go!(
            foreach_tanh,
            aclnnForeachTanhGetWorkspaceSize,
            aclnnForeachTanh,
            x,
            out
        ),
        n => panic!("no entry {n}"),
    }
}

fn random_value(rng: &mut Rng, d: DType, domain: u8) -> f64 {
    let int = matches!(d, S32 | S16 | S8 | U8);
    let v = match domain {
        1 => (rng.below(4000) as f64 + 1.0) / 512.0,
        2 => (rng.below(2001) as f64 - 1000.0) / 1000.0,
        _ => (rng.below(8001) as f64 - 4000.0) / 256.0,
    };
    if int {
        let v = (v * 8.0).round();
        if d == U8 {
            v.abs()
        } else {
            v
        }
    } else if domain != 3 && rng.pct(2) {
        // (domain 3: no NaN; Sign keeps NaN as aclnnSign does, torch gives 0)
        [f64::NAN, f64::INFINITY, -0.0][rng.below(3) as usize]
    } else {
        v
    }
}

pub(super) fn random_shape(rng: &mut Rng) -> Vec<usize> {
    let rank = rng.below(4) as usize;
    (0..rank)
        .map(|_| {
            if rng.pct(5) {
                0
            } else {
                1 + rng.below(5) as usize
            }
        })
        .collect()
}

/// The scalar's dtype CANN pairs with x's (as the entry points check).
fn scalar_dtype(form: Form, x: DType, name: &str) -> DType {
    let float = matches!(x, F32 | F16 | BF16);
    match form {
        Form::ScalarTensor | Form::List => match x {
            BF16 => F32,
            S16 | S8 | U8 => S32,
            d => d,
        },
        Form::ScalarV2 | Form::ListV2 => {
            if float {
                F64
            } else {
                S64
            }
        }
        Form::ScalarList => {
            if float {
                if name.starts_with("Mul") || name.starts_with("Max") || name.starts_with("Min") {
                    F64
                } else {
                    F32
                }
            } else {
                S64
            }
        }
        Form::Unary => x,
    }
}

#[test]
fn foreach_binary_and_unary_match_torch() {
    device();
    let mut rng = Rng::new(0xf0ea);
    let mut batch = Batch::new();
    struct Ran {
        what: String,
        outs: Vec<(Array, bool)>,
        ulps: u32,
        case: usize,
    }
    let mut ran = Vec::new();
    for round in 0..3 {
        for c in CASES {
            let d = c.dtypes[(round + rng.below(c.dtypes.len() as u64) as usize) % c.dtypes.len()];
            let n = [0usize, 1, 3, 5][rng.below(4) as usize];
            let shapes: Vec<Vec<usize>> = (0..n).map(|_| random_shape(&mut rng)).collect();
            let gen = |rng: &mut Rng, sh: &[usize]| -> Vec<f64> {
                (0..sh.iter().product::<usize>())
                    .map(|_| random_value(rng, d, c.domain))
                    .collect()
            };
            let xv: Vec<Vec<f64>> = shapes.iter().map(|s| gen(&mut rng, s)).collect();
            let mut yv: Vec<Vec<f64>> = shapes.iter().map(|s| gen(&mut rng, s)).collect();
            if c.name.starts_with("Pow") {
                for v in yv.iter_mut().flatten() {
                    *v = (*v * 4.0).round() / 4.0 % 4.0;
                }
            }
            let sd = scalar_dtype(c.form, d, c.name);
            let sval = |rng: &mut Rng| -> f64 {
                if c.name.starts_with("Pow") {
                    (rng.below(16) as f64 - 6.0) / 2.0
                } else if matches!(sd, S32 | S64) {
                    rng.below(9) as f64 - 4.0
                } else {
                    // Exact in every float dtype: torch rounds the scalar to x's dtype.
                    (rng.below(33) as f64 - 16.0) / 8.0
                }
            };
            let s = sval(&mut rng);
            let svals: Vec<f64> = (0..n).map(|_| sval(&mut rng)).collect();
            let xs: Vec<View> = shapes
                .iter()
                .zip(&xv)
                .map(|(s, v)| View::new(&mut rng, d, s, v))
                .collect();
            let ys: Vec<View> = shapes
                .iter()
                .zip(&yv)
                .map(|(s, v)| View::new(&mut rng, d, s, v))
                .collect();
            let os: Vec<View> = shapes
                .iter()
                .map(|s| View::new(&mut rng, d, s, &vec![SENTINEL; s.iter().product()]))
                .collect();
            let (xl, yl, ol) = (list(&xs), list(&ys), list(&os));
            let st = View::new(&mut rng, sd, &[1], &[s]);
            let st_t = st.tensor();
            let sc = scalar_of(sd, s);
            let scs: Vec<*mut aclScalar> = svals.iter().map(|&v| scalar_of(sd, v)).collect();
            let scp: Vec<*const aclScalar> = scs.iter().map(|&p| p as *const _).collect();
            let sl = unsafe { aclCreateScalarList(scp.as_ptr(), n as u64) };
            let (mut ws, mut ex) = (0u64, null_mut());
            let what = format!("{} {d} n={n} shapes {shapes:?}", c.name);
            let (status, p2) = unsafe { call(c.name, xl, yl, st_t, sc, sl, ol, &mut ws, &mut ex) };
            run(status, ws, ex, p2, &what);
            let outs: Vec<(Array, bool)> = os.iter().map(|o| o.read()).collect();
            // The reference: a[0] = n, a[1] = s, a[2] = the scalar list, then X, then Y.
            let prog = batch.program(&reference(c.torch));
            // The scalars as x's dtype computes them (torch converts a scalar to x's dtype).
            let sa = Array::f64s(&[1], &[s]);
            let sla = Array::f64s(&[n], &svals);
            let sa = if matches!(sd, S32 | S64) {
                Array::i64s(&[1], &[s as i64])
            } else {
                sa
            };
            let sla = if matches!(sd, S32 | S64) {
                Array::i64s(&[n], &svals.iter().map(|&v| v as i64).collect::<Vec<_>>())
            } else {
                sla
            };
            let mut inputs = vec![Some(Array::int(n as i64)), Some(sa), Some(sla)];
            for (sh, v) in shapes.iter().zip(&xv) {
                inputs.push(Some(array(d, sh, v)));
            }
            for (sh, v) in shapes.iter().zip(&yv) {
                inputs.push(Some(array(d, sh, v)));
            }
            let case = batch.case(prog, inputs);
            ran.push(Ran {
                what,
                outs,
                ulps: if matches!(d, F16 | BF16) {
                    c.ulps.min(1)
                } else {
                    c.ulps
                },
                case,
            });
            assert_eq!(aclDestroyTensorList(xl), 0);
            assert_eq!(aclDestroyTensorList(yl), 0);
            assert_eq!(aclDestroyTensorList(ol), 0);
            assert_eq!(aclDestroyScalarList(sl), 0);
            aclDestroyTensor(st_t);
            aclDestroyScalar(sc);
        }
    }
    let Some(results) = batch.run("foreach_binary_and_unary_match_torch") else {
        return;
    };
    for r in ran {
        let want = results[r.case]
            .as_ref()
            .unwrap_or_else(|e| panic!("{}: torch: {e}", r.what));
        assert_eq!(want.len(), r.outs.len(), "{}", r.what);
        for (i, ((got, kept), w)) in r.outs.iter().zip(want).enumerate() {
            assert!(kept, "{}: out[{i}] wrote outside its view", r.what);
            compare(&format!("{} out[{i}]", r.what), got, w, r.ulps);
        }
    }
}

/// Random members of one shape list, one list per entry of `vals`.
fn lists_of(
    rng: &mut Rng,
    d: DType,
    shapes: &[Vec<usize>],
    vals: &[Vec<Vec<f64>>],
) -> Vec<Vec<View>> {
    vals.iter()
        .map(|l| {
            shapes
                .iter()
                .zip(l)
                .map(|(s, v)| View::new(rng, d, s, v))
                .collect()
        })
        .collect()
}

fn outs_of(rng: &mut Rng, d: DType, shapes: &[Vec<usize>]) -> Vec<View> {
    shapes
        .iter()
        .map(|s| View::new(rng, d, s, &vec![SENTINEL; s.iter().product()]))
        .collect()
}

#[test]
fn foreach_addc_lerp_norm_pow_match_torch() {
    device();
    let mut rng = Rng::new(0xadd0);
    let mut batch = Batch::new();
    let mut ran = Vec::new();
    // (name, dtypes, torch statement over X, Y, Z, s, S; value form)
    let cases: &[(&str, &[DType], &str, u32)] = &[
        ("AddcdivList", F, "out = torch._foreach_addcdiv(X, Y, Z, [x for x in S])", 0),
        ("AddcdivScalar", F, "out = torch._foreach_addcdiv(X, Y, Z, s)", 0),
        ("AddcdivScalarList", F, "out = torch._foreach_addcdiv(X, Y, Z, [x for x in S])", 0),
        ("AddcdivScalarV2", F, "out = torch._foreach_addcdiv(X, Y, Z, s)", 0),
        ("AddcmulList", FI, "out = torch._foreach_addcmul(X, Y, Z, [x for x in S])", 0),
        ("AddcmulScalar", FI, "out = torch._foreach_addcmul(X, Y, Z, s)", 0),
        ("AddcmulScalarList", FI, "out = torch._foreach_addcmul(X, Y, Z, [x for x in S])", 0),
        ("AddcmulScalarV2", FI, "out = torch._foreach_addcmul(X, Y, Z, s)", 0),
        ("LerpList", F, "out = [torch.lerp(x, y, z) for x, y, z in zip(X, Y, Z)]", 2),
        ("LerpScalar", F, "out = [torch.lerp(x, y, s) for x, y in zip(X, Y)]", 2),
        ("Norm", F, "out = [torch.linalg.vector_norm(x.double(), s).to(x.dtype) for x in X]", 0),
        ("PowScalarAndTensor", F, "out = [torch.pow(torch.tensor(s, dtype=x.dtype), x) for x in X]", 2),
        ("RoundOffNumber", F, "out = [[torch.round, torch.round, torch.floor, torch.ceil, torch.round, torch.trunc][int(s)](x) for x in X]", 0),
        ("RoundOffNumberV2", F, "out = [[torch.round, torch.round, torch.floor, torch.ceil, torch.round, torch.trunc][int(s)](x) for x in X]", 0),
        ("Copy", FI8, "out = [x.clone() for x in X]", 0),
    ];
    for round in 0..4 {
        for &(name, dts, torch, ulps) in cases {
            let d = dts[(round + rng.below(dts.len() as u64) as usize) % dts.len()];
            let n = [0usize, 1, 2, 4][rng.below(4) as usize];
            let shapes: Vec<Vec<usize>> = (0..n).map(|_| random_shape(&mut rng)).collect();
            let int = d == S32;
            let gen = |rng: &mut Rng, dom: u8| -> Vec<Vec<f64>> {
                shapes
                    .iter()
                    .map(|s| {
                        (0..s.iter().product::<usize>())
                            .map(|_| random_value(rng, d, dom))
                            .collect()
                    })
                    .collect()
            };
            let lerp = name.starts_with("Lerp");
            let vals = vec![
                gen(&mut rng, 0),
                gen(&mut rng, 0),
                if lerp {
                    gen(&mut rng, 2)
                } else {
                    gen(&mut rng, 0)
                },
            ];
            let mut l = lists_of(&mut rng, d, &shapes, &vals);
            let os = outs_of(&mut rng, d, &shapes);
            let zs = l.pop().unwrap();
            let ys = l.pop().unwrap();
            let xs = l.pop().unwrap();
            let (xl, yl, zl, ol) = (list(&xs), list(&ys), list(&zs), list(&os));
            let small = |rng: &mut Rng| (rng.below(33) as f64 - 16.0) / 8.0;
            let mut s = if int {
                rng.below(9) as f64 - 4.0
            } else {
                small(&mut rng)
            };
            if name.starts_with("Round") {
                s = [1.0, 2.0, 3.0, 5.0][rng.below(4) as usize];
            }
            if name == "Norm" {
                s = [1.0, 2.0, 3.0, f64::INFINITY][rng.below(4) as usize];
            }
            if lerp {
                s = (rng.below(9) as f64) / 8.0;
            }
            let svals: Vec<f64> = (0..n)
                .map(|_| {
                    if int {
                        rng.below(9) as f64 - 4.0
                    } else {
                        small(&mut rng)
                    }
                })
                .collect();
            // scalars tensor (List forms): x's dtype, one per member; scalar tensor: x's (bf16: f32).
            let per = View::new(&mut rng, d, &[n], &svals);
            let one_d = if d == BF16 { F32 } else { d };
            let one = View::new(
                &mut rng,
                if name.starts_with("Round") { S8 } else { one_d },
                &[1],
                &[s],
            );
            let v2d = if int { S64 } else { F64 };
            let sc = scalar_of(if name.starts_with("Round") { S64 } else { v2d }, s);
            let (per_t, one_t) = (per.tensor(), one.tensor());
            let (mut ws, mut ex) = (0u64, null_mut());
            macro_rules! go {
                ($m:ident, $p1:ident, $p2:ident, $($a:expr),*) => {
                    (unsafe { $m::$p1($($a,)* &mut ws, &mut ex) }, $m::$p2 as Phase2)
                };
            }
            let (st, p2) = match name {
                "AddcdivList" => go!(
                    foreach_addcdiv_list,
                    aclnnForeachAddcdivListGetWorkspaceSize,
                    aclnnForeachAddcdivList,
                    xl,
                    yl,
                    zl,
                    per_t,
                    ol
                ),
                "AddcdivScalar" => go!(
                    foreach_addcdiv_scalar,
                    aclnnForeachAddcdivScalarGetWorkspaceSize,
                    aclnnForeachAddcdivScalar,
                    xl,
                    yl,
                    zl,
                    one_t,
                    ol
                ),
                "AddcdivScalarList" => go!(
                    foreach_addcdiv_scalar_list,
                    aclnnForeachAddcdivScalarListGetWorkspaceSize,
                    aclnnForeachAddcdivScalarList,
                    xl,
                    yl,
                    zl,
                    per_t,
                    ol
                ),
                "AddcdivScalarV2" => go!(
                    foreach_addcdiv_scalar_v2,
                    aclnnForeachAddcdivScalarV2GetWorkspaceSize,
                    aclnnForeachAddcdivScalarV2,
                    xl,
                    yl,
                    zl,
                    sc,
                    ol
                ),
                "AddcmulList" => go!(
                    foreach_addcmul_list,
                    aclnnForeachAddcmulListGetWorkspaceSize,
                    aclnnForeachAddcmulList,
                    xl,
                    yl,
                    zl,
                    per_t,
                    ol
                ),
                "AddcmulScalar" => go!(
                    foreach_addcmul_scalar,
                    aclnnForeachAddcmulScalarGetWorkspaceSize,
                    aclnnForeachAddcmulScalar,
                    xl,
                    yl,
                    zl,
                    one_t,
                    ol
                ),
                "AddcmulScalarList" => go!(
                    foreach_addcmul_scalar_list,
                    aclnnForeachAddcmulScalarListGetWorkspaceSize,
                    aclnnForeachAddcmulScalarList,
                    xl,
                    yl,
                    zl,
                    per_t,
                    ol
                ),
                "AddcmulScalarV2" => go!(
                    foreach_addcmul_scalar_v2,
                    aclnnForeachAddcmulScalarV2GetWorkspaceSize,
                    aclnnForeachAddcmulScalarV2,
                    xl,
                    yl,
                    zl,
                    sc,
                    ol
                ),
                "LerpList" => go!(
                    foreach_lerp_list,
                    aclnnForeachLerpListGetWorkspaceSize,
                    aclnnForeachLerpList,
                    xl,
                    yl,
                    zl,
                    ol
                ),
                "LerpScalar" => go!(
                    foreach_lerp_scalar,
                    aclnnForeachLerpScalarGetWorkspaceSize,
                    aclnnForeachLerpScalar,
                    xl,
                    yl,
                    sc,
                    ol
                ),
                "PowScalarAndTensor" => go!(
                    foreach_pow_scalar_and_tensor,
                    aclnnForeachPowScalarAndTensorGetWorkspaceSize,
                    aclnnForeachPowScalarAndTensor,
                    sc,
                    xl,
                    ol
                ),
                "RoundOffNumber" => go!(
                    foreach_round_off_number,
                    aclnnForeachRoundOffNumberGetWorkspaceSize,
                    aclnnForeachRoundOffNumber,
                    xl,
                    one_t,
                    ol
                ),
                "RoundOffNumberV2" => go!(
                    foreach_round_off_number_v2,
                    aclnnForeachRoundOffNumberV2GetWorkspaceSize,
                    aclnnForeachRoundOffNumberV2,
                    xl,
                    sc,
                    ol
                ),
                "Copy" => go!(
                    foreach_copy,
                    aclnnForeachCopyGetWorkspaceSize,
                    aclnnForeachCopy,
                    xl,
                    ol
                ),
                _ => (0, foreach_copy::aclnnForeachCopy as Phase2),
            };
            let what = format!("{name} {d} n={n} s={s} shapes {shapes:?}");
            let mut norm_outs = Vec::new();
            if name == "Norm" {
                norm_outs = (0..n)
                    .map(|_| View::new(&mut rng, d, &[], &[SENTINEL]))
                    .collect();
                let nl = list(&norm_outs);
                let ns = scalar_of(F32, s);
                let st = unsafe {
                    foreach_norm::aclnnForeachNormGetWorkspaceSize(xl, ns, nl, &mut ws, &mut ex)
                };
                run(st, ws, ex, foreach_norm::aclnnForeachNorm, &what);
                aclDestroyTensorList(nl);
                aclDestroyScalar(ns);
            } else {
                run(st, ws, ex, p2, &what);
            }
            let outs: Vec<(Array, bool)> = if name == "Norm" {
                norm_outs.iter().map(|o| o.read()).collect()
            } else {
                os.iter().map(|o| o.read()).collect()
            };
            let prog = batch.program(&reference(torch));
            let (sa, sla) = if int {
                (
                    Array::i64s(&[1], &[s as i64]),
                    Array::i64s(&[n], &svals.iter().map(|&v| v as i64).collect::<Vec<_>>()),
                )
            } else {
                (Array::f64s(&[1], &[s]), Array::f64s(&[n], &svals))
            };
            let mut inputs = vec![Some(Array::int(n as i64)), Some(sa), Some(sla)];
            for l in &vals {
                for (sh, v) in shapes.iter().zip(l) {
                    inputs.push(Some(array(d, sh, v)));
                }
            }
            let case = batch.case(prog, inputs);
            ran.push((
                what,
                outs,
                if matches!(d, F16 | BF16) {
                    ulps.min(1)
                } else {
                    ulps
                },
                case,
            ));
            for l in [xl, yl, zl, ol] {
                assert_eq!(aclDestroyTensorList(l), 0);
            }
            aclDestroyTensor(per_t);
            aclDestroyTensor(one_t);
            aclDestroyScalar(sc);
        }
    }
    let Some(results) = batch.run("foreach_addc_lerp_norm_pow_match_torch") else {
        return;
    };
    for (what, outs, ulps, case) in ran {
        let want = results[case]
            .as_ref()
            .unwrap_or_else(|e| panic!("{what}: torch: {e}"));
        assert_eq!(want.len(), outs.len(), "{what}");
        for (i, ((got, kept), w)) in outs.iter().zip(want).enumerate() {
            assert!(kept, "{what}: out[{i}] wrote outside its view");
            compare(&format!("{what} out[{i}]"), got, w, ulps);
        }
    }
}

#[test]
fn foreach_zero_and_round_modes_match_a_loop() {
    device();
    let mut rng = Rng::new(0x2e20);
    let shapes = vec![vec![3, 4], vec![], vec![0, 2], vec![5]];
    let vals: Vec<Vec<f64>> = shapes
        .iter()
        .map(|s: &Vec<usize>| {
            (0..s.iter().product::<usize>())
                .map(|i| i as f64 * 0.75 - 2.5)
                .collect()
        })
        .collect();
    let xs: Vec<View> = shapes
        .iter()
        .zip(&vals)
        .map(|(s, v)| View::new(&mut rng, F32, s, v))
        .collect();
    let xl = list(&xs);
    let (mut ws, mut ex) = (0u64, null_mut());
    let st = unsafe {
        foreach_zero_inplace::aclnnForeachZeroInplaceGetWorkspaceSize(xl, &mut ws, &mut ex)
    };
    run(
        st,
        ws,
        ex,
        foreach_zero_inplace::aclnnForeachZeroInplace,
        "ZeroInplace",
    );
    for x in &xs {
        let (a, kept) = x.read();
        assert!(kept && a.bytes.iter().all(|&b| b == 0), "ZeroInplace");
    }
    aclDestroyTensorList(xl);
    // Modes 4 (half away from zero) and 6 (to odd when inexact), which torch lacks.
    let v: Vec<f64> = vec![-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 2.25, -2.75, 3.0, 0.0];
    for (mode, want) in [
        (
            4i64,
            vec![-3.0, -2.0, -1.0, 1.0, 2.0, 3.0, 2.0, -3.0, 3.0, 0.0],
        ),
        (
            6,
            vec![-3.0, -1.0, -1.0, 1.0, 1.0, 3.0, 3.0, -3.0, 3.0, 0.0],
        ),
    ] {
        let x = View::new(&mut rng, F32, &[10], &v);
        let o = View::new(&mut rng, F32, &[10], &[SENTINEL; 10]);
        let (xl, ol) = (
            list(std::slice::from_ref(&x)),
            list(std::slice::from_ref(&o)),
        );
        let m = scalar_of(S64, mode as f64);
        let st = unsafe {
            foreach_round_off_number_v2::aclnnForeachRoundOffNumberV2GetWorkspaceSize(
                xl, m, ol, &mut ws, &mut ex,
            )
        };
        run(
            st,
            ws,
            ex,
            foreach_round_off_number_v2::aclnnForeachRoundOffNumberV2,
            "RoundOffNumberV2",
        );
        let (a, _) = o.read();
        let got: Vec<f64> = (0..10).map(|i| a.to_f64s_lossy(i)).collect();
        assert_eq!(got, want, "roundMode {mode}");
        aclDestroyTensorList(xl);
        aclDestroyTensorList(ol);
        aclDestroyScalar(m);
    }
}

#[test]
fn foreach_refuses_bad_lists_with_a_message() {
    device();
    let mut rng = Rng::new(0xbad);
    let a = View::new(&mut rng, F32, &[2, 3], &[1.0; 6]);
    let b = View::new(&mut rng, F32, &[2, 3], &[2.0; 6]);
    let c = View::new(&mut rng, F32, &[3, 2], &[2.0; 6]);
    let h = View::new(&mut rng, F16, &[2, 3], &[2.0; 6]);
    let o = View::new(&mut rng, F32, &[2, 3], &[0.0; 6]);
    let s = scalar_of(F64, 1.0);
    let cases: Vec<(Vec<&View>, Vec<&View>, Vec<&View>, &str)> = vec![
        (vec![&a, &a], vec![&b], vec![&o, &o], "the same length"),
        (vec![&a], vec![&c], vec![&o], "must be equal"),
        (vec![&a], vec![&h], vec![&o], "dtype"),
        (vec![&a, &h], vec![&b, &b], vec![&o, &o], "one dtype"),
        (
            vec![&a, &b],
            vec![&b, &b],
            vec![&o, &a],
            "shares memory with input 'x1[0]'",
        ),
        (vec![&a, &b], vec![&b, &a], vec![&o, &o], "share memory"),
    ];
    let mk = |vs: &[&View]| {
        let hs: Vec<*const aclTensor> = vs.iter().map(|v| v.tensor() as *const _).collect();
        unsafe { aclCreateTensorList(hs.as_ptr(), hs.len() as u64) }
    };
    for (x1, x2, out, needle) in cases {
        let (l1, l2, lo) = (mk(&x1), mk(&x2), mk(&out));
        let (mut ws, mut ex) = (0u64, null_mut());
        let st = unsafe {
            foreach_add_list_v2::aclnnForeachAddListV2GetWorkspaceSize(
                l1, l2, s, lo, &mut ws, &mut ex,
            )
        };
        assert_eq!(st, 161002, "{needle}");
        assert!(err().contains(needle), "{needle}: {}", err());
        for l in [l1, l2, lo] {
            aclDestroyTensorList(l);
        }
    }
    // In place (out = x1, the same views) is accepted.
    let (l1, l2) = (mk(&[&a]), mk(&[&b]));
    let lo = mk(&[&a]);
    let (mut ws, mut ex) = (0u64, null_mut());
    let st = unsafe {
        foreach_add_list_v2::aclnnForeachAddListV2GetWorkspaceSize(l1, l2, s, lo, &mut ws, &mut ex)
    };
    run(
        st,
        ws,
        ex,
        foreach_add_list_v2::aclnnForeachAddListV2,
        "in place",
    );
    assert_eq!(a.read().0.to_f64s_lossy(5), 3.0);
    // NULL list, scalar-list length, documented-but-refused integer Exp.
    let (mut ws, mut ex) = (0u64, null_mut());
    let st = unsafe {
        foreach_add_list_v2::aclnnForeachAddListV2GetWorkspaceSize(
            null(),
            l2,
            s,
            lo,
            &mut ws,
            &mut ex,
        )
    };
    assert_eq!(st, 161001);
    let i8v = View::new(&mut rng, S8, &[4], &[1.0; 4]);
    let i8o = View::new(&mut rng, S8, &[4], &[1.0; 4]);
    let (xi, oi) = (mk(&[&i8v]), mk(&[&i8o]));
    let st = unsafe { foreach_exp::aclnnForeachExpGetWorkspaceSize(xi, oi, &mut ws, &mut ex) };
    assert_eq!(st, 161002);
    assert!(err().contains("does not implement"), "{}", err());
    for l in [l1, l2, lo, xi, oi] {
        aclDestroyTensorList(l);
    }
    aclDestroyScalar(s);
}

#[test]
fn a_list_of_a_thousand_members_is_one_work() {
    use crate::ops::foreach;
    use crate::tensor::TensorDesc;
    let mut descs = Vec::new();
    let mut bufs: Vec<Vec<f32>> = Vec::new();
    for k in 0..3000 {
        let v = vec![k as f32; 16];
        descs.push(TensorDesc::new(&[4, 4], 0, None, 0, 2, &[16], v.as_ptr() as usize).unwrap());
        bufs.push(v);
    }
    let (x1, rest) = descs.split_at(1000);
    let (x2, out) = rest.split_at(1000);
    fn r(v: &[TensorDesc]) -> Vec<&TensorDesc> {
        v.iter().collect()
    }
    let one = crate::scalar::Scalar::from_value(1.0f32);
    let e = foreach::list_v2(&foreach::ADD_LIST_V2, &r(x1), &r(x2), &one, &r(out)).unwrap();
    assert_eq!(e.work.describe(), "foreach: 1000 member(s)");
    assert_eq!(e.bindings.tensors.len(), 3000);
    assert_eq!(e.bindings.outputs.len(), 1000);
    assert_eq!(e.lists.len(), 3);
    assert_eq!(e.workspace_size(), 0);
    // Run it directly: out[k] = x1[k] + x2[k].
    e.work
        .run(&e.bindings, crate::executor::Workspace { addr: 0, size: 0 })
        .unwrap();
    for k in 0..1000 {
        assert_eq!(bufs[2000 + k][7], (k + 1000 + k) as f32);
    }
}

/// Relative closeness for the optimizer steps (a formula of several roundings).
fn compare_rel(what: &str, got: &Array, want: &Array, rel: f64) {
    for i in 0..got.numel() {
        let (g, w) = (got.to_f64s_lossy(i), want.to_f64s_lossy_at(i, got.dtype));
        assert!(
            (g - w).abs() <= rel * w.abs().max(1e-3) || (g.is_nan() && w.is_nan()),
            "{what}: element {i} is {g} but torch has {w}"
        );
    }
}

#[test]
fn fused_adamw_and_sgd_match_torch_optim() {
    device();
    let mut rng = Rng::new(0x0971);
    let mut batch = Batch::new();
    let adamw = batch.program(
        "lr, b1, b2, eps, wd, ams, mx, step, n = a[0].tolist(); n = int(n)
L = [list(a[1 + k * n:1 + (k + 1) * n]) for k in range(5)]
dt = L[0][0].dtype if n else torch.float32
ps = [p.float().clone().requires_grad_(True) for p in L[0]]
out = []
if n > 0:
    opt = torch.optim.AdamW(ps, lr=lr, betas=(b1, b2), eps=eps, weight_decay=wd, amsgrad=bool(ams), maximize=bool(mx))
    for i, p in enumerate(ps):
        p.grad = L[1][i].float().clone()
        st = opt.state[p]
        st['step'] = torch.tensor(step - 1.0)
        st['exp_avg'] = L[2][i].float().clone()
        st['exp_avg_sq'] = L[3][i].float().clone()
        if ams:
            st['max_exp_avg_sq'] = L[4][i].float().clone()
    opt.step()
    out = [p.detach().to(dt) for p in ps] + [opt.state[p]['exp_avg'].to(dt) for p in ps] + [opt.state[p]['exp_avg_sq'].to(dt) for p in ps]
    if ams:
        out += [opt.state[p]['max_exp_avg_sq'].to(dt) for p in ps]",
    );
    let sgd = batch.program(
        "lr, mom, damp, wd, nest, mx, first, n = a[0].tolist(); n = int(n)
L = [list(a[1 + k * n:1 + (k + 1) * n]) for k in range(3)]
dt = L[0][0].dtype if n else torch.float32
ps = [p.float().clone().requires_grad_(True) for p in L[0]]
out = []
if n > 0:
    opt = torch.optim.SGD(ps, lr=lr, momentum=mom, dampening=damp, weight_decay=wd, nesterov=bool(nest), maximize=bool(mx))
    for i, p in enumerate(ps):
        p.grad = L[1][i].float().clone()
        if not first and mom != 0:
            opt.state[p]['momentum_buffer'] = L[2][i].float().clone()
    opt.step()
    out = [p.detach().to(dt) for p in ps]
    if mom != 0:
        out += [opt.state[p]['momentum_buffer'].to(dt) for p in ps]",
    );
    let mut ran = Vec::new();
    for case in 0..24 {
        let d = [F32, F16, BF16][case % 3];
        let n = [1usize, 2, 4][rng.below(3) as usize];
        let shapes: Vec<Vec<usize>> = (0..n).map(|_| random_shape(&mut rng)).collect();
        let gen = |rng: &mut Rng, pos: bool| -> Vec<Vec<f64>> {
            shapes
                .iter()
                .map(|s| {
                    (0..s.iter().product::<usize>())
                        .map(|_| {
                            let v = (rng.below(2001) as f64 - 1000.0) / 500.0;
                            if pos {
                                v.abs() / 4.0
                            } else {
                                v
                            }
                        })
                        .collect()
                })
                .collect()
        };
        let is_adam = case % 2 == 0;
        let vals = if is_adam {
            vec![
                gen(&mut rng, false),
                gen(&mut rng, false),
                gen(&mut rng, false),
                gen(&mut rng, true),
                gen(&mut rng, true),
            ]
        } else {
            vec![
                gen(&mut rng, false),
                gen(&mut rng, false),
                gen(&mut rng, false),
            ]
        };
        let views = lists_of(&mut rng, d, &shapes, &vals);
        let lists: Vec<*mut aclTensorList> = views.iter().map(|v| list(v)).collect();
        let (mut ws, mut ex) = (0u64, null_mut());
        let what = format!(
            "case {case} {} {d} shapes {shapes:?}",
            if is_adam { "FusedAdamw" } else { "FusedSgd" }
        );
        let meta: Vec<f64>;
        let mut step_views = Vec::new();
        if is_adam {
            let (lr, b1, b2, eps, wd) =
                (0.01, 0.9, 0.999, 1e-8, [0.0, 0.01][rng.below(2) as usize]);
            let (ams, mx) = (rng.pct(50), rng.pct(30));
            let step = 1.0 + rng.below(5) as f64;
            step_views = (0..n)
                .map(|_| View::new(&mut rng, F32, &[1], &[step]))
                .collect();
            let sl = list(&step_views);
            let maxl = if ams { lists[4] } else { null_mut() };
            let st = unsafe {
                fused_adamw::aclnnFusedAdamwGetWorkspaceSize(
                    lists[0],
                    lists[1],
                    lists[2],
                    lists[3],
                    maxl,
                    sl,
                    null(),
                    null(),
                    lr,
                    b1,
                    b2,
                    wd,
                    eps,
                    ams,
                    mx,
                    &mut ws,
                    &mut ex,
                )
            };
            run(st, ws, ex, fused_adamw::aclnnFusedAdamw, &what);
            aclDestroyTensorList(sl);
            meta = vec![
                lr,
                b1,
                b2,
                eps,
                wd,
                ams as u8 as f64,
                mx as u8 as f64,
                step,
                n as f64,
            ];
        } else {
            let (lr, mom, damp, wd) = (
                0.05f32,
                [0.0f32, 0.9][rng.below(2) as usize],
                [0.0f32, 0.1][rng.below(2) as usize],
                [0.0f32, 0.01][rng.below(2) as usize],
            );
            let (nest, mx, first) = (
                mom != 0.0 && damp == 0.0 && rng.pct(50),
                rng.pct(30),
                rng.pct(40),
            );
            let st = unsafe {
                fused_sgd::aclnnFusedSgdGetWorkspaceSize(
                    lists[0],
                    lists[1],
                    lists[2],
                    null(),
                    wd,
                    mom,
                    lr,
                    damp,
                    nest,
                    mx,
                    first,
                    &mut ws,
                    &mut ex,
                )
            };
            run(st, ws, ex, fused_sgd::aclnnFusedSgd, &what);
            meta = vec![
                lr as f64,
                mom as f64,
                damp as f64,
                wd as f64,
                nest as u8 as f64,
                mx as u8 as f64,
                first as u8 as f64,
                n as f64,
            ];
        }
        // What torch returns: params, then the states in order.
        let ams = is_adam && meta[5] != 0.0;
        let mut got: Vec<(Array, bool)> = views[0].iter().map(|v| v.read()).collect();
        if is_adam {
            for k in [2, 3] {
                got.extend(views[k].iter().map(|v| v.read()));
            }
            if ams {
                got.extend(views[4].iter().map(|v| v.read()));
            }
        } else if meta[1] != 0.0 {
            got.extend(views[2].iter().map(|v| v.read()));
        }
        let mut inputs = vec![Some(Array::f64s(&[meta.len()], &meta))];
        for l in &vals {
            for (sh, v) in shapes.iter().zip(l) {
                inputs.push(Some(array(d, sh, v)));
            }
        }
        let c = batch.case(if is_adam { adamw } else { sgd }, inputs);
        ran.push((what, got, d, c));
        for l in lists {
            aclDestroyTensorList(l);
        }
        drop(step_views);
    }
    let Some(results) = batch.run("fused_adamw_and_sgd_match_torch_optim") else {
        return;
    };
    for (what, got, d, c) in ran {
        let want = results[c]
            .as_ref()
            .unwrap_or_else(|e| panic!("{what}: torch: {e}"));
        assert_eq!(want.len(), got.len(), "{what}");
        // f32: a few roundings apart; f16/bf16: torch (in f32 here) rounded once, so within
        // one 16-bit ulp.
        let rel = match d {
            F32 => 4e-6,
            F16 => 1.0 / 1024.0,
            _ => 1.0 / 128.0,
        };
        for (i, ((g, kept), w)) in got.iter().zip(want).enumerate() {
            assert!(kept, "{what}: tensor {i} wrote outside its view");
            compare_rel(&format!("{what} tensor {i}"), g, w, rel);
        }
    }
}

#[test]
fn apply_adam_w_v2_is_the_fused_step_of_one_tensor() {
    device();
    let mut rng = Rng::new(0xadaa);
    let shape = [3usize, 4];
    let vals = |rng: &mut Rng, pos: bool| -> Vec<f64> {
        (0..12)
            .map(|_| {
                let v = (rng.below(2001) as f64 - 1000.0) / 500.0;
                if pos {
                    v.abs()
                } else {
                    v
                }
            })
            .collect()
    };
    let (p, g, m, v, mx) = (
        vals(&mut rng, false),
        vals(&mut rng, false),
        vals(&mut rng, false),
        vals(&mut rng, true),
        vals(&mut rng, true),
    );
    let mk = |rng: &mut Rng, x: &[f64]| View::new(rng, F32, &shape, x);
    // One tensor through ApplyAdamWV2, the same through FusedAdamw: bit for bit equal.
    let a = [
        mk(&mut rng, &p),
        mk(&mut rng, &g),
        mk(&mut rng, &m),
        mk(&mut rng, &v),
        mk(&mut rng, &mx),
    ];
    let b = [
        mk(&mut rng, &p),
        mk(&mut rng, &g),
        mk(&mut rng, &m),
        mk(&mut rng, &v),
        mk(&mut rng, &mx),
    ];
    let step = View::new(&mut rng, F32, &[1], &[3.0]);
    let (lr, b1, b2, wd, eps) = (0.01f32, 0.9f32, 0.999f32, 0.01f32, 1e-8f32);
    let (mut ws, mut ex) = (0u64, null_mut());
    let t: Vec<*mut aclTensor> = a.iter().map(|x| x.tensor()).collect();
    let st = step.tensor();
    let s = unsafe {
        apply_adam_w_v2::aclnnApplyAdamWV2GetWorkspaceSize(
            t[0], t[2], t[3], t[4], t[1], st, lr, b1, b2, wd, eps, true, false, &mut ws, &mut ex,
        )
    };
    run(
        s,
        ws,
        ex,
        apply_adam_w_v2::aclnnApplyAdamWV2,
        "ApplyAdamWV2",
    );
    let l: Vec<*mut aclTensorList> = b.iter().map(|x| list(std::slice::from_ref(x))).collect();
    let sl = list(std::slice::from_ref(&step));
    let s = unsafe {
        fused_adamw::aclnnFusedAdamwGetWorkspaceSize(
            l[0],
            l[1],
            l[2],
            l[3],
            l[4],
            sl,
            null(),
            null(),
            lr as f64,
            b1 as f64,
            b2 as f64,
            wd as f64,
            eps as f64,
            true,
            false,
            &mut ws,
            &mut ex,
        )
    };
    run(s, ws, ex, fused_adamw::aclnnFusedAdamw, "FusedAdamw");
    for k in [0, 2, 3, 4] {
        assert_eq!(a[k].read().0, b[k].read().0, "state {k}");
    }
    assert_ne!(a[0].read().0, array(F32, &shape, &p), "the parameter moved");
    // amsgrad without maxGradNormOptionalRef is refused.
    let s = unsafe {
        apply_adam_w_v2::aclnnApplyAdamWV2GetWorkspaceSize(
            t[0],
            t[2],
            t[3],
            null_mut(),
            t[1],
            st,
            lr,
            b1,
            b2,
            wd,
            eps,
            true,
            false,
            &mut ws,
            &mut ex,
        )
    };
    assert_eq!(s, 161002);
    assert!(err().contains("maxGradNormOptionalRef"), "{}", err());
    for x in t {
        aclDestroyTensor(x);
    }
    aclDestroyTensor(st);
    for x in l {
        aclDestroyTensorList(x);
    }
    aclDestroyTensorList(sl);
}
