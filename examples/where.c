/*
 * aclnnSWhere from C, in the style of a CANN operator sample: out = condition ? self : other.
 *
 *   1. a condition row broadcast over the rows:  condition(bool, 3) ? self(float, 2x3) : other(float, 2x3)
 *   2. a u8 condition column, self a row, other a 0-d tensor, mixed dtypes:
 *      condition(uint8, 2x1) ? self(int32, 3) : other(float, 0-d)  -> out(float, 2x3)
 *
 * Build (see capi-tests/CMakeLists.txt, or by hand after `cargo build --release`):
 *   cc -std=c11 where.c -I include -L target/release -Wl,-rpath,target/release -lopapi -lascendcl -lnnopbase
 * Prints the inputs and results; exits 0 only if every result is right.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "acl/acl.h"
#include "aclnnop/aclnn_s_where.h"

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
    /* strides NULL: contiguous; dimNum 0: a 0-d tensor */
    *tensor = aclCreateTensor(shape, dimNum, dataType, NULL, 0, ACL_FORMAT_ND, shape, dimNum, *deviceAddr);
    CHECK_RET(*tensor != NULL, LOG_PRINT("aclCreateTensor failed: %s\n", aclGetRecentErrMsg()); return 1);
    return 0;
}

/* Both phases of aclnnSWhere, then waits for the stream. */
static int RunSWhere(const aclTensor *condition, const aclTensor *self, const aclTensor *other, aclTensor *out,
                     aclrtStream stream)
{
    uint64_t workspaceSize = 0;
    aclOpExecutor *executor = NULL;
    aclnnStatus ret = aclnnSWhereGetWorkspaceSize(condition, self, other, out, &workspaceSize, &executor);
    CHECK_RET(ret == ACLNN_SUCCESS,
              LOG_PRINT("aclnnSWhereGetWorkspaceSize failed. ERROR: %d (%s)\n", ret, aclGetRecentErrMsg());
              return ret);
    void *workspaceAddr = NULL;
    if (workspaceSize > 0) {
        ret = aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
        CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret); return ret);
    }
    ret = aclnnSWhere(workspaceAddr, workspaceSize, executor, stream);
    CHECK_RET(ret == ACLNN_SUCCESS, LOG_PRINT("aclnnSWhere failed. ERROR: %d (%s)\n", ret, aclGetRecentErrMsg());
              return ret);
    ret = aclrtSynchronizeStream(stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSynchronizeStream failed. ERROR: %d\n", ret); return ret);
    if (workspaceSize > 0) aclrtFree(workspaceAddr);
    return 0;
}

static void PrintFloats(const char *name, const float *v, int64_t rows, int64_t cols)
{
    LOG_PRINT("  %s =", name);
    for (int64_t r = 0; r < rows; r++) {
        LOG_PRINT(" [");
        for (int64_t c = 0; c < cols; c++) LOG_PRINT("%s%g", c ? ", " : "", v[r * cols + c]);
        LOG_PRINT("]");
    }
    LOG_PRINT("\n");
}

static void PrintBytes(const char *name, const uint8_t *v, int64_t rows, int64_t cols)
{
    LOG_PRINT("  %s =", name);
    for (int64_t r = 0; r < rows; r++) {
        LOG_PRINT(" [");
        for (int64_t c = 0; c < cols; c++) LOG_PRINT("%s%u", c ? ", " : "", (unsigned)v[r * cols + c]);
        LOG_PRINT("]");
    }
    LOG_PRINT("\n");
}

static int CheckResults(const float *got, const float *expect, int64_t n)
{
    int wrong = 0;
    for (int64_t i = 0; i < n; i++) {
        if (got[i] != expect[i]) {
            LOG_PRINT("  result[%ld] = %g, expected %g\n", (long)i, got[i], expect[i]);
            wrong++;
        }
    }
    LOG_PRINT("  %s\n", wrong ? "WRONG" : "ok");
    return wrong;
}

