// Fiber stacks and context switches (see fibers.h).
#include "fibers.h"

#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>

#if defined(__x86_64__)
// Saves the callee-saved registers on the current stack, stores the stack
// pointer in *save_sp, then restores the same from load_sp and returns into
// the other context. The FP control words are not switched: all fibers share
// the launching thread's (device code has no way to change them).
__asm__(
    ".text\n"
    ".globl cudacpu_switch_context\n"
    ".hidden cudacpu_switch_context\n"
    ".type cudacpu_switch_context,@function\n"
    "cudacpu_switch_context:\n"
    "  pushq %rbp\n"
    "  pushq %rbx\n"
    "  pushq %r12\n"
    "  pushq %r13\n"
    "  pushq %r14\n"
    "  pushq %r15\n"
    "  movq %rsp, (%rdi)\n"
    "  movq %rsi, %rsp\n"
    "  popq %r15\n"
    "  popq %r14\n"
    "  popq %r13\n"
    "  popq %r12\n"
    "  popq %rbx\n"
    "  popq %rbp\n"
    "  ret\n"
    ".size cudacpu_switch_context, .-cudacpu_switch_context\n");
#endif

namespace cudacpu::detail {
namespace {

// True when the kernel enforces a shadow stack for this process (Linux 6.6+
// with a glibc that enables it): returns into another fiber's stack would fault.
bool shadow_stack_active() {
#if defined(__x86_64__) && defined(SYS_arch_prctl)
  constexpr int kArchShstkStatus = 0x5005;
  unsigned long features = 0;
  if (syscall(SYS_arch_prctl, kArchShstkStatus, &features) == 0) return (features & 1UL) != 0;
#endif
  return false;
}

bool want_ucontext() {
#if defined(__x86_64__)
  const char* forced = std::getenv("CUDACPU_FIBERS");
  if (forced && std::strcmp(forced, "ucontext") == 0) return true;
  return shadow_stack_active();
#else
  return true;
#endif
}

}  // namespace

// Stack tops are staggered by 65 cache lines per fiber (modulo 128 KiB) so
// that the hot top frames of a block's threads do not all map to the same
// cache sets, which page-aligned tops would.
constexpr std::size_t kColorStride = 65 * 64;
constexpr std::size_t kColorSpan = 128 << 10;

FiberPool::FiberPool()
    : fibers_(new Fiber[kMaxFibers]), use_ucontext_(want_ucontext()) {
  const long page = sysconf(_SC_PAGESIZE);
  if (page > 0) page_ = static_cast<std::size_t>(page);
  if (use_ucontext_) contexts_.reset(new ucontext_t[kMaxFibers]);
}

FiberPool::~FiberPool() {
  for (int i = 0; i < stacks_; ++i) munmap(fibers_[i].stack - page_, fibers_[i].stack_bytes + page_);
}

bool FiberPool::reserve(int n) {
  for (; stacks_ < n; ++stacks_) {
    const std::size_t color = (static_cast<std::size_t>(stacks_) * kColorStride) % kColorSpan;
    const std::size_t bytes = kStackBytes + color;
    // NORESERVE: only the few pages a thread actually touches cost memory.
    void* map = mmap(nullptr, bytes + page_, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
    if (map == MAP_FAILED) return false;
    if (mprotect(map, page_, PROT_NONE) != 0) {
      munmap(map, bytes + page_);
      return false;
    }
    fibers_[stacks_].stack = static_cast<char*>(map) + page_;
    fibers_[stacks_].stack_bytes = bytes;
  }
  return true;
}

void FiberPool::restart(int i, void (*entry)()) {
  Fiber& f = fibers_[i];
  f.exited = false;
  f.barrier_file = nullptr;
  f.barrier_line = 0;
  if (use_ucontext_) {
    ucontext_t& uc = contexts_[i];
    getcontext(&uc);
    uc.uc_stack.ss_sp = f.stack;
    uc.uc_stack.ss_size = f.stack_bytes;
    uc.uc_link = nullptr;
    makecontext(&uc, entry, 0);
    return;
  }
#if defined(__x86_64__)
  // The frame cudacpu_switch_context pops: r15..r12, rbx, rbp, then the
  // address it returns to. That address sits 16-byte aligned, so `entry`
  // starts with the stack aligned as if it had been called.
  auto top = reinterpret_cast<std::uintptr_t>(f.stack + f.stack_bytes) & ~std::uintptr_t(15);
  auto* ret_slot = reinterpret_cast<std::uint64_t*>(top - 16);
  ret_slot[0] = reinterpret_cast<std::uint64_t>(entry);
  ret_slot[1] = 0;  // entry never returns
  std::uint64_t* frame = ret_slot - 6;
  std::memset(frame, 0, 6 * sizeof(std::uint64_t));
  f.sp = frame;
#endif
}

void FiberPool::jump(void** save_sp, ucontext_t* save_uc, int to) {
  if (use_ucontext_) {
    swapcontext(save_uc, &contexts_[to]);
    return;
  }
#if defined(__x86_64__)
  cudacpu_switch_context(save_sp, fibers_[to].sp);
#else
  (void)save_sp;
#endif
}

void FiberPool::suspend(int from) {
  if (use_ucontext_) {
    swapcontext(&contexts_[from], &scheduler_uc_);
    return;
  }
#if defined(__x86_64__)
  cudacpu_switch_context(&fibers_[from].sp, scheduler_sp_);
#endif
}

int FiberPool::guard_page_owner(const void* addr) const {
  const char* a = static_cast<const char*>(addr);
  for (int i = 0; i < stacks_; ++i) {
    const char* guard = fibers_[i].stack - page_;
    if (a >= guard && a < fibers_[i].stack) return i;
  }
  return -1;
}

}  // namespace cudacpu::detail
