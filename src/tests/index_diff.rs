//! Tuple indexing and data-sized outputs through their C entry points: Index and
//! IndexPutImpl against PyTorch (`torch.ops.aten.index` / `index_put_`, the device's
//! golden) over random shapes, index lists with skipped dims, adjacent and split indexed
//! dims, broadcast index shapes and negative values; Nonzero, NonzeroV2, MaskedSelect,
//! InplaceMaskedScatter, InplacePut, IndexFill, GatherNd, ScatterNd, ScatterNdUpdate and
//! TfScatterAdd against plain loops over logical indices written here. Every tensor is a
//! random view (permuted axes, padding, offsets) and the whole storage of every output is
//! compared, so a write outside a view fails. Values are small integers, exact in every
//! dtype, so additions are exact too. Data-sized outputs: the view shape read back with
//! aclGetViewShape after synchronizing. Errors: bad index values fail the run at
//! synchronize (507015) with the output untouched; phase-1 rules return 161001/161002.

use super::add_diff::Rng;
use super::gather_diff::{
    decode, device, encode, err, indices, random_shape, Phase2, BF16, BOOL, F16, F32, F64, ND, S16,
    S32, S64, S8, T, U8,
};
use super::torch_ref::{Array, Batch};
use crate::capi::meta::*;
use crate::capi::ops::{
    gather_nd, gather_v3, index, index_fill, index_put_impl, masked_scatter, masked_select,
    nonzero, nonzero_v2, put, scatter_nd, scatter_nd_update, scatter_reduce, scatter_update,
    tf_scatter_add,
};
use std::ffi::c_void;
use std::ptr::null_mut;

/// The dtypes of Index / IndexPutImpl tested (their A2 lists).
const DTYPES: &[i32] = &[F32, F16, BF16, S8, S16, S32, S64, U8, BOOL, F64];
const AICORE_EXCEPTION: i32 = 507015;

/// Runs phase 2 on a stream of this test's own (tests run in parallel: a failure expected
/// here must not surface at another test's synchronize) and synchronizes it; returns the
/// synchronize status.
fn run(st: i32, ws: u64, ex: *mut aclOpExecutor, phase2: Phase2) -> i32 {
    use crate::capi::runtime::{
        aclrtCreateStream, aclrtDestroyStream, aclrtFree, aclrtMalloc, aclrtSynchronizeStream,
    };
    assert_eq!(st, 0, "phase 1: {}", err());
    let mut stream = null_mut();
    assert_eq!(unsafe { aclrtCreateStream(&mut stream) }, 0);
    let mut w = null_mut();
    if ws > 0 {
        assert_eq!(unsafe { aclrtMalloc(&mut w, ws as usize, 0) }, 0);
    }
    assert_eq!(
        phase2(w, ws, ex, stream as *mut c_void),
        0,
        "phase 2: {}",
        err()
    );
    let r = aclrtSynchronizeStream(stream);
    if !w.is_null() {
        assert_eq!(aclrtFree(w), 0);
    }
    assert_eq!(aclrtDestroyStream(stream), 0);
    r
}

fn ok(st: i32, ws: u64, ex: *mut aclOpExecutor, phase2: Phase2) {
    assert_eq!(run(st, ws, ex, phase2), 0, "{}", err());
}

/// The value stored for logical value `v` in dtype `d` (bool: v != 0).
fn logical(d: i32, v: i64) -> i64 {
    decode(d, &encode(d, v))
}

/// A second handle on `t`'s view (tensor lists own and destroy their members).
fn alias(t: &T) -> *mut aclTensor {
    let dims: Vec<i64> = t.shape.iter().map(|&d| d as i64).collect();
    let st: Vec<i64> = t.strides.iter().map(|&s| s as i64).collect();
    let sto = [t.storage as i64];
    let h = unsafe {
        aclCreateTensor(
            dims.as_ptr(),
            dims.len() as u64,
            t.dtype,
            st.as_ptr(),
            t.offset as i64,
            ND,
            sto.as_ptr(),
            1,
            t.dev,
        )
    };
    assert!(!h.is_null(), "{}", err());
    h
}

fn list(ts: &[&T]) -> *mut aclTensorList {
    let hs: Vec<*const aclTensor> = ts.iter().map(|t| alias(t) as *const aclTensor).collect();
    let l = unsafe { aclCreateTensorList(hs.as_ptr(), hs.len() as u64) };
    assert!(!l.is_null(), "{}", err());
    l
}

/// The view shape `t` reports now.
pub(super) fn view_shape(t: *const aclTensor) -> Vec<i64> {
    let (mut p, mut n) = (null_mut(), 0u64);
    assert_eq!(
        unsafe { aclGetViewShape(t, &mut p, &mut n) },
        0,
        "{}",
        err()
    );
    let v = unsafe { std::slice::from_raw_parts(p, n as usize) }.to_vec();
    unsafe { libc::free(p as *mut c_void) };
    v
}

/// A random-layout tensor of dtype `d` holding `v(k)` at row-major position k (storage
/// outside the view: 99).
fn filled(rng: &mut Rng, d: i32, shape: &[usize], v: &mut dyn FnMut(usize) -> i64) -> T {
    let mut t = T::new(rng, d, shape, &mut |_| encode(d, 99));
    let mut bytes = t.bytes();
    for (k, idx) in indices(shape).iter().enumerate() {
        t.set(&mut bytes, idx, &encode(d, v(k)));
    }
    t.upload(&bytes);
    t
}

/// Checks `t`'s storage: `want(k)` at row-major position k of the view, `before` elsewhere.
fn expect(t: &T, before: &[u8], want: &dyn Fn(usize) -> i64, what: &str) {
    let now = t.bytes();
    let mut exp = before.to_vec();
    for (k, idx) in indices(&t.shape).iter().enumerate() {
        t.set(&mut exp, idx, &encode(t.dtype, want(k)));
    }
    if now != exp {
        for (k, idx) in indices(&t.shape).iter().enumerate() {
            let (a, b) = (decode(t.dtype, t.elem(&now, idx)), want(k));
            assert_eq!(a, logical(t.dtype, b), "{what}: element {idx:?}");
        }
        panic!("{what}: storage outside the view was written");
    }
}

/// Row-major position of `idx` in `shape`.
fn flat(shape: &[usize], idx: &[usize]) -> usize {
    idx.iter().zip(shape).fold(0, |a, (&i, &n)| a * n + i)
}

/// A random shape that broadcasts to `b` (dims set to 1, leading ones dropped).
fn broadcasting_to(rng: &mut Rng, b: &[usize]) -> Vec<usize> {
    let drop = rng.below(b.len() as u64 + 1) as usize;
    b[drop..]
        .iter()
        .map(|&n| if rng.pct(30) { 1 } else { n })
        .collect()
}

/// Value of the broadcast view `shape` at point `p` of the broadcast shape `b`.
fn at_broadcast(vals: &[i64], shape: &[usize], b: &[usize], p: &[usize]) -> i64 {
    let lead = b.len() - shape.len();
    let idx: Vec<usize> = shape
        .iter()
        .enumerate()
        .map(|(j, &n)| if n == 1 { 0 } else { p[lead + j] })
        .collect();
    vals[flat(shape, &idx)]
}

