// The CPU side of the driver (see support.h, "the machine"), for machines
// without a usable NVIDIA GPU: kernel.cu runs on the CUDA-on-CPU layer in
// cudacpu/ (a few blocks resident at once, taking turns; each block's
// threads are fibers that run, in a fixed order, until they reach a
// barrier), the FP64 oracle is a loop on the host, and the checks
// compute-sanitizer does on a GPU are done here: out-of-bounds accesses,
// blocks storing to the same element of C, and results that depend on the
// order of threads between barriers.
// Built by the host compiler only (make cpu). You do not need to edit this file.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>

#include "cudacpu/ext.h"
#include "support.h"

namespace {

constexpr int kShowWrong = 5;  // wrong elements listed on failure

// The seed of the resident blocks' turns: the same on every run, as in the grader for one seed.
constexpr std::uint64_t kScheduleSeed = 42;

// MemAvailable from /proc/meminfo in bytes; 0 when it cannot be read.
double available_host_bytes() {
  std::ifstream in("/proc/meminfo");
  std::string key, unit;
  double kib = 0;
  while (in >> key >> kib) {
    std::getline(in, unit);
    if (key == "MemAvailable:") return kib * 1024.0;
  }
  return 0;
}

// Runs basicSgemm once more with each block's threads in ascending order
// and returns its C.
std::vector<float> run_in_ascending_order(const Options &opt, const float *dA, const float *dB,
                                          float *dC) {
  const std::size_t mn = std::size_t(opt.m) * opt.n;
  cudacpu::set_schedule(true, kScheduleSeed);
  CHECK_CUDA(cudaMemset(dC, 0xFF, mn * sizeof(float)));
  basicSgemm(opt.m, opt.n, opt.k, dA, dB, dC);
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaDeviceSynchronize());
  std::vector<float> out(mn);
  CHECK_CUDA(cudaMemcpy(out.data(), dC, mn * sizeof(float), cudaMemcpyDeviceToHost));
  cudacpu::set_schedule(false, kScheduleSeed);
  return out;
}

std::string element_name(std::size_t at, int n) {
  return "C[" + std::to_string(at / std::size_t(n)) + "][" + std::to_string(at % std::size_t(n)) + "]";
}

}  // namespace

// ---- the machine -------------------------------------------------------------

void open_device() {
  cudacpu::set_schedule(false, kScheduleSeed);
  std::printf("device: the CPU (no NVIDIA GPU used): kernel.cu runs on the CUDA-on-CPU layer, a few "
              "blocks at a time on one core; correctness only, times are CPU times, not GPU times\n");
}

std::string check_problem_fits(const Options &opt) {
  const double mk = double(opt.m) * opt.k, kn = double(opt.k) * opt.n, mn = double(opt.m) * opt.n;
  // Device copies and host copies of A, B, C in FP32; FP64 copies of A and B
  // and one FP64 row of the oracle; a second C for the race check.
  const double need = 8.0 * (mk + kn + mn) + (opt.verify ? 8.0 * (mk + kn) + 8.0 * mn : 0);
  const double available = available_host_bytes();
  if (available > 0 && need > available) {
    char line[512];
    std::snprintf(line, sizeof line,
                  "problem too big for this machine's memory: it needs %.2f GB but only %.2f GB "
                  "are available; try a smaller size%s",
                  need / 1e9, available / 1e9, opt.verify ? " or --no-verify" : "");
    return line;
  }
  return check_index_limits(opt);
}

int default_repeats() { return 1; }

std::string error_detail() { return cudacpu::last_error_detail(); }

void label_device_buffers(const float *dA, const float *dB, const float *dC, int n) {
  cudacpu::name_allocation(dA, "A", "float", sizeof(float));
  cudacpu::name_allocation(dB, "B", "float", sizeof(float));
  cudacpu::name_allocation(dC, "C", "float", sizeof(float), std::size_t(n));
}

// ---- the oracle: FP64 on the host; no yardstick ----------------------------------

Library::Library() {}
Library::~Library() {}

const char *Library::oracle_name() const { return "FP64, host"; }

