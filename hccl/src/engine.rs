//! What queued HCCL work does when its stream reaches it.
//!
//! Collectives: the k-th collective each rank of a group runs is round k. Each rank posts its
//! description (buffers, counts) to the round and waits for the others; the round checks that
//! they agree (kind, dtype, op, root, counts: a mismatch fails every rank with HCCL_E_PARA),
//! then each rank does its share of the data movement straight between the ranks' buffers
//! (all devices' memory is this process's), and waits until every rank is done, so no
//! buffer is reused while another rank still reads or writes it.
//!
//! Point to point: a send posts its buffer on the (from, to) channel and waits until the
//! receiver has copied it; receives take posts in order. HcclBatchSendRecv posts all its
//! sends before it receives, so rings do not deadlock.
//!
//! Waiting for other ranks is bounded by HCCL_EXEC_TIMEOUT (HCCL_E_TIMEOUT); once all ranks
//! are in, the copying itself needs no bound.

use crate::comm::{deadline, exec_timeout, lock};
use crate::dtype::{reduce_step, DType, ReduceOp};
use crate::error::{HcclError, Result};
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    AllReduce,
    Reduce,
    ReduceScatter,
    ReduceScatterV,
    AllGather,
    AllGatherV,
    Broadcast,
    Scatter,
    AlltoAll,
    AlltoAllV,
    AlltoAllVC,
    Barrier,
}

/// One rank's part of a collective, as checked at the call.
#[derive(Debug, Clone)]
pub struct Desc {
    pub api: &'static str,
    pub kind: Kind,
    pub dtype: DType,
    pub op: Option<ReduceOp>,
    pub root: u32,
    /// The count argument (AllReduce's count, AllGather's sendCount, ...).
    pub count: u64,
    pub send: usize,
    pub recv: usize,
    /// Per peer (count, displacement) in elements: what this rank sends to each
    /// (AlltoAllV, ReduceScatterV) ...
    pub send_parts: Vec<(u64, u64)>,
    /// ... and receives from each (AlltoAllV, AllGatherV).
    pub recv_parts: Vec<(u64, u64)>,
    /// AlltoAllVC: counts from rank i to rank j at [i * n + j].
    pub matrix: Vec<u64>,
}

impl Desc {
    /// What every rank of the round must agree on.
    fn signature(&self) -> String {
        let count = match self.kind {
            Kind::AllGatherV | Kind::ReduceScatterV | Kind::AlltoAllV | Kind::AlltoAllVC => {
                String::new()
            }
            _ => format!(" count {}", self.count),
        };
        let op = self
            .op
            .map(|o| format!(" {}", o.name()))
            .unwrap_or_default();
        let root = match self.kind {
            Kind::Reduce | Kind::Broadcast | Kind::Scatter => format!(" root {}", self.root),
            _ => String::new(),
        };
        let dtype = if self.kind == Kind::Barrier {
            String::new()
        } else {
            format!(" {}", self.dtype.name())
        };
        format!("{}{count}{dtype}{op}{root}", self.api)
    }
}

struct Round {
    descs: Vec<Option<Arc<Desc>>>,
    arrived: usize,
    finished: usize,
    /// Ranks that have left the round (it is dropped when all have).
    left: usize,
    failed: Option<HcclError>,
}

#[derive(Debug)]
enum PostState {
    Posted,
    /// The receiver is copying from the sender's buffer.
    Taken,
    Done,
    Failed(HcclError),
}

struct Post {
    ptr: usize,
    count: u64,
    dtype: DType,
    state: PostState,
}

#[derive(Default)]
struct State {
    /// Each rank's device once it has joined.
    joined: Vec<Option<i32>>,
    rounds: HashMap<u64, Round>,
    /// Pending sends per (from, to), oldest first.
    channels: HashMap<(u32, u32), VecDeque<u64>>,
    posts: HashMap<u64, Post>,
    next_post: u64,
}

/// The ranks of one communicator and what they are exchanging.
pub struct Group {
    pub size: u32,
    pub name: String,
    state: Mutex<State>,
    changed: Condvar,
}

