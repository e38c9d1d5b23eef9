#include "batch/batch_options.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <vector>

#include "cli/arg_parser.h"

namespace sg::batch {
namespace {

bool parse_int(const std::string& s, long lo, long hi, long& out) {
  if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos) return false;
  errno = 0;
  out = std::strtol(s.c_str(), nullptr, 10);
  return errno == 0 && out >= lo && out <= hi;
}

}  // namespace

std::string batch_usage() {
  return "usage: grade batch [options] SUBMISSIONS_DIR --out DIR\n"
         "       grade batch --merge DIR\n"
         "  SUBMISSIONS_DIR      one sub-folder (or <id>.cu) per student, a folder of git clones,\n"
         "                       or a Gradescope export (with submission_metadata.yml)\n"
         "options:\n"
         "  --out DIR            per-student reports, journal.jsonl, gradebook.csv, summary.html\n"
         "  --suite FILE         YAML suite (default: testcases/default.yaml)\n"
         "  --seed N             input seed for every submission (default: fresh secret ones)\n"
         "  --backend B          gpu, cpu or auto (default)\n"
         "  --visibility V       public or all (default)\n"
         "  --gpus LIST          GPUs to use, e.g. 0,1 (default: every visible GPU)\n"
         "  --jobs N             grade processes at once (default: 4 per GPU, or one per CPU)\n"
         "  --resume             continue a batch: grade only what is unfinished or changed\n"
         "  --regrade            grade everything again, even when the journal has it\n"
         "  --only ID[,ID]       grade just these students again (in an existing batch) and\n"
         "                       rebuild the class outputs; everyone else's results stay\n"
         "  --export canvas      also write canvas.csv for Canvas's gradebook import\n"
         "  --time-limit S       wall-clock seconds per submission (default: from the suite)\n"
         "  --title TEXT         title of summary.html\n"
         "  --quiet              no progress output\n"
         "  --shard I/N          grade only slice I (0-based) of N, into DIR/shards/I/\n"
         "  --slurm N            write DIR/grade_batch.sbatch: a job array of N shards; grades nothing\n"
         "  --sbatch OPT         extra '#SBATCH OPT' line for --slurm (repeatable)\n"
         "  --merge              join DIR/shards/*/ into DIR's gradebook (DIR is --out or the argument)\n"
         "  --grader PATH        the grade program to run per submission (default: this one)\n"
         "exit status: 0 done (whatever the scores), 2 usage error or refused, 3 internal error\n";
}

bool parse_batch_args(int argc, char** argv, BatchOptions& o, std::string& error) {
  // A whole number in [lo, hi], or the error naming the flag and what was expected.
  auto number = [](const std::string& v, long lo, long hi, long& n, const std::string& complaint) {
    return parse_int(v, lo, hi, n) ? std::string() : complaint + v;
  };
  const std::vector<cli::Option> options = {
      cli::text_option("--out", o.out),
      cli::text_option("--suite", o.suite),
      {"--seed", true, [&](const std::string& v) { return cli::parse_seed("--seed", v, o.seed); }},
      {"--backend", true, [&](const std::string& v) { return cli::parse_backend("--backend", v, o.backend); }},
      {"--visibility", true, [&](const std::string& v) { return cli::parse_visibility("--visibility", v, o.public_only); }},
      {"--gpus", true,
       [&](const std::string& v) {
         std::vector<int> list;
         for (std::size_t start = 0; start <= v.size();) {
           const std::size_t comma = std::min(v.find(',', start), v.size());
           long n = 0;
           if (!parse_int(v.substr(start, comma - start), 0, 1023, n))
             return "--gpus: expected GPU indices like 0,1, got " + v;
           for (int g : list)
             if (g == n) return "--gpus: GPU " + std::to_string(n) + " listed twice in " + v;
           list.push_back(static_cast<int>(n));
           start = comma + 1;
         }
         o.gpus = list;
         return std::string();
       }},
      {"--jobs", true,
       [&](const std::string& v) {
         long n = 0;
         std::string e = number(v, 1, 4096, n, "--jobs: expected a number from 1 to 4096, got ");
         o.jobs = static_cast<int>(n);
         return e;
       }},
      cli::flag_option("--resume", o.resume),
      cli::flag_option("--regrade", o.regrade),
      {"--export", true,
       [&](const std::string& v) {
         if (v != "canvas") return "--export: the one format is canvas, got " + v;
         o.export_canvas = true;
         return std::string();
       }},
      {"--only", true,
       [&](const std::string& v) {
         for (std::size_t start = 0; start <= v.size();) {
           const std::size_t comma = std::min(v.find(',', start), v.size());
           if (comma > start) o.only.push_back(v.substr(start, comma - start));
           start = comma + 1;
         }
         return o.only.empty() ? "--only: expected student ids separated by commas, got '" + v + "'" : std::string();
       }},
      {"--time-limit", true,
       [&](const std::string& v) {
         char* end = nullptr;
         o.time_limit_s = std::strtod(v.c_str(), &end);
         return v.empty() || *end || !(o.time_limit_s > 0) ? "--time-limit: expected seconds > 0, got " + v
                                                              : std::string();
       }},
      cli::text_option("--title", o.title),
      cli::flag_option("--quiet", o.quiet),
      {"--shard", true,
       [&](const std::string& v) {
         const std::size_t slash = v.find('/');
         long idx = 0, count = 0;
         if (slash == std::string::npos || !parse_int(v.substr(0, slash), 0, 100000, idx) ||
             !parse_int(v.substr(slash + 1), 1, 100000, count) || idx >= count)
           return "--shard: expected I/N with 0 <= I < N, got " + v;
         o.shard_index = static_cast<int>(idx);
         o.shard_count = static_cast<int>(count);
         return std::string();
       }},
      {"--slurm", true,
       [&](const std::string& v) {
         long n = 0;
         std::string e = number(v, 1, 100000, n, "--slurm: expected a number of shards >= 1, got ");
         o.slurm_shards = static_cast<int>(n);
         return e;
       }},
      {"--sbatch", true,
       [&](const std::string& v) {
         if (v.find('\n') != std::string::npos) return std::string("--sbatch: an option may not contain a line break");
         o.sbatch_lines.push_back(v);
         return std::string();
       }},
      cli::flag_option("--merge", o.merge),
      cli::text_option("--grader", o.grader),
  };
  if (!cli::parse_args(argc, argv, options, "submissions folder", o.help, o.submissions, error)) return false;
  if (o.help) return true;
  if (o.merge) {
    // `grade batch --merge DIR`: the folder may come as the argument or as --out.
    if (o.out.empty()) o.out = o.submissions;
    if (o.out.empty()) {
      error = "--merge needs the batch folder (grade batch --merge DIR)";
      return false;
    }
    return true;
  }
  if (o.submissions.empty()) {
    error = "no submissions folder given";
    return false;
  }
  if (o.out.empty()) {
    error = "--out DIR is required (where the reports and the journal go)";
    return false;
  }
  if (o.resume && o.regrade) {
    error = "--resume and --regrade exclude each other (--regrade grades everything again)";
    return false;
  }
  if (!o.only.empty() && (o.regrade || o.shard_count)) {
    error = "--only regrades the students named in an existing batch: not with --regrade or --shard";
    return false;
  }
  if (o.slurm_shards && o.shard_count) {
    error = "--slurm writes the job script; --shard is what each of its tasks runs: give one";
    return false;
  }
  return true;
}

}  // namespace sg::batch
