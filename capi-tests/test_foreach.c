/*
 * The foreach operators (aclnnop/aclnn_foreach_*.h) as a CANN user calls them: aclInit,
 * aclrtSetDevice, a stream, aclrtMalloc'd members, aclCreateTensorList, phase 1, the
 * workspace, phase 2, synchronize, copy back. Each list has two members: a (2, 3)
 * tensor at offset 1 and a strided (3,) view (stride 2, offset 1) of an 8-element
 * storage; storage outside the views must keep its sentinel. Expected values are
 * double-precision formulas (f32 within 1e-5 relative).
 */
#include "common.h"

#include "aclnnop/aclnn_foreach_abs.h"
#include "aclnnop/aclnn_foreach_acos.h"
#include "aclnnop/aclnn_foreach_asin.h"
#include "aclnnop/aclnn_foreach_atan.h"
#include "aclnnop/aclnn_foreach_cos.h"
#include "aclnnop/aclnn_foreach_cosh.h"
#include "aclnnop/aclnn_foreach_erf.h"
#include "aclnnop/aclnn_foreach_erfc.h"
#include "aclnnop/aclnn_foreach_exp.h"
#include "aclnnop/aclnn_foreach_expm1.h"
#include "aclnnop/aclnn_foreach_log.h"
#include "aclnnop/aclnn_foreach_log10.h"
#include "aclnnop/aclnn_foreach_log1p.h"
#include "aclnnop/aclnn_foreach_log2.h"
#include "aclnnop/aclnn_foreach_neg.h"
#include "aclnnop/aclnn_foreach_reciprocal.h"
#include "aclnnop/aclnn_foreach_sigmoid.h"
#include "aclnnop/aclnn_foreach_sign.h"
#include "aclnnop/aclnn_foreach_sin.h"
#include "aclnnop/aclnn_foreach_sinh.h"
#include "aclnnop/aclnn_foreach_sqrt.h"
#include "aclnnop/aclnn_foreach_tan.h"
#include "aclnnop/aclnn_foreach_tanh.h"
#include "aclnnop/aclnn_foreach_add_list.h"
#include "aclnnop/aclnn_foreach_add_list_v2.h"
#include "aclnnop/aclnn_foreach_add_scalar.h"
#include "aclnnop/aclnn_foreach_add_scalar_v2.h"
#include "aclnnop/aclnn_foreach_add_scalar_list.h"
#include "aclnnop/aclnn_foreach_sub_list.h"
#include "aclnnop/aclnn_foreach_sub_list_v2.h"
#include "aclnnop/aclnn_foreach_sub_scalar.h"
#include "aclnnop/aclnn_foreach_sub_scalar_v2.h"
#include "aclnnop/aclnn_foreach_sub_scalar_list.h"
#include "aclnnop/aclnn_foreach_mul_list.h"
#include "aclnnop/aclnn_foreach_mul_scalar.h"
#include "aclnnop/aclnn_foreach_mul_scalar_v2.h"
#include "aclnnop/aclnn_foreach_mul_scalar_list.h"
#include "aclnnop/aclnn_foreach_div_list.h"
#include "aclnnop/aclnn_foreach_div_scalar.h"
#include "aclnnop/aclnn_foreach_div_scalar_v2.h"
#include "aclnnop/aclnn_foreach_div_scalar_list.h"
#include "aclnnop/aclnn_foreach_maximum_list.h"
#include "aclnnop/aclnn_foreach_maximum_scalar.h"
#include "aclnnop/aclnn_foreach_maximum_scalar_v2.h"
#include "aclnnop/aclnn_foreach_maximum_scalar_list.h"
#include "aclnnop/aclnn_foreach_minimum_list.h"
#include "aclnnop/aclnn_foreach_minimum_scalar.h"
#include "aclnnop/aclnn_foreach_minimum_scalar_v2.h"
#include "aclnnop/aclnn_foreach_minimum_scalar_list.h"
#include "aclnnop/aclnn_foreach_pow_list.h"
#include "aclnnop/aclnn_foreach_pow_scalar.h"
#include "aclnnop/aclnn_foreach_pow_scalar_v2.h"
#include "aclnnop/aclnn_foreach_pow_scalar_list.h"
#include "aclnnop/aclnn_foreach_addcdiv_list.h"
#include "aclnnop/aclnn_foreach_addcdiv_scalar.h"
#include "aclnnop/aclnn_foreach_addcdiv_scalar_list.h"
#include "aclnnop/aclnn_foreach_addcdiv_scalar_v2.h"
#include "aclnnop/aclnn_foreach_addcmul_list.h"
#include "aclnnop/aclnn_foreach_addcmul_scalar.h"
#include "aclnnop/aclnn_foreach_addcmul_scalar_list.h"
#include "aclnnop/aclnn_foreach_addcmul_scalar_v2.h"
#include "aclnnop/aclnn_foreach_lerp_list.h"
#include "aclnnop/aclnn_foreach_lerp_scalar.h"
#include "aclnnop/aclnn_foreach_norm.h"
#include "aclnnop/aclnn_foreach_pow_scalar_and_tensor.h"
#include "aclnnop/aclnn_foreach_round_off_number.h"
#include "aclnnop/aclnn_foreach_round_off_number_v2.h"
#include "aclnnop/aclnn_foreach_copy.h"
#include "aclnnop/aclnn_foreach_zero_inplace.h"
#include "aclnnop/aclnn_fused_adamw.h"
#include "aclnnop/aclnn_fused_sgd.h"
#include "aclnnop/aclnn_apply_adam_w_v2.h"

#include <math.h>

#define NM 2          /* members per list */
#define STORE 8       /* elements of each member's storage */
#define SENTINEL 77.0f

static const int64_t SHAPE0[] = {2, 3}, STRIDE0[] = {3, 1};
static const int64_t SHAPE1[] = {3}, STRIDE1[] = {2};
static const int64_t STORAGE[] = {STORE};
static const int64_t NUMEL[NM] = {6, 3};

/* Storage position of element i of member k. */
static int64_t pos(int k, int64_t i) { return k == 0 ? 1 + i : 1 + 2 * i; }

/* Device storage for a list: member k's 8 floats, its view elements v(k, i), the rest SENTINEL. */
typedef struct {
    void *dev[NM];
} Mem;

static Mem mem(double (*v)(int, int64_t))
{
    Mem m;
    for (int k = 0; k < NM; k++) {
        float host[STORE];
        for (int j = 0; j < STORE; j++) host[j] = SENTINEL;
        for (int64_t i = 0; v && i < NUMEL[k]; i++) host[pos(k, i)] = (float)v(k, i);
        CHECK_OK(aclrtMalloc(&m.dev[k], sizeof host, ACL_MEM_MALLOC_HUGE_FIRST));
        CHECK_OK(aclrtMemcpy(m.dev[k], sizeof host, host, sizeof host, ACL_MEMCPY_HOST_TO_DEVICE));
    }
    return m;
}

static void mem_free(Mem *m)
{
    for (int k = 0; k < NM; k++) CHECK_OK(aclrtFree(m->dev[k]));
}