/// A random index list over `shape`: per listed dim None (skipped) or (values, shape).
type IndexList = Vec<Option<(Vec<i64>, Vec<usize>)>>;

fn random_indices(rng: &mut Rng, shape: &[usize]) -> Option<(IndexList, Vec<usize>)> {
    let m = 1 + rng.below(shape.len() as u64) as usize;
    let space: Vec<usize> = (0..rng.below(3))
        .map(|_| 1 + rng.below(3) as usize)
        .collect();
    let mut list = IndexList::new();
    for &n in &shape[..m] {
        if rng.pct(30) {
            list.push(None);
            continue;
        }
        if n == 0 {
            return None;
        }
        let s = broadcasting_to(rng, &space);
        let k: usize = s.iter().product();
        let v = (0..k)
            .map(|_| rng.below(2 * n as u64) as i64 - n as i64)
            .collect();
        list.push(Some((v, s)));
    }
    Some((list, space))
}

/// The torch program `out = aten.<op>(a[0], [a[1], None, ...]...)` for `list`.
fn torch_list(list: &IndexList) -> String {
    let items: Vec<String> = list
        .iter()
        .enumerate()
        .map(|(k, e)| match e {
            Some(_) => format!("a[{}]", k + 1),
            None => "None".into(),
        })
        .collect();
    format!("[{}]", items.join(", "))
}

/// Index tensors for `list` (a skipped dim: an empty tensor of shape [0]).
fn index_tensors(rng: &mut Rng, list: &IndexList) -> Vec<T> {
    list.iter()
        .map(|e| {
            let d = rng.pick(&[S32, S64]);
            match e {
                Some((v, s)) => T::index(rng, d, s, v),
                None => T::index(rng, d, &[0], &[]),
            }
        })
        .collect()
}

fn torch_inputs(self_vals: &[i64], shape: &[usize], list: &IndexList) -> Vec<Option<Array>> {
    let mut inputs = vec![Some(Array::i64s(shape, self_vals))];
    for e in list {
        inputs.push(e.as_ref().map(|(v, s)| Array::i64s(s, v)));
    }
    inputs
}

fn i64s(a: &Array) -> Vec<i64> {
    (0..a.numel())
        .map(|i| i64::from_le_bytes(a.elem(i).try_into().unwrap()))
        .collect()
}

#[test]
fn index_matches_torch_advanced_indexing() {
    device();
    let mut rng = Rng::new(0x1dea);
    let mut batch = Batch::new();
    let mut cases = Vec::new();
    while cases.len() < 200 {
        let d = rng.pick(DTYPES);
        let rank = 1 + rng.below(4) as usize;
        let shape = random_shape(&mut rng, rank);
        let Some((list, _)) = random_indices(&mut rng, &shape) else {
            continue;
        };
        let n: usize = shape.iter().product();
        let vals: Vec<i64> = (0..n).map(|k| logical(d, (k % 97) as i64 - 40)).collect();
        // (torch 1.13's aten.index asserts on an all-None list: that is self itself)
        let code = if list.iter().all(Option::is_none) {
            "out = a[0].clone()".to_string()
        } else {
            format!("out = torch.ops.aten.index(a[0], {})", torch_list(&list))
        };
        let prog = batch.program(&code);
        let k = batch.case(prog, torch_inputs(&vals, &shape, &list));
        cases.push((k, d, shape, vals, list));
    }
    let Some(results) = batch.run("index_matches_torch_advanced_indexing") else {
        return;
    };
    for (k, d, shape, vals, list) in cases {
        let want = results[k].as_ref().unwrap_or_else(|e| panic!("torch: {e}"));
        let want = &want[0];
        let s = filled(&mut rng, d, &shape, &mut |i| vals[i]);
        let idx = index_tensors(&mut rng, &list);
        let l = list_of(&idx);
        let out = T::new(&mut rng, d, &want.shape, &mut |_| encode(d, 99));
        let before = out.bytes();
        let (mut ws, mut ex) = (0u64, null_mut());
        let st = unsafe { index::aclnnIndexGetWorkspaceSize(s.t, l, out.t, &mut ws, &mut ex) };
        ok(st, ws, ex, index::aclnnIndex);
        let w = i64s(want);
        expect(
            &out,
            &before,
            &|i| w[i],
            &format!("Index {shape:?} {list:?}"),
        );
        assert_eq!(aclDestroyTensorList(l), 0);
    }
}

fn list_of(idx: &[T]) -> *mut aclTensorList {
    let refs: Vec<&T> = idx.iter().collect();
    list(&refs)
}

/// The flat positions (over the listed dims) each point of `space` addresses, for the
/// duplicate check of a plain put.
fn addressed(list: &IndexList, space: &[usize], shape: &[usize]) -> Vec<usize> {
    indices(space)
        .iter()
        .map(|p| {
            list.iter()
                .enumerate()
                .filter_map(|(k, e)| e.as_ref().map(|(v, s)| (k, at_broadcast(v, s, space, p))))
                .fold(0usize, |a, (k, v)| {
                    a * shape[k] + v.rem_euclid(shape[k] as i64) as usize
                })
        })
        .collect()
}

