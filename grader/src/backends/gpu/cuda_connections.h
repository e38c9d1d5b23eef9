// How many hardware work queues each CUDA context the grader starts asks for.
#pragma once

namespace sg {

// One (CUDA_DEVICE_MAX_CONNECTIONS=1, against the driver's 8) in every
// runner, tool run and the judge: a context then starts in about half the
// time alone and a third of it when many start at once, and the host takes
// those start-ups one at a time across its GPUs, which bounds a batch
// (grader/bench/RESULTS.md). The grader's own code launches on one stream;
// streams a submission makes still work, sharing the queue as on any GPU
// with more streams than queues (hostile/own_stream_early_return).
inline constexpr char kCudaConnectionsVariable[] = "CUDA_DEVICE_MAX_CONNECTIONS";
inline constexpr char kCudaConnections[] = "1";

}  // namespace sg
