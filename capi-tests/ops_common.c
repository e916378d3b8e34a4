/* The op-test harness shared by the operator tests (see ops_common.h). */
#include "ops_common.h"

/* ================================================================ host values in any dtype */

void put_c(aclDataType dt, void *base, int64_t k, double v)
{
    unsigned char *p = (unsigned char *)base;
    switch ((int)dt) {
    case ACL_FLOAT:
    case ACL_COMPLEX64: {
        float f = (float)v;
        memcpy(p + 4 * k, &f, 4);
        break;
    }
    case ACL_DOUBLE:
    case ACL_COMPLEX128:
        memcpy(p + 8 * k, &v, 8);
        break;
    case ACL_FLOAT16: {
        uint16_t h = f32_to_f16((float)v);
        memcpy(p + 2 * k, &h, 2);
        break;
    }
    case ACL_BF16: {
        uint16_t h = f32_to_bf16((float)v);
        memcpy(p + 2 * k, &h, 2);
        break;
    }
    case ACL_INT8: {
        int8_t x = (int8_t)(int64_t)v;
        memcpy(p + k, &x, 1);
        break;
    }
    case ACL_UINT8: {
        uint8_t x = (uint8_t)(int64_t)v;
        memcpy(p + k, &x, 1);
        break;
    }
    case ACL_INT16: {
        int16_t x = (int16_t)(int64_t)v;
        memcpy(p + 2 * k, &x, 2);
        break;
    }
    case ACL_UINT16: {
        uint16_t x = (uint16_t)(int64_t)v;
        memcpy(p + 2 * k, &x, 2);
        break;
    }
    case ACL_INT32: {
        int32_t x = (int32_t)(int64_t)v;
        memcpy(p + 4 * k, &x, 4);
        break;
    }
    case ACL_UINT32: {
        uint32_t x = (uint32_t)(int64_t)v;
        memcpy(p + 4 * k, &x, 4);
        break;
    }
    case ACL_INT64: {
        int64_t x = (int64_t)v;
        memcpy(p + 8 * k, &x, 8);
        break;
    }
    case ACL_UINT64: {
        uint64_t x = (uint64_t)(int64_t)v;
        memcpy(p + 8 * k, &x, 8);
        break;
    }
    case ACL_BOOL:
        p[k] = v != 0 ? 1 : 0;
        break;
    default:
        CHECK(!"put_c: dtype not handled");
    }
}

/* Reads component k of a `dt` buffer (bool: the raw byte, so a non-0/1 byte shows). */
double get_c(aclDataType dt, const void *base, int64_t k)
{
    const unsigned char *p = (const unsigned char *)base;
    switch ((int)dt) {
    case ACL_FLOAT:
    case ACL_COMPLEX64: {
        float f;
        memcpy(&f, p + 4 * k, 4);
        return f;
    }
    case ACL_DOUBLE:
    case ACL_COMPLEX128: {
        double d;
        memcpy(&d, p + 8 * k, 8);
        return d;
    }
    case ACL_FLOAT16: {
        uint16_t h;
        memcpy(&h, p + 2 * k, 2);
        return f16_to_f32(h);
    }
    case ACL_BF16: {
        uint16_t h;
        memcpy(&h, p + 2 * k, 2);
        return bf16_to_f32(h);
    }
    case ACL_INT8: return (double)(int8_t)p[k];
    case ACL_UINT8: return (double)p[k];
    case ACL_BOOL: return (double)p[k];
    case ACL_INT16: {
        int16_t x;
        memcpy(&x, p + 2 * k, 2);
        return x;
    }
    case ACL_UINT16: {
        uint16_t x;
        memcpy(&x, p + 2 * k, 2);
        return x;
    }
    case ACL_INT32: {
        int32_t x;
        memcpy(&x, p + 4 * k, 4);
        return x;
    }
    case ACL_UINT32: {
        uint32_t x;
        memcpy(&x, p + 4 * k, 4);
        return x;
    }
    case ACL_INT64: {
        int64_t x;
        memcpy(&x, p + 8 * k, 8);
        return (double)x;
    }
    case ACL_UINT64: {
        uint64_t x;
        memcpy(&x, p + 8 * k, 8);
        return (double)x;
    }
    default:
        CHECK(!"get_c: dtype not handled");
    }
    return 0;
}

/* The value `x` as a `dt` element holds it (round to nearest even, integers wrap). */
double quant(aclDataType dt, double x)
{
    if (isnan(x) && !is_flt(dt) && !is_cplx(dt)) return x;
    unsigned char buf[16];
    put_c(dt, buf, 0, x);
    double v = get_c(dt, buf, 0);
    return v;
}

/* A contiguous tensor; `v` holds numel * comps(dt) components (NULL: zeros). */
DevTensor mk(aclDataType dt, const int64_t *shape, size_t n, const double *v)
{
    int64_t numel = shape_numel(shape, n);
    size_t bytes = (size_t)numel * dtype_size(dt);
    void *buf = calloc(1, bytes ? bytes : 1);
    CHECK(buf != NULL);
    if (v != NULL)
        for (int64_t k = 0; k < numel * comps(dt); k++) put_c(dt, buf, k, v[k]);
    DevTensor t = dev_tensor(buf, dt, shape, n);
    free(buf);
    return t;
}

/* A view over a storage of `storage` dims; `sv` fills the storage (NULL: SENT bytes). */
DevTensor mkv(aclDataType dt, const int64_t *storage, size_t sn, const double *sv, const int64_t *shape,
              size_t n, const int64_t *strides, int64_t off)
{
    int64_t numel = shape_numel(storage, sn);
    size_t bytes = (size_t)numel * dtype_size(dt);
    void *buf = malloc(bytes ? bytes : 1);
    CHECK(buf != NULL);
    memset(buf, SENT, bytes ? bytes : 1);
    if (sv != NULL)
        for (int64_t k = 0; k < numel * comps(dt); k++) put_c(dt, buf, k, sv[k]);
    DevTensor t = dev_view(buf, dt, storage, sn, shape, n, strides, off);
    if (sv == NULL) dev_fill_bytes(&t, SENT);
    free(buf);
    return t;
}

