/*
 * HCCL collectives on several devices of one process, written the way CANN's HCCL samples
 * are: aclInit, aclrtGetDeviceCount, HcclGetRootInfo on rank 0, then one thread per device:
 * aclrtSetDevice -> HcclCommInitRootInfo -> aclrtCreateStream -> collective on the stream ->
 * aclrtSynchronizeStream -> copy back and check. Runs with whatever ACLNN_CPU_DEVICE_COUNT
 * says (ctest: 1, 2 and 8 devices).
 *
 * Every collective x dtype x reduce op is checked against a reference computed here on the
 * host: reductions in rank order, one step at a time, each step rounded to the dtype (f16
 * and bf16 through f32, which is exact for a single step), integers wrapping.
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "common.h"
#include "hccl/hccl.h"
#include "acl/acl_mdl.h"

#include <math.h>
#include <pthread.h>
#include <time.h>

#define HCHECK(call) CHECK_STATUS((call), HCCL_SUCCESS)
#define COUNT 37 /* elements per rank and case: not a multiple of the rank count */
#define MAXRANKS 64

static uint32_t g_ranks;
static HcclRootInfo g_root;

/* ---------------------------------------------------------------- element helpers */

/* f16/bf16 conversions (round to nearest even): common.h. */

static size_t hsize(HcclDataType d)
{
    switch (d) {
    case HCCL_DATA_TYPE_INT8: case HCCL_DATA_TYPE_UINT8: return 1;
    case HCCL_DATA_TYPE_INT16: case HCCL_DATA_TYPE_UINT16: case HCCL_DATA_TYPE_FP16: case HCCL_DATA_TYPE_BFP16: return 2;
    case HCCL_DATA_TYPE_INT32: case HCCL_DATA_TYPE_UINT32: case HCCL_DATA_TYPE_FP32: return 4;
    case HCCL_DATA_TYPE_INT128: return 16;
    default: return 8;
    }
}

static int is_float(HcclDataType d)
{
    return d == HCCL_DATA_TYPE_FP16 || d == HCCL_DATA_TYPE_FP32 || d == HCCL_DATA_TYPE_BFP16 ||
           d == HCCL_DATA_TYPE_FP64;
}

static double load(HcclDataType d, const void *p)
{
    switch (d) {
    case HCCL_DATA_TYPE_FP16: { uint16_t v; memcpy(&v, p, 2); return f16_to_f32(v); }
    case HCCL_DATA_TYPE_BFP16: { uint16_t v; memcpy(&v, p, 2); return bf16_to_f32(v); }
    case HCCL_DATA_TYPE_FP32: { float v; memcpy(&v, p, 4); return v; }
    case HCCL_DATA_TYPE_FP64: { double v; memcpy(&v, p, 8); return v; }
    default: return 0;
    }
}

/* Stores v (a float dtype: rounded to it; an integer dtype: its low bits, wrapping). */
static void store(HcclDataType d, void *p, double v, uint64_t bits)
{
    switch (d) {
    case HCCL_DATA_TYPE_FP16: { uint16_t h = f32_to_f16((float)v); memcpy(p, &h, 2); return; }
    case HCCL_DATA_TYPE_BFP16: { uint16_t h = f32_to_bf16((float)v); memcpy(p, &h, 2); return; }
    case HCCL_DATA_TYPE_FP32: { float f = (float)v; memcpy(p, &f, 4); return; }
    case HCCL_DATA_TYPE_FP64: memcpy(p, &v, 8); return;
    default: memcpy(p, &bits, hsize(d)); return; /* little-endian: the low bytes */
    }
}

/* The signed value of an integer dtype's bytes. */
static int64_t load_int(HcclDataType d, const void *p)
{
    switch (d) {
    case HCCL_DATA_TYPE_INT8: { int8_t v; memcpy(&v, p, 1); return v; }
    case HCCL_DATA_TYPE_INT16: { int16_t v; memcpy(&v, p, 2); return v; }
    case HCCL_DATA_TYPE_INT32: { int32_t v; memcpy(&v, p, 4); return v; }
    default: { int64_t v; memcpy(&v, p, 8); return v; }
    }
}

/* Input element i of rank r in case c: small values whose sums and products exercise
   wrapping and rounding (rank 0's element 0 is large, so f16 sums round). */
