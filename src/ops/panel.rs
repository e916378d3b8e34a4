//! The panel product: `dst (m x n) = alpha * lhs (m x k) @ W (k x n)`, plus `scale * dst`
//! when asked, where the weight W is not f32 in memory: the f16/bf16 weights of Mm and its
//! family, the int8/int4 weights of WeightQuantBatchMatmul, dequantized as that operator
//! defines. W is converted one panel of columns at a time into the f32 buffer of the thread
//! that owns the panel, and the product reads the panel while it is still in that core's
//! cache. So W is read from memory once, in its own dtype (half or a quarter of the f32
//! bytes), no workspace holds a converted copy of it, and conversion runs in parallel with
//! the arithmetic.
//!
//! This is what decoding an LLM spends its time on (m = 1: a matrix-vector product, bound
//! by the bytes of W read), so for small m the products are dot products (or row updates)
//! over the panel, compiled for AVX2 where the CPU has it; larger m run the GEMM backend
//! (`gemm::Product`, one thread per panel).
//!
//! Numbers: every product accumulates in f32, as the GEMM does; the order of the additions
//! differs from the GEMM's (eight or sixteen partial sums), within the same k·2^-24 bound.

use super::gemm::{Mat, Product};
use crate::engine::pool;

/// How a panel of `w` columns lies in its f32 buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// Column c of the panel is `buf[c*k .. c*k + k]` (for a weight whose columns are
    /// contiguous in memory: a transposed view of (n, k) storage).
    Columns,
    /// Row p of the panel is `buf[p*w .. p*w + w]` (for a row-major (k, n) weight).
    Rows,
}

impl Layout {
    /// The layout that reads a weight of (row, column) element strides in memory order.
    pub fn for_strides(rs: isize, cs: isize) -> Layout {
        if rs.unsigned_abs() <= cs.unsigned_abs() {
            Layout::Columns
        } else {
            Layout::Rows
        }
    }
}

/// Fills a panel: `fill(j0, w, buf)` writes columns `j0 .. j0 + w` of W (all k rows) into
/// `buf` (k*w values) in the product's `layout`.
pub type Fill<'a> = dyn Fn(usize, usize, &mut [f32]) + Sync + 'a;

/// Dot products read straight from W's memory, for small m: `direct(x, j0, sums)` sets
/// `sums[c] = Σ_p x[p]·W[p][j0 + c]` (x one row of lhs, k values), with the same bits the
/// Columns panel `fill` followed by the dot kernel gives, but no panel written and read.
pub type Direct<'a> = dyn Fn(&[f32], usize, &mut [f32]) + Sync + 'a;

/// At most this many rows of lhs use the dot-product kernels; more use the GEMM.
const SMALL_M: usize = 8;
/// A panel's f32 bytes, at most (it stays in a core's L2 while it is used).
const PANEL_BYTES: usize = 256 << 10;

/// One panel product.
pub struct PanelProduct<'a> {
    pub m: usize,
    pub n: usize,
    pub k: usize,
    /// lhs (m x k), f32, any strides.
    pub lhs: Mat<*const f32>,
    /// dst (m x n), f32, any strides, not overlapping lhs or W.
    pub dst: Mat<*mut f32>,
    /// None (or 0): dst is overwritten and not read.
    pub scale: Option<f32>,
    pub alpha: f32,
    pub layout: Layout,
    pub fill: &'a Fill<'a>,
    /// Used instead of `fill` while m is small, where given (Columns layout only).
    pub direct: Option<&'a Direct<'a>>,
}

/// Raw pointers of the product, shared by the pool's threads: each thread writes only the
/// columns of its own panels.
struct Shared<'p, 'a>(&'p PanelProduct<'a>, *const f32);
// SAFETY: see the struct comment; lhs is only read.
unsafe impl Send for Shared<'_, '_> {}
unsafe impl Sync for Shared<'_, '_> {}

