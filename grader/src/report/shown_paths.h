// How the views students read name files: the submission and the suite by
// their own names, never by the folders of the machine that graded them (the
// TA's home, the kit's checkout, a grading's scratch folder).
#pragma once
#include <string>
#include <string_view>

#include "model/result.h"

namespace sg::report {

// The name every backend compiles a submission under, in the grading's own
// scratch folder (pipeline/build_stage.cpp).
inline constexpr std::string_view kCompiledName = "kernel.cu";

// A relative path that stays inside where it was given from, as given
// ("reference/kernel.cu"); any other (absolute, or climbing out with "..") by
// its file name ("kernel.cu"), or its folder's name when it ends in a slash.
std::string shown_path(const std::string& path);

// `text` with every absolute path that names a file the compiler or a tool
// read shortened to its file name: a location ("/x/device.h:68:39",
// "/x/kernel.cu(12)"), the files of an include chain ("from /x/cudacpu.h:24"),
// a path opening a line ("/usr/bin/g++ exited with code 1"), and the copy of
// kernel.cu the compiler was given, wherever it stands. Other paths inside a
// message, which quote the student's own text, are kept as written.
std::string shorten_machine_paths(const std::string& text);

// What the views call a submission: the id it was graded under (batch, or
// --student); by default the file's stem ("alice.cu": "alice") or, for a
// kernel.cu (the name every student hands in), the folder holding it.
std::string shown_name(const GradeResult& r);

// `r` as the views show it: student, submission and suite named as above, and
// the texts the grader and its tools wrote (build log, verdicts, details,
// notes) without the machine's folders. What the program printed is its own.
GradeResult as_shown(const GradeResult& r);

}  // namespace sg::report
