//! Kernel calling convention and the typed building blocks operators use.
//!
//! A kernel computes `n` results from contiguous inputs (or a single repeated value) into
//! a contiguous output, all in the dtypes the operator asked for (its compute dtypes).
//! The engine takes care of strides, broadcasting, conversions and threads.

use crate::element::{Bool8, Element, C128, C64};
use crate::scalar::Scalar;

/// Where a kernel reads one input from.
#[derive(Clone, Copy, Debug)]
pub enum Src {
    /// `n` contiguous elements.
    Slice(*const u8),
    /// One element, repeated (a broadcast or scalar operand).
    Scalar(*const u8),
}

/// Constant parameters of a kernel (alpha, a rounding mode, ...), fixed in phase 1 and
/// already converted to the dtype the kernel computes in.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Params {
    /// Inline: planning an operator allocates nothing for its parameters.
    pub scalars: smallvec::SmallVec<[Scalar; 2]>,
    pub ints: smallvec::SmallVec<[i64; 2]>,
}

/// The type-erased kernel entry the engine calls.
///
/// # Safety
/// `ins` must match the kernel's input dtypes and hold `n` readable elements each (or one,
/// for `Src::Scalar`); `out` must be valid for `n` writes of the output dtype and aligned.
pub type KernelFn = unsafe fn(n: usize, ins: &[Src], out: *mut u8, params: &Params);

