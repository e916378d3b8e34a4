/*
 * Binary arithmetic beyond Add (reference 5.1): Sub/Subs/InplaceSub/InplaceSubs (alpha; bool - bool
 * is a logical xor), Mul/Muls/InplaceMul/InplaceMuls, Div/Divs/InplaceDiv/InplaceDivs (integer inputs divide
 * in f32; IEEE division by zero), DivMod/DivMods/InplaceDivMod/InplaceDivMods (modes 0, 1, 2;
 * others and trunc/floor on complex refused), PowTensorTensor/InplacePowTensorTensor/
 * PowTensorScalar/InplacePowTensorScalar/PowScalarTensor, Maximum/Minimum (NaN propagates).
 *
 * Every form runs through the table-driven cases (broadcasting, non-contiguous inputs and
 * output, mixed dtypes, 0-d, empty, each documented error); the test_* functions after the
 * tables add hand-computed values for the rules specific to each operator.
 */
#include "ops_common.h"

#include "aclnnop/aclnn_div.h"
#include "aclnnop/aclnn_maximum.h"
#include "aclnnop/aclnn_minimum.h"
#include "aclnnop/aclnn_mul.h"
#include "aclnnop/aclnn_pow.h"
#include "aclnnop/aclnn_pow_tensor_tensor.h"
#include "aclnnop/aclnn_sub.h"

#include <math.h>

/* ================================================================ the operator forms */

OP_WS_DEF(ws_sub)
{
    aclScalar *al = sc(ACL_INT32, op->alpha);
    aclnnStatus st = aclnnSubGetWorkspaceSize(x->a, x->b, al, x->out, w, e);
    CHECK_OK(aclDestroyScalar(al));
    return st;
}
OP_WS_DEF(ws_subs)
{
    aclScalar *al = sc(ACL_INT32, op->alpha);
    aclnnStatus st = aclnnSubsGetWorkspaceSize(x->a, x->bs, al, x->out, w, e);
    CHECK_OK(aclDestroyScalar(al));
    return st;
}
OP_WS_DEF(ws_isub)
{
    aclScalar *al = sc(ACL_INT32, op->alpha);
    aclnnStatus st = aclnnInplaceSubGetWorkspaceSize((aclTensor *)x->a, x->b, al, w, e);
    CHECK_OK(aclDestroyScalar(al));
    return st;
}
OP_WS_DEF(ws_isubs)
{
    aclScalar *al = sc(ACL_INT32, op->alpha);
    aclnnStatus st = aclnnInplaceSubsGetWorkspaceSize((aclTensor *)x->a, x->bs, al, w, e);
    CHECK_OK(aclDestroyScalar(al));
    return st;
}
OP_WS_TT(ws_mul, Mul)
OP_WS_TS(ws_muls, Muls)
OP_WS_ITT(ws_imul, InplaceMul)
OP_WS_ITS(ws_imuls, InplaceMuls)
OP_WS_TT(ws_div, Div)
OP_WS_TS(ws_divs, Divs)
OP_WS_ITT(ws_idiv, InplaceDiv)
OP_WS_ITS(ws_idivs, InplaceDivs)
OP_WS_DEF(ws_divmod)
{
    return aclnnDivModGetWorkspaceSize(x->a, x->b, op->mode, x->out, w, e);
}
OP_WS_DEF(ws_divmods)
{
    return aclnnDivModsGetWorkspaceSize(x->a, x->bs, op->mode, x->out, w, e);
}
OP_WS_DEF(ws_idivmod)
{
    return aclnnInplaceDivModGetWorkspaceSize((aclTensor *)x->a, x->b, op->mode, w, e);
}
OP_WS_DEF(ws_idivmods)
{
    return aclnnInplaceDivModsGetWorkspaceSize((aclTensor *)x->a, x->bs, op->mode, w, e);
}
OP_WS_TT(ws_powtt, PowTensorTensor)
OP_WS_ITT(ws_ipowtt, InplacePowTensorTensor)
OP_WS_TS(ws_powts, PowTensorScalar)
OP_WS_ITS(ws_ipowts, InplacePowTensorScalar)
OP_WS_ST(ws_powst, PowScalarTensor)
OP_WS_TT(ws_max, Maximum)
OP_WS_TT(ws_min, Minimum)

/* The reference formulas, in double. */
static double ref_sub(const Op *op, double x, double y) { return x - op->alpha * y; }
static double ref_mul(const Op *op, double x, double y)
{
    (void)op;
    return x * y;
}
static double ref_div(const Op *op, double x, double y)
{
    (void)op;
    return x / y;
}
static double ref_divmod(const Op *op, double x, double y)
{
    double q = x / y;
    return op->mode == 1 ? trunc(q) : op->mode == 2 ? floor(q) : q;
}
static double ref_pow(const Op *op, double x, double y)
{
    (void)op;
    return pow(x, y);
}
static double ref_max(const Op *op, double x, double y)
{
    (void)op;
    return x > y ? x : y;
}
static double ref_min(const Op *op, double x, double y)
{
    (void)op;
    return x < y ? x : y;
}

/* Operand values: small, exact in f16, with both signs. */
static double gen_any(int which, int64_t i, bool integral)
{
    if (which == 0) return integral ? (double)(i % 9) - 4 : (double)(i % 9) - 4 + 0.5 * (double)(i % 2);
    return integral ? (double)(i % 5) - 2 : ((double)(i % 7) - 3) * 0.75;
}
/* Divisors are non-zero powers of two (exact quotients, so trunc/floor are well defined). */
static double gen_div(int which, int64_t i, bool integral)
{
    static const double d[] = {1, -2, 4, -1, 2, 0.5};
    if (which == 0) return integral ? (double)(i % 11) - 5 : (double)(i % 11) - 5 + 0.5 * (double)(i % 2);
    double v = d[i % 6];
    return integral && v == 0.5 ? 8 : v;
}
/* Positive bases, exponents in [-2, 2]. */
static double gen_pow(int which, int64_t i, bool integral)
{
    if (which == 0) return integral ? (double)(i % 4) + 1 : 0.5 + 0.5 * (double)(i % 5);
    return (double)(i % 5) - 2;
}
/* Non-negative integral exponents (integer pow), positive bases. */
static double gen_pow_int(int which, int64_t i, bool integral)
{
    (void)integral;
    if (which == 0) return (double)(i % 4) + 1;
    return (double)((i + 2) % 4);
}

#define F ACL_FLOAT

/*
 * Each table row starts from the defaults of its form and overrides some fields: a designated
 * initializer given twice takes the last value (C11 6.7.9), which is what -Woverride-init flags.
 */
#pragma GCC diagnostic ignored "-Woverride-init"
#define TTOP(name, phase2, wsf, reff, genf, ...)                                                      \
    {                                                                                                 \
        .api = name "GetWorkspaceSize", .kind = K_TT, .ws = wsf, .run = phase2, .ref = reff, .gen = genf, \
        .pa = "self", .pb = "other", .dt = F, .sdt = F, .out_dt = F, .mix_a = ACL_INT32, .mix_b = F,  \
        .mix_out = F, .bad_in = ACL_UINT32, .bad_out = ACL_INT32, .bad_out_b = F, .np_a = ACL_UINT16, \
        .np_b = ACL_INT32, __VA_ARGS__                                                                \
    }
#define TSOP(name, phase2, wsf, reff, genf, ...)                                                      \
    {                                                                                                 \
        .api = name "GetWorkspaceSize", .kind = K_TS, .ws = wsf, .run = phase2, .ref = reff, .gen = genf, \
        .pa = "self", .pb = "other", .dt = F, .sdt = F, .out_dt = F, .mix_a = ACL_INT32, .mix_b = F,  \
        .mix_out = F, .bad_in = ACL_UINT32, .bad_out = ACL_INT32, .bad_out_b = F, .np_a = UNDEF,      \
        .np_b = UNDEF, __VA_ARGS__                                                                    \
    }
#define ITTOP(name, phase2, wsf, reff, genf, ...)                                                     \
    {                                                                                                 \
        .api = name "GetWorkspaceSize", .kind = K_ITT, .ws = wsf, .run = phase2, .ref = reff, .gen = genf, \
        .pa = "selfRef", .pb = "other", .dt = F, .sdt = F, .out_dt = F, .mix_a = F, .mix_b = ACL_INT32, \
        .mix_out = F, .bad_in = ACL_UINT32, .bad_out = ACL_INT32, .bad_out_b = F, .np_a = ACL_UINT16, \
        .np_b = ACL_INT32, __VA_ARGS__                                                                \
    }
#define ITSOP(name, phase2, wsf, reff, genf, ...)                                                     \
    {                                                                                                 \
        .api = name "GetWorkspaceSize", .kind = K_ITS, .ws = wsf, .run = phase2, .ref = reff, .gen = genf, \
        .pa = "selfRef", .pb = "other", .dt = F, .sdt = F, .out_dt = F, .mix_a = ACL_FLOAT16,          \
        .mix_b = ACL_DOUBLE, .mix_out = ACL_FLOAT16, .bad_in = ACL_UINT32, .bad_out = ACL_INT32,      \
        .bad_out_b = F, .np_a = UNDEF, .np_b = UNDEF, __VA_ARGS__                                     \
    }

