/*
 * Operator benchmark through the C ABI, as a user calls it: each case is the whole two-phase
 * call (GetWorkspaceSize + aclnnXxx) plus aclrtSynchronizeStream on device memory, timed as in
 * NumPy's peer benchmark: a warm-up call, calls per sample doubled until a sample lasts >= 2 ms,
 * then up to 15 samples (at most ~3 s per case); the figure is the median time per call.
 * The workspace is allocated once per case (grown if a call asks for more), as a program that
 * keeps its workspace would.
 *
 * Also measures this machine's memory bandwidth in the same run with a STREAM-like probe
 * (OpenMP add and sum over 16M floats, all threads), so figures can be read as fractions of it.
 *
 * Output (parsed by capi-tests/bench.py, which adds NumPy's figures; run it all with
 * `bash .ci/bench`):
 *   stream <kernel> <GB/s>
 *   case <key> <n> <median_us> <logical_bytes> <out_elems>
 * Usage: bench_ops [sizes...] (default 65536 1048576 16777216); BENCH_ONLY=key,key limits cases.
 */
#define _POSIX_C_SOURCE 199309L
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "acl/acl.h"
#include "bench_common.h"
#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_copy.h"
#include "aclnnop/aclnn_gt_tensor.h"
#include "aclnnop/aclnn_mul.h"
#include "aclnnop/aclnn_reduce_sum.h"
#include "aclnnop/aclnn_s_where.h"
#include "aclnnop/aclnn_softmax.h"

static void die(const char *what)
{
    fprintf(stderr, "bench_ops: %s: %s\n", what, aclGetRecentErrMsg());
    exit(1);
}

/* ------------------------------------------------------------------ tensors on the device */

static size_t esize(aclDataType dt)
{
    switch (dt) {
    case ACL_BOOL: return 1;
    case ACL_FLOAT16: case ACL_BF16: return 2;
    case ACL_FLOAT: case ACL_INT32: return 4;
    case ACL_DOUBLE: case ACL_INT64: case ACL_COMPLEX64: return 8;
    default: return 0;
    }
}

/* Fills `n` elements of dtype `dt` with values in [-1, 1) (integers in [-1000, 1000)). */
static void fill_host(void *p, aclDataType dt, int64_t n, uint32_t seed)
{
    uint32_t s = seed * 2654435761u + 12345u;
    for (int64_t i = 0; i < n; i++) {
        s = s * 1664525u + 1013904223u;
        float v = (float)(s >> 8) / 8388608.0f - 1.0f;
        int32_t k = (int32_t)(s >> 16) % 1000;
        switch (dt) {
        case ACL_BOOL: ((uint8_t *)p)[i] = (uint8_t)(v > 0); break;
        case ACL_FLOAT16: { _Float16 h = (_Float16)v; memcpy((uint16_t *)p + i, &h, 2); } break;
        case ACL_BF16: { uint32_t b; memcpy(&b, &v, 4); ((uint16_t *)p)[i] = (uint16_t)(b >> 16); } break;
        case ACL_FLOAT: ((float *)p)[i] = v; break;
        case ACL_DOUBLE: ((double *)p)[i] = v; break;
        case ACL_INT32: ((int32_t *)p)[i] = k; break;
        case ACL_INT64: ((int64_t *)p)[i] = k; break;
        case ACL_COMPLEX64: ((float *)p)[2 * i] = v; ((float *)p)[2 * i + 1] = -v; break;
        default: break;
        }
    }
}

typedef struct {
    aclTensor *t;
    void *dev;
} Dev;

/* A tensor of `shape` (strides NULL = contiguous) over `storage` elements of fresh device
 * memory holding random values. */
/* A device tensor of `shape` (strides NULL: contiguous) over `storage` elements (0: just
   enough), its first element `offset` elements past the 64-byte aligned allocation. */
