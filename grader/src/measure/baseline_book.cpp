#include "measure/baseline_book.h"

#include <chrono>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "io/atomic_file.h"

namespace sg {
namespace {

using Json = nlohmann::json;

// The baselines' series a record keeps, by name, as TimingEvidence holds them.
struct Series {
  const char* name;
  std::vector<double> TimingEvidence::*member;
};
constexpr Series kSeries[] = {{"overhead_ms", &TimingEvidence::overhead_ms},
                              {"reference_ms", &TimingEvidence::reference_ms},
                              {"naive_ms", &TimingEvidence::naive_ms},
                              {"reference_event_ms", &TimingEvidence::reference_event_ms},
                              {"naive_event_ms", &TimingEvidence::naive_event_ms}};

// The baselines of `from` (each series and cuBLAS's time) into `to`.
void copy_baselines(const TimingEvidence& from, TimingEvidence& to) {
  for (const Series& s : kSeries) to.*s.member = from.*s.member;
  to.cublas_ms = from.cublas_ms;
}

// How far `pace_ms` is from `reference_ms`, as a share of the latter (1 when
// either is missing).
double relative_gap(double pace_ms, double reference_ms) {
  return reference_ms > 0 && pace_ms > 0 ? std::fabs(pace_ms / reference_ms - 1) : 1.0;
}

// A series read from a record: numbers only, else nothing.
bool read_series(const Json& j, const char* name, std::vector<double>& out) {
  if (!j.contains(name) || !j[name].is_array()) return false;
  for (const Json& v : j[name]) {
    if (!v.is_number()) return false;
    out.push_back(v.get<double>());
  }
  return true;
}

}  // namespace

std::string record_key(const Case& c, const std::string& baseline_runner) {
  std::ostringstream key;
  key << c.m << "x" << c.k << "x" << c.n << " warmups " << c.performance.warmups << " samples "
      << c.performance.samples << " runner " << baseline_runner;
  return key.str();
}

double reference_pace_ms(const TimingEvidence& e) {
  std::vector<double> launches = e.yardstick_event_ms;
  launches.insert(launches.end(), e.probe_event_ms.begin(), e.probe_event_ms.end());
  return median(launches);
}

double record_gap(const BaselineRecord& r, double pace_ms) {
  return relative_gap(pace_ms, median(r.baselines.reference_event_ms));
}

RecordRefusal record_refusal(const BaselineRecord& r, double pace_ms, double student_disturbance, double now) {
  const double age = now - r.measured_at;
  if (r.baselines.reference_ms.empty() || r.baselines.overhead_ms.empty()) return RecordRefusal::Incomplete;
  if (age < 0 || age > kRecordMaxAgeS) return RecordRefusal::TooOld;
  if (student_disturbance > kDisturbedSpread) return RecordRefusal::TakeDisturbed;
  if (!(record_gap(r, pace_ms) <= kRecordAgreement)) return RecordRefusal::PaceDiffers;
  return RecordRefusal::None;
}

bool worth_keeping(const TimingEvidence& e, double baseline_disturbance) {
  return baseline_disturbance <= kDisturbedSpread &&
         relative_gap(reference_pace_ms(e), median(e.reference_event_ms)) <= kRecordAgreement;
}

BaselineBook::BaselineBook(const std::string& lock_path) : path_(lock_path.empty() ? "" : lock_path + ".baselines") {}

std::vector<BaselineRecord> BaselineBook::read() const {
  std::vector<BaselineRecord> records;
  if (path_.empty()) return records;
  std::ifstream f(path_);
  if (!f) return records;
  const Json j = Json::parse(f, nullptr, false);
  if (!j.is_array()) return records;  // unreadable: as if there were none
  for (const Json& e : j) {
    BaselineRecord r;
    if (!e.is_object() || !e.contains("key") || !e["key"].is_string() || !e.contains("measured_at") ||
        !e["measured_at"].is_number() || !e.contains("cublas_ms") || !e["cublas_ms"].is_number())
      continue;
    r.key = e["key"].get<std::string>();
    r.measured_at = e["measured_at"].get<double>();
    r.baselines.cublas_ms = e["cublas_ms"].get<double>();
    bool whole = true;
    for (const Series& series : kSeries) whole = whole && read_series(e, series.name, r.baselines.*series.member);
    if (whole) records.push_back(std::move(r));
  }
  return records;
}

std::optional<BaselineRecord> BaselineBook::find(const std::string& key) const {
  for (BaselineRecord& r : read())
    if (r.key == key) return std::move(r);
  return std::nullopt;
}

void BaselineBook::keep(const BaselineRecord& r) const {
  if (path_.empty()) return;
  std::vector<BaselineRecord> records = read();
  bool replaced = false;
  for (BaselineRecord& old : records)
    if (old.key == r.key) {
      old = r;
      replaced = true;
    }
  if (!replaced) records.push_back(r);
  Json j = Json::array();
  for (const BaselineRecord& x : records) {
    Json e = {{"key", x.key}, {"measured_at", x.measured_at}, {"cublas_ms", x.baselines.cublas_ms}};
    for (const Series& series : kSeries) e[series.name] = x.baselines.*series.member;
    j.push_back(std::move(e));
  }
  write_file_atomically(path_, j.dump() + "\n");
}

BaselineRecord record_of(const std::string& key, const TimingEvidence& e, double now) {
  BaselineRecord r;
  r.key = key;
  r.measured_at = now;
  copy_baselines(e, r.baselines);
  return r;
}

void fill_baselines(const BaselineRecord& r, TimingEvidence& e) { copy_baselines(r.baselines, e); }

double wall_seconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace sg