/* The whole storage of `t`, as numel * comps components. */
void rd(const DevTensor *t, double *v)
{
    void *buf = malloc(t->bytes ? t->bytes : 1);
    CHECK(buf != NULL);
    dev_read(t, buf);
    for (int64_t k = 0; k < t->numel * comps(t->dtype); k++) v[k] = get_c(t->dtype, buf, k);
    free(buf);
}

/* malloc'd doubles, at least one. */
double *dbl(int64_t n)
{
    double *p = (double *)calloc((size_t)(n > 0 ? n : 1), sizeof(double));
    CHECK(p != NULL);
    return p;
}

aclScalar *mks(aclDataType dt, double re, double im)
{
    unsigned char buf[16];
    memset(buf, 0, sizeof(buf));
    put_c(dt, buf, 0, re);
    if (is_cplx(dt)) put_c(dt, buf, 1, im);
    aclScalar *s = aclCreateScalar(buf, dt);
    CHECK(s != NULL);
    return s;
}

bool close_to(aclDataType dt, double got, double want)
{
    if (isnan(want)) return isnan(got);
    if (isinf(want)) return got == want;
    double m = fabs(want) > 1.0 ? fabs(want) : 1.0;
    switch ((int)dt) {
    case ACL_FLOAT:
    case ACL_COMPLEX64: return fabs(got - want) <= 1e-5 * m;
    case ACL_FLOAT16: return fabs(got - want) <= 2e-3 * m;
    case ACL_BF16: return fabs(got - want) <= 1.6e-2 * m;
    case ACL_DOUBLE:
    case ACL_COMPLEX128: return fabs(got - want) <= 1e-12 * m;
    default: return got == want;
    }
}

/* Whether `got` matches `want` (n components of dtype dt, `want` exact: quantized here). */
bool vals_match(const char *what, aclDataType dt, const double *got, const double *want, int64_t n)
{
    int bad = 0;
    for (int64_t k = 0; k < n; k++) {
        double w = quant(dt, want[k]);
        if (!close_to(dt, got[k], w)) {
            if (bad < 8)
                fprintf(stderr, "    %s[%lld]: got %.17g, want %.17g\n", what, (long long)k, got[k], w);
            bad++;
        }
    }
    return bad == 0;
}

bool exact_match(aclDataType dt, double got, double want)
{
    double w = quant(dt, want);
    if (isnan(w)) return isnan(got);
    return got == w && signbit(got) == signbit(w);
}

bool ulp_match(aclDataType dt, double got, double want, double ulps)
{
    if (is_intlike(dt)) return exact_match(dt, got, want);
    if (isnan(want)) return isnan(got);
    if (isinf(want) || want == 0) return got == want && signbit(got) == signbit(want);
    int mant, emin, emax;
    switch ((int)dt) {
    case ACL_FLOAT16: mant = 10, emin = -14, emax = 15; break;
    case ACL_BF16: mant = 7, emin = -126, emax = 127; break;
    case ACL_DOUBLE:
    case ACL_COMPLEX128: mant = 52, emin = -1022, emax = 1023; break;
    default: mant = 23, emin = -126, emax = 127; break; /* f32 */
    }
    /* beyond the largest finite value the result may overflow to inf of the same sign */
    double max = ldexp(2.0 - ldexp(1.0, -mant), emax);
    if (isinf(got) && fabs(want) >= max) return signbit(got) == signbit(want);
    int e = ilogb(want);
    double ulp = ldexp(1.0, (e < emin ? emin : e) - mant);
    return fabs(got - want) <= ulps * ulp;
}

bool op_vals_match(const Op *op, const char *what, aclDataType dt, const double *got, const double *want, int64_t n)
{
    if (op->match == NULL) return vals_match(what, dt, got, want, n);
    int bad = 0;
    for (int64_t k = 0; k < n; k++)
        if (!op->match(dt, got[k], want[k])) {
            if (bad < 8)
                fprintf(stderr, "    %s[%lld]: got %.17g, want %.17g\n", what, (long long)k, got[k], want[k]);
            bad++;
        }
    return bad == 0;
}

/* ================================================================ views and errors */

int64_t bidx(int64_t lin, const int64_t *os, size_t on, const int64_t *s, size_t sn)
{
    int64_t idx[16] = {0};
    for (size_t k = on; k-- > 0;) {
        idx[k] = os[k] ? lin % os[k] : 0;
        lin = os[k] ? lin / os[k] : 0;
    }
    int64_t r = 0;
    for (size_t k = 0; k < sn; k++) r = r * s[k] + (s[k] == 1 ? 0 : idx[on - sn + k]);
    return r;
}

/* Every byte of `t`'s storage is still SENT. */
void check_untouched_at(const char *file, int line, const DevTensor *t)
{
    if (t == NULL || t->bytes == 0) return;
    unsigned char *b = (unsigned char *)malloc(t->bytes);
    CHECK(b != NULL);
    dev_read(t, b);
    for (size_t i = 0; i < t->bytes; i++)
        if (b[i] != SENT) {
            fprintf(stderr, "    output byte %zu was written on error (0x%02x)\n", i, b[i]);
            free(b);
            capi_fail_cond(file, line, "output untouched on error");
        }
    free(b);
}

void err_check(const char *file, int line, const char *call, long long st, long long want, const char *api,
               const char *param, const DevTensor *outbuf, const aclOpExecutor *ex)
{
    if (st != want) capi_fail_status(file, line, call, st, want);
    if (!errmsg_has(api)) capi_fail_errmsg(file, line, api);
    if (param != NULL && !errmsg_has(param)) capi_fail_errmsg(file, line, param);
    if (ex != NULL) capi_fail_cond(file, line, "no executor written on error");
    CHECK_OK(aclrtSynchronizeStream(g_stream));
    check_untouched_at(file, line, outbuf);
}

/* ================================================================ table-driven operator forms */

aclnnStatus op_run(const Op *op, const Args *x)
{
    uint64_t ws = 12345;
    aclOpExecutor *ex = NULL;
    aclnnStatus st = op->ws(op, x, &ws, &ex);
    if (st != ACLNN_SUCCESS) return st;
    CHECK(ex != NULL);
    run_phase2(op->run, ws, ex);
    return ACLNN_SUCCESS;
}
double gen_v(const Op *op, int which, int64_t i, aclDataType dt)
{
    return quant(dt, op->gen(which, i, is_intlike(dt)));
}