#[test]
fn index_put_impl_matches_torch_index_put() {
    device();
    let mut rng = Rng::new(0x1dec);
    let mut batch = Batch::new();
    let mut cases = Vec::new();
    // The result shape torch gives for each case, first.
    let mut shapes = Batch::new();
    let mut pre = Vec::new();
    while pre.len() < 200 {
        let d = rng.pick(DTYPES);
        let rank = 1 + rng.below(4) as usize;
        let shape = random_shape(&mut rng, rank);
        let Some((list, space)) = random_indices(&mut rng, &shape) else {
            continue;
        };
        let n: usize = shape.iter().product();
        let vals: Vec<i64> = (0..n).map(|k| logical(d, (k % 7) as i64)).collect();
        let code = if list.iter().all(Option::is_none) {
            "out = a[0].clone()".to_string()
        } else {
            format!("out = torch.ops.aten.index(a[0], {})", torch_list(&list))
        };
        let prog = shapes.program(&code);
        let k = shapes.case(prog, torch_inputs(&vals, &shape, &list));
        pre.push((k, d, shape, vals, list, space));
    }
    let Some(res) = shapes.run("index_put_impl_matches_torch_index_put") else {
        return;
    };
    for (k, d, shape, vals, list, space) in pre {
        let result = res[k].as_ref().unwrap_or_else(|e| panic!("torch: {e}"))[0]
            .shape
            .clone();
        let vshape = broadcasting_to(&mut rng, &result);
        let nv: usize = vshape.iter().product();
        let dup = {
            let a = addressed(&list, &space, &shape);
            let mut b = a.clone();
            b.sort();
            b.dedup();
            b.len() != a.len()
        };
        let accumulate = d != BOOL && (dup || rng.pct(50));
        let values: Vec<i64> = if d == BOOL && dup {
            vec![1; nv]
        } else {
            (0..nv).map(|i| logical(d, (i % 5) as i64 + 1)).collect()
        };
        let prog = batch.program(&if list.iter().all(Option::is_none) {
            "v = a[-2].expand(a[0].shape)\nout = a[0] + v if a[-1].item() else v.clone()".to_string()
        } else {
            format!(
                "s = a[0].clone()\ntorch.ops.aten.index_put_(s, {}, a[-2], bool(a[-1].item()))\nout = s",
                torch_list(&list)
            )
        });
        let mut inputs = torch_inputs(&vals, &shape, &list);
        inputs.push(Some(Array::i64s(&vshape, &values)));
        inputs.push(Some(Array::int(accumulate as i64)));
        let kk = batch.case(prog, inputs);
        cases.push((kk, d, shape, vals, list, vshape, values, accumulate));
    }
    let results = batch.run("index_put_impl_matches_torch_index_put").unwrap();
    for (k, d, shape, vals, list, vshape, values, accumulate) in cases {
        let want = i64s(&results[k].as_ref().unwrap_or_else(|e| panic!("torch: {e}"))[0]);
        let s = filled(&mut rng, d, &shape, &mut |i| vals[i]);
        let before = s.bytes();
        let idx = index_tensors(&mut rng, &list);
        let l = list_of(&idx);
        let v = filled(&mut rng, d, &vshape, &mut |i| values[i]);
        let (mut ws, mut ex) = (0u64, null_mut());
        let st = unsafe {
            index_put_impl::aclnnIndexPutImplGetWorkspaceSize(
                s.t, l, v.t, accumulate, false, &mut ws, &mut ex,
            )
        };
        ok(st, ws, ex, index_put_impl::aclnnIndexPutImpl);
        let want: Vec<i64> = want.iter().map(|&x| logical(d, x)).collect();
        expect(
            &s,
            &before,
            &|i| want[i],
            &format!("IndexPutImpl {shape:?} {list:?} values {vshape:?} accumulate {accumulate}"),
        );
        assert_eq!(aclDestroyTensorList(l), 0);
    }
}

#[test]
fn index_and_index_put_refuse_bad_values_at_synchronize() {
    device();
    let mut rng = Rng::new(0xbad1);
    let s = filled(&mut rng, F32, &[3, 4], &mut |k| k as i64);
    let before = s.bytes();
    let i = T::index(&mut rng, S64, &[2], &[1, 3]);
    let l = list(&[&i]);
    let out = T::new(&mut rng, F32, &[2, 4], &mut |_| encode(F32, 99));
    let out_before = out.bytes();
    let (mut ws, mut ex) = (0u64, null_mut());
    let st = unsafe { index::aclnnIndexGetWorkspaceSize(s.t, l, out.t, &mut ws, &mut ex) };
    assert_eq!(run(st, ws, ex, index::aclnnIndex), AICORE_EXCEPTION);
    let e = err();
    assert!(e.contains("value 3") && e.contains("[-3, 3)"), "{e}");
    assert_eq!(out.bytes(), out_before);
    let v = filled(&mut rng, F32, &[4], &mut |_| 5);
    let st = unsafe {
        index_put_impl::aclnnIndexPutImplGetWorkspaceSize(s.t, l, v.t, true, true, &mut ws, &mut ex)
    };
    assert_eq!(
        run(st, ws, ex, index_put_impl::aclnnIndexPutImpl),
        AICORE_EXCEPTION
    );
    assert_eq!(s.bytes(), before);
    // phase 1: too many indices, a bool mask, values that do not broadcast, dtypes
    let l3 = list(&[&i, &i, &i]);
    let st = unsafe { index::aclnnIndexGetWorkspaceSize(s.t, l3, out.t, &mut ws, &mut ex) };
    assert_eq!(st, 161002);
    let e = err();
    assert!(e.contains("at most one index per dim"), "{e}");
    let m = filled(&mut rng, BOOL, &[3], &mut |_| 1);
    let lm = list(&[&m]);
    let st = unsafe { index::aclnnIndexGetWorkspaceSize(s.t, lm, out.t, &mut ws, &mut ex) };
    assert_eq!(st, 161002);
    let e = err();
    assert!(e.contains("BOOL mask"), "{e}");
    let bad = filled(&mut rng, F32, &[3], &mut |_| 1);
    let st = unsafe {
        index_put_impl::aclnnIndexPutImplGetWorkspaceSize(
            s.t, l, bad.t, false, false, &mut ws, &mut ex,
        )
    };
    assert_eq!(st, 161002);
    let e = err();
    assert!(e.contains("does not broadcast"), "{e}");
    let wrong = T::new(&mut rng, F16, &[2, 4], &mut |_| encode(F16, 0));
    let st = unsafe { index::aclnnIndexGetWorkspaceSize(s.t, l, wrong.t, &mut ws, &mut ex) };
    assert_eq!(st, 161002);
    let st = unsafe {
        index::aclnnIndexGetWorkspaceSize(s.t, std::ptr::null(), out.t, &mut ws, &mut ex)
    };
    assert_eq!(st, 161001);
    for l in [l, l3, lm] {
        assert_eq!(aclDestroyTensorList(l), 0);
    }
}

/// Random element values with zeros (and, for floats, -0.0 and NaN) in dtype `d`.
fn sparse(rng: &mut Rng, d: i32) -> (Vec<u8>, bool) {
    let r = rng.below(10);
    let special = matches!(d, F32 | F64 | F16 | BF16) && r < 2;
    if special {
        let bytes = match (d, r) {
            (F32, 0) => (-0.0f32).to_le_bytes().to_vec(),
            (F32, _) => f32::NAN.to_le_bytes().to_vec(),
            (F64, 0) => (-0.0f64).to_le_bytes().to_vec(),
            (F64, _) => f64::NAN.to_le_bytes().to_vec(),
            (F16, 0) | (BF16, 0) => vec![0, 0x80],
            _ => vec![0xc1, 0x7f],
        };
        return (bytes, r != 0);
    }
    let v = if r < 6 { 0 } else { rng.below(3) as i64 + 1 };
    (encode(d, v), v != 0)
}

