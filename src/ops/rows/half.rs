//! The row engine's f32 arithmetic for f16 and bf16 rows (`RowPlan::half_row`), as the
//! device computes them: LayerNorm, RmsNorm and GroupNorm whose input and y are one 16-bit
//! dtype, each row one unit-stride run.
//!
//! Why: on the f64 path such a row costs six f32 <-> f64 conversions per element and ran at
//! 0.38 of the copy bandwidth (LayerNorm (4096, 4096) f16, 7.6 ms); in f32 the work hides
//! behind the memory traffic. Three passes per row, sixteen lanes at a time in the
//! caller's instructions (`narrow::Lanes`: F16C / AVX2 bit operations, or portable), so
//! every machine gives the same bits:
//!
//! 1. the row is widened into an f32 buffer and summed: eight blocks of sixteen lanes in
//!    f32, then each lane's block sum added into an f64 lane;
//! 2. from m = f32(mean): Σ(x − m) and Σ(x − m)² the same way; the mean is corrected to
//!    m + Σ(x − m)/n and the biased variance is Σ(x − m)²/n − (Σ(x − m)/n)² (the corrected
//!    two-pass form: the error of m cancels to first order, so a large offset with a small
//!    variance costs nothing); RMS takes Σx²/n;
//! 3. y = ((x − mₕ) − mₗ)·rstd·(w + w₀) + b in f32 (the mean split into two f32 values, the
//!    last step one fused multiply-add), rounded once to the 16-bit dtype.
//!
//! Bound (u = 2⁻²⁴): the sums carry at most 8u relative error per lane block, rstd at most
//! 7u, the f32 steps one u each; so |y − ŷ| ≤ 1 ulp(ŷ) + 2⁻²⁰·(|x − mean|·rstd + 1)·|w + w₀|
//! with ŷ the exact value, the mean within 2⁻²⁰·σ + 1 ulp and rstd within 2⁻²⁰ relative
//! plus 1 ulp (`norm_diff` tests these). Rows the f32 sums cannot hold — a non-finite sum
//! (overflow, Inf, NaN) or a bf16 variance below 2⁻¹⁰⁰ (where f32 squares go subnormal) —
//! take the f64 path, which is exact.

use super::{RowPlan, RowStats, Stat};
use crate::dtype::DType;
use crate::engine::convert;
use crate::engine::narrow::{Format, Lanes, LANES};

/// Lane blocks summed in f32 before they are added into the f64 lanes: each f32 partial
/// is a sum of at most this many values.
const SPILL: usize = 8;

/// bf16 rows whose variance (or mean square) is below this take the f64 path.
const BF16_MIN_VAR: f64 = 1.0 / (1u128 << 100) as f64;

/// Σ f(xᵢ) over a row in lane blocks: f32 within SPILL blocks, f64 across them. The order
/// is fixed by the row length, so the bits are the same on every machine. (One sum per
/// pass: with two accumulators the compiler paired them instead of the lanes, 4x slower.)
#[inline(always)]
fn block_sum(x: &[f32], f: impl Fn(f32) -> f32) -> f64 {
    let mut acc = [0f64; LANES];
    let groups = x.chunks_exact(SPILL * LANES);
    let rest = groups.remainder();
    // Whole groups as arrays: with fixed trip counts the lanes become one vector (with a
    // variable block count the compiler vectorised across blocks, shuffling every lane).
    for group in groups {
        let group: &[f32; SPILL * LANES] = group.try_into().expect("a whole group");
        let mut part = [0f32; LANES];
        for k in 0..SPILL {
            for j in 0..LANES {
                part[j] += f(group[k * LANES + j]);
            }
        }
        for j in 0..LANES {
            acc[j] += f64::from(part[j]);
        }
    }
    let (blocks, tail) = rest.split_at(rest.len() / LANES * LANES);
    let mut part = [0f32; LANES];
    for block in blocks.chunks_exact(LANES) {
        for j in 0..LANES {
            part[j] += f(block[j]);
        }
    }
    for j in 0..LANES {
        acc[j] += f64::from(part[j]);
    }
    for (j, &v) in tail.iter().enumerate() {
        acc[j] += f64::from(f(v));
    }
    acc.iter().sum()
}

