#include "batch/journal.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace sg::batch {
namespace {

using Json = nlohmann::ordered_json;

std::string sys_error(const std::string& what, const std::string& path) {
  return what + " " + path + ": " + std::strerror(errno);
}

void fsync_folder(const std::string& file) {
  std::string dir = std::filesystem::path(file).parent_path().string();
  if (dir.empty()) dir = ".";
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;  // best effort: the entry itself is already on disk
  ::fsync(fd);
  ::close(fd);
}

}  // namespace

std::string entry_to_json_line(const JournalEntry& e) {
  Json j = {{"student", e.student}, {"folder", e.folder},   {"submission", e.submission},
            {"hash", e.hash},       {"status", e.status},   {"score", e.score},
            {"max", e.max},         {"seconds", e.seconds}, {"finished_at", e.finished_at}};
  if (!e.detail.empty()) j["detail"] = e.detail;
  // dump() with no indent never emits a raw newline: each entry is one line.
  return j.dump(-1, ' ', false, Json::error_handler_t::replace) + "\n";
}

bool entry_from_json_line(const std::string& line, JournalEntry& e, std::string& error) {
  Json j = Json::parse(line, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    error = "not a JSON object (a line cut short when the batch was killed?)";
    return false;
  }
  try {
    e = JournalEntry{};
    e.student = j.at("student").get<std::string>();
    e.hash = j.at("hash").get<std::string>();
    e.status = j.at("status").get<std::string>();
    e.folder = j.value("folder", "");
    e.submission = j.value("submission", "");
    e.score = j.value("score", 0.0);
    e.max = j.value("max", 0.0);
    e.seconds = j.value("seconds", 0.0);
    e.finished_at = j.value("finished_at", "");
    e.detail = j.value("detail", "");
  } catch (const Json::exception& ex) {
    error = std::string("missing or mistyped field: ") + ex.what();
    return false;
  }
  if (e.student.empty()) {
    error = "empty student id";
    return false;
  }
  return true;
}

void append_entry(const std::string& path, const JournalEntry& e) {
  const std::string line = entry_to_json_line(e);
  struct stat st;
  const bool existed = ::stat(path.c_str(), &st) == 0;
  const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error(sys_error("cannot open journal", path));
  std::size_t done = 0;
  while (done < line.size()) {
    const ssize_t w = ::write(fd, line.data() + done, line.size() - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      const std::string msg = sys_error("cannot append to journal", path);
      ::close(fd);
      throw std::runtime_error(msg);
    }
    done += static_cast<std::size_t>(w);
  }
  if (::fsync(fd) != 0) {
    const std::string msg = sys_error("cannot fsync journal", path);
    ::close(fd);
    throw std::runtime_error(msg);
  }
  ::close(fd);
  if (!existed) fsync_folder(path);
}

void repair_tail(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return;
    throw std::runtime_error(sys_error("cannot open journal", path));
  }
  char last = '\n';
  const off_t size = ::lseek(fd, 0, SEEK_END);
  if (size > 0 && ::pread(fd, &last, 1, size - 1) == 1 && last != '\n') {
    if (::pwrite(fd, "\n", 1, size) != 1 || ::fsync(fd) != 0) {
      const std::string msg = sys_error("cannot repair journal", path);
      ::close(fd);
      throw std::runtime_error(msg);
    }
  }
  ::close(fd);
}

std::vector<JournalEntry> read_journal(const std::string& path, std::vector<std::string>& warnings) {
  std::vector<JournalEntry> out;
  std::ifstream in(path);
  if (!in) return out;
  std::string line, error;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    JournalEntry e;
    if (entry_from_json_line(line, e, error)) {
      out.push_back(std::move(e));
    } else {
      warnings.push_back(path + ":" + std::to_string(n) + ": skipped: " + error);
    }
  }
  return out;
}

std::map<std::string, JournalEntry> latest_by_student(const std::vector<JournalEntry>& entries) {
  std::map<std::string, JournalEntry> out;
  for (const auto& e : entries) out[e.student] = e;
  return out;
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace sg::batch