/* A list whose members view `m` (the list owns these tensor handles). */
static aclTensorList *mklist(const Mem *m)
{
    aclTensor *t[NM];
    t[0] = aclCreateTensor(SHAPE0, 2, ACL_FLOAT, STRIDE0, 1, ACL_FORMAT_ND, STORAGE, 1, m->dev[0]);
    t[1] = aclCreateTensor(SHAPE1, 1, ACL_FLOAT, STRIDE1, 1, ACL_FORMAT_ND, STORAGE, 1, m->dev[1]);
    CHECK(t[0] != NULL && t[1] != NULL);
    aclTensorList *l = aclCreateTensorList((const aclTensor *const *)t, NM);
    CHECK(l != NULL);
    return l;
}

/* A one-element device tensor (the scalar forms); *dev receives its storage. */
static aclTensor *one(aclDataType dt, double v, void **dev)
{
    static const int64_t s1[] = {1};
    CHECK_OK(aclrtMalloc(dev, 8, ACL_MEM_MALLOC_HUGE_FIRST));
    unsigned char b[8] = {0};
    if (dt == ACL_FLOAT) {
        float f = (float)v;
        memcpy(b, &f, 4);
    } else if (dt == ACL_INT8) {
        b[0] = (unsigned char)(int8_t)v;
    }
    CHECK_OK(aclrtMemcpy(*dev, 8, b, 8, ACL_MEMCPY_HOST_TO_DEVICE));
    aclTensor *t = aclCreateTensor(s1, 1, dt, NULL, 0, ACL_FORMAT_ND, s1, 1, *dev);
    CHECK(t != NULL);
    return t;
}

static double xv(int k, int64_t i) { return 0.1 + 0.1 * (double)((i * 3 + k) % 8); }
static double yv(int k, int64_t i) { return 0.5 + 0.05 * (double)(i + k); }
static double r_zero_v(int k, int64_t i) { (void)k; (void)i; return 0; }
static double zv(int k, int64_t i) { return 1.5 - 0.1 * (double)(i + 2 * k); }

/* Checks out's members against want(x, y, z) element by element, and the sentinels. */
static void check_out(const char *what, const Mem *out, double (*want)(double, double, double, double), double s)
{
    for (int k = 0; k < NM; k++) {
        float host[STORE];
        CHECK_OK(aclrtMemcpy(host, sizeof host, out->dev[k], sizeof host, ACL_MEMCPY_DEVICE_TO_HOST));
        bool in[STORE] = {false};
        for (int64_t i = 0; i < NUMEL[k]; i++) {
            float w = (float)want(xv(k, i), yv(k, i), zv(k, i), s);
            float g = host[pos(k, i)];
            in[pos(k, i)] = true;
            if (!near_f32(g, w)) {
                fprintf(stderr, "%s: member %d element %lld is %.9g, want %.9g\n", what, k, (long long)i, g, w);
                CHECK(near_f32(g, w));
            }
        }
        for (int j = 0; j < STORE; j++) CHECK(in[j] || host[j] == SENTINEL);
    }
}

/* ---------------------------------------------------------------- unary: out[i] = f(x[i]) */

