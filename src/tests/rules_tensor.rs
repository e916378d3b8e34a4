//! Views over storage (SEMANTICS §2, `tensor.rs`), formats and their rank rule
//! (SEMANTICS §6, reference §2.3, `format.rs`), and typed scalars (`scalar.rs`).

use crate::dtype::DType;
use crate::element::{Bool8, Wide, C128, C64};
use crate::format::Format;
use crate::scalar::Scalar;
use crate::tensor::{contiguous_strides, TensorDesc};
use half::{bf16, f16};
use num_complex::Complex;

const F32: i32 = 0;
const F64: i32 = 11;
const ND: i32 = 2;

fn view(
    shape: &[i64],
    strides: Option<&[i64]>,
    offset: i64,
    storage: &[i64],
) -> crate::Result<TensorDesc> {
    TensorDesc::new(shape, F32, strides, offset, ND, storage, 0x1000)
}

// ---------------------------------------------------------------------------------------
// TensorDesc: SEMANTICS §2
// ---------------------------------------------------------------------------------------

#[test]
fn seed_example_shape_6x5_strides_10_1_offset_22_in_10x10_semantics_2() {
    let t =
        view(&[6, 5], Some(&[10, 1]), 22, &[10, 10]).expect("SEMANTICS §2 seed example must work");
    assert_eq!(t.shape[..], [6, 5]);
    assert_eq!(t.strides[..], [10, 1]);
    assert_eq!(t.offset, 22);
    assert_eq!(t.storage_shape[..], [10, 10]);
    assert_eq!(t.dtype, DType::F32);
    assert_eq!(t.format, Format::ND);
    assert_eq!(t.numel(), 30);
    assert_eq!(t.storage_numel(), 100);
    assert_eq!(t.max_index().unwrap(), Some(22 + 5 * 10 + 4));
    assert!(!t.has_internal_overlap());
}

#[test]
fn seed_example_shape_4x3_strides_20_2_offset_22_in_10x10_semantics_2() {
    let t =
        view(&[4, 3], Some(&[20, 2]), 22, &[10, 10]).expect("SEMANTICS §2 seed example must work");
    assert_eq!(t.numel(), 12);
    assert_eq!(t.max_index().unwrap(), Some(22 + 3 * 20 + 2 * 2));
    assert!(!t.has_internal_overlap());
}

/// The view with the storage bound checked, as phase 1 checks memory no allocation describes.
fn inside(
    shape: &[i64],
    strides: Option<&[i64]>,
    offset: i64,
    storage: &[i64],
) -> crate::error::Result<TensorDesc> {
    let t = view(shape, strides, offset, storage)?;
    t.check_inside_storage()?;
    Ok(t)
}

#[test]
fn view_must_lie_inside_storage_boundary_semantics_2() {
    // max index 76: storage of 77 elements holds it, 76 does not.
    assert!(inside(&[6, 5], Some(&[10, 1]), 22, &[77]).is_ok());
    assert!(inside(&[6, 5], Some(&[10, 1]), 22, &[76]).is_err());
    // (4,3)/(20,2) reaches offset + 64: offset 35 -> 99 fits 10x10, offset 36 -> 100 does not.
    assert!(inside(&[4, 3], Some(&[20, 2]), 35, &[10, 10]).is_ok());
    assert!(inside(&[4, 3], Some(&[20, 2]), 36, &[10, 10]).is_err());
    // a contiguous full view, and the same shifted by one
    assert!(inside(&[10, 10], None, 0, &[10, 10]).is_ok());
    assert!(inside(&[10, 10], None, 1, &[10, 10]).is_err());
    // one more row than storage
    assert!(inside(&[11, 10], None, 0, &[10, 10]).is_err());
    // the error is an invalid parameter that names the view
    let e = inside(&[6, 5], Some(&[10, 1]), 22, &[76]).unwrap_err();
    assert_eq!(e.status(), crate::error::status::ACLNN_ERR_PARAM_INVALID);
    assert!(e.to_string().contains("76"), "{e}");
}

