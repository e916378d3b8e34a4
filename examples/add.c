/*
 * aclnnAdd from C, in the style of a CANN operator sample.
 *
 *   1. broadcasting:        out(2,3) = self(2,3) + other(3,)
 *   2. a non-contiguous view: self is the transpose of a 3x2 buffer (strides (1,2)), alpha = 2
 *   3. mixed dtypes:        out(f32) = self(f16) + other(f32)
 *
 * Build (see capi-tests/CMakeLists.txt, or by hand after `cargo build --release`):
 *   cc -std=c11 add.c -I include -L target/release -Wl,-rpath,target/release -lopapi -lascendcl -lnnopbase
 * Prints the inputs and results; exits 0 only if every result is right.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "acl/acl.h"
#include "aclnnop/aclnn_add.h"

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

/*
 * Copies `bytes` of host data to new device memory and describes it with a tensor:
 * the view (shape, strides, offset) over a storage of `storageShape`.
 * strides == NULL means contiguous.
 */
static int CreateAclTensor(const void *hostData, size_t bytes, const int64_t *shape, uint64_t dimNum,
                           const int64_t *strides, int64_t offset, const int64_t *storageShape, uint64_t storageDimNum,
                           aclDataType dataType, void **deviceAddr, aclTensor **tensor)
{
    aclError ret = aclrtMalloc(deviceAddr, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtMalloc failed. ERROR: %d\n", ret); return ret);
    ret = aclrtMemcpy(*deviceAddr, bytes, hostData, bytes, ACL_MEMCPY_HOST_TO_DEVICE);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtMemcpy failed. ERROR: %d\n", ret); return ret);
    *tensor = aclCreateTensor(shape, dimNum, dataType, strides, offset, ACL_FORMAT_ND, storageShape, storageDimNum,
                              *deviceAddr);
    CHECK_RET(*tensor != NULL, LOG_PRINT("aclCreateTensor failed: %s\n", aclGetRecentErrMsg()); return 1);
    return 0;
}

/* Both phases of aclnnAdd, then waits for the stream. */
static int RunAdd(const aclTensor *self, const aclTensor *other, const aclScalar *alpha, aclTensor *out,
                  aclrtStream stream)
{
    uint64_t workspaceSize = 0;
    aclOpExecutor *executor = NULL;
    aclnnStatus ret = aclnnAddGetWorkspaceSize(self, other, alpha, out, &workspaceSize, &executor);
    CHECK_RET(ret == ACLNN_SUCCESS,
              LOG_PRINT("aclnnAddGetWorkspaceSize failed. ERROR: %d (%s)\n", ret, aclGetRecentErrMsg());
              return ret);
    void *workspaceAddr = NULL;
    if (workspaceSize > 0) {
        ret = aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
        CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret); return ret);
    }
    ret = aclnnAdd(workspaceAddr, workspaceSize, executor, stream);
    CHECK_RET(ret == ACLNN_SUCCESS, LOG_PRINT("aclnnAdd failed. ERROR: %d (%s)\n", ret, aclGetRecentErrMsg());
              return ret);
    ret = aclrtSynchronizeStream(stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSynchronizeStream failed. ERROR: %d\n", ret); return ret);
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

static int CheckResults(const float *got, const float *expect, int64_t n)
{
    int wrong = 0;
    for (int64_t i = 0; i < n; i++) {
        if (fabsf(got[i] - expect[i]) > 1e-6f * (fabsf(expect[i]) + 1.0f)) {
            LOG_PRINT("  result[%ld] = %g, expected %g\n", (long)i, got[i], expect[i]);
            wrong++;
        }
    }
    LOG_PRINT("  %s\n", wrong ? "WRONG" : "ok");
    return wrong;
}

/* IEEE half from float, round to nearest even (normal range only, enough for this sample). */
static uint16_t FloatToHalf(float f)
{
    uint32_t x;
    memcpy(&x, &f, sizeof(x));
    uint32_t sign = (x >> 16) & 0x8000u;
    int32_t exp = (int32_t)((x >> 23) & 0xFF) - 127 + 15;
    uint32_t man = x & 0x7FFFFFu;
    if ((x & 0x7FFFFFFFu) == 0) return (uint16_t)sign;
    uint32_t h = ((uint32_t)exp << 10) | (man >> 13);
    uint32_t rem = man & 0x1FFFu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) h++;
    return (uint16_t)(sign | h);
}

