//! The operator declarations (`src/capi/ops/*.decl`) and what follows from them: every
//! declared entry point checks its arguments the same way, whatever its rule.

use crate::capi::guard::last_error_ptr;
use crate::capi::meta::*;
use crate::capi::ops::{ArgSource, Kind, Param, DECLARED, PLAIN};
use crate::capi::runtime::{aclInit, aclrtSetDevice};
use std::ffi::{c_char, CStr};
use std::ptr::null_mut;

fn device() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let _ = aclInit(std::ptr::null());
        assert_eq!(aclrtSetDevice(0), 0);
    });
}

fn last_error() -> String {
    unsafe { CStr::from_ptr(last_error_ptr()) }
        .to_string_lossy()
        .into_owned()
}

/// Every handle NULL, every value 0, except the parameters `live` names, which get the
/// pointers it holds (`stale`: handles already destroyed).
#[derive(Default)]
struct Nulls {
    stale: bool,
    /// The index of the parameter to give a stale handle.
    at: usize,
    i: usize,
    stale_tensor: usize,
    stale_scalar: usize,
    stale_int_array: usize,
    stale_tensor_list: usize,
}

impl Nulls {
    fn next<T>(&mut self, stale: usize) -> *mut T {
        let i = self.i;
        self.i += 1;
        if self.stale && i == self.at {
            stale as *mut T
        } else {
            null_mut()
        }
    }
    fn skip(&mut self) {
        self.i += 1;
    }
}

impl ArgSource for Nulls {
    fn tensor(&mut self, _: &Param) -> *mut aclTensor {
        let s = self.stale_tensor;
        self.next(s)
    }
    fn scalar(&mut self, _: &Param) -> *mut aclScalar {
        let s = self.stale_scalar;
        self.next(s)
    }
    fn int_array(&mut self, _: &Param) -> *mut aclIntArray {
        let s = self.stale_int_array;
        self.next(s)
    }
    fn float_array(&mut self, _: &Param) -> *mut aclFloatArray {
        self.next(0)
    }
    fn bool_array(&mut self, _: &Param) -> *mut aclBoolArray {
        self.next(0)
    }
    fn tensor_list(&mut self, _: &Param) -> *mut aclTensorList {
        let s = self.stale_tensor_list;
        self.next(s)
    }
    fn scalar_list(&mut self, _: &Param) -> *mut aclScalarList {
        self.next(0)
    }
    fn int(&mut self, _: &Param) -> i64 {
        self.skip();
        0
    }
    fn float(&mut self, _: &Param) -> f64 {
        self.skip();
        0.0
    }
    fn bool(&mut self, _: &Param) -> bool {
        self.skip();
        false
    }
    fn dtype(&mut self, _: &Param) -> i32 {
        self.skip();
        0
    }
    fn string(&mut self, _: &Param) -> *const c_char {
        self.next(0)
    }
}

fn is_handle(k: Kind) -> bool {
    !matches!(k, Kind::Int | Kind::Float | Kind::Bool | Kind::DType)
}

/// A NULL required argument is ACLNN_ERR_PARAM_NULLPTR (161001) naming the first one in
/// the prototype's order; nothing is written to the executor out-parameter.
#[test]
fn every_declared_entry_names_its_first_null_argument() {
    device();
    assert!(DECLARED.len() > 100, "{} entries declared", DECLARED.len());
    for d in DECLARED {
        let first = d
            .params
            .iter()
            .find(|p| is_handle(p.kind) && !p.optional)
            .unwrap_or_else(|| panic!("{}: no required handle parameter", d.name));
        let mut ws = 7u64;
        let mut ex = 0x5a5a as *mut aclOpExecutor;
        let st = unsafe { (d.phase1)(&mut Nulls::default(), &mut ws, &mut ex) };
        assert_eq!(
            st,
            161001,
            "{}: all-NULL arguments: {}",
            d.name,
            last_error()
        );
        let msg = last_error();
        let want = format!(
            "{}GetWorkspaceSize: argument '{}' is NULL",
            d.name, first.name
        );
        assert_eq!(msg, want, "{}", d.name);
        assert_eq!(
            (ws, ex as usize),
            (7, 0x5a5a),
            "{}: out-parameters written on error",
            d.name
        );
    }
}

