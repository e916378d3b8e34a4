/*
 * Cast and InplaceCopy (reference 5.3; the conversion rule of src/element.rs, restated in
 * aclnn_cast.h and src/ops/copy.rs): float -> int truncates toward zero and saturates (NaN -> 0),
 * int -> int wraps, int -> float and float -> float round once to nearest even (overflow ->
 * ±inf), bool -> x is 0/1, x -> bool is x != 0 (complex: either component), real -> complex is
 * (x, 0), complex -> real keeps the real part (Cast only; InplaceCopy refuses it).
 *
 * The dtype x dtype matrix of the Cast list runs on edge values; the expected bytes come from
 * the reference conversion below (exact integer arithmetic and correct rounding, never the
 * library). Both operators also run through the table-driven cases of ops_common.
 */
#include "ops_common.h"

#include "aclnnop/aclnn_cast.h"
#include "aclnnop/aclnn_copy.h"

/* ================================================================ the reference conversion */

/* Every dtype of the Cast list. */
static const aclDataType CAST_LIST[] = {ACL_FLOAT16, ACL_FLOAT, ACL_DOUBLE, ACL_INT8,   ACL_UINT8,
                                        ACL_INT16,   ACL_UINT16, ACL_INT32, ACL_UINT32, ACL_INT64,
                                        ACL_UINT64,  ACL_BOOL,  ACL_COMPLEX64, ACL_COMPLEX128, ACL_BF16};

static const char *dt_name(aclDataType dt)
{
    switch ((int)dt) {
    case ACL_FLOAT16: return "f16";
    case ACL_FLOAT: return "f32";
    case ACL_DOUBLE: return "f64";
    case ACL_BF16: return "bf16";
    case ACL_INT8: return "s8";
    case ACL_UINT8: return "u8";
    case ACL_INT16: return "s16";
    case ACL_UINT16: return "u16";
    case ACL_INT32: return "s32";
    case ACL_UINT32: return "u32";
    case ACL_INT64: return "s64";
    case ACL_UINT64: return "u64";
    case ACL_BOOL: return "bool";
    case ACL_COMPLEX64: return "c64";
    case ACL_COMPLEX128: return "c128";
    default: return "?";
    }
}

/* An exact value of any dtype: an integer (sign and magnitude), or a real/complex double. */
typedef struct {
    bool isint;
    bool neg;
    uint64_t mag;
    double re, im;
} Ex;

static Ex ex_int(bool neg, uint64_t mag)
{
    Ex e = {true, neg && mag != 0, mag, 0, 0};
    return e;
}
static Ex ex_s(int64_t v) { return v < 0 ? ex_int(true, (uint64_t)0 - (uint64_t)v) : ex_int(false, (uint64_t)v); }
static Ex ex_f(double re, double im)
{
    Ex e = {false, false, 0, re, im};
    return e;
}

static bool is_int_dt(aclDataType dt) { return is_intlike(dt) && dt != ACL_BOOL; }
static int int_bits(aclDataType dt) { return (int)dtype_size(dt) * 8; }
static bool is_signed_dt(aclDataType dt)
{
    return dt == ACL_INT8 || dt == ACL_INT16 || dt == ACL_INT32 || dt == ACL_INT64;
}
/* Significand bits (without the leading one) and exponent range of a float dtype (complex: its part). */
static void fmt_of(aclDataType dt, int *mant, int *emin, int *emax)
{
    switch ((int)dt) {
    case ACL_FLOAT16: *mant = 10, *emin = -14, *emax = 15; break;
    case ACL_BF16: *mant = 7, *emin = -126, *emax = 127; break;
    case ACL_DOUBLE:
    case ACL_COMPLEX128: *mant = 52, *emin = -1022, *emax = 1023; break;
    default: *mant = 23, *emin = -126, *emax = 127; break;
    }
}

/* x rounded to nearest even in the float format of dt (overflow -> ±inf). */
static double round_real(aclDataType dt, double x)
{
    int mant, emin, emax;
    fmt_of(dt, &mant, &emin, &emax);
    if (isnan(x) || isinf(x) || x == 0) return x;
    int e = ilogb(x);
    if (e < emin) e = emin;
    double q = ldexp(1.0, e - mant);
    double r = nearbyint(x / q) * q;
    double max = ldexp(2.0 - ldexp(1.0, -mant), emax);
    if (fabs(r) > max) return copysign(INFINITY, x);
    return r;
}

