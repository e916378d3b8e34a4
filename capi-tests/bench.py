#!/usr/bin/env python3
"""Operator benchmark report: aclnn-cpu through its C ABI (bench_ops) against NumPy, measured
in the same run, with this machine's memory bandwidth (bench_ops' STREAM-like probe).

    python3 capi-tests/bench.py target/capi/bench_ops [sizes...]     (or: bash .ci/bench)

NumPy is timed with the method of bench_ops (and of the shared numpy_peer.py): warm-up,
calls per sample doubled until a sample lasts >= 2 ms, median of up to 15 samples. NumPy's
element-wise ops run on one thread; ours use every core. GB/s counts logical bytes (each input
element read once, the output written once, no write-allocate), as STREAM does.
Columns:
  ours/E1   time per logical byte relative to our own contiguous f32 add (E1) at the same size
  of BW     fraction of the STREAM-like bandwidth of the same kind (add for element-wise ops,
            sum for reductions) measured in this run
  x NumPy   NumPy's time / ours (higher is better)
"""
import os
import platform
import statistics
import subprocess
import sys
import time

import numpy as np

try:
    import ml_dtypes

    BF16 = ml_dtypes.bfloat16
except ImportError:  # bf16 case is skipped for NumPy
    BF16 = None

LABELS = {
    "E1": "a+b f32 contiguous",
    "E1u": "E1, operands at +16 bytes",
    "copy": "f32 copy (InplaceCopy)",
    "E2": "a+2.0 (Adds)",
    "E3": "(N,M)+(M,) row broadcast",
    "E4": "(N,1)+(1,M) outer broadcast",
    "E5": "A.T view + B",
    "E6": "x[::2] view + y",
    "E7": "f16+f32 -> f32",
    "E8": "f16+f16",
    "E9": "bf16+bf16",
    "E10": "s32+s64 -> s64",
    "E11": "c64*c64",
    "E12": "SWhere(c, a, b(1,M))",
    "E13": "a>b -> bool",
    "E14": "f64+f64",
    "E15n": "NCHW + (1,C,1,1)",
    "E15": "(8,1,16,1,64)+(1,32,16,8,1)",
    "O1": "1-element Add + sync",
    "Rlast4096": "ReduceSum last axis 4096^2",
    "Rfirst4096": "ReduceSum first axis 4096^2",
    "Rlast8192": "ReduceSum last axis 8192^2",
    "Rfirst8192": "ReduceSum first axis 8192^2",
    "S4096": "Softmax last axis 4096^2",
}

TARGETS = {  # x NumPy unless noted; from the speed issue
    "E1": "0.9 BW", "E2": "0.9 BW", "E13": "0.9 BW", "E14": "0.9 BW",
    "E1u": "E1 +-5%", "E3": "<=1.1 E1", "E4": "<=1.1 E1", "E6": "<=1.1 E1", "E15": "<=1.1 E1", "E15n": "<=1.1 E1",
    "E5": ">=10x", "E7": ">=6x", "E9": ">=6x", "E8": ">=20x", "E10": ">=2x", "E12": ">=12x",
    "O1": "<=1 us", "Rlast4096": "0.9 BW, >=2x", "Rfirst4096": "0.9 BW, >=2x",
    "Rlast8192": "0.9 BW, >=2x", "Rfirst8192": "0.9 BW, >=2x", "S4096": ">=2x",
}


def timeit(fn):
    fn()
    loops = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(loops):
            fn()
        dt = time.perf_counter() - t0
        if dt >= 0.002 or loops >= 1 << 20:
            break
        loops *= 2
    reps = max(3, min(15, int(3.0 / max(dt, 1e-9))))
    samples = []
    for _ in range(reps):
        t0 = time.perf_counter()
        for _ in range(loops):
            fn()
        samples.append((time.perf_counter() - t0) / loops)
    return statistics.median(samples)


def rand(shape, dt, rng):
    if dt in (np.int32, np.int64):
        return rng.integers(-1000, 1000, size=shape).astype(dt)
    if dt == np.bool_:
        return rng.random(shape) > 0.5
    if dt == np.complex64:
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dt)
    return rng.standard_normal(shape).astype(np.float32).astype(dt)


