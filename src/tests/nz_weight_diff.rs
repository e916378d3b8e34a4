//! TransMatmulWeight and CalculateMatmulWeightSize(V2) (ops/nz_weight.rs) against a
//! packing loop written here from CANN's FRACTAL_NZ description (not from `format::Nz`):
//! the stored (rows, cols) matrix of each batch becomes ⌈cols/c0⌉ column blocks of
//! ⌈rows/16⌉ fractals of 16 × c0 elements (c0 = 32 bytes), zero-padded, blocks one after
//! another from the view's first element. Then a round trip: Mm with the transposed
//! FRACTAL_NZ view of the converted memory equals the f64 product self @ W^T (small
//! integers: exact). Sizes: CANN's documented examples and formula.

use super::add_diff::{run_exec, Buf, Rng};
use crate::capi::meta::{aclCreateIntArray, aclDestroyIntArray};
use crate::capi::ops::trans_matmul_weight::{
    aclnnCalculateMatmulWeightSize, aclnnCalculateMatmulWeightSizeV2,
};
use crate::dtype::DType::{self, *};
use crate::error::Error;
use crate::ops::matmul::mm;
use crate::ops::nz_weight::{trans_matmul_weight, weight_size};
use crate::tensor::TensorDesc;

const ND: i32 = 2;
const NZ: i32 = 29;

/// A view over `buf` (element strides, element offset).
fn view(
    buf: &Buf,
    d: DType,
    shape: &[usize],
    strides: &[usize],
    offset: usize,
    format: i32,
) -> TensorDesc {
    let shape: Vec<i64> = shape.iter().map(|&x| x as i64).collect();
    let strides: Vec<i64> = strides.iter().map(|&x| x as i64).collect();
    let elems = buf.bytes().len() / d.size();
    TensorDesc::new(
        &shape,
        d as i32,
        Some(&strides),
        offset as i64,
        format,
        &[elems as i64],
        buf.addr(),
    )
    .unwrap()
}

/// The expected bytes after the conversion: `before` with the NZ blocks written from
/// element `offset` on, read from the ND view (`shape`, `strides`, `offset`) of `before`.
fn packed(before: &[u8], d: DType, shape: &[usize], strides: &[usize], offset: usize) -> Vec<u8> {
    let size = d.size();
    let r = shape.len();
    let (rows, cols) = (shape[r - 2], shape[r - 1]);
    let c0 = 32 / size;
    let (rows16, blocks) = (rows.div_ceil(16) * 16, cols.div_ceil(c0));
    let batch_shape = &shape[..r - 2];
    let batches: usize = batch_shape.iter().product();
    let mut out = before.to_vec();
    for b in 0..batches {
        // Batch index -> element offset in the ND view.
        let (mut rest, mut base) = (b, offset);
        for k in (0..r - 2).rev() {
            base += (rest % shape[k]) * strides[k];
            rest /= shape[k];
        }
        for blk in 0..blocks {
            for row in 0..rows16 {
                for j in 0..c0 {
                    let col = blk * c0 + j;
                    let at = offset + b * blocks * rows16 * c0 + (blk * rows16 + row) * c0 + j;
                    for byte in 0..size {
                        out[at * size + byte] = if row < rows && col < cols {
                            let src = base + row * strides[r - 2] + col * strides[r - 1];
                            before[src * size + byte]
                        } else {
                            0
                        };
                    }
                }
            }
        }
    }
    out
}

