/*
 * Neural-network operator benchmarks (issue 18's speed cases) through the C ABI, as a user
 * calls them: each sample is the whole two-phase call (GetWorkspaceSize + aclnnXxx) plus
 * aclrtSynchronizeStream on device memory; the figure is the median of the samples (a
 * warm-up call, then samples until ~0.5 s have passed, 3 to 21 of them).
 *
 * Cases:
 *   layer_norm_f32, layer_norm_f16   aclnnLayerNorm of (4096, 4096) over the last dim, with
 *                                    weight and bias, mean/rstd NULL
 *   rms_norm_f32, rms_norm_f16       aclnnRmsNorm of (4096, 4096), gamma of x's dtype, f32 rstd
 *                                    (4096, 1)
 *   group_norm                       aclnnGroupNorm of f32 (8, 256, 64, 64), 32 groups, gamma
 *                                    and beta, mean/rstd (8, 32)
 *   gelu                             aclnnGelu of 16M f32
 *   swiglu                           aclnnSwiGlu of f32 (4096, 4096) along the last dim (16M in,
 *                                    8M out)
 *   max_pool                         aclnnMaxPool 3x3, stride 2, pads 1 of f32 (8, 64, 112, 112)
 *   avg_pool                         aclnnAvgPool2d 3x3, stride 2, padding 1, counting the pad,
 *                                    of the same tensor
 *   cross_entropy                    aclnnCrossEntropyLoss of f32 (8192, 32000) logits, int64
 *                                    targets, mean; the loss and the (N, C) log-probabilities
 *
 * Output (parsed by capi-tests/bench_nn.py, which adds PyTorch's figures):
 *   stream <kernel> <GB/s>, threads <n>, case <key> <median_us> <logical_bytes>
 * Logical bytes: the norms count two reads and one write of x (the bandwidth model:
 * statistics, then the normalization); the other cases each input element read once and
 * each output element written once. BENCH_ONLY=key,key limits the cases.
 */
#define _POSIX_C_SOURCE 199309L

#define BENCH_NAME "bench_nn"
#include "bench_device.h"

#include "aclnnop/aclnn_avgpool2d.h"
#include "aclnnop/aclnn_cast.h"
#include "aclnnop/aclnn_cross_entropy_loss.h"
#include "aclnnop/aclnn_gelu.h"
#include "aclnnop/aclnn_group_norm.h"
#include "aclnnop/aclnn_layer_norm.h"
#include "aclnnop/aclnn_max_pool.h"
#include "aclnnop/aclnn_rms_norm.h"
#include "aclnnop/aclnn_swi_glu.h"

typedef enum { LAYER_NORM, RMS_NORM, GROUP_NORM, GELU, SWIGLU, MAX_POOL, AVG_POOL, CROSS_ENTROPY } Kind;

enum { MAXT = 6 };

/* One case: its tensors (t[0] the input), their memory, and the arrays its call takes. */
typedef struct {
    Kind kind;
    aclTensor *t[MAXT];
    void *mem[MAXT];
    aclIntArray *a[4];
} Case;