/* An integer rounded to nearest even in the float format of dt, without an intermediate double. */
static double round_int(aclDataType dt, bool neg, uint64_t mag)
{
    int mant, emin, emax;
    fmt_of(dt, &mant, &emin, &emax);
    int len = 0;
    while (len < 64 && (mag >> len) != 0) len++;
    double r;
    if (len <= mant + 1) {
        r = (double)mag; /* exact */
    } else {
        int shift = len - (mant + 1);
        uint64_t q = mag >> shift, rem = mag & ((1ull << shift) - 1), half = 1ull << (shift - 1);
        if (rem > half || (rem == half && (q & 1))) q++;
        r = ldexp((double)q, shift);
    }
    double max = ldexp(2.0 - ldexp(1.0, -mant), emax);
    if (r > max) r = INFINITY;
    return neg ? -r : r;
}

/* Writes the exactly representable real `r` as element `k` component `c` of a float/complex buffer. */
static void put_real(aclDataType dt, unsigned char *p, int64_t k, double r)
{
    put_c(dt, p, is_cplx(dt) ? 2 * k : k, r); /* representable: put_c does not round */
}

/* `v` converted to dt by the documented rule, stored as element k of `p`. */
static void convert_to(aclDataType dt, Ex v, unsigned char *p, int64_t k)
{
    size_t es = dtype_size(dt);
    if (dt == ACL_BOOL) {
        p[k] = v.isint ? v.mag != 0 : (v.re != 0 || v.im != 0);
        return;
    }
    if (is_int_dt(dt)) {
        int w = int_bits(dt);
        uint64_t bits;
        if (v.isint) {
            bits = v.neg ? (uint64_t)0 - v.mag : v.mag; /* wraps */
        } else if (isnan(v.re)) {
            bits = 0;
        } else {
            double t = trunc(v.re);
            bool sgn = is_signed_dt(dt);
            double lo = sgn ? -ldexp(1.0, w - 1) : 0, hi = sgn ? ldexp(1.0, w - 1) : ldexp(1.0, w);
            if (t <= lo) bits = sgn ? (uint64_t)1 << (w - 1) : 0; /* saturates at the minimum */
            else if (t >= hi) bits = sgn ? ((uint64_t)1 << (w - 1)) - 1 : (w == 64 ? UINT64_MAX : ((uint64_t)1 << w) - 1);
            else bits = t < 0 ? (uint64_t)0 - (uint64_t)(-t) : (uint64_t)t;
        }
        for (size_t b = 0; b < es; b++) p[k * (int64_t)es + (int64_t)b] = (unsigned char)(bits >> (8 * b));
        return;
    }
    double re = v.isint ? round_int(dt, v.neg, v.mag) : round_real(dt, v.re);
    put_real(dt, p, k, re);
    if (is_cplx(dt)) put_c(dt, p, 2 * k + 1, v.isint ? 0 : round_real(dt, v.im));
}

/* Element k of a `dt` buffer as an exact value. */
static Ex read_ex(aclDataType dt, const unsigned char *p, int64_t k)
{
    if (dt == ACL_BOOL) return ex_int(false, p[k] != 0);
    if (is_int_dt(dt)) {
        size_t es = dtype_size(dt);
        uint64_t bits = 0;
        for (size_t b = 0; b < es; b++) bits |= (uint64_t)p[k * (int64_t)es + (int64_t)b] << (8 * b);
        int w = int_bits(dt);
        if (is_signed_dt(dt) && (bits >> (w - 1)) & 1) {
            uint64_t ext = w == 64 ? bits : bits | (UINT64_MAX << w);
            return ex_int(true, (uint64_t)0 - ext);
        }
        return ex_int(false, bits);
    }
    if (is_cplx(dt)) return ex_f(get_c(dt, p, 2 * k), get_c(dt, p, 2 * k + 1));
    return ex_f(get_c(dt, p, k), 0);
}

static void print_ex(Ex v)
{
    if (v.isint) fprintf(stderr, "%s%llu", v.neg ? "-" : "", (unsigned long long)v.mag);
    else fprintf(stderr, "(%.17g, %.17g)", v.re, v.im);
}

/* ================================================================ edge values per source dtype */

static const double FLOAT_EDGES[] = {
    NAN, INFINITY, -INFINITY, -0.0, 0, 0.5, -0.5, 0.99999, -0.99999, 1.5, -2.5, 127.5, 128, -128.5, -129, 255.5,
    256, 300.7, -300.7, 32767.9, 32768, -32769, 65504, 65519.99, 65520, 70000, -70000, 2147483647.0,
    2147483648.0, -2147483649.0, 4294967295.0, 4294967296.0, 1e10, -1e10, 9.2e18, 9.3e18, -9.3e18, 1.8e19, 1.9e19,
    1e30, -1e30, 3.4e38, 3.5e38, 1e300, -1e300, 1e-5, 6e-8, 2.9e-8, 1e-40, -1e-40, 1e-300, 4.9e-324, 0.1,
    16777217, 3.0000001192092896 /* a tie between f32 neighbours of 3 */, 1.0009765625 /* f16 tie */,
    1.00390625 /* bf16 tie */};
