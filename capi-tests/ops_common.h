/*
 * The op-test harness shared by the operator tests (test_arith.c, test_compare.c,
 * test_logical.c, test_where.c, test_unary.c, test_cast.c): host values as doubles packed
 * into any dtype, a table-driven set of cases every binary/unary operator form goes
 * through, and error checks. Expected values come from a small double-precision formula
 * per operator (Op.ref), never from the library.
 */
#ifndef ACLNN_CPU_CAPI_TESTS_OPS_COMMON_H
#define ACLNN_CPU_CAPI_TESTS_OPS_COMMON_H

#include "common.h"

#include <math.h>

#define SENT 0xA5 /* the byte pre-filled into outputs that must stay untouched */
#define UNDEF ACL_DT_UNDEFINED

/* ================================================================ host values in any dtype */

static inline bool is_cplx(aclDataType dt) { return dt == ACL_COMPLEX64 || dt == ACL_COMPLEX128; }
static inline bool is_flt(aclDataType dt)
{
    return dt == ACL_FLOAT || dt == ACL_FLOAT16 || dt == ACL_DOUBLE || dt == ACL_BF16;
}
static inline bool is_intlike(aclDataType dt) { return !is_flt(dt) && !is_cplx(dt); }
/* Host components per element (complex: re, im). */
static inline int64_t comps(aclDataType dt) { return is_cplx(dt) ? 2 : 1; }

/* Writes component k (element k, or k/2 part k%2 for complex) of a `dt` buffer. */
void put_c(aclDataType dt, void *base, int64_t k, double v);
/* Reads component k of a `dt` buffer (bool: the raw byte, so a non-0/1 byte shows). */
double get_c(aclDataType dt, const void *base, int64_t k);
/* The value `x` as a `dt` element holds it (round to nearest even, integers wrap). */
double quant(aclDataType dt, double x);

/* A contiguous tensor; `v` holds numel * comps(dt) components (NULL: zeros). */
DevTensor mk(aclDataType dt, const int64_t *shape, size_t n, const double *v);
/* A view over a storage of `storage` dims; `sv` fills the storage (NULL: SENT bytes). */
DevTensor mkv(aclDataType dt, const int64_t *storage, size_t sn, const double *sv, const int64_t *shape,
              size_t n, const int64_t *strides, int64_t off);
/* The whole storage of `t`, as numel * comps components. */
void rd(const DevTensor *t, double *v);
/* malloc'd doubles (zeros), at least one. */
double *dbl(int64_t n);
/* A scalar of dtype `dt` holding re (+ im for complex). */
aclScalar *mks(aclDataType dt, double re, double im);
static inline aclScalar *sc(aclDataType dt, double v) { return mks(dt, v, 0); }
/* A literal host array for mk(). */
#define V(...) ((const double[]){__VA_ARGS__})

/* ================================================================ value checks */

/* got ~ want within the dtype's relative tolerance (exact for integers); NaN only matches NaN. */
bool close_to(aclDataType dt, double got, double want);
/* Whether `got` matches `want` (n components of dtype dt, `want` exact: quantized here). */
bool vals_match(const char *what, aclDataType dt, const double *got, const double *want, int64_t n);
#define CHECK_VALS(what, dt, got, want, n)                                     \
    do {                                                                       \
        if (!vals_match(what, dt, got, want, n)) capi_fail_cond(__FILE__, __LINE__, "values of " what); \
    } while (0)

