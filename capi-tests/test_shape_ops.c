/*
 * The shape family as a CANN user (and llama.cpp's CANN back-end) calls it: Tril, Triu and
 * their in-place forms, ConstantPadNd (pad arrays of 4 and 8, a crop), ReflectionPad1d/2d/3d,
 * ReplicationPad1d/2d/3d, CircularPad2d/3d, UpsampleNearest1d/2d/3d and the Exact variants,
 * Im2col, Cumsum, CumsumV2, Cumprod, Cummax, Cummin, Argsort, Sort, Topk, Flip, Eye and
 * Linspace, with expected values written here (CANN's documented examples where it gives
 * one), on contiguous tensors and on a strided view with an offset; and the documented errors.
 */
#include "ops_common.h"

#include "aclnnop/aclnn_argsort.h"
#include "aclnnop/aclnn_circular_pad2d.h"
#include "aclnnop/aclnn_circular_pad3d.h"
#include "aclnnop/aclnn_constant_pad_nd.h"
#include "aclnnop/aclnn_cumsum.h"
#include "aclnnop/aclnn_im2col.h"
#include "aclnnop/aclnn_reflection_pad1d.h"
#include "aclnnop/aclnn_reflection_pad2d.h"
#include "aclnnop/aclnn_reflection_pad3d.h"
#include "aclnnop/aclnn_replication_pad1d.h"
#include "aclnnop/aclnn_replication_pad2d.h"
#include "aclnnop/aclnn_replication_pad3d.h"
#include "aclnnop/aclnn_tril.h"
#include "aclnnop/aclnn_triu.h"
#include "aclnnop/aclnn_upsample_nearest_2d.h"
#include "aclnnop/aclnn_cummax.h"
#include "aclnnop/aclnn_cummin.h"
#include "aclnnop/aclnn_cumprod.h"
#include "aclnnop/aclnn_eye.h"
#include "aclnnop/aclnn_flip.h"
#include "aclnnop/aclnn_linspace.h"
#include "aclnnop/aclnn_sort.h"
#include "aclnnop/aclnn_topk.h"
#include "aclnnop/aclnn_upsample_nearest_1d.h"
#include "aclnnop/aclnn_upsample_nearest_3d.h"
#include "aclnnop/aclnn_upsample_nearest_exact1d.h"
#include "aclnnop/aclnn_upsample_nearest_exact2d.h"
#include "aclnnop/aclnn_upsample_nearest_exact3d.h"

#include <math.h>

#define F ACL_FLOAT

