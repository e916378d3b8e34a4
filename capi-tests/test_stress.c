/*
 * Stress: 8 host threads, each driving 4 streams of its own with thousands of mixed
 * operations (Add, Sub, Mul, Muls, Maximum, Neg, Clamp, a strided Add that needs a workspace,
 * device-to-device aclrtMemcpyAsync), ordered across streams with events only where a
 * buffer moves from one stream to another. Every thread's buffers must end bit-identical to
 * the same program run sequentially on one stream, and nothing may leak.
 *
 *   test_stress [ops per thread]   (default 5000; ACLNN_STRESS_OPS overrides too)
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "common.h"

#include "aclnnop/aclnn_clamp.h"
#include "aclnnop/aclnn_maximum.h"
#include "aclnnop/aclnn_mul.h"
#include "aclnnop/aclnn_neg.h"
#include "aclnnop/aclnn_sub.h"

#include <pthread.h>
#include <time.h>

#define THREADS 8
#define STREAMS 4
#define NBUF 6
#define ROWS 16
#define COLS 17
#define NELEM (ROWS * COLS)

typedef enum { OP_ADD, OP_SUB, OP_MUL, OP_MULS, OP_MAX, OP_NEG, OP_ADD_T, OP_COPY, OP_CLAMP, OP_KINDS } Kind;

typedef struct {
    Kind kind;
    int stream, a, b, c;
    float k;
} Op;

typedef struct {
    int id, nops;
    Op *ops;
    float result[NBUF][NELEM];
    double seconds;
} Program;

static uint32_t lcg(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

static void make_program(Program *p, int id, int nops)
{
    uint32_t seed = 0x9e3779b9u * (uint32_t)(id + 1);
    p->id = id;
    p->nops = nops;
    p->ops = (Op *)calloc((size_t)nops, sizeof(Op));
    CHECK(p->ops != NULL);
    for (int i = 0; i < nops; i++) {
        Op *o = &p->ops[i];
        o->kind = (Kind)(lcg(&seed) % OP_KINDS);
        o->stream = (int)(lcg(&seed) % STREAMS);
        o->a = (int)(lcg(&seed) % NBUF);
        o->b = (int)(lcg(&seed) % NBUF);
        o->c = 1 + (int)(lcg(&seed) % (NBUF - 1)); /* buffer 0 is only read: it keeps values alive */
        /* alpha in +-{0.25, 0.5}, Muls factors in +-{0.75, 1.25}: values neither vanish nor blow up fast */
        uint32_t r = lcg(&seed);
        float mag = o->kind == OP_MULS ? (r & 2 ? 1.25f : 0.75f) : (r & 2 ? 1.0f : 0.5f);
        o->k = r & 1 ? -mag : mag;
    }
}

/* The buffers one program works on and the streams it runs on (all the same when sequential). */
typedef struct {
    void *dev[NBUF];
    aclTensor *t[NBUF];  /* [ROWS, COLS] contiguous */
    aclTensor *tt[NBUF]; /* [COLS, ROWS] transposed view: forces a gathering workspace */
    aclrtStream s[STREAMS];
    aclrtEvent ev[STREAMS];
    unsigned written_by[NBUF]; /* stream that last wrote the buffer */
    unsigned read_by[NBUF];    /* bitmask of streams that read it since that write */
} Ctx;

/* Makes stream `s` wait for everything stream `from` has queued so far. */
static void depend(Ctx *c, int s, int from)
{
    if (from == s || c->s[from] == c->s[s]) return;
    CHECK_OK(aclrtRecordEvent(c->ev[from], c->s[from]));
    CHECK_OK(aclrtStreamWaitEvent(c->s[s], c->ev[from]));
}

static void order(Ctx *c, int s, const int *reads, int nr, int w)
{
    for (int i = 0; i < nr; i++) depend(c, s, (int)c->written_by[reads[i]]);
    depend(c, s, (int)c->written_by[w]);
    for (int t = 0; t < STREAMS; t++)
        if (c->read_by[w] >> t & 1u) depend(c, s, t);
    for (int i = 0; i < nr; i++) c->read_by[reads[i]] |= 1u << s;
    c->written_by[w] = (unsigned)s;
    c->read_by[w] = 0;
}

typedef aclnnStatus (*p2_fn)(void *, uint64_t, aclOpExecutor *, aclrtStream);

