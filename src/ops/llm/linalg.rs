//! Mv, Ger and TriangularSolve: the matrix-vector product, the outer product and the
//! triangular solve llama.cpp's CANN back-end uses (hicann/ops-nn aclnn_mv.h,
//! hicann/ops-math aclnn_ger.h and aclnn_triangular_solve.h).
//!
//! - Mv: `out = self @ vec`, self (n, m), vec (m), out (n). The cube matmul's dtypes on
//!   Atlas A2 (f32, f16, bf16); vec and out of one dtype, self of it too unless self is
//!   empty; an empty self with n > 0 gives zeros. f16/bf16 widen into f32, the product runs
//!   on the GEMM in f32 and is rounded once to out: within k·2^-24 relative of the f64 dot
//!   product (k = m) for f32, plus half an ulp of the result dtype for f16/bf16.
//! - Ger: `out[i][j] = self[i] * vec2[j]` in the promoted dtype (bool: and), converted to
//!   out, as a broadcast Mul over the views (self as a column, vec2 as a row): exact.
//! - TriangularSolve: `A X = self` (`A^T X = self` with `transpose`), A's upper or lower
//!   triangle (the other is not read), its diagonal taken as 1 with `unitriangular`
//!   (f32 only, as on the device); batch dims broadcast. mOut (optional) receives A
//!   broadcast to the batch (when self or A is empty nothing is written, mOut neither,
//!   as on the device). Computed by substitution in f64 and rounded once to the
//!   dtype: f64 results within a few ulps times the matrix's condition, f32 results
//!   the correctly rounded f64 solution in all but ill-conditioned cases.

use super::dense::{bindings, load, store};
use crate::broadcast::broadcast_shapes;
use crate::dtype::{promote, DType};
use crate::error::{Error, Result};
use crate::executor::{Bindings, Executor, Nothing, Work, Workspace};
use crate::ops::binary::{self, Dtypes, Operand};
use crate::ops::elementwise::{self as ew, ALL12};
use crate::ops::gemm::{Mat, Product};
use crate::ops::matmul::check_cube_math_type;
use crate::tensor::TensorDesc;

use DType::*;
/// Mv's dtypes: the cube matmul's on Atlas A2.
pub(crate) const MV: &[DType] = &[F32, F16, BF16];
/// Ger's dtypes on Atlas A2 (`DTYPE_SUPPORT_LIST` of aclnn_ger.cpp: no bf16 there).
pub(crate) const GER: &[DType] = &[F32, F16, F64, S8, U8, S16, S32, S64, Bool, C64, C128];
/// TriangularSolve's dtypes that are computed here (the device also lists c64 and c128).
pub(crate) const SOLVE: &[DType] = &[F32, F64];

/// aclnnMv.
pub fn mv(
    self_: &TensorDesc,
    vec: &TensorDesc,
    out: &TensorDesc,
    cube_math_type: i64,
) -> Result<Executor> {
    crate::ensure!(
        out.dtype == vec.dtype,
        "out dtype {} and vec dtype {} must be the same",
        out.dtype,
        vec.dtype
    );
    crate::ensure!(
        self_.is_empty() || self_.dtype == vec.dtype,
        "self dtype {} and vec dtype {} must be the same",
        self_.dtype,
        vec.dtype
    );
    for (name, t) in [("self", self_), ("vec", vec), ("out", out)] {
        ew::check_tensor(name, t, MV)?;
    }
    check_cube_math_type(cube_math_type)?;
    crate::ensure!(
        self_.rank() == 2 && vec.rank() == 1 && out.rank() == 1,
        "self {:?}, vec {:?} and out {:?} must have 2, 1 and 1 dims",
        self_.shape,
        vec.shape,
        out.shape
    );
    let (n, m) = (self_.shape[0], self_.shape[1]);
    crate::ensure!(
        vec.shape[0] == m,
        "vec has shape {:?} but self {:?} needs [{m}]",
        vec.shape,
        self_.shape
    );
    ew::check_result_shape("out", out, &[n])?;
    let b = bindings(&[Some(self_), Some(vec)], &[Some(out)]);
    if out.is_empty() {
        return Ok(Executor::new("aclnnMv", b, Nothing));
    }
    Ok(Executor::new("aclnnMv", b, MvWork { n, m }))
}

struct MvWork {
    n: usize,
    m: usize,
}