/* `t` must hold exactly the listed components (complex: re, im pairs). */
#define EXPECT_T(t, ...)                                                       \
    do {                                                                       \
        const double w_[] = {__VA_ARGS__};                                     \
        int64_t n_ = (t).numel * comps((t).dtype);                             \
        double *g_ = dbl(n_);                                                  \
        rd(&(t), g_);                                                          \
        CHECK((int64_t)ARRAY_LEN(w_) == n_);                                   \
        if (!vals_match(#t, (t).dtype, g_, w_, n_)) capi_fail_cond(__FILE__, __LINE__, "values of " #t); \
        free(g_);                                                              \
    } while (0)

/* Index into a contiguous operand of shape s (rank sn) broadcast to os (rank on). */
int64_t bidx(int64_t lin, const int64_t *os, size_t on, const int64_t *s, size_t sn);

/* Every byte of `t`'s storage is still SENT (NULL or empty: nothing to check). */
void check_untouched_at(const char *file, int line, const DevTensor *t);

/*
 * A failed phase 1: the status, the message naming `api` and `param` (unless NULL), no
 * executor, nothing written to `outbuf`.
 */
void err_check(const char *file, int line, const char *call, long long st, long long want, const char *api,
               const char *param, const DevTensor *outbuf, const aclOpExecutor *ex);
/* `call` may use `ews` and `eex` for its workspaceSize/executor arguments. */
#define EXPECT_ERR(call, want, api, param, outbuf)                             \
    do {                                                                       \
        const DevTensor *ob_ = (outbuf);                                       \
        if (ob_ != NULL) dev_fill_bytes(ob_, SENT);                            \
        uint64_t ews = 0;                                                      \
        aclOpExecutor *eex = NULL;                                             \
        (void)ews;                                                             \
        long long est_ = (long long)(call);                                    \
        err_check(__FILE__, __LINE__, #call, est_, (long long)(want), api, param, ob_, eex); \
    } while (0)

/* Runs phase 1 (`call`, which may use `ews`/`eex`) that must succeed, then phase 2. */
#define RUN2(call, phase2)                                                     \
    do {                                                                       \
        uint64_t ews = 0;                                                      \
        aclOpExecutor *eex = NULL;                                             \
        CHECK_OK(call);                                                        \
        CHECK(eex != NULL);                                                    \
        run_phase2(phase2, ews, eex);                                          \
    } while (0)

/* The seed view of SEMANTICS section 2 over a 10x10 storage: shape (4,3), strides (20,2), offset 22. */
extern const int64_t VSTORE[2], VSHAPE[2], VSTRIDES[2];
#define VOFF 22
/* Storage index of element `lin` (row-major) of the seed view. */
static inline int64_t view_pos(int64_t lin) { return VOFF + (lin / 3) * 20 + (lin % 3) * 2; }
/* Whether storage element k is one of the seed view's. */
bool in_view(int64_t k);

/* ================================================================ table-driven operator forms */

enum Kind {
    K_TT,  /* out = f(self tensor, other tensor) */
    K_TS,  /* out = f(self tensor, other scalar) */
    K_ITT, /* selfRef = f(selfRef, other tensor) */
    K_ITS, /* selfRef = f(selfRef, other scalar) */
    K_ST,  /* out = f(self scalar, other tensor) */
    K_U,   /* out = f(self) */
    K_IU   /* selfRef = f(selfRef) */
};

typedef struct Op Op;
typedef struct {
    const aclTensor *a; /* first tensor operand (selfRef for in-place forms) */
    const aclScalar *as; /* first operand when it is a scalar (K_ST) */
    const aclTensor *b;  /* second tensor operand */
    const aclScalar *bs; /* second operand when it is a scalar */
    aclTensor *out;
} Args;

struct Op {
    const char *api; /* the phase-1 name, e.g. "aclnnSubGetWorkspaceSize" */
    enum Kind kind;
    aclnnStatus (*ws)(const Op *, const Args *, uint64_t *, aclOpExecutor **);
    phase2_fn run;
    double (*ref)(const Op *, double, double); /* f(first, second) in double (unary: second is 0) */
    double (*gen)(int which, int64_t i, bool integral); /* operand values (which: 0 first, 1 second) */
    const char *pa, *pb; /* parameter names of the operands */
    const char *pout;    /* the output's parameter name (NULL: "out") */
    aclDataType dt;      /* main cases: the operands' dtype (for a scalar operand: sdt) */
    aclDataType sdt;     /* the scalar operand's dtype in the main cases */
    aclDataType out_dt;  /* main cases: out's dtype (in-place forms: ignored) */
    aclDataType mix_a, mix_b, mix_out; /* a mixed-dtype case (in-place: selfRef mix_a, result mix_a) */
    aclDataType bad_in;  /* an operand dtype the operator refuses (UNDEF: none) */
    aclDataType bad_out; /* an out dtype the result may not be cast to (in-place: a selfRef dtype) */
    aclDataType bad_out_b; /* in-place forms: the other operand's dtype for the bad_out case */
    aclDataType np_a, np_b; /* a pair that cannot be promoted (UNDEF: skip) */
    double alpha;        /* Sub: alpha */
    int mode;            /* DivMod: rounding mode; free for other operators */
    /* Optional: whether `got` (dtype dt) matches the exact `want` (NULL: close_to(quant(want))). */
    bool (*match)(aclDataType dt, double got, double want);
};

static inline bool is_inplace(const Op *op) { return op->kind == K_ITT || op->kind == K_ITS || op->kind == K_IU; }
static inline bool is_unary(const Op *op) { return op->kind == K_U || op->kind == K_IU; }
static inline bool second_is_scalar(const Op *op) { return op->kind == K_TS || op->kind == K_ITS; }
static inline const char *out_name(const Op *op) { return op->pout != NULL ? op->pout : "out"; }

/*
 * Value matchers for Op.match (`want` is the exact double result, not yet rounded):
 * exact_match: got is want as a `dt` element holds it (same sign of zero; NaN matches NaN);
 * ulp_match: |got - want| <= ulps units in the last place of `dt` at want (integer dtypes:
 * exact; ±inf and ±0 exactly, with their sign). ulp2_match is ulp_match with 2 ulps.
 */
bool exact_match(aclDataType dt, double got, double want);
bool ulp_match(aclDataType dt, double got, double want, double ulps);
static inline bool ulp2_match(aclDataType dt, double got, double want) { return ulp_match(dt, got, want, 2); }
/* vals_match, or op->match for each component when the operator has one. */
bool op_vals_match(const Op *op, const char *what, aclDataType dt, const double *got, const double *want, int64_t n);
#define CHECK_OP_VALS(op, what, dt, got, want, n)                              \
    do {                                                                       \
        if (!op_vals_match(op, what, dt, got, want, n)) capi_fail_cond(__FILE__, __LINE__, "values of " what); \
    } while (0)

/*
 * Op.ws wrappers for the plain call forms: OP_WS_TT(fn, Mul) defines `static aclnnStatus fn`
 * calling aclnnMulGetWorkspaceSize(self, other, out, ...); TS takes the scalar other, ITT/ITS
 * are the in-place forms (selfRef, other), ST has a scalar self, U is out = f(self) and IU is
 * f in place. Operators with extra arguments (alpha, a mode) write their own.
 */
#define OP_WS_DEF(fn) static aclnnStatus fn(const Op *op, const Args *x, uint64_t *w, aclOpExecutor **e)
#define OP_WS_CALL(fn, api, ...)                                               \
    OP_WS_DEF(fn)                                                              \
    {                                                                          \
        (void)op;                                                              \
        return api##GetWorkspaceSize(__VA_ARGS__, w, e);                       \
    }
#define OP_WS_TT(fn, Api) OP_WS_CALL(fn, aclnn##Api, x->a, x->b, x->out)
#define OP_WS_TS(fn, Api) OP_WS_CALL(fn, aclnn##Api, x->a, x->bs, x->out)
#define OP_WS_ITT(fn, Api) OP_WS_CALL(fn, aclnn##Api, (aclTensor *)x->a, x->b)
#define OP_WS_ITS(fn, Api) OP_WS_CALL(fn, aclnn##Api, (aclTensor *)x->a, x->bs)
#define OP_WS_ST(fn, Api) OP_WS_CALL(fn, aclnn##Api, x->as, x->b, x->out)
#define OP_WS_U(fn, Api) OP_WS_CALL(fn, aclnn##Api, x->a, x->out)
#define OP_WS_IU(fn, Api) OP_WS_CALL(fn, aclnn##Api, (aclTensor *)x->a)

/* Phase 1 + phase 2 + sync; returns the phase-1 status. */
aclnnStatus op_run(const Op *op, const Args *x);
#define OP_OK(op, x)                                                           \
    do {                                                                       \
        aclnnStatus s_ = op_run(op, x);                                        \
        if (s_ != 0) capi_fail_status(__FILE__, __LINE__, (op)->api, s_, 0);   \
    } while (0)

/* Operand value i (which: 0 first, 1 second) as a `dt` element holds it. */
double gen_v(const Op *op, int which, int64_t i, aclDataType dt);

/*
 * The operator on operands of dtypes da/db and shapes as/bs (a scalar operand: its shape
 * is ignored), into out of dtype dout (in-place: the result dtype is da and the shape as).
 * Checks the values and that inputs were not modified.
 */
void op_case(const Op *op, const char *what, aclDataType da, const int64_t *as, size_t an, aclDataType db,
             const int64_t *bs, size_t bn, aclDataType dout);
/* Broadcasting (and, for scalar forms, the scalar applied to every element). */
void case_broadcast(const Op *op);
/* Mixed operand dtypes. */
void case_mixed(const Op *op);
/* 0-d tensors: alone and broadcast against a (2,3) tensor. */
void case_0d(const Op *op);
/* Empty tensors: success, workspace 0, an executor that runs and writes nothing. */
void empty_run(const Op *op, const int64_t *as, size_t an, const int64_t *bs, size_t bn, const int64_t *os,
               size_t on);
void case_empty(const Op *op);
/*
 * Non-contiguous inputs: a transposed view (strides (1,2) over a 3x2 storage) and, for the
 * second tensor operand, a stride-0 row (strides (0,1)) or a stride-2 slice.
 */
void case_noncontig_input(const Op *op);
/*
 * A non-contiguous output: the (4,3) seed view of a 10x10 storage; the 88 storage
 * elements outside the view must be untouched. In-place forms: selfRef is that view.
 */
void case_noncontig_output(const Op *op);

/* Phase 1 with the given args must fail with `status` naming `param`; `outbuf` untouched. */
void op_err_at(const char *file, int line, const Op *op, const Args *x, long long status, const char *param,
               const DevTensor *outbuf);
#define OP_ERR(op, x, status, param, outbuf) op_err_at(__FILE__, __LINE__, op, x, status, param, outbuf)

/*
 * The documented errors: NULL arguments (161001); not broadcastable, out shape, out dtype,
 * rank > 8, unsupported dtype, no promotion (161002). Output bytes untouched each time.
 */
void case_errors(const Op *op);
/*
 * Outputs aliasing inputs (SEMANTICS section 2: computed as if every input were read before
 * any output element is written): out == self, and an operand that is a view of the output's
 * own storage (its first row, broadcast over both rows).
 */
void case_alias(const Op *op);
/*
 * The device's merged-axes limit (SEMANTICS section 3) for computation dtype `dt` (f64, s16,
 * ...): (5,1,5,1,5,1) with (5,5,5,5,5,5) leaves 6 axes: refused; (5,1,5,5,1,1) merges to 4:
 * accepted, with the right values. Tensor-tensor forms only; `dout` is out's dtype.
 */
void case_axis_limit(const Op *op, aclDataType dt, aclDataType dout);

/* Every table-driven case for one operator form. */
void run_generic(const Op *op);
void run_table(const Op *ops, size_t n);

#endif /* ACLNN_CPU_CAPI_TESTS_OPS_COMMON_H */
