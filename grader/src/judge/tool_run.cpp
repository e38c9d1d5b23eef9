#include "judge/tool_run.h"

#include <cstdlib>

namespace sg {

ToolRun run_tool(const std::vector<std::string>& argv, const std::vector<std::string>& env, const std::string& cwd,
                 const std::string& output_file, double timeout_s, bool drop_privileges, std::size_t output_cap,
                 bool pid_namespace) {
  ToolRun run;
  SpawnOptions opts;
  opts.argv = argv;
  opts.env = env;
  opts.workdir = cwd;
  opts.output_file = output_file;
  opts.drop_privileges = drop_privileges;
  opts.protocol_pipes = false;
  opts.pid_namespace = pid_namespace;
  std::optional<Child> child = Child::spawn(opts, run.start_error);
  if (!child) return run;
  run.started = true;
  run.exit = child->wait(timeout_s);
  run.output = read_capped_text(output_file, output_cap);
  return run;
}

std::vector<std::string> scrubbed_environment(const std::string& home) {
  std::vector<std::string> env = {"PATH=/usr/local/cuda/bin:/usr/bin:/bin", "HOME=" + home, "LANG=C", "LC_ALL=C",
                                  "CUDA_CACHE_DISABLE=1", "TMPDIR=" + home};
  // The driver's location and the device choice are the TA's settings, not the student's.
  for (const char* name : {"LD_LIBRARY_PATH", "CUDA_VISIBLE_DEVICES", "NVIDIA_VISIBLE_DEVICES",
                           "NVIDIA_DRIVER_CAPABILITIES", "CUDA_DEVICE_ORDER"}) {
    if (const char* v = std::getenv(name)) env.push_back(std::string(name) + "=" + v);
  }
  return env;
}

}  // namespace sg
