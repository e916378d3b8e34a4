//! The gather/scatter family through its C entry points (IndexSelect, GatherV2, Embedding,
//! Scatter and its value/in-place forms, IndexCopy, IndexFillTensor, RepeatInterleave's
//! five forms), on random shapes (empty dims too), negative dims, index dtypes s32/s64,
//! views with padding, permuted axes and offsets for every tensor, over many dtypes,
//! against plain loops over the logical indices written here. Moves are exact to the
//! byte (NaN payloads included; a bool is written as 0/1); reductions use values exact in
//! every dtype, so they are exact too. The whole storage of every output is compared,
//! so a write outside a view fails. Errors: out-of-range indices fail the run at
//! synchronize (naming the operator and the value) with the output untouched; phase-1
//! rules return 161001/161002.

use super::add_diff::Rng;
use crate::capi::meta::*;
use crate::capi::ops::{
    embedding, gather, gather_v2, index_add, index_add_v2, index_copy, index_fill_tensor,
    index_select, repeat_interleave, scatter, scatter_add, take,
};
use crate::capi::runtime::{
    aclGetRecentErrMsg, aclInit, aclrtFree, aclrtMalloc, aclrtMemcpy, aclrtSetDevice,
    aclrtSynchronizeStream,
};
use std::ffi::{c_void, CStr};
use std::ptr::{null, null_mut};

pub(super) const F32: i32 = 0;
pub(super) const F16: i32 = 1;
pub(super) const S8: i32 = 2;
pub(super) const S32: i32 = 3;
pub(super) const U8: i32 = 4;
pub(super) const S16: i32 = 6;
pub(super) const S64: i32 = 9;
pub(super) const F64: i32 = 11;
pub(super) const BOOL: i32 = 12;
pub(super) const C64: i32 = 16;
pub(super) const BF16: i32 = 27;
pub(super) const ND: i32 = 2;

pub(super) fn device() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let _ = aclInit(null());
        assert_eq!(aclrtSetDevice(0), 0);
    });
}

pub(super) fn err() -> String {
    unsafe { CStr::from_ptr(aclGetRecentErrMsg()) }
        .to_string_lossy()
        .into_owned()
}

pub(super) fn esize(d: i32) -> usize {
    match d {
        S8 | U8 | BOOL => 1,
        F16 | BF16 | S16 => 2,
        F32 | S32 => 4,
        S64 | F64 | C64 => 8,
        _ => panic!("dtype {d}"),
    }
}

/// `v` (a small integer, exact everywhere) in dtype `d`.
pub(super) fn encode(d: i32, v: i64) -> Vec<u8> {
    match d {
        F32 => (v as f32).to_le_bytes().to_vec(),
        F16 => half::f16::from_f64(v as f64)
            .to_bits()
            .to_le_bytes()
            .to_vec(),
        BF16 => half::bf16::from_f64(v as f64)
            .to_bits()
            .to_le_bytes()
            .to_vec(),
        F64 => (v as f64).to_le_bytes().to_vec(),
        C64 => [(v as f32).to_le_bytes(), 0f32.to_le_bytes()].concat(),
        S8 | U8 => vec![v as u8],
        BOOL => vec![(v != 0) as u8],
        S16 => (v as i16).to_le_bytes().to_vec(),
        S32 => (v as i32).to_le_bytes().to_vec(),
        S64 => v.to_le_bytes().to_vec(),
        _ => panic!("dtype {d}"),
    }
}

/// An element's value as i64 (the real part; exact for the values tests use).
pub(super) fn decode(d: i32, b: &[u8]) -> i64 {
    match d {
        F32 | C64 => f32::from_le_bytes(b[..4].try_into().unwrap()) as i64,
        F16 => half::f16::from_bits(u16::from_le_bytes(b[..2].try_into().unwrap())).to_f64() as i64,
        BF16 => {
            half::bf16::from_bits(u16::from_le_bytes(b[..2].try_into().unwrap())).to_f64() as i64
        }
        F64 => f64::from_le_bytes(b[..8].try_into().unwrap()) as i64,
        S8 => b[0] as i8 as i64,
        U8 => b[0] as i64,
        BOOL => (b[0] != 0) as i64,
        S16 => i16::from_le_bytes(b[..2].try_into().unwrap()) as i64,
        S32 => i32::from_le_bytes(b[..4].try_into().unwrap()) as i64,
        S64 => i64::from_le_bytes(b[..8].try_into().unwrap()),
        _ => panic!("dtype {d}"),
    }
}

/// `v` in dtype `d`, through f64 (the sign of a zero kept; integers wrap).
fn encode_f(d: i32, v: f64) -> Vec<u8> {
    match d {
        F32 => (v as f32).to_le_bytes().to_vec(),
        F16 => half::f16::from_f64(v).to_bits().to_le_bytes().to_vec(),
        BF16 => half::bf16::from_f64(v).to_bits().to_le_bytes().to_vec(),
        F64 => v.to_le_bytes().to_vec(),
        C64 => [(v as f32).to_le_bytes(), 0f32.to_le_bytes()].concat(),
        _ => encode(d, v as i64),
    }
}

pub(super) fn decode_f(d: i32, b: &[u8]) -> f64 {
    match d {
        F32 | C64 => f32::from_le_bytes(b[..4].try_into().unwrap()) as f64,
        F16 => half::f16::from_bits(u16::from_le_bytes(b[..2].try_into().unwrap())).to_f64(),
        BF16 => half::bf16::from_bits(u16::from_le_bytes(b[..2].try_into().unwrap())).to_f64(),
        F64 => f64::from_le_bytes(b[..8].try_into().unwrap()),
        _ => decode(d, b) as f64,
    }
}

/// Random element bytes (any bit pattern: NaNs with payloads too; a bool byte 0, 1 or 2).
pub(super) fn random_elem(rng: &mut Rng, d: i32) -> Vec<u8> {
    if d == BOOL {
        return vec![rng.below(3) as u8];
    }
    (0..esize(d)).map(|_| rng.next() as u8).collect()
}

/// What a moved element becomes: a bool as 0/1, everything else its bytes.
pub(super) fn moved(d: i32, b: &[u8]) -> Vec<u8> {
    if d == BOOL {
        vec![(b[0] != 0) as u8]
    } else {
        b.to_vec()
    }
}

/// A device buffer seen as a view.
pub(super) struct T {
    pub(super) dtype: i32,
    pub(super) shape: Vec<usize>,
    pub(super) strides: Vec<usize>,
    pub(super) offset: usize,
    pub(super) storage: usize,
    pub(super) dev: *mut c_void,
    pub(super) t: *mut aclTensor,
}

impl T {
    /// A view of `shape` with a random layout (axes permuted in memory, padded rows, an
    /// offset), its storage filled from `fill(storage index)`.
    pub(super) fn new(
        rng: &mut Rng,
        dtype: i32,
        shape: &[usize],
        fill: &mut dyn FnMut(usize) -> Vec<u8>,
    ) -> T {
        let r = shape.len();
        let mut order: Vec<usize> = (0..r).collect();
        if r > 1 && rng.pct(30) {
            for i in (1..r).rev() {
                order.swap(i, rng.below(i as u64 + 1) as usize);
            }
        }
        let mut strides = vec![0; r];
        let mut acc = 1;
        let padded = rng.pct(40);
        for &d in order.iter().rev() {
            strides[d] = acc;
            acc *= shape[d] + if padded { rng.below(3) as usize } else { 0 };
        }
        let offset = rng.below(4) as usize;
        T::with_layout(dtype, shape, &strides, offset, fill)
    }