#[test]
fn nonzero_and_masked_select_match_a_loop_and_report_their_shape() {
    device();
    let mut rng = Rng::new(0x2e70);
    for case in 0..150 {
        let d = rng.pick(&[F32, F16, BF16, F64, S8, S32, S64, U8, BOOL, S16]);
        let rank = rng.below(4) as usize;
        let shape = random_shape(&mut rng, rank);
        let n: usize = shape.iter().product();
        let mut truth = vec![false; n];
        let mut s = T::new(&mut rng, d, &shape, &mut |_| encode(d, 7));
        let mut bytes = s.bytes();
        for (k, idx) in indices(&shape).iter().enumerate() {
            let (b, t) = sparse(&mut rng, d);
            truth[k] = t;
            s.set(&mut bytes, idx, &b);
        }
        s.upload(&bytes);
        let found: Vec<Vec<usize>> = indices(&shape)
            .into_iter()
            .zip(&truth)
            .filter(|(_, &t)| t)
            .map(|(i, _)| i)
            .collect();
        let (nz, r) = (found.len(), rank);
        // Nonzero [n, r], NonzeroV2 [r, n]: out at the maximum, contiguous.
        for v2 in [false, true] {
            let max = if v2 { [r, n] } else { [n, r] };
            let out = T::with_layout(
                S64,
                &max,
                &[if v2 { n } else { r }, 1],
                case % 3,
                &mut |_| encode(S64, -9),
            );
            let before = out.bytes();
            let (mut ws, mut ex) = (0u64, null_mut());
            if v2 {
                let st = unsafe {
                    nonzero_v2::aclnnNonzeroV2GetWorkspaceSize(s.t, out.t, &mut ws, &mut ex)
                };
                ok(st, ws, ex, nonzero_v2::aclnnNonzeroV2);
            } else {
                let st =
                    unsafe { nonzero::aclnnNonzeroGetWorkspaceSize(s.t, out.t, &mut ws, &mut ex) };
                ok(st, ws, ex, nonzero::aclnnNonzero);
            }
            let got = out.bytes();
            let mut exp = before.clone();
            if n > 0 && r > 0 {
                for (i, c) in found.iter().enumerate() {
                    for (k, &x) in c.iter().enumerate() {
                        let at = out.offset + if v2 { k * nz + i } else { i * r + k };
                        exp[at * 8..at * 8 + 8].copy_from_slice(&(x as i64).to_le_bytes());
                    }
                }
                let want: Vec<i64> = if v2 {
                    vec![r as i64, nz as i64]
                } else {
                    vec![nz as i64, r as i64]
                };
                assert_eq!(view_shape(out.t), want, "case {case} v2 {v2} {shape:?}");
            }
            assert_eq!(
                got, exp,
                "case {case}: Nonzero(V2 {v2}) of {shape:?} dtype {d}"
            );
        }
        // MaskedSelect: self (d) broadcast with a mask of this case's truth.
        let mshape = broadcasting_to(&mut rng, &shape);
        let mn: usize = mshape.iter().product();
        let mvals: Vec<i64> = (0..mn).map(|_| rng.below(2) as i64).collect();
        let md = rng.pick(&[BOOL, U8]);
        let mask = filled(&mut rng, md, &mshape, &mut |i| mvals[i]);
        let sv: Vec<i64> = (0..n).map(|k| logical(d, k as i64 % 50)).collect();
        let s = filled(&mut rng, d, &shape, &mut |k| sv[k]);
        let sel: Vec<i64> = indices(&shape)
            .iter()
            .filter(|p| at_broadcast(&mvals, &mshape, &shape, p) != 0)
            .map(|p| sv[flat(&shape, p)])
            .collect();
        let out = T::new(&mut rng, d, &[n], &mut |_| encode(d, 99));
        let before = out.bytes();
        let (mut ws, mut ex) = (0u64, null_mut());
        let st = unsafe {
            masked_select::aclnnMaskedSelectGetWorkspaceSize(s.t, mask.t, out.t, &mut ws, &mut ex)
        };
        ok(st, ws, ex, masked_select::aclnnMaskedSelect);
        if n > 0 {
            assert_eq!(view_shape(out.t), vec![sel.len() as i64], "case {case}");
        }
        let mut exp = before.clone();
        for (i, &v) in sel.iter().enumerate() {
            out.set(&mut exp, &[i], &encode(d, v));
        }
        assert_eq!(
            out.bytes(),
            exp,
            "case {case}: MaskedSelect {shape:?} mask {mshape:?}"
        );
    }
}

#[test]
fn data_sized_outputs_refuse_what_the_docs_refuse() {
    device();
    let mut rng = Rng::new(0x2e71);
    let s = filled(&mut rng, F32, &[2, 3], &mut |k| k as i64);
    let (mut ws, mut ex) = (0u64, null_mut());
    // Nonzero: out int64 and contiguous; too small for the count found: the run fails.
    let f = T::new(&mut rng, F32, &[6, 2], &mut |_| encode(F32, 0));
    assert_eq!(
        unsafe { nonzero::aclnnNonzeroGetWorkspaceSize(s.t, f.t, &mut ws, &mut ex) },
        161002
    );
    let strided = T::with_layout(S64, &[6, 2], &[1, 6], 0, &mut |_| encode(S64, 0));
    assert_eq!(
        unsafe { nonzero::aclnnNonzeroGetWorkspaceSize(s.t, strided.t, &mut ws, &mut ex) },
        161002
    );
    let e = err();
    assert!(e.contains("contiguous"), "{e}");
    let small = T::with_layout(S64, &[2, 2], &[2, 1], 0, &mut |_| encode(S64, -1));
    let before = small.bytes();
    let st = unsafe { nonzero::aclnnNonzeroGetWorkspaceSize(s.t, small.t, &mut ws, &mut ex) };
    assert_eq!(run(st, ws, ex, nonzero::aclnnNonzero), AICORE_EXCEPTION);
    let e = err();
    assert!(e.contains("5 non-zero elements"), "{e}");
    assert_eq!(small.bytes(), before);
    assert_eq!(view_shape(small.t), vec![2, 2]);
    // MaskedSelect: out 1-D of the broadcast numel; the mask bool or uint8.
    let m = filled(&mut rng, BOOL, &[3], &mut |_| 1);
    let o5 = T::new(&mut rng, F32, &[5], &mut |_| encode(F32, 0));
    assert_eq!(
        unsafe {
            masked_select::aclnnMaskedSelectGetWorkspaceSize(s.t, m.t, o5.t, &mut ws, &mut ex)
        },
        161002
    );
    let e = err();
    assert!(e.contains("6"), "{e}");
    let o2 = T::new(&mut rng, F32, &[2, 3], &mut |_| encode(F32, 0));
    assert_eq!(
        unsafe {
            masked_select::aclnnMaskedSelectGetWorkspaceSize(s.t, m.t, o2.t, &mut ws, &mut ex)
        },
        161002
    );
    let mf = filled(&mut rng, F32, &[3], &mut |_| 1);
    let o6 = T::new(&mut rng, F32, &[6], &mut |_| encode(F32, 0));
    assert_eq!(
        unsafe {
            masked_select::aclnnMaskedSelectGetWorkspaceSize(s.t, mf.t, o6.t, &mut ws, &mut ex)
        },
        161002
    );
    assert_eq!(
        unsafe {
            masked_select::aclnnMaskedSelectGetWorkspaceSize(
                s.t,
                m.t,
                std::ptr::null_mut(),
                &mut ws,
                &mut ex,
            )
        },
        161001
    );
    // a repeatable executor reports again at each run
    let st = unsafe {
        masked_select::aclnnMaskedSelectGetWorkspaceSize(s.t, m.t, o6.t, &mut ws, &mut ex)
    };
    assert_eq!(st, 0);
    assert_eq!(unsafe { aclSetAclOpExecutorRepeatable(ex) }, 0);
    let mut stream = null_mut();
    assert_eq!(
        unsafe { crate::capi::runtime::aclrtCreateStream(&mut stream) },
        0
    );
    for _ in 0..2 {
        assert_eq!(
            masked_select::aclnnMaskedSelect(null_mut(), 0, ex, stream),
            0
        );
        assert_eq!(crate::capi::runtime::aclrtSynchronizeStream(stream), 0);
        assert_eq!(view_shape(o6.t), vec![6]);
    }
    assert_eq!(unsafe { aclDestroyAclOpExecutor(ex) }, 0);
    assert_eq!(crate::capi::runtime::aclrtDestroyStream(stream), 0);
}

