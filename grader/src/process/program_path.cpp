#include "process/program_path.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>

namespace sg {
namespace {

bool is_executable_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

}  // namespace

std::string find_program(const std::string& name, const std::vector<std::string>& fallbacks) {
  if (name.find('/') != std::string::npos) return is_executable_file(name) ? name : "";
  if (!name.empty()) {
    const char* env = std::getenv("PATH");
    const std::string path = env && *env ? env : "/usr/local/bin:/usr/bin:/bin";
    for (std::size_t start = 0; start <= path.size();) {
      std::size_t end = path.find(':', start);
      if (end == std::string::npos) end = path.size();
      const std::string dir = end > start ? path.substr(start, end - start) : ".";
      if (const std::string candidate = dir + "/" + name; is_executable_file(candidate)) return candidate;
      start = end + 1;
    }
  }
  for (const std::string& f : fallbacks)
    if (is_executable_file(f)) return f;
  return "";
}

}  // namespace sg
