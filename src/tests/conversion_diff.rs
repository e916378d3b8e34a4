//! Differential tests of the conversion headers of issue 17 through the C entry points, as
//! a CANN program calls them: Flatten, Diag, DiagFlat, InplaceFillDiagonal,
//! InplaceFillTensor, ChannelShuffle, ConfusionTranspose.
//!
//! Every random case has random shapes (empty and 0-d where the operator allows them),
//! random views for every tensor (axes laid out in a random order, gaps, an offset),
//! random dtypes of the operator's list and "nice" values (NaN, ±inf, ±0, integer bits).
//! References, written here from the rules, independently of the library: the element
//! each output element must be, from the index formulas (row-major order for the
//! reshapes, the diagonal formulas, the channel-shuffle formula), compared byte for byte;
//! storage outside out's view must be untouched. These operators move values: exact.
//!
//! PyTorch (`torch_ref`) checks the references themselves on a sample: torch.flatten,
//! torch.diag, torch.diagflat, fill_diagonal_, fill_, torch.channel_shuffle,
//! reshape/permute; where torch is missing that part is skipped.

use super::add_diff::Rng;
use super::shape_diff::{
    call, check_out, convert_elem, enc, fill, nice, pick, rand_shape, untouched, Dev, View,
};
use super::torch_ref::{Array, Batch};
use crate::capi::ops;
use crate::dtype::DType::{self, *};

const INVALID: i32 = 161002;
const ND: i32 = 2;

/// Bools read as written (0/1), other bytes as they are.
fn canon(d: DType, b: &[u8]) -> Vec<u8> {
    if d == Bool {
        vec![(b[0] != 0) as u8]
    } else {
        b.to_vec()
    }
}

/// Row-major index of `idx` in `shape`.
fn flat(shape: &[usize], idx: &[usize]) -> usize {
    idx.iter().zip(shape).fold(0, |a, (&i, &n)| a * n + i)
}

/// The index of row-major position `k` in `shape`.
fn unflat(shape: &[usize], mut k: usize) -> Vec<usize> {
    let mut idx = vec![0; shape.len()];
    for d in (0..shape.len()).rev() {
        idx[d] = k % shape[d];
        k /= shape[d];
    }
    idx
}

/// A random view of `shape`, or (10%) self's own view when the shapes allow it.
struct Case {
    sv: View,
    ov: View,
    sm: Vec<u8>,
    om: Vec<u8>,
}

fn views(rng: &mut Rng, sd: DType, sshape: &[usize], od: DType, oshape: &[usize]) -> Case {
    let sv = View::random(rng, sd, sshape);
    let ov = View::random(rng, od, oshape);
    let (sm, om) = (fill(rng, &sv), fill(rng, &ov));
    Case { sv, ov, sm, om }
}

// ---------------------------------------------------------------------------------------
// Flatten
// ---------------------------------------------------------------------------------------

const FLATTEN: &[DType] = &[F32, F16, S32, S8, U8, S64, S16, U16, U32, U64, Bool, BF16];

#[test]
fn flatten_is_the_row_major_2d_view() {
    let mut rng = Rng::new(1701);
    let mut torch = Batch::new();
    let mut sample = vec![];
    for case in 0..300 {
        let dtype = pick(&mut rng, FLATTEN);
        let rank = rng.below(6) as usize;
        let shape = rand_shape(&mut rng, rank, 5, 4);
        let r = rank as i64;
        let axis = if rank <= 1 {
            -(rng.below(2) as i64)
        } else {
            rng.below(2 * rank as u64) as i64 - r
        };
        let a = if axis < 0 { axis + r.max(1) } else { axis } as usize;
        let a = a.min(rank);
        let want = [
            shape[..a].iter().product::<usize>(),
            shape[a..].iter().product::<usize>(),
        ];
        let c = views(&mut rng, dtype, &shape, dtype, &want);
        let mut dev = Dev::new();
        let s = dev.upload(&c.sm);
        let st = dev.tensor(&c.sv, s, ND);
        let o = dev.upload(&c.om);
        let ot = dev.tensor(&c.ov, o, ND);
        call(
            |w, e| unsafe { ops::flatten::aclnnFlattenGetWorkspaceSize(st, axis, ot, w, e) },
            ops::flatten::aclnnFlatten,
        )
        .unwrap_or_else(|e| panic!("case {case} {shape:?} axis {axis}: {e:?}"));
        let got = dev.download(o);
        check_out("flatten", &c.ov, &got, |idx| {
            let k = flat(&want, idx);
            let si = unflat(&shape, k);
            canon(dtype, c.sv.elem(&c.sm, c.sv.at(&si)))
        })
        .and_then(|_| untouched(&c.ov, &c.om, &got))
        .unwrap_or_else(|e| panic!("case {case} {dtype} {shape:?} axis {axis}: {e}"));
        if sample.len() < 30 && dtype == F32 && rank >= 2 {
            let p = torch.program("out = torch.flatten(torch.flatten(a[0], a[1].item()), 0, a[1].item() - 1) if a[1].item() > 0 else torch.flatten(a[0]).reshape(1, -1)");
            torch.case(p, vec![Some(c.sv.array(&c.sm)), Some(Array::int(a as i64))]);
            sample.push((c.ov.clone(), got));
        }
    }
    if let Some(res) = torch.run("flatten") {
        for (k, (ov, got)) in sample.iter().enumerate() {
            let t = res[k].as_ref().expect("torch raised");
            assert_eq!(t[0].bytes, ov.array(got).bytes, "torch case {k}");
            assert_eq!(t[0].shape, ov.shape, "torch case {k}");
        }
    }
}

#[test]
fn flatten_refusals() {
    let mut dev = Dev::new();
    let s = dev.zeros(F32, &[2, 3, 4]);
    let ok = dev.zeros(F32, &[2, 12]);
    let bad = dev.zeros(F32, &[6, 4]);
    let f64o = dev.zeros(F64, &[2, 12]);
    let d64 = dev.zeros(F64, &[2, 3, 4]);
    let one = dev.zeros(F32, &[5]);
    let one_o = dev.zeros(F32, &[1, 5]);
    let cases: Vec<(_, _, i64, &str)> = vec![
        (s, bad, 1, "out"),
        (s, ok, 3, "axis"),
        (s, ok, -4, "axis"),
        (s, f64o, 1, "dtype"),
        (d64, f64o, 1, "self"),
        (one, one_o, 1, "axis 1"),
    ];
    for (k, (st, ot, axis, what)) in cases.into_iter().enumerate() {
        let r = call(
            |w, e| unsafe { ops::flatten::aclnnFlattenGetWorkspaceSize(st, axis, ot, w, e) },
            ops::flatten::aclnnFlatten,
        );
        let (code, msg) = r.expect_err(&format!("case {k}"));
        assert_eq!(code, INVALID, "case {k}: {msg}");
        assert!(msg.contains("aclnnFlatten"), "case {k}: {msg}");
        assert!(msg.contains(what), "case {k}: {msg} lacks {what}");
    }
    // The one-dim forms: axis 0 and -1.
    for axis in [0, -1] {
        call(
            |w, e| unsafe { ops::flatten::aclnnFlattenGetWorkspaceSize(one, axis, one_o, w, e) },
            ops::flatten::aclnnFlatten,
        )
        .unwrap();
    }
}

