//! The dtype rules: promotion (SEMANTICS §4), the tensor-with-scalar relation
//! (reference aclnn-api.md §5.0, table 2), the output cast rule (SEMANTICS §5),
//! `aclDataType` validation (reference §2.2) and element sizes.
//!
//! Every expectation here is an independent transcription of the documents, written as a
//! text grid and parsed, never a copy of the tables in `src/dtype.rs`.

use crate::dtype::{can_cast, promote, promote_with_scalar, DType, ALL};

/// Short names of the contract's tables.
fn dt(name: &str) -> DType {
    match name {
        "f32" => DType::F32,
        "f16" => DType::F16,
        "f64" => DType::F64,
        "bf16" => DType::BF16,
        "s8" => DType::S8,
        "u8" => DType::U8,
        "s16" => DType::S16,
        "u16" => DType::U16,
        "s32" => DType::S32,
        "u32" => DType::U32,
        "s64" => DType::S64,
        "u64" => DType::U64,
        "bool" => DType::Bool,
        "c32" => DType::C32,
        "c64" => DType::C64,
        "c128" => DType::C128,
        other => panic!("unknown dtype name {other:?} in a test grid"),
    }
}

/// Parses a grid whose first line is the column header and whose other lines are
/// `row | cell cell ...`. Returns (columns, [(row, cells)]).
fn parse_grid(grid: &str) -> (Vec<String>, Vec<(String, Vec<String>)>) {
    let mut lines = grid.lines().map(str::trim).filter(|l| !l.is_empty());
    let header: Vec<String> = lines
        .next()
        .expect("grid header")
        .split_whitespace()
        .map(String::from)
        .collect();
    let rows = lines
        .map(|l| {
            let (row, cells) = l.split_once('|').expect("row | cells");
            let cells: Vec<String> = cells.split_whitespace().map(String::from).collect();
            assert_eq!(
                cells.len(),
                header.len(),
                "grid row {row:?} has the wrong number of cells"
            );
            (row.trim().to_string(), cells)
        })
        .collect();
    (header, rows)
}

// SEMANTICS §4, transcribed cell by cell (row x column). `f32*` is the footnoted cell
// (the source says f64 there; the contract settles on f32).
const SEMANTICS_4_TABLE: &str = "
           f32   f16   f64   bf16  s8    u8    s16   s32   s64   c32   c64   c128
    f32  | f32   f32   f64   f32   f32   f32   f32   f32   f32   c64   c64   c128
    f16  | f32   f16   f64   f32   f16   f16   f16   f16   f16   c32   c64   c128
    f64  | f64   f64   f64   f64   f64   f64   f64   f64   f64   c64   c64   c128
    bf16 | f32   f32*  f64   bf16  bf16  bf16  bf16  bf16  bf16  c32   c64   c128
    s8   | f32   f16   f64   bf16  s8    s16   s16   s32   s64   c32   c64   c128
    u8   | f32   f16   f64   bf16  s16   u8    s16   s32   s64   c32   c64   c128
    s16  | f32   f16   f64   bf16  s16   s16   s16   s32   s64   c32   c64   c128
    s32  | f32   f16   f64   bf16  s32   s32   s32   s32   s64   c32   c64   c128
    s64  | f32   f16   f64   bf16  s64   s64   s64   s64   s64   c32   c64   c128
    c32  | c64   c32   c64   c32   c32   c32   c32   c32   c32   c32   c64   c128
    c64  | c64   c64   c64   c64   c64   c64   c64   c64   c64   c64   c64   c128
    c128 | c128  c128  c128  c128  c128  c128  c128  c128  c128  c128  c128  c128
";

/// The 12x12 grid of SEMANTICS §4 as a lookup.
fn semantics_4_grid() -> Vec<(DType, DType, DType)> {
    let (cols, rows) = parse_grid(SEMANTICS_4_TABLE);
    assert_eq!(cols.len(), 12);
    assert_eq!(rows.len(), 12);
    let mut out = Vec::new();
    for (r, cells) in &rows {
        for (c, cell) in cols.iter().zip(cells) {
            out.push((dt(r), dt(c), dt(cell.trim_end_matches('*'))));
        }
    }
    out
}

