//! The element conversion rule (`element::convert`), checked against independent exact
//! references: SEMANTICS §5 (IEEE round-to-nearest-even, two's complement wrapping, NaN and
//! infinities propagate) and the module contract of `element.rs` (float -> int truncates
//! toward zero and saturates, NaN -> 0; bool conversions; complex per component).
//!
//! f16 and bf16 results are compared with a reference built from scratch: every finite
//! value of the format is decoded from its bits by hand, sorted, and the correctly rounded
//! result of x is found by comparing x with the exact midpoint of its two neighbours.

use crate::element::{convert, Bool8, Element, C128, C32, C64};
use half::{bf16, f16};
use num_complex::Complex;

// ---------------------------------------------------------------------------------------
// Tools
// ---------------------------------------------------------------------------------------

/// xorshift64*: a tiny seeded PRNG, so failures are reproducible.
struct Rng(u64);
impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed | 1)
    }
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    /// A finite f64 of random sign and mantissa with exponent in [emin, emax].
    fn f64_in_exp(&mut self, emin: i32, emax: i32) -> f64 {
        let e = emin + self.below((emax - emin + 1) as u64) as i32;
        let m = 1.0 + (self.next() >> 12) as f64 / (1u64 << 52) as f64;
        let s = if self.next() & 1 == 1 { -1.0 } else { 1.0 };
        s * m * 2f64.powi(e)
    }
}

/// Decodes IEEE binary16 bits by hand (not through `half`).
fn decode_f16(b: u16) -> f64 {
    let s = if b & 0x8000 != 0 { -1.0 } else { 1.0 };
    let e = ((b >> 10) & 0x1f) as i32;
    let m = (b & 0x3ff) as f64;
    match e {
        0 => s * m * 2f64.powi(-24),
        31 if m == 0.0 => s * f64::INFINITY,
        31 => f64::NAN,
        _ => s * (1024.0 + m) * 2f64.powi(e - 25),
    }
}

/// Decodes bfloat16 bits by hand (not through `half`).
fn decode_bf16(b: u16) -> f64 {
    let s = if b & 0x8000 != 0 { -1.0 } else { 1.0 };
    let e = ((b >> 7) & 0xff) as i32;
    let m = (b & 0x7f) as f64;
    match e {
        0 => s * m * 2f64.powi(-133),
        255 if m == 0.0 => s * f64::INFINITY,
        255 => f64::NAN,
        _ => s * (128.0 + m) * 2f64.powi(e - 134),
    }
}

/// A 16-bit float format (sign in bit 15) described only by its decoder.
struct Fmt16 {
    name: &'static str,
    /// Finite non-negative values with their bits, ascending, then `top` = the value one
    /// ulp past the largest finite one (2^(emax+1)) standing in for +inf (even bits).
    table: Vec<(f64, u16)>,
    top: f64,
    inf_bits: u16,
    /// The integral entries of `table` below 2^100, exactly.
    ints: Vec<(u128, u16)>,
}

impl Fmt16 {
    fn new(name: &'static str, decode: fn(u16) -> f64) -> Fmt16 {
        let mut table: Vec<(f64, u16)> = (0u16..0x8000)
            .map(|b| (decode(b), b))
            .filter(|(v, _)| v.is_finite())
            .collect();
        table.sort_by(|a, b| a.0.partial_cmp(&b.0).unwrap());
        for w in table.windows(2) {
            assert!(w[0].0 < w[1].0, "{name}: decoded values not distinct");
        }
        let inf_bits = (0u16..0x8000)
            .find(|b| decode(*b) == f64::INFINITY)
            .unwrap();
        let (max, _) = *table.last().unwrap();
        let (below_max, _) = table[table.len() - 2];
        let top = max + (max - below_max);
        assert_eq!(
            top.log2().fract(),
            0.0,
            "{name}: top must be a power of two"
        );
        table.push((top, inf_bits));
        let ints = table
            .iter()
            .filter(|(v, _)| v.fract() == 0.0 && *v < 2f64.powi(100))
            .map(|&(v, b)| (v as u128, b))
            .collect();
        Fmt16 {
            name,
            table,
            top,
            inf_bits,
            ints,
        }
    }

    fn f16() -> Fmt16 {
        Fmt16::new("f16", decode_f16)
    }
    fn bf16() -> Fmt16 {
        Fmt16::new("bf16", decode_bf16)
    }

    /// The correctly rounded (nearest, ties to even) bits of a non-NaN x.
    fn round(&self, x: f64) -> u16 {
        assert!(!x.is_nan());
        let sign = if x.is_sign_negative() { 0x8000 } else { 0 };
        let a = x.abs();
        if a >= self.top {
            return sign | self.inf_bits;
        }
        let i = self.table.partition_point(|(v, _)| *v <= a);
        let (lo, lo_bits) = self.table[i - 1];
        let (hi, hi_bits) = self.table[i];
        if lo == a {
            return sign | lo_bits;
        }
        let mid = (lo + hi) / 2.0; // exact: both have few significant bits
        debug_assert!(lo < mid && mid < hi);
        let bits = if a < mid {
            lo_bits
        } else if a > mid {
            hi_bits
        } else if lo_bits & 1 == 0 {
            lo_bits
        } else {
            hi_bits
        };
        sign | bits
    }

    /// The correctly rounded bits of an integer. For integers, the neighbours that matter
    /// are integers (every integer below 2^(p) is exact; above it every value is an
    /// integer), so the comparison is done exactly in u128.
    fn round_int(&self, x: i128) -> u16 {
        let sign = if x < 0 { 0x8000 } else { 0 };
        let a = x.unsigned_abs();
        let ints = &self.ints;
        if a > ints.last().unwrap().0 {
            // only f16, whose `top` (2^16, standing for inf) is in `ints`
            return sign | self.inf_bits;
        }
        let i = ints.partition_point(|(v, _)| *v <= a);
        let (lo, lo_bits) = ints[i - 1];
        if lo == a {
            return sign | lo_bits;
        }
        let (hi, hi_bits) = ints[i];
        let bits = match (2 * a).cmp(&(lo + hi)) {
            std::cmp::Ordering::Less => lo_bits,
            std::cmp::Ordering::Greater => hi_bits,
            std::cmp::Ordering::Equal if lo_bits & 1 == 0 => lo_bits,
            std::cmp::Ordering::Equal => hi_bits,
        };
        sign | bits
    }

