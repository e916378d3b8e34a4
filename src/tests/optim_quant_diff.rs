//! aclnnApplyAdamWQuant through its C entry points against torch 1.13 running the 8-bit
//! block-wise AdamW step as CANN's golden script defines it (dequantize, the AdamW update
//! in f32, the block maxima, `argmin |x/scale − q|` and the sign fix), written here with
//! whole-tensor torch ops. Random sizes (one element to several blocks, multiples of 256
//! and not), views of every tensor (strided, transposed, offset), f32/f16/bf16 varRef,
//! ascending maps (linear, signed with and without 0, repeated entries), unsorted maps,
//! zero scales, NaN/inf gradients. The codes and scales are exact; varRef is exact in
//! f16/bf16 and within 2 ulp in f32 (torch's and libm's powf may differ in the last bit,
//! which only the parameter update uses). Also the checks, and nothing written on error.

use super::add_diff::Rng;
use super::foreach_diff::{compare, device, err, run, View};
use super::optim_diff::{destroy, gen};
use super::torch_ref::{Array, Batch};
use crate::capi::meta::*;
use crate::capi::ops::apply_adam_w_quant::*;
use crate::dtype::DType;
use std::ffi::CString;
use std::ptr::null_mut;

use DType::*;

/// The reference: a = [var, grad, m, v, qmapM, qmapV, absmaxM, absmaxV, step, attrs].
const PROGRAM: &str = "\
var, grad, m, v, qm, qv, am, av, step, at = a
lr, b1, b2, wd, eps, gs = [torch.tensor(x, dtype=torch.float32) for x in at.tolist()]
one = torch.tensor(1.0, dtype=torch.float32)
t = step.reshape(-1)[0].to(torch.float32) + one
c1 = one - torch.pow(b1, t)
c2 = torch.sqrt(one - torch.pow(b2, t))
size = -lr * c2 / c1
n = var.numel()
nb = (n + 255) // 256
blk = torch.arange(n) // 256
qm = qm.reshape(-1)
qv = qv.reshape(-1)
g = grad.to(torch.float32).reshape(-1) * gs
s1 = qm[m.reshape(-1).long()] * am.reshape(-1)[blk]
s2 = qv[v.reshape(-1).long()] * av.reshape(-1)[blk]
s1 = s1 * b1 + (one - b1) * g
s2 = s2 * b2 + (one - b2) * (g * g)
p = var.to(torch.float32).reshape(-1) + size * s1 / (torch.sqrt(s2) + eps * c2)
if float(wd) > 0.0:
    p = p * (one - lr * wd)
def block_max(x):
    pad = torch.full((nb * 256 - n,), float('-inf'))
    return torch.cat([x, pad]).reshape(nb, 256).max(dim=1).values
def codes(x, q, mx):
    d = torch.where(mx == 0, one, mx)[blk]
    xn = x / d
    idx = torch.argmin((xn[:, None] - q[None, :]).abs(), dim=1)
    if bool((q < 0).any()):
        flip = xn * q[idx] < 0
        idx = torch.where(flip & (xn > 0), idx + 1, idx)
        idx = torch.where(flip & (xn < 0), idx - 1, idx)
        idx = idx.clamp(0, 255)
    return idx.to(torch.uint8)
nm = block_max(s1.abs())
nv = block_max(s2)
out = [p.to(var.dtype).reshape(var.shape), codes(s1, qm, nm).reshape(m.shape), codes(s2, qv, nv).reshape(v.shape), nm.reshape(am.shape), nv.reshape(av.shape)]
";

