/*
 * Data movement and tensor-list benchmarks through the C ABI, as a user calls them: each
 * sample is the whole two-phase call (GetWorkspaceSize + aclnnXxx) plus
 * aclrtSynchronizeStream on device memory; the figure is the median of the samples
 * (a warm-up call, then samples until ~0.5 s have passed, 3 to 21 of them).
 *
 * Cases (the speed issues 22 and 17):
 *   foreach_add   aclnnForeachAddList over 1,000 f32 tensors of 4,096 elements (one launch)
 *   add_x1000     1,000 aclnnAdd calls on the same tensors, one synchronize at the end
 *   fused_adamw   aclnnFusedAdamw over 100M f32 parameters in 1,000 tensors of 100,000
 *                 (reads param, grad, exp_avg, exp_avg_sq; writes param, exp_avg, exp_avg_sq)
 *   cat0, catlast aclnnCat of 4 f32 (2048, 2048) tensors along dim 0 / dim 1
 *   permute       aclnnPermute (0, 2, 1, 3) of an f32 (32, 512, 32, 32) tensor, written out
 *   slice2        aclnnSlice of an f32 (4096, 8192) tensor, last dim, step 2 -> (4096, 4096)
 *   index_select  aclnnIndexSelect of 64K random rows (int64 index) of an f32 (1M, 128) tensor
 *   scatter_add   aclnnScatterAdd, dim 0: out = self (256K, 128) plus src (64K, 128) at
 *                 index (64K, 128) int64 (each row of index one random row of self)
 *   sort          aclnnSort of 16M f32 (values and int64 indices), not stable, ascending
 *   cumsum        aclnnCumsum of 16M f32 along its one dim
 *
 * Output (parsed by capi-tests/bench_data.py, which adds NumPy's and PyTorch's figures):
 *   stream <kernel> <GB/s>        copy, add, sum and adamw (4 reads, 3 writes) probes
 *   threads <n>
 *   case <key> <median_us> <logical_bytes>
 * Logical bytes count each input element read once and each output element written once
 * (STREAM's convention, no write-allocate). BENCH_ONLY=key,key limits the cases.
 */
#define _POSIX_C_SOURCE 199309L
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BENCH_NAME "bench_data"
#include "bench_device.h"

#include "acl/acl.h"
#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_cat.h"
#include "aclnnop/aclnn_cumsum.h"
#include "aclnnop/aclnn_foreach_add_list.h"
#include "aclnnop/aclnn_fused_adamw.h"
#include "aclnnop/aclnn_index_select.h"
#include "aclnnop/aclnn_permute.h"
#include "aclnnop/aclnn_scatter_add.h"
#include "aclnnop/aclnn_slice.h"
#include "aclnnop/aclnn_sort.h"

/* ------------------------------------------------------------------ issue 22: tensor lists */

enum { NLIST = 1000, LIST_N = 4096 };

typedef struct {
    aclTensor *x[NLIST], *y[NLIST], *o[NLIST];
    aclTensorList *xl, *yl, *ol;
    aclTensor *alpha_t; /* ForeachAddList's alpha: a one-element f32 device tensor */
    aclScalar *alpha;   /* aclnnAdd's alpha */
} Lists;

static void foreach_add_call(void *ctx)
{
    Lists *l = ctx;
    uint64_t ws = 0;
    aclOpExecutor *e = NULL;
    if (aclnnForeachAddListGetWorkspaceSize(l->xl, l->yl, l->alpha_t, l->ol, &ws, &e) != ACLNN_SUCCESS)
        die("aclnnForeachAddListGetWorkspaceSize");
    if (aclnnForeachAddList(workspace(ws), ws, e, g_stream) != ACLNN_SUCCESS) die("aclnnForeachAddList");
    sync_stream();
}

