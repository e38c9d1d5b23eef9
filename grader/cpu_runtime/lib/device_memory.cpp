// Guard-paged device allocations (see device_memory.h).
#include "device_memory.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

namespace cudacpu::detail {

DeviceMemory::DeviceMemory() {
  const long page = sysconf(_SC_PAGESIZE);
  if (page > 0) page_ = static_cast<std::size_t>(page);
  const long pages = sysconf(_SC_PHYS_PAGES);
  limit_ = pages > 0 ? static_cast<std::size_t>(pages) * page_ / 2 : (std::size_t(4) << 30);
  live_.reserve(64);
}

DeviceMemory::~DeviceMemory() {
  for (const Allocation& a : live_) munmap(a.map, a.map_bytes);
}

void* DeviceMemory::allocate(std::size_t bytes) {
  // Whole 4-byte words keep float and int data aligned; the end stays exact for them.
  const std::size_t rounded = (bytes + 3) & ~std::size_t(3);
  if (rounded < bytes || rounded > limit_ - used_) return nullptr;
  const std::size_t data_pages = (rounded + page_ - 1) / page_;
  Allocation a;
  a.map_bytes = (data_pages + 2) * page_;
  void* map = mmap(nullptr, a.map_bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (map == MAP_FAILED) return nullptr;
  a.map = static_cast<char*>(map);
  if (mprotect(a.map + page_, data_pages * page_, PROT_READ | PROT_WRITE) != 0) {
    munmap(map, a.map_bytes);
    return nullptr;
  }
  char* data_end = a.map + page_ + data_pages * page_;
  a.data = data_end - rounded;
  a.bytes = bytes;
  std::memset(a.map + page_, 0xFF, static_cast<std::size_t>(a.data - (a.map + page_)));
  live_.push_back(a);
  used_ += rounded;
  return a.data;
}

bool DeviceMemory::release(void* p) {
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

bool DeviceMemory::name(const void* p, const char* name, const char* element_type, std::size_t element_size) {
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
