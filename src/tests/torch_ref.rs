//! A PyTorch reference for the differential tests: Debian's torch (`/usr/bin/python3` with
//! python3-torch and python3-numpy, not whatever `python3` is first on PATH) runs a batch of
//! cases in one process.
//!
//! A test registers a few *programs* (Python snippets that read the case's inputs from the
//! list `a` and assign `out`, one tensor or a tuple/list of them) and adds cases, each a
//! program and its inputs: contiguous arrays given as raw little-endian bytes, a dtype and a
//! shape (or `None`, passed to the program as Python's None). [`Batch::run`] writes every
//! input to a temporary directory, runs one generated script over all cases and reads the
//! results back the same way: per case, its output arrays (contiguous, little-endian), or
//! the text of the exception torch raised.
//!
//! Scalars and integer attributes travel as 1-element arrays (`a[1].item()` in the program
//! gives a Python float or int with the exact value).
//!
//! If `/usr/bin/python3` (or `ACLNN_CPU_TORCH_PYTHON`) cannot import torch and numpy, [`Batch::run`] returns `None` after
//! printing that the torch comparison was skipped, so that the checks that need no torch
//! still run; with `ACLNN_CPU_REQUIRE_TORCH=1` (set by .ci/test, which installs the
//! packages) it panics instead.

use crate::dtype::DType;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The interpreter the reference runs on: Debian's, where python3-torch installs
/// (`ACLNN_CPU_TORCH_PYTHON` names another).
fn python() -> String {
    std::env::var("ACLNN_CPU_TORCH_PYTHON").unwrap_or_else(|_| "/usr/bin/python3".into())
}

/// A contiguous array: row-major little-endian elements of `dtype`.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Array {
    pub dtype: DType,
    pub shape: Vec<usize>,
    pub bytes: Vec<u8>,
}

impl Array {
    pub(super) fn numel(&self) -> usize {
        self.shape.iter().product()
    }
    /// The bytes of element `i` (row-major).
    pub(super) fn elem(&self, i: usize) -> &[u8] {
        let sz = elem_size(self.dtype);
        &self.bytes[i * sz..(i + 1) * sz]
    }
    pub(super) fn f64s(shape: &[usize], v: &[f64]) -> Array {
        Array {
            dtype: DType::F64,
            shape: shape.to_vec(),
            bytes: v.iter().flat_map(|x| x.to_le_bytes()).collect(),
        }
    }
    pub(super) fn i64s(shape: &[usize], v: &[i64]) -> Array {
        Array {
            dtype: DType::S64,
            shape: shape.to_vec(),
            bytes: v.iter().flat_map(|x| x.to_le_bytes()).collect(),
        }
    }
    /// A 1-element array holding an integer attribute (read with `a[k].item()`).
    pub(super) fn int(v: i64) -> Array {
        Array::i64s(&[1], &[v])
    }
    /// The elements as f64 (float dtypes only).
    pub(super) fn to_f64s(&self) -> Vec<f64> {
        (0..self.numel())
            .map(|i| {
                let b = self.elem(i);
                match self.dtype {
                    DType::F64 => f64::from_le_bytes(b.try_into().unwrap()),
                    DType::F32 => f32::from_le_bytes(b.try_into().unwrap()) as f64,
                    DType::F16 => half::f16::from_le_bytes(b.try_into().unwrap()).to_f64(),
                    DType::BF16 => half::bf16::from_le_bytes(b.try_into().unwrap()).to_f64(),
                    d => panic!("to_f64s of a {d} array"),
                }
            })
            .collect()
    }
}

fn elem_size(d: DType) -> usize {
    use DType::*;
    match d {
        S4 => unreachable!("ACL_INT4 is a storage dtype: no table of these tests covers it"),
        Bool | S8 | U8 => 1,
        F16 | BF16 | S16 | U16 => 2,
        F32 | S32 | U32 | C32 => 4,
        F64 | S64 | U64 | C64 => 8,
        C128 => 16,
    }
}

