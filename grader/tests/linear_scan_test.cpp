// Every scan of student text in the judge is linear (or n log n) in its
// length: each scanner is given 1 MiB of an adversarial pattern (nested
// brackets in dead code, files of `<<<`, long runs of identifiers, deep
// nesting, many directives, unterminated comments and strings, many line
// splices...) and must finish within kBoundSeconds. That is a complexity
// bound, not a timing test: a linear scan of 1 MiB takes well under a second
// here, a quadratic one hours. Each scan runs in a child process, so a scan
// that runs away (or recurses as deep as the text and crashes) fails its own
// test and is killed, and the rest go on.
// Also: the rewriter's inline-asm ban sees through line splices, as the
// preprocessor joins them.
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "backends/cpu/compiler_messages.h"
#include "backends/cpu/preprocessed_scan.h"
#include "backends/cpu/rewrite.h"
#include "backends/cpu/source_structure.h"
#include "words/source_problems.h"
#include "static_checks/device_stubs.h"
#include "static_checks/static_checks.h"
#include "static_checks/symbol_policy.h"
#include "words/structure_report.h"

namespace {

constexpr double kBoundSeconds = 10;
constexpr std::size_t kMiB = 1 << 20;

// `unit` repeated until the text holds `size` bytes.
std::string repeat(const std::string& unit, std::size_t size = kMiB) {
  std::string s;
  s.reserve(size + unit.size());
  while (s.size() < size) s += unit;
  return s;
}

// What a scan returned (summarised by the scan's caller) when it finished in
// time in a child process; a test failure saying why not otherwise.
::testing::AssertionResult finishes(const std::function<std::string()>& scan, std::string* result = nullptr) {
  int fds[2];
  if (::pipe(fds) != 0) return ::testing::AssertionFailure() << "pipe failed";
  const pid_t pid = ::fork();
  if (pid < 0) return ::testing::AssertionFailure() << "fork failed";
  if (pid == 0) {
    ::close(fds[0]);
    const std::string out = scan();
    for (std::size_t at = 0; at < out.size();) {
      const ssize_t n = ::write(fds[1], out.data() + at, out.size() - at);
      if (n <= 0) ::_exit(3);
      at += static_cast<std::size_t>(n);
    }
    ::_exit(0);
  }
  ::close(fds[1]);
  const auto start = std::chrono::steady_clock::now();
  std::string out;
  bool eof = false;
  for (;;) {
    const double left = kBoundSeconds - std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (left <= 0) break;
    pollfd p{fds[0], POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left * 1000) + 1) <= 0) continue;
    char buf[4096];
    const ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n <= 0) {
      eof = true;
      break;
    }
    out.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fds[0]);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!eof) ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (!eof) return ::testing::AssertionFailure() << "still running after " << kBoundSeconds << " s (killed)";
  if (WIFSIGNALED(status))
    return ::testing::AssertionFailure() << "the scan died of signal " << WTERMSIG(status) << " after " << took << " s";
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return ::testing::AssertionFailure() << "the child failed";
  if (result) *result = out;
  return ::testing::AssertionSuccess() << "finished in " << took << " s";
}

std::string joined(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) s += l + "\n";
  return s;
}

std::string structure_of(const std::string& src) { return sg::check_structure_source(src).detail; }

std::string rewrite_of(const std::string& src) {
  const sg::RewriteResult r = sg::rewrite_for_cpu(src);
  return "launches " + std::to_string(r.launches) + "\n" + joined(sg::source_problem_lines("kernel.cu", r.problems));
}

std::string preprocessed_of(const std::string& src) {
  return joined(sg::source_problem_lines("kernel.cu", sg::scan_preprocessed("# 1 \"kernel.cu\"\n" + src, "kernel.cu")));
}

const char* const kKernel =
    "__global__ void mysgemm(int m, int n, int k, const float *A, const float *B, float *C) {\n"
    "  __shared__ float t[16];\n"
    "  __syncthreads();\n"
    "}\n";

