//! Cases small enough for Miri (`cargo +nightly miri test --lib -- miri_`, run by
//! `.ci/robust miri`): the engine's raw-pointer iteration over strided, broadcast, offset,
//! overlapping and in-place views, its conversion buffers and workspace, each checked
//! against the model of `add_diff.rs`. Natively they run as ordinary tests with more cases.

use super::add_diff::{gen_case, run_case, Rng};

/// Elements a case may have under Miri (it interprets every instruction).
const MIRI_MAX_ELEMS: usize = 48;

fn small_enough(n: usize) -> bool {
    !cfg!(miri) || n <= MIRI_MAX_ELEMS
}

#[test]
fn miri_engine_random_views() {
    let cases = if cfg!(miri) { 16 } else { 400 };
    let mut rng = Rng::new(0x6d69_7269);
    let (mut ran, mut refused) = (0, 0);
    while ran < cases {
        let case = gen_case(&mut rng);
        let biggest = [Some(&case.self_), case.other.as_ref(), case.out.as_ref()]
            .into_iter()
            .flatten()
            .map(|v| v.numel().max(v.storage))
            .max()
            .unwrap_or(0);
        if !small_enough(biggest) {
            continue;
        }
        let o = run_case(&case, &mut rng).unwrap_or_else(|e| panic!("case {ran}: {e}"));
        refused += o.refused as usize;
        ran += 1;
    }
    assert!(
        refused < cases,
        "every case was refused: the engine never ran"
    );
}