/// CANN's aclCreateTensor checks only for NULL arrays; a view reaching past storageDims is
/// created (ggml sizes the storage of a view with an offset without the offset). What bounds
/// it is the device memory it lies in, checked at phase 1 and 2 (`check_tensor`).
#[test]
fn view_past_storage_dims_is_created_as_cann_creates_it_semantics_2() {
    let t = view(&[6, 5], Some(&[10, 1]), 22, &[30]).expect("CANN creates it");
    assert_eq!(t.max_index().unwrap(), Some(76));
    assert!(t.check_inside_storage().is_err());
    assert!(view(&[], None, 4, &[4]).is_ok());
    assert!(view(&[10, 10], None, 1, &[10, 10]).is_ok());
}

/// CANN's aclCreateTensor does not check storageDims' signs; ggml passes a negative storage
/// length for an empty view ((0 - 1) * stride + 1). The dim is kept as 0: no memory.
#[test]
fn negative_storage_dims_are_created_as_cann_creates_them_semantics_2() {
    let t = view(&[0, 128], Some(&[128, 1]), 0, &[-127]).expect("CANN creates it");
    assert_eq!(t.storage_shape[..], [0]);
    assert_eq!(t.max_index().unwrap(), None);
    let t = view(&[2, 3], None, 0, &[-6]).expect("CANN creates it");
    assert!(
        t.check_inside_storage().is_err(),
        "no known memory holds it"
    );
}

/// The stride of a dim of size 1 (or 0) is never used: CANN ignores it, ggml leaves it
/// unset (possibly negative), and it is kept as 0.
#[test]
fn stride_of_a_size_one_dim_is_ignored_semantics_2() {
    let t =
        view(&[1, 2, 3], Some(&[-77, 3, 1]), 0, &[6]).expect("size-1 dim with a garbage stride");
    assert_eq!(t.strides[..], [0, 3, 1]);
    assert!(view(&[0, 3], Some(&[-1, 1]), 0, &[3]).is_ok());
    assert!(view(&[2, 3], Some(&[-3, 1]), 5, &[10]).is_err());
}

#[test]
fn negative_dims_strides_or_offset_are_invalid_semantics_2() {
    assert!(view(&[-1, 3], None, 0, &[10]).is_err());
    assert!(view(&[2, 3], Some(&[-3, 1]), 5, &[10]).is_err());
    assert!(view(&[2, 3], Some(&[3, -1]), 2, &[10]).is_err());
    assert!(view(&[2, 3], None, -1, &[10]).is_err());
    for e in [
        view(&[-1, 3], None, 0, &[10]).unwrap_err(),
        view(&[2, 3], Some(&[-3, 1]), 5, &[10]).unwrap_err(),
        view(&[2, 3], None, -1, &[10]).unwrap_err(),
    ] {
        assert_eq!(e.status(), crate::error::status::ACLNN_ERR_PARAM_INVALID);
    }
}

#[test]
fn overflowing_dims_strides_offsets_are_errors_not_panics_semantics_2() {
    let m = i64::MAX;
    assert!(view(&[m], None, 0, &[1]).is_err());
    assert!(view(&[m, m], None, 0, &[1]).is_err());
    assert!(view(&[m, 2], None, 0, &[m]).is_err());
    assert!(view(&[2], Some(&[m]), 0, &[10]).is_err());
    assert!(view(&[2, 2], Some(&[m, m]), 0, &[m]).is_err());
    assert!(view(&[1], None, m, &[10]).is_err());
    assert!(view(&[2], None, m - 1, &[m]).is_err());
    assert!(view(&[2], None, 0, &[m]).is_err()); // storage of 2^63 f32 elements cannot exist
    assert!(view(&[2], None, 0, &[m, m]).is_err());
    assert!(view(&[], None, 0, &[1 << 62, 4]).is_err());
    assert!(view(&[4, 1 << 62], Some(&[1 << 62, 1]), 0, &[1 << 20]).is_err());
    // a huge rank is refused, not looped over
    let dims = vec![1i64; 1000];
    assert!(view(&dims, None, 0, &dims).is_err());
}

