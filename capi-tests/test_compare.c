/*
 * Comparisons (reference 5.2): EqTensor, NeTensor, GtTensor, GeTensor, LtTensor, LeTensor, their
 * Scalar forms and all twelve in-place forms. `out = (self OP other) ? 1 : 0` in the promoted
 * dtype, converted to out's dtype (bool, integers, floats); in place into selfRef's dtype.
 *
 * Every form runs through the table-driven cases (broadcasting, non-contiguous inputs and
 * output, mixed dtypes, 0-d, empty, each documented error); the tests after the table add NaN
 * behaviour, out dtypes, complex Eq/Ne (and refused Gt/Ge/Lt/Le), double inputs with a bool out,
 * and mixed-dtype promotion.
 */
#include "ops_common.h"

#include "aclnnop/aclnn_eq_scalar.h"
#include "aclnnop/aclnn_eq_tensor.h"
#include "aclnnop/aclnn_ge_scalar.h"
#include "aclnnop/aclnn_ge_tensor.h"
#include "aclnnop/aclnn_gt_scalar.h"
#include "aclnnop/aclnn_gt_tensor.h"
#include "aclnnop/aclnn_le_scalar.h"
#include "aclnnop/aclnn_le_tensor.h"
#include "aclnnop/aclnn_lt_scalar.h"
#include "aclnnop/aclnn_lt_tensor.h"
#include "aclnnop/aclnn_ne_scalar.h"
#include "aclnnop/aclnn_ne_tensor.h"

#include <math.h>

/* ================================================================ the operator forms */

