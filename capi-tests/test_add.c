/* aclnnAdd / aclnnAdds / aclnnInplaceAdd / aclnnInplaceAdds: values, broadcasting, views, dtypes. */
#include "common.h"

#include <math.h>

/* Runs a contiguous f32 add with broadcasting and compares with the reference. */
static void check_broadcast_f32(const int64_t *as, size_t an, const int64_t *bs, size_t bn, const int64_t *want_shape,
                                size_t want_n, float alpha_v)
{
    int64_t os[16];
    size_t on = 0;
    CHECK(broadcast_shape(as, an, bs, bn, os, &on));
    CHECK(on == want_n);
    for (size_t i = 0; i < on; i++) CHECK(os[i] == want_shape[i]);

    int64_t na = shape_numel(as, an), nb = shape_numel(bs, bn), no = shape_numel(os, on);
    float *a = (float *)malloc(sizeof(float) * (size_t)(na ? na : 1));
    float *b = (float *)malloc(sizeof(float) * (size_t)(nb ? nb : 1));
    float *want = (float *)malloc(sizeof(float) * (size_t)(no ? no : 1));
    float *got = (float *)malloc(sizeof(float) * (size_t)(no ? no : 1));
    CHECK(a && b && want && got);
    for (int64_t i = 0; i < na; i++) a[i] = (float)(i % 97) * 0.5f - 7.0f;
    for (int64_t i = 0; i < nb; i++) b[i] = (float)(i % 89) * 0.25f + 1.0f;
    ref_add_f32(a, as, an, b, bs, bn, alpha_v, want, os, on);

    DevTensor ta = dev_tensor(a, ACL_FLOAT, as, an);
    DevTensor tb = dev_tensor(b, ACL_FLOAT, bs, bn);
    DevTensor to = dev_tensor(NULL, ACL_FLOAT, os, on);
    aclScalar *alpha = scalar_f32(alpha_v);
    CHECK_OK(add_run(ta.tensor, tb.tensor, alpha, to.tensor));
    dev_read(&to, got);
    for (int64_t i = 0; i < no; i++) {
        if (!near_f32(got[i], want[i])) fprintf(stderr, "element %lld: got %g want %g\n", (long long)i, got[i], want[i]);
        CHECK(near_f32(got[i], want[i]));
    }

    /* the other operand order too */
    DevTensor to2 = dev_tensor(NULL, ACL_FLOAT, os, on);
    CHECK_OK(add_run(tb.tensor, ta.tensor, alpha, to2.tensor));
    ref_add_f32(b, bs, bn, a, as, an, alpha_v, want, os, on);
    dev_read(&to2, got);
    for (int64_t i = 0; i < no; i++) CHECK(near_f32(got[i], want[i]));

    CHECK_OK(aclDestroyScalar(alpha));
    dev_free(&ta);
    dev_free(&tb);
    dev_free(&to);
    dev_free(&to2);
    free(a);
    free(b);
    free(want);
    free(got);
}

static void test_add_f32_basic(void)
{
    int64_t s[] = {2, 3};
    float a[] = {1, 2, 3, 4, 5, 6};
    float b[] = {10, 20, 30, 40, 50, 60};
    DevTensor ta = dev_tensor(a, ACL_FLOAT, s, 2);
    DevTensor tb = dev_tensor(b, ACL_FLOAT, s, 2);
    DevTensor to = dev_tensor(NULL, ACL_FLOAT, s, 2);
    aclScalar *alpha = scalar_f32(1.0f);

    uint64_t ws = 12345;
    aclOpExecutor *ex = NULL;
    CHECK_OK(aclnnAddGetWorkspaceSize(ta.tensor, tb.tensor, alpha, to.tensor, &ws, &ex));
    CHECK(ex != NULL);
    run_phase2(aclnnAdd, ws, ex);
    float got[6];
    dev_read(&to, got);
    for (int i = 0; i < 6; i++) CHECK(got[i] == a[i] + b[i]);
    /* inputs untouched */
    float a2[6];
    dev_read(&ta, a2);
    CHECK(memcmp(a, a2, sizeof(a)) == 0);

    CHECK_OK(aclDestroyScalar(alpha));
    dev_free(&ta);
    dev_free(&tb);
    dev_free(&to);
}

static void test_add_alpha(void)
{
    int64_t s[] = {5};
    float a[] = {1, 2, 3, 4, 5};
    float b[] = {0.5f, -1, 2, 8, -0.25f};
    DevTensor ta = dev_tensor(a, ACL_FLOAT, s, 1);
    DevTensor tb = dev_tensor(b, ACL_FLOAT, s, 1);
    DevTensor to = dev_tensor(NULL, ACL_FLOAT, s, 1);
    float got[5];

    aclScalar *alpha = scalar_f32(2.0f);
    CHECK_OK(add_run(ta.tensor, tb.tensor, alpha, to.tensor));
    dev_read(&to, got);
    for (int i = 0; i < 5; i++) CHECK(near_f32(got[i], a[i] + 2.0f * b[i]));
    CHECK_OK(aclDestroyScalar(alpha));

    /* negative, fractional alpha given as a double scalar */
    alpha = scalar_f64(-1.5);
    CHECK_OK(add_run(ta.tensor, tb.tensor, alpha, to.tensor));
    dev_read(&to, got);
    for (int i = 0; i < 5; i++) CHECK(near_f32(got[i], a[i] - 1.5f * b[i]));
    CHECK_OK(aclDestroyScalar(alpha));

    /* integer alpha with float tensors */
    alpha = scalar_i32(3);
    CHECK_OK(add_run(ta.tensor, tb.tensor, alpha, to.tensor));
    dev_read(&to, got);
    for (int i = 0; i < 5; i++) CHECK(near_f32(got[i], a[i] + 3.0f * b[i]));
    CHECK_OK(aclDestroyScalar(alpha));

    /* alpha given as f16 / bf16 raw bits */
    uint16_t h = f32_to_f16(-0.5f);
    alpha = aclCreateScalar(&h, ACL_FLOAT16);
    CHECK(alpha != NULL);
    CHECK_OK(add_run(ta.tensor, tb.tensor, alpha, to.tensor));
    dev_read(&to, got);
    for (int i = 0; i < 5; i++) CHECK(near_f32(got[i], a[i] - 0.5f * b[i]));
    CHECK_OK(aclDestroyScalar(alpha));
    uint16_t bh = f32_to_bf16(4.0f);
    alpha = aclCreateScalar(&bh, ACL_BF16);
    CHECK(alpha != NULL);
    CHECK_OK(add_run(ta.tensor, tb.tensor, alpha, to.tensor));
    dev_read(&to, got);
    for (int i = 0; i < 5; i++) CHECK(near_f32(got[i], a[i] + 4.0f * b[i]));
    CHECK_OK(aclDestroyScalar(alpha));
    /* alpha dtypes are the ALL12 list (reference 5.1): u64 is refused */
    uint64_t u = 5;
    alpha = aclCreateScalar(&u, ACL_UINT64);
    CHECK(alpha != NULL);
    CHECK_STATUS(add_run(ta.tensor, tb.tensor, alpha, to.tensor), ACLNN_ERR_PARAM_INVALID);
    CHECK_ERRMSG("alpha");
    CHECK_OK(aclDestroyScalar(alpha));

    /* alpha 0 */
    alpha = scalar_f32(0.0f);
    CHECK_OK(add_run(ta.tensor, tb.tensor, alpha, to.tensor));
    dev_read(&to, got);
    for (int i = 0; i < 5; i++) CHECK(got[i] == a[i]);
    CHECK_OK(aclDestroyScalar(alpha));

    dev_free(&ta);
    dev_free(&tb);
    dev_free(&to);
}

