/*
 * aclnnCast + aclnnInplaceCopy from C, in the style of a CANN operator sample: convert a
 * 4x3 double matrix to float16, then copy it into a non-contiguous window of a larger
 * 10x10 float32 buffer — the view shape (4,3), strides (20,2), offset 22 — leaving every
 * other element of the buffer as it was.
 *
 * Build (see capi-tests/CMakeLists.txt, or by hand after `cargo build --release`):
 *   cc -std=c11 cast_copy.c -I include -L target/release -Wl,-rpath,target/release -lopapi -lascendcl -lnnopbase
 * Prints the buffer; exits 0 only if every element is right.
 */
#include <stdint.h>
#include <stdio.h>

#include "acl/acl.h"
#include "aclnnop/aclnn_cast.h"
#include "aclnnop/aclnn_copy.h"

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

/* Runs phase 2 with a workspace of the size phase 1 asked for, then synchronizes. */
static int RunPhase2(aclnnStatus (*phase2)(void *, uint64_t, aclOpExecutor *, aclrtStream), uint64_t workspaceSize,
                     aclOpExecutor *executor, aclrtStream stream)
{
    void *workspace = NULL;
    if (workspaceSize > 0) {
        CHECK_RET(aclrtMalloc(&workspace, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS, return 1);
    }
    aclnnStatus ret = phase2(workspace, workspaceSize, executor, stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("phase 2 failed: %d %s\n", ret, aclGetRecentErrMsg()); return 1);
    CHECK_RET(aclrtSynchronizeStream(stream) == ACL_SUCCESS, return 1);
    if (workspace != NULL) aclrtFree(workspace);
    return 0;
}

int main(void)
{
    aclrtStream stream = NULL;
    CHECK_RET(aclInit(NULL) == ACL_SUCCESS, return 1);
    CHECK_RET(aclrtSetDevice(0) == ACL_SUCCESS, return 1);
    CHECK_RET(aclrtCreateStream(&stream) == ACL_SUCCESS, return 1);

    /* 1. src: a 4x3 double matrix; half: its float16 conversion. */
    const int64_t shape[2] = {4, 3};
    double srcHost[12];
    for (int i = 0; i < 12; i++) srcHost[i] = 0.5 * i + 0.25;
    void *srcDev = NULL, *halfDev = NULL, *bufDev = NULL;
    CHECK_RET(aclrtMalloc(&srcDev, sizeof srcHost, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS, return 1);
    CHECK_RET(aclrtMalloc(&halfDev, 12 * 2, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS, return 1);
    CHECK_RET(aclrtMemcpy(srcDev, sizeof srcHost, srcHost, sizeof srcHost, ACL_MEMCPY_HOST_TO_DEVICE) == ACL_SUCCESS,
              return 1);
    aclTensor *src = aclCreateTensor(shape, 2, ACL_DOUBLE, NULL, 0, ACL_FORMAT_ND, shape, 2, srcDev);
    aclTensor *half = aclCreateTensor(shape, 2, ACL_FLOAT16, NULL, 0, ACL_FORMAT_ND, shape, 2, halfDev);
    CHECK_RET(src != NULL && half != NULL, LOG_PRINT("aclCreateTensor: %s\n", aclGetRecentErrMsg()); return 1);

    uint64_t workspaceSize = 0;
    aclOpExecutor *executor = NULL;
    aclnnStatus ret = aclnnCastGetWorkspaceSize(src, ACL_FLOAT16, half, &workspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnCastGetWorkspaceSize: %d %s\n", ret, aclGetRecentErrMsg()); return 1);
    CHECK_RET(RunPhase2(aclnnCast, workspaceSize, executor, stream) == 0, return 1);

    /* 2. buf: a 10x10 float buffer filled with -1; window: its (4,3) view, strides (20,2), offset 22. */
    float bufHost[100];
    for (int i = 0; i < 100; i++) bufHost[i] = -1.0f;
    CHECK_RET(aclrtMalloc(&bufDev, sizeof bufHost, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS, return 1);
    CHECK_RET(aclrtMemcpy(bufDev, sizeof bufHost, bufHost, sizeof bufHost, ACL_MEMCPY_HOST_TO_DEVICE) == ACL_SUCCESS,
              return 1);
    const int64_t storage[2] = {10, 10};
    const int64_t strides[2] = {20, 2};
    aclTensor *window = aclCreateTensor(shape, 2, ACL_FLOAT, strides, 22, ACL_FORMAT_ND, storage, 2, bufDev);
    CHECK_RET(window != NULL, LOG_PRINT("aclCreateTensor: %s\n", aclGetRecentErrMsg()); return 1);

    ret = aclnnInplaceCopyGetWorkspaceSize(window, half, &workspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnInplaceCopyGetWorkspaceSize: %d %s\n", ret, aclGetRecentErrMsg());
              return 1);
    CHECK_RET(RunPhase2(aclnnInplaceCopy, workspaceSize, executor, stream) == 0, return 1);

    CHECK_RET(aclrtMemcpy(bufHost, sizeof bufHost, bufDev, sizeof bufHost, ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS,
              return 1);
    int wrong = 0;
    for (int r = 0; r < 10; r++) {
        for (int c = 0; c < 10; c++) {
            int idx = r * 10 + c;
            float expect = -1.0f;
            int rel = idx - 22;
            if (rel >= 0 && rel % 20 <= 4 && rel % 2 == 0 && rel / 20 < 4) {
                expect = (float)srcHost[(rel / 20) * 3 + (rel % 20) / 2]; /* exact in f16 */
            }
            if (bufHost[idx] != expect) wrong++;
            LOG_PRINT("%6.2f%s", bufHost[idx], c == 9 ? "\n" : " ");
        }
    }
    LOG_PRINT("%s\n", wrong == 0 ? "all 100 elements right" : "WRONG");

    aclDestroyTensor(src);
    aclDestroyTensor(half);
    aclDestroyTensor(window);
    aclrtFree(srcDev);
    aclrtFree(halfDev);
    aclrtFree(bufDev);
    aclrtDestroyStream(stream);
    aclrtResetDevice(0);
    aclFinalize();
    return wrong == 0 ? 0 : 1;
}
