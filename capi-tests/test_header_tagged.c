/*
 * CANN declares the runtime enums of acl_rt.h as tagged enums
 * (`typedef enum aclrtMemcpyKind { ... } aclrtMemcpyKind;`, reference section 2.6), so C
 * programs may also name them `enum aclrtMemcpyKind`. Compile-only check.
 */
#include "acl/acl.h"

int header_tagged_enums(void);
int header_tagged_enums(void)
{
    enum aclrtMemcpyKind kind = ACL_MEMCPY_HOST_TO_DEVICE;
    enum aclrtMemMallocPolicy policy = ACL_MEM_MALLOC_HUGE_FIRST;
    enum aclrtMemAttr attr = ACL_HBM_MEM;
    enum aclrtRunMode mode = ACL_HOST;
    enum aclrtEventStatus es = ACL_EVENT_STATUS_COMPLETE;
    enum aclrtEventRecordedStatus rs = ACL_EVENT_RECORDED_STATUS_COMPLETE;
    aclrtStreamStatus ss = ACL_STREAM_STATUS_COMPLETE;
    return (int)kind + (int)policy + (int)attr + (int)mode + (int)es + (int)rs + (int)ss + ACL_STREAM_STATUS_NOT_READY;
}