static float HalfToFloat(uint16_t h)
{
    uint32_t sign = ((uint32_t)h & 0x8000u) << 16;
    uint32_t exp = ((uint32_t)h >> 10) & 0x1Fu;
    uint32_t man = (uint32_t)h & 0x3FFu;
    uint32_t x = exp == 0 && man == 0 ? sign : (sign | ((exp - 15 + 127) << 23) | (man << 13));
    float f;
    memcpy(&f, &x, sizeof(f));
    return f;
}

/* 1. out(2,3) = self(2,3) + other(3,) */
static int BroadcastExample(aclrtStream stream)
{
    LOG_PRINT("broadcast: (2,3) + (3,) -> (2,3)\n");
    int64_t selfShape[] = {2, 3}, otherShape[] = {3}, outShape[] = {2, 3};
    float selfHost[] = {0, 1, 2, 3, 4, 5};
    float otherHost[] = {10, 20, 30};
    float outHost[6] = {0};
    float alphaValue = 1.0f;
    void *selfDev = NULL, *otherDev = NULL, *outDev = NULL;
    aclTensor *self = NULL, *other = NULL, *out = NULL;
    int ret = CreateAclTensor(selfHost, sizeof(selfHost), selfShape, 2, NULL, 0, selfShape, 2, ACL_FLOAT, &selfDev,
                              &self);
    CHECK_RET(ret == 0, return ret);
    ret = CreateAclTensor(otherHost, sizeof(otherHost), otherShape, 1, NULL, 0, otherShape, 1, ACL_FLOAT, &otherDev,
                          &other);
    CHECK_RET(ret == 0, return ret);
    ret = CreateAclTensor(outHost, sizeof(outHost), outShape, 2, NULL, 0, outShape, 2, ACL_FLOAT, &outDev, &out);
    CHECK_RET(ret == 0, return ret);
    aclScalar *alpha = aclCreateScalar(&alphaValue, ACL_FLOAT);
    CHECK_RET(alpha != NULL, return 1);

    ret = RunAdd(self, other, alpha, out, stream);
    CHECK_RET(ret == 0, return ret);
    ret = aclrtMemcpy(outHost, sizeof(outHost), outDev, sizeof(outHost), ACL_MEMCPY_DEVICE_TO_HOST);
    CHECK_RET(ret == ACL_SUCCESS, return ret);

    PrintMatrix("self ", selfHost, 2, 3);
    PrintMatrix("other", otherHost, 1, 3);
    PrintMatrix("out  ", outHost, 2, 3);
    float expect[6];
    for (int i = 0; i < 6; i++) expect[i] = selfHost[i] + alphaValue * otherHost[i % 3];
    int wrong = CheckResults(outHost, expect, ShapeSize(outShape, 2));

    aclDestroyTensor(self);
    aclDestroyTensor(other);
    aclDestroyTensor(out);
    aclDestroyScalar(alpha);
    aclrtFree(selfDev);
    aclrtFree(otherDev);
    aclrtFree(outDev);
    return wrong;
}

/* 2. self is the transposed view of a 3x2 buffer: shape (2,3), strides (1,2). alpha = 2. */
static int TransposedViewExample(aclrtStream stream)
{
    LOG_PRINT("non-contiguous view: transpose(3x2 buffer) + (2,3), alpha = 2\n");
    int64_t storageShape[] = {3, 2};
    int64_t viewShape[] = {2, 3}, viewStrides[] = {1, 2};
    float bufferHost[] = {1, 2, 3, 4, 5, 6}; /* [[1,2],[3,4],[5,6]] */
    float otherHost[] = {0.5f, 0.5f, 0.5f, -1, -1, -1};
    float outHost[6] = {0};
    float alphaValue = 2.0f;
    void *selfDev = NULL, *otherDev = NULL, *outDev = NULL;
    aclTensor *self = NULL, *other = NULL, *out = NULL;
    int ret = CreateAclTensor(bufferHost, sizeof(bufferHost), viewShape, 2, viewStrides, 0, storageShape, 2, ACL_FLOAT,
                              &selfDev, &self);
    CHECK_RET(ret == 0, return ret);
    ret = CreateAclTensor(otherHost, sizeof(otherHost), viewShape, 2, NULL, 0, viewShape, 2, ACL_FLOAT, &otherDev,
                          &other);
    CHECK_RET(ret == 0, return ret);
    ret = CreateAclTensor(outHost, sizeof(outHost), viewShape, 2, NULL, 0, viewShape, 2, ACL_FLOAT, &outDev, &out);
    CHECK_RET(ret == 0, return ret);
    aclScalar *alpha = aclCreateScalar(&alphaValue, ACL_FLOAT);
    CHECK_RET(alpha != NULL, return 1);

    ret = RunAdd(self, other, alpha, out, stream);
    CHECK_RET(ret == 0, return ret);
    ret = aclrtMemcpy(outHost, sizeof(outHost), outDev, sizeof(outHost), ACL_MEMCPY_DEVICE_TO_HOST);
    CHECK_RET(ret == ACL_SUCCESS, return ret);

    float selfView[6];
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 3; j++) selfView[i * 3 + j] = bufferHost[i * viewStrides[0] + j * viewStrides[1]];
    PrintMatrix("buffer", bufferHost, 3, 2);
    PrintMatrix("self  ", selfView, 2, 3);
    PrintMatrix("other ", otherHost, 2, 3);
    PrintMatrix("out   ", outHost, 2, 3);
    float expect[6];
    for (int i = 0; i < 6; i++) expect[i] = selfView[i] + alphaValue * otherHost[i];
    int wrong = CheckResults(outHost, expect, 6);

    aclDestroyTensor(self);
    aclDestroyTensor(other);
    aclDestroyTensor(out);
    aclDestroyScalar(alpha);
    aclrtFree(selfDev);
    aclrtFree(otherDev);
    aclrtFree(outDev);
    return wrong;
}

