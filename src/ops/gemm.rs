//! The matrix-product backend Matmul (and its family) and Convolution share:
//! `dst = scale*dst + alpha * (lhs @ rhs)` over strided f32/f64 matrices.
//!
//! On x86-64 with AVX2 and FMA a large product runs on `private-gemm-x86` (the kernels
//! `faer` uses), which measured 1.25-1.4x the `gemm` crate's speed on this project's 2-core
//! benchmark machine and about OpenBLAS's. Small products (see `X86_MIN_WORK`), other CPUs
//! and other architectures run on the `gemm` crate. Both take arbitrary strides, so transposed views need no copy.

/// An element type the products compute in.
pub trait Real: Copy + PartialEq + std::ops::Mul<Output = Self> + 'static {
    const ZERO: Self;
    const ONE: Self;
    #[cfg(target_arch = "x86_64")]
    const X86: private_gemm_x86::DType;
    fn of(v: f64) -> Self;
}

impl Real for f32 {
    const ZERO: Self = 0.0;
    const ONE: Self = 1.0;
    #[cfg(target_arch = "x86_64")]
    const X86: private_gemm_x86::DType = private_gemm_x86::DType::F32;
    fn of(v: f64) -> Self {
        v as f32
    }
}

impl Real for f64 {
    const ZERO: Self = 0.0;
    const ONE: Self = 1.0;
    #[cfg(target_arch = "x86_64")]
    const X86: private_gemm_x86::DType = private_gemm_x86::DType::F64;
    fn of(v: f64) -> Self {
        v
    }
}

/// A strided matrix operand: its first element and its row and column strides (elements).
#[derive(Clone, Copy)]
pub struct Mat<P> {
    pub ptr: P,
    pub rs: isize,
    pub cs: isize,
}

/// Products of at least this many multiply-adds (m*n*k) use the x86-64 kernels. Measured
/// here (f32, square): the gemm crate is as fast or faster up to 192^3 (its per-call cost is
/// lower; batches of 64^3 and 128^3 products ran 10-20% slower on the x86 kernels), the x86
/// kernels 10-15% faster from 256^3 and 1.3x at 1024^3 and above.
const X86_MIN_WORK: usize = 1 << 23;

