//! In-order asynchronous streams. Each stream is a queue served by its own worker thread;
//! work from different streams runs concurrently. A thread that synchronizes a stream
//! runs queued work itself while the worker is idle, so tiny work costs no thread wake-up.
//! A failing task makes the stream report the failure at the next synchronize.

use super::signal::Signal;
use crate::error::{acl, Error, Result};
use std::collections::VecDeque;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::thread::JoinHandle;

/// What a unit of work returns; a failure is reported at the next synchronize.
pub type TaskResult = std::result::Result<(), Failure>;

/// A unit of work.
pub type Task = Box<dyn FnOnce() -> TaskResult + Send>;

/// Why queued work failed: the aclError the next synchronize returns, and its message.
#[derive(Debug, Clone, PartialEq)]
pub struct Failure {
    pub code: i32,
    pub msg: String,
}

impl Failure {
    /// An operator's run failing with `e`: a refusal of the data it found (an index out of
    /// range, a sum of repeats that does not match) is the device's AI-core exception; a
    /// runtime error keeps its code; anything else is an internal error.
    pub fn of_op(api: &str, e: &Error) -> Failure {
        let code = match e {
            Error::Invalid(_) | Error::Null(_) => acl::ACL_ERROR_RT_AICORE_EXCEPTION,
            Error::Runtime { code, .. } => *code,
            _ => acl::ACL_ERROR_RT_INTERNAL_ERROR,
        };
        Failure {
            code,
            msg: format!("{api}: {e}"),
        }
    }
}

/// Runtime work failing with a message (memory freed before the work ran, a task that
/// panicked): ACL_ERROR_RT_INTERNAL_ERROR.
impl From<String> for Failure {
    fn from(msg: String) -> Failure {
        Failure {
            code: acl::ACL_ERROR_RT_INTERNAL_ERROR,
            msg,
        }
    }
}

#[derive(Default)]
struct State {
    queue: VecDeque<Task>,
    /// A task has been taken from the queue (or is running inline) and has not finished.
    running: bool,
    shutdown: bool,
    /// The first failure since the last synchronize.
    error: Option<Failure>,
}

/// A stream: the queue, its worker, and two wake-ups, so that each side is woken only
/// when there is something for it (a wake-up is a system call and a thread switch, which
/// costs more than a small operator).
pub struct Stream {
    state: Mutex<State>,
    /// Signalled when work is queued and the worker is waiting for it.
    queued: Signal,
    /// Signalled when a task finishes and a synchronizer is waiting.
    finished: Signal,
    worker: Mutex<Option<JoinHandle<()>>>,
    /// The device the stream was created on.
    pub device: i32,
    /// While captured (aclmdlRICaptureBegin..End), the work recorded instead of queued.
    capture: Mutex<Option<Vec<Replay>>>,
}

/// A launch recorded by stream capture: re-validates and queues itself on the stream it is
/// given (`dry`: validates only, queues nothing), so a captured graph replays with no
/// phase-1 cost, and memory freed since capture is still refused.
pub type Replay = Arc<dyn Fn(&Stream, bool) -> Result<()> + Send + Sync>;

static ALL: Mutex<Vec<Weak<Stream>>> = Mutex::new(Vec::new());
/// Each device's default stream (what a NULL aclrtStream means), made on first use.
static DEFAULT: Mutex<Vec<(i32, Arc<Stream>)>> = Mutex::new(Vec::new());

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

fn run_task(task: impl FnOnce() -> TaskResult) -> TaskResult {
    match catch_unwind(AssertUnwindSafe(task)) {
        Ok(r) => r,
        Err(p) => Err(Failure::from(format!(
            "a task panicked: {}",
            p.downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| p.downcast_ref::<String>().cloned())
                .unwrap_or_default()
        ))),
    }
}