/// A 256-entry map of one of several kinds (ascending except the last kind).
fn qmap(rng: &mut Rng, kind: u64) -> Vec<f64> {
    let lin = |lo: f64, hi: f64| -> Vec<f64> {
        (0..256)
            .map(|i| (lo + (hi - lo) * i as f64 / 255.0) as f32 as f64)
            .collect()
    };
    match kind {
        0 => lin(-1.0, 1.0),
        1 => lin(0.0, 1.0),
        2 => {
            // Signed and with an entry at 0, denser near 0 (bitsandbytes' dynamic map's
            // shape).
            let mut q: Vec<f64> = (0..256)
                .map(|i| {
                    let x = (i as f64 - 127.0) / 128.0;
                    x * x * x.signum()
                })
                .collect();
            q[127] = 0.0;
            q
        }
        3 => {
            // Coarse: repeated entries and tied distances.
            let mut q: Vec<f64> = (0..256)
                .map(|_| (rng.below(33) as f64 - 16.0) / 16.0)
                .collect();
            q.sort_by(f64::total_cmp);
            q
        }
        4 => {
            let mut q: Vec<f64> = (0..256).map(|_| rng.below(1000) as f64 / 999.0).collect();
            q.sort_by(f64::total_cmp);
            q
        }
        _ => (0..256)
            .map(|_| (rng.below(2001) as f64 - 1000.0) / 1000.0)
            .collect(),
    }
}

/// A shape of 1..=4 dims whose element count is mostly around a few blocks.
fn shape(rng: &mut Rng) -> Vec<usize> {
    match rng.below(4) {
        0 => vec![1 + rng.below(1100) as usize],
        1 => vec![256 * (1 + rng.below(4) as usize)],
        2 => vec![1 + rng.below(40) as usize, 1 + rng.below(40) as usize],
        _ => vec![
            1 + rng.below(6) as usize,
            1 + rng.below(8) as usize,
            1 + rng.below(30) as usize,
        ],
    }
}

struct Case {
    what: String,
    views: Vec<View>,
    inputs: Vec<Option<Array>>,
}

