/*
 * The entry points of CANN's aclnn_aminmax_all.h, aclnn_aminmax_dim.h, aclnn_maxn.h,
 * aclnn_minn.h, aclnn_add_n.h, aclnn_trace.h, aclnn_dot.h, aclnn_equal.h and aclnn_ones.h,
 * called as a CANN program calls them: aclCreateTensor / aclCreateTensorList, phase 1,
 * the workspace, phase 2, synchronize, copy back; each documented error (161001 for NULL,
 * 161002 otherwise, a message naming the API and the parameter, the output untouched).
 *
 * Every expected value is worked out by hand in the comments. The random differential
 * tests are in src/tests/math2_diff.rs.
 */
#include "ops_common.h"

#include "aclnnop/aclnn_add_n.h"
#include "aclnnop/aclnn_aminmax_all.h"
#include "aclnnop/aclnn_aminmax_dim.h"
#include "aclnnop/aclnn_dot.h"
#include "aclnnop/aclnn_equal.h"
#include "aclnnop/aclnn_maxn.h"
#include "aclnnop/aclnn_minn.h"
#include "aclnnop/aclnn_ones.h"
#include "aclnnop/aclnn_trace.h"

#define F ACL_FLOAT
#define L ACL_INT64
#define I ACL_INT32
#define B ACL_BOOL

/*
 * AminmaxAll of {3, -1, 7, 0.5, 2, -4} (2 x 3): min -4, max 7, into 0-d outs. AminmaxDim
 * along dim 1 keepdim: rows {3, -1, 7} and {0.5, 2, -4} give min {-1, -4}, max {7, 2};
 * along dim -2 of a view whose column 1 holds a NaN: that column's min and max are NaN.
 */
