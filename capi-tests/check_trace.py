#!/usr/bin/env python3
"""Checks an aclnn-cpu profile (Chrome trace event JSON) and optionally renders it.

    check_trace.py TRACE.json [--streams N] [--ops aclnnAdd=6,aclnnMul=1] [--html OUT.html]
    check_trace.py --latest DIR ...     (the trace named in DIR/latest, as test_tooling writes it)

What is checked: the file parses as JSON in the object format; the host process and each
device are named, every stream track is named "stream k" and there are at least N; every
complete event ("X") has ts >= 0 and dur >= 0; on each stream track the events are in
stream order (each starts at or after the previous one ends: a stream runs one task at a
time); every op execution carries shapes, dtypes, bytes and workspace, follows its launch
(the host "launch" span of the same name, matched in order) and has a queue-wait slice
that ends where the execution starts; copies, event records and waits, and synchronizes
are present; a stream waiting for an event finishes its wait no earlier than the record.
Exit status 0 when everything holds; the failures are printed otherwise.

--html writes a self-contained HTML timeline (no network: Perfetto's UI is not reachable
offline) with one lane per track, for a headless browser screenshot.
"""
import argparse
import collections
import html
import json
import os
import sys

failures = []


def fail(msg):
    failures.append(msg)


def load(path):
    with open(path) as f:
        doc = json.load(f)
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
        raise SystemExit(f"{path}: not a Chrome trace in the object format (no traceEvents list)")
    return doc["traceEvents"]


def tracks(events):
    """(pid, tid) -> name, and pid -> process name, from the metadata events."""
    procs, threads = {}, {}
    for e in events:
        if e.get("ph") != "M":
            continue
        if e["name"] == "process_name":
            procs[e["pid"]] = e["args"]["name"]
        elif e["name"] == "thread_name":
            threads[(e["pid"], e["tid"])] = e["args"]["name"]
    return procs, threads


def check(events, want_streams, want_ops):
    procs, threads = tracks(events)
    host_pids = [p for p, n in procs.items() if n.startswith("host")]
    dev_pids = [p for p, n in procs.items() if n.startswith("device")]
    if len(host_pids) != 1:
        fail(f"expected one host process track, got {procs}")
    if not dev_pids:
        fail(f"no device process track: {procs}")
    stream_tracks = {k: n for k, n in threads.items() if k[0] in dev_pids}
    if len(stream_tracks) < want_streams:
        fail(f"expected at least {want_streams} stream tracks, got {sorted(stream_tracks.values())}")
    for k, n in stream_tracks.items():
        if not n.startswith("stream "):
            fail(f"stream track {k} is named {n!r}")

    spans = [e for e in events if e.get("ph") == "X"]
    for e in spans:
        if e["ts"] < 0 or e["dur"] < 0:
            fail(f"negative time: {e}")
        if (e["pid"], e["tid"]) not in threads:
            fail(f"event on an unnamed track: {e}")

    # Stream order: on each stream track, no task starts before the previous one ended.
    by_track = collections.defaultdict(list)
    for e in spans:
        by_track[(e["pid"], e["tid"])].append(e)
    for k in stream_tracks:
        seq = sorted(by_track.get(k, []), key=lambda e: e["ts"])
        for a, b in zip(seq, seq[1:]):
            if b["ts"] + 1e-3 < a["ts"] + a["dur"]:
                fail(f"stream order broken on {stream_tracks[k]}: {b['name']} at {b['ts']} starts before "
                     f"{a['name']} ends at {a['ts'] + a['dur']}")

    ops = [e for e in spans if e.get("cat") == "op"]
    launches = collections.defaultdict(list)
    for e in spans:
        if e.get("cat") == "launch":
            launches[e["name"]].append(e)
    execs = collections.defaultdict(list)
    for e in sorted(ops, key=lambda e: e["ts"]):
        execs[e["name"]].append(e)
        for key in ("shapes", "dtypes", "strides", "bytes", "workspace", "queue_wait_us"):
            if key not in e.get("args", {}):
                fail(f"op {e['name']} at {e['ts']} has no {key}")
        if (e["pid"], e["tid"]) not in stream_tracks:
            fail(f"op {e['name']} is not on a stream track")
    for name, count in want_ops.items():
        if len(execs[name]) != count:
            fail(f"expected {count} executions of {name}, got {len(execs[name])}")
    for name, ex in execs.items():
        ls = sorted(launches[name], key=lambda e: e["ts"])
        if len(ls) < len(ex):
            fail(f"{name}: {len(ex)} executions but {len(ls)} launches")
            continue
        for launch, run in zip(ls, ex):
            if run["ts"] + 1e-3 < launch["ts"]:
                fail(f"{name} runs at {run['ts']} before its launch at {launch['ts']}")

    # Queue waits: async slices whose end is the start of an op execution.
    starts = {round(e["ts"], 3) for e in ops}
    begins = {e["id"]: e for e in events if e.get("ph") == "b" and e.get("cat") == "queue"}
    ends = {e["id"]: e for e in events if e.get("ph") == "e" and e.get("cat") == "queue"}
    if set(begins) != set(ends) or len(begins) != len(ops):
        fail(f"queue slices: {len(begins)} begins, {len(ends)} ends for {len(ops)} ops")
    for i, b in begins.items():
        e = ends.get(i)
        if e and (e["ts"] + 1e-3 < b["ts"] or round(e["ts"], 3) not in starts):
            fail(f"queue slice {i} ({b['name']}) ends at {e['ts']}, not at an op's start after {b['ts']}")

    names = collections.Counter(e["name"] for e in events if e.get("ph") in ("X", "i"))
    for needed in ("aclrtMemcpyAsync", "aclrtMemcpy", "aclrtRecordEvent", "aclrtStreamWaitEvent",
                   "aclrtSynchronizeStream"):
        if names[needed] == 0:
            fail(f"no {needed} event in the trace")
    for e in spans:
        if e.get("cat") == "memcpy" and "bytes" not in e.get("args", {}):
            fail(f"copy without bytes: {e}")
    records = [e for e in events if e["name"] == "aclrtRecordEvent" and e.get("ph") == "i"]
    for w in (e for e in spans if e["name"] == "aclrtStreamWaitEvent"):
        rec = [r for r in records if r["args"].get("event") == w["args"].get("event")]
        if rec and w["ts"] + w["dur"] + 1e-3 < min(r["ts"] for r in rec):
            fail(f"a wait ends at {w['ts'] + w['dur']} before its event was recorded")
    return procs, threads, spans


