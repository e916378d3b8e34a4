//! Linear algebra over the last dims: LinalgCross (torch.linalg.cross), the vector
//! product of 3-vectors along a dim, with broadcasting; Inverse, Slogdet, Logdet and
//! LinalgCholesky over batches of square matrices; LinalgQr and Qr (Householder, LAPACK's
//! signs) and Svd (one-sided Jacobi, v = V) over batches of m x n real matrices, in f64.
//!
//! - LinalgCross: `out[.., i, ..] = self[j]·other[k] − self[k]·other[j]` for the cyclic
//!   (i, j, k) of (0, 1, 2) along `dim`. self, other and out share one dtype of the A2
//!   list of aclnnLinalgCross.md (s8, s16, s32, s64, u8, f16, bf16, f32, f64, c64, c128);
//!   self and other broadcast to out's shape; `dim` is in [-rank(self), rank(self)) and
//!   names an axis of self (the op_api shifts a non-negative dim by the dims other adds in
//!   front, so it is self's axis also when other has more dims; torch wraps a
//!   non-negative dim on the broadcast shape instead: the two agree when self has the
//!   broadcast rank or dim is negative). That axis of out must be 3. Run on the
//!   element-wise engine as six steps into the three slices of out along dim:
//!   `out_i = self_j·other_k`, then `out_i = out_i − self_k·other_j`, each in the dtype's
//!   arithmetic (integers wrap; f16/bf16 compute in f32 and round to the dtype after each
//!   step, as torch's Half/BFloat16 arithmetic rounds each product and difference but
//!   the second product). f32/f64/integers/complex: torch's formula op for op.
//!
//! Phase 1 checks in the op_api's order (aclnn_linalg_cross.cpp): null; self's dtype in
//! the list; other and out of self's dtype; at most 8 dims each; self and other
//! broadcast, to out's shape; dim in self's range; then an empty out returns (nothing
//! written) before the check that dim's extent is 3. Beyond the op_api: out may not
//! overlap self or other (its slices are written one after another).
//!
//! - Inverse (torch.linalg.inv), Slogdet (torch.linalg.slogdet), Logdet (torch.logdet),
//!   LinalgCholesky (torch.linalg.cholesky, `upper`): self [.., n, n] is read through its
//!   view as f64, each matrix factored by crate::engine::linalg (an LU with partial
//!   pivoting; a Cholesky of the lower triangle, or with upper of the upper one) and the
//!   results rounded once to the output dtype (complex self: complex f64, the pivot the
//!   largest |re| + |im| as LAPACK's zgetf2; Slogdet's sign is det/|det|, its log real). Checks in each op_api's order
//!   (aclnn_inverse.cpp: dtype, castable out, out of self's shape, at most 8 dims, then
//!   for a non-empty self ≥ 2 dims and square; aclnn_slogdet.cpp / aclnn_logdet.cpp:
//!   dtypes, complex self needs complex outputs, ≥ 2 dims, square, outputs of self's
//!   batch shape; aclnn_linalg_cholesky.cpp: out of self's dtype, dtype, 2-8 dims, out
//!   of self's shape, then for a non-empty self square and n ≤ 8192). An empty self returns (nothing
//!   written) as the op_api does, also for 0 x 0 matrices (where torch gives det 1).
//!   CANN's docs say nothing of singular (Inverse) or not positive-definite (Cholesky)
//!   input; torch raises, so here the run fails and writes nothing (reported by the
//!   stream's synchronize as a run-time refusal, 507015). Slogdet gives sign 0 and
//!   log −inf for a singular matrix (an exact zero pivot), Logdet −inf, and NaN for a
//!   negative determinant. Bound: f64 results within a few ulps times n times the
//!   condition; f32/f16/bf16 the f64 result rounded once (within an ulp of torch's
//!   float64 result for well-conditioned input).

use super::catalog::Entry;
use super::elementwise::{self as ew, Arg};
use crate::dtype::DType;
use crate::element::{Element, C128};
use crate::engine::kernel::{binary, ternary, Arith, BinaryOp, TernaryOp};
use crate::engine::{KernelFn, Params, Via};
use crate::error::Result;
use crate::executor::{Bindings, Executor, Nothing, Sequence};
use crate::tensor::TensorDesc;
use std::marker::PhantomData;