static Dev mk_at(aclDataType dt, int nd, const int64_t *shape, const int64_t *strides, int64_t storage,
                 int64_t offset)
{
    static uint32_t seed = 1;
    int64_t contiguous[8];
    int64_t numel = 1;
    for (int i = nd - 1; i >= 0; i--) {
        contiguous[i] = numel;
        numel *= shape[i];
    }
    if (strides == NULL) strides = contiguous;
    if (storage == 0) storage = numel + offset;
    size_t bytes = (size_t)storage * esize(dt);
    Dev d = {NULL, NULL};
    if (aclrtMalloc(&d.dev, bytes ? bytes : 1, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) die("aclrtMalloc");
    void *host = malloc(bytes ? bytes : 1);
    fill_host(host, dt, storage, seed++);
    aclrtMemcpy(d.dev, bytes, host, bytes, ACL_MEMCPY_HOST_TO_DEVICE);
    free(host);
    int64_t st = storage;
    d.t = aclCreateTensor(shape, (uint64_t)nd, dt, strides, offset, ACL_FORMAT_ND, &st, 1, d.dev);
    if (d.t == NULL) die("aclCreateTensor");
    return d;
}

static Dev mk(aclDataType dt, int nd, const int64_t *shape, const int64_t *strides, int64_t storage)
{
    return mk_at(dt, nd, shape, strides, storage, 0);
}

static void release(Dev *d)
{
    if (d->t) aclDestroyTensor(d->t);
    if (d->dev) aclrtFree(d->dev);
    d->t = NULL;
    d->dev = NULL;
}

/* ------------------------------------------------------------------ cases */

typedef enum { OP_ADD, OP_ADDS, OP_MUL, OP_GT, OP_WHERE, OP_COPY, OP_SUM, OP_SOFTMAX } OpKind;

typedef struct {
    OpKind op;
    Dev in[3];
    Dev out;
    aclScalar *alpha;   /* Add's alpha, or Adds' other */
    aclScalar *other;
    aclIntArray *dims;  /* ReduceSum */
    int64_t dim;        /* Softmax */
} Case;

static aclrtStream g_stream;
static void *g_ws;
static uint64_t g_ws_size;

static aclnnStatus run_case(Case *c)
{
    uint64_t ws = 0;
    aclOpExecutor *e = NULL;
    aclnnStatus st;
    switch (c->op) {
    case OP_ADD: st = aclnnAddGetWorkspaceSize(c->in[0].t, c->in[1].t, c->alpha, c->out.t, &ws, &e); break;
    case OP_ADDS: st = aclnnAddsGetWorkspaceSize(c->in[0].t, c->other, c->alpha, c->out.t, &ws, &e); break;
    case OP_MUL: st = aclnnMulGetWorkspaceSize(c->in[0].t, c->in[1].t, c->out.t, &ws, &e); break;
    case OP_GT: st = aclnnGtTensorGetWorkspaceSize(c->in[0].t, c->in[1].t, c->out.t, &ws, &e); break;
    case OP_WHERE:
        st = aclnnSWhereGetWorkspaceSize(c->in[0].t, c->in[1].t, c->in[2].t, c->out.t, &ws, &e);
        break;
    case OP_COPY: st = aclnnInplaceCopyGetWorkspaceSize(c->out.t, c->in[0].t, &ws, &e); break;
    case OP_SUM:
        st = aclnnReduceSumGetWorkspaceSize(c->in[0].t, c->dims, false, ACL_FLOAT, c->out.t, &ws, &e);
        break;
    case OP_SOFTMAX: st = aclnnSoftmaxGetWorkspaceSize(c->in[0].t, c->dim, c->out.t, &ws, &e); break;
    default: return 1;
    }
    if (st != ACLNN_SUCCESS) return st;
    if (ws > g_ws_size) {
        if (g_ws) aclrtFree(g_ws);
        if (aclrtMalloc(&g_ws, ws, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) die("aclrtMalloc workspace");
        g_ws_size = ws;
    }
    switch (c->op) {
    case OP_ADD: st = aclnnAdd(g_ws, ws, e, g_stream); break;
    case OP_ADDS: st = aclnnAdds(g_ws, ws, e, g_stream); break;
    case OP_MUL: st = aclnnMul(g_ws, ws, e, g_stream); break;
    case OP_GT: st = aclnnGtTensor(g_ws, ws, e, g_stream); break;
    case OP_WHERE: st = aclnnSWhere(g_ws, ws, e, g_stream); break;
    case OP_COPY: st = aclnnInplaceCopy(g_ws, ws, e, g_stream); break;
    case OP_SUM: st = aclnnReduceSum(g_ws, ws, e, g_stream); break;
    case OP_SOFTMAX: st = aclnnSoftmax(g_ws, ws, e, g_stream); break;
    }
    if (st != ACLNN_SUCCESS) return st;
    return aclrtSynchronizeStream(g_stream) == ACL_SUCCESS ? ACLNN_SUCCESS : 1;
}

static void free_case(Case *c)
{
    for (int i = 0; i < 3; i++) release(&c->in[i]);
    release(&c->out);
    if (c->alpha) aclDestroyScalar(c->alpha);
    if (c->other) aclDestroyScalar(c->other);
    if (c->dims) aclDestroyIntArray(c->dims);
    memset(c, 0, sizeof *c);
}

/* Median seconds per call, NumPy-peer method. */
static double time_case(Case *c)
{
    if (run_case(c) != ACLNN_SUCCESS) die("warm-up call");
    long loops = 1;
    double dt;
    for (;;) {
        double t0 = now();
        for (long i = 0; i < loops; i++) run_case(c);
        dt = now() - t0;
        if (dt >= 0.002 || loops >= (1L << 20)) break;
        loops *= 2;
    }
    int reps = (int)(3.0 / (dt > 1e-9 ? dt : 1e-9));
    if (reps > 15) reps = 15;
    if (reps < 3) reps = 3;
    double t[15];
    for (int r = 0; r < reps; r++) {
        double t0 = now();
        for (long i = 0; i < loops; i++) run_case(c);
        t[r] = (now() - t0) / (double)loops;
    }
    qsort(t, (size_t)reps, sizeof t[0], cmp);
    return t[reps / 2];
}

static const char *g_only;

static int wanted(const char *key) { return bench_wanted(g_only, key); }

static void report(const char *key, Case *c, int64_t n, double bytes)
{
    double med = time_case(c);
    printf("case %s %lld %.3f %.0f %lld\n", key, (long long)n, med * 1e6, bytes, (long long)n);
    fflush(stdout);
    free_case(c);
}

static aclScalar *f32_scalar(float v) { return aclCreateScalar(&v, ACL_FLOAT); }

/* a (op) b over contiguous 1-D tensors of n elements. */
static void binary_flat(const char *key, OpKind op, aclDataType a, aclDataType b, aclDataType o, int64_t n)
{
    if (!wanted(key)) return;
    Case c = {0};
    c.op = op;
    int64_t sh[1] = {n};
    c.in[0] = mk(a, 1, sh, NULL, 0);
    c.in[1] = mk(b, 1, sh, NULL, 0);
    c.out = mk(o, 1, sh, NULL, 0);
    if (op == OP_ADD && (o == ACL_INT32 || o == ACL_INT64)) {
        int64_t one = 1;
        c.alpha = aclCreateScalar(&one, ACL_INT64);
    } else if (op == OP_ADD) {
        c.alpha = f32_scalar(1.0f);
    }
    report(key, &c, n, (double)n * (double)(esize(a) + esize(b) + esize(o)));
}

static void elementwise(int64_t n)
{
    int64_t N = 1, M;
    while (N * N < n) N *= 2;
    M = n / N; /* 64K -> 256x256, 1M -> 1024x1024, 16M -> 4096x4096 */
    int64_t nm[2] = {N, M};

    binary_flat("E1", OP_ADD, ACL_FLOAT, ACL_FLOAT, ACL_FLOAT, n);
    if (wanted("E1u")) { /* E1 with every operand 16 bytes past a 64-byte boundary */
        Case c = {0};
        c.op = OP_ADD;
        int64_t sh[1] = {n};
        c.in[0] = mk_at(ACL_FLOAT, 1, sh, NULL, 0, 4);
        c.in[1] = mk_at(ACL_FLOAT, 1, sh, NULL, 0, 4);
        c.out = mk_at(ACL_FLOAT, 1, sh, NULL, 0, 4);
        c.alpha = f32_scalar(1.0f);
        report("E1u", &c, n, 12.0 * (double)n);
    }
    if (wanted("copy")) {
        Case c = {0};
        c.op = OP_COPY;
        int64_t sh[1] = {n};
        c.in[0] = mk(ACL_FLOAT, 1, sh, NULL, 0);
        c.out = mk(ACL_FLOAT, 1, sh, NULL, 0);
        report("copy", &c, n, 8.0 * (double)n);
    }
    if (wanted("E2")) {
        Case c = {0};
        c.op = OP_ADDS;
        int64_t sh[1] = {n};
        c.in[0] = mk(ACL_FLOAT, 1, sh, NULL, 0);
        c.out = mk(ACL_FLOAT, 1, sh, NULL, 0);
        c.other = f32_scalar(2.0f);
        c.alpha = f32_scalar(1.0f);
        report("E2", &c, n, 8.0 * (double)n);
    }
    if (wanted("E3")) {
        Case c = {0};
        c.op = OP_ADD;
        int64_t row[1] = {M};
        c.in[0] = mk(ACL_FLOAT, 2, nm, NULL, 0);
        c.in[1] = mk(ACL_FLOAT, 1, row, NULL, 0);
        c.out = mk(ACL_FLOAT, 2, nm, NULL, 0);
        c.alpha = f32_scalar(1.0f);
        report("E3", &c, n, 8.0 * (double)n + 4.0 * (double)M);
    }
    if (wanted("E4")) {
        Case c = {0};
        c.op = OP_ADD;
        int64_t col[2] = {N, 1}, row[2] = {1, M};
        c.in[0] = mk(ACL_FLOAT, 2, col, NULL, 0);
        c.in[1] = mk(ACL_FLOAT, 2, row, NULL, 0);
        c.out = mk(ACL_FLOAT, 2, nm, NULL, 0);
        c.alpha = f32_scalar(1.0f);
        report("E4", &c, n, 4.0 * (double)n + 4.0 * (double)(N + M));
    }
    if (wanted("E5")) {
        Case c = {0};
        c.op = OP_ADD;
        int64_t tstrides[2] = {1, N}; /* (N,M) view of an (M,N) matrix */
        c.in[0] = mk(ACL_FLOAT, 2, nm, tstrides, n);
        c.in[1] = mk(ACL_FLOAT, 2, nm, NULL, 0);
        c.out = mk(ACL_FLOAT, 2, nm, NULL, 0);
        c.alpha = f32_scalar(1.0f);
        report("E5", &c, n, 12.0 * (double)n);
    }
    if (wanted("E6")) {
        Case c = {0};
        c.op = OP_ADD;
        int64_t sh[1] = {n}, st[1] = {2};
        c.in[0] = mk(ACL_FLOAT, 1, sh, st, 2 * n);
        c.in[1] = mk(ACL_FLOAT, 1, sh, NULL, 0);
        c.out = mk(ACL_FLOAT, 1, sh, NULL, 0);
        c.alpha = f32_scalar(1.0f);
        report("E6", &c, n, 12.0 * (double)n);
    }
    binary_flat("E7", OP_ADD, ACL_FLOAT16, ACL_FLOAT, ACL_FLOAT, n);
    binary_flat("E8", OP_ADD, ACL_FLOAT16, ACL_FLOAT16, ACL_FLOAT16, n);
    binary_flat("E9", OP_ADD, ACL_BF16, ACL_BF16, ACL_BF16, n);
    binary_flat("E10", OP_ADD, ACL_INT32, ACL_INT64, ACL_INT64, n);
    binary_flat("E11", OP_MUL, ACL_COMPLEX64, ACL_COMPLEX64, ACL_COMPLEX64, n);
    if (wanted("E12")) {
        Case c = {0};
        c.op = OP_WHERE;
        int64_t row[2] = {1, M};
        c.in[0] = mk(ACL_BOOL, 2, nm, NULL, 0);
        c.in[1] = mk(ACL_FLOAT, 2, nm, NULL, 0);
        c.in[2] = mk(ACL_FLOAT, 2, row, NULL, 0);
        c.out = mk(ACL_FLOAT, 2, nm, NULL, 0);
        report("E12", &c, n, 9.0 * (double)n + 4.0 * (double)M);
    }
    binary_flat("E13", OP_GT, ACL_FLOAT, ACL_FLOAT, ACL_BOOL, n);
    binary_flat("E14", OP_ADD, ACL_DOUBLE, ACL_DOUBLE, ACL_DOUBLE, n);
    if (wanted("E15n")) { /* NCHW + (1,C,1,1), C = 64, H = W */
        Case c = {0};
        c.op = OP_ADD;
        int64_t hw = 1;
        while (hw * hw * 64 * 4 < n) hw *= 2;
        int64_t nchw[4] = {n / (64 * hw * hw), 64, hw, hw}, ch[4] = {1, 64, 1, 1};
        c.in[0] = mk(ACL_FLOAT, 4, nchw, NULL, 0);
        c.in[1] = mk(ACL_FLOAT, 4, ch, NULL, 0);
        c.out = mk(ACL_FLOAT, 4, nchw, NULL, 0);
        c.alpha = f32_scalar(1.0f);
        report("E15n", &c, n, 8.0 * (double)n + 256.0);
    }
}

static void fixed_cases(void)
{
    if (wanted("E15")) { /* (8,1,16,1,64) + (1,32,16,8,1) -> (8,32,16,8,64): 2M elements */
        Case c = {0};
        c.op = OP_ADD;
        int64_t a[5] = {8, 1, 16, 1, 64}, b[5] = {1, 32, 16, 8, 1}, o[5] = {8, 32, 16, 8, 64};
        c.in[0] = mk(ACL_FLOAT, 5, a, NULL, 0);
        c.in[1] = mk(ACL_FLOAT, 5, b, NULL, 0);
        c.out = mk(ACL_FLOAT, 5, o, NULL, 0);
        c.alpha = f32_scalar(1.0f);
        int64_t n = 8 * 32 * 16 * 8 * 64;
        report("E15", &c, n, 4.0 * (double)n + 4.0 * (8 * 16 * 64 + 32 * 16 * 8));
    }
    if (wanted("O1")) {
        Case c = {0};
        c.op = OP_ADD;
        int64_t one[1] = {1};
        c.in[0] = mk(ACL_FLOAT, 1, one, NULL, 0);
        c.in[1] = mk(ACL_FLOAT, 1, one, NULL, 0);
        c.out = mk(ACL_FLOAT, 1, one, NULL, 0);
        c.alpha = f32_scalar(1.0f);
        report("O1", &c, 1, 12.0);
    }
    for (int64_t side = 4096; side <= 8192; side *= 2) {
        int64_t sq[2] = {side, side}, vec[1] = {side};
        char key[32];
        for (int axis = 1; axis >= 0; axis--) {
            snprintf(key, sizeof key, "R%s%lld", axis ? "last" : "first", (long long)side);
            if (!wanted(key)) continue;
            Case c = {0};
            c.op = OP_SUM;
            int64_t d = axis;
            c.dims = aclCreateIntArray(&d, 1);
            c.in[0] = mk(ACL_FLOAT, 2, sq, NULL, 0);
            c.out = mk(ACL_FLOAT, 1, vec, NULL, 0);
            report(key, &c, side * side, 4.0 * (double)(side * side));
        }
    }
    if (wanted("S4096")) {
        Case c = {0};
        c.op = OP_SOFTMAX;
        int64_t sq[2] = {4096, 4096};
        c.dim = -1;
        c.in[0] = mk(ACL_FLOAT, 2, sq, NULL, 0);
        c.out = mk(ACL_FLOAT, 2, sq, NULL, 0);
        report("S4096", &c, 4096 * 4096, 8.0 * 4096 * 4096);
    }
}

/* ------------------------------------------------------------------ STREAM-like probe */

static void stream_probe(void)
{
    const long n = 16L << 20;
    float *a = aligned_alloc(64, (size_t)n * 4), *b = aligned_alloc(64, (size_t)n * 4),
          *c = aligned_alloc(64, (size_t)n * 4);
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i++) { a[i] = 1.0f; b[i] = 2.0f; c[i] = 0.0f; }
    double best_add = 1e9, best_sum = 1e9, best_copy = 1e9;
    volatile float sink = 0;
    for (int r = 0; r < 11; r++) {
        double t0 = now();
#pragma omp parallel for schedule(static)
        for (long i = 0; i < n; i++) c[i] = a[i] + b[i];
        double t1 = now();
        float s = 0;
#pragma omp parallel for simd schedule(static) reduction(+ : s)
        for (long i = 0; i < n; i++) s += a[i];
        double t2 = now();
#pragma omp parallel for schedule(static)
        for (long i = 0; i < n; i++) c[i] = b[i];
        double t3 = now();
        sink += s;
        if (t1 - t0 < best_add) best_add = t1 - t0;
        if (t2 - t1 < best_sum) best_sum = t2 - t1;
        if (t3 - t2 < best_copy) best_copy = t3 - t2;
    }
    (void)sink;
    printf("stream add %.2f\nstream sum %.2f\nstream copy %.2f\nstream threads %d\n",
           12.0 * n / best_add * 1e-9, 4.0 * n / best_sum * 1e-9, 8.0 * n / best_copy * 1e-9,
           omp_get_max_threads());
    fflush(stdout);
    free(a);
    free(b);
    free(c);
}

int main(int argc, char **argv)
{
    g_only = getenv("BENCH_ONLY");
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) die("aclInit");
    if (aclrtCreateStream(&g_stream) != ACL_SUCCESS) die("aclrtCreateStream");
    if (g_only == NULL || wanted("stream")) stream_probe();
    int64_t sizes[8] = {65536, 1048576, 16777216};
    int count = 3;
    if (argc > 1) {
        count = 0;
        for (int i = 1; i < argc && count < 8; i++) sizes[count++] = atoll(argv[i]);
    }
    for (int i = 0; i < count; i++) elementwise(sizes[i]);
    fixed_cases();
    if (g_ws) aclrtFree(g_ws);
    aclrtDestroyStream(g_stream);
    aclrtResetDevice(0);
    aclFinalize();
    return 0;
}
