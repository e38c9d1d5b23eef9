// The files and folders a batch writes at the top of its output folder, by
// name: every writer of a class output names its file from here, and
// report_folder (batch_writers.h) keeps every student's folder off each of
// them, so that no student id can become, or overwrite, a class output.
#pragma once

namespace sg::class_files {

inline constexpr const char* kJournal = "journal.jsonl";
inline constexpr const char* kSettings = "batch.json";
inline constexpr const char* kGradebook = "gradebook.csv";
inline constexpr const char* kSummary = "summary.html";
inline constexpr const char* kSimilarity = "similarity.csv";
inline constexpr const char* kMembers = "members.csv";
inline constexpr const char* kCanvas = "canvas.csv";
inline constexpr const char* kShards = "shards";
inline constexpr const char* kSlurmScript = "grade_batch.sbatch";
inline constexpr const char* kLocks = ".locks";          // (names starting with '.' are all kept off)
inline constexpr const char* kBatchLock = ".batch.lock";

inline constexpr const char* kAll[] = {kJournal, kSettings, kGradebook, kSummary,     kSimilarity, kMembers,
                                       kCanvas,  kShards,   kSlurmScript, kLocks, kBatchLock};

}  // namespace sg::class_files
