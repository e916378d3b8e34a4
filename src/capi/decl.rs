//! Operator declarations: the one place an operator's C surface comes from.
//!
//! Each `src/capi/ops/<name>.decl` file is CANN's header `aclnnop/aclnn_<name>.h` (`acl_<name>.decl`:
//! `aclnnop/acl_<name>.h`, whose entries are named `aclXxx`), written
//! as the prototypes CANN's header spells (parameter names, C types and `const` exactly),
//! each followed by the call into the operator's rule in `crate::ops`:
//!
//! ```text
//! //! Abs: out = |self|.
//! /// Phase 1 of out = |self| (complex: the modulus in the component dtype).
//! aclnnAbs(const aclTensor *self, aclTensor *out) => math::abs(self, out);
//! ```
//!
//! From that, `build.rs` (which compiles this file too) writes the header, and the crate
//! includes the generated `extern "C"` pair (`aclnnAbsGetWorkspaceSize` + `aclnnAbs`) and
//! the entry's row in the registry (`capi::ops::DECLARED`) that tests, docs and fuzzing read.
//!
//! - The phase-1 prototype is written without its last two parameters (`uint64_t
//!   *workspaceSize, aclOpExecutor **executor`); the phase-2 function has CANN's fixed shape.
//! - A parameter the operator accepts as NULL (CANN's `...Optional` tensors, an optional
//!   out) is marked `?` after its name: `const aclTensor *bias?`. The header omits the mark.
//! - In the rule call, parameters are named as in the prototype and arrive converted:
//!   tensors as `&TensorDesc` (`Option<..>` when optional), scalars as `Scalar`, int/float/
//!   bool arrays as slices, tensor lists as `Vec<&TensorDesc>`, scalar lists as
//!   `Vec<Scalar>`, `char *` as `&str`; numbers, `bool` and `aclDataType` (its raw value)
//!   pass as they are.
//! - `//!` lines describe the header; `use` lines are imports for the rule calls; `///`
//!   lines document the next entry (they become the header's comment for it).
//! - `@deprecated "message"` before an entry marks both of its functions as CANN does.
//! - `@plain aclnnXxx(params) => rule(...);` declares a plain function, not a two-phase
//!   pair (CANN's aclnnCalculateMatmulWeightSize): the prototype is the whole C one, and
//!   its out-parameters (`uint64_t *name`: a pointer to a value type, non-const) are
//!   written from the rule's `Result` value (a tuple when there are several; `()` when it
//!   has none), only on success. The body runs inside the FFI guard with the pairs'
//!   argument parsing. A plain function that returns a value rather than a status
//!   (CANN's `int32_t aclnnGetPytorchRandom()`) spells its C value type first:
//!   `@plain int32_t aclnnXxx() => rule();`, the rule giving `Result<i32>` (on an error
//!   the function returns 0 and records the message).
//!
//! This file is plain `std` Rust: build.rs includes it with `#[path]`.

use std::fmt::Write as _;

/// What a C parameter type is, for argument conversion and fuzzing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Tensor,
    Scalar,
    IntArray,
    FloatArray,
    BoolArray,
    TensorList,
    ScalarList,
    /// Any C integer type (int64_t, int32_t, int8_t, uint64_t, ...).
    Int,
    /// double or float.
    Float,
    Bool,
    /// aclDataType (passed to the rule as its raw value).
    DType,
    /// const char * (a NUL-terminated string).
    Str,
    /// A value the function writes (`uint64_t *`): only in `@plain` functions.
    Out,
}

/// Each kind's variant name and the snake-case name of its parser (`args::<name>`) and
/// of its `ArgSource` method.
const KIND_NAMES: &[(Kind, &str, &str)] = &[
    (Kind::Tensor, "Tensor", "tensor"),
    (Kind::Scalar, "Scalar", "scalar"),
    (Kind::IntArray, "IntArray", "int_array"),
    (Kind::FloatArray, "FloatArray", "float_array"),
    (Kind::BoolArray, "BoolArray", "bool_array"),
    (Kind::TensorList, "TensorList", "tensor_list"),
    (Kind::ScalarList, "ScalarList", "scalar_list"),
    (Kind::Int, "Int", "int"),
    (Kind::Float, "Float", "float"),
    (Kind::Bool, "Bool", "bool"),
    (Kind::DType, "DType", "dtype"),
    (Kind::Str, "Str", "string"),
    (Kind::Out, "Out", "out"),
];

