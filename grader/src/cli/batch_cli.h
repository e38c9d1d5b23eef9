// `grade batch ...` and `grade merge DIR`: entry points that main.cpp calls
// with argv[0] = "batch" (or "merge") and the rest of the command line.
#pragma once

namespace sg {

// Exit status: 0 done (whatever the scores), 2 usage error or refused, 3 internal error.
int batch_main(int argc, char** argv);
// `grade merge DIR`: the same as `grade batch --merge DIR`.
int merge_main(int argc, char** argv);

}  // namespace sg