static const int64_t INT_EDGES[] = {
    0, 1, -1, 127, 128, -128, -129, 255, 256, -256, 32767, 32768, -32769, 65535, 65536, 65519, 65520,
    2147483647, -2147483647 - 1, 2147483648LL, 4294967295LL, 4294967296LL, 16777217, 16777219,
    9007199254740993LL /* 2^53 + 1 */, 4611686018427387904LL + 18014398509481984LL + 1 /* 2^62 + 2^54 + 1 */,
    4611686018427387904LL + 274877906944LL + 1 /* 2^62 + 2^38 + 1 */, INT64_MAX, INT64_MIN};
static const double COMPLEX_EDGES[][2] = {
    {1.5, -2.5}, {NAN, 1}, {-0.0, 3}, {INFINITY, -INFINITY}, {300.7, 0}, {-1e10, 1}, {0, 0}, {0, 1}, {-0.0, -0.0},
    {65520, 1e-40}, {3.5e38, -1e300}, {2147483648.0, 5}, {-0.99, NAN}};

/* The source buffer for dtype `src` (as stored) and its element count. */
static unsigned char *edge_values(aclDataType src, int64_t *n)
{
    size_t es = dtype_size(src);
    int64_t cap = 64;
    unsigned char *p = (unsigned char *)calloc((size_t)cap, es);
    CHECK(p != NULL);
    int64_t k = 0;
    if (src == ACL_BOOL) {
        p[k++] = 0;
        p[k++] = 1;
    } else if (is_int_dt(src)) {
        for (size_t i = 0; i < ARRAY_LEN(INT_EDGES); i++) convert_to(src, ex_s(INT_EDGES[i]), p, k++);
        convert_to(src, ex_int(false, UINT64_MAX), p, k++);
        convert_to(src, ex_int(false, (uint64_t)1 << 63), p, k++);
    } else if (is_cplx(src)) {
        for (size_t i = 0; i < ARRAY_LEN(COMPLEX_EDGES); i++)
            convert_to(src, ex_f(COMPLEX_EDGES[i][0], COMPLEX_EDGES[i][1]), p, k++);
    } else {
        for (size_t i = 0; i < ARRAY_LEN(FLOAT_EDGES); i++) convert_to(src, ex_f(FLOAT_EDGES[i], 0), p, k++);
    }
    CHECK(k <= cap);
    *n = k;
    return p;
}

/* Whether the stored elements `got` and `want` of dtype dt agree (a NaN matches any NaN). */
static bool same_element(aclDataType dt, const unsigned char *got, const unsigned char *want, int64_t k)
{
    size_t es = dtype_size(dt);
    if (memcmp(got + k * (int64_t)es, want + k * (int64_t)es, es) == 0) return true;
    if (!is_flt(dt) && !is_cplx(dt)) return false;
    for (int64_t c = 0; c < comps(dt); c++) {
        double g = get_c(dt, got, k * comps(dt) + c), w = get_c(dt, want, k * comps(dt) + c);
        if (isnan(w) ? !isnan(g) : (g != w || signbit(g) != signbit(w))) return false;
    }
    return true;
}

/* ================================================================ running Cast and InplaceCopy */

static aclnnStatus cast_run(const aclTensor *self, aclDataType dtype, aclTensor *out)
{
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    aclnnStatus st = aclnnCastGetWorkspaceSize(self, dtype, out, &ws, &ex);
    if (st == ACLNN_SUCCESS) run_phase2(aclnnCast, ws, ex);
    return st;
}

static aclnnStatus copy_run(aclTensor *self_ref, const aclTensor *src)
{
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    aclnnStatus st = aclnnInplaceCopyGetWorkspaceSize(self_ref, src, &ws, &ex);
    if (st == ACLNN_SUCCESS) run_phase2(aclnnInplaceCopy, ws, ex);
    return st;
}

/*
 * Every (src, dst) pair of the Cast list on the edge values of src, by Cast (`copy` false) or
 * InplaceCopy (`copy` true: complex -> real must be refused, with selfRef untouched).
 */
