// The runner's answer to a Selftest request (proto/protocol.h): the launch
// compute-sanitizer and ncu watch, kept apart from the checked and timed
// launches. The tools start the runner exactly as a checked run does; which
// launch they watch is asked for after its start-up, through the protocol,
// so nothing in the runner's command line tells a tool run from another.
#pragma once
#include <string>

#include "proto/protocol.h"

namespace sg::gpu {

// basicSgemm once at the request's shape on inputs from its seed. Prints
// "selftest: shape MxKxN" on stderr before the launch, so the judge can name
// the shape a tool's error belongs to (the context is lost after a fault).
// False with `message` ("selftest: failed at MxKxN: <call> failed: ...")
// when a CUDA call or the launch failed.
bool selftest_launch(const proto::RunCaseRequest& q, std::string& message);

}  // namespace sg::gpu
