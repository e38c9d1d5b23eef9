// Whether a launch's shape is one a GPU accepts: CUDA's limits on the grid,
// the block and dynamic shared memory, checked before any block runs.
#pragma once
#include <cstddef>
#include <string>

#include "cudacpu/launch.h"

namespace cudacpu::detail {

// Empty when the launch shape is valid; else why not, with the error CUDA gives in `err`.
std::string shape_problem(const LaunchShape& s, std::size_t max_dynamic, cudaError_t& err);

}  // namespace cudacpu::detail
