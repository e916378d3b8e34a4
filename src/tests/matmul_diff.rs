//! Differential tests of Mm, BatchMatMul, Matmul, Addmm and InplaceAddmm (reference §5.5)
//! against an f64 reference written here with plain loops.
//!
//! The model (written from the reference and the rules `ops/matmul.rs` states, not from its code):
//! - Mm: (m,k)@(k,n) -> (m,n), both 2-D.
//! - BatchMatMul: (ba,m,k)@(bb,k,n) -> (max(ba,bb),m,n), ba == bb or one of them 1.
//! - Matmul (torch.matmul): a 1-D self (k) is a (1,k) matrix whose m dim is dropped from the
//!   result, a 1-D mat2 (k) a (k,1) matrix whose n dim is dropped; batch dims (all but the
//!   last two) broadcast NumPy-style; 1 to 6 dims each.
//! - Addmm: `beta*self + alpha*(mat1@mat2)`, self 1-2 dims broadcasting one way (ONNX Gemm's
//!   unidirectional rule) to (m,n); self is not read when beta == 0 (NaN/inf there do not
//!   leak). InplaceAddmm: selfRef exactly (m,n).
//! - Dtypes: f32, f16, bf16 (f64 too for Addmv only: on Atlas A2 the cube matmul operators
//!   refuse f64, hicann/ops-nn `Dav2201MatMulRule`); bf16 mixes with f16 and f32 (promoted to f32); the
//!   computation dtype is f64 when an input matrix is f64 (Addmv), else f32 (f16/bf16
//!   accumulate in f32); the result is rounded once to out's dtype. cubeMathType 0..=4.
//! - An output overlapping an input is computed as if every input were read first.
//!
//! Accuracy bound used for every element (S = |beta|·|bias| + |alpha|·Σ_p |a_ip|·|b_pj|,
//! all in f64 from the inputs as stored; `want` = the exact-ish f64 value of
//! beta·bias + alpha·Σ a·b):
//!   E   = (k + 2)·2^-23·S   when computing in f32   (≈ 2·γ_k with u = 2^-24: any summation
//!         order, FMA or not, alpha/beta rounded to f32, bias staged as f32)
//!   E   = (2k + 4)·2^-52·S  when computing in f64   (the f64 reference's own error included)
//!   |got − want| <= E + 2^-p·(|want| + E) + tiny
//! where p is out's precision (f16 11, bf16 8, f32 24, f64 53) and `tiny` the smallest
//! subnormal of out's dtype: an f32-accurate sum followed by one round-to-nearest into out.

use super::add_diff::{
    decode, desc, next_index, pow2, round_float, run_exec, size, Buf, Rng, Sc, View, V,
};
use crate::dtype::DType::{self, *};
use crate::error::Error;
use crate::executor::Executor;
use crate::ops::matmul::{
    addmm, addmv, baddbmm, batch_matmul, inplace_addmm, inplace_baddbmm, matmul, mm,
};
use crate::tensor::TensorDesc;

// ---------------------------------------------------------------------------------------
// Values
// ---------------------------------------------------------------------------------------

/// f16 bits of a value exactly representable in f16 (or ±inf / NaN), built by hand.
fn f16_bits(x: f64) -> u16 {
    if x.is_nan() {
        return 0x7e00;
    }
    let s: u16 = if x.is_sign_negative() { 0x8000 } else { 0 };
    let a = x.abs();
    if a.is_infinite() {
        return s | 0x7c00;
    }
    if a == 0.0 {
        return s;
    }
    if a < pow2(-14) {
        let m = a / pow2(-24);
        assert!(m.fract() == 0.0, "{x} is not an f16 value");
        return s | m as u16;
    }
    let mut e = 0i32;
    while pow2(e + 1) <= a {
        e += 1;
    }
    while pow2(e) > a {
        e -= 1;
    }
    let m = (a / pow2(e) - 1.0) * 1024.0;
    assert!(m.fract() == 0.0 && e <= 15, "{x} is not an f16 value");
    s | (((e + 15) as u16) << 10) | m as u16
}

/// Little-endian bytes of `x` (exactly representable in `d`) as a `d` element.
fn encode(d: DType, x: f64) -> [u8; 8] {
    let mut out = [0u8; 8];
    match d {
        F64 => out.copy_from_slice(&x.to_le_bytes()),
        F32 => out[..4].copy_from_slice(&(x as f32).to_le_bytes()),
        BF16 => {
            let bits = (x as f32).to_bits();
            assert!(x.is_nan() || bits & 0xffff == 0, "{x} is not a bf16 value");
            out[..2].copy_from_slice(&((bits >> 16) as u16).to_le_bytes());
        }
        F16 => out[..2].copy_from_slice(&f16_bits(x).to_le_bytes()),
        S32 => out[..4].copy_from_slice(&(x as i32).to_le_bytes()),
        S8 | U8 => out[0] = x as i64 as u8,
        S16 => out[..2].copy_from_slice(&(x as i16).to_le_bytes()),
        S64 => out.copy_from_slice(&(x as i64).to_le_bytes()),
        _ => panic!("encode: {d:?}"),
    }
    out
}

pub(super) fn fval(v: V) -> f64 {
    match v {
        V::F(x) => x,
        V::I(i) => i as f64,
        V::B(b) => b as u8 as f64,
        V::C(r, _) => r,
    }
}

/// A scalar of dtype `d` holding `x` (exact in `d`).
pub(super) fn scal(d: DType, x: f64) -> Sc {
    let mut bytes = [0u8; 16];
    bytes[..8].copy_from_slice(&encode(d, x));
    Sc { dtype: d, bytes }
}

/// A random finite value exactly representable in `d`, magnitude below 8.
fn gen_val(rng: &mut Rng, d: DType) -> f64 {
    match rng.below(10) {
        0 => 0.0,
        1..=2 => rng.below(9) as f64 - 4.0,
        _ => {
            let sign = if rng.next() & 1 == 1 { -1.0 } else { 1.0 };
            let frac = (rng.next() >> 11) as f64 / pow2(53);
            let e = rng.below(5) as i32 - 3;
            round_float(sign * (1.0 + frac) * pow2(e), d)
        }
    }
}

/// Precision (bits) and smallest subnormal of a float dtype.
fn prec(d: DType) -> (i32, f64) {
    match d {
        F16 => (11, pow2(-24)),
        BF16 => (8, pow2(-126) * pow2(-7)),
        F32 => (24, pow2(-126) * pow2(-23)),
        F64 => (53, 0.0),
        _ => unreachable!(),
    }
}

// ---------------------------------------------------------------------------------------
// Cases
// ---------------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Op {
    Mm,
    Bmm,
    Matmul,
    Addmm,
    InplaceAddmm,
    /// Tested in baddbmm_diff.rs: `a` is batch1 / mat, `b` batch2 / vec.
    Baddbmm,
    InplaceBaddbmm,
    Addmv,
}

#[derive(Clone, Debug)]
pub(super) struct Case {
    pub(super) op: Op,
    /// self (Mm, BatchMatMul, Matmul) or mat1 (Addmm).
    pub(super) a: View,
    /// mat2.
    pub(super) b: View,
    /// Addmm's self, InplaceAddmm's selfRef.
    pub(super) bias: Option<View>,
    /// out (None: InplaceAddmm writes `bias`).
    pub(super) out: Option<View>,
    pub(super) alpha: Sc,
    pub(super) beta: Sc,
    pub(super) cube: i64,
}

/// The shape facts of a product by the model.
#[derive(Clone, Debug)]
pub(super) struct Dims {
    pub(super) batch: Vec<usize>,
    pub(super) m: usize,
    pub(super) n: usize,
    pub(super) k: usize,
    keep_m: bool,
    keep_n: bool,
}
impl Dims {
    pub(super) fn out_shape(&self) -> Vec<usize> {
        let mut s = self.batch.clone();
        if self.keep_m {
            s.push(self.m);
        }
        if self.keep_n {
            s.push(self.n);
        }
        s
    }
}

/// NumPy broadcast of two shapes (None: incompatible).
fn bcast(a: &[usize], b: &[usize]) -> Option<Vec<usize>> {
    let r = a.len().max(b.len());
    let mut out = vec![1; r];
    for (j, o) in out.iter_mut().enumerate() {
        let x = if j + a.len() >= r {
            a[j + a.len() - r]
        } else {
            1
        };
        let y = if j + b.len() >= r {
            b[j + b.len() - r]
        } else {
            1
        };
        *o = match (x, y) {
            _ if x == y => x,
            (1, _) => y,
            (_, 1) => x,
            _ => return None,
        };
    }
    Some(out)
}

pub(super) fn model_dims(op: Op, a: &[usize], b: &[usize]) -> Option<Dims> {
    let (ra, rb) = (a.len(), b.len());
    match op {
        Op::Mm | Op::Addmm | Op::InplaceAddmm => {
            (ra == 2 && rb == 2 && a[1] == b[0]).then(|| Dims {
                batch: vec![],
                m: a[0],
                n: b[1],
                k: a[1],
                keep_m: true,
                keep_n: true,
            })
        }
        Op::Addmv => (ra == 2 && rb == 1 && a[1] == b[0]).then(|| Dims {
            batch: vec![],
            m: a[0],
            n: 1,
            k: a[1],
            keep_m: true,
            keep_n: false,
        }),
        Op::Bmm | Op::Baddbmm | Op::InplaceBaddbmm => {
            if ra != 3 || rb != 3 || a[2] != b[1] || (op == Op::InplaceBaddbmm && a[0] != b[0]) {
                return None;
            }
            Some(Dims {
                batch: bcast(&a[..1], &b[..1])?,
                m: a[1],
                n: b[2],
                k: a[2],
                keep_m: true,
                keep_n: true,
            })
        }
        Op::Matmul => {
            if !(1..=6).contains(&ra) || !(1..=6).contains(&rb) {
                return None;
            }
            let (m, k, ab) = if ra == 1 {
                (1, a[0], &a[..0])
            } else {
                (a[ra - 2], a[ra - 1], &a[..ra - 2])
            };
            let (k2, n, bb) = if rb == 1 {
                (b[0], 1, &b[..0])
            } else {
                (b[rb - 2], b[rb - 1], &b[..rb - 2])
            };
            if k != k2 {
                return None;
            }
            Some(Dims {
                batch: bcast(ab, bb)?,
                m,
                n,
                k,
                keep_m: ra > 1,
                keep_n: rb > 1,
            })
        }
    }
}

impl Case {
    fn out_view(&self) -> &View {
        self.out.as_ref().or(self.bias.as_ref()).unwrap()
    }
    fn views(&self) -> Vec<&View> {
        let mut v = vec![&self.a, &self.b];
        v.extend(self.bias.as_ref());
        v.extend(self.out.as_ref());
        v
    }
    fn dims(&self) -> Dims {
        model_dims(self.op, &self.a.shape, &self.b.shape).expect("a valid case")
    }
    fn compute(&self) -> DType {
        if self.a.dtype == F64 || self.b.dtype == F64 {
            F64
        } else {
            F32
        }
    }
    fn has_bias(&self) -> bool {
        matches!(
            self.op,
            Op::Addmm | Op::InplaceAddmm | Op::Baddbmm | Op::InplaceBaddbmm | Op::Addmv
        )
    }
    fn alpha(&self) -> f64 {
        if self.has_bias() {
            fval(self.alpha.value())
        } else {
            1.0
        }
    }
    fn beta(&self) -> f64 {
        if self.has_bias() {
            fval(self.beta.value())
        } else {
            0.0
        }
    }
}

pub(super) fn need_elems(v: &View) -> usize {
    if v.numel() == 0 {
        return v.offset;
    }
    v.offset
        + v.shape
            .iter()
            .zip(&v.strides)
            .map(|(d, s)| (d - 1) * s)
            .sum::<usize>()
        + 1
}

