//! Events: a record is a marker queued on a stream; it completes when the stream reaches
//! it. Waiting (from the host or from another stream) waits for the most recent record
//! made before the wait was requested; an event never recorded counts as complete.

use super::signal::Signal;
use super::stream::Stream;
use crate::error::{acl, Error, Result};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::Instant;

#[derive(Default)]
struct State {
    /// Number of records made.
    recorded: u64,
    /// Highest record number whose marker the stream has reached.
    completed: u64,
    /// When the latest completed record completed.
    at: Option<Instant>,
    destroyed: bool,
}

#[derive(Default)]
pub struct Event {
    state: Mutex<State>,
    changed: Signal,
}

static ALL: Mutex<Vec<Weak<Event>>> = Mutex::new(Vec::new());

fn lock(e: &Event) -> MutexGuard<'_, State> {
    e.state.lock().unwrap_or_else(|p| p.into_inner())
}

impl Event {
    pub fn create() -> Arc<Event> {
        let e = Arc::new(Event::default());
        let mut all = ALL.lock().unwrap_or_else(|p| p.into_inner());
        all.retain(|w| w.strong_count() > 0);
        all.push(Arc::downgrade(&e));
        e
    }

    fn check_live(st: &State) -> Result<()> {
        if st.destroyed {
            return Err(Error::runtime(
                acl::ACL_ERROR_RT_INVALID_HANDLE,
                "the event was destroyed by aclFinalize",
            ));
        }
        Ok(())
    }

    /// aclrtRecordEvent.
    pub fn record(self: &Arc<Self>, stream: &Stream) -> Result<()> {
        let n = {
            let mut st = lock(self);
            Self::check_live(&st)?;
            st.recorded += 1;
            st.recorded
        };
        let ev = self.clone();
        let key = crate::profile::stream_key(stream);
        if crate::profile::on() {
            crate::profile::stream_seen(stream);
        }
        stream.enqueue(Box::new(move || {
            if crate::profile::on() {
                let id = Arc::as_ptr(&ev) as usize;
                crate::profile::stream_instant(
                    key,
                    "aclrtRecordEvent",
                    crate::profile::Detail::Event(id),
                );
            }
            let mut st = lock(&ev);
            if n > st.completed {
                st.completed = n;
                st.at = Some(Instant::now());
            }
            let waiting = ev.changed.waiting();
            drop(st);
            if waiting {
                ev.changed.notify_all();
            }
            Ok(())
        }))
    }

    /// aclrtResetEvent: forget earlier records (waits on it now return at once).
    pub fn reset(&self) -> Result<()> {
        let mut st = lock(self);
        Self::check_live(&st)?;
        st.completed = st.recorded;
        Ok(())
    }

    fn wait_for(&self, n: u64) {
        let mut st = lock(self);
        while st.completed < n && !st.destroyed {
            st = self.changed.wait(st);
        }
    }

    /// aclrtSynchronizeEvent: blocks until the latest record has completed.
    pub fn synchronize(&self) -> Result<()> {
        let n = {
            let st = lock(self);
            Self::check_live(&st)?;
            st.recorded
        };
        self.wait_for(n);
        Ok(())
    }

    /// aclrtStreamWaitEvent: work queued on `stream` after this call waits for the latest record.
    pub fn wait_on(self: &Arc<Self>, stream: &Stream) -> Result<()> {
        let n = {
            let st = lock(self);
            Self::check_live(&st)?;
            st.recorded
        };
        let ev = self.clone();
        let key = crate::profile::stream_key(stream);
        if crate::profile::on() {
            crate::profile::stream_seen(stream);
        }
        stream.enqueue(Box::new(move || {
            let start = crate::profile::now();
            ev.wait_for(n);
            if crate::profile::on() {
                let id = Arc::as_ptr(&ev) as usize;
                crate::profile::stream_span(
                    key,
                    "aclrtStreamWaitEvent",
                    start,
                    crate::profile::Detail::Event(id),
                );
            }
            Ok(())
        }))
    }

    /// Whether the latest record has completed.
    pub fn is_complete(&self) -> Result<bool> {
        let st = lock(self);
        Self::check_live(&st)?;
        Ok(st.completed >= st.recorded)
    }

    /// Milliseconds between two completed events.
    pub fn elapsed_ms(start: &Event, end: &Event) -> Result<f32> {
        let a = lock(start).at;
        let b = lock(end).at;
        match (a, b) {
            (Some(a), Some(b)) => Ok(b.saturating_duration_since(a).as_secs_f32() * 1000.0
                - a.saturating_duration_since(b).as_secs_f32() * 1000.0),
            _ => Err(Error::runtime(
                acl::ACL_ERROR_INVALID_PARAM,
                "both events must have been recorded and completed",
            )),
        }
    }
}

/// aclFinalize: every event becomes invalid; anything waiting on one is released.
pub fn destroy_all() {
    let all: Vec<Arc<Event>> = ALL
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .drain(..)
        .filter_map(|w| w.upgrade())
        .collect();
    for e in all {
        lock(&e).destroyed = true;
        e.changed.notify_all();
    }
}
