// The GPU backend's own words (backends/gpu/ decides when): its device as
// reports name it, why there is no usable GPU or a case does not fit in its
// memory, a failed call of the judge's own CUDA work, and its lines in the
// grade log. Its build's sentences are in build_report, its sanitizer
// check's in sanitizer_report, why a reuse was not counted in check_report.
#pragma once
#include <cstddef>
#include <string>

namespace sg {

// "NVIDIA H200 (sm_90)"; before CUDA started: "a GPU for sm_90 (not started: nothing was built)".
std::string gpu_device_name(const std::string& name, const std::string& arch);
std::string gpu_not_started_name(const std::string& arch);

// `--backend gpu` where no GPU can be used (`why`: one of the reasons below).
std::string no_usable_gpu(const std::string& why);
// `--backend gpu` where no nvcc was found.
std::string nvcc_not_found();
// Why describe_device found no GPU: a CUDA call failed (`call`, and CUDA's
// own words for its error), there is none, or the grader has no CUDA.
std::string device_call_failed(const char* call, const std::string& error);
std::string no_cuda_device();
std::string built_without_cuda();

// A CUDA or cuBLAS call of the judge's own (the oracle, the roofline) failed:
// `name` and `description` of the error as CUDA says them, or cuBLAS's status.
std::string cuda_call_failed(const char* call, const std::string& name, const std::string& description);
std::string cublas_call_failed(const char* call, int status);
// cuBLAS (loaded when the oracle starts) could not be: `why` is the loader's message.
std::string cublas_not_loaded(const std::string& library, const std::string& why);

// A case whose runner and oracle would need about `need_bytes` of GPU memory
// where `free_bytes` are free: it is not run.
std::string gpu_memory_short(double need_bytes, double free_bytes);

// The grade log's lines. A hold on the GPU (shared, or to itself) or on
// its profiler (ncu's) was taken after waiting `waited_s`; was given back
// after `held_s`.
enum class HoldKind { GpuShared, GpuExclusive, Profiler };
std::string hold_taken_log_line(HoldKind hold, double waited_s);
std::string hold_given_back_log_line(HoldKind hold, double held_s);
// The submission is compiled again for the GPU's
// `arch` (it was compiled for `asked`, the caller's --device-arch).
std::string building_again_log_line(const std::string& arch, const std::string& asked);
// The sanitizer check starts: memcheck over `shapes` shapes, racecheck at `race_shape`.
std::string gpu_sanitizer_log_line(std::size_t shapes, const std::string& race_shape);
// A sanitizer `tool` (memcheck, racecheck), or ncu, hung while other
// gradings shared the GPU: it runs again with the GPU to itself.
std::string sanitizer_hung_log_line(const std::string& tool);
std::string ncu_hung_log_line();
// ncu counts the global loads at m x k x n.
std::string ncu_loads_log_line(int m, int k, int n);
// The GPU's counters count a launch of the structure check's own at m x k x n.
std::string counters_loads_log_line(int m, int k, int n);
// The load counter was enabled (inside the exclusive hold) in `enabled_s`,
// its host-side set-up made before the hold in `prepared_s`.
std::string counter_opened_log_line(double prepared_s, double enabled_s);
// Why the load counter (backends/gpu/pm_loads.cpp) counted nothing: samples
// were lost; a window was closed that was never opened; the grader was built
// without CUPTI's PM sampling.
std::string counter_samples_lost();
std::string counter_not_started();
// grade.log: a worker's grading uses the judge's CUDA context an earlier grading of the worker started.
std::string judge_context_kept_log_line();
std::string counter_not_built();
// The GPU's counters could not count the structure check's loads (`why`): ncu counts instead.
std::string counters_unread_log_line(const std::string& why);

}  // namespace sg