/// A send of a point-to-point exchange: `count` elements at `ptr` to rank `peer`.
#[derive(Clone, Copy, Debug)]
pub struct Transfer {
    pub peer: u32,
    pub ptr: usize,
    pub count: u64,
    pub dtype: DType,
}

fn list(ranks: impl Iterator<Item = usize>) -> String {
    ranks.map(|r| r.to_string()).collect::<Vec<_>>().join(", ")
}

impl Group {
    pub fn new(size: u32, name: String) -> Group {
        Group {
            size,
            name,
            state: Mutex::new(State {
                joined: vec![None; size as usize],
                ..State::default()
            }),
            changed: Condvar::new(),
        }
    }

    /// A group whose ranks are all in already (HcclCommInitAll): rank i on devices[i].
    pub fn with_devices(devices: &[i32], name: String) -> Group {
        let g = Group::new(devices.len() as u32, name);
        lock(&g.state).joined = devices.iter().map(|&d| Some(d)).collect();
        g
    }

    /// Waits on `st` until notified or `until` (None: forever); false once `until` passed.
    fn wait<'a>(
        &self,
        st: MutexGuard<'a, State>,
        until: Option<Instant>,
    ) -> (MutexGuard<'a, State>, bool) {
        match until {
            None => (
                self.changed.wait(st).unwrap_or_else(|e| e.into_inner()),
                true,
            ),
            Some(t) => {
                let now = Instant::now();
                if now >= t {
                    return (st, false);
                }
                let (st, _) = self
                    .changed
                    .wait_timeout(st, t - now)
                    .unwrap_or_else(|e| e.into_inner());
                (st, true)
            }
        }
    }

    /// Rank `rank` (on `device`) joins and waits for all ranks, up to `timeout`;
    /// `complete` runs once, when the last rank joins.
    pub fn join(
        &self,
        rank: u32,
        device: i32,
        timeout: Duration,
        complete: impl FnOnce(),
    ) -> Result<()> {
        let r = rank as usize;
        let mut st = lock(&self.state);
        if st.joined[r].is_some() {
            return Err(HcclError::para(format!(
                "rank {rank} of this root info has already been initialized"
            )));
        }
        if let Some(other) = st.joined.iter().position(|&d| d == Some(device)) {
            return Err(HcclError::para(format!(
                "device {device} is rank {other} of this communicator already; each rank needs a device of its own"
            )));
        }
        st.joined[r] = Some(device);
        if st.joined.iter().all(Option::is_some) {
            complete();
            self.changed.notify_all();
            return Ok(());
        }
        let until = deadline(Some(timeout));
        loop {
            if st.joined.iter().all(Option::is_some) {
                return Ok(());
            }
            let (g, in_time) = self.wait(st, until);
            st = g;
            if !in_time && !st.joined.iter().all(Option::is_some) {
                st.joined[r] = None;
                let missing =
                    list((0..self.size as usize).filter(|&i| st.joined[i].is_none() && i != r));
                return Err(HcclError::timeout(format!(
                    "rank(s) {missing} of {} did not join within HCCL_CONNECT_TIMEOUT ({:.1} s)",
                    self.size,
                    timeout.as_secs_f64()
                )));
            }
        }
    }

    /// Rank `rank`'s part of round `seq`; `local` is a failure this rank found before
    /// taking part (its memory freed since the call), which fails the round for all.
    pub fn collective(
        &self,
        rank: u32,
        seq: u64,
        desc: Arc<Desc>,
        local: Option<HcclError>,
    ) -> Result<()> {
        let n = self.size as usize;
        let r = rank as usize;
        let timeout = exec_timeout();
        let until = deadline(timeout);
        let mut st = lock(&self.state);
        {
            let round = st.rounds.entry(seq).or_insert_with(|| Round {
                descs: vec![None; n],
                arrived: 0,
                finished: 0,
                left: 0,
                failed: None,
            });
            round.descs[r] = Some(desc);
            round.arrived += 1;
            if let Some(e) = local {
                round
                    .failed
                    .get_or_insert(HcclError::new(e.code, format!("rank {rank}: {}", e.msg)));
            }
            if round.arrived == n && round.failed.is_none() {
                round.failed = agree(&round.descs).err();
            }
        }
        self.changed.notify_all();
        loop {
            let round = st
                .rounds
                .get_mut(&seq)
                .expect("the round lives until all left");
            if round.failed.is_some() || round.arrived == n {
                break;
            }
            let (g, in_time) = self.wait(st, until);
            st = g;
            let round = st
                .rounds
                .get_mut(&seq)
                .expect("the round lives until all left");
            if !in_time && round.arrived < n && round.failed.is_none() {
                let missing = list((0..n).filter(|&i| round.descs[i].is_none()));
                round.failed = Some(HcclError::timeout(format!(
                    "rank(s) {missing} of {n} did not start this collective within HCCL_EXEC_TIMEOUT ({:.1} s)",
                    timeout.map_or(0.0, |t| t.as_secs_f64())
                )));
                self.changed.notify_all();
            }
        }
        let round = st
            .rounds
            .get_mut(&seq)
            .expect("the round lives until all left");
        if let Some(e) = round.failed.clone() {
            self.leave(&mut st, seq);
            return Err(e);
        }
        let descs: Vec<Arc<Desc>> = round.descs.iter().map(|d| d.clone().unwrap()).collect();
        drop(st);
        // SAFETY: every rank's buffers were checked at its call and are held by its stream,
        // which waits in this round until all ranks are done; each rank writes only its share.
        unsafe { execute(r, &descs) };
        let mut st = lock(&self.state);
        st.rounds.get_mut(&seq).unwrap().finished += 1;
        self.changed.notify_all();
        while st.rounds[&seq].finished < n {
            st = self.changed.wait(st).unwrap_or_else(|e| e.into_inner());
        }
        self.leave(&mut st, seq);
        Ok(())
    }

    fn leave(&self, st: &mut State, seq: u64) {
        let round = st.rounds.get_mut(&seq).unwrap();
        round.left += 1;
        if round.left == self.size as usize {
            st.rounds.remove(&seq);
        }
    }

    /// Rank `rank` sends `sends` and receives `recvs` (the peer of a receive is its source).
    pub fn exchange(&self, rank: u32, sends: &[Transfer], recvs: &[Transfer]) -> Result<()> {
        let timeout = exec_timeout();
        let until = deadline(timeout);
        let secs = timeout.map_or(0.0, |t| t.as_secs_f64());
        let mut st = lock(&self.state);
        let mut mine = Vec::with_capacity(sends.len());
        for s in sends {
            let id = st.next_post;
            st.next_post += 1;
            st.posts.insert(
                id,
                Post {
                    ptr: s.ptr,
                    count: s.count,
                    dtype: s.dtype,
                    state: PostState::Posted,
                },
            );
            st.channels.entry((rank, s.peer)).or_default().push_back(id);
            mine.push(id);
        }
        self.changed.notify_all();
        let mut result = Ok(());
        for rv in recvs {
            let id = loop {
                if let Some(id) = st
                    .channels
                    .get_mut(&(rv.peer, rank))
                    .and_then(|q| q.pop_front())
                {
                    break Some(id);
                }
                let (g, in_time) = self.wait(st, until);
                st = g;
                if !in_time {
                    break None;
                }
            };
            let Some(id) = id else {
                result = Err(HcclError::timeout(format!(
                    "rank {rank} waited for a send from rank {} longer than HCCL_EXEC_TIMEOUT ({secs:.1} s)",
                    rv.peer
                )));
                break;
            };
            let post = st.posts.get_mut(&id).expect("a queued post exists");
            if post.count != rv.count || post.dtype != rv.dtype {
                let e = HcclError::para(format!(
                    "rank {} sends {} elements of {} to rank {rank}, which receives {} elements of {}",
                    rv.peer,
                    post.count,
                    post.dtype.name(),
                    rv.count,
                    rv.dtype.name()
                ));
                post.state = PostState::Failed(e.clone());
                self.changed.notify_all();
                result = Err(e);
                break;
            }
            post.state = PostState::Taken;
            let src = post.ptr;
            drop(st);
            // SAFETY: the sender's buffer is held by its stream until the post is Done; the
            // receive buffer was checked at the call. Same count and dtype on both sides.
            unsafe { copy(rv.ptr, src, rv.count as usize * rv.dtype.size()) };
            st = lock(&self.state);
            st.posts.get_mut(&id).unwrap().state = PostState::Done;
            st.posts.remove(&id);
            self.changed.notify_all();
        }
        // Every send of this rank ends: received, refused, or (not taken in time) withdrawn.
        for (id, s) in mine.iter().zip(sends) {
            loop {
                let Some(post) = st.posts.get_mut(id) else {
                    break;
                }; // received
                match &post.state {
                    PostState::Failed(e) => {
                        let e = e.clone();
                        st.posts.remove(id);
                        result = result.and(Err(e));
                        break;
                    }
                    PostState::Posted
                        if result.is_err() || until.is_some_and(|t| Instant::now() >= t) =>
                    {
                        st.posts.remove(id);
                        if let Some(q) = st.channels.get_mut(&(rank, s.peer)) {
                            q.retain(|x| x != id);
                        }
                        result = result.and(Err(HcclError::timeout(format!(
                            "rank {} did not receive what rank {rank} sends within HCCL_EXEC_TIMEOUT ({secs:.1} s)",
                            s.peer
                        ))));
                        break;
                    }
                    // Being copied: wait for the receiver, which needs no bound.
                    PostState::Taken => {
                        st = self.changed.wait(st).unwrap_or_else(|e| e.into_inner())
                    }
                    _ => st = self.wait(st, until).0,
                }
            }
        }
        result
    }
}