/// Element index (in its storage) of element `idx` of `v` (its own indices).
pub(super) fn at(v: &View, idx: &[usize]) -> usize {
    v.offset
        + idx
            .iter()
            .zip(&v.strides)
            .map(|(i, s)| i * s)
            .sum::<usize>()
}

/// A view of `shape`: row-major, last two dims swapped, or any dim order; sometimes padded
/// (a slice of a bigger storage), sometimes offset; inputs sometimes have an expanded
/// (stride 0) dim.
pub(super) fn gen_view(
    rng: &mut Rng,
    shape: &[usize],
    dtype: DType,
    storage: usize,
    input: bool,
) -> View {
    let r = shape.len();
    let mut order: Vec<usize> = (0..r).collect();
    match rng.below(10) {
        0..=3 => {}
        4..=6 => {
            if r >= 2 {
                order.swap(r - 2, r - 1)
            }
        }
        _ => {
            for i in (1..r).rev() {
                let j = rng.below(i as u64 + 1) as usize;
                order.swap(i, j);
            }
        }
    }
    let padded = rng.pct(40);
    let mut strides = vec![0usize; r];
    let mut acc = 1usize;
    for &d in order.iter().rev() {
        strides[d] = acc;
        let extra = if padded { rng.below(3) as usize } else { 0 };
        acc *= shape[d].max(1) + extra;
    }
    if input && r > 0 && rng.pct(10) {
        let d = rng.below(r as u64) as usize;
        if shape[d] > 1 {
            strides[d] = 0;
        }
    }
    let offset = if rng.pct(40) {
        rng.below(7) as usize
    } else {
        0
    };
    View {
        shape: shape.to_vec(),
        strides,
        offset,
        dtype,
        storage,
    }
}

/// An output view (own storage `storage`) of a random out dtype.
fn gen_out_view(rng: &mut Rng, shape: &[usize], storage: usize, op: Op) -> View {
    let od = gen_out_dtype(rng, op);
    gen_view(rng, shape, od, storage, false)
}

pub(super) fn contig(shape: &[usize], dtype: DType, storage: usize) -> View {
    View::contiguous(shape, dtype, storage)
}

// ---------------------------------------------------------------------------------------
// Running a case
// ---------------------------------------------------------------------------------------

/// What a run did.
#[derive(Debug, Default)]
pub(super) struct Outcome {
    pub(super) workspace: u64,
    pub(super) elements: usize,
}

fn storage_bytes(case: &Case, s: usize) -> usize {
    bytes_for(&case.views(), s)
}

/// Bytes storage `s` needs for every view of `views` over it (plus slack).
pub(super) fn bytes_for(views: &[&View], s: usize) -> usize {
    views
        .iter()
        .filter(|v| v.storage == s)
        .map(|v| need_elems(v) * size(v.dtype))
        .max()
        .unwrap_or(0)
        + 16
}

/// Writes values into every element of an input view. `poison`: NaN, ±inf and huge values
/// mixed in (a bias that must not be read).
fn fill_view(v: &View, rng: &mut Rng, bufs: &mut [Buf], poison: bool) {
    let sz = size(v.dtype);
    let mut idx = vec![0usize; v.shape.len()];
    for _ in 0..v.numel() {
        let x = if poison {
            match rng.below(4) {
                0 => f64::NAN,
                1 => f64::INFINITY,
                2 => f64::NEG_INFINITY,
                _ => gen_val(rng, v.dtype),
            }
        } else {
            gen_val(rng, v.dtype)
        };
        let e = at(v, &idx) * sz;
        bufs[v.storage].bytes_mut()[e..e + sz].copy_from_slice(&encode(v.dtype, x)[..sz]);
        next_index(&mut idx, &v.shape);
    }
}

fn build(case: &Case, bufs: &[Buf]) -> crate::Result<Executor> {
    let d = |v: &View| desc(v, &bufs[v.storage]);
    let (a, b) = (d(&case.a)?, d(&case.b)?);
    let (alpha, beta) = (case.alpha.to_scalar(), case.beta.to_scalar());
    match case.op {
        Op::Mm => mm(&a, &b, &d(case.out.as_ref().unwrap())?, case.cube),
        Op::Bmm => batch_matmul(&a, &b, &d(case.out.as_ref().unwrap())?, case.cube),
        Op::Matmul => matmul(&a, &b, &d(case.out.as_ref().unwrap())?, case.cube),
        // Addmm and Baddbmm (and their in-place forms) take the same arguments.
        Op::Addmm | Op::Baddbmm => {
            let f = if case.op == Op::Addmm { addmm } else { baddbmm };
            f(
                &d(case.bias.as_ref().unwrap())?,
                &a,
                &b,
                &beta,
                &alpha,
                &d(case.out.as_ref().unwrap())?,
                case.cube,
            )
        }
        Op::InplaceAddmm | Op::InplaceBaddbmm => {
            let f = if case.op == Op::InplaceAddmm {
                inplace_addmm
            } else {
                inplace_baddbmm
            };
            f(
                &d(case.bias.as_ref().unwrap())?,
                &a,
                &b,
                &beta,
                &alpha,
                case.cube,
            )
        }
        Op::Addmv => addmv(
            &d(case.bias.as_ref().unwrap())?,
            &a,
            &b,
            &alpha,
            &beta,
            &d(case.out.as_ref().unwrap())?,
            case.cube,
        ),
    }
}

/// The reference value and S (see the module comment) of out element (bi, i, j).
fn reference(
    case: &Case,
    dims: &Dims,
    before: &[Vec<u8>],
    bi: &[usize],
    i: usize,
    j: usize,
) -> (f64, f64) {
    let read = |v: &View, e: usize| {
        let sz = size(v.dtype);
        fval(decode(v.dtype, &before[v.storage][e * sz..e * sz + sz]))
    };
    // An operand's element (row r, col c) at batch index bi (right-aligned, size-1 broadcast).
    let elem = |v: &View, r: usize, c: usize, is_a: bool| -> f64 {
        let rank = v.shape.len();
        if rank == 1 {
            return read(v, v.offset + if is_a { c } else { r } * v.strides[0]);
        }
        let own = rank - 2;
        let lead = bi.len() - own;
        let mut e = v.offset + r * v.strides[rank - 2] + c * v.strides[rank - 1];
        for d in 0..own {
            if v.shape[d] != 1 {
                e += bi[lead + d] * v.strides[d];
            }
        }
        read(v, e)
    };
    let (alpha, beta) = (case.alpha(), case.beta());
    let mut sum = 0.0f64;
    let mut abs = 0.0f64;
    for p in 0..dims.k {
        let x = elem(&case.a, i, p, true);
        let y = elem(&case.b, p, j, false);
        sum += x * y;
        abs += (x * y).abs();
    }
    let mut want = alpha * sum;
    let mut s = alpha.abs() * abs;
    if beta != 0.0 {
        // self broadcasts one way to the result: right-aligned, size-1 dims repeated.
        let bv = case.bias.as_ref().unwrap();
        let mut oidx = bi.to_vec();
        if dims.keep_m {
            oidx.push(i);
        }
        if dims.keep_n {
            oidx.push(j);
        }
        let lead = oidx.len() - bv.shape.len();
        let mut e = bv.offset;
        for (d, (&len, &st)) in bv.shape.iter().zip(&bv.strides).enumerate() {
            if len != 1 {
                e += oidx[lead + d] * st;
            }
        }
        let c = read(bv, e);
        want += beta * c;
        s += (beta * c).abs();
    }
    (want, s)
}

fn close(got: f64, want: f64, s: f64, k: usize, compute: DType, out: DType) -> bool {
    if want.is_nan() || s.is_nan() {
        return got.is_nan();
    }
    if want.is_infinite() {
        return got == want;
    }
    let e = match compute {
        F64 => (2 * k + 4) as f64 * pow2(-52) * s,
        _ => (k + 2) as f64 * pow2(-23) * s,
    };
    let (p, tiny) = prec(out);
    (got - want).abs() <= e + pow2(-p) * (want.abs() + e) + tiny
}

/// Builds, runs and checks one valid case. Err: a report of the first discrepancy.
fn run_case(case: &Case, rng: &mut Rng) -> Result<Outcome, String> {
    let report = |what: String| format!("{what}\n  case: {case:?}");
    let n_st = case.views().iter().map(|v| v.storage + 1).max().unwrap();
    let mut bufs: Vec<Buf> = (0..n_st)
        .map(|s| Buf::new(storage_bytes(case, s)))
        .collect();
    for b in bufs.iter_mut() {
        for x in b.bytes_mut() {
            *x = rng.next() as u8;
        }
    }
    if let Some(bias) = &case.bias {
        fill_view(bias, rng, &mut bufs, case.beta() == 0.0);
    }
    fill_view(&case.a, rng, &mut bufs, false);
    fill_view(&case.b, rng, &mut bufs, false);
    let before: Vec<Vec<u8>> = bufs.iter().map(|b| b.bytes().to_vec()).collect();

    let exec =
        build(case, &bufs).map_err(|e| report(format!("phase 1 failed unexpectedly: {e}")))?;
    let ws = exec.workspace_size();
    let out = case.out_view();
    if out.numel() == 0 && ws != 0 {
        return Err(report(format!("empty output but workspace {ws}")));
    }
    run_exec(&exec).map_err(|e| report(format!("phase 2 failed: {e}")))?;
    drop(exec);

    let dims = case.dims();
    let full = dims.out_shape();
    let drop = full.len().saturating_sub(out.shape.len());
    if full[drop..] != out.shape[..] || full[..drop].iter().any(|&d| d != 1) {
        return Err(report(format!(
            "test bug: out shape {:?} vs model {:?}",
            out.shape,
            dims.out_shape()
        )));
    }
    let osz = size(out.dtype);
    let mut written: Vec<Vec<bool>> = bufs.iter().map(|b| vec![false; b.bytes().len()]).collect();
    let mut bi = vec![0usize; dims.batch.len()];
    let batches: usize = dims.batch.iter().product();
    let mut elements = 0;
    for _ in 0..batches {
        for i in 0..dims.m {
            for j in 0..dims.n {
                let mut oidx = bi.clone();
                if dims.keep_m {
                    oidx.push(i);
                }
                if dims.keep_n {
                    oidx.push(j);
                }
                let oidx = oidx[drop..].to_vec();
                let e = at(out, &oidx) * osz;
                let got = fval(decode(out.dtype, &bufs[out.storage].bytes()[e..e + osz]));
                let (want, s) = reference(case, &dims, &before, &bi, i, j);
                if !close(got, want, s, dims.k, case.compute(), out.dtype) {
                    return Err(report(format!(
                        "wrong value at out index {oidx:?}: got {got:e}, want {want:e} (S = {s:e}, k = {}, computed in {:?}, out {:?}, err {:e})",
                        dims.k,
                        case.compute(),
                        out.dtype,
                        (got - want).abs()
                    )));
                }
                for w in &mut written[out.storage][e..e + osz] {
                    *w = true;
                }
                elements += 1;
            }
        }
        next_index(&mut bi, &dims.batch);
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
    Ok(Outcome {
        workspace: ws,
        elements,
    })
}

pub(super) fn must(case: &Case, rng: &mut Rng) -> Outcome {
    match run_case(case, rng) {
        Ok(o) => o,
        Err(e) => panic!("{e}"),
    }
}

// ---------------------------------------------------------------------------------------
// Case generation
// ---------------------------------------------------------------------------------------

const FLOATS: [DType; 4] = [F32, F16, BF16, F64];
/// The dtypes of the cube matmul operators on Atlas A2 (every op here but Addmv).
const CUBE: [DType; 3] = [F32, F16, BF16];

/// The float dtypes `op` takes.
fn floats(op: Op) -> &'static [DType] {
    if op == Op::Addmv {
        &FLOATS
    } else {
        &CUBE
    }
}

