//! Differential tests of Convolution (reference §5.7) against an f64 reference written here
//! with plain nested loops from the definition (no im2col, no GEMM):
//!
//! - forward: `y[n, co, o] = bias[co] + Σ_{c < Cin/g, k} x[n, g·Cin/g + c, o·s − pb + k·d] · w[co, c, k]`
//!   with g = co / (Cout/g), terms outside the input being 0 (zero padding);
//! - transposed: every `x[n, ci, i] · w[ci, co, k]` (co < Cout/g, ci in group g) is added to
//!   `y[n, g·Cout/g + co, i·s − pb + k·d]` when that position is inside the output, plus bias.
//!
//! Output sizes: forward `floor((in + pb + pe − d·(k−1) − 1)/s) + 1`, transposed
//! `(in − 1)·s − pb − pe + d·(k−1) + outputPadding + 1`.
//!
//! Accuracy (every case computes in f32; f16/bf16 values are exact in f32): with S the sum
//! of |terms| (bias included) and K the number of terms of the element,
//!   |got − want| <= (K + 2)·2^-23·S + 2^-p·(|want| + E) + tiny
//! where E is the first term, p out's precision (f16 11, bf16 8, f32 24) and tiny its
//! smallest subnormal: an f32 sum in any order (≈ 2·γ_K, u = 2^-24), then one rounding
//! into out's dtype.

use super::add_diff::{decode, desc_in, pow2, round_float, run_exec, size, Buf, Rng, View, V};
use super::matmul_diff::{at, bytes_for, need_elems};
use crate::dtype::DType::{self, *};
use crate::error::Error;
use crate::executor::Executor;
use crate::ops::conv::convolution;
use crate::tensor::TensorDesc;

const NCL: i32 = 47;
const NCHW: i32 = 0;
const NCDHW: i32 = 30;
const ND: i32 = 2;
const NHWC: i32 = 1;

fn layout(rank: usize) -> i32 {
    match rank {
        3 => NCL,
        4 => NCHW,
        _ => NCDHW,
    }
}

fn encode(d: DType, x: f64, out: &mut [u8]) {
    match d {
        F32 => out[..4].copy_from_slice(&(x as f32).to_le_bytes()),
        F16 => out[..2].copy_from_slice(&half::f16::from_f64(x).to_bits().to_le_bytes()),
        BF16 => out[..2].copy_from_slice(&half::bf16::from_f64(x).to_bits().to_le_bytes()),
        _ => unreachable!(),
    }
}

fn fval(v: V) -> f64 {
    match v {
        V::F(x) => x,
        _ => unreachable!(),
    }
}

fn prec(d: DType) -> (i32, f64) {
    match d {
        F16 => (11, pow2(-24)),
        BF16 => (8, pow2(-133)),
        _ => (24, pow2(-149)),
    }
}

/// A view of `shape`: as matmul_diff's (any dim order, padded, offset, inputs sometimes
/// expanded), or an N, spatial..., C (channels-last) layout.
fn gen_view(rng: &mut Rng, shape: &[usize], dtype: DType, storage: usize, input: bool) -> View {
    if shape.len() >= 3 && rng.pct(20) {
        return channels_last(&View::contiguous(shape, dtype, storage));
    }
    super::matmul_diff::gen_view(rng, shape, dtype, storage, input)
}

/// `v` with dense channels-last strides: C innermost, then the spatial dims, N outermost.
fn channels_last(v: &View) -> View {
    let r = v.shape.len();
    let mut strides = vec![0; r];
    let mut acc = 1;
    for d in std::iter::once(1)
        .chain((2..r).rev())
        .chain(std::iter::once(0))
    {
        strides[d] = acc;
        acc *= v.shape[d].max(1);
    }
    View {
        strides,
        ..v.clone()
    }
}

#[derive(Clone, Debug)]
struct Case {
    input: View,
    weight: View,
    bias: Option<View>,
    output: View,
    stride: Vec<i64>,
    padding: Vec<i64>,
    dilation: Vec<i64>,
    transposed: bool,
    out_pad: Vec<i64>,
    groups: usize,
    cube: i64,
}

impl Case {
    fn views(&self) -> Vec<&View> {
        let mut v = vec![&self.input, &self.weight];
        v.extend(self.bias.as_ref());
        v.push(&self.output);
        v
    }
    fn sp(&self) -> usize {
        self.input.shape.len() - 2
    }
    /// (begin, end) padding of spatial dim i.
    fn pad(&self, i: usize) -> (usize, usize) {
        let p = &self.padding;
        if p.len() == self.sp() {
            (p[i] as usize, p[i] as usize)
        } else {
            (p[2 * i] as usize, p[2 * i + 1] as usize)
        }
    }
}

fn build(case: &Case, bufs: &[Buf]) -> crate::Result<Executor> {
    let d = |v: &View| desc_in(v, &bufs[v.storage], layout(v.shape.len()));
    let bias = match &case.bias {
        Some(b) => Some(desc_in(b, &bufs[b.storage], ND)?),
        None => None,
    };
    convolution(
        &d(&case.input)?,
        &d(&case.weight)?,
        bias.as_ref(),
        &case.stride,
        &case.padding,
        &case.dilation,
        case.transposed,
        &case.out_pad,
        case.groups as i64,
        &d(&case.output)?,
        case.cube,
    )
}

/// Multi-index iteration.
fn next(idx: &mut [usize], shape: &[usize]) -> bool {
    for j in (0..idx.len()).rev() {
        idx[j] += 1;
        if idx[j] < shape[j] {
            return true;
        }
        idx[j] = 0;
    }
    false
}

