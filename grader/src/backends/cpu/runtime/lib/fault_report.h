// Turns a fault inside a kernel (SIGSEGV on a guard page, SIGFPE, ...) into
// a message naming the buffer, the index and the GPU thread. An access to a
// device allocation's red zone by kernel code is recorded in the worker's
// trap and then allowed to complete (device_memory.h); any other fault on a
// worker thread that has a trap armed goes back to the worker (see
// block_scheduler.cpp); any other ends the process with
// cudacpu::kFaultExitCode, like a sticky illegal-address error.
#pragma once
#include <setjmp.h>

#include <cstddef>
#include <vector>

namespace cudacpu::detail {

// Installs the process-wide handlers for SIGSEGV, SIGBUS, SIGFPE and SIGILL.
void install_fault_handlers();

// The alternate signal stack of one OS thread that runs kernel code (a fiber
// may have overflowed its stack when the handler runs). Removed on destruction.
class AltSignalStack {
 public:
  AltSignalStack();
  ~AltSignalStack();
  AltSignalStack(const AltSignalStack&) = delete;
  AltSignalStack& operator=(const AltSignalStack&) = delete;

 private:
  std::vector<char> stack_;
};

// Where a worker wants faults of its kernel threads delivered.
struct FaultTrap {
  sigjmp_buf jump;
  char message[640];
  // The first red-zone access in schedule order (lowest block, then lowest
  // thread), which a serial run would meet first; ~0 while there is none.
  unsigned long long stray_key = ~0ull;
  char stray_message[640] = {0};
};
// Armed (non-null) while a worker runs a block.
extern __thread FaultTrap* current_fault_trap;

}  // namespace cudacpu::detail
