//! Strided runs of elements converted between any two dtypes: how the engine gathers
//! operands into kernel buffers and scatters results into outputs. One generic loop per
//! (source, destination) pair — 256 small functions shared by every operator — instead of
//! one kernel per operator and dtype combination.

use crate::dtype::DType;
use crate::element::{convert, Element};
use crate::with_dtype;

/// Copies `n` elements from `src` (stride `ss` elements, dtype `sd`) to `dst` (stride `ds`,
/// dtype `dd`), converting each by the library's conversion rule.
///
/// # Safety
/// Both strided ranges must be valid, and must not overlap unless identical.
pub unsafe fn run(
    src: *const u8,
    sd: DType,
    ss: isize,
    dst: *mut u8,
    dd: DType,
    ds: isize,
    n: usize,
) {
    if ss == 1 && ds == 1 && n > 0 {
        // SAFETY: contiguous runs of n elements, as the caller guarantees.
        if unsafe { vector_run(src, sd, dst, dd, n) } {
            return;
        }
    }
    with_dtype!(sd, S => with_dtype!(dd, D => unsafe { typed::<S, D>(src as *const S, ss, dst as *mut D, ds, n) }))
}

/// Copies `bytes` bytes from `src` to `dst` (not overlapping) with non-temporal stores where
/// the CPU has them: the destination's lines are written without first being read into the
/// caches. The copying thread must call `store_fence` before another thread reads `dst`.
///
/// # Safety
/// Both ranges must be valid and must not overlap.
pub unsafe fn stream_copy(src: *const u8, dst: *mut u8, bytes: usize) {
    // SAFETY (whole function): the caller guarantees both ranges.
    unsafe {
        #[cfg(all(target_arch = "x86_64", not(miri)))]
        {
            use std::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_stream_si128};
            let head = ((dst as usize).wrapping_neg() & 15).min(bytes);
            std::ptr::copy_nonoverlapping(src, dst, head);
            let mut i = head;
            while i + 16 <= bytes {
                let v = _mm_loadu_si128(src.add(i) as *const __m128i);
                _mm_stream_si128(dst.add(i) as *mut __m128i, v);
                i += 16;
            }
            std::ptr::copy_nonoverlapping(src.add(i), dst.add(i), bytes - i);
        }
        #[cfg(not(all(target_arch = "x86_64", not(miri))))]
        std::ptr::copy_nonoverlapping(src, dst, bytes);
    }
}

/// Stores the 16 bytes at `src` to `dst` with a non-temporal store where the CPU has one
/// (see `stream_copy`; the same `store_fence` rule).
///
/// # Safety
/// 16 bytes must be readable at `src` and writable at `dst`, which is 16-byte aligned.
#[inline(always)]
pub unsafe fn stream16(src: *const u8, dst: *mut u8) {
    // SAFETY: as the caller guarantees.
    unsafe {
        #[cfg(all(target_arch = "x86_64", not(miri)))]
        {
            use std::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_stream_si128};
            _mm_stream_si128(dst as *mut __m128i, _mm_loadu_si128(src as *const __m128i));
        }
        #[cfg(not(all(target_arch = "x86_64", not(miri))))]
        std::ptr::copy_nonoverlapping(src, dst, 16);
    }
}

/// Transposes eight columns of 4-byte elements: element `r` of column `j` (at
/// `src + j * col_stride + 4 * r`, r < rows) goes to `dst + r * dst_pitch + 4 * j`. How
/// the tiled traversal gathers a transposed input when no conversion is needed: eight
/// by eight in AVX registers where the CPU has AVX (bits are moved, never computed on).
///
/// # Safety
/// The eight source runs of `rows` elements and the `rows` destination runs of eight
/// elements must be valid and must not overlap.
pub unsafe fn transpose8x4(
    src: *const u8,
    col_stride: isize,
    rows: usize,
    dst: *mut u8,
    dst_pitch: usize,
) {
    let mut r = 0;
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    if std::arch::is_x86_feature_detected!("avx") {
        // SAFETY: the CPU has AVX; the ranges are the caller's.
        r = unsafe { transpose8x4_avx(src, col_stride, rows, dst, dst_pitch) };
    }
    for r in r..rows {
        for j in 0..8 {
            // SAFETY: within the caller's ranges.
            unsafe {
                let v =
                    (src.offset(j as isize * col_stride).add(4 * r) as *const u32).read_unaligned();
                (dst.add(r * dst_pitch + 4 * j) as *mut u32).write_unaligned(v);
            }
        }
    }
}

