//! Differential tests of the quantized operators against plain f64 loops written here:
//! ACL_INT4 storage (two signed nibbles a byte, the even element low), the int4 and
//! INT32-packed weights of WeightQuantBatchMatmulV2, ConvertWeightToINT4Pack, and the
//! phase-1 gate that keeps ACL_INT4 away from every other operator.

use super::add_diff::Rng;
use super::llm_diff::{grid, half_ulp, layout, Buf, Layout};
use super::reduce_diff::run;
use crate::dtype::DType::{self, *};
use crate::executor::Executor;
use crate::ops::llm;
use crate::scalar::Scalar;
use crate::tensor::TensorDesc;

/// An int4 storage of nibbles seen as a view (logical shape, element strides, offset).
struct Nibbles {
    shape: Vec<usize>,
    strides: Vec<isize>,
    offset: usize,
    storage: usize,
    bytes: Vec<u8>,
}

impl Nibbles {
    /// A (rows, cols) view, transposed (column-major, as ggml passes its weight) or not,
    /// at `offset`, every nibble of its storage random.
    fn new(rows: usize, cols: usize, transposed: bool, offset: usize, rng: &mut Rng) -> Nibbles {
        let strides = if transposed {
            vec![1, rows as isize]
        } else {
            vec![cols as isize, 1]
        };
        let storage = offset + rows * cols + 1;
        let bytes = (0..storage.div_ceil(2) + 1)
            .map(|_| rng.below(256) as u8)
            .collect();
        Nibbles {
            shape: vec![rows, cols],
            strides,
            offset,
            storage,
            bytes,
        }
    }

    fn at(&self, e: usize) -> f64 {
        let b = self.bytes[e / 2];
        let n = if e % 2 == 1 { b >> 4 } else { b & 15 };
        (((n << 4) as i8) >> 4) as f64
    }

    fn values(&self) -> Vec<f64> {
        let (r, c) = (self.shape[0], self.shape[1]);
        let mut v = Vec::with_capacity(r * c);
        for i in 0..r {
            for j in 0..c {
                v.push(self.at(
                    self.offset + i * self.strides[0] as usize + j * self.strides[1] as usize,
                ));
            }
        }
        v
    }

    fn desc(&self) -> TensorDesc {
        let dims: Vec<i64> = self.shape.iter().map(|&d| d as i64).collect();
        let st: Vec<i64> = self.strides.iter().map(|&s| s as i64).collect();
        TensorDesc::new(
            &dims,
            S4 as i32,
            Some(&st),
            self.offset as i64,
            2,
            &[self.storage as i64],
            self.bytes.as_ptr() as usize,
        )
        .expect("a valid int4 view")
    }
}

fn message(r: crate::Result<Executor>) -> String {
    match r {
        Ok(_) => "accepted".into(),
        Err(e) => e.to_string(),
    }
}

fn round_to(d: DType, v: f64) -> f64 {
    Scalar::from_value(v).cast(d).cast(F64).get::<f64>()
}

/// The weight of a WeightQuantBatchMatmulV2 case: int4 nibbles, or the same values packed
/// eight to an INT32 (non-transposed (k, n/8) or transposed (k/8, n)).
enum Weight {
    Int4(Nibbles),
    /// The words hold the storage `desc` points into.
    Packed {
        _words: Vec<i32>,
        desc: TensorDesc,
    },
}

