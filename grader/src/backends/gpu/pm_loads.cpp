#include "backends/gpu/pm_loads.h"

#include "words/gpu_backend_lines.h"

// SG_PM_SAMPLING_LINKED: the Makefile links libcupti (found with its header).
#if !defined(SG_NO_CUDA) && defined(SG_PM_SAMPLING_LINKED)
#define SG_PM_SAMPLING 1
#include <cuda_runtime_api.h>
#include <cupti_pmsampling.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_target.h>
#endif

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace sg {

#ifdef SG_PM_SAMPLING
namespace {

// LSU instructions that read local or global memory, per SM: the PM-sampling
// metric closest to ncu's smsp__inst_executed_op_global_ld (which PM sampling
// does not offer on GH100); local loads are register spills, rare in SGEMM.
constexpr const char* kLoadMetric = "sm__inst_executed_pipe_lsu_mem_lg_cmd_read.sum";
// A sample every 100 us, decoded every 20 ms on a thread of the counter's
// own (a window of any length fits; the image holds 1024 samples, ~19 MB).
constexpr std::uint64_t kIntervalNs = 100 * 1000;
constexpr std::uint32_t kMaxSamples = 1024;
constexpr auto kDrainEvery = std::chrono::milliseconds(20);
constexpr std::size_t kHardwareBufferBytes = std::size_t(64) << 20;

// A CUPTI parameter block: zeroed, with its size (the version CUPTI reads).
template <typename P>
P params(std::size_t size) {
  P p{};
  p.structSize = size;
  return p;
}

std::string cupti_error(const char* call, CUptiResult e) {
  const char* text = nullptr;
  cuptiGetResultString(e, &text);
  return std::string(call) + ": " + (text ? text : "CUPTI error " + std::to_string(static_cast<int>(e)));
}

}  // namespace

struct PmLoadCounter::State {
  int device = 0;
  std::string chip;
  bool host_deferred = false;  // the host would not configure without the availability image: enable() does
  bool profiler_initialised = false;
  CUpti_Profiler_Host_Object* host = nullptr;
  CUpti_PmSampling_Object* pm = nullptr;
  std::vector<std::uint8_t> availability, config, data;
  bool started = false;
  // The window's sum so far, and what went wrong in it (empty: nothing).
  double total = 0;
  std::string failed;
  std::mutex decoding;  // one decode at a time: the drain thread's or stop()'s
  // The drain thread sleeps between decodes until stop_draining() wakes it:
  // a window closes at once, not up to kDrainEvery later.
  std::mutex wake_mutex;
  std::condition_variable wake;
  bool stopping = false;  // under wake_mutex
  std::thread drain_thread;

  void drain_until_stopped() {
    std::unique_lock<std::mutex> lock(wake_mutex);
    while (!wake.wait_for(lock, kDrainEvery, [this] { return stopping; })) {
      lock.unlock();
      drain();
      lock.lock();
    }
  }
  void stop_draining() {
    {
      const std::lock_guard<std::mutex> lock(wake_mutex);
      stopping = true;
    }
    wake.notify_all();
    if (drain_thread.joinable()) drain_thread.join();
  }

  bool reset_image(std::string& why) {
    auto init = params<CUpti_PmSampling_CounterDataImage_Initialize_Params>(CUpti_PmSampling_CounterDataImage_Initialize_Params_STRUCT_SIZE);
    init.pPmSamplingObject = pm;
    init.counterDataSize = data.size();
    init.pCounterData = data.data();
    if (const CUptiResult e = cuptiPmSamplingCounterDataImageInitialize(&init); e != CUPTI_SUCCESS) {
      why = cupti_error("cuptiPmSamplingCounterDataImageInitialize", e);
      return false;
    }
    return true;
  }

  // Moves every record the hardware buffer holds into `total`, through the
  // image as often as it fills. Holds `decoding`.
  void drain() {
    const std::lock_guard<std::mutex> one(decoding);
    if (!failed.empty()) return;
    for (;;) {
      auto decode = params<CUpti_PmSampling_DecodeData_Params>(CUpti_PmSampling_DecodeData_Params_STRUCT_SIZE);
      decode.pPmSamplingObject = pm;
      decode.pCounterDataImage = data.data();
      decode.counterDataImageSize = data.size();
      if (const CUptiResult e = cuptiPmSamplingDecodeData(&decode); e != CUPTI_SUCCESS) {
        failed = cupti_error("cuptiPmSamplingDecodeData", e);
        return;
      }
      // A lost record would hide loads: then there is no count at all.
      if (decode.overflow) {
        failed = counter_samples_lost();
        return;
      }
      auto info = params<CUpti_PmSampling_GetCounterDataInfo_Params>(CUpti_PmSampling_GetCounterDataInfo_Params_STRUCT_SIZE);
      info.pCounterDataImage = data.data();
      info.counterDataImageSize = data.size();
      if (const CUptiResult e = cuptiPmSamplingGetCounterDataInfo(&info); e != CUPTI_SUCCESS) {
        failed = cupti_error("cuptiPmSamplingGetCounterDataInfo", e);
        return;
      }
      const char* metrics[] = {kLoadMetric};
      for (std::size_t i = 0; i < info.numCompletedSamples; ++i) {
        double value = 0;
        auto eval = params<CUpti_Profiler_Host_EvaluateToGpuValues_Params>(CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE);
        eval.pHostObject = host;
        eval.pCounterDataImage = data.data();
        eval.counterDataImageSize = data.size();
        eval.rangeIndex = i;
        eval.ppMetricNames = metrics;
        eval.numMetrics = 1;
        eval.pMetricValues = &value;
        if (const CUptiResult e = cuptiProfilerHostEvaluateToGpuValues(&eval); e != CUPTI_SUCCESS) {
          failed = cupti_error("cuptiProfilerHostEvaluateToGpuValues", e);
          return;
        }
        total += value;
      }
      if (!reset_image(failed)) return;
      if (decode.decodeStopReason != CUPTI_PM_SAMPLING_DECODE_STOP_REASON_COUNTER_DATA_FULL) return;
    }
  }

  ~State() {
    stop_draining();
    if (started) {
      auto p = params<CUpti_PmSampling_Stop_Params>(CUpti_PmSampling_Stop_Params_STRUCT_SIZE);
      p.pPmSamplingObject = pm;
      cuptiPmSamplingStop(&p);
    }
    if (pm) {
      auto p = params<CUpti_PmSampling_Disable_Params>(CUpti_PmSampling_Disable_Params_STRUCT_SIZE);
      p.pPmSamplingObject = pm;
      cuptiPmSamplingDisable(&p);
    }
    if (host) {
      auto p = params<CUpti_Profiler_Host_Deinitialize_Params>(CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE);
      p.pHostObject = host;
      cuptiProfilerHostDeinitialize(&p);
    }
    if (profiler_initialised) {
      auto p = params<CUpti_Profiler_DeInitialize_Params>(CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE);
      cuptiProfilerDeInitialize(&p);
    }
  }
};

bool PmLoadCounter::built() { return true; }

#define SG_CUPTI(call)                                      \
  if (const CUptiResult e_ = (call); e_ != CUPTI_SUCCESS) { \
    why = cupti_error(#call, e_);                           \
    return false;                                           \
  }

namespace {

// The host-side configuration of the load metric: the configuration image
// SetConfig takes, from the chip's name and, where given, the device's
// counter availability image.
bool configure_host(PmLoadCounter::State& s, const char* chip, const std::uint8_t* availability, std::string& why) {
  auto host = params<CUpti_Profiler_Host_Initialize_Params>(CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE);
  host.profilerType = CUPTI_PROFILER_TYPE_PM_SAMPLING;
  host.pChipName = chip;
  host.pCounterAvailabilityImage = availability;
  SG_CUPTI(cuptiProfilerHostInitialize(&host));
  s.host = host.pHostObject;
  const char* metrics[] = {kLoadMetric};
  auto add = params<CUpti_Profiler_Host_ConfigAddMetrics_Params>(CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE);
  add.pHostObject = s.host;
  add.ppMetricNames = metrics;
  add.numMetrics = 1;
  SG_CUPTI(cuptiProfilerHostConfigAddMetrics(&add));
  auto size = params<CUpti_Profiler_Host_GetConfigImageSize_Params>(CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE);
  size.pHostObject = s.host;
  SG_CUPTI(cuptiProfilerHostGetConfigImageSize(&size));
  s.config.resize(size.configImageSize);
  auto image = params<CUpti_Profiler_Host_GetConfigImage_Params>(CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE);
  image.pHostObject = s.host;
  image.configImageSize = s.config.size();
  image.pConfigImage = s.config.data();
  SG_CUPTI(cuptiProfilerHostGetConfigImage(&image));
  return true;
}

}  // namespace

std::unique_ptr<PmLoadCounter> PmLoadCounter::prepare(std::string& why) {
  const auto t0 = std::chrono::steady_clock::now();
  int device = 0;
  if (const cudaError_t e = cudaGetDevice(&device); e != cudaSuccess) {
    why = std::string("cudaGetDevice: ") + cudaGetErrorString(e);
    return nullptr;
  }
  if (const cudaError_t e = cudaFree(nullptr); e != cudaSuccess) {  // the device's context, made once
    why = std::string("cudaFree: ") + cudaGetErrorString(e);
    return nullptr;
  }
  auto s = std::make_unique<State>();
  s->device = device;
  const bool ready = [&]() -> bool {
    auto init = params<CUpti_Profiler_Initialize_Params>(CUpti_Profiler_Initialize_Params_STRUCT_SIZE);
    SG_CUPTI(cuptiProfilerInitialize(&init));
    s->profiler_initialised = true;
    auto chip = params<CUpti_Device_GetChipName_Params>(CUpti_Device_GetChipName_Params_STRUCT_SIZE);
    chip.deviceIndex = static_cast<std::size_t>(device);
    SG_CUPTI(cuptiDeviceGetChipName(&chip));
    s->chip = chip.pChipName;
    // Without the device's availability image (which a chip of the toolkit's
    // own time does not need): asking for it touches the device's counters.
    // Where the host will not configure without it, enable() does it all.
    std::string ignored;
    if (!configure_host(*s, s->chip.c_str(), nullptr, ignored)) s->host_deferred = true;
    return true;
  }();
  if (!ready) return nullptr;
  std::unique_ptr<PmLoadCounter> counter(new PmLoadCounter(std::move(s)));
  counter->prepare_s_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return counter;
}

bool PmLoadCounter::enable(std::string& why) {
  const auto t0 = std::chrono::steady_clock::now();
  State& s = *s_;
  const std::size_t device = static_cast<std::size_t>(s.device);
  if (s.host_deferred) {
    if (s.host) {
      auto p = params<CUpti_Profiler_Host_Deinitialize_Params>(CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE);
      p.pHostObject = s.host;
      cuptiProfilerHostDeinitialize(&p);
      s.host = nullptr;
    }
    auto avail = params<CUpti_PmSampling_GetCounterAvailability_Params>(CUpti_PmSampling_GetCounterAvailability_Params_STRUCT_SIZE);
    avail.deviceIndex = device;
    SG_CUPTI(cuptiPmSamplingGetCounterAvailability(&avail));
    s.availability.resize(avail.counterAvailabilityImageSize);
    avail.pCounterAvailabilityImage = s.availability.data();
    SG_CUPTI(cuptiPmSamplingGetCounterAvailability(&avail));
    if (!configure_host(s, s.chip.c_str(), s.availability.data(), why)) return false;
  }
  auto enable = params<CUpti_PmSampling_Enable_Params>(CUpti_PmSampling_Enable_Params_STRUCT_SIZE);
  enable.deviceIndex = device;
  SG_CUPTI(cuptiPmSamplingEnable(&enable));
  s.pm = enable.pPmSamplingObject;
  auto config = params<CUpti_PmSampling_SetConfig_Params>(CUpti_PmSampling_SetConfig_Params_STRUCT_SIZE);
  config.pPmSamplingObject = s.pm;
  config.configSize = s.config.size();
  config.pConfig = s.config.data();
  config.hardwareBufferSize = kHardwareBufferBytes;
  config.samplingInterval = kIntervalNs;
  config.triggerMode = CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL;
  config.hwBufferAppendMode = CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_OLDEST;
  SG_CUPTI(cuptiPmSamplingSetConfig(&config));
  const char* metrics[] = {kLoadMetric};
  auto data = params<CUpti_PmSampling_GetCounterDataSize_Params>(CUpti_PmSampling_GetCounterDataSize_Params_STRUCT_SIZE);
  data.pPmSamplingObject = s.pm;
  data.pMetricNames = metrics;
  data.numMetrics = 1;
  data.maxSamples = kMaxSamples;
  SG_CUPTI(cuptiPmSamplingGetCounterDataSize(&data));
  s.data.resize(data.counterDataSize);
  enable_s_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return true;
}
#undef SG_CUPTI

bool PmLoadCounter::enabled() const { return s_->pm != nullptr; }

std::unique_ptr<PmLoadCounter> PmLoadCounter::open(std::string& why) {
  std::unique_ptr<PmLoadCounter> counter = prepare(why);
  if (!counter || !counter->enable(why)) return nullptr;
  return counter;
}

bool PmLoadCounter::start(std::string& why) {
  State& s = *s_;
  s.total = 0;
  s.failed.clear();
  if (!s.reset_image(why)) return false;
  auto start = params<CUpti_PmSampling_Start_Params>(CUpti_PmSampling_Start_Params_STRUCT_SIZE);
  start.pPmSamplingObject = s.pm;
  if (const CUptiResult e = cuptiPmSamplingStart(&start); e != CUPTI_SUCCESS) {
    why = cupti_error("cuptiPmSamplingStart", e);
    return false;
  }
  s.started = true;
  {
    const std::lock_guard<std::mutex> lock(s.wake_mutex);
    s.stopping = false;
  }
  s.drain_thread = std::thread([&s] { s.drain_until_stopped(); });
  return true;
}

std::optional<double> PmLoadCounter::stop(std::string& why) {
  State& s = *s_;
  if (!s.started) {
    why = counter_not_started();
    return std::nullopt;
  }
  // Two intervals more, so that the sample holding the window's last work is complete.
  std::this_thread::sleep_for(std::chrono::nanoseconds(2 * kIntervalNs));
  s.stop_draining();
  s.started = false;
  auto stop = params<CUpti_PmSampling_Stop_Params>(CUpti_PmSampling_Stop_Params_STRUCT_SIZE);
  stop.pPmSamplingObject = s.pm;
  if (const CUptiResult e = cuptiPmSamplingStop(&stop); e != CUPTI_SUCCESS) {
    why = cupti_error("cuptiPmSamplingStop", e);
    return std::nullopt;
  }
  s.drain();
  if (!s.failed.empty()) {
    why = s.failed;
    return std::nullopt;
  }
  return s.total;
}

#else  // built without CUPTI's PM sampling

struct PmLoadCounter::State {};

bool PmLoadCounter::built() { return false; }

std::unique_ptr<PmLoadCounter> PmLoadCounter::prepare(std::string& why) {
  why = counter_not_built();
  return nullptr;
}

std::unique_ptr<PmLoadCounter> PmLoadCounter::open(std::string& why) {
  why = counter_not_built();
  return nullptr;
}

bool PmLoadCounter::enable(std::string& why) {
  why = counter_not_built();
  return false;
}

bool PmLoadCounter::enabled() const { return false; }

bool PmLoadCounter::start(std::string& why) {
  why = counter_not_built();
  return false;
}

std::optional<double> PmLoadCounter::stop(std::string& why) {
  why = counter_not_built();
  return std::nullopt;
}

#endif

PmLoadCounter::PmLoadCounter(std::unique_ptr<State> s) : s_(std::move(s)) {}
PmLoadCounter::~PmLoadCounter() = default;

}  // namespace sg