static void test_aminmax(void)
{
    DevTensor s = mk(F, (int64_t[]){2, 3}, 2, V(3, -1, 7, 0.5, 2, -4));
    DevTensor mn = mk(F, NULL, 0, NULL), mx = mk(F, NULL, 0, NULL);
    RUN2(aclnnAminmaxAllGetWorkspaceSize(s.tensor, mn.tensor, mx.tensor, &ews, &eex), aclnnAminmaxAll);
    EXPECT_T(mn, -4);
    EXPECT_T(mx, 7);
    DevTensor mn2 = mk(F, (int64_t[]){2, 1}, 2, NULL), mx2 = mk(F, (int64_t[]){2, 1}, 2, NULL);
    RUN2(aclnnAminmaxDimGetWorkspaceSize(s.tensor, 1, true, mn2.tensor, mx2.tensor, &ews, &eex), aclnnAminmaxDim);
    EXPECT_T(mn2, -1, -4);
    EXPECT_T(mx2, 7, 2);
    DevTensor n = mk(F, (int64_t[]){2, 3}, 2, V(1, NAN, 5, 2, 0, -5));
    DevTensor mn3 = mk(F, (int64_t[]){3}, 1, NULL), mx3 = mk(F, (int64_t[]){3}, 1, NULL);
    RUN2(aclnnAminmaxDimGetWorkspaceSize(n.tensor, -2, false, mn3.tensor, mx3.tensor, &ews, &eex), aclnnAminmaxDim);
    EXPECT_T(mn3, 1, NAN, -5);
    EXPECT_T(mx3, 2, NAN, 5);
    DevTensor e = mk(F, (int64_t[]){2, 0}, 2, NULL);
    EXPECT_ERR(aclnnAminmaxDimGetWorkspaceSize(e.tensor, 1, false, mn3.tensor, mx3.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnAminmaxDim", "dim", &mn3);
    DevTensor wrong = mk(I, NULL, 0, NULL);
    EXPECT_ERR(aclnnAminmaxAllGetWorkspaceSize(s.tensor, wrong.tensor, mx.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnAminmaxAll", "minOut", &wrong);
    EXPECT_ERR(aclnnAminmaxAllGetWorkspaceSize(NULL, mn.tensor, mx.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_NULLPTR, "aclnnAminmaxAll", "self", &mn);
    dev_free(&s);
    dev_free(&mn);
    dev_free(&mx);
    dev_free(&mn2);
    dev_free(&mx2);
    dev_free(&n);
    dev_free(&mn3);
    dev_free(&mx3);
    dev_free(&e);
    dev_free(&wrong);
}

/* A list of the tensors (the list owns them: destroyed with it). */
static aclTensorList *list_of(DevTensor *t, int n)
{
    aclTensor *h[4];
    for (int k = 0; k < n; k++) h[k] = t[k].tensor;
    aclTensorList *l = aclCreateTensorList((const aclTensor *const *)h, (uint64_t)n);
    CHECK(l != NULL);
    return l;
}

static void free_list(aclTensorList *l, DevTensor *t, int n)
{
    CHECK_OK(aclDestroyTensorList(l));
    for (int k = 0; k < n; k++) aclrtFree(t[k].dev);
}

/*
 * MaxN / MinN of a (2, 2) {1, 5, -2, 0}, a (2,) {3, NaN} broadcast over rows and a 0-d 2:
 * max {3, NaN, 3, NaN}, min {1, NaN, -2, NaN}. AddN of three (3,) int32 {1, 2, 3},
 * {10, 20, 30}, {100, 200, 300}: {111, 222, 333}.
 */
static void test_lists(void)
{
    DevTensor t[3] = {mk(F, (int64_t[]){2, 2}, 2, V(1, 5, -2, 0)), mk(F, (int64_t[]){2}, 1, V(3, NAN)),
                      mk(F, NULL, 0, V(2))};
    aclTensorList *l = list_of(t, 3);
    DevTensor o = mk(F, (int64_t[]){2, 2}, 2, NULL);
    RUN2(aclnnMaxNGetWorkspaceSize(l, o.tensor, &ews, &eex), aclnnMaxN);
    EXPECT_T(o, 3, NAN, 3, NAN);
    RUN2(aclnnMinNGetWorkspaceSize(l, o.tensor, &ews, &eex), aclnnMinN);
    EXPECT_T(o, 1, NAN, -2, NAN);
    DevTensor small = mk(F, (int64_t[]){2}, 1, NULL);
    EXPECT_ERR(aclnnMaxNGetWorkspaceSize(l, small.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID, "aclnnMaxN", "out",
               &small);
    DevTensor oi = mk(I, (int64_t[]){2, 2}, 2, NULL);
    EXPECT_ERR(aclnnMinNGetWorkspaceSize(l, oi.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID, "aclnnMinN", "tensors",
               &oi);
    EXPECT_ERR(aclnnMaxNGetWorkspaceSize(NULL, o.tensor, &ews, &eex), ACLNN_ERR_PARAM_NULLPTR, "aclnnMaxN", "tensors",
               &o);
    free_list(l, t, 3);
    DevTensor a[3] = {mk(I, (int64_t[]){3}, 1, V(1, 2, 3)), mk(I, (int64_t[]){3}, 1, V(10, 20, 30)),
                      mk(I, (int64_t[]){3}, 1, V(100, 200, 300))};
    aclTensorList *al = list_of(a, 3);
    DevTensor s = mk(I, (int64_t[]){3}, 1, NULL);
    RUN2(aclnnAddNGetWorkspaceSize(al, s.tensor, &ews, &eex), aclnnAddN);
    EXPECT_T(s, 111, 222, 333);
    DevTensor s4 = mk(I, (int64_t[]){4}, 1, NULL);
    EXPECT_ERR(aclnnAddNGetWorkspaceSize(al, s4.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID, "aclnnAddN", "out",
               &s4);
    free_list(al, a, 3);
    dev_free(&o);
    dev_free(&small);
    dev_free(&oi);
    dev_free(&s);
    dev_free(&s4);
}

/*
 * Trace of the (3, 4) float {1..12}: 1 + 6 + 11 = 18; of an int32 (2, 2) {5, 9, 9, -7}
 * into int64: -2; of a (0, 3) float: 0. Dot of {1, 2, 3} and {4, -5, 6}: 4 - 10 + 18 = 12;
 * of int8 {100, 100} . {2, 1}: 300 wraps to 44.
 */
static void test_trace_dot(void)
{
    DevTensor m = mk(F, (int64_t[]){3, 4}, 2, V(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12));
    DevTensor o = mk(F, NULL, 0, NULL);
    RUN2(aclnnTraceGetWorkspaceSize(m.tensor, o.tensor, &ews, &eex), aclnnTrace);
    EXPECT_T(o, 18);
    DevTensor mi = mk(I, (int64_t[]){2, 2}, 2, V(5, 9, 9, -7));
    DevTensor ol = mk(L, NULL, 0, NULL);
    RUN2(aclnnTraceGetWorkspaceSize(mi.tensor, ol.tensor, &ews, &eex), aclnnTrace);
    EXPECT_T(ol, -2);
    DevTensor e = mk(F, (int64_t[]){0, 3}, 2, NULL);
    RUN2(aclnnTraceGetWorkspaceSize(e.tensor, o.tensor, &ews, &eex), aclnnTrace);
    EXPECT_T(o, 0);
    EXPECT_ERR(aclnnTraceGetWorkspaceSize(mi.tensor, o.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID, "aclnnTrace",
               "out", &o);
    DevTensor x = mk(F, (int64_t[]){3}, 1, V(1, 2, 3)), y = mk(F, (int64_t[]){3}, 1, V(4, -5, 6));
    RUN2(aclnnDotGetWorkspaceSize(x.tensor, y.tensor, o.tensor, &ews, &eex), aclnnDot);
    EXPECT_T(o, 12);
    DevTensor p = mk(ACL_INT8, (int64_t[]){2}, 1, V(100, 100)), q = mk(ACL_INT8, (int64_t[]){2}, 1, V(2, 1));
    DevTensor o8 = mk(ACL_INT8, NULL, 0, NULL);
    RUN2(aclnnDotGetWorkspaceSize(p.tensor, q.tensor, o8.tensor, &ews, &eex), aclnnDot);
    EXPECT_T(o8, 44);
    DevTensor y2 = mk(F, (int64_t[]){2}, 1, NULL);
    EXPECT_ERR(aclnnDotGetWorkspaceSize(x.tensor, y2.tensor, o.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnDot", "tensor", &o);
    dev_free(&m);
    dev_free(&o);
    dev_free(&mi);
    dev_free(&ol);
    dev_free(&e);
    dev_free(&x);
    dev_free(&y);
    dev_free(&p);
    dev_free(&q);
    dev_free(&o8);
    dev_free(&y2);
}

/*
 * Equal: {1, 2, 3} float vs {1, 2, 3} int32 is true (promoted to float); vs {1, 2, 4}
 * false; a NaN equals nothing; shapes (3,) and (1, 3) differ: false. InplaceOne fills.
 */
static void test_equal_one(void)
{
    DevTensor a = mk(F, (int64_t[]){3}, 1, V(1, 2, 3)), b = mk(I, (int64_t[]){3}, 1, V(1, 2, 3));
    DevTensor c = mk(I, (int64_t[]){3}, 1, V(1, 2, 4)), n = mk(F, (int64_t[]){3}, 1, V(1, NAN, 3));
    DevTensor r = mk(F, (int64_t[]){1, 3}, 2, V(1, 2, 3));
    DevTensor o = mk(B, (int64_t[]){1}, 1, NULL);
    RUN2(aclnnEqualGetWorkspaceSize(a.tensor, b.tensor, o.tensor, &ews, &eex), aclnnEqual);
    EXPECT_T(o, 1);
    RUN2(aclnnEqualGetWorkspaceSize(a.tensor, c.tensor, o.tensor, &ews, &eex), aclnnEqual);
    EXPECT_T(o, 0);
    RUN2(aclnnEqualGetWorkspaceSize(n.tensor, n.tensor, o.tensor, &ews, &eex), aclnnEqual);
    EXPECT_T(o, 0);
    RUN2(aclnnEqualGetWorkspaceSize(a.tensor, r.tensor, o.tensor, &ews, &eex), aclnnEqual);
    EXPECT_T(o, 0);
    DevTensor of = mk(F, (int64_t[]){1}, 1, NULL);
    EXPECT_ERR(aclnnEqualGetWorkspaceSize(a.tensor, b.tensor, of.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnEqual", "out", &of);
    RUN2(aclnnInplaceOneGetWorkspaceSize(r.tensor, &ews, &eex), aclnnInplaceOne);
    EXPECT_T(r, 1, 1, 1);
    dev_free(&a);
    dev_free(&b);
    dev_free(&c);
    dev_free(&n);
    dev_free(&r);
    dev_free(&o);
    dev_free(&of);
}

int main(void)
{
    device_init();
    RUN_TEST(test_aminmax);
    RUN_TEST(test_lists);
    RUN_TEST(test_trace_dot);
    RUN_TEST(test_equal_one);
    device_teardown();
    return capi_finish();
}
