//! Dot products read straight from a matmul weight in its own dtype: the `Direct` path of
//! the panel product (`panel.rs`) for small m, LLM decoding's matrix-vector products.
//! Instead of converting a panel of W's columns into f32 and then reading it back, each
//! kernel loads the weight's elements, widens (or dequantizes) them in registers and
//! multiplies them into the sums: W is read once and nothing else touches memory.
//!
//! Bits: each kernel adds in exactly the order of the panel's dot kernel (sixteen lanes,
//! lane l taking the elements p ≡ l (mod 16) of the first ⌊k/16⌋·16, then the lanes summed
//! pairwise, plus the rest summed in order), with separate multiplies and adds as that
//! kernel does, and widens or dequantizes each element to the same f32 the panel's fill
//! writes. So a product takes the same bits on either path (tests below check this).
//!
//! Four columns are summed at a time, sharing the loads of x. The kernels need AVX2 and
//! F16C (`available`); elsewhere the panel path runs.

/// Whether these kernels run: the CPU has AVX2 and F16C, and `ACLNN_CPU_WEIGHT_DOT` is not
/// `0` (which keeps the panel path, for comparing the two in one build: .ci/bench).
pub fn available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        use std::sync::OnceLock;
        static OK: OnceLock<bool> = OnceLock::new();
        *OK.get_or_init(|| {
            std::env::var("ACLNN_CPU_WEIGHT_DOT").as_deref() != Ok("0")
                && std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("f16c")
        })
    }
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// A weight of 16-bit floats whose columns hold their k values in runs of 16: element
/// (p, j) at `base + j·col_stride + (p / 16)·run_stride + p % 16` (elements). A transposed
/// row-major weight has col_stride = its row length and run_stride = 16; a FRACTAL_NZ
/// weight of 16 × 16 fractals (stored rows the columns) col_stride = 16 and run_stride =
/// 16 × its padded stored rows.
#[derive(Clone, Copy, Debug)]
pub struct HalfRuns {
    /// The address of element (0, 0).
    pub base: usize,
    pub bf16: bool,
    pub col_stride: isize,
    pub run_stride: isize,
}

/// `sums[c] = Σ_p x[p]·W[p][j0 + c]` for a [`HalfRuns`] weight.
///
/// # Safety
/// [`available`] is true; every element (p < x.len(), j0 ≤ j < j0 + sums.len()) is
/// readable.
pub unsafe fn half_runs(w: HalfRuns, x: &[f32], j0: usize, sums: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: forwarded.
    unsafe {
        x86::half_runs(w, x, j0, sums)
    }
    #[cfg(not(target_arch = "x86_64"))]
    unreachable!("weight_dot::available() is false here")
}

/// An int8 weight with contiguous columns (element (p, j) at `base + j·col_stride + p`),
/// dequantized as WeightQuantBatchMatmul does for an f16 x: `f16((w + shift) · scale)`,
/// rows p sharing a shift and scale in groups of `group` (a multiple of 8, or ≥ k).
#[derive(Clone, Copy, Debug)]
pub struct Int8Columns {
    /// The address of element (0, 0).
    pub base: usize,
    pub col_stride: isize,
    pub group: usize,
}

