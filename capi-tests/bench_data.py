#!/usr/bin/env python3
"""Tensor lists and data movement: aclnn-cpu through its C ABI (bench_data) against NumPy
and PyTorch on the same sizes, measured in the same run after it, with bench_data's
STREAM-like probes (copy, add, sum and a plain-C AdamW step).

    /usr/bin/python3 capi-tests/bench_data.py target/capi/bench_data     (or: bash .ci/bench)

Needs Debian's python3-torch and python3-numpy (torch 1.13). Same method as bench_data:
a warm-up call, then samples until ~0.5 s have passed (3 to 21), the median. PyTorch runs
on every core; NumPy's functions here run on one thread (it has no threaded form of them).
GB/s counts logical bytes (each input element read once, each output written once).
"""
import os
import statistics
import subprocess
import sys
import time

import numpy as np
import torch

torch.set_num_threads(os.cpu_count())


def timed(fn, max_reps=21):
    fn()
    t, start = [], time.perf_counter()
    while len(t) < max_reps and (len(t) < 3 or time.perf_counter() - start < 0.5):
        t0 = time.perf_counter()
        fn()
        t.append(time.perf_counter() - t0)
    return statistics.median(t)


def f32(rng, *shape):
    return (rng.random(shape, dtype=np.float32) * 2 - 1)


def lists_torch():
    rng = np.random.default_rng(0)
    xs = [torch.from_numpy(f32(rng, 4096)) for _ in range(1000)]
    ys = [torch.from_numpy(f32(rng, 4096)) for _ in range(1000)]
    os_ = [torch.empty(4096) for _ in range(1000)]

    def loop():
        for x, y, o in zip(xs, ys, os_):
            torch.add(x, y, alpha=1.0, out=o)

    r = {"foreach_add": timed(lambda: torch._foreach_add(xs, ys, alpha=1.0), 41),
         "add_x1000": timed(loop, 41)}
    del xs, ys, os_
    return r


def adamw_torch():
    torch.manual_seed(0)
    params = [torch.rand(100000) * 2 - 1 for _ in range(1000)]
    for p in params:
        p.grad = torch.rand(100000) * 2 - 1
    opt = torch.optim.AdamW(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.01,
                            foreach=True)
    opt.step()  # creates the state (exp_avg, exp_avg_sq): not timed
    with torch.no_grad():
        return timed(opt.step, 7)


def data_cases(rng):
    """key -> (numpy callable or None, torch callable or None, note)."""
    M4, M16 = 4 << 20, 16 << 20
    c = {}
    parts = [f32(rng, 2048, 2048) for _ in range(4)]
    tparts = [torch.from_numpy(p) for p in parts]
    z0, zl = np.empty((8192, 2048), np.float32), np.empty((2048, 8192), np.float32)
    t0, tl = torch.from_numpy(z0), torch.from_numpy(zl)
    c["cat0"] = (lambda: np.concatenate(parts, axis=0, out=z0), lambda: torch.cat(tparts, 0, out=t0))
    c["catlast"] = (lambda: np.concatenate(parts, axis=1, out=zl), lambda: torch.cat(tparts, 1, out=tl))
    x = f32(rng, 32, 512, 32, 32)
    zp = np.empty((32, 32, 512, 32), np.float32)
    tx, tzp = torch.from_numpy(x), torch.from_numpy(zp)
    c["permute"] = (lambda: np.copyto(zp, x.transpose(0, 2, 1, 3)),
                    lambda: tzp.copy_(tx.permute(0, 2, 1, 3)))
    s = f32(rng, 4096, 8192)
    zs = np.empty((4096, 4096), np.float32)
    ts, tzs = torch.from_numpy(s), torch.from_numpy(zs)
    c["slice2"] = (lambda: np.copyto(zs, s[:, ::2]), lambda: tzs.copy_(ts[:, ::2]))
    big = f32(rng, 1 << 20, 128)
    idx = rng.integers(0, 1 << 20, 1 << 16)
    zi = np.empty((1 << 16, 128), np.float32)
    tbig, tidx, tzi = torch.from_numpy(big), torch.from_numpy(idx), torch.from_numpy(zi)
    c["index_select"] = (lambda: np.take(big, idx, axis=0, out=zi),
                         lambda: torch.index_select(tbig, 0, tidx, out=tzi))
    self_ = f32(rng, 1 << 18, 128)
    src = f32(rng, 1 << 16, 128)
    rows = rng.integers(0, 1 << 18, 1 << 16)
    zsa = np.empty_like(self_)
    tself, tsrc, tzsa = torch.from_numpy(self_), torch.from_numpy(src), torch.from_numpy(zsa)
    tindex = torch.from_numpy(rows)[:, None].expand(1 << 16, 128).contiguous()

    def np_scatter_add():
        np.copyto(zsa, self_)
        np.add.at(zsa, rows, src)

    c["scatter_add"] = (np_scatter_add, lambda: tzsa.copy_(tself).scatter_add_(0, tindex, tsrc))
    v = f32(rng, M16)
    tv = torch.from_numpy(v)
    vals, inds = torch.empty(M16), torch.empty(M16, dtype=torch.int64)
    c["sort"] = (lambda: np.sort(v), lambda: torch.sort(tv, 0, False, out=(vals, inds)))
    zc = np.empty(M16, np.float32)
    tzc = torch.from_numpy(zc)
    c["cumsum"] = (lambda: np.cumsum(v, out=zc), lambda: torch.cumsum(tv, 0, out=tzc))
    return c


