// The GPU backend: nvcc builds the submission's object and links it with the
// runner (backends/gpu/runner_main.cu); the judge's oracle is cuBLAS DGEMM on
// the same GPU; compute-sanitizer runs the sanitizer check; performance is
// timed; a GPU shared by a batch is held through a lock file.
#pragma once
#include <memory>
#include <optional>

#include "backends/backend.h"
#include "backends/gpu/gpu_oracle.h"

namespace sg {

// `known`: the device's description when the caller already probed it; with
// setup.device_arch given instead, CUDA starts beside the first compile.
std::unique_ptr<Backend> make_gpu_backend(const BackendSetup& setup, std::optional<DeviceDescription> known);

}  // namespace sg
