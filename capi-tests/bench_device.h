/*
 * What the device-memory benchmarks (bench_data, bench_nn) share: the stream and a workspace
 * kept across calls, random device tensors, the median-of-samples timer, the `case` report
 * line and the STREAM-like bandwidth probes they are compared with. Each benchmark defines
 * BENCH_NAME (its name in error messages) before including this header.
 */
#ifndef ACLNN_CPU_CAPI_TESTS_BENCH_DEVICE_H
#define ACLNN_CPU_CAPI_TESTS_BENCH_DEVICE_H

#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"

#include "acl/acl.h"
#include "aclnn/acl_meta.h"

static aclrtStream g_stream;
static void *g_ws;
static uint64_t g_ws_size;
static const char *g_only;

static void die(const char *what)
{
    fprintf(stderr, BENCH_NAME ": %s: %s\n", what, aclGetRecentErrMsg());
    exit(1);
}

static int wanted(const char *key) { return bench_wanted(g_only, key); }

/* A workspace kept across calls, grown when a call asks for more. */
static void *workspace(uint64_t ws)
{
    if (ws > g_ws_size) {
        if (g_ws) aclrtFree(g_ws);
        if (aclrtMalloc(&g_ws, ws, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) die("aclrtMalloc workspace");
        g_ws_size = ws;
    }
    return g_ws;
}

static void sync_stream(void)
{
    if (aclrtSynchronizeStream(g_stream) != ACL_SUCCESS) die("aclrtSynchronizeStream");
}

/* ------------------------------------------------------------------ device memory */

/* `n` f32 values in [-1, 1) (or, with `lo` < `hi`, int64 values in [lo, hi)) written to fresh
 * device memory through a 4 MiB host buffer. */
static void *dev_values(int64_t n, int is_int64, int64_t lo, int64_t hi, uint32_t seed)
{
    size_t es = is_int64 ? 8 : 4, bytes = (size_t)n * es;
    void *d = NULL;
    if (aclrtMalloc(&d, bytes ? bytes : 1, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) die("aclrtMalloc");
    const int64_t chunk = 1 << 19;
    void *host = malloc((size_t)chunk * es);
    uint32_t s = seed * 2654435761u + 12345u;
    for (int64_t at = 0; at < n; at += chunk) {
        int64_t m = n - at < chunk ? n - at : chunk;
        for (int64_t i = 0; i < m; i++) {
            s = s * 1664525u + 1013904223u;
            if (is_int64)
                ((int64_t *)host)[i] = lo + (int64_t)(((uint64_t)s * (uint64_t)(hi - lo)) >> 32);
            else
                ((float *)host)[i] = (float)(s >> 8) / 8388608.0f - 1.0f;
        }
        if (aclrtMemcpy((char *)d + (size_t)at * es, (size_t)m * es, host, (size_t)m * es,
                        ACL_MEMCPY_HOST_TO_DEVICE) != ACL_SUCCESS)
            die("aclrtMemcpy");
    }
    free(host);
    return d;
}

static void *dev_f32(int64_t n, uint32_t seed) { return dev_values(n, 0, 0, 0, seed); }

static aclTensor *tensor_in(aclDataType dt, int nd, const int64_t *shape, aclFormat format, void *dev)
{
    int64_t strides[8], numel = 1;
    for (int i = nd - 1; i >= 0; i--) {
        strides[i] = numel;
        numel *= shape[i];
    }
    aclTensor *t = aclCreateTensor(shape, (uint64_t)nd, dt, strides, 0, format, &numel, 1, dev);
    if (t == NULL) die("aclCreateTensor");
    return t;
}

static aclTensor *tensor(aclDataType dt, int nd, const int64_t *shape, void *dev)
{
    return tensor_in(dt, nd, shape, ACL_FORMAT_ND, dev);
}

/* ------------------------------------------------------------------ timing */

typedef void (*Call)(void *ctx);

/* Median seconds of one call (each call ends with a synchronize). */
static double timed(Call f, void *ctx, int max_reps)
{
    f(ctx);
    double t[64], start = now();
    int reps = 0;
    while (reps < max_reps && (reps < 3 || now() - start < 0.5)) {
        double t0 = now();
        f(ctx);
        t[reps++] = now() - t0;
    }
    qsort(t, (size_t)reps, sizeof t[0], cmp);
    return t[reps / 2];
}

static void report(const char *key, double seconds, double bytes)
{
    printf("case %s %.3f %.0f\n", key, seconds * 1e6, bytes);
    fflush(stdout);
}

/* ------------------------------------------------------------------ STREAM-like probes */

/* Best of 11 over 16M f32 per array, all threads: copy (1 read, 1 write), add (2, 1), sum
 * (1, 0) and an AdamW step in plain C (4 reads: p, g, m, v; 3 writes: p, m, v), the
 * bandwidth fused_adamw's traffic can reach on this machine. */
static void stream_probe(void)
{
    const long n = 16L << 20;
    float *a = aligned_alloc(64, (size_t)n * 4), *b = aligned_alloc(64, (size_t)n * 4),
          *c = aligned_alloc(64, (size_t)n * 4), *v = aligned_alloc(64, (size_t)n * 4);
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i++) { a[i] = 1.0f; b[i] = 2.0f; c[i] = 0.0f; v[i] = 0.5f; }
    double best[4] = {1e9, 1e9, 1e9, 1e9};
    volatile float sink = 0;
    const float b1 = 0.9f, b2 = 0.999f, lr = 1e-3f, decay = 1.0f - 1e-5f, eps = 1e-8f;
    for (int r = 0; r < 11; r++) {
        double t0 = now();
#pragma omp parallel for schedule(static)
        for (long i = 0; i < n; i++) c[i] = b[i];
        double t1 = now();
#pragma omp parallel for schedule(static)
        for (long i = 0; i < n; i++) c[i] = a[i] + b[i];
        double t2 = now();
        float s = 0;
#pragma omp parallel for simd schedule(static) reduction(+ : s)
        for (long i = 0; i < n; i++) s += a[i];
        double t3 = now();
#pragma omp parallel for schedule(static)
        for (long i = 0; i < n; i++) { /* a: param, b: grad, c: exp_avg, v: exp_avg_sq */
            float g = b[i], m = b1 * c[i] + (1.0f - b1) * g, q = b2 * v[i] + (1.0f - b2) * g * g;
            c[i] = m;
            v[i] = q;
            a[i] = a[i] * decay - lr * m / (sqrtf(q) + eps);
        }
        double t4 = now();
        sink += s;
        double dt[4] = {t1 - t0, t2 - t1, t3 - t2, t4 - t3};
        for (int k = 0; k < 4; k++)
            if (dt[k] < best[k]) best[k] = dt[k];
    }
    (void)sink;
    printf("stream copy %.2f\nstream add %.2f\nstream sum %.2f\nstream adamw %.2f\nthreads %d\n",
           8.0 * n / best[0] * 1e-9, 12.0 * n / best[1] * 1e-9, 4.0 * n / best[2] * 1e-9,
           28.0 * n / best[3] * 1e-9, omp_get_max_threads());
    fflush(stdout);
    free(a);
    free(b);
    free(c);
    free(v);
}

#endif /* ACLNN_CPU_CAPI_TESTS_BENCH_DEVICE_H */
