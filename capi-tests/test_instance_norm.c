/* aclnnInstanceNorm as a CANN user on Atlas A2 sees it: the header compiles and links, and
 * the call is refused with ACLNN_ERR_PARAM_INVALID (CANN runs it on the Atlas inference
 * series only), its message naming the platform; NULL tensors or a NULL dataFormat are
 * ACLNN_ERR_PARAM_NULLPTR first, as in CANN's op_api. */
#include <stdio.h>
#include <string.h>
#include <stdint.h>
#include "acl/acl.h"
#include "aclnnop/aclnn_instance_norm.h"

static aclTensor *mk(const int64_t *shape, int64_t rank, void **dev)
{
    int64_t n = 1, strides[4];
    for (int64_t i = rank - 1; i >= 0; i--) { strides[i] = n; n *= shape[i]; }
    aclrtMalloc(dev, (size_t)n * 4, ACL_MEM_MALLOC_HUGE_FIRST);
    return aclCreateTensor(shape, (uint64_t)rank, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, shape, (uint64_t)rank, *dev);
}

int main(void)
{
    aclInit(NULL);
    aclrtSetDevice(0);
    int64_t sx[4] = {2, 3, 4, 4}, sc[1] = {3}, sm[4] = {2, 3, 1, 1};
    void *dx, *dg, *db, *dy, *dm, *dv;
    aclTensor *x = mk(sx, 4, &dx), *g = mk(sc, 1, &dg), *b = mk(sc, 1, &db), *y = mk(sx, 4, &dy);
    aclTensor *m = mk(sm, 4, &dm), *v = mk(sm, 4, &dv);
    uint64_t wsz = 0;
    aclOpExecutor *ex = NULL;
    int fails = 0;
    aclnnStatus st = aclnnInstanceNormGetWorkspaceSize(x, g, b, "NCHW", 1e-5, y, m, v, &wsz, &ex);
    if (st != 161002 || strstr(aclGetRecentErrMsg(), "310P") == NULL) {
        printf("FAIL InstanceNorm gave %d: %s\n", st, aclGetRecentErrMsg());
        fails++;
    }
    st = aclnnInstanceNormGetWorkspaceSize(x, g, b, NULL, 1e-5, y, m, v, &wsz, &ex);
    if (st != 161001) { printf("FAIL a NULL dataFormat gave %d\n", st); fails++; }
    st = aclnnInstanceNormGetWorkspaceSize(x, NULL, b, "NCHW", 1e-5, y, m, v, &wsz, &ex);
    if (st != 161001) { printf("FAIL a NULL gamma gave %d\n", st); fails++; }
    aclDestroyTensor(x); aclDestroyTensor(g); aclDestroyTensor(b);
    aclDestroyTensor(y); aclDestroyTensor(m); aclDestroyTensor(v);
    aclrtFree(dx); aclrtFree(dg); aclrtFree(db); aclrtFree(dy); aclrtFree(dm); aclrtFree(dv);
    aclrtResetDevice(0);
    aclFinalize();
    if (fails) return 1;
    printf("test_instance_norm: ok\n");
    return 0;
}