// ---------------------------------------------------------------------------------------
// Diag, DiagFlat
// ---------------------------------------------------------------------------------------

const DIAG: &[DType] = &[F16, F32, S64, S32, S16, S8, U8, F64, Bool, C64, BF16];
/// DiagFlat's conversions are checked between the dtypes the reference converts.
const CONVERTIBLE: &[DType] = &[F16, F32, S64, S32, S16, S8, U8, F64, Bool, BF16];

fn small(rng: &mut Rng, d: DType) -> Vec<u8> {
    if d.is_float() && rng.pct(30) {
        return nice(rng, d);
    }
    enc(d, rng.below(200) as f64 - 100.0)
}

#[test]
fn diag_matches_the_diagonal_formulas() {
    let mut rng = Rng::new(1702);
    let mut torch = Batch::new();
    let mut sample = vec![];
    for case in 0..400 {
        let dtype = pick(&mut rng, DIAG);
        let rank = rng.below(3) as usize;
        let shape = rand_shape(&mut rng, rank, 6, 5);
        let k = match rng.below(10) {
            0 => 7,
            1 => -8,
            _ => rng.below(9) as i64 - 4,
        };
        let want: Vec<usize> = if rank < 2 {
            let n = shape.first().copied().unwrap_or(1) + k.unsigned_abs() as usize;
            vec![n, n]
        } else {
            let (r, c, k) = (shape[0] as i64, shape[1] as i64, k);
            let len = if k >= 0 { r.min(c - k) } else { (r + k).min(c) }.max(0);
            vec![len as usize]
        };
        let c = views(&mut rng, dtype, &shape, dtype, &want);
        let mut dev = Dev::new();
        let s = dev.upload(&c.sm);
        let st = dev.tensor(&c.sv, s, ND);
        let o = dev.upload(&c.om);
        let ot = dev.tensor(&c.ov, o, ND);
        call(
            |w, e| unsafe { ops::diag::aclnnDiagGetWorkspaceSize(st, k, ot, w, e) },
            ops::diag::aclnnDiag,
        )
        .unwrap_or_else(|e| panic!("case {case} {shape:?} k {k}: {e:?}"));
        let got = dev.download(o);
        let zero = vec![0u8; dtype.size()];
        check_out("diag", &c.ov, &got, |idx| {
            if rank < 2 {
                let (i, j) = (idx[0] as i64, idx[1] as i64);
                if j - i != k {
                    return zero.clone();
                }
                let p = i.min(j) as usize;
                let si: Vec<usize> = if rank == 0 { vec![] } else { vec![p] };
                canon(dtype, c.sv.elem(&c.sm, c.sv.at(&si)))
            } else {
                let p = idx[0] as i64;
                let (i, j) = if k >= 0 { (p, p + k) } else { (p - k, p) };
                canon(dtype, c.sv.elem(&c.sm, c.sv.at(&[i as usize, j as usize])))
            }
        })
        .and_then(|_| untouched(&c.ov, &c.om, &got))
        .unwrap_or_else(|e| panic!("case {case} {dtype} {shape:?} k {k}: {e}"));
        if sample.len() < 40
            && dtype == F32
            && rank >= 1
            && !shape.contains(&0)
            && want.iter().all(|&n| n > 0)
            && k.abs() <= 4
        {
            let p = torch.program("out = torch.diag(a[0], a[1].item())");
            torch.case(p, vec![Some(c.sv.array(&c.sm)), Some(Array::int(k))]);
            sample.push((c.ov.clone(), got));
        }
    }
    if let Some(res) = torch.run("diag") {
        for (k, (ov, got)) in sample.iter().enumerate() {
            let t = res[k].as_ref().expect("torch raised");
            assert_eq!(t[0].shape, ov.shape, "torch case {k}");
            assert_eq!(t[0].bytes, ov.array(got).bytes, "torch case {k}");
        }
    }
}

#[test]
fn diag_flat_puts_the_row_major_elements_on_the_diagonal() {
    let mut rng = Rng::new(1703);
    let mut torch = Batch::new();
    let mut sample = vec![];
    for case in 0..300 {
        let convert = rng.pct(30);
        let sd = pick(&mut rng, if convert { CONVERTIBLE } else { DIAG });
        let od = if convert {
            pick(&mut rng, CONVERTIBLE)
        } else {
            sd
        };
        let rank = rng.below(4) as usize;
        let shape = rand_shape(&mut rng, rank, 4, 5);
        let k = rng.below(9) as i64 - 4;
        let n: usize = shape.iter().product::<usize>() + k.unsigned_abs() as usize;
        let mut c = views(&mut rng, sd, &shape, od, &[n, n]);
        if convert {
            c.sm = (0..c.sv.storage)
                .flat_map(|_| small(&mut rng, sd))
                .collect();
        }
        let mut dev = Dev::new();
        let s = dev.upload(&c.sm);
        let st = dev.tensor(&c.sv, s, ND);
        let o = dev.upload(&c.om);
        let ot = dev.tensor(&c.ov, o, ND);
        call(
            |w, e| unsafe { ops::diag_flat::aclnnDiagFlatGetWorkspaceSize(st, k, ot, w, e) },
            ops::diag_flat::aclnnDiagFlat,
        )
        .unwrap_or_else(|e| panic!("case {case} {shape:?} k {k}: {e:?}"));
        let got = dev.download(o);
        let zero = vec![0u8; od.size()];
        check_out("diagflat", &c.ov, &got, |idx| {
            let (i, j) = (idx[0] as i64, idx[1] as i64);
            if j - i != k {
                return zero.clone();
            }
            let si = unflat(&shape, i.min(j) as usize);
            let b = canon(sd, c.sv.elem(&c.sm, c.sv.at(&si)));
            convert_elem(sd, od, &b)
        })
        .and_then(|_| untouched(&c.ov, &c.om, &got))
        .unwrap_or_else(|e| panic!("case {case} {sd}->{od} {shape:?} k {k}: {e}"));
        if sample.len() < 30 && sd == F32 && od == F32 {
            let p = torch.program("out = torch.diagflat(a[0], a[1].item())");
            torch.case(p, vec![Some(c.sv.array(&c.sm)), Some(Array::int(k))]);
            sample.push((c.ov.clone(), got));
        }
    }
    if let Some(res) = torch.run("diagflat") {
        for (k, (ov, got)) in sample.iter().enumerate() {
            let t = res[k].as_ref().expect("torch raised");
            assert_eq!(t[0].bytes, ov.array(got).bytes, "torch case {k}");
        }
    }
}

