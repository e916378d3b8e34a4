//! Differential test of Add / Adds / InplaceAdd / InplaceAdds against an independent
//! reference written here (reference §5.0 and §5.1 "Add", SEMANTICS §2-§5).
//!
//! Nothing of the library's conversion, promotion or kernel code is used to compute the
//! expected values: the promotion tables are transcribed from SEMANTICS §4 and reference
//! §5.0 (TensorScalar), f16/bf16 are decoded from their bits by hand, every rounding to a
//! narrower float is done with integer/power-of-two arithmetic (round to nearest, ties to
//! even), integers wrap through i128.
//!
//! The reference model of `out = self + alpha*other`:
//! - P = promote(self, other) (Adds: the TensorScalar relation);
//! - self and other (tensor or scalar) are converted exactly to P (ints wrap, int->float and
//!   real->complex round to nearest even, bool -> 0/1);
//! - alpha is converted to P first; alpha == 1 (as given) means a plain `self + other`;
//! - f16/bf16: `a + alpha*b` in f32 (a multiply then an add, not fused), rounded once to P;
//!   f32 in f32, f64 in f64, ints with wrapping arithmetic at P's width, bool as
//!   `a || (alpha && b)`, complex in the component type with the usual product formula;
//! - the P result is converted to out's dtype (float->float and int->float RNE, int->int
//!   wraps, bool -> 0/1, complex per component).
//!
//! Shared with `engine_views.rs`: the RNG, the reference, and the case runner.

use crate::dtype::DType;
use crate::executor::{Executor, Workspace};
use crate::ops::add::{add, adds, inplace_add, inplace_adds};
use crate::scalar::Scalar;
use crate::tensor::TensorDesc;
use std::fmt;

// ---------------------------------------------------------------------------------------
// RNG
// ---------------------------------------------------------------------------------------

/// xorshift64*: seeded, so every failure is reproducible.
pub(super) struct Rng(u64);
impl Rng {
    pub(super) fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub(super) fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub(super) fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.next() % n
        }
    }
    /// True with probability `pct`%.
    pub(super) fn pct(&mut self, pct: u64) -> bool {
        self.below(100) < pct
    }
    pub(super) fn pick<T: Copy>(&mut self, v: &[T]) -> T {
        v[self.below(v.len() as u64) as usize]
    }
}

// ---------------------------------------------------------------------------------------
// Dtype facts, written independently of dtype.rs
// ---------------------------------------------------------------------------------------

pub(super) const ALL12: [DType; 12] = [
    DType::F32,
    DType::F16,
    DType::F64,
    DType::BF16,
    DType::S8,
    DType::U8,
    DType::S16,
    DType::S32,
    DType::S64,
    DType::Bool,
    DType::C64,
    DType::C128,
];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum K {
    Bool,
    Int,
    Float,
    Complex,
}

pub(super) fn kind(d: DType) -> K {
    match d {
        DType::S4 => unreachable!("ACL_INT4 is a storage dtype: no table of these tests covers it"),
        DType::Bool => K::Bool,
        DType::S8
        | DType::U8
        | DType::S16
        | DType::U16
        | DType::S32
        | DType::U32
        | DType::S64
        | DType::U64 => K::Int,
        DType::F16 | DType::BF16 | DType::F32 | DType::F64 => K::Float,
        DType::C32 | DType::C64 | DType::C128 => K::Complex,
    }
}

pub(super) fn size(d: DType) -> usize {
    match d {
        DType::S4 => unreachable!("ACL_INT4 is a storage dtype: no table of these tests covers it"),
        DType::Bool | DType::S8 | DType::U8 => 1,
        DType::F16 | DType::BF16 | DType::S16 | DType::U16 => 2,
        DType::F32 | DType::S32 | DType::U32 | DType::C32 => 4,
        DType::F64 | DType::S64 | DType::U64 | DType::C64 => 8,
        DType::C128 => 16,
    }
}

fn int_bits(d: DType) -> (u32, bool) {
    match d {
        DType::S8 => (8, true),
        DType::U8 => (8, false),
        DType::S16 => (16, true),
        DType::U16 => (16, false),
        DType::S32 => (32, true),
        DType::U32 => (32, false),
        DType::S64 => (64, true),
        DType::U64 => (64, false),
        _ => unreachable!("{d:?} is not an integer dtype"),
    }
}

fn short(d: DType) -> &'static str {
    match d {
        DType::S4 => unreachable!("ACL_INT4 is a storage dtype: no table of these tests covers it"),
        DType::F32 => "f32",
        DType::F16 => "f16",
        DType::F64 => "f64",
        DType::BF16 => "bf16",
        DType::S8 => "s8",
        DType::U8 => "u8",
        DType::S16 => "s16",
        DType::U16 => "u16",
        DType::S32 => "s32",
        DType::U32 => "u32",
        DType::S64 => "s64",
        DType::U64 => "u64",
        DType::Bool => "bool",
        DType::C32 => "c32",
        DType::C64 => "c64",
        DType::C128 => "c128",
    }
}

fn by_short(s: &str) -> DType {
    *[
        DType::F32,
        DType::F16,
        DType::F64,
        DType::BF16,
        DType::S8,
        DType::U8,
        DType::S16,
        DType::S32,
        DType::S64,
        DType::Bool,
        DType::C64,
        DType::C128,
    ]
    .iter()
    .find(|d| short(**d) == s)
    .unwrap_or_else(|| panic!("unknown dtype {s}"))
}

/// SEMANTICS §4, transcribed (the ALL12 rows and columns except bool; c32 never arises
/// from ALL12 inputs).
const TABLE: &str = "
      f32  f16  f64  bf16 s8   u8   s16  s32  s64  c64  c128
f32   f32  f32  f64  f32  f32  f32  f32  f32  f32  c64  c128
f16   f32  f16  f64  f32  f16  f16  f16  f16  f16  c64  c128
f64   f64  f64  f64  f64  f64  f64  f64  f64  f64  c64  c128
bf16  f32  f32  f64  bf16 bf16 bf16 bf16 bf16 bf16 c64  c128
s8    f32  f16  f64  bf16 s8   s16  s16  s32  s64  c64  c128
u8    f32  f16  f64  bf16 s16  u8   s16  s32  s64  c64  c128
s16   f32  f16  f64  bf16 s16  s16  s16  s32  s64  c64  c128
s32   f32  f16  f64  bf16 s32  s32  s32  s32  s64  c64  c128
s64   f32  f16  f64  bf16 s64  s64  s64  s64  s64  c64  c128
c64   c64  c64  c64  c64  c64  c64  c64  c64  c64  c64  c128
c128  c128 c128 c128 c128 c128 c128 c128 c128 c128 c128 c128
";

/// Tensor-tensor promotion among ALL12 (None: not promotable, e.g. u16 with s32).
pub(super) fn ref_promote(a: DType, b: DType) -> Option<DType> {
    let in12 = |d: DType| ALL12.contains(&d);
    if !in12(a) || !in12(b) {
        return if a == b { Some(a) } else { None };
    }
    if a == DType::Bool {
        return Some(b);
    }
    if b == DType::Bool {
        return Some(a);
    }
    let mut lines = TABLE.lines().filter(|l| !l.trim().is_empty());
    let cols: Vec<&str> = lines.next().unwrap().split_whitespace().collect();
    let ci = cols.iter().position(|c| *c == short(b)).unwrap();
    for l in lines {
        let cells: Vec<&str> = l.split_whitespace().collect();
        if cells[0] == short(a) {
            return Some(by_short(cells[1 + ci]));
        }
    }
    unreachable!()
}