typedef aclnnStatus (*unary_ws)(aclTensorList *, aclTensorList *, uint64_t *, aclOpExecutor **);
static aclnnStatus ws_Abs(aclTensorList *x, aclTensorList *o, uint64_t *w, aclOpExecutor **e) { return aclnnForeachAbsGetWorkspaceSize(x, o, w, e); }
static double ref_Abs(double x, double y, double z, double s) { (void)y; (void)z; (void)s; return fabs(x); }
static aclnnStatus ws_Acos(aclTensorList *x, aclTensorList *o, uint64_t *w, aclOpExecutor **e) { return aclnnForeachAcosGetWorkspaceSize(x, o, w, e); }
static double ref_Acos(double x, double y, double z, double s) { (void)y; (void)z; (void)s; return acos(x); }
static aclnnStatus ws_Asin(aclTensorList *x, aclTensorList *o, uint64_t *w, aclOpExecutor **e) { return aclnnForeachAsinGetWorkspaceSize(x, o, w, e); }
static double ref_Asin(double x, double y, double z, double s) { (void)y; (void)z; (void)s; return asin(x); }
static aclnnStatus ws_Atan(aclTensorList *x, aclTensorList *o, uint64_t *w, aclOpExecutor **e) { return aclnnForeachAtanGetWorkspaceSize(x, o, w, e); }
static double ref_Atan(double x, double y, double z, double s) { (void)y; (void)z; (void)s; return atan(x); }
static aclnnStatus ws_Cos(aclTensorList *x, aclTensorList *o, uint64_t *w, aclOpExecutor **e) { return aclnnForeachCosGetWorkspaceSize(x, o, w, e); }
static double ref_Cos(double x, double y, double z, double s) { (void)y; (void)z; (void)s; return cos(x); }
static aclnnStatus ws_Cosh(aclTensorList *x, aclTensorList *o, uint64_t *w, aclOpExecutor **e) { return aclnnForeachCoshGetWorkspaceSize(x, o, w, e); }
static double ref_Cosh(double x, double y, double z, double s) { (void)y; (void)z; (void)s; return cosh(x); }
static aclnnStatus ws_Erf(aclTensorList *x, aclTensorList *o, uint64_t *w, aclOpExecutor **e) { return aclnnForeachErfGetWorkspaceSize(x, o, w, e); }
static double ref_Erf(double x, double y, double z, double s) { (void)y; (void)z; (void)s; return erf(x); }
static aclnnStatus ws_Erfc(aclTensorList *x, aclTensorList *o, uint64_t *w, aclOpExecutor **e) { return aclnnForeachErfcGetWorkspaceSize(x, o, w, e); }
static double ref_Erfc(double x, double y, double z, double s) { (void)y; (void)z; (void)s; return erfc(x); }
static aclnnStatus ws_Exp(aclTensorList *x, aclTensorList *o, uint64_t *w, aclOpExecutor **e) { return aclnnForeachExpGetWorkspaceSize(x, o, w, e); }
static double ref_Exp(double x, double y, double z, double s) { (void)y; (void)z; (void)s; return exp(x); }
static aclnnStatus ws_Expm1(aclTensorList *x, aclTensorList *o, uint64_t *w, aclOpExecutor **e) { return aclnnForeachExpm1GetWorkspaceSize(x, o, w, e); }
static double ref_Expm1(double x, double y, double z, double s) { (void)y; (void)z; (void)s; return expm1(x); }
static aclnnStatus ws_Log(aclTensorList *x, aclTensorList *o, uint64_t *w, aclOpExecutor **e) { return aclnnForeachLogGetWorkspaceSize(x, o, w, e); }
static double ref_Log(double x, double y, double z, double s) { (void)y; (void)z; (void)s; return log(x); }
static aclnnStatus ws_Log10(aclTensorList *x, aclTensorList *o, uint64_t *w, aclOpExecutor **e) { return aclnnForeachLog10GetWorkspaceSize(x, o, w, e); }
static double ref_Log10(double x, double y, double z, double s) { (void)y; (void)z; (void)s; return log10(x); }
static aclnnStatus ws_Log1p(aclTensorList *x, aclTensorList *o, uint64_t *w, aclOpExecutor **e) { return aclnnForeachLog1pGetWorkspaceSize(x, o, w, e); }
static double ref_Log1p(double x, double y, double z, double s) { (void)y; (void)z; (void)s; return log1p(x); }
static aclnnStatus ws_Log2(aclTensorList *x, aclTensorList *o, uint64_t *w, aclOpExecutor **e) { return aclnnForeachLog2GetWorkspaceSize(x, o, w, e); }
static double ref_Log2(double x, double y, double z, double s) { (void)y; (void)z; (void)s; return log2(x); }
static aclnnStatus ws_Neg(aclTensorList *x, aclTensorList *o, uint64_t *w, aclOpExecutor **e) { return aclnnForeachNegGetWorkspaceSize(x, o, w, e); }
static double ref_Neg(double x, double y, double z, double s) { (void)y; (void)z; (void)s; return -x; }
static aclnnStatus ws_Reciprocal(aclTensorList *x, aclTensorList *o, uint64_t *w, aclOpExecutor **e) { return aclnnForeachReciprocalGetWorkspaceSize(x, o, w, e); }
static double ref_Reciprocal(double x, double y, double z, double s) { (void)y; (void)z; (void)s; return 1 / x; }
static aclnnStatus ws_Sigmoid(aclTensorList *x, aclTensorList *o, uint64_t *w, aclOpExecutor **e) { return aclnnForeachSigmoidGetWorkspaceSize(x, o, w, e); }
static double ref_Sigmoid(double x, double y, double z, double s) { (void)y; (void)z; (void)s; return 1 / (1 + exp(-x)); }
static aclnnStatus ws_Sign(aclTensorList *x, aclTensorList *o, uint64_t *w, aclOpExecutor **e) { return aclnnForeachSignGetWorkspaceSize(x, o, w, e); }
static double ref_Sign(double x, double y, double z, double s) { (void)y; (void)z; (void)s; return (x > 0) - (x < 0); }
static aclnnStatus ws_Sin(aclTensorList *x, aclTensorList *o, uint64_t *w, aclOpExecutor **e) { return aclnnForeachSinGetWorkspaceSize(x, o, w, e); }
static double ref_Sin(double x, double y, double z, double s) { (void)y; (void)z; (void)s; return sin(x); }
static aclnnStatus ws_Sinh(aclTensorList *x, aclTensorList *o, uint64_t *w, aclOpExecutor **e) { return aclnnForeachSinhGetWorkspaceSize(x, o, w, e); }
static double ref_Sinh(double x, double y, double z, double s) { (void)y; (void)z; (void)s; return sinh(x); }
static aclnnStatus ws_Sqrt(aclTensorList *x, aclTensorList *o, uint64_t *w, aclOpExecutor **e) { return aclnnForeachSqrtGetWorkspaceSize(x, o, w, e); }
static double ref_Sqrt(double x, double y, double z, double s) { (void)y; (void)z; (void)s; return sqrt(x); }
static aclnnStatus ws_Tan(aclTensorList *x, aclTensorList *o, uint64_t *w, aclOpExecutor **e) { return aclnnForeachTanGetWorkspaceSize(x, o, w, e); }
static double ref_Tan(double x, double y, double z, double s) { (void)y; (void)z; (void)s; return tan(x); }
static aclnnStatus ws_Tanh(aclTensorList *x, aclTensorList *o, uint64_t *w, aclOpExecutor **e) { return aclnnForeachTanhGetWorkspaceSize(x, o, w, e); }
static double ref_Tanh(double x, double y, double z, double s) { (void)y; (void)z; (void)s; return tanh(x); }
static const struct { const char *name; unary_ws ws; phase2_fn run; double (*ref)(double, double, double, double); } UNARY[] = {
    {"aclnnForeachAbs", ws_Abs, aclnnForeachAbs, ref_Abs},
    {"aclnnForeachAcos", ws_Acos, aclnnForeachAcos, ref_Acos},
    {"aclnnForeachAsin", ws_Asin, aclnnForeachAsin, ref_Asin},
    {"aclnnForeachAtan", ws_Atan, aclnnForeachAtan, ref_Atan},
    {"aclnnForeachCos", ws_Cos, aclnnForeachCos, ref_Cos},
    {"aclnnForeachCosh", ws_Cosh, aclnnForeachCosh, ref_Cosh},
    {"aclnnForeachErf", ws_Erf, aclnnForeachErf, ref_Erf},
    {"aclnnForeachErfc", ws_Erfc, aclnnForeachErfc, ref_Erfc},
    {"aclnnForeachExp", ws_Exp, aclnnForeachExp, ref_Exp},
    {"aclnnForeachExpm1", ws_Expm1, aclnnForeachExpm1, ref_Expm1},
    {"aclnnForeachLog", ws_Log, aclnnForeachLog, ref_Log},
    {"aclnnForeachLog10", ws_Log10, aclnnForeachLog10, ref_Log10},
    {"aclnnForeachLog1p", ws_Log1p, aclnnForeachLog1p, ref_Log1p},
    {"aclnnForeachLog2", ws_Log2, aclnnForeachLog2, ref_Log2},
    {"aclnnForeachNeg", ws_Neg, aclnnForeachNeg, ref_Neg},
    {"aclnnForeachReciprocal", ws_Reciprocal, aclnnForeachReciprocal, ref_Reciprocal},
    {"aclnnForeachSigmoid", ws_Sigmoid, aclnnForeachSigmoid, ref_Sigmoid},
    {"aclnnForeachSign", ws_Sign, aclnnForeachSign, ref_Sign},
    {"aclnnForeachSin", ws_Sin, aclnnForeachSin, ref_Sin},
    {"aclnnForeachSinh", ws_Sinh, aclnnForeachSinh, ref_Sinh},
    {"aclnnForeachSqrt", ws_Sqrt, aclnnForeachSqrt, ref_Sqrt},
    {"aclnnForeachTan", ws_Tan, aclnnForeachTan, ref_Tan},
    {"aclnnForeachTanh", ws_Tanh, aclnnForeachTanh, ref_Tanh},
};

static void test_unary(void)
{
    for (size_t c = 0; c < ARRAY_LEN(UNARY); c++) {
        Mem x = mem(xv), o = mem(NULL);
        aclTensorList *xl = mklist(&x), *ol = mklist(&o);
        uint64_t ws = 0;
        aclOpExecutor *ex = NULL;
        CHECK_OK(UNARY[c].ws(xl, ol, &ws, &ex));
        run_phase2(UNARY[c].run, ws, ex);
        check_out(UNARY[c].name, &o, UNARY[c].ref, 0);
        CHECK_OK(aclDestroyTensorList(xl));
        CHECK_OK(aclDestroyTensorList(ol));
        mem_free(&x);
        mem_free(&o);
    }
}

/* ---------------------------------------------------------------- binary: lists, scalars, scalar lists */