// Patterns for every scanner of kernel.cu, each about 1 MiB, after a kernel.
std::vector<std::pair<std::string, std::string>> source_patterns() {
  return {
      {"nested calls in #if 0", "#if 0\n" + repeat("a(") + "\n#endif\n"},
      {"nested calls and braces", repeat("f(){g(") + repeat("}")},
      {"launches in dead code", "#if 0\n" + repeat("k<<<") + "\n#endif\n"},
      {"launches in comments and strings", repeat("// k<<<g, b\n/* k<<< */ \"k<<<\" ")},
      {"launch configurations never closed", "void h() {" + repeat("k<<<(") + "}"},
      {"template arguments before launches", "void h() {" + repeat("> <<< ") + "}"},
      {"parentheses before launches", "void h() {" + repeat("(", kMiB / 2) + repeat(")<<<", kMiB / 2) + "}"},
      {"qualified names before launches", "void h() {" + repeat("a::", kMiB / 2) + repeat("a<<<g,b>>>();", kMiB / 2) + "}"},
      {"one long identifier", std::string(kMiB, 'x') + "(" + std::string(kMiB, 'y') + ");"},
      {"long identifiers called", repeat(std::string(4096, 'z') + "(){" + std::string(4096, 'w') + "();")},
      {"deep braces", "void h() {" + repeat("{", kMiB / 2) + repeat("}", kMiB / 2)},
      {"many directives", repeat("#if 0\n#define A(x) x<<<\n#include <x.h>\n")},
      {"unterminated comments and strings", repeat("\"") + repeat("'") + repeat("R\"") + "/*" + repeat("/*")},
      {"raw strings never closed", repeat("R\"abcdefghijklmnop")},
      {"line splices", repeat("a\\\n") + repeat("\\\n") + repeat("b\\ \t\n") + repeat("//\\\n")},
      {"file-scope __device__ runs", repeat("__device__ ") + "int x;\n" + repeat("__device__ x[")},
      {"__shared__ runs", "__global__ void s() {" + repeat("__shared__ ") + "float a[4];" + repeat("extern __shared__ ") +
                              "float d[];" + repeat("__shared__ __align__(") + "}"},
      {"many declarations and launches",
       "__global__ void s() {" + repeat("__shared__ float a[4]; extern __shared__ float d[]; k<<<1, 1>>>(); ") + "}"},
  };
}

TEST(LinearScan, SourceStructureScanOfNestedCallsInIfZero) {
  // The case: `a(a(a(...` in `#if 0` took 155 s at 133 KB.
  std::string detail;
  ASSERT_TRUE(finishes([] { return structure_of(kKernel + std::string("#if 0\n") + repeat("a(") + "\n#endif\n"); },
                       &detail));
  EXPECT_NE(detail.find("__shared__ declared at kernel.cu:2; __syncthreads called at kernel.cu:3"), std::string::npos)
      << detail;
}

TEST(LinearScan, RewriterOnLaunchesInDeadCode) {
  // The case: `<<<` after `<<<` in `#if 0` took 66 s at 128 KB.
  std::string out;
  ASSERT_TRUE(finishes([] { return rewrite_of(kKernel + std::string("#if 0\n") + repeat("k<<<") + "\n#endif\n"); },
                       &out));
  EXPECT_EQ(out, "launches 0\nkernel.cu:6: unterminated kernel launch configuration (no matching `>>>`)\n");
}

TEST(LinearScan, EveryKernelScannerOnEveryPattern) {
  for (const auto& [name, pattern] : source_patterns()) {
    const std::string src = kKernel + pattern;
    EXPECT_TRUE(finishes([&] { return structure_of(src); })) << "source structure, " << name;
    EXPECT_TRUE(finishes([&] { return rewrite_of(src); })) << "rewriter, " << name;
    EXPECT_TRUE(finishes([&] { return preprocessed_of(src); })) << "preprocessed scan, " << name;
  }
}