    /// Interesting f64 inputs: for every pair of adjacent non-negative values (and the
    /// overflow pair max..2^(emax+1)), the exact midpoint, the midpoint ± 1 f64 ulp, the
    /// midpoint ± one f32 ulp and ± half an f32 ulp (± 1 f64 ulp), the neighbours ± 1 f64
    /// ulp, all with both signs.
    fn hard_inputs(&self) -> Vec<f64> {
        let mut out = Vec::with_capacity(self.table.len() * 24);
        for w in self.table.windows(2) {
            let (lo, hi) = (w[0].0, w[1].0);
            let mid = (lo + hi) / 2.0;
            let m32 = mid as f32;
            assert_eq!(m32 as f64, mid, "midpoints are f32 values");
            let up32 = m32.next_up() as f64;
            let down32 = m32.next_down() as f64;
            let half_up = mid + (up32 - mid) / 2.0;
            let half_down = mid - (mid - down32) / 2.0;
            for x in [
                mid,
                mid.next_up(),
                mid.next_down(),
                up32,
                down32,
                half_up,
                half_up.next_up(),
                half_up.next_down(),
                half_down,
                half_down.next_down(),
                lo.next_up(),
                hi.next_down(),
            ] {
                out.push(x);
                out.push(-x);
            }
        }
        out
    }
}

fn bits_of<T: Element>(v: T) -> u16
where
    T: Into<HalfBits>,
{
    v.into().0
}

/// The raw bits of an f16 or bf16.
struct HalfBits(u16);
impl From<f16> for HalfBits {
    fn from(v: f16) -> Self {
        HalfBits(v.to_bits())
    }
}
impl From<bf16> for HalfBits {
    fn from(v: bf16) -> Self {
        HalfBits(v.to_bits())
    }
}

/// Checks `convert::<S, D>` against `fmt` for every input; returns the failures.
fn check_narrow<S: Element, D: Element + Into<HalfBits>>(
    fmt: &Fmt16,
    inputs: &[S],
    exact: impl Fn(S) -> f64,
) -> Bad {
    let mut bad = Bad::default();
    for &s in inputs {
        let x = exact(s);
        if x.is_nan() {
            continue;
        }
        let got = bits_of(convert::<S, D>(s));
        let want = fmt.round(x);
        if got != want {
            bad.add(|| {
                format!(
                "{:?} -> {}: x = {x:e} ({:#018x}): got {got:#06x} ({:e}), want {want:#06x} ({:e})",
                s,
                fmt.name,
                x.to_bits(),
                decode_any(fmt, got),
                decode_any(fmt, want)
            )
            });
        }
    }
    bad
}

fn decode_any(fmt: &Fmt16, b: u16) -> f64 {
    if fmt.name == "f16" {
        decode_f16(b)
    } else {
        decode_bf16(b)
    }
}

/// Failures of a sweep: how many, and the first few messages.
#[derive(Default)]
struct Bad {
    n: usize,
    first: Vec<String>,
}
impl Bad {
    fn add(&mut self, msg: impl FnOnce() -> String) {
        self.n += 1;
        if self.first.len() < 12 {
            self.first.push(msg());
        }
    }
    fn extend(&mut self, other: Bad) {
        self.n += other.n;
        for m in other.first {
            if self.first.len() < 12 {
                self.first.push(m);
            }
        }
    }
}

fn assert_none(what: &str, bad: Bad) {
    assert!(
        bad.n == 0,
        "{what}: {} failures; the first ones:\n{}",
        bad.n,
        bad.first.join("\n")
    );
}

/// Two's complement wrapping of v into `bits` bits.
fn wrap_ref(v: i128, bits: u32, signed: bool) -> i128 {
    let m = 1i128 << bits;
    let r = v.rem_euclid(m);
    if signed && r >= m / 2 {
        r - m
    } else {
        r
    }
}

fn int_shape(d: crate::dtype::DType) -> (u32, bool) {
    use crate::dtype::DType::*;
    match d {
        S8 => (8, true),
        U8 => (8, false),
        S16 => (16, true),
        U16 => (16, false),
        S32 => (32, true),
        U32 => (32, false),
        S64 => (64, true),
        U64 => (64, false),
        other => panic!("{other:?} is not an integer dtype"),
    }
}

/// Round-to-nearest-even of a non-negative integer to `p` significant bits (exact, in u128).
fn rne_int(a: u128, p: u32) -> u128 {
    let bits = 128 - a.leading_zeros();
    if bits <= p {
        return a;
    }
    let shift = bits - p;
    let q = a >> shift;
    let rem = a & ((1u128 << shift) - 1);
    let half = 1u128 << (shift - 1);
    let q = if rem > half || (rem == half && q & 1 == 1) {
        q + 1
    } else {
        q
    };
    q << shift
}

#[test]
fn reference_has_teeth_naive_double_rounding_through_f32_is_caught() {
    // A check of the test's reference, not of the library: the plain double rounding
    // f64 -> f32 -> f16/bf16 (and int -> f64 -> bf16) must disagree with it on the hard
    // inputs, or the correct-rounding tests below would prove nothing.
    let f = Fmt16::f16();
    let b = Fmt16::bf16();
    let wrong_f = f
        .hard_inputs()
        .iter()
        .filter(|x| f16::from_f32(**x as f32).to_bits() != f.round(**x))
        .count();
    let wrong_b = b
        .hard_inputs()
        .iter()
        .filter(|x| bf16::from_f32(**x as f32).to_bits() != b.round(**x))
        .count();
    assert!(
        wrong_f > 1000 && wrong_b > 1000,
        "naive f16 misses {wrong_f}, bf16 misses {wrong_b}"
    );
    let wrong_i = hard_int_inputs(&b)
        .iter()
        .filter(|v| bf16::from_f32(**v as f64 as f32).to_bits() != b.round_int(**v))
        .count();
    assert!(wrong_i > 100, "naive int -> bf16 misses {wrong_i}");
    // and the reference agrees with known values
    assert_eq!(f.round(65504.0), 0x7BFF);
    assert_eq!(f.round(65520.0), 0x7C00);
    assert_eq!(f.round(65520.0f64.next_down()), 0x7BFF);
    assert_eq!(f.round(1.0 + 2f64.powi(-11)), 0x3C00); // tie -> even
    assert_eq!(f.round((1.0 + 2f64.powi(-11)).next_up()), 0x3C01);
    assert_eq!(b.round(1.0 + 2f64.powi(-8)), 0x3F80);
    assert_eq!(b.round(-(1.0 + 3.0 * 2f64.powi(-8))), 0xBF82);
    assert_eq!(f.round_int(2049), 0x6800);
    assert_eq!(b.round_int(257), 0x4380);
    assert_eq!(b.round_int(259), 0x4382);
}