/// (want, S, K) for every output element, in row-major order of output's shape: K counts
/// the products that land on the element (and the bias).
///
/// Every product x[n, ci, i] · w[.., k] of a group lands on the output position o with
/// o = q·stride − pb + k·dilation inside the other side, where (q, o) is (output, input
/// position) for a forward convolution and (input, output position) for a transposed one.
fn reference(case: &Case, mem: &[Vec<u8>]) -> Vec<(f64, f64, usize)> {
    let read = |v: &View, idx: &[usize]| -> f64 {
        let e = at(v, idx) * size(v.dtype);
        fval(decode(v.dtype, &mem[v.storage][e..e + size(v.dtype)]))
    };
    let (x, w, y) = (&case.input, &case.weight, &case.output);
    let sp = case.sp();
    let ynum: usize = y.shape.iter().product();
    let mut acc = vec![(0.0f64, 0.0f64, 0usize); ynum];
    if ynum == 0 {
        return acc;
    }
    let lin = |idx: &[usize]| idx.iter().zip(&y.shape).fold(0, |l, (i, d)| l * d + i);
    let g = case.groups;
    let (cin_g, cout_g) = (x.shape[1] / g, y.shape[1] / g);
    // The walked side's spatial shape and the other side's.
    let (walk, other) = if case.transposed {
        (&x.shape[2..], &y.shape[2..])
    } else {
        (&y.shape[2..], &x.shape[2..])
    };
    let ksz = &w.shape[2..];
    for n in 0..x.shape[0] {
        for grp in 0..g {
            for ci in 0..cin_g {
                for co in 0..cout_g {
                    let (cia, coa) = (grp * cin_g + ci, grp * cout_g + co);
                    let mut k = vec![0usize; sp];
                    loop {
                        let mut wi = if case.transposed {
                            vec![cia, co]
                        } else {
                            vec![coa, ci]
                        };
                        wi.extend(&k);
                        let wv = read(w, &wi);
                        let mut q = vec![0usize; sp];
                        while walk.iter().all(|&d| d > 0) {
                            let o: Vec<isize> = (0..sp)
                                .map(|i| {
                                    (q[i] * case.stride[i] as usize
                                        + k[i] * case.dilation[i] as usize)
                                        as isize
                                        - case.pad(i).0 as isize
                                })
                                .collect();
                            if o.iter().zip(other).all(|(&p, &d)| p >= 0 && p < d as isize) {
                                let o: Vec<usize> = o.iter().map(|&p| p as usize).collect();
                                let (xs, ys) = if case.transposed { (&q, &o) } else { (&o, &q) };
                                let xv = read(x, &[&[n, cia][..], xs].concat());
                                let e = &mut acc[lin(&[&[n, coa][..], ys].concat())];
                                let t = xv * wv;
                                e.0 += t;
                                e.1 += t.abs();
                                e.2 += 1;
                            }
                            if !next(&mut q, walk) {
                                break;
                            }
                        }
                        if !next(&mut k, ksz) {
                            break;
                        }
                    }
                }
            }
        }
    }
    if let Some(b) = &case.bias {
        let mut yi = vec![0usize; y.shape.len()];
        loop {
            let bv = read(b, &[yi[1]]);
            let e = &mut acc[lin(&yi)];
            e.0 += bv;
            e.1 += bv.abs();
            e.2 += 1;
            if !next(&mut yi, &y.shape) {
                break;
            }
        }
    }
    acc
}

fn close(got: f64, want: f64, s: f64, k: usize, out: DType) -> bool {
    let e = (k + 2) as f64 * pow2(-23) * s;
    let (p, tiny) = prec(out);
    (got - want).abs() <= e + pow2(-p) * (want.abs() + e) + tiny
}

/// A random value exact in `d`, |x| < 8.
fn gen_val(rng: &mut Rng, d: DType) -> f64 {
    match rng.below(8) {
        0 => 0.0,
        1..=2 => rng.below(9) as f64 - 4.0,
        _ => {
            let sign = if rng.next() & 1 == 1 { -1.0 } else { 1.0 };
            let frac = (rng.next() >> 11) as f64 / pow2(53);
            round_float(sign * (1.0 + frac) * pow2(rng.below(4) as i32 - 2), d)
        }
    }
}

fn fill(v: &View, rng: &mut Rng, bufs: &mut [Buf]) {
    let sz = size(v.dtype);
    if v.numel() == 0 {
        return;
    }
    let mut idx = vec![0usize; v.shape.len()];
    loop {
        let e = at(v, &idx) * sz;
        let x = gen_val(rng, v.dtype);
        encode(v.dtype, x, &mut bufs[v.storage].bytes_mut()[e..e + sz]);
        if !next(&mut idx, &v.shape) {
            break;
        }
    }
}