/// The whole blocks of eight rows of `transpose8x4`; returns how many rows it did.
#[cfg(all(target_arch = "x86_64", not(miri)))]
#[target_feature(enable = "avx")]
unsafe fn transpose8x4_avx(
    src: *const u8,
    col_stride: isize,
    rows: usize,
    dst: *mut u8,
    dst_pitch: usize,
) -> usize {
    use std::arch::x86_64::*;
    let mut r = 0;
    while r + 8 <= rows {
        // SAFETY: rows r..r+8 of the eight columns and of the destination are in range.
        unsafe {
            let at =
                |j: isize| _mm256_loadu_ps(src.offset(j * col_stride).add(4 * r) as *const f32);
            let (c0, c1, c2, c3) = (at(0), at(1), at(2), at(3));
            let (c4, c5, c6, c7) = (at(4), at(5), at(6), at(7));
            let (t0, t1) = (_mm256_unpacklo_ps(c0, c1), _mm256_unpackhi_ps(c0, c1));
            let (t2, t3) = (_mm256_unpacklo_ps(c2, c3), _mm256_unpackhi_ps(c2, c3));
            let (t4, t5) = (_mm256_unpacklo_ps(c4, c5), _mm256_unpackhi_ps(c4, c5));
            let (t6, t7) = (_mm256_unpacklo_ps(c6, c7), _mm256_unpackhi_ps(c6, c7));
            let u0 = _mm256_shuffle_ps::<0x44>(t0, t2);
            let u1 = _mm256_shuffle_ps::<0xEE>(t0, t2);
            let u2 = _mm256_shuffle_ps::<0x44>(t1, t3);
            let u3 = _mm256_shuffle_ps::<0xEE>(t1, t3);
            let u4 = _mm256_shuffle_ps::<0x44>(t4, t6);
            let u5 = _mm256_shuffle_ps::<0xEE>(t4, t6);
            let u6 = _mm256_shuffle_ps::<0x44>(t5, t7);
            let u7 = _mm256_shuffle_ps::<0xEE>(t5, t7);
            let out = [
                _mm256_permute2f128_ps::<0x20>(u0, u4),
                _mm256_permute2f128_ps::<0x20>(u1, u5),
                _mm256_permute2f128_ps::<0x20>(u2, u6),
                _mm256_permute2f128_ps::<0x20>(u3, u7),
                _mm256_permute2f128_ps::<0x31>(u0, u4),
                _mm256_permute2f128_ps::<0x31>(u1, u5),
                _mm256_permute2f128_ps::<0x31>(u2, u6),
                _mm256_permute2f128_ps::<0x31>(u3, u7),
            ];
            for (i, o) in out.into_iter().enumerate() {
                _mm256_storeu_ps(dst.add((r + i) * dst_pitch) as *mut f32, o);
            }
        }
        r += 8;
    }
    r
}

/// Orders this thread's earlier non-temporal stores before its later stores.
pub fn store_fence() {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    // SAFETY: a fence has no memory operands; SSE is part of x86-64.
    unsafe {
        std::arch::x86_64::_mm_sfence()
    };
}