    pub(super) fn with_layout(
        dtype: i32,
        shape: &[usize],
        strides: &[usize],
        offset: usize,
        fill: &mut dyn FnMut(usize) -> Vec<u8>,
    ) -> T {
        let reach = if shape.contains(&0) {
            0
        } else {
            shape
                .iter()
                .zip(strides)
                .map(|(n, s)| (n - 1) * s)
                .sum::<usize>()
                + 1
        };
        let storage = offset + reach + 1;
        let bytes: Vec<u8> = (0..storage).flat_map(&mut *fill).collect();
        assert_eq!(bytes.len(), storage * esize(dtype));
        let mut dev = null_mut();
        assert_eq!(unsafe { aclrtMalloc(&mut dev, bytes.len(), 0) }, 0);
        assert_eq!(
            unsafe {
                aclrtMemcpy(
                    dev,
                    bytes.len(),
                    bytes.as_ptr() as *const c_void,
                    bytes.len(),
                    1,
                )
            },
            0
        );
        let dims: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
        let st: Vec<i64> = strides.iter().map(|&s| s as i64).collect();
        let sto = [storage as i64];
        let t = unsafe {
            aclCreateTensor(
                dims.as_ptr(),
                dims.len() as u64,
                dtype,
                st.as_ptr(),
                offset as i64,
                ND,
                sto.as_ptr(),
                1,
                dev,
            )
        };
        assert!(!t.is_null(), "{}", err());
        T {
            dtype,
            shape: shape.to_vec(),
            strides: strides.to_vec(),
            offset,
            storage,
            dev,
            t,
        }
    }

    /// A random-layout index tensor holding `values` in row-major order.
    pub(super) fn index(rng: &mut Rng, dtype: i32, shape: &[usize], values: &[i64]) -> T {
        let mut t = T::new(rng, dtype, shape, &mut |_| encode(dtype, 0));
        let mut bytes = t.bytes();
        for (k, idx) in indices(shape).iter().enumerate() {
            let p = t.pos(idx) * esize(dtype);
            bytes[p..p + esize(dtype)].copy_from_slice(&encode(dtype, values[k]));
        }
        t.upload(&bytes);
        t.shape = shape.to_vec();
        t
    }

    pub(super) fn upload(&mut self, bytes: &[u8]) {
        assert_eq!(
            unsafe {
                aclrtMemcpy(
                    self.dev,
                    bytes.len(),
                    bytes.as_ptr() as *const c_void,
                    bytes.len(),
                    1,
                )
            },
            0
        );
    }

    pub(super) fn bytes(&self) -> Vec<u8> {
        let n = self.storage * esize(self.dtype);
        let mut b = vec![0u8; n];
        assert_eq!(
            unsafe { aclrtMemcpy(b.as_mut_ptr() as *mut c_void, n, self.dev, n, 2) },
            0
        );
        b
    }

    pub(super) fn pos(&self, idx: &[usize]) -> usize {
        self.offset
            + idx
                .iter()
                .zip(&self.strides)
                .map(|(i, s)| i * s)
                .sum::<usize>()
    }

    pub(super) fn elem<'a>(&self, bytes: &'a [u8], idx: &[usize]) -> &'a [u8] {
        let e = esize(self.dtype);
        let p = self.pos(idx) * e;
        &bytes[p..p + e]
    }

    pub(super) fn set(&self, bytes: &mut [u8], idx: &[usize], v: &[u8]) {
        let e = esize(self.dtype);
        let p = self.pos(idx) * e;
        bytes[p..p + e].copy_from_slice(v);
    }
}

impl Drop for T {
    fn drop(&mut self) {
        assert_eq!(aclDestroyTensor(self.t), 0);
        assert_eq!(aclrtFree(self.dev), 0);
    }
}

pub(super) fn indices(shape: &[usize]) -> Vec<Vec<usize>> {
    let n: usize = shape.iter().product();
    (0..n)
        .map(|mut k| {
            let mut idx = vec![0; shape.len()];
            for d in (0..shape.len()).rev() {
                idx[d] = k % shape[d];
                k /= shape[d];
            }
            idx
        })
        .collect()
}

pub(super) type Phase2 = extern "C" fn(*mut c_void, u64, *mut aclOpExecutor, *mut c_void) -> i32;

/// Runs phase 2 and synchronizes; returns the synchronize status.
pub(super) fn run(st: i32, ws: u64, ex: *mut aclOpExecutor, phase2: Phase2) -> i32 {
    assert_eq!(st, 0, "phase 1: {}", err());
    let mut w = null_mut();
    if ws > 0 {
        assert_eq!(unsafe { aclrtMalloc(&mut w, ws as usize, 0) }, 0);
    }
    // A stream of its own: a run that fails on purpose must not be reported to another
    // test synchronizing the default stream in parallel (nor take another's failure).
    let mut stream = null_mut();
    assert_eq!(
        unsafe { crate::capi::runtime::aclrtCreateStream(&mut stream) },
        0
    );
    assert_eq!(phase2(w, ws, ex, stream), 0, "phase 2: {}", err());
    let r = aclrtSynchronizeStream(stream);
    assert_eq!(crate::capi::runtime::aclrtDestroyStream(stream), 0);
    if !w.is_null() {
        assert_eq!(aclrtFree(w), 0);
    }
    r
}

pub(super) fn ok(st: i32, ws: u64, ex: *mut aclOpExecutor, phase2: Phase2) {
    assert_eq!(run(st, ws, ex, phase2), 0, "{}", err());
}

pub(super) const MOVE_DTYPES: &[i32] = &[F32, F16, BF16, S8, S32, S64, U8, BOOL, F64, C64];

pub(super) fn random_shape(rng: &mut Rng, rank: usize) -> Vec<usize> {
    (0..rank)
        .map(|_| {
            if rng.pct(8) {
                0
            } else {
                1 + rng.below(4) as usize
            }
        })
        .collect()
}

/// A dim in [-rank, rank) naming axis `ax`.
fn signed_dim(rng: &mut Rng, ax: usize, rank: usize) -> i64 {
    if rng.pct(50) {
        ax as i64 - rank.max(1) as i64
    } else {
        ax as i64
    }
}

