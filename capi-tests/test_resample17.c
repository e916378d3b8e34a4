/* The interpolating upsamples as a CANN user calls them: bilinear (1, 1, 3, 3) -> (5, 5)
 * with alignCorners true and false (the documented example), linear 1d, bicubic of a
 * constant image (which cubic convolution keeps), trilinear by a scale, nearest 2d V2 with
 * float scales; then error statuses. */
#include <stdio.h>
#include <stdint.h>
#include <math.h>
#include "acl/acl.h"
#include "aclnnop/aclnn_upsample_bilinear_2d.h"
#include "aclnnop/aclnn_upsample_linear_1d.h"
#include "aclnnop/aclnn_upsample_bicubic_2d.h"
#include "aclnnop/aclnn_upsample_trilinear_3d.h"
#include "aclnnop/aclnn_upsample_nearest_2d_v2.h"

static aclTensor *mk(const int64_t *shape, int64_t rank, aclFormat fmt, const float *host, void **dev)
{
    int64_t n = 1, strides[5];
    for (int64_t i = rank - 1; i >= 0; i--) { strides[i] = n; n *= shape[i]; }
    aclrtMalloc(dev, (size_t)n * 4, ACL_MEM_MALLOC_HUGE_FIRST);
    if (host) aclrtMemcpy(*dev, (size_t)n * 4, host, (size_t)n * 4, ACL_MEMCPY_HOST_TO_DEVICE);
    return aclCreateTensor(shape, (uint64_t)rank, ACL_FLOAT, strides, 0, fmt, shape, (uint64_t)rank, *dev);
}

static int fails = 0;

static void expect(const char *what, void *dev, const float *want, int n)
{
    float got[64];
    aclrtMemcpy(got, (size_t)n * 4, dev, (size_t)n * 4, ACL_MEMCPY_DEVICE_TO_HOST);
    for (int i = 0; i < n; i++)
        if (fabsf(got[i] - want[i]) > 1e-5f) {
            printf("FAIL %s[%d] = %g, want %g\n", what, i, got[i], want[i]);
            fails++;
        }
}

static void run(aclnnStatus st, aclnnStatus (*phase2)(void *, uint64_t, aclOpExecutor *, aclrtStream),
                const uint64_t *wsp, aclOpExecutor *const *exp, aclrtStream stream, const char *what)
{
    /* By pointer: phase 1 (the first argument) writes them, and C leaves the order in
     * which a call's arguments are evaluated unspecified. */
    uint64_t ws = *wsp;
    aclOpExecutor *ex = *exp;
    void *w = NULL;
    if (st != 0) { printf("FAIL %s phase 1: %d %s\n", what, st, aclGetRecentErrMsg()); fails++; return; }
    if (ws) aclrtMalloc(&w, ws, ACL_MEM_MALLOC_HUGE_FIRST);
    aclnnStatus s2 = phase2(w, ws, ex, stream);
    if (s2 != 0) { printf("FAIL %s phase 2: %d %s\n", what, s2, aclGetRecentErrMsg()); fails++; }
    aclrtSynchronizeStream(stream);
    if (w) aclrtFree(w);
}