/// Contiguous runs between the float dtypes that have a vector loop: f16/bf16 <-> f32 with
/// the CPU's conversion instructions (F16C) where present, f32 <-> f64, and f16/bf16 <-> f64
/// through f32. Returns false for other pairs.
unsafe fn vector_run(src: *const u8, sd: DType, dst: *mut u8, dd: DType, n: usize) -> bool {
    use half::f16;
    use half::slice::HalfFloatSliceExt;
    // SAFETY: the caller guarantees n readable source and n writable destination elements,
    // aligned (tensor addresses are checked against their dtype's alignment).
    unsafe {
        match (sd, dd) {
            (DType::F16, DType::F32) => {
                let (src, dst) = (src as *const f16, dst as *mut f32);
                let done = f16c::f16_to_f32(src, dst, n);
                std::slice::from_raw_parts(src.add(done), n - done)
                    .convert_to_f32_slice(std::slice::from_raw_parts_mut(dst.add(done), n - done))
            }
            (DType::BF16, DType::F32) => bf16_to_f32(
                std::slice::from_raw_parts(src as *const u16, n),
                std::slice::from_raw_parts_mut(dst as *mut f32, n),
            ),
            (DType::F32, DType::F16) => {
                let (src, dst) = (src as *const f32, dst as *mut f16);
                let done = f16c::f32_to_f16(src, dst, n);
                std::slice::from_raw_parts_mut(dst.add(done), n - done)
                    .convert_from_f32_slice(std::slice::from_raw_parts(src.add(done), n - done))
            }
            (DType::F32, DType::BF16) => f32_to_bf16(
                std::slice::from_raw_parts(src as *const f32, n),
                std::slice::from_raw_parts_mut(dst as *mut u16, n),
            ),
            (DType::F32, DType::F64) => f32_to_f64(
                std::slice::from_raw_parts(src as *const f32, n),
                std::slice::from_raw_parts_mut(dst as *mut f64, n),
            ),
            (DType::F64, DType::F32) => f64_to_f32(
                std::slice::from_raw_parts(src as *const f64, n),
                std::slice::from_raw_parts_mut(dst as *mut f32, n),
            ),
            // f16/bf16 <-> f64 (the f64 buffers of the row, softmax and loss engines) in
            // blocks through f32: widening is exact at each step; narrowing rounds to f32
            // with round-to-odd first, which makes the second rounding the correct one
            // (the library's rule, `Element::from_wide`).
            (DType::F16 | DType::BF16, DType::F64) => {
                let mut block = [0f32; HALF_BLOCK];
                for start in (0..n).step_by(HALF_BLOCK) {
                    let m = (n - start).min(HALF_BLOCK);
                    vector_run(
                        src.add(2 * start),
                        sd,
                        block.as_mut_ptr() as *mut u8,
                        DType::F32,
                        m,
                    );
                    f32_to_f64(
                        &block[..m],
                        std::slice::from_raw_parts_mut((dst as *mut f64).add(start), m),
                    );
                }
            }
            (DType::F64, DType::F16 | DType::BF16) => {
                let mut block = [0f32; HALF_BLOCK];
                for start in (0..n).step_by(HALF_BLOCK) {
                    let m = (n - start).min(HALF_BLOCK);
                    f64_to_f32_odd(
                        std::slice::from_raw_parts((src as *const f64).add(start), m),
                        &mut block[..m],
                    );
                    vector_run(
                        block.as_ptr() as *const u8,
                        DType::F32,
                        dst.add(2 * start),
                        dd,
                        m,
                    );
                }
            }
            _ => return false,
        }
    }
    true
}

/// f16 <-> f32 eight at a time with the CPU's conversion instructions, inlined in one loop
/// (`half`'s slice conversions call a function per eight elements). The instructions are the
/// ones `half` itself uses where F16C is present, so results are bit-identical; each function
/// returns how many leading elements it converted (0 without F16C), `half` does the rest.
mod f16c {
    use half::f16;

    pub unsafe fn f16_to_f32(src: *const f16, dst: *mut f32, n: usize) -> usize {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("f16c") {
            // SAFETY: the CPU has F16C; the caller guarantees n elements at each pointer.
            return unsafe { x86::f16_to_f32(src, dst, n) };
        }
        0
    }

    pub unsafe fn f32_to_f16(src: *const f32, dst: *mut f16, n: usize) -> usize {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("f16c") {
            // SAFETY: as above.
            return unsafe { x86::f32_to_f16(src, dst, n) };
        }
        0
    }

    #[cfg(target_arch = "x86_64")]
    mod x86 {
        use half::f16;
        use std::arch::x86_64::*;

        #[target_feature(enable = "avx,f16c")]
        pub unsafe fn f16_to_f32(src: *const f16, dst: *mut f32, n: usize) -> usize {
            let mut i = 0;
            while i + 8 <= n {
                // SAFETY: i + 8 <= n elements at both pointers.
                unsafe {
                    let h = _mm_loadu_si128(src.add(i) as *const __m128i);
                    _mm256_storeu_ps(dst.add(i), _mm256_cvtph_ps(h));
                }
                i += 8;
            }
            i
        }

        #[target_feature(enable = "avx,f16c")]
        pub unsafe fn f32_to_f16(src: *const f32, dst: *mut f16, n: usize) -> usize {
            let mut i = 0;
            while i + 8 <= n {
                // SAFETY: i + 8 <= n elements at both pointers.
                unsafe {
                    let x = _mm256_loadu_ps(src.add(i));
                    let h = _mm256_cvtps_ph::<_MM_FROUND_TO_NEAREST_INT>(x);
                    _mm_storeu_si128(dst.add(i) as *mut __m128i, h);
                }
                i += 8;
            }
            i
        }
    }
}

