/*
 * Convolution through the C ABI (reference 5.7): 1-D/2-D/3-D, stride/padding (2-D also
 * [top, bottom, left, right])/dilation/groups, bias or NULL, transposed with outputPadding,
 * f16/bf16 tensors, channels-last data passed as an NCHW view, empty batches, and the
 * documented errors (161001 for NULL, 161002 otherwise, the message naming the API and the
 * parameter, the output untouched).
 *
 * Values are small integers, so every sum is exact in f32 and the expected values (plain
 * double loops written from the definition) must match after one rounding into the
 * output's dtype. The random differential tests are in src/tests/conv_diff.rs.
 */
#include "ops_common.h"

#include "aclnnop/aclnn_convolution.h"

#define F ACL_FLOAT
#define H ACL_FLOAT16
#define BF ACL_BF16

/* CANN's prototypes, top-level const included: a redeclaration compatible with the header. */
aclnnStatus aclnnConvolutionGetWorkspaceSize(const aclTensor *input, const aclTensor *weight, const aclTensor *bias,
                                             const aclIntArray *stride, const aclIntArray *padding,
                                             const aclIntArray *dilation, bool transposed,
                                             const aclIntArray *outputPadding, const int64_t groups,
                                             aclTensor *output, int8_t cubeMathType, uint64_t *workspaceSize,
                                             aclOpExecutor **executor);
aclnnStatus aclnnConvolution(void *workspace, const uint64_t workspaceSize, aclOpExecutor *executor,
                             aclrtStream stream);

static const char *const API = "aclnnConvolutionGetWorkspaceSize";

static aclFormat layout(size_t rank) { return rank == 3 ? ACL_FORMAT_NCL : rank == 4 ? ACL_FORMAT_NCHW : ACL_FORMAT_NCDHW; }

/* Re-creates t's tensor as (shape, strides, offset) over its storage with format `fmt`. */
static void refmt(DevTensor *t, const int64_t *storage, size_t sn, const int64_t *shape, size_t n,
                  const int64_t *strides, int64_t off, aclFormat fmt)
{
    CHECK_OK(aclDestroyTensor(t->tensor));
    t->tensor = aclCreateTensor(shape, n, t->dtype, strides, off, fmt, storage, sn, t->dev);
    CHECK(t->tensor != NULL);
}

/* A contiguous tensor in format `fmt`. */
static DevTensor mkf(aclDataType dt, const int64_t *shape, size_t n, const double *v, aclFormat fmt)
{
    DevTensor t = mk(dt, shape, n, v);
    int64_t st[8];
    contiguous_strides(shape, n, st);
    refmt(&t, shape, n, shape, n, st, 0, fmt);
    return t;
}
static DevTensor mkc(aclDataType dt, const int64_t *shape, size_t n, const double *v)
{
    return mkf(dt, shape, n, v, n == 1 ? ACL_FORMAT_ND : layout(n));
}

typedef struct {
    size_t sp;                    /* spatial dims */
    int64_t x[5], w[5], y[5];     /* shapes */
    int64_t stride[3], dil[3], op[3];
    int64_t pad[6];               /* as passed */
    size_t npad;
    int64_t groups;
    bool transposed;
} Geo;

static int64_t pad_begin(const Geo *g, size_t i) { return g->npad == g->sp ? g->pad[i] : g->pad[2 * i]; }