#[test]
fn masked_scatter_put_and_index_fill_match_a_loop() {
    device();
    let mut rng = Rng::new(0x3e71);
    for case in 0..240 {
        let d = rng.pick(&[F32, F16, BF16, S8, S16, S32, S64, U8, F64]);
        let rank = 1 + rng.below(3) as usize;
        let shape = random_shape(&mut rng, rank);
        let n: usize = shape.iter().product();
        let sv: Vec<i64> = (0..n).map(|k| logical(d, (k % 9) as i64)).collect();
        let s = filled(&mut rng, d, &shape, &mut |k| sv[k]);
        let before = s.bytes();
        let (mut ws, mut ex) = (0u64, null_mut());
        let mut want = sv.clone();
        match case % 3 {
            0 => {
                // MaskedScatter, source of any layout with at least as many elements
                let mshape = broadcasting_to(&mut rng, &shape);
                let mn: usize = mshape.iter().product();
                let mv: Vec<i64> = (0..mn).map(|_| rng.below(2) as i64).collect();
                let md = rng.pick(&[BOOL, U8]);
                let mask = filled(&mut rng, md, &mshape, &mut |i| mv[i]);
                let hits: Vec<usize> = indices(&shape)
                    .iter()
                    .filter(|p| at_broadcast(&mv, &mshape, &shape, p) != 0)
                    .map(|p| flat(&shape, p))
                    .collect();
                let extra = rng.below(3) as usize;
                let srcn = hits.len() + extra;
                let sshape = if rng.pct(50) {
                    vec![srcn]
                } else {
                    vec![1 + extra, hits.len().max(1)]
                };
                let sn: usize = sshape.iter().product();
                let src_v: Vec<i64> = (0..sn).map(|i| logical(d, 20 + (i % 30) as i64)).collect();
                let src = filled(&mut rng, d, &sshape, &mut |i| src_v[i]);
                for (k, &h) in hits.iter().enumerate() {
                    want[h] = src_v[k];
                }
                let st = unsafe {
                    masked_scatter::aclnnInplaceMaskedScatterGetWorkspaceSize(
                        s.t, mask.t, src.t, &mut ws, &mut ex,
                    )
                };
                ok(st, ws, ex, masked_scatter::aclnnInplaceMaskedScatter);
            }
            1 => {
                // InplacePut: index of any shape with source's element count, negatives
                let k = rng.below(6) as usize;
                if n == 0 && k > 0 {
                    continue;
                }
                let iv: Vec<i64> = (0..k)
                    .map(|_| rng.below(2 * n as u64) as i64 - n as i64)
                    .collect();
                let accumulate = rng.pct(50);
                let ishape = if k == 4 && rng.pct(50) {
                    vec![2, 2]
                } else {
                    vec![k]
                };
                let idt = rng.pick(&[S32, S64]);
                let index = T::index(&mut rng, idt, &ishape, &iv);
                let src_v: Vec<i64> = (0..k).map(|i| logical(d, i as i64 + 1)).collect();
                let src = filled(&mut rng, d, &[k], &mut |i| src_v[i]);
                for (j, &v) in iv.iter().enumerate() {
                    let p = v.rem_euclid(n as i64) as usize;
                    want[p] = if accumulate {
                        logical(d, want[p] + src_v[j])
                    } else {
                        src_v[j]
                    };
                }
                let st = unsafe {
                    put::aclnnInplacePutGetWorkspaceSize(
                        s.t, index.t, src.t, accumulate, &mut ws, &mut ex,
                    )
                };
                ok(st, ws, ex, put::aclnnInplacePut);
            }
            _ => {
                // IndexFill: negatives wrap, out-of-range values skipped
                if !matches!(d, F16 | F32 | S32 | S64 | BF16) {
                    continue;
                }
                let ax = rng.below(rank as u64) as usize;
                let m = shape[ax] as i64;
                let k = rng.below(5) as usize;
                let iv: Vec<i64> = (0..k)
                    .map(|_| rng.below(2 * m as u64 + 4) as i64 - m - 2)
                    .collect();
                let idt = rng.pick(&[S32, S64]);
                let index = T::index(&mut rng, idt, &[k], &iv);
                let mut fill = 5.0f64;
                let value = unsafe { aclCreateScalar(&mut fill as *mut f64 as *mut c_void, F64) };
                let out = T::new(&mut rng, d, &shape, &mut |_| encode(d, 99));
                let obefore = out.bytes();
                for (p, idx) in indices(&shape).iter().enumerate() {
                    if iv
                        .iter()
                        .any(|&v| (-m..m).contains(&v) && v.rem_euclid(m) as usize == idx[ax])
                    {
                        want[p] = 5;
                    }
                }
                let dim = if rng.pct(50) {
                    ax as i64 - rank as i64
                } else {
                    ax as i64
                };
                let st = unsafe {
                    index_fill::aclnnIndexFillGetWorkspaceSize(
                        s.t, dim, index.t, value, out.t, &mut ws, &mut ex,
                    )
                };
                ok(st, ws, ex, index_fill::aclnnIndexFill);
                expect(
                    &out,
                    &obefore,
                    &|i| want[i],
                    &format!("case {case}: IndexFill {shape:?} dim {dim} {iv:?}"),
                );
                expect(&s, &before, &|i| sv[i], "IndexFill's self");
                let st = unsafe {
                    index_fill::aclnnInplaceIndexFillGetWorkspaceSize(
                        s.t, dim, index.t, value, &mut ws, &mut ex,
                    )
                };
                ok(st, ws, ex, index_fill::aclnnInplaceIndexFill);
                assert_eq!(aclDestroyScalar(value), 0);
            }
        }
        expect(
            &s,
            &before,
            &|i| want[i],
            &format!("case {case} ({}) {shape:?} dtype {d}", case % 3),
        );
    }
}

