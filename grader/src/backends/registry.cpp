#include "backends/registry.h"

#include <fstream>
#include <regex>

#include "backends/cpu/cpu_backend.h"
#include "backends/gpu/gpu_backend.h"
#include "services/submission.h"
#include "words/gpu_backend_lines.h"

namespace sg {

std::string runner_pieces_arch(const std::string& runner_objects) {
  static const std::regex kOneArchitecture("sm_[0-9]{1,4}a?");
  std::ifstream in(runner_objects + "/arch");
  std::string arch, more;
  if (!(in >> arch) || (in >> more) || !std::regex_match(arch, kOneArchitecture)) return "";
  return arch;
}

std::unique_ptr<Backend> make_backend(std::optional<BackendKind> requested, const BackendSetup& setup) {
  std::optional<BackendKind> kind = requested;
  std::optional<DeviceDescription> device;
  std::string guess;  // the runner pieces' architecture, where no caller said the GPU's
  if (setup.device_arch.empty() && kind != BackendKind::Cpu && !setup.paths->nvcc.empty())
    guess = runner_pieces_arch(setup.paths->runner_objects);
  if (!setup.device_arch.empty() && kind != BackendKind::Cpu) {
    // The caller knows the GPU (grade batch): it is described while the
    // submission compiles for the architecture given.
    kind = BackendKind::Gpu;
  } else if (!guess.empty()) {
    // A single grading on the machine the grader was built on: the
    // submission compiles for the runner pieces' architecture while CUDA
    // describes the GPU (CUDA's start-up alone is a third of a second).
    // Another GPU builds again; with --backend unset and no GPU after all,
    // the grading starts again on the cpu backend (NoGpuAfterAll).
    BackendSetup speculative = setup;
    speculative.device_arch = guess;
    speculative.cpu_if_no_gpu = !kind;
    return make_gpu_backend(speculative, std::nullopt);
  } else if (kind != BackendKind::Cpu) {
    device = describe_device();
    if (!kind) kind = device->present ? BackendKind::Gpu : BackendKind::Cpu;
    if (kind == BackendKind::Gpu && !device->present)
      throw UsageError(no_usable_gpu(device->why_not));
  }
  switch (*kind) {
    case BackendKind::Gpu:
      if (setup.paths->nvcc.empty()) throw UsageError(nvcc_not_found());
      return make_gpu_backend(setup, device);
    case BackendKind::Cpu:
      return make_cpu_backend(setup);
  }
  throw UsageError(std::string("no backend ") + to_string(*kind));
}

}  // namespace sg
