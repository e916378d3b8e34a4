/*
 * aclnnReduceSum and aclnnSoftmax from C, in the style of a CANN operator sample.
 *
 *   1. ReduceSum: out(4) = the sum of self(3,4) over dims {0}, keepDims = false
 *   2. Softmax:   out(2,4) = softmax of self(2,4) over the last dim (dim = -1); the second
 *                 row holds large values (+-1e4), which a stable softmax handles
 *
 * Build (see capi-tests/CMakeLists.txt, or by hand after `cargo build --release`):
 *   cc -std=c11 reduce_softmax.c -I include -L target/release -Wl,-rpath,target/release \
 *      -lopapi -lascendcl -lnnopbase -lm
 * Prints the inputs and results; exits 0 only if every result is right.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "acl/acl.h"
#include "aclnnop/aclnn_reduce_sum.h"
#include "aclnnop/aclnn_softmax.h"

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

static int64_t ShapeSize(const int64_t *shape, uint64_t n)
{
    int64_t size = 1;
    for (uint64_t i = 0; i < n; i++) size *= shape[i];
    return size;
}

/* Copies host data to new device memory and describes it with a contiguous ND tensor. */
static int CreateAclTensor(const void *hostData, size_t bytes, const int64_t *shape, uint64_t dimNum,
                           aclDataType dataType, void **deviceAddr, aclTensor **tensor)
{
    aclError ret = aclrtMalloc(deviceAddr, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtMalloc failed. ERROR: %d\n", ret); return ret);
    ret = aclrtMemcpy(*deviceAddr, bytes, hostData, bytes, ACL_MEMCPY_HOST_TO_DEVICE);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtMemcpy failed. ERROR: %d\n", ret); return ret);
    *tensor = aclCreateTensor(shape, dimNum, dataType, NULL, 0, ACL_FORMAT_ND, shape, dimNum, *deviceAddr);
    CHECK_RET(*tensor != NULL, LOG_PRINT("aclCreateTensor failed: %s\n", aclGetRecentErrMsg()); return 1);
    return 0;
}

/* Allocates the workspace phase 1 asked for, runs phase 2, waits for the stream. */
typedef aclnnStatus (*Phase2)(void *, uint64_t, aclOpExecutor *, aclrtStream);
static int RunPhase2(const char *name, Phase2 fn, uint64_t workspaceSize, aclOpExecutor *executor,
                     aclrtStream stream)
{
    void *workspaceAddr = NULL;
    if (workspaceSize > 0) {
        aclError r = aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
        CHECK_RET(r == ACL_SUCCESS, LOG_PRINT("allocate workspace failed. ERROR: %d\n", r); return r);
    }
    aclnnStatus ret = fn(workspaceAddr, workspaceSize, executor, stream);
    CHECK_RET(ret == ACLNN_SUCCESS, LOG_PRINT("%s failed. ERROR: %d (%s)\n", name, ret, aclGetRecentErrMsg());
              return ret);
    aclError r = aclrtSynchronizeStream(stream);
    CHECK_RET(r == ACL_SUCCESS, LOG_PRINT("aclrtSynchronizeStream failed. ERROR: %d\n", r); return r);
    if (workspaceSize > 0) aclrtFree(workspaceAddr);
    return 0;
}

static void PrintMatrix(const char *name, const float *v, int64_t rows, int64_t cols)
{
    LOG_PRINT("  %s =", name);
    for (int64_t r = 0; r < rows; r++) {
        LOG_PRINT(" [");
        for (int64_t c = 0; c < cols; c++) LOG_PRINT("%s%g", c ? ", " : "", v[r * cols + c]);
        LOG_PRINT("]");
    }
    LOG_PRINT("\n");
}

static int CheckResults(const float *got, const double *expect, int64_t n, double tol)
{
    int wrong = 0;
    for (int64_t i = 0; i < n; i++) {
        if (!isfinite(got[i]) || fabs(got[i] - expect[i]) > tol * (fabs(expect[i]) + 1.0)) {
            LOG_PRINT("  result[%ld] = %.9g, expected %.9g\n", (long)i, got[i], expect[i]);
            wrong++;
        }
    }
    LOG_PRINT("  %s\n", wrong ? "WRONG" : "ok");
    return wrong;
}

/* 1. out(4) = ReduceSum(self(3,4), dims = {0}, keepDims = false) */
static int ReduceSumExample(aclrtStream stream)
{
    LOG_PRINT("ReduceSum: self(3,4) over dims {0}, keepDims false -> out(4)\n");
    int64_t selfShape[] = {3, 4}, outShape[] = {4};
    float selfHost[] = {1, 2, 3, 4, 10, 20, 30, 40, 0.5f, -0.25f, 100, -4};
    float outHost[4] = {0};
    void *selfDev = NULL, *outDev = NULL;
    aclTensor *self = NULL, *out = NULL;
    int ret = CreateAclTensor(selfHost, sizeof(selfHost), selfShape, 2, ACL_FLOAT, &selfDev, &self);
    CHECK_RET(ret == 0, return ret);
    ret = CreateAclTensor(outHost, sizeof(outHost), outShape, 1, ACL_FLOAT, &outDev, &out);
    CHECK_RET(ret == 0, return ret);
    int64_t dimsValue[] = {0};
    aclIntArray *dims = aclCreateIntArray(dimsValue, 1);
    CHECK_RET(dims != NULL, return 1);

    uint64_t workspaceSize = 0;
    aclOpExecutor *executor = NULL;
    aclnnStatus st = aclnnReduceSumGetWorkspaceSize(self, dims, false, ACL_FLOAT, out, &workspaceSize, &executor);
    CHECK_RET(st == ACLNN_SUCCESS,
              LOG_PRINT("aclnnReduceSumGetWorkspaceSize failed. ERROR: %d (%s)\n", st, aclGetRecentErrMsg());
              return st);
    ret = RunPhase2("aclnnReduceSum", aclnnReduceSum, workspaceSize, executor, stream);
    CHECK_RET(ret == 0, return ret);
    ret = aclrtMemcpy(outHost, sizeof(outHost), outDev, sizeof(outHost), ACL_MEMCPY_DEVICE_TO_HOST);
    CHECK_RET(ret == ACL_SUCCESS, return ret);

    PrintMatrix("self", selfHost, 3, 4);
    PrintMatrix("out ", outHost, 1, 4);
    double expect[4];
    for (int c = 0; c < 4; c++) expect[c] = (double)selfHost[c] + selfHost[4 + c] + selfHost[8 + c];
    int wrong = CheckResults(outHost, expect, ShapeSize(outShape, 1), 1e-7);

    aclDestroyIntArray(dims);
    aclDestroyTensor(self);
    aclDestroyTensor(out);
    aclrtFree(selfDev);
    aclrtFree(outDev);
    return wrong;
}

/* 2. out(2,4) = Softmax(self(2,4), dim = -1) */
static int SoftmaxExample(aclrtStream stream)
{
    LOG_PRINT("Softmax: self(2,4) over the last dim -> out(2,4)\n");
    int64_t shape[] = {2, 4};
    float selfHost[] = {1, 2, 3, 4, 1e4f, -1e4f, 1e4f, 0};
    float outHost[8] = {0};
    void *selfDev = NULL, *outDev = NULL;
    aclTensor *self = NULL, *out = NULL;
    int ret = CreateAclTensor(selfHost, sizeof(selfHost), shape, 2, ACL_FLOAT, &selfDev, &self);
    CHECK_RET(ret == 0, return ret);
    ret = CreateAclTensor(outHost, sizeof(outHost), shape, 2, ACL_FLOAT, &outDev, &out);
    CHECK_RET(ret == 0, return ret);

    uint64_t workspaceSize = 0;
    aclOpExecutor *executor = NULL;
    aclnnStatus st = aclnnSoftmaxGetWorkspaceSize(self, -1, out, &workspaceSize, &executor);
    CHECK_RET(st == ACLNN_SUCCESS,
              LOG_PRINT("aclnnSoftmaxGetWorkspaceSize failed. ERROR: %d (%s)\n", st, aclGetRecentErrMsg());
              return st);
    ret = RunPhase2("aclnnSoftmax", aclnnSoftmax, workspaceSize, executor, stream);
    CHECK_RET(ret == 0, return ret);
    ret = aclrtMemcpy(outHost, sizeof(outHost), outDev, sizeof(outHost), ACL_MEMCPY_DEVICE_TO_HOST);
    CHECK_RET(ret == ACL_SUCCESS, return ret);

    PrintMatrix("self", selfHost, 2, 4);
    PrintMatrix("out ", outHost, 2, 4);
    /* exp(x - rowmax) / sum, in double */
    double expect[8];
    for (int r = 0; r < 2; r++) {
        double m = selfHost[4 * r], s = 0;
        for (int c = 1; c < 4; c++) m = fmax(m, selfHost[4 * r + c]);
        for (int c = 0; c < 4; c++) s += exp(selfHost[4 * r + c] - m);
        for (int c = 0; c < 4; c++) expect[4 * r + c] = exp(selfHost[4 * r + c] - m) / s;
    }
    int wrong = CheckResults(outHost, expect, ShapeSize(shape, 2), 1e-6);
    for (int r = 0; r < 2; r++) {
        double s = 0;
        for (int c = 0; c < 4; c++) s += outHost[4 * r + c];
        LOG_PRINT("  row %d sums to %.9g\n", r, s);
        if (fabs(s - 1.0) > 1e-6) wrong++;
    }

    aclDestroyTensor(self);
    aclDestroyTensor(out);
    aclrtFree(selfDev);
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
    wrong += ReduceSumExample(stream);
    wrong += SoftmaxExample(stream);

    aclrtDestroyStream(stream);
    aclrtResetDevice(deviceId);
    aclFinalize();
    LOG_PRINT("%s\n", wrong ? "FAILED" : "all results right");
    return wrong ? 1 : 0;
}
