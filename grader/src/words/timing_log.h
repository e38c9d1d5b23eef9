// The grade log's lines about the measurement, for TAs tuning it: each take
// of timed samples (measure/timed_case.h) and the waits for a shared GPU.
#pragma once
#include <string>

#include "measure/timed_case.h"

namespace sg {

// "timing perf_2048", "timing the baselines of perf_2048 again after a pause
// of 0.25 s: ..." as a take begins; "take 2 of perf_2048 (student): ..."
// with its disturbance when it is done.
std::string take_log_line(const TakeNote& note);

// A case's baselines taken from the GPU's record (measure/baseline_book.h):
// how old it was and how far its reference was from this grading's pace; or
// why a record could not be kept.
std::string recorded_baselines_log_line(const std::string& name, double age_s, double gap);
std::string baselines_not_recorded_log_line(const std::string& what);
// "the GPU's record of the baselines of perf_2048 not taken: its reference
// ran 0.42% from this grading's pace (at most 0.30%)": the first condition
// the record failed (measure/baseline_book.h), with the figure ("the
// baselines of perf_2048 timed while the submission built not taken: ..."
// for a grading's own early record).
std::string record_not_taken_log_line(const TimedCase& t);

// The baselines of a grading alone, timed while its submission builds
// (pipeline/early_baselines.h): as each case's begin; why a case's were not
// kept ("their take was disturbed (4.1%, at most 3%)", "the reference's
// output was wrong", an internal error's words); and, once the student's
// samples are taken, that they stood for the case's baselines.
std::string early_baselines_log_line(const std::string& name);
std::string early_baselines_not_kept_log_line(const std::string& name, const std::string& why);
std::string early_disturbed(double disturbance);
std::string early_wrong_output();
std::string early_record_log_line(const std::string& name, double age_s, double gap);

// "shared GPU: 3 untimed holds waited 0.42 s in all".
std::string shared_holds_line(int holds, double wait_s);

}  // namespace sg
