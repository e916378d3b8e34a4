/* The masked softmax headers as a CANN user calls them: aclnnScaledMaskedSoftmax on x
 * (1, 2, 2, 4) f32 with a (1, 1, 2, 4) bool mask broadcast over N, its backward from the
 * y it gave, and aclnnMaskedSoftmaxWithRelPosBias on x (B·W = 4, N = 1, 2, 3) with a window
 * mask (W = 2, 2, 3), a bias (1, 2, 3) and without the mask; each checked against a double
 * loop; then the refusals: fixedTriuMask / fixTriuMask true (161002), NULL tensors
 * (161001), a bias of the wrong shape (161002). */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>
#include "acl/acl.h"
#include "aclnnop/aclnn_scaled_masked_softmax.h"
#include "aclnnop/aclnn_scaled_masked_softmax_backward.h"
#include "aclnnop/aclnn_masked_softmax_with_rel_pos_bias.h"

static aclTensor *mk(const int64_t *shape, int64_t rank, aclDataType dt, size_t esz, const void *host, void **dev)
{
    int64_t n = 1, strides[5];
    for (int64_t i = rank - 1; i >= 0; i--) { strides[i] = n; n *= shape[i]; }
    aclrtMalloc(dev, (size_t)n * esz, ACL_MEM_MALLOC_HUGE_FIRST);
    if (host) aclrtMemcpy(*dev, (size_t)n * esz, host, (size_t)n * esz, ACL_MEMCPY_HOST_TO_DEVICE);
    return aclCreateTensor(shape, (uint64_t)rank, dt, strides, 0, ACL_FORMAT_ND, shape, (uint64_t)rank, *dev);
}

static int fails = 0;

/* Phase 2 with the workspace phase 1 asked for (phase 1 called before, its status `st`). */
static void run(aclnnStatus st, uint64_t wsz, aclOpExecutor *ex, aclrtStream stream,
                aclnnStatus (*phase2)(void *, uint64_t, aclOpExecutor *, aclrtStream), const char *what)
{
    if (st != 0) { printf("FAIL %s phase 1: %d %s\n", what, st, aclGetRecentErrMsg()); fails++; return; }
    void *ws = NULL;
    if (wsz > 0) aclrtMalloc(&ws, wsz, ACL_MEM_MALLOC_HUGE_FIRST);
    st = phase2(ws, wsz, ex, stream);
    if (st != 0) { printf("FAIL %s phase 2: %d %s\n", what, st, aclGetRecentErrMsg()); fails++; }
    aclrtSynchronizeStream(stream);
    if (ws) aclrtFree(ws);
}

static aclnnStatus backward2(void *w, uint64_t n, aclOpExecutor *e, aclrtStream s)
{
    return aclnnScaledMaskedSoftmaxBackward(w, n, e, s);
}

static void close_to(const char *what, int i, float got, double want)
{
    if (fabs(got - want) > 1e-6 * (fabs(want) + 1e-3)) {
        printf("FAIL %s[%d] = %.9g, want %.9g\n", what, i, got, want);
        fails++;
    }
}

/* softmax of each row of `cols` values, in double. */
static void softmax_rows(double *v, int rows, int cols)
{
    for (int r = 0; r < rows; r++) {
        double m = -INFINITY, s = 0;
        for (int j = 0; j < cols; j++) m = fmax(m, v[r * cols + j]);
        for (int j = 0; j < cols; j++) { v[r * cols + j] = exp(v[r * cols + j] - m); s += v[r * cols + j]; }
        for (int j = 0; j < cols; j++) v[r * cols + j] /= s;
    }
}