static void input(HcclDataType d, uint32_t r, size_t i, int c, void *out)
{
    int64_t k = (int64_t)((r * 7u + (uint32_t)i * 3u + (uint32_t)c) % 9u) - 4;
    if (is_float(d)) {
        double v = (double)k * 0.375;
        if (i == 0 && r == 0) v = 2048.0;
        if (i == 0 && r > 0) v = 1.0;
        if (i == 5 && r == 1 && d == HCCL_DATA_TYPE_FP32) v = NAN;
        store(d, out, v, 0);
    } else {
        if (i == 1) k = 100 + r; /* int8 sums wrap */
        store(d, out, 0, (uint64_t)k);
    }
}

/* acc = acc op x, one step in the dtype. */
static void step(HcclDataType d, HcclReduceOp op, void *acc, const void *x)
{
    if (is_float(d)) {
        float a = (float)load(d, acc), b = (float)load(d, x), v;
        switch (op) {
        case HCCL_REDUCE_SUM: v = a + b; break;
        case HCCL_REDUCE_PROD: v = a * b; break;
        case HCCL_REDUCE_MAX: v = (isnan(a) || isnan(b)) ? NAN : (b > a ? b : a); break;
        default: v = (isnan(a) || isnan(b)) ? NAN : (b < a ? b : a); break;
        }
        store(d, acc, v, 0);
    } else {
        int64_t a = load_int(d, acc), b = load_int(d, x);
        uint64_t v;
        switch (op) {
        case HCCL_REDUCE_SUM: v = (uint64_t)a + (uint64_t)b; break;
        case HCCL_REDUCE_PROD: v = (uint64_t)a * (uint64_t)b; break;
        case HCCL_REDUCE_MAX: v = (uint64_t)(b > a ? b : a); break;
        default: v = (uint64_t)(b < a ? b : a); break;
        }
        store(d, acc, 0, v);
    }
}

/* The same element (NaN matches NaN; otherwise the same bytes). */
static int same(HcclDataType d, const void *a, const void *b)
{
    if (is_float(d) && isnan(load(d, a)) && isnan(load(d, b))) return 1;
    return memcmp(a, b, hsize(d)) == 0;
}

static void check_bytes(const char *what, HcclDataType d, const uint8_t *got, const uint8_t *want, size_t n,
                        uint32_t rank)
{
    size_t es = hsize(d), i;
    for (i = 0; i < n; i++) {
        if (!same(d, got + i * es, want + i * es)) {
            fprintf(stderr, "%s dtype %d rank %u: element %zu differs\n", what, (int)d, rank, i);
            CHECK(0);
        }
    }
}

/* ---------------------------------------------------------------- per rank */

static const HcclDataType REDUCE_TYPES[] = {HCCL_DATA_TYPE_INT8, HCCL_DATA_TYPE_INT16, HCCL_DATA_TYPE_INT32,
                                            HCCL_DATA_TYPE_INT64, HCCL_DATA_TYPE_FP16, HCCL_DATA_TYPE_FP32,
                                            HCCL_DATA_TYPE_BFP16};
static const HcclDataType MOVE_TYPES[] = {HCCL_DATA_TYPE_INT8, HCCL_DATA_TYPE_INT16, HCCL_DATA_TYPE_INT32,
                                          HCCL_DATA_TYPE_FP16, HCCL_DATA_TYPE_FP32, HCCL_DATA_TYPE_INT64,
                                          HCCL_DATA_TYPE_UINT64, HCCL_DATA_TYPE_UINT8, HCCL_DATA_TYPE_UINT16,
                                          HCCL_DATA_TYPE_UINT32, HCCL_DATA_TYPE_FP64, HCCL_DATA_TYPE_BFP16};

typedef struct {
    uint32_t rank;
    HcclComm comm;
    aclrtStream stream;
    void *send, *recv; /* device buffers of BUF bytes */
    uint8_t *host;     /* host scratch of BUF bytes */
    uint8_t *want;
} Rank;

#define BUF ((size_t)COUNT * MAXRANKS * 16)

/* Fills the device send buffer with `n` inputs of case c (element offset `from`). */
static void put_inputs(Rank *k, HcclDataType d, size_t n, int c)
{
    size_t i, es = hsize(d);
    for (i = 0; i < n; i++) input(d, k->rank, i, c, k->host + i * es);
    CHECK_OK(aclrtMemcpy(k->send, BUF, k->host, n * es, ACL_MEMCPY_HOST_TO_DEVICE));
}