use DType::*;

/// aclnnLinalgCross's A2 list (DTYPE_SUPPORT_LIST_910B of aclnn_linalg_cross.cpp).
const CROSS: &[DType] = &[F32, F16, F64, S8, S16, S32, S64, C64, C128, U8, BF16];

/// `a·b` in the kernel type.
struct Product<T>(PhantomData<T>);
impl<T: Arith> BinaryOp for Product<T> {
    type A = T;
    type B = T;
    type O = T;
    fn new(_: &Params) -> Self {
        Product(PhantomData)
    }
    #[inline(always)]
    fn apply(&self, a: T, b: T) -> T {
        a.mul(b)
    }
}

/// `acc − a·b` in the kernel type.
struct LessProduct<T>(PhantomData<T>);
impl<T: Arith> TernaryOp for LessProduct<T> {
    type A = T;
    type B = T;
    type C = T;
    type O = T;
    fn new(_: &Params) -> Self {
        LessProduct(PhantomData)
    }
    #[inline(always)]
    fn apply(&self, acc: T, a: T, b: T) -> T {
        acc.sub(a.mul(b))
    }
}

/// `t` at index `i` of its axis `axis` (or as it is when that axis broadcasts: extent 1,
/// or `axis` None — a dim t lacks), that axis removed.
fn component(t: &TensorDesc, axis: Option<usize>, i: usize) -> TensorDesc {
    let mut v = t.clone();
    if let Some(a) = axis {
        if t.shape[a] != 1 {
            v.offset += i * t.strides[a] as usize;
        }
        v.shape.remove(a);
        v.strides.remove(a);
    }
    v
}

/// aclnnLinalgCross: out = self × other along dim.
pub fn linalg_cross(
    self_: &TensorDesc,
    other: &TensorDesc,
    dim: i64,
    out: &TensorDesc,
) -> Result<Executor> {
    const API: &str = "aclnnLinalgCross";
    ew::check_tensor("self", self_, CROSS)?;
    ew::check_dtype_of("other", other, "self", self_)?;
    ew::check_dtype_of("out", out, "self", self_)?;
    for (name, t) in [("other", other), ("out", out)] {
        ew::check_tensor(name, t, CROSS)?;
    }
    let shape =
        crate::broadcast::broadcast_shapes(&[("self", &self_.shape), ("other", &other.shape)])?;
    crate::ensure!(
        shape[..] == out.shape[..],
        "{API}: out has shape {:?} but self {:?} and other {:?} broadcast to {shape:?}",
        out.shape,
        self_.shape,
        other.shape
    );
    let rs = self_.rank();
    let axis = ew::axis("dim", dim, rs, "self")?;
    let bindings = Bindings {
        tensors: std::sync::Arc::new(vec![
            Some(self_.clone()),
            Some(other.clone()),
            Some(out.clone()),
        ]),
        n_inputs: 2,
        outputs: smallvec::smallvec![2],
    };
    if out.is_empty() {
        return Ok(Executor::new(API, bindings, Nothing));
    }
    // The axis of out (and of other, if it has it) that is self's axis `axis`.
    let ro = out.rank();
    let d = axis + (ro - rs);
    crate::ensure!(
        out.shape[d] == 3,
        "{API}: dimension {dim} does not have size 3 (self {:?}, other {:?} broadcast to {:?})",
        self_.shape,
        other.shape,
        out.shape
    );
    out.check_output("out")?;
    for (name, t) in [("self", self_), ("other", other)] {
        crate::ensure!(
            !super::pool::overlap(out, t),
            "{API}: out overlaps {name} in memory; the output must be apart from the inputs"
        );
    }
    let other_axis = d.checked_sub(ro - other.rank());
    let (mul, fms): (KernelFn, KernelFn) = crate::with_compute_dtype!(self_.dtype, T => (
        binary::<Product<T>> as KernelFn,
        ternary::<LessProduct<T>> as KernelFn,
    ));
    let v = Via::of(self_.dtype);
    let mut seq = Sequence::new();
    for i in 0..3 {
        let (j, k) = ((i + 1) % 3, (i + 2) % 3);
        let o = component(out, Some(d), i);
        let (sj, sk) = (
            component(self_, Some(axis), j),
            component(self_, Some(axis), k),
        );
        let (oj, ok) = (
            component(other, other_axis, j),
            component(other, other_axis, k),
        );
        let first = ew::executor(
            API,
            &[Arg::Tensor("self", &sj), Arg::Tensor("other", &ok)],
            &[v, v],
            "out",
            &o,
            v,
            mul,
            Params::default(),
            false,
        )?;
        seq.push(first, &[0, 1, 2]);
        let second = ew::executor(
            API,
            &[
                Arg::Tensor("out", &o),
                Arg::Tensor("self", &sk),
                Arg::Tensor("other", &oj),
            ],
            &[v, v, v],
            "out",
            &o,
            v,
            fms,
            Params::default(),
            false,
        )?;
        seq.push(second, &[2, 0, 1, 2]);
    }
    Ok(Executor::new(API, bindings, seq))
}

