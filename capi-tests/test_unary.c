/*
 * The unary operators (reference 5.4 and CANN's ops-math headers for Erf, Log2, Exp2, Clamp,
 * InplaceFillScalar, InplaceZero): Abs, Neg, Exp, Log, Sqrt, Rsqrt, Sin, Cos, Tanh, Sigmoid,
 * Relu, Gelu, Silu, Floor, Ceil, Round, Sign, Reciprocal, Erf, Log2, Exp2 (with their in-place
 * forms where CANN has one), Clamp, InplaceFillScalar and InplaceZero.
 *
 * Every form runs through the table-driven cases of ops_common (a non-contiguous input and
 * output, in place on a view, mixed dtypes, 0-d, empty, out == self, each documented error);
 * the test_* functions after the table add hand-chosen values for each operator's special
 * cases. Expected values: libm in double. Float results may differ from them by at most 2 ulp
 * of the result dtype (ulp2_match); exact operators must match exactly, sign of zero included
 * (exact_match).
 */
#include "ops_common.h"

#include "aclnnop/aclnn_abs.h"
#include "aclnnop/aclnn_ceil.h"
#include "aclnnop/aclnn_clamp.h"
#include "aclnnop/aclnn_cos.h"
#include "aclnnop/aclnn_erf.h"
#include "aclnnop/aclnn_exp.h"
#include "aclnnop/aclnn_exp2.h"
#include "aclnnop/aclnn_fill_scalar.h"
#include "aclnnop/aclnn_floor.h"
#include "aclnnop/aclnn_gelu.h"
#include "aclnnop/aclnn_log.h"
#include "aclnnop/aclnn_log2.h"
#include "aclnnop/aclnn_neg.h"
#include "aclnnop/aclnn_reciprocal.h"
#include "aclnnop/aclnn_relu.h"
#include "aclnnop/aclnn_round.h"
#include "aclnnop/aclnn_rsqrt.h"
#include "aclnnop/aclnn_sigmoid.h"
#include "aclnnop/aclnn_sign.h"
#include "aclnnop/aclnn_silu.h"
#include "aclnnop/aclnn_sin.h"
#include "aclnnop/aclnn_sqrt.h"
#include "aclnnop/aclnn_tanh.h"
#include "aclnnop/aclnn_zero.h"

#include <float.h>

#define PI 3.14159265358979323846

/* ================================================================ reference functions */

enum Fn {
    ABS, NEG, EXP, LOG, SQRT, RSQRT, SIN, COS, TANH, SIGMOID, RELU, GELU, SILU, FLOOR, CEIL, ROUND, SIGN,
    RECIPROCAL, ERF, LOG2, EXP2, CLAMP_BOTH, CLAMP_MIN, CLAMP_MAX, CLAMP_INT, FILL, ZERO
};

/* The bounds of the Clamp rows. */
#define CLAMP_LO (-1.5)
#define CLAMP_HI 2.25
#define CLAMP_ILO (-1)
#define CLAMP_IHI 2

/*
 * 0.5x(1 + tanh(u)), u = sqrt(2/pi)(x + 0.044715x^3), written as x / (1 + e^(-2u)) (the same
 * function) so that the double reference does not cancel for negative x.
 */
static double gelu(double x)
{
    double u = sqrt(2 / PI) * (x + 0.044715 * x * x * x);
    return x / (1 + exp(-2 * u));
}

static double sign_of(double x)
{
    if (x > 0) return 1;
    if (x < 0) return -1;
    return x; /* ±0 and NaN keep themselves */
}

static double clamp_to(double x, double lo, double hi, bool has_lo, bool has_hi)
{
    if (has_lo && x < lo) x = lo;
    if (has_hi && x > hi) x = hi;
    return x;
}

/* f(x) in double (the in-place fill takes its value as y). */
static double fn_of(int fn, double x, double y)
{
    switch (fn) {
    case ABS: return fabs(x);
    case NEG: return -x;
    case EXP: return exp(x);
    case LOG: return log(x);
    case SQRT: return sqrt(x);
    case RSQRT: return 1 / sqrt(x);
    case SIN: return sin(x);
    case COS: return cos(x);
    case TANH: return tanh(x);
    case SIGMOID: return 1 / (1 + exp(-x));
    case RELU: return x > 0 || isnan(x) ? x : 0;
    case GELU: return gelu(x);
    case SILU: return x / (1 + exp(-x));
    case FLOOR: return floor(x);
    case CEIL: return ceil(x);
    case ROUND: return nearbyint(x); /* the default rounding mode: half to even */
    case SIGN: return sign_of(x);
    case RECIPROCAL: return 1 / x;
    case ERF: return erf(x);
    case LOG2: return log2(x);
    case EXP2: return exp2(x);
    case CLAMP_BOTH: return clamp_to(x, CLAMP_LO, CLAMP_HI, true, true);
    case CLAMP_MIN: return clamp_to(x, CLAMP_LO, 0, true, false);
    case CLAMP_MAX: return clamp_to(x, 0, CLAMP_HI, false, true);
    case CLAMP_INT: return clamp_to(x, CLAMP_ILO, CLAMP_IHI, true, true);
    case FILL: return y;
    default: return 0; /* ZERO */
    }
}
static double ref_unary(const Op *op, double x, double y) { return fn_of(op->mode, x, y); }

/* ================================================================ operand values */

/* Both signs, fractions and integers. */
static double gen_any(int which, int64_t i, bool integral)
{
    static const double f[] = {-2.75, -1, -0.5, 0, 0.25, 1.5, 2.5, 3.25, -3.5, 0.75, -0.0};
    static const double n[] = {-3, -1, 0, 1, 2, 4, -2, 3};
    if (which == 1) return integral ? 7 : 2.5; /* the fill value */
    return integral ? n[i % 8] : f[i % 11];
}
/* Positive values (the domains of Log, Sqrt, Rsqrt, Log2). */
static double gen_pos(int which, int64_t i, bool integral)
{
    static const double f[] = {0.25, 0.5, 1, 1.5, 2, 3.75, 10, 100, 0.1, 7};
    static const double n[] = {1, 2, 3, 4, 5, 8, 9, 100};
    (void)which;
    return integral ? n[i % 8] : f[i % 10];
}
/* Non-zero values (Reciprocal). */
static double gen_nonzero(int which, int64_t i, bool integral)
{
    static const double f[] = {-2, -0.5, 0.25, 1, 3, -8, 0.1, 5, 0.3};
    static const double n[] = {-3, -1, 1, 2, 4, 7};
    (void)which;
    return integral ? n[i % 6] : f[i % 9];
}
/* Halves of both signs (Round, Floor, Ceil). */
static double gen_round(int which, int64_t i, bool integral)
{
    static const double f[] = {-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, -0.4, 0.6, 3.7, -3.2, -0.0};
    static const double n[] = {-3, -1, 0, 1, 2, 5, 9};
    (void)which;
    return integral ? n[i % 7] : f[i % 11];
}
/* Wider range for the activations (Gelu, Silu, Sigmoid, Tanh, Erf): -6 .. 6. */
static double gen_act(int which, int64_t i, bool integral)
{
    static const double f[] = {-6, -4.5, -3, -2.25, -1, -0.375, 0, 0.5, 1.25, 2, 3.5, 6};
    static const double n[] = {-5, -3, -1, 0, 1, 2, 4};
    (void)which;
    return integral ? n[i % 7] : f[i % 12];
}

/* ================================================================ the operator forms */

#define WRAP_U(Name) OP_WS_U(ws_##Name, Name)
#define WRAP_IU(Name) OP_WS_IU(ws_i##Name, Inplace##Name)
#define WRAP_BOTH(Name) WRAP_U(Name) WRAP_IU(Name)
WRAP_U(Abs)
WRAP_U(Gelu)
WRAP_U(Silu)
WRAP_U(Sign)
WRAP_BOTH(Neg)
WRAP_BOTH(Exp)
WRAP_BOTH(Log)
WRAP_BOTH(Sqrt)
WRAP_BOTH(Rsqrt)
WRAP_BOTH(Sin)
WRAP_BOTH(Cos)
WRAP_BOTH(Tanh)
WRAP_BOTH(Sigmoid)
WRAP_BOTH(Relu)
WRAP_BOTH(Floor)
WRAP_BOTH(Ceil)
WRAP_BOTH(Round)
WRAP_BOTH(Reciprocal)
WRAP_BOTH(Erf)
WRAP_BOTH(Log2)
WRAP_BOTH(Exp2)
WRAP_IU(Zero)

