#!/usr/bin/env python3
"""Norms, activations, pooling and cross-entropy (issue 18's speed cases): aclnn-cpu through
its C ABI (bench_nn) against PyTorch CPU on the same cases and cores, measured in the same
run after it, with bench_nn's STREAM-like probes.

    /usr/bin/python3 capi-tests/bench_nn.py target/capi/bench_nn     (or: bash .ci/bench)

Needs Debian's python3-torch (torch 1.13). Same method as bench_nn: a warm-up call, then
samples until ~0.5 s have passed (3 to 21), the median. PyTorch runs on every core and
writes into preallocated outputs where its function takes one. NumPy has none of these
operators, so it is not compared. "of BW" is the case's logical bytes (bench_nn.c: the norms
count two reads and one write of x) over the time, as a fraction of the copy bandwidth.
torch 1.13 has no RmsNorm: its figure is the usual composition
`x * rsqrt(mean(x*x) + eps) * w`; it has no f16 LayerNorm on the CPU, so the f16 cases
compare with torch's f32 LayerNorm of the same shape (noted in the table).
"""
import os
import statistics
import subprocess
import sys
import time

import torch
import torch.nn.functional as F

torch.set_num_threads(os.cpu_count())


def timed(fn, max_reps=21):
    fn()
    t, start = [], time.perf_counter()
    while len(t) < max_reps and (len(t) < 3 or time.perf_counter() - start < 0.5):
        t0 = time.perf_counter()
        fn()
        t.append(time.perf_counter() - t0)
    return statistics.median(t)


def rand(*shape, dtype=torch.float32):
    return (torch.rand(*shape) * 2 - 1).to(dtype)


def half_works(fn):
    try:
        fn()
        return True
    except RuntimeError:
        return False


def torch_case(key):
    """(callable, note) for PyTorch's side of case `key`."""
    n = 4096
    if key.startswith("layer_norm") or key.startswith("rms_norm"):
        dt = torch.float16 if key.endswith("f16") else torch.float32
        x, w, b = rand(n, n, dtype=dt), rand(n, dtype=dt), rand(n, dtype=dt)
        note = ""
        if key.startswith("layer_norm"):
            fn = lambda: F.layer_norm(x, (n,), w, b, 1e-5)
        else:
            fn = lambda: x * torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + 1e-6).to(dt) * w
            note = " (composed)"
        if dt == torch.float16 and not half_works(fn):
            x, w, b = x.float(), w.float(), b.float()
            note += " (f32: no f16 kernel)"
        return fn, note
    if key == "group_norm":
        x, w, b = rand(8, 256, 64, 64), rand(256), rand(256)
        return (lambda: F.group_norm(x, 32, w, b, 1e-5)), ""
    if key == "gelu":
        x, o = rand(16 << 20), torch.empty(16 << 20)
        return (lambda: torch._C._nn.gelu(x, out=o)), ""
    if key == "swiglu":
        x = rand(n, n)
        return (lambda: (lambda a, b: F.silu(a) * b)(*x.chunk(2, -1))), " (silu(a) * b)"
    if key in ("max_pool", "avg_pool"):
        x = rand(8, 64, 112, 112)
        if key == "max_pool":
            return (lambda: F.max_pool2d(x, 3, 2, 1)), ""
        return (lambda: F.avg_pool2d(x, 3, 2, 1, count_include_pad=True)), ""
    if key == "cross_entropy":
        x, t = rand(8192, 32000), torch.randint(0, 32000, (8192,))

        def ce():  # log-probabilities kept, as aclnnCrossEntropyLoss writes them
            lp = F.log_softmax(x, -1)
            return F.nll_loss(lp, t)

        return ce, " (log_softmax + nll_loss)"
    raise KeyError(key)


LABELS = {
    "layer_norm_f32": "LayerNorm (4096, 4096) f32",
    "layer_norm_f16": "LayerNorm (4096, 4096) f16",
    "rms_norm_f32": "RmsNorm (4096, 4096) f32",
    "rms_norm_f16": "RmsNorm (4096, 4096) f16",
    "group_norm": "GroupNorm (8, 256, 64, 64) f32, 32 groups",
    "gelu": "Gelu 16M f32",
    "swiglu": "SwiGlu (4096, 4096) f32, last dim",
    "max_pool": "MaxPool 3x3/2 pad 1, (8, 64, 112, 112) f32",
    "avg_pool": "AvgPool2d 3x3/2 pad 1, (8, 64, 112, 112) f32",
    "cross_entropy": "CrossEntropyLoss (8192, 32000) f32, mean",
}


def us(s):
    return "%.0f us" % (s * 1e6) if s < 1e-2 else "%.1f ms" % (s * 1e3)


def main():
    if sys.argv[1].endswith(".txt"):  # bench_nn's output saved earlier
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
    print("Machine: %s, %d CPUs, %s; %d threads; PyTorch %s (%d threads); %s" % (
        cpu, os.cpu_count(), isa, threads, torch.__version__, torch.get_num_threads(), time.strftime("%Y-%m-%d")))
    print("STREAM-like bandwidth in this run: copy %.1f GB/s, add %.1f GB/s\n" % (
        stream.get("copy", 0), stream.get("add", 0)))
    print("| NN case | aclnn-cpu | GB/s | of copy BW | PyTorch | PyTorch time / ours |")
    print("|---|---|---|---|---|---|")
    torch.manual_seed(0)
    for key, label in LABELS.items():
        if key not in ours:
            continue
        t, b = ours[key]
        fn, note = torch_case(key)
        tt = timed(fn)
        gbs = b / t * 1e-9
        print("| %s | %s | %.1f | %.2f | %s%s | %.2fx |" % (
            label, us(t), gbs, gbs / stream["copy"], us(tt), note, tt / t))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