pub const CATALOG: &[Entry] = &[Entry {
    ops: "LinalgCross",
    a: CROSS,
    b: CROSS,
    out: CROSS,
    rule:
        "out_i = self_j·other_k − self_k·other_j along dim (broadcast), in the dtype's arithmetic",
}];

// ---------------------------------------------------------------------------------------
// Inverse, Slogdet, Logdet and LinalgCholesky: batches [.., n, n] of real matrices, read
// through their views as f64, decomposed in f64 (crate::engine::linalg: an LU with
// partial pivoting, a Cholesky) and rounded once to the output dtype.
// ---------------------------------------------------------------------------------------

/// aclnnInverse's self list (aclnnInverse.md).
const INVERSE: &[DType] = &[F32, F64, C64, C128, F16];
/// aclnnInverse's out: a dtype self casts to (the header lists bf16 for out too).
const INVERSE_OUT: &[DType] = &[F32, F64, C64, C128, F16, BF16];
/// aclnnSlogdet's and aclnnLogdet's list (DTYPE_SUPPORT_LIST of their op_api).
const LOGDET: &[DType] = &[F32, F64, C64, C128];
/// aclnnLinalgCholesky's A2 list.
const CHOLESKY: &[DType] = &[F32, BF16, F16];
/// The op_api's bound on the Cholesky's matrix order.
const MAX_CHOLESKY_N: usize = 8192;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Decomposition {
    Inverse,
    /// signOut and logOut.
    Slogdet,
    /// log(det): log(sign) + log|det|.
    Logdet,
    Cholesky {
        upper: bool,
    },
}

/// A batch of n x n matrices (binding 0, of `shape`) into the outputs (bindings 1..).
struct Batched {
    api: &'static str,
    kind: Decomposition,
    /// self is complex: the LU runs on complex f64.
    complex: bool,
    shape: Vec<usize>,
    n: usize,
}

impl crate::executor::Work for Batched {
    fn workspace_size(&self) -> u64 {
        0
    }
    fn run(&self, t: &Bindings, _: crate::executor::Workspace) -> Result<()> {
        use crate::engine::linalg::cholesky;
        use crate::ops::llm::dense::{load, store};
        use rayon::prelude::*;
        let n = self.n;
        if !matches!(self.kind, Decomposition::Cholesky { .. }) {
            return if self.complex {
                self.run_lu::<C128>(t)
            } else {
                self.run_lu::<f64>(t)
            };
        }
        let a = load::<f64>(t, 0, &self.shape)?;
        let count = a.len() / (n * n).max(1);
        let matrix = |b: usize| a[b * n * n..(b + 1) * n * n].to_vec();
        let pool = crate::engine::pool();
        let api = self.api;
        match self.kind {
            Decomposition::Cholesky { upper } => {
                let factors: Vec<std::result::Result<Vec<f64>, usize>> = pool.install(|| {
                    (0..count)
                        .into_par_iter()
                        .map(|b| {
                            let mut m = matrix(b);
                            if upper {
                                transpose(&mut m, n);
                            }
                            let mut l = cholesky(&m, n)?;
                            if upper {
                                transpose(&mut l, n);
                            }
                            Ok(l)
                        })
                        .collect()
                });
                let mut out = Vec::with_capacity(a.len());
                for (b, r) in factors.into_iter().enumerate() {
                    match r {
                        Ok(x) => out.extend(x),
                        Err(k) => crate::bail!(
                            "{api}: matrix {b} of the batch is not positive-definite (its leading minor of order {k} is not): nothing was written"
                        ),
                    }
                }
                store(t, 1, &out)
            }
            // Run by run_lu above.
            _ => Ok(()),
        }
    }
}