OP_WS_DEF(ws_clamp)
{
    aclScalar *lo = NULL, *hi = NULL;
    switch (op->mode) {
    case CLAMP_BOTH: lo = sc(ACL_FLOAT, CLAMP_LO), hi = sc(ACL_FLOAT, CLAMP_HI); break;
    case CLAMP_MIN: lo = sc(ACL_FLOAT, CLAMP_LO); break;
    case CLAMP_MAX: hi = sc(ACL_FLOAT, CLAMP_HI); break;
    default: lo = sc(ACL_INT32, CLAMP_ILO), hi = sc(ACL_INT32, CLAMP_IHI); break;
    }
    aclnnStatus st = aclnnClampGetWorkspaceSize(x->a, lo, hi, x->out, w, e);
    if (lo) CHECK_OK(aclDestroyScalar(lo));
    if (hi) CHECK_OK(aclDestroyScalar(hi));
    return st;
}
OP_WS_ITS(ws_ifill, InplaceFillScalar)

#define F ACL_FLOAT
#define H ACL_FLOAT16
#define D ACL_DOUBLE
#define BF ACL_BF16
#define I ACL_INT32

/*
 * Each row starts from the defaults of its form and overrides some fields: a designated
 * initializer given twice takes the last value (C11 6.7.9), which is what -Woverride-init flags.
 * U: out = f(self); IU: f in place; exact operators use EXACT, float functions ULP2.
 */
#pragma GCC diagnostic ignored "-Woverride-init"
#define UROW(name, wsf, phase2, fn, genf, matchf, ...)                                                  \
    {.api = name "GetWorkspaceSize", .kind = K_U, .ws = wsf, .run = phase2, .ref = ref_unary, .gen = genf, \
     .mode = fn, .match = matchf, .pa = "self", .pb = "other", .dt = F, .sdt = F, .out_dt = F,           \
     .mix_a = UNDEF, .mix_b = F, .mix_out = UNDEF, .bad_in = ACL_UINT32, .bad_out = UNDEF,               \
     .bad_out_b = UNDEF, .np_a = UNDEF, .np_b = UNDEF, __VA_ARGS__}
#define IUROW(name, wsf, phase2, fn, genf, matchf, ...)                                                  \
    {.api = name "GetWorkspaceSize", .kind = K_IU, .ws = wsf, .run = phase2, .ref = ref_unary, .gen = genf, \
     .mode = fn, .match = matchf, .pa = "selfRef", .pb = "other", .dt = F, .sdt = F, .out_dt = F,         \
     .mix_a = UNDEF, .mix_b = F, .mix_out = UNDEF, .bad_in = ACL_UINT32, .bad_out = UNDEF,               \
     .bad_out_b = UNDEF, .np_a = UNDEF, .np_b = UNDEF, __VA_ARGS__}
#define EXACT exact_match
#define ULP2 ulp2_match

