#include "words/timing_log.h"

#include <fmt/format.h>

namespace sg {
namespace {

// Why a take of samples is taken again (measure/timing.h, kDisturbedSpread).
const char* const kDisturbedWhy =
    "most of its requests were delayed, or the reference ran slower between its samples than it can";

}  // namespace

std::string take_log_line(const TakeNote& note) {
  const bool student = note.side == TakeSide::Student;
  if (note.done)
    return "take " + std::to_string(note.take) + " of " + note.case_name + (student ? " (student)" : " (baselines)") +
           fmt::format(": requests' quartiles {:.1f}% apart, reference launches {:.1f}% slower than its fastest pace",
                       100 * note.spread, 100 * note.slowdown);
  std::string line = (student ? "timing " : "timing the baselines of ") + note.case_name;
  if (note.take <= 1) return line;
  if (note.pause_s <= 0) return line + " again: " + kDisturbedWhy;
  return line + fmt::format(" again after a pause of {:.2f} s: ", note.pause_s) + kDisturbedWhy;
}

std::string recorded_baselines_log_line(const std::string& name, double age_s, double gap) {
  return fmt::format("the baselines of {} from this GPU's record, measured {:.1f} s ago (its reference {:.2f}% from "
                     "this grading's pace)",
                     name, age_s, 100 * gap);
}

std::string baselines_not_recorded_log_line(const std::string& what) {
  return "the baselines were not kept as this GPU's record: " + what;
}

std::string record_not_taken_log_line(const TimedCase& t) {
  std::string why;
  switch (t.record_refused) {
    case RecordRefusal::None: return "";
    case RecordRefusal::Incomplete: why = "it lacks some of the baselines"; break;
    case RecordRefusal::TooOld: why = fmt::format("measured {:.0f} s ago (at most {:.0f} s)", t.record_age_s, kRecordMaxAgeS); break;
    case RecordRefusal::TakeDisturbed:
      why = fmt::format("this grading's take was disturbed ({:.1f}%, at most {:.0f}%)", 100 * t.student_disturbance,
                        100 * kDisturbedSpread);
      break;
    case RecordRefusal::PaceDiffers:
      why = fmt::format("its reference ran {:.2f}% from this grading's pace (at most {:.2f}%)", 100 * t.record_gap,
                        100 * kRecordAgreement);
      break;
  }
  if (t.record_timed_early) return "the baselines of " + t.c->name + " timed while the submission built not taken: " + why;
  return "the GPU's record of the baselines of " + t.c->name + " not taken: " + why;
}

std::string early_baselines_log_line(const std::string& name) {
  return "timing the baselines of " + name + " while the submission builds (the GPU idles meanwhile)";
}

std::string early_baselines_not_kept_log_line(const std::string& name, const std::string& why) {
  return "the baselines of " + name + " timed while the submission builds are not kept: " + why;
}

std::string early_disturbed(double disturbance) {
  return fmt::format("their take was disturbed ({:.1f}%, at most {:.0f}%)", 100 * disturbance, 100 * kDisturbedSpread);
}

std::string early_wrong_output() { return "the reference's output was wrong"; }

std::string early_record_log_line(const std::string& name, double age_s, double gap) {
  return fmt::format("the baselines of {} timed while the submission built, {:.1f} s ago (its reference {:.2f}% from "
                     "this grading's pace)",
                     name, age_s, 100 * gap);
}

std::string shared_holds_line(int holds, double wait_s) {
  return fmt::format("shared GPU: {} untimed holds waited {:.2f} s in all", holds, wait_s);
}

}  // namespace sg
