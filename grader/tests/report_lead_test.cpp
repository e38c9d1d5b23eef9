// What every view of a grading opens with when the tests could not run (a
// compile error, a rejection): the state, the reason and the compiler's first
// errors, then the score, with the tests that did not run folded into one line;
// and that no view names a folder of the TA's machine (issue 36, items 5 and 9).
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "report/writers.h"

namespace {

using nlohmann::json;

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// The first `n` lines of `text`.
std::string head(const std::string& text, int n) {
  std::size_t at = 0;
  for (int i = 0; i < n && at != std::string::npos; ++i) {
    at = text.find('\n', at);
    if (at != std::string::npos) ++at;
  }
  return text.substr(0, at);
}

// report.html's body, one element a line: what a reader sees first.
std::string html_body(const std::string& html) {
  const std::size_t at = html.find("<body>");
  return at == std::string::npos ? "" : html.substr(html.find('\n', at) + 1);
}

std::string terminal(const sg::GradeResult& r) {
  std::ostringstream out;
  sg::print_summary(r, out, false);
  return out.str();
}

std::string gradescope_output(const sg::GradeResult& r) { return json::parse(sg::results_json(r))["output"]; }

// Whether each needle occurs, each after the one before.
bool in_order(const std::string& text, std::initializer_list<std::string> needles) {
  std::size_t at = 0;
  for (const auto& n : needles) {
    at = text.find(n, at);
    if (at == std::string::npos) return false;
    at += n.size();
  }
  return true;
}

int count(const std::string& text, const std::string& needle) {
  int n = 0;
  for (std::size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

// The 18 tests of a suite, none run, every one with the reason fail_all gives it.
sg::GradeResult stopped(sg::GradeState state, const std::string& why, const std::string& log) {
  sg::GradeResult r;
  r.submission = "alice/kernel.cu";
  r.student = "alice";
  r.suite_name = "default";
  r.suite_path = "testcases/default.yaml";
  r.backend = sg::BackendKind::Cpu;
  r.device = "host CPU (correctness only)";
  r.sandbox = "sandbox: bubblewrap (namespaces, read-only toolchain, private /tmp) + seccomp";
  r.state = state;
  r.build_log = log;
  r.compile_time = 1.25;
  for (int i = 0; i < 18; ++i) {
    sg::TestResult t;
    t.name = "case_" + std::to_string(i);
    t.kind = i < 14 ? sg::TestKind::Correctness : sg::TestKind::Check;
    t.status = sg::Status::Failed;
    t.max_score = 4;
    t.m = t.k = t.n = i < 14 ? 64 + i : 0;
    t.verdict = "not run: " + why;  // as Grading::fail_all marks them
    t.stopped_by = why;
    r.tests.push_back(t);
  }
  return r;
}

const char kGccLog[] =
    "kernel.cu: In function 'void mysgemm(int, int, int, const float*, const float*, float*)':\n"
    "kernel.cu:32:19: error: invalid conversion from 'int' to 'const char*' [-fpermissive]\n"
    "   32 |     __syncthreads(1);\n"
    "      |                   ^\n"
    "In file included from /home/ta/sgemm-kit/grader/cudacpu/include/cudacpu.h:24,\n"
    "                 from cpu_kernel.cpp:1:\n"
    "/home/ta/sgemm-kit/grader/cudacpu/include/cudacpu/device.h:68:39: note:   initializing argument 1\n"
    "kernel.cu:40:27: error: 'TILE_WIDTH' was not declared in this scope\n"
    "   40 |   const int phases = (k + TILE_WIDTH - 1) / TILE_WIDTH;\n"
    "      |                           ^~~~~~~~~~\n"
    "/usr/bin/g++ exited with code 1\n";

const char kFirstError[] = "kernel.cu:32:19: error: invalid conversion from";

TEST(ReportLead, CompileErrorLeadsEveryView) {
  const sg::GradeResult r =
      stopped(sg::GradeState::CompileError, "the submission did not build for the CPU backend", kGccLog);
  const std::string md = sg::report_markdown(r), html = html_body(sg::report_html(r)), term = terminal(r),
                    out = gradescope_output(r);
  for (const auto& [view, text] : {std::pair<const char*, std::string>{"report.md", md}, {"report.html", html},
                                   {"terminal", term}, {"results.json output", out}}) {
    const std::string first = head(text, 5);
    EXPECT_TRUE(contains(lower(first), "compile error")) << view << " opens with:\n" << first;
    EXPECT_TRUE(contains(first, kFirstError)) << view << " opens with:\n" << first;
    // The state and why, the score on the same line, then the compiler's errors.
    EXPECT_TRUE(in_order(text, {"did not build for the CPU backend", "0 / 72", kFirstError, "TILE_WIDTH"})) << view;
    // The 18 tests that did not run: one line, not 18 rows (nor 18 sections).
    EXPECT_TRUE(contains(text, "18 tests")) << view << ":\n" << text;
    EXPECT_LE(count(text, "not run"), 3) << view << ":\n" << text;
  }
  // The first line says why and the score (report/score_line.h); the errors follow.
  EXPECT_TRUE(in_order(md, {"did not build", "0 / 72", kFirstError, "## Tests"})) << md;
  EXPECT_TRUE(in_order(term, {"did not build", "Score: 0 / 72", kFirstError, "Total"})) << term;
}

// nvcc's form (the GPU backend), from the grading's scratch folder: the same lead, no folder.
TEST(ReportLead, NvccErrorsLeadWithoutTheScratchFolder) {
  const sg::GradeResult r = stopped(
      sg::GradeState::CompileError, "the submission did not compile with nvcc",
      "/tmp/sg-work-x1/build/kernel.cu(19): error: identifier \"TILE_WIDTH\" is undefined\n"
      "    const int phases = (k + TILE_WIDTH - 1) / TILE_WIDTH;\n"
      "                            ^\n\n"
      "1 error detected in the compilation of \"/tmp/sg-work-x1/build/kernel.cu\".\n");
  for (const std::string& text : {sg::report_markdown(r), gradescope_output(r), terminal(r)}) {
    EXPECT_TRUE(contains(head(text, 5), "kernel.cu(19): error: identifier")) << text;
    EXPECT_FALSE(contains(text, "sg-work-x1")) << text;
  }
}

TEST(ReportLead, RejectionLeadsEveryViewWithItsReason) {
  const std::string problem = "processes: a submission may not start or control processes";
  const sg::GradeResult r = stopped(sg::GradeState::Rejected, "rejected: uses `system` (" + problem + ")", "");
  const std::string md = sg::report_markdown(r), html = html_body(sg::report_html(r)), term = terminal(r),
                    out = gradescope_output(r);
  for (const auto& [view, text] : {std::pair<const char*, std::string>{"report.md", md}, {"report.html", html},
                                   {"terminal", term}, {"results.json output", out}}) {
    const std::string first = head(text, 5);
    EXPECT_TRUE(contains(lower(first), "rejected")) << view << " opens with:\n" << first;
    EXPECT_TRUE(contains(first, problem)) << view << " says why first:\n" << first;
    EXPECT_TRUE(contains(first, "system")) << view << " names what was refused:\n" << first;
    EXPECT_LE(count(text, "not run"), 3) << view << ":\n" << text;
  }
}

TEST(ReportLead, TerminalCutsANotesPreambleBeforeItsVerdict) {
  sg::GradeResult r = stopped(sg::GradeState::Graded, "x", "");
  r.tests.resize(2);
  r.tests[0].status = sg::Status::Passed;
  r.tests[0].verdict = "passed";
  r.tests[1].verdict = "not run: the case before it hung and its runner could not be restarted after 3 tries";
  const std::string term = terminal(r);
  EXPECT_TRUE(contains(term, "the case before it hung and its runner")) << term;
  EXPECT_FALSE(contains(term, "not run: the case")) << term;
}

TEST(ReportPaths, NoMachinePathInWhatStudentsSee) {
  sg::GradeResult r = stopped(sg::GradeState::CompileError, "the submission did not build for the CPU backend",
                              std::string(kGccLog) + "kernel.cu:6:10: fatal error: /etc/passwd: No such file\n"
                                                     "    6 | #include \"/etc/passwd\"\n");
  r.submission = "/home/ta/class/alice/kernel.cu";
  r.student = "kernel.cu";  // the default: the submission's file name
  r.suite_path = "/home/ta/sgemm-kit/testcases/default.yaml";
  r.tests[0].detail = "memcheck: invalid write of 4 bytes at mysgemm+0x1a0 in /home/ta/work/sg-1/build/kernel.cu:32";
  std::ostringstream term;
  sg::print_summary(r, term, false);
  for (const auto& [view, text] : {std::pair<const char*, std::string>{"results.json", sg::results_json(r)},
                                   {"report.md", sg::report_markdown(r)}, {"report.html", sg::report_html(r)},
                                   {"terminal", term.str()}}) {
    EXPECT_FALSE(contains(text, "/home/ta")) << view << ":\n" << text;
    EXPECT_FALSE(contains(text, "/usr/bin")) << view << ":\n" << text;
    // What the student wrote is theirs: quoted as written.
    if (std::string(view) != "terminal") {
      EXPECT_TRUE(contains(text, "/etc/passwd")) << view;
    }
  }
  // Titled by whose it is (the folder holding kernel.cu), not by the file every student hands in.
  EXPECT_EQ(head(sg::report_markdown(r), 1), "# SGEMM grading report: alice\n");
  EXPECT_TRUE(contains(sg::report_html(r), "<h1>SGEMM grading report: alice</h1>"));
  EXPECT_TRUE(contains(gradescope_output(r), "kernel.cu")) << "the submission is named by its file name";
  r.submission = "/home/ta/class/bob.cu";
  r.student = "bob.cu";
  EXPECT_EQ(head(sg::report_markdown(r), 1), "# SGEMM grading report: bob\n");
}

}  // namespace