Verdict Library::verify(const Options &opt, const float *dA, const float *dB, const float *,
                        const std::vector<float> &hC) {
  const std::size_t m = opt.m, n = opt.n, k = opt.k;
  std::vector<float> a(m * k), b(k * n);
  CHECK_CUDA(cudaMemcpy(a.data(), dA, a.size() * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(b.data(), dB, b.size() * sizeof(float), cudaMemcpyDeviceToHost));
  std::vector<double> b64(b.begin(), b.end()), b_abs(k * n);
  for (std::size_t i = 0; i < b_abs.size(); ++i) b_abs[i] = std::fabs(b64[i]);

  const double scale = 2.0 * gamma_k(opt.k);
  Verdict v;
  v.checked = m * n;
  std::vector<double> row(n), row_abs(n);
  // One row of C64 and |A||B| at a time: row i is the sum over e of
  // A[i][e] * (row e of B), a loop the compiler vectorises. FP64 products of
  // FP32 values are exact, so the oracle's own error is negligible.
  for (std::size_t i = 0; i < m; ++i) {
    std::fill(row.begin(), row.end(), 0.0);
    std::fill(row_abs.begin(), row_abs.end(), 0.0);
    for (std::size_t e = 0; e < k; ++e) {
      const double x = a[i * k + e], x_abs = std::fabs(x);
      const double *brow = &b64[e * n], *brow_abs = &b_abs[e * n];
      for (std::size_t j = 0; j < n; ++j) {
        row[j] += x * brow[j];
        row_abs[j] += x_abs * brow_abs[j];
      }
    }
    for (std::size_t j = 0; j < n; ++j) {
      const float got = hC[i * n + j];
      const ElementCheck c = check_element(got, row[j], row_abs[j], scale);
      if (c.finite && c.ratio > v.worst_ratio) v.worst_ratio = c.ratio;
      if (c.pass) continue;
      ++v.wrong;
      if (!c.finite) ++v.non_finite;
      if (v.first_wrong.size() < std::size_t(kShowWrong))
        v.first_wrong.push_back({int(i), int(j), got, row[j], c.bound});
    }
  }
  return v;
}

std::vector<std::string> Library::access_and_barrier_problems(const Options &opt, const float *dA,
                                                              const float *dB, float *dC,
                                                              const std::vector<float> &hC) {
  std::vector<std::string> problems;
  // Taken before the rerun below: the first launch's stray access.
  const std::string stray = cudacpu::take_out_of_bounds_report();
  if (!stray.empty())
    problems.push_back("memcheck: " + stray +
                       "\n  an out-of-bounds access: check the bounds of every load into shared "
                       "memory (load 0 outside A and B) and of the store to C");
  unsigned long long racing = 0;
  const std::string race = cudacpu::take_block_race_report(&racing);
  if (!race.empty())
    problems.push_back("race between blocks: " + race + " (" + std::to_string(racing) +
                       " such stores)\n  two blocks stored to the same element in one launch, which "
                       "nothing orders on a GPU: a sum split over blocks needs atomicAdd, and a tile "
                       "belongs in __shared__ memory, not in a global array");

  // A race-free kernel computes every element in the same order whatever the
  // order of the threads between barriers, so both runs agree bit for bit.
  const std::vector<float> ascending = run_in_ascending_order(opt, dA, dB, dC);
  cudacpu::take_out_of_bounds_report();  // already reported above, if any
  cudacpu::take_block_race_report();
  std::size_t differ = 0, first = 0;
  for (std::size_t i = 0; i < hC.size(); ++i) {
    if (std::memcmp(&hC[i], &ascending[i], sizeof(float)) == 0) continue;
    if (differ++ == 0) first = i;
  }
  if (differ > 0) {
    std::ostringstream s;
    s << "racecheck: " << differ << " of " << hC.size()
      << " elements of C change with the order in which each block's threads run between "
         "barriers; "
      << element_name(first, opt.n) << " is " << hC[first]
      << " with the threads in descending order and " << ascending[first] << " in ascending order"
      << "\n  a shared-memory race: a __syncthreads() is missing. The first barrier (after the "
         "loads) keeps threads from reading tile entries not loaded yet; the second (after the "
         "products, before the next phase's loads) keeps the next phase from overwriting tiles "
         "other threads still read";
    problems.push_back(s.str());
  }
  return problems;
}

bool Library::time_library_sgemm(const Options &, const float *, const float *, float *,
                                 EventTimer &, Summary *) {
  return false;  // no cuBLAS on the CPU
}

const char *Library::timing_note() const {
  return "(CPU times of the CUDA-on-CPU layer, not GPU times: they say nothing about your "
         "kernel's speed on a GPU, and there is no cuBLAS here to compare with)";
}