impl Batched {
    /// Inverse, Slogdet and Logdet on entries of type T (f64, or complex f64).
    fn run_lu<T: Det>(&self, t: &Bindings) -> Result<()> {
        use crate::engine::linalg::lu;
        use crate::ops::llm::dense::{load, store};
        use rayon::prelude::*;
        let n = self.n;
        let a = load::<T>(t, 0, &self.shape)?;
        let count = a.len() / (n * n).max(1);
        let matrix = |b: usize| a[b * n * n..(b + 1) * n * n].to_vec();
        let pool = crate::engine::pool();
        let api = self.api;
        if self.kind == Decomposition::Inverse {
            let inv: Vec<std::result::Result<Vec<T>, usize>> = pool.install(|| {
                (0..count)
                    .into_par_iter()
                    .map(|b| lu(matrix(b), n).inverse())
                    .collect()
            });
            let mut out = Vec::with_capacity(a.len());
            for (b, r) in inv.into_iter().enumerate() {
                match r {
                    Ok(x) => out.extend(x),
                    Err(k) => crate::bail!(
                        "{api}: matrix {b} of the batch is singular (U[{k}][{k}] of its LU is zero): it has no inverse; nothing was written"
                    ),
                }
            }
            return store(t, 1, &out);
        }
        let dets: Vec<(T, f64)> = pool.install(|| {
            (0..count)
                .into_par_iter()
                .map(|b| lu(matrix(b), n).slogdet())
                .collect()
        });
        if self.kind == Decomposition::Slogdet {
            let sign: Vec<T> = dets.iter().map(|d| d.0).collect();
            let log: Vec<f64> = dets.iter().map(|d| d.1).collect();
            store(t, 1, &sign)?;
            store(t, 2, &log)
        } else {
            let log: Vec<T> = dets.iter().map(|&(s, l)| s.log_plus(l)).collect();
            store(t, 1, &log)
        }
    }
}

/// What Logdet needs of an LU's entries beyond `Field`.
trait Det: crate::engine::linalg::Field + Element {
    /// log(self) + `real`: log of a determinant from its sign and log|det|.
    fn log_plus(self, real: f64) -> Self;
}

impl Det for f64 {
    fn log_plus(self, real: f64) -> f64 {
        self.ln() + real
    }
}

impl Det for C128 {
    fn log_plus(self, real: f64) -> C128 {
        self.ln() + real
    }
}

/// Transposes the n x n row-major `m` in place.
fn transpose(m: &mut [f64], n: usize) {
    for i in 0..n {
        for j in i + 1..n {
            m.swap(i * n + j, j * n + i);
        }
    }
}

/// self's last two dims are equal (self has ≥ 2 dims).
fn check_square(api: &str, self_: &TensorDesc) -> Result<usize> {
    let r = self_.rank();
    crate::ensure!(
        r >= 2,
        "{api}: self has {r} dims ({:?}); it needs at least 2 (batches of square matrices)",
        self_.shape
    );
    let (m, n) = (self_.shape[r - 2], self_.shape[r - 1]);
    crate::ensure!(
        m == n,
        "{api}: self {:?} must be batches of square matrices, but they are {m} by {n} matrices",
        self_.shape
    );
    Ok(n)
}

fn batched(
    api: &'static str,
    kind: Decomposition,
    self_: &TensorDesc,
    outs: &[(&str, &TensorDesc)],
    n: usize,
) -> Result<Executor> {
    let views: Vec<Option<&TensorDesc>> = outs.iter().map(|o| Some(o.1)).collect();
    let b = crate::executor::bindings(&[Some(self_)], &views);
    if self_.is_empty() {
        return Ok(Executor::new(api, b, Nothing));
    }
    for (name, o) in outs {
        o.check_output(name)?;
    }
    Ok(Executor::new(
        api,
        b,
        Batched {
            api,
            kind,
            complex: self_.dtype.is_complex(),
            shape: self_.shape.to_vec(),
            n,
        },
    ))
}