typedef enum { F_LIST, F_LIST_V2, F_SCALAR, F_SCALAR_V2, F_SCALAR_LIST } FormKind;
typedef aclnnStatus (*bin_ws)(aclTensorList *, aclTensorList *, aclTensor *, aclScalar *, aclScalarList *, aclTensorList *, uint64_t *, aclOpExecutor **);
static double refl_Add(double x, double y, double z, double s) { (void)z; (void)s; return x + s * y; }
static double refs_Add(double x, double y, double z, double s) { (void)y; (void)z; return x + s; }
static aclnnStatus ws_AddList(aclTensorList *x, aclTensorList *y, aclTensor *a, aclScalar *s, aclScalarList *sl, aclTensorList *o, uint64_t *w, aclOpExecutor **e) { (void)x; (void)y; (void)a; (void)s; (void)sl; return aclnnForeachAddListGetWorkspaceSize(x, y, a, o, w, e); }
static aclnnStatus ws_AddListV2(aclTensorList *x, aclTensorList *y, aclTensor *a, aclScalar *s, aclScalarList *sl, aclTensorList *o, uint64_t *w, aclOpExecutor **e) { (void)x; (void)y; (void)a; (void)s; (void)sl; return aclnnForeachAddListV2GetWorkspaceSize(x, y, s, o, w, e); }
static aclnnStatus ws_AddScalar(aclTensorList *x, aclTensorList *y, aclTensor *a, aclScalar *s, aclScalarList *sl, aclTensorList *o, uint64_t *w, aclOpExecutor **e) { (void)x; (void)y; (void)a; (void)s; (void)sl; return aclnnForeachAddScalarGetWorkspaceSize(x, a, o, w, e); }
static aclnnStatus ws_AddScalarV2(aclTensorList *x, aclTensorList *y, aclTensor *a, aclScalar *s, aclScalarList *sl, aclTensorList *o, uint64_t *w, aclOpExecutor **e) { (void)x; (void)y; (void)a; (void)s; (void)sl; return aclnnForeachAddScalarV2GetWorkspaceSize(x, s, o, w, e); }
static aclnnStatus ws_AddScalarList(aclTensorList *x, aclTensorList *y, aclTensor *a, aclScalar *s, aclScalarList *sl, aclTensorList *o, uint64_t *w, aclOpExecutor **e) { (void)x; (void)y; (void)a; (void)s; (void)sl; return aclnnForeachAddScalarListGetWorkspaceSize(x, sl, o, w, e); }
static double refl_Sub(double x, double y, double z, double s) { (void)z; (void)s; return x - s * y; }
static double refs_Sub(double x, double y, double z, double s) { (void)y; (void)z; return x - s; }
static aclnnStatus ws_SubList(aclTensorList *x, aclTensorList *y, aclTensor *a, aclScalar *s, aclScalarList *sl, aclTensorList *o, uint64_t *w, aclOpExecutor **e) { (void)x; (void)y; (void)a; (void)s; (void)sl; return aclnnForeachSubListGetWorkspaceSize(x, y, a, o, w, e); }
static aclnnStatus ws_SubListV2(aclTensorList *x, aclTensorList *y, aclTensor *a, aclScalar *s, aclScalarList *sl, aclTensorList *o, uint64_t *w, aclOpExecutor **e) { (void)x; (void)y; (void)a; (void)s; (void)sl; return aclnnForeachSubListV2GetWorkspaceSize(x, y, s, o, w, e); }
static aclnnStatus ws_SubScalar(aclTensorList *x, aclTensorList *y, aclTensor *a, aclScalar *s, aclScalarList *sl, aclTensorList *o, uint64_t *w, aclOpExecutor **e) { (void)x; (void)y; (void)a; (void)s; (void)sl; return aclnnForeachSubScalarGetWorkspaceSize(x, a, o, w, e); }
static aclnnStatus ws_SubScalarV2(aclTensorList *x, aclTensorList *y, aclTensor *a, aclScalar *s, aclScalarList *sl, aclTensorList *o, uint64_t *w, aclOpExecutor **e) { (void)x; (void)y; (void)a; (void)s; (void)sl; return aclnnForeachSubScalarV2GetWorkspaceSize(x, s, o, w, e); }
static aclnnStatus ws_SubScalarList(aclTensorList *x, aclTensorList *y, aclTensor *a, aclScalar *s, aclScalarList *sl, aclTensorList *o, uint64_t *w, aclOpExecutor **e) { (void)x; (void)y; (void)a; (void)s; (void)sl; return aclnnForeachSubScalarListGetWorkspaceSize(x, sl, o, w, e); }
static double refl_Mul(double x, double y, double z, double s) { (void)z; (void)s; return x * y; }
static double refs_Mul(double x, double y, double z, double s) { (void)y; (void)z; return x * s; }
static aclnnStatus ws_MulList(aclTensorList *x, aclTensorList *y, aclTensor *a, aclScalar *s, aclScalarList *sl, aclTensorList *o, uint64_t *w, aclOpExecutor **e) { (void)x; (void)y; (void)a; (void)s; (void)sl; return aclnnForeachMulListGetWorkspaceSize(x, y, o, w, e); }
static aclnnStatus ws_MulScalar(aclTensorList *x, aclTensorList *y, aclTensor *a, aclScalar *s, aclScalarList *sl, aclTensorList *o, uint64_t *w, aclOpExecutor **e) { (void)x; (void)y; (void)a; (void)s; (void)sl; return aclnnForeachMulScalarGetWorkspaceSize(x, a, o, w, e); }
static aclnnStatus ws_MulScalarV2(aclTensorList *x, aclTensorList *y, aclTensor *a, aclScalar *s, aclScalarList *sl, aclTensorList *o, uint64_t *w, aclOpExecutor **e) { (void)x; (void)y; (void)a; (void)s; (void)sl; return aclnnForeachMulScalarV2GetWorkspaceSize(x, s, o, w, e); }
static aclnnStatus ws_MulScalarList(aclTensorList *x, aclTensorList *y, aclTensor *a, aclScalar *s, aclScalarList *sl, aclTensorList *o, uint64_t *w, aclOpExecutor **e) { (void)x; (void)y; (void)a; (void)s; (void)sl; return aclnnForeachMulScalarListGetWorkspaceSize(x, sl, o, w, e); }
static double refl_Div(double x, double y, double z, double s) { (void)z; (void)s; return x / y; }
static double refs_Div(double x, double y, double z, double s) { (void)y; (void)z; return x / s; }
static aclnnStatus ws_DivList(aclTensorList *x, aclTensorList *y, aclTensor *a, aclScalar *s, aclScalarList *sl, aclTensorList *o, uint64_t *w, aclOpExecutor **e) { (void)x; (void)y; (void)a; (void)s; (void)sl; return aclnnForeachDivListGetWorkspaceSize(x, y, o, w, e); }
static aclnnStatus ws_DivScalar(aclTensorList *x, aclTensorList *y, aclTensor *a, aclScalar *s, aclScalarList *sl, aclTensorList *o, uint64_t *w, aclOpExecutor **e) { (void)x; (void)y; (void)a; (void)s; (void)sl; return aclnnForeachDivScalarGetWorkspaceSize(x, a, o, w, e); }
static aclnnStatus ws_DivScalarV2(aclTensorList *x, aclTensorList *y, aclTensor *a, aclScalar *s, aclScalarList *sl, aclTensorList *o, uint64_t *w, aclOpExecutor **e) { (void)x; (void)y; (void)a; (void)s; (void)sl; return aclnnForeachDivScalarV2GetWorkspaceSize(x, s, o, w, e); }
static aclnnStatus ws_DivScalarList(aclTensorList *x, aclTensorList *y, aclTensor *a, aclScalar *s, aclScalarList *sl, aclTensorList *o, uint64_t *w, aclOpExecutor **e) { (void)x; (void)y; (void)a; (void)s; (void)sl; return aclnnForeachDivScalarListGetWorkspaceSize(x, sl, o, w, e); }
static double refl_Maximum(double x, double y, double z, double s) { (void)z; (void)s; return fmax(x, y); }
static double refs_Maximum(double x, double y, double z, double s) { (void)y; (void)z; return fmax(x, s); }
static aclnnStatus ws_MaximumList(aclTensorList *x, aclTensorList *y, aclTensor *a, aclScalar *s, aclScalarList *sl, aclTensorList *o, uint64_t *w, aclOpExecutor **e) { (void)x; (void)y; (void)a; (void)s; (void)sl; return aclnnForeachMaximumListGetWorkspaceSize(x, y, o, w, e); }
static aclnnStatus ws_MaximumScalar(aclTensorList *x, aclTensorList *y, aclTensor *a, aclScalar *s, aclScalarList *sl, aclTensorList *o, uint64_t *w, aclOpExecutor **e) { (void)x; (void)y; (void)a; (void)s; (void)sl; return aclnnForeachMaximumScalarGetWorkspaceSize(x, a, o, w, e); }
static aclnnStatus ws_MaximumScalarV2(aclTensorList *x, aclTensorList *y, aclTensor *a, aclScalar *s, aclScalarList *sl, aclTensorList *o, uint64_t *w, aclOpExecutor **e) { (void)x; (void)y; (void)a; (void)s; (void)sl; return aclnnForeachMaximumScalarV2GetWorkspaceSize(x, s, o, w, e); }
static aclnnStatus ws_MaximumScalarList(aclTensorList *x, aclTensorList *y, aclTensor *a, aclScalar *s, aclScalarList *sl, aclTensorList *o, uint64_t *w, aclOpExecutor **e) { (void)x; (void)y; (void)a; (void)s; (void)sl; return aclnnForeachMaximumScalarListGetWorkspaceSize(x, sl, o, w, e); }
static double refl_Minimum(double x, double y, double z, double s) { (void)z; (void)s; return fmin(x, y); }
static double refs_Minimum(double x, double y, double z, double s) { (void)y; (void)z; return fmin(x, s); }
static aclnnStatus ws_MinimumList(aclTensorList *x, aclTensorList *y, aclTensor *a, aclScalar *s, aclScalarList *sl, aclTensorList *o, uint64_t *w, aclOpExecutor **e) { (void)x; (void)y; (void)a; (void)s; (void)sl; return aclnnForeachMinimumListGetWorkspaceSize(x, y, o, w, e); }
static aclnnStatus ws_MinimumScalar(aclTensorList *x, aclTensorList *y, aclTensor *a, aclScalar *s, aclScalarList *sl, aclTensorList *o, uint64_t *w, aclOpExecutor **e) { (void)x; (void)y; (void)a; (void)s; (void)sl; return aclnnForeachMinimumScalarGetWorkspaceSize(x, a, o, w, e); }
static aclnnStatus ws_MinimumScalarV2(aclTensorList *x, aclTensorList *y, aclTensor *a, aclScalar *s, aclScalarList *sl, aclTensorList *o, uint64_t *w, aclOpExecutor **e) { (void)x; (void)y; (void)a; (void)s; (void)sl; return aclnnForeachMinimumScalarV2GetWorkspaceSize(x, s, o, w, e); }
static aclnnStatus ws_MinimumScalarList(aclTensorList *x, aclTensorList *y, aclTensor *a, aclScalar *s, aclScalarList *sl, aclTensorList *o, uint64_t *w, aclOpExecutor **e) { (void)x; (void)y; (void)a; (void)s; (void)sl; return aclnnForeachMinimumScalarListGetWorkspaceSize(x, sl, o, w, e); }
static double refl_Pow(double x, double y, double z, double s) { (void)z; (void)s; return pow(x, y); }
static double refs_Pow(double x, double y, double z, double s) { (void)y; (void)z; return pow(x, s); }
static aclnnStatus ws_PowList(aclTensorList *x, aclTensorList *y, aclTensor *a, aclScalar *s, aclScalarList *sl, aclTensorList *o, uint64_t *w, aclOpExecutor **e) { (void)x; (void)y; (void)a; (void)s; (void)sl; return aclnnForeachPowListGetWorkspaceSize(x, y, o, w, e); }
static aclnnStatus ws_PowScalar(aclTensorList *x, aclTensorList *y, aclTensor *a, aclScalar *s, aclScalarList *sl, aclTensorList *o, uint64_t *w, aclOpExecutor **e) { (void)x; (void)y; (void)a; (void)s; (void)sl; return aclnnForeachPowScalarGetWorkspaceSize(x, a, o, w, e); }
static aclnnStatus ws_PowScalarV2(aclTensorList *x, aclTensorList *y, aclTensor *a, aclScalar *s, aclScalarList *sl, aclTensorList *o, uint64_t *w, aclOpExecutor **e) { (void)x; (void)y; (void)a; (void)s; (void)sl; return aclnnForeachPowScalarV2GetWorkspaceSize(x, s, o, w, e); }
static aclnnStatus ws_PowScalarList(aclTensorList *x, aclTensorList *y, aclTensor *a, aclScalar *s, aclScalarList *sl, aclTensorList *o, uint64_t *w, aclOpExecutor **e) { (void)x; (void)y; (void)a; (void)s; (void)sl; return aclnnForeachPowScalarListGetWorkspaceSize(x, sl, o, w, e); }
static const struct { const char *name; FormKind form; bin_ws ws; phase2_fn run; double (*ref)(double, double, double, double); int f64_list; } BINARY[] = {
    {"aclnnForeachAddList", F_LIST, ws_AddList, aclnnForeachAddList, refl_Add, 0},
    {"aclnnForeachAddListV2", F_LIST_V2, ws_AddListV2, aclnnForeachAddListV2, refl_Add, 0},
    {"aclnnForeachAddScalar", F_SCALAR, ws_AddScalar, aclnnForeachAddScalar, refs_Add, 0},
    {"aclnnForeachAddScalarV2", F_SCALAR_V2, ws_AddScalarV2, aclnnForeachAddScalarV2, refs_Add, 0},
    {"aclnnForeachAddScalarList", F_SCALAR_LIST, ws_AddScalarList, aclnnForeachAddScalarList, refs_Add, 0},
    {"aclnnForeachSubList", F_LIST, ws_SubList, aclnnForeachSubList, refl_Sub, 0},
    {"aclnnForeachSubListV2", F_LIST_V2, ws_SubListV2, aclnnForeachSubListV2, refl_Sub, 0},
    {"aclnnForeachSubScalar", F_SCALAR, ws_SubScalar, aclnnForeachSubScalar, refs_Sub, 0},
    {"aclnnForeachSubScalarV2", F_SCALAR_V2, ws_SubScalarV2, aclnnForeachSubScalarV2, refs_Sub, 0},
    {"aclnnForeachSubScalarList", F_SCALAR_LIST, ws_SubScalarList, aclnnForeachSubScalarList, refs_Sub, 0},
    {"aclnnForeachMulList", F_LIST, ws_MulList, aclnnForeachMulList, refl_Mul, 1},
    {"aclnnForeachMulScalar", F_SCALAR, ws_MulScalar, aclnnForeachMulScalar, refs_Mul, 1},
    {"aclnnForeachMulScalarV2", F_SCALAR_V2, ws_MulScalarV2, aclnnForeachMulScalarV2, refs_Mul, 1},
    {"aclnnForeachMulScalarList", F_SCALAR_LIST, ws_MulScalarList, aclnnForeachMulScalarList, refs_Mul, 1},
    {"aclnnForeachDivList", F_LIST, ws_DivList, aclnnForeachDivList, refl_Div, 0},
    {"aclnnForeachDivScalar", F_SCALAR, ws_DivScalar, aclnnForeachDivScalar, refs_Div, 0},
    {"aclnnForeachDivScalarV2", F_SCALAR_V2, ws_DivScalarV2, aclnnForeachDivScalarV2, refs_Div, 0},
    {"aclnnForeachDivScalarList", F_SCALAR_LIST, ws_DivScalarList, aclnnForeachDivScalarList, refs_Div, 0},
    {"aclnnForeachMaximumList", F_LIST, ws_MaximumList, aclnnForeachMaximumList, refl_Maximum, 1},
    {"aclnnForeachMaximumScalar", F_SCALAR, ws_MaximumScalar, aclnnForeachMaximumScalar, refs_Maximum, 1},
    {"aclnnForeachMaximumScalarV2", F_SCALAR_V2, ws_MaximumScalarV2, aclnnForeachMaximumScalarV2, refs_Maximum, 1},
    {"aclnnForeachMaximumScalarList", F_SCALAR_LIST, ws_MaximumScalarList, aclnnForeachMaximumScalarList, refs_Maximum, 1},
    {"aclnnForeachMinimumList", F_LIST, ws_MinimumList, aclnnForeachMinimumList, refl_Minimum, 1},
    {"aclnnForeachMinimumScalar", F_SCALAR, ws_MinimumScalar, aclnnForeachMinimumScalar, refs_Minimum, 1},
    {"aclnnForeachMinimumScalarV2", F_SCALAR_V2, ws_MinimumScalarV2, aclnnForeachMinimumScalarV2, refs_Minimum, 1},
    {"aclnnForeachMinimumScalarList", F_SCALAR_LIST, ws_MinimumScalarList, aclnnForeachMinimumScalarList, refs_Minimum, 1},
    {"aclnnForeachPowList", F_LIST, ws_PowList, aclnnForeachPowList, refl_Pow, 0},
    {"aclnnForeachPowScalar", F_SCALAR, ws_PowScalar, aclnnForeachPowScalar, refs_Pow, 0},
    {"aclnnForeachPowScalarV2", F_SCALAR_V2, ws_PowScalarV2, aclnnForeachPowScalarV2, refs_Pow, 0},
    {"aclnnForeachPowScalarList", F_SCALAR_LIST, ws_PowScalarList, aclnnForeachPowScalarList, refs_Pow, 0},
};

