#include "suite/suite_loader.h"

#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <new>
#include <sstream>
#include <sys/stat.h>

#include "suite/suite_schema.h"
#include "suite/yaml_prescan.h"
#include "suite/yaml_source.h"

namespace sg {
namespace {

// Real suites are a few kilobytes; the cap bounds the work on hostile input.
constexpr std::size_t kMaxSuiteBytes = 1 << 20;

[[noreturn]] void fail_whole_file(const std::string& file, const std::string& message) {
  throw SuiteError(file + ":1:1: " + message);
}

}  // namespace

Suite load_suite_string(const std::string& yaml, const std::string& name) {
  const suite_yaml::Source src(name);
  if (yaml.size() > kMaxSuiteBytes)
    fail_whole_file(name, "the suite is " + std::to_string(yaml.size()) +
                              " bytes; at most " + std::to_string(kMaxSuiteBytes) +
                              " are accepted");
  if (yaml.find('\0') != std::string::npos)
    fail_whole_file(name, "the suite contains a NUL byte; it must be a YAML text file");
  try {
    suite_yaml::prescan(yaml, src);
    return suite_yaml::parse_suite(YAML::Load(yaml), src);
  } catch (const YAML::Exception& e) {
    src.fail(e.mark, "invalid YAML: " + e.msg);
  } catch (const std::bad_alloc&) {
    fail_whole_file(name, "out of memory while reading the suite");
  }
}

Suite load_suite_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    fail_whole_file(path, std::string("cannot open the suite: ") + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) fail_whole_file(path, "the suite is not a regular file");
  if (static_cast<unsigned long long>(st.st_size) > kMaxSuiteBytes)
    fail_whole_file(path, "the suite is " + std::to_string(st.st_size) + " bytes; at most " +
                              std::to_string(kMaxSuiteBytes) + " are accepted");
  std::ifstream in(path, std::ios::binary);
  if (!in) fail_whole_file(path, std::string("cannot open the suite: ") + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) fail_whole_file(path, "cannot read the suite");
  return load_suite_string(text.str(), path);
}

}  // namespace sg