#[test]
fn weight_quant_batch_matmul_v2_int4_matches_an_f64_product() {
    let mut rng = Rng::new(0x194);
    for case in 0..120 {
        let d = rng.pick(&[F16, BF16]);
        let packed = case % 4 == 3;
        let transposed = rng.pct(60);
        let m = 1 + rng.below(6) as usize;
        // ggml's Q4_0: k a multiple of 32, groups of 32; int4 needs an even inner axis.
        let mut k = if rng.pct(50) {
            32 * (1 + rng.below(5) as usize)
        } else {
            2 * (1 + rng.below(60) as usize)
        };
        let mut n = 1 + rng.below(40) as usize;
        if packed {
            if transposed {
                // k/8 >= 2: a (1, n) INT32 view of strides (1, 1) reads as not transposed.
                k = 8 * (2 + rng.below(11) as usize);
            } else {
                n = 8 * (1 + rng.below(5) as usize);
            }
        } else if !transposed && n % 2 == 1 {
            n += 1;
        }
        let group = if k > 32 && rng.pct(60) {
            32 * (1 + rng.below(((k - 1) / 32) as u64) as usize)
        } else {
            0
        };
        let s_shape: Vec<usize> = if group > 0 {
            vec![k.div_ceil(group), n]
        } else {
            [vec![1], vec![1, 1], vec![n], vec![1, n]][rng.below(4) as usize].clone()
        };
        let offset = if packed { 0 } else { 2 * rng.below(3) as usize + rng.below(2) as usize };
        let nib = Nibbles::new(k, n, transposed, offset, &mut rng);
        let wv = nib.values();
        let weight = if packed {
            // The same logical values, eight to an int32 along the storage's inner dim.
            let (outer, inner) = if transposed { (n, k) } else { (k, n) };
            let mut words = vec![0i32; outer * inner / 8];
            for o in 0..outer {
                for i in 0..inner {
                    let v = if transposed { wv[i * n + o] } else { wv[o * n + i] } as i32;
                    let w = &mut words[(o * inner + i) / 8];
                    *w |= (v & 15) << (4 * (i % 8));
                }
            }
            let (dims, st): (Vec<i64>, Vec<i64>) = if transposed {
                (vec![(k / 8) as i64, n as i64], vec![1, (k / 8) as i64])
            } else {
                (vec![k as i64, (n / 8) as i64], vec![(n / 8) as i64, 1])
            };
            let desc = TensorDesc::new(
                &dims,
                S32 as i32,
                Some(&st),
                0,
                2,
                &[words.len() as i64],
                words.as_ptr() as usize,
            )
            .unwrap();
            Weight::Packed {
                _words: words,
                desc,
            }
        } else {
            Weight::Int4(nib)
        };
        let wdesc = match &weight {
            Weight::Int4(b) => b.desc(),
            Weight::Packed { desc, .. } => desc.clone(),
        };
        let x = Buf::new(d, &[m, k], layout(&mut rng), || grid(&mut rng));
        let sc = Buf::new(d, &s_shape, layout(&mut rng), || {
            (1 + rng.below(64)) as f64 / 256.0
        });
        let off = rng
            .pct(40)
            .then(|| Buf::new(d, &s_shape, layout(&mut rng), || rng.below(16) as f64 - 8.0));
        let bias = rng.pct(40).then(|| {
            Buf::new(
                if d == BF16 { F32 } else { F16 },
                &[n],
                Layout::Contiguous,
                || grid(&mut rng),
            )
        });
        let y = Buf::new(d, &[m, n], layout(&mut rng), || 3.0);
        let before = y.outside();
        let (od, bd) = (
            off.as_ref().map(|b| b.desc()),
            bias.as_ref().map(|b| b.desc()),
        );
        let e = llm::weight_quant_batch_matmul_v2(
            &x.desc(),
            &wdesc,
            &sc.desc(),
            od.as_ref(),
            None,
            None,
            bd.as_ref(),
            group as i64,
            &y.desc(),
        )
        .unwrap_or_else(|e| panic!("case {case}: {e}"));
        e.check_int4().unwrap();
        run(&e).unwrap();
        drop(weight);
        super::llm_diff::out_unwritten(&format!("int4 wqbmm {case}"), &before, &y);
        let (xv, sv) = (x.values(), sc.values());
        let ov = off.as_ref().map(|o| o.values());
        let bv = bias.as_ref().map(|b| b.values());
        let got = y.values();
        let p = |i: usize, j: usize| match (group, sv.len()) {
            (g, _) if g > 0 => (i / g) * n + j,
            (_, 1) => 0,
            _ => j,
        };
        for r in 0..m {
            for j in 0..n {
                let terms: Vec<f64> = (0..k)
                    .map(|i| {
                        let o = ov.as_ref().map_or(0.0, |o| o[p(i, j)]);
                        xv[r * k + i] * round_to(d, (wv[i * n + j] + o) * sv[p(i, j)])
                    })
                    .collect();
                let want = terms.iter().sum::<f64>() + bv.as_ref().map_or(0.0, |b| b[j]);
                let mag: f64 = terms.iter().map(|t| t.abs()).sum();
                let tol = mag * (k + 1) as f64 * 2f64.powi(-24) + half_ulp(d, want) * 1.01;
                let g = got[r * n + j];
                assert!(
                    (g - want).abs() <= tol,
                    "case {case} {d} packed {packed} transposed {transposed} {m}x{k}x{n} group {group}: y[{r}][{j}] = {g}, want {want} ± {tol}"
                );
            }
        }
    }
}