/// A valid (self/mat1, mat2) dtype pair of `op`.
fn gen_in_dtypes(rng: &mut Rng, op: Op) -> (DType, DType) {
    let fl = floats(op);
    match rng.below(10) {
        0..=5 => {
            let d = rng.pick(fl);
            (d, d)
        }
        6 => (F16, F32),
        7 => (F32, F16),
        8 if op == Op::Addmv => (F64, rng.pick(fl)),
        9 if op == Op::Addmv => (rng.pick(fl), F64),
        // bf16 mixed with f32 or f16 (ggml's MUL_MAT): promoted to f32
        _ => {
            let other = rng.pick(&[F32, F16]);
            if rng.below(2) == 0 {
                (BF16, other)
            } else {
                (other, BF16)
            }
        }
    }
}

fn gen_out_dtype(rng: &mut Rng, op: Op) -> DType {
    if op == Op::Addmv {
        rng.pick(&[F32, F32, F16, BF16, F64])
    } else {
        rng.pick(&[F32, F32, F16, BF16])
    }
}

/// A valid Addmm self dtype for mat1/mat2 dtypes (any of f32/f16/bf16; f64 only for Addmv).
fn gen_bias_dtype(rng: &mut Rng, a: DType, b: DType, op: Op) -> DType {
    if a == F64 || b == F64 {
        return rng.pick(&FLOATS);
    }
    if op == Op::Addmv {
        rng.pick(&[F32, F16, BF16, F64])
    } else {
        rng.pick(&[F32, F16, BF16, BF16])
    }
}

fn small(rng: &mut Rng) -> usize {
    match rng.below(20) {
        0 => 0,
        1..=3 => 1,
        4..=16 => 2 + rng.below(7) as usize,
        _ => 9 + rng.below(24) as usize,
    }
}

fn gen_scalar(rng: &mut Rng, zero_pct: u64) -> Sc {
    if rng.pct(zero_pct) {
        return scal(rng.pick(&[F32, S32, F64]), 0.0);
    }
    match rng.below(8) {
        0 => scal(F32, 1.0),
        1 => scal(S32, rng.below(7) as f64 - 3.0),
        2 => scal(S64, 2.0),
        3 => scal(S8, -1.0),
        4 => scal(U8, 3.0),
        5 => scal(F16, rng.pick(&[0.5, -1.5, 2.0])),
        6 => scal(F64, rng.pick(&[0.3, -0.7, 1.25])),
        _ => scal(F32, rng.pick(&[0.1, -2.5, 0.75])),
    }
}

pub(super) fn new_case(op: Op, a: View, b: View, bias: Option<View>, out: Option<View>) -> Case {
    Case {
        op,
        a,
        b,
        bias,
        out,
        alpha: scal(F32, 1.0),
        beta: scal(F32, 1.0),
        cube: 1,
    }
}

/// A random valid case of `op`. Inputs and out each get their own storage.
pub(super) fn gen_case(rng: &mut Rng, op: Op) -> Case {
    let (da, db) = if op == Op::Addmv && rng.pct(30) {
        // Addmv promotes: bf16 mixes with f16 and f32 there.
        (rng.pick(&FLOATS), rng.pick(&FLOATS))
    } else {
        gen_in_dtypes(rng, op)
    };
    let (a_shape, b_shape): (Vec<usize>, Vec<usize>) = match op {
        Op::Mm | Op::Addmm | Op::InplaceAddmm => {
            let (m, k, n) = (small(rng), small(rng), small(rng));
            (vec![m, k], vec![k, n])
        }
        Op::Addmv => {
            let (m, k) = (small(rng), small(rng));
            (vec![m, k], vec![k])
        }
        Op::Bmm | Op::Baddbmm | Op::InplaceBaddbmm => {
            let (m, k, n) = (small(rng), small(rng), small(rng));
            let bt = if rng.pct(5) {
                0
            } else {
                1 + rng.below(4) as usize
            };
            let (ba, bb) = match rng.below(4) {
                _ if op == Op::InplaceBaddbmm => (bt, bt),
                0 => (1, bt),
                1 => (bt, 1),
                _ => (bt, bt),
            };
            (vec![ba, m, k], vec![bb, k, n])
        }
        Op::Matmul => {
            let rank = |rng: &mut Rng| -> usize {
                match rng.below(12) {
                    0..=2 => 1,
                    3..=5 => 2,
                    6..=8 => 3,
                    9 => 4,
                    10 => 5,
                    _ => 6,
                }
            };
            let (ra, rb) = (rank(rng), rank(rng));
            let l = ra.max(rb).max(2) - 2;
            let mut full = Vec::new();
            let mut prod = 1;
            for _ in 0..l {
                let d = if prod >= 12 {
                    1
                } else {
                    1 + rng.below(3) as usize
                };
                prod *= d;
                full.push(d);
            }
            let own = |rng: &mut Rng, r: usize| -> Vec<usize> {
                if r < 3 {
                    return vec![];
                }
                full[l - (r - 2)..]
                    .iter()
                    .map(|&d| if rng.pct(30) { 1 } else { d })
                    .collect()
            };
            let (m, k, n) = (small(rng).min(9), small(rng).min(12), small(rng).min(9));
            let mut a = own(rng, ra);
            if ra >= 2 {
                a.extend([m, k]);
            } else {
                a.push(k);
            }
            let mut b = own(rng, rb);
            if rb >= 2 {
                b.extend([k, n]);
            } else {
                b.push(k);
            }
            (a, b)
        }
    };
    let dims = model_dims(op, &a_shape, &b_shape).unwrap();
    let a = gen_view(rng, &a_shape, da, 0, true);
    let b = gen_view(rng, &b_shape, db, 1, true);
    let mut case = new_case(op, a, b, None, None);
    case.cube = rng.below(5) as i64;
    let (m, n) = (dims.m, dims.n);
    match op {
        Op::Addmm => {
            let shapes: [Vec<usize>; 7] = [
                vec![1],
                vec![n],
                vec![1, n],
                vec![m, 1],
                vec![m, n],
                vec![m, n],
                vec![1, 1],
            ];
            let bias_shape = &shapes[rng.below(7) as usize];
            let bd = gen_bias_dtype(rng, da, db, op);
            case.bias = Some(gen_view(rng, bias_shape, bd, 2, true));
            case.out = Some(gen_out_view(rng, &dims.out_shape(), 3, op));
            case.alpha = gen_scalar(rng, 5);
            case.beta = gen_scalar(rng, 25);
        }
        Op::InplaceAddmm => {
            // selfRef is both an input and the output: no expanded dims; it is `self` for the
            // bf16 mixing rule.
            let sd = gen_bias_dtype(rng, da, db, op);
            case.bias = Some(gen_view(rng, &[m, n], sd, 2, false));
            case.alpha = gen_scalar(rng, 5);
            case.beta = gen_scalar(rng, 25);
        }
        Op::Baddbmm => {
            let os = dims.out_shape();
            let (b, n) = (os[0], dims.n);
            // Every shape broadcasting one way to (b,m,n); an empty product needs an empty self.
            let shapes: [Vec<usize>; 10] = [
                vec![1],
                vec![n],
                vec![1, n],
                vec![m, 1],
                vec![m, n],
                vec![1, 1, 1],
                vec![b, 1, n],
                vec![1, m, n],
                vec![b, m, 1],
                vec![b, m, n],
            ];
            let bias_shape = if os.contains(&0) {
                os.clone()
            } else {
                shapes[rng.below(10) as usize].clone()
            };
            let bd = gen_bias_dtype(rng, da, db, op);
            case.bias = Some(gen_view(rng, &bias_shape, bd, 2, true));
            case.out = Some(gen_out_view(rng, &os, 3, op));
            case.alpha = gen_bool_or_scalar(rng, 5);
            case.beta = gen_bool_or_scalar(rng, 25);
        }
        Op::InplaceBaddbmm => {
            let os = dims.out_shape();
            let shape = if os[0] == 1 && rng.pct(40) {
                os[1..].to_vec()
            } else {
                os
            };
            let sd = gen_bias_dtype(rng, da, db, op);
            case.bias = Some(gen_view(rng, &shape, sd, 2, false));
            case.alpha = gen_bool_or_scalar(rng, 5);
            case.beta = gen_bool_or_scalar(rng, 25);
        }
        Op::Addmv => {
            case.alpha = gen_scalar(rng, 5);
            case.beta = gen_scalar(rng, 25);
            // A size-1 self broadcasts only when alpha is not 0.
            let alpha0 = fval(case.alpha.value()) == 0.0;
            let bias_shape = match rng.below(4) {
                0 => vec![],
                1 if !alpha0 => vec![1],
                _ => vec![m],
            };
            let bd = rng.pick(&FLOATS);
            case.bias = Some(gen_view(rng, &bias_shape, bd, 2, true));
            case.out = Some(gen_out_view(rng, &dims.out_shape(), 3, op));
        }
        _ => case.out = Some(gen_out_view(rng, &dims.out_shape(), 2, op)),
    }
    case
}

/// Baddbmm's beta and alpha may also be bool.
fn gen_bool_or_scalar(rng: &mut Rng, zero_pct: u64) -> Sc {
    if rng.pct(10) {
        let b = rng.pct(50);
        return Sc {
            dtype: Bool,
            bytes: [b as u8; 16],
        };
    }
    gen_scalar(rng, zero_pct)
}

pub(super) fn run_random(seed: u64, op: Op, count: usize) -> usize {
    let mut rng = Rng::new(seed);
    let mut elements = 0;
    for _ in 0..count {
        let case = gen_case(&mut rng, op);
        elements += must(&case, &mut rng).elements;
    }
    assert!(elements > count, "too few elements checked: {elements}");
    elements
}

// ---------------------------------------------------------------------------------------
// Random differential tests
// ---------------------------------------------------------------------------------------

#[test]
fn mm_random() {
    run_random(0x3131, Op::Mm, 400);
}

/// Products whose f16/bf16 mat2 is read panel by panel at the production size (k·n ≥ 2^16),
/// as an LLM's decode (m = 1) and prefill run them, in random views (transposed, padded,
/// offset, broadcast).
#[test]
fn mm_with_a_large_half_precision_weight() {
    let mut rng = Rng::new(0x9A9E);
    for &(m, k, n) in &[(1, 1024, 300), (37, 300, 260), (3, 2816, 40), (9, 64, 1100)] {
        for db in [F16, BF16] {
            for da in [F32, F16] {
                let a = gen_view(&mut rng, &[m, k], da, 0, true);
                let b = gen_view(&mut rng, &[k, n], db, 1, true);
                let mut case = new_case(Op::Mm, a, b, None, None);
                case.out = Some(gen_out_view(&mut rng, &[m, n], 2, Op::Mm));
                must(&case, &mut rng);
            }
        }
    }
}

#[test]
fn batch_matmul_random() {
    run_random(0xB3B3, Op::Bmm, 300);
}

#[test]
fn matmul_random() {
    run_random(0x3A73, Op::Matmul, 500);
}

#[test]
fn addmm_random() {
    run_random(0xADD3, Op::Addmm, 500);
}

#[test]
fn inplace_addmm_random() {
    run_random(0x1ADD, Op::InplaceAddmm, 300);
}

// ---------------------------------------------------------------------------------------
// Shape rules, one by one
// ---------------------------------------------------------------------------------------

