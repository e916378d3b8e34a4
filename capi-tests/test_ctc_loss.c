/* aclnnCtcLoss and aclnnCtcLossBackward as a CANN user calls them: logProbs (T 4, N 2, C 3)
 * f32 (a log-softmax), padded targets (2, 2) {1 2; 1 1} and the same labels concatenated,
 * inputLengths {4, 3}, targetLengths {2, 2}, blank 0. The loss is checked against a sum
 * over every path of C^T labels that collapses onto the target, logAlphaOut's padding
 * (the device's (N, T, 8)) against −inf, and the gradient (gradOut {1, 0.5}) against the
 * same enumeration: exp(lp) − Σ_{paths with label c at t} p(path) / p(target). Then a NULL
 * logProbs (161001) and torch's unpadded logAlphaOut shape (N, T, 5) (161002). */
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include "acl/acl.h"
#include "aclnnop/aclnn_ctc_loss.h"
#include "aclnnop/aclnn_ctc_loss_backward.h"

enum { T = 4, N = 2, C = 3, S = 2, W = 8 };

static aclTensor *mk(const int64_t *shape, int64_t rank, aclDataType dt, size_t esz, const void *host, void **dev)
{
    int64_t n = 1, strides[3];
    for (int64_t i = rank - 1; i >= 0; i--) { strides[i] = n; n *= shape[i]; }
    aclrtMalloc(dev, (size_t)n * esz, ACL_MEM_MALLOC_HUGE_FIRST);
    if (host) aclrtMemcpy(*dev, (size_t)n * esz, host, (size_t)n * esz, ACL_MEMCPY_HOST_TO_DEVICE);
    return aclCreateTensor(shape, (uint64_t)rank, dt, strides, 0, ACL_FORMAT_ND, shape, (uint64_t)rank, *dev);
}

/* Whether path (il labels) collapses (merge repeats, drop blanks) onto target (tl labels). */
static int collapses(const int *path, int il, const int64_t *target, int tl)
{
    int k = 0, prev = -1;
    for (int t = 0; t < il; t++) {
        int c = path[t];
        if (c != prev && c != 0) {
            if (k >= tl || target[k] != c) return 0;
            k++;
        }
        prev = c;
    }
    return k == tl;
}

/* Brute force over every path: p(target) and, per (t, c), the probability of the paths
 * with label c at t. */
static double enumerate(const float *lp, int b, int il, const int64_t *target, int tl, double mass[T][C])
{
    int path[T];
    int total = 1;
    for (int t = 0; t < il; t++) total *= C;
    double p = 0;
    for (int t = 0; t < T; t++) for (int c = 0; c < C; c++) mass[t][c] = 0;
    for (int code = 0; code < total; code++) {
        int x = code;
        for (int t = 0; t < il; t++) { path[t] = x % C; x /= C; }
        if (!collapses(path, il, target, tl)) continue;
        double q = 1;
        for (int t = 0; t < il; t++) q *= exp((double)lp[(t * N + b) * C + path[t]]);
        p += q;
        for (int t = 0; t < il; t++) mass[t][path[t]] += q;
    }
    return p;
}

static int run(aclnnStatus st, uint64_t wsz, aclOpExecutor *ex, aclrtStream stream, int backward)
{
    if (st != 0) { printf("FAIL phase 1: %d %s\n", st, aclGetRecentErrMsg()); return 1; }
    void *ws = NULL;
    if (wsz > 0) aclrtMalloc(&ws, wsz, ACL_MEM_MALLOC_HUGE_FIRST);
    st = backward ? aclnnCtcLossBackward(ws, wsz, ex, stream) : aclnnCtcLoss(ws, wsz, ex, stream);
    if (st != 0) { printf("FAIL phase 2: %d %s\n", st, aclGetRecentErrMsg()); return 1; }
    aclrtSynchronizeStream(stream);
    if (ws) aclrtFree(ws);
    return 0;
}