impl Kind {
    fn names(self) -> (&'static str, &'static str) {
        let k = KIND_NAMES.iter().find(|k| k.0 == self).unwrap();
        (k.1, k.2)
    }
    fn variant(self) -> &'static str {
        self.names().0
    }
    fn snake(self) -> &'static str {
        self.names().1
    }
    /// Passed to the rule as it is (no handle to parse).
    pub fn is_value(self) -> bool {
        matches!(self, Kind::Int | Kind::Float | Kind::Bool | Kind::DType)
    }
}

/// The handle types a parameter may point to (as `const T *` or `T *`), and their kinds.
const HANDLES: &[(&str, Kind)] = &[
    ("aclTensor", Kind::Tensor),
    ("aclScalar", Kind::Scalar),
    ("aclIntArray", Kind::IntArray),
    ("aclFloatArray", Kind::FloatArray),
    ("aclBoolArray", Kind::BoolArray),
    ("aclTensorList", Kind::TensorList),
    ("aclScalarList", Kind::ScalarList),
];

/// The value types a parameter may have: the C spelling, the Rust FFI type, the kind.
const VALUES: &[(&str, &str, Kind)] = &[
    ("int64_t", "i64", Kind::Int),
    ("int32_t", "i32", Kind::Int),
    ("int16_t", "i16", Kind::Int),
    ("int8_t", "i8", Kind::Int),
    ("uint64_t", "u64", Kind::Int),
    ("uint32_t", "u32", Kind::Int),
    ("uint8_t", "u8", Kind::Int),
    ("int", "::std::ffi::c_int", Kind::Int),
    ("double", "f64", Kind::Float),
    ("float", "f32", Kind::Float),
    ("bool", "bool", Kind::Bool),
    ("aclDataType", "aclDataTypeRaw", Kind::DType),
];

/// The Rust FFI type and the kind of a normalised C type ("const aclTensor *", "int64_t",
/// "const int64_t": top-level const on a value changes nothing for Rust).
fn lookup(c_type: &str) -> Option<(String, Kind)> {
    if let Some(pointee) = c_type.strip_suffix(" *") {
        let (mutability, base) = match pointee.strip_prefix("const ") {
            Some(b) => ("*const", b),
            None => ("*mut", pointee),
        };
        if base == "char" {
            return Some((format!("{mutability} ::std::ffi::c_char"), Kind::Str));
        }
        if mutability == "*mut" {
            if let Some(v) = VALUES.iter().find(|v| v.0 == base) {
                return Some((format!("*mut {}", v.1), Kind::Out));
            }
        }
        return HANDLES
            .iter()
            .find(|h| h.0 == base)
            .map(|h| (format!("{mutability} {base}"), h.1));
    }
    let base = c_type.trim_start_matches("const ");
    VALUES
        .iter()
        .find(|v| v.0 == base)
        .map(|v| (v.1.to_string(), v.2))
}

/// Rust keywords a C parameter may be named (the Rust side appends `_`).
const KEYWORDS: &[&str] = &[
    "self", "type", "ref", "in", "fn", "mod", "move", "loop", "match", "use", "where", "impl",
    "box", "crate", "super", "dyn", "trait", "struct", "enum", "let", "mut", "pub", "static",
    "const", "async", "await", "final", "override", "yield", "priv", "macro", "abstract", "unsafe",
];

#[derive(Clone, Debug)]
pub struct Param {
    /// The C type as CANN spells it, normalised ("const aclTensor *", "int64_t").
    pub c_type: String,
    /// The C name ("self").
    pub name: String,
    pub kind: Kind,
    pub optional: bool,
}

impl Param {
    /// The name as a Rust identifier (`self` -> `self_`).
    pub fn rust_name(&self) -> String {
        rust_ident(&self.name)
    }
    fn rust_type(&self) -> String {
        lookup(&self.c_type).unwrap().0
    }
    /// The Rust type an out-parameter points to ("u64" for `uint64_t *`).
    fn out_type(&self) -> String {
        self.rust_type().trim_start_matches("*mut ").to_string()
    }
    /// The C declaration of the parameter ("const aclTensor *self").
    pub fn c_decl(&self) -> String {
        if self.c_type.ends_with('*') {
            format!("{}{}", self.c_type, self.name)
        } else {
            format!("{} {}", self.c_type, self.name)
        }
    }
}

fn rust_ident(name: &str) -> String {
    if KEYWORDS.contains(&name) {
        format!("{name}_")
    } else {
        name.to_string()
    }
}