/// Pass 1: the row at `src` widened into `x` (its length), and the row's sum.
///
/// # Safety
/// `x.len()` elements of the row's dtype must be readable at `src`.
#[inline(always)]
unsafe fn widen_sum<H: Lanes>(src: *const u16, x: &mut [f32]) -> f64 {
    let n = x.len();
    let full = n / LANES * LANES;
    let (blocks, tail) = x.split_at_mut(full);
    // block_sum's order, fused with the conversion (one pass over the row's memory).
    let mut acc = [0f64; LANES];
    for (g, group) in blocks.chunks_mut(SPILL * LANES).enumerate() {
        let mut part = [0f32; LANES];
        for (k, block) in group.chunks_exact_mut(LANES).enumerate() {
            // SAFETY: the block's LANES elements lie inside the row.
            let v = unsafe { H::widen_lanes(src.add((g * SPILL + k) * LANES)) };
            block.copy_from_slice(&v);
            for j in 0..LANES {
                part[j] += v[j];
            }
        }
        for j in 0..LANES {
            acc[j] += f64::from(part[j]);
        }
    }
    for (j, v) in tail.iter_mut().enumerate() {
        // SAFETY: inside the row.
        *v = H::F::widen(unsafe { src.add(full + j).read_unaligned() });
        acc[j] += f64::from(*v);
    }
    acc.iter().sum()
}

/// y = ((x − hi) − lo)·rstd·(w + w₀) + b in f32, the weight and the bias each optional.
struct Affine32 {
    hi: f32,
    lo: f32,
    rstd: f32,
    w0: f32,
}

impl Affine32 {
    #[inline(always)]
    fn one<const W: bool, const B: bool>(&self, x: f32, w: f32, b: f32) -> f32 {
        let z = ((x - self.hi) - self.lo) * self.rstd;
        match (W, B) {
            (true, true) => z.mul_add(w + self.w0, b),
            (true, false) => z * (w + self.w0),
            (false, true) => z + b,
            (false, false) => z,
        }
    }

    /// Pass 3 into `dst` (`x.len()` elements of `H`'s dtype), with non-temporal stores at
    /// `stream` (`dst` 16-byte aligned).
    ///
    /// # Safety
    /// `x.len()` elements must be writable at `dst`; `w` and `b` hold as many values.
    #[inline(always)]
    unsafe fn apply<const W: bool, const B: bool, H: Lanes>(
        &self,
        x: &[f32],
        w: &[f32],
        b: &[f32],
        (dst, stream): (*mut u16, bool),
    ) {
        let n = x.len();
        let full = n / LANES * LANES;
        let blocks = x[..full]
            .chunks_exact(LANES)
            .zip(w[..full].chunks_exact(LANES))
            .zip(b[..full].chunks_exact(LANES));
        for (k, ((x, w), b)) in blocks.enumerate() {
            let mut z = [0f32; LANES];
            for j in 0..LANES {
                z[j] = self.one::<W, B>(x[j], w[j], b[j]);
            }
            // SAFETY: LANES elements from block k lie inside the row.
            unsafe {
                if stream {
                    // Two 16-byte halves, each read back from where it was just stored.
                    let mut y = [0u16; LANES];
                    H::narrow_lanes(&z, y.as_mut_ptr());
                    let at = dst.add(k * LANES) as *mut u8;
                    convert::stream16(y.as_ptr() as *const u8, at);
                    convert::stream16(y.as_ptr().add(8) as *const u8, at.add(16));
                } else {
                    H::narrow_lanes(&z, dst.add(k * LANES));
                }
            }
        }
        for i in full..n {
            let y = H::F::narrow(self.one::<W, B>(x[i], w[i], b[i]));
            // SAFETY: inside the row.
            unsafe { dst.add(i).write_unaligned(y) };
        }
    }

    /// # Safety
    /// As `apply`.
    #[inline(always)]
    unsafe fn apply_any<H: Lanes>(
        &self,
        (has_w, has_b): (bool, bool),
        x: &[f32],
        w: &[f32],
        b: &[f32],
        dst: (*mut u16, bool),
    ) {
        // SAFETY: forwarded from the caller.
        unsafe {
            match (has_w, has_b) {
                (true, true) => self.apply::<true, true, H>(x, w, b, dst),
                (true, false) => self.apply::<true, false, H>(x, w, b, dst),
                (false, true) => self.apply::<false, true, H>(x, w, b, dst),
                (false, false) => self.apply::<false, false, H>(x, w, b, dst),
            }
        }
    }
}

impl RowPlan {
    /// Passes 1 and 2 of a 16-bit row at `src`, widened into `x`: its statistics, or None
    /// where the row takes the f64 path (see the module's bound).
    ///
    /// # Safety
    /// As `widen_sum`.
    #[inline(always)]
    pub(super) unsafe fn half_stats<H: Lanes>(
        &self,
        src: *const u16,
        x: &mut [f32],
        dtype: DType,
    ) -> Option<RowStats> {
        // SAFETY: forwarded from the caller.
        let sum = unsafe { widen_sum::<H>(src, x) };
        let n = x.len() as f64;
        let center = self.spec.stat == Stat::Center;
        let m = if center { (sum / n) as f32 } else { 0.0 };
        let dev = if center { block_sum(x, |v| v - m) } else { 0.0 };
        let sq = block_sum(x, |v| (v - m) * (v - m));
        if !(sum.is_finite() && sq.is_finite()) {
            return None;
        }
        let (mean, var) = if center {
            let dm = dev / n;
            (f64::from(m) + dm, (sq / n - dm * dm).max(0.0))
        } else {
            (0.0, sq / n)
        };
        if dtype == DType::BF16 && var < BF16_MIN_VAR {
            return None;
        }
        Some(RowStats {
            first: mean,
            var: if center { var } else { f64::NAN },
            rstd: 1.0 / (var + self.spec.eps).sqrt(),
        })
    }