int main(void)
{
    aclInit(NULL);
    aclrtSetDevice(0);
    aclrtStream stream;
    aclrtCreateStream(&stream);
    int fails = 0;

    /* a log-softmax over C of fixed scores */
    float lp[T * N * C];
    for (int r = 0; r < T * N; r++) {
        double z[C], m = 0;
        for (int c = 0; c < C; c++) { z[c] = sin(1.7 * r + 0.9 * c) * 2.0; m += exp(z[c]); }
        for (int c = 0; c < C; c++) lp[r * C + c] = (float)(z[c] - log(m));
    }
    int64_t padded[N * S] = {1, 2, 1, 1}, inlen[N] = {4, 3}, tlen[N] = {2, 2};
    int64_t sLp[3] = {T, N, C}, sTg[2] = {N, S}, sCat[1] = {N * S}, sN[1] = {N}, sLa[3] = {N, T, W};
    int64_t sTorch[3] = {N, T, 2 * S + 1};
    void *dLp, *dTg, *dCat, *dNll, *dLa, *dTorch, *dG, *dOut;
    aclTensor *tLp = mk(sLp, 3, ACL_FLOAT, 4, lp, &dLp);
    aclTensor *tTg = mk(sTg, 2, ACL_INT64, 8, padded, &dTg);
    aclTensor *tCat = mk(sCat, 1, ACL_INT64, 8, padded, &dCat);
    aclTensor *tNll = mk(sN, 1, ACL_FLOAT, 4, NULL, &dNll);
    aclTensor *tLa = mk(sLa, 3, ACL_FLOAT, 4, NULL, &dLa);
    aclTensor *tTorch = mk(sTorch, 3, ACL_FLOAT, 4, NULL, &dTorch);
    float g[N] = {1.0f, 0.5f};
    aclTensor *tG = mk(sN, 1, ACL_FLOAT, 4, g, &dG);
    aclTensor *tOut = mk(sLp, 3, ACL_FLOAT, 4, NULL, &dOut);
    aclIntArray *il = aclCreateIntArray(inlen, N), *tl = aclCreateIntArray(tlen, N);

    double want[N], mass[N][T][C];
    for (int b = 0; b < N; b++) want[b] = -log(enumerate(lp, b, (int)inlen[b], padded + b * S, (int)tlen[b], mass[b]));

    for (int layout = 0; layout < 2; layout++) {
        const aclTensor *targets = layout ? tCat : tTg;
        uint64_t wsz = 0;
        aclOpExecutor *ex = NULL;
        aclnnStatus st = aclnnCtcLossGetWorkspaceSize(tLp, targets, il, tl, 0, false, tNll, tLa, &wsz, &ex);
        if (run(st, wsz, ex, stream, 0)) return 1;
        float nll[N], la[N * T * W];
        aclrtMemcpy(nll, sizeof nll, dNll, sizeof nll, ACL_MEMCPY_DEVICE_TO_HOST);
        aclrtMemcpy(la, sizeof la, dLa, sizeof la, ACL_MEMCPY_DEVICE_TO_HOST);
        for (int b = 0; b < N; b++) {
            if (fabs(nll[b] - want[b]) > 1e-5 * (fabs(want[b]) + 1.0)) {
                printf("FAIL layout %d loss[%d] = %.9g, want %.9g\n", layout, b, nll[b], want[b]);
                fails++;
            }
            for (int t = 0; t < T; t++)
                for (int s = 0; s < W; s++) {
                    int padding = s > 2 * tlen[b] || t >= inlen[b];
                    float v = la[(b * T + t) * W + s];
                    if (padding && !(isinf(v) && v < 0)) {
                        printf("FAIL logAlpha[%d, %d, %d] = %g, want -inf\n", b, t, s, v);
                        fails++;
                    }
                }
        }

        st = aclnnCtcLossBackwardGetWorkspaceSize(tG, tLp, targets, il, tl, tNll, tLa, 0, false, tOut, &wsz, &ex);
        if (run(st, wsz, ex, stream, 1)) return 1;
        float out[T * N * C];
        aclrtMemcpy(out, sizeof out, dOut, sizeof out, ACL_MEMCPY_DEVICE_TO_HOST);
        for (int t = 0; t < T; t++)
            for (int b = 0; b < N; b++)
                for (int c = 0; c < C; c++) {
                    int i = (t * N + b) * C + c;
                    double w = 0;
                    if (t < inlen[b]) w = g[b] * (exp((double)lp[i]) - mass[b][t][c] * exp(want[b]));
                    if (fabs(out[i] - w) > 1e-5) {
                        printf("FAIL layout %d grad[%d, %d, %d] = %.9g, want %.9g\n", layout, t, b, c, out[i], w);
                        fails++;
                    }
                }
    }

    uint64_t wsz = 0;
    aclOpExecutor *ex = NULL;
    aclnnStatus st = aclnnCtcLossGetWorkspaceSize(NULL, tTg, il, tl, 0, false, tNll, tLa, &wsz, &ex);
    if (st != 161001) { printf("FAIL a NULL logProbs gave %d\n", st); fails++; }
    st = aclnnCtcLossGetWorkspaceSize(tLp, tTg, il, tl, 0, false, tNll, tTorch, &wsz, &ex);
    if (st != 161002) { printf("FAIL logAlphaOut (N, T, 2S+1) gave %d\n", st); fails++; }
    st = aclnnCtcLossBackwardGetWorkspaceSize(tG, tLp, tTg, il, NULL, tNll, tLa, 0, false, tOut, &wsz, &ex);
    if (st != 161001) { printf("FAIL a NULL targetLengths gave %d\n", st); fails++; }

    aclDestroyIntArray(il); aclDestroyIntArray(tl);
    aclDestroyTensor(tLp); aclDestroyTensor(tTg); aclDestroyTensor(tCat); aclDestroyTensor(tNll);
    aclDestroyTensor(tLa); aclDestroyTensor(tTorch); aclDestroyTensor(tG); aclDestroyTensor(tOut);
    aclrtFree(dLp); aclrtFree(dTg); aclrtFree(dCat); aclrtFree(dNll); aclrtFree(dLa); aclrtFree(dTorch);
    aclrtFree(dG); aclrtFree(dOut);
    aclrtDestroyStream(stream);
    aclrtResetDevice(0);
    aclFinalize();
    if (fails) return 1;
    printf("test_ctc_loss: ok\n");
    return 0;
}