static void get_outputs(Rank *k, size_t bytes)
{
    CHECK_OK(aclrtSynchronizeStream(k->stream));
    CHECK_OK(aclrtMemcpy(k->host, BUF, k->recv, bytes, ACL_MEMCPY_DEVICE_TO_HOST));
}

/* want[i] = reduction over ranks of input(r, first + i, c), in rank order. */
static void reduce_ref(HcclDataType d, HcclReduceOp op, size_t first, size_t n, int c, uint8_t *want)
{
    size_t es = hsize(d), i;
    uint8_t x[16];
    uint32_t r;
    for (i = 0; i < n; i++) {
        input(d, 0, first + i, c, want + i * es);
        for (r = 1; r < g_ranks; r++) {
            input(d, r, first + i, c, x);
            step(d, op, want + i * es, x);
        }
    }
}

static int prod_refused(HcclDataType d, HcclReduceOp op)
{
    return op == HCCL_REDUCE_PROD && (d == HCCL_DATA_TYPE_INT16 || d == HCCL_DATA_TYPE_BFP16);
}

static void reductions(Rank *k)
{
    size_t t;
    int op, c = 0;
    uint32_t n = g_ranks, root = n - 1;
    for (t = 0; t < ARRAY_LEN(REDUCE_TYPES); t++) {
        HcclDataType d = REDUCE_TYPES[t];
        size_t es = hsize(d);
        for (op = 0; op < 4; op++, c++) {
            if (prod_refused(d, (HcclReduceOp)op)) {
                CHECK_STATUS(HcclAllReduce(k->send, k->recv, COUNT, d, HCCL_REDUCE_PROD, k->comm, k->stream),
                             HCCL_E_NOT_SUPPORT);
                continue;
            }
            /* AllReduce */
            put_inputs(k, d, COUNT, c);
            HCHECK(HcclAllReduce(k->send, k->recv, COUNT, d, (HcclReduceOp)op, k->comm, k->stream));
            get_outputs(k, COUNT * es);
            reduce_ref(d, (HcclReduceOp)op, 0, COUNT, c, k->want);
            check_bytes("HcclAllReduce", d, k->host, k->want, COUNT, k->rank);
            /* in place */
            put_inputs(k, d, COUNT, c);
            HCHECK(HcclAllReduce(k->send, k->send, COUNT, d, (HcclReduceOp)op, k->comm, k->stream));
            CHECK_OK(aclrtSynchronizeStream(k->stream));
            CHECK_OK(aclrtMemcpy(k->host, BUF, k->send, COUNT * es, ACL_MEMCPY_DEVICE_TO_HOST));
            check_bytes("HcclAllReduce in place", d, k->host, k->want, COUNT, k->rank);
            /* Reduce to the last rank; the others' recvBuf is untouched */
            put_inputs(k, d, COUNT, c);
            CHECK_OK(aclrtMemset(k->recv, BUF, 0x5a, COUNT * es));
            HCHECK(HcclReduce(k->send, k->recv, COUNT, d, (HcclReduceOp)op, root, k->comm, k->stream));
            get_outputs(k, COUNT * es);
            if (k->rank == root) {
                check_bytes("HcclReduce", d, k->host, k->want, COUNT, k->rank);
            } else {
                size_t i;
                for (i = 0; i < COUNT * es; i++) CHECK(k->host[i] == 0x5a);
            }
            /* ReduceScatter: rank r gets block r of the reduction of n * COUNT elements */
            put_inputs(k, d, (size_t)n * COUNT, c);
            HCHECK(HcclReduceScatter(k->send, k->recv, COUNT, d, (HcclReduceOp)op, k->comm, k->stream));
            get_outputs(k, COUNT * es);
            reduce_ref(d, (HcclReduceOp)op, (size_t)k->rank * COUNT, COUNT, c, k->want);
            check_bytes("HcclReduceScatter", d, k->host, k->want, COUNT, k->rank);
        }
    }
}