/// Runs `op` on (a_shape)@(b_shape) for several dtypes and layouts (contiguous first), with
/// out of the model's shape; returns that shape.
fn shape_case(rng: &mut Rng, op: Op, a_shape: &[usize], b_shape: &[usize]) -> Vec<usize> {
    let dims =
        model_dims(op, a_shape, b_shape).unwrap_or_else(|| panic!("{a_shape:?}@{b_shape:?}"));
    let os = dims.out_shape();
    for round in 0..8 {
        let (da, db) = if round == 0 {
            (F32, F32)
        } else {
            gen_in_dtypes(rng, op)
        };
        let (a, b, out) = if round == 0 {
            (
                contig(a_shape, da, 0),
                contig(b_shape, db, 1),
                contig(&os, F32, 2),
            )
        } else {
            (
                gen_view(rng, a_shape, da, 0, true),
                gen_view(rng, b_shape, db, 1, true),
                gen_out_view(rng, &os, 2, op),
            )
        };
        let mut case = new_case(op, a, b, None, Some(out));
        case.cube = round % 5;
        must(&case, rng);
    }
    os
}

#[test]
fn mm_shapes() {
    let mut rng = Rng::new(11);
    assert_eq!(shape_case(&mut rng, Op::Mm, &[3, 4], &[4, 5]), [3, 5]);
    assert_eq!(shape_case(&mut rng, Op::Mm, &[1, 7], &[7, 1]), [1, 1]);
    assert_eq!(shape_case(&mut rng, Op::Mm, &[6, 1], &[1, 6]), [6, 6]);
    assert_eq!(shape_case(&mut rng, Op::Mm, &[17, 33], &[33, 9]), [17, 9]);
}

#[test]
fn batch_matmul_shapes() {
    let mut rng = Rng::new(12);
    assert_eq!(
        shape_case(&mut rng, Op::Bmm, &[3, 2, 4], &[3, 4, 5]),
        [3, 2, 5]
    );
    assert_eq!(
        shape_case(&mut rng, Op::Bmm, &[3, 2, 4], &[1, 4, 5]),
        [3, 2, 5]
    );
    assert_eq!(
        shape_case(&mut rng, Op::Bmm, &[1, 2, 4], &[4, 4, 5]),
        [4, 2, 5]
    );
    assert_eq!(
        shape_case(&mut rng, Op::Bmm, &[1, 3, 3], &[1, 3, 3]),
        [1, 3, 3]
    );
}

#[test]
fn matmul_shapes() {
    let mut rng = Rng::new(13);
    let (m, k, n, b) = (3, 4, 5, 2);
    let cases: &[(&[usize], &[usize], &[usize])] = &[
        (&[k], &[k], &[]),
        (&[k], &[k, n], &[n]),
        (&[m, k], &[k], &[m]),
        (&[m, k], &[k, n], &[m, n]),
        (&[b, m, k], &[k, n], &[b, m, n]),
        (&[m, k], &[b, k, n], &[b, m, n]),
        (&[k], &[b, k, n], &[b, n]),
        (&[b, m, k], &[k], &[b, m]),
        (&[2, 1, 3, m, k], &[4, 1, k, n], &[2, 4, 3, m, n]),
        (&[2, 1, 3, m, k], &[k], &[2, 1, 3, m]),
        (&[k], &[2, 1, 3, k, n], &[2, 1, 3, n]),
        (
            &[2, 1, 2, 1, m, k],
            &[1, 2, 1, 2, k, n],
            &[2, 2, 2, 2, m, n],
        ),
        (
            &[1, 1, 1, 1, 1, k],
            &[1, 1, 1, 1, k, n],
            &[1, 1, 1, 1, 1, n],
        ),
        (&[2, 3, 1, 2, 1, 1], &[1], &[2, 3, 1, 2, 1]),
        (&[1, k], &[k], &[1]),
        (&[k], &[k, 1], &[1]),
        (&[1], &[1], &[]),
    ];
    for (a, bb, want) in cases {
        assert_eq!(
            shape_case(&mut rng, Op::Matmul, a, bb),
            *want,
            "{a:?} @ {bb:?}"
        );
    }
}

/// Exact values on a hand-checked product: (K)@(K) -> 0-d, (K)@(K,N), (M,K)@(K).
#[test]
fn matmul_vector_values() {
    let mut bufs = Vec::new();
    let mut mk = |shape: &[usize], vals: &[f64]| -> TensorDesc {
        let v = contig(shape, F32, 0);
        let mut b = Buf::new(vals.len().max(1) * 4 + 8);
        for (i, x) in vals.iter().enumerate() {
            b.bytes_mut()[i * 4..i * 4 + 4].copy_from_slice(&(*x as f32).to_le_bytes());
        }
        let t = desc(&v, &b).unwrap();
        bufs.push(b);
        t
    };
    let x = mk(&[3], &[1.0, 2.0, 3.0]);
    let w = mk(&[3, 2], &[1.0, -1.0, 0.5, 2.0, -2.0, 0.0]);
    let a = mk(&[2, 3], &[1.0, 0.0, -1.0, 2.0, 2.0, 2.0]);
    let o0 = mk(&[], &[7.0]);
    let o2 = mk(&[2], &[7.0, 7.0]);
    let read = |t: &TensorDesc, n: usize| -> Vec<f32> {
        (0..n)
            .map(|i| unsafe { *((t.addr + 4 * i) as *const f32) })
            .collect()
    };
    run_exec(&matmul(&x, &x, &o0, 0).unwrap()).unwrap();
    assert_eq!(read(&o0, 1), [14.0]);
    run_exec(&matmul(&x, &w, &o2, 0).unwrap()).unwrap();
    assert_eq!(read(&o2, 2), [-4.0, 3.0]);
    run_exec(&matmul(&a, &x, &o2, 0).unwrap()).unwrap();
    assert_eq!(read(&o2, 2), [-2.0, 12.0]);
    drop(bufs);
}

// ---------------------------------------------------------------------------------------
// Addmm: bias shapes, alpha/beta, beta = 0
// ---------------------------------------------------------------------------------------

#[test]
fn addmm_bias_shapes_and_scalars() {
    let mut rng = Rng::new(21);
    let (m, k, n) = (4, 5, 3);
    let shapes: &[&[usize]] = &[&[1], &[n], &[1, n], &[m, 1], &[m, n], &[1, 1]];
    let scalars = [
        (scal(F32, 1.0), scal(F32, 1.0)),
        (scal(F32, 2.5), scal(F64, -0.5)),
        (scal(S32, -2.0), scal(S64, 3.0)),
        (scal(F16, 0.5), scal(U8, 2.0)),
        (scal(S8, 0.0), scal(F32, 1.0)),
        (scal(F64, 0.3), scal(S16, 0.0)),
    ];
    for shape in shapes {
        for (alpha, beta) in scalars {
            for layout in 0..3 {
                let (a, b, bias, out) = if layout == 0 {
                    (
                        contig(&[m, k], F32, 0),
                        contig(&[k, n], F32, 1),
                        contig(shape, F32, 2),
                        contig(&[m, n], F32, 3),
                    )
                } else {
                    let (da, db) = gen_in_dtypes(&mut rng, Op::Addmm);
                    let bd = gen_bias_dtype(&mut rng, da, db, Op::Addmm);
                    (
                        gen_view(&mut rng, &[m, k], da, 0, true),
                        gen_view(&mut rng, &[k, n], db, 1, true),
                        gen_view(&mut rng, shape, bd, 2, true),
                        gen_out_view(&mut rng, &[m, n], 3, Op::Addmm),
                    )
                };
                let mut case = new_case(Op::Addmm, a, b, Some(bias), Some(out));
                case.alpha = alpha;
                case.beta = beta;
                must(&case, &mut rng);
            }
        }
    }
}

/// beta = 0: self is not read, so NaN and inf in it do not reach out (Addmm and
/// InplaceAddmm, every bias shape, f32 and f16 outputs).
#[test]
fn addmm_beta_zero_does_not_read_self() {
    let mut rng = Rng::new(22);
    let (m, k, n) = (3, 4, 5);
    for zero in [
        scal(F32, 0.0),
        scal(S32, 0.0),
        scal(F64, -0.0),
        scal(F16, 0.0),
    ] {
        for shape in [&[1usize][..], &[n], &[1, n], &[m, 1], &[m, n]] {
            for od in [F32, F16, BF16] {
                let dt = if od == BF16 { BF16 } else { F32 };
                let bias = contig(shape, dt, 2);
                let mut case = new_case(
                    Op::Addmm,
                    contig(&[m, k], dt, 0),
                    contig(&[k, n], dt, 1),
                    Some(bias),
                    Some(contig(&[m, n], od, 3)),
                );
                case.beta = zero;
                case.alpha = scal(F32, 1.5);
                // run_case fills a bias that must not be read with NaN / ±inf.
                must(&case, &mut rng);
            }
        }
        // All-NaN selfRef, in place.
        let mut case = new_case(
            Op::InplaceAddmm,
            contig(&[m, k], F32, 0),
            contig(&[k, n], F32, 1),
            Some(contig(&[m, n], F32, 2)),
            None,
        );
        case.beta = zero;
        let mut bufs: Vec<Buf> = (0..3).map(|s| Buf::new(storage_bytes(&case, s))).collect();
        fill_view(&case.a, &mut rng, &mut bufs, false);
        fill_view(&case.b, &mut rng, &mut bufs, false);
        for c in bufs[2].bytes_mut().chunks_mut(4) {
            c.copy_from_slice(&f32::NAN.to_le_bytes());
        }
        let exec = build(&case, &bufs).unwrap();
        run_exec(&exec).unwrap();
        for c in bufs[2].bytes()[..m * n * 4].chunks(4) {
            let v = f32::from_le_bytes(c.try_into().unwrap());
            assert!(v.is_finite(), "NaN selfRef leaked with beta = {:?}", zero);
        }
    }
}

/// With beta != 0 a NaN in self does propagate (to exactly the elements it broadcasts to).
#[test]
fn addmm_nan_in_self_propagates_when_read() {
    let (m, k, n) = (2, 3, 3);
    let mut rng = Rng::new(23);
    let case = new_case(
        Op::Addmm,
        contig(&[m, k], F32, 0),
        contig(&[k, n], F32, 1),
        Some(contig(&[n], F32, 2)),
        Some(contig(&[m, n], F32, 3)),
    );
    let mut bufs: Vec<Buf> = (0..4).map(|s| Buf::new(storage_bytes(&case, s))).collect();
    fill_view(&case.a, &mut rng, &mut bufs, false);
    fill_view(&case.b, &mut rng, &mut bufs, false);
    let bias: [f32; 3] = [1.0, f32::NAN, 2.0];
    for (i, x) in bias.iter().enumerate() {
        bufs[2].bytes_mut()[i * 4..i * 4 + 4].copy_from_slice(&x.to_le_bytes());
    }
    run_exec(&build(&case, &bufs).unwrap()).unwrap();
    for i in 0..m {
        for j in 0..n {
            let e = (i * n + j) * 4;
            let v = f32::from_le_bytes(bufs[3].bytes()[e..e + 4].try_into().unwrap());
            assert_eq!(v.is_nan(), j == 1, "out[{i}][{j}] = {v}");
        }
    }
}

