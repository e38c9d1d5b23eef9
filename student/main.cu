// ./sgemm: runs basicSgemm (kernel.cu) on random inputs, checks the result
// against an FP64 oracle and times it next to cuBLAS SGEMM (on a GPU; on the
// CPU, see cpu_support.cpp, it checks and times the kernel alone).
// You do not need to edit this file; run ./sgemm --help for the usage.
#include <new>

#include "support.h"

namespace {

void print_phase(const char *name, double ms) { std::printf("  %-26s %10.3f ms\n", name, ms); }

void print_timing(const char *name, const Options &opt, const Summary &s) {
  std::printf("%-16s median of %d: %9.3f ms (min %.3f, max %.3f), %8.1f GFLOP/s\n", name,
              opt.repeats, s.median_ms, s.min_ms, s.max_ms, gflops(opt, s.median_ms));
}

}  // namespace

int main(int argc, char **argv) {
  const char *program = argv[0];
  Options opt;
  // Argument errors are found before any CUDA call, so they exit 2 on a
  // machine without a GPU too.
  const std::string bad_args = parse_options(argc, argv, &opt);
  if (!bad_args.empty()) usage_error(program, bad_args);
  if (opt.help) {
    print_usage(stdout, program);
    return kExitPassed;
  }
  std::printf("A: %d x %d, B: %d x %d, C: %d x %d (seed %llu)\n", opt.m, opt.k, opt.k, opt.n,
              opt.m, opt.n, static_cast<unsigned long long>(opt.seed));

  open_device();
  const std::string too_big = check_problem_fits(opt);
  if (!too_big.empty()) usage_error(program, too_big);

  const std::size_t mk = std::size_t(opt.m) * opt.k, kn = std::size_t(opt.k) * opt.n;
  const std::size_t mn = std::size_t(opt.m) * opt.n;

  std::printf("phases:\n");
  double t0 = host_now_ms();
  std::vector<float> hA, hB, hC;
  try {
    hA.resize(mk);
    hB.resize(kn);
    hC.resize(mn);
  } catch (const std::bad_alloc &) {
    usage_error(program, "problem too big for the host's memory (A, B and C in FP32)");
  }
  fill_uniform(hA, opt.seed, 1);
  fill_uniform(hB, opt.seed, 2);
  print_phase("setup (inputs on the host)", host_now_ms() - t0);

  t0 = host_now_ms();
  DeviceArray<float> dA(mk), dB(kn), dC(mn);
  label_device_buffers(dA.get(), dB.get(), dC.get(), opt.n);
  print_phase("device allocation", host_now_ms() - t0);

  EventTimer timer;
  timer.start();
  CHECK_CUDA(cudaMemcpy(dA.get(), hA.data(), dA.bytes(), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(dB.get(), hB.data(), dB.bytes(), cudaMemcpyHostToDevice));
  timer.stop();
  print_phase("copy A, B to the device", timer.elapsed_ms());

  // The checked launch: its output is the one verified below.
  print_phase("kernel (first launch)", timed_student_launch(opt, dA.get(), dB.get(), dC.get(), timer));

  timer.start();
  CHECK_CUDA(cudaMemcpy(hC.data(), dC.get(), dC.bytes(), cudaMemcpyDeviceToHost));
  timer.stop();
  print_phase("copy C to the host", timer.elapsed_ms());

  Library library;

  Verdict verdict;
  std::vector<std::string> problems;  // stray accesses, barrier races (found on the CPU only)
  if (opt.verify) {
    t0 = host_now_ms();
    verdict = library.verify(opt, dA.get(), dB.get(), dC.get(), hC);
    problems = library.access_and_barrier_problems(opt, dA.get(), dB.get(), dC.get(), hC);
    std::string label = std::string("verification (") + library.oracle_name() + ")";
    print_phase(label.c_str(), host_now_ms() - t0);
  }

  if (verdict.passed() && problems.empty()) {
    std::vector<double> samples;
    for (int i = 0; i < opt.repeats; ++i)
      samples.push_back(timed_student_launch(opt, dA.get(), dB.get(), dC.get(), timer));
    const Summary mine = summarize(samples);
    Summary theirs;
    const bool compared = library.time_library_sgemm(opt, dA.get(), dB.get(), dC.get(), timer, &theirs);

    print_timing("your kernel", opt, mine);
    if (compared) {
      print_timing("cuBLAS SGEMM", opt, theirs);
      std::printf("your kernel reaches %.1f%% of cuBLAS\n", 100.0 * theirs.median_ms / mine.median_ms);
    }
    if (*library.timing_note()) std::printf("%s\n", library.timing_note());
  } else {
    std::printf("timings skipped: %s\n", verdict.passed() ? "the kernel has a problem (below)"
                                                          : "the result is wrong");
  }

  if (!opt.verify) {
    std::printf("verification skipped (--no-verify)\n");
    return kExitPassed;
  }
  for (const std::string &p : problems) std::printf("%s\n", p.c_str());
  if (verdict.passed() && !problems.empty()) {
    std::printf("TEST FAILED: every element is within its bound on this run, but the kernel has "
                "the problem above\n");
    return kExitFailed;
  }
  print_verdict(verdict, opt);
  return verdict.passed() ? kExitPassed : kExitFailed;
}
