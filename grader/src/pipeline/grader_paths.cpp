#include "pipeline/grader_paths.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <vector>

namespace fs = std::filesystem;

namespace sg {
namespace {

std::string find_program(const char* name, const std::vector<std::string>& extra) {
  if (const char* path = std::getenv("PATH")) {
    std::string p(path);
    std::size_t start = 0;
    while (start <= p.size()) {
      std::size_t end = p.find(':', start);
      if (end == std::string::npos) end = p.size();
      std::string cand = p.substr(start, end - start) + "/" + name;
      if (end > start && ::access(cand.c_str(), X_OK) == 0) return cand;
      start = end + 1;
    }
  }
  for (const auto& e : extra)
    if (::access(e.c_str(), X_OK) == 0) return e;
  return "";
}

}  // namespace

GraderPaths GraderPaths::discover() {
  GraderPaths p;
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  p.home = ec ? fs::current_path().string() : exe.parent_path().string();
  p.source_root = fs::weakly_canonical(fs::path(p.home) / "..", ec).string();
  if (const char* root = std::getenv("SG_SOURCE_ROOT_OVERRIDE")) p.source_root = root;
  p.nvcc = std::getenv("NVCC") && ::access(std::getenv("NVCC"), X_OK) == 0
               ? std::getenv("NVCC")
               : find_program("nvcc", {"/usr/local/cuda/bin/nvcc"});
  std::vector<std::string> san_extra = {"/usr/local/cuda/bin/compute-sanitizer"};
  if (!p.nvcc.empty()) san_extra.insert(san_extra.begin(), fs::path(p.nvcc).parent_path().string() + "/compute-sanitizer");
  p.compute_sanitizer = find_program("compute-sanitizer", san_extra);
  p.runner_objects = p.home + "/runner";
  p.cpu_include = p.source_root + "/grader/src/backends/cpu/runtime/include";
  p.cpu_library = p.home + "/cpu/libcudacpu.a";
  p.cpu_runner_object = p.home + "/cpu/cpu_runner.o";
  return p;
}

}  // namespace sg
