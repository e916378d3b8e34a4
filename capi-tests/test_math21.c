/* Issue 21's math operators as a CANN user calls them: aclnnIsInTensorScalar,
 * aclnnIsInScalarTensor, aclnnAsinhV2, aclnnAddrV2 and aclnnScale, values checked, then error statuses. */
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include "acl/acl.h"
#include "aclnnop/aclnn_isin.h"
#include "aclnnop/aclnn_isin_tensor_scalar.h"
#include "aclnnop/aclnn_asinh_v2.h"
#include "aclnnop/aclnn_addr_v2.h"
#include "aclnnop/aclnn_scale.h"

static aclTensor *mk(const int64_t *shape, int64_t rank, aclDataType dt, size_t esz, const void *host, void **dev)
{
    int64_t n = 1, strides[2];
    for (int64_t i = rank - 1; i >= 0; i--) { strides[i] = n; n *= shape[i]; }
    aclrtMalloc(dev, (size_t)n * esz + 1, ACL_MEM_MALLOC_HUGE_FIRST);
    if (host) aclrtMemcpy(*dev, (size_t)n * esz, host, (size_t)n * esz, ACL_MEMCPY_HOST_TO_DEVICE);
    return aclCreateTensor(shape, (uint64_t)rank, dt, strides, 0, ACL_FORMAT_ND, shape, (uint64_t)rank, *dev);
}

/* Phase 2 with the workspace phase 1 asked for. */
static int run(aclnnStatus st, uint64_t wsz, aclOpExecutor *ex,
               aclnnStatus (*p2)(void *, uint64_t, aclOpExecutor *, aclrtStream), aclrtStream stream)
{
    if (st != 0) { printf("FAIL phase 1: %d %s\n", st, aclGetRecentErrMsg()); return 1; }
    void *ws = NULL;
    if (wsz > 0) aclrtMalloc(&ws, wsz, ACL_MEM_MALLOC_HUGE_FIRST);
    st = p2(ws, wsz, ex, stream);
    aclrtSynchronizeStream(stream);
    if (ws) aclrtFree(ws);
    if (st != 0) { printf("FAIL phase 2: %d %s\n", st, aclGetRecentErrMsg()); return 1; }
    return 0;
}

/* Phase 1 as its own statement: C leaves the order of a call's arguments unspecified, so
 * wsz and ex are read only after phase 1 has written them. */
#define RUN(phase1, p2) do { aclnnStatus st1_ = phase1; fails += run(st1_, wsz, ex, p2, stream); } while (0)

static aclnnStatus isin_ts(void *w, uint64_t n, aclOpExecutor *e, aclrtStream s) { return aclnnIsInTensorScalar(w, n, e, s); }
static aclnnStatus isin_st(void *w, uint64_t n, aclOpExecutor *e, aclrtStream s) { return aclnnIsInScalarTensor(w, n, e, s); }
static aclnnStatus asinh2(void *w, uint64_t n, aclOpExecutor *e, aclrtStream s) { return aclnnAsinhV2(w, n, e, s); }
static aclnnStatus scale1(void *w, uint64_t n, aclOpExecutor *e, aclrtStream s) { return aclnnScale(w, n, e, s); }
static aclnnStatus addr2(void *w, uint64_t n, aclOpExecutor *e, aclrtStream s) { return aclnnAddrV2(w, n, e, s); }

