//! The timeline profile: what msprof shows on the device, as a Chrome trace event file
//! (Perfetto and chrome://tracing open it) plus an op summary CSV like msprof's op_summary.
//!
//! Recording is on between a start and a stop: `ACLNN_CPU_PROFILE=path.json` (from aclInit
//! to aclFinalize or process exit) or the aclprof C API (`capi::prof`). While it is off, the
//! hooks cost one relaxed atomic load (`on()`); while on, a hook takes a timestamp and pushes
//! a small record (the op's tensor views are an `Arc` clone, described only when the file is
//! written), which keeps the cost per operator well under a microsecond.
//!
//! Tracks: the host process has one track per host thread (phase-2 launches, synchronous
//! copies, synchronizes); each device has one track per stream (execution of ops, async
//! copies and memsets, event records and waits) and async slices for each op's queue wait
//! (from its launch to the start of its execution).

use crate::executor::Views;
use crate::runtime::stream::Stream;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock};
use std::time::Instant;

/// Environment variable: record from aclInit on and write the trace to this path.
pub const PROFILE_ENV: &str = "ACLNN_CPU_PROFILE";

static ON: AtomicBool = AtomicBool::new(false);
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// Whether a profile is being recorded (the only cost of a hook while it is not).
#[inline(always)]
pub fn on() -> bool {
    ON.load(Ordering::Relaxed)
}

fn epoch() -> Instant {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    *EPOCH.get_or_init(Instant::now)
}

/// Nanoseconds since the process's profiling epoch.
#[inline]
pub fn now() -> u64 {
    epoch().elapsed().as_nanos() as u64
}

/// Where a record is drawn.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Track {
    /// A host thread, by its OS thread id.
    Host(u64),
    /// A stream, by its address (see `stream_key`).
    Stream(usize),
}

/// What a record carries besides its name and times.
pub enum Detail {
    None,
    /// An operator's execution: its tensors (inputs first), workspace, and when it was queued.
    Op {
        views: Views,
        n_inputs: usize,
        workspace: u64,
        queued: u64,
    },
    /// A copy or memset of `bytes` bytes.
    Bytes(usize),
    /// An event record or wait, by the event's address.
    Event(usize),
    /// A user's mark (aclprofMarkEx).
    Message(String),
}

pub struct Record {
    pub track: Track,
    pub name: &'static str,
    pub cat: &'static str,
    pub start: u64,
    /// None: an instant.
    pub end: Option<u64>,
    pub detail: Detail,
}

/// The stream's identity in the profile: its address (stable while it lives; a stream
/// destroyed while recording is forgotten, so a new stream at the same address gets a new track).
pub fn stream_key(s: &Stream) -> usize {
    s as *const Stream as usize
}

struct StreamTrack {
    key: usize,
    device: i32,
    index: u32,
}

/// Records one recording keeps (about 100 bytes each); later ones are counted, not kept.
const MAX_RECORDS: usize = 1 << 20;

#[derive(Default)]
struct Recording {
    records: Vec<Record>,
    /// Records dropped past MAX_RECORDS (said in the trace's otherData and in the log).
    dropped: u64,
    streams: Vec<StreamTrack>,
    /// Streams forgotten (destroyed) while recording: (key, track index) pairs drawn already.
    retired: Vec<StreamTrack>,
    next_stream: u32,
    threads: Vec<(u64, String)>,
}

/// Where a stop writes: the trace JSON path (the CSV goes beside it).
static OUTPUT: Mutex<Option<PathBuf>> = Mutex::new(None);
static RECORDING: Mutex<Option<Recording>> = Mutex::new(None);

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// This host thread's track (by the OS thread id the logs show too).
pub fn host() -> Track {
    Track::Host(crate::plog::thread_id())
}

/// Starts recording (a no-op if already on); `output` is where `stop` writes the trace.
pub fn start(output: PathBuf) {
    let _ = epoch();
    let mut r = lock(&RECORDING);
    if r.is_none() {
        *r = Some(Recording::default());
    }
    *lock(&OUTPUT) = Some(output);
    drop(r);
    ON.store(true, Ordering::Release);
}

/// Pauses recording; what was recorded stays until `take`.
pub fn pause() {
    ON.store(false, Ordering::Release);
}

/// Resumes a paused recording.
pub fn resume() {
    if lock(&RECORDING).is_some() {
        ON.store(true, Ordering::Release);
    }
}

