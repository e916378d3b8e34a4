/*
 * The device's tooling as a CANN program uses it: aclprof (acl/acl_prof.h) around a
 * two-stream program, the ACLNN_CPU_PROFILE switch, and CANN-style plog logs.
 *
 * One executable, three ctest runs (capi-tests/CMakeLists.txt), told apart by the
 * environment, since the library reads its log and profile settings at load and at aclInit:
 *   test_tooling          aclprof: errors in the documented order, then a profile written
 *                         to $TOOLING_DIR (default /tmp/aclnn_cpu_tooling_prof); check_trace.py checks it.
 *   test_tooling_env      ACLNN_CPU_PROFILE=<file>: aclprofInit is an API conflict, the
 *                         trace is written at aclFinalize.
 *   test_tooling_stdout   ASCEND_SLOG_PRINT_TO_STDOUT=1 ASCEND_MODULE_LOG_LEVEL=OP=1: ctest
 *                         matches OP's info lines and ASCENDCL's error line on stdout.
 *   test_tooling_log      ASCEND_GLOBAL_LOG_LEVEL=1 ASCEND_PROCESS_LOG_PATH=<dir>: the plog
 *                         file has the info lines of phase 1 and 2 and the error line with the
 *                         very text aclGetRecentErrMsg returned.
 */
#include "common.h"

#include "acl/acl_prof.h"
#include "aclnnop/aclnn_mul.h"

#include <dirent.h>
#include <unistd.h>

#define N_ADDS 6

static const char *tooling_dir(void)
{
    const char *d = getenv("TOOLING_DIR");
    return d && *d ? d : "/tmp/aclnn_cpu_tooling_prof";
}

