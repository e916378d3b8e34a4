/*
 * The element-wise math headers of issue 21, driven as a CANN program drives them (aclInit,
 * a device and stream, aclrtMalloc'd tensors, phase 1, workspace, phase 2, synchronize,
 * copy back): Acos, Asin, Atan, Acosh, Asinh, Atanh, Sinc, Frac (+ in-place), Lgamma,
 * Digamma, Square, Atan2, LogAddExp(2), XLogY (tensor and scalar forms), Xlog1py,
 * FloorDivide(s), Remainder, Fmod, Gcd, LeftShift(s), RightShift, IsFinite, IsInf, IsPosInf,
 * IsNegInf, Signbit, IsClose, NanToNum, Complex, Polar, Real, Lerp(s), Addr, Rsub(s).
 *
 * Expected values come from libm in double (float results within the dtype's tolerance of
 * close_to) or are exact by hand; each header also checks a documented refusal (161001 for a
 * NULL, 161002 for a dtype or shape) with its message and nothing written.
 */
#include "ops_common.h"

#include "aclnnop/aclnn_acos.h"
#include "aclnnop/aclnn_acosh.h"
#include "aclnnop/aclnn_addr.h"
#include "aclnnop/aclnn_asin.h"
#include "aclnnop/aclnn_asinh.h"
#include "aclnnop/aclnn_atan.h"
#include "aclnnop/aclnn_atan2.h"
#include "aclnnop/aclnn_atanh.h"
#include "aclnnop/aclnn_complex.h"
#include "aclnnop/aclnn_digamma.h"
#include "aclnnop/aclnn_floor_divide.h"
#include "aclnnop/aclnn_fmod_scalar.h"
#include "aclnnop/aclnn_fmod_tensor.h"
#include "aclnnop/aclnn_frac.h"
#include "aclnnop/aclnn_gcd.h"
#include "aclnnop/aclnn_is_inf.h"
#include "aclnnop/aclnn_isclose.h"
#include "aclnnop/aclnn_isfinite.h"
#include "aclnnop/aclnn_isneginf.h"
#include "aclnnop/aclnn_isposinf.h"
#include "aclnnop/aclnn_left_shift.h"
#include "aclnnop/aclnn_lerp_scalar.h"
#include "aclnnop/aclnn_lerp_tensor.h"
#include "aclnnop/aclnn_lgamma.h"
#include "aclnnop/aclnn_max.h"
#include "aclnnop/aclnn_min.h"
#include "aclnnop/aclnn_logaddexp.h"
#include "aclnnop/aclnn_logaddexp2.h"
#include "aclnnop/aclnn_nan_to_num.h"
#include "aclnnop/aclnn_polar.h"
#include "aclnnop/aclnn_real.h"
#include "aclnnop/aclnn_remainder.h"
#include "aclnnop/aclnn_right_shift.h"
#include "aclnnop/aclnn_rsub.h"
#include "aclnnop/aclnn_signbit.h"
#include "aclnnop/aclnn_sinc.h"
#include "aclnnop/aclnn_square.h"
#include "aclnnop/aclnn_x_log_y_scalar_other.h"
#include "aclnnop/aclnn_x_log_y_scalar_self.h"
#include "aclnnop/aclnn_x_log_y_tensor.h"
#include "aclnnop/aclnn_xlog1py.h"

#define F ACL_FLOAT
#define H ACL_FLOAT16
#define D ACL_DOUBLE
#define I ACL_INT32
#define B ACL_BOOL
#define PI 3.14159265358979323846

static int64_t s4[] = {4}, s22[] = {2, 2}, s2[] = {2}, s23[] = {2, 3};

/* The digamma reference: the recurrence to x >= 10 and the asymptotic series. */
static double psi(double x)
{
    double acc = 0;
    while (x < 10) acc -= 1 / x, x += 1;
    double z = 1 / (x * x);
    return acc + log(x) - 0.5 / x -
           z * (1.0 / 12 - z * (1.0 / 120 - z * (1.0 / 252 - z * (1.0 / 240 - z * (1.0 / 132 - z * 691.0 / 32760)))));
}