/*
 * The operator on operands of dtypes da/db and shapes as/bs (a scalar operand: its shape
 * is ignored), into out of dtype dout (in-place: the result dtype is da and the shape as).
 * Checks the values and that inputs were not modified.
 */
void op_case(const Op *op, const char *what, aclDataType da, const int64_t *as, size_t an, aclDataType db,
             const int64_t *bs, size_t bn, aclDataType dout)
{
    bool a_scalar = op->kind == K_ST, b_scalar = second_is_scalar(op), unary = is_unary(op);
    int64_t os[16];
    size_t on = 0;
    if (a_scalar) {
        for (size_t k = 0; k < bn; k++) os[k] = bs[k];
        on = bn;
    } else if (b_scalar || unary) {
        for (size_t k = 0; k < an; k++) os[k] = as[k];
        on = an;
    } else {
        CHECK(broadcast_shape(as, an, bs, bn, os, &on));
    }
    if (is_inplace(op)) {
        CHECK(on == an);
        dout = da;
    }
    int64_t na = a_scalar ? 1 : shape_numel(as, an), nb = (b_scalar || unary) ? 1 : shape_numel(bs, bn);
    int64_t no = shape_numel(os, on);
    double *va = dbl(na), *vb = dbl(nb), *want = dbl(no), *got = dbl(no), *back = dbl(na > nb ? na : nb);
    for (int64_t i = 0; i < na; i++) va[i] = gen_v(op, 0, i, da);
    for (int64_t i = 0; i < nb; i++) vb[i] = gen_v(op, 1, i, db);
    for (int64_t lin = 0; lin < no; lin++) {
        double x = a_scalar ? va[0] : va[bidx(lin, os, on, as, an)];
        double y = unary ? 0 : b_scalar ? vb[0] : a_scalar ? vb[bidx(lin, os, on, bs, bn)] : vb[bidx(lin, os, on, bs, bn)];
        want[lin] = op->ref(op, x, y);
    }
    Args x = {NULL, NULL, NULL, NULL, NULL};
    DevTensor A = {0}, B = {0}, O = {0};
    aclScalar *sa = NULL, *sb = NULL;
    if (a_scalar) {
        sa = sc(da, va[0]);
        x.as = sa;
    } else {
        A = mk(da, as, an, va);
        x.a = A.tensor;
    }
    if (b_scalar) {
        sb = sc(db, vb[0]);
        x.bs = sb;
    } else if (!unary) {
        B = mk(db, bs, bn, vb);
        x.b = B.tensor;
    }
    if (!is_inplace(op)) {
        O = mk(dout, os, on, NULL);
        dev_fill_bytes(&O, SENT);
        x.out = O.tensor;
    }
    OP_OK(op, &x);
    if (is_inplace(op)) {
        rd(&A, got);
    } else {
        rd(&O, got);
        if (!a_scalar) {
            rd(&A, back);
            CHECK_VALS("unchanged self", da, back, va, na);
        }
    }
    if (B.tensor != NULL) {
        rd(&B, back);
        CHECK_VALS("unchanged other", db, back, vb, nb);
    }
    if (!op_vals_match(op, what, dout, got, want, no)) {
        fprintf(stderr, "    (%s, %s)\n", op->api, what);
        capi_fail_cond(__FILE__, __LINE__, what);
    }
    if (sa) CHECK_OK(aclDestroyScalar(sa));
    if (sb) CHECK_OK(aclDestroyScalar(sb));
    if (A.tensor) dev_free(&A);
    if (B.tensor) dev_free(&B);
    if (O.tensor) dev_free(&O);
    free(va);
    free(vb);
    free(want);
    free(got);
    free(back);
}

/* Broadcasting (and, for scalar forms, the scalar applied to every element). */
void case_broadcast(const Op *op)
{
    int64_t s23[] = {2, 3}, s3[] = {3}, s31[] = {3, 1}, s14[] = {1, 4}, s234[] = {2, 3, 4}, s14b[] = {4};
    switch (op->kind) {
    case K_TT:
        op_case(op, "(2,3) op (3,)", op->dt, s23, 2, op->dt, s3, 1, op->out_dt);
        op_case(op, "(3,) op (2,3)", op->dt, s3, 1, op->dt, s23, 2, op->out_dt);
        op_case(op, "(3,1) op (1,4)", op->dt, s31, 2, op->dt, s14, 2, op->out_dt);
        op_case(op, "(2,3,4) op (4,)", op->dt, s234, 3, op->dt, s14b, 1, op->out_dt);
        break;
    case K_ITT:
        op_case(op, "selfRef (2,3) op (3,)", op->dt, s23, 2, op->dt, s3, 1, op->dt);
        op_case(op, "selfRef (2,3,4) op (3,1)", op->dt, s234, 3, op->dt, s31, 2, op->dt);
        break;
    case K_TS:
    case K_ITS:
        op_case(op, "(2,3) op scalar", op->dt, s23, 2, op->sdt, NULL, 0, op->out_dt);
        op_case(op, "(2,3,4) op scalar", op->dt, s234, 3, op->sdt, NULL, 0, op->out_dt);
        break;
    case K_ST:
        op_case(op, "scalar op (2,3)", op->sdt, NULL, 0, op->dt, s23, 2, op->out_dt);
        op_case(op, "scalar op (2,3,4)", op->sdt, NULL, 0, op->dt, s234, 3, op->out_dt);
        break;
    case K_U:
    case K_IU:
        op_case(op, "(2,3)", op->dt, s23, 2, op->dt, NULL, 0, op->out_dt);
        op_case(op, "(2,3,4)", op->dt, s234, 3, op->dt, NULL, 0, op->out_dt);
        break;
    }
}

