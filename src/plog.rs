//! CANN-style logs ("plog"): the `log` crate's macros with a small sink of our own that
//! honours CANN's environment variables with CANN's meanings and writes CANN's line format,
//! so the grep habits people have for plogs work here too.
//!
//! - `ASCEND_GLOBAL_LOG_LEVEL`: 0 debug, 1 info, 2 warning, 3 error (the default), 4 null.
//! - `ASCEND_MODULE_LOG_LEVEL`: per-module levels overriding it, `OP=1:ASCENDCL=0`.
//!   Modules: `ASCENDCL` (runtime acl* calls), `OP` (aclnn operators), `RUNTIME` (stream
//!   work), `PROFILING` (aclprof and ACLNN_CPU_PROFILE).
//! - `ASCEND_SLOG_PRINT_TO_STDOUT=1`: lines go to stdout instead of a file.
//! - `ASCEND_PROCESS_LOG_PATH`: the log root (default `~/ascend/log`); each process writes
//!   `<root>/debug/plog/plog-<pid>_<timestamp>.log`, created at its first line. A file that
//!   reaches 20 MiB is renamed `.log.1` (replacing the previous one) and a new one begun, so
//!   a process keeps at most 40 MiB.
//!
//! A line: `[ERROR] OP(1234,prog):2026-12-01-12:51:12.345.678 [guard.rs:70]1235 aclnnAdd: ...`
//! (level, module, pid, process name, local time to the microsecond, source file:line,
//! thread id, message).
//!
//! Off costs nothing: the macros compare the level with `log::max_level()` (one atomic
//! load) before formatting anything, and the max level is the most verbose level any module
//! asks for.

use log::{Level, LevelFilter, Log, Metadata, Record};
use std::io::Write;
use std::path::PathBuf;
use std::sync::{Mutex, Once};

pub const GLOBAL_LEVEL_ENV: &str = "ASCEND_GLOBAL_LOG_LEVEL";
pub const MODULE_LEVEL_ENV: &str = "ASCEND_MODULE_LOG_LEVEL";
pub const STDOUT_ENV: &str = "ASCEND_SLOG_PRINT_TO_STDOUT";
pub const LOG_PATH_ENV: &str = "ASCEND_PROCESS_LOG_PATH";

/// Module names (the `log` targets this crate logs with).
pub const ASCENDCL: &str = "ASCENDCL";
pub const OP: &str = "OP";
pub const RUNTIME: &str = "RUNTIME";
pub const PROFILING: &str = "PROFILING";

/// A plog file is rotated at this size.
const MAX_FILE_BYTES: u64 = 20 << 20;

/// CANN's level number -> the filter it means; None for a value CANN does not define
/// (then the default stands).
pub fn cann_level(v: &str) -> Option<LevelFilter> {
    Some(match v.trim() {
        "0" => LevelFilter::Debug,
        "1" => LevelFilter::Info,
        "2" => LevelFilter::Warn,
        "3" => LevelFilter::Error,
        "4" => LevelFilter::Off,
        _ => return None,
    })
}

/// The levels a configuration asks for: a global one and per-module overrides.
#[derive(Debug, Clone, PartialEq)]
pub struct Levels {
    pub global: LevelFilter,
    pub modules: Vec<(String, LevelFilter)>,
}

impl Levels {
    /// From the two variables' values (None: unset). Malformed entries are ignored, as CANN does.
    pub fn parse(global: Option<&str>, modules: Option<&str>) -> Levels {
        let global = global.and_then(cann_level).unwrap_or(LevelFilter::Error);
        let modules = modules
            .unwrap_or("")
            .split(':')
            .filter_map(|kv| {
                let (m, v) = kv.split_once('=')?;
                Some((m.trim().to_ascii_uppercase(), cann_level(v)?))
            })
            .collect();
        Levels { global, modules }
    }

    pub fn for_module(&self, module: &str) -> LevelFilter {
        self.modules
            .iter()
            .rev()
            .find(|(m, _)| m == module)
            .map_or(self.global, |(_, l)| *l)
    }

    /// The most verbose level any module may log at (what `log::max_level` is set to).
    pub fn max(&self) -> LevelFilter {
        self.modules
            .iter()
            .map(|(_, l)| *l)
            .fold(self.global, Ord::max)
    }
}

enum Out {
    Stdout,
    /// The log directory; the file is opened at the first line.
    File {
        dir: PathBuf,
        file: Option<(PathBuf, std::fs::File, u64)>,
    },
    /// Lines captured by a test.
    #[cfg(test)]
    Capture(Vec<String>),
}

struct Sink {
    levels: Levels,
    out: Mutex<Out>,
    pid: u32,
    process: String,
}

