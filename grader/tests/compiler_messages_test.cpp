// The CPU backend shows g++'s messages with only the student's own names.
#include <gtest/gtest.h>

#include "backends/cpu/compiler_messages.h"

namespace {

const char* const kLog =
    "kernel.cu: In function 'void mysgemm(int, int, int, const float*, const float*, float*)':\n"
    "kernel.cu:19:27: error: 'TILE_WIDTH' was not declared in this scope; did you mean 'SIZE_WIDTH'?\n"
    "   19 |   const int phases = (k + TILE_WIDTH - 1) / TILE_WIDTH;\n"
    "      |                           ^~~~~~~~~~\n"
    "      |                           SIZE_WIDTH\n"
    "kernel.cu:20:5: error: 'tiel' was not declared in this scope; did you mean 'tile'?\n"
    "   20 |     tiel = 3;\n"
    "      |     ^~~~\n"
    "      |     tile\n";

TEST(CompilerMessages, SuggestionsOfTheCpuLayersNamesAreDropped) {
  const std::string shown = sg::student_facing_messages(kLog, "int tile; const int phases = TILE_WIDTH;");
  EXPECT_EQ(shown.find("SIZE_WIDTH"), std::string::npos) << shown;
  EXPECT_NE(shown.find("kernel.cu:19:27: error: 'TILE_WIDTH' was not declared in this scope\n"), std::string::npos)
      << shown;
  EXPECT_NE(shown.find("^~~~~~~~~~"), std::string::npos) << shown;  // the caret stays
  // A suggestion the student's own text holds is kept, fix-it line included.
  EXPECT_NE(shown.find("did you mean 'tile'?"), std::string::npos) << shown;
  EXPECT_NE(shown.find("|     tile\n"), std::string::npos) << shown;
  // "tile" inside "tiles" is not a whole word of the source.
  const std::string other = sg::student_facing_messages(kLog, "int tiles;");
  EXPECT_EQ(other.find("did you mean 'tile'"), std::string::npos) << other;
}

// Compiler output quotes the student's text: a megabyte-long name in one line
// (it crashed the judge when a regex read it) is read in one pass.
TEST(CompilerMessages, AMegabyteLongNameIsReadWithoutCrashing) {
  const std::string name(1 << 20, 'a');
  const std::string log = "kernel.cu:1:1: error: 'x' was not declared in this scope; did you mean '" + name + "'?\n" +
                          "; did you mean '" + std::string(1 << 20, 'b') + "\n" + std::string(1 << 20, '\'') + "\n";
  const std::string shown = sg::student_facing_messages(log, "int x;");
  EXPECT_EQ(shown.find(name), std::string::npos) << "a suggestion the student never wrote is dropped";
  EXPECT_NE(shown.find("error: 'x' was not declared in this scope\n"), std::string::npos);
}

TEST(CompilerMessages, FirstErrorAndTheLayerAreFound) {
  EXPECT_EQ(sg::first_error_line(kLog).rfind("kernel.cu:19:27: error:", 0), 0u);
  EXPECT_EQ(sg::first_error_line("all fine\n"), "");
  EXPECT_TRUE(sg::mentions_cpu_layer("error: no match for 'cudacpu::detail::SharedArray'"));
  EXPECT_FALSE(sg::mentions_cpu_layer(kLog));
}

}  // namespace
