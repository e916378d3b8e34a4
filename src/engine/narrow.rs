//! Kernels for operators that compute in f32 on f16 or bf16 storage, used when every
//! operand is stored in that one 16-bit dtype: sixteen elements at a time are widened
//! (exactly) in registers, computed, and rounded once back to 16 bits (to nearest, ties to
//! even), in one pass over memory.
//!
//! Why: through the engine's chunk buffers the same computation is four passes per chunk
//! (widen a, widen b, compute, narrow), and at 16M elements f16 + f16 took twice as long as
//! one fused pass. The results are bit-identical to the buffered path: both widen exactly
//! and round with the same rule (`convert`'s F16C instructions / bit operations, tested
//! against `half`). Operators opt in (`Narrow::binary`); each costs two more kernels.

use super::convert::{bf16_narrow, bf16_widen};
use super::kernel::{BinaryOp, KernelFn, Params, Src};

/// Elements widened and computed together: two AVX registers of f32.
pub(crate) const LANES: usize = 16;

/// An operator's kernels for f16 and bf16 storage.
#[derive(Clone, Copy, Debug)]
pub struct Narrow {
    pub f16: KernelFn,
    pub bf16: KernelFn,
}

impl PartialEq for Narrow {
    fn eq(&self, o: &Narrow) -> bool {
        self.f16 as usize == o.f16 as usize && self.bf16 as usize == o.bf16 as usize
    }
}

impl Narrow {
    /// The kernels of a binary operation on f32.
    pub fn binary<Op: BinaryOp<A = f32, B = f32, O = f32>>() -> Narrow {
        Narrow {
            f16: binary_f16::<Op>,
            bf16: binary_bf16::<Op>,
        }
    }
}

/// A 16-bit float storage format: its conversions of one element to and from f32.
pub(crate) trait Format {
    fn widen(x: u16) -> f32;
    fn narrow(x: f32) -> u16;
}

/// f16, through `half` (which uses F16C where the CPU has it, detected per call).
pub(crate) struct F16;
impl Format for F16 {
    #[inline(always)]
    fn widen(x: u16) -> f32 {
        half::f16::from_bits(x).to_f32()
    }
    #[inline(always)]
    fn narrow(x: f32) -> u16 {
        half::f16::from_f32(x).to_bits()
    }
}

/// bf16, by bit operations.
pub(crate) struct Bf16;
impl Format for Bf16 {
    #[inline(always)]
    fn widen(x: u16) -> f32 {
        bf16_widen(x)
    }
    #[inline(always)]
    fn narrow(x: f32) -> u16 {
        bf16_narrow(x)
    }
}

/// How LANES elements of a format are converted at once; by default one at a time.
pub(crate) trait Lanes {
    type F: Format;

    /// # Safety
    /// LANES elements must be readable at `p`.
    #[inline(always)]
    unsafe fn widen_lanes(p: *const u16) -> [f32; LANES] {
        // SAFETY: forwarded from the caller.
        let x = unsafe { (p as *const [u16; LANES]).read_unaligned() };
        let mut o = [0f32; LANES];
        for j in 0..LANES {
            o[j] = Self::F::widen(x[j]);
        }
        o
    }

    /// # Safety
    /// LANES elements must be writable at `p`.
    #[inline(always)]
    unsafe fn narrow_lanes(x: &[f32; LANES], p: *mut u16) {
        let mut o = [0u16; LANES];
        for j in 0..LANES {
            o[j] = Self::F::narrow(x[j]);
        }
        // SAFETY: forwarded from the caller.
        unsafe { (p as *mut [u16; LANES]).write_unaligned(o) }
    }
}

/// Element by element (CPUs without the instructions below).
pub(crate) struct Portable<F>(std::marker::PhantomData<F>);
impl<F: Format> Lanes for Portable<F> {
    type F = F;
}

