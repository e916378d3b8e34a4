// aclnnAdd from C++, in the style of a CANN operator sample (aclDataType::ACL_FLOAT,
// std::vector shapes, a templated CreateAclTensor helper).
//
//   1. broadcasting:          out(3,4) = self(3,1) + other(1,4)
//   2. a non-contiguous view: self is every second column of a 4x6 buffer, alpha = -1
//   3. mixed dtypes:          out(f32) = self(f16) + other(f32); and s8 + u8 -> s16
//
// Build (see capi-tests/CMakeLists.txt, or by hand after `cargo build --release`):
//   c++ -std=c++17 add.cpp -I include -L target/release -Wl,-rpath,target/release -lopapi -lascendcl -lnnopbase
// Prints the inputs and results; exits 0 only if every result is right.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_add.h"

#define CHECK_RET(cond, return_expr) \
    do {                             \
        if (!(cond)) {               \
            return_expr;             \
        }                            \
    } while (0)

#define LOG_PRINT(...)            \
    do {                          \
        std::printf(__VA_ARGS__); \
    } while (0)

namespace {

std::vector<int64_t> ContiguousStrides(const std::vector<int64_t>& shape)
{
    std::vector<int64_t> strides(shape.size(), 1);
    for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; i--) {
        strides[i] = shape[i + 1] * strides[i + 1];
    }
    return strides;
}

// A device buffer plus the aclTensor that views it; released by the destructor.
struct DeviceTensor {
    void* addr = nullptr;
    aclTensor* tensor = nullptr;
    size_t bytes = 0;
    DeviceTensor() = default;
    DeviceTensor(const DeviceTensor&) = delete;
    DeviceTensor& operator=(const DeviceTensor&) = delete;
    ~DeviceTensor()
    {
        if (tensor != nullptr) aclDestroyTensor(tensor);
        if (addr != nullptr) aclrtFree(addr);
    }
    template <typename T>
    std::vector<T> Read() const
    {
        std::vector<T> host(bytes / sizeof(T));
        aclrtMemcpy(host.data(), bytes, addr, bytes, ACL_MEMCPY_DEVICE_TO_HOST);
        return host;
    }
};

// storage = hostData; the view is (shape, strides, offset) over it (strides empty = contiguous).
template <typename T>
int CreateAclTensor(const std::vector<T>& hostData, const std::vector<int64_t>& storageShape,
                    const std::vector<int64_t>& shape, std::vector<int64_t> strides, int64_t offset,
                    aclDataType dataType, DeviceTensor* t)
{
    t->bytes = hostData.size() * sizeof(T);
    auto ret = aclrtMalloc(&t->addr, t->bytes, ACL_MEM_MALLOC_HUGE_FIRST);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtMalloc failed. ERROR: %d\n", ret); return ret);
    ret = aclrtMemcpy(t->addr, t->bytes, hostData.data(), t->bytes, ACL_MEMCPY_HOST_TO_DEVICE);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtMemcpy failed. ERROR: %d\n", ret); return ret);
    if (strides.empty()) strides = ContiguousStrides(shape);
    t->tensor = aclCreateTensor(shape.data(), shape.size(), dataType, strides.data(), offset,
                                aclFormat::ACL_FORMAT_ND, storageShape.data(), storageShape.size(), t->addr);
    CHECK_RET(t->tensor != nullptr, LOG_PRINT("aclCreateTensor failed: %s\n", aclGetRecentErrMsg()); return 1);
    return 0;
}

template <typename T>
int CreateAclTensor(const std::vector<T>& hostData, const std::vector<int64_t>& shape, aclDataType dataType,
                    DeviceTensor* t)
{
    return CreateAclTensor(hostData, shape, shape, {}, 0, dataType, t);
}

int RunAdd(const aclTensor* self, const aclTensor* other, const aclScalar* alpha, aclTensor* out,
           aclrtStream stream)
{
    uint64_t workspaceSize = 0;
    aclOpExecutor* executor = nullptr;
    auto ret = aclnnAddGetWorkspaceSize(self, other, alpha, out, &workspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS,
              LOG_PRINT("aclnnAddGetWorkspaceSize failed. ERROR: %d (%s)\n", ret, aclGetRecentErrMsg());
              return ret);
    void* workspaceAddr = nullptr;
    if (workspaceSize > 0) {
        ret = aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
        CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret); return ret);
    }
    ret = aclnnAdd(workspaceAddr, workspaceSize, executor, stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnAdd failed. ERROR: %d (%s)\n", ret, aclGetRecentErrMsg());
              return ret);
    ret = aclrtSynchronizeStream(stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSynchronizeStream failed. ERROR: %d\n", ret); return ret);
    if (workspaceSize > 0) aclrtFree(workspaceAddr);
    return 0;
}

