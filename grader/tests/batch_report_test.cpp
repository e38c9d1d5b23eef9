// Tests of the batch writers (report/batch_writers.h): the gradebook CSV read
// back by an independent RFC 4180 parser, and the summary page parsed as XML.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "report/batch_writers.h"

namespace {

using nlohmann::json;
namespace fs = std::filesystem;

const std::string kFormulaName = "=HYPERLINK(\"http://evil.example\",\"x\")";
const std::string kQuotedName = "bob, \"the builder\"";
const std::string kScriptName = "<script>alert(1)</script>";

struct TestSpec {
  std::string name;
  sg::Status status;
  double score, max_score;
  std::vector<sg::Diagnosis> diagnoses = {};
};

sg::GradeResult student(const std::string& id, sg::GradeState state,
                        const std::vector<TestSpec>& tests, std::optional<double> gflops) {
  sg::GradeResult r;
  r.student = id;
  r.submission = "class/" + id;
  r.suite_name = "default";
  r.backend = sg::BackendKind::Gpu;
  r.state = state;
  for (const auto& spec : tests) {
    sg::TestResult t;
    t.name = spec.name;
    t.kind = sg::TestKind::Correctness;
    t.status = spec.status;
    t.score = spec.score;
    t.max_score = spec.max_score;
    t.diagnoses = spec.diagnoses;
    r.tests.push_back(t);
  }
  r.leaderboard_gflops = gflops;
  return r;
}

const sg::Diagnosis kBarrier{"race.output_changes", "outputs change between runs -> missing barrier (race)"};
const sg::Diagnosis kBoundary{"boundary.edge_wrong", "only the last partial tiles are wrong (n = 17) -> boundary handling"};
// The same diagnosis with another case's sizes: counted under the same id.
const sg::Diagnosis kBoundaryOther{"boundary.edge_wrong", "only the last partial tiles are wrong (n = 200) -> boundary handling"};

// A small class: full marks, partial, compile error without tests, hostile
// names, a timeout with a (meaningless) throughput, and students whose
// results hold different subsets of the suite.
std::vector<sg::GradeResult> klass() {
  using S = sg::Status;
  std::vector<sg::GradeResult> v;
  v.push_back(student("alice", sg::GradeState::Graded,
                      {{"small", S::Passed, 10, 10}, {"odd_k", S::Passed, 10, 10}, {"perf", S::Passed, 2, 2}},
                      900.0));
  v.push_back(student(kFormulaName, sg::GradeState::Graded,
                      {{"small", S::Passed, 10, 10},
                       {"odd_k", S::Failed, 0, 10, {kBarrier}},
                       {"perf", S::Partial, 1.25, 2}},
                      1500.0));
  v.push_back(student(kQuotedName, sg::GradeState::CompileError, {}, std::nullopt));
  v.push_back(student(kScriptName, sg::GradeState::Graded,
                      {{"small", S::Failed, 0, 10, {kBarrier, kBoundary}},
                       {"odd_k", S::Failed, 0, 10, {kBarrier}},
                       {"perf", S::Skipped, 0, 2}},
                      1200.0));
  v.push_back(student("carol", sg::GradeState::Timeout,
                      {{"small", S::Passed, 10, 10}, {"odd_k", S::Failed, 0, 10, {kBarrier}}, {"perf", S::Failed, 0, 2}},
                      5000.0));
  // Has a test the others lack, between two known ones.
  v.push_back(student("-dave", sg::GradeState::Graded,
                      {{"small", S::Passed, 10, 10},
                       {"rect", S::Passed, 4, 4},
                       {"odd_k", S::Passed, 10, 10},
                       {"perf", S::Failed, 0, 2, {kBoundary}}},
                      std::nullopt));
  return v;
}

// RFC 4180 reader: quoted fields may hold commas, CR, LF and doubled quotes.
std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> row;
  std::string field;
  bool quoted = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      if (!field.empty()) throw std::runtime_error("quote inside an unquoted field");
      quoted = true;
    } else if (c == ',') {
      row.push_back(field);
      field.clear();
    } else if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') {
      row.push_back(field);
      rows.push_back(row);
      row.clear();
      field.clear();
      ++i;
    } else if (c == '\n' || c == '\r') {
      throw std::runtime_error("bare line break outside quotes (RFC 4180 wants CRLF)");
    } else {
      field += c;
    }
  }
  if (quoted) throw std::runtime_error("unterminated quoted field");
  if (!field.empty() || !row.empty()) throw std::runtime_error("last record lacks CRLF");
  return rows;
}

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

