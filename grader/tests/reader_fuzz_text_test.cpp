// Fuzzing the judge's readers of text a submission controls (issue 35, item 3):
// captured output (process/capped_text.cpp) and the cleaners (io/clean_text.cpp,
// report/text_clean.cpp), compute-sanitizer's output (sanitizer_shapes.cpp),
// ncu's CSV (ncu_reuse.cpp) and g++'s messages (compiler_messages.cpp). A few
// thousand seeded inputs per reader and the named adversarial cases: invalid
// UTF-8, NUL, escapes, 100 MB without a newline, huge fields, numbers beyond
// double. No reader may crash, hang or throw, and each keeps its documented
// properties; each loop runs under kBoundS, a complexity guard (reader_fuzz.h).
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "backends/cpu/compiler_messages.h"
#include "backends/gpu/ncu_reuse.h"
#include "backends/gpu/sanitizer_shapes.h"
#include "io/clean_text.h"
#include "process/process.h"
#include "reader_fuzz.h"
#include "report/text_clean.h"

namespace fs = std::filesystem;
using namespace sg_fuzz;

namespace {

// ---- captured output and the text cleaners ----

const std::vector<std::string> kTextDict = {
    "\x1b[", "\x1b]", "\x1b", "\x1b\\", "\a", "\r", "\r\n", "\n", "\t", "\x7f", "\xc2\x85", "\xef\xbf\xbe",
    "\xef\xbf\xbf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xc0\xaf", "\xe2\x82", "\xc3\xa9", "\xe2\x82\xac",
    "\xf0\x9f\x98\x80", std::string(1, '\0'), "m", ";", "`", "```", "<", "&", "\"", "'", "=", ",", "|", "_", "."};

TEST(ReaderFuzz, CleanTextAndReportHelpersOnRandomBytes) {
  namespace rp = sg::report;
  std::mt19937 g(35006);
  const auto t0 = Clock::now();
  for (int it = 0; it < 5000; ++it) {
    const std::string raw = fuzz_text(g, kTextDict, 80);
    const std::string clean = sg::clean_text(raw);
    ASSERT_TRUE(is_clean(clean)) << ::testing::PrintToString(raw);
    EXPECT_EQ(sg::clean_text(clean), clean);
    EXPECT_LE(clean.size(), 3 * raw.size());
    const std::string line = rp::clean_line(raw);
    EXPECT_TRUE(is_clean(line) && line.find_first_of("\n\t") == std::string::npos);
    const std::string attr = rp::xml_attr(raw), text = rp::xml_escape(raw);
    EXPECT_EQ(attr.find_first_of("<>\"'\n\t"), std::string::npos);
    EXPECT_EQ(text.find_first_of("<>\"'"), std::string::npos);
    EXPECT_EQ(rp::md_cell(raw).find('\n'), std::string::npos);
    const std::string fenced = rp::md_fence(raw);
    const std::string fence = fenced.substr(0, fenced.find_first_not_of('`'));
    const std::size_t body = fenced.find('\n') + 1;
    EXPECT_EQ(fenced.substr(body, fenced.size() - fence.size() - 1 - body).find(fence), std::string::npos);
    const std::string segment = rp::url_segment(raw);
    for (char ch : segment)
      EXPECT_TRUE(std::isalnum(static_cast<unsigned char>(ch)) || (ch && std::strchr("-._~%", ch)));
    const std::string cell = rp::csv_text_cell(raw);
    EXPECT_EQ(cell.find_first_of(std::string("\r\n\0", 3)), std::string::npos);
    EXPECT_TRUE(cell.empty() || !std::strchr("=+-@", cell[0]));
    const std::size_t cap = g() % 100, width = g() % 20;
    const std::string capped = rp::cap_text(clean, cap);
    EXPECT_TRUE(utf8(capped) && (capped.size() <= cap + 40 || capped == clean));
    const std::string fit = rp::fit_width(clean, width);
    EXPECT_TRUE(utf8(fit) && rp::display_width(fit) <= width);
    // A cap that cuts valid text drops the cut character whole.
    const std::size_t at = g() % (clean.size() + 1);
    const std::string head = clean.substr(0, at);
    EXPECT_TRUE(utf8(head.substr(0, head.size() - sg::cut_sequence_tail(head))));
  }
  EXPECT_LT(since(t0), kBoundS);
}

TEST(ReaderFuzz, CleanTextIsLinearOnHugeHostileRuns) {
  const std::string unit[] = {"\x1b[", "\x1b]", "\x1b[1;", "\xff", "\r", "\xe2\x82", "\x1b", "a"};
  for (const std::string& u : unit) {
    std::string raw;
    while (raw.size() < (8u << 20)) raw += u;
    const auto t0 = Clock::now();
    const std::string clean = sg::clean_text(raw);
    sg::report::md_fence(raw);
    sg::report::csv_text_cell(raw);
    EXPECT_TRUE(is_clean(clean));
    EXPECT_LT(since(t0), kBoundS) << ::testing::PrintToString(u);
  }
}

long max_rss_kb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

TEST(ReaderFuzz, CapturedOutputFilesAreReadCappedAndClean) {
  const fs::path dir = fs::temp_directory_path() / ("sg-fuzz-capped-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string file = (dir / "out.txt").string();
  std::mt19937 g(35007);
  const auto t0 = Clock::now();
  for (int it = 0; it < 2000; ++it) {
    const std::string raw = fuzz_text(g, kTextDict, 200);
    fs::remove(file);  // a new file each time (rewriting one in place costs a disk flush on ext4)
    std::ofstream(file, std::ios::binary) << raw;
    const std::size_t cap = g() % 600;
    const std::string got = sg::read_capped_text(file, cap);
    EXPECT_TRUE(is_clean(got));
    EXPECT_LE(got.size(), 3 * cap + 60);
    if (raw.size() <= cap) {
      EXPECT_EQ(got, sg::clean_text(raw));
    }
  }
  EXPECT_LT(since(t0), kBoundS);
  fs::remove(file);  // valid text cut by the cap anywhere: the cut character is dropped, not replaced
  std::ofstream(file, std::ios::binary) << "a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80";
  for (std::size_t cap = 0; cap < 20; ++cap)
    EXPECT_EQ(sg::read_capped_text(file, cap).find("\xef\xbf\xbd"), std::string::npos) << cap;
  {  // 100 MB with no newline (sparse past its first MiB, which the reader cannot tell):
     // only the cap is read, quickly and in bounded memory.
    std::ofstream(file, std::ios::binary | std::ios::trunc) << std::string(1 << 20, 'A');
    ASSERT_EQ(truncate(file.c_str(), 100 << 20), 0);
  }
  const long rss = max_rss_kb();
  const auto t1 = Clock::now();
  const std::string got = sg::read_capped_text(file, 64 << 10);
  EXPECT_LT(since(t1), 2.0);
  EXPECT_LE(got.size(), (64u << 10) + 80);
  EXPECT_NE(got.find("[output truncated: 104857600 bytes in total]"), std::string::npos);
  EXPECT_LT(max_rss_kb() - rss, 32 << 10) << "KiB more at the peak";
  // Not regular files: refused at once, never read or waited on.
  fs::remove(file);
  ASSERT_EQ(mkfifo(file.c_str(), 0600), 0);
  const int writer = open(file.c_str(), O_RDWR);  // a FIFO someone holds open
  fs::create_directories(dir / "d");
  fs::create_symlink("/etc/passwd", dir / "link");
  const bool device = mknod((dir / "zero").c_str(), S_IFCHR | 0600, makedev(1, 5)) == 0;
  for (const std::string name : {"out.txt", "d", "link", "zero", "missing"}) {
    if (name == "zero" && !device) continue;
    const auto t2 = Clock::now();
    EXPECT_EQ(sg::read_capped_text((dir / name).string(), 1000).rfind("[output unavailable", 0), 0u) << name;
    EXPECT_LT(since(t2), 2.0) << name;
  }
  close(writer);
  fs::remove_all(dir);
}

// ---- compute-sanitizer's output ----

const std::vector<std::string> kSanitizerDict = {
    "selftest: shape ", "selftest: failed at ", "========= Invalid __global__ read of size 4 bytes\n",
    "========= Race reported\n", "= Error: ", "= Program hit ", "hazard", "Hazard", "ERROR SUMMARY: 1 error\n",
    "by thread (1,2,0)", "Invalid __shared__", "x", "x", "\n", "\n", "12", "999999999", "1234567890", " ",
    "\xe2\x82\xac"};

// "MxKxN", each part 1 to 9 digits.
bool is_shape(const std::string& s) {
  std::size_t i = 0;
  for (int part = 0; part < 3; ++part) {
    const std::size_t from = i;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
    if (i == from || i - from > 9 || (part < 2 && (i >= s.size() || s[i++] != 'x'))) return false;
  }
  return i == s.size();
}

TEST(ReaderFuzz, SanitizerOutputOfAnyShape) {
  std::mt19937 g(35008);
  const std::vector<sg::SanitizerShape> all = {{40, 50, 36, "40x50x36 (a)"}, {17, 33, 19, "17x33x19 (b)"}};
  const auto t0 = Clock::now();
  for (int it = 0; it < 4000; ++it) {
    sg::ToolRun run;
    run.output = fuzz_text(g, kSanitizerDict, 120);
    if (g() % 2) run.output = sg::clean_text(run.output);
    const std::string shape = sg::shape_of_first_error(run.output);
    EXPECT_TRUE(shape.empty() || (is_shape(shape) && run.output.find(shape) != std::string::npos)) << shape;
    run.started = g() % 5 != 0;
    run.exit.exited = g() % 2;
    run.exit.code = static_cast<int>(g() % 12);
    run.exit.signal = run.exit.exited ? 0 : static_cast<int>(g() % 65);
    run.exit.timed_out = g() % 4 == 0;
    run.went_quiet = g() % 4 == 0;
    run.before_gate = g() % 2;
    run.answered = g() % 4;
    run.refused = g() % 3 ? "" : fuzz_text(g, kTextDict, 5);
    const std::vector<sg::SanitizerShape> shapes(all.begin(), all.begin() + g() % 3);
    const sg::SanitizerToolOutcome o = sg::sanitizer_tool_outcome(run, shapes, 20);
    EXPECT_EQ(o.clean, o.what.empty());
    EXPECT_TRUE(o.shape.empty() || is_shape(o.shape) || o.shape == all[0].label || o.shape == all[1].label);
    const std::string summary = sg::sanitizer_summary("memcheck", run);
    const std::string first = "memcheck: " + run.exit.describe() + "\n";
    EXPECT_EQ(summary.compare(0, first.size(), first), 0);
    EXPECT_LE(summary.size(), first.size() + run.output.size() + 3 * 12 + 1);
    if (is_clean(run.output)) {
      EXPECT_TRUE(is_clean(summary)) << ::testing::PrintToString(run.output);
    }
  }
  EXPECT_LT(since(t0), kBoundS);
  sg::ToolRun cut;  // no line the summary keeps: the output's start, cut inside a character
  cut.output = std::string(1999, 'a') + "\xe2\x82\xac and more";
  EXPECT_TRUE(is_clean(sg::sanitizer_summary("memcheck", cut)));
  // One huge line: a device printf from every thread, and markers without end.
  for (const std::string& u : {std::string("selftest: shape 1x"), std::string("= Race hazard 7x8x"),
                               std::string("selftest: failed at 123456789x")}) {
    sg::ToolRun run;
    while (run.output.size() < (4u << 20)) run.output += u;
    const auto t1 = Clock::now();
    EXPECT_TRUE(is_shape(sg::shape_of_first_error(run.output)) || sg::shape_of_first_error(run.output).empty());
    sg::sanitizer_summary("racecheck", run);
    EXPECT_LT(since(t1), kBoundS) << u;
  }
}

// ---- ncu's CSV ----

const char* const kHeader = "\"ID\",\"Kernel Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"";
const std::vector<std::string> kNcuDict = {
    "\"", "\",\"", ",", "\n", "\r\n", "\"\"", "Metric Name", "Metric Value", sg::kGlobalLoadMetric, "==PROF== ",
    "==ERROR== ", "==ERROR==", "ERR_NVGPUCTRPERM", "1e999", "-0", "NaN", "18446744073709551616", "67,108,864",
    "1.", ".5",
    "\xe2\x82\xac", std::string("\n") + kHeader + "\n",
    "\"1\",\"k\",\"" + std::string(sg::kGlobalLoadMetric) + "\",\"inst\",\""};

// Values of the metric column and what they count (-1: not a count).
const std::pair<const char*, double> kValues[] = {
    {"67108864", 67108864}, {"67,108,864", 67108864}, {"1048576.00", 1048576}, {"0", 0}, {"00012", 12},
    {"1,234.5", 1234.5}, {"18446744073709551616", 18446744073709551616.0}, {"1e999", -1}, {"-0", -1},
    {"NaN", -1}, {"inf", -1}, {"", -1}, {"1,2", -1}, {"1.", -1}, {".5", -1}, {"1,2345", -1},
    {"1234567890123456789012345678901", -1}, {"\"\"", -1}, {"4 ", -1}};

TEST(ReaderFuzz, NcuCsvTablesAndNoise) {
  std::mt19937 g(35009);
  const auto t0 = Clock::now();
  for (int it = 0; it < 4000; ++it) {
    const std::string out = fuzz_text(g, kNcuDict, 60);
    const sg::NcuLoads l = sg::parse_ncu_loads(out);
    EXPECT_EQ(l.ok, l.why.empty());
    if (is_clean(out)) {
      EXPECT_TRUE(is_clean(l.why)) << ::testing::PrintToString(out);
    }
    if (l.ok) {
      EXPECT_TRUE(std::isfinite(l.loads) && l.loads >= 0 && l.kernels > 0);
    }
    const std::string said = sg::ncu_errors(out);
    EXPECT_EQ(said.find('\n'), std::string::npos) << ::testing::PrintToString(out);
    EXPECT_LE(said.size(), 400 + out.size());
  }
  // Tables with a known answer: rows of the metric, of others, of other widths.
  for (int it = 0; it < 3000; ++it) {
    std::string out = "==PROF== Connected to process 1\n" + std::string(kHeader) + "\n";
    double sum = 0;
    int kernels = 0;
    bool bad = false, wide = false;
    for (unsigned r = g() % 6; r > 0; --r) {
      const auto& [value, count] = kValues[g() % (sizeof kValues / sizeof kValues[0])];
      const bool ours = g() % 3 != 0;
      std::string v = value;
      if (v == "\"\"") v = "\"\"\"\"";  // a quote inside the field
      std::string row = "\"1\",\"k(\"\"x\"\")\",\"" + std::string(ours ? sg::kGlobalLoadMetric : "other") +
                        "\",\"inst\",\"" + v + "\"";
      if (g() % 25 == 0) row += ",\"extra\"", wide = true;
      out += (g() % 2 ? "printed by the program\n" : "") + row + (g() % 2 ? "\r\n" : "\n");
      if (wide || bad) continue;
      if (ours && count < 0) bad = true;
      else if (ours) sum += count, ++kernels;
    }
    const sg::NcuLoads l = sg::parse_ncu_loads(out);
    if (wide || bad || kernels == 0) {
      EXPECT_FALSE(l.ok) << out;
    } else {
      EXPECT_TRUE(l.ok) << l.why << "\n" << out;
      EXPECT_EQ(l.loads, sum);
      EXPECT_EQ(l.kernels, kernels);
    }
  }
  EXPECT_LT(since(t0), kBoundS);
  // ncu's error lines, and the marker where the output ends or its line does.
  EXPECT_EQ(sg::ncu_errors("==PROF== x\n==ERROR== one failed\nprinted\n==ERROR== two"), ": one failed; two");
  for (const std::string end : {"==ERROR==", "==ERROR== ", "x==ERROR==\n", "==ERROR==\nnext line\n"}) {
    EXPECT_NO_THROW(sg::ncu_errors(end)) << end;
    EXPECT_EQ(sg::ncu_errors(end), ": ") << end;
  }
  // A value cut for the report inside a character; huge fields and lines.
  const std::string row = std::string(kHeader) + "\n\"1\",\"k\",\"" + sg::kGlobalLoadMetric + "\",\"i\",\"";
  EXPECT_TRUE(is_clean(sg::parse_ncu_loads(row + std::string(39, '1') + "\xe2\x82\xac\"\n").why));
  const std::string huge(8u << 20, '7');
  for (const std::string& out : {row + huge + "\"\n", std::string(kHeader) + "\n\"" + std::string(8u << 20, '"'),
                                 std::string(8u << 20, '"'), std::string(4u << 20, ',') + "\n" + kHeader,
                                 "==ERROR== " + huge}) {
    const auto t1 = Clock::now();
    EXPECT_FALSE(sg::parse_ncu_loads(out).ok);
    sg::ncu_errors(out);
    EXPECT_LT(since(t1), kBoundS);
  }
}

// ---- g++'s messages ----

TEST(ReaderFuzz, CompilerMessagesOfAnyShape) {
  const std::vector<std::string> dict = {
      "kernel.cu:19:27: error: ", "'q' was not declared in this scope", "; did you mean '", "'?", "'", "?",
      "   19 | ", "      |   ^~~", "      |   ", "SIZE_WIDTH", "tileA", "std::max", "cudacpu", "\n", "\n", " | ",
      "|", " ", "a", "_"};
  std::mt19937 g(35010);
  const auto t0 = Clock::now();
  for (int it = 0; it < 4000; ++it) {
    const std::string log = fuzz_text(g, dict, 60), source = fuzz_text(g, dict, 10);
    // Every name the log suggests is in a source that is the log itself: nothing is removed.
    EXPECT_EQ(sg::student_facing_messages(log, log), log);
    const std::string shown = sg::student_facing_messages(log, source);
    EXPECT_LE(shown.size(), log.size() + 1);
    const std::string first = sg::first_error_line(log);
    EXPECT_TRUE(first.empty() || (log.find(first) != std::string::npos && first.find('\n') == std::string::npos));
    sg::mentions_cpu_layer(log);
  }
  EXPECT_LT(since(t0), kBoundS);
  const std::string line = "kernel.cu:1:1: error: 'q' was not declared in this scope; did you mean 'SIZE_WIDTH'?\n";
  EXPECT_EQ(sg::student_facing_messages(line, "int q;").find("SIZE_WIDTH"), std::string::npos);
  // A long suggested name against a long source of its prefix, and many suggestions.
  const std::string name = std::string(30000, 'a') + "b";
  const std::string many = [] {
    std::string s;
    while (s.size() < (64u << 10)) s += "; did you mean 'a'?";
    return s;
  }();
  // A name's search is quadratic at worst: the log's cap (64 KiB) and the
  // source's (1 MiB) must keep it well inside the bound.
  const std::string source(1u << 20, 'a');
  for (const std::string& log : {"x.cu:1:1: error: 'c'; did you mean '" + name + "'?\n", many}) {
    const auto t1 = Clock::now();
    sg::student_facing_messages(log, source);
    EXPECT_LT(since(t1), kBoundS);
  }
}

}  // namespace
