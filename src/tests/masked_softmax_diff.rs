//! The masked softmax family (src/ops/masked_softmax.rs) against torch 1.13: random shapes
//! (broadcast masks, every mask and bias form, empty leading dims where allowed), strided,
//! offset and transposed views, f32/f16/bf16, NaN and −inf, fully masked rows; nothing
//! outside the output's view written; the refusals (status and message words).
//!
//! References: ScaledMaskedSoftmax = torch.softmax (f32) of masked_fill(x·scale, mask,
//! −10000) with x·scale in f16 (scale rounded to f16) for f16, in f32 otherwise, cast to
//! the dtype; MaskedSoftmaxWithRelPosBias = torch.softmax (f32) of x·scale + mask + bias
//! in f32. Bound: ≤ 4 ulp in f32 (both round x − max to f32; torch's f32 exponentials and
//! sum then add up to 4 ulp over these cases, most within 1), ≤ 1 ulp in f16/bf16 (a double
//! rounding could differ; over these cases every f16/bf16 element is torch's bit for bit). The backward is
//! compared bit for bit with torch's f32 ops summing Σ(dy·y) in the order of CANN's
//! reference executor.

use super::add_diff::Rng;
use super::llm_diff::{layout, out_unwritten, Buf, Layout};
use super::reduce_diff::run;
use super::torch_ref::{Array, Batch};
use crate::dtype::DType::{self, *};
use crate::error::status;
use crate::ops::masked_softmax as ms;

/// A value on a 1/16 grid in [-8, 8), sometimes NaN or −inf.
fn value(rng: &mut Rng, specials: bool) -> f64 {
    if specials && rng.pct(2) {
        return rng.pick(&[f64::NAN, f64::NEG_INFINITY, -0.0]);
    }
    (rng.below(256) as f64 - 128.0) / 16.0
}

/// Distance in ulps of the dtype between two values exact in it (NaN = NaN: 0).
pub(super) fn ulps(d: DType, a: f64, b: f64) -> u64 {
    if a.is_nan() && b.is_nan() {
        return 0;
    }
    if a.is_nan() || b.is_nan() {
        return u64::MAX;
    }
    let key = |v: f64| -> i64 {
        let (bits, sign) = match d {
            F32 => ((v as f32).to_bits() as i64, 1i64 << 31),
            F16 => (half::f16::from_f64(v).to_bits() as i64, 1 << 15),
            _ => (half::bf16::from_f64(v).to_bits() as i64, 1 << 15),
        };
        if bits & sign != 0 {
            -(bits & (sign - 1))
        } else {
            bits
        }
    };
    key(a).abs_diff(key(b))
}

fn bound(d: DType) -> u64 {
    if d == F32 {
        4
    } else {
        1
    }
}

/// Checks each pending output against torch within `bound(d)` ulps (`exact`: bit for bit).
fn expect_torch(batch: &Batch, what: &str, pending: Vec<(String, usize, Buf)>, exact: bool) {
    let Some(results) = batch.run(what) else {
        return;
    };
    for (what, i, o) in pending {
        let want = results[i]
            .as_ref()
            .unwrap_or_else(|e| panic!("{what}: torch: {e}"));
        let w = to_f64s(&want[0]);
        let g = o.values();
        assert_eq!(g.len(), w.len(), "{what}: element count");
        for (k, (a, b)) in g.iter().zip(&w).enumerate() {
            let d = ulps(o.d, *a, *b);
            let ok = if exact {
                a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
            } else {
                d <= bound(o.d)
            };
            assert!(ok, "{what}: element {k}: got {a}, torch {b} ({d} ulp)");
        }
    }
}

fn to_f64s(a: &Array) -> Vec<f64> {
    a.to_f64s()
}

fn scale_array(s: f64) -> Option<Array> {
    Some(Array::f64s(&[1], &[s]))
}

fn pick_scale(rng: &mut Rng) -> f64 {
    rng.pick(&[1.0, 0.125, 0.3, -2.0, 0.0, 1.7, 1.0 + 1e-8, 0.0884])
}