static void test_add_broadcast_simple(void)
{
    int64_t a1[] = {2, 3}, b1[] = {3}, o1[] = {2, 3};
    check_broadcast_f32(a1, 2, b1, 1, o1, 2, 1.0f);
    int64_t a2[] = {3, 1}, b2[] = {1, 4}, o2[] = {3, 4};
    check_broadcast_f32(a2, 2, b2, 2, o2, 2, 1.0f);

    /* exact values for (2,3)+(3,) */
    int64_t s23[] = {2, 3}, s3[] = {3};
    float a[] = {0, 1, 2, 3, 4, 5}, b[] = {100, 200, 300};
    DevTensor ta = dev_tensor(a, ACL_FLOAT, s23, 2);
    DevTensor tb = dev_tensor(b, ACL_FLOAT, s3, 1);
    DevTensor to = dev_tensor(NULL, ACL_FLOAT, s23, 2);
    aclScalar *alpha = scalar_f32(1.0f);
    CHECK_OK(add_run(ta.tensor, tb.tensor, alpha, to.tensor));
    float got[6];
    const float want[] = {100, 201, 302, 103, 204, 305};
    dev_read(&to, got);
    for (int i = 0; i < 6; i++) CHECK(got[i] == want[i]);
    CHECK_OK(aclDestroyScalar(alpha));
    dev_free(&ta);
    dev_free(&tb);
    dev_free(&to);
}

/* Every broadcasting example of SEMANTICS section 3. */
static void test_add_broadcast_seed_examples(void)
{
    {
        int64_t a[] = {2, 3, 4, 5}, o[] = {2, 3, 4, 5};
        check_broadcast_f32(a, 4, NULL, 0, o, 4, 1.0f);
    }
    {
        int64_t a[] = {2, 3, 4, 5}, b[] = {5}, o[] = {2, 3, 4, 5};
        check_broadcast_f32(a, 4, b, 1, o, 4, 1.0f);
    }
    {
        int64_t a[] = {4, 5}, b[] = {2, 3, 4, 5}, o[] = {2, 3, 4, 5};
        check_broadcast_f32(a, 2, b, 4, o, 4, 1.0f);
    }
    {
        int64_t a[] = {1, 4, 5}, b[] = {2, 3, 1, 1}, o[] = {2, 3, 4, 5};
        check_broadcast_f32(a, 3, b, 4, o, 4, 1.0f);
    }
    {
        int64_t a[] = {3, 4, 5}, b[] = {2, 1, 1, 1}, o[] = {2, 3, 4, 5};
        check_broadcast_f32(a, 3, b, 4, o, 4, 1.0f);
    }
    {
        int64_t a[] = {2, 2, 3}, b[] = {2, 3}, o[] = {2, 2, 3};
        check_broadcast_f32(a, 3, b, 2, o, 3, 1.0f);
    }
    {
        int64_t a[] = {1, 3}, b[] = {3, 1}, o[] = {3, 3};
        check_broadcast_f32(a, 2, b, 2, o, 2, 1.0f);
    }
    /* the same with alpha != 1 */
    {
        int64_t a[] = {1, 4, 5}, b[] = {2, 3, 1, 1}, o[] = {2, 3, 4, 5};
        check_broadcast_f32(a, 3, b, 4, o, 4, -0.5f);
    }
    /* 8 dims, the maximum */
    {
        int64_t a[] = {2, 1, 2, 1, 2, 1, 2, 1}, b[] = {1, 2, 1, 2, 1, 2, 1, 3};
        int64_t o[] = {2, 2, 2, 2, 2, 2, 2, 3};
        check_broadcast_f32(a, 8, b, 8, o, 8, 2.0f);
    }
    /* larger than one parallel chunk */
    {
        int64_t a[] = {300, 1, 70}, b[] = {40, 1}, o[] = {300, 40, 70};
        check_broadcast_f32(a, 3, b, 2, o, 3, 1.0f);
    }
}

/* self is a transposed (non-contiguous) view. */
static void test_add_transposed_input(void)
{
    /* storage 3x2 [[0,1],[2,3],[4,5]]; view = its transpose, shape (2,3), strides (1,2) */
    float st[] = {0, 1, 2, 3, 4, 5};
    int64_t storage[] = {3, 2}, shape[] = {2, 3}, strides[] = {1, 2};
    DevTensor ta = dev_view(st, ACL_FLOAT, storage, 2, shape, 2, strides, 0);
    float b[] = {10, 20, 30, 40, 50, 60};
    DevTensor tb = dev_tensor(b, ACL_FLOAT, shape, 2);
    DevTensor to = dev_tensor(NULL, ACL_FLOAT, shape, 2);
    aclScalar *alpha = scalar_f32(1.0f);
    CHECK_OK(add_run(ta.tensor, tb.tensor, alpha, to.tensor));
    float got[6];
    const float want[] = {0 + 10, 2 + 20, 4 + 30, 1 + 40, 3 + 50, 5 + 60};
    dev_read(&to, got);
    for (int i = 0; i < 6; i++) CHECK(got[i] == want[i]);

    /* both inputs transposed, output transposed too */
    DevTensor tb2 = dev_view(b, ACL_FLOAT, storage, 2, shape, 2, strides, 0);
    DevTensor to2 = dev_view(NULL, ACL_FLOAT, storage, 2, shape, 2, strides, 0);
    CHECK_OK(add_run(ta.tensor, tb2.tensor, alpha, to2.tensor));
    dev_read(&to2, got);
    for (int i = 0; i < 6; i++) CHECK(got[i] == st[i] + b[i]);

    /* a stride-0 (expanded) input view: shape (2,3) strides (0,1) over 3 elements */
    float row[] = {7, 8, 9};
    int64_t s3[] = {3}, exp_strides[] = {0, 1};
    DevTensor te = dev_view(row, ACL_FLOAT, s3, 1, shape, 2, exp_strides, 0);
    CHECK_OK(add_run(te.tensor, tb.tensor, alpha, to.tensor));
    dev_read(&to, got);
    for (int i = 0; i < 6; i++) CHECK(got[i] == row[i % 3] + b[i]);

    CHECK_OK(aclDestroyScalar(alpha));
    dev_free(&ta);
    dev_free(&tb);
    dev_free(&to);
    dev_free(&tb2);
    dev_free(&to2);
    dev_free(&te);
}