#[test]
fn null_strides_mean_contiguous_row_major_semantics_2() {
    let t = view(&[2, 3, 4], None, 0, &[24]).unwrap();
    assert_eq!(t.strides[..], [12, 4, 1]);
    assert_eq!(t.max_index().unwrap(), Some(23));
    assert!(!t.has_internal_overlap());
    assert_eq!(contiguous_strides(&[5])[..], [1]);
    assert!(contiguous_strides(&[]).is_empty());
    assert_eq!(contiguous_strides(&[7, 1, 3])[..], [3, 3, 1]);
    // equal to passing the strides explicitly
    let u = view(&[2, 3, 4], Some(&[12, 4, 1]), 0, &[24]).unwrap();
    assert_eq!(t, u);
}

#[test]
fn zero_d_tensor_is_valid_with_one_element_semantics_2() {
    let t = view(&[], None, 0, &[]).expect("0-d tensor with 0-d storage");
    assert_eq!(t.rank(), 0);
    assert_eq!(t.numel(), 1);
    assert_eq!(t.storage_numel(), 1);
    assert!(!t.is_empty());
    assert!(t.strides.is_empty());
    assert_eq!(t.max_index().unwrap(), Some(0));
    assert!(!t.has_internal_overlap());
    assert_eq!(t.byte_span(), Some((0x1000, 0x1003)));
    // offset inside a larger storage is fine; past it is not
    assert!(inside(&[], None, 3, &[4]).is_ok());
    assert!(inside(&[], None, 4, &[4]).is_err());
    assert!(inside(&[], None, 1, &[]).is_err());
    // a 0-d view needs one element of storage
    assert!(inside(&[], None, 0, &[0]).is_err());
}

#[test]
fn empty_tensor_is_valid_semantics_2() {
    let t = view(&[3, 0], None, 0, &[0]).expect("empty tensor");
    assert!(t.is_empty());
    assert_eq!(t.numel(), 0);
    assert_eq!(t.storage_numel(), 0);
    assert_eq!(t.max_index().unwrap(), None);
    assert_eq!(t.byte_span(), None);
    assert!(view(&[0], None, 0, &[]).is_ok());
    assert!(view(&[2, 0, 4], Some(&[100, 100, 100]), 7, &[1]).is_ok());
}

#[test]
fn invalid_dtype_or_format_values_are_refused_at_creation() {
    assert!(TensorDesc::new(&[2], 13, None, 0, ND, &[2], 0).is_err()); // ACL_STRING
    assert!(TensorDesc::new(&[2], 5, None, 0, ND, &[2], 0).is_err());
    assert!(TensorDesc::new(&[2], F32, None, 0, 5, &[2], 0).is_err());
    assert!(TensorDesc::new(&[2], F32, None, 0, 99, &[2], 0).is_err());
    let t = TensorDesc::new(&[2, 3], F64, None, 0, 0, &[2, 3], 0).unwrap();
    assert_eq!((t.dtype, t.format), (DType::F64, Format::NCHW));
}

#[test]
fn byte_span_is_first_to_last_byte_touched() {
    let t = view(&[6, 5], Some(&[10, 1]), 22, &[10, 10]).unwrap();
    assert_eq!(t.byte_span(), Some((0x1000 + 22 * 4, 0x1000 + 76 * 4 + 3)));
    let t = TensorDesc::new(&[], F64, None, 2, ND, &[3], 100).unwrap();
    assert_eq!(t.byte_span(), Some((116, 123)));
    let t = TensorDesc::new(&[4, 3], 17, Some(&[20, 2]), 22, ND, &[10, 10], 0).unwrap(); // c128
    assert_eq!(t.byte_span(), Some((22 * 16, 86 * 16 + 15)));
    // a stride-0 view spans one element
    let t = view(&[5], Some(&[0]), 3, &[4]).unwrap();
    assert_eq!(t.byte_span(), Some((0x1000 + 12, 0x1000 + 15)));
}

