#include "batch/batch_run.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <set>

#include "report/class_files.h"
#include "batch/batch_files.h"
#include "batch/canvas_roster.h"
#include "batch/class_results.h"
#include "batch/content_hash.h"
#include "batch/gpu_inventory.h"
#include "batch/grade_pool.h"
#include "batch/journal.h"
#include "batch/lms_export.h"
#include "batch/merge_shards.h"
#include "batch/progress.h"
#include "batch/roster.h"
#include "batch/similarity.h"
#include "batch/slurm_plan.h"
#include "batch/unfinished_result.h"
#include "model/result_codec.h"
#include "services/limits.h"
#include "report/batch_writers.h"
#include "report/score_line.h"
#include "report/writers.h"
#include "suite/suite_loader.h"
#include "words/batch_report.h"

extern char** environ;

namespace fs = std::filesystem;

namespace sg::batch {
namespace {

std::string absolute(const std::string& p) {
  std::error_code ec;
  const fs::path a = fs::weakly_canonical(fs::absolute(p), ec);
  return ec ? fs::absolute(p).lexically_normal().string() : a.string();
}

bool inside(const std::string& child, const std::string& parent) {
  const fs::path rel = fs::path(child).lexically_relative(parent);
  return !rel.empty() && *rel.begin() != "..";
}

// This process's environment, less `name` when given.
std::vector<std::string> environment_without(const std::string& name) {
  std::vector<std::string> env;
  const std::string prefix = name + "=";
  for (char** e = environ; e && *e; ++e)
    if (name.empty() || std::string(*e).rfind(prefix, 0) != 0) env.emplace_back(*e);
  return env;
}

// Options every grading (and every Slurm shard) gets.
std::vector<std::string> common_grade_options(const BatchOptions& o, const std::string& suite) {
  std::vector<std::string> a = {"--suite", suite, "--backend", backend_word(o.backend)};
  if (o.seed) a.insert(a.end(), {"--seed", std::to_string(*o.seed)});
  if (o.public_only) a.insert(a.end(), {"--visibility", "public"});
  return a;
}

int write_slurm_plan(const BatchOptions& o, const std::string& grade_program, const std::string& subs,
                     const std::string& out, const std::string& suite, std::FILE* log) {
  SlurmPlan p;
  p.grade_program = absolute(grade_program);
  p.submissions = subs;
  p.out = out;
  p.shards = o.slurm_shards;
  p.forwarded = common_grade_options(o, suite);
  if (o.time_limit_s > 0) p.forwarded.insert(p.forwarded.end(), {"--time-limit", std::to_string(o.time_limit_s)});
  if (o.jobs > 0) p.forwarded.insert(p.forwarded.end(), {"--jobs", std::to_string(o.jobs)});
  if (!o.title.empty()) p.forwarded.insert(p.forwarded.end(), {"--title", o.title});
  p.sbatch_lines = o.sbatch_lines;
  p.request_gpu = o.backend != BackendKind::Cpu;
  std::error_code ec;
  fs::create_directories(fs::path(out) / class_files::kShards, ec);  // Slurm opens the task logs there
  if (ec) {
    std::fprintf(log, "grade batch: cannot create %s/shards: %s\n", out.c_str(), ec.message().c_str());
    return 2;
  }
  const std::string script = out + "/" + class_files::kSlurmScript;
  write_file_atomically(script, sbatch_script(p));
  fs::permissions(script, fs::perms::owner_exec, fs::perm_options::add, ec);
  const std::string merge = shell_quote(p.grade_program) + " batch --merge " + shell_quote(out) + canvas_options(o);
  std::fprintf(log, "grade batch: %s\n", slurm_script_written(script, p.shards, shell_quote(script), merge).c_str());
  return 0;
}

struct Pending {
  Submission sub;
  std::string hash;
  std::string dir;  // report folder, absolute
};

class BatchRun {
 public:
  BatchRun(const BatchOptions& o, std::string grade_program, std::FILE* log)
      : o_(o), grade_(std::move(grade_program)), log_(log) {}
  int run();

