//! Elementary functions in f64 without library calls or data-dependent branches, so a
//! loop of them vectorises (4 f64 lanes under AVX2): the element-wise kernels evaluate the
//! exponential-based activations with them and the reductions their softmax and
//! log-sum-exp. Each states its error in f64 ulps; results rounded to f32/f16/bf16 are
//! then correctly rounded but in rare ties of double rounding (≤ 1 ulp). f64 results that
//! promise the C library's accuracy use the `_libm` forms instead.

/// e^x in f64 without a library call, so a loop of them vectorises: x = k·ln2 + r with
/// |r| <= ln2/2, e^r by its Taylor series to degree 13 (truncation error below 2^-60),
/// scaled by 2^k in two steps so that subnormal results come out right. Within 2 ulp of
/// the correctly rounded value; NaN stays NaN, e^-inf = 0, e^+inf = inf. `FMA` fuses the
/// polynomial's steps (for a caller compiled with the fma feature; slower elsewhere).
#[inline(always)]
pub fn exp_with<const FMA: bool>(x: f64) -> f64 {
    const INV_LN2: f64 = std::f64::consts::LOG2_E;
    const LN2_HI: f64 = 6.931_471_803_691_238_164_90e-1;
    const LN2_LO: f64 = 1.908_214_929_270_587_700_02e-10;
    const ROUND: f64 = 6_755_399_441_055_744.0; // 1.5 * 2^52: adding it rounds to an integer
    let xc = x.clamp(-746.0, 710.0);
    let kf = (xc * INV_LN2 + ROUND) - ROUND;
    let r = (xc - kf * LN2_HI) - kf * LN2_LO;
    // e^r = 1 + (r + r²·h(r)), h = Σ_{i=2..13} r^(i−2)/i!, h by Estrin's scheme: its
    // steps are independent, so a loop pipelines them (Horner's 13 dependent steps are
    // latency-bound), and its rounding errors are damped by r² ≤ 0.121.
    let madd = |a: f64, b: f64, c: f64| if FMA { a.mul_add(b, c) } else { a * b + c };
    const INV_FACT: [f64; 14] = [
        1.0,
        1.0,
        0.5,
        1.0 / 6.0,
        1.0 / 24.0,
        1.0 / 120.0,
        1.0 / 720.0,
        1.0 / 5_040.0,
        1.0 / 40_320.0,
        1.0 / 362_880.0,
        1.0 / 3_628_800.0,
        1.0 / 39_916_800.0,
        1.0 / 479_001_600.0,
        1.0 / 6_227_020_800.0,
    ];
    let c = INV_FACT;
    let r2 = r * r;
    let r4 = r2 * r2;
    let r8 = r4 * r4;
    let a0 = madd(c[3], r, c[2]);
    let a1 = madd(c[5], r, c[4]);
    let a2 = madd(c[7], r, c[6]);
    let a3 = madd(c[9], r, c[8]);
    let a4 = madd(c[11], r, c[10]);
    let a5 = madd(c[13], r, c[12]);
    let b0 = madd(a1, r2, a0);
    let b1 = madd(a3, r2, a2);
    let b2 = madd(a5, r2, a4);
    let h = madd(b2, r8, madd(b1, r4, b0));
    let p = 1.0 + madd(h, r2, r);
    // k from the rounded value's low mantissa bits (no float->int conversion, which has no
    // packed form before AVX-512), biased positive so that halving is a logical shift.
    // Wrapping arithmetic: for a NaN x these bits are garbage (the result is x, selected
    // below), and must not trip overflow checks.
    let kb = ((xc * INV_LN2 + ROUND).to_bits() as i64)
        .wrapping_sub(ROUND.to_bits() as i64)
        .wrapping_add(2048);
    let k1 = ((kb as u64 >> 1) as i64).wrapping_sub(1024);
    let k2 = kb.wrapping_sub(2048).wrapping_sub(k1);
    let scale = |e: i64| f64::from_bits((e.wrapping_add(1023) as u64) << 52);
    let y = p * scale(k1) * scale(k2);
    if x.is_nan() {
        x
    } else if x > 709.8 {
        f64::INFINITY
    } else if x < -745.2 {
        0.0
    } else {
        y
    }
}

/// e^x (see `exp_with`), unfused: what the element-wise kernels (AVX2 without FMA) use.
#[inline(always)]
pub fn exp(x: f64) -> f64 {
    exp_with::<false>(x)
}

