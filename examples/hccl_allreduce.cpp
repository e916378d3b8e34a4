// HcclAllReduce the way CANN's HCCL samples are written: one process, one thread per device;
// rank 0's root info shared by all threads; each thread sets its device, joins the
// communicator, all-reduces on its own stream and prints what it got. Every rank's input is
// 0, 1, 2, ..., so every rank prints devCount * i.
//
// Build against a toolkit prefix (target/release/install-toolkit --prefix P):
//   source P/set_env.sh
//   g++ -std=c++17 hccl_allreduce.cpp -I"$ASCEND_HOME_PATH/include" -L"$ASCEND_HOME_PATH/lib64" -lhccl -lascendcl -lpthread
//   ACLNN_CPU_DEVICE_COUNT=8 ./a.out
#include <cstdio>
#include <thread>
#include <vector>

#include "acl/acl.h"
#include "hccl/hccl.h"
#include "hccl/hccl_types.h"

#define ACL_OK(call)                                                               \
    do {                                                                           \
        int r_ = (call);                                                           \
        if (r_ != ACL_SUCCESS) {                                                   \
            std::printf("%s failed: %d (%s)\n", #call, r_, aclGetRecentErrMsg()); \
            return 1;                                                              \
        }                                                                          \
    } while (0)

#define HCCL_OK(call)                                                                       \
    do {                                                                                    \
        HcclResult r_ = (call);                                                             \
        if (r_ != HCCL_SUCCESS) {                                                           \
            std::printf("%s failed: %s (%s)\n", #call, HcclGetErrorString(r_), aclGetRecentErrMsg()); \
            return 1;                                                                       \
        }                                                                                   \
    } while (0)

namespace {

constexpr uint64_t kCount = 8;

int RunRank(const HcclRootInfo* root, uint32_t rank, uint32_t ranks, std::vector<float>* out)
{
    ACL_OK(aclrtSetDevice(static_cast<int32_t>(rank)));
    HcclComm comm = nullptr;
    HCCL_OK(HcclCommInitRootInfo(ranks, root, rank, &comm));
    aclrtStream stream = nullptr;
    ACL_OK(aclrtCreateStream(&stream));

    const size_t bytes = kCount * sizeof(float);
    void* send = nullptr;
    void* recv = nullptr;
    ACL_OK(aclrtMalloc(&send, bytes, ACL_MEM_MALLOC_HUGE_ONLY));
    ACL_OK(aclrtMalloc(&recv, bytes, ACL_MEM_MALLOC_HUGE_ONLY));
    std::vector<float> in(kCount);
    for (uint64_t i = 0; i < kCount; i++) in[i] = static_cast<float>(i);
    ACL_OK(aclrtMemcpy(send, bytes, in.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE));

    HCCL_OK(HcclAllReduce(send, recv, kCount, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm, stream));
    ACL_OK(aclrtSynchronizeStream(stream));

    out->resize(kCount);
    ACL_OK(aclrtMemcpy(out->data(), bytes, recv, bytes, ACL_MEMCPY_DEVICE_TO_HOST));
    HCCL_OK(HcclCommDestroy(comm));
    ACL_OK(aclrtFree(send));
    ACL_OK(aclrtFree(recv));
    ACL_OK(aclrtDestroyStream(stream));
    return 0;
}

}  // namespace

int main()
{
    ACL_OK(aclInit(nullptr));
    uint32_t devices = 0;
    ACL_OK(aclrtGetDeviceCount(&devices));
    std::printf("Found %u NPU device(s) available\n", devices);
    ACL_OK(aclrtSetDevice(0));
    HcclRootInfo root;
    HCCL_OK(HcclGetRootInfo(&root));

    std::vector<std::vector<float>> results(devices);
    std::vector<int> status(devices, 0);
    std::vector<std::thread> threads;
    for (uint32_t r = 0; r < devices; r++) {
        threads.emplace_back([&, r] { status[r] = RunRank(&root, r, devices, &results[r]); });
    }
    for (auto& t : threads) t.join();

    int bad = 0;
    for (uint32_t r = 0; r < devices; r++) {
        if (status[r] != 0) return 1;
        std::printf("rankId: %u, output: [", r);
        for (uint64_t i = 0; i < kCount; i++) {
            std::printf(" %g", results[r][i]);
            bad += results[r][i] != static_cast<float>(devices * i);
        }
        std::printf(" ]\n");
    }
    ACL_OK(aclFinalize());
    return bad == 0 ? 0 : 1;
}