static const Op UNARY_OPS[] = {
    UROW("aclnnAbs", ws_Abs, aclnnAbs, ABS, gen_any, EXACT, .mix_a = ACL_INT8, .mix_out = ACL_INT8, .bad_out = D),
    UROW("aclnnAbs", ws_Abs, aclnnAbs, ABS, gen_any, EXACT, .dt = H, .out_dt = H, .mix_a = ACL_UINT8,
         .mix_out = ACL_UINT8, .bad_in = ACL_COMPLEX128, .bad_out = ACL_INT16),
    UROW("aclnnNeg", ws_Neg, aclnnNeg, NEG, gen_any, EXACT, .mix_a = I, .mix_out = ACL_INT64, .bad_in = ACL_UINT8,
         .bad_out = I),
    IUROW("aclnnInplaceNeg", ws_iNeg, aclnnInplaceNeg, NEG, gen_any, EXACT, .mix_a = ACL_INT8, .bad_in = ACL_UINT8),
    UROW("aclnnExp", ws_Exp, aclnnExp, EXP, gen_any, ULP2, .mix_a = ACL_BOOL, .mix_out = H, .bad_in = I,
         .bad_out = ACL_INT64),
    UROW("aclnnExp", ws_Exp, aclnnExp, EXP, gen_any, ULP2, .dt = D, .out_dt = D, .mix_a = ACL_INT64, .mix_out = F,
         .bad_in = ACL_INT16, .bad_out = ACL_BOOL),
    IUROW("aclnnInplaceExp", ws_iExp, aclnnInplaceExp, EXP, gen_any, ULP2, .mix_a = BF, .bad_in = I,
          .bad_out = ACL_INT64),
    UROW("aclnnLog", ws_Log, aclnnLog, LOG, gen_pos, ULP2, .mix_a = I, .mix_out = BF, .bad_in = ACL_UINT16,
         .bad_out = I),
    IUROW("aclnnInplaceLog", ws_iLog, aclnnInplaceLog, LOG, gen_pos, ULP2, .dt = D, .mix_a = H,
          .bad_in = ACL_UINT16, .bad_out = I),
    UROW("aclnnSqrt", ws_Sqrt, aclnnSqrt, SQRT, gen_pos, ULP2, .mix_a = ACL_UINT8, .mix_out = H, .bad_out = ACL_BOOL),
    IUROW("aclnnInplaceSqrt", ws_iSqrt, aclnnInplaceSqrt, SQRT, gen_pos, ULP2, .pa = "self", .mix_a = D,
          .bad_out = ACL_INT16),
    UROW("aclnnRsqrt", ws_Rsqrt, aclnnRsqrt, RSQRT, gen_pos, ULP2, .mix_a = ACL_INT64, .mix_out = F,
         .bad_in = ACL_UINT16, .bad_out = ACL_INT8),
    IUROW("aclnnInplaceRsqrt", ws_iRsqrt, aclnnInplaceRsqrt, RSQRT, gen_pos, ULP2, .dt = H, .mix_a = BF,
          .bad_in = ACL_UINT16, .bad_out = ACL_INT8),
    UROW("aclnnSin", ws_Sin, aclnnSin, SIN, gen_any, ULP2, .mix_a = I, .mix_out = F, .bad_in = ACL_UINT16,
         .bad_out = I),
    IUROW("aclnnInplaceSin", ws_iSin, aclnnInplaceSin, SIN, gen_any, ULP2, .dt = D, .mix_a = BF, .bad_out = I),
    UROW("aclnnCos", ws_Cos, aclnnCos, COS, gen_any, ULP2, .pa = "input", .mix_a = ACL_BOOL, .mix_out = H,
         .bad_in = ACL_UINT16, .bad_out = I),
    IUROW("aclnnInplaceCos", ws_iCos, aclnnInplaceCos, COS, gen_any, ULP2, .pa = "inputRef", .dt = H, .mix_a = D,
          .bad_out = I),
    UROW("aclnnTanh", ws_Tanh, aclnnTanh, TANH, gen_act, ULP2, .mix_a = ACL_INT16, .mix_out = H, .bad_in = D,
         .bad_out = D),
    IUROW("aclnnInplaceTanh", ws_iTanh, aclnnInplaceTanh, TANH, gen_act, ULP2, .dt = H, .mix_a = BF, .bad_in = D,
          .bad_out = I),
    UROW("aclnnSigmoid", ws_Sigmoid, aclnnSigmoid, SIGMOID, gen_act, ULP2, .mix_a = H, .mix_out = BF, .bad_in = D,
         .bad_out = D),
    IUROW("aclnnInplaceSigmoid", ws_iSigmoid, aclnnInplaceSigmoid, SIGMOID, gen_act, ULP2, .dt = BF, .mix_a = H,
          .bad_in = I),
    UROW("aclnnRelu", ws_Relu, aclnnRelu, RELU, gen_any, EXACT, .mix_a = ACL_INT8, .mix_out = ACL_INT8,
         .bad_in = ACL_INT16, .bad_out = H),
    UROW("aclnnRelu", ws_Relu, aclnnRelu, RELU, gen_any, EXACT, .dt = ACL_INT64, .out_dt = ACL_INT64, .mix_a = BF,
         .mix_out = BF, .bad_in = ACL_UINT16, .bad_out = I),
    IUROW("aclnnInplaceRelu", ws_iRelu, aclnnInplaceRelu, RELU, gen_any, EXACT, .dt = I, .mix_a = ACL_UINT8,
          .bad_in = ACL_UINT16),
    UROW("aclnnGelu", ws_Gelu, aclnnGelu, GELU, gen_act, ULP2, .mix_a = H, .mix_out = H, .bad_in = D, .bad_out = H),
    UROW("aclnnGelu", ws_Gelu, aclnnGelu, GELU, gen_act, ULP2, .dt = BF, .out_dt = BF, .bad_in = I, .bad_out = F),
    UROW("aclnnSilu", ws_Silu, aclnnSilu, SILU, gen_act, ULP2, .mix_a = BF, .mix_out = BF, .bad_in = D, .bad_out = BF),
    UROW("aclnnFloor", ws_Floor, aclnnFloor, FLOOR, gen_round, EXACT, .mix_a = ACL_UINT32, .mix_out = ACL_UINT32,
         .bad_in = ACL_BOOL, .bad_out = D),
    IUROW("aclnnInplaceFloor", ws_iFloor, aclnnInplaceFloor, FLOOR, gen_round, EXACT, .dt = H, .mix_a = ACL_INT16,
          .bad_in = ACL_BOOL),
    UROW("aclnnCeil", ws_Ceil, aclnnCeil, CEIL, gen_round, EXACT, .mix_a = D, .mix_out = D, .bad_in = I,
         .bad_out = H),
    IUROW("aclnnInplaceCeil", ws_iCeil, aclnnInplaceCeil, CEIL, gen_round, EXACT, .dt = BF, .mix_a = D, .bad_in = I),
    UROW("aclnnRound", ws_Round, aclnnRound, ROUND, gen_round, EXACT, .mix_a = I, .mix_out = I, .bad_in = ACL_INT8,
         .bad_out = D),
    IUROW("aclnnInplaceRound", ws_iRound, aclnnInplaceRound, ROUND, gen_round, EXACT, .dt = D, .mix_a = ACL_INT64,
          .bad_in = ACL_INT8),
    UROW("aclnnSign", ws_Sign, aclnnSign, SIGN, gen_any, EXACT, .pout = "result", .mix_a = ACL_INT64,
         .mix_out = ACL_INT64, .bad_in = ACL_INT8, .bad_out = I),
    UROW("aclnnReciprocal", ws_Reciprocal, aclnnReciprocal, RECIPROCAL, gen_nonzero, ULP2, .mix_a = ACL_INT8,
         .mix_out = H, .bad_in = ACL_UINT16, .bad_out = I),
    IUROW("aclnnInplaceReciprocal", ws_iReciprocal, aclnnInplaceReciprocal, RECIPROCAL, gen_nonzero, ULP2, .dt = D,
          .mix_a = H, .bad_in = ACL_UINT16, .bad_out = I),
    UROW("aclnnErf", ws_Erf, aclnnErf, ERF, gen_act, ULP2, .mix_a = ACL_INT64, .mix_out = F, .bad_in = ACL_INT16,
         .bad_out = ACL_COMPLEX64),
    IUROW("aclnnInplaceErf", ws_iErf, aclnnInplaceErf, ERF, gen_act, ULP2, .dt = H, .mix_a = D,
          .bad_in = ACL_COMPLEX64, .bad_out = I),
    UROW("aclnnLog2", ws_Log2, aclnnLog2, LOG2, gen_pos, ULP2, .mix_a = ACL_UINT8, .mix_out = BF,
         .bad_in = ACL_UINT16, .bad_out = ACL_INT64),
    IUROW("aclnnInplaceLog2", ws_iLog2, aclnnInplaceLog2, LOG2, gen_pos, ULP2, .dt = D, .mix_a = BF,
          .bad_in = ACL_UINT16, .bad_out = I),
    UROW("aclnnExp2", ws_Exp2, aclnnExp2, EXP2, gen_any, ULP2, .mix_a = ACL_BOOL, .mix_out = H,
         .bad_in = ACL_COMPLEX128, .bad_out = ACL_INT8),
    IUROW("aclnnInplaceExp2", ws_iExp2, aclnnInplaceExp2, EXP2, gen_any, ULP2, .dt = BF, .mix_a = F,
          .bad_in = ACL_UINT64, .bad_out = ACL_INT16),
    /* Clamp: both bounds, min only, max only (f32 bounds), both as s32 scalars */
    UROW("aclnnClamp", ws_clamp, aclnnClamp, CLAMP_BOTH, gen_any, EXACT, .mix_a = I, .mix_out = F,
         .bad_in = ACL_BOOL, .bad_out = I),
    UROW("aclnnClamp", ws_clamp, aclnnClamp, CLAMP_MIN, gen_any, EXACT, .dt = H, .out_dt = F, .mix_a = ACL_INT8,
         .mix_out = D, .bad_in = ACL_UINT16, .bad_out = ACL_INT8),
    UROW("aclnnClamp", ws_clamp, aclnnClamp, CLAMP_MAX, gen_any, EXACT, .dt = D, .out_dt = D, .mix_a = BF,
         .mix_out = BF, .bad_in = ACL_COMPLEX64, .bad_out = ACL_BOOL),
    UROW("aclnnClamp", ws_clamp, aclnnClamp, CLAMP_INT, gen_any, EXACT, .dt = ACL_INT8, .out_dt = ACL_INT8,
         .mix_a = ACL_INT16, .mix_out = ACL_INT64, .bad_in = ACL_UINT32, .bad_out = ACL_BOOL),
    /* InplaceFillScalar: selfRef = value (converted); a complex value cannot fill a real selfRef */
    {.api = "aclnnInplaceFillScalarGetWorkspaceSize", .kind = K_ITS, .ws = ws_ifill, .run = aclnnInplaceFillScalar,
     .ref = ref_unary, .gen = gen_any, .mode = FILL, .match = EXACT, .pa = "selfRef", .pb = "value", .dt = F,
     .sdt = D, .out_dt = F, .mix_a = ACL_INT8, .mix_b = F, .mix_out = ACL_INT8, .bad_in = UNDEF, .bad_out = F,
     .bad_out_b = ACL_COMPLEX64, .np_a = UNDEF, .np_b = UNDEF},
    {.api = "aclnnInplaceFillScalarGetWorkspaceSize", .kind = K_ITS, .ws = ws_ifill, .run = aclnnInplaceFillScalar,
     .ref = ref_unary, .gen = gen_any, .mode = FILL, .match = EXACT, .pa = "selfRef", .pb = "value",
     .dt = ACL_UINT16, .sdt = I, .out_dt = ACL_UINT16, .mix_a = ACL_BOOL, .mix_b = I, .mix_out = ACL_BOOL,
     .bad_in = UNDEF, .bad_out = ACL_INT64, .bad_out_b = ACL_COMPLEX128, .np_a = UNDEF, .np_b = UNDEF},
    /* InplaceZero */
    IUROW("aclnnInplaceZero", ws_iZero, aclnnInplaceZero, ZERO, gen_any, EXACT, .mix_a = ACL_BOOL, .bad_in = UNDEF),
    IUROW("aclnnInplaceZero", ws_iZero, aclnnInplaceZero, ZERO, gen_any, EXACT, .dt = ACL_UINT16, .mix_a = BF,
          .bad_in = ACL_UINT32),
};

/* ================================================================ helpers for the value tests */

/* Runs `op` (out = f(self)) on the host values `v` of dtype `dt` into out of dtype `dout`. */
static DevTensor run_u(const Op *op, aclDataType dt, const double *v, int64_t n, aclDataType dout)
{
    int64_t s[] = {n};
    DevTensor a = mk(dt, s, 1, v), o = mk(dout, s, 1, NULL);
    Args x = {a.tensor, NULL, NULL, NULL, o.tensor};
    OP_OK(op, &x);
    dev_free(&a);
    return o;
}

/* The row of UNARY_OPS for `fn` with kind `k` (the first one). */
static const Op *row(int fn, enum Kind k)
{
    for (size_t i = 0; i < ARRAY_LEN(UNARY_OPS); i++)
        if (UNARY_OPS[i].mode == fn && UNARY_OPS[i].kind == k) return &UNARY_OPS[i];
    CHECK(!"no such row");
    return NULL;
}