static void run_add(aclrtStream stream, const DevTensor *a, const DevTensor *b, const DevTensor *out)
{
    aclScalar *alpha = scalar_f32(1.0f);
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    CHECK_OK(aclnnAddGetWorkspaceSize(a->tensor, b->tensor, alpha, out->tensor, &ws, &ex));
    void *wsp = NULL;
    if (ws > 0) CHECK_OK(aclrtMalloc(&wsp, ws, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclnnAdd(wsp, ws, ex, stream));
    /* The workspace stays until the stream is synchronized (freed by the caller then). */
    if (wsp) {
        CHECK_OK(aclrtSynchronizeStream(stream));
        CHECK_OK(aclrtFree(wsp));
    }
    CHECK_OK(aclDestroyScalar(alpha));
}

static void run_mul(aclrtStream stream, const DevTensor *a, const DevTensor *b, const DevTensor *out)
{
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    CHECK_OK(aclnnMulGetWorkspaceSize(a->tensor, b->tensor, out->tensor, &ws, &ex));
    CHECK(ws == 0);
    CHECK_OK(aclnnMul(NULL, 0, ex, stream));
}

/*
 * The program the profile records: stream 1 copies the inputs in, adds N_ADDS times and
 * records an event; stream 2 waits for it, multiplies, and copies the result out. Checks
 * the numbers (acc = a + N_ADDS*b, then acc * b).
 */
static void two_stream_program(void)
{
    enum { R = 64, C = 256 };
    const int64_t shape[] = {R, C};
    const size_t n = R * C;
    float *ha = malloc(n * sizeof(float)), *hb = malloc(n * sizeof(float)), *hr = malloc(n * sizeof(float));
    CHECK(ha && hb && hr);
    for (size_t i = 0; i < n; i++) {
        ha[i] = (float)(i % 17);
        hb[i] = (float)(i % 5) * 0.5f;
    }
    aclrtStream s1, s2;
    CHECK_OK(aclrtCreateStream(&s1));
    CHECK_OK(aclrtCreateStream(&s2));
    DevTensor a = dev_tensor(NULL, ACL_FLOAT, shape, 2), b = dev_tensor(NULL, ACL_FLOAT, shape, 2);
    DevTensor acc = dev_tensor(NULL, ACL_FLOAT, shape, 2), out = dev_tensor(NULL, ACL_FLOAT, shape, 2);
    CHECK_OK(aclrtMemcpyAsync(a.dev, a.alloc, ha, n * sizeof(float), ACL_MEMCPY_HOST_TO_DEVICE, s1));
    CHECK_OK(aclrtMemcpyAsync(b.dev, b.alloc, hb, n * sizeof(float), ACL_MEMCPY_HOST_TO_DEVICE, s1));
    CHECK_OK(aclrtMemsetAsync(acc.dev, acc.alloc, 0, n * sizeof(float), s1));
    run_add(s1, &a, &b, &acc);
    for (int k = 1; k < N_ADDS; k++) run_add(s1, &acc, &b, &acc);
    aclrtEvent done;
    CHECK_OK(aclrtCreateEvent(&done));
    CHECK_OK(aclrtRecordEvent(done, s1));
    CHECK_OK(aclrtStreamWaitEvent(s2, done));
    run_mul(s2, &acc, &b, &out);
    CHECK_OK(aclrtMemcpyAsync(hr, n * sizeof(float), out.dev, n * sizeof(float), ACL_MEMCPY_DEVICE_TO_HOST, s2));
    const char mark[] = "results copied";
    CHECK_OK(aclprofMarkEx(mark, sizeof mark - 1, s2));
    CHECK_OK(aclrtSynchronizeStream(s2));
    CHECK_OK(aclrtSynchronizeEvent(done));
    for (size_t i = 0; i < n; i++) {
        float want = (ha[i] + (float)N_ADDS * hb[i]) * hb[i];
        if (!near_f32(hr[i], want)) {
            fprintf(stderr, "element %zu: got %g, want %g\n", i, (double)hr[i], (double)want);
            CHECK(0);
        }
    }
    /* A synchronous copy on the host thread's track. */
    float first = 0;
    CHECK_OK(aclrtMemcpy(&first, sizeof first, out.dev, sizeof first, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK(near_f32(first, hr[0]));
    CHECK_OK(aclrtDestroyEvent(done));
    dev_free(&a);
    dev_free(&b);
    dev_free(&acc);
    dev_free(&out);
    CHECK_OK(aclrtDestroyStream(s1));
    CHECK_OK(aclrtDestroyStream(s2));
    free(ha);
    free(hb);
    free(hr);
}

static bool file_has(const char *path, const char *needle)
{
    FILE *f = fopen(path, "rb");
    if (!f) return false;
    static char buf[1 << 20];
    size_t got = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[got] = 0;
    return strstr(buf, needle) != NULL;
}

/* ---------------------------------------------------------------- aclprof */

static void test_prof_errors_in_order(void)
{
    uint32_t dev = 0;
    /* Before aclprofInit. */
    CHECK_STATUS(aclprofFinalize(), ACL_ERROR_UNINITIALIZE);
    CHECK_ERRMSG("aclprofFinalize");
    aclprofConfig *cfg = aclprofCreateConfig(&dev, 1, ACL_AICORE_NONE, NULL, ACL_PROF_ACL_API | ACL_PROF_TASK_TIME);
    CHECK(cfg != NULL);
    CHECK_STATUS(aclprofStart(cfg), ACL_ERROR_UNINITIALIZE);
    CHECK_ERRMSG("aclprofStart before aclprofInit");
    /* Bad arguments. */
    CHECK_STATUS(aclprofInit(NULL, 4), ACL_ERROR_INVALID_PARAM);
    CHECK_ERRMSG("profilerResultPath");
    CHECK_STATUS(aclprofInit("x", 0), ACL_ERROR_INVALID_PARAM);
    CHECK_ERRMSG("length 0");
    CHECK(aclprofCreateConfig(&dev, 1, (aclprofAicoreMetrics)42, NULL, 0) == NULL);
    CHECK_ERRMSG("aicoreMetrics 42");
    uint32_t bad_dev = 4096;
    CHECK(aclprofCreateConfig(&bad_dev, 1, ACL_AICORE_NONE, NULL, 0) == NULL);
    CHECK_ERRMSG("device 4096");
    CHECK(aclprofCreateConfig(&dev, 1, ACL_AICORE_NONE, NULL, 1ULL << 40) == NULL);
    CHECK_ERRMSG("dataTypeConfig");
    CHECK(aclprofCreateConfig(NULL, 1, ACL_AICORE_NONE, NULL, 0) == NULL);
    CHECK_ERRMSG("deviceIdList");
    CHECK_STATUS(aclprofSetConfig((aclprofConfigType)99, "1", 1), ACL_ERROR_INVALID_PARAM);
    CHECK_ERRMSG("configType 99");
    CHECK_OK(aclprofSetConfig(ACL_PROF_STORAGE_LIMIT, "200MB", 5));
    CHECK_STATUS(aclprofStart(NULL), ACL_ERROR_INVALID_PARAM);
    CHECK_STATUS(aclprofDestroyConfig(NULL), ACL_ERROR_INVALID_PARAM);
    CHECK_OK(aclprofDestroyConfig(cfg));
    CHECK_FAILS(aclprofDestroyConfig(cfg)); /* stale: refused, not freed twice */
    CHECK_STATUS(aclprofMarkEx(NULL, 3, NULL), ACL_ERROR_INVALID_PARAM);
    CHECK_STATUS(aclprofPop(), ACL_ERROR_INVALID_PARAM);
    CHECK_STATUS(aclprofRangeStop(12345), ACL_ERROR_INVALID_PARAM);
    /* Declared, not provided: refused by name. */
    CHECK_STATUS(aclprofModelSubscribe(1, NULL), ACL_ERROR_FEATURE_UNSUPPORTED);
    CHECK_ERRMSG("aclprofModelSubscribe: model subscription is not provided");
    CHECK(aclprofCreateStepInfo() == NULL);
    CHECK_ERRMSG("aclprofCreateStepInfo");
    CHECK(aclprofGetOpDuration(NULL, 0, 0) == 0);
    aclprofDestroyStepInfo(NULL);
}

static void test_prof_timeline(void)
{
    const char *dir = tooling_dir();
    uint32_t dev = 0;
    CHECK_OK(aclprofInit(dir, strlen(dir)));
    CHECK_STATUS(aclprofInit(dir, strlen(dir)), ACL_ERROR_REPEAT_INITIALIZE);
    aclprofConfig *cfg = aclprofCreateConfig(&dev, 1, ACL_AICORE_PIPE_UTILIZATION, NULL,
                                             ACL_PROF_ACL_API | ACL_PROF_TASK_TIME | ACL_PROF_MSPROFTX);
    CHECK(cfg != NULL);
    CHECK_STATUS(aclprofStop(cfg), ACL_ERROR_PROF_NOT_RUN);
    CHECK_OK(aclprofStart(cfg));
    CHECK_STATUS(aclprofStart(cfg), ACL_ERROR_PROF_ALREADY_RUN);
    CHECK_STATUS(aclprofDestroyConfig(cfg), ACL_ERROR_INVALID_PARAM); /* still running */

    void *stamp = aclprofCreateStamp();
    CHECK(stamp != NULL);
    const char msg[] = "two-stream program";
    CHECK_OK(aclprofSetStampTraceMessage(stamp, msg, (uint32_t)(sizeof msg - 1)));
    uint32_t range = 0;
    CHECK_OK(aclprofRangeStart(stamp, &range));
    CHECK_OK(aclprofPush(stamp));
    two_stream_program();
    CHECK_OK(aclprofPop());
    CHECK_OK(aclprofMark(stamp));
    CHECK_OK(aclprofRangeStop(range));
    aclprofDestroyStamp(stamp);

    CHECK_OK(aclprofStop(cfg));
    CHECK_OK(aclprofDestroyConfig(cfg));
    CHECK_OK(aclprofFinalize());

    char json[4096], csv[4096];
    snprintf(json, sizeof json, "%s/aclnn_cpu_trace_%d_1.json", dir, (int)getpid());
    snprintf(csv, sizeof csv, "%s/aclnn_cpu_trace_%d_1.op_summary.csv", dir, (int)getpid());
    CHECK(file_has(json, "\"traceEvents\""));
    CHECK(file_has(json, "\"name\":\"aclnnAdd\""));
    CHECK(file_has(csv, "Op Name,Count,Total Time(us)"));
    char row[64];
    snprintf(row, sizeof row, "\naclnnAdd,%d,", N_ADDS);
    CHECK(file_has(csv, row));
    CHECK(file_has(csv, "\naclnnMul,1,"));
    /* The trace's path for check_trace.py (ctest runs it next). */
    char latest[4096];
    snprintf(latest, sizeof latest, "%s/latest", dir);
    FILE *f = fopen(latest, "w");
    CHECK(f != NULL);
    fprintf(f, "%s\n", json);
    fclose(f);
}

/* ---------------------------------------------------------------- ACLNN_CPU_PROFILE */

static void test_env_profile_conflicts_with_api(void)
{
    CHECK_STATUS(aclprofInit("unused", 6), ACL_ERROR_PROF_API_CONFLICT);
    CHECK_ERRMSG("ACLNN_CPU_PROFILE");
    two_stream_program();
}

/* ---------------------------------------------------------------- plog */

/* The plog file this process wrote under $ASCEND_PROCESS_LOG_PATH/debug/plog. */
static bool find_plog(char *path, size_t cap)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/debug/plog", getenv("ASCEND_PROCESS_LOG_PATH"));
    DIR *d = opendir(dir);
    if (!d) return false;
    char prefix[64];
    snprintf(prefix, sizeof prefix, "plog-%d_", (int)getpid());
    bool found = false;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (strncmp(e->d_name, prefix, strlen(prefix)) == 0 && strlen(dir) + strlen(e->d_name) + 2 <= cap) {
            memcpy(path, dir, strlen(dir));
            path[strlen(dir)] = '/';
            memcpy(path + strlen(dir) + 1, e->d_name, strlen(e->d_name) + 1);
            found = true;
        }
    }
    closedir(d);
    return found;
}

static void test_plog_lines(void)
{
    two_stream_program();
    /* A failing call: its error line carries the text aclGetRecentErrMsg returns. */
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    CHECK_STATUS(aclnnAddGetWorkspaceSize(NULL, NULL, NULL, NULL, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
    char msg[1024];
    snprintf(msg, sizeof msg, "%s", aclGetRecentErrMsg());
    CHECK(strstr(msg, "aclnnAddGetWorkspaceSize") != NULL);

    /* A misuse warning: a synchronous copy reading memory a queued memset still writes
       (retried: the memset may finish first on a busy machine). */
    const size_t big_bytes = (size_t)64 << 20;
    void *big = NULL;
    CHECK_OK(aclrtMalloc(&big, big_bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    bool warned = false;
    for (int attempt = 0; attempt < 5 && !warned; attempt++) {
        uint64_t w0 = 0, w1 = 0;
        unsigned char host[16];
        CHECK_OK(aclnnCpuDebugCounts(NULL, NULL, NULL, &w0));
        CHECK_OK(aclrtMemsetAsync(big, big_bytes, 1, big_bytes, g_stream));
        CHECK_OK(aclrtMemcpy(host, sizeof host, (char *)big + big_bytes - sizeof host, sizeof host,
                             ACL_MEMCPY_DEVICE_TO_HOST));
        CHECK_OK(aclnnCpuDebugCounts(NULL, NULL, NULL, &w1));
        warned = w1 > w0;
        CHECK_OK(aclrtSynchronizeStream(g_stream));
    }
    CHECK_OK(aclrtFree(big));

    char path[4096];
    CHECK(find_plog(path, sizeof path));
    if (warned) CHECK(file_has(path, "[WARNING] ASCENDCL("));
    char line[1200];
    snprintf(line, sizeof line, "%d,", (int)getpid());
    CHECK(file_has(path, line));                         /* MODULE(pid,process) */
    CHECK(file_has(path, "[INFO] OP("));
    CHECK(file_has(path, "aclnnAddGetWorkspaceSize: input 0: ACL_FLOAT [64, 256] strides [256, 1]"));
    CHECK(file_has(path, "workspace size 0"));
    CHECK(file_has(path, "aclnnMul: launch on stream"));
    CHECK(file_has(path, "[INFO] ASCENDCL("));          /* aclInit */
    CHECK(!file_has(path, "[DEBUG]"));                   /* level 1: no debug lines */
    snprintf(line, sizeof line, " %s\n", msg); /* after "]<tid>" */
    CHECK(file_has(path, "[ERROR] OP("));
    CHECK(file_has(path, line));
}

/* ASCEND_SLOG_PRINT_TO_STDOUT=1 ASCEND_MODULE_LOG_LEVEL=OP=1: ctest matches the lines on
   stdout (info from OP, nothing from ASCENDCL below its global error level). */
static void test_plog_to_stdout(void)
{
    two_stream_program();
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    CHECK_STATUS(aclrtMalloc(NULL, 16, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
    CHECK_STATUS(aclnnAddGetWorkspaceSize(NULL, NULL, NULL, NULL, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
    fflush(stdout);
}

int main(void)
{
    bool env_profile = getenv("ACLNN_CPU_PROFILE") != NULL;
    bool plog = getenv("TOOLING_EXPECT_LOG") != NULL;
    bool plog_stdout = getenv("TOOLING_STDOUT_LOG") != NULL;
    if (!env_profile && !plog && !plog_stdout) RUN_TEST(test_prof_errors_in_order);
    device_init();
    if (env_profile) {
        RUN_TEST(test_env_profile_conflicts_with_api);
    } else if (plog_stdout) {
        RUN_TEST(test_plog_to_stdout);
    } else if (plog) {
        RUN_TEST(test_plog_lines);
    } else {
        RUN_TEST(test_prof_timeline);
    }
    device_teardown();
    return capi_finish();
}