impl PanelProduct<'_> {
    /// Columns per panel for this product run on `threads` threads.
    fn width(&self, threads: usize) -> usize {
        if self.m > SMALL_M {
            // The GEMM packs its operands itself, and wide panels cost it less per column:
            // two panels a thread, 64 to 512 columns.
            return self.n.div_ceil(2 * threads).clamp(64, 512).min(self.n);
        }
        if self.direct.is_some() {
            // No panel buffer: wide enough that each pass over a k block reads a long
            // contiguous stretch (FRACTAL_NZ), at most the 256 sums of one pass.
            return self.n.div_ceil(4 * threads).clamp(8, 256).min(self.n);
        }
        let fits = (PANEL_BYTES / 4 / self.k.max(1)).max(8);
        // At least four panels a thread, so threads finishing early take more.
        let spread = self.n.div_ceil(4 * threads).max(8);
        fits.min(spread).min(self.n).max(1)
    }

    /// Computes the product in the compute pool.
    ///
    /// # Safety
    /// lhs and dst must be valid for their shapes and strides; dst must not overlap lhs
    /// or the memory `fill` reads.
    pub unsafe fn run(&self) {
        let (m, n, k) = (self.m, self.n, self.k);
        if m == 0 || n == 0 {
            return;
        }
        // Rows of lhs contiguous, so each dot product reads two contiguous runs.
        let packed: Vec<f32>;
        let lhs = if self.lhs.cs == 1 && self.lhs.rs == k as isize || k == 0 {
            self.lhs.ptr
        } else {
            packed = (0..m * k)
                .map(|e| {
                    let (i, p) = ((e / k) as isize, (e % k) as isize);
                    // SAFETY: (i, p) is inside lhs.
                    unsafe { *self.lhs.ptr.offset(i * self.lhs.rs + p * self.lhs.cs) }
                })
                .collect();
            packed.as_ptr()
        };
        let shared = Shared(self, lhs);
        let shared = &shared;
        pool().install(move || {
            use rayon::prelude::*;
            let this = shared.0;
            let w = this.width(pool().current_num_threads());
            (0..n.div_ceil(w)).into_par_iter().for_each_init(
                Vec::new,
                |buf: &mut Vec<f32>, panel| {
                    let j0 = panel * w;
                    let wb = w.min(n - j0);
                    if shared.0.direct.is_some() && m <= SMALL_M {
                        // SAFETY: as below; no panel is filled.
                        return unsafe { shared.0.panel(shared.1, j0, wb, &[]) };
                    }
                    buf.resize(k * wb, 0.0);
                    let buf = &mut buf[..k * wb];
                    if k > 0 {
                        (shared.0.fill)(j0, wb, buf);
                    }
                    // SAFETY: forwarded from `run`; this panel's columns of dst are this
                    // thread's alone.
                    unsafe { shared.0.panel(shared.1, j0, wb, buf) };
                },
            );
        });
    }

    /// dst's columns `j0 .. j0 + wb` from the filled panel `buf`.
    ///
    /// # Safety
    /// As `run`; `lhs` holds m contiguous rows of k.
    unsafe fn panel(&self, lhs: *const f32, j0: usize, wb: usize, buf: &[f32]) {
        let (m, k) = (self.m, self.k);
        let scale = self.scale.filter(|s| *s != 0.0);
        let dst = &self.dst;
        if m > SMALL_M {
            let (rs, cs) = match self.layout {
                Layout::Columns => (1, k as isize),
                Layout::Rows => (wb as isize, 1),
            };
            let p = Product::<f32> {
                m,
                n: wb,
                k,
                // SAFETY: column j0 of dst.
                dst: Mat {
                    ptr: unsafe { dst.ptr.offset(j0 as isize * dst.cs) },
                    rs: dst.rs,
                    cs: dst.cs,
                },
                scale,
                lhs: Mat {
                    ptr: lhs,
                    rs: k as isize,
                    cs: 1,
                },
                rhs: Mat {
                    ptr: buf.as_ptr(),
                    rs,
                    cs,
                },
                alpha: self.alpha,
                threads: 1,
            };
            // SAFETY: forwarded.
            return unsafe { p.run() };
        }
        let mut sums = [0f32; 256];
        for i in 0..m {
            // SAFETY: row i of the packed lhs.
            let x = unsafe { std::slice::from_raw_parts(lhs.add(i * k), k) };
            for c0 in (0..wb).step_by(sums.len()) {
                let cw = sums.len().min(wb - c0);
                let sums = &mut sums[..cw];
                match (self.direct, self.layout) {
                    (Some(direct), _) => direct(x, j0 + c0, sums),
                    (None, Layout::Columns) => {
                        for (c, s) in sums.iter_mut().enumerate() {
                            let col = &buf[(c0 + c) * k..(c0 + c + 1) * k];
                            *s = kernels::dot(x, col);
                        }
                    }
                    (None, Layout::Rows) => {
                        sums.fill(0.0);
                        for (p, &xp) in x.iter().enumerate() {
                            kernels::axpy(xp, &buf[p * wb + c0..p * wb + c0 + cw], sums);
                        }
                    }
                }
                for (c, s) in sums.iter().enumerate() {
                    let j = (j0 + c0 + c) as isize;
                    // SAFETY: (i, j) is inside dst.
                    unsafe {
                        let d = dst.ptr.offset(i as isize * dst.rs + j * dst.cs);
                        *d = match scale {
                            Some(sc) => self.alpha * s + sc * *d,
                            None => self.alpha * s,
                        };
                    }
                }
            }
        }
    }
}