std::string temp_dir() {
  std::string pattern = (fs::temp_directory_path() / "sg_batch_test_XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed for " + pattern);
  return pattern;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// ------------------------------------------------------------------ gradebook

TEST(GradebookCsv, TestColumnsFollowSuiteOrder) {
  const std::vector<std::string> cols = sg::test_columns(klass());
  EXPECT_EQ(cols, (std::vector<std::string>{"small", "rect", "odd_k", "perf"}));
  // A name first seen before any known one goes in front of it.
  std::vector<sg::GradeResult> v;
  v.push_back(student("a", sg::GradeState::Graded, {{"b", sg::Status::Passed, 1, 1}, {"c", sg::Status::Passed, 1, 1}}, {}));
  v.push_back(student("b", sg::GradeState::Graded, {{"a", sg::Status::Passed, 1, 1}, {"b", sg::Status::Passed, 1, 1}}, {}));
  v.push_back(student("c", sg::GradeState::Graded, {{"z", sg::Status::Passed, 1, 1}}, {}));
  EXPECT_EQ(sg::test_columns(v), (std::vector<std::string>{"a", "b", "c", "z"}));
}

TEST(GradebookCsv, ParsesBackWithOneRowPerStudent) {
  const auto results = klass();
  const std::string csv = sg::gradebook_csv(results);
  std::vector<std::vector<std::string>> rows;
  ASSERT_NO_THROW(rows = parse_csv(csv)) << csv;
  ASSERT_EQ(rows.size(), results.size() + 1);
  const std::vector<std::string> header = {"student", "total", "max", "status", "gflops",
                                           "small", "rect", "odd_k", "perf"};
  EXPECT_EQ(rows[0], header);
  for (const auto& row : rows) EXPECT_EQ(row.size(), header.size());

  EXPECT_EQ(rows[1], (std::vector<std::string>{"alice", "22", "22", "graded", "900", "10", "", "10", "2"}));
  EXPECT_EQ(rows[2][1], "11.25");
  EXPECT_EQ(rows[2][8], "1.25");
  // Commas and quotes survive quoting; a result without tests has empty cells.
  EXPECT_EQ(rows[3], (std::vector<std::string>{kQuotedName, "0", "0", "compile error", "", "", "", "", ""}));
  EXPECT_EQ(rows[5][3], "timeout");
  EXPECT_EQ(rows[6][6], "4");
  for (std::size_t i = 0; i < results.size(); ++i) {
    const std::string& cell = rows[i + 1][0];
    const std::string bare = cell[0] == '\'' ? cell.substr(1) : cell;
    EXPECT_EQ(bare, results[i].student) << "row " << i + 1;
  }
}

TEST(GradebookCsv, NotMeasuredIsBlankNotZero) {
  using S = sg::Status;
  const auto r = student("ann", sg::GradeState::Graded,
                         {{"small", S::Passed, 10, 10}, {"perf", S::Skipped, 0, 0}, {"slow", S::Failed, 0, 2}},
                         std::nullopt);
  const std::string csv = sg::gradebook_csv({r});
  EXPECT_NE(csv.find("\r\nann,10,12,graded,,10,,0\r\n"), std::string::npos) << csv;
}

TEST(GradebookCsv, DefendsAgainstFormulaInjection) {
  auto results = klass();
  results.push_back(student("+cmd", sg::GradeState::Graded, {}, {}));
  results.push_back(student("@SUM(A1)", sg::GradeState::Graded, {}, {}));
  const auto rows = parse_csv(sg::gradebook_csv(results));
  for (const auto& row : rows)
    for (const auto& cell : row)
      EXPECT_TRUE(cell.empty() || std::string("=+-@").find(cell[0]) == std::string::npos)
          << "cell a spreadsheet would run: " << cell;
  EXPECT_EQ(rows[2][0], "'" + kFormulaName);
  EXPECT_EQ(rows[6][0], "'-dave");
  EXPECT_EQ(rows[7][0], "'+cmd");
  EXPECT_EQ(rows[8][0], "'@SUM(A1)");
}

TEST(GradebookCsv, HostileBytesStayOneRecord) {
  std::vector<sg::GradeResult> v;
  v.push_back(student(std::string("eve\r\nmallory,\"x\xff") + '\0', sg::GradeState::Graded, {}, 10.0));
  const auto rows = parse_csv(sg::gradebook_csv(v));
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_TRUE(contains(rows[1][0], "eve"));
  EXPECT_TRUE(contains(rows[1][0], "mallory,\"x\xEF\xBF\xBD"));
  EXPECT_FALSE(contains(rows[1][0], std::string(1, '\0')));
}

// --------------------------------------------------------------- summary page

// Parses the page with Python's ElementTree (it is written as well-formed
// XML as well as HTML) and reports its structure.
const char kHtmlScript[] = R"PY(
import sys, json, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
svgs = list(root.iter("svg"))
out = {"root": root.tag,
       "tags": sorted(set(e.tag for e in root.iter())),
       "attrs": sorted(set(a for e in root.iter() for a in e.attrib)),
       "links": [{"href": a.get("href"), "text": "".join(a.itertext())} for a in root.iter("a")],
       "svgs": len(svgs),
       "histogram": [t.text for t in svgs[0].iter("title")] if svgs else [],
       "rates": ["".join(t.itertext()) for t in svgs[1].iter("text")] if len(svgs) > 1 else [],
       "title": "".join(root.find("head/title").itertext()),
       "h1": "".join(root.find("body/h1").itertext()),
       "tables": [[["".join(c.itertext()) for c in tr] for tr in tbl.iter("tr")]
                  for tbl in root.iter("table")]}
print(json.dumps(out))
)PY";