impl Stream {
    /// A new stream of `device` with its worker thread.
    pub fn create(device: i32) -> Result<Arc<Stream>> {
        let s = Arc::new(Stream {
            state: Mutex::default(),
            queued: Signal::new(),
            finished: Signal::new(),
            worker: Mutex::new(None),
            device,
            capture: Mutex::new(None),
        });
        let weak = Arc::downgrade(&s);
        let handle = std::thread::Builder::new()
            .name("aclnn-cpu-stream".into())
            .spawn(move || worker_loop(weak))
            .map_err(|e| {
                Error::runtime(
                    acl::ACL_ERROR_RT_INTERNAL_ERROR,
                    format!("cannot start a stream thread: {e}"),
                )
            })?;
        *lock(&s.worker) = Some(handle);
        let mut all = lock(&ALL);
        all.retain(|w| w.strong_count() > 0);
        all.push(Arc::downgrade(&s));
        Ok(s)
    }

    /// Runs `launch` now, or, while the stream is being captured, validates it (a dry run)
    /// and records it for replay instead.
    pub fn launch(&self, launch: Replay) -> Result<()> {
        let mut cap = lock(&self.capture);
        if let Some(rec) = cap.as_mut() {
            launch(self, true)?;
            rec.push(launch);
            return Ok(());
        }
        drop(cap);
        launch(self, false)
    }

    /// Records `replay` in the capture under way (the caller checked `is_capturing`).
    pub fn record(&self, replay: Replay) -> Result<()> {
        match lock(&self.capture).as_mut() {
            Some(rec) => {
                rec.push(replay);
                Ok(())
            }
            None => replay(self, false),
        }
    }

    /// aclmdlRICaptureBegin: work launched on the stream is recorded from now on.
    pub fn begin_capture(&self) -> Result<()> {
        let mut cap = lock(&self.capture);
        if cap.is_some() {
            return Err(Error::runtime(
                acl::ACL_ERROR_INVALID_PARAM,
                "the stream is already being captured (aclmdlRICaptureBegin twice)",
            ));
        }
        *cap = Some(Vec::new());
        Ok(())
    }

    /// aclmdlRICaptureEnd: the recorded work.
    pub fn end_capture(&self) -> Result<Vec<Replay>> {
        lock(&self.capture).take().ok_or_else(|| {
            Error::runtime(
                acl::ACL_ERROR_INVALID_PARAM,
                "the stream is not being captured (no aclmdlRICaptureBegin)",
            )
        })
    }

    pub fn is_capturing(&self) -> bool {
        lock(&self.capture).is_some()
    }

    /// Queues `task` after everything already queued.
    pub fn enqueue(&self, task: Task) -> Result<()> {
        let mut st = lock(&self.state);
        if st.shutdown {
            return Err(Error::runtime(
                acl::ACL_ERROR_RT_INVALID_HANDLE,
                "the stream was destroyed (or aclFinalize was called)",
            ));
        }
        st.queue.push_back(task);
        let wake = self.queued.waiting() && !st.running;
        drop(st);
        if wake {
            self.queued.notify_one();
        }
        Ok(())
    }

    /// Runs `work` after everything already queued. Small work (`small`: a few microseconds)
    /// on an idle stream runs right here on the calling thread: in order, since nothing is
    /// queued or running, and without a heap allocation or a wake-up of the worker, which
    /// would cost more than the work. Anything else is queued for the worker.
    pub fn submit<F>(&self, small: bool, work: F) -> Result<()>
    where
        F: FnOnce() -> TaskResult + Send + 'static,
    {
        if small {
            let mut st = lock(&self.state);
            if !st.shutdown && !st.running && st.queue.is_empty() {
                st.running = true;
                drop(st);
                self.finish(run_task(work));
                return Ok(());
            }
        }
        self.enqueue(Box::new(work))
    }

    /// Records the end of the running task: keeps its failure, wakes a waiting synchronizer,
    /// and wakes the worker if work was queued meanwhile.
    fn finish(&self, r: TaskResult) {
        let mut st = lock(&self.state);
        st.running = false;
        if let Err(e) = r {
            st.error.get_or_insert(e);
        }
        let wake_sync = self.finished.waiting();
        let wake_worker = self.queued.waiting() && !st.queue.is_empty();
        drop(st);
        if wake_sync {
            self.finished.notify_all();
        }
        if wake_worker {
            self.queued.notify_one();
        }
    }