/// Stops recording and writes the trace and the op summary to the output path. Returns the
/// paths written (None if nothing was being recorded).
pub fn stop() -> std::io::Result<Option<(PathBuf, PathBuf)>> {
    ON.store(false, Ordering::Release);
    let Some(rec) = lock(&RECORDING).take() else {
        return Ok(None);
    };
    let Some(json) = lock(&OUTPUT).take() else {
        return Ok(None);
    };
    let csv = summary_path(&json);
    if let Some(dir) = json.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(&json, trace_json(&rec))?;
    std::fs::write(&csv, op_summary_csv(&rec))?;
    log::info!(target: "PROFILING", "profile written to {} and {}", json.display(), csv.display());
    Ok(Some((json, csv)))
}

/// `trace.json` -> `trace.op_summary.csv`.
pub fn summary_path(json: &Path) -> PathBuf {
    let stem = json
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    json.with_file_name(format!("{stem}.op_summary.csv"))
}

/// ACLNN_CPU_PROFILE: starts recording (aclInit calls this) and writes at exit if the
/// program never calls aclFinalize.
pub fn start_from_env() {
    let Some(path) = std::env::var_os(PROFILE_ENV).filter(|p| !p.is_empty()) else {
        return;
    };
    start(PathBuf::from(path));
    static AT_EXIT: std::sync::Once = std::sync::Once::new();
    AT_EXIT.call_once(|| {
        extern "C" fn write_at_exit() {
            let _ = std::panic::catch_unwind(stop_env);
        }
        // SAFETY: registering a plain extern "C" function.
        unsafe { libc::atexit(write_at_exit) };
    });
}

/// aclFinalize (and exit): writes the ACLNN_CPU_PROFILE trace, if that is what is recording.
pub fn stop_env() {
    let env = std::env::var_os(PROFILE_ENV).map(PathBuf::from);
    if env.is_some() && *lock(&OUTPUT) == env {
        if let Err(e) = stop() {
            log::error!(target: "PROFILING", "cannot write the profile {PROFILE_ENV}={:?}: {e}", env.unwrap_or_default());
        }
    }
}

/// Adds a record (dropped if recording stopped meanwhile).
pub fn push(rec: Record) {
    if let Some(r) = lock(&RECORDING).as_mut() {
        if r.records.len() >= MAX_RECORDS {
            if r.dropped == 0 {
                log::warn!(target: "PROFILING", "the profile holds {MAX_RECORDS} events: later ones are counted, not kept");
            }
            r.dropped += 1;
            return;
        }
        match rec.track {
            Track::Stream(key) => r.stream_seen(key),
            // Host records are pushed by the thread they belong to: name its track.
            Track::Host(tid) => {
                if !r.threads.iter().any(|t| t.0 == tid) {
                    let name = std::thread::current()
                        .name()
                        .unwrap_or("thread")
                        .to_string();
                    r.threads.push((tid, name));
                }
            }
        }
        r.records.push(rec);
    }
}

/// A stream is known with its device before anything runs on it.
pub fn stream_seen(s: &Stream) {
    if let Some(r) = lock(&RECORDING).as_mut() {
        let key = stream_key(s);
        if !r.streams.iter().any(|t| t.key == key) {
            r.next_stream += 1;
            r.streams.push(StreamTrack {
                key,
                device: s.device,
                index: r.next_stream,
            });
        }
    }
}

/// aclrtDestroyStream: later streams at this address get a track of their own.
pub fn forget_stream(s: &Stream) {
    if let Some(r) = lock(&RECORDING).as_mut() {
        let key = stream_key(s);
        if let Some(i) = r.streams.iter().position(|t| t.key == key) {
            let t = r.streams.remove(i);
            // Records made so far keep the old track: re-key them to the retired entry.
            let retired_key = usize::MAX - r.retired.len();
            for rec in r.records.iter_mut() {
                if rec.track == Track::Stream(key) {
                    rec.track = Track::Stream(retired_key);
                }
            }
            r.retired.push(StreamTrack {
                key: retired_key,
                ..t
            });
        }
    }
}

impl Recording {
    fn stream_seen(&mut self, key: usize) {
        if !self
            .streams
            .iter()
            .chain(&self.retired)
            .any(|t| t.key == key)
        {
            self.next_stream += 1;
            self.streams.push(StreamTrack {
                key,
                device: 0,
                index: self.next_stream,
            });
        }
    }