static void add_x1000_call(void *ctx)
{
    Lists *l = ctx;
    for (int i = 0; i < NLIST; i++) {
        uint64_t ws = 0;
        aclOpExecutor *e = NULL;
        if (aclnnAddGetWorkspaceSize(l->x[i], l->y[i], l->alpha, l->o[i], &ws, &e) != ACLNN_SUCCESS)
            die("aclnnAddGetWorkspaceSize");
        if (aclnnAdd(workspace(ws), ws, e, g_stream) != ACLNN_SUCCESS) die("aclnnAdd");
    }
    sync_stream();
}

static void bench_lists(void)
{
    if (!wanted("foreach_add") && !wanted("add_x1000")) return;
    static Lists l;
    void *mem[3][NLIST];
    int64_t sh[1] = {LIST_N};
    for (int i = 0; i < NLIST; i++) {
        mem[0][i] = dev_f32(LIST_N, 1 + 3 * (uint32_t)i);
        mem[1][i] = dev_f32(LIST_N, 2 + 3 * (uint32_t)i);
        mem[2][i] = dev_f32(LIST_N, 3 + 3 * (uint32_t)i);
        l.x[i] = tensor(ACL_FLOAT, 1, sh, mem[0][i]);
        l.y[i] = tensor(ACL_FLOAT, 1, sh, mem[1][i]);
        l.o[i] = tensor(ACL_FLOAT, 1, sh, mem[2][i]);
    }
    /* The lists own their own handles (aclDestroyTensorList destroys them). */
    aclTensor *t[3][NLIST];
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < NLIST; i++) t[k][i] = tensor(ACL_FLOAT, 1, sh, mem[k][i]);
    l.xl = aclCreateTensorList((const aclTensor *const *)t[0], NLIST);
    l.yl = aclCreateTensorList((const aclTensor *const *)t[1], NLIST);
    l.ol = aclCreateTensorList((const aclTensor *const *)t[2], NLIST);
    if (!l.xl || !l.yl || !l.ol) die("aclCreateTensorList");
    float one = 1.0f;
    void *alpha_dev = NULL;
    aclrtMalloc(&alpha_dev, 4, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMemcpy(alpha_dev, 4, &one, 4, ACL_MEMCPY_HOST_TO_DEVICE);
    int64_t s1[1] = {1};
    l.alpha_t = tensor(ACL_FLOAT, 1, s1, alpha_dev);
    l.alpha = aclCreateScalar(&one, ACL_FLOAT);
    double bytes = 12.0 * NLIST * LIST_N;
    if (wanted("foreach_add")) report("foreach_add", timed(foreach_add_call, &l, 41), bytes);
    if (wanted("add_x1000")) report("add_x1000", timed(add_x1000_call, &l, 41), bytes);
    aclDestroyTensorList(l.xl);
    aclDestroyTensorList(l.yl);
    aclDestroyTensorList(l.ol);
    for (int i = 0; i < NLIST; i++) {
        aclDestroyTensor(l.x[i]);
        aclDestroyTensor(l.y[i]);
        aclDestroyTensor(l.o[i]);
        for (int k = 0; k < 3; k++) aclrtFree(mem[k][i]);
    }
    aclDestroyTensor(l.alpha_t);
    aclrtFree(alpha_dev);
    aclDestroyScalar(l.alpha);
}

enum { ADAM_N = 100000 }; /* 1,000 tensors of 100,000: 100M parameters */

typedef struct {
    aclTensorList *p, *g, *m, *v, *steps;
} Adam;

static void adamw_call(void *ctx)
{
    Adam *a = ctx;
    uint64_t ws = 0;
    aclOpExecutor *e = NULL;
    if (aclnnFusedAdamwGetWorkspaceSize(a->p, a->g, a->m, a->v, NULL, a->steps, NULL, NULL, 1e-3, 0.9, 0.999,
                                        0.01, 1e-8, false, false, &ws, &e) != ACLNN_SUCCESS)
        die("aclnnFusedAdamwGetWorkspaceSize");
    if (aclnnFusedAdamw(workspace(ws), ws, e, g_stream) != ACLNN_SUCCESS) die("aclnnFusedAdamw");
    sync_stream();
}