#[derive(Clone, Debug)]
pub struct Entry {
    /// The phase-2 name ("aclnnAdd"); phase 1 is `<name>GetWorkspaceSize`.
    pub name: String,
    pub params: Vec<Param>,
    /// The rule call, a Rust expression over the parameters' names.
    pub call: String,
    pub doc: Vec<String>,
    pub deprecated: Option<String>,
    /// The last two phase-1 parameters as the header spells them ("uint64_t *workspaceSize").
    pub tail: [String; 2],
    /// The phase-2 parameters as the header spells them.
    pub phase2: [String; 4],
    /// 1-based line of the entry in its file.
    pub line: usize,
    /// Declared with `@plain`: one C function with the prototype as written, no phases.
    pub plain: bool,
    /// A plain function's C return type when it is not `aclnnStatus` ("int32_t").
    pub ret: Option<String>,
}

impl Entry {
    /// The phase-1 prototype as the header declares it (without `ACLNN_API` and `;`); for a
    /// plain function, its one prototype.
    pub fn c_phase1(&self) -> String {
        if self.plain {
            let ps: Vec<String> = self.params.iter().map(Param::c_decl).collect();
            let ret = self.ret.as_deref().unwrap_or("aclnnStatus");
            return format!("{ret} {}({})", self.name, ps.join(", "));
        }
        let mut ps: Vec<String> = self.params.iter().map(Param::c_decl).collect();
        ps.extend(self.tail.iter().cloned());
        format!(
            "aclnnStatus {}GetWorkspaceSize({})",
            self.name,
            ps.join(", ")
        )
    }
    /// The phase-2 prototype as the header declares it.
    pub fn c_phase2(&self) -> String {
        format!("aclnnStatus {}({})", self.name, self.phase2.join(", "))
    }
}

/// One `.decl` file: one CANN header.
#[derive(Clone, Debug)]
pub struct File {
    /// "add" for aclnnop/aclnn_add.h.
    pub stem: String,
    pub doc: Vec<String>,
    pub uses: Vec<String>,
    pub entries: Vec<Entry>,
}

impl File {
    /// CANN's header: `aclnn_<stem>.h`, or the stem itself for the few math headers CANN
    /// names `acl_<name>.h` (acl_rfft1d.h, acl_stft.h: entries `aclXxx`).
    pub fn header_name(&self) -> String {
        if self.stem.starts_with("acl_") {
            format!("{}.h", self.stem)
        } else {
            format!("aclnn_{}.h", self.stem)
        }
    }

    /// The Rust module of the file's entry points: the stem, unless it would shadow a
    /// crate the generated code uses (aclnn_std.h: `std_`).
    pub fn module(&self) -> String {
        match self.stem.as_str() {
            "std" | "core" | "alloc" => format!("{}_", self.stem),
            s => s.to_string(),
        }
    }
}

fn err(stem: &str, line: usize, msg: impl std::fmt::Display) -> String {
    format!("src/capi/ops/{stem}.decl:{line}: {msg}")
}

/// Splits `text` at `sep` where it is outside parentheses, brackets, braces and strings.
fn split_top(text: &str, sep: char) -> Vec<&str> {
    let mut parts = vec![];
    let (mut depth, mut in_str, mut esc, mut start) = (0i32, false, false, 0);
    for (i, c) in text.char_indices() {
        if in_str {
            match c {
                _ if esc => esc = false,
                '\\' => esc = true,
                '"' => in_str = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_str = true,
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            _ if c == sep && depth == 0 => {
                parts.push(&text[start..i]);
                start = i + c.len_utf8();
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    parts
}

fn parse_param(stem: &str, line: usize, text: &str) -> Result<Param, String> {
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    // The name is the trailing identifier (with an optional `?`).
    let name_start = text
        .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '?'))
        .map_or(0, |i| i + 1);
    let (ty, name) = text.split_at(name_start);
    let optional = name.ends_with('?');
    let name = name.trim_end_matches('?').to_string();
    if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) {
        return Err(err(stem, line, format!("parameter `{text}` has no name")));
    }
    // Normalise the type: "const aclTensor*" / "const aclTensor *" -> "const aclTensor *".
    let ty = ty.replace('*', " * ");
    let mut c_type = ty.split_whitespace().collect::<Vec<_>>().join(" ");
    c_type = c_type.replace("* *", "**");
    if c_type.ends_with('*') {
        c_type = c_type.trim_end_matches(" *").to_string() + " *";
    }
    let Some((_, kind)) = lookup(&c_type) else {
        return Err(err(
            stem,
            line,
            format!("parameter `{name}`: C type `{c_type}` is not one the declarations support (HANDLES and VALUES in src/capi/decl.rs)"),
        ));
    };
    if optional && kind.is_value() {
        return Err(err(
            stem,
            line,
            format!("parameter `{name}` is a value: it cannot be optional"),
        ));
    }
    Ok(Param {
        c_type,
        name,
        kind,
        optional,
    })
}

/// The phase-1 tail and the phase-2 parameters most CANN headers spell; a file states
/// others with `@phase2 (...)` (from there on) or in the prototype itself (the tail).
const DEFAULT_TAIL: [&str; 2] = ["uint64_t *workspaceSize", "aclOpExecutor **executor"];
const DEFAULT_PHASE2: [&str; 4] = [
    "void *workspace",
    "uint64_t workspaceSize",
    "aclOpExecutor *executor",
    "aclrtStream stream",
];

/// A C parameter declaration with its spacing normalised: "const aclTensor *self".
fn normalise(text: &str) -> String {
    let t = text.replace('*', " * ");
    let mut s = String::new();
    let mut prev_star = false;
    for w in t.split_whitespace() {
        let star = w == "*";
        if !s.is_empty() && !prev_star {
            s.push(' ');
        }
        s.push_str(w);
        prev_star = star;
    }
    s
}

/// The type of a normalised declaration, without the name and without top-level const
/// on a value ("const uint64_t workspaceSize" -> "uint64_t").
fn type_of(decl: &str) -> String {
    let end = decl
        .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '?'))
        .map_or(0, |i| i + 1);
    let t = decl[..end].trim_end();
    let t = if t.ends_with('*') {
        t
    } else {
        t.trim_start_matches("const ")
    };
    t.to_string()
}