/// Random weights of every dtype, 2-4 dims, sizes across the fractal edges, contiguous,
/// transposed, column-strided and offset views: the bytes after the conversion are the
/// packing loop's, everywhere in the buffer.
#[test]
fn trans_matmul_weight_packs_like_the_reference_loop() {
    let mut rng = Rng::new(0x6e7a);
    for case in 0..300 {
        let d = rng.pick(&[F16, BF16, S8, U8]);
        let rank = 2 + rng.below(3) as usize;
        let mut shape: Vec<usize> = (0..rank - 2).map(|_| 1 + rng.below(3) as usize).collect();
        let edge = [1, 2, 15, 16, 17, 31, 32, 33, 47];
        let pick_dim = |rng: &mut Rng| {
            if rng.pct(50) {
                rng.pick(&edge)
            } else {
                1 + rng.below(70) as usize
            }
        };
        shape.push(pick_dim(&mut rng));
        shape.push(pick_dim(&mut rng));
        // Strides: row-major, maybe with the last two dims transposed in storage, maybe
        // every other column, then an offset.
        let layout = rng.below(3);
        let (rows, cols) = (shape[rank - 2], shape[rank - 1]);
        let mut strides = vec![0; rank];
        let (rs, cs, matrix) = match layout {
            0 => (cols, 1, rows * cols),
            1 => (1, rows, rows * cols),
            _ => (2 * cols, 2, 2 * rows * cols),
        };
        strides[rank - 2] = rs;
        strides[rank - 1] = cs;
        let mut acc = matrix;
        for k in (0..rank - 2).rev() {
            strides[k] = acc;
            acc *= shape[k];
        }
        let offset = if rng.pct(30) {
            rng.below(40) as usize
        } else {
            0
        };
        let size = d.size();
        let batches: usize = shape[..rank - 2].iter().product();
        let nz_elems = batches * rows.div_ceil(16) * 16 * cols.div_ceil(32 / size) * (32 / size);
        let elems = (offset + acc).max(offset + nz_elems) + rng.below(20) as usize;
        let mut buf = Buf::new(elems * size);
        for b in buf.bytes_mut() {
            *b = rng.next() as u8;
        }
        let before = buf.bytes().to_vec();
        let w = view(&buf, d, &shape, &strides, offset, ND);
        let exec = trans_matmul_weight(&w).unwrap_or_else(|e| panic!("case {case}: {e}"));
        assert_eq!(
            exec.workspace_size(),
            (w.numel() * size) as u64,
            "case {case}: workspace"
        );
        run_exec(&exec).unwrap();
        let want = packed(&before, d, &shape, &strides, offset);
        assert!(
            buf.bytes() == want.as_slice(),
            "case {case}: {d} shape {shape:?} strides {strides:?} offset {offset}: bytes differ"
        );
    }
}

/// Bits of a small integer as f16 / bf16.
fn small(d: DType, v: i32) -> u16 {
    match d {
        F16 => half::f16::from_f32(v as f32).to_bits(),
        _ => ((v as f32).to_bits() >> 16) as u16,
    }
}

fn wide(d: DType, bits: u16) -> f64 {
    match d {
        F16 => half::f16::from_bits(bits).to_f64(),
        _ => f32::from_bits((bits as u32) << 16) as f64,
    }
}

/// ggml's path: an (N, K) weight converted in place, then Mm(self (M, K), the (K, N)
/// FRACTAL_NZ view of that memory) = self @ W^T, exactly (small integers); or W stored
/// (K, N) and multiplied as it is.
#[test]
fn converted_weights_multiply_through_mm() {
    let mut rng = Rng::new(0x4d4d);
    for case in 0..60 {
        let d = rng.pick(&[F16, BF16]);
        // k, n >= 2: a (K, N) view with a size-1 dim does not say whether it is transposed
        // (TensorDesc::nz reads it as stored untransposed).
        let (m, k, n) = (
            1 + rng.below(9) as usize,
            2 + rng.below(48) as usize,
            2 + rng.below(40) as usize,
        );
        let nz_elems = n.div_ceil(16) * 16 * k.div_ceil(16) * 16;
        let mut wbuf = Buf::new(nz_elems * 2);
        let mut w = vec![0i32; n * k];
        for (i, x) in w.iter_mut().enumerate() {
            *x = rng.below(5) as i32 - 2;
            wbuf.bytes_mut()[2 * i..2 * i + 2].copy_from_slice(&small(d, *x).to_le_bytes());
        }
        // Stored (n, k) and seen transposed (ggml's weights), or stored (k, n).
        let transposed = case % 3 != 2;
        let nd = if transposed {
            view(&wbuf, d, &[n, k], &[k, 1], 0, ND)
        } else {
            view(&wbuf, d, &[k, n], &[n, 1], 0, ND)
        };
        run_exec(&trans_matmul_weight(&nd).unwrap()).unwrap();
        let mut sbuf = Buf::new(m * k * 2);
        let mut a = vec![0i32; m * k];
        for (i, x) in a.iter_mut().enumerate() {
            *x = rng.below(7) as i32 - 3;
            sbuf.bytes_mut()[2 * i..2 * i + 2].copy_from_slice(&small(d, *x).to_le_bytes());
        }
        let obuf = Buf::new(m * n * 2);
        let self_ = view(&sbuf, d, &[m, k], &[k, 1], 0, ND);
        let mat2 = if transposed {
            view(&wbuf, d, &[k, n], &[1, k], 0, NZ)
        } else {
            view(&wbuf, d, &[k, n], &[n, 1], 0, NZ)
        };
        let out = view(&obuf, d, &[m, n], &[n, 1], 0, ND);
        run_exec(&mm(&self_, &mat2, &out, 0).unwrap_or_else(|e| panic!("case {case}: {e}")))
            .unwrap();
        for i in 0..m {
            for j in 0..n {
                let weight = |p: usize| {
                    if transposed {
                        w[j * k + p]
                    } else {
                        w[p * n + j]
                    }
                };
                let want: f64 = (0..k).map(|p| (a[i * k + p] * weight(p)) as f64).sum();
                let at = 2 * (i * n + j);
                let got = wide(
                    d,
                    u16::from_le_bytes([obuf.bytes()[at], obuf.bytes()[at + 1]]),
                );
                assert_eq!(
                    got, want,
                    "case {case}: {d} m {m} k {k} n {n} at ({i}, {j})"
                );
            }
        }
    }
}

