//! Coverage against CANN: `docs/cann-ops.tsv` lists every entry point of CANN's public
//! aclnn operator headers (facts taken from the headers: group, header, name, prototype).
//! What we declare must be CANN's, to the spelling; a header we ship must be whole; and
//! `docs/OPERATORS.md`, what a user reads first, is generated from both.

use crate::capi::ops::{DECLARED, PLAIN};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

struct Row {
    group: String,
    header: String,
    entry: String,
    kind: String,
    source: String,
    phase1: String,
    phase2: String,
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

fn cann() -> Vec<Row> {
    let text =
        std::fs::read_to_string(root().join("docs/cann-ops.tsv")).expect("docs/cann-ops.tsv");
    let mut lines = text.lines().filter(|l| !l.starts_with('#'));
    assert_eq!(
        lines.next(),
        Some("group\theader\tentry\tkind\tsource\tphase1\tphase2")
    );
    lines
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            assert_eq!(f.len(), 7, "{l}");
            Row {
                group: f[0].into(),
                header: f[1].into(),
                entry: f[2].into(),
                kind: f[3].into(),
                source: f[4].into(),
                phase1: f[5].into(),
                phase2: f[6].into(),
            }
        })
        .collect()
}

/// Every declared entry is CANN's entry of the same header, with CANN's prototypes
/// exactly (parameter names, types, const).
#[test]
fn declared_entries_have_canns_prototypes() {
    let rows = cann();
    for d in DECLARED {
        let row = rows
            .iter()
            .find(|r| r.entry == d.name && r.header == d.header)
            .unwrap_or_else(|| {
                let elsewhere: Vec<&str> = rows
                    .iter()
                    .filter(|r| r.entry == d.name)
                    .map(|r| r.header.as_str())
                    .collect();
                panic!(
                    "{} is not declared by CANN's {} (CANN has it in {elsewhere:?})",
                    d.name, d.header
                )
            });
        assert_eq!(d.c_phase1, row.phase1, "{}: phase-1 prototype", d.name);
        assert_eq!(d.c_phase2, row.phase2, "{}: phase-2 prototype", d.name);
    }
}

/// Every declared plain function is CANN's function (kind "other") of the same header,
/// with CANN's prototype exactly.
#[test]
fn plain_functions_have_canns_prototypes() {
    let rows = cann();
    for d in PLAIN {
        let row = rows
            .iter()
            .find(|r| r.entry == d.name && r.header == d.header)
            .unwrap_or_else(|| panic!("{} is not declared by CANN's {}", d.name, d.header));
        assert_eq!(row.kind, "other", "{}: CANN's is a two-phase pair", d.name);
        assert_eq!(d.c_proto, row.phase1, "{}: prototype", d.name);
    }
}

/// The names of every entry we implement: pairs and plain functions.
fn implemented() -> BTreeSet<&'static str> {
    DECLARED
        .iter()
        .map(|d| d.name)
        .chain(PLAIN.iter().map(|d| d.name))
        .collect()
}

/// Entries of shipped headers still to come (none: a shipped header is whole).
const NOT_YET: &[&str] = &[];

/// Entries declared only to refuse every call (their doc comments say why):
/// MaxPool2dWithMask's indices are the device's private bit mask; InstanceNorm is the
/// Atlas inference series' only (CANN refuses it on Atlas A2).
const REFUSED: &[&str] = &["aclnnMaxPool2dWithMask", "aclnnInstanceNorm"];

/// A header we ship declares every entry point CANN's header of that name declares (but
/// for NOT_YET).
#[test]
fn shipped_headers_are_whole() {
    let rows = cann();
    let shipped: BTreeSet<&str> = DECLARED
        .iter()
        .map(|d| d.header)
        .chain(PLAIN.iter().map(|d| d.header))
        .collect();
    let implemented = implemented();
    let mut missing = vec![];
    for r in rows.iter().filter(|r| shipped.contains(r.header.as_str())) {
        if !implemented.contains(r.entry.as_str()) && !NOT_YET.contains(&r.entry.as_str()) {
            missing.push(format!("{} {}", r.header, r.entry));
        }
    }
    assert!(
        missing.is_empty(),
        "headers we ship lack CANN's entries: {missing:#?}"
    );
}

