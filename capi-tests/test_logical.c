/*
 * Logical and bitwise operators (reference 5.3): LogicalAnd/Or/Xor/Not with InplaceLogicalAnd/Or/Not
 * (operands read as truth values, 1/0 converted to out), BitwiseAnd/Or/Xor in Tensor, Scalar,
 * InplaceTensor and InplaceScalar forms (promoted operands; bool gives the logical connective),
 * and BitwiseNot (out must have self's dtype).
 *
 * Every form runs through the table-driven cases (broadcasting, non-contiguous inputs and
 * output, mixed dtypes, 0-d, empty, each documented error); the tests after the tables add
 * hand-computed values.
 */
#include "ops_common.h"

#include "aclnnop/aclnn_bitwise_and_scalar.h"
#include "aclnnop/aclnn_bitwise_and_tensor.h"
#include "aclnnop/aclnn_bitwise_not.h"
#include "aclnnop/aclnn_bitwise_or_scalar.h"
#include "aclnnop/aclnn_bitwise_or_tensor.h"
#include "aclnnop/aclnn_bitwise_xor_scalar.h"
#include "aclnnop/aclnn_bitwise_xor_tensor.h"
#include "aclnnop/aclnn_logical_and.h"
#include "aclnnop/aclnn_logical_not.h"
#include "aclnnop/aclnn_logical_or.h"
#include "aclnnop/aclnn_logical_xor.h"

#include <math.h>

/* ================================================================ the operator forms */

OP_WS_TT(ws_land, LogicalAnd)
OP_WS_TT(ws_lor, LogicalOr)
OP_WS_TT(ws_lxor, LogicalXor)
OP_WS_ITT(ws_iland, InplaceLogicalAnd)
OP_WS_ITT(ws_ilor, InplaceLogicalOr)
OP_WS_U(ws_lnot, LogicalNot)
OP_WS_IU(ws_ilnot, InplaceLogicalNot)
OP_WS_U(ws_bnot, BitwiseNot)

