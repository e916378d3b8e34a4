/*
 * aclnnConvolution from C, in the style of a CANN operator sample: a 2-D convolution
 *
 *   output(N,Cout,Ho,Wo) = conv2d(input(N,Cin,H,W), weight(Cout,Cin,Kh,Kw)) + bias(Cout)
 *
 * in NCHW with stride 1 and padding 1 (a "same" 3x3 convolution), all tensors f32.
 *
 * Build (see capi-tests/CMakeLists.txt, or by hand after `cargo build --release`):
 *   cc -std=c11 conv.c -I include -L target/release -Wl,-rpath,target/release -lopapi -lascendcl -lnnopbase
 * Prints the inputs and the result; exits 0 only if every result is right.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "acl/acl.h"
#include "aclnnop/aclnn_convolution.h"

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

#define BATCH 1
#define CIN 2
#define COUT 2
#define H 4
#define W 4
#define KH 3
#define KW 3

/* Copies `bytes` of host data to new device memory and describes it as a contiguous tensor. */
static int CreateAclTensor(const void *hostData, size_t bytes, const int64_t *shape, uint64_t dimNum,
                           aclFormat format, aclDataType dataType, void **deviceAddr, aclTensor **tensor)
{
    aclError ret = aclrtMalloc(deviceAddr, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtMalloc failed. ERROR: %d\n", ret); return ret);
    ret = aclrtMemcpy(*deviceAddr, bytes, hostData, bytes, ACL_MEMCPY_HOST_TO_DEVICE);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtMemcpy failed. ERROR: %d\n", ret); return ret);
    int64_t strides[8];
    strides[dimNum - 1] = 1;
    for (int64_t i = (int64_t)dimNum - 2; i >= 0; i--) strides[i] = shape[i + 1] * strides[i + 1];
    *tensor = aclCreateTensor(shape, dimNum, dataType, strides, 0, format, shape, dimNum, *deviceAddr);
    CHECK_RET(*tensor != NULL, LOG_PRINT("aclCreateTensor failed: %s\n", aclGetRecentErrMsg()); return 1);
    return 0;
}

static void PrintPlane(const char *name, int c, const float *v)
{
    LOG_PRINT("  %s[0][%d] =\n", name, c);
    for (int r = 0; r < H; r++) {
        LOG_PRINT("    [");
        for (int q = 0; q < W; q++) LOG_PRINT("%s%7.2f", q ? ", " : "", v[r * W + q]);
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
    float inputHost[BATCH * CIN * H * W], weightHost[COUT * CIN * KH * KW], biasHost[COUT];
    float outputHost[BATCH * COUT * H * W] = {0};
    for (int i = 0; i < BATCH * CIN * H * W; i++) inputHost[i] = (float)(i % 5) - 1.0f;
    for (int i = 0; i < COUT * CIN * KH * KW; i++) weightHost[i] = (float)((i * 3) % 4) * 0.5f - 0.5f;
    for (int c = 0; c < COUT; c++) biasHost[c] = 0.5f + (float)c;

    int64_t inputShape[] = {BATCH, CIN, H, W}, weightShape[] = {COUT, CIN, KH, KW}, biasShape[] = {COUT};
    int64_t outputShape[] = {BATCH, COUT, H, W};
    void *inputDev = NULL, *weightDev = NULL, *biasDev = NULL, *outputDev = NULL;
    aclTensor *input = NULL, *weight = NULL, *bias = NULL, *output = NULL;
    int r = CreateAclTensor(inputHost, sizeof(inputHost), inputShape, 4, ACL_FORMAT_NCHW, ACL_FLOAT, &inputDev,
                            &input);
    CHECK_RET(r == 0, return 1);
    r = CreateAclTensor(weightHost, sizeof(weightHost), weightShape, 4, ACL_FORMAT_NCHW, ACL_FLOAT, &weightDev,
                        &weight);
    CHECK_RET(r == 0, return 1);
    r = CreateAclTensor(biasHost, sizeof(biasHost), biasShape, 1, ACL_FORMAT_ND, ACL_FLOAT, &biasDev, &bias);
    CHECK_RET(r == 0, return 1);
    r = CreateAclTensor(outputHost, sizeof(outputHost), outputShape, 4, ACL_FORMAT_NCHW, ACL_FLOAT, &outputDev,
                        &output);
    CHECK_RET(r == 0, return 1);

    /* Attributes: stride 1, padding 1, dilation 1, not transposed, groups 1. */
    int64_t strideData[] = {1, 1}, paddingData[] = {1, 1}, dilationData[] = {1, 1}, outputPaddingData[] = {0, 0};
    aclIntArray *stride = aclCreateIntArray(strideData, 2);
    aclIntArray *padding = aclCreateIntArray(paddingData, 2);
    aclIntArray *dilation = aclCreateIntArray(dilationData, 2);
    aclIntArray *outputPadding = aclCreateIntArray(outputPaddingData, 2);
    CHECK_RET(stride && padding && dilation && outputPadding, LOG_PRINT("aclCreateIntArray failed\n"); return 1);

    /* Phase 1: validate and plan. cubeMathType 1 = ALLOW_FP32_DOWN_PRECISION (computed in f32 here). */
    uint64_t workspaceSize = 0;
    aclOpExecutor *executor = NULL;
    int8_t cubeMathType = 1;
    aclnnStatus st = aclnnConvolutionGetWorkspaceSize(input, weight, bias, stride, padding, dilation, false,
                                                      outputPadding, 1, output, cubeMathType, &workspaceSize,
                                                      &executor);
    CHECK_RET(st == ACLNN_SUCCESS,
              LOG_PRINT("aclnnConvolutionGetWorkspaceSize failed. ERROR: %d (%s)\n", st, aclGetRecentErrMsg());
              return 1);
    void *workspaceAddr = NULL;
    if (workspaceSize > 0) {
        ret = aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
        CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret); return 1);
    }
    /* Phase 2: run on the stream, then wait for it. */
    st = aclnnConvolution(workspaceAddr, workspaceSize, executor, stream);
    CHECK_RET(st == ACLNN_SUCCESS,
              LOG_PRINT("aclnnConvolution failed. ERROR: %d (%s)\n", st, aclGetRecentErrMsg()); return 1);
    ret = aclrtSynchronizeStream(stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSynchronizeStream failed. ERROR: %d\n", ret); return 1);
    ret = aclrtMemcpy(outputHost, sizeof(outputHost), outputDev, sizeof(outputHost), ACL_MEMCPY_DEVICE_TO_HOST);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtMemcpy failed. ERROR: %d\n", ret); return 1);

    LOG_PRINT("Conv2d with aclnnConvolution: NCHW (1,2,4,4) * (2,2,3,3) + bias, stride 1, padding 1\n");
    for (int c = 0; c < CIN; c++) PrintPlane("input", c, inputHost + c * H * W);
    LOG_PRINT("  bias = [%g, %g]\n", biasHost[0], biasHost[1]);
    for (int c = 0; c < COUT; c++) PrintPlane("output", c, outputHost + c * H * W);

    /* Check against a double-precision reference written from the definition. */
    int wrong = 0;
    for (int co = 0; co < COUT; co++)
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++) {
                double want = biasHost[co];
                for (int ci = 0; ci < CIN; ci++)
                    for (int ky = 0; ky < KH; ky++)
                        for (int kx = 0; kx < KW; kx++) {
                            int iy = y - 1 + ky, ix = x - 1 + kx;
                            if (iy < 0 || iy >= H || ix < 0 || ix >= W) continue;
                            want += (double)inputHost[(ci * H + iy) * W + ix] *
                                    weightHost[((co * CIN + ci) * KH + ky) * KW + kx];
                        }
                float got = outputHost[(co * H + y) * W + x];
                if (fabs(got - want) > 1e-5 * (fabs(want) + 1.0)) {
                    LOG_PRINT("  output[0][%d][%d][%d] = %g, expected %g\n", co, y, x, got, want);
                    wrong++;
                }
            }

    if (workspaceSize > 0) aclrtFree(workspaceAddr);
    aclDestroyTensor(input);
    aclDestroyTensor(weight);
    aclDestroyTensor(bias);
    aclDestroyTensor(output);
    aclDestroyIntArray(stride);
    aclDestroyIntArray(padding);
    aclDestroyIntArray(dilation);
    aclDestroyIntArray(outputPadding);
    aclrtFree(inputDev);
    aclrtFree(weightDev);
    aclrtFree(biasDev);
    aclrtFree(outputDev);
    aclrtDestroyStream(stream);
    aclrtResetDevice(deviceId);
    aclFinalize();
    LOG_PRINT("%s\n", wrong ? "FAILED" : "all results right");
    return wrong ? 1 : 0;
}
