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
// garbage (3.5e9 as floats), so the access completes and a write is lost.
// After the launch every zone is closed again. Only an access beyond the
// zones (or in host code) is fatal.
#pragma once
#include <cstddef>
#include <mutex>
#include <vector>

namespace cudacpu::detail {

struct Allocation {
  char* map = nullptr;        // whole mapping, guard pages included
  std::size_t map_bytes = 0;
  char* data = nullptr;       // what cudaMalloc returned
  std::size_t bytes = 0;      // what was asked for
  // Fixed-size text so the signal handler can read it without allocating.
  char name[32] = {0};
  char element_type[24] = {0};
  std::size_t element_size = 0;  // 0: unnamed, offsets are reported in bytes
  std::size_t front_bytes = 0;   // red zone before the data's first page
  std::size_t back_bytes = 0;    // red zone after the data's last page
  volatile int opened = 0;       // some zone page was opened by a fault (set in a signal handler)
  // Shared memory: its red zones never open. A GPU stops a kernel that leaves
  // the block's shared window, so an overrun there stays fatal.
  bool shared_memory = false;
};

class DeviceMemory {
 public:
  DeviceMemory();
  ~DeviceMemory();
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;

  // nullptr when the limit or the host's memory is exhausted.
  void* allocate(std::size_t bytes, bool shared_memory = false);
  // False when `p` is not the start of a live allocation.
  bool release(void* p);
  // The allocation whose data holds [p, p + bytes), or null.
  const Allocation* holding(const void* p, std::size_t bytes) const;
  // The allocation whose mapping (guard pages included) holds `addr`, or null.
  // Called from the fault handler: reads only.
  const Allocation* mapping_of(const void* addr) const;
  bool name(const void* p, const char* name, const char* element_type, std::size_t element_size);
  // Opens the red-zone page holding `addr` (readable, writable, garbage)
  // so that the faulting access can complete. False when `addr` is not in a
  // red zone, or in one of shared memory. Called from the fault handler: system calls and stores only.
  bool open_zone_page(const void* addr);
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

  std::size_t used() const { return used_; }
  std::size_t limit() const { return limit_; }

 private:
  // Worker threads create `__shared__` arrays while others run kernels, so
  // changes are serialised; the fault handler only reads, and the reserve
  // made up front keeps the vector from moving under it.
  std::mutex mu_;
  std::vector<Allocation> live_;
  std::size_t page_ = 4096;
  std::size_t used_ = 0;
  std::size_t limit_ = 0;  // half the host's memory, like a device smaller than its host
  bool data_open_ = false;  // inside a launch or a runtime copy
  void protect_data(const Allocation& a, bool open) const;
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
