// Extensions of the CPU backend that the CPU runner (not student code) uses:
// naming buffers for out-of-bounds reports, reporting fatal faults over the
// protocol, and the detail behind the last error.
#pragma once
#include <cstddef>
#include <string>

namespace cudacpu {

// Exit status of a process whose kernel made an invalid memory access (or
// another fatal fault); the message has been printed to stderr first.
constexpr int kFaultExitCode = 86;

// Gives the device allocation starting at `ptr` a name and an element type for
// messages ("out-of-bounds read of A at index 12 (allocation of 12 floats)").
// Returns false when `ptr` is not the start of a device allocation.
bool name_allocation(const void* ptr, const char* name, const char* element_type, std::size_t element_size);

// Called with the complete message of a fatal fault right before the process
// exits with kFaultExitCode. Runs inside a signal handler: keep it to writes.
using FatalHook = void (*)(const char* message, void* user);
void set_fatal_hook(FatalHook hook, void* user);

// Why the last failing call failed, in words (empty when nothing failed):
// e.g. "grid (0, 1, 1) has a zero dimension" or the barrier that was reached
// by only part of a block. Not cleared by cudaGetLastError.
const char* last_error_detail();

// The first out-of-bounds access that kernels made just past (or before) a
// device allocation since the last call, e.g. "out-of-bounds read of B at
// index 740 (allocation of 740 floats) by thread (0,5) of block (0,0) (blocks of 16x16 threads)"; empty
// when there was none. Such accesses do not stop a kernel (reads give garbage,
// writes are lost), as on a GPU; compute-sanitizer's memcheck would name them.
std::string take_out_of_bounds_report();

}  // namespace cudacpu
