/*
 * Convolution benchmark through the C ABI, as a user would call it: aclnnConvolution on
 * device memory and a stream, f32 NCHW, median of repeated runs of the whole two-phase call
 * (workspace allocation included) plus synchronize. For each convolution it also times
 * aclnnMm on the GEMM of the same FLOP count — (N·Ho·Wo, Cin·Kh·Kw) @ (Cin·Kh·Kw, Cout) —
 * so the cost of the convolution's lowering shows as a ratio.
 * Prints "case conv_us conv_GFLOP/s mm_us mm_GFLOP/s ratio" lines.
 */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bench_common.h"

#include "acl/acl.h"
#include "aclnnop/aclnn_convolution.h"
#include "aclnnop/aclnn_mm.h"


static void *dev_filled(size_t n)
{
    float *host = malloc(n * sizeof(float));
    for (size_t i = 0; i < n; i++) host[i] = (float)((i * 7919) % 1000) / 1000.0f - 0.5f;
    void *d = NULL;
    aclrtMalloc(&d, n * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMemcpy(d, n * sizeof(float), host, n * sizeof(float), ACL_MEMCPY_HOST_TO_DEVICE);
    free(host);
    return d;
}

static aclTensor *tensor(const int64_t *shape, uint64_t n, aclFormat fmt, void *dev)
{
    return aclCreateTensor(shape, n, ACL_FLOAT, NULL, 0, fmt, shape, n, dev);
}

#define REPS 7
typedef int (*run_fn)(void *ctx, aclrtStream stream);

/* Median seconds of REPS runs after one warm-up; < 0 on failure. */
static double time_it(run_fn fn, void *ctx, aclrtStream stream)
{
    double t[REPS];
    for (int r = -1; r < REPS; r++) {
        double t0 = now();
        if (fn(ctx, stream) != 0) return -1;
        if (r >= 0) t[r] = now() - t0;
    }
    qsort(t, REPS, sizeof t[0], cmp);
    return t[REPS / 2];
}

/* After phase 1 returned `st`: allocates the workspace, runs `run`, synchronizes; 0 on success. */
static int phase2(aclnnStatus st, aclnnStatus (*run)(void *, uint64_t, aclOpExecutor *, aclrtStream), uint64_t ws,
                  aclOpExecutor *e, aclrtStream stream)
{
    if (st != ACLNN_SUCCESS) {
        fprintf(stderr, "%s\n", aclGetRecentErrMsg());
        return 1;
    }
    void *w = NULL;
    if (ws > 0) aclrtMalloc(&w, ws, ACL_MEM_MALLOC_HUGE_FIRST);
    int rc = run(w, ws, e, stream) != ACLNN_SUCCESS || aclrtSynchronizeStream(stream) != ACL_SUCCESS;
    if (rc != 0) fprintf(stderr, "%s\n", aclGetRecentErrMsg());
    if (w != NULL) aclrtFree(w);
    return rc;
}

typedef struct {
    aclTensor *x, *w, *b, *y;
    aclIntArray *stride, *pad, *dil, *opad;
} Conv;

static int run_conv(void *ctx, aclrtStream stream)
{
    Conv *c = ctx;
    uint64_t ws = 0;
    aclOpExecutor *e = NULL;
    aclnnStatus st = aclnnConvolutionGetWorkspaceSize(c->x, c->w, c->b, c->stride, c->pad, c->dil, false, c->opad, 1,
                                                      c->y, 1, &ws, &e);
    return phase2(st, aclnnConvolution, ws, e, stream);
}

typedef struct {
    aclTensor *a, *b, *o;
} Mm;

static int run_mm(void *ctx, aclrtStream stream)
{
    Mm *m = ctx;
    uint64_t ws = 0;
    aclOpExecutor *e = NULL;
    aclnnStatus st = aclnnMmGetWorkspaceSize(m->a, m->b, m->o, 1, &ws, &e);
    return phase2(st, aclnnMm, ws, e, stream);
}

static int bench(const char *name, int64_t n, int64_t cin, int64_t cout, int64_t hw, int64_t k, aclrtStream stream)
{
    int64_t pad = k / 2;
    int64_t xs[] = {n, cin, hw, hw}, wsh[] = {cout, cin, k, k}, bs[] = {cout}, ys[] = {n, cout, hw, hw};
    int64_t one[] = {1, 1}, pads[] = {pad, pad}, zero[] = {0, 0};
    void *xd = dev_filled((size_t)(n * cin * hw * hw)), *wd = dev_filled((size_t)(cout * cin * k * k));
    void *bd = dev_filled((size_t)cout), *yd = dev_filled((size_t)(n * cout * hw * hw));
    Conv c = {tensor(xs, 4, ACL_FORMAT_NCHW, xd), tensor(wsh, 4, ACL_FORMAT_NCHW, wd), tensor(bs, 1, ACL_FORMAT_ND, bd),
              tensor(ys, 4, ACL_FORMAT_NCHW, yd), aclCreateIntArray(one, 2), aclCreateIntArray(pads, 2),
              aclCreateIntArray(one, 2), aclCreateIntArray(zero, 2)};
    double tc = time_it(run_conv, &c, stream);
    /* The same FLOPs as one GEMM: (N*H*W, Cin*K*K) @ (Cin*K*K, Cout). */
    int64_t M = n * hw * hw, K = cin * k * k;
    int64_t as[] = {M, K}, bsh[] = {K, cout}, os[] = {M, cout};
    void *ad = dev_filled((size_t)(M * K)), *bmd = dev_filled((size_t)(K * cout)), *od = dev_filled((size_t)(M * cout));
    Mm m = {tensor(as, 2, ACL_FORMAT_ND, ad), tensor(bsh, 2, ACL_FORMAT_ND, bmd), tensor(os, 2, ACL_FORMAT_ND, od)};
    double tm = time_it(run_mm, &m, stream);
    if (tc < 0 || tm < 0) return 1;
    double flop = 2.0 * (double)M * (double)K * (double)cout;
    printf("%s %.0f %.1f %.0f %.1f %.2f\n", name, tc * 1e6, flop / tc * 1e-9, tm * 1e6, flop / tm * 1e-9, tm / tc);
    fflush(stdout);
    aclDestroyTensor(c.x);
    aclDestroyTensor(c.w);
    aclDestroyTensor(c.b);
    aclDestroyTensor(c.y);
    aclDestroyIntArray(c.stride);
    aclDestroyIntArray(c.pad);
    aclDestroyIntArray(c.dil);
    aclDestroyIntArray(c.opad);
    aclDestroyTensor(m.a);
    aclDestroyTensor(m.b);
    aclDestroyTensor(m.o);
    void *bufs[] = {xd, wd, bd, yd, ad, bmd, od};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) aclrtFree(bufs[i]);
    return 0;
}

int main(void)
{
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) return 1;
    aclrtStream stream = NULL;
    if (aclrtCreateStream(&stream) != ACL_SUCCESS) return 1;
    printf("# case conv_us conv_GFLOP/s mm_us mm_GFLOP/s mm_time/conv_time\n");
    int rc = bench("conv3x3_n8_c64_56x56", 8, 64, 64, 56, 3, stream);
    rc |= bench("conv1x1_n8_c256to64_56x56", 8, 256, 64, 56, 1, stream);
    aclrtDestroyStream(stream);
    aclrtResetDevice(0);
    aclFinalize();
    return rc;
}
