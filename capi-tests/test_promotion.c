/*
 * Every cell of the SEMANTICS section 4 promotion table, through aclnnAdd, for the twelve
 * dtypes Add accepts. For each pair (self dtype, other dtype) the computation dtype P is
 * observed two ways:
 *   - which out dtypes phase 1 accepts (s64 iff P is an integer or bool, bool iff P is bool,
 *     f64 iff P is real, c128 iff P is complex: SEMANTICS section 5);
 *   - the values: inputs chosen so that the width and precision of P show in the result
 *     (1 + 2^-9 / 2^-12 / 2^-30 / 2^-60, max + max, min + min, 2049 + 2049 ...), emulated
 *     here in P and compared exactly.
 */
#include "common.h"

#include <float.h>
#include <math.h>

typedef enum { K_BOOL, K_INT, K_UINT, K_FLOAT, K_COMPLEX } Kind;

typedef struct {
    aclDataType dt;
    const char *name;
    Kind kind;
    int bits; /* integer width; for floats/complex: which float (16 = f16, 17 = bf16, 32, 64) */
} DType;

enum { F32, F16, F64, BF16, S8, U8, S16, S32, S64, C64, C128, BOOL_, NDT };

static const DType DT[NDT] = {
    [F32] = {ACL_FLOAT, "f32", K_FLOAT, 32},      [F16] = {ACL_FLOAT16, "f16", K_FLOAT, 16},
    [F64] = {ACL_DOUBLE, "f64", K_FLOAT, 64},     [BF16] = {ACL_BF16, "bf16", K_FLOAT, 17},
    [S8] = {ACL_INT8, "s8", K_INT, 8},            [U8] = {ACL_UINT8, "u8", K_UINT, 8},
    [S16] = {ACL_INT16, "s16", K_INT, 16},        [S32] = {ACL_INT32, "s32", K_INT, 32},
    [S64] = {ACL_INT64, "s64", K_INT, 64},        [C64] = {ACL_COMPLEX64, "c64", K_COMPLEX, 32},
    [C128] = {ACL_COMPLEX128, "c128", K_COMPLEX, 64}, [BOOL_] = {ACL_BOOL, "bool", K_BOOL, 1},
};

/* SEMANTICS section 4 (the c32 row/column left out: Add does not take c32). */
static const int TABLE[11][11] = {
    /*          f32   f16   f64   bf16  s8    u8    s16   s32   s64   c64   c128 */
    /* f32  */ {F32, F32, F64, F32, F32, F32, F32, F32, F32, C64, C128},
    /* f16  */ {F32, F16, F64, F32, F16, F16, F16, F16, F16, C64, C128},
    /* f64  */ {F64, F64, F64, F64, F64, F64, F64, F64, F64, C64, C128},
    /* bf16 */ {F32, F32, F64, BF16, BF16, BF16, BF16, BF16, BF16, C64, C128},
    /* s8   */ {F32, F16, F64, BF16, S8, S16, S16, S32, S64, C64, C128},
    /* u8   */ {F32, F16, F64, BF16, S16, U8, S16, S32, S64, C64, C128},
    /* s16  */ {F32, F16, F64, BF16, S16, S16, S16, S32, S64, C64, C128},
    /* s32  */ {F32, F16, F64, BF16, S32, S32, S32, S32, S64, C64, C128},
    /* s64  */ {F32, F16, F64, BF16, S64, S64, S64, S64, S64, C64, C128},
    /* c64  */ {C64, C64, C64, C64, C64, C64, C64, C64, C64, C64, C128},
    /* c128 */ {C128, C128, C128, C128, C128, C128, C128, C128, C128, C128, C128},
};

static int promote(int a, int b)
{
    if (a == BOOL_) return b;
    if (b == BOOL_) return a;
    return TABLE[a][b];
}

#define NV 8

/* ---------------------------------------------------------------- rounding to a float type */

