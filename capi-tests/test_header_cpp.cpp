// Header hygiene, C++ side (built as C++11 and as C++17): every public header together,
// compile-time checks of the types CANN C++ programs rely on (real unscoped enums, so that
// aclDataType::ACL_FLOAT works), and a tiny run-time check that uses the getters the way the
// CANN documentation does (arrays released with delete[]).
#include "acl/acl.h"
#include "acl/acl_base.h"
#include "acl/acl_rt.h"
#include "aclnn/acl_meta.h"
#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"
#include "aclnnop/aclnn_add.h"

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <type_traits>
#include <vector>

static_assert(std::is_same<aclrtStream, void*>::value, "aclrtStream is void*");
static_assert(std::is_same<aclrtEvent, void*>::value, "aclrtEvent is void*");
static_assert(std::is_same<aclrtContext, void*>::value, "aclrtContext is void*");
static_assert(std::is_same<aclnnStatus, int32_t>::value, "aclnnStatus is int32_t");
static_assert(std::is_same<aclError, int>::value, "aclError is int");
static_assert(std::is_same<aclFloat16, uint16_t>::value, "aclFloat16 is uint16_t");
static_assert(std::is_enum<aclDataType>::value, "aclDataType is an enum");
static_assert(std::is_enum<aclFormat>::value, "aclFormat is an enum");
static_assert(std::is_enum<aclrtMemcpyKind>::value, "aclrtMemcpyKind is an enum");
static_assert(std::is_enum<aclrtMemMallocPolicy>::value, "aclrtMemMallocPolicy is an enum");
// unscoped: converts to int implicitly
static_assert(std::is_convertible<aclDataType, int>::value, "aclDataType is unscoped");
static_assert(std::is_convertible<aclFormat, int>::value, "aclFormat is unscoped");
static_assert(aclDataType::ACL_FLOAT == ACL_FLOAT && ACL_FLOAT == 0, "");
static_assert(aclDataType::ACL_FLOAT16 == 1 && aclDataType::ACL_BF16 == 27 && aclDataType::ACL_COMPLEX32 == 33, "");
static_assert(aclFormat::ACL_FORMAT_ND == ACL_FORMAT_ND && ACL_FORMAT_ND == 2, "");
static_assert(aclFormat::ACL_FORMAT_NCHW == 0 && aclFormat::ACL_FORMAT_NCL == 47, "");
static_assert(aclrtMemcpyKind::ACL_MEMCPY_HOST_TO_DEVICE == 1, "");
static_assert(aclrtMemcpyKind::ACL_MEMCPY_DEVICE_TO_HOST == 2, "");
static_assert(ACL_SUCCESS == 0 && ACLNN_SUCCESS == 0, "");
static_assert(ACLNN_ERR_PARAM_NULLPTR == 161001 && ACLNN_ERR_PARAM_INVALID == 161002, "");

// function pointer types as CANN declares them
static_assert(std::is_same<decltype(&aclnnAdd), aclnnStatus (*)(void*, uint64_t, aclOpExecutor*, aclrtStream)>::value,
              "aclnnAdd signature");
static_assert(std::is_same<decltype(&aclnnAddGetWorkspaceSize),
                           aclnnStatus (*)(const aclTensor*, const aclTensor*, const aclScalar*, aclTensor*,
                                           uint64_t*, aclOpExecutor**)>::value,
              "aclnnAddGetWorkspaceSize signature");
static_assert(std::is_same<decltype(&aclCreateScalar), aclScalar* (*)(void*, aclDataType)>::value,
              "aclCreateScalar signature");
static_assert(std::is_same<decltype(&aclInit), aclError (*)(const char*)>::value, "aclInit signature");

#define EXPECT(cond)                                                                   \
    do {                                                                               \
        if (!(cond)) {                                                                 \
            std::fprintf(stderr, "%s:%d: CHECK FAILED: %s (%s)\n", __FILE__, __LINE__, #cond, \
                         aclGetRecentErrMsg());                                        \
            return 1;                                                                  \
        }                                                                              \
    } while (0)

int main()
{
    EXPECT(aclInit(nullptr) == ACL_SUCCESS);
    EXPECT(aclrtSetDevice(0) == ACL_SUCCESS);

    std::vector<int64_t> shape = {4, 3};
    std::vector<int64_t> strides = {3, 1};
    aclTensor* t = aclCreateTensor(shape.data(), shape.size(), aclDataType::ACL_FLOAT16, strides.data(), 0,
                                   aclFormat::ACL_FORMAT_ND, shape.data(), shape.size(), nullptr);
    EXPECT(t != nullptr);

    int64_t* dims = nullptr;
    uint64_t n = 0;
    EXPECT(aclGetViewShape(t, &dims, &n) == ACLNN_SUCCESS);
    EXPECT(n == 2 && dims[0] == 4 && dims[1] == 3);
    delete[] dims;
    int64_t* st = nullptr;
    EXPECT(aclGetViewStrides(t, &st, &n) == ACLNN_SUCCESS);
    EXPECT(n == 2 && st[0] == 3 && st[1] == 1);
    delete[] st;
    int64_t* sd = nullptr;
    EXPECT(aclGetStorageShape(t, &sd, &n) == ACLNN_SUCCESS);
    EXPECT(n == 2 && sd[0] == 4 && sd[1] == 3);
    delete[] sd;
    aclFormat fmt = aclFormat::ACL_FORMAT_UNDEFINED;
    EXPECT(aclGetFormat(t, &fmt) == ACLNN_SUCCESS && fmt == aclFormat::ACL_FORMAT_ND);
    aclDataType dt = aclDataType::ACL_DT_UNDEFINED;
    EXPECT(aclGetDataType(t, &dt) == ACLNN_SUCCESS && dt == aclDataType::ACL_FLOAT16);

    float alphaValue = 1.2f;
    aclScalar* alpha = aclCreateScalar(&alphaValue, aclDataType::ACL_FLOAT);
    EXPECT(alpha != nullptr);

    EXPECT(aclDestroyScalar(alpha) == ACLNN_SUCCESS);
    EXPECT(aclDestroyTensor(t) == ACLNN_SUCCESS);
    EXPECT(aclDestroyTensor(nullptr) == ACLNN_SUCCESS);
    EXPECT(aclrtResetDevice(0) == ACL_SUCCESS);
    EXPECT(aclFinalize() == ACL_SUCCESS);
    std::printf("1 passed, 0 failed\n");
    return 0;
}
