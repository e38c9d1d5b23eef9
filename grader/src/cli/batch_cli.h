// `grade batch ...` and `grade merge DIR`: their command lines (CLI11, the
// option table of batch_cli.cpp) and the entry points that main.cpp calls
// with argv[0] = "batch" (or "merge") and the rest of the command line.
#pragma once
#include <string>

#include "batch/batch_options.h"

namespace sg {

// Parses `grade batch` (argv[0] is "batch"); false with `error` naming the
// bad argument. `grade merge` is the same with `merge_command`: --merge is
// implied and the help shows what a merge uses.
bool parse_batch_args(int argc, char** argv, batch::BatchOptions& out, std::string& error,
                      bool merge_command = false);
// The help of `grade batch` (or of `grade merge`).
std::string batch_usage(bool merge_command = false);

// Exit status: 0 done (whatever the scores), 2 usage error or refused, 3 internal error.
int batch_main(int argc, char** argv);
// `grade merge DIR`: the same as `grade batch --merge DIR`.
int merge_main(int argc, char** argv);

}  // namespace sg
