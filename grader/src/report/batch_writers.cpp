// What the batch writers share: the column order, folder names, writing to disk.
#include "report/batch_writers.h"

#include <sha2.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <stdexcept>

#include "io/atomic_file.h"
#include "report/class_files.h"

namespace sg {

std::vector<std::string> test_columns(const std::vector<GradeResult>& results) {
  std::vector<std::string> cols;
  for (const auto& r : results) {
    // Names not yet known wait until the next known name, then go in front of
    // it; that keeps suite order when early results lack some tests.
    std::vector<std::string> pending;
    std::size_t insert_at = cols.size();
    bool anchored = false;
    for (const auto& t : r.tests) {
      const auto it = std::find(cols.begin(), cols.end(), t.name);
      if (it == cols.end()) {
        if (std::find(pending.begin(), pending.end(), t.name) != pending.end()) continue;
        if (anchored) {
          cols.insert(cols.begin() + static_cast<std::ptrdiff_t>(insert_at++), t.name);
        } else {
          pending.push_back(t.name);
        }
        continue;
      }
      std::size_t idx = static_cast<std::size_t>(it - cols.begin());
      if (!anchored) {
        cols.insert(it, pending.begin(), pending.end());
        idx += pending.size();
        pending.clear();
        anchored = true;
      }
      insert_at = idx + 1;
    }
    cols.insert(cols.end(), pending.begin(), pending.end());
  }
  return cols;
}

std::string report_folder(const std::string& student) {
  std::string out;
  for (char c : student) {
    const bool safe = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                      c == '.' || c == '_' || c == '-';
    out += safe ? c : '_';
  }
  bool reserved = out.empty() || out[0] == '.';
  for (const char* f : class_files::kAll) reserved = reserved || out == f;
  // A name like one this function makes ("x-0123abcd") is suffixed too, so
  // that no id can take another's folder.
  const bool looks_suffixed =
      out.size() >= 9 && out[out.size() - 9] == '-' &&
      std::all_of(out.end() - 8, out.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
  if (out == student && !reserved && !looks_suffixed) return out;
  // Changed or reserved: a suffix from the id itself keeps every id's folder
  // its own ("jane+doe@x" and "jane_doe@x" would otherwise share one).
  char hex[SHA256_DIGEST_STRING_LENGTH];
  SHA256Data(reinterpret_cast<const std::uint8_t*>(student.data()), student.size(), hex);
  return (reserved ? "_" : "") + out + "-" + std::string(hex, 8);
}

void write_batch_reports(const std::vector<GradeResult>& results, const std::string& dir,
                         const std::string& title, const std::string& extra) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw std::runtime_error("cannot create report folder " + dir + ": " + ec.message());
  const std::filesystem::path base(dir);
  write_file_atomically((base / class_files::kGradebook).string(), gradebook_csv(results));
  write_file_atomically((base / class_files::kSummary).string(), summary_html(results, title, extra));
}

}  // namespace sg
