#include "backends/registry.h"

#include "backends/cpu/cpu_backend.h"
#include "backends/gpu/gpu_backend.h"
#include "services/submission.h"
#include "words/gpu_backend_lines.h"

namespace sg {

std::unique_ptr<Backend> make_backend(std::optional<BackendKind> requested, const BackendSetup& setup) {
  std::optional<BackendKind> kind = requested;
  std::optional<DeviceDescription> device;
  if (!setup.device_arch.empty() && kind != BackendKind::Cpu) {
    // The caller knows the GPU (grade batch): it is described while the
    // submission compiles for the architecture given.
    kind = BackendKind::Gpu;
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