fn level_name(l: Level) -> &'static str {
    match l {
        Level::Error => "ERROR",
        Level::Warn => "WARNING",
        Level::Info => "INFO",
        Level::Debug | Level::Trace => "DEBUG",
    }
}

/// Local time as CANN prints it: 2026-12-01-12:51:12.345.678.
fn timestamp() -> String {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    let tm = local_time(now.as_secs());
    let us = now.subsec_micros();
    format!(
        "{:04}-{:02}-{:02}-{:02}:{:02}:{:02}.{:03}.{:03}",
        tm.tm_year + 1900,
        tm.tm_mon + 1,
        tm.tm_mday,
        tm.tm_hour,
        tm.tm_min,
        tm.tm_sec,
        us / 1000,
        us % 1000
    )
}

/// The broken-down local time of `secs` since the epoch.
#[cfg(not(miri))]
fn local_time(secs: u64) -> libc::tm {
    let secs = secs as libc::time_t;
    // SAFETY: localtime_r writes only into `tm`.
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    unsafe { libc::localtime_r(&secs, &mut tm) };
    tm
}

/// Miri has no localtime_r: UTC from the epoch seconds.
#[cfg(miri)]
fn local_time(secs: u64) -> libc::tm {
    // SAFETY: a plain C struct of integers (and a pointer left NULL).
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    tm.tm_hour = (rem / 3600) as i32;
    tm.tm_min = (rem % 3600 / 60) as i32;
    tm.tm_sec = (rem % 60) as i32;
    // Civil date from days since 1970-01-01 (H. Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    tm.tm_year = (y - 1900) as i32;
    tm.tm_mon = (m - 1) as i32;
    tm.tm_mday = d as i32;
    tm
}

/// The OS thread id (what CANN's lines show), cached per thread.
pub fn thread_id() -> u64 {
    thread_local! {
        static TID: u64 = os_thread_id();
    }
    TID.with(|t| *t)
}

#[cfg(not(miri))]
fn os_thread_id() -> u64 {
    // SAFETY: gettid has no preconditions.
    unsafe { libc::syscall(libc::SYS_gettid) as u64 }
}

/// Miri has no gettid: a per-thread number.
#[cfg(miri)]
fn os_thread_id() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

/// The module a record belongs to: our targets are module names; anything else (a
/// dependency's log lines) counts as RUNTIME.
fn module_of<'a>(target: &'a str) -> &'a str {
    match target {
        ASCENDCL | OP | RUNTIME | PROFILING => target,
        _ => RUNTIME,
    }
}

impl Sink {
    fn line(&self, record: &Record) -> String {
        let file = record.file().unwrap_or("?");
        let file = file.rsplit('/').next().unwrap_or(file);
        format!(
            "[{}] {}({},{}):{} [{}:{}]{} {}\n",
            level_name(record.level()),
            module_of(record.target()),
            self.pid,
            self.process,
            timestamp(),
            file,
            record.line().unwrap_or(0),
            thread_id(),
            record.args()
        )
    }

    fn write(&self, line: String) {
        let mut out = self.out.lock().unwrap_or_else(|e| e.into_inner());
        match &mut *out {
            Out::Stdout => {
                let _ = std::io::stdout().lock().write_all(line.as_bytes());
            }
            Out::File { dir, file } => {
                if file.as_ref().is_some_and(|(_, _, n)| *n >= MAX_FILE_BYTES) {
                    if let Some((path, _, _)) = file.take() {
                        let mut old = path.clone().into_os_string();
                        old.push(".1");
                        let _ = std::fs::rename(&path, old);
                        *file = open_plog(dir, Some(path));
                    }
                }
                if file.is_none() {
                    *file = open_plog(dir, None);
                }
                if let Some((_, f, n)) = file {
                    if f.write_all(line.as_bytes()).is_ok() {
                        *n += line.len() as u64;
                    }
                }
            }
            #[cfg(test)]
            Out::Capture(v) => v.push(line),
        }
    }
}

/// Opens (creates) this process's plog file in `dir` (or `path` again after a rotation).
fn open_plog(
    dir: &std::path::Path,
    path: Option<PathBuf>,
) -> Option<(PathBuf, std::fs::File, u64)> {
    let path = path.unwrap_or_else(|| {
        let stamp: String = timestamp()
            .chars()
            .filter(char::is_ascii_digit)
            .take(17)
            .collect();
        dir.join(format!("plog-{}_{stamp}.log", std::process::id()))
    });
    std::fs::create_dir_all(dir).ok()?;
    let f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .ok()?;
    Some((path, f, 0))
}

impl Log for Sink {
    fn enabled(&self, m: &Metadata) -> bool {
        m.level() <= self.levels.for_module(module_of(m.target()))
    }

    fn log(&self, record: &Record) {
        if self.enabled(record.metadata()) {
            self.write(self.line(record));
        }
    }

    fn flush(&self) {}
}

