//! aclRfft1D and aclStft through their C entry points against torch 1.13 in f64
//! (`torch.fft.rfft`, pocketfft; `torch.stft(center=False)`): random shapes and views of
//! self and out (strided, transposed, offset), every dim (negative too), n cut, padded or
//! the dim's size, powers of two and primes up to 8192 (Bluestein plans), each norm; STFT
//! over f32/f64/c64/c128, batched or not, any nFft/hopLength/winLength, with and without a
//! window, normalized, onesided and both output forms. Bound: within 2^-23 (f32) or 2^-52
//! (f64) of |reference| plus 1e-12 of the case's largest output. A NaN in a line spreads
//! through its spectrum (which components it reaches is each algorithm's own). Also: storage outside out is not written, empty inputs, and
//! the documented refusals.

use super::add_diff::Rng;
use super::shape_diff::{call, Dev, View};
use super::torch_ref::{Array, Batch};
use crate::capi::ops::{acl_rfft1d::*, acl_stft::*};
use crate::dtype::DType;
use std::ptr::null_mut;

use DType::*;

const ND: i32 = 2;

/// `elems` elements' random components of `d` (two per complex element) as little-endian bytes.
fn random_bytes(rng: &mut Rng, d: DType, elems: usize) -> Vec<u8> {
    let comps = if d.is_complex() { 2 } else { 1 } * elems;
    let mut b = Vec::with_capacity(d.size() * elems);
    for _ in 0..comps {
        let x = (rng.below(8001) as f64 - 4000.0) / 1000.0;
        match d {
            F32 | C64 => b.extend_from_slice(&(x as f32).to_le_bytes()),
            _ => b.extend_from_slice(&x.to_le_bytes()),
        }
    }
    b
}

/// The components of an array as f64 (complex: re, im).
fn comps(a: &Array) -> Vec<f64> {
    let w = match a.dtype {
        F32 | C64 => 4,
        _ => 8,
    };
    a.bytes
        .chunks(w)
        .map(|c| {
            if w == 4 {
                f32::from_le_bytes(c.try_into().unwrap()) as f64
            } else {
                f64::from_le_bytes(c.try_into().unwrap())
            }
        })
        .collect()
}

/// Our result against torch's f64 one, within the stated bound.
fn check(what: &str, got: &Array, want: &Array) {
    let (g, w) = (comps(got), comps(want));
    assert_eq!(g.len(), w.len(), "{what}: component count");
    let rel = match got.dtype {
        F32 | C64 => (2f64).powi(-23),
        _ => (2f64).powi(-52),
    };
    let big = w
        .iter()
        .filter(|x| x.is_finite())
        .fold(0f64, |m, x| m.max(x.abs()));
    if w.iter().any(|x| x.is_nan()) {
        // Which components of a line a NaN reaches is the algorithm's (pocketfft, realfft
        // and the device's DFT product differ): some are NaN in both.
        assert!(
            g.iter().zip(&w).any(|(a, b)| a.is_nan() && b.is_nan()),
            "{what}: torch's spectrum has NaN, ours none where it has"
        );
    }
    for (i, (&a, &b)) in g.iter().zip(&w).enumerate() {
        if a.is_nan() || b.is_nan() {
            continue;
        }
        assert!(
            (a - b).abs() <= rel * b.abs() + 1e-12 * big,
            "{what}: component {i} is {a}, torch's {b} (largest {big})"
        );
    }
}

/// A view's storage outside its elements is as it was.
fn untouched_outside(what: &str, v: &View, before: &[u8], after: &[u8]) {
    let inside: std::collections::HashSet<usize> = v.indices().iter().map(|i| v.at(i)).collect();
    for p in 0..v.storage {
        if !inside.contains(&p) {
            assert_eq!(
                v.elem(before, p),
                v.elem(after, p),
                "{what}: storage element {p} outside out was written"
            );
        }
    }
}