/// Reference §5.0 TensorScalar relation, in words: complex involved -> the tensor table;
/// float tensor keeps its dtype; an int/bool tensor with a float scalar gives f32; an int
/// tensor with an int/bool scalar keeps its dtype; a bool tensor takes an int scalar's
/// dtype; bool with bool is bool.
pub(super) fn ref_promote_scalar(t: DType, s: DType) -> Option<DType> {
    if !ALL12.contains(&t) || !ALL12.contains(&s) {
        return None;
    }
    match (kind(t), kind(s)) {
        (K::Complex, _) | (_, K::Complex) => ref_promote(t, s),
        (K::Float, _) => Some(t),
        (K::Int | K::Bool, K::Float) => Some(DType::F32),
        (K::Int, _) => Some(t),
        (K::Bool, K::Int) => Some(s),
        (K::Bool, K::Bool) => Some(DType::Bool),
    }
}

/// SEMANTICS §5: float<->float, int<->int, int->float, bool->int/float, complex<->complex.
pub(super) fn ref_can_cast(from: DType, to: DType) -> bool {
    from == to
        || matches!(
            (kind(from), kind(to)),
            (K::Float, K::Float)
                | (K::Int, K::Int)
                | (K::Int, K::Float)
                | (K::Bool, K::Int)
                | (K::Bool, K::Float)
                | (K::Complex, K::Complex)
        )
}

/// Reference §5.1 Add: `CanCast(alpha, promoted)` (no complex alpha for a real result, no
/// float alpha for an integer one, no non-bool alpha for... except a bool promoted type
/// takes any integral or bool alpha).
pub(super) fn ref_alpha_ok(alpha: DType, p: DType) -> bool {
    match kind(p) {
        K::Bool | K::Int => matches!(kind(alpha), K::Bool | K::Int),
        K::Float => kind(alpha) != K::Complex,
        K::Complex => true,
    }
}

/// Out dtypes (ALL12) a promoted dtype may be written to.
pub(super) fn castable_outs(p: DType) -> Vec<DType> {
    ALL12
        .iter()
        .copied()
        .filter(|&o| ref_can_cast(p, o))
        .collect()
}

// ---------------------------------------------------------------------------------------
// Values and exact conversions
// ---------------------------------------------------------------------------------------

/// An exact element value.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum V {
    B(bool),
    I(i128),
    F(f64),
    C(f64, f64),
}

impl fmt::Debug for V {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            V::B(b) => write!(f, "{b}"),
            V::I(i) => write!(f, "{i}"),
            V::F(x) => write!(f, "{x:e} ({:#018x})", x.to_bits()),
            V::C(r, i) => write!(f, "({r:e}, {i:e})"),
        }
    }
}

/// 2^k for k in the normal f64 exponent range.
pub(super) fn pow2(k: i32) -> f64 {
    assert!((-1022..=1023).contains(&k), "pow2({k})");
    f64::from_bits(((k + 1023) as u64) << 52)
}

/// floor(log2(a)) for finite a > 0, exactly (subnormals included).
fn floor_log2(a: f64) -> i32 {
    let bits = a.to_bits() & !(1u64 << 63);
    let ef = (bits >> 52) as i32;
    if ef == 0 {
        let m = bits & ((1u64 << 52) - 1);
        63 - m.leading_zeros() as i32 - 1074
    } else {
        ef - 1023
    }
}

#[derive(Clone, Copy)]
struct Fmt {
    p: i32,
    emin: i32,
    emax: i32,
}
fn fmt_of(d: DType) -> Fmt {
    match d {
        DType::F16 => Fmt {
            p: 11,
            emin: -14,
            emax: 15,
        },
        DType::BF16 => Fmt {
            p: 8,
            emin: -126,
            emax: 127,
        },
        DType::F32 | DType::C64 => Fmt {
            p: 24,
            emin: -126,
            emax: 127,
        },
        DType::F64 | DType::C128 => Fmt {
            p: 53,
            emin: -1022,
            emax: 1023,
        },
        _ => unreachable!("{d:?} is not a float"),
    }
}
fn max_finite(f: Fmt) -> f64 {
    (2.0 - pow2(1 - f.p)) * pow2(f.emax)
}

/// x correctly rounded (nearest, ties to even) into float format `d`; overflow gives ±inf.
pub(super) fn round_float(x: f64, d: DType) -> f64 {
    let f = fmt_of(d);
    if f.p == 53 || !x.is_finite() || x == 0.0 {
        return x;
    }
    let q = floor_log2(x.abs()).max(f.emin) - (f.p - 1); // exponent of the ulp at x
    let r = (x * pow2(-q)).round_ties_even() * pow2(q);
    if r.abs() > max_finite(f) {
        f64::INFINITY.copysign(x)
    } else {
        r
    }
}

/// An integer correctly rounded into float format `d` (nearest, ties to even).
pub(super) fn round_int(i: i128, d: DType) -> f64 {
    let f = fmt_of(d);
    if i == 0 {
        return 0.0;
    }
    let a = i.unsigned_abs();
    let n = 128 - a.leading_zeros() as i32;
    let v = if n <= f.p {
        a as f64
    } else {
        let shift = n - f.p;
        let mut q = a >> shift;
        let rem = a & ((1u128 << shift) - 1);
        let half = 1u128 << (shift - 1);
        if rem > half || (rem == half && q & 1 == 1) {
            q += 1;
        }
        q as f64 * pow2(shift)
    };
    let v = if v > max_finite(f) { f64::INFINITY } else { v };
    if i < 0 {
        -v
    } else {
        v
    }
}

pub(super) fn wrap(i: i128, d: DType) -> i128 {
    let (bits, signed) = int_bits(d);
    let sh = 128 - bits;
    if signed {
        (i << sh) >> sh
    } else {
        ((i as u128) << sh >> sh) as i128
    }
}

/// The exact conversion rule of the model (only the conversions the model needs).
pub(super) fn conv(v: V, to: DType) -> V {
    match (kind(to), v) {
        (K::Bool, V::B(b)) => V::B(b),
        (K::Bool, V::I(i)) => V::B(i != 0), // integral alpha on a bool result
        (K::Int, V::B(b)) => V::I(b as i128),
        (K::Int, V::I(i)) => V::I(wrap(i, to)),
        (K::Float, V::B(b)) => V::F(b as u8 as f64),
        (K::Float, V::I(i)) => V::F(round_int(i, to)),
        (K::Float, V::F(x)) => V::F(round_float(x, to)),
        (K::Complex, V::B(b)) => V::C(b as u8 as f64, 0.0),
        (K::Complex, V::I(i)) => V::C(round_int(i, to), 0.0),
        (K::Complex, V::F(x)) => V::C(round_float(x, to), 0.0),
        (K::Complex, V::C(r, i)) => V::C(round_float(r, to), round_float(i, to)),
        (k, v) => panic!("the model never converts {v:?} to {k:?} ({to:?})"),
    }
}

fn decode_f16(h: u16) -> f64 {
    let s = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let e = ((h >> 10) & 0x1f) as i32;
    let m = (h & 0x3ff) as f64;
    match e {
        0 => s * m * pow2(-24),
        31 if m == 0.0 => s * f64::INFINITY,
        31 => f64::NAN,
        _ => s * (1024.0 + m) * pow2(e - 25),
    }
}

fn le(b: &[u8], n: usize) -> u128 {
    let mut x = 0u128;
    for (k, byte) in b[..n].iter().enumerate() {
        x |= (*byte as u128) << (8 * k);
    }
    x
}

