// A batch's words for a grading that did not finish, made in words/ from
// facts (issue 32, item 3): each as the journal and the student's results
// said it before they moved.
#include <gtest/gtest.h>

#include <csignal>

#include "words/batch_report.h"

namespace sg {
namespace {

TEST(BatchWords, HowTheGradeProcessEnded) {
  ExitInfo exited;
  exited.exited = true;
  exited.code = 3;
  EXPECT_EQ(grade_process_end(exited, 1.2, false, ""), "the grade process exited with code 3");
  ExitInfo late;
  late.timed_out = true;
  EXPECT_EQ(grade_process_end(late, 600.4, false, ""), "the grade process timed out after 600 s and was killed");
  ExitInfo killed;
  killed.signal = SIGKILL;
  EXPECT_EQ(grade_process_end(killed, 3, false, ""), "the grade process killed by signal 9 (Killed)");
  EXPECT_EQ(grade_process_end(ExitInfo{}, 0, true, "fork: Resource temporarily unavailable"),
            "the grade process could not start: fork: Resource temporarily unavailable");
  EXPECT_EQ(with_last_message("the grade process exited with code 3", ""), "the grade process exited with code 3");
  EXPECT_EQ(with_last_message("the grade process exited with code 3", "case wide (17x64x2000)"),
            "the grade process exited with code 3; its last message: case wide (17x64x2000)");
}

TEST(BatchWords, WhatAStudentWhoseGradingDidNotFinishReads) {
  EXPECT_EQ(unusable_results("grade-result.json: unexpected end of input"),
            "grade exited normally but left no usable results: grade-result.json: unexpected end of input");
  EXPECT_EQ(missing_submission("class/alice/kernel.cu"), "the submission class/alice/kernel.cu does not exist");
  EXPECT_EQ(not_graded("the grade process exited with code 3"), "not graded: the grade process exited with code 3");
  EXPECT_EQ(not_graded_device(), "not graded");
}

}  // namespace
}  // namespace sg