fn parse_phase2(stem: &str, line: usize, text: &str) -> Result<[String; 4], String> {
    let t = text.trim();
    if !(t.starts_with('(') && t.ends_with(')')) {
        return Err(err(
            stem,
            line,
            "@phase2 takes the parameter list in parentheses",
        ));
    }
    let parts: Vec<String> = split_top(&t[1..t.len() - 1], ',')
        .iter()
        .map(|p| normalise(p))
        .collect();
    let want = ["void *", "uint64_t", "aclOpExecutor *", "aclrtStream"];
    if parts.len() != 4 || parts.iter().zip(want).any(|(p, w)| type_of(p) != w) {
        return Err(err(
            stem,
            line,
            "@phase2 must be (void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream), up to const and names",
        ));
    }
    Ok([
        parts[0].clone(),
        parts[1].clone(),
        parts[2].clone(),
        parts[3].clone(),
    ])
}

/// The quoted message of a directive.
fn quoted(stem: &str, line: usize, directive: &str, text: &str) -> Result<String, String> {
    let m = text.trim();
    if m.len() >= 2 && m.starts_with('"') && m.ends_with('"') {
        Ok(m[1..m.len() - 1].to_string())
    } else {
        Err(err(
            stem,
            line,
            format!("{directive} takes a quoted message"),
        ))
    }
}

/// Parses one `.decl` file.
pub fn parse(stem: &str, text: &str) -> Result<File, String> {
    let mut file = File {
        stem: stem.to_string(),
        doc: vec![],
        uses: vec![],
        entries: vec![],
    };
    let mut doc: Vec<String> = vec![];
    let mut deprecated = None;
    let mut plain = false;
    let mut phase2 = DEFAULT_PHASE2.map(String::from);
    let mut pending = String::new();
    let mut pending_line = 0;
    for (i, raw) in text.lines().enumerate() {
        let line_no = i + 1;
        let line = raw.trim();
        let mut raw = raw.to_string();
        if pending.is_empty() {
            if line.is_empty() {
                continue;
            }
            if let Some(d) = line.strip_prefix("//!") {
                file.doc.push(d.strip_prefix(' ').unwrap_or(d).to_string());
                continue;
            }
            if let Some(d) = line.strip_prefix("///") {
                doc.push(d.strip_prefix(' ').unwrap_or(d).to_string());
                continue;
            }
            if line.starts_with("//") {
                continue;
            }
            if line.starts_with("use ") {
                file.uses.push(line.to_string());
                continue;
            }
            if let Some(m) = line.strip_prefix("@phase2") {
                phase2 = parse_phase2(stem, line_no, m)?;
                continue;
            }
            if let Some(m) = line.strip_prefix("@deprecated") {
                deprecated = Some(quoted(stem, line_no, "@deprecated", m)?);
                continue;
            }
            if let Some(rest) = line.strip_prefix("@plain ") {
                // The entry follows the directive on the same line.
                plain = true;
                raw = rest.to_string();
            }
            pending_line = line_no;
        }
        // Comments after code are not allowed inside an entry: keep the text as written.
        pending.push_str(&raw);
        pending.push('\n');
        let parts = split_top(&pending, ';');
        if parts.len() < 2 {
            continue;
        }
        if parts.len() > 2 || !parts[1].trim().is_empty() {
            return Err(err(
                stem,
                pending_line,
                "one entry per statement: text after `;`",
            ));
        }
        let entry = parse_entry(stem, pending_line, parts[0].trim(), plain, &phase2)?;
        if file.entries.iter().any(|e| e.name == entry.name) {
            return Err(err(
                stem,
                pending_line,
                format!("{} is declared twice", entry.name),
            ));
        }
        file.entries.push(Entry {
            doc: std::mem::take(&mut doc),
            deprecated: deprecated.take(),
            ..entry
        });
        plain = false;
        pending.clear();
    }
    if !pending.trim().is_empty() {
        return Err(err(stem, pending_line, "the entry does not end with `;`"));
    }
    if file.entries.is_empty() {
        return Err(err(stem, 1, "no entries"));
    }
    Ok(file)
}