/// Builds, runs and checks one valid case; returns the number of output elements checked.
fn run_case(case: &Case, rng: &mut Rng) -> Result<usize, String> {
    let report = |what: String| format!("{what}\n  case: {case:?}");
    let n_st = case.views().iter().map(|v| v.storage + 1).max().unwrap();
    let mut bufs: Vec<Buf> = (0..n_st)
        .map(|s| Buf::new(bytes_for(&case.views(), s)))
        .collect();
    for b in bufs.iter_mut() {
        for x in b.bytes_mut() {
            *x = rng.next() as u8;
        }
    }
    // Inputs overlapping output are written last so their values are what is read.
    let output_first = case.input.storage == case.output.storage;
    if !output_first {
        fill(&case.output, rng, &mut bufs);
    }
    for v in [Some(&case.weight), case.bias.as_ref(), Some(&case.input)]
        .into_iter()
        .flatten()
    {
        fill(v, rng, &mut bufs);
    }
    let before: Vec<Vec<u8>> = bufs.iter().map(|b| b.bytes().to_vec()).collect();
    let exec = build(case, &bufs).map_err(|e| report(format!("phase 1 failed: {e}")))?;
    let ws = exec.workspace_size();
    if case.output.numel() == 0 && ws != 0 {
        return Err(report(format!("empty output but workspace {ws}")));
    }
    run_exec(&exec).map_err(|e| report(format!("phase 2 failed: {e}")))?;
    drop(exec);
    let want = reference(case, &before);
    let y = &case.output;
    let osz = size(y.dtype);
    let mut written: Vec<Vec<bool>> = bufs.iter().map(|b| vec![false; b.bytes().len()]).collect();
    let mut checked = 0;
    if y.numel() > 0 {
        let mut yi = vec![0usize; y.shape.len()];
        let mut l = 0;
        loop {
            let e = at(y, &yi) * osz;
            let got = fval(decode(y.dtype, &bufs[y.storage].bytes()[e..e + osz]));
            let (w, s, k) = want[l];
            if !close(got, w, s, k, y.dtype) {
                return Err(report(format!(
                    "wrong value at output {yi:?}: got {got:e}, want {w:e} (S = {s:e}, K = {k}, out {:?})",
                    y.dtype
                )));
            }
            written[y.storage][e..e + osz]
                .iter_mut()
                .for_each(|w| *w = true);
            checked += 1;
            l += 1;
            if !next(&mut yi, &y.shape) {
                break;
            }
        }
    }
    for (s, b) in bufs.iter().enumerate() {
        for (k, (&now, &was)) in b.bytes().iter().zip(&before[s]).enumerate() {
            if !written[s][k] && now != was {
                return Err(report(format!(
                    "storage {s} byte {k} outside the output view changed: {was:#04x} -> {now:#04x}"
                )));
            }
        }
    }
    Ok(checked)
}

fn must(case: &Case, rng: &mut Rng) -> usize {
    run_case(case, rng).unwrap_or_else(|e| panic!("{e}"))
}

/// Output spatial sizes by the formulas (None: invalid geometry).
fn out_sizes(
    inp: &[usize],
    k: &[usize],
    stride: &[i64],
    pads: &[(usize, usize)],
    dil: &[i64],
    transposed: bool,
    op: &[i64],
) -> Option<Vec<usize>> {
    let mut o = vec![];
    for i in 0..inp.len() {
        let span = dil[i] * (k[i] as i64 - 1) + 1;
        let (pb, pe) = (pads[i].0 as i64, pads[i].1 as i64);
        let x = inp[i] as i64;
        let v = if transposed {
            (x - 1) * stride[i] - pb - pe + span + op[i]
        } else {
            if x + pb + pe < span {
                return None;
            }
            (x + pb + pe - span) / stride[i] + 1
        };
        if v < 1 {
            return None;
        }
        o.push(v as usize);
    }
    Some(o)
}

const DT: [DType; 3] = [F32, F16, BF16];

/// Input/weight dtypes that may be combined, their promoted dtype.
fn gen_dtypes(rng: &mut Rng) -> (DType, DType, DType) {
    match rng.below(10) {
        0..=5 => {
            let d = rng.pick(&DT);
            (d, d, d)
        }
        6 => (F16, F32, F32),
        7 => (F32, F16, F32),
        _ => (F32, F32, F32),
    }
}

/// A random valid case; each tensor in its own storage.
fn gen_case(rng: &mut Rng, transposed: bool) -> Case {
    loop {
        let rank = 3 + rng.below(3) as usize;
        let sp = rank - 2;
        let groups = match rng.below(6) {
            0..=2 => 1,
            3 => 2,
            4 => 3,
            _ => 0, // depthwise: groups = Cin
        };
        let cin_g = if groups == 0 {
            1
        } else {
            1 + rng.below(3) as usize
        };
        let groups = if groups == 0 {
            1 + rng.below(5) as usize
        } else {
            groups
        };
        let cout_g = 1 + rng.below(3) as usize;
        let (cin, cout) = (cin_g * groups, cout_g * groups);
        let n = if rng.pct(4) {
            0
        } else {
            1 + rng.below(3) as usize
        };
        let big = sp == 1;
        let k: Vec<usize> = (0..sp)
            .map(|_| 1 + rng.below(if big { 5 } else { 3 }) as usize)
            .collect();
        let stride: Vec<i64> = (0..sp).map(|_| 1 + rng.below(3) as i64).collect();
        let dil: Vec<i64> = (0..sp).map(|_| 1 + rng.below(3) as i64).collect();
        let asym = match (sp, transposed) {
            (1, false) | (2, _) => rng.pct(35),
            _ => false,
        };
        let pads: Vec<(usize, usize)> = (0..sp)
            .map(|_| {
                let b = rng.below(3) as usize;
                (b, if asym { rng.below(3) as usize } else { b })
            })
            .collect();
        let padding: Vec<i64> = if asym {
            pads.iter().flat_map(|p| [p.0 as i64, p.1 as i64]).collect()
        } else {
            pads.iter().map(|p| p.0 as i64).collect()
        };
        let op: Vec<i64> = if transposed {
            (0..sp)
                .map(|i| rng.below(stride[i].max(dil[i]) as u64) as i64)
                .collect()
        } else {
            vec![0; sp]
        };
        let inp: Vec<usize> = (0..sp)
            .map(|_| {
                1 + rng.below(if big {
                    12
                } else if sp == 2 {
                    7
                } else {
                    4
                }) as usize
            })
            .collect();
        let Some(osz) = out_sizes(&inp, &k, &stride, &pads, &dil, transposed, &op) else {
            continue;
        };
        if osz.iter().product::<usize>() > 400 {
            continue;
        }
        let (di, dw, p) = gen_dtypes(rng);
        let od = if transposed {
            p
        } else {
            rng.pick(&[p, p, F32, F16, BF16])
        };
        let mut xs = vec![n, cin];
        xs.extend(&inp);
        let mut ws = if transposed {
            vec![cin, cout_g]
        } else {
            vec![cout, cin_g]
        };
        ws.extend(&k);
        let mut ys = vec![n, cout];
        ys.extend(&osz);
        let bias = rng.pct(60).then(|| {
            let bd = if p == BF16 {
                BF16
            } else {
                rng.pick(&[F32, F16])
            };
            gen_view(rng, &[cout], bd, 2, true)
        });
        return Case {
            input: gen_view(rng, &xs, di, 0, true),
            weight: gen_view(rng, &ws, dw, 1, true),
            bias,
            output: gen_view(rng, &ys, od, 3, false),
            stride,
            padding,
            dilation: dil,
            transposed,
            out_pad: op,
            groups,
            cube: rng.below(5) as i64,
        };
    }
}