#[test]
fn index_select_gather_v2_and_embedding_match_a_loop() {
    device();
    let mut rng = Rng::new(0x9a7e);
    for case in 0..300 {
        let op = case % 3; // 0 IndexSelect, 1 GatherV2, 2 Embedding
        let d = rng.pick(MOVE_DTYPES);
        let rank = if op == 2 { 2 } else { rng.below(4) as usize };
        let shape = random_shape(&mut rng, rank);
        let ax = if op == 2 || rank == 0 {
            0
        } else {
            rng.below(rank as u64) as usize
        };
        let n = if rank == 0 { 1 } else { shape[ax] };
        let idt = rng.pick(&[S32, S64]);
        let idx_shape: Vec<usize> = match op {
            0 if rank == 0 => vec![1],
            0 => {
                if rng.pct(20) {
                    vec![]
                } else {
                    vec![rng.below(5) as usize]
                }
            }
            _ => {
                let q = rng.below(3) as usize;
                (0..q).map(|_| rng.below(4) as usize).collect()
            }
        };
        let k: usize = idx_shape.iter().product();
        let wrap = op == 1;
        let vals: Vec<i64> = (0..k)
            .map(|_| {
                let v = rng.below(n.max(1) as u64) as i64;
                if wrap && rng.pct(40) {
                    v - n as i64
                } else {
                    v
                }
            })
            .collect();
        if n == 0 && k > 0 {
            continue; // no valid index exists
        }
        let src = T::new(&mut rng, d, &shape, &mut |_| {
            random_elem(&mut Rng::new(case as u64 * 7 + 1), d)
        });
        let src_bytes = src.bytes();
        let index = T::index(&mut rng, idt, &idx_shape, &vals);
        let iq = idx_shape.len().max(1);
        let out_shape: Vec<usize> = match op {
            0 => {
                let mut s = shape.clone();
                if rank > 0 {
                    s[ax] = k;
                }
                s
            }
            _ if rank == 0 => vec![],
            _ => {
                let ishape = if idx_shape.is_empty() {
                    vec![1]
                } else {
                    idx_shape.clone()
                };
                [&shape[..ax], &ishape[..], &shape[ax + 1..]].concat()
            }
        };
        let out_shape = if op == 2 {
            [&idx_shape[..], &shape[1..]].concat()
        } else {
            out_shape
        };
        let out = T::new(&mut rng, d, &out_shape, &mut |i| encode(d, (i % 5) as i64));
        let mut want = out.bytes();
        let dim = signed_dim(&mut rng, ax, rank);
        let (mut ws, mut ex) = (0u64, null_mut());
        let st = unsafe {
            match op {
                0 => index_select::aclnnIndexSelectGetWorkspaceSize(
                    src.t, dim, index.t, out.t, &mut ws, &mut ex,
                ),
                1 => gather_v2::aclnnGatherV2GetWorkspaceSize(
                    src.t, dim, index.t, out.t, &mut ws, &mut ex,
                ),
                _ => embedding::aclnnEmbeddingGetWorkspaceSize(
                    src.t, index.t, out.t, &mut ws, &mut ex,
                ),
            }
        };
        let p2: Phase2 = match op {
            0 => index_select::aclnnIndexSelect,
            1 => gather_v2::aclnnGatherV2,
            _ => embedding::aclnnEmbedding,
        };
        ok(st, ws, ex, p2);
        if !src.shape.contains(&0) && k > 0 {
            for oi in indices(&out_shape) {
                // The index position and the source position of out element `oi`.
                let (ipos, mut spos): (Vec<usize>, Vec<usize>) = match op {
                    0 => (
                        if idx_shape.is_empty() {
                            vec![]
                        } else if rank == 0 {
                            vec![0]
                        } else {
                            vec![oi[ax]]
                        },
                        oi.clone(),
                    ),
                    1 if rank == 0 => (vec![0; idx_shape.len()], vec![]),
                    1 => {
                        let ip = if idx_shape.is_empty() {
                            vec![]
                        } else {
                            oi[ax..ax + iq].to_vec()
                        };
                        let sp = [&oi[..ax], &[0][..], &oi[ax + iq..]].concat();
                        (ip, sp)
                    }
                    _ => (oi[..idx_shape.len()].to_vec(), vec![0, oi[idx_shape.len()]]),
                };
                let flat = ipos.iter().zip(&idx_shape).fold(0, |a, (i, s)| a * s + i);
                let v = vals[flat].rem_euclid(n as i64) as usize;
                if rank > 0 {
                    spos[ax] = v;
                }
                out.set(&mut want, &oi, &moved(d, src.elem(&src_bytes, &spos)));
            }
        }
        assert_eq!(
            out.bytes(),
            want,
            "case {case} op {op} dtype {d} shape {shape:?} dim {dim} index {idx_shape:?} {vals:?}"
        );
    }
}

#[test]
fn scatter_forms_match_a_loop() {
    device();
    let mut rng = Rng::new(0x5ca7);
    for case in 0..400 {
        let inplace = rng.pct(40);
        let value_form = rng.pct(30);
        let reduce = rng.below(3) as i64;
        let d = if reduce == 0 {
            rng.pick(MOVE_DTYPES)
        } else {
            rng.pick(&[F32, F16, BF16, S8, S32, S64, U8, F64, C64, BOOL])
        };
        let rank = 1 + rng.below(3) as usize;
        let shape: Vec<usize> = (0..rank).map(|_| 1 + rng.below(4) as usize).collect();
        let ax = rng.below(rank as u64) as usize;
        let n = shape[ax];
        let idt = rng.pick(&[S32, S64]);
        // index no larger than self except along dim, and no larger than src.
        let idx_shape: Vec<usize> = (0..rank)
            .map(|j| {
                if j == ax {
                    rng.below(5) as usize
                } else {
                    rng.below(shape[j] as u64 + 1) as usize
                }
            })
            .collect();
        let src_shape: Vec<usize> = idx_shape
            .iter()
            .map(|&i| i + rng.below(2) as usize)
            .collect();
        let k: usize = idx_shape.iter().product();
        let vals: Vec<i64> = (0..k).map(|_| rng.below(n as u64) as i64).collect();
        let small = |r: &mut Rng| {
            if d == BOOL {
                r.below(2) as i64
            } else {
                r.below(5) as i64 - 2
            }
        };
        let mut vrng = Rng::new(case as u64 + 99);
        let elem = |r: &mut Rng| {
            if reduce == 0 {
                random_elem(r, d)
            } else {
                encode(d, small(r))
            }
        };
        let self_t = T::new(&mut rng, d, &shape, &mut |_| elem(&mut vrng));
        let self_bytes = self_t.bytes();
        let src = T::new(&mut rng, d, &src_shape, &mut |_| elem(&mut vrng));
        let src_bytes = src.bytes();
        let index = T::index(&mut rng, idt, &idx_shape, &vals);
        let scalar_bytes = encode(d, small(&mut rng));
        let scalar = unsafe { aclCreateScalar(scalar_bytes.as_ptr() as *mut c_void, d) };
        let out =
            (!inplace).then(|| T::new(&mut rng, d, &shape, &mut |i| encode(d, (i % 3) as i64)));
        let dst = out.as_ref().unwrap_or(&self_t);
        // Expected: dst = self, then the updates in order.
        let mut want = dst.bytes();
        if !inplace {
            for i in indices(&shape) {
                dst.set(&mut want, &i, &moved(d, self_t.elem(&self_bytes, &i)));
            }
        }
        for (flat, p) in indices(&idx_shape).into_iter().enumerate() {
            let upd: Vec<u8> = if value_form {
                scalar_bytes.clone()
            } else {
                src.elem(&src_bytes, &p).to_vec()
            };
            let mut target = p.clone();
            target[ax] = vals[flat] as usize;
            let cur = dst.elem(&want, &target).to_vec();
            let (a, b) = (decode_f(d, &cur), decode_f(d, &upd));
            let c = |b: &[u8]| {
                (
                    f32::from_le_bytes(b[..4].try_into().unwrap()),
                    f32::from_le_bytes(b[4..8].try_into().unwrap()),
                )
            };
            let new = match reduce {
                0 => moved(d, &upd),
                2 if d == C64 => {
                    let ((ar, ai), (br, bi)) = (c(&cur), c(&upd));
                    [
                        (ar * br - ai * bi).to_le_bytes(),
                        (ar * bi + ai * br).to_le_bytes(),
                    ]
                    .concat()
                }
                1 if d == C64 => {
                    let ((ar, ai), (br, bi)) = (c(&cur), c(&upd));
                    [(ar + br).to_le_bytes(), (ai + bi).to_le_bytes()].concat()
                }
                1 if d == BOOL => encode(d, (a != 0.0 || b != 0.0) as i64),
                2 if d == BOOL => encode(d, (a != 0.0 && b != 0.0) as i64),
                1 => encode_f(d, a + b),
                _ => encode_f(d, a * b),
            };
            dst.set(&mut want, &target, &new);
        }
        let dim = signed_dim(&mut rng, ax, rank);
        let (mut ws, mut ex) = (0u64, null_mut());
        let (st, p2): (i32, Phase2) = unsafe {
            match (value_form, inplace) {
                (false, false) => (
                    scatter::aclnnScatterGetWorkspaceSize(
                        self_t.t, dim, index.t, src.t, reduce, dst.t, &mut ws, &mut ex,
                    ),
                    scatter::aclnnScatter,
                ),
                (true, false) => (
                    scatter::aclnnScatterValueGetWorkspaceSize(
                        self_t.t, dim, index.t, scalar, reduce, dst.t, &mut ws, &mut ex,
                    ),
                    scatter::aclnnScatterValue,
                ),
                (false, true) => (
                    scatter::aclnnInplaceScatterGetWorkspaceSize(
                        self_t.t, dim, index.t, src.t, reduce, &mut ws, &mut ex,
                    ),
                    scatter::aclnnInplaceScatter,
                ),
                (true, true) => (
                    scatter::aclnnInplaceScatterValueGetWorkspaceSize(
                        self_t.t, dim, index.t, scalar, reduce, &mut ws, &mut ex,
                    ),
                    scatter::aclnnInplaceScatterValue,
                ),
            }
        };
        ok(st, ws, ex, p2);
        assert_eq!(dst.bytes(), want, "case {case} dtype {d} reduce {reduce} value {value_form} inplace {inplace} shape {shape:?} dim {dim} index {idx_shape:?} {vals:?} src {src_shape:?}");
        assert_eq!(aclDestroyScalar(scalar), 0);
    }
}