    fn stream(&self, key: usize) -> (i32, u32) {
        self.streams
            .iter()
            .chain(&self.retired)
            .find(|t| t.key == key)
            .map(|t| (t.device, t.index))
            .unwrap_or((0, 0))
    }
}

/// A span on the calling host thread, recorded when dropped (for synchronous calls).
pub struct HostSpan {
    name: &'static str,
    cat: &'static str,
    start: u64,
    detail: Detail,
}

impl HostSpan {
    /// None while not recording: the guard then costs nothing at drop.
    #[inline]
    pub fn begin(
        name: &'static str,
        cat: &'static str,
        detail: impl FnOnce() -> Detail,
    ) -> Option<HostSpan> {
        on().then(|| HostSpan {
            name,
            cat,
            start: now(),
            detail: detail(),
        })
    }
}

impl Drop for HostSpan {
    fn drop(&mut self) {
        let detail = std::mem::replace(&mut self.detail, Detail::None);
        host_span(self.name, self.cat, self.start, detail);
    }
}

/// A span on the calling host thread from `start` to now.
pub fn host_span(name: &'static str, cat: &'static str, start: u64, detail: Detail) {
    push(Record {
        track: host(),
        name,
        cat,
        start,
        end: Some(now()),
        detail,
    });
}

/// Wraps a stream task so its execution is recorded on `stream`'s track (and, for an op,
/// its queue wait from now to the start of the run).
pub fn on_stream<F>(
    stream: &Stream,
    name: &'static str,
    cat: &'static str,
    detail: Detail,
    task: F,
) -> impl FnOnce() -> crate::runtime::stream::TaskResult + Send + 'static
where
    F: FnOnce() -> crate::runtime::stream::TaskResult + Send + 'static,
{
    stream_seen(stream);
    let key = stream_key(stream);
    move || {
        let start = now();
        let r = task();
        push(Record {
            track: Track::Stream(key),
            name,
            cat,
            start,
            end: Some(now()),
            detail,
        });
        r
    }
}

/// An instant on a stream's track (an event record reached), from a task running on it.
pub fn stream_instant(key: usize, name: &'static str, detail: Detail) {
    let t = now();
    push(Record {
        track: Track::Stream(key),
        name,
        cat: "event",
        start: t,
        end: None,
        detail,
    });
}

/// A span on a stream's track, from a task running on it (an event wait).
pub fn stream_span(key: usize, name: &'static str, start: u64, detail: Detail) {
    push(Record {
        track: Track::Stream(key),
        name,
        cat: "event",
        start,
        end: Some(now()),
        detail,
    });
}

/// An instant on the calling host thread (aclprofMarkEx).
pub fn host_instant(name: &'static str, detail: Detail) {
    push(Record {
        track: host(),
        name,
        cat: "mark",
        start: now(),
        end: None,
        detail,
    });
}

fn json_str(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Microseconds with nanosecond precision, as the trace format's `ts` and `dur` are.
fn us(ns: u64) -> String {
    format!("{}.{:03}", ns / 1000, ns % 1000)
}

const HOST_PID: u32 = 1;
fn device_pid(device: i32) -> u32 {
    100 + device.max(0) as u32
}

fn dims<T: std::fmt::Display>(d: &[T]) -> String {
    let mut s = String::from("[");
    for (i, x) in d.iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        let _ = write!(s, "{x}");
    }
    s.push(']');
    s
}

/// Bytes an op reads and writes: each bound view's elements times their size.
fn op_bytes(views: &Views) -> u64 {
    views
        .iter()
        .flatten()
        .map(|v| (v.numel() * v.dtype.size()) as u64)
        .sum()
}

fn op_args(
    out: &mut String,
    views: &Views,
    n_inputs: usize,
    workspace: u64,
    queued: u64,
    start: u64,
) {
    let mut shapes = Vec::new();
    let mut dtypes = Vec::new();
    let mut strides = Vec::new();
    for (i, v) in views.iter().enumerate() {
        let role = if i < n_inputs {
            format!("in{i}")
        } else {
            format!("out{}", i - n_inputs)
        };
        match v {
            Some(v) => {
                shapes.push(format!("{role}:{}", dims(&v.shape)));
                dtypes.push(format!("{role}:{}", v.dtype));
                strides.push(format!("{role}:{}", dims(&v.strides)));
            }
            None => shapes.push(format!("{role}:null")),
        }
    }
    out.push_str("\"shapes\":");
    json_str(out, &shapes.join(" "));
    out.push_str(",\"dtypes\":");
    json_str(out, &dtypes.join(" "));
    out.push_str(",\"strides\":");
    json_str(out, &strides.join(" "));
    let _ = write!(
        out,
        ",\"bytes\":{},\"workspace\":{workspace},\"queue_wait_us\":{}",
        op_bytes(views),
        us(start.saturating_sub(queued))
    );
}

