// Guard-paged device allocations (see device_memory.h).
#include "device_memory.h"

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
// What a stray read finds: 0x4F4F4F4F is 3.5e9 as a float. Wrong in any sum
// it enters, but finite and harmless times zero, like the unrelated data a
// GPU would return (NaN would also fail a kernel that multiplies the garbage
// by a zero it loaded correctly, which a GPU usually passes).
constexpr unsigned char kZoneByte = 0x4F;

}  // namespace

DeviceMemory::DeviceMemory() {
  const long page = sysconf(_SC_PAGESIZE);
  if (page > 0) page_ = static_cast<std::size_t>(page);
  const long pages = sysconf(_SC_PHYS_PAGES);
  limit_ = pages > 0 ? static_cast<std::size_t>(pages) * page_ / 2 : (std::size_t(4) << 30);
  live_.reserve(256);
}

DeviceMemory::~DeviceMemory() {
  for (const Allocation& a : live_) munmap(a.map, a.map_bytes);
}

void* DeviceMemory::allocate(std::size_t bytes, bool shared_memory) {
  std::lock_guard<std::mutex> lock(mu_);
  // Whole 4-byte words keep float and int data aligned; the end stays exact for them.
  const std::size_t rounded = (bytes + 3) & ~std::size_t(3);
  if (rounded < bytes || rounded > limit_ - used_) return nullptr;
  const std::size_t data_pages = (rounded + page_ - 1) / page_;
  const std::size_t data_bytes = data_pages * page_;
  Allocation a;
  a.front_bytes = (kFrontZone + page_ - 1) / page_ * page_;
  a.back_bytes = std::max(std::min(data_bytes, kMaxBackZone), std::max(kMinBackZone, page_));
  a.back_bytes = (a.back_bytes + page_ - 1) / page_ * page_;
  a.map_bytes = a.front_bytes + data_bytes + a.back_bytes;
  void* map = mmap(nullptr, a.map_bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (map == MAP_FAILED) return nullptr;
  a.map = static_cast<char*>(map);
  char* first_page = a.map + a.front_bytes;
  if (mprotect(first_page, data_bytes, PROT_READ | PROT_WRITE) != 0) {
    munmap(map, a.map_bytes);
    return nullptr;
  }
  a.data = first_page + data_bytes - rounded;
  a.bytes = bytes;
  a.shared_memory = shared_memory;
  std::memset(first_page, 0xFF, static_cast<std::size_t>(a.data - first_page));
  if (!shared_memory && !data_open_) protect_data(a, false);
  live_.push_back(a);
  used_ += rounded;
  return a.data;
}

bool DeviceMemory::release(void* p) {
  std::lock_guard<std::mutex> lock(mu_);
  for (std::size_t i = 0; i < live_.size(); ++i) {
    if (live_[i].data != p) continue;
    munmap(live_[i].map, live_[i].map_bytes);
    used_ -= (live_[i].bytes + 3) & ~std::size_t(3);
    live_.erase(live_.begin() + static_cast<std::ptrdiff_t>(i));
    return true;
  }
  return false;
}

const Allocation* DeviceMemory::holding(const void* p, std::size_t bytes) const {
  const char* c = static_cast<const char*>(p);
  for (const Allocation& a : live_)
    if (c >= a.data && c <= a.data + a.bytes && bytes <= static_cast<std::size_t>(a.data + a.bytes - c)) return &a;
  return nullptr;
}

const Allocation* DeviceMemory::mapping_of(const void* addr) const {
  const char* c = static_cast<const char*>(addr);
  for (const Allocation& a : live_)
    if (c >= a.map && c < a.map + a.map_bytes) return &a;
  return nullptr;
}

bool DeviceMemory::open_zone_page(const void* addr) {
  const char* c = static_cast<const char*>(addr);
  for (Allocation& a : live_) {
    if (c < a.map || c >= a.map + a.map_bytes) continue;
    if (a.shared_memory) return false;
    const char* data_begin = a.map + a.front_bytes;
    const char* data_end = a.map + a.map_bytes - a.back_bytes;
    if (c >= data_begin && c < data_end) return false;  // a data page: not ours to open
    char* page = a.map + static_cast<std::size_t>(c - a.map) / page_ * page_;
    if (mprotect(page, page_, PROT_READ | PROT_WRITE) != 0) return false;
    std::memset(page, kZoneByte, page_);
    a.opened = 1;
    return true;
  }
  return false;
}

void DeviceMemory::close_zones() {
  for (Allocation& a : live_) {
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
  for (const Allocation& a : live_)
    if (!a.shared_memory) protect_data(a, true);
}

void DeviceMemory::close_data() {
  std::lock_guard<std::mutex> lock(mu_);
  data_open_ = false;
  for (const Allocation& a : live_)
    if (!a.shared_memory) protect_data(a, false);
}

const Allocation* DeviceMemory::data_page_of(const void* addr) const {
  const char* c = static_cast<const char*>(addr);
  for (const Allocation& a : live_)
    if (!a.shared_memory && c >= a.map + a.front_bytes && c < a.map + a.map_bytes - a.back_bytes) return &a;
  return nullptr;
}

bool DeviceMemory::name(const void* p, const char* name, const char* element_type, std::size_t element_size) {
  std::lock_guard<std::mutex> lock(mu_);
  for (Allocation& a : live_) {
    if (a.data != p) continue;
    std::snprintf(a.name, sizeof a.name, "%s", name ? name : "");
    std::snprintf(a.element_type, sizeof a.element_type, "%s", element_type ? element_type : "");
    a.element_size = element_size;
    return true;
  }
  return false;
}

}  // namespace cudacpu::detail