/* Mixed operand dtypes. */
void case_mixed(const Op *op)
{
    if (op->mix_a == UNDEF) return;
    int64_t s23[] = {2, 3}, s3[] = {3};
    switch (op->kind) {
    case K_TT:
        op_case(op, "mixed dtypes", op->mix_a, s23, 2, op->mix_b, s3, 1, op->mix_out);
        op_case(op, "mixed dtypes, swapped", op->mix_b, s23, 2, op->mix_a, s3, 1, op->mix_out);
        break;
    case K_ITT:
        op_case(op, "mixed dtypes", op->mix_a, s23, 2, op->mix_b, s3, 1, op->mix_a);
        break;
    case K_TS:
    case K_ITS:
    case K_U:
    case K_IU:
        op_case(op, "mixed dtypes", op->mix_a, s23, 2, op->mix_b, NULL, 0, op->mix_out);
        break;
    case K_ST:
        op_case(op, "mixed dtypes", op->mix_a, NULL, 0, op->mix_b, s23, 2, op->mix_out);
        break;
    }
}

/* 0-d tensors: alone and broadcast against a (2,3) tensor. */
void case_0d(const Op *op)
{
    int64_t s23[] = {2, 3};
    switch (op->kind) {
    case K_TT:
        op_case(op, "0-d op 0-d", op->dt, NULL, 0, op->dt, NULL, 0, op->out_dt);
        op_case(op, "(2,3) op 0-d", op->dt, s23, 2, op->dt, NULL, 0, op->out_dt);
        op_case(op, "0-d op (2,3)", op->dt, NULL, 0, op->dt, s23, 2, op->out_dt);
        break;
    case K_ITT:
        op_case(op, "0-d selfRef op 0-d", op->dt, NULL, 0, op->dt, NULL, 0, op->dt);
        op_case(op, "selfRef (2,3) op 0-d", op->dt, s23, 2, op->dt, NULL, 0, op->dt);
        break;
    case K_TS:
    case K_ITS:
    case K_U:
    case K_IU:
        op_case(op, "0-d", op->dt, NULL, 0, op->sdt, NULL, 0, op->out_dt);
        break;
    case K_ST:
        op_case(op, "0-d", op->sdt, NULL, 0, op->dt, NULL, 0, op->out_dt);
        break;
    }
}

/* Empty tensors: success, workspace 0, an executor that runs and writes nothing. */
void empty_run(const Op *op, const int64_t *as, size_t an, const int64_t *bs, size_t bn, const int64_t *os,
               size_t on)
{
    DevTensor A = {0}, B = {0}, O = {0};
    aclScalar *sa = NULL, *sb = NULL;
    Args x = {NULL, NULL, NULL, NULL, NULL};
    if (op->kind == K_ST) {
        sa = sc(op->sdt, gen_v(op, 0, 0, op->sdt));
        x.as = sa;
    } else {
        A = mk(op->dt, as, an, NULL);
        x.a = A.tensor;
    }
    if (second_is_scalar(op)) {
        sb = sc(op->sdt, gen_v(op, 1, 0, op->sdt));
        x.bs = sb;
    } else if (!is_unary(op)) {
        B = mk(op->dt, bs, bn, NULL);
        x.b = B.tensor;
    }
    if (!is_inplace(op)) {
        O = mk(op->out_dt, os, on, NULL);
        x.out = O.tensor;
    }
    /* the non-empty operand (if any) and the sentinel storage must stay as they are */
    if (B.tensor != NULL) dev_fill_bytes(&B, SENT);
    uint64_t ws = 777;
    aclOpExecutor *ex = NULL;
    aclnnStatus st = op->ws(op, &x, &ws, &ex);
    if (st != 0) capi_fail_status(__FILE__, __LINE__, op->api, st, 0);
    CHECK(ws == 0);
    CHECK(ex != NULL);
    CHECK_OK(op->run(NULL, 0, ex, g_stream));
    CHECK_OK(aclrtSynchronizeStream(g_stream));
    if (B.tensor != NULL) check_untouched_at(__FILE__, __LINE__, &B);
    if (sa) CHECK_OK(aclDestroyScalar(sa));
    if (sb) CHECK_OK(aclDestroyScalar(sb));
    if (A.tensor) dev_free(&A);
    if (B.tensor) dev_free(&B);
    if (O.tensor) dev_free(&O);
}

void case_empty(const Op *op)
{
    int64_t s03[] = {0, 3}, s3[] = {3}, s20[] = {2, 0}, s21[] = {2, 1}, s0[] = {0};
    switch (op->kind) {
    case K_TT:
        empty_run(op, s03, 2, s3, 1, s03, 2);
        empty_run(op, s3, 1, s03, 2, s03, 2);
        empty_run(op, s21, 2, s20, 2, s20, 2);
        empty_run(op, s0, 1, NULL, 0, s0, 1);
        break;
    case K_ITT:
        empty_run(op, s03, 2, s3, 1, s03, 2);
        empty_run(op, s20, 2, s21, 2, s20, 2);
        break;
    case K_TS:
    case K_ITS:
    case K_U:
    case K_IU:
        empty_run(op, s03, 2, NULL, 0, s03, 2);
        empty_run(op, s0, 1, NULL, 0, s0, 1);
        break;
    case K_ST:
        empty_run(op, NULL, 0, s03, 2, s03, 2);
        break;
    }
}

const int64_t VSTORE[2] = {10, 10}, VSHAPE[2] = {4, 3}, VSTRIDES[2] = {20, 2};

bool in_view(int64_t k)
{
    for (int64_t lin = 0; lin < 12; lin++)
        if (view_pos(lin) == k) return true;
    return false;
}

/*
 * Non-contiguous inputs: a transposed view (strides (1,2) over a 3x2 storage) and, for the
 * second tensor operand, a stride-0 row (strides (0,1)) or a stride-2 slice.
 */