/* 1. condition (3,) broadcast over the rows of (2,3) self and other. */
static int ConditionRowExample(aclrtStream stream)
{
    LOG_PRINT("condition row: bool (3,) ? float (2,3) : float (2,3) -> float (2,3)\n");
    int64_t condShape[] = {3}, shape[] = {2, 3};
    uint8_t condHost[] = {1, 0, 1}; /* ACL_BOOL: one byte per element */
    float selfHost[] = {1, 2, 3, 4, 5, 6};
    float otherHost[] = {-1, -2, -3, -4, -5, -6};
    float outHost[6] = {0};
    void *condDev = NULL, *selfDev = NULL, *otherDev = NULL, *outDev = NULL;
    aclTensor *cond = NULL, *self = NULL, *other = NULL, *out = NULL;
    int ret = CreateAclTensor(condHost, sizeof(condHost), condShape, 1, ACL_BOOL, &condDev, &cond);
    CHECK_RET(ret == 0, return 1);
    ret = CreateAclTensor(selfHost, sizeof(selfHost), shape, 2, ACL_FLOAT, &selfDev, &self);
    CHECK_RET(ret == 0, return 1);
    ret = CreateAclTensor(otherHost, sizeof(otherHost), shape, 2, ACL_FLOAT, &otherDev, &other);
    CHECK_RET(ret == 0, return 1);
    ret = CreateAclTensor(outHost, sizeof(outHost), shape, 2, ACL_FLOAT, &outDev, &out);
    CHECK_RET(ret == 0, return 1);

    ret = RunSWhere(cond, self, other, out, stream);
    CHECK_RET(ret == 0, return 1);
    ret = aclrtMemcpy(outHost, sizeof(outHost), outDev, sizeof(outHost), ACL_MEMCPY_DEVICE_TO_HOST);
    CHECK_RET(ret == ACL_SUCCESS, return 1);

    PrintBytes("condition", condHost, 1, 3);
    PrintFloats("self     ", selfHost, 2, 3);
    PrintFloats("other    ", otherHost, 2, 3);
    PrintFloats("out      ", outHost, 2, 3);
    float expect[6];
    for (int i = 0; i < 6; i++) expect[i] = condHost[i % 3] ? selfHost[i] : otherHost[i];
    int wrong = CheckResults(outHost, expect, 6);

    aclDestroyTensor(cond);
    aclDestroyTensor(self);
    aclDestroyTensor(other);
    aclDestroyTensor(out);
    aclrtFree(condDev);
    aclrtFree(selfDev);
    aclrtFree(otherDev);
    aclrtFree(outDev);
    return wrong;
}

/* 2. u8 condition column (2,1), int32 self row (3,), float 0-d other: promoted to float. */
static int ConditionColumnExample(aclrtStream stream)
{
    LOG_PRINT("condition column: uint8 (2,1) ? int32 (3,) : float () -> float (2,3)\n");
    int64_t condShape[] = {2, 1}, selfShape[] = {3}, outShape[] = {2, 3};
    uint8_t condHost[] = {7, 0}; /* any non-zero byte is true */
    int32_t selfHost[] = {10, 20, 30};
    float otherHost[] = {-0.5f};
    float outHost[6] = {0};
    void *condDev = NULL, *selfDev = NULL, *otherDev = NULL, *outDev = NULL;
    aclTensor *cond = NULL, *self = NULL, *other = NULL, *out = NULL;
    int ret = CreateAclTensor(condHost, sizeof(condHost), condShape, 2, ACL_UINT8, &condDev, &cond);
    CHECK_RET(ret == 0, return 1);
    ret = CreateAclTensor(selfHost, sizeof(selfHost), selfShape, 1, ACL_INT32, &selfDev, &self);
    CHECK_RET(ret == 0, return 1);
    ret = CreateAclTensor(otherHost, sizeof(otherHost), NULL, 0, ACL_FLOAT, &otherDev, &other);
    CHECK_RET(ret == 0, return 1);
    ret = CreateAclTensor(outHost, sizeof(outHost), outShape, 2, ACL_FLOAT, &outDev, &out);
    CHECK_RET(ret == 0, return 1);

    ret = RunSWhere(cond, self, other, out, stream);
    CHECK_RET(ret == 0, return 1);
    ret = aclrtMemcpy(outHost, sizeof(outHost), outDev, sizeof(outHost), ACL_MEMCPY_DEVICE_TO_HOST);
    CHECK_RET(ret == ACL_SUCCESS, return 1);

    float selfAsFloat[3];
    for (int i = 0; i < 3; i++) selfAsFloat[i] = (float)selfHost[i];
    PrintBytes("condition", condHost, 2, 1);
    PrintFloats("self     ", selfAsFloat, 1, 3);
    PrintFloats("other    ", otherHost, 1, 1);
    PrintFloats("out      ", outHost, 2, 3);
    float expect[6];
    for (int i = 0; i < 6; i++) expect[i] = condHost[i / 3] ? (float)selfHost[i % 3] : otherHost[0];
    int wrong = CheckResults(outHost, expect, 6);

    aclDestroyTensor(cond);
    aclDestroyTensor(self);
    aclDestroyTensor(other);
    aclDestroyTensor(out);
    aclrtFree(condDev);
    aclrtFree(selfDev);
    aclrtFree(otherDev);
    aclrtFree(outDev);
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

    int wrong = 0;
    wrong += ConditionRowExample(stream);
    wrong += ConditionColumnExample(stream);

    aclrtDestroyStream(stream);
    aclrtResetDevice(deviceId);
    aclFinalize();
    LOG_PRINT("%s\n", wrong ? "FAILED" : "all results right");
    return wrong ? 1 : 0;
}