static void test_binary(void)
{
    const double s = 1.25; /* alpha / scalar: exact in f32 */
    for (size_t c = 0; c < ARRAY_LEN(BINARY); c++) {
        Mem x = mem(xv), y = mem(yv), o = mem(NULL);
        aclTensorList *xl = mklist(&x), *yl = mklist(&y), *ol = mklist(&o);
        void *adev = NULL;
        aclTensor *at = one(ACL_FLOAT, s, &adev);
        aclScalar *sv = scalar_f64(s);
        /* Scalar lists: f32 (f64 where CANN lists DOUBLE too). */
        aclScalar *m[NM] = {BINARY[c].f64_list ? scalar_f64(s) : scalar_f32((float)s),
                            BINARY[c].f64_list ? scalar_f64(s) : scalar_f32((float)s)};
        aclScalarList *sl = aclCreateScalarList((const aclScalar *const *)m, NM);
        uint64_t ws = 0;
        aclOpExecutor *ex = NULL;
        CHECK_OK(BINARY[c].ws(xl, yl, at, sv, sl, ol, &ws, &ex));
        run_phase2(BINARY[c].run, ws, ex);
        check_out(BINARY[c].name, &o, BINARY[c].ref, s);
        CHECK_OK(aclDestroyTensorList(xl));
        CHECK_OK(aclDestroyTensorList(yl));
        CHECK_OK(aclDestroyTensorList(ol));
        CHECK_OK(aclDestroyTensor(at));
        CHECK_OK(aclDestroyScalar(sv));
        CHECK_OK(aclDestroyScalarList(sl));
        CHECK_OK(aclrtFree(adev));
        mem_free(&x);
        mem_free(&y);
        mem_free(&o);
    }
}