/// f16 with the F16C instructions, eight per instruction; only inside functions compiled
/// for F16C.
#[cfg(target_arch = "x86_64")]
pub(crate) struct F16Hw;
#[cfg(target_arch = "x86_64")]
impl Lanes for F16Hw {
    type F = F16;
    #[inline(always)]
    unsafe fn widen_lanes(p: *const u16) -> [f32; LANES] {
        use std::arch::x86_64::*;
        // SAFETY: the caller runs on a CPU with F16C and guarantees LANES elements at p.
        unsafe {
            let lo = _mm256_cvtph_ps(_mm_loadu_si128(p as *const __m128i));
            let hi = _mm256_cvtph_ps(_mm_loadu_si128(p.add(8) as *const __m128i));
            std::mem::transmute::<[__m256; 2], [f32; LANES]>([lo, hi])
        }
    }
    #[inline(always)]
    unsafe fn narrow_lanes(x: &[f32; LANES], p: *mut u16) {
        use std::arch::x86_64::*;
        // SAFETY: as above, LANES writable elements at p.
        unsafe {
            let lo = _mm256_loadu_ps(x.as_ptr());
            let hi = _mm256_loadu_ps(x.as_ptr().add(8));
            let lo = _mm256_cvtps_ph::<_MM_FROUND_TO_NEAREST_INT>(lo);
            let hi = _mm256_cvtps_ph::<_MM_FROUND_TO_NEAREST_INT>(hi);
            _mm_storeu_si128(p as *mut __m128i, lo);
            _mm_storeu_si128(p.add(8) as *mut __m128i, hi);
        }
    }
}

/// bf16 by the same bit operations on AVX2 registers, eight lanes per instruction; only
/// inside functions compiled for AVX2. (Left to the compiler, the loop came out as scalar
/// inserts.)
#[cfg(target_arch = "x86_64")]
pub(crate) struct Bf16Hw;
#[cfg(target_arch = "x86_64")]
impl Lanes for Bf16Hw {
    type F = Bf16;
    #[inline(always)]
    unsafe fn widen_lanes(p: *const u16) -> [f32; LANES] {
        use std::arch::x86_64::*;
        // SAFETY: the caller runs on a CPU with AVX2 and guarantees LANES elements at p.
        unsafe {
            let v = _mm256_loadu_si256(p as *const __m256i);
            let lo = avx2::bf16_widen8(_mm256_castsi256_si128(v));
            let hi = avx2::bf16_widen8(_mm256_extracti128_si256::<1>(v));
            std::mem::transmute::<[__m256; 2], [f32; LANES]>([lo, hi])
        }
    }
    #[inline(always)]
    unsafe fn narrow_lanes(x: &[f32; LANES], p: *mut u16) {
        use std::arch::x86_64::*;
        // SAFETY: as above, LANES writable elements at p.
        unsafe {
            let lo = avx2::bf16_narrow8(_mm256_loadu_ps(x.as_ptr()));
            let hi = avx2::bf16_narrow8(_mm256_loadu_ps(x.as_ptr().add(8)));
            // Every lane is at most 0xFFFF, so the saturating pack keeps it; the pack works
            // per 128-bit half, the permute puts the halves back in order.
            let packed = _mm256_permute4x64_epi64::<0xD8>(_mm256_packus_epi32(lo, hi));
            _mm256_storeu_si256(p as *mut __m256i, packed);
        }
    }
}

/// `bf16_widen`/`bf16_narrow` on eight lanes. Plain inline functions (not closures), so they
/// are compiled inside their AVX2 caller.
#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::*;

    /// # Safety
    /// The CPU must have AVX2.
    #[inline(always)]
    pub unsafe fn bf16_widen8(h: __m128i) -> __m256 {
        // SAFETY: forwarded from the caller.
        unsafe {
            let x = _mm256_cvtepu16_epi32(h);
            // A NaN (exponent all ones, mantissa not 0) comes out quiet.
            let nan = _mm256_cmpgt_epi32(
                _mm256_and_si256(x, _mm256_set1_epi32(0x7FFF)),
                _mm256_set1_epi32(0x7F80),
            );
            let x = _mm256_or_si256(x, _mm256_and_si256(nan, _mm256_set1_epi32(0x40)));
            _mm256_castsi256_ps(_mm256_slli_epi32::<16>(x))
        }
    }

    /// Each 32-bit lane holds its bf16 result.
    ///
    /// # Safety
    /// The CPU must have AVX2.
    #[inline(always)]
    pub unsafe fn bf16_narrow8(v: __m256) -> __m256i {
        // SAFETY: forwarded from the caller.
        unsafe {
            let x = _mm256_castps_si256(v);
            let high = _mm256_srli_epi32::<16>(x);
            let lsb = _mm256_and_si256(high, _mm256_set1_epi32(1));
            let rounded = _mm256_add_epi32(_mm256_add_epi32(x, _mm256_set1_epi32(0x7FFF)), lsb);
            let rounded = _mm256_srli_epi32::<16>(rounded);
            let nan = _mm256_or_si256(high, _mm256_set1_epi32(0x40));
            let is_nan = _mm256_castps_si256(_mm256_cmp_ps::<_CMP_UNORD_Q>(v, v));
            _mm256_blendv_epi8(rounded, nan, is_nan)
        }
    }
}