#[test]
fn diag_refusals() {
    let mut dev = Dev::new();
    let v = dev.zeros(F32, &[3]);
    let m = dev.zeros(F32, &[3, 3]);
    let t3 = dev.zeros(F32, &[2, 2, 2]);
    let o3 = dev.zeros(F32, &[3]);
    let o4 = dev.zeros(F32, &[4]);
    let o33 = dev.zeros(F32, &[3, 3]);
    let o44 = dev.zeros(F32, &[4, 4]);
    let h33 = dev.zeros(F16, &[3, 3]);
    let u16v = dev.zeros(U16, &[3]);
    let u16o = dev.zeros(U16, &[3, 3]);
    type Case = (
        *mut crate::capi::meta::aclTensor,
        *mut crate::capi::meta::aclTensor,
        i64,
        &'static str,
    );
    let diag: Vec<Case> = vec![
        (t3, o3, 0, "self has 3 dims"),
        (m, o4, 0, "out"),
        (v, o44, 0, "out"),
        (v, h33, 0, "dtype"),
        (u16v, u16o, 0, "self"),
    ];
    for (k, (s, o, d, what)) in diag.into_iter().enumerate() {
        let (code, msg) = call(
            |w, e| unsafe { ops::diag::aclnnDiagGetWorkspaceSize(s, d, o, w, e) },
            ops::diag::aclnnDiag,
        )
        .expect_err(&format!("diag case {k}"));
        assert_eq!(code, INVALID, "diag case {k}: {msg}");
        assert!(
            msg.contains("aclnnDiag") && msg.contains(what),
            "diag case {k}: {msg}"
        );
    }
    let flat: Vec<Case> = vec![
        (v, o44, 0, "out"),
        (u16v, u16o, 0, "self"),
        (m, o33, 0, "out"),
    ];
    for (k, (s, o, d, what)) in flat.into_iter().enumerate() {
        let (code, msg) = call(
            |w, e| unsafe { ops::diag_flat::aclnnDiagFlatGetWorkspaceSize(s, d, o, w, e) },
            ops::diag_flat::aclnnDiagFlat,
        )
        .expect_err(&format!("diagflat case {k}"));
        assert_eq!(code, INVALID, "diagflat case {k}: {msg}");
        assert!(
            msg.contains("aclnnDiagFlat") && msg.contains(what),
            "diagflat case {k}: {msg}"
        );
    }
    // The one accepted shape of each.
    for (s, o) in [(m, o3), (v, o33)] {
        call(
            |w, e| unsafe { ops::diag::aclnnDiagGetWorkspaceSize(s, 0, o, w, e) },
            ops::diag::aclnnDiag,
        )
        .unwrap();
    }
    // self sharing out's memory is refused, not half-overwritten.
    let mut m2 = View::contiguous(F32, &[16]);
    m2.storage = 16;
    let mem = dev.upload(&[0u8; 64]);
    let ov = View::contiguous(F32, &[4, 4]);
    let sv = View {
        shape: vec![3],
        strides: vec![1],
        ..m2
    };
    let (st, ot) = (dev.tensor(&sv, mem, ND), dev.tensor(&ov, mem, ND));
    let (code, msg) = call(
        |w, e| unsafe { ops::diag::aclnnDiagGetWorkspaceSize(st, 1, ot, w, e) },
        ops::diag::aclnnDiag,
    )
    .unwrap_err();
    assert_eq!(code, INVALID, "{msg}");
    assert!(msg.contains("share memory"), "{msg}");
}

// ---------------------------------------------------------------------------------------
// InplaceFillDiagonal
// ---------------------------------------------------------------------------------------

const FILL_DIAGONAL: &[DType] = &[F16, F32, F64, S8, S16, S32, S64, U8, Bool, BF16];

#[test]
fn fill_diagonal_matches_the_wrap_formula() {
    let mut rng = Rng::new(1704);
    let mut torch = Batch::new();
    let mut sample = vec![];
    for case in 0..400 {
        let dtype = pick(&mut rng, FILL_DIAGONAL);
        let wrap = rng.pct(60);
        let shape: Vec<usize> = if rng.pct(20) {
            let n = rng.below(4) as usize;
            vec![n; 3 + rng.below(2) as usize]
        } else {
            let cols = rng.below(5) as usize;
            let rows = if rng.pct(60) {
                cols + rng.below(12) as usize
            } else {
                rng.below(6) as usize
            };
            vec![rows, cols]
        };
        let vd = pick(&mut rng, &[F32, S64, F64, S32, Bool, F16]);
        let vb = if dtype.is_int() || dtype == Bool || !vd.is_float() {
            enc(vd, rng.below(100) as f64)
        } else {
            nice(&mut rng, vd)
        };
        let sv = View::random(&mut rng, dtype, &shape);
        let sm = fill(&mut rng, &sv);
        let mut dev = Dev::new();
        let s = dev.upload(&sm);
        let st = dev.tensor(&sv, s, ND);
        let val = dev.scalar(vd, &vb);
        call(
            |w, e| unsafe {
                ops::fill_diagonal::aclnnInplaceFillDiagonalGetWorkspaceSize(st, val, wrap, w, e)
            },
            ops::fill_diagonal::aclnnInplaceFillDiagonal,
        )
        .unwrap_or_else(|e| panic!("case {case} {shape:?} {dtype} {vd}: {e:?}"));
        let got = dev.download(s);
        let filled = convert_elem(vd, dtype, &canon(vd, &vb));
        let (rows, cols) = (shape[0], shape[1]);
        check_out("fill_diagonal", &sv, &got, |idx| {
            let on = if shape.len() > 2 || !wrap || rows <= cols + 1 {
                idx.iter().all(|&i| i == idx[0])
            } else {
                // Rows r + (cols + 1) * i, column r.
                idx[0] % (cols + 1) == idx[1]
            };
            if on {
                filled.clone()
            } else {
                sv.elem(&sm, sv.at(idx)).to_vec()
            }
        })
        .and_then(|_| untouched(&sv, &sm, &got))
        .unwrap_or_else(|e| panic!("case {case} {dtype} {shape:?} wrap {wrap}: {e}"));
        if sample.len() < 40 && dtype == F32 && vd == F32 {
            let p = torch.program(
                "out = a[0].clone()\nout.fill_diagonal_(a[1].item(), wrap=bool(a[2].item()))",
            );
            let v = Array {
                dtype: F32,
                shape: vec![],
                bytes: vb.clone(),
            };
            torch.case(
                p,
                vec![Some(sv.array(&sm)), Some(v), Some(Array::int(wrap as i64))],
            );
            sample.push((sv.clone(), got));
        }
    }
    if let Some(res) = torch.run("fill_diagonal_") {
        for (k, (sv, got)) in sample.iter().enumerate() {
            let t = res[k].as_ref().expect("torch raised");
            assert_eq!(
                t[0].bytes,
                sv.array(got).bytes,
                "torch case {k} {:?}",
                sv.shape
            );
        }
    }
}