int main(void)
{
    aclInit(NULL);
    aclrtSetDevice(0);
    aclrtStream stream;
    aclrtCreateStream(&stream);
    int fails = 0;
    uint64_t wsz = 0;
    aclOpExecutor *ex = NULL;

    /* IsInTensorScalar: which of x equal 2.0 (invert false). */
    int64_t s4[1] = {4};
    float x[4] = {1.0f, 2.0f, NAN, 2.0f};
    void *dx, *dm;
    aclTensor *tx = mk(s4, 1, ACL_FLOAT, 4, x, &dx), *tm = mk(s4, 1, ACL_BOOL, 1, NULL, &dm);
    float two = 2.0f;
    aclScalar *s_two = aclCreateScalar(&two, ACL_FLOAT);
    RUN(aclnnIsInTensorScalarGetWorkspaceSize(tx, s_two, false, false, tm, &wsz, &ex), isin_ts);
    uint8_t m[4];
    aclrtMemcpy(m, 4, dm, 4, ACL_MEMCPY_DEVICE_TO_HOST);
    const uint8_t mwant[4] = {0, 1, 0, 1};
    for (int i = 0; i < 4; i++)
        if (m[i] != mwant[i]) { printf("FAIL isin mask[%d] = %d\n", i, m[i]); fails++; }

    /* IsInScalarTensor: is 3 among the int32 values (and, inverted, is it not). */
    int64_t s5[1] = {5}, s0[1] = {0};
    int32_t v[5] = {7, -1, 3, 0, 9};
    void *dv, *dr;
    aclTensor *tv = mk(s5, 1, ACL_INT32, 4, v, &dv), *tr = mk(s0, 0, ACL_BOOL, 1, NULL, &dr);
    int32_t three = 3;
    aclScalar *s_three = aclCreateScalar(&three, ACL_INT32);
    for (int inv = 0; inv < 2; inv++) {
        RUN(aclnnIsInScalarTensorGetWorkspaceSize(s_three, tv, false, inv, tr, &wsz, &ex), isin_st);
        uint8_t r = 9;
        aclrtMemcpy(&r, 1, dr, 1, ACL_MEMCPY_DEVICE_TO_HOST);
        if (r != (inv ? 0 : 1)) { printf("FAIL isin scalar (invert %d) = %d\n", inv, r); fails++; }
    }

    /* AsinhV2: a double x gives a float out. */
    double xd[4] = {0.0, 1.0, -2.5, 1e10};
    void *dd, *da;
    aclTensor *td = mk(s4, 1, ACL_DOUBLE, 8, xd, &dd), *ta = mk(s4, 1, ACL_FLOAT, 4, NULL, &da);
    RUN(aclnnAsinhV2GetWorkspaceSize(td, ta, &wsz, &ex), asinh2);
    float a[4];
    aclrtMemcpy(a, sizeof a, da, sizeof a, ACL_MEMCPY_DEVICE_TO_HOST);
    for (int i = 0; i < 4; i++) {
        double want = asinh((double)(float)xd[i]);
        if (fabs(a[i] - want) > 1e-6 * fmax(1.0, fabs(want))) { printf("FAIL asinh(%g) = %g\n", xd[i], a[i]); fails++; }
    }

    /* AddrV2: out = 0.5·self + 2·(vec1 ⊗ vec2). */
    int64_t s23[2] = {2, 3}, s2[1] = {2}, s3[1] = {3};
    float self[6] = {1, 2, 3, 4, 5, 6}, v1[2] = {1, -2}, v2[3] = {0.5f, 1, 2};
    void *ds, *d1, *d2, *dout;
    aclTensor *ts = mk(s23, 2, ACL_FLOAT, 4, self, &ds), *t1 = mk(s2, 1, ACL_FLOAT, 4, v1, &d1);
    aclTensor *t2 = mk(s3, 1, ACL_FLOAT, 4, v2, &d2), *tout = mk(s23, 2, ACL_FLOAT, 4, NULL, &dout);
    float half = 0.5f, twof = 2.0f;
    aclScalar *beta = aclCreateScalar(&half, ACL_FLOAT), *alpha = aclCreateScalar(&twof, ACL_FLOAT);
    RUN(aclnnAddrV2GetWorkspaceSize(ts, t1, t2, beta, alpha, tout, &wsz, &ex), addr2);
    float o[6];
    aclrtMemcpy(o, sizeof o, dout, sizeof o, ACL_MEMCPY_DEVICE_TO_HOST);
    for (int r = 0; r < 2; r++)
        for (int c = 0; c < 3; c++) {
            float want = 0.5f * self[r * 3 + c] + 2.0f * v1[r] * v2[c];
            if (o[r * 3 + c] != want) { printf("FAIL addr[%d][%d] = %g, want %g\n", r, c, o[r * 3 + c], want); fails++; }
        }

    /* Scale: y = x·scale + bias with scale over dim 1 (axis 1, numAxes 1, scaleFromBlob). */
    float sc[3] = {2, -1, 0.5f}, bi[3] = {1, 0, -1};
    void *dsc, *dbi, *dy;
    aclTensor *tsc = mk(s3, 1, ACL_FLOAT, 4, sc, &dsc), *tbi = mk(s3, 1, ACL_FLOAT, 4, bi, &dbi);
    aclTensor *ty = mk(s23, 2, ACL_FLOAT, 4, NULL, &dy);
    RUN(aclnnScaleGetWorkspaceSize(ts, tsc, tbi, 1, 1, true, ty, &wsz, &ex), scale1);
    float yv[6];
    aclrtMemcpy(yv, sizeof yv, dy, sizeof yv, ACL_MEMCPY_DEVICE_TO_HOST);
    for (int r = 0; r < 2; r++)
        for (int c = 0; c < 3; c++) {
            float want = self[r * 3 + c] * sc[c] + bi[c];
            if (yv[r * 3 + c] != want) { printf("FAIL scale[%d][%d] = %g, want %g\n", r, c, yv[r * 3 + c], want); fails++; }
        }
    /* numAxes 2 from axis 1 reaches past x's 2 dims. */
    if (aclnnScaleGetWorkspaceSize(ts, tsc, NULL, 1, 2, true, ty, &wsz, &ex) != 161002) { printf("FAIL numAxes 2 accepted\n"); fails++; }

    /* Errors: a float out for IsIn, a 1-D out for the scalar form, a double out for AsinhV2,
     * NULL vec1 for AddrV2. */
    if (aclnnIsInTensorScalarGetWorkspaceSize(tx, s_two, false, false, tx, &wsz, &ex) != 161002) { printf("FAIL float out accepted\n"); fails++; }
    if (aclnnIsInScalarTensorGetWorkspaceSize(s_three, tv, false, false, tm, &wsz, &ex) != 161002) { printf("FAIL 1-D out accepted\n"); fails++; }
    if (aclnnAsinhV2GetWorkspaceSize(td, td, &wsz, &ex) != 161002) { printf("FAIL double out accepted\n"); fails++; }
    if (aclnnAddrV2GetWorkspaceSize(ts, NULL, t2, beta, alpha, tout, &wsz, &ex) != 161001) { printf("FAIL NULL vec1 accepted\n"); fails++; }

    aclDestroyScalar(s_two);
    aclDestroyScalar(s_three);
    aclDestroyScalar(beta);
    aclDestroyScalar(alpha);
    aclTensor *all[] = {tx, tm, tv, tr, td, ta, ts, t1, t2, tout, tsc, tbi, ty};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) aclDestroyTensor(all[i]);
    void *mem[] = {dx, dm, dv, dr, dd, da, ds, d1, d2, dout, dsc, dbi, dy};
    for (size_t i = 0; i < sizeof mem / sizeof mem[0]; i++) aclrtFree(mem[i]);
    aclrtDestroyStream(stream);
    aclrtResetDevice(0);
    aclFinalize();
    printf(fails ? "test_math21: %d failures\n" : "test_math21: ok\n", fails);
    return fails != 0;
}