// ---------------------------------------------------------------------------------------
// int -> int: two's complement wrapping
// ---------------------------------------------------------------------------------------

#[test]
fn int_to_int_wraps_examples_semantics_5() {
    assert_eq!(convert::<i32, u8>(300), 44);
    assert_eq!(convert::<i64, u32>(-1), 0xFFFF_FFFF);
    assert_eq!(convert::<u64, i64>(u64::MAX), -1);
    assert_eq!(convert::<i8, u64>(-1), u64::MAX);
    assert_eq!(convert::<u32, i16>(70000), 4464);
    assert_eq!(convert::<i16, i8>(-129), 127);
    assert_eq!(convert::<u8, i8>(200), -56);
    assert_eq!(convert::<i64, i32>(i64::MIN), 0);
    assert_eq!(convert::<i32, i64>(i32::MIN), i32::MIN as i64);
}

fn check_int_to_int<S, D>(vals: &[i128]) -> Bad
where
    S: Element + TryFrom<i128> + Into<i128>,
    <S as TryFrom<i128>>::Error: std::fmt::Debug,
    D: Element + Into<i128>,
{
    let (sb, ss) = int_shape(S::DTYPE);
    let (db, ds) = int_shape(D::DTYPE);
    let mut bad = Bad::default();
    for &v in vals {
        let s = S::try_from(wrap_ref(v, sb, ss)).unwrap();
        let got: i128 = convert::<S, D>(s).into();
        let want = wrap_ref(s.into(), db, ds);
        if got != want {
            bad.add(|| {
                format!(
                    "{:?} {s:?} -> {:?}: got {got}, want {want}",
                    S::DTYPE,
                    D::DTYPE
                )
            });
        }
    }
    bad
}

macro_rules! int_to_all_ints {
    ($bad:ident, $vals:expr, $s:ty) => {
        $bad.extend(check_int_to_int::<$s, i8>($vals));
        $bad.extend(check_int_to_int::<$s, u8>($vals));
        $bad.extend(check_int_to_int::<$s, i16>($vals));
        $bad.extend(check_int_to_int::<$s, u16>($vals));
        $bad.extend(check_int_to_int::<$s, i32>($vals));
        $bad.extend(check_int_to_int::<$s, u32>($vals));
        $bad.extend(check_int_to_int::<$s, i64>($vals));
        $bad.extend(check_int_to_int::<$s, u64>($vals));
    };
}

#[test]
fn int_to_int_all_64_pairs_wrap_twos_complement_semantics_5() {
    let mut rng = Rng::new(0x1234);
    let mut vals: Vec<i128> = vec![
        0, 1, -1, 127, 128, -128, -129, 255, 256, 32767, 32768, 65535, 65536,
    ];
    for k in [8, 16, 32, 63, 64] {
        let p = 1i128 << k;
        vals.extend([
            p - 1,
            p,
            p + 1,
            -p,
            -p - 1,
            -p + 1,
            p / 2 - 1,
            p / 2,
            -(p / 2),
        ]);
    }
    for _ in 0..2000 {
        vals.push(rng.next() as i64 as i128 >> rng.below(64));
    }
    let mut bad = Bad::default();
    int_to_all_ints!(bad, &vals, i8);
    int_to_all_ints!(bad, &vals, u8);
    int_to_all_ints!(bad, &vals, i16);
    int_to_all_ints!(bad, &vals, u16);
    int_to_all_ints!(bad, &vals, i32);
    int_to_all_ints!(bad, &vals, u32);
    int_to_all_ints!(bad, &vals, i64);
    int_to_all_ints!(bad, &vals, u64);
    assert_none("int -> int", bad);
}

// ---------------------------------------------------------------------------------------
// float -> int: truncation toward zero, saturation, NaN -> 0
// ---------------------------------------------------------------------------------------

#[test]
fn float_to_int_truncates_toward_zero_and_saturates_examples() {
    assert_eq!(convert::<f64, i32>(3.9), 3);
    assert_eq!(convert::<f64, i32>(-3.9), -3);
    assert_eq!(convert::<f32, i8>(-0.99), 0);
    assert_eq!(convert::<f64, i32>(1e10), i32::MAX);
    assert_eq!(convert::<f64, i32>(-1e10), i32::MIN);
    assert_eq!(convert::<f64, u8>(-1.0), 0);
    assert_eq!(convert::<f64, u8>(300.5), 255);
    assert_eq!(convert::<f64, u8>(255.9), 255);
    assert_eq!(convert::<f16, i8>(f16::from_f32(200.0)), 127);
    assert_eq!(convert::<f16, i8>(f16::from_f32(-200.0)), -128);
    assert_eq!(convert::<bf16, u64>(bf16::from_f32(1e30)), u64::MAX);
    assert_eq!(convert::<f64, i64>(9.223372036854775807e18), i64::MAX); // = 2^63
    assert_eq!(convert::<f64, i64>(-9.223372036854775808e18), i64::MIN); // = -2^63, exact
    assert_eq!(convert::<f64, u64>(1.8e19), 18_000_000_000_000_000_000);
    assert_eq!(convert::<f64, u64>(18446744073709551616.0), u64::MAX); // 2^64
}

#[test]
fn float_to_int_nan_is_zero_and_infinities_saturate() {
    assert_eq!(convert::<f64, i32>(f64::NAN), 0);
    assert_eq!(convert::<f32, u64>(f32::NAN), 0);
    assert_eq!(convert::<f16, i16>(f16::NAN), 0);
    assert_eq!(convert::<bf16, u8>(bf16::NAN), 0);
    assert_eq!(convert::<f64, i64>(f64::INFINITY), i64::MAX);
    assert_eq!(convert::<f64, i64>(f64::NEG_INFINITY), i64::MIN);
    assert_eq!(convert::<f32, u16>(f32::INFINITY), u16::MAX);
    assert_eq!(convert::<f32, u16>(f32::NEG_INFINITY), 0);
    assert_eq!(convert::<f16, i8>(f16::INFINITY), i8::MAX);
    assert_eq!(convert::<f16, i8>(f16::NEG_INFINITY), i8::MIN);
}