/// `count` random valid cases; checks that they covered enough output elements.
fn run_random(seed: u64, transposed: bool, count: usize) {
    let mut rng = Rng::new(seed);
    let mut elems = 0;
    for _ in 0..count {
        let case = gen_case(&mut rng, transposed);
        elems += must(&case, &mut rng);
    }
    assert!(elems > 10_000, "only {elems} elements checked");
}

#[test]
fn conv_random_forward() {
    run_random(0xC0DE, false, 400);
}

#[test]
fn conv_random_transposed() {
    run_random(0x7C0D, true, 300);
}

fn contig(shape: &[usize], d: DType, storage: usize) -> View {
    View::contiguous(shape, d, storage)
}

/// An f32 case with contiguous tensors (input, weight, output in storages 0, 1, 3): stride
/// 1, no padding, dilation 1, groups 1, no bias, not transposed, until changed.
fn simple(x: &[usize], w: &[usize], y: &[usize]) -> Case {
    let sp = x.len() - 2;
    Case {
        input: contig(x, F32, 0),
        weight: contig(w, F32, 1),
        bias: None,
        output: contig(y, F32, 3),
        stride: vec![1; sp],
        padding: vec![0; sp],
        dilation: vec![1; sp],
        transposed: false,
        out_pad: vec![0; sp],
        groups: 1,
        cube: 1,
    }
}

impl Case {
    fn with_bias(mut self) -> Case {
        self.bias = Some(contig(&[self.output.shape[1]], F32, 2));
        self
    }
    fn attrs(mut self, stride: &[i64], padding: &[i64], dilation: &[i64]) -> Case {
        (self.stride, self.padding, self.dilation) =
            (stride.to_vec(), padding.to_vec(), dilation.to_vec());
        self
    }
    fn groups(mut self, g: usize) -> Case {
        self.groups = g;
        self
    }
    fn transposed(mut self, out_pad: &[i64]) -> Case {
        (self.transposed, self.out_pad) = (true, out_pad.to_vec());
        self
    }
}

/// Larger shapes: the multi-threaded GEMM path (one item), many items in parallel, the
/// pointwise (1x1) path with direct and strided input, channels-last views.
#[test]
fn conv_larger_shapes() {
    let mut rng = Rng::new(77);
    let list = [
        simple(&[1, 16, 20, 20], &[32, 16, 3, 3], &[1, 32, 20, 20])
            .with_bias()
            .attrs(&[1, 1], &[1, 1], &[1, 1]),
        simple(&[4, 8, 12, 12], &[8, 8, 3, 3], &[4, 8, 6, 6]).attrs(&[2, 2], &[1, 1], &[1, 1]),
        simple(&[2, 64, 10, 10], &[32, 64, 1, 1], &[2, 32, 10, 10]).with_bias(),
        simple(&[1, 64, 9, 9], &[64, 1, 3, 3], &[1, 64, 9, 9])
            .with_bias()
            .attrs(&[1, 1], &[1, 1], &[1, 1])
            .groups(64),
        simple(&[1, 32, 9, 9], &[32, 16, 4, 4], &[1, 16, 18, 18])
            .with_bias()
            .attrs(&[2, 2], &[1, 1], &[1, 1])
            .transposed(&[0, 0]),
        simple(&[2, 8, 5, 6, 7], &[8, 8, 3, 3, 3], &[2, 8, 5, 6, 7])
            .with_bias()
            .attrs(&[1, 1, 1], &[1, 1, 1], &[1, 1, 1]),
        simple(&[3, 6, 40], &[12, 3, 5], &[3, 12, 20])
            .with_bias()
            .attrs(&[2], &[2], &[1])
            .groups(2),
    ];
    for case in &list {
        must(case, &mut rng);
        // The same with channels-last input and output, and an f16 output.
        let mut c = case.clone();
        c.input = channels_last(&c.input);
        c.output = channels_last(&c.output);
        must(&c, &mut rng);
        if !c.transposed {
            c.output.dtype = F16;
            must(&c, &mut rng);
        }
    }
}

