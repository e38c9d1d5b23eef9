// canvas.csv imports into an existing Canvas assignment (issue 36, item 6):
// the CSV reader, the roster from Canvas's own gradebook export, matching its
// students to the submissions, the file itself (column, Points Possible from
// the suite, the ids Canvas matches on), the command line, and a batch that
// refuses a bad roster before grading anything.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "batch/canvas_roster.h"
#include "batch/lms_export.h"
#include "batch/roster_match.h"
#include "cli/batch_cli.h"
#include "io/csv_reader.h"
#include "model/plan.h"
#include "shell_run.h"
#include "suite/suite_loader.h"

namespace {

namespace fs = std::filesystem;
using namespace sg::batch;

const std::string kRoot = SG_SOURCE_ROOT;

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

using Fields = std::vector<std::string>;

std::vector<Fields> fields_of(const std::string& text) {
  std::vector<Fields> out;
  for (const auto& row : sg::read_csv(text)) out.push_back(row.fields);
  return out;
}

// The message `f` throws as E, or "" when it throws nothing.
template <typename E, typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  }
  return "";
}

// ----------------------------------------------------------------- CSV reader

TEST(CsvReader, ReadsWhatSpreadsheetsWrite) {
  // A byte-order mark, CRLF, quoted commas, doubled quotes, a line break in a
  // field, a blank line, empty fields at a row's end and no final line end.
  const std::string text = "\xEF\xBB\xBFStudent,ID\r\n\"Lovelace, Ada\",\"say \"\"hi\"\"\"\r\n\r\n"
                           "\"two\nlines\",x\n,,\nlast,row";
  const std::vector<Fields> expected = {
      {"Student", "ID"}, {"Lovelace, Ada", "say \"hi\""}, {"two\nlines", "x"}, {"", "", ""}, {"last", "row"}};
  EXPECT_EQ(fields_of(text), expected);
  const auto rows = sg::read_csv(text);
  EXPECT_EQ(rows[2].line, 4) << "rows know the line they start on";
  EXPECT_EQ(rows[3].line, 6) << "a quoted line break counts";
  EXPECT_EQ(fields_of("a,b\rc,d\r"), (std::vector<Fields>{{"a", "b"}, {"c", "d"}})) << "old Mac line ends";
  EXPECT_TRUE(sg::read_csv("").empty());
  EXPECT_TRUE(sg::read_csv("\xEF\xBB\xBF\r\n\r\n").empty());
}

TEST(CsvReader, BrokenQuotingIsAnErrorNamingTheLine) {
  std::string err = error_of<sg::CsvError>([] { sg::read_csv("a,b\n\"open,c\nd\n"); });
  EXPECT_TRUE(contains(err, "line 2")) << err;
  EXPECT_TRUE(contains(err, "never closed")) << err;
  err = error_of<sg::CsvError>([] { sg::read_csv("a,b\nc,\"d\"e\n"); });
  EXPECT_TRUE(contains(err, "line 2")) << err;
  EXPECT_TRUE(contains(err, "field 2")) << err;
}

// ----------------------------------------------------------------- the roster

// As Canvas exports a gradebook: a BOM, CRLF, quoted names, the Points
// Possible row, the row of posting policies that names no one, assignments.
const std::string kCanvasExport =
    "\xEF\xBB\xBF" "Student,ID,SIS User ID,SIS Login ID,Section,Lab 1 (4410),\"SGEMM (4821)\"\r\n"
    "    Points Possible,,,,,10,100\r\n"
    ",,,,,Manual Posting,Manual Posting\r\n"
    "\"Lovelace, Ada\",9001,1815,ada@uni.edu,\"CS 101, Mon\",9,\r\n"
    "\"Hopper, Grace \"\"Amazing\"\"\",9002,1906,grace@uni.edu,CS 101,10,\r\n"
    "\"Turing, Alan\",9003,1912,aturing,CS 102,8,\r\n"
    "\"Student, Test\",9099,,,CS 101,,\r\n";

