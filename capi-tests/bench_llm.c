/*
 * The products an LLM's decode and prefill spend their time in, through the C ABI as
 * ggml's CANN back-end calls them: aclnnWeightQuantBatchMatmulV2 with an int8 weight (per
 * channel scale) and an int4 weight (per group of 32), and aclnnMm with an f16 weight, each
 * weight a transposed view of its (n, k) storage, x f16 (f32 for Mm). Also ggml's defaults:
 * int8 per group of 32 (Q8_0) and an f16 weight converted to FRACTAL_NZ by
 * aclnnTransMatmulWeight, multiplied with an f16 x. Median of repeated
 * runs of the whole two-phase call plus synchronize.
 *
 * Prints "case m k n time_us weight_GB/s GFLOP/s" lines, then the machine's read
 * bandwidth measured in the same run ("stream read <GB/s>", an OpenMP sum over 256 MiB)
 * and "threads <n>". Run with .ci/bench (which also times PyTorch on the same cases).
 */
#define _POSIX_C_SOURCE 199309L
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"

#include "acl/acl.h"
#include "aclnnop/aclnn_mm.h"
#include "aclnnop/aclnn_trans_matmul_weight.h"
#include "aclnnop/aclnn_weight_quant_batch_matmul_v2.h"

enum kind { INT8_CHANNEL, INT8_GROUP32, INT4_GROUP32, F16_MM, F16_NZ_MM };

static aclrtStream g_stream;

