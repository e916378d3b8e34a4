/* aclnnBincount and aclnnHistc as a CANN user calls them: int64 self with f32 weights and
 * minlength into a caller-sized f32 out; an f32 histogram of 4 bins over [0, 2]; values
 * checked, then error statuses (a negative self value fails the run). */
#include <stdio.h>
#include <stdint.h>
#include <math.h>
#include "acl/acl.h"
#include "aclnnop/aclnn_bincount.h"
#include "aclnnop/aclnn_histc.h"

static aclTensor *mk(int64_t n, aclDataType dt, size_t esz, const void *host, void **dev)
{
    int64_t shape[1] = {n}, strides[1] = {1};
    aclrtMalloc(dev, (size_t)n * esz + 1, ACL_MEM_MALLOC_HUGE_FIRST);
    if (host) aclrtMemcpy(*dev, (size_t)n * esz, host, (size_t)n * esz, ACL_MEMCPY_HOST_TO_DEVICE);
    return aclCreateTensor(shape, 1, dt, strides, 0, ACL_FORMAT_ND, shape, 1, *dev);
}

int main(void)
{
    aclInit(NULL);
    aclrtSetDevice(0);
    aclrtStream stream;
    aclrtCreateStream(&stream);
    int fails = 0;
    uint64_t wsz = 0;
    aclOpExecutor *ex = NULL;

    /* bincount([1, 3, 1, 0], weights [0.5, 2, 0.25, 1], minlength 6) = [1, 0.75, 0, 2, 0, 0] */
    int64_t x[4] = {1, 3, 1, 0};
    float w[4] = {0.5f, 2.0f, 0.25f, 1.0f}, want_b[6] = {1.0f, 0.75f, 0.0f, 2.0f, 0.0f, 0.0f};
    void *dx, *dw, *db;
    aclTensor *tx = mk(4, ACL_INT64, 8, x, &dx), *tw = mk(4, ACL_FLOAT, 4, w, &dw);
    aclTensor *tb = mk(6, ACL_FLOAT, 4, NULL, &db);
    aclnnStatus st = aclnnBincountGetWorkspaceSize(tx, tw, 6, tb, &wsz, &ex);
    if (st != 0) { printf("FAIL bincount phase 1: %d %s\n", st, aclGetRecentErrMsg()); return 1; }
    st = aclnnBincount(NULL, wsz, ex, stream);
    if (st == 0) st = aclrtSynchronizeStream(stream);
    float b[6];
    aclrtMemcpy(b, sizeof b, db, sizeof b, ACL_MEMCPY_DEVICE_TO_HOST);
    for (int i = 0; i < 6; i++)
        if (st != 0 || b[i] != want_b[i]) { printf("FAIL bincount[%d] = %g, want %g\n", i, b[i], want_b[i]); fails++; }

    /* histc([0, 0.5, 1.9, 2, 2.5, nan], 4, 0, 2) = [1, 1, 0, 2] (2 goes into the last bin) */
    float h[6] = {0.0f, 0.5f, 1.9f, 2.0f, 2.5f, NAN}, want_h[4] = {1, 1, 0, 2};
    void *dh, *dho;
    aclTensor *th = mk(6, ACL_FLOAT, 4, h, &dh), *tho = mk(4, ACL_FLOAT, 4, NULL, &dho);
    float lo = 0.0f, hi = 2.0f;
    aclScalar *smin = aclCreateScalar(&lo, ACL_FLOAT), *smax = aclCreateScalar(&hi, ACL_FLOAT);
    st = aclnnHistcGetWorkspaceSize(th, 4, smin, smax, tho, &wsz, &ex);
    if (st != 0) { printf("FAIL histc phase 1: %d %s\n", st, aclGetRecentErrMsg()); return 1; }
    st = aclnnHistc(NULL, wsz, ex, stream);
    if (st == 0) st = aclrtSynchronizeStream(stream);
    float ho[4];
    aclrtMemcpy(ho, sizeof ho, dho, sizeof ho, ACL_MEMCPY_DEVICE_TO_HOST);
    for (int i = 0; i < 4; i++)
        if (st != 0 || ho[i] != want_h[i]) { printf("FAIL histc[%d] = %g, want %g\n", i, ho[i], want_h[i]); fails++; }

    /* errors: NULL self, out too short for minlength, bins 0, a negative value at run time */
    st = aclnnBincountGetWorkspaceSize(NULL, tw, 0, tb, &wsz, &ex);
    if (st != 161001) { printf("FAIL NULL self gave %d\n", st); fails++; }
    st = aclnnBincountGetWorkspaceSize(tx, tw, 7, tb, &wsz, &ex);
    if (st != 161002) { printf("FAIL minlength 7 > 6 gave %d\n", st); fails++; }
    st = aclnnHistcGetWorkspaceSize(th, 0, smin, smax, tho, &wsz, &ex);
    if (st != 161002) { printf("FAIL bins 0 gave %d\n", st); fails++; }
    int64_t neg[4] = {1, -1, 0, 0};
    aclrtMemcpy(dx, sizeof neg, neg, sizeof neg, ACL_MEMCPY_HOST_TO_DEVICE);
    st = aclnnBincountGetWorkspaceSize(tx, tw, 0, tb, &wsz, &ex);
    if (st == 0) st = aclnnBincount(NULL, wsz, ex, stream);
    if (st == 0) st = aclrtSynchronizeStream(stream);
    if (st == 0) { printf("FAIL a negative self value ran\n"); fails++; }

    aclDestroyScalar(smin);
    aclDestroyScalar(smax);
    aclDestroyTensor(tx); aclDestroyTensor(tw); aclDestroyTensor(tb); aclDestroyTensor(th); aclDestroyTensor(tho);
    aclrtFree(dx); aclrtFree(dw); aclrtFree(db); aclrtFree(dh); aclrtFree(dho);
    aclrtDestroyStream(stream);
    printf(fails ? "test_hist21: %d failures\n" : "test_hist21: ok\n", fails);
    return fails != 0;
}
