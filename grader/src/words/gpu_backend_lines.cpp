#include "words/gpu_backend_lines.h"

#include <fmt/format.h>

#include "words/verdict_preambles.h"

namespace sg {
namespace {

std::string gib(double bytes) { return fmt::format("{:.1f} GiB", bytes / (1024.0 * 1024 * 1024)); }

std::string dims(int m, int k, int n) {
  return std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n);
}

std::string hold_seconds(double s) { return fmt::format("{:.2f} s", s); }

const char* const kHungBesideOthers = " hung beside other gradings: run again with the GPU to itself";

}  // namespace

std::string gpu_device_name(const std::string& name, const std::string& arch) { return name + " (" + arch + ")"; }

std::string gpu_not_started_name(const std::string& arch) {
  return "a GPU for " + arch + " (not started: nothing was built)";
}

std::string no_usable_gpu(const std::string& why) { return "--backend gpu: no usable GPU (" + why + ")"; }

std::string nvcc_not_found() { return "--backend gpu: nvcc not found (PATH, /usr/local/cuda/bin)"; }

std::string device_call_failed(const char* call, const std::string& error) { return std::string(call) + ": " + error; }

std::string no_cuda_device() { return "no CUDA device"; }

std::string built_without_cuda() { return "built without CUDA (SG_NO_CUDA)"; }

std::string cuda_call_failed(const char* call, const std::string& name, const std::string& description) {
  return std::string(call) + " failed: " + name + " (" + description + ")";
}

std::string cublas_call_failed(const char* call, int status) {
  return std::string(call) + " failed: cuBLAS status " + std::to_string(status);
}

std::string cublas_not_loaded(const std::string& library, const std::string& why) {
  return "cannot load cuBLAS (" + library + "), which the GPU backend's oracle uses: " + why +
         "; install the CUDA Toolkit's cuBLAS, or grade with --backend cpu";
}

std::string gpu_memory_short(double need_bytes, double free_bytes) {
  return not_run("the case needs about " + gib(need_bytes) + " of GPU memory and the GPU has " + gib(free_bytes) +
                 " free");
}

std::string hold_taken_log_line(HoldKind hold, double waited_s) {
  const char* taken = "has the GPU shared";
  switch (hold) {
    case HoldKind::GpuShared: break;
    case HoldKind::GpuExclusive: taken = "has the GPU to itself"; break;
    case HoldKind::Profiler: taken = "ncu has the profiler"; break;
  }
  return taken + std::string(" after waiting ") + hold_seconds(waited_s);
}

std::string hold_given_back_log_line(HoldKind hold, double held_s) {
  const char* given_back = hold == HoldKind::Profiler    ? "ncu gives the profiler back"
                           : hold == HoldKind::GpuShared ? "gives the GPU (shared) back"
                                                         : "gives the GPU back";
  return given_back + std::string(" after ") + hold_seconds(held_s);
}

std::string building_again_log_line(const std::string& arch, const std::string& asked) {
  return "building again for " + arch + " (not " + asked + ")";
}

std::string gpu_sanitizer_log_line(std::size_t shapes, const std::string& race_shape) {
  return "sanitizer memcheck (" + std::to_string(shapes) + " shapes) and racecheck (" + race_shape + ")";
}

std::string sanitizer_hung_log_line(const std::string& tool) {
  return "sanitizer " + tool + kHungBesideOthers;
}

std::string ncu_hung_log_line() { return std::string("ncu") + kHungBesideOthers; }

std::string ncu_loads_log_line(int m, int k, int n) { return "ncu: global loads at " + dims(m, k, n); }

std::string counters_unread_log_line(const std::string& why) {
  return "structure: the GPU's counters could not be read (" + why + "): ncu counts instead";
}

std::string counters_loads_log_line(int m, int k, int n) {
  return fmt::format("structure: global loads at {}x{}x{} (the GPU's counters)", m, k, n);
}

std::string counter_opened_log_line(double prepared_s, double enabled_s) {
  return fmt::format("load counter opened in {:f} s (prepared before the hold in {:f} s)", enabled_s, prepared_s);
}

std::string counter_samples_lost() { return "the GPU's sample buffer overflowed"; }
std::string counter_not_started() { return "the counter was not started"; }
std::string judge_context_kept_log_line() {
  return "the judge's CUDA context and oracle: kept from this worker's last grading";
}
std::string counter_not_built() { return "this grader was built without CUPTI's PM sampling"; }

}  // namespace sg