/// e^x of every element in place, with AVX-512 (8 lanes) or AVX2+FMA (4 lanes, fused
/// steps) where the CPU has them: for engines that hold their values in f64 buffers.
pub fn exp_in_place(v: &mut [f64]) {
    #[cfg(target_arch = "x86_64")]
    {
        #[target_feature(enable = "avx2,fma")]
        unsafe fn fused(v: &mut [f64]) {
            v.iter_mut().for_each(|x| *x = exp_with::<true>(*x));
        }
        #[target_feature(enable = "avx512f,avx2,fma")]
        unsafe fn fused512(v: &mut [f64]) {
            v.iter_mut().for_each(|x| *x = exp_with::<true>(*x));
        }
        if std::arch::is_x86_feature_detected!("avx512f") {
            // SAFETY: the CPU has the features the function is compiled for.
            return unsafe { fused512(v) };
        }
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
        {
            // SAFETY: the CPU has the features the function is compiled for.
            return unsafe { fused(v) };
        }
    }
    v.iter_mut().for_each(|x| *x = exp(*x));
}

/// 1/(1 + e^−x) from one exponential of −|x|, e = e^−|x|: 1/(1 + e) for x ≥ 0 and
/// e/(1 + e) for x < 0, so neither side overflows and a tiny result (down to f64's
/// subnormals) keeps its digits; both sides are computed and one selected, so a loop
/// vectorises. Within 4 ulp of f64 (exp's 2 and two roundings); NaN stays NaN.
#[inline(always)]
pub fn sigmoid(x: f64) -> f64 {
    let e = exp(-x.abs());
    let s = 1.0 / (1.0 + e);
    if x < 0.0 {
        e * s
    } else {
        s
    }
}

/// The same sigmoid on the C library's exp (≤ 1 ulp), with a branch: for f64 results,
/// whose 2-ulp bound the vectorised form does not meet everywhere.
pub fn sigmoid_libm(x: f64) -> f64 {
    if x >= 0.0 {
        1.0 / (1.0 + (-x).exp())
    } else {
        let e = x.exp();
        e / (1.0 + e)
    }
}

/// The lanes the f32 block functions below work on at once.
pub const F32_BLOCK: usize = 64;

/// GELU's tanh form x·σ(t), t = 2·sqrt(2/π)·(x + 0.044715·x³) (= 0.5x(1 + tanh(t/2))),
/// for a block of values in its domain x ≥ −9 (others give unspecified values: callers send
/// them, NaN included, to the f64 form), with fused multiply-adds and mostly f32 lanes.
///
/// y = x/(1 + e^−t). For x < 0 its relative error is e^−t's, so t's absolute error, and t
/// reaches −66: t and its reduction r = −t − n·ln2 are therefore computed in f64 (x² is
/// exact there, the other steps round at 2^−53), r is rounded to f32, and e^r (|r| ≤ 0.35)
/// is f32's Taylor series to degree 7 (truncation 5e−9, 0.1 ulp), scaled by 2^n (n ≤ 96)
/// in its exponent field. For x > 9, t is taken at 9: e^−t < 2^−95, so y = x, as the f64
/// form gives. Within 3 ulp of the correctly rounded value (2.28 over every f32 of the
/// domain, by the ignored test below); ±0 keep their sign, +inf gives +inf, a subnormal x
/// gives x/2 correctly rounded.
///
/// The function goes stage by stage over the whole block, so each stage is a run of
/// independent vector instructions: evaluated element by element, one long dependency
/// chain per vector left the core waiting on latencies (1.4 against 0.8 ns an element).
/// Only for code compiled for FMA: elsewhere `mul_add` is a library call.
#[inline(always)]
pub fn gelu_tanh_f32_fma(x: &[f32; F32_BLOCK], y: &mut [f32; F32_BLOCK]) {
    const L: usize = F32_BLOCK;
    const A: f64 = 1.595_769_121_605_730_7; // 2·sqrt(2/π)
    const B: f64 = A * 0.044_715;
    const ROUND: f64 = 6_755_399_441_055_744.0; // 1.5 * 2^52: adding it rounds to an integer

    // Index loops over fixed-size arrays, one per stage: each compiles to straight vector
    // code (iterator chains of zips here vectorised worse: 1.4 against 0.8 ns).
    let mut minus_t = [0f64; L];
    for i in 0..L {
        let w = x[i].min(9.0) as f64;
        minus_t[i] = w * (-B).mul_add(w * w, -A);
    }
    // −t = n·ln2 + r; kr = 1.5·2^52 + n, so n is in kr's low mantissa bits.
    let mut kr = [0f64; L];
    for i in 0..L {
        kr[i] = minus_t[i].mul_add(std::f64::consts::LOG2_E, ROUND);
    }
    let mut r = [0f32; L];
    for i in 0..L {
        r[i] = (kr[i] - ROUND).mul_add(-std::f64::consts::LN_2, minus_t[i]) as f32;
    }
    // 2^n as an addend to an f32 exponent field (wrapping: garbage outside the domain).
    let mut exponent = [0u32; L];
    for i in 0..L {
        exponent[i] = (kr[i].to_bits() as u32) << 23;
    }
    const C: [f32; 8] = [
        1.0,
        1.0,
        0.5,
        1.0 / 6.0,
        1.0 / 24.0,
        1.0 / 120.0,
        1.0 / 720.0,
        1.0 / 5_040.0,
    ];
    for i in 0..L {
        let mut er = C[7];
        for c in C[..7].iter().rev() {
            er = er.mul_add(r[i], *c);
        }
        let e = f32::from_bits(er.to_bits().wrapping_add(exponent[i]));
        y[i] = x[i] / (1.0 + e);
    }
}