/// Decodes one element of dtype `d` from its little-endian bytes.
pub(super) fn decode(d: DType, b: &[u8]) -> V {
    match d {
        DType::S4 => unreachable!("ACL_INT4 is a storage dtype: no table of these tests covers it"),
        DType::Bool => V::B(b[0] != 0),
        DType::S8
        | DType::U8
        | DType::S16
        | DType::U16
        | DType::S32
        | DType::U32
        | DType::S64
        | DType::U64 => {
            let (bits, _) = int_bits(d);
            V::I(wrap(le(b, bits as usize / 8) as i128, d))
        }
        DType::F16 => V::F(decode_f16(le(b, 2) as u16)),
        DType::BF16 => V::F(f32::from_bits((le(b, 2) as u32) << 16) as f64),
        DType::F32 => V::F(f32::from_bits(le(b, 4) as u32) as f64),
        DType::F64 => V::F(f64::from_bits(le(b, 8) as u64)),
        DType::C64 => V::C(
            f32::from_bits(le(b, 4) as u32) as f64,
            f32::from_bits(le(&b[4..], 4) as u32) as f64,
        ),
        DType::C128 => V::C(
            f64::from_bits(le(b, 8) as u64),
            f64::from_bits(le(&b[8..], 8) as u64),
        ),
        DType::C32 => unreachable!(),
    }
}

/// Bit-exact equality, every NaN equal to every NaN.
fn same_float(a: f64, b: f64) -> bool {
    (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits()
}

pub(super) fn same(a: V, b: V) -> bool {
    match (a, b) {
        (V::B(x), V::B(y)) => x == y,
        (V::I(x), V::I(y)) => x == y,
        (V::F(x), V::F(y)) => same_float(x, y),
        (V::C(a, b), V::C(c, d)) => same_float(a, c) && same_float(b, d),
        _ => false,
    }
}

fn is_one(v: V) -> bool {
    match v {
        V::B(b) => b,
        V::I(i) => i == 1,
        V::F(x) => x == 1.0,
        V::C(r, i) => r == 1.0 && i == 0.0,
    }
}

/// `a + alpha*b` in P, with a, b already in P and alpha as given.
pub(super) fn ref_add_p(p: DType, a: V, b: V, alpha: V) -> V {
    let one = is_one(alpha);
    let al = conv(alpha, p);
    match (p, a, b, al) {
        (DType::Bool, V::B(a), V::B(b), V::B(al)) => V::B(a || (al && b)),
        (_, V::I(a), V::I(b), V::I(al)) => {
            let r = if one {
                a.wrapping_add(b)
            } else {
                a.wrapping_add(al.wrapping_mul(b))
            };
            V::I(wrap(r, p))
        }
        (DType::F16 | DType::BF16 | DType::F32, V::F(a), V::F(b), V::F(al)) => {
            let (a, b, al) = (a as f32, b as f32, al as f32); // exact
            let r = if one { a + b } else { a + al * b };
            V::F(round_float(r as f64, p))
        }
        (DType::F64, V::F(a), V::F(b), V::F(al)) => V::F(if one { a + b } else { a + al * b }),
        (DType::C64, V::C(ar, ai), V::C(br, bi), V::C(lr, li)) => {
            let (ar, ai, br, bi, lr, li) = (
                ar as f32, ai as f32, br as f32, bi as f32, lr as f32, li as f32,
            );
            let (r, i) = if one {
                (ar + br, ai + bi)
            } else {
                (ar + (lr * br - li * bi), ai + (lr * bi + li * br))
            };
            V::C(r as f64, i as f64)
        }
        (DType::C128, V::C(ar, ai), V::C(br, bi), V::C(lr, li)) => {
            if one {
                V::C(ar + br, ai + bi)
            } else {
                V::C(ar + (lr * br - li * bi), ai + (lr * bi + li * br))
            }
        }
        _ => panic!("model: bad operands for {p:?}: {a:?} {b:?} {al:?}"),
    }
}

/// The whole model for one element: inputs in their own dtypes, result in `out`'s dtype.
pub(super) fn ref_elem(p: DType, a: V, b: V, alpha: V, out: DType) -> V {
    conv(ref_add_p(p, conv(a, p), conv(b, p), alpha), out)
}

// ---------------------------------------------------------------------------------------
// Cases
// ---------------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Op {
    Add,
    Adds,
    InplaceAdd,
    InplaceAdds,
}

/// A view over storage `storage` of the case.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct View {
    pub shape: Vec<usize>,
    pub strides: Vec<usize>,
    pub offset: usize,
    pub dtype: DType,
    pub storage: usize,
}

impl View {
    pub(super) fn contiguous(shape: &[usize], dtype: DType, storage: usize) -> View {
        let mut strides = vec![0; shape.len()];
        let mut acc = 1;
        for j in (0..shape.len()).rev() {
            strides[j] = acc;
            acc *= shape[j].max(1);
        }
        View {
            shape: shape.to_vec(),
            strides,
            offset: 0,
            dtype,
            storage,
        }
    }
    pub(super) fn numel(&self) -> usize {
        self.shape.iter().product()
    }
    /// Element count the storage needs for this view.
    fn needed_elems(&self) -> usize {
        if self.numel() == 0 {
            return self.offset;
        }
        self.offset
            + self
                .shape
                .iter()
                .zip(&self.strides)
                .map(|(d, s)| (d - 1) * s)
                .sum::<usize>()
            + 1
    }
    /// Element index of the element at out multi-index `idx` (broadcast from the right).
    fn index_bcast(&self, idx: &[usize]) -> usize {
        let lead = idx.len() - self.shape.len();
        let mut e = self.offset;
        for j in 0..self.shape.len() {
            if self.shape[j] != 1 {
                e += idx[lead + j] * self.strides[j];
            }
        }
        e
    }
}

/// A scalar: dtype and little-endian bytes.
#[derive(Clone, Copy, PartialEq)]
pub(super) struct Sc {
    pub dtype: DType,
    pub bytes: [u8; 16],
}
impl Sc {
    pub(super) fn value(&self) -> V {
        decode(self.dtype, &self.bytes)
    }
    pub(super) fn to_scalar(self) -> Scalar {
        Scalar::from_bytes(self.dtype, &self.bytes)
    }
    /// A scalar from a small integer value, in any dtype (floats exact for |v| < 256).
    pub(super) fn int(dtype: DType, v: i64) -> Sc {
        let mut bytes = [0u8; 16];
        let put = |bytes: &mut [u8; 16], x: u128, n: usize| {
            for (k, b) in bytes.iter_mut().enumerate().take(n) {
                *b = (x >> (8 * k)) as u8;
            }
        };
        match kind(dtype) {
            K::Bool => bytes[0] = (v != 0) as u8,
            K::Int => put(&mut bytes, v as i128 as u128, size(dtype)),
            K::Float | K::Complex => {
                let x = v as f64;
                let bits: u128 = match dtype {
                    DType::F64 | DType::C128 => x.to_bits() as u128,
                    DType::F32 | DType::C64 => (x as f32).to_bits() as u128,
                    DType::BF16 => ((x as f32).to_bits() >> 16) as u128,
                    DType::F16 => f16_bits_of_small_int(v) as u128,
                    _ => unreachable!(),
                };
                put(&mut bytes, bits, fmt_part_size(dtype));
            }
        }
        Sc { dtype, bytes }
    }
    pub(super) fn f64(dtype: DType, x: f64) -> Sc {
        let mut bytes = [0u8; 16];
        match dtype {
            DType::F64 => bytes[..8].copy_from_slice(&x.to_le_bytes()),
            DType::F32 => bytes[..4].copy_from_slice(&(x as f32).to_le_bytes()),
            _ => panic!("Sc::f64 supports f32/f64"),
        }
        Sc { dtype, bytes }
    }
}
impl fmt::Debug for Sc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{:?}", short(self.dtype), self.value())
    }
}

fn fmt_part_size(d: DType) -> usize {
    match d {
        DType::C64 => 4,
        DType::C128 => 8,
        d => size(d),
    }
}