static void conversion_matrix(bool copy)
{
    int bad = 0;
    for (size_t i = 0; i < ARRAY_LEN(CAST_LIST); i++) {
        aclDataType src = CAST_LIST[i];
        int64_t n;
        unsigned char *sv = edge_values(src, &n);
        int64_t shape[] = {n};
        DevTensor s = dev_tensor(sv, src, shape, 1);
        for (size_t j = 0; j < ARRAY_LEN(CAST_LIST); j++) {
            aclDataType dst = CAST_LIST[j];
            size_t es = dtype_size(dst);
            unsigned char *want = (unsigned char *)calloc((size_t)n, es);
            unsigned char *got = (unsigned char *)malloc((size_t)n * es);
            CHECK(want != NULL && got != NULL);
            for (int64_t k = 0; k < n; k++) convert_to(dst, read_ex(src, sv, k), want, k);
            DevTensor o = dev_tensor(NULL, dst, shape, 1);
            dev_fill_bytes(&o, SENT);
            if (copy && is_cplx(src) && !is_cplx(dst)) {
                CHECK_STATUS(copy_run(o.tensor, s.tensor), ACLNN_ERR_PARAM_INVALID);
                CHECK_ERRMSG("aclnnInplaceCopyGetWorkspaceSize");
                CHECK_ERRMSG("src");
                check_untouched_at(__FILE__, __LINE__, &o);
            } else {
                aclnnStatus st = copy ? copy_run(o.tensor, s.tensor) : cast_run(s.tensor, dst, o.tensor);
                if (st != ACLNN_SUCCESS) {
                    fprintf(stderr, "    %s %s -> %s refused (%d): %s\n", copy ? "InplaceCopy" : "Cast", dt_name(src),
                            dt_name(dst), (int)st, errmsg());
                    bad++;
                } else {
                    dev_read(&o, got);
                    /* valgrind emulates a 64-bit int -> f32 conversion through f64 (two roundings):
                       .ci/robust sets ACLNN_TEST_VALGRIND, and those pairs are not compared there */
                    bool emulated = getenv("ACLNN_TEST_VALGRIND") != NULL && (src == ACL_INT64 || src == ACL_UINT64) &&
                                    (dst == ACL_FLOAT || dst == ACL_COMPLEX64);
                    for (int64_t k = 0; k < n && !emulated; k++) {
                        if (same_element(dst, got, want, k)) continue;
                        if (bad++ < 30) {
                            fprintf(stderr, "    %s %s -> %s of ", copy ? "InplaceCopy" : "Cast", dt_name(src),
                                    dt_name(dst));
                            print_ex(read_ex(src, sv, k));
                            fprintf(stderr, ": got ");
                            print_ex(read_ex(dst, got, k));
                            fprintf(stderr, ", want ");
                            print_ex(read_ex(dst, want, k));
                            fprintf(stderr, "\n");
                        }
                    }
                }
            }
            dev_free(&o);
            free(want);
            free(got);
        }
        dev_free(&s);
        free(sv);
    }
    if (bad) {
        fprintf(stderr, "    %d wrong element(s) or refused pair(s)\n", bad);
        capi_fail_cond(__FILE__, __LINE__, "conversion matrix");
    }
}

/* ================================================================ table-driven forms */

/* Cast with dtype = out's dtype (so every table case is a valid call unless it tests an error). */
OP_WS_DEF(ws_cast)
{
    aclDataType d = op->out_dt;
    if (x->out != NULL && aclGetDataType(x->out, &d) != ACLNN_SUCCESS) d = op->out_dt;
    return aclnnCastGetWorkspaceSize(x->a, d, x->out, w, e);
}
OP_WS_ITT(ws_copy, InplaceCopy)
/* Cast: out = x; InplaceCopy: selfRef = src. */
static double ref_first(const Op *op, double x, double y)
{
    (void)op;
    (void)y;
    return x;
}
static double ref_second(const Op *op, double x, double y)
{
    (void)op;
    (void)x;
    return y;
}
/* Values every dtype of these cases holds (C's conversions agree with the rule on them). */
static double gen_conv(int which, int64_t i, bool integral)
{
    static const double f[] = {-2.75, -1, 0.5, 0, 3.25, 100.5, -0.0, 7};
    static const double n[] = {-3, 0, 1, 2, 100, -100, 7};
    (void)which;
    return integral ? n[(i + which) % 7] : f[(i + 3 * which) % 8];
}

#define F ACL_FLOAT
#define D ACL_DOUBLE
#define H ACL_FLOAT16
#define I ACL_INT32

