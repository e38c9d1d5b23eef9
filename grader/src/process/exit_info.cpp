// Human-readable account of how a child ended, for verdicts and reports.
#include <signal.h>

#include <cctype>
#include <cstring>
#include <string>

#include "process/process.h"

namespace sg {

namespace {

// "SEGV" for SIGSEGV; null for numbers without a name.
const char* signal_abbreviation(int sig) {
#if defined(__GLIBC__) && __GLIBC_PREREQ(2, 32)
  return sigabbrev_np(sig);
#else
  // Older C libraries: the signals a runner realistically dies of.
  switch (sig) {
    case SIGHUP: return "HUP";
    case SIGINT: return "INT";
    case SIGQUIT: return "QUIT";
    case SIGILL: return "ILL";
    case SIGTRAP: return "TRAP";
    case SIGABRT: return "ABRT";
    case SIGBUS: return "BUS";
    case SIGFPE: return "FPE";
    case SIGKILL: return "KILL";
    case SIGSEGV: return "SEGV";
    case SIGPIPE: return "PIPE";
    case SIGALRM: return "ALRM";
    case SIGTERM: return "TERM";
    case SIGXCPU: return "XCPU";
    case SIGXFSZ: return "XFSZ";
    case SIGSYS: return "SYS";
    default: return nullptr;
  }
#endif
}

}  // namespace

std::string ExitInfo::describe() const {
  if (timed_out) return "timed out";
  if (exited) return "exited with code " + std::to_string(code);
  if (signal == 0) return "still running";
  std::string text = "killed by signal " + std::to_string(signal);
  const char* abbrev = signal_abbreviation(signal);
  const char* meaning = strsignal(signal);    // "Segmentation fault"
  std::string detail;
  if (abbrev) detail = std::string("SIG") + abbrev;
  if (meaning && *meaning) {
    std::string lower = meaning;
    // "Segmentation fault" reads better mid-sentence as "segmentation fault";
    // keep names such as "CPU time limit exceeded" as they are.
    if (lower.size() > 1 && std::isupper(static_cast<unsigned char>(lower[0])) &&
        std::islower(static_cast<unsigned char>(lower[1])))
      lower[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(lower[0])));
    detail += (detail.empty() ? "" : ", ") + lower;
  }
  if (!detail.empty()) text += " (" + detail + ")";
  return text;
}

}  // namespace sg
