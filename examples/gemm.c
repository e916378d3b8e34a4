/*
 * aclnnAddmm from C, in the style of a CANN operator sample: a Gemm
 *
 *   out(M,N) = beta * bias(N) + alpha * A(M,K) @ B^T
 *
 * where B is stored as an (N,K) row-major buffer (as weights usually are) and handed to
 * aclnnAddmm as its transpose without any copy: a (K,N) view with strides (1,K). The bias
 * (N,) broadcasts over the rows; alpha and beta are aclScalars.
 *
 * Build (see capi-tests/CMakeLists.txt, or by hand after `cargo build --release`):
 *   cc -std=c11 gemm.c -I include -L target/release -Wl,-rpath,target/release -lopapi -lascendcl -lnnopbase
 * Prints the inputs and the result; exits 0 only if every result is right.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "acl/acl.h"
#include "aclnnop/aclnn_addmm.h"

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

#define M 3
#define K 4
#define N 5

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

static void PrintMatrix(const char *name, const float *v, int64_t rows, int64_t cols)
{
    LOG_PRINT("  %s =\n", name);
    for (int64_t r = 0; r < rows; r++) {
        LOG_PRINT("    [");
        for (int64_t c = 0; c < cols; c++) LOG_PRINT("%s%8.3f", c ? ", " : "", v[r * cols + c]);
        LOG_PRINT("]\n");
    }
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

    /* Host data. */
    float aHost[M * K], bStoreHost[N * K], biasHost[N], outHost[M * N] = {0};
    for (int i = 0; i < M * K; i++) aHost[i] = (float)(i % 7) * 0.5f - 1.0f;
    for (int i = 0; i < N * K; i++) bStoreHost[i] = (float)((i * 3) % 5) - 2.0f;
    for (int j = 0; j < N; j++) biasHost[j] = 0.25f * (float)j;
    float alphaValue = 1.5f, betaValue = 0.5f;

    /* A (M,K) contiguous; B^T: the (N,K) buffer viewed as (K,N) with strides (1,K); bias (N,); out (M,N). */
    int64_t aShape[] = {M, K}, bStorage[] = {N, K}, bShape[] = {K, N}, bStrides[] = {1, K};
    int64_t biasShape[] = {N}, outShape[] = {M, N};
    void *aDev = NULL, *bDev = NULL, *biasDev = NULL, *outDev = NULL;
    aclTensor *a = NULL, *b = NULL, *bias = NULL, *out = NULL;
    int r = CreateAclTensor(aHost, sizeof(aHost), aShape, 2, NULL, 0, aShape, 2, ACL_FLOAT, &aDev, &a);
    CHECK_RET(r == 0, return 1);
    r = CreateAclTensor(bStoreHost, sizeof(bStoreHost), bShape, 2, bStrides, 0, bStorage, 2, ACL_FLOAT, &bDev, &b);
    CHECK_RET(r == 0, return 1);
    r = CreateAclTensor(biasHost, sizeof(biasHost), biasShape, 1, NULL, 0, biasShape, 1, ACL_FLOAT, &biasDev, &bias);
    CHECK_RET(r == 0, return 1);
    r = CreateAclTensor(outHost, sizeof(outHost), outShape, 2, NULL, 0, outShape, 2, ACL_FLOAT, &outDev, &out);
    CHECK_RET(r == 0, return 1);
    aclScalar *alpha = aclCreateScalar(&alphaValue, ACL_FLOAT);
    aclScalar *beta = aclCreateScalar(&betaValue, ACL_FLOAT);
    CHECK_RET(alpha != NULL && beta != NULL, LOG_PRINT("aclCreateScalar failed\n"); return 1);

    /* Phase 1: validate and plan. cubeMathType 1 = ALLOW_FP32_DOWN_PRECISION (computed in f32 here). */
    uint64_t workspaceSize = 0;
    aclOpExecutor *executor = NULL;
    int8_t cubeMathType = 1;
    aclnnStatus st =
        aclnnAddmmGetWorkspaceSize(bias, a, b, beta, alpha, out, cubeMathType, &workspaceSize, &executor);
    CHECK_RET(st == ACLNN_SUCCESS,
              LOG_PRINT("aclnnAddmmGetWorkspaceSize failed. ERROR: %d (%s)\n", st, aclGetRecentErrMsg()); return 1);
    void *workspaceAddr = NULL;
    if (workspaceSize > 0) {
        ret = aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
        CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret); return 1);
    }
    /* Phase 2: run on the stream, then wait for it. */
    st = aclnnAddmm(workspaceAddr, workspaceSize, executor, stream);
    CHECK_RET(st == ACLNN_SUCCESS, LOG_PRINT("aclnnAddmm failed. ERROR: %d (%s)\n", st, aclGetRecentErrMsg());
              return 1);
    ret = aclrtSynchronizeStream(stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSynchronizeStream failed. ERROR: %d\n", ret); return 1);
    ret = aclrtMemcpy(outHost, sizeof(outHost), outDev, sizeof(outHost), ACL_MEMCPY_DEVICE_TO_HOST);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtMemcpy failed. ERROR: %d\n", ret); return 1);

    LOG_PRINT("Gemm with aclnnAddmm: out = %g * bias + %g * A @ B^T (B^T a strided view, no copy)\n", betaValue,
              alphaValue);
    PrintMatrix("A (3x4)", aHost, M, K);
    PrintMatrix("B storage (5x4)", bStoreHost, N, K);
    PrintMatrix("bias (5)", biasHost, 1, N);
    PrintMatrix("out (3x5)", outHost, M, N);

    /* Check against a double-precision reference. */
    int wrong = 0;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double s = 0;
            for (int p = 0; p < K; p++) s += (double)aHost[i * K + p] * bStoreHost[j * K + p];
            double want = (double)betaValue * biasHost[j] + (double)alphaValue * s;
            if (fabs(outHost[i * N + j] - want) > 1e-5 * (fabs(want) + 1.0)) {
                LOG_PRINT("  out[%d][%d] = %g, expected %g\n", i, j, outHost[i * N + j], want);
                wrong++;
            }
        }

    if (workspaceSize > 0) aclrtFree(workspaceAddr);
    aclDestroyTensor(a);
    aclDestroyTensor(b);
    aclDestroyTensor(bias);
    aclDestroyTensor(out);
    aclDestroyScalar(alpha);
    aclDestroyScalar(beta);
    aclrtFree(aDev);
    aclrtFree(bDev);
    aclrtFree(biasDev);
    aclrtFree(outDev);
    aclrtDestroyStream(stream);
    aclrtResetDevice(deviceId);
    aclFinalize();
    LOG_PRINT("%s\n", wrong ? "FAILED" : "all results right");
    return wrong ? 1 : 0;
}