/// One entry statement `aclnnXxx(params) => rule(...)` (without its `;`), starting at
/// `line`; `plain` when it follows `@plain`.
fn parse_entry(
    stem: &str,
    line: usize,
    stmt: &str,
    plain: bool,
    phase2: &[String; 4],
) -> Result<Entry, String> {
    // The prototype has no `=`: the first one starts the `=>`.
    let (proto, call) = match stmt.split_once("=>") {
        Some((proto, call)) if !proto.contains('=') => (proto.trim(), call.trim().to_string()),
        _ => return Err(err(stem, line, "expected `aclnnXxx(params) => rule(...);`")),
    };
    let open = proto
        .find('(')
        .ok_or_else(|| err(stem, line, "the prototype has no parameter list"))?;
    if !proto.ends_with(')') {
        return Err(err(stem, line, "the prototype must end with `)`"));
    }
    let mut name = proto[..open].trim().to_string();
    let mut ret = None;
    if let (true, Some((ty, n))) = (plain, name.clone().split_once(' ')) {
        if !VALUES.iter().any(|v| v.0 == ty) {
            return Err(err(
                stem,
                line,
                format!("`{ty}` is not a C value type a plain function may return"),
            ));
        }
        ret = Some(ty.to_string());
        name = n.trim().to_string();
    }
    let prefix = if stem.starts_with("acl_") {
        "acl"
    } else {
        "aclnn"
    };
    if !name.starts_with(prefix) || !name.chars().all(|c| c.is_ascii_alphanumeric()) {
        return Err(err(
            stem,
            line,
            format!("`{name}` is not an aclnn entry name"),
        ));
    }
    if name.ends_with("GetWorkspaceSize") {
        return Err(err(
            stem,
            line,
            "declare the entry by its phase-2 name (aclnnXxx): GetWorkspaceSize is added",
        ));
    }
    let inner = &proto[open + 1..proto.len() - 1];
    let mut texts: Vec<String> = if inner.trim().is_empty() {
        vec![]
    } else {
        split_top(inner, ',').iter().map(|p| normalise(p)).collect()
    };
    // CANN's own tail, where a header spells it differently from the usual one.
    let mut tail = DEFAULT_TAIL.map(String::from);
    if texts.len() >= 2 && !plain {
        let n = texts.len();
        if type_of(&texts[n - 2]) == "uint64_t *" && type_of(&texts[n - 1]) == "aclOpExecutor **" {
            tail = [texts[n - 2].clone(), texts[n - 1].clone()];
            texts.truncate(n - 2);
        }
    }
    let mut params = vec![];
    for p in &texts {
        params.push(parse_param(stem, line, p)?);
    }
    for (k, p) in params.iter().enumerate() {
        if params[..k].iter().any(|q| q.name == p.name) {
            return Err(err(stem, line, format!("parameter `{}` twice", p.name)));
        }
        if !plain && (p.name == "workspaceSize" || p.name == "executor") {
            return Err(err(
                stem,
                line,
                "leave out workspaceSize and executor: every phase 1 ends with them",
            ));
        }
        if !plain && p.kind == Kind::Out {
            return Err(err(
                stem,
                line,
                format!(
                    "parameter `{}`: out-parameters (`{}`) are for @plain functions; a pair's results are tensors",
                    p.name, p.c_type
                ),
            ));
        }
        if p.kind == Kind::Out && p.optional {
            return Err(err(
                stem,
                line,
                format!("out-parameter `{}` cannot be optional", p.name),
            ));
        }
    }
    if ret.is_some() && params.iter().any(|p| p.kind == Kind::Out) {
        return Err(err(
            stem,
            line,
            "a @plain function returning a value has no out-parameters",
        ));
    }
    Ok(Entry {
        name,
        params,
        call,
        doc: vec![],
        deprecated: None,
        tail,
        phase2: phase2.clone(),
        line,
        plain,
        ret,
    })
}

