//! The LLM family (src/ops/llm) on host memory through its rules: random shapes, dtypes
//! and views (row gaps, transposed storage, offsets), against PyTorch 1.13 (the device's
//! golden) where torch has the operator, and against plain f64 loops with the bounds
//! stated in each operator's doc comment. Outputs are checked not to write outside their
//! views; error cases check the message names the problem.

use super::add_diff::Rng;
use super::reduce_diff::run;
use super::torch_ref::{Array, Batch};
use crate::dtype::DType::{self, *};
use crate::executor::Executor;
use crate::ops::llm;
use crate::scalar::Scalar;
use crate::tensor::TensorDesc;

/// A host buffer seen as a view (logical shape, element strides, offset).
pub(super) struct Buf {
    pub d: DType,
    pub shape: Vec<usize>,
    pub strides: Vec<isize>,
    pub offset: usize,
    storage: usize,
    mem: Vec<u64>,
}

/// How a generated view lays out its storage.
#[derive(Clone, Copy, Debug)]
pub(super) enum Layout {
    Contiguous,
    /// Gaps after each row of every dim, and an offset.
    Padded,
    /// The last two dims stored transposed (column-major), and an offset.
    Transposed,
}

impl Buf {
    /// A view of `shape` in `layout`, its whole storage filled by `fill()`.
    pub fn new(d: DType, shape: &[usize], layout: Layout, mut fill: impl FnMut() -> f64) -> Buf {
        let r = shape.len();
        let mut order: Vec<usize> = (0..r).collect();
        if let (Layout::Transposed, true) = (layout, r >= 2) {
            order.swap(r - 1, r - 2);
        }
        let mut strides = vec![0isize; r];
        let mut acc = 1usize;
        for &dim in order.iter().rev() {
            strides[dim] = acc as isize;
            let pad = if let Layout::Padded = layout {
                1 + dim % 2
            } else {
                0
            };
            acc *= shape[dim] + pad;
        }
        let offset = if let Layout::Contiguous = layout {
            0
        } else {
            3
        };
        let reach: usize = if shape.contains(&0) {
            0
        } else {
            shape
                .iter()
                .zip(&strides)
                .map(|(n, s)| (n - 1) * *s as usize)
                .sum::<usize>()
                + 1
        };
        let storage = offset + reach + 2;
        let mut b = Buf {
            d,
            shape: shape.to_vec(),
            strides,
            offset,
            storage,
            mem: vec![0u64; (storage * d.size()).div_ceil(8) + 1],
        };
        for i in 0..storage {
            b.put(i, fill());
        }
        b
    }

    fn bytes(&self) -> &[u8] {
        // SAFETY: a u64 buffer seen as bytes.
        unsafe { std::slice::from_raw_parts(self.mem.as_ptr() as *const u8, self.mem.len() * 8) }
    }

    /// Stores `v`, converted to the dtype, at storage element `i`.
    fn put(&mut self, i: usize, v: f64) {
        let s = Scalar::from_value(v).cast(self.d);
        let z = self.d.size();
        // SAFETY: element i is inside the storage.
        let m = unsafe {
            std::slice::from_raw_parts_mut(self.mem.as_mut_ptr() as *mut u8, self.mem.len() * 8)
        };
        m[i * z..(i + 1) * z].copy_from_slice(s.bytes());
    }

    fn storage_at(&self, i: usize) -> f64 {
        let z = self.d.size();
        Scalar::from_bytes(self.d, &self.bytes()[i * z..(i + 1) * z])
            .cast(F64)
            .get::<f64>()
    }

    fn index(&self, idx: &[usize]) -> usize {
        self.offset
            + idx
                .iter()
                .zip(&self.strides)
                .map(|(i, s)| i * *s as usize)
                .sum::<usize>()
    }

    /// The logical elements, row-major, as f64.
    pub fn values(&self) -> Vec<f64> {
        indices(&self.shape)
            .iter()
            .map(|i| self.storage_at(self.index(i)))
            .collect()
    }

    /// Writes `values` (row-major, the view's logical elements) into the view.
    pub fn set_values(&mut self, values: &[f64]) {
        for (i, v) in indices(&self.shape).iter().zip(values) {
            let k = self.index(i);
            self.put(k, *v);
        }
    }

    /// Writes complex `values` (row-major (re, im) pairs) into a c64/c128 view.
    pub fn set_complex(&mut self, values: &[(f64, f64)]) {
        let z = self.d.size();
        for (i, &(re, im)) in indices(&self.shape).iter().zip(values) {
            let k = self.index(i);
            let bytes: Vec<u8> = if self.d == C64 {
                [(re as f32).to_le_bytes(), (im as f32).to_le_bytes()].concat()
            } else {
                [re.to_le_bytes(), im.to_le_bytes()].concat()
            };
            // SAFETY: element k is inside the storage.
            let m = unsafe {
                std::slice::from_raw_parts_mut(self.mem.as_mut_ptr() as *mut u8, self.mem.len() * 8)
            };
            m[k * z..(k + 1) * z].copy_from_slice(&bytes);
        }
    }

    /// The logical elements as a contiguous array for the torch reference.
    pub fn array(&self) -> Array {
        let z = self.d.size();
        let mut bytes = vec![];
        for i in indices(&self.shape) {
            let k = self.index(&i);
            bytes.extend_from_slice(&self.bytes()[k * z..(k + 1) * z]);
        }
        Array {
            dtype: self.d,
            shape: self.shape.clone(),
            bytes,
        }
    }

    pub fn desc(&self) -> TensorDesc {
        let dims: Vec<i64> = self.shape.iter().map(|&d| d as i64).collect();
        let st: Vec<i64> = self.strides.iter().map(|&s| s as i64).collect();
        TensorDesc::new(
            &dims,
            self.d as i32,
            Some(&st),
            self.offset as i64,
            2,
            &[self.storage as i64],
            self.mem.as_ptr() as usize,
        )
        .expect("a valid view")
    }