TEST(CanvasRoster, ReadsCanvasOwnExport) {
  const CanvasRoster r = parse_canvas_roster(kCanvasExport, "grades.csv");
  // Points Possible and the posting row are left out; Canvas's test student
  // stays (a Canvas ID without SIS ids, as every student of a course without SIS).
  ASSERT_EQ(r.students.size(), 4u);
  EXPECT_EQ(r.students[0].name, "Lovelace, Ada");
  EXPECT_EQ(r.students[0].id, "9001");
  EXPECT_EQ(r.students[0].sis_user_id, "1815");
  EXPECT_EQ(r.students[0].sis_login_id, "ada@uni.edu");
  EXPECT_EQ(r.students[0].section, "CS 101, Mon");
  EXPECT_EQ(r.students[0].line, 4);
  EXPECT_EQ(r.students[1].name, "Hopper, Grace \"Amazing\"");
  EXPECT_EQ(r.students[2].sis_login_id, "aturing");
  EXPECT_EQ(r.students[3].id, "9099");
}

TEST(CanvasRoster, HeadingsMatchLooselyAndSectionIsOptional) {
  const CanvasRoster r = parse_canvas_roster(" sis login id ,Student,id,SIS USER ID\nada@uni.edu,Ada,1,1815\n", "r.csv");
  ASSERT_EQ(r.students.size(), 1u);
  EXPECT_EQ(r.students[0].sis_login_id, "ada@uni.edu");
  EXPECT_EQ(r.students[0].section, "");
}

TEST(CanvasRoster, AMalformedRosterNamesTheFileAndWhatIsMissing) {
  std::string err = error_of<CanvasRosterError>([] { parse_canvas_roster("Name,Email\nAda,ada@uni.edu\n", "r.csv"); });
  EXPECT_TRUE(contains(err, "r.csv")) << err;
  EXPECT_TRUE(contains(err, "lacks Student, ID, SIS User ID, SIS Login ID")) << err;
  EXPECT_TRUE(contains(err, "'Name', 'Email'")) << err << " (what it has)";
  err = error_of<CanvasRosterError>([] { parse_canvas_roster("Student,ID,SIS User ID\nAda,1,2\n", "r.csv"); });
  EXPECT_TRUE(contains(err, "lacks SIS Login ID;")) << err;
  err = error_of<CanvasRosterError>([] { parse_canvas_roster("", "r.csv"); });
  EXPECT_TRUE(contains(err, "r.csv is empty")) << err;
  err = error_of<CanvasRosterError>([] { parse_canvas_roster("Student,ID,SIS User ID,SIS Login ID\r\n", "r.csv"); });
  EXPECT_TRUE(contains(err, "lists no student")) << err;
  err = error_of<CanvasRosterError>(
      [] { parse_canvas_roster("Student,ID,SIS User ID,SIS Login ID\n\"Ada,1,2,3\n", "r.csv"); });
  EXPECT_TRUE(contains(err, "r.csv: not CSV: line 2")) << err;
  err = error_of<CanvasRosterError>([] { read_canvas_roster("/nonexistent/roster.csv"); });
  EXPECT_TRUE(contains(err, "cannot read roster /nonexistent/roster.csv: No such file")) << err;
  err = error_of<CanvasRosterError>([] { read_canvas_roster(kRoot); });
  EXPECT_TRUE(contains(err, "is not a file")) << err;
}

// ----------------------------------------------------------------- matching

Person person(const std::string& student, const std::string& name = "", const std::string& sid = "",
              const std::string& email = "") {
  return {student, {name, sid, email}};
}