json parse_html(const std::string& html) {
  const std::string dir = temp_dir();
  std::ofstream(dir + "/page.html", std::ios::binary) << html;
  std::ofstream(dir + "/check.py") << kHtmlScript;
  const std::string cmd = "python3 '" + dir + "/check.py' '" + dir + "/page.html' 2>&1";
  std::FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) throw std::runtime_error("popen failed for: " + cmd);
  std::string out;
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  const int status = pclose(p);
  fs::remove_all(dir);
  const bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  EXPECT_TRUE(ok) << "python3 could not parse the summary page:\n" << out;
  return ok ? json::parse(out) : json();
}

// The table whose header row starts with `first`.
json table(const json& page, const std::string& first) {
  for (const auto& t : page["tables"])
    if (!t.empty() && !t[0].empty() && t[0][0] == first) return t;
  return json::array();
}

TEST(SummaryHtml, IsSelfContainedAndWellFormed) {
  const std::string html = sg::summary_html(klass(), "SGEMM <class> & \"grades\"");
  const json page = parse_html(html);
  ASSERT_FALSE(page.is_null());
  EXPECT_EQ(page["root"], "html");
  EXPECT_EQ(page["title"], "SGEMM <class> & \"grades\"");
  EXPECT_EQ(page["h1"], "SGEMM <class> & \"grades\"");
  for (const char* tag : {"link", "img", "iframe", "object", "embed"})
    EXPECT_EQ(std::count(page["tags"].begin(), page["tags"].end(), tag), 0) << tag;
  // One inline script (the table sort), with no src: nothing is fetched.
  EXPECT_EQ(std::count(page["tags"].begin(), page["tags"].end(), "script"), 1);
  // Sortable student table, with numbers to sort by.
  EXPECT_TRUE(contains(html, "<table id=\"students\" class=\"sortable\">"));
  EXPECT_TRUE(contains(html, "data-sort=\"-1\"")) << "untimed students sort below timed ones";
  for (const auto& a : page["attrs"]) {
    EXPECT_NE(a, "src");
    EXPECT_NE(a.get<std::string>().rfind("on", 0), 0u) << "event handler attribute " << a;
  }
  EXPECT_FALSE(contains(html, "url(")) << "CSS must not fetch anything";
  EXPECT_FALSE(contains(html, "@import"));
  EXPECT_GE(page["svgs"].get<int>(), 2);
  EXPECT_TRUE(contains(html, "No submission was timed")) << "klass() has no timings";
  // Score against speedup: a dot per submission with a plausible timing.
  std::vector<sg::GradeResult> timed_class = klass();
  sg::Timing fast, flagged;
  fast.speedup = 1.25;
  flagged.speedup = 9;
  flagged.implausible = true;
  timed_class[0].tests.back().timing = fast;
  timed_class[1].tests.back().timing = fast;
  timed_class[2].tests.push_back(timed_class[0].tests.back());
  timed_class[2].tests.back().timing = flagged;  // earns no place on the chart
  const std::string with_timings = sg::summary_html(timed_class, "class");
  const std::size_t at = with_timings.find("<svg id=\"scatter\"");
  ASSERT_NE(at, std::string::npos) << "no scatter";
  const std::string scatter = with_timings.substr(at, with_timings.find("</svg>", at) - at);
  int dots = 0;
  for (std::size_t i = scatter.find("<circle"); i != std::string::npos; i = scatter.find("<circle", i + 1)) ++dots;
  EXPECT_EQ(dots, 2) << scatter;
  EXPECT_TRUE(contains(scatter, "1.25x</title>")) << scatter;
}