/// f16 bits of a small integer (|v| <= 2048), built by hand.
fn f16_bits_of_small_int(v: i64) -> u16 {
    if v == 0 {
        return 0;
    }
    let s = if v < 0 { 0x8000u16 } else { 0 };
    let a = v.unsigned_abs();
    assert!(a <= 2048);
    let e = 63 - a.leading_zeros(); // a in [2^e, 2^(e+1))
    let m = ((a << (10 - e)) & 0x3ff) as u16;
    s | (((e + 15) as u16) << 10) | m
}

#[derive(Clone, Debug)]
pub(super) struct Case {
    pub op: Op,
    pub self_: View,
    /// The tensor `other` (Add, InplaceAdd).
    pub other: Option<View>,
    /// The scalar `other` (Adds, InplaceAdds).
    pub other_s: Option<Sc>,
    pub alpha: Sc,
    /// `out` (Add, Adds); in-place ops write `self_`.
    pub out: Option<View>,
    /// Extra bytes after the last element any view of a storage reaches.
    pub slack: Vec<usize>,
}

impl Case {
    fn out_view(&self) -> &View {
        self.out.as_ref().unwrap_or(&self.self_)
    }
    fn views(&self) -> Vec<&View> {
        let mut v = vec![&self.self_];
        v.extend(self.other.as_ref());
        v.extend(self.out.as_ref());
        v
    }
    fn n_storages(&self) -> usize {
        self.views().iter().map(|v| v.storage + 1).max().unwrap()
    }
    fn storage_bytes(&self, s: usize) -> usize {
        let need = self
            .views()
            .iter()
            .filter(|v| v.storage == s)
            .map(|v| v.needed_elems() * size(v.dtype))
            .max()
            .unwrap_or(0);
        need + self.slack.get(s).copied().unwrap_or(0)
    }
    /// The promoted dtype by the model, if any.
    pub(super) fn promoted(&self) -> Option<DType> {
        match (&self.other, &self.other_s) {
            (Some(o), _) => ref_promote(self.self_.dtype, o.dtype),
            (None, Some(s)) => ref_promote_scalar(self.self_.dtype, s.dtype),
            _ => unreachable!(),
        }
    }

    /// Why the model expects phase 1 to fail, if it does.
    pub(super) fn expected_error(&self) -> Option<String> {
        for v in self.views() {
            if !ALL12.contains(&v.dtype) {
                return Some(format!("dtype {:?} not in ALL12", v.dtype));
            }
            if v.shape.len() > 8 {
                return Some("rank > 8".into());
            }
        }
        for s in self.other_s.iter().chain([&self.alpha]) {
            if !ALL12.contains(&s.dtype) {
                return Some(format!("scalar dtype {:?} not in ALL12", s.dtype));
            }
        }
        if self.op == Op::InplaceAdds && kind(self.self_.dtype) == K::Complex {
            return Some("InplaceAdds with a complex selfRef".into());
        }
        let Some(p) = self.promoted() else {
            return Some("no promotion".into());
        };
        if !ref_alpha_ok(self.alpha.dtype, p) {
            return Some(format!(
                "alpha {:?} cannot apply to {p:?}",
                self.alpha.dtype
            ));
        }
        let out = self.out_view();
        if !ref_can_cast(p, out.dtype) {
            return Some(format!("{p:?} cannot be cast to out {:?}", out.dtype));
        }
        let mut shapes = vec![&self.self_.shape[..]];
        if let Some(o) = &self.other {
            shapes.push(&o.shape[..]);
        }
        match ref_broadcast(&shapes) {
            None => return Some("not broadcastable".into()),
            Some(b) if b != out.shape => return Some("out shape != broadcast shape".into()),
            _ => {}
        }
        if matches!(p, DType::F64 | DType::C64 | DType::C128 | DType::S16) && shapes.len() == 2 {
            let n = ref_merged_axes(&shapes, &out.shape);
            if n >= 6 {
                return Some(format!("device limit: {n} merged axes in {p:?}"));
            }
        }
        if ref_internal_overlap(out) {
            return Some("out overlaps itself".into());
        }
        None
    }
}

pub(super) fn ref_broadcast(shapes: &[&[usize]]) -> Option<Vec<usize>> {
    let rank = shapes.iter().map(|s| s.len()).max().unwrap_or(0);
    let mut out = vec![1usize; rank];
    for s in shapes {
        for (i, &d) in s.iter().enumerate() {
            let j = rank - s.len() + i;
            if d == out[j] || d == 1 {
                continue;
            }
            if out[j] != 1 {
                return None;
            }
            out[j] = d;
        }
    }
    Some(out)
}

/// cann-broadcasting.en.md: drop size-1 output axes, merge neighbours broadcast the same way.
fn ref_merged_axes(shapes: &[&[usize]], out: &[usize]) -> usize {
    let r = out.len();
    let mut n = 0;
    let mut last: Option<Vec<bool>> = None;
    for j in 0..r {
        if out[j] == 1 {
            continue;
        }
        let pat: Vec<bool> = shapes
            .iter()
            .map(|s| j < r - s.len() || s[j - (r - s.len())] == 1)
            .collect();
        if last.as_ref() != Some(&pat) {
            n += 1;
        }
        last = Some(pat);
    }
    n
}

/// Brute force: two elements of `v` at the same index.
fn ref_internal_overlap(v: &View) -> bool {
    let n = v.numel();
    if n > 4_000_000 {
        return false; // the generators never make big overlapping outputs
    }
    let mut seen = std::collections::HashSet::new();
    let mut idx = vec![0usize; v.shape.len()];
    for _ in 0..n {
        if !seen.insert(v.index_bcast_full(&idx)) {
            return true;
        }
        next_index(&mut idx, &v.shape);
    }
    false
}

impl View {
    fn index_bcast_full(&self, idx: &[usize]) -> usize {
        self.offset
            + idx
                .iter()
                .zip(&self.strides)
                .map(|(i, s)| i * s)
                .sum::<usize>()
    }
}

pub(super) fn next_index(idx: &mut [usize], shape: &[usize]) {
    for j in (0..shape.len()).rev() {
        idx[j] += 1;
        if idx[j] < shape[j] {
            return;
        }
        idx[j] = 0;
    }
}

// ---------------------------------------------------------------------------------------
// Random values
// ---------------------------------------------------------------------------------------

/// (total bits, mantissa bits, bias) of a float format.
fn float_layout(d: DType) -> (u32, u32, u32) {
    match d {
        DType::F16 => (16, 10, 15),
        DType::BF16 => (16, 7, 127),
        DType::F32 | DType::C64 => (32, 23, 127),
        DType::F64 | DType::C128 => (64, 52, 1023),
        _ => unreachable!(),
    }
}

fn nice_float_bits(rng: &mut Rng, d: DType) -> u128 {
    let (total, mb, bias) = float_layout(d);
    let sign = (rng.next() & 1) as u128;
    let emax = (1u128 << (total - 1 - mb)) - 1;
    let (e, m): (u128, u128) = match rng.below(20) {
        0 => (0, 0),                                               // ±0
        1 => (emax, 0),                                            // ±inf
        2 => (emax, 1 + rng.below((1 << mb.min(62)) - 1) as u128), // NaN
        3 => (0, 1 + rng.below((1 << mb.min(62)) - 1) as u128),    // subnormal
        4 => (emax - 1, (1u128 << mb) - 1 - rng.below(3) as u128), // near max
        5 => (
            rng.below(emax as u64) as u128,
            rng.next() as u128 & ((1u128 << mb) - 1),
        ), // anything
        6..=11 => {
            // few mantissa bits: exact sums and ties
            let e = bias as i64 - 4 + rng.below(10) as i64;
            let top = rng.below(8) as u128;
            (e as u128, top << (mb - 3))
        }
        _ => {
            let e = bias as i64 - 6 + rng.below(14) as i64;
            (e as u128, rng.next() as u128 & ((1u128 << mb) - 1))
        }
    };
    (sign << (total - 1)) | (e << mb) | m
}