/// aclnnInverse: out = self⁻¹ per matrix.
pub fn inverse(self_: &TensorDesc, out: &TensorDesc) -> Result<Executor> {
    const API: &str = "aclnnInverse";
    ew::check_tensor("self", self_, INVERSE)?;
    ew::check_tensor("out", out, INVERSE_OUT)?;
    ew::check_out_cast(self_.dtype, "out", out)?;
    crate::ensure!(
        out.shape == self_.shape,
        "{API}: out has shape {:?} but must have self's shape {:?}",
        out.shape,
        self_.shape
    );
    let n = if self_.is_empty() {
        0
    } else {
        check_square(API, self_)?
    };
    batched(API, Decomposition::Inverse, self_, &[("out", out)], n)
}

/// The checks Slogdet and Logdet share: self's dtype, square, outputs of the batch shape.
fn check_logdet(api: &str, self_: &TensorDesc, outs: &[(&str, &TensorDesc)]) -> Result<usize> {
    ew::check_tensor("self", self_, LOGDET)?;
    for (name, o) in outs {
        ew::check_tensor(name, o, LOGDET)?;
    }
    for (name, o) in outs {
        crate::ensure!(
            !self_.dtype.is_complex() || o.dtype.is_complex(),
            "{api}: self's dtype is {}, so {name} must be complex too, not {}",
            self_.dtype,
            o.dtype
        );
    }
    let n = check_square(api, self_)?;
    let batch = &self_.shape[..self_.rank() - 2];
    for (name, o) in outs {
        crate::ensure!(
            o.shape[..] == batch[..],
            "{api}: expected {name} of shape {batch:?} (self's batch dims), but got {:?}",
            o.shape
        );
    }
    Ok(n)
}

/// aclnnSlogdet: signOut = sign(det self), logOut = log|det self| (−inf when singular).
pub fn slogdet(
    self_: &TensorDesc,
    sign_out: &TensorDesc,
    log_out: &TensorDesc,
) -> Result<Executor> {
    const API: &str = "aclnnSlogdet";
    let n = check_logdet(API, self_, &[("signOut", sign_out), ("logOut", log_out)])?;
    batched(
        API,
        Decomposition::Slogdet,
        self_,
        &[("signOut", sign_out), ("logOut", log_out)],
        n,
    )
}

/// aclnnLogdet: out = log(det self) (NaN for a negative determinant, −inf for zero).
pub fn logdet(self_: &TensorDesc, out: &TensorDesc) -> Result<Executor> {
    const API: &str = "aclnnLogdet";
    let n = check_logdet(API, self_, &[("out", out)])?;
    batched(API, Decomposition::Logdet, self_, &[("out", out)], n)
}

/// aclnnLinalgCholesky: out = L (A = L·Lᵀ, from self's lower triangle) or, with upper,
/// U (A = Uᵀ·U, from its upper triangle).
pub fn linalg_cholesky(self_: &TensorDesc, upper: bool, out: &TensorDesc) -> Result<Executor> {
    const API: &str = "aclnnLinalgCholesky";
    ew::check_dtype_of("out", out, "self", self_)?;
    ew::check_tensor("self", self_, CHOLESKY)?;
    crate::ensure!(
        self_.rank() <= 8,
        "{API}: self has {} dims; at most 8 are supported",
        self_.rank()
    );
    crate::ensure!(
        self_.rank() >= 2,
        "{API}: self has {} dims ({:?}); it needs at least 2 (batches of square matrices)",
        self_.rank(),
        self_.shape
    );
    crate::ensure!(
        out.shape == self_.shape,
        "{API}: out has shape {:?} but must have self's shape {:?}",
        out.shape,
        self_.shape
    );
    if self_.is_empty() {
        return batched(
            API,
            Decomposition::Cholesky { upper },
            self_,
            &[("out", out)],
            0,
        );
    }
    let n = check_square(API, self_)?;
    crate::ensure!(
        n <= MAX_CHOLESKY_N,
        "{API}: the last dim is {n}; it must be at most {MAX_CHOLESKY_N}"
    );
    batched(
        API,
        Decomposition::Cholesky { upper },
        self_,
        &[("out", out)],
        n,
    )
}

