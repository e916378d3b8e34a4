/*
 * SWhere (reference 5.3): out = condition ? self : other, all three broadcast together;
 * condition is bool or u8 (non-zero is true); self and other promote by the tensor-tensor table
 * and the selected value is cast to out. Covers a broadcast condition row, u8 conditions, mixed
 * self/other dtypes, refused pairs, non-contiguous inputs and output, 0-d, empty, aliasing and
 * each documented error. Expected values are computed here (ref_where), never by the library.
 */
#include "ops_common.h"

#include "aclnnop/aclnn_s_where.h"

#include <math.h>

/* ================================================================ SWhere */

#define API "aclnnSWhereGetWorkspaceSize"
#define B ACL_BOOL
#define F ACL_FLOAT

/* Both phases; returns the phase-1 status. */
static aclnnStatus where_run(const DevTensor *c, const DevTensor *s, const DevTensor *o, const DevTensor *out)
{
    uint64_t ws = 99;
    aclOpExecutor *ex = NULL;
    aclnnStatus st = aclnnSWhereGetWorkspaceSize(c->tensor, s->tensor, o->tensor, out->tensor, &ws, &ex);
    if (st != ACLNN_SUCCESS) return st;
    CHECK(ex != NULL);
    run_phase2(aclnnSWhere, ws, ex);
    return ACLNN_SUCCESS;
}

/*
 * Reference: contiguous condition/self/other of the given shapes (values cv, sv, ov),
 * broadcast together; want gets the broadcast shape's elements.
 */
static void ref_where(const double *cv, const int64_t *cs, size_t cn, const double *sv, const int64_t *ss, size_t sn,
                      const double *ov, const int64_t *os, size_t on, double *want, int64_t *shape, size_t *n)
{
    int64_t t[16];
    size_t tn = 0;
    CHECK(broadcast_shape(cs, cn, ss, sn, t, &tn));
    CHECK(broadcast_shape(t, tn, os, on, shape, n));
    int64_t total = shape_numel(shape, *n);
    for (int64_t lin = 0; lin < total; lin++) {
        bool c = cv[bidx(lin, shape, *n, cs, cn)] != 0;
        want[lin] = c ? sv[bidx(lin, shape, *n, ss, sn)] : ov[bidx(lin, shape, *n, os, on)];
    }
}