impl Work for MvWork {
    fn workspace_size(&self) -> u64 {
        0
    }
    fn run(&self, t: &Bindings, _: Workspace) -> Result<()> {
        let (n, m) = (self.n, self.m);
        let a = load::<f32>(t, 0, &[n, m])?;
        let x = load::<f32>(t, 1, &[m])?;
        let mut y = vec![0f32; n];
        if m > 0 {
            product_f32(n, 1, m, &a, (m as isize, 1), &x, (1, 1), &mut y);
        }
        store(t, 2, &y)
    }
}

/// `dst (rows x cols, row-major) = lhs (rows x k) @ rhs (k x cols)` on the GEMM in f32,
/// lhs and rhs with the given (row, column) strides, split over the compute pool's threads
/// when it is large.
#[allow(clippy::too_many_arguments)]
pub(super) fn product_f32(
    rows: usize,
    cols: usize,
    k: usize,
    lhs: &[f32],
    (lrs, lcs): (isize, isize),
    rhs: &[f32],
    (rrs, rcs): (isize, isize),
    dst: &mut [f32],
) {
    let pool = crate::engine::pool();
    let threads = if rows * cols * k >= 64 * 64 * 64 {
        pool.current_num_threads()
    } else {
        1
    };
    let p = Product::<f32> {
        m: rows,
        n: cols,
        k,
        dst: Mat {
            ptr: dst.as_mut_ptr(),
            rs: cols as isize,
            cs: 1,
        },
        scale: None,
        lhs: Mat {
            ptr: lhs.as_ptr(),
            rs: lrs,
            cs: lcs,
        },
        rhs: Mat {
            ptr: rhs.as_ptr(),
            rs: rrs,
            cs: rcs,
        },
        alpha: 1.0,
        threads,
    };
    /// The product, moved into the pool (its pointers are to buffers that outlive the call).
    struct Job(Product<f32>);
    impl Job {
        /// SAFETY: the three buffers hold the matrices the strides describe (the callers
        /// size them), and dst does not overlap the inputs (a separate &mut).
        fn run(&self) {
            unsafe { self.0.run() }
        }
    }
    // SAFETY: the buffers are borrowed for the duration of `install`, the only user.
    unsafe impl Send for Job {}
    unsafe impl Sync for Job {}
    let job = Job(p);
    pool.install(|| job.run());
}

/// aclnnGer.
pub fn ger(self_: &TensorDesc, vec2: &TensorDesc, out: &TensorDesc) -> Result<Executor> {
    ew::check_tensor("self", self_, GER)?;
    ew::check_tensor("vec2", vec2, GER)?;
    let p = promote(self_.dtype, vec2.dtype).ok_or_else(|| {
        Error::Invalid(format!(
            "self dtype {} and vec2 dtype {} cannot be promoted to a common dtype",
            self_.dtype, vec2.dtype
        ))
    })?;
    ew::check_out_cast(p, "out", out)?;
    crate::ensure!(
        self_.rank() == 1 && vec2.rank() == 1 && out.rank() == 2,
        "self {:?}, vec2 {:?} and out {:?} must have 1, 1 and 2 dims",
        self_.shape,
        vec2.shape,
        out.shape
    );
    let (n, m) = (self_.shape[0], vec2.shape[0]);
    crate::ensure!(
        out.shape[..] == [n, m],
        "out has shape {:?} but self {:?} and vec2 {:?} give [{n}, {m}]",
        out.shape,
        self_.shape,
        vec2.shape
    );
    // self as a column (n, 1) and vec2 as a row (1, m): their broadcast product is out.
    let mut column = self_.clone();
    column.shape = smallvec::smallvec![n, 1];
    column.strides = smallvec::smallvec![self_.strides[0], 0];
    let mut row = vec2.clone();
    row.shape = smallvec::smallvec![1, m];
    row.strides = smallvec::smallvec![0, vec2.strides[0]];
    binary::build(
        "aclnnGer",
        &Dtypes {
            a: GER,
            b: GER,
            out: ALL12,
        },
        Operand::Tensor("self", &column),
        Operand::Tensor("vec2", &row),
        Some(("out", out)),
        crate::ops::mul::compute,
    )
}

