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

// The running GPU thread's access to a red zone (`kind` "read" or "write"),
// seen by a fault or by an access hook: kept in the trap when it comes
// first in the order of blocks and threads (lowest block, then thread), so
// that the report is the same whatever the turns of the resident blocks.
// Safe in a signal handler.
void note_stray_access(const void* addr, const char* kind, int si_code = 0);

}  // namespace cudacpu::detail