#[test]
fn fill_diagonal_refusals() {
    let mut dev = Dev::new();
    let v = dev.zeros(F32, &[3]);
    let ragged = dev.zeros(F32, &[2, 2, 3]);
    let m = dev.zeros(F32, &[3, 3]);
    let h = dev.zeros(F16, &[3, 3]);
    let i8m = dev.zeros(S8, &[3, 3]);
    let u16m = dev.zeros(U16, &[3, 3]);
    let f = dev.scalar(F32, &1.0f32.to_le_bytes());
    let big = dev.scalar(F32, &1.0e6f32.to_le_bytes());
    let i300 = dev.scalar(S64, &300i64.to_le_bytes());
    let c = dev.scalar(C64, &[0u8; 8]);
    let cases = [
        (v, f, "selfRef has 1 dims"),
        (ragged, f, "equal length"),
        (h, big, "overflow"),
        (i8m, i300, "overflow"),
        (u16m, f, "selfRef"),
        (m, c, "converted to float"),
    ];
    for (k, (s, val, what)) in cases.into_iter().enumerate() {
        let (code, msg) = call(
            |w, e| unsafe {
                ops::fill_diagonal::aclnnInplaceFillDiagonalGetWorkspaceSize(s, val, true, w, e)
            },
            ops::fill_diagonal::aclnnInplaceFillDiagonal,
        )
        .expect_err(&format!("case {k}"));
        assert_eq!(code, INVALID, "case {k}: {msg}");
        assert!(
            msg.contains("aclnnInplaceFillDiagonal") && msg.contains(what),
            "case {k}: {msg}"
        );
    }
    // Infinity fits every float dtype (only finite values overflow).
    let inf = dev.scalar(F32, &f32::INFINITY.to_le_bytes());
    call(
        |w, e| unsafe {
            ops::fill_diagonal::aclnnInplaceFillDiagonalGetWorkspaceSize(h, inf, false, w, e)
        },
        ops::fill_diagonal::aclnnInplaceFillDiagonal,
    )
    .unwrap();
}

// ---------------------------------------------------------------------------------------
// InplaceFillTensor
// ---------------------------------------------------------------------------------------

const FILL_TENSOR: &[DType] = &[F32, S32, S64, F16, S16, S8, U8, F64, Bool, BF16];

#[test]
fn fill_tensor_writes_the_converted_value_everywhere() {
    let mut rng = Rng::new(1705);
    for case in 0..200 {
        let dtype = pick(&mut rng, FILL_TENSOR);
        let vd = pick(&mut rng, CONVERTIBLE);
        let rank = rng.below(5) as usize;
        let shape = rand_shape(&mut rng, rank, 5, 5);
        let vshape: Vec<usize> = if rng.pct(50) { vec![] } else { vec![1] };
        let sv = View::random(&mut rng, dtype, &shape);
        let vv = View::random(&mut rng, vd, &vshape);
        let sm = fill(&mut rng, &sv);
        let vm: Vec<u8> = (0..vv.storage).flat_map(|_| small(&mut rng, vd)).collect();
        let mut dev = Dev::new();
        let s = dev.upload(&sm);
        let st = dev.tensor(&sv, s, ND);
        let vmem = dev.upload(&vm);
        let vt = dev.tensor(&vv, vmem, ND);
        call(
            |w, e| unsafe {
                ops::fill_tensor::aclnnInplaceFillTensorGetWorkspaceSize(st, vt, w, e)
            },
            ops::fill_tensor::aclnnInplaceFillTensor,
        )
        .unwrap_or_else(|e| panic!("case {case}: {e:?}"));
        let got = dev.download(s);
        let z = vec![0; vshape.len()];
        let want = convert_elem(vd, dtype, &canon(vd, vv.elem(&vm, vv.at(&z))));
        check_out("fill_tensor", &sv, &got, |_| want.clone())
            .and_then(|_| untouched(&sv, &sm, &got))
            .unwrap_or_else(|e| panic!("case {case} {vd}->{dtype} {shape:?}: {e}"));
    }
    let mut dev = Dev::new();
    let s = dev.zeros(F32, &[2, 2]);
    let two = dev.zeros(F32, &[2]);
    let m = dev.zeros(F32, &[1, 1]);
    let c = dev.zeros(C64, &[]);
    let u16s = dev.zeros(U16, &[2]);
    let one = dev.zeros(F32, &[]);
    for (k, (st, vt, what)) in [
        (s, two, "0D or 1D"),
        (s, m, "0D or 1D"),
        (s, c, "imaginary"),
        (u16s, one, "selfRef"),
    ]
    .into_iter()
    .enumerate()
    {
        let (code, msg) = call(
            |w, e| unsafe {
                ops::fill_tensor::aclnnInplaceFillTensorGetWorkspaceSize(st, vt, w, e)
            },
            ops::fill_tensor::aclnnInplaceFillTensor,
        )
        .expect_err(&format!("case {k}"));
        assert_eq!(code, INVALID, "case {k}: {msg}");
        assert!(
            msg.contains("aclnnInplaceFillTensor") && msg.contains(what),
            "case {k}: {msg}"
        );
    }
}

// ---------------------------------------------------------------------------------------
// ChannelShuffle
// ---------------------------------------------------------------------------------------

const CHANNEL_SHUFFLE: &[DType] = &[F16, F32, F64, S8, U8, S16, S32, S64, Bool, C64, C128, BF16];