static void bench_adamw(void)
{
    if (!wanted("fused_adamw")) return;
    static void *mem[5][NLIST];
    static aclTensor *t[5][NLIST];
    int64_t sh[1] = {ADAM_N}, s1[1] = {1};
    const float step = 10.0f;
    for (int i = 0; i < NLIST; i++) {
        for (int k = 0; k < 4; k++) {
            mem[k][i] = dev_f32(ADAM_N, 7 + 5 * (uint32_t)i + (uint32_t)k);
            t[k][i] = tensor(ACL_FLOAT, 1, sh, mem[k][i]);
        }
        aclrtMalloc(&mem[4][i], 4, ACL_MEM_MALLOC_HUGE_FIRST);
        aclrtMemcpy(mem[4][i], 4, &step, 4, ACL_MEMCPY_HOST_TO_DEVICE);
        t[4][i] = tensor(ACL_FLOAT, 1, s1, mem[4][i]);
    }
    /* exp_avg_sq must be >= 0: a second moment. */
    float *host = malloc(ADAM_N * 4);
    for (int i = 0; i < NLIST; i++) {
        aclrtMemcpy(host, ADAM_N * 4, mem[3][i], ADAM_N * 4, ACL_MEMCPY_DEVICE_TO_HOST);
        for (int j = 0; j < ADAM_N; j++) host[j] = host[j] * host[j];
        aclrtMemcpy(mem[3][i], ADAM_N * 4, host, ADAM_N * 4, ACL_MEMCPY_HOST_TO_DEVICE);
    }
    free(host);
    Adam a;
    aclTensorList **lists[5] = {&a.p, &a.g, &a.m, &a.v, &a.steps};
    for (int k = 0; k < 5; k++) {
        *lists[k] = aclCreateTensorList((const aclTensor *const *)t[k], NLIST);
        if (*lists[k] == NULL) die("aclCreateTensorList");
    }
    report("fused_adamw", timed(adamw_call, &a, 7), 7.0 * 4.0 * NLIST * ADAM_N);
    for (int k = 0; k < 5; k++) {
        aclDestroyTensorList(*lists[k]);
        for (int i = 0; i < NLIST; i++) aclrtFree(mem[k][i]);
    }
}

/* ------------------------------------------------------------------ issue 17: data movement */

typedef enum { CAT, PERMUTE, SLICE, INDEX_SELECT, SCATTER_ADD, SORT, CUMSUM } Kind;

typedef struct {
    Kind kind;
    aclTensor *in[4], *index, *src, *out, *out2;
    aclTensorList *list;
    aclIntArray *dims;
    int64_t dim;
    void *mem[8];
} Data;

static void data_call(void *ctx)
{
    Data *d = ctx;
    uint64_t ws = 0;
    aclOpExecutor *e = NULL;
    aclnnStatus st;
    switch (d->kind) {
    case CAT: st = aclnnCatGetWorkspaceSize(d->list, d->dim, d->out, &ws, &e); break;
    case PERMUTE: st = aclnnPermuteGetWorkspaceSize(d->in[0], d->dims, d->out, &ws, &e); break;
    case SLICE: st = aclnnSliceGetWorkspaceSize(d->in[0], 1, 0, 8192, 2, d->out, &ws, &e); break;
    case INDEX_SELECT: st = aclnnIndexSelectGetWorkspaceSize(d->in[0], 0, d->index, d->out, &ws, &e); break;
    case SCATTER_ADD: st = aclnnScatterAddGetWorkspaceSize(d->in[0], 0, d->index, d->src, d->out, &ws, &e); break;
    case SORT: st = aclnnSortGetWorkspaceSize(d->in[0], false, 0, false, d->out, d->out2, &ws, &e); break;
    case CUMSUM: st = aclnnCumsumGetWorkspaceSize(d->in[0], 0, ACL_FLOAT, d->out, &ws, &e); break;
    default: st = 1;
    }
    if (st != ACLNN_SUCCESS) die("GetWorkspaceSize");
    void *w = workspace(ws);
    switch (d->kind) {
    case CAT: st = aclnnCat(w, ws, e, g_stream); break;
    case PERMUTE: st = aclnnPermute(w, ws, e, g_stream); break;
    case SLICE: st = aclnnSlice(w, ws, e, g_stream); break;
    case INDEX_SELECT: st = aclnnIndexSelect(w, ws, e, g_stream); break;
    case SCATTER_ADD: st = aclnnScatterAdd(w, ws, e, g_stream); break;
    case SORT: st = aclnnSort(w, ws, e, g_stream); break;
    case CUMSUM: st = aclnnCumsum(w, ws, e, g_stream); break;
    }
    if (st != ACLNN_SUCCESS) die("phase 2");
    sync_stream();
}