static const Op SUB_OPS[] = {
    TTOP("aclnnSub", aclnnSub, ws_sub, ref_sub, gen_any, .alpha = 2),
    TSOP("aclnnSubs", aclnnSubs, ws_subs, ref_sub, gen_any, .alpha = 2),
    ITTOP("aclnnInplaceSub", aclnnInplaceSub, ws_isub, ref_sub, gen_any, .alpha = 2),
    ITSOP("aclnnInplaceSubs", aclnnInplaceSubs, ws_isubs, ref_sub, gen_any, .alpha = 2),
};
static const Op MUL_OPS[] = {
    TTOP("aclnnMul", aclnnMul, ws_mul, ref_mul, gen_any, .mode = 0),
    TSOP("aclnnMuls", aclnnMuls, ws_muls, ref_mul, gen_any, .mode = 0),
    ITTOP("aclnnInplaceMul", aclnnInplaceMul, ws_imul, ref_mul, gen_any, .mode = 0),
    ITSOP("aclnnInplaceMuls", aclnnInplaceMuls, ws_imuls, ref_mul, gen_any, .mode = 0),
};
static const Op DIV_OPS[] = {
    TTOP("aclnnDiv", aclnnDiv, ws_div, ref_div, gen_div, .mode = 0),
    TSOP("aclnnDivs", aclnnDivs, ws_divs, ref_div, gen_div, .mode = 0),
    ITTOP("aclnnInplaceDiv", aclnnInplaceDiv, ws_idiv, ref_div, gen_div, .mode = 0),
    ITSOP("aclnnInplaceDivs", aclnnInplaceDivs, ws_idivs, ref_div, gen_div, .mode = 0),
};
static const Op DIVMOD_OPS[] = {
    TTOP("aclnnDivMod", aclnnDivMod, ws_divmod, ref_divmod, gen_div, .mode = 2),
    TTOP("aclnnDivMod", aclnnDivMod, ws_divmod, ref_divmod, gen_div, .mode = 1),
    TTOP("aclnnDivMod", aclnnDivMod, ws_divmod, ref_divmod, gen_div, .mode = 0),
    TSOP("aclnnDivMods", aclnnDivMods, ws_divmods, ref_divmod, gen_div, .mode = 1),
    TSOP("aclnnDivMods", aclnnDivMods, ws_divmods, ref_divmod, gen_div, .mode = 2),
    ITTOP("aclnnInplaceDivMod", aclnnInplaceDivMod, ws_idivmod, ref_divmod, gen_div, .mode = 1),
    ITTOP("aclnnInplaceDivMod", aclnnInplaceDivMod, ws_idivmod, ref_divmod, gen_div, .mode = 2),
    ITSOP("aclnnInplaceDivMods", aclnnInplaceDivMods, ws_idivmods, ref_divmod, gen_div, .mode = 2),
    ITSOP("aclnnInplaceDivMods", aclnnInplaceDivMods, ws_idivmods, ref_divmod, gen_div, .mode = 0),
};
static const Op POW_OPS[] = {
    TTOP("aclnnPowTensorTensor", aclnnPowTensorTensor, ws_powtt, ref_pow, gen_pow, .pb = "exponent"),
    TTOP("aclnnPowTensorTensor", aclnnPowTensorTensor, ws_powtt, ref_pow, gen_pow_int, .pb = "exponent",
         .dt = ACL_INT32, .out_dt = ACL_INT32, .mix_a = ACL_INT8, .mix_b = ACL_UINT8, .mix_out = ACL_INT16,
         .bad_out = ACL_BOOL, .bad_in = ACL_UINT64),
    ITTOP("aclnnInplacePowTensorTensor", aclnnInplacePowTensorTensor, ws_ipowtt, ref_pow, gen_pow, .pa = "self",
          .pb = "exponent"),
    TSOP("aclnnPowTensorScalar", aclnnPowTensorScalar, ws_powts, ref_pow, gen_pow, .pb = "exponent"),
    TSOP("aclnnPowTensorScalar", aclnnPowTensorScalar, ws_powts, ref_pow, gen_pow_int, .pb = "exponent",
         .dt = ACL_INT32, .sdt = ACL_INT64, .out_dt = ACL_INT64, .mix_a = ACL_UINT8, .mix_b = ACL_INT32,
         .mix_out = ACL_INT32, .bad_out = ACL_BOOL),
    ITSOP("aclnnInplacePowTensorScalar", aclnnInplacePowTensorScalar, ws_ipowts, ref_pow, gen_pow, .pa = "self",
          .pb = "exponent"),
    {.api = "aclnnPowScalarTensorGetWorkspaceSize", .kind = K_ST, .ws = ws_powst, .run = aclnnPowScalarTensor,
     .ref = ref_pow, .gen = gen_pow, .pa = "self", .pb = "exponent", .dt = F, .sdt = F, .out_dt = F,
     .mix_a = ACL_DOUBLE, .mix_b = ACL_INT32, .mix_out = F, .bad_in = ACL_UINT32, .bad_out = ACL_INT32,
     .bad_out_b = F, .np_a = UNDEF, .np_b = UNDEF},
};
static const Op EXTREMUM_OPS[] = {
    TTOP("aclnnMaximum", aclnnMaximum, ws_max, ref_max, gen_any, .bad_in = ACL_COMPLEX64),
    TTOP("aclnnMaximum", aclnnMaximum, ws_max, ref_max, gen_any, .dt = ACL_INT16, .out_dt = ACL_INT64,
         .mix_a = ACL_INT8, .mix_b = ACL_UINT8, .mix_out = ACL_INT16, .bad_out = ACL_BOOL),
    TTOP("aclnnMinimum", aclnnMinimum, ws_min, ref_min, gen_any, .bad_in = ACL_COMPLEX64),
    TTOP("aclnnMinimum", aclnnMinimum, ws_min, ref_min, gen_any, .dt = ACL_DOUBLE, .out_dt = ACL_DOUBLE,
         .mix_a = ACL_FLOAT16, .mix_b = ACL_BF16, .mix_out = ACL_FLOAT),
};

/* ================================================================ Sub family */

static void test_sub_generic(void) { run_table(SUB_OPS, ARRAY_LEN(SUB_OPS)); }