/// `sums[c] = Σ_p x[p]·dequantized W[p][j0 + c]`; `shifts` and `scales` hold each column's
/// groups, column c's at `[c·groups ..]` (groups = ⌈k / group⌉).
///
/// # Safety
/// As [`half_runs`]; the groups rule of [`Int8Columns`] holds.
pub unsafe fn int8_columns(
    w: Int8Columns,
    x: &[f32],
    j0: usize,
    shifts: &[f32],
    scales: &[f32],
    sums: &mut [f32],
) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: forwarded.
    unsafe {
        x86::int8_columns(w, x, j0, shifts, scales, sums)
    }
    #[cfg(not(target_arch = "x86_64"))]
    unreachable!("weight_dot::available() is false here")
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{HalfRuns, Int8Columns};
    use std::arch::x86_64::*;

    /// Columns summed at a time.
    const COLS: usize = 4;

    /// The panel dot kernel's lane sum: lanes l += l + 8, then + 4, + 2, + 1.
    #[inline(always)]
    unsafe fn lane_sum(lo: __m256, hi: __m256) -> f32 {
        let s8 = _mm256_add_ps(lo, hi);
        let s4 = _mm_add_ps(_mm256_castps256_ps128(s8), _mm256_extractf128_ps::<1>(s8));
        let s2 = _mm_add_ps(s4, _mm_movehl_ps(s4, s4));
        let s1 = _mm_add_ss(s2, _mm_shuffle_ps::<1>(s2, s2));
        _mm_cvtss_f32(s1)
    }

    /// Eight 16-bit floats at `p`, widened exactly.
    #[inline(always)]
    unsafe fn widen(p: *const u16, bf16: bool) -> __m256 {
        // SAFETY: the caller's eight elements.
        let raw = unsafe { _mm_loadu_si128(p as *const __m128i) };
        if bf16 {
            _mm256_castsi256_ps(_mm256_slli_epi32::<16>(_mm256_cvtepu16_epi32(raw)))
        } else {
            _mm256_cvtph_ps(raw)
        }
    }

    fn widen_one(v: u16, bf16: bool) -> f32 {
        if bf16 {
            f32::from_bits((v as u32) << 16)
        } else {
            half::f16::from_bits(v).to_f32()
        }
    }

    #[target_feature(enable = "avx2,f16c")]
    pub(super) unsafe fn half_runs(w: HalfRuns, x: &[f32], j0: usize, sums: &mut [f32]) {
        if w.col_stride.unsigned_abs() < w.run_stride.unsigned_abs() && sums.len() <= RUN_MAJOR {
            // SAFETY: forwarded.
            return unsafe { half_runs_run_major(w, x, j0, sums) };
        }
        let k = x.len();
        let runs = k / 16;
        let column = |j: usize| (w.base as *const u16).wrapping_offset(j as isize * w.col_stride);
        let mut c = 0;
        while c < sums.len() {
            let cols = COLS.min(sums.len() - c);
            let mut lo = [_mm256_setzero_ps(); COLS];
            let mut hi = [_mm256_setzero_ps(); COLS];
            let starts: [*const u16; COLS] =
                std::array::from_fn(|i| column(j0 + c + i.min(cols - 1)));
            for r in 0..runs {
                // SAFETY: p + 16 <= k elements of x; each run is 16 readable elements.
                unsafe {
                    let xl = _mm256_loadu_ps(x.as_ptr().add(r * 16));
                    let xh = _mm256_loadu_ps(x.as_ptr().add(r * 16 + 8));
                    let at = r as isize * w.run_stride;
                    for i in 0..cols {
                        let p = starts[i].offset(at);
                        lo[i] = _mm256_add_ps(lo[i], _mm256_mul_ps(xl, widen(p, w.bf16)));
                        hi[i] = _mm256_add_ps(hi[i], _mm256_mul_ps(xh, widen(p.add(8), w.bf16)));
                    }
                }
            }
            for i in 0..cols {
                let mut tail = 0f32;
                for p in runs * 16..k {
                    // SAFETY: element (p, j) of the weight.
                    let v = unsafe {
                        *starts[i].offset(runs as isize * w.run_stride + (p % 16) as isize)
                    };
                    tail += x[p] * widen_one(v, w.bf16);
                }
                // SAFETY: AVX is enabled for this function.
                sums[c + i] = unsafe { lane_sum(lo[i], hi[i]) } + tail;
            }
            c += cols;
        }
    }

    /// Columns at most of a run-major pass (its sums, 64 bytes a column, stay in L1).
    const RUN_MAJOR: usize = 256;

    /// half_runs for a weight whose runs of one k block lie side by side for consecutive
    /// columns (FRACTAL_NZ): k blocks outer, so each pass reads one contiguous stretch of
    /// memory instead of one 32-byte run a page. Each column adds in the same order.
    #[target_feature(enable = "avx2,f16c")]
    unsafe fn half_runs_run_major(w: HalfRuns, x: &[f32], j0: usize, sums: &mut [f32]) {
        let k = x.len();
        let runs = k / 16;
        let cols = sums.len();
        let mut lo = [_mm256_setzero_ps(); RUN_MAJOR];
        let mut hi = [_mm256_setzero_ps(); RUN_MAJOR];
        let first = (w.base as *const u16).wrapping_offset(j0 as isize * w.col_stride);
        for r in 0..runs {
            // SAFETY: p + 16 <= k elements of x; each run is 16 readable elements.
            unsafe {
                let xl = _mm256_loadu_ps(x.as_ptr().add(r * 16));
                let xh = _mm256_loadu_ps(x.as_ptr().add(r * 16 + 8));
                let run = first.offset(r as isize * w.run_stride);
                for c in 0..cols {
                    let p = run.offset(c as isize * w.col_stride);
                    lo[c] = _mm256_add_ps(lo[c], _mm256_mul_ps(xl, widen(p, w.bf16)));
                    hi[c] = _mm256_add_ps(hi[c], _mm256_mul_ps(xh, widen(p.add(8), w.bf16)));
                }
            }
        }
        for c in 0..cols {
            let column = first.wrapping_offset(c as isize * w.col_stride);
            let mut tail = 0f32;
            for p in runs * 16..k {
                // SAFETY: element (p, j0 + c) of the weight.
                let v = unsafe { *column.offset(runs as isize * w.run_stride + (p % 16) as isize) };
                tail += x[p] * widen_one(v, w.bf16);
            }
            // SAFETY: AVX is enabled for this function.
            sums[c] = unsafe { lane_sum(lo[c], hi[c]) } + tail;
        }
    }

    /// Eight int8 values at `p` dequantized and rounded through f16, as
    /// quant_matmul's `dequantize_i8_to_f16` does.
    #[inline(always)]
    unsafe fn dequantize(p: *const i8, shift: f32, scale: f32) -> __m256 {
        // SAFETY: the caller's eight elements.
        let bytes = unsafe { _mm_loadl_epi64(p as *const __m128i) };
        let v = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(bytes));
        let d = _mm256_mul_ps(
            _mm256_add_ps(v, _mm256_set1_ps(shift)),
            _mm256_set1_ps(scale),
        );
        _mm256_cvtph_ps(_mm256_cvtps_ph::<_MM_FROUND_TO_NEAREST_INT>(d))
    }

    #[target_feature(enable = "avx2,f16c")]
    pub(super) unsafe fn int8_columns(
        w: Int8Columns,
        x: &[f32],
        j0: usize,
        shifts: &[f32],
        scales: &[f32],
        sums: &mut [f32],
    ) {
        let k = x.len();
        let runs = k / 16;
        let groups = k.div_ceil(w.group.max(1));
        // The group of each eight elements of the runs (no division per column).
        let half_groups: Vec<usize> = (0..2 * runs).map(|h| h * 8 / w.group.max(1)).collect();
        let mut c = 0;
        while c < sums.len() {
            let cols = COLS.min(sums.len() - c);
            let mut lo = [_mm256_setzero_ps(); COLS];
            let mut hi = [_mm256_setzero_ps(); COLS];
            let starts: [*const i8; COLS] = std::array::from_fn(|i| {
                (w.base as *const i8)
                    .wrapping_offset((j0 + c + i.min(cols - 1)) as isize * w.col_stride)
            });
            let param = |i: usize, p: usize| {
                let at = (c + i.min(cols - 1)) * groups + p / w.group;
                (shifts[at], scales[at])
            };
            // Each column's groups.
            let column_params: [usize; COLS] =
                std::array::from_fn(|i| (c + i.min(cols - 1)) * groups);
            for r in 0..runs {
                let p = r * 16;
                let (g0, g1) = (half_groups[2 * r], half_groups[2 * r + 1]);
                // SAFETY: p + 16 <= k elements of x and of each column.
                unsafe {
                    let xl = _mm256_loadu_ps(x.as_ptr().add(p));
                    let xh = _mm256_loadu_ps(x.as_ptr().add(p + 8));
                    for i in 0..cols {
                        let at = column_params[i];
                        let (sh0, sc0) = (shifts[at + g0], scales[at + g0]);
                        let (sh1, sc1) = (shifts[at + g1], scales[at + g1]);
                        let q = starts[i].add(p);
                        lo[i] = _mm256_add_ps(lo[i], _mm256_mul_ps(xl, dequantize(q, sh0, sc0)));
                        hi[i] =
                            _mm256_add_ps(hi[i], _mm256_mul_ps(xh, dequantize(q.add(8), sh1, sc1)));
                    }
                }
            }
            for i in 0..cols {
                let mut tail = 0f32;
                for p in runs * 16..k {
                    let (sh, sc) = param(i, p);
                    // SAFETY: element (p, j) of the weight.
                    let v = unsafe { *starts[i].add(p) };
                    tail += x[p] * half::f16::from_f32((v as f32 + sh) * sc).to_f32();
                }
                // SAFETY: AVX is enabled for this function.
                sums[c + i] = unsafe { lane_sum(lo[i], hi[i]) } + tail;
            }
            c += cols;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::panel::kernels::dot;

    fn values(seed: u64, n: usize) -> Vec<f32> {
        let mut s = seed;
        (0..n)
            .map(|_| {
                s = s
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                ((s >> 11) as f64 / (1u64 << 53) as f64 - 0.5) as f32 * 8.0
            })
            .collect()
    }

    /// half_runs gives the bits of widening each column to f32 and the panel's dot, for
    /// f16 and bf16, row-major-transposed and FRACTAL_NZ placements, k with and without a
    /// tail, and 1 to 9 columns (the four-column blocks and their remainder).
    #[test]
    fn half_runs_are_the_panel_dots_bits() {
        if !available() {
            return;
        }
        for bf16 in [false, true] {
            for &k in &[1usize, 15, 16, 17, 64, 100, 1024] {
                for cols in 1..=9usize {
                    let n = cols + 3; // columns j0 = 2 .. 2 + cols of n
                    let x = values(k as u64, k);
                    let wf = values(7 + k as u64, k * n); // W[p][j] at j*k + p
                    let bits = |v: f32| {
                        if bf16 {
                            half::bf16::from_f32(v).to_bits()
                        } else {
                            half::f16::from_f32(v).to_bits()
                        }
                    };
                    let wide = |b: u16| {
                        if bf16 {
                            half::bf16::from_bits(b).to_f32()
                        } else {
                            half::f16::from_bits(b).to_f32()
                        }
                    };
                    // Row-major (n, k), read transposed.
                    let nd: Vec<u16> = wf.iter().map(|&v| bits(v)).collect();
                    // FRACTAL_NZ of the stored (n, k) matrix: 16 x 16 fractals.
                    let rows16 = n.div_ceil(16) * 16;
                    let mut nz = vec![0u16; k.div_ceil(16) * rows16 * 16];
                    for j in 0..n {
                        for p in 0..k {
                            nz[((p / 16) * rows16 + j) * 16 + p % 16] = nd[j * k + p];
                        }
                    }
                    let layouts = [
                        (nd.as_ptr() as usize, k as isize, 16isize),
                        (nz.as_ptr() as usize, 16, (rows16 * 16) as isize),
                    ];
                    for (base, col_stride, run_stride) in layouts {
                        let w = HalfRuns {
                            base,
                            bf16,
                            col_stride,
                            run_stride,
                        };
                        let mut sums = vec![0f32; cols];
                        // SAFETY: the buffers above hold every element.
                        unsafe { half_runs(w, &x, 2, &mut sums) };
                        for (c, s) in sums.iter().enumerate() {
                            let j = 2 + c;
                            let col: Vec<f32> = (0..k).map(|p| wide(nd[j * k + p])).collect();
                            let want = dot(&x, &col);
                            assert_eq!(
                                s.to_bits(),
                                want.to_bits(),
                                "bf16 {bf16} k {k} cols {cols} col {c} strides {col_stride}/{run_stride}: {s} vs {want}"
                            );
                        }
                    }
                }
            }
        }
    }
}
