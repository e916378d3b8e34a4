/*
 * Error paths of aclnnAdd: every bad-input class gives the documented status, a recent
 * error message that names the API and the parameter, and leaves the output untouched.
 */
#include "common.h"

#include <pthread.h>

#define API1 "aclnnAddGetWorkspaceSize"
#define SENTINEL_BYTE 0xA5

/* Every byte of `t`'s storage must still be SENTINEL_BYTE. */
static void check_untouched(const DevTensor *t)
{
    if (t == NULL || t->bytes == 0) return;
    unsigned char *buf = (unsigned char *)malloc(t->bytes);
    CHECK(buf != NULL);
    dev_read(t, buf);
    for (size_t i = 0; i < t->bytes; i++) {
        if (buf[i] != SENTINEL_BYTE) fprintf(stderr, "output byte %zu was written (0x%02x)\n", i, buf[i]);
        CHECK(buf[i] == SENTINEL_BYTE);
    }
    free(buf);
}

/*
 * Phase 1 of aclnnAdd must fail with `status`, the message must name the API and `param`
 * (if not NULL), and `outbuf` (if not NULL) must be untouched.
 */
static void expect_add_error(const char *file, int line, const aclTensor *self, const aclTensor *other,
                             const aclScalar *alpha, aclTensor *out, DevTensor *outbuf, aclnnStatus status,
                             const char *param)
{
    if (outbuf != NULL) dev_fill_bytes(outbuf, SENTINEL_BYTE);
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    aclnnStatus st = aclnnAddGetWorkspaceSize(self, other, alpha, out, &ws, &ex);
    if (st != status) capi_fail_status(file, line, "aclnnAddGetWorkspaceSize(...)", st, status);
    if (!errmsg_has(API1)) capi_fail_errmsg(file, line, API1);
    if (param != NULL && !errmsg_has(param)) capi_fail_errmsg(file, line, param);
    /* nothing ran: synchronising must not change anything either */
    CHECK_OK(aclrtSynchronizeStream(g_stream));
    check_untouched(outbuf);
}
#define EXPECT_ADD_ERROR(self, other, alpha, out, outbuf, status, param) \
    expect_add_error(__FILE__, __LINE__, self, other, alpha, out, outbuf, status, param)

