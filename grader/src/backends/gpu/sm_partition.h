// A partition of the GPU's SMs for the runner's checked launches (a CUDA
// green context), used once a submission has crashed its runner.
//
// Why: when a kernel faults, the driver stops every SM the kernel reached, and
// the whole GPU, every other grading on it included, waits while it does, in
// proportion to the SMs it reached (grader/bench/crash_cost.sh, RESULTS.md). A
// submission that crashes on every case does that once per case. The partition shares the
// primary context's memory, so a case checked on it can then be timed on the
// whole GPU without a copy.
//
// The driver API is reached through cudaGetDriverEntryPointByVersion, so the
// runner links no libcuda of its own.
#pragma once
#include <cuda.h>
#include <cuda_runtime.h>

#include <string>

namespace sg::gpu {

class SmPartition {
 public:
  // Call after the primary context exists (cudaFree(nullptr)). Asks for at
  // least `sms` SMs (the driver may round up) and makes the partition current
  // for this thread. On failure the partition stays empty, the whole GPU
  // current, and `why` says which call failed.
  bool create(unsigned sms, std::string& why) {
    if (!load(why)) return false;
    int ordinal = 0;
    if (cudaGetDevice(&ordinal) != cudaSuccess) return fail(why, "cudaGetDevice failed");
    CUdevice dev = 0;
    CUdevResource all{}, part{};
    unsigned groups = 1;
    CUdevResourceDesc desc = nullptr;
    CUgreenCtx green = nullptr;
    if (ctx_get_current_(&primary_) != CUDA_SUCCESS || primary_ == nullptr) return fail(why, "cuCtxGetCurrent failed");
    if (device_get_(&dev, ordinal) != CUDA_SUCCESS) return fail(why, "cuDeviceGet failed");
    if (get_resource_(dev, &all, CU_DEV_RESOURCE_TYPE_SM) != CUDA_SUCCESS) return fail(why, "cuDeviceGetDevResource failed");
    if (sms >= all.sm.smCount) return fail(why, "the device has only " + std::to_string(all.sm.smCount) + " SMs");
    if (split_(&part, &groups, &all, nullptr, 0, sms) != CUDA_SUCCESS || groups != 1)
      return fail(why, "cuDevSmResourceSplitByCount failed");
    if (generate_desc_(&desc, &part, 1) != CUDA_SUCCESS) return fail(why, "cuDevResourceGenerateDesc failed");
    if (green_create_(&green, desc, dev, CU_GREEN_CTX_DEFAULT_STREAM) != CUDA_SUCCESS)
      return fail(why, "cuGreenCtxCreate failed");
    if (from_green_(&partition_, green) != CUDA_SUCCESS) return fail(why, "cuCtxFromGreenCtx failed");
    if (set_current_(partition_) != CUDA_SUCCESS) return fail(why, "cuCtxSetCurrent (the partition) failed");
    sms_ = part.sm.smCount;
    return true;
  }

  // SMs in the partition (0 when there is none).
  unsigned sms() const { return partition_ ? sms_ : 0; }

  // Makes the partition (or the whole GPU) current for this thread. Both
  // share memory; the caller synchronises before it switches.
  bool enter() const { return !partition_ || set_current_(partition_) == CUDA_SUCCESS; }
  bool leave() const { return !partition_ || set_current_(primary_) == CUDA_SUCCESS; }

 private:
  template <typename Fn>
  static bool entry(const char* symbol, Fn& fn, std::string& why) {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult found{};
    // 12040: the CUDA version that brought green contexts.
    if (cudaGetDriverEntryPointByVersion(symbol, &p, 12040, cudaEnableDefault, &found) == cudaSuccess &&
        found == cudaDriverEntryPointSuccess && p != nullptr) {
      fn = reinterpret_cast<Fn>(p);
      return true;
    }
    why = std::string("the driver has no ") + symbol + " (green contexts need CUDA 12.4)";
    return false;
  }
  bool load(std::string& why) {
    return entry("cuCtxGetCurrent", ctx_get_current_, why) && entry("cuCtxSetCurrent", set_current_, why) &&
           entry("cuDeviceGet", device_get_, why) && entry("cuDeviceGetDevResource", get_resource_, why) &&
           entry("cuDevSmResourceSplitByCount", split_, why) &&
           entry("cuDevResourceGenerateDesc", generate_desc_, why) && entry("cuGreenCtxCreate", green_create_, why) &&
           entry("cuCtxFromGreenCtx", from_green_, why);
  }
  bool fail(std::string& why, const std::string& what) {
    why = what;
    partition_ = nullptr;
    return false;
  }

  decltype(&cuCtxGetCurrent) ctx_get_current_ = nullptr;
  decltype(&cuCtxSetCurrent) set_current_ = nullptr;
  decltype(&cuDeviceGet) device_get_ = nullptr;
  decltype(&cuDeviceGetDevResource) get_resource_ = nullptr;
  decltype(&cuDevSmResourceSplitByCount) split_ = nullptr;
  decltype(&cuDevResourceGenerateDesc) generate_desc_ = nullptr;
  decltype(&cuGreenCtxCreate) green_create_ = nullptr;
  decltype(&cuCtxFromGreenCtx) from_green_ = nullptr;
  CUcontext primary_ = nullptr, partition_ = nullptr;
  unsigned sms_ = 0;
};

}  // namespace sg::gpu