fn refused(r: crate::Result<crate::executor::Executor>) -> String {
    match r {
        Err(Error::Invalid(m)) => m,
        Err(e) => panic!("expected ACLNN_ERR_PARAM_INVALID, got {e:?}"),
        Ok(_) => panic!("expected a refusal"),
    }
}

/// What the device refuses: dtypes, formats, ranks; an empty tensor is left as it is.
#[test]
fn trans_matmul_weight_refuses_what_the_device_refuses() {
    let buf = Buf::new(4096);
    let m = refused(trans_matmul_weight(&view(
        &buf,
        F32,
        &[4, 4],
        &[4, 1],
        0,
        ND,
    )));
    assert!(m.contains("mmWeightRef") && m.contains("ACL_FLOAT,"), "{m}");
    let m = refused(trans_matmul_weight(&view(
        &buf,
        F16,
        &[1, 1, 4, 4],
        &[16, 16, 4, 1],
        0,
        0,
    )));
    assert!(m.contains("ACL_FORMAT_NCHW"), "{m}");
    let m = refused(trans_matmul_weight(&view(&buf, F16, &[8], &[1], 0, ND)));
    assert!(m.contains("1 dims"), "{m}");
    let m = refused(trans_matmul_weight(&view(
        &buf, S8, &[1; 7], &[1; 7], 0, ND,
    )));
    assert!(m.contains("7 dims"), "{m}");
    let before = buf.bytes().to_vec();
    for shape in [&[0usize, 5][..], &[3, 0, 5], &[0]] {
        let strides = vec![1; shape.len()];
        let e = trans_matmul_weight(&view(&buf, F16, shape, &strides, 0, ND)).unwrap();
        assert_eq!(e.workspace_size(), 0);
        run_exec(&e).unwrap();
    }
    assert!(buf.bytes() == before.as_slice());
}