/*
 * f over `v` (dtype dt) into dout: each result equals fn_of in double within `ulps` of dout
 * (0: exactly, sign of zero included), and the in-place form (if any, dt == dout) agrees.
 */
static void check_fn(int fn, aclDataType dt, aclDataType dout, const double *v, int64_t n, double ulps)
{
    const Op *op = row(fn, K_U);
    double *q = dbl(n), *got = dbl(n);
    for (int64_t i = 0; i < n; i++) q[i] = quant(dt, v[i]);
    for (int pass = 0; pass < 2; pass++) {
        DevTensor o = {0};
        if (pass == 0) {
            o = run_u(op, dt, q, n, dout);
        } else {
            const Op *ip = NULL;
            for (size_t i = 0; i < ARRAY_LEN(UNARY_OPS); i++)
                if (UNARY_OPS[i].mode == fn && UNARY_OPS[i].kind == K_IU) ip = &UNARY_OPS[i];
            if (ip == NULL || dt != dout) break;
            int64_t s[] = {n};
            o = mk(dt, s, 1, q);
            Args x = {o.tensor, NULL, NULL, NULL, NULL};
            OP_OK(ip, &x);
        }
        rd(&o, got);
        int bad = 0;
        for (int64_t i = 0; i < n; i++) {
            double want = fn_of(fn, q[i], 0);
            bool ok = ulps == 0 ? exact_match(dout, got[i], want) : ulp_match(dout, got[i], want, ulps);
            if (!ok) {
                fprintf(stderr, "    %s%s(%.17g) [dtype %d -> %d]: got %.17g, want %.17g\n", pass ? "in place " : "",
                        op->api, q[i], (int)dt, (int)dout, got[i], want);
                bad++;
            }
        }
        dev_free(&o);
        if (bad) capi_fail_cond(__FILE__, __LINE__, "special values");
    }
    free(q);
    free(got);
}
#define FN_VALUES(fn, dt, dout, ulps, ...)                                     \
    do {                                                                       \
        const double v_[] = {__VA_ARGS__};                                     \
        check_fn(fn, dt, dout, v_, (int64_t)ARRAY_LEN(v_), ulps);              \
    } while (0)

/* f over `v` (dtype dt) into an f64 out is exactly the f32 function `f32fn` of the input as f32, widened. */
static void check_in_f32(int fn, aclDataType dt, const double *v, int64_t n, float (*f32fn)(float))
{
    const Op *op = row(fn, K_U);
    DevTensor o = run_u(op, dt, v, n, D);
    double *got = dbl(n);
    rd(&o, got);
    for (int64_t i = 0; i < n; i++) {
        double want = (double)f32fn((float)quant(dt, v[i]));
        if (got[i] != want) {
            fprintf(stderr, "    %s(%.17g) [dtype %d -> f64]: got %.17g, want %.17g (computed in f32)\n", op->api,
                    v[i], (int)dt, got[i], want);
            capi_fail_cond(__FILE__, __LINE__, "computed in f32");
        }
    }
    free(got);
    dev_free(&o);
}

/* Phase 1 of `op` on a (3,) self of dtype `dt` and out of dtype `dout` must fail naming `param`. */
static void expect_dtype_err(const Op *op, aclDataType dt, aclDataType dout, const char *param)
{
    int64_t s3[] = {3};
    DevTensor a = mk(dt, s3, 1, NULL), o = mk(dout, s3, 1, NULL);
    Args x = {a.tensor, NULL, NULL, NULL, o.tensor};
    OP_ERR(op, &x, ACLNN_ERR_PARAM_INVALID, param, &o);
    dev_free(&a);
    dev_free(&o);
}

/* Complex results: each component within 2 ulp of f32 of |want| (the principal branch). */
static void check_c64(const char *what, const DevTensor *o, const double *want, int64_t n)
{
    double *got = dbl(2 * n);
    rd(o, got);
    for (int64_t k = 0; k < n; k++) {
        double m = hypot(want[2 * k], want[2 * k + 1]);
        for (int c = 0; c < 2; c++) {
            double g = got[2 * k + c], w = want[2 * k + c];
            double tol = m == 0 || isinf(m) ? 0 : 2 * ldexp(1.0, ilogb(m) - 23);
            bool ok = isnan(w) ? isnan(g) : (isinf(w) ? g == w : fabs(g - w) <= tol);
            if (!ok) {
                fprintf(stderr, "    %s[%lld].%s: got %.9g, want %.9g\n", what, (long long)k, c ? "im" : "re", g, w);
                capi_fail_cond(__FILE__, __LINE__, what);
            }
        }
    }
    free(got);
}

/* ================================================================ tests */

static void test_unary_generic(void) { run_table(UNARY_OPS, ARRAY_LEN(UNARY_OPS)); }

static void test_abs(void)
{
    FN_VALUES(ABS, F, F, 0, -0.0, 0, -INFINITY, INFINITY, NAN, -3.5, 1e-45, -FLT_MAX);
    FN_VALUES(ABS, D, D, 0, -0.0, -INFINITY, NAN, -1e308, -4.9e-324);
    FN_VALUES(ABS, BF, BF, 0, -0.0, -2.5, -INFINITY);
    /* integers: |-128| wraps to -128 in s8; bool and u8 unchanged */
    FN_VALUES(ABS, ACL_INT8, ACL_INT8, 0, -128, -127, -1, 0, 127);
    FN_VALUES(ABS, ACL_INT16, ACL_INT16, 0, -32768, -5, 32767);
    FN_VALUES(ABS, I, I, 0, -2147483648.0, -7, 2147483647.0);
    FN_VALUES(ABS, ACL_UINT8, ACL_UINT8, 0, 0, 200, 255);
    FN_VALUES(ABS, ACL_BOOL, ACL_BOOL, 0, 0, 1);
    /* complex64 -> f32 modulus */
    int64_t s4[] = {4};
    const Op *op = row(ABS, K_U);
    DevTensor c = mk(ACL_COMPLEX64, s4, 1, V(3, 4, -0.0, -0.0, INFINITY, NAN, -5, 12));
    DevTensor o = mk(F, s4, 1, NULL);
    Args x = {c.tensor, NULL, NULL, NULL, o.tensor};
    OP_OK(op, &x);
    EXPECT_T(o, 5, 0, INFINITY, 13);
    /* c64 needs an f32 out: c64, f64 and f16 outs are refused */
    expect_dtype_err(op, ACL_COMPLEX64, ACL_COMPLEX64, "out");
    expect_dtype_err(op, ACL_COMPLEX64, D, "out");
    expect_dtype_err(op, ACL_COMPLEX64, H, "out");
    /* a real self needs out of its own dtype */
    expect_dtype_err(op, ACL_INT8, ACL_INT16, "out");
    expect_dtype_err(op, F, D, "out");
    /* complex32 is no Abs dtype on Atlas A2 (CANN's A2 code list) */
    expect_dtype_err(op, ACL_COMPLEX32, H, "self");
    dev_free(&c);
    dev_free(&o);
}

static void test_neg(void)
{
    FN_VALUES(NEG, F, F, 0, 0, -0.0, INFINITY, NAN, 1e-45, -FLT_MAX);
    FN_VALUES(NEG, H, H, 0, 0, 65504, -6e-8);
    FN_VALUES(NEG, ACL_INT8, ACL_INT8, 0, -128, 127, 0, -1);
    FN_VALUES(NEG, ACL_INT64, ACL_INT64, 0, -9007199254740992.0, 5);
    /* computed in s8 (-(-128) wraps to -128), then converted to the s32 out */
    {
        DevTensor o32 = run_u(row(NEG, K_U), ACL_INT8, V(-128, 5), 2, I);
        EXPECT_T(o32, -128, -5);
        dev_free(&o32);
    }
    /* complex: both components */
    int64_t s2[] = {2};
    DevTensor c = mk(ACL_COMPLEX64, s2, 1, V(1, -2, 0, 0.5));
    DevTensor o = mk(ACL_COMPLEX64, s2, 1, NULL);
    Args x = {c.tensor, NULL, NULL, NULL, o.tensor};
    OP_OK(row(NEG, K_U), &x);
    EXPECT_T(o, -1, 2, -0.0, -0.5);
    /* in place on a complex128 tensor */
    DevTensor c2 = mk(ACL_COMPLEX128, s2, 1, V(1.5, 2.5, -3, 0));
    Args y = {c2.tensor, NULL, NULL, NULL, NULL};
    OP_OK(row(NEG, K_IU), &y);
    EXPECT_T(c2, -1.5, -2.5, 3, -0.0);
    /* f32 self into an s32 out: float -> int refused; u8 self not supported */
    expect_dtype_err(row(NEG, K_U), F, I, "out");
    expect_dtype_err(row(NEG, K_U), ACL_UINT8, ACL_UINT8, "self");
    dev_free(&c);
    dev_free(&o);
    dev_free(&c2);
}