#[test]
fn internal_overlap_stride_zero_on_a_dim_above_one_semantics_2() {
    assert!(view(&[3, 4], Some(&[0, 1]), 0, &[4])
        .unwrap()
        .has_internal_overlap());
    assert!(view(&[4, 3], Some(&[1, 0]), 0, &[4])
        .unwrap()
        .has_internal_overlap());
    assert!(view(&[5], Some(&[0]), 0, &[1])
        .unwrap()
        .has_internal_overlap());
    // stride 0 on a dim of size 1 is harmless
    assert!(!view(&[1, 4], Some(&[0, 1]), 0, &[4])
        .unwrap()
        .has_internal_overlap());
    // strides that make rows overlap
    assert!(view(&[2, 3], Some(&[2, 1]), 0, &[10])
        .unwrap()
        .has_internal_overlap());
    assert!(view(&[3, 3], Some(&[1, 1]), 0, &[10])
        .unwrap()
        .has_internal_overlap());
}

#[test]
fn internal_overlap_false_for_contiguous_transposed_and_sliced_views_semantics_2() {
    assert!(!view(&[2, 3, 4], None, 0, &[24])
        .unwrap()
        .has_internal_overlap());
    assert!(!view(&[3, 2], Some(&[1, 3]), 0, &[6])
        .unwrap()
        .has_internal_overlap()); // transpose
    assert!(!view(&[4, 3, 2], Some(&[1, 4, 12]), 0, &[24])
        .unwrap()
        .has_internal_overlap());
    assert!(!view(&[6, 5], Some(&[10, 1]), 22, &[10, 10])
        .unwrap()
        .has_internal_overlap());
    assert!(!view(&[4, 3], Some(&[20, 2]), 22, &[10, 10])
        .unwrap()
        .has_internal_overlap());
    assert!(!view(&[], None, 0, &[]).unwrap().has_internal_overlap());
    assert!(!view(&[2, 2], Some(&[3, 2]), 0, &[10])
        .unwrap()
        .has_internal_overlap());
}

/// Every small non-empty view (rank 1..=3, dims 1..=4, strides 0..=6), against a brute-force
/// enumeration of the element indices.
fn brute_force_overlap_mismatches() -> Vec<String> {
    let mut bad = Vec::new();
    let mut seen = vec![false; 256];
    for rank in 1..=3usize {
        let n_shapes = 4usize.pow(rank as u32);
        let n_strides = 7usize.pow(rank as u32);
        for si in 0..n_shapes {
            let shape: Vec<i64> = (0..rank)
                .map(|k| (si / 4usize.pow(k as u32) % 4 + 1) as i64)
                .collect();
            for ti in 0..n_strides {
                let strides: Vec<i64> = (0..rank)
                    .map(|k| (ti / 7usize.pow(k as u32) % 7) as i64)
                    .collect();
                let t = view(&shape, Some(&strides), 0, &[200]).unwrap();
                seen.iter_mut().for_each(|s| *s = false);
                let mut dup = false;
                let numel: usize = shape.iter().product::<i64>() as usize;
                for lin in 0..numel {
                    let (mut rest, mut idx) = (lin, 0usize);
                    for k in (0..rank).rev() {
                        idx += (rest % shape[k] as usize) * strides[k] as usize;
                        rest /= shape[k] as usize;
                    }
                    dup |= std::mem::replace(&mut seen[idx], true);
                }
                if t.has_internal_overlap() != dup {
                    bad.push(format!(
                        "shape {shape:?} strides {strides:?}: has_internal_overlap = {}, elements {} overlap",
                        !dup,
                        if dup { "do" } else { "do not" }
                    ));
                }
            }
        }
    }
    bad
}

#[test]
fn internal_overlap_never_misses_a_real_overlap_semantics_2() {
    // The half that matters for safety: every view whose elements do overlap is reported.
    let missed: Vec<String> = brute_force_overlap_mismatches()
        .into_iter()
        .filter(|m| m.contains("= false"))
        .collect();
    assert!(
        missed.is_empty(),
        "{} overlapping views not reported:\n{}",
        missed.len(),
        missed.join("\n")
    );
}