/// CANN's examples ([510, 510] f16 -> 262144; [510, 270] int8 -> 147456) and formula:
/// leading dims times n aligned to 16 times k aligned to 16 (f16/bf16) or 32 (others).
#[test]
fn weight_sizes_follow_canns_formula() {
    const V1: &str = "aclnnCalculateMatmulWeightSize";
    const V2: &str = "aclnnCalculateMatmulWeightSizeV2";
    assert_eq!(weight_size(V1, &[510, 510], None).unwrap(), 262144);
    assert_eq!(
        weight_size(V2, &[510, 270], Some(S8 as i32)).unwrap(),
        147456
    );
    assert_eq!(
        weight_size(V2, &[3, 2, 17, 33], Some(BF16 as i32)).unwrap(),
        6 * 32 * 48
    );
    assert_eq!(
        weight_size(V2, &[17, 33], Some(U8 as i32)).unwrap(),
        32 * 64
    );
    // The device does not check dataType: anything but f16/bf16 aligns k to 32.
    assert_eq!(
        weight_size(V2, &[17, 33], Some(F32 as i32)).unwrap(),
        32 * 64
    );
    assert_eq!(weight_size(V1, &[0, 33], None).unwrap(), 0);
    let mut rng = Rng::new(7);
    for _ in 0..200 {
        let rank = 2 + rng.below(5) as usize;
        let shape: Vec<i64> = (0..rank).map(|_| 1 + rng.below(100) as i64).collect();
        let d = rng.pick(&[F16, BF16, S8]);
        let k_align = if d == S8 { 32 } else { 16 };
        let lead: i64 = shape[..rank - 2].iter().product();
        let want = lead
            * ((shape[rank - 2] + 15) / 16 * 16)
            * ((shape[rank - 1] + k_align - 1) / k_align * k_align);
        assert_eq!(
            weight_size(V2, &shape, Some(d as i32)).unwrap(),
            want as u64,
            "{shape:?} {d}"
        );
    }
    for (shape, v2) in [
        (&[5i64][..], false),
        (&[1, 1, 1, 1, 1, 1, 1], true),
        (&[0, 4], true),
        (&[4, -1], false),
        (&[i64::MAX, 16, 16], false),
    ] {
        let (api, d) = if v2 {
            (V2, Some(F16 as i32))
        } else {
            (V1, None)
        };
        assert!(
            matches!(weight_size(api, &shape, d), Err(Error::Invalid(_))),
            "{shape:?}"
        );
    }
}

/// The C functions: NULL arguments are ACLNN_ERR_PARAM_NULLPTR, a refused shape
/// ACLNN_ERR_PARAM_INVALID, and the result is written only on success.
#[test]
fn weight_size_functions_through_the_c_abi() {
    let dims = [510i64, 270];
    let shape = unsafe { aclCreateIntArray(dims.as_ptr(), 2) };
    let mut size = 7u64;
    assert_eq!(
        unsafe { aclnnCalculateMatmulWeightSizeV2(shape, S8 as i32, &mut size) },
        0
    );
    assert_eq!(size, 147456);
    assert_eq!(
        unsafe { aclnnCalculateMatmulWeightSize(shape, &mut size) },
        0
    );
    assert_eq!(size, 512 * 272);
    size = 7;
    assert_eq!(
        unsafe { aclnnCalculateMatmulWeightSize(std::ptr::null(), &mut size) },
        161001
    );
    assert_eq!(
        unsafe { aclnnCalculateMatmulWeightSize(shape, std::ptr::null_mut()) },
        161001
    );
    assert_eq!(
        unsafe { aclnnCalculateMatmulWeightSizeV2(std::ptr::null(), F16 as i32, &mut size) },
        161001
    );
    let one = unsafe { aclCreateIntArray(dims.as_ptr(), 1) };
    assert_eq!(
        unsafe { aclnnCalculateMatmulWeightSizeV2(one, F16 as i32, &mut size) },
        161002
    );
    assert_eq!(size, 7, "written on failure");
    assert_eq!(aclDestroyIntArray(one), 0);
    assert_eq!(aclDestroyIntArray(shape), 0);
}

/// Every plain function of the registry with out-parameters refuses a NULL one with 161001 whatever
/// its other arguments (the registry's callers, as the fuzz target uses them).
#[test]
fn plain_functions_refuse_null_outputs() {
    use crate::capi::ops::{ArgSource, Kind, Param, PLAIN};
    struct Nulls;
    impl ArgSource for Nulls {
        fn tensor(&mut self, _: &Param) -> *mut crate::capi::meta::aclTensor {
            std::ptr::null_mut()
        }
        fn scalar(&mut self, _: &Param) -> *mut crate::capi::meta::aclScalar {
            std::ptr::null_mut()
        }
        fn int_array(&mut self, _: &Param) -> *mut crate::capi::meta::aclIntArray {
            std::ptr::null_mut()
        }
        fn float_array(&mut self, _: &Param) -> *mut crate::capi::meta::aclFloatArray {
            std::ptr::null_mut()
        }
        fn bool_array(&mut self, _: &Param) -> *mut crate::capi::meta::aclBoolArray {
            std::ptr::null_mut()
        }
        fn tensor_list(&mut self, _: &Param) -> *mut crate::capi::meta::aclTensorList {
            std::ptr::null_mut()
        }
        fn scalar_list(&mut self, _: &Param) -> *mut crate::capi::meta::aclScalarList {
            std::ptr::null_mut()
        }
        fn int(&mut self, _: &Param) -> i64 {
            0
        }
        fn float(&mut self, _: &Param) -> f64 {
            0.0
        }
        fn bool(&mut self, _: &Param) -> bool {
            false
        }
        fn dtype(&mut self, _: &Param) -> i32 {
            1
        }
        fn string(&mut self, _: &Param) -> *const std::ffi::c_char {
            std::ptr::null()
        }
        fn out_is_null(&mut self, p: &Param) -> bool {
            p.kind == Kind::Out
        }
    }
    assert!(PLAIN.len() >= 2);
    for f in PLAIN
        .iter()
        .filter(|f| f.params.iter().any(|p| p.kind == Kind::Out))
    {
        assert_eq!(unsafe { (f.call)(&mut Nulls) }, 161001, "{}", f.name);
    }
}