/// f16 and bf16 inputs are accumulated in f32 and rounded once: a sum whose partial sums
/// are not representable in f16 (1 + 2^-11 + ... ) comes out as the correctly rounded total.
#[test]
fn half_inputs_accumulate_in_f32() {
    for d in [F16, BF16] {
        // x = [1, u, u, u, u] with u half an ulp of 1 in d; weights all 1: a 1x5 kernel.
        let u = if d == F16 { pow2(-11) } else { pow2(-8) };
        let x = [1.0, u, u, u, u];
        let case = Case {
            input: contig(&[1, 1, 5], d, 0),
            weight: contig(&[1, 1, 5], d, 1),
            bias: None,
            output: contig(&[1, 1, 1], d, 3),
            stride: vec![1],
            padding: vec![0],
            dilation: vec![1],
            transposed: false,
            out_pad: vec![0],
            groups: 1,
            cube: 0,
        };
        let mut bufs: Vec<Buf> = (0..4).map(|_| Buf::new(64)).collect();
        for (i, v) in x.iter().enumerate() {
            encode(d, *v, &mut bufs[0].bytes_mut()[i * 2..i * 2 + 2]);
            encode(d, 1.0, &mut bufs[1].bytes_mut()[i * 2..i * 2 + 2]);
        }
        let exec = build(&case, &bufs).unwrap();
        run_exec(&exec).unwrap();
        let got = fval(decode(d, &bufs[3].bytes()[..2]));
        assert_eq!(
            got,
            round_float(1.0 + 4.0 * u, d),
            "{d:?}: sum rounded more than once"
        );
        assert_eq!(got, 1.0 + 4.0 * u);
    }
}

/// Output aliasing input (an in-place 1x1 or 3x3 conv): computed as if input were read first.
#[test]
fn output_overlapping_input() {
    let mut rng = Rng::new(5);
    for (k, pad) in [(1usize, 0i64), (3, 1)] {
        let mut case = simple(&[2, 4, 5, 5], &[4, 4, k, k], &[2, 4, 5, 5])
            .with_bias()
            .attrs(&[1, 1], &[pad, pad], &[1, 1]);
        case.output.storage = 0;
        must(&case, &mut rng);
        // f16, output over the input's storage shifted by 7 elements.
        case.input.dtype = F16;
        case.weight.dtype = F16;
        case.output.dtype = F16;
        case.output.offset = 7;
        must(&case, &mut rng);
    }
    // Transposed, output over the input's storage at an offset.
    let mut case = simple(&[1, 2, 4], &[2, 2, 3], &[1, 2, 6]).transposed(&[0]);
    case.output.storage = 0;
    case.output.offset = 3;
    must(&case, &mut rng);
}

#[test]
fn empty_outputs_succeed_and_write_nothing() {
    let mut rng = Rng::new(6);
    let cases = [
        // N = 0.
        simple(&[0, 2, 5, 5], &[3, 2, 3, 3], &[0, 3, 3, 3]).with_bias(),
        // Cout = 0.
        simple(&[1, 2, 5], &[0, 2, 3], &[1, 0, 3]),
        // Cin = 0 with N = 0; transposed N = 0.
        simple(&[0, 0, 5], &[3, 0, 3], &[0, 3, 3]),
        simple(&[0, 2, 4], &[2, 3, 3], &[0, 3, 6]).transposed(&[0]),
    ];
    for case in &cases {
        must(case, &mut rng);
    }
}

// ---------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------

/// The attributes of a case: stride, padding, dilation; outputPadding zeros, not transposed,
/// groups 1 and cubeMathType 0 until changed.
struct Attrs {
    stride: Vec<i64>,
    padding: Vec<i64>,
    dilation: Vec<i64>,
    out_pad: Vec<i64>,
    transposed: bool,
    groups: i64,
    cube: i64,
}

fn attrs(stride: &[i64], padding: &[i64], dilation: &[i64]) -> Attrs {
    Attrs {
        stride: stride.to_vec(),
        padding: padding.to_vec(),
        dilation: dilation.to_vec(),
        out_pad: vec![0; stride.len()],
        transposed: false,
        groups: 1,
        cube: 0,
    }
}

impl Attrs {
    fn op(mut self, out_pad: &[i64]) -> Attrs {
        self.out_pad = out_pad.to_vec();
        self
    }
    fn tr(self, out_pad: &[i64]) -> Attrs {
        Attrs {
            transposed: true,
            ..self.op(out_pad)
        }
    }
    fn g(self, groups: i64) -> Attrs {
        Attrs { groups, ..self }
    }
    fn cube(self, cube: i64) -> Attrs {
        Attrs { cube, ..self }
    }
    fn on(
        &self,
        x: &TensorDesc,
        w: &TensorDesc,
        b: Option<&TensorDesc>,
        y: &TensorDesc,
    ) -> crate::Result<Executor> {
        convolution(
            x,
            w,
            b,
            &self.stride,
            &self.padding,
            &self.dilation,
            self.transposed,
            &self.out_pad,
            self.groups,
            y,
            self.cube,
        )
    }
}

/// Tensors over real storage for error cases.
struct Pool(Vec<Buf>);
impl Pool {
    fn t(&mut self, shape: &[usize], d: DType, format: i32) -> TensorDesc {
        let v = contig(shape, d, 0);
        let b = Buf::new(need_elems(&v) * size(d) + 16);
        let t = desc_in(&v, &b, format).unwrap();
        self.0.push(b);
        t
    }
    fn c(&mut self, shape: &[usize], d: DType) -> TensorDesc {
        self.t(shape, d, layout(shape.len()))
    }
}

