#include "cli/batch_cli.h"

#include <signal.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <vector>

#include "batch/batch_run.h"
#include "cli/command_line.h"

namespace sg {
namespace {

using batch::BatchOptions;

bool parse_int(const std::string& s, long lo, long hi, long& out) {
  if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos) return false;
  errno = 0;
  out = std::strtol(s.c_str(), nullptr, 10);
  return errno == 0 && out >= lo && out <= hi;
}

// A whole number in [lo, hi] stored in `field`, or `complaint` followed by the value.
std::function<std::string(const std::string&)> number(int& field, long lo, long hi, const std::string& complaint) {
  return [&field, lo, hi, complaint](const std::string& v) {
    long n = 0;
    if (!parse_int(v, lo, hi, n)) return complaint + v;
    field = static_cast<int>(n);
    return std::string();
  };
}

// `grade batch` (or, with `merge_command`, `grade merge`): its options, bound
// to `o`. `grade merge` takes every option of `grade batch`, as it always
// has, but its help lists only those a merge reads.
struct BatchCommand {
  CLI::App app;

  BatchCommand(BatchOptions& o, bool merge_command)
      : app(merge_command ? "Joins the shards of a Slurm batch (DIR/shards/*/) into DIR: every student's report "
                            "folder, one journal, one gradebook. The same as grade batch --merge DIR."
                          : "Grades a class: a grade worker a slot, each grading its slot's submissions in turn, a "
                            "journal to resume from, the class's gradebook.csv and summary.html; Slurm job arrays.",
            merge_command ? "grade merge" : "grade batch") {
    cli::configure(app);
    // What `grade merge` does not read stays out of its help (an empty group hides an option).
    const std::string batch_only = merge_command ? "" : "Options";
    if (merge_command)
      cli::add_positional(app, "DIR", "the batch folder (the --out DIR of grade batch)", o.submissions);
    else
      cli::add_positional(app, "SUBMISSIONS_DIR",
                          "one sub-folder (or <id>.cu) per student, a folder of git clones, or a Gradescope export "
                          "(with submission_metadata.yml)",
                          o.submissions);
    app.add_option("--out", o.out,
                   merge_command ? "the batch folder, when not given as the argument"
                                 : "per-student reports, journal.jsonl, gradebook.csv, summary.html")
        ->type_name("DIR");
    app.add_option("--suite", o.suite, "YAML suite (default: testcases/default.yaml)")
        ->type_name("FILE")
        ->group(batch_only);
    cli::add_checked(app, "--seed", "N", "input seed for every submission (default: fresh secret ones)",
                     [&o](const std::string& v) { return cli::parse_seed(v, o.seed); })
        ->group(batch_only);
    cli::add_checked(app, "--backend", "B", "gpu, cpu or auto (default)",
                     [&o](const std::string& v) { return cli::parse_backend_choice(v, o.backend); })
        ->group(batch_only);
    cli::add_checked(app, "--visibility", "V", "public or all (default)",
                     [&o](const std::string& v) { return cli::parse_visibility(v, o.public_only); })
        ->group(batch_only);
    cli::add_checked(app, "--gpus", "LIST", "GPUs to use, e.g. 0,1 (default: every visible GPU)",
                     [&o](const std::string& v) {
                       std::vector<int> list;
                       for (std::size_t start = 0; start <= v.size();) {
                         const std::size_t comma = std::min(v.find(',', start), v.size());
                         long n = 0;
                         if (!parse_int(v.substr(start, comma - start), 0, 1023, n))
                           return "expected GPU indices like 0,1, got " + v;
                         for (int g : list)
                           if (g == n) return "GPU " + std::to_string(n) + " listed twice in " + v;
                         list.push_back(static_cast<int>(n));
                         start = comma + 1;
                       }
                       o.gpus = list;
                       return std::string();
                     })
        ->group(batch_only);
    cli::add_checked(app, "--jobs", "N", "gradings at once, one worker each (default: " + std::to_string(batch::kGradesPerGpu) +
                         " per GPU, or one per CPU)",
                     number(o.jobs, 1, 4096, "expected a number from 1 to 4096, got "))
        ->group(batch_only);
    app.add_flag("--resume", o.resume, "continue a batch: grade only what is unfinished or changed")->group(batch_only);
    app.add_flag("--regrade", o.regrade, "grade everything again, even when the journal has it")->group(batch_only);
    cli::add_checked(app, "--only", "ID[,ID]",
                     "grade just these students again (in an existing batch) and rebuild the class outputs; "
                     "everyone else's results stay (repeatable)",
                     [&o](const std::string& v) {
                       for (std::size_t start = 0; start <= v.size();) {
                         const std::size_t comma = std::min(v.find(',', start), v.size());
                         if (comma > start) o.only.push_back(v.substr(start, comma - start));
                         start = comma + 1;
                       }
                       return o.only.empty() ? "expected student ids separated by commas, got '" + v + "'"
                                                      : std::string();
                     })
        ->group(batch_only);
    // canvas.csv: read by `grade merge` too, which writes the class outputs of a Slurm batch.
    cli::add_checked(app, "--export", "FORMAT",
                     "canvas: also write canvas.csv for Canvas's gradebook import (grader/docs/batch.md)",
                     [&o](const std::string& v) {
                       if (v != "canvas") return "the one format is canvas, got " + v;
                       o.export_canvas = true;
                       return std::string();
                     });
    app.add_option("--roster", o.roster,
                   "Canvas's gradebook export (Grades > Export, CSV): canvas.csv gets a row per student of it, with "
                   "its ID, SIS User ID, SIS Login ID and Section, matched to submissions by SID, e-mail or id; "
                   "implies --export canvas")
        ->type_name("FILE");
    app.add_option("--canvas-column", o.canvas_column,
                   "canvas.csv's assignment column; to grade an existing assignment, its heading in Canvas's "
                   "gradebook export, e.g. 'SGEMM (123456)' (default: the --title); implies --export canvas")
        ->type_name("TEXT");
    cli::add_checked(app, "--points-possible", "N",
                     "canvas.csv's Points Possible (default: what the suite is worth on the backend used, e.g. 84 "
                     "on the CPU backend with the default suite); implies --export canvas",
                     [&o](const std::string& v) {
                       char* end = nullptr;
                       const double n = std::strtod(v.c_str(), &end);
                       if (v.empty() || *end || !std::isfinite(n) || !(n > 0)) return "expected points > 0, got " + v;
                       o.points_possible = n;
                       return std::string();
                     });
    cli::add_checked(app, "--time-limit", "S", "wall-clock seconds per submission (default: from the suite)",
                     [&o](const std::string& v) {
                       char* end = nullptr;
                       o.time_limit_s = std::strtod(v.c_str(), &end);
                       return v.empty() || *end || !(o.time_limit_s > 0) ? "expected seconds > 0, got " + v
                                                                          : std::string();
                     })
        ->group(batch_only);
    app.add_option("--title", o.title,
                   "title of summary.html, and canvas.csv's column unless --canvas-column "
                   "(default: 'Tiled SGEMM: suite NAME')")
        ->type_name("TEXT");
    app.add_flag("--quiet", o.quiet, "no progress output")->group(batch_only);
    cli::add_checked(app, "--shard", "I/N", "grade only slice I (0-based) of N, into DIR/shards/I/",
                     [&o](const std::string& v) {
                       const std::size_t slash = v.find('/');
                       long idx = 0, count = 0;
                       if (slash == std::string::npos || !parse_int(v.substr(0, slash), 0, 100000, idx) ||
                           !parse_int(v.substr(slash + 1), 1, 100000, count) || idx >= count)
                         return "expected I/N with 0 <= I < N, got " + v;
                       o.shard_index = static_cast<int>(idx);
                       o.shard_count = static_cast<int>(count);
                       return std::string();
                     })
        ->group(batch_only);
    cli::add_checked(app, "--slurm", "N", "write DIR/grade_batch.sbatch: a job array of N shards; grades nothing",
                     number(o.slurm_shards, 1, 100000, "expected a number of shards >= 1, got "))
        ->group(batch_only);
    cli::add_checked(app, "--sbatch", "OPT", "extra '#SBATCH OPT' line for --slurm (repeatable)",
                     [&o](const std::string& v) {
                       if (v.find('\n') != std::string::npos) return std::string("an option may not contain a line break");
                       o.sbatch_lines.push_back(v);
                       return std::string();
                     })
        ->group(batch_only);
    app.add_flag("--merge", o.merge, "join DIR/shards/*/ into DIR's gradebook (DIR is --out or the argument)")
        ->group(batch_only);
    app.add_option("--grader", o.grader, "the grade program whose `worker` grades the submissions (default: this one)")
        ->type_name("PATH")
        ->group(batch_only);
    app.footer(merge_command ? "Exit status: 0 merged, 2 nothing to merge or usage error, 3 internal error."
                             : "Also: grade batch --merge DIR (or grade merge DIR) once the shards of --slurm have run.\n"
                               "Exit status: 0 done (whatever the scores), 2 usage error or refused, 3 internal error.");
  }
};

// The checks across options, once all are read.
std::string check_batch_options(BatchOptions& o) {
  if (!o.roster.empty() || !o.canvas_column.empty() || o.points_possible) o.export_canvas = true;
  if (o.merge) {
    // `grade batch --merge DIR`: the folder may come as the argument or as --out.
    if (o.out.empty()) o.out = o.submissions;
    if (o.out.empty()) return "--merge needs the batch folder (grade batch --merge DIR)";
    return "";
  }
  if (o.submissions.empty()) return "no submissions folder given";
  if (o.out.empty()) return "--out DIR is required (where the reports and the journal go)";
  if (o.resume && o.regrade) return "--resume and --regrade exclude each other (--regrade grades everything again)";
  if (!o.only.empty() && (o.regrade || o.shard_count))
    return "--only regrades the students named in an existing batch: not with --regrade or --shard";
  if (o.export_canvas && o.shard_count)
    return "--export canvas (or --roster, --canvas-column, --points-possible) with --shard: a shard holds part of "
           "the class; give them to grade merge, which writes the whole class's canvas.csv";
  if (o.slurm_shards && o.shard_count)
    return "--slurm writes the job script; --shard is what each of its tasks runs: give one";
  return "";
}

// The grade binary each submission is graded by: this very program, unless
// --grader names another one.
std::string this_program() {
  std::error_code ec;
  const auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : p.string();
}

int run(int argc, char** argv, bool merge_command) {
  const char* name = merge_command ? "grade merge" : "grade batch";
  BatchOptions opts;
  std::string error;
  if (!parse_batch_args(argc, argv, opts, error, merge_command)) {
    std::fprintf(stderr, "%s: %s\n\n%s", name, error.c_str(), batch_usage(merge_command).c_str());
    return 2;
  }
  if (opts.help) {
    std::fputs(batch_usage(merge_command).c_str(), stdout);
    return 0;
  }
  const std::string grader = opts.grader.empty() ? this_program() : opts.grader;
  if (grader.empty()) {
    std::fprintf(stderr, "%s: cannot find this program's path (/proc/self/exe); give --grader PATH\n", name);
    return 3;
  }
  ::signal(SIGPIPE, SIG_IGN);  // a closed terminal or log pipe must not kill the batch mid-journal
  return batch::run_batch(opts, grader, stderr);
}

}  // namespace

std::string batch_usage(bool merge_command) {
  BatchOptions o;
  return BatchCommand(o, merge_command).app.help();
}

bool parse_batch_args(int argc, char** argv, BatchOptions& o, std::string& error, bool merge_command) {
  BatchCommand command(o, merge_command);
  if (!cli::parse(command.app, argc, argv, merge_command ? "batch folder" : "submissions folder", o.submissions, o.help,
                  error))
    return false;
  if (o.help) return true;
  if (merge_command) o.merge = true;
  error = check_batch_options(o);
  return error.empty();
}

int batch_main(int argc, char** argv) { return run(argc, argv, false); }

int merge_main(int argc, char** argv) { return run(argc, argv, true); }

}  // namespace sg
