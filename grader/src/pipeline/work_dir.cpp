#include "pipeline/work_dir.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <stdexcept>

namespace fs = std::filesystem;

namespace sg {

WorkDir::WorkDir(const std::string& root, bool keep) : keep_(keep) {
  std::string base = root;
  if (base.empty()) base = std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp";
  std::string tmpl = base + "/sgemm-grade-XXXXXX";
  if (!::mkdtemp(tmpl.data())) throw std::runtime_error("cannot create a work folder under " + base);
  path_ = tmpl;
  ::chmod(path_.c_str(), 0711);  // the unprivileged runner may enter, not list
  for (const char* s : {"build", "logs", "scratch"}) fs::create_directories(path_ + "/" + s);
  ::chmod((path_ + "/build").c_str(), 0755);
  ::chmod((path_ + "/logs").c_str(), 0700);
  // The runner's only writable place; given to the runner user when privileges are dropped.
  ::chmod((path_ + "/scratch").c_str(), 0777);
}

WorkDir::~WorkDir() {
  if (keep_) return;
  std::error_code ec;
  fs::remove_all(path_, ec);
}

}  // namespace sg