/// Replaces whole-word uses of C parameter names that are Rust keywords (`self`).
fn rename_keywords(call: &str, params: &[Param]) -> String {
    let mut out = String::with_capacity(call.len() + 8);
    let bytes = call.as_bytes();
    let mut i = 0;
    let mut in_str = false;
    while i < bytes.len() {
        let c = bytes[i] as char;
        if in_str {
            out.push(c);
            if c == '\\' && i + 1 < bytes.len() {
                out.push(bytes[i + 1] as char);
                i += 2;
                continue;
            }
            in_str = c != '"';
            i += 1;
            continue;
        }
        if c == '"' {
            in_str = true;
            out.push(c);
            i += 1;
            continue;
        }
        if c.is_ascii_alphabetic() || c == '_' {
            let start = i;
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            let word = &call[start..i];
            let preceded_by_path = call[..start].ends_with("::") || call[..start].ends_with('.');
            if !preceded_by_path && params.iter().any(|p| p.name == word) {
                out.push_str(&rust_ident(word));
            } else {
                out.push_str(word);
            }
            continue;
        }
        out.push(c);
        i += 1;
    }
    out
}

/// `let <name>_handle = <name>;` where the call names `<name>_handle`: the raw handle, for
/// a rule that must update the caller's object itself at phase 1 (CANN's TransMatmulWeight
/// retags its tensor as FRACTAL_NZ). The parsed value shadows the parameter's name.
fn handle_binding(p: &Param, call: &str) -> String {
    let r = p.rust_name();
    let handle = format!("{}_handle", p.name);
    let named = call
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .any(|w| w == handle);
    if named && p.kind == Kind::Tensor && !p.c_type.starts_with("const") {
        format!("            let {handle} = {r};\n")
    } else {
        String::new()
    }
}

fn conversion(p: &Param) -> String {
    if p.kind.is_value() || p.kind == Kind::Out {
        return String::new();
    }
    let f = p.kind.snake();
    let (r, n) = (p.rust_name(), &p.name);
    if p.optional {
        format!("            let {r} = args::optional({r}, |p| args::{f}(p, {n:?}))?;\n")
    } else {
        format!("            let {r} = args::{f}({r}, {n:?})?;\n")
    }
}

fn source_method(p: &Param) -> String {
    let m = p.kind.snake();
    let cast = match p.kind {
        Kind::Int | Kind::Float | Kind::Str => format!(" as {}", p.rust_type()),
        _ => String::new(),
    };
    format!("a.{m}(&P[{{i}}]){cast}")
}

/// The Rust code of every entry: a module per file with the `extern "C"` pair of each
/// entry, and the registry `DECLARED`.
pub fn rust(files: &[File]) -> String {
    let mut s =
        String::from("// Generated by build.rs from src/capi/ops/*.decl — do not edit.\n\n");
    let mut registry = String::from(
        "/// Every declared entry, in header order.\npub static DECLARED: &[Declared] = &[\n",
    );
    let mut plain_registry = String::from(
        "/// Every declared plain function (`@plain`), in header order.\npub static PLAIN: &[Plain] = &[\n",
    );
    for f in files {
        let _ = writeln!(
            s,
            "/// `aclnnop/{}` (src/capi/ops/{}.decl).\npub mod {} {{\n    #![allow(unused_imports, unused_variables, non_snake_case, clippy::all)]\n    use super::prelude::*;\n    use crate::ops::*;",
            f.header_name(),
            f.stem,
            f.module()
        );
        for u in &f.uses {
            let _ = writeln!(s, "    {u}");
        }
        for e in &f.entries {
            if e.plain {
                plain_fn(&mut s, &mut plain_registry, f, e);
                continue;
            }
            let p1 = format!("{}GetWorkspaceSize", e.name);
            let mut sig = String::new();
            for p in &e.params {
                let _ = write!(sig, "{}: {}, ", p.rust_name(), p.rust_type());
            }
            let mut conv = String::new();
            for p in &e.params {
                conv.push_str(&handle_binding(p, &e.call));
                conv.push_str(&conversion(p));
            }
            let call = rename_keywords(&e.call, &e.params);
            let doc: String = e.doc.iter().map(|d| format!("    /// {d}\n")).collect();
            let _ = write!(
                s,
                "\n    // src/capi/ops/{stem}.decl:{line}\n{doc}    #[unsafe(no_mangle)]\n    pub unsafe extern \"C\" fn {p1}({sig}workspaceSize: *mut u64, executor: *mut *mut aclOpExecutor) -> aclnnStatus {{\n        unsafe {{ phase1({p1:?}, workspaceSize, executor, || {{\n{conv}            {call}\n        }}) }}\n    }}\n\n    /// Phase 2 of {name}: queues the planned work on `stream`.\n    #[unsafe(no_mangle)]\n    pub extern \"C\" fn {name}(workspace: *mut c_void, workspaceSize: u64, executor: *mut aclOpExecutor, stream: aclrtStream) -> aclnnStatus {{\n        phase2({name:?}, workspace, workspaceSize, executor, stream)\n    }}\n",
                stem = f.stem,
                line = e.line,
                name = e.name,
            );
            // The registry row: the prototype as data, and a caller that takes its
            // arguments from an ArgSource (fuzzing, generic tests).
            let params = param_rows(&e.params);
            let mut args = String::new();
            for (i, p) in e.params.iter().enumerate() {
                args.push_str(&source_method(p).replace("{i}", &i.to_string()));
                args.push_str(", ");
            }
            let _ = write!(
                registry,
                "    {{\n        const P: &[Param] = &[{params}];\n        Declared {{\n            header: {header:?},\n            name: {name:?},\n            params: P,\n            deprecated: {dep},\n            c_phase1: {c1:?},\n            c_phase2: {c2:?},\n            phase1: |a, w, e| unsafe {{ {module}::{p1}({args}w, e) }},\n            phase2: {module}::{name},\n        }}\n    }},\n",
                header = f.header_name(),
                name = e.name,
                module = f.module(),
                dep = e.deprecated.is_some(),
                c1 = e.c_phase1(),
                c2 = e.c_phase2(),
            );
        }
        s.push_str("}\n\n");
    }
    registry.push_str("];\n");
    plain_registry.push_str("];\n");
    s + &registry + &plain_registry
}

