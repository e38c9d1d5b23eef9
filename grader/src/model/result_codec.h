// The lossless file form of a GradeResult. Each grade process writes it
// (kResultFile, beside the report views); batch mode reads it back to build
// the class outputs. Every field of model/result.h survives
// encode -> decode -> encode byte for byte; enums are written with their
// model/names.cpp spellings. results.json is a Gradescope view, never read back.
#pragma once
#include <string>

#include "model/result.h"

namespace sg {

inline constexpr const char* kResultFile = "grade-result.json";
inline constexpr int kResultCodecVersion = 2;

// The JSON text of `r` (ends with a newline).
std::string encode_result(const GradeResult& r);

// Parses text written by encode_result. Throws std::runtime_error naming
// `where` and the field when the text is not such a file (damaged, cut short,
// another format or version).
GradeResult decode_result(const std::string& text, const std::string& where);

// Reads and decodes `<dir>/grade-result.json`; errors name the file.
GradeResult read_result_file(const std::string& dir);

}  // namespace sg
