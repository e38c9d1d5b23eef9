// Similar submissions in a class: identical kernels (same SHA-256 of
// kernel.cu) and near-identical ones (winnowing, as MOSS does, over tokens with
// comments and whitespace gone and identifiers normalised, so renaming
// variables or reformatting does not hide a copy). What the handout's skeleton
// already contains is left out of the comparison.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace sg::batch {

// The token stream of C/CUDA source: comments and whitespace dropped; keywords,
// CUDA names and punctuation kept as written; other identifiers become "id",
// numbers "num", string and character literals "str".
std::vector<std::string> normalised_tokens(const std::string& source);

struct SimilarPair {
  std::string a, b;      // student ids, a < b
  bool identical = false;
  double similarity = 0;  // shared fingerprints over the smaller set's (1 when identical)
};

// One submission as the comparison holds it, without its text: the SHA-256
// of the text and its winnowing fingerprints (hashes of every 5 consecutive
// tokens, the smallest of each window of 4 kept) less the skeleton's, sorted.
struct Fingerprint {
  std::string student;
  std::string sha256;                  // "" when there was no text
  std::vector<std::uint64_t> prints;
};

// The winnowing fingerprints of `source`, sorted and unique, less those in
// `skeleton` (sorted); the token stream is hashed as it is read.
std::vector<std::uint64_t> fingerprints(const std::string& source, const std::vector<std::uint64_t>& skeleton = {});
Fingerprint fingerprint(const std::string& student, const std::string& source,
                        const std::vector<std::uint64_t>& skeleton);

// Pairs that are identical, or share at least `threshold` of their
// fingerprints; most similar first.
std::vector<SimilarPair> similar_pairs(const std::vector<Fingerprint>& class_prints, double threshold = 0.8);

struct SourceOf {
  std::string student;
  std::string source;  // kernel.cu's text ("" when none was graded)
};

// The same over texts, the skeleton's fingerprints removed from each.
std::vector<SimilarPair> similar_pairs(const std::vector<SourceOf>& class_sources, const std::string& skeleton,
                                       double threshold = 0.8);

// The text of the kernel.cu that the grading of `submission_path` graded:
// the one file locate_submission finds there (no hidden folders, no
// __MACOSX, no links, exactly one, at most kMaxSourceBytes), read without
// following a link and never past that cap; "" when it graded none. The
// roster's own entry (the TA's) is resolved first, as the grading does.
std::string kernel_source(const std::string& submission_path);

// A student the comparison left out, and why.
struct NotCompared {
  std::string student, why;
};

struct ClassMemberSource {
  std::string student;
  std::string submission;  // the roster's path
  std::string left_out;    // why it is not compared (e.g. changed since graded); "" to compare it
};

struct ClassSimilarity {
  std::vector<SimilarPair> pairs;
  std::vector<NotCompared> left_out;
};

// The class's pairs: each member's graded kernel (kernel_source), one text
// held at a time; `skeleton_file` is the handout's kernel.cu.
ClassSimilarity compare_class(const std::vector<ClassMemberSource>& members, const std::string& skeleton_file);

// similarity.csv: kind,student_a,student_b,similarity.
std::string similarity_csv(const std::vector<SimilarPair>& pairs);
// The summary page's section (HTML): what was compared, the note on the
// skeleton, the pairs, and who was left out.
std::string similarity_html(const std::vector<SimilarPair>& pairs, const std::vector<NotCompared>& left_out = {});

}  // namespace sg::batch