#define WRAP_BITS(Name)                                                                               \
    OP_WS_TT(ws_##Name##T, Bitwise##Name##Tensor)                                                     \
    OP_WS_TS(ws_##Name##S, Bitwise##Name##Scalar)                                                     \
    OP_WS_ITT(ws_##Name##IT, InplaceBitwise##Name##Tensor)                                            \
    OP_WS_ITS(ws_##Name##IS, InplaceBitwise##Name##Scalar)
WRAP_BITS(And)
WRAP_BITS(Or)
WRAP_BITS(Xor)

enum { AND, OR, XOR, NOT };

/* Truth values: non-zero (NaN included) is true. */
static double ref_logic(const Op *op, double x, double y)
{
    bool a = x != 0, b = y != 0;
    switch (op->mode) {
    case AND: return a && b;
    case OR: return a || b;
    case XOR: return a != b;
    default: return !a;
    }
}
/* Two's complement bit operations on the integer values. */
static double ref_bits(const Op *op, double x, double y)
{
    int64_t a = (int64_t)x, b = (int64_t)y;
    switch (op->mode) {
    case AND: return (double)(a & b);
    case OR: return (double)(a | b);
    case XOR: return (double)(a ^ b);
    default: return (double)~a;
    }
}

/* Zeros (both signs), NaN-free truthy values. */
static double gen_logic(int which, int64_t i, bool integral)
{
    static const double a[] = {0, -2.5, 1, -0.0, 0.25};
    static const double b[] = {3, 0, -1, 0.5};
    double v = which == 0 ? a[i % 5] : b[i % 4];
    return integral ? (double)(int64_t)(v * 2) : v;
}
/* Mixed bit patterns of both signs that fit s8. */
static double gen_bits(int which, int64_t i, bool integral)
{
    (void)integral;
    if (which == 0) return (double)((i * 37) % 256) - 128;
    return (double)((i * 11) % 64) - 20;
}

#define B ACL_BOOL
#define F ACL_FLOAT
#define I ACL_INT32
/*
 * Each row starts from the defaults of its form and overrides some fields: a designated
 * initializer given twice takes the last value (C11 6.7.9), which is what -Woverride-init flags.
 */
#pragma GCC diagnostic ignored "-Woverride-init"
#define LOGIC_ROW(name, k, wsf, phase2, c, ...)                                                         \
    {.api = name "GetWorkspaceSize", .kind = k, .ws = wsf, .run = phase2, .ref = ref_logic, .gen = gen_logic, \
     .mode = c, .pa = "self", .pb = "other", .dt = F, .sdt = F, .out_dt = B, .mix_a = I, .mix_b = F,     \
     .mix_out = F, .bad_in = ACL_UINT16, .bad_out = ACL_COMPLEX64, .bad_out_b = ACL_COMPLEX64,           \
     .np_a = UNDEF, .np_b = UNDEF, __VA_ARGS__}

static const Op LOGIC_TABLE[] = {
    LOGIC_ROW("aclnnLogicalAnd", K_TT, ws_land, aclnnLogicalAnd, AND, .mix_out = B),
    LOGIC_ROW("aclnnLogicalOr", K_TT, ws_lor, aclnnLogicalOr, OR, .mix_a = ACL_UINT8, .mix_b = ACL_DOUBLE),
    LOGIC_ROW("aclnnLogicalXor", K_TT, ws_lxor, aclnnLogicalXor, XOR, .out_dt = ACL_INT8, .mix_b = B),
    LOGIC_ROW("aclnnInplaceLogicalAnd", K_ITT, ws_iland, aclnnInplaceLogicalAnd, AND, .pa = "selfRef"),
    LOGIC_ROW("aclnnInplaceLogicalOr", K_ITT, ws_ilor, aclnnInplaceLogicalOr, OR, .pa = "selfRef",
              .mix_a = ACL_UINT8, .mix_b = ACL_BF16),
    LOGIC_ROW("aclnnLogicalNot", K_U, ws_lnot, aclnnLogicalNot, NOT, .bad_in = ACL_COMPLEX64),
    LOGIC_ROW("aclnnLogicalNot", K_U, ws_lnot, aclnnLogicalNot, NOT, .dt = ACL_FLOAT16, .out_dt = ACL_INT64,
              .mix_a = B, .mix_out = F, .bad_in = ACL_COMPLEX128),
    LOGIC_ROW("aclnnInplaceLogicalNot", K_IU, ws_ilnot, aclnnInplaceLogicalNot, NOT, .pa = "selfRef",
              .bad_in = ACL_COMPLEX64),
};

/* bad_out_dt: an out the Tensor form refuses (the Scalar forms of And/Or take float outs, so their
 * row uses a complex out, which no integer result casts to) */
#define BITS_ROWS(Name, c, bad_out_dt)                                                                     \
    {.api = "aclnnBitwise" #Name "TensorGetWorkspaceSize", .kind = K_TT, .ws = ws_##Name##T,               \
     .run = aclnnBitwise##Name##Tensor, .ref = ref_bits, .gen = gen_bits, .mode = c, .pa = "self",          \
     .pb = "other", .dt = I, .sdt = ACL_INT64, .out_dt = I, .mix_a = ACL_INT8, .mix_b = ACL_UINT8,           \
     .mix_out = ACL_INT16, .bad_in = F, .bad_out = bad_out_dt, .bad_out_b = I, .np_a = ACL_UINT16,          \
     .np_b = I},                                                                                            \
    {.api = "aclnnBitwise" #Name "ScalarGetWorkspaceSize", .kind = K_TS, .ws = ws_##Name##S,               \
     .run = aclnnBitwise##Name##Scalar, .ref = ref_bits, .gen = gen_bits, .mode = c, .pa = "self",          \
     .pb = "other", .dt = I, .sdt = ACL_INT64, .out_dt = ACL_INT64, .mix_a = B, .mix_b = I,                 \
     .mix_out = ACL_INT64, .bad_in = F, .bad_out = ACL_COMPLEX64, .bad_out_b = I, .np_a = UNDEF, .np_b = UNDEF}, \
    {.api = "aclnnInplaceBitwise" #Name "TensorGetWorkspaceSize", .kind = K_ITT, .ws = ws_##Name##IT,      \
     .run = aclnnInplaceBitwise##Name##Tensor, .ref = ref_bits, .gen = gen_bits, .mode = c, .pa = "selfRef", \
     .pb = "other", .dt = I, .sdt = ACL_INT64, .out_dt = I, .mix_a = ACL_INT16, .mix_b = ACL_INT8,          \
     .mix_out = ACL_INT16, .bad_in = F, .bad_out = B, .bad_out_b = I, .np_a = ACL_UINT16, .np_b = I},       \
    {.api = "aclnnInplaceBitwise" #Name "ScalarGetWorkspaceSize", .kind = K_ITS, .ws = ws_##Name##IS,      \
     .run = aclnnInplaceBitwise##Name##Scalar, .ref = ref_bits, .gen = gen_bits, .mode = c, .pa = "selfRef", \
     .pb = "other", .dt = I, .sdt = ACL_INT64, .out_dt = I, .mix_a = ACL_UINT8, .mix_b = I,                 \
     .mix_out = ACL_UINT8, .bad_in = F, .bad_out = B, .bad_out_b = I, .np_a = UNDEF, .np_b = UNDEF}

static const Op BITS_TABLE[] = {
    BITS_ROWS(And, AND, F),
    BITS_ROWS(Or, OR, F),
    BITS_ROWS(Xor, XOR, B),
    {.api = "aclnnBitwiseNotGetWorkspaceSize", .kind = K_U, .ws = ws_bnot, .run = aclnnBitwiseNot, .ref = ref_bits,
     .gen = gen_bits, .mode = NOT, .pa = "self", .pb = "other", .dt = I, .sdt = I, .out_dt = I, .mix_a = UNDEF,
     .mix_b = UNDEF, .mix_out = UNDEF, .bad_in = F, .bad_out = ACL_INT64, .bad_out_b = I, .np_a = UNDEF,
     .np_b = UNDEF},
    {.api = "aclnnBitwiseNotGetWorkspaceSize", .kind = K_U, .ws = ws_bnot, .run = aclnnBitwiseNot, .ref = ref_bits,
     .gen = gen_bits, .mode = NOT, .pa = "self", .pb = "other", .dt = ACL_INT8, .sdt = I, .out_dt = ACL_INT8,
     .mix_a = UNDEF, .mix_b = UNDEF, .mix_out = UNDEF, .bad_in = ACL_UINT16, .bad_out = ACL_UINT8, .bad_out_b = I,
     .np_a = UNDEF, .np_b = UNDEF},
};

/* ================================================================ logical */

static void test_logical_generic(void) { run_table(LOGIC_TABLE, ARRAY_LEN(LOGIC_TABLE)); }

/* Truth values of floats (NaN and -0.0 included), integers and complex numbers. */
static void test_logical_truth(void)
{
    int64_t s8[] = {8}, s3[] = {3};
    DevTensor a = mk(F, s8, 1, V(0, -0.0, 1, NAN, 0.5, -3, 0, INFINITY));
    DevTensor b = mk(F, s8, 1, V(0, 1, 0, 0, 2, 0, NAN, -INFINITY));
    DevTensor o = mk(B, s8, 1, NULL);
    RUN2(aclnnLogicalAndGetWorkspaceSize(a.tensor, b.tensor, o.tensor, &ews, &eex), aclnnLogicalAnd);
    EXPECT_T(o, 0, 0, 0, 0, 1, 0, 0, 1);
    RUN2(aclnnLogicalOrGetWorkspaceSize(a.tensor, b.tensor, o.tensor, &ews, &eex), aclnnLogicalOr);
    EXPECT_T(o, 0, 1, 1, 1, 1, 1, 1, 1);
    RUN2(aclnnLogicalXorGetWorkspaceSize(a.tensor, b.tensor, o.tensor, &ews, &eex), aclnnLogicalXor);
    EXPECT_T(o, 0, 1, 1, 1, 0, 1, 1, 0);
    RUN2(aclnnLogicalNotGetWorkspaceSize(a.tensor, o.tensor, &ews, &eex), aclnnLogicalNot);
    EXPECT_T(o, 1, 1, 0, 0, 0, 0, 1, 0);
    /* in place: selfRef keeps its dtype and gets 1/0 */
    RUN2(aclnnInplaceLogicalOrGetWorkspaceSize(a.tensor, b.tensor, &ews, &eex), aclnnInplaceLogicalOr);
    EXPECT_T(a, 0, 1, 1, 1, 1, 1, 1, 1);
    RUN2(aclnnInplaceLogicalNotGetWorkspaceSize(b.tensor, &ews, &eex), aclnnInplaceLogicalNot);
    EXPECT_T(b, 1, 0, 1, 1, 0, 1, 0, 0);
    /* complex: either part non-zero is true */
    DevTensor c = mk(ACL_COMPLEX64, s3, 1, V(0, 0, 0, 1, 2, 0)), d = mk(ACL_COMPLEX128, s3, 1, V(1, 0, -0.0, 1, 0, 0));
    DevTensor co = mk(B, s3, 1, NULL);
    RUN2(aclnnLogicalAndGetWorkspaceSize(c.tensor, d.tensor, co.tensor, &ews, &eex), aclnnLogicalAnd);
    EXPECT_T(co, 0, 1, 0);
    RUN2(aclnnLogicalXorGetWorkspaceSize(c.tensor, d.tensor, co.tensor, &ews, &eex), aclnnLogicalXor);
    EXPECT_T(co, 1, 0, 1);
    /* LogicalNot does not take complex */
    EXPECT_ERR(aclnnLogicalNotGetWorkspaceSize(c.tensor, co.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnLogicalNotGetWorkspaceSize", "self", &co);
    /* integers of different dtypes: no promotion needed (u8 with s8 would promote to s16) */
    DevTensor u = mk(ACL_UINT8, s3, 1, V(0, 255, 3)), s = mk(ACL_INT8, s3, 1, V(-1, 0, 1));
    RUN2(aclnnLogicalAndGetWorkspaceSize(u.tensor, s.tensor, co.tensor, &ews, &eex), aclnnLogicalAnd);
    EXPECT_T(co, 0, 0, 1);
    /* u16 with s32 (not promotable, and u16 not in the list): refused */
    DevTensor w = mk(ACL_UINT16, s3, 1, NULL), i = mk(I, s3, 1, NULL);
    EXPECT_ERR(aclnnLogicalOrGetWorkspaceSize(w.tensor, i.tensor, co.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnLogicalOrGetWorkspaceSize", "self", &co);
    DevTensor *all[] = {&a, &b, &o, &c, &d, &co, &u, &s, &w, &i};
    for (size_t k = 0; k < ARRAY_LEN(all); k++) dev_free(all[k]);
}

/* out may be bool, an integer or a float (1/0); complex and u16 outs are refused. */
static void test_logical_out_dtypes(void)
{
    int64_t s3[] = {3};
    DevTensor a = mk(I, s3, 1, V(0, 2, 5)), b = mk(I, s3, 1, V(1, 0, 7));
    const aclDataType outs[] = {B, I, F, ACL_DOUBLE, ACL_FLOAT16, ACL_BF16, ACL_UINT8, ACL_INT64};
    for (size_t k = 0; k < ARRAY_LEN(outs); k++) {
        DevTensor o = mk(outs[k], s3, 1, NULL);
        RUN2(aclnnLogicalAndGetWorkspaceSize(a.tensor, b.tensor, o.tensor, &ews, &eex), aclnnLogicalAnd);
        EXPECT_T(o, 0, 0, 1);
        RUN2(aclnnLogicalOrGetWorkspaceSize(a.tensor, b.tensor, o.tensor, &ews, &eex), aclnnLogicalOr);
        EXPECT_T(o, 1, 1, 1);
        RUN2(aclnnLogicalXorGetWorkspaceSize(a.tensor, b.tensor, o.tensor, &ews, &eex), aclnnLogicalXor);
        EXPECT_T(o, 1, 1, 0);
        RUN2(aclnnLogicalNotGetWorkspaceSize(a.tensor, o.tensor, &ews, &eex), aclnnLogicalNot);
        EXPECT_T(o, 1, 0, 0);
        dev_free(&o);
    }
    DevTensor oc = mk(ACL_COMPLEX64, s3, 1, NULL), ou = mk(ACL_UINT16, s3, 1, NULL);
    EXPECT_ERR(aclnnLogicalAndGetWorkspaceSize(a.tensor, b.tensor, oc.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnLogicalAndGetWorkspaceSize", "out", &oc);
    EXPECT_ERR(aclnnLogicalXorGetWorkspaceSize(a.tensor, b.tensor, ou.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnLogicalXorGetWorkspaceSize", "out", &ou);
    EXPECT_ERR(aclnnLogicalNotGetWorkspaceSize(a.tensor, oc.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnLogicalNotGetWorkspaceSize", "out", &oc);
    /* LogicalNot: out has self's shape exactly (no broadcasting) */
    int64_t s23[] = {2, 3};
    DevTensor o23 = mk(B, s23, 2, NULL);
    EXPECT_ERR(aclnnLogicalNotGetWorkspaceSize(a.tensor, o23.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnLogicalNotGetWorkspaceSize", "out", &o23);
    /* InplaceLogicalAnd: the broadcast shape must be selfRef's */
    EXPECT_ERR(aclnnInplaceLogicalAndGetWorkspaceSize(a.tensor, o23.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnInplaceLogicalAndGetWorkspaceSize", "selfRef", &a);
    DevTensor *all[] = {&a, &b, &oc, &ou, &o23};
    for (size_t k = 0; k < ARRAY_LEN(all); k++) dev_free(all[k]);
}

/* ================================================================ bitwise */

static void test_bitwise_generic(void) { run_table(BITS_TABLE, ARRAY_LEN(BITS_TABLE)); }

static void test_bitwise_values(void)
{
    int64_t s4[] = {4}, s3[] = {3}, s2[] = {2};
    DevTensor a = mk(I, s4, 1, V(0x0F0F, -1, 12, -8)), b = mk(I, s4, 1, V(0x00FF, 5, 10, 3));
    DevTensor o = mk(I, s4, 1, NULL);
    RUN2(aclnnBitwiseAndTensorGetWorkspaceSize(a.tensor, b.tensor, o.tensor, &ews, &eex), aclnnBitwiseAndTensor);
    EXPECT_T(o, 0x000F, 5, 8, 0);
    RUN2(aclnnBitwiseOrTensorGetWorkspaceSize(a.tensor, b.tensor, o.tensor, &ews, &eex), aclnnBitwiseOrTensor);
    EXPECT_T(o, 0x0FFF, -1, 14, -5);
    RUN2(aclnnBitwiseXorTensorGetWorkspaceSize(a.tensor, b.tensor, o.tensor, &ews, &eex), aclnnBitwiseXorTensor);
    EXPECT_T(o, 0x0FF0, -6, 6, -5);
    /* Xor may write a float out (int -> float); And/Or may not */
    DevTensor of = mk(F, s4, 1, NULL);
    RUN2(aclnnBitwiseXorTensorGetWorkspaceSize(a.tensor, b.tensor, of.tensor, &ews, &eex), aclnnBitwiseXorTensor);
    EXPECT_T(of, 0x0FF0, -6, 6, -5);
    EXPECT_ERR(aclnnBitwiseAndTensorGetWorkspaceSize(a.tensor, b.tensor, of.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnBitwiseAndTensorGetWorkspaceSize", "out", &of);
    /* an s32 result cannot go to a bool out */
    DevTensor ob = mk(B, s4, 1, NULL);
    EXPECT_ERR(aclnnBitwiseOrTensorGetWorkspaceSize(a.tensor, b.tensor, ob.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnBitwiseOrTensorGetWorkspaceSize", "out", &ob);
    /* bool: the logical connectives */
    DevTensor p = mk(B, s4, 1, V(1, 1, 0, 0)), q = mk(B, s4, 1, V(1, 0, 1, 0));
    RUN2(aclnnBitwiseAndTensorGetWorkspaceSize(p.tensor, q.tensor, ob.tensor, &ews, &eex), aclnnBitwiseAndTensor);
    EXPECT_T(ob, 1, 0, 0, 0);
    RUN2(aclnnBitwiseOrTensorGetWorkspaceSize(p.tensor, q.tensor, ob.tensor, &ews, &eex), aclnnBitwiseOrTensor);
    EXPECT_T(ob, 1, 1, 1, 0);
    RUN2(aclnnBitwiseXorTensorGetWorkspaceSize(p.tensor, q.tensor, ob.tensor, &ews, &eex), aclnnBitwiseXorTensor);
    EXPECT_T(ob, 0, 1, 1, 0);
    /* bool with s32: s32 */
    DevTensor t = mk(I, s4, 1, V(3, 3, 2, -1));
    RUN2(aclnnBitwiseAndTensorGetWorkspaceSize(p.tensor, t.tensor, o.tensor, &ews, &eex), aclnnBitwiseAndTensor);
    EXPECT_T(o, 1, 1, 0, 0);
    /* s8 with u8: s16 (-1 is 0xFFFF there) */
    DevTensor s8 = mk(ACL_INT8, s3, 1, V(-1, -128, 5)), u8 = mk(ACL_UINT8, s3, 1, V(200, 1, 255));
    DevTensor o16 = mk(ACL_INT16, s3, 1, NULL);
    RUN2(aclnnBitwiseAndTensorGetWorkspaceSize(s8.tensor, u8.tensor, o16.tensor, &ews, &eex), aclnnBitwiseAndTensor);
    EXPECT_T(o16, 200, 0, 5);
    RUN2(aclnnBitwiseOrTensorGetWorkspaceSize(s8.tensor, u8.tensor, o16.tensor, &ews, &eex), aclnnBitwiseOrTensor);
    EXPECT_T(o16, -1, -127, 255);
    /* unsigned wide types: u16 for And/Or, u32 and u64 for Or only */
    DevTensor w = mk(ACL_UINT16, s2, 1, V(0xF0F0, 0x00FF)), ow = mk(ACL_UINT16, s2, 1, NULL);
    RUN2(aclnnBitwiseAndTensorGetWorkspaceSize(w.tensor, w.tensor, ow.tensor, &ews, &eex), aclnnBitwiseAndTensor);
    EXPECT_T(ow, 0xF0F0, 0x00FF);
    DevTensor u32a = mk(ACL_UINT32, s2, 1, V(0x80000000u, 1)), u32b = mk(ACL_UINT32, s2, 1, V(1, 2));
    DevTensor o32 = mk(ACL_UINT32, s2, 1, NULL);
    RUN2(aclnnBitwiseOrTensorGetWorkspaceSize(u32a.tensor, u32b.tensor, o32.tensor, &ews, &eex),
         aclnnBitwiseOrTensor);
    EXPECT_T(o32, 0x80000001u, 3);
    /* u64 bits beyond 2^53 are exact */
    DevTensor u64a = mk(ACL_UINT64, s2, 1, NULL), u64b = mk(ACL_UINT64, s2, 1, NULL), o64 = mk(ACL_UINT64, s2, 1, NULL);
    const uint64_t ua[] = {0x8000000000000001ull, 0x0123456789ABCDEFull}, ub[] = {0x2ull, 0xF000000000000000ull};
    dev_write(&u64a, ua);
    dev_write(&u64b, ub);
    RUN2(aclnnBitwiseOrTensorGetWorkspaceSize(u64a.tensor, u64b.tensor, o64.tensor, &ews, &eex),
         aclnnBitwiseOrTensor);
    uint64_t ug[2];
    dev_read(&o64, ug);
    CHECK(ug[0] == 0x8000000000000003ull && ug[1] == 0xF123456789ABCDEFull);
    dev_free(&u64a);
    dev_free(&u64b);
    dev_free(&o64);
    EXPECT_ERR(aclnnBitwiseAndTensorGetWorkspaceSize(u32a.tensor, u32b.tensor, o32.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnBitwiseAndTensorGetWorkspaceSize", "self", &o32);
    EXPECT_ERR(aclnnBitwiseXorTensorGetWorkspaceSize(w.tensor, w.tensor, ow.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnBitwiseXorTensorGetWorkspaceSize", "self", &ow);
    /* u16 with s32: no promotion */
    DevTensor i2 = mk(I, s2, 1, NULL), io2 = mk(I, s2, 1, NULL);
    EXPECT_ERR(aclnnBitwiseOrTensorGetWorkspaceSize(w.tensor, i2.tensor, io2.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnBitwiseOrTensorGetWorkspaceSize", NULL, &io2);
    /* float inputs are refused */
    DevTensor f = mk(F, s4, 1, NULL);
    EXPECT_ERR(aclnnBitwiseXorTensorGetWorkspaceSize(a.tensor, f.tensor, o.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnBitwiseXorTensorGetWorkspaceSize", "other", &o);
    DevTensor *all[] = {&a, &b, &o, &of, &ob, &p, &q, &t, &s8, &u8, &o16, &w, &ow, &u32a, &u32b, &o32, &i2, &io2, &f};
    for (size_t k = 0; k < ARRAY_LEN(all); k++) dev_free(all[k]);
}

static void test_bitwise_scalar_inplace(void)
{
    int64_t s3[] = {3}, s2[] = {2};
    DevTensor a = mk(I, s3, 1, V(0x1234, -1, 7)), o = mk(I, s3, 1, NULL);
    aclScalar *ff = sc(ACL_INT64, 0xFF), *two = sc(I, 2), *t = sc(B, 1), *m1 = sc(I, -1), *f = sc(F, 1);
    RUN2(aclnnBitwiseAndScalarGetWorkspaceSize(a.tensor, ff, o.tensor, &ews, &eex), aclnnBitwiseAndScalar);
    EXPECT_T(o, 0x34, 0xFF, 7);
    RUN2(aclnnBitwiseOrScalarGetWorkspaceSize(a.tensor, two, o.tensor, &ews, &eex), aclnnBitwiseOrScalar);
    EXPECT_T(o, 0x1236, -1, 7);
    RUN2(aclnnBitwiseXorScalarGetWorkspaceSize(a.tensor, m1, o.tensor, &ews, &eex), aclnnBitwiseXorScalar);
    EXPECT_T(o, ~0x1234, 0, -8);
    /* bool tensor with an s32 scalar: s32; with a bool scalar: bool */
    DevTensor p = mk(B, s2, 1, V(1, 0)), po = mk(I, s2, 1, NULL), pb = mk(B, s2, 1, NULL);
    RUN2(aclnnBitwiseOrScalarGetWorkspaceSize(p.tensor, two, po.tensor, &ews, &eex), aclnnBitwiseOrScalar);
    EXPECT_T(po, 3, 2);
    RUN2(aclnnBitwiseXorScalarGetWorkspaceSize(p.tensor, t, pb.tensor, &ews, &eex), aclnnBitwiseXorScalar);
    EXPECT_T(pb, 0, 1);
    /* a float scalar is refused */
    EXPECT_ERR(aclnnBitwiseAndScalarGetWorkspaceSize(a.tensor, f, o.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnBitwiseAndScalarGetWorkspaceSize", "other", &o);
    /* AndScalar/OrScalar may write a float out (CANN's A2 docs and code); OrScalar takes no u32/u64 */
    DevTensor of = mk(F, s3, 1, NULL), oh = mk(ACL_FLOAT16, s3, 1, NULL);
    RUN2(aclnnBitwiseAndScalarGetWorkspaceSize(a.tensor, ff, of.tensor, &ews, &eex), aclnnBitwiseAndScalar);
    EXPECT_T(of, 0x34, 0xFF, 7);
    RUN2(aclnnBitwiseOrScalarGetWorkspaceSize(a.tensor, two, oh.tensor, &ews, &eex), aclnnBitwiseOrScalar);
    EXPECT_T(oh, 4664, -1, 7); /* 0x1236 = 4662: a tie between the f16 values 4660 and 4664 (even) */
    DevTensor w = mk(ACL_UINT32, s2, 1, V(5, 6)), wo = mk(ACL_UINT32, s2, 1, NULL);
    aclScalar *u1 = sc(ACL_UINT32, 1);
    EXPECT_ERR(aclnnBitwiseOrScalarGetWorkspaceSize(w.tensor, u1, wo.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnBitwiseOrScalarGetWorkspaceSize", "self", &wo);
    EXPECT_ERR(aclnnInplaceBitwiseOrScalarGetWorkspaceSize(w.tensor, u1, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnInplaceBitwiseOrScalarGetWorkspaceSize", "selfRef", &w);
    CHECK_OK(aclDestroyScalar(u1));
    dev_free(&of);
    dev_free(&oh);
    dev_free(&w);
    dev_free(&wo);
    /* in place: s16 selfRef | s8 other; u8 selfRef ^ -1 (s32 scalar, computed in u8) */
    DevTensor r = mk(ACL_INT16, s2, 1, V(0x0100, -256)), rb = mk(ACL_INT8, s2, 1, V(1, -1));
    RUN2(aclnnInplaceBitwiseOrTensorGetWorkspaceSize(r.tensor, rb.tensor, &ews, &eex), aclnnInplaceBitwiseOrTensor);
    EXPECT_T(r, 0x0101, -1);
    DevTensor u = mk(ACL_UINT8, s2, 1, V(0x0F, 0xA5));
    RUN2(aclnnInplaceBitwiseXorScalarGetWorkspaceSize(u.tensor, m1, &ews, &eex), aclnnInplaceBitwiseXorScalar);
    EXPECT_T(u, 0xF0, 0x5A);
    RUN2(aclnnInplaceBitwiseAndScalarGetWorkspaceSize(u.tensor, ff, &ews, &eex), aclnnInplaceBitwiseAndScalar);
    EXPECT_T(u, 0xF0, 0x5A);
    /* in place into bool from an s32 result: refused */
    EXPECT_ERR(aclnnInplaceBitwiseAndScalarGetWorkspaceSize(p.tensor, two, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnInplaceBitwiseAndScalarGetWorkspaceSize", "selfRef", &p);
    DevTensor *all[] = {&a, &o, &p, &po, &pb, &r, &rb, &u};
    for (size_t k = 0; k < ARRAY_LEN(all); k++) dev_free(all[k]);
    aclScalar *sl[] = {ff, two, t, m1, f};
    for (size_t k = 0; k < ARRAY_LEN(sl); k++) CHECK_OK(aclDestroyScalar(sl[k]));
}

/* BitwiseNot: ~x for integers, !x for bool; out must have self's dtype. */
static void test_bitwise_not(void)
{
    int64_t s4[] = {4}, s2[] = {2};
    DevTensor a = mk(I, s4, 1, V(0, -1, 5, -2147483648.0)), o = mk(I, s4, 1, NULL);
    RUN2(aclnnBitwiseNotGetWorkspaceSize(a.tensor, o.tensor, &ews, &eex), aclnnBitwiseNot);
    EXPECT_T(o, -1, 0, -6, 2147483647);
    DevTensor u = mk(ACL_UINT8, s2, 1, V(0x0F, 0)), uo = mk(ACL_UINT8, s2, 1, NULL);
    RUN2(aclnnBitwiseNotGetWorkspaceSize(u.tensor, uo.tensor, &ews, &eex), aclnnBitwiseNot);
    EXPECT_T(uo, 0xF0, 0xFF);
    DevTensor p = mk(B, s2, 1, V(1, 0)), po = mk(B, s2, 1, NULL);
    RUN2(aclnnBitwiseNotGetWorkspaceSize(p.tensor, po.tensor, &ews, &eex), aclnnBitwiseNot);
    EXPECT_T(po, 0, 1);
    DevTensor l = mk(ACL_INT64, s2, 1, V(1099511627776.0, -3)), lo = mk(ACL_INT64, s2, 1, NULL);
    RUN2(aclnnBitwiseNotGetWorkspaceSize(l.tensor, lo.tensor, &ews, &eex), aclnnBitwiseNot);
    EXPECT_T(lo, -1099511627777.0, 2);
    DevTensor h = mk(ACL_INT16, s2, 1, V(0x7FFF, 0)), ho = mk(ACL_INT16, s2, 1, NULL);
    RUN2(aclnnBitwiseNotGetWorkspaceSize(h.tensor, ho.tensor, &ews, &eex), aclnnBitwiseNot);
    EXPECT_T(ho, -32768, -1);
    /* out dtype != self dtype: 161002, even where the conversion would be allowed */
    DevTensor o64 = mk(ACL_INT64, s4, 1, NULL), of = mk(F, s4, 1, NULL), ou8 = mk(ACL_UINT8, s2, 1, NULL);
    DevTensor os8 = mk(ACL_INT8, s2, 1, NULL);
    EXPECT_ERR(aclnnBitwiseNotGetWorkspaceSize(a.tensor, o64.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnBitwiseNotGetWorkspaceSize", "out", &o64);
    EXPECT_ERR(aclnnBitwiseNotGetWorkspaceSize(a.tensor, of.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnBitwiseNotGetWorkspaceSize", "out", &of);
    EXPECT_ERR(aclnnBitwiseNotGetWorkspaceSize(p.tensor, ou8.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnBitwiseNotGetWorkspaceSize", "out", &ou8);
    EXPECT_ERR(aclnnBitwiseNotGetWorkspaceSize(u.tensor, os8.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnBitwiseNotGetWorkspaceSize", "out", &os8);
    /* float input: refused */
    DevTensor f = mk(F, s4, 1, NULL);
    EXPECT_ERR(aclnnBitwiseNotGetWorkspaceSize(f.tensor, of.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnBitwiseNotGetWorkspaceSize", "self", &of);
    /* out aliasing self (computed in place through the out parameter) */
    RUN2(aclnnBitwiseNotGetWorkspaceSize(a.tensor, a.tensor, &ews, &eex), aclnnBitwiseNot);
    EXPECT_T(a, -1, 0, -6, 2147483647);
    DevTensor *all[] = {&a, &o, &u, &uo, &p, &po, &l, &lo, &h, &ho, &o64, &of, &ou8, &os8, &f};
    for (size_t k = 0; k < ARRAY_LEN(all); k++) dev_free(all[k]);
}

/* The device's merged-axes limit for s16 bitwise operations, tensor-tensor forms. */
static void test_bitwise_axis_limit(void)
{
    for (size_t i = 0; i < ARRAY_LEN(BITS_TABLE); i++) {
        const Op *op = &BITS_TABLE[i];
        if (op->kind == K_TT || op->kind == K_ITT) case_axis_limit(op, ACL_INT16, ACL_INT16);
    }
}

int main(void)
{
    device_init();
    RUN_TEST(test_logical_generic);
    RUN_TEST(test_logical_truth);
    RUN_TEST(test_logical_out_dtypes);
    RUN_TEST(test_bitwise_generic);
    RUN_TEST(test_bitwise_values);
    RUN_TEST(test_bitwise_scalar_inplace);
    RUN_TEST(test_bitwise_not);
    RUN_TEST(test_bitwise_axis_limit);
    device_teardown();
    return capi_finish();
}