#[test]
fn index_copy_and_index_fill_match_a_loop() {
    device();
    let mut rng = Rng::new(0x1dc0);
    for case in 0..300 {
        let fill = case % 2 == 1;
        let inplace = rng.pct(50);
        let d = if fill {
            rng.pick(&[F32, F16, BF16, S32, S64, BOOL])
        } else {
            rng.pick(MOVE_DTYPES)
        };
        let rank = rng.below(4) as usize;
        let shape = random_shape(&mut rng, rank);
        let ax = if rank == 0 {
            0
        } else {
            rng.below(rank as u64) as usize
        };
        let n = if rank == 0 { 1 } else { shape[ax] };
        let k = if rank == 0 { 1 } else { rng.below(5) as usize };
        if n == 0 && k > 0 {
            continue;
        }
        // Fill wraps negative indices; IndexCopy takes them in [0, n).
        let vals: Vec<i64> = (0..k)
            .map(|_| {
                let v = rng.below(n as u64) as i64;
                if fill && rng.pct(40) {
                    v - n as i64
                } else {
                    v
                }
            })
            .collect();
        let mut vrng = Rng::new(case as u64 + 5);
        let self_t = T::new(&mut rng, d, &shape, &mut |_| random_elem(&mut vrng, d));
        let self_bytes = self_t.bytes();
        let out =
            (!inplace).then(|| T::new(&mut rng, d, &shape, &mut |i| encode(d, (i % 3) as i64)));
        let dst = out.as_ref().unwrap_or(&self_t);
        let mut want = dst.bytes();
        if !inplace && !shape.contains(&0) {
            for i in indices(&shape) {
                dst.set(&mut want, &i, &moved(d, self_t.elem(&self_bytes, &i)));
            }
        }
        let dim = signed_dim(&mut rng, ax, rank);
        let (mut ws, mut ex) = (0u64, null_mut());
        if fill {
            let value = rng.below(7) as i64 - 3;
            let vb = encode(S64, value);
            let scalar = unsafe { aclCreateScalar(vb.as_ptr() as *mut c_void, S64) };
            let arr = unsafe { aclCreateIntArray(vals.as_ptr(), vals.len() as u64) };
            if !shape.contains(&0) {
                let mut fshape = shape.clone();
                if rank > 0 {
                    fshape[ax] = k;
                }
                for p in indices(&fshape) {
                    let mut target = p.clone();
                    if rank > 0 {
                        target[ax] = vals[p[ax]].rem_euclid(n as i64) as usize;
                    }
                    dst.set(&mut want, &target, &encode(d, value));
                }
            }
            let (st, p2): (i32, Phase2) = unsafe {
                if inplace {
                    (
                        index_fill_tensor::aclnnInplaceIndexFillTensorGetWorkspaceSize(
                            self_t.t, dim, arr, scalar, &mut ws, &mut ex,
                        ),
                        index_fill_tensor::aclnnInplaceIndexFillTensor,
                    )
                } else {
                    (
                        index_fill_tensor::aclnnIndexFillTensorGetWorkspaceSize(
                            self_t.t, dim, arr, scalar, dst.t, &mut ws, &mut ex,
                        ),
                        index_fill_tensor::aclnnIndexFillTensor,
                    )
                }
            };
            ok(st, ws, ex, p2);
            assert_eq!(aclDestroyScalar(scalar), 0);
            assert_eq!(aclDestroyIntArray(arr), 0);
        } else {
            let mut sshape = shape.clone();
            if rank > 0 {
                sshape[ax] = k;
            }
            let mut srng = Rng::new(case as u64 + 11);
            let source = T::new(&mut rng, d, &sshape, &mut |_| random_elem(&mut srng, d));
            let source_bytes = source.bytes();
            let idt = rng.pick(&[S32, S64]);
            let ishape = if rank == 0 || rng.pct(10) && k == 1 {
                vec![]
            } else {
                vec![k]
            };
            let index = T::index(&mut rng, idt, &ishape, &vals);
            if !shape.contains(&0) {
                for p in indices(&sshape) {
                    let mut target = p.clone();
                    if rank > 0 {
                        target[ax] = vals[p[ax]] as usize;
                    }
                    dst.set(
                        &mut want,
                        &target,
                        &moved(d, source.elem(&source_bytes, &p)),
                    );
                }
            }
            let (st, p2): (i32, Phase2) = unsafe {
                if inplace {
                    (
                        index_copy::aclnnInplaceIndexCopyGetWorkspaceSize(
                            self_t.t, dim, index.t, source.t, &mut ws, &mut ex,
                        ),
                        index_copy::aclnnInplaceIndexCopy,
                    )
                } else {
                    (
                        index_copy::aclnnIndexCopyGetWorkspaceSize(
                            self_t.t, dim, index.t, source.t, dst.t, &mut ws, &mut ex,
                        ),
                        index_copy::aclnnIndexCopy,
                    )
                }
            };
            ok(st, ws, ex, p2);
        }
        assert_eq!(dst.bytes(), want, "case {case} fill {fill} inplace {inplace} dtype {d} shape {shape:?} dim {dim} {vals:?}");
    }
}