fn float_to_int_ref(x: f64, bits: u32, signed: bool) -> i128 {
    if x.is_nan() {
        return 0;
    }
    let (lo, hi) = if signed {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    };
    let t = x.trunc();
    if t >= (hi + 1) as f64 {
        hi
    } else if t < lo as f64 {
        lo
    } else {
        t as i128
    }
}

fn check_float_to_int<S: Element, D: Element + Into<i128>>(vals: &[S], exact: fn(S) -> f64) -> Bad {
    let (db, ds) = int_shape(D::DTYPE);
    let mut bad = Bad::default();
    for &s in vals {
        let got: i128 = convert::<S, D>(s).into();
        let want = float_to_int_ref(exact(s), db, ds);
        if got != want {
            bad.add(|| format!("{s:?} -> {:?}: got {got}, want {want}", D::DTYPE));
        }
    }
    bad
}

macro_rules! float_to_all_ints {
    ($bad:ident, $vals:expr, $exact:expr) => {
        $bad.extend(check_float_to_int::<_, i8>($vals, $exact));
        $bad.extend(check_float_to_int::<_, u8>($vals, $exact));
        $bad.extend(check_float_to_int::<_, i16>($vals, $exact));
        $bad.extend(check_float_to_int::<_, u16>($vals, $exact));
        $bad.extend(check_float_to_int::<_, i32>($vals, $exact));
        $bad.extend(check_float_to_int::<_, u32>($vals, $exact));
        $bad.extend(check_float_to_int::<_, i64>($vals, $exact));
        $bad.extend(check_float_to_int::<_, u64>($vals, $exact));
    };
}

#[test]
fn float_to_int_every_pair_truncates_and_saturates_against_reference() {
    let mut rng = Rng::new(77);
    let mut f64s: Vec<f64> = vec![
        0.0,
        -0.0,
        0.5,
        -0.5,
        1.0,
        -1.0,
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::MAX,
        f64::MIN,
    ];
    for k in [7, 8, 15, 16, 31, 32, 63, 64] {
        let p = 2f64.powi(k);
        f64s.extend([
            p,
            -p,
            p - 1.0,
            -p - 1.0,
            p.next_down(),
            p.next_up(),
            -p.next_up(),
            -p.next_down(),
            p - 0.5,
            -p + 0.5,
        ]);
    }
    for _ in 0..1000 {
        f64s.push(rng.f64_in_exp(-3, 66));
    }
    let f32s: Vec<f32> = f64s.iter().map(|x| *x as f32).collect();
    let f16s: Vec<f16> = (0..=u16::MAX).map(f16::from_bits).collect();
    let bf16s: Vec<bf16> = (0..=u16::MAX).step_by(7).map(bf16::from_bits).collect();
    let mut bad = Bad::default();
    float_to_all_ints!(bad, &f64s, |x: f64| x);
    float_to_all_ints!(bad, &f32s, |x: f32| x as f64);
    float_to_all_ints!(bad, &f16s, |x: f16| decode_f16(x.to_bits()));
    float_to_all_ints!(bad, &bf16s, |x: bf16| decode_bf16(x.to_bits()));
    assert_none("float -> int", bad);
}

// ---------------------------------------------------------------------------------------
// int -> float: round to nearest even
// ---------------------------------------------------------------------------------------

#[test]
fn int_to_float_rounds_to_nearest_even_examples_semantics_5() {
    assert_eq!(convert::<u64, f32>(u64::MAX), 18446744073709551616.0f32); // 2^64
    assert_eq!(convert::<u64, f64>(u64::MAX), 18446744073709551616.0f64);
    assert_eq!(convert::<i64, f64>((1 << 53) + 1), 9007199254740992.0); // tie -> even (2^53)
    assert_eq!(convert::<i64, f64>((1 << 53) + 3), 9007199254740996.0); // tie -> even (2^53+4)
    assert_eq!(convert::<u64, f64>(u64::MAX - 1024), 18446744073709549568.0); // below the midpoint
    assert_eq!(convert::<u64, f64>(u64::MAX - 1023), 18446744073709551616.0); // midpoint, odd below -> up
    assert_eq!(convert::<i32, f32>((1 << 24) + 1), 16777216.0);
    assert_eq!(convert::<i32, f32>((1 << 24) + 3), 16777220.0);
    assert_eq!(convert::<i32, f32>(i32::MAX), 2147483648.0);
    assert_eq!(convert::<i64, f32>(i64::MIN), -9223372036854775808.0);
    assert_eq!(convert::<i8, f32>(-128), -128.0);
}

fn check_int_to_wide_float<S: Element + Into<i128>>(vals: &[i128]) -> Bad
where
    S: TryFrom<i128>,
    <S as TryFrom<i128>>::Error: std::fmt::Debug,
{
    let (sb, ss) = int_shape(S::DTYPE);
    let mut bad = Bad::default();
    for &v in vals {
        let s = S::try_from(wrap_ref(v, sb, ss)).unwrap();
        let i: i128 = s.into();
        let sign = if i < 0 { -1i128 } else { 1 };
        let want32 = sign * rne_int(i.unsigned_abs(), 24) as i128;
        let want64 = sign * rne_int(i.unsigned_abs(), 53) as i128;
        let got32 = convert::<S, f32>(s) as f64 as i128;
        let got64 = convert::<S, f64>(s) as i128;
        if got32 != want32 || got64 != want64 {
            bad.add(|| {
                format!(
                    "{:?} {i}: f32 got {got32} want {want32}; f64 got {got64} want {want64}",
                    S::DTYPE
                )
            });
        }
    }
    bad
}

#[test]
fn int_to_f32_and_f64_round_to_nearest_even_against_exact_reference() {
    let mut rng = Rng::new(99);
    let mut vals: Vec<i128> = Vec::new();
    for k in 20..64 {
        let p = 1i128 << k;
        for d in -5..=5 {
            vals.push(p + d);
            vals.push(-p + d);
            // midpoints for 24 and 53 bits, and their neighbours
            for prec in [24, 53] {
                if k > prec {
                    let half = 1i128 << (k - prec);
                    vals.push(p + half + d);
                    vals.push(p + 3 * half + d);
                }
            }
        }
    }
    for _ in 0..3000 {
        vals.push(rng.next() as i128 >> rng.below(64));
        vals.push(-((rng.next() >> rng.below(64)) as i128));
    }
    let mut bad = Bad::default();
    bad.extend(check_int_to_wide_float::<i8>(&vals));
    bad.extend(check_int_to_wide_float::<u8>(&vals));
    bad.extend(check_int_to_wide_float::<i16>(&vals));
    bad.extend(check_int_to_wide_float::<u16>(&vals));
    bad.extend(check_int_to_wide_float::<i32>(&vals));
    bad.extend(check_int_to_wide_float::<u32>(&vals));
    bad.extend(check_int_to_wide_float::<i64>(&vals));
    bad.extend(check_int_to_wide_float::<u64>(&vals));
    assert_none("int -> f32/f64", bad);
}

