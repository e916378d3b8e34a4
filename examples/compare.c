/*
 * aclnnGtTensor and aclnnEqTensor from C, in the style of a CANN operator sample.
 *
 *   out(bool, 2x3) = self(double, 2x3) > other(double, 2x3)
 *   out(bool, 2x3) = self(double, 2x3) == other(double, 3)     (other broadcast over the rows)
 *
 * The inputs are doubles that differ by less than a float can tell apart (1 and 1 + 1e-12,
 * 0.1 and 0.1f, 2^24 + 1 and 2^24): the comparison happens in double, so they compare unequal.
 * A NaN compares false with everything.
 *
 * Build (see capi-tests/CMakeLists.txt, or by hand after `cargo build --release`):
 *   cc -std=c11 compare.c -I include -L target/release -Wl,-rpath,target/release -lopapi -lascendcl -lnnopbase
 * Prints the inputs and results; exits 0 only if every result is right.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "acl/acl.h"
#include "aclnnop/aclnn_eq_tensor.h"
#include "aclnnop/aclnn_gt_tensor.h"

#define CHECK_RET(cond, return_expr) \
    do {                             \
        if (!(cond)) {               \
            return_expr;             \
        }                            \
    } while (0)

#define LOG_PRINT(...)       \
    do {                     \
        printf(__VA_ARGS__); \
    } while (0)

/* Copies `bytes` of host data to new device memory and describes it as a contiguous tensor. */
static int CreateAclTensor(const void *hostData, size_t bytes, const int64_t *shape, uint64_t dimNum,
                           aclDataType dataType, void **deviceAddr, aclTensor **tensor)
{
    aclError ret = aclrtMalloc(deviceAddr, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtMalloc failed. ERROR: %d\n", ret); return ret);
    ret = aclrtMemcpy(*deviceAddr, bytes, hostData, bytes, ACL_MEMCPY_HOST_TO_DEVICE);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtMemcpy failed. ERROR: %d\n", ret); return ret);
    /* strides NULL: contiguous */
    *tensor = aclCreateTensor(shape, dimNum, dataType, NULL, 0, ACL_FORMAT_ND, shape, dimNum, *deviceAddr);
    CHECK_RET(*tensor != NULL, LOG_PRINT("aclCreateTensor failed: %s\n", aclGetRecentErrMsg()); return 1);
    return 0;
}

typedef aclnnStatus (*Phase1)(const aclTensor *self, const aclTensor *other, aclTensor *out, uint64_t *workspaceSize,
                              aclOpExecutor **executor);
typedef aclnnStatus (*Phase2)(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

/* Both phases of a comparison, then waits for the stream. */
static int RunCompare(const char *name, Phase1 getWorkspaceSize, Phase2 run, const aclTensor *self,
                      const aclTensor *other, aclTensor *out, aclrtStream stream)
{
    uint64_t workspaceSize = 0;
    aclOpExecutor *executor = NULL;
    aclnnStatus ret = getWorkspaceSize(self, other, out, &workspaceSize, &executor);
    CHECK_RET(ret == ACLNN_SUCCESS,
              LOG_PRINT("%sGetWorkspaceSize failed. ERROR: %d (%s)\n", name, ret, aclGetRecentErrMsg());
              return ret);
    void *workspaceAddr = NULL;
    if (workspaceSize > 0) {
        ret = aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
        CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret); return ret);
    }
    ret = run(workspaceAddr, workspaceSize, executor, stream);
    CHECK_RET(ret == ACLNN_SUCCESS, LOG_PRINT("%s failed. ERROR: %d (%s)\n", name, ret, aclGetRecentErrMsg());
              return ret);
    ret = aclrtSynchronizeStream(stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSynchronizeStream failed. ERROR: %d\n", ret); return ret);
    if (workspaceSize > 0) aclrtFree(workspaceAddr);
    return 0;
}

static void PrintDoubles(const char *name, const double *v, int64_t rows, int64_t cols)
{
    LOG_PRINT("  %s =", name);
    for (int64_t r = 0; r < rows; r++) {
        LOG_PRINT(" [");
        for (int64_t c = 0; c < cols; c++) LOG_PRINT("%s%.17g", c ? ", " : "", v[r * cols + c]);
        LOG_PRINT("]");
    }
    LOG_PRINT("\n");
}

static void PrintBools(const char *name, const uint8_t *v, int64_t rows, int64_t cols)
{
    LOG_PRINT("  %s =", name);
    for (int64_t r = 0; r < rows; r++) {
        LOG_PRINT(" [");
        for (int64_t c = 0; c < cols; c++) LOG_PRINT("%s%s", c ? ", " : "", v[r * cols + c] ? "true" : "false");
        LOG_PRINT("]");
    }
    LOG_PRINT("\n");
}

static int CheckBools(const uint8_t *got, const uint8_t *expect, int64_t n)
{
    int wrong = 0;
    for (int64_t i = 0; i < n; i++) {
        if (got[i] != expect[i]) {
            LOG_PRINT("  result[%ld] = %d, expected %d\n", (long)i, got[i], expect[i]);
            wrong++;
        }
    }
    LOG_PRINT("  %s\n", wrong ? "WRONG" : "ok");
    return wrong;
}

int main(void)
{
    int32_t deviceId = 0;
    aclrtStream stream = NULL;
    aclError ret = aclInit(NULL);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclInit failed. ERROR: %d\n", ret); return 1);
    ret = aclrtSetDevice(deviceId);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSetDevice failed. ERROR: %d\n", ret); return 1);
    ret = aclrtCreateStream(&stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtCreateStream failed. ERROR: %d\n", ret); return 1);

    int64_t shape[] = {2, 3}, rowShape[] = {3};
    double selfHost[] = {1.0 + 1e-12, 1.0, 0.1, 16777217.0, -2.5, NAN};
    double otherHost[] = {1.0, 1.0 + 1e-12, (double)0.1f, 16777216.0, -2.5, 0.0};
    double rowHost[] = {1.0 + 1e-12, 1.0, 0.1};
    uint8_t outHost[6];
    memset(outHost, 0xFF, sizeof(outHost));
    void *selfDev = NULL, *otherDev = NULL, *rowDev = NULL, *outDev = NULL;
    aclTensor *self = NULL, *other = NULL, *row = NULL, *out = NULL;
    int r = CreateAclTensor(selfHost, sizeof(selfHost), shape, 2, ACL_DOUBLE, &selfDev, &self);
    CHECK_RET(r == 0, return 1);
    r = CreateAclTensor(otherHost, sizeof(otherHost), shape, 2, ACL_DOUBLE, &otherDev, &other);
    CHECK_RET(r == 0, return 1);
    r = CreateAclTensor(rowHost, sizeof(rowHost), rowShape, 1, ACL_DOUBLE, &rowDev, &row);
    CHECK_RET(r == 0, return 1);
    r = CreateAclTensor(outHost, sizeof(outHost), shape, 2, ACL_BOOL, &outDev, &out);
    CHECK_RET(r == 0, return 1);

    int wrong = 0;
    uint8_t expect[6];

    /* 1. out = self > other, all (2,3) */
    LOG_PRINT("aclnnGtTensor: double (2,3) > double (2,3) -> bool (2,3)\n");
    r = RunCompare("aclnnGtTensor", aclnnGtTensorGetWorkspaceSize, aclnnGtTensor, self, other, out, stream);
    CHECK_RET(r == 0, return 1);
    ret = aclrtMemcpy(outHost, sizeof(outHost), outDev, sizeof(outHost), ACL_MEMCPY_DEVICE_TO_HOST);
    CHECK_RET(ret == ACL_SUCCESS, return 1);
    PrintDoubles("self ", selfHost, 2, 3);
    PrintDoubles("other", otherHost, 2, 3);
    PrintBools("out  ", outHost, 2, 3);
    for (int i = 0; i < 6; i++) expect[i] = selfHost[i] > otherHost[i];
    wrong += CheckBools(outHost, expect, 6);

    /* 2. out = self == row, the (3,) row broadcast over both rows of self */
    LOG_PRINT("aclnnEqTensor: double (2,3) == double (3,) -> bool (2,3)\n");
    r = RunCompare("aclnnEqTensor", aclnnEqTensorGetWorkspaceSize, aclnnEqTensor, self, row, out, stream);
    CHECK_RET(r == 0, return 1);
    ret = aclrtMemcpy(outHost, sizeof(outHost), outDev, sizeof(outHost), ACL_MEMCPY_DEVICE_TO_HOST);
    CHECK_RET(ret == ACL_SUCCESS, return 1);
    PrintDoubles("self ", selfHost, 2, 3);
    PrintDoubles("other", rowHost, 1, 3);
    PrintBools("out  ", outHost, 2, 3);
    for (int i = 0; i < 6; i++) expect[i] = selfHost[i] == rowHost[i % 3];
    wrong += CheckBools(outHost, expect, 6);

    aclDestroyTensor(self);
    aclDestroyTensor(other);
    aclDestroyTensor(row);
    aclDestroyTensor(out);
    aclrtFree(selfDev);
    aclrtFree(otherDev);
    aclrtFree(rowDev);
    aclrtFree(outDev);
    aclrtDestroyStream(stream);
    aclrtResetDevice(deviceId);
    aclFinalize();
    LOG_PRINT("%s\n", wrong ? "FAILED" : "all results right");
    return wrong ? 1 : 0;
}