/// (torch dtype, numpy dtype the bytes are read as, whether the torch tensor is a
/// bit-for-bit `view` of the numpy one). numpy has no bfloat16: bf16 goes through int16.
fn names(d: DType) -> (&'static str, &'static str, bool) {
    use DType::*;
    match d {
        F32 => ("float32", "<f4", false),
        F64 => ("float64", "<f8", false),
        F16 => ("float16", "<f2", false),
        BF16 => ("bfloat16", "<i2", true),
        S8 => ("int8", "i1", false),
        U8 => ("uint8", "u1", false),
        S16 => ("int16", "<i2", false),
        S32 => ("int32", "<i4", false),
        S64 => ("int64", "<i8", false),
        Bool => ("bool", "?", false),
        C64 => ("complex64", "<c8", false),
        C128 => ("complex128", "<c16", false),
        d => panic!("the torch reference has no dtype {d}"),
    }
}

fn by_torch_name(s: &str) -> DType {
    use DType::*;
    for d in [F32, F64, F16, BF16, S8, U8, S16, S32, S64, Bool, C64, C128] {
        if names(d).0 == s {
            return d;
        }
    }
    panic!("torch returned dtype {s}, which the reference does not map")
}

/// Whether /usr/bin/python3 imports torch and numpy (checked once). Without them this
/// panics when ACLNN_CPU_REQUIRE_TORCH=1, else returns the reason.
pub(super) fn available() -> Result<(), String> {
    static STATE: OnceLock<Result<(), String>> = OnceLock::new();
    let r = STATE
        .get_or_init(|| {
            let out = Command::new(python())
                .args(["-c", "import torch, numpy; print(torch.__version__)"])
                .output();
            match out {
                Ok(o) if o.status.success() => Ok(()),
                Ok(o) => Err(format!(
                    "{} cannot import torch and numpy: {}",
                    python(),
                    String::from_utf8_lossy(&o.stderr).trim()
                )),
                Err(e) => Err(format!("{} cannot be run: {e}", python())),
            }
        })
        .clone();
    if let Err(why) = &r {
        if std::env::var("ACLNN_CPU_REQUIRE_TORCH").as_deref() == Ok("1") {
            panic!(
                "ACLNN_CPU_REQUIRE_TORCH=1 but the PyTorch reference is missing: {why}\n\
                 install it with `apt-get install python3-torch python3-numpy` (Debian's torch \
                 for /usr/bin/python3)"
            );
        }
    }
    r
}

/// One case's result: its outputs, or torch's exception text.
pub(super) type Outcome = Result<Vec<Array>, String>;

/// Programs and cases, run together in one Python process.
#[derive(Default)]
pub(super) struct Batch {
    programs: Vec<String>,
    cases: Vec<(usize, Vec<Option<Array>>)>,
}

impl Batch {
    pub(super) fn new() -> Batch {
        Batch::default()
    }

    /// Registers a program: Python statements reading the inputs `a[0]`, `a[1]`, ... (torch
    /// tensors or None) that assign `out` (a tensor, or a tuple/list of tensors). `torch`,
    /// `F` (torch.nn.functional) and `np` are in scope.
    pub(super) fn program(&mut self, code: &str) -> usize {
        if let Some(i) = self.programs.iter().position(|p| p == code) {
            return i;
        }
        self.programs.push(code.to_string());
        self.programs.len() - 1
    }

    /// Adds a case of program `prog`; returns its index in the results.
    pub(super) fn case(&mut self, prog: usize, inputs: Vec<Option<Array>>) -> usize {
        assert!(prog < self.programs.len());
        self.cases.push((prog, inputs));
        self.cases.len() - 1
    }

    pub(super) fn len(&self) -> usize {
        self.cases.len()
    }

    /// Runs every case. `None`: torch is not available (a line says the comparison named
    /// `what` was skipped).
    pub(super) fn run(&self, what: &str) -> Option<Vec<Outcome>> {
        if let Err(why) = available() {
            // Straight to stderr, past the test harness's capture: the skip must show.
            use std::io::Write;
            let _ = writeln!(
                std::io::stderr(),
                "{what}: torch comparison skipped ({why})"
            );
            return None;
        }
        if self.cases.is_empty() {
            return Some(vec![]);
        }
        let dir = TempDir::new();
        Some(self.run_in(&dir.0, what))
    }