/// SEMANTICS §4: the table plus its prose rules, independently of the code.
fn expected_promote(a: DType, b: DType) -> Option<DType> {
    let wide_unsigned = |d: DType| matches!(d, DType::U16 | DType::U32 | DType::U64);
    // "u16 with u16 gives u16, ... u16, u32 or u64 with any other dtype (bool included)
    // cannot be promoted".
    if wide_unsigned(a) || wide_unsigned(b) {
        return if a == b { Some(a) } else { None };
    }
    // "bool with any dtype X other than u16/u32/u64 gives X; bool with bool gives bool".
    if a == DType::Bool {
        return Some(b);
    }
    if b == DType::Bool {
        return Some(a);
    }
    let grid = semantics_4_grid();
    let hit = grid
        .iter()
        .find(|(r, c, _)| *r == a && *c == b)
        .expect("pair in the 12x12 grid");
    Some(hit.2)
}

#[test]
fn semantics_4_transcription_is_symmetric() {
    // A check of the test's own transcription: the table is symmetric as printed.
    let grid = semantics_4_grid();
    for &(a, b, r) in &grid {
        let (_, _, t) = *grid.iter().find(|(x, y, _)| *x == b && *y == a).unwrap();
        assert_eq!(r, t, "transcribed table not symmetric at {a:?} x {b:?}");
    }
}