/// The small-m kernels, compiled for AVX2 + FMA where the CPU has them (eight f32 lanes,
/// fused multiply-adds), else for the baseline x86-64 (and as they are elsewhere).
pub(crate) mod kernels {
    /// Lanes of partial sums: two AVX2 registers, so two multiply-adds are in flight.
    const LANES: usize = 16;

    #[inline(always)]
    fn dot_body(a: &[f32], b: &[f32]) -> f32 {
        let mut acc = [0f32; LANES];
        let chunks = a.len() / LANES;
        for c in 0..chunks {
            let (x, y) = (&a[c * LANES..][..LANES], &b[c * LANES..][..LANES]);
            for l in 0..LANES {
                acc[l] += x[l] * y[l];
            }
        }
        let mut tail = 0f32;
        for p in chunks * LANES..a.len() {
            tail += a[p] * b[p];
        }
        // Pairwise lane sum.
        let mut width = LANES;
        while width > 1 {
            width /= 2;
            for l in 0..width {
                acc[l] += acc[l + width];
            }
        }
        acc[0] + tail
    }

    #[inline(always)]
    fn axpy_body(s: f32, x: &[f32], y: &mut [f32]) {
        for (y, x) in y.iter_mut().zip(x) {
            *y += s * x;
        }
    }

    #[cfg(target_arch = "x86_64")]
    fn avx2() -> bool {
        use std::sync::OnceLock;
        static OK: OnceLock<bool> = OnceLock::new();
        *OK.get_or_init(|| {
            std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("fma")
        })
    }

    /// Σ a[p]·b[p] over equal-length slices.
    pub fn dot(a: &[f32], b: &[f32]) -> f32 {
        debug_assert_eq!(a.len(), b.len());
        #[cfg(target_arch = "x86_64")]
        {
            #[target_feature(enable = "avx2,fma")]
            unsafe fn fast(a: &[f32], b: &[f32]) -> f32 {
                dot_body(a, b)
            }
            if avx2() {
                // SAFETY: the CPU has the features the function is compiled for.
                return unsafe { fast(a, b) };
            }
        }
        dot_body(a, b)
    }