TEST(RosterMatch, ByTheIdsCanvasKnows) {
  const CanvasRoster roster = parse_canvas_roster(kCanvasExport, "grades.csv");
  const std::vector<Person> people = {
      person("1815", "Ada Lovelace", "1815", "ada@uni.edu"),  // a Gradescope SID
      person("GRACE@uni.edu"),                                // a folder named by e-mail, any case
      person("9003"),                                         // a folder named by Canvas ID
      person("eve")};                                         // nobody in the course
  const RosterMatch m = match_roster(roster, people);
  ASSERT_EQ(m.person.size(), 4u);
  EXPECT_EQ(m.person[0], std::optional<std::size_t>(0));
  EXPECT_EQ(m.by[0], MatchedBy::SisId);
  EXPECT_EQ(m.person[1], std::optional<std::size_t>(1));
  EXPECT_EQ(m.person[2], std::optional<std::size_t>(2));
  EXPECT_EQ(m.by[2], MatchedBy::CanvasId);
  EXPECT_FALSE(m.person[3]) << "the test student handed nothing in";
  EXPECT_EQ(m.unmatched, (std::vector<std::size_t>{3}));
  EXPECT_TRUE(m.notes.empty()) << m.notes.front();
}

TEST(RosterMatch, ALoginNameAloneMatchesOnlyWhenUniqueAndIsNoted) {
  const CanvasRoster roster = parse_canvas_roster(
      "Student,ID,SIS User ID,SIS Login ID\nAda,1,s1,ada@uni.edu\nAda Two,2,s2,ada@other.edu\nAlan,3,s3,alan@uni.edu\n",
      "r.csv");
  const RosterMatch m = match_roster(roster, {person("ada"), person("alan")});
  EXPECT_FALSE(m.person[0] || m.person[1]) << "two roster students are ada: neither is guessed";
  EXPECT_EQ(m.person[2], std::optional<std::size_t>(1));
  EXPECT_EQ(m.by[2], MatchedBy::LoginName);
  EXPECT_EQ(m.unmatched, (std::vector<std::size_t>{0}));
  ASSERT_EQ(m.notes.size(), 2u);
  EXPECT_TRUE(contains(m.notes[0], "ada matches several roster students")) << m.notes[0];
  EXPECT_TRUE(contains(m.notes[1], "by login name only")) << m.notes[1];
}

TEST(RosterMatch, TwoSubmissionsClaimingOneStudentGetNeither) {
  const CanvasRoster roster = parse_canvas_roster("Student,ID,SIS User ID,SIS Login ID\nAda,1,s1,ada@uni.edu\n", "r.csv");
  const RosterMatch m = match_roster(roster, {person("ada@uni.edu"), person("x", "", "s1")});
  EXPECT_FALSE(m.person[0]);
  EXPECT_EQ(m.unmatched.size(), 2u);
  ASSERT_EQ(m.notes.size(), 1u);
  EXPECT_TRUE(contains(m.notes[0], "matches several submissions")) << m.notes[0];
}

// ----------------------------------------------------------------- canvas.csv

sg::GradeResult result(const std::string& student, double score, double max) {
  sg::GradeResult r;
  r.student = student;
  sg::TestResult t;
  t.name = "all";
  t.score = score;
  t.max_score = max;
  r.tests.push_back(t);
  return r;
}

TEST(CanvasCsv, WithARosterEveryStudentGetsTheirCanvasIds) {
  const CanvasRoster roster = parse_canvas_roster(kCanvasExport, "grades.csv");
  const std::vector<Person> people = {person("1815", "Ada Lovelace", "1815", "ada@uni.edu"), person("aturing"),
                                      person("eve")};
  const std::vector<sg::GradeResult> results = {result("1815", 70.5, 84), result("aturing", 84, 84),
                                                result("eve", 10, 84)};
  CanvasSettings s;
  s.column = "SGEMM (4821)";
  s.points_possible = 84;
  s.roster = &roster;
  const CanvasExport e = canvas_export(people, results, s);
  const std::vector<Fields> expected = {
      {"Student", "ID", "SIS User ID", "SIS Login ID", "Section", "SGEMM (4821)"},
      {"Points Possible", "", "", "", "", "84"},
      {"Lovelace, Ada", "9001", "1815", "ada@uni.edu", "CS 101, Mon", "70.5"},
      {"Hopper, Grace \"Amazing\"", "9002", "1906", "grace@uni.edu", "CS 101", ""},  // no submission: left as is
      {"Turing, Alan", "9003", "1912", "aturing", "CS 102", "84"},
      {"Student, Test", "9099", "", "", "CS 101", ""}};
  EXPECT_EQ(fields_of(e.csv), expected) << e.csv;
  EXPECT_EQ(e.csv.find("\r\n"), e.csv.find('\n') - 1) << "CRLF line ends";
  // eve is in no row: said in the log and on the summary page, not dropped silently.
  ASSERT_EQ(e.warnings.size(), 1u);
  EXPECT_TRUE(contains(e.warnings[0], "1 submission matches no student of the roster grades.csv")) << e.warnings[0];
  EXPECT_TRUE(contains(e.warnings[0], ": eve")) << e.warnings[0];
  EXPECT_TRUE(contains(e.summary_html, "<ul id=\"canvas-unmatched\">\n<li>eve</li>")) << e.summary_html;
  EXPECT_TRUE(contains(e.summary_html, "2 with the score of their submission, 2 without")) << e.summary_html;
  EXPECT_TRUE(contains(e.summary_html, "Hopper, Grace &quot;Amazing&quot; (grace@uni.edu)")) << e.summary_html;
  EXPECT_TRUE(contains(e.summary_html, "Student, Test (ID 9099)")) << e.summary_html;
}