 private:
  int grade_all(std::vector<Pending>& todo);
  void start(GradePool& pool, std::size_t index, int slot);
  JournalEntry record_missing(const Pending& p);
  bool record(const JournalEntry& e);
  JournalEntry finish(const FinishedJob& f);
  void write_gradebook(const std::vector<Submission>& roster);

  const BatchOptions& o_;
  std::string grade_;
  std::FILE* log_;
  std::string out_;  // this run's folder (DIR, or DIR/shards/i)
  std::string journal_;
  Suite suite_;
  BatchSettings settings_;
  double time_limit_s_ = 0;
  std::vector<int> gpus_;  // empty: CPU mode
  std::map<int, std::string> gpu_arch_;  // "sm_90" per GPU in gpus_, when it could be read
  std::vector<Pending> todo_;
  std::optional<CanvasRoster> canvas_roster_;  // --roster
  std::map<std::string, std::string> hash_now_;  // each student's submission_hash at the start
  std::map<std::size_t, int> slot_of_;
  std::unique_ptr<Progress> progress_;
};

int BatchRun::run() {
  const std::string subs = absolute(o_.submissions);
  const std::string top = absolute(o_.out);
  if (inside(top, subs) || top == subs || inside(subs, top)) {
    std::fprintf(log_, "grade batch: --out %s and the submissions folder %s must not contain each other\n",
                 top.c_str(), subs.c_str());
    return 2;
  }
  std::string suite_path = o_.suite;
  if (suite_path.empty()) suite_path = (fs::path(absolute(grade_)).parent_path() / ".." / "testcases/default.yaml").string();
  suite_path = absolute(suite_path);
  try {
    suite_ = load_suite_file(suite_path);
  } catch (const SuiteError& e) {
    std::fprintf(log_, "grade batch: suite error: %s\n", e.what());
    return 2;
  }
  std::vector<Submission> roster;
  try {
    roster = discover_submissions(subs);
  } catch (const RosterError& e) {
    std::fprintf(log_, "grade batch: %s\n", e.what());
    return 2;
  }
  // A roster that cannot be used stops the batch before anything is graded.
  if (!o_.roster.empty()) {
    try {
      canvas_roster_ = read_canvas_roster(o_.roster);
    } catch (const CanvasRosterError& e) {
      std::fprintf(log_, "grade batch: %s\n", e.what());
      return 2;
    }
  }
  if (o_.slurm_shards > 0) return write_slurm_plan(o_, grade_, subs, top, suite_path, log_);
  if (o_.shard_count > 0) {
    roster = shard_slice(roster, o_.shard_index, o_.shard_count);
    out_ = top + "/shards/" + std::to_string(o_.shard_index);
  } else {
    out_ = top;
  }
  if (roster.empty() && o_.shard_count == 0) {
    std::fprintf(log_, "grade batch: no submissions found in %s (expected one sub-folder or <id>.cu per student)\n",
                 subs.c_str());
    return 2;
  }

  std::error_code ec;
  fs::create_directories(out_, ec);
  if (ec) {
    std::fprintf(log_, "grade batch: cannot create %s: %s\n", out_.c_str(), ec.message().c_str());
    return 2;
  }
  std::string lock_error;
  BatchLock lock(out_, lock_error);
  if (!lock_error.empty()) {
    std::fprintf(log_, "grade batch: %s\n", lock_error.c_str());
    return 2;
  }
  journal_ = out_ + "/" + class_files::kJournal;
  if (!o_.only.empty()) {
    // --only: a regrade of named students inside an existing batch.
    if (!fs::exists(journal_)) {
      std::fprintf(log_, "grade batch: --only regrades students of an existing batch, and %s holds none\n",
                   out_.c_str());
      return 2;
    }
    for (const auto& id : o_.only)
      if (std::none_of(roster.begin(), roster.end(), [&](const Submission& s) { return s.id == id; })) {
        std::fprintf(log_, "grade batch: --only: no student '%s' in %s\n", id.c_str(), subs.c_str());
        return 2;
      }
  }
  if (fs::exists(journal_) && !o_.resume && !o_.regrade && o_.only.empty()) {
    std::fprintf(log_,
                 "grade batch: %s already holds a batch (%s); nothing was changed.\n"
                 "  --resume   grade only what is unfinished or changed since\n"
                 "  --regrade  grade everything again\n",
                 out_.c_str(), journal_.c_str());
    return 2;
  }

  // Devices: GPU mode runs several workers per GPU sharing that GPU's lock.
  if (o_.backend != BackendKind::Cpu) {
    std::string error;
    gpus_ = choose_gpus(o_.gpus, visible_gpu_count(), error);
    if (!error.empty()) {
      std::fprintf(log_, "grade batch: %s\n", error.c_str());
      return 2;
    }
    if (gpus_.empty() && o_.backend == BackendKind::Gpu) {
      std::fprintf(log_, "grade batch: --backend gpu, but no CUDA device is visible\n");
      return 2;
    }
    for (int g : gpus_) gpu_arch_[g] = gpu_arch(g);
  }
  // The backend in use, "auto" resolved, so that students without a result
  // get the same tests and maximum as those graded.
  const BackendKind backend = o_.backend ? *o_.backend : gpus_.empty() ? BackendKind::Cpu : BackendKind::Gpu;
  settings_ = {subs, suite_path, backend, o_.public_only,
               o_.shard_count ? std::to_string(o_.shard_index) + "/" + std::to_string(o_.shard_count) : ""};
  // The gradings share a GPU lock exactly when there are GPUs (--gpu-lock).
  time_limit_s_ = o_.time_limit_s > 0 ? o_.time_limit_s : batch_time_limit_s(suite_, !gpus_.empty());

  try {
    write_file_atomically(out_ + "/" + class_files::kSettings, settings_json(settings_));
    repair_tail(journal_);
  } catch (const std::exception& e) {
    std::fprintf(log_, "grade batch: internal error: %s\n", e.what());
    return 3;
  }
  std::vector<std::string> warnings;
  const auto latest = latest_by_student(read_journal(journal_, warnings));
  for (const auto& w : warnings) std::fprintf(log_, "grade batch: warning: %s\n", w.c_str());

  std::size_t kept = 0;
  for (const auto& s : roster) {
    Pending p{s, "", out_ + "/" + report_folder(s.id)};
    try {
      p.hash = submission_hash(s.path);
    } catch (const std::exception& e) {
      p.hash = "unreadable";  // grade will say what is wrong with it
    }
    hash_now_[s.id] = p.hash;
    const auto it = latest.find(s.id);
    const bool named = std::find(o_.only.begin(), o_.only.end(), s.id) != o_.only.end();
    if (!o_.only.empty() && !named) {
      ++kept;  // --only: everyone else keeps their result and journal lines
      continue;
    }
    if (!o_.regrade && !named && it != latest.end()) {
      const bool same = it->second.hash == p.hash;
      const bool have_results = fs::exists(p.dir + "/" + kResultFile);
      if (same && have_results) {
        ++kept;
        continue;
      }
      if (!o_.quiet)
        std::fprintf(log_, "grade batch: %s\n", grading_again(s.id, !same).c_str());
    }
    todo_.push_back(std::move(p));
  }
  if (!o_.quiet) {
    std::fprintf(log_, "grade batch: %s\n",
                 batch_plan(roster.size(), subs, o_.shard_count ? settings_.shard : "", todo_.size(), kept).c_str());
    std::fprintf(log_, "grade batch: %s\n", gpus_in_use(gpus_.size()).c_str());
  }
  const int rc = grade_all(todo_);
  if (rc != 0) return rc;
  try {
    write_gradebook(roster);
  } catch (const std::exception& e) {
    std::fprintf(log_, "grade batch: internal error writing the gradebook: %s\n", e.what());
    return 3;
  }
  return 0;
}

int BatchRun::grade_all(std::vector<Pending>& todo) {
  if (todo.empty()) return 0;
  int jobs = o_.jobs;
  if (jobs <= 0) {
    const long cpus = ::sysconf(_SC_NPROCESSORS_ONLN);
    // Per GPU: one process timing (exclusive lock), others running untimed
    // cases or compiling; bounded by the CPUs that compile.
    jobs = gpus_.empty() ? static_cast<int>(std::max(1L, cpus))
                         : std::min(kGradesPerGpu * static_cast<int>(gpus_.size()), static_cast<int>(std::max(2L, cpus)));
  }
  if (!gpus_.empty()) {
    std::error_code ec;
    fs::create_directories(out_ + "/" + class_files::kLocks, ec);
  }
  progress_ = std::make_unique<Progress>(log_, todo.size(), ::isatty(::fileno(log_)) == 1, o_.quiet);
  GradePool pool;
  std::set<int> free_slots;
  for (int s = 0; s < jobs; ++s) free_slots.insert(s);
  std::size_t next = 0;
  while (next < todo.size() || pool.running() > 0) {
    while (next < todo.size() && !free_slots.empty()) {
      const std::size_t index = next++;
      if (!fs::exists(fs::symlink_status(todo[index].sub.path))) {
        // Listed (in submission_metadata.yml) but absent: nothing to run.
        if (!record(record_missing(todo[index]))) return 3;
        continue;
      }
      const int slot = *free_slots.begin();
      free_slots.erase(free_slots.begin());
      start(pool, index, slot);
    }
    for (const FinishedJob& f : pool.wait(1.0)) {
      free_slots.insert(slot_of_[f.index]);
      JournalEntry e;
      try {
        e = finish(f);
      } catch (const std::exception& ex) {
        e.student = todo[f.index].sub.id;
        e.folder = report_folder(e.student);
        e.hash = todo[f.index].hash;
        e.status = "internal error";
        e.detail = ex.what();
        e.finished_at = utc_now();
      }
      if (!record(e)) return 3;
    }
    progress_->tick();
  }
  progress_->close();
  return 0;
}

bool BatchRun::record(const JournalEntry& e) {
  try {
    append_entry(journal_, e);
  } catch (const std::exception& ex) {
    // Without the journal the batch would lose work silently: stop here.
    progress_->close();
    std::fprintf(log_, "grade batch: internal error: %s\n", ex.what());
    return false;
  }
  progress_->finished(e.student, e.status, e.score, e.max, e.seconds, !is_synthesised_state(e.status));
  return true;
}

JournalEntry BatchRun::record_missing(const Pending& p) {
  JournalEntry e;
  e.student = p.sub.id;
  e.folder = report_folder(p.sub.id);
  e.submission = p.sub.path;
  e.hash = p.hash;
  e.finished_at = utc_now();
  e.status = to_string(GradeState::InvalidSubmission);
  e.detail = missing_submission(p.sub.path);
  GradeResult r = unfinished_result(&suite_, o_.public_only, p.sub.id, p.sub.path, settings_.backend,
                                    GradeState::InvalidSubmission, e.detail);
  e.max = r.max_score();
  std::error_code ec;
  fs::remove_all(p.dir, ec);
  try {
    write_reports(r, p.dir);
  } catch (const std::exception& ex) {
    progress_->note(p.sub.id + ": " + ex.what());
  }
  return e;
}

void BatchRun::start(GradePool& pool, std::size_t index, int slot) {
  const Pending& p = todo_[index];
  slot_of_[index] = slot;
  // Results of an earlier attempt must not be mistaken for this one's.
  std::error_code ec;
  fs::remove_all(p.dir, ec);
  fs::create_directories(p.dir, ec);
  GradeJob job;
  job.index = index;
  job.slot = slot;
  job.worker = {grade_, "worker"};
  job.log_file = p.dir + "/grade.log";
  job.time_limit_s = time_limit_s_;
  // Not --quiet: grade.log keeps the time-stamped steps (where a slow or
  // crashed grading was), and its last line goes into the journal.
  job.args = {"--student", p.sub.id, "--out", p.dir};
  for (const auto& a : common_grade_options(o_, settings_.suite)) job.args.push_back(a);
  if (gpus_.empty()) {
    job.env = environment_without("");
  } else {
    // A slot's worker keeps one GPU: the same environment for all its gradings.
    const int gpu = gpus_[static_cast<std::size_t>(slot) % gpus_.size()];
    const char* parent = std::getenv("CUDA_VISIBLE_DEVICES");
    job.env = environment_without("CUDA_VISIBLE_DEVICES");
    job.env.push_back("CUDA_VISIBLE_DEVICES=" + child_visible_devices(gpu, parent));
    job.args.insert(job.args.end(), {"--gpu-lock", out_ + "/" + class_files::kLocks + "/gpu" + std::to_string(gpu) + ".lock"});
    if (!gpu_arch_[gpu].empty()) job.args.insert(job.args.end(), {"--device-arch", gpu_arch_[gpu]});
  }
  job.args.push_back(p.sub.path);
  pool.start(job);
}

JournalEntry BatchRun::finish(const FinishedJob& f) {
  const Pending& p = todo_[f.index];
  JournalEntry e;
  e.student = p.sub.id;
  e.folder = report_folder(p.sub.id);
  e.submission = p.sub.path;
  e.hash = p.hash;
  e.seconds = f.seconds;
  e.finished_at = utc_now();
  std::string why;
  if (!f.timed_out && f.exited && f.code == 0) {
    try {
      const GradeResult r = read_result_file(p.dir);
      e.status = to_string(r.state);
      e.score = r.score();
      e.max = r.max_score();
      return e;
    } catch (const std::exception& ex) {
      why = unusable_results(ex.what());
    }
  } else {
    why = f.describe();
  }
  if (!f.timed_out) why = with_last_message(why, last_line_of(p.dir + "/grade.log"));
  e.status = to_string(f.timed_out ? GradeState::Timeout : GradeState::InternalError);
  e.detail = why;
  const GradeResult r = unfinished_result(&suite_, o_.public_only, p.sub.id, p.sub.path, settings_.backend,
                                          f.timed_out ? GradeState::Timeout : GradeState::InternalError, why);
  e.max = r.max_score();
  try {
    write_reports(r, p.dir);  // so the student's folder says what happened
  } catch (const std::exception& ex) {
    progress_->note(p.sub.id + ": " + ex.what());
  }
  return e;
}

void BatchRun::write_gradebook(const std::vector<Submission>& roster) {
  std::vector<std::string> warnings;
  const auto latest = latest_by_student(read_journal(journal_, warnings));
  std::vector<ClassMember> members;
  for (const auto& s : roster) members.push_back({s.id, s.path});
  std::vector<std::string> notes;
  const std::vector<GradeResult> results = class_results(out_, members, latest, &suite_, settings_, notes);
  for (const auto& n : notes) std::fprintf(log_, "grade batch: warning: %s\n", n.c_str());
  const std::string title = o_.title.empty() ? "Tiled SGEMM: suite " + suite_.name : o_.title;
  // Similar submissions: the kernels as graded, so only where the files are still those the grading saw.
  std::vector<ClassMemberSource> compared;
  for (const auto& sub : roster) {
    const auto it = latest.find(sub.id);
    compared.push_back({sub.id, sub.path,
                        it == latest.end()                   ? "not graded"
                        : it->second.hash != hash_now_[sub.id] ? "its files changed since it was graded"
                                                               : ""});
  }
  const ClassSimilarity similar =
      compare_class(compared, (fs::path(absolute(grade_)).parent_path() / ".." / "student" / "kernel.cu").string());
  write_file_atomically(out_ + "/" + class_files::kSimilarity, similarity_csv(similar.pairs));
  const CanvasSettings canvas = canvas_settings(o_, &suite_, settings_.backend.value_or(BackendKind::Cpu), title,
                                                canvas_roster_ ? &*canvas_roster_ : nullptr);
  const std::string lms =
      write_lms_exports(out_, roster, results, o_.export_canvas ? &canvas : nullptr, log_, "grade batch");
  write_batch_reports(results, out_, title, similarity_html(similar.pairs, similar.left_out) + lms);
  if (o_.quiet) return;
  std::size_t graded = 0;
  for (const auto& r : results) graded += r.state == GradeState::Graded;
  std::fprintf(log_, "grade batch: %s\n", report::class_score_line(results).c_str());
  std::fprintf(log_, "grade batch: %s\n", batch_written(graded, results.size(), out_).c_str());
}

}  // namespace

int run_batch(const BatchOptions& opts, const std::string& grade_program, std::FILE* log) {
  if (opts.merge) return merge_shards(absolute(opts.out), opts, log);
  try {
    BatchRun run(opts, grade_program, log);
    return run.run();
  } catch (const std::exception& e) {
    std::fprintf(log, "grade batch: internal error: %s\n", e.what());
    return 3;
  }
}

}  // namespace sg::batch
