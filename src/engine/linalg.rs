//! Dense decompositions of one small square matrix in f64, row-major: an LU with partial
//! (row) pivoting (real or complex) and a Cholesky (real), for the linear-algebra operators (src/ops/linalg.rs).
//!
//! Written here rather than taken from faer: faer 0.22 and the crates it brings (a
//! second gemm, nano-gemm, equator, qd, ...) took 1 min 26 s of a clean release build on
//! the 2-core build machine, against the ~45 s budget for a dependency. The operators
//! work on batches of small matrices, where these textbook loops (LAPACK's getf2 and
//! potf2, unblocked) are what a library would run too.
//!
//! Both stop at the first exact zero (LU: no non-zero pivot in a column) or non-positive
//! (Cholesky) pivot, as LAPACK's info > 0 that torch reports.

use num_complex::Complex;

/// The entries an LU runs on: f64 and complex f64.
pub trait Field:
    Copy
    + Send
    + Sync
    + PartialEq
    + std::ops::Sub<Output = Self>
    + std::ops::Mul<Output = Self>
    + std::ops::Div<Output = Self>
    + std::ops::SubAssign
    + std::ops::Neg<Output = Self>
{
    const ZERO: Self;
    const ONE: Self;
    /// The pivot's size: |x| for reals, |re| + |im| for complex (LAPACK's izamax).
    fn size(self) -> f64;
    /// |x|.
    fn abs(self) -> f64;
    /// x / |x| (the unit factor a pivot contributes to the determinant's sign).
    fn unit(self) -> Self;
    fn is_nan(self) -> bool;
}

impl Field for f64 {
    const ZERO: f64 = 0.0;
    const ONE: f64 = 1.0;
    fn size(self) -> f64 {
        self.abs()
    }
    fn abs(self) -> f64 {
        f64::abs(self)
    }
    fn unit(self) -> f64 {
        if self.is_nan() {
            self
        } else {
            self.signum()
        }
    }
    fn is_nan(self) -> bool {
        f64::is_nan(self)
    }
}

impl Field for Complex<f64> {
    const ZERO: Self = Complex::new(0.0, 0.0);
    const ONE: Self = Complex::new(1.0, 0.0);
    fn size(self) -> f64 {
        self.re.abs() + self.im.abs()
    }
    fn abs(self) -> f64 {
        self.norm()
    }
    fn unit(self) -> Self {
        self / self.norm()
    }
    fn is_nan(self) -> bool {
        self.re.is_nan() || self.im.is_nan()
    }
}

/// The LU factors of an n x n matrix with partial pivoting, P·A = L·U: `lu` holds U on
/// and above the diagonal and L's multipliers below it (L's diagonal is 1); row i of
/// P·A is row `perm[i]` of A.
pub struct Lu<T> {
    pub n: usize,
    pub lu: Vec<T>,
    pub perm: Vec<usize>,
    /// The permutation's sign (−1 for an odd number of row swaps).
    pub sign: f64,
    /// The first column (0-based) without a non-zero pivot, when A is singular.
    pub singular: Option<usize>,
}

/// Factors `a` (n x n, row-major). The largest |entry| on or below the diagonal is the
/// pivot (the first of equals; NaN never wins, as in LAPACK's idamax). A zero pivot
/// column is skipped (left as is) and recorded, and factoring goes on, as getrf does.
pub fn lu<T: Field>(mut a: Vec<T>, n: usize) -> Lu<T> {
    debug_assert_eq!(a.len(), n * n);
    let mut perm: Vec<usize> = (0..n).collect();
    let mut sign = 1.0;
    let mut singular = None;
    for k in 0..n {
        let mut p = k;
        let mut best = a[k * n + k].size();
        for i in k + 1..n {
            let v = a[i * n + k].size();
            if v > best || (best.is_nan() && !v.is_nan()) {
                best = v;
                p = i;
            }
        }
        if p != k {
            for j in 0..n {
                a.swap(k * n + j, p * n + j);
            }
            perm.swap(k, p);
            sign = -sign;
        }
        let pivot = a[k * n + k];
        if pivot == T::ZERO {
            singular.get_or_insert(k);
            continue;
        }
        for i in k + 1..n {
            let m = a[i * n + k] / pivot;
            a[i * n + k] = m;
            if m != T::ZERO {
                for j in k + 1..n {
                    let u = a[k * n + j];
                    a[i * n + j] -= m * u;
                }
            }
        }
    }
    Lu {
        n,
        lu: a,
        perm,
        sign,
        singular,
    }
}

