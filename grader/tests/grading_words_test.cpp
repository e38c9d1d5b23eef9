// The pipeline's and the check scorers' sentences, made in words/ from facts
// (grading_log, check_report): each pinned as the reports and grade logs say it.
#include <gtest/gtest.h>

#include "words/check_report.h"
#include "words/grading_log.h"

namespace sg {
namespace {

TEST(GradingWords, GradeLogLines) {
  Case c;
  c.name = "odd_1000x777x333";
  c.m = 1000;
  c.k = 777;
  c.n = 333;
  EXPECT_EQ(case_log_line(c), "case odd_1000x777x333 (1000x777x333)");
  EXPECT_EQ(case_runs_alone_log_line("wide"), "case wide runs with the device to itself: an earlier case hung alone");
  EXPECT_EQ(case_runs_again_log_line("wide"),
            "case wide timed out beside other gradings: run again with the device to itself");
  EXPECT_EQ(case_replayed_log_line("wide", 2, false), "case wide: 2 earlier checked launches made again first");
  EXPECT_EQ(case_replayed_log_line("wide", 0, true),
            "case wide: 0 earlier checked launches made again first, and the next one failed");
  EXPECT_EQ(machine_ran_out_log_line("out of descriptors", "", false),
            "the grading machine ran out of resources (out of descriptors): grading again once");
  EXPECT_EQ(machine_ran_out_log_line("No space left on device", "/tmp", true),
            "the grading machine ran out of resources again (No space left on device: /tmp)");
  EXPECT_EQ(machine_ran_out_twice("the judge ran out of memory"),
            "internal error: the grading machine ran out of resources (the judge ran out of memory), twice; this is "
            "not an error in the submission: grade it again");
  EXPECT_EQ(performance_not_measured(true, "x"), "no performance points: the case's result is wrong");
  EXPECT_EQ(performance_not_measured(false, "timed out after 10 s"), "not measured: timed out after 10 s");
  EXPECT_EQ(helpers_note({"tile"}), "style: `tile` is visible outside kernel.cu; the grader made it private (no "
                                    "points lost). Declaring helpers `static` does that in your own code.");
  EXPECT_EQ(helpers_note({"a", "b", "c", "d", "e", "f", "g"}).substr(0, 49),
            "style: `a`, `b`, `c`, `d`, `e` and 2 more are vis");
}

TEST(GradingWords, ScorersVerdicts) {
  EXPECT_EQ(structure_checked_statically("ncu is not installed on this machine", "the compiled code", "tiled"),
            "ncu is not installed on this machine: structure checked from the compiled code instead: tiled");
  EXPECT_EQ(reuse_not_measured_verdict("it hung"), "the data reuse could not be measured: it hung");
  EXPECT_EQ(structure_without_a_correct_case("v"),
            "no points: no correctness case passed (the check pays only for a kernel that computes C); v");
  EXPECT_EQ(sanitizer_failed_in_covered_cases({"a", "b", "c", "d", "e"}),
            "no points: the program failed in 5 small correctness cases (a, b, c, d, ...; see their details), which "
            "the sanitizer covers");
  EXPECT_EQ(sanitizer_but_block_races({"wide"}),
            "no points: blocks raced in 1 correctness case (wide; see their details), although the sanitizer's own "
            "shape was clean");
}

// The report's sandbox line, from the sandbox's and the work folder's facts
// (a folder without mounted quotas here: none were given).
TEST(GradingWords, SandboxLine) {
  SandboxSupport none;
  none.why_not = "bubblewrap (bwrap) is not installed";
  WorkDir work("", false, {}, PrivateMounts{false, "not root"});
  EXPECT_EQ(sandbox_line(none, work),
            "sandbox: unavailable (bubblewrap (bwrap) is not installed): ran with rlimits only; writable folders: "
            "no quota of their own (not root); the scratch folder is measured after each request");
  SandboxSupport bwrap;
  bwrap.bwrap = "/usr/bin/bwrap";
  bwrap.identity.note = "runs as uid 1900000003, this grading's own";
  WorkDir kept("", true, {}, PrivateMounts{true, ""});
  EXPECT_EQ(sandbox_line(bwrap, kept),
            "sandbox: bubblewrap (namespaces, read-only toolchain, private /tmp) + seccomp; untrusted code runs as "
            "uid 1900000003, this grading's own; writable folders: no quota of their own (the work folder is kept "
            "(--keep-work)); the scratch folder is measured after each request");
  EXPECT_EQ(work_folder_moved_line("/root/tmp"), "work folder under /tmp: the runner's user cannot reach /root/tmp");
}

}  // namespace
}  // namespace sg