template <typename T>
void Print(const char* name, const std::vector<T>& v, int64_t cols)
{
    LOG_PRINT("  %s =", name);
    for (size_t i = 0; i < v.size(); i++) {
        if (i % cols == 0) LOG_PRINT(" [");
        LOG_PRINT("%s%g", i % cols ? ", " : "", static_cast<double>(v[i]));
        if ((i + 1) % cols == 0) LOG_PRINT("]");
    }
    LOG_PRINT("\n");
}

template <typename T>
int Check(const std::vector<T>& got, const std::vector<T>& expect)
{
    int wrong = 0;
    for (size_t i = 0; i < expect.size(); i++) {
        double g = static_cast<double>(got[i]), e = static_cast<double>(expect[i]);
        if (std::fabs(g - e) > 1e-6 * (std::fabs(e) + 1.0)) {
            LOG_PRINT("  result[%zu] = %g, expected %g\n", i, g, e);
            wrong++;
        }
    }
    LOG_PRINT("  %s\n", wrong ? "WRONG" : "ok");
    return wrong;
}

uint16_t FloatToHalf(float f)  // normal range, round to nearest even
{
    uint32_t x;
    std::memcpy(&x, &f, sizeof(x));
    uint32_t sign = (x >> 16) & 0x8000u;
    if ((x & 0x7FFFFFFFu) == 0) return static_cast<uint16_t>(sign);
    uint32_t exp = ((x >> 23) & 0xFFu) - 127 + 15;
    uint32_t man = x & 0x7FFFFFu;
    uint32_t h = (exp << 10) | (man >> 13);
    uint32_t rem = man & 0x1FFFu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) h++;
    return static_cast<uint16_t>(sign | h);
}

int BroadcastExample(aclrtStream stream)
{
    LOG_PRINT("broadcast: (3,1) + (1,4) -> (3,4)\n");
    std::vector<float> selfHost = {1, 2, 3};
    std::vector<float> otherHost = {10, 20, 30, 40};
    std::vector<float> outHost(12, 0);
    DeviceTensor self, other, out;
    CHECK_RET(CreateAclTensor(selfHost, {3, 1}, aclDataType::ACL_FLOAT, &self) == 0, return 1);
    CHECK_RET(CreateAclTensor(otherHost, {1, 4}, aclDataType::ACL_FLOAT, &other) == 0, return 1);
    CHECK_RET(CreateAclTensor(outHost, {3, 4}, aclDataType::ACL_FLOAT, &out) == 0, return 1);
    float alphaValue = 1.0f;
    aclScalar* alpha = aclCreateScalar(&alphaValue, aclDataType::ACL_FLOAT);
    CHECK_RET(alpha != nullptr, return 1);
    int ret = RunAdd(self.tensor, other.tensor, alpha, out.tensor, stream);
    aclDestroyScalar(alpha);
    CHECK_RET(ret == 0, return 1);

    auto result = out.Read<float>();
    Print("self ", selfHost, 1);
    Print("other", otherHost, 4);
    Print("out  ", result, 4);
    std::vector<float> expect;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++) expect.push_back(selfHost[i] + otherHost[j]);
    return Check(result, expect);
}

int StridedViewExample(aclrtStream stream)
{
    LOG_PRINT("non-contiguous view: columns 1,3,5 of a 4x6 buffer (strides (6,2), offset 1), alpha = -1\n");
    std::vector<float> buffer(24);
    for (size_t i = 0; i < buffer.size(); i++) buffer[i] = static_cast<float>(i);
    std::vector<float> otherHost(12, 100.0f);
    std::vector<float> outHost(12, 0);
    DeviceTensor self, other, out;
    CHECK_RET(CreateAclTensor(buffer, {4, 6}, {4, 3}, {6, 2}, 1, aclDataType::ACL_FLOAT, &self) == 0, return 1);
    CHECK_RET(CreateAclTensor(otherHost, {4, 3}, aclDataType::ACL_FLOAT, &other) == 0, return 1);
    CHECK_RET(CreateAclTensor(outHost, {4, 3}, aclDataType::ACL_FLOAT, &out) == 0, return 1);
    float alphaValue = -1.0f;
    aclScalar* alpha = aclCreateScalar(&alphaValue, aclDataType::ACL_FLOAT);
    CHECK_RET(alpha != nullptr, return 1);
    int ret = RunAdd(self.tensor, other.tensor, alpha, out.tensor, stream);
    aclDestroyScalar(alpha);
    CHECK_RET(ret == 0, return 1);

    auto result = out.Read<float>();
    std::vector<float> view, expect;
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 3; j++) view.push_back(buffer[1 + i * 6 + j * 2]);
    for (size_t k = 0; k < view.size(); k++) expect.push_back(view[k] + alphaValue * otherHost[k]);
    Print("buffer", buffer, 6);
    Print("self  ", view, 3);
    Print("out   ", result, 3);
    return Check(result, expect);
}