static void test_exp(void)
{
    FN_VALUES(EXP, F, F, 2, 0, -0.0, 1, -1, 10, -10, 88, 88.8, -87, -103, -200, INFINITY, -INFINITY, NAN);
    FN_VALUES(EXP, D, D, 2, 0, 1, 700, 710, -745, -746, 1e-300);
    FN_VALUES(EXP, H, H, 2, 0, 1, 11, 12, -17, -0.5);
    FN_VALUES(EXP, BF, BF, 2, 0, 1, 88, 89, -100);
    /* bool and s64 inputs compute in f32 and need a float out */
    FN_VALUES(EXP, ACL_BOOL, F, 2, 0, 1);
    FN_VALUES(EXP, ACL_INT64, F, 2, 0, 2, -3, 80, 100);
    /* into an f64 out: still computed in f32 */
    check_in_f32(EXP, ACL_INT64, V(0, 2, -3), 3, expf);
    expect_dtype_err(row(EXP, K_U), ACL_INT64, ACL_INT64, "out");
    expect_dtype_err(row(EXP, K_U), ACL_BOOL, ACL_BOOL, "out");
    expect_dtype_err(row(EXP, K_U), ACL_BOOL, I, "out");
    /* in place: an s64 selfRef cannot hold the f32 result */
    int64_t s3[] = {3};
    DevTensor r = mk(ACL_INT64, s3, 1, V(1, 2, 3));
    Args x = {r.tensor, NULL, NULL, NULL, NULL};
    OP_ERR(row(EXP, K_IU), &x, ACLNN_ERR_PARAM_INVALID, "selfRef", NULL);
    EXPECT_T(r, 1, 2, 3);
    /* complex: exp(0 + i pi) = -1 + 0i, exp(1 + 0i) = e */
    DevTensor c = mk(ACL_COMPLEX64, s3, 1, V(0, PI, 1, 0, -1, PI / 2));
    DevTensor o = mk(ACL_COMPLEX64, s3, 1, NULL);
    Args y = {c.tensor, NULL, NULL, NULL, o.tensor};
    OP_OK(row(EXP, K_U), &y);
    const double pi_f = (double)(float)PI, half_pi_f = (double)(float)(PI / 2);
    const double want[] = {cos(pi_f), sin(pi_f), exp(1), 0, exp(-1) * cos(half_pi_f), exp(-1) * sin(half_pi_f)};
    check_c64("exp of complex64", &o, want, 3);
    dev_free(&r);
    dev_free(&c);
    dev_free(&o);
}

static void test_log(void)
{
    /* negative -> NaN, ±0 -> -inf, 1 -> +0, inf -> inf */
    FN_VALUES(LOG, F, F, 2, -1, -INFINITY, 0, -0.0, 1, INFINITY, NAN, 1e-45, FLT_MAX, 2, 0.5, 1.0000001);
    FN_VALUES(LOG, D, D, 2, -1e-300, 0, 1, 4.9e-324, 1e308, 2.718281828459045);
    FN_VALUES(LOG, H, H, 2, -2, 0, 1, 65504, 6e-8);
    FN_VALUES(LOG, I, F, 2, -5, 0, 1, 7, 2147483647.0);
    FN_VALUES(LOG, ACL_BOOL, F, 2, 0, 1);
    /* log(-1 + 0i) = 0 + i pi (principal branch), log(i) = i pi/2 */
    int64_t s2[] = {2};
    DevTensor c = mk(ACL_COMPLEX64, s2, 1, V(-1, 0, 0, 1));
    DevTensor o = mk(ACL_COMPLEX64, s2, 1, NULL);
    Args x = {c.tensor, NULL, NULL, NULL, o.tensor};
    OP_OK(row(LOG, K_U), &x);
    check_c64("log of complex64", &o, V(0, PI, 0, PI / 2), 2);
    /* a complex self needs a complex out */
    expect_dtype_err(row(LOG, K_U), ACL_COMPLEX64, F, "out");
    dev_free(&c);
    dev_free(&o);
}

static void test_sqrt_rsqrt(void)
{
    /* sqrt is correctly rounded: exact */
    FN_VALUES(SQRT, F, F, 0, -1, -0.0, 0, 2, 4, INFINITY, -INFINITY, NAN, 1e-45, FLT_MAX, 0.01);
    FN_VALUES(SQRT, D, D, 0, 2, -4, 4.9e-324, 1e308);
    FN_VALUES(SQRT, BF, BF, 2, 2, 3, -1);
    FN_VALUES(SQRT, ACL_UINT8, F, 0, 0, 2, 255);
    FN_VALUES(SQRT, ACL_INT16, H, 2, -3, 2, 32767);
    /* rsqrt: ±0 -> ±inf, inf -> 0, negative -> NaN */
    FN_VALUES(RSQRT, F, F, 2, 0, -0.0, 4, 0.25, INFINITY, -1, NAN, 2, 3, 1e-45, 1e30);
    FN_VALUES(RSQRT, D, D, 2, 0, 4, 2, 1e-300);
    FN_VALUES(RSQRT, I, F, 2, 0, 1, 4, 5, -9);
    /* sqrt(-4 + 0i) = 2i */
    int64_t s2[] = {2};
    DevTensor c = mk(ACL_COMPLEX64, s2, 1, V(-4, 0, 3, 4));
    DevTensor o = mk(ACL_COMPLEX64, s2, 1, NULL);
    Args x = {c.tensor, NULL, NULL, NULL, o.tensor};
    OP_OK(row(SQRT, K_U), &x);
    check_c64("sqrt of complex64", &o, V(0, 2, 2, 1), 2);
    dev_free(&c);
    dev_free(&o);
}

/* Integer inputs compute in f32: sin of s32 10 is sinf(10.0f); 16777217 becomes 16777216.0f. */
static void test_sin_cos(void)
{
    FN_VALUES(SIN, F, F, 2, 0, -0.0, 1, -1, 3.14159265f, 10, 1e6, 1e-30, 100000.5f, INFINITY, NAN);
    FN_VALUES(COS, F, F, 2, 0, -0.0, 1, -1, 3.14159265f, 10, 1e6, 1e-30, 100000.5f, -INFINITY, NAN);
    FN_VALUES(SIN, D, D, 2, 0, 1, 1e10, 1e-300, 3.141592653589793);
    FN_VALUES(COS, D, D, 2, 0, 1, 1e10, 1.5707963267948966);
    FN_VALUES(SIN, H, H, 2, 0, 1, 3, -100);
    FN_VALUES(COS, BF, BF, 2, 0, 1, 3, -100);
    int64_t s3[] = {3};
    const int32_t ints[] = {10, 16777217, -3};
    const float as_f32[] = {10.0f, 16777216.0f, -3.0f};
    for (int f = 0; f < 2; f++) {
        const Op *op = row(f == 0 ? SIN : COS, K_U);
        DevTensor a = dev_tensor(ints, I, s3, 1), o = mk(F, s3, 1, NULL);
        Args x = {a.tensor, NULL, NULL, NULL, o.tensor};
        OP_OK(op, &x);
        float got[3];
        dev_read(&o, got);
        for (int i = 0; i < 3; i++) {
            float want = f == 0 ? sinf(as_f32[i]) : cosf(as_f32[i]);
            if (memcmp(&got[i], &want, sizeof(float)) != 0) {
                fprintf(stderr, "    %s(s32 %d): got %.9g, want %.9g (computed in f32)\n", op->api, (int)ints[i],
                        (double)got[i], (double)want);
                capi_fail_cond(__FILE__, __LINE__, "integer input computed in f32");
            }
        }
        dev_free(&a);
        dev_free(&o);
    }
    /* bool inputs too: sin(true) = sinf(1.0f) */
    FN_VALUES(SIN, ACL_BOOL, F, 2, 0, 1);
    FN_VALUES(COS, ACL_UINT8, H, 2, 0, 200);
    /* f32 inputs compute in f32 even into an f64 out: the f32 result, widened */
    check_in_f32(SIN, F, V(10, 1e6, 0.1f), 3, sinf);
    check_in_f32(COS, I, V(10, 16777217, -3), 3, cosf);
    /* Cos names its parameter `input` */
    expect_dtype_err(row(COS, K_U), ACL_UINT16, F, "input");
    expect_dtype_err(row(COS, K_U), F, I, "out");
    /* complex: sin(i) = i sinh(1) */
    DevTensor c = mk(ACL_COMPLEX64, s3, 1, V(0, 1, 1, 0, 0, 0));
    DevTensor o = mk(ACL_COMPLEX64, s3, 1, NULL);
    Args x = {c.tensor, NULL, NULL, NULL, o.tensor};
    OP_OK(row(SIN, K_U), &x);
    check_c64("sin of complex64", &o, V(0, sinh(1), sin(1), 0, 0, 0), 3);
    dev_free(&c);
    dev_free(&o);
}

