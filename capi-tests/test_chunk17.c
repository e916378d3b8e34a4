/* aclnnOneHot and aclnnChunkCat as a CANN user calls them (the doc's examples' shapes):
 * OneHot of int64 classes {0, 2, 5, -1} into 4 classes along the last axis (5 and -1 are
 * all offValue); ChunkCat of f32 (2, 3) and (1, 3) into 2 chunks; values checked, then
 * error statuses. */
#include <stdio.h>
#include <stdint.h>
#include "acl/acl.h"
#include "aclnnop/aclnn_chunk_cat.h"
#include "aclnnop/aclnn_one_hot.h"

static aclTensor *mk(const int64_t *shape, int64_t rank, aclDataType dt, size_t esz, const void *host, void **dev)
{
    int64_t n = 1, strides[2];
    for (int64_t i = rank - 1; i >= 0; i--) { strides[i] = n; n *= shape[i]; }
    aclrtMalloc(dev, (size_t)n * esz + 1, ACL_MEM_MALLOC_HUGE_FIRST);
    if (host) aclrtMemcpy(*dev, (size_t)n * esz, host, (size_t)n * esz, ACL_MEMCPY_HOST_TO_DEVICE);
    return aclCreateTensor(shape, (uint64_t)rank, dt, strides, 0, ACL_FORMAT_ND, shape, (uint64_t)rank, *dev);
}

/* Phase 2 with the workspace phase 1 asked for, then synchronize. */
static aclnnStatus run2(aclnnStatus (*phase2)(void *, uint64_t, aclOpExecutor *, aclrtStream),
                        uint64_t wsz, aclOpExecutor *ex, aclrtStream stream)
{
    void *w = NULL;
    if (wsz) aclrtMalloc(&w, wsz, ACL_MEM_MALLOC_HUGE_FIRST);
    aclnnStatus st = phase2(w, wsz, ex, stream);
    if (st != 0) printf("FAIL phase 2: %d %s\n", st, aclGetRecentErrMsg());
    aclrtSynchronizeStream(stream);
    if (w) aclrtFree(w);
    return st;
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

    /* OneHot */
    int64_t ss[1] = {4}, vs[1] = {1}, os[2] = {4, 4};
    int64_t cls[4] = {0, 2, 5, -1};
    float on = 1.0f, off = 0.5f;
    void *dsf, *don, *doff, *dout;
    aclTensor *ts = mk(ss, 1, ACL_INT64, 8, cls, &dsf), *ton = mk(vs, 1, ACL_FLOAT, 4, &on, &don);
    aclTensor *toff = mk(vs, 1, ACL_FLOAT, 4, &off, &doff), *tout = mk(os, 2, ACL_FLOAT, 4, NULL, &dout);
    aclnnStatus st = aclnnOneHotGetWorkspaceSize(ts, 4, ton, toff, -1, tout, &wsz, &ex);
    if (st != 0) { printf("FAIL OneHot phase 1: %d %s\n", st, aclGetRecentErrMsg()); return 1; }
    st = run2(aclnnOneHot, wsz, ex, stream);
    float oh[16];
    aclrtMemcpy(oh, sizeof oh, dout, sizeof oh, ACL_MEMCPY_DEVICE_TO_HOST);
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            float want = cls[i] == j ? on : off;
            if (st != 0 || oh[i * 4 + j] != want) {
                printf("FAIL onehot[%d][%d] = %g, want %g\n", i, j, oh[i * 4 + j], want);
                fails++;
            }
        }
    st = aclnnOneHotGetWorkspaceSize(ts, 4, ton, toff, -2, tout, &wsz, &ex);
    if (st != 161002) { printf("FAIL OneHot axis -2 gave %d\n", st); fails++; }
    st = aclnnOneHotGetWorkspaceSize(ts, 4, NULL, toff, -1, tout, &wsz, &ex);
    if (st != 161001) { printf("FAIL OneHot NULL onValue gave %d\n", st); fails++; }

    /* ChunkCat: (2, 3) and (1, 3) in 2 chunks: out (2, 6) = [a0 | b0], [a1 | 0 0 0]. */
    int64_t as[2] = {2, 3}, bs[2] = {1, 3}, cs[2] = {2, 6};
    float a[6] = {1, 2, 3, 4, 5, 6}, b[3] = {7, 8, 9};
    void *da, *db, *dc;
    aclTensor *ta = mk(as, 2, ACL_FLOAT, 4, a, &da), *tb = mk(bs, 2, ACL_FLOAT, 4, b, &db);
    aclTensor *tc = mk(cs, 2, ACL_FLOAT, 4, NULL, &dc);
    const aclTensor *members[2] = {ta, tb};
    aclTensorList *list = aclCreateTensorList(members, 2);
    st = aclnnChunkCatGetWorkspaceSize(list, 0, 2, tc, &wsz, &ex);
    if (st != 0) { printf("FAIL ChunkCat phase 1: %d %s\n", st, aclGetRecentErrMsg()); return 1; }
    st = run2(aclnnChunkCat, wsz, ex, stream);
    float c[12], want[12] = {1, 2, 3, 7, 8, 9, 4, 5, 6, 0, 0, 0};
    aclrtMemcpy(c, sizeof c, dc, sizeof c, ACL_MEMCPY_DEVICE_TO_HOST);
    for (int i = 0; i < 12; i++)
        if (st != 0 || c[i] != want[i]) { printf("FAIL chunkcat[%d] = %g, want %g\n", i, c[i], want[i]); fails++; }
    st = aclnnChunkCatGetWorkspaceSize(list, 1, 2, tc, &wsz, &ex);
    if (st != 161002) { printf("FAIL ChunkCat dim 1 gave %d\n", st); fails++; }
    st = aclnnChunkCatGetWorkspaceSize(NULL, 0, 2, tc, &wsz, &ex);
    if (st != 161001) { printf("FAIL ChunkCat NULL tensors gave %d\n", st); fails++; }

    aclDestroyTensorList(list); /* destroys ta and tb */
    aclDestroyTensor(tc);
    aclDestroyTensor(ts);
    aclDestroyTensor(ton);
    aclDestroyTensor(toff);
    aclDestroyTensor(tout);
    void *bufs[7] = {dsf, don, doff, dout, da, db, dc};
    for (int i = 0; i < 7; i++) aclrtFree(bufs[i]);
    aclrtDestroyStream(stream);
    aclrtResetDevice(0);
    aclFinalize();
    if (fails) return 1;
    printf("test_chunk17: OneHot and ChunkCat values and errors OK\n");
    return 0;
}