/// Bytes of a "nice" random value of dtype `d` (specials, small ints, extremes, any bits).
pub(super) fn nice_bytes(rng: &mut Rng, d: DType) -> [u8; 16] {
    let mut out = [0u8; 16];
    let put = |out: &mut [u8; 16], at: usize, x: u128, n: usize| {
        for k in 0..n {
            out[at + k] = (x >> (8 * k)) as u8;
        }
    };
    match kind(d) {
        K::Bool => {
            out[0] = if rng.pct(4) {
                1 + rng.below(255) as u8
            } else {
                (rng.next() & 1) as u8
            }
        }
        K::Int => {
            let (bits, signed) = int_bits(d);
            let x: i128 = match rng.below(10) {
                0..=5 => rng.below(19) as i128 - 9,
                6 => {
                    let (lo, hi) = if signed {
                        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
                    } else {
                        (0, (1i128 << bits) - 1)
                    };
                    rng.pick(&[lo, hi, lo + 1, hi - 1, hi / 2 + 1])
                }
                7 => rng.below(5000) as i128 - 2500,
                _ => rng.next() as i128 ^ ((rng.next() as i128) << 64),
            };
            put(&mut out, 0, x as u128, size(d));
        }
        K::Float => put(&mut out, 0, nice_float_bits(rng, d), size(d)),
        K::Complex => {
            let h = size(d) / 2;
            let re = nice_float_bits(rng, d);
            let im = if rng.pct(20) {
                0
            } else {
                nice_float_bits(rng, d)
            };
            put(&mut out, 0, re, h);
            put(&mut out, h, im, h);
        }
    }
    out
}

/// A random alpha for promoted dtype `p`: 1 a third of the time, else a nice value; its
/// dtype valid for `p` (or, rarely, any ALL12 dtype).
fn gen_alpha(rng: &mut Rng, p: DType) -> Sc {
    let valid: Vec<DType> = ALL12
        .iter()
        .copied()
        .filter(|&a| ref_alpha_ok(a, p))
        .collect();
    let dtype = if rng.pct(4) {
        rng.pick(&ALL12)
    } else {
        rng.pick(&valid)
    };
    if rng.pct(33) {
        return Sc::int(dtype, 1);
    }
    let mut bytes = nice_bytes(rng, dtype);
    if kind(dtype) != K::Bool && rng.pct(40) {
        // small integers are the common alphas: 2, -1, 3, 0 ...
        bytes = Sc::int(dtype, rng.pick(&[2, -1, 3, 0, -2, 5])).bytes;
    }
    Sc { dtype, bytes }
}

// ---------------------------------------------------------------------------------------
// Random shapes and views
// ---------------------------------------------------------------------------------------

fn gen_out_shape(rng: &mut Rng) -> Vec<usize> {
    let rank = rng.below(6) as usize;
    (0..rank)
        .map(|_| {
            if rng.pct(3) {
                0
            } else {
                1 + rng.below(5) as usize
            }
        })
        .collect()
}

/// Drops a random number of leading dims that are 1.
fn drop_leading_ones(rng: &mut Rng, s: Vec<usize>) -> Vec<usize> {
    let ones = s.iter().take_while(|&&d| d == 1).count();
    let k = if rng.pct(50) {
        0
    } else {
        rng.below(ones as u64 + 1) as usize
    };
    s[k..].to_vec()
}

/// Shapes of self and other that broadcast to `out` exactly.
fn gen_input_shapes(rng: &mut Rng, out: &[usize], self_full: bool) -> (Vec<usize>, Vec<usize>) {
    let mut a = out.to_vec();
    let mut b = out.to_vec();
    for j in 0..out.len() {
        if out[j] == 1 {
            continue;
        }
        match rng.below(5) {
            0 | 1 => {}
            2 if !self_full => a[j] = 1,
            _ => b[j] = 1,
        }
    }
    let a = if self_full {
        a
    } else {
        drop_leading_ones(rng, a)
    };
    (a, drop_leading_ones(rng, b))
}

/// Random strides and offset: permuted (transposed), gapped (sliced), stride 0 (inputs),
/// arbitrary strides on size-1 dims.
fn gen_layout(rng: &mut Rng, shape: &[usize], input: bool) -> (Vec<usize>, usize) {
    let r = shape.len();
    let mut order: Vec<usize> = (0..r).collect(); // outermost first
    if rng.pct(50) {
        for i in (1..r).rev() {
            let j = rng.below(i as u64 + 1) as usize;
            order.swap(i, j);
        }
    }
    let gapped = rng.pct(35);
    let mut strides = vec![0usize; r];
    let mut acc = if gapped && rng.pct(50) {
        2 + rng.below(2) as usize
    } else {
        1
    };
    for &j in order.iter().rev() {
        if shape[j] <= 1 {
            strides[j] = rng.below(7) as usize;
            continue;
        }
        let s = acc;
        strides[j] = s;
        acc = s * shape[j] + if gapped { rng.below(4) as usize } else { 0 };
    }
    if input {
        for j in 0..r {
            if shape[j] > 1 && rng.pct(12) {
                strides[j] = 0;
            }
        }
    }
    let offset = if rng.pct(50) {
        0
    } else {
        rng.below(7) as usize
    };
    (strides, offset)
}

fn gen_view(rng: &mut Rng, shape: Vec<usize>, dtype: DType, input: bool, storage: usize) -> View {
    let (strides, offset) = gen_layout(rng, &shape, input);
    View {
        shape,
        strides,
        offset,
        dtype,
        storage,
    }
}

