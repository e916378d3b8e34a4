//! Differential tests of the interpolating upsamples (issue 17): UpsampleLinear1d,
//! UpsampleBilinear2d, UpsampleTrilinear3d, UpsampleBicubic2d, and the float-scale
//! UpsampleNearest1dV2 / Nearest2dV2, through the C entry points.
//!
//! Reference: torch 1.13's F.interpolate (modes linear / bilinear / trilinear / bicubic,
//! align_corners both ways, size or scale_factor with recompute_scale_factor=False), on
//! random shapes (empty batch included), random views (permuted axes, gaps, offsets), NCHW
//! and channel-last layouts. f16/bf16 inputs go to torch upcast to f32 (the op computes in
//! f32). Bound: |got − torch| ≤ 1 ulp of out's dtype at |torch| (f16/bf16 only) plus
//! 16·ε(f32 or f64)·max|self| (the summation orders of torch's channel-last kernel differ).
//! The nearest V2 variants are compared byte for byte with torch's nearest.

use super::add_diff::Rng;
use super::shape_diff::{call, dec, pick, untouched, Dev, View};
use super::torch_ref::{Array, Batch};
use crate::capi::ops;
use crate::dtype::DType::{self, *};
use std::ptr::null_mut;

const NULLPTR: i32 = 161001;
const INVALID: i32 = 161002;
const NCHW: i32 = 0;
const NHWC: i32 = 1;
const ND: i32 = 2;
const NCDHW: i32 = 30;
const NDHWC: i32 = 27;
const NCL: i32 = 47;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Op {
    Linear,
    Bilinear,
    Trilinear,
    Bicubic,
}

fn enc(d: DType, v: f64) -> Vec<u8> {
    super::shape_diff::enc(d, v)
}

fn eps(d: DType) -> f64 {
    match d {
        F16 => 2f64.powi(-10),
        BF16 => 2f64.powi(-7),
        F64 => 2f64.powi(-52),
        _ => 2f64.powi(-23),
    }
}

#[allow(clippy::too_many_arguments)]
fn run(
    op: Op,
    st: *mut crate::capi::meta::aclTensor,
    sz: *mut crate::capi::meta::aclIntArray,
    align: bool,
    sc: &[f64],
    ot: *mut crate::capi::meta::aclTensor,
) -> Result<(), (i32, String)> {
    use ops::{
        upsample_bicubic_2d as bc, upsample_bilinear_2d as bl, upsample_linear_1d as l1,
        upsample_trilinear_3d as t3,
    };
    match op {
        Op::Linear => call(
            |w, e| unsafe {
                l1::aclnnUpsampleLinear1dGetWorkspaceSize(st, sz, align, sc[0], ot, w, e)
            },
            l1::aclnnUpsampleLinear1d,
        ),
        Op::Bilinear => call(
            |w, e| unsafe {
                bl::aclnnUpsampleBilinear2dGetWorkspaceSize(st, sz, align, sc[0], sc[1], ot, w, e)
            },
            bl::aclnnUpsampleBilinear2d,
        ),
        Op::Bicubic => call(
            |w, e| unsafe {
                bc::aclnnUpsampleBicubic2dGetWorkspaceSize(st, sz, align, sc[0], sc[1], ot, w, e)
            },
            bc::aclnnUpsampleBicubic2d,
        ),
        Op::Trilinear => call(
            |w, e| unsafe {
                t3::aclnnUpsampleTrilinear3dGetWorkspaceSize(
                    st, sz, align, sc[0], sc[1], sc[2], ot, w, e,
                )
            },
            t3::aclnnUpsampleTrilinear3d,
        ),
    }
}

const PROG: &str = "x = a[0]
low = x.dtype in (torch.float16, torch.bfloat16)
x = x.float() if low else x
cl = int(a[4].item())
k = x.dim()
x = x.permute(0, k - 1, *range(1, k - 1)) if cl else x
sc = a[1].tolist()
m = ['linear', 'bilinear', 'trilinear', 'bicubic'][int(a[5].item())]
al = bool(a[3].item())
out = F.interpolate(x, scale_factor=sc, mode=m, align_corners=al, recompute_scale_factor=False) if all(s > 0 for s in sc) else F.interpolate(x, size=a[2].tolist(), mode=m, align_corners=al)
out = out.permute(0, *range(2, k), 1) if cl else out
out = out.double()";

