#include "batch/canvas_roster.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <sys/stat.h>

#include "io/csv_reader.h"

namespace sg::batch {
namespace {

// Far above any course's export (a row per student, a column per assignment);
// the cap keeps a wrong file (a video, a disk image) from being read whole.
constexpr std::size_t kMaxRosterBytes = 64u << 20;

std::string trimmed(std::string_view s) {
  const std::size_t b = s.find_first_not_of(" \t");
  if (b == std::string_view::npos) return "";
  return std::string(s.substr(b, s.find_last_not_of(" \t") - b + 1));
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::optional<std::size_t> column(const std::vector<std::string>& header, const char* name) {
  for (std::size_t i = 0; i < header.size(); ++i)
    if (lower(trimmed(header[i])) == lower(name)) return i;
  return std::nullopt;
}

std::string cell(const CsvRow& row, std::optional<std::size_t> at) {
  // Spreadsheets drop empty fields at a row's end: a missing field is empty.
  return at && *at < row.fields.size() ? trimmed(row.fields[*at]) : "";
}

std::string joined(const std::vector<std::string>& items) {
  std::string s;
  for (const auto& i : items) s += (s.empty() ? "" : ", ") + i;
  return s;
}

}  // namespace

CanvasRoster parse_canvas_roster(std::string_view text, const std::string& path) {
  const std::string expected = "A Canvas gradebook export (Grades > Export) starts with the columns Student, ID, "
                               "SIS User ID, SIS Login ID, Section.";
  std::vector<CsvRow> rows;
  try {
    rows = read_csv(text);
  } catch (const CsvError& e) {
    throw CanvasRosterError("roster " + path + ": not CSV: " + e.what());
  }
  if (rows.empty()) throw CanvasRosterError("roster " + path + " is empty. " + expected);
  const CsvRow& header = rows.front();
  std::optional<std::size_t> at[4];
  std::vector<std::string> missing;
  for (std::size_t c = 0; c < 4; ++c)
    if (!(at[c] = column(header.fields, kRosterColumns[c]))) missing.push_back(kRosterColumns[c]);
  if (!missing.empty()) {
    std::vector<std::string> found;
    for (const auto& f : header.fields) found.push_back("'" + trimmed(f) + "'");
    throw CanvasRosterError("roster " + path + ": line " + std::to_string(header.line) + " (the header) lacks " +
                            joined(missing) + "; it has " + joined(found) + ". " + expected);
  }
  const std::optional<std::size_t> section = column(header.fields, "Section");
  CanvasRoster roster;
  roster.path = path;
  for (std::size_t r = 1; r < rows.size(); ++r) {
    CanvasStudent s{cell(rows[r], at[0]), cell(rows[r], at[1]), cell(rows[r], at[2]), cell(rows[r], at[3]),
                    cell(rows[r], section), rows[r].line};
    if (lower(s.name) == "points possible") continue;  // Canvas's row of each assignment's points
    if (s.id.empty() && s.sis_user_id.empty() && s.sis_login_id.empty()) continue;  // names no one
    roster.students.push_back(std::move(s));
  }
  if (roster.students.empty())
    throw CanvasRosterError("roster " + path + " lists no student (no row with an ID, SIS User ID or SIS Login ID)");
  return roster;
}

CanvasRoster read_canvas_roster(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    throw CanvasRosterError("cannot read roster " + path + ": " + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) throw CanvasRosterError("roster " + path + " is not a file");
  if (static_cast<unsigned long long>(st.st_size) > kMaxRosterBytes)
    throw CanvasRosterError("roster " + path + " is " + std::to_string(st.st_size) +
                            " bytes; a Canvas gradebook export is far smaller (at most " +
                            std::to_string(kMaxRosterBytes >> 20) + " MiB are read)");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw CanvasRosterError("cannot read roster " + path + ": " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw CanvasRosterError("cannot read roster " + path);
  return parse_canvas_roster(text.str(), path);
}

}  // namespace sg::batch