/// `y = f(x)` by `fast`, a block function (see `F32_BLOCK`) valid on values where
/// `in_domain` holds, and `slow` on the others: blocks with such values are computed by
/// `fast` and then patched, so every result depends on its own value only (not on its
/// neighbours or position). The domain check is a fold that vectorises.
#[inline(always)]
pub fn map_f32_blocks(
    x: &[f32],
    y: &mut [f32],
    in_domain: impl Fn(f32) -> bool,
    fast: impl Fn(&[f32; F32_BLOCK], &mut [f32; F32_BLOCK]),
    slow: impl Fn(f32) -> f32,
) {
    // Not a closure: this must inline into the caller's FMA build, like `fast` itself.
    #[inline(always)]
    fn block(
        xs: &[f32; F32_BLOCK],
        ys: &mut [f32; F32_BLOCK],
        in_domain: &impl Fn(f32) -> bool,
        fast: &impl Fn(&[f32; F32_BLOCK], &mut [f32; F32_BLOCK]),
        slow: &impl Fn(f32) -> f32,
    ) {
        fast(xs, ys);
        if !xs.iter().fold(true, |ok, &v| ok & in_domain(v)) {
            for (o, &v) in ys.iter_mut().zip(xs) {
                if !in_domain(v) {
                    *o = slow(v);
                }
            }
        }
    }
    let (xs, xt) = x.as_chunks::<F32_BLOCK>();
    let (ys, yt) = y.as_chunks_mut::<F32_BLOCK>();
    for (xb, yb) in xs.iter().zip(ys) {
        block(xb, yb, &in_domain, &fast, &slow);
    }
    if !xt.is_empty() {
        let mut xb = [0f32; F32_BLOCK];
        let mut yb = [0f32; F32_BLOCK];
        xb[..xt.len()].copy_from_slice(xt);
        block(&xb, &mut yb, &in_domain, &fast, &slow);
        yt.copy_from_slice(&yb[..xt.len()]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Distance in units in the last place between two finite f64 of the same sign.
    fn ulps(a: f64, b: f64) -> u64 {
        (a.to_bits() as i64 - b.to_bits() as i64).unsigned_abs()
    }

    #[test]
    fn exp_is_within_2_ulp_of_the_library_exp_and_keeps_special_values() {
        let mut worst = 0;
        let mut x = -746.0f64;
        while x < 710.0 {
            for d in [0.0, 1e-7, 0.3183, 0.5, 0.693147] {
                let v = x + d;
                let (got, want) = (exp(v), v.exp());
                if want == 0.0 || want.is_infinite() {
                    assert_eq!(got, want, "exp({v})");
                } else {
                    worst = worst.max(ulps(got, want));
                }
            }
            x += 0.0137;
        }
        assert!(worst <= 2, "worst error {worst} ulp");
        assert!(exp(f64::NAN).is_nan());
        assert_eq!(exp(f64::NEG_INFINITY), 0.0);
        assert_eq!(exp(f64::INFINITY), f64::INFINITY);
        assert_eq!(exp(0.0), 1.0);
        assert_eq!(exp(-0.0), 1.0);
    }

    /// The error of an f32 result in units of the f32 ulp at the exact value `want`.
    fn f32_ulps(got: f32, want: f64) -> f64 {
        let w = want as f32;
        let ulp = if w.abs() < f32::MIN_POSITIVE {
            f32::from_bits(1) as f64
        } else {
            (f32::from_bits(w.abs().to_bits() & 0x7f80_0000) as f64) * f32::EPSILON as f64
        };
        (got as f64 - want).abs() / ulp
    }

    /// GELU's tanh form in f64 with the library exp, each side in its accurate form.
    fn gelu_tanh_f64(x: f64) -> f64 {
        let t = 2.0 * (2.0 / std::f64::consts::PI).sqrt() * (x + 0.044715 * x * x * x);
        if t >= 0.0 {
            x / (1.0 + (-t).exp())
        } else {
            x * t.exp() / (1.0 + t.exp())
        }
    }

    /// Worst error of `gelu_tanh_f32_fma` over every `step`-th f32 in [−9, 9].
    fn gelu_tanh_f32_worst_ulps(step: usize) -> f64 {
        let mut worst = 0.0f64;
        let mut x = [0f32; F32_BLOCK];
        let mut y = [0f32; F32_BLOCK];
        let mut check = |n: usize, x: &[f32; F32_BLOCK], y: &mut [f32; F32_BLOCK]| {
            gelu_tanh_f32_fma(x, y);
            for (&v, &got) in x.iter().zip(y.iter()).take(n) {
                let e = f32_ulps(got, gelu_tanh_f64(v as f64));
                assert!(
                    e <= 3.0,
                    "gelu_tanh_f32_fma({v:e}) = {got:e} is {e} ulp off"
                );
                worst = worst.max(e);
            }
        };
        let mut n = 0;
        for bits in (0..=9.0f32.to_bits()).step_by(step) {
            x[n] = f32::from_bits(bits);
            x[n + 1] = -x[n];
            n += 2;
            if n == F32_BLOCK {
                check(n, &x, &mut y);
                n = 0;
            }
        }
        check(n, &x, &mut y);
        worst
    }

    #[test]
    fn gelu_tanh_f32_is_within_3_ulp_on_its_domain() {
        let step = if cfg!(debug_assertions) {
            100_003
        } else {
            1_009
        };
        let worst = gelu_tanh_f32_worst_ulps(step);
        assert!(worst > 0.5, "the sweep measured nothing ({worst})");
        let mut x = [0f32; F32_BLOCK];
        let special = [0.0f32, -0.0, 1e-40, -1e-40, f32::MIN_POSITIVE, 9.0, -9.0];
        x[..special.len()].copy_from_slice(&special);
        let big = [9.5f32, 1e30, f32::MAX, f32::INFINITY];
        x[special.len()..][..big.len()].copy_from_slice(&big);
        let mut y = [0f32; F32_BLOCK];
        gelu_tanh_f32_fma(&x, &mut y);
        for (&v, &got) in x.iter().zip(&y).take(special.len()) {
            let e = f32_ulps(got, gelu_tanh_f64(v as f64));
            assert!(e <= 3.0, "gelu_tanh_f32_fma({v:e}) is {e} ulp off");
        }
        assert!(y[1].is_sign_negative() && y[1] == 0.0);
        assert_eq!(&y[special.len()..][..big.len()], &big);
    }

    /// Every f32 in [−9, 9]: a few minutes in release (`cargo test --release -- --ignored`).
    #[test]
    #[ignore]
    fn gelu_tanh_f32_is_within_3_ulp_on_every_value_of_its_domain() {
        eprintln!("worst: {} ulp", gelu_tanh_f32_worst_ulps(1));
    }

    #[test]
    fn map_f32_blocks_patches_the_values_outside_the_domain_only() {
        for n in [0, 1, 63, 64, 65, 300] {
            let x: Vec<f32> = (0..n).map(|i| i as f32).collect();
            let mut y = vec![0.0f32; n];
            let fast = |x: &[f32; F32_BLOCK], y: &mut [f32; F32_BLOCK]| {
                y.iter_mut().zip(x).for_each(|(o, &v)| *o = v + 0.5)
            };
            map_f32_blocks(&x, &mut y, |v| v != 150.0 && v != 299.0, fast, |v| -v);
            for (i, &v) in y.iter().enumerate() {
                let want = if i == 150 || i == 299 {
                    -(i as f32)
                } else {
                    i as f32 + 0.5
                };
                assert_eq!(v, want, "element {i} of {n}");
            }
        }
    }

    #[test]
    fn sigmoid_is_within_4_ulp_on_both_sides_down_to_subnormal_results() {
        let mut worst = 0;
        let mut x = -745.0f64;
        while x < 40.0 {
            // The reference in the form that is accurate on each side, with the library exp.
            let want = if x >= 0.0 {
                1.0 / (1.0 + (-x).exp())
            } else {
                x.exp() / (1.0 + x.exp())
            };
            let got = sigmoid(x);
            if want < f64::MIN_POSITIVE {
                assert!(
                    (got - want).abs() <= 4.0 * 5e-324,
                    "sigmoid({x}) = {got}, want {want}"
                );
            } else {
                worst = worst.max(ulps(got, want));
            }
            x += 0.00731;
        }
        assert!(worst <= 4, "worst error {worst} ulp");
        assert!(sigmoid(f64::NAN).is_nan());
        assert_eq!(sigmoid(f64::NEG_INFINITY), 0.0);
        assert_eq!(sigmoid(f64::INFINITY), 1.0);
        assert_eq!(sigmoid(-800.0), 0.0);
        assert_eq!(sigmoid(0.0), 0.5);
    }
}