/* The definition, in double; x, w contiguous; y zeroed, of shape g->y. */
static void ref_conv(const Geo *g, const double *x, const double *w, const double *b, double *y)
{
    int64_t in[3] = {1, 1, 1}, k[3] = {1, 1, 1}, o[3] = {1, 1, 1}, s[3] = {1, 1, 1}, d[3] = {1, 1, 1}, p[3] = {0, 0, 0};
    for (size_t i = 0; i < g->sp; i++) {
        size_t j = 3 - g->sp + i;
        in[j] = g->x[2 + i], k[j] = g->w[2 + i], o[j] = g->y[2 + i];
        s[j] = g->stride[i], d[j] = g->dil[i], p[j] = pad_begin(g, i);
    }
    int64_t N = g->x[0], cin = g->x[1], cout = g->y[1], G = g->groups;
    int64_t cin_g = cin / G, cout_g = cout / G, P = o[0] * o[1] * o[2], Q = in[0] * in[1] * in[2], K = k[0] * k[1] * k[2];
    for (int64_t n = 0; n < N; n++)
        for (int64_t co = 0; co < cout; co++)
            for (int64_t q = 0; q < P; q++) y[(n * cout + co) * P + q] = b ? b[co] : 0;
    for (int64_t n = 0; n < N; n++)
        for (int64_t gg = 0; gg < G; gg++)
            for (int64_t ci = 0; ci < cin_g; ci++)
                for (int64_t co = 0; co < cout_g; co++)
                    for (int64_t kd = 0; kd < k[0]; kd++)
                        for (int64_t kh = 0; kh < k[1]; kh++)
                            for (int64_t kw = 0; kw < k[2]; kw++) {
                                int64_t kl = (kd * k[1] + kh) * k[2] + kw;
                                double wv = g->transposed ? w[((gg * cin_g + ci) * cout_g + co) * K + kl]
                                                          : w[((gg * cout_g + co) * cin_g + ci) * K + kl];
                                const double *xc = x + (n * cin + gg * cin_g + ci) * Q;
                                double *yc = y + (n * cout + gg * cout_g + co) * P;
                                /* Walk the positions of one side (forward: output; transposed:
                                 * input); the other side's position is pos * stride - pad + k * dil. */
                                const int64_t *walk = g->transposed ? in : o, *other = g->transposed ? o : in;
                                int64_t kk[3] = {kd, kh, kw};
                                int64_t pos[3];
                                for (pos[0] = 0; pos[0] < walk[0]; pos[0]++)
                                    for (pos[1] = 0; pos[1] < walk[1]; pos[1]++)
                                        for (pos[2] = 0; pos[2] < walk[2]; pos[2]++) {
                                            int64_t at[3];
                                            bool inside = true;
                                            for (int i = 0; i < 3; i++) {
                                                at[i] = pos[i] * s[i] - p[i] + kk[i] * d[i];
                                                inside = inside && at[i] >= 0 && at[i] < other[i];
                                            }
                                            if (!inside) continue;
                                            int64_t lw = (pos[0] * walk[1] + pos[1]) * walk[2] + pos[2];
                                            int64_t lo = (at[0] * other[1] + at[1]) * other[2] + at[2];
                                            if (g->transposed)
                                                yc[lo] += wv * xc[lw];
                                            else
                                                yc[lw] += wv * xc[lo];
                                        }
                            }
}

static aclIntArray *ia(const int64_t *v, size_t n) { return aclCreateIntArray(v, n); }

static aclnnStatus conv_ws(const Geo *g, const aclTensor *x, const aclTensor *w, const aclTensor *b, aclTensor *y,
                           int8_t cube, uint64_t *ws, aclOpExecutor **ex)
{
    aclIntArray *s = ia(g->stride, g->sp), *p = ia(g->pad, g->npad), *d = ia(g->dil, g->sp), *op = ia(g->op, g->sp);
    aclnnStatus st = aclnnConvolutionGetWorkspaceSize(x, w, b, s, p, d, g->transposed, op, g->groups, y, cube, ws, ex);
    aclDestroyIntArray(s);
    aclDestroyIntArray(p);
    aclDestroyIntArray(d);
    aclDestroyIntArray(op);
    return st;
}

/* Channels-last strides of an N, C, spatial... shape (C innermost, then W, H, D, N). */
static void cl_strides(const int64_t *shape, size_t r, int64_t *st)
{
    int64_t acc = 1;
    st[1] = acc, acc *= shape[1];
    for (size_t i = r - 1; i >= 2; i--) st[i] = acc, acc *= shape[i];
    st[0] = acc;
}

/* Storage position of the row-major element `l` of `shape` laid out with strides `st`. */
static int64_t strided_pos(const int64_t *shape, const int64_t *st, size_t r, int64_t l)
{
    int64_t pos = 0;
    for (size_t i = r; i-- > 0;) pos += (l % shape[i]) * st[i], l /= shape[i];
    return pos;
}