static double round_to(double v, int fbits)
{
    if (isnan(v) || isinf(v)) return v;
    switch (fbits) {
    case 64:
        return v;
    case 32:
        return (double)(float)v;
    case 16:
        return (double)f16_to_f32(f32_to_f16((float)v));
    case 17:
        return (double)bf16_to_f32(f32_to_bf16((float)v));
    default:
        return v;
    }
}

static double float_max(int fbits)
{
    switch (fbits) {
    case 16:
        return 65504.0;
    case 17:
        return (double)bf16_to_f32(0x7F7Fu);
    case 32:
        return (double)FLT_MAX;
    default:
        return DBL_MAX;
    }
}

/* ---------------------------------------------------------------- input values */

/* One input element: its exact value (re, im) for floats/complex, or i for ints/bool. */
typedef struct {
    double re, im;
    int64_t i;
} Val;

static int64_t int_max(const DType *d)
{
    if (d->kind == K_UINT) return (int64_t)((1ull << d->bits) - 1);
    return d->bits == 64 ? INT64_MAX : (int64_t)((1ull << (d->bits - 1)) - 1);
}

static int64_t int_min(const DType *d)
{
    if (d->kind == K_UINT) return 0;
    return d->bits == 64 ? INT64_MIN : -(int64_t)(1ull << (d->bits - 1));
}

/* role 0 = self, 1 = other */
static Val value(int t, int role, int idx)
{
    const DType *d = &DT[t];
    Val v = {0, 0, 0};
    if (d->kind == K_BOOL) {
        static const int self_b[NV] = {1, 1, 1, 1, 1, 0, 1, 1};
        static const int other_b[NV] = {0, 0, 0, 0, 1, 0, 1, 1};
        v.i = role ? other_b[idx] : self_b[idx];
        return v;
    }
    if (d->kind == K_INT || d->kind == K_UINT) {
        static const int64_t self_i[NV] = {1, 1, 1, 1, 0, 0, 2049, 3};
        static const int64_t other_i[NV] = {0, 0, 0, 0, 0, 0, 2049, -1};
        v.i = role ? other_i[idx] : self_i[idx];
        if (idx == 4) v.i = int_max(d);
        if (idx == 5) v.i = int_min(d);
        if (d->bits == 8 && idx == 6) v.i = 100;
        if (d->kind == K_UINT && v.i < 0) v.i = 1;
        return v;
    }
    /* float / complex: component type */
    int fb = d->bits;
    double mx = float_max(fb);
    static const double self_f[NV] = {1, 1, 1, 1, 0, 0, 2049, 3};
    const double other_f[NV] = {ldexp(1, -9), ldexp(1, -12), ldexp(1, -30), ldexp(1, -60), 0, 0, 2049, -1};
    double x = role ? other_f[idx] : self_f[idx];
    if (idx == 4) x = mx;
    if (idx == 5) x = -mx;
    v.re = round_to(x, fb);
    if (d->kind == K_COMPLEX) v.im = round_to(idx == 4 ? -mx / 2 : (idx == 5 ? mx / 2 : -x / 2), fb);
    return v;
}

/* Writes element `idx` of dtype t into `buf`. */
static void store(int t, void *buf, int idx, Val v)
{
    switch (t) {
    case F32:
        ((float *)buf)[idx] = (float)v.re;
        break;
    case F64:
        ((double *)buf)[idx] = v.re;
        break;
    case F16:
        ((uint16_t *)buf)[idx] = f32_to_f16((float)v.re);
        break;
    case BF16:
        ((uint16_t *)buf)[idx] = f32_to_bf16((float)v.re);
        break;
    case S8:
        ((int8_t *)buf)[idx] = (int8_t)v.i;
        break;
    case U8:
        ((uint8_t *)buf)[idx] = (uint8_t)v.i;
        break;
    case S16:
        ((int16_t *)buf)[idx] = (int16_t)v.i;
        break;
    case S32:
        ((int32_t *)buf)[idx] = (int32_t)v.i;
        break;
    case S64:
        ((int64_t *)buf)[idx] = v.i;
        break;
    case BOOL_:
        ((uint8_t *)buf)[idx] = (uint8_t)(v.i != 0);
        break;
    case C64:
        ((float *)buf)[2 * idx] = (float)v.re;
        ((float *)buf)[2 * idx + 1] = (float)v.im;
        break;
    case C128:
        ((double *)buf)[2 * idx] = v.re;
        ((double *)buf)[2 * idx + 1] = v.im;
        break;
    default:
        CHECK(0);
    }
}