/// Integer inputs for f16/bf16: every midpoint between adjacent integral values (and ± 1,
/// ± 2), the values themselves ± 1, up to 2^64, plus random ones.
fn hard_int_inputs(fmt: &Fmt16) -> Vec<i128> {
    let ints: Vec<i128> = fmt
        .table
        .iter()
        .filter(|(v, _)| v.fract() == 0.0 && *v <= 2f64.powi(64))
        .map(|(v, _)| *v as i128)
        .collect();
    let mut out = Vec::new();
    for w in ints.windows(2) {
        let (lo, hi) = (w[0], w[1]);
        let s = lo + hi;
        for x in [
            s / 2 - 2,
            s / 2 - 1,
            s / 2,
            s / 2 + 1,
            s / 2 + 2,
            lo + 1,
            hi - 1,
            lo,
        ] {
            out.push(x);
            out.push(-x);
        }
    }
    let mut rng = Rng::new(4242);
    for _ in 0..5000 {
        out.push((rng.next() >> rng.below(64)) as i128);
        out.push(rng.next() as i64 as i128 >> rng.below(64));
    }
    out.extend([
        u64::MAX as i128,
        i64::MAX as i128,
        i64::MIN as i128,
        0,
        65504,
        65519,
        65520,
        65521,
    ]);
    out
}

fn check_int_narrow<S, D>(fmt: &Fmt16, vals: &[i128]) -> Bad
where
    S: Element + TryFrom<i128> + Into<i128>,
    D: Element + Into<HalfBits>,
{
    let mut bad = Bad::default();
    for &v in vals {
        let Ok(s) = S::try_from(v) else { continue };
        let got = bits_of(convert::<S, D>(s));
        let want = fmt.round_int(v);
        if got != want {
            bad.add(|| {
                format!(
                    "{:?} {v} -> {}: got {got:#06x} ({:e}), want {want:#06x} ({:e})",
                    S::DTYPE,
                    fmt.name,
                    decode_any(fmt, got),
                    decode_any(fmt, want)
                )
            });
        }
    }
    bad
}

#[test]
fn i64_and_u64_to_bf16_are_correctly_rounded_beyond_2_pow_53() {
    let fmt = Fmt16::bf16();
    let vals = hard_int_inputs(&fmt);
    assert!(
        vals.iter()
            .filter(|v| v.unsigned_abs() > 1u128 << 53)
            .count()
            > 1000
    );
    let mut bad = Bad::default();
    bad.extend(check_int_narrow::<i64, bf16>(&fmt, &vals));
    bad.extend(check_int_narrow::<u64, bf16>(&fmt, &vals));
    bad.extend(check_int_narrow::<i32, bf16>(&fmt, &vals));
    bad.extend(check_int_narrow::<u32, bf16>(&fmt, &vals));
    bad.extend(check_int_narrow::<i16, bf16>(&fmt, &vals));
    bad.extend(check_int_narrow::<u16, bf16>(&fmt, &vals));
    bad.extend(check_int_narrow::<i8, bf16>(&fmt, &vals));
    bad.extend(check_int_narrow::<u8, bf16>(&fmt, &vals));
    assert_none("int -> bf16", bad);
    // Spot values: 2^64 - 1 rounds up to 2^64; 2^56 + 2^48 + 1 (just above a midpoint) rounds up.
    assert_eq!(convert::<u64, bf16>(u64::MAX).to_bits(), 0x5F80);
    assert_eq!(
        convert::<u64, bf16>((1 << 56) + (1 << 48) + 1).to_bits(),
        0x5B81
    );
    assert_eq!(
        convert::<u64, bf16>((1 << 56) + (1 << 48)).to_bits(),
        0x5B80
    ); // tie -> even
    assert_eq!(convert::<i64, bf16>(i64::MIN).to_bits(), 0xDF00);
}

#[test]
fn ints_to_f16_are_correctly_rounded_and_overflow_to_inf() {
    let fmt = Fmt16::f16();
    let vals = hard_int_inputs(&fmt);
    let mut bad = Bad::default();
    bad.extend(check_int_narrow::<i64, f16>(&fmt, &vals));
    bad.extend(check_int_narrow::<u64, f16>(&fmt, &vals));
    bad.extend(check_int_narrow::<i32, f16>(&fmt, &vals));
    bad.extend(check_int_narrow::<u32, f16>(&fmt, &vals));
    bad.extend(check_int_narrow::<i16, f16>(&fmt, &vals));
    bad.extend(check_int_narrow::<u16, f16>(&fmt, &vals));
    bad.extend(check_int_narrow::<i8, f16>(&fmt, &vals));
    bad.extend(check_int_narrow::<u8, f16>(&fmt, &vals));
    assert_none("int -> f16", bad);
    assert_eq!(convert::<i32, f16>(65519).to_bits(), 0x7BFF); // 65504
    assert_eq!(convert::<i32, f16>(65520).to_bits(), 0x7C00); // midpoint to 2^16: inf
    assert_eq!(convert::<i32, f16>(-65520).to_bits(), 0xFC00);
    assert_eq!(convert::<u64, f16>(u64::MAX).to_bits(), 0x7C00);
    assert_eq!(convert::<i32, f16>(2049).to_bits(), 0x6800); // 2048 (tie -> even)
    assert_eq!(convert::<i32, f16>(2051).to_bits(), 0x6802); // 2052 (tie -> even)
}

// ---------------------------------------------------------------------------------------
// float -> float
// ---------------------------------------------------------------------------------------