    /// y += s·x over equal-length slices.
    pub fn axpy(s: f32, x: &[f32], y: &mut [f32]) {
        #[cfg(target_arch = "x86_64")]
        {
            #[target_feature(enable = "avx2,fma")]
            unsafe fn fast(s: f32, x: &[f32], y: &mut [f32]) {
                axpy_body(s, x, y)
            }
            if avx2() {
                // SAFETY: the CPU has the features the function is compiled for.
                return unsafe { fast(s, x, y) };
            }
        }
        axpy_body(s, x, y)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Uniform [-0.5, 0.5) values from a fixed seed.
    fn values(seed: u64, n: usize) -> Vec<f32> {
        let mut s = seed;
        (0..n)
            .map(|_| {
                s = s
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                ((s >> 11) as f64 / (1u64 << 53) as f64 - 0.5) as f32
            })
            .collect()
    }

    /// Every path (dot, row update, GEMM; both layouts; strided lhs and dst; scale None,
    /// 0 over NaN, 1.5) against an f64 loop, within k·2^-23 of Σ|x·w|.
    #[test]
    fn panel_product_matches_an_f64_loop_on_every_path() {
        for &(m, n, k) in &[
            (1, 1, 1),
            (1, 300, 70),
            (3, 1000, 33),
            (8, 17, 300),
            (9, 130, 65),
            (40, 301, 129),
            (2, 5, 0),
        ] {
            for layout in [Layout::Columns, Layout::Rows] {
                for scale in [None, Some(0.0f32), Some(1.5)] {
                    let a = values(1, m * k);
                    let w = values(2, k * n); // W[p][j] at p*n + j
                    let fill = |j0: usize, wb: usize, buf: &mut [f32]| {
                        for p in 0..k {
                            for c in 0..wb {
                                let v = w[p * n + j0 + c];
                                match layout {
                                    Layout::Columns => buf[c * k + p] = v,
                                    Layout::Rows => buf[p * wb + c] = v,
                                }
                            }
                        }
                    };
                    // lhs transposed in memory (column-major), dst with a wider pitch.
                    let lhs_t: Vec<f32> = (0..m * k).map(|e| a[(e % m) * k + e / m]).collect();
                    let pitch = n + 2;
                    let old = values(3, m * pitch);
                    let mut d: Vec<f32> = old
                        .iter()
                        .map(|&v| {
                            if scale.is_some_and(|s| s != 0.0) {
                                v
                            } else {
                                f32::NAN
                            }
                        })
                        .collect();
                    let p = PanelProduct {
                        m,
                        n,
                        k,
                        lhs: Mat {
                            ptr: lhs_t.as_ptr(),
                            rs: 1,
                            cs: m as isize,
                        },
                        dst: Mat {
                            ptr: d.as_mut_ptr(),
                            rs: pitch as isize,
                            cs: 1,
                        },
                        scale,
                        alpha: 0.5,
                        layout,
                        fill: &fill,
                        direct: None,
                    };
                    // SAFETY: the matrices are the vectors above.
                    unsafe { p.run() };
                    for i in 0..m {
                        for j in 0..n {
                            let terms = (0..k).map(|q| a[i * k + q] as f64 * w[q * n + j] as f64);
                            let (sum, abs) =
                                terms.fold((0.0, 0.0), |(s, t), v| (s + v, t + v.abs()));
                            let mut want = 0.5 * sum;
                            if let Some(s) = scale.filter(|s| *s != 0.0) {
                                want += s as f64 * old[i * pitch + j] as f64;
                            }
                            let got = d[i * pitch + j] as f64;
                            let bound =
                                (k as f64 + 2.0) * f64::powi(2.0, -23) * (abs + want.abs() + 1e-30);
                            assert!(
                                (got - want).abs() <= bound,
                                "{m}x{n}x{k} {layout:?} scale {scale:?}: dst[{i}][{j}] = {got}, want {want}"
                            );
                        }
                        for j in n..pitch {
                            let (got, was) = (d[i * pitch + j], old[i * pitch + j]);
                            assert!(got == was || got.is_nan(), "padding written");
                        }
                    }
                }
            }
        }
    }
}