#[test]
fn rfft1d_matches_torch() {
    let mut rng = Rng::new(0xff71);
    let mut batch = Batch::new();
    let prog = batch.program(
        "n = a[1].item()\n\
         norm = ['backward', 'forward', 'ortho'][a[3].item() - 1]\n\
         out = torch.view_as_real(torch.fft.rfft(a[0].double(), n=None if n == -1 else n, dim=a[2].item(), norm=norm))",
    );
    let mut cases = vec![];
    for case in 0..90 {
        let rank = 1 + rng.below(4) as usize;
        let mut shape: Vec<usize> = (0..rank).map(|_| 1 + rng.below(5) as usize).collect();
        let axis = rng.below(rank as u64) as usize;
        shape[axis] = match rng.below(6) {
            0 => 1 + rng.below(8) as usize,
            1 => [64, 100, 128, 257, 1000, 4096, 4097, 8192][rng.below(8) as usize],
            _ => 1 + rng.below(60) as usize,
        };
        if shape.iter().product::<usize>() > 40_000 {
            shape = vec![shape[axis]];
        }
        let (rank, axis) = if shape.len() == 1 {
            (1, 0)
        } else {
            (rank, axis)
        };
        let len = shape[axis];
        let n: i64 = match rng.below(4) {
            0 => -1,
            1 => 1 + rng.below(2 * len as u64 + 3) as i64,
            2 => [1, 2, 7, 31, 512, 4099][rng.below(6) as usize],
            _ => len as i64,
        };
        let nn = if n == -1 { len } else { n as usize };
        let dim = if rng.pct(40) {
            axis as i64 - rank as i64
        } else {
            axis as i64
        };
        let norm = 1 + rng.below(3) as i64;
        let sv = View::random(&mut rng, F32, &shape);
        let mut smem = random_bytes(&mut rng, F32, sv.storage);
        if case % 9 == 4 {
            let idx = sv.indices();
            let at = sv.at(&idx[rng.below(idx.len() as u64) as usize]);
            smem[at * 4..at * 4 + 4].copy_from_slice(&f32::NAN.to_le_bytes());
        }
        let mut oshape = shape.clone();
        oshape[axis] = nn / 2 + 1;
        oshape.push(2);
        let ov = View::random(&mut rng, F32, &oshape);
        let omem = random_bytes(&mut rng, F32, ov.storage);
        let mut dev = Dev::new();
        let (sm, om) = (dev.upload(&smem), dev.upload(&omem));
        let (ts, to) = (dev.tensor(&sv, sm, ND), dev.tensor(&ov, om, ND));
        let what = format!("case {case}: self {shape:?} n {n} dim {dim} norm {norm}");
        call(
            |ws, ex| unsafe { aclRfft1DGetWorkspaceSize(ts, n, dim, norm, to, ws, ex) },
            aclRfft1D,
        )
        .unwrap_or_else(|(st, e)| panic!("{what}: {st} {e}"));
        let after = dev.download(om);
        untouched_outside(&what, &ov, &omem, &after);
        batch.case(
            prog,
            vec![
                Some(sv.array(&smem)),
                Some(Array::i64s(&[1], &[n])),
                Some(Array::i64s(&[1], &[dim])),
                Some(Array::i64s(&[1], &[norm])),
            ],
        );
        cases.push((what, ov.array(&after)));
    }
    let Some(results) = batch.run("aclRfft1D") else {
        return;
    };
    for ((what, got), r) in cases.iter().zip(results) {
        let want = r.unwrap_or_else(|e| panic!("{what}: torch failed: {e}"));
        check(what, got, &want[0]);
    }
}