/* The seed views of SEMANTICS section 2 as inputs and as output. */
static void test_add_seed_views(void)
{
    int64_t storage[] = {10, 10};
    float st[100];
    for (int i = 0; i < 100; i++) st[i] = (float)i;
    aclScalar *alpha = scalar_f32(1.0f);

    /* input: shape (6,5) strides (10,1) offset 22 */
    {
        int64_t shape[] = {6, 5}, strides[] = {10, 1};
        DevTensor ta = dev_view(st, ACL_FLOAT, storage, 2, shape, 2, strides, 22);
        float ones[30];
        for (int i = 0; i < 30; i++) ones[i] = 1000.0f;
        DevTensor tb = dev_tensor(ones, ACL_FLOAT, shape, 2);
        DevTensor to = dev_tensor(NULL, ACL_FLOAT, shape, 2);
        CHECK_OK(add_run(ta.tensor, tb.tensor, alpha, to.tensor));
        float got[30];
        dev_read(&to, got);
        for (int i = 0; i < 6; i++)
            for (int j = 0; j < 5; j++) CHECK(got[i * 5 + j] == (float)(22 + i * 10 + j) + 1000.0f);
        dev_free(&ta);
        dev_free(&tb);
        dev_free(&to);
    }
    /* input: shape (4,3) strides (20,2) offset 22 */
    int64_t shape[] = {4, 3}, strides[] = {20, 2};
    float b[12];
    for (int i = 0; i < 12; i++) b[i] = (float)(i * 1000);
    {
        DevTensor ta = dev_view(st, ACL_FLOAT, storage, 2, shape, 2, strides, 22);
        DevTensor tb = dev_tensor(b, ACL_FLOAT, shape, 2);
        DevTensor to = dev_tensor(NULL, ACL_FLOAT, shape, 2);
        CHECK_OK(add_run(ta.tensor, tb.tensor, alpha, to.tensor));
        float got[12];
        dev_read(&to, got);
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 3; j++) CHECK(got[i * 3 + j] == (float)(22 + i * 20 + j * 2) + b[i * 3 + j]);
        dev_free(&ta);
        dev_free(&tb);
        dev_free(&to);
    }
    /* output: the (4,3) strides (20,2) offset 22 view; the other storage elements stay untouched */
    {
        float a[12];
        for (int i = 0; i < 12; i++) a[i] = (float)i;
        float sentinel[100];
        for (int i = 0; i < 100; i++) sentinel[i] = -777.0f - (float)i;
        DevTensor ta = dev_tensor(a, ACL_FLOAT, shape, 2);
        DevTensor tb = dev_tensor(b, ACL_FLOAT, shape, 2);
        DevTensor to = dev_view(sentinel, ACL_FLOAT, storage, 2, shape, 2, strides, 22);
        CHECK_OK(add_run(ta.tensor, tb.tensor, alpha, to.tensor));
        float got[100];
        dev_read(&to, got);
        bool in_view[100] = {false};
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 3; j++) {
                int k = 22 + i * 20 + j * 2;
                in_view[k] = true;
                CHECK(got[k] == a[i * 3 + j] + b[i * 3 + j]);
            }
        for (int k = 0; k < 100; k++)
            if (!in_view[k]) {
                if (got[k] != sentinel[k]) fprintf(stderr, "storage element %d written: %g\n", k, got[k]);
                CHECK(got[k] == sentinel[k]);
            }
        dev_free(&ta);
        dev_free(&tb);
        dev_free(&to);
    }
    /* the (4,3) view as input AND output at once (in place over the same storage) */
    {
        float b2[12];
        for (int i = 0; i < 12; i++) b2[i] = 0.5f;
        DevTensor tio = dev_view(st, ACL_FLOAT, storage, 2, shape, 2, strides, 22);
        DevTensor tb = dev_tensor(b2, ACL_FLOAT, shape, 2);
        CHECK_OK(add_run(tio.tensor, tb.tensor, alpha, tio.tensor));
        float got[100];
        dev_read(&tio, got);
        for (int k = 0; k < 100; k++) {
            bool in = false;
            for (int i = 0; i < 4; i++)
                for (int j = 0; j < 3; j++)
                    if (22 + i * 20 + j * 2 == k) in = true;
            CHECK(got[k] == (in ? st[k] + 0.5f : st[k]));
        }
        dev_free(&tio);
        dev_free(&tb);
    }
    CHECK_OK(aclDestroyScalar(alpha));
}

static void test_add_f16_f32_to_f32(void)
{
    int64_t s[] = {5};
    const float av[] = {1.5f, -2.0f, 1024.0f, 0.25f, 65504.0f};
    uint16_t a[5];
    for (int i = 0; i < 5; i++) a[i] = f32_to_f16(av[i]);
    float b[] = {0.25f, 0.125f, 0.001f, -0.25f, 1.0f};
    DevTensor ta = dev_tensor(a, ACL_FLOAT16, s, 1);
    DevTensor tb = dev_tensor(b, ACL_FLOAT, s, 1);
    DevTensor to = dev_tensor(NULL, ACL_FLOAT, s, 1);
    aclScalar *alpha = scalar_f32(1.0f);
    CHECK_OK(add_run(ta.tensor, tb.tensor, alpha, to.tensor));
    float got[5];
    dev_read(&to, got);
    /* computed in f32: 1024 + 0.001 keeps the f32 precision, 65504 + 1 does not overflow */
    for (int i = 0; i < 5; i++) CHECK(near_f32(got[i], av[i] + b[i]));
    CHECK(got[2] == 1024.0f + 0.001f);
    CHECK(got[4] == 65505.0f);
    /* order swapped */
    CHECK_OK(add_run(tb.tensor, ta.tensor, alpha, to.tensor));
    dev_read(&to, got);
    for (int i = 0; i < 5; i++) CHECK(near_f32(got[i], av[i] + b[i]));
    CHECK_OK(aclDestroyScalar(alpha));
    dev_free(&ta);
    dev_free(&tb);
    dev_free(&to);
}

/*
 * s32 + f16 computes in f16 (SEMANTICS section 4): the s32 input is converted to f16
 * first, so 100000 becomes +inf before the addition; and f16 + f16 overflows in f16 even
 * when out is f32.
 */
static void test_add_f16_computation(void)
{
    int64_t s[] = {3};
    int32_t a[] = {100000, 2049, 7};
    uint16_t b[] = {f32_to_f16(-65504.0f), f32_to_f16(0.0f), f32_to_f16(0.5f)};
    DevTensor ta = dev_tensor(a, ACL_INT32, s, 1);
    DevTensor tb = dev_tensor(b, ACL_FLOAT16, s, 1);
    DevTensor to = dev_tensor(NULL, ACL_FLOAT16, s, 1);
    aclScalar *alpha = scalar_i32(1);
    CHECK_OK(add_run(ta.tensor, tb.tensor, alpha, to.tensor));
    uint16_t got[3];
    dev_read(&to, got);
    CHECK(got[0] == 0x7C00u);
    CHECK(got[1] == f32_to_f16(2048.0f));
    CHECK(got[2] == f32_to_f16(7.5f));

    uint16_t m[] = {f32_to_f16(65504.0f), f32_to_f16(1.0f), f32_to_f16(-65504.0f)};
    DevTensor tm = dev_tensor(m, ACL_FLOAT16, s, 1);
    DevTensor to32 = dev_tensor(NULL, ACL_FLOAT, s, 1);
    CHECK_OK(add_run(tm.tensor, tm.tensor, alpha, to32.tensor));
    float g32[3];
    dev_read(&to32, g32);
    CHECK(isinf(g32[0]) && g32[0] > 0);
    CHECK(g32[1] == 2.0f);
    CHECK(isinf(g32[2]) && g32[2] < 0);

    CHECK_OK(aclDestroyScalar(alpha));
    dev_free(&ta);
    dev_free(&tb);
    dev_free(&to);
    dev_free(&tm);
    dev_free(&to32);
}

