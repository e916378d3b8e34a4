//! Data types and the dtype rules of the contract: promotion (SEMANTICS §4), the
//! tensor-with-scalar relation (reference §5.0) and the output cast rule (SEMANTICS §5).
//! Pure rules on `DType` values: no memory, no pointers.

use std::fmt;

/// The 16 element types the library computes with, carrying their `aclDataType` values,
/// and ACL_INT4 (`S4`), a storage type only: two signed 4-bit values a byte, the element of
/// even index in the low nibble. Views of it count elements (strides, offset, storage
/// dims), and its bytes are half its elements (`bytes_for`). It is in no table (`ALL`):
/// only operators that say so accept it (`executor::Work::accepts_int4`); every other one
/// refuses it at phase 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(i32)]
pub enum DType {
    F32 = 0,
    F16 = 1,
    S8 = 2,
    S32 = 3,
    U8 = 4,
    S16 = 6,
    U16 = 7,
    U32 = 8,
    S64 = 9,
    U64 = 10,
    F64 = 11,
    Bool = 12,
    C64 = 16,
    C128 = 17,
    BF16 = 27,
    /// ACL_INT4: packed two to a byte (see above).
    S4 = 29,
    C32 = 33,
}

/// How a dtype behaves in the promotion and cast rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Bool,
    Int,
    Float,
    Complex,
}

/// Every supported dtype, in the column order of the contract's tables.
pub const ALL: [DType; 16] = [
    DType::F32,
    DType::F16,
    DType::F64,
    DType::BF16,
    DType::S8,
    DType::U8,
    DType::S16,
    DType::U16,
    DType::S32,
    DType::U32,
    DType::S64,
    DType::U64,
    DType::Bool,
    DType::C32,
    DType::C64,
    DType::C128,
];

/// `aclDataType` members that exist in CANN but that no operator here computes with.
const KNOWN_UNSUPPORTED: &[(i32, &str)] = &[
    (-1, "ACL_DT_UNDEFINED"),
    (29, "ACL_INT4 (a tensor storage dtype only)"),
    (13, "ACL_STRING"),
    (30, "ACL_UINT1"),
    (34, "ACL_HIFLOAT8"),
    (35, "ACL_FLOAT8_E5M2"),
    (36, "ACL_FLOAT8_E4M3FN"),
    (37, "ACL_FLOAT8_E8M0"),
    (38, "ACL_FLOAT6_E3M2"),
    (39, "ACL_FLOAT6_E2M3"),
    (40, "ACL_FLOAT4_E2M1"),
    (41, "ACL_FLOAT4_E1M2"),
];

impl DType {
    /// Validates an `aclDataType` integer that arrived from C.
    pub fn from_raw(v: i32) -> Result<DType, String> {
        if let Some(d) = ALL.iter().copied().find(|d| *d as i32 == v) {
            return Ok(d);
        }
        match KNOWN_UNSUPPORTED.iter().find(|(k, _)| *k == v) {
            Some((_, name)) => Err(format!(
                "dataType {name} ({v}) is not supported by aclnn-cpu"
            )),
            None => Err(format!("dataType {v} is not an aclDataType value")),
        }
    }

    /// Validates the `aclDataType` of a tensor being created: the computing dtypes
    /// (`from_raw`) and ACL_INT4, a storage dtype that only some operators accept. Dtype
    /// arguments and scalars go through `from_raw`, which refuses ACL_INT4.
    pub fn from_raw_storage(v: i32) -> Result<DType, String> {
        if v == DType::S4 as i32 {
            return Ok(DType::S4);
        }
        DType::from_raw(v)
    }