def numpy_case(key, n, rng):
    """Returns a zero-argument callable doing case `key` at size n in NumPy, or None."""
    N = 1
    while N * N < n:
        N *= 2
    M = n // N
    f32 = np.float32

    def binary(op, a, b, o):
        x, y, z = rand((n,), a, rng), rand((n,), b, rng), np.empty((n,), o)
        return lambda: op(x, y, out=z)

    if key == "E1":
        return binary(np.add, f32, f32, f32)
    if key == "E1u":  # operands 16 bytes past the start of their allocations
        x, y = rand((n + 4,), f32, rng)[4:], rand((n + 4,), f32, rng)[4:]
        z = np.empty((n + 4,), f32)[4:]
        return lambda: np.add(x, y, out=z)
    if key == "copy":
        x, z = rand((n,), f32, rng), np.empty((n,), f32)
        return lambda: np.copyto(z, x)
    if key == "E2":
        x, z = rand((n,), f32, rng), np.empty((n,), f32)
        return lambda: np.add(x, np.float32(2.0), out=z)
    if key == "E3":
        x, r, z = rand((N, M), f32, rng), rand((M,), f32, rng), np.empty((N, M), f32)
        return lambda: np.add(x, r, out=z)
    if key == "E4":
        c, r, z = rand((N, 1), f32, rng), rand((1, M), f32, rng), np.empty((N, M), f32)
        return lambda: np.add(c, r, out=z)
    if key == "E5":
        t, y, z = rand((M, N), f32, rng).T, rand((N, M), f32, rng), np.empty((N, M), f32)
        return lambda: np.add(t, y, out=z)
    if key == "E6":
        x, y, z = rand((2 * n,), f32, rng)[::2], rand((n,), f32, rng), np.empty((n,), f32)
        return lambda: np.add(x, y, out=z)
    if key == "E7":
        return binary(np.add, np.float16, f32, f32)
    if key == "E8":
        return binary(np.add, np.float16, np.float16, np.float16)
    if key == "E9":
        return binary(np.add, BF16, BF16, BF16) if BF16 is not None else None
    if key == "E10":
        return binary(np.add, np.int32, np.int64, np.int64)
    if key == "E11":
        return binary(np.multiply, np.complex64, np.complex64, np.complex64)
    if key == "E12":  # NumPy's where has no out=: it allocates, as a NumPy user's code does
        c, a, b = rand((N, M), np.bool_, rng), rand((N, M), f32, rng), rand((1, M), f32, rng)
        return lambda: np.where(c, a, b)
    if key == "E13":
        return binary(np.greater, f32, f32, np.bool_)
    if key == "E14":
        return binary(np.add, np.float64, np.float64, np.float64)
    if key == "E15n":
        hw = 1
        while hw * hw * 64 * 4 < n:
            hw *= 2
        s = (n // (64 * hw * hw), 64, hw, hw)
        x, c, z = rand(s, f32, rng), rand((1, 64, 1, 1), f32, rng), np.empty(s, f32)
        return lambda: np.add(x, c, out=z)
    if key == "E15":
        a, b = rand((8, 1, 16, 1, 64), f32, rng), rand((1, 32, 16, 8, 1), f32, rng)
        z = np.empty((8, 32, 16, 8, 64), f32)
        return lambda: np.add(a, b, out=z)
    if key == "O1":
        x, y, z = rand((1,), f32, rng), rand((1,), f32, rng), np.empty((1,), f32)
        return lambda: np.add(x, y, out=z)
    if key.startswith("R"):
        side = int(key[-4:])
        axis = -1 if key.startswith("Rlast") else 0
        x, z = rand((side, side), f32, rng), np.empty((side,), f32)
        return lambda: np.sum(x, axis=axis, out=z)
    if key == "S4096":
        x, z = rand((4096, 4096), f32, rng), np.empty((4096, 4096), f32)
        m, s = np.empty((4096, 1), f32), np.empty((4096, 1), f32)

        def softmax():  # the composition a NumPy user writes, with out= everywhere it exists
            np.max(x, axis=-1, keepdims=True, out=m)
            np.subtract(x, m, out=z)
            np.exp(z, out=z)
            np.sum(z, axis=-1, keepdims=True, out=s)
            np.divide(z, s, out=z)
        return softmax
    return None


def fmt_n(n):
    if n >= 1 << 20 and n % (1 << 20) == 0:
        return "%dM" % (n >> 20)
    if n >= 1 << 10 and n % (1 << 10) == 0:
        return "%dK" % (n >> 10)
    return str(n)


def main():
    exe = sys.argv[1]
    args = sys.argv[2:]
    out = subprocess.run([exe] + args, check=True, capture_output=True, text=True).stdout
    stream, cases = {}, []
    for line in out.splitlines():
        f = line.split()
        if f[0] == "stream":
            stream[f[1]] = float(f[2])
        elif f[0] == "case":
            cases.append((f[1], int(f[2]), float(f[3]) * 1e-6, float(f[4]), int(f[5])))
    rng = np.random.default_rng(0)
    e1 = {n: t / b for k, n, t, b, _ in cases if k == "E1"}
    cpu = ""
    try:
        cpu = next(l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name"))
    except (OSError, StopIteration):
        pass
    print("Machine: %s, %d CPUs; NumPy %s (element-wise on 1 thread); %s" % (
        cpu or platform.machine(), os.cpu_count(), np.__version__, time.strftime("%Y-%m-%d")))
    print("Memory bandwidth in this run (STREAM-like, %d threads): add %.1f GB/s, sum %.1f GB/s, "
          "copy %.1f GB/s\n" % (stream.get("threads", 0), stream.get("add", 0), stream.get("sum", 0),
                                stream.get("copy", 0)))
    print("| case | n | ours | ns/el | GB/s | ours/E1 | of BW | NumPy | x NumPy | target |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for key, n, t, nbytes, nout in cases:
        fn = numpy_case(key, n, rng)
        tn = timeit(fn) if fn is not None else float("nan")
        bw = nbytes / t / 1e9
        ref_bw = stream.get("sum" if key.startswith("R") else "add", float("nan"))
        rel = (t / nbytes) / e1[n] if n in e1 else float("nan")
        fmt_t = lambda s: ("%.2f us" % (s * 1e6)) if s < 1e-3 else ("%.2f ms" % (s * 1e3))
        print("| %s %s | %s | %s | %.3f | %.1f | %s | %s | %s | %s | %s |" % (
            key, LABELS.get(key, ""), fmt_n(n), fmt_t(t), t / nout * 1e9, bw,
            "%.2f" % rel if rel == rel else "", "%.2f" % (bw / ref_bw) if key != "O1" else "",
            fmt_t(tn) if tn == tn else "n/a", "%.2f" % (tn / t) if tn == tn else "",
            TARGETS.get(key, "") if n >= (1 << 24) or key in ("O1", "E15") else ""))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