#[test]
fn repeat_interleave_forms_match_a_loop() {
    device();
    let mut rng = Rng::new(0x4e9);
    for case in 0..250 {
        let form = case % 5; // 0 tensor, 1 tensor+dim, 2 int, 3 int+dim, 4 Tensor (positions)
        let d = rng.pick(&[F32, F16, BF16, S8, S16, S32, S64, U8, BOOL]);
        let rank = if form == 1 || form == 3 {
            1 + rng.below(3) as usize
        } else {
            rng.below(4) as usize
        };
        let shape: Vec<usize> = (0..rank).map(|_| 1 + rng.below(3) as usize).collect();
        let with_dim = form == 1 || form == 3;
        let ax = if with_dim {
            rng.below(rank as u64) as usize
        } else {
            0
        };
        let n = if with_dim {
            shape[ax]
        } else {
            shape.iter().product()
        };
        let one = rng.pct(30);
        let counts: Vec<i64> = if form >= 2 && form != 4 || one {
            vec![rng.below(4) as i64]
        } else {
            (0..n).map(|_| rng.below(4) as i64).collect()
        };
        let per = |i: usize| if counts.len() == 1 { counts[0] } else { counts[i] } as usize;
        let m: usize = (0..if form == 4 { counts.len() } else { n }).map(per).sum();
        let (mut ws, mut ex) = (0u64, null_mut());
        if form == 4 {
            let idt = rng.pick(&[S32, S64]);
            let reps = T::index(&mut rng, idt, &[counts.len()], &counts);
            let out = T::new(&mut rng, idt, &[m], &mut |_| encode(idt, 9));
            let mut want = out.bytes();
            let mut j = 0;
            for (i, &c) in counts.iter().enumerate() {
                for _ in 0..c {
                    out.set(&mut want, &[j], &encode(idt, i as i64));
                    j += 1;
                }
            }
            let st = unsafe {
                repeat_interleave::aclnnRepeatInterleaveTensorGetWorkspaceSize(
                    reps.t, m as i64, out.t, &mut ws, &mut ex,
                )
            };
            ok(st, ws, ex, repeat_interleave::aclnnRepeatInterleaveTensor);
            assert_eq!(out.bytes(), want, "case {case} {counts:?}");
            continue;
        }
        let mut vrng = Rng::new(case as u64);
        let self_t = T::new(&mut rng, d, &shape, &mut |_| random_elem(&mut vrng, d));
        let sb = self_t.bytes();
        let out_shape = if with_dim {
            let mut s = shape.clone();
            s[ax] = m;
            s
        } else {
            vec![m]
        };
        let out = T::new(&mut rng, d, &out_shape, &mut |i| encode(d, (i % 3) as i64));
        let mut want = out.bytes();
        let src_of: Vec<usize> = (0..n)
            .flat_map(|i| std::iter::repeat_n(i, per(i)))
            .collect();
        let flat_shape = shape.clone();
        for oi in indices(&out_shape) {
            let sp: Vec<usize> = if with_dim {
                let mut p = oi.clone();
                p[ax] = src_of[oi[ax]];
                p
            } else {
                let mut f = src_of[oi[0]];
                let mut p = vec![0; rank];
                for dd in (0..rank).rev() {
                    p[dd] = f % flat_shape[dd];
                    f /= flat_shape[dd];
                }
                p
            };
            out.set(&mut want, &oi, &moved(d, self_t.elem(&sb, &sp)));
        }
        let dim = signed_dim(&mut rng, ax, rank);
        let idt = rng.pick(&[S32, S64]);
        let rshape = if counts.len() == 1 && rng.pct(50) {
            vec![]
        } else {
            vec![counts.len()]
        };
        let reps = T::index(&mut rng, idt, &rshape, &counts);
        let (st, p2): (i32, Phase2) = unsafe {
            match form {
                0 => (
                    repeat_interleave::aclnnRepeatInterleaveGetWorkspaceSize(
                        self_t.t, reps.t, m as i64, out.t, &mut ws, &mut ex,
                    ),
                    repeat_interleave::aclnnRepeatInterleave,
                ),
                1 => (
                    repeat_interleave::aclnnRepeatInterleaveWithDimGetWorkspaceSize(
                        self_t.t, reps.t, dim, m as i64, out.t, &mut ws, &mut ex,
                    ),
                    repeat_interleave::aclnnRepeatInterleaveWithDim,
                ),
                2 => (
                    repeat_interleave::aclnnRepeatInterleaveIntGetWorkspaceSize(
                        self_t.t, counts[0], m as i64, out.t, &mut ws, &mut ex,
                    ),
                    repeat_interleave::aclnnRepeatInterleaveInt,
                ),
                _ => (
                    repeat_interleave::aclnnRepeatInterleaveIntWithDimGetWorkspaceSize(
                        self_t.t, counts[0], dim, m as i64, out.t, &mut ws, &mut ex,
                    ),
                    repeat_interleave::aclnnRepeatInterleaveIntWithDim,
                ),
            }
        };
        ok(st, ws, ex, p2);
        assert_eq!(
            out.bytes(),
            want,
            "case {case} form {form} dtype {d} shape {shape:?} dim {dim} counts {counts:?}"
        );
    }
}

