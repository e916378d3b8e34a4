/*
 * Data-parallel training on 2 devices: each rank holds the same weights W (3x2) and its own
 * batch X_r (4x3), Y_r (4x2). Each step, on the rank's stream:
 *     P = X_r @ W                       aclnnMatmul
 *     E = P - Y_r                       aclnnSub
 *     G = X_r^T @ E                     aclnnMatmul (X_r^T: a transposed view, no copy)
 *     G = sum over ranks of G           HcclAllReduce
 *     W = W - (lr / ranks) * G          aclnnInplaceAdd with alpha = -lr / ranks
 * The weights stay identical on both ranks (bit for bit) and follow the same steps done on
 * the host in double within 1e-5.
 *
 *   cc hccl_data_parallel.c -I include -L target/release -Wl,-rpath,target/release -lhccl -lascendcl -lopapi -lnnopbase -lpthread
 *   ACLNN_CPU_DEVICE_COUNT=2 ./a.out
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "acl/acl.h"
#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_matmul.h"
#include "aclnnop/aclnn_sub.h"
#include "hccl/hccl.h"

#define RANKS 2
#define B 4
#define K 3
#define N 2
#define STEPS 20
#define LR 0.05f

#define OK(call)                                                                          \
    do {                                                                                  \
        long r_ = (long)(call);                                                           \
        if (r_ != 0) {                                                                    \
            fprintf(stderr, "%s:%d %s = %ld (%s)\n", __FILE__, __LINE__, #call, r_, aclGetRecentErrMsg()); \
            return 1;                                                                     \
        }                                                                                 \
    } while (0)

static HcclRootInfo g_root;
static float g_w[RANKS][K * N]; /* each rank's final weights */

static float x_of(int r, int i, int k) { return (float)((r * 5 + i * 3 + k) % 7) * 0.25f - 0.5f; }
static float y_of(int r, int i, int n) { return (float)((r + i + 2 * n) % 3) - 1.0f; }

static aclTensor *tensor(void *dev, int64_t rows, int64_t cols, int transposed)
{
    /* A rows x cols view of a row-major buffer; transposed: of a cols x rows buffer. */
    int64_t shape[2] = {rows, cols};
    int64_t strides[2] = {cols, 1};
    int64_t storage[2] = {rows, cols};
    if (transposed) {
        strides[0] = 1;
        strides[1] = rows;
        storage[0] = cols;
        storage[1] = rows;
    }
    return aclCreateTensor(shape, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, storage, 2, dev);
}

typedef aclnnStatus (*Phase2)(void *, uint64_t, aclOpExecutor *, aclrtStream);

static int run(Phase2 fn, uint64_t ws, aclOpExecutor *ex, aclrtStream s)
{
    void *w = NULL;
    if (ws > 0 && aclrtMalloc(&w, ws, ACL_MEM_MALLOC_HUGE_FIRST) != 0) return 1;
    OK(fn(w, ws, ex, s));
    /* The workspace may be freed once the stream is done with it. */
    OK(aclrtSynchronizeStream(s));
    if (w) aclrtFree(w);
    return 0;
}