static void test_add_s32_f32(void)
{
    int64_t s[] = {4};
    int32_t a[] = {1, -2, 16777216, 100};
    float b[] = {0.5f, 0.25f, 1.0f, -100.5f};
    DevTensor ta = dev_tensor(a, ACL_INT32, s, 1);
    DevTensor tb = dev_tensor(b, ACL_FLOAT, s, 1);
    DevTensor to = dev_tensor(NULL, ACL_FLOAT, s, 1);
    aclScalar *alpha = scalar_f32(2.0f);
    CHECK_OK(add_run(ta.tensor, tb.tensor, alpha, to.tensor));
    float got[4];
    dev_read(&to, got);
    for (int i = 0; i < 4; i++) CHECK(near_f32(got[i], (float)a[i] + 2.0f * b[i]));
    CHECK_OK(aclDestroyScalar(alpha));
    dev_free(&ta);
    dev_free(&tb);
    dev_free(&to);
}

static void test_add_s8_u8_to_s16(void)
{
    int64_t s[] = {5};
    int8_t a[] = {-100, 127, -128, 5, 0};
    uint8_t b[] = {200, 255, 255, 0, 128};
    DevTensor ta = dev_tensor(a, ACL_INT8, s, 1);
    DevTensor tb = dev_tensor(b, ACL_UINT8, s, 1);
    DevTensor to = dev_tensor(NULL, ACL_INT16, s, 1);
    aclScalar *alpha = scalar_i32(1);
    CHECK_OK(add_run(ta.tensor, tb.tensor, alpha, to.tensor));
    int16_t got[5];
    dev_read(&to, got);
    for (int i = 0; i < 5; i++) {
        if (got[i] != (int16_t)(a[i] + b[i])) fprintf(stderr, "[%d] got %d want %d\n", i, got[i], a[i] + b[i]);
        CHECK(got[i] == (int16_t)(a[i] + b[i]));
    }
    CHECK_OK(aclDestroyScalar(alpha));

    /* with an integer alpha of 2: computed in s16 */
    alpha = scalar_i64(2);
    CHECK_OK(add_run(ta.tensor, tb.tensor, alpha, to.tensor));
    dev_read(&to, got);
    for (int i = 0; i < 5; i++) CHECK(got[i] == (int16_t)(a[i] + 2 * b[i]));
    CHECK_OK(aclDestroyScalar(alpha));
    dev_free(&ta);
    dev_free(&tb);
    dev_free(&to);
}

static void test_add_bool_bool(void)
{
    int64_t s[] = {4};
    bool a[] = {false, true, false, true};
    bool b[] = {false, false, true, true};
    DevTensor ta = dev_tensor(a, ACL_BOOL, s, 1);
    DevTensor tb = dev_tensor(b, ACL_BOOL, s, 1);
    DevTensor to = dev_tensor(NULL, ACL_BOOL, s, 1);
    aclScalar *alpha = scalar_bool(true);
    CHECK_OK(add_run(ta.tensor, tb.tensor, alpha, to.tensor));
    uint8_t got[4];
    dev_read(&to, got);
    for (int i = 0; i < 4; i++) CHECK(got[i] == (uint8_t)(a[i] || b[i]));
    CHECK_OK(aclDestroyScalar(alpha));
    dev_free(&ta);
    dev_free(&tb);
    dev_free(&to);
}

/* The out dtype differs from the computation dtype: the result is converted. */
static void test_add_out_dtype_cast(void)
{
    /* f32 + f32 -> f16 out, round to nearest even, overflow to inf */
    {
        int64_t s[] = {5};
        float a[] = {1.5f, 1.0f, 1.0f, 60000.0f, -3.0f};
        float b[] = {2.25f, 0.00048828125f, 0.000732421875f, 40000.0f, 0.5f};
        const uint16_t want[] = {f32_to_f16(3.75f), 0x3C00u, 0x3C01u, 0x7C00u, f32_to_f16(-2.5f)};
        DevTensor ta = dev_tensor(a, ACL_FLOAT, s, 1);
        DevTensor tb = dev_tensor(b, ACL_FLOAT, s, 1);
        DevTensor to = dev_tensor(NULL, ACL_FLOAT16, s, 1);
        aclScalar *alpha = scalar_f32(1.0f);
        CHECK_OK(add_run(ta.tensor, tb.tensor, alpha, to.tensor));
        uint16_t got[5];
        dev_read(&to, got);
        for (int i = 0; i < 5; i++) {
            if (got[i] != want[i]) fprintf(stderr, "[%d] got 0x%04x want 0x%04x\n", i, got[i], want[i]);
            CHECK(got[i] == want[i]);
        }
        CHECK_OK(aclDestroyScalar(alpha));
        dev_free(&ta);
        dev_free(&tb);
        dev_free(&to);
    }
    /* s32 + s32 -> f64 out */
    {
        int64_t s[] = {3};
        int32_t a[] = {100000, -5, 7};
        int32_t b[] = {23, 5, -10};
        DevTensor ta = dev_tensor(a, ACL_INT32, s, 1);
        DevTensor tb = dev_tensor(b, ACL_INT32, s, 1);
        DevTensor to = dev_tensor(NULL, ACL_DOUBLE, s, 1);
        aclScalar *alpha = scalar_i32(1);
        CHECK_OK(add_run(ta.tensor, tb.tensor, alpha, to.tensor));
        double got[3];
        dev_read(&to, got);
        CHECK(got[0] == 100023.0 && got[1] == 0.0 && got[2] == -3.0);
        CHECK_OK(aclDestroyScalar(alpha));
        dev_free(&ta);
        dev_free(&tb);
        dev_free(&to);
    }
    /* f32 + f32 -> bf16 and f64 out */
    {
        int64_t s[] = {2};
        float a[] = {1.0f, 256.0f}, b[] = {0.5f, 1.0f};
        DevTensor ta = dev_tensor(a, ACL_FLOAT, s, 1);
        DevTensor tb = dev_tensor(b, ACL_FLOAT, s, 1);
        DevTensor to = dev_tensor(NULL, ACL_BF16, s, 1);
        DevTensor to64 = dev_tensor(NULL, ACL_DOUBLE, s, 1);
        aclScalar *alpha = scalar_f32(1.0f);
        CHECK_OK(add_run(ta.tensor, tb.tensor, alpha, to.tensor));
        uint16_t got[2];
        dev_read(&to, got);
        CHECK(got[0] == f32_to_bf16(1.5f));
        CHECK(got[1] == f32_to_bf16(257.0f)); /* 257 rounds to 256 in bf16 (ties to even) */
        CHECK(bf16_to_f32(got[1]) == 256.0f);
        CHECK_OK(add_run(ta.tensor, tb.tensor, alpha, to64.tensor));
        double g64[2];
        dev_read(&to64, g64);
        CHECK(g64[0] == 1.5 && g64[1] == 257.0);
        CHECK_OK(aclDestroyScalar(alpha));
        dev_free(&ta);
        dev_free(&tb);
        dev_free(&to);
        dev_free(&to64);
    }
    /* s32 + s32 -> s8 out: two's complement wrapping; -> s64 widening */
    {
        int64_t s[] = {3};
        int32_t a[] = {100, 200, -300};
        int32_t b[] = {27, 100, 0};
        DevTensor ta = dev_tensor(a, ACL_INT32, s, 1);
        DevTensor tb = dev_tensor(b, ACL_INT32, s, 1);
        DevTensor to = dev_tensor(NULL, ACL_INT8, s, 1);
        DevTensor to64 = dev_tensor(NULL, ACL_INT64, s, 1);
        aclScalar *alpha = scalar_i32(1);
        CHECK_OK(add_run(ta.tensor, tb.tensor, alpha, to.tensor));
        int8_t got[3];
        dev_read(&to, got);
        CHECK(got[0] == 127);
        CHECK(got[1] == (int8_t)(uint8_t)(300 & 0xFF)); /* 300 -> 44 */
        CHECK(got[2] == (int8_t)(uint8_t)((unsigned)-300 & 0xFFu)); /* -300 -> -44 */
        CHECK_OK(add_run(ta.tensor, tb.tensor, alpha, to64.tensor));
        int64_t g64[3];
        dev_read(&to64, g64);
        CHECK(g64[0] == 127 && g64[1] == 300 && g64[2] == -300);
        CHECK_OK(aclDestroyScalar(alpha));
        dev_free(&ta);
        dev_free(&tb);
        dev_free(&to);
        dev_free(&to64);
    }
}