TEST(LinearScan, CallsAndMacrosAsDeepAsTheText) {
  // Each function defined inside the last and calling the next; each macro using the next.
  const std::string head = "__global__ void mysgemm(int m, int n, int k, const float *A, const float *B, float *C) { ";
  std::string calls = head + "f0(); }\n";
  int n = 0;
  for (; calls.size() < kMiB; ++n) calls += "f" + std::to_string(n) + "(){f" + std::to_string(n + 1) + "();\n";
  calls += "f" + std::to_string(n) + "(){ __syncthreads(); }\n";
  std::string detail;
  ASSERT_TRUE(finishes([&] { return structure_of(calls); }, &detail));
  EXPECT_NE(detail.find("no __shared__ declaration; __syncthreads called at kernel.cu:" + std::to_string(n + 2)),
            std::string::npos)
      << detail;

  std::string macros = head + "M0 }\n";
  for (n = 0; macros.size() < kMiB; ++n) macros += "#define M" + std::to_string(n) + " M" + std::to_string(n + 1) + "\n";
  macros += "#define M" + std::to_string(n) + " __syncthreads()\n";
  ASSERT_TRUE(finishes([&] { return structure_of(macros); }, &detail));
  EXPECT_NE(detail.find("__syncthreads called at kernel.cu:" + std::to_string(n + 2)), std::string::npos) << detail;
}

TEST(LinearScan, RewriterEditsOfAMebibyteOfDeclarationsAndLaunches) {
  std::string src;
  int n = 0;
  for (; src.size() < kMiB / 2; ++n) src += "__device__ int d" + std::to_string(n) + "[4];\n";
  src += "__global__ void s() {\n";
  for (int k = 0; k < n; ++k) src += "  __shared__ float a" + std::to_string(k) + "[4];\n";
  src += "}\nvoid h() {\n";
  for (int k = 0; k < n; ++k) src += "  s<<<1, 1>>>();\n";
  src += "}\n";
  std::string out;
  ASSERT_TRUE(finishes([&] { return rewrite_of(src); }, &out));
  EXPECT_EQ(out, "launches " + std::to_string(n) + "\n");
}

TEST(LinearScan, PtxStructureScan) {
  const std::string entry = ".visible .entry _Z7mysgemmiiiPKfS0_Pf()\n{\n";
  const std::vector<std::pair<std::string, std::string>> patterns = {
      {"labels", entry + repeat("a: ") + "bar.sync 0;\n}\n"},
      {"initializers", ".global .b8 x[1] = " + repeat("{0}") + ";\n" + entry + "}\n"},
      {"dimensions", ".shared .b8 s" + repeat("[]") + ";\n" + entry + "}\n"},
      {"identifiers", entry + "call " + repeat("f, ") + ";\n}\n"},
      {"unterminated comment and strings", entry + repeat("\"") + "/*" + repeat("*")},
  };
  std::string chain;  // each function calling the next, the last one with the barrier
  int n = 0;
  for (; chain.size() < kMiB; ++n) chain += ".func f" + std::to_string(n) + "()\n{\ncall f" + std::to_string(n + 1) + ", ();\n}\n";
  chain += ".func f" + std::to_string(n) + "()\n{\nbar.sync 0;\n}\n" + entry + "call f0, ();\n}\n";
  const std::string path = ::testing::TempDir() + "linear_scan.ptx";
  for (const auto& [name, text] : patterns) {
    { std::ofstream(path, std::ios::binary) << text; }
    EXPECT_TRUE(finishes([&] { return sg::with_ptx_detail(sg::check_structure(path)).detail; })) << name;
  }
  { std::ofstream(path, std::ios::binary) << chain; }
  std::string found;
  EXPECT_TRUE(finishes([&] {
    const sg::StructureReport r = sg::check_structure(path);
    return std::string(r.found_kernel ? "kernel" : "") + (r.uses_barrier ? " barrier" : "");
  }, &found));
  EXPECT_EQ(found, "kernel barrier") << "the barrier is " << n << " calls away";
  std::remove(path.c_str());
}