#pragma GCC diagnostic ignored "-Woverride-init"
#define CAST_ROW(...)                                                                                   \
    {.api = "aclnnCastGetWorkspaceSize", .kind = K_U, .ws = ws_cast, .run = aclnnCast, .ref = ref_first,    \
     .gen = gen_conv, .match = exact_match, .pa = "self", .pb = "other", .sdt = F, .mix_b = F,              \
     .bad_in = ACL_COMPLEX32, .bad_out = UNDEF, .bad_out_b = UNDEF, .np_a = UNDEF, .np_b = UNDEF, __VA_ARGS__}
#define COPY_ROW(...)                                                                                   \
    {.api = "aclnnInplaceCopyGetWorkspaceSize", .kind = K_ITT, .ws = ws_copy, .run = aclnnInplaceCopy,      \
     .ref = ref_second, .gen = gen_conv, .match = exact_match, .pa = "selfRef", .pb = "src", .sdt = F,      \
     .bad_in = ACL_COMPLEX32, .np_a = UNDEF, .np_b = UNDEF, __VA_ARGS__}

static const Op CONV_OPS[] = {
    CAST_ROW(.dt = D, .out_dt = H, .mix_a = F, .mix_out = ACL_BF16),
    CAST_ROW(.dt = I, .out_dt = F, .mix_a = ACL_UINT8, .mix_out = ACL_INT64),
    CAST_ROW(.dt = F, .out_dt = I, .mix_a = H, .mix_out = ACL_INT64),
    CAST_ROW(.dt = ACL_BOOL, .out_dt = D, .mix_a = F, .mix_out = ACL_BOOL),
    CAST_ROW(.dt = ACL_INT16, .out_dt = ACL_INT8, .mix_a = ACL_UINT32, .mix_out = ACL_UINT16),
    COPY_ROW(.dt = F, .out_dt = F, .mix_a = F, .mix_b = I, .mix_out = F, .bad_out = F, .bad_out_b = ACL_COMPLEX64),
    COPY_ROW(.dt = ACL_INT16, .out_dt = ACL_INT16, .mix_a = ACL_INT8, .mix_b = H, .mix_out = ACL_INT8,
             .bad_out = ACL_INT16, .bad_out_b = ACL_COMPLEX128),
    COPY_ROW(.dt = D, .out_dt = D, .mix_a = ACL_BF16, .mix_b = ACL_UINT32, .mix_out = ACL_BF16, .bad_out = ACL_BOOL,
             .bad_out_b = ACL_COMPLEX64),
};

/* ================================================================ tests */

static void test_conv_generic(void) { run_table(CONV_OPS, ARRAY_LEN(CONV_OPS)); }

static void test_cast_matrix(void) { conversion_matrix(false); }