LABELS = {
    "cat0": "Cat 4 x (2048,2048) f32, dim 0",
    "catlast": "Cat 4 x (2048,2048) f32, last dim",
    "permute": "Permute (0,2,1,3) of (32,512,32,32) f32, written out",
    "slice2": "Slice (4096,8192) f32, last dim, step 2",
    "index_select": "IndexSelect 64K rows of (1M,128) f32",
    "scatter_add": "ScatterAdd dim 0: (256K,128) + 64K rows",
    "sort": "Sort 16M f32 (values + int64 indices)",
    "cumsum": "Cumsum 16M f32",
}
REPS = {"sort": 5}


def us(s):
    return "%.0f us" % (s * 1e6) if s < 1e-2 else "%.1f ms" % (s * 1e3)


def main():
    if sys.argv[1].endswith(".txt"):  # bench_data's output saved earlier
        out = open(sys.argv[1]).read()
    else:
        out = subprocess.run([sys.argv[1]], check=True, capture_output=True, text=True).stdout
    stream, ours, threads = {}, {}, 0
    for line in out.splitlines():
        f = line.split()
        if f[0] == "stream":
            stream[f[1]] = float(f[2])
        elif f[0] == "threads":
            threads = int(f[1])
        elif f[0] == "case":
            ours[f[1]] = (float(f[2]) * 1e-6, float(f[3]))
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    flags = open("/proc/cpuinfo").read()
    isa = "AVX-512" if " avx512f" in flags else ("AVX2" if " avx2" in flags else "baseline")
    print("Machine: %s, %d CPUs, %s; %d threads; NumPy %s, PyTorch %s; %s" % (
        cpu, os.cpu_count(), isa, threads, np.__version__, torch.__version__, time.strftime("%Y-%m-%d")))
    print("STREAM-like bandwidth in this run: copy %.1f GB/s, add %.1f GB/s, sum %.1f GB/s, "
          "AdamW step in plain C (4 reads, 3 writes) %.1f GB/s\n" % (
              stream.get("copy", 0), stream.get("add", 0), stream.get("sum", 0), stream.get("adamw", 0)))
    if "foreach_add" in ours or "fused_adamw" in ours:
        tl = lists_torch() if "foreach_add" in ours else {}
        ta = adamw_torch() if "fused_adamw" in ours else float("nan")
        print("| tensor-list case | aclnn-cpu | GB/s | of BW | PyTorch | PyTorch time / ours |")
        print("|---|---|---|---|---|---|")
        rows = [("foreach_add", "ForeachAddList 1000 x 4096 f32 (one launch)", "add", "torch._foreach_add"),
                ("add_x1000", "1000 aclnnAdd calls, one sync", "add", "1000 torch.add(out=)"),
                ("fused_adamw", "FusedAdamw 100M f32 in 1000 tensors", "adamw", "AdamW(foreach=True).step")]
        for key, label, bw, tname in rows:
            if key not in ours:
                continue
            t, b = ours[key]
            tt = tl.get(key) if key != "fused_adamw" else ta
            gbs = b / t * 1e-9
            print("| %s | %s | %.1f | %.2f of %s | %s %s | %.2fx |" % (
                label, us(t), gbs, gbs / stream[bw], bw, tname, us(tt), tt / t))
        if "foreach_add" in ours and "add_x1000" in ours:
            print("\nForeachAddList speed-up over 1000 aclnnAdd calls: %.1fx (target >= 10x)" % (
                ours["add_x1000"][0] / ours["foreach_add"][0]))
        if "fused_adamw" in ours:
            t, b = ours["fused_adamw"]
            print("FusedAdamw moves %.2f GB a step (4 f32 reads + 3 f32 writes of 100M): %.1f GB/s = "
                  "%.2f of the plain-C AdamW probe, %.2f of STREAM add" % (
                      b * 1e-9, b / t * 1e-9, b / t * 1e-9 / stream["adamw"], b / t * 1e-9 / stream["add"]))
        print()
    keys = [k for k in LABELS if k in ours]
    if keys:
        rng = np.random.default_rng(0)
        cases = data_cases(rng)
        print("| data case | aclnn-cpu | GB/s | of copy BW | NumPy (1 thread) | NumPy / ours | PyTorch | PyTorch / ours |")
        print("|---|---|---|---|---|---|---|---|")
        for key in keys:
            t, b = ours[key]
            fn, ft = cases[key]
            tn = timed(fn, REPS.get(key, 21))
            tt = timed(ft, REPS.get(key, 21))
            gbs = b / t * 1e-9
            print("| %s | %s | %.1f | %.2f | %s | %.2fx | %s | %.2fx |" % (
                LABELS[key], us(t), gbs, gbs / stream["copy"], us(tn), tn / t, us(tt), tt / t))
            sys.stdout.flush()


if __name__ == "__main__":
    main()
