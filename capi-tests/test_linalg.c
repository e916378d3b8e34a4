/* The linear-algebra operators as a CANN user calls them: aclnnLinalgCross with a
 * broadcast other, aclnnInverse on a batch of two 3x3 matrices (A·A⁻¹ = I), aclnnSlogdet
 * and aclnnLogdet on known determinants, aclnnLinalgCholesky lower and upper; then the
 * refusals (a dim whose extent is not 3, a non-square self: 161002; NULL: 161001) and the
 * run-time failures on a singular and a non-positive-definite matrix (the stream's
 * synchronize reports 507015, as the device's AI-core exception); aclnnLinalgQr (reduced,
 * mode 2) and aclnnQr (complete) of a 3x2 matrix against torch's factors, and their
 * refusals (a Q of the wrong shape: 161002; NULL R: 161001); aclnnSvd of [[3, 0], [4, 5]]
 * (sigma 3√5, √5; u·diag(sigma)·vᵀ = input) and its refusals. */
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include "acl/acl.h"
#include "aclnnop/aclnn_linalg_cross.h"
#include "aclnnop/aclnn_inverse.h"
#include "aclnnop/aclnn_slogdet.h"
#include "aclnnop/aclnn_logdet.h"
#include "aclnnop/aclnn_linalg_cholesky.h"
#include "aclnnop/aclnn_linalg_qr.h"
#include "aclnnop/aclnn_qr.h"
#include "aclnnop/aclnn_svd.h"

static aclTensor *mk(const int64_t *shape, int64_t rank, const float *host, void **dev)
{
    int64_t n = 1, strides[4];
    for (int64_t i = rank - 1; i >= 0; i--) { strides[i] = n; n *= shape[i]; }
    aclrtMalloc(dev, (size_t)n * 4 + 4, ACL_MEM_MALLOC_HUGE_FIRST);
    if (host) aclrtMemcpy(*dev, (size_t)n * 4, host, (size_t)n * 4, ACL_MEMCPY_HOST_TO_DEVICE);
    return aclCreateTensor(shape, (uint64_t)rank, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, shape, (uint64_t)rank, *dev);
}

static int fails = 0;
static aclrtStream stream;

/* Runs phase 2 of an executor (workspace allocated as asked); returns its status. */
static aclnnStatus run(aclnnStatus st, const uint64_t *wszp, aclOpExecutor *const *exp,
                       aclnnStatus (*phase2)(void *, uint64_t, aclOpExecutor *, aclrtStream), const char *what)
{
    /* Read after phase 1 (the call in the first argument) has set them. */
    uint64_t wsz = *wszp;
    aclOpExecutor *ex = *exp;
    if (st != 0) { printf("FAIL %s phase 1: %d %s\n", what, st, aclGetRecentErrMsg()); fails++; return st; }
    void *ws = NULL;
    if (wsz > 0) aclrtMalloc(&ws, wsz, ACL_MEM_MALLOC_HUGE_FIRST);
    st = phase2(ws, wsz, ex, stream);
    /* Data refused at run time is reported by the synchronize (507015). */
    aclError sync = aclrtSynchronizeStream(stream);
    if (st == 0) st = sync;
    if (ws) aclrtFree(ws);
    return st;
}

static void expect(const char *what, const float *got, const double *want, int n, double tol)
{
    for (int i = 0; i < n; i++)
        if (!(fabs(got[i] - want[i]) <= tol * (fabs(want[i]) + 1.0))) {
            printf("FAIL %s[%d] = %.9g, want %.9g\n", what, i, got[i], want[i]);
            fails++;
        }
}

static aclnnStatus linalg_qr2(void *w, uint64_t s, aclOpExecutor *e, aclrtStream st) { return aclnnLinalgQr(w, s, e, st); }
static aclnnStatus qr2(void *w, uint64_t s, aclOpExecutor *e, aclrtStream st) { return aclnnQr(w, s, e, st); }
static aclnnStatus svd2(void *w, uint64_t s, aclOpExecutor *e, aclrtStream st) { return aclnnSvd(w, s, e, st); }
static aclnnStatus cholesky2(void *w, uint64_t s, aclOpExecutor *e, aclrtStream st) { return aclnnLinalgCholesky(w, s, e, st); }