fn process_name() -> String {
    if cfg!(miri) {
        return "miri".into();
    }
    std::env::current_exe()
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "unknown".into())
}

/// The log root: ASCEND_PROCESS_LOG_PATH, else ~/ascend/log.
pub fn log_root() -> PathBuf {
    match std::env::var_os(LOG_PATH_ENV).filter(|p| !p.is_empty()) {
        Some(p) => PathBuf::from(p),
        None => PathBuf::from(std::env::var_os("HOME").unwrap_or_else(|| "/tmp".into()))
            .join("ascend/log"),
    }
}

static INIT: Once = Once::new();

/// Installs the sink from the environment (once per process; later calls do nothing).
/// The library calls it when it is loaded, at aclInit, and before logging an error.
pub fn init() {
    INIT.call_once(|| {
        let env = |k| std::env::var(k).ok();
        let levels = Levels::parse(
            env(GLOBAL_LEVEL_ENV).as_deref(),
            env(MODULE_LEVEL_ENV).as_deref(),
        );
        let out = if env(STDOUT_ENV).is_some_and(|v| v.trim() == "1") {
            Out::Stdout
        } else {
            Out::File {
                dir: log_root().join("debug/plog"),
                file: None,
            }
        };
        install(levels, out);
    });
}

fn install(levels: Levels, out: Out) {
    let max = levels.max();
    let sink = Box::new(Sink {
        levels,
        out: Mutex::new(out),
        pid: std::process::id(),
        process: process_name(),
    });
    if log::set_boxed_logger(sink).is_ok() {
        log::set_max_level(max);
    }
}

/// Installs the sink when the library is loaded, so errors before aclInit are logged too.
/// (Not under Miri, which interprets only the tests' own calls.)
#[cfg(not(miri))]
#[used]
#[unsafe(link_section = ".init_array")]
static INIT_AT_LOAD: extern "C" fn() = {
    extern "C" fn at_load() {
        let _ = std::panic::catch_unwind(init);
    }
    at_load
};

/// The module an API's lines belong to: aclnn* is OP, aclprof* PROFILING, the rest ASCENDCL.
pub fn module_of_api(api: &str) -> &'static str {
    if api.starts_with("aclnn") {
        OP
    } else if api.starts_with("aclprof") {
        PROFILING
    } else {
        ASCENDCL
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plog_levels_follow_cann() {
        let l = Levels::parse(None, None);
        assert_eq!(l.global, LevelFilter::Error, "CANN's default is 3 (error)");
        let l = Levels::parse(Some("0"), None);
        assert_eq!(l.global, LevelFilter::Debug);
        let l = Levels::parse(Some("4"), Some("OP=1:ascendcl=2:BAD:RUNTIME=9"));
        assert_eq!(l.global, LevelFilter::Off);
        assert_eq!(l.for_module(OP), LevelFilter::Info);
        assert_eq!(l.for_module(ASCENDCL), LevelFilter::Warn);
        assert_eq!(
            l.for_module(RUNTIME),
            LevelFilter::Off,
            "an undefined level is ignored"
        );
        assert_eq!(l.max(), LevelFilter::Info);
        assert_eq!(Levels::parse(Some("7"), None).global, LevelFilter::Error);
    }

    #[test]
    fn plog_line_looks_like_cann() {
        let sink = Sink {
            levels: Levels::parse(Some("1"), None),
            out: Mutex::new(Out::Capture(Vec::new())),
            pid: 42,
            process: "prog".into(),
        };
        let args = format_args!("aclnnAdd: argument 'self' is NULL");
        let rec = Record::builder()
            .args(args)
            .level(Level::Error)
            .target(OP)
            .file(Some("src/capi/guard.rs"))
            .line(Some(70))
            .build();
        sink.log(&rec);
        let debug = Record::builder()
            .args(format_args!("x"))
            .level(Level::Debug)
            .target(OP)
            .build();
        sink.log(&debug);
        let out = sink.out.lock().unwrap();
        let Out::Capture(lines) = &*out else {
            unreachable!()
        };
        assert_eq!(lines.len(), 1, "debug is below info: {lines:?}");
        let l = &lines[0];
        assert!(l.starts_with("[ERROR] OP(42,prog):"), "{l}");
        assert!(l.contains(" [guard.rs:70]"), "{l}");
        assert!(l.ends_with(" aclnnAdd: argument 'self' is NULL\n"), "{l}");
        // The timestamp: YYYY-MM-DD-hh:mm:ss.mmm.uuu
        let ts = &l["[ERROR] OP(42,prog):".len()..][..26];
        assert_eq!(ts.len(), 26);
        assert_eq!(&ts[4..5], "-");
        assert_eq!(&ts[10..11], "-");
        assert_eq!(&ts[19..20], ".");
        assert_eq!(&ts[23..24], ".");
    }
}