#[test]
fn internal_overlap_is_exact_for_small_views_semantics_2() {
    // SEMANTICS §2: only a view whose elements overlap each other is an invalid output;
    // every other strided view must be accepted. Shape (3,2) strides (2,3) touches
    // 0,3,2,5,4,7: all distinct, yet the sorted-stride test calls it overlapping.
    let bad = brute_force_overlap_mismatches();
    assert!(
        bad.is_empty(),
        "{} views misjudged, e.g.:\n{}",
        bad.len(),
        bad[..bad.len().min(10)].join("\n")
    );
    assert!(!view(&[3, 2], Some(&[2, 3]), 0, &[8])
        .unwrap()
        .has_internal_overlap());
}

// ---------------------------------------------------------------------------------------
// Format: reference §2.3 and SEMANTICS §6
// ---------------------------------------------------------------------------------------

// Reference §2.3, every aclFormat member: value, C name, and whether it is one of the public
// formats of SEMANTICS §6 ("ND, NCHW, NHWC, HWCN, NDHWC, NCDHW, NC, NCL") and the rank it needs.
const REFERENCE_2_3_FORMATS: &str = "
    -1 ACL_FORMAT_UNDEFINED        private -
    0  ACL_FORMAT_NCHW             public  4
    1  ACL_FORMAT_NHWC             public  4
    2  ACL_FORMAT_ND               public  any
    3  ACL_FORMAT_NC1HWC0          private -
    4  ACL_FORMAT_FRACTAL_Z        private -
    12 ACL_FORMAT_NC1HWC0_C04      private -
    16 ACL_FORMAT_HWCN             public  4
    27 ACL_FORMAT_NDHWC            public  5
    29 ACL_FORMAT_FRACTAL_NZ       private -
    30 ACL_FORMAT_NCDHW            public  5
    32 ACL_FORMAT_NDC1HWC0         private -
    33 ACL_FRACTAL_Z_3D            private -
    35 ACL_FORMAT_NC               public  2
    47 ACL_FORMAT_NCL              public  3
    50 ACL_FORMAT_FRACTAL_NZ_C0_16 private -
    51 ACL_FORMAT_FRACTAL_NZ_C0_32 private -
    52 ACL_FORMAT_FRACTAL_NZ_C0_2  private -
    53 ACL_FORMAT_FRACTAL_NZ_C0_4  private -
    54 ACL_FORMAT_FRACTAL_NZ_C0_8  private -
";

fn formats() -> Vec<(i32, &'static str, bool, Option<usize>)> {
    REFERENCE_2_3_FORMATS
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            let rank = match f[3] {
                "-" | "any" => None,
                r => Some(r.parse().unwrap()),
            };
            (f[0].parse().unwrap(), f[1], f[2] == "public", rank)
        })
        .collect()
}

#[test]
fn format_from_raw_accepts_every_acl_format_member_reference_2_3() {
    let fs = formats();
    assert_eq!(fs.len(), 20);
    for (v, name, public, _) in fs {
        let f = Format::from_raw(v).unwrap_or_else(|e| panic!("from_raw({v}): {e}"));
        assert_eq!(f.raw(), v);
        assert_eq!(f.to_string(), name);
        assert_eq!(f.is_public(), public, "{name}.is_public()");
    }
    assert_eq!(Format::from_raw(0), Ok(Format::NCHW));
    assert_eq!(Format::from_raw(47), Ok(Format::NCL));
    assert_eq!(Format::from_raw(35), Ok(Format::NC));
}

#[test]
fn format_from_raw_refuses_values_outside_the_enum() {
    for v in [
        -2,
        5,
        11,
        13,
        17,
        28,
        31,
        34,
        36,
        46,
        48,
        49,
        55,
        100,
        i32::MIN,
        i32::MAX,
    ] {
        assert!(Format::from_raw(v).is_err(), "from_raw({v}) must fail");
    }
}

