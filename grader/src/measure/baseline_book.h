// The baselines a GPU's gradings measured in a batch, kept beside its lock:
// a later grading on that GPU takes them instead of timing the reference,
// the naive kernel, an empty request and cuBLAS again, where its own
// reference launches (the yardstick and the probes, made beside its
// student's samples) show the GPU at the same pace. Its exclusive hold then
// ends once its student's runner has ended, after the student's samples.
//
// Why it stays fair: the record is kept only from a quiet take whose
// reference agreed with the measuring grading's own pace, and taken only
// while the taking grading's reference launches agree with it to
// kRecordAgreement. A submission can only slow those launches (then the
// baselines are timed afresh, as without a record); it cannot make a GPU
// that has sped up look as slow as an old record.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "measure/timing.h"
#include "model/suite.h"

namespace sg {

// What a record holds of one case shape: the baselines' series as
// TimingEvidence keeps them, cuBLAS's time, and when they were measured
// (seconds since 1970).
struct BaselineRecord {
  std::string key;  // record_key()
  double measured_at = 0;
  // Its baselines' series and cuBLAS's time; the student's side left empty.
  TimingEvidence baselines;
};

// How close a grading's reference pace must be to a record's reference
// launches for the record to stand (the reference's launches agree to 0.2%
// when nothing disturbs them: RESULTS.md), and how old a record may be.
constexpr double kRecordAgreement = 0.003;
constexpr double kRecordMaxAgeS = 300;

// The case shape, its samples and the baseline runner a record is for.
std::string record_key(const Case& c, const std::string& baseline_runner);

// The reference's pace a grading saw beside its student's samples: the
// median of its yardstick and probe launches (0 when there were none).
double reference_pace_ms(const TimingEvidence& e);

// How far a record's reference launches (their median) are from `pace_ms`,
// as a share of the record's.
double record_gap(const BaselineRecord& r, double pace_ms);

// Whether `r` may stand for a grading's baselines at `now` (None): whole,
// young enough, the student's take kept quiet (its disturbance at most
// kDisturbedSpread), and the grading's reference pace within kRecordAgreement
// of the record's. Else the first of these it fails (the grade log says it).
enum class RecordRefusal { None, Incomplete, TooOld, TakeDisturbed, PaceDiffers };
RecordRefusal record_refusal(const BaselineRecord& r, double pace_ms, double student_disturbance, double now);

// Whether a grading's freshly measured baselines may be kept as a record:
// their take quiet, and their reference within kRecordAgreement of the
// grading's own pace.
bool worth_keeping(const TimingEvidence& e, double baseline_disturbance);

// The records of one GPU in a batch: a file beside its lock. Reading a file
// that is missing or unreadable finds nothing; writing replaces the file
// atomically (io/atomic_file.h). Used under the GPU's exclusive hold, or
// after it by the grading that measured (a reader sees the old file or the new).
class BaselineBook {
 public:
  // `lock_path`: the batch's lock of the GPU; "" (a grading alone): no records.
  explicit BaselineBook(const std::string& lock_path);
  bool enabled() const { return !path_.empty(); }
  std::optional<BaselineRecord> find(const std::string& key) const;
  // Adds or replaces the record of r.key. Throws std::runtime_error naming the file.
  void keep(const BaselineRecord& r) const;

 private:
  std::vector<BaselineRecord> read() const;
  std::string path_;
};

// The record of a case's freshly measured baselines, and the evidence's
// baselines filled from a record (the student's side left as it is).
BaselineRecord record_of(const std::string& key, const TimingEvidence& e, double now);
void fill_baselines(const BaselineRecord& r, TimingEvidence& e);

// Seconds since 1970 on the wall clock (records are shared between processes).
double wall_seconds();

}  // namespace sg
