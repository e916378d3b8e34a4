//! Differential tests of the quantized operators against plain f64 loops written here:
//! ACL_INT4 storage (two signed nibbles a byte, the even element low), the int4 and
//! INT32-packed weights of WeightQuantBatchMatmulV2, ConvertWeightToINT4Pack, and the
//! phase-1 gate that keeps ACL_INT4 away from every other operator.

use super::add_diff::Rng;
use super::llm_diff::{check_wqbmm, grid, layout, round_half, Buf, Layout};
use super::reduce_diff::run;
use crate::dtype::DType::{self, *};
use crate::executor::Executor;
use crate::ops::llm;
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
                v.push(
                    self.at(self.offset
                        + i * self.strides[0] as usize
                        + j * self.strides[1] as usize),
                );
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
        let offset = if packed {
            0
        } else {
            2 * rng.below(3) as usize + rng.below(2) as usize
        };
        let nib = Nibbles::new(k, n, transposed, offset, &mut rng);
        let wv = nib.values();
        let weight = if packed {
            // The same logical values, eight to an int32 along the storage's inner dim.
            let (outer, inner) = if transposed { (n, k) } else { (k, n) };
            let mut words = vec![0i32; outer * inner / 8];
            for o in 0..outer {
                for i in 0..inner {
                    let v = if transposed {
                        wv[i * n + o]
                    } else {
                        wv[o * n + i]
                    } as i32;
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
        let ov = off.as_ref().map(|o| o.values());
        let bv = bias.as_ref().map(|b| b.values());
        let what = format!("case {case} {d} packed {packed} transposed {transposed} group {group}");
        let (xv, sv) = (x.values(), sc.values());
        check_wqbmm(
            &what,
            d,
            (m, k, n, group),
            (&xv, &wv, &sv),
            (&ov, &bv),
            &y.values(),
        );
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
    assert!(
        DType::from_raw(29).is_err(),
        "ACL_INT4 is no dtype argument"
    );
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
        assert!(
            out[bytes_len..].iter().all(|&b| b == 0xee),
            "case {case}: wrote past the output"
        );
    }
    // Errors: an odd last dim, a wrong output shape, NZ output, an empty weight.
    let vals = vec![0i32; 64];
    let mut buf = vec![0u8; 64];
    let t = |dims: &[i64], d: DType, addr: usize| {
        TensorDesc::new(dims, d as i32, None, 0, 2, &[64], addr).unwrap()
    };
    let (va, ba) = (vals.as_ptr() as usize, buf.as_mut_ptr() as usize);
    assert!(message(llm::convert_weight_to_int4_pack(
        &t(&[8, 7], S32, va),
        &t(&[8, 7], S4, ba)
    ))
    .contains("multiple of 2"));
    assert!(message(llm::convert_weight_to_int4_pack(
        &t(&[4, 12], S32, va),
        &t(&[4, 1], S32, ba)
    ))
    .contains("multiple of 8"));
    assert!(message(llm::convert_weight_to_int4_pack(
        &t(&[4, 8], S32, va),
        &t(&[4, 2], S32, ba)
    ))
    .contains("must be [4, 1]"));
    let mut nz = t(&[4, 8], S4, ba);
    nz.format = crate::format::Format::FRACTAL_NZ;
    assert!(
        message(llm::convert_weight_to_int4_pack(&t(&[4, 8], S32, va), &nz)).contains("FRACTAL_NZ")
    );
    assert!(message(llm::convert_weight_to_int4_pack(
        &t(&[0, 8], S32, va),
        &t(&[0, 8], S4, ba)
    ))
    .contains("empty"));
    assert!(message(llm::convert_weight_to_int4_pack(
        &t(&[4, 8], F32, va),
        &t(&[4, 8], S4, ba)
    ))
    .contains("dtype"));
}

/// A contiguous quantized output of `shape` (INT8, ACL_INT4 or INT32 holding eight int4
/// along the last dim), its bytes pre-filled with 0xee, read back as the int values.
struct QOut {
    d: DType,
    shape: Vec<usize>,
    mem: Vec<u64>,
    bytes: usize,
}

impl QOut {
    /// `shape` is the float operand's; an INT32 output has its last dim divided by 8.
    fn new(d: DType, shape: &[usize]) -> QOut {
        let n: usize = shape.iter().product();
        let bytes = match d {
            S8 => n,
            _ => n / 2,
        };
        let mut mem = vec![0u64; bytes / 8 + 2];
        // SAFETY: the buffer seen as bytes.
        unsafe { std::ptr::write_bytes(mem.as_mut_ptr() as *mut u8, 0xee, mem.len() * 8) };
        QOut {
            d,
            shape: shape.to_vec(),
            mem,
            bytes,
        }
    }
    fn desc(&self) -> TensorDesc {
        let mut dims: Vec<i64> = self.shape.iter().map(|&d| d as i64).collect();
        if self.d == S32 {
            *dims.last_mut().unwrap() /= 8;
        }
        let n: i64 = dims.iter().product();
        TensorDesc::new(
            &dims,
            self.d as i32,
            None,
            0,
            2,
            &[n],
            self.mem.as_ptr() as usize,
        )
        .unwrap()
    }
    fn raw(&self) -> &[u8] {
        // SAFETY: the buffer seen as bytes.
        unsafe { std::slice::from_raw_parts(self.mem.as_ptr() as *const u8, self.mem.len() * 8) }
    }
    fn values(&self) -> Vec<f64> {
        let n: usize = self.shape.iter().product();
        let b = self.raw();
        (0..n)
            .map(|e| match self.d {
                S8 => b[e] as i8 as f64,
                _ => {
                    let v = if e % 2 == 1 {
                        b[e / 2] >> 4
                    } else {
                        b[e / 2] & 15
                    };
                    (((v << 4) as i8) >> 4) as f64
                }
            })
            .collect()
    }
    /// Nothing past the output's bytes was written.
    fn untouched_after(&self) -> bool {
        self.raw()[self.bytes..].iter().all(|&b| b == 0xee)
    }
    fn range(&self) -> (f32, f32) {
        if self.d == S8 {
            (-128.0, 127.0)
        } else {
            (-8.0, 7.0)
        }
    }
}

fn round_mode(m: &str, v: f32) -> f32 {
    match m {
        "round" => {
            // half to even, written out
            let f = v.floor();
            let diff = v - f;
            if diff > 0.5 || (diff == 0.5 && (f as i64) % 2 != 0) {
                f + 1.0
            } else {
                f
            }
        }
        "floor" => v.floor(),
        "ceil" => v.ceil(),
        _ => v.trunc(),
    }
}

fn saturate(v: f32, (lo, hi): (f32, f32)) -> f64 {
    if v.is_nan() {
        0.0
    } else {
        v.max(lo).min(hi) as f64
    }
}

fn row_major(shape: &[usize], i: usize) -> Vec<usize> {
    let mut idx = vec![0; shape.len()];
    let mut r = i;
    for d in (0..shape.len()).rev() {
        idx[d] = r % shape[d];
        r /= shape[d];
    }
    idx
}

#[test]
fn ascend_quant_matches_an_f32_loop() {
    let mut rng = Rng::new(0x51);
    for case in 0..200 {
        let v3 = case % 2 == 1;
        let d = rng.pick(&[F32, F16, BF16]);
        let od = rng.pick(&[S8, S8, S4, S32]);
        let rank = 1 + rng.below(4) as usize;
        let mut shape: Vec<usize> = (0..rank).map(|_| 1 + rng.below(5) as usize).collect();
        let unit = if od == S32 { 8 } else { 2 };
        shape[rank - 1] = unit * (1 + rng.below(3) as usize);
        if rng.pct(5) {
            shape[0] = 0; // empty tensors are supported
        }
        let axis = if v3 && rank >= 2 && rng.pct(50) {
            rank - 2
        } else {
            rank - 1
        };
        let sd = if d == F32 {
            rng.pick(&[F32, F16, BF16])
        } else {
            d
        };
        let s_shape: Vec<usize> = match rng.below(3) {
            0 => vec![1],
            1 => vec![shape[axis]],
            _ => (0..rank)
                .map(|k| if k == axis { shape[axis] } else { 1 })
                .collect(),
        };
        let sqrt = rng.pct(30);
        let mode = rng.pick(&["round", "floor", "ceil", "trunc"]);
        let x = Buf::new(d, &shape, layout(&mut rng), || {
            if rng.pct(3) {
                f64::NAN
            } else {
                (rng.below(2001) as f64 - 1000.0) / 16.0
            }
        });
        let sc = Buf::new(sd, &s_shape, layout(&mut rng), || {
            (1 + rng.below(40)) as f64 / 8.0
        });
        let off = rng.pct(50).then(|| {
            Buf::new(sd, &s_shape, layout(&mut rng), || {
                (rng.below(64) as f64 - 32.0) / 4.0
            })
        });
        let y = QOut::new(od, &shape);
        let od_desc = off.as_ref().map(|o| o.desc());
        let dst = od as i64;
        let e = if v3 {
            let ax = if rng.pct(50) {
                axis as i64 - rank as i64
            } else {
                axis as i64
            };
            crate::ops::quant::ascend_quant_v3(
                &x.desc(),
                &sc.desc(),
                od_desc.as_ref(),
                sqrt,
                mode,
                dst,
                ax,
                &y.desc(),
            )
        } else {
            crate::ops::quant::ascend_quant(
                &x.desc(),
                &sc.desc(),
                od_desc.as_ref(),
                sqrt,
                mode,
                dst,
                &y.desc(),
            )
        }
        .unwrap_or_else(|e| panic!("case {case}: {e}"));
        e.check_int4().unwrap();
        run(&e).unwrap();
        assert!(y.untouched_after(), "case {case}: wrote past y");
        let (xv, sv) = (x.values(), sc.values());
        let ov = off.as_ref().map(|o| o.values());
        let got = y.values();
        for (i, g) in got.iter().enumerate() {
            let idx = row_major(&shape, i);
            let p = if sv.len() == 1 { 0 } else { idx[axis] };
            let (xf, sf) = (xv[i] as f32, sv[p] as f32);
            let mut v = xf * sf;
            if sqrt {
                v *= sf;
            }
            if let Some(o) = &ov {
                v += o[p] as f32;
            }
            let want = saturate(round_mode(mode, v), y.range());
            assert_eq!(*g, want, "case {case} {d}->{od} {shape:?} axis {axis} {mode} sqrt {sqrt}: y[{idx:?}] from x {xf} scale {sf}");
        }
    }
}

#[test]
fn ascend_anti_quant_matches_an_f32_loop() {
    let mut rng = Rng::new(0x52);
    for case in 0..120 {
        let xd = rng.pick(&[S8, S4, S32]);
        let yd = rng.pick(&[F16, BF16]);
        let sd = rng.pick(&[F32, BF16]);
        let rows = 1 + rng.below(5) as usize;
        let cols = if xd == S32 {
            8 * (1 + rng.below(3) as usize)
        } else {
            2 * (1 + rng.below(8) as usize)
        };
        // x: int8 in any layout; int4 contiguous; INT32 eight int4 a word along the row.
        let vals: Vec<i32> = (0..rows * cols)
            .map(|_| {
                if xd == S8 {
                    rng.below(256) as i32 - 128
                } else {
                    rng.below(16) as i32 - 8
                }
            })
            .collect();
        let mut packed = vec![0u8; rows * cols / 2 + 8];
        for (e, v) in vals.iter().enumerate() {
            packed[e / 2] |= ((*v as u8) & 15) << (4 * (e % 2));
        }
        let x8 = Buf::new(S8, &[rows, cols], Layout::Contiguous, {
            let (mut k, v) = (0, vals.clone());
            move || {
                k += 1;
                v.get(k - 1).copied().unwrap_or(0) as f64
            }
        });
        let xdesc = match xd {
            S8 => x8.desc(),
            S4 => TensorDesc::new(
                &[rows as i64, cols as i64],
                S4 as i32,
                None,
                0,
                2,
                &[(rows * cols) as i64],
                packed.as_ptr() as usize,
            )
            .unwrap(),
            _ => TensorDesc::new(
                &[rows as i64, (cols / 8) as i64],
                S32 as i32,
                None,
                0,
                2,
                &[(rows * cols / 8) as i64],
                packed.as_ptr() as usize,
            )
            .unwrap(),
        };
        let s_len = if rng.pct(30) { 1 } else { cols };
        let sc = Buf::new(sd, &[s_len], layout(&mut rng), || {
            (1 + rng.below(64)) as f64 / 64.0
        });
        let off = rng
            .pct(50)
            .then(|| Buf::new(sd, &[s_len], layout(&mut rng), || rng.below(9) as f64 - 4.0));
        let sqrt = rng.pct(30);
        let y = Buf::new(yd, &[rows, cols], layout(&mut rng), || 5.0);
        let before = y.outside();
        let od = off.as_ref().map(|o| o.desc());
        let e = crate::ops::quant::ascend_anti_quant(
            &xdesc,
            &sc.desc(),
            od.as_ref(),
            yd as i64,
            sqrt,
            &y.desc(),
        )
        .unwrap_or_else(|e| panic!("case {case}: {e}"));
        e.check_int4().unwrap();
        run(&e).unwrap();
        super::llm_diff::out_unwritten(&format!("antiquant {case}"), &before, &y);
        let (sv, got) = (sc.values(), y.values());
        let ov = off.as_ref().map(|o| o.values());
        for i in 0..rows * cols {
            let p = if s_len == 1 { 0 } else { i % cols };
            let s = sv[p] as f32;
            let mut v = (vals[i] as f32 + ov.as_ref().map_or(0.0, |o| o[p] as f32)) * s;
            if sqrt {
                v *= s;
            }
            let want = round_half(yd, v as f64);
            assert_eq!(
                got[i], want,
                "case {case} {xd}->{yd}: y[{i}] from {} scale {s}",
                vals[i]
            );
        }
    }
}

#[test]
fn dynamic_quant_matches_an_f32_loop() {
    let mut rng = Rng::new(0x53);
    for case in 0..150 {
        let v2 = case % 2 == 1;
        let d = rng.pick(&[F16, BF16]);
        let od = rng.pick(&[S8, S8, S4, S32]);
        let asym = v2 && rng.pct(50);
        let rank = 2 + rng.below(2) as usize;
        let mut shape: Vec<usize> = (0..rank).map(|_| 1 + rng.below(4) as usize).collect();
        let unit = if od == S32 { 8 } else { 2 };
        shape[rank - 1] = unit * (1 + rng.below(4) as usize);
        let h = shape[rank - 1];
        let zero_row = rng.pct(20);
        let x = Buf::new(d, &shape, layout(&mut rng), || {
            if zero_row {
                0.0
            } else {
                (rng.below(4001) as f64 - 2000.0) / 64.0
            }
        });
        let smooth = rng.pct(40).then(|| {
            Buf::new(d, &[h], layout(&mut rng), || {
                (1 + rng.below(32)) as f64 / 16.0
            })
        });
        let y = QOut::new(od, &shape);
        let rows_shape = &shape[..rank - 1];
        let scale = Buf::new(F32, rows_shape, layout(&mut rng), || 9.0);
        let offset = asym.then(|| Buf::new(F32, rows_shape, layout(&mut rng), || 9.0));
        let sm = smooth.as_ref().map(|s| s.desc());
        let of = offset.as_ref().map(|o| o.desc());
        let e = if v2 {
            crate::ops::quant::dynamic_quant_v2(
                &x.desc(),
                sm.as_ref(),
                None,
                od as i64,
                &y.desc(),
                &scale.desc(),
                of.as_ref(),
            )
        } else {
            crate::ops::quant::dynamic_quant(&x.desc(), sm.as_ref(), &y.desc(), &scale.desc())
        }
        .unwrap_or_else(|e| panic!("case {case}: {e}"));
        e.check_int4().unwrap();
        run(&e).unwrap();
        assert!(y.untouched_after(), "case {case}");
        let xv = x.values();
        let smv = smooth.as_ref().map(|s| s.values());
        let (got, gs) = (y.values(), scale.values());
        let go = offset.as_ref().map(|o| o.values());
        let (qmin, qmax) = y.range();
        for r in 0..xv.len() / h {
            let row: Vec<f32> = (0..h)
                .map(|j| xv[r * h + j] as f32 * smv.as_ref().map_or(1.0, |s| s[j] as f32))
                .collect();
            let (sc, of) = if asym {
                let mx = row.iter().cloned().fold(f32::NEG_INFINITY, f32::max);
                let mn = row.iter().cloned().fold(f32::INFINITY, f32::min);
                let sc = (mx - mn) / (qmax - qmin);
                (sc, qmax - mx / sc)
            } else {
                (row.iter().fold(0f32, |m, v| m.max(v.abs())) / qmax, 0.0)
            };
            assert_eq!(gs[r], sc as f64, "case {case}: scale of row {r}");
            if let Some(go) = &go {
                let want = if of.is_nan() { 0.0 } else { of as f64 };
                assert_eq!(go[r], want, "case {case}: offset of row {r}");
            }
            for j in 0..h {
                let want = saturate(round_mode("round", row[j] / sc + of), (qmin, qmax));
                assert_eq!(
                    got[r * h + j],
                    want,
                    "case {case} {d}->{od} asym {asym}: y[{r}][{j}] from {}",
                    row[j]
                );
            }
        }
    }
}

#[test]
fn quantize_errors_name_the_problem() {
    use crate::ops::quant::*;
    let f = |d: DType, shape: &[usize]| Buf::new(d, shape, Layout::Contiguous, || 1.0);
    let (x, s) = (f(F16, &[2, 8]), f(F16, &[8]));
    let y = QOut::new(S8, &[2, 8]);
    let q = |x: &Buf, s: &Buf, mode: &str, dst: i64, axis: i64, y: &TensorDesc| {
        message(ascend_quant_v3(
            &x.desc(),
            &s.desc(),
            None,
            false,
            mode,
            dst,
            axis,
            y,
        ))
    };
    assert_eq!(q(&x, &s, "round", 2, -1, &y.desc()), "accepted");
    assert!(q(&x, &s, "hybrid", 2, -1, &y.desc()).contains("hybrid"));
    assert!(q(&x, &s, "nearest", 2, -1, &y.desc()).contains("roundMode"));
    assert!(q(&x, &s, "round", 3, -1, &y.desc()).contains("dstType 3"));
    assert!(q(&x, &s, "round", 35, -1, &y.desc()).contains("FLOAT8"));
    assert!(q(
        &f(F16, &[2, 3, 8]),
        &s,
        "round",
        2,
        0,
        &QOut::new(S8, &[2, 3, 8]).desc()
    )
    .contains("axis 0"));
    assert!(q(&x, &f(F16, &[3]), "round", 2, -1, &y.desc()).contains("scale has shape"));
    assert!(q(&x, &f(BF16, &[8]), "round", 2, -1, &y.desc()).contains("must be the same"));
    assert!(q(
        &f(F16, &[2, 7]),
        &f(F16, &[7]),
        "round",
        29,
        -1,
        &QOut::new(S4, &[2, 8]).desc()
    )
    .contains("even"));
    assert!(q(
        &f(F16, &[2, 12]),
        &f(F16, &[12]),
        "round",
        3,
        -1,
        &QOut::new(S32, &[2, 8]).desc()
    )
    .contains("multiple of 8"));
    // AntiQuant: a non-contiguous int4 x, a scale of the wrong length, dstType.
    let bytes = vec![0u8; 64];
    let x4 = TensorDesc::new(
        &[4, 4],
        S4 as i32,
        Some(&[1, 4]),
        0,
        2,
        &[16],
        bytes.as_ptr() as usize,
    )
    .unwrap();
    let yh = f(F16, &[4, 4]);
    assert!(message(ascend_anti_quant(
        &x4,
        &f(F32, &[4]).desc(),
        None,
        1,
        false,
        &yh.desc()
    ))
    .contains("contiguous"));
    let x8 = f(S8, &[4, 4]);
    assert!(message(ascend_anti_quant(
        &x8.desc(),
        &f(F32, &[3]).desc(),
        None,
        1,
        false,
        &yh.desc()
    ))
    .contains("scale has shape"));
    assert!(message(ascend_anti_quant(
        &x8.desc(),
        &f(F32, &[4]).desc(),
        None,
        27,
        false,
        &yh.desc()
    ))
    .contains("dstType 27"));
    assert!(message(ascend_anti_quant(
        &x8.desc(),
        &f(F16, &[4]).desc(),
        None,
        1,
        false,
        &yh.desc()
    ))
    .contains("dtype"));
    // DynamicQuant: a 1-D x, a wrong scaleOut shape, groupIndex.
    let sc = f(F32, &[2]);
    assert!(message(dynamic_quant(
        &f(F16, &[8]).desc(),
        None,
        &QOut::new(S8, &[8]).desc(),
        &sc.desc()
    ))
    .contains("2 to 8"));
    assert!(message(dynamic_quant(
        &x.desc(),
        None,
        &y.desc(),
        &f(F32, &[3]).desc()
    ))
    .contains("scaleOut"));
    let gi = f(S32, &[1]);
    assert!(message(dynamic_quant_v2(
        &x.desc(),
        Some(&s.desc()),
        Some(&gi.desc()),
        2,
        &y.desc(),
        &sc.desc(),
        None
    ))
    .contains("not implemented"));
    assert!(message(dynamic_quant_v2(
        &x.desc(),
        None,
        None,
        29,
        &y.desc(),
        &sc.desc(),
        None
    ))
    .contains("dstType 29"));
}

/// A TransQuantParam word for `scale` (and a 9-bit offset), as its documentation spells it.
fn quant_param(scale: f32, offset: Option<f32>) -> u64 {
    let mut w = (scale.to_bits() as u64 & 0xFFFF_E000) | (1 << 46);
    if let Some(o) = offset {
        let o = (o.round() as i64).clamp(-256, 255);
        w = (w & 0x4000_FFFF_FFFF) | (((o & 0x1ff) as u64) << 37);
    }
    w
}

#[test]
fn quant_matmul_v3_v4_match_an_integer_product() {
    let mut rng = Rng::new(0x60);
    for case in 0..160 {
        let int4 = rng.pct(30);
        let (t1, t2) = (!int4 && rng.pct(40), rng.pct(50));
        let m = 1 + rng.below(6) as usize;
        let k = if int4 {
            8 * (1 + rng.below(6) as usize)
        } else {
            1 + rng.below(70) as usize
        };
        let n = if int4 {
            8 * (1 + rng.below(4) as usize)
        } else {
            1 + rng.below(20) as usize
        };
        // out dtype and scale form from Atlas A2's combinations
        let combo = rng.below(4); // 0: u64 -> f16, 1: u64 -> int8, 2: float -> bf16, 3: f32 + pertoken -> f16
        let combo = if int4 && combo == 1 { 0 } else { combo };
        let out_d = [F16, S8, BF16, F16][combo as usize];
        let gen = |rng: &mut Rng| {
            if int4 {
                rng.below(16) as f64 - 8.0
            } else {
                rng.below(256) as f64 - 128.0
            }
        };
        let (s1, s2) = (
            if t1 { [k, m] } else { [m, k] },
            if t2 { [n, k] } else { [k, n] },
        );
        let (xa, xb) = (
            Buf::new(S8, &s1, layout(&mut rng), || gen(&mut rng)),
            Buf::new(S8, &s2, layout(&mut rng), || gen(&mut rng)),
        );
        let (av, bv) = (xa.values(), xb.values());
        // int4 operands: the same values as contiguous ACL_INT4 (x1) and INT32 words (x2).
        let pack = |vals: &[f64]| {
            let mut bytes = vec![0u8; vals.len() / 2 + 8];
            for (e, v) in vals.iter().enumerate() {
                bytes[e / 2] |= ((*v as i8 as u8) & 15) << (4 * (e % 2));
            }
            bytes
        };
        let (pa, pb) = (pack(&av), pack(&bv));
        let pb_words: Vec<u32> = pb
            .chunks(4)
            .map(|c| u32::from_le_bytes(std::array::from_fn(|i| c.get(i).copied().unwrap_or(0))))
            .collect();
        let (d1, d2) = if int4 {
            let d1 = TensorDesc::new(
                &[s1[0] as i64, s1[1] as i64],
                S4 as i32,
                None,
                0,
                2,
                &[(m * k) as i64],
                pa.as_ptr() as usize,
            )
            .unwrap();
            let d2 = TensorDesc::new(
                &[s2[0] as i64, (s2[1] / 8) as i64],
                S32 as i32,
                None,
                0,
                2,
                &[(n * k / 8) as i64],
                pb_words.as_ptr() as usize,
            )
            .unwrap();
            (d1, d2)
        } else {
            (xa.desc(), xb.desc())
        };
        let s_len = if rng.pct(30) { 1 } else { n };
        let sf: Vec<f32> = (0..s_len)
            .map(|_| (1 + rng.below(64)) as f32 / 1024.0)
            .collect();
        let offs: Vec<f32> = (0..s_len).map(|_| rng.below(21) as f32 - 10.0).collect();
        let use_off = combo == 1 && rng.pct(50);
        let packed_off = combo == 1 && !use_off && rng.pct(50);
        let words: Vec<u64> = sf
            .iter()
            .zip(&offs)
            .map(|(s, o)| quant_param(*s, packed_off.then_some(*o)))
            .collect();
        let scale_d = match combo {
            0 | 1 => rng.pick(&[U64, S64]),
            2 => rng.pick(&[F32, BF16]),
            _ => F32,
        };
        let sbuf = Buf::new(
            if scale_d == BF16 { BF16 } else { F32 },
            &[s_len],
            Layout::Contiguous,
            {
                let (mut i, v) = (0, sf.clone());
                move || {
                    i += 1;
                    v.get(i - 1).copied().unwrap_or(0.0) as f64
                }
            },
        );
        let scale_desc = if matches!(scale_d, U64 | S64) {
            TensorDesc::new(
                &[s_len as i64],
                scale_d as i32,
                None,
                0,
                2,
                &[s_len as i64],
                words.as_ptr() as usize,
            )
            .unwrap()
        } else {
            sbuf.desc()
        };
        let sv: Vec<f32> = match scale_d {
            U64 | S64 => sf
                .iter()
                .map(|s| f32::from_bits(s.to_bits() & 0xFFFF_E000))
                .collect(),
            _ => sbuf.values().iter().map(|v| *v as f32).collect(),
        };
        let off = use_off.then(|| {
            Buf::new(F32, &[s_len], Layout::Contiguous, || {
                rng.below(9) as f64 - 4.0
            })
        });
        let pertoken = (combo == 3 || (combo == 2 && rng.pct(50))).then(|| {
            Buf::new(F32, &[m], layout(&mut rng), || {
                (1 + rng.below(16)) as f64 / 4.0
            })
        });
        let bias_d = match combo {
            0 | 1 => rng.pick(&[None, Some(S32)]),
            2 => rng.pick(&[None, Some(S32), Some(BF16), Some(F32)]),
            _ => rng.pick(&[None, Some(S32), Some(F16), Some(F32)]),
        };
        let bias =
            bias_d.map(|d| Buf::new(d, &[n], layout(&mut rng), || rng.below(201) as f64 - 100.0));
        let out = Buf::new(out_d, &[m, n], layout(&mut rng), || 7.0);
        let before = out.outside();
        let (od, pd, bd) = (
            off.as_ref().map(|o| o.desc()),
            pertoken.as_ref().map(|p| p.desc()),
            bias.as_ref().map(|b| b.desc()),
        );
        let e = if pd.is_none() && rng.pct(50) {
            llm::quant_matmul_v3(
                &d1,
                &d2,
                &scale_desc,
                od.as_ref(),
                bd.as_ref(),
                t1,
                t2,
                &out.desc(),
            )
        } else {
            llm::quant_matmul_v4(
                &d1,
                &d2,
                &scale_desc,
                od.as_ref(),
                pd.as_ref(),
                bd.as_ref(),
                t1,
                t2,
                &out.desc(),
            )
        }
        .unwrap_or_else(|e| panic!("case {case} combo {combo} int4 {int4}: {e}"));
        e.check_int4().unwrap();
        run(&e).unwrap();
        super::llm_diff::out_unwritten(&format!("qmm {case}"), &before, &out);
        let got = out.values();
        let ov = off.as_ref().map(|o| o.values());
        let pv = pertoken.as_ref().map(|p| p.values());
        let biasv = bias.as_ref().map(|b| b.values());
        for i in 0..m {
            for j in 0..n {
                let p = if s_len == 1 { 0 } else { j };
                let mut acc: i64 = (0..k)
                    .map(|kk| {
                        let a = if t1 { av[kk * m + i] } else { av[i * k + kk] };
                        let b = if t2 { bv[j * k + kk] } else { bv[kk * n + j] };
                        (a * b) as i64
                    })
                    .sum();
                if bias_d == Some(S32) {
                    acc += biasv.as_ref().unwrap()[j] as i64;
                }
                let mut v = acc as f32 * sv[p];
                if let Some(pv) = &pv {
                    v *= pv[i] as f32;
                }
                if bias_d.is_some() && bias_d != Some(S32) {
                    v += biasv.as_ref().unwrap()[j] as f32;
                }
                let want = if out_d == S8 {
                    let o = match (&ov, packed_off) {
                        (Some(ov), _) => ov[p] as f32,
                        (None, true) => offs[p],
                        _ => 0.0,
                    };
                    saturate(round_mode("round", v + o), (-128.0, 127.0))
                } else {
                    round_half(out_d, v as f64)
                };
                assert_eq!(got[i * n + j], want, "case {case} combo {combo} int4 {int4} t1 {t1} t2 {t2} {m}x{k}x{n}: out[{i}][{j}] acc {acc}");
            }
        }
    }
}

#[test]
fn quant_matmul_errors_name_the_problem() {
    let f = |d: DType, shape: &[usize]| Buf::new(d, shape, Layout::Contiguous, || 1.0);
    let (a, b) = (f(S8, &[2, 4]), f(S8, &[4, 3]));
    let s = f(F32, &[3]);
    let out = f(BF16, &[2, 3]);
    let call = |a: &Buf, b: &Buf, s: &Buf, p: Option<&Buf>, out: &Buf| {
        let pd = p.map(|p| p.desc());
        message(llm::quant_matmul_v4(
            &a.desc(),
            &b.desc(),
            &s.desc(),
            None,
            pd.as_ref(),
            None,
            false,
            false,
            &out.desc(),
        ))
    };
    assert_eq!(call(&a, &b, &s, None, &out), "accepted");
    assert!(call(&a, &f(S8, &[5, 3]), &s, None, &out).contains("differ in k"));
    assert!(call(&f(S8, &[2, 2, 4]), &b, &s, None, &out).contains("batched"));
    assert!(call(&a, &b, &f(F32, &[2]), None, &out).contains("scale has shape"));
    assert!(call(&a, &b, &s, Some(&f(F32, &[3])), &out).contains("pertokenScaleOptional"));
    assert!(call(&a, &b, &s, None, &f(F16, &[2, 3])).contains("combinations"));
    assert!(call(&a, &b, &s, None, &f(S32, &[2, 3])).contains("not implemented"));
    assert!(call(&f(S8, &[0, 4]), &b, &s, None, &f(BF16, &[0, 3])).contains("empty"));
    assert_eq!(
        crate::ops::llm::full_quant_matmul::decode_quant_param(quant_param(0.5, Some(-3.0))),
        (0.5, -3.0)
    );
}

#[test]
fn trans_quant_param_v2_writes_the_documented_words() {
    let mut rng = Rng::new(0x70);
    for case in 0..60 {
        let n = 1 + rng.below(9) as usize;
        let with_offset = rng.pct(60);
        let two_d = rng.pct(40);
        let s_shape = if two_d {
            vec![1, n]
        } else if rng.pct(20) {
            vec![1]
        } else {
            vec![n]
        };
        let sv: Vec<f64> = (0..s_shape.iter().product::<usize>())
            .map(|_| (rng.below(1 << 20) as f64 + 1.0) / 65536.0)
            .collect();
        let scale = Buf::new(F32, &s_shape, Layout::Contiguous, {
            let (mut i, v) = (0, sv.clone());
            move || {
                i += 1;
                v.get(i - 1).copied().unwrap_or(0.0)
            }
        });
        let o_len = if s_shape == [1] || rng.pct(70) { n } else { 1 };
        let offset = with_offset.then(|| {
            Buf::new(F32, &[o_len], layout(&mut rng), || {
                (rng.below(1200) as f64 - 600.0) / 2.0
            })
        });
        let out_shape = match (&offset, two_d) {
            (None, _) | (_, true) => s_shape.clone(),
            (Some(_), false) => vec![s_shape[0].max(o_len)],
        };
        let od = rng.pick(&[U64, S64]);
        let out = Buf::new(od, &out_shape, layout(&mut rng), || 0.0);
        let before = out.outside();
        let odesc = offset.as_ref().map(|o| o.desc());
        let e = crate::ops::quant::trans_quant_param_v2(&scale.desc(), odesc.as_ref(), &out.desc())
            .unwrap_or_else(|e| panic!("case {case}: {e}"));
        run(&e).unwrap();
        super::llm_diff::out_unwritten(&format!("tqp {case}"), &before, &out);
        let got = out.array();
        let (svals, ovals) = (scale.values(), offset.as_ref().map(|o| o.values()));
        let total: usize = out_shape.iter().product();
        for i in 0..total {
            let s = svals[if svals.len() == 1 { 0 } else { i }] as f32;
            let o = ovals
                .as_ref()
                .map(|o| o[if o.len() == 1 { 0 } else { i }] as f32);
            let word = u64::from_le_bytes(got.bytes[i * 8..i * 8 + 8].try_into().unwrap());
            assert_eq!(
                word,
                quant_param(s, o),
                "case {case}: word {i} of scale {s} offset {o:?}"
            );
        }
    }
    let f = |shape: &[usize]| Buf::new(F32, shape, Layout::Contiguous, || 1.0);
    let out = Buf::new(U64, &[4], Layout::Contiguous, || 0.0);
    let call = |s: &Buf, o: Option<&Buf>, out: &Buf| {
        let od = o.map(|o| o.desc());
        message(crate::ops::quant::trans_quant_param_v2(
            &s.desc(),
            od.as_ref(),
            &out.desc(),
        ))
    };
    assert_eq!(call(&f(&[4]), None, &out), "accepted");
    assert!(call(&f(&[3]), None, &out).contains("out has shape"));
    assert!(call(&f(&[4]), Some(&f(&[3])), &out).contains("do not broadcast"));
    assert!(call(
        &f(&[2, 4]),
        Some(&f(&[4])),
        &Buf::new(U64, &[2, 4], Layout::Contiguous, || 0.0)
    )
    .contains("(1, n)"));
    assert!(call(
        &f(&[0]),
        None,
        &Buf::new(U64, &[0], Layout::Contiguous, || 0.0)
    )
    .contains("empty"));
    assert!(call(
        &f(&[4]),
        None,
        &Buf::new(S32, &[4], Layout::Contiguous, || 0.0)
    )
    .contains("dtype"));
}