/// Element `i` of a kernel input, widened.
///
/// # Safety
/// `i` must be in range for a slice input.
#[inline(always)]
unsafe fn one<H: Lanes>(s: Src, i: usize) -> f32 {
    // SAFETY: forwarded from the caller.
    unsafe {
        H::F::widen(match s {
            Src::Slice(p) => (p as *const u16).add(i).read_unaligned(),
            Src::Scalar(p) => (p as *const u16).read_unaligned(),
        })
    }
}

/// LANES elements of a kernel input from element `i`, widened.
///
/// # Safety
/// `i + LANES` must be in range for a slice input.
#[inline(always)]
unsafe fn lanes<H: Lanes>(s: Src, i: usize) -> [f32; LANES] {
    // SAFETY: forwarded from the caller.
    unsafe {
        match s {
            Src::Slice(p) => H::widen_lanes((p as *const u16).add(i)),
            Src::Scalar(_) => [one::<H>(s, 0); LANES],
        }
    }
}

/// # Safety
/// See `KernelFn`: the inputs and the output hold 16-bit elements of format `H::F`.
#[inline(always)]
unsafe fn binary_body<Op: BinaryOp<A = f32, B = f32, O = f32>, H: Lanes>(
    n: usize,
    ins: &[Src],
    out: *mut u8,
    params: &Params,
) {
    let op = Op::new(params);
    let out = out as *mut u16;
    let mut i = 0;
    // SAFETY: the engine passes n elements per slice input and n writable at out.
    unsafe {
        // Two slices, the common case, get a loop without a per-block operand match.
        if let (Src::Slice(a), Src::Slice(b)) = (ins[0], ins[1]) {
            let (a, b) = (a as *const u16, b as *const u16);
            while i + LANES <= n {
                let (a, b) = (H::widen_lanes(a.add(i)), H::widen_lanes(b.add(i)));
                H::narrow_lanes(&apply_lanes(&op, &a, &b), out.add(i));
                i += LANES;
            }
        } else {
            while i + LANES <= n {
                let (a, b) = (lanes::<H>(ins[0], i), lanes::<H>(ins[1], i));
                H::narrow_lanes(&apply_lanes(&op, &a, &b), out.add(i));
                i += LANES;
            }
        }
        for i in i..n {
            let o = op.apply(one::<H>(ins[0], i), one::<H>(ins[1], i));
            out.add(i).write(H::F::narrow(o));
        }
    }
}

/// `op` on each lane (a plain loop, so it is vectorised in the caller's instructions).
#[inline(always)]
fn apply_lanes<Op: BinaryOp<A = f32, B = f32, O = f32>>(
    op: &Op,
    a: &[f32; LANES],
    b: &[f32; LANES],
) -> [f32; LANES] {
    let mut o = [0f32; LANES];
    for j in 0..LANES {
        o[j] = op.apply(a[j], b[j]);
    }
    o
}