static void test_inverse_trig_and_special_functions(void)
{
    /* The CANN sample's Acos values, in f64, and in place on a strided view (f32). */
    DevTensor x = mk(D, s4, 1, V(1, -1, 0, 0.5)), o = mk(D, s4, 1, NULL);
    RUN2(aclnnAcosGetWorkspaceSize(x.tensor, o.tensor, &ews, &eex), aclnnAcos);
    EXPECT_T(o, 0, PI, PI / 2, acos(0.5));
    DevTensor xi = mk(I, s4, 1, V(0, 1, -1, 2)), of = mk(F, s4, 1, NULL);
    RUN2(aclnnAsinGetWorkspaceSize(xi.tensor, of.tensor, &ews, &eex), aclnnAsin); /* s32 in f32 */
    EXPECT_T(of, 0, PI / 2, -PI / 2, NAN);
    DevTensor v = mkv(F, VSTORE, 2, NULL, VSHAPE, 2, VSTRIDES, VOFF);
    double vals[12], want[12];
    for (int k = 0; k < 12; k++) vals[k] = -0.9 + 0.15 * k, want[k] = atan(vals[k]);
    double *st = dbl(100);
    for (int k = 0; k < 100; k++) st[k] = 7;
    for (int k = 0; k < 12; k++) st[view_pos(k)] = vals[k];
    dev_free(&v);
    v = mkv(F, VSTORE, 2, st, VSHAPE, 2, VSTRIDES, VOFF);
    RUN2(aclnnInplaceAtanGetWorkspaceSize(v.tensor, &ews, &eex), aclnnInplaceAtan);
    double *got = dbl(100);
    rd(&v, got);
    for (int k = 0; k < 100; k++) {
        if (!in_view(k)) CHECK(got[k] == 7); /* outside the view: untouched */
    }
    for (int k = 0; k < 12; k++) CHECK(close_to(F, got[view_pos(k)], want[k]));
    free(st), free(got);
    DevTensor h = mk(H, s4, 1, V(1, 2, 10, 0.5)), oh = mk(H, s4, 1, NULL);
    RUN2(aclnnAcoshGetWorkspaceSize(h.tensor, oh.tensor, &ews, &eex), aclnnAcosh);
    EXPECT_T(oh, 0, acosh(2), acosh(10), NAN);
    dev_write(&of, (const float[]){0, 0, 0, 0});
    DevTensor xf = mk(F, s4, 1, V(0.5, -2, 3e38, 0));
    RUN2(aclnnAsinhGetWorkspaceSize(xf.tensor, of.tensor, &ews, &eex), aclnnAsinh);
    EXPECT_T(of, asinh(0.5), asinh(-2), asinh((double)3e38f), 0);
    DevTensor xa = mk(F, s4, 1, V(0.5, -1, 1, 2));
    RUN2(aclnnInplaceAtanhGetWorkspaceSize(xa.tensor, &ews, &eex), aclnnInplaceAtanh);
    EXPECT_T(xa, atanh(0.5), -INFINITY, INFINITY, NAN);
    DevTensor xs = mk(F, s4, 1, V(0, 0.5, 1, -1.5));
    RUN2(aclnnSincGetWorkspaceSize(xs.tensor, of.tensor, &ews, &eex), aclnnSinc);
    EXPECT_T(of, 1, sin(PI / 2) / (PI / 2), sin(PI) / PI, sin(-1.5 * PI) / (-1.5 * PI));
    DevTensor xg = mk(F, s4, 1, V(0.5, 3, -2.5, 0));
    RUN2(aclnnLgammaGetWorkspaceSize(xg.tensor, of.tensor, &ews, &eex), aclnnLgamma);
    EXPECT_T(of, lgamma(0.5), log(2), lgamma(-2.5), INFINITY);
    DevTensor xd = mk(D, s4, 1, V(1, 12.5, -0.5, -2)), od = mk(D, s4, 1, NULL);
    RUN2(aclnnDigammaGetWorkspaceSize(xd.tensor, od.tensor, &ews, &eex), aclnnDigamma);
    EXPECT_T(od, -0.57721566490153286, psi(12.5), psi(1.5), NAN); /* ψ(−0.5) = ψ(1.5) − π·cot(−π/2) */
    DevTensor fr = mk(F, s4, 1, V(2.75, -2.75, INFINITY, -0.0));
    RUN2(aclnnInplaceFracGetWorkspaceSize(fr.tensor, &ews, &eex), aclnnInplaceFrac);
    EXPECT_T(fr, 0.75, -0.75, NAN, 0); /* −0 − trunc(−0) = +0, as torch's */
    DevTensor sq = mk(I, s4, 1, V(3, -4, 65536, 0)), osq = mk(I, s4, 1, NULL);
    RUN2(aclnnSquareGetWorkspaceSize(sq.tensor, osq.tensor, &ews, &eex), aclnnSquare);
    EXPECT_T(osq, 9, 16, 0, 0); /* 65536² wraps to 0 in s32 */
    /* Refusals: NULL, an integer out, Lgamma's out of another dtype. */
    EXPECT_ERR(aclnnAcosGetWorkspaceSize(NULL, o.tensor, &ews, &eex), ACLNN_ERR_PARAM_NULLPTR,
               "aclnnAcosGetWorkspaceSize", "input", &o);
    EXPECT_ERR(aclnnAsinGetWorkspaceSize(xf.tensor, osq.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnAsinGetWorkspaceSize", "out", &osq);
    EXPECT_ERR(aclnnLgammaGetWorkspaceSize(xd.tensor, of.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnLgammaGetWorkspaceSize", "out", &of);
    DevTensor *ts[] = {&x, &o, &xi, &of, &v, &h, &oh, &xf, &xa, &xs, &xg, &xd, &od, &fr, &sq, &osq};
    for (size_t k = 0; k < ARRAY_LEN(ts); k++) dev_free(ts[k]);
}

static void test_binary_float_functions(void)
{
    DevTensor y = mk(F, s22, 2, V(1, -1, 0, -0.0)), x = mk(F, s2, 1, V(-1, 1)), o = mk(F, s22, 2, NULL);
    RUN2(aclnnAtan2GetWorkspaceSize(y.tensor, x.tensor, o.tensor, &ews, &eex), aclnnAtan2); /* x broadcasts */
    EXPECT_T(o, atan2(1, -1), atan2(-1, 1), atan2(0, -1), atan2(-0.0, 1));
    DevTensor a = mk(F, s4, 1, V(0, 1000, -INFINITY, INFINITY)), b = mk(F, s4, 1, V(0, 1000, -INFINITY, 1));
    DevTensor o4 = mk(F, s4, 1, NULL);
    RUN2(aclnnLogAddExpGetWorkspaceSize(a.tensor, b.tensor, o4.tensor, &ews, &eex), aclnnLogAddExp);
    EXPECT_T(o4, log(2), 1000 + log(2), -INFINITY, INFINITY);
    RUN2(aclnnLogAddExp2GetWorkspaceSize(a.tensor, b.tensor, o4.tensor, &ews, &eex), aclnnLogAddExp2);
    EXPECT_T(o4, 1, 1001, -INFINITY, INFINITY);
    DevTensor xs = mk(I, s4, 1, V(0, 0, 2, 3)), ys = mk(F, s4, 1, V(0, NAN, 8, 0));
    RUN2(aclnnXLogYTensorGetWorkspaceSize(xs.tensor, ys.tensor, o4.tensor, &ews, &eex), aclnnXLogYTensor);
    EXPECT_T(o4, 0, NAN, 2 * log(8), -INFINITY);
    aclScalar *two = sc(F, 2), *e = sc(F, 2.718281828459045);
    RUN2(aclnnXLogYScalarSelfGetWorkspaceSize(two, ys.tensor, o4.tensor, &ews, &eex), aclnnXLogYScalarSelf);
    EXPECT_T(o4, -INFINITY, NAN, 2 * log(8), -INFINITY);
    RUN2(aclnnXLogYScalarOtherGetWorkspaceSize(xs.tensor, e, o4.tensor, &ews, &eex), aclnnXLogYScalarOther);
    EXPECT_T(o4, 0, 0, 2, 3);
    DevTensor yr = mk(F, s4, 1, V(1, 2, 3, 4));
    RUN2(aclnnInplaceXLogYScalarOtherGetWorkspaceSize(yr.tensor, two, &ews, &eex), aclnnInplaceXLogYScalarOther);
    EXPECT_T(yr, log(2), 2 * log(2), 3 * log(2), 4 * log(2));
    RUN2(aclnnInplaceXLogYTensorGetWorkspaceSize(yr.tensor, a.tensor, &ews, &eex), aclnnInplaceXLogYTensor);
    EXPECT_T(yr, -INFINITY, 2 * log(2) * log(1000), NAN, INFINITY);
    DevTensor lx = mk(F, s4, 1, V(0, 2, 0, 1)), ly = mk(F, s4, 1, V(-1, 1, NAN, -1)), lz = mk(F, s4, 1, NULL);
    RUN2(aclnnXlog1pyGetWorkspaceSize(lx.tensor, ly.tensor, lz.tensor, &ews, &eex), aclnnXlog1py);
    EXPECT_T(lz, 0, 2 * log(2), NAN, -INFINITY);
    /* Xlog1py's three tensors share one dtype; Atan2 into an integer refused. */
    DevTensor hz = mk(H, s4, 1, NULL), iz = mk(I, s4, 1, NULL);
    EXPECT_ERR(aclnnXlog1pyGetWorkspaceSize(lx.tensor, ly.tensor, hz.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnXlog1pyGetWorkspaceSize", "z", &hz);
    EXPECT_ERR(aclnnAtan2GetWorkspaceSize(a.tensor, b.tensor, iz.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnAtan2GetWorkspaceSize", "out", &iz);
    EXPECT_ERR(aclnnXLogYScalarSelfGetWorkspaceSize(NULL, ys.tensor, o4.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_NULLPTR, "aclnnXLogYScalarSelfGetWorkspaceSize", "self", &o4);
    CHECK_OK(aclDestroyScalar(two));
    CHECK_OK(aclDestroyScalar(e));
    DevTensor *ts[] = {&y, &x, &o, &a, &b, &o4, &xs, &ys, &yr, &lx, &ly, &lz, &hz, &iz};
    for (size_t k = 0; k < ARRAY_LEN(ts); k++) dev_free(ts[k]);
}

static void test_division_remainders(void)
{
    DevTensor a = mk(F, s4, 1, V(7, -7, 1, -0.0)), b = mk(F, s4, 1, V(2, 2, 0.1, 3)), o = mk(F, s4, 1, NULL);
    RUN2(aclnnFloorDivideGetWorkspaceSize(a.tensor, b.tensor, o.tensor, &ews, &eex), aclnnFloorDivide);
    EXPECT_T(o, 3, -4, 9, -0.0); /* Python's 1 // 0.1 == 9 */
    RUN2(aclnnRemainderTensorTensorGetWorkspaceSize(a.tensor, b.tensor, o.tensor, &ews, &eex),
         aclnnRemainderTensorTensor);
    EXPECT_T(o, 1, 1, fmod(1.0f, 0.1f), -0.0);
    RUN2(aclnnFmodTensorGetWorkspaceSize(a.tensor, b.tensor, o.tensor, &ews, &eex), aclnnFmodTensor);
    EXPECT_T(o, 1, -1, fmod(1.0f, 0.1f), -0.0);
    DevTensor n = mk(I, s4, 1, V(7, -7, 5, -2147483648.0)), on = mk(I, s4, 1, NULL);
    aclScalar *m3 = sc(I, -3), *z = sc(I, 0), *s2s = sc(I, 2);
    RUN2(aclnnFloorDividesGetWorkspaceSize(n.tensor, m3, on.tensor, &ews, &eex), aclnnFloorDivides);
    EXPECT_T(on, -3, 2, -2, 715827882);
    RUN2(aclnnRemainderTensorScalarGetWorkspaceSize(n.tensor, m3, on.tensor, &ews, &eex),
         aclnnRemainderTensorScalar);
    EXPECT_T(on, -2, -1, -1, -2);
    RUN2(aclnnFmodScalarGetWorkspaceSize(n.tensor, m3, on.tensor, &ews, &eex), aclnnFmodScalar);
    EXPECT_T(on, 1, -1, 2, -2);
    /* Integer division by zero: x // 0 = 0, x % 0 = x (documented in modulo.rs). */
    RUN2(aclnnFloorDividesGetWorkspaceSize(n.tensor, z, on.tensor, &ews, &eex), aclnnFloorDivides);
    EXPECT_T(on, 0, 0, 0, 0);
    RUN2(aclnnRemainderScalarTensorGetWorkspaceSize(s2s, n.tensor, on.tensor, &ews, &eex),
         aclnnRemainderScalarTensor);
    EXPECT_T(on, 2, -5, 2, -2147483646);
    DevTensor r = mk(I, s4, 1, V(7, -7, 5, 9)), d = mk(I, s4, 1, V(2, 2, 0, -4));
    RUN2(aclnnInplaceFloorDivideGetWorkspaceSize(r.tensor, d.tensor, &ews, &eex), aclnnInplaceFloorDivide);
    EXPECT_T(r, 3, -4, 0, -3);
    RUN2(aclnnInplaceRemainderTensorTensorGetWorkspaceSize(r.tensor, d.tensor, &ews, &eex),
         aclnnInplaceRemainderTensorTensor);
    EXPECT_T(r, 1, 0, 0, -3);
    RUN2(aclnnInplaceFloorDividesGetWorkspaceSize(r.tensor, s2s, &ews, &eex), aclnnInplaceFloorDivides);
    EXPECT_T(r, 0, 0, 0, -2);
    RUN2(aclnnInplaceRemainderTensorScalarGetWorkspaceSize(r.tensor, m3, &ews, &eex),
         aclnnInplaceRemainderTensorScalar);
    EXPECT_T(r, 0, 0, 0, -2);
    RUN2(aclnnInplaceFmodTensorGetWorkspaceSize(a.tensor, b.tensor, &ews, &eex), aclnnInplaceFmodTensor);
    EXPECT_T(a, 1, -1, fmod(1.0f, 0.1f), -0.0);
    aclScalar *half = sc(F, 0.75);
    RUN2(aclnnInplaceFmodScalarGetWorkspaceSize(a.tensor, half, &ews, &eex), aclnnInplaceFmodScalar);
    EXPECT_T(a, 0.25, -0.25, fmod(fmod(1.0f, 0.1f), 0.75), -0.0);
    /* Remainder refuses bool; FloorDivide's out takes no bool. */
    DevTensor bb = mk(B, s4, 1, NULL), ob = mk(B, s4, 1, NULL);
    EXPECT_ERR(aclnnRemainderTensorTensorGetWorkspaceSize(bb.tensor, b.tensor, o.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnRemainderTensorTensorGetWorkspaceSize", "self", &o);
    EXPECT_ERR(aclnnFloorDivideGetWorkspaceSize(n.tensor, d.tensor, ob.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnFloorDivideGetWorkspaceSize", "out", &ob);
    aclScalar *all[] = {m3, z, s2s, half};
    for (size_t k = 0; k < ARRAY_LEN(all); k++) CHECK_OK(aclDestroyScalar(all[k]));
    DevTensor *ts[] = {&a, &b, &o, &n, &on, &r, &d, &bb, &ob};
    for (size_t k = 0; k < ARRAY_LEN(ts); k++) dev_free(ts[k]);
}

static void test_integer_ops(void)
{
    DevTensor a = mk(I, s4, 1, V(12, -18, 0, 7)), b = mk(I, s4, 1, V(18, 12, 0, -21)), o = mk(I, s4, 1, NULL);
    RUN2(aclnnGcdGetWorkspaceSize(a.tensor, b.tensor, o.tensor, &ews, &eex), aclnnGcd);
    EXPECT_T(o, 6, 6, 0, 7);
    DevTensor x = mk(ACL_INT8, s4, 1, V(1, -1, 64, -128)), c = mk(ACL_INT8, s4, 1, V(3, 1, 1, 8));
    DevTensor o8 = mk(ACL_INT8, s4, 1, NULL);
    RUN2(aclnnLeftShiftGetWorkspaceSize(x.tensor, c.tensor, o8.tensor, &ews, &eex), aclnnLeftShift);
    EXPECT_T(o8, 8, -2, -128, 0); /* bits shifted out are lost; a count of 8 gives 0 */
    RUN2(aclnnRightShiftGetWorkspaceSize(x.tensor, c.tensor, o8.tensor, &ews, &eex), aclnnRightShift);
    EXPECT_T(o8, 0, -1, 32, -1); /* arithmetic; a count of 8 fills with the sign */
    aclScalar *two = sc(ACL_INT8, 2);
    RUN2(aclnnLeftShiftsGetWorkspaceSize(x.tensor, two, o8.tensor, &ews, &eex), aclnnLeftShifts);
    EXPECT_T(o8, 4, -4, 0, 0);
    DevTensor u = mk(ACL_UINT16, s2, 1, V(0x8001, 3)), uc = mk(ACL_UINT16, s2, 1, V(15, 16));
    DevTensor ou = mk(ACL_UINT16, s2, 1, NULL);
    RUN2(aclnnRightShiftGetWorkspaceSize(u.tensor, uc.tensor, ou.tensor, &ews, &eex), aclnnRightShift);
    EXPECT_T(ou, 1, 0);
    DevTensor f = mk(F, s4, 1, NULL);
    EXPECT_ERR(aclnnGcdGetWorkspaceSize(f.tensor, b.tensor, o.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnGcdGetWorkspaceSize", "self", &o);
    EXPECT_ERR(aclnnLeftShiftsGetWorkspaceSize(x.tensor, NULL, o8.tensor, &ews, &eex), ACLNN_ERR_PARAM_NULLPTR,
               "aclnnLeftShiftsGetWorkspaceSize", "shiftBits", &o8);
    CHECK_OK(aclDestroyScalar(two));
    DevTensor *ts[] = {&a, &b, &o, &x, &c, &o8, &u, &uc, &ou, &f};
    for (size_t k = 0; k < ARRAY_LEN(ts); k++) dev_free(ts[k]);
}

static void test_classification(void)
{
    DevTensor x = mk(F, s4, 1, V(-0.0, INFINITY, -INFINITY, NAN)), o = mk(B, s4, 1, NULL);
    RUN2(aclnnIsFiniteGetWorkspaceSize(x.tensor, o.tensor, &ews, &eex), aclnnIsFinite);
    EXPECT_T(o, 1, 0, 0, 0);
    RUN2(aclnnIsInfGetWorkspaceSize(x.tensor, o.tensor, &ews, &eex), aclnnIsInf);
    EXPECT_T(o, 0, 1, 1, 0);
    RUN2(aclnnIsPosInfGetWorkspaceSize(x.tensor, o.tensor, &ews, &eex), aclnnIsPosInf);
    EXPECT_T(o, 0, 1, 0, 0);
    RUN2(aclnnIsNegInfGetWorkspaceSize(x.tensor, o.tensor, &ews, &eex), aclnnIsNegInf);
    EXPECT_T(o, 0, 0, 1, 0);
    DevTensor oi = mk(I, s4, 1, NULL);
    RUN2(aclnnSignbitGetWorkspaceSize(x.tensor, oi.tensor, &ews, &eex), aclnnSignbit); /* bool -> s32 out */
    EXPECT_T(oi, 1, 0, 1, 0);
    DevTensor y = mk(F, s4, 1, V(1e-9, INFINITY, INFINITY, NAN));
    RUN2(aclnnIsCloseGetWorkspaceSize(x.tensor, y.tensor, 1e-5, 1e-8, true, o.tensor, &ews, &eex), aclnnIsClose);
    EXPECT_T(o, 1, 1, 0, 1);
    DevTensor h = mk(H, s4, 1, V(NAN, INFINITY, -INFINITY, 2)), oh = mk(H, s4, 1, NULL);
    RUN2(aclnnNanToNumGetWorkspaceSize(h.tensor, 0.5f, 3.0e38f, -1.0f, oh.tensor, &ews, &eex), aclnnNanToNum);
    EXPECT_T(oh, 0.5, INFINITY, -1, 2); /* 3e38 rounds to inf in f16, as a cast would */
    RUN2(aclnnInplaceNanToNumGetWorkspaceSize(x.tensor, 0, 1, -1, &ews, &eex), aclnnInplaceNanToNum);
    EXPECT_T(x, -0.0, 1, -1, 0);
    DevTensor xi = mk(I, s4, 1, NULL);
    EXPECT_ERR(aclnnIsFiniteGetWorkspaceSize(xi.tensor, o.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnIsFiniteGetWorkspaceSize", "self", &o);
    EXPECT_ERR(aclnnIsCloseGetWorkspaceSize(x.tensor, h.tensor, 1e-5, 1e-8, false, o.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnIsCloseGetWorkspaceSize", "other", &o);
    EXPECT_ERR(aclnnIsInfGetWorkspaceSize(NULL, o.tensor, &ews, &eex), ACLNN_ERR_PARAM_NULLPTR,
               "aclnnIsInfGetWorkspaceSize", "x", &o);
    DevTensor *ts[] = {&x, &o, &oi, &y, &h, &oh, &xi};
    for (size_t k = 0; k < ARRAY_LEN(ts); k++) dev_free(ts[k]);
}

static void test_complex_numbers(void)
{
    DevTensor re = mk(F, s2, 1, V(1, -2)), im = mk(F, s2, 1, V(0.5, 3)), c = mk(ACL_COMPLEX64, s2, 1, NULL);
    RUN2(aclnnComplexGetWorkspaceSize(re.tensor, im.tensor, c.tensor, &ews, &eex), aclnnComplex);
    EXPECT_T(c, 1, 0.5, -2, 3);
    DevTensor r = mk(F, s2, 1, NULL);
    RUN2(aclnnRealGetWorkspaceSize(c.tensor, r.tensor, &ews, &eex), aclnnReal);
    EXPECT_T(r, 1, -2);
    DevTensor ab = mk(F, s2, 1, V(2, 1)), an = mk(F, s2, 1, V(PI / 2, PI / 3));
    RUN2(aclnnPolarGetWorkspaceSize(ab.tensor, an.tensor, c.tensor, &ews, &eex), aclnnPolar);
    EXPECT_T(c, 2 * cos((float)(PI / 2)), 2 * sin((float)(PI / 2)), cos((float)(PI / 3)), sin((float)(PI / 3)));
    DevTensor hh = mk(H, s2, 1, NULL);
    EXPECT_ERR(aclnnPolarGetWorkspaceSize(hh.tensor, hh.tensor, c.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnPolarGetWorkspaceSize", "input", &c);
    EXPECT_ERR(aclnnComplexGetWorkspaceSize(re.tensor, im.tensor, r.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnComplexGetWorkspaceSize", "out", &r);
    DevTensor *ts[] = {&re, &im, &c, &r, &ab, &an, &hh};
    for (size_t k = 0; k < ARRAY_LEN(ts); k++) dev_free(ts[k]);
}

static void test_lerp_addr_rsub(void)
{
    DevTensor s = mk(F, s4, 1, V(0, 1, 2, 10)), e = mk(F, s4, 1, V(10, 3, 2, INFINITY));
    DevTensor w = mk(F, s4, 1, V(0.25, 1, 0.5, -2)), o = mk(F, s4, 1, NULL);
    RUN2(aclnnLerpGetWorkspaceSize(s.tensor, e.tensor, w.tensor, o.tensor, &ews, &eex), aclnnLerp);
    EXPECT_T(o, 2.5, 3, 2, -INFINITY);
    aclScalar *q = sc(F, 0.75);
    RUN2(aclnnLerpsGetWorkspaceSize(s.tensor, e.tensor, q, o.tensor, &ews, &eex), aclnnLerps);
    EXPECT_T(o, 7.5, 2.5, 2, NAN); /* inf − (inf − 10)·0.25 */
    RUN2(aclnnInplaceLerpsGetWorkspaceSize(s.tensor, e.tensor, q, &ews, &eex), aclnnInplaceLerps);
    EXPECT_T(s, 7.5, 2.5, 2, NAN);
    DevTensor s2t = mk(F, s4, 1, V(0, 1, 2, 3));
    RUN2(aclnnInplaceLerpGetWorkspaceSize(s2t.tensor, e.tensor, w.tensor, &ews, &eex), aclnnInplaceLerp);
    EXPECT_T(s2t, 2.5, 3, 2, -INFINITY);
    /* Addr: (2,3) = beta·self + alpha·vec1 ⊗ vec2; beta 0 ignores a NaN self. */
    DevTensor m = mk(F, s23, 2, V(1, 1, 1, 1, 1, NAN)), v1 = mk(F, s2, 1, V(1, 2));
    int64_t s3[] = {3};
    DevTensor v2 = mk(F, s3, 1, V(1, 10, 100)), om = mk(F, s23, 2, NULL);
    aclScalar *two = sc(F, 2), *zero = sc(F, 0);
    RUN2(aclnnAddrGetWorkspaceSize(m.tensor, v1.tensor, v2.tensor, NULL, two, om.tensor, &ews, &eex), aclnnAddr);
    EXPECT_T(om, 3, 21, 201, 5, 41, NAN);
    RUN2(aclnnAddrGetWorkspaceSize(m.tensor, v1.tensor, v2.tensor, zero, NULL, om.tensor, &ews, &eex), aclnnAddr);
    EXPECT_T(om, 1, 10, 100, 2, 20, 200);
    RUN2(aclnnInplaceAddrGetWorkspaceSize(m.tensor, v1.tensor, v2.tensor, two, two, &ews, &eex), aclnnInplaceAddr);
    EXPECT_T(m, 4, 22, 202, 6, 42, NAN);
    /* Rsub: other − alpha·self. */
    DevTensor a = mk(I, s2, 1, V(1, 2)), b = mk(I, s2, 1, V(10, 20)), oi = mk(I, s2, 1, NULL);
    aclScalar *three = sc(I, 3), *hundred = sc(I, 100);
    RUN2(aclnnRsubGetWorkspaceSize(a.tensor, b.tensor, three, oi.tensor, &ews, &eex), aclnnRsub);
    EXPECT_T(oi, 7, 14);
    RUN2(aclnnRsubsGetWorkspaceSize(a.tensor, hundred, three, oi.tensor, &ews, &eex), aclnnRsubs);
    EXPECT_T(oi, 97, 94);
    /* Lerp's operands share one dtype; Addr's vectors are 1-D; a float alpha for integers. */
    DevTensor hw = mk(H, s4, 1, NULL);
    EXPECT_ERR(aclnnLerpGetWorkspaceSize(s.tensor, e.tensor, hw.tensor, o.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnLerpGetWorkspaceSize", "weight", &o);
    EXPECT_ERR(aclnnAddrGetWorkspaceSize(m.tensor, m.tensor, v2.tensor, NULL, NULL, om.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnAddrGetWorkspaceSize", "vec1", &om);
    DevTensor mi = mk(I, s23, 2, NULL), vi = mk(I, s2, 1, NULL), wi = mk(I, s3, 1, NULL), omi = mk(I, s23, 2, NULL);
    EXPECT_ERR(aclnnAddrGetWorkspaceSize(mi.tensor, vi.tensor, wi.tensor, NULL, q, omi.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnAddrGetWorkspaceSize", "alphaOptional", &omi);
    EXPECT_ERR(aclnnRsubGetWorkspaceSize(a.tensor, b.tensor, NULL, oi.tensor, &ews, &eex), ACLNN_ERR_PARAM_NULLPTR,
               "aclnnRsubGetWorkspaceSize", "alpha", &oi);
    aclScalar *all[] = {q, two, zero, three, hundred};
    for (size_t k = 0; k < ARRAY_LEN(all); k++) CHECK_OK(aclDestroyScalar(all[k]));
    DevTensor *ts[] = {&s, &e, &w, &o, &s2t, &m, &v1, &v2, &om, &a, &b, &oi, &hw, &mi, &vi, &wi, &omi};
    for (size_t k = 0; k < ARRAY_LEN(ts); k++) dev_free(ts[k]);
}

static void test_whole_tensor_max_min(void)
{
    int64_t s1[] = {1};
    DevTensor x = mk(F, s23, 2, V(3, -1, 7.5, 2, -8, 0)), o = mk(F, s1, 1, NULL);
    RUN2(aclnnMaxGetWorkspaceSize(x.tensor, o.tensor, &ews, &eex), aclnnMax);
    EXPECT_T(o, 7.5);
    RUN2(aclnnMinGetWorkspaceSize(x.tensor, o.tensor, &ews, &eex), aclnnMin);
    EXPECT_T(o, -8);
    DevTensor n = mk(I, s4, 1, V(4, -2, 9, 1)), on = mk(I, s1, 1, NULL);
    RUN2(aclnnMaxGetWorkspaceSize(n.tensor, on.tensor, &ews, &eex), aclnnMax);
    EXPECT_T(on, 9);
    DevTensor nan = mk(F, s4, 1, V(1, NAN, 3, 4));
    RUN2(aclnnMinGetWorkspaceSize(nan.tensor, o.tensor, &ews, &eex), aclnnMin); /* NaN propagates */
    EXPECT_T(o, NAN);
    DevTensor oh = mk(H, s1, 1, NULL);
    EXPECT_ERR(aclnnMaxGetWorkspaceSize(x.tensor, oh.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnMaxGetWorkspaceSize", "out", &oh);
    EXPECT_ERR(aclnnMinGetWorkspaceSize(NULL, o.tensor, &ews, &eex), ACLNN_ERR_PARAM_NULLPTR,
               "aclnnMinGetWorkspaceSize", "self", &o);
    DevTensor *ts[] = {&x, &o, &n, &on, &nan, &oh};
    for (size_t k = 0; k < ARRAY_LEN(ts); k++) dev_free(ts[k]);
}

int main(void)
{
    device_init();
    RUN_TEST(test_inverse_trig_and_special_functions);
    RUN_TEST(test_binary_float_functions);
    RUN_TEST(test_division_remainders);
    RUN_TEST(test_integer_ops);
    RUN_TEST(test_classification);
    RUN_TEST(test_complex_numbers);
    RUN_TEST(test_lerp_addr_rsub);
    RUN_TEST(test_whole_tensor_max_min);
    device_teardown();
    return capi_finish();
}