#[test]
fn channel_shuffle_matches_the_group_formula() {
    let mut rng = Rng::new(1706);
    let mut torch = Batch::new();
    let mut sample = vec![];
    for case in 0..300 {
        let dtype = pick(&mut rng, CHANNEL_SHUFFLE);
        let rank = 3 + rng.below(5) as usize;
        let g = 1 + rng.below(4) as usize;
        let per = rng.below(4) as usize;
        let mut shape = rand_shape(&mut rng, rank, if rank > 4 { 2 } else { 4 }, 3);
        shape[1] = g * per;
        let c = views(&mut rng, dtype, &shape, dtype, &shape);
        let mut dev = Dev::new();
        let s = dev.upload(&c.sm);
        let st = dev.tensor(&c.sv, s, ND);
        let o = dev.upload(&c.om);
        let ot = dev.tensor(&c.ov, o, ND);
        call(
            |w, e| unsafe {
                ops::channel_shuffle::aclnnChannelShuffleGetWorkspaceSize(st, g as i64, ot, w, e)
            },
            ops::channel_shuffle::aclnnChannelShuffle,
        )
        .unwrap_or_else(|e| panic!("case {case} {shape:?} g {g}: {e:?}"));
        let got = dev.download(o);
        check_out("channel_shuffle", &c.ov, &got, |idx| {
            // out channel j*g + i is self channel i*per + j.
            let (j, i) = (idx[1] / g, idx[1] % g);
            let mut si = idx.to_vec();
            si[1] = i * per + j;
            canon(dtype, c.sv.elem(&c.sm, c.sv.at(&si)))
        })
        .and_then(|_| untouched(&c.ov, &c.om, &got))
        .unwrap_or_else(|e| panic!("case {case} {dtype} {shape:?} g {g}: {e}"));
        if sample.len() < 30 && dtype == F32 && !shape.contains(&0) {
            let p = torch.program("out = torch.channel_shuffle(a[0], a[1].item())");
            torch.case(p, vec![Some(c.sv.array(&c.sm)), Some(Array::int(g as i64))]);
            sample.push((c.ov.clone(), got));
        }
    }
    if let Some(res) = torch.run("channel_shuffle") {
        for (k, (ov, got)) in sample.iter().enumerate() {
            let t = res[k].as_ref().expect("torch raised");
            assert_eq!(t[0].bytes, ov.array(got).bytes, "torch case {k}");
        }
    }
    let mut dev = Dev::new();
    let x = dev.zeros(F32, &[2, 6, 3]);
    let x2 = dev.zeros(F32, &[2, 6]);
    let o2 = dev.zeros(F32, &[2, 6]);
    let o = dev.zeros(F32, &[2, 6, 3]);
    let bad = dev.zeros(F32, &[2, 3, 6]);
    let h = dev.zeros(F16, &[2, 6, 3]);
    for (k, (st, g, ot, what)) in [
        (x, 0, o, "positive"),
        (x, 4, o, "divide"),
        (x2, 2, o2, "3 to 7"),
        (x, 2, bad, "out"),
        (x, 2, h, "dtype"),
    ]
    .into_iter()
    .enumerate()
    {
        let (code, msg) = call(
            |w, e| unsafe {
                ops::channel_shuffle::aclnnChannelShuffleGetWorkspaceSize(st, g, ot, w, e)
            },
            ops::channel_shuffle::aclnnChannelShuffle,
        )
        .expect_err(&format!("case {k}"));
        assert_eq!(code, INVALID, "case {k}: {msg}");
        assert!(
            msg.contains("aclnnChannelShuffle") && msg.contains(what),
            "case {k}: {msg}"
        );
    }
}

// ---------------------------------------------------------------------------------------
// ConfusionTranspose
// ---------------------------------------------------------------------------------------

const CONFUSION: &[DType] = &[S8, S16, S32, S64, U8, U16, U32, U64, F16, F32, BF16];

/// A random factorisation of `n` into `k` sizes (k >= 1).
fn factor(rng: &mut Rng, mut n: usize, k: usize) -> Vec<usize> {
    let mut v = vec![1; k];
    if n == 0 {
        v[rng.below(k as u64) as usize] = 0;
        for x in v.iter_mut() {
            if *x == 1 {
                *x = 1 + rng.below(3) as usize;
            }
        }
        return v;
    }
    let mut p = 2;
    while n > 1 {
        while n % p == 0 {
            v[rng.below(k as u64) as usize] *= p;
            n /= p;
        }
        p += 1;
    }
    v
}

fn random_perm(rng: &mut Rng, k: usize) -> Vec<usize> {
    let mut p: Vec<usize> = (0..k).collect();
    for i in (1..k).rev() {
        p.swap(i, rng.below(i as u64 + 1) as usize);
    }
    p
}

#[test]
fn confusion_transpose_is_reshape_and_permute() {
    let mut rng = Rng::new(1707);
    let mut torch = Batch::new();
    let mut sample = vec![];
    for case in 0..400 {
        let dtype = pick(&mut rng, CONFUSION);
        let first = rng.pct(50);
        let xr = 1 + rng.below(4) as usize;
        let xshape = rand_shape(&mut rng, xr, 6, 3);
        let n: usize = xshape.iter().product();
        let sr = 1 + rng.below(4) as usize;
        let shape = if rng.pct(30) {
            xshape.clone()
        } else {
            factor(&mut rng, n, sr)
        };
        if shape.iter().product::<usize>() != n {
            continue;
        }
        let perm = random_perm(&mut rng, if first { xr } else { shape.len() });
        // The reference: y = transpose(reshape(x)) or reshape(transpose(x)).
        let (oshape, src_of): (Vec<usize>, Box<dyn Fn(&[usize]) -> Vec<usize>>) = if first {
            let pshape: Vec<usize> = perm.iter().map(|&a| xshape[a]).collect();
            let (xs, ps, pm) = (xshape.clone(), pshape.clone(), perm.clone());
            let sh = shape.clone();
            (
                shape.clone(),
                Box::new(move |idx: &[usize]| {
                    let pi = unflat(&ps, flat(&sh, idx));
                    let mut xi = vec![0; xs.len()];
                    for (i, &a) in pm.iter().enumerate() {
                        xi[a] = pi[i];
                    }
                    xi
                }),
            )
        } else {
            let o: Vec<usize> = perm.iter().map(|&a| shape[a]).collect();
            let (xs, sh, pm) = (xshape.clone(), shape.clone(), perm.clone());
            (
                o,
                Box::new(move |idx: &[usize]| {
                    let mut ri = vec![0; sh.len()];
                    for (i, &a) in pm.iter().enumerate() {
                        ri[a] = idx[i];
                    }
                    unflat(&xs, flat(&sh, &ri))
                }),
            )
        };
        let c = views(&mut rng, dtype, &xshape, dtype, &oshape);
        let mut dev = Dev::new();
        let s = dev.upload(&c.sm);
        let st = dev.tensor(&c.sv, s, ND);
        let o = dev.upload(&c.om);
        let ot = dev.tensor(&c.ov, o, ND);
        let pa = dev.ints(&perm.iter().map(|&p| p as i64).collect::<Vec<_>>());
        let sa = dev.ints(&shape.iter().map(|&p| p as i64).collect::<Vec<_>>());
        call(
            |w, e| unsafe {
                ops::confusion_transpose::aclnnConfusionTransposeGetWorkspaceSize(
                    st, pa, sa, first, ot, w, e,
                )
            },
            ops::confusion_transpose::aclnnConfusionTranspose,
        )
        .unwrap_or_else(|e| panic!("case {case} {xshape:?} {shape:?} {perm:?}: {e:?}"));
        let got = dev.download(o);
        check_out("confusion_transpose", &c.ov, &got, |idx| {
            canon(dtype, c.sv.elem(&c.sm, c.sv.at(&src_of(idx))))
        })
        .and_then(|_| untouched(&c.ov, &c.om, &got))
        .unwrap_or_else(|e| {
            panic!(
                "case {case} {dtype} x {xshape:?} shape {shape:?} perm {perm:?} first {first}: {e}"
            )
        });
        if sample.len() < 40 && dtype == F32 {
            let p = torch.program(if first {
                "out = a[0].permute(*a[1].tolist()).reshape(*a[2].tolist())"
            } else {
                "out = a[0].reshape(*a[2].tolist()).permute(*a[1].tolist())"
            });
            let pl: Vec<i64> = perm.iter().map(|&p| p as i64).collect();
            let sl: Vec<i64> = shape.iter().map(|&p| p as i64).collect();
            torch.case(
                p,
                vec![
                    Some(c.sv.array(&c.sm)),
                    Some(Array::i64s(&[pl.len()], &pl)),
                    Some(Array::i64s(&[sl.len()], &sl)),
                ],
            );
            sample.push((c.ov.clone(), got));
        }
    }
    if let Some(res) = torch.run("confusion_transpose") {
        for (k, (ov, got)) in sample.iter().enumerate() {
            let t = res[k].as_ref().expect("torch raised");
            assert_eq!(t[0].shape, ov.shape, "torch case {k}");
            assert_eq!(t[0].bytes, ov.array(got).bytes, "torch case {k}");
        }
    }
}

