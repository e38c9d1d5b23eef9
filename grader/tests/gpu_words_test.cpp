// The GPU backend's sentences, made in words/ from facts (issue 32, item 3):
// each says exactly what the backend said before they moved, so reports,
// grade logs and the samples' expected verdicts keep their words. No GPU needed.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "words/build_report.h"
#include "words/check_report.h"
#include "words/gpu_backend_lines.h"
#include "words/sanitizer_report.h"

namespace sg {
namespace {

TEST(GpuWords, DeviceAndMemory) {
  EXPECT_EQ(gpu_device_name("NVIDIA H200", "sm_90"), "NVIDIA H200 (sm_90)");
  EXPECT_EQ(gpu_not_started_name("sm_90"), "a GPU for sm_90 (not started: nothing was built)");
  EXPECT_EQ(no_usable_gpu(no_cuda_device()), "--backend gpu: no usable GPU (no CUDA device)");
  EXPECT_EQ(no_usable_gpu(built_without_cuda()), "--backend gpu: no usable GPU (built without CUDA (SG_NO_CUDA))");
  EXPECT_EQ(nvcc_not_found(), "--backend gpu: nvcc not found (PATH, /usr/local/cuda/bin)");
  EXPECT_EQ(device_call_failed("cudaGetDeviceCount", "no CUDA-capable device is detected"),
            "cudaGetDeviceCount: no CUDA-capable device is detected");
  EXPECT_EQ(cuda_call_failed("cudaSetDevice(0)", "cudaErrorNoDevice", "no CUDA-capable device is detected"),
            "cudaSetDevice(0) failed: cudaErrorNoDevice (no CUDA-capable device is detected)");
  EXPECT_EQ(cublas_call_failed("cublasCreate(&impl_->handle)", 1), "cublasCreate(&impl_->handle) failed: cuBLAS status 1");
  const double gib = 1024.0 * 1024 * 1024;
  EXPECT_EQ(gpu_memory_short(150.25 * gib, 139.04 * gib),
            "not run: the case needs about 150.2 GiB of GPU memory and the GPU has 139.0 GiB free");
}

TEST(GpuWords, BuildSaysWhyItStoppedAndWhatItLogged) {
  EXPECT_EQ(did_not_compile_why(), "the submission did not compile");
  EXPECT_EQ(runner_not_linked_why(), "the runner could not be linked with the submission");
  EXPECT_EQ(defines_grader_symbol_why(),
            "rejected: the submission defines a symbol the grader or the CUDA runtime defines (see the link log)");
  EXPECT_EQ(baseline_runner_missing_why(), "internal error: the grader's baseline runner is missing");
  EXPECT_EQ(static_check_rejection_log({"calls system", "defines main"}),
            "\nrejected by the static checks:\n  calls system\n  defines main\n");
  EXPECT_EQ(gpu_runner_link_failed_log("exited with code 1", "ld: multiple definition of `main'\n"),
            "\nlinking the runner failed (exited with code 1):\nld: multiple definition of `main'\n");
  EXPECT_EQ(baseline_runner_missing_log("build/runner/baseline_runner", "No such file or directory"),
            "\nthe grader's baseline runner is missing (build/runner/baseline_runner: No such file or directory); "
            "run `make` first\n");
}

TEST(GpuWords, GradeLogLines) {
  EXPECT_EQ(building_again_log_line("sm_90", "sm_80"), "building again for sm_90 (not sm_80)");
  EXPECT_EQ(gpu_sanitizer_log_line(9, "41x67x53 (drawn from the seed)"),
            "sanitizer memcheck (9 shapes) and racecheck (41x67x53 (drawn from the seed))");
  EXPECT_EQ(sanitizer_hung_log_line("racecheck"),
            "sanitizer racecheck hung beside other gradings: run again with the GPU to itself");
  EXPECT_EQ(ncu_hung_log_line(), "ncu hung beside other gradings: run again with the GPU to itself");
  EXPECT_EQ(ncu_loads_log_line(512, 256, 128), "ncu: global loads at 512x256x128");
  EXPECT_EQ(counters_loads_log_line(1024, 512, 256), "structure: global loads at 1024x512x256 (the GPU's counters)");
  EXPECT_EQ(counter_opened_log_line(0.25, 0.107227),
            "load counter opened in 0.107227 s (prepared before the hold in 0.250000 s)");
  EXPECT_EQ(counter_samples_lost(), "the GPU's sample buffer overflowed");
  EXPECT_EQ(counter_not_built(), "this grader was built without CUPTI's PM sampling");
  EXPECT_EQ(device_not_quiet(164123.0, 5), "the device was not quiet before the launch (164123 loads of other work in 5 ms)");
  EXPECT_EQ(hold_taken_log_line(HoldKind::GpuShared, 1.234), "has the GPU shared after waiting 1.23 s");
  EXPECT_EQ(hold_taken_log_line(HoldKind::GpuExclusive, 0), "has the GPU to itself after waiting 0.00 s");
  EXPECT_EQ(hold_taken_log_line(HoldKind::Profiler, 2.5), "ncu has the profiler after waiting 2.50 s");
  EXPECT_EQ(hold_given_back_log_line(HoldKind::GpuExclusive, 12), "gives the GPU back after 12.00 s");
  EXPECT_EQ(hold_given_back_log_line(HoldKind::GpuShared, 12), "gives the GPU (shared) back after 12.00 s");
  EXPECT_EQ(hold_given_back_log_line(HoldKind::Profiler, 0.5), "ncu gives the profiler back after 0.50 s");
  EXPECT_EQ(counters_unread_log_line("the device was not quiet"),
            "structure: the GPU's counters could not be read (the device was not quiet): ncu counts instead");
}

TEST(GpuWords, SanitizerShapesAndEndings) {
  EXPECT_EQ(named_shape_label(40, 50, 36, {"sanitizer", "m_not_multiple"}), "40x50x36 (sanitizer, m_not_multiple)");
  EXPECT_EQ(named_shape_label(1, 1, 1, {"tiny_1x1x1"}), "1x1x1 (tiny_1x1x1)");
  EXPECT_EQ(drawn_shape_label(41, 67, 53), "41x67x53 (drawn from the seed)");
  EXPECT_EQ(sanitizer_not_installed(), "not run: compute-sanitizer is not installed on this machine");
  EXPECT_EQ(sanitizer_ending(SanitizerEnding::NotStarted, "bwrap: no such file", 30),
            "could not start: bwrap: no such file");
  EXPECT_EQ(sanitizer_ending(SanitizerEnding::QuietBeforeLaunches, "", 30),
            "stopped: its program had not started its launches after 30 s (it hung before them)");
  EXPECT_EQ(sanitizer_ending(SanitizerEnding::WentQuiet, "", 30), "stopped: no progress for 30 s, the kernel hung");
  EXPECT_EQ(sanitizer_ending(SanitizerEnding::TimedOut, "", 30), "timed out");
  EXPECT_EQ(sanitizer_ending(SanitizerEnding::FoundErrors, "", 30), "found errors");
  EXPECT_EQ(sanitizer_ending(SanitizerEnding::LaunchFailed, "selftest: failed at 1x1x1", 30),
            "the launch failed (selftest: failed at 1x1x1)");
  EXPECT_EQ(sanitizer_ending(SanitizerEnding::EndedEarly, "exited with code 0", 30),
            "the program ended before its launches completed (exited with code 0)");
  EXPECT_EQ(sanitizer_ending(SanitizerEnding::Failed, "killed by signal 11", 30),
            "the program failed (killed by signal 11)");
}

TEST(GpuWords, SanitizerVerdictAndDetail) {
  const std::string race = "41x67x53 (drawn from the seed)";
  EXPECT_EQ(gpu_sanitizer_clean_verdict(9, race, 12.34),
            "compute-sanitizer memcheck (9 shapes) and racecheck (41x67x53 (drawn from the seed)) found no errors "
            "(12.3 s)");
  EXPECT_EQ(sanitizer_finding("memcheck", "found errors", "40x50x36 (a)"), "memcheck found errors at 40x50x36 (a)");
  EXPECT_EQ(sanitizer_finding("racecheck", "timed out", ""), "racecheck timed out");
  EXPECT_EQ(gpu_sanitizer_failed_verdict({"memcheck found errors at 1x1x1 (b)", "racecheck timed out"}, 7.06),
            "memcheck found errors at 1x1x1 (b); racecheck timed out (7.1 s)");
  EXPECT_EQ(gpu_sanitizer_detail({"40x50x36 (a)"}, race, "", 3),
            "memcheck ran 1 shape in one process: 40x50x36 (a)\nracecheck ran 41x67x53 (drawn from the seed)\n"
            "the sanitizer took 3.0 s\n");
  const std::string again = sanitizer_ran_again_line("memcheck");
  EXPECT_EQ(again, "memcheck hung while other gradings shared the GPU, so it ran again with the GPU to itself\n");
  EXPECT_EQ(gpu_sanitizer_detail({"40x50x36 (a)", "1x1x1 (b)"}, race, again, 61.25),
            "memcheck ran 2 shapes in one process: 40x50x36 (a), 1x1x1 (b)\nracecheck ran 41x67x53 (drawn from the "
            "seed)\n" + again + "the sanitizer took 61.2 s\n");
  EXPECT_EQ(sanitizer_output_summary("memcheck", "exited with code 10", "  Invalid __global__ read\n"),
            "memcheck: exited with code 10\n  Invalid __global__ read\n");
}

TEST(GpuWords, WhyTheCountersOrNcuCountedNothing) {
  EXPECT_EQ(recount_not_completed(), "the launch, made again to be counted a second time, did not complete");
  EXPECT_EQ(counts_differed(2097152, 2097184),
            "two counts of the same launch differed (2097152 and 2097184): other work shared the device");
  EXPECT_EQ(ncu_not_installed(), "ncu (Nsight Compute) is not installed on this machine");
  EXPECT_EQ(ncu_counters_admin_only(true),
            "ncu could not read the GPU's counters (the driver lets only administrators read them: "
            "RmProfilingAdminOnly=1)");
  EXPECT_EQ(ncu_counters_admin_only(false), "ncu could not read the GPU's counters (ERR_NVGPUCTRPERM)");
  EXPECT_EQ(ncu_profiler_busy(5), "ncu could not get the GPU's profiler (another profiling tool held it 5 times)");
  EXPECT_EQ(ncu_not_started("no such file"), "ncu could not start: no such file");
  EXPECT_EQ(ncu_kernel_incomplete(512, 256, 128, ncu_hung_before_launch(60), ""),
            "the kernel did not complete under ncu at 512x256x128 (it had not reached its launch after 60 s: it hung "
            "before it)");
  EXPECT_EQ(ncu_kernel_incomplete(512, 256, 128, ncu_went_quiet(60), ": one failed; two"),
            "the kernel did not complete under ncu at 512x256x128 (no progress for 60 s once it had the profiler: the "
            "kernel hung: one failed; two)");
  EXPECT_EQ(ncu_launch_failed("too many resources"), "the launch failed: too many resources");
  EXPECT_EQ(ncu_ended_before_launch("killed by signal 9"), "it ended before its launch completed: killed by signal 9");
  EXPECT_EQ(no_global_load(), "the kernel executed no global load at all");
  EXPECT_EQ(ncu_line_not_csv(), "a line of ncu's table is not CSV");
  EXPECT_EQ(ncu_two_headers(), "ncu's output holds more than one table header");
  EXPECT_EQ(ncu_row_width(3, 4), "a row of ncu's table has 3 columns, the header 4");
  EXPECT_EQ(ncu_value_not_count("m", "12a"), "ncu's value of m is not a count: '12a'");
  EXPECT_EQ(ncu_no_table(), "ncu printed no table");
  EXPECT_EQ(ncu_no_row("m"), "ncu's table has no row of m (no kernel was launched?)");
}

}  // namespace
}  // namespace sg