#[test]
fn interpolating_upsamples_match_torch() {
    let mut rng = Rng::new(1717);
    let mut torch = Batch::new();
    let mut cases = vec![];
    for case in 0..400 {
        let op = [Op::Linear, Op::Bilinear, Op::Trilinear, Op::Bicubic][case % 4];
        let s = match op {
            Op::Linear => 1,
            Op::Trilinear => 3,
            _ => 2,
        };
        let list: &[DType] = match op {
            Op::Linear | Op::Bicubic => &[F32, F16, BF16],
            _ => &[F32, F16, BF16, F64],
        };
        let dtype = pick(&mut rng, list);
        let cl = match op {
            Op::Bilinear => dtype == F64 || rng.pct(30),
            Op::Trilinear => rng.pct(30),
            _ => false,
        };
        let align = rng.pct(50);
        let use_scales = rng.pct(40);
        let n = if op != Op::Linear && rng.pct(10) {
            0
        } else {
            1 + rng.below(2) as usize
        };
        let c = 1 + rng.below(3) as usize;
        let maxd = if s == 3 { 5 } else { 8 };
        let ins: Vec<usize> = (0..s).map(|_| 1 + rng.below(maxd) as usize).collect();
        let mut scales = vec![0.0; s];
        let outs: Vec<usize> = (0..s)
            .map(|k| {
                if use_scales {
                    let f = [0.5, 0.75, 1.0, 1.3, 1.5, 2.0, 2.5, 3.0, 1.7][rng.below(9) as usize];
                    let o = (ins[k] as f64 * f).floor() as usize;
                    if o == 0 {
                        scales[k] = 1.0;
                        ins[k]
                    } else {
                        scales[k] = f;
                        o
                    }
                } else {
                    1 + rng.below(2 * maxd) as usize
                }
            })
            .collect();
        let shape = |sp: &[usize]| -> Vec<usize> {
            let mut v = vec![n];
            if cl {
                v.extend(sp);
                v.push(c);
            } else {
                v.push(c);
                v.extend(sp);
            }
            v
        };
        let (ss, os) = (shape(&ins), shape(&outs));
        let sv = View::random(&mut rng, dtype, &ss);
        let ov = View::random(&mut rng, dtype, &os);
        let sm: Vec<u8> = (0..sv.storage)
            .flat_map(|_| enc(dtype, (rng.below(200) as f64 - 100.0) * 0.125))
            .collect();
        let om: Vec<u8> = (0..ov.storage).flat_map(|_| enc(dtype, 7.0)).collect();
        let mut dev = Dev::new();
        let (sb, ob) = (dev.upload(&sm), dev.upload(&om));
        let fmt = match (s, cl) {
            (1, _) => NCL,
            (2, false) => NCHW,
            (2, true) => NHWC,
            (_, false) => NCDHW,
            _ => NDHWC,
        };
        let st = dev.tensor(&sv, sb, fmt);
        let ot = dev.tensor(&ov, ob, fmt);
        let size: Vec<i64> = outs.iter().map(|&x| x as i64).collect();
        let sz = dev.ints(&size);
        run(op, st, sz, align, &scales, ot)
            .unwrap_or_else(|e| panic!("case {case} {op:?} {dtype} {ss:?}->{os:?}: {e:?}"));
        let got = dev.download(ob);
        untouched(&ov, &om, &got).unwrap_or_else(|e| panic!("case {case}: {e}"));
        let maxabs = sv
            .indices()
            .iter()
            .map(|i| dec(dtype, sv.elem(&sm, sv.at(i))).abs())
            .fold(0.0, f64::max);
        let p = torch.program(PROG);
        torch.case(
            p,
            vec![
                Some(sv.array(&sm)),
                Some(Array::f64s(&[s], &scales)),
                Some(Array::i64s(&[s], &size)),
                Some(Array::int(align as i64)),
                Some(Array::int(cl as i64)),
                Some(Array::int(op as i64)),
            ],
        );
        let g: Vec<f64> = ov
            .indices()
            .iter()
            .map(|i| dec(dtype, ov.elem(&got, ov.at(i))))
            .collect();
        cases.push((case, op, dtype, ss, os, align, scales, maxabs, g));
    }
    let Some(res) = torch.run("interpolating upsamples") else {
        return;
    };
    for (k, (case, op, dtype, ss, os, align, scales, maxabs, g)) in cases.iter().enumerate() {
        let t = res[k]
            .as_ref()
            .unwrap_or_else(|e| panic!("case {case}: torch raised {e}"));
        let want = t[0].to_f64s();
        assert_eq!(want.len(), g.len(), "case {case}");
        let acc = if *dtype == F64 { eps(F64) } else { eps(F32) };
        for (i, (&w, &x)) in want.iter().zip(g).enumerate() {
            let low = if matches!(dtype, F16 | BF16) {
                eps(*dtype) * w.abs()
            } else {
                0.0
            };
            let tol = low + 16.0 * acc * maxabs;
            assert!(
                (w - x).abs() <= tol,
                "case {case} {op:?} {dtype} {ss:?}->{os:?} align {align} scales {scales:?}: element {i} is {x}, torch {w} (tol {tol})"
            );
        }
    }
}