def render_html(events, procs, threads, out):
    """A self-contained timeline: one lane per track, one box per span, a tick per instant."""
    spans = [e for e in events if e.get("ph") in ("X", "i")]
    t0 = min(e["ts"] for e in spans)
    t1 = max(e["ts"] + e.get("dur", 0) for e in spans)
    width = 1500.0
    scale = width / max(t1 - t0, 1e-3)
    lanes = sorted(threads, key=lambda k: (k[0], k[1] if k[0] != 1 else -1, k[1]))
    colors = {"op": "#3b7dd8", "launch": "#8cb369", "memcpy": "#f4a259", "event": "#bc4b51",
              "sync": "#9b5de5", "msproftx": "#5b8e7d", "mark": "#222"}
    # Spans nest on a track (a range around launches around nothing): each gets the depth of
    # the spans still open at its start, and a lane is as tall as its deepest nesting.
    depth = {}
    for k in lanes:
        open_ends = []
        for e in sorted((e for e in spans if (e["pid"], e["tid"]) == k), key=lambda e: (e["ts"], -e.get("dur", 0))):
            while open_ends and open_ends[-1] <= e["ts"]:
                open_ends.pop()
            depth[id(e)] = len(open_ends)
            if e["ph"] == "X":
                open_ends.append(e["ts"] + e["dur"])
    rows = []
    y = 30
    for k in lanes:
        mine = [e for e in spans if (e["pid"], e["tid"]) == k]
        levels = 1 + max((depth[id(e)] for e in mine), default=0)
        label = f"{procs.get(k[0], k[0])} / {threads[k]}"
        rows.append(f'<text x="4" y="{y + 18}" font-size="11">{html.escape(label)}</text>')
        rows.append(f'<line x1="0" x2="{330 + width:.0f}" y1="{y - 3}" y2="{y - 3}" stroke="#ddd"/>')
        for e in mine:
            ey = y + depth[id(e)] * 26
            x = 330 + (e["ts"] - t0) * scale
            title = html.escape(f"{e['name']} ({e.get('cat')}) {json.dumps(e.get('args', {}))}")
            if e["ph"] == "X":
                w = max(e["dur"] * scale, 1.0)
                c = colors.get(e.get("cat"), "#777")
                rows.append(f'<rect x="{x:.1f}" y="{ey}" width="{w:.1f}" height="24" fill="{c}" '
                            f'stroke="#fff" stroke-width="0.5"><title>{title}</title></rect>')
                if w > 40:
                    rows.append(f'<text x="{x + 2:.1f}" y="{ey + 16}" font-size="10" fill="#fff">'
                                f'{html.escape(e["name"])}</text>')
            else:
                rows.append(f'<path d="M{x:.1f} {ey} l5 12 l-5 12 l-5 -12 z" fill="#222"><title>{title}</title></path>')
        y += levels * 26 + 10
    legend = " ".join(f'<span style="background:{c};color:#fff;padding:2px 6px">{n}</span>'
                      for n, c in colors.items())
    height = y + 10
    page = f"""<!doctype html><html><head><meta charset="utf-8"><title>aclnn-cpu timeline</title></head>
<body style="font-family:sans-serif;margin:8px">
<div>aclnn-cpu timeline: {len(spans)} events over {t1 - t0:.1f} us &nbsp; {legend}</div>
<svg width="{330 + width + 20:.0f}" height="{height}" xmlns="http://www.w3.org/2000/svg">
{''.join(rows)}
</svg></body></html>
"""
    with open(out, "w") as f:
        f.write(page)