impl<T: Field> Lu<T> {
    /// sign(det A) (det/|det|: ±1 for reals) and log|det A| (0 and −inf when singular), as
    /// torch.linalg.slogdet: the product of the pivots' unit factors and the sum of the
    /// logs of their sizes.
    pub fn slogdet(&self) -> (T, f64) {
        let n = self.n;
        let mut sign = if self.sign < 0.0 { -T::ONE } else { T::ONE };
        let mut log = 0.0;
        for k in 0..n {
            let u = self.lu[k * n + k];
            if u == T::ZERO {
                return (T::ZERO, f64::NEG_INFINITY);
            }
            sign = sign * u.unit();
            log += u.abs().ln();
        }
        (sign, log)
    }

    /// A⁻¹ (row-major), or the first zero pivot's column when A is singular: solves
    /// L·U·X = P column by column.
    pub fn inverse(&self) -> Result<Vec<T>, usize> {
        if let Some(k) = self.singular {
            return Err(k);
        }
        let n = self.n;
        let a = &self.lu;
        let mut x = vec![T::ZERO; n * n];
        let mut col = vec![T::ZERO; n];
        for c in 0..n {
            // Column c of P: 1 where perm[i] == c.
            for (i, v) in col.iter_mut().enumerate() {
                *v = if self.perm[i] == c { T::ONE } else { T::ZERO };
            }
            for i in 0..n {
                let mut s = col[i];
                for j in 0..i {
                    let l = a[i * n + j];
                    s -= l * col[j];
                }
                col[i] = s;
            }
            for i in (0..n).rev() {
                let mut s = col[i];
                for j in i + 1..n {
                    let u = a[i * n + j];
                    s -= u * col[j];
                }
                col[i] = s / a[i * n + i];
            }
            for i in 0..n {
                x[i * n + c] = col[i];
            }
        }
        Ok(x)
    }
}

/// The lower Cholesky factor L of a (n x n, row-major, only its lower triangle read),
/// A = L·Lᵀ, row-major with zeros above the diagonal; or the order k (1-based) of the
/// first leading minor that is not positive-definite (a pivot ≤ 0 or NaN).
pub fn cholesky(a: &[f64], n: usize) -> Result<Vec<f64>, usize> {
    let mut l = vec![0.0; n * n];
    for j in 0..n {
        let mut d = a[j * n + j];
        for k in 0..j {
            d -= l[j * n + k] * l[j * n + k];
        }
        if !(d > 0.0) {
            return Err(j + 1);
        }
        let d = d.sqrt();
        l[j * n + j] = d;
        for i in j + 1..n {
            let mut s = a[i * n + j];
            for k in 0..j {
                s -= l[i * n + k] * l[j * n + k];
            }
            l[i * n + j] = s / d;
        }
    }
    Ok(l)
}

/// The Householder QR of a (m x n, row-major) as LAPACK's geqr2 and org2r give it (the
/// factors torch.linalg.qr returns): reflectors H_k = I − τ·v·vᵀ with v_k = 1, β =
/// −sign(α)·‖x‖ (so R's diagonal may be negative), τ = 0 when the column below the
/// diagonal is already zero. Returns Q (m x `q_cols`, the first q_cols columns of
/// H_1·…·H_k; None when q_cols is None) and R (`r_rows` x n: the upper triangle of the
/// reduced matrix, zeros below; r_rows is min(m, n) or m).
pub fn qr(
    a: &[f64],
    m: usize,
    n: usize,
    q_cols: Option<usize>,
    r_rows: usize,
) -> (Option<Vec<f64>>, Vec<f64>) {
    let mut a = a.to_vec();
    let k = m.min(n);
    let mut tau = vec![0.0; k];
    for j in 0..k {
        let alpha = a[j * n + j];
        let mut xnorm = 0.0f64;
        for i in j + 1..m {
            xnorm = xnorm.hypot(a[i * n + j]);
        }
        if xnorm == 0.0 {
            continue;
        }
        let beta = -alpha.hypot(xnorm).copysign(alpha);
        tau[j] = (beta - alpha) / beta;
        let scale = 1.0 / (alpha - beta);
        for i in j + 1..m {
            a[i * n + j] *= scale;
        }
        a[j * n + j] = beta;
        // Apply H_j to the columns right of j.
        for c in j + 1..n {
            let mut w = a[j * n + c];
            for i in j + 1..m {
                w += a[i * n + j] * a[i * n + c];
            }
            if w == 0.0 {
                continue;
            }
            let tw = tau[j] * w;
            a[j * n + c] -= tw;
            for i in j + 1..m {
                a[i * n + c] -= tw * a[i * n + j];
            }
        }
    }
    let q = q_cols.map(|qc| {
        let mut q = vec![0.0; m * qc];
        for i in 0..m.min(qc) {
            q[i * qc + i] = 1.0;
        }
        for j in (0..k).rev() {
            if tau[j] == 0.0 {
                continue;
            }
            for c in 0..qc {
                let mut w = q[j * qc + c];
                for i in j + 1..m {
                    w += a[i * n + j] * q[i * qc + c];
                }
                if w == 0.0 {
                    continue;
                }
                let tw = tau[j] * w;
                q[j * qc + c] -= tw;
                for i in j + 1..m {
                    q[i * qc + c] -= tw * a[i * n + j];
                }
            }
        }
        q
    });
    let mut r = vec![0.0; r_rows * n];
    for i in 0..r_rows.min(m) {
        for c in i..n {
            r[i * n + c] = a[i * n + c];
        }
    }
    (q, r)
}

