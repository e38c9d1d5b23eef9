// The batch journal (<out>/journal.jsonl): one JSON line appended and fsynced
// as each submission finishes, so that a batch killed at any moment loses at
// most the submissions that were still being graded.
#pragma once
#include <map>
#include <string>
#include <vector>

namespace sg::batch {

struct JournalEntry {
  std::string student;      // id
  std::string folder;       // report folder, relative to the journal's folder
  std::string submission;   // path graded
  std::string hash;         // content hash of the submission (content_hash.h)
  std::string status;       // the grade result's state ("graded", "compile error", ...), or "timeout" / "internal error"
  double score = 0, max = 0;
  double seconds = 0;       // wall time of the grade process
  std::string finished_at;  // UTC, ISO 8601
  std::string detail;       // why, when the batch had to synthesise the result
};

std::string entry_to_json_line(const JournalEntry& e);  // one line, '\n' included
// False (with `error`) for a line that is not a journal entry.
bool entry_from_json_line(const std::string& line, JournalEntry& e, std::string& error);

// Appends one entry with a single write(2), then fsync(2)s it (and the folder
// when the file was just created). Throws std::runtime_error naming the path.
void append_entry(const std::string& path, const JournalEntry& e);

// Ends the file with a newline if a killed writer left half a line, so the next
// append starts a line of its own. No-op when the file is absent.
void repair_tail(const std::string& path);

// All readable entries in file order; lines that do not parse (a torn last line
// after kill -9) are skipped and described in `warnings` as "PATH:LINE: why".
std::vector<JournalEntry> read_journal(const std::string& path, std::vector<std::string>& warnings);

// The last entry of each student.
std::map<std::string, JournalEntry> latest_by_student(const std::vector<JournalEntry>& entries);

// Current UTC time as "2024-05-01T12:34:56Z".
std::string utc_now();

}  // namespace sg::batch