TEST(SummaryHtml, EscapesHostileNames) {
  const auto results = klass();
  const std::string html = sg::summary_html(results, "class");
  std::string lower = html;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  // The page's own sorting script is its only one: no student name reached it as markup.
  EXPECT_EQ(lower.find("<script"), lower.rfind("<script")) << "student name reached the page as markup";
  EXPECT_TRUE(contains(html, "<script>//<![CDATA[\ndocument.querySelectorAll('table.sortable th')"));
  EXPECT_TRUE(contains(html, "&lt;script&gt;alert(1)&lt;/script&gt;"));
  const json page = parse_html(html);
  ASSERT_FALSE(page.is_null());
  // Every student is linked to their report folder, by a relative link that
  // stays inside the batch folder: once in the students' table, and once per
  // diagnosis they have (kBarrier: 3 students, kBoundary: 2).
  ASSERT_EQ(page["links"].size(), results.size() + 5);
  std::vector<std::string> texts;
  for (const auto& l : page["links"]) {
    texts.push_back(l["text"]);
    const std::string href = l["href"];
    EXPECT_TRUE(href.size() > 12 && href.substr(href.size() - 12) == "/report.html") << href;
    EXPECT_EQ(std::count(href.begin(), href.end(), '/'), 1) << href;
    EXPECT_EQ(href.find(':'), std::string::npos) << "no scheme: " << href;
    EXPECT_NE(href.rfind("..", 0), 0u) << href;
    EXPECT_EQ(href.find_first_of("<>\"' "), std::string::npos) << href;
  }
  for (const auto& r : results) EXPECT_GE(std::count(texts.begin(), texts.end(), r.student), 1) << r.student;
  // Changed or reserved ids keep their sanitised text and get "-" and 8 hex digits of their own.
  const auto suffixed = [](const std::string& folder, const std::string& base) {
    return folder.size() == base.size() + 9 && folder.rfind(base + "-", 0) == 0 &&
           folder.find_first_not_of("0123456789abcdef", base.size() + 1) == std::string::npos;
  };
  EXPECT_TRUE(suffixed(sg::report_folder(kScriptName), "_script_alert_1___script_")) << sg::report_folder(kScriptName);
  EXPECT_TRUE(suffixed(sg::report_folder(".."), "_..")) << sg::report_folder("..");
  EXPECT_TRUE(suffixed(sg::report_folder(""), "_")) << sg::report_folder("");
}