/* 3. out(f32) = self(f16) + other(f32): promoted to f32. */
static int MixedDtypeExample(aclrtStream stream)
{
    LOG_PRINT("mixed dtypes: f16 + f32 -> f32\n");
    int64_t shape[] = {2, 3};
    float selfValues[] = {0.5f, 1.5f, -2.0f, 1024.0f, 0.25f, 3.0f};
    uint16_t selfHost[6];
    for (int i = 0; i < 6; i++) selfHost[i] = FloatToHalf(selfValues[i]);
    float otherHost[] = {0.001f, 0.25f, 2.0f, 0.125f, -0.25f, 1e-4f};
    float outHost[6] = {0};
    float alphaValue = 1.0f;
    void *selfDev = NULL, *otherDev = NULL, *outDev = NULL;
    aclTensor *self = NULL, *other = NULL, *out = NULL;
    int ret = CreateAclTensor(selfHost, sizeof(selfHost), shape, 2, NULL, 0, shape, 2, ACL_FLOAT16, &selfDev, &self);
    CHECK_RET(ret == 0, return ret);
    ret = CreateAclTensor(otherHost, sizeof(otherHost), shape, 2, NULL, 0, shape, 2, ACL_FLOAT, &otherDev, &other);
    CHECK_RET(ret == 0, return ret);
    ret = CreateAclTensor(outHost, sizeof(outHost), shape, 2, NULL, 0, shape, 2, ACL_FLOAT, &outDev, &out);
    CHECK_RET(ret == 0, return ret);
    aclScalar *alpha = aclCreateScalar(&alphaValue, ACL_FLOAT);
    CHECK_RET(alpha != NULL, return 1);

    ret = RunAdd(self, other, alpha, out, stream);
    CHECK_RET(ret == 0, return ret);
    ret = aclrtMemcpy(outHost, sizeof(outHost), outDev, sizeof(outHost), ACL_MEMCPY_DEVICE_TO_HOST);
    CHECK_RET(ret == ACL_SUCCESS, return ret);

    float selfAsFloat[6];
    for (int i = 0; i < 6; i++) selfAsFloat[i] = HalfToFloat(selfHost[i]);
    PrintMatrix("self (f16) ", selfAsFloat, 2, 3);
    PrintMatrix("other (f32)", otherHost, 2, 3);
    PrintMatrix("out (f32)  ", outHost, 2, 3);
    float expect[6];
    for (int i = 0; i < 6; i++) expect[i] = selfAsFloat[i] + otherHost[i]; /* f32 keeps 1024 + 0.001 */
    int wrong = CheckResults(outHost, expect, 6);

    aclDestroyTensor(self);
    aclDestroyTensor(other);
    aclDestroyTensor(out);
    aclDestroyScalar(alpha);
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
    wrong += BroadcastExample(stream);
    wrong += TransposedViewExample(stream);
    wrong += MixedDtypeExample(stream);

    aclrtDestroyStream(stream);
    aclrtResetDevice(deviceId);
    aclFinalize();
    LOG_PRINT("%s\n", wrong ? "FAILED" : "all results right");
    return wrong ? 1 : 0;
}