pub const DECOMPOSITIONS: &[Entry] = &[
    Entry {
        ops: "Inverse",
        a: INVERSE,
        b: &[],
        out: INVERSE_OUT,
        rule: "self⁻¹ per matrix by an LU with partial pivoting in f64, rounded once (complex in complex f64); singular: the run fails, nothing written",
    },
    Entry {
        ops: "Slogdet, Logdet",
        a: LOGDET,
        b: &[],
        out: LOGDET,
        rule: "sign and log|det| (Logdet: log(sign) + log|det|) from an f64 (or complex f64) LU",
    },
    Entry {
        ops: "LinalgCholesky",
        a: CHOLESKY,
        b: &[],
        out: CHOLESKY,
        rule: "L (or U with upper) of A = L·Lᵀ in f64, rounded once; not positive-definite: the run fails, nothing written",
    },
];

// ---------------------------------------------------------------------------------------
// LinalgQr and Qr: batches [.., m, n] of real matrices, read as f64, Householder QR in
// f64 (crate::engine::linalg::qr, LAPACK's geqr2/org2r signs as torch), rounded once.
// ---------------------------------------------------------------------------------------

/// aclnnLinalgQr's and aclnnQr's list (DTYPE_SUPPORT_LIST of their op_api).
const QR: &[DType] = &[F32, F16, F64, C64, C128];
/// The dtypes computed here (complex QR is not implemented).
const QR_REAL: &[DType] = &[F32, F16, F64];

/// A batch of m x n matrices (binding 0) into Q (binding 1, unless `q_cols` is None) and
/// R (binding 2).
struct QrWork {
    api: &'static str,
    shape: Vec<usize>,
    m: usize,
    n: usize,
    q_cols: Option<usize>,
    r_rows: usize,
}

impl crate::executor::Work for QrWork {
    fn workspace_size(&self) -> u64 {
        0
    }
    fn run(&self, t: &Bindings, _: crate::executor::Workspace) -> Result<()> {
        use crate::engine::linalg::qr;
        use crate::ops::llm::dense::{load, store};
        use rayon::prelude::*;
        let _ = self.api;
        let (m, n) = (self.m, self.n);
        let a = load::<f64>(t, 0, &self.shape)?;
        let count: usize = self.shape[..self.shape.len() - 2].iter().product();
        let pool = crate::engine::pool();
        let parts: Vec<(Option<Vec<f64>>, Vec<f64>)> = pool.install(|| {
            (0..count)
                .into_par_iter()
                .map(|b| {
                    qr(
                        &a[b * m * n..(b + 1) * m * n],
                        m,
                        n,
                        self.q_cols,
                        self.r_rows,
                    )
                })
                .collect()
        });
        let mut qs = Vec::with_capacity(count * m * self.q_cols.unwrap_or(0));
        let mut rs = Vec::with_capacity(count * self.r_rows * n);
        for (q, r) in parts {
            if let Some(q) = q {
                qs.extend(q);
            }
            rs.extend(r);
        }
        if self.q_cols.is_some() && !qs.is_empty() {
            store(t, 1, &qs)?;
        }
        if !rs.is_empty() {
            store(t, 2, &rs)?;
        }
        Ok(())
    }
}