#define WRAP_T(Name)                                                                                  \
    OP_WS_TT(ws_##Name##T, Name##Tensor)                                                              \
    OP_WS_TS(ws_##Name##S, Name##Scalar)                                                              \
    OP_WS_ITT(ws_##Name##IT, Inplace##Name##Tensor)                                                   \
    OP_WS_ITS(ws_##Name##IS, Inplace##Name##Scalar)
WRAP_T(Eq)
WRAP_T(Ne)
WRAP_T(Gt)
WRAP_T(Ge)
WRAP_T(Lt)
WRAP_T(Le)

enum { EQ, NE, GT, GE, LT, LE };
static const char *const REL_NAME[] = {"Eq", "Ne", "Gt", "Ge", "Lt", "Le"};

/* The relation, as C evaluates it on doubles (IEEE: NaN is unordered, only != holds). */
static bool rel(int r, double x, double y)
{
    switch (r) {
    case EQ: return x == y;
    case NE: return x != y;
    case GT: return x > y;
    case GE: return x >= y;
    case LT: return x < y;
    default: return x <= y;
    }
}
static double ref_cmp(const Op *op, double x, double y) { return rel(op->mode, x, y) ? 1 : 0; }

/* Values with ties between the operands (halves for floats). */
static double gen_cmp(int which, int64_t i, bool integral)
{
    if (which == 0) return integral ? (double)(i % 5) - 2 : ((double)(i % 5) - 2) * 0.5;
    return (double)(i % 3) - 1;
}

#define B ACL_BOOL
#define F ACL_FLOAT
/*
 * Each row starts from the defaults of its form and overrides some fields: a designated
 * initializer given twice takes the last value (C11 6.7.9), which is what -Woverride-init flags.
 */
#pragma GCC diagnostic ignored "-Woverride-init"
#define CMP_COMMON(r) .ref = ref_cmp, .gen = gen_cmp, .mode = r, .dt = F, .sdt = F, .bad_out = ACL_COMPLEX64, \
    .bad_out_b = ACL_COMPLEX64, .bad_in = (r) <= NE ? ACL_UINT32 : ACL_COMPLEX64
#define CMP_OPS(Name, r)                                                                                   \
    {.api = "aclnn" #Name "TensorGetWorkspaceSize", .kind = K_TT, .ws = ws_##Name##T, .run = aclnn##Name##Tensor, \
     CMP_COMMON(r), .pa = "self", .pb = "other", .out_dt = B, .mix_a = ACL_INT32, .mix_b = F,              \
     .mix_out = ACL_INT32, .np_a = ACL_UINT16, .np_b = ACL_INT32},                                         \
    {.api = "aclnn" #Name "ScalarGetWorkspaceSize", .kind = K_TS, .ws = ws_##Name##S, .run = aclnn##Name##Scalar, \
     CMP_COMMON(r), .pa = "self", .pb = "other", .out_dt = B, .mix_a = ACL_INT32, .mix_b = F, .mix_out = F, \
     .np_a = ACL_UINT16, .np_b = F},                                                                       \
    {.api = "aclnnInplace" #Name "TensorGetWorkspaceSize", .kind = K_ITT, .ws = ws_##Name##IT,             \
     .run = aclnnInplace##Name##Tensor, CMP_COMMON(r), .pa = "selfRef", .pb = "other", .out_dt = F,         \
     .mix_a = ACL_INT32, .mix_b = F, .mix_out = ACL_INT32, .np_a = ACL_UINT16, .np_b = ACL_INT32},         \
    {.api = "aclnnInplace" #Name "ScalarGetWorkspaceSize", .kind = K_ITS, .ws = ws_##Name##IS,             \
     .run = aclnnInplace##Name##Scalar, CMP_COMMON(r), .pa = "selfRef", .pb = "other", .out_dt = F,         \
     .mix_a = ACL_FLOAT16, .mix_b = ACL_DOUBLE, .mix_out = ACL_FLOAT16, .np_a = ACL_UINT16, .np_b = F}

static const Op CMP_TABLE[] = {
    CMP_OPS(Eq, EQ), CMP_OPS(Ne, NE), CMP_OPS(Gt, GT), CMP_OPS(Ge, GE), CMP_OPS(Lt, LT), CMP_OPS(Le, LE),
};

/* The table row of relation r and form k (0 Tensor, 1 Scalar, 2 InplaceTensor, 3 InplaceScalar). */
static const Op *cmp_op(int r, int k) { return &CMP_TABLE[r * 4 + k]; }

/* Runs relation r on (a, b-tensor or b-scalar) into out (NULL: in place into a). */
static void cmp_run(int r, const DevTensor *a, const DevTensor *b, const aclScalar *s, const DevTensor *out)
{
    int k = out ? (s ? 1 : 0) : (s ? 3 : 2);
    const Op *op = cmp_op(r, k);
    Args x = {a->tensor, NULL, b ? b->tensor : NULL, s, out ? out->tensor : NULL};
    OP_OK(op, &x);
}

/* ================================================================ tests */

static void test_compare_generic(void) { run_table(CMP_TABLE, ARRAY_LEN(CMP_TABLE)); }

/* Every comparison with NaN is false, except Ne, which is true. */
static void test_compare_nan(void)
{
    int64_t s4[] = {4}, s2[] = {2};
    const aclDataType dts[] = {F, ACL_DOUBLE, ACL_FLOAT16, ACL_BF16};
    for (size_t k = 0; k < ARRAY_LEN(dts); k++) {
        DevTensor a = mk(dts[k], s4, 1, V(NAN, NAN, 1, NAN)), b = mk(dts[k], s4, 1, V(NAN, 1, NAN, INFINITY));
        DevTensor o = mk(B, s4, 1, NULL);
        for (int r = EQ; r <= LE; r++) {
            cmp_run(r, &a, &b, NULL, &o);
            double v = r == NE ? 1 : 0;
            EXPECT_T(o, v, v, v, v);
        }
        dev_free(&a);
        dev_free(&b);
        dev_free(&o);
    }
    /* against a NaN scalar, and a NaN tensor against a number */
    DevTensor a = mk(F, s2, 1, V(NAN, 1)), o = mk(B, s2, 1, NULL);
    aclScalar *nan = sc(ACL_DOUBLE, NAN), *one = sc(F, 1);
    for (int r = EQ; r <= LE; r++) {
        cmp_run(r, &a, NULL, nan, &o);
        double v = r == NE ? 1 : 0;
        EXPECT_T(o, v, v);
        cmp_run(r, &a, NULL, one, &o);
        double w = rel(r, 1, 1) ? 1 : 0;
        EXPECT_T(o, v, w);
    }
    /* in place: the NaN element becomes 0 (or 1 for Ne) */
    for (int r = EQ; r <= LE; r++) {
        DevTensor t = mk(F, s2, 1, V(NAN, 1));
        cmp_run(r, &t, NULL, one, NULL);
        EXPECT_T(t, r == NE ? 1 : 0, rel(r, 1, 1) ? 1 : 0);
        DevTensor u = mk(ACL_DOUBLE, s2, 1, V(2, NAN)), w = mk(ACL_DOUBLE, s2, 1, V(NAN, NAN));
        cmp_run(r, &u, &w, NULL, NULL);
        EXPECT_T(u, r == NE ? 1 : 0, r == NE ? 1 : 0);
        dev_free(&t);
        dev_free(&u);
        dev_free(&w);
    }
    CHECK_OK(aclDestroyScalar(nan));
    CHECK_OK(aclDestroyScalar(one));
    dev_free(&a);
    dev_free(&o);
}

/* out may be bool, an integer or a float type: 1 / 0 in that type. */
static void test_compare_out_dtypes(void)
{
    int64_t s3[] = {3};
    const aclDataType outs[] = {B, ACL_INT32, F, ACL_DOUBLE, ACL_FLOAT16, ACL_BF16, ACL_INT8, ACL_UINT8, ACL_INT16,
                                ACL_INT64};
    DevTensor a = mk(F, s3, 1, V(1, 2, 3)), b = mk(F, s3, 1, V(2, 2, 2));
    aclScalar *two = sc(ACL_INT32, 2);
    for (int r = EQ; r <= LE; r++) {
        double want[3];
        for (int i = 0; i < 3; i++) want[i] = rel(r, i + 1, 2) ? 1 : 0;
        for (size_t k = 0; k < ARRAY_LEN(outs); k++) {
            DevTensor o = mk(outs[k], s3, 1, NULL);
            dev_fill_bytes(&o, SENT);
            cmp_run(r, &a, &b, NULL, &o);
            double got[3];
            rd(&o, got);
            if (!vals_match("Tensor out", outs[k], got, want, 3)) {
                fprintf(stderr, "    aclnn%sTensor, out dtype %d\n", REL_NAME[r], (int)outs[k]);
                CHECK(!"compare out dtype");
            }
            dev_fill_bytes(&o, SENT);
            cmp_run(r, &a, NULL, two, &o);
            rd(&o, got);
            if (!vals_match("Scalar out", outs[k], got, want, 3)) {
                fprintf(stderr, "    aclnn%sScalar, out dtype %d\n", REL_NAME[r], (int)outs[k]);
                CHECK(!"compare out dtype");
            }
            dev_free(&o);
        }
        /* in place into selfRef's own dtype: s32, f32, bool, u8 */
        const aclDataType refs[] = {ACL_INT32, F, B, ACL_UINT8, ACL_FLOAT16};
        for (size_t k = 0; k < ARRAY_LEN(refs); k++) {
            DevTensor t = mk(refs[k], s3, 1, V(1, 2, 3)), u = mk(refs[k], s3, 1, V(1, 2, 3));
            if (refs[k] == B) {
                /* bool selfRef {1,0,1} vs 0.5: compared in f32 */
                dev_write(&t, (const uint8_t[]){1, 0, 1});
                DevTensor h = mk(F, s3, 1, V(0.5, 0.5, 0.5));
                cmp_run(r, &t, &h, NULL, NULL);
                double w[3] = {rel(r, 1, 0.5), rel(r, 0, 0.5), rel(r, 1, 0.5)};
                double g[3];
                rd(&t, g);
                CHECK(vals_match("bool selfRef", B, g, w, 3));
                dev_free(&h);
            } else {
                cmp_run(r, &t, &b, NULL, NULL);
                double g[3];
                rd(&t, g);
                CHECK(vals_match("in-place Tensor", refs[k], g, want, 3));
                cmp_run(r, &u, NULL, two, NULL);
                rd(&u, g);
                CHECK(vals_match("in-place Scalar", refs[k], g, want, 3));
            }
            dev_free(&t);
            dev_free(&u);
        }
    }
    /* u16 out: not in Eq/Ne's list (A2/A3), in Gt/Ge/Lt/Le's */
    DevTensor o16 = mk(ACL_UINT16, s3, 1, NULL);
    EXPECT_ERR(aclnnEqTensorGetWorkspaceSize(a.tensor, b.tensor, o16.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnEqTensorGetWorkspaceSize", "out", &o16);
    EXPECT_ERR(aclnnNeScalarGetWorkspaceSize(a.tensor, two, o16.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnNeScalarGetWorkspaceSize", "out", &o16);
    for (int r = GT; r <= LE; r++) {
        cmp_run(r, &a, &b, NULL, &o16);
        double want[3];
        for (int i = 0; i < 3; i++) want[i] = rel(r, i + 1, 2) ? 1 : 0;
        double g[3];
        rd(&o16, g);
        CHECK(vals_match("u16 out", ACL_UINT16, g, want, 3));
    }
    /* complex out: bool -> complex is not an allowed conversion (SEMANTICS section 5) */
    DevTensor oc = mk(ACL_COMPLEX64, s3, 1, NULL);
    EXPECT_ERR(aclnnEqTensorGetWorkspaceSize(a.tensor, b.tensor, oc.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnEqTensorGetWorkspaceSize", "out", &oc);
    EXPECT_ERR(aclnnLtScalarGetWorkspaceSize(a.tensor, two, oc.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnLtScalarGetWorkspaceSize", "out", &oc);
    CHECK_OK(aclDestroyScalar(two));
    dev_free(&a);
    dev_free(&b);
    dev_free(&o16);
    dev_free(&oc);
}

/* Eq and Ne compare complex numbers; Gt/Ge/Lt/Le refuse them. */
static void test_compare_complex(void)
{
    int64_t s4[] = {4};
    DevTensor a = mk(ACL_COMPLEX64, s4, 1, V(1, 2, 1, 2, 0, 0, 3, -1));
    DevTensor b = mk(ACL_COMPLEX64, s4, 1, V(1, 2, 1, -2, -0.0, 0, 3, 1));
    DevTensor o = mk(B, s4, 1, NULL), of = mk(F, s4, 1, NULL);
    cmp_run(EQ, &a, &b, NULL, &o);
    EXPECT_T(o, 1, 0, 1, 0);
    cmp_run(NE, &a, &b, NULL, &of);
    EXPECT_T(of, 0, 1, 0, 1);
    /* c64 with c128 (promoted c128) and with f32 (promoted c64) */
    DevTensor c2 = mk(ACL_COMPLEX128, s4, 1, V(1, 2, 1, 2.5, 0, 0, 3, -1));
    cmp_run(EQ, &c2, &a, NULL, &o);
    EXPECT_T(o, 1, 0, 1, 1);
    DevTensor f = mk(F, s4, 1, V(1, 1, 0, 3));
    cmp_run(NE, &f, &a, NULL, &o);
    EXPECT_T(o, 1, 1, 0, 1);
    /* against complex and real scalars */
    aclScalar *z = mks(ACL_COMPLEX64, 1, 2), *zero = sc(F, 0), *fs = sc(F, 1);
    cmp_run(EQ, &a, NULL, z, &o);
    EXPECT_T(o, 1, 1, 0, 0);
    cmp_run(NE, &a, NULL, zero, &o);
    EXPECT_T(o, 1, 1, 0, 1);
    /* a real tensor against a complex scalar: promoted c64 */
    aclScalar *z1 = mks(ACL_COMPLEX64, 1, 0);
    cmp_run(EQ, &f, NULL, z1, &o);
    EXPECT_T(o, 1, 1, 0, 0);
    CHECK_OK(aclDestroyScalar(z1));
    /* the ordered relations refuse complex operands in every form */
    for (int r = GT; r <= LE; r++) {
        char api[64];
        snprintf(api, sizeof(api), "aclnn%sTensorGetWorkspaceSize", REL_NAME[r]);
        Args x = {a.tensor, NULL, b.tensor, NULL, o.tensor};
        op_err_at(__FILE__, __LINE__, cmp_op(r, 0), &x, ACLNN_ERR_PARAM_INVALID, "self", &o);
        x.a = f.tensor;
        op_err_at(__FILE__, __LINE__, cmp_op(r, 0), &x, ACLNN_ERR_PARAM_INVALID, "other", &o);
        Args y = {a.tensor, NULL, NULL, fs, o.tensor};
        op_err_at(__FILE__, __LINE__, cmp_op(r, 1), &y, ACLNN_ERR_PARAM_INVALID, "self", &o);
        /* f32 tensor with a complex scalar */
        Args y2 = {f.tensor, NULL, NULL, z, o.tensor};
        op_err_at(__FILE__, __LINE__, cmp_op(r, 1), &y2, ACLNN_ERR_PARAM_INVALID, "other", &o);
        DevTensor t = mk(ACL_COMPLEX64, s4, 1, NULL);
        Args w = {t.tensor, NULL, b.tensor, NULL, NULL};
        op_err_at(__FILE__, __LINE__, cmp_op(r, 2), &w, ACLNN_ERR_PARAM_INVALID, "selfRef", &t);
        Args w2 = {t.tensor, NULL, NULL, fs, NULL};
        op_err_at(__FILE__, __LINE__, cmp_op(r, 3), &w2, ACLNN_ERR_PARAM_INVALID, "selfRef", &t);
        dev_free(&t);
    }
    /* in place Eq/Ne into a complex selfRef: bool -> complex is not an allowed conversion */
    for (int r = EQ; r <= NE; r++) {
        DevTensor t = mk(ACL_COMPLEX64, s4, 1, NULL);
        Args w = {t.tensor, NULL, b.tensor, NULL, NULL};
        op_err_at(__FILE__, __LINE__, cmp_op(r, 2), &w, ACLNN_ERR_PARAM_INVALID, "selfRef", &t);
        dev_free(&t);
    }
    /* c128 scalar vs c128 0-d tensor */
    DevTensor c0 = mk(ACL_COMPLEX128, NULL, 0, V(-1.5, 2)), o0 = mk(B, NULL, 0, NULL);
    aclScalar *zc = mks(ACL_COMPLEX128, -1.5, 2);
    cmp_run(EQ, &c0, NULL, zc, &o0);
    EXPECT_T(o0, 1);
    CHECK_OK(aclDestroyScalar(z));
    CHECK_OK(aclDestroyScalar(zero));
    CHECK_OK(aclDestroyScalar(fs));
    CHECK_OK(aclDestroyScalar(zc));
    DevTensor *all[] = {&a, &b, &o, &of, &c2, &f, &c0, &o0};
    for (size_t i = 0; i < ARRAY_LEN(all); i++) dev_free(all[i]);
}

/* A double input compares in f64 (not in f32), into a bool out. */
static void test_compare_double_bool(void)
{
    int64_t s4[] = {4};
    DevTensor a = mk(ACL_DOUBLE, s4, 1, V(1.0, 1.0 + 1e-12, 0.1, 16777217.0));
    DevTensor b = mk(ACL_DOUBLE, s4, 1, V(1.0 + 1e-12, 1.0, (double)0.1f, 16777216.0));
    DevTensor o = mk(B, s4, 1, NULL);
    cmp_run(GT, &a, &b, NULL, &o);
    EXPECT_T(o, 0, 1, 0, 1);
    cmp_run(LT, &a, &b, NULL, &o);
    EXPECT_T(o, 1, 0, 1, 0);
    cmp_run(EQ, &a, &b, NULL, &o);
    EXPECT_T(o, 0, 0, 0, 0);
    cmp_run(GE, &a, &a, NULL, &o);
    EXPECT_T(o, 1, 1, 1, 1);
    /* f64 with f32: promoted f64, so 0.1 != 0.1f */
    DevTensor f = mk(F, s4, 1, V(1.0, 1.0, 0.1, 16777216.0));
    cmp_run(EQ, &a, &f, NULL, &o);
    EXPECT_T(o, 1, 0, 0, 0);
    /* f64 tensor with a f64 scalar stays f64 */
    aclScalar *one = sc(ACL_DOUBLE, 1.0);
    cmp_run(GT, &a, NULL, one, &o);
    EXPECT_T(o, 0, 1, 0, 1);
    /* an f32 tensor with an f64 scalar compares in f32 (tensor-scalar relation): 0.1f == 0.1 */
    aclScalar *tenth = sc(ACL_DOUBLE, 0.1);
    cmp_run(EQ, &f, NULL, tenth, &o);
    EXPECT_T(o, 0, 0, 1, 0);
    CHECK_OK(aclDestroyScalar(one));
    CHECK_OK(aclDestroyScalar(tenth));
    dev_free(&a);
    dev_free(&b);
    dev_free(&o);
    dev_free(&f);
}

/* Mixed operand dtypes compare in the promoted dtype. */
static void test_compare_mixed(void)
{
    int64_t s3[] = {3}, s2[] = {2};
    /* s8 with u8: s16, so -1 < 255 */
    DevTensor a = mk(ACL_INT8, s3, 1, V(-1, 5, 127)), b = mk(ACL_UINT8, s3, 1, V(255, 5, 200));
    DevTensor o = mk(B, s3, 1, NULL);
    cmp_run(LT, &a, &b, NULL, &o);
    EXPECT_T(o, 1, 0, 1);
    cmp_run(EQ, &a, &b, NULL, &o);
    EXPECT_T(o, 0, 1, 0);
    /* s32 with f32: f32, where 16777217 becomes 16777216 */
    DevTensor i = mk(ACL_INT32, s3, 1, V(16777217, 2, -3)), f = mk(F, s3, 1, V(16777216, 2.5, -3));
    cmp_run(EQ, &i, &f, NULL, &o);
    EXPECT_T(o, 1, 0, 1);
    /* s32 with s64: s64, exact */
    DevTensor l = mk(ACL_INT64, s3, 1, V(16777216, 2, -3));
    cmp_run(EQ, &i, &l, NULL, &o);
    EXPECT_T(o, 0, 1, 1);
    /* f16 with f32: f32, so f16(0.1) != 0.1f */
    DevTensor h = mk(ACL_FLOAT16, s2, 1, V(0.1, 0.5)), g = mk(F, s2, 1, V(0.1, 0.5)), o2 = mk(B, s2, 1, NULL);
    cmp_run(EQ, &h, &g, NULL, &o2);
    EXPECT_T(o2, 0, 1);
    /* bool with f32 */
    DevTensor p = mk(B, s2, 1, V(1, 0)), q = mk(F, s2, 1, V(1, -0.5));
    cmp_run(GT, &p, &q, NULL, &o2);
    EXPECT_T(o2, 0, 1);
    /* s32 tensor with an f32 scalar: f32; with an s64 scalar: s32 */
    aclScalar *f25 = sc(F, 2.5), *l2 = sc(ACL_INT64, 2);
    cmp_run(GT, &i, NULL, f25, &o);
    EXPECT_T(o, 1, 0, 0);
    cmp_run(LE, &i, NULL, l2, &o);
    EXPECT_T(o, 0, 1, 1);
    /* bool tensor with an s32 scalar */
    aclScalar *one = sc(ACL_INT32, 1);
    cmp_run(EQ, &p, NULL, one, &o2);
    EXPECT_T(o2, 1, 0);
    /* in place: u8 selfRef with s8 other (s16): 255 != -1, result 0/1 in u8 */
    DevTensor u = mk(ACL_UINT8, s2, 1, V(255, 1)), s = mk(ACL_INT8, s2, 1, V(-1, 1));
    cmp_run(EQ, &u, &s, NULL, NULL);
    EXPECT_T(u, 0, 1);
    /* u16 with s32 cannot be promoted: refused */
    DevTensor w = mk(ACL_UINT16, s3, 1, NULL);
    EXPECT_ERR(aclnnGtTensorGetWorkspaceSize(w.tensor, i.tensor, o.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnGtTensorGetWorkspaceSize", NULL, &o);
    /* u16 with u16 is fine for Gt (u16 is in its list) */
    DevTensor w2 = mk(ACL_UINT16, s3, 1, V(65535, 0, 7));
    dev_write(&w, (const uint16_t[]){1, 0, 8});
    cmp_run(GT, &w2, &w, NULL, &o);
    EXPECT_T(o, 1, 0, 0);
    /* u64 and s64 values beyond 2^53 compare exactly (no detour through a float type) */
    DevTensor x = mk(ACL_UINT64, s2, 1, NULL), y = mk(ACL_UINT64, s2, 1, NULL);
    const uint64_t xv[] = {18446744073709551615ull, 9007199254740993ull};
    const uint64_t yv[] = {18446744073709551614ull, 9007199254740992ull};
    dev_write(&x, xv);
    dev_write(&y, yv);
    cmp_run(GT, &x, &y, NULL, &o2);
    EXPECT_T(o2, 1, 1);
    DevTensor xl = mk(ACL_INT64, s2, 1, NULL), yl = mk(ACL_INT64, s2, 1, NULL);
    const int64_t xlv[] = {9007199254740993LL, -9007199254740993LL}, ylv[] = {9007199254740992LL, -9007199254740992LL};
    dev_write(&xl, xlv);
    dev_write(&yl, ylv);
    cmp_run(EQ, &xl, &yl, NULL, &o2);
    EXPECT_T(o2, 0, 0);
    cmp_run(LT, &xl, &yl, NULL, &o2);
    EXPECT_T(o2, 0, 1);
    CHECK_OK(aclDestroyScalar(f25));
    CHECK_OK(aclDestroyScalar(l2));
    CHECK_OK(aclDestroyScalar(one));
    DevTensor *all[] = {&a, &b, &o, &i, &f, &l, &h, &g, &o2, &p, &q, &u, &s, &w, &w2, &x, &y, &xl, &yl};
    for (size_t k = 0; k < ARRAY_LEN(all); k++) dev_free(all[k]);
}

/* The in-place forms read every input before writing (other may alias selfRef). */
static void test_compare_inplace_alias(void)
{
    int64_t s23[] = {2, 3}, s3[] = {3};
    for (int r = EQ; r <= LE; r++) {
        DevTensor t = mk(F, s23, 2, V(1, 2, 3, 2, 2, 2));
        /* other: the first row of selfRef itself, broadcast over both rows */
        aclTensor *row = aclCreateTensor(s3, 1, F, NULL, 0, ACL_FORMAT_ND, s23, 2, t.dev);
        CHECK(row != NULL);
        DevTensor tr = {0};
        tr.tensor = row;
        cmp_run(r, &t, &tr, NULL, NULL);
        const double st[6] = {1, 2, 3, 2, 2, 2};
        double want[6];
        for (int k = 0; k < 6; k++) want[k] = rel(r, st[k], st[k % 3]) ? 1 : 0;
        double got[6];
        rd(&t, got);
        if (!vals_match("in place with aliasing other", F, got, want, 6)) {
            fprintf(stderr, "    aclnnInplace%sTensor with other = a view of selfRef's first row: every input must be "
                            "read before the output is written (SEMANTICS section 2)\n",
                    REL_NAME[r]);
            capi_fail_cond(__FILE__, __LINE__, "in place with aliasing other");
        }
        CHECK_OK(aclDestroyTensor(row));
        dev_free(&t);
    }
}

/* The device's merged-axes limit: f64 and s16 comparisons, tensor-tensor forms. */
static void test_compare_axis_limit(void)
{
    for (size_t i = 0; i < ARRAY_LEN(CMP_TABLE); i++) {
        const Op *op = &CMP_TABLE[i];
        if (op->kind != K_TT && op->kind != K_ITT) continue;
        case_axis_limit(op, ACL_DOUBLE, ACL_BOOL);
        case_axis_limit(op, ACL_INT16, ACL_INT32);
    }
}

int main(void)
{
    device_init();
    RUN_TEST(test_compare_generic);
    RUN_TEST(test_compare_nan);
    RUN_TEST(test_compare_out_dtypes);
    RUN_TEST(test_compare_complex);
    RUN_TEST(test_compare_double_bool);
    RUN_TEST(test_compare_mixed);
    RUN_TEST(test_compare_inplace_alias);
    RUN_TEST(test_compare_axis_limit);
    device_teardown();
    return capi_finish();
}
