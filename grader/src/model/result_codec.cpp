#include "model/result_codec.h"

#include <cmath>
#include <fstream>
#include <limits>
#include <optional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

namespace sg {
namespace {

using Json = nlohmann::ordered_json;  // fields in the order written: stable bytes, readable diffs
constexpr const char* kFormat = "sgemm-grade-result";

// JSON has no NaN/Inf, so those are written as words.
Json real(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

// A number, or one of the words real() writes for NaN and the infinities.
std::optional<double> word_or_number(const Json& v) {
  if (v.is_number()) return v.get<double>();
  if (!v.is_string()) return std::nullopt;
  const std::string s = v.get<std::string>();
  if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
  if (s == "inf") return std::numeric_limits<double>::infinity();
  if (s == "-inf") return -std::numeric_limits<double>::infinity();
  return std::nullopt;
}

// Decoding: every lookup names its place ("tests[3].timing.speedup") when it fails.
class Reader {
 public:
  Reader(const Json& j, std::string prefix) : j_(j), where_(std::move(prefix)) {}

  // `prefix` is "file: " at the top and "file: tests[3]." below it.
  [[noreturn]] void fail(const std::string& key, const std::string& what) const {
    throw std::runtime_error(where_ + key + " " + what);
  }
  const Json& at(const std::string& key) const {
    const auto it = j_.find(key);
    if (it == j_.end()) fail(key, "is missing");
    return *it;
  }
  Reader sub(const std::string& key) const {
    const Json& v = at(key);
    if (!v.is_object()) fail(key, "is not an object");
    return Reader(v, where_ + key + ".");
  }
  bool has(const std::string& key) const { return j_.contains(key) && !j_.at(key).is_null(); }
  std::string text(const std::string& key) const {
    const Json& v = at(key);
    if (!v.is_string()) fail(key, "is not a string");
    return v.get<std::string>();
  }
  bool flag(const std::string& key) const {
    const Json& v = at(key);
    if (!v.is_boolean()) fail(key, "is not true or false");
    return v.get<bool>();
  }
  double real(const std::string& key) const {
    if (const std::optional<double> d = word_or_number(at(key))) return *d;
    fail(key, "is not a number");
  }
  std::int64_t integer(const std::string& key) const {
    const Json& v = at(key);
    if (!v.is_number_integer()) fail(key, "is not an integer");
    return v.get<std::int64_t>();
  }
  int small(const std::string& key) const {
    const std::int64_t v = integer(key);
    if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max()) fail(key, "is out of range");
    return static_cast<int>(v);
  }
  // The items of an array field, each as a Reader named key[i].
  template <typename F>
  void each(const std::string& key, F&& f) const {
    const Json& v = at(key);
    if (!v.is_array()) fail(key, "is not a list");
    for (std::size_t i = 0; i < v.size(); ++i) f(v[i], where_ + key + "[" + std::to_string(i) + "]");
  }
  template <typename E, typename Parse>
  E word(const std::string& key, Parse parse) const {
    const std::string s = text(key);
    const auto e = parse(s);
    if (!e) fail(key, "has an unknown value \"" + s + "\"");
    return *e;
  }

 private:
  const Json& j_;
  std::string where_;
};

std::optional<Visibility> parse_visibility(std::string_view s) {
  for (Visibility v : {Visibility::Public, Visibility::Hidden})
    if (s == to_string(v)) return v;
  return std::nullopt;
}

Json encode_comparison(const Comparison& c) {
  Json first = Json::array();
  for (const auto& w : c.first_wrong)
    first.push_back({{"row", w.row}, {"col", w.col}, {"got", real(w.got)}, {"expected", real(w.expected)},
                     {"bound", real(w.bound)}});
  return {{"checked", c.checked},     {"wrong", c.wrong},       {"non_finite", c.non_finite},
          {"unwritten", c.unwritten}, {"worst_ratio", real(c.worst_ratio)}, {"first_wrong", first},
          {"tile_map", c.tile_map}};
}

Comparison decode_comparison(const Reader& j) {
  Comparison c;
  c.checked = j.integer("checked");
  c.wrong = j.integer("wrong");
  c.non_finite = j.integer("non_finite");
  c.unwritten = j.integer("unwritten");
  c.worst_ratio = j.real("worst_ratio");
  j.each("first_wrong", [&](const Json& v, const std::string& at) {
    if (!v.is_object()) throw std::runtime_error(at + " is not an object");
    const Reader w(v, at + ".");
    Mismatch m;
    m.row = w.small("row");
    m.col = w.small("col");
    m.got = static_cast<float>(w.real("got"));  // written from a float: exact
    m.expected = w.real("expected");
    m.bound = w.real("bound");
    c.first_wrong.push_back(m);
  });
  j.each("tile_map", [&](const Json& v, const std::string& at) {
    if (!v.is_string()) throw std::runtime_error(at + " is not a string");
    c.tile_map.push_back(v.get<std::string>());
  });
  return c;
}

Json reals(const std::vector<double>& v) {
  Json out = Json::array();
  for (double x : v) out.push_back(real(x));
  return out;
}

std::vector<double> decode_reals(const Reader& j, const std::string& key) {
  std::vector<double> out;
  j.each(key, [&](const Json& v, const std::string& at) {
    const std::optional<double> d = word_or_number(v);
    if (!d) throw std::runtime_error(at + " is not a number");
    out.push_back(*d);
  });
  return out;
}

Json encode_timing(const Timing& t) {
  return {{"student_ms", real(t.student_ms)},
          {"student_spread", real(t.student_spread)},
          {"reference_ms", real(t.reference_ms)},
          {"naive_ms", real(t.naive_ms)},
          {"cublas_ms", real(t.cublas_ms)},
          {"speedup", real(t.speedup)},
          {"student_gflops", real(t.student_gflops)},
          {"reference_gflops", real(t.reference_gflops)},
          {"cublas_gflops", real(t.cublas_gflops)},
          {"overhead_ms", real(t.overhead_ms)},
          {"student_floor_ms", real(t.student_floor_ms)},
          {"student_floor_used", t.student_floor_used},
          {"implausible", t.implausible},
          {"implausible_reason", t.implausible_reason},
          {"timed_output_wrong", t.timed_output_wrong},
          {"samples", t.samples},
          {"raw",
           {{"student_request", reals(t.raw.student_request)},
            {"student_event", reals(t.raw.student_event)},
            {"reference_request", reals(t.raw.reference_request)},
            {"reference_event", reals(t.raw.reference_event)},
            {"empty_request", reals(t.raw.empty_request)},
            {"reference_before_event", reals(t.raw.reference_before_event)},
            {"reference_between_event", reals(t.raw.reference_between_event)}}}};
}

Timing decode_timing(const Reader& j) {
  Timing t;
  t.student_ms = j.real("student_ms");
  t.student_spread = j.real("student_spread");
  t.reference_ms = j.real("reference_ms");
  t.naive_ms = j.real("naive_ms");
  t.cublas_ms = j.real("cublas_ms");
  t.speedup = j.real("speedup");
  t.student_gflops = j.real("student_gflops");
  t.reference_gflops = j.real("reference_gflops");
  t.cublas_gflops = j.real("cublas_gflops");
  // Optional: results written before the grader timed with its own clock lack them.
  if (j.has("overhead_ms")) t.overhead_ms = j.real("overhead_ms");
  t.student_floor_ms = j.real("student_floor_ms");
  t.student_floor_used = j.flag("student_floor_used");
  t.implausible = j.flag("implausible");
  t.implausible_reason = j.text("implausible_reason");
  if (j.has("timed_output_wrong")) t.timed_output_wrong = j.flag("timed_output_wrong");
  t.samples = j.small("samples");
  const Reader raw = j.sub("raw");
  t.raw.student_request = decode_reals(raw, "student_request");
  t.raw.student_event = decode_reals(raw, "student_event");
  t.raw.reference_request = decode_reals(raw, "reference_request");
  t.raw.reference_event = decode_reals(raw, "reference_event");
  t.raw.empty_request = decode_reals(raw, "empty_request");
  // Optional: results written before the grader watched the GPU's pace lack them.
  if (raw.has("reference_before_event")) t.raw.reference_before_event = decode_reals(raw, "reference_before_event");
  if (raw.has("reference_between_event")) t.raw.reference_between_event = decode_reals(raw, "reference_between_event");
  return t;
}

Json encode_reuse(const Reuse& r) {
  return {{"source", to_string(r.source)},
          {"factor", r.factor ? real(*r.factor) : Json()},
          {"reference", real(r.reference)},
          {"reference_measured", r.reference_measured},
          {"loads", real(r.loads)},
          {"naive_loads", real(r.naive_loads)},
          {"min_factor", real(r.min_factor)}};
}

Reuse decode_reuse(const Reader& j) {
  Reuse r;
  r.source = j.word<ReuseSource>("source", parse_reuse_source);
  if (j.has("factor")) r.factor = j.real("factor");
  r.reference = j.real("reference");
  r.reference_measured = j.flag("reference_measured");
  r.loads = j.real("loads");
  r.naive_loads = j.real("naive_loads");
  r.min_factor = j.real("min_factor");
  return r;
}

Json encode_test(const TestResult& t) {
  Json diagnoses = Json::array();
  for (const auto& d : t.diagnoses) diagnoses.push_back({{"id", d.id}, {"text", d.text}});
  Json j = {{"name", t.name},
            {"kind", to_string(t.kind)},
            {"visibility", to_string(t.visibility)},
            {"status", to_string(t.status)},
            {"score", real(t.score)},
            {"max_score", real(t.max_score)},
            {"verdict", t.verdict},
            {"detail", t.detail},
            {"stopped_by", t.stopped_by},
            {"diagnoses", diagnoses},
            {"m", t.m},
            {"k", t.k},
            {"n", t.n},
            {"comparison", t.comparison ? encode_comparison(*t.comparison) : Json()},
            {"timing", t.timing ? encode_timing(*t.timing) : Json()},
            {"reuse", t.reuse ? encode_reuse(*t.reuse) : Json()},
            {"seconds", real(t.seconds)}};
  return j;
}

TestResult decode_test(const Reader& j) {
  TestResult t;
  t.name = j.text("name");
  t.kind = j.word<TestKind>("kind", parse_test_kind);
  t.visibility = j.word<Visibility>("visibility", parse_visibility);
  t.status = j.word<Status>("status", parse_status);
  t.score = j.real("score");
  t.max_score = j.real("max_score");
  t.verdict = j.text("verdict");
  t.detail = j.text("detail");
  if (j.has("stopped_by")) t.stopped_by = j.text("stopped_by");  // absent in files written before it was kept
  j.each("diagnoses", [&](const Json& v, const std::string& at) {
    if (!v.is_object()) throw std::runtime_error(at + " is not an object");
    const Reader d(v, at + ".");
    t.diagnoses.push_back({d.text("id"), d.text("text")});
  });
  t.m = j.small("m");
  t.k = j.small("k");
  t.n = j.small("n");
  if (j.has("comparison")) t.comparison = decode_comparison(j.sub("comparison"));
  if (j.has("timing")) t.timing = decode_timing(j.sub("timing"));
  if (j.has("reuse")) t.reuse = decode_reuse(j.sub("reuse"));
  t.seconds = j.real("seconds");
  return t;
}

}  // namespace

std::string encode_result(const GradeResult& r) {
  Json tests = Json::array();
  for (const auto& t : r.tests) tests.push_back(encode_test(t));
  Json phases = Json::array();  // a list, not an object: order and repeats are kept
  for (const auto& [phase, seconds] : r.phase_seconds) phases.push_back({{"phase", phase}, {"seconds", real(seconds)}});
  Json root = {{"format", kFormat},
               {"version", kResultCodecVersion},
               {"submission", r.submission},
               {"student", r.student},
               {"suite_name", r.suite_name},
               {"suite_path", r.suite_path},
               {"backend", r.backend ? Json(to_string(*r.backend)) : Json()},
               {"device", r.device},
               {"state", to_string(r.state)},
               {"build_log", r.build_log},
               {"notes", r.notes},
               {"sandbox", r.sandbox},
               {"untimed", r.untimed ? Json{{"rule", to_string(r.untimed->rule)},
                                            {"points", real(r.untimed->points)},
                                            {"gpu_max", real(r.untimed->gpu_max)}}
                                     : Json()},
               {"student_output", r.student_output},
               {"output_before_hidden", r.output_before_hidden ? Json(*r.output_before_hidden) : Json()},
               // A string: 64-bit seeds do not survive readers that parse numbers as doubles.
               {"seed", std::to_string(r.seed)},
               {"seed_given", r.seed_given},
               {"tests", tests},
               {"execution_time", real(r.execution_time)},
               {"compile_time", real(r.compile_time)},
               {"gpu_exclusive_time", real(r.gpu_exclusive_time)},
               {"phase_seconds", phases},
               {"leaderboard_gflops", r.leaderboard_gflops ? real(*r.leaderboard_gflops) : Json()}};
  // The model's strings are already valid UTF-8 (text_clean); `replace` keeps a bad byte from aborting a grading.
  return root.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

GradeResult decode_result(const std::string& text, const std::string& where) {
  Json root;
  try {
    root = Json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(where + ": not valid JSON (cut short or damaged?): " + e.what());
  }
  if (!root.is_object()) throw std::runtime_error(where + ": not a JSON object");
  const Reader j(root, where + ": ");
  if (!root.contains("format") || !root["format"].is_string() || root["format"] != kFormat)
    throw std::runtime_error(where + ": not a " + std::string(kFormat) + " file");
  const std::int64_t version = j.integer("version");
  if (version != kResultCodecVersion)
    throw std::runtime_error(where + ": version " + std::to_string(version) + ", this grader reads version " +
                             std::to_string(kResultCodecVersion) + " (grade it again with this grader)");
  GradeResult r;
  r.submission = j.text("submission");
  r.student = j.text("student");
  r.suite_name = j.text("suite_name");
  r.suite_path = j.text("suite_path");
  if (j.has("backend")) r.backend = j.word<BackendKind>("backend", parse_backend);
  r.device = j.text("device");
  r.state = j.word<GradeState>("state", parse_grade_state);
  r.build_log = j.text("build_log");
  r.sandbox = j.text("sandbox");
  // Absent from files written before it was recorded: then it stays unset.
  if (j.has("untimed")) {
    const Reader u = j.sub("untimed");
    r.untimed = UntimedPoints{u.word<WithoutGpu>("rule", parse_without_gpu), u.real("points"), u.real("gpu_max")};
  }
  j.each("notes", [&](const Json& v, const std::string& at) {
    if (!v.is_string()) throw std::runtime_error(at + " is not a string");
    r.notes.push_back(v.get<std::string>());
  });
  r.student_output = j.text("student_output");
  // Absent from files written before it was recorded: then it stays unset.
  if (j.has("output_before_hidden")) r.output_before_hidden = j.text("output_before_hidden");
  const std::string seed = j.text("seed");
  std::size_t used = 0;
  try {
    r.seed = std::stoull(seed, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (seed.empty() || used != seed.size() || seed[0] == '-') j.fail("seed", "is not an unsigned integer");
  r.seed_given = j.flag("seed_given");
  j.each("tests", [&](const Json& v, const std::string& at) {
    if (!v.is_object()) throw std::runtime_error(at + " is not an object");
    r.tests.push_back(decode_test(Reader(v, at + ".")));
  });
  r.execution_time = j.real("execution_time");
  r.compile_time = j.real("compile_time");
  r.gpu_exclusive_time = j.real("gpu_exclusive_time");
  j.each("phase_seconds", [&](const Json& v, const std::string& at) {
    if (!v.is_object()) throw std::runtime_error(at + " is not an object");
    const Reader p(v, at + ".");
    r.phase_seconds.emplace_back(p.text("phase"), p.real("seconds"));
  });
  if (j.has("leaderboard_gflops")) r.leaderboard_gflops = j.real("leaderboard_gflops");
  return r;
}

GradeResult read_result_file(const std::string& dir) {
  const std::string path = dir + "/" + kResultFile;
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path + " (the grade process wrote no result)");
  std::stringstream s;
  s << in.rdbuf();
  return decode_result(s.str(), path);
}

}  // namespace sg
