// Extensions of the CPU backend that the CPU runner (not student code) uses:
// naming buffers for out-of-bounds reports, reporting fatal faults over the
// protocol, and the detail behind the last error.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace cudacpu {

// Exit status of a process whose kernel made an invalid memory access (or
// another fatal fault); the message has been printed to stderr first.
constexpr int kFaultExitCode = 86;

// Gives the device allocation starting at `ptr` a name and an element type for
// messages ("out-of-bounds read of A at index 12 (allocation of 12 floats)"),
// and with `columns` > 0 the row length of a row-major matrix (C[48][17]).
// Returns false when `ptr` is not the start of a device allocation.
bool name_allocation(const void* ptr, const char* name, const char* element_type, std::size_t element_size,
                     std::size_t columns = 0);

// How the launches to come run: each block's threads in ascending order of
// their linear index instead of descending (the race check's second run),
// and the seed of the resident blocks' turns. The same seed gives the same run.
void set_schedule(bool ascending, std::uint64_t seed);

// Global loads the kernels made since the last call, as warp-level
// instructions (a thread's load counts 1/32 in a full warp), and the launches.
struct LoadCount {
  double warp_loads = 0;
  unsigned launches = 0;
};
LoadCount take_load_count();

// The first race between blocks since the last call, e.g. "blocks (3,1) and
// (3,2) both wrote C[48][17] without an atomic", and the racing stores in
// all; empty when there was none.
std::string take_block_race_report(unsigned long long* stores = nullptr);

// A fatal fault as facts, beside its message (which says the same in words):
// the faulting thread's launch and, for an access outside an allocation, what
// the allocation is. 0 and false where there is none (a fault in host code).
struct FaultFacts {
  bool in_kernel = false;  // a kernel's thread faulted
  unsigned block_x = 0, block_y = 0, grid_x = 0, grid_y = 0;  // that thread's launch
  bool out_of_bounds = false;  // an access outside an allocation (before it, past it, in its red zone)
  bool shared_array = false;   // that allocation is a __shared__ array (not dynamic shared memory)
  unsigned long long elements = 0;  // its element count; 0 where it has no element type
};

// Called with the complete message of a fatal fault and its facts right
// before the process exits with kFaultExitCode. Runs inside a signal handler:
// keep it to writes.
using FatalHook = void (*)(const char* message, const FaultFacts& facts, void* user);
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