static void test_tanh_sigmoid(void)
{
    FN_VALUES(TANH, F, F, 2, 0, -0.0, 0.5, -0.5, 1e-30, 5, -9, 20, -INFINITY, INFINITY, NAN, 0.0001);
    FN_VALUES(TANH, H, H, 2, 0, 0.5, -3, 10);
    FN_VALUES(TANH, ACL_INT64, BF, 2, 0, 1, -2, 100);
    /* f64 is not a Tanh dtype, in or out */
    expect_dtype_err(row(TANH, K_U), D, D, "self");
    expect_dtype_err(row(TANH, K_U), F, D, "out");
    /* sigmoid: 0 -> 0.5, ±inf -> 1 / 0, large negative -> tiny or 0 */
    FN_VALUES(SIGMOID, F, F, 2, 0, -0.0, 1, -1, 10, -10, 30, -30, -87, -100, -200, INFINITY, -INFINITY, NAN);
    FN_VALUES(SIGMOID, H, H, 2, 0, 2, -2, 12, -12, -20);
    FN_VALUES(SIGMOID, BF, BF, 2, 0, 2, -2, 50, -50);
    expect_dtype_err(row(SIGMOID, K_U), I, F, "self");
    expect_dtype_err(row(SIGMOID, K_U), F, I, "out");
    expect_dtype_err(row(SIGMOID, K_U), D, D, "self");
    /* InplaceSigmoid also takes f64 and complex (CANN's A2 code and doc): 1/(1+e^-z) */
    int64_t s2[] = {2};
    int64_t s3[] = {3};
    DevTensor d = mk(D, s3, 1, V(0, INFINITY, -INFINITY));
    Args y = {d.tensor, NULL, NULL, NULL, NULL};
    OP_OK(row(SIGMOID, K_IU), &y);
    EXPECT_T(d, 0.5, 1, 0);
    DevTensor c = mk(ACL_COMPLEX64, s2, 1, V(0, 0, 0, PI / 2));
    Args z = {c.tensor, NULL, NULL, NULL, NULL};
    OP_OK(row(SIGMOID, K_IU), &z);
    /* 1/(1 + e^{-i pi/2}) = 1/(1 - i) = (1 + i)/2 */
    check_c64("inplace sigmoid of complex64", &c, V(0.5, 0, 0.5, 0.5), 2);
    dev_free(&d);
    dev_free(&c);
}

/* Relu: out must have self's dtype; NaN stays NaN; u8 is taken (and unchanged), as on the device. */
static void test_relu(void)
{
    FN_VALUES(RELU, F, F, 0, -1, 0, 2.5, -INFINITY, INFINITY, NAN, 1e-45, -1e-45);
    FN_VALUES(RELU, BF, BF, 0, -1, 3);
    FN_VALUES(RELU, ACL_INT8, ACL_INT8, 0, -128, 127, 0, -1);
    FN_VALUES(RELU, ACL_INT64, ACL_INT64, 0, -9.2e18, 9.2e18, 1);
    FN_VALUES(RELU, ACL_UINT8, ACL_UINT8, 0, 0, 1, 200, 255);
    const Op *op = row(RELU, K_U);
    expect_dtype_err(op, F, D, "out");
    expect_dtype_err(op, F, H, "out");
    expect_dtype_err(op, I, ACL_INT64, "out");
    expect_dtype_err(op, ACL_INT8, F, "out");
    expect_dtype_err(op, ACL_UINT8, ACL_INT8, "out");
    expect_dtype_err(op, ACL_UINT16, ACL_UINT16, "self");
    expect_dtype_err(op, D, D, "self");
}

/* Gelu (the tanh approximation) and Silu: out has self's dtype. */
static void test_gelu_silu(void)
{
    FN_VALUES(GELU, F, F, 2, 0, -0.0, 1, -1, 0.5, -0.5, 2, -2, 3, -3, 5, -5, 10, -10, 1e-20, INFINITY, NAN);
    FN_VALUES(GELU, H, H, 2, 0, 1, -1, 3, -3, 8);
    FN_VALUES(GELU, BF, BF, 2, 0, 1, -1, 3, -3, 8);
    FN_VALUES(SILU, F, F, 2, 0, -0.0, 1, -1, 0.5, -0.5, 5, -5, 20, -20, 80, -80, INFINITY, NAN);
    FN_VALUES(SILU, H, H, 2, 0, 1, -1, 6, -6, 12);
    FN_VALUES(SILU, BF, BF, 2, 0, 1, -1, 6, -6, 50);
    expect_dtype_err(row(GELU, K_U), F, H, "out");
    expect_dtype_err(row(GELU, K_U), D, D, "self");
    expect_dtype_err(row(SILU, K_U), H, F, "out");
    expect_dtype_err(row(SILU, K_U), I, I, "self");
}

/* Floor, Ceil, Round (half to even); integers unchanged; ±0, ±inf and NaN kept. */
static void test_floor_ceil_round(void)
{
    FN_VALUES(FLOOR, F, F, 0, -0.0, 0, -0.5, 0.5, -1.5, 2.7, -2.7, 8388607.5, INFINITY, -INFINITY, NAN, -1e-45);
    FN_VALUES(FLOOR, H, H, 0, -0.0, -0.25, 1023.5, -2047.5);
    FN_VALUES(FLOOR, D, D, 0, -0.0, -4503599627370495.5, 0.9999999999999999);
    FN_VALUES(FLOOR, ACL_INT64, ACL_INT64, 0, -5, 0, 7);
    FN_VALUES(FLOOR, ACL_UINT16, ACL_UINT16, 0, 0, 65535);
    FN_VALUES(FLOOR, ACL_UINT32, ACL_UINT32, 0, 0, 4294967295.0);
    FN_VALUES(CEIL, F, F, 0, -0.0, 0, -0.5, 0.2, -1.5, 2.7, -2.7, 8388607.5, INFINITY, -INFINITY, NAN, 1e-45);
    FN_VALUES(CEIL, BF, BF, 0, -0.5, 0.5, 3.5);
    FN_VALUES(ROUND, F, F, 0, 0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3.5, -0.0, 0.49999997f, 8388609, 0.5000001f,
              -0.4, INFINITY, -INFINITY, NAN);
    FN_VALUES(ROUND, D, D, 0, 0.5, 1.5, 2.5, -0.5, 4503599627370497.0, 0.49999999999999994);
    FN_VALUES(ROUND, H, H, 0, 0.5, 1.5, 2.5, -0.5, 1023.5);
    FN_VALUES(ROUND, BF, BF, 0, 0.5, 1.5, 2.5, -0.5);
    FN_VALUES(ROUND, I, I, 0, -7, 2147483647.0, 0);
    /* out has self's dtype */
    expect_dtype_err(row(FLOOR, K_U), F, D, "out");
    expect_dtype_err(row(FLOOR, K_U), I, F, "out");
    expect_dtype_err(row(CEIL, K_U), I, I, "self");
    expect_dtype_err(row(ROUND, K_U), ACL_INT16, ACL_INT16, "self");
    expect_dtype_err(row(ROUND, K_U), ACL_INT64, D, "out");
}