/// aclnnTriangularSolve.
#[allow(clippy::too_many_arguments)]
pub fn triangular_solve(
    self_: &TensorDesc,
    a: &TensorDesc,
    upper: bool,
    transpose: bool,
    unitriangular: bool,
    x_out: &TensorDesc,
    m_out: Option<&TensorDesc>,
) -> Result<Executor> {
    const LISTED: &[DType] = &[F32, F64, C64, C128];
    for (name, t) in [("self", self_), ("A", a), ("xOut", x_out)]
        .into_iter()
        .chain(m_out.map(|m| ("mOut", m)))
    {
        ew::check_tensor(name, t, LISTED)?;
        crate::ensure!(
            t.dtype == self_.dtype,
            "{name} dtype {} must be self's dtype {}",
            t.dtype,
            self_.dtype
        );
    }
    crate::ensure!(
        SOLVE.contains(&self_.dtype),
        "aclnnTriangularSolve of complex tensors ({}) is not implemented by aclnn-cpu",
        self_.dtype
    );
    for (name, t) in [("self", self_), ("A", a), ("xOut", x_out)]
        .into_iter()
        .chain(m_out.map(|m| ("mOut", m)))
    {
        crate::ensure!(
            (2..=8).contains(&t.rank()),
            "{name} has {} dims; it must have 2 to 8",
            t.rank()
        );
    }
    let (ar, br) = (a.rank(), self_.rank());
    let m = a.shape[ar - 1];
    crate::ensure!(
        a.shape[ar - 2] == m,
        "A of shape {:?} must be square in its last two dims",
        a.shape
    );
    crate::ensure!(
        self_.shape[br - 2] == m,
        "self of shape {:?} must have A's {m} rows (A has shape {:?})",
        self_.shape,
        a.shape
    );
    let k = self_.shape[br - 1];
    let batch =
        broadcast_shapes(&[("A", &a.shape[..ar - 2]), ("self", &self_.shape[..br - 2])])?.to_vec();
    let x_shape: Vec<usize> = batch.iter().copied().chain([m, k]).collect();
    let m_shape: Vec<usize> = batch.iter().copied().chain([m, m]).collect();
    ew::check_result_shape("xOut", x_out, &x_shape)?;
    if let Some(mo) = m_out {
        ew::check_result_shape("mOut", mo, &m_shape)?;
    }
    crate::ensure!(
        !unitriangular || self_.dtype == F32,
        "unitriangular is supported for ACL_FLOAT only, not {}",
        self_.dtype
    );
    let b = bindings(&[Some(self_), Some(a)], &[Some(x_out), m_out]);
    if a.is_empty() || self_.is_empty() {
        return Ok(Executor::new("aclnnTriangularSolve", b, Nothing));
    }
    Ok(Executor::new(
        "aclnnTriangularSolve",
        b,
        Solve {
            x_shape,
            m_shape,
            m,
            k,
            lower: upper == transpose,
            transpose,
            unit: unitriangular,
            has_m: m_out.is_some(),
        },
    ))
}

struct Solve {
    x_shape: Vec<usize>,
    m_shape: Vec<usize>,
    m: usize,
    k: usize,
    /// The effective matrix op(A) is lower triangular (forward substitution).
    lower: bool,
    transpose: bool,
    unit: bool,
    has_m: bool,
}

impl Work for Solve {
    fn workspace_size(&self) -> u64 {
        0
    }
    fn run(&self, t: &Bindings, _: Workspace) -> Result<()> {
        let (m, k) = (self.m, self.k);
        let a = load::<f64>(t, 1, &self.m_shape)?;
        let mut x = load::<f64>(t, 0, &self.x_shape)?;
        let batches = x.len().checked_div(m * k).unwrap_or(0);
        for bi in 0..batches {
            let am = &a[bi * m * m..(bi + 1) * m * m];
            let xm = &mut x[bi * m * k..(bi + 1) * m * k];
            // op(A)[i][p]
            let e = |i: usize, p: usize| {
                if self.transpose {
                    am[p * m + i]
                } else {
                    am[i * m + p]
                }
            };
            for j in 0..k {
                let order: Box<dyn Iterator<Item = usize>> = if self.lower {
                    Box::new(0..m)
                } else {
                    Box::new((0..m).rev())
                };
                for i in order {
                    let known: Box<dyn Iterator<Item = usize>> = if self.lower {
                        Box::new(0..i)
                    } else {
                        Box::new(i + 1..m)
                    };
                    let mut s = xm[i * k + j];
                    for p in known {
                        s -= e(i, p) * xm[p * k + j];
                    }
                    xm[i * k + j] = if self.unit { s } else { s / e(i, i) };
                }
            }
        }
        store(t, 2, &x)?;
        if self.has_m {
            store(t, 3, &a)?;
        }
        Ok(())
    }
}

/// Ger's dtypes the torch reference exercises (complex and bool products are the same
/// engine path as Mul's).
#[cfg(test)]
pub(crate) const GER_TESTED: &[DType] = &[F32, F16, F64, S8, U8, S16, S32, S64];