/// The SVD of a (m x n, row-major) by one-sided (Hestenes) Jacobi rotations in f64, on
/// aᵀ when m < n: (σ descending (min(m, n)), U m x (m if full else k), V n x (n if full
/// else k)), both row-major, a = U·diag(σ)·Vᵀ. Columns of U or V for zero (or, at
/// rounding level, negligible) singular values and the extra columns of full matrices
/// complete an orthonormal basis (Gram–Schmidt on the unit vectors). Signs of singular
/// vectors are this routine's own (they are unique only up to sign).
pub fn svd(a: &[f64], m: usize, n: usize, full: bool) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    if m < n {
        // aᵀ = V·diag(σ)·Uᵀ.
        let mut t = vec![0.0; m * n];
        for i in 0..m {
            for j in 0..n {
                t[j * m + i] = a[i * n + j];
            }
        }
        let (s, u, v) = svd(&t, n, m, full);
        return (s, v, u);
    }
    // m ≥ n: columns of w (stored column-major: w[j] is column j) rotated until orthogonal.
    let k = n;
    let mut w: Vec<Vec<f64>> = (0..n)
        .map(|j| (0..m).map(|i| a[i * n + j]).collect())
        .collect();
    let mut v: Vec<Vec<f64>> = (0..n)
        .map(|j| (0..n).map(|i| if i == j { 1.0 } else { 0.0 }).collect())
        .collect();
    let dot = |x: &[f64], y: &[f64]| x.iter().zip(y).map(|(a, b)| a * b).sum::<f64>();
    for _sweep in 0..60 {
        let mut rotated = false;
        for p in 0..n {
            for q in p + 1..n {
                let alpha = dot(&w[p], &w[p]);
                let beta = dot(&w[q], &w[q]);
                let gamma = dot(&w[p], &w[q]);
                if gamma == 0.0 || gamma.abs() <= f64::EPSILON * (alpha * beta).sqrt() {
                    continue;
                }
                rotated = true;
                let zeta = (beta - alpha) / (2.0 * gamma);
                let t = zeta.signum() / (zeta.abs() + (1.0 + zeta * zeta).sqrt());
                let c = 1.0 / (1.0 + t * t).sqrt();
                let s = c * t;
                for x in [&mut w, &mut v] {
                    let (lo, hi) = x.split_at_mut(q);
                    for (a, b) in lo[p].iter_mut().zip(hi[0].iter_mut()) {
                        let (xp, xq) = (*a, *b);
                        *a = c * xp - s * xq;
                        *b = s * xp + c * xq;
                    }
                }
            }
        }
        if !rotated {
            break;
        }
    }
    let norms: Vec<f64> = w.iter().map(|c| dot(c, c).sqrt()).collect();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&x, &y| norms[y].total_cmp(&norms[x]));
    let sigma: Vec<f64> = order.iter().map(|&j| norms[j]).collect();
    let smax = sigma.first().copied().unwrap_or(0.0);
    let tiny = smax * f64::EPSILON * (m.max(n) as f64);
    let ucols = if full { m } else { k };
    let vcols = if full { n } else { k };
    // Columns of U: w_j / σ_j where σ_j is not negligible, completed to an orthonormal set.
    let mut ub: Vec<Option<Vec<f64>>> = order
        .iter()
        .map(|&j| {
            let sj = norms[j];
            (sj > tiny && sj > 0.0).then(|| w[j].iter().map(|x| x / sj).collect())
        })
        .collect();
    ub.resize(ucols, None);
    let u = complete(ub, m);
    let vb: Vec<Option<Vec<f64>>> = order.iter().map(|&j| Some(v[j].clone())).collect();
    let vfull = complete(vb, n);
    let mut ur = vec![0.0; m * ucols];
    for (c, col) in u.iter().enumerate() {
        for i in 0..m {
            ur[i * ucols + c] = col[i];
        }
    }
    let mut vr = vec![0.0; n * vcols];
    for (c, col) in vfull.iter().take(vcols).enumerate() {
        for i in 0..n {
            vr[i * vcols + c] = col[i];
        }
    }
    (sigma, ur, vr)
}