/* Sign: -1/0/1; ±0 and NaN keep themselves; complex z/|z|; out (named `result`) has self's dtype. */
static void test_sign(void)
{
    FN_VALUES(SIGN, F, F, 0, -0.0, 0, NAN, -INFINITY, INFINITY, 1e-45, -1e-45, -3, 3);
    FN_VALUES(SIGN, H, H, 0, -0.0, 0, -2, 6e-8);
    FN_VALUES(SIGN, D, D, 0, -0.0, 4.9e-324, -1e308);
    FN_VALUES(SIGN, I, I, 0, -2147483648.0, 0, 5);
    FN_VALUES(SIGN, ACL_INT64, ACL_INT64, 0, -9e18, 0, 9e18);
    FN_VALUES(SIGN, ACL_BOOL, ACL_BOOL, 0, 0, 1);
    int64_t s3[] = {3};
    DevTensor c = mk(ACL_COMPLEX64, s3, 1, V(3, 4, 0, 0, 0, -2));
    DevTensor o = mk(ACL_COMPLEX64, s3, 1, NULL);
    Args x = {c.tensor, NULL, NULL, NULL, o.tensor};
    OP_OK(row(SIGN, K_U), &x);
    check_c64("sign of complex64", &o, V(0.6, 0.8, 0, 0, 0, -1), 3);
    expect_dtype_err(row(SIGN, K_U), F, D, "result");
    expect_dtype_err(row(SIGN, K_U), ACL_COMPLEX64, F, "result");
    expect_dtype_err(row(SIGN, K_U), ACL_UINT8, ACL_UINT8, "self");
    dev_free(&c);
    dev_free(&o);
}

static void test_reciprocal(void)
{
    FN_VALUES(RECIPROCAL, F, F, 2, 0, -0.0, INFINITY, -INFINITY, NAN, 2, 3, -7, 1e-40, FLT_MAX);
    FN_VALUES(RECIPROCAL, D, D, 2, 0, 3, 1e-310);
    FN_VALUES(RECIPROCAL, H, H, 2, 0, 3, 1e-5);
    FN_VALUES(RECIPROCAL, I, F, 2, 0, 3, -2147483648.0);
    FN_VALUES(RECIPROCAL, ACL_BOOL, F, 2, 0, 1);
    int64_t s2[] = {2};
    DevTensor c = mk(ACL_COMPLEX64, s2, 1, V(0, 2, 3, 4));
    DevTensor o = mk(ACL_COMPLEX64, s2, 1, NULL);
    Args x = {c.tensor, NULL, NULL, NULL, o.tensor};
    OP_OK(row(RECIPROCAL, K_U), &x);
    check_c64("reciprocal of complex64", &o, V(0, -0.5, 0.12, -0.16), 2);
    expect_dtype_err(row(RECIPROCAL, K_U), F, I, "out");
    dev_free(&c);
    dev_free(&o);
}

static void test_erf_log2_exp2(void)
{
    FN_VALUES(ERF, F, F, 2, 0, -0.0, 0.5, -0.5, 1e-30, 2, -3, 4, INFINITY, -INFINITY, NAN);
    FN_VALUES(ERF, D, D, 2, 0, 0.5, -3, 1e-300);
    FN_VALUES(ERF, ACL_INT64, F, 2, -1, 0, 1, 2);
    FN_VALUES(ERF, ACL_BOOL, F, 2, 0, 1);
    /* s32/s16/s8/u8 are no Erf dtypes on Atlas A2 (CANN's code and doc) */
    expect_dtype_err(row(ERF, K_U), ACL_INT8, F, "self");
    expect_dtype_err(row(ERF, K_U), I, F, "self");
    FN_VALUES(LOG2, F, F, 2, 8, 1, 0, -0.0, -1, 0.5, 3, 1e-45, INFINITY, NAN);
    FN_VALUES(LOG2, D, D, 2, 1024, 3, 4.9e-324);
    FN_VALUES(LOG2, I, F, 2, 1, 0, -4, 7);
    FN_VALUES(EXP2, F, F, 2, 3, 0, -1, 0.5, 127, 128, -149, -150, INFINITY, -INFINITY, NAN);
    FN_VALUES(EXP2, D, D, 2, 3, 0.5, 1023, 1024, -1074);
    FN_VALUES(EXP2, ACL_INT64, H, 2, 3, 15, 16, -24, -26);
    /* complex and unsigned wide dtypes are not supported; outs must be float */
    expect_dtype_err(row(ERF, K_U), ACL_COMPLEX64, ACL_COMPLEX64, "self");
    expect_dtype_err(row(LOG2, K_U), F, ACL_COMPLEX64, "out");
    /* Log2 of complex (CANN's A2 code takes c64/c128): ln z / ln 2, principal branch */
    int64_t s3[] = {3};
    DevTensor c = mk(ACL_COMPLEX64, s3, 1, V(4, 0, -1, 0, 0, 1));
    DevTensor o = mk(ACL_COMPLEX64, s3, 1, NULL);
    Args x = {c.tensor, NULL, NULL, NULL, o.tensor};
    OP_OK(row(LOG2, K_U), &x);
    check_c64("log2 of complex64", &o, V(2, 0, 0, PI / 0.69314718055994530942, 0, PI / 2 / 0.69314718055994530942), 3);
    expect_dtype_err(row(LOG2, K_U), ACL_COMPLEX64, F, "out");
    dev_free(&c);
    dev_free(&o);
    expect_dtype_err(row(EXP2, K_U), ACL_UINT16, F, "self");
    expect_dtype_err(row(EXP2, K_U), I, I, "out");
}

/* Phase 1 of Clamp with bounds lo/hi (NULL allowed) on `a` into `o`; runs phase 2 on success. */
static aclnnStatus clamp_run(const DevTensor *a, const aclScalar *lo, const aclScalar *hi, const DevTensor *o)
{
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    aclnnStatus st = aclnnClampGetWorkspaceSize(a->tensor, lo, hi, o->tensor, &ws, &ex);
    if (st == ACLNN_SUCCESS) run_phase2(aclnnClamp, ws, ex);
    return st;
}