static double *seq(int64_t n, int64_t mul, int64_t mod, int64_t shift)
{
    double *v = dbl(n);
    for (int64_t i = 0; i < n; i++) v[i] = (double)((i * mul) % mod) - (double)shift;
    return v;
}

/*
 * One case: contiguous weight/bias, input contiguous or channels-last (a permuted NCHW
 * view), output of dtype `dy` (contiguous or channels-last), checks every output value.
 */
static void conv_case(const char *what, const Geo *g, aclDataType dx, aclDataType dy, bool bias, bool channels_last)
{
    size_t r = g->sp + 2;
    int64_t nx = shape_numel(g->x, r), nw = shape_numel(g->w, r), ny = shape_numel(g->y, r);
    double *xv = seq(nx, 7, 5, 2), *wv = seq(nw, 3, 7, 3), *bv = seq(g->y[1], 5, 9, 4);
    double *want = dbl(ny), *got = dbl(ny);
    ref_conv(g, xv, wv, bias ? bv : NULL, want);
    DevTensor X = mkc(dx, g->x, r, xv), W = mkc(dx, g->w, r, wv), B = mkc(dx, &g->y[1], 1, bv);
    DevTensor Y = mkc(dy, g->y, r, NULL);
    if (channels_last) {
        /* The same values laid out N, spatial..., C: a permuted view in NCHW order. */
        int64_t st[5], yst[5];
        cl_strides(g->x, r, st);
        cl_strides(g->y, r, yst);
        double *perm = dbl(nx);
        for (int64_t l = 0; l < nx; l++) perm[strided_pos(g->x, st, r, l)] = xv[l];
        dev_free(&X);
        X = mkc(dx, g->x, r, perm);
        refmt(&X, g->x, r, g->x, r, st, 0, layout(r));
        free(perm);
        refmt(&Y, g->y, r, g->y, r, yst, 0, layout(r));
        RUN2(conv_ws(g, X.tensor, W.tensor, bias ? B.tensor : NULL, Y.tensor, 1, &ews, &eex), aclnnConvolution);
        double *raw = dbl(ny);
        rd(&Y, raw);
        for (int64_t l = 0; l < ny; l++) got[l] = raw[strided_pos(g->y, yst, r, l)];
        free(raw);
    } else {
        RUN2(conv_ws(g, X.tensor, W.tensor, bias ? B.tensor : NULL, Y.tensor, 0, &ews, &eex), aclnnConvolution);
        rd(&Y, got);
    }
    if (!vals_match(what, dy, got, want, ny)) capi_fail_cond(__FILE__, __LINE__, what);
    free(xv);
    free(wv);
    free(bv);
    free(want);
    free(got);
    dev_free(&X);
    dev_free(&W);
    dev_free(&B);
    dev_free(&Y);
}