TEST(CanvasCsv, WithoutARosterOneRowPerPerson) {
  CanvasSettings s;
  s.column = "=cmd";  // a heading a spreadsheet would run is defused
  s.points_possible = 100;
  const CanvasExport e = canvas_export({person("alice")}, {result("alice", 50, 100)}, s);
  EXPECT_EQ(fields_of(e.csv), (std::vector<Fields>{{"Student", "ID", "SIS User ID", "SIS Login ID", "Section", "'=cmd"},
                                                   {"Points Possible", "", "", "", "", "100"},
                                                   {"alice", "", "", "alice", "", "50"}}));
  EXPECT_TRUE(e.warnings.empty());
}

// Points Possible is what the suite is worth on the backend used, not the best
// maximum among the results; the command line may say otherwise.
TEST(CanvasCsv, PointsPossibleComeFromTheSuiteForTheBackend) {
  const sg::Suite suite = sg::load_suite_file(kRoot + "/testcases/default.yaml");
  BatchOptions o;
  EXPECT_EQ(canvas_settings(o, &suite, sg::BackendKind::Cpu, "T", nullptr).points_possible, 84);
  EXPECT_EQ(canvas_settings(o, &suite, sg::BackendKind::Gpu, "T", nullptr).points_possible, 100);
  std::string text = sg::test::read_file(kRoot + "/testcases/default.yaml");
  const std::string rule = "without_gpu: not_measured";
  ASSERT_NE(text.find(rule), std::string::npos);
  text.replace(text.find(rule), rule.size(), "without_gpu: to_correctness");
  const sg::Suite shared = sg::load_suite_string(text, "shared.yaml");
  EXPECT_EQ(canvas_settings(o, &shared, sg::BackendKind::Cpu, "T", nullptr).points_possible, 100);
  o.public_only = true;
  EXPECT_EQ(canvas_settings(o, &suite, sg::BackendKind::Cpu, "T", nullptr).points_possible,
            sg::planned_max(suite, sg::Shown::PublicOnly, sg::kCpuNotTimed));
  o.points_possible = 50;
  o.canvas_column = "SGEMM (4821)";
  const CanvasSettings s = canvas_settings(o, &suite, sg::BackendKind::Cpu, "T", nullptr);
  EXPECT_EQ(s.points_possible, 50);
  EXPECT_EQ(s.column, "SGEMM (4821)");
  EXPECT_EQ(canvas_settings(BatchOptions{}, &suite, sg::BackendKind::Cpu, "Title", nullptr).column, "Title");
}

// ----------------------------------------------------------------- command line

bool parse_batch(std::vector<std::string> args, BatchOptions& o, std::string& err) {
  args.insert(args.begin(), "batch");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  return sg::parse_batch_args(static_cast<int>(argv.size()), argv.data(), o, err, false);
}