#[test]
fn f64_to_f32_rounds_to_nearest_even_and_overflows_to_inf_semantics_5() {
    let one = 1.0f64;
    assert_eq!(convert::<f64, f32>(0.1), 0.1f32);
    assert_eq!(convert::<f64, f32>(one + 2f64.powi(-24)), 1.0); // tie -> even
    assert_eq!(
        convert::<f64, f32>((one + 2f64.powi(-24)).next_up()),
        1.0 + 2f32.powi(-23)
    );
    assert_eq!(
        convert::<f64, f32>(one + 3.0 * 2f64.powi(-24)),
        1.0 + 2f32.powi(-22)
    ); // tie -> even
    let max = f32::MAX as f64;
    let half_ulp = 2f64.powi(103);
    assert_eq!(convert::<f64, f32>(max + half_ulp), f32::INFINITY); // tie at the top -> inf
    assert_eq!(convert::<f64, f32>((max + half_ulp).next_down()), f32::MAX);
    assert_eq!(convert::<f64, f32>(1e39), f32::INFINITY);
    assert_eq!(convert::<f64, f32>(-1e39), f32::NEG_INFINITY);
    assert_eq!(convert::<f64, f32>(f64::MAX), f32::INFINITY);
    // subnormals
    assert_eq!(convert::<f64, f32>(1e-45).to_bits(), 1);
    assert_eq!(convert::<f64, f32>(2f64.powi(-150)).to_bits(), 0); // tie -> even (0)
    assert_eq!(convert::<f64, f32>(2f64.powi(-150).next_up()).to_bits(), 1);
    assert_eq!(convert::<f64, f32>(3.0 * 2f64.powi(-150)).to_bits(), 2); // tie -> even
    assert_eq!(convert::<f64, f32>(-2f64.powi(-160)).to_bits(), 0x8000_0000); // -0
                                                                              // widening is exact
    for x in [0.1f32, f32::MAX, f32::MIN_POSITIVE, 1e-45, -3.5] {
        assert_eq!(convert::<f32, f64>(x), x as f64);
    }
}

#[test]
fn f64_to_f16_is_correctly_rounded_near_every_midpoint() {
    let fmt = Fmt16::f16();
    let xs = fmt.hard_inputs();
    assert_none(
        "f64 -> f16 (hard)",
        check_narrow::<f64, f16>(&fmt, &xs, |x| x),
    );
}

#[test]
fn f64_to_bf16_is_correctly_rounded_near_every_midpoint() {
    let fmt = Fmt16::bf16();
    let xs = fmt.hard_inputs();
    assert_none(
        "f64 -> bf16 (hard)",
        check_narrow::<f64, bf16>(&fmt, &xs, |x| x),
    );
}

#[test]
fn f64_to_f16_and_bf16_are_correctly_rounded_for_random_values() {
    let f = Fmt16::f16();
    let b = Fmt16::bf16();
    let mut rng = Rng::new(0xF16);
    let mut xs_f = Vec::new();
    let mut xs_b = Vec::new();
    for _ in 0..100_000 {
        xs_f.push(rng.f64_in_exp(-27, 17));
        xs_b.push(rng.f64_in_exp(-136, 129));
        let raw = f64::from_bits(rng.next());
        xs_f.push(raw);
        xs_b.push(raw);
    }
    for x in [
        0.0,
        -0.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::MAX,
        f64::MIN,
        5e-324,
        -5e-324,
        0.1,
        1.0 / 3.0,
    ] {
        xs_f.push(x);
        xs_b.push(x);
    }
    assert_none(
        "f64 -> f16 (random)",
        check_narrow::<f64, f16>(&f, &xs_f, |x| x),
    );
    assert_none(
        "f64 -> bf16 (random)",
        check_narrow::<f64, bf16>(&b, &xs_b, |x| x),
    );
}

#[test]
fn f32_to_f16_and_bf16_are_correctly_rounded() {
    let f = Fmt16::f16();
    let b = Fmt16::bf16();
    let mut rng = Rng::new(0x32);
    let mut xs: Vec<f32> = (0..100_000)
        .map(|_| f32::from_bits(rng.next() as u32))
        .collect();
    for fmt in [&f, &b] {
        for w in fmt.table.windows(2) {
            let m = ((w[0].0 + w[1].0) / 2.0) as f32;
            xs.extend([
                m,
                m.next_up(),
                m.next_down(),
                -m,
                -m.next_up(),
                -m.next_down(),
            ]);
        }
    }
    assert_none(
        "f32 -> f16",
        check_narrow::<f32, f16>(&f, &xs, |x| x as f64),
    );
    assert_none(
        "f32 -> bf16",
        check_narrow::<f32, bf16>(&b, &xs, |x| x as f64),
    );
}

#[test]
fn f16_bf16_cross_conversions_are_correctly_rounded_exhaustively() {
    let f = Fmt16::f16();
    let b = Fmt16::bf16();
    let all_f16: Vec<f16> = (0..=u16::MAX).map(f16::from_bits).collect();
    let all_bf16: Vec<bf16> = (0..=u16::MAX).map(bf16::from_bits).collect();
    assert_none(
        "f16 -> bf16",
        check_narrow::<f16, bf16>(&b, &all_f16, |x| decode_f16(x.to_bits())),
    );
    assert_none(
        "bf16 -> f16",
        check_narrow::<bf16, f16>(&f, &all_bf16, |x| decode_bf16(x.to_bits())),
    );
    // f16 -> f16 and bf16 -> bf16 are the identity on every non-NaN value.
    assert_none(
        "f16 -> f16",
        check_narrow::<f16, f16>(&f, &all_f16, |x| decode_f16(x.to_bits())),
    );
    assert_none(
        "bf16 -> bf16",
        check_narrow::<bf16, bf16>(&b, &all_bf16, |x| decode_bf16(x.to_bits())),
    );
}

#[test]
fn f16_and_bf16_widen_exactly_to_f32_and_f64() {
    for b in 0..=u16::MAX {
        let (h, g) = (f16::from_bits(b), bf16::from_bits(b));
        let (xh, xg) = (decode_f16(b), decode_bf16(b));
        if xh.is_nan() {
            assert!(convert::<f16, f64>(h).is_nan() && convert::<f16, f32>(h).is_nan());
        } else {
            assert_eq!(
                convert::<f16, f64>(h).to_bits(),
                xh.to_bits(),
                "f16 {b:#06x} -> f64"
            );
            assert_eq!(convert::<f16, f32>(h) as f64, xh, "f16 {b:#06x} -> f32");
            // and back: the round trip is the identity
            assert_eq!(convert::<f64, f16>(xh).to_bits(), b);
        }
        if xg.is_nan() {
            assert!(convert::<bf16, f64>(g).is_nan() && convert::<bf16, f32>(g).is_nan());
        } else {
            assert_eq!(
                convert::<bf16, f64>(g).to_bits(),
                xg.to_bits(),
                "bf16 {b:#06x} -> f64"
            );
            assert_eq!(
                convert::<bf16, f32>(g).to_bits(),
                (xg as f32).to_bits(),
                "bf16 {b:#06x} -> f32"
            );
            assert_eq!(convert::<f64, bf16>(xg).to_bits(), b);
        }
    }
}