/* A condition row (3,) selects between two (2,3) tensors; then every other broadcast pattern. */
static void test_where_broadcast(void)
{
    int64_t s23[] = {2, 3}, s3[] = {3};
    DevTensor c = mk(B, s3, 1, V(1, 0, 1));
    DevTensor s = mk(F, s23, 2, V(1, 2, 3, 4, 5, 6)), o = mk(F, s23, 2, V(-1, -2, -3, -4, -5, -6));
    DevTensor out = mk(F, s23, 2, NULL);
    CHECK_OK(where_run(&c, &s, &o, &out));
    EXPECT_T(out, 1, -2, 3, 4, -5, 6);
    /* inputs untouched */
    EXPECT_T(c, 1, 0, 1);
    EXPECT_T(s, 1, 2, 3, 4, 5, 6);

    /* condition column (2,1), self row (3,), other 0-d: out (2,3) */
    int64_t s21[] = {2, 1};
    DevTensor cc = mk(B, s21, 2, V(1, 0)), sr = mk(F, s3, 1, V(7, 8, 9)), o0 = mk(F, NULL, 0, V(-0.5));
    CHECK_OK(where_run(&cc, &sr, &o0, &out));
    EXPECT_T(out, 7, 8, 9, -0.5, -0.5, -0.5);

    /* all three broadcast: condition (2,1,3), self (4,1), other (3,) -> (2,4,3) */
    int64_t cs[] = {2, 1, 3}, ss[] = {4, 1}, os[] = {3}, want_shape[] = {2, 4, 3};
    double cv[6] = {1, 0, 0, 0, 1, 1}, sv[4] = {10, 20, 30, 40}, ov[3] = {-1, -2, -3}, want[24];
    int64_t shape[8];
    size_t n = 0;
    ref_where(cv, cs, 3, sv, ss, 2, ov, os, 1, want, shape, &n);
    CHECK(n == 3 && shape[0] == 2 && shape[1] == 4 && shape[2] == 3);
    DevTensor c3 = mk(B, cs, 3, cv), s3t = mk(F, ss, 2, sv), o3 = mk(F, os, 1, ov), out3 = mk(F, want_shape, 3, NULL);
    CHECK_OK(where_run(&c3, &s3t, &o3, &out3));
    double got[24];
    rd(&out3, got);
    CHECK_VALS("(2,1,3) ? (4,1) : (3,)", F, got, want, 24);
    /* and a large, multi-chunk case: condition (1000,1) alternating, self (1000,300), other (300,) */
    int64_t lc[] = {1000, 1}, ls[] = {1000, 300}, lo[] = {300};
    double *lcv = dbl(1000), *lsv = dbl(300000), *lov = dbl(300), *lw = dbl(300000), *lg = dbl(300000);
    for (int i = 0; i < 1000; i++) lcv[i] = (i % 3) == 0;
    for (int i = 0; i < 300000; i++) lsv[i] = (double)(i % 1013);
    for (int i = 0; i < 300; i++) lov[i] = -(double)i;
    ref_where(lcv, lc, 2, lsv, ls, 2, lov, lo, 1, lw, shape, &n);
    DevTensor lct = mk(B, lc, 2, lcv), lst = mk(F, ls, 2, lsv), lot = mk(F, lo, 1, lov), lout = mk(F, ls, 2, NULL);
    CHECK_OK(where_run(&lct, &lst, &lot, &lout));
    rd(&lout, lg);
    CHECK_VALS("large broadcast", F, lg, lw, 300000);
    free(lcv);
    free(lsv);
    free(lov);
    free(lw);
    free(lg);
    DevTensor *all[] = {&c, &s, &o, &out, &cc, &sr, &o0, &c3, &s3t, &o3, &out3, &lct, &lst, &lot, &lout};
    for (size_t k = 0; k < ARRAY_LEN(all); k++) dev_free(all[k]);
}

/* A u8 condition: any non-zero byte is true. */
static void test_where_u8_condition(void)
{
    int64_t s5[] = {5};
    DevTensor c = mk(ACL_UINT8, s5, 1, V(0, 1, 2, 255, 128));
    DevTensor s = mk(ACL_INT32, s5, 1, V(1, 2, 3, 4, 5)), o = mk(ACL_INT32, s5, 1, V(-1, -2, -3, -4, -5));
    DevTensor out = mk(ACL_INT32, s5, 1, NULL);
    CHECK_OK(where_run(&c, &s, &o, &out));
    EXPECT_T(out, -1, 2, 3, 4, 5);
    /* u8 condition broadcast as a row */
    int64_t s25[] = {2, 5};
    DevTensor s2 = mk(ACL_INT32, s25, 2, V(1, 2, 3, 4, 5, 6, 7, 8, 9, 10)), out2 = mk(ACL_INT64, s25, 2, NULL);
    CHECK_OK(where_run(&c, &s2, &o, &out2));
    EXPECT_T(out2, -1, 2, 3, 4, 5, -1, 7, 8, 9, 10);
    /* a bool condition holding a non-canonical byte (2) is true as well */
    DevTensor cb = mk(B, s5, 1, NULL);
    dev_write(&cb, (const uint8_t[]){0, 1, 0, 2, 0});
    CHECK_OK(where_run(&cb, &s, &o, &out));
    EXPECT_T(out, -1, 2, -3, 4, -5);
    DevTensor *all[] = {&c, &s, &o, &out, &s2, &out2, &cb};
    for (size_t k = 0; k < ARRAY_LEN(all); k++) dev_free(all[k]);
}

