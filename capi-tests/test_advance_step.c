/* aclnnAdvanceStep and aclnnAdvanceStepV2 as a CANN user calls them, with the values of
 * CANN's two examples (V1: 8 sequences, 4 queries, blockSize 2, every tensor 0..7 in
 * [8, 1]; V2: 8 sequences with one speculative token, blockTables all 7); the updated
 * tensors are checked against the documented kernels, then error statuses. */
#include <stdio.h>
#include <stdint.h>
#include "acl/acl.h"
#include "aclnnop/aclnn_advance_step.h"
#include "aclnnop/aclnn_advance_step_v2.h"

static aclTensor *mk(const int64_t *shape, int64_t rank, aclDataType dt, const int64_t *host, void **dev)
{
    int64_t n = 1, strides[2];
    for (int64_t i = rank - 1; i >= 0; i--) { strides[i] = n; n *= shape[i]; }
    aclrtMalloc(dev, (size_t)n * 8, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMemcpy(*dev, (size_t)n * 8, host, (size_t)n * 8, ACL_MEMCPY_HOST_TO_DEVICE);
    return aclCreateTensor(shape, (uint64_t)rank, dt, strides, 0, ACL_FORMAT_ND, shape, (uint64_t)rank, *dev);
}

static int check(const char *what, void *dev, const int64_t *want, int n)
{
    int64_t got[16];
    aclrtMemcpy(got, (size_t)n * 8, dev, (size_t)n * 8, ACL_MEMCPY_DEVICE_TO_HOST);
    for (int i = 0; i < n; i++)
        if (got[i] != want[i]) {
            printf("FAIL %s[%d] = %lld, want %lld\n", what, i, (long long)got[i], (long long)want[i]);
            return 1;
        }
    return 0;
}

/* Runs a prepared executor with the workspace its phase 1 asked for. */
static int run(aclnnStatus (*phase2)(void *, uint64_t, aclOpExecutor *, aclrtStream), uint64_t wsz,
               aclOpExecutor *ex, aclrtStream stream)
{
    void *ws = NULL;
    if (wsz > 0) aclrtMalloc(&ws, wsz, ACL_MEM_MALLOC_HUGE_FIRST);
    aclnnStatus st = phase2(ws, wsz, ex, stream);
    aclrtSynchronizeStream(stream);
    if (ws) aclrtFree(ws);
    if (st != 0) printf("FAIL phase 2: %d %s\n", st, aclGetRecentErrMsg());
    return st != 0;
}

static int v1(aclrtStream stream)
{
    int64_t shape[2] = {8, 1}, qshape[2] = {4, 1}, host[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    void *d[6];
    aclTensor *t[6];
    for (int k = 0; k < 6; k++) t[k] = mk(k == 1 ? qshape : shape, 2, ACL_INT64, host, &d[k]);
    uint64_t wsz = 0;
    aclOpExecutor *ex = NULL;
    int fails = 0;
    aclnnStatus st = aclnnAdvanceStepGetWorkspaceSize(t[0], t[1], t[2], t[3], t[4], t[5], 8, 4, 2, &wsz, &ex);
    if (st != 0) { printf("FAIL V1 phase 1: %d %s\n", st, aclGetRecentErrMsg()); return 1; }
    fails += run(aclnnAdvanceStep, wsz, ex, stream);
    /* Queries 0..3 step on; entry 4 (numQueries + 40k) is padding; 5..7 are untouched. */
    const int64_t tokens[8] = {0, 1, 2, 3, 0, 5, 6, 7}, positions[8] = {0, 1, 2, 3, 0, 5, 6, 7};
    const int64_t lens[8] = {1, 2, 3, 4, 4, 5, 6, 7}, slots[8] = {0, 3, 6, 9, -1, 5, 6, 7};
    fails += check("V1 inputTokens", d[0], tokens, 8) + check("V1 inputPositions", d[2], positions, 8) +
             check("V1 seqLens", d[3], lens, 8) + check("V1 slotMapping", d[4], slots, 8);
    /* numSeqs must exceed numQueries; a NULL blockTables. */
    st = aclnnAdvanceStepGetWorkspaceSize(t[0], t[1], t[2], t[3], t[4], t[5], 4, 4, 2, &wsz, &ex);
    if (st != 161002) { printf("FAIL numSeqs == numQueries gave %d\n", st); fails++; }
    st = aclnnAdvanceStepGetWorkspaceSize(t[0], t[1], t[2], t[3], t[4], NULL, 8, 4, 2, &wsz, &ex);
    if (st != 161001) { printf("FAIL NULL blockTables gave %d\n", st); fails++; }
    for (int k = 0; k < 6; k++) { aclDestroyTensor(t[k]); aclrtFree(d[k]); }
    return fails;
}

static int v2(aclrtStream stream)
{
    int64_t flat[16], tables[8000], idx[8];
    for (int i = 0; i < 16; i++) flat[i] = i % 8;
    for (int i = 0; i < 8000; i++) tables[i] = 7;
    for (int i = 0; i < 8; i++) idx[i] = i;
    int64_t s16[1] = {16}, s82[2] = {8, 2}, s8k[2] = {8, 1000}, s81[2] = {8, 1}, s8[1] = {8};
    void *d[8];
    aclTensor *t[8];
    t[0] = mk(s16, 1, ACL_INT64, flat, &d[0]);
    t[1] = mk(s82, 2, ACL_INT64, flat, &d[1]);
    for (int k = 2; k < 5; k++) t[k] = mk(s16, 1, ACL_INT64, flat, &d[k]);
    t[5] = mk(s8k, 2, ACL_INT64, tables, &d[5]);
    t[6] = mk(s81, 2, ACL_INT64, idx, &d[6]);
    t[7] = mk(s8, 1, ACL_INT64, idx, &d[7]);
    uint64_t wsz = 0;
    aclOpExecutor *ex = NULL;
    int fails = 0;
    aclnnStatus st =
        aclnnAdvanceStepV2GetWorkspaceSize(t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7], 8, 8, 8, &wsz, &ex);
    if (st != 0) { printf("FAIL V2 phase 1: %d %s\n", st, aclGetRecentErrMsg()); return 1; }
    fails += run(aclnnAdvanceStepV2, wsz, ex, stream);
    int64_t tokens[16], pos[16], lens[16], slots[16];
    for (int j = 0; j < 16; j++) {
        int i = j / 2;
        /* No sampled row holds -1, so each row's last token leads; then the speculative one. */
        tokens[j] = j % 2 == 0 ? (2 * i + 1) % 8 : i;
        pos[j] = j % 8 + i + 1; /* + acceptedNum[i] + 1 */
        lens[j] = pos[j] + 1;
        slots[j] = 7 * 8 + pos[j] % 8;
    }
    fails += check("V2 inputTokens", d[0], tokens, 16) + check("V2 inputPositions", d[2], pos, 16) +
             check("V2 seqLens", d[3], lens, 16) + check("V2 slotMapping", d[4], slots, 16);
    /* A NULL specToken; an INT32 acceptedNum. */
    st = aclnnAdvanceStepV2GetWorkspaceSize(t[0], t[1], t[2], t[3], t[4], t[5], NULL, t[7], 8, 8, 8, &wsz, &ex);
    if (st != 161001) { printf("FAIL NULL specToken gave %d\n", st); fails++; }
    void *d32;
    aclTensor *a32 = mk(s8, 1, ACL_INT32, idx, &d32);
    st = aclnnAdvanceStepV2GetWorkspaceSize(t[0], t[1], t[2], t[3], t[4], t[5], t[6], a32, 8, 8, 8, &wsz, &ex);
    if (st != 161002) { printf("FAIL INT32 acceptedNum gave %d\n", st); fails++; }
    aclDestroyTensor(a32);
    aclrtFree(d32);
    for (int k = 0; k < 8; k++) { aclDestroyTensor(t[k]); aclrtFree(d[k]); }
    return fails;
}

int main(void)
{
    aclInit(NULL);
    aclrtSetDevice(0);
    aclrtStream stream;
    aclrtCreateStream(&stream);
    int fails = v1(stream) + v2(stream);
    aclrtDestroyStream(stream);
    aclrtResetDevice(0);
    aclFinalize();
    if (fails) return 1;
    printf("test_advance_step: ok\n");
    return 0;
}