#[test]
fn subnormals_round_correctly_into_f16_and_bf16() {
    // f16: smallest subnormal 2^-24; half of it is a tie that goes to (even) zero.
    assert_eq!(convert::<f64, f16>(2f64.powi(-24)).to_bits(), 0x0001);
    assert_eq!(convert::<f64, f16>(2f64.powi(-25)).to_bits(), 0x0000);
    assert_eq!(
        convert::<f64, f16>(2f64.powi(-25).next_up()).to_bits(),
        0x0001
    );
    assert_eq!(convert::<f64, f16>(3.0 * 2f64.powi(-25)).to_bits(), 0x0002); // tie -> even
    assert_eq!(convert::<f64, f16>(-2f64.powi(-26)).to_bits(), 0x8000);
    assert_eq!(convert::<f64, f16>(6.0975552e-5).to_bits(), 0x03FF); // largest subnormal
                                                                     // bf16: smallest subnormal 2^-133.
    assert_eq!(convert::<f64, bf16>(2f64.powi(-133)).to_bits(), 0x0001);
    assert_eq!(convert::<f64, bf16>(2f64.powi(-134)).to_bits(), 0x0000);
    assert_eq!(
        convert::<f64, bf16>(2f64.powi(-134).next_up()).to_bits(),
        0x0001
    );
    assert_eq!(convert::<f64, bf16>(2f64.powi(-200)).to_bits(), 0x0000);
    assert_eq!(convert::<f64, bf16>(-2f64.powi(-200)).to_bits(), 0x8000);
    // f32 subnormal -> bf16
    assert_eq!(
        convert::<f32, bf16>(f32::from_bits(0x0000_8000)).to_bits(),
        0x0000
    ); // tie -> even
    assert_eq!(
        convert::<f32, bf16>(f32::from_bits(0x0001_8000)).to_bits(),
        0x0002
    ); // tie -> even
    assert_eq!(
        convert::<f32, bf16>(f32::from_bits(0x0000_8001)).to_bits(),
        0x0001
    );
}

#[test]
fn negative_zero_is_preserved_by_float_conversions() {
    assert_eq!(convert::<f64, f32>(-0.0).to_bits(), 0x8000_0000);
    assert_eq!(convert::<f64, f16>(-0.0).to_bits(), 0x8000);
    assert_eq!(convert::<f64, bf16>(-0.0).to_bits(), 0x8000);
    assert_eq!(convert::<f32, f16>(-0.0).to_bits(), 0x8000);
    assert_eq!(
        convert::<f16, f64>(f16::from_bits(0x8000)).to_bits(),
        (-0.0f64).to_bits()
    );
    assert_eq!(
        convert::<bf16, f32>(bf16::from_bits(0x8000)).to_bits(),
        0x8000_0000
    );
    assert_eq!(
        convert::<f16, bf16>(f16::from_bits(0x8000)).to_bits(),
        0x8000
    );
    let c: C32 = convert::<C128, C32>(Complex::new(-0.0, -0.0));
    assert_eq!((c.re.to_bits(), c.im.to_bits()), (0x8000, 0x8000));
    // an integer zero is +0
    assert_eq!(convert::<i32, f16>(0).to_bits(), 0x0000);
}

#[test]
fn nan_stays_nan_and_infinities_propagate_semantics_5() {
    assert!(convert::<f64, f32>(f64::NAN).is_nan());
    assert!(convert::<f64, f16>(f64::NAN).is_nan());
    assert!(convert::<f64, bf16>(f64::NAN).is_nan());
    assert!(convert::<f32, f16>(f32::NAN).is_nan());
    assert!(convert::<f32, bf16>(f32::NAN).is_nan());
    assert!(convert::<f16, f64>(f16::NAN).is_nan());
    assert!(convert::<bf16, f16>(bf16::NAN).is_nan());
    assert!(convert::<f16, bf16>(f16::NAN).is_nan());
    // a NaN whose payload lives only in the low f64 bits must not become inf
    let low_nan = f64::from_bits(0x7FF0_0000_0000_0001);
    assert!(convert::<f64, f32>(low_nan).is_nan());
    assert!(convert::<f64, f16>(low_nan).is_nan());
    assert!(convert::<f64, bf16>(low_nan).is_nan());
    assert!(convert::<f64, f16>(-low_nan).is_nan());
    for (x, f16_bits, bf16_bits) in [
        (f64::INFINITY, 0x7C00u16, 0x7F80u16),
        (f64::NEG_INFINITY, 0xFC00, 0xFF80),
    ] {
        assert_eq!(convert::<f64, f16>(x).to_bits(), f16_bits);
        assert_eq!(convert::<f64, bf16>(x).to_bits(), bf16_bits);
        assert_eq!(convert::<f64, f32>(x), x as f32);
        assert_eq!(convert::<f16, f64>(f16::from_bits(f16_bits)), x);
        assert_eq!(convert::<bf16, f64>(bf16::from_bits(bf16_bits)), x);
    }
    // finite values beyond the narrow range overflow to inf
    assert_eq!(convert::<f64, f16>(1e6).to_bits(), 0x7C00);
    assert_eq!(convert::<f64, bf16>(1e39).to_bits(), 0x7F80);
    assert_eq!(convert::<f64, bf16>(-1e300).to_bits(), 0xFF80);
}

// ---------------------------------------------------------------------------------------
// bool
// ---------------------------------------------------------------------------------------

#[test]
fn bool_source_reads_any_nonzero_byte_as_true() {
    assert_eq!(convert::<Bool8, i32>(Bool8(2)), 1);
    assert_eq!(convert::<Bool8, u64>(Bool8(255)), 1);
    assert_eq!(convert::<Bool8, i8>(Bool8(0)), 0);
    assert_eq!(convert::<Bool8, f32>(Bool8(2)), 1.0);
    assert_eq!(convert::<Bool8, f64>(Bool8(0)), 0.0);
    assert_eq!(convert::<Bool8, f16>(Bool8(7)).to_bits(), 0x3C00);
    assert_eq!(convert::<Bool8, bf16>(Bool8(7)).to_bits(), 0x3F80);
    assert_eq!(convert::<Bool8, C64>(Bool8(3)), Complex::new(1.0, 0.0));
    assert_eq!(
        convert::<Bool8, C32>(Bool8(3)),
        Complex::new(f16::ONE, f16::ZERO)
    );
    assert!(convert::<Bool8, Bool8>(Bool8(2)).get());
    assert!(!convert::<Bool8, Bool8>(Bool8(0)).get());
}