/// An index out of range is found at phase 2: the run fails at synchronize with the
/// device's AI-core exception (ACL_ERROR_RT_AICORE_EXCEPTION) and a message naming the
/// operator, the value and the bound, and the output is left untouched.
#[test]
fn out_of_range_indices_fail_the_run_and_write_nothing() {
    device();
    let mut rng = Rng::new(0xbad);
    // (op, index values, bound): IndexSelect/Embedding/Scatter/IndexCopy take [0, n);
    // GatherV2 wraps [-n, n).
    let cases: &[(&str, &[i64])] = &[
        ("aclnnIndexSelect", &[0, 3]),
        ("aclnnIndexSelect", &[-1]),
        ("aclnnGatherV2", &[-4, 0]),
        ("aclnnGatherV2", &[3]),
        ("aclnnEmbedding", &[1, 7]),
        ("aclnnScatter", &[2, 3]),
        ("aclnnInplaceIndexCopy", &[0, -1]),
        ("aclnnRepeatInterleave", &[1, 1, 1, 1, 1, 1]),
        ("aclnnRepeatInterleaveWithDim", &[3, -1]),
    ];
    for &(op, vals) in cases {
        let self_t = T::new(&mut rng, F32, &[3, 2], &mut |i| encode(F32, i as i64));
        let idt = S64;
        let k = vals.len();
        let index = T::index(&mut rng, idt, &[k], vals);
        let out_shape: Vec<usize> = match op {
            "aclnnIndexSelect" | "aclnnGatherV2" | "aclnnEmbedding" => vec![k, 2],
            "aclnnRepeatInterleave" => vec![7],
            "aclnnRepeatInterleaveWithDim" => vec![3, 2],
            _ => vec![3, 2],
        };
        let out = T::new(&mut rng, F32, &out_shape, &mut |_| encode(F32, 42));
        let before = (out.bytes(), self_t.bytes());
        let (mut ws, mut ex) = (0u64, null_mut());
        let src = T::new(&mut rng, F32, &[k, 2], &mut |_| encode(F32, 5));
        let i2 = T::index(&mut rng, idt, &[k, 1], vals);
        let (st, p2): (i32, Phase2) = unsafe {
            match op {
                "aclnnIndexSelect" => (
                    index_select::aclnnIndexSelectGetWorkspaceSize(
                        self_t.t, 0, index.t, out.t, &mut ws, &mut ex,
                    ),
                    index_select::aclnnIndexSelect,
                ),
                "aclnnGatherV2" => (
                    gather_v2::aclnnGatherV2GetWorkspaceSize(
                        self_t.t, 0, index.t, out.t, &mut ws, &mut ex,
                    ),
                    gather_v2::aclnnGatherV2,
                ),
                "aclnnEmbedding" => (
                    embedding::aclnnEmbeddingGetWorkspaceSize(
                        self_t.t, index.t, out.t, &mut ws, &mut ex,
                    ),
                    embedding::aclnnEmbedding,
                ),
                "aclnnScatter" => (
                    scatter::aclnnScatterGetWorkspaceSize(
                        self_t.t, 0, i2.t, src.t, 0, out.t, &mut ws, &mut ex,
                    ),
                    scatter::aclnnScatter,
                ),
                "aclnnInplaceIndexCopy" => (
                    index_copy::aclnnInplaceIndexCopyGetWorkspaceSize(
                        self_t.t, 0, index.t, src.t, &mut ws, &mut ex,
                    ),
                    index_copy::aclnnInplaceIndexCopy,
                ),
                "aclnnRepeatInterleave" => (
                    repeat_interleave::aclnnRepeatInterleaveGetWorkspaceSize(
                        self_t.t, index.t, 7, out.t, &mut ws, &mut ex,
                    ),
                    repeat_interleave::aclnnRepeatInterleave,
                ),
                _ => (
                    repeat_interleave::aclnnRepeatInterleaveWithDimGetWorkspaceSize(
                        self_t.t, index.t, 1, 2, out.t, &mut ws, &mut ex,
                    ),
                    repeat_interleave::aclnnRepeatInterleaveWithDim,
                ),
            }
        };
        let r = run(st, ws, ex, p2);
        let msg = err();
        assert_eq!(
            r,
            crate::error::acl::ACL_ERROR_RT_AICORE_EXCEPTION,
            "{op} {vals:?}: the run should fail with the AI-core exception: {msg}"
        );
        assert!(msg.contains(op), "{op}: {msg}");
        assert!(
            msg.contains("out of range") || msg.contains("negative") || msg.contains("add up"),
            "{op}: {msg}"
        );
        assert_eq!(
            (out.bytes(), self_t.bytes()),
            before,
            "{op}: nothing may be written"
        );
    }
}

/// Phase-1 rules: NULL tensors, dtypes, dims, index rank, shapes, reduce modes.
#[test]
fn phase_one_rules_report_their_errors() {
    device();
    let mut rng = Rng::new(0x7e57);
    let x = T::new(&mut rng, F32, &[3, 2], &mut |i| encode(F32, i as i64));
    let i1 = T::index(&mut rng, S64, &[2], &[0, 1]);
    let i2 = T::index(&mut rng, S64, &[2, 1], &[0, 1]);
    let f_idx = T::new(&mut rng, F32, &[2], &mut |_| encode(F32, 0));
    let out = T::new(&mut rng, F32, &[2, 2], &mut |_| encode(F32, 0));
    let out_s32 = T::new(&mut rng, S32, &[2, 2], &mut |_| encode(S32, 0));
    let bad_out = T::new(&mut rng, F32, &[3, 3], &mut |_| encode(F32, 0));
    let (mut ws, mut ex) = (0u64, null_mut());
    let check = |st: i32, want: i32, needle: &str| {
        assert_eq!(st, want, "{}", err());
        let m = err();
        assert!(m.contains(needle), "wanted '{needle}' in: {m}");
    };
    unsafe {
        check(
            index_select::aclnnIndexSelectGetWorkspaceSize(
                null(),
                0,
                i1.t,
                out.t,
                &mut ws,
                &mut ex,
            ),
            161001,
            "self",
        );
        check(
            index_select::aclnnIndexSelectGetWorkspaceSize(x.t, 2, i1.t, out.t, &mut ws, &mut ex),
            161002,
            "dim 2",
        );
        check(
            index_select::aclnnIndexSelectGetWorkspaceSize(x.t, 0, i2.t, out.t, &mut ws, &mut ex),
            161002,
            "index has 2 dims",
        );
        check(
            index_select::aclnnIndexSelectGetWorkspaceSize(
                x.t, 0, f_idx.t, out.t, &mut ws, &mut ex,
            ),
            161002,
            "index",
        );
        check(
            index_select::aclnnIndexSelectGetWorkspaceSize(
                x.t, 0, i1.t, out_s32.t, &mut ws, &mut ex,
            ),
            161002,
            "dtype",
        );
        check(
            index_select::aclnnIndexSelectGetWorkspaceSize(
                x.t, 0, i1.t, bad_out.t, &mut ws, &mut ex,
            ),
            161002,
            "shape",
        );
        check(
            gather_v2::aclnnGatherV2GetWorkspaceSize(x.t, -3, i1.t, out.t, &mut ws, &mut ex),
            161002,
            "dim -3",
        );
        check(
            gather_v2::aclnnGatherV2GetWorkspaceSize(x.t, 0, i1.t, bad_out.t, &mut ws, &mut ex),
            161002,
            "shape",
        );
        check(
            embedding::aclnnEmbeddingGetWorkspaceSize(x.t, i2.t, out.t, &mut ws, &mut ex),
            161002,
            "out has 2 dims",
        );
        check(
            embedding::aclnnEmbeddingGetWorkspaceSize(x.t, i1.t, null(), &mut ws, &mut ex),
            161001,
            "out",
        );
        let src = T::new(&mut rng, F32, &[2, 1], &mut |_| encode(F32, 1));
        check(
            scatter::aclnnScatterGetWorkspaceSize(x.t, 0, i2.t, src.t, 3, x.t, &mut ws, &mut ex),
            161002,
            "reduce 3",
        );
        check(
            scatter::aclnnScatterGetWorkspaceSize(x.t, 0, i2.t, src.t, 7, x.t, &mut ws, &mut ex),
            161002,
            "reduce 7",
        );
        check(
            scatter::aclnnScatterGetWorkspaceSize(x.t, 0, i1.t, src.t, 0, x.t, &mut ws, &mut ex),
            161002,
            "same number of dims",
        );
        check(
            scatter::aclnnScatterGetWorkspaceSize(x.t, 2, i2.t, src.t, 0, x.t, &mut ws, &mut ex),
            161002,
            "dim 2",
        );
        let big = T::index(&mut rng, S64, &[3, 2], &[0; 6]);
        check(
            scatter::aclnnScatterGetWorkspaceSize(x.t, 0, big.t, src.t, 0, x.t, &mut ws, &mut ex),
            161002,
            "larger than src",
        );
        check(
            index_copy::aclnnInplaceIndexCopyGetWorkspaceSize(
                x.t, 0, i1.t, src.t, &mut ws, &mut ex,
            ),
            161002,
            "differ in dim 1",
        );
        let arr = aclCreateIntArray([0i64, 3].as_ptr(), 2);
        let v = 1.0f32;
        let s = aclCreateScalar(&v as *const f32 as *mut c_void, F32);
        check(
            index_fill_tensor::aclnnInplaceIndexFillTensorGetWorkspaceSize(
                x.t, 0, arr, s, &mut ws, &mut ex,
            ),
            161002,
            "index[1] = 3 is out of range",
        );
        check(
            index_fill_tensor::aclnnInplaceIndexFillTensorGetWorkspaceSize(
                x.t,
                0,
                arr,
                null(),
                &mut ws,
                &mut ex,
            ),
            161001,
            "value",
        );
        check(
            repeat_interleave::aclnnRepeatInterleaveIntGetWorkspaceSize(
                x.t, -1, 0, out.t, &mut ws, &mut ex,
            ),
            161002,
            "negative",
        );
        let o12 = T::new(&mut rng, F32, &[12], &mut |_| encode(F32, 0));
        check(
            repeat_interleave::aclnnRepeatInterleaveIntGetWorkspaceSize(
                x.t, 2, 11, o12.t, &mut ws, &mut ex,
            ),
            161002,
            "shape",
        );
        check(
            repeat_interleave::aclnnRepeatInterleaveIntWithDimGetWorkspaceSize(
                x.t, 2, 2, 6, out.t, &mut ws, &mut ex,
            ),
            161002,
            "dim 2",
        );
        assert_eq!(aclDestroyIntArray(arr), 0);
        assert_eq!(aclDestroyScalar(s), 0);
    }
}