#[test]
fn confusion_transpose_refusals() {
    let mut dev = Dev::new();
    let x = dev.zeros(F32, &[2, 3, 4]);
    let o = dev.zeros(F32, &[4, 6]);
    let d = dev.zeros(F64, &[2, 3, 4]);
    let od = dev.zeros(F64, &[4, 6]);
    let oh = dev.zeros(F16, &[4, 6]);
    let cases: Vec<(_, Vec<i64>, Vec<i64>, bool, _, &str)> = vec![
        (x, vec![1, 0], vec![6, 4], false, o, ""),
        (x, vec![1, 0], vec![5, 4], false, o, "elements"),
        (x, vec![1, 1], vec![6, 4], false, o, "permutation"),
        (x, vec![1, 0], vec![6, 4], true, o, "perm"),
        (x, vec![1, 0], vec![6, 4], false, oh, "dtype"),
        (d, vec![1, 0], vec![6, 4], false, od, "x"),
        (x, vec![0, 1], vec![6, 4], false, o, "out"),
    ];
    for (k, (xt, perm, shape, first, ot, what)) in cases.into_iter().enumerate() {
        let (pa, sa) = (dev.ints(&perm), dev.ints(&shape));
        let r = call(
            |w, e| unsafe {
                ops::confusion_transpose::aclnnConfusionTransposeGetWorkspaceSize(
                    xt, pa, sa, first, ot, w, e,
                )
            },
            ops::confusion_transpose::aclnnConfusionTranspose,
        );
        if what.is_empty() {
            r.unwrap_or_else(|e| panic!("case {k}: {e:?}"));
            continue;
        }
        let (code, msg) = r.expect_err(&format!("case {k}"));
        assert_eq!(code, INVALID, "case {k}: {msg}");
        assert!(
            msg.contains("aclnnConfusionTranspose") && msg.contains(what),
            "case {k}: {msg}"
        );
    }
}

// ---------------------------------------------------------------------------------------
// StridedSlice, StridedSliceAssignV2
// ---------------------------------------------------------------------------------------

/// StridedSlice's dtypes NumPy indexes (the reference), of the operator's list.
const STRIDED: &[DType] = &[F16, F32, S32, U8, Bool, S8, S16, S64, C64];

/// NumPy's basic indexing, which TensorFlow's StridedSlice spec mirrors: the spec
/// (begin, end, strides, then the five masks) becomes a Python index tuple.
const NUMPY_SLICE: &str = "x = a[0].numpy()
s = a[1].tolist()
n = (len(s) - 5) // 3
b, e, st = s[:n], s[n:2 * n], s[2 * n:3 * n]
bm, em, el, nm, sm = s[3 * n:]
idx = []
for i in range(n):
    if (el >> i) & 1:
        idx.append(Ellipsis)
    elif (nm >> i) & 1:
        idx.append(None)
    elif (sm >> i) & 1:
        idx.append(b[i])
    else:
        idx.append(slice(None if (bm >> i) & 1 else b[i], None if (em >> i) & 1 else e[i], st[i]))
out = torch.from_numpy(np.array(x[tuple(idx)]))";