/* ---------------------------------------------------------------- addcdiv, addcmul, lerp */

static double r_addcdiv(double x, double y, double z, double s) { return x + s * y / z; }
static double r_addcmul(double x, double y, double z, double s) { return x + s * y * z; }
static double r_lerp_list(double x, double y, double z, double s) { (void)s; double w = z - 1; return x + w * (y - x); }
static double r_lerp(double x, double y, double z, double s) { (void)z; return x + s * (y - x); }

static void test_addc_lerp(void)
{
    const double s = 0.75;
    for (int c = 0; c < 10; c++) {
        Mem x = mem(xv), y = mem(yv), z = mem(zv), o = mem(NULL);
        aclTensorList *xl = mklist(&x), *yl = mklist(&y), *zl = mklist(&z), *ol = mklist(&o);
        /* scalars: one f32 value per member */
        static const int64_t sn[] = {NM};
        void *pdev = NULL, *adev = NULL;
        float per[NM] = {(float)s, (float)s};
        CHECK_OK(aclrtMalloc(&pdev, sizeof per, ACL_MEM_MALLOC_HUGE_FIRST));
        CHECK_OK(aclrtMemcpy(pdev, sizeof per, per, sizeof per, ACL_MEMCPY_HOST_TO_DEVICE));
        aclTensor *pt = aclCreateTensor(sn, 1, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, sn, 1, pdev);
        aclTensor *at = one(ACL_FLOAT, s, &adev);
        aclScalar *sv = scalar_f64(s);
        uint64_t ws = 0;
        aclOpExecutor *ex = NULL;
        const char *name = "";
        double (*ref)(double, double, double, double) = r_addcdiv;
        phase2_fn run = NULL;
        switch (c) {
        case 0: name = "aclnnForeachAddcdivList"; CHECK_OK(aclnnForeachAddcdivListGetWorkspaceSize(xl, yl, zl, pt, ol, &ws, &ex)); run = aclnnForeachAddcdivList; break;
        case 1: name = "aclnnForeachAddcdivScalar"; CHECK_OK(aclnnForeachAddcdivScalarGetWorkspaceSize(xl, yl, zl, at, ol, &ws, &ex)); run = aclnnForeachAddcdivScalar; break;
        case 2: name = "aclnnForeachAddcdivScalarList"; CHECK_OK(aclnnForeachAddcdivScalarListGetWorkspaceSize(xl, yl, zl, pt, ol, &ws, &ex)); run = aclnnForeachAddcdivScalarList; break;
        case 3: name = "aclnnForeachAddcdivScalarV2"; CHECK_OK(aclnnForeachAddcdivScalarV2GetWorkspaceSize(xl, yl, zl, sv, ol, &ws, &ex)); run = aclnnForeachAddcdivScalarV2; break;
        case 4: name = "aclnnForeachAddcmulList"; ref = r_addcmul; CHECK_OK(aclnnForeachAddcmulListGetWorkspaceSize(xl, yl, zl, pt, ol, &ws, &ex)); run = aclnnForeachAddcmulList; break;
        case 5: name = "aclnnForeachAddcmulScalar"; ref = r_addcmul; CHECK_OK(aclnnForeachAddcmulScalarGetWorkspaceSize(xl, yl, zl, at, ol, &ws, &ex)); run = aclnnForeachAddcmulScalar; break;
        case 6: name = "aclnnForeachAddcmulScalarList"; ref = r_addcmul; CHECK_OK(aclnnForeachAddcmulScalarListGetWorkspaceSize(xl, yl, zl, pt, ol, &ws, &ex)); run = aclnnForeachAddcmulScalarList; break;
        case 7: name = "aclnnForeachAddcmulScalarV2"; ref = r_addcmul; CHECK_OK(aclnnForeachAddcmulScalarV2GetWorkspaceSize(xl, yl, zl, sv, ol, &ws, &ex)); run = aclnnForeachAddcmulScalarV2; break;
        case 8: name = "aclnnForeachLerpScalar"; ref = r_lerp; CHECK_OK(aclnnForeachLerpScalarGetWorkspaceSize(xl, yl, sv, ol, &ws, &ex)); run = aclnnForeachLerpScalar; break;
        default: {
            /* weight = z - 1 in [-0.5, 0.5] */
            Mem w = mem(NULL);
            for (int k = 0; k < NM; k++) {
                float host[STORE];
                for (int j = 0; j < STORE; j++) host[j] = SENTINEL;
                for (int64_t i = 0; i < NUMEL[k]; i++) host[pos(k, i)] = (float)(zv(k, i) - 1);
                CHECK_OK(aclrtMemcpy(w.dev[k], sizeof host, host, sizeof host, ACL_MEMCPY_HOST_TO_DEVICE));
            }
            aclTensorList *wl = mklist(&w);
            name = "aclnnForeachLerpList";
            ref = r_lerp_list;
            CHECK_OK(aclnnForeachLerpListGetWorkspaceSize(xl, yl, wl, ol, &ws, &ex));
            run_phase2(aclnnForeachLerpList, ws, ex);
            CHECK_OK(aclDestroyTensorList(wl));
            mem_free(&w);
        }
        }
        if (run) run_phase2(run, ws, ex);
        check_out(name, &o, ref, s);
        aclTensorList *ls[] = {xl, yl, zl, ol};
        for (size_t k = 0; k < ARRAY_LEN(ls); k++) CHECK_OK(aclDestroyTensorList(ls[k]));
        CHECK_OK(aclDestroyTensor(pt));
        CHECK_OK(aclDestroyTensor(at));
        CHECK_OK(aclDestroyScalar(sv));
        CHECK_OK(aclrtFree(pdev));
        CHECK_OK(aclrtFree(adev));
        Mem *ms[] = {&x, &y, &z, &o};
        for (size_t k = 0; k < ARRAY_LEN(ms); k++) mem_free(ms[k]);
    }
}