/* Phase 2 with its own workspace; freeing the workspace right away waits for the work. */
static void launch(p2_fn fn, uint64_t ws, aclOpExecutor *ex, aclrtStream s)
{
    void *w = NULL;
    if (ws > 0) CHECK_OK(aclrtMalloc(&w, (size_t)ws, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(fn(w, ws, ex, s));
    if (w != NULL) CHECK_OK(aclrtFree(w));
}

static void run_op(Ctx *c, const Op *o)
{
    aclrtStream s = c->s[o->stream];
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    int reads[2] = {o->a, o->b};
    aclScalar *k = NULL;
    switch (o->kind) {
    case OP_ADD:
    case OP_SUB:
    case OP_ADD_T:
        order(c, o->stream, reads, 2, o->c);
        k = scalar_f32(o->k);
        if (o->kind == OP_ADD) {
            CHECK_OK(aclnnAddGetWorkspaceSize(c->t[o->a], c->t[o->b], k, c->t[o->c], &ws, &ex));
            launch(aclnnAdd, ws, ex, s);
        } else if (o->kind == OP_SUB) {
            CHECK_OK(aclnnSubGetWorkspaceSize(c->t[o->a], c->t[o->b], k, c->t[o->c], &ws, &ex));
            launch(aclnnSub, ws, ex, s);
        } else {
            /* c^T-shaped out from two transposed views: strided gathers and a workspace */
            CHECK_OK(aclnnAddGetWorkspaceSize(c->tt[o->a], c->tt[o->b], k, c->tt[o->c], &ws, &ex));
            launch(aclnnAdd, ws, ex, s);
        }
        break;
    case OP_MUL:
        order(c, o->stream, reads, 2, o->c);
        CHECK_OK(aclnnMulGetWorkspaceSize(c->t[o->a], c->t[o->b], c->t[o->c], &ws, &ex));
        launch(aclnnMul, ws, ex, s);
        break;
    case OP_MAX:
        order(c, o->stream, reads, 2, o->c);
        CHECK_OK(aclnnMaximumGetWorkspaceSize(c->t[o->a], c->t[o->b], c->t[o->c], &ws, &ex));
        launch(aclnnMaximum, ws, ex, s);
        break;
    case OP_MULS:
        order(c, o->stream, reads, 1, o->c);
        k = scalar_f32(o->k);
        CHECK_OK(aclnnMulsGetWorkspaceSize(c->t[o->a], k, c->t[o->c], &ws, &ex));
        launch(aclnnMuls, ws, ex, s);
        break;
    case OP_NEG:
        order(c, o->stream, reads, 1, o->c);
        CHECK_OK(aclnnNegGetWorkspaceSize(c->t[o->a], c->t[o->c], &ws, &ex));
        launch(aclnnNeg, ws, ex, s);
        break;
    case OP_CLAMP: {
        order(c, o->stream, reads, 1, o->c);
        aclScalar *lo = scalar_f32(-2.0f), *hi = scalar_f32(2.0f);
        CHECK_OK(aclnnClampGetWorkspaceSize(c->t[o->a], lo, hi, c->t[o->c], &ws, &ex));
        launch(aclnnClamp, ws, ex, s);
        CHECK_OK(aclDestroyScalar(lo));
        CHECK_OK(aclDestroyScalar(hi));
        break;
    }
    case OP_COPY:
        if (o->a == o->c) break;
        order(c, o->stream, reads, 1, o->c);
        CHECK_OK(aclrtMemcpyAsync(c->dev[o->c], NELEM * sizeof(float), c->dev[o->a], NELEM * sizeof(float),
                                  ACL_MEMCPY_DEVICE_TO_DEVICE, s));
        break;
    default:
        CHECK(0);
    }
    if (k != NULL) CHECK_OK(aclDestroyScalar(k));
}

/* Runs `p` on `nstreams` fresh streams (1: the sequential reference) and keeps the result. */
static void run_program(Program *p, int nstreams)
{
    Ctx c;
    memset(&c, 0, sizeof(c));
    int64_t shape[] = {ROWS, COLS}, tshape[] = {COLS, ROWS}, tstride[] = {1, COLS};
    for (int i = 0; i < NBUF; i++) {
        float init[NELEM];
        for (int j = 0; j < NELEM; j++) init[j] = (float)((p->id * 31 + i * 7 + j) % 23 - 11) * 0.125f + 0.0625f;
        CHECK_OK(aclrtMalloc(&c.dev[i], sizeof(init), ACL_MEM_MALLOC_HUGE_FIRST));
        CHECK_OK(aclrtMemcpy(c.dev[i], sizeof(init), init, sizeof(init), ACL_MEMCPY_HOST_TO_DEVICE));
        c.t[i] = aclCreateTensor(shape, 2, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, shape, 2, c.dev[i]);
        c.tt[i] = aclCreateTensor(tshape, 2, ACL_FLOAT, tstride, 0, ACL_FORMAT_ND, shape, 2, c.dev[i]);
        CHECK(c.t[i] != NULL && c.tt[i] != NULL);
    }
    for (int s = 0; s < STREAMS; s++) {
        if (s < nstreams)
            CHECK_OK(aclrtCreateStream(&c.s[s]));
        else
            c.s[s] = c.s[0];
        CHECK_OK(aclrtCreateEvent(&c.ev[s]));
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int i = 0; i < p->nops; i++) run_op(&c, &p->ops[i]);
    for (int s = 0; s < nstreams; s++) CHECK_OK(aclrtSynchronizeStream(c.s[s]));
    clock_gettime(CLOCK_MONOTONIC, &t1);
    p->seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    for (int i = 0; i < NBUF; i++) {
        CHECK_OK(aclrtMemcpy(p->result[i], sizeof(p->result[i]), c.dev[i], sizeof(p->result[i]),
                             ACL_MEMCPY_DEVICE_TO_HOST));
        CHECK_OK(aclDestroyTensor(c.t[i]));
        CHECK_OK(aclDestroyTensor(c.tt[i]));
        CHECK_OK(aclrtFree(c.dev[i]));
    }
    for (int s = 0; s < STREAMS; s++) {
        if (s < nstreams) CHECK_OK(aclrtDestroyStream(c.s[s]));
        CHECK_OK(aclrtDestroyEvent(c.ev[s]));
    }
}

static Program g_conc[THREADS], g_seq[THREADS];
static int g_nops = 5000;

static void *thread_main(void *arg)
{
    Program *p = (Program *)arg;
    CHECK_OK(aclrtSetDevice(0)); /* each host thread sets the device, as CANN programs do */
    run_program(p, STREAMS);
    return NULL;
}

static void test_stress(void)
{
    uint64_t handles0 = 0, bytes0 = 0, handles1 = 0, bytes1 = 0, pending = 0;
    CHECK_OK(aclnnCpuDebugCounts(&handles0, &bytes0, NULL, NULL));
    for (int i = 0; i < THREADS; i++) {
        make_program(&g_conc[i], i, g_nops);
        make_program(&g_seq[i], i, g_nops);
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pthread_t th[THREADS];
    for (int i = 0; i < THREADS; i++) CHECK(pthread_create(&th[i], NULL, thread_main, &g_conc[i]) == 0);
    for (int i = 0; i < THREADS; i++) CHECK(pthread_join(th[i], NULL) == 0);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double conc = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    double seq = 0;
    for (int i = 0; i < THREADS; i++) {
        run_program(&g_seq[i], 1);
        seq += g_seq[i].seconds;
        for (int b = 0; b < NBUF; b++) {
            if (memcmp(g_conc[i].result[b], g_seq[i].result[b], sizeof(g_seq[i].result[b])) != 0) {
                for (int j = 0; j < NELEM; j++)
                    if (memcmp(&g_conc[i].result[b][j], &g_seq[i].result[b][j], sizeof(float)) != 0) {
                        fprintf(stderr, "thread %d buffer %d element %d: %g concurrent, %g sequential\n", i, b, j,
                                (double)g_conc[i].result[b][j], (double)g_seq[i].result[b][j]);
                        break;
                    }
                CHECK(0);
            }
        }
        free(g_conc[i].ops);
        free(g_seq[i].ops);
    }
    int finite = 0, total = 0;
    for (int i = 0; i < THREADS; i++)
        for (int b = 0; b < NBUF; b++)
            for (int j = 0; j < NELEM; j++, total++) {
                float v = g_seq[i].result[b][j];
                finite += v == v && v - v == 0 && v != 0;
            }
    printf("stress: %d of %d final values finite and non-zero\n", finite, total);
    CHECK_OK(aclnnCpuDebugCounts(&handles1, &bytes1, &pending, NULL));
    CHECK(handles1 == handles0 && bytes1 == bytes0 && pending == 0);
    printf("stress: %d threads x %d streams x %d ops = %d ops (+ events) in %.2f s concurrent; "
           "sequential reference %.2f s; results bit-identical\n",
           THREADS, STREAMS, g_nops, THREADS * g_nops, conc, seq);
}

int main(int argc, char **argv)
{
    const char *env = getenv("ACLNN_STRESS_OPS");
    if (argc > 1) g_nops = atoi(argv[1]);
    else if (env != NULL) g_nops = atoi(env);
    CHECK(g_nops > 0);
    device_init();
    RUN_TEST(test_stress);
    device_teardown();
    return capi_finish();
}