/// NaN and inf in a matrix operand propagate as IEEE arithmetic says: a NaN in row 0 of
/// mat1 makes row 0 of out NaN (even against zeros); inf against 0 is NaN; inf against
/// positive values is inf.
#[test]
fn nan_and_inf_in_operands_propagate() {
    for op in [Op::Mm, Op::Matmul, Op::Addmm] {
        for (da, od) in [(F32, F32), (F16, F16), (BF16, F32)] {
            let (m, k, n) = (3, 2, 4);
            let mut case = new_case(
                op,
                contig(&[m, k], da, 0),
                contig(&[k, n], da, 1),
                (op == Op::Addmm).then(|| contig(&[n], da, 2)),
                Some(contig(&[m, n], od, 3)),
            );
            case.beta = scal(F32, 0.0);
            let mut bufs: Vec<Buf> = (0..4).map(|s| Buf::new(storage_bytes(&case, s))).collect();
            let sz = size(da);
            let put = |bufs: &mut [Buf], st: usize, e: usize, x: f64| {
                bufs[st].bytes_mut()[e * sz..e * sz + sz].copy_from_slice(&encode(da, x)[..sz]);
            };
            // mat1 rows: [NaN, 1], [inf, 1], [1, 1]; mat2: row 0 = [0, 1, 2, 0], row 1 = [1, 1, 1, 1]
            for (e, x) in [f64::NAN, 1.0, f64::INFINITY, 1.0, 1.0, 1.0]
                .into_iter()
                .enumerate()
            {
                put(&mut bufs, 0, e, x);
            }
            for (e, x) in [0.0, 1.0, 2.0, 0.0, 1.0, 1.0, 1.0, 1.0]
                .into_iter()
                .enumerate()
            {
                put(&mut bufs, 1, e, x);
            }
            run_exec(&build(&case, &bufs).unwrap()).unwrap();
            let osz = size(od);
            let got = |i: usize, j: usize| fval(decode(od, &bufs[3].bytes()[(i * n + j) * osz..]));
            for j in 0..n {
                assert!(
                    got(0, j).is_nan(),
                    "{op:?} {da:?}: row 0 col {j} = {}",
                    got(0, j)
                );
                let r1 = got(1, j);
                if j == 0 || j == 3 {
                    assert!(r1.is_nan(), "{op:?} {da:?}: inf*0 at col {j} gave {r1}");
                } else {
                    assert_eq!(r1, f64::INFINITY, "{op:?} {da:?}: col {j}");
                }
                assert_eq!(
                    got(2, j),
                    [1.0, 2.0, 3.0, 1.0][j],
                    "{op:?} {da:?}: row 2 col {j}"
                );
            }
        }
    }
}

#[test]
fn inplace_addmm_views() {
    let mut rng = Rng::new(24);
    for _ in 0..100 {
        let mut case = gen_case(&mut rng, Op::InplaceAddmm);
        case.beta = scal(F32, rng.pick(&[1.0, -1.0, 0.5]));
        must(&case, &mut rng);
    }
}

// ---------------------------------------------------------------------------------------
// Empty dimensions
// ---------------------------------------------------------------------------------------

#[test]
fn empty_k_gives_beta_self_or_zeros() {
    let mut rng = Rng::new(31);
    for od in [F32, F16, BF16] {
        for (da, db) in [(F32, F32), (F16, F16), (BF16, BF16), (F16, F32)] {
            let run = |rng: &mut Rng, op: Op, a: &[usize], b: &[usize], bias: Option<&[usize]>| {
                let dims = model_dims(op, a, b).unwrap();
                let out = gen_view(rng, &dims.out_shape(), od, 3, false);
                let bias =
                    bias.map(|s| gen_view(rng, s, if da == BF16 { BF16 } else { F32 }, 2, true));
                let mut case = new_case(
                    op,
                    gen_view(rng, a, da, 0, true),
                    gen_view(rng, b, db, 1, true),
                    bias,
                    Some(out),
                );
                case.beta = scal(F32, 2.0);
                case.alpha = scal(F32, 3.0);
                // k = 0: the sum is empty, so out = beta*self (Addmm) or 0 everywhere.
                let o = must(&case, rng);
                assert_eq!(o.elements, dims.out_shape().iter().product::<usize>());
                case.beta = scal(F32, 0.0);
                if case.bias.is_some() {
                    must(&case, rng);
                }
            };
            run(&mut rng, Op::Mm, &[3, 0], &[0, 4], None);
            run(&mut rng, Op::Bmm, &[2, 3, 0], &[1, 0, 4], None);
            run(&mut rng, Op::Matmul, &[0], &[0], None);
            run(&mut rng, Op::Matmul, &[2, 3, 0], &[0], None);
            run(&mut rng, Op::Matmul, &[0], &[2, 0, 4], None);
            run(&mut rng, Op::Addmm, &[3, 0], &[0, 4], Some(&[4]));
            run(&mut rng, Op::Addmm, &[3, 0], &[0, 4], Some(&[3, 4]));
            run(&mut rng, Op::Addmm, &[3, 0], &[0, 4], Some(&[3, 1]));
        }
    }
    // InplaceAddmm with k = 0: selfRef = beta*selfRef.
    for beta in [0.0, 1.0, -2.0] {
        let mut case = new_case(
            Op::InplaceAddmm,
            contig(&[3, 0], F32, 0),
            contig(&[0, 4], F32, 1),
            Some(contig(&[3, 4], F32, 2)),
            None,
        );
        case.beta = scal(F32, beta);
        must(&case, &mut rng);
    }
}

#[test]
fn empty_m_n_or_batch_succeeds_and_writes_nothing() {
    let mut rng = Rng::new(32);
    let list: &[(Op, &[usize], &[usize])] = &[
        (Op::Mm, &[0, 3], &[3, 4]),
        (Op::Mm, &[3, 4], &[4, 0]),
        (Op::Mm, &[0, 0], &[0, 0]),
        (Op::Bmm, &[0, 2, 3], &[1, 3, 4]),
        (Op::Bmm, &[2, 0, 3], &[2, 3, 4]),
        (Op::Bmm, &[2, 2, 3], &[1, 3, 0]),
        (Op::Matmul, &[0, 3], &[3]),
        (Op::Matmul, &[3], &[3, 0]),
        (Op::Matmul, &[2, 0, 3, 4], &[4, 5]),
        (Op::Matmul, &[0, 1, 3, 4], &[2, 4, 5]),
        (Op::Addmm, &[0, 3], &[3, 4]),
        (Op::Addmm, &[3, 3], &[3, 0]),
        (Op::InplaceAddmm, &[0, 3], &[3, 4]),
    ];
    for &(op, a, b) in list {
        for (da, db, od) in [
            (F32, F32, F32),
            (F16, F16, F16),
            (BF16, BF16, F32),
            (F32, F16, BF16),
        ] {
            let dims = model_dims(op, a, b).unwrap();
            let os = dims.out_shape();
            let mut case = new_case(
                op,
                gen_view(&mut rng, a, da, 0, true),
                gen_view(&mut rng, b, db, 1, true),
                None,
                None,
            );
            match op {
                Op::Addmm => {
                    case.bias = Some(contig(&[dims.n], if da == BF16 { BF16 } else { F32 }, 2));
                    case.out = Some(contig(&os, od, 3));
                }
                Op::InplaceAddmm => {
                    let sd = match (da, od) {
                        (BF16, _) => BF16,
                        (_, BF16) => F32,
                        _ => od,
                    };
                    case.bias = Some(contig(&os, sd, 2))
                }
                _ => case.out = Some(gen_view(&mut rng, &os, od, 2, false)),
            }
            let o = must(&case, &mut rng);
            assert_eq!((o.workspace, o.elements), (0, 0), "{op:?} {a:?}@{b:?}");
        }
    }
}

// ---------------------------------------------------------------------------------------
// Outputs overlapping inputs
// ---------------------------------------------------------------------------------------

/// out shares storage with mat1 (and mat2, self): computed as if every input were read first.
#[test]
fn out_overlapping_inputs() {
    let mut rng = Rng::new(41);
    for d in [F32, F16, BF16] {
        let n = 5;
        let sq = |off: usize, st: usize| View {
            shape: vec![n, n],
            strides: vec![n, 1],
            offset: off,
            dtype: d,
            storage: st,
        };
        let tr = |off: usize, st: usize| View {
            shape: vec![n, n],
            strides: vec![1, n],
            offset: off,
            dtype: d,
            storage: st,
        };
        // Mm: out == mat1; out == mat2; out shifted by one row over mat1; out = transpose of mat1.
        for (a, b, out) in [
            (sq(0, 0), sq(0, 1), sq(0, 0)),
            (sq(0, 0), sq(0, 1), sq(0, 1)),
            (sq(0, 0), sq(0, 1), sq(n, 0)),
            (sq(n, 0), sq(0, 1), sq(0, 0)),
            (sq(0, 0), sq(0, 1), tr(0, 0)),
            (tr(0, 0), sq(0, 1), sq(3, 0)),
            (sq(0, 0), sq(0, 0), sq(0, 0)),
        ] {
            for op in [Op::Mm, Op::Matmul] {
                let case = new_case(op, a.clone(), b.clone(), None, Some(out.clone()));
                must(&case, &mut rng);
            }
            // Addmm with out over mat1 and a separate self; and with out == self == mat1.
            let mut case = new_case(
                Op::Addmm,
                a.clone(),
                b.clone(),
                Some(contig(&[n], d, 2)),
                Some(out.clone()),
            );
            case.beta = scal(F32, 0.5);
            case.alpha = scal(F32, -2.0);
            must(&case, &mut rng);
            let mut case = new_case(
                Op::Addmm,
                a.clone(),
                b.clone(),
                Some(out.clone()),
                Some(out.clone()),
            );
            case.beta = scal(F32, 1.0);
            must(&case, &mut rng);
            // InplaceAddmm with selfRef over mat1.
            let mut case = new_case(
                Op::InplaceAddmm,
                a.clone(),
                b.clone(),
                Some(out.clone()),
                None,
            );
            case.beta = scal(F32, 2.0);
            must(&case, &mut rng);
        }
        // BatchMatMul / Matmul: out (2,n,n) over self (2,n,n), and over a broadcast mat2 (1,n,n).
        let b3 = |off: usize, st: usize, b: usize| View {
            shape: vec![b, n, n],
            strides: vec![n * n, n, 1],
            offset: off,
            dtype: d,
            storage: st,
        };
        for (a, b, out) in [
            (b3(0, 0, 2), b3(0, 1, 1), b3(0, 0, 2)),
            (b3(0, 0, 2), b3(0, 1, 1), b3(n, 0, 2)),
            (b3(0, 0, 2), b3(0, 1, 1), b3(0, 1, 2)),
        ] {
            for op in [Op::Bmm, Op::Matmul] {
                must(
                    &new_case(op, a.clone(), b.clone(), None, Some(out.clone())),
                    &mut rng,
                );
            }
        }
        // Matmul (n)@(n,n) -> (n) written over the vector itself.
        let v = View {
            shape: vec![n],
            strides: vec![1],
            offset: 0,
            dtype: d,
            storage: 0,
        };
        must(
            &new_case(Op::Matmul, v.clone(), sq(0, 1), None, Some(v.clone())),
            &mut rng,
        );
        must(
            &new_case(Op::Matmul, sq(0, 1), v.clone(), None, Some(v.clone())),
            &mut rng,
        );
    }
}

// ---------------------------------------------------------------------------------------
// Dtypes and accuracy
// ---------------------------------------------------------------------------------------

/// f16/bf16 accumulate in f32: a sum of 4096 ones is 4096 (an f16 accumulator stalls at
/// 2048), of 512 bf16 ones 512 (a bf16 accumulator stalls at 256); 4096 and 512 are
/// representable in f16/bf16, so the one rounding into out is exact.
#[test]
fn f16_bf16_accumulate_in_f32() {
    let mut rng = Rng::new(51);
    for (d, k) in [(F16, 4096usize), (BF16, 512)] {
        for od in [d, F32] {
            for op in [Op::Mm, Op::Matmul, Op::Addmm] {
                let a = contig(&[2, k], d, 0);
                let b = contig(&[k, 3], d, 1);
                let case = Case {
                    bias: (op == Op::Addmm).then(|| contig(&[3], d, 2)),
                    beta: scal(F32, 0.0),
                    ..new_case(op, a, b, None, Some(contig(&[2, 3], od, 3)))
                };
                let mut bufs: Vec<Buf> =
                    (0..4).map(|s| Buf::new(storage_bytes(&case, s))).collect();
                for st in 0..2 {
                    for c in bufs[st].bytes_mut().chunks_mut(2) {
                        c.copy_from_slice(&encode(d, 1.0)[..2]);
                    }
                }
                run_exec(&build(&case, &bufs).unwrap()).unwrap();
                for e in 0..6 {
                    let sz = size(od);
                    let got = fval(decode(od, &bufs[3].bytes()[e * sz..]));
                    assert_eq!(got, k as f64, "{op:?} {d:?} -> {od:?} element {e}");
                }
                let _ = &mut rng;
            }
        }
    }
    // f16 x f32 mix: 1 + 2^-10 (an f16 value) times 1 + 2^-20 (f32 only), k = 1: the f32
    // product 1 + 2^-10 + 2^-20 (+2^-30 rounded away) shows f16 was not the computation type.
    let a = contig(&[1, 1], F16, 0);
    let b = contig(&[1, 1], F32, 1);
    let case = new_case(Op::Mm, a, b, None, Some(contig(&[1, 1], F32, 2)));
    let mut bufs: Vec<Buf> = (0..3).map(|s| Buf::new(storage_bytes(&case, s))).collect();
    bufs[0].bytes_mut()[..2].copy_from_slice(&encode(F16, 1.0 + pow2(-10))[..2]);
    bufs[1].bytes_mut()[..4].copy_from_slice(&encode(F32, 1.0 + pow2(-20))[..4]);
    run_exec(&build(&case, &bufs).unwrap()).unwrap();
    let got = fval(decode(F32, bufs[2].bytes()));
    assert_eq!(got, 1.0 + pow2(-10) + pow2(-20));
}