def self_test():
    """The checker must reject what it is there to catch: a stream running two tasks at
    once, an op running before its launch, a queue slice ending elsewhere."""
    meta = [
        {"ph": "M", "pid": 1, "tid": 0, "name": "process_name", "args": {"name": "host (pid 1)"}},
        {"ph": "M", "pid": 1, "tid": 7, "name": "thread_name", "args": {"name": "main (7)"}},
        {"ph": "M", "pid": 100, "tid": 0, "name": "process_name", "args": {"name": "device 0"}},
        {"ph": "M", "pid": 100, "tid": 1, "name": "thread_name", "args": {"name": "stream 1"}},
    ]
    args = {"shapes": "", "dtypes": "", "strides": "", "bytes": 0, "workspace": 0, "queue_wait_us": 0}
    bad = meta + [
        {"name": "aclnnAdd", "cat": "launch", "ph": "X", "pid": 1, "tid": 7, "ts": 5.0, "dur": 1.0, "args": {}},
        {"name": "aclnnAdd", "cat": "launch", "ph": "X", "pid": 1, "tid": 7, "ts": 6.0, "dur": 1.0, "args": {}},
        {"name": "aclnnAdd", "cat": "op", "ph": "X", "pid": 100, "tid": 1, "ts": 2.0, "dur": 4.0, "args": args},
        {"name": "aclnnAdd", "cat": "op", "ph": "X", "pid": 100, "tid": 1, "ts": 4.0, "dur": 4.0, "args": args},
        {"name": "queued aclnnAdd", "cat": "queue", "ph": "b", "id": 1, "pid": 100, "tid": 1, "ts": 1.0},
        {"name": "queued aclnnAdd", "cat": "queue", "ph": "e", "id": 1, "pid": 100, "tid": 1, "ts": 3.0},
    ]
    check(bad, 1, {"aclnnAdd": 2})
    caught = "\n".join(failures)
    for what in ("stream order broken", "before its launch", "queue slice 1", "no aclrtMemcpyAsync"):
        if what not in caught:
            print(f"self-test: the checker missed '{what}':\n{caught}")
            return 1
    failures.clear()
    print("check_trace self-test: a broken trace is rejected (stream order, launch order, queue slices, missing events)")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("trace", nargs="?")
    ap.add_argument("--latest", help="directory whose 'latest' file names the trace")
    ap.add_argument("--streams", type=int, default=1)
    ap.add_argument("--ops", default="", help="name=count,... executions expected")
    ap.add_argument("--html")
    ap.add_argument("--self-test", action="store_true", help="check that a broken trace is rejected")
    a = ap.parse_args()
    if a.self_test:
        return self_test()
    path = a.trace
    if a.latest:
        with open(os.path.join(a.latest, "latest")) as f:
            path = f.read().strip()
    if not path:
        ap.error("a trace path or --latest DIR is needed")
    want_ops = {}
    for kv in filter(None, a.ops.split(",")):
        k, v = kv.split("=")
        want_ops[k] = int(v)
    events = load(path)
    procs, threads, spans = check(events, a.streams, want_ops)
    if a.html:
        render_html(events, procs, threads, a.html)
    if failures:
        for f in failures:
            print("FAIL:", f)
        print(f"check_trace: {path}: {len(failures)} failure(s)")
        return 1
    print(f"check_trace: {path}: OK ({len(events)} events, {len(spans)} spans, {len(threads)} tracks)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