/// The declaration format's `@plain` functions: the prototype as written, no phases, and
/// out-parameters only there.
#[test]
fn plain_declarations_parse_as_one_c_function() {
    use crate::capi::decl::{header, parse};
    let f = parse(
        "t",
        "/// Doc.\n@plain aclnnFoo(const aclIntArray *shape,\n    uint64_t *size) => r(shape);\naclnnBar(const aclTensor *x) => b(x);\n",
    )
    .unwrap();
    assert!(f.entries[0].plain && !f.entries[1].plain);
    assert_eq!(
        f.entries[0].c_phase1(),
        "aclnnStatus aclnnFoo(const aclIntArray *shape, uint64_t *size)"
    );
    let h = header(&f);
    assert!(
        h.contains("ACLNN_API aclnnStatus aclnnFoo(const aclIntArray *shape, uint64_t *size);"),
        "{h}"
    );
    assert!(
        !h.contains("aclnnFooGetWorkspaceSize") && h.contains("aclnnBarGetWorkspaceSize"),
        "{h}"
    );
    let e = parse("t", "aclnnFoo(const aclTensor *x, int64_t *n) => r(x);").unwrap_err();
    assert!(e.contains("@plain"), "{e}");
    // A plain function may return only its status, or a value (then no out-parameters).
    let f = parse(
        "t",
        "@plain aclnnFoo(int32_t mode) => r(mode);\n@plain int32_t aclnnBar() => g();",
    )
    .unwrap();
    let h = header(&f);
    assert!(
        h.contains("ACLNN_API aclnnStatus aclnnFoo(int32_t mode);")
            && h.contains("ACLNN_API int32_t aclnnBar();"),
        "{h}"
    );
    let e = parse("t", "@plain int32_t aclnnFoo(int64_t *n) => r();").unwrap_err();
    assert!(e.contains("out-parameters"), "{e}");
    let e = parse("t", "@plain char aclnnFoo() => r();").unwrap_err();
    assert!(e.contains("value type"), "{e}");
}

