// Thin writers over one GradeResult. Each returns the text it would write so
// that tests can check it without touching files; write_reports puts them all
// into one folder.
#pragma once
#include <ostream>
#include <string>

#include "model/result.h"
#include "model/result_codec.h"

namespace sg {

std::string results_json(const GradeResult& r);   // Gradescope autograder schema
std::string junit_xml(const GradeResult& r);
std::string report_markdown(const GradeResult& r);
std::string report_html(const GradeResult& r);  // self-contained page: heat maps, timing charts
void print_summary(const GradeResult& r, std::ostream& out, bool color);

// Every file a grading writes into its output folder, each a view of the
// same GradeResult. A new format is a new writer above and a line here.
struct FileView {
  const char* file;
  std::string (*write)(const GradeResult&);
};
inline const FileView kFileViews[] = {
    {kResultFile, encode_result},  // the lossless form batch mode reads back
    {"results.json", results_json},
    {"junit.xml", junit_xml},
    {"report.md", report_markdown},
    {"report.html", report_html},
};

// Writes every kFileViews file into `dir` (created if needed).
// Throws std::runtime_error naming the path when it cannot be written.
void write_reports(const GradeResult& r, const std::string& dir);

// Should the terminal summary use colour: a TTY and NO_COLOR unset/empty.
bool use_color(int fd);

}  // namespace sg