TEST(SummaryHtml, HistogramFailureRatesDiagnosesAndLeaderboard) {
  const auto results = klass();
  const json page = parse_html(sg::summary_html(results, "class"));
  ASSERT_FALSE(page.is_null());

  // Ten bins; every result with points possible lands in one.
  ASSERT_EQ(page["histogram"].size(), 10u);
  int total = 0;
  for (const auto& t : page["histogram"]) total += std::stoi(t.get<std::string>());
  EXPECT_EQ(total, 5) << "the compile error without tests has no maximum";
  EXPECT_EQ(page["histogram"][9], "2 submissions");  // alice 100%, -dave 24/26

  // odd_k ran in the four results that were graded and failed in two; carol's
  // grading timed out, so her rows are not runs of the test.
  bool found = false;
  for (std::size_t i = 0; i + 1 < page["rates"].size(); ++i)
    if (page["rates"][i] == "odd_k") {
      EXPECT_EQ(page["rates"][i + 1], "50% (2/4)");
      found = true;
    }
  EXPECT_TRUE(found) << page["rates"];

  // Counted once per submission, most common first.
  const json diag = table(page, "Diagnosis");
  ASSERT_EQ(diag.size(), 3u) << diag;
  // Each lists the students who have it (issue 36: which students, not only how many).
  EXPECT_EQ(diag[1], (json{kBarrier.id, "3", kBarrier.text,
                           std::string(kFormulaName) + ", " + kScriptName + ", carol"}));
  EXPECT_EQ(diag[2][0], kBoundary.id);
  EXPECT_EQ(diag[2][1], "2") << "two submissions, with different sizes in the text, under one id";
  EXPECT_EQ(diag[2][3], std::string(kScriptName) + ", -dave");
  // ...each linked to the student's report.
  const std::string html = sg::summary_html(results, "class");
  const std::size_t at = html.find("<table id=\"diagnoses\">");
  ASSERT_NE(at, std::string::npos);
  const std::string diagnoses = html.substr(at, html.find("</table>", at) - at);
  for (const std::string& student : {std::string("carol"), std::string("-dave")})
    EXPECT_NE(diagnoses.find("href=\"" + sg::report_folder(student) + "/report.html\""), std::string::npos)
        << student << " has no link to its report:\n" << diagnoses;

  // Only normally graded results, fastest first; the timeout is left out.
  const json board = table(page, "Rank");
  ASSERT_EQ(board.size(), 4u) << board;
  EXPECT_EQ(board[1], (json{"1", kFormulaName, "1500"}));
  EXPECT_EQ(board[2], (json{"2", kScriptName, "1200"}));
  EXPECT_EQ(board[3], (json{"3", "alice", "900"}));

  const json students = table(page, "Student");
  ASSERT_EQ(students.size(), results.size() + 1);
  bool seen_script = false;
  for (const auto& row : students)
    if (row[0] == kScriptName) {
      seen_script = true;
      EXPECT_EQ(row[2], "0");
      EXPECT_EQ(row[6], "small, odd_k");
    }
  EXPECT_TRUE(seen_script);
}

TEST(SummaryHtml, EmptyClassStillRenders) {
  const json page = parse_html(sg::summary_html({}, "empty"));
  ASSERT_FALSE(page.is_null());
  EXPECT_EQ(page["h1"], "empty");
}

TEST(BatchReports, WritesBothFilesAndNamesThePathOnFailure) {
  const auto results = klass();
  const std::string root = temp_dir();
  sg::write_batch_reports(results, root + "/batch", "class");
  EXPECT_EQ(read_file(root + "/batch/gradebook.csv"), sg::gradebook_csv(results));
  EXPECT_EQ(read_file(root + "/batch/summary.html"), sg::summary_html(results, "class"));
  fs::create_directories(root + "/taken/gradebook.csv");
  try {
    sg::write_batch_reports(results, root + "/taken", "class");
    ADD_FAILURE() << "expected an exception when gradebook.csv is a folder";
  } catch (const std::runtime_error& e) {
    EXPECT_TRUE(contains(e.what(), "cannot write " + root + "/taken/gradebook.csv")) << e.what();
  }
  fs::remove_all(root);
}

}  // namespace