/// Every cubeMathType 0..=4 computes f32 in (at least) f32: 1 + 2^-20 survives (HF32 or f16
/// computation would drop it), and sums over k = 300 keep f32 accuracy.
#[test]
fn f32_is_never_downgraded() {
    let mut rng = Rng::new(52);
    for cube in 0..=4 {
        for op in [Op::Mm, Op::Bmm, Op::Matmul, Op::Addmm] {
            let (a_shape, b_shape): (&[usize], &[usize]) = if op == Op::Bmm {
                (&[1, 1, 1], &[1, 1, 1])
            } else {
                (&[1, 1], &[1, 1])
            };
            let os: Vec<usize> = model_dims(op, a_shape, b_shape).unwrap().out_shape();
            let mut case = new_case(
                op,
                contig(a_shape, F32, 0),
                contig(b_shape, F32, 1),
                (op == Op::Addmm).then(|| contig(&[1], F32, 2)),
                Some(contig(&os, F32, 3)),
            );
            case.cube = cube;
            case.beta = scal(F32, 0.0);
            let mut bufs: Vec<Buf> = (0..4).map(|s| Buf::new(storage_bytes(&case, s))).collect();
            bufs[0].bytes_mut()[..4].copy_from_slice(&encode(F32, 1.0 + pow2(-20))[..4]);
            bufs[1].bytes_mut()[..4].copy_from_slice(&encode(F32, 1.0 + pow2(-21))[..4]);
            run_exec(&build(&case, &bufs).unwrap()).unwrap();
            let got = fval(decode(F32, bufs[3].bytes()));
            // (1+2^-20)(1+2^-21) = 1 + 3·2^-21 + 2^-41: rounds to 1 + 3·2^-21 in f32.
            assert_eq!(got, 1.0 + 3.0 * pow2(-21), "{op:?} cube {cube}");
            let mut case = gen_case(&mut rng, op);
            case.cube = cube;
            let (m, n) = (3, 4);
            let (a_shape, b_shape): (Vec<usize>, Vec<usize>) = if op == Op::Bmm {
                (vec![2, m, 300], vec![2, 300, n])
            } else {
                (vec![m, 300], vec![300, n])
            };
            case.a = gen_view(&mut rng, &a_shape, F32, 0, true);
            case.b = gen_view(&mut rng, &b_shape, F32, 1, true);
            let os = model_dims(op, &a_shape, &b_shape).unwrap().out_shape();
            if op == Op::Addmm {
                case.bias = Some(contig(&[n], F32, 2));
            }
            case.out = Some(gen_view(&mut rng, &os, F32, 3, false));
            must(&case, &mut rng);
        }
    }
}

/// Addmv's f64 inputs compute in f64 (values f32 cannot hold survive); the cube matmul
/// operators refuse f64 (see `f64_is_refused_by_the_cube_operators`).
#[test]
fn f64_computes_in_f64() {
    let mut case = new_case(
        Op::Addmv,
        contig(&[1, 2], F64, 0),
        contig(&[2], F64, 1),
        Some(contig(&[1], F64, 2)),
        Some(contig(&[1], F64, 3)),
    );
    case.beta = scal(F32, 0.0);
    let mut bufs: Vec<Buf> = (0..4).map(|s| Buf::new(storage_bytes(&case, s))).collect();
    let x = 1.0 + pow2(-40);
    for st in 0..2 {
        bufs[st].bytes_mut()[..8].copy_from_slice(&x.to_le_bytes());
    }
    bufs[0].bytes_mut()[8..16].copy_from_slice(&1.0f64.to_le_bytes());
    bufs[1].bytes_mut()[8..16].copy_from_slice(&(-1.0f64).to_le_bytes());
    run_exec(&build(&case, &bufs).unwrap()).unwrap();
    let got = fval(decode(F64, bufs[3].bytes()));
    // x^2 - 1 = 2^-39 + 2^-80: f64 keeps 2^-39 (an f32 computation gives 0).
    assert!((got - pow2(-39)).abs() <= pow2(-78), "got {got:e}");
}

/// Mm, BatchMatMul, Matmul, Addmm, InplaceAddmm, Baddbmm and InplaceBaddbmm refuse an f64
/// self, mat2/mat1/batch1/batch2, bias or out: on Atlas A2 their cube matmul takes f32, f16
/// and bf16 only (hicann/ops-nn `Dav2201MatMulRule::GetSupportedDTypes` and the operators'
/// `dtypeSupportList`s). The message names the dtype and the operator.
#[test]
fn f64_is_refused_by_the_cube_operators() {
    let mut p = Pool(vec![]);
    let one = scal(F32, 1.0).to_scalar();
    for (ds, da, db, od) in [
        (F32, F64, F32, F32),
        (F32, F32, F64, F32),
        (F32, F32, F32, F64),
        (F64, F32, F32, F32),
        (F64, F64, F64, F64),
    ] {
        let what = format!("self {ds:?}, mats {da:?} x {db:?}, out {od:?}");
        let (a, b, o) = (p.t(&[2, 3], da), p.t(&[3, 4], db), p.t(&[2, 4], od));
        let (a3, b3, o3) = (
            p.t(&[1, 2, 3], da),
            p.t(&[1, 3, 4], db),
            p.t(&[1, 2, 4], od),
        );
        let (s, s3) = (p.t(&[4], ds), p.t(&[1, 2, 4], ds));
        let mut runs: Vec<(&str, crate::Result<Executor>)> = vec![
            ("aclnnMm", mm(&a, &b, &o, 0)),
            ("aclnnBatchMatMul", batch_matmul(&a3, &b3, &o3, 0)),
            ("aclnnMatmul", matmul(&a, &b, &o, 0)),
            ("aclnnAddmm", addmm(&s, &a, &b, &one, &one, &o, 0)),
            ("aclnnBaddbmm", baddbmm(&s3, &a3, &b3, &one, &one, &o3, 0)),
        ];
        if ds == od {
            let (sr, sr3) = (p.t(&[2, 4], ds), p.t(&[1, 2, 4], ds));
            runs.push((
                "aclnnInplaceAddmm",
                inplace_addmm(&sr, &a, &b, &one, &one, 0),
            ));
            runs.push((
                "aclnnInplaceBaddbmm",
                inplace_baddbmm(&sr3, &a3, &b3, &one, &one, 0),
            ));
        }
        let f64_mats = da == F64 || db == F64 || od == F64;
        for (api, r) in runs {
            let has_self = api.contains("Addmm") || api.contains("Baddbmm");
            if !f64_mats && !(has_self && ds == F64) {
                assert_ok(r, &format!("{api}: {what}"));
                continue;
            }
            let m = invalid(r, &format!("{api}: {what}"));
            assert!(
                m.contains("ACL_DOUBLE") && m.contains(api),
                "{api}: {what}: {m}"
            );
        }
    }
    // Addmv takes f64 (mat, vec, self, out).
    assert_ok(
        addmv(
            &p.t(&[2], F64),
            &p.t(&[2, 3], F64),
            &p.t(&[3], F32),
            &one,
            &one,
            &p.t(&[2], F64),
            0,
        ),
        "Addmv f64",
    );
}

/// Big enough for the multi-threaded GEMM (m*n*k >= 64^3) and for many small batches.
#[test]
fn large_and_many_batches() {
    let mut rng = Rng::new(53);
    for (da, db, od) in [
        (F32, F32, F32),
        (F16, F16, F16),
        (BF16, BF16, F32),
        (F16, F32, BF16),
    ] {
        let case = new_case(
            Op::Mm,
            gen_view(&mut rng, &[70, 90], da, 0, true),
            gen_view(&mut rng, &[90, 80], db, 1, true),
            None,
            Some(gen_view(&mut rng, &[70, 80], od, 2, false)),
        );
        must(&case, &mut rng);
        let case = new_case(
            Op::Matmul,
            gen_view(&mut rng, &[6, 1, 9, 11], da, 0, true),
            gen_view(&mut rng, &[3, 11, 7], db, 1, true),
            None,
            Some(gen_view(&mut rng, &[6, 3, 9, 7], od, 2, false)),
        );
        must(&case, &mut rng);
        let bd = gen_bias_dtype(&mut rng, da, db, Op::Addmm);
        let mut case = new_case(
            Op::Addmm,
            gen_view(&mut rng, &[65, 66], da, 0, true),
            gen_view(&mut rng, &[66, 67], db, 1, true),
            Some(gen_view(&mut rng, &[67], bd, 2, true)),
            Some(gen_view(&mut rng, &[65, 67], od, 3, false)),
        );
        case.alpha = scal(F64, 0.3);
        case.beta = scal(F32, -1.5);
        must(&case, &mut rng);
    }
}

/// Products of at least 2^23 multiply-adds, which run on the x86-64 kernels where the CPU
/// has them (src/ops/gemm.rs): strided/transposed views, bias with beta, f16 through f32.
#[test]
fn large_products_on_the_x86_kernels() {
    let mut rng = Rng::new(59);
    for (da, db, od) in [(F32, F32, F32), (F16, F32, F32), (BF16, BF16, F16)] {
        let case = new_case(
            Op::Mm,
            gen_view(&mut rng, &[200, 230], da, 0, true),
            gen_view(&mut rng, &[230, 190], db, 1, true),
            None,
            Some(gen_view(&mut rng, &[200, 190], od, 2, false)),
        );
        must(&case, &mut rng);
        let bd = gen_bias_dtype(&mut rng, da, db, Op::Addmm);
        let mut case = new_case(
            Op::Addmm,
            gen_view(&mut rng, &[210, 200], da, 0, true),
            gen_view(&mut rng, &[200, 205], db, 1, true),
            Some(gen_view(&mut rng, &[210, 1], bd, 2, true)),
            Some(gen_view(&mut rng, &[210, 205], od, 3, false)),
        );
        case.alpha = scal(F64, 0.7);
        case.beta = scal(F32, -1.5);
        must(&case, &mut rng);
    }
}

// ---------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------

/// Contiguous descriptors over real (zeroed) storages, kept alive while the test runs.
pub(super) struct Pool(pub(super) Vec<Buf>);
impl Pool {
    pub(super) fn t(&mut self, shape: &[usize], d: DType) -> TensorDesc {
        let v = contig(shape, d, 0);
        let b = Buf::new(need_elems(&v).max(1) * size(d) + 16);
        let t = desc(&v, &b).unwrap();
        self.0.push(b);
        t
    }
}