static void test_conv2d(void)
{
    /* 3x3, stride 2, padding 1, groups 2, bias; the ResNet shape in small. */
    Geo g = {2, {2, 4, 7, 6}, {6, 2, 3, 3}, {2, 6, 4, 3}, {2, 2}, {1, 1}, {0, 0}, {1, 1}, 2, 2, false};
    conv_case("conv2d", &g, F, F, true, false);
    conv_case("conv2d no bias", &g, F, F, false, false);
    conv_case("conv2d channels-last", &g, F, F, true, true);
    conv_case("conv2d f16", &g, H, H, true, false);
    conv_case("conv2d bf16", &g, BF, BF, true, true);
    conv_case("conv2d f32 into f16", &g, F, H, true, false);
    /* Wide enough for several im2col blocks (each a few output rows). */
    Geo wide = {2, {1, 64, 8, 64}, {4, 64, 3, 3}, {1, 4, 8, 64}, {1, 1}, {1, 1}, {0, 0}, {1, 1}, 2, 1, false};
    conv_case("conv2d in several blocks", &wide, F, F, true, false);
    conv_case("conv2d in several blocks into f16", &wide, F, H, true, true);
    /* Asymmetric padding [top, bottom, left, right], dilation 2. */
    Geo a = {2, {1, 2, 6, 6}, {3, 2, 3, 2}, {1, 3, 5, 7}, {1, 1}, {2, 2}, {0, 0}, {0, 3, 1, 2}, 4, 1, false};
    conv_case("conv2d asymmetric padding", &a, F, F, true, false);
    /* Depthwise (groups = channels) and a pointwise 1x1 conv. */
    Geo dw = {2, {1, 3, 5, 5}, {3, 1, 3, 3}, {1, 3, 5, 5}, {1, 1}, {1, 1}, {0, 0}, {1, 1}, 2, 3, false};
    conv_case("depthwise", &dw, F, F, true, true);
    Geo pw = {2, {2, 5, 4, 3}, {4, 5, 1, 1}, {2, 4, 4, 3}, {1, 1}, {1, 1}, {0, 0}, {0, 0}, 2, 1, false};
    conv_case("pointwise", &pw, F, F, true, false);
    conv_case("pointwise channels-last", &pw, F, F, false, true);
}

static void test_conv1d_3d(void)
{
    Geo c1 = {1, {2, 3, 9}, {4, 3, 3}, {2, 4, 4}, {2}, {1}, {0}, {1, 0}, 2, 1, false};
    conv_case("conv1d [begin, end] padding", &c1, F, F, true, false);
    Geo c3 = {3, {1, 2, 4, 5, 3}, {2, 1, 2, 3, 1}, {1, 2, 5, 3, 3}, {1, 2, 1}, {1, 1, 1}, {0, 0, 0}, {1, 1, 0}, 3, 2, false};
    conv_case("conv3d", &c3, F, F, true, true);
    conv_case("conv3d f16", &c3, H, H, false, false);
}

static void test_transposed(void)
{
    /* conv_transpose1d: stride 2, padding 1, outputPadding 1, groups 2. */
    Geo t1 = {1, {1, 4, 5}, {4, 3, 3}, {1, 6, 10}, {2}, {1}, {1}, {1}, 1, 2, true};
    conv_case("conv_transpose1d", &t1, F, F, true, false);
    /* conv_transpose2d: stride (2, 1), dilation (1, 2), padding (0, 1). */
    Geo t2 = {2, {2, 2, 3, 4}, {2, 3, 2, 3}, {2, 3, 6, 6}, {2, 1}, {1, 2}, {0, 0}, {0, 1}, 2, 1, true};
    conv_case("conv_transpose2d", &t2, F, F, true, false);
    conv_case("conv_transpose2d channels-last f16", &t2, H, H, true, true);
    Geo t3 = {3, {1, 2, 2, 2, 3}, {2, 2, 2, 2, 2}, {1, 2, 5, 3, 4}, {2, 1, 1}, {1, 1, 1}, {1, 0, 0}, {0, 0, 0}, 3, 1, true};
    conv_case("conv_transpose3d", &t3, F, F, false, false);
}

static void test_empty(void)
{
    int64_t xs[] = {0, 2, 5, 5}, ws[] = {3, 2, 3, 3}, ys[] = {0, 3, 3, 3};
    DevTensor X = mkc(F, xs, 4, NULL), W = mkc(F, ws, 4, NULL), Y = mkc(F, ys, 4, NULL);
    Geo g = {2, {0}, {0}, {0}, {1, 1}, {1, 1}, {0, 0}, {0, 0}, 2, 1, false};
    uint64_t w = 1;
    aclOpExecutor *ex = NULL;
    CHECK_OK(conv_ws(&g, X.tensor, W.tensor, NULL, Y.tensor, 0, &w, &ex));
    CHECK(w == 0 && ex != NULL);
    run_phase2(aclnnConvolution, w, ex);
    dev_free(&X);
    dev_free(&W);
    dev_free(&Y);
}