    /// Storage elements outside the view, as bytes (to check they were not written).
    pub fn outside(&self) -> Vec<(usize, Vec<u8>)> {
        let mut inside = vec![false; self.storage];
        for i in indices(&self.shape) {
            inside[self.index(&i)] = true;
        }
        let z = self.d.size();
        (0..self.storage)
            .filter(|i| !inside[*i])
            .map(|i| (i, self.bytes()[i * z..(i + 1) * z].to_vec()))
            .collect()
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

pub(super) fn layout(rng: &mut Rng) -> Layout {
    rng.pick(&[Layout::Contiguous, Layout::Padded, Layout::Transposed])
}

/// A value in [-2, 2) on a 1/64 grid (exact in every float dtype here).
pub(super) fn grid(rng: &mut Rng) -> f64 {
    (rng.below(256) as f64 - 128.0) / 64.0
}

/// Half an ulp of `v` rounded into `d` (0 for f64), as a bound on one rounding.
pub(super) fn half_ulp(d: DType, v: f64) -> f64 {
    let bits = match d {
        F16 => 11,
        BF16 => 8,
        F32 => 24,
        _ => return 0.0,
    };
    let e = v.abs().max(f64::MIN_POSITIVE).log2().floor();
    // f16's subnormals: an ulp never smaller than 2^-24.
    let floor = if d == F16 { 2f64.powi(-25) } else { 0.0 };
    (2f64.powf(e - bits as f64)).max(floor)
}

/// Runs the batch and checks every pending output (what, case, buffer) is torch's bit for bit.
fn expect_torch_bytes(batch: &Batch, what: &str, pending: Vec<(String, usize, Buf)>) {
    let Some(results) = batch.run(what) else {
        return;
    };
    for (what, i, o) in pending {
        let want = results[i]
            .as_ref()
            .unwrap_or_else(|e| panic!("{what}: torch: {e}"));
        assert_eq!(
            o.array().bytes,
            want[0].bytes,
            "{what}: got {:?}, torch {:?}",
            o.values(),
            want[0].to_f64s_any()
        );
    }
}

pub(super) fn out_unwritten(case: &str, before: &[(usize, Vec<u8>)], out: &Buf) {
    assert_eq!(
        before,
        &out.outside()[..],
        "{case}: out was written outside its view"
    );
}

#[test]
fn mv_matches_an_f64_product_on_any_views() {
    let mut rng = Rng::new(0x3f);
    for case in 0..150 {
        let d = rng.pick(&[F32, F16, BF16]);
        let (n, m) = (rng.below(40) as usize, rng.below(70) as usize);
        let a = Buf::new(d, &[n, m], layout(&mut rng), || grid(&mut rng));
        let x = Buf::new(d, &[m], layout(&mut rng), || grid(&mut rng));
        let out = Buf::new(d, &[n], layout(&mut rng), || 7.0);
        let before = out.outside();
        let e = llm::mv(&a.desc(), &x.desc(), &out.desc(), rng.below(5) as i64).unwrap();
        run(&e).unwrap();
        let (av, xv, got) = (a.values(), x.values(), out.values());
        for i in 0..n {
            let dot: f64 = (0..m).map(|j| av[i * m + j] * xv[j]).sum();
            let mag: f64 = (0..m).map(|j| (av[i * m + j] * xv[j]).abs()).sum();
            let tol = mag * m as f64 * 2f64.powi(-24) + half_ulp(d, dot) * 1.01;
            assert!(
                (got[i] - dot).abs() <= tol,
                "case {case} {d} ({n}x{m}) out[{i}] = {}, want {dot} ± {tol}",
                got[i]
            );
        }
        out_unwritten(&format!("case {case}"), &before, &out);
    }
}

#[test]
fn triangular_solve_matches_torch_and_an_f64_substitution() {
    let mut rng = Rng::new(0x7501);
    let mut batch = Batch::new();
    let prog = batch.program(
        "b, A, up, tr, un = a
x, m = torch.triangular_solve(b.double(), A.double(), upper=bool(up.item()), transpose=bool(tr.item()), unitriangular=bool(un.item()))
out = [x, m]",
    );
    let mut pending = vec![];
    for case in 0..80 {
        let d = rng.pick(&[F32, F64]);
        let m = rng.below(7) as usize;
        let k = rng.below(4) as usize;
        // Batch dims that broadcast: A's and self's each 0-2 dims of 1 or 2.
        let ab: Vec<usize> = (0..rng.below(3))
            .map(|_| 1 + rng.below(2) as usize)
            .collect();
        let bb: Vec<usize> = if rng.pct(50) {
            ab.iter()
                .map(|&x| if rng.pct(30) { 1 } else { x })
                .collect()
        } else {
            vec![]
        };
        let batch_shape = crate::broadcast::broadcast_shapes(&[("A", &ab), ("b", &bb)])
            .unwrap()
            .to_vec();
        let (upper, transpose) = (rng.pct(50), rng.pct(50));
        let unit = d == F32 && rng.pct(30);
        let a_shape: Vec<usize> = ab.iter().copied().chain([m, m]).collect();
        let b_shape: Vec<usize> = bb.iter().copied().chain([m, k]).collect();
        // A well-conditioned triangle: a dominant diagonal.
        let mut c = 0usize;
        let a = Buf::new(d, &a_shape, layout(&mut rng), || {
            c += 1;
            if c.is_multiple_of(m + 2) {
                4.0 + grid(&mut rng)
            } else {
                grid(&mut rng) / 2.0
            }
        });
        let b = Buf::new(d, &b_shape, layout(&mut rng), || grid(&mut rng));
        let x_shape: Vec<usize> = batch_shape.iter().copied().chain([m, k]).collect();
        let m_shape: Vec<usize> = batch_shape.iter().copied().chain([m, m]).collect();
        let xo = Buf::new(d, &x_shape, layout(&mut rng), || 9.0);
        let mo = Buf::new(d, &m_shape, layout(&mut rng), || 9.0);
        let with_m = rng.pct(70);
        let mdesc = mo.desc();
        let e = llm::triangular_solve(
            &b.desc(),
            &a.desc(),
            upper,
            transpose,
            unit,
            &xo.desc(),
            with_m.then_some(&mdesc),
        )
        .unwrap();
        let before = (xo.outside(), mo.outside());
        run(&e).unwrap();
        out_unwritten(&format!("case {case} xOut"), &before.0, &xo);
        out_unwritten(&format!("case {case} mOut"), &before.1, &mo);
        let i = batch.case(
            prog,
            vec![
                Some(b.array()),
                Some(a.array()),
                Some(Array::int(upper as i64)),
                Some(Array::int(transpose as i64)),
                Some(Array::int(unit as i64)),
            ],
        );
        // With an empty self or A the device writes nothing, mOut included.
        let empty = m * k == 0 || batch_shape.contains(&0);
        pending.push((
            case,
            i,
            d,
            xo.values(),
            (with_m && !empty).then(|| mo.values()),
        ));
    }
    let Some(results) = batch.run("triangular_solve") else {
        return;
    };
    for (case, i, d, got_x, got_m) in pending {
        let r = results[i].as_ref().expect("torch solved it");
        let (want_x, want_m) = (r[0].to_f64s(), r[1].to_f64s());
        for (j, (g, w)) in got_x.iter().zip(&want_x).enumerate() {
            // f64: a few ulps of the solution's scale; f32: one rounding of it, plus that.
            let tol = w.abs().max(1.0) * 1e-12 + half_ulp(d, *w) * 1.01;
            assert!(
                (g.is_nan() && w.is_nan()) || g == w || (g - w).abs() <= tol,
                "case {case} {d}: x[{j}] = {g}, torch (f64) {w}"
            );
        }
        if let Some(gm) = got_m {
            assert_eq!(gm, want_m, "case {case}: mOut is A broadcast");
        }
    }
}

/// The element-wise rules of several tensors against torch, bit for bit.
#[test]
fn ger_addcdiv_addcmul_sum_match_torch() {
    let mut rng = Rng::new(0xadd);
    let mut batch = Batch::new();
    let ger = batch.program("x, y, o = a\np = torch.promote_types(x.dtype, y.dtype)\nout = torch.outer(x.to(p), y.to(p)).to(o.dtype)");
    let addc = batch.program(
        "s, t1, t2, v, o, div = a
p = torch.promote_types(s.dtype, torch.promote_types(t1.dtype, t2.dtype))
c = torch.float32 if p in (torch.float16, torch.bfloat16) else p
v = v.item()
f = torch.addcdiv if div.item() else torch.addcmul
out = f(s.to(p).to(c), t1.to(p).to(c), t2.to(p).to(c), value=v).to(p).to(o.dtype)",
    );
    let sum = batch.program(
        "*ts, o = a
p = ts[0].dtype
for t in ts[1:]:
    p = torch.promote_types(p, t.dtype)
c = torch.float32 if p.is_floating_point else torch.int64
ts = [t.to(p).to(c) for t in ts]
shape = torch.broadcast_shapes(*[t.shape for t in ts])
ts = [t.expand(shape) for t in ts]
while len(ts) >= 16:
    tail = ts[-16:]
    ts = ts[:-16]
    acc = tail[0].clone()
    for t in tail[1:]:
        acc = acc + t
    ts.append(acc)
acc = ts[0].clone()
for t in ts[1:]:
    acc = acc + t
out = acc.to(o.dtype)",
    );
    let mut pending: Vec<(String, usize, Buf)> = vec![];
    let shape3 = |rng: &mut Rng| -> Vec<usize> {
        (0..rng.below(4)).map(|_| rng.below(4) as usize).collect()
    };
    // A shape that broadcasts to `s`: some dims 1, some leading dims dropped.
    let part = |rng: &mut Rng, s: &[usize]| -> Vec<usize> {
        let drop = rng.below(s.len() as u64 + 1) as usize;
        s[drop..]
            .iter()
            .map(|&x| if rng.pct(30) { 1 } else { x })
            .collect()
    };
    for case in 0..60 {
        // Ger
        let (dx, dy) = (
            rng.pick(llm::linalg::GER_TESTED),
            rng.pick(llm::linalg::GER_TESTED),
        );
        let p = crate::dtype::promote(dx, dy).unwrap();
        let (n, m) = (rng.below(5) as usize, rng.below(5) as usize);
        let x = Buf::new(dx, &[n], layout(&mut rng), || grid(&mut rng) * 8.0);
        let y = Buf::new(dy, &[m], layout(&mut rng), || grid(&mut rng) * 8.0);
        let o = Buf::new(p, &[n, m], layout(&mut rng), || 5.0);
        let before = o.outside();
        run(&llm::ger(&x.desc(), &y.desc(), &o.desc()).unwrap()).unwrap();
        out_unwritten(&format!("ger {case}"), &before, &o);
        let i = batch.case(ger, vec![Some(x.array()), Some(y.array()), Some(o.array())]);
        pending.push((format!("ger {case} {dx} {dy}"), i, o));

        // Addcdiv / Addcmul, out or in place
        let div = rng.pct(50);
        let list = if div {
            llm::pointwise::ADDCDIV_TESTED
        } else {
            llm::pointwise::ADDCMUL_TESTED
        };
        let full = shape3(&mut rng);
        let (d0, d1, d2) = (rng.pick(list), rng.pick(list), rng.pick(list));
        let inplace = rng.pct(30);
        let s_shape = if inplace {
            full.clone()
        } else {
            part(&mut rng, &full)
        };
        let s = Buf::new(d0, &s_shape, layout(&mut rng), || grid(&mut rng));
        let t1 = Buf::new(d1, &part(&mut rng, &full), layout(&mut rng), || {
            grid(&mut rng)
        });
        let t2 = Buf::new(d2, &part(&mut rng, &full), layout(&mut rng), || {
            let v = grid(&mut rng);
            if v == 0.0 {
                0.75
            } else {
                v
            }
        });
        let p = crate::dtype::promote(d0, crate::dtype::promote(d1, d2).unwrap()).unwrap();
        let out_shape = crate::broadcast::broadcast_shapes(&[
            ("s", &s.shape),
            ("t1", &t1.shape),
            ("t2", &t2.shape),
        ])
        .unwrap()
        .to_vec();
        if inplace && out_shape != s.shape {
            continue;
        }
        let value = rng.pick(&[1.0, 0.5, -2.25, 3.0]);
        let vs = Scalar::from_value(value as f32);
        let inputs = vec![
            Some(s.array()),
            Some(t1.array()),
            Some(t2.array()),
            Some(Array::f64s(&[1], &[value])),
        ];
        let o = if inplace {
            let (sd, t1d, t2d) = (s.desc(), t1.desc(), t2.desc());
            let e = if div {
                llm::inplace_addcdiv(&sd, &t1d, &t2d, &vs)
            } else {
                llm::inplace_addcmul(&sd, &t1d, &t2d, &vs)
            };
            if p != d0 && !crate::dtype::can_cast(p, d0) {
                assert!(e.is_err());
                continue;
            }
            run(&e.unwrap()).unwrap();
            s
        } else {
            let o = Buf::new(p, &out_shape, layout(&mut rng), || 5.0);
            let before = o.outside();
            let (sd, t1d, t2d, od) = (s.desc(), t1.desc(), t2.desc(), o.desc());
            let e = if div {
                llm::addcdiv(&sd, &t1d, &t2d, &vs, &od)
            } else {
                llm::addcmul(&sd, &t1d, &t2d, &vs, &od)
            };
            run(&e.unwrap()).unwrap();
            out_unwritten(&format!("addc {case}"), &before, &o);
            o
        };
        if div && !p.is_float() {
            continue; // torch refuses integer addcdiv
        }
        let mut inputs = inputs;
        inputs.push(Some(o.array()));
        inputs.push(Some(Array::int(div as i64)));
        let i = batch.case(addc, inputs);
        pending.push((
            format!(
                "addc{} {case} {d0} {d1} {d2} inplace {inplace}",
                if div { "div" } else { "mul" }
            ),
            i,
            o,
        ));

        // Sum of 1..20 tensors
        let many = rng.pct(20);
        let count = 1 + rng.below(if many { 20 } else { 4 }) as usize;
        let full = shape3(&mut rng);
        let d = rng.pick(llm::pointwise::SUM);
        let ts: Vec<Buf> = (0..count)
            .map(|_| {
                let sh = part(&mut rng, &full);
                Buf::new(
                    if rng.pct(80) {
                        d
                    } else {
                        rng.pick(llm::pointwise::SUM)
                    },
                    &sh,
                    layout(&mut rng),
                    || grid(&mut rng) * 3.0,
                )
            })
            .collect();
        let mut p = ts[0].d;
        for t in &ts[1..] {
            p = crate::dtype::promote(p, t.d).unwrap();
        }
        if !llm::pointwise::SUM.contains(&p) {
            continue;
        }
        let shapes: Vec<(&str, &[usize])> = ts.iter().map(|t| ("t", &t.shape[..])).collect();
        let out_shape = crate::broadcast::broadcast_shapes(&shapes)
            .unwrap()
            .to_vec();
        let o = Buf::new(p, &out_shape, layout(&mut rng), || 5.0);
        let before = o.outside();
        let descs: Vec<TensorDesc> = ts.iter().map(|t| t.desc()).collect();
        let refs: Vec<&TensorDesc> = descs.iter().collect();
        run(&llm::sum(&refs, &o.desc()).unwrap()).unwrap();
        out_unwritten(&format!("sum {case}"), &before, &o);
        let mut inputs: Vec<Option<Array>> = ts.iter().map(|t| Some(t.array())).collect();
        inputs.push(Some(o.array()));
        let i = batch.case(sum, inputs);
        pending.push((format!("sum {case} of {count}"), i, o));
    }
    expect_torch_bytes(&batch, "ger/addcdiv/addcmul/sum", pending);
}

impl Array {
    /// The elements as f64, any real dtype (for messages).
    fn to_f64s_any(&self) -> Vec<f64> {
        (0..self.numel())
            .map(|i| {
                Scalar::from_bytes(self.dtype, self.elem(i))
                    .cast(F64)
                    .get::<f64>()
            })
            .collect()
    }
}

fn f32_buf(shape: &[usize]) -> Buf {
    Buf::new(F32, shape, Layout::Contiguous, || 1.0)
}

fn message(r: crate::Result<Executor>) -> String {
    match r {
        Ok(_) => panic!("accepted"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn llm_linalg_errors_name_the_problem() {
    let (a, x, o) = (f32_buf(&[3, 4]), f32_buf(&[4]), f32_buf(&[3]));
    let h = Buf::new(F16, &[4], Layout::Contiguous, || 1.0);
    assert!(message(llm::mv(&a.desc(), &h.desc(), &o.desc(), 0)).contains("must be the same"));
    assert!(message(llm::mv(&a.desc(), &x.desc(), &o.desc(), 5)).contains("cubeMathType 5"));
    assert!(message(llm::mv(&a.desc(), &o.desc(), &o.desc(), 0)).contains("vec has shape [3]"));
    let d = Buf::new(F64, &[4], Layout::Contiguous, || 1.0);
    assert!(message(llm::mv(
        &Buf::new(F64, &[3, 4], Layout::Contiguous, || 1.0).desc(),
        &d.desc(),
        &Buf::new(F64, &[3], Layout::Contiguous, || 1.0).desc(),
        0
    ))
    .contains("ACL_DOUBLE"));
    assert!(message(llm::ger(&x.desc(), &o.desc(), &f32_buf(&[3, 4]).desc())).contains("[4, 3]"));
    let bf = Buf::new(BF16, &[4], Layout::Contiguous, || 1.0);
    assert!(
        message(llm::ger(&bf.desc(), &x.desc(), &f32_buf(&[4, 4]).desc())).contains("ACL_BF16")
    );
    let sq = f32_buf(&[3, 3]);
    let b = f32_buf(&[3, 2]);
    assert!(message(llm::triangular_solve(
        &b.desc(),
        &a.desc(),
        true,
        false,
        false,
        &b.desc(),
        None
    ))
    .contains("square"));
    assert!(message(llm::triangular_solve(
        &b.desc(),
        &sq.desc(),
        true,
        false,
        false,
        &f32_buf(&[2, 3]).desc(),
        None
    ))
    .contains("xOut has shape [2, 3]"));
    let b64 = Buf::new(F64, &[3, 2], Layout::Contiguous, || 1.0);
    let s64 = Buf::new(F64, &[3, 3], Layout::Contiguous, || 1.0);
    assert!(message(llm::triangular_solve(
        &b64.desc(),
        &s64.desc(),
        true,
        false,
        true,
        &b64.desc(),
        None
    ))
    .contains("unitriangular"));
    assert!(message(llm::triangular_solve(
        &b64.desc(),
        &sq.desc(),
        true,
        false,
        false,
        &b64.desc(),
        None
    ))
    .contains("must be self's dtype"));
    let c = Buf::new(C64, &[3, 3], Layout::Contiguous, || 1.0);
    assert!(message(llm::triangular_solve(
        &c.desc(),
        &c.desc(),
        true,
        false,
        false,
        &c.desc(),
        None
    ))
    .contains("not implemented"));
    let t = f32_buf(&[2, 3]);
    let one = Scalar::from_value(1.0f32);
    assert!(message(llm::addcdiv(
        &t.desc(),
        &t.desc(),
        &f32_buf(&[4]).desc(),
        &one,
        &t.desc()
    ))
    .contains("broadcast"));
    let s8 = Buf::new(S8, &[2, 3], Layout::Contiguous, || 1.0);
    assert!(message(llm::addcdiv(
        &s8.desc(),
        &t.desc(),
        &t.desc(),
        &one,
        &t.desc()
    ))
    .contains("ACL_INT8"));
    assert!(message(llm::sum(&[], &t.desc())).contains("empty list"));
    assert!(message(llm::sum(
        &[
            &t.desc(),
            &Buf::new(F64, &[3], Layout::Contiguous, || 1.0).desc()
        ],
        &t.desc()
    ))
    .contains("tensors[1]"));
}

#[test]
fn rotary_position_embedding_matches_the_formula_in_torch() {
    let mut rng = Rng::new(0x40be);
    let mut batch = Batch::new();
    let prog = batch.program(
        "x, c, s, mode, o = a
xf, cf, sf = x.float(), c.float(), s.float()
m = mode.item()
D = xf.shape[-1]
f = xf
if m == 0:
    r = torch.cat((-xf[..., D // 2:], xf[..., :D // 2]), -1)
elif m == 1:
    r = torch.stack((-xf[..., 1::2], xf[..., ::2]), -1).reshape(xf.shape)
elif m == 2:
    q = D // 4
    r = torch.cat((-xf[..., q:2 * q], xf[..., :q], -xf[..., 3 * q:], xf[..., 2 * q:3 * q]), -1)
else:
    x1, x2 = xf[..., ::2], xf[..., 1::2]
    f = torch.cat((x1, x2), -1)
    r = torch.cat((-x2, x1), -1)
out = (f * cf + r * sf).to(o.dtype)",
    );
    let mut pending = vec![];
    for case in 0..80 {
        let d = rng.pick(&[F32, F16, BF16]);
        let mode = rng.below(4) as i64;
        let dd = 4 * (1 + rng.below(6) as usize);
        let x_shape: Vec<usize> = (0..3)
            .map(|_| 1 + rng.below(3) as usize)
            .chain([dd])
            .collect();
        let cs_shape: Vec<usize> = (0..3)
            .map(|i| if rng.pct(50) { 1 } else { x_shape[i] })
            .chain([dd])
            .collect();
        let x = Buf::new(d, &x_shape, layout(&mut rng), || grid(&mut rng));
        let c = Buf::new(d, &cs_shape, layout(&mut rng), || grid(&mut rng) / 2.0);
        let s = Buf::new(d, &cs_shape, layout(&mut rng), || grid(&mut rng) / 2.0);
        let inputs = vec![
            Some(x.array()),
            Some(c.array()),
            Some(s.array()),
            Some(Array::int(mode)),
        ];
        let inplace = rng.pct(25);
        let o = if inplace {
            let xd = x.desc();
            run(&llm::rotary_position_embedding(&xd, &c.desc(), &s.desc(), mode, &xd).unwrap())
                .unwrap();
            x
        } else {
            let o = Buf::new(d, &x_shape, layout(&mut rng), || 3.0);
            let before = o.outside();
            run(
                &llm::rotary_position_embedding(&x.desc(), &c.desc(), &s.desc(), mode, &o.desc())
                    .unwrap(),
            )
            .unwrap();
            out_unwritten(&format!("rope {case}"), &before, &o);
            o
        };
        let mut inputs = inputs;
        inputs.push(Some(o.array()));
        let i = batch.case(prog, inputs);
        pending.push((
            format!("rope {case} {d} mode {mode} x {x_shape:?} cos {cs_shape:?} inplace {inplace}"),
            i,
            o,
        ));
    }
    expect_torch_bytes(&batch, "rotary_position_embedding", pending);
}

#[test]
fn rotary_position_embedding_errors_name_the_problem() {
    let x = f32_buf(&[1, 2, 2, 8]);
    let c = f32_buf(&[1, 2, 1, 8]);
    let rope = |x: &Buf, c: &Buf, mode: i64, o: &Buf| {
        message(llm::rotary_position_embedding(
            &x.desc(),
            &c.desc(),
            &c.desc(),
            mode,
            &o.desc(),
        ))
    };
    assert!(rope(&x, &c, 4, &x).contains("mode 4"));
    assert!(rope(&x, &f32_buf(&[2, 2, 1, 8]), 0, &x).contains("do not fit"));
    assert!(rope(&x, &c, 0, &f32_buf(&[1, 2, 2, 4])).contains("out has shape"));
    let x6 = f32_buf(&[1, 1, 1, 6]);
    assert!(rope(&x6, &f32_buf(&[1, 1, 1, 6]), 2, &x6).contains("multiple of 4"));
    let h = Buf::new(F16, &[1, 2, 1, 8], Layout::Contiguous, || 1.0);
    assert!(rope(&x, &h, 0, &x).contains("must be the same"));
    assert!(rope(&f32_buf(&[2, 8]), &f32_buf(&[2, 8]), 0, &f32_buf(&[2, 8])).contains("4 dims"));
}

/// `v` rounded to f16/bf16.
pub(super) fn round_half(d: DType, v: f64) -> f64 {
    Scalar::from_value(v).cast(d).cast(F64).get::<f64>()
}

#[test]
fn weight_quant_batch_matmul_v2_matches_an_f64_product() {
    let mut rng = Rng::new(0x98);
    for case in 0..120 {
        let d = rng.pick(&[F16, BF16]);
        let (m, k, n) = (
            1 + rng.below(9) as usize,
            1 + rng.below(150) as usize,
            1 + rng.below(40) as usize,
        );
        // Per tensor, per channel (1-D or 2-D) or per group of 32·j rows.
        let kind = rng.below(4);
        let group = if kind == 3 && k > 32 {
            32 * (1 + rng.below(((k - 1) / 32) as u64) as usize)
        } else {
            0
        };
        let s_shape: Vec<usize> = match (kind, group) {
            (_, g) if g > 0 => vec![k.div_ceil(g), n],
            (0, _) => vec![1],
            (1, _) => vec![1, n],
            _ => vec![n],
        };
        let x = Buf::new(d, &[m, k], layout(&mut rng), || grid(&mut rng));
        // ggml's Q8_0 weight: the (n, k) rows seen as a (k, n) view.
        let w = Buf::new(S8, &[k, n], layout(&mut rng), || {
            rng.below(256) as f64 - 128.0
        });
        let sc = Buf::new(d, &s_shape, layout(&mut rng), || {
            (1 + rng.below(64)) as f64 / 512.0
        });
        let off = rng
            .pct(40)
            .then(|| Buf::new(d, &s_shape, layout(&mut rng), || rng.below(16) as f64 - 8.0));
        let bias_shape = if rng.pct(50) { vec![n] } else { vec![1, n] };
        let bias = rng.pct(40).then(|| {
            Buf::new(
                if d == BF16 { F32 } else { F16 },
                &bias_shape,
                layout(&mut rng),
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
            &w.desc(),
            &sc.desc(),
            od.as_ref(),
            None,
            None,
            bd.as_ref(),
            group as i64,
            &y.desc(),
        )
        .unwrap_or_else(|e| panic!("case {case}: {e}"));
        run(&e).unwrap();
        out_unwritten(&format!("wqbmm {case}"), &before, &y);
        let ov = off.as_ref().map(|o| o.values());
        let bv = bias.as_ref().map(|b| b.values());
        let what = format!("case {case} {d} group {group} scale {s_shape:?}");
        let dims = (m, k, n, group);
        let (xv, wv, sv) = (x.values(), w.values(), sc.values());
        check_wqbmm(&what, d, dims, (&xv, &wv, &sv), (&ov, &bv), &y.values());
    }
}

/// y of WeightQuantBatchMatmulV2 (m, n) against the f64 product of x with the weight
/// dequantized as the device rounds it ((w + offset)·scale rounded to x's dtype `d`), within
/// k·2^-24 of Σ|terms| plus half an ulp of y. Scale/offset per tensor (one value), per
/// channel, or per group of `group` rows.
#[allow(clippy::type_complexity)]
pub(super) fn check_wqbmm(
    what: &str,
    d: DType,
    (m, k, n, group): (usize, usize, usize, usize),
    (xv, wv, sv): (&[f64], &[f64], &[f64]),
    (ov, bv): (&Option<Vec<f64>>, &Option<Vec<f64>>),
    got: &[f64],
) {
    let p = |i: usize, j: usize| match (group, sv.len()) {
        (g, _) if g > 0 => (i / g) * n + j,
        (_, 1) => 0,
        _ => j,
    };
    for r in 0..m {
        for j in 0..n {
            let terms: Vec<f64> = (0..k)
                .map(|i| {
                    let o = ov.as_ref().map_or(0.0, |o| o[p(i, j)]);
                    xv[r * k + i] * round_half(d, (wv[i * n + j] + o) * sv[p(i, j)])
                })
                .collect();
            let want = terms.iter().sum::<f64>() + bv.as_ref().map_or(0.0, |b| b[j]);
            let mag: f64 = terms.iter().map(|t| t.abs()).sum();
            let tol = mag * (k + 1) as f64 * 2f64.powi(-24) + half_ulp(d, want) * 1.01;
            let g = got[r * n + j];
            assert!(
                (g - want).abs() <= tol,
                "{what} {m}x{k}x{n}: y[{r}][{j}] = {g}, want {want} ± {tol}"
            );
        }
    }
}

#[test]
fn weight_quant_batch_matmul_v2_errors_name_the_problem() {
    let h = |shape: &[usize]| Buf::new(F16, shape, Layout::Contiguous, || 1.0);
    let (x, w, y) = (
        h(&[2, 64]),
        Buf::new(S8, &[64, 8], Layout::Contiguous, || 1.0),
        h(&[2, 8]),
    );
    let call = |x: &Buf, w: &Buf, s: &Buf, g: i64, y: &Buf| {
        message(llm::weight_quant_batch_matmul_v2(
            &x.desc(),
            &w.desc(),
            &s.desc(),
            None,
            None,
            None,
            None,
            g,
            &y.desc(),
        ))
    };
    assert!(call(&x, &w, &h(&[3]), 0, &y).contains("per channel"));
    assert!(call(&x, &w, &h(&[2, 8]), 48, &y).contains("antiquantGroupSize 48"));
    assert!(call(&x, &w, &h(&[3, 8]), 32, &y).contains("[2, 8]"));
    assert!(call(&x, &w, &h(&[8]), 64, &y).contains("k-1"));
    assert!(call(
        &x,
        &Buf::new(S8, &[32, 8], Layout::Contiguous, || 1.0),
        &h(&[8]),
        0,
        &y
    )
    .contains("reduce dim"));
    assert!(call(
        &x,
        &Buf::new(S32, &[64, 2], Layout::Contiguous, || 1.0),
        &h(&[16]),
        0,
        &y
    )
    .contains("[2, 16]")); // an INT32 weight carries eight int4 an element
    let bf = Buf::new(BF16, &[8], Layout::Contiguous, || 1.0);
    assert!(call(&x, &w, &bf, 0, &y).contains("must be the same"));
    let q = f32_buf(&[8]);
    let r = llm::weight_quant_batch_matmul_v2(
        &x.desc(),
        &w.desc(),
        &h(&[8]).desc(),
        None,
        None,
        Some(&q.desc()),
        None,
        0,
        &y.desc(),
    );
    assert!(message(r).contains("quantScaleOptional is NULL"));
    let b32 = f32_buf(&[8]);
    let r = llm::weight_quant_batch_matmul_v2(
        &x.desc(),
        &w.desc(),
        &h(&[8]).desc(),
        None,
        None,
        None,
        Some(&b32.desc()),
        0,
        &y.desc(),
    );
    assert!(message(r).contains("must be ACL_FLOAT16"));
}

/// FusedInferAttentionScoreV2 with what these tests vary; the rest as llama.cpp passes it
/// (no pseShift, quantization or softmaxLse; scale 0.5; preTokens/nextTokens 65535,
/// ignored without a mask in sparseMode 0; innerPrecise 0).
#[allow(clippy::too_many_arguments)]
fn fia(
    q: &TensorDesc,
    k: &TensorDesc,
    v: &TensorDesc,
    mask: Option<&TensorDesc>,
    q_len: Option<&[i64]>,
    kv_len: Option<&[i64]>,
    table: Option<&TensorDesc>,
    n: i64,
    nkv: i64,
    layout: &str,
    sparse: i64,
    block_size: i64,
    out: &TensorDesc,
) -> crate::Result<Executor> {
    llm::fused_infer_attention_score_v2(
        q,
        &[k],
        &[v],
        None,
        mask,
        q_len,
        kv_len,
        table,
        &[],
        n,
        0.5,
        65535,
        65535,
        layout,
        nkv,
        sparse,
        0,
        block_size,
        false,
        out,
        None,
    )
}

#[test]
fn fused_infer_attention_score_v2_refuses_what_it_does_not_implement() {
    let h = |shape: &[usize]| Buf::new(F16, shape, Layout::Contiguous, || 1.0);
    let (q, k) = (h(&[1, 2, 2, 8]), h(&[1, 3, 2, 8]));
    let (qd, kd) = (q.desc(), k.desc());
    let call = |unsup: &[(&str, bool)], layout: &str, sparse: i64, n: i64, nkv: i64| {
        message(llm::fused_infer_attention_score_v2(
            &qd,
            &[&kd],
            &[&kd],
            None,
            None,
            None,
            None,
            None,
            unsup,
            n,
            0.5,
            0,
            0,
            layout,
            nkv,
            sparse,
            0,
            0,
            false,
            &qd,
            None,
        ))
    };
    assert!(call(
        &[("blockTableOptional (paged KV cache)", true)],
        "BSND",
        0,
        2,
        2
    )
    .contains("blockTableOptional"));
    assert!(call(&[], "TND", 0, 2, 2).contains("\"TND\" is not implemented"));
    assert!(call(&[], "XYZ", 0, 2, 2).contains("not one of"));
    assert!(call(&[], "BSND", 5, 2, 2).contains("sparseMode 5"));
    assert!(call(&[], "BSND", 2, 2, 2).contains("needs attenMaskOptional"));
    assert!(call(&[], "BSND", 0, 3, 2).contains("numKeyValueHeads"));
    assert!(call(&[], "BSND", 0, 4, 4).contains("heads but numHeads"));
    let r = llm::fused_infer_attention_score_v2(
        &qd,
        &[&kd],
        &[&kd],
        None,
        None,
        None,
        None,
        None,
        &[],
        2,
        0.5,
        0,
        0,
        "BSND",
        2,
        0,
        0,
        0,
        true,
        &qd,
        None,
    );
    assert!(message(r).contains("softmaxLse is NULL"));
    let m = Buf::new(Bool, &[2, 2], Layout::Contiguous, || 0.0);
    let r = fia(
        &qd,
        &kd,
        &kd,
        Some(&m.desc()),
        None,
        None,
        None,
        2,
        2,
        "BSND",
        0,
        0,
        &qd,
    );
    assert!(message(r).contains("attenMaskOptional has shape [2, 2]"));
    let r = fia(
        &qd,
        &kd,
        &kd,
        None,
        Some(&[5]),
        None,
        None,
        2,
        2,
        "BSND",
        0,
        0,
        &qd,
    );
    assert!(message(r).contains("actualSeqLengthsOptional[0] = 5"));
}

#[test]
fn recurrent_gated_delta_rule_is_declared_and_refused() {
    let b = |shape: &[usize]| Buf::new(BF16, shape, Layout::Contiguous, || 0.0);
    let i = |shape: &[usize]| Buf::new(S32, shape, Layout::Contiguous, || 0.0);
    let (q, v, beta, st, out) = (
        b(&[2, 1, 4]),
        b(&[2, 1, 4]),
        b(&[2, 1]),
        b(&[2, 1, 4, 4]),
        b(&[2, 1, 4]),
    );
    let (len, idx, acc) = (i(&[1]), i(&[2]), i(&[1]));
    let r = llm::recurrent_gated_delta_rule(
        &q.desc(),
        &q.desc(),
        &v.desc(),
        &beta.desc(),
        &st.desc(),
        &len.desc(),
        &idx.desc(),
        None,
        None,
        &acc.desc(),
        0.5,
        &out.desc(),
    );
    assert!(message(r).contains("not implemented"));
}

/// A paged cache (blocks gathered by blockTable) gives what the same keys and values
/// laid out per batch give, bit for bit (that path is checked against torch above).
#[test]
fn fused_infer_attention_score_v2_paged_cache_matches_the_gathered_cache() {
    let mut rng = Rng::new(0xb10c);
    for case in 0..12 {
        let d = rng.pick(&[F16, BF16]);
        let (b, nkv, dd) = (
            1 + rng.below(2) as usize,
            1 + rng.below(2) as usize,
            1 + rng.below(8) as usize,
        );
        let n = nkv * (1 + rng.below(2) as usize);
        let s = if case % 2 == 0 { 1 } else { 2 };
        let bs = if s == 1 {
            1 + rng.below(8) as usize
        } else {
            128
        };
        let max_blocks = 1 + rng.below(3) as usize;
        let block_num = b * max_blocks + 1;
        let skv = bs * max_blocks;
        let kl: Vec<i64> = (0..b).map(|_| 1 + rng.below(skv as u64) as i64).collect();
        // Block ids: a shuffle of 0..block_num.
        let mut ids: Vec<usize> = (0..block_num).collect();
        for i in (1..ids.len()).rev() {
            ids.swap(i, rng.below(i as u64 + 1) as usize);
        }
        let table_vals: Vec<f64> = (0..b * max_blocks).map(|i| ids[i] as f64).collect();
        let mut ti = 0;
        let table = Buf::new(S32, &[b, max_blocks], Layout::Contiguous, || {
            ti += 1;
            table_vals.get(ti - 1).copied().unwrap_or(0.0)
        });
        let h = nkv * dd;
        let kc = Buf::new(d, &[block_num, bs, h], layout(&mut rng), || grid(&mut rng));
        let vc = Buf::new(d, &[block_num, bs, h], layout(&mut rng), || grid(&mut rng));
        // The same keys and values per batch, (B, Skv, KV_N, D).
        let gathered = |c: &Buf| -> Buf {
            let cv = c.values();
            let mut k = 0;
            let mut vals = vec![0.0; b * skv * h];
            for bi in 0..b {
                for t in 0..skv {
                    let id = ids[bi * max_blocks + t / bs];
                    for x in 0..h {
                        vals[(bi * skv + t) * h + x] = cv[(id * bs + t % bs) * h + x];
                    }
                }
            }
            Buf::new(d, &[b, skv, nkv, dd], Layout::Contiguous, || {
                k += 1;
                vals.get(k - 1).copied().unwrap_or(0.0)
            })
        };
        let (kg, vg) = (gathered(&kc), gathered(&vc));
        let q = Buf::new(d, &[b, s, n, dd], layout(&mut rng), || grid(&mut rng));
        let o1 = Buf::new(d, &[b, s, n, dd], Layout::Contiguous, || 0.0);
        let o2 = Buf::new(d, &[b, s, n, dd], Layout::Contiguous, || 0.0);
        let (qd, kcd, vcd, kgd, vgd, td) = (
            q.desc(),
            kc.desc(),
            vc.desc(),
            kg.desc(),
            vg.desc(),
            table.desc(),
        );
        let paged = fia(
            &qd,
            &kcd,
            &vcd,
            None,
            None,
            Some(&kl),
            Some(&td),
            n as i64,
            nkv as i64,
            "BSND",
            0,
            bs as i64,
            &o1.desc(),
        )
        .unwrap_or_else(|e| panic!("case {case}: {e}"));
        run(&paged).unwrap();
        let flat = fia(
            &qd,
            &kgd,
            &vgd,
            None,
            None,
            Some(&kl),
            None,
            n as i64,
            nkv as i64,
            "BSND",
            0,
            0,
            &o2.desc(),
        )
        .unwrap();
        run(&flat).unwrap();
        assert_eq!(
            o1.values(),
            o2.values(),
            "case {case}: b {b} n {n}/{nkv} s {s} block {bs} x {max_blocks} kv {kl:?}"
        );
    }
    // A block id outside the cache is refused at run time, not read.
    let h = |shape: &[usize]| Buf::new(F16, shape, Layout::Contiguous, || 1.0);
    let (q, c, o) = (h(&[1, 1, 1, 4]), h(&[2, 4, 4]), h(&[1, 1, 1, 4]));
    let t = Buf::new(S32, &[1, 1], Layout::Contiguous, || 7.0);
    let e = fia(
        &q.desc(),
        &c.desc(),
        &c.desc(),
        None,
        None,
        Some(&[3]),
        Some(&t.desc()),
        1,
        1,
        "BSND",
        0,
        4,
        &o.desc(),
    )
    .unwrap();
    assert!(run(&e)
        .unwrap_err()
        .to_string()
        .contains("blockTableOptional[0][0] = 7"));
    let e = fia(
        &q.desc(),
        &c.desc(),
        &c.desc(),
        None,
        None,
        None,
        Some(&t.desc()),
        1,
        1,
        "BSND",
        0,
        4,
        &o.desc(),
    );
    assert!(message(e).contains("needs actualSeqLengthsKvOptional"));
}
