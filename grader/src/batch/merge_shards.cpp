#include "batch/merge_shards.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>

#include "report/class_files.h"
#include "batch/batch_files.h"
#include "batch/canvas_roster.h"
#include "batch/class_results.h"
#include "batch/journal.h"
#include "batch/lms_export.h"
#include "batch/roster.h"
#include "report/batch_writers.h"
#include "report/score_line.h"
#include "suite/suite_loader.h"
#include "words/batch_report.h"

namespace fs = std::filesystem;

namespace sg::batch {
namespace {

struct Found {
  JournalEntry entry;
  std::string shard_dir;
};

// DIR/shards/<number>/ folders, in numeric order.
std::vector<std::pair<int, std::string>> shard_dirs(const std::string& dir) {
  std::vector<std::pair<int, std::string>> out;
  std::error_code ec;
  for (fs::directory_iterator it(fs::path(dir) / class_files::kShards, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!it->is_directory() || name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    out.emplace_back(std::stoi(name), it->path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

int merge_shards(const std::string& dir, const BatchOptions& o, std::FILE* log) {
  const auto shards = shard_dirs(dir);
  if (shards.empty()) {
    std::fprintf(log, "grade batch --merge: no shard folders under %s/shards/ (run the shards first)\n", dir.c_str());
    return 2;
  }
  std::optional<CanvasRoster> canvas_roster;
  if (!o.roster.empty()) {
    try {
      canvas_roster = read_canvas_roster(o.roster);
    } catch (const CanvasRosterError& e) {
      std::fprintf(log, "grade batch --merge: %s\n", e.what());
      return 2;
    }
  }
  std::string lock_error;
  BatchLock lock(dir, lock_error);
  if (!lock_error.empty()) {
    std::fprintf(log, "grade batch --merge: %s\n", lock_error.c_str());
    return 2;
  }
  try {
    // The latest entry of each student over all shards (a student re-sharded
    // into another slice keeps whichever result finished last).
    std::map<std::string, Found> found;
    BatchSettings settings;
    bool have_settings = false;
    for (const auto& [index, sdir] : shards) {
      if (!have_settings) have_settings = read_settings(sdir + "/" + class_files::kSettings, settings);
      std::vector<std::string> warnings;
      for (const auto& [id, e] : latest_by_student(read_journal(sdir + "/" + class_files::kJournal, warnings))) {
        auto it = found.find(id);
        if (it == found.end() || it->second.entry.finished_at <= e.finished_at) found[id] = Found{e, sdir};
      }
      for (const auto& w : warnings) std::fprintf(log, "grade batch --merge: warning: %s\n", w.c_str());
    }

    // Copy each student's folder up to DIR so summary.html's links resolve there.
    std::string journal;
    for (auto& [id, f] : found) {
      f.entry.folder = report_folder(id);  // recomputed: never trust a path read from a file
      const fs::path from = fs::path(f.shard_dir) / f.entry.folder, to = fs::path(dir) / f.entry.folder;
      std::error_code ec;
      fs::remove_all(to, ec);
      if (fs::exists(from)) {
        fs::copy(from, to, fs::copy_options::recursive | fs::copy_options::overwrite_existing, ec);
        if (ec) throw std::runtime_error("cannot copy " + from.string() + " to " + to.string() + ": " + ec.message());
      }
      journal += entry_to_json_line(f.entry);
    }
    write_file_atomically(dir + "/" + class_files::kJournal, journal);
    if (have_settings) {
      settings.shard.clear();
      write_file_atomically(dir + "/" + class_files::kSettings, settings_json(settings));
    }

    std::unique_ptr<Suite> suite;
    if (have_settings && !settings.suite.empty()) {
      try {
        suite = std::make_unique<Suite>(load_suite_file(settings.suite));
      } catch (const std::exception& e) {
        std::fprintf(log, "grade batch --merge: warning: %s (unfinished students get one 'grading' test)\n", e.what());
      }
    }
    // Everyone in the class gets a row, also students no shard finished.
    std::vector<ClassMember> members;
    std::vector<std::string> missing;
    std::vector<Submission> submissions;  // the class, for members.csv and canvas.csv
    if (have_settings && fs::is_directory(settings.submissions)) {
      submissions = discover_submissions(settings.submissions);
      for (const auto& s : submissions) {
        members.push_back({s.id, s.path});
        if (!found.count(s.id)) missing.push_back(s.id);
      }
    }
    for (const auto& [id, f] : found)
      if (std::none_of(members.begin(), members.end(), [&](const ClassMember& m) { return m.student == id; })) {
        members.push_back({id, f.entry.submission});
        submissions.push_back(Submission{id, f.entry.submission, "", "", "folder", {}});
      }
    std::sort(members.begin(), members.end(),
              [](const ClassMember& a, const ClassMember& b) { return a.student < b.student; });
    std::map<std::string, JournalEntry> latest;
    for (const auto& [id, f] : found) latest[id] = f.entry;
    std::vector<std::string> notes;
    const auto results = class_results(dir, members, latest, suite.get(), settings, notes);
    for (const auto& n : notes) std::fprintf(log, "grade batch --merge: warning: %s\n", n.c_str());
    const std::string page_title =
        !o.title.empty() ? o.title : "Tiled SGEMM: suite " + (suite ? suite->name : std::string("?"));
    // canvas.csv's Points Possible comes from the suite, or from --points-possible.
    const bool canvas_known = o.export_canvas && (suite || o.points_possible);
    if (o.export_canvas && !canvas_known)
      std::fprintf(log, "grade batch --merge: warning: canvas.csv not written: the suite is unknown, and with it the "
                        "Points Possible (give --points-possible)\n");
    const CanvasSettings canvas = canvas_settings(o, suite.get(), settings.backend.value_or(BackendKind::Cpu),
                                                  page_title, canvas_roster ? &*canvas_roster : nullptr);
    const std::string lms =
        write_lms_exports(dir, submissions, results, canvas_known ? &canvas : nullptr, log, "grade batch --merge");
    write_batch_reports(results, dir, page_title, lms);
    std::fprintf(log, "grade batch --merge: %s\ngrade batch --merge: %s\n", report::class_score_line(results).c_str(),
                 merge_written(shards.size(), results.size(), dir).c_str());
    if (!missing.empty())
      std::fprintf(log, "grade batch --merge: warning: %s\n", students_without_result(missing).c_str());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(log, "grade batch --merge: internal error: %s\n", e.what());
    return 3;
  }
}

}  // namespace sg::batch