#[test]
fn gather_take_and_scatter_add_match_a_loop() {
    device();
    let mut rng = Rng::new(0x6a7);
    for case in 0..300 {
        let op = case % 3; // 0 Gather, 1 Take, 2 ScatterAdd
        let d = if op == 2 {
            rng.pick(&[F32, F16, BF16, S8, S32, S64, U8, F64, C64])
        } else {
            rng.pick(MOVE_DTYPES)
        };
        let d = if op == 0 && d == C64 { F32 } else { d };
        let rank = if op == 2 {
            1 + rng.below(3) as usize
        } else {
            rng.below(4) as usize
        };
        let shape: Vec<usize> = (0..rank).map(|_| 1 + rng.below(4) as usize).collect();
        let ax = if rank == 0 {
            0
        } else {
            rng.below(rank as u64) as usize
        };
        let numel: usize = shape.iter().product();
        let idx_shape: Vec<usize> = match op {
            1 => (0..rng.below(3) as usize)
                .map(|_| rng.below(4) as usize)
                .collect(),
            _ => (0..rank)
                .map(|j| {
                    if j == ax {
                        rng.below(5) as usize
                    } else {
                        rng.below(shape[j] as u64 + 1) as usize
                    }
                })
                .collect(),
        };
        let k: usize = idx_shape.iter().product();
        let n = if op == 1 {
            numel
        } else if rank == 0 {
            1
        } else {
            shape[ax]
        };
        let vals: Vec<i64> = (0..k)
            .map(|_| {
                let v = rng.below(n as u64) as i64;
                if op == 0 && rng.pct(40) {
                    v - n as i64
                } else {
                    v
                }
            })
            .collect();
        let mut vrng = Rng::new(case as u64 + 3);
        let small = |r: &mut Rng| r.below(5) as i64 - 2;
        let self_t = T::new(&mut rng, d, &shape, &mut |_| {
            if op == 2 {
                encode(d, small(&mut vrng))
            } else {
                random_elem(&mut vrng, d)
            }
        });
        let sb = self_t.bytes();
        let idt = rng.pick(&[S32, S64]);
        let index = T::index(&mut rng, idt, &idx_shape, &vals);
        let (mut ws, mut ex) = (0u64, null_mut());
        let dim = signed_dim(&mut rng, ax, rank);
        if op == 2 {
            let src_shape: Vec<usize> = idx_shape
                .iter()
                .map(|&i| i + rng.below(2) as usize)
                .collect();
            let mut srng = Rng::new(case as u64 + 17);
            let src = T::new(&mut rng, d, &src_shape, &mut |_| {
                encode(d, small(&mut srng))
            });
            let srcb = src.bytes();
            let out = T::new(&mut rng, d, &shape, &mut |_| encode(d, 7));
            let mut want = out.bytes();
            for i in indices(&shape) {
                out.set(&mut want, &i, self_t.elem(&sb, &i));
            }
            for (flat, p) in indices(&idx_shape).into_iter().enumerate() {
                let mut t = p.clone();
                t[ax] = vals[flat] as usize;
                let (a, b) = (out.elem(&want, &t).to_vec(), src.elem(&srcb, &p).to_vec());
                let new = if d == C64 {
                    let c =
                        |b: &[u8], o: usize| f32::from_le_bytes(b[o..o + 4].try_into().unwrap());
                    [
                        (c(&a, 0) + c(&b, 0)).to_le_bytes(),
                        (c(&a, 4) + c(&b, 4)).to_le_bytes(),
                    ]
                    .concat()
                } else {
                    encode_f(d, decode_f(d, &a) + decode_f(d, &b))
                };
                out.set(&mut want, &t, &new);
            }
            let st = unsafe {
                scatter_add::aclnnScatterAddGetWorkspaceSize(
                    self_t.t, dim, index.t, src.t, out.t, &mut ws, &mut ex,
                )
            };
            ok(st, ws, ex, scatter_add::aclnnScatterAdd);
            assert_eq!(out.bytes(), want, "case {case} scatter_add dtype {d} shape {shape:?} dim {dim} index {idx_shape:?} {vals:?}");
            continue;
        }
        let out = T::new(&mut rng, d, &idx_shape, &mut |_| encode(d, 7));
        let mut want = out.bytes();
        for (flat, p) in indices(&idx_shape).into_iter().enumerate() {
            let v = vals[flat].rem_euclid(n as i64) as usize;
            let sp: Vec<usize> = if op == 1 {
                let mut f = v;
                let mut q = vec![0; rank];
                for dd in (0..rank).rev() {
                    q[dd] = f % shape[dd];
                    f /= shape[dd];
                }
                q
            } else {
                let mut q = p.clone();
                if rank > 0 {
                    q[ax] = v;
                }
                q
            };
            out.set(&mut want, &p, &moved(d, self_t.elem(&sb, &sp)));
        }
        let (st, p2): (i32, Phase2) = unsafe {
            if op == 0 {
                (
                    gather::aclnnGatherGetWorkspaceSize(
                        self_t.t, dim, index.t, out.t, &mut ws, &mut ex,
                    ),
                    gather::aclnnGather,
                )
            } else {
                (
                    take::aclnnTakeGetWorkspaceSize(self_t.t, index.t, out.t, &mut ws, &mut ex),
                    take::aclnnTake,
                )
            }
        };
        ok(st, ws, ex, p2);
        assert_eq!(
            out.bytes(),
            want,
            "case {case} op {op} dtype {d} shape {shape:?} dim {dim} index {idx_shape:?} {vals:?}"
        );
    }
}

