// The runner's one-shot mode for the judge's tools (compute-sanitizer, ncu):
//   runner --selftest [--gate FIFO] SEED TOKEN M K N [M K N ...]
// runs basicSgemm once per shape, in order, on random data from SEED, and
// exits with selftest_exit_code(TOKEN) once every launch completed (so a
// submission that ends the process early, through a raw exit syscall, is
// noticed).
// Before each launch it prints "selftest: shape MxKxN" on stderr, and when a
// launch fails "selftest: failed at MxKxN: <error>", so the judge can name
// the shape a tool's error belongs to (the context is lost after a fault).
// With --gate (ncu, compute-sanitizer; process/tool_run.h): the CUDA context is made first, then
// the launches wait for a line on the FIFO, which is closed once they are done.
// It launches no kernel of its own: under ncu every profiled kernel is the
// submission's.
#pragma once

namespace sg::gpu {

// 20..119: clear of compute-sanitizer's error code (10) and of 128 + N, which
// is how bubblewrap passes on a death by signal N.
inline int selftest_exit_code(unsigned long token) { return 20 + static_cast<int>(token % 100); }

// argv[1] is "--selftest". Returns the process's exit status (2: bad arguments).
int run_selftest(int argc, char** argv);

}  // namespace sg::gpu