/* A few hand-checked cells of the rule, so that the matrix's reference is itself checked. */
static void test_cast_values(void)
{
    int64_t s6[] = {6};
    DevTensor f = mk(F, s6, 1, V(NAN, -0.0, INFINITY, -INFINITY, 3e9, -2.9));
    DevTensor i = mk(I, s6, 1, NULL), u = mk(ACL_UINT8, s6, 1, NULL), d = mk(D, s6, 1, NULL);
    DevTensor h = mk(H, s6, 1, NULL), b = mk(ACL_BOOL, s6, 1, NULL), c = mk(ACL_COMPLEX64, s6, 1, NULL);
    CHECK_OK(cast_run(f.tensor, I, i.tensor));
    EXPECT_T(i, 0, 0, 2147483647.0, -2147483648.0, 2147483647.0, -2);
    CHECK_OK(cast_run(f.tensor, ACL_UINT8, u.tensor));
    EXPECT_T(u, 0, 0, 255, 0, 255, 0);
    CHECK_OK(cast_run(f.tensor, D, d.tensor));
    EXPECT_T(d, NAN, -0.0, INFINITY, -INFINITY, 3e9, (double)-2.9f);
    CHECK_OK(cast_run(f.tensor, H, h.tensor));
    EXPECT_T(h, NAN, -0.0, INFINITY, -INFINITY, INFINITY, -2.900390625);
    CHECK_OK(cast_run(f.tensor, ACL_BOOL, b.tensor));
    EXPECT_T(b, 1, 0, 1, 1, 1, 1);
    CHECK_OK(cast_run(f.tensor, ACL_COMPLEX64, c.tensor));
    EXPECT_T(c, NAN, 0, -0.0, 0, INFINITY, 0, -INFINITY, 0, 3e9, 0, (double)-2.9f, 0);
    /* int wraps: s32 300 -> u8 44, -1 -> u8 255; s64 2^62 + 2^54 + 1 -> bf16 rounds up (no double rounding) */
    int64_t s3[] = {3};
    DevTensor si = mk(I, s3, 1, V(300, -1, -129)), so = mk(ACL_UINT8, s3, 1, NULL), s8 = mk(ACL_INT8, s3, 1, NULL);
    CHECK_OK(cast_run(si.tensor, ACL_UINT8, so.tensor));
    EXPECT_T(so, 44, 255, 127);
    CHECK_OK(cast_run(si.tensor, ACL_INT8, s8.tensor));
    EXPECT_T(s8, 44, -1, 127);
    const int64_t big[] = {4611686018427387904LL + 18014398509481984LL + 1};
    int64_t s1[] = {1};
    DevTensor bi = dev_tensor(big, ACL_INT64, s1, 1), bo = mk(ACL_BF16, s1, 1, NULL);
    CHECK_OK(cast_run(bi.tensor, ACL_BF16, bo.tensor));
    uint16_t bf;
    dev_read(&bo, &bf);
    CHECK(bf == f32_to_bf16(4647714815446351872.0f /* 129 * 2^55, exact in f32 */));
    /* complex -> real keeps the real part; complex -> bool: either part non-zero */
    DevTensor cz = mk(ACL_COMPLEX64, s3, 1, V(1.5, -2, 0, 1, -0.0, 0)), cr = mk(F, s3, 1, NULL);
    DevTensor cb = mk(ACL_BOOL, s3, 1, NULL);
    CHECK_OK(cast_run(cz.tensor, F, cr.tensor));
    EXPECT_T(cr, 1.5, 0, -0.0);
    CHECK_OK(cast_run(cz.tensor, ACL_BOOL, cb.tensor));
    EXPECT_T(cb, 1, 1, 0);
    DevTensor *ts[] = {&f, &i, &u, &d, &h, &b, &c, &si, &so, &s8, &bi, &bo, &cz, &cr, &cb};
    for (size_t k = 0; k < ARRAY_LEN(ts); k++) dev_free(ts[k]);
}