/// One random case of the Add family.
pub(super) fn gen_case(rng: &mut Rng) -> Case {
    let op = rng.pick(&[Op::Add, Op::Adds, Op::InplaceAdd, Op::InplaceAdds]);
    let inplace = matches!(op, Op::InplaceAdd | Op::InplaceAdds);
    let tensor_other = matches!(op, Op::Add | Op::InplaceAdd);
    let out_shape = gen_out_shape(rng);
    let (self_shape, other_shape) = gen_input_shapes(rng, &out_shape, inplace || !tensor_other);

    // dtypes: for in-place ops prefer pairs whose result casts back to selfRef.
    let mut self_dt = rng.pick(&ALL12);
    let mut other_dt = rng.pick(&ALL12);
    let promote = |s: DType, o: DType| {
        if tensor_other {
            ref_promote(s, o)
        } else {
            ref_promote_scalar(s, o)
        }
    };
    if inplace && rng.pct(80) {
        for _ in 0..40 {
            if op == Op::InplaceAdds && kind(self_dt) == K::Complex {
                self_dt = rng.pick(&ALL12);
                continue;
            }
            if promote(self_dt, other_dt).is_some_and(|p| ref_can_cast(p, self_dt)) {
                break;
            }
            other_dt = rng.pick(&ALL12);
        }
    }
    let p = promote(self_dt, other_dt).expect("ALL12 always promotes");
    let out_dt = if rng.pct(5) {
        rng.pick(&ALL12)
    } else if rng.pct(30) {
        p
    } else {
        rng.pick(&castable_outs(p))
    };
    let alpha = gen_alpha(rng, p);

    // Views; storages: 0 = self, then other, then out, unless shared.
    let mut self_ = gen_view(rng, self_shape, self_dt, !inplace, 0);
    let mut next_storage = 1;
    let mut other = None;
    let mut other_s = None;
    if tensor_other {
        other = Some(gen_view(rng, other_shape, other_dt, true, next_storage));
        next_storage += 1;
    } else {
        other_s = Some(Sc {
            dtype: other_dt,
            bytes: if rng.pct(25) {
                Sc::int(other_dt, rng.pick(&[1, 2, -3, 7, 100])).bytes
            } else {
                nice_bytes(rng, other_dt)
            },
        });
    }
    let mut out = None;
    if !inplace {
        let mut o = gen_view(rng, out_shape, out_dt, false, next_storage);
        // Aliasing: an input shares the output's storage through another (or the same) view.
        if rng.pct(25) {
            let use_other = other.is_some() && rng.pct(50);
            let victim = match other.as_mut() {
                Some(ot) if use_other => ot,
                _ => &mut self_,
            };
            o.storage = victim.storage;
            if victim.shape == o.shape && rng.pct(30) {
                // the very same view (and dtype): element i read, then written
                o.strides = victim.strides.clone();
                o.offset = victim.offset;
                if victim
                    .strides
                    .iter()
                    .zip(&victim.shape)
                    .any(|(s, d)| *s == 0 && *d > 1)
                {
                    o = gen_view(rng, o.shape.clone(), out_dt, false, victim.storage);
                } else {
                    o.dtype = victim.dtype;
                }
            }
        }
        out = Some(o);
    } else if let Some(ot) = other.as_mut() {
        if rng.pct(35) {
            ot.storage = 0;
            if ot.shape == self_.shape && rng.pct(20) {
                ot.strides = self_.strides.clone();
                ot.offset = self_.offset;
                ot.dtype = self_.dtype;
            }
        }
    }
    // Storages that ended up unused by any view still get indices; renumber densely.
    let mut case = Case {
        op,
        self_,
        other,
        other_s,
        alpha,
        out,
        slack: vec![],
    };
    let mut ids: Vec<usize> = case.views().iter().map(|v| v.storage).collect();
    ids.sort();
    ids.dedup();
    let remap = |s: usize| ids.iter().position(|x| *x == s).unwrap();
    case.self_.storage = remap(case.self_.storage);
    if let Some(o) = case.other.as_mut() {
        o.storage = remap(o.storage);
    }
    if let Some(o) = case.out.as_mut() {
        o.storage = remap(o.storage);
    }
    case.slack = (0..ids.len()).map(|_| rng.below(24) as usize).collect();
    case
}

// ---------------------------------------------------------------------------------------
// Running a case
// ---------------------------------------------------------------------------------------

/// An 8-byte aligned byte buffer.
pub(super) struct Buf {
    words: Vec<u64>,
    len: usize,
}
impl Buf {
    pub(super) fn new(len: usize) -> Buf {
        Buf {
            words: vec![0u64; len / 8 + 2],
            len,
        }
    }
    pub(super) fn addr(&self) -> usize {
        self.words.as_ptr() as usize
    }
    pub(super) fn bytes(&self) -> &[u8] {
        // SAFETY: the words hold at least `len` bytes.
        unsafe { std::slice::from_raw_parts(self.words.as_ptr() as *const u8, self.len) }
    }
    pub(super) fn bytes_mut(&mut self) -> &mut [u8] {
        // SAFETY: as above.
        unsafe { std::slice::from_raw_parts_mut(self.words.as_mut_ptr() as *mut u8, self.len) }
    }
}

/// Runs an executor synchronously with a fresh 64-byte aligned workspace of exactly the
/// size it asks for.
pub(super) fn run_exec(exec: &Executor) -> crate::Result<()> {
    let n = exec.workspace_size() as usize;
    let ws = vec![0u64; n / 8 + 16];
    let addr = (ws.as_ptr() as usize).div_ceil(64) * 64;
    let r = exec.work.run(
        &exec.bindings,
        Workspace {
            addr,
            size: n as u64,
        },
    );
    drop(ws);
    r
}

pub(super) fn desc(v: &View, storage: &Buf) -> crate::Result<TensorDesc> {
    desc_in(v, storage, 2)
}

/// `desc` with an aclFormat other than ND.
pub(super) fn desc_in(v: &View, storage: &Buf, format: i32) -> crate::Result<TensorDesc> {
    let shape: Vec<i64> = v.shape.iter().map(|&d| d as i64).collect();
    let strides: Vec<i64> = v.strides.iter().map(|&d| d as i64).collect();
    let elems = storage.len / size(v.dtype);
    TensorDesc::new(
        &shape,
        v.dtype as i32,
        Some(&strides),
        v.offset as i64,
        format,
        &[elems as i64],
        storage.addr(),
    )
}

/// What running a case did.
#[derive(Debug, Default)]
pub(super) struct Outcome {
    /// Phase 1 refused the case (as the model expected).
    pub refused: bool,
    pub workspace: u64,
    pub elements: usize,
}

/// Fills the storages with random bytes, then most input elements with nice values.
pub(super) fn fill_random(case: &Case, bufs: &mut [Buf], rng: &mut Rng) {
    for b in bufs.iter_mut() {
        for x in b.bytes_mut() {
            *x = rng.next() as u8;
        }
    }
    let mut inputs = vec![&case.self_];
    inputs.extend(case.other.as_ref());
    for v in inputs {
        let sz = size(v.dtype);
        let mut idx = vec![0usize; v.shape.len()];
        for _ in 0..v.numel() {
            if rng.pct(85) {
                let at = v.index_bcast_full(&idx) * sz;
                let nb = nice_bytes(rng, v.dtype);
                bufs[v.storage].bytes_mut()[at..at + sz].copy_from_slice(&nb[..sz]);
            }
            next_index(&mut idx, &v.shape);
        }
    }
}

/// Builds, plans, runs and checks one case; storages are allocated here and filled by
/// `fill`. Err: a report of the first discrepancy with the model.
pub(super) fn run_case_with(
    case: &Case,
    fill: impl FnOnce(&Case, &mut [Buf]),
) -> Result<Outcome, String> {
    let mut bufs: Vec<Buf> = (0..case.n_storages())
        .map(|s| Buf::new(case.storage_bytes(s)))
        .collect();
    fill(case, &mut bufs);
    let before: Vec<Vec<u8>> = bufs.iter().map(|b| b.bytes().to_vec()).collect();
    let expect_err = case.expected_error();
    let report = |what: String| format!("{what}\n  case: {case:?}");

    let built = (|| -> crate::Result<Executor> {
        let s = desc(&case.self_, &bufs[case.self_.storage])?;
        let alpha = case.alpha.to_scalar();
        match case.op {
            Op::Add => {
                let o = case.other.as_ref().unwrap();
                let out = case.out.as_ref().unwrap();
                add(
                    &s,
                    &desc(o, &bufs[o.storage])?,
                    &alpha,
                    &desc(out, &bufs[out.storage])?,
                )
            }
            Op::Adds => {
                let out = case.out.as_ref().unwrap();
                adds(
                    &s,
                    &case.other_s.unwrap().to_scalar(),
                    &alpha,
                    &desc(out, &bufs[out.storage])?,
                )
            }
            Op::InplaceAdd => {
                let o = case.other.as_ref().unwrap();
                inplace_add(&s, &desc(o, &bufs[o.storage])?, &alpha)
            }
            Op::InplaceAdds => inplace_adds(&s, &case.other_s.unwrap().to_scalar(), &alpha),
        }
    })();
    let exec = match (built, &expect_err) {
        (Err(_), Some(_)) => {
            return Ok(Outcome {
                refused: true,
                ..Default::default()
            })
        }
        (Err(e), None) => return Err(report(format!("phase 1 failed unexpectedly: {e}"))),
        (Ok(_), Some(why)) => {
            return Err(report(format!(
                "phase 1 succeeded but the model expects an error: {why}"
            )))
        }
        (Ok(x), None) => x,
    };
    let ws = exec.workspace_size();
    let out = case.out_view();
    if out.numel() == 0 && ws != 0 {
        return Err(report(format!("empty output but workspace {ws}")));
    }
    if let Err(e) = run_exec(&exec) {
        return Err(report(format!("phase 2 failed: {e}")));
    }
    drop(exec);

    // Expected storage contents: unchanged except the output view's elements.
    let p = case.promoted().unwrap();
    let osz = size(out.dtype);
    let mut written: Vec<Vec<bool>> = bufs.iter().map(|b| vec![false; b.len]).collect();
    let mut idx = vec![0usize; out.shape.len()];
    let read = |v: &View, idx: &[usize]| {
        let at = v.index_bcast(idx) * size(v.dtype);
        decode(v.dtype, &before[v.storage][at..])
    };
    for _ in 0..out.numel() {
        let a = read(&case.self_, &idx);
        let b = match (&case.other, &case.other_s) {
            (Some(o), _) => read(o, &idx),
            (None, Some(s)) => s.value(),
            _ => unreachable!(),
        };
        let want = ref_elem(p, a, b, case.alpha.value(), out.dtype);
        let at = out.index_bcast_full(&idx) * osz;
        let got_bytes = &bufs[out.storage].bytes()[at..at + osz];
        let ok = match want {
            V::B(w) => got_bytes[0] == w as u8,
            _ => same(want, decode(out.dtype, got_bytes)),
        };
        if !ok {
            return Err(report(format!(
                "wrong value at out index {idx:?} (storage {} byte {at}): self {a:?}, other {b:?}, alpha {:?}, promoted {p:?}\n  expected {want:?}\n  got      {:?} (bytes {got_bytes:02x?})",
                out.storage,
                case.alpha,
                decode(out.dtype, got_bytes)
            )));
        }
        for w in &mut written[out.storage][at..at + osz] {
            *w = true;
        }
        next_index(&mut idx, &out.shape);
    }
    for (s, b) in bufs.iter().enumerate() {
        for (k, (&now, &was)) in b.bytes().iter().zip(&before[s]).enumerate() {
            if !written[s][k] && now != was {
                return Err(report(format!(
                    "storage {s} byte {k} outside the output view changed: {was:#04x} -> {now:#04x}"
                )));
            }
        }
    }
    Ok(Outcome {
        refused: false,
        workspace: ws,
        elements: out.numel(),
    })
}