/// A bool mask of `shape`: all true, all false or random.
fn mask_buf(rng: &mut Rng, shape: &[usize]) -> Buf {
    let p = rng.pick(&[0u64, 30, 100]);
    Buf::new(Bool, shape, layout(rng), || f64::from(rng.pct(p) as u8))
}

/// [B, N, S1, S2] and a mask shape broadcasting to it.
fn shapes_4d(rng: &mut Rng, allow_empty_s2: bool) -> (Vec<usize>, Vec<usize>) {
    let lead = |rng: &mut Rng| {
        if rng.pct(5) {
            0
        } else {
            1 + rng.below(3) as usize
        }
    };
    let s2 = if rng.pct(8) {
        rng.pick(&[1025, 1500, 4096])
    } else if allow_empty_s2 && rng.pct(3) {
        0
    } else {
        1 + rng.below(80) as usize
    };
    let x = vec![lead(rng), lead(rng), lead(rng), s2];
    let m = vec![
        if rng.pct(50) { 1 } else { x[0] },
        if rng.pct(50) { 1 } else { x[1] },
        x[2],
        x[3],
    ];
    (x, m)
}

const SCALED: &str = "\
x, m, s = a[0], a[1], a[2].item()
if x.dtype == torch.float16:
    v = x * torch.tensor(s, dtype=torch.float16)
elif x.dtype == torch.bfloat16:
    v = x.float() * torch.tensor(s, dtype=torch.float32)
else:
    v = x * torch.tensor(s, dtype=torch.float32)
v = v.masked_fill(m, -10000.0)
out = torch.softmax(v.float(), -1).to(x.dtype)";

#[test]
fn scaled_masked_softmax_matches_torch() {
    let mut rng = Rng::new(0x5afe);
    let mut batch = Batch::new();
    let prog = batch.program(SCALED);
    let mut pending = vec![];
    for case in 0..160 {
        let d = rng.pick(&[F32, F16, BF16]);
        let (xs, mshape) = shapes_4d(&mut rng, false);
        let scale = pick_scale(&mut rng);
        let big = xs[3] > 1024;
        let x = Buf::new(d, &xs, layout(&mut rng), || value(&mut rng, !big));
        let m = mask_buf(&mut rng, &mshape);
        let y = Buf::new(d, &xs, layout(&mut rng), || 7.0);
        let before = y.outside();
        run(&ms::scaled_masked_softmax(&x.desc(), &m.desc(), scale, false, &y.desc()).unwrap())
            .unwrap();
        let what = format!("case {case} {d} x {xs:?} mask {mshape:?} scale {scale}");
        out_unwritten(&what, &before, &y);
        if y.values().is_empty() {
            assert!(xs.contains(&0));
            continue;
        }
        let i = batch.case(
            prog,
            vec![Some(x.array()), Some(m.array()), scale_array(scale)],
        );
        pending.push((what, i, y));
    }
    expect_torch(&batch, "ScaledMaskedSoftmax", pending, false);
}

#[test]
fn scaled_masked_softmax_in_place() {
    // y may be x's own view: each row is read before it is written.
    let mut rng = Rng::new(7);
    let xs = [2, 3, 4, 33];
    let x = Buf::new(F32, &xs, Layout::Padded, || value(&mut rng, false));
    let m = mask_buf(&mut rng, &[1, 3, 4, 33]);
    let y = Buf::new(F32, &xs, Layout::Contiguous, || 0.0);
    run(&ms::scaled_masked_softmax(&x.desc(), &m.desc(), 0.5, false, &y.desc()).unwrap()).unwrap();
    run(&ms::scaled_masked_softmax(&x.desc(), &m.desc(), 0.5, false, &x.desc()).unwrap()).unwrap();
    assert_eq!(x.array().bytes, y.array().bytes);
}

const BACKWARD: &str = "\
dy, y, m, s = a[0], a[1], a[2], a[3].item()
dt = dy.dtype
dy, y = dy.float(), y.float()
L = y.shape[-1]
def tree(b):
    while b.shape[1] > 1:
        if b.shape[1] % 2 == 1:
            b = torch.cat([b, torch.zeros(b.shape[0], 1)], 1)
        b = b[:, 0::2] + b[:, 1::2]
    return b[:, 0]