/* self and other of different dtypes: promoted (tensor-tensor table), then cast to out. */
static void test_where_mixed_dtypes(void)
{
    int64_t s4[] = {4};
    DevTensor c = mk(B, s4, 1, V(1, 0, 1, 0));
    struct {
        aclDataType ds, dother, dout;
        double sv[4], ov[4], want[4];
    } cases[] = {
        /* s32 with f32: f32 */
        {ACL_INT32, F, F, {16777217, 1, 2, 3}, {0.5, -0.5, 1.5, 2.5}, {16777216, -0.5, 2, 2.5}},
        /* s8 with u8: s16 */
        {ACL_INT8, ACL_UINT8, ACL_INT16, {-1, -2, -128, 4}, {200, 255, 0, 128}, {-1, 255, -128, 128}},
        /* f16 with f32: f32 (the f16 value exactly) */
        {ACL_FLOAT16, F, F, {0.1, 1, 2, 3}, {0.1, 0.2, 0.3, 0.4}, {0.0999755859375, 0.2, 2, 0.4}},
        /* bool with s32: s32 */
        {B, ACL_INT32, ACL_INT32, {1, 1, 0, 0}, {-7, 8, 9, -10}, {1, 8, 0, -10}},
        /* f16 with bf16: f32 */
        {ACL_FLOAT16, ACL_BF16, F, {1.5, 2, -3, 4}, {0.5, 1.25, 2, -0.75}, {1.5, 1.25, -3, -0.75}},
        /* s64 with f64: f64 */
        {ACL_INT64, ACL_DOUBLE, ACL_DOUBLE, {1099511627777.0, 0, -3, 0}, {0, 0.1, 0, 1e300},
         {1099511627777.0, 0.1, -3, 1e300}},
        /* s32 with s32 into an f64 out (int -> float) */
        {ACL_INT32, ACL_INT32, ACL_DOUBLE, {1, 2, 3, 4}, {-1, -2, -3, -4}, {1, -2, 3, -4}},
        /* u16 with u16 stays u16; u32 with u32 */
        {ACL_UINT16, ACL_UINT16, ACL_UINT16, {65535, 1, 2, 3}, {0, 40000, 0, 7}, {65535, 40000, 2, 7}},
        {ACL_UINT32, ACL_UINT32, ACL_INT64, {4294967295.0, 1, 2, 3}, {0, 7, 0, 9}, {4294967295.0, 7, 2, 9}},
        /* s32 with u8 into u8 (int -> int wraps) */
        {ACL_INT32, ACL_UINT8, ACL_UINT8, {257, 0, -1, 0}, {0, 200, 0, 3}, {1, 200, 255, 3}},
    };
    for (size_t k = 0; k < ARRAY_LEN(cases); k++) {
        DevTensor s = mk(cases[k].ds, s4, 1, cases[k].sv), o = mk(cases[k].dother, s4, 1, cases[k].ov);
        DevTensor out = mk(cases[k].dout, s4, 1, NULL);
        aclnnStatus st = where_run(&c, &s, &o, &out);
        if (st != 0) {
            fprintf(stderr, "    case %zu\n", k);
            capi_fail_status(__FILE__, __LINE__, API, st, 0);
        }
        double got[4];
        rd(&out, got);
        if (!vals_match("mixed dtypes", cases[k].dout, got, cases[k].want, 4)) {
            fprintf(stderr, "    case %zu\n", k);
            CHECK(!"SWhere mixed dtypes");
        }
        dev_free(&s);
        dev_free(&o);
        dev_free(&out);
    }
    /* complex: c64 with f32 -> c64; c64 with c128 -> c128 */
    DevTensor z = mk(ACL_COMPLEX64, s4, 1, V(1, 2, 3, 4, 5, 6, 7, 8)), f = mk(F, s4, 1, V(-1, -2, -3, -4));
    DevTensor zo = mk(ACL_COMPLEX64, s4, 1, NULL);
    CHECK_OK(where_run(&c, &z, &f, &zo));
    EXPECT_T(zo, 1, 2, -2, 0, 5, 6, -4, 0);
    DevTensor zz = mk(ACL_COMPLEX128, s4, 1, V(0.1, 0, 0, 0.1, 0, 0, 0, 0)), zzo = mk(ACL_COMPLEX128, s4, 1, NULL);
    CHECK_OK(where_run(&c, &zz, &z, &zzo));
    EXPECT_T(zzo, 0.1, 0, 3, 4, 0, 0, 7, 8);
    /* u64 values beyond 2^53 are moved exactly */
    DevTensor u = mk(ACL_UINT64, s4, 1, NULL), v = mk(ACL_UINT64, s4, 1, NULL), uo = mk(ACL_UINT64, s4, 1, NULL);
    const uint64_t uv[] = {18446744073709551615ull, 1, 9007199254740993ull, 2};
    const uint64_t vv[] = {3, 18446744073709551614ull, 4, 9007199254740995ull};
    dev_write(&u, uv);
    dev_write(&v, vv);
    CHECK_OK(where_run(&c, &u, &v, &uo));
    uint64_t ug[4];
    dev_read(&uo, ug);
    CHECK(ug[0] == uv[0] && ug[1] == vv[1] && ug[2] == uv[2] && ug[3] == vv[3]);
    DevTensor *all[] = {&c, &z, &f, &zo, &zz, &zzo, &u, &v, &uo};
    for (size_t k = 0; k < ARRAY_LEN(all); k++) dev_free(all[k]);
}

