// Tests of model/result_codec: the file a grade process writes and batch mode
// reads back must keep every field of GradeResult, and a damaged file must be
// refused with a message naming it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>

#include "model/result_codec.h"
#include "report/writers.h"

namespace {

namespace fs = std::filesystem;

// A result with every field set to something other than its default, and
// strings that need escaping.
sg::GradeResult full_result() {
  sg::GradeResult r;
  r.submission = "class/ada \"x\"/kernel.cu";
  r.student = "ada\tlovelace";
  r.suite_name = "smoke";
  r.suite_path = "testcases/smoke.yaml";
  r.backend = sg::BackendKind::Cpu;
  r.device = "CPU backend";
  r.state = sg::GradeState::Rejected;
  r.build_log = "kernel.cu:3: error: \xc3\xa9 <b>&amp;</b>\n";
  r.sandbox = "sandbox: bubblewrap (namespaces, seccomp)";
  r.untimed = sg::UntimedPoints{sg::WithoutGpu::ToCorrectness, 16, 100};
  r.notes = {"style: `twice(float)` is visible outside kernel.cu", "second note"};
  r.student_output = "line 1\nline 2\n";
  r.output_before_hidden = "line 1\n";
  r.seed = 18446744073709551557ull;  // above 2^53: must not pass through a double
  r.seed_given = true;
  r.execution_time = 12.345678901234567;
  r.compile_time = 0.1;
  r.gpu_exclusive_time = 0.7;
  r.phase_seconds = {{"setup", 0.25}, {"build", 3.0}, {"build", 1e-9}};
  r.leaderboard_gflops = 812.5;

  sg::TestResult bad;
  bad.name = "odd/45";
  bad.kind = sg::TestKind::Correctness;
  bad.visibility = sg::Visibility::Hidden;
  bad.status = sg::Status::Failed;
  bad.score = 0.5;
  bad.max_score = 3;
  bad.verdict = "wrong result: 12 of 1305 elements";
  bad.detail = "B[t*n + col]\nsecond line";
  bad.stopped_by = "the runner could not be restarted";
  bad.diagnoses = {{"boundary.edge_wrong", "boundary handling, n = 45"}, {"race.barrier", "a race"}};
  bad.m = 45;
  bad.k = 29;
  bad.n = 45;
  sg::Comparison c;
  c.checked = 5000000000;  // above 2^32
  c.wrong = 12;
  c.non_finite = 2;
  c.unwritten = 1;
  c.worst_ratio = std::numeric_limits<double>::infinity();
  c.first_wrong.push_back({44, 3, 1.1f, 2.25, 1e-6});
  c.first_wrong.push_back({44, 4, std::numeric_limits<float>::quiet_NaN(), -0.1, 3e-300});
  c.first_wrong.push_back({44, 5, -std::numeric_limits<float>::infinity(), 0, 0});
  c.tile_map = {"..#", "###"};
  bad.comparison = c;
  bad.seconds = 0.03;

  sg::TestResult perf;
  perf.name = "perf_2048/performance";
  perf.kind = sg::TestKind::Performance;
  perf.status = sg::Status::Partial;
  perf.score = 3.5;
  perf.max_score = 7;
  perf.verdict = "speedup 0.80";
  perf.m = perf.k = perf.n = 2048;
  sg::Timing t;
  t.student_ms = 2.5;
  t.student_spread = 0.0123;
  t.reference_ms = 2.0;
  t.naive_ms = 9.75;
  t.cublas_ms = 0.5;
  t.speedup = 0.8;
  t.student_gflops = 812.5;
  t.reference_gflops = 1015.625;
  t.cublas_gflops = 4062.5;
  t.overhead_ms = 0.0415;
  t.student_floor_ms = 2.05;
  t.student_floor_used = true;
  t.raw.student_request = {2.31, 2.29};
  t.raw.student_event = {2.1, 2.09};
  t.raw.reference_request = {2.3};
  t.raw.reference_event = {2.08};
  t.raw.empty_request = {0.2, 0.21, 0.25};
  t.implausible = true;
  t.implausible_reason = "faster than cuBLAS";
  t.timed_output_wrong = true;
  t.samples = 15;
  perf.timing = t;
  perf.seconds = 4.5;

  sg::TestResult check;
  check.name = "sanitizer";
  check.kind = sg::TestKind::Check;
  check.status = sg::Status::Skipped;
  check.max_score = 5;
  sg::TestResult structure;
  structure.name = "structure";
  structure.kind = sg::TestKind::Check;
  structure.status = sg::Status::Failed;
  structure.max_score = 5;
  structure.m = structure.k = structure.n = 1024;
  sg::Reuse reuse;
  reuse.source = sg::ReuseSource::Ncu;
  reuse.factor = 1.0078125;
  reuse.reference = 16;
  reuse.reference_measured = true;
  reuse.loads = 66584576;
  reuse.naive_loads = 67108864;
  reuse.min_factor = 8;
  structure.reuse = reuse;
  sg::TestResult fallback = structure;  // the static check: no factor
  fallback.name = "structure_static";
  fallback.reuse->source = sg::ReuseSource::Static;
  fallback.reuse->factor.reset();
  r.tests = {bad, perf, check, structure, fallback};
  return r;
}

TEST(ResultCodec, EveryFieldSurvivesARoundTrip) {
  const sg::GradeResult in = full_result();
  const std::string once = sg::encode_result(in);
  const sg::GradeResult out = sg::decode_result(once, "x/grade-result.json");
  EXPECT_EQ(sg::encode_result(out), once) << "encode -> decode -> encode must be byte-identical";

  // And field by field, so a field both sides forget cannot pass unnoticed.
  EXPECT_EQ(out.submission, in.submission);
  EXPECT_EQ(out.student, in.student);
  EXPECT_EQ(out.suite_name, in.suite_name);
  EXPECT_EQ(out.suite_path, in.suite_path);
  EXPECT_EQ(out.backend, in.backend);
  EXPECT_EQ(out.device, in.device);
  EXPECT_EQ(out.state, in.state);
  EXPECT_EQ(out.build_log, in.build_log);
  EXPECT_EQ(out.notes, in.notes);
  EXPECT_EQ(out.sandbox, in.sandbox);
  ASSERT_TRUE(out.untimed.has_value());
  EXPECT_EQ(out.untimed->rule, sg::WithoutGpu::ToCorrectness);
  EXPECT_EQ(out.untimed->points, 16);
  EXPECT_EQ(out.untimed->gpu_max, 100);
  EXPECT_EQ(out.student_output, in.student_output);
  EXPECT_EQ(out.output_before_hidden, in.output_before_hidden);
  EXPECT_EQ(out.seed, in.seed);
  EXPECT_EQ(out.seed_given, in.seed_given);
  EXPECT_EQ(out.execution_time, in.execution_time);
  EXPECT_EQ(out.compile_time, in.compile_time);
  EXPECT_EQ(out.gpu_exclusive_time, in.gpu_exclusive_time);
  EXPECT_EQ(out.phase_seconds, in.phase_seconds);
  EXPECT_EQ(out.leaderboard_gflops, in.leaderboard_gflops);
  ASSERT_EQ(out.tests.size(), in.tests.size());
  for (std::size_t i = 0; i < in.tests.size(); ++i) {
    const sg::TestResult& a = in.tests[i];
    const sg::TestResult& b = out.tests[i];
    SCOPED_TRACE(a.name);
    EXPECT_EQ(b.name, a.name);
    EXPECT_EQ(b.kind, a.kind);
    EXPECT_EQ(b.visibility, a.visibility);
    EXPECT_EQ(b.status, a.status);
    EXPECT_EQ(b.score, a.score);
    EXPECT_EQ(b.max_score, a.max_score);
    EXPECT_EQ(b.verdict, a.verdict);
    EXPECT_EQ(b.detail, a.detail);
    EXPECT_EQ(b.stopped_by, a.stopped_by);
    EXPECT_EQ(b.diagnoses, a.diagnoses);
    EXPECT_EQ(b.m, a.m);
    EXPECT_EQ(b.k, a.k);
    EXPECT_EQ(b.n, a.n);
    EXPECT_EQ(b.seconds, a.seconds);
    ASSERT_EQ(b.comparison.has_value(), a.comparison.has_value());
    if (a.comparison) {
      const auto &x = *a.comparison, &y = *b.comparison;
      EXPECT_EQ(y.checked, x.checked);
      EXPECT_EQ(y.wrong, x.wrong);
      EXPECT_EQ(y.non_finite, x.non_finite);
      EXPECT_EQ(y.unwritten, x.unwritten);
      EXPECT_EQ(y.worst_ratio, x.worst_ratio);
      EXPECT_EQ(y.tile_map, x.tile_map);
      ASSERT_EQ(y.first_wrong.size(), x.first_wrong.size());
      for (std::size_t w = 0; w < x.first_wrong.size(); ++w) {
        EXPECT_EQ(y.first_wrong[w].row, x.first_wrong[w].row);
        EXPECT_EQ(y.first_wrong[w].col, x.first_wrong[w].col);
        if (std::isnan(x.first_wrong[w].got))
          EXPECT_TRUE(std::isnan(y.first_wrong[w].got));
        else
          EXPECT_EQ(y.first_wrong[w].got, x.first_wrong[w].got);
        EXPECT_EQ(y.first_wrong[w].expected, x.first_wrong[w].expected);
        EXPECT_EQ(y.first_wrong[w].bound, x.first_wrong[w].bound);
      }
    }
    ASSERT_EQ(b.timing.has_value(), a.timing.has_value());
    if (a.timing) {
      const auto &x = *a.timing, &y = *b.timing;
      EXPECT_EQ(y.student_ms, x.student_ms);
      EXPECT_EQ(y.student_spread, x.student_spread);
      EXPECT_EQ(y.reference_ms, x.reference_ms);
      EXPECT_EQ(y.naive_ms, x.naive_ms);
      EXPECT_EQ(y.cublas_ms, x.cublas_ms);
      EXPECT_EQ(y.speedup, x.speedup);
      EXPECT_EQ(y.student_gflops, x.student_gflops);
      EXPECT_EQ(y.reference_gflops, x.reference_gflops);
      EXPECT_EQ(y.cublas_gflops, x.cublas_gflops);
      EXPECT_EQ(y.overhead_ms, x.overhead_ms);
      EXPECT_EQ(y.student_floor_ms, x.student_floor_ms);
      EXPECT_EQ(y.student_floor_used, x.student_floor_used);
      EXPECT_EQ(y.raw.student_request, x.raw.student_request);
      EXPECT_EQ(y.raw.student_event, x.raw.student_event);
      EXPECT_EQ(y.raw.reference_request, x.raw.reference_request);
      EXPECT_EQ(y.raw.reference_event, x.raw.reference_event);
      EXPECT_EQ(y.raw.empty_request, x.raw.empty_request);
      EXPECT_EQ(y.timed_output_wrong, x.timed_output_wrong);
      EXPECT_EQ(y.implausible, x.implausible);
      EXPECT_EQ(y.implausible_reason, x.implausible_reason);
      EXPECT_EQ(y.samples, x.samples);
    }
  }
}

TEST(ResultCodec, UnsetOptionalsStayUnset) {
  sg::GradeResult in;  // no backend, no leaderboard, no tests
  const sg::GradeResult out = sg::decode_result(sg::encode_result(in), "x");
  EXPECT_FALSE(out.backend.has_value());
  EXPECT_FALSE(out.leaderboard_gflops.has_value());
  EXPECT_FALSE(out.output_before_hidden.has_value());
  EXPECT_FALSE(out.untimed.has_value());
  EXPECT_TRUE(out.tests.empty());
}

// NaN and the infinities are written as words in every number list too, and read back.
TEST(ResultCodec, NonFiniteSamplesSurviveARoundTrip) {
  sg::GradeResult in;
  sg::TestResult t;
  t.name = "perf";
  sg::Timing timing;
  timing.raw.student_event = {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(), 1.5};
  t.timing = timing;
  in.tests.push_back(t);
  const sg::GradeResult out = sg::decode_result(sg::encode_result(in), "x");
  ASSERT_EQ(out.tests.size(), 1u);
  ASSERT_TRUE(out.tests[0].timing.has_value());
  const auto& ev = out.tests[0].timing->raw.student_event;
  ASSERT_EQ(ev.size(), 3u);
  EXPECT_TRUE(std::isnan(ev[0]));
  EXPECT_TRUE(std::isinf(ev[1]) && ev[1] > 0);
  EXPECT_EQ(ev[2], 1.5);
}

// The message of decode_result(text), or "" when it was accepted.
std::string refusal(const std::string& text, const std::string& where = "class/ada/grade-result.json") {
  try {
    sg::decode_result(text, where);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

TEST(ResultCodec, DamagedFilesAreRefusedNamingFileAndField) {
  const std::string good = sg::encode_result(full_result());
  const std::string file = "class/ada/grade-result.json";

  const std::string cut = refusal(good.substr(0, good.size() / 2));
  EXPECT_NE(cut.find(file), std::string::npos) << cut;
  EXPECT_NE(cut.find("not valid JSON"), std::string::npos) << cut;

  const std::string other = refusal("{\"score\": 1, \"tests\": []}");  // a results.json, say
  EXPECT_NE(other.find(file + ": not a sgemm-grade-result file"), std::string::npos) << other;

  std::string text = good;
  const std::string ours = "\"version\": " + std::to_string(sg::kResultCodecVersion);
  text.replace(text.find(ours), ours.size(), "\"version\": 99");
  const std::string newer = refusal(text);
  EXPECT_NE(newer.find("version 99"), std::string::npos) << newer;

  text = good;
  text.replace(text.find("\"status\": \"partial\""), 19, "\"status\": \"great\"");
  const std::string word = refusal(text);
  EXPECT_NE(word.find(file + ": tests[1].status has an unknown value \"great\""), std::string::npos) << word;

  text = good;
  text.replace(text.find("\"unwritten\""), 11, "\"unwrittn\"");
  const std::string missing = refusal(text);
  EXPECT_NE(missing.find(file + ": tests[0].comparison.unwritten is missing"), std::string::npos) << missing;
}

// A file written before a test kept why a stop kept it from running reads
// back with no reason (the views then lead with the build log's first line).
TEST(ResultCodec, AFileWithoutStoppedByReadsBack) {
  std::string text = sg::encode_result(full_result());
  const std::string field = "\"stopped_by\": \"the runner could not be restarted\",";
  const std::size_t at = text.find(field);
  ASSERT_NE(at, std::string::npos) << text.substr(0, 2000);
  text.erase(at, field.size());
  const sg::GradeResult r = sg::decode_result(text, "old/grade-result.json");
  for (const sg::TestResult& t : r.tests) EXPECT_EQ(t.stopped_by, "") << t.name;
}

TEST(ResultCodec, MissingFileIsNamed) {
  const fs::path dir = fs::temp_directory_path() / ("sg_codec_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  try {
    sg::read_result_file(dir.string());
    FAIL() << "a missing file was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find((dir / "grade-result.json").string()), std::string::npos) << e.what();
  }
  // write_reports puts it beside the views, and it reads back as written.
  const sg::GradeResult r = full_result();
  sg::write_reports(r, dir.string());
  EXPECT_TRUE(fs::exists(dir / "results.json"));
  EXPECT_EQ(sg::encode_result(sg::read_result_file(dir.string())), sg::encode_result(r));
  fs::remove_all(dir);
}

}  // namespace
