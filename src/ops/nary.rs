//! Operators over a list of tensors, element by element: MaxN, MinN (the largest/smallest
//! of the members, broadcast to out) and AddN (their sum, equal shapes).
//!
//! Each is a chain of the binary operator's steps into out, run as one operator
//! (`executor::Sequence`): out = op(t₀, t₁) (or t₀ copied when it alone does not have
//! out's shape), then out = op(out, tₖ) for each further member, in list order. Max and
//! min are exact, so their chains give the element-wise extreme whatever the order; AddN
//! rounds to out's dtype after each addition, as ((t₀ + t₁) + t₂) + … with torch.add (f16
//! and bf16 add in f32 and round each partial sum).
//!
//! A member that overlaps out (out passed as one of the tensors) is read before out is
//! first written: such members are taken first, and at most two of them are accepted.

use super::add::{self, Sign};
use super::binary::{self, Compute, Dtypes, Operand};
use super::catalog::Entry;
use super::copy::convert_into;
use super::elementwise::{self as ew, Arg};
use crate::dtype::DType;
use crate::error::Result;
use crate::executor::{Bindings, Executor, ListParam, Nothing, Sequence};
use crate::scalar::Scalar;
use crate::tensor::TensorDesc;

use DType::*;
/// aclnnMaxN.md / aclnnMinN.md.
const EXTREME: &[DType] = &[F16, F32, S8, S32, S64, BF16];
/// aclnnAddN.md.
const ADDN: &[DType] = &[S32, S64, F16, BF16, F32];

fn overlaps(a: &TensorDesc, b: &TensorDesc) -> bool {
    match (a.byte_span(), b.byte_span()) {
        (Some((a0, a1)), Some((b0, b1))) => a0 <= b1 && b0 <= a1,
        _ => false,
    }
}

/// The chain `out = step(out-or-member, member)` over `tensors` (checked by the caller).
fn chain(
    api: &'static str,
    tensors: &[&TensorDesc],
    out: &TensorDesc,
    dtypes: &Dtypes,
    compute: &dyn Fn(DType) -> Result<Compute>,
) -> Result<Executor> {
    let n = tensors.len();
    let mut views: Vec<Option<TensorDesc>> = tensors.iter().map(|t| Some((*t).clone())).collect();
    views.push(Some(out.clone()));
    let bindings = Bindings {
        tensors: std::sync::Arc::new(views),
        n_inputs: n,
        outputs: smallvec::smallvec![n],
    };
    let lists = vec![ListParam {
        output: false,
        ir_index: 0,
        any_index: 0,
        first: 0,
        len: n,
    }];
    if out.is_empty() {
        let mut e = Executor::new(api, bindings, Nothing);
        e.lists = lists;
        return Ok(e);
    }
    // Members overlapping out first (stable: list order otherwise).
    let mut order: Vec<usize> = (0..n).filter(|&i| overlaps(tensors[i], out)).collect();
    crate::ensure!(
        order.len() <= 2,
        "{} of the tensors overlap out; {api} accepts at most two",
        order.len()
    );
    let n_over = order.len();
    order.extend((0..n).filter(|&i| !overlaps(tensors[i], out)));
    let mut seq = Sequence::new();
    let (a, b) = (order[0], order.get(1).copied());
    let pair_fills_out = b.is_some_and(|b| {
        crate::broadcast::broadcast_shapes(&[("a", &tensors[a].shape), ("b", &tensors[b].shape)])
            .is_ok_and(|s| s[..] == out.shape[..])
    });
    let mut next = 1;
    if pair_fills_out || n_over == 2 {
        let b = b.unwrap();
        crate::ensure!(
            pair_fills_out,
            "tensors[{a}] and tensors[{b}] overlap out but do not broadcast to out's shape {:?}",
            out.shape
        );
        let step = binary::build(
            api,
            dtypes,
            Operand::Tensor("tensors", tensors[a]),
            Operand::Tensor("tensors", tensors[b]),
            Some(("out", out)),
            compute,
        )?;
        seq.push(step, &[a, b, n]);
        next = 2;
    } else {
        let step = convert_into(api, Arg::Tensor("tensors", tensors[a]), "out", out)?;
        seq.push(step, &[a, n]);
    }
    for &k in &order[next..] {
        let step = binary::build(
            api,
            dtypes,
            Operand::Tensor("out", out),
            Operand::Tensor("tensors", tensors[k]),
            Some(("out", out)),
            compute,
        )?;
        seq.push(step, &[n, k, n]);
    }
    let mut e = Executor::new(api, bindings, seq);
    e.lists = lists;
    Ok(e)
}

