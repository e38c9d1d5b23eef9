#include "batch/batch_options.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

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
  auto value = [&](int& i, const std::string& flag, std::string& out) {
    if (i + 1 >= argc) {
      error = flag + " needs a value";
      return false;
    }
    out = argv[++i];
    return true;
  };
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    std::string v;
    long n = 0;
    if (a == "--help" || a == "-h") {
      o.help = true;
    } else if (a == "--out") {
      if (!value(i, a, o.out)) return false;
    } else if (a == "--suite") {
      if (!value(i, a, o.suite)) return false;
    } else if (a == "--seed") {
      if (!value(i, a, v)) return false;
      if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos) {
        error = "--seed: not a non-negative integer: " + v;
        return false;
      }
      errno = 0;
      o.seed = std::strtoull(v.c_str(), nullptr, 10);
      if (errno) {
        error = "--seed: out of range: " + v;
        return false;
      }
    } else if (a == "--backend") {
      if (!value(i, a, o.backend)) return false;
      if (o.backend != "gpu" && o.backend != "cpu" && o.backend != "auto") {
        error = "--backend: expected gpu, cpu or auto, got " + o.backend;
        return false;
      }
    } else if (a == "--visibility") {
      if (!value(i, a, v)) return false;
      if (v != "public" && v != "all") {
        error = "--visibility: expected public or all, got " + v;
        return false;
      }
      o.public_only = v == "public";
    } else if (a == "--gpus") {
      if (!value(i, a, v)) return false;
      std::vector<int> list;
      std::size_t start = 0;
      while (start <= v.size()) {
        const std::size_t comma = std::min(v.find(',', start), v.size());
        if (!parse_int(v.substr(start, comma - start), 0, 1023, n)) {
          error = "--gpus: expected GPU indices like 0,1, got " + v;
          return false;
        }
        for (int g : list)
          if (g == n) {
            error = "--gpus: GPU " + std::to_string(n) + " listed twice in " + v;
            return false;
          }
        list.push_back(static_cast<int>(n));
        start = comma + 1;
      }
      o.gpus = list;
    } else if (a == "--jobs") {
      if (!value(i, a, v)) return false;
      if (!parse_int(v, 1, 4096, n)) {
        error = "--jobs: expected a number from 1 to 4096, got " + v;
        return false;
      }
      o.jobs = static_cast<int>(n);
    } else if (a == "--resume") {
      o.resume = true;
    } else if (a == "--regrade") {
      o.regrade = true;
    } else if (a == "--export") {
      if (!value(i, a, v)) return false;
      if (v != "canvas") {
        error = "--export: the one format is canvas, got " + v;
        return false;
      }
      o.export_canvas = true;
    } else if (a == "--only") {
      if (!value(i, a, v)) return false;
      for (std::size_t start = 0; start <= v.size();) {
        const std::size_t comma = std::min(v.find(',', start), v.size());
        if (comma > start) o.only.push_back(v.substr(start, comma - start));
        start = comma + 1;
      }
      if (o.only.empty()) {
        error = "--only: expected student ids separated by commas, got '" + v + "'";
        return false;
      }
    } else if (a == "--time-limit") {
      if (!value(i, a, v)) return false;
      char* end = nullptr;
      o.time_limit_s = std::strtod(v.c_str(), &end);
      if (v.empty() || *end || !(o.time_limit_s > 0)) {
        error = "--time-limit: expected seconds > 0, got " + v;
        return false;
      }
    } else if (a == "--title") {
      if (!value(i, a, o.title)) return false;
    } else if (a == "--quiet") {
      o.quiet = true;
    } else if (a == "--shard") {
      if (!value(i, a, v)) return false;
      const std::size_t slash = v.find('/');
      long idx = 0, count = 0;
      if (slash == std::string::npos || !parse_int(v.substr(0, slash), 0, 100000, idx) ||
          !parse_int(v.substr(slash + 1), 1, 100000, count) || idx >= count) {
        error = "--shard: expected I/N with 0 <= I < N, got " + v;
        return false;
      }
      o.shard_index = static_cast<int>(idx);
      o.shard_count = static_cast<int>(count);
    } else if (a == "--slurm") {
      if (!value(i, a, v)) return false;
      if (!parse_int(v, 1, 100000, n)) {
        error = "--slurm: expected a number of shards >= 1, got " + v;
        return false;
      }
      o.slurm_shards = static_cast<int>(n);
    } else if (a == "--sbatch") {
      if (!value(i, a, v)) return false;
      if (v.find('\n') != std::string::npos) {
        error = "--sbatch: an option may not contain a line break";
        return false;
      }
      o.sbatch_lines.push_back(v);
    } else if (a == "--merge") {
      o.merge = true;
    } else if (a == "--grader") {
      if (!value(i, a, o.grader)) return false;
    } else if (a.size() > 1 && a[0] == '-') {
      error = "unknown option " + a;
      return false;
    } else if (o.submissions.empty()) {
      o.submissions = a;
    } else {
      error = "more than one submissions folder given (" + o.submissions + ", " + a + ")";
      return false;
    }
  }
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