/// Every rank's description agrees with rank 0's, and the V variants' counts pair up.
fn agree(descs: &[Option<Arc<Desc>>]) -> Result<()> {
    let d: Vec<&Desc> = descs.iter().map(|d| d.as_deref().unwrap()).collect();
    let first = d[0].signature();
    for (r, x) in d.iter().enumerate().skip(1) {
        let s = x.signature();
        if s != first {
            return Err(HcclError::para(format!(
                "the ranks called different collectives: rank 0 {first}, rank {r} {s}"
            )));
        }
    }
    let n = d.len();
    // Every ordered pair (i, j): what i says it sends to j must be what j says it receives.
    let pairs = |sent: &dyn Fn(usize, usize) -> u64,
                 got: &dyn Fn(usize, usize) -> u64,
                 args: &str| {
        for i in 0..n {
            for j in 0..n {
                let (s, g) = (sent(i, j), got(i, j));
                if s != g {
                    return Err(HcclError::para(format!(
                        "rank {i} sends {s} elements to rank {j}, which receives {g} from it ({args})"
                    )));
                }
            }
        }
        Ok(())
    };
    match d[0].kind {
        Kind::AlltoAllV => pairs(
            &|i, j| d[i].send_parts[j].0,
            &|i, j| d[j].recv_parts[i].0,
            "sendCounts/recvCounts",
        ),
        Kind::AllGatherV => pairs(
            &|i, _| d[i].count,
            &|i, j| d[j].recv_parts[i].0,
            "sendCount/recvCounts",
        ),
        Kind::ReduceScatterV => pairs(
            &|i, j| d[i].send_parts[j].0,
            &|_, j| d[j].count,
            "sendCounts/recvCount",
        ),
        Kind::AlltoAllVC => match (1..n).find(|&r| d[r].matrix != d[0].matrix) {
            Some(r) => Err(HcclError::para(format!(
                "rank {r}'s sendCountMatrix differs from rank 0's"
            ))),
            None => Ok(()),
        },
        _ => Ok(()),
    }
}