/// The kernel of `Op` on f16 storage (see `KernelFn` for the safety contract).
unsafe fn binary_f16<Op: BinaryOp<A = f32, B = f32, O = f32>>(
    n: usize,
    ins: &[Src],
    out: *mut u8,
    params: &Params,
) {
    #[cfg(target_arch = "x86_64")]
    {
        #[target_feature(enable = "avx2,f16c")]
        unsafe fn hw<Op: BinaryOp<A = f32, B = f32, O = f32>>(
            n: usize,
            ins: &[Src],
            out: *mut u8,
            params: &Params,
        ) {
            // SAFETY: forwarded from the caller.
            unsafe { binary_body::<Op, F16Hw>(n, ins, out, params) }
        }
        if std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("f16c")
        {
            // SAFETY: the CPU has AVX2 and F16C; the rest is forwarded from the caller.
            return unsafe { hw::<Op>(n, ins, out, params) };
        }
    }
    // SAFETY: forwarded from the caller.
    unsafe { binary_body::<Op, Portable<F16>>(n, ins, out, params) }
}

/// The kernel of `Op` on bf16 storage (see `KernelFn` for the safety contract).
unsafe fn binary_bf16<Op: BinaryOp<A = f32, B = f32, O = f32>>(
    n: usize,
    ins: &[Src],
    out: *mut u8,
    params: &Params,
) {
    #[cfg(target_arch = "x86_64")]
    {
        #[target_feature(enable = "avx2")]
        unsafe fn avx2<Op: BinaryOp<A = f32, B = f32, O = f32>>(
            n: usize,
            ins: &[Src],
            out: *mut u8,
            params: &Params,
        ) {
            // SAFETY: forwarded from the caller.
            unsafe { binary_body::<Op, Bf16Hw>(n, ins, out, params) }
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2; the rest is forwarded from the caller.
            return unsafe { avx2::<Op>(n, ins, out, params) };
        }
    }
    // SAFETY: forwarded from the caller.
    unsafe { binary_body::<Op, Portable<Bf16>>(n, ins, out, params) }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Sum;
    impl BinaryOp for Sum {
        type A = f32;
        type B = f32;
        type O = f32;
        fn new(_: &Params) -> Self {
            Sum
        }
        fn apply(&self, a: f32, b: f32) -> f32 {
            a + b
        }
    }

    /// Runs `body` over every 16-bit pattern (plus a tail) against a fixed second operand.
    fn run(body: unsafe fn(usize, &[Src], *mut u8, &Params), b: u16) -> Vec<u16> {
        let a: Vec<u16> = (0..=u16::MAX).chain(0..5).collect();
        let mut out = vec![0u16; a.len()];
        let ins = [
            Src::Slice(a.as_ptr() as *const u8),
            Src::Scalar(&b as *const u16 as *const u8),
        ];
        // SAFETY: a and out hold a.len() elements; b is one element.
        unsafe {
            body(
                a.len(),
                &ins,
                out.as_mut_ptr() as *mut u8,
                &Params::default(),
            )
        };
        out
    }

    /// The portable conversions (other CPUs) and the AVX2/F16C ones give the same bits.
    /// (The second operand is never NaN: with two NaN operands, which payload comes out
    /// is the compiler's choice.)
    #[test]
    fn portable_and_vector_conversions_agree() {
        type Kernel = unsafe fn(usize, &[Src], *mut u8, &Params);
        let f16_soft: Kernel =
            |n, i, o, p| unsafe { binary_body::<Sum, Portable<F16>>(n, i, o, p) };
        let bf16_soft: Kernel =
            |n, i, o, p| unsafe { binary_body::<Sum, Portable<Bf16>>(n, i, o, p) };
        let cases: [(&str, Kernel, Kernel, [u16; 8]); 2] = [
            (
                "f16",
                f16_soft,
                binary_f16::<Sum>,
                [
                    0x0000, 0x8000, 0x3C00, 0x0001, 0x7C00, 0xFC00, 0x0300, 0x7BFF,
                ],
            ),
            (
                "bf16",
                bf16_soft,
                binary_bf16::<Sum>,
                [
                    0x0000, 0x8000, 0x3F80, 0x0001, 0x7F80, 0xFF80, 0x0300, 0x7F7F,
                ],
            ),
        ];
        for (name, soft, vector, others) in cases {
            for b in others {
                let (x, y) = (run(soft, b), run(vector, b));
                let at = x.iter().zip(&y).position(|(x, y)| x != y);
                assert_eq!(
                    at, None,
                    "{name}, b = {b:#06x}: first difference at a = {at:?}"
                );
            }
        }
    }
}