void case_noncontig_input(const Op *op)
{
    int64_t st32[] = {3, 2}, s23[] = {2, 3}, tr[] = {1, 2}, s3[] = {3}, row[] = {0, 1}, s6[] = {6}, two[] = {2};
    bool a_scalar = op->kind == K_ST, b_tensor = op->kind == K_TT || op->kind == K_ITT || a_scalar;
    aclDataType da = a_scalar ? op->sdt : op->dt, db = second_is_scalar(op) ? op->sdt : op->dt;
    double sa[6], sb[6], want[6], got[6];
    for (int i = 0; i < 6; i++) {
        sa[i] = gen_v(op, 0, i, da);
        sb[i] = gen_v(op, 1, i, db);
    }
    Args x = {NULL, NULL, NULL, NULL, NULL};
    DevTensor A = {0}, B = {0}, O = {0};
    aclScalar *ssa = NULL, *ssb = NULL;
    /* first operand: the transpose of a 3x2 storage (element (i,j) = storage[i + 2j]) */
    if (a_scalar) {
        ssa = sc(da, sa[0]);
        x.as = ssa;
    } else {
        A = mkv(da, st32, 2, sa, s23, 2, tr, 0);
        x.a = A.tensor;
    }
    /* second operand: a stride-0 row over 3 elements (element (i,j) = storage[j]), or for
       the scalar-base form the transposed view */
    if (second_is_scalar(op)) {
        ssb = sc(db, sb[0]);
        x.bs = ssb;
    } else if (a_scalar) {
        B = mkv(db, st32, 2, sb, s23, 2, tr, 0);
        x.b = B.tensor;
    } else if (b_tensor) {
        B = mkv(db, s3, 1, sb, s23, 2, row, 0);
        x.b = B.tensor;
    }
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 3; j++) {
            double av = a_scalar ? sa[0] : sa[i + 2 * j];
            double bv = is_unary(op) ? 0 : second_is_scalar(op) ? sb[0] : a_scalar ? sb[i + 2 * j] : sb[j];
            want[i * 3 + j] = op->ref(op, av, bv);
        }
    aclDataType dout = is_inplace(op) ? da : op->out_dt;
    if (!is_inplace(op)) {
        O = mk(dout, s23, 2, NULL);
        x.out = O.tensor;
        OP_OK(op, &x);
        rd(&O, got);
        CHECK_OP_VALS(op, "non-contiguous inputs", dout, got, want, 6);
    } else {
        OP_OK(op, &x);
        /* selfRef was the transposed view: storage[i + 2j] holds result (i,j) */
        double st[6];
        rd(&A, st);
        for (int i = 0; i < 2; i++)
            for (int j = 0; j < 3; j++) got[i * 3 + j] = st[i + 2 * j];
        CHECK_OP_VALS(op, "non-contiguous selfRef and other", dout, got, want, 6);
    }
    if (O.tensor) dev_free(&O);
    if (B.tensor) dev_free(&B);
    if (A.tensor) dev_free(&A);
    if (ssa) CHECK_OK(aclDestroyScalar(ssa));
    if (ssb) CHECK_OK(aclDestroyScalar(ssb));

    /* a (3,) stride-2 slice of 6 elements as the second tensor operand */
    if (op->kind == K_TT || op->kind == K_ITT) {
        double va[6], vb[6];
        for (int i = 0; i < 6; i++) {
            va[i] = gen_v(op, 0, i + 3, op->dt);
            vb[i] = gen_v(op, 1, i + 5, op->dt);
        }
        DevTensor A2 = mk(op->dt, s23, 2, va);
        DevTensor B2 = mkv(op->dt, s6, 1, vb, s3, 1, two, 1); /* elements 1, 3, 5 */
        for (int i = 0; i < 6; i++) want[i] = op->ref(op, va[i], vb[1 + 2 * (i % 3)]);
        Args y = {A2.tensor, NULL, B2.tensor, NULL, NULL};
        DevTensor O2 = {0};
        if (op->kind == K_TT) {
            O2 = mk(op->out_dt, s23, 2, NULL);
            y.out = O2.tensor;
        }
        OP_OK(op, &y);
        if (op->kind == K_TT) {
            rd(&O2, got);
            CHECK_OP_VALS(op, "stride-2 other", op->out_dt, got, want, 6);
            dev_free(&O2);
        } else {
            rd(&A2, got);
            CHECK_OP_VALS(op, "stride-2 other (in place)", op->dt, got, want, 6);
        }
        dev_free(&A2);
        dev_free(&B2);
    }
}

/*
 * A non-contiguous output: the (4,3) seed view of a 10x10 storage; the 88 storage
 * elements outside the view must be untouched. In-place forms: selfRef is that view.
 */
void case_noncontig_output(const Op *op)
{
    int64_t s43[] = {4, 3}, s3[] = {3};
    bool a_scalar = op->kind == K_ST;
    aclDataType da = a_scalar ? op->sdt : op->dt, db = second_is_scalar(op) ? op->sdt : op->dt;
    aclDataType dout = is_inplace(op) ? op->dt : op->out_dt;
    double va[100], vb[12], want[12], st[200];
    for (int i = 0; i < 100; i++) va[i] = gen_v(op, 0, i, da);
    for (int i = 0; i < 12; i++) vb[i] = gen_v(op, 1, i, db);
    Args x = {NULL, NULL, NULL, NULL, NULL};
    DevTensor A = {0}, B = {0}, O = {0};
    aclScalar *ssa = NULL, *ssb = NULL;
    if (a_scalar) {
        ssa = sc(da, va[0]);
        x.as = ssa;
    } else if (is_inplace(op)) {
        A = mkv(da, VSTORE, 2, va, VSHAPE, 2, VSTRIDES, VOFF);
        x.a = A.tensor;
    } else {
        A = mk(da, s43, 2, va);
        x.a = A.tensor;
    }
    if (second_is_scalar(op)) {
        ssb = sc(db, vb[0]);
        x.bs = ssb;
    } else if (a_scalar) {
        B = mk(db, s43, 2, vb);
        x.b = B.tensor;
    } else if (!is_unary(op)) {
        B = mk(db, s3, 1, vb);
        x.b = B.tensor;
    }
    for (int lin = 0; lin < 12; lin++) {
        double av = a_scalar ? va[0] : is_inplace(op) ? va[view_pos(lin)] : va[lin];
        double bv = is_unary(op) ? 0 : second_is_scalar(op) ? vb[0] : a_scalar ? vb[lin] : vb[lin % 3];
        want[lin] = op->ref(op, av, bv);
    }
    const DevTensor *res;
    if (!is_inplace(op)) {
        O = mkv(dout, VSTORE, 2, NULL, VSHAPE, 2, VSTRIDES, VOFF);
        x.out = O.tensor;
        res = &O;
    } else {
        res = &A;
    }
    OP_OK(op, &x);
    /* the view's elements */
    rd(res, st);
    double got[12];
    int64_t c = comps(dout);
    for (int lin = 0; lin < 12; lin++) got[lin] = st[view_pos(lin) * c];
    if (c == 1) CHECK_OP_VALS(op, "non-contiguous output", dout, got, want, 12);
    /* every other storage element is untouched */
    unsigned char *bytes = (unsigned char *)malloc(res->bytes);
    CHECK(bytes != NULL);
    dev_read(res, bytes);
    size_t es = dtype_size(dout);
    unsigned char *orig = NULL;
    if (is_inplace(op)) {
        orig = (unsigned char *)malloc(res->bytes);
        CHECK(orig != NULL);
        for (int64_t k = 0; k < 100; k++) put_c(dout, orig, k, va[k]);
    }
    for (int64_t k = 0; k < 100; k++) {
        if (in_view(k)) continue;
        for (size_t b = 0; b < es; b++) {
            unsigned char w = orig ? orig[k * (int64_t)es + (int64_t)b] : (unsigned char)SENT;
            if (bytes[k * (int64_t)es + (int64_t)b] != w) {
                fprintf(stderr, "    storage element %lld outside the output view was written\n", (long long)k);
                capi_fail_cond(__FILE__, __LINE__, "storage outside the output view untouched");
            }
        }
    }
    free(bytes);
    free(orig);
    if (O.tensor) dev_free(&O);
    if (B.tensor) dev_free(&B);
    if (A.tensor) dev_free(&A);
    if (ssa) CHECK_OK(aclDestroyScalar(ssa));
    if (ssb) CHECK_OK(aclDestroyScalar(ssb));
}