/// Fills the None columns (length `len`) so that all are orthonormal: each the first unit
/// vector whose component orthogonal to the columns so far (Gram–Schmidt, twice) is
/// largest.
fn complete(mut cols: Vec<Option<Vec<f64>>>, len: usize) -> Vec<Vec<f64>> {
    let dot = |x: &[f64], y: &[f64]| x.iter().zip(y).map(|(a, b)| a * b).sum::<f64>();
    for c in 0..cols.len() {
        if cols[c].is_some() {
            continue;
        }
        let known: Vec<Vec<f64>> = cols.iter().flatten().cloned().collect();
        let mut best: Option<(f64, Vec<f64>)> = None;
        for e in 0..len {
            let mut x = vec![0.0; len];
            x[e] = 1.0;
            for _ in 0..2 {
                for b in &known {
                    let d = dot(&x, b);
                    for (xi, bi) in x.iter_mut().zip(b) {
                        *xi -= d * bi;
                    }
                }
            }
            let nx = dot(&x, &x).sqrt();
            if best.as_ref().map_or(true, |b| nx > b.0) {
                best = Some((nx, x));
            }
        }
        let (nx, x) = best.unwrap_or((1.0, vec![]));
        cols[c] = Some(x.iter().map(|v| v / nx).collect());
    }
    cols.into_iter().flatten().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linalg_engine_small_cases() {
        // [[0, 2], [3, 4]]: one swap, det = −6.
        let f = lu(vec![0.0, 2.0, 3.0, 4.0], 2);
        assert_eq!(f.slogdet(), (-1.0, 6f64.ln()));
        let inv = f.inverse().unwrap();
        let want = [-4.0 / 6.0, 2.0 / 6.0, 0.5, 0.0];
        for (g, w) in inv.iter().zip(want) {
            assert!((g - w).abs() < 1e-15, "{inv:?}");
        }
        let s = lu(vec![1.0, 2.0, 2.0, 4.0], 2);
        assert_eq!(s.singular, Some(1));
        assert_eq!(s.slogdet(), (0.0, f64::NEG_INFINITY));
        assert_eq!(s.inverse(), Err(1));
        assert_eq!(
            cholesky(&[4.0, 0.0, 2.0, 5.0], 2),
            Ok(vec![2.0, 0.0, 1.0, 2.0])
        );
        assert_eq!(cholesky(&[1.0, 0.0, 2.0, 1.0], 2), Err(2));
        assert_eq!(lu::<f64>(vec![], 0).slogdet(), (1.0, 0.0));
        // [[i, 0], [0, 2]]: det 2i, sign i, log 2.
        let c = |re, im| Complex::new(re, im);
        let z = lu(vec![c(0.0, 1.0), c(0.0, 0.0), c(0.0, 0.0), c(2.0, 0.0)], 2);
        assert_eq!(z.slogdet(), (c(0.0, 1.0), 2f64.ln()));
        let zi = z.inverse().unwrap();
        // torch.linalg.qr([[1, 2], [3, 4]]): Q = [[-0.3162, -0.9487], [-0.9487, 0.3162]],
        // R = [[-3.1623, -4.4272], [0, -0.6325]].
        let (q, r) = qr(&[1.0, 2.0, 3.0, 4.0], 2, 2, Some(2), 2);
        let q = q.unwrap();
        let s10 = 10f64.sqrt();
        for (g, w) in q
            .iter()
            .zip([-1.0 / s10, -3.0 / s10, -3.0 / s10, 1.0 / s10])
        {
            assert!((g - w).abs() < 1e-15, "{q:?}");
        }
        for (g, w) in r.iter().zip([-s10, -14.0 / s10, 0.0, -2.0 / s10]) {
            assert!((g - w).abs() < 1e-14, "{r:?}");
        }
        assert_eq!(
            zi,
            vec![c(0.0, -1.0), c(0.0, 0.0), c(0.0, 0.0), c(0.5, 0.0)]
        );
    }
}