/* ---------------------------------------------------------------- the rest */

static double r_pow_st(double x, double y, double z, double s) { (void)y; (void)z; return pow(s, x); }
static double r_copy(double x, double y, double z, double s) { (void)y; (void)z; (void)s; return x; }
static double r_ceil(double x, double y, double z, double s) { (void)y; (void)z; (void)s; return ceil(x); }
static double r_zero(double x, double y, double z, double s) { (void)x; (void)y; (void)z; (void)s; return 0; }

static void test_others(void)
{
    Mem x = mem(xv), o = mem(NULL);
    aclTensorList *xl = mklist(&x), *ol = mklist(&o);
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    aclScalar *two = scalar_f64(2.0);
    CHECK_OK(aclnnForeachPowScalarAndTensorGetWorkspaceSize(two, xl, ol, &ws, &ex));
    run_phase2(aclnnForeachPowScalarAndTensor, ws, ex);
    check_out("aclnnForeachPowScalarAndTensor", &o, r_pow_st, 2.0);
    CHECK_OK(aclnnForeachCopyGetWorkspaceSize(xl, ol, &ws, &ex));
    run_phase2(aclnnForeachCopy, ws, ex);
    check_out("aclnnForeachCopy", &o, r_copy, 0);
    /* roundMode 3 (toward +inf), as a device int8 tensor and as an aclScalar */
    void *mdev = NULL;
    aclTensor *mode = one(ACL_INT8, 3, &mdev);
    CHECK_OK(aclnnForeachRoundOffNumberGetWorkspaceSize(xl, mode, ol, &ws, &ex));
    run_phase2(aclnnForeachRoundOffNumber, ws, ex);
    check_out("aclnnForeachRoundOffNumber", &o, r_ceil, 0);
    aclScalar *m2 = scalar_i64(3);
    CHECK_OK(aclnnForeachRoundOffNumberV2GetWorkspaceSize(xl, m2, ol, &ws, &ex));
    run_phase2(aclnnForeachRoundOffNumberV2, ws, ex);
    check_out("aclnnForeachRoundOffNumberV2", &o, r_ceil, 0);
    /* Norm: one-element outputs, the 2-norm of each member */
    static const int64_t s1[] = {1};
    void *nd[NM];
    aclTensor *nt[NM];
    for (int k = 0; k < NM; k++) {
        CHECK_OK(aclrtMalloc(&nd[k], 4, ACL_MEM_MALLOC_HUGE_FIRST));
        nt[k] = aclCreateTensor(s1, 1, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, s1, 1, nd[k]);
    }
    aclTensorList *nl = aclCreateTensorList((const aclTensor *const *)nt, NM);
    CHECK_OK(aclnnForeachNormGetWorkspaceSize(xl, two, nl, &ws, &ex));
    run_phase2(aclnnForeachNorm, ws, ex);
    for (int k = 0; k < NM; k++) {
        double acc = 0;
        for (int64_t i = 0; i < NUMEL[k]; i++) acc += xv(k, i) * xv(k, i);
        float g;
        CHECK_OK(aclrtMemcpy(&g, 4, nd[k], 4, ACL_MEMCPY_DEVICE_TO_HOST));
        CHECK(near_f32(g, (float)sqrt(acc)));
    }
    CHECK_OK(aclDestroyTensorList(nl));
    for (int k = 0; k < NM; k++) CHECK_OK(aclrtFree(nd[k]));
    /* ZeroInplace writes its only list */
    CHECK_OK(aclnnForeachZeroInplaceGetWorkspaceSize(ol, &ws, &ex));
    run_phase2(aclnnForeachZeroInplace, ws, ex);
    check_out("aclnnForeachZeroInplace", &o, r_zero, 0);
    /* Errors: lists of different lengths; NULL; a dtype outside the list. */
    aclTensor *lone = aclCreateTensor(SHAPE1, 1, ACL_FLOAT, STRIDE1, 1, ACL_FORMAT_ND, STORAGE, 1, o.dev[1]);
    aclTensorList *short_l = aclCreateTensorList((const aclTensor *const *)&lone, 1);
    CHECK_STATUS(aclnnForeachAbsGetWorkspaceSize(xl, short_l, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
    CHECK_ERRMSG("same length");
    CHECK_STATUS(aclnnForeachAbsGetWorkspaceSize(NULL, ol, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
    aclScalar *bad = scalar_i32(1);
    CHECK_STATUS(aclnnForeachAddScalarV2GetWorkspaceSize(xl, bad, ol, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
    CHECK_ERRMSG("scalar");
    CHECK_OK(aclDestroyTensorList(short_l));
    CHECK_OK(aclDestroyScalar(bad));
    CHECK_OK(aclDestroyScalar(two));
    CHECK_OK(aclDestroyScalar(m2));
    CHECK_OK(aclDestroyTensor(mode));
    CHECK_OK(aclrtFree(mdev));
    CHECK_OK(aclDestroyTensorList(xl));
    CHECK_OK(aclDestroyTensorList(ol));
    mem_free(&x);
    mem_free(&o);
}

/* ---------------------------------------------------------------- optimizers */

static double r_sgd(double x, double y, double z, double s) { (void)z; return x - s * y; }
/* AdamW's first step from m = v = 0: m^ = g, v^ = g^2, so theta(1 - lr wd) - lr g / (|g| + eps). */
static double r_adamw(double x, double y, double z, double s) { (void)z; return x * (1 - s * 0.01) - s * y / (fabs(y) + 1e-8); }

static void test_optimizers(void)
{
    const double lr = 0.1;
    /* FusedSgd without momentum buffers: theta - lr g. */
    Mem p = mem(xv), g = mem(yv);
    aclTensorList *pl = mklist(&p), *gl = mklist(&g);
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    CHECK_OK(aclnnFusedSgdGetWorkspaceSize(pl, gl, NULL, NULL, 0.0f, 0.0f, (float)lr, 0.0f, false, false, false, &ws, &ex));
    run_phase2(aclnnFusedSgd, ws, ex);
    check_out("aclnnFusedSgd", &p, r_sgd, (float)lr);
    CHECK_STATUS(aclnnFusedSgdGetWorkspaceSize(pl, gl, NULL, NULL, 0.0f, 0.0f, -1.0f, 0.0f, false, false, false, &ws, &ex),
                 ACLNN_ERR_PARAM_INVALID);
    CHECK_ERRMSG("lr");
    CHECK_OK(aclDestroyTensorList(pl));
    CHECK_OK(aclDestroyTensorList(gl));
    mem_free(&p);
    /* FusedAdamw, step 1 from zero moments (stateSteps: one f32 element per member). */
    Mem q = mem(xv), m = mem(r_zero_v), v = mem(r_zero_v);
    aclTensorList *ql = mklist(&q), *gl2 = mklist(&g), *ml = mklist(&m), *vl = mklist(&v);
    void *sd[NM];
    aclTensor *stt[NM];
    static const int64_t s1[] = {1};
    const float one_f = 1.0f;
    for (int k = 0; k < NM; k++) {
        CHECK_OK(aclrtMalloc(&sd[k], 4, ACL_MEM_MALLOC_HUGE_FIRST));
        CHECK_OK(aclrtMemcpy(sd[k], 4, &one_f, 4, ACL_MEMCPY_HOST_TO_DEVICE));
        stt[k] = aclCreateTensor(s1, 1, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, s1, 1, sd[k]);
    }
    aclTensorList *sl = aclCreateTensorList((const aclTensor *const *)stt, NM);
    CHECK_OK(aclnnFusedAdamwGetWorkspaceSize(ql, gl2, ml, vl, NULL, sl, NULL, NULL, lr, 0.9, 0.999, 0.01, 1e-8, false,
                                             false, &ws, &ex));
    run_phase2(aclnnFusedAdamw, ws, ex);
    check_out("aclnnFusedAdamw", &q, r_adamw, lr);
    /* amsgrad needs maxExpAvgSqsRef */
    CHECK_STATUS(aclnnFusedAdamwGetWorkspaceSize(ql, gl2, ml, vl, NULL, sl, NULL, NULL, lr, 0.9, 0.999, 0.01, 1e-8, true,
                                                 false, &ws, &ex),
                 ACLNN_ERR_PARAM_INVALID);
    CHECK_ERRMSG("maxExpAvgSqsRef");
    aclTensorList *ls[] = {ql, gl2, ml, vl, sl};
    for (size_t k = 0; k < ARRAY_LEN(ls); k++) CHECK_OK(aclDestroyTensorList(ls[k]));
    for (int k = 0; k < NM; k++) CHECK_OK(aclrtFree(sd[k]));
    /* ApplyAdamWV2 on one tensor: the same first step. */
    static const int64_t sh[] = {4};
    float pv[4] = {1, -2, 3, -4}, gv[4] = {0.5f, 0.25f, -1, 2}, zero[4] = {0, 0, 0, 0};
    void *dp, *dg, *dm, *dv, *ds;
    void **bufs[] = {&dp, &dg, &dm, &dv};
    float *src[] = {pv, gv, zero, zero};
    aclTensor *tt[4];
    for (int k = 0; k < 4; k++) {
        CHECK_OK(aclrtMalloc(bufs[k], sizeof pv, ACL_MEM_MALLOC_HUGE_FIRST));
        CHECK_OK(aclrtMemcpy(*bufs[k], sizeof pv, src[k], sizeof pv, ACL_MEMCPY_HOST_TO_DEVICE));
        tt[k] = aclCreateTensor(sh, 1, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, sh, 1, *bufs[k]);
    }
    aclTensor *step = one(ACL_FLOAT, 1, &ds);
    CHECK_OK(aclnnApplyAdamWV2GetWorkspaceSize(tt[0], tt[2], tt[3], NULL, tt[1], step, (float)lr, 0.9f, 0.999f, 0.01f,
                                               1e-8f, false, false, &ws, &ex));
    run_phase2(aclnnApplyAdamWV2, ws, ex);
    float got[4];
    CHECK_OK(aclrtMemcpy(got, sizeof got, dp, sizeof got, ACL_MEMCPY_DEVICE_TO_HOST));
    for (int i = 0; i < 4; i++) CHECK(near_f32(got[i], (float)r_adamw(pv[i], gv[i], 0, (float)lr)));
    for (int k = 0; k < 4; k++) {
        CHECK_OK(aclDestroyTensor(tt[k]));
        CHECK_OK(aclrtFree(*bufs[k]));
    }
    CHECK_OK(aclDestroyTensor(step));
    CHECK_OK(aclrtFree(ds));
    Mem *ms[] = {&g, &q, &m, &v};
    for (size_t k = 0; k < ARRAY_LEN(ms); k++) mem_free(ms[k]);
}

int main(void)
{
    device_init();
    RUN_TEST(test_unary);
    RUN_TEST(test_binary);
    RUN_TEST(test_addc_lerp);
    RUN_TEST(test_others);
    RUN_TEST(test_optimizers);
    device_teardown();
    return capi_finish();
}