/// Large enough to be split across tasks: rows gathered and scattered by several threads.
#[test]
fn large_gathers_and_scatters_split_across_tasks() {
    device();
    let mut rng = Rng::new(0x1a26e);
    let (rows, cols, k) = (300usize, 130usize, 700usize);
    let vals: Vec<i64> = (0..k).map(|_| rng.below(rows as u64) as i64).collect();
    let src = T::new(&mut rng, F32, &[rows, cols], &mut |i| {
        encode(F32, (i % 1000) as i64)
    });
    let sb = src.bytes();
    let index = T::index(&mut rng, S64, &[k], &vals);
    let out = T::new(&mut rng, F32, &[k, cols], &mut |_| encode(F32, -1));
    let mut want = out.bytes();
    for i in 0..k {
        for j in 0..cols {
            out.set(&mut want, &[i, j], src.elem(&sb, &[vals[i] as usize, j]));
        }
    }
    let (mut ws, mut ex) = (0u64, null_mut());
    let st = unsafe {
        index_select::aclnnIndexSelectGetWorkspaceSize(src.t, 0, index.t, out.t, &mut ws, &mut ex)
    };
    ok(st, ws, ex, index_select::aclnnIndexSelect);
    assert_eq!(out.bytes(), want);
    // Scatter-add the gathered rows back along dim 0 (duplicates accumulate in order).
    let idx2: Vec<i64> = (0..k * cols).map(|f| vals[f / cols]).collect();
    let index2 = T::index(&mut rng, S32, &[k, cols], &idx2);
    let acc = T::new(&mut rng, F32, &[rows, cols], &mut |_| encode(F32, 0));
    let mut want2 = acc.bytes();
    let ob = out.bytes();
    for i in 0..k {
        for j in 0..cols {
            let t = [vals[i] as usize, j];
            let v = decode_f(F32, acc.elem(&want2, &t)) + decode_f(F32, out.elem(&ob, &[i, j]));
            acc.set(&mut want2, &t, &encode_f(F32, v));
        }
    }
    let st = unsafe {
        scatter::aclnnInplaceScatterGetWorkspaceSize(acc.t, 0, index2.t, out.t, 1, &mut ws, &mut ex)
    };
    ok(st, ws, ex, scatter::aclnnInplaceScatter);
    assert_eq!(acc.bytes(), want2);
}

#[test]
fn index_add_matches_a_loop() {
    device();
    let mut rng = Rng::new(0x1add);
    for case in 0..200 {
        let d = rng.pick(&[F32, F16, BF16, S8, S16, S32, S64, U8, F64, BOOL]);
        let rank = 1 + rng.below(3) as usize;
        let shape: Vec<usize> = (0..rank).map(|_| 1 + rng.below(4) as usize).collect();
        let ax = rng.below(rank as u64) as usize;
        let k = rng.below(6) as usize;
        let vals: Vec<i64> = (0..k).map(|_| rng.below(shape[ax] as u64) as i64).collect();
        let small = |r: &mut Rng| {
            if d == BOOL {
                r.below(2) as i64
            } else {
                r.below(5) as i64 - 2
            }
        };
        let mut vrng = Rng::new(case as u64 + 1);
        let self_t = T::new(&mut rng, d, &shape, &mut |_| encode(d, small(&mut vrng)));
        let sb = self_t.bytes();
        let mut sshape = shape.clone();
        sshape[ax] = k;
        let source = T::new(&mut rng, d, &sshape, &mut |_| encode(d, small(&mut vrng)));
        let srcb = source.bytes();
        let idt = rng.pick(&[S32, S64]);
        let index = T::index(&mut rng, idt, &[k], &vals);
        let alpha = small(&mut rng);
        let ab = encode(S64, alpha);
        let alpha_s = unsafe {
            aclCreateScalar(
                ab.as_ptr() as *mut c_void,
                if d == BOOL { BOOL } else { S64 },
            )
        };
        let out = T::new(&mut rng, d, &shape, &mut |_| encode(d, 5));
        let mut want = out.bytes();
        for i in indices(&shape) {
            out.set(&mut want, &i, self_t.elem(&sb, &i));
        }
        for p in indices(&sshape) {
            let mut t = p.clone();
            t[ax] = vals[p[ax]] as usize;
            let (a, b) = (
                decode_f(d, out.elem(&want, &t)),
                decode_f(d, source.elem(&srcb, &p)),
            );
            let new = if d == BOOL {
                encode(d, (a != 0.0 || (b != 0.0 && alpha != 0)) as i64)
            } else {
                let scaled = decode_f(d, &encode_f(d, b * alpha as f64));
                encode_f(d, a + scaled)
            };
            out.set(&mut want, &t, &new);
        }
        let dim = signed_dim(&mut rng, ax, rank);
        let (mut ws, mut ex) = (0u64, null_mut());
        let (st, p2): (i32, Phase2) = unsafe {
            if case % 2 == 0 {
                (
                    index_add::aclnnIndexAddGetWorkspaceSize(
                        self_t.t, dim, index.t, source.t, alpha_s, out.t, &mut ws, &mut ex,
                    ),
                    index_add::aclnnIndexAdd,
                )
            } else {
                (
                    index_add_v2::aclnnIndexAddV2GetWorkspaceSize(
                        self_t.t, dim, index.t, source.t, alpha_s, 0, out.t, &mut ws, &mut ex,
                    ),
                    index_add_v2::aclnnIndexAddV2,
                )
            }
        };
        ok(st, ws, ex, p2);
        assert_eq!(
            out.bytes(),
            want,
            "case {case} dtype {d} shape {shape:?} dim {dim} {vals:?} alpha {alpha}"
        );
        assert_eq!(aclDestroyScalar(alpha_s), 0);
    }
}

/// f16 reductions round after each combination, as torch 1.13's CPU kernels do
/// (`torch.zeros(1, dtype=half).scatter_add(0, zeros(5), [1, 2^-11 x4])` is 1.0, not the
/// 1.001953125 an f32 accumulation would give; index_add's alpha·source rounds first:
/// 3 · 1.0009765625 gives 3.00390625).
#[test]
fn f16_reductions_round_each_step_like_torch() {
    device();
    let mut rng = Rng::new(1);
    let h = |v: f64| half::f16::from_f64(v).to_bits().to_le_bytes().to_vec();
    let vals = [
        1.0,
        2f64.powi(-11),
        2f64.powi(-11),
        2f64.powi(-11),
        2f64.powi(-11),
    ];
    let acc = T::with_layout(F16, &[1], &[1], 0, &mut |_| h(0.0));
    let src = T::with_layout(F16, &[5], &[1], 0, &mut |i| h(vals[i.min(4)]));
    let index = T::index(&mut rng, S64, &[5], &[0; 5]);
    let (mut ws, mut ex) = (0u64, null_mut());
    let st = unsafe {
        scatter::aclnnInplaceScatterGetWorkspaceSize(acc.t, 0, index.t, src.t, 1, &mut ws, &mut ex)
    };
    ok(st, ws, ex, scatter::aclnnInplaceScatter);
    assert_eq!(acc.bytes()[..2], h(1.0)[..]);
    let zero = T::with_layout(F16, &[1], &[1], 0, &mut |_| h(0.0));
    let one = T::with_layout(F16, &[1], &[1], 0, &mut |_| h(1.0009765625));
    let out = T::with_layout(F16, &[1], &[1], 0, &mut |_| h(7.0));
    let i1 = T::index(&mut rng, S64, &[1], &[0]);
    let three = 3.0f32;
    let alpha = unsafe { aclCreateScalar(&three as *const f32 as *mut c_void, F32) };
    let st = unsafe {
        index_add::aclnnIndexAddGetWorkspaceSize(
            zero.t, 0, i1.t, one.t, alpha, out.t, &mut ws, &mut ex,
        )
    };
    ok(st, ws, ex, index_add::aclnnIndexAdd);
    assert_eq!(out.bytes()[..2], h(3.00390625)[..]);
    assert_eq!(aclDestroyScalar(alpha), 0);
}