/* Phase 1 with the given args must fail with `status` naming `param`; `outbuf` untouched. */
void op_err_at(const char *file, int line, const Op *op, const Args *x, long long status, const char *param,
               const DevTensor *outbuf)
{
    if (outbuf != NULL) dev_fill_bytes(outbuf, SENT);
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    long long st = op->ws(op, x, &ws, &ex);
    err_check(file, line, op->api, st, status, op->api, param, outbuf, ex);
}

/*
 * The documented errors: NULL arguments (161001); not broadcastable, out shape, out dtype,
 * rank > 8, unsupported dtype, no promotion (161002). Output bytes untouched each time.
 */
void case_errors(const Op *op)
{
    int64_t s23[] = {2, 3}, s3[] = {3}, s4[] = {4}, s32[] = {3, 2}, s123[] = {1, 2, 3};
    int64_t s9[] = {1, 1, 1, 1, 1, 1, 1, 1, 3};
    bool a_scalar = op->kind == K_ST, b_scalar = second_is_scalar(op), unary = is_unary(op);
    bool inplace = is_inplace(op);
    aclDataType da = a_scalar ? op->sdt : op->dt, db = b_scalar ? op->sdt : op->dt;
    double v6[6];
    for (int i = 0; i < 6; i++) v6[i] = gen_v(op, 0, i, op->dt);
    /* operands: a (2,3) tensor (or scalar), b (3,) tensor (or scalar); out (2,3) */
    DevTensor A = {0}, B = {0}, O = {0};
    aclScalar *sa = NULL, *sb = NULL;
    if (a_scalar) sa = sc(da, gen_v(op, 0, 0, da));
    else A = mk(da, s23, 2, v6);
    if (b_scalar) sb = sc(db, gen_v(op, 1, 0, db));
    else if (!unary) B = mk(db, a_scalar ? s23 : s3, a_scalar ? 2 : 1, NULL);
    if (!inplace) O = mk(op->out_dt, s23, 2, NULL);
    const DevTensor *ob = inplace ? &A : &O;
    Args good = {A.tensor, sa, B.tensor, sb, O.tensor};

    /* NULL operands and out */
    Args x = good;
    x.a = NULL;
    x.as = NULL;
    OP_ERR(op, &x, ACLNN_ERR_PARAM_NULLPTR, op->pa, inplace ? NULL : ob);
    if (!unary) {
        x = good;
        x.b = NULL;
        x.bs = NULL;
        OP_ERR(op, &x, ACLNN_ERR_PARAM_NULLPTR, op->pb, ob);
    }
    if (!inplace) {
        x = good;
        x.out = NULL;
        OP_ERR(op, &x, ACLNN_ERR_PARAM_NULLPTR, out_name(op), NULL);
    }
    /* NULL workspaceSize / executor */
    {
        uint64_t ws = 0;
        aclOpExecutor *ex = NULL;
        dev_fill_bytes(ob, SENT);
        long long st = op->ws(op, &good, NULL, &ex);
        err_check(__FILE__, __LINE__, op->api, st, ACLNN_ERR_PARAM_NULLPTR, op->api, "workspaceSize", ob, ex);
        st = op->ws(op, &good, &ws, NULL);
        err_check(__FILE__, __LINE__, op->api, st, ACLNN_ERR_PARAM_NULLPTR, op->api, "executor", ob, NULL);
    }
    /* a destroyed tensor handle */
    if (!unary && !b_scalar) {
        aclTensor *dead = aclCreateTensor(s3, 1, db, NULL, 0, ACL_FORMAT_ND, s3, 1, B.dev);
        CHECK(dead != NULL);
        CHECK_OK(aclDestroyTensor(dead));
        x = good;
        x.b = dead;
        OP_ERR(op, &x, ACLNN_ERR_PARAM_INVALID, op->pb, ob);
    }

    /* not broadcastable: (2,3) with (4,) */
    if (op->kind == K_TT || op->kind == K_ITT) {
        DevTensor B4 = mk(op->dt, s4, 1, NULL);
        x = good;
        x.b = B4.tensor;
        OP_ERR(op, &x, ACLNN_ERR_PARAM_INVALID, op->pb, ob);
        if (!errmsg_has_shape(s4, 1) || !errmsg_has_shape(s23, 2)) {
            fprintf(stderr, "    (%s) the broadcast error must name both shapes [2,3] and [4]\n", op->api);
            capi_fail_cond(__FILE__, __LINE__, "broadcast error names both shapes");
        }
        dev_free(&B4);
    }
    /* in place: the broadcast shape must be selfRef's shape: (3,) selfRef with a (2,3) other */
    if (op->kind == K_ITT) {
        DevTensor R3 = mk(op->dt, s3, 1, NULL);
        DevTensor B23 = mk(op->dt, s23, 2, NULL);
        x = good;
        x.a = R3.tensor;
        x.b = B23.tensor;
        OP_ERR(op, &x, ACLNN_ERR_PARAM_INVALID, op->pa, &R3);
        dev_free(&R3);
        dev_free(&B23);
    }
    /* out of the wrong shape: (3,2), (1,2,3), (3,) */
    if (!inplace) {
        const int64_t *shapes[] = {s32, s123, s3};
        size_t ranks[] = {2, 3, 1};
        for (size_t i = 0; i < 3; i++) {
            DevTensor Ob = mk(op->out_dt, shapes[i], ranks[i], NULL);
            x = good;
            x.out = Ob.tensor;
            OP_ERR(op, &x, ACLNN_ERR_PARAM_INVALID, out_name(op), &Ob);
            dev_free(&Ob);
        }
    }
    /* out dtype the result cannot be cast to; in place: a selfRef dtype that cannot hold the result */
    if (op->bad_out != UNDEF) {
        if (!inplace) {
            DevTensor Ob = mk(op->bad_out, s23, 2, NULL);
            x = good;
            x.out = Ob.tensor;
            OP_ERR(op, &x, ACLNN_ERR_PARAM_INVALID, out_name(op), &Ob);
            dev_free(&Ob);
        } else {
            DevTensor R = mk(op->bad_out, s23, 2, NULL);
            DevTensor Bb = {0};
            aclScalar *sbb = NULL;
            x = good;
            x.a = R.tensor;
            if (b_scalar) {
                sbb = sc(op->bad_out_b, 1);
                x.bs = sbb;
            } else if (!unary) {
                Bb = mk(op->bad_out_b, s3, 1, NULL);
                x.b = Bb.tensor;
            }
            OP_ERR(op, &x, ACLNN_ERR_PARAM_INVALID, op->pa, &R);
            if (sbb) CHECK_OK(aclDestroyScalar(sbb));
            if (Bb.tensor) dev_free(&Bb);
            dev_free(&R);
        }
    }
    /* more than 8 dims */
    if (!a_scalar) {
        DevTensor A9 = mk(op->dt, s9, 9, NULL);
        DevTensor O9 = {0};
        x = good;
        x.a = A9.tensor;
        if (!inplace) {
            O9 = mk(op->out_dt, s9, 9, NULL);
            x.out = O9.tensor;
        }
        OP_ERR(op, &x, ACLNN_ERR_PARAM_INVALID, op->pa, inplace ? &A9 : &O9);
        if (O9.tensor) dev_free(&O9);
        dev_free(&A9);
    } else {
        DevTensor B9 = mk(op->dt, s9, 9, NULL), O9 = mk(op->out_dt, s9, 9, NULL);
        x = good;
        x.b = B9.tensor;
        x.out = O9.tensor;
        OP_ERR(op, &x, ACLNN_ERR_PARAM_INVALID, op->pb, &O9);
        dev_free(&B9);
        dev_free(&O9);
    }
    /* an unsupported operand dtype, first and second operand */
    if (op->bad_in != UNDEF) {
        if (!a_scalar) {
            DevTensor Ab = mk(op->bad_in, s23, 2, NULL);
            x = good;
            x.a = Ab.tensor;
            OP_ERR(op, &x, ACLNN_ERR_PARAM_INVALID, op->pa, inplace ? &Ab : ob);
            dev_free(&Ab);
        } else {
            aclScalar *s = sc(op->bad_in, 1);
            x = good;
            x.as = s;
            OP_ERR(op, &x, ACLNN_ERR_PARAM_INVALID, op->pa, ob);
            CHECK_OK(aclDestroyScalar(s));
        }
        if (b_scalar) {
            aclScalar *s = sc(op->bad_in, 1);
            x = good;
            x.bs = s;
            OP_ERR(op, &x, ACLNN_ERR_PARAM_INVALID, op->pb, ob);
            CHECK_OK(aclDestroyScalar(s));
        } else if (!unary) {
            DevTensor Bb = mk(op->bad_in, a_scalar ? s23 : s3, a_scalar ? 2 : 1, NULL);
            x = good;
            x.b = Bb.tensor;
            OP_ERR(op, &x, ACLNN_ERR_PARAM_INVALID, op->pb, ob);
            dev_free(&Bb);
        }
    }
    /* operands that cannot be promoted */
    if (op->np_a != UNDEF && !unary) {
        DevTensor An = {0}, Bn = {0}, On = {0};
        aclScalar *sn = NULL;
        x = good;
        if (a_scalar) {
            sn = sc(op->np_a, 1);
            x.as = sn;
            Bn = mk(op->np_b, s23, 2, NULL);
            x.b = Bn.tensor;
        } else {
            An = mk(op->np_a, s23, 2, NULL);
            x.a = An.tensor;
            if (b_scalar) {
                sn = sc(op->np_b, 1);
                x.bs = sn;
            } else {
                Bn = mk(op->np_b, s3, 1, NULL);
                x.b = Bn.tensor;
            }
        }
        const DevTensor *obn = ob;
        if (inplace) obn = &An;
        OP_ERR(op, &x, ACLNN_ERR_PARAM_INVALID, NULL, obn);
        if (sn) CHECK_OK(aclDestroyScalar(sn));
        if (An.tensor) dev_free(&An);
        if (Bn.tensor) dev_free(&Bn);
        if (On.tensor) dev_free(&On);
    }
    /* an output whose elements overlap each other (stride 0 on a dim of size 2): invalid */
    if (!a_scalar) {
        int64_t s3v[] = {3}, z01[] = {0, 1};
        DevTensor Ov = mkv(inplace ? op->dt : op->out_dt, s3v, 1, NULL, s23, 2, z01, 0);
        x = good;
        if (inplace) x.a = Ov.tensor;
        else x.out = Ov.tensor;
        OP_ERR(op, &x, ACLNN_ERR_PARAM_INVALID, inplace ? op->pa : out_name(op), &Ov);
        dev_free(&Ov);
    }
    /* a private device format */
    if (!a_scalar) {
        aclTensor *pf = aclCreateTensor(s23, 2, op->dt, NULL, 0, ACL_FORMAT_FRACTAL_NZ, s23, 2, A.dev);
        if (pf != NULL) {
            x = good;
            x.a = pf;
            OP_ERR(op, &x, ACLNN_ERR_PARAM_INVALID, op->pa, inplace ? NULL : ob);
            CHECK_OK(aclDestroyTensor(pf));
        }
    }

    if (sa) CHECK_OK(aclDestroyScalar(sa));
    if (sb) CHECK_OK(aclDestroyScalar(sb));
    if (A.tensor) dev_free(&A);
    if (B.tensor) dev_free(&B);
    if (O.tensor) dev_free(&O);
}

