// Options of `grade batch` (the plain values; cli/batch_cli.cpp parses them).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/result.h"

namespace sg::batch {

// Grade processes a GPU serves at once by default: while one times its cases
// (the GPU to itself), the others compile, run untimed cases and tools.
// With one work queue a CUDA context, 6 graded the sample mix faster than 4
// and 8 on one H200 (grader/bench/RESULTS.md).
constexpr int kGradesPerGpu = 6;

struct BatchOptions {
  bool help = false;
  std::string submissions;          // SUBMISSIONS_DIR
  std::string out;                  // --out DIR (required)
  std::string suite;                // --suite FILE (default: testcases/default.yaml)
  std::optional<std::uint64_t> seed;
  std::optional<BackendKind> backend;  // --backend gpu|cpu; unset: auto
  bool public_only = false;         // --visibility public
  std::optional<std::vector<int>> gpus;  // --gpus 0,1 (default: all visible)
  int jobs = 0;                     // --jobs N (0: kGradesPerGpu per GPU, or the CPU count)
  bool resume = false, regrade = false;
  double time_limit_s = 0;          // --time-limit S per submission (0: from the suite)
  std::string title;                // --title for summary.html (and canvas.csv's column by default)
  bool quiet = false;
  int shard_index = -1, shard_count = 0;  // --shard i/N (0-based i)
  int slurm_shards = 0;             // --slurm N: write the sbatch script, grade nothing
  std::vector<std::string> sbatch_lines;  // --sbatch OPT: extra "#SBATCH OPT" lines
  bool merge = false;               // --merge DIR: join DIR/shards/*/ into DIR
  std::string grader;               // --grader PATH: the grade binary (default: this program)
  bool export_canvas = false;       // --export canvas: also write canvas.csv
  // canvas.csv (each implies --export canvas):
  std::string canvas_column;              // --canvas-column TEXT: the assignment column (default: the title)
  std::optional<double> points_possible;  // --points-possible N (default: the suite's maximum on the backend)
  std::string roster;                     // --roster FILE: a Canvas gradebook export
  std::vector<std::string> only;    // --only ID[,ID]: regrade just these students
};

// The word for `backend` on a command line: "gpu", "cpu" or "auto".
inline std::string backend_word(const std::optional<BackendKind>& backend) {
  return backend ? to_string(*backend) : "auto";
}

}  // namespace sg::batch