    /// Pass 3: y from the widened row `x`, its statistics, the weight and bias rows (f32;
    /// ignored where absent), into `dst`; with non-temporal stores at `stream` (`dst`
    /// 16-byte aligned).
    ///
    /// # Safety
    /// `x.len()` elements of y's dtype must be writable at `dst`.
    #[inline(always)]
    pub(super) unsafe fn half_y<H: Lanes>(
        &self,
        st: &RowStats,
        (x, w, b): (&[f32], &[f32], &[f32]),
        dst: (*mut u16, bool),
    ) {
        let s = &self.spec;
        let shift = if s.stat == Stat::Center {
            st.first
        } else {
            0.0
        };
        let hi = shift as f32;
        let a = Affine32 {
            hi,
            lo: (shift - f64::from(hi)) as f32,
            rstd: st.rstd as f32,
            w0: s.weight_offset as f32,
        };
        // SAFETY: forwarded from the caller.
        unsafe { a.apply_any::<H>((s.weight.is_some(), s.bias.is_some()), x, w, b, dst) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::narrow::{Bf16, Portable, F16};

    /// Passes 1 and 3 (pass 2 is `block_sum`, plain f32 arithmetic) of a row of 16-bit
    /// patterns, converted with `H`.
    #[inline(always)]
    fn passes<H: Lanes>(row: &[u16], w: &[f32], b: &[f32]) -> (u64, Vec<u16>) {
        let mut x = vec![0f32; row.len()];
        // SAFETY: `row` holds x.len() elements.
        let sum = unsafe { widen_sum::<H>(row.as_ptr(), &mut x) };
        let mean = sum / row.len() as f64;
        let a = Affine32 {
            hi: mean as f32,
            lo: (mean - f64::from(mean as f32)) as f32,
            rstd: 0.75,
            w0: 1.0,
        };
        let mut y = vec![0u16; row.len()];
        // SAFETY: y holds x.len() elements; w and b as many.
        unsafe { a.apply_any::<H>((true, true), &x, w, b, (y.as_mut_ptr(), false)) };
        (sum.to_bits(), y)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma,f16c")]
    fn passes_hw(f16: bool, row: &[u16], w: &[f32], b: &[f32]) -> (u64, Vec<u16>) {
        use crate::engine::narrow::{Bf16Hw, F16Hw};
        if f16 {
            passes::<F16Hw>(row, w, b)
        } else {
            passes::<Bf16Hw>(row, w, b)
        }
    }

    /// The same bits on every machine: the portable conversions and arithmetic (no FMA
    /// instruction: `mul_add` is the library's) against F16C/AVX2/FMA, over rows of every
    /// 16-bit pattern with lengths around the lane blocks and their groups.
    #[test]
    fn half_rows_give_the_same_bits_with_and_without_the_vector_instructions() {
        #[cfg(target_arch = "x86_64")]
        {
            let has = |f: &str| match f {
                "avx2" => std::arch::is_x86_feature_detected!("avx2"),
                "fma" => std::arch::is_x86_feature_detected!("fma"),
                _ => std::arch::is_x86_feature_detected!("f16c"),
            };
            if !["avx2", "fma", "f16c"].iter().all(|f| has(f)) {
                return;
            }
            let patterns: Vec<u16> = (0..=u16::MAX).collect();
            for f16 in [true, false] {
                for len in [1usize, 15, 16, 17, 127, 128, 129, 1000] {
                    for row in patterns.chunks(len).step_by(37) {
                        // Finite, moderate values, so sums and y are not all NaN/Inf.
                        let row: Vec<u16> = row.iter().map(|&p| p & 0xBBFF).collect();
                        let w: Vec<f32> = (0..row.len()).map(|i| i as f32 / 7.0 - 3.0).collect();
                        let b: Vec<f32> = (0..row.len()).map(|i| 1.0 / (i as f32 + 0.5)).collect();
                        let soft = if f16 {
                            passes::<Portable<F16>>(&row, &w, &b)
                        } else {
                            passes::<Portable<Bf16>>(&row, &w, &b)
                        };
                        // SAFETY: the CPU has the features.
                        let hw = unsafe { passes_hw(f16, &row, &w, &b) };
                        assert_eq!(soft, hw, "f16 {f16} len {len} row {row:?}");
                    }
                }
            }
        }
    }
}