static void *rank_main(void *arg)
{
    static int status[RANKS];
    int r = (int)(long)arg, i, k, n, step;
    float hx[B * K], hy[B * N], hw[K * N];
    void *dx, *dy, *dw, *dp, *dg;
    HcclComm comm;
    aclrtStream s;
    aclTensor *tx, *txt, *ty, *tw, *tp, *tg;
    float one = 1.0f, alpha_v = -LR / RANKS;
    aclScalar *alpha1, *alpha;
    status[r] = 1;
    for (i = 0; i < B; i++)
        for (k = 0; k < K; k++) hx[i * K + k] = x_of(r, i, k);
    for (i = 0; i < B; i++)
        for (n = 0; n < N; n++) hy[i * N + n] = y_of(r, i, n);
    for (k = 0; k < K * N; k++) hw[k] = 0.1f * (float)k;
    if (aclrtSetDevice(r) != 0 || HcclCommInitRootInfo(RANKS, &g_root, (uint32_t)r, &comm) != 0 ||
        aclrtCreateStream(&s) != 0)
        return &status[r];
    aclrtMalloc(&dx, sizeof hx, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMalloc(&dy, sizeof hy, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMalloc(&dw, sizeof hw, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMalloc(&dp, sizeof hy, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMalloc(&dg, sizeof hw, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMemcpy(dx, sizeof hx, hx, sizeof hx, ACL_MEMCPY_HOST_TO_DEVICE);
    aclrtMemcpy(dy, sizeof hy, hy, sizeof hy, ACL_MEMCPY_HOST_TO_DEVICE);
    aclrtMemcpy(dw, sizeof hw, hw, sizeof hw, ACL_MEMCPY_HOST_TO_DEVICE);
    tx = tensor(dx, B, K, 0);
    txt = tensor(dx, K, B, 1);
    ty = tensor(dy, B, N, 0);
    tw = tensor(dw, K, N, 0);
    tp = tensor(dp, B, N, 0);
    tg = tensor(dg, K, N, 0);
    alpha1 = aclCreateScalar(&one, ACL_FLOAT);
    alpha = aclCreateScalar(&alpha_v, ACL_FLOAT);
    for (step = 0; step < STEPS; step++) {
        uint64_t ws;
        aclOpExecutor *ex;
        if (aclnnMatmulGetWorkspaceSize(tx, tw, tp, 0, &ws, &ex) != 0 || run(aclnnMatmul, ws, ex, s)) break;
        if (aclnnSubGetWorkspaceSize(tp, ty, alpha1, tp, &ws, &ex) != 0 || run(aclnnSub, ws, ex, s)) break;
        if (aclnnMatmulGetWorkspaceSize(txt, tp, tg, 0, &ws, &ex) != 0 || run(aclnnMatmul, ws, ex, s)) break;
        if (HcclAllReduce(dg, dg, K * N, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm, s) != HCCL_SUCCESS) break;
        if (aclnnInplaceAddGetWorkspaceSize(tw, tg, alpha, &ws, &ex) != 0 || run(aclnnInplaceAdd, ws, ex, s)) break;
    }
    if (step == STEPS && aclrtSynchronizeStream(s) == 0 &&
        aclrtMemcpy(g_w[r], sizeof hw, dw, sizeof hw, ACL_MEMCPY_DEVICE_TO_HOST) == 0)
        status[r] = 0;
    else
        fprintf(stderr, "rank %d stopped at step %d: %s\n", r, step, aclGetRecentErrMsg());
    aclDestroyTensor(tx); aclDestroyTensor(txt); aclDestroyTensor(ty);
    aclDestroyTensor(tw); aclDestroyTensor(tp); aclDestroyTensor(tg);
    aclDestroyScalar(alpha1); aclDestroyScalar(alpha);
    aclrtFree(dx); aclrtFree(dy); aclrtFree(dw); aclrtFree(dp); aclrtFree(dg);
    HcclCommDestroy(comm);
    aclrtDestroyStream(s);
    return &status[r];
}

int main(void)
{
    pthread_t th[RANKS];
    double w[K * N], g[K * N];
    int r, i, k, n, step, bad = 0;
    void *st;
    OK(aclInit(NULL));
    OK(aclrtSetDevice(0));
    OK(HcclGetRootInfo(&g_root));
    for (r = 0; r < RANKS; r++) pthread_create(&th[r], NULL, rank_main, (void *)(long)r);
    for (r = 0; r < RANKS; r++) {
        pthread_join(th[r], &st);
        bad |= *(int *)st;
    }
    if (bad) return 1;
    /* The same training on the host, in double. */
    for (k = 0; k < K * N; k++) w[k] = 0.1 * k;
    for (step = 0; step < STEPS; step++) {
        memset(g, 0, sizeof g);
        for (r = 0; r < RANKS; r++)
            for (i = 0; i < B; i++)
                for (n = 0; n < N; n++) {
                    double p = 0;
                    for (k = 0; k < K; k++) p += x_of(r, i, k) * w[k * N + n];
                    for (k = 0; k < K; k++) g[k * N + n] += x_of(r, i, k) * (p - y_of(r, i, n));
                }
        for (k = 0; k < K * N; k++) w[k] -= (double)LR / RANKS * g[k];
    }
    printf("weights after %d steps:", STEPS);
    for (k = 0; k < K * N; k++) {
        printf(" %.6f", g_w[0][k]);
        bad |= memcmp(&g_w[0][k], &g_w[1][k], sizeof(float)) != 0;
        bad |= fabs(g_w[0][k] - w[k]) > 1e-5;
    }
    printf("\n%s\n", bad ? "MISMATCH" : "both ranks identical, as the host computes");
    OK(aclFinalize());
    return bad;
}