int main(void)
{
    aclInit(NULL);
    aclrtSetDevice(0);
    aclrtStream stream;
    aclrtCreateStream(&stream);
    uint64_t wsz = 0;
    aclOpExecutor *ex = NULL;

    /* ScaledMaskedSoftmax: 4 rows of 4 (B 1, N 2, S1 2, S2 4); the mask is per (S1, S2). */
    int64_t sx[4] = {1, 2, 2, 4}, sm[4] = {1, 1, 2, 4};
    float x[16] = {1, 2, 3, 4, -1, 0.5f, 2, -3, 0, 0, 0, 0, 4, -4, 1, 2};
    bool mask[8] = {false, false, true, false, true, false, false, true};
    double scale = 0.5;
    void *dx, *dm, *dy, *dg, *dout;
    aclTensor *tx = mk(sx, 4, ACL_FLOAT, 4, x, &dx), *tm = mk(sm, 4, ACL_BOOL, 1, mask, &dm);
    aclTensor *ty = mk(sx, 4, ACL_FLOAT, 4, NULL, &dy);
    aclnnStatus st = aclnnScaledMaskedSoftmaxGetWorkspaceSize(tx, tm, scale, false, ty, &wsz, &ex);
    run(st, wsz, ex, stream, aclnnScaledMaskedSoftmax, "ScaledMaskedSoftmax");
    float y[16];
    aclrtMemcpy(y, sizeof y, dy, sizeof y, ACL_MEMCPY_DEVICE_TO_HOST);
    double want[16];
    for (int i = 0; i < 16; i++) want[i] = mask[i % 8] ? -10000.0 : x[i] * scale;
    softmax_rows(want, 4, 4);
    for (int i = 0; i < 16; i++) close_to("y", i, y[i], want[i]);
    if (aclnnScaledMaskedSoftmaxGetWorkspaceSize(tx, tm, scale, true, ty, &wsz, &ex) != 161002) {
        printf("FAIL fixedTriuMask true was not refused with 161002\n"); fails++;
    }
    if (aclnnScaledMaskedSoftmaxGetWorkspaceSize(tx, NULL, scale, false, ty, &wsz, &ex) != 161001) {
        printf("FAIL a NULL mask was not refused with 161001\n"); fails++;
    }

    /* Its backward from that y: out = (g·y − Σ g·y · y)·scale, 0 where masked. */
    float g[16];
    for (int i = 0; i < 16; i++) g[i] = (float)((i % 5) - 2) * 0.25f;
    aclTensor *tg = mk(sx, 4, ACL_FLOAT, 4, g, &dg), *tout = mk(sx, 4, ACL_FLOAT, 4, NULL, &dout);
    st = aclnnScaledMaskedSoftmaxBackwardGetWorkspaceSize(tg, ty, tm, scale, false, tout, &wsz, &ex);
    run(st, wsz, ex, stream, backward2, "ScaledMaskedSoftmaxBackward");
    float out[16];
    aclrtMemcpy(out, sizeof out, dout, sizeof out, ACL_MEMCPY_DEVICE_TO_HOST);
    for (int r = 0; r < 4; r++) {
        double s = 0;
        for (int j = 0; j < 4; j++) s += (double)g[r * 4 + j] * y[r * 4 + j];
        for (int j = 0; j < 4; j++) {
            int i = r * 4 + j;
            double w = mask[i % 8] ? 0.0 : ((double)g[i] * y[i] - s * y[i]) * scale;
            close_to("gradX", i, out[i], w);
        }
    }
    if (aclnnScaledMaskedSoftmaxBackwardGetWorkspaceSize(tg, ty, tm, scale, true, tout, &wsz, &ex) != 161002) {
        printf("FAIL fixTriuMask true was not refused with 161002\n"); fails++;
    }
    if (aclnnScaledMaskedSoftmaxBackwardGetWorkspaceSize(tg, ty, tm, scale, false, NULL, &wsz, &ex) != 161001) {
        printf("FAIL a NULL out was not refused with 161001\n"); fails++;
    }

    /* MaskedSoftmaxWithRelPosBias: x (B·W = 4, N 1, S1 2, S2 3), mask (W 2, 2, 3), bias (1, 2, 3). */
    int64_t rx[4] = {4, 1, 2, 3}, rm[3] = {2, 2, 3}, rb[3] = {1, 2, 3}, rbad[3] = {2, 2, 3};
    float xr[24], mr[12], br[6] = {0.1f, -0.2f, 0.3f, 0.0f, 1.0f, -1.0f};
    for (int i = 0; i < 24; i++) xr[i] = (float)((i * 7) % 11 - 5) * 0.5f;
    for (int i = 0; i < 12; i++) mr[i] = (i % 4 == 1) ? -100.0f : 0.0f;
    double sv = 0.25;
    void *dxr, *dmr, *dbr, *dor, *dbad;
    aclTensor *txr = mk(rx, 4, ACL_FLOAT, 4, xr, &dxr), *tmr = mk(rm, 3, ACL_FLOAT, 4, mr, &dmr);
    aclTensor *tbr = mk(rb, 3, ACL_FLOAT, 4, br, &dbr), *tor = mk(rx, 4, ACL_FLOAT, 4, NULL, &dor);
    aclTensor *tbad = mk(rbad, 3, ACL_FLOAT, 4, NULL, &dbad);
    for (int with_mask = 1; with_mask >= 0; with_mask--) {
        st = aclnnMaskedSoftmaxWithRelPosBiasGetWorkspaceSize(txr, with_mask ? tmr : NULL, tbr, sv, 0, tor, &wsz, &ex);
        run(st, wsz, ex, stream, aclnnMaskedSoftmaxWithRelPosBias, "MaskedSoftmaxWithRelPosBias");
        float o[24];
        aclrtMemcpy(o, sizeof o, dor, sizeof o, ACL_MEMCPY_DEVICE_TO_HOST);
        double w[24];
        for (int i = 0; i < 24; i++) {
            int bw = i / 6, k = i % 6; /* k: (S1, S2) within the (N = 1) plane */
            w[i] = xr[i] * sv + br[k] + (with_mask ? mr[(bw % 2) * 6 + k] : 0.0);
        }
        softmax_rows(w, 8, 3);
        for (int i = 0; i < 24; i++) close_to(with_mask ? "relpos" : "relpos (no mask)", i, o[i], w[i]);
    }
    if (aclnnMaskedSoftmaxWithRelPosBiasGetWorkspaceSize(txr, tmr, NULL, sv, 0, tor, &wsz, &ex) != 161001) {
        printf("FAIL a NULL relativePosBias was not refused with 161001\n"); fails++;
    }
    if (aclnnMaskedSoftmaxWithRelPosBiasGetWorkspaceSize(txr, tmr, tbad, sv, 0, tor, &wsz, &ex) != 161002) {
        printf("FAIL a (2, 2, 3) bias for N = 1 was not refused with 161002\n"); fails++;
    }

    aclDestroyTensor(tx); aclDestroyTensor(tm); aclDestroyTensor(ty); aclDestroyTensor(tg); aclDestroyTensor(tout);
    aclDestroyTensor(txr); aclDestroyTensor(tmr); aclDestroyTensor(tbr); aclDestroyTensor(tor); aclDestroyTensor(tbad);
    aclrtFree(dx); aclrtFree(dm); aclrtFree(dy); aclrtFree(dg); aclrtFree(dout);
    aclrtFree(dxr); aclrtFree(dmr); aclrtFree(dbr); aclrtFree(dor); aclrtFree(dbad);
    aclrtDestroyStream(stream);
    aclrtResetDevice(0);
    aclFinalize();
    if (fails) return 1;
    printf("test_masked_softmax: ok\n");
    return 0;
}
