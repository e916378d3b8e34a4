//! Cast over the whole dtype x dtype matrix, InplaceCopy (broadcasting, views, overlapping
//! source and destination), InplaceFillScalar and InplaceZero, checked against an
//! independent conversion model written here (reference §5.3 "Cast" / "InplaceCopy",
//! SEMANTICS §2 and §5, and the conversion rule stated in `element.rs`'s module comment):
//!
//! - float -> int truncates toward zero and saturates at the target's range, NaN -> 0;
//! - int -> int wraps (two's complement);
//! - int -> float and float -> float round to nearest, ties to even; overflow gives ±inf;
//! - bool -> x is 0/1; x -> bool is x != 0 (NaN is non-zero; complex: either part);
//! - complex -> real keeps the real part; real -> complex is (x, +0);
//!   complex -> complex rounds each part.
//!
//! Nothing of the library's conversion code is used: every float format (f16, bf16, f32 and
//! f64) is decoded from and encoded to its bits here, rounding on integers. The model is
//! shared with `unary_diff.rs`.

use super::add_diff::{desc, next_index, run_exec, Buf, Rng, View};
use crate::dtype::DType;
use crate::ops::copy::{cast, inplace_copy, inplace_fill_scalar, inplace_zero};
use crate::scalar::Scalar;
use crate::tensor::TensorDesc;
use std::fmt;

use DType::*;

// ---------------------------------------------------------------------------------------
// Dtype facts (transcribed from reference §2.2 and §5.3)
// ---------------------------------------------------------------------------------------

/// Cast's self and out dtypes on Atlas A2/A3 (reference §5.3 "Cast"): every dtype but c32.
pub(super) const CAST15: [DType; 15] = [
    F16, F32, F64, S8, U8, S16, U16, S32, U32, S64, U64, Bool, C64, C128, BF16,
];

/// All 16 dtypes of the library.
pub(super) const ALL16: [DType; 16] = [
    F32, F16, F64, BF16, S8, U8, S16, U16, S32, U32, S64, U64, Bool, C32, C64, C128,
];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kd {
    Bool,
    Int,
    Float,
    Complex,
}

pub(super) fn kd(d: DType) -> Kd {
    match d {
        S4 => unreachable!("ACL_INT4 is a storage dtype: no table of these tests covers it"),
        Bool => Kd::Bool,
        S8 | U8 | S16 | U16 | S32 | U32 | S64 | U64 => Kd::Int,
        F16 | BF16 | F32 | F64 => Kd::Float,
        C32 | C64 | C128 => Kd::Complex,
    }
}

pub(super) fn bytes_of(d: DType) -> usize {
    match d {
        S4 => unreachable!("ACL_INT4 is a storage dtype: no table of these tests covers it"),
        Bool | S8 | U8 => 1,
        F16 | BF16 | S16 | U16 => 2,
        F32 | S32 | U32 | C32 => 4,
        F64 | S64 | U64 | C64 => 8,
        C128 => 16,
    }
}

/// (bits, signed) of an integer dtype.
pub(super) fn int_shape(d: DType) -> (u32, bool) {
    match d {
        S8 => (8, true),
        U8 => (8, false),
        S16 => (16, true),
        U16 => (16, false),
        S32 => (32, true),
        U32 => (32, false),
        S64 => (64, true),
        U64 => (64, false),
        _ => panic!("{d:?} is not an integer dtype"),
    }
}

pub(super) fn int_min_max(d: DType) -> (i128, i128) {
    let (bits, signed) = int_shape(d);
    if signed {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    }
}

// ---------------------------------------------------------------------------------------
// Binary floating-point formats, by hand
// ---------------------------------------------------------------------------------------

/// An IEEE-style binary format: exponent bits and stored mantissa bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Fmt {
    pub ebits: u32,
    pub mbits: u32,
}
pub(super) const FMT_F16: Fmt = Fmt {
    ebits: 5,
    mbits: 10,
};
pub(super) const FMT_BF16: Fmt = Fmt { ebits: 8, mbits: 7 };
pub(super) const FMT_F32: Fmt = Fmt {
    ebits: 8,
    mbits: 23,
};
pub(super) const FMT_F64: Fmt = Fmt {
    ebits: 11,
    mbits: 52,
};

impl Fmt {
    pub(super) fn bias(self) -> i32 {
        (1 << (self.ebits - 1)) - 1
    }
    fn emax_biased(self) -> u64 {
        (1 << self.ebits) - 2
    }
    pub(super) fn bytes(self) -> usize {
        (1 + self.ebits + self.mbits) as usize / 8
    }
    /// Smallest normal exponent (unbiased).
    pub(super) fn emin(self) -> i32 {
        1 - self.bias()
    }
    pub(super) fn max_finite(self) -> f64 {
        self.decode(((self.emax_biased()) << self.mbits) | ((1 << self.mbits) - 1))
    }
    pub(super) fn quiet_nan(self) -> u64 {
        (((1u64 << self.ebits) - 1) << self.mbits) | (1 << (self.mbits - 1))
    }
    pub(super) fn inf(self) -> u64 {
        ((1u64 << self.ebits) - 1) << self.mbits
    }
    pub(super) fn sign_bit(self) -> u64 {
        1 << (self.ebits + self.mbits)
    }

    /// The value of `bits`, exactly (every format here is a subset of f64).
    pub(super) fn decode(self, bits: u64) -> f64 {
        let neg = bits & self.sign_bit() != 0;
        let e = (bits >> self.mbits) & ((1 << self.ebits) - 1);
        let m = bits & ((1 << self.mbits) - 1);
        let mag = if e == 0 {
            m as f64 * pow2(self.emin() - self.mbits as i32)
        } else if e == (1 << self.ebits) - 1 {
            if m == 0 {
                f64::INFINITY
            } else {
                return f64::NAN;
            }
        } else {
            ((1u64 << self.mbits) + m) as f64 * pow2(e as i32 - self.bias() - self.mbits as i32)
        };
        if neg {
            -mag
        } else {
            mag
        }
    }

    /// The bits of `(-1)^neg * m * 2^e` rounded to nearest, ties to even; overflow gives
    /// ±inf, underflow ±0 or a subnormal. Needs m < 2^64.
    pub(super) fn encode_parts(self, neg: bool, m: u128, e: i32) -> u64 {
        assert!(m < 1u128 << 64);
        let sign = if neg { self.sign_bit() } else { 0 };
        if m == 0 {
            return sign;
        }
        let n = 128 - m.leading_zeros() as i32; // bit length
        let l = n - 1 + e; // floor(log2(value))
        let mut q = l.max(self.emin()) - self.mbits as i32; // exponent of the ulp
        let shift = q - e;
        let mut r: u128 = if shift <= 0 {
            m << (-shift) as u32
        } else if shift > 65 {
            0 // value < 2^(q-2): below half an ulp
        } else {
            let s = shift as u32;
            let t = m >> s;
            let rem = m & ((1u128 << s) - 1);
            let half = 1u128 << (s - 1);
            if rem > half || (rem == half && t & 1 == 1) {
                t + 1
            } else {
                t
            }
        };
        if r == 1u128 << (self.mbits + 1) {
            r >>= 1;
            q += 1;
        }
        if r >= 1u128 << self.mbits {
            let be = q + self.mbits as i32 + self.bias();
            if be as i64 > self.emax_biased() as i64 {
                return sign | self.inf();
            }
            sign | ((be as u64) << self.mbits) | (r as u64 - (1u64 << self.mbits))
        } else {
            sign | r as u64 // subnormal (or zero after underflow)
        }
    }

    /// `x` rounded into this format, as bits.
    pub(super) fn encode(self, x: f64) -> u64 {
        if x.is_nan() {
            return self.quiet_nan();
        }
        let neg = x.is_sign_negative();
        if x.is_infinite() {
            return self.inf() | if neg { self.sign_bit() } else { 0 };
        }
        let (_, m, e) = split_f64(x);
        self.encode_parts(neg, m as u128, e)
    }

    /// `x` rounded into this format.
    pub(super) fn round(self, x: f64) -> f64 {
        self.decode(self.encode(x))
    }

