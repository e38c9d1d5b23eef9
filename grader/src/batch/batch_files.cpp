#include "batch/batch_files.h"

#include "batch/batch_options.h"
#include "report/class_files.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

namespace sg::batch {

std::string settings_json(const BatchSettings& s) {
  nlohmann::ordered_json j = {{"submissions", s.submissions},
                              {"suite", s.suite},
                              {"backend", backend_word(s.backend)},
                              {"visibility", s.public_only ? "public" : "all"},
                              {"shard", s.shard}};
  return j.dump(2) + "\n";
}

bool read_settings(const std::string& path, BatchSettings& s) {
  std::ifstream in(path);
  if (!in) return false;
  std::stringstream text;
  text << in.rdbuf();
  const auto j = nlohmann::json::parse(text.str(), nullptr, false);
  if (j.is_discarded() || !j.is_object()) return false;
  s.submissions = j.value("submissions", "");
  s.suite = j.value("suite", "");
  s.backend = parse_backend(j.value("backend", "auto"));
  s.public_only = j.value("visibility", "all") == "public";
  s.shard = j.value("shard", "");
  return true;
}

BatchLock::BatchLock(const std::string& dir, std::string& error) {
  const std::string path = dir + "/" + class_files::kBatchLock;
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    error = "cannot create " + path + ": " + std::strerror(errno);
    return;
  }
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    error = errno == EWOULDBLOCK ? "another batch is running on " + dir + " (it holds " + path + ")"
                                 : "cannot lock " + path + ": " + std::strerror(errno);
    ::close(fd_);
    fd_ = -1;
    return;
  }
  error.clear();
}

BatchLock::~BatchLock() {
  if (fd_ >= 0) ::close(fd_);  // closing releases the flock
}

std::string last_line_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "";
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  const std::streamoff take = std::min<std::streamoff>(size, 300);
  in.seekg(size - take);
  std::string tail(static_cast<std::size_t>(take), '\0');
  in.read(&tail[0], take);
  while (!tail.empty() && (tail.back() == '\n' || tail.back() == '\r' || tail.back() == ' ')) tail.pop_back();
  const std::size_t nl = tail.find_last_of('\n');
  return nl == std::string::npos ? tail : tail.substr(nl + 1);
}

}  // namespace sg::batch
