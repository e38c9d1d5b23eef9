// Similar submissions in a class: identical kernels (same SHA-256 of
// kernel.cu) and near-identical ones (winnowing, as MOSS does, over tokens with
// comments and whitespace gone and identifiers normalised, so renaming
// variables or reformatting does not hide a copy). What the handout's skeleton
// already contains is left out of the comparison.
#pragma once
#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace sg::batch {

// The token stream of C/CUDA source: comments and whitespace dropped; keywords,
// CUDA names and punctuation kept as written; other identifiers become "id",
// numbers "num", string and character literals "str".
std::vector<std::string> normalised_tokens(const std::string& source);

// Winnowing fingerprints: hashes of every k consecutive tokens, keeping the
// smallest of each window of w hashes.
std::set<std::uint64_t> fingerprints(const std::vector<std::string>& tokens, std::size_t k = 5, std::size_t w = 4);

struct SimilarPair {
  std::string a, b;      // student ids, a < b
  bool identical = false;
  double similarity = 0;  // shared fingerprints over the smaller set's (1 when identical)
};

struct SourceOf {
  std::string student;
  std::string source;  // kernel.cu's text ("" when none was found)
};

// Pairs that are identical, or share at least `threshold` of their
// fingerprints once the skeleton's are removed; most similar first.
std::vector<SimilarPair> similar_pairs(const std::vector<SourceOf>& class_sources, const std::string& skeleton,
                                       double threshold = 0.8);

// The kernel.cu of a submission (the file itself, or the first kernel.cu below
// a folder, .git skipped); "" when there is none.
std::string kernel_source(const std::string& submission_path);

// similarity.csv: kind,student_a,student_b,similarity.
std::string similarity_csv(const std::vector<SimilarPair>& pairs);
// The summary page's section (HTML), with the note on the skeleton.
std::string similarity_html(const std::vector<SimilarPair>& pairs);

}  // namespace sg::batch
