#include "batch/lms_export.h"

#include <cmath>
#include <map>

#include "report/feedback.h"
#include "report/text_clean.h"

namespace sg::batch {
namespace {

std::string cell(const std::string& raw) { return report::csv_text_cell(raw); }

std::string number(double v) { return std::isfinite(v) ? report::num(v, 3) : ""; }

std::map<std::string, const GradeResult*> by_student(const std::vector<GradeResult>& results) {
  std::map<std::string, const GradeResult*> m;
  for (const auto& r : results) m.emplace(r.student, &r);
  return m;
}

}  // namespace

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

std::string canvas_csv(const std::vector<Person>& people, const std::vector<GradeResult>& results,
                       const std::string& assignment) {
  const auto results_of = by_student(results);
  double possible = 0;
  for (const auto& r : results) possible = std::max(possible, r.max_score());
  std::string csv = "Student,ID,SIS User ID,SIS Login ID,Section," + cell(assignment) + "\r\n";
  csv += "Points Possible,,,,," + number(possible) + "\r\n";
  for (const auto& p : people) {
    const auto it = results_of.find(p.student);
    const std::string login = !p.who.email.empty() ? p.who.email : p.who.sid.empty() ? p.student : "";
    csv += cell(p.who.name.empty() ? p.student : p.who.name) + ",," + cell(p.who.sid) + "," + cell(login) + ",," +
           (it == results_of.end() ? std::string() : number(it->second->score())) + "\r\n";
  }
  return csv;
}

}  // namespace sg::batch
