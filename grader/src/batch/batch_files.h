// Files a batch keeps in its output folder besides the students' reports:
// the run settings (batch.json), the exclusive lock, small file helpers.
#pragma once
#include <optional>
#include <string>

#include "io/atomic_file.h"  // write_file_atomically, for the batch's own files
#include "model/result.h"

namespace sg::batch {

// What a batch was run with; merge reads it back from a shard.
struct BatchSettings {
  std::string submissions;  // absolute
  std::string suite;        // absolute
  std::optional<BackendKind> backend;  // the one graded with; unset: "auto" (an old batch.json)
  bool public_only = false;
  std::string shard;        // "i/N" or ""
};

std::string settings_json(const BatchSettings& s);
// False when the file is absent or not readable as settings.
bool read_settings(const std::string& path, BatchSettings& s);

// Holds an exclusive flock(2) on `<dir>/.batch.lock` for the object's lifetime.
class BatchLock {
 public:
  // Empty `error` on success; otherwise why the folder cannot be taken.
  BatchLock(const std::string& dir, std::string& error);
  ~BatchLock();
  BatchLock(const BatchLock&) = delete;
  BatchLock& operator=(const BatchLock&) = delete;

 private:
  int fd_ = -1;
};

// The last non-empty line of a text file (at most ~300 bytes of it), "" if none.
std::string last_line_of(const std::string& path);

}  // namespace sg::batch