#[test]
fn weight_quant_batch_matmul_v2_int4_errors_name_the_problem() {
    let mut rng = Rng::new(7);
    let h = |shape: &[usize]| Buf::new(F16, shape, Layout::Contiguous, || 1.0);
    let call = |w: &TensorDesc, k: usize, n: usize, s: &[usize], g: i64| {
        message(llm::weight_quant_batch_matmul_v2(
            &h(&[2, k]).desc(),
            w,
            &h(s).desc(),
            None,
            None,
            None,
            None,
            g,
            &h(&[2, n]).desc(),
        ))
    };
    // The inner axis of an int4 weight must be even.
    let odd = Nibbles::new(64, 7, false, 0, &mut rng);
    assert!(call(&odd.desc(), 64, 7, &[7], 0).contains("must be even"));
    let odd_t = Nibbles::new(63, 8, true, 0, &mut rng);
    assert!(call(&odd_t.desc(), 63, 8, &[8], 0).contains("must be even"));
    // Group size rules hold for int4 as for int8.
    let w = Nibbles::new(64, 8, true, 0, &mut rng);
    assert!(call(&w.desc(), 64, 8, &[2, 8], 48).contains("antiquantGroupSize 48"));
    assert_eq!(call(&w.desc(), 64, 8, &[2, 8], 32), "accepted");
    // FRACTAL_NZ int4 is refused by name.
    let mut nz = w.desc();
    nz.format = crate::format::Format::FRACTAL_NZ;
    assert!(call(&nz, 64, 8, &[8], 0).contains("FRACTAL_NZ"));
}

#[test]
fn int4_views_span_half_their_elements() {
    let mut rng = Rng::new(3);
    let w = Nibbles::new(64, 10, true, 5, &mut rng);
    let d = w.desc();
    let (lo, hi) = d.byte_span().unwrap();
    let base = w.bytes.as_ptr() as usize;
    // Elements 5 ..= 5 + 639: bytes 2 ..= 322.
    assert_eq!((lo - base, hi - base), (2, 322));
    assert_eq!(S4.bytes_for(7), 4);
    assert!(DType::from_raw(29).is_err(), "ACL_INT4 is no dtype argument");
    assert!(DType::from_raw_storage(29).is_ok());
    assert_eq!(crate::dtype::promote(S4, F16), None);
    assert!(!crate::dtype::can_cast(S4, S8));
}

#[test]
fn operators_that_do_not_unpack_int4_refuse_it() {
    let mut rng = Rng::new(11);
    let w = Nibbles::new(4, 6, false, 0, &mut rng);
    let d = w.desc();
    let dst = Buf::new(S8, &[4, 6], Layout::Contiguous, || 0.0);
    // InplaceCopy takes any dtype: the gate refuses the executor at phase 1.
    let e = crate::ops::copy::inplace_copy(&dst.desc(), &d);
    let refused = match e {
        Err(e) => e.to_string(),
        Ok(e) => message(e.check_int4().map(|_| e)),
    };
    assert!(refused.contains("ACL_INT4"), "{refused}");
    // Through the C ABI too (aclnnCast).
    let e = crate::ops::copy::cast(&d, S8 as i32, &dst.desc());
    assert!(e.is_err() || e.unwrap().check_int4().is_err());
}