TEST(LinearScan, DeviceStubsAndSymbolNames) {
  // Markers after `)`s that no `(` opens, in nvcc's generated host code (a string can hold them).
  const std::string generated = repeat("\"x){int volatile ___ = 1;}\" ") + "void twice(float x) {int volatile ___ = 1;"
                                "(void)x;::exit(___);}\n";
  std::string names;
  ASSERT_TRUE(finishes([&] {
    const std::set<std::string> found = sg::build::stub_names_in_generated_code(generated);
    return joined({found.begin(), found.end()});
  }, &names));
  EXPECT_EQ(names, "twice\n");

  // Thousands of stand-ins, each in its own section that refers to exit.
  std::set<std::string> defined, stub_names;
  sg::build::Relocations relocations;
  for (int k = 0; k < 20000; ++k) {
    const std::string plain = "f" + std::to_string(k);
    const std::string f = "_Z" + std::to_string(plain.size()) + plain + "v";
    defined.insert(f);
    stub_names.insert(plain);
    relocations[".text." + f] = {"exit"};
  }
  relocations[".eh_frame"] = {".text._Z2f0v"};
  std::string counts;
  ASSERT_TRUE(finishes([&] {
    const auto stubs = sg::build::recognised_device_stubs(defined, stub_names, relocations);
    return std::to_string(stubs.size()) + " " + std::to_string(sg::build::referenced_only_from("exit", stubs, relocations));
  }, &counts));
  EXPECT_EQ(counts, "20000 1");
  // A section name of a mebibyte of dots, against many functions.
  sg::build::Relocations dotted{{repeat(".a"), {"exit"}}};
  EXPECT_TRUE(finishes([&] { return std::to_string(sg::build::referenced_only_from("exit", defined, dotted)); }));

  // A demangled name with many anonymous namespaces (the symbol is at most 4 KiB).
  EXPECT_TRUE(finishes([] { return sg::build::plain_function_name("_Z1fN12_GLOBAL__N_11AE" + repeat("S0_", 4000)); }));
}

TEST(LinearScan, CompilerMessagesLookForSuggestionsInTheSource) {
  // A suggested name that almost matches at every byte of the source.
  const std::string name = std::string(1 << 16, 'a') + "b";
  const std::string log = "kernel.cu:1:1: error: 'x' was not declared in this scope; did you mean '" + name + "'?\n";
  std::string shown;
  ASSERT_TRUE(finishes([&] { return sg::student_facing_messages(log, std::string(kMiB, 'a')); }, &shown));
  EXPECT_EQ(shown, "kernel.cu:1:1: error: 'x' was not declared in this scope\n");
}

// ---- the inline-asm ban and line splices ----

TEST(CpuRewrite, InlineAsmIsSeenThroughLineSplices) {
  const std::vector<std::pair<std::string, std::string>> spliced = {
      {"__as\\\nm__ volatile(\"membar.gl;\");", "__asm__"},
      {"as\\\nm(\"membar.gl;\");", "asm"},
      {"a\\\ns\\\nm(\"membar.gl;\");", "asm"},
      {"__a\\\nsm(\"membar.gl;\");", "__asm"},
      {"as\\ \t\nm(\"membar.gl;\");", "asm"},  // spaces before the newline: joined all the same
      {"as\\\r\nm(\"membar.gl;\");", "asm"},   // a CRLF line end
  };
  for (const auto& [code, word] : spliced) {
    const sg::RewriteResult r = sg::rewrite_for_cpu("__global__ void k() {\n  " + code + "\n}\n");
    EXPECT_EQ(sg::source_problem_lines("kernel.cu", r.problems), std::vector<std::string>{"kernel.cu:2: `" + word + "` is not supported on the CPU backend"})
        << code;
  }
  // Indentation after the splice: two words, as for the preprocessor.
  EXPECT_TRUE(sg::rewrite_for_cpu("__global__ void k() {\n  int as\\\n m;\n}\n").ok());
}

TEST(CpuRewrite, SplicedNamesAreJoinedAndKeepTheirLines) {
  const std::string src = "__global__ void k() {\n  __shared__ float ti\\\nle[4];\n  ti\\\nle[0] = 1;\n}\n";
  const sg::RewriteResult r = sg::rewrite_for_cpu(src);
  ASSERT_TRUE(r.ok()) << joined(sg::source_problem_lines("kernel.cu", r.problems));
  EXPECT_NE(r.source.find("float (&tile)[4] = tile_cudacpu_shared_.get(\"tile\");\n"), std::string::npos) << r.source;
  EXPECT_EQ(std::count(r.source.begin(), r.source.end(), '\n'), std::count(src.begin(), src.end(), '\n') + 2);
}

}  // namespace