/* Refused: complex32 and invalid dtype values, out dtype != dtype, complex32 self, NULLs, shapes. */
static void test_cast_errors(void)
{
    int64_t s3[] = {3}, s4[] = {4};
    DevTensor a = mk(F, s3, 1, V(1, 2, 3)), o = mk(H, s3, 1, NULL), c32 = mk(ACL_COMPLEX32, s3, 1, NULL);
    DevTensor o4 = mk(H, s4, 1, NULL);
    const int bad_dtypes[] = {ACL_COMPLEX32, 5, 99, -1, 13 /* ACL_STRING */, 29 /* ACL_INT4 */};
    for (size_t k = 0; k < ARRAY_LEN(bad_dtypes); k++) {
        EXPECT_ERR(aclnnCastGetWorkspaceSize(a.tensor, (aclDataType)bad_dtypes[k], o.tensor, &ews, &eex),
                   ACLNN_ERR_PARAM_INVALID, "aclnnCastGetWorkspaceSize", "dtype", &o);
    }
    /* complex32 as dtype with a complex32 out */
    EXPECT_ERR(aclnnCastGetWorkspaceSize(a.tensor, ACL_COMPLEX32, c32.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnCastGetWorkspaceSize", "dtype", &c32);
    /* out's dtype must be dtype */
    EXPECT_ERR(aclnnCastGetWorkspaceSize(a.tensor, ACL_FLOAT, o.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnCastGetWorkspaceSize", "out", &o);
    EXPECT_ERR(aclnnCastGetWorkspaceSize(a.tensor, ACL_INT32, o.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnCastGetWorkspaceSize", "out", &o);
    /* a complex32 self */
    EXPECT_ERR(aclnnCastGetWorkspaceSize(c32.tensor, ACL_FLOAT16, o.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnCastGetWorkspaceSize", "self", &o);
    /* shapes must be equal (no broadcasting) */
    EXPECT_ERR(aclnnCastGetWorkspaceSize(a.tensor, ACL_FLOAT16, o4.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnCastGetWorkspaceSize", "out", &o4);
    /* NULLs */
    EXPECT_ERR(aclnnCastGetWorkspaceSize(NULL, ACL_FLOAT16, o.tensor, &ews, &eex), ACLNN_ERR_PARAM_NULLPTR,
               "aclnnCastGetWorkspaceSize", "self", &o);
    EXPECT_ERR(aclnnCastGetWorkspaceSize(a.tensor, ACL_FLOAT16, NULL, &ews, &eex), ACLNN_ERR_PARAM_NULLPTR,
               "aclnnCastGetWorkspaceSize", "out", NULL);
    dev_free(&a);
    dev_free(&o);
    dev_free(&c32);
    dev_free(&o4);
}

static void test_copy_matrix(void) { conversion_matrix(true); }

/* src broadcasts to selfRef's shape (never the other way). */
static void test_copy_broadcast(void)
{
    int64_t s23[] = {2, 3}, s3[] = {3}, s21[] = {2, 1}, s4[] = {4}, s1[] = {1};
    DevTensor t = mk(F, s23, 2, NULL);
    DevTensor row = mk(D, s3, 1, V(1, 2, 3)), col = mk(I, s21, 2, V(7, -8)), z = mk(H, NULL, 0, V(2.5));
    CHECK_OK(copy_run(t.tensor, row.tensor));
    EXPECT_T(t, 1, 2, 3, 1, 2, 3);
    CHECK_OK(copy_run(t.tensor, col.tensor));
    EXPECT_T(t, 7, 7, 7, -8, -8, -8);
    CHECK_OK(copy_run(t.tensor, z.tensor));
    EXPECT_T(t, 2.5, 2.5, 2.5, 2.5, 2.5, 2.5);
    DevTensor v4 = mk(ACL_INT64, s4, 1, NULL), one = mk(ACL_BOOL, s1, 1, V(1));
    CHECK_OK(copy_run(v4.tensor, one.tensor));
    EXPECT_T(v4, 1, 1, 1, 1);
    /* a (2,3) src does not go into a (3,) selfRef; (4,) does not broadcast to (2,3) */
    EXPECT_ERR(aclnnInplaceCopyGetWorkspaceSize(row.tensor, t.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnInplaceCopyGetWorkspaceSize", "src", &row);
    CHECK(errmsg_has_shape(s23, 2) && errmsg_has_shape(s3, 1));
    EXPECT_ERR(aclnnInplaceCopyGetWorkspaceSize(t.tensor, v4.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnInplaceCopyGetWorkspaceSize", "src", &t);
    DevTensor *ts[] = {&t, &row, &col, &z, &v4, &one};
    for (size_t k = 0; k < ARRAY_LEN(ts); k++) dev_free(ts[k]);
}

/* A transposed src, and the seed view (4,3) strides (20,2) offset 22 of a 10x10 storage as selfRef. */
static void test_copy_views(void)
{
    int64_t st32[] = {3, 2}, s23[] = {2, 3}, tr[] = {1, 2};
    DevTensor src = mkv(D, st32, 2, V(1, 2, 3, 4, 5, 6), s23, 2, tr, 0); /* (i,j) = storage[i + 2j] */
    DevTensor t = mk(F, s23, 2, NULL);
    CHECK_OK(copy_run(t.tensor, src.tensor));
    EXPECT_T(t, 1, 3, 5, 2, 4, 6);

    double st[100];
    for (int k = 0; k < 100; k++) st[k] = -1 - k;
    DevTensor view = mkv(F, VSTORE, 2, st, VSHAPE, 2, VSTRIDES, VOFF);
    double sv[12];
    for (int k = 0; k < 12; k++) sv[k] = 10 + k;
    int64_t s43[] = {4, 3};
    DevTensor s12 = mk(ACL_INT16, s43, 2, sv);
    CHECK_OK(copy_run(view.tensor, s12.tensor));
    double got[100];
    rd(&view, got);
    for (int64_t k = 0; k < 100; k++) {
        double want = st[k];
        for (int lin = 0; lin < 12; lin++)
            if (view_pos(lin) == k) want = sv[lin];
        if (got[k] != want) {
            fprintf(stderr, "    storage[%lld]: got %g, want %g\n", (long long)k, got[k], want);
            capi_fail_cond(__FILE__, __LINE__, "seed view as selfRef");
        }
    }
    dev_free(&src);
    dev_free(&t);
    dev_free(&view);
    dev_free(&s12);
}

/* selfRef = the view (offset so, shape n, stride ss) and src = (offset ro, stride rs) of one storage x. */
static void overlap_case(const char *what, int64_t so, int64_t ss, int64_t ro, int64_t rs, int64_t n)
{
    int64_t s10[] = {10}, sh[] = {n}, sst[] = {ss}, rst[] = {rs};
    double x[10], want[10], got[10];
    for (int k = 0; k < 10; k++) x[k] = want[k] = k;
    for (int64_t i = 0; i < n; i++) want[so + i * ss] = x[ro + i * rs]; /* from the snapshot x */
    DevTensor t = mk(F, s10, 1, x);
    aclTensor *dst = aclCreateTensor(sh, 1, F, sst, so, ACL_FORMAT_ND, s10, 1, t.dev);
    aclTensor *src = aclCreateTensor(sh, 1, F, rst, ro, ACL_FORMAT_ND, s10, 1, t.dev);
    CHECK(dst != NULL && src != NULL);
    CHECK_OK(copy_run(dst, src));
    rd(&t, got);
    for (int k = 0; k < 10; k++)
        if (got[k] != want[k]) {
            fprintf(stderr, "    %s: x[%d] = %g, want %g\n", what, k, got[k], want[k]);
            capi_fail_cond(__FILE__, __LINE__, what);
        }
    CHECK_OK(aclDestroyTensor(dst));
    CHECK_OK(aclDestroyTensor(src));
    dev_free(&t);
}

/* Overlapping src and selfRef: as if src were read completely first. */
static void test_copy_overlap(void)
{
    overlap_case("x[1:10] = x[0:9]", 1, 1, 0, 1, 9);
    overlap_case("x[0:9] = x[1:10]", 0, 1, 1, 1, 9);
    overlap_case("x[0:10:2] = x[1:6]", 0, 2, 1, 1, 5);
    overlap_case("x[1:6] = x[0:10:2]", 1, 1, 0, 2, 5);
    overlap_case("x = x", 0, 1, 0, 1, 10);
    /* a 3x3 matrix transposed in place: selfRef contiguous, src its transpose */
    int64_t s33[] = {3, 3}, tr[] = {1, 3};
    DevTensor m = mk(F, s33, 2, V(1, 2, 3, 4, 5, 6, 7, 8, 9));
    aclTensor *mt = aclCreateTensor(s33, 2, F, tr, 0, ACL_FORMAT_ND, s33, 2, m.dev);
    CHECK(mt != NULL);
    CHECK_OK(copy_run(m.tensor, mt));
    EXPECT_T(m, 1, 4, 7, 2, 5, 8, 3, 6, 9);
    CHECK_OK(aclDestroyTensor(mt));
    dev_free(&m);
}

/* complex -> real is refused (selfRef untouched); real -> complex is (x, 0); c128 -> c64 per part. */
static void test_copy_complex(void)
{
    int64_t s2[] = {2};
    DevTensor c = mk(ACL_COMPLEX64, s2, 1, V(1, 2, 3, 4)), f = mk(F, s2, 1, NULL), b = mk(ACL_BOOL, s2, 1, NULL);
    DevTensor z = mk(ACL_COMPLEX128, s2, 1, V(0.1, -0.2, 1e300, 5));
    EXPECT_ERR(aclnnInplaceCopyGetWorkspaceSize(f.tensor, c.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnInplaceCopyGetWorkspaceSize", "src", &f);
    CHECK_ERRMSG("selfRef");
    EXPECT_ERR(aclnnInplaceCopyGetWorkspaceSize(b.tensor, c.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnInplaceCopyGetWorkspaceSize", "src", &b);
    dev_write(&f, (const float[]){-1.5f, 2.5f});
    CHECK_OK(copy_run(c.tensor, f.tensor));
    EXPECT_T(c, -1.5, 0, 2.5, 0);
    CHECK_OK(copy_run(c.tensor, z.tensor));
    EXPECT_T(c, (double)0.1f, (double)-0.2f, INFINITY, 5);
    /* NULLs */
    EXPECT_ERR(aclnnInplaceCopyGetWorkspaceSize(NULL, c.tensor, &ews, &eex), ACLNN_ERR_PARAM_NULLPTR,
               "aclnnInplaceCopyGetWorkspaceSize", "selfRef", NULL);
    EXPECT_ERR(aclnnInplaceCopyGetWorkspaceSize(f.tensor, NULL, &ews, &eex), ACLNN_ERR_PARAM_NULLPTR,
               "aclnnInplaceCopyGetWorkspaceSize", "src", &f);
    dev_free(&c);
    dev_free(&f);
    dev_free(&b);
    dev_free(&z);
}

int main(void)
{
    device_init();
    RUN_TEST(test_conv_generic);
    RUN_TEST(test_cast_values);
    RUN_TEST(test_cast_matrix);
    RUN_TEST(test_cast_errors);
    RUN_TEST(test_copy_matrix);
    RUN_TEST(test_copy_broadcast);
    RUN_TEST(test_copy_views);
    RUN_TEST(test_copy_overlap);
    RUN_TEST(test_copy_complex);
    device_teardown();
    return capi_finish();
}