    /// An integer rounded into this format.
    pub(super) fn round_int(self, i: i128) -> f64 {
        self.decode(self.encode_parts(i < 0, i.unsigned_abs(), 0))
    }

    /// The ulp of this format at `x` (subnormal spacing below the normal range; the top
    /// binade's spacing beyond the largest finite value).
    pub(super) fn ulp(self, x: f64) -> f64 {
        let a = x.abs();
        let l = if a == 0.0 { self.emin() } else { floor_log2(a) };
        let l = l.max(self.emin()).min(self.bias());
        pow2(l - self.mbits as i32)
    }
}

/// The float format of a float dtype or of a complex dtype's parts.
pub(super) fn fmt_of(d: DType) -> Fmt {
    match d {
        F16 | C32 => FMT_F16,
        BF16 => FMT_BF16,
        F32 | C64 => FMT_F32,
        F64 | C128 => FMT_F64,
        _ => panic!("{d:?} has no float format"),
    }
}

/// 2^k, exactly, for k in [-1074, 1023].
pub(super) fn pow2(k: i32) -> f64 {
    assert!((-1074..=1023).contains(&k), "pow2({k})");
    if k >= -1022 {
        f64::from_bits(((k + 1023) as u64) << 52)
    } else {
        f64::from_bits(1u64 << (k + 1074))
    }
}

/// (sign, integer mantissa, exponent) of a finite f64: |x| = m * 2^e.
pub(super) fn split_f64(x: f64) -> (bool, u64, i32) {
    let b = x.to_bits();
    let neg = b >> 63 != 0;
    let e = ((b >> 52) & 0x7ff) as i32;
    let m = b & ((1u64 << 52) - 1);
    if e == 0 {
        (neg, m, -1074)
    } else {
        (neg, m | (1u64 << 52), e - 1075)
    }
}

/// floor(log2(a)) for finite a > 0.
pub(super) fn floor_log2(a: f64) -> i32 {
    let (_, m, e) = split_f64(a);
    63 - m.leading_zeros() as i32 + e
}

// ---------------------------------------------------------------------------------------
// Values and the conversion model
// ---------------------------------------------------------------------------------------

/// An exact element value.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Val {
    B(bool),
    I(i128),
    F(f64),
    C(f64, f64),
}

impl fmt::Debug for Val {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Val::B(b) => write!(f, "{b}"),
            Val::I(i) => write!(f, "{i}"),
            Val::F(x) => write!(f, "{x:e}"),
            Val::C(r, i) => write!(f, "({r:e}, {i:e})"),
        }
    }
}

/// Two's complement wrapping of `i` into integer dtype `d`.
pub(super) fn wrap(i: i128, d: DType) -> i128 {
    let (bits, signed) = int_shape(d);
    let m = i & ((1i128 << bits) - 1);
    if signed && m >= 1i128 << (bits - 1) {
        m - (1i128 << bits)
    } else {
        m
    }
}

/// Float to integer dtype `d`: toward zero, saturating, NaN -> 0.
pub(super) fn f2i(x: f64, d: DType) -> i128 {
    let (lo, hi) = int_min_max(d);
    if x.is_nan() {
        return 0;
    }
    if x.is_infinite() {
        return if x > 0.0 { hi } else { lo };
    }
    let (neg, m, e) = split_f64(x);
    let mag: i128 = if e >= 0 {
        if e > 70 {
            return if neg { lo } else { hi };
        }
        (m as i128) << e
    } else if -e >= 64 {
        0
    } else {
        (m >> (-e) as u32) as i128
    };
    let v = if neg { -mag } else { mag };
    v.clamp(lo, hi)
}

/// The conversion model: `v` converted to dtype `to`.
pub(super) fn convert(v: Val, to: DType) -> Val {
    match kd(to) {
        Kd::Bool => Val::B(match v {
            Val::B(b) => b,
            Val::I(i) => i != 0,
            Val::F(x) => x != 0.0,
            Val::C(r, i) => r != 0.0 || i != 0.0,
        }),
        Kd::Int => Val::I(match v {
            Val::B(b) => b as i128,
            Val::I(i) => wrap(i, to),
            Val::F(x) => f2i(x, to),
            Val::C(r, _) => f2i(r, to),
        }),
        Kd::Float => {
            let f = fmt_of(to);
            Val::F(match v {
                Val::B(b) => b as u8 as f64,
                Val::I(i) => f.round_int(i),
                Val::F(x) => f.round(x),
                Val::C(r, _) => f.round(r),
            })
        }
        Kd::Complex => {
            let f = fmt_of(to);
            match v {
                Val::B(b) => Val::C(b as u8 as f64, 0.0),
                Val::I(i) => Val::C(f.round_int(i), 0.0),
                Val::F(x) => Val::C(f.round(x), 0.0),
                Val::C(r, i) => Val::C(f.round(r), f.round(i)),
            }
        }
    }
}

fn le_u64(b: &[u8], n: usize) -> u64 {
    let mut x = 0u64;
    for (k, byte) in b[..n].iter().enumerate() {
        x |= (*byte as u64) << (8 * k);
    }
    x
}

/// One element of dtype `d` from its little-endian bytes.
pub(super) fn decode(d: DType, b: &[u8]) -> Val {
    match kd(d) {
        Kd::Bool => Val::B(b[0] != 0),
        Kd::Int => {
            let (bits, _) = int_shape(d);
            Val::I(wrap(le_u64(b, bits as usize / 8) as i128, d))
        }
        Kd::Float => {
            let f = fmt_of(d);
            Val::F(f.decode(le_u64(b, f.bytes())))
        }
        Kd::Complex => {
            let f = fmt_of(d);
            let h = f.bytes();
            Val::C(f.decode(le_u64(b, h)), f.decode(le_u64(&b[h..], h)))
        }
    }
}

/// The little-endian bytes of `v` (already a value of dtype `d`).
pub(super) fn encode(d: DType, v: Val) -> [u8; 16] {
    let mut out = [0u8; 16];
    let mut put = |at: usize, x: u64, n: usize| {
        for k in 0..n {
            out[at + k] = (x >> (8 * k)) as u8;
        }
    };
    match (kd(d), v) {
        (Kd::Bool, Val::B(b)) => put(0, b as u64, 1),
        (Kd::Int, Val::I(i)) => put(0, i as u64, bytes_of(d)),
        (Kd::Float, Val::F(x)) => {
            let f = fmt_of(d);
            put(0, f.encode(x), f.bytes())
        }
        (Kd::Complex, Val::C(r, i)) => {
            let f = fmt_of(d);
            put(0, f.encode(r), f.bytes());
            put(f.bytes(), f.encode(i), f.bytes());
        }
        (k, v) => panic!("cannot encode {v:?} as {k:?}"),
    }
    out
}

