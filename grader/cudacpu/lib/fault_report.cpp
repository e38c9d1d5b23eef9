// Fault messages (see fault_report.h). Everything here runs inside a signal
// handler: fixed buffers, snprintf of integers and strings only, no allocation.
#include "fault_report.h"

#include <signal.h>
#include <ucontext.h>

#include <cstdint>
#include <cstdio>
#include <cstring>

#include "runtime.h"

namespace cudacpu::detail {
namespace {

// "(x,y)" for flat launches, "(x,y,z)" when the launch uses z.
void put_coords(char* out, std::size_t n, uint3 v, bool three_d) {
  if (three_d)
    std::snprintf(out, n, "(%u,%u,%u)", v.x, v.y, v.z);
  else
    std::snprintf(out, n, "(%u,%u)", v.x, v.y);
}

// Where the fault happened: " by thread (x,y) of block (x,y) (blocks of XxY
// threads)" or " in host code"; the thread's launch into `facts` when given.
void put_who(char* out, std::size_t n, FaultFacts* facts = nullptr) {
  const ThreadContext* t = current_thread;
  if (t == nullptr) {
    std::snprintf(out, n, " in host code (outside any kernel)");
    return;
  }
  if (facts != nullptr) {
    facts->in_kernel = true;
    facts->block_x = t->block_dim.x;
    facts->block_y = t->block_dim.y;
    facts->grid_x = t->grid_dim.x;
    facts->grid_y = t->grid_dim.y;
  }
  const bool three_d = t->block_dim.z > 1 || t->grid_dim.z > 1;
  char thread[36], block[36], shape[36];
  put_coords(thread, sizeof thread, t->thread_idx, three_d);
  put_coords(block, sizeof block, t->block_idx, three_d);
  // The block's shape: a thread index past a tile's edge often means the
  // launch's blockDim is not the one the kernel was written for.
  if (three_d)
    std::snprintf(shape, sizeof shape, "%ux%ux%u", t->block_dim.x, t->block_dim.y, t->block_dim.z);
  else
    std::snprintf(shape, sizeof shape, "%ux%u", t->block_dim.x, t->block_dim.y);
  std::snprintf(out, n, " by thread %s of block %s (blocks of %s threads)", thread, block, shape);
}

const char* access_kind(const void* uctx) {
#if defined(__x86_64__) && defined(REG_ERR)
  // Bit 1 of the page-fault error code is set for writes.
  const auto* uc = static_cast<const ucontext_t*>(uctx);
  return (uc->uc_mcontext.gregs[REG_ERR] & 2) ? "write" : "read";
#else
  (void)uctx;
  return "access";
#endif
}

// Host code touched the data of a device allocation (closed outside kernels,
// see DeviceMemory::open_data): the GPU bug of dereferencing a device pointer
// on the host, or host code computing what the kernel should.
bool describe_host_access(char* out, std::size_t n, const char* kind, const void* addr) {
  if (current_thread != nullptr) return false;
  const Allocation* a = Runtime::get().memory().data_page_of(addr);
  if (a == nullptr) return false;
  const char* verb = std::strcmp(kind, "write") == 0 ? "wrote" : std::strcmp(kind, "read") == 0 ? "read" : "accessed";
  if (a->element_size > 0) {
    const std::size_t count = a->bytes / a->element_size;
    std::snprintf(out, n,
                  "host code %s device memory at %p (%s, an allocation of %zu %s%s): on a GPU this is an illegal "
                  "access; copy data with cudaMemcpy and compute in the kernel",
                  verb, addr, a->name[0] ? a->name : "cudaMalloc", count, a->element_type, count == 1 ? "" : "s");
  } else {
    std::snprintf(out, n,
                  "host code %s device memory at %p (an allocation of %zu bytes): on a GPU this is an illegal "
                  "access; copy data with cudaMemcpy and compute in the kernel",
                  verb, addr, a->bytes);
  }
  return true;
}

// The access in words, and, outside an allocation, that allocation into `facts` when given.
void describe_address(char* out, std::size_t n, const char* kind, const void* addr, int si_code,
                      FaultFacts* facts = nullptr) {
  Runtime& rt = Runtime::get();
  const Allocation* a = rt.memory().mapping_of(addr);
  if (a == nullptr) a = rt.memory().overrun_of(addr);  // far past the end of an allocation
  if (a != nullptr) {
    if (facts != nullptr) {
      facts->out_of_bounds = true;
      facts->shared_array = a->shared_memory && !rt.is_dynamic_shared(a->data);
      facts->elements = a->element_size > 0 ? a->bytes / a->element_size : 0;
    }
    const std::ptrdiff_t offset = static_cast<const char*>(addr) - a->data;
    if (a->element_size > 0) {
      // Floor division, so a read just below the start says index -1.
      const auto size = static_cast<std::ptrdiff_t>(a->element_size);
      const std::ptrdiff_t index = offset >= 0 ? offset / size : -((-offset + size - 1) / size);
      const std::size_t count = a->bytes / a->element_size;
      std::snprintf(out, n, "out-of-bounds %s of %s at index %td (allocation of %zu %s%s)", kind, a->name, index,
                    count, a->element_type, count == 1 ? "" : "s");
    } else if (a->name[0] != '\0') {
      std::snprintf(out, n, "out-of-bounds %s of %s at byte offset %td (%zu bytes)", kind, a->name, offset,
                    a->bytes);
    } else {
      std::snprintf(out, n, "out-of-bounds %s at byte offset %td of a device allocation of %zu bytes", kind,
                    offset, a->bytes);
    }
    return;
  }
  if (rt.in_stack_guard(addr)) {
    std::snprintf(out, n, "stack overflow: a thread used more than its %zu KiB of stack (large local arrays "
                  "belong in shared or global memory)", FiberPool::kStackBytes >> 10);
    return;
  }
  const auto value = reinterpret_cast<std::uintptr_t>(addr);
  if (si_code == SI_KERNEL)
    std::snprintf(out, n, "invalid memory %s (a misaligned vector access or a wild pointer)", kind);
  else if (value < 65536)
    std::snprintf(out, n, "invalid %s of address %#zx (a null pointer?)", kind, static_cast<std::size_t>(value));
  else
    std::snprintf(out, n, "invalid %s of address %#zx (not inside any device allocation)", kind,
                  static_cast<std::size_t>(value));
}

// Position of the current GPU thread in the order of blocks, then of the
// threads within a block as the schedule runs them (descending by default).
unsigned long long schedule_key(const ThreadContext& t) {
  const unsigned long long block =
      (static_cast<unsigned long long>(t.block_idx.z) * t.grid_dim.y + t.block_idx.y) * t.grid_dim.x + t.block_idx.x;
  const unsigned long long threads = static_cast<unsigned long long>(t.block_dim.x) * t.block_dim.y * t.block_dim.z;
  const unsigned long long thread =
      (static_cast<unsigned long long>(t.thread_idx.z) * t.block_dim.y + t.thread_idx.y) * t.block_dim.x +
      t.thread_idx.x;
  const bool ascending = Runtime::get().schedule().ascending;
  return block * threads + (ascending ? thread : threads - 1 - thread);
}

// A kernel's access to a red zone: note it in the worker's trap and let it complete.
bool record_stray_access(int sig, siginfo_t* info, void* uctx) {
  FaultTrap* trap = current_fault_trap;
  if ((sig != SIGSEGV && sig != SIGBUS) || trap == nullptr || current_thread == nullptr) return false;
  if (!Runtime::get().memory().open_zone_page(info->si_addr)) return false;
  note_stray_access(info->si_addr, access_kind(uctx), info->si_code);
  return true;  // the access runs again, now on an open page
}

}  // namespace

void note_stray_access(const void* addr, const char* kind, int si_code) {
  FaultTrap* trap = current_fault_trap;
  if (trap == nullptr || current_thread == nullptr) return;
  const unsigned long long key = schedule_key(*current_thread);
  if (key >= trap->stray_key) return;
  char what[400], who[160];
  describe_address(what, sizeof what, kind, addr, si_code);
  put_who(who, sizeof who);
  std::snprintf(trap->stray_message, sizeof trap->stray_message, "%s%s", what, who);
  trap->stray_key = key;
}

namespace {

void on_fault(int sig, siginfo_t* info, void* uctx) {
  if (record_stray_access(sig, info, uctx)) return;
  char what[400], who[160], message[600];
  FaultFacts facts;
  switch (sig) {
    case SIGSEGV:
    case SIGBUS:
      if (describe_host_access(what, sizeof what, access_kind(uctx), info->si_addr)) Runtime::get().die(what);
      describe_address(what, sizeof what, access_kind(uctx), info->si_addr, info->si_code, &facts);
      break;
    case SIGFPE:
      std::snprintf(what, sizeof what, "%s", info->si_code == FPE_INTDIV   ? "integer division by zero"
                                             : info->si_code == FPE_INTOVF ? "integer overflow in a division"
                                                                           : "arithmetic exception");
      break;
    default:
      std::snprintf(what, sizeof what, "illegal instruction");
      break;
  }
  put_who(who, sizeof who, &facts);
  std::snprintf(message, sizeof message, "%s%s", what, who);
  // Fatal either way: at once, or by the launch the worker returns to (block_scheduler.cpp).
  Runtime::get().note_fatal_facts(facts);
  FaultTrap* trap = current_fault_trap;
  if (trap != nullptr && current_thread != nullptr) {
    std::snprintf(trap->message, sizeof trap->message, "%s", message);
    current_fault_trap = nullptr;
    siglongjmp(trap->jump, 1);  // back to the worker, with the signal mask it had
  }
  Runtime::get().die(message);
}

}  // namespace

__thread FaultTrap* current_fault_trap = nullptr;

void install_fault_handlers() {
  struct sigaction sa {};
  sa.sa_sigaction = on_fault;
  sigemptyset(&sa.sa_mask);
  // The signal stays blocked while its handler runs, so a fault inside the
  // handler itself ends the process plainly.
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL}) sigaction(sig, &sa, nullptr);
}

AltSignalStack::AltSignalStack() : stack_(128 << 10) {
  stack_t ss{};
  ss.ss_sp = stack_.data();
  ss.ss_size = stack_.size();
  sigaltstack(&ss, nullptr);
}

AltSignalStack::~AltSignalStack() {
  stack_t ss{};
  ss.ss_flags = SS_DISABLE;
  sigaltstack(&ss, nullptr);
}

}  // namespace cudacpu::detail