#[test]
fn masked_scatter_and_put_refuse_bad_data_at_synchronize() {
    device();
    let mut rng = Rng::new(0x3e72);
    let s = filled(&mut rng, F32, &[2, 3], &mut |k| k as i64);
    let before = s.bytes();
    let (mut ws, mut ex) = (0u64, null_mut());
    let mask = filled(&mut rng, BOOL, &[3], &mut |_| 1);
    let src = filled(&mut rng, F32, &[5], &mut |_| 7);
    let st = unsafe {
        masked_scatter::aclnnInplaceMaskedScatterGetWorkspaceSize(
            s.t, mask.t, src.t, &mut ws, &mut ex,
        )
    };
    assert_eq!(
        run(st, ws, ex, masked_scatter::aclnnInplaceMaskedScatter),
        AICORE_EXCEPTION
    );
    let e = err();
    assert!(e.contains("6 true elements but source only 5"), "{e}");
    assert_eq!(s.bytes(), before);
    let big = filled(&mut rng, BOOL, &[2, 2, 3], &mut |_| 1);
    assert_eq!(
        unsafe {
            masked_scatter::aclnnInplaceMaskedScatterGetWorkspaceSize(
                s.t, big.t, src.t, &mut ws, &mut ex,
            )
        },
        161002
    );
    let index = T::index(&mut rng, S64, &[2], &[1, 6]);
    let two = filled(&mut rng, F32, &[2], &mut |_| 7);
    let st = unsafe {
        put::aclnnInplacePutGetWorkspaceSize(s.t, index.t, two.t, false, &mut ws, &mut ex)
    };
    assert_eq!(run(st, ws, ex, put::aclnnInplacePut), AICORE_EXCEPTION);
    let e = err();
    assert!(e.contains("value 6") && e.contains("[-6, 6)"), "{e}");
    assert_eq!(s.bytes(), before);
    assert_eq!(
        unsafe {
            put::aclnnInplacePutGetWorkspaceSize(s.t, index.t, src.t, false, &mut ws, &mut ex)
        },
        161002
    );
    let e = err();
    assert!(e.contains("as many"), "{e}");
}

#[test]
fn nd_family_matches_a_loop() {
    device();
    let mut rng = Rng::new(0x4d00);
    for case in 0..300 {
        let op = case % 4; // 0 GatherNd, 1 ScatterNd, 2 ScatterNdUpdate, 3 TfScatterAdd
        let d = match op {
            0 => rng.pick(&[S64, S32, S8, U8, BOOL, F32, F16, BF16]),
            1 => rng.pick(&[F16, F32, BOOL, BF16]),
            2 => rng.pick(&[F16, BF16, F32, S64, BOOL, S8]),
            _ => rng.pick(&[F32, F16, BF16, S32, S8, U8]),
        };
        let r = 1 + rng.below(3) as usize;
        let shape: Vec<usize> = (0..r).map(|_| 1 + rng.below(4) as usize).collect();
        let rows_form = op == 3 && rng.pct(50);
        let c = if rows_form {
            1
        } else {
            1 + rng.below(r as u64) as usize
        };
        let nb = if op == 2 {
            1 + rng.below(2) as usize
        } else {
            rng.below(3) as usize
        };
        let space: Vec<usize> = (0..nb).map(|_| rng.below(4) as usize).collect();
        let points: usize = space.iter().product();
        let wrap = op == 0 && rng.pct(50);
        let tuples: Vec<Vec<i64>> = (0..points)
            .map(|_| {
                (0..c)
                    .map(|k| {
                        let v = rng.below(shape[k] as u64) as i64;
                        if wrap && rng.pct(40) {
                            v - shape[k] as i64
                        } else {
                            v
                        }
                    })
                    .collect()
            })
            .collect();
        let (ishape, ivals): (Vec<usize>, Vec<i64>) = if rows_form {
            (space.clone(), tuples.iter().map(|t| t[0]).collect())
        } else {
            (space.iter().copied().chain([c]).collect(), tuples.concat())
        };
        let idt = rng.pick(&[S32, S64]);
        let index = T::index(&mut rng, idt, &ishape, &ivals);
        let n: usize = shape.iter().product();
        let sv: Vec<i64> = (0..n).map(|k| logical(d, (k % 11) as i64)).collect();
        let s = filled(&mut rng, d, &shape, &mut |k| sv[k]);
        let before = s.bytes();
        let slice: Vec<usize> = shape[c..].to_vec();
        let sl: usize = slice.iter().product();
        let rshape: Vec<usize> = space.iter().chain(&slice).copied().collect();
        // The flat position in self of element j of the slice at point b.
        let at = |b: usize, j: usize| {
            let t: Vec<usize> = tuples[b]
                .iter()
                .zip(&shape)
                .map(|(&v, &m)| v.rem_euclid(m as i64) as usize)
                .collect();
            let mut idx = t;
            let mut rest = j;
            let mut tail = vec![0; slice.len()];
            for q in (0..slice.len()).rev() {
                tail[q] = rest % slice[q];
                rest /= slice[q];
            }
            idx.extend(tail);
            flat(&shape, &idx)
        };
        let (mut ws, mut ex) = (0u64, null_mut());
        let what = format!("case {case} op {op} {shape:?} indices {ishape:?} dtype {d}");
        if op == 0 {
            let out = T::new(&mut rng, d, &rshape, &mut |_| encode(d, 99));
            let ob = out.bytes();
            let st = unsafe {
                gather_nd::aclnnGatherNdGetWorkspaceSize(
                    s.t, index.t, wrap, out.t, &mut ws, &mut ex,
                )
            };
            ok(st, ws, ex, gather_nd::aclnnGatherNd);
            expect(&out, &ob, &|k| sv[at(k / sl, k % sl)], &what);
            continue;
        }
        let uv: Vec<i64> = (0..points * sl)
            .map(|k| logical(d, (k % 5) as i64 + 1))
            .collect();
        let updates = filled(&mut rng, d, &rshape, &mut |k| uv[k]);
        let mut want = sv.clone();
        // Plain updates need distinct tuples for a defined result: make them additions' inputs
        // only where the op adds.
        let mut seen = std::collections::HashSet::new();
        let distinct = (0..points).all(|b| seen.insert(at(b, 0)));
        if op != 3 && !distinct {
            continue;
        }
        for b in 0..points {
            for j in 0..sl {
                let p = at(b, j);
                want[p] = if op == 3 {
                    logical(d, want[p] + uv[b * sl + j])
                } else {
                    uv[b * sl + j]
                };
            }
        }
        match op {
            1 => {
                let out = T::new(&mut rng, d, &shape, &mut |_| encode(d, 99));
                let ob = out.bytes();
                let st = unsafe {
                    scatter_nd::aclnnScatterNdGetWorkspaceSize(
                        s.t, index.t, updates.t, out.t, &mut ws, &mut ex,
                    )
                };
                ok(st, ws, ex, scatter_nd::aclnnScatterNd);
                expect(&out, &ob, &|k| want[k], &what);
                expect(&s, &before, &|k| sv[k], &what);
            }
            2 => {
                let st = unsafe {
                    scatter_nd_update::aclnnScatterNdUpdateGetWorkspaceSize(
                        s.t, index.t, updates.t, &mut ws, &mut ex,
                    )
                };
                ok(st, ws, ex, scatter_nd_update::aclnnScatterNdUpdate);
                expect(&s, &before, &|k| want[k], &what);
            }
            _ => {
                let st = unsafe {
                    tf_scatter_add::aclnnTfScatterAddGetWorkspaceSize(
                        s.t, index.t, updates.t, &mut ws, &mut ex,
                    )
                };
                ok(st, ws, ex, tf_scatter_add::aclnnTfScatterAdd);
                expect(&s, &before, &|k| want[k], &what);
            }
        }
    }
}