/// bf16 -> f32 is exact: the bf16 bits are the f32's upper half (a signalling NaN comes out
/// quiet, as `half` gives it). Bit operations, so loops over it vectorise (`half`'s slice
/// conversion goes element by element).
#[inline(always)]
pub(crate) fn bf16_widen(s: u16) -> f32 {
    let x = u32::from(s);
    let x = if x & 0x7FFF > 0x7F80 { x | 0x40 } else { x };
    f32::from_bits(x << 16)
}

/// f32 -> bf16 rounded to nearest, ties to even; NaN stays a (quiet) NaN with its sign and
/// upper payload, as `half::bf16::from_f32` gives it.
#[inline(always)]
pub(crate) fn bf16_narrow(s: f32) -> u16 {
    let x = s.to_bits();
    let rounded = (x + 0x7FFF + ((x >> 16) & 1)) >> 16;
    let nan = (x >> 16) | 0x40;
    (if s.is_nan() { nan } else { rounded }) as u16
}

with_avx2!(bf16_to_f32(src: &[u16], dst: &mut [f32]) -> () {
    for (d, &s) in dst.iter_mut().zip(src) {
        *d = bf16_widen(s);
    }
});

with_avx2!(f32_to_bf16(src: &[f32], dst: &mut [u16]) -> () {
    for (d, &s) in dst.iter_mut().zip(src) {
        *d = bf16_narrow(s);
    }
});

/// Elements per f32 block of the f16/bf16 <-> f64 conversions (on the stack).
const HALF_BLOCK: usize = 256;

with_avx2!(f32_to_f64(src: &[f32], dst: &mut [f64]) -> () {
    for (d, &s) in dst.iter_mut().zip(src) {
        *d = f64::from(s);
    }
});

with_avx2!(f64_to_f32(src: &[f64], dst: &mut [f32]) -> () {
    for (d, &s) in dst.iter_mut().zip(src) {
        *d = s as f32;
    }
});

with_avx2!(f64_to_f32_odd(src: &[f64], dst: &mut [f32]) -> () {
    for (d, &s) in dst.iter_mut().zip(src) {
        *d = round_odd(s);
    }
});

/// `round_odd` for values bound for f16, in a few 64-bit integer operations (the general
/// form's compares and selects vectorise badly, as f64 masks packed to f32 lanes: 3x the
/// instructions): x's significand is cut to f32's 24 bits with a sticky last bit, so the
/// conversion to f32 is exact. Under 2^−126, where f32 has fewer bits, it rounds to
/// nearest instead: f16's smallest step is 2^−24, so that never shows in the f16 result.
/// NaN stays NaN (the sticky bit keeps a payload), infinities stay.
#[inline(always)]
pub(crate) fn round_odd_for_f16(x: f64) -> f32 {
    const CUT: u64 = (1 << 29) - 1;
    let b = x.to_bits();
    let sticky = ((b & CUT != 0) as u64) << 29;
    f64::from_bits((b & !CUT) | sticky) as f32
}

/// f64 -> f32 with round-to-odd, branch-free so that loops over it vectorise: an inexact
/// result whose last bit is even moves to its other neighbour of x (one step up in
/// magnitude when it is below |x|, down otherwise). Infinities and NaN are left as the
/// plain conversion gives them, as `Element::from_wide`'s rounding does.
#[inline(always)]
pub(crate) fn round_odd(x: f64) -> f32 {
    let r = x as f32;
    let bits = r.to_bits();
    let back = r as f64;
    let move_it = back != x && bits & 1 == 0 && r.is_finite();
    let step = if back.abs() < x.abs() { 1 } else { u32::MAX };
    f32::from_bits(if move_it {
        bits.wrapping_add(step)
    } else {
        bits
    })
}

#[inline(always)]
fn contiguous<S: Element, D: Element>(s: &[S], d: &mut [D]) {
    for (d, s) in d.iter_mut().zip(s) {
        *d = convert(*s);
    }
}

/// `contiguous` compiled for AVX2: 8-lane widening/narrowing and int <-> float conversions
/// (the baseline x86-64 has no packed sign extension or 64-bit int conversions).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn contiguous_avx2<S: Element, D: Element>(s: &[S], d: &mut [D]) {
    contiguous(s, d)
}

