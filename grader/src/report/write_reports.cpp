// Puts results.json, junit.xml and report.md into one output folder.
#include <filesystem>
#include <stdexcept>
#include <string>

#include "report/file_output.h"
#include "report/writers.h"

namespace sg {

void write_reports(const GradeResult& r, const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw std::runtime_error("cannot create report folder " + dir + ": " + ec.message());
  const std::filesystem::path base(dir);
  report::write_text_file((base / "results.json").string(), results_json(r));
  report::write_text_file((base / "junit.xml").string(), junit_xml(r));
  report::write_text_file((base / "report.md").string(), report_markdown(r));
}

}  // namespace sg