static void *device(size_t bytes, unsigned seed)
{
    unsigned char *host = malloc(bytes);
    for (size_t i = 0; i < bytes; i++) {
        seed = seed * 1103515245u + 12345u;
        host[i] = (unsigned char)(seed >> 16);
    }
    void *d = NULL;
    aclrtMalloc(&d, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMemcpy(d, bytes, host, bytes, ACL_MEMCPY_HOST_TO_DEVICE);
    free(host);
    return d;
}

/* f16 values in [0.5, 1): exponent -1, random mantissa (finite, no overflow in the sums). */
static void *device_f16(size_t count, unsigned seed)
{
    uint16_t *host = malloc(count * 2);
    for (size_t i = 0; i < count; i++) {
        seed = seed * 1103515245u + 12345u;
        host[i] = (uint16_t)(0x3800 | ((seed >> 16) & 0x3ff));
    }
    void *d = NULL;
    aclrtMalloc(&d, count * 2, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMemcpy(d, count * 2, host, count * 2, ACL_MEMCPY_HOST_TO_DEVICE);
    free(host);
    return d;
}

static double run_case(enum kind kind, int64_t m, int64_t k, int64_t n, double *weight_bytes)
{
    int64_t xs[2] = {m, k}, ys[2] = {m, n};
    int64_t wview[2] = {k, n}, wstride[2] = {1, k}, wstore[2] = {n, k};
    aclDataType xt = kind == F16_MM ? ACL_FLOAT : ACL_FLOAT16;
    size_t xsize = kind == F16_MM ? 4 : 2;
    void *x = kind == F16_MM ? device((size_t)(m * k) * 4, 1) : device_f16((size_t)(m * k), 1);
    if (kind == F16_MM) { /* f32 values in [0.5, 1) */
        float *h = malloc((size_t)(m * k) * 4);
        for (int64_t i = 0; i < m * k; i++) h[i] = 0.5f + (float)(i % 97) / 194.0f;
        aclrtMemcpy(x, (size_t)(m * k) * xsize, h, (size_t)(m * k) * xsize, ACL_MEMCPY_HOST_TO_DEVICE);
        free(h);
    }
    void *y = NULL;
    aclrtMalloc(&y, (size_t)(m * n) * xsize, ACL_MEM_MALLOC_HUGE_FIRST);
    aclTensor *tx = aclCreateTensor(xs, 2, xt, NULL, 0, ACL_FORMAT_ND, xs, 2, x);
    aclTensor *ty = aclCreateTensor(ys, 2, xt, NULL, 0, ACL_FORMAT_ND, ys, 2, y);
    void *w = NULL, *scale = NULL;
    aclTensor *tw = NULL, *ts = NULL;
    if (kind == F16_NZ_MM) {
        *weight_bytes = (double)(k * n) * 2;
        size_t nz = (size_t)((n + 15) / 16 * 16) * (size_t)((k + 15) / 16 * 16);
        w = device_f16(nz, 2);
        int64_t nd_shape[2] = {n, k}, nz_store[1] = {(int64_t)nz};
        aclTensor *nd = aclCreateTensor(nd_shape, 2, ACL_FLOAT16, NULL, 0, ACL_FORMAT_ND, nz_store, 1, w);
        uint64_t ws = 0;
        aclOpExecutor *e = NULL;
        void *wsp = NULL;
        if (aclnnTransMatmulWeightGetWorkspaceSize(nd, &ws, &e) != ACLNN_SUCCESS) {
            fprintf(stderr, "%s\n", aclGetRecentErrMsg());
            exit(1);
        }
        if (ws > 0) aclrtMalloc(&wsp, ws, ACL_MEM_MALLOC_HUGE_FIRST);
        aclnnTransMatmulWeight(wsp, ws, e, g_stream);
        aclrtSynchronizeStream(g_stream);
        if (wsp != NULL) aclrtFree(wsp);
        aclDestroyTensor(nd);
        tw = aclCreateTensor(wview, 2, ACL_FLOAT16, wstride, 0, ACL_FORMAT_FRACTAL_NZ, nz_store, 1, w);
    } else if (kind == F16_MM) {
        *weight_bytes = (double)(k * n) * 2;
        w = device_f16((size_t)(k * n), 2);
        tw = aclCreateTensor(wview, 2, ACL_FLOAT16, wstride, 0, ACL_FORMAT_ND, wstore, 2, w);
    } else if (kind == INT8_CHANNEL) {
        *weight_bytes = (double)(k * n);
        w = device((size_t)(k * n), 2);
        tw = aclCreateTensor(wview, 2, ACL_INT8, wstride, 0, ACL_FORMAT_ND, wstore, 2, w);
        int64_t ss[1] = {n};
        scale = device_f16((size_t)n, 3);
        ts = aclCreateTensor(ss, 1, ACL_FLOAT16, NULL, 0, ACL_FORMAT_ND, ss, 1, scale);
    } else if (kind == INT8_GROUP32) {
        *weight_bytes = (double)(k * n) + (double)(k / 32 * n) * 2;
        w = device((size_t)(k * n), 2);
        tw = aclCreateTensor(wview, 2, ACL_INT8, wstride, 0, ACL_FORMAT_ND, wstore, 2, w);
        int64_t sv[2] = {k / 32, n}, sst[2] = {1, k / 32}, sstore[2] = {n, k / 32};
        scale = device_f16((size_t)(k / 32 * n), 3);
        ts = aclCreateTensor(sv, 2, ACL_FLOAT16, sst, 0, ACL_FORMAT_ND, sstore, 2, scale);
    } else {
        *weight_bytes = (double)(k * n) / 2;
        w = device((size_t)(k * n) / 2, 2);
        tw = aclCreateTensor(wview, 2, ACL_INT4, wstride, 0, ACL_FORMAT_ND, wstore, 2, w);
        /* per group of 32 along k, (k/32, n) seen transposed from (n, k/32), as ggml does */
        int64_t sv[2] = {k / 32, n}, sst[2] = {1, k / 32}, sstore[2] = {n, k / 32};
        scale = device_f16((size_t)(k / 32 * n), 3);
        ts = aclCreateTensor(sv, 2, ACL_FLOAT16, sst, 0, ACL_FORMAT_ND, sstore, 2, scale);
    }
    int reps = m == 1 ? 31 : 7;
    double t[64];
    for (int r = -2; r < reps; r++) { /* two warm-ups */
        uint64_t ws = 0;
        aclOpExecutor *e = NULL;
        double t0 = now();
        aclnnStatus st;
        if (kind == F16_MM || kind == F16_NZ_MM)
            st = aclnnMmGetWorkspaceSize(tx, tw, ty, 1, &ws, &e);
        else
            st = aclnnWeightQuantBatchMatmulV2GetWorkspaceSize(tx, tw, ts, NULL, NULL, NULL, NULL,
                                                              kind == INT8_CHANNEL ? 0 : 32, ty,
                                                              &ws, &e);
        if (st != ACLNN_SUCCESS) {
            fprintf(stderr, "%s\n", aclGetRecentErrMsg());
            exit(1);
        }
        void *wsp = NULL;
        if (ws > 0) aclrtMalloc(&wsp, ws, ACL_MEM_MALLOC_HUGE_FIRST);
        st = kind == F16_MM || kind == F16_NZ_MM ? aclnnMm(wsp, ws, e, g_stream)
                            : aclnnWeightQuantBatchMatmulV2(wsp, ws, e, g_stream);
        if (st != ACLNN_SUCCESS || aclrtSynchronizeStream(g_stream) != ACL_SUCCESS) {
            fprintf(stderr, "%s\n", aclGetRecentErrMsg());
            exit(1);
        }
        if (r >= 0) t[r] = now() - t0;
        if (wsp != NULL) aclrtFree(wsp);
    }
    qsort(t, (size_t)reps, sizeof t[0], cmp);
    aclDestroyTensor(tx);
    aclDestroyTensor(ty);
    aclDestroyTensor(tw);
    if (ts != NULL) aclDestroyTensor(ts);
    aclrtFree(x);
    aclrtFree(y);
    aclrtFree(w);
    if (scale != NULL) aclrtFree(scale);
    return t[reps / 2];
}

/* The machine's read bandwidth: an OpenMP sum over 256 MiB of f64, median of 5. */
static double stream_read(void)
{
    size_t n = (size_t)32 << 20;
    double *a = malloc(n * sizeof *a);
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++) a[i] = (double)(i % 7);
    double t[5], sink = 0;
    for (int r = 0; r < 5; r++) {
        double s = 0, t0 = now();
#pragma omp parallel for simd schedule(static) reduction(+ : s)
        for (size_t i = 0; i < n; i++) s += a[i];
        t[r] = now() - t0;
        sink += s;
    }
    qsort(t, 5, sizeof t[0], cmp);
    free(a);
    if (sink < 0) printf("%g\n", sink);
    return (double)(n * sizeof(double)) / t[2] * 1e-9;
}

int main(int argc, char **argv)
{
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) return 1;
    if (aclrtCreateStream(&g_stream) != ACL_SUCCESS) return 1;
    int64_t kn = argc > 1 ? atoll(argv[1]) : 4096;
    static const struct {
        const char *name;
        enum kind kind;
        int64_t m;
    } cases[] = {
        {"wqbmm_int8_channel", INT8_CHANNEL, 1},   {"wqbmm_int8_group32", INT8_GROUP32, 1},
        {"wqbmm_int4_group32", INT4_GROUP32, 1},   {"mm_f16_weight", F16_MM, 1},
        {"mm_f16_nz_weight", F16_NZ_MM, 1},        {"wqbmm_int8_channel", INT8_CHANNEL, 512},
        {"wqbmm_int4_group32", INT4_GROUP32, 512}, {"mm_f16_weight", F16_MM, 512},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        double bytes = 0;
        int64_t m = cases[c].m;
        double med = run_case(cases[c].kind, m, kn, kn, &bytes);
        printf("%s %lld %lld %lld %.1f %.2f %.1f\n", cases[c].name, (long long)m, (long long)kn,
               (long long)kn, med * 1e6, bytes / med * 1e-9,
               2.0 * (double)m * (double)kn * (double)kn / med * 1e-9);
        fflush(stdout);
    }
    printf("stream read %.2f\nthreads %d\n", stream_read(), omp_get_max_threads());
    aclrtDestroyStream(g_stream);
    aclrtResetDevice(0);
    aclFinalize();
    return 0;
}