TEST(CanvasCli, CanvasOptionsImplyTheExportAndCheckTheirValues) {
  for (const std::vector<std::string>& extra : {std::vector<std::string>{"--roster", "r.csv"},
                                                {"--canvas-column", "SGEMM (4821)"},
                                                {"--points-possible", "84"}}) {
    BatchOptions o;
    std::string err;
    std::vector<std::string> args = {"subs", "--out", "o"};
    args.insert(args.end(), extra.begin(), extra.end());
    ASSERT_TRUE(parse_batch(args, o, err)) << err;
    EXPECT_TRUE(o.export_canvas) << extra[0];
  }
  BatchOptions o;
  std::string err;
  ASSERT_TRUE(parse_batch({"subs", "--out", "o", "--points-possible", "12.5"}, o, err)) << err;
  EXPECT_EQ(o.points_possible, std::optional<double>(12.5));
  for (const auto& [args, mentions] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"subs", "--out", "o", "--points-possible", "0"}, "--points-possible: expected points > 0, got 0"},
           {{"subs", "--out", "o", "--points-possible", "ten"}, "--points-possible: expected points > 0, got ten"},
           {{"subs", "--out", "o", "--roster", "r.csv", "--shard", "0/2"}, "give them to grade merge"}}) {
    BatchOptions bad;
    EXPECT_FALSE(parse_batch(args, bad, err)) << mentions;
    EXPECT_TRUE(contains(err, mentions)) << err;
  }
}

TEST(CanvasCli, TheHelpDocumentsEveryCanvasOption) {
  for (bool merge : {false, true}) {
    const std::string help = sg::batch_usage(merge);
    for (const char* o : {"--title TEXT", "--export FORMAT", "--roster FILE", "--canvas-column TEXT",
                          "--points-possible N"})
      EXPECT_TRUE(contains(help, o)) << o << " missing from " << (merge ? "grade merge" : "grade batch") << " --help";
    EXPECT_TRUE(contains(help, "title of summary.html, and canvas.csv's column")) << help;
    EXPECT_TRUE(contains(help, "SIS User ID, SIS Login ID and Section")) << help;
  }
}

// ----------------------------------------------------------------- a batch

struct Class {
  fs::path dir;
  Class() : dir(fs::temp_directory_path() / ("sg-lms-" + std::to_string(::getpid()))) {
    fs::remove_all(dir);
    for (const char* who : {"ada", "aturing", "eve"}) {
      fs::create_directories(dir / "subs" / who);
      fs::copy_file(kRoot + "/grader/samples/bugs/compile_error/kernel.cu", dir / "subs" / who / "kernel.cu");
    }
  }
  ~Class() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  sg::test::ShellRun batch(const std::string& extra) const {
    return sg::test::run_shell(sg::test::shell_quote(std::string(SG_BUILD_DIR) + "/grade") + " batch " +
                                   sg::test::shell_quote((dir / "subs").string()) + " --out " +
                                   sg::test::shell_quote((dir / "out").string()) + " --backend cpu --jobs 1 " + extra,
                               dir / "batch.log", 300);
  }
};

TEST(CanvasBatch, ABadRosterStopsTheBatchBeforeAnyGrading) {
  const Class c;
  std::ofstream(c.dir / "bad.csv") << "Name,Email\r\nAda,ada@uni.edu\r\n";
  sg::test::ShellRun r = c.batch("--roster " + sg::test::shell_quote((c.dir / "bad.csv").string()));
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "bad.csv: line 1 (the header) lacks Student, ID, SIS User ID, SIS Login ID"))
      << r.output;
  EXPECT_FALSE(fs::exists(c.dir / "out")) << "nothing was graded or written";
  r = c.batch("--roster " + sg::test::shell_quote((c.dir / "missing.csv").string()));
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "cannot read roster")) << r.output;
}