/// The Chrome trace event file (JSON object format).
fn trace_json(rec: &Recording) -> String {
    let mut out = String::with_capacity(256 + rec.records.len() * 200);
    let _ = write!(
        out,
        "{{\"displayTimeUnit\":\"ns\",\"otherData\":{{\"producer\":\"aclnn-cpu\",\"dropped_events\":{}}},\"traceEvents\":[\n",
        rec.dropped
    );
    let mut first = true;
    let mut ev = |out: &mut String, body: &str| {
        if !first {
            out.push_str(",\n");
        }
        first = false;
        out.push('{');
        out.push_str(body);
        out.push('}');
    };
    let pid = std::process::id();
    ev(&mut out, &format!("\"ph\":\"M\",\"pid\":{HOST_PID},\"tid\":0,\"name\":\"process_name\",\"args\":{{\"name\":\"host (pid {pid})\"}}"));
    ev(&mut out, &format!("\"ph\":\"M\",\"pid\":{HOST_PID},\"tid\":0,\"name\":\"process_sort_index\",\"args\":{{\"sort_index\":0}}"));
    for (tid, name) in &rec.threads {
        let mut n = String::new();
        json_str(&mut n, &format!("{name} ({tid})"));
        ev(&mut out, &format!("\"ph\":\"M\",\"pid\":{HOST_PID},\"tid\":{tid},\"name\":\"thread_name\",\"args\":{{\"name\":{n}}}"));
    }
    let mut devices: Vec<i32> = rec
        .streams
        .iter()
        .chain(&rec.retired)
        .map(|t| t.device)
        .collect();
    devices.sort_unstable();
    devices.dedup();
    for d in devices {
        let p = device_pid(d);
        ev(&mut out, &format!("\"ph\":\"M\",\"pid\":{p},\"tid\":0,\"name\":\"process_name\",\"args\":{{\"name\":\"device {d}\"}}"));
        ev(&mut out, &format!("\"ph\":\"M\",\"pid\":{p},\"tid\":0,\"name\":\"process_sort_index\",\"args\":{{\"sort_index\":{}}}", 1 + d));
    }
    for t in rec.streams.iter().chain(&rec.retired) {
        let p = device_pid(t.device);
        ev(&mut out, &format!("\"ph\":\"M\",\"pid\":{p},\"tid\":{},\"name\":\"thread_name\",\"args\":{{\"name\":\"stream {}\"}}", t.index, t.index));
        ev(&mut out, &format!("\"ph\":\"M\",\"pid\":{p},\"tid\":{},\"name\":\"thread_sort_index\",\"args\":{{\"sort_index\":{}}}", t.index, t.index));
    }
    for r in &rec.records {
        let (pid, tid) = match r.track {
            Track::Host(tid) => (HOST_PID, tid),
            Track::Stream(key) => {
                let (d, i) = rec.stream(key);
                (device_pid(d), i as u64)
            }
        };
        let mut body = String::new();
        body.push_str("\"name\":");
        json_str(&mut body, r.name);
        let _ = write!(
            body,
            ",\"cat\":\"{}\",\"pid\":{pid},\"tid\":{tid},\"ts\":{}",
            r.cat,
            us(r.start)
        );
        match r.end {
            Some(end) => {
                let _ = write!(
                    body,
                    ",\"ph\":\"X\",\"dur\":{}",
                    us(end.saturating_sub(r.start))
                );
            }
            None => body.push_str(",\"ph\":\"i\",\"s\":\"t\""),
        }
        body.push_str(",\"args\":{");
        match &r.detail {
            Detail::None => {}
            Detail::Op {
                views,
                n_inputs,
                workspace,
                queued,
            } => op_args(&mut body, views, *n_inputs, *workspace, *queued, r.start),
            Detail::Bytes(b) => {
                let _ = write!(body, "\"bytes\":{b}");
            }
            Detail::Event(e) => {
                let _ = write!(body, "\"event\":\"{e:#x}\"");
            }
            Detail::Message(m) => {
                body.push_str("\"message\":");
                json_str(&mut body, m);
            }
        }
        body.push('}');
        ev(&mut out, &body);
        // The op's queue wait: an async slice from its launch to the start of its run.
        if let Detail::Op { queued, .. } = r.detail {
            let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
            let mut name = String::new();
            json_str(&mut name, &format!("queued {}", r.name));
            let qs = queued.min(r.start);
            ev(&mut out, &format!("\"name\":{name},\"cat\":\"queue\",\"ph\":\"b\",\"id\":{id},\"pid\":{pid},\"tid\":{tid},\"ts\":{}", us(qs)));
            ev(&mut out, &format!("\"name\":{name},\"cat\":\"queue\",\"ph\":\"e\",\"id\":{id},\"pid\":{pid},\"tid\":{tid},\"ts\":{}", us(r.start)));
        }
    }
    out.push_str("\n]}\n");
    out
}