pub(super) fn invalid(r: crate::Result<Executor>, what: &str) -> String {
    match r {
        Err(Error::Invalid(m)) => m,
        Err(e) => panic!("{what}: expected an invalid-parameter error, got {e:?}"),
        Ok(_) => panic!("{what}: expected an error, got an executor"),
    }
}

pub(super) fn assert_ok(r: crate::Result<Executor>, what: &str) {
    if let Err(e) = r {
        panic!("{what}: expected success, got {e}");
    }
}

pub(super) fn sh(s: &[usize]) -> String {
    format!("{s:?}")
}

#[test]
fn k_mismatch_names_both_shapes() {
    let mut p = Pool(vec![]);
    let one = Sc::int(F32, 1).to_scalar();
    let list: &[(Op, &[usize], &[usize])] = &[
        (Op::Mm, &[2, 3], &[4, 5]),
        (Op::Bmm, &[2, 2, 3], &[2, 4, 5]),
        (Op::Matmul, &[3], &[4]),
        (Op::Matmul, &[2, 3], &[4]),
        (Op::Matmul, &[3], &[4, 5]),
        (Op::Matmul, &[7, 2, 3], &[2, 4, 5]),
        (Op::Addmm, &[2, 3], &[4, 5]),
        (Op::InplaceAddmm, &[2, 3], &[4, 5]),
    ];
    for &(op, a, b) in list {
        let (ta, tb) = (p.t(a, F32), p.t(b, F32));
        let out = p.t(&[2, 5], F32);
        let r = match op {
            Op::Mm => mm(&ta, &tb, &out, 0),
            Op::Bmm => batch_matmul(&ta, &tb, &p.t(&[2, 2, 5], F32), 0),
            Op::Matmul => matmul(&ta, &tb, &out, 0),
            Op::Addmm => addmm(&p.t(&[5], F32), &ta, &tb, &one, &one, &out, 0),
            Op::InplaceAddmm => inplace_addmm(&out, &ta, &tb, &one, &one, 0),
            _ => unreachable!(),
        };
        let m = invalid(r, &format!("{op:?} {a:?}@{b:?}"));
        assert!(
            m.contains(&sh(a)) && m.contains(&sh(b)),
            "{op:?}: message does not name both shapes: {m}"
        );
    }
}

#[test]
fn rank_errors() {
    let mut p = Pool(vec![]);
    let one = Sc::int(F32, 1).to_scalar();
    // Mm: 2-D only.
    for (a, b, o) in [
        (&[2, 3][..], &[1, 3, 4][..], &[1, 2, 4][..]),
        (&[1, 2, 3], &[3, 4], &[1, 2, 4]),
        (&[3], &[3, 4], &[4]),
        (&[2, 3], &[3], &[2]),
    ] {
        invalid(
            mm(&p.t(a, F32), &p.t(b, F32), &p.t(o, F32), 0),
            &format!("mm {a:?}@{b:?}"),
        );
    }
    // BatchMatMul: 3-D only.
    for (a, b, o) in [
        (&[2, 3][..], &[3, 4][..], &[2, 4][..]),
        (&[1, 2, 3], &[3, 4], &[1, 2, 4]),
        (&[1, 1, 2, 3], &[1, 1, 3, 4], &[1, 1, 2, 4]),
    ] {
        invalid(
            batch_matmul(&p.t(a, F32), &p.t(b, F32), &p.t(o, F32), 0),
            &format!("bmm {a:?}@{b:?}"),
        );
    }
    // Matmul: 1 to 6 dims.
    invalid(
        matmul(&p.t(&[], F32), &p.t(&[3], F32), &p.t(&[], F32), 0),
        "matmul 0-d self",
    );
    invalid(
        matmul(&p.t(&[3], F32), &p.t(&[], F32), &p.t(&[], F32), 0),
        "matmul 0-d mat2",
    );
    let s7 = [1, 1, 1, 1, 1, 2, 3];
    invalid(
        matmul(
            &p.t(&s7, F32),
            &p.t(&[3, 4], F32),
            &p.t(&[1, 1, 1, 1, 1, 2, 4], F32),
            0,
        ),
        "matmul 7-D",
    );
    invalid(
        matmul(
            &p.t(&[2, 3], F32),
            &p.t(
                &s7[..6].iter().chain(&[4]).copied().collect::<Vec<_>>(),
                F32,
            ),
            &p.t(&[1, 1, 1, 1, 1, 2, 4], F32),
            0,
        ),
        "matmul 7-D mat2",
    );
    // 6-D is the limit and is accepted.
    assert_ok(
        matmul(
            &p.t(&[1, 1, 1, 1, 2, 3], F32),
            &p.t(&[1, 1, 1, 1, 3, 4], F32),
            &p.t(&[1, 1, 1, 1, 2, 4], F32),
            0,
        ),
        "matmul 6-D",
    );
    // Addmm: mat1/mat2 2-D; self 1-2 dims.
    invalid(
        addmm(
            &p.t(&[4], F32),
            &p.t(&[1, 2, 3], F32),
            &p.t(&[3, 4], F32),
            &one,
            &one,
            &p.t(&[2, 4], F32),
            0,
        ),
        "addmm 3-D mat1",
    );
    invalid(
        addmm(
            &p.t(&[4], F32),
            &p.t(&[2, 3], F32),
            &p.t(&[3], F32),
            &one,
            &one,
            &p.t(&[2], F32),
            0,
        ),
        "addmm 1-D mat2",
    );
    invalid(
        addmm(
            &p.t(&[1, 2, 4], F32),
            &p.t(&[2, 3], F32),
            &p.t(&[3, 4], F32),
            &one,
            &one,
            &p.t(&[2, 4], F32),
            0,
        ),
        "addmm 3-D self",
    );
    invalid(
        addmm(
            &p.t(&[], F32),
            &p.t(&[2, 3], F32),
            &p.t(&[3, 4], F32),
            &one,
            &one,
            &p.t(&[2, 4], F32),
            0,
        ),
        "addmm 0-d self",
    );
    invalid(
        inplace_addmm(
            &p.t(&[2, 4], F32),
            &p.t(&[2, 3], F32),
            &p.t(&[1, 3, 4], F32),
            &one,
            &one,
            0,
        ),
        "inplace 3-D mat2",
    );
}

#[test]
fn broadcast_and_out_shape_errors() {
    let mut p = Pool(vec![]);
    let one = Sc::int(F32, 1).to_scalar();
    let f = F32;
    // Mm: out must be (m,n).
    for o in [&[2, 5][..], &[4, 2], &[1, 2, 4], &[8], &[2, 4, 1]] {
        let m = invalid(
            mm(&p.t(&[2, 3], f), &p.t(&[3, 4], f), &p.t(o, f), 0),
            &format!("mm out {o:?}"),
        );
        assert!(m.contains("out"), "{m}");
    }
    // BatchMatMul: batches must be equal or 1; out must be the broadcast shape.
    invalid(
        batch_matmul(
            &p.t(&[2, 2, 3], f),
            &p.t(&[3, 3, 4], f),
            &p.t(&[3, 2, 4], f),
            0,
        ),
        "bmm batch 2 vs 3",
    );
    invalid(
        batch_matmul(
            &p.t(&[3, 2, 3], f),
            &p.t(&[1, 3, 4], f),
            &p.t(&[1, 2, 4], f),
            0,
        ),
        "bmm out batch 1",
    );
    invalid(
        batch_matmul(
            &p.t(&[3, 2, 3], f),
            &p.t(&[1, 3, 4], f),
            &p.t(&[3, 4, 2], f),
            0,
        ),
        "bmm out transposed",
    );
    // Matmul: batch dims broadcast; out has the torch.matmul shape exactly.
    invalid(
        matmul(
            &p.t(&[2, 2, 3], f),
            &p.t(&[3, 3, 4], f),
            &p.t(&[3, 2, 4], f),
            0,
        ),
        "matmul batch 2 vs 3",
    );
    invalid(
        matmul(
            &p.t(&[2, 1, 2, 3], f),
            &p.t(&[3, 2, 3, 4], f),
            &p.t(&[2, 2, 2, 4], f),
            0,
        ),
        "matmul batch 2 vs 3 (dim -4)",
    );
    let bad_outs: &[(&[usize], &[usize], &[usize])] = &[
        (&[3], &[3], &[1]),
        (&[3], &[3], &[1, 1]),
        (&[3], &[3, 4], &[1, 4]),
        (&[2, 3], &[3], &[2, 1]),
        (&[2, 3], &[3], &[1, 2]),
        (&[2, 2, 3], &[3, 4], &[2, 4, 2]),
        (&[3], &[2, 3, 4], &[2, 1, 4]),
        (&[2, 1, 2, 3], &[3, 3, 4], &[2, 1, 2, 4]),
    ];
    for (a, b, o) in bad_outs {
        invalid(
            matmul(&p.t(a, f), &p.t(b, f), &p.t(o, f), 0),
            &format!("matmul {a:?}@{b:?} -> {o:?}"),
        );
    }
    // Addmm: self broadcasts one way to (m,n) = (2,4).
    for s in [
        &[3][..],
        &[2][..],
        &[4, 2],
        &[2, 2],
        &[3, 4],
        &[4, 4],
        &[1, 3],
    ] {
        let m = invalid(
            addmm(
                &p.t(s, f),
                &p.t(&[2, 3], f),
                &p.t(&[3, 4], f),
                &one,
                &one,
                &p.t(&[2, 4], f),
                0,
            ),
            &format!("addmm self {s:?}"),
        );
        assert!(m.contains("self") && m.contains(&sh(s)), "{m}");
    }
    // Unidirectional: self (2,4) is fine for (2,4), but no broadcast of out to a bigger self.
    invalid(
        addmm(
            &p.t(&[2, 4], f),
            &p.t(&[1, 3], f),
            &p.t(&[3, 4], f),
            &one,
            &one,
            &p.t(&[1, 4], f),
            0,
        ),
        "addmm self bigger than the product",
    );
    for o in [&[2, 5][..], &[4, 2], &[4], &[1, 2, 4]] {
        invalid(
            addmm(
                &p.t(&[4], f),
                &p.t(&[2, 3], f),
                &p.t(&[3, 4], f),
                &one,
                &one,
                &p.t(o, f),
                0,
            ),
            &format!("addmm out {o:?}"),
        );
    }
    // InplaceAddmm: selfRef exactly (m,n).
    for s in [&[4][..], &[1, 4], &[2, 1], &[1], &[4, 2]] {
        let m = invalid(
            inplace_addmm(
                &p.t(s, f),
                &p.t(&[2, 3], f),
                &p.t(&[3, 4], f),
                &one,
                &one,
                0,
            ),
            &format!("inplace selfRef {s:?}"),
        );
        assert!(m.contains("selfRef"), "{m}");
    }
}

#[test]
fn cube_math_type_range() {
    let mut p = Pool(vec![]);
    let one = Sc::int(F32, 1).to_scalar();
    let f = F32;
    let (a, b, o) = (p.t(&[2, 3], f), p.t(&[3, 4], f), p.t(&[2, 4], f));
    let (a3, b3, o3) = (p.t(&[1, 2, 3], f), p.t(&[1, 3, 4], f), p.t(&[1, 2, 4], f));
    let bias = p.t(&[4], f);
    let (v, vo) = (p.t(&[3], f), p.t(&[], f));
    let all = |c: i64| -> Vec<(&str, crate::Result<Executor>)> {
        vec![
            ("mm", mm(&a, &b, &o, c)),
            ("bmm", batch_matmul(&a3, &b3, &o3, c)),
            ("matmul", matmul(&a, &b, &o, c)),
            ("matmul 1-D @ 2-D", matmul(&v, &b, &bias, c)),
            ("addmm", addmm(&bias, &a, &b, &one, &one, &o, c)),
            ("inplace_addmm", inplace_addmm(&o, &a, &b, &one, &one, c)),
        ]
    };
    for c in 0..=4 {
        for (what, r) in all(c) {
            assert_ok(r, &format!("{what} cubeMathType {c}"));
        }
    }
    for c in [-1, 5, 6, 127, -128] {
        for (what, r) in all(c) {
            let m = invalid(r, &format!("{what} cubeMathType {c}"));
            assert!(m.contains("cubeMathType"), "{m}");
        }
    }
    // Reference §5.5: cubeMathType is ignored when both Matmul inputs are 1-D.
    for c in [-1, 5, 127] {
        assert_ok(
            matmul(&v, &v, &vo, c),
            &format!("matmul 1-D @ 1-D cubeMathType {c}"),
        );
    }
}

