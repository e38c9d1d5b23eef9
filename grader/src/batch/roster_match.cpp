#include "batch/roster_match.h"

#include <algorithm>
#include <cctype>

namespace sg::batch {
namespace {

std::string key(const std::string& raw) {
  const std::size_t b = raw.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  std::string s = raw.substr(b, raw.find_last_not_of(" \t") - b + 1);
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// The login name of an e-mail address ("ada" of "ada@uni.edu"); the id itself otherwise.
std::string login_name(const std::string& raw) { return key(raw.substr(0, raw.find('@'))); }

bool any_equal(std::initializer_list<std::string> a, std::initializer_list<std::string> b) {
  for (const auto& x : a)
    for (const auto& y : b)
      if (!x.empty() && x == y) return true;
  return false;
}

bool matches(MatchedBy by, const Person& p, const CanvasStudent& s) {
  switch (by) {
    case MatchedBy::SisId:
      return any_equal({key(p.who.sid), key(p.who.email), key(p.student)}, {key(s.sis_user_id), key(s.sis_login_id)});
    case MatchedBy::CanvasId:
      return any_equal({key(p.student), key(p.who.sid)}, {key(s.id)});
    case MatchedBy::LoginName:
      return any_equal({login_name(p.who.email), login_name(p.student)}, {login_name(s.sis_login_id)});
  }
  return false;
}

std::string row_of(const CanvasStudent& s) { return "'" + s.name + "' (line " + std::to_string(s.line) + ")"; }

}  // namespace

RosterMatch match_roster(const CanvasRoster& roster, const std::vector<Person>& people) {
  RosterMatch m;
  m.person.assign(roster.students.size(), std::nullopt);
  m.by.assign(roster.students.size(), MatchedBy::SisId);
  std::vector<bool> settled(people.size(), false);  // matched, or too ambiguous to match by anything weaker
  for (MatchedBy by : {MatchedBy::SisId, MatchedBy::CanvasId, MatchedBy::LoginName}) {
    // Candidates on both sides among those still open, before anyone is matched at this strength.
    std::vector<std::vector<std::size_t>> rows_of(people.size()), people_of_row(roster.students.size());
    for (std::size_t p = 0; p < people.size(); ++p) {
      if (settled[p]) continue;
      for (std::size_t r = 0; r < roster.students.size(); ++r)
        if (!m.person[r] && matches(by, people[p], roster.students[r])) {
          rows_of[p].push_back(r);
          people_of_row[r].push_back(p);
        }
    }
    for (std::size_t p = 0; p < people.size(); ++p) {
      if (rows_of[p].empty()) continue;
      settled[p] = true;
      if (rows_of[p].size() > 1) {
        std::string rows;
        for (std::size_t r : rows_of[p]) rows += (rows.empty() ? "" : ", ") + row_of(roster.students[r]);
        m.notes.push_back(person_label(people[p]) + " matches several roster students: " + rows + "; matched to none");
        continue;
      }
      const std::size_t r = rows_of[p].front();
      if (people_of_row[r].size() > 1) {
        if (people_of_row[r].front() != p) continue;  // said once, with the first of them
        std::string others;
        for (std::size_t q : people_of_row[r]) others += (others.empty() ? "" : ", ") + person_label(people[q]);
        m.notes.push_back("roster student " + row_of(roster.students[r]) + " matches several submissions: " + others +
                          "; matched to none");
        continue;
      }
      m.person[r] = p;
      m.by[r] = by;
      if (by == MatchedBy::LoginName)
        m.notes.push_back(person_label(people[p]) + " matched roster student " + row_of(roster.students[r]) +
                          " by login name only (the part before '@'): check it");
    }
  }
  std::vector<bool> matched(people.size(), false);
  for (const auto& p : m.person)
    if (p) matched[*p] = true;
  for (std::size_t p = 0; p < people.size(); ++p)
    if (!matched[p]) m.unmatched.push_back(p);
  return m;
}

}  // namespace sg::batch
