// Puts every file view of a grading (writers.h, kFileViews) into one output folder.
#include <filesystem>
#include <stdexcept>
#include <string>

#include "io/atomic_file.h"
#include "report/writers.h"

namespace sg {

void write_reports(const GradeResult& r, const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw std::runtime_error("cannot create report folder " + dir + ": " + ec.message());
  const std::filesystem::path base(dir);
  for (const FileView& v : kFileViews) write_file_atomically((base / v.file).string(), v.write(r));
}

}  // namespace sg