static void test_tril_triu(void)
{
    int64_t s33[] = {3, 3};
    DevTensor x = mk(F, s33, 2, V(1, 2, 3, 4, 5, 6, 7, 8, 9)), out = mk(F, s33, 2, NULL);
    RUN2(aclnnTrilGetWorkspaceSize(x.tensor, 0, out.tensor, &ews, &eex), aclnnTril);
    EXPECT_T(out, 1, 0, 0, 4, 5, 0, 7, 8, 9);
    /* llama.cpp's strict lower triangle */
    RUN2(aclnnTrilGetWorkspaceSize(x.tensor, -1, out.tensor, &ews, &eex), aclnnTril);
    EXPECT_T(out, 0, 0, 0, 4, 0, 0, 7, 8, 0);
    RUN2(aclnnTriuGetWorkspaceSize(x.tensor, 1, out.tensor, &ews, &eex), aclnnTriu);
    EXPECT_T(out, 0, 2, 3, 0, 0, 6, 0, 0, 0);
    /* in place, on the 4x3 seed view (strides (20, 2), offset 22) of a 10x10 storage */
    double *st = dbl(100);
    for (int k = 0; k < 100; k++) st[k] = k;
    DevTensor v = mkv(F, VSTORE, 2, st, VSHAPE, 2, VSTRIDES, VOFF);
    RUN2(aclnnInplaceTriuGetWorkspaceSize(v.tensor, 0, &ews, &eex), aclnnInplaceTriu);
    double *got = dbl(100);
    rd(&v, got);
    for (int k = 0; k < 100; k++) {
        double want = k;
        if (in_view(k)) {
            int64_t i = -1, j = -1;
            for (int64_t lin = 0; lin < 12; lin++)
                if (view_pos(lin) == k) i = lin / 3, j = lin % 3;
            if (j < i) want = 0;
        }
        CHECK(got[k] == want);
    }
    RUN2(aclnnInplaceTrilGetWorkspaceSize(v.tensor, -1, &ews, &eex), aclnnInplaceTril);
    rd(&v, got);
    for (int k = 0; k < 100; k++) CHECK(got[k] == (in_view(k) ? 0 : k));
    /* a 1-d self is refused; so is a dtype mismatch */
    int64_t s3[] = {3};
    DevTensor one = mk(F, s3, 1, NULL), i32 = mk(ACL_INT32, s33, 2, NULL);
    EXPECT_ERR(aclnnTrilGetWorkspaceSize(one.tensor, 0, one.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnTrilGetWorkspaceSize", "self", &one);
    EXPECT_ERR(aclnnTriuGetWorkspaceSize(x.tensor, 0, i32.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnTriuGetWorkspaceSize", "out", &i32);
    EXPECT_ERR(aclnnTriuGetWorkspaceSize(NULL, 0, out.tensor, &ews, &eex), ACLNN_ERR_PARAM_NULLPTR,
               "aclnnTriuGetWorkspaceSize", "self", &out);
    free(st);
    free(got);
    dev_free(&x);
    dev_free(&out);
    dev_free(&v);
    dev_free(&one);
    dev_free(&i32);
}

static void test_constant_pad(void)
{
    /* llama.cpp pads with an array of 2 * 4 values on 4-d tensors */
    int64_t s[] = {1, 1, 2, 2}, so[] = {1, 2, 3, 4};
    DevTensor x = mk(F, s, 4, V(1, 2, 3, 4)), out = mk(F, so, 4, NULL);
    int64_t p8[] = {1, 1, 0, 1, 1, 0, 0, 0};
    aclIntArray *pad = aclCreateIntArray(p8, 8);
    aclScalar *value = sc(F, -1);
    RUN2(aclnnConstantPadNdGetWorkspaceSize(x.tensor, pad, value, out.tensor, &ews, &eex), aclnnConstantPadNd);
    EXPECT_T(out, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
             -1, 1, 2, -1, -1, 3, 4, -1, -1, -1, -1, -1);
    /* 4 values pad the last two dims; a negative pad crops; an int value converts to f32 */
    int64_t s23[] = {2, 3}, s32[] = {3, 2};
    DevTensor y = mk(F, s23, 2, V(1, 2, 3, 4, 5, 6)), o2 = mk(F, s32, 2, NULL);
    int64_t p4[] = {-1, 0, 0, 1};
    aclIntArray *pad4 = aclCreateIntArray(p4, 4);
    aclScalar *seven = sc(ACL_INT32, 7);
    RUN2(aclnnConstantPadNdGetWorkspaceSize(y.tensor, pad4, seven, o2.tensor, &ews, &eex), aclnnConstantPadNd);
    EXPECT_T(o2, 2, 3, 5, 6, 7, 7);
    /* errors: odd pad length, a wrong out shape, NULL value */
    int64_t p3[] = {1, 1, 1};
    aclIntArray *odd = aclCreateIntArray(p3, 3);
    EXPECT_ERR(aclnnConstantPadNdGetWorkspaceSize(y.tensor, odd, seven, o2.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnConstantPadNdGetWorkspaceSize", "pad", &o2);
    EXPECT_ERR(aclnnConstantPadNdGetWorkspaceSize(y.tensor, pad, seven, o2.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnConstantPadNdGetWorkspaceSize", "pad", &o2);
    EXPECT_ERR(aclnnConstantPadNdGetWorkspaceSize(y.tensor, pad4, NULL, o2.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_NULLPTR, "aclnnConstantPadNdGetWorkspaceSize", "value", &o2);
    CHECK_OK(aclDestroyIntArray(pad));
    CHECK_OK(aclDestroyIntArray(pad4));
    CHECK_OK(aclDestroyIntArray(odd));
    CHECK_OK(aclDestroyScalar(value));
    CHECK_OK(aclDestroyScalar(seven));
    dev_free(&x);
    dev_free(&out);
    dev_free(&y);
    dev_free(&o2);
}

static void test_edge_pads(void)
{
    /* aclnnReflectionPad1d.md: [[0,1,2]] padded (2, 2) is [[2,1,0,1,2,1,0]] */
    int64_t s13[] = {1, 3}, s17[] = {1, 7}, p2[] = {2, 2};
    DevTensor x = mk(F, s13, 2, V(0, 1, 2)), out = mk(F, s17, 2, NULL);
    aclIntArray *pad = aclCreateIntArray(p2, 2);
    RUN2(aclnnReflectionPad1dGetWorkspaceSize(x.tensor, pad, out.tensor, &ews, &eex), aclnnReflectionPad1d);
    EXPECT_T(out, 2, 1, 0, 1, 2, 1, 0);
    RUN2(aclnnReplicationPad1dGetWorkspaceSize(x.tensor, pad, out.tensor, &ews, &eex), aclnnReplicationPad1d);
    EXPECT_T(out, 0, 0, 0, 1, 2, 2, 2);
    /* a pad as large as the dim is refused */
    int64_t p33[] = {3, 0};
    aclIntArray *big = aclCreateIntArray(p33, 2);
    int64_t s16[] = {1, 6};
    DevTensor o6 = mk(F, s16, 2, NULL);
    EXPECT_ERR(aclnnReflectionPad1dGetWorkspaceSize(x.tensor, big, o6.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnReflectionPad1dGetWorkspaceSize", "padding", &o6);
    /* 2-d: (1, 2, 2) padded (1, 0, 0, 1) */
    int64_t s122[] = {1, 2, 2}, s133[] = {1, 3, 3}, p4[] = {1, 0, 0, 1};
    DevTensor m = mk(F, s122, 3, V(1, 2, 3, 4)), o = mk(F, s133, 3, NULL);
    aclIntArray *pad4 = aclCreateIntArray(p4, 4);
    RUN2(aclnnReflectionPad2dGetWorkspaceSize(m.tensor, pad4, o.tensor, &ews, &eex), aclnnReflectionPad2d);
    EXPECT_T(o, 2, 1, 2, 4, 3, 4, 2, 1, 2);
    RUN2(aclnnReplicationPad2dGetWorkspaceSize(m.tensor, pad4, o.tensor, &ews, &eex), aclnnReplicationPad2d);
    EXPECT_T(o, 1, 1, 2, 3, 3, 4, 3, 3, 4);
    RUN2(aclnnCircularPad2dGetWorkspaceSize(m.tensor, pad4, o.tensor, &ews, &eex), aclnnCircularPad2d);
    EXPECT_T(o, 2, 1, 2, 4, 3, 4, 2, 1, 2);
    /* aclnnReflectionPad3d.md's example: (1,1,2,2,2) padded by 1 everywhere */
    int64_t s5[] = {1, 1, 2, 2, 2}, s5o[] = {1, 1, 4, 4, 4}, p6[] = {1, 1, 1, 1, 1, 1};
    DevTensor c = mk(F, s5, 5, V(0, 1, 2, 3, 4, 5, 6, 7)), co = mk(F, s5o, 5, NULL);
    aclIntArray *pad6 = aclCreateIntArray(p6, 6);
    RUN2(aclnnReflectionPad3dGetWorkspaceSize(c.tensor, pad6, co.tensor, &ews, &eex), aclnnReflectionPad3d);
    EXPECT_T(co, 7, 6, 7, 6, 5, 4, 5, 4, 7, 6, 7, 6, 5, 4, 5, 4, 3, 2, 3, 2, 1, 0, 1, 0, 3, 2, 3, 2, 1, 0, 1, 0,
             7, 6, 7, 6, 5, 4, 5, 4, 7, 6, 7, 6, 5, 4, 5, 4, 3, 2, 3, 2, 1, 0, 1, 0, 3, 2, 3, 2, 1, 0, 1, 0);
    RUN2(aclnnReplicationPad3dGetWorkspaceSize(c.tensor, pad6, co.tensor, &ews, &eex), aclnnReplicationPad3d);
    double *g = dbl(64);
    rd(&co, g);
    CHECK(g[0] == 0 && g[63] == 7 && g[21] == 0 && g[42] == 7);
    RUN2(aclnnCircularPad3dGetWorkspaceSize(c.tensor, pad6, co.tensor, &ews, &eex), aclnnCircularPad3d);
    rd(&co, g);
    CHECK(g[0] == 7 && g[21] == 0 && g[63] == 0);
    /* circular pads take no f64 */
    DevTensor d = mk(ACL_DOUBLE, s122, 3, NULL), dout = mk(ACL_DOUBLE, s133, 3, NULL);
    EXPECT_ERR(aclnnCircularPad2dGetWorkspaceSize(d.tensor, pad4, dout.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnCircularPad2dGetWorkspaceSize", "self", &dout);
    free(g);
    CHECK_OK(aclDestroyIntArray(pad));
    CHECK_OK(aclDestroyIntArray(big));
    CHECK_OK(aclDestroyIntArray(pad4));
    CHECK_OK(aclDestroyIntArray(pad6));
    dev_free(&x);
    dev_free(&out);
    dev_free(&o6);
    dev_free(&m);
    dev_free(&o);
    dev_free(&c);
    dev_free(&co);
    dev_free(&d);
    dev_free(&dout);
}

static void test_upsample_nearest(void)
{
    int64_t s[] = {1, 1, 2, 2}, so[] = {1, 1, 3, 4}, sz[] = {3, 4};
    DevTensor x = mk(F, s, 4, V(1, 2, 3, 4));
    aclTensor *xt = aclCreateTensor(s, 4, F, NULL, 0, ACL_FORMAT_NCHW, s, 4, x.dev);
    DevTensor out = mk(F, so, 4, NULL);
    aclTensor *ot = aclCreateTensor(so, 4, F, NULL, 0, ACL_FORMAT_NCHW, so, 4, out.dev);
    aclIntArray *size = aclCreateIntArray(sz, 2);
    RUN2(aclnnUpsampleNearest2dGetWorkspaceSize(xt, size, ot, &ews, &eex), aclnnUpsampleNearest2d);
    /* rows: floor(h · 2/3) = 0, 0, 1; columns: floor(w · 2/4) = 0, 0, 1, 1 */
    EXPECT_T(out, 1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4);
    int64_t z[] = {0, 4};
    aclIntArray *zero = aclCreateIntArray(z, 2);
    EXPECT_ERR(aclnnUpsampleNearest2dGetWorkspaceSize(xt, zero, ot, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnUpsampleNearest2dGetWorkspaceSize", "outputSize", &out);
    EXPECT_ERR(aclnnUpsampleNearest2dGetWorkspaceSize(xt, NULL, ot, &ews, &eex), ACLNN_ERR_PARAM_NULLPTR,
               "aclnnUpsampleNearest2dGetWorkspaceSize", "outputSize", &out);
    CHECK_OK(aclDestroyTensor(xt));
    CHECK_OK(aclDestroyTensor(ot));
    CHECK_OK(aclDestroyIntArray(size));
    CHECK_OK(aclDestroyIntArray(zero));
    dev_free(&x);
    dev_free(&out);
}

static void test_im2col(void)
{
    /* (1, 1, 3, 3) with a 2x2 kernel: 4 rows of 4 blocks */
    int64_t s[] = {1, 1, 3, 3}, so[] = {1, 4, 4}, k[] = {2, 2}, one[] = {1, 1}, zero[] = {0, 0};
    DevTensor x = mk(F, s, 4, V(1, 2, 3, 4, 5, 6, 7, 8, 9)), out = mk(F, so, 3, NULL);
    aclIntArray *ks = aclCreateIntArray(k, 2), *dil = aclCreateIntArray(one, 2), *pad = aclCreateIntArray(zero, 2),
                *str = aclCreateIntArray(one, 2);
    RUN2(aclnnIm2colGetWorkspaceSize(x.tensor, ks, dil, pad, str, out.tensor, &ews, &eex), aclnnIm2col);
    EXPECT_T(out, 1, 2, 4, 5, 2, 3, 5, 6, 4, 5, 7, 8, 5, 6, 8, 9);
    /* padding 1, stride 2: 2x2 blocks, zeros outside the image */
    aclIntArray *pad1 = aclCreateIntArray(one, 2);
    int64_t two[] = {2, 2};
    aclIntArray *str2 = aclCreateIntArray(two, 2);
    RUN2(aclnnIm2colGetWorkspaceSize(x.tensor, ks, dil, pad1, str2, out.tensor, &ews, &eex), aclnnIm2col);
    EXPECT_T(out, 0, 0, 0, 5, 0, 0, 4, 6, 0, 2, 0, 8, 1, 3, 7, 9);
    EXPECT_ERR(aclnnIm2colGetWorkspaceSize(x.tensor, ks, dil, pad, pad, out.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnIm2colGetWorkspaceSize", "stride", &out);
    EXPECT_ERR(aclnnIm2colGetWorkspaceSize(x.tensor, NULL, dil, pad, str, out.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_NULLPTR, "aclnnIm2colGetWorkspaceSize", "kernelSize", &out);
    CHECK_OK(aclDestroyIntArray(ks));
    CHECK_OK(aclDestroyIntArray(dil));
    CHECK_OK(aclDestroyIntArray(pad));
    CHECK_OK(aclDestroyIntArray(str));
    CHECK_OK(aclDestroyIntArray(pad1));
    CHECK_OK(aclDestroyIntArray(str2));
    dev_free(&x);
    dev_free(&out);
}

static void test_cumsum(void)
{
    int64_t s[] = {2, 3};
    DevTensor x = mk(F, s, 2, V(1, 2, 3, 4, 5, 6)), out = mk(F, s, 2, NULL);
    /* llama.cpp: along the last dim, in out's dtype */
    RUN2(aclnnCumsumGetWorkspaceSize(x.tensor, 1, F, out.tensor, &ews, &eex), aclnnCumsum);
    EXPECT_T(out, 1, 3, 6, 4, 9, 15);
    RUN2(aclnnCumsumGetWorkspaceSize(x.tensor, -2, F, out.tensor, &ews, &eex), aclnnCumsum);
    EXPECT_T(out, 1, 2, 3, 5, 7, 9);
    /* f32 self summed as int32 (converted first, as the device casts) */
    DevTensor h = mk(F, s, 2, V(1.5, 2.5, -3.5, 4, 5, 6)), oi = mk(ACL_INT32, s, 2, NULL);
    RUN2(aclnnCumsumGetWorkspaceSize(h.tensor, 1, ACL_INT32, oi.tensor, &ews, &eex), aclnnCumsum);
    EXPECT_T(oi, 1, 3, 0, 4, 9, 15);
    /* V2: exclusive and reverse */
    RUN2(aclnnCumsumV2GetWorkspaceSize(x.tensor, 1, true, false, out.tensor, &ews, &eex), aclnnCumsumV2);
    EXPECT_T(out, 0, 1, 3, 0, 4, 9);
    RUN2(aclnnCumsumV2GetWorkspaceSize(x.tensor, 1, false, true, out.tensor, &ews, &eex), aclnnCumsumV2);
    EXPECT_T(out, 6, 5, 3, 15, 11, 6);
    RUN2(aclnnCumsumV2GetWorkspaceSize(x.tensor, 1, true, true, out.tensor, &ews, &eex), aclnnCumsumV2);
    EXPECT_T(out, 5, 3, 0, 11, 6, 0);
    EXPECT_ERR(aclnnCumsumGetWorkspaceSize(x.tensor, 1, ACL_INT32, out.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnCumsumGetWorkspaceSize", "dtype", &out);
    EXPECT_ERR(aclnnCumsumV2GetWorkspaceSize(x.tensor, 2, false, false, out.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnCumsumV2GetWorkspaceSize", "dim", &out);
    dev_free(&x);
    dev_free(&out);
    dev_free(&h);
    dev_free(&oi);
}

static void test_argsort(void)
{
    int64_t s[] = {2, 4};
    DevTensor x = mk(F, s, 2, V(3, NAN, -1, 3, 0, -0.0, 2, -5)), out = mk(ACL_INT64, s, 2, NULL);
    /* llama.cpp: rows (dim -1), ascending: NaN last, ties (3, 3) and (0, -0) by index */
    RUN2(aclnnArgsortGetWorkspaceSize(x.tensor, -1, false, out.tensor, &ews, &eex), aclnnArgsort);
    EXPECT_T(out, 2, 0, 3, 1, 3, 0, 1, 2);
    RUN2(aclnnArgsortGetWorkspaceSize(x.tensor, -1, true, out.tensor, &ews, &eex), aclnnArgsort);
    EXPECT_T(out, 1, 0, 3, 2, 2, 0, 1, 3);
    DevTensor bad = mk(ACL_INT32, s, 2, NULL);
    EXPECT_ERR(aclnnArgsortGetWorkspaceSize(x.tensor, -1, false, bad.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnArgsortGetWorkspaceSize", "out", &bad);
    EXPECT_ERR(aclnnArgsortGetWorkspaceSize(x.tensor, 2, false, out.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnArgsortGetWorkspaceSize", "dim", &out);
    dev_free(&x);
    dev_free(&out);
    dev_free(&bad);
}

static void test_nearest_variants(void)
{
    /* (1, 1, 3) -> 5: legacy floor(l · 3/5) = 0 0 1 1 2; exact floor((l + .5) · 3/5) = 0 0 1 2 2 */
    int64_t s[] = {1, 1, 3}, so[] = {1, 1, 5}, sz[] = {5};
    DevTensor x = mk(F, s, 3, V(1, 2, 3)), out = mk(F, so, 3, NULL);
    aclIntArray *size = aclCreateIntArray(sz, 1);
    RUN2(aclnnUpsampleNearest1dGetWorkspaceSize(x.tensor, size, out.tensor, &ews, &eex), aclnnUpsampleNearest1d);
    EXPECT_T(out, 1, 1, 2, 2, 3);
    RUN2(aclnnUpsampleNearestExact1dGetWorkspaceSize(x.tensor, size, 0.0, out.tensor, &ews, &eex),
         aclnnUpsampleNearestExact1d);
    EXPECT_T(out, 1, 1, 2, 3, 3);
    /* 2-d exact with scales 2: the source is floor((d + .5) / 2) */
    int64_t s4[] = {1, 1, 1, 2}, s4o[] = {1, 1, 1, 4}, sz2[] = {1, 4};
    DevTensor y = mk(F, s4, 4, V(5, 6)), o2 = mk(F, s4o, 4, NULL);
    aclIntArray *size2 = aclCreateIntArray(sz2, 2);
    RUN2(aclnnUpsampleNearestExact2dGetWorkspaceSize(y.tensor, size2, 0.0, 2.0, o2.tensor, &ews, &eex),
         aclnnUpsampleNearestExact2d);
    EXPECT_T(o2, 5, 5, 6, 6);
    /* 3-d: (1, 1, 1, 1, 2) doubled along W */
    int64_t s5[] = {1, 1, 1, 1, 2}, s5o[] = {1, 1, 1, 1, 4}, sz3[] = {1, 1, 4};
    DevTensor z = mk(F, s5, 5, V(7, 8)), o3 = mk(F, s5o, 5, NULL);
    aclIntArray *size3 = aclCreateIntArray(sz3, 3);
    RUN2(aclnnUpsampleNearest3dGetWorkspaceSize(z.tensor, size3, 0.0, 0.0, 0.0, o3.tensor, &ews, &eex),
         aclnnUpsampleNearest3d);
    EXPECT_T(o3, 7, 7, 8, 8);
    RUN2(aclnnUpsampleNearestExact3dGetWorkspaceSize(z.tensor, size3, 0.0, 0.0, 0.0, o3.tensor, &ews, &eex),
         aclnnUpsampleNearestExact3d);
    EXPECT_T(o3, 7, 7, 8, 8);
    EXPECT_ERR(aclnnUpsampleNearest1dGetWorkspaceSize(x.tensor, size2, out.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnUpsampleNearest1dGetWorkspaceSize", "outputSize", &out);
    CHECK_OK(aclDestroyIntArray(size));
    CHECK_OK(aclDestroyIntArray(size2));
    CHECK_OK(aclDestroyIntArray(size3));
    dev_free(&x);
    dev_free(&out);
    dev_free(&y);
    dev_free(&o2);
    dev_free(&z);
    dev_free(&o3);
}

static void test_cumprod_cummax(void)
{
    int64_t s[] = {2, 3};
    DevTensor x = mk(F, s, 2, V(1, 2, 3, -1, 4, 0.5)), out = mk(F, s, 2, NULL);
    aclScalar *dim = aclCreateScalar(&(int32_t){1}, ACL_INT32);
    RUN2(aclnnCumprodGetWorkspaceSize(x.tensor, dim, ACL_DT_UNDEFINED, out.tensor, &ews, &eex), aclnnCumprod);
    EXPECT_T(out, 1, 2, 6, -1, -4, -2);
    RUN2(aclnnInplaceCumprodGetWorkspaceSize(x.tensor, dim, &ews, &eex), aclnnInplaceCumprod);
    EXPECT_T(x, 1, 2, 6, -1, -4, -2);
    /* cummax / cummin: ties move the index to the later element, NaN sticks */
    DevTensor y = mk(F, s, 2, V(2, 1, 2, 1, NAN, 3)), vo = mk(F, s, 2, NULL), io = mk(ACL_INT64, s, 2, NULL);
    RUN2(aclnnCummaxGetWorkspaceSize(y.tensor, 1, vo.tensor, io.tensor, &ews, &eex), aclnnCummax);
    EXPECT_T(vo, 2, 2, 2, 1, NAN, NAN);
    EXPECT_T(io, 0, 0, 2, 0, 1, 1);
    RUN2(aclnnCumminGetWorkspaceSize(y.tensor, 1, vo.tensor, io.tensor, &ews, &eex), aclnnCummin);
    EXPECT_T(vo, 2, 1, 1, 1, NAN, NAN);
    EXPECT_T(io, 0, 1, 1, 0, 1, 1);
    DevTensor bad = mk(ACL_FLOAT16, s, 2, NULL);
    EXPECT_ERR(aclnnCummaxGetWorkspaceSize(y.tensor, 1, bad.tensor, io.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnCummaxGetWorkspaceSize", "valuesOut", &bad);
    EXPECT_ERR(aclnnCumprodGetWorkspaceSize(x.tensor, NULL, ACL_DT_UNDEFINED, out.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_NULLPTR, "aclnnCumprodGetWorkspaceSize", "dim", &out);
    CHECK_OK(aclDestroyScalar(dim));
    dev_free(&x);
    dev_free(&out);
    dev_free(&y);
    dev_free(&vo);
    dev_free(&io);
    dev_free(&bad);
}

static void test_sort_topk_flip(void)
{
    int64_t s[] = {2, 3}, s2[] = {2, 2};
    DevTensor x = mk(F, s, 2, V(3, 1, 2, 0, NAN, -1)), v = mk(F, s, 2, NULL), i = mk(ACL_INT64, s, 2, NULL);
    RUN2(aclnnSortGetWorkspaceSize(x.tensor, false, -1, false, v.tensor, i.tensor, &ews, &eex), aclnnSort);
    EXPECT_T(v, 1, 2, 3, -1, 0, NAN);
    EXPECT_T(i, 1, 2, 0, 2, 0, 1);
    DevTensor tv = mk(F, s2, 2, NULL), ti = mk(ACL_INT64, s2, 2, NULL);
    RUN2(aclnnTopkGetWorkspaceSize(x.tensor, 2, 1, true, true, tv.tensor, ti.tensor, &ews, &eex), aclnnTopk);
    EXPECT_T(tv, 3, 2, NAN, 0);
    EXPECT_T(ti, 0, 2, 1, 0);
    EXPECT_ERR(aclnnTopkGetWorkspaceSize(x.tensor, 4, 1, true, true, tv.tensor, ti.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnTopkGetWorkspaceSize", "k", &tv);
    /* flip both dims */
    DevTensor y = mk(F, s, 2, V(1, 2, 3, 4, 5, 6)), out = mk(F, s, 2, NULL);
    int64_t d[] = {0, -1};
    aclIntArray *dims = aclCreateIntArray(d, 2);
    RUN2(aclnnFlipGetWorkspaceSize(y.tensor, dims, out.tensor, &ews, &eex), aclnnFlip);
    EXPECT_T(out, 6, 5, 4, 3, 2, 1);
    int64_t dd[] = {1, 1};
    aclIntArray *twice = aclCreateIntArray(dd, 2);
    EXPECT_ERR(aclnnFlipGetWorkspaceSize(y.tensor, twice, out.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnFlipGetWorkspaceSize", "dims", &out);
    CHECK_OK(aclDestroyIntArray(dims));
    CHECK_OK(aclDestroyIntArray(twice));
    dev_free(&x);
    dev_free(&v);
    dev_free(&i);
    dev_free(&tv);
    dev_free(&ti);
    dev_free(&y);
    dev_free(&out);
}

static void test_eye_linspace(void)
{
    int64_t s[] = {2, 3}, s5[] = {5};
    DevTensor e = mk(F, s, 2, NULL);
    RUN2(aclnnEyeGetWorkspaceSize(2, 3, e.tensor, &ews, &eex), aclnnEye);
    EXPECT_T(e, 1, 0, 0, 0, 1, 0);
    EXPECT_ERR(aclnnEyeGetWorkspaceSize(3, 3, e.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID, "aclnnEyeGetWorkspaceSize",
               "out", &e);
    DevTensor l = mk(F, s5, 1, NULL);
    aclScalar *a = sc(F, -1), *b = sc(ACL_INT32, 1);
    RUN2(aclnnLinspaceGetWorkspaceSize(a, b, 5, l.tensor, &ews, &eex), aclnnLinspace);
    EXPECT_T(l, -1, -0.5, 0, 0.5, 1);
    EXPECT_ERR(aclnnLinspaceGetWorkspaceSize(a, b, 4, l.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnLinspaceGetWorkspaceSize", "steps", &l);
    CHECK_OK(aclDestroyScalar(a));
    CHECK_OK(aclDestroyScalar(b));
    dev_free(&e);
    dev_free(&l);
}

int main(void)
{
    device_init();
    RUN_TEST(test_tril_triu);
    RUN_TEST(test_constant_pad);
    RUN_TEST(test_edge_pads);
    RUN_TEST(test_upsample_nearest);
    RUN_TEST(test_im2col);
    RUN_TEST(test_cumsum);
    RUN_TEST(test_argsort);
    RUN_TEST(test_nearest_variants);
    RUN_TEST(test_cumprod_cummax);
    RUN_TEST(test_sort_topk_flip);
    RUN_TEST(test_eye_linspace);
    device_teardown();
    return capi_finish();
}