/* out = self - alpha * other for several alphas; integer tensors need an integral alpha. */
static void test_sub_alpha(void)
{
    int64_t s4[] = {4};
    DevTensor a = mk(F, s4, 1, V(1, 2, 3, 4)), b = mk(F, s4, 1, V(0.5, -1, 2, 8)), o = mk(F, s4, 1, NULL);
    aclScalar *al = sc(F, 1);
    RUN2(aclnnSubGetWorkspaceSize(a.tensor, b.tensor, al, o.tensor, &ews, &eex), aclnnSub);
    EXPECT_T(o, 0.5, 3, 1, -4);
    CHECK_OK(aclDestroyScalar(al));
    al = sc(ACL_DOUBLE, -1.5);
    RUN2(aclnnSubGetWorkspaceSize(a.tensor, b.tensor, al, o.tensor, &ews, &eex), aclnnSub);
    EXPECT_T(o, 1.75, 0.5, 6, 16);
    CHECK_OK(aclDestroyScalar(al));
    al = sc(F, 0);
    RUN2(aclnnSubGetWorkspaceSize(a.tensor, b.tensor, al, o.tensor, &ews, &eex), aclnnSub);
    EXPECT_T(o, 1, 2, 3, 4);
    CHECK_OK(aclDestroyScalar(al));
    al = sc(ACL_FLOAT16, 0.5);
    RUN2(aclnnSubGetWorkspaceSize(a.tensor, b.tensor, al, o.tensor, &ews, &eex), aclnnSub);
    EXPECT_T(o, 0.75, 2.5, 2, 0);
    CHECK_OK(aclDestroyScalar(al));
    /* a bool alpha (true) with float tensors */
    al = sc(ACL_BOOL, 1);
    RUN2(aclnnSubGetWorkspaceSize(a.tensor, b.tensor, al, o.tensor, &ews, &eex), aclnnSub);
    EXPECT_T(o, 0.5, 3, 1, -4);
    CHECK_OK(aclDestroyScalar(al));
    /* NULL alpha: 161001; a u64 alpha (not in ALL12): 161002 */
    EXPECT_ERR(aclnnSubGetWorkspaceSize(a.tensor, b.tensor, NULL, o.tensor, &ews, &eex), ACLNN_ERR_PARAM_NULLPTR,
               "aclnnSubGetWorkspaceSize", "alpha", &o);
    al = sc(ACL_UINT64, 1);
    EXPECT_ERR(aclnnSubGetWorkspaceSize(a.tensor, b.tensor, al, o.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnSubGetWorkspaceSize", "alpha", &o);
    CHECK_OK(aclDestroyScalar(al));
    /* a complex alpha with a real result */
    al = mks(ACL_COMPLEX64, 1, 1);
    EXPECT_ERR(aclnnSubGetWorkspaceSize(a.tensor, b.tensor, al, o.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnSubGetWorkspaceSize", "alpha", &o);
    CHECK_OK(aclDestroyScalar(al));

    /* s32 tensors, s32 alpha: computed in s32 */
    DevTensor ia = mk(ACL_INT32, s4, 1, V(10, -20, 30, 2000000000)), ib = mk(ACL_INT32, s4, 1, V(1, 2, 3, -4));
    DevTensor io = mk(ACL_INT32, s4, 1, NULL);
    al = sc(ACL_INT32, 3);
    RUN2(aclnnSubGetWorkspaceSize(ia.tensor, ib.tensor, al, io.tensor, &ews, &eex), aclnnSub);
    EXPECT_T(io, 7, -26, 21, 2000000012);
    CHECK_OK(aclDestroyScalar(al));
    /* a float alpha with integer tensors is refused, with any out dtype */
    al = sc(F, 2);
    EXPECT_ERR(aclnnSubGetWorkspaceSize(ia.tensor, ib.tensor, al, io.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnSubGetWorkspaceSize", "alpha", &io);
    EXPECT_ERR(aclnnSubGetWorkspaceSize(ia.tensor, ib.tensor, al, o.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnSubGetWorkspaceSize", "alpha", &o);
    aclScalar *one = sc(ACL_INT32, 1);
    EXPECT_ERR(aclnnSubsGetWorkspaceSize(ia.tensor, one, al, io.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnSubsGetWorkspaceSize", "alpha", &io);
    EXPECT_ERR(aclnnInplaceSubGetWorkspaceSize(ia.tensor, ib.tensor, al, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnInplaceSubGetWorkspaceSize", "alpha", NULL);
    EXPECT_ERR(aclnnInplaceSubsGetWorkspaceSize(ia.tensor, one, al, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnInplaceSubsGetWorkspaceSize", "alpha", NULL);
    CHECK_OK(aclDestroyScalar(al));
    /* NULL alpha in the other forms */
    EXPECT_ERR(aclnnSubsGetWorkspaceSize(ia.tensor, one, NULL, io.tensor, &ews, &eex), ACLNN_ERR_PARAM_NULLPTR,
               "aclnnSubsGetWorkspaceSize", "alpha", &io);
    EXPECT_ERR(aclnnInplaceSubGetWorkspaceSize(ia.tensor, ib.tensor, NULL, &ews, &eex), ACLNN_ERR_PARAM_NULLPTR,
               "aclnnInplaceSubGetWorkspaceSize", "alpha", NULL);
    EXPECT_ERR(aclnnInplaceSubsGetWorkspaceSize(ia.tensor, one, NULL, &ews, &eex), ACLNN_ERR_PARAM_NULLPTR,
               "aclnnInplaceSubsGetWorkspaceSize", "alpha", NULL);

    /* Subs: s32 tensor - s64 scalar * s32 alpha stays s32 */
    aclScalar *five = sc(ACL_INT64, 5), *two = sc(ACL_INT32, 2);
    RUN2(aclnnSubsGetWorkspaceSize(ia.tensor, five, two, io.tensor, &ews, &eex), aclnnSubs);
    EXPECT_T(io, 0, -30, 20, 1999999990);
    /* InplaceSubs on s32 */
    RUN2(aclnnInplaceSubsGetWorkspaceSize(ia.tensor, five, two, &ews, &eex), aclnnInplaceSubs);
    EXPECT_T(ia, 0, -30, 20, 1999999990);
    CHECK_OK(aclDestroyScalar(five));
    CHECK_OK(aclDestroyScalar(two));
    CHECK_OK(aclDestroyScalar(one));
    dev_free(&a);
    dev_free(&b);
    dev_free(&o);
    dev_free(&ia);
    dev_free(&ib);
    dev_free(&io);
}

/* bool - bool is `self xor (alpha and other)` in every form (CANN runs its Sub kernel on bool);
 * an integer alpha is converted to bool; bool with another dtype computes in that dtype. */
static void test_sub_bool(void)
{
    int64_t s3[] = {3}, s1[] = {1};
    DevTensor p = mk(ACL_BOOL, s3, 1, V(1, 0, 1)), q = mk(ACL_BOOL, s3, 1, V(1, 1, 0));
    DevTensor ob = mk(ACL_BOOL, s3, 1, NULL), oi = mk(ACL_INT32, s3, 1, NULL);
    DevTensor q1 = mk(ACL_BOOL, s1, 1, V(1));
    aclScalar *one = sc(ACL_INT32, 1), *t = sc(ACL_BOOL, 1), *fa = sc(ACL_BOOL, 0), *two = sc(ACL_INT64, 2);
    RUN2(aclnnSubGetWorkspaceSize(p.tensor, q.tensor, one, ob.tensor, &ews, &eex), aclnnSub);
    EXPECT_T(ob, 0, 1, 1);
    RUN2(aclnnSubGetWorkspaceSize(p.tensor, q.tensor, two, oi.tensor, &ews, &eex), aclnnSub);
    EXPECT_T(oi, 0, 1, 1);
    RUN2(aclnnSubGetWorkspaceSize(p.tensor, q.tensor, fa, ob.tensor, &ews, &eex), aclnnSub);
    EXPECT_T(ob, 1, 0, 1);
    /* other (1,) broadcasts */
    RUN2(aclnnSubGetWorkspaceSize(p.tensor, q1.tensor, t, ob.tensor, &ews, &eex), aclnnSub);
    EXPECT_T(ob, 0, 1, 0);
    RUN2(aclnnSubsGetWorkspaceSize(p.tensor, t, t, ob.tensor, &ews, &eex), aclnnSubs);
    EXPECT_T(ob, 0, 1, 0);
    RUN2(aclnnInplaceSubsGetWorkspaceSize(q.tensor, t, fa, &ews, &eex), aclnnInplaceSubs);
    EXPECT_T(q, 1, 1, 0);
    RUN2(aclnnInplaceSubGetWorkspaceSize(q.tensor, p.tensor, t, &ews, &eex), aclnnInplaceSub);
    EXPECT_T(q, 0, 1, 1);
    /* a float alpha cannot apply to a bool result */
    aclScalar *half = sc(F, 0.5);
    EXPECT_ERR(aclnnSubGetWorkspaceSize(p.tensor, q.tensor, half, ob.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnSubGetWorkspaceSize", "alpha", &ob);
    CHECK_OK(aclDestroyScalar(half));
    CHECK_OK(aclDestroyScalar(fa));
    CHECK_OK(aclDestroyScalar(two));
    dev_free(&q1);

    /* bool - s32 and s32 - bool compute in s32 */
    dev_write(&p, (const uint8_t[]){1, 0, 1});
    DevTensor n = mk(ACL_INT32, s3, 1, V(3, 4, 5));
    RUN2(aclnnSubGetWorkspaceSize(p.tensor, n.tensor, one, oi.tensor, &ews, &eex), aclnnSub);
    EXPECT_T(oi, -2, -4, -4);
    RUN2(aclnnSubGetWorkspaceSize(n.tensor, p.tensor, one, oi.tensor, &ews, &eex), aclnnSub);
    EXPECT_T(oi, 2, 4, 4);
    /* bool tensor - s32 scalar: the scalar's dtype */
    RUN2(aclnnSubsGetWorkspaceSize(p.tensor, one, one, oi.tensor, &ews, &eex), aclnnSubs);
    EXPECT_T(oi, 0, -1, 0);
    /* bool - f32 -> f32 */
    DevTensor f = mk(F, s3, 1, V(0.5, 0.5, 0.5)), of = mk(F, s3, 1, NULL);
    RUN2(aclnnSubGetWorkspaceSize(p.tensor, f.tensor, one, of.tensor, &ews, &eex), aclnnSub);
    EXPECT_T(of, 0.5, -0.5, 0.5);
    CHECK_OK(aclDestroyScalar(one));
    CHECK_OK(aclDestroyScalar(t));
    dev_free(&p);
    dev_free(&q);
    dev_free(&ob);
    dev_free(&oi);
    dev_free(&n);
    dev_free(&f);
    dev_free(&of);
}

static void test_sub_other_dtypes(void)
{
    int64_t s2[] = {2};
    aclScalar *one = sc(ACL_INT32, 1);
    /* s8 - u8 -> s16 */
    DevTensor a = mk(ACL_INT8, s2, 1, V(-100, 100)), b = mk(ACL_UINT8, s2, 1, V(200, 255));
    DevTensor o = mk(ACL_INT16, s2, 1, NULL);
    RUN2(aclnnSubGetWorkspaceSize(a.tensor, b.tensor, one, o.tensor, &ews, &eex), aclnnSub);
    EXPECT_T(o, -300, -155);
    /* complex: (1+2i) - 2*(0.5-1i) = 0+4i; alpha i: (1+2i) - i*(0.5-1i) = 0+1.5i */
    int64_t s1[] = {1};
    DevTensor c = mk(ACL_COMPLEX64, s1, 1, V(1, 2)), d = mk(ACL_COMPLEX64, s1, 1, V(0.5, -1));
    DevTensor co = mk(ACL_COMPLEX64, s1, 1, NULL);
    aclScalar *two = sc(ACL_INT32, 2), *ii = mks(ACL_COMPLEX64, 0, 1);
    RUN2(aclnnSubGetWorkspaceSize(c.tensor, d.tensor, two, co.tensor, &ews, &eex), aclnnSub);
    EXPECT_T(co, 0, 4);
    RUN2(aclnnSubGetWorkspaceSize(c.tensor, d.tensor, ii, co.tensor, &ews, &eex), aclnnSub);
    EXPECT_T(co, 0, 1.5);
    /* c128 out from c64 inputs (complex -> complex) */
    DevTensor co128 = mk(ACL_COMPLEX128, s1, 1, NULL);
    RUN2(aclnnSubGetWorkspaceSize(c.tensor, d.tensor, two, co128.tensor, &ews, &eex), aclnnSub);
    EXPECT_T(co128, 0, 4);
    /* complex result into a real out: refused */
    DevTensor fo = mk(F, s1, 1, NULL);
    EXPECT_ERR(aclnnSubGetWorkspaceSize(c.tensor, d.tensor, two, fo.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnSubGetWorkspaceSize", "out", &fo);
    /* InplaceSubs takes a complex selfRef (CANN's doc and A2 code): (1+2i) - 1*2 = -1+2i */
    RUN2(aclnnInplaceSubsGetWorkspaceSize(c.tensor, two, one, &ews, &eex), aclnnInplaceSubs);
    EXPECT_T(c, -1, 2);
    /* f16 - f16 rounds once: 2048 - 0.5 = 2047.5 lies halfway between the f16 values 2047 and 2048 (even) */
    DevTensor h = mk(ACL_FLOAT16, s2, 1, V(2048, 1)), hb = mk(ACL_FLOAT16, s2, 1, V(0.5, 0.0009765625));
    DevTensor ho = mk(ACL_FLOAT16, s2, 1, NULL);
    RUN2(aclnnSubGetWorkspaceSize(h.tensor, hb.tensor, one, ho.tensor, &ews, &eex), aclnnSub);
    EXPECT_T(ho, 2048, 0.9990234375);
    CHECK_OK(aclDestroyScalar(one));
    CHECK_OK(aclDestroyScalar(two));
    CHECK_OK(aclDestroyScalar(ii));
    dev_free(&a);
    dev_free(&b);
    dev_free(&o);
    dev_free(&c);
    dev_free(&d);
    dev_free(&co);
    dev_free(&co128);
    dev_free(&fo);
    dev_free(&h);
    dev_free(&hb);
    dev_free(&ho);
}

/* ================================================================ Mul family */

static void test_mul_generic(void) { run_table(MUL_OPS, ARRAY_LEN(MUL_OPS)); }

static void test_mul_values(void)
{
    int64_t s4[] = {4}, s2[] = {2}, s1[] = {1}, s3[] = {3};
    /* bool * bool is "and" */
    DevTensor p = mk(ACL_BOOL, s4, 1, V(1, 1, 0, 0)), q = mk(ACL_BOOL, s4, 1, V(1, 0, 1, 0));
    DevTensor pb = mk(ACL_BOOL, s4, 1, NULL);
    RUN2(aclnnMulGetWorkspaceSize(p.tensor, q.tensor, pb.tensor, &ews, &eex), aclnnMul);
    EXPECT_T(pb, 1, 0, 0, 0);
    /* integers wrap: s8 100*2 = -56, -128*-1 = -128 */
    DevTensor a = mk(ACL_INT8, s2, 1, V(100, -128)), b = mk(ACL_INT8, s2, 1, V(2, -1)), o = mk(ACL_INT8, s2, 1, NULL);
    RUN2(aclnnMulGetWorkspaceSize(a.tensor, b.tensor, o.tensor, &ews, &eex), aclnnMul);
    EXPECT_T(o, -56, -128);
    /* s8 * u8 -> s16 */
    DevTensor u = mk(ACL_UINT8, s2, 1, V(200, 255)), o16 = mk(ACL_INT16, s2, 1, NULL);
    RUN2(aclnnMulGetWorkspaceSize(a.tensor, u.tensor, o16.tensor, &ews, &eex), aclnnMul);
    EXPECT_T(o16, 20000, -32640);
    /* complex: (1+2i)(3-1i) = 5+5i; complex * f32 -> c64 */
    DevTensor c = mk(ACL_COMPLEX64, s1, 1, V(1, 2)), d = mk(ACL_COMPLEX64, s1, 1, V(3, -1));
    DevTensor co = mk(ACL_COMPLEX64, s1, 1, NULL), f = mk(F, s1, 1, V(2));
    RUN2(aclnnMulGetWorkspaceSize(c.tensor, d.tensor, co.tensor, &ews, &eex), aclnnMul);
    EXPECT_T(co, 5, 5);
    RUN2(aclnnMulGetWorkspaceSize(f.tensor, c.tensor, co.tensor, &ews, &eex), aclnnMul);
    EXPECT_T(co, 2, 4);
    /* Muls: s32 * f32 scalar -> f32; with an s32 out it is refused; s32 * s64 scalar stays s32 */
    DevTensor i3 = mk(ACL_INT32, s3, 1, V(1, -2, 3)), f3 = mk(F, s3, 1, NULL), o3 = mk(ACL_INT32, s3, 1, NULL);
    aclScalar *half = sc(F, 0.5), *three = sc(ACL_INT64, 3);
    RUN2(aclnnMulsGetWorkspaceSize(i3.tensor, half, f3.tensor, &ews, &eex), aclnnMuls);
    EXPECT_T(f3, 0.5, -1, 1.5);
    EXPECT_ERR(aclnnMulsGetWorkspaceSize(i3.tensor, half, o3.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnMulsGetWorkspaceSize", "out", &o3);
    RUN2(aclnnMulsGetWorkspaceSize(i3.tensor, three, o3.tensor, &ews, &eex), aclnnMuls);
    EXPECT_T(o3, 3, -6, 9);
    /* InplaceMul: s8 selfRef * s32 other computes in s32 and wraps into s8 (300 -> 44, -200 -> 56) */
    DevTensor r = mk(ACL_INT8, s2, 1, V(100, -2)), i2 = mk(ACL_INT32, s2, 1, V(3, 100));
    RUN2(aclnnInplaceMulGetWorkspaceSize(r.tensor, i2.tensor, &ews, &eex), aclnnInplaceMul);
    EXPECT_T(r, 44, 56);
    /* InplaceMuls: f32 selfRef * s32 scalar */
    aclScalar *m3 = sc(ACL_INT32, -3);
    RUN2(aclnnInplaceMulsGetWorkspaceSize(f3.tensor, m3, &ews, &eex), aclnnInplaceMuls);
    EXPECT_T(f3, -1.5, 3, -4.5);
    /* InplaceMuls: s32 selfRef * f32 scalar computes in f32, which s32 cannot hold */
    EXPECT_ERR(aclnnInplaceMulsGetWorkspaceSize(i3.tensor, half, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnInplaceMulsGetWorkspaceSize", "selfRef", &i3);
    /* special values: inf * 0 = NaN, -0 signs */
    DevTensor sa = mk(F, s3, 1, V(INFINITY, -0.0, NAN)), sb = mk(F, s3, 1, V(0, 5, 1)), so = mk(F, s3, 1, NULL);
    RUN2(aclnnMulGetWorkspaceSize(sa.tensor, sb.tensor, so.tensor, &ews, &eex), aclnnMul);
    EXPECT_T(so, NAN, 0, NAN);
    CHECK_OK(aclDestroyScalar(half));
    CHECK_OK(aclDestroyScalar(three));
    CHECK_OK(aclDestroyScalar(m3));
    DevTensor *all[] = {&p, &q, &pb, &a, &b, &o, &u, &o16, &c, &d, &co, &f, &i3, &f3, &o3, &r, &i2, &sa, &sb, &so};
    for (size_t i = 0; i < ARRAY_LEN(all); i++) dev_free(all[i]);
}

/* ================================================================ Div family */

static void test_div_generic(void) { run_table(DIV_OPS, ARRAY_LEN(DIV_OPS)); }

/* Integer (and bool) inputs divide truly, computed in f32. */
static void test_div_integer_inputs(void)
{
    int64_t s6[] = {6};
    DevTensor a = mk(ACL_INT32, s6, 1, V(7, -7, 1, 16777217, 0, -3));
    DevTensor b = mk(ACL_INT32, s6, 1, V(2, 2, 3, 1, 0, 0));
    DevTensor of = mk(F, s6, 1, NULL), od = mk(ACL_DOUBLE, s6, 1, NULL);
    RUN2(aclnnDivGetWorkspaceSize(a.tensor, b.tensor, of.tensor, &ews, &eex), aclnnDiv);
    EXPECT_T(of, 3.5, -3.5, (double)(1.0f / 3.0f), 16777216, NAN, -INFINITY);
    /* into f64: the values are still the f32 quotients (1/3 in f32; 16777217 not representable) */
    RUN2(aclnnDivGetWorkspaceSize(a.tensor, b.tensor, od.tensor, &ews, &eex), aclnnDiv);
    EXPECT_T(od, 3.5, -3.5, (double)(1.0f / 3.0f), 16777216, NAN, -INFINITY);
    /* s64 inputs too */
    int64_t s2[] = {2};
    DevTensor la = mk(ACL_INT64, s2, 1, V(1099511627777.0, 10)), lb = mk(ACL_INT64, s2, 1, V(1, 4));
    DevTensor lo = mk(ACL_DOUBLE, s2, 1, NULL);
    RUN2(aclnnDivGetWorkspaceSize(la.tensor, lb.tensor, lo.tensor, &ews, &eex), aclnnDiv);
    EXPECT_T(lo, 1099511627776.0, 2.5);
    /* s8 / u8 (promoted s16) -> f32 */
    DevTensor sa = mk(ACL_INT8, s2, 1, V(-7, 100)), ub = mk(ACL_UINT8, s2, 1, V(2, 200)), so = mk(F, s2, 1, NULL);
    RUN2(aclnnDivGetWorkspaceSize(sa.tensor, ub.tensor, so.tensor, &ews, &eex), aclnnDiv);
    EXPECT_T(so, -3.5, 0.5);
    /* bool / bool -> f32 */
    int64_t s3[] = {3};
    DevTensor p = mk(ACL_BOOL, s3, 1, V(1, 0, 1)), q = mk(ACL_BOOL, s3, 1, V(1, 1, 0)), po = mk(F, s3, 1, NULL);
    RUN2(aclnnDivGetWorkspaceSize(p.tensor, q.tensor, po.tensor, &ews, &eex), aclnnDiv);
    EXPECT_T(po, 1, 0, INFINITY);
    /* an integer quotient cannot go to a bool out */
    DevTensor ob = mk(ACL_BOOL, s6, 1, NULL);
    EXPECT_ERR(aclnnDivGetWorkspaceSize(a.tensor, b.tensor, ob.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnDivGetWorkspaceSize", "out", &ob);
    /* Divs: s32 tensor / s32 scalar -> f32 out */
    aclScalar *two = sc(ACL_INT32, 2);
    RUN2(aclnnDivsGetWorkspaceSize(a.tensor, two, of.tensor, &ews, &eex), aclnnDivs);
    EXPECT_T(of, 3.5, -3.5, 0.5, 8388608, 0, -1.5);
    CHECK_OK(aclDestroyScalar(two));
    DevTensor *all[] = {&a, &b, &of, &od, &la, &lb, &lo, &sa, &ub, &so, &p, &q, &po, &ob};
    for (size_t i = 0; i < ARRAY_LEN(all); i++) dev_free(all[i]);
}

/* IEEE division by zero for floats; the plain formula for complex. */
static void test_div_by_zero(void)
{
    int64_t s5[] = {5};
    DevTensor a = mk(F, s5, 1, V(1, -1, 0, 5, NAN)), b = mk(F, s5, 1, V(0, 0, 0, -0.0, 0));
    DevTensor o = mk(F, s5, 1, NULL);
    RUN2(aclnnDivGetWorkspaceSize(a.tensor, b.tensor, o.tensor, &ews, &eex), aclnnDiv);
    EXPECT_T(o, INFINITY, -INFINITY, NAN, -INFINITY, NAN);
    DevTensor da = mk(ACL_DOUBLE, s5, 1, V(1, -1, 0, 5, 1e300)), db = mk(ACL_DOUBLE, s5, 1, V(0, 0, 0, -0.0, 1e-300));
    DevTensor dout = mk(ACL_DOUBLE, s5, 1, NULL);
    RUN2(aclnnDivGetWorkspaceSize(da.tensor, db.tensor, dout.tensor, &ews, &eex), aclnnDiv);
    EXPECT_T(dout, INFINITY, -INFINITY, NAN, -INFINITY, INFINITY);
    /* f16: 1/0 = inf, and 60000/0.5 overflows f16 to inf */
    int64_t s2[] = {2};
    DevTensor ha = mk(ACL_FLOAT16, s2, 1, V(1, 60000)), hb = mk(ACL_FLOAT16, s2, 1, V(0, 0.5));
    DevTensor ho = mk(ACL_FLOAT16, s2, 1, NULL);
    RUN2(aclnnDivGetWorkspaceSize(ha.tensor, hb.tensor, ho.tensor, &ews, &eex), aclnnDiv);
    EXPECT_T(ho, INFINITY, INFINITY);
    /* Divs and InplaceDivs by a zero scalar */
    aclScalar *zero = sc(ACL_DOUBLE, 0);
    RUN2(aclnnDivsGetWorkspaceSize(a.tensor, zero, o.tensor, &ews, &eex), aclnnDivs);
    EXPECT_T(o, INFINITY, -INFINITY, NAN, INFINITY, NAN);
    RUN2(aclnnInplaceDivsGetWorkspaceSize(a.tensor, zero, &ews, &eex), aclnnInplaceDivs);
    EXPECT_T(a, INFINITY, -INFINITY, NAN, INFINITY, NAN);
    CHECK_OK(aclDestroyScalar(zero));
    /* complex: (1+2i)/(1+1i) = 1.5+0.5i; dividing by 0+0i gives non-finite parts */
    DevTensor c = mk(ACL_COMPLEX64, s2, 1, V(1, 2, 1, 2)), d = mk(ACL_COMPLEX64, s2, 1, V(1, 1, 0, 0));
    DevTensor co = mk(ACL_COMPLEX64, s2, 1, NULL);
    RUN2(aclnnDivGetWorkspaceSize(c.tensor, d.tensor, co.tensor, &ews, &eex), aclnnDiv);
    double g[4];
    rd(&co, g);
    CHECK(close_to(ACL_COMPLEX64, g[0], 1.5) && close_to(ACL_COMPLEX64, g[1], 0.5));
    CHECK(!isfinite(g[2]) && !isfinite(g[3]));
    /* c128 / f64 -> c128 */
    int64_t s1[] = {1};
    DevTensor c2 = mk(ACL_COMPLEX128, s1, 1, V(3, -6)), f2 = mk(ACL_DOUBLE, s1, 1, V(3));
    DevTensor c2o = mk(ACL_COMPLEX128, s1, 1, NULL);
    RUN2(aclnnDivGetWorkspaceSize(c2.tensor, f2.tensor, c2o.tensor, &ews, &eex), aclnnDiv);
    EXPECT_T(c2o, 1, -2);
    DevTensor *all[] = {&a, &b, &o, &da, &db, &dout, &ha, &hb, &ho, &c, &d, &co, &c2, &f2, &c2o};
    for (size_t i = 0; i < ARRAY_LEN(all); i++) dev_free(all[i]);
}

static void test_div_inplace(void)
{
    int64_t s23[] = {2, 3}, s3[] = {3}, s2[] = {2};
    DevTensor r = mk(F, s23, 2, V(1, 2, 3, 4, 5, 6)), b = mk(ACL_INT32, s3, 1, V(1, 2, 4));
    RUN2(aclnnInplaceDivGetWorkspaceSize(r.tensor, b.tensor, &ews, &eex), aclnnInplaceDiv);
    EXPECT_T(r, 1, 1, 0.75, 4, 2.5, 1.5);
    /* f16 selfRef / f64 scalar stays f16 */
    DevTensor h = mk(ACL_FLOAT16, s2, 1, V(1, 3));
    aclScalar *four = sc(ACL_DOUBLE, 4);
    RUN2(aclnnInplaceDivsGetWorkspaceSize(h.tensor, four, &ews, &eex), aclnnInplaceDivs);
    EXPECT_T(h, 0.25, 0.75);
    /* s32 selfRef / f32 scalar: the f32 result does not fit s32 */
    DevTensor i = mk(ACL_INT32, s2, 1, V(7, 8));
    aclScalar *two = sc(F, 2);
    EXPECT_ERR(aclnnInplaceDivsGetWorkspaceSize(i.tensor, two, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnInplaceDivsGetWorkspaceSize", "selfRef", &i);
    CHECK_OK(aclDestroyScalar(four));
    CHECK_OK(aclDestroyScalar(two));
    dev_free(&r);
    dev_free(&b);
    dev_free(&h);
    dev_free(&i);
}

/* ================================================================ DivMod family */

static void test_divmod_generic(void) { run_table(DIVMOD_OPS, ARRAY_LEN(DIVMOD_OPS)); }

static void test_divmod_modes(void)
{
    int64_t s6[] = {6};
    DevTensor a = mk(F, s6, 1, V(7, -7, 7, -7, 7.5, -0.5)), b = mk(F, s6, 1, V(2, 2, -2, -2, 0.5, 4));
    DevTensor o = mk(F, s6, 1, NULL);
    RUN2(aclnnDivModGetWorkspaceSize(a.tensor, b.tensor, 0, o.tensor, &ews, &eex), aclnnDivMod);
    EXPECT_T(o, 3.5, -3.5, -3.5, 3.5, 15, -0.125);
    RUN2(aclnnDivModGetWorkspaceSize(a.tensor, b.tensor, 1, o.tensor, &ews, &eex), aclnnDivMod);
    EXPECT_T(o, 3, -3, -3, 3, 15, 0);
    RUN2(aclnnDivModGetWorkspaceSize(a.tensor, b.tensor, 2, o.tensor, &ews, &eex), aclnnDivMod);
    EXPECT_T(o, 3, -4, -4, 3, 15, -1);

    /* integers: floor is exact in the promoted integer dtype; trunc and none compute in f32 */
    DevTensor ia = mk(ACL_INT32, s6, 1, V(7, -7, 7, -7, 0, -9)), ib = mk(ACL_INT32, s6, 1, V(2, 2, -2, -2, 3, 4));
    DevTensor io = mk(ACL_INT32, s6, 1, NULL);
    RUN2(aclnnDivModGetWorkspaceSize(ia.tensor, ib.tensor, 2, io.tensor, &ews, &eex), aclnnDivMod);
    EXPECT_T(io, 3, -4, -4, 3, 0, -3);
    RUN2(aclnnDivModGetWorkspaceSize(ia.tensor, ib.tensor, 1, o.tensor, &ews, &eex), aclnnDivMod);
    EXPECT_T(o, 3, -3, -3, 3, 0, -2);
    RUN2(aclnnDivModGetWorkspaceSize(ia.tensor, ib.tensor, 0, o.tensor, &ews, &eex), aclnnDivMod);
    EXPECT_T(o, 3.5, -3.5, -3.5, 3.5, 0, -2.25);
    /* floor of large s64 values is exact (no f32 detour) */
    int64_t s2[] = {2};
    DevTensor la = mk(ACL_INT64, s2, 1, V(1099511627777.0, -1099511627777.0)), lb = mk(ACL_INT64, s2, 1, V(1, 2));
    DevTensor lo = mk(ACL_INT64, s2, 1, NULL);
    RUN2(aclnnDivModGetWorkspaceSize(la.tensor, lb.tensor, 2, lo.tensor, &ews, &eex), aclnnDivMod);
    EXPECT_T(lo, 1099511627777.0, -549755813889.0);
    /* float division by zero in every mode */
    int64_t s3[] = {3};
    DevTensor za = mk(F, s3, 1, V(1, -1, 0)), zb = mk(F, s3, 1, V(0, 0, 0)), zo = mk(F, s3, 1, NULL);
    for (int mode = 0; mode <= 2; mode++) {
        RUN2(aclnnDivModGetWorkspaceSize(za.tensor, zb.tensor, mode, zo.tensor, &ews, &eex), aclnnDivMod);
        EXPECT_T(zo, INFINITY, -INFINITY, NAN);
    }
    /* integer floor division by zero gives 0, and INT_MIN / -1 wraps to INT_MIN (documented library rule) */
    DevTensor ka = mk(ACL_INT32, s3, 1, V(5, -5, -2147483648.0)), kb = mk(ACL_INT32, s3, 1, V(0, 0, -1));
    DevTensor ko = mk(ACL_INT32, s3, 1, NULL);
    RUN2(aclnnDivModGetWorkspaceSize(ka.tensor, kb.tensor, 2, ko.tensor, &ews, &eex), aclnnDivMod);
    EXPECT_T(ko, 0, 0, -2147483648.0);
    /* floor with a u8 promoted dtype */
    DevTensor ua = mk(ACL_UINT8, s2, 1, V(255, 7)), ub = mk(ACL_UINT8, s2, 1, V(2, 3)), uo = mk(ACL_UINT8, s2, 1, NULL);
    RUN2(aclnnDivModGetWorkspaceSize(ua.tensor, ub.tensor, 2, uo.tensor, &ews, &eex), aclnnDivMod);
    EXPECT_T(uo, 127, 2);
    /* bool / bool floors in f32 (bool promoted -> f32) */
    DevTensor p = mk(ACL_BOOL, s2, 1, V(1, 0)), q = mk(ACL_BOOL, s2, 1, V(1, 1)), po = mk(F, s2, 1, NULL);
    RUN2(aclnnDivModGetWorkspaceSize(p.tensor, q.tensor, 2, po.tensor, &ews, &eex), aclnnDivMod);
    EXPECT_T(po, 1, 0);
    DevTensor *all[] = {&a, &b, &o, &ia, &ib, &io, &la, &lb, &lo, &za, &zb, &zo, &ka, &kb, &ko, &ua, &ub, &uo,
                        &p, &q, &po};
    for (size_t i = 0; i < ARRAY_LEN(all); i++) dev_free(all[i]);
}

/* Scalar and in-place forms, every mode. */
static void test_divmod_scalar_inplace(void)
{
    int64_t s2[] = {2}, s3[] = {3};
    DevTensor ia = mk(ACL_INT32, s2, 1, V(7, -7)), io = mk(ACL_INT32, s2, 1, NULL), fo = mk(F, s2, 1, NULL);
    aclScalar *i2 = sc(ACL_INT32, 2), *f2 = sc(F, 2);
    RUN2(aclnnDivModsGetWorkspaceSize(ia.tensor, i2, 2, io.tensor, &ews, &eex), aclnnDivMods);
    EXPECT_T(io, 3, -4);
    RUN2(aclnnDivModsGetWorkspaceSize(ia.tensor, i2, 1, io.tensor, &ews, &eex), aclnnDivMods);
    EXPECT_T(io, 3, -3);
    RUN2(aclnnDivModsGetWorkspaceSize(ia.tensor, i2, 0, fo.tensor, &ews, &eex), aclnnDivMods);
    EXPECT_T(fo, 3.5, -3.5);
    /* a float scalar makes the promoted dtype f32, which an s32 out cannot take */
    RUN2(aclnnDivModsGetWorkspaceSize(ia.tensor, f2, 2, fo.tensor, &ews, &eex), aclnnDivMods);
    EXPECT_T(fo, 3, -4);
    EXPECT_ERR(aclnnDivModsGetWorkspaceSize(ia.tensor, f2, 2, io.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnDivModsGetWorkspaceSize", "out", &io);
    /* in place */
    DevTensor r = mk(ACL_INT32, s3, 1, V(7, -7, 9)), rb = mk(ACL_INT32, s3, 1, V(2, 2, -4));
    RUN2(aclnnInplaceDivModGetWorkspaceSize(r.tensor, rb.tensor, 2, &ews, &eex), aclnnInplaceDivMod);
    EXPECT_T(r, 3, -4, -3);
    DevTensor rf = mk(F, s2, 1, V(7.5, -7.5));
    RUN2(aclnnInplaceDivModsGetWorkspaceSize(rf.tensor, f2, 1, &ews, &eex), aclnnInplaceDivMods);
    EXPECT_T(rf, 3, -3);
    RUN2(aclnnInplaceDivModsGetWorkspaceSize(rf.tensor, f2, 2, &ews, &eex), aclnnInplaceDivMods);
    EXPECT_T(rf, 1, -2);
    CHECK_OK(aclDestroyScalar(i2));
    CHECK_OK(aclDestroyScalar(f2));
    DevTensor *all[] = {&ia, &io, &fo, &r, &rb, &rf};
    for (size_t i = 0; i < ARRAY_LEN(all); i++) dev_free(all[i]);
}

/* mode outside {0,1,2}, and trunc/floor with a complex promoted dtype: 161002 in every form. */
static void test_divmod_invalid_modes(void)
{
    int64_t s2[] = {2};
    DevTensor a = mk(F, s2, 1, V(1, 2)), b = mk(F, s2, 1, V(1, 2)), o = mk(F, s2, 1, NULL);
    aclScalar *two = sc(F, 2);
    const int bad[] = {3, -1, 100};
    for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
        int m = bad[i];
        EXPECT_ERR(aclnnDivModGetWorkspaceSize(a.tensor, b.tensor, m, o.tensor, &ews, &eex),
                   ACLNN_ERR_PARAM_INVALID, "aclnnDivModGetWorkspaceSize", "mode", &o);
        EXPECT_ERR(aclnnDivModsGetWorkspaceSize(a.tensor, two, m, o.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
                   "aclnnDivModsGetWorkspaceSize", "mode", &o);
        EXPECT_ERR(aclnnInplaceDivModGetWorkspaceSize(a.tensor, b.tensor, m, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
                   "aclnnInplaceDivModGetWorkspaceSize", "mode", &a);
        EXPECT_ERR(aclnnInplaceDivModsGetWorkspaceSize(a.tensor, two, m, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
                   "aclnnInplaceDivModsGetWorkspaceSize", "mode", &a);
    }
    /* complex: trunc and floor refused, none works */
    DevTensor c = mk(ACL_COMPLEX64, s2, 1, V(1, 2, 4, 0)), d = mk(ACL_COMPLEX64, s2, 1, V(1, 1, 2, 0));
    DevTensor co = mk(ACL_COMPLEX64, s2, 1, NULL);
    aclScalar *ci = mks(ACL_COMPLEX64, 0, 1);
    for (int m = 1; m <= 2; m++) {
        EXPECT_ERR(aclnnDivModGetWorkspaceSize(c.tensor, d.tensor, m, co.tensor, &ews, &eex),
                   ACLNN_ERR_PARAM_INVALID, "aclnnDivModGetWorkspaceSize", "mode", &co);
        /* f32 with c64: promoted c64 */
        EXPECT_ERR(aclnnDivModGetWorkspaceSize(a.tensor, d.tensor, m, co.tensor, &ews, &eex),
                   ACLNN_ERR_PARAM_INVALID, "aclnnDivModGetWorkspaceSize", "mode", &co);
        EXPECT_ERR(aclnnDivModsGetWorkspaceSize(c.tensor, two, m, co.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
                   "aclnnDivModsGetWorkspaceSize", "mode", &co);
        /* f32 tensor with a complex scalar: promoted c64 */
        EXPECT_ERR(aclnnDivModsGetWorkspaceSize(a.tensor, ci, m, co.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
                   "aclnnDivModsGetWorkspaceSize", "mode", &co);
        EXPECT_ERR(aclnnInplaceDivModGetWorkspaceSize(c.tensor, d.tensor, m, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
                   "aclnnInplaceDivModGetWorkspaceSize", "mode", &c);
        EXPECT_ERR(aclnnInplaceDivModsGetWorkspaceSize(c.tensor, two, m, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
                   "aclnnInplaceDivModsGetWorkspaceSize", "mode", &c);
    }
    dev_write(&c, (const float[]){1, 2, 4, 0});
    RUN2(aclnnDivModGetWorkspaceSize(c.tensor, d.tensor, 0, co.tensor, &ews, &eex), aclnnDivMod);
    EXPECT_T(co, 1.5, 0.5, 2, 0);
    CHECK_OK(aclDestroyScalar(two));
    CHECK_OK(aclDestroyScalar(ci));
    DevTensor *all[] = {&a, &b, &o, &c, &d, &co};
    for (size_t i = 0; i < ARRAY_LEN(all); i++) dev_free(all[i]);
}

/* ================================================================ Pow family */

static void test_pow_generic(void) { run_table(POW_OPS, ARRAY_LEN(POW_OPS)); }

static void test_pow_tensor_tensor(void)
{
    int64_t s7[] = {7}, s6[] = {6}, s5[] = {5}, s4[] = {4}, s2[] = {2}, s1[] = {1};
    DevTensor a = mk(F, s7, 1, V(2, 3, 4, 9, -2, 0, -8)), b = mk(F, s7, 1, V(3, 2, 0.5, 0.5, 3, 0, 1.0 / 3.0));
    DevTensor o = mk(F, s7, 1, NULL);
    RUN2(aclnnPowTensorTensorGetWorkspaceSize(a.tensor, b.tensor, o.tensor, &ews, &eex), aclnnPowTensorTensor);
    EXPECT_T(o, 8, 9, 2, 3, -8, 1, NAN);
    /* integers: exact, wrapping (2^31 -> INT_MIN, 2^32 -> 0) */
    DevTensor ia = mk(ACL_INT32, s6, 1, V(2, 3, -2, 5, 2, 2)), ib = mk(ACL_INT32, s6, 1, V(10, 3, 3, 0, 31, 32));
    DevTensor io = mk(ACL_INT32, s6, 1, NULL);
    RUN2(aclnnPowTensorTensorGetWorkspaceSize(ia.tensor, ib.tensor, io.tensor, &ews, &eex), aclnnPowTensorTensor);
    EXPECT_T(io, 1024, 27, -8, 1, -2147483648.0, 0);
    /* integers with a negative tensor exponent: 1, +-1 for base -1, 0 otherwise (library rule) */
    DevTensor na = mk(ACL_INT32, s5, 1, V(1, -1, -1, 2, -2)), nb = mk(ACL_INT32, s5, 1, V(-1, -1, -2, -1, -3));
    DevTensor no = mk(ACL_INT32, s5, 1, NULL);
    RUN2(aclnnPowTensorTensorGetWorkspaceSize(na.tensor, nb.tensor, no.tensor, &ews, &eex), aclnnPowTensorTensor);
    EXPECT_T(no, 1, -1, 1, 0, 0);
    /* bool ^ s32 computes in s32 */
    DevTensor p = mk(ACL_BOOL, s4, 1, V(1, 0, 1, 0)), e = mk(ACL_INT32, s4, 1, V(2, 2, 0, 0));
    DevTensor po = mk(ACL_INT32, s4, 1, NULL);
    RUN2(aclnnPowTensorTensorGetWorkspaceSize(p.tensor, e.tensor, po.tensor, &ews, &eex), aclnnPowTensorTensor);
    EXPECT_T(po, 1, 0, 1, 1);
    /* s32 ^ f32 -> f32 */
    DevTensor ta = mk(ACL_INT32, s2, 1, V(2, 4)), tb = mk(F, s2, 1, V(0.5, -1)), to = mk(F, s2, 1, NULL);
    RUN2(aclnnPowTensorTensorGetWorkspaceSize(ta.tensor, tb.tensor, to.tensor, &ews, &eex), aclnnPowTensorTensor);
    EXPECT_T(to, sqrt(2.0), 0.25);
    /* both bool: 161002 */
    DevTensor q = mk(ACL_BOOL, s4, 1, V(1, 1, 0, 0)), qo = mk(ACL_BOOL, s4, 1, NULL);
    EXPECT_ERR(aclnnPowTensorTensorGetWorkspaceSize(p.tensor, q.tensor, qo.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnPowTensorTensorGetWorkspaceSize", "exponent", &qo);
    EXPECT_ERR(aclnnPowTensorTensorGetWorkspaceSize(p.tensor, q.tensor, po.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnPowTensorTensorGetWorkspaceSize", "exponent", &po);
    EXPECT_ERR(aclnnInplacePowTensorTensorGetWorkspaceSize(p.tensor, q.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnInplacePowTensorTensorGetWorkspaceSize", "exponent", &p);
    /* complex: i^2 = -1 */
    DevTensor c = mk(ACL_COMPLEX128, s1, 1, V(0, 1)), ce = mk(ACL_COMPLEX128, s1, 1, V(2, 0));
    DevTensor co = mk(ACL_COMPLEX128, s1, 1, NULL);
    RUN2(aclnnPowTensorTensorGetWorkspaceSize(c.tensor, ce.tensor, co.tensor, &ews, &eex), aclnnPowTensorTensor);
    EXPECT_T(co, -1, 0);
    /* in place: f32 self ^ s32 exponent (3,) broadcast; a bool self is refused */
    int64_t s23[] = {2, 3}, s3[] = {3};
    DevTensor r = mk(F, s23, 2, V(1, 2, 3, 4, 5, 6)), re = mk(ACL_INT32, s3, 1, V(0, 1, 2));
    RUN2(aclnnInplacePowTensorTensorGetWorkspaceSize(r.tensor, re.tensor, &ews, &eex), aclnnInplacePowTensorTensor);
    EXPECT_T(r, 1, 2, 9, 1, 5, 36);
    DevTensor rb = mk(ACL_BOOL, s3, 1, V(1, 0, 1));
    EXPECT_ERR(aclnnInplacePowTensorTensorGetWorkspaceSize(rb.tensor, re.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnInplacePowTensorTensorGetWorkspaceSize", "self", &rb);
    DevTensor *all[] = {&a, &b, &o, &ia, &ib, &io, &na, &nb, &no, &p, &e, &po, &ta, &tb, &to, &q, &qo,
                        &c, &ce, &co, &r, &re, &rb};
    for (size_t i = 0; i < ARRAY_LEN(all); i++) dev_free(all[i]);
}

static void test_pow_tensor_scalar(void)
{
    int64_t s4[] = {4}, s3[] = {3}, s2[] = {2};
    DevTensor a = mk(F, s4, 1, V(1, 2, 3, -2)), o = mk(F, s4, 1, NULL);
    aclScalar *f2 = sc(F, 2), *fh = sc(F, 0.5);
    RUN2(aclnnPowTensorScalarGetWorkspaceSize(a.tensor, f2, o.tensor, &ews, &eex), aclnnPowTensorScalar);
    EXPECT_T(o, 1, 4, 9, 4);
    RUN2(aclnnPowTensorScalarGetWorkspaceSize(a.tensor, fh, o.tensor, &ews, &eex), aclnnPowTensorScalar);
    EXPECT_T(o, 1, sqrt(2.0), sqrt(3.0), NAN);
    /* s32 ^ s32 scalar stays s32 */
    DevTensor ia = mk(ACL_INT32, s3, 1, V(2, 3, -2)), io = mk(ACL_INT32, s3, 1, NULL), fo = mk(F, s3, 1, NULL);
    aclScalar *i3 = sc(ACL_INT32, 3), *im1 = sc(ACL_INT32, -1), *lm2 = sc(ACL_INT64, -2), *fm1 = sc(F, -1);
    RUN2(aclnnPowTensorScalarGetWorkspaceSize(ia.tensor, i3, io.tensor, &ews, &eex), aclnnPowTensorScalar);
    EXPECT_T(io, 8, 27, -8);
    /* a negative integer exponent with an integral promoted dtype: 161002 */
    EXPECT_ERR(aclnnPowTensorScalarGetWorkspaceSize(ia.tensor, im1, io.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnPowTensorScalarGetWorkspaceSize", "exponent", &io);
    EXPECT_ERR(aclnnPowTensorScalarGetWorkspaceSize(ia.tensor, lm2, fo.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnPowTensorScalarGetWorkspaceSize", "exponent", &fo);
    EXPECT_ERR(aclnnInplacePowTensorScalarGetWorkspaceSize(ia.tensor, im1, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnInplacePowTensorScalarGetWorkspaceSize", "exponent", &ia);
    /* ... but a negative float exponent makes it f32 */
    dev_write(&ia, (const int32_t[]){2, 3, -2});
    RUN2(aclnnPowTensorScalarGetWorkspaceSize(ia.tensor, fm1, fo.tensor, &ews, &eex), aclnnPowTensorScalar);
    EXPECT_T(fo, 0.5, 1.0 / 3.0, -0.5);
    /* an exponent that does not fit the promoted dtype (s8 ^ 300) */
    DevTensor s8 = mk(ACL_INT8, s2, 1, V(1, 1)), s8o = mk(ACL_INT8, s2, 1, NULL);
    aclScalar *big = sc(ACL_INT32, 300);
    EXPECT_ERR(aclnnPowTensorScalarGetWorkspaceSize(s8.tensor, big, s8o.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnPowTensorScalarGetWorkspaceSize", "exponent", &s8o);
    /* u8 ^ -1 */
    DevTensor u8 = mk(ACL_UINT8, s2, 1, V(1, 2)), u8o = mk(ACL_UINT8, s2, 1, NULL);
    EXPECT_ERR(aclnnPowTensorScalarGetWorkspaceSize(u8.tensor, im1, u8o.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnPowTensorScalarGetWorkspaceSize", "exponent", &u8o);
    /* bool ^ bool: 161002; bool ^ s32 scalar computes in s32 */
    DevTensor p = mk(ACL_BOOL, s2, 1, V(1, 0)), pb = mk(ACL_BOOL, s2, 1, NULL), pi = mk(ACL_INT32, s2, 1, NULL);
    aclScalar *t = sc(ACL_BOOL, 1), *i2 = sc(ACL_INT32, 2);
    EXPECT_ERR(aclnnPowTensorScalarGetWorkspaceSize(p.tensor, t, pb.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnPowTensorScalarGetWorkspaceSize", "exponent", &pb);
    EXPECT_ERR(aclnnInplacePowTensorScalarGetWorkspaceSize(p.tensor, t, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnInplacePowTensorScalarGetWorkspaceSize", "exponent", &p);
    dev_write(&p, (const uint8_t[]){1, 0});
    RUN2(aclnnPowTensorScalarGetWorkspaceSize(p.tensor, i2, pi.tensor, &ews, &eex), aclnnPowTensorScalar);
    EXPECT_T(pi, 1, 0);
    /* s32 ^ true = s32 ^ 1 */
    DevTensor i2t = mk(ACL_INT32, s2, 1, V(5, -6)), i2o = mk(ACL_INT32, s2, 1, NULL);
    RUN2(aclnnPowTensorScalarGetWorkspaceSize(i2t.tensor, t, i2o.tensor, &ews, &eex), aclnnPowTensorScalar);
    EXPECT_T(i2o, 5, -6);
    /* in place */
    RUN2(aclnnInplacePowTensorScalarGetWorkspaceSize(a.tensor, f2, &ews, &eex), aclnnInplacePowTensorScalar);
    EXPECT_T(a, 1, 4, 9, 4);
    DevTensor *all[] = {&a, &o, &ia, &io, &fo, &s8, &s8o, &u8, &u8o, &p, &pb, &pi, &i2t, &i2o};
    for (size_t i = 0; i < ARRAY_LEN(all); i++) dev_free(all[i]);
    aclScalar *sl[] = {f2, fh, i3, im1, lm2, fm1, big, t, i2};
    for (size_t i = 0; i < ARRAY_LEN(sl); i++) CHECK_OK(aclDestroyScalar(sl[i]));
}

static void test_pow_scalar_tensor(void)
{
    int64_t s6[] = {6}, s5[] = {5}, s3[] = {3}, s2[] = {2};
    aclScalar *f2 = sc(F, 2), *i2 = sc(ACL_INT32, 2), *d2 = sc(ACL_DOUBLE, 2), *i3 = sc(ACL_INT64, 3);
    aclScalar *m2 = sc(ACL_INT32, -2), *t = sc(ACL_BOOL, 1);
    DevTensor e = mk(F, s6, 1, V(0, 1, 2, 3, -1, 0.5)), o = mk(F, s6, 1, NULL);
    RUN2(aclnnPowScalarTensorGetWorkspaceSize(f2, e.tensor, o.tensor, &ews, &eex), aclnnPowScalarTensor);
    EXPECT_T(o, 1, 2, 4, 8, 0.5, sqrt(2.0));
    /* int scalar ^ s32 tensor: s32 (tensor-scalar relation), negative exponent -> 0 */
    DevTensor ie = mk(ACL_INT32, s5, 1, V(0, 1, 2, 10, -1)), io = mk(ACL_INT32, s5, 1, NULL);
    RUN2(aclnnPowScalarTensorGetWorkspaceSize(i2, ie.tensor, io.tensor, &ews, &eex), aclnnPowScalarTensor);
    EXPECT_T(io, 1, 2, 4, 1024, 0);
    RUN2(aclnnPowScalarTensorGetWorkspaceSize(m2, ie.tensor, io.tensor, &ews, &eex), aclnnPowScalarTensor);
    EXPECT_T(io, 1, -2, 4, 1024, 0);
    /* f64 scalar with an s32 tensor: f32 */
    DevTensor fo5 = mk(F, s5, 1, NULL);
    RUN2(aclnnPowScalarTensorGetWorkspaceSize(d2, ie.tensor, fo5.tensor, &ews, &eex), aclnnPowScalarTensor);
    EXPECT_T(fo5, 1, 2, 4, 1024, 0.5);
    /* s64 scalar 3 ^ u8 tensor: u8 (729 wraps to 217) */
    DevTensor ue = mk(ACL_UINT8, s3, 1, V(2, 5, 6)), uo = mk(ACL_UINT8, s3, 1, NULL);
    RUN2(aclnnPowScalarTensorGetWorkspaceSize(i3, ue.tensor, uo.tensor, &ews, &eex), aclnnPowScalarTensor);
    EXPECT_T(uo, 9, 243, 217);
    /* a bool base or exponent is not supported */
    DevTensor be = mk(ACL_BOOL, s2, 1, V(1, 0)), bo = mk(F, s2, 1, NULL);
    EXPECT_ERR(aclnnPowScalarTensorGetWorkspaceSize(t, e.tensor, o.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnPowScalarTensorGetWorkspaceSize", "self", &o);
    EXPECT_ERR(aclnnPowScalarTensorGetWorkspaceSize(f2, be.tensor, bo.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnPowScalarTensorGetWorkspaceSize", "exponent", &bo);
    /* the result dtype s32 cannot go to a bool out */
    DevTensor ob = mk(ACL_BOOL, s5, 1, NULL);
    EXPECT_ERR(aclnnPowScalarTensorGetWorkspaceSize(i2, ie.tensor, ob.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnPowScalarTensorGetWorkspaceSize", "out", &ob);
    DevTensor *all[] = {&e, &o, &ie, &io, &fo5, &ue, &uo, &be, &bo, &ob};
    for (size_t i = 0; i < ARRAY_LEN(all); i++) dev_free(all[i]);
    aclScalar *sl[] = {f2, i2, d2, i3, m2, t};
    for (size_t i = 0; i < ARRAY_LEN(sl); i++) CHECK_OK(aclDestroyScalar(sl[i]));
}

/* ================================================================ Maximum / Minimum */

static void test_extremum_generic(void) { run_table(EXTREMUM_OPS, ARRAY_LEN(EXTREMUM_OPS)); }

static void test_extremum_nan(void)
{
    int64_t s6[] = {6};
    const aclDataType dts[] = {F, ACL_DOUBLE, ACL_FLOAT16, ACL_BF16};
    for (size_t k = 0; k < ARRAY_LEN(dts); k++) {
        DevTensor a = mk(dts[k], s6, 1, V(NAN, 1, NAN, -0.0, 0.0, -INFINITY));
        DevTensor b = mk(dts[k], s6, 1, V(1, NAN, NAN, 0.0, -0.0, 3));
        DevTensor o = mk(dts[k], s6, 1, NULL);
        RUN2(aclnnMaximumGetWorkspaceSize(a.tensor, b.tensor, o.tensor, &ews, &eex), aclnnMaximum);
        EXPECT_T(o, NAN, NAN, NAN, 0, 0, 3);
        double g[6];
        rd(&o, g);
        CHECK(!signbit(g[3]) && !signbit(g[4])); /* max(-0, +0) = +0 (library rule) */
        RUN2(aclnnMinimumGetWorkspaceSize(a.tensor, b.tensor, o.tensor, &ews, &eex), aclnnMinimum);
        EXPECT_T(o, NAN, NAN, NAN, 0, 0, -INFINITY);
        rd(&o, g);
        CHECK(signbit(g[3]) && signbit(g[4])); /* min(-0, +0) = -0 */
        dev_free(&a);
        dev_free(&b);
        dev_free(&o);
    }
    /* NaN against a converted integer operand: f32 NaN vs s32 */
    int64_t s2[] = {2};
    DevTensor a = mk(F, s2, 1, V(NAN, 2.5)), b = mk(ACL_INT32, s2, 1, V(7, 3)), o = mk(ACL_DOUBLE, s2, 1, NULL);
    RUN2(aclnnMaximumGetWorkspaceSize(b.tensor, a.tensor, o.tensor, &ews, &eex), aclnnMaximum);
    EXPECT_T(o, NAN, 3);
    RUN2(aclnnMinimumGetWorkspaceSize(b.tensor, a.tensor, o.tensor, &ews, &eex), aclnnMinimum);
    EXPECT_T(o, NAN, 2.5);
    dev_free(&a);
    dev_free(&b);
    dev_free(&o);
}

static void test_extremum_dtypes(void)
{
    int64_t s3[] = {3}, s4[] = {4};
    /* s8 with u8 -> s16 */
    DevTensor a = mk(ACL_INT8, s3, 1, V(-1, 100, -128)), b = mk(ACL_UINT8, s3, 1, V(200, 5, 0));
    DevTensor o = mk(ACL_INT16, s3, 1, NULL);
    RUN2(aclnnMaximumGetWorkspaceSize(a.tensor, b.tensor, o.tensor, &ews, &eex), aclnnMaximum);
    EXPECT_T(o, 200, 100, 0);
    RUN2(aclnnMinimumGetWorkspaceSize(a.tensor, b.tensor, o.tensor, &ews, &eex), aclnnMinimum);
    EXPECT_T(o, -1, 5, -128);
    /* bool: or / and */
    DevTensor p = mk(ACL_BOOL, s4, 1, V(1, 1, 0, 0)), q = mk(ACL_BOOL, s4, 1, V(1, 0, 1, 0));
    DevTensor po = mk(ACL_BOOL, s4, 1, NULL);
    RUN2(aclnnMaximumGetWorkspaceSize(p.tensor, q.tensor, po.tensor, &ews, &eex), aclnnMaximum);
    EXPECT_T(po, 1, 1, 1, 0);
    RUN2(aclnnMinimumGetWorkspaceSize(p.tensor, q.tensor, po.tensor, &ews, &eex), aclnnMinimum);
    EXPECT_T(po, 1, 0, 0, 0);
    /* bool with s32 -> s32 */
    DevTensor i = mk(ACL_INT32, s4, 1, V(-5, 0, 1, 2)), io = mk(ACL_INT32, s4, 1, NULL);
    RUN2(aclnnMaximumGetWorkspaceSize(p.tensor, i.tensor, io.tensor, &ews, &eex), aclnnMaximum);
    EXPECT_T(io, 1, 1, 1, 2);
    RUN2(aclnnMinimumGetWorkspaceSize(p.tensor, i.tensor, io.tensor, &ews, &eex), aclnnMinimum);
    EXPECT_T(io, -5, 0, 0, 0);
    /* s64 values beyond 2^53 stay exact (no detour through a float type) */
    int64_t s2[] = {2};
    DevTensor l = mk(ACL_INT64, s2, 1, NULL), m = mk(ACL_INT64, s2, 1, NULL), lo = mk(ACL_INT64, s2, 1, NULL);
    const int64_t lv[] = {9007199254740993LL, -9007199254740993LL}, mv[] = {9007199254740992LL, -9007199254740992LL};
    dev_write(&l, lv);
    dev_write(&m, mv);
    RUN2(aclnnMaximumGetWorkspaceSize(l.tensor, m.tensor, lo.tensor, &ews, &eex), aclnnMaximum);
    int64_t lg[2];
    dev_read(&lo, lg);
    CHECK(lg[0] == lv[0] && lg[1] == mv[1]);
    RUN2(aclnnMinimumGetWorkspaceSize(l.tensor, m.tensor, lo.tensor, &ews, &eex), aclnnMinimum);
    dev_read(&lo, lg);
    CHECK(lg[0] == mv[0] && lg[1] == lv[1]);
    /* complex and u32 operands are refused */
    DevTensor c = mk(ACL_COMPLEX64, s3, 1, NULL), co = mk(ACL_COMPLEX64, s3, 1, NULL);
    EXPECT_ERR(aclnnMaximumGetWorkspaceSize(c.tensor, c.tensor, co.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnMaximumGetWorkspaceSize", "self", &co);
    EXPECT_ERR(aclnnMinimumGetWorkspaceSize(a.tensor, c.tensor, o.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnMinimumGetWorkspaceSize", "other", &o);
    DevTensor *all[] = {&a, &b, &o, &p, &q, &po, &i, &io, &l, &m, &lo, &c, &co};
    for (size_t k = 0; k < ARRAY_LEN(all); k++) dev_free(all[k]);
}

/* The device's merged-axes limit for f64 and s16 computations, in every tensor-tensor form. */
static void test_arith_axis_limit(void)
{
    const Op *tables[] = {SUB_OPS, MUL_OPS, DIV_OPS, DIVMOD_OPS, POW_OPS, EXTREMUM_OPS};
    const size_t lens[] = {ARRAY_LEN(SUB_OPS), ARRAY_LEN(MUL_OPS), ARRAY_LEN(DIV_OPS), ARRAY_LEN(DIVMOD_OPS),
                           ARRAY_LEN(POW_OPS), ARRAY_LEN(EXTREMUM_OPS)};
    for (size_t t = 0; t < ARRAY_LEN(tables); t++)
        for (size_t i = 0; i < lens[t]; i++) {
            const Op *op = &tables[t][i];
            if (op->kind != K_TT && op->kind != K_ITT) continue;
            case_axis_limit(op, ACL_DOUBLE, ACL_DOUBLE);
            /* s16 stays s16 where the operator computes in the promoted dtype */
            if (op->ref != ref_div && !(op->ref == ref_divmod && op->mode != 2)) case_axis_limit(op, ACL_INT16, ACL_INT16);
        }
}

int main(void)
{
    device_init();
    RUN_TEST(test_sub_generic);
    RUN_TEST(test_sub_alpha);
    RUN_TEST(test_sub_bool);
    RUN_TEST(test_sub_other_dtypes);
    RUN_TEST(test_mul_generic);
    RUN_TEST(test_mul_values);
    RUN_TEST(test_div_generic);
    RUN_TEST(test_div_integer_inputs);
    RUN_TEST(test_div_by_zero);
    RUN_TEST(test_div_inplace);
    RUN_TEST(test_divmod_generic);
    RUN_TEST(test_divmod_modes);
    RUN_TEST(test_divmod_scalar_inplace);
    RUN_TEST(test_divmod_invalid_modes);
    RUN_TEST(test_pow_generic);
    RUN_TEST(test_pow_tensor_tensor);
    RUN_TEST(test_pow_tensor_scalar);
    RUN_TEST(test_pow_scalar_tensor);
    RUN_TEST(test_extremum_generic);
    RUN_TEST(test_extremum_nan);
    RUN_TEST(test_extremum_dtypes);
    RUN_TEST(test_arith_axis_limit);
    device_teardown();
    return capi_finish();
}