#[test]
fn promotion_table_every_cell_matches_semantics_4() {
    let mut bad = Vec::new();
    for &a in &ALL {
        for &b in &ALL {
            let got = promote(a, b);
            let want = expected_promote(a, b);
            if got != want {
                bad.push(format!(
                    "promote({a:?}, {b:?}) = {got:?}, SEMANTICS §4 says {want:?}"
                ));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "{} cells differ:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

#[test]
fn promotion_is_symmetric_semantics_4() {
    for &a in &ALL {
        for &b in &ALL {
            assert_eq!(
                promote(a, b),
                promote(b, a),
                "promote not symmetric for {a:?}, {b:?}"
            );
        }
    }
}

#[test]
fn promotion_of_a_dtype_with_itself_is_itself_semantics_4() {
    for &a in &ALL {
        assert_eq!(promote(a, a), Some(a));
    }
}

#[test]
fn promotion_bf16_with_f16_is_f32_semantics_4_footnote() {
    assert_eq!(promote(DType::BF16, DType::F16), Some(DType::F32));
    assert_eq!(promote(DType::F16, DType::BF16), Some(DType::F32));
}

#[test]
fn promotion_bool_with_x_gives_x_except_wide_unsigned_semantics_4() {
    for &x in &ALL {
        let want = match x {
            DType::U16 | DType::U32 | DType::U64 => None,
            _ => Some(x),
        };
        assert_eq!(promote(DType::Bool, x), want, "bool x {x:?}");
        assert_eq!(promote(x, DType::Bool), want, "{x:?} x bool");
    }
}

#[test]
fn promotion_wide_unsigned_only_with_themselves_semantics_4() {
    for u in [DType::U16, DType::U32, DType::U64] {
        for &x in &ALL {
            let want = if x == u { Some(u) } else { None };
            assert_eq!(promote(u, x), want, "{u:?} x {x:?}");
        }
    }
}

#[test]
fn promotion_follows_source_table_not_current_cann_in_known_difference_cells_semantics_4() {
    // "Known differences": the library keeps the source table's answers.
    assert_eq!(promote(DType::F64, DType::C32), Some(DType::C64));
    assert_eq!(promote(DType::F64, DType::C64), Some(DType::C64));
    assert_eq!(promote(DType::BF16, DType::C32), Some(DType::C32));
    for u in [DType::U16, DType::U32, DType::U64] {
        for c in [DType::C32, DType::C64, DType::C128] {
            assert_eq!(promote(u, c), None, "{u:?} x {c:?}");
        }
    }
}

// Reference aclnn-api.md §5.0, "Type promotion, TensorScalar (table 2)": row = scalar
// dtype, column = tensor dtype, x = not allowed. The grouped rows of the document
// ("s8, u8, s16, s32, s64" and "u16, u32, u64") are written out one per dtype, and the
// "(same as scalar)" bool-tensor cells are spelled out. Cells with a complex tensor are
// "-": SEMANTICS §4 says "complex follows the table above", checked separately.
const REFERENCE_5_0_TENSOR_SCALAR: &str = "
            f32  f16  f64  bf16 s8   u8   s16  u16  s32  u32  s64  u64  bool c32  c64  c128
    f32   | f32  f16  f64  bf16 f32  f32  f32  x    f32  x    f32  x    f32  -    -    -
    f16   | f32  f16  f64  bf16 f32  f32  f32  x    f32  x    f32  x    f32  -    -    -
    f64   | f32  f16  f64  bf16 f32  f32  f32  x    f32  x    f32  x    f32  -    -    -
    bf16  | f32  f16  f64  bf16 f32  f32  f32  x    f32  x    f32  x    f32  -    -    -
    s8    | f32  f16  f64  bf16 s8   u8   s16  u16  s32  u32  s64  u64  s8   -    -    -
    u8    | f32  f16  f64  bf16 s8   u8   s16  u16  s32  u32  s64  u64  u8   -    -    -
    s16   | f32  f16  f64  bf16 s8   u8   s16  u16  s32  u32  s64  u64  s16  -    -    -
    s32   | f32  f16  f64  bf16 s8   u8   s16  u16  s32  u32  s64  u64  s32  -    -    -
    s64   | f32  f16  f64  bf16 s8   u8   s16  u16  s32  u32  s64  u64  s64  -    -    -
    u16   | f32  f16  f64  bf16 s8   u8   s16  u16  s32  u32  s64  u64  x    -    -    -
    u32   | f32  f16  f64  bf16 s8   u8   s16  u16  s32  u32  s64  u64  x    -    -    -
    u64   | f32  f16  f64  bf16 s8   u8   s16  u16  s32  u32  s64  u64  x    -    -    -
    bool  | f32  f16  f64  bf16 s8   u8   s16  u16  s32  u32  s64  u64  bool -    -    -
";

#[test]
fn tensor_scalar_every_real_cell_matches_reference_5_0_table_2() {
    let (cols, rows) = parse_grid(REFERENCE_5_0_TENSOR_SCALAR);
    assert_eq!(cols.len(), 16);
    assert_eq!(rows.len(), 13);
    let mut bad = Vec::new();
    let mut checked = 0;
    for (scalar, cells) in &rows {
        for (tensor, cell) in cols.iter().zip(cells) {
            if cell == "-" {
                continue;
            }
            let (tensor, scalar) = (dt(tensor), dt(scalar));
            let want = if cell == "x" { None } else { Some(dt(cell)) };
            let got = promote_with_scalar(tensor, scalar);
            checked += 1;
            if got != want {
                bad.push(format!("promote_with_scalar(tensor {tensor:?}, scalar {scalar:?}) = {got:?}, want {want:?}"));
            }
        }
    }
    assert_eq!(checked, 13 * 13);
    assert!(
        bad.is_empty(),
        "{} cells differ:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

#[test]
fn tensor_scalar_with_complex_follows_semantics_4_table() {
    // SEMANTICS §4: "complex follows the table above", whichever side is complex.
    let mut bad = Vec::new();
    for &t in &ALL {
        for &s in &ALL {
            if !(t.is_complex() || s.is_complex()) {
                continue;
            }
            let got = promote_with_scalar(t, s);
            let want = expected_promote(t, s);
            if got != want {
                bad.push(format!(
                    "promote_with_scalar(tensor {t:?}, scalar {s:?}) = {got:?}, want {want:?}"
                ));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "{} cells differ:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

#[test]
fn tensor_scalar_float_tensor_keeps_its_dtype_semantics_4() {
    for t in [DType::F16, DType::BF16, DType::F32, DType::F64] {
        for &s in ALL.iter().filter(|d| !d.is_complex()) {
            assert_eq!(
                promote_with_scalar(t, s),
                Some(t),
                "tensor {t:?} scalar {s:?}"
            );
        }
    }
}

#[test]
fn tensor_scalar_int_tensor_becomes_f32_for_float_scalar_semantics_4() {
    for t in [
        DType::S8,
        DType::U8,
        DType::S16,
        DType::S32,
        DType::S64,
        DType::Bool,
    ] {
        for s in [DType::F16, DType::BF16, DType::F32, DType::F64] {
            assert_eq!(
                promote_with_scalar(t, s),
                Some(DType::F32),
                "tensor {t:?} scalar {s:?}"
            );
        }
    }
}

// SEMANTICS §5 as a grid of kinds: from (row) -> to (column), Y = allowed. Same dtype
// to same dtype is always allowed (bool -> bool included).
const SEMANTICS_5_CASTS: &str = "
              bool  int  float  complex
    bool    | Y     Y    Y      N
    int     | N     Y    Y      N
    float   | N     N    Y      N
    complex | N     N    N      Y
";

fn kind_name(d: DType) -> &'static str {
    match d {
        DType::S4 => unreachable!("ACL_INT4 is a storage dtype: no table of these tests covers it"),
        DType::Bool => "bool",
        DType::S8
        | DType::U8
        | DType::S16
        | DType::U16
        | DType::S32
        | DType::U32
        | DType::S64
        | DType::U64 => "int",
        DType::F16 | DType::BF16 | DType::F32 | DType::F64 => "float",
        DType::C32 | DType::C64 | DType::C128 => "complex",
    }
}

#[test]
fn can_cast_all_256_pairs_match_semantics_5() {
    let (cols, rows) = parse_grid(SEMANTICS_5_CASTS);
    let mut bad = Vec::new();
    for &from in &ALL {
        for &to in &ALL {
            let (_, cells) = rows.iter().find(|(r, _)| r == kind_name(from)).unwrap();
            let col = cols.iter().position(|c| c == kind_name(to)).unwrap();
            let want = from == to || cells[col] == "Y";
            let got = can_cast(from, to);
            if got != want {
                bad.push(format!(
                    "can_cast({from:?}, {to:?}) = {got}, SEMANTICS §5 says {want}"
                ));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "{} pairs differ:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

#[test]
fn can_cast_refuses_real_to_complex_semantics_5() {
    for &from in ALL.iter().filter(|d| !d.is_complex()) {
        for to in [DType::C32, DType::C64, DType::C128] {
            assert!(!can_cast(from, to), "{from:?} -> {to:?} must be refused");
        }
    }
    assert!(can_cast(DType::Bool, DType::Bool));
    assert!(!can_cast(DType::F32, DType::S32));
    assert!(!can_cast(DType::S32, DType::Bool));
    assert!(!can_cast(DType::C64, DType::F32));
    assert!(can_cast(DType::S32, DType::F16));
    assert!(can_cast(DType::F64, DType::BF16));
    assert!(can_cast(DType::U64, DType::S8));
    assert!(can_cast(DType::C128, DType::C32));
}

// Reference §2.2: every aclDataType member this library computes with, and its size.
const REFERENCE_2_2_SUPPORTED: &str = "
             value  size
    f32    | 0      4
    f16    | 1      2
    s8     | 2      1
    s32    | 3      4
    u8     | 4      1
    s16    | 6      2
    u16    | 7      2
    u32    | 8      4
    s64    | 9      8
    u64    | 10     8
    f64    | 11     8
    bool   | 12     1
    c64    | 16     8
    c128   | 17     16
    bf16   | 27     2
    c32    | 33     4
";

#[test]
fn from_raw_accepts_every_supported_acl_data_type_reference_2_2() {
    let (_, rows) = parse_grid(REFERENCE_2_2_SUPPORTED);
    assert_eq!(rows.len(), 16);
    for (name, cells) in &rows {
        let v: i32 = cells[0].parse().unwrap();
        assert_eq!(DType::from_raw(v), Ok(dt(name)), "from_raw({v})");
        assert_eq!(dt(name) as i32, v);
    }
    // ALL is exactly these 16, each once.
    for &d in &ALL {
        assert_eq!(ALL.iter().filter(|x| **x == d).count(), 1);
        assert!(rows.iter().any(|(n, _)| dt(n) == d));
    }
}

#[test]
fn from_raw_rejects_known_unsupported_and_garbage_values() {
    let known = [13, 29, 30, -1, 34, 35, 36, 37, 38, 39, 40, 41];
    for v in known {
        let e = DType::from_raw(v).expect_err(&format!("from_raw({v}) must fail"));
        assert!(
            e.contains(&v.to_string()),
            "message for {v} should name the value: {e}"
        );
    }
    for v in [5, 14, 15, 18, 28, 31, 32, 42, 99, -2, i32::MIN, i32::MAX] {
        assert!(DType::from_raw(v).is_err(), "from_raw({v}) must fail");
    }
    // The known-unsupported ones are named, e.g. ACL_STRING.
    assert!(DType::from_raw(13).unwrap_err().contains("ACL_STRING"));
}

#[test]
fn size_of_every_dtype_matches_reference_2_2() {
    let (_, rows) = parse_grid(REFERENCE_2_2_SUPPORTED);
    for (name, cells) in &rows {
        let size: usize = cells[1].parse().unwrap();
        assert_eq!(dt(name).size(), size, "{name}.size()");
    }
}

#[test]
fn display_is_the_c_name() {
    assert_eq!(DType::F32.to_string(), "ACL_FLOAT");
    assert_eq!(DType::BF16.to_string(), "ACL_BF16");
    assert_eq!(DType::C32.to_string(), "ACL_COMPLEX32");
    assert_eq!(DType::Bool.to_string(), "ACL_BOOL");
}