fn invalid(r: crate::Result<Executor>, what: &str, needles: &[&str]) {
    match r {
        Err(e @ Error::Invalid(_)) => {
            assert_eq!(e.status(), 161002, "{what}");
            let m = e.to_string();
            for n in needles {
                assert!(m.contains(n), "{what}: message {m:?} lacks {n:?}");
            }
        }
        Err(e) => panic!("{what}: expected an invalid-parameter error, got {e:?}"),
        Ok(_) => panic!("{what}: expected an error, got an executor"),
    }
}

/// A valid 2-D baseline: x (1,4,6,6), w (8,2,3,3), groups 2, bias (8), y (1,8,6,6).
struct Base {
    x: TensorDesc,
    w: TensorDesc,
    b: TensorDesc,
    y: TensorDesc,
}

fn base(p: &mut Pool) -> Base {
    Base {
        x: p.c(&[1, 4, 6, 6], F32),
        w: p.c(&[8, 2, 3, 3], F32),
        b: p.t(&[8], F32, ND),
        y: p.c(&[1, 8, 6, 6], F32),
    }
}

/// The baseline's attributes: stride 1, padding 1, dilation 1, groups 2.
fn conv2d(
    x: &TensorDesc,
    w: &TensorDesc,
    b: Option<&TensorDesc>,
    y: &TensorDesc,
) -> crate::Result<Executor> {
    attrs(&[1, 1], &[1, 1], &[1, 1]).g(2).cube(1).on(x, w, b, y)
}

#[test]
fn baseline_is_valid() {
    let mut p = Pool(vec![]);
    let b = base(&mut p);
    conv2d(&b.x, &b.w, Some(&b.b), &b.y).unwrap();
    conv2d(&b.x, &b.w, None, &b.y).unwrap();
}

#[test]
fn format_errors() {
    let mut p = Pool(vec![]);
    let b = base(&mut p);
    let x_nd = p.t(&[1, 4, 6, 6], F32, ND);
    invalid(
        conv2d(&x_nd, &b.w, None, &b.y),
        "ND input",
        &["input", "ACL_FORMAT_ND", "4 dims", "ACL_FORMAT_NCHW"],
    );
    let w_nd = p.t(&[8, 2, 3, 3], F32, ND);
    invalid(
        conv2d(&b.x, &w_nd, None, &b.y),
        "ND weight",
        &["weight", "ACL_FORMAT_ND"],
    );
    let y_ncdhw = p.t(&[1, 8, 6, 6], F32, NCL);
    invalid(
        conv2d(&b.x, &b.w, None, &y_ncdhw),
        "NCL output of rank 4",
        &["output"],
    );
    let x_nhwc = p.t(&[1, 4, 6, 6], F32, NHWC);
    invalid(
        conv2d(&x_nhwc, &b.w, None, &b.y),
        "NHWC input",
        &["input", "ACL_FORMAT_NHWC", "not supported"],
    );
    // 1-D with NCHW, 3-D with NCHW.
    let x1 = p.t(&[1, 4, 6], F32, ND);
    invalid(
        attrs(&[1], &[0], &[1]).on(&x1, &p.c(&[4, 4, 3], F32), None, &p.c(&[1, 4, 4], F32)),
        "ND 1-D input",
        &["input", "ACL_FORMAT_NCL"],
    );
}

#[test]
fn rank_and_dtype_errors() {
    let mut p = Pool(vec![]);
    let b = base(&mut p);
    let x2 = p.t(&[4, 6], F32, ND);
    invalid(
        conv2d(&x2, &b.w, None, &b.y),
        "2-D input",
        &["input", "3-D"],
    );
    let x6 = p.t(&[1, 4, 2, 2, 2, 2], F32, ND);
    invalid(conv2d(&x6, &b.w, None, &b.y), "6-D input", &["input"]);
    let w3 = p.c(&[8, 2, 3], F32);
    invalid(
        conv2d(&b.x, &w3, None, &b.y),
        "3-D weight",
        &["weight", "same rank"],
    );
    for d in [F64, S32, S8] {
        let x = p.c(&[1, 4, 6, 6], d);
        invalid(
            conv2d(&x, &b.w, None, &b.y),
            "input dtype",
            &["input", "dtype"],
        );
        let y = p.c(&[1, 8, 6, 6], d);
        invalid(
            conv2d(&b.x, &b.w, None, &y),
            "output dtype",
            &["output", "dtype"],
        );
        let bb = p.t(&[8], d, ND);
        invalid(
            conv2d(&b.x, &b.w, Some(&bb), &b.y),
            "bias dtype",
            &["bias", "dtype"],
        );
    }
    // bf16 mixes with f16/f32 (promoted to f32, CANN's `GetUpperFloatDataType`).
    let xb = p.c(&[1, 4, 6, 6], BF16);
    conv2d(&xb, &b.w, None, &b.y).unwrap();
    let wb = p.c(&[8, 2, 3, 3], BF16);
    let yb = p.c(&[1, 8, 6, 6], BF16);
    conv2d(&xb, &wb, None, &yb).unwrap();
    conv2d(&xb, &wb, Some(&b.b), &yb).unwrap();
    // Forward: any float output dtype; transposed: the promoted dtype only.
    let y16 = p.c(&[1, 8, 6, 6], F16);
    conv2d(&b.x, &b.w, None, &y16).unwrap();
    let (xt, wt) = (p.c(&[1, 4, 3, 3], F32), p.c(&[4, 2, 3, 3], F32));
    let yt16 = p.c(&[1, 4, 5, 5], F16);
    invalid(
        attrs(&[1, 1], &[0, 0], &[1, 1])
            .tr(&[0, 0])
            .g(2)
            .on(&xt, &wt, None, &yt16),
        "transposed output dtype",
        &["output", "transposed"],
    );
    let yt = p.c(&[1, 4, 5, 5], F32);
    attrs(&[1, 1], &[0, 0], &[1, 1])
        .tr(&[0, 0])
        .g(2)
        .on(&xt, &wt, None, &yt)
        .unwrap();
}