/* Pairs that cannot be promoted, bad condition dtypes, and out dtypes the result cannot go to. */
static void test_where_refused(void)
{
    int64_t s4[] = {4};
    DevTensor c = mk(B, s4, 1, V(1, 0, 1, 0));
    struct {
        aclDataType ds, dother, dout;
        const char *param;
    } pairs[] = {
        {ACL_UINT16, ACL_INT32, ACL_INT32, NULL},   {ACL_INT32, ACL_UINT16, ACL_INT32, NULL},
        {ACL_UINT32, F, F, NULL},                   {ACL_UINT64, B, ACL_UINT64, NULL},
        {ACL_UINT16, ACL_UINT32, ACL_UINT32, NULL}, {ACL_UINT64, ACL_INT64, ACL_INT64, NULL},
        /* the promoted dtype cannot be cast to out */
        {F, F, ACL_INT32, "out"},                   {ACL_INT32, ACL_INT32, B, "out"},
        {ACL_COMPLEX64, F, F, "out"},               {F, ACL_INT32, ACL_COMPLEX64, "out"},
        {ACL_DOUBLE, ACL_INT8, ACL_UINT8, "out"},
        /* dtypes not in the list */
        {ACL_COMPLEX32, F, F, "self"},              {F, ACL_COMPLEX32, F, "other"},
    };
    for (size_t k = 0; k < ARRAY_LEN(pairs); k++) {
        DevTensor s = mk(pairs[k].ds, s4, 1, NULL), o = mk(pairs[k].dother, s4, 1, NULL);
        DevTensor out = mk(pairs[k].dout, s4, 1, NULL);
        EXPECT_ERR(aclnnSWhereGetWorkspaceSize(c.tensor, s.tensor, o.tensor, out.tensor, &ews, &eex),
                   ACLNN_ERR_PARAM_INVALID, API, pairs[k].param, &out);
        dev_free(&s);
        dev_free(&o);
        dev_free(&out);
    }
    /* condition must be bool or u8 */
    DevTensor s = mk(F, s4, 1, NULL), out = mk(F, s4, 1, NULL);
    const aclDataType conds[] = {F, ACL_INT32, ACL_INT8, ACL_FLOAT16, ACL_UINT16};
    for (size_t k = 0; k < ARRAY_LEN(conds); k++) {
        DevTensor cb = mk(conds[k], s4, 1, NULL);
        EXPECT_ERR(aclnnSWhereGetWorkspaceSize(cb.tensor, s.tensor, s.tensor, out.tensor, &ews, &eex),
                   ACLNN_ERR_PARAM_INVALID, API, "condition", &out);
        dev_free(&cb);
    }
    dev_free(&c);
    dev_free(&s);
    dev_free(&out);
}