/// The registry row of a parameter list: `Param {..}` literals.
fn param_rows(params: &[Param]) -> String {
    let mut rows = String::new();
    for p in params {
        let _ = write!(
            rows,
            "Param {{ c_type: {:?}, name: {:?}, kind: Kind::{}, optional: {} }}, ",
            p.c_type,
            p.name,
            p.kind.variant(),
            p.optional
        );
    }
    rows
}

/// A `@plain` entry: its `extern "C"` function into `s` (inside the FFI guard; the
/// out-parameters are checked first, as CANN checks them, and written only on success) and
/// its row into `registry`.
fn plain_fn(s: &mut String, registry: &mut String, f: &File, e: &Entry) {
    let mut sig = String::new();
    let mut conv = String::new();
    let mut checks = String::new();
    let mut outs = vec![];
    for p in &e.params {
        let _ = write!(sig, "{}: {}, ", p.rust_name(), p.rust_type());
        conv.push_str(&conversion(p));
        if p.kind == Kind::Out {
            let _ = writeln!(
                checks,
                "            arg::non_null({}, {:?})?;",
                p.rust_name(),
                p.name
            );
            outs.push(p);
        }
    }
    let names: Vec<String> = outs
        .iter()
        .map(|p| format!("{}_value", p.rust_name()))
        .collect();
    let pattern = if names.len() == 1 {
        names[0].clone()
    } else {
        format!("({})", names.join(", "))
    };
    let mut writes = String::new();
    for (p, v) in outs.iter().zip(&names) {
        let _ = writeln!(
            writes,
            "            unsafe {{ arg::write({}, {:?}, {v})? }};",
            p.rust_name(),
            p.name
        );
    }
    let call = rename_keywords(&e.call, &e.params);
    let doc: String = e.doc.iter().map(|d| format!("    /// {d}\n")).collect();
    let ret_rust = e
        .ret
        .as_deref()
        .map(|c| VALUES.iter().find(|v| v.0 == c).unwrap().1);
    match ret_rust {
        Some(ty) => {
            let _ = write!(
                s,
                "\n    // src/capi/ops/{stem}.decl:{line}\n{doc}    #[unsafe(no_mangle)]\n    pub unsafe extern \"C\" fn {name}({sig}) -> {ty} {{\n        guard::guard({name:?}, |_| Default::default(), || {{\n{conv}            {call}\n        }})\n    }}\n",
                stem = f.stem,
                line = e.line,
                name = e.name,
            );
        }
        None => {
            let _ = write!(
                s,
                "\n    // src/capi/ops/{stem}.decl:{line}\n{doc}    #[unsafe(no_mangle)]\n    pub unsafe extern \"C\" fn {name}({sig}) -> aclnnStatus {{\n        guard::status({name:?}, || {{\n{conv}{checks}            let {pattern} = {call}?;\n{writes}            Ok(())\n        }})\n    }}\n",
                stem = f.stem,
                line = e.line,
                name = e.name,
            );
        }
    }
    // The caller from an ArgSource: out-parameters point at locals unless the source asks
    // for NULL.
    let mut locals = String::new();
    let mut args = String::new();
    for (i, p) in e.params.iter().enumerate() {
        if p.kind == Kind::Out {
            let _ = write!(
                locals,
                "let mut o{i}: {} = Default::default(); ",
                p.out_type()
            );
            let _ = write!(
                args,
                "if a.out_is_null(&P[{i}]) {{ ::std::ptr::null_mut() }} else {{ &mut o{i} }}, "
            );
        } else {
            args.push_str(&source_method(p).replace("{i}", &i.to_string()));
            args.push_str(", ");
        }
    }
    // A value-returning function's call reports success (its value is no status).
    let (open, close) = if e.ret.is_some() {
        ("let _ = ", "; 0")
    } else {
        ("", "")
    };
    let _ = write!(
        registry,
        "    {{\n        const P: &[Param] = &[{params}];\n        Plain {{\n            header: {header:?},\n            name: {name:?},\n            params: P,\n            c_proto: {c:?},\n            call: |{src}| unsafe {{ {locals}{open}{module}::{name}({args}){close} }},\n        }}\n    }},\n",
        src = if e.params.is_empty() { "_" } else { "a" },
        params = param_rows(&e.params),
        header = f.header_name(),
        name = e.name,
        module = f.module(),
        c = e.c_phase1(),
    );
}