int main(void)
{
    aclInit(NULL);
    aclrtSetDevice(0);
    aclrtCreateStream(&stream);
    uint64_t wsz = 0;
    aclOpExecutor *ex = NULL;
    aclnnStatus st;

    /* Cross: self (2, 3), other (3) broadcast, dim -1. */
    {
        int64_t s1[2] = {2, 3}, s2[1] = {3};
        float x[6] = {1, 0, 0, 1, 2, 3}, y[3] = {0, 1, 0}, out[6];
        void *dx, *dy, *dout;
        aclTensor *tx = mk(s1, 2, x, &dx), *ty = mk(s2, 1, y, &dy), *to = mk(s1, 2, NULL, &dout);
        st = run(aclnnLinalgCrossGetWorkspaceSize(tx, ty, -1, to, &wsz, &ex), &wsz, &ex, aclnnLinalgCross, "cross");
        if (st != 0) { printf("FAIL cross phase 2: %d\n", st); fails++; }
        aclrtMemcpy(out, sizeof out, dout, sizeof out, ACL_MEMCPY_DEVICE_TO_HOST);
        const double want[6] = {0, 0, 1, -3, 0, 1};
        expect("cross", out, want, 6, 0);
        st = aclnnLinalgCrossGetWorkspaceSize(tx, ty, 0, to, &wsz, &ex);
        if (st != 161002) { printf("FAIL cross dim 0 (extent 2) gave %d\n", st); fails++; }
        st = aclnnLinalgCrossGetWorkspaceSize(tx, NULL, -1, to, &wsz, &ex);
        if (st != 161001) { printf("FAIL cross NULL other gave %d\n", st); fails++; }
        aclDestroyTensor(tx); aclDestroyTensor(ty); aclDestroyTensor(to);
        aclrtFree(dx); aclrtFree(dy); aclrtFree(dout);
    }

    /* Inverse of two 3x3 matrices; then a singular one fails at phase 2. */
    {
        int64_t s[3] = {2, 3, 3};
        float a[18] = {4, 1, 2, 0, 3, 1, 1, 0, 5, 0, 2, 1, 1, 1, 0, 3, 0, 4}, inv[18];
        void *da, *dout;
        aclTensor *ta = mk(s, 3, a, &da), *to = mk(s, 3, NULL, &dout);
        st = run(aclnnInverseGetWorkspaceSize(ta, to, &wsz, &ex), &wsz, &ex, aclnnInverse, "inverse");
        if (st != 0) { printf("FAIL inverse phase 2: %d %s\n", st, aclGetRecentErrMsg()); fails++; }
        aclrtMemcpy(inv, sizeof inv, dout, sizeof inv, ACL_MEMCPY_DEVICE_TO_HOST);
        for (int b = 0; b < 2; b++)
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++) {
                    double s = 0;
                    for (int k = 0; k < 3; k++) s += (double)a[b * 9 + i * 3 + k] * inv[b * 9 + k * 3 + j];
                    if (fabs(s - (i == j)) > 1e-6) { printf("FAIL (A·A⁻¹)[%d][%d][%d] = %g\n", b, i, j, s); fails++; }
                }
        float sing[18] = {1, 2, 3, 2, 4, 6, 0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 1};
        aclrtMemcpy(da, sizeof sing, sing, sizeof sing, ACL_MEMCPY_HOST_TO_DEVICE);
        st = run(aclnnInverseGetWorkspaceSize(ta, to, &wsz, &ex), &wsz, &ex, aclnnInverse, "inverse (singular)");
        if (st != 507015) { printf("FAIL a singular inverse gave %d\n", st); fails++; }
        int64_t ns[2] = {2, 3};
        void *dn;
        aclTensor *tn = mk(ns, 2, NULL, &dn);
        st = aclnnInverseGetWorkspaceSize(tn, tn, &wsz, &ex);
        if (st != 161002) { printf("FAIL a 2x3 inverse gave %d\n", st); fails++; }
        st = aclnnInverseGetWorkspaceSize(NULL, to, &wsz, &ex);
        if (st != 161001) { printf("FAIL inverse NULL self gave %d\n", st); fails++; }
        aclDestroyTensor(ta); aclDestroyTensor(to); aclDestroyTensor(tn);
        aclrtFree(da); aclrtFree(dout); aclrtFree(dn);
    }

    /* Slogdet of det −6 and of a singular matrix; Logdet of det 5 and of det −6 (NaN). */
    {
        int64_t s[3] = {2, 2, 2}, sb[1] = {2};
        float a[8] = {0, 2, 3, 4, 1, 2, 2, 4}, sign[2], logv[2];
        void *da, *ds, *dl;
        aclTensor *ta = mk(s, 3, a, &da), *ts = mk(sb, 1, NULL, &ds), *tl = mk(sb, 1, NULL, &dl);
        st = run(aclnnSlogdetGetWorkspaceSize(ta, ts, tl, &wsz, &ex), &wsz, &ex, aclnnSlogdet, "slogdet");
        if (st != 0) { printf("FAIL slogdet phase 2: %d\n", st); fails++; }
        aclrtMemcpy(sign, sizeof sign, ds, sizeof sign, ACL_MEMCPY_DEVICE_TO_HOST);
        aclrtMemcpy(logv, sizeof logv, dl, sizeof logv, ACL_MEMCPY_DEVICE_TO_HOST);
        const double wsign[2] = {-1, 0};
        expect("slogdet sign", sign, wsign, 2, 0);
        if (!(fabs(logv[0] - log(6.0)) < 1e-6 && isinf(logv[1]) && logv[1] < 0)) {
            printf("FAIL slogdet log = %g, %g; want %g, -inf\n", logv[0], logv[1], log(6.0)); fails++;
        }
        float b[8] = {2, 1, 1, 3, 0, 2, 3, 4};
        aclrtMemcpy(da, sizeof b, b, sizeof b, ACL_MEMCPY_HOST_TO_DEVICE);
        st = run(aclnnLogdetGetWorkspaceSize(ta, tl, &wsz, &ex), &wsz, &ex, aclnnLogdet, "logdet");
        if (st != 0) { printf("FAIL logdet phase 2: %d\n", st); fails++; }
        aclrtMemcpy(logv, sizeof logv, dl, sizeof logv, ACL_MEMCPY_DEVICE_TO_HOST);
        if (!(fabs(logv[0] - log(5.0)) < 1e-6 && isnan(logv[1]))) {
            printf("FAIL logdet = %g, %g; want %g, nan\n", logv[0], logv[1], log(5.0)); fails++;
        }
        st = aclnnSlogdetGetWorkspaceSize(ta, ts, ta, &wsz, &ex);
        if (st != 161002) { printf("FAIL slogdet logOut of self's shape gave %d\n", st); fails++; }
        st = aclnnLogdetGetWorkspaceSize(ta, NULL, &wsz, &ex);
        if (st != 161001) { printf("FAIL logdet NULL out gave %d\n", st); fails++; }
        aclDestroyTensor(ta); aclDestroyTensor(ts); aclDestroyTensor(tl);
        aclrtFree(da); aclrtFree(ds); aclrtFree(dl);
    }

    /* Cholesky of [[4, 2], [2, 5]]: L = [[2, 0], [1, 2]], U = Lᵀ; then [[1, 2], [2, 1]] fails. */
    {
        int64_t s[2] = {2, 2};
        float a[4] = {4, 2, 2, 5}, out[4];
        void *da, *dout;
        aclTensor *ta = mk(s, 2, a, &da), *to = mk(s, 2, NULL, &dout);
        for (int upper = 0; upper < 2; upper++) {
            st = run(aclnnLinalgCholeskyGetWorkspaceSize(ta, upper, to, &wsz, &ex), &wsz, &ex, cholesky2, "cholesky");
            if (st != 0) { printf("FAIL cholesky phase 2: %d\n", st); fails++; }
            aclrtMemcpy(out, sizeof out, dout, sizeof out, ACL_MEMCPY_DEVICE_TO_HOST);
            const double lower[4] = {2, 0, 1, 2}, up[4] = {2, 1, 0, 2};
            expect(upper ? "cholesky upper" : "cholesky lower", out, upper ? up : lower, 4, 0);
        }
        float bad[4] = {1, 2, 2, 1};
        aclrtMemcpy(da, sizeof bad, bad, sizeof bad, ACL_MEMCPY_HOST_TO_DEVICE);
        st = run(aclnnLinalgCholeskyGetWorkspaceSize(ta, false, to, &wsz, &ex), &wsz, &ex, cholesky2, "cholesky (indefinite)");
        if (st != 507015) { printf("FAIL an indefinite cholesky gave %d\n", st); fails++; }
        aclDestroyTensor(ta); aclDestroyTensor(to);
        aclrtFree(da); aclrtFree(dout);
    }

    /* QR of [[1, 2], [3, 4], [5, 6]]: torch.linalg.qr's factors (R's diagonal negative). */
    {
        const double qc[9] = {-0.16903085094570325, 0.8970852271450607, 0.4082482904638627,
                              -0.50709255283711, 0.27602622373694136, -0.8164965809277263,
                              -0.8451542547285166, -0.34503277967117696, 0.40824829046386313};
        const double rc[6] = {-5.916079783099616, -7.437357441610946, 0.0, 0.828078671210825, 0.0, 0.0};
        double qred[6], rred[4];
        for (int i = 0; i < 3; i++) for (int j = 0; j < 2; j++) qred[i * 2 + j] = qc[i * 3 + j];
        for (int i = 0; i < 4; i++) rred[i] = rc[i];
        int64_t sa[2] = {3, 2}, sq[2] = {3, 2}, sr[2] = {2, 2}, sqc[2] = {3, 3}, s0[1] = {0};
        float a[6] = {1, 2, 3, 4, 5, 6}, q[9], r[6];
        void *da, *dq, *dr, *dqc, *drc, *d0;
        aclTensor *ta = mk(sa, 2, a, &da), *tq = mk(sq, 2, NULL, &dq), *tr = mk(sr, 2, NULL, &dr);
        aclTensor *tqc = mk(sqc, 2, NULL, &dqc), *trc = mk(sa, 2, NULL, &drc), *t0 = mk(s0, 1, NULL, &d0);
        st = run(aclnnLinalgQrGetWorkspaceSize(ta, 0, tq, tr, &wsz, &ex), &wsz, &ex, linalg_qr2, "linalg_qr");
        if (st != 0) { printf("FAIL linalg_qr phase 2: %d\n", st); fails++; }
        aclrtMemcpy(q, 24, dq, 24, ACL_MEMCPY_DEVICE_TO_HOST);
        aclrtMemcpy(r, 16, dr, 16, ACL_MEMCPY_DEVICE_TO_HOST);
        expect("linalg_qr Q", q, qred, 6, 1e-6);
        expect("linalg_qr R", r, rred, 4, 1e-6);
        float zero[4] = {0, 0, 0, 0};
        aclrtMemcpy(dr, 16, zero, 16, ACL_MEMCPY_HOST_TO_DEVICE);
        st = run(aclnnLinalgQrGetWorkspaceSize(ta, 2, t0, tr, &wsz, &ex), &wsz, &ex, linalg_qr2, "linalg_qr r");
        if (st != 0) { printf("FAIL linalg_qr mode 2 phase 2: %d\n", st); fails++; }
        aclrtMemcpy(r, 16, dr, 16, ACL_MEMCPY_DEVICE_TO_HOST);
        expect("linalg_qr mode 2 R", r, rred, 4, 1e-6);
        st = run(aclnnQrGetWorkspaceSize(ta, false, tqc, trc, &wsz, &ex), &wsz, &ex, qr2, "qr");
        if (st != 0) { printf("FAIL qr phase 2: %d\n", st); fails++; }
        aclrtMemcpy(q, 36, dqc, 36, ACL_MEMCPY_DEVICE_TO_HOST);
        aclrtMemcpy(r, 24, drc, 24, ACL_MEMCPY_DEVICE_TO_HOST);
        expect("qr Q", q, qc, 9, 1e-6);
        expect("qr R", r, rc, 6, 1e-6);
        st = aclnnLinalgQrGetWorkspaceSize(ta, 1, tq, tr, &wsz, &ex);
        if (st != 161002) { printf("FAIL linalg_qr complete with a reduced Q gave %d\n", st); fails++; }
        st = aclnnQrGetWorkspaceSize(ta, true, tq, NULL, &wsz, &ex);
        if (st != 161001) { printf("FAIL qr NULL R gave %d\n", st); fails++; }
        aclDestroyTensor(ta); aclDestroyTensor(tq); aclDestroyTensor(tr);
        aclDestroyTensor(tqc); aclDestroyTensor(trc); aclDestroyTensor(t0);
        aclrtFree(da); aclrtFree(dq); aclrtFree(dr); aclrtFree(dqc); aclrtFree(drc); aclrtFree(d0);
    }

    /* SVD of [[3, 0], [4, 5]]: sigma = (3√5, √5); v holds V (not Vᴴ): u·diag(sigma)·vᵀ = input. */
    {
        int64_t s2[2] = {2, 2}, s1[1] = {2};
        float a[4] = {3, 0, 4, 5}, sg[2], u[4], v[4];
        void *da, *ds, *du, *dv;
        aclTensor *ta = mk(s2, 2, a, &da), *ts = mk(s1, 1, NULL, &ds), *tu = mk(s2, 2, NULL, &du), *tv = mk(s2, 2, NULL, &dv);
        st = run(aclnnSvdGetWorkspaceSize(ta, true, true, ts, tu, tv, &wsz, &ex), &wsz, &ex, svd2, "svd");
        if (st != 0) { printf("FAIL svd phase 2: %d\n", st); fails++; }
        aclrtMemcpy(sg, 8, ds, 8, ACL_MEMCPY_DEVICE_TO_HOST);
        aclrtMemcpy(u, 16, du, 16, ACL_MEMCPY_DEVICE_TO_HOST);
        aclrtMemcpy(v, 16, dv, 16, ACL_MEMCPY_DEVICE_TO_HOST);
        const double want_s[2] = {3 * sqrt(5.0), sqrt(5.0)};
        expect("svd sigma", sg, want_s, 2, 1e-6);
        float rec[4];
        double want_a[4] = {3, 0, 4, 5};
        for (int i = 0; i < 2; i++)
            for (int j = 0; j < 2; j++)
                rec[i * 2 + j] = u[i * 2] * sg[0] * v[j * 2] + u[i * 2 + 1] * sg[1] * v[j * 2 + 1];
        expect("svd u·diag(sigma)·vT", rec, want_a, 4, 1e-5);
        st = aclnnSvdGetWorkspaceSize(ta, true, true, ts, tu, NULL, &wsz, &ex);
        if (st != 161001) { printf("FAIL svd NULL v gave %d\n", st); fails++; }
        st = aclnnSvdGetWorkspaceSize(ta, true, true, tu, tu, tv, &wsz, &ex);
        if (st != 161002) { printf("FAIL svd sigma of the wrong shape gave %d\n", st); fails++; }
        aclDestroyTensor(ta); aclDestroyTensor(ts); aclDestroyTensor(tu); aclDestroyTensor(tv);
        aclrtFree(da); aclrtFree(ds); aclrtFree(du); aclrtFree(dv);
    }

    aclrtDestroyStream(stream);
    aclrtResetDevice(0);
    aclFinalize();
    if (fails) { printf("%d failures\n", fails); return 1; }
    printf("test_linalg: ok\n");
    return 0;
}