#[test]
fn attribute_errors() {
    let mut p = Pool(vec![]);
    let b = base(&mut p);
    let run = |s: &[i64], pad: &[i64], d: &[i64], g: i64| {
        attrs(s, pad, d).g(g).on(&b.x, &b.w, None, &b.y)
    };
    invalid(
        run(&[1], &[1, 1], &[1, 1], 2),
        "stride length",
        &["stride", "[1]"],
    );
    invalid(
        run(&[1, 0], &[1, 1], &[1, 1], 2),
        "stride 0",
        &["stride", "> 0"],
    );
    invalid(
        run(&[1, 1], &[1, 1], &[1, 1, 1], 2),
        "dilation length",
        &["dilation"],
    );
    invalid(
        run(&[1, 1], &[1, 1], &[-1, 1], 2),
        "dilation negative",
        &["dilation", "> 0"],
    );
    invalid(
        run(&[1, 1], &[1, 1, 1], &[1, 1], 2),
        "padding length 3",
        &["padding", "2 ([h, w]) or 4"],
    );
    invalid(
        run(&[1, 1], &[1, -1], &[1, 1], 2),
        "padding negative",
        &["padding", ">= 0"],
    );
    for g in [0, -1, 65536, 3] {
        invalid(run(&[1, 1], &[1, 1], &[1, 1], g), "groups", &["groups"]);
    }
    // 4-value padding gives a different output shape: [top, bottom, left, right].
    let y = p.c(&[1, 8, 7, 5], F32);
    attrs(&[1, 1], &[1, 2, 0, 1], &[1, 1])
        .g(2)
        .on(&b.x, &b.w, None, &y)
        .unwrap();
    // cubeMathType 0..4.
    for c in 0..=4 {
        attrs(&[1, 1], &[1, 1], &[1, 1])
            .g(2)
            .cube(c)
            .on(&b.x, &b.w, None, &b.y)
            .unwrap();
    }
    for c in [-1, 5, 127] {
        invalid(
            attrs(&[1, 1], &[1, 1], &[1, 1])
                .g(2)
                .cube(c)
                .on(&b.x, &b.w, None, &b.y),
            "cubeMathType",
            &["cubeMathType"],
        );
    }
    // conv1d: padding 1 or 2 values; transposed conv1d 1 only.
    let (x1, w1) = (p.c(&[1, 2, 6], F32), p.c(&[2, 2, 3], F32));
    let y1 = p.c(&[1, 2, 5], F32);
    attrs(&[1], &[1, 0], &[1]).on(&x1, &w1, None, &y1).unwrap();
    invalid(
        attrs(&[1], &[1, 0, 0], &[1]).on(&x1, &w1, None, &y1),
        "conv1d padding 3",
        &["padding"],
    );
    let yt1 = p.c(&[1, 2, 7], F32);
    invalid(
        attrs(&[1], &[1, 0], &[1]).tr(&[0]).on(&x1, &w1, None, &yt1),
        "transposed conv1d padding 2",
        &["padding", "transposed"],
    );
    // conv3d: 3 values.
    let (x3, w3) = (p.c(&[1, 1, 4, 4, 4], F32), p.c(&[1, 1, 3, 3, 3], F32));
    let y3 = p.c(&[1, 1, 4, 4, 4], F32);
    attrs(&[1, 1, 1], &[1, 1, 1], &[1, 1, 1])
        .on(&x3, &w3, None, &y3)
        .unwrap();
    invalid(
        attrs(&[1, 1, 1], &[1, 1], &[1, 1, 1]).on(&x3, &w3, None, &y3),
        "conv3d padding 2",
        &["padding", "3"],
    );
}

#[test]
fn output_padding_rules() {
    let mut p = Pool(vec![]);
    let (x, w) = (p.c(&[1, 2, 4], F32), p.c(&[2, 3, 3], F32));
    // stride 2, dilation 1: outputPadding 0 or 1.
    for (op, len) in [(0, 9), (1, 10)] {
        attrs(&[2], &[0], &[1])
            .tr(&[op])
            .on(&x, &w, None, &p.c(&[1, 3, len], F32))
            .unwrap();
    }
    invalid(
        attrs(&[2], &[0], &[1])
            .tr(&[2])
            .on(&x, &w, None, &p.c(&[1, 3, 11], F32)),
        "op = stride",
        &["outputPadding", "stride"],
    );
    invalid(
        attrs(&[2], &[0], &[1])
            .tr(&[-1])
            .on(&x, &w, None, &p.c(&[1, 3, 8], F32)),
        "op < 0",
        &["outputPadding"],
    );
    invalid(
        attrs(&[2], &[0], &[1])
            .tr(&[0, 0])
            .on(&x, &w, None, &p.c(&[1, 3, 9], F32)),
        "op length",
        &["outputPadding"],
    );
    // stride 1, dilation 3: outputPadding up to 2 (smaller than the dilation).
    attrs(&[1], &[0], &[3])
        .tr(&[2])
        .on(&x, &w, None, &p.c(&[1, 3, 12], F32))
        .unwrap();
    // Not looked at when not transposed.
    let y = p.c(&[1, 2, 2], F32);
    let wf = p.c(&[2, 2, 3], F32);
    attrs(&[1], &[0], &[1])
        .op(&[7, 7, 7])
        .on(&x, &wf, None, &y)
        .unwrap();
}