#[test]
fn nd_family_refuses_bad_indices() {
    device();
    let mut rng = Rng::new(0x4d01);
    let s = filled(&mut rng, F32, &[3, 4], &mut |k| k as i64);
    let before = s.bytes();
    let (mut ws, mut ex) = (0u64, null_mut());
    let neg = T::index(&mut rng, S64, &[2, 2], &[0, 1, -1, 0]);
    let out = T::new(&mut rng, F32, &[2], &mut |_| encode(F32, 99));
    let ob = out.bytes();
    let st = unsafe {
        gather_nd::aclnnGatherNdGetWorkspaceSize(s.t, neg.t, false, out.t, &mut ws, &mut ex)
    };
    assert_eq!(run(st, ws, ex, gather_nd::aclnnGatherNd), AICORE_EXCEPTION);
    let e = err();
    assert!(e.contains("value -1") && e.contains("[0, 3)"), "{e}");
    assert_eq!(out.bytes(), ob);
    let st = unsafe {
        gather_nd::aclnnGatherNdGetWorkspaceSize(s.t, neg.t, true, out.t, &mut ws, &mut ex)
    };
    ok(st, ws, ex, gather_nd::aclnnGatherNd);
    let upd = filled(&mut rng, F32, &[2], &mut |_| 1);
    let full = T::new(&mut rng, F32, &[3, 4], &mut |_| encode(F32, 99));
    let fb = full.bytes();
    let st = unsafe {
        scatter_nd::aclnnScatterNdGetWorkspaceSize(s.t, neg.t, upd.t, full.t, &mut ws, &mut ex)
    };
    assert_eq!(
        run(st, ws, ex, scatter_nd::aclnnScatterNd),
        AICORE_EXCEPTION
    );
    assert_eq!(
        full.bytes(),
        fb,
        "ScatterNd wrote out before its indices were checked"
    );
    let st = unsafe {
        tf_scatter_add::aclnnTfScatterAddGetWorkspaceSize(s.t, neg.t, upd.t, &mut ws, &mut ex)
    };
    assert_eq!(
        run(st, ws, ex, tf_scatter_add::aclnnTfScatterAdd),
        AICORE_EXCEPTION
    );
    assert_eq!(s.bytes(), before);
    // phase 1: a tuple longer than the rank, updates of the wrong shape, 1-D indices for ScatterNdUpdate
    let long = T::index(&mut rng, S64, &[1, 3], &[0, 0, 0]);
    assert_eq!(
        unsafe {
            gather_nd::aclnnGatherNdGetWorkspaceSize(s.t, long.t, false, out.t, &mut ws, &mut ex)
        },
        161002
    );
    let e = err();
    assert!(e.contains("1 to 2 values"), "{e}");
    let bad = filled(&mut rng, F32, &[3], &mut |_| 1);
    assert_eq!(
        unsafe {
            scatter_nd::aclnnScatterNdGetWorkspaceSize(s.t, neg.t, bad.t, full.t, &mut ws, &mut ex)
        },
        161002
    );
    assert_eq!(
        unsafe {
            tf_scatter_add::aclnnTfScatterAddGetWorkspaceSize(s.t, neg.t, bad.t, &mut ws, &mut ex)
        },
        161002
    );
    let one = T::index(&mut rng, S64, &[2], &[0, 1]);
    let s8 = filled(&mut rng, S8, &[3, 4], &mut |_| 0);
    let upd8 = filled(&mut rng, S8, &[4], &mut |_| 0);
    assert_eq!(
        unsafe {
            scatter_nd_update::aclnnScatterNdUpdateGetWorkspaceSize(
                s8.t, one.t, upd8.t, &mut ws, &mut ex,
            )
        },
        161002
    );
    let e = err();
    assert!(e.contains("at least 2"), "{e}");
    let f64s = filled(&mut rng, F64, &[3, 4], &mut |_| 0);
    assert_eq!(
        unsafe {
            gather_nd::aclnnGatherNdGetWorkspaceSize(f64s.t, neg.t, false, out.t, &mut ws, &mut ex)
        },
        161002
    );
}