    /// The C name, as users write it.
    pub fn acl_name(self) -> &'static str {
        match self {
            DType::F32 => "ACL_FLOAT",
            DType::F16 => "ACL_FLOAT16",
            DType::S8 => "ACL_INT8",
            DType::S32 => "ACL_INT32",
            DType::U8 => "ACL_UINT8",
            DType::S16 => "ACL_INT16",
            DType::U16 => "ACL_UINT16",
            DType::U32 => "ACL_UINT32",
            DType::S64 => "ACL_INT64",
            DType::U64 => "ACL_UINT64",
            DType::F64 => "ACL_DOUBLE",
            DType::Bool => "ACL_BOOL",
            DType::C64 => "ACL_COMPLEX64",
            DType::C128 => "ACL_COMPLEX128",
            DType::BF16 => "ACL_BF16",
            DType::S4 => "ACL_INT4",
            DType::C32 => "ACL_COMPLEX32",
        }
    }

    /// Bytes per element; for ACL_INT4, the byte that holds an element (two share it):
    /// what a view of it spans is `bytes_for`, and only the int4 kernels address it.
    pub fn size(self) -> usize {
        match self {
            DType::S8 | DType::U8 | DType::Bool | DType::S4 => 1,
            DType::F16 | DType::BF16 | DType::S16 | DType::U16 => 2,
            DType::F32 | DType::S32 | DType::U32 | DType::C32 => 4,
            DType::F64 | DType::S64 | DType::U64 | DType::C64 => 8,
            DType::C128 => 16,
        }
    }

    /// True for ACL_INT4, whose elements are half a byte.
    pub fn is_packed(self) -> bool {
        self == DType::S4
    }

    /// Bytes that hold elements `0..n` of a storage of this dtype (ACL_INT4: ⌈n/2⌉, the
    /// way CANN sizes int4 storage).
    pub fn bytes_for(self, n: usize) -> usize {
        if self.is_packed() {
            n.div_ceil(2)
        } else {
            n.saturating_mul(self.size())
        }
    }

    /// Alignment a tensor's data needs (complex numbers align as their parts).
    pub fn align(self) -> usize {
        match self {
            DType::C32 => 2,
            DType::C64 => 4,
            DType::C128 => 8,
            d => d.size(),
        }
    }

    pub fn kind(self) -> Kind {
        match self {
            DType::Bool => Kind::Bool,
            DType::S8
            | DType::U8
            | DType::S16
            | DType::U16
            | DType::S32
            | DType::U32
            | DType::S64
            | DType::U64
            | DType::S4 => Kind::Int,
            DType::F16 | DType::BF16 | DType::F32 | DType::F64 => Kind::Float,
            DType::C32 | DType::C64 | DType::C128 => Kind::Complex,
        }
    }

    pub fn is_float(self) -> bool {
        self.kind() == Kind::Float
    }
    pub fn is_int(self) -> bool {
        self.kind() == Kind::Int
    }
    pub fn is_complex(self) -> bool {
        self.kind() == Kind::Complex
    }
    /// Integer or bool: the types a float alpha cannot be applied to.
    pub fn is_integral_or_bool(self) -> bool {
        matches!(self.kind(), Kind::Int | Kind::Bool)
    }

    /// The dtype kernels compute in: f16/bf16 compute in f32 and c32 in c64, rounding once
    /// to the storage dtype at the end; every other dtype computes in itself.
    pub fn compute(self) -> DType {
        match self {
            DType::F16 | DType::BF16 => DType::F32,
            DType::C32 => DType::C64,
            d => d,
        }
    }

    /// The row of the promotion table; None for ACL_INT4, which is in no table.
    fn table_index(self) -> Option<usize> {
        ALL.iter().position(|d| *d == self)
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.acl_name())
    }
}

/// The promotion table of SEMANTICS §4 (symmetric; `X` = cannot be promoted), with the
/// bool and unsigned rules written into their rows and columns. Row and column order is
/// `ALL`. This is the one place the table lives: flip a cell here.
#[rustfmt::skip]
const PROMOTE: [[Option<DType>; 16]; 16] = {
    const F32: Option<DType> = Some(DType::F32);
    const F16: Option<DType> = Some(DType::F16);
    const F64: Option<DType> = Some(DType::F64);
    const BF: Option<DType> = Some(DType::BF16);
    const S8: Option<DType> = Some(DType::S8);
    const U8: Option<DType> = Some(DType::U8);
    const S16: Option<DType> = Some(DType::S16);
    const U16: Option<DType> = Some(DType::U16);
    const S32: Option<DType> = Some(DType::S32);
    const U32: Option<DType> = Some(DType::U32);
    const S64: Option<DType> = Some(DType::S64);
    const U64: Option<DType> = Some(DType::U64);
    const B: Option<DType> = Some(DType::Bool);
    const C32: Option<DType> = Some(DType::C32);
    const C64: Option<DType> = Some(DType::C64);
    const C128: Option<DType> = Some(DType::C128);
    const X: Option<DType> = None;
    [
    //        f32   f16   f64   bf16  s8    u8    s16   u16   s32   u32   s64   u64   bool  c32   c64   c128
    /*f32 */ [F32,  F32,  F64,  F32,  F32,  F32,  F32,  X,    F32,  X,    F32,  X,    F32,  C64,  C64,  C128],
    /*f16 */ [F32,  F16,  F64,  F32,  F16,  F16,  F16,  X,    F16,  X,    F16,  X,    F16,  C32,  C64,  C128],
    /*f64 */ [F64,  F64,  F64,  F64,  F64,  F64,  F64,  X,    F64,  X,    F64,  X,    F64,  C64,  C64,  C128],
    /*bf16*/ [F32,  F32,  F64,  BF,   BF,   BF,   BF,   X,    BF,   X,    BF,   X,    BF,   C32,  C64,  C128],
    /*s8  */ [F32,  F16,  F64,  BF,   S8,   S16,  S16,  X,    S32,  X,    S64,  X,    S8,   C32,  C64,  C128],
    /*u8  */ [F32,  F16,  F64,  BF,   S16,  U8,   S16,  X,    S32,  X,    S64,  X,    U8,   C32,  C64,  C128],
    /*s16 */ [F32,  F16,  F64,  BF,   S16,  S16,  S16,  X,    S32,  X,    S64,  X,    S16,  C32,  C64,  C128],
    /*u16 */ [X,    X,    X,    X,    X,    X,    X,    U16,  X,    X,    X,    X,    X,    X,    X,    X   ],
    /*s32 */ [F32,  F16,  F64,  BF,   S32,  S32,  S32,  X,    S32,  X,    S64,  X,    S32,  C32,  C64,  C128],
    /*u32 */ [X,    X,    X,    X,    X,    X,    X,    X,    X,    U32,  X,    X,    X,    X,    X,    X   ],
    /*s64 */ [F32,  F16,  F64,  BF,   S64,  S64,  S64,  X,    S64,  X,    S64,  X,    S64,  C32,  C64,  C128],
    /*u64 */ [X,    X,    X,    X,    X,    X,    X,    X,    X,    X,    X,    U64,  X,    X,    X,    X   ],
    /*bool*/ [F32,  F16,  F64,  BF,   S8,   U8,   S16,  X,    S32,  X,    S64,  X,    B,    C32,  C64,  C128],
    /*c32 */ [C64,  C32,  C64,  C32,  C32,  C32,  C32,  X,    C32,  X,    C32,  X,    C32,  C32,  C64,  C128],
    /*c64 */ [C64,  C64,  C64,  C64,  C64,  C64,  C64,  X,    C64,  X,    C64,  X,    C64,  C64,  C64,  C128],
    /*c128*/ [C128, C128, C128, C128, C128, C128, C128, X,    C128, X,    C128, X,    C128, C128, C128, C128],
    ]
};

