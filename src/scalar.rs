//! A typed scalar value (aclScalar): the bytes copied from the caller at creation.

use crate::dtype::DType;
use crate::element::{Element, Wide};
use crate::with_dtype;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Scalar {
    pub dtype: DType,
    bytes: [u8; 16],
}

impl Scalar {
    /// Reads one element of `dtype` from `src` (exactly `dtype.size()` bytes).
    pub fn from_bytes(dtype: DType, src: &[u8]) -> Scalar {
        let mut bytes = [0u8; 16];
        bytes[..dtype.size()].copy_from_slice(&src[..dtype.size()]);
        Scalar { dtype, bytes }
    }

    pub fn from_value<T: Element>(v: T) -> Scalar {
        let mut bytes = [0u8; 16];
        // SAFETY: every Element is plain data of at most 16 bytes.
        unsafe { std::ptr::write_unaligned(bytes.as_mut_ptr() as *mut T, v) };
        Scalar {
            dtype: T::DTYPE,
            bytes,
        }
    }

    pub fn get<T: Element>(&self) -> T {
        debug_assert_eq!(T::DTYPE, self.dtype);
        // SAFETY: `bytes` holds a value of `self.dtype`, which is T's dtype.
        unsafe { std::ptr::read_unaligned(self.bytes.as_ptr() as *const T) }
    }

    /// The exact value.
    pub fn wide(&self) -> Wide {
        with_dtype!(self.dtype, T => self.get::<T>().to_wide())
    }

    /// The value converted to `dtype` by the library's conversion rule.
    pub fn cast(&self, dtype: DType) -> Scalar {
        let w = self.wide();
        with_dtype!(dtype, T => Scalar::from_value(T::from_wide(w)))
    }

    pub fn bytes(&self) -> &[u8] {
        &self.bytes[..self.dtype.size()]
    }

    /// True if the value equals one (alpha == 1 means plain addition).
    pub fn is_one(&self) -> bool {
        match self.wide() {
            Wide::Bool(b) => b,
            Wide::Int(i) => i == 1,
            Wide::Float(f) => f == 1.0,
            Wide::Complex(re, im) => re == 1.0 && im == 0.0,
        }
    }
}

impl std::fmt::Display for Scalar {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.wide() {
            Wide::Bool(b) => write!(f, "{b} ({})", self.dtype),
            Wide::Int(i) => write!(f, "{i} ({})", self.dtype),
            Wide::Float(x) => write!(f, "{x} ({})", self.dtype),
            Wide::Complex(re, im) => write!(f, "{re}{im:+}i ({})", self.dtype),
        }
    }
}