fn short(entry: &str) -> &str {
    entry.strip_prefix("aclnn").unwrap_or(entry)
}

/// The coverage listing, as markdown.
fn operators_md() -> String {
    let rows = cann();
    let declared = implemented();
    // group -> header -> rows
    let mut groups: BTreeMap<&str, BTreeMap<&str, Vec<&Row>>> = BTreeMap::new();
    for r in &rows {
        groups
            .entry(&r.group)
            .or_default()
            .entry(&r.header)
            .or_default()
            .push(r);
    }
    let done =
        |r: &Row| declared.contains(r.entry.as_str()) && !REFUSED.contains(&r.entry.as_str());
    let declared_ = |r: &Row| declared.contains(r.entry.as_str());
    let n_done = rows.iter().filter(|r| done(r)).count();
    let headers: BTreeSet<&str> = rows.iter().map(|r| r.header.as_str()).collect();
    let headers_done = headers
        .iter()
        .filter(|h| rows.iter().filter(|r| r.header == **h).all(declared_))
        .count();
    let mut s = String::new();
    s += "# Operators\n\n";
    s += "<!-- Generated by `cargo test operators_md` (ACLNN_CPU_BLESS=1 rewrites it) from docs/cann-ops.tsv and src/capi/ops/*.decl: do not edit. -->\n\n";
    s += "Every entry point that CANN's public operator headers (`aclnnop/aclnn_<name>.h`) declare, \
          grouped as CANN groups them, and whether aclnn-cpu implements it: **✓** implemented, \
          **·** not yet. A header is shipped (`include/aclnnop/`) once every entry point of it is \
          implemented, so a program that compiles against our headers links and runs; \
          **⊘**: declared, so that such a header is whole, but every call is refused with \
          ACLNN_ERR_PARAM_INVALID and a message saying why (not counted as implemented). \
          *experimental*: from the ops repositories' `experimental/` trees; *8.1.RC1*: a header \
          the CANN 8.1.RC1 toolkit generates at build time. The dtypes each implemented operator \
          accepts are in [DTYPES.md](DTYPES.md).\n\n";
    s += &format!(
        "**{n_done} of {} entry points implemented; {headers_done} of {} headers whole.**\n\n",
        rows.len(),
        headers.len()
    );
    s += "| group | headers | entry points | implemented |\n|---|---:|---:|---:|\n";
    for (g, hs) in &groups {
        let all: Vec<&&Row> = hs.values().flatten().collect();
        let d = all.iter().filter(|r| done(r)).count();
        s += &format!("| [{g}](#{g}) | {} | {} | {d} |\n", hs.len(), all.len());
    }
    for (g, hs) in &groups {
        let all: Vec<&&Row> = hs.values().flatten().collect();
        let d = all.iter().filter(|r| done(r)).count();
        s += &format!(
            "\n## {g}\n\n{d} of {} entry points.\n\n| header | entry points |\n|---|---|\n",
            all.len()
        );
        for (h, rs) in hs {
            let mark = match rs[0].source.as_str() {
                "experimental" => " *experimental*",
                "toolkit" => " *8.1.RC1*",
                _ => "",
            };
            let entries: Vec<String> = rs
                .iter()
                .map(|r| {
                    let other = if r.kind == "other" { " (function)" } else { "" };
                    let mark = if REFUSED.contains(&r.entry.as_str()) {
                        "**⊘**"
                    } else if done(r) {
                        "**✓**"
                    } else {
                        "·"
                    };
                    format!("{mark} {}{other}", short(&r.entry))
                })
                .collect();
            s += &format!("| `{h}`{mark} | {} |\n", entries.join(", "));
        }
    }
    s
}

#[test]
fn operators_md_is_current() {
    let path = root().join("docs/OPERATORS.md");
    let want = operators_md();
    if std::env::var("ACLNN_CPU_BLESS").as_deref() == Ok("1") {
        std::fs::write(&path, &want).unwrap();
        return;
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == want,
        "docs/OPERATORS.md is stale: run `ACLNN_CPU_BLESS=1 cargo test operators_md`"
    );
}