#[inline(never)]
unsafe fn typed<S: Element, D: Element>(
    src: *const S,
    ss: isize,
    dst: *mut D,
    ds: isize,
    n: usize,
) {
    if n == 0 {
        return;
    }
    // SAFETY (whole function): the caller guarantees the strided ranges are valid.
    unsafe {
        // Same dtype: a plain copy (bools are re-encoded as 0/1 below instead).
        if S::DTYPE == D::DTYPE && S::DTYPE != DType::Bool && ss == 1 && ds == 1 {
            std::ptr::copy(
                src as *const u8,
                dst as *mut u8,
                n * std::mem::size_of::<S>(),
            );
        } else if ss == 1 && ds == 1 {
            let s = std::slice::from_raw_parts(src, n);
            let d = std::slice::from_raw_parts_mut(dst, n);
            #[cfg(target_arch = "x86_64")]
            if std::arch::is_x86_feature_detected!("avx2") {
                return contiguous_avx2(s, d);
            }
            contiguous(s, d);
        } else if S::DTYPE == D::DTYPE && S::DTYPE != DType::Bool {
            // Same dtype, strided: the bits move unchanged (through the wide type a
            // signalling NaN would come out quiet).
            moved(
                src as *const u8,
                ss,
                dst as *mut u8,
                ds,
                n,
                std::mem::size_of::<S>(),
            );
        } else if ss == 0 {
            let v: D = convert(src.read_unaligned());
            for i in 0..n {
                dst.offset(i as isize * ds).write_unaligned(v);
            }
        } else {
            for i in 0..n as isize {
                dst.offset(i * ds)
                    .write_unaligned(convert(src.offset(i * ss).read_unaligned()));
            }
        }
    }
}

/// Copies `n` elements of `size` bytes (1, 2, 4, 8 or 16) from `src` (element stride `ss`)
/// to `dst` (stride `ds`), as unsigned integers of that size.
///
/// # Safety
/// As `run`'s.
unsafe fn moved(src: *const u8, ss: isize, dst: *mut u8, ds: isize, n: usize, size: usize) {
    // SAFETY: the caller's ranges, read as elements of their own size.
    unsafe {
        match size {
            1 => moved_as::<u8>(src as _, ss, dst as _, ds, n),
            2 => moved_as::<u16>(src as _, ss, dst as _, ds, n),
            4 => moved_as::<u32>(src as _, ss, dst as _, ds, n),
            8 => moved_as::<u64>(src as _, ss, dst as _, ds, n),
            _ => moved_as::<u128>(src as _, ss, dst as _, ds, n),
        }
    }
}

unsafe fn moved_as<T: Copy>(src: *const T, ss: isize, dst: *mut T, ds: isize, n: usize) {
    // SAFETY (whole function): the caller's ranges.
    unsafe {
        if ss == 2 && ds == 1 {
            // Every other element (a step-2 slice): with the stride a constant the loop
            // vectorizes (two loads, one shuffle per vector), where AVX2 has the shuffles.
            #[cfg(target_arch = "x86_64")]
            if std::arch::is_x86_feature_detected!("avx2") {
                return every_other_avx2(src, dst, n);
            }
            return every_other(src, dst, n);
        }
        for i in 0..n as isize {
            dst.offset(i * ds)
                .write_unaligned(src.offset(i * ss).read_unaligned());
        }
    }
}