#[test]
fn stft_matches_torch() {
    let mut rng = Rng::new(0xff72);
    let mut batch = Batch::new();
    let prog = batch.program(
        "x, w, p = a[0], a[1], a[2].tolist()\n\
         x = x.to(torch.complex128) if x.is_complex() else x.double()\n\
         if w is not None:\n    w = w.to(torch.complex128) if w.is_complex() else w.double()\n\
         r = torch.stft(x, int(p[0]), hop_length=int(p[1]), win_length=int(p[2]), window=w, center=False, normalized=bool(p[3]), onesided=bool(p[4]), return_complex=True)\n\
         out = r if p[5] else torch.view_as_real(r)",
    );
    let mut cases = vec![];
    for case in 0..80 {
        let d = [F32, F64, C64, C128][case % 4];
        let batched = rng.pct(50);
        let (n_fft, hop) = if case == 7 {
            (400usize, 160usize)
        } else {
            (1 + rng.below(48) as usize, 1 + rng.below(12) as usize)
        };
        let win = 1 + rng.below(n_fft as u64) as usize;
        let len = n_fft + rng.below(60) as usize;
        let b = 1 + rng.below(3) as usize;
        let normalized = rng.pct(50);
        let onesided = !d.is_complex() && rng.pct(60);
        let return_complex = rng.pct(50);
        let with_window = rng.pct(70);
        let shape = if batched { vec![b, len] } else { vec![len] };
        let frames = (len - n_fft) / hop + 1;
        let bins = if onesided { n_fft / 2 + 1 } else { n_fft };
        let mut oshape = if batched {
            vec![b, bins, frames]
        } else {
            vec![bins, frames]
        };
        let od = match (d, return_complex) {
            (F32 | C64, true) => C64,
            (F64 | C128, true) => C128,
            (F32 | C64, false) => F32,
            _ => F64,
        };
        if !return_complex {
            oshape.push(2);
        }
        let sv = View::random(&mut rng, d, &shape);
        let smem = random_bytes(&mut rng, d, sv.storage);
        let wv = View::random(&mut rng, d, &[win]);
        let wmem = random_bytes(&mut rng, d, wv.storage);
        let ov = View::random(&mut rng, od, &oshape);
        let omem = random_bytes(&mut rng, od, ov.storage);
        let mut dev = Dev::new();
        let (sm, wm, om) = (dev.upload(&smem), dev.upload(&wmem), dev.upload(&omem));
        let ts = dev.tensor(&sv, sm, ND);
        let tw = if with_window {
            dev.tensor(&wv, wm, ND)
        } else {
            null_mut()
        };
        let to = dev.tensor(&ov, om, ND);
        let what = format!(
            "case {case}: {d} {shape:?} nFft {n_fft} hop {hop} win {win} window {with_window} normalized {normalized} onesided {onesided} complex {return_complex}"
        );
        call(
            |ws, ex| unsafe {
                aclStftGetWorkspaceSize(
                    ts,
                    tw,
                    to,
                    n_fft as i64,
                    hop as i64,
                    win as i64,
                    normalized,
                    onesided,
                    return_complex,
                    ws,
                    ex,
                )
            },
            aclStft,
        )
        .unwrap_or_else(|(st, e)| panic!("{what}: {st} {e}"));
        let after = dev.download(om);
        untouched_outside(&what, &ov, &omem, &after);
        let params = [
            n_fft as f64,
            hop as f64,
            win as f64,
            normalized as u8 as f64,
            onesided as u8 as f64,
            return_complex as u8 as f64,
        ];
        batch.case(
            prog,
            vec![
                Some(sv.array(&smem)),
                with_window.then(|| wv.array(&wmem)),
                Some(Array::f64s(&[6], &params)),
            ],
        );
        cases.push((what, ov.array(&after)));
    }
    let Some(results) = batch.run("aclStft") else {
        return;
    };
    for ((what, got), r) in cases.iter().zip(results) {
        let want = r.unwrap_or_else(|e| panic!("{what}: torch failed: {e}"));
        check(what, got, &want[0]);
    }
}

#[test]
fn fft_empty_inputs_write_nothing() {
    let mut dev = Dev::new();
    // aclRfft1D returns before checking anything else when self is empty.
    let e = View::contiguous(F32, &[3, 0]);
    let em = dev.upload(&[]);
    let te = dev.tensor(&e, em, ND);
    let ov = View::contiguous(F32, &[2]);
    let om = dev.upload(&[7u8; 8]);
    let to = dev.tensor(&ov, om, ND);
    call(
        |ws, ex| unsafe { aclRfft1DGetWorkspaceSize(te, 99, 5, 7, to, ws, ex) },
        aclRfft1D,
    )
    .unwrap();
    assert_eq!(dev.download(om), vec![7u8; 8]);
    // aclStft with no signals: B = 0.
    let s = View::contiguous(F32, &[0, 8]);
    let sm = dev.upload(&[]);
    let ts = dev.tensor(&s, sm, ND);
    let o = View::contiguous(C64, &[0, 5, 1]);
    let om2 = dev.upload(&[]);
    let to2 = dev.tensor(&o, om2, ND);
    call(
        |ws, ex| unsafe {
            aclStftGetWorkspaceSize(ts, null_mut(), to2, 8, 4, 8, false, true, true, ws, ex)
        },
        aclStft,
    )
    .unwrap();
}

