#include "cli/options.h"

#include <regex>

#include "cli/command_line.h"

namespace sg {
namespace {

// The `grade` command: its options, bound to `o`.
struct GradeCommand {
  CLI::App app{"Grades one submission of the tiled SGEMM assignment: results.json, junit.xml and report.md.",
               "grade"};
  explicit GradeCommand(CliOptions& o) {
    cli::configure(app);
    cli::add_positional(app, "SUBMISSION", "a kernel.cu, or a folder holding exactly one", o.submission);
    app.add_option("--suite", o.suite, "YAML suite (default: testcases/default.yaml)")->type_name("FILE");
    app.add_option("--out", o.out, "where results.json, junit.xml and report.md go (default: results)")
        ->type_name("DIR");
    cli::add_checked(app, "--seed", "N", "input seed (default: a fresh secret one each run)",
                     [&o](const std::string& v) { return cli::parse_seed(v, o.seed); });
    cli::add_checked(app, "--visibility", "V",
                     "public: only the public cases (what students may run); all (default)",
                     [&o](const std::string& v) { return cli::parse_visibility(v, o.public_only); });
    cli::add_checked(app, "--backend", "B", "gpu, cpu, or auto (default: gpu when a CUDA device is present)",
                     [&o](const std::string& v) { return cli::parse_backend_choice(v, o.backend); });
    app.add_option("--student", o.student, "name shown in the reports (default: the submission's name)")
        ->type_name("ID");
    app.add_option("--gpu-lock", o.gpu_lock,
                   "share FILE (flock) with other graders of this GPU: timed work runs alone (set by grade batch)")
        ->type_name("FILE");
    cli::add_checked(app, "--device-arch", "ARCH",
                     "the GPU's architecture (sm_90): compile while CUDA starts (set by grade batch)",
                     [&o](const std::string& v) {
                       if (!std::regex_match(v, std::regex("sm_[0-9]{2,3}")))
                         return "expected an architecture such as sm_90, got " + v;
                       o.device_arch = v;
                       return std::string();
                     });
    app.add_flag("--keep-work", o.keep_work, "keep the private work folder (for debugging the grader)");
    app.add_flag("--quiet", o.quiet, "no progress lines on stderr");
    app.footer(
        "A whole class: grade batch --help; the shards of a Slurm batch: grade merge --help.\n"
        "Exit status: 0 graded (whatever the score), 2 usage or suite error, 3 internal error.");
  }
};

}  // namespace

std::string usage_text() {
  CliOptions o;
  return GradeCommand(o).app.help();
}

bool parse_cli(int argc, char** argv, CliOptions& o, std::string& error) {
  GradeCommand command(o);
  if (!cli::parse(command.app, argc, argv, "submission", o.submission, o.help, error)) return false;
  if (o.help) return true;
  if (o.submission.empty()) {
    error = "no submission given";
    return false;
  }
  return true;
}

}  // namespace sg