/// Defines the kernel entry `$name` for operations bounded by `$bound`: the loops of `$body`,
/// compiled for AVX2 when the CPU has it (8 f32 / 4 f64 or i64 lanes per instruction and packed
/// widening), else for the baseline x86-64 (SSE2). Only instructions change, never results:
/// AVX2 does not license fused multiply-adds or other contractions.
macro_rules! kernel_entry {
    ($(#[$doc:meta])* $name:ident, $body:ident, $bound:ident) => {
        $(#[$doc])*
        pub unsafe fn $name<Op: $bound>(n: usize, ins: &[Src], out: *mut u8, params: &Params) {
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx2")]
                unsafe fn avx2<Op: $bound>(n: usize, ins: &[Src], out: *mut u8, params: &Params) {
                    // SAFETY: forwarded from the caller.
                    unsafe { $body::<Op>(n, ins, out, params) }
                }
                if std::arch::is_x86_feature_detected!("avx2") {
                    // SAFETY: the CPU has AVX2; the rest is forwarded from the caller.
                    return unsafe { avx2::<Op>(n, ins, out, params) };
                }
            }
            // SAFETY: forwarded from the caller.
            unsafe { $body::<Op>(n, ins, out, params) }
        }
    };
}

/// `kernel_entry!` with an AVX-512 build tried first (16 f32 / 8 f64 lanes), for the few
/// kernels whose arithmetic, not their memory traffic, is the cost (the exponential-based
/// activations): every kernel built this way is compiled three times, so the others are
/// not. Results are the same on every path (no contractions there either).
macro_rules! kernel_entry_wide {
    ($(#[$doc:meta])* $name:ident, $body:ident, $bound:ident) => {
        $(#[$doc])*
        pub unsafe fn $name<Op: $bound>(n: usize, ins: &[Src], out: *mut u8, params: &Params) {
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx512f,avx2")]
                unsafe fn avx512<Op: $bound>(n: usize, ins: &[Src], out: *mut u8, params: &Params) {
                    // SAFETY: forwarded from the caller.
                    unsafe { $body::<Op>(n, ins, out, params) }
                }
                #[target_feature(enable = "avx2")]
                unsafe fn avx2<Op: $bound>(n: usize, ins: &[Src], out: *mut u8, params: &Params) {
                    // SAFETY: forwarded from the caller.
                    unsafe { $body::<Op>(n, ins, out, params) }
                }
                if std::arch::is_x86_feature_detected!("avx512f") {
                    // SAFETY: the CPU has AVX-512F; the rest is forwarded from the caller.
                    return unsafe { avx512::<Op>(n, ins, out, params) };
                }
                if std::arch::is_x86_feature_detected!("avx2") {
                    // SAFETY: the CPU has AVX2; the rest is forwarded from the caller.
                    return unsafe { avx2::<Op>(n, ins, out, params) };
                }
            }
            // SAFETY: forwarded from the caller.
            unsafe { $body::<Op>(n, ins, out, params) }
        }
    };
}

kernel_entry!(
    /// The kernel for a `BinaryOp` (see `KernelFn` for the safety contract).
    binary, binary_body, BinaryOp
);
kernel_entry_wide!(
    /// `binary` with an AVX-512 build (see `kernel_entry_wide!`).
    binary_wide, binary_body, BinaryOp
);
kernel_entry_wide!(
    /// `unary` with an AVX-512 build (see `kernel_entry_wide!`).
    unary_wide, unary_body, UnaryOp
);
kernel_entry!(
    /// The kernel for a `UnaryOp` (see `KernelFn` for the safety contract).
    unary, unary_body, UnaryOp
);
kernel_entry!(
    /// The kernel for a `TernaryOp` (see `KernelFn` for the safety contract).
    ternary, ternary_body, TernaryOp
);

/// A binary element-wise operation on kernel types.
pub trait BinaryOp: 'static {
    type A: Element;
    type B: Element;
    type O: Element;
    fn new(params: &Params) -> Self;
    fn apply(&self, a: Self::A, b: Self::B) -> Self::O;
}

/// The kernel for a `BinaryOp`: separate loops for slice/scalar operands so each is a
/// straight loop the compiler vectorises.
///
/// # Safety
/// See `KernelFn`.
#[inline(always)]
unsafe fn binary_body<Op: BinaryOp>(n: usize, ins: &[Src], out: *mut u8, params: &Params) {
    let op = Op::new(params);
    // SAFETY: the engine passes buffers matching the kernel's dtypes and length.
    unsafe {
        let out = std::slice::from_raw_parts_mut(out as *mut Op::O, n);
        match (ins[0], ins[1]) {
            (Src::Slice(a), Src::Slice(b)) => {
                let a = std::slice::from_raw_parts(a as *const Op::A, n);
                let b = std::slice::from_raw_parts(b as *const Op::B, n);
                for ((o, a), b) in out.iter_mut().zip(a).zip(b) {
                    *o = op.apply(*a, *b);
                }
            }
            (Src::Slice(a), Src::Scalar(b)) => {
                let a = std::slice::from_raw_parts(a as *const Op::A, n);
                let b = (b as *const Op::B).read_unaligned();
                for (o, a) in out.iter_mut().zip(a) {
                    *o = op.apply(*a, b);
                }
            }
            (Src::Scalar(a), Src::Slice(b)) => {
                let a = (a as *const Op::A).read_unaligned();
                let b = std::slice::from_raw_parts(b as *const Op::B, n);
                for (o, b) in out.iter_mut().zip(b) {
                    *o = op.apply(a, *b);
                }
            }
            (Src::Scalar(a), Src::Scalar(b)) => {
                out.fill(op.apply(
                    (a as *const Op::A).read_unaligned(),
                    (b as *const Op::B).read_unaligned(),
                ));
            }
        }
    }
}

/// Arithmetic on kernel types: integers wrap (two's complement), floats follow IEEE,
/// complex numbers use the usual formulas, bool adds as "or" and multiplies as "and".
pub trait Arith: Element {
    fn add(self, o: Self) -> Self;
    fn sub(self, o: Self) -> Self;
    fn mul(self, o: Self) -> Self;
}

macro_rules! arith_int {
    ($($t:ty),*) => {$(
        impl Arith for $t {
            #[inline(always)] fn add(self, o: Self) -> Self { self.wrapping_add(o) }
            #[inline(always)] fn sub(self, o: Self) -> Self { self.wrapping_sub(o) }
            #[inline(always)] fn mul(self, o: Self) -> Self { self.wrapping_mul(o) }
        }
    )*};
}
arith_int!(i8, u8, i16, u16, i32, u32, i64, u64);

macro_rules! arith_float {
    ($($t:ty),*) => {$(
        impl Arith for $t {
            #[inline(always)] fn add(self, o: Self) -> Self { self + o }
            #[inline(always)] fn sub(self, o: Self) -> Self { self - o }
            #[inline(always)] fn mul(self, o: Self) -> Self { self * o }
        }
    )*};
}
arith_float!(f32, f64, C64, C128);

impl Arith for Bool8 {
    #[inline(always)]
    fn add(self, o: Self) -> Self {
        Bool8::new(self.get() || o.get())
    }
    #[inline(always)]
    fn sub(self, o: Self) -> Self {
        Bool8::new(self.get() != o.get())
    }
    #[inline(always)]
    fn mul(self, o: Self) -> Self {
        Bool8::new(self.get() && o.get())
    }
}

/// Runs `$body` with `$T` bound to the kernel type of compute dtype `$dtype`
/// (f16/bf16/c32 never reach kernels: they compute in f32/c64).
#[macro_export]
macro_rules! with_compute_dtype {
    ($dtype:expr, $T:ident => $body:expr) => {{
        use $crate::dtype::DType;
        #[allow(unused_imports)]
        use $crate::element::*;
        match $dtype {
            DType::F32 | DType::F16 | DType::BF16 => {
                type $T = f32;
                $body
            }
            DType::F64 => {
                type $T = f64;
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
            DType::C32 | DType::C64 => {
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

/// A unary element-wise operation on kernel types.
pub trait UnaryOp: 'static {
    type A: Element;
    type O: Element;
    fn new(params: &Params) -> Self;
    fn apply(&self, a: Self::A) -> Self::O;
}

/// The kernel for a `UnaryOp`.
///
/// # Safety
/// See `KernelFn`.
#[inline(always)]
unsafe fn unary_body<Op: UnaryOp>(n: usize, ins: &[Src], out: *mut u8, params: &Params) {
    let op = Op::new(params);
    // SAFETY: the engine passes buffers matching the kernel's dtypes and length.
    unsafe {
        let out = std::slice::from_raw_parts_mut(out as *mut Op::O, n);
        match ins[0] {
            Src::Slice(a) => {
                let a = std::slice::from_raw_parts(a as *const Op::A, n);
                for (o, a) in out.iter_mut().zip(a) {
                    *o = op.apply(*a);
                }
            }
            Src::Scalar(a) => out.fill(op.apply((a as *const Op::A).read_unaligned())),
        }
    }
}

/// A three-input element-wise operation (select).
pub trait TernaryOp: 'static {
    type A: Element;
    type B: Element;
    type C: Element;
    type O: Element;
    fn new(params: &Params) -> Self;
    fn apply(&self, a: Self::A, b: Self::B, c: Self::C) -> Self::O;
}

/// Reads element `i` of a kernel input.
///
/// # Safety
/// `i` must be in range for a slice input.
#[inline(always)]
unsafe fn at<T: Element>(s: Src, i: usize) -> T {
    // SAFETY: forwarded from the caller.
    unsafe {
        match s {
            Src::Slice(p) => (p as *const T).add(i).read(),
            Src::Scalar(p) => (p as *const T).read_unaligned(),
        }
    }
}

/// The kernel for a `TernaryOp`: a straight loop when every input is a slice.
///
/// # Safety
/// See `KernelFn`.
#[inline(always)]
unsafe fn ternary_body<Op: TernaryOp>(n: usize, ins: &[Src], out: *mut u8, params: &Params) {
    let op = Op::new(params);
    // SAFETY: the engine passes buffers matching the kernel's dtypes and length.
    unsafe {
        let out = std::slice::from_raw_parts_mut(out as *mut Op::O, n);
        if let (Src::Slice(a), Src::Slice(b), Src::Slice(c)) = (ins[0], ins[1], ins[2]) {
            let a = std::slice::from_raw_parts(a as *const Op::A, n);
            let b = std::slice::from_raw_parts(b as *const Op::B, n);
            let c = std::slice::from_raw_parts(c as *const Op::C, n);
            for (((o, a), b), c) in out.iter_mut().zip(a).zip(b).zip(c) {
                *o = op.apply(*a, *b, *c);
            }
        } else {
            for (i, o) in out.iter_mut().enumerate() {
                *o = op.apply(at(ins[0], i), at(ins[1], i), at(ins[2], i));
            }
        }
    }
}

/// Equality on kernel types (IEEE for floats: NaN equals nothing; bools by truth value).
pub trait Equal: Element {
    fn equal(self, o: Self) -> bool;
}

/// Ordering on real kernel types (IEEE: every comparison with NaN is false).
pub trait Ordered: Equal {
    fn less(self, o: Self) -> bool;
    fn less_eq(self, o: Self) -> bool;
}

macro_rules! ordered {
    ($($t:ty),*) => {$(
        impl Equal for $t {
            #[inline(always)] fn equal(self, o: Self) -> bool { self == o }
        }
        impl Ordered for $t {
            #[inline(always)] fn less(self, o: Self) -> bool { self < o }
            #[inline(always)] fn less_eq(self, o: Self) -> bool { self <= o }
        }
    )*};
}
ordered!(i8, u8, i16, u16, i32, u32, i64, u64, f32, f64);

impl Equal for Bool8 {
    #[inline(always)]
    fn equal(self, o: Self) -> bool {
        self.get() == o.get()
    }
}
impl Ordered for Bool8 {
    #[inline(always)]
    fn less(self, o: Self) -> bool {
        !self.get() & o.get()
    }
    #[inline(always)]
    fn less_eq(self, o: Self) -> bool {
        !self.get() | o.get()
    }
}
impl Equal for C64 {
    #[inline(always)]
    fn equal(self, o: Self) -> bool {
        self == o
    }
}
impl Equal for C128 {
    #[inline(always)]
    fn equal(self, o: Self) -> bool {
        self == o
    }
}