/* ---------------------------------------------------------------- emulation in P */

/* The value of input element `v` (dtype t) converted to float type fb (real part, im part). */
static void to_float(int t, Val v, int fb, double *re, double *im)
{
    const DType *d = &DT[t];
    if (d->kind == K_BOOL || d->kind == K_INT || d->kind == K_UINT) {
        /* int -> float, round to nearest even (via long double: exact for every int64) */
        long double li = (long double)v.i;
        double dv = (double)li; /* one rounding to double ... */
        if (fb != 64) dv = (double)(float)li; /* ... or to float, then to f16/bf16 */
        *re = round_to(dv, fb);
        *im = 0;
        return;
    }
    *re = round_to(v.re, fb);
    *im = round_to(v.im, fb);
}

static int64_t wrap_int(uint64_t u, const DType *p)
{
    if (p->bits == 64) return (int64_t)u;
    uint64_t mask = (1ull << p->bits) - 1;
    u &= mask;
    if (p->kind == K_INT && (u >> (p->bits - 1)) & 1) return (int64_t)(u | ~mask);
    return (int64_t)u;
}

typedef struct {
    double re, im;
    int64_t i;
} Out;

static Out emulate(int ta, Val a, int tb, Val b, int p)
{
    const DType *pd = &DT[p];
    Out o = {0, 0, 0};
    if (pd->kind == K_BOOL) {
        o.i = (a.i != 0) || (b.i != 0);
        return o;
    }
    if (pd->kind == K_INT || pd->kind == K_UINT) {
        o.i = wrap_int((uint64_t)a.i + (uint64_t)b.i, pd);
        return o;
    }
    double ar, ai, br, bi;
    to_float(ta, a, pd->bits, &ar, &ai);
    to_float(tb, b, pd->bits, &br, &bi);
    o.re = round_to(ar + br, pd->bits);
    o.im = round_to(ai + bi, pd->bits);
    return o;
}

/* ---------------------------------------------------------------- the test */

static aclScalar *alpha_for(int p)
{
    if (DT[p].kind == K_COMPLEX) {
        float one[2] = {1.0f, 0.0f};
        aclScalar *s = aclCreateScalar(one, ACL_COMPLEX64);
        CHECK(s != NULL);
        return s;
    }
    return scalar_bool(true); /* bool converts to every real dtype */
}

static int g_cells = 0;