/// The common checks: a non-empty list, every member and out of one supported dtype, at
/// most 8 dims, out of the members' broadcast shape (`broadcast`) or of their one shape.
fn check_list(
    tensors: &[&TensorDesc],
    out: &TensorDesc,
    allowed: &[DType],
    broadcast: bool,
) -> Result<()> {
    crate::ensure!(
        !tensors.is_empty(),
        "tensors is empty: it needs at least one tensor"
    );
    ew::check_tensor("out", out, allowed)?;
    for (i, t) in tensors.iter().enumerate() {
        ew::check_tensor(&format!("tensors[{i}]"), t, allowed)?;
        crate::ensure!(
            t.dtype == out.dtype,
            "tensors[{i}] has dtype {} but must have out's dtype {}",
            t.dtype,
            out.dtype
        );
        crate::ensure!(
            t.rank() <= 8,
            "tensors[{i}] has {} dims; at most 8 are supported",
            t.rank()
        );
    }
    crate::ensure!(
        out.rank() <= 8,
        "out has {} dims; at most 8 are supported",
        out.rank()
    );
    if broadcast {
        let named: Vec<(String, &[usize])> = tensors
            .iter()
            .enumerate()
            .map(|(i, t)| (format!("tensors[{i}]"), &t.shape[..]))
            .collect();
        let refs: Vec<(&str, &[usize])> = named.iter().map(|(n, s)| (n.as_str(), *s)).collect();
        let shape = crate::broadcast::broadcast_shapes(&refs)?;
        ew::check_result_shape("out", out, &shape)?;
    } else {
        for (i, t) in tensors.iter().enumerate() {
            crate::ensure!(
                t.shape == tensors[0].shape,
                "tensors[{i}] has shape {:?} but tensors[0] has {:?}: AddN takes tensors of one shape",
                t.shape,
                tensors[0].shape
            );
        }
        ew::check_result_shape("out", out, &tensors[0].shape)?;
    }
    Ok(())
}

const EXTREME_DTYPES: Dtypes = Dtypes {
    a: EXTREME,
    b: EXTREME,
    out: EXTREME,
};
const ADDN_DTYPES: Dtypes = Dtypes {
    a: ADDN,
    b: ADDN,
    out: ADDN,
};

/// aclnnMaxN: `out = max(tensors[0], tensors[1], ...)`, broadcast (NaN propagates).
pub fn max_n(tensors: &[&TensorDesc], out: &TensorDesc) -> Result<Executor> {
    check_list(tensors, out, EXTREME, true)?;
    chain("aclnnMaxN", tensors, out, &EXTREME_DTYPES, &|p| {
        Ok(super::extremum::max_compute(p))
    })
}

/// aclnnMinN: `out = min(tensors[0], tensors[1], ...)`, broadcast (NaN propagates).
pub fn min_n(tensors: &[&TensorDesc], out: &TensorDesc) -> Result<Executor> {
    check_list(tensors, out, EXTREME, true)?;
    chain("aclnnMinN", tensors, out, &EXTREME_DTYPES, &|p| {
        Ok(super::extremum::min_compute(p))
    })
}

/// aclnnAddN: `out = tensors[0] + tensors[1] + ...` (one shape, one dtype), in list order.
pub fn add_n(tensors: &[&TensorDesc], out: &TensorDesc) -> Result<Executor> {
    check_list(tensors, out, ADDN, false)?;
    let one = Scalar::from_value(1i64);
    chain("aclnnAddN", tensors, out, &ADDN_DTYPES, &|p| {
        add::compute(Sign::Plus, &one, p)
    })
}

/// Supported dtypes, for the operator table (docs/DTYPES.md).
pub const CATALOG: &[Entry] = &[
    Entry {
        ops: "MaxN, MinN",
        a: EXTREME,
        b: &[],
        out: EXTREME,
        rule: "element-wise max/min of a list, broadcast; NaN propagates",
    },
    Entry {
        ops: "AddN",
        a: ADDN,
        b: &[],
        out: ADDN,
        rule: "sum of a list of one shape, in list order, rounded after each addition",
    },
];