/* `n` values of dtype `dt` (FLOAT or FLOAT16) in [-1, 1), cast on the device when f16. */
static void *dev_float(int64_t n, aclDataType dt, uint32_t seed)
{
    void *f = dev_f32(n, seed);
    if (dt == ACL_FLOAT) return f;
    void *h = NULL;
    if (aclrtMalloc(&h, (size_t)n * 2, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) die("aclrtMalloc");
    int64_t sh[1] = {n};
    aclTensor *tf = tensor(ACL_FLOAT, 1, sh, f), *th = tensor(ACL_FLOAT16, 1, sh, h);
    uint64_t ws = 0;
    aclOpExecutor *e = NULL;
    if (aclnnCastGetWorkspaceSize(tf, ACL_FLOAT16, th, &ws, &e) != ACLNN_SUCCESS) die("aclnnCastGetWorkspaceSize");
    if (aclnnCast(workspace(ws), ws, e, g_stream) != ACLNN_SUCCESS) die("aclnnCast");
    sync_stream();
    aclDestroyTensor(tf);
    aclDestroyTensor(th);
    aclrtFree(f);
    return h;
}

/* Case tensor `i`: fresh device values of `shape`. */
static void add_tensor(Case *c, int i, aclDataType dt, int nd, const int64_t *shape, uint32_t seed)
{
    int64_t n = 1;
    for (int k = 0; k < nd; k++) n *= shape[k];
    c->mem[i] = dt == ACL_INT64 ? dev_values(n, 1, 0, 32000, seed) : dev_float(n, dt, seed);
    c->t[i] = tensor_in(dt, nd, shape, nd == 4 ? ACL_FORMAT_NCHW : ACL_FORMAT_ND, c->mem[i]);
}

static void nn_call(void *ctx)
{
    Case *c = ctx;
    aclTensor **t = c->t;
    uint64_t ws = 0;
    aclOpExecutor *e = NULL;
    aclnnStatus st;
    switch (c->kind) {
    case LAYER_NORM:
        st = aclnnLayerNormGetWorkspaceSize(t[0], c->a[0], t[1], t[2], 1e-5, t[3], NULL, NULL, &ws, &e);
        break;
    case RMS_NORM: st = aclnnRmsNormGetWorkspaceSize(t[0], t[1], 1e-6, t[2], t[3], &ws, &e); break;
    case GROUP_NORM:
        st = aclnnGroupNormGetWorkspaceSize(t[0], t[1], t[2], 8, 256, 64 * 64, 32, 1e-5, t[3], t[4], t[5], &ws, &e);
        break;
    case GELU: st = aclnnGeluGetWorkspaceSize(t[0], t[1], &ws, &e); break;
    case SWIGLU: st = aclnnSwiGluGetWorkspaceSize(t[0], -1, t[1], &ws, &e); break;
    case MAX_POOL:
        st = aclnnMaxPoolGetWorkspaceSize(t[0], c->a[0], c->a[1], 0, c->a[2], c->a[3], 0, t[1], &ws, &e);
        break;
    case AVG_POOL:
        st = aclnnAvgPool2dGetWorkspaceSize(t[0], c->a[0], c->a[1], c->a[2], false, true, 0, 0, t[1], &ws, &e);
        break;
    case CROSS_ENTROPY:
        st = aclnnCrossEntropyLossGetWorkspaceSize(t[0], t[1], NULL, "mean", -100, 0.0, 0.0, false, t[2], t[3],
                                                   t[4], t[5], &ws, &e);
        break;
    default: st = 1;
    }
    if (st != ACLNN_SUCCESS) die("GetWorkspaceSize");
    void *w = workspace(ws);
    switch (c->kind) {
    case LAYER_NORM: st = aclnnLayerNorm(w, ws, e, g_stream); break;
    case RMS_NORM: st = aclnnRmsNorm(w, ws, e, g_stream); break;
    case GROUP_NORM: st = aclnnGroupNorm(w, ws, e, g_stream); break;
    case GELU: st = aclnnGelu(w, ws, e, g_stream); break;
    case SWIGLU: st = aclnnSwiGlu(w, ws, e, g_stream); break;
    case MAX_POOL: st = aclnnMaxPool(w, ws, e, g_stream); break;
    case AVG_POOL: st = aclnnAvgPool2d(w, ws, e, g_stream); break;
    case CROSS_ENTROPY: st = aclnnCrossEntropyLoss(w, ws, e, g_stream); break;
    }
    if (st != ACLNN_SUCCESS) die("phase 2");
    sync_stream();
}

static void run_case(const char *key, Case *c, double bytes)
{
    report(key, timed(nn_call, c, 21), bytes);
    for (int i = 0; i < MAXT; i++) {
        if (c->t[i]) aclDestroyTensor(c->t[i]);
        if (c->mem[i]) aclrtFree(c->mem[i]);
    }
    for (int i = 0; i < 4; i++)
        if (c->a[i]) aclDestroyIntArray(c->a[i]);
}

static void bench_norms(void)
{
    const int64_t n = 4096, x[2] = {n, n}, row[1] = {n}, col[2] = {n, 1};
    for (int half = 0; half < 2; half++) {
        aclDataType dt = half ? ACL_FLOAT16 : ACL_FLOAT;
        double es = half ? 2.0 : 4.0;
        const char *ln = half ? "layer_norm_f16" : "layer_norm_f32";
        const char *rms = half ? "rms_norm_f16" : "rms_norm_f32";
        if (wanted(ln)) {
            Case c = {0};
            c.kind = LAYER_NORM;
            add_tensor(&c, 0, dt, 2, x, 1);
            add_tensor(&c, 1, dt, 1, row, 2);
            add_tensor(&c, 2, dt, 1, row, 3);
            add_tensor(&c, 3, dt, 2, x, 4);
            c.a[0] = aclCreateIntArray(row, 1);
            run_case(ln, &c, 3.0 * es * n * n);
        }
        if (wanted(rms)) {
            Case c = {0};
            c.kind = RMS_NORM;
            add_tensor(&c, 0, dt, 2, x, 5);
            add_tensor(&c, 1, dt, 1, row, 6);
            add_tensor(&c, 2, dt, 2, x, 7);
            add_tensor(&c, 3, ACL_FLOAT, 2, col, 8);
            run_case(rms, &c, 3.0 * es * n * n + 4.0 * n);
        }
    }
    if (wanted("group_norm")) {
        const int64_t s[4] = {8, 256, 64, 64}, ch[1] = {256}, stats[2] = {8, 32};
        Case c = {0};
        c.kind = GROUP_NORM;
        add_tensor(&c, 0, ACL_FLOAT, 4, s, 9);
        add_tensor(&c, 1, ACL_FLOAT, 1, ch, 10);
        add_tensor(&c, 2, ACL_FLOAT, 1, ch, 11);
        add_tensor(&c, 3, ACL_FLOAT, 4, s, 12);
        add_tensor(&c, 4, ACL_FLOAT, 2, stats, 13);
        add_tensor(&c, 5, ACL_FLOAT, 2, stats, 14);
        run_case("group_norm", &c, 3.0 * 4.0 * 8 * 256 * 64 * 64);
    }
}

static void bench_activations(void)
{
    const int64_t m16[1] = {16 << 20}, x[2] = {4096, 4096}, half[2] = {4096, 2048};
    if (wanted("gelu")) {
        Case c = {0};
        c.kind = GELU;
        add_tensor(&c, 0, ACL_FLOAT, 1, m16, 21);
        add_tensor(&c, 1, ACL_FLOAT, 1, m16, 22);
        run_case("gelu", &c, 2.0 * 4.0 * m16[0]);
    }
    if (wanted("swiglu")) {
        Case c = {0};
        c.kind = SWIGLU;
        add_tensor(&c, 0, ACL_FLOAT, 2, x, 23);
        add_tensor(&c, 1, ACL_FLOAT, 2, half, 24);
        run_case("swiglu", &c, 1.5 * 4.0 * m16[0]);
    }
}

static void bench_pools(void)
{
    const int64_t in[4] = {8, 64, 112, 112}, out[4] = {8, 64, 56, 56};
    const int64_t k[2] = {3, 3}, s[2] = {2, 2}, p2[2] = {1, 1}, p4[4] = {1, 1, 1, 1}, d[2] = {1, 1};
    const double bytes = 4.0 * (8 * 64 * 112 * 112 + 8 * 64 * 56 * 56);
    if (wanted("max_pool")) {
        Case c = {0};
        c.kind = MAX_POOL;
        add_tensor(&c, 0, ACL_FLOAT, 4, in, 31);
        add_tensor(&c, 1, ACL_FLOAT, 4, out, 32);
        c.a[0] = aclCreateIntArray(k, 2);
        c.a[1] = aclCreateIntArray(s, 2);
        c.a[2] = aclCreateIntArray(p4, 4);
        c.a[3] = aclCreateIntArray(d, 2);
        run_case("max_pool", &c, bytes);
    }
    if (wanted("avg_pool")) {
        Case c = {0};
        c.kind = AVG_POOL;
        add_tensor(&c, 0, ACL_FLOAT, 4, in, 33);
        add_tensor(&c, 1, ACL_FLOAT, 4, out, 34);
        c.a[0] = aclCreateIntArray(k, 2);
        c.a[1] = aclCreateIntArray(s, 2);
        c.a[2] = aclCreateIntArray(p2, 2);
        run_case("avg_pool", &c, bytes);
    }
}

static void bench_cross_entropy(void)
{
    if (!wanted("cross_entropy")) return;
    const int64_t x[2] = {8192, 32000}, rows[1] = {8192}, one[1] = {1};
    Case c = {0};
    c.kind = CROSS_ENTROPY;
    add_tensor(&c, 0, ACL_FLOAT, 2, x, 41);
    add_tensor(&c, 1, ACL_INT64, 1, rows, 42);
    add_tensor(&c, 2, ACL_FLOAT, 1, one, 43);
    add_tensor(&c, 3, ACL_FLOAT, 2, x, 44);
    add_tensor(&c, 4, ACL_FLOAT, 1, one, 45);
    add_tensor(&c, 5, ACL_FLOAT, 1, rows, 46);
    run_case("cross_entropy", &c, 2.0 * 4.0 * 8192 * 32000 + 8.0 * 8192);
}

int main(void)
{
    g_only = getenv("BENCH_ONLY");
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) die("aclInit");
    if (aclrtCreateStream(&g_stream) != ACL_SUCCESS) die("aclrtCreateStream");
    if (g_only == NULL || wanted("stream")) stream_probe();
    bench_norms();
    bench_activations();
    bench_pools();
    bench_cross_entropy();
    if (g_ws) aclrtFree(g_ws);
    aclrtDestroyStream(g_stream);
    aclrtResetDevice(0);
    aclFinalize();
    return 0;
}