fn same_f(a: f64, b: f64) -> bool {
    (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits()
}

/// Bit-exact equality of values (every NaN equals every NaN; -0 differs from +0).
pub(super) fn same_val(a: Val, b: Val) -> bool {
    match (a, b) {
        (Val::B(x), Val::B(y)) => x == y,
        (Val::I(x), Val::I(y)) => x == y,
        (Val::F(x), Val::F(y)) => same_f(x, y),
        (Val::C(a, b), Val::C(c, d)) => same_f(a, c) && same_f(b, d),
        _ => false,
    }
}

/// The stored bytes of an output element of dtype `d` equal `want`: bools must be stored
/// as exactly 0 or 1, NaN may have any payload. (A bool -> bool copy is checked with
/// `copy_matches`: it may keep a non-canonical true byte.)
pub(super) fn stored_matches(d: DType, got: &[u8], want: Val) -> bool {
    match (kd(d), want) {
        (Kd::Bool, Val::B(b)) => got[0] == b as u8,
        _ => same_val(decode(d, got), want),
    }
}

/// Like `stored_matches`, but a bool -> bool copy may store any non-zero byte for true
/// (the library's bool is "any non-zero byte", and a same-dtype contiguous copy moves bytes).
pub(super) fn copy_matches(src: DType, d: DType, got: &[u8], want: Val) -> bool {
    match (src, d, want) {
        (Bool, Bool, Val::B(b)) => (got[0] != 0) == b,
        _ => stored_matches(d, got, want),
    }
}

// ---------------------------------------------------------------------------------------
// Storage and views
// ---------------------------------------------------------------------------------------

/// A storage of `elems` elements of `dtype`, filled with random bytes.
pub(super) struct Store {
    pub buf: Buf,
    pub dtype: DType,
}

impl Store {
    pub(super) fn new(dtype: DType, elems: usize, rng: &mut Rng) -> Store {
        let mut buf = Buf::new(elems * bytes_of(dtype));
        for b in buf.bytes_mut() {
            *b = rng.next() as u8;
        }
        Store { buf, dtype }
    }
    pub(super) fn elems(&self) -> usize {
        self.buf.bytes().len() / bytes_of(self.dtype)
    }
    pub(super) fn get(&self, e: usize) -> &[u8] {
        let s = bytes_of(self.dtype);
        &self.buf.bytes()[e * s..(e + 1) * s]
    }
    pub(super) fn set(&mut self, e: usize, b: &[u8]) {
        let s = bytes_of(self.dtype);
        self.buf.bytes_mut()[e * s..(e + 1) * s].copy_from_slice(&b[..s]);
    }
    pub(super) fn val(&self, e: usize) -> Val {
        decode(self.dtype, self.get(e))
    }
    pub(super) fn desc(&self, v: &View) -> TensorDesc {
        assert_eq!(v.dtype, self.dtype);
        desc(v, &self.buf).expect("valid view")
    }
}

pub(super) fn view(shape: &[usize], strides: &[usize], offset: usize, dtype: DType) -> View {
    View {
        shape: shape.to_vec(),
        strides: strides.to_vec(),
        offset,
        dtype,
        storage: 0,
    }
}

pub(super) fn contiguous(shape: &[usize], dtype: DType) -> View {
    View::contiguous(shape, dtype, 0)
}

/// Element index of multi-index `idx` of `v`.
pub(super) fn at(v: &View, idx: &[usize]) -> usize {
    v.offset
        + idx
            .iter()
            .zip(&v.strides)
            .map(|(i, s)| i * s)
            .sum::<usize>()
}

/// Element index in `v` of the element that broadcasts to out multi-index `idx`.
pub(super) fn at_bcast(v: &View, idx: &[usize]) -> usize {
    let lead = idx.len() - v.shape.len();
    let mut e = v.offset;
    for j in 0..v.shape.len() {
        if v.shape[j] != 1 {
            e += idx[lead + j] * v.strides[j];
        }
    }
    e
}

/// Every multi-index of `shape`, row-major.
pub(super) fn all_indices(shape: &[usize]) -> Vec<Vec<usize>> {
    let n: usize = shape.iter().product();
    let mut out = Vec::with_capacity(n);
    let mut idx = vec![0usize; shape.len()];
    for _ in 0..n {
        out.push(idx.clone());
        next_index(&mut idx, shape);
    }
    out
}

/// Elements a view needs in its storage.
pub(super) fn needed(v: &View) -> usize {
    if v.shape.contains(&0) {
        return v.offset;
    }
    v.offset
        + v.shape
            .iter()
            .zip(&v.strides)
            .map(|(d, s)| (d - 1) * s)
            .sum::<usize>()
        + 1
}

/// A random layout for `shape`: dims permuted (a transpose), gaps between rows, an offset,
/// and (inputs only) stride 0 on some dims.
pub(super) fn gen_view(rng: &mut Rng, shape: &[usize], dtype: DType, input: bool) -> View {
    let r = shape.len();
    let mut order: Vec<usize> = (0..r).collect();
    if rng.pct(50) {
        for i in (1..r).rev() {
            let j = rng.below(i as u64 + 1) as usize;
            order.swap(i, j);
        }
    }
    let gapped = rng.pct(40);
    let mut strides = vec![0usize; r];
    let mut acc = if gapped && rng.pct(50) { 2 } else { 1 };
    for &j in order.iter().rev() {
        if shape[j] <= 1 {
            strides[j] = rng.below(5) as usize;
            continue;
        }
        strides[j] = acc;
        acc = acc * shape[j] + if gapped { rng.below(3) as usize } else { 0 };
    }
    if input {
        for j in 0..r {
            if shape[j] > 1 && rng.pct(10) {
                strides[j] = 0;
            }
        }
    }
    let offset = if rng.pct(50) {
        0
    } else {
        rng.below(6) as usize
    };
    view(shape, &strides, offset, dtype)
}

/// Bytes of `store` outside `v` are unchanged from `before`.
pub(super) fn outside_untouched(store: &Store, v: &View, before: &[u8]) -> Result<(), String> {
    let s = bytes_of(store.dtype);
    let mut inside = vec![false; store.elems()];
    for idx in all_indices(&v.shape) {
        inside[at(v, &idx)] = true;
    }
    for (e, &ins) in inside.iter().enumerate() {
        if !ins && store.buf.bytes()[e * s..(e + 1) * s] != before[e * s..(e + 1) * s] {
            return Err(format!("element {e} outside the view was written"));
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Edge values per dtype
// ---------------------------------------------------------------------------------------

/// Real values that probe every conversion edge: integer range limits and just past them,
/// ties of every float format, subnormals, overflow thresholds.
fn float_candidates() -> Vec<f64> {
    let p = pow2;
    let mut v = vec![
        0.0,
        -0.0,
        0.5,
        -0.5,
        1.0,
        -1.0,
        1.5,
        -1.5,
        2.5,
        -2.5,
        0.49999999999999994,
        0.1,
        -0.1,
        1.0 / 3.0,
        std::f64::consts::PI,
        std::f64::consts::E,
        7.9,
        -7.9,
        127.4,
        127.5,
        127.9,
        128.0,
        128.5,
        -127.5,
        -128.0,
        -128.5,
        -128.9,
        -129.0,
        255.0,
        255.5,
        255.9,
        256.0,
        -255.0,
        -256.0,
        32767.0,
        32767.5,
        32768.0,
        -32768.0,
        -32768.5,
        -32769.0,
        65535.0,
        65535.5,
        65536.0,
        -65536.0,
        65504.0,
        65519.99,
        65520.0,
        65536.0 * 2.0,
        p(31) - 1.0,
        p(31) - 0.5,
        p(31),
        p(31) + 1.0,
        -p(31),
        -p(31) - 0.5,
        -p(31) - 1.0,
        p(32) - 1.0,
        p(32),
        p(32) + 0.5,
        -p(32),
        p(63) - 1024.0,
        p(63),
        -p(63),
        -p(63) - 2048.0,
        p(64) - 2048.0,
        p(64),
        -p(64),
        p(65),
        1e10,
        -1e10,
        1e20,
        1e30,
        -1e30,
        1e38,
        3.4028234663852886e38,
        -3.4028234663852886e38,
        // f32 max + half an ulp (a tie: rounds to inf) and just below it (rounds to max)
        3.4028234663852886e38 + p(103),
        3.4028234663852886e38 + p(103) - p(60),
        1e300,
        -1e300,
        f64::MAX,
        f64::MIN,
        // subnormals and underflow ties of every format
        p(-1074),
        -p(-1074),
        p(-1022),
        p(-1022) - p(-1074),
        1e-310,
        p(-149),
        p(-150),
        3.0 * p(-151),
        -p(-150),
        p(-126),
        p(-126) - p(-150),
        1e-40,
        1e-45,
        p(-24),
        p(-25),
        3.0 * p(-26),
        -p(-25),
        p(-14),
        p(-14) - p(-25),
        6.1e-5,
        1e-8,
        p(-133),
        p(-134),
        // mantissa ties: bf16 (8 bits), f16 (11 bits), f32 (24 bits)
        1.0 + p(-8),
        1.0 + 3.0 * p(-8),
        1.0 + p(-8) + p(-30),
        1.0 + p(-11),
        1.0 + 3.0 * p(-11),
        1.0 + p(-11) + p(-40),
        2049.0,
        2051.0,
        257.0,
        259.0,
        1.0 + p(-24),
        1.0 + 3.0 * p(-24),
        16777217.0,
        16777219.0,
        -16777217.0,
        // f16 overflow threshold: 65520 = max + half ulp
        65519.0,
        -65520.0,
        65504.0 + 15.999,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
    ];
    v.extend((1..=9).map(|k| k as f64 * 0.25 - 1.0));
    v
}

fn int_candidates() -> Vec<i128> {
    let p = |k: u32| 1i128 << k;
    let mut v = vec![
        0,
        1,
        -1,
        2,
        -2,
        127,
        128,
        -128,
        -129,
        255,
        256,
        32767,
        32768,
        -32768,
        -32769,
        65535,
        65536,
        p(31) - 1,
        p(31),
        -p(31),
        -p(31) - 1,
        p(32) - 1,
        p(32),
        p(63) - 1,
        -p(63),
        p(64) - 1,
        2049,
        2051,
        257,
        259,
        16777217,
        16777219,
        -16777217,
        p(53) + 1,
        p(53) + 3,
        65504,
        65519,
        65520,
        -65520,
        p(63) - p(39),
        p(63) - p(39) - 1, // ties/near-ties for f32 around 2^63
        p(64) - p(40),
        p(64) - p(39) - 1,
    ];
    for k in 0..64 {
        v.push(p(k));
        v.push(-p(k));
    }
    v
}

/// Raw values of dtype `d`: the edge candidates (rounded or wrapped into `d`), the
/// special encodings, and random bits.
pub(super) fn edge_values(d: DType, rng: &mut Rng) -> Vec<[u8; 16]> {
    let mut out: Vec<[u8; 16]> = Vec::new();
    let push_bits = |out: &mut Vec<[u8; 16]>, x: u128, n: usize| {
        let mut b = [0u8; 16];
        for (k, byte) in b.iter_mut().enumerate().take(n) {
            *byte = (x >> (8 * k)) as u8;
        }
        out.push(b);
    };
    match kd(d) {
        Kd::Bool => {
            for b in [0u128, 1, 2, 0x80, 0xff] {
                push_bits(&mut out, b, 1);
            }
        }
        Kd::Int => {
            let n = bytes_of(d);
            for i in int_candidates() {
                push_bits(&mut out, wrap(i, d) as u128, n);
            }
            for _ in 0..48 {
                push_bits(&mut out, rng.next() as u128, n);
            }
        }
        Kd::Float | Kd::Complex => {
            let f = fmt_of(d);
            let n = f.bytes();
            let mut parts: Vec<u64> = float_candidates().iter().map(|&x| f.encode(x)).collect();
            let sb = f.sign_bit();
            parts.extend([
                f.quiet_nan(),
                f.quiet_nan() | sb,
                f.inf() | 1, // signalling NaN
                f.inf(),
                f.inf() | sb,
                0,
                sb,
                1,
                1 | sb,
                (1 << f.mbits) - 1,
                1 << f.mbits,
                f.encode(f.max_finite()),
                f.encode(f.max_finite()) | sb,
            ]);
            let mask = if n == 8 {
                u64::MAX
            } else {
                (1u64 << (8 * n)) - 1
            };
            for _ in 0..48 {
                parts.push(rng.next() & mask);
            }
            if kd(d) == Kd::Float {
                for p in parts {
                    push_bits(&mut out, p as u128, n);
                }
            } else {
                let zero_im = [0u64, sb];
                for (k, &p) in parts.iter().enumerate() {
                    // (x, ±0), (±0, x) and mixed pairs
                    let im = zero_im[k % 2];
                    push_bits(&mut out, p as u128 | (im as u128) << (8 * n), 2 * n);
                    push_bits(
                        &mut out,
                        zero_im[k % 2] as u128 | (p as u128) << (8 * n),
                        2 * n,
                    );
                    let q = parts[rng.below(parts.len() as u64) as usize];
                    push_bits(&mut out, p as u128 | (q as u128) << (8 * n), 2 * n);
                }
            }
        }
    }
    out
}

// ---------------------------------------------------------------------------------------
// Model self-checks
// ---------------------------------------------------------------------------------------

#[test]
fn model_self_checks() {
    // decode/encode agree with the hardware formats for f32 and f64, and with known f16/bf16 bits.
    let mut rng = Rng::new(7);
    for _ in 0..20000 {
        let b = rng.next();
        let x = f64::from_bits(b);
        assert!(same_f(FMT_F64.decode(b), x));
        if !x.is_nan() {
            assert_eq!(FMT_F64.encode(x), b);
            assert_eq!(FMT_F32.encode(x), (x as f32).to_bits() as u64, "{x:e}");
        }
        let b32 = b as u32;
        let y = f32::from_bits(b32);
        assert!(same_f(FMT_F32.decode(b32 as u64), y as f64));
        let i = (rng.next() as i64 >> rng.below(64)) as i128;
        assert_eq!(FMT_F32.round_int(i), (i as i64 as f32) as f64, "{i}");
        assert_eq!(FMT_F64.round_int(i), (i as i64 as f64), "{i}");
    }
    assert_eq!(FMT_F16.decode(0x3c00), 1.0);
    assert_eq!(FMT_F16.decode(0x7bff), 65504.0);
    assert_eq!(FMT_F16.decode(0x0001), pow2(-24));
    assert_eq!(FMT_F16.encode(65519.99), 0x7bff);
    assert_eq!(FMT_F16.encode(65520.0), 0x7c00);
    assert_eq!(FMT_F16.encode(2049.0), 0x6800); // tie to even: 2048
    assert_eq!(FMT_F16.encode(2051.0), 0x6802); // tie to even: 2052
    assert_eq!(FMT_F16.encode(pow2(-25)), 0); // tie to even: 0
    assert_eq!(FMT_F16.encode(3.0 * pow2(-26)), 1);
    assert_eq!(FMT_F16.encode(-pow2(-14) + pow2(-25)), 0x8400); // rounds up into the normals
    assert_eq!(FMT_BF16.decode(0x3f80), 1.0);
    assert_eq!(FMT_BF16.encode(1.0 + pow2(-8)), 0x3f80);
    assert_eq!(FMT_BF16.encode(1.0 + 3.0 * pow2(-8)), 0x3f82);
    assert_eq!(FMT_BF16.encode(1.0 + pow2(-8) + pow2(-30)), 0x3f81);
    assert_eq!(FMT_BF16.round_int(257), 256.0);
    assert_eq!(FMT_BF16.round_int(259), 260.0);
    assert_eq!(FMT_F32.round_int((1 << 64) - 1), pow2(64));
    assert_eq!(FMT_F16.round_int(65520), f64::INFINITY);
    assert_eq!(f2i(127.9, S8), 127);
    assert_eq!(f2i(128.0, S8), 127);
    assert_eq!(f2i(-128.9, S8), -128);
    assert_eq!(f2i(-129.0, S8), -128);
    assert_eq!(f2i(-0.9, U8), 0);
    assert_eq!(f2i(-1.0, U8), 0);
    assert_eq!(f2i(pow2(63), S64), i64::MAX as i128);
    assert_eq!(f2i(pow2(64), U64), u64::MAX as i128);
    assert_eq!(f2i(pow2(64) - 2048.0, U64), (1i128 << 64) - 2048);
    assert_eq!(f2i(f64::NAN, S32), 0);
    assert_eq!(f2i(f64::NEG_INFINITY, S32), i32::MIN as i128);
    assert_eq!(wrap(128, S8), -128);
    assert_eq!(wrap(-1, U16), 65535);
    assert_eq!(wrap(1 << 64, U64), 0);
    assert!(same_val(convert(Val::F(-0.0), F16), Val::F(-0.0)));
    assert!(same_val(convert(Val::F(-0.0), Bool), Val::B(false)));
    assert!(same_val(convert(Val::F(f64::NAN), Bool), Val::B(true)));
    assert!(same_val(convert(Val::C(0.0, -0.0), Bool), Val::B(false)));
    assert!(same_val(convert(Val::C(0.0, 2.0), Bool), Val::B(true)));
    assert!(same_val(convert(Val::C(-3.7, 9.0), S32), Val::I(-3)));
    assert!(same_val(convert(Val::I(-3), C64), Val::C(-3.0, 0.0)));
}

// ---------------------------------------------------------------------------------------
// Cast
// ---------------------------------------------------------------------------------------

/// Casts `vals` (raw values of `src`) to `dst` through contiguous (fast-path) or strided
/// views; returns the mismatches with the model.
fn cast_pair(
    src: DType,
    vals: &[[u8; 16]],
    dst: DType,
    strided: bool,
    rng: &mut Rng,
) -> Vec<String> {
    let n = vals.len();
    let (sv, ov) = if strided {
        (view(&[n], &[3], 2, src), view(&[n], &[2], 1, dst))
    } else {
        (contiguous(&[n], src), contiguous(&[n], dst))
    };
    let mut s = Store::new(src, needed(&sv), rng);
    let o = Store::new(dst, needed(&ov) + 1, rng);
    for (k, b) in vals.iter().enumerate() {
        s.set(at(&sv, &[k]), b);
    }
    let before = o.buf.bytes().to_vec();
    let exec = match cast(&s.desc(&sv), dst as i32, &o.desc(&ov)) {
        Ok(e) => e,
        Err(e) => return vec![format!("{src:?}->{dst:?}: phase 1 refused: {e}")],
    };
    if let Err(e) = run_exec(&exec) {
        return vec![format!("{src:?}->{dst:?}: run failed: {e}")];
    }
    let mut bad = Vec::new();
    for k in 0..n {
        let x = s.val(at(&sv, &[k]));
        let want = convert(x, dst);
        let got = o.get(at(&ov, &[k]));
        if !copy_matches(src, dst, got, want) {
            bad.push(format!(
                "{src:?}->{dst:?} ({}): {x:?} gave {:?} (bytes {got:02x?}), want {want:?}",
                if strided { "strided" } else { "contiguous" },
                decode(dst, got)
            ));
        }
    }
    if let Err(e) = outside_untouched(&o, &ov, &before) {
        bad.push(format!("{src:?}->{dst:?}: {e}"));
    }
    bad
}

/// Reference §5.3 Cast: every (self, dtype) pair of the 15 dtypes converts by the rule,
/// on every edge value, through contiguous and strided views.
#[test]
fn cast_full_matrix_matches_independent_model_on_edge_values() {
    let mut rng = Rng::new(0xCA57);
    let mut bad = Vec::new();
    let mut pairs = 0;
    for &src in &CAST15 {
        let mut vals = edge_values(src, &mut rng);
        // Repeat past the engine's 1024-element chunk so chunk boundaries are crossed.
        let base = vals.clone();
        while vals.len() < 2500 {
            vals.extend(base.iter().copied());
        }
        for &dst in &CAST15 {
            for strided in [false, true] {
                let b = cast_pair(src, &vals, dst, strided, &mut rng);
                bad.extend(b.into_iter().take(4));
            }
            pairs += 1;
        }
    }
    assert_eq!(pairs, 225);
    assert!(
        bad.is_empty(),
        "{} mismatches:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

/// Cast through random views (transposed, gapped, offset, broadcast inputs; 0-d; empty).
#[test]
fn cast_random_views_and_dtype_pairs() {
    let mut rng = Rng::new(0x5EED_CA57);
    let mut bad = Vec::new();
    for case in 0..600 {
        let src = rng.pick(&CAST15);
        let dst = rng.pick(&CAST15);
        let rank = rng.below(5) as usize;
        let shape: Vec<usize> = (0..rank)
            .map(|_| {
                if rng.pct(4) {
                    0
                } else {
                    1 + rng.below(5) as usize
                }
            })
            .collect();
        let sv = gen_view(&mut rng, &shape, src, true);
        let ov = gen_view(&mut rng, &shape, dst, false);
        let mut s = Store::new(src, needed(&sv) + 2, &mut rng);
        let o = Store::new(dst, needed(&ov) + 2, &mut rng);
        let edges = edge_values(src, &mut rng);
        for e in 0..s.elems() {
            let b = edges[rng.below(edges.len() as u64) as usize];
            s.set(e, &b);
        }
        let before = o.buf.bytes().to_vec();
        let exec = cast(&s.desc(&sv), dst as i32, &o.desc(&ov))
            .unwrap_or_else(|e| panic!("case {case}: {src:?}->{dst:?} {sv:?} {ov:?}: {e}"));
        if shape.contains(&0) {
            assert_eq!(exec.workspace_size(), 0, "empty cast needs no workspace");
        }
        run_exec(&exec).unwrap();
        for idx in all_indices(&shape) {
            let x = s.val(at(&sv, &idx));
            let want = convert(x, dst);
            let got = o.get(at(&ov, &idx));
            if !copy_matches(src, dst, got, want) {
                bad.push(format!(
                    "case {case} {src:?}->{dst:?} {sv:?} -> {ov:?} at {idx:?}: {x:?} gave {:?}, want {want:?}",
                    decode(dst, got)
                ));
            }
        }
        if let Err(e) = outside_untouched(&o, &ov, &before) {
            bad.push(format!("case {case}: {e} ({ov:?})"));
        }
    }
    assert!(bad.is_empty(), "{}", bad[..bad.len().min(20)].join("\n"));
}

/// A few conversions spelled out (the edges the brief names), independent of the model.
#[test]
fn cast_named_edges() {
    let mut rng = Rng::new(3);
    let run = |src: DType, bytes: &[u8], dst: DType, rng: &mut Rng| -> Vec<u8> {
        let n = bytes.len() / bytes_of(src);
        let mut s = Store::new(src, n, rng);
        s.buf.bytes_mut().copy_from_slice(bytes);
        let o = Store::new(dst, n, rng);
        let e = cast(
            &s.desc(&contiguous(&[n], src)),
            dst as i32,
            &o.desc(&contiguous(&[n], dst)),
        )
        .unwrap();
        run_exec(&e).unwrap();
        o.buf.bytes().to_vec()
    };
    let f32s = |v: &[f32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let f64s = |v: &[f64]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    // f32 -> s8: truncation, saturation, NaN -> 0, -0 -> 0
    let got = run(
        F32,
        &f32s(&[
            127.5,
            128.0,
            -128.9,
            -129.0,
            f32::NAN,
            -0.0,
            f32::INFINITY,
            -2.9,
        ]),
        S8,
        &mut rng,
    );
    assert_eq!(
        got.iter().map(|&b| b as i8).collect::<Vec<_>>(),
        [127, 127, -128, -128, 0, 0, 127, -2]
    );
    // f64 -> s32 / u32 / s64 / u64 around 2^31, 2^32, 2^63, 2^64
    let p = pow2;
    let got = run(
        F64,
        &f64s(&[p(31), -p(31) - 1.0, p(31) - 0.5, -1.0]),
        S32,
        &mut rng,
    );
    let s32: Vec<i32> = got
        .chunks(4)
        .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(s32, [i32::MAX, i32::MIN, i32::MAX, -1]);
    let got = run(F64, &f64s(&[p(32), -1.0, 4294967295.9]), U32, &mut rng);
    let u32s: Vec<u32> = got
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(u32s, [u32::MAX, 0, u32::MAX]);
    let got = run(
        F64,
        &f64s(&[p(63), -p(63), -p(63) - 2048.0, p(64), f64::NAN]),
        S64,
        &mut rng,
    );
    let s64: Vec<i64> = got
        .chunks(8)
        .map(|c| i64::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(s64, [i64::MAX, i64::MIN, i64::MIN, i64::MAX, 0]);
    let got = run(F64, &f64s(&[p(64), p(64) - 2048.0, -5.0]), U64, &mut rng);
    let u64s: Vec<u64> = got
        .chunks(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(u64s, [u64::MAX, u64::MAX - 2047, 0]);
    // s32 -> s8 / u8 wrap
    let got = run(
        S32,
        &[300i32, -129, 255, -1]
            .iter()
            .flat_map(|x| x.to_le_bytes())
            .collect::<Vec<_>>(),
        S8,
        &mut rng,
    );
    assert_eq!(
        got.iter().map(|&b| b as i8).collect::<Vec<_>>(),
        [44, 127, -1, -1]
    );
    // s64 -> f16 ties and overflow: 2049 -> 2048, 2051 -> 2052, 65520 -> inf
    let got = run(
        S64,
        &[2049i64, 2051, 65520, -65519]
            .iter()
            .flat_map(|x| x.to_le_bytes())
            .collect::<Vec<_>>(),
        F16,
        &mut rng,
    );
    let h: Vec<u16> = got
        .chunks(2)
        .map(|c| u16::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(h, [0x6800, 0x6802, 0x7c00, 0xfbff]);
    // u64 max -> f32 = 2^64; i64 2^53+1 -> f64 = 2^53
    let got = run(U64, &u64::MAX.to_le_bytes(), F32, &mut rng);
    assert_eq!(
        f32::from_le_bytes(got[..4].try_into().unwrap()),
        18446744073709551616.0
    );
    // f32 -> bf16: 1 + 2^-8 ties to 1; f32 -> f16 subnormal 2^-25 ties to 0; -0 stays -0
    let got = run(
        F32,
        &f32s(&[1.0 + 1.0 / 256.0, -0.0, 3.0e38]),
        BF16,
        &mut rng,
    );
    let h: Vec<u16> = got
        .chunks(2)
        .map(|c| u16::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(h, [0x3f80, 0x8000, 0x7f62]);
    let got = run(
        F32,
        &f32s(&[2f32.powi(-25), 2f32.powi(-24), -0.0, 65520.0, 1e-8]),
        F16,
        &mut rng,
    );
    let h: Vec<u16> = got
        .chunks(2)
        .map(|c| u16::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(h, [0x0000, 0x0001, 0x8000, 0x7c00, 0x0000]);
    // f64 -> f32 overflow to inf, subnormal
    let got = run(F64, &f64s(&[1e39, -1e39, 1e-45, 1e-46]), F32, &mut rng);
    let f: Vec<f32> = got
        .chunks(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(
        f,
        [f32::INFINITY, f32::NEG_INFINITY, f32::from_bits(1), 0.0]
    );
    // bool -> x; x -> bool; complex -> real; real -> complex
    let got = run(Bool, &[0, 1, 7], F32, &mut rng);
    assert_eq!(got, f32s(&[0.0, 1.0, 1.0]));
    let got = run(
        F32,
        &f32s(&[0.0, -0.0, f32::NAN, 1e-45, -3.0]),
        Bool,
        &mut rng,
    );
    assert_eq!(got, [0, 0, 1, 1, 1]);
    let got = run(C64, &f32s(&[-2.75, 9.0, 0.0, 1.0]), S32, &mut rng);
    assert_eq!(got, [(-2i32).to_le_bytes(), 0i32.to_le_bytes()].concat());
    let got = run(C64, &f32s(&[0.0, -0.0, 0.0, 1.0]), Bool, &mut rng);
    assert_eq!(got, [0, 1]);
    let got = run(F32, &f32s(&[1.5, -0.0]), C128, &mut rng);
    assert_eq!(got, f64s(&[1.5, 0.0, -0.0, 0.0]));
}

fn tensor(dtype: DType, shape: &[usize], rng: &mut Rng) -> (Store, TensorDesc) {
    let v = contiguous(shape, dtype);
    let s = Store::new(dtype, needed(&v).max(1), rng);
    let d = s.desc(&v);
    (s, d)
}

/// Refused cells: c32 as self or dtype, unknown dtype values, out dtype != dtype, shape mismatch.
#[test]
fn cast_refusals() {
    let mut rng = Rng::new(11);
    let (_a, f) = tensor(F32, &[2, 3], &mut rng);
    let (_b, c32) = tensor(C32, &[2, 3], &mut rng);
    // c32 as self, for every dtype
    for &d in &ALL16 {
        let (_o, out) = tensor(d, &[2, 3], &mut rng);
        assert!(
            cast(&c32, d as i32, &out).is_err(),
            "c32 -> {d:?} must be refused"
        );
        assert!(
            cast(&f, C32 as i32, &out).is_err(),
            "dtype c32 must be refused (out {d:?})"
        );
    }
    // unknown dtype values
    let (_o, out) = tensor(F32, &[2, 3], &mut rng);
    for raw in [5, 99, -1, 13, 14, 18, 28, 29, 30, 34, 41, 1000, i32::MIN] {
        assert!(cast(&f, raw, &out).is_err(), "dtype {raw} must be refused");
    }
    // out dtype != dtype, every pair
    for &d in &CAST15 {
        for &o in &CAST15 {
            let (_o, out) = tensor(o, &[2, 3], &mut rng);
            let r = cast(&f, d as i32, &out);
            assert_eq!(r.is_ok(), d == o, "dtype {d:?} with out {o:?}");
        }
    }
    // shape mismatch (no broadcasting, no reshape)
    for shape in [&[3, 2][..], &[6], &[1, 2, 3], &[2, 1], &[]] {
        let (_o, out) = tensor(F32, shape, &mut rng);
        assert!(cast(&f, F32 as i32, &out).is_err(), "out shape {shape:?}");
    }
    let (_s, scalar) = tensor(F32, &[], &mut rng);
    let (_o, one) = tensor(F32, &[1], &mut rng);
    assert!(
        cast(&scalar, F32 as i32, &one).is_err(),
        "() -> (1,) must be refused"
    );
    // 9 dims
    let (_s, big) = tensor(F32, &[1; 9], &mut rng);
    let (_o, big_o) = tensor(F32, &[1; 9], &mut rng);
    assert!(
        cast(&big, F32 as i32, &big_o).is_err(),
        "9 dims must be refused"
    );
    // an output whose elements overlap
    let (s2, _) = tensor(F32, &[4], &mut rng);
    let ov = s2.desc(&view(&[4], &[0], 0, F32));
    let (_x, x4) = tensor(F32, &[4], &mut rng);
    assert!(
        cast(&x4, F32 as i32, &ov).is_err(),
        "an overlapping output must be refused"
    );
}

#[test]
fn cast_zero_dim_and_empty() {
    let mut rng = Rng::new(12);
    let mut s = Store::new(F64, 1, &mut rng);
    s.set(0, &(-3.75f64).to_le_bytes());
    let o = Store::new(S16, 1, &mut rng);
    let e = cast(
        &s.desc(&contiguous(&[], F64)),
        S16 as i32,
        &o.desc(&contiguous(&[], S16)),
    )
    .unwrap();
    run_exec(&e).unwrap();
    assert_eq!(o.get(0), (-3i16).to_le_bytes());
    let (_a, a) = tensor(F32, &[0, 3], &mut rng);
    let (_b, b) = tensor(C128, &[0, 3], &mut rng);
    let e = cast(&a, C128 as i32, &b).unwrap();
    assert_eq!(e.workspace_size(), 0);
    run_exec(&e).unwrap();
}

// ---------------------------------------------------------------------------------------
// InplaceCopy
// ---------------------------------------------------------------------------------------

/// Runs InplaceCopy(dst view, src view) on separate storages with random edge values and
/// checks it against the model. Err(report) on a mismatch; Ok(false) when refused.
fn check_copy(dv: &View, sv: &View, rng: &mut Rng) -> Result<bool, String> {
    let mut s = Store::new(sv.dtype, needed(sv) + 1, rng);
    let mut d = Store::new(dv.dtype, needed(dv) + 1, rng);
    let edges = edge_values(sv.dtype, rng);
    for e in 0..s.elems() {
        let b = edges[rng.below(edges.len() as u64) as usize];
        s.set(e, &b);
    }
    let _ = &mut d;
    let before = d.buf.bytes().to_vec();
    let exec = match inplace_copy(&d.desc(dv), &s.desc(sv)) {
        Ok(e) => e,
        Err(_) => {
            if d.buf.bytes() != &before[..] {
                return Err("a refused copy wrote its destination".into());
            }
            return Ok(false);
        }
    };
    run_exec(&exec).map_err(|e| format!("run: {e}"))?;
    for idx in all_indices(&dv.shape) {
        let x = s.val(at_bcast(sv, &idx));
        let want = convert(x, dv.dtype);
        let got = d.get(at(dv, &idx));
        if !copy_matches(sv.dtype, dv.dtype, got, want) {
            return Err(format!(
                "{:?} <- {:?} at {idx:?}: {x:?} gave {:?}, want {want:?}\n dst {dv:?}\n src {sv:?}",
                dv.dtype,
                sv.dtype,
                decode(dv.dtype, got)
            ));
        }
    }
    outside_untouched(&d, dv, &before)?;
    Ok(true)
}

/// Every (src, selfRef) dtype pair: converts by the rule, with a broadcast, transposed
/// source and a transposed destination; complex -> real is refused.
#[test]
fn inplace_copy_dtype_matrix_with_broadcast_and_transposed_views() {
    let mut rng = Rng::new(0xC0B1);
    let mut bad = Vec::new();
    for &sd in &CAST15 {
        for &dd in &CAST15 {
            let refused = kd(sd) == Kd::Complex && kd(dd) != Kd::Complex;
            // selfRef (3,4) transposed in memory; src (4,) strided, (3,1), () or (3,4) transposed.
            let dv = view(&[3, 4], &[1, 3], 1, dd);
            for sv in [
                view(&[4], &[2], 1, sd),
                view(&[3, 1], &[1, 7], 0, sd),
                view(&[], &[], 3, sd),
                view(&[3, 4], &[1, 4], 2, sd),
            ] {
                match check_copy(&dv, &sv, &mut rng) {
                    Ok(ran) if ran != refused => {}
                    Ok(ran) => bad.push(format!(
                        "{sd:?} -> {dd:?} {sv:?}: ran = {ran}, refused expected = {refused}"
                    )),
                    Err(e) => bad.push(e),
                }
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad[..bad.len().min(20)].join("\n"));
}

#[test]
fn inplace_copy_random_views() {
    let mut rng = Rng::new(0xC0B2);
    let mut ran = 0;
    for case in 0..500 {
        let sd = rng.pick(&CAST15);
        let mut dd = rng.pick(&CAST15);
        if kd(sd) == Kd::Complex && kd(dd) != Kd::Complex {
            dd = C128;
        }
        let rank = rng.below(5) as usize;
        let shape: Vec<usize> = (0..rank)
            .map(|_| {
                if rng.pct(4) {
                    0
                } else {
                    1 + rng.below(5) as usize
                }
            })
            .collect();
        // src: a right-aligned suffix of shape, some dims 1
        let drop = rng.below(rank as u64 + 1) as usize;
        let sshape: Vec<usize> = shape[drop..]
            .iter()
            .map(|&d| if rng.pct(30) { 1 } else { d })
            .collect();
        let dv = gen_view(&mut rng, &shape, dd, false);
        let sv = gen_view(&mut rng, &sshape, sd, true);
        match check_copy(&dv, &sv, &mut rng) {
            Ok(true) => ran += 1,
            Ok(false) => panic!("case {case}: refused {sd:?} -> {dd:?} {sv:?} -> {dv:?}"),
            Err(e) => panic!("case {case}: {e}"),
        }
    }
    assert_eq!(ran, 500);
}

/// SEMANTICS §2 seed view as the destination: storage 10x10, shape (4,3), strides (20,2),
/// offset 22. Only its 12 elements change.
#[test]
fn inplace_copy_into_semantics_seed_view() {
    let mut rng = Rng::new(0x5EED);
    for &dd in &CAST15 {
        let dv = view(&[4, 3], &[20, 2], 22, dd);
        let mut d = Store::new(dd, 100, &mut rng);
        let mut s = Store::new(S32, 12, &mut rng);
        for k in 0..12 {
            s.set(k, &(k as i32 * 7 - 30).to_le_bytes());
        }
        let before = d.buf.bytes().to_vec();
        let e = inplace_copy(&d.desc(&dv), &s.desc(&contiguous(&[4, 3], S32))).unwrap();
        run_exec(&e).unwrap();
        for i in 0..4 {
            for j in 0..3 {
                let want = convert(Val::I((i * 3 + j) as i128 * 7 - 30), dd);
                let got = d.get(22 + 20 * i + 2 * j);
                assert!(
                    stored_matches(dd, got, want),
                    "{dd:?} [{i},{j}]: {:?} want {want:?}",
                    decode(dd, got)
                );
            }
        }
        outside_untouched(&d, &dv, &before).unwrap();
        let _ = &mut d;
    }
}

/// A source that overlaps the destination is read completely before any write (SEMANTICS
/// §2): x[1:10] = x[0:9], x[0:9] = x[1:10], x = x^T, x[:] = x[0] broadcast, and a u8 view
/// copied into an s16 view of the same bytes.
#[test]
fn inplace_copy_overlapping_source_behaves_like_a_snapshot() {
    let mut rng = Rng::new(0x0BE7);
    let shift_cases: [(View, View); 4] = [
        (view(&[9], &[1], 1, F32), view(&[9], &[1], 0, F32)),
        (view(&[9], &[1], 0, F32), view(&[9], &[1], 1, F32)),
        (
            view(&[5, 5], &[5, 1], 0, F32),
            view(&[5, 5], &[1, 5], 0, F32),
        ),
        (view(&[10], &[1], 0, F32), view(&[1], &[1], 3, F32)),
    ];
    for n in [10usize, 4000] {
        for (dv, sv) in shift_cases.iter() {
            // scale the 1-d cases up so the engine works in several chunks
            let (dv, sv) = if n > 10 && dv.shape.len() == 1 && sv.shape[0] != 1 {
                let mut a = dv.clone();
                let mut b = sv.clone();
                a.shape = vec![n - 1];
                b.shape = vec![n - 1];
                (a, b)
            } else {
                (dv.clone(), sv.clone())
            };
            let elems = needed(&dv).max(needed(&sv)) + 1;
            let mut x = Store::new(F32, elems, &mut rng);
            for e in 0..elems {
                x.set(e, &(e as f32 * 1.5 - 3.0).to_le_bytes());
            }
            let snap = Store {
                buf: {
                    let mut b = Buf::new(x.buf.bytes().len());
                    b.bytes_mut().copy_from_slice(x.buf.bytes());
                    b
                },
                dtype: F32,
            };
            let exec = inplace_copy(&x.desc(&dv), &x.desc(&sv)).unwrap();
            run_exec(&exec).unwrap();
            let mut inside = vec![false; elems];
            for idx in all_indices(&dv.shape) {
                let e = at(&dv, &idx);
                inside[e] = true;
                assert_eq!(
                    x.get(e),
                    snap.get(at_bcast(&sv, &idx)),
                    "{dv:?} <- {sv:?} at {idx:?}"
                );
            }
            for (e, _) in inside.iter().enumerate().filter(|(_, ins)| !**ins) {
                assert_eq!(x.get(e), snap.get(e), "element {e} outside the destination");
            }
            let _ = &mut x;
        }
    }
    // Different dtypes over the same bytes: u8 bytes [0..8) -> s16 elements [2..6) (bytes [4..12)).
    let mut x = Store::new(U8, 16, &mut rng);
    for e in 0..16 {
        x.set(e, &[(e as u8).wrapping_mul(37).wrapping_add(200)]);
    }
    let snap: Vec<u8> = x.buf.bytes().to_vec();
    let sv = view(&[4], &[1], 0, U8);
    let dv = view(&[4], &[1], 2, S16);
    let sdesc = x.desc(&sv);
    let ddesc = desc(&dv, &x.buf).unwrap();
    let exec = inplace_copy(&ddesc, &sdesc).unwrap();
    run_exec(&exec).unwrap();
    let b = x.buf.bytes();
    for k in 0..4 {
        let got = i16::from_le_bytes([b[4 + 2 * k], b[5 + 2 * k]]);
        assert_eq!(got, snap[k] as i16, "element {k}");
    }
    assert_eq!(&b[..4], &snap[..4]);
    assert_eq!(&b[12..], &snap[12..]);
}

#[test]
fn inplace_copy_refusals() {
    let mut rng = Rng::new(0xBAD);
    let (_a, f32_34) = tensor(F32, &[3, 4], &mut rng);
    for cd in [C64, C128] {
        let (_b, c) = tensor(cd, &[3, 4], &mut rng);
        for &rd in &CAST15 {
            if kd(rd) == Kd::Complex {
                continue;
            }
            let (_d, r) = tensor(rd, &[3, 4], &mut rng);
            assert!(
                inplace_copy(&r, &c).is_err(),
                "{cd:?} -> {rd:?} must be refused"
            );
        }
    }
    let (_c, c32) = tensor(C32, &[3, 4], &mut rng);
    let (_d, c64) = tensor(C64, &[3, 4], &mut rng);
    assert!(inplace_copy(&c64, &c32).is_err(), "c32 src");
    assert!(inplace_copy(&c32, &c64).is_err(), "c32 selfRef");
    // src must broadcast to selfRef's shape, not the other way round
    for shape in [&[3][..], &[2, 4], &[4, 3], &[2, 3, 4], &[3, 5]] {
        let (_s, s) = tensor(F32, shape, &mut rng);
        assert!(inplace_copy(&f32_34, &s).is_err(), "src {shape:?}");
    }
    let (_s, s4) = tensor(F32, &[4], &mut rng);
    let (_t, d1) = tensor(F32, &[1, 4], &mut rng);
    let (_u, s34) = tensor(F32, &[3, 4], &mut rng);
    assert!(inplace_copy(&d1, &s34).is_err(), "(3,4) into (1,4)");
    assert!(inplace_copy(&f32_34, &s4).is_ok());
    // 9 dims; a destination with overlapping elements
    let (_v, big) = tensor(F32, &[1; 9], &mut rng);
    assert!(inplace_copy(&big, &big.clone()).is_err(), "9 dims");
    let st = Store::new(F32, 4, &mut rng);
    let expanded = st.desc(&view(&[3, 4], &[0, 1], 0, F32));
    assert!(
        inplace_copy(&expanded, &s4).is_err(),
        "overlapping destination"
    );
}

#[test]
fn inplace_copy_zero_dim_and_empty() {
    let mut rng = Rng::new(0xE);
    let mut s = Store::new(BF16, 1, &mut rng);
    s.set(0, &0xc0a0u16.to_le_bytes()); // -5.0
    let d = Store::new(S64, 1, &mut rng);
    let e = inplace_copy(
        &d.desc(&contiguous(&[], S64)),
        &s.desc(&contiguous(&[], BF16)),
    )
    .unwrap();
    run_exec(&e).unwrap();
    assert_eq!(d.get(0), (-5i64).to_le_bytes());
    let (_a, a) = tensor(F32, &[2, 0], &mut rng);
    let (_b, b) = tensor(S8, &[0], &mut rng);
    let e = inplace_copy(&a, &b).unwrap();
    assert_eq!(e.workspace_size(), 0);
    run_exec(&e).unwrap();
}

// ---------------------------------------------------------------------------------------
// InplaceFillScalar, InplaceZero
// ---------------------------------------------------------------------------------------

/// Views to fill: the SEMANTICS seed view, a transposed gapped view, a 0-d view.
fn fill_views(d: DType) -> Vec<(View, usize)> {
    vec![
        (view(&[4, 3], &[20, 2], 22, d), 100),
        (view(&[3, 4, 2], &[1, 4, 17], 2, d), 40),
        (view(&[], &[], 5, d), 7),
        (view(&[2500], &[1], 1, d), 2502),
    ]
}

#[test]
fn inplace_fill_scalar_every_dtype_and_scalar_dtype_on_strided_views() {
    let mut rng = Rng::new(0xF111);
    let mut bad = Vec::new();
    for &dd in &CAST15 {
        for &sd in &CAST15 {
            let edges = edge_values(sd, &mut rng);
            for (v, elems) in fill_views(dd) {
                let value = edges[rng.below(edges.len() as u64) as usize];
                let sc = Scalar::from_bytes(sd, &value);
                let x = decode(sd, &value);
                let mut st = Store::new(dd, elems, &mut rng);
                let before = st.buf.bytes().to_vec();
                let r = inplace_fill_scalar(&st.desc(&v), &sc);
                let refused = kd(sd) == Kd::Complex && kd(dd) != Kd::Complex;
                match r {
                    Err(_) if refused => continue,
                    Err(e) => {
                        bad.push(format!("{sd:?} {x:?} into {dd:?}: refused: {e}"));
                        continue;
                    }
                    Ok(_) if refused => {
                        bad.push(format!("{sd:?} into {dd:?} must be refused"));
                        continue;
                    }
                    Ok(e) => run_exec(&e).unwrap(),
                }
                let want = convert(x, dd);
                for idx in all_indices(&v.shape) {
                    let got = st.get(at(&v, &idx));
                    if !stored_matches(dd, got, want) {
                        bad.push(format!(
                            "{sd:?} {x:?} into {dd:?} {v:?} at {idx:?}: got {:?} want {want:?}",
                            decode(dd, got)
                        ));
                        break;
                    }
                }
                if let Err(e) = outside_untouched(&st, &v, &before) {
                    bad.push(format!("{sd:?} into {dd:?}: {e}"));
                }
                let _ = &mut st;
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad[..bad.len().min(20)].join("\n"));
}

/// InplaceZero: every dtype of CANN's A2 list (no u32/u64: refused, selfRef untouched).
#[test]
fn inplace_zero_every_dtype_on_strided_views() {
    let mut rng = Rng::new(0x2E80);
    for &dd in &CAST15 {
        if matches!(dd, U32 | U64) {
            let (v, elems) = fill_views(dd).remove(0);
            let st = Store::new(dd, elems, &mut rng);
            match inplace_zero(&st.desc(&v)) {
                Err(e) => assert!(e.to_string().contains("selfRef"), "{e}"),
                Ok(_) => panic!("InplaceZero of {dd:?} accepted"),
            }
            continue;
        }
        for (v, elems) in fill_views(dd) {
            let st = Store::new(dd, elems, &mut rng);
            let before = st.buf.bytes().to_vec();
            let e = inplace_zero(&st.desc(&v)).unwrap();
            run_exec(&e).unwrap();
            for idx in all_indices(&v.shape) {
                let got = st.get(at(&v, &idx));
                assert!(
                    got.iter().all(|&b| b == 0),
                    "{dd:?} {v:?} at {idx:?}: {got:02x?} (must be all-zero bits, +0.0)"
                );
            }
            outside_untouched(&st, &v, &before).unwrap();
        }
    }
}

#[test]
fn fill_and_zero_refusals_and_empty() {
    let mut rng = Rng::new(0xF0);
    let (_a, c32) = tensor(C32, &[2], &mut rng);
    assert!(inplace_zero(&c32).is_err());
    assert!(inplace_fill_scalar(&c32, &Scalar::from_bytes(F32, &1f32.to_le_bytes())).is_err());
    let st = Store::new(F32, 4, &mut rng);
    let expanded = st.desc(&view(&[3, 4], &[0, 1], 0, F32));
    assert!(inplace_zero(&expanded).is_err(), "overlapping selfRef");
    assert!(inplace_fill_scalar(&expanded, &Scalar::from_bytes(F32, &1f32.to_le_bytes())).is_err());
    let (_b, big) = tensor(F32, &[1; 9], &mut rng);
    assert!(inplace_zero(&big).is_err(), "9 dims");
    let (_c, empty) = tensor(S16, &[3, 0], &mut rng);
    let e = inplace_zero(&empty).unwrap();
    assert_eq!(e.workspace_size(), 0);
    run_exec(&e).unwrap();
    let e = inplace_fill_scalar(&empty, &Scalar::from_bytes(S8, &[3])).unwrap();
    run_exec(&e).unwrap();
}