t = dy * y
rows = t.reshape(-1, L)
if L <= 1024:
    P = (L + 63) // 64 * 64
    rows = torch.cat([rows, torch.zeros(rows.shape[0], P - L)], 1)
    blocks = torch.stack([tree(rows[:, i:i + 8]) for i in range(0, P, 8)], 1)
    lanes = blocks[:, 0:8].clone()
    for i in range(1, blocks.shape[1] // 8):
        lanes = lanes + blocks[:, i * 8:(i + 1) * 8]
    total = tree(lanes)
else:
    total = tree(torch.stack([tree(rows[:, i:i + 64]) for i in range(0, L, 64)], 1))
total = total.reshape(y.shape[:-1] + (1,))
g = (t - total * y) * torch.tensor(s, dtype=torch.float32)
out = g.masked_fill(m, 0.0).to(dt)";

#[test]
fn scaled_masked_softmax_backward_matches_torch_bit_for_bit() {
    let mut rng = Rng::new(0xbac4);
    let mut batch = Batch::new();
    let prog = batch.program(BACKWARD);
    let mut pending = vec![];
    for case in 0..160 {
        let d = rng.pick(&[F32, F16, BF16]);
        let (xs, mshape) = shapes_4d(&mut rng, true);
        let scale = pick_scale(&mut rng);
        let dy = Buf::new(d, &xs, layout(&mut rng), || value(&mut rng, true));
        // y: a softmax-like row of small positive values, sometimes special.
        let y = Buf::new(d, &xs, layout(&mut rng), || {
            if rng.pct(1) {
                f64::NAN
            } else {
                rng.below(64) as f64 / 256.0
            }
        });
        let m = mask_buf(&mut rng, &mshape);
        let out = Buf::new(d, &xs, layout(&mut rng), || 7.0);
        let before = out.outside();
        run(&ms::scaled_masked_softmax_backward(
            &dy.desc(),
            &y.desc(),
            &m.desc(),
            scale,
            false,
            &out.desc(),
        )
        .unwrap())
        .unwrap();
        let what = format!("case {case} {d} {xs:?} mask {mshape:?} scale {scale}");
        out_unwritten(&what, &before, &out);
        if xs.contains(&0) {
            assert!(out.values().is_empty());
            continue;
        }
        let i = batch.case(
            prog,
            vec![
                Some(dy.array()),
                Some(y.array()),
                Some(m.array()),
                scale_array(scale),
            ],
        );
        pending.push((what, i, out));
    }
    expect_torch(&batch, "ScaledMaskedSoftmaxBackward", pending, true);
}

const REL_POS: &str = "\
x, m, b, s = a[0], a[1], a[2], a[3].item()
v = x.float()
if abs(float(torch.tensor(s, dtype=torch.float32)) - 1.0) > torch.finfo(torch.float32).eps:
    v = v * torch.tensor(s, dtype=torch.float32)
B, W, N, S1, S2 = a[4].tolist()
v = v.reshape(B, W, N, S1, S2)
if m is not None:
    v = v + m.float().reshape(1, W, 1, S1, S2)
v = v + b.float().reshape(1, 1, N, S1, S2)
out = torch.softmax(v, -1).to(x.dtype).reshape(x.shape)";

#[test]
fn masked_softmax_with_rel_pos_bias_matches_torch() {
    let mut rng = Rng::new(0x5e1f);
    let mut batch = Batch::new();
    let prog = batch.program(REL_POS);
    let mut pending = vec![];
    for case in 0..160 {
        let d = rng.pick(&[F32, F16, BF16]);
        let dim = |rng: &mut Rng| 1 + rng.below(3) as usize;
        let (b, w, n, s1) = (dim(&mut rng), dim(&mut rng), dim(&mut rng), dim(&mut rng));
        let s2 = 1 + rng.below(70) as usize;
        let with_mask = rng.pct(75);
        let five = rng.pct(50);
        // A 4-D x without a mask has W = 1.
        let w = if with_mask || five { w } else { 1 };
        let xs = if five {
            vec![b, w, n, s1, s2]
        } else {
            vec![b * w, n, s1, s2]
        };
        let mshape = match rng.below(3) {
            0 => vec![w, s1, s2],
            1 => vec![w, 1, s1, s2],
            _ => vec![1, w, 1, s1, s2],
        };
        let bshape = match rng.below(3) {
            0 => vec![n, s1, s2],
            1 => vec![1, n, s1, s2],
            _ => vec![1, 1, n, s1, s2],
        };
        let scale = pick_scale(&mut rng);
        let x = Buf::new(d, &xs, layout(&mut rng), || value(&mut rng, true));
        let m = with_mask.then(|| {
            Buf::new(d, &mshape, layout(&mut rng), || {
                rng.pick(&[0.0, 0.0, -100.0, -3.5])
            })
        });
        let bias = Buf::new(d, &bshape, layout(&mut rng), || value(&mut rng, false));
        let out = Buf::new(d, &xs, layout(&mut rng), || 7.0);
        let before = out.outside();
        let mdesc = m.as_ref().map(|m| m.desc());
        run(&ms::masked_softmax_with_rel_pos_bias(
            &x.desc(),
            mdesc.as_ref(),
            &bias.desc(),
            scale,
            rng.below(2) as i64,
            &out.desc(),
        )
        .unwrap())
        .unwrap();
        let what = format!(
            "case {case} {d} x {xs:?} mask {:?} bias {bshape:?} scale {scale}",
            with_mask.then_some(&mshape)
        );
        out_unwritten(&what, &before, &out);
        let i = batch.case(
            prog,
            vec![
                Some(x.array()),
                m.as_ref().map(|m| m.array()),
                Some(bias.array()),
                scale_array(scale),
                Some(Array::i64s(
                    &[5],
                    &[b as i64, w as i64, n as i64, s1 as i64, s2 as i64],
                )),
            ],
        );
        pending.push((what, i, out));
    }
    expect_torch(&batch, "MaskedSoftmaxWithRelPosBias", pending, false);
}

/// The refusal's status and message, and that out was not touched.
pub(super) fn refused(r: crate::Result<crate::executor::Executor>, words: &[&str]) {
    match r {
        Ok(_) => panic!("accepted; expected a refusal naming {words:?}"),
        Err(e) => {
            let m = e.to_string();
            assert_eq!(e.status(), status::ACLNN_ERR_PARAM_INVALID, "{m}");
            for w in words {
                assert!(m.contains(w), "message {m:?} lacks {w:?}");
            }
        }
    }
}

pub(super) fn buf(d: DType, s: &[usize]) -> Buf {
    Buf::new(d, s, Layout::Contiguous, || 0.5)
}

#[test]
fn scaled_masked_softmax_refusals() {
    let x = buf(F32, &[2, 3, 4, 8]);
    let m = buf(Bool, &[2, 1, 4, 8]);
    let y = buf(F32, &[2, 3, 4, 8]);
    let f = |x: &Buf, m: &Buf, triu: bool, y: &Buf| {
        let before = y.array().bytes;
        let r = ms::scaled_masked_softmax(&x.desc(), &m.desc(), 1.0, triu, &y.desc());
        assert_eq!(before, y.array().bytes);
        r
    };
    assert!(f(&x, &m, false, &y).is_ok());
    refused(f(&x, &m, true, &y), &["fixedTriuMask", "false"]);
    refused(
        f(&buf(F64, &[2, 3, 4, 8]), &m, false, &y),
        &["'x'", "dtype"],
    );
    refused(
        f(&x, &buf(U8, &[2, 1, 4, 8]), false, &y),
        &["'mask'", "dtype"],
    );
    refused(
        f(&x, &m, false, &buf(F16, &[2, 3, 4, 8])),
        &["y", "x's dtype"],
    );
    refused(f(&buf(F32, &[3, 4, 8]), &m, false, &y), &["x", "4-D"]);
    refused(f(&x, &buf(Bool, &[4, 8]), false, &y), &["mask", "4-D"]);
    refused(
        f(&x, &buf(Bool, &[3, 1, 4, 8]), false, &y),
        &["broadcast", "first"],
    );
    refused(
        f(&x, &buf(Bool, &[2, 2, 4, 8]), false, &y),
        &["broadcast", "second"],
    );
    refused(
        f(&x, &buf(Bool, &[2, 3, 1, 8]), false, &y),
        &["last two dims"],
    );
    refused(f(&x, &m, false, &buf(F32, &[2, 3, 4, 9])), &["y", "shape"]);
    let wide = buf(F32, &[1, 1, 1, 4097]);
    refused(
        f(&wide, &buf(Bool, &[1, 1, 1, 4097]), false, &wide),
        &["4096"],
    );
    let empty = buf(F32, &[1, 1, 1, 0]);
    refused(
        f(&empty, &buf(Bool, &[1, 1, 1, 0]), false, &empty),
        &["(0, 4096]"],
    );
    // Overlap: y the view of x's storage shifted by one element.
    let xd = x.desc();
    let dims: Vec<i64> = xd.shape.iter().map(|&d| d as i64).collect();
    let st: Vec<i64> = xd.strides.iter().map(|&s| s as i64).collect();
    let storage = [xd.storage_shape[0] as i64];
    let yd = crate::tensor::TensorDesc::new(&dims, F32 as i32, Some(&st), 1, 2, &storage, xd.addr)
        .unwrap();
    refused(
        ms::scaled_masked_softmax(&xd, &m.desc(), 1.0, false, &yd),
        &["overlaps x"],
    );
}

#[test]
fn scaled_masked_softmax_backward_refusals() {
    let g = buf(F16, &[2, 3, 4, 8]);
    let y = buf(F16, &[2, 3, 4, 8]);
    let m = buf(Bool, &[1, 3, 4, 8]);
    let o = buf(F16, &[2, 3, 4, 8]);
    let f = |g: &Buf, y: &Buf, m: &Buf, triu: bool, o: &Buf| {
        let before = o.array().bytes;
        let r = ms::scaled_masked_softmax_backward(
            &g.desc(),
            &y.desc(),
            &m.desc(),
            2.0,
            triu,
            &o.desc(),
        );
        assert_eq!(before, o.array().bytes);
        r
    };
    assert!(f(&g, &y, &m, false, &o).is_ok());
    // The op_api allows S2 = 0 (an empty tensor: nothing to do).
    let e = buf(F16, &[2, 3, 4, 0]);
    assert!(f(
        &e,
        &e,
        &buf(Bool, &[2, 3, 4, 0]),
        false,
        &buf(F16, &[2, 3, 4, 0])
    )
    .is_ok());
    refused(f(&g, &y, &m, true, &o), &["fixTriuMask", "false"]);
    refused(
        f(&buf(S32, &[2, 3, 4, 8]), &y, &m, false, &o),
        &["gradOutput", "dtype"],
    );
    refused(
        f(&g, &buf(F32, &[2, 3, 4, 8]), &m, false, &o),
        &["y", "gradOutput's dtype"],
    );
    refused(
        f(&g, &y, &m, false, &buf(BF16, &[2, 3, 4, 8])),
        &["out", "gradOutput's dtype"],
    );
    refused(
        f(&g, &y, &buf(F16, &[1, 3, 4, 8]), false, &o),
        &["'mask'", "dtype"],
    );
    refused(
        f(&g, &buf(F16, &[2, 3, 4, 7]), &m, false, &o),
        &["y", "shape"],
    );
    refused(
        f(&g, &y, &m, false, &buf(F16, &[2, 3, 8, 4])),
        &["out", "shape"],
    );
    refused(
        f(&g, &y, &buf(Bool, &[2, 3, 8]), false, &o),
        &["mask", "4-D"],
    );
    refused(
        f(&g, &y, &buf(Bool, &[2, 2, 4, 8]), false, &o),
        &["broadcast"],
    );
    let g5 = buf(F16, &[1, 2, 3, 4, 8]);
    refused(f(&g5, &g5, &m, false, &g5), &["gradOutput", "4-D"]);
    let wide = buf(F16, &[1, 1, 1, 4097]);
    refused(
        f(
            &wide,
            &wide,
            &buf(Bool, &[1, 1, 1, 4097]),
            false,
            &buf(F16, &[1, 1, 1, 4097]),
        ),
        &["4096"],
    );
    // out may be gradOutput's or y's own view, not the mask's.
    assert!(f(&g, &y, &m, false, &g).is_ok());
    assert!(f(&g, &y, &m, false, &y).is_ok());
}

#[test]
fn masked_softmax_with_rel_pos_bias_refusals() {
    let x = buf(F32, &[4, 2, 3, 5]);
    let m = buf(F32, &[2, 3, 5]);
    let b = buf(F32, &[2, 3, 5]);
    let o = buf(F32, &[4, 2, 3, 5]);
    let f = |x: &Buf, m: Option<&Buf>, b: &Buf, o: &Buf| {
        let before = o.array().bytes;
        let md = m.map(|m| m.desc());
        let r = ms::masked_softmax_with_rel_pos_bias(
            &x.desc(),
            md.as_ref(),
            &b.desc(),
            1.0,
            0,
            &o.desc(),
        );
        assert_eq!(before, o.array().bytes);
        r
    };
    assert!(f(&x, Some(&m), &b, &o).is_ok());
    assert!(f(&x, None, &b, &o).is_ok());
    refused(
        f(&buf(F64, &[4, 2, 3, 5]), Some(&m), &b, &o),
        &["'x'", "dtype"],
    );
    refused(
        f(&x, Some(&buf(F16, &[2, 3, 5])), &b, &o),
        &["attenMaskOptional", "x's dtype"],
    );
    refused(
        f(&x, Some(&m), &buf(BF16, &[2, 3, 5]), &o),
        &["relativePosBias", "x's dtype"],
    );
    refused(
        f(&x, Some(&m), &b, &buf(F16, &[4, 2, 3, 5])),
        &["out", "x's dtype"],
    );
    refused(
        f(&buf(F32, &[2, 3, 5]), Some(&m), &b, &o),
        &["x", "4-D", "5-D"],
    );
    refused(
        f(&buf(F32, &[0, 2, 3, 5]), None, &b, &buf(F32, &[0, 2, 3, 5])),
        &["empty"],
    );
    refused(
        f(&x, Some(&buf(F32, &[3, 3, 5])), &b, &o),
        &["multiple", "W = 3"],
    );
    refused(
        f(&x, Some(&buf(F32, &[2, 2, 3, 5])), &b, &o),
        &["attenMaskOptional", "(W, 1, S1, S2)"],
    );
    refused(
        f(&x, Some(&buf(F32, &[2, 3, 4])), &b, &o),
        &["attenMaskOptional", "match"],
    );
    refused(
        f(&x, Some(&buf(F32, &[3, 5])), &b, &o),
        &["attenMaskOptional", "2 dims"],
    );
    refused(
        f(&x, Some(&m), &buf(F32, &[3, 3, 5]), &o),
        &["relativePosBias", "match"],
    );
    refused(
        f(&x, Some(&m), &buf(F32, &[2, 2, 3, 5]), &o),
        &["relativePosBias", "leading 1s"],
    );
    refused(
        f(&x, Some(&m), &buf(F32, &[3, 5]), &o),
        &["relativePosBias", "2 dims"],
    );
    refused(
        f(&x, Some(&m), &b, &buf(F32, &[2, 4, 3, 5])),
        &["out", "shape"],
    );
    let x5 = buf(F32, &[2, 2, 2, 3, 5]);
    let o5 = buf(F32, &[2, 2, 2, 3, 5]);
    assert!(f(
        &x5,
        Some(&buf(F32, &[1, 2, 1, 3, 5])),
        &buf(F32, &[1, 1, 2, 3, 5]),
        &o5
    )
    .is_ok());
    refused(
        f(&x5, Some(&buf(F32, &[3, 3, 5])), &b, &o5),
        &["attenMaskOptional", "match"],
    );
    refused(
        f(&x5, Some(&buf(F32, &[2, 2, 2, 3, 5])), &b, &o5),
        &["attenMaskOptional"],
    );
    // out may be x's own view (in place), not the bias's.
    assert!(f(&x, Some(&m), &b, &x).is_ok());
}