static void test_null_arguments(void)
{
    int64_t s[] = {2, 3};
    float a[6] = {1, 2, 3, 4, 5, 6};
    DevTensor ta = dev_tensor(a, ACL_FLOAT, s, 2);
    DevTensor tb = dev_tensor(a, ACL_FLOAT, s, 2);
    DevTensor to = dev_tensor(NULL, ACL_FLOAT, s, 2);
    aclScalar *alpha = scalar_f32(1.0f);

    EXPECT_ADD_ERROR(NULL, tb.tensor, alpha, to.tensor, &to, ACLNN_ERR_PARAM_NULLPTR, "self");
    EXPECT_ADD_ERROR(ta.tensor, NULL, alpha, to.tensor, &to, ACLNN_ERR_PARAM_NULLPTR, "other");
    EXPECT_ADD_ERROR(ta.tensor, tb.tensor, NULL, to.tensor, &to, ACLNN_ERR_PARAM_NULLPTR, "alpha");
    EXPECT_ADD_ERROR(ta.tensor, tb.tensor, alpha, NULL, NULL, ACLNN_ERR_PARAM_NULLPTR, "out");

    /* NULL out-parameters */
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    dev_fill_bytes(&to, SENTINEL_BYTE);
    CHECK_STATUS(aclnnAddGetWorkspaceSize(ta.tensor, tb.tensor, alpha, to.tensor, NULL, &ex), ACLNN_ERR_PARAM_NULLPTR);
    CHECK_ERRMSG(API1);
    CHECK_ERRMSG("workspaceSize");
    CHECK_STATUS(aclnnAddGetWorkspaceSize(ta.tensor, tb.tensor, alpha, to.tensor, &ws, NULL), ACLNN_ERR_PARAM_NULLPTR);
    CHECK_ERRMSG(API1);
    CHECK_ERRMSG("executor");
    check_untouched(&to);

    /* the same for the other entry points */
    CHECK_STATUS(aclnnAddsGetWorkspaceSize(NULL, alpha, alpha, to.tensor, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
    CHECK_ERRMSG("aclnnAddsGetWorkspaceSize");
    CHECK_ERRMSG("self");
    CHECK_STATUS(aclnnAddsGetWorkspaceSize(ta.tensor, NULL, alpha, to.tensor, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
    CHECK_ERRMSG("other");
    CHECK_STATUS(aclnnInplaceAddGetWorkspaceSize(NULL, tb.tensor, alpha, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
    CHECK_ERRMSG("aclnnInplaceAddGetWorkspaceSize");
    CHECK_ERRMSG("selfRef");
    CHECK_STATUS(aclnnInplaceAddGetWorkspaceSize(ta.tensor, tb.tensor, NULL, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
    CHECK_ERRMSG("alpha");
    CHECK_STATUS(aclnnInplaceAddsGetWorkspaceSize(ta.tensor, NULL, alpha, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
    CHECK_ERRMSG("aclnnInplaceAddsGetWorkspaceSize");
    CHECK_ERRMSG("other");

    CHECK_OK(aclDestroyScalar(alpha));
    dev_free(&ta);
    dev_free(&tb);
    dev_free(&to);
}

static void test_stale_handles(void)
{
    int64_t s[] = {2, 3};
    DevTensor ta = dev_tensor(NULL, ACL_FLOAT, s, 2);
    DevTensor tb = dev_tensor(NULL, ACL_FLOAT, s, 2);
    DevTensor to = dev_tensor(NULL, ACL_FLOAT, s, 2);
    aclScalar *alpha = scalar_f32(1.0f);
    aclScalar *dead_alpha = scalar_f32(1.0f);
    CHECK_OK(aclDestroyScalar(dead_alpha));
    aclTensor *dead = aclCreateTensor(s, 2, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, s, 2, tb.dev);
    CHECK(dead != NULL);
    CHECK_OK(aclDestroyTensor(dead));

    EXPECT_ADD_ERROR(ta.tensor, dead, alpha, to.tensor, &to, ACLNN_ERR_PARAM_INVALID, "other");
    EXPECT_ADD_ERROR(ta.tensor, tb.tensor, dead_alpha, to.tensor, &to, ACLNN_ERR_PARAM_INVALID, "alpha");
    /* a scalar passed where a tensor is expected */
    EXPECT_ADD_ERROR((const aclTensor *)(const void *)alpha, tb.tensor, alpha, to.tensor, &to,
                     ACLNN_ERR_PARAM_INVALID, "self");

    CHECK_OK(aclDestroyScalar(alpha));
    dev_free(&ta);
    dev_free(&tb);
    dev_free(&to);
}

static void test_not_broadcastable(void)
{
    int64_t s23[] = {2, 3}, s4[] = {4};
    DevTensor ta = dev_tensor(NULL, ACL_FLOAT, s23, 2);
    DevTensor tb = dev_tensor(NULL, ACL_FLOAT, s4, 1);
    DevTensor to = dev_tensor(NULL, ACL_FLOAT, s23, 2);
    aclScalar *alpha = scalar_f32(1.0f);
    EXPECT_ADD_ERROR(ta.tensor, tb.tensor, alpha, to.tensor, &to, ACLNN_ERR_PARAM_INVALID, NULL);
    if (!errmsg_has_shape(s23, 2)) capi_fail_errmsg(__FILE__, __LINE__, "[2, 3]");
    if (!errmsg_has_shape(s4, 1)) capi_fail_errmsg(__FILE__, __LINE__, "[4]");

    /* (2,3,4) + (3,1,4): dim 0 */
    int64_t a3[] = {2, 3, 4}, b3[] = {3, 1, 4};
    DevTensor tc = dev_tensor(NULL, ACL_FLOAT, a3, 3);
    DevTensor td = dev_tensor(NULL, ACL_FLOAT, b3, 3);
    DevTensor te = dev_tensor(NULL, ACL_FLOAT, a3, 3);
    EXPECT_ADD_ERROR(tc.tensor, td.tensor, alpha, te.tensor, &te, ACLNN_ERR_PARAM_INVALID, NULL);
    CHECK(errmsg_has_shape(a3, 3));
    CHECK(errmsg_has_shape(b3, 3));

    CHECK_OK(aclDestroyScalar(alpha));
    dev_free(&ta);
    dev_free(&tb);
    dev_free(&to);
    dev_free(&tc);
    dev_free(&td);
    dev_free(&te);
}

static void test_out_shape_mismatch(void)
{
    int64_t s23[] = {2, 3}, s3[] = {3};
    DevTensor ta = dev_tensor(NULL, ACL_FLOAT, s23, 2);
    DevTensor tb = dev_tensor(NULL, ACL_FLOAT, s3, 1);
    aclScalar *alpha = scalar_f32(1.0f);
    int64_t bad[][3] = {{3, 2, 0}, {1, 2, 3}, {6, 0, 0}, {2, 1, 0}, {2, 4, 0}};
    size_t bad_n[] = {2, 3, 1, 2, 2};
    for (size_t i = 0; i < ARRAY_LEN(bad_n); i++) {
        DevTensor to = dev_tensor(NULL, ACL_FLOAT, bad[i], bad_n[i]);
        EXPECT_ADD_ERROR(ta.tensor, tb.tensor, alpha, to.tensor, &to, ACLNN_ERR_PARAM_INVALID, "out");
        dev_free(&to);
    }
    /* Adds: out must have self's shape */
    DevTensor to = dev_tensor(NULL, ACL_FLOAT, s3, 1);
    uint64_t ws;
    aclOpExecutor *ex;
    dev_fill_bytes(&to, SENTINEL_BYTE);
    CHECK_STATUS(aclnnAddsGetWorkspaceSize(ta.tensor, alpha, alpha, to.tensor, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
    CHECK_ERRMSG("aclnnAddsGetWorkspaceSize");
    CHECK_ERRMSG("out");
    check_untouched(&to);
    dev_free(&to);
    CHECK_OK(aclDestroyScalar(alpha));
    dev_free(&ta);
    dev_free(&tb);
}

static void test_out_dtype_not_castable(void)
{
    int64_t s[] = {4};
    DevTensor ta = dev_tensor(NULL, ACL_FLOAT, s, 1);
    DevTensor tb = dev_tensor(NULL, ACL_FLOAT, s, 1);
    aclScalar *alpha = scalar_f32(1.0f);

    /* float -> int */
    DevTensor o32 = dev_tensor(NULL, ACL_INT32, s, 1);
    EXPECT_ADD_ERROR(ta.tensor, tb.tensor, alpha, o32.tensor, &o32, ACLNN_ERR_PARAM_INVALID, "out");
    /* non-bool -> bool */
    DevTensor ob = dev_tensor(NULL, ACL_BOOL, s, 1);
    EXPECT_ADD_ERROR(ta.tensor, tb.tensor, alpha, ob.tensor, &ob, ACLNN_ERR_PARAM_INVALID, "out");
    /* int -> bool */
    DevTensor i1 = dev_tensor(NULL, ACL_INT32, s, 1);
    aclScalar *ialpha = scalar_i32(1);
    EXPECT_ADD_ERROR(i1.tensor, i1.tensor, ialpha, ob.tensor, &ob, ACLNN_ERR_PARAM_INVALID, "out");
    /* complex -> real */
    DevTensor c1 = dev_tensor(NULL, ACL_COMPLEX64, s, 1);
    DevTensor of = dev_tensor(NULL, ACL_FLOAT, s, 1);
    float calpha_v[2] = {1.0f, 0.0f};
    aclScalar *calpha = aclCreateScalar(calpha_v, ACL_COMPLEX64);
    CHECK(calpha != NULL);
    EXPECT_ADD_ERROR(c1.tensor, c1.tensor, calpha, of.tensor, &of, ACLNN_ERR_PARAM_INVALID, "out");
    /* real -> complex is refused too (SEMANTICS section 5) */
    DevTensor oc = dev_tensor(NULL, ACL_COMPLEX64, s, 1);
    EXPECT_ADD_ERROR(ta.tensor, tb.tensor, alpha, oc.tensor, &oc, ACLNN_ERR_PARAM_INVALID, "out");

    CHECK_OK(aclDestroyScalar(alpha));
    CHECK_OK(aclDestroyScalar(ialpha));
    CHECK_OK(aclDestroyScalar(calpha));
    dev_free(&ta);
    dev_free(&tb);
    dev_free(&o32);
    dev_free(&ob);
    dev_free(&i1);
    dev_free(&c1);
    dev_free(&of);
    dev_free(&oc);
}

static void test_no_promotion(void)
{
    int64_t s[] = {4};
    DevTensor tu = dev_tensor(NULL, ACL_UINT16, s, 1);
    DevTensor ti = dev_tensor(NULL, ACL_INT32, s, 1);
    DevTensor tbool = dev_tensor(NULL, ACL_BOOL, s, 1);
    DevTensor to = dev_tensor(NULL, ACL_INT32, s, 1);
    aclScalar *alpha = scalar_i32(1);
    EXPECT_ADD_ERROR(tu.tensor, ti.tensor, alpha, to.tensor, &to, ACLNN_ERR_PARAM_INVALID, "self");
    EXPECT_ADD_ERROR(ti.tensor, tu.tensor, alpha, to.tensor, &to, ACLNN_ERR_PARAM_INVALID, "other");
    EXPECT_ADD_ERROR(tu.tensor, tbool.tensor, alpha, to.tensor, &to, ACLNN_ERR_PARAM_INVALID, "self");
    DevTensor tu32 = dev_tensor(NULL, ACL_UINT32, s, 1);
    DevTensor tu64 = dev_tensor(NULL, ACL_UINT64, s, 1);
    EXPECT_ADD_ERROR(tu32.tensor, ti.tensor, alpha, to.tensor, &to, ACLNN_ERR_PARAM_INVALID, "self");
    EXPECT_ADD_ERROR(ti.tensor, tu64.tensor, alpha, to.tensor, &to, ACLNN_ERR_PARAM_INVALID, "other");
    CHECK_OK(aclDestroyScalar(alpha));
    dev_free(&tu);
    dev_free(&ti);
    dev_free(&tbool);
    dev_free(&to);
    dev_free(&tu32);
    dev_free(&tu64);
}

static void test_float_alpha_with_int_tensors(void)
{
    int64_t s[] = {4};
    DevTensor ti = dev_tensor(NULL, ACL_INT32, s, 1);
    DevTensor to = dev_tensor(NULL, ACL_INT32, s, 1);
    aclScalar *alpha = scalar_f32(1.0f);
    EXPECT_ADD_ERROR(ti.tensor, ti.tensor, alpha, to.tensor, &to, ACLNN_ERR_PARAM_INVALID, "alpha");
    CHECK_OK(aclDestroyScalar(alpha));
    alpha = scalar_f64(2.0);
    EXPECT_ADD_ERROR(ti.tensor, ti.tensor, alpha, to.tensor, &to, ACLNN_ERR_PARAM_INVALID, "alpha");
    /* also with a float out: the computation dtype is still s32 */
    DevTensor of = dev_tensor(NULL, ACL_FLOAT, s, 1);
    EXPECT_ADD_ERROR(ti.tensor, ti.tensor, alpha, of.tensor, &of, ACLNN_ERR_PARAM_INVALID, "alpha");
    CHECK_OK(aclDestroyScalar(alpha));
    dev_free(&ti);
    dev_free(&to);
    dev_free(&of);
}

static void test_rank_9(void)
{
    int64_t s9[] = {1, 1, 1, 1, 1, 1, 1, 1, 2};
    DevTensor ta = dev_tensor(NULL, ACL_FLOAT, s9, 9);
    DevTensor to = dev_tensor(NULL, ACL_FLOAT, s9, 9);
    int64_t s1[] = {2};
    DevTensor tb = dev_tensor(NULL, ACL_FLOAT, s1, 1);
    aclScalar *alpha = scalar_f32(1.0f);
    EXPECT_ADD_ERROR(ta.tensor, ta.tensor, alpha, to.tensor, &to, ACLNN_ERR_PARAM_INVALID, "self");
    EXPECT_ADD_ERROR(ta.tensor, tb.tensor, alpha, to.tensor, &to, ACLNN_ERR_PARAM_INVALID, "self");
    EXPECT_ADD_ERROR(tb.tensor, ta.tensor, alpha, to.tensor, &to, ACLNN_ERR_PARAM_INVALID, "other");
    /* only out has 9 dims */
    DevTensor tc = dev_tensor(NULL, ACL_FLOAT, s1, 1);
    EXPECT_ADD_ERROR(tb.tensor, tc.tensor, alpha, to.tensor, &to, ACLNN_ERR_PARAM_INVALID, "out");
    dev_free(&tc);
    CHECK_OK(aclDestroyScalar(alpha));
    dev_free(&ta);
    dev_free(&tb);
    dev_free(&to);
}

/* Reference f64 broadcast add for the 6-d case. */
static void ref_add_f64_6d(const double *a, const int64_t *as, const double *b, double *out, const int64_t *os)
{
    int64_t total = shape_numel(os, 6);
    for (int64_t lin = 0; lin < total; lin++) {
        int64_t idx[6], r = lin;
        for (int k = 5; k >= 0; k--) {
            idx[k] = r % os[k];
            r /= os[k];
        }
        int64_t ai = 0;
        for (int k = 0; k < 6; k++) ai = ai * as[k] + (as[k] == 1 ? 0 : idx[k]);
        out[lin] = a[ai] + b[lin];
    }
}

/* SEMANTICS section 3: the device's 6-axis limit for f64 (and c64, c128, s16, u16, u64). */
static void test_device_axis_limit(void)
{
    int64_t full[] = {5, 5, 5, 5, 5, 5};
    int64_t n = shape_numel(full, 6);
    double *b = (double *)malloc(sizeof(double) * (size_t)n);
    double *want = (double *)malloc(sizeof(double) * (size_t)n);
    double *got = (double *)malloc(sizeof(double) * (size_t)n);
    CHECK(b && want && got);
    for (int64_t i = 0; i < n; i++) b[i] = (double)i * 0.5;
    double a[125];
    for (int i = 0; i < 125; i++) a[i] = 1000.0 * i;
    DevTensor tb = dev_tensor(b, ACL_DOUBLE, full, 6);
    DevTensor to = dev_tensor(NULL, ACL_DOUBLE, full, 6);
    aclScalar *alpha = scalar_f64(1.0);

    /* 6 axes after merging: rejected */
    int64_t bad[] = {5, 1, 5, 1, 5, 1};
    DevTensor ta = dev_tensor(a, ACL_DOUBLE, bad, 6);
    EXPECT_ADD_ERROR(ta.tensor, tb.tensor, alpha, to.tensor, &to, ACLNN_ERR_PARAM_INVALID, "self");
    CHECK(errmsg_has_shape(bad, 6));
    CHECK(errmsg_has_shape(full, 6));
    EXPECT_ADD_ERROR(tb.tensor, ta.tensor, alpha, to.tensor, &to, ACLNN_ERR_PARAM_INVALID, "other");

    /* merges to 4 axes: accepted, with the right values */
    int64_t good[] = {5, 1, 5, 5, 1, 1};
    DevTensor tg = dev_tensor(a, ACL_DOUBLE, good, 6);
    CHECK_OK(add_run(tg.tensor, tb.tensor, alpha, to.tensor));
    dev_read(&to, got);
    ref_add_f64_6d(a, good, b, want, full);
    for (int64_t i = 0; i < n; i++) CHECK(got[i] == want[i]);

    /* the limit is only for the listed dtypes: f32 with the "bad" pattern works */
    float af[125];
    for (int i = 0; i < 125; i++) af[i] = (float)i;
    float *bf = (float *)malloc(sizeof(float) * (size_t)n);
    float *gf = (float *)malloc(sizeof(float) * (size_t)n);
    CHECK(bf && gf);
    for (int64_t i = 0; i < n; i++) bf[i] = (float)(i % 1000);
    DevTensor tfa = dev_tensor(af, ACL_FLOAT, bad, 6);
    DevTensor tfb = dev_tensor(bf, ACL_FLOAT, full, 6);
    DevTensor tfo = dev_tensor(NULL, ACL_FLOAT, full, 6);
    aclScalar *alpha_f = scalar_f32(1.0f);
    CHECK_OK(add_run(tfa.tensor, tfb.tensor, alpha_f, tfo.tensor));
    dev_read(&tfo, gf);
    for (int64_t lin = 0; lin < n; lin++) {
        int64_t idx[6], r = lin;
        for (int k = 5; k >= 0; k--) {
            idx[k] = r % 5;
            r /= 5;
        }
        int64_t ai = idx[0] * 25 + idx[2] * 5 + idx[4];
        CHECK(gf[lin] == af[ai] + bf[lin]);
    }

    /* s16 has the limit too */
    DevTensor tsa = dev_tensor(NULL, ACL_INT16, bad, 6);
    DevTensor tsb = dev_tensor(NULL, ACL_INT16, full, 6);
    DevTensor tso = dev_tensor(NULL, ACL_INT16, full, 6);
    aclScalar *alpha_i = scalar_i32(1);
    EXPECT_ADD_ERROR(tsa.tensor, tsb.tensor, alpha_i, tso.tensor, &tso, ACLNN_ERR_PARAM_INVALID, NULL);

    CHECK_OK(aclDestroyScalar(alpha));
    CHECK_OK(aclDestroyScalar(alpha_f));
    CHECK_OK(aclDestroyScalar(alpha_i));
    dev_free(&ta);
    dev_free(&tb);
    dev_free(&to);
    dev_free(&tg);
    dev_free(&tfa);
    dev_free(&tfb);
    dev_free(&tfo);
    dev_free(&tsa);
    dev_free(&tsb);
    dev_free(&tso);
    free(b);
    free(want);
    free(got);
    free(bf);
    free(gf);
}

static void test_private_format(void)
{
    int64_t s5[] = {1, 1, 2, 2, 16};
    DevTensor tmp = dev_tensor(NULL, ACL_FLOAT, s5, 5);
    CHECK_OK(aclDestroyTensor(tmp.tensor));
    tmp.tensor = aclCreateTensor(s5, 5, ACL_FLOAT, NULL, 0, ACL_FORMAT_NC1HWC0, s5, 5, tmp.dev);
    CHECK(tmp.tensor != NULL); /* a valid aclFormat value: the op rejects it, not aclCreateTensor */
    DevTensor nd = dev_tensor(NULL, ACL_FLOAT, s5, 5);
    DevTensor to = dev_tensor(NULL, ACL_FLOAT, s5, 5);
    aclScalar *alpha = scalar_f32(1.0f);
    EXPECT_ADD_ERROR(tmp.tensor, nd.tensor, alpha, to.tensor, &to, ACLNN_ERR_PARAM_INVALID, "self");
    EXPECT_ADD_ERROR(nd.tensor, tmp.tensor, alpha, to.tensor, &to, ACLNN_ERR_PARAM_INVALID, "other");
    /* as the output */
    aclTensor *out_priv = aclCreateTensor(s5, 5, ACL_FLOAT, NULL, 0, ACL_FORMAT_NC1HWC0, s5, 5, to.dev);
    CHECK(out_priv != NULL);
    EXPECT_ADD_ERROR(nd.tensor, nd.tensor, alpha, out_priv, &to, ACLNN_ERR_PARAM_INVALID, "out");
    CHECK_OK(aclDestroyTensor(out_priv));

    /* a public format whose rank disagrees with the tensor's (NCHW on 2 dims): refused at creation or phase 1 */
    int64_t s2[] = {2, 2};
    DevTensor t2 = dev_tensor(NULL, ACL_FLOAT, s2, 2);
    DevTensor o2 = dev_tensor(NULL, ACL_FLOAT, s2, 2);
    aclTensor *bad = aclCreateTensor(s2, 2, ACL_FLOAT, NULL, 0, ACL_FORMAT_NCHW, s2, 2, t2.dev);
    if (bad == NULL) {
        CHECK(strlen(errmsg()) > 0);
    } else {
        EXPECT_ADD_ERROR(bad, t2.tensor, alpha, o2.tensor, &o2, ACLNN_ERR_PARAM_INVALID, NULL);
        CHECK_OK(aclDestroyTensor(bad));
    }

    CHECK_OK(aclDestroyScalar(alpha));
    dev_free(&tmp);
    dev_free(&nd);
    dev_free(&to);
    dev_free(&t2);
    dev_free(&o2);
}

static void test_out_internal_overlap(void)
{
    int64_t s[] = {2, 3};
    DevTensor ta = dev_tensor(NULL, ACL_FLOAT, s, 2);
    aclScalar *alpha = scalar_f32(1.0f);
    /* out view (2,3) with strides (0,1): both rows are the same 3 elements */
    int64_t storage[] = {3}, st0[] = {0, 1};
    DevTensor to = dev_view(NULL, ACL_FLOAT, storage, 1, s, 2, st0, 0);
    EXPECT_ADD_ERROR(ta.tensor, ta.tensor, alpha, to.tensor, &to, ACLNN_ERR_PARAM_INVALID, "out");
    /* strides (1,1): elements overlap without a zero stride */
    int64_t storage4[] = {4}, st11[] = {1, 1};
    DevTensor to2 = dev_view(NULL, ACL_FLOAT, storage4, 1, s, 2, st11, 0);
    EXPECT_ADD_ERROR(ta.tensor, ta.tensor, alpha, to2.tensor, &to2, ACLNN_ERR_PARAM_INVALID, "out");
    /* in place: selfRef with a zero stride */
    uint64_t ws;
    aclOpExecutor *ex;
    dev_fill_bytes(&to, SENTINEL_BYTE);
    CHECK_STATUS(aclnnInplaceAddGetWorkspaceSize(to.tensor, ta.tensor, alpha, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
    CHECK_ERRMSG("aclnnInplaceAddGetWorkspaceSize");
    check_untouched(&to);
    /* stride 0 on a dim of size 1 is fine */
    int64_t s13[] = {1, 3};
    DevTensor tin = dev_tensor(NULL, ACL_FLOAT, s13, 2);
    DevTensor to3 = dev_view(NULL, ACL_FLOAT, storage, 1, s13, 2, st0, 0);
    CHECK_OK(add_run(tin.tensor, tin.tensor, alpha, to3.tensor));
    CHECK_OK(aclDestroyScalar(alpha));
    dev_free(&ta);
    dev_free(&to);
    dev_free(&to2);
    dev_free(&tin);
    dev_free(&to3);
}

static void test_phase2_errors(void)
{
    int64_t s[] = {2, 3};
    float a[6] = {1, 2, 3, 4, 5, 6};
    DevTensor ta = dev_tensor(a, ACL_FLOAT, s, 2);
    DevTensor to = dev_tensor(NULL, ACL_FLOAT, s, 2);
    aclScalar *alpha = scalar_f32(1.0f);

    CHECK_STATUS(aclnnAdd(NULL, 0, NULL, g_stream), ACLNN_ERR_PARAM_NULLPTR);
    CHECK_ERRMSG("aclnnAdd");
    CHECK_ERRMSG("executor");
    CHECK_STATUS(aclnnAdds(NULL, 0, NULL, g_stream), ACLNN_ERR_PARAM_NULLPTR);
    CHECK_STATUS(aclnnInplaceAdd(NULL, 0, NULL, g_stream), ACLNN_ERR_PARAM_NULLPTR);
    CHECK_STATUS(aclnnInplaceAdds(NULL, 0, NULL, g_stream), ACLNN_ERR_PARAM_NULLPTR);

    /* workspace NULL with a non-zero size */
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    CHECK_OK(aclnnAddGetWorkspaceSize(ta.tensor, ta.tensor, alpha, to.tensor, &ws, &ex));
    dev_fill_bytes(&to, SENTINEL_BYTE);
    CHECK_STATUS(aclnnAdd(NULL, ws + 64, ex, g_stream), ACLNN_ERR_PARAM_NULLPTR);
    CHECK_ERRMSG("aclnnAdd");
    CHECK_ERRMSG("workspace");
    CHECK_OK(aclrtSynchronizeStream(g_stream));
    check_untouched(&to);

    /* a workspace smaller than asked for (only testable when one is asked for) */
    CHECK_OK(aclnnAddGetWorkspaceSize(ta.tensor, ta.tensor, alpha, to.tensor, &ws, &ex));
    if (ws > 0) {
        void *small = NULL;
        CHECK_OK(aclrtMalloc(&small, (size_t)ws, ACL_MEM_MALLOC_HUGE_FIRST));
        CHECK_FAILS(aclnnAdd(small, ws - 1, ex, g_stream));
        CHECK_OK(aclrtFree(small));
    } else {
        CHECK_OK(aclnnAdd(NULL, 0, ex, g_stream));
        CHECK_OK(aclrtSynchronizeStream(g_stream));
    }

    /* a pointer that is not an executor */
    int64_t junk[16] = {0};
    CHECK_STATUS(aclnnAdd(NULL, 0, (aclOpExecutor *)(void *)junk, g_stream), ACLNN_ERR_PARAM_INVALID);
    CHECK(strlen(errmsg()) > 0);
    CHECK_STATUS(aclnnAdd(NULL, 0, (aclOpExecutor *)(void *)ta.tensor, g_stream), ACLNN_ERR_PARAM_INVALID);

    CHECK_OK(aclDestroyScalar(alpha));
    dev_free(&ta);
    dev_free(&to);
}

/*
 * A tensor created with tensorData == NULL (allowed: CANN samples do it) that is still NULL
 * when the work runs: an error status from phase 1 or phase 2, never a crash.
 */
static void test_null_tensor_data(void)
{
    int64_t s[] = {2, 3};
    aclTensor *nodata = aclCreateTensor(s, 2, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, s, 2, NULL);
    CHECK(nodata != NULL);
    DevTensor ok = dev_tensor(NULL, ACL_FLOAT, s, 2);
    DevTensor to = dev_tensor(NULL, ACL_FLOAT, s, 2);
    aclScalar *alpha = scalar_f32(1.0f);
    const aclTensor *ins[3][2] = {{nodata, ok.tensor}, {ok.tensor, nodata}, {ok.tensor, ok.tensor}};
    for (int k = 0; k < 3; k++) {
        aclTensor *out = k == 2 ? nodata : to.tensor;
        uint64_t ws = 0;
        aclOpExecutor *ex = NULL;
        dev_fill_bytes(&to, SENTINEL_BYTE);
        aclnnStatus st = aclnnAddGetWorkspaceSize(ins[k][0], ins[k][1], alpha, out, &ws, &ex);
        if (st == ACLNN_SUCCESS) {
            void *w = NULL;
            if (ws > 0) CHECK_OK(aclrtMalloc(&w, (size_t)ws, ACL_MEM_MALLOC_HUGE_FIRST));
            st = aclnnAdd(w, ws, ex, g_stream);
            aclrtSynchronizeStream(g_stream);
            if (w != NULL) CHECK_OK(aclrtFree(w));
            CHECK(st != ACLNN_SUCCESS);
            CHECK_ERRMSG("aclnnAdd");
        } else {
            CHECK(st == ACLNN_ERR_PARAM_INVALID || st == ACLNN_ERR_PARAM_NULLPTR);
            CHECK_ERRMSG(API1);
        }
        CHECK(strlen(errmsg()) > 0);
        check_untouched(&to);
    }
    CHECK_OK(aclDestroyScalar(alpha));
    CHECK_OK(aclDestroyTensor(nodata));
    dev_free(&ok);
    dev_free(&to);
}

/* The message format "<api name>: <message>". */
static void test_message_format(void)
{
    int64_t s[] = {2};
    DevTensor to = dev_tensor(NULL, ACL_FLOAT, s, 1);
    aclScalar *alpha = scalar_f32(1.0f);
    uint64_t ws;
    aclOpExecutor *ex;
    CHECK_STATUS(aclnnAddGetWorkspaceSize(NULL, to.tensor, alpha, to.tensor, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
    const char *m = aclGetRecentErrMsg();
    CHECK(m != NULL);
    CHECK(strncmp(m, API1 ": ", strlen(API1) + 2) == 0);
    CHECK(strlen(m) > strlen(API1) + 2);
    /* a later failure replaces it */
    CHECK(aclCreateTensor(s, 1, (aclDataType)99, NULL, 0, ACL_FORMAT_ND, s, 1, NULL) == NULL);
    m = aclGetRecentErrMsg();
    CHECK(m != NULL && strncmp(m, "aclCreateTensor: ", 17) == 0);
    CHECK_OK(aclDestroyScalar(alpha));
    dev_free(&to);
}

static void *fresh_thread_message(void *arg)
{
    const char **out = (const char **)arg;
    const char *m = aclGetRecentErrMsg();
    /* copy: the pointer is only valid on this thread */
    static char buf[256];
    if (m == NULL) {
        *out = NULL;
    } else {
        snprintf(buf, sizeof(buf), "%s", m);
        *out = buf;
    }
    return NULL;
}

static void *failing_thread(void *arg)
{
    (void)arg;
    aclTensor *t = aclCreateTensor(NULL, 2, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, NULL, 0, NULL);
    return (void *)(uintptr_t)(t == NULL && errmsg_has("aclCreateTensor"));
}

/* aclGetRecentErrMsg is per thread and "" (never NULL) on a thread without errors. */
static void test_message_thread_local(void)
{
    uint64_t ws;
    aclOpExecutor *ex;
    CHECK_STATUS(aclnnAddGetWorkspaceSize(NULL, NULL, NULL, NULL, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
    CHECK_ERRMSG(API1);

    const char *seen = "unset";
    pthread_t th;
    CHECK(pthread_create(&th, NULL, fresh_thread_message, &seen) == 0);
    CHECK(pthread_join(th, NULL) == 0);
    CHECK(seen != NULL);
    CHECK(strcmp(seen, "") == 0);

    void *ok = NULL;
    CHECK(pthread_create(&th, NULL, failing_thread, NULL) == 0);
    CHECK(pthread_join(th, &ok) == 0);
    CHECK(ok != NULL);
    /* the other thread's failure did not replace this thread's message */
    CHECK_ERRMSG(API1);
}

int main(void)
{
    device_init();
    RUN_TEST(test_null_arguments);
    RUN_TEST(test_stale_handles);
    RUN_TEST(test_not_broadcastable);
    RUN_TEST(test_out_shape_mismatch);
    RUN_TEST(test_out_dtype_not_castable);
    RUN_TEST(test_no_promotion);
    RUN_TEST(test_float_alpha_with_int_tensors);
    RUN_TEST(test_rank_9);
    RUN_TEST(test_device_axis_limit);
    RUN_TEST(test_private_format);
    RUN_TEST(test_out_internal_overlap);
    RUN_TEST(test_phase2_errors);
    RUN_TEST(test_null_tensor_data);
    RUN_TEST(test_message_format);
    RUN_TEST(test_message_thread_local);
    device_teardown();
    return capi_finish();
}
