//! Storage types for every `DType`, and the one conversion rule between any two of them.
//!
//! Conversion goes through `Wide`, a value that holds every element of every dtype exactly
//! (i128 for integers, f64 for real floats, a pair of f64 for complex), so each conversion
//! rounds once, at the destination:
//! - int -> int wraps (two's complement); int -> float rounds to nearest even;
//! - float -> float rounds to nearest even, overflowing to ±inf; NaN stays NaN;
//! - float -> int truncates toward zero, saturates at the target's range, NaN -> 0;
//! - bool -> x is 0/1; x -> bool is x != 0 (for complex: either component non-zero);
//! - real -> complex is (x, 0); complex -> real keeps the real part; complex <-> complex per component.
//!
//! Which conversions an operator may perform on its output is a separate rule (`dtype::can_cast`).

use crate::dtype::DType;
use half::{bf16, f16};
use num_complex::Complex;

/// A C `bool` as stored in memory: one byte, any non-zero value is true. Reading it as a Rust
/// `bool` would be undefined behaviour for bytes other than 0 and 1.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(transparent)]
pub struct Bool8(pub u8);

impl Bool8 {
    pub const fn new(b: bool) -> Self {
        Bool8(b as u8)
    }
    pub const fn get(self) -> bool {
        self.0 != 0
    }
}

pub type C32 = Complex<f16>;
pub type C64 = Complex<f32>;
pub type C128 = Complex<f64>;

/// An exact, dtype-independent value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Wide {
    Bool(bool),
    Int(i128),
    Float(f64),
    Complex(f64, f64),
}

/// An element type: its dtype and its exact conversions through `Wide`.
pub trait Element: Copy + Send + Sync + 'static + Default + PartialEq + std::fmt::Debug {
    const DTYPE: DType;
    fn to_wide(self) -> Wide;
    fn from_wide(w: Wide) -> Self;
    /// The value in its canonical encoding (a bool as 0 or 1; everything else as is).
    #[inline(always)]
    fn canonical(self) -> Self {
        self
    }
}

/// Converts one element of any dtype to any other, by the rules in the module comment.
#[inline(always)]
pub fn convert<S: Element, D: Element>(s: S) -> D {
    D::from_wide(s.to_wide())
}

impl Element for Bool8 {
    const DTYPE: DType = DType::Bool;
    #[inline(always)]
    fn canonical(self) -> Self {
        Bool8::new(self.get())
    }
    #[inline(always)]
    fn to_wide(self) -> Wide {
        Wide::Bool(self.get())
    }
    #[inline(always)]
    fn from_wide(w: Wide) -> Self {
        Bool8::new(match w {
            Wide::Bool(b) => b,
            Wide::Int(i) => i != 0,
            Wide::Float(f) => f != 0.0,
            Wide::Complex(re, im) => re != 0.0 || im != 0.0,
        })
    }
}

macro_rules! int_element {
    ($($t:ty => $d:ident),*) => {$(
        impl Element for $t {
            const DTYPE: DType = DType::$d;
            #[inline(always)]
            fn to_wide(self) -> Wide { Wide::Int(self as i128) }
            #[inline(always)]
            fn from_wide(w: Wide) -> Self {
                match w {
                    Wide::Bool(b) => b as $t,
                    Wide::Int(i) => i as $t,
                    // `as` from float truncates toward zero, saturates and maps NaN to 0.
                    Wide::Float(f) => f as $t,
                    Wide::Complex(re, _) => re as $t,
                }
            }
        }
    )*};
}
int_element!(i8 => S8, u8 => U8, i16 => S16, u16 => U16, i32 => S32, u32 => U32, i64 => S64, u64 => U64);

impl Element for f64 {
    const DTYPE: DType = DType::F64;
    #[inline(always)]
    fn to_wide(self) -> Wide {
        Wide::Float(self)
    }
    #[inline(always)]
    fn from_wide(w: Wide) -> Self {
        match w {
            Wide::Bool(b) => b as u8 as f64,
            Wide::Int(i) => i as f64,
            Wide::Float(f) => f,
            Wide::Complex(re, _) => re,
        }
    }
}

impl Element for f32 {
    const DTYPE: DType = DType::F32;
    #[inline(always)]
    fn to_wide(self) -> Wide {
        Wide::Float(self as f64)
    }
    #[inline(always)]
    fn from_wide(w: Wide) -> Self {
        match w {
            Wide::Bool(b) => b as u8 as f32,
            // Rust's int -> f32 `as` rounds once, to nearest even.
            Wide::Int(i) => i as f32,
            Wide::Float(f) => f as f32,
            Wide::Complex(re, _) => re as f32,
        }
    }
}