#[test]
fn strided_slice_matches_numpy_indexing() {
    let mut rng = Rng::new(1708);
    let mut torch = Batch::new();
    let mut runs = vec![];
    for case in 0..400 {
        let dtype = pick(&mut rng, STRIDED);
        let rank = rng.below(5) as usize;
        let shape = rand_shape(&mut rng, rank, 6, 4);
        let n = rng.below(rank as u64 + 3) as usize;
        let (mut b, mut e, mut st) = (vec![], vec![], vec![]);
        let (mut bm, mut em, mut el, mut nm, mut sm) = (0i64, 0i64, 0i64, 0i64, 0i64);
        let ellipsis = if n > 0 && rng.pct(30) {
            Some(rng.below(n as u64) as usize)
        } else {
            None
        };
        let mut named = 0;
        for i in 0..n {
            let mut s = rng.below(7) as i64 - 3;
            if s == 0 {
                s = 1;
            }
            b.push(rng.below(17) as i64 - 8);
            e.push(rng.below(17) as i64 - 8);
            if Some(i) == ellipsis {
                el |= 1 << i;
                st.push(1);
                continue;
            }
            // Names at most rank dims; the rest are new axes.
            if (named >= rank || rng.pct(15)) && (nm.count_ones() as usize) + rank < 8 {
                nm |= 1 << i;
                st.push(s);
                continue;
            }
            let dim = if ellipsis.is_some_and(|p| i > p) {
                // After the ellipsis, dims are counted from the end.
                let after: usize = (i + 1..n).count();
                rank.saturating_sub(after + 1).max(named)
            } else {
                named
            };
            named += 1;
            if rng.pct(15) && shape.get(dim).is_some_and(|&d| d > 0) {
                sm |= 1 << i;
                let d = shape[dim] as i64;
                b[i] = rng.below(2 * d as u64) as i64 - d;
                st.push(1 + rng.below(2) as i64);
                continue;
            }
            if rng.pct(20) {
                bm |= 1 << i;
            }
            if rng.pct(20) {
                em |= 1 << i;
            }
            st.push(s);
        }
        let masks = [bm, em, el, nm, sm];
        let mut spec = b.clone();
        spec.extend(&e);
        spec.extend(&st);
        spec.extend(masks);
        let sv = View::random(&mut rng, dtype, &shape);
        let sm_ = fill(&mut rng, &sv);
        let p = torch.program(NUMPY_SLICE);
        torch.case(
            p,
            vec![
                Some(sv.array(&sm_)),
                Some(Array::i64s(&[spec.len()], &spec)),
            ],
        );
        runs.push((case, dtype, shape, sv, sm_, b, e, st, masks));
    }
    let Some(res) = torch.run("strided_slice") else {
        return;
    };
    let mut checked = 0;
    for (k, (case, dtype, shape, sv, sm_, b, e, st, masks)) in runs.into_iter().enumerate() {
        let mut dev = Dev::new();
        let s = dev.upload(&sm_);
        let stt = dev.tensor(&sv, s, ND);
        let (ba, ea, sa) = (dev.ints(&b), dev.ints(&e), dev.ints(&st));
        let want = match &res[k] {
            Ok(t) => t[0].clone(),
            Err(why) => {
                // NumPy refused the spec (an index past a dim): so must the operator.
                let o = dev.zeros(dtype, &[1]);
                let r = call(
                    |w, x| unsafe {
                        ops::strided_slice::aclnnStridedSliceGetWorkspaceSize(
                            stt, ba, ea, sa, masks[0], masks[1], masks[2], masks[3], masks[4], o,
                            w, x,
                        )
                    },
                    ops::strided_slice::aclnnStridedSlice,
                );
                assert_eq!(
                    r.map_err(|e| e.0),
                    Err(INVALID),
                    "case {case} {shape:?} {b:?} {e:?} {st:?} {masks:?}: numpy raised {why}"
                );
                continue;
            }
        };
        let ov = View::random(&mut rng, dtype, &want.shape);
        let om = fill(&mut rng, &ov);
        let o = dev.upload(&om);
        let ot = dev.tensor(&ov, o, ND);
        call(
            |w, x| unsafe {
                ops::strided_slice::aclnnStridedSliceGetWorkspaceSize(
                    stt, ba, ea, sa, masks[0], masks[1], masks[2], masks[3], masks[4], ot, w, x,
                )
            },
            ops::strided_slice::aclnnStridedSlice,
        )
        .unwrap_or_else(|er| {
            panic!("case {case} {shape:?} b {b:?} e {e:?} s {st:?} masks {masks:?}: {er:?}")
        });
        let got = dev.download(o);
        assert_eq!(
            ov.array(&got).bytes,
            want.bytes,
            "case {case} {dtype} {shape:?} b {b:?} e {e:?} s {st:?} masks {masks:?}"
        );
        untouched(&ov, &om, &got).unwrap_or_else(|er| panic!("case {case}: {er}"));
        checked += 1;
    }
    assert!(checked > 300, "only {checked} cases ran");
}

#[test]
fn strided_slice_fixed_cases_and_refusals() {
    // x = arange(24).reshape(2, 3, 4) as i32.
    let xs: Vec<u8> = (0..24i32).flat_map(|v| v.to_le_bytes()).collect();
    let xv = View::contiguous(S32, &[2, 3, 4]);
    let run = |b: &[i64], e: &[i64], s: &[i64], masks: [i64; 5], oshape: &[usize]| {
        let mut dev = Dev::new();
        let m = dev.upload(&xs);
        let x = dev.tensor(&xv, m, ND);
        let ov = View::contiguous(S32, oshape);
        let om = dev.upload(&vec![0u8; ov.bytes()]);
        let o = dev.tensor(&ov, om, ND);
        let (ba, ea, sa) = (dev.ints(b), dev.ints(e), dev.ints(s));
        let r = call(
            |w, x2| unsafe {
                ops::strided_slice::aclnnStridedSliceGetWorkspaceSize(
                    x, ba, ea, sa, masks[0], masks[1], masks[2], masks[3], masks[4], o, w, x2,
                )
            },
            ops::strided_slice::aclnnStridedSlice,
        );
        r.map(|_| {
            dev.download(om)
                .chunks(4)
                .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
                .collect::<Vec<i32>>()
        })
    };
    // x[1, ::-2, 1:3] (shrink dim 0, reversed stride 2 on dim 1).
    assert_eq!(
        run(
            &[1, 0, 1],
            &[2, 0, 3],
            &[1, -2, 1],
            [0b010, 0b010, 0, 0, 0b001],
            &[2, 2]
        )
        .unwrap(),
        vec![21, 22, 13, 14]
    );
    // x[..., None, -1]: ellipsis, new axis, shrink of the last dim.
    assert_eq!(
        run(
            &[0, 0, -1],
            &[0, 0, 0],
            &[1, 1, 1],
            [0, 0, 0b001, 0b010, 0b100],
            &[2, 3, 1]
        )
        .unwrap(),
        vec![3, 7, 11, 15, 19, 23]
    );
    let refusals: Vec<(Vec<i64>, Vec<i64>, Vec<i64>, [i64; 5], &str)> = vec![
        (vec![0], vec![1, 2], vec![1], [0; 5], "same length"),
        (vec![0], vec![1], vec![0], [0; 5], "zero"),
        (
            vec![0, 0],
            vec![1, 1],
            vec![1, 1],
            [0, 0, 0b11, 0, 0],
            "multiple ellipses",
        ),
        (vec![0], vec![1], vec![-1], [0, 0, 0, 0, 1], "positive"),
        (vec![5], vec![6], vec![1], [0, 0, 0, 0, 1], "out of bounds"),
        (
            vec![0, 0, 0, 0],
            vec![1, 1, 1, 1],
            vec![1, 1, 1, 1],
            [0; 5],
            "names 4 dims",
        ),
        (vec![0], vec![1], vec![1], [0; 5], "out"),
    ];
    for (k, (b, e, s, masks, what)) in refusals.into_iter().enumerate() {
        let (code, msg) = run(&b, &e, &s, masks, &[9]).expect_err(&format!("case {k}"));
        assert_eq!(code, INVALID, "case {k}: {msg}");
        assert!(
            msg.contains("aclnnStridedSlice") && msg.contains(what),
            "case {k}: {msg}"
        );
    }
}

