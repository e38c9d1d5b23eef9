// The CPU backend: the submission's source is rewritten and compiled by the
// host compiler against the CUDA-on-CPU layer (grader/cudacpu/); the
// oracle is computed on the host; the sanitizer check is the layer's own (red
// zones and both thread orders); performance is not measured. Where nvcc
// exists, the static checks still read an nvcc object of the same source.
#pragma once
#include <memory>

#include "backends/backend.h"

namespace sg {

std::unique_ptr<Backend> make_cpu_backend(const BackendSetup& setup);

}  // namespace sg