/// A destroyed handle in any parameter is ACLNN_ERR_PARAM_INVALID (161002) naming that
/// parameter and its kind: nothing dereferences it.
#[test]
fn every_declared_entry_refuses_stale_handles() {
    device();
    let dims = [2i64];
    let t = unsafe {
        aclCreateTensor(
            dims.as_ptr(),
            1,
            0,
            std::ptr::null(),
            0,
            2,
            dims.as_ptr(),
            1,
            null_mut(),
        )
    };
    let mut v = 1.0f32;
    let s = unsafe { aclCreateScalar(&mut v as *mut f32 as *mut _, 0) };
    let a = unsafe { aclCreateIntArray(dims.as_ptr(), 1) };
    let l = unsafe { aclCreateTensorList(std::ptr::null(), 0) };
    assert!(!t.is_null() && !s.is_null() && !a.is_null() && !l.is_null());
    assert_eq!(aclDestroyTensor(t), 0);
    assert_eq!(aclDestroyScalar(s), 0);
    assert_eq!(aclDestroyIntArray(a), 0);
    assert_eq!(aclDestroyTensorList(l), 0);
    let mut checked = 0;
    for d in DECLARED {
        for (i, p) in d.params.iter().enumerate() {
            let kind = match p.kind {
                Kind::Tensor => "aclTensor",
                Kind::Scalar => "aclScalar",
                Kind::IntArray => "aclIntArray",
                Kind::TensorList => "aclTensorList",
                _ => continue,
            };
            // Only the first handle parameter: later ones are reached after a NULL.
            if d.params[..i]
                .iter()
                .any(|q| is_handle(q.kind) && !q.optional)
            {
                continue;
            }
            let mut src = Nulls {
                stale: true,
                at: i,
                stale_tensor: t as usize,
                stale_scalar: s as usize,
                stale_int_array: a as usize,
                stale_tensor_list: l as usize,
                ..Default::default()
            };
            let mut ws = 0u64;
            let mut ex = null_mut();
            let st = unsafe { (d.phase1)(&mut src, &mut ws, &mut ex) };
            let msg = last_error();
            assert_eq!(st, 161002, "{} {}: {msg}", d.name, p.name);
            assert!(
                msg.contains(&format!("argument '{}' is not a live {kind}", p.name)),
                "{} {}: {msg}",
                d.name,
                p.name
            );
            assert!(ex.is_null());
            checked += 1;
        }
    }
    assert!(checked > 100, "{checked}");
}

/// The registry is the headers: every entry's prototype appears, as CANN spells it, in
/// the committed header it names (plain functions too), and every header under
/// include/aclnnop/ (but the utility header and build.rs's include wrappers) is a declared
/// one.
#[test]
fn declared_prototypes_are_the_committed_headers() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("include/aclnnop");
    for d in DECLARED {
        let text = std::fs::read_to_string(dir.join(d.header)).unwrap();
        for proto in [d.c_phase1, d.c_phase2] {
            let line = format!("ACLNN_API {proto};");
            assert!(text.contains(&line), "{} lacks `{line}`", d.header);
        }
    }
    for p in PLAIN {
        let text = std::fs::read_to_string(dir.join(p.header)).unwrap();
        let line = format!("ACLNN_API {};", p.c_proto);
        assert!(text.contains(&line), "{} lacks `{line}`", p.header);
    }
    for e in std::fs::read_dir(&dir).unwrap() {
        let name = e.unwrap().file_name().to_string_lossy().into_owned();
        // aclnn_logsoftmax.h includes aclnn_log_softmax.h (build.rs): CANN's two names.
        if name == "aclnn_util.h" || name == "aclnn_logsoftmax.h" {
            continue;
        }
        assert!(
            DECLARED.iter().any(|d| d.header == name) || PLAIN.iter().any(|p| p.header == name),
            "include/aclnnop/{name} is not generated from any declaration: delete it"
        );
    }
}