/// One line per operator, like msprof's op_summary: count, total/avg/max execution time,
/// bytes moved and achieved bandwidth.
fn op_summary_csv(rec: &Recording) -> String {
    struct Row {
        name: &'static str,
        count: u64,
        total: u64,
        max: u64,
        min: u64,
        bytes: u64,
        wait: u64,
    }
    let mut rows: Vec<Row> = Vec::new();
    for r in &rec.records {
        let (Detail::Op { views, queued, .. }, Some(end)) = (&r.detail, r.end) else {
            continue;
        };
        let dur = end.saturating_sub(r.start);
        let i = match rows.iter().position(|x| x.name == r.name) {
            Some(i) => i,
            None => {
                rows.push(Row {
                    name: r.name,
                    count: 0,
                    total: 0,
                    max: 0,
                    min: u64::MAX,
                    bytes: 0,
                    wait: 0,
                });
                rows.len() - 1
            }
        };
        let row = &mut rows[i];
        row.count += 1;
        row.total += dur;
        row.max = row.max.max(dur);
        row.min = row.min.min(dur);
        row.bytes += op_bytes(views);
        row.wait += r.start.saturating_sub(*queued);
    }
    rows.sort_by(|a, b| b.total.cmp(&a.total).then(a.name.cmp(b.name)));
    let mut out = String::from(
        "Op Name,Count,Total Time(us),Avg Time(us),Min Time(us),Max Time(us),Avg Queue Wait(us),Total Bytes,Achieved GB/s\n",
    );
    for r in rows {
        let gbs = if r.total > 0 {
            r.bytes as f64 / r.total as f64
        } else {
            0.0
        };
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{},{},{gbs:.3}",
            r.name,
            r.count,
            us(r.total),
            us(r.total / r.count),
            us(r.min),
            us(r.max),
            us(r.wait / r.count),
            r.bytes
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::DType;
    use crate::tensor::TensorDesc;
    use std::sync::Arc;

    fn view(shape: &[i64]) -> Option<TensorDesc> {
        Some(TensorDesc::new(shape, DType::F32 as i32, None, 0, 2, shape, 0x1000).unwrap())
    }

    /// Two ops on one stream, an event, a host launch and sync: the written trace parses,
    /// names its tracks, and carries the op's details and queue wait.
    #[test]
    fn profile_trace_json_parses_with_tracks_and_details() {
        let views: Views = Arc::new(vec![view(&[2, 3]), view(&[2, 3]), view(&[2, 3])]);
        let stream = 0xabc0;
        let mut rec = Recording::default();
        rec.streams.push(StreamTrack {
            key: stream,
            device: 0,
            index: 1,
        });
        rec.threads.push((77, "main".into()));
        let op = |start, end, queued| Record {
            track: Track::Stream(stream),
            name: "aclnnAdd",
            cat: "op",
            start,
            end: Some(end),
            detail: Detail::Op {
                views: views.clone(),
                n_inputs: 2,
                workspace: 64,
                queued,
            },
        };
        rec.records.push(Record {
            track: Track::Host(77),
            name: "aclnnAdd",
            cat: "launch",
            start: 500,
            end: Some(900),
            detail: Detail::None,
        });
        rec.records.push(op(1_000, 3_500, 600));
        rec.records.push(op(4_000, 5_000, 1_200));
        rec.records.push(Record {
            track: Track::Stream(stream),
            name: "aclrtRecordEvent",
            cat: "event",
            start: 5_100,
            end: None,
            detail: Detail::Event(0x55),
        });
        rec.records.push(Record {
            track: Track::Host(77),
            name: "aclrtMemcpy",
            cat: "memcpy",
            start: 6_000,
            end: Some(6_250),
            detail: Detail::Bytes(24),
        });
        rec.records.push(Record {
            track: Track::Host(77),
            name: "aclprofMarkEx",
            cat: "mark",
            start: 6_300,
            end: None,
            detail: Detail::Message("a \"quoted\"\nmark".into()),
        });

        let doc: serde_json::Value =
            serde_json::from_str(&trace_json(&rec)).expect("the trace is JSON");
        let events = doc["traceEvents"].as_array().unwrap();
        let named = |n: &str| {
            events
                .iter()
                .filter(|e| e["name"] == n)
                .cloned()
                .collect::<Vec<_>>()
        };
        let thread_names: Vec<_> = named("thread_name")
            .iter()
            .map(|e| e["args"]["name"].as_str().unwrap().to_string())
            .collect();
        assert!(
            thread_names.contains(&"stream 1".to_string()),
            "{thread_names:?}"
        );
        assert!(
            thread_names.contains(&"main (77)".to_string()),
            "{thread_names:?}"
        );
        let procs: Vec<_> = named("process_name")
            .iter()
            .map(|e| e["args"]["name"].as_str().unwrap().to_string())
            .collect();
        assert!(
            procs.iter().any(|p| p.starts_with("host (pid"))
                && procs.contains(&"device 0".to_string()),
            "{procs:?}"
        );

        let adds: Vec<_> = named("aclnnAdd")
            .into_iter()
            .filter(|e| e["cat"] == "op")
            .collect();
        assert_eq!(adds.len(), 2);
        let a = &adds[0];
        assert_eq!(a["ph"], "X");
        assert_eq!(a["ts"].as_f64().unwrap(), 1.0);
        assert_eq!(a["dur"].as_f64().unwrap(), 2.5);
        assert_eq!(a["pid"], 100);
        assert_eq!(a["tid"], 1);
        assert_eq!(a["args"]["shapes"], "in0:[2,3] in1:[2,3] out0:[2,3]");
        assert_eq!(
            a["args"]["dtypes"],
            "in0:ACL_FLOAT in1:ACL_FLOAT out0:ACL_FLOAT"
        );
        assert_eq!(a["args"]["bytes"], 72);
        assert_eq!(a["args"]["workspace"], 64);
        assert_eq!(a["args"]["queue_wait_us"].as_f64().unwrap(), 0.4);
        // The queue wait of each op: an async slice from its launch to its start.
        let queued = named("queued aclnnAdd");
        assert_eq!(queued.len(), 4);
        assert_eq!(queued[0]["ph"], "b");
        assert_eq!(queued[0]["ts"].as_f64().unwrap(), 0.6);
        assert_eq!(queued[1]["ph"], "e");
        assert_eq!(queued[1]["ts"].as_f64().unwrap(), 1.0);
        let rec_ev = &named("aclrtRecordEvent")[0];
        assert_eq!(rec_ev["ph"], "i");
        assert_eq!(rec_ev["args"]["event"], "0x55");
        assert_eq!(named("aclrtMemcpy")[0]["args"]["bytes"], 24);
        assert_eq!(
            named("aclprofMarkEx")[0]["args"]["message"],
            "a \"quoted\"\nmark"
        );
    }

    #[test]
    fn profile_op_summary_counts_times_and_bandwidth() {
        let views: Views = Arc::new(vec![view(&[250]), view(&[250]), view(&[250])]);
        let mut rec = Recording::default();
        for (s, e) in [(0, 1_000), (2_000, 5_000)] {
            rec.records.push(Record {
                track: Track::Stream(1),
                name: "aclnnMul",
                cat: "op",
                start: s,
                end: Some(e),
                detail: Detail::Op {
                    views: views.clone(),
                    n_inputs: 2,
                    workspace: 0,
                    queued: s,
                },
            });
        }
        let csv = op_summary_csv(&rec);
        let lines: Vec<_> = csv.lines().collect();
        assert_eq!(lines[0], "Op Name,Count,Total Time(us),Avg Time(us),Min Time(us),Max Time(us),Avg Queue Wait(us),Total Bytes,Achieved GB/s");
        // 2 runs, 4 us total, 3000 bytes each: 6000 bytes / 4000 ns = 1.5 GB/s.
        assert_eq!(
            lines[1],
            "aclnnMul,2,4.000,2.000,1.000,3.000,0.000,6000,1.500"
        );
        assert_eq!(
            summary_path(Path::new("/x/run.json")),
            Path::new("/x/run.op_summary.csv")
        );
    }
}