#[test]
fn nearest_v2_matches_torch_nearest_with_float_scales() {
    let mut rng = Rng::new(1718);
    let mut torch = Batch::new();
    let mut cases = vec![];
    for case in 0..240 {
        let two = case % 2 == 1;
        let s = if two { 2 } else { 1 };
        let dtype = if two {
            pick(&mut rng, &[F32, F16, BF16, F64, U8])
        } else {
            pick(&mut rng, &[F32, F16, BF16, U8])
        };
        let cl = two && rng.pct(30);
        let n = 1 + rng.below(2) as usize;
        let c = 1 + rng.below(3) as usize;
        let ins: Vec<usize> = (0..s).map(|_| 1 + rng.below(7) as usize).collect();
        let use_scales = rng.pct(60);
        let mut scales = vec![0f32; s];
        let outs: Vec<usize> = (0..s)
            .map(|k| {
                if use_scales {
                    let f = [0.5f32, 1.3, 1.5, 2.0, 2.5, 3.0, 1.7][rng.below(7) as usize];
                    let mut o = (ins[k] as f64 * f as f64).floor() as usize;
                    // Sizes the scale does not give: out = in or 2·in, where torch's
                    // channels-last kernel takes its shortcuts and the others do not.
                    if rng.pct(30) {
                        o = ins[k] * (1 + rng.below(2) as usize);
                    }
                    if o == 0 {
                        scales[k] = 1.0;
                        ins[k]
                    } else {
                        scales[k] = f;
                        o
                    }
                } else {
                    1 + rng.below(15) as usize
                }
            })
            .collect();
        let shape = |sp: &[usize]| -> Vec<usize> {
            let mut v = vec![n];
            if cl {
                v.extend(sp);
                v.push(c);
            } else {
                v.push(c);
                v.extend(sp);
            }
            v
        };
        let (ss, os) = (shape(&ins), shape(&outs));
        let sv = View::random(&mut rng, dtype, &ss);
        let ov = View::random(&mut rng, dtype, &os);
        let sm: Vec<u8> = (0..sv.storage)
            .flat_map(|_| enc(dtype, rng.below(100) as f64))
            .collect();
        let om: Vec<u8> = (0..ov.storage).flat_map(|_| enc(dtype, 7.0)).collect();
        let mut dev = Dev::new();
        let (sb, ob) = (dev.upload(&sm), dev.upload(&om));
        let fmt = if !two {
            NCL
        } else if cl {
            NHWC
        } else {
            NCHW
        };
        let st = dev.tensor(&sv, sb, fmt);
        let ot = dev.tensor(&ov, ob, fmt);
        let size: Vec<i64> = outs.iter().map(|&x| x as i64).collect();
        let sz = dev.ints(&size);
        use ops::{upsample_nearest_1d_v2 as n1, upsample_nearest_2d_v2 as n2};
        let r = if two {
            call(
                |w, e| unsafe {
                    n2::aclnnUpsampleNearest2dV2GetWorkspaceSize(
                        st, sz, scales[0], scales[1], ot, w, e,
                    )
                },
                n2::aclnnUpsampleNearest2dV2,
            )
        } else {
            call(
                |w, e| unsafe {
                    n1::aclnnUpsampleNearest1dV2GetWorkspaceSize(st, sz, scales[0], ot, w, e)
                },
                n1::aclnnUpsampleNearest1dV2,
            )
        };
        r.unwrap_or_else(|e| panic!("case {case}: {e:?}"));
        let got = dev.download(ob);
        untouched(&ov, &om, &got).unwrap_or_else(|e| panic!("case {case}: {e}"));
        // torch gets the f32 scales widened to double, as the device's float parameter is.
        let sc: Vec<f64> = scales.iter().map(|&x| x as f64).collect();
        let p = torch.program(
            "x = a[0]
cl = int(a[3].item())
d = x.dtype
x = x.double()
x = x.permute(0, 3, 1, 2) if cl else x
sc = a[1].tolist()
size = a[2].tolist()
sc = [s if s > 0 else None for s in sc]
x = x.contiguous(memory_format=torch.channels_last) if cl else x
out = torch.ops.aten.upsample_nearest2d(x, size, sc[0], sc[1]) if len(size) == 2 else torch.ops.aten.upsample_nearest1d(x, size, sc[0])
out = out.permute(0, 2, 3, 1) if cl else out",
        );
        torch.case(
            p,
            vec![
                Some(sv.array(&sm)),
                Some(Array::f64s(&[s], &sc)),
                Some(Array::i64s(&[s], &size)),
                Some(Array::int(cl as i64)),
            ],
        );
        let g: Vec<f64> = ov
            .indices()
            .iter()
            .map(|i| dec(dtype, ov.elem(&got, ov.at(i))))
            .collect();
        cases.push((case, g));
    }
    let Some(res) = torch.run("nearest v2") else {
        return;
    };
    for (k, (case, g)) in cases.iter().enumerate() {
        let t = res[k]
            .as_ref()
            .unwrap_or_else(|e| panic!("case {case}: torch raised {e}"));
        assert_eq!(&t[0].to_f64s(), g, "case {case}");
    }
}

