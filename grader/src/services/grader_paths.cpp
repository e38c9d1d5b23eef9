#include "services/grader_paths.h"

#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "process/job_identity.h"
#include "process/process.h"
#include "process/program_path.h"

namespace fs = std::filesystem;

namespace sg {

GraderPaths GraderPaths::discover() {
  GraderPaths p;
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  p.home = ec ? fs::current_path().string() : exe.parent_path().string();
  p.source_root = fs::weakly_canonical(fs::path(p.home) / "..", ec).string();
  if (const char* root = std::getenv("SG_SOURCE_ROOT_OVERRIDE")) p.source_root = root;
  const char* nvcc_env = std::getenv("NVCC");
  // $NVCC when it names a program, else the usual search.
  if (nvcc_env && *nvcc_env) p.nvcc = find_program(nvcc_env);
  if (p.nvcc.empty()) p.nvcc = find_program("nvcc", {"/usr/local/cuda/bin/nvcc"});
  std::vector<std::string> san_extra = {"/usr/local/cuda/bin/compute-sanitizer"};
  if (!p.nvcc.empty()) san_extra.insert(san_extra.begin(), fs::path(p.nvcc).parent_path().string() + "/compute-sanitizer");
  p.compute_sanitizer = find_program("compute-sanitizer", san_extra);
  // ncu ships with the toolkit, next to nvcc (a link to the Nsight Compute folder).
  std::vector<std::string> ncu_extra = {"/usr/local/cuda/bin/ncu"};
  if (!p.nvcc.empty()) ncu_extra.insert(ncu_extra.begin(), fs::path(p.nvcc).parent_path().string() + "/ncu");
  p.ncu = find_program("ncu", ncu_extra);
  p.runner_objects = p.home + "/runner";
  p.cpu_include = p.source_root + "/grader/cudacpu/include";
  p.cpu_library = p.home + "/cpu/libcudacpu.a";
  p.cpu_runner_object = p.home + "/cpu/cpu_runner.o";
  p.sandbox = probe_sandbox(acquire_job_identity());
  // A probe the grader could not start for its own lack of resources says
  // nothing of the machine's sandbox: an internal error, not a grading
  // without the sandbox.
  if (!p.sandbox.available() && !machine_resource_error(p.sandbox.why_not).empty())
    throw std::runtime_error("the sandbox could not be probed: " + p.sandbox.why_not);
  return p;
}

}  // namespace sg