#[test]
fn apply_adam_w_quant_matches_torch() {
    device();
    let mut rng = Rng::new(0x8b17);
    let mut batch = Batch::new();
    let prog = batch.program(PROGRAM);
    let mut cases = Vec::new();
    for case in 0..150 {
        let d = [F32, F16, BF16][case % 3];
        let sh = shape(&mut rng);
        let n: usize = sh.iter().product();
        let blocks = n.div_ceil(256);
        let mut grad = gen(&mut rng, d, n, -2.0, 2.0);
        if case % 10 == 7 {
            let k = rng.below(n as u64) as usize;
            grad[k] = [f64::NAN, f64::INFINITY][rng.below(2) as usize];
        }
        let var = gen(&mut rng, d, n, -3.0, 3.0);
        let codes = |rng: &mut Rng| -> Vec<f64> { (0..n).map(|_| rng.below(256) as f64).collect() };
        let (m, v) = (codes(&mut rng), codes(&mut rng));
        let (km, kv) = (rng.below(6), [1, 4, 1, 2, 5][rng.below(5) as usize]);
        let (qm, qv) = (qmap(&mut rng, km), qmap(&mut rng, kv));
        let scales = |rng: &mut Rng| -> Vec<f64> {
            (0..blocks)
                .map(|_| {
                    if rng.pct(10) {
                        0.0
                    } else {
                        (1 + rng.below(4000)) as f64 / 1000.0
                    }
                })
                .collect()
        };
        let (am, av) = (scales(&mut rng), scales(&mut rng));
        let step = rng.below(40) as f64;
        let lr = [1e-3, 0.1, 0.5][rng.below(3) as usize];
        let b1 = [0.9, 0.5, 0.1][rng.below(3) as usize];
        let b2 = [0.999, 0.9, 0.1][rng.below(3) as usize];
        let wd = [0.0, 0.01, 0.5, -0.1][rng.below(4) as usize];
        let eps = [1e-8, 1e-2][rng.below(2) as usize];
        let gs = [1.0, 0.5, 0.999][rng.below(3) as usize];
        let map_shape: &[usize] = if rng.pct(20) { &[16, 16] } else { &[256] };
        let views = vec![
            View::new(&mut rng, d, &sh, &var),
            View::new(&mut rng, d, &sh, &grad),
            View::new(&mut rng, U8, &sh, &m),
            View::new(&mut rng, U8, &sh, &v),
            View::new(&mut rng, F32, map_shape, &qm),
            View::new(&mut rng, F32, map_shape, &qv),
            View::new(&mut rng, F32, &[blocks], &am),
            View::new(&mut rng, F32, &[blocks], &av),
            View::new(&mut rng, S64, &[1], &[step]),
        ];
        let mut inputs: Vec<Option<Array>> = views.iter().map(|x| Some(x.read().0)).collect();
        inputs.push(Some(Array::f64s(&[6], &[lr, b1, b2, wd, eps, gs])));
        let what = format!(
            "case {case} {d} {sh:?} maps {km}/{kv} step {step} lr {lr} b1 {b1} b2 {b2} wd {wd} eps {eps} gs {gs}"
        );
        let t: Vec<*mut aclTensor> = views.iter().map(|x| x.tensor()).collect();
        let mode = CString::new("BLOCKWISE").unwrap();
        let mode_ptr = if case % 4 == 0 {
            null_mut()
        } else {
            mode.as_ptr() as *mut _
        };
        let (mut ws, mut ex) = (0u64, null_mut());
        let st = unsafe {
            aclnnApplyAdamWQuantGetWorkspaceSize(
                t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7], t[8], lr, b1, b2, wd, eps, gs,
                mode_ptr, 256, &mut ws, &mut ex,
            )
        };
        assert_eq!(ws, 0, "{what}: the device asks for no workspace");
        run(st, ws, ex, aclnnApplyAdamWQuant, &what);
        destroy(&t);
        batch.case(prog, inputs.clone());
        cases.push(Case {
            what,
            views,
            inputs,
        });
    }
    let Some(results) = batch.run("aclnnApplyAdamWQuant") else {
        return;
    };
    let names = ["varRef", "mRef", "vRef", "absmaxMRef", "absmaxVRef"];
    for (c, r) in cases.iter().zip(results) {
        let want = r.unwrap_or_else(|e| panic!("{}: torch failed: {e}", c.what));
        for (k, &i) in [0usize, 2, 3, 6, 7].iter().enumerate() {
            let (got, kept) = c.views[i].read();
            assert!(kept, "{} {}: wrote outside the view", c.what, names[k]);
            let ulps = if i == 0 && got.dtype == F32 { 2 } else { 0 };
            compare(&format!("{} {}", c.what, names[k]), &got, &want[k], ulps);
        }
        // The inputs are untouched.
        for &i in &[1usize, 4, 5, 8] {
            assert_eq!(
                c.views[i].read().0,
                *c.inputs[i].as_ref().unwrap(),
                "{}: input {i} changed",
                c.what
            );
        }
    }
}

