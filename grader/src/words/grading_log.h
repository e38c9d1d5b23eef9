// The pipeline's own words (pipeline/ decides when): its lines in the grade
// log, a grading that the machine's resources cut short, and the build's
// style note about helpers the grader made private.
#pragma once
#include <string>
#include <vector>

#include "model/suite.h"
#include "process/sandbox.h"
#include "services/work_dir.h"
#include "words/verdict_preambles.h"  // not_run: every test of a grading that could not go on

namespace sg {

// "case square_256 (256x256x256)"; the case runs alone at once (an earlier
// case hung alone); it timed out beside other gradings and runs again alone;
// `replayed` earlier checked launches were made again first (`failed_in_replay`:
// and the next one failed).
std::string case_log_line(const Case& c);
std::string case_runs_alone_log_line(const std::string& name);
std::string case_runs_again_log_line(const std::string& name);
std::string case_replayed_log_line(const std::string& name, std::size_t replayed, bool failed_in_replay);

// The timed cases' steps: waiting for the GPU to itself, ending the
// student's runner, timing cuBLAS, checking the outputs.
std::string waiting_for_exclusive_log_line();
std::string ending_runner_log_line();
std::string cublas_log_line();
std::string checking_outputs_log_line();
std::string outputs_checked_log_line();  // "the timed outputs checked"
// A performance case whose checked launch failed: its result was wrong, or
// it did not run (`case_verdict`, the case's own verdict).
std::string performance_not_measured(bool result_wrong, const std::string& case_verdict);

// The machine ran out of resources (`what`, `detail` where known) or the
// judge out of memory: graded again once; again: an internal error.
std::string machine_ran_out_log_line(const std::string& what, const std::string& detail, bool again);
std::string judge_out_of_memory();
std::string judge_out_of_memory_log_line();
// A case whose request failed: its time on the judge's clock, of it a
// replacement runner's partition asked for first and ending the failed runner.
std::string request_failed_log_line(const std::string& name, double request_s, double partition_s, double ending_s);
// --backend unset, the GPU chosen before CUDA described it, and none usable (`why`).
std::string no_gpu_after_all_log_line(const std::string& why);
std::string machine_ran_out_twice(const std::string& what);
std::string build_ran_out_log_line(const std::string& what);
std::string build_ran_out_twice(const std::string& what);

// Helpers the grader made private (no points lost): a style note naming up to five.
std::string helpers_note(const std::vector<std::string>& helpers);

// The report's sandbox line: how untrusted code ran ("sandbox: bubblewrap
// (...) + seccomp", or unavailable and why; who it ran as) and how what the
// grading writes is bounded (its tmpfs quotas, or why it has none).
std::string sandbox_line(const SandboxSupport& sandbox, const WorkDir& work);
// The grade log's line when the work folder asked for could not be used.
std::string work_folder_moved_line(const std::string& unreachable_root);

}  // namespace sg