/*
 * Outputs aliasing inputs (SEMANTICS section 2: computed as if every input were read before
 * any output element is written): out == self, and an operand that is a view of the output's
 * own storage (its first row, broadcast over both rows).
 */
void case_alias(const Op *op)
{
    int64_t s23[] = {2, 3}, s3[] = {3};
    double v[6], w[6], want[6], got[6];
    for (int i = 0; i < 6; i++) {
        v[i] = gen_v(op, 0, i, op->dt);
        w[i] = gen_v(op, 1, i, op->kind == K_TS || op->kind == K_ITS || op->kind == K_ST ? op->sdt : op->dt);
    }
    DevTensor T = mk(op->dt, s23, 2, v);
    aclTensor *row = aclCreateTensor(s3, 1, op->dt, NULL, 0, ACL_FORMAT_ND, s23, 2, T.dev);
    CHECK(row != NULL);
    aclScalar *s = NULL;
    Args x = {NULL, NULL, NULL, NULL, NULL};
    const char *what = NULL;
    switch (op->kind) {
    case K_TT: /* self = out = T, other = T's first row */
        x.a = T.tensor;
        x.b = row;
        x.out = T.tensor;
        for (int k = 0; k < 6; k++) want[k] = op->ref(op, v[k], v[k % 3]);
        what = "out == self, other = a view of self's first row";
        break;
    case K_ITT: /* other = selfRef's first row */
        x.a = T.tensor;
        x.b = row;
        for (int k = 0; k < 6; k++) want[k] = op->ref(op, v[k], v[k % 3]);
        what = "other = a view of selfRef's first row";
        break;
    case K_TS:
        s = sc(op->sdt, w[0]);
        x.a = T.tensor;
        x.bs = s;
        x.out = T.tensor;
        for (int k = 0; k < 6; k++) want[k] = op->ref(op, v[k], w[0]);
        what = "out == self";
        break;
    case K_ST:
        s = sc(op->sdt, w[0]);
        x.as = s;
        x.b = T.tensor;
        x.out = T.tensor;
        for (int k = 0; k < 6; k++) want[k] = op->ref(op, w[0], v[k]);
        what = "out == exponent";
        break;
    case K_U:
        x.a = T.tensor;
        x.out = T.tensor;
        for (int k = 0; k < 6; k++) want[k] = op->ref(op, v[k], 0);
        what = "out == self";
        break;
    default:
        break;
    }
    if (what != NULL) {
        OP_OK(op, &x);
        rd(&T, got);
        if (!op_vals_match(op, what, op->dt, got, want, 6)) {
            fprintf(stderr, "    (%s with %s, dtype %d: every input must be read before the output is written)\n",
                    op->api, what, (int)op->dt);
            capi_fail_cond(__FILE__, __LINE__, what);
        }
    }
    if (s) CHECK_OK(aclDestroyScalar(s));
    CHECK_OK(aclDestroyTensor(row));
    dev_free(&T);
}