#[inline(always)]
unsafe fn every_other<T: Copy>(src: *const T, dst: *mut T, n: usize) {
    // SAFETY: the caller's: 2n - 1 source and n destination elements.
    unsafe {
        for i in 0..n {
            dst.add(i).write_unaligned(src.add(2 * i).read_unaligned());
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn every_other_avx2<T: Copy>(src: *const T, dst: *mut T, n: usize) {
    // SAFETY: forwarded from the caller.
    unsafe { every_other(src, dst, n) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use half::bf16;

    /// The F16C loops agree bit for bit with `half` (and so with the library's conversion
    /// rule) on every f16 pattern and on f32 values around every f16 rounding boundary, NaN
    /// payloads and infinities included; lengths that are not a multiple of 8 end in `half`.
    #[test]
    fn f16_slice_conversions_match_half_bit_for_bit() {
        use half::f16;
        let all: Vec<f16> = (0..=u16::MAX).map(f16::from_bits).collect();
        let mut wide = vec![0f32; all.len() - 3];
        // SAFETY: both runs hold wide.len() elements.
        unsafe {
            run(
                all.as_ptr() as *const u8,
                DType::F16,
                1,
                wide.as_mut_ptr() as *mut u8,
                DType::F32,
                1,
                wide.len(),
            )
        };
        for (h, f) in all.iter().zip(&wide) {
            assert_eq!(f.to_bits(), h.to_f32().to_bits(), "{:#06x}", h.to_bits());
        }
        let mut probes = Vec::new();
        for h in &all {
            let x = h.to_f32().to_bits();
            for d in [0i32, 1, -1, 0xFFF, 0x1000, 0x1001, -0x1000, 0x1FFF] {
                probes.push(f32::from_bits(x.wrapping_add(d as u32)));
            }
        }
        probes.extend([f32::MAX, f32::MIN_POSITIVE, 1e-10, 65520.0, 65519.99]);
        let mut narrow = vec![f16::ZERO; probes.len()];
        // SAFETY: both runs hold probes.len() elements.
        unsafe {
            run(
                probes.as_ptr() as *const u8,
                DType::F32,
                1,
                narrow.as_mut_ptr() as *mut u8,
                DType::F16,
                1,
                probes.len(),
            )
        };
        for (&f, h) in probes.iter().zip(&narrow) {
            assert_eq!(
                h.to_bits(),
                f16::from_f32(f).to_bits(),
                "{:#010x}",
                f.to_bits()
            );
        }
    }

    /// f16/bf16 <-> f64 through f32 blocks agree bit for bit with the library's conversion
    /// rule (`Element`): every f16 and bf16 pattern widened, and f64 values around every
    /// f16/bf16 rounding boundary (ties, one f64 ulp either side, far below and above), NaN
    /// payloads, infinities, subnormals and overflow narrowed; lengths across blocks.
    #[test]
    fn half_f64_conversions_match_the_conversion_rule_bit_for_bit() {
        use crate::element::Element;
        use half::f16;
        fn check<H: Element + Copy + Default>(dt: DType, patterns: &[H], bits: impl Fn(H) -> u16) {
            let mut wide = vec![0f64; patterns.len()];
            // SAFETY: both runs hold patterns.len() elements.
            unsafe {
                run(
                    patterns.as_ptr() as *const u8,
                    dt,
                    1,
                    wide.as_mut_ptr() as *mut u8,
                    DType::F64,
                    1,
                    wide.len(),
                )
            };
            for (h, w) in patterns.iter().zip(&wide) {
                let want: f64 = convert(*h);
                assert_eq!(w.to_bits(), want.to_bits(), "{dt} {:#06x}", bits(*h));
            }
            let mut probes = vec![
                f64::MAX,
                -f64::MAX,
                1e-300,
                -1e-300,
                7e4,
                3.5e38,
                3.41e38,
                f64::from_bits(0x7FF0_0000_0000_0123),
                f64::from_bits(0xFFF8_0000_0000_4567),
            ];
            for w in &wide {
                let b = w.to_bits();
                let next: f64 = f64::from_bits(b.wrapping_add(1 << 40));
                let mid = (w + next) / 2.0; // ties and near-ties of the narrow format
                for x in [
                    *w,
                    mid,
                    f64::from_bits(mid.to_bits().wrapping_add(1)),
                    f64::from_bits(mid.to_bits().wrapping_sub(1)),
                    f64::from_bits(b ^ 0x1F_FFFF),
                ] {
                    probes.push(x);
                }
            }
            let mut narrow = vec![H::default(); probes.len()];
            // SAFETY: both runs hold probes.len() elements.
            unsafe {
                run(
                    probes.as_ptr() as *const u8,
                    DType::F64,
                    1,
                    narrow.as_mut_ptr() as *mut u8,
                    dt,
                    1,
                    probes.len(),
                )
            };
            for (x, h) in probes.iter().zip(&narrow) {
                let want: H = convert(*x);
                assert_eq!(bits(*h), bits(want), "{dt} from {:#018x}", x.to_bits());
            }
        }
        let f16s: Vec<f16> = (0..=u16::MAX).map(f16::from_bits).collect();
        check(DType::F16, &f16s, |h| h.to_bits());
        let bf16s: Vec<bf16> = (0..=u16::MAX).map(bf16::from_bits).collect();
        check(DType::BF16, &bf16s, |h| h.to_bits());
    }

    /// `round_odd_for_f16` then f32 -> f16 gives the f16 that f64 -> f16 gives, on every f16
    /// value, its ties, one f64 ulp either side, and values whose low bits are all set,
    /// plus NaN, infinities, overflow and f32's subnormal range.
    #[test]
    fn round_odd_for_f16_then_f16_rounds_as_once_from_f64() {
        use half::f16;
        let mut probes = vec![
            f64::MAX,
            -f64::MAX,
            1e-300,
            -3e-39,
            1e-40,
            7e4,
            65520.0,
            65519.99,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::from_bits(0x7FF0_0000_0000_0123),
            f64::from_bits(0xFFF8_0000_0000_4567),
        ];
        for h in (0..=u16::MAX).map(f16::from_bits).filter(|h| h.is_finite()) {
            let w: f64 = convert(h);
            let b = w.to_bits();
            let next = f64::from_bits(b.wrapping_add(1 << 42));
            let mid = (w + next) / 2.0;
            for x in [
                w,
                mid,
                f64::from_bits(mid.to_bits().wrapping_add(1)),
                f64::from_bits(mid.to_bits().wrapping_sub(1)),
                f64::from_bits(b | 0x3FF_FFFF_FFFF),
            ] {
                probes.extend([x, -x]);
            }
        }
        for x in probes {
            let got: f16 = convert(round_odd_for_f16(x));
            let want: f16 = convert(x);
            if want.is_nan() {
                assert!(got.is_nan(), "{:#018x}", x.to_bits());
            } else {
                assert_eq!(got.to_bits(), want.to_bits(), "from {:#018x}", x.to_bits());
            }
        }
    }

    /// The register transpose moves every bit (NaN payloads included) to its place, for
    /// whole blocks of eight rows and the rest, with columns forwards and backwards.
    #[test]
    fn transpose_of_eight_columns_moves_every_element() {
        let (rows_max, pitch) = (19usize, 11usize);
        let col = rows_max + 5; // elements between columns
        let src: Vec<u32> = (0..8 * col as u32)
            .map(|i| i.wrapping_mul(0x9E37_79B9) | 0x7F80_0001 * (i & 1))
            .collect();
        for rows in 0..=rows_max {
            for backwards in [false, true] {
                let (start, stride) = if backwards {
                    (7 * col, -(col as isize))
                } else {
                    (0, col as isize)
                };
                let mut dst = vec![0u32; rows * pitch + 8];
                // SAFETY: eight columns of `rows` elements inside src; rows runs of 8 in dst.
                unsafe {
                    transpose8x4(
                        src.as_ptr().add(start) as *const u8,
                        stride * 4,
                        rows,
                        dst.as_mut_ptr() as *mut u8,
                        pitch * 4,
                    )
                };
                for r in 0..rows {
                    for j in 0..8 {
                        let want = src[(start as isize + j as isize * stride) as usize + r];
                        assert_eq!(
                            dst[r * pitch + j],
                            want,
                            "rows {rows} backwards {backwards}: ({r}, {j})"
                        );
                    }
                }
            }
        }
    }

    /// The vectorised bf16 conversions agree bit for bit with `half` on every bf16 pattern
    /// and on f32 values around every rounding boundary, NaNs and infinities included.
    #[test]
    fn bf16_slice_conversions_match_half_bit_for_bit() {
        let all: Vec<u16> = (0..=u16::MAX).collect();
        let mut wide = vec![0f32; all.len()];
        bf16_to_f32(&all, &mut wide);
        for (&b, &f) in all.iter().zip(&wide) {
            assert_eq!(
                f.to_bits(),
                bf16::from_bits(b).to_f32().to_bits(),
                "{b:#06x}"
            );
        }
        let mut probes = Vec::new();
        for &b in &all {
            let x = u32::from(b) << 16;
            for d in [0u32, 1, 0x7FFF, 0x8000, 0x8001, 0xFFFF] {
                probes.push(f32::from_bits(x | d));
            }
        }
        let mut narrow = vec![0u16; probes.len()];
        f32_to_bf16(&probes, &mut narrow);
        for (&f, &b) in probes.iter().zip(&narrow) {
            assert_eq!(b, bf16::from_f32(f).to_bits(), "{:#010x}", f.to_bits());
        }
    }
}