/// memmove of `bytes` (in place when the ranges are the same).
unsafe fn copy(dst: usize, src: usize, bytes: usize) {
    if bytes > 0 && dst != src {
        // SAFETY: per the caller.
        unsafe { std::ptr::copy(src as *const u8, dst as *mut u8, bytes) }
    }
}

/// [start, end) of rank r's share of `count` elements split over `n` ranks.
fn share(count: u64, n: usize, r: usize) -> (usize, usize) {
    let at = |k: usize| ((count as u128 * k as u128) / n as u128) as usize;
    (at(r), at(r + 1))
}

/// Reduces `len` elements at each of `srcs` in rank order into every one of `dsts`, a
/// block at a time (the block is reduced before any destination is written, so a
/// destination may be one of the sources: in place).
unsafe fn reduce_into(d: DType, op: ReduceOp, srcs: &[usize], dsts: &[usize], len: usize) {
    const BLOCK: usize = 1 << 14;
    let es = d.size();
    let mut acc = vec![0u8; BLOCK.min(len) * es];
    let mut off = 0;
    while off < len {
        let m = BLOCK.min(len - off);
        let b = off * es;
        // SAFETY: every source and destination holds `len` elements; acc holds m.
        unsafe {
            std::ptr::copy_nonoverlapping((srcs[0] + b) as *const u8, acc.as_mut_ptr(), m * es);
            for &s in &srcs[1..] {
                reduce_step(d, op, acc.as_mut_ptr(), (s + b) as *const u8, m);
            }
            for &t in dsts {
                std::ptr::copy_nonoverlapping(acc.as_ptr(), (t + b) as *mut u8, m * es);
            }
        }
        off += m;
    }
}