static void check_pair(int ta, int tb)
{
    int p = promote(ta, tb);
    const DType *pd = &DT[p];
    int64_t shape[] = {NV};
    unsigned char abuf[NV * 16], bbuf[NV * 16];
    Val av[NV], bv[NV];
    for (int i = 0; i < NV; i++) {
        av[i] = value(ta, 0, i);
        bv[i] = value(tb, 1, i);
        store(ta, abuf, i, av[i]);
        store(tb, bbuf, i, bv[i]);
    }
    DevTensor A = dev_tensor(abuf, DT[ta].dt, shape, 1);
    DevTensor B = dev_tensor(bbuf, DT[tb].dt, shape, 1);
    aclScalar *alpha = alpha_for(p);

    /* out-dtype probes */
    const aclDataType probe_dt[] = {ACL_INT64, ACL_BOOL, ACL_DOUBLE, ACL_COMPLEX128};
    const bool probe_ok[] = {pd->kind == K_INT || pd->kind == K_UINT || pd->kind == K_BOOL, pd->kind == K_BOOL,
                             pd->kind != K_COMPLEX, pd->kind == K_COMPLEX};
    for (int k = 0; k < 4; k++) {
        DevTensor O = dev_tensor(NULL, probe_dt[k], shape, 1);
        uint64_t ws = 0;
        aclOpExecutor *ex = NULL;
        aclnnStatus st = aclnnAddGetWorkspaceSize(A.tensor, B.tensor, alpha, O.tensor, &ws, &ex);
        bool ok = st == ACLNN_SUCCESS;
        if (ok != probe_ok[k]) {
            fprintf(stderr, "%s + %s (expected computation dtype %s): out dtype %d %s (status %d: %s)\n",
                    DT[ta].name, DT[tb].name, pd->name, (int)probe_dt[k], ok ? "accepted" : "refused", st,
                    errmsg());
        }
        CHECK(ok == probe_ok[k]);
        if (ok) run_phase2(aclnnAdd, ws, ex);
        dev_free(&O);
    }

    /* values */
    aclDataType out_dt = pd->kind == K_COMPLEX ? ACL_COMPLEX128 : (pd->kind == K_FLOAT ? ACL_DOUBLE : ACL_INT64);
    DevTensor O = dev_tensor(NULL, out_dt, shape, 1);
    CHECK_OK(add_run(A.tensor, B.tensor, alpha, O.tensor));
    unsigned char obuf[NV * 16];
    dev_read(&O, obuf);
    bool pair_ok = true;
    for (int i = 0; i < NV; i++) {
        Out want = emulate(ta, av[i], tb, bv[i], p);
        bool same;
        double gr = 0, gi = 0;
        int64_t gint = 0;
        if (out_dt == ACL_INT64) {
            gint = ((int64_t *)obuf)[i];
            same = gint == want.i;
        } else if (out_dt == ACL_DOUBLE) {
            gr = ((double *)obuf)[i];
            same = gr == want.re || (isnan(gr) && isnan(want.re));
        } else {
            gr = ((double *)obuf)[2 * i];
            gi = ((double *)obuf)[2 * i + 1];
            same = (gr == want.re || (isnan(gr) && isnan(want.re))) && (gi == want.im || (isnan(gi) && isnan(want.im)));
        }
        if (!same) {
            fprintf(stderr, "%s + %s computed in %s: element %d: got (%.17g, %.17g | %lld), want (%.17g, %.17g | %lld)\n",
                    DT[ta].name, DT[tb].name, pd->name, i, gr, gi, (long long)gint, want.re, want.im,
                    (long long)want.i);
        }
        pair_ok = pair_ok && same;
    }
    CHECK(pair_ok);
    dev_free(&O);
    CHECK_OK(aclDestroyScalar(alpha));
    dev_free(&A);
    dev_free(&B);
    g_cells++;
}

static void test_table_symmetric(void)
{
    for (int a = 0; a < NDT; a++)
        for (int b = 0; b < NDT; b++) CHECK(promote(a, b) == promote(b, a));
}

static void test_every_cell(void)
{
    for (int a = 0; a < NDT; a++)
        for (int b = 0; b < NDT; b++) check_pair(a, b);
    printf("    %d dtype pairs checked\n", g_cells);
    CHECK(g_cells == NDT * NDT);
}

/* An empty pair still follows the table: refused casts are refused even with nothing to compute. */
static void test_empty_tensors_follow_the_table(void)
{
    int64_t shape[] = {0};
    DevTensor A = dev_tensor(NULL, ACL_FLOAT, shape, 1);
    DevTensor B = dev_tensor(NULL, ACL_INT32, shape, 1);
    DevTensor O = dev_tensor(NULL, ACL_INT32, shape, 1);
    aclScalar *alpha = scalar_f32(1.0f);
    CHECK_STATUS(add_run(A.tensor, B.tensor, alpha, O.tensor), ACLNN_ERR_PARAM_INVALID);
    CHECK_OK(aclDestroyScalar(alpha));
    dev_free(&A);
    dev_free(&B);
    dev_free(&O);
}