pub(super) fn run_case(case: &Case, rng: &mut Rng) -> Result<Outcome, String> {
    run_case_with(case, |c, bufs| fill_random(c, bufs, rng))
}

// ---------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------

#[test]
fn model_self_checks() {
    // The transcribed table is symmetric and matches a few cells quoted in SEMANTICS §4.
    for &a in &ALL12 {
        for &b in &ALL12 {
            assert_eq!(ref_promote(a, b), ref_promote(b, a), "{a:?} {b:?}");
        }
    }
    assert_eq!(ref_promote(DType::F16, DType::BF16), Some(DType::F32));
    assert_eq!(ref_promote(DType::S8, DType::U8), Some(DType::S16));
    assert_eq!(ref_promote(DType::F64, DType::C64), Some(DType::C64));
    assert_eq!(ref_promote(DType::Bool, DType::U8), Some(DType::U8));
    assert_eq!(ref_promote(DType::U16, DType::S32), None);
    // Rounding helpers.
    assert_eq!(round_float(1.0 + pow2(-11), DType::F16), 1.0); // tie -> even
    assert_eq!(
        round_float(1.0 + 3.0 * pow2(-11), DType::F16),
        1.0 + pow2(-9)
    );
    assert_eq!(round_float(65520.0, DType::F16), f64::INFINITY);
    assert_eq!(round_float(65519.99, DType::F16), 65504.0);
    assert_eq!(round_float(pow2(-25), DType::F16), 0.0); // tie to even (0)
    assert_eq!(round_float(pow2(-25) * 1.5, DType::F16), pow2(-24));
    assert_eq!(
        round_float(-pow2(-26), DType::F16).to_bits(),
        (-0.0f64).to_bits()
    );
    assert_eq!(round_float(1.0 + pow2(-8), DType::BF16), 1.0);
    assert_eq!(round_int(2049, DType::F16), 2048.0);
    assert_eq!(round_int(2051, DType::F16), 2052.0);
    assert_eq!(round_int(65520, DType::F16), f64::INFINITY);
    assert_eq!(round_int((1 << 24) + 1, DType::F32), (1 << 24) as f64);
    assert_eq!(round_int((1 << 24) + 3, DType::F32), ((1 << 24) + 4) as f64);
    assert_eq!(round_int(i64::MAX as i128, DType::F64), pow2(63));
    assert_eq!(decode_f16(0x3c00), 1.0);
    assert_eq!(decode_f16(0x0001), pow2(-24));
    assert_eq!(decode_f16(0x7bff), 65504.0);
    assert_eq!(f16_bits_of_small_int(3), 0x4200);
    assert_eq!(f16_bits_of_small_int(-2), 0xc000);
    assert_eq!(wrap(200, DType::S8), -56);
    assert_eq!(wrap(-1, DType::U8), 255);
    for (x, d) in [
        (1.5f64, DType::F32),
        (-0.1, DType::F32),
        (3.0e38, DType::F32),
    ] {
        assert_eq!(round_float(x, d), x as f32 as f64);
    }
}

/// The cases where the promoted dtype P is f16 or bf16 and rounding to P matters: out's
/// dtype is not P (the result must round to P before the cast to out), or an input is
/// s16/s32/s64 or a scalar other is not bool/s8/u8/P (inputs must round to P first,
/// SEMANTICS §4). A regression of the engine's `Via` conversions shows up here first.
pub(super) fn half_rounding_matters(case: &Case) -> bool {
    let Some(p) = case.promoted() else {
        return false;
    };
    if !matches!(p, DType::F16 | DType::BF16) || case.expected_error().is_some() {
        return false;
    }
    let wide_int = |d: DType| matches!(d, DType::S16 | DType::S32 | DType::S64);
    case.out_view().dtype != p
        || wide_int(case.self_.dtype)
        || case.other.as_ref().is_some_and(|o| wide_int(o.dtype))
        || case
            .other_s
            .is_some_and(|s| ![DType::Bool, DType::S8, DType::U8, p].contains(&s.dtype))
}