#[test]
fn to_bool_is_value_not_equal_to_zero() {
    assert!(convert::<i32, Bool8>(256).get()); // not truncated to a byte
    assert!(convert::<i64, Bool8>(1 << 40).get());
    assert!(convert::<i8, Bool8>(-1).get());
    assert!(!convert::<u64, Bool8>(0).get());
    assert!(convert::<f32, Bool8>(0.5).get());
    assert!(convert::<f64, Bool8>(1e-300).get());
    assert!(!convert::<f64, Bool8>(-0.0).get());
    assert!(!convert::<f32, Bool8>(0.0).get());
    assert!(convert::<f64, Bool8>(f64::NAN).get());
    assert!(convert::<f16, Bool8>(f16::NAN).get());
    assert!(convert::<f64, Bool8>(f64::NEG_INFINITY).get());
    assert!(convert::<f16, Bool8>(f16::from_bits(1)).get());
    assert!(convert::<bf16, Bool8>(bf16::from_bits(1)).get());
    assert!(convert::<C64, Bool8>(Complex::new(0.0, 1.0)).get());
    assert!(!convert::<C64, Bool8>(Complex::new(0.0, 0.0)).get());
    assert!(!convert::<C128, Bool8>(Complex::new(-0.0, -0.0)).get());
    assert!(convert::<C128, Bool8>(Complex::new(f64::NAN, 0.0)).get());
    // the stored byte is a canonical 0/1
    assert_eq!(convert::<i32, Bool8>(256), Bool8(1));
    assert_eq!(convert::<i32, Bool8>(0), Bool8(0));
}

// ---------------------------------------------------------------------------------------
// complex
// ---------------------------------------------------------------------------------------

#[test]
fn complex_to_complex_converts_each_component() {
    let z = Complex::new(1.0000000001f64, -2.5f64);
    assert_eq!(
        convert::<C128, C64>(z),
        Complex::new(1.0000000001f64 as f32, -2.5f32)
    );
    let w = Complex::new(0.1f32, -1e30f32);
    assert_eq!(
        convert::<C64, C128>(w),
        Complex::new(0.1f32 as f64, -1e30f32 as f64)
    );
    let h: C32 = convert::<C64, C32>(w);
    assert_eq!(
        (h.re.to_bits(), h.im.to_bits()),
        (Fmt16::f16().round(0.1f32 as f64), 0xFC00)
    );
    let back: C128 =
        convert::<C32, C128>(Complex::new(f16::from_bits(0x3555), f16::from_bits(0x8001)));
    assert_eq!(back, Complex::new(decode_f16(0x3555), decode_f16(0x8001)));
    let n: C64 = convert::<C128, C64>(Complex::new(f64::NAN, f64::INFINITY));
    assert!(n.re.is_nan() && n.im == f32::INFINITY);
}

#[test]
fn complex_to_c32_rounds_each_component_correctly() {
    let fmt = Fmt16::f16();
    let xs = fmt.hard_inputs();
    let mut bad = Bad::default();
    for (i, &re) in xs.iter().enumerate().step_by(3) {
        let im = xs[(i * 7 + 1) % xs.len()];
        let c: C32 = convert::<C128, C32>(Complex::new(re, im));
        let want = (fmt.round(re), fmt.round(im));
        if (c.re.to_bits(), c.im.to_bits()) != want {
            bad.add(|| {
                format!(
                    "({re:e}, {im:e}) -> got ({:#06x}, {:#06x}), want {want:x?}",
                    c.re.to_bits(),
                    c.im.to_bits()
                )
            });
        }
    }
    assert_none("c128 -> c32", bad);
}

#[test]
fn real_to_complex_is_x_plus_zero_i() {
    assert_eq!(convert::<f32, C64>(1.5), Complex::new(1.5, 0.0));
    assert_eq!(convert::<i32, C128>(-7), Complex::new(-7.0, 0.0));
    assert_eq!(
        convert::<u64, C64>(u64::MAX),
        Complex::new(18446744073709551616.0, 0.0)
    );
    let c: C32 = convert::<f64, C32>(0.1);
    assert_eq!(
        (c.re.to_bits(), c.im.to_bits()),
        (Fmt16::f16().round(0.1), 0)
    );
    let c: C32 = convert::<i32, C32>(65520);
    assert_eq!((c.re.to_bits(), c.im.to_bits()), (0x7C00, 0));
    let c: C64 = convert::<f64, C64>(-0.0);
    assert_eq!((c.re.to_bits(), c.im.to_bits()), (0x8000_0000, 0));
    let c: C128 = convert::<f16, C128>(f16::from_bits(0x3C01));
    assert_eq!(c, Complex::new(decode_f16(0x3C01), 0.0));
}

#[test]
fn complex_to_real_takes_the_real_part() {
    assert_eq!(convert::<C64, f32>(Complex::new(3.0, 4.0)), 3.0);
    assert_eq!(convert::<C128, f64>(Complex::new(-2.25, 1e300)), -2.25);
    assert_eq!(convert::<C64, i32>(Complex::new(3.7, 1.0)), 3);
    assert_eq!(convert::<C128, u8>(Complex::new(300.0, 1.0)), 255);
    assert_eq!(
        convert::<C128, f32>(Complex::new(1e300, 0.0)),
        f32::INFINITY
    );
    assert_eq!(
        convert::<C32, f64>(Complex::new(f16::from_bits(0x3555), f16::ONE)),
        decode_f16(0x3555)
    );
}

#[test]
fn complex_real_part_to_f16_and_bf16_is_correctly_rounded() {
    // This takes the Wide::Complex branch of the narrowing code, distinct from Wide::Float.
    for fmt in [Fmt16::f16(), Fmt16::bf16()] {
        let xs = fmt.hard_inputs();
        let mut bad = Bad::default();
        for &x in xs.iter().step_by(2) {
            let z = Complex::new(x, 12345.0);
            let got = if fmt.name == "f16" {
                convert::<C128, f16>(z).to_bits()
            } else {
                convert::<C128, bf16>(z).to_bits()
            };
            let want = fmt.round(x);
            if got != want {
                bad.add(|| {
                    format!(
                        "({x:e}, _) -> {}: got {got:#06x}, want {want:#06x}",
                        fmt.name
                    )
                });
            }
        }
        assert_none("complex -> narrow real", bad);
    }
}
