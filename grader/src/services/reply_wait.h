// How the judge waits for a runner's reply to begin, and how long it then
// gives the rest of it: a case's limit, moved on while a CPU runner's blocks
// keep completing (the factor and budget: services/limits.h).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace sg {

// The CPU layer's count of completed blocks in `path` (0 when unreadable). The
// file is the runner's: a regular file is read, nothing else, and no link followed.
std::uint64_t blocks_done(const std::string& path);

struct ReplyWait {
  double limit_s = 0;   // the limit in force, from t0: timeout_s and any extensions
  bool begun = false;   // the reply (or the runner's end) was there when the judge looked
  bool extended = false;
};

// Waits on `fd` for the reply to begin. Each time the limit passes, the judge
// looks once more without waiting: a reply there by then has begun, however
// late the judge itself woke (on a busy machine its wake-up can trail the
// limit by many milliseconds, and a reply that began in them is not the
// student's lateness). Else another span of timeout_s is given when the block
// count in `progress_file` moved during the last one, up to factor * timeout_s
// in all and as long as `budget_s` lasts (spent here); an empty progress_file
// counts nothing and gives none. For its first spin_s the reply is watched for
// without sleeping: a judge woken from sleep adds its wake-up's jitter to a
// timed request's time on its clock (RESULTS.md).
ReplyWait wait_for_reply(int fd, std::chrono::steady_clock::time_point t0, double timeout_s,
                         const std::string& progress_file, double factor, double& budget_s, double spin_s);

// Seconds the judge gives a begun reply to arrive in full: what is left of
// its limit, and at least `transfer_s` (copying C through the pipe can cross
// the limit on a busy machine); none when the reply had not begun.
double reply_read_seconds(const ReplyWait& w, double left_s, double transfer_s);

}  // namespace sg