#[test]
fn gather_v3_scatter_reduce_and_scatter_update_match_a_loop() {
    device();
    let mut rng = Rng::new(0x5e73);
    for case in 0..240 {
        let (mut ws, mut ex) = (0u64, null_mut());
        match case % 3 {
            0 => {
                // GatherV3: dim 0, batchDims 0: out = index.shape + self.shape[1:]
                let d = rng.pick(&[F32, F16, S64, S32, S16, S8, U8, BOOL, F64]);
                let r = 1 + rng.below(3) as usize;
                let shape: Vec<usize> = (0..r).map(|_| 1 + rng.below(4) as usize).collect();
                let ishape: Vec<usize> = (0..rng.below(3)).map(|_| rng.below(4) as usize).collect();
                let k: usize = ishape.iter().product();
                let iv: Vec<i64> = (0..k).map(|_| rng.below(shape[0] as u64) as i64).collect();
                let idt = rng.pick(&[S32, S64]);
                let index = T::index(&mut rng, idt, &ishape, &iv);
                let n: usize = shape.iter().product();
                let sv: Vec<i64> = (0..n).map(|k| logical(d, (k % 13) as i64)).collect();
                let s = filled(&mut rng, d, &shape, &mut |k| sv[k]);
                // a 0-D index is a 1-element 1-D one (aclnnGatherV3.md)
                let q: Vec<usize> = if ishape.is_empty() {
                    vec![1]
                } else {
                    ishape.clone()
                };
                let oshape: Vec<usize> = q.iter().chain(&shape[1..]).copied().collect();
                let out = T::new(&mut rng, d, &oshape, &mut |_| encode(d, 99));
                let ob = out.bytes();
                let row: usize = shape[1..].iter().product();
                let dim = if rng.pct(50) { 0 } else { -(r as i64) };
                let mode = rng.below(3) as i64;
                let st = unsafe {
                    gather_v3::aclnnGatherV3GetWorkspaceSize(
                        s.t, dim, index.t, 0, mode, out.t, &mut ws, &mut ex,
                    )
                };
                ok(st, ws, ex, gather_v3::aclnnGatherV3);
                expect(
                    &out,
                    &ob,
                    &|p| sv[iv[p / row] as usize * row + p % row],
                    &format!("case {case}: GatherV3 {shape:?} {ishape:?}"),
                );
            }
            1 => {
                // ScatterReduce (FLOAT32, add, includeSelf) and its in-place form
                let r = 1 + rng.below(3) as usize;
                let shape: Vec<usize> = (0..r).map(|_| 1 + rng.below(4) as usize).collect();
                let ax = rng.below(r as u64) as usize;
                let ishape: Vec<usize> = shape
                    .iter()
                    .map(|&n| rng.below(n as u64 + 1) as usize)
                    .collect();
                let k: usize = ishape.iter().product();
                let iv: Vec<i64> = (0..k).map(|_| rng.below(shape[ax] as u64) as i64).collect();
                let idt = rng.pick(&[S32, S64]);
                let index = T::index(&mut rng, idt, &ishape, &iv);
                let n: usize = shape.iter().product();
                let sv: Vec<i64> = (0..n).map(|k| (k % 7) as i64).collect();
                let src = filled(&mut rng, F32, &shape, &mut |k| (k % 5) as i64 + 1);
                let mut want = sv.clone();
                for (q, p) in indices(&ishape).iter().enumerate() {
                    let mut dst = p.clone();
                    dst[ax] = iv[q] as usize;
                    want[flat(&shape, &dst)] += (flat(&shape, p) % 5) as i64 + 1;
                }
                let s = filled(&mut rng, F32, &shape, &mut |k| sv[k]);
                let before = s.bytes();
                let out = T::new(&mut rng, F32, &shape, &mut |_| encode(F32, 99));
                let ob = out.bytes();
                let dim = if rng.pct(50) {
                    ax as i64 - r as i64
                } else {
                    ax as i64
                };
                let st = unsafe {
                    scatter_reduce::aclnnScatterReduceGetWorkspaceSize(
                        s.t, dim, index.t, src.t, 1, true, out.t, &mut ws, &mut ex,
                    )
                };
                ok(st, ws, ex, scatter_reduce::aclnnScatterReduce);
                expect(
                    &out,
                    &ob,
                    &|p| want[p],
                    &format!("case {case}: ScatterReduce {shape:?} dim {dim}"),
                );
                let st = unsafe {
                    scatter_reduce::aclnnInplaceScatterReduceGetWorkspaceSize(
                        s.t, dim, index.t, src.t, 1, true, &mut ws, &mut ex,
                    )
                };
                ok(st, ws, ex, scatter_reduce::aclnnInplaceScatterReduce);
                expect(&s, &before, &|p| want[p], "InplaceScatterReduce");
                for (reduce, inc) in [(0, true), (2, true), (1, false), (5, true)] {
                    let st = unsafe {
                        scatter_reduce::aclnnScatterReduceGetWorkspaceSize(
                            s.t, dim, index.t, src.t, reduce, inc, out.t, &mut ws, &mut ex,
                        )
                    };
                    assert_eq!(st, 161002);
                }
            }
            _ => {
                // InplaceScatterUpdate: batch i from offset indices[i] along axis
                let d = rng.pick(&[S8, U8, F16, F32, S32, BF16]);
                let r = 2 + rng.below(3) as usize;
                let shape: Vec<usize> = (0..r).map(|_| 1 + rng.below(4) as usize).collect();
                let ax = 1 + rng.below(r as u64 - 1) as usize;
                let e = 1 + rng.below(shape[ax] as u64) as usize;
                let zero_d = shape[0] == 1 && rng.pct(30);
                let mut ushape = shape.clone();
                ushape[ax] = e;
                let batches = if zero_d {
                    1
                } else {
                    1 + rng.below(shape[0] as u64) as usize
                };
                ushape[0] = batches;
                let iv: Vec<i64> = (0..batches)
                    .map(|_| rng.below((shape[ax] - e + 1) as u64) as i64)
                    .collect();
                let idt = rng.pick(&[S32, S64]);
                let index = if zero_d {
                    T::index(&mut rng, idt, &[], &iv)
                } else {
                    T::index(&mut rng, idt, &[batches], &iv)
                };
                let n: usize = shape.iter().product();
                let sv: Vec<i64> = (0..n).map(|k| logical(d, (k % 9) as i64)).collect();
                let s = filled(&mut rng, d, &shape, &mut |k| sv[k]);
                let before = s.bytes();
                let un: usize = ushape.iter().product();
                let uv: Vec<i64> = (0..un).map(|k| logical(d, 20 + (k % 7) as i64)).collect();
                let upd = filled(&mut rng, d, &ushape, &mut |k| uv[k]);
                let mut want = sv.clone();
                for (q, p) in indices(&ushape).iter().enumerate() {
                    let mut dst = p.clone();
                    dst[ax] += iv[p[0]] as usize;
                    want[flat(&shape, &dst)] = uv[q];
                }
                let axis = if rng.pct(50) {
                    ax as i64 - r as i64
                } else {
                    ax as i64
                };
                let st = unsafe {
                    scatter_update::aclnnInplaceScatterUpdateGetWorkspaceSize(
                        s.t, index.t, upd.t, axis, &mut ws, &mut ex,
                    )
                };
                ok(st, ws, ex, scatter_update::aclnnInplaceScatterUpdate);
                expect(&s, &before, &|p| want[p], &format!("case {case}: ScatterUpdate {shape:?} axis {axis} updates {ushape:?} {iv:?}"));
                // an offset past c - e fails the run, data untouched; axis 0 is refused
                if !zero_d {
                    let bad: Vec<i64> = iv.iter().map(|_| (shape[ax] - e + 1) as i64).collect();
                    let bi = T::index(&mut rng, idt, &[batches], &bad);
                    let now = s.bytes();
                    let st = unsafe {
                        scatter_update::aclnnInplaceScatterUpdateGetWorkspaceSize(
                            s.t, bi.t, upd.t, axis, &mut ws, &mut ex,
                        )
                    };
                    assert_eq!(
                        run(st, ws, ex, scatter_update::aclnnInplaceScatterUpdate),
                        AICORE_EXCEPTION
                    );
                    assert_eq!(s.bytes(), now);
                }
                let st = unsafe {
                    scatter_update::aclnnInplaceScatterUpdateGetWorkspaceSize(
                        s.t, index.t, upd.t, 0, &mut ws, &mut ex,
                    )
                };
                assert_eq!(st, 161002);
            }
        }
    }
    // GatherV3 refusals: dim 1, batchDims 1, mode 3, a negative index at run time
    let s = filled(&mut rng, F32, &[3, 2], &mut |k| k as i64);
    let index = T::index(&mut rng, S64, &[2], &[1, -1]);
    let out = T::new(&mut rng, F32, &[2, 2], &mut |_| encode(F32, 99));
    let ob = out.bytes();
    let (mut ws, mut ex) = (0u64, null_mut());
    for (dim, batch, mode) in [(1, 0, 0), (0, 1, 0), (0, 0, 3)] {
        let st = unsafe {
            gather_v3::aclnnGatherV3GetWorkspaceSize(
                s.t, dim, index.t, batch, mode, out.t, &mut ws, &mut ex,
            )
        };
        assert_eq!(st, 161002);
    }
    let st = unsafe {
        gather_v3::aclnnGatherV3GetWorkspaceSize(s.t, 0, index.t, 0, 1, out.t, &mut ws, &mut ex)
    };
    assert_eq!(run(st, ws, ex, gather_v3::aclnnGatherV3), AICORE_EXCEPTION);
    assert_eq!(out.bytes(), ob);
}