static void test_add_special_values(void)
{
    int64_t s[] = {4};
    float inf = (float)INFINITY;
    float a[] = {NAN, inf, inf, -0.0f};
    float b[] = {1.0f, 1.0f, -inf, -0.0f};
    DevTensor ta = dev_tensor(a, ACL_FLOAT, s, 1);
    DevTensor tb = dev_tensor(b, ACL_FLOAT, s, 1);
    DevTensor to = dev_tensor(NULL, ACL_FLOAT, s, 1);
    DevTensor toh = dev_tensor(NULL, ACL_FLOAT16, s, 1);
    aclScalar *alpha = scalar_f32(1.0f);
    CHECK_OK(add_run(ta.tensor, tb.tensor, alpha, to.tensor));
    float got[4];
    dev_read(&to, got);
    CHECK(isnan(got[0]));
    CHECK(isinf(got[1]) && got[1] > 0);
    CHECK(isnan(got[2]));
    CHECK(got[3] == 0.0f && signbit(got[3]));
    /* NaN and infinities survive the conversion to f16 */
    CHECK_OK(add_run(ta.tensor, tb.tensor, alpha, toh.tensor));
    uint16_t goth[4];
    dev_read(&toh, goth);
    CHECK((goth[0] & 0x7C00u) == 0x7C00u && (goth[0] & 0x3FFu) != 0);
    CHECK(goth[1] == 0x7C00u);
    CHECK((goth[2] & 0x7C00u) == 0x7C00u && (goth[2] & 0x3FFu) != 0);
    CHECK(goth[3] == 0x8000u);
    CHECK_OK(aclDestroyScalar(alpha));

    /* integer arithmetic wraps (two's complement) */
    int32_t ia[] = {2147483647, -2147483647 - 1, 100, -1};
    int32_t ib[] = {1, -1, 2147483647, -2147483647 - 1};
    DevTensor tia = dev_tensor(ia, ACL_INT32, s, 1);
    DevTensor tib = dev_tensor(ib, ACL_INT32, s, 1);
    DevTensor tio = dev_tensor(NULL, ACL_INT32, s, 1);
    alpha = scalar_i32(1);
    CHECK_OK(add_run(tia.tensor, tib.tensor, alpha, tio.tensor));
    int32_t gi[4];
    dev_read(&tio, gi);
    for (int i = 0; i < 4; i++) CHECK(gi[i] == (int32_t)((uint32_t)ia[i] + (uint32_t)ib[i]));
    CHECK_OK(aclDestroyScalar(alpha));
    /* alpha * other wraps too: 3 * 2^30 in s32 */
    alpha = scalar_i32(3);
    int32_t big[] = {1 << 30, 1 << 30, 1 << 30, 1 << 30};
    dev_write(&tib, big);
    CHECK_OK(add_run(tia.tensor, tib.tensor, alpha, tio.tensor));
    dev_read(&tio, gi);
    for (int i = 0; i < 4; i++) CHECK(gi[i] == (int32_t)((uint32_t)ia[i] + 3u * (uint32_t)big[i]));
    CHECK_OK(aclDestroyScalar(alpha));

    dev_free(&ta);
    dev_free(&tb);
    dev_free(&to);
    dev_free(&toh);
    dev_free(&tia);
    dev_free(&tib);
    dev_free(&tio);
}

static void test_add_other_dtypes(void)
{
    /* f64 */
    {
        int64_t s[] = {3};
        double a[] = {1e300, 0.1, -2.5}, b[] = {1e300, 0.2, 2.5};
        DevTensor ta = dev_tensor(a, ACL_DOUBLE, s, 1);
        DevTensor tb = dev_tensor(b, ACL_DOUBLE, s, 1);
        DevTensor to = dev_tensor(NULL, ACL_DOUBLE, s, 1);
        aclScalar *alpha = scalar_f64(1.0);
        CHECK_OK(add_run(ta.tensor, tb.tensor, alpha, to.tensor));
        double got[3];
        dev_read(&to, got);
        CHECK(got[0] == 2e300 && near_f64(got[1], 0.1 + 0.2) && got[2] == 0.0);
        CHECK_OK(aclDestroyScalar(alpha));
        dev_free(&ta);
        dev_free(&tb);
        dev_free(&to);
    }
    /* s64 with large values */
    {
        int64_t s[] = {2};
        int64_t a[] = {((int64_t)1 << 40) + 1, -5}, b[] = {((int64_t)1 << 41), 3};
        DevTensor ta = dev_tensor(a, ACL_INT64, s, 1);
        DevTensor tb = dev_tensor(b, ACL_INT64, s, 1);
        DevTensor to = dev_tensor(NULL, ACL_INT64, s, 1);
        aclScalar *alpha = scalar_i64(3);
        CHECK_OK(add_run(ta.tensor, tb.tensor, alpha, to.tensor));
        int64_t got[2];
        dev_read(&to, got);
        CHECK(got[0] == a[0] + 3 * b[0] && got[1] == 4);
        CHECK_OK(aclDestroyScalar(alpha));
        dev_free(&ta);
        dev_free(&tb);
        dev_free(&to);
    }
    /* c64 */
    {
        int64_t s[] = {2};
        float a[] = {1, 2, 3, 4}, b[] = {10, 20, 30, 40}; /* (1+2i), (3+4i) ... */
        DevTensor ta = dev_tensor(a, ACL_COMPLEX64, s, 1);
        DevTensor tb = dev_tensor(b, ACL_COMPLEX64, s, 1);
        DevTensor to = dev_tensor(NULL, ACL_COMPLEX64, s, 1);
        float alpha_c[2] = {2.0f, 0.0f};
        aclScalar *alpha = aclCreateScalar(alpha_c, ACL_COMPLEX64);
        CHECK(alpha != NULL);
        CHECK_OK(add_run(ta.tensor, tb.tensor, alpha, to.tensor));
        float got[4];
        dev_read(&to, got);
        for (int i = 0; i < 4; i++) CHECK(got[i] == a[i] + 2 * b[i]);
        CHECK_OK(aclDestroyScalar(alpha));
        dev_free(&ta);
        dev_free(&tb);
        dev_free(&to);
    }
    /* 4-d NCHW tensors: element-wise ops accept every public format */
    {
        int64_t s[] = {1, 2, 2, 2};
        float a[8], b[8];
        for (int i = 0; i < 8; i++) {
            a[i] = (float)i;
            b[i] = (float)(i * i);
        }
        DevTensor ta = dev_tensor(a, ACL_FLOAT, s, 4);
        DevTensor tb = dev_tensor(b, ACL_FLOAT, s, 4);
        DevTensor to = dev_tensor(NULL, ACL_FLOAT, s, 4);
        CHECK_OK(aclDestroyTensor(ta.tensor));
        CHECK_OK(aclDestroyTensor(tb.tensor));
        CHECK_OK(aclDestroyTensor(to.tensor));
        ta.tensor = aclCreateTensor(s, 4, ACL_FLOAT, NULL, 0, ACL_FORMAT_NCHW, s, 4, ta.dev);
        tb.tensor = aclCreateTensor(s, 4, ACL_FLOAT, NULL, 0, ACL_FORMAT_NHWC, s, 4, tb.dev);
        to.tensor = aclCreateTensor(s, 4, ACL_FLOAT, NULL, 0, ACL_FORMAT_NCHW, s, 4, to.dev);
        CHECK(ta.tensor && tb.tensor && to.tensor);
        aclScalar *alpha = scalar_f32(1.0f);
        CHECK_OK(add_run(ta.tensor, tb.tensor, alpha, to.tensor));
        float got[8];
        dev_read(&to, got);
        for (int i = 0; i < 8; i++) CHECK(got[i] == a[i] + b[i]);
        CHECK_OK(aclDestroyScalar(alpha));
        dev_free(&ta);
        dev_free(&tb);
        dev_free(&to);
    }
}