#[test]
fn shape_errors() {
    let mut p = Pool(vec![]);
    let b = base(&mut p);
    // Output shape differs from the inferred one: both shapes in the message.
    let y = p.c(&[1, 8, 5, 6], F32);
    invalid(
        conv2d(&b.x, &b.w, None, &y),
        "output shape",
        &["[1, 8, 5, 6]", "[1, 8, 6, 6]"],
    );
    // weight channels x groups != input channels.
    let w = p.c(&[8, 3, 3, 3], F32);
    invalid(
        conv2d(&b.x, &w, None, &b.y),
        "weight channels",
        &["weight", "groups"],
    );
    // Cout not divisible by groups.
    let w = p.c(&[7, 2, 3, 3], F32);
    invalid(
        conv2d(&b.x, &w, None, &p.c(&[1, 7, 6, 6], F32)),
        "Cout % groups",
        &["groups"],
    );
    // bias of the wrong shape.
    for s in [&[7][..], &[1, 8]] {
        let bb = p.t(s, F32, ND);
        invalid(
            conv2d(&b.x, &b.w, Some(&bb), &b.y),
            "bias shape",
            &["bias", "[8]"],
        );
    }
    // Padded input smaller than the dilated kernel.
    let x = p.c(&[1, 4, 2, 2], F32);
    invalid(
        attrs(&[1, 1], &[0, 0], &[1, 1])
            .g(2)
            .on(&x, &b.w, None, &b.y),
        "kernel larger than the padded input",
        &["padded input", "dilated kernel"],
    );
    invalid(
        attrs(&[1, 1], &[0, 0], &[4, 4])
            .g(2)
            .on(&b.x, &b.w, None, &b.y),
        "dilated kernel larger",
        &["dilated kernel", "9"],
    );
    // Kernel size 0.
    let w0 = p.c(&[8, 2, 0, 3], F32);
    invalid(conv2d(&b.x, &w0, None, &b.y), "kernel 0", &["kernel"]);
    // Transposed: weight's first dim must be Cin; bias of weight.shape[1]*groups.
    let (xt, wt) = (p.c(&[1, 4, 3, 3], F32), p.c(&[4, 2, 3, 3], F32));
    let yt = p.c(&[1, 4, 5, 5], F32);
    let bt = p.t(&[2], F32, ND);
    invalid(
        attrs(&[1, 1], &[0, 0], &[1, 1])
            .tr(&[0, 0])
            .g(2)
            .on(&xt, &wt, Some(&bt), &yt),
        "transposed bias",
        &["bias", "[4]", "weight.shape[1]"],
    );
    let wt_bad = p.c(&[3, 2, 3, 3], F32);
    invalid(
        attrs(&[1, 1], &[0, 0], &[1, 1])
            .tr(&[0, 0])
            .on(&xt, &wt_bad, None, &yt),
        "transposed weight",
        &["weight", "Cin"],
    );
    // Transposed output size < 1.
    let (x1, w1) = (p.c(&[1, 1, 1], F32), p.c(&[1, 1, 1], F32));
    invalid(
        attrs(&[1], &[1], &[1])
            .tr(&[0])
            .on(&x1, &w1, None, &p.c(&[1, 1, 1], F32)),
        "transposed size",
        &["must be >= 1"],
    );
    // Empty input channels with a non-empty output.
    let (xe, we) = (p.c(&[1, 0, 5], F32), p.c(&[2, 0, 3], F32));
    invalid(
        attrs(&[1], &[0], &[1]).on(&xe, &we, None, &p.c(&[1, 2, 3], F32)),
        "empty Cin",
        &["dim of 0", "not empty"],
    );
    // An output overlapping itself.
    let yo = TensorDesc {
        strides: smallvec::smallvec![288, 0, 6, 1],
        ..b.y.clone()
    };
    invalid(
        conv2d(&b.x, &b.w, None, &yo),
        "self-overlapping output",
        &["output", "overlap"],
    );
}

/// Bindings follow the parameter order: input 0, weight 1, bias 2 (None when NULL), output 3.
#[test]
fn executor_bindings() {
    let mut p = Pool(vec![]);
    let b = base(&mut p);
    let e = conv2d(&b.x, &b.w, Some(&b.b), &b.y).unwrap();
    assert_eq!(e.bindings.n_inputs, 3);
    assert_eq!(e.bindings.outputs[..], [3]);
    assert_eq!(e.bindings.tensors[0].as_ref(), Some(&b.x));
    assert_eq!(e.bindings.tensors[1].as_ref(), Some(&b.w));
    assert_eq!(e.bindings.tensors[2].as_ref(), Some(&b.b));
    assert_eq!(e.bindings.tensors[3].as_ref(), Some(&b.y));
    let mut e = conv2d(&b.x, &b.w, None, &b.y).unwrap();
    assert!(e.bindings.tensors[2].is_none());
    assert!(e.set_addr(2, 64).is_err());
    // Re-addressing output onto input after planning: refused at run time.
    e.set_addr(3, b.x.addr).unwrap();
    let err = run_exec(&e).unwrap_err();
    assert!(err.to_string().contains("overlap"), "{err}");
}