/// The op_api's checks of LinalgQr and Qr (dtypes, 2-8 dims, Q's and R's shapes), then
/// the executor. `complete`: Q [.., m, m] and R [.., m, n]; `r_only`: Q of shape [0].
fn qr_op(
    api: &'static str,
    self_: &TensorDesc,
    complete: bool,
    r_only: bool,
    q: &TensorDesc,
    r: &TensorDesc,
) -> Result<Executor> {
    ew::check_tensor("self", self_, QR)?;
    ew::check_tensor("Q", q, QR)?;
    ew::check_tensor("R", r, QR)?;
    let rank = self_.rank();
    crate::ensure!(
        rank >= 2,
        "{api}: self has {rank} dims ({:?}); it needs at least 2 (batches of matrices)",
        self_.shape
    );
    crate::ensure!(
        rank <= 8,
        "{api}: self has {rank} dims; at most 8 are supported"
    );
    let (m, n) = (self_.shape[rank - 2], self_.shape[rank - 1]);
    let k = m.min(n);
    let mut q_shape = self_.shape.to_vec();
    let mut r_shape = self_.shape.to_vec();
    if r_only {
        q_shape = vec![0];
        r_shape[rank - 2] = k;
    } else if complete {
        q_shape[rank - 1] = m;
    } else {
        q_shape[rank - 1] = k;
        r_shape[rank - 2] = k;
    }
    crate::ensure!(
        q.shape[..] == q_shape[..],
        "{api}: the output Q should have shape {q_shape:?}, but got {:?}",
        q.shape
    );
    crate::ensure!(
        r.shape[..] == r_shape[..],
        "{api}: the output R should have shape {r_shape:?}, but got {:?}",
        r.shape
    );
    let b = crate::executor::bindings(&[Some(self_)], &[Some(q), Some(r)]);
    if self_.is_empty() && q.is_empty() {
        return Ok(Executor::new(api, b, Nothing));
    }
    for (name, o) in [("self", self_), ("Q", q), ("R", r)] {
        crate::ensure!(
            QR_REAL.contains(&o.dtype),
            "{api}: '{name}' has dtype {}: complex QR is not implemented here (f32, f16, f64 are)",
            o.dtype
        );
    }
    let q_cols = if r_only {
        None
    } else {
        Some(if complete { m } else { k })
    };
    if q_cols.is_some() {
        q.check_output("Q")?;
    }
    r.check_output("R")?;
    crate::ensure!(
        q_cols.is_none() || !super::pool::overlap(q, r),
        "{api}: Q and R overlap in memory"
    );
    Ok(Executor::new(
        api,
        b,
        QrWork {
            api,
            shape: self_.shape.to_vec(),
            m,
            n,
            q_cols,
            r_rows: if complete { m } else { k },
        },
    ))
}

/// aclnnLinalgQr: self = Q·R; mode 0 reduced (Q [.., m, k], R [.., k, n]), 1 complete
/// (Q [.., m, m], R [.., m, n]), 2 R only (Q [0]); other modes as 0, as the op_api.
pub fn linalg_qr(
    self_: &TensorDesc,
    mode: i64,
    q: &TensorDesc,
    r: &TensorDesc,
) -> Result<Executor> {
    qr_op("aclnnLinalgQr", self_, mode == 1, mode == 2, q, r)
}

/// aclnnQr: self = Q·R, reduced with `some`, complete without.
pub fn qr(self_: &TensorDesc, some: bool, q: &TensorDesc, r: &TensorDesc) -> Result<Executor> {
    qr_op("aclnnQr", self_, !some, false, q, r)
}

pub const QR_CATALOG: &[Entry] = &[Entry {
    ops: "LinalgQr, Qr",
    a: QR_REAL,
    b: &[],
    out: QR_REAL,
    rule: "Householder QR in f64 (LAPACK geqrf/orgqr signs, as torch), rounded once; complex refused (not implemented)",
}];

// ---------------------------------------------------------------------------------------
// Svd: batches [.., m, n] of real matrices, one-sided Jacobi in f64, rounded once.
// ---------------------------------------------------------------------------------------

/// aclnnSvd's list (DTYPE_SUPPORT_LIST of aclnn_svd.cpp).
const SVD: &[DType] = &[F64, F32, C64, C128];
/// The dtypes computed here (complex SVD is not implemented).
const SVD_REAL: &[DType] = &[F64, F32];

/// A batch of m x n matrices (binding 0) into sigma (1), u (2) and v (3, V not Vᴴ).
struct SvdWork {
    shape: Vec<usize>,
    m: usize,
    n: usize,
    full: bool,
    uv: bool,
}