int main(void)
{
    aclInit(NULL);
    aclrtSetDevice(0);
    aclrtStream stream;
    aclrtCreateStream(&stream);
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;

    float img[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    int64_t is[4] = {1, 1, 3, 3}, os[4] = {1, 1, 5, 5}, sz[2] = {5, 5};
    void *di, *dout;
    aclTensor *ti = mk(is, 4, ACL_FORMAT_NCHW, img, &di), *to = mk(os, 4, ACL_FORMAT_NCHW, NULL, &dout);
    aclIntArray *size = aclCreateIntArray(sz, 2);
    const float row0_false[5] = {1, 1.4f, 2, 2.6f, 3}, row1_false[5] = {2.2f, 2.6f, 3.2f, 3.8f, 4.2f};
    const float row0_true[5] = {1, 1.5f, 2, 2.5f, 3}, row1_true[5] = {2.5f, 3, 3.5f, 4, 4.5f};
    run(aclnnUpsampleBilinear2dGetWorkspaceSize(ti, size, false, 0.0, 0.0, to, &ws, &ex),
        aclnnUpsampleBilinear2d, &ws, &ex, stream, "bilinear");
    expect("bilinear false row 0", dout, row0_false, 5);
    expect("bilinear false row 1", (char *)dout + 20, row1_false, 5);
    run(aclnnUpsampleBilinear2dGetWorkspaceSize(ti, size, true, 0.0, 0.0, to, &ws, &ex),
        aclnnUpsampleBilinear2d, &ws, &ex, stream, "bilinear");
    expect("bilinear true row 0", dout, row0_true, 5);
    expect("bilinear true row 1", (char *)dout + 20, row1_true, 5);

    /* linear 1d: [0, 4] -> 5 points with aligned corners: 0, 1, 2, 3, 4. */
    float line[2] = {0, 4};
    int64_t ls[3] = {1, 1, 2}, lo[3] = {1, 1, 5}, lsz[1] = {5};
    void *dl, *dlo;
    aclTensor *tl = mk(ls, 3, ACL_FORMAT_NCL, line, &dl), *tlo = mk(lo, 3, ACL_FORMAT_NCL, NULL, &dlo);
    aclIntArray *lsize = aclCreateIntArray(lsz, 1);
    const float lwant[5] = {0, 1, 2, 3, 4};
    run(aclnnUpsampleLinear1dGetWorkspaceSize(tl, lsize, true, 0.0, tlo, &ws, &ex),
        aclnnUpsampleLinear1d, &ws, &ex, stream, "linear");
    expect("linear", dlo, lwant, 5);

    /* bicubic of a constant image is the constant (the weights sum to 1). */
    float flat[9] = {2, 2, 2, 2, 2, 2, 2, 2, 2}, twos[25];
    for (int i = 0; i < 25; i++) twos[i] = 2;
    void *df;
    aclTensor *tf = mk(is, 4, ACL_FORMAT_NCHW, flat, &df);
    run(aclnnUpsampleBicubic2dGetWorkspaceSize(tf, size, false, 0.0, 0.0, to, &ws, &ex),
        aclnnUpsampleBicubic2d, &ws, &ex, stream, "bicubic");
    expect("bicubic", dout, twos, 25);

    /* trilinear (1, 1, 1, 1, 2) -> W 4 with scalesW 2 (pixel centres): 0, 1, 3, 4. */
    float vol[2] = {0, 4};
    int64_t vs[5] = {1, 1, 1, 1, 2}, vo[5] = {1, 1, 1, 1, 4}, vsz[3] = {1, 1, 4};
    void *dv, *dvo;
    aclTensor *tv = mk(vs, 5, ACL_FORMAT_NCDHW, vol, &dv), *tvo = mk(vo, 5, ACL_FORMAT_NCDHW, NULL, &dvo);
    aclIntArray *vsize = aclCreateIntArray(vsz, 3);
    const float vwant[4] = {0, 1, 3, 4};
    run(aclnnUpsampleTrilinear3dGetWorkspaceSize(tv, vsize, false, 0.0, 0.0, 2.0, tvo, &ws, &ex),
        aclnnUpsampleTrilinear3d, &ws, &ex, stream, "trilinear");
    expect("trilinear", dvo, vwant, 4);

    /* nearest 2d V2, scales (1, 2): every pixel doubled along W (its out is also the wrong
     * shape for the errors below). */
    int64_t ns[4] = {1, 1, 3, 6}, nsz[2] = {3, 6};
    void *dn;
    aclTensor *tn = mk(ns, 4, ACL_FORMAT_NCHW, NULL, &dn);
    aclIntArray *nsize = aclCreateIntArray(nsz, 2);
    const float nwant[6] = {1, 1, 2, 2, 3, 3};
    run(aclnnUpsampleNearest2dV2GetWorkspaceSize(ti, nsize, 1.0f, 2.0f, tn, &ws, &ex),
        aclnnUpsampleNearest2dV2, &ws, &ex, stream, "nearest v2");
    expect("nearest v2", dn, nwant, 6);

    /* errors: a negative scale, out of the wrong shape, NULL self. */
    aclnnStatus st = aclnnUpsampleBilinear2dGetWorkspaceSize(ti, size, false, -1.0, 0.0, to, &ws, &ex);
    if (st != 161002) { printf("FAIL negative scalesH gave %d\n", st); fails++; }
    st = aclnnUpsampleBicubic2dGetWorkspaceSize(ti, size, false, 0.0, 0.0, tn, &ws, &ex);
    if (st != 161002) { printf("FAIL wrong out shape gave %d\n", st); fails++; }
    st = aclnnUpsampleLinear1dGetWorkspaceSize(NULL, lsize, true, 0.0, tlo, &ws, &ex);
    if (st != 161001) { printf("FAIL NULL self gave %d\n", st); fails++; }

    aclDestroyTensor(ti); aclDestroyTensor(to); aclDestroyTensor(tl); aclDestroyTensor(tlo);
    aclDestroyTensor(tf); aclDestroyTensor(tv); aclDestroyTensor(tvo); aclDestroyTensor(tn);
    aclDestroyIntArray(size); aclDestroyIntArray(lsize); aclDestroyIntArray(vsize); aclDestroyIntArray(nsize);
    aclrtFree(di); aclrtFree(dout); aclrtFree(dl); aclrtFree(dlo); aclrtFree(df); aclrtFree(dv);
    aclrtFree(dvo); aclrtFree(dn);
    aclrtDestroyStream(stream);
    aclrtResetDevice(0);
    aclFinalize();
    printf(fails ? "test_resample17: %d failures\n" : "test_resample17: ok\n", fails);
    return fails != 0;
}