fn c_comment(lines: &[String], indent: &str) -> String {
    if lines.is_empty() {
        return String::new();
    }
    let mut s = format!("{indent}/*\n");
    for l in lines {
        let l = l.replace("*/", "* /");
        if l.is_empty() {
            s += &format!("{indent} *\n");
        } else {
            s += &format!("{indent} * {l}\n");
        }
    }
    s + &format!("{indent} */\n")
}

/// The header `aclnnop/aclnn_<stem>.h` of one file.
pub fn header(f: &File) -> String {
    let banner = format!(
        "/* Generated by build.rs from src/capi/ops/{}.decl (aclnn-cpu) — do not edit. */",
        f.stem
    );
    let guard = format!(
        "ACLNN_CPU_ACLNNOP_{}",
        f.header_name().replace('.', "_").to_uppercase()
    );
    let mut s = format!(
        "{banner}\n\n#ifndef {guard}\n#define {guard}\n\n#include <stdint.h>\n#include <stddef.h>\n#include <stdbool.h>\n#include \"../aclnn/aclnn_base.h\"\n#include \"aclnn_util.h\"\n\n"
    );
    s += &c_comment(&f.doc, "");
    if !f.doc.is_empty() {
        s += "\n";
    }
    s += "#ifdef __cplusplus\nextern \"C\" {\n#endif\n";
    for e in &f.entries {
        let dep = match &e.deprecated {
            Some(m) => format!("ACL_DEPRECATED_MESSAGE(\"{m}\") "),
            None => String::new(),
        };
        s += "\n";
        s += &c_comment(&e.doc, "");
        if e.plain {
            s += &format!("{dep}ACLNN_API {};\n", e.c_phase1());
            continue;
        }
        s += &format!("{dep}ACLNN_API {};\n\n", e.c_phase1());
        s += &c_comment(
            &[format!(
                "Phase 2 of {}: queues the planned work on `stream`.",
                e.name
            )],
            "",
        );
        s += &format!("{dep}ACLNN_API {};\n", e.c_phase2());
    }
    s += "\n#ifdef __cplusplus\n}\n#endif\n\n";
    s += &format!("#endif /* {guard} */\n");
    s
}

/// Reads and parses every `.decl` file of `dir`, sorted by name.
pub fn read_dir(dir: &std::path::Path) -> Result<Vec<File>, String> {
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "decl"))
        .collect();
    paths.sort();
    let mut files = vec![];
    for p in paths {
        let stem = p.file_stem().unwrap().to_string_lossy().to_string();
        let text = std::fs::read_to_string(&p).map_err(|e| format!("{}: {e}", p.display()))?;
        files.push(parse(&stem, &text)?);
    }
    let mut seen = std::collections::HashMap::new();
    for f in &files {
        for e in &f.entries {
            if let Some(other) = seen.insert(e.name.clone(), f.stem.clone()) {
                return Err(format!(
                    "{} is declared in both {other}.decl and {}.decl",
                    e.name, f.stem
                ));
            }
        }
    }
    Ok(files)
}