const ASSIGN: &[DType] = &[F16, F32, BF16, S32, S64, F64, S8];

#[test]
fn strided_slice_assign_v2_writes_the_slice_only() {
    let mut rng = Rng::new(1709);
    for case in 0..300 {
        let dtype = pick(&mut rng, ASSIGN);
        let rank = 1 + rng.below(4) as usize;
        let shape = rand_shape(&mut rng, rank, 6, 4);
        let with_axes = rng.pct(50);
        let axes: Vec<usize> = if with_axes {
            let mut a: Vec<usize> = (0..rank).filter(|_| rng.pct(60)).collect();
            for i in (1..a.len()).rev() {
                a.swap(i, rng.below(i as u64 + 1) as usize);
            }
            a
        } else {
            (0..rank).collect()
        };
        let (mut lo, mut step, mut len) = (vec![0i64; rank], vec![1i64; rank], shape.clone());
        let (mut b, mut e, mut s) = (vec![], vec![], vec![]);
        for &a in &axes {
            let n = shape[a] as i64;
            let bb = rng.below(2 * n as u64 + 5) as i64 - n - 2;
            let ee = rng.below(2 * n as u64 + 5) as i64 - n - 2;
            let ss = if a == rank - 1 {
                1
            } else {
                1 + rng.below(3) as i64
            };
            let norm = |x: i64| (if x < 0 { x + n } else { x }).clamp(0, n);
            let (l, h) = (norm(bb), norm(ee));
            lo[a] = l;
            step[a] = ss;
            len[a] = if h > l {
                ((h - l + ss - 1) / ss) as usize
            } else {
                0
            };
            b.push(bb);
            e.push(ee);
            s.push(ss);
        }
        let vv_shape = len.clone();
        let var = View::random(&mut rng, dtype, &shape);
        let val = View::random(&mut rng, dtype, &vv_shape);
        let (vm, im) = (fill(&mut rng, &var), fill(&mut rng, &val));
        let mut dev = Dev::new();
        let vmem = dev.upload(&vm);
        let vt = dev.tensor(&var, vmem, ND);
        let imem = dev.upload(&im);
        let it = dev.tensor(&val, imem, ND);
        let (ba, ea, sa) = (dev.ints(&b), dev.ints(&e), dev.ints(&s));
        let ax: Vec<i64> = axes
            .iter()
            .map(|&a| {
                if rng.pct(30) {
                    a as i64 - rank as i64
                } else {
                    a as i64
                }
            })
            .collect();
        let aa = if with_axes {
            dev.ints(&ax)
        } else {
            std::ptr::null_mut()
        };
        call(
            |w, x| unsafe {
                ops::strided_slice_assign_v2::aclnnStridedSliceAssignV2GetWorkspaceSize(
                    vt, it, ba, ea, sa, aa, w, x,
                )
            },
            ops::strided_slice_assign_v2::aclnnStridedSliceAssignV2,
        )
        .unwrap_or_else(|er| {
            panic!("case {case} {shape:?} b {b:?} e {e:?} s {s:?} axes {ax:?}: {er:?}")
        });
        let got = dev.download(vmem);
        check_out("strided_slice_assign_v2", &var, &got, |idx| {
            let mut vi = vec![0; rank];
            for a in 0..rank {
                let d = idx[a] as i64 - lo[a];
                if d < 0 || d % step[a] != 0 || (d / step[a]) as usize >= len[a] {
                    return var.elem(&vm, var.at(idx)).to_vec();
                }
                vi[a] = (d / step[a]) as usize;
            }
            val.elem(&im, val.at(&vi)).to_vec()
        })
        .and_then(|_| untouched(&var, &vm, &got))
        .unwrap_or_else(|er| {
            panic!("case {case} {dtype} {shape:?} b {b:?} e {e:?} s {s:?} axes {ax:?}: {er}")
        });
    }
    let mut dev = Dev::new();
    let v = dev.zeros(F32, &[4, 4]);
    let i22 = dev.zeros(F32, &[2, 2]);
    let i24 = dev.zeros(F32, &[2, 4]);
    let h22 = dev.zeros(F16, &[2, 2]);
    let u8v = dev.zeros(U8, &[4, 4]);
    let u8i = dev.zeros(U8, &[2, 2]);
    type C = (
        *mut crate::capi::meta::aclTensor,
        *mut crate::capi::meta::aclTensor,
        Vec<i64>,
        Vec<i64>,
        Vec<i64>,
        Option<Vec<i64>>,
        &'static str,
    );
    let cases: Vec<C> = vec![
        (v, i22, vec![0, 0], vec![2, 2], vec![1, 2], None, "last dim"),
        (v, i22, vec![0, 0], vec![2, 2], vec![0, 1], None, "positive"),
        (
            v,
            i22,
            vec![0, 0],
            vec![2, 2],
            vec![1, 1],
            Some(vec![0, 0]),
            "twice",
        ),
        (
            v,
            i22,
            vec![0, 0],
            vec![2, 2],
            vec![1, 1],
            Some(vec![0, 2]),
            "axesOptional",
        ),
        (v, i22, vec![0], vec![2], vec![1], None, "one per dim"),
        (v, i24, vec![0, 0], vec![2, 2], vec![1, 1], None, "shape"),
        (v, h22, vec![0, 0], vec![2, 2], vec![1, 1], None, "dtype"),
        (u8v, u8i, vec![0, 0], vec![2, 2], vec![1, 1], None, "varRef"),
    ];
    for (k, (vt, it, b, e, s, axes, what)) in cases.into_iter().enumerate() {
        let (ba, ea, sa) = (dev.ints(&b), dev.ints(&e), dev.ints(&s));
        let aa = axes.map_or(std::ptr::null_mut(), |a| dev.ints(&a));
        let (code, msg) = call(
            |w, x| unsafe {
                ops::strided_slice_assign_v2::aclnnStridedSliceAssignV2GetWorkspaceSize(
                    vt, it, ba, ea, sa, aa, w, x,
                )
            },
            ops::strided_slice_assign_v2::aclnnStridedSliceAssignV2,
        )
        .expect_err(&format!("case {k}"));
        assert_eq!(code, INVALID, "case {k}: {msg}");
        assert!(
            msg.contains("aclnnStridedSliceAssignV2") && msg.contains(what),
            "case {k}: {msg}"
        );
    }
}