static void test_adds(void)
{
    int64_t s[] = {2, 2};
    float a[] = {1, 2, 3, 4};
    DevTensor ta = dev_tensor(a, ACL_FLOAT, s, 2);
    DevTensor to = dev_tensor(NULL, ACL_FLOAT, s, 2);
    aclScalar *other = scalar_f32(3.5f);
    aclScalar *alpha = scalar_f32(2.0f);
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    CHECK_OK(aclnnAddsGetWorkspaceSize(ta.tensor, other, alpha, to.tensor, &ws, &ex));
    CHECK(ex != NULL);
    run_phase2(aclnnAdds, ws, ex);
    float got[4];
    dev_read(&to, got);
    for (int i = 0; i < 4; i++) CHECK(got[i] == a[i] + 7.0f);
    CHECK_OK(aclDestroyScalar(other));
    CHECK_OK(aclDestroyScalar(alpha));

    /* s32 tensor + integer scalar stays s32 */
    int32_t ia[] = {10, -20, 30, 2147483000};
    DevTensor ti = dev_tensor(ia, ACL_INT32, s, 2);
    DevTensor toi = dev_tensor(NULL, ACL_INT32, s, 2);
    other = scalar_i64(5);
    alpha = scalar_i32(2);
    CHECK_OK(aclnnAddsGetWorkspaceSize(ti.tensor, other, alpha, toi.tensor, &ws, &ex));
    run_phase2(aclnnAdds, ws, ex);
    int32_t goti[4];
    dev_read(&toi, goti);
    for (int i = 0; i < 4; i++) CHECK(goti[i] == ia[i] + 10);
    CHECK_OK(aclDestroyScalar(other));
    CHECK_OK(aclDestroyScalar(alpha));

    /* s32 tensor + float scalar computes in f32 */
    other = scalar_f32(0.5f);
    alpha = scalar_f32(1.0f);
    CHECK_OK(aclnnAddsGetWorkspaceSize(ti.tensor, other, alpha, to.tensor, &ws, &ex));
    run_phase2(aclnnAdds, ws, ex);
    dev_read(&to, got);
    for (int i = 0; i < 4; i++) CHECK(near_f32(got[i], (float)ia[i] + 0.5f));
    CHECK_OK(aclDestroyScalar(other));
    CHECK_OK(aclDestroyScalar(alpha));

    /* f16 tensor + f64 scalar stays f16 */
    uint16_t ha[4];
    for (int i = 0; i < 4; i++) ha[i] = f32_to_f16(a[i]);
    DevTensor th = dev_tensor(ha, ACL_FLOAT16, s, 2);
    DevTensor toh = dev_tensor(NULL, ACL_FLOAT16, s, 2);
    other = scalar_f64(0.25);
    alpha = scalar_f32(1.0f);
    CHECK_OK(aclnnAddsGetWorkspaceSize(th.tensor, other, alpha, toh.tensor, &ws, &ex));
    run_phase2(aclnnAdds, ws, ex);
    uint16_t goth[4];
    dev_read(&toh, goth);
    for (int i = 0; i < 4; i++) CHECK(goth[i] == f32_to_f16(a[i] + 0.25f));
    CHECK_OK(aclDestroyScalar(other));
    CHECK_OK(aclDestroyScalar(alpha));

    dev_free(&ta);
    dev_free(&to);
    dev_free(&ti);
    dev_free(&toi);
    dev_free(&th);
    dev_free(&toh);
}

