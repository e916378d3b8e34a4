//! The operator table: which operators exist and the dtypes each accepts, gathered from
//! the operator files themselves so docs/DTYPES.md's table (generated from it and checked by
//! a test) cannot drift from the code.

use crate::dtype::DType;

/// One row: a group of entry points sharing dtype lists.
pub struct Entry {
    pub ops: &'static str,
    /// First operand (self / selfRef).
    pub a: &'static [DType],
    /// Second operand (other / exponent); empty for unary operators.
    pub b: &'static [DType],
    pub out: &'static [DType],
    pub rule: &'static str,
}

/// Every operator family, in README order.
pub fn catalog() -> Vec<&'static Entry> {
    [
        super::add::CATALOG,
        super::mul::CATALOG,
        super::div::CATALOG,
        super::pow::CATALOG,
        super::extremum::CATALOG,
        super::compare::CATALOG,
        super::logical::CATALOG,
        super::bitwise::CATALOG,
        super::select::CATALOG,
        super::copy::CATALOG,
        super::join::CATALOG,
        super::views::CATALOG,
        super::create::CATALOG,
        super::math::CATALOG,
        super::activation::CATALOG,
        super::pool::CATALOG,
        super::loss::CATALOG,
        super::nll_loss::CATALOG,
        super::cross_entropy::CATALOG,
        super::ctc_loss::CATALOG,
        super::margin::CATALOG,
        super::round::CATALOG,
        super::clamp::CATALOG,
        super::matmul::CATALOG,
        super::conv::CATALOG,
        super::prelu::CATALOG,
        super::reduce::CATALOG,
        super::masked_softmax::CATALOG,
        super::cdist::CATALOG,
        super::linalg::CATALOG,
        super::linalg::DECOMPOSITIONS,
        super::linalg::QR_CATALOG,
        super::linalg::SVD_CATALOG,
        super::reduce_stats::CATALOG,
        super::extrema::CATALOG,
        super::nary::CATALOG,
        super::whole::CATALOG,
        super::norm::CATALOG,
        super::sync_bn::CATALOG,
        super::triangle::CATALOG,
        super::flip::CATALOG,
        super::diag::CATALOG,
        super::reshape::CATALOG,
        super::strided::CATALOG,
        super::pad::CATALOG,
        super::resample::CATALOG,
        super::scan::CATALOG,
        super::search::CATALOG,
        super::histogram::CATALOG,
        super::fft::CATALOG,
        super::sort::CATALOG,
        super::unique::CATALOG,
        super::pattern::CATALOG,
        super::index::CATALOG,
        super::scatter::CATALOG,
        super::advanced_index::CATALOG,
        super::nd_index::CATALOG,
        super::masked::CATALOG,
        super::repeat_interleave::CATALOG,
        super::llm::CATALOG,
        super::llm::moe::CATALOG,
        super::quant::CATALOG,
        super::nz_weight::CATALOG,
        super::foreach::CATALOG,
        super::optim::CATALOG,
        super::optim_quant::CATALOG,
        super::special::CATALOG,
        super::modulo::CATALOG,
        super::integer::CATALOG,
        super::classify::CATALOG,
        super::complex::CATALOG,
        super::lerp::CATALOG,
        super::backward::CATALOG,
        super::addr::CATALOG,
        super::scale::CATALOG,
        super::random::CATALOG,
    ]
    .iter()
    .flat_map(|c| c.iter())
    .collect()
}

fn short(d: DType) -> &'static str {
    match d {
        DType::F32 => "f32",
        DType::F16 => "f16",
        DType::F64 => "f64",
        DType::BF16 => "bf16",
        DType::S8 => "s8",
        DType::S4 => "s4",
        DType::U8 => "u8",
        DType::S16 => "s16",
        DType::U16 => "u16",
        DType::S32 => "s32",
        DType::U32 => "u32",
        DType::S64 => "s64",
        DType::U64 => "u64",
        DType::Bool => "bool",
        DType::C32 => "c32",
        DType::C64 => "c64",
        DType::C128 => "c128",
    }
}

fn list(ds: &[DType]) -> String {
    if ds.is_empty() {
        return "—".into();
    }
    // In the contract's column order, so rows compare at a glance.
    crate::dtype::ALL
        .iter()
        .chain(&[DType::S4]) // the storage dtype, after the table's columns
        .filter(|d| ds.contains(d))
        .map(|d| short(*d))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The README's operator table, as markdown.
pub fn markdown() -> String {
    let mut s = String::from(
        "| operators (aclnn…) | computes | self | other | out |\n|---|---|---|---|---|\n",
    );
    for e in catalog() {
        s += &format!(
            "| {} | {} | {} | {} | {} |\n",
            e.ops,
            e.rule,
            list(e.a),
            list(e.b),
            list(e.out)
        );
    }
    s
}

#[cfg(test)]
mod tests {
    const BEGIN: &str = "<!-- operator table: generated from src/ops (cargo test); ACLNN_CPU_BLESS=1 rewrites it -->\n";
    const END: &str = "<!-- end of operator table -->";

    /// The table's rows name exactly the declared entry points: every name in a row is a
    /// declared `aclnn<Name>` (or a whole `aclXxx` name), and every declared (and implemented) entry is named by a row,
    /// itself or as the in-place form of a row's name marked "(+ Inplace)".
    #[test]
    fn operator_table_names_exactly_the_declared_entries() {
        use crate::capi::ops::DECLARED;
        let declared: std::collections::BTreeSet<&str> = DECLARED.iter().map(|d| d.name).collect();
        let mut named = std::collections::BTreeSet::new();
        for e in super::catalog() {
            let (names, inplace) = match e.ops.strip_suffix(" (+ Inplace)") {
                Some(n) => (n, true),
                None => (e.ops, false),
            };
            for n in names.split(", ") {
                // acl_<name>.h's entries are named in full (aclRfft1D).
                let api = if n.starts_with("acl") {
                    n.to_string()
                } else {
                    format!("aclnn{n}")
                };
                assert!(
                    declared.contains(api.as_str()),
                    "the table names {n}, which no declaration declares"
                );
                named.insert(api);
                if inplace {
                    named.insert(format!("aclnnInplace{n}"));
                }
            }
        }
        let missing: Vec<&&str> = declared.iter().filter(|d| !named.contains(**d)).collect();
        assert!(
            missing.is_empty(),
            "declared entries the operator table does not name: {missing:?}"
        );
    }

    #[test]
    fn dtype_table_matches_the_code() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/DTYPES.md");
        let text = std::fs::read_to_string(&path).expect("docs/DTYPES.md");
        let start = text
            .find(BEGIN)
            .expect("docs/DTYPES.md has the operator table's begin marker")
            + BEGIN.len();
        let end = text[start..]
            .find(END)
            .expect("docs/DTYPES.md has the operator table's end marker")
            + start;
        let table = super::markdown();
        if std::env::var("ACLNN_CPU_BLESS").as_deref() == Ok("1") {
            std::fs::write(
                &path,
                format!("{}{}{}", &text[..start], table, &text[end..]),
            )
            .expect("write docs/DTYPES.md");
            return;
        }
        assert_eq!(
            &text[start..end],
            table,
            "docs/DTYPES.md's operator table is stale: run `ACLNN_CPU_BLESS=1 cargo test dtype_table`"
        );
    }
}