#[test]
fn elementwise_format_rank_agreement_semantics_6() {
    // 5-d: NCDHW, NDHWC or ND; 4-d: NCHW, NHWC, HWCN or ND; 3-d: NCL or ND; 2-d: NC or ND;
    // any other rank: ND. Private formats: refused at every rank.
    let mut bad = Vec::new();
    for (v, name, public, rank) in formats() {
        let f = Format::from_raw(v).unwrap();
        for r in 0..=9usize {
            let want = public && rank.map_or(true, |need| need == r);
            let got = f.check_for_elementwise("self", r);
            if got.is_ok() != want {
                bad.push(format!(
                    "{name} with {r} dims: got {got:?}, want ok = {want}"
                ));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn elementwise_format_examples_and_messages_semantics_6() {
    assert!(Format::NCHW.check_for_elementwise("self", 4).is_ok());
    let e = Format::NCHW.check_for_elementwise("self", 3).unwrap_err();
    assert!(
        e.contains("self") && e.contains("ACL_FORMAT_NCHW") && e.contains('4') && e.contains('3'),
        "{e}"
    );
    assert!(Format::NCL.check_for_elementwise("x", 3).is_ok());
    assert!(Format::NCL.check_for_elementwise("x", 4).is_err());
    assert!(Format::NC.check_for_elementwise("x", 2).is_ok());
    assert!(Format::NC.check_for_elementwise("x", 1).is_err());
    assert!(Format::ND.check_for_elementwise("x", 0).is_ok());
    assert!(Format::ND.check_for_elementwise("x", 8).is_ok());
    let e = Format::from_raw(3)
        .unwrap()
        .check_for_elementwise("other", 5)
        .unwrap_err();
    assert!(
        e.contains("other") && e.contains("ACL_FORMAT_NC1HWC0"),
        "{e}"
    );
    let e = Format::from_raw(29)
        .unwrap()
        .check_for_elementwise("out", 2)
        .unwrap_err();
    assert!(
        e.contains("out") && e.contains("ACL_FORMAT_FRACTAL_NZ"),
        "{e}"
    );
}

// ---------------------------------------------------------------------------------------
// Scalar
// ---------------------------------------------------------------------------------------

#[test]
fn scalar_from_value_keeps_dtype_and_bytes() {
    let s = Scalar::from_value(1.5f32);
    assert_eq!(s.dtype, DType::F32);
    assert_eq!(s.bytes(), &1.5f32.to_le_bytes());
    assert_eq!(s.get::<f32>(), 1.5);
    assert_eq!(s.wide(), Wide::Float(1.5));
    let s = Scalar::from_value(-5i32);
    assert_eq!(s, Scalar::from_bytes(DType::S32, &(-5i32).to_le_bytes()));
    assert_eq!(s.wide(), Wide::Int(-5));
    let s = Scalar::from_value(Bool8(2));
    assert_eq!((s.dtype, s.bytes()), (DType::Bool, &[2u8][..]));
    assert_eq!(s.wide(), Wide::Bool(true));
    let s = Scalar::from_value(f16::from_bits(0x3555));
    assert_eq!(
        (s.dtype, s.bytes()),
        (DType::F16, &0x3555u16.to_le_bytes()[..])
    );
    let s = Scalar::from_value(bf16::from_bits(0x3F80));
    assert_eq!((s.dtype, s.wide()), (DType::BF16, Wide::Float(1.0)));
    let z: C128 = Complex::new(1.0, -2.0);
    let s = Scalar::from_value(z);
    assert_eq!((s.dtype, s.bytes().len()), (DType::C128, 16));
    assert_eq!(s.get::<C128>(), z);
    assert_eq!(s.wide(), Wide::Complex(1.0, -2.0));
    let s = Scalar::from_value(u64::MAX);
    assert_eq!(s.wide(), Wide::Int(u64::MAX as i128));
    // from_bytes reads exactly size() bytes
    let s = Scalar::from_bytes(DType::U8, &[7, 9, 9, 9]);
    assert_eq!(s.bytes(), &[7]);
    assert_eq!(s, Scalar::from_value(7u8));
}

#[test]
fn scalar_cast_uses_the_element_conversion_rule() {
    assert_eq!(
        Scalar::from_value(1e10f64).cast(DType::S32),
        Scalar::from_value(i32::MAX)
    );
    assert_eq!(
        Scalar::from_value(-2.7f32).cast(DType::S8),
        Scalar::from_value(-2i8)
    );
    assert_eq!(
        Scalar::from_value(300i32).cast(DType::U8),
        Scalar::from_value(44u8)
    );
    assert_eq!(
        Scalar::from_value(0.1f64)
            .cast(DType::F16)
            .get::<f16>()
            .to_bits(),
        0x2E66
    );
    assert_eq!(
        Scalar::from_value(3i32).cast(DType::C64),
        Scalar::from_value(Complex::<f32>::new(3.0, 0.0))
    );
    assert_eq!(
        Scalar::from_value::<C128>(Complex::new(2.0, 5.0)).cast(DType::F64),
        Scalar::from_value(2.0f64)
    );
    assert_eq!(
        Scalar::from_value(Bool8(2)).cast(DType::F32),
        Scalar::from_value(1.0f32)
    );
    assert_eq!(
        Scalar::from_value(f64::NAN).cast(DType::Bool),
        Scalar::from_value(Bool8(1))
    );
    assert_eq!(
        Scalar::from_value(u64::MAX).cast(DType::F32),
        Scalar::from_value(18446744073709551616.0f32)
    );
    assert_eq!(
        Scalar::from_value(-1i64).cast(DType::U64),
        Scalar::from_value(u64::MAX)
    );
    // to the same dtype: unchanged
    for s in [
        Scalar::from_value(0.1f32),
        Scalar::from_value(-7i16),
        Scalar::from_value::<C64>(Complex::new(1.0, 2.0)),
    ] {
        assert_eq!(s.cast(s.dtype), s);
    }
    // the result has the requested dtype, for every dtype
    for &d in &crate::dtype::ALL {
        assert_eq!(Scalar::from_value(2.0f64).cast(d).dtype, d);
    }
}

#[test]
fn scalar_is_one() {
    assert!(Scalar::from_value(1i32).is_one());
    assert!(Scalar::from_value(1u8).is_one());
    assert!(!Scalar::from_value(2i64).is_one());
    assert!(!Scalar::from_value(-1i8).is_one());
    assert!(Scalar::from_value(1.0f32).is_one());
    assert!(!Scalar::from_value(1.0000001f32).is_one());
    assert!(Scalar::from_value(f16::from_f32(1.0)).is_one());
    assert!(Scalar::from_value(bf16::from_f32(1.0)).is_one());
    assert!(!Scalar::from_value(f64::NAN).is_one());
    assert!(Scalar::from_value(Bool8(1)).is_one());
    assert!(!Scalar::from_value(Bool8(0)).is_one());
    assert!(Scalar::from_value::<C64>(Complex::new(1.0, 0.0)).is_one());
    assert!(!Scalar::from_value::<C64>(Complex::new(1.0, 1.0)).is_one());
    assert!(!Scalar::from_value::<C128>(Complex::new(0.0, 1.0)).is_one());
}

#[test]
fn scalar_display_shows_value_and_dtype() {
    assert_eq!(Scalar::from_value(1.5f32).to_string(), "1.5 (ACL_FLOAT)");
    assert_eq!(Scalar::from_value(-3i32).to_string(), "-3 (ACL_INT32)");
    assert_eq!(
        Scalar::from_value(u64::MAX).to_string(),
        "18446744073709551615 (ACL_UINT64)"
    );
    assert_eq!(Scalar::from_value(Bool8(1)).to_string(), "true (ACL_BOOL)");
    assert_eq!(
        Scalar::from_value(f16::from_f32(0.5)).to_string(),
        "0.5 (ACL_FLOAT16)"
    );
    assert_eq!(
        Scalar::from_value::<C64>(Complex::new(1.0, -2.0)).to_string(),
        "1-2i (ACL_COMPLEX64)"
    );
    assert_eq!(
        Scalar::from_value::<C128>(Complex::new(0.5, 2.0)).to_string(),
        "0.5+2i (ACL_COMPLEX128)"
    );
    assert_eq!(Scalar::from_value(f64::NAN).to_string(), "NaN (ACL_DOUBLE)");
}
