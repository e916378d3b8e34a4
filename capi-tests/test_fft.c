/* aclRfft1D and aclStft as a CANN user calls them: the doc's example (rfft of {1, 2, 3, 4}
 * is {10, 0, -2, 2, -2, 0}), the rfft of a (3, 6) tensor along dim 0 with n = 4 (cut) and
 * norm 3 (1/sqrt(n)), and the STFT of two signals (nFft 8, hopLength 2, a Hann window of 6
 * padded to 8, onesided, as complex64) checked against the DFT written out below; then
 * norm 4 and a short signal (161002), NULL outputs (161001). */
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include "acl/acl.h"
#include "aclnnop/acl_rfft1d.h"
#include "aclnnop/acl_stft.h"

#define PI 3.14159265358979323846

static aclTensor *mk(const int64_t *shape, int64_t rank, aclDataType dt, size_t esz, const void *host, void **dev)
{
    int64_t n = 1, strides[4];
    for (int64_t i = rank - 1; i >= 0; i--) { strides[i] = n; n *= shape[i]; }
    aclrtMalloc(dev, (size_t)n * esz, ACL_MEM_MALLOC_HUGE_FIRST);
    if (host) aclrtMemcpy(*dev, (size_t)n * esz, host, (size_t)n * esz, ACL_MEMCPY_HOST_TO_DEVICE);
    return aclCreateTensor(shape, (uint64_t)rank, dt, strides, 0, ACL_FORMAT_ND, shape, (uint64_t)rank, *dev);
}

static int run(aclnnStatus st, uint64_t wsz, aclOpExecutor *ex, aclrtStream stream,
               aclnnStatus (*phase2)(void *, uint64_t, aclOpExecutor *, aclrtStream), const char *what)
{
    if (st != 0) { printf("FAIL %s phase 1: %d %s\n", what, st, aclGetRecentErrMsg()); return 1; }
    void *ws = NULL;
    if (wsz > 0) aclrtMalloc(&ws, wsz, ACL_MEM_MALLOC_HUGE_FIRST);
    st = phase2(ws, wsz, ex, stream);
    aclrtSynchronizeStream(stream);
    if (ws) aclrtFree(ws);
    if (st != 0) { printf("FAIL %s phase 2: %d %s\n", what, st, aclGetRecentErrMsg()); return 1; }
    return 0;
}

static int near(double got, double want, double tol) { return fabs(got - want) <= tol * (fabs(want) + 1.0); }

