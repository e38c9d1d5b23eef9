#include "batch/progress.h"

#include <fmt/format.h>

#include <cmath>

#include "report/feedback.h"

namespace sg::batch {

std::string duration_text(double seconds) {
  const long s = std::lround(std::max(0.0, seconds));
  if (s >= 3600) return fmt::format("{}h{:02}m", s / 3600, (s % 3600) / 60);
  if (s >= 60) return fmt::format("{}m{:02}s", s / 60, s % 60);
  return fmt::format("{}s", s);
}

Progress::Progress(std::FILE* out, std::size_t total, bool tty, bool quiet)
    : out_(out), total_(total), tty_(tty), quiet_(quiet) {}

std::string Progress::status_line() const {
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  std::string s = "[" + std::to_string(done_) + "/" + std::to_string(total_) + "]";
  if (done_ > 0 && elapsed > 0) {
    const double per_min = 60.0 * static_cast<double>(done_) / elapsed;
    s += " " + report::num(per_min, 1) + "/min";
    s += ", ETA " + duration_text(static_cast<double>(total_ - done_) * elapsed / static_cast<double>(done_));
  } else {
    s += " elapsed " + duration_text(elapsed);
  }
  s += ", " + std::to_string(failures_) + " not graded";
  return s;
}

void Progress::finished(const std::string& student, const std::string& status, double score,
                        double max, double seconds, bool ok) {
  ++done_;
  if (!ok) ++failures_;
  if (quiet_) return;
  const std::string what = student + ": " + status + " " + report::num(score, 2) + "/" +
                           report::num(max, 2) + " (" + report::num(seconds, 1) + " s)";
  if (tty_) {
    // Failures stay on screen; ordinary results only update the status line.
    if (!ok) note(what);
    std::fprintf(out_, "\r\033[K%s", status_line().c_str());
    line_open_ = true;
  } else {
    std::fprintf(out_, "batch: %s %s\n", status_line().c_str(), what.c_str());
  }
  std::fflush(out_);
}

void Progress::note(const std::string& line) {
  if (quiet_) return;
  if (tty_ && line_open_) std::fprintf(out_, "\r\033[K");
  std::fprintf(out_, "batch: %s\n", line.c_str());
  if (tty_ && line_open_) std::fprintf(out_, "%s", status_line().c_str());
  std::fflush(out_);
}

void Progress::tick() {
  if (quiet_ || !tty_) return;
  std::fprintf(out_, "\r\033[K%s", status_line().c_str());
  line_open_ = true;
  std::fflush(out_);
}

void Progress::close() {
  if (quiet_ || !tty_ || !line_open_) return;
  std::fprintf(out_, "\n");
  line_open_ = false;
  std::fflush(out_);
}

}  // namespace sg::batch