/* Non-contiguous condition, self, other and out (the out view's neighbours untouched). */
static void test_where_noncontig(void)
{
    /* condition: the transpose of a 3x2 bool storage; self: a stride-0 row; other: a stride-2 slice */
    int64_t st32[] = {3, 2}, s23[] = {2, 3}, tr[] = {1, 2}, s3[] = {3}, row[] = {0, 1}, s6[] = {6}, two[] = {2};
    double cst[6] = {1, 0, 0, 1, 1, 0}; /* view (i,j) = cst[i + 2j]: [[1,0,1],[0,1,0]] */
    DevTensor c = mkv(B, st32, 2, cst, s23, 2, tr, 0);
    DevTensor s = mkv(F, s3, 1, V(10, 20, 30), s23, 2, row, 0);
    DevTensor o = mkv(F, s6, 1, V(0, -1, 0, -2, 0, -3), s3, 1, two, 1); /* elements 1, 3, 5 */
    DevTensor out = mk(F, s23, 2, NULL);
    CHECK_OK(where_run(&c, &s, &o, &out));
    EXPECT_T(out, 10, -2, 30, -1, 20, -3);
    /* out: the seed (4,3) view of a 10x10 storage */
    int64_t s43[] = {4, 3};
    double cv[12], sv[12], want[12];
    for (int i = 0; i < 12; i++) {
        cv[i] = (i * 7) % 3 == 0;
        sv[i] = i + 0.5;
    }
    double ov[3] = {-1, -2, -3};
    for (int i = 0; i < 12; i++) want[i] = cv[i] ? sv[i] : ov[i % 3];
    DevTensor c2 = mk(ACL_UINT8, s43, 2, cv), s2 = mk(F, s43, 2, sv), o2 = mk(F, s3, 1, ov);
    DevTensor ov2 = mkv(ACL_DOUBLE, VSTORE, 2, NULL, VSHAPE, 2, VSTRIDES, VOFF);
    CHECK_OK(where_run(&c2, &s2, &o2, &ov2));
    double st[100], got[12];
    rd(&ov2, st);
    for (int lin = 0; lin < 12; lin++) got[lin] = st[view_pos(lin)];
    CHECK_VALS("strided out", ACL_DOUBLE, got, want, 12);
    unsigned char bytes[800];
    dev_read(&ov2, bytes);
    for (int k = 0; k < 100; k++)
        if (!in_view(k))
            for (int b = 0; b < 8; b++) CHECK(bytes[k * 8 + b] == SENT);
    DevTensor *all[] = {&c, &s, &o, &out, &c2, &s2, &o2, &ov2};
    for (size_t k = 0; k < ARRAY_LEN(all); k++) dev_free(all[k]);
}

/* out aliasing self: every input is read before out is written. */
static void test_where_alias(void)
{
    int64_t s23[] = {2, 3}, s3[] = {3};
    DevTensor t = mk(F, s23, 2, V(1, 2, 3, 4, 5, 6));
    DevTensor c = mk(B, s3, 1, V(0, 1, 0));
    /* other = the first row of t (a view of the same storage) */
    aclTensor *rowv = aclCreateTensor(s3, 1, F, NULL, 0, ACL_FORMAT_ND, s23, 2, t.dev);
    CHECK(rowv != NULL);
    DevTensor r = {0};
    r.tensor = rowv;
    CHECK_OK(where_run(&c, &t, &r, &t));
    double want[6] = {1, 2, 3, 1, 5, 3};
    double got[6];
    rd(&t, got);
    CHECK_VALS("out aliasing self and other", F, got, want, 6);
    CHECK_OK(aclDestroyTensor(rowv));
    dev_free(&t);
    dev_free(&c);
}

