// Reading back what a child printed (internal to process/): bounded, cleaned.
#pragma once
#include <cstddef>
#include <string>

namespace sg::detail {

struct CappedRead {
  std::string text;                   // cleaned (io/clean_text.h)
  unsigned long long total_bytes = 0; // the file's size
  bool truncated = false;             // more than `cap` bytes
};

// At most `cap` bytes of the regular file open on `fd`, from its start
// (pread: the descriptor's offset is left alone). A character cut by the
// cap is dropped rather than shown as invalid.
CappedRead read_capped_fd(int fd, std::size_t cap);

}  // namespace sg::detail