/// Whether the x86-64 kernels can run here (AVX2 and FMA; checked once).
#[cfg(target_arch = "x86_64")]
fn x86_kernels() -> bool {
    use std::sync::OnceLock;
    static OK: OnceLock<bool> = OnceLock::new();
    *OK.get_or_init(|| is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma"))
}

/// One product `dst (m x n) = scale*dst + alpha * lhs (m x k) @ rhs (k x n)`, where `scale`
/// None means dst is overwritten and not read (a NaN there does not leak), as does a scale
/// of 0. `threads` > 1 splits it over that many threads of the rayon pool it runs in
/// (callers run it inside the compute pool).
#[derive(Clone, Copy)]
pub struct Product<T> {
    pub m: usize,
    pub n: usize,
    pub k: usize,
    pub dst: Mat<*mut T>,
    pub scale: Option<T>,
    pub lhs: Mat<*const T>,
    pub rhs: Mat<*const T>,
    pub alpha: T,
    pub threads: usize,
}

impl<T: Real> Product<T> {
    /// Computes the product on the backend that suits it.
    ///
    /// # Safety
    /// Every matrix must be valid for its shape and strides (dst writable, not overlapping
    /// the inputs).
    pub unsafe fn run(&self) {
        #[cfg(target_arch = "x86_64")]
        if self.m.saturating_mul(self.n).saturating_mul(self.k) >= X86_MIN_WORK && x86_kernels() {
            // SAFETY: forwarded.
            return unsafe { self.x86() };
        }
        // SAFETY: forwarded.
        unsafe { self.portable() }
    }

    /// Every element of dst set to `f(old value)`.
    ///
    /// # Safety
    /// As `run`.
    unsafe fn each(&self, f: impl Fn(T) -> T) {
        let dst = &self.dst;
        for i in 0..self.m as isize {
            for j in 0..self.n as isize {
                // SAFETY: (i, j) is inside dst.
                unsafe {
                    let p = dst.ptr.offset(i * dst.rs + j * dst.cs);
                    *p = f(*p);
                }
            }
        }
    }

    /// On private-gemm-x86 (AVX2 + FMA).
    ///
    /// # Safety
    /// As `run`.
    #[cfg(target_arch = "x86_64")]
    unsafe fn x86(&self) {
        use private_gemm_x86::{Accum, DstKind, IType, InstrSet};
        let scale = self.scale.filter(|s| *s != T::ZERO);
        if self.m == 0 || self.n == 0 {
            return;
        }
        // These kernels add to dst or replace it without scaling it: scale it first. An
        // empty product (k = 0) leaves scale*dst, or zeros.
        match scale {
            Some(s) if s != T::ONE => unsafe { self.each(|v| s * v) },
            None if self.k == 0 => unsafe { self.each(|_| T::ZERO) },
            _ => {}
        }
        if self.k == 0 {
            return;
        }
        let beta = if scale.is_some() {
            Accum::Add
        } else {
            Accum::Replace
        };
        let (dst, lhs, rhs) = (&self.dst, &self.lhs, &self.rhs);
        // SAFETY: forwarded from `run`'s contract; no row/column index lists, no diagonal.
        unsafe {
            private_gemm_x86::gemm(
                T::X86,
                IType::U64,
                InstrSet::Avx256,
                self.m,
                self.n,
                self.k,
                dst.ptr as *mut (),
                dst.rs,
                dst.cs,
                std::ptr::null(),
                std::ptr::null(),
                DstKind::Full,
                beta,
                lhs.ptr as *const (),
                lhs.rs,
                lhs.cs,
                false,
                std::ptr::null(),
                0,
                rhs.ptr as *const (),
                rhs.rs,
                rhs.cs,
                false,
                &raw const self.alpha as *const (),
                self.threads.max(1),
            )
        }
    }

    /// On the gemm crate (any CPU).
    ///
    /// # Safety
    /// As `run`.
    unsafe fn portable(&self) {
        let scale = self.scale.filter(|s| *s != T::ZERO);
        let par = if self.threads > 1 {
            gemm::Parallelism::Rayon(self.threads)
        } else {
            gemm::Parallelism::None
        };
        let (dst, lhs, rhs) = (&self.dst, &self.lhs, &self.rhs);
        // SAFETY: forwarded from `run`'s contract.
        unsafe {
            gemm::gemm::<T>(
                self.m,
                self.n,
                self.k,
                dst.ptr,
                dst.cs,
                dst.rs,
                scale.is_some(),
                lhs.ptr,
                lhs.cs,
                lhs.rs,
                rhs.ptr,
                rhs.cs,
                rhs.rs,
                scale.unwrap_or(T::ZERO),
                self.alpha,
                false,
                false,
                false,
                par,
            )
        }
    }
}

/// A product described by addresses and f64 factors, for `product_in`.
pub struct ByAddress {
    pub m: usize,
    pub n: usize,
    pub k: usize,
    pub dst: Mat<usize>,
    pub scale: Option<f64>,
    pub lhs: Mat<usize>,
    pub rhs: Mat<usize>,
    pub alpha: f64,
    pub threads: usize,
}

impl ByAddress {
    /// The product in `T`.
    fn typed<T: Real>(&self) -> Product<T> {
        let input = |x: &Mat<usize>| Mat {
            ptr: x.ptr as *const T,
            rs: x.rs,
            cs: x.cs,
        };
        Product {
            m: self.m,
            n: self.n,
            k: self.k,
            dst: Mat {
                ptr: self.dst.ptr as *mut T,
                rs: self.dst.rs,
                cs: self.dst.cs,
            },
            scale: self.scale.map(T::of),
            lhs: input(&self.lhs),
            rhs: input(&self.rhs),
            alpha: T::of(self.alpha),
            threads: self.threads,
        }
    }
}

/// `p` computed in `dtype` (f64, else f32).
///
/// # Safety
/// As `Product::run`.
pub unsafe fn product_in(dtype: crate::dtype::DType, p: &ByAddress) {
    // SAFETY (both): forwarded.
    if dtype == crate::dtype::DType::F64 {
        unsafe { p.typed::<f64>().run() }
    } else {
        unsafe { p.typed::<f32>().run() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The product, sent into the compute pool.
    struct Job<T>(Product<T>);
    impl<T> Job<T> {
        fn product(&self) -> &Product<T> {
            &self.0
        }
    }
    // SAFETY: the test's vectors outlive the pool call, which is the only user.
    unsafe impl<T> Send for Job<T> {}
    unsafe impl<T> Sync for Job<T> {}

    /// Uniform [0, 1) values from a fixed seed.
    struct Lcg(u64);
    impl Lcg {
        fn f64(&mut self) -> f64 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (self.0 >> 11) as f64 / (1u64 << 53) as f64
        }
    }

    /// A rows x cols matrix stored row-major, or column-major when `transposed`.
    fn stored<T>(ptr: *const T, rows: usize, cols: usize, transposed: bool) -> Mat<*const T> {
        let (rs, cs) = if transposed { (1, rows) } else { (cols, 1) };
        Mat {
            ptr,
            rs: rs as isize,
            cs: cs as isize,
        }
    }

    /// One backend against a plain f64 loop: strided and transposed operands, dst kept
    /// (scale 1), scaled (2.5), overwritten (None) or scale 0 with NaN in dst (not read),
    /// empty k, one and two threads. f32 within k ulps-ish of the f64 result, f64 closer.
    fn check_backend<T: Real + Into<f64>>(
        name: &str,
        run: unsafe fn(&Product<T>),
        from: fn(f64) -> T,
        tol: f64,
    ) {
        let mut rng = Lcg(7);
        for &(m, n, k) in &[
            (1, 1, 1),
            (3, 5, 0),
            (7, 9, 13),
            (33, 17, 65),
            (130, 70, 200),
        ] {
            for &(lt, rt) in &[(false, false), (true, false), (false, true), (true, true)] {
                for scale in [None, Some(0.0), Some(1.0), Some(2.5)] {
                    for threads in [1, 2] {
                        let a: Vec<T> = (0..m * k).map(|_| from(rng.f64() - 0.5)).collect();
                        let b: Vec<T> = (0..k * n).map(|_| from(rng.f64() - 0.5)).collect();
                        // dst with a row pitch wider than n; NaN where it must not be read.
                        let pitch = n + 3;
                        let fill = |_| {
                            if matches!(scale, None | Some(0.0)) {
                                f64::NAN
                            } else {
                                rng.f64()
                            }
                        };
                        let d0: Vec<f64> = (0..m * pitch).map(fill).collect();
                        let mut d: Vec<T> = d0.iter().map(|&v| from(v)).collect();
                        let lm = stored(a.as_ptr(), m, k, lt);
                        let rm = stored(b.as_ptr(), k, n, rt);
                        let dm = Mat {
                            ptr: d.as_mut_ptr(),
                            rs: pitch as isize,
                            cs: 1,
                        };
                        let alpha = 0.75;
                        let job = Job(Product {
                            m,
                            n,
                            k,
                            dst: dm,
                            scale: scale.map(from),
                            lhs: lm,
                            rhs: rm,
                            alpha: from(alpha),
                            threads,
                        });
                        // SAFETY: the matrices are the vectors above.
                        crate::engine::pool().install(|| unsafe { run(job.product()) });
                        let at = |mm: &Mat<*const T>, i: usize, j: usize| -> f64 {
                            unsafe {
                                (*mm.ptr.offset(i as isize * mm.rs + j as isize * mm.cs)).into()
                            }
                        };
                        for i in 0..m {
                            for j in 0..n {
                                let dot: f64 = (0..k).map(|p| at(&lm, i, p) * at(&rm, p, j)).sum();
                                let mut want = alpha * dot;
                                if let Some(s) = scale.filter(|s| *s != 0.0) {
                                    want += s * d0[i * pitch + j];
                                }
                                let got: f64 = d[i * pitch + j].into();
                                assert!(
                                    (got - want).abs() <= tol * (1.0 + k as f64),
                                    "{name}: {m}x{n}x{k} lhsT {lt} rhsT {rt} scale {scale:?} threads {threads}: \
                                     dst[{i}][{j}] = {got}, want {want}"
                                );
                            }
                            for j in n..pitch {
                                assert!(
                                    d[i * pitch + j] == from(d0[i * pitch + j])
                                        || d0[i * pitch + j].is_nan(),
                                    "{name}: padding written"
                                );
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn both_gemm_backends_match_a_plain_loop() {
        check_backend::<f32>("portable f32", Product::<f32>::portable, |v| v as f32, 1e-6);
        check_backend::<f64>("portable f64", Product::<f64>::portable, |v| v, 1e-13);
        #[cfg(target_arch = "x86_64")]
        if x86_kernels() {
            check_backend::<f32>("x86 f32", Product::<f32>::x86, |v| v as f32, 1e-6);
            check_backend::<f64>("x86 f64", Product::<f64>::x86, |v| v, 1e-13);
        }
    }
}