#[test]
fn interpolating_upsample_refusals() {
    let mut dev = Dev::new();
    let mk = |dev: &mut Dev, d: DType, s: &[usize], f: i32| {
        let v = View::contiguous(d, s);
        let m = dev.upload(&vec![0u8; v.bytes()]);
        dev.tensor(&v, m, f)
    };
    let a = mk(&mut dev, F32, &[1, 2, 3, 4], NCHW);
    let b = mk(&mut dev, F32, &[1, 2, 6, 8], NCHW);
    let bad_shape = mk(&mut dev, F32, &[1, 3, 6, 8], NCHW);
    let bad_dtype = mk(&mut dev, S32, &[1, 2, 6, 8], NCHW);
    let a64 = mk(&mut dev, F64, &[1, 2, 3, 4], NCHW);
    let b64 = mk(&mut dev, F64, &[1, 2, 6, 8], NCHW);
    let a_nhwc = mk(&mut dev, F32, &[1, 3, 4, 2], NHWC);
    let b_nhwc = mk(&mut dev, F32, &[1, 6, 8, 2], NHWC);
    let empty_w = mk(&mut dev, F32, &[1, 2, 3, 0], NCHW);
    let ok = dev.ints(&[6, 8]);
    let zero = dev.ints(&[0, 8]);
    let three = dev.ints(&[6, 8, 1]);
    let l_in = mk(&mut dev, F32, &[2, 3, 5], NCL);
    let l_out = mk(&mut dev, F32, &[2, 3, 9], NCL);
    let l_empty = mk(&mut dev, F32, &[0, 3, 5], NCL);
    let l_empty_out = mk(&mut dev, F32, &[0, 3, 9], NCL);
    let nine = dev.ints(&[9]);
    let _ = ND;
    for op in [Op::Bilinear, Op::Bicubic] {
        assert!(run(op, a, ok, false, &[0.0, 0.0], b).is_ok());
        assert_eq!(
            run(op, null_mut(), ok, false, &[0.0, 0.0], b)
                .unwrap_err()
                .0,
            NULLPTR
        );
        assert_eq!(
            run(op, a, null_mut(), false, &[0.0, 0.0], b).unwrap_err().0,
            NULLPTR
        );
        assert_eq!(
            run(op, a, ok, false, &[0.0, 0.0], null_mut())
                .unwrap_err()
                .0,
            NULLPTR
        );
        for (s, size, sc, o, what) in [
            (a, ok, [0.0, 0.0], bad_shape, "shape"),
            (a, ok, [0.0, 0.0], bad_dtype, "dtype"),
            (a, zero, [0.0, 0.0], b, "positive"),
            (a, three, [0.0, 0.0], b, "2 values"),
            (a, ok, [-1.0, 0.0], b, "scalesH"),
            (a, ok, [0.0, f64::NAN], b, "scalesW"),
            (empty_w, ok, [0.0, 0.0], b, "empty"),
        ] {
            let (code, m) = run(op, s, size, false, &sc, o).unwrap_err();
            assert!(code == INVALID && m.contains(what), "{op:?} {what}: {m}");
        }
    }
    // Bilinear2d: DOUBLE only in NHWC; NHWC accepted for f32. Bicubic2d: no NHWC, no DOUBLE.
    let (code, m) = run(Op::Bilinear, a64, ok, true, &[0.0, 0.0], b64).unwrap_err();
    assert!(code == INVALID && m.contains("NHWC"), "{m}");
    assert!(run(Op::Bilinear, a_nhwc, ok, true, &[0.0, 0.0], b_nhwc).is_ok());
    let (code, m) = run(Op::Bicubic, a_nhwc, ok, true, &[0.0, 0.0], b_nhwc).unwrap_err();
    assert!(code == INVALID && m.contains("format"), "{m}");
    let (code, m) = run(Op::Bicubic, a64, ok, true, &[0.0, 0.0], b64).unwrap_err();
    assert!(code == INVALID && m.contains("dtype"), "{m}");
    // Linear1d: 3-d only, no empty tensor.
    assert!(run(Op::Linear, l_in, nine, true, &[0.0], l_out).is_ok());
    let (code, m) = run(Op::Linear, l_empty, nine, true, &[0.0], l_empty_out).unwrap_err();
    assert!(code == INVALID && m.contains("empty"), "{m}");
    let (code, m) = run(Op::Linear, a, nine, true, &[0.0], b).unwrap_err();
    assert!(code == INVALID && m.contains("3-d"), "{m}");
    // Trilinear3d wants 5-d.
    let (code, m) = run(Op::Trilinear, a, three, true, &[0.0; 3], b).unwrap_err();
    assert!(code == INVALID && m.contains("5-d"), "{m}");
}

