// `grade batch --slurm N`: an sbatch job-array script whose task i runs
// `grade batch --shard i/N --resume` into DIR/shards/i/.
#pragma once
#include <string>
#include <vector>

namespace sg::batch {

struct SlurmPlan {
  std::string grade_program;  // absolute path of `grade`
  std::string submissions;    // absolute
  std::string out;            // absolute batch folder
  int shards = 1;
  std::vector<std::string> forwarded;     // options every shard gets (--suite ..., --seed ...)
  std::vector<std::string> sbatch_lines;  // extra "#SBATCH" options from --sbatch
  bool request_gpu = true;                // "#SBATCH --gres=gpu:1"
};

std::string sbatch_script(const SlurmPlan& plan);

// Single-quotes `s` for the shell.
std::string shell_quote(const std::string& s);

}  // namespace sg::batch