static void data_free(Data *d)
{
    if (d->list) aclDestroyTensorList(d->list);
    else
        for (int i = 0; i < 4; i++)
            if (d->in[i]) aclDestroyTensor(d->in[i]);
    aclTensor *ts[4] = {d->index, d->src, d->out, d->out2};
    for (int i = 0; i < 4; i++)
        if (ts[i]) aclDestroyTensor(ts[i]);
    if (d->dims) aclDestroyIntArray(d->dims);
    for (int i = 0; i < 8; i++)
        if (d->mem[i]) aclrtFree(d->mem[i]);
}

static void run_data(const char *key, Data *d, double bytes, int max_reps)
{
    report(key, timed(data_call, d, max_reps), bytes);
    data_free(d);
}

static void bench_data(void)
{
    const int64_t M4 = 4 << 20, M16 = 16 << 20;
    for (int last = 0; last < 2; last++) {
        const char *key = last ? "catlast" : "cat0";
        if (!wanted(key)) continue;
        Data d = {0};
        d.kind = CAT;
        d.dim = last ? 1 : 0;
        int64_t part[2] = {2048, 2048}, whole[2] = {last ? 2048 : 8192, last ? 8192 : 2048};
        for (int i = 0; i < 4; i++) {
            d.mem[i] = dev_f32(M4, 11 + (uint32_t)i);
            d.in[i] = tensor(ACL_FLOAT, 2, part, d.mem[i]);
        }
        d.list = aclCreateTensorList((const aclTensor *const *)d.in, 4);
        d.mem[4] = dev_f32(4 * M4, 15);
        d.out = tensor(ACL_FLOAT, 2, whole, d.mem[4]);
        run_data(key, &d, 2.0 * 4.0 * 4 * M4, 21);
    }
    if (wanted("permute")) {
        Data d = {0};
        d.kind = PERMUTE;
        int64_t in[4] = {32, 512, 32, 32}, out[4] = {32, 32, 512, 32}, perm[4] = {0, 2, 1, 3};
        d.mem[0] = dev_f32(M16, 21);
        d.mem[1] = dev_f32(M16, 22);
        d.in[0] = tensor(ACL_FLOAT, 4, in, d.mem[0]);
        d.out = tensor(ACL_FLOAT, 4, out, d.mem[1]);
        d.dims = aclCreateIntArray(perm, 4);
        run_data("permute", &d, 2.0 * 4.0 * M16, 21);
    }
    if (wanted("slice2")) {
        Data d = {0};
        d.kind = SLICE;
        int64_t in[2] = {4096, 8192}, out[2] = {4096, 4096};
        d.mem[0] = dev_f32(2 * M16, 31);
        d.mem[1] = dev_f32(M16, 32);
        d.in[0] = tensor(ACL_FLOAT, 2, in, d.mem[0]);
        d.out = tensor(ACL_FLOAT, 2, out, d.mem[1]);
        run_data("slice2", &d, 2.0 * 4.0 * M16, 21); /* the elements kept, read and written */
    }
    if (wanted("index_select")) {
        Data d = {0};
        d.kind = INDEX_SELECT;
        const int64_t rows = 1 << 20, cols = 128, pick = 1 << 16;
        int64_t in[2] = {rows, cols}, out[2] = {pick, cols}, ix[1] = {pick};
        d.mem[0] = dev_f32(rows * cols, 41);
        d.mem[1] = dev_values(pick, 1, 0, rows, 42);
        d.mem[2] = dev_f32(pick * cols, 43);
        d.in[0] = tensor(ACL_FLOAT, 2, in, d.mem[0]);
        d.index = tensor(ACL_INT64, 1, ix, d.mem[1]);
        d.out = tensor(ACL_FLOAT, 2, out, d.mem[2]);
        run_data("index_select", &d, 2.0 * 4.0 * pick * cols + 8.0 * pick, 21);
    }
    if (wanted("scatter_add")) {
        Data d = {0};
        d.kind = SCATTER_ADD;
        const int64_t rows = 1 << 18, cols = 128, n = 1 << 16;
        int64_t self[2] = {rows, cols}, upd[2] = {n, cols};
        d.mem[0] = dev_f32(rows * cols, 51);
        d.mem[1] = dev_f32(n * cols, 52);
        d.mem[2] = dev_f32(rows * cols, 53);
        /* index (n, cols): row i all r_i, a random row of self */
        int64_t *r = malloc((size_t)(n * cols) * 8);
        uint32_t s = 54;
        for (int64_t i = 0; i < n; i++) {
            s = s * 1664525u + 1013904223u;
            int64_t row = (int64_t)(((uint64_t)s * (uint64_t)rows) >> 32);
            for (int64_t j = 0; j < cols; j++) r[i * cols + j] = row;
        }
        aclrtMalloc(&d.mem[3], (size_t)(n * cols) * 8, ACL_MEM_MALLOC_HUGE_FIRST);
        aclrtMemcpy(d.mem[3], (size_t)(n * cols) * 8, r, (size_t)(n * cols) * 8, ACL_MEMCPY_HOST_TO_DEVICE);
        free(r);
        d.in[0] = tensor(ACL_FLOAT, 2, self, d.mem[0]);
        d.src = tensor(ACL_FLOAT, 2, upd, d.mem[1]);
        d.out = tensor(ACL_FLOAT, 2, self, d.mem[2]);
        d.index = tensor(ACL_INT64, 2, upd, d.mem[3]);
        run_data("scatter_add", &d, 2.0 * 4.0 * rows * cols + (4.0 + 8.0) * n * cols, 21);
    }
    if (wanted("sort")) {
        Data d = {0};
        d.kind = SORT;
        int64_t sh[1] = {M16};
        d.mem[0] = dev_f32(M16, 61);
        d.mem[1] = dev_f32(M16, 62);
        d.mem[2] = dev_values(M16, 1, 0, 1, 63);
        d.in[0] = tensor(ACL_FLOAT, 1, sh, d.mem[0]);
        d.out = tensor(ACL_FLOAT, 1, sh, d.mem[1]);
        d.out2 = tensor(ACL_INT64, 1, sh, d.mem[2]);
        run_data("sort", &d, (4.0 + 4.0 + 8.0) * M16, 5);
    }
    if (wanted("cumsum")) {
        Data d = {0};
        d.kind = CUMSUM;
        int64_t sh[1] = {M16};
        d.mem[0] = dev_f32(M16, 71);
        d.mem[1] = dev_f32(M16, 72);
        d.in[0] = tensor(ACL_FLOAT, 1, sh, d.mem[0]);
        d.out = tensor(ACL_FLOAT, 1, sh, d.mem[1]);
        run_data("cumsum", &d, 2.0 * 4.0 * M16, 21);
    }
}

int main(void)
{
    g_only = getenv("BENCH_ONLY");
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) die("aclInit");
    if (aclrtCreateStream(&g_stream) != ACL_SUCCESS) die("aclrtCreateStream");
    if (g_only == NULL || wanted("stream")) stream_probe();
    bench_lists();
    bench_adamw();
    bench_data();
    if (g_ws) aclrtFree(g_ws);
    aclrtDestroyStream(g_stream);
    aclrtResetDevice(0);
    aclFinalize();
    return 0;
}
