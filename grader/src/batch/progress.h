// Progress of a batch: on a terminal one line rewritten with \r (done/total,
// rate, ETA, failures so far); otherwise one plain log line per submission.
#pragma once
#include <chrono>
#include <cstdio>
#include <string>

namespace sg::batch {

class Progress {
 public:
  // `total`: submissions this run will grade. `tty`: rewrite one line.
  Progress(std::FILE* out, std::size_t total, bool tty, bool quiet);
  // One submission finished; `ok` is false when it was not graded normally.
  void finished(const std::string& student, const std::string& status, double score, double max,
                double seconds, bool ok);
  void note(const std::string& line);  // a message that must not be overwritten
  void tick();                         // refresh the TTY line (rate, ETA)
  void close();                        // end the TTY line

 private:
  std::string status_line() const;
  std::FILE* out_;
  std::size_t total_, done_ = 0, failures_ = 0;
  bool tty_, quiet_, line_open_ = false;
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
};

// "4m05s", "1h02m", "12s".
std::string duration_text(double seconds);

}  // namespace sg::batch
