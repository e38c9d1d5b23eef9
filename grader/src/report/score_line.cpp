#include "report/score_line.h"

#include <map>
#include <set>

#include "report/feedback.h"
#include "report/lead.h"

namespace sg::report {
namespace {

std::string backend_label(const GradeResult& r) {
  if (!r.backend) return "This grading";
  switch (*r.backend) {
    case BackendKind::Gpu: return "GPU backend";
    case BackendKind::Cpu: return "CPU backend";
  }
  return "This grading";
}

std::string points(double v) { return num(v, 2) + (v == 1 ? " point" : " points"); }

std::string basis_of(const GradeResult& r) {
  if (!r.untimed) return "";
  const UntimedPoints& u = *r.untimed;
  const std::string head = backend_label(r) + ": performance not measured on this machine";
  if (!(u.points > 0)) return head + " (the timed cases are worth no points)";
  switch (u.rule) {
    case WithoutGpu::NotMeasured:
      return head + "; the timed cases' " + points(u.points) + " are left out (the suite is worth " +
             num(u.gpu_max, 2) + " on a GPU)";
    case WithoutGpu::ToCorrectness:
      return head + "; the timed cases' " + points(u.points) +
             " went to the correctness cases, in proportion to their points (" + num(u.gpu_max, 2) +
             " in all, as on a GPU)";
  }
  return head;
}

}  // namespace

ScoreLine score_line_of(const GradeResult& r) {
  return {"Score: " + score_text(r), pass_count_text(r), basis_of(r)};
}

std::string score_line(const GradeResult& r) {
  const ScoreLine s = score_line_of(r);
  return s.score + " (" + s.counts + ")" + (s.basis.empty() ? "" : ". " + s.basis + ".");
}

std::string after_headline(const std::string& headline) {
  return !headline.empty() && headline.back() == '.' ? " " : ". ";
}

std::string opening_line(const GradeResult& r) {
  const auto lead = lead_of(r);
  return (lead ? lead->headline + after_headline(lead->headline) : "") + score_line(r);
}

std::string class_score_line(const std::vector<GradeResult>& results) {
  if (results.empty()) return "";
  std::map<double, int> maxima;  // max -> submissions
  std::vector<std::string> bases;  // in the order first seen, each once
  std::set<std::string> seen;
  for (const auto& r : results) {
    ++maxima[r.max_score()];
    const std::string b = basis_of(r);
    if (!b.empty() && seen.insert(b).second) bases.push_back(b);
  }
  std::string line = "Scores out of ";
  if (maxima.size() == 1) {
    line += num(maxima.begin()->first, 2);
  } else {
    std::string each;
    for (const auto& [max, count] : maxima)
      each += (each.empty() ? "" : ", ") + num(max, 2) + " (" + std::to_string(count) +
              (count == 1 ? " submission)" : " submissions)");
    line += each;
  }
  for (const auto& b : bases) line += ". " + b;
  return line + ".";
}

}  // namespace sg::report
