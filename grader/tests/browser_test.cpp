// report.html and summary.html rendered by a real browser: headless Chromium
// (Debian's `chromium`) loads the pages a class batch wrote, its DOM is
// checked for the expected elements (after the page's own script ran), and
// screenshots are saved under build/screenshots/ for people to look at.
// Skipped, with the reason, where no Chromium is installed.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "shell_run.h"

namespace {

namespace fs = std::filesystem;
using sg::test::read_file;
using sg::test::run_shell;
using sg::test::shell_quote;

std::string chromium() {
  for (const char* name : {"chromium", "chromium-browser"}) {
    const std::string probe = std::string("command -v ") + name + " >/dev/null 2>&1";
    if (std::system(probe.c_str()) == 0) return name;
  }
  return "";
}

// Chromium's DOM of `page` after it loaded and ran its scripts.
std::string rendered_dom(const std::string& browser, const fs::path& page, const fs::path& work) {
  const auto r = run_shell(browser + " --headless --no-sandbox --disable-gpu --virtual-time-budget=2000 --dump-dom " +
                               shell_quote("file://" + page.string()) + " 2>/dev/null",
                           work / "dom.log", 120);
  EXPECT_EQ(r.code, 0) << r.output.substr(0, 2000);
  return r.output;
}

void screenshot(const std::string& browser, const fs::path& page, const fs::path& png, const fs::path& work) {
  fs::remove(png);
  const auto r = run_shell(browser + " --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1280,2400 " +
                               "--screenshot=" + shell_quote(png.string()) + " " + shell_quote("file://" + page.string()),
                           work / "shot.log", 120);
  EXPECT_EQ(r.code, 0) << r.output.substr(0, 2000);
  ASSERT_TRUE(fs::exists(png)) << r.output.substr(0, 2000);
  EXPECT_GT(fs::file_size(png), 10000u) << "an empty page?";
}

bool has(const std::string& text, const std::string& needle) { return text.find(needle) != std::string::npos; }

int count(const std::string& text, const std::string& needle) {
  int n = 0;
  for (std::size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

TEST(Browser, RendersReportAndSummaryPages) {
  const std::string browser = chromium();
  if (browser.empty()) GTEST_SKIP() << "no chromium installed (Debian package `chromium`): pages not rendered";
  const fs::path root = SG_SOURCE_ROOT, build = SG_BUILD_DIR;
  const fs::path work = build / "browser-test", shots = build / "screenshots";
  fs::remove_all(work);
  fs::create_directories(work / "class");
  fs::create_directories(shots);
  // One job at a time: make test grades the samples beside this test on few CPUs.
  // A class of 20: the reference twice (a copy), the naive kernel, the
  // skeleton, unguarded_store (whose report is read below), then bug samples
  // in name order and, while the class is short, hostile ones (the bug samples grow).
  std::vector<std::pair<std::string, fs::path>> members = {{"ref_a", root / "reference/kernel.cu"},
                                                            {"ref_b", root / "reference/kernel.cu"},
                                                            {"naive", root / "reference/naive.cu"},
                                                            {"skeleton", root / "student/kernel.cu"},
                                                            {"unguarded_store", root / "grader/samples/bugs/unguarded_store/kernel.cu"}};
  std::vector<fs::path> bugs;
  for (const auto& e : fs::directory_iterator(root / "grader/samples/bugs"))
    if (e.path().filename() != "unguarded_store") bugs.push_back(e.path());
  std::sort(bugs.begin(), bugs.end());
  for (const fs::path& bug : bugs)
    if (members.size() < 20) members.emplace_back(bug.filename().string(), bug / "kernel.cu");
  for (const char* hostile : {"leaves_one_unwritten", "writes_nan", "calls_system", "defines_main", "caches_repeat",
                              "prints_pass_and_exits"})
    if (members.size() < 20) members.emplace_back(hostile, root / "grader/samples/hostile" / hostile / "kernel.cu");
  ASSERT_EQ(members.size(), 20u);
  for (const auto& [id, file] : members) {
    fs::create_directories(work / "class" / id);
    fs::copy_file(file, work / "class" / id / "kernel.cu", fs::copy_options::overwrite_existing);
  }
  const auto batch = run_shell(shell_quote((build / "grade").string()) + " batch " +
                                   shell_quote((work / "class").string()) + " --out " +
                                   shell_quote((work / "out").string()) + " --backend cpu --suite " +
                                   shell_quote((root / "testcases/smoke.yaml").string()) + " --seed 7 --jobs 1 --quiet",
                               work / "batch.log", 1200);
  ASSERT_EQ(batch.code, 0) << batch.output;

  // A student's report: a failing case's heat map with titles, the test table.
  const fs::path report = work / "out/unguarded_store/report.html";
  ASSERT_TRUE(fs::exists(report));
  const std::string dom = rendered_dom(browser, report, work);
  EXPECT_TRUE(has(dom, "<table id=\"tests\">")) << dom.substr(0, 3000);
  EXPECT_TRUE(has(dom, "<strong id=\"score\">"));
  EXPECT_GE(count(dom, "class=\"heatmap\""), 1) << dom.substr(0, 3000);
  EXPECT_GE(count(dom, "class=\"wrong"), 1);
  EXPECT_TRUE(has(dom, "first wrong C[")) << "tiles' title text";
  EXPECT_TRUE(has(dom, "<h4>Likely causes</h4>"));
  screenshot(browser, report, shots / "report_unguarded_store.png", work);

  // The class page: every student linked to report.html, sortable (the
  // script ran: it made each heading clickable), similar pairs listed.
  const fs::path summary = work / "out/summary.html";
  const std::string page = rendered_dom(browser, summary, work);
  // Each student once in the students' table (the diagnoses' table links them too).
  const std::size_t table = page.find("<table id=\"students\"");
  ASSERT_NE(table, std::string::npos) << page.substr(0, 3000);
  const std::string students = page.substr(table, page.find("</table>", table) - table);
  EXPECT_EQ(count(students, "/report.html\">"), 20) << students.substr(0, 3000);
  EXPECT_GT(count(page, "/report.html\">"), 20) << "no diagnosis lists its students";
  EXPECT_TRUE(has(page, "<table id=\"students\" class=\"sortable\">"));
  EXPECT_EQ(count(page, "style=\"cursor: pointer;\""), 7) << "the sorting script did not run";
  EXPECT_TRUE(has(page, "<td>identical</td><td>ref_a</td><td>ref_b</td>")) << page.substr(page.find("similar"), 2000);
  EXPECT_TRUE(has(page, "skeleton is excluded"));
  EXPECT_TRUE(has(page, "Failure rate per test"));
  screenshot(browser, summary, shots / "summary_class_of_20.png", work);
}

}  // namespace