#[test]
fn apply_adam_w_quant_refuses_bad_calls_with_a_message() {
    device();
    let mut rng = Rng::new(0x8b18);
    let mk = |rng: &mut Rng, d: DType, shape: &[usize]| {
        let n: usize = shape.iter().product();
        View::new(rng, d, shape, &vec![1.0; n])
    };
    let var = mk(&mut rng, F32, &[3, 100]);
    let grad = mk(&mut rng, F32, &[3, 100]);
    let m = mk(&mut rng, U8, &[3, 100]);
    let v = mk(&mut rng, U8, &[3, 100]);
    let qm = mk(&mut rng, F32, &[256]);
    let qv = mk(&mut rng, F32, &[256]);
    let am = mk(&mut rng, F32, &[2]);
    let av = mk(&mut rng, F32, &[2]);
    let step = mk(&mut rng, S64, &[1]);
    let base: Vec<*mut aclTensor> = [&var, &grad, &m, &v, &qm, &qv, &am, &av, &step]
        .iter()
        .map(|x| x.tensor())
        .collect();
    let extra = [
        mk(&mut rng, F16, &[3, 100]), // 0: grad of another dtype
        mk(&mut rng, S8, &[3, 100]),  // 1: codes not UINT8
        mk(&mut rng, U8, &[300]),     // 2: codes of another shape
        mk(&mut rng, F32, &[255]),    // 3: a short map
        mk(&mut rng, F32, &[128, 2]), // 4: a map of another shape
        mk(&mut rng, S64, &[2]),      // 5: a step of two
        mk(&mut rng, S64, &[]),       // 6: a 0-d step
        mk(&mut rng, F32, &[3]),      // 7: too many scales
        mk(&mut rng, F32, &[0]),      // 8: empty var
        mk(&mut rng, F32, &[]),       // 9: 0-d var
        mk(&mut rng, S32, &[1]),      // 10: an INT32 step
        mk(&mut rng, F64, &[3, 100]), // 11: f64 var
    ];
    let et: Vec<*mut aclTensor> = extra.iter().map(|x| x.tensor()).collect();
    let call = |a: &[*mut aclTensor], block: i64| {
        let (mut ws, mut ex) = (0u64, null_mut());
        unsafe {
            aclnnApplyAdamWQuantGetWorkspaceSize(
                a[0],
                a[1],
                a[2],
                a[3],
                a[4],
                a[5],
                a[6],
                a[7],
                a[8],
                1e-3,
                0.9,
                0.999,
                0.01,
                1e-8,
                1.0,
                null_mut(),
                block,
                &mut ws,
                &mut ex,
            )
        }
    };
    let expect = |st: aclnnStatus, code: aclnnStatus, words: &[&str]| {
        let e = err();
        assert_eq!(st, code, "{e}");
        for w in words {
            assert!(e.contains(w), "'{w}' not in: {e}");
        }
    };
    let with = |k: usize, t: *mut aclTensor| {
        let mut a = base.clone();
        a[k] = t;
        a
    };
    for k in 0..9 {
        expect(call(&with(k, null_mut()), 256), 161001, &[]);
    }
    expect(call(&with(1, et[0]), 256), 161002, &["grad", "dtype"]);
    expect(call(&with(2, et[1]), 256), 161002, &["mRef", "dtype"]);
    expect(call(&with(0, et[11]), 256), 161002, &["varRef", "dtype"]);
    expect(call(&with(8, et[10]), 256), 161002, &["step", "dtype"]);
    expect(call(&base, 128), 161002, &["blockSize", "128", "256"]);
    expect(call(&with(3, et[2]), 256), 161002, &["vRef", "shape"]);
    expect(call(&with(4, et[3]), 256), 161002, &["qmapM", "256"]);
    expect(call(&with(5, et[4]), 256), 161002, &["qmapV", "one shape"]);
    expect(call(&with(8, et[5]), 256), 161002, &["step", "[1]"]);
    expect(call(&with(8, et[6]), 256), 161002, &["step", "[1]"]);
    expect(
        call(&with(7, et[7]), 256),
        161002,
        &["absmaxVRef", "ceil(300/256) = 2"],
    );
    let e8 = mk(&mut rng, U8, &[0]);
    let e8t = e8.tensor();
    expect(
        call(
            &[
                et[8], et[8], e8t, e8t, base[4], base[5], et[8], et[8], base[8],
            ],
            256,
        ),
        161002,
        &["varRef", "empty"],
    );
    let z = mk(&mut rng, U8, &[]);
    let zt = z.tensor();
    let a1 = mk(&mut rng, F32, &[1]);
    let a1t = a1.tensor();
    expect(
        call(
            &[et[9], et[9], zt, zt, base[4], base[5], a1t, a1t, base[8]],
            256,
        ),
        161002,
        &["varRef", "0 dims"],
    );
    // An input that is an output.
    expect(
        call(&with(1, base[0]), 256),
        161002,
        &["grad", "shares memory"],
    );
    expect(call(&with(7, base[6]), 256), 161002, &["share memory"]);
    // Nothing was written by the refused calls.
    assert!(var
        .read()
        .0
        .bytes
        .chunks(4)
        .all(|b| f32::from_le_bytes(b.try_into().unwrap()) == 1.0));
    assert!(m.read().0.bytes.iter().all(|&b| b == 1));
    destroy(&base);
    destroy(&et);
    destroy(&[zt, a1t, e8t]);
}
