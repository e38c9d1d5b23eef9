#include "cli/options.h"

#include <regex>
#include <vector>

#include "cli/arg_parser.h"

namespace sg {

std::string usage_text() {
  return "usage: grade [options] SUBMISSION\n"
         "       grade batch SUBMISSIONS_DIR --out DIR [options]   (grade batch --help)\n"
         "  SUBMISSION           a kernel.cu, or a folder holding exactly one\n"
         "options:\n"
         "  --suite FILE         YAML suite (default: testcases/default.yaml)\n"
         "  --out DIR            where results.json, junit.xml and report.md go (default: results)\n"
         "  --seed N             input seed (default: a fresh secret one each run)\n"
         "  --visibility V       public: only the public cases (what students may run); all (default)\n"
         "  --backend B          gpu, cpu, or auto (default: gpu when a CUDA device is present)\n"
         "  --student ID         name shown in the reports (default: the submission's name)\n"
         "  --gpu-lock FILE      share FILE (flock) with other graders of this GPU: timed work runs alone (set by grade batch)\n"
         "  --device-arch ARCH   the GPU's architecture (sm_90): compile while CUDA starts (set by grade batch)\n"
         "  --keep-work          keep the private work folder (for debugging the grader)\n"
         "  --quiet              no progress lines on stderr\n"
         "  --help               this text\n"
         "exit status: 0 graded (whatever the score), 2 usage or suite error, 3 internal error\n";
}

bool parse_cli(int argc, char** argv, CliOptions& o, std::string& error) {
  const std::vector<cli::Option> options = {
      cli::text_option("--suite", o.suite),
      cli::text_option("--out", o.out),
      {"--seed", true, [&](const std::string& v) { return cli::parse_seed("--seed", v, o.seed); }},
      {"--visibility", true, [&](const std::string& v) { return cli::parse_visibility("--visibility", v, o.public_only); }},
      {"--backend", true, [&](const std::string& v) { return cli::parse_backend("--backend", v, o.backend); }},
      cli::text_option("--student", o.student),
      cli::text_option("--gpu-lock", o.gpu_lock),
      {"--device-arch", true,
       [&](const std::string& v) {
         if (!std::regex_match(v, std::regex("sm_[0-9]{2,3}")))
           return "--device-arch: expected an architecture such as sm_90, got " + v;
         o.device_arch = v;
         return std::string();
       }},
      cli::flag_option("--keep-work", o.keep_work),
      cli::flag_option("--quiet", o.quiet),
  };
  if (!cli::parse_args(argc, argv, options, "submission", o.help, o.submission, error)) return false;
  if (!o.help && o.submission.empty()) {
    error = "no submission given";
    return false;
  }
  return true;
}

}  // namespace sg