static void test_inplace_add(void)
{
    int64_t s23[] = {2, 3}, s3[] = {3};
    float a[] = {1, 2, 3, 4, 5, 6};
    float b[] = {10, 20, 30};
    DevTensor ta = dev_tensor(a, ACL_FLOAT, s23, 2);
    DevTensor tb = dev_tensor(b, ACL_FLOAT, s3, 1);
    aclScalar *alpha = scalar_f32(2.0f);
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    CHECK_OK(aclnnInplaceAddGetWorkspaceSize(ta.tensor, tb.tensor, alpha, &ws, &ex));
    CHECK(ex != NULL);
    run_phase2(aclnnInplaceAdd, ws, ex);
    float got[6];
    dev_read(&ta, got);
    for (int i = 0; i < 6; i++) CHECK(got[i] == a[i] + 2.0f * b[i % 3]);
    float b2[3];
    dev_read(&tb, b2);
    CHECK(memcmp(b, b2, sizeof(b)) == 0);

    /* selfRef s32 with an f32 other: computed in f32, and f32 -> s32 (the selfRef dtype) is refused */
    int32_t ia[] = {1, 2, 3, 4, 5, 6};
    DevTensor ti = dev_tensor(ia, ACL_INT32, s23, 2);
    CHECK_STATUS(aclnnInplaceAddGetWorkspaceSize(ti.tensor, tb.tensor, alpha, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
    int32_t gi[6];
    dev_read(&ti, gi);
    CHECK(memcmp(gi, ia, sizeof(ia)) == 0);
    /* selfRef f32 with an s32 other: fine */
    int32_t ib[] = {1, 2, 3};
    DevTensor tib = dev_tensor(ib, ACL_INT32, s3, 1);
    CHECK_OK(aclnnInplaceAddGetWorkspaceSize(ta.tensor, tib.tensor, alpha, &ws, &ex));
    run_phase2(aclnnInplaceAdd, ws, ex);
    float got2[6];
    dev_read(&ta, got2);
    for (int i = 0; i < 6; i++) CHECK(got2[i] == got[i] + 2.0f * (float)ib[i % 3]);
    /* the broadcast shape must equal selfRef's shape */
    CHECK_STATUS(aclnnInplaceAddGetWorkspaceSize(tb.tensor, ta.tensor, alpha, &ws, &ex), ACLNN_ERR_PARAM_INVALID);

    CHECK_OK(aclDestroyScalar(alpha));
    dev_free(&ta);
    dev_free(&tb);
    dev_free(&ti);
    dev_free(&tib);
}

static void test_inplace_adds(void)
{
    int64_t s[] = {4};
    int32_t a[] = {1, -2, 3, 100};
    DevTensor ta = dev_tensor(a, ACL_INT32, s, 1);
    aclScalar *other = scalar_i32(5);
    aclScalar *alpha = scalar_i32(3);
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    CHECK_OK(aclnnInplaceAddsGetWorkspaceSize(ta.tensor, other, alpha, &ws, &ex));
    CHECK(ex != NULL);
    run_phase2(aclnnInplaceAdds, ws, ex);
    int32_t got[4];
    dev_read(&ta, got);
    for (int i = 0; i < 4; i++) CHECK(got[i] == a[i] + 15);
    CHECK_OK(aclDestroyScalar(other));
    CHECK_OK(aclDestroyScalar(alpha));

    float f[] = {0.5f, 1.5f, 2.5f, 3.5f};
    DevTensor tf = dev_tensor(f, ACL_FLOAT, s, 1);
    other = scalar_f32(-0.5f);
    alpha = scalar_f32(1.0f);
    CHECK_OK(aclnnInplaceAddsGetWorkspaceSize(tf.tensor, other, alpha, &ws, &ex));
    run_phase2(aclnnInplaceAdds, ws, ex);
    float gf[4];
    dev_read(&tf, gf);
    for (int i = 0; i < 4; i++) CHECK(gf[i] == f[i] - 0.5f);
    CHECK_OK(aclDestroyScalar(other));
    CHECK_OK(aclDestroyScalar(alpha));
    dev_free(&ta);
    dev_free(&tf);
}

static void test_add_0d(void)
{
    float a = 2.5f, b = 1.5f;
    DevTensor ta = dev_tensor(&a, ACL_FLOAT, NULL, 0);
    DevTensor tb = dev_tensor(&b, ACL_FLOAT, NULL, 0);
    DevTensor to = dev_tensor(NULL, ACL_FLOAT, NULL, 0);
    aclScalar *alpha = scalar_f32(2.0f);
    CHECK_OK(add_run(ta.tensor, tb.tensor, alpha, to.tensor));
    float got = 0;
    dev_read(&to, &got);
    CHECK(got == 5.5f);

    /* 0-d + (2,3) -> (2,3) */
    int64_t s[] = {2, 3};
    float m[] = {1, 2, 3, 4, 5, 6};
    DevTensor tm = dev_tensor(m, ACL_FLOAT, s, 2);
    DevTensor tom = dev_tensor(NULL, ACL_FLOAT, s, 2);
    CHECK_OK(add_run(tm.tensor, ta.tensor, alpha, tom.tensor));
    float gm[6];
    dev_read(&tom, gm);
    for (int i = 0; i < 6; i++) CHECK(gm[i] == m[i] + 5.0f);
    CHECK_OK(add_run(ta.tensor, tm.tensor, alpha, tom.tensor));
    dev_read(&tom, gm);
    for (int i = 0; i < 6; i++) CHECK(gm[i] == 2.5f + 2.0f * m[i]);
    /* a 0-d out cannot hold a (2,3) result */
    CHECK_STATUS(add_run(tm.tensor, ta.tensor, alpha, to.tensor), ACLNN_ERR_PARAM_INVALID);

    CHECK_OK(aclDestroyScalar(alpha));
    dev_free(&ta);
    dev_free(&tb);
    dev_free(&to);
    dev_free(&tm);
    dev_free(&tom);
}

static void test_add_empty(void)
{
    int64_t s03[] = {0, 3}, s3[] = {3};
    float b[] = {1, 2, 3};
    DevTensor ta = dev_tensor(NULL, ACL_FLOAT, s03, 2);
    DevTensor tb = dev_tensor(b, ACL_FLOAT, s3, 1);
    DevTensor to = dev_tensor(NULL, ACL_FLOAT, s03, 2);
    aclScalar *alpha = scalar_f32(1.0f);
    uint64_t ws = 777;
    aclOpExecutor *ex = NULL;
    CHECK_OK(aclnnAddGetWorkspaceSize(ta.tensor, tb.tensor, alpha, to.tensor, &ws, &ex));
    CHECK(ws == 0);
    CHECK(ex != NULL);
    CHECK_OK(aclnnAdd(NULL, 0, ex, g_stream));
    CHECK_OK(aclrtSynchronizeStream(g_stream));

    /* (2,0) + (2,0); (2,1) + (2,0) -> (2,0) */
    int64_t s20[] = {2, 0}, s21[] = {2, 1};
    DevTensor tc = dev_tensor(NULL, ACL_FLOAT, s20, 2);
    DevTensor td = dev_tensor(b, ACL_FLOAT, s21, 2);
    DevTensor te = dev_tensor(NULL, ACL_FLOAT, s20, 2);
    CHECK_OK(aclnnAddGetWorkspaceSize(tc.tensor, tc.tensor, alpha, te.tensor, &ws, &ex));
    CHECK(ws == 0);
    CHECK_OK(aclnnAdd(NULL, 0, ex, g_stream));
    CHECK_OK(aclnnAddGetWorkspaceSize(td.tensor, tc.tensor, alpha, te.tensor, &ws, &ex));
    CHECK(ws == 0);
    CHECK_OK(aclnnAdd(NULL, 0, ex, g_stream));
    CHECK_OK(aclrtSynchronizeStream(g_stream));
    /* the non-empty input is untouched */
    float gd[2];
    dev_read(&td, gd);
    CHECK(gd[0] == 1 && gd[1] == 2);
    /* (0,3) + (2,3) does not broadcast */
    int64_t s23[] = {2, 3};
    DevTensor tf = dev_tensor(NULL, ACL_FLOAT, s23, 2);
    CHECK_STATUS(aclnnAddGetWorkspaceSize(ta.tensor, tf.tensor, alpha, to.tensor, &ws, &ex), ACLNN_ERR_PARAM_INVALID);

    /* empty in-place and Adds */
    aclScalar *one = scalar_f32(1.0f);
    CHECK_OK(aclnnInplaceAddsGetWorkspaceSize(ta.tensor, one, alpha, &ws, &ex));
    CHECK(ws == 0);
    CHECK_OK(aclnnInplaceAdds(NULL, 0, ex, g_stream));
    CHECK_OK(aclnnAddsGetWorkspaceSize(ta.tensor, one, alpha, to.tensor, &ws, &ex));
    CHECK(ws == 0);
    CHECK_OK(aclnnAdds(NULL, 0, ex, g_stream));
    CHECK_OK(aclrtSynchronizeStream(g_stream));

    CHECK_OK(aclDestroyScalar(one));
    CHECK_OK(aclDestroyScalar(alpha));
    dev_free(&ta);
    dev_free(&tb);
    dev_free(&to);
    dev_free(&tc);
    dev_free(&td);
    dev_free(&te);
    dev_free(&tf);
}

/* out overlaps an input: computed as if every input were read before any output element is written. */
static void test_add_overlap(void)
{
    aclScalar *alpha = scalar_f32(1.0f);
    /* self == out (the same tensor object) */
    {
        int64_t s[] = {2, 3};
        float a[] = {1, 2, 3, 4, 5, 6}, b[] = {10, 10, 10, 10, 10, 10};
        DevTensor ta = dev_tensor(a, ACL_FLOAT, s, 2);
        DevTensor tb = dev_tensor(b, ACL_FLOAT, s, 2);
        CHECK_OK(add_run(ta.tensor, tb.tensor, alpha, ta.tensor));
        float got[6];
        dev_read(&ta, got);
        for (int i = 0; i < 6; i++) CHECK(got[i] == a[i] + 10);
        /* self + self -> self */
        CHECK_OK(add_run(ta.tensor, ta.tensor, alpha, ta.tensor));
        dev_read(&ta, got);
        for (int i = 0; i < 6; i++) CHECK(got[i] == 2 * (a[i] + 10));
        dev_free(&ta);
        dev_free(&tb);
    }
    /* out is self shifted by one element forward, and backward */
    for (int dir = 0; dir < 2; dir++) {
        float st[8] = {0, 1, 2, 3, 4, 5, 6, 7};
        int64_t storage[] = {8}, shape[] = {6}, strides[] = {1};
        int64_t self_off = dir == 0 ? 0 : 1;
        int64_t out_off = dir == 0 ? 1 : 0;
        DevTensor ts = dev_view(st, ACL_FLOAT, storage, 1, shape, 1, strides, self_off);
        aclTensor *out = aclCreateTensor(shape, 1, ACL_FLOAT, strides, out_off, ACL_FORMAT_ND, storage, 1, ts.dev);
        CHECK(out != NULL);
        float b[6] = {10, 10, 10, 10, 10, 10};
        DevTensor tb = dev_tensor(b, ACL_FLOAT, shape, 1);
        CHECK_OK(add_run(ts.tensor, tb.tensor, alpha, out));
        float got[8];
        dev_read(&ts, got);
        float want[8];
        memcpy(want, st, sizeof(st));
        for (int i = 0; i < 6; i++) want[out_off + i] = st[self_off + i] + 10.0f;
        for (int i = 0; i < 8; i++) {
            if (got[i] != want[i]) fprintf(stderr, "dir %d [%d] got %g want %g\n", dir, i, got[i], want[i]);
            CHECK(got[i] == want[i]);
        }
        CHECK_OK(aclDestroyTensor(out));
        dev_free(&ts);
        dev_free(&tb);
    }
    /* the same, large enough to be split across worker threads */
    for (int dir = 0; dir < 2; dir++) {
        const int64_t n = 1 << 20;
        float *st = (float *)malloc(sizeof(float) * (size_t)(n + 7));
        float *got = (float *)malloc(sizeof(float) * (size_t)(n + 7));
        CHECK(st && got);
        for (int64_t i = 0; i < n + 7; i++) st[i] = (float)(i % 1000);
        int64_t storage[] = {n + 7}, shape[] = {n}, strides[] = {1};
        int64_t self_off = dir == 0 ? 0 : 7;
        int64_t out_off = dir == 0 ? 7 : 0;
        DevTensor ts = dev_view(st, ACL_FLOAT, storage, 1, shape, 1, strides, self_off);
        aclTensor *out = aclCreateTensor(shape, 1, ACL_FLOAT, strides, out_off, ACL_FORMAT_ND, storage, 1, ts.dev);
        CHECK(out != NULL);
        /* other: a stride-0 view of one element (10) */
        float ten = 10.0f;
        int64_t one[] = {1}, zero_stride[] = {0};
        DevTensor tb = dev_view(&ten, ACL_FLOAT, one, 1, shape, 1, zero_stride, 0);
        CHECK_OK(add_run(ts.tensor, tb.tensor, alpha, out));
        dev_read(&ts, got);
        int bad = 0;
        for (int64_t i = 0; i < n + 7; i++) {
            float want = st[i];
            if (i >= out_off && i < out_off + n) want = st[i - out_off + self_off] + 10.0f;
            if (got[i] != want && bad++ < 5)
                fprintf(stderr, "dir %d [%lld] got %g want %g\n", dir, (long long)i, got[i], want);
        }
        CHECK(bad == 0);
        CHECK_OK(aclDestroyTensor(out));
        dev_free(&ts);
        dev_free(&tb);
        free(st);
        free(got);
    }
    /* out is the transpose of self over the same 3x3 storage */
    {
        float st[9] = {0, 1, 2, 3, 4, 5, 6, 7, 8};
        int64_t storage[] = {3, 3}, tr[] = {1, 3};
        DevTensor ts = dev_tensor(st, ACL_FLOAT, storage, 2);
        aclTensor *out = aclCreateTensor(storage, 2, ACL_FLOAT, tr, 0, ACL_FORMAT_ND, storage, 2, ts.dev);
        CHECK(out != NULL);
        float z[9] = {0};
        DevTensor tz = dev_tensor(z, ACL_FLOAT, storage, 2);
        CHECK_OK(add_run(ts.tensor, tz.tensor, alpha, out));
        float got[9];
        dev_read(&ts, got);
        /* out[i][j] (= storage[j*3+i]) = self[i][j] (= old storage[i*3+j]) */
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) CHECK(got[j * 3 + i] == st[i * 3 + j]);
        CHECK_OK(aclDestroyTensor(out));
        dev_free(&ts);
        dev_free(&tz);
    }
    /* in place through broadcasting: other is a view of selfRef's first row */
    {
        float st[6] = {1, 2, 3, 4, 5, 6};
        int64_t s23[] = {2, 3}, s3[] = {3};
        DevTensor ts = dev_tensor(st, ACL_FLOAT, s23, 2);
        aclTensor *row = aclCreateTensor(s3, 1, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, s23, 2, ts.dev);
        CHECK(row != NULL);
        uint64_t ws = 0;
        aclOpExecutor *ex = NULL;
        CHECK_OK(aclnnInplaceAddGetWorkspaceSize(ts.tensor, row, alpha, &ws, &ex));
        run_phase2(aclnnInplaceAdd, ws, ex);
        float got[6];
        dev_read(&ts, got);
        for (int i = 0; i < 6; i++) CHECK(got[i] == st[i] + st[i % 3]);
        CHECK_OK(aclDestroyTensor(row));
        dev_free(&ts);
    }
    CHECK_OK(aclDestroyScalar(alpha));
}

int main(void)
{
    device_init();
    RUN_TEST(test_add_f32_basic);
    RUN_TEST(test_add_alpha);
    RUN_TEST(test_add_broadcast_simple);
    RUN_TEST(test_add_broadcast_seed_examples);
    RUN_TEST(test_add_transposed_input);
    RUN_TEST(test_add_seed_views);
    RUN_TEST(test_add_f16_f32_to_f32);
    RUN_TEST(test_add_f16_computation);
    RUN_TEST(test_add_s32_f32);
    RUN_TEST(test_add_s8_u8_to_s16);
    RUN_TEST(test_add_bool_bool);
    RUN_TEST(test_add_out_dtype_cast);
    RUN_TEST(test_add_special_values);
    RUN_TEST(test_add_other_dtypes);
    RUN_TEST(test_adds);
    RUN_TEST(test_inplace_add);
    RUN_TEST(test_inplace_adds);
    RUN_TEST(test_add_0d);
    RUN_TEST(test_add_empty);
    RUN_TEST(test_add_overlap);
    device_teardown();
    return capi_finish();
}