static void movements(Rank *k)
{
    size_t t, i;
    uint32_t n = g_ranks, r;
    for (t = 0; t < ARRAY_LEN(MOVE_TYPES); t++) {
        HcclDataType d = MOVE_TYPES[t];
        size_t es = hsize(d);
        int c = 100 + (int)t;
        uint32_t root = n / 2;
        /* Broadcast from the middle rank */
        put_inputs(k, d, COUNT, c);
        HCHECK(HcclBroadcast(k->send, COUNT, d, root, k->comm, k->stream));
        CHECK_OK(aclrtSynchronizeStream(k->stream));
        CHECK_OK(aclrtMemcpy(k->host, BUF, k->send, COUNT * es, ACL_MEMCPY_DEVICE_TO_HOST));
        for (i = 0; i < COUNT; i++) input(d, root, i, c, k->want + i * es);
        check_bytes("HcclBroadcast", d, k->host, k->want, COUNT, k->rank);
        /* AllGather: block r is rank r's input */
        put_inputs(k, d, COUNT, c);
        HCHECK(HcclAllGather(k->send, k->recv, COUNT, d, k->comm, k->stream));
        get_outputs(k, (size_t)n * COUNT * es);
        for (r = 0; r < n; r++)
            for (i = 0; i < COUNT; i++) input(d, r, i, c, k->want + ((size_t)r * COUNT + i) * es);
        check_bytes("HcclAllGather", d, k->host, k->want, (size_t)n * COUNT, k->rank);
        /* AlltoAll: block r of my output is block <me> of rank r's input */
        put_inputs(k, d, (size_t)n * COUNT, c);
        HCHECK(HcclAlltoAll(k->send, COUNT, d, k->recv, COUNT, d, k->comm, k->stream));
        get_outputs(k, (size_t)n * COUNT * es);
        for (r = 0; r < n; r++)
            for (i = 0; i < COUNT; i++)
                input(d, r, (size_t)k->rank * COUNT + i, c, k->want + ((size_t)r * COUNT + i) * es);
        check_bytes("HcclAlltoAll", d, k->host, k->want, (size_t)n * COUNT, k->rank);
    }
    CHECK_STATUS(HcclBroadcast(k->send, COUNT, HCCL_DATA_TYPE_INT128, 0, k->comm, k->stream), HCCL_E_NOT_SUPPORT);
}

/* AlltoAllV: rank s sends (s + d) % 3 + 1 elements to rank d, packed in rank order, and
   receives them at displacements with a gap of 2 elements. */
static uint64_t vcount(uint32_t s, uint32_t d) { return (s + d) % 3 + 1; }

static void alltoallv(Rank *k)
{
    uint32_t n = g_ranks, r, me = k->rank;
    uint64_t sc[MAXRANKS], sd[MAXRANKS], rc[MAXRANKS], rd[MAXRANKS], at = 0, i;
    HcclDataType d = HCCL_DATA_TYPE_FP32;
    size_t es = 4, total;
    for (r = 0; r < n; r++) { sc[r] = vcount(me, r); sd[r] = at; at += sc[r]; }
    for (at = 0, r = 0; r < n; r++) { rc[r] = vcount(r, me); rd[r] = at; at += rc[r] + 2; }
    total = (size_t)at;
    put_inputs(k, d, COUNT * 4, 7);
    CHECK_OK(aclrtMemset(k->recv, BUF, 0, total * es));
    HCHECK(HcclAlltoAllV(k->send, sc, sd, d, k->recv, rc, rd, d, k->comm, k->stream));
    get_outputs(k, total * es);
    memset(k->want, 0, total * es);
    for (r = 0; r < n; r++) {
        /* what rank r sent me starts at the sum of what it sent ranks below me */
        uint64_t from = 0, j;
        for (j = 0; j < me; j++) from += vcount(r, (uint32_t)j);
        for (i = 0; i < rc[r]; i++) input(d, r, (size_t)(from + i), 7, k->want + (rd[r] + i) * es);
    }
    check_bytes("HcclAlltoAllV", d, k->host, k->want, total, k->rank);
}

