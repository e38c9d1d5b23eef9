// "Device" memory on the CPU backend: every allocation gets its own mapping
// whose data ends exactly where a PROT_NONE red zone begins, with another red
// zone in front. Reading or writing even one element past the end faults,
// and the fault handler turns the address back into (allocation, index).
// Exactness is chosen at the end, where SGEMM bugs overflow; the start is
// only as aligned as the size allows (a size that is a multiple of 16 bytes
// gives a 16-byte aligned pointer), and the few bytes between the front zone
// and the start hold a NaN pattern so that small negative indices read
// garbage rather than zeros.
//
// A kernel that strays into a red zone is not stopped (a GPU would not stop
// it either): the fault is recorded and the page opened, filled with
// garbage (NaN as floats), so the access completes and a write is lost.
// After the launch every zone is closed again. Only an access beyond the
// zones (or in host code) is fatal.
//
// Global allocations (cudaMalloc) all lie in one reserved range, the arena,
// so that the access hooks (access_hooks.cpp) tell a global access from a
// shared or a local one with one comparison; shared-memory storage lies
// outside it.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace cudacpu::detail {

// What a launch knows about one 4-byte word of a global allocation: which
// blocks wrote it in the launch whose number is `epoch` (block numbers are
// the linear block index + 1), and its bits before that launch's first write.
struct WordShadow {
  std::uint32_t epoch = 0;
  std::uint32_t first = 0;
  std::uint32_t last = 0;
  std::uint32_t before = 0;
};

struct Allocation {
  char* map = nullptr;        // whole mapping, guard pages included
  std::size_t map_bytes = 0;
  char* data = nullptr;       // what cudaMalloc returned
  std::size_t bytes = 0;      // what was asked for
  // Fixed-size text so the signal handler can read it without allocating.
  char name[32] = {0};
  char element_type[24] = {0};
  std::size_t element_size = 0;  // 0: unnamed, offsets are reported in bytes
  std::size_t columns = 0;       // > 0: a row-major matrix of this many columns (C[i][j] in reports)
  std::size_t front_bytes = 0;   // red zone before the data's first page
  std::size_t back_bytes = 0;    // red zone after the data's last page
  volatile int opened = 0;       // some zone page was opened by a fault (set in a signal handler)
  // Shared memory: its red zones never open. A GPU stops a kernel that leaves
  // the block's shared window, so an overrun there stays fatal.
  bool shared_memory = false;
  // Global allocations: one WordShadow per 4-byte word of data, made on the
  // first store of a kernel, and the last launch that stored here.
  std::unique_ptr<WordShadow[]> shadow;
  std::uint32_t written_epoch = 0;
};

class DeviceMemory {
 public:
  DeviceMemory();
  ~DeviceMemory();
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;

  // nullptr when the limit or the host's memory is exhausted. `align` (a
  // power of two, at least 4) is the data's alignment; the data still ends
  // where the back red zone begins when the size is a multiple of it.
  void* allocate(std::size_t bytes, bool shared_memory = false, std::size_t align = 4);
  // False when `p` is not the start of a live allocation.
  bool release(void* p);
  // The allocation whose data holds [p, p + bytes), or null.
  const Allocation* holding(const void* p, std::size_t bytes) const;
  // The allocation whose mapping (guard pages included) holds `addr`, or null.
  // Called from the fault handler: reads only.
  const Allocation* mapping_of(const void* addr) const;
  bool name(const void* p, const char* name, const char* element_type, std::size_t element_size,
            std::size_t columns = 0);
  // Opens the red-zone page holding `addr` (readable, writable, garbage)
  // so that the faulting access can complete. The arena's pages between
  // allocations count as red zone too: an index far past the end of C lands
  // there, as it lands in other memory on a GPU. False when `addr` is not in
  // a red zone, or in one of shared memory. Called from the fault handler:
  // system calls and stores only.
  bool open_zone_page(const void* addr);
  // The global allocation nearest below `addr` in the arena, whose red zone
  // it counts as (an overrun's target), or null. For the fault handler: reads only.
  const Allocation* overrun_of(const void* addr) const;
  // Closes every opened zone again and drops what was written there.
  void close_zones();

  // The data pages of global allocations are closed (PROT_NONE) except while
  // a kernel runs or the runtime itself copies: host code that dereferences
  // a device pointer faults, as the same code fails on a GPU.
  void open_data();
  void close_data();
  // The global allocation whose data pages hold `addr` (not its red zones),
  // or null. Called from the fault handler: reads only.
  const Allocation* data_page_of(const void* addr) const;

  // The arena: every global allocation's mapping lies in [begin, begin + bytes).
  std::uintptr_t arena_begin() const { return arena_begin_; }
  std::size_t arena_bytes() const { return arena_bytes_; }
  // The global allocation whose mapping holds `addr` (a binary search over
  // them), or null. For the access hooks: no locking, no allocation.
  Allocation* global_at(std::uintptr_t addr) const;

  std::size_t used() const { return used_; }
  std::size_t limit() const { return limit_; }

 private:
  // Worker threads create `__shared__` arrays while others run kernels, so
  // changes are serialised; the fault handler only reads, and the reserve
  // made up front keeps the vector from moving under it.
  std::mutex mu_;
  std::vector<std::unique_ptr<Allocation>> live_;
  std::vector<Allocation*> globals_;  // global allocations by address (for global_at)
  std::size_t page_ = 4096;
  std::size_t used_ = 0;
  std::size_t limit_ = 0;  // half the host's memory, like a device smaller than its host
  std::uintptr_t arena_begin_ = 0;
  std::size_t arena_bytes_ = 0;
  bool data_open_ = false;  // inside a launch or a runtime copy
  // Arena pages outside every allocation that faults opened (closed after the launch).
  static constexpr int kMaxStrayPages = 4096;
  char* stray_pages_[kMaxStrayPages] = {};
  int stray_page_count_ = 0;
  void protect_data(const Allocation& a, bool open) const;
  // A free range of `bytes` in the arena (first fit), or null.
  char* arena_place(std::size_t bytes) const;
};

// Opens the data pages for the runtime's own copies, closes them after.
class DataWindow {
 public:
  explicit DataWindow(DeviceMemory& m) : m_(m) { m_.open_data(); }
  ~DataWindow() { m_.close_data(); }
  DataWindow(const DataWindow&) = delete;
  DataWindow& operator=(const DataWindow&) = delete;

 private:
  DeviceMemory& m_;
};

}  // namespace cudacpu::detail