#[test]
fn convert_weight_to_int4_pack_matches_the_nibble_layout() {
    let mut rng = Rng::new(0x4a);
    for case in 0..40 {
        let rows = 1 + rng.below(9) as usize;
        let to_int32 = case % 2 == 1;
        let cols = if to_int32 {
            8 * (1 + rng.below(4) as usize)
        } else {
            2 * (1 + rng.below(20) as usize)
        };
        let vals: Vec<i32> = (0..rows * cols).map(|_| rng.below(16) as i32 - 8).collect();
        let wd = TensorDesc::new(
            &[rows as i64, cols as i64],
            S32 as i32,
            None,
            0,
            2,
            &[(rows * cols) as i64],
            vals.as_ptr() as usize,
        )
        .unwrap();
        let bytes_len = rows * cols / 2;
        let mut out = vec![0xeeu8; bytes_len + 8];
        let od = if to_int32 {
            TensorDesc::new(
                &[rows as i64, (cols / 8) as i64],
                S32 as i32,
                None,
                0,
                2,
                &[(rows * cols / 8) as i64],
                out.as_mut_ptr() as usize,
            )
        } else {
            TensorDesc::new(
                &[rows as i64, cols as i64],
                S4 as i32,
                None,
                0,
                2,
                &[(rows * cols) as i64],
                out.as_mut_ptr() as usize,
            )
        }
        .unwrap();
        let e = llm::convert_weight_to_int4_pack(&wd, &od).unwrap();
        e.check_int4().unwrap();
        run(&e).unwrap();
        for (i, v) in vals.iter().enumerate() {
            let b = out[i / 2];
            let nib = if i % 2 == 1 { b >> 4 } else { b & 15 };
            assert_eq!(nib, (*v & 15) as u8, "case {case} element {i}");
        }
        assert!(out[bytes_len..].iter().all(|&b| b == 0xee), "case {case}: wrote past the output");
    }
    // Errors: an odd last dim, a wrong output shape, NZ output, an empty weight.
    let vals = vec![0i32; 64];
    let mut buf = vec![0u8; 64];
    let t = |dims: &[i64], d: DType, addr: usize| {
        TensorDesc::new(dims, d as i32, None, 0, 2, &[64], addr).unwrap()
    };
    let (va, ba) = (vals.as_ptr() as usize, buf.as_mut_ptr() as usize);
    assert!(message(llm::convert_weight_to_int4_pack(&t(&[8, 7], S32, va), &t(&[8, 7], S4, ba)))
        .contains("multiple of 2"));
    assert!(message(llm::convert_weight_to_int4_pack(&t(&[4, 12], S32, va), &t(&[4, 1], S32, ba)))
        .contains("multiple of 8"));
    assert!(message(llm::convert_weight_to_int4_pack(&t(&[4, 8], S32, va), &t(&[4, 2], S32, ba)))
        .contains("must be [4, 1]"));
    let mut nz = t(&[4, 8], S4, ba);
    nz.format = crate::format::Format::FRACTAL_NZ;
    assert!(message(llm::convert_weight_to_int4_pack(&t(&[4, 8], S32, va), &nz)).contains("FRACTAL_NZ"));
    assert!(message(llm::convert_weight_to_int4_pack(&t(&[0, 8], S32, va), &t(&[0, 8], S4, ba)))
        .contains("empty"));
    assert!(message(llm::convert_weight_to_int4_pack(&t(&[4, 8], F32, va), &t(&[4, 8], S4, ba)))
        .contains("dtype"));
}