/* Send/Recv between pairs (even rank sends to the next odd one), then a BatchSendRecv ring. */
static void point_to_point(Rank *k)
{
    uint32_t n = g_ranks, me = k->rank;
    HcclDataType d = HCCL_DATA_TYPE_FP16;
    size_t i;
    if (n < 2) {
        CHECK_STATUS(HcclSend(k->send, COUNT, d, 0, k->comm, k->stream), HCCL_E_PARA);
        return;
    }
    put_inputs(k, d, COUNT, 9);
    if (me % 2 == 0 && me + 1 < n) {
        HCHECK(HcclSend(k->send, COUNT, d, me + 1, k->comm, k->stream));
        CHECK_OK(aclrtSynchronizeStream(k->stream));
    } else if (me % 2 == 1) {
        HCHECK(HcclRecv(k->recv, COUNT, d, me - 1, k->comm, k->stream));
        get_outputs(k, COUNT * 2);
        for (i = 0; i < COUNT; i++) input(d, me - 1, i, 9, k->want + i * 2);
        check_bytes("HcclRecv", d, k->host, k->want, COUNT, me);
    }
    {
        HcclSendRecvItem items[2];
        uint32_t next = (me + 1) % n, prev = (me + n - 1) % n;
        put_inputs(k, HCCL_DATA_TYPE_FP32, COUNT, 10);
        items[0].sendRecvType = HCCL_SEND; items[0].buf = k->send; items[0].count = COUNT;
        items[0].dataType = HCCL_DATA_TYPE_FP32; items[0].remoteRank = next;
        items[1].sendRecvType = HCCL_RECV; items[1].buf = k->recv; items[1].count = COUNT;
        items[1].dataType = HCCL_DATA_TYPE_FP32; items[1].remoteRank = prev;
        HCHECK(HcclBatchSendRecv(items, 2, k->comm, k->stream));
        get_outputs(k, COUNT * 4);
        for (i = 0; i < COUNT; i++) input(HCCL_DATA_TYPE_FP32, prev, i, 10, k->want + i * 4);
        check_bytes("HcclBatchSendRecv", HCCL_DATA_TYPE_FP32, k->host, k->want, COUNT, me);
    }
}