#[test]
fn fft_refuses_bad_calls_with_a_message() {
    let mut dev = Dev::new();
    let mut t = |d: DType, shape: &[usize]| {
        let v = View::contiguous(d, shape);
        let m = dev.upload(&vec![0u8; v.bytes()]);
        dev.tensor(&v, m, ND)
    };
    let x = t(F32, &[4, 8]);
    let out = t(F32, &[4, 5, 2]);
    let x64 = t(F64, &[4, 8]);
    let bad_out = t(F32, &[4, 4, 2]);
    let out_c = t(C64, &[4, 5]);
    let d8 = t(F32, &[1, 1, 1, 1, 1, 1, 1, 8]);
    let rf = |s, n, dim, norm, o| -> (i32, String) {
        call(
            |ws, ex| unsafe { aclRfft1DGetWorkspaceSize(s, n, dim, norm, o, ws, ex) },
            aclRfft1D,
        )
        .unwrap_err()
    };
    let expect = |(st, e): (i32, String), code: i32, words: &[&str]| {
        assert_eq!(st, code, "{e}");
        for w in words {
            assert!(e.contains(w), "'{w}' not in: {e}");
        }
    };
    expect(rf(null_mut(), -1, 1, 1, out), 161001, &[]);
    expect(rf(x, -1, 1, 1, null_mut()), 161001, &[]);
    expect(rf(x64, -1, 1, 1, out), 161002, &["self", "dtype"]);
    expect(rf(d8, -1, 7, 1, out), 161002, &["self", "8 dims"]);
    expect(rf(x, 0, 1, 1, out), 161002, &["n is 0"]);
    expect(rf(x, 262_145, 1, 1, out), 161002, &["n is 262145"]);
    expect(rf(x, -1, 1, 4, out), 161002, &["norm is 4"]);
    expect(rf(x, -1, 2, 1, out), 161002, &["dim is 2", "[-2, 1]"]);
    expect(rf(x, -1, 1, 1, bad_out), 161002, &["out", "[4, 5, 2]"]);
    expect(rf(x, -1, 1, 1, out_c), 161002, &["out", "FLOAT"]);
    expect(rf(x, -1, 1, 1, x), 161002, &["out"]);
    // aclStft.
    let sig = t(F32, &[2, 16]);
    let win = t(F32, &[4]);
    let win64 = t(F64, &[4]);
    let cs = t(C64, &[16]);
    let o = t(C64, &[2, 5, 3]);
    let st = |s, w, o, n_fft: i64, hop: i64, wl: i64, one: bool, cplx: bool| -> (i32, String) {
        call(
            |ws, ex| unsafe {
                aclStftGetWorkspaceSize(s, w, o, n_fft, hop, wl, false, one, cplx, ws, ex)
            },
            aclStft,
        )
        .unwrap_err()
    };
    expect(st(null_mut(), win, o, 8, 3, 4, true, true), 161001, &[]);
    expect(st(sig, win, null_mut(), 8, 3, 4, true, true), 161001, &[]);
    expect(
        st(sig, win64, o, 8, 3, 4, true, true),
        161002,
        &["windowOptional", "dtype"],
    );
    expect(st(sig, win, o, 0, 3, 4, true, true), 161002, &["nFft is 0"]);
    expect(
        st(sig, win, o, 17, 3, 4, true, true),
        161002,
        &["less than nFft"],
    );
    expect(
        st(sig, win, o, 8, 0, 4, true, true),
        161002,
        &["hopLength is 0"],
    );
    expect(
        st(sig, win, o, 8, 3, 9, true, true),
        161002,
        &["winLength is 9"],
    );
    expect(
        st(sig, win, o, 8, 3, 5, true, true),
        161002,
        &["windowOptional", "[5]"],
    );
    expect(
        st(cs, null_mut(), o, 8, 3, 4, true, true),
        161002,
        &["onesided"],
    );
    expect(
        st(sig, win, o, 8, 2, 4, true, true),
        161002,
        &["out", "[2, 5, 5]"],
    );
    let o_real = t(F32, &[2, 5, 3, 2]);
    expect(
        st(sig, win, o_real, 8, 3, 4, true, true),
        161002,
        &["out", "[2, 5, 3]"],
    );
    let o_c128 = t(C128, &[2, 5, 3]);
    expect(
        st(sig, win, o_c128, 8, 3, 4, true, true),
        161002,
        &["out", "COMPLEX64"],
    );
}