    /// Waits until every queued task has run; returns the first failure since the last synchronize.
    pub fn synchronize(&self) -> Result<()> {
        if self.is_capturing() {
            return Err(Error::runtime(
                acl::ACL_ERROR_INVALID_PARAM,
                "the stream is being captured (aclmdlRICaptureBegin): it cannot be synchronized until aclmdlRICaptureEnd",
            ));
        }
        let mut st = self.drain();
        match st.error.take() {
            Some(f) => Err(Error::runtime(
                f.code,
                format!("work on the stream failed: {}", f.msg),
            )),
            None => Ok(()),
        }
    }

    /// Runs or waits for every queued task; returns with the state locked and the queue empty.
    fn drain(&self) -> MutexGuard<'_, State> {
        let mut st = lock(&self.state);
        loop {
            if !st.running {
                match st.queue.pop_front() {
                    // Run it here: in order (nothing else runs on this stream meanwhile) and
                    // without waking the worker.
                    Some(task) => {
                        st.running = true;
                        drop(st);
                        self.finish(run_task(task));
                        st = lock(&self.state);
                        continue;
                    }
                    None => break,
                }
            }
            st = self.finished.wait(st);
        }
        st
    }

    /// True when nothing is queued or running.
    pub fn is_idle(&self) -> bool {
        let st = lock(&self.state);
        st.queue.is_empty() && !st.running
    }

    /// Drains the queue, then stops the worker. Further enqueues fail.
    pub fn shutdown(&self) -> Result<()> {
        let r = self.synchronize();
        lock(&self.state).shutdown = true;
        self.queued.notify_all();
        self.finished.notify_all();
        if let Some(h) = lock(&self.worker).take() {
            if h.thread().id() != std::thread::current().id() {
                let _ = h.join();
            }
        }
        r
    }
}

fn worker_loop(weak: Weak<Stream>) {
    loop {
        let Some(s) = weak.upgrade() else { return };
        let mut st = lock(&s.state);
        loop {
            if st.shutdown {
                return;
            }
            if !st.running && !st.queue.is_empty() {
                break;
            }
            // Wake up now and then to notice that the last owner went away.
            st = s
                .queued
                .wait_timeout(st, std::time::Duration::from_millis(200));
            if Arc::strong_count(&s) == 1 && st.queue.is_empty() {
                return;
            }
        }
        let task = st.queue.pop_front().expect("queue checked non-empty");
        st.running = true;
        drop(st);
        s.finish(run_task(task));
    }
}

/// `device`'s default stream (what a NULL aclrtStream means).
pub fn default_stream(device: i32) -> Result<Arc<Stream>> {
    let mut d = lock(&DEFAULT);
    if let Some((_, s)) = d.iter().find(|(id, _)| *id == device) {
        return Ok(s.clone());
    }
    let s = Stream::create(device)?;
    d.push((device, s.clone()));
    Ok(s)
}

fn live_streams() -> Vec<Arc<Stream>> {
    lock(&ALL).iter().filter_map(Weak::upgrade).collect()
}

/// Waits for every stream (aclrtMalloc's and aclrtFree's view of "the device's work").
pub fn synchronize_all() -> Result<()> {
    synchronize_where(|_| true)
}

/// aclrtSynchronizeDevice / aclrtResetDevice: waits for every stream of `device`.
pub fn synchronize_device(device: i32) -> Result<()> {
    synchronize_where(|s| s.device == device)
}

fn synchronize_where(which: impl Fn(&Stream) -> bool) -> Result<()> {
    let mut first = Ok(());
    for s in live_streams().into_iter().filter(|s| which(s)) {
        let r = s.synchronize();
        if first.is_ok() {
            first = r;
        }
    }
    first
}

/// aclFinalize: drains and stops every stream, including the default one.
pub fn destroy_all() {
    lock(&DEFAULT).clear();
    for s in live_streams() {
        let _ = s.shutdown();
    }
}