TEST(CanvasBatch, ARosterFillsCanvasCsvAndTheUnmatchedAreListed) {
  const Class c;
  std::ofstream(c.dir / "grades.csv", std::ios::binary) << kCanvasExport;
  const sg::test::ShellRun r =
      c.batch("--roster " + sg::test::shell_quote((c.dir / "grades.csv").string()) + " --canvas-column 'SGEMM (4821)'");
  ASSERT_EQ(r.code, 0) << r.output;
  const std::vector<Fields> csv = fields_of(sg::test::read_file(c.dir / "out/canvas.csv"));
  ASSERT_EQ(csv.size(), 6u) << sg::test::read_file(c.dir / "out/canvas.csv");
  EXPECT_EQ(csv[0][5], "SGEMM (4821)");
  EXPECT_EQ(csv[1], (Fields{"Points Possible", "", "", "", "", "84"})) << "the default suite on the CPU backend";
  EXPECT_EQ(csv[2], (Fields{"Lovelace, Ada", "9001", "1815", "ada@uni.edu", "CS 101, Mon", "0"}));
  EXPECT_EQ(csv[3][5], "") << "Grace handed nothing in";
  EXPECT_EQ(csv[4], (Fields{"Turing, Alan", "9003", "1912", "aturing", "CS 102", "0"}));
  EXPECT_TRUE(contains(r.output, "grade batch: warning: 1 submission matches no student of the roster")) << r.output;
  EXPECT_TRUE(contains(r.output, "by login name only")) << r.output << " (ada: folder name against ada@uni.edu)";
  EXPECT_TRUE(contains(r.output, "grade batch: Scores out of 84. CPU backend: performance not measured")) << r.output;
  const std::string summary = sg::test::read_file(c.dir / "out/summary.html");
  EXPECT_TRUE(contains(summary, "<ul id=\"canvas-unmatched\">\n<li>eve</li>")) << summary;
}

// A Slurm batch: the shards write no canvas.csv; the merge does, for the whole
// class, and the plan's merge command carries the options.
TEST(CanvasBatch, TheMergeOfASlurmBatchWritesCanvasCsv) {
  const Class c;
  std::ofstream(c.dir / "grades.csv", std::ios::binary) << kCanvasExport;
  const std::string roster = sg::test::shell_quote((c.dir / "grades.csv").string());
  sg::test::ShellRun r = c.batch("--slurm 2 --roster " + roster + " --canvas-column 'SGEMM (4821)'");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "--merge " + sg::test::shell_quote((c.dir / "out").string()) +
                                     " --export canvas --roster " + roster + " --canvas-column 'SGEMM (4821)'"))
      << r.output;
  r = c.batch("--shard 0/1 --roster " + roster);
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "give them to grade merge")) << r.output;
  r = c.batch("--shard 0/1");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_FALSE(fs::exists(c.dir / "out/shards/0/canvas.csv"));
  const std::string merge = sg::test::shell_quote(std::string(SG_BUILD_DIR) + "/grade") + " merge " +
                            sg::test::shell_quote((c.dir / "out").string());
  r = sg::test::run_shell(merge + " --roster " + sg::test::shell_quote((c.dir / "missing.csv").string()),
                          c.dir / "merge.log", 120);
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_FALSE(fs::exists(c.dir / "out/gradebook.csv")) << "a bad roster stops the merge before it writes";
  r = sg::test::run_shell(merge + " --roster " + roster + " --canvas-column 'SGEMM (4821)'", c.dir / "merge.log", 120);
  ASSERT_EQ(r.code, 0) << r.output;
  const std::vector<Fields> csv = fields_of(sg::test::read_file(c.dir / "out/canvas.csv"));
  ASSERT_EQ(csv.size(), 6u) << sg::test::read_file(c.dir / "out/canvas.csv");
  EXPECT_EQ(csv[0][5], "SGEMM (4821)");
  EXPECT_EQ(csv[1][5], "84");
  EXPECT_EQ(csv[2], (Fields{"Lovelace, Ada", "9001", "1815", "ada@uni.edu", "CS 101, Mon", "0"}));
  EXPECT_TRUE(contains(r.output, "grade batch --merge: warning: 1 submission matches no student")) << r.output;
  EXPECT_TRUE(contains(sg::test::read_file(c.dir / "out/summary.html"), "<li>eve</li>"));
}

}  // namespace
