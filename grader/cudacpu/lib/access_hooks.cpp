// The access hooks (see launch_tracking.h): the functions gcc's
// kernel-address instrumentation calls before a load or store of the
// student's code to global memory, and the wrappers of memcpy, memmove and
// memset (linked with --wrap), whose copies the instrumentation does not see
// when their size is not a constant.
//
// The instrumentation is inline: before each access the compiled code reads
// one shadow byte, at (address >> 3) + kShadowOffset, and calls a hook only
// when it is not 0. The layer maps that shadow for the whole address space
// before anything else runs (a zero page costs nothing until written) and
// sets the bytes of global allocations' data (device_memory.cpp): an access
// to shared memory, the stack or host data then costs a few instructions,
// and only global accesses reach a hook.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <new>

#include "cudacpu/ext.h"
#include "device_memory.h"
#include "fault_report.h"
#include "launch_tracking.h"

namespace cudacpu::detail {

__thread HookContext hook_context;

namespace {

constexpr std::size_t kShadowSpan = std::size_t(1) << 44;  // a 47-bit address space, one byte per 8

// Maps the shadow at kShadowOffset: read-write, no swap reserved, zero
// until written. Runs from .preinit_array, before any constructor of the
// student's code (instrumented code reads the shadow from its first access).
void map_shadow(int, char**, char**) {
  void* want = reinterpret_cast<void*>(kShadowOffset);
  void* got = mmap(want, kShadowSpan, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
  if (got == want) return;
  static const char message[] =
      "cudacpu: cannot map the access hooks' shadow memory (16 TiB of address space, none of it used until "
      "written); is the address space limited (ulimit -v)?\n";
  ssize_t ignored = write(2, message, sizeof message - 1);
  (void)ignored;
  _exit(kFaultExitCode);
}

__attribute__((section(".preinit_array"), used)) void (*const map_shadow_first)(int, char**, char**) = map_shadow;

}  // namespace

void mark_global(const void* data, std::size_t bytes, bool global) {
  if (bytes == 0) return;
  const auto begin = reinterpret_cast<std::uintptr_t>(data) >> 3;
  const auto end = (reinterpret_cast<std::uintptr_t>(data) + bytes + 7) >> 3;
  std::memset(reinterpret_cast<void*>(kShadowOffset + begin), global ? 0xFF : 0, end - begin);
}

namespace {

constexpr std::size_t kWord = 4;

// The words of [a, a + n) inside the allocation's data: [first, end) as word indices.
bool data_words(const Allocation& al, std::uintptr_t a, std::size_t n, std::size_t& first, std::size_t& end) {
  const auto data = reinterpret_cast<std::uintptr_t>(al.data);
  const std::uintptr_t lo = a < data ? data : a;
  const std::uintptr_t hi = a + n > data + al.bytes ? data + al.bytes : a + n;
  if (lo >= hi) return false;
  first = (lo - data) / kWord;
  end = (hi - data + kWord - 1) / kWord;
  return true;
}

std::uint32_t* word_at(const Allocation& al, std::size_t w) {
  return reinterpret_cast<std::uint32_t*>(al.data + w * kWord);
}

// The global allocation whose mapping holds `a` (the recent ones first).
Allocation* allocation_at(HookContext& h, std::uintptr_t a) {
  for (Allocation* al : h.recent)
    if (al != nullptr && a - reinterpret_cast<std::uintptr_t>(al->map) < al->map_bytes) return al;
  Allocation* al = h.memory->global_at(a);
  if (al != nullptr) {
    h.recent[h.next_recent] = al;
    h.next_recent = (h.next_recent + 1) % HookContext::kRecent;
  }
  return al;
}

WordShadow* shadow_of(Allocation& al, std::uint32_t epoch) {
  if (!al.shadow) {
    al.shadow.reset(new (std::nothrow) WordShadow[(al.bytes + kWord - 1) / kWord]());
    if (!al.shadow) return nullptr;  // no memory to watch it: the stores still happen, unwatched
  }
  al.written_epoch = epoch;
  return al.shadow.get();
}

// Block t's store to word w of al, which held `before`; `conflict` is where a
// store over another block's word waits for its bits to be known (null: they
// are known, the word holds them).
void record_store(HookContext& h, ThreadTracking& t, Allocation& al, std::size_t w, std::uint32_t before,
                  bool pending) {
  const std::uint32_t epoch = h.launch->epoch;
  WordShadow* shadow = shadow_of(al, epoch);
  if (shadow == nullptr) return;
  WordShadow& e = shadow[w];
  if (e.epoch != epoch) {
    e = WordShadow{epoch, t.block_tag, t.block_tag, before};
    return;
  }
  if (e.last == t.block_tag) return;
  std::uint32_t* p = word_at(al, w);
  const PendingConflict c{p, before, &al, e.last, t.block_tag};
  e.last = t.block_tag;
  if (!pending) {
    if (*p != before) record_race(*h.launch, c);
  } else if (t.conflict.word == nullptr) {
    t.conflict = c;
  }
}

// An access that starts outside the allocation's data: in its red zone.
bool stray(const Allocation& al, std::uintptr_t a, bool store) {
  const auto data = reinterpret_cast<std::uintptr_t>(al.data);
  if (a >= data && a < data + al.bytes) return false;
  note_stray_access(reinterpret_cast<const void*>(a), store ? "write" : "read");
  return true;
}

void note_load(HookContext& h, ThreadTracking& t, std::uintptr_t a, std::size_t n) {
  t.loads += n <= 16 ? 1 : (n + 15) / 16;  // one instruction per 16 bytes at best, as on a GPU
  Allocation* al = allocation_at(h, a);
  std::size_t first = 0, end = 0;
  if (al == nullptr || stray(*al, a, false) || n > 16 || t.block_tag == 0 || !data_words(*al, a, n, first, end))
    return;
  const bool written = al->written_epoch == h.launch->epoch;
  for (std::size_t w = first; w < end && t.watched < 4; ++w) {
    std::uint32_t* p = word_at(*al, w);
    WatchedWord& watch = t.watch[t.watched++];
    watch = WatchedWord{p, *p, *p, false, al, w};
    if (!written) continue;
    const WordShadow& e = al->shadow[w];
    if (e.epoch != h.launch->epoch || e.last == t.block_tag || e.first == t.block_tag) continue;
    // Written in this launch only by other blocks: this block reads the word as it was before.
    watch.stale = true;
    watch.seen = e.before;
    *p = e.before;
  }
}

void note_store(HookContext& h, ThreadTracking& t, std::uintptr_t a, std::size_t n) {
  Allocation* al = allocation_at(h, a);
  std::size_t first = 0, end = 0;
  if (al == nullptr || stray(*al, a, true) || t.block_tag == 0 || !data_words(*al, a, n, first, end)) return;
  for (std::size_t w = first; w < end; ++w) record_store(h, t, *al, w, *word_at(*al, w), true);
}

inline void on_access(std::uintptr_t a, std::size_t n, bool store) {
  HookContext& h = hook_context;
  if (a - h.lo >= h.span) return;  // not global memory, or no grid running on this thread
  ThreadTracking* t = h.thread;
  if (t == nullptr) return;
  LaunchTracker& launch = *h.launch;
  if (launch.others_resident && --launch.countdown == 0) {
    launch.countdown = launch.quantum;
    give_way();  // settles first; the access below then sees what the other blocks did meanwhile
  }
  settle(*t);
  if (store)
    note_store(h, *t, a, n);
  else
    note_load(h, *t, a, n);
}

// Element `e` of an allocation, as reports name it: C[48][17], B[740], or a byte offset.
std::string element_name(const Allocation& al, std::size_t byte_offset) {
  char buf[96];
  const char* name = al.name[0] ? al.name : "a device allocation";
  if (al.element_size == 0) {
    std::snprintf(buf, sizeof buf, "%s at byte offset %zu", name, byte_offset);
    return buf;
  }
  const std::size_t e = byte_offset / al.element_size;
  if (al.columns > 0)
    std::snprintf(buf, sizeof buf, "%s[%zu][%zu]", name, e / al.columns, e % al.columns);
  else
    std::snprintf(buf, sizeof buf, "%s[%zu]", name, e);
  return buf;
}

std::string block_name(const dim3& grid, std::uint32_t tag) {
  const std::uint64_t i = tag - 1;
  const unsigned x = static_cast<unsigned>(i % grid.x), y = static_cast<unsigned>((i / grid.x) % grid.y),
                 z = static_cast<unsigned>(i / (std::uint64_t(grid.x) * grid.y));
  char buf[64];
  if (grid.z > 1)
    std::snprintf(buf, sizeof buf, "(%u,%u,%u)", x, y, z);
  else
    std::snprintf(buf, sizeof buf, "(%u,%u)", x, y);
  return buf;
}

}  // namespace

void record_race(LaunchTracker& launch, const PendingConflict& c) {
  if (launch.races++ > 0) return;
  const auto offset = static_cast<std::size_t>(reinterpret_cast<const char*>(c.word) - c.alloc->data);
  launch.first_race = "blocks " + block_name(launch.grid, c.other) + " and " + block_name(launch.grid, c.self) +
                      " both wrote " + element_name(*c.alloc, offset) + " without an atomic";
}

void settle_pending(ThreadTracking& t) {
  HookContext& h = hook_context;
  while (t.watched > 0) {
    const WatchedWord& w = t.watch[--t.watched];
    if (w.stale && *w.word == w.seen) {
      *w.word = w.original;  // untouched: the other blocks' bits back
    } else if (*w.word != w.seen) {
      // Stored by this thread since its load (unseen: the load's check covered it).
      record_store(h, t, *w.alloc, w.index, w.stale ? w.original : w.seen, false);
    }
  }
  if (t.conflict.word != nullptr) {
    if (*t.conflict.word != t.conflict.bits) record_race(*h.launch, t.conflict);
    t.conflict.word = nullptr;
  }
}

// An access the instrumentation does not see (an atomic, a library copy):
// whatever this thread left pending is settled first.
void unseen_access() {
  if (ThreadTracking* t = hook_context.thread) settle(*t);
}

void before_copy(void* dst, const void* src, std::size_t n) {
  HookContext& h = hook_context;
  ThreadTracking* t = h.thread;
  if (n == 0 || t == nullptr) return;
  settle(*t);
  const auto d = reinterpret_cast<std::uintptr_t>(dst), s = reinterpret_cast<std::uintptr_t>(src);
  if (d - h.lo < h.span) note_store(h, *t, d, n);
  if (src != nullptr && s - h.lo < h.span) note_load(h, *t, s, n);
}

}  // namespace cudacpu::detail

using cudacpu::detail::on_access;

// The hooks gcc's -fsanitize=kernel-address calls: the report functions
// where the inline check found a global word's shadow, the others for
// accesses it does not check inline.
extern "C" {
#define CUDACPU_HOOKS(size)                                                                        \
  void __asan_load##size##_noabort(std::uintptr_t a) { on_access(a, size, false); }               \
  void __asan_store##size##_noabort(std::uintptr_t a) { on_access(a, size, true); }               \
  void __asan_report_load##size##_noabort(std::uintptr_t a) { on_access(a, size, false); }        \
  void __asan_report_store##size##_noabort(std::uintptr_t a) { on_access(a, size, true); }
CUDACPU_HOOKS(1)
CUDACPU_HOOKS(2)
CUDACPU_HOOKS(4)
CUDACPU_HOOKS(8)
CUDACPU_HOOKS(16)
#undef CUDACPU_HOOKS
void __asan_loadN_noabort(std::uintptr_t a, std::size_t n) { on_access(a, n, false); }
void __asan_storeN_noabort(std::uintptr_t a, std::size_t n) { on_access(a, n, true); }
void __asan_report_load_n_noabort(std::uintptr_t a, std::size_t n) { on_access(a, n, false); }
void __asan_report_store_n_noabort(std::uintptr_t a, std::size_t n) { on_access(a, n, true); }
void __asan_handle_no_return() {}
void __asan_before_dynamic_init(const char*) {}
void __asan_after_dynamic_init() {}

// memcpy, memmove and memset of the student's object and the layer (the
// link's --wrap): a store to the target and a load of the source, settled
// after the copy (so that a stale source word is copied as such, and a
// store of other bits over another block's word is a race).
void* __real_memcpy(void* dst, const void* src, std::size_t n);
void* __real_memmove(void* dst, const void* src, std::size_t n);
void* __real_memset(void* dst, int c, std::size_t n);
void* __wrap_memcpy(void* dst, const void* src, std::size_t n) {
  cudacpu::detail::before_copy(dst, src, n);
  void* r = __real_memcpy(dst, src, n);
  cudacpu::detail::unseen_access();
  return r;
}
void* __wrap_memmove(void* dst, const void* src, std::size_t n) {
  cudacpu::detail::before_copy(dst, src, n);
  void* r = __real_memmove(dst, src, n);
  cudacpu::detail::unseen_access();
  return r;
}
void* __wrap_memset(void* dst, int c, std::size_t n) {
  cudacpu::detail::before_copy(dst, nullptr, n);
  void* r = __real_memset(dst, c, n);
  cudacpu::detail::unseen_access();
  return r;
}
}