static void test_where_0d_and_empty(void)
{
    /* all 0-d */
    DevTensor c = mk(B, NULL, 0, V(0)), s = mk(ACL_INT32, NULL, 0, V(5)), o = mk(ACL_INT32, NULL, 0, V(-5));
    DevTensor out = mk(ACL_INT32, NULL, 0, NULL);
    CHECK_OK(where_run(&c, &s, &o, &out));
    EXPECT_T(out, -5);
    /* 0-d condition with (2,3) values; 0-d values with a (2,3) condition */
    int64_t s23[] = {2, 3};
    DevTensor c1 = mk(B, NULL, 0, V(1)), s6 = mk(F, s23, 2, V(1, 2, 3, 4, 5, 6)), o6 = mk(F, s23, 2, NULL);
    DevTensor out6 = mk(F, s23, 2, NULL);
    CHECK_OK(where_run(&c1, &s6, &o6, &out6));
    EXPECT_T(out6, 1, 2, 3, 4, 5, 6);
    DevTensor c6 = mk(ACL_UINT8, s23, 2, V(1, 0, 0, 0, 0, 1)), out6i = mk(ACL_INT32, s23, 2, NULL);
    CHECK_OK(where_run(&c6, &s, &o, &out6i));
    EXPECT_T(out6i, 5, -5, -5, -5, -5, 5);
    /* a 0-d out for a (2,3) result: refused */
    EXPECT_ERR(aclnnSWhereGetWorkspaceSize(c6.tensor, s.tensor, o.tensor, out.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, API, "out", &out);

    /* empty: a (0,3) condition, an empty self, a (2,0) result */
    int64_t s03[] = {0, 3}, s3[] = {3}, s20[] = {2, 0}, s21[] = {2, 1};
    DevTensor ce = mk(B, s03, 2, NULL), sv = mk(F, s3, 1, V(1, 2, 3)), oute = mk(F, s03, 2, NULL);
    DevTensor se = mk(F, s20, 2, NULL), cc = mk(B, s21, 2, V(1, 0)), oute2 = mk(F, s20, 2, NULL);
    struct {
        const DevTensor *c, *s, *o, *out;
    } cases[] = {{&ce, &sv, &sv, &oute}, {&cc, &se, &sv, NULL}, {&cc, &se, &se, &oute2}, {&ce, &sv, &c1, &oute}};
    for (size_t k = 0; k < ARRAY_LEN(cases); k++) {
        if (cases[k].out == NULL) {
            /* (2,1) with (2,0) and (3,): does not broadcast */
            EXPECT_ERR(aclnnSWhereGetWorkspaceSize(cases[k].c->tensor, cases[k].s->tensor, cases[k].o->tensor,
                                                   oute2.tensor, &ews, &eex),
                       ACLNN_ERR_PARAM_INVALID, API, NULL, NULL);
            continue;
        }
        dev_fill_bytes(&sv, SENT);
        uint64_t ws = 5;
        aclOpExecutor *ex = NULL;
        CHECK_OK(aclnnSWhereGetWorkspaceSize(cases[k].c->tensor, cases[k].s->tensor, cases[k].o->tensor,
                                             cases[k].out->tensor, &ws, &ex));
        CHECK(ws == 0);
        CHECK(ex != NULL);
        CHECK_OK(aclnnSWhere(NULL, 0, ex, g_stream));
        CHECK_OK(aclrtSynchronizeStream(g_stream));
        check_untouched_at(__FILE__, __LINE__, &sv);
    }
    DevTensor *all[] = {&c, &s, &o, &out, &c1, &s6, &o6, &out6, &c6, &out6i, &ce, &sv, &oute, &se, &cc, &oute2};
    for (size_t k = 0; k < ARRAY_LEN(all); k++) dev_free(all[k]);
}

static void test_where_errors(void)
{
    int64_t s23[] = {2, 3}, s3[] = {3}, s4[] = {4}, s32[] = {3, 2}, s123[] = {1, 2, 3};
    int64_t s9[] = {1, 1, 1, 1, 1, 1, 1, 1, 3};
    DevTensor c = mk(B, s3, 1, V(1, 0, 1)), s = mk(F, s23, 2, NULL), o = mk(F, s23, 2, NULL);
    DevTensor out = mk(F, s23, 2, NULL);
    /* NULL arguments */
    EXPECT_ERR(aclnnSWhereGetWorkspaceSize(NULL, s.tensor, o.tensor, out.tensor, &ews, &eex), ACLNN_ERR_PARAM_NULLPTR,
               API, "condition", &out);
    EXPECT_ERR(aclnnSWhereGetWorkspaceSize(c.tensor, NULL, o.tensor, out.tensor, &ews, &eex), ACLNN_ERR_PARAM_NULLPTR,
               API, "self", &out);
    EXPECT_ERR(aclnnSWhereGetWorkspaceSize(c.tensor, s.tensor, NULL, out.tensor, &ews, &eex), ACLNN_ERR_PARAM_NULLPTR,
               API, "other", &out);
    EXPECT_ERR(aclnnSWhereGetWorkspaceSize(c.tensor, s.tensor, o.tensor, NULL, &ews, &eex), ACLNN_ERR_PARAM_NULLPTR,
               API, "out", NULL);
    EXPECT_ERR(aclnnSWhereGetWorkspaceSize(c.tensor, s.tensor, o.tensor, out.tensor, NULL, &eex),
               ACLNN_ERR_PARAM_NULLPTR, API, "workspaceSize", &out);
    EXPECT_ERR(aclnnSWhereGetWorkspaceSize(c.tensor, s.tensor, o.tensor, out.tensor, &ews, NULL),
               ACLNN_ERR_PARAM_NULLPTR, API, "executor", &out);
    /* a destroyed handle */
    aclTensor *dead = aclCreateTensor(s3, 1, B, NULL, 0, ACL_FORMAT_ND, s3, 1, c.dev);
    CHECK(dead != NULL);
    CHECK_OK(aclDestroyTensor(dead));
    EXPECT_ERR(aclnnSWhereGetWorkspaceSize(dead, s.tensor, o.tensor, out.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               API, "condition", &out);
    /* not broadcastable: condition (4,) with (2,3); self (3,2) with other (2,3) */
    DevTensor c4 = mk(B, s4, 1, NULL), s32t = mk(F, s32, 2, NULL);
    EXPECT_ERR(aclnnSWhereGetWorkspaceSize(c4.tensor, s.tensor, o.tensor, out.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, API, "condition", &out);
    EXPECT_ERR(aclnnSWhereGetWorkspaceSize(c.tensor, s32t.tensor, o.tensor, out.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, API, "self", &out);
    /* out of the wrong shape */
    const int64_t *bad[] = {s32, s123, s3};
    size_t badn[] = {2, 3, 1};
    for (size_t k = 0; k < ARRAY_LEN(badn); k++) {
        DevTensor ob = mk(F, bad[k], badn[k], NULL);
        EXPECT_ERR(aclnnSWhereGetWorkspaceSize(c.tensor, s.tensor, o.tensor, ob.tensor, &ews, &eex),
                   ACLNN_ERR_PARAM_INVALID, API, "out", &ob);
        dev_free(&ob);
    }
    /* more than 8 dims, in each parameter */
    DevTensor c9 = mk(B, s9, 9, NULL), f9 = mk(F, s9, 9, NULL), o9 = mk(F, s9, 9, NULL);
    EXPECT_ERR(aclnnSWhereGetWorkspaceSize(c9.tensor, c.tensor, c.tensor, o9.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, API, "condition", &o9);
    EXPECT_ERR(aclnnSWhereGetWorkspaceSize(c.tensor, f9.tensor, o.tensor, o9.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, API, "self", &o9);
    EXPECT_ERR(aclnnSWhereGetWorkspaceSize(c.tensor, s.tensor, f9.tensor, o9.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, API, "other", &o9);
    /* a private device format */
    aclTensor *pf = aclCreateTensor(s23, 2, F, NULL, 0, ACL_FORMAT_FRACTAL_NZ, s23, 2, s.dev);
    if (pf != NULL) {
        EXPECT_ERR(aclnnSWhereGetWorkspaceSize(c.tensor, pf, o.tensor, out.tensor, &ews, &eex),
                   ACLNN_ERR_PARAM_INVALID, API, "self", &out);
        CHECK_OK(aclDestroyTensor(pf));
    }
    /* an out whose elements overlap (stride 0 on a dim of size 2) */
    int64_t z[] = {0, 1};
    DevTensor oz = mkv(F, s3, 1, NULL, s23, 2, z, 0);
    EXPECT_ERR(aclnnSWhereGetWorkspaceSize(c.tensor, s.tensor, o.tensor, oz.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, API, "out", &oz);
    DevTensor *all[] = {&c, &s, &o, &out, &c4, &s32t, &c9, &f9, &o9, &oz};
    for (size_t k = 0; k < ARRAY_LEN(all); k++) dev_free(all[k]);
}

/*
 * The device's merged-axes limit (SEMANTICS section 3) with f64 values: a condition of
 * (5,1,5,1,5,1) against (5,5,5,5,5,5) values leaves 6 axes (refused); (5,1,5,5,1,1) merges to 4.
 */
static void test_where_axis_limit(void)
{
    int64_t full[] = {5, 5, 5, 5, 5, 5}, bad[] = {5, 1, 5, 1, 5, 1}, good[] = {5, 1, 5, 5, 1, 1};
    int64_t n = shape_numel(full, 6);
    double *sv = dbl(n), *ov = dbl(n), *want = dbl(n), *got = dbl(n), cv[125];
    for (int64_t i = 0; i < n; i++) {
        sv[i] = (double)i;
        ov[i] = -(double)i;
    }
    for (int i = 0; i < 125; i++) cv[i] = (i % 3) != 1;
    DevTensor cb = mk(B, bad, 6, cv), cg = mk(B, good, 6, cv);
    DevTensor s = mk(ACL_DOUBLE, full, 6, sv), o = mk(ACL_DOUBLE, full, 6, ov), out = mk(ACL_DOUBLE, full, 6, NULL);
    EXPECT_ERR(aclnnSWhereGetWorkspaceSize(cb.tensor, s.tensor, o.tensor, out.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, API, "condition", &out);
    /* the same pattern with f32 values has no limit */
    DevTensor sf = mk(F, full, 6, sv), of = mk(F, full, 6, ov), outf = mk(F, full, 6, NULL);
    CHECK_OK(where_run(&cb, &sf, &of, &outf));
    int64_t shape[8];
    size_t nd = 0;
    ref_where(cv, bad, 6, sv, full, 6, ov, full, 6, want, shape, &nd);
    rd(&outf, got);
    CHECK_VALS("f32, 6 axes", F, got, want, n);
    /* 4 merged axes with f64: accepted */
    CHECK_OK(where_run(&cg, &s, &o, &out));
    ref_where(cv, good, 6, sv, full, 6, ov, full, 6, want, shape, &nd);
    rd(&out, got);
    CHECK_VALS("f64, 4 axes", ACL_DOUBLE, got, want, n);
    free(sv);
    free(ov);
    free(want);
    free(got);
    DevTensor *all[] = {&cb, &cg, &s, &o, &out, &sf, &of, &outf};
    for (size_t k = 0; k < ARRAY_LEN(all); k++) dev_free(all[k]);
}

int main(void)
{
    device_init();
    RUN_TEST(test_where_broadcast);
    RUN_TEST(test_where_u8_condition);
    RUN_TEST(test_where_mixed_dtypes);
    RUN_TEST(test_where_refused);
    RUN_TEST(test_where_noncontig);
    RUN_TEST(test_where_alias);
    RUN_TEST(test_where_0d_and_empty);
    RUN_TEST(test_where_errors);
    RUN_TEST(test_where_axis_limit);
    device_teardown();
    return capi_finish();
}
