// `grade worker`: a judge process that `grade batch` starts once per slot and
// sends gradings to, one after another (batch/worker_protocol.h): jobs on
// descriptor 3, replies on 4. Each grading is what `grade` does for one
// submission (cli/grade_one.h): its own job identity, sandbox probe, work
// folder and quotas, its output in its own grade.log. What the worker keeps
// between them is the judge's own trusted state only (backends/backend.h's
// BackendKeep: the GPU backend's CUDA context and oracle), so that a grading
// does not start and end one: the student's code never runs in the worker.
#pragma once

namespace sg {

// Exit status 0 once the batch closes descriptor 3 or after a grading that
// ends the worker; 2 when not started by a batch (descriptors 3 and 4 absent).
int worker_main(int argc, char** argv);

}  // namespace sg