/// Rank r's share of the collective every rank described in `d`.
unsafe fn execute(r: usize, d: &[Arc<Desc>]) {
    let n = d.len();
    let me = &d[r];
    let es = me.dtype.size();
    let at = |base: usize, elems: u64| base + elems as usize * es;
    // SAFETY (all arms): the ranges were checked against each rank's allocations at its call,
    // and the ranks' shares do not overlap.
    unsafe {
        match me.kind {
            Kind::Barrier => {}
            Kind::AllReduce | Kind::Reduce => {
                let (lo, hi) = share(me.count, n, r);
                let srcs: Vec<usize> = d.iter().map(|x| at(x.send, lo as u64)).collect();
                let dsts: Vec<usize> = if me.kind == Kind::AllReduce {
                    d.iter().map(|x| at(x.recv, lo as u64)).collect()
                } else {
                    vec![at(d[me.root as usize].recv, lo as u64)]
                };
                reduce_into(me.dtype, me.op.unwrap(), &srcs, &dsts, hi - lo);
            }
            Kind::ReduceScatter => {
                let c = me.count;
                let srcs: Vec<usize> = d.iter().map(|x| at(x.send, r as u64 * c)).collect();
                reduce_into(me.dtype, me.op.unwrap(), &srcs, &[me.recv], c as usize);
            }
            Kind::ReduceScatterV => {
                let srcs: Vec<usize> = d.iter().map(|x| at(x.send, x.send_parts[r].1)).collect();
                reduce_into(
                    me.dtype,
                    me.op.unwrap(),
                    &srcs,
                    &[me.recv],
                    me.count as usize,
                );
            }
            Kind::AllGather => {
                for (k, x) in d.iter().enumerate() {
                    copy(
                        at(me.recv, k as u64 * me.count),
                        x.send,
                        me.count as usize * es,
                    );
                }
            }
            Kind::AllGatherV => {
                for (k, x) in d.iter().enumerate() {
                    let (cnt, displ) = me.recv_parts[k];
                    copy(at(me.recv, displ), x.send, cnt as usize * es);
                }
            }
            Kind::Broadcast => {
                if r != me.root as usize {
                    copy(me.send, d[me.root as usize].send, me.count as usize * es);
                }
            }
            Kind::Scatter => {
                let root = &d[me.root as usize];
                copy(
                    me.recv,
                    at(root.send, r as u64 * me.count),
                    me.count as usize * es,
                );
            }
            Kind::AlltoAll => {
                for (k, x) in d.iter().enumerate() {
                    copy(
                        at(me.recv, k as u64 * me.count),
                        at(x.send, r as u64 * me.count),
                        me.count as usize * es,
                    );
                }
            }
            Kind::AlltoAllV => {
                for (k, x) in d.iter().enumerate() {
                    let (cnt, rdispl) = me.recv_parts[k];
                    copy(
                        at(me.recv, rdispl),
                        at(x.send, x.send_parts[r].1),
                        cnt as usize * es,
                    );
                }
            }
            Kind::AlltoAllVC => {
                let m = &me.matrix;
                for (k, x) in d.iter().enumerate() {
                    let cnt = m[k * n + r];
                    let sdispl: u64 = m[k * n..k * n + r].iter().sum();
                    let rdispl: u64 = (0..k).map(|j| m[j * n + r]).sum();
                    copy(at(me.recv, rdispl), at(x.send, sdispl), cnt as usize * es);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn desc(kind: Kind, count: u64, send: usize, recv: usize) -> Desc {
        Desc {
            api: "HcclAllReduce",
            kind,
            dtype: DType::Fp32,
            op: Some(ReduceOp::Sum),
            root: 0,
            count,
            send,
            recv,
            send_parts: vec![],
            recv_parts: vec![],
            matrix: vec![],
        }
    }

    #[test]
    fn threads_all_reduce_in_rank_order_and_in_place() {
        let n = 4usize;
        let count = 1000u64;
        let bufs: Vec<Vec<f32>> = (0..n)
            .map(|r| {
                (0..count)
                    .map(|i| (r * 1000) as f32 + i as f32 * 0.1)
                    .collect()
            })
            .collect();
        let g = Arc::new(Group::with_devices(&[0, 1, 2, 3], "t".into()));
        let ptrs: Vec<usize> = bufs.iter().map(|b| b.as_ptr() as usize).collect();
        let want: Vec<f32> = (0..count as usize)
            .map(|i| ((bufs[0][i] + bufs[1][i]) + bufs[2][i]) + bufs[3][i])
            .collect();
        std::thread::scope(|s| {
            for r in 0..n {
                let g = g.clone();
                let p = ptrs[r];
                s.spawn(move || {
                    g.collective(
                        r as u32,
                        0,
                        Arc::new(desc(Kind::AllReduce, count, p, p)),
                        None,
                    )
                    .unwrap()
                });
            }
        });
        for b in &bufs {
            assert_eq!(b, &want);
        }
    }

    #[test]
    fn mismatched_counts_fail_every_rank() {
        let g = Arc::new(Group::with_devices(&[0, 1], "t".into()));
        let bufs = [vec![0f32; 8], vec![0f32; 8]];
        let ptrs: Vec<usize> = bufs.iter().map(|b| b.as_ptr() as usize).collect();
        let codes: Vec<i32> = std::thread::scope(|s| {
            let hs: Vec<_> = (0..2)
                .map(|r| {
                    let g = g.clone();
                    let p = ptrs[r];
                    s.spawn(move || {
                        g.collective(
                            r as u32,
                            0,
                            Arc::new(desc(Kind::AllReduce, 4 + r as u64, p, p)),
                            None,
                        )
                        .unwrap_err()
                        .code
                    })
                })
                .collect();
            hs.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert_eq!(codes, vec![1, 1]);
    }

    #[test]
    fn send_without_receiver_times_out() {
        std::env::set_var("HCCL_EXEC_TIMEOUT", "0.2");
        let g = Group::with_devices(&[0, 1], "t".into());
        let b = [1f32; 4];
        let t = Transfer {
            peer: 1,
            ptr: b.as_ptr() as usize,
            count: 4,
            dtype: DType::Fp32,
        };
        let e = g.exchange(0, &[t], &[]).unwrap_err();
        assert_eq!(e.code, crate::error::HCCL_E_TIMEOUT);
        assert!(lock(&g.state).posts.is_empty(), "the post was withdrawn");
    }
}