int main(void)
{
    aclInit(NULL);
    aclrtSetDevice(0);
    aclrtStream stream;
    aclrtCreateStream(&stream);
    int fails = 0;
    uint64_t wsz = 0;
    aclOpExecutor *ex = NULL;

    /* The doc's example. */
    float x[4] = {1, 2, 3, 4}, y[6];
    int64_t s4[1] = {4}, s32[2] = {3, 2};
    void *dx, *dy;
    aclTensor *tx = mk(s4, 1, ACL_FLOAT, 4, x, &dx), *ty = mk(s32, 2, ACL_FLOAT, 4, NULL, &dy);
    aclnnStatus st = aclRfft1DGetWorkspaceSize(tx, -1, 0, 1, ty, &wsz, &ex);
    fails += run(st, wsz, ex, stream, aclRfft1D, "rfft");
    aclrtMemcpy(y, sizeof y, dy, sizeof y, ACL_MEMCPY_DEVICE_TO_HOST);
    const float want[6] = {10, 0, -2, 2, -2, 0};
    for (int i = 0; i < 6; i++)
        if (!near(y[i], want[i], 1e-6)) { printf("FAIL rfft[%d] = %g, want %g\n", i, y[i], want[i]); fails++; }

    /* Along dim 0 of a (6, 3) tensor, cut to n = 4, ortho. */
    float m[18], z[3 * 3 * 2];
    for (int i = 0; i < 18; i++) m[i] = (float)((i * 5) % 7) - 3.0f;
    int64_t s63[2] = {6, 3}, s332[3] = {3, 3, 2};
    void *dm, *dz;
    aclTensor *tm = mk(s63, 2, ACL_FLOAT, 4, m, &dm), *tz = mk(s332, 3, ACL_FLOAT, 4, NULL, &dz);
    st = aclRfft1DGetWorkspaceSize(tm, 4, -2, 3, tz, &wsz, &ex);
    fails += run(st, wsz, ex, stream, aclRfft1D, "rfft dim 0");
    aclrtMemcpy(z, sizeof z, dz, sizeof z, ACL_MEMCPY_DEVICE_TO_HOST);
    for (int k = 0; k < 3; k++)
        for (int c = 0; c < 3; c++) {
            double re = 0, im = 0;
            for (int j = 0; j < 4; j++) {
                re += m[j * 3 + c] * cos(-2 * PI * j * k / 4);
                im += m[j * 3 + c] * sin(-2 * PI * j * k / 4);
            }
            re /= 2.0; im /= 2.0; /* 1/sqrt(4) */
            if (!near(z[(k * 3 + c) * 2], re, 1e-6) || !near(z[(k * 3 + c) * 2 + 1], im, 1e-6)) {
                printf("FAIL rfft dim 0 [%d, %d] = %g%+gi, want %g%+gi\n", k, c, z[(k * 3 + c) * 2],
                       z[(k * 3 + c) * 2 + 1], re, im);
                fails++;
            }
        }

    /* STFT: 2 signals of 20, nFft 8, hop 2, a Hann window of 6 (padded by 1 on each side). */
    enum { B = 2, L = 20, NFFT = 8, HOP = 2, WIN = 6, N = NFFT / 2 + 1, T = (L - NFFT) / HOP + 1 };
    float sig[B * L], win[WIN], spec[B * N * T * 2];
    for (int i = 0; i < B * L; i++) sig[i] = sinf(0.3f * i) + 0.25f * (float)(i % 3);
    for (int k = 0; k < WIN; k++) win[k] = 0.5f - 0.5f * cosf(2.0f * (float)PI * k / WIN);
    int64_t sBL[2] = {B, L}, sW[1] = {WIN}, sOut[3] = {B, N, T};
    void *ds, *dw, *dsp;
    aclTensor *ts = mk(sBL, 2, ACL_FLOAT, 4, sig, &ds), *tw = mk(sW, 1, ACL_FLOAT, 4, win, &dw);
    aclTensor *tsp = mk(sOut, 3, ACL_COMPLEX64, 8, NULL, &dsp);
    st = aclStftGetWorkspaceSize(ts, tw, tsp, NFFT, HOP, WIN, false, true, true, &wsz, &ex);
    fails += run(st, wsz, ex, stream, aclStft, "stft");
    aclrtMemcpy(spec, sizeof spec, dsp, sizeof spec, ACL_MEMCPY_DEVICE_TO_HOST);
    const int left = (NFFT - WIN) / 2;
    for (int b = 0; b < B; b++)
        for (int w = 0; w < N; w++)
            for (int t = 0; t < T; t++) {
                double re = 0, im = 0;
                for (int k = 0; k < WIN; k++) {
                    double v = (double)win[k] * sig[b * L + t * HOP + left + k];
                    re += v * cos(-2 * PI * w * (k + left) / NFFT);
                    im += v * sin(-2 * PI * w * (k + left) / NFFT);
                }
                const float *g = &spec[((b * N + w) * T + t) * 2];
                if (!near(g[0], re, 1e-5) || !near(g[1], im, 1e-5)) {
                    printf("FAIL stft[%d, %d, %d] = %g%+gi, want %g%+gi\n", b, w, t, g[0], g[1], re, im);
                    fails++;
                }
            }

    /* Refusals. */
    st = aclRfft1DGetWorkspaceSize(tx, -1, 0, 4, ty, &wsz, &ex);
    if (st != 161002) { printf("FAIL norm 4 gave %d\n", st); fails++; }
    st = aclRfft1DGetWorkspaceSize(tx, -1, 0, 1, NULL, &wsz, &ex);
    if (st != 161001) { printf("FAIL a NULL rfft out gave %d\n", st); fails++; }
    st = aclStftGetWorkspaceSize(tx, NULL, tsp, NFFT, HOP, WIN, false, true, true, &wsz, &ex);
    if (st != 161002) { printf("FAIL a signal shorter than nFft gave %d\n", st); fails++; }
    st = aclStftGetWorkspaceSize(ts, tw, NULL, NFFT, HOP, WIN, false, true, true, &wsz, &ex);
    if (st != 161001) { printf("FAIL a NULL stft out gave %d\n", st); fails++; }

    aclDestroyTensor(tx); aclDestroyTensor(ty); aclDestroyTensor(tm); aclDestroyTensor(tz);
    aclDestroyTensor(ts); aclDestroyTensor(tw); aclDestroyTensor(tsp);
    aclrtFree(dx); aclrtFree(dy); aclrtFree(dm); aclrtFree(dz); aclrtFree(ds); aclrtFree(dw); aclrtFree(dsp);
    aclrtDestroyStream(stream);
    aclrtResetDevice(0);
    aclFinalize();
    if (fails) return 1;
    printf("test_fft: ok\n");
    return 0;
}
