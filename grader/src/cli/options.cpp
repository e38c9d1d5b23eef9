#include "cli/options.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <regex>

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
  auto value = [&](int& i, const char* flag) -> const char* {
    if (i + 1 >= argc) {
      error = std::string(flag) + " needs a value";
      return nullptr;
    }
    return argv[++i];
  };
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const char* v = nullptr;
    if (a == "--help" || a == "-h") {
      o.help = true;
    } else if (a == "--suite") {
      if (!(v = value(i, "--suite"))) return false;
      o.suite = v;
    } else if (a == "--out") {
      if (!(v = value(i, "--out"))) return false;
      o.out = v;
    } else if (a == "--seed") {
      if (!(v = value(i, "--seed"))) return false;
      char* end = nullptr;
      errno = 0;
      unsigned long long s = std::strtoull(v, &end, 10);
      if (errno || !*v || *end || v[0] == '-') {
        error = std::string("--seed: not a non-negative integer: ") + v;
        return false;
      }
      o.seed = s;
    } else if (a == "--visibility") {
      if (!(v = value(i, "--visibility"))) return false;
      if (std::strcmp(v, "public") && std::strcmp(v, "all")) {
        error = std::string("--visibility: expected public or all, got ") + v;
        return false;
      }
      o.public_only = std::strcmp(v, "public") == 0;
    } else if (a == "--backend") {
      if (!(v = value(i, "--backend"))) return false;
      if (std::strcmp(v, "gpu") && std::strcmp(v, "cpu") && std::strcmp(v, "auto")) {
        error = std::string("--backend: expected gpu, cpu or auto, got ") + v;
        return false;
      }
      o.backend = v;
    } else if (a == "--student") {
      if (!(v = value(i, "--student"))) return false;
      o.student = v;
    } else if (a == "--gpu-lock") {
      if (!(v = value(i, "--gpu-lock"))) return false;
      o.gpu_lock = v;
    } else if (a == "--device-arch") {
      if (!(v = value(i, "--device-arch"))) return false;
      if (!std::regex_match(v, std::regex("sm_[0-9]{2,3}"))) {
        error = std::string("--device-arch: expected an architecture such as sm_90, got ") + v;
        return false;
      }
      o.device_arch = v;
    } else if (a == "--keep-work") {
      o.keep_work = true;
    } else if (a == "--quiet") {
      o.quiet = true;
    } else if (a.size() > 1 && a[0] == '-') {
      error = "unknown option " + a;
      return false;
    } else if (o.submission.empty()) {
      o.submission = a;
    } else {
      error = "more than one submission given (" + o.submission + ", " + a + ")";
      return false;
    }
  }
  if (!o.help && o.submission.empty()) {
    error = "no submission given";
    return false;
  }
  return true;
}

}  // namespace sg
