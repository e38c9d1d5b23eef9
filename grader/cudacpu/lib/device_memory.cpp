// Guard-paged device allocations (see device_memory.h).
#include "device_memory.h"

#include "launch_tracking.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <utility>

namespace cudacpu::detail {
namespace {

// Red-zone sizes: a tile loop runs up to a tile's worth of rows past the end,
// which for wide matrices is far more than a page. Virtual reservations only.
constexpr std::size_t kFrontZone = 64 << 10;
constexpr std::size_t kMinBackZone = 64 << 10;
constexpr std::size_t kMaxBackZone = 2 << 20;
// What a stray read finds: a NaN, as a GPU's read past an allocation often
// finds (the next buffer being C, poisoned with NaN): wrong in any sum it
// enters, also multiplied by zero, so of a GPU's outcomes (garbage that
// cancels or not) the stricter one. Not the poison's bits (all set): an
// element computed from it is seen as written, as a GPU's canonical NaN is.
constexpr std::uint32_t kZoneWord = 0x7FC0DEADu;

// Fills [p, p + bytes) with kZoneWord (bytes a multiple of 4). Stores only: safe in a signal handler.
void fill_garbage(char* p, std::size_t bytes) {
  for (std::size_t i = 0; i + 4 <= bytes; i += 4) std::memcpy(p + i, &kZoneWord, 4);
}
// Headroom of the arena over the memory limit: red zones and fragmentation.
constexpr std::size_t kArenaSlack = std::size_t(16) << 30;

std::size_t round_up(std::size_t v, std::size_t to) { return (v + to - 1) / to * to; }

}  // namespace

DeviceMemory::DeviceMemory() {
  const long page = sysconf(_SC_PAGESIZE);
  if (page > 0) page_ = static_cast<std::size_t>(page);
  const long pages = sysconf(_SC_PHYS_PAGES);
  limit_ = pages > 0 ? static_cast<std::size_t>(pages) * page_ / 2 : (std::size_t(4) << 30);
  live_.reserve(4096);
  // A reservation only (PROT_NONE, no swap): pages cost memory once an allocation opens them.
  arena_bytes_ = round_up(2 * limit_ + kArenaSlack, std::size_t(1) << 30);
  void* arena = mmap(nullptr, arena_bytes_, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (arena == MAP_FAILED) {
    arena_bytes_ = 0;
  } else {
    arena_begin_ = reinterpret_cast<std::uintptr_t>(arena);
  }
}

DeviceMemory::~DeviceMemory() {
  for (const auto& a : live_)
    if (a->shared_memory) munmap(a->map, a->map_bytes);
  if (arena_bytes_ > 0) munmap(reinterpret_cast<void*>(arena_begin_), arena_bytes_);
}

char* DeviceMemory::arena_place(std::size_t bytes) const {
  std::uintptr_t at = arena_begin_;
  for (const Allocation* a : globals_) {
    const auto start = reinterpret_cast<std::uintptr_t>(a->map);
    if (start - at >= bytes) break;
    at = start + a->map_bytes;
  }
  if (at + bytes > arena_begin_ + arena_bytes_ || at + bytes < at) return nullptr;
  return reinterpret_cast<char*>(at);
}

void* DeviceMemory::allocate(std::size_t bytes, bool shared_memory, std::size_t align) {
  std::lock_guard<std::mutex> lock(mu_);
  align = std::max<std::size_t>(align, 4);
  // Whole words of the alignment keep the data aligned; the end stays exact for sizes that are multiples of it.
  const std::size_t rounded = (bytes + align - 1) & ~(align - 1);
  if (rounded < bytes || rounded > limit_ - used_) return nullptr;
  const std::size_t data_pages = (rounded + page_ - 1) / page_;
  const std::size_t data_bytes = data_pages * page_;
  auto a = std::make_unique<Allocation>();
  a->front_bytes = round_up(kFrontZone, page_);
  a->back_bytes = round_up(std::max(std::min(data_bytes, kMaxBackZone), std::max(kMinBackZone, page_)), page_);
  a->map_bytes = a->front_bytes + data_bytes + a->back_bytes;
  void* map = MAP_FAILED;
  if (shared_memory) {
    map = mmap(nullptr, a->map_bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  } else if (char* at = arena_place(a->map_bytes)) {
    map = mmap(at, a->map_bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
  }
  if (map == MAP_FAILED) return nullptr;
  a->map = static_cast<char*>(map);
  char* first_page = a->map + a->front_bytes;
  if (mprotect(first_page, data_bytes, PROT_READ | PROT_WRITE) != 0) {
    if (shared_memory)
      munmap(map, a->map_bytes);
    else
      mprotect(map, a->map_bytes, PROT_NONE);
    return nullptr;
  }
  a->data = first_page + data_bytes - rounded;
  a->bytes = bytes;
  a->shared_memory = shared_memory;
  fill_garbage(first_page, static_cast<std::size_t>(a->data - first_page));
  if (!shared_memory && !data_open_) protect_data(*a, false);
  Allocation* raw = a.get();
  live_.push_back(std::move(a));
  if (!shared_memory) {
    mark_global(raw->map, raw->map_bytes, true);  // the red zones too: the hooks see strays first
    const auto at = std::upper_bound(globals_.begin(), globals_.end(), raw,
                                     [](const Allocation* x, const Allocation* y) { return x->map < y->map; });
    globals_.insert(at, raw);
  }
  used_ += rounded;
  return raw->data;
}

bool DeviceMemory::release(void* p) {
  std::lock_guard<std::mutex> lock(mu_);
  for (std::size_t i = 0; i < live_.size(); ++i) {
    Allocation& a = *live_[i];
    if (a.data != p) continue;
    if (a.shared_memory) {
      munmap(a.map, a.map_bytes);
    } else {
      mark_global(a.map, a.map_bytes, false);
      // Back to a bare reservation: the pages' memory is given back, the range stays in the arena.
      mmap(a.map, a.map_bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
      globals_.erase(std::find(globals_.begin(), globals_.end(), &a));
    }
    used_ -= static_cast<std::size_t>(a.map + a.map_bytes - a.back_bytes - a.data);  // the rounded size
    live_.erase(live_.begin() + static_cast<std::ptrdiff_t>(i));
    return true;
  }
  return false;
}

Allocation* DeviceMemory::global_at(std::uintptr_t addr) const {
  auto lo = globals_.begin(), hi = globals_.end();
  while (lo < hi) {
    auto mid = lo + (hi - lo) / 2;
    if (reinterpret_cast<std::uintptr_t>((*mid)->map) <= addr)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo == globals_.begin()) return nullptr;
  Allocation* a = *(lo - 1);
  return addr - reinterpret_cast<std::uintptr_t>(a->map) < a->map_bytes ? a : nullptr;
}

const Allocation* DeviceMemory::holding(const void* p, std::size_t bytes) const {
  const char* c = static_cast<const char*>(p);
  for (const auto& a : live_)
    if (c >= a->data && c <= a->data + a->bytes && bytes <= static_cast<std::size_t>(a->data + a->bytes - c))
      return a.get();
  return nullptr;
}

const Allocation* DeviceMemory::mapping_of(const void* addr) const {
  const char* c = static_cast<const char*>(addr);
  for (const auto& a : live_)
    if (c >= a->map && c < a->map + a->map_bytes) return a.get();
  return nullptr;
}

const Allocation* DeviceMemory::overrun_of(const void* addr) const {
  const auto a = reinterpret_cast<std::uintptr_t>(addr);
  if (a - arena_begin_ >= arena_bytes_) return nullptr;
  const Allocation* below = nullptr;
  for (const Allocation* g : globals_) {  // sorted by address
    if (reinterpret_cast<std::uintptr_t>(g->map) > a) break;
    below = g;
  }
  return below;
}

bool DeviceMemory::open_zone_page(const void* addr) {
  const char* c = static_cast<const char*>(addr);
  if (mapping_of(addr) == nullptr && overrun_of(addr) != nullptr) {
    // Between allocations in the arena: a bare reservation, opened like a red zone.
    if (stray_page_count_ >= kMaxStrayPages) return false;
    char* page = const_cast<char*>(c) - reinterpret_cast<std::uintptr_t>(c) % page_;
    if (mprotect(page, page_, PROT_READ | PROT_WRITE) != 0) return false;
    fill_garbage(page, page_);
    stray_pages_[stray_page_count_++] = page;
    return true;
  }
  for (const auto& owned : live_) {
    Allocation& a = *owned;
    if (c < a.map || c >= a.map + a.map_bytes) continue;
    if (a.shared_memory) return false;
    const char* data_begin = a.map + a.front_bytes;
    const char* data_end = a.map + a.map_bytes - a.back_bytes;
    if (c >= data_begin && c < data_end) return false;  // a data page: not ours to open
    char* page = a.map + static_cast<std::size_t>(c - a.map) / page_ * page_;
    if (mprotect(page, page_, PROT_READ | PROT_WRITE) != 0) return false;
    fill_garbage(page, page_);
    a.opened = 1;
    return true;
  }
  return false;
}

void DeviceMemory::close_zones() {
  for (int i = 0; i < stray_page_count_; ++i) {
    mprotect(stray_pages_[i], page_, PROT_NONE);
    madvise(stray_pages_[i], page_, MADV_DONTNEED);
  }
  stray_page_count_ = 0;
  for (const auto& owned : live_) {
    Allocation& a = *owned;
    if (!a.opened) continue;
    char* back = a.map + a.map_bytes - a.back_bytes;
    for (auto [start, bytes] : {std::pair<char*, std::size_t>{a.map, a.front_bytes}, {back, a.back_bytes}}) {
      mprotect(start, bytes, PROT_NONE);
      madvise(start, bytes, MADV_DONTNEED);
    }
    a.opened = 0;
  }
}

void DeviceMemory::protect_data(const Allocation& a, bool open) const {
  char* first_page = a.map + a.front_bytes;
  mprotect(first_page, a.map_bytes - a.front_bytes - a.back_bytes, open ? PROT_READ | PROT_WRITE : PROT_NONE);
}

void DeviceMemory::open_data() {
  std::lock_guard<std::mutex> lock(mu_);
  data_open_ = true;
  for (const Allocation* a : globals_) protect_data(*a, true);
}

void DeviceMemory::close_data() {
  std::lock_guard<std::mutex> lock(mu_);
  data_open_ = false;
  for (const Allocation* a : globals_) protect_data(*a, false);
}

const Allocation* DeviceMemory::data_page_of(const void* addr) const {
  const char* c = static_cast<const char*>(addr);
  for (const auto& a : live_)
    if (!a->shared_memory && c >= a->map + a->front_bytes && c < a->map + a->map_bytes - a->back_bytes)
      return a.get();
  return nullptr;
}

bool DeviceMemory::name(const void* p, const char* name, const char* element_type, std::size_t element_size,
                        std::size_t columns) {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& owned : live_) {
    Allocation& a = *owned;
    if (a.data != p) continue;
    std::snprintf(a.name, sizeof a.name, "%s", name ? name : "");
    std::snprintf(a.element_type, sizeof a.element_type, "%s", element_type ? element_type : "");
    a.element_size = element_size;
    a.columns = columns;
    return true;
  }
  return false;
}

}  // namespace cudacpu::detail