/*
 * The device's merged-axes limit (SEMANTICS section 3) for computation dtype `dt` (f64, s16,
 * ...): (5,1,5,1,5,1) with (5,5,5,5,5,5) leaves 6 axes: refused; (5,1,5,5,1,1) merges to 4:
 * accepted, with the right values. Tensor-tensor forms only; `dout` is out's dtype.
 */
void case_axis_limit(const Op *op, aclDataType dt, aclDataType dout)
{
    int64_t full[] = {5, 5, 5, 5, 5, 5}, bad[] = {5, 1, 5, 1, 5, 1}, good[] = {5, 1, 5, 5, 1, 1};
    DevTensor F6 = mk(dt, full, 6, NULL), B6 = mk(dt, bad, 6, NULL), O6 = {0};
    Args x = {NULL, NULL, NULL, NULL, NULL};
    if (op->kind == K_TT) {
        O6 = mk(dout, full, 6, NULL);
        Args y = {B6.tensor, NULL, F6.tensor, NULL, O6.tensor};
        x = y;
        OP_ERR(op, &x, ACLNN_ERR_PARAM_INVALID, op->pa, &O6);
        Args z = {F6.tensor, NULL, B6.tensor, NULL, O6.tensor};
        OP_ERR(op, &z, ACLNN_ERR_PARAM_INVALID, op->pb, &O6);
        op_case(op, "6-d broadcast merging to 4 axes", dt, good, 6, dt, full, 6, dout);
        op_case(op, "6-d broadcast merging to 4 axes, swapped", dt, full, 6, dt, good, 6, dout);
    } else if (op->kind == K_ITT) {
        Args y = {F6.tensor, NULL, B6.tensor, NULL, NULL};
        OP_ERR(op, &y, ACLNN_ERR_PARAM_INVALID, op->pb, &F6);
        op_case(op, "6-d broadcast merging to 4 axes", dt, full, 6, dt, good, 6, dt);
    }
    if (O6.tensor) dev_free(&O6);
    dev_free(&F6);
    dev_free(&B6);
}

/* Every table-driven case for one operator form. */
void run_generic(const Op *op)
{
    printf("  %s\n", op->api);
    fflush(stdout);
    case_broadcast(op);
    case_noncontig_input(op);
    case_noncontig_output(op);
    case_mixed(op);
    case_0d(op);
    case_empty(op);
    case_errors(op);
    case_alias(op);
}

void run_table(const Op *ops, size_t n)
{
    for (size_t i = 0; i < n; i++) run_generic(&ops[i]);
}

/* Runs phase 1 (`call`, which may use `ews`/`eex`) that must succeed, then phase 2. */