    fn run_in(&self, dir: &Path, what: &str) -> Vec<Outcome> {
        let mut manifest = String::new();
        for (c, (prog, inputs)) in self.cases.iter().enumerate() {
            let _ = write!(manifest, "{c} {prog} {}", inputs.len());
            for (k, a) in inputs.iter().enumerate() {
                match a {
                    None => manifest.push_str(" none"),
                    Some(a) => {
                        assert_eq!(
                            a.bytes.len(),
                            a.numel() * elem_size(a.dtype),
                            "case {c} input {k}: {} bytes for a {} array of shape {:?}",
                            a.bytes.len(),
                            a.dtype,
                            a.shape
                        );
                        std::fs::write(dir.join(format!("i{c}_{k}.bin")), &a.bytes).unwrap();
                        let (t, n, v) = names(a.dtype);
                        let dims: Vec<String> = a.shape.iter().map(|d| d.to_string()).collect();
                        let _ = write!(manifest, " {t},{n},{},{}", v as u8, dims.join("x"));
                    }
                }
            }
            manifest.push('\n');
        }
        std::fs::write(dir.join("manifest.txt"), manifest).unwrap();
        let mut script = String::from(SCRIPT_HEAD);
        for (i, p) in self.programs.iter().enumerate() {
            let _ = writeln!(script, "def _p{i}(a):");
            for line in p.lines() {
                let _ = writeln!(script, "    {line}");
            }
            let _ = writeln!(script, "    return out\nPROGS.append(_p{i})");
        }
        script.push_str(SCRIPT_TAIL);
        std::fs::write(dir.join("run.py"), &script).unwrap();
        let out = Command::new(python())
            .arg(dir.join("run.py"))
            .arg(dir)
            .env("OMP_NUM_THREADS", "1")
            .output()
            .unwrap_or_else(|e| panic!("{what}: cannot run {}: {e}", python()));
        assert!(
            out.status.success(),
            "{what}: the torch script failed ({}):\n{}\n--- script ---\n{script}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        let results = std::fs::read_to_string(dir.join("results.txt"))
            .unwrap_or_else(|e| panic!("{what}: no results from torch: {e}"));
        let mut outcomes: Vec<Option<Outcome>> = vec![None; self.cases.len()];
        for line in results.lines() {
            let (c, rest) = line.split_once(' ').unwrap();
            let c: usize = c.parse().unwrap();
            let (kind, rest) = rest.split_once(' ').unwrap_or((rest, ""));
            outcomes[c] = Some(match kind {
                "err" => Err(rest.to_string()),
                "ok" => Ok(rest
                    .split_whitespace()
                    .enumerate()
                    .map(|(k, spec)| {
                        let (t, dims) = spec.split_once(',').unwrap();
                        let dtype = by_torch_name(t);
                        let shape: Vec<usize> = if dims.is_empty() {
                            vec![]
                        } else {
                            dims.split('x').map(|d| d.parse().unwrap()).collect()
                        };
                        let bytes = std::fs::read(dir.join(format!("o{c}_{k}.bin"))).unwrap();
                        let a = Array {
                            dtype,
                            shape,
                            bytes,
                        };
                        assert_eq!(a.bytes.len(), a.numel() * elem_size(dtype));
                        a
                    })
                    .collect()),
                k => panic!("{what}: unexpected result line kind {k:?}"),
            });
        }
        outcomes
            .into_iter()
            .enumerate()
            .map(|(c, o)| o.unwrap_or_else(|| panic!("{what}: torch wrote no result for case {c}")))
            .collect()
    }
}

const SCRIPT_HEAD: &str = r#"import os, sys
import numpy as np
import torch
import torch.nn.functional as F
torch.set_num_threads(1)
D = sys.argv[1]
PROGS = []
"#;

const SCRIPT_TAIL: &str = r#"
def _load(c, k, spec):
    t, n, v, dims = spec.split(",")
    shape = [int(d) for d in dims.split("x")] if dims else []
    arr = np.fromfile(os.path.join(D, "i%d_%d.bin" % (c, k)), dtype=np.dtype(n)).reshape(shape)
    x = torch.from_numpy(arr.copy())
    return x.view(getattr(torch, t)) if v == "1" else x

def _save(c, k, x):
    x = x.detach().contiguous().cpu()
    name = str(x.dtype).replace("torch.", "")
    raw = x.view(torch.int16) if x.dtype == torch.bfloat16 else x
    raw.numpy().tofile(os.path.join(D, "o%d_%d.bin" % (c, k)))
    return "%s,%s" % (name, "x".join(str(d) for d in x.shape))

with open(os.path.join(D, "results.txt"), "w") as res:
    for line in open(os.path.join(D, "manifest.txt")):
        f = line.split()
        c, p, n = int(f[0]), int(f[1]), int(f[2])
        a = [None if s == "none" else _load(c, k, s) for k, s in enumerate(f[3:3 + n])]
        try:
            out = PROGS[p](a)
            outs = list(out) if isinstance(out, (tuple, list)) else [out]
            specs = [_save(c, k, o) for k, o in enumerate(outs)]
            res.write("%d ok %s\n" % (c, " ".join(specs)))
        except Exception as e:
            res.write("%d err %s: %s\n" % (c, type(e).__name__, " ".join(str(e).split())))
"#;

/// A directory removed on drop.
struct TempDir(PathBuf);
impl TempDir {
    fn new() -> TempDir {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static N: AtomicUsize = AtomicUsize::new(0);
        let p = std::env::temp_dir().join(format!(
            "aclnn-cpu-torch-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        TempDir(p)
    }
}
impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn reference_round_trips_every_dtype_and_reports_exceptions() {
    use DType::*;
    let mut b = Batch::new();
    let id = b.program("out = a[0]");
    let twice = b.program("out = (a[0] * 2, a[0].shape[0] + torch.zeros(()))");
    let none = b.program("out = torch.tensor(float(a[0] is None))");
    let bad = b.program("raise ValueError('no\\nway')");
    let mut arrays = vec![];
    for d in [F32, F64, F16, BF16, S8, U8, S16, S32, S64, Bool, C64, C128] {
        let sz = elem_size(d);
        let mut bytes: Vec<u8> = (0..6 * sz).map(|i| (i * 37 % 251) as u8).collect();
        if d == Bool {
            bytes.iter_mut().for_each(|x| *x &= 1);
        }
        arrays.push(Array {
            dtype: d,
            shape: vec![2, 3],
            bytes,
        });
    }
    let empty = Array {
        dtype: F32,
        shape: vec![0, 4],
        bytes: vec![],
    };
    let zero_d = Array::f64s(&[], &[-0.0]);
    for a in &arrays {
        b.case(id, vec![Some(a.clone())]);
    }
    let e = b.case(id, vec![Some(empty.clone())]);
    let z = b.case(id, vec![Some(zero_d.clone())]);
    let t = b.case(twice, vec![Some(Array::f64s(&[3], &[1.5, -2.0, f64::NAN]))]);
    let n = b.case(none, vec![None]);
    let x = b.case(bad, vec![]);
    let Some(r) = b.run("torch_ref self-check") else {
        return;
    };
    for (i, a) in arrays.iter().enumerate() {
        let got = &r[i].as_ref().unwrap()[0];
        // NaN payloads may be quieted on the way; these bytes hold none for f16/bf16.
        assert_eq!(got, a, "round trip of {}", a.dtype);
    }
    assert_eq!(r[e].as_ref().unwrap()[0], empty);
    assert_eq!(r[z].as_ref().unwrap()[0], zero_d);
    let t = r[t].as_ref().unwrap();
    assert_eq!(t[0].to_f64s()[..2], [3.0, -4.0]);
    assert!(t[0].to_f64s()[2].is_nan());
    assert_eq!((t[1].shape.clone(), t[1].to_f64s()), (vec![], vec![3.0]));
    assert_eq!(r[n].as_ref().unwrap()[0].to_f64s(), vec![1.0]);
    assert_eq!(r[x], Err("ValueError: no way".to_string()));
}