/* An aclnnAdd queued before the AllReduce on the same stream: the AllReduce sees its output. */
static void stream_order(Rank *k)
{
    int64_t shape[] = {COUNT};
    aclTensor *a = aclCreateTensor(shape, 1, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, shape, 1, k->send);
    aclTensor *out = aclCreateTensor(shape, 1, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, shape, 1, k->recv);
    float one = 1.0f, *h = (float *)(void *)k->host;
    aclScalar *alpha = aclCreateScalar(&one, ACL_FLOAT);
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    size_t i;
    for (i = 0; i < COUNT; i++) h[i] = (float)(k->rank + 1);
    CHECK_OK(aclrtMemcpy(k->send, BUF, h, COUNT * 4, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK_OK(aclnnAddGetWorkspaceSize(a, a, alpha, out, &ws, &ex));
    CHECK(ws == 0);
    CHECK_OK(aclnnAdd(NULL, 0, ex, k->stream)); /* out = 2 * (rank + 1) */
    HCHECK(HcclAllReduce(k->recv, k->recv, COUNT, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, k->comm, k->stream));
    HCHECK(HcclBarrier(k->comm, k->stream));
    get_outputs(k, COUNT * 4);
    for (i = 0; i < COUNT; i++) CHECK(h[i] == (float)(g_ranks * (g_ranks + 1)));
    aclDestroyTensor(a);
    aclDestroyTensor(out);
    aclDestroyScalar(alpha);
}

/* A captured AllReduce replays as a new collective each time (ggml-style graph capture). */
static void captured(Rank *k)
{
    aclmdlRI graph = NULL;
    float *h = (float *)(void *)k->host;
    int round;
    size_t i;
    CHECK_OK(aclmdlRICaptureBegin(k->stream, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    HCHECK(HcclAllReduce(k->send, k->recv, COUNT, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, k->comm, k->stream));
    CHECK_OK(aclmdlRICaptureEnd(k->stream, &graph));
    for (round = 1; round <= 2; round++) {
        for (i = 0; i < COUNT; i++) h[i] = (float)(round * (int)(k->rank + 1));
        CHECK_OK(aclrtMemcpy(k->send, BUF, h, COUNT * 4, ACL_MEMCPY_HOST_TO_DEVICE));
        CHECK_OK(aclmdlRIExecuteAsync(graph, k->stream));
        get_outputs(k, COUNT * 4);
        for (i = 0; i < COUNT; i++) CHECK(h[i] == (float)(round * (int)(g_ranks * (g_ranks + 1) / 2)));
    }
    CHECK_OK(aclmdlRIDestroy(graph));
}

/* Refusals at the call: HCCL's codes, a message naming the API and the parameter. */
static void refusals(Rank *k)
{
    void *host = NULL;
    HCHECK(HcclAllReduce(NULL, NULL, 0, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, NULL, NULL)); /* count 0: success first */
    CHECK_STATUS(HcclAllReduce(k->send, k->recv, 4, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, NULL, k->stream),
                 HCCL_E_PTR);
    CHECK_STATUS(HcclAllReduce(NULL, k->recv, 4, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, k->comm, k->stream),
                 HCCL_E_PTR);
    CHECK_ERRMSG("HcclAllReduce: sendBuf is NULL");
    CHECK_STATUS(HcclAllReduce(k->send, k->recv, 4, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, k->comm, NULL),
                 HCCL_E_PTR);
    CHECK_STATUS(HcclAllReduce(k->send, k->recv, 4, HCCL_DATA_TYPE_FP64, HCCL_REDUCE_SUM, k->comm, k->stream),
                 HCCL_E_NOT_SUPPORT);
    CHECK_ERRMSG("HCCL_DATA_TYPE_FP64");
    CHECK_STATUS(HcclAllReduce(k->send, k->recv, 4, HCCL_DATA_TYPE_FP32, (HcclReduceOp)7, k->comm, k->stream),
                 HCCL_E_NOT_SUPPORT);
    CHECK_STATUS(HcclAllReduce(k->send, k->recv, BUF, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, k->comm, k->stream),
                 HCCL_E_PARA);
    CHECK_ERRMSG("run past the end");
    CHECK_STATUS(HcclAllReduce((char *)k->send + 2, k->recv, 4, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, k->comm,
                               k->stream),
                 HCCL_E_PARA);
    CHECK_ERRMSG("aligned");
    CHECK_STATUS(HcclBroadcast(k->send, 4, HCCL_DATA_TYPE_FP32, g_ranks, k->comm, k->stream), HCCL_E_PARA);
    CHECK_ERRMSG("root");
    CHECK_OK(aclrtMallocHost(&host, 64));
    CHECK_STATUS(HcclAllReduce(host, k->recv, 4, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, k->comm, k->stream),
                 HCCL_E_PARA);
    CHECK_ERRMSG("host memory");
    CHECK_OK(aclrtFreeHost(host));
    {
        uint32_t v = 0;
        char name[COMM_NAME_MAX_LENGTH];
        HCHECK(HcclGetRankId(k->comm, &v));
        CHECK(v == k->rank);
        HCHECK(HcclGetRankSize(k->comm, &v));
        CHECK(v == g_ranks);
        HCHECK(HcclGetCommName(k->comm, name));
        CHECK(strlen(name) > 0);
        CHECK_STATUS(HcclGetRankId(k->comm, NULL), HCCL_E_PTR);
    }
}

/* Ranks passing different counts: every rank's stream fails, the comm reports HCCL_E_PARA. */
static void mismatch(Rank *k)
{
    HcclResult err = HCCL_SUCCESS;
    if (g_ranks < 2) return;
    HCHECK(HcclAllReduce(k->send, k->recv, k->rank == 0 ? 4 : 8, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, k->comm,
                         k->stream));
    CHECK_FAILS(aclrtSynchronizeStream(k->stream));
    HCHECK(HcclGetCommAsyncError(k->comm, &err));
    CHECK(err == HCCL_E_PARA);
}

static void *rank_main(void *arg)
{
    Rank *k = (Rank *)arg;
    CHECK_OK(aclrtSetDevice((int32_t)k->rank));
    HCHECK(HcclCommInitRootInfo(g_ranks, &g_root, k->rank, &k->comm));
    CHECK_OK(aclrtCreateStream(&k->stream));
    CHECK_OK(aclrtMalloc(&k->send, BUF, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMalloc(&k->recv, BUF, ACL_MEM_MALLOC_HUGE_FIRST));
    k->host = (uint8_t *)malloc(BUF);
    k->want = (uint8_t *)malloc(BUF);
    CHECK(k->host && k->want);
    reductions(k);
    movements(k);
    alltoallv(k);
    point_to_point(k);
    stream_order(k);
    captured(k);
    refusals(k);
    mismatch(k);
    HCHECK(HcclCommDestroy(k->comm));
    CHECK_STATUS(HcclCommDestroy(k->comm), HCCL_E_PARA);
    CHECK_OK(aclrtFree(k->send));
    CHECK_OK(aclrtFree(k->recv));
    CHECK_OK(aclrtDestroyStream(k->stream));
    free(k->host);
    free(k->want);
    return NULL;
}

/* The sample's shape: one thread per device, all on one root info. */
static void test_collectives_one_thread_per_device(void)
{
    pthread_t th[MAXRANKS];
    Rank ranks[MAXRANKS];
    uint32_t r;
    memset(ranks, 0, sizeof(ranks));
    CHECK_OK(aclrtSetDevice(0));
    HCHECK(HcclGetRootInfo(&g_root));
    for (r = 0; r < g_ranks; r++) {
        ranks[r].rank = r;
        CHECK(pthread_create(&th[r], NULL, rank_main, &ranks[r]) == 0);
    }
    for (r = 0; r < g_ranks; r++) CHECK(pthread_join(th[r], NULL) == 0);
}

/* HcclCommInitAll from one thread: every device's AllReduce issued in a loop, then synced. */
static void test_init_all(void)
{
    HcclComm comms[MAXRANKS];
    aclrtStream streams[MAXRANKS];
    void *buf[MAXRANKS];
    int32_t devs[MAXRANKS];
    uint32_t r, n = g_ranks;
    for (r = 0; r < n; r++) devs[r] = (int32_t)r;
    HCHECK(HcclCommInitAll(n, devs, comms));
    for (r = 0; r < n; r++) {
        int32_t v[4] = {(int32_t)r, 1, -2, 3};
        CHECK_OK(aclrtSetDevice((int32_t)r));
        CHECK_OK(aclrtCreateStream(&streams[r]));
        CHECK_OK(aclrtMalloc(&buf[r], 16, ACL_MEM_MALLOC_HUGE_FIRST));
        CHECK_OK(aclrtMemcpy(buf[r], 16, v, 16, ACL_MEMCPY_HOST_TO_DEVICE));
        HCHECK(HcclAllReduce(buf[r], buf[r], 4, HCCL_DATA_TYPE_INT32, HCCL_REDUCE_MAX, comms[r], streams[r]));
    }
    for (r = 0; r < n; r++) {
        int32_t v[4];
        CHECK_OK(aclrtSetDevice((int32_t)r));
        CHECK_OK(aclrtSynchronizeStream(streams[r]));
        CHECK_OK(aclrtMemcpy(v, 16, buf[r], 16, ACL_MEMCPY_DEVICE_TO_HOST));
        CHECK(v[0] == (int32_t)n - 1 && v[1] == 1 && v[2] == -2 && v[3] == 3);
        CHECK_OK(aclrtFree(buf[r]));
        CHECK_OK(aclrtDestroyStream(streams[r]));
        HCHECK(HcclCommDestroy(comms[r]));
    }
    devs[0] = 0;
    if (n > 1) {
        devs[1] = 0;
        CHECK_STATUS(HcclCommInitAll(2, devs, comms), HCCL_E_PARA);
    }
    devs[0] = (int32_t)n;
    CHECK_STATUS(HcclCommInitAll(1, devs, comms), HCCL_E_PARA);
    CHECK_OK(aclrtSetDevice(0));
}

static double seconds_since(const struct timespec *t0)
{
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) * 1e-9;
}

/* Faults end in HCCL's error codes within the timeouts (set to 1 s in main), never a hang:
   a rank that never joins, and a collective the other ranks never start. */
static void test_faults_time_out(void)
{
    HcclRootInfo root;
    HcclComm comm = NULL, comms[2];
    HcclResult err = HCCL_SUCCESS;
    struct timespec t0;
    aclrtStream s;
    void *buf;
    int32_t devs[2] = {0, 1};
    CHECK_OK(aclrtSetDevice(0));
    HCHECK(HcclGetRootInfo(&root));
    clock_gettime(CLOCK_MONOTONIC, &t0);
    CHECK_STATUS(HcclCommInitRootInfo(2, &root, 0, &comm), HCCL_E_TIMEOUT);
    CHECK(seconds_since(&t0) < 10);
    CHECK_ERRMSG("did not join");
    CHECK_STATUS(HcclCommInitRootInfo(0, &root, 0, &comm), HCCL_E_PARA);
    CHECK_STATUS(HcclCommInitRootInfo(2, &root, 2, &comm), HCCL_E_PARA);
    memset(&root, 7, sizeof(root));
    CHECK_STATUS(HcclCommInitRootInfo(1, &root, 0, &comm), HCCL_E_PARA);
    if (g_ranks < 2) return;
    HCHECK(HcclCommInitAll(2, devs, comms));
    CHECK_OK(aclrtCreateStream(&s));
    CHECK_OK(aclrtMalloc(&buf, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    clock_gettime(CLOCK_MONOTONIC, &t0);
    HCHECK(HcclAllReduce(buf, buf, 4, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comms[0], s));
    CHECK_FAILS(aclrtSynchronizeStream(s));
    CHECK(seconds_since(&t0) < 10);
    HCHECK(HcclGetCommAsyncError(comms[0], &err));
    CHECK(err == HCCL_E_TIMEOUT);
    HCHECK(HcclSend(buf, 4, HCCL_DATA_TYPE_FP32, 1, comms[0], s));
    CHECK_FAILS(aclrtSynchronizeStream(s));
    CHECK_OK(aclrtFree(buf));
    CHECK_OK(aclrtDestroyStream(s));
    HCHECK(HcclCommDestroy(comms[0]));
    HCHECK(HcclCommDestroy(comms[1]));
}

static void test_error_strings_and_config(void)
{
    HcclConfigValue v;
    HcclCommConfig cfg;
    CHECK(strcmp(HcclGetErrorString(HCCL_SUCCESS), "success") == 0);
    CHECK(strcmp(HcclGetErrorString(HCCL_E_TIMEOUT), "timeout") == 0);
    CHECK(strlen(HcclGetErrorString((HcclResult)999)) > 0);
    v.value = 1;
    HCHECK(HcclSetConfig(HCCL_DETERMINISTIC, v));
    v.value = 0;
    HCHECK(HcclGetConfig(HCCL_DETERMINISTIC, &v));
    CHECK(v.value == 1);
    v.value = 5;
    CHECK_STATUS(HcclSetConfig(HCCL_DETERMINISTIC, v), HCCL_E_PARA);
    HcclCommConfigInit(&cfg);
    CHECK(cfg.hcclDeterministic == HCCL_COMM_DETERMINISTIC_CONFIG_NOT_SET);
    CHECK(sizeof(HcclRootInfo) == 4108);
    CHECK_STATUS(HcclCommInitClusterInfo("rank_table.json", 0, NULL), HCCL_E_NOT_SUPPORT);
    CHECK_STATUS(HcclGetRootInfo(NULL), HCCL_E_PTR);
}

/* HcclCommInitRootInfoConfig with a comm name, one rank. */
static void test_config_name(void)
{
    HcclRootInfo root;
    HcclCommConfig cfg;
    HcclComm comm;
    char name[COMM_NAME_MAX_LENGTH];
    CHECK_OK(aclrtSetDevice(0));
    HCHECK(HcclGetRootInfo(&root));
    HcclCommConfigInit(&cfg);
    strcpy(cfg.hcclCommName, "tp_group");
    HCHECK(HcclCommInitRootInfoConfig(1, &root, 0, &cfg, &comm));
    HCHECK(HcclGetCommName(comm, name));
    CHECK(strcmp(name, "tp_group") == 0);
    HCHECK(HcclCommDestroy(comm));
    memset(&cfg, 0, sizeof(cfg));
    HCHECK(HcclGetRootInfo(&root));
    CHECK_STATUS(HcclCommInitRootInfoConfig(1, &root, 0, &cfg, &comm), HCCL_E_PARA);
}

int main(void)
{
    setenv("HCCL_CONNECT_TIMEOUT", "1", 1);
    setenv("HCCL_EXEC_TIMEOUT", "1", 1);
    CHECK_OK(aclInit(NULL));
    CHECK_OK(aclrtGetDeviceCount(&g_ranks));
    CHECK(g_ranks >= 1 && g_ranks <= MAXRANKS);
    printf("test_hccl: %u device(s)\n", g_ranks);
    RUN_TEST(test_error_strings_and_config);
    RUN_TEST(test_collectives_one_thread_per_device);
    RUN_TEST(test_init_all);
    RUN_TEST(test_config_name);
    RUN_TEST(test_faults_time_out);
    CHECK_OK(aclFinalize());
    return capi_finish();
}
