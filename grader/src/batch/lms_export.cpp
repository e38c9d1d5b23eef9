#include "batch/lms_export.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>

#include "batch/roster_match.h"
#include "batch/slurm_plan.h"
#include "io/atomic_file.h"
#include "model/plan.h"
#include "report/class_files.h"
#include "report/feedback.h"
#include "report/text_clean.h"

namespace sg::batch {
namespace {

using report::xml_escape;

std::string cell(const std::string& raw) { return report::csv_text_cell(raw); }

std::string number(double v) { return std::isfinite(v) ? report::num(v, 3) : ""; }

std::map<std::string, const GradeResult*> by_student(const std::vector<GradeResult>& results) {
  std::map<std::string, const GradeResult*> m;
  for (const auto& r : results) m.emplace(r.student, &r);
  return m;
}

std::string score_of(const std::map<std::string, const GradeResult*>& results, const std::string& student) {
  const auto it = results.find(student);
  return it == results.end() ? std::string() : number(it->second->score());
}

// The id a TA knows a roster student by: their login, else their SIS or Canvas id.
std::string known_by(const CanvasStudent& s) {
  return !s.sis_login_id.empty() ? s.sis_login_id : !s.sis_user_id.empty() ? s.sis_user_id : "ID " + s.id;
}

std::string header(const CanvasSettings& s) {
  return "Student,ID,SIS User ID,SIS Login ID,Section," + cell(s.column) + "\r\n" + "Points Possible,,,,," +
         number(s.points_possible) + "\r\n";
}

// A longer list on summary.html folds into <details>: the page stays readable for a large course.
constexpr std::size_t kUnfoldedItems = 12;

std::string html_list(const std::string& id, const std::string& heading, const std::vector<std::string>& items) {
  if (items.empty()) return "";
  std::string ul = "<ul id=\"" + id + "\">\n";
  for (const auto& i : items) ul += "<li>" + xml_escape(i) + "</li>\n";
  ul += "</ul>\n";
  if (items.size() <= kUnfoldedItems) return "<p>" + xml_escape(heading) + "</p>\n" + ul;
  return "<details><summary>" + xml_escape(heading) + "</summary>\n" + ul + "</details>\n";
}

std::string settings_text(const CanvasSettings& s) {
  return "canvas.csv: the column '" + s.column + "', " + number(s.points_possible) + " points possible";
}

CanvasExport without_roster(const std::vector<Person>& people, const std::vector<GradeResult>& results,
                            const CanvasSettings& s) {
  const auto results_of = by_student(results);
  CanvasExport e;
  e.csv = header(s);
  for (const auto& p : people) {
    const std::string login = !p.who.email.empty() ? p.who.email : p.who.sid.empty() ? p.student : "";
    e.csv += cell(p.who.name.empty() ? p.student : p.who.name) + ",," + cell(p.who.sid) + "," + cell(login) + ",," +
             score_of(results_of, p.student) + "\r\n";
  }
  e.summary_html = "<h2 id=\"canvas\">Canvas export</h2>\n<p>" + xml_escape(settings_text(s)) + "; one row per " +
                   "person, matched by Canvas on SIS User ID (the SID) or SIS Login ID (the e-mail, or the folder "
                   "name). No roster was given (--roster): ID and Section are empty.</p>\n";
  return e;
}

CanvasExport with_roster(const std::vector<Person>& people, const std::vector<GradeResult>& results,
                         const CanvasSettings& s) {
  const CanvasRoster& roster = *s.roster;
  const auto results_of = by_student(results);
  const RosterMatch m = match_roster(roster, people);
  CanvasExport e;
  e.csv = header(s);
  std::vector<std::string> absent;
  for (std::size_t r = 0; r < roster.students.size(); ++r) {
    const CanvasStudent& st = roster.students[r];
    const std::string score = m.person[r] ? score_of(results_of, people[*m.person[r]].student) : "";
    e.csv += cell(st.name) + "," + cell(st.id) + "," + cell(st.sis_user_id) + "," + cell(st.sis_login_id) + "," +
             cell(st.section) + "," + score + "\r\n";
    if (!m.person[r]) absent.push_back(st.name + " (" + known_by(st) + ")");
  }
  std::vector<std::string> unmatched;
  for (std::size_t p : m.unmatched) unmatched.push_back(person_label(people[p]));
  if (!unmatched.empty()) {
    std::string list;
    for (const auto& u : unmatched) list += (list.empty() ? "" : ", ") + u;
    const bool one = unmatched.size() == 1;
    e.warnings.push_back(std::to_string(unmatched.size()) + (one ? " submission matches" : " submissions match") +
                         " no student of the roster " + roster.path + " and " + (one ? "is" : "are") +
                         " not in canvas.csv (see summary.html): " + list);
  }
  for (const auto& n : m.notes) e.warnings.push_back("roster: " + n);
  const std::size_t scored = roster.students.size() - absent.size();
  e.summary_html = "<h2 id=\"canvas\">Canvas export</h2>\n<p>" + xml_escape(settings_text(s)) +
                   "; one row per student of the roster " + xml_escape(roster.path) + " (" +
                   std::to_string(roster.students.size()) + "): " + std::to_string(scored) +
                   " with the score of their submission, " + std::to_string(absent.size()) +
                   " without a submission (an empty score: Canvas keeps the grade it has).</p>\n";
  e.summary_html += html_list("canvas-unmatched",
                              "Submissions that match no student of the roster (not in canvas.csv):", unmatched);
  e.summary_html += html_list("canvas-notes", "To check:", m.notes);
  e.summary_html += html_list("canvas-absent", "Roster students without a submission:", absent);
  return e;
}

}  // namespace

std::string person_label(const Person& p) {
  return p.who.name.empty() ? p.student : p.student + " (" + p.who.name + ")";
}

std::vector<Person> people_of(const std::vector<Submission>& roster) {
  std::vector<Person> out;
  for (const auto& s : roster) {
    if (s.members.empty()) {
      out.push_back({s.id, {s.name, "", s.email}});
      continue;
    }
    for (const auto& m : s.members) out.push_back({s.id, m});
  }
  return out;
}

std::string members_csv(const std::vector<Person>& people, const std::vector<GradeResult>& results) {
  const auto results_of = by_student(results);
  std::string csv = "student,name,sid,email,total,max,status\r\n";
  for (const auto& p : people) {
    const auto it = results_of.find(p.student);
    const GradeResult* r = it == results_of.end() ? nullptr : it->second;
    csv += cell(p.student) + "," + cell(p.who.name) + "," + cell(p.who.sid) + "," + cell(p.who.email) + "," +
           (r ? number(r->score()) + "," + number(r->max_score()) + "," + cell(to_string(r->state)) : ",,no result") +
           "\r\n";
  }
  return csv;
}

CanvasSettings canvas_settings(const BatchOptions& o, const Suite* suite, BackendKind backend,
                               const std::string& title, const CanvasRoster* roster) {
  CanvasSettings s;
  s.column = o.canvas_column.empty() ? title : o.canvas_column;
  if (o.points_possible)
    s.points_possible = *o.points_possible;
  else if (suite)
    s.points_possible = planned_max(*suite, o.public_only ? Shown::PublicOnly : Shown::All,
                                    backend == BackendKind::Cpu ? kCpuNotTimed : "");
  s.roster = roster;
  return s;
}

CanvasExport canvas_export(const std::vector<Person>& people, const std::vector<GradeResult>& results,
                           const CanvasSettings& settings) {
  return settings.roster ? with_roster(people, results, settings) : without_roster(people, results, settings);
}

std::string canvas_options(const BatchOptions& o) {
  if (!o.export_canvas) return "";
  std::string line = " --export canvas";
  if (!o.roster.empty())
    line += " --roster " + shell_quote(std::filesystem::absolute(o.roster).lexically_normal().string());
  if (!o.canvas_column.empty()) line += " --canvas-column " + shell_quote(o.canvas_column);
  if (!o.title.empty()) line += " --title " + shell_quote(o.title);
  if (o.points_possible) line += " --points-possible " + report::num(*o.points_possible, 3);
  return line;
}

std::string write_lms_exports(const std::string& dir, const std::vector<Submission>& submissions,
                              const std::vector<GradeResult>& results, const CanvasSettings* canvas,
                              std::FILE* log, const char* who) {
  const std::vector<Person> people = people_of(submissions);
  if (std::any_of(submissions.begin(), submissions.end(), [](const Submission& s) { return !s.members.empty(); }))
    write_file_atomically(dir + "/" + class_files::kMembers, members_csv(people, results));
  if (!canvas) return "";
  const CanvasExport e = canvas_export(people, results, *canvas);
  write_file_atomically(dir + "/" + class_files::kCanvas, e.csv);
  for (const auto& w : e.warnings) std::fprintf(log, "%s: warning: %s\n", who, w.c_str());
  return e.summary_html;
}

}  // namespace sg::batch
