#include "batch/roster.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "batch/gradescope_export.h"
#include "report/batch_writers.h"

namespace fs = std::filesystem;

namespace sg::batch {
namespace {

bool hidden(const fs::path& p) {
  const std::string n = p.filename().string();
  return n.empty() || n[0] == '.' || n == "__MACOSX";
}

std::vector<Submission> from_gradescope(const fs::path& dir, const fs::path& metadata) {
  std::ifstream in(metadata);
  if (!in) throw RosterError("cannot read " + metadata.string());
  std::stringstream text;
  text << in.rdbuf();
  std::vector<Submission> out;
  for (const auto& e : parse_submission_metadata(text.str(), metadata.string())) {
    Submission s;
    s.id = exported_student_id(e);
    s.path = (dir / e.folder).string();
    s.layout = "gradescope";
    s.members = e.submitters;
    if (!e.submitters.empty()) {
      s.name = e.submitters.front().name;
      s.email = e.submitters.front().email;
      for (std::size_t i = 1; i < e.submitters.size(); ++i) s.name += ", " + e.submitters[i].name;
    }
    // A listed folder that is missing still gets a row: `grade` reports it as
    // an invalid submission rather than the student silently vanishing.
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<Submission> from_folders(const fs::path& dir) {
  std::vector<Submission> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::path p = it->path();
    if (hidden(p)) continue;
    Submission s;
    s.path = p.string();
    if (it->is_directory()) {
      s.id = p.filename().string();
      s.layout = fs::exists(p / ".git") ? "git" : "folder";
    } else if (it->is_regular_file() && p.extension() == ".cu") {
      s.id = p.stem().string();
      s.layout = "file";
    } else {
      continue;  // notes, archives, CSVs lying next to the submissions
    }
    out.push_back(std::move(s));
  }
  if (ec) throw RosterError("cannot list submissions folder " + dir.string() + ": " + ec.message());
  return out;
}

void check_unique(const std::vector<Submission>& subs) {
  std::map<std::string, const Submission*> folders;
  for (std::size_t i = 0; i < subs.size(); ++i) {
    if (i > 0 && subs[i].id == subs[i - 1].id)
      throw RosterError("two submissions have the student id '" + subs[i].id + "': " + subs[i - 1].path +
                        " and " + subs[i].path);
    const std::string folder = report_folder(subs[i].id);
    auto [it, fresh] = folders.emplace(folder, &subs[i]);
    if (!fresh)
      throw RosterError("student ids '" + it->second->id + "' and '" + subs[i].id +
                        "' would share the report folder '" + folder + "'; rename one of " +
                        it->second->path + " or " + subs[i].path);
  }
}

}  // namespace

std::vector<Submission> discover_submissions(const std::string& dir) {
  const fs::path root(dir);
  std::error_code ec;
  if (!fs::is_directory(root, ec)) throw RosterError("submissions folder " + dir + " is not a folder");
  const fs::path metadata = root / "submission_metadata.yml";
  std::vector<Submission> subs = fs::exists(metadata) ? from_gradescope(root, metadata) : from_folders(root);
  std::sort(subs.begin(), subs.end(), [](const Submission& a, const Submission& b) { return a.id < b.id; });
  check_unique(subs);
  return subs;
}

std::vector<Submission> shard_slice(const std::vector<Submission>& all, int index, int count) {
  if (count <= 0 || index < 0 || index >= count) return {};
  const std::size_t n = all.size();
  const std::size_t begin = n * static_cast<std::size_t>(index) / static_cast<std::size_t>(count);
  const std::size_t end = n * static_cast<std::size_t>(index + 1) / static_cast<std::size_t>(count);
  return std::vector<Submission>(all.begin() + static_cast<std::ptrdiff_t>(begin),
                                 all.begin() + static_cast<std::ptrdiff_t>(end));
}

}  // namespace sg::batch
