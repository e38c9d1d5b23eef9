// Which GPUs a batch uses and what each grade process sees of them.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace sg::batch {

// Visible CUDA devices (0 when there is no driver or no device).
int visible_gpu_count();

// The device's architecture as nvcc names it ("sm_90"), or empty when it
// cannot be read. The batch hands it to each grade process, which then
// compiles while its own CUDA start-up runs beside the compiler.
std::string gpu_arch(int index);

// The CUDA_VISIBLE_DEVICES value that shows a child only GPU `index` of the
// ones this process sees: this process's own CUDA_VISIBLE_DEVICES entry at that
// position when it has one (Slurm sets it), else the index itself.
std::string child_visible_devices(int index, const char* parent_value);

// The GPUs to use: `requested` checked against `visible`, or all of them.
// Empty `error` on success; otherwise it names the bad index.
std::vector<int> choose_gpus(const std::optional<std::vector<int>>& requested, int visible,
                             std::string& error);

}  // namespace sg::batch
