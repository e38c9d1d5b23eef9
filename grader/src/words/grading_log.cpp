#include "words/grading_log.h"

#include <fmt/format.h>

#include "words/verdict_preambles.h"

namespace sg {

std::string case_log_line(const Case& c) { return fmt::format("case {} ({}x{}x{})", c.name, c.m, c.k, c.n); }
std::string case_runs_alone_log_line(const std::string& name) {
  return "case " + name + " runs with the device to itself: an earlier case hung alone";
}
std::string case_runs_again_log_line(const std::string& name) {
  return "case " + name + " timed out beside other gradings: run again with the device to itself";
}
std::string case_replayed_log_line(const std::string& name, std::size_t replayed, bool failed_in_replay) {
  return fmt::format("case {}: {} earlier checked launches made again first{}", name, replayed,
                     failed_in_replay ? ", and the next one failed" : "");
}

std::string waiting_for_exclusive_log_line() { return "waiting for the GPU to itself (timed cases)"; }
std::string ending_runner_log_line() { return "ending the student's runner"; }
std::string cublas_log_line() { return "cuBLAS"; }
std::string checking_outputs_log_line() { return "checking the timed outputs"; }
std::string outputs_checked_log_line() { return "the timed outputs checked"; }
std::string performance_not_measured(bool result_wrong, const std::string& case_verdict) {
  return result_wrong ? "no performance points: the case's result is wrong" : not_measured(case_verdict);
}

std::string machine_ran_out_log_line(const std::string& what, const std::string& detail, bool again) {
  return std::string(again ? "the grading machine ran out of resources again (" : "the grading machine ran out of resources (") +
         what + (detail.empty() ? "" : ": " + detail) + (again ? ")" : "): grading again once");
}
std::string judge_out_of_memory() { return "the judge ran out of memory"; }
std::string judge_out_of_memory_log_line() { return "the judge ran out of memory: grading again once"; }
std::string request_failed_log_line(const std::string& name, double request_s, double partition_s, double ending_s) {
  std::string line = fmt::format("case {} failed after {:.2f} s", name, request_s);
  if (partition_s > 0) line += fmt::format(" (its runner's partition {:.2f} s first)", partition_s);
  if (ending_s > 0) line += fmt::format(", ending its runner {:.2f} s of it", ending_s);
  return line;
}
std::string no_gpu_after_all_log_line(const std::string& why) {
  return "no usable GPU (" + why + "): grading again on the cpu backend";
}
std::string machine_ran_out_twice(const std::string& what) {
  return "internal error: the grading machine ran out of resources (" + what +
         "), twice; this is not an error in the submission: grade it again";
}
std::string build_ran_out_log_line(const std::string& what) {
  return "the build ran out of the machine's resources (" + what + "): building again once";
}
std::string build_ran_out_twice(const std::string& what) {
  return "internal error: the grading machine ran out of resources while building (" + what +
         "), twice; this is not an error in the submission: grade it again";
}

std::string helpers_note(const std::vector<std::string>& helpers) {
  std::string names;
  for (std::size_t i = 0; i < helpers.size() && i < 5; ++i) names += (i ? ", `" : "`") + helpers[i] + "`";
  if (helpers.size() > 5) names += " and " + std::to_string(helpers.size() - 5) + " more";
  return "style: " + names + (helpers.size() == 1 ? " is" : " are") + " visible outside kernel.cu; the grader made " +
         (helpers.size() == 1 ? "it" : "them") +
         " private (no points lost). Declaring helpers `static` does that in your own code.";
}

std::string sandbox_line(const SandboxSupport& sandbox, const WorkDir& work) {
  const std::string who = sandbox.identity.note.empty() ? "" : "; untrusted code " + sandbox.identity.note;
  std::string line = sandbox.available()
                         ? "sandbox: bubblewrap (namespaces, read-only toolchain, private /tmp) + seccomp" + who
                         : "sandbox: unavailable (" + sandbox.why_not + "): ran with rlimits only" + who;
  if (work.quotas_mounted())
    return line + fmt::format("; writable folders: tmpfs quotas of their own (work {} MiB, scratch {} MiB)",
                              work.quotas().work.bytes >> 20, work.quotas().scratch.bytes >> 20);
  return line + "; writable folders: no quota of their own (" + work.why_no_quotas() +
         "); the scratch folder is measured after each request";
}

std::string work_folder_moved_line(const std::string& unreachable_root) {
  return "work folder under /tmp: the runner's user cannot reach " + unreachable_root;
}

}  // namespace sg
