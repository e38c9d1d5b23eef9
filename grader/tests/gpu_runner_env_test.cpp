// The environment every run of a GPU runner gets (backends/gpu/gpu_backend.cpp):
// made without a GPU, since nothing here starts CUDA.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "backends/gpu/cuda_connections.h"
#include "backends/gpu/gpu_backend.h"
#include "services/grader_paths.h"
#include "services/work_dir.h"

namespace sg {
namespace {

bool has(const std::vector<std::string>& env, const std::string& entry) {
  return std::find(env.begin(), env.end(), entry) != env.end();
}

// The student's runner, the baselines' and (through the same function) the
// tools' runs: each asks for one work queue, and for its modules at once.
TEST(GpuRunnerEnvironment, EveryRunnerAsksForOneWorkQueueAndEagerModules) {
  GraderPaths paths;
  BackendSetup setup;
  setup.paths = &paths;
  setup.device_arch = "sm_90";  // the GPU as a batch names it: no CUDA started until a build
  const std::unique_ptr<Backend> backend = make_gpu_backend(setup, std::nullopt);
  WorkDir work("", false);
  for (const char* scratch : {"scratch", "tool-scratch", "baseline-scratch"}) {
    const RunnerConfig rc = backend->runner_config("/bin/true", work, scratch);
    EXPECT_TRUE(has(rc.env, std::string(kCudaConnectionsVariable) + "=" + kCudaConnections)) << scratch;
    EXPECT_TRUE(has(rc.env, "CUDA_MODULE_LOADING=EAGER")) << scratch;
    EXPECT_EQ(std::count_if(rc.env.begin(), rc.env.end(),
                            [](const std::string& e) { return e.rfind("CUDA_DEVICE_MAX_CONNECTIONS=", 0) == 0; }),
              1)
        << scratch;
  }
}

}  // namespace
}  // namespace sg