impl crate::executor::Work for SvdWork {
    fn workspace_size(&self) -> u64 {
        0
    }
    fn run(&self, t: &Bindings, _: crate::executor::Workspace) -> Result<()> {
        use crate::engine::linalg::svd;
        use crate::ops::llm::dense::{load, store};
        use rayon::prelude::*;
        let (m, n) = (self.m, self.n);
        let a = load::<f64>(t, 0, &self.shape)?;
        let count: usize = self.shape[..self.shape.len() - 2].iter().product();
        let pool = crate::engine::pool();
        let full = self.full;
        let parts: Vec<(Vec<f64>, Vec<f64>, Vec<f64>)> = pool.install(|| {
            (0..count)
                .into_par_iter()
                .map(|b| svd(&a[b * m * n..(b + 1) * m * n], m, n, full))
                .collect()
        });
        let (mut s, mut u, mut v) = (vec![], vec![], vec![]);
        for (ps, pu, pv) in parts {
            s.extend(ps);
            u.extend(pu);
            v.extend(pv);
        }
        store(t, 1, &s)?;
        if self.uv {
            store(t, 2, &u)?;
            store(t, 3, &v)?;
        }
        Ok(())
    }
}

/// aclnnSvd: input = u·diag(sigma)·vᵀ per matrix; u [.., m, m] and v [.., n, n] with
/// fullMatrices, else [.., m, k] and [.., n, k]; sigma [.., k]; u and v only with computeUV.
pub fn svd(
    input: &TensorDesc,
    full_matrices: bool,
    compute_uv: bool,
    sigma: &TensorDesc,
    u: &TensorDesc,
    v: &TensorDesc,
) -> Result<Executor> {
    const API: &str = "aclnnSvd";
    ew::check_tensor("input", input, SVD)?;
    for (name, o) in [("sigma", sigma), ("u", u), ("v", v)] {
        ew::check_tensor(name, o, SVD)?;
    }
    for (name, o) in [("sigma", sigma), ("u", u), ("v", v)] {
        ew::check_dtype_of(name, o, "input", input)?;
    }
    let rank = input.rank();
    crate::ensure!(
        rank >= 2,
        "{API}: input has {rank} dims; it needs at least 2 (batches of matrices)"
    );
    crate::ensure!(
        rank <= 8,
        "{API}: input has {rank} dims; at most 8 are supported"
    );
    let (m, n) = (input.shape[rank - 2], input.shape[rank - 1]);
    let k = m.min(n);
    let batch = &input.shape[..rank - 2];
    let with = |a: usize, b: Option<usize>| {
        let mut s = batch.to_vec();
        s.push(a);
        s.extend(b);
        s
    };
    let (us, vs) = if full_matrices {
        (with(m, Some(m)), with(n, Some(n)))
    } else {
        (with(m, Some(k)), with(n, Some(k)))
    };
    let ss = with(k, None);
    crate::ensure!(
        sigma.shape[..] == ss[..],
        "{API}: the shape of sigma is invalid: {:?}, expected {ss:?}",
        sigma.shape
    );
    if compute_uv {
        crate::ensure!(
            u.shape[..] == us[..],
            "{API}: the shape of u is invalid: {:?}, expected {us:?}",
            u.shape
        );
        crate::ensure!(
            v.shape[..] == vs[..],
            "{API}: the shape of v is invalid: {:?}, expected {vs:?}",
            v.shape
        );
    }
    let b = crate::executor::bindings(&[Some(input)], &[Some(sigma), Some(u), Some(v)]);
    if input.is_empty() {
        return Ok(Executor::new(API, b, Nothing));
    }
    crate::ensure!(
        SVD_REAL.contains(&input.dtype),
        "{API}: 'input' has dtype {}: complex SVD is not implemented here (f32, f64 are)",
        input.dtype
    );
    sigma.check_output("sigma")?;
    if compute_uv {
        u.check_output("u")?;
        v.check_output("v")?;
        for (x, y, what) in [
            (sigma, u, "sigma and u"),
            (sigma, v, "sigma and v"),
            (u, v, "u and v"),
        ] {
            crate::ensure!(
                !super::pool::overlap(x, y),
                "{API}: {what} overlap in memory"
            );
        }
    }
    Ok(Executor::new(
        API,
        b,
        SvdWork {
            shape: input.shape.to_vec(),
            m,
            n,
            full: full_matrices,
            uv: compute_uv,
        },
    ))
}

pub const SVD_CATALOG: &[Entry] = &[Entry {
    ops: "Svd",
    a: SVD_REAL,
    b: &[],
    out: SVD_REAL,
    rule: "one-sided Jacobi SVD in f64, rounded once; sigma descending, v = V (not Vᴴ); complex refused (not implemented)",
}];
