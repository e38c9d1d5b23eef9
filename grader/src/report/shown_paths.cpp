#include "report/shown_paths.h"

#include <cctype>
#include <filesystem>
#include <string_view>

namespace fs = std::filesystem;

namespace sg::report {
namespace {

// The characters of a path as compilers and tools print one; anything else ends it.
bool path_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || std::string_view("/._+-~@").find(c) != std::string_view::npos;
}

// What may stand before a path that starts there.
bool path_start(char before) {
  return std::isspace(static_cast<unsigned char>(before)) || std::string_view("([\"'`=,").find(before) != std::string_view::npos;
}

// "/a/b" and longer: a root alone ("/tmp") says nothing of the machine's layout.
bool two_components(std::string_view path) {
  if (path.size() < 2 || path[1] == '/') return false;
  const std::size_t next = path.find('/', 1);
  return next != std::string_view::npos && next + 1 < path.size() && path[next + 1] != '/';
}

std::string_view last_component(std::string_view path) {
  while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  return path.substr(path.rfind('/') + 1);
}

bool ends_with(std::string_view s, std::string_view tail) {
  return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

// Whether the path at [at, end) of `text` names a file a tool read (see the header).
bool names_a_read_file(std::string_view text, std::size_t line_start, std::size_t at, std::size_t end) {
  if (last_component(text.substr(at, end - at)) == kCompiledName) return true;
  const std::string_view before = text.substr(line_start, at - line_start);
  if (before.find_first_not_of(" \t") == std::string_view::npos) return true;
  if (ends_with(before, "from ")) return true;
  if (end + 1 >= text.size()) return false;
  const char sep = text[end], next = text[end + 1];
  return (sep == ':' || sep == '(') && (std::isdigit(static_cast<unsigned char>(next)) || next == '(');
}

void replace_all(std::string& text, const std::string& from, const std::string& to) {
  if (from.empty() || from == to) return;
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
}

}  // namespace

std::string shown_path(const std::string& path) {
  const fs::path p(path);
  bool climbs = false;
  for (const auto& part : p) climbs = climbs || part == "..";
  if (p.is_relative() && !climbs) return path;
  const std::string name(last_component(path));
  return name.empty() ? path : name;
}

std::string shorten_machine_paths(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  std::size_t line_start = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '/' && (i == 0 || path_start(text[i - 1]))) {
      std::size_t end = i;
      while (end < text.size() && path_char(text[end])) ++end;
      const std::string_view path = std::string_view(text).substr(i, end - i);
      if (two_components(path) && names_a_read_file(text, line_start, i, end)) {
        out += last_component(path);
        i = end - 1;
        continue;
      }
    }
    out += c;
    if (c == '\n') line_start = i + 1;
  }
  return out;
}

std::string shown_name(const GradeResult& r) {
  const fs::path p(r.submission);
  const fs::path file = p.filename().empty() ? p.parent_path().filename() : p.filename();
  // A name given with --student or by a batch differs from the file's own.
  if (!r.student.empty() && r.student != file.string()) return r.student;
  if (file.extension() != ".cu") return file.empty() ? r.student : file.string();
  const fs::path folder = p.parent_path().filename();
  if (file.stem() == "kernel" && !folder.empty() && folder != "." && folder != "..") return folder.string();
  return file.stem().string();
}

GradeResult as_shown(const GradeResult& r) {
  GradeResult v = r;
  v.student = shown_name(r);
  v.submission = shown_path(r.submission);
  v.suite_path = shown_path(r.suite_path);
  // Texts that name the submission by the path it was given as (a batch's
  // "does not exist") name it as the views do.
  std::string given = r.submission;
  while (given.size() > 1 && given.back() == '/') given.pop_back();
  const bool absolute = fs::path(given).is_absolute();
  auto shown = [&](std::string text) {
    if (absolute) replace_all(text, given, v.submission);
    return shorten_machine_paths(text);
  };
  v.build_log = shown(r.build_log);
  for (auto& n : v.notes) n = shown(n);
  for (auto& t : v.tests) {
    t.verdict = shown(t.verdict);
    t.detail = shown(t.detail);
  }
  return v;
}

}  // namespace sg::report