static void test_errors(void)
{
    int64_t xs[] = {1, 4, 6, 6}, ws[] = {8, 2, 3, 3}, bs[] = {8}, ys[] = {1, 8, 6, 6};
    DevTensor X = mkc(F, xs, 4, NULL), W = mkc(F, ws, 4, NULL), B = mkc(F, bs, 1, NULL), Y = mkc(F, ys, 4, NULL);
    int64_t one2[] = {1, 1}, zero2[] = {0, 0};
    aclIntArray *s = ia(one2, 2), *p = ia(one2, 2), *d = ia(one2, 2), *op = ia(zero2, 2);
    const aclTensor *x = X.tensor, *w = W.tensor, *b = B.tensor;
    aclTensor *y = Y.tensor;
    /* The baseline is valid. */
    RUN2(aclnnConvolutionGetWorkspaceSize(x, w, b, s, p, d, false, op, 2, y, 1, &ews, &eex), aclnnConvolution);
    /* NULLs: 161001 naming the parameter. */
    EXPECT_ERR(aclnnConvolutionGetWorkspaceSize(NULL, w, b, s, p, d, false, op, 2, y, 1, &ews, &eex),
               ACLNN_ERR_PARAM_NULLPTR, API, "input", &Y);
    EXPECT_ERR(aclnnConvolutionGetWorkspaceSize(x, NULL, b, s, p, d, false, op, 2, y, 1, &ews, &eex),
               ACLNN_ERR_PARAM_NULLPTR, API, "weight", &Y);
    EXPECT_ERR(aclnnConvolutionGetWorkspaceSize(x, w, b, NULL, p, d, false, op, 2, y, 1, &ews, &eex),
               ACLNN_ERR_PARAM_NULLPTR, API, "stride", &Y);
    EXPECT_ERR(aclnnConvolutionGetWorkspaceSize(x, w, b, s, NULL, d, false, op, 2, y, 1, &ews, &eex),
               ACLNN_ERR_PARAM_NULLPTR, API, "padding", &Y);
    EXPECT_ERR(aclnnConvolutionGetWorkspaceSize(x, w, b, s, p, NULL, false, op, 2, y, 1, &ews, &eex),
               ACLNN_ERR_PARAM_NULLPTR, API, "dilation", &Y);
    EXPECT_ERR(aclnnConvolutionGetWorkspaceSize(x, w, b, s, p, d, false, NULL, 2, y, 1, &ews, &eex),
               ACLNN_ERR_PARAM_NULLPTR, API, "outputPadding", &Y);
    EXPECT_ERR(aclnnConvolutionGetWorkspaceSize(x, w, b, s, p, d, false, op, 2, NULL, 1, &ews, &eex),
               ACLNN_ERR_PARAM_NULLPTR, API, "output", &Y);
    EXPECT_ERR(aclnnConvolutionGetWorkspaceSize(x, w, b, s, p, d, false, op, 2, y, 1, NULL, &eex),
               ACLNN_ERR_PARAM_NULLPTR, API, "workspaceSize", &Y);
    EXPECT_ERR(aclnnConvolutionGetWorkspaceSize(x, w, b, s, p, d, false, op, 2, y, 1, &ews, NULL),
               ACLNN_ERR_PARAM_NULLPTR, API, "executor", &Y);
    /* Invalid: 161002 naming the parameter, output untouched. */
    DevTensor XND = mkf(F, xs, 4, NULL, ACL_FORMAT_ND), XNHWC = mkf(F, xs, 4, NULL, ACL_FORMAT_NHWC);
    EXPECT_ERR(aclnnConvolutionGetWorkspaceSize(XND.tensor, w, b, s, p, d, false, op, 2, y, 1, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, API, "ACL_FORMAT_ND", &Y);
    EXPECT_ERR(aclnnConvolutionGetWorkspaceSize(XNHWC.tensor, w, b, s, p, d, false, op, 2, y, 1, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, API, "not supported", &Y);
    EXPECT_ERR(aclnnConvolutionGetWorkspaceSize(x, w, b, s, p, d, false, op, 3, y, 1, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, API, "groups", &Y);
    EXPECT_ERR(aclnnConvolutionGetWorkspaceSize(x, w, b, s, p, d, false, op, 0, y, 1, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, API, "groups", &Y);
    EXPECT_ERR(aclnnConvolutionGetWorkspaceSize(x, w, b, s, p, d, false, op, 2, y, 5, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, API, "cubeMathType", &Y);
    int64_t one1[] = {1}, p3[] = {1, 1, 1}, neg[] = {1, -1};
    aclIntArray *s1 = ia(one1, 1), *pp3 = ia(p3, 3), *pn = ia(neg, 2);
    EXPECT_ERR(aclnnConvolutionGetWorkspaceSize(x, w, b, s1, p, d, false, op, 2, y, 1, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, API, "stride", &Y);
    EXPECT_ERR(aclnnConvolutionGetWorkspaceSize(x, w, b, s, pp3, d, false, op, 2, y, 1, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, API, "padding", &Y);
    EXPECT_ERR(aclnnConvolutionGetWorkspaceSize(x, w, b, s, p, pn, false, op, 2, y, 1, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, API, "dilation", &Y);
    int64_t ys2[] = {1, 8, 5, 6}, bs2[] = {4};
    DevTensor Y2 = mkc(F, ys2, 4, NULL), B2 = mkc(F, bs2, 1, NULL), YD = mkc(ACL_DOUBLE, ys, 4, NULL);
    EXPECT_ERR(aclnnConvolutionGetWorkspaceSize(x, w, b, s, p, d, false, op, 2, Y2.tensor, 1, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, API, "[1, 8, 6, 6]", &Y2);
    EXPECT_ERR(aclnnConvolutionGetWorkspaceSize(x, w, B2.tensor, s, p, d, false, op, 2, y, 1, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, API, "bias", &Y);
    EXPECT_ERR(aclnnConvolutionGetWorkspaceSize(x, w, b, s, p, d, false, op, 2, YD.tensor, 1, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, API, "output", &YD);
    /* Transposed: outputPadding must be smaller than the stride or the dilation. */
    int64_t xt[] = {1, 2, 4}, wt[] = {2, 3, 3}, yt[] = {1, 3, 11}, two[] = {2};
    DevTensor XT = mkc(F, xt, 3, NULL), WT = mkc(F, wt, 3, NULL), YT = mkc(F, yt, 3, NULL);
    aclIntArray *st2 = ia(two, 1), *p0 = ia((int64_t[]){0}, 1), *op2 = ia(two, 1);
    EXPECT_ERR(aclnnConvolutionGetWorkspaceSize(XT.tensor, WT.tensor, NULL, st2, p0, s1, true, op2, 1, YT.tensor, 1,
                                                &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, API, "outputPadding", &YT);
    /* A destroyed tensor handle. */
    aclTensor *dead = aclCreateTensor(xs, 4, F, NULL, 0, ACL_FORMAT_NCHW, xs, 4, X.dev);
    CHECK(dead != NULL);
    CHECK_OK(aclDestroyTensor(dead));
    EXPECT_ERR(aclnnConvolutionGetWorkspaceSize(dead, w, b, s, p, d, false, op, 2, y, 1, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, API, "input", &Y);
    aclDestroyIntArray(s);
    aclDestroyIntArray(p);
    aclDestroyIntArray(d);
    aclDestroyIntArray(op);
    aclDestroyIntArray(s1);
    aclDestroyIntArray(pp3);
    aclDestroyIntArray(pn);
    aclDestroyIntArray(st2);
    aclDestroyIntArray(p0);
    aclDestroyIntArray(op2);
    DevTensor *all[] = {&X, &W, &B, &Y, &XND, &XNHWC, &Y2, &B2, &YD, &XT, &WT, &YT};
    for (size_t i = 0; i < ARRAY_LEN(all); i++) dev_free(all[i]);
}

int main(void)
{
    device_init();
    RUN_TEST(test_conv2d);
    RUN_TEST(test_conv1d_3d);
    RUN_TEST(test_transposed);
    RUN_TEST(test_empty);
    RUN_TEST(test_errors);
    device_teardown();
    return capi_finish();
}