#[test]
fn dtype_rules() {
    let mut p = Pool(vec![]);
    let one = Sc::int(F32, 1).to_scalar();
    let ops = |p: &mut Pool,
               da: DType,
               db: DType,
               ds: DType,
               od: DType|
     -> Vec<(&'static str, crate::Result<Executor>)> {
        let (a, b, o) = (p.t(&[2, 3], da), p.t(&[3, 4], db), p.t(&[2, 4], od));
        let (a3, b3, o3) = (
            p.t(&[1, 2, 3], da),
            p.t(&[1, 3, 4], db),
            p.t(&[1, 2, 4], od),
        );
        let s = p.t(&[4], ds);
        // selfRef is `self` for the bf16 rule and the output.
        let sr = p.t(&[2, 4], ds);
        vec![
            ("mm", mm(&a, &b, &o, 1)),
            ("bmm", batch_matmul(&a3, &b3, &o3, 1)),
            ("matmul", matmul(&a, &b, &o, 1)),
            ("addmm", addmm(&s, &a, &b, &one, &one, &o, 1)),
            ("inplace_addmm", inplace_addmm(&sr, &a, &b, &one, &one, 1)),
        ]
    };
    // Accepted: every pair of f32/f16/bf16 (bf16 with f16 or f32 promotes to f32, as Atlas A2's
    // `Dav2201MatMulRule` table promotes it); out any of f16/bf16/f32 (f64 is refused: see
    // `f64_is_refused_by_the_cube_operators`).
    for da in [F32, F16, BF16] {
        for db in [F32, F16, BF16] {
            for od in [F16, BF16, F32] {
                for ds in [F32, F16, BF16] {
                    for (what, r) in ops(&mut p, da, db, ds, od) {
                        assert_ok(
                            r,
                            &format!("{what} {da:?} x {db:?} -> {od:?} (self {ds:?})"),
                        );
                    }
                }
            }
        }
    }
    // Unsupported input and output dtypes.
    for bad in [S32, S64, S8, U8, Bool, C64, S16, F64] {
        for (what, r) in ops(&mut p, bad, bad, bad, F32) {
            let m = invalid(r, &format!("{what} inputs {bad:?}"));
            assert!(m.contains("dtype"), "{m}");
        }
        for (what, r) in ops(&mut p, F32, bad, F32, F32) {
            invalid(r, &format!("{what} mat2 {bad:?}"));
        }
        for (what, r) in ops(&mut p, F32, F32, F32, bad) {
            if what == "inplace_addmm" {
                continue; // its selfRef is the `inputs` case above
            }
            invalid(r, &format!("{what} out {bad:?}"));
        }
        if bad != Bool {
            let (a, b, o) = (p.t(&[2, 3], F32), p.t(&[3, 4], F32), p.t(&[2, 4], F32));
            invalid(
                addmm(&p.t(&[4], bad), &a, &b, &one, &one, &o, 0),
                &format!("addmm self {bad:?}"),
            );
        }
    }
}

#[test]
fn scalar_dtypes() {
    let mut p = Pool(vec![]);
    let (s, a, b, o) = (
        p.t(&[4], F32),
        p.t(&[2, 3], F32),
        p.t(&[3, 4], F32),
        p.t(&[2, 4], F32),
    );
    for d in [F32, F16, F64, S8, S16, S32, S64, U8] {
        let x = scal(d, 2.0).to_scalar();
        let one = scal(F32, 1.0).to_scalar();
        assert_ok(addmm(&s, &a, &b, &x, &one, &o, 0), &format!("beta {d:?}"));
        assert_ok(addmm(&s, &a, &b, &one, &x, &o, 0), &format!("alpha {d:?}"));
        assert_ok(
            inplace_addmm(&o, &a, &b, &x, &x, 0),
            &format!("inplace alpha/beta {d:?}"),
        );
    }
    // Reference §5.5 lists f32, f16, f64, s8, s16, s32, s64, u8 only.
    let one = scal(F32, 1.0).to_scalar();
    for bad in [
        Sc::int(BF16, 1),
        Sc::int(Bool, 1),
        Sc::int(C64, 1),
        Sc::int(U16, 1),
        Sc::int(U32, 1),
        Sc::int(U64, 1),
    ] {
        let x = bad.to_scalar();
        let m = invalid(addmm(&s, &a, &b, &x, &one, &o, 0), &format!("beta {bad:?}"));
        assert!(m.contains("beta"), "{m}");
        let m = invalid(
            addmm(&s, &a, &b, &one, &x, &o, 0),
            &format!("alpha {bad:?}"),
        );
        assert!(m.contains("alpha"), "{m}");
        invalid(
            inplace_addmm(&o, &a, &b, &x, &one, 0),
            &format!("inplace beta {bad:?}"),
        );
    }
}

// ---------------------------------------------------------------------------------------
// Outputs overlapping themselves; executors re-addressed between runs
// ---------------------------------------------------------------------------------------

/// SEMANTICS §2: an output whose elements overlap each other (stride 0 on a dim of size > 1)
/// is invalid, at phase 1.
#[test]
fn out_overlapping_itself_is_refused() {
    let mut bufs = Vec::new();
    let mut t = |shape: &[usize], strides: &[usize]| -> TensorDesc {
        let v = View {
            shape: shape.to_vec(),
            strides: strides.to_vec(),
            offset: 0,
            dtype: F32,
            storage: 0,
        };
        let b = Buf::new(64 * 4);
        let d = desc(&v, &b).unwrap();
        bufs.push(b);
        d
    };
    let (a, b) = (t(&[2, 3], &[3, 1]), t(&[3, 4], &[4, 1]));
    let (a3, b3) = (t(&[2, 2, 3], &[6, 3, 1]), t(&[2, 3, 4], &[12, 4, 1]));
    let bias = t(&[4], &[1]);
    let one = scal(F32, 1.0).to_scalar();
    let bad = t(&[2, 4], &[0, 1]); // both rows on the same memory
    let bad2 = t(&[2, 4], &[1, 1]); // interleaved
    let bad3 = t(&[2, 2, 4], &[0, 4, 1]); // both batches on the same memory
    let v = t(&[3], &[1]);
    let badv = t(&[4], &[0]);
    for (what, r) in [
        ("mm stride 0", mm(&a, &b, &bad, 0)),
        ("mm interleaved", mm(&a, &b, &bad2, 0)),
        ("bmm batch stride 0", batch_matmul(&a3, &b3, &bad3, 0)),
        ("matmul", matmul(&a, &b, &bad, 0)),
        ("matmul batch stride 0", matmul(&a3, &b3, &bad3, 0)),
        ("matmul 1-D @ 2-D", matmul(&v, &b, &badv, 0)),
        ("addmm", addmm(&bias, &a, &b, &one, &one, &bad, 0)),
        ("inplace_addmm", inplace_addmm(&bad, &a, &b, &one, &one, 0)),
    ] {
        let m = invalid(r, what);
        assert!(
            m.contains("overlap") || m.contains("share memory"),
            "{what}: {m}"
        );
    }
    drop(bufs);
}

/// Reference §6.2: the index of aclSetInputTensorAddr / aclSetTensorAddr is the position
/// among the op's inputs in its parameter order, then its outputs. Addmm's inputs are
/// (self, mat1, mat2) and its output out; InplaceAddmm's (selfRef, mat1, mat2) with output
/// selfRef. Mm/BatchMatMul/Matmul: (self, mat2), out.
#[test]
fn executor_bindings_follow_parameter_order() {
    let mut p = Pool(vec![]);
    let one = scal(F32, 1.0).to_scalar();
    let (s, a, b, o) = (
        p.t(&[4], F32),
        p.t(&[2, 3], F32),
        p.t(&[3, 4], F32),
        p.t(&[2, 4], F32),
    );
    let check = |e: &Executor,
                 what: &str,
                 inputs: &[&TensorDesc],
                 out: &TensorDesc,
                 out_is_input: Option<usize>| {
        assert_eq!(
            e.bindings.n_inputs,
            inputs.len(),
            "{what}: number of inputs"
        );
        for (i, t) in inputs.iter().enumerate() {
            assert_eq!(
                e.bindings.tensors[i].as_ref(),
                Some(*t),
                "{what}: input {i}"
            );
        }
        let ob = e.bindings.outputs[0];
        assert_eq!(
            e.bindings.tensors[ob].as_ref(),
            Some(out),
            "{what}: output 0"
        );
        if let Some(i) = out_is_input {
            assert_eq!(ob, i, "{what}: the output is input {i}");
        }
    };
    check(&mm(&a, &b, &o, 0).unwrap(), "mm", &[&a, &b], &o, None);
    check(
        &matmul(&a, &b, &o, 0).unwrap(),
        "matmul",
        &[&a, &b],
        &o,
        None,
    );
    check(
        &addmm(&s, &a, &b, &one, &one, &o, 0).unwrap(),
        "addmm",
        &[&s, &a, &b],
        &o,
        None,
    );
    check(
        &inplace_addmm(&o, &a, &b, &one, &one, 0).unwrap(),
        "inplace_addmm",
        &[&o, &a, &b],
        &o,
        Some(0),
    );
}

/// A repeatable executor planned with out apart from its inputs, then re-addressed so that
/// out is mat1's memory: phase 2 must either refuse (as the element-wise engine does: "an
/// input now overlaps the output ... plan again") or compute as if mat1 were read first.
#[test]
fn readdressed_out_overlapping_an_input() {
    let mut rng = Rng::new(61);
    // (n, mat2 transposed): small with a transposed mat2 (the GEMM's dot-product kernel), and
    // big enough for the blocked, multi-threaded kernel.
    for (n, bt) in [(6usize, true), (6, false), (150, false), (150, true)] {
        let b = if bt {
            View {
                strides: vec![1, n],
                ..contig(&[n, n], F32, 1)
            }
        } else {
            contig(&[n, n], F32, 1)
        };
        let case = new_case(
            Op::Mm,
            contig(&[n, n], F32, 0),
            b,
            None,
            Some(contig(&[n, n], F32, 2)),
        );
        let mut bufs: Vec<Buf> = (0..3).map(|s| Buf::new(storage_bytes(&case, s))).collect();
        fill_view(&case.a, &mut rng, &mut bufs, false);
        fill_view(&case.b, &mut rng, &mut bufs, false);
        let before: Vec<Vec<u8>> = bufs.iter().map(|b| b.bytes().to_vec()).collect();
        let mut exec = build(&case, &bufs).unwrap();
        exec.set_addr(2, bufs[0].addr()).unwrap();
        match run_exec(&exec) {
            Err(e) => assert!(e.to_string().contains("overlap"), "refused, but with: {e}"),
            Ok(()) => {
                let dims = case.dims();
                for i in 0..n {
                    for j in 0..n {
                        let (want, s) = reference(&case, &dims, &before, &[], i, j);
                        let e = (i * n + j) * 4;
                        let got = f32::from_le_bytes(bufs[0].bytes()[e..e + 4].try_into().unwrap())
                            as f64;
                        assert!(
                            close(got, want, s, n, F32, F32),
                            "n = {n}, mat2 transposed {bt}: out[{i}][{j}] = {got}, want {want}"
                        );
                    }
                }
            }
        }
    }
}