/// Rounds `x` to f32 with round-to-odd: exact values stay, inexact ones land on the
/// neighbour whose last mantissa bit is 1. Rounding that result to nearest-even in a
/// format with at least two fewer mantissa bits (f16: 11, bf16: 8) gives the correctly
/// rounded value of `x`, which a plain double rounding through f32 does not.
#[inline]
fn f64_to_f32_round_odd(x: f64) -> f32 {
    let r = x as f32;
    if !r.is_finite() || r as f64 == x || r.to_bits() & 1 == 1 {
        return r;
    }
    // Inexact with an even last bit: the other neighbour of x is the odd one.
    if (r as f64) < x {
        r.next_up()
    } else {
        r.next_down()
    }
}

/// Exact-or-odd f64 for an integer (|i| < 2^65), so a later rounding to a narrow format
/// is correct (see `f64_to_f32_round_odd`).
#[inline]
fn int_to_f64_round_odd(i: i128) -> f64 {
    let r = i as f64;
    if r as i128 == i || r.to_bits() & 1 == 1 {
        return r;
    }
    if (r as i128) < i {
        r.next_up()
    } else {
        r.next_down()
    }
}

/// A real value, correctly rounded into a format narrower than f32 through round-to-odd.
#[inline(always)]
fn narrow_real(w: Wide) -> f32 {
    match w {
        Wide::Bool(b) => b as u8 as f32,
        Wide::Int(i) => f64_to_f32_round_odd(int_to_f64_round_odd(i)),
        Wide::Float(f) => f64_to_f32_round_odd(f),
        Wide::Complex(re, _) => f64_to_f32_round_odd(re),
    }
}

macro_rules! half_element {
    ($($t:ident => $d:ident),*) => {$(
        impl Element for $t {
            const DTYPE: DType = DType::$d;
            #[inline(always)]
            fn to_wide(self) -> Wide {
                Wide::Float(self.to_f64())
            }
            #[inline(always)]
            fn from_wide(w: Wide) -> Self {
                match w {
                    // From an f32 value the conversion is already a single correct rounding.
                    Wide::Float(f) if (f as f32) as f64 == f || f.is_nan() => $t::from_f32(f as f32),
                    w => $t::from_f32(narrow_real(w)),
                }
            }
        }
    )*};
}
half_element!(f16 => F16, bf16 => BF16);

macro_rules! complex_element {
    ($($t:ty => $d:ident, $part:ty),*) => {$(
        impl Element for $t {
            const DTYPE: DType = DType::$d;
            #[inline(always)]
            fn to_wide(self) -> Wide {
                Wide::Complex(self.re.to_wide_f64(), self.im.to_wide_f64())
            }
            #[inline(always)]
            fn from_wide(w: Wide) -> Self {
                match w {
                    Wide::Complex(re, im) => Complex::new(
                        <$part>::from_wide(Wide::Float(re)),
                        <$part>::from_wide(Wide::Float(im)),
                    ),
                    real => Complex::new(<$part>::from_wide(real), <$part>::default()),
                }
            }
        }
    )*};
}

/// The real part types of complex dtypes, as f64 (exact).
trait RealPart {
    fn to_wide_f64(self) -> f64;
}
impl RealPart for f16 {
    #[inline(always)]
    fn to_wide_f64(self) -> f64 {
        self.to_f64()
    }
}
impl RealPart for f32 {
    #[inline(always)]
    fn to_wide_f64(self) -> f64 {
        self as f64
    }
}
impl RealPart for f64 {
    #[inline(always)]
    fn to_wide_f64(self) -> f64 {
        self
    }
}
complex_element!(C32 => C32, f16, C64 => C64, f32, C128 => C128, f64);

/// Runs `$body` with `$T` bound to the storage type of `$dtype`.
#[macro_export]
macro_rules! with_dtype {
    ($dtype:expr, $T:ident => $body:expr) => {{
        use $crate::dtype::DType;
        #[allow(unused_imports)]
        use $crate::element::*;
        match $dtype {
            DType::F32 => {
                type $T = f32;
                $body
            }
            DType::F16 => {
                type $T = half::f16;
                $body
            }
            DType::F64 => {
                type $T = f64;
                $body
            }
            DType::BF16 => {
                type $T = half::bf16;
                $body
            }
            // ACL_INT4 never reaches a typed kernel (operators refuse it at phase 1
            // unless they unpack it themselves): it dispatches as the byte holding it, so
            // the match stays total without a panic path.
            DType::S8 | DType::S4 => {
                type $T = i8;
                $body
            }
            DType::U8 => {
                type $T = u8;
                $body
            }
            DType::S16 => {
                type $T = i16;
                $body
            }
            DType::U16 => {
                type $T = u16;
                $body
            }
            DType::S32 => {
                type $T = i32;
                $body
            }
            DType::U32 => {
                type $T = u32;
                $body
            }
            DType::S64 => {
                type $T = i64;
                $body
            }
            DType::U64 => {
                type $T = u64;
                $body
            }
            DType::Bool => {
                type $T = Bool8;
                $body
            }
            DType::C32 => {
                type $T = C32;
                $body
            }
            DType::C64 => {
                type $T = C64;
                $body
            }
            DType::C128 => {
                type $T = C128;
                $body
            }
        }
    }};
}
