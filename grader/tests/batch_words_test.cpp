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

// The TA's console during a batch: the same lines batch/ printed itself.
TEST(BatchWords, TheConsoleLinesOfABatch) {
  EXPECT_EQ(grading_again("ada", true), "ada: the submission changed since it was graded; grading again");
  EXPECT_EQ(grading_again("ada", false), "ada: its grade-result.json is missing; grading again");
  EXPECT_EQ(batch_plan(1, "subs", "", 1, 0), "1 submission in subs: 1 to grade, 0 already graded (journal)");
  EXPECT_EQ(batch_plan(12, "subs", "3/4", 2, 1), "12 submissions in subs, shard 3/4: 2 to grade, 1 already graded (journal)");
  EXPECT_EQ(gpus_in_use(0), "no GPU in use: grading on the CPU backend");
  EXPECT_EQ(gpus_in_use(1), "1 GPU in use");
  EXPECT_EQ(gpus_in_use(2), "2 GPUs in use");
  EXPECT_EQ(batch_written(3, 4, "out"), "3 of 4 submissions graded normally; wrote out/gradebook.csv and out/summary.html");
  EXPECT_EQ(merge_written(2, 5, "o"), "2 shards, 5 students; wrote o/gradebook.csv and o/summary.html");
  EXPECT_EQ(students_without_result({"a", "b"}), "2 students have no result in any shard: a, b");
  EXPECT_EQ(slurm_script_written("o/grade.sbatch", 4, "o/grade.sbatch", "build/grade batch --merge o"),
            "wrote o/grade.sbatch (4 shards)\n  submit:  sbatch o/grade.sbatch\n  then:    build/grade batch --merge o");
}

}  // namespace
}  // namespace sg