/// Runs `n_cases` random cases (of those `keep` accepts); panics with the first reports.
fn run_random(
    seed: u64,
    n_cases: usize,
    keep: impl Fn(&Case) -> bool,
) -> (usize, usize, usize, usize, usize) {
    let mut rng = Rng::new(seed);
    let mut failures = Vec::new();
    let mut n_failed = 0;
    let (mut refused, mut ran, mut elements, mut with_ws, mut aliased) = (0, 0, 0, 0, 0);
    let mut i = 0;
    let mut tries = 0;
    while i < n_cases {
        tries += 1;
        assert!(
            tries < n_cases * 50,
            "the generator rarely makes the wanted cases"
        );
        let case = gen_case(&mut rng);
        if !keep(&case) {
            continue;
        }
        i += 1;
        let shares = {
            let v = case.views();
            let mut s: Vec<usize> = v.iter().map(|v| v.storage).collect();
            s.sort();
            s.dedup();
            s.len() < v.len()
                || (case.op == Op::InplaceAdd && case.other.as_ref().unwrap().storage == 0)
        };
        match run_case(&case, &mut rng) {
            Ok(o) if o.refused => refused += 1,
            Ok(o) => {
                ran += 1;
                elements += o.elements;
                with_ws += (o.workspace > 0) as usize;
                aliased += shares as usize;
            }
            Err(msg) => {
                n_failed += 1;
                if failures.len() < 6 {
                    failures.push(format!("case #{i}: {msg}"));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{n_failed} of {n_cases} cases disagree with the model; the first ones:\n\n{}",
        failures.join("\n\n")
    );
    eprintln!("{n_cases} cases: {ran} ran ({elements} elements, {with_ws} with a workspace, {aliased} aliased), {refused} refused as expected");
    (ran, refused, elements, with_ws, aliased)
}

/// The differential test: 6000 random cases of the four entry points (all dtype pairs,
/// out dtypes, alphas, views, broadcasts, aliasing).
#[test]
fn add_family_matches_independent_model_on_random_views_dtypes_and_aliasing() {
    let n = 6000;
    let (ran, refused, _, with_ws, aliased) = run_random(0xADD_D1FF, n, |_| true);
    assert!(ran > n * 6 / 10 && refused > 50 && aliased > 300 && with_ws > 500);
}

/// Every promoted dtype is exercised with out == P and with out != P.
#[test]
fn random_cases_cover_every_promoted_and_out_dtype() {
    let mut rng = Rng::new(7);
    let mut seen = std::collections::HashSet::new();
    for _ in 0..3000 {
        let c = gen_case(&mut rng);
        if let (Some(p), None) = (c.promoted(), c.expected_error()) {
            seen.insert((p, c.out_view().dtype == p));
        }
    }
    for p in ALL12 {
        assert!(
            seen.contains(&(p, true)),
            "{p:?} with out == P never generated"
        );
        if castable_outs(p).len() > 1 && !matches!(p, DType::F16 | DType::BF16) {
            assert!(
                seen.contains(&(p, false)),
                "{p:?} with out != P never generated"
            );
        }
    }
}

/// With a promoted dtype of f16 or bf16, inputs round to P first and the f32 result rounds
/// to P before the cast to out (SEMANTICS §4, §5): 1000 random cases of that class.
#[test]
fn f16_bf16_promoted_dtype_rounds_inputs_and_result() {
    run_random(0xBAD_F16, 1000, half_rounding_matters);
}

/// The other operand of `run_1d`: a tensor of the same length, or a scalar.
pub(super) enum Other<'a> {
    T(DType, &'a [u8]),
    S(Sc),
}

/// Add (tensor other) or Adds (scalar other) on contiguous 1-d tensors given as raw
/// little-endian bytes; returns out's bytes.
pub(super) fn run_1d(
    self_dt: DType,
    self_bytes: &[u8],
    other: Other,
    alpha: Sc,
    out_dt: DType,
) -> crate::Result<Vec<u8>> {
    let n = self_bytes.len() / size(self_dt);
    let mk = |dt: DType, bytes: Option<&[u8]>| {
        let mut b = Buf::new(n * size(dt));
        if let Some(x) = bytes {
            b.bytes_mut().copy_from_slice(x);
        }
        let d = desc(&View::contiguous(&[n], dt, 0), &b).unwrap();
        (b, d)
    };
    let (_sb, s) = mk(self_dt, Some(self_bytes));
    let (ob, o) = mk(out_dt, None);
    let exec = match other {
        Other::T(dt, bytes) => {
            let (_b, t) = mk(dt, Some(bytes));
            let e = add(&s, &t, &alpha.to_scalar(), &o)?;
            run_exec(&e)?;
            e
        }
        Other::S(sc) => {
            let e = adds(&s, &sc.to_scalar(), &alpha.to_scalar(), &o)?;
            run_exec(&e)?;
            e
        }
    };
    drop(exec);
    Ok(ob.bytes().to_vec())
}

/// Rounding to P, tensor input: f16 [-10] + s16 [-8891] -> P = f16; s16 -8891 converts to f16
/// -8888, the f32 sum -8898 rounds to f16 -8896 (0xf058). The library adds -8891 in f32
/// and rounds -8901 to -8904 (0xf059).
#[test]
fn int_input_rounds_to_promoted_f16() {
    let got = run_1d(
        DType::F16,
        &0xc900u16.to_le_bytes(),
        Other::T(DType::S16, &(-8891i16).to_le_bytes()),
        Sc::int(DType::S32, 1),
        DType::F16,
    )
    .unwrap();
    assert_eq!(decode_f16(0xc900), -10.0);
    assert_eq!(decode_f16(0xf058), -8896.0);
    assert_eq!(
        u16::from_le_bytes([got[0], got[1]]),
        0xf058,
        "got {}",
        decode_f16(u16::from_le_bytes([got[0], got[1]]))
    );
}

/// Rounding to P before the cast to out: bf16 [1.0] + bf16 [2^-8] with out f32 -> P = bf16; the exact sum 1 + 2^-8 is a
/// tie in bf16 and rounds to even (1.0), then casts to f32 1.0. The library writes the
/// f32 sum 1.00390625 unrounded.
#[test]
fn bf16_result_rounds_before_cast_to_f32_out() {
    let got = run_1d(
        DType::BF16,
        &0x3f80u16.to_le_bytes(),
        Other::T(DType::BF16, &0x3b80u16.to_le_bytes()),
        Sc::int(DType::S32, 1),
        DType::F32,
    )
    .unwrap();
    assert_eq!(f32::from_bits(0x3b80 << 16), 1.0 / 256.0);
    assert_eq!(f32::from_le_bytes(got[..4].try_into().unwrap()), 1.0);
}

/// Rounding to P, scalar other: Adds(f16 [0], other = f32 1 + 2^-11 + 2^-20, alpha = 3) -> P =
/// f16; other rounds to f16 1 + 2^-10, 3 * that = 3 + 1.5 * 2^-9 is a tie in f16 and rounds
/// to even: 3.00390625 (0x4202). The library multiplies the unrounded f32 scalar and gets
/// 3.001953125 (0x4201).
#[test]
fn adds_scalar_rounds_to_promoted_f16() {
    let s = 1.0 + pow2(-11) + pow2(-20);
    let got = run_1d(
        DType::F16,
        &0u16.to_le_bytes(),
        Other::S(Sc::f64(DType::F32, s)),
        Sc::int(DType::S32, 3),
        DType::F16,
    )
    .unwrap();
    assert_eq!(
        ref_elem(DType::F16, V::F(0.0), V::F(s), V::I(3), DType::F16),
        V::F(decode_f16(0x4202))
    );
    assert_eq!(u16::from_le_bytes([got[0], got[1]]), 0x4202);
}

/// The same three inputs, where out == P and the inputs are exact in P: the library agrees.
#[test]
fn f16_bf16_results_agree_when_out_is_p_and_inputs_are_exact() {
    // f16 -10 + s8 -100 = -110
    let got = run_1d(
        DType::F16,
        &0xc900u16.to_le_bytes(),
        Other::T(DType::S8, &[(-100i8) as u8]),
        Sc::int(DType::S32, 1),
        DType::F16,
    )
    .unwrap();
    assert_eq!(decode_f16(u16::from_le_bytes([got[0], got[1]])), -110.0);
    // bf16 1 + bf16 2^-8 -> bf16 1.0 (tie to even)
    let got = run_1d(
        DType::BF16,
        &0x3f80u16.to_le_bytes(),
        Other::T(DType::BF16, &0x3b80u16.to_le_bytes()),
        Sc::int(DType::S32, 1),
        DType::BF16,
    )
    .unwrap();
    assert_eq!(u16::from_le_bytes([got[0], got[1]]), 0x3f80);
    // bf16 1 + bf16 3*2^-9 -> 1 + 2^-7 after rounding (above the tie)
    let third = ((127 - 8) << 7 | 0x40) as u16; // 1.5 * 2^-8
    let got = run_1d(
        DType::BF16,
        &0x3f80u16.to_le_bytes(),
        Other::T(DType::BF16, &third.to_le_bytes()),
        Sc::int(DType::S32, 1),
        DType::BF16,
    )
    .unwrap();
    assert_eq!(u16::from_le_bytes([got[0], got[1]]), 0x3f81);
}