/// A worked example: bilinear (1, 1, 3, 3) -> (1, 1, 5, 5), both alignments (CANN's doc
/// example values).
#[test]
fn bilinear_worked_example() {
    let mut dev = Dev::new();
    let sv = View::contiguous(F32, &[1, 1, 3, 3]);
    let sm: Vec<u8> = (1..=9).flat_map(|i| (i as f32).to_le_bytes()).collect();
    for (align, want) in [
        (false, [1.0, 1.4, 2.0, 2.6, 3.0, 2.2, 2.6, 3.2, 3.8, 4.2]),
        (true, [1.0, 1.5, 2.0, 2.5, 3.0, 2.5, 3.0, 3.5, 4.0, 4.5]),
    ] {
        let ov = View::contiguous(F32, &[1, 1, 5, 5]);
        let (sb, ob) = (dev.upload(&sm), dev.upload(&vec![0u8; ov.bytes()]));
        let st = dev.tensor(&sv, sb, NCHW);
        let ot = dev.tensor(&ov, ob, NCHW);
        let sz = dev.ints(&[5, 5]);
        run(Op::Bilinear, st, sz, align, &[0.0, 0.0], ot).unwrap();
        let got = dev.download(ob);
        for (i, w) in want.iter().enumerate() {
            let g = f32::from_le_bytes(got[4 * i..4 * i + 4].try_into().unwrap()) as f64;
            assert!(
                (g - w).abs() < 1e-5,
                "align {align} element {i}: {g} vs {w}"
            );
        }
    }
}