/// CANN's sample path for the `*WeightNz` matmuls: a (k, n) ND weight converted in place
/// becomes the FRACTAL_NZ tensor `stored_form` describes (storage (n1, k1, 16, 16)), which
/// MatmulWeightNz, AddmmWeightNz (bias (n), alpha 2) and BatchMatMulWeightNz (a batch of 1)
/// multiply exactly (small integers) as the f64 loop does.
#[test]
fn weight_nz_matmuls_take_the_converted_tensor() {
    use crate::ops::matmul::{addmm_weight_nz, batch_matmul_weight_nz, matmul_weight_nz};
    use crate::ops::nz_weight::stored_form;
    use crate::scalar::Scalar;
    let mut rng = Rng::new(0x577a);
    for case in 0..40 {
        let d = rng.pick(&[F16, BF16]);
        let (m, k, n) = (
            1 + rng.below(9) as usize,
            2 + rng.below(48) as usize,
            2 + rng.below(40) as usize,
        );
        let mut wbuf = Buf::new(n.div_ceil(16) * 16 * k.div_ceil(16) * 16 * 2);
        let w: Vec<i32> = (0..k * n).map(|_| rng.below(5) as i32 - 2).collect();
        for (i, x) in w.iter().enumerate() {
            wbuf.bytes_mut()[2 * i..2 * i + 2].copy_from_slice(&small(d, *x).to_le_bytes());
        }
        let nd = view(&wbuf, d, &[k, n], &[n, 1], 0, ND);
        run_exec(&trans_matmul_weight(&nd).unwrap()).unwrap();
        let nz = stored_form(&nd).unwrap();
        assert_eq!(
            nz.storage_shape[..],
            [n.div_ceil(16), k.div_ceil(16), 16, 16]
        );
        let mut sbuf = Buf::new(m * k * 2);
        let a: Vec<i32> = (0..m * k).map(|_| rng.below(7) as i32 - 3).collect();
        for (i, x) in a.iter().enumerate() {
            sbuf.bytes_mut()[2 * i..2 * i + 2].copy_from_slice(&small(d, *x).to_le_bytes());
        }
        let mut bbuf = Buf::new(n * 2);
        let bias: Vec<i32> = (0..n).map(|_| rng.below(9) as i32 - 4).collect();
        for (i, x) in bias.iter().enumerate() {
            bbuf.bytes_mut()[2 * i..2 * i + 2].copy_from_slice(&small(d, *x).to_le_bytes());
        }
        let obuf = Buf::new(m * n * 2);
        let self_ = view(&sbuf, d, &[m, k], &[k, 1], 0, ND);
        let out = view(&obuf, d, &[m, n], &[n, 1], 0, ND);
        let bias_t = view(&bbuf, d, &[n], &[1], 0, ND);
        let batched = |t: &TensorDesc| {
            let mut b = t.clone();
            b.shape.insert(0, 1);
            b.strides
                .insert(0, (t.shape.iter().product::<usize>()) as isize);
            if t.format == crate::format::Format::FRACTAL_NZ {
                b.storage_shape.insert(0, 1);
            }
            b
        };
        let (self3, nz3, out3) = (batched(&self_), batched(&nz), batched(&out));
        let (one, two) = (Scalar::from_value(1.0f32), Scalar::from_value(2.0f32));
        let runs: [(&str, crate::Result<crate::executor::Executor>, i32, bool); 3] = [
            (
                "MatmulWeightNz",
                matmul_weight_nz(&self_, &nz, &out, 1),
                1,
                false,
            ),
            (
                "AddmmWeightNz",
                addmm_weight_nz(&bias_t, &self_, &nz, &one, &two, &out, 1),
                2,
                true,
            ),
            (
                "BatchMatMulWeightNz",
                batch_matmul_weight_nz(&self3, &nz3, &out3, 1),
                1,
                false,
            ),
        ];
        for (api, exec, alpha, with_bias) in runs {
            run_exec(&exec.unwrap_or_else(|e| panic!("case {case} {api}: {e}"))).unwrap();
            for i in 0..m {
                for j in 0..n {
                    let dot: i32 = (0..k).map(|p| a[i * k + p] * w[p * n + j]).sum();
                    let want = (alpha * dot + if with_bias { bias[j] } else { 0 }) as f64;
                    let at = 2 * (i * n + j);
                    let got = wide(
                        d,
                        u16::from_le_bytes([obuf.bytes()[at], obuf.bytes()[at + 1]]),
                    );
                    assert_eq!(
                        got, want,
                        "case {case} {api}: {d} m {m} k {k} n {n} ({i}, {j})"
                    );
                }
            }
        }
        // An ND mat2 and a mat2 stored as ggml describes its NZ weights (1-D storage) are
        // refused; so are FLOAT16 with BFLOAT16 and a k of 1.
        let m1 = refused(matmul_weight_nz(&self_, &nd, &out, 1));
        assert!(m1.contains("FRACTAL_NZ"), "{m1}");
        let flat = view(&wbuf, d, &[k, n], &[n, 1], 0, NZ);
        let m2 = refused(matmul_weight_nz(&self_, &flat, &out, 1));
        assert!(m2.contains("storage shape"), "{m2}");
        let mut other = self_.clone();
        other.dtype = if d == F16 { BF16 } else { F16 };
        let m3 = refused(matmul_weight_nz(&other, &nz, &out, 1));
        assert!(
            m3.contains("both must be ACL_FLOAT16 or both ACL_BF16"),
            "{m3}"
        );
    }
}