/// The computation dtype of two tensors (SEMANTICS §4), or None when they cannot be promoted.
pub fn promote(a: DType, b: DType) -> Option<DType> {
    PROMOTE[a.table_index()?][b.table_index()?]
}

/// The computation dtype of a tensor with a scalar (reference §5.0 "TensorScalar"): a float
/// tensor keeps its dtype; an integer or bool tensor keeps its dtype for an integer or bool
/// scalar (a bool tensor takes an integer scalar's dtype) and becomes f32 for a float scalar;
/// whenever a complex type is involved the tensor-tensor table decides.
pub fn promote_with_scalar(tensor: DType, scalar: DType) -> Option<DType> {
    use Kind::*;
    if tensor.is_packed() || scalar.is_packed() {
        return None;
    }
    let unsigned_wide = |d: DType| matches!(d, DType::U16 | DType::U32 | DType::U64);
    match (tensor.kind(), scalar.kind()) {
        (Complex, _) | (_, Complex) => promote(tensor, scalar),
        (Float, _) => Some(tensor),
        (Int, Float) | (Bool, Float) if unsigned_wide(tensor) => None,
        (Int, Float) | (Bool, Float) => Some(DType::F32),
        (Int, Int) | (Int, Bool) => Some(tensor),
        (Bool, Int) if unsigned_wide(scalar) => None,
        (Bool, Int) => Some(scalar),
        (Bool, Bool) => Some(DType::Bool),
    }
}

/// Whether a computed value of dtype `from` may be written to an output of dtype `to`
/// (SEMANTICS §5): float<->float, int<->int, int->float, bool->int/float, complex<->complex.
/// Never float->int, non-bool->bool, complex<->non-complex.
pub fn can_cast(from: DType, to: DType) -> bool {
    use Kind::*;
    if from == to {
        return true;
    }
    if from.is_packed() || to.is_packed() {
        return false;
    }
    matches!(
        (from.kind(), to.kind()),
        (Float, Float)
            | (Int, Int)
            | (Int, Float)
            | (Bool, Int)
            | (Bool, Float)
            | (Complex, Complex)
    )
}

/// Whether a scalar parameter (alpha) of dtype `from` may be applied in a computation of
/// dtype `to`: the rule CANN's operators check for attributes (PyTorch's `canCast`):
/// refused for complex->non-complex, float->integer and non-bool->bool.
pub fn can_cast_value(from: DType, to: DType) -> bool {
    use Kind::*;
    if from.is_packed() || to.is_packed() {
        return false;
    }
    !matches!(
        (from.kind(), to.kind()),
        (Complex, Bool | Int | Float) | (Float, Int) | (Int | Float, Bool)
    )
}