int MixedDtypeExample(aclrtStream stream)
{
    int wrong = 0;
    {
        LOG_PRINT("mixed dtypes: f16 + f32 -> f32\n");
        std::vector<float> selfValues = {0.5f, -1.5f, 2048.0f, 0.125f};
        std::vector<uint16_t> selfHost;
        for (float v : selfValues) selfHost.push_back(FloatToHalf(v));
        std::vector<float> otherHost = {0.25f, 0.25f, 0.5f, 1e-3f};
        std::vector<float> outHost(4, 0);
        DeviceTensor self, other, out;
        CHECK_RET(CreateAclTensor(selfHost, {4}, aclDataType::ACL_FLOAT16, &self) == 0, return 1);
        CHECK_RET(CreateAclTensor(otherHost, {4}, aclDataType::ACL_FLOAT, &other) == 0, return 1);
        CHECK_RET(CreateAclTensor(outHost, {4}, aclDataType::ACL_FLOAT, &out) == 0, return 1);
        float alphaValue = 1.0f;
        aclScalar* alpha = aclCreateScalar(&alphaValue, aclDataType::ACL_FLOAT);
        CHECK_RET(alpha != nullptr, return 1);
        int ret = RunAdd(self.tensor, other.tensor, alpha, out.tensor, stream);
        aclDestroyScalar(alpha);
        CHECK_RET(ret == 0, return 1);
        auto result = out.Read<float>();
        std::vector<float> expect;
        for (size_t i = 0; i < 4; i++) expect.push_back(selfValues[i] + otherHost[i]);
        Print("self (f16) ", selfValues, 4);
        Print("other (f32)", otherHost, 4);
        Print("out (f32)  ", result, 4);
        wrong += Check(result, expect);
    }
    {
        LOG_PRINT("mixed dtypes: s8 + u8 -> s16\n");
        std::vector<int8_t> selfHost = {-128, -1, 100, 127};
        std::vector<uint8_t> otherHost = {255, 1, 200, 255};
        std::vector<int16_t> outHost(4, 0);
        DeviceTensor self, other, out;
        CHECK_RET(CreateAclTensor(selfHost, {4}, aclDataType::ACL_INT8, &self) == 0, return 1);
        CHECK_RET(CreateAclTensor(otherHost, {4}, aclDataType::ACL_UINT8, &other) == 0, return 1);
        CHECK_RET(CreateAclTensor(outHost, {4}, aclDataType::ACL_INT16, &out) == 0, return 1);
        int32_t alphaValue = 1;  // integer inputs need an integer alpha
        aclScalar* alpha = aclCreateScalar(&alphaValue, aclDataType::ACL_INT32);
        CHECK_RET(alpha != nullptr, return 1);
        int ret = RunAdd(self.tensor, other.tensor, alpha, out.tensor, stream);
        aclDestroyScalar(alpha);
        CHECK_RET(ret == 0, return 1);
        auto result = out.Read<int16_t>();
        std::vector<int16_t> expect;
        for (size_t i = 0; i < 4; i++) expect.push_back(static_cast<int16_t>(selfHost[i] + otherHost[i]));
        Print("self (s8) ", selfHost, 4);
        Print("other (u8)", otherHost, 4);
        Print("out (s16) ", result, 4);
        wrong += Check(result, expect);
    }
    return wrong;
}

}  // namespace

int main()
{
    int32_t deviceId = 0;
    aclrtStream stream = nullptr;
    auto ret = aclInit(nullptr);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclInit failed. ERROR: %d\n", ret); return 1);
    ret = aclrtSetDevice(deviceId);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSetDevice failed. ERROR: %d\n", ret); return 1);
    ret = aclrtCreateStream(&stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtCreateStream failed. ERROR: %d\n", ret); return 1);

    int wrong = 0;
    wrong += BroadcastExample(stream);
    wrong += StridedViewExample(stream);
    wrong += MixedDtypeExample(stream);

    aclrtDestroyStream(stream);
    aclrtResetDevice(deviceId);
    aclFinalize();
    LOG_PRINT("%s\n", wrong ? "FAILED" : "all results right");
    return wrong ? 1 : 0;
}