/* aclnnAdds phase 1 + 2 with `other` scalar and `alpha`; returns the phase-1 status. */
static aclnnStatus adds_run(const aclTensor *self, const aclScalar *other, const aclScalar *alpha, aclTensor *out)
{
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    aclnnStatus st = aclnnAddsGetWorkspaceSize(self, other, alpha, out, &ws, &ex);
    if (st == ACLNN_SUCCESS) run_phase2(aclnnAdds, ws, ex);
    return st;
}

/*
 * The TensorScalar relation (SEMANTICS section 4, reference section 5.0): a float tensor
 * keeps its dtype; an integer tensor keeps its dtype for an integer/bool scalar and becomes
 * f32 for a float scalar; complex follows the tensor-tensor table.
 */
static void test_tensor_scalar_relation(void)
{
    int64_t s2[] = {2}, s1[] = {1};
    /* s32 tensor + f64 scalar: computed in f32 (not f64), so 16777217 becomes 16777216 */
    {
        int32_t a[] = {16777217, 1};
        DevTensor t = dev_tensor(a, ACL_INT32, s2, 1);
        DevTensor o64 = dev_tensor(NULL, ACL_DOUBLE, s2, 1);
        DevTensor o32 = dev_tensor(NULL, ACL_INT32, s2, 1);
        aclScalar *other = scalar_f64(0.5);
        aclScalar *alpha = scalar_f32(1.0f);
        CHECK_OK(adds_run(t.tensor, other, alpha, o64.tensor));
        double got[2];
        dev_read(&o64, got);
        CHECK(got[0] == 16777216.0);
        CHECK(got[1] == 1.5);
        CHECK_STATUS(adds_run(t.tensor, other, alpha, o32.tensor), ACLNN_ERR_PARAM_INVALID); /* f32 -> s32 */
        CHECK_OK(aclDestroyScalar(other));
        CHECK_OK(aclDestroyScalar(alpha));
        dev_free(&t);
        dev_free(&o64);
        dev_free(&o32);
    }
    /* u8 tensor + s32 scalar: stays u8 (250 + 10 wraps to 4) */
    {
        uint8_t a[] = {250, 1};
        DevTensor t = dev_tensor(a, ACL_UINT8, s2, 1);
        DevTensor o = dev_tensor(NULL, ACL_INT64, s2, 1);
        aclScalar *other = scalar_i32(10);
        aclScalar *alpha = scalar_i32(1);
        CHECK_OK(adds_run(t.tensor, other, alpha, o.tensor));
        int64_t got[2];
        dev_read(&o, got);
        CHECK(got[0] == 4 && got[1] == 11);
        CHECK_OK(aclDestroyScalar(other));
        CHECK_OK(aclDestroyScalar(alpha));
        dev_free(&t);
        dev_free(&o);
    }
    /* s32 tensor + bool scalar: stays s32 (out bool refused) */
    {
        int32_t a[] = {5, -5};
        DevTensor t = dev_tensor(a, ACL_INT32, s2, 1);
        DevTensor o = dev_tensor(NULL, ACL_INT32, s2, 1);
        DevTensor ob = dev_tensor(NULL, ACL_BOOL, s2, 1);
        aclScalar *other = scalar_bool(true);
        aclScalar *alpha = scalar_i32(2);
        CHECK_OK(adds_run(t.tensor, other, alpha, o.tensor));
        int32_t got[2];
        dev_read(&o, got);
        CHECK(got[0] == 7 && got[1] == -3);
        CHECK_STATUS(adds_run(t.tensor, other, alpha, ob.tensor), ACLNN_ERR_PARAM_INVALID);
        CHECK_OK(aclDestroyScalar(other));
        CHECK_OK(aclDestroyScalar(alpha));
        dev_free(&t);
        dev_free(&o);
        dev_free(&ob);
    }
    /* f16 tensor + f64 scalar: stays f16 (1 + 2^-12 rounds to 1) */
    {
        uint16_t a[] = {f32_to_f16(1.0f), f32_to_f16(2.0f)};
        DevTensor t = dev_tensor(a, ACL_FLOAT16, s2, 1);
        DevTensor o = dev_tensor(NULL, ACL_FLOAT16, s2, 1);
        DevTensor oi = dev_tensor(NULL, ACL_INT64, s2, 1);
        aclScalar *other = scalar_f64(ldexp(1.0, -12));
        aclScalar *alpha = scalar_f32(1.0f);
        CHECK_OK(adds_run(t.tensor, other, alpha, o.tensor));
        uint16_t got[2];
        dev_read(&o, got);
        CHECK(got[0] == f32_to_f16(1.0f) && got[1] == f32_to_f16(2.0f));
        CHECK_STATUS(adds_run(t.tensor, other, alpha, oi.tensor), ACLNN_ERR_PARAM_INVALID); /* f16 -> s64 */
        CHECK_OK(aclDestroyScalar(other));
        CHECK_OK(aclDestroyScalar(alpha));
        dev_free(&t);
        dev_free(&o);
        dev_free(&oi);
    }
    /* f64 tensor + f32 scalar: f64 */
    {
        double a[] = {1.0};
        DevTensor t = dev_tensor(a, ACL_DOUBLE, s1, 1);
        DevTensor o = dev_tensor(NULL, ACL_DOUBLE, s1, 1);
        aclScalar *other = scalar_f32(ldexpf(1.0f, -30));
        aclScalar *alpha = scalar_f32(1.0f);
        CHECK_OK(adds_run(t.tensor, other, alpha, o.tensor));
        double got;
        dev_read(&o, &got);
        CHECK(got == 1.0 + ldexp(1.0, -30));
        CHECK_OK(aclDestroyScalar(other));
        CHECK_OK(aclDestroyScalar(alpha));
        dev_free(&t);
        dev_free(&o);
    }
    /* f32 tensor + c64 scalar: c64 (out f32 refused) */
    {
        float a[] = {1.0f, 2.0f};
        float c[2] = {0.5f, -2.0f};
        DevTensor t = dev_tensor(a, ACL_FLOAT, s2, 1);
        DevTensor o = dev_tensor(NULL, ACL_COMPLEX64, s2, 1);
        DevTensor of = dev_tensor(NULL, ACL_FLOAT, s2, 1);
        aclScalar *other = aclCreateScalar(c, ACL_COMPLEX64);
        CHECK(other != NULL);
        float one[2] = {1.0f, 0.0f};
        aclScalar *alpha = aclCreateScalar(one, ACL_COMPLEX64);
        CHECK(alpha != NULL);
        CHECK_OK(adds_run(t.tensor, other, alpha, o.tensor));
        float got[4];
        dev_read(&o, got);
        CHECK(got[0] == 1.5f && got[1] == -2.0f && got[2] == 2.5f && got[3] == -2.0f);
        CHECK_STATUS(adds_run(t.tensor, other, alpha, of.tensor), ACLNN_ERR_PARAM_INVALID);
        CHECK_OK(aclDestroyScalar(other));
        CHECK_OK(aclDestroyScalar(alpha));
        dev_free(&t);
        dev_free(&o);
        dev_free(&of);
    }
    /* bool tensor + bool scalar: bool */
    {
        bool a[] = {false, true};
        DevTensor t = dev_tensor(a, ACL_BOOL, s2, 1);
        DevTensor o = dev_tensor(NULL, ACL_BOOL, s2, 1);
        aclScalar *other = scalar_bool(false);
        aclScalar *alpha = scalar_bool(true);
        CHECK_OK(adds_run(t.tensor, other, alpha, o.tensor));
        uint8_t got[2];
        dev_read(&o, got);
        CHECK(got[0] == 0 && got[1] == 1);
        CHECK_OK(aclDestroyScalar(other));
        CHECK_OK(aclDestroyScalar(alpha));
        dev_free(&t);
        dev_free(&o);
    }
}

int main(void)
{
    device_init();
    RUN_TEST(test_table_symmetric);
    RUN_TEST(test_every_cell);
    RUN_TEST(test_empty_tensors_follow_the_table);
    RUN_TEST(test_tensor_scalar_relation);
    device_teardown();
    return capi_finish();
}