/* Clamp: min only, max only, both NULL refused, min > max, NaN, integer self with float bounds. */
static void test_clamp(void)
{
    int64_t s5[] = {5};
    DevTensor a = mk(F, s5, 1, V(-3, -1, 0.5, 2, NAN)), o = mk(F, s5, 1, NULL);
    aclScalar *lo = sc(F, -1.5), *hi = sc(D, 1), *hi2 = sc(F, -2);
    CHECK_OK(clamp_run(&a, lo, NULL, &o));
    EXPECT_T(o, -1.5, -1, 0.5, 2, NAN);
    CHECK_OK(clamp_run(&a, NULL, hi, &o));
    EXPECT_T(o, -3, -1, 0.5, 1, NAN);
    CHECK_OK(clamp_run(&a, lo, hi, &o));
    EXPECT_T(o, -1.5, -1, 0.5, 1, NAN);
    /* min above max: max everywhere (NaN stays NaN) */
    CHECK_OK(clamp_run(&a, lo, hi2, &o));
    EXPECT_T(o, -2, -2, -2, -2, NAN);
    /* both bounds NULL: ACLNN_ERR_PARAM_NULLPTR (aclnnClamp.md's error table) */
    EXPECT_ERR(aclnnClampGetWorkspaceSize(a.tensor, NULL, NULL, o.tensor, &ews, &eex), ACLNN_ERR_PARAM_NULLPTR,
               "aclnnClampGetWorkspaceSize", "clipValueMin", &o);
    CHECK_ERRMSG("clipValueMax");
    /* NULL self / out */
    EXPECT_ERR(aclnnClampGetWorkspaceSize(NULL, lo, hi, o.tensor, &ews, &eex), ACLNN_ERR_PARAM_NULLPTR,
               "aclnnClampGetWorkspaceSize", "self", &o);
    EXPECT_ERR(aclnnClampGetWorkspaceSize(a.tensor, lo, hi, NULL, &ews, &eex), ACLNN_ERR_PARAM_NULLPTR,
               "aclnnClampGetWorkspaceSize", "out", NULL);
    /* an unsupported bound dtype: named */
    aclScalar *u = sc(ACL_UINT16, 1);
    EXPECT_ERR(aclnnClampGetWorkspaceSize(a.tensor, u, hi, o.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnClampGetWorkspaceSize", "clipValueMin", &o);
    EXPECT_ERR(aclnnClampGetWorkspaceSize(a.tensor, lo, u, o.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnClampGetWorkspaceSize", "clipValueMax", &o);
    /* an s32 tensor with float bounds computes in f32: an f32 out works, an s32 out is refused */
    DevTensor ia = mk(I, s5, 1, V(-3, -1, 0, 2, 7)), io = mk(I, s5, 1, NULL);
    CHECK_OK(clamp_run(&ia, lo, hi, &o));
    EXPECT_T(o, -1.5, -1, 0, 1, 1);
    EXPECT_ERR(aclnnClampGetWorkspaceSize(ia.tensor, lo, hi, io.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnClampGetWorkspaceSize", "out", &io);
    /* with integer bounds it stays s32 */
    aclScalar *ilo = sc(I, -1), *ihi = sc(ACL_INT64, 1);
    CHECK_OK(clamp_run(&ia, ilo, ihi, &io));
    EXPECT_T(io, -1, -1, 0, 1, 1);
    CHECK_OK(clamp_run(&ia, NULL, ihi, &io));
    EXPECT_T(io, -3, -1, 0, 1, 1);
    /* an s32 bound on an s8 tensor: computed in s8 */
    DevTensor sa = mk(ACL_INT8, s5, 1, V(-128, -1, 0, 100, 127)), so = mk(ACL_INT8, s5, 1, NULL);
    aclScalar *b100 = sc(I, 100);
    CHECK_OK(clamp_run(&sa, NULL, b100, &so));
    EXPECT_T(so, -128, -1, 0, 100, 100);
    aclScalar *all[] = {lo, hi, hi2, u, ilo, ihi, b100};
    for (size_t k = 0; k < ARRAY_LEN(all); k++) CHECK_OK(aclDestroyScalar(all[k]));
    DevTensor *ts[] = {&a, &o, &ia, &io, &sa, &so};
    for (size_t k = 0; k < ARRAY_LEN(ts); k++) dev_free(ts[k]);
}

/* Phase 1 + 2 of InplaceFillScalar. */
static aclnnStatus fill_run(const DevTensor *t, const aclScalar *v)
{
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    aclnnStatus st = aclnnInplaceFillScalarGetWorkspaceSize(t->tensor, v, &ws, &ex);
    if (st == ACLNN_SUCCESS) run_phase2(aclnnInplaceFillScalar, ws, ex);
    return st;
}

/* Fills `t` with the scalar `v`; `t` must then hold the listed values. */
#define FILL_T(t, v, ...)                                                      \
    do {                                                                       \
        CHECK_OK(fill_run(&(t), v));                                           \
        EXPECT_T(t, __VA_ARGS__);                                              \
    } while (0)

/* InplaceFillScalar converts the value by the conversion rule; InplaceZero zeroes any dtype. */
static void test_fill_zero(void)
{
    int64_t s2[] = {2};
    DevTensor f = mk(F, s2, 1, NULL), i = mk(I, s2, 1, NULL), u = mk(ACL_UINT8, s2, 1, NULL);
    DevTensor b = mk(ACL_BOOL, s2, 1, NULL), c = mk(ACL_COMPLEX64, s2, 1, NULL), h = mk(H, s2, 1, NULL);
    aclScalar *v25 = sc(D, -2.5), *v300 = sc(D, 300), *i300 = sc(I, 300), *vnan = sc(F, NAN);
    aclScalar *big = sc(D, 1e10), *tiny = sc(D, 1e-10), *cx = mks(ACL_COMPLEX64, 1, 2);
    FILL_T(f, v25, -2.5, -2.5);
    /* float -> int truncates toward zero and saturates; NaN -> 0; int -> int wraps */
    FILL_T(i, v25, -2, -2);
    FILL_T(i, big, 2147483647.0, 2147483647.0);
    FILL_T(i, vnan, 0, 0);
    FILL_T(u, v300, 255, 255);
    FILL_T(u, v25, 0, 0);
    FILL_T(u, i300, 44, 44);
    /* x -> bool is x != 0 */
    FILL_T(b, tiny, 1, 1);
    FILL_T(b, vnan, 1, 1);
    /* f64 -> f16 rounds, overflowing to inf */
    FILL_T(h, big, INFINITY, INFINITY);
    /* real -> complex is (x, 0); a complex value fills a complex tensor */
    FILL_T(c, v25, -2.5, 0, -2.5, 0);
    FILL_T(c, cx, 1, 2, 1, 2);
    /* complex -> real refused, selfRef untouched */
    EXPECT_ERR(aclnnInplaceFillScalarGetWorkspaceSize(f.tensor, cx, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnInplaceFillScalarGetWorkspaceSize", "selfRef", &f);
    EXPECT_ERR(aclnnInplaceFillScalarGetWorkspaceSize(f.tensor, NULL, &ews, &eex), ACLNN_ERR_PARAM_NULLPTR,
               "aclnnInplaceFillScalarGetWorkspaceSize", "value", &f);
    EXPECT_ERR(aclnnInplaceFillScalarGetWorkspaceSize(NULL, v25, &ews, &eex), ACLNN_ERR_PARAM_NULLPTR,
               "aclnnInplaceFillScalarGetWorkspaceSize", "selfRef", NULL);
    /* InplaceZero: every dtype, complex both parts */
    dev_write(&c, (const float[]){1, 2, 3, 4});
    RUN2(aclnnInplaceZeroGetWorkspaceSize(c.tensor, &ews, &eex), aclnnInplaceZero);
    EXPECT_T(c, 0, 0, 0, 0);
    dev_fill_bytes(&b, 0x01);
    RUN2(aclnnInplaceZeroGetWorkspaceSize(b.tensor, &ews, &eex), aclnnInplaceZero);
    EXPECT_T(b, 0, 0);
    dev_fill_bytes(&f, 0xFF); /* NaNs */
    RUN2(aclnnInplaceZeroGetWorkspaceSize(f.tensor, &ews, &eex), aclnnInplaceZero);
    EXPECT_T(f, 0, 0);
    EXPECT_ERR(aclnnInplaceZeroGetWorkspaceSize(NULL, &ews, &eex), ACLNN_ERR_PARAM_NULLPTR,
               "aclnnInplaceZeroGetWorkspaceSize", "selfRef", NULL);
    /* InplaceZero takes no u32/u64 (CANN's A2 list) */
    DevTensor w = mk(ACL_UINT64, s2, 1, NULL);
    EXPECT_ERR(aclnnInplaceZeroGetWorkspaceSize(w.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnInplaceZeroGetWorkspaceSize", "selfRef", &w);
    dev_free(&w);
    /* complex32 is no dtype of these operators */
    DevTensor c32 = mk(ACL_COMPLEX32, s2, 1, NULL);
    EXPECT_ERR(aclnnInplaceZeroGetWorkspaceSize(c32.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnInplaceZeroGetWorkspaceSize", "selfRef", &c32);
    EXPECT_ERR(aclnnInplaceFillScalarGetWorkspaceSize(c32.tensor, v25, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnInplaceFillScalarGetWorkspaceSize", "selfRef", &c32);
    aclScalar *all[] = {v25, v300, i300, vnan, big, tiny, cx};
    for (size_t k = 0; k < ARRAY_LEN(all); k++) CHECK_OK(aclDestroyScalar(all[k]));
    DevTensor *ts[] = {&f, &i, &u, &b, &c, &h, &c32};
    for (size_t k = 0; k < ARRAY_LEN(ts); k++) dev_free(ts[k]);
}

int main(void)
{
    device_init();
    RUN_TEST(test_unary_generic);
    RUN_TEST(test_abs);
    RUN_TEST(test_neg);
    RUN_TEST(test_exp);
    RUN_TEST(test_log);
    RUN_TEST(test_sqrt_rsqrt);
    RUN_TEST(test_sin_cos);
    RUN_TEST(test_tanh_sigmoid);
    RUN_TEST(test_relu);
    RUN_TEST(test_gelu_silu);
    RUN_TEST(test_floor_ceil_round);
    RUN_TEST(test_sign);
    RUN_TEST(test_reciprocal);
    RUN_TEST(test_erf_log2_exp2);
    RUN_TEST(test_clamp);
    RUN_TEST(test_fill_zero);
    device_teardown();
    return capi_finish();
}
