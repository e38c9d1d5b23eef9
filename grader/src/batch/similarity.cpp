#include "batch/similarity.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <functional>
#include <set>
#include <string_view>

#include "batch/content_hash.h"
#include "report/feedback.h"
#include "report/text_clean.h"
#include "services/submission.h"

namespace sg::batch {
namespace {

namespace fs = std::filesystem;

constexpr std::size_t kGramTokens = 5;   // tokens hashed together
constexpr std::size_t kWindowGrams = 4;  // grams of which the smallest is kept

// Words that carry a kernel's structure: kept, so that only names are normalised.
const std::set<std::string, std::less<>>& kept_words() {
  static const std::set<std::string, std::less<>> words = {
      "auto", "bool", "break", "case", "char", "const", "constexpr", "continue", "default", "define", "do", "double",
      "else", "enum", "extern", "float", "for", "if", "include", "inline", "int", "long", "return", "short",
      "signed", "sizeof", "static", "struct", "switch", "template", "typedef", "unsigned", "void", "volatile",
      "while", "size_t", "dim3", "__global__", "__device__", "__host__", "__shared__", "__syncthreads",
      "__restrict__", "threadIdx", "blockIdx", "blockDim", "gridDim", "x", "y", "z", "TILE_SIZE", "mysgemm",
      "basicSgemm", "min", "max", "fminf", "fmaxf", "fmaf"};
  return words;
}

bool word_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

std::uint64_t fnv1a(std::string_view s, std::uint64_t h) {
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

// Calls emit(token) for each token of `src` in order; a token is a view into
// `src` or one of the literals "id", "num", "str", so nothing is copied.
template <typename Emit>
void for_each_token(const std::string& src, Emit emit) {
  std::size_t i = 0;
  const std::size_t n = src.size();
  const std::string_view all(src);
  while (i < n) {
    const char c = src[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (c == '/' && i + 1 < n && src[i + 1] == '/') {
      while (i < n && src[i] != '\n') ++i;
    } else if (c == '/' && i + 1 < n && src[i + 1] == '*') {
      const std::size_t end = src.find("*/", i + 2);
      i = end == std::string::npos ? n : end + 2;
    } else if (c == '"' || c == '\'') {
      std::size_t j = i + 1;
      while (j < n && src[j] != c) j += src[j] == '\\' ? 2 : 1;
      i = std::min(n, j + 1);
      emit(std::string_view("str"));
    } else if (std::isdigit(static_cast<unsigned char>(c)) ||
               (c == '.' && i + 1 < n && std::isdigit(static_cast<unsigned char>(src[i + 1])))) {
      while (i < n && (word_char(src[i]) || src[i] == '.')) ++i;
      emit(std::string_view("num"));
    } else if (word_start(c)) {
      std::size_t j = i;
      while (j < n && word_char(src[j])) ++j;
      const std::string_view w = all.substr(i, j - i);
      emit(kept_words().count(w) ? w : std::string_view("id"));
      i = j;
    } else {
      emit(all.substr(i, 1));
      ++i;
    }
  }
}

// Winnowing over a token stream fed one token at a time: rings of the last
// kGramTokens tokens and kWindowGrams gram hashes, so memory does not grow
// with the text (only the kept fingerprints do).
class Winnower {
 public:
  void token(std::string_view t) {
    tokens_[tokens_seen_++ % kGramTokens] = t;
    if (tokens_seen_ < kGramTokens) return;
    std::uint64_t h = 1469598103934665603ull;
    for (std::size_t i = tokens_seen_ - kGramTokens; i < tokens_seen_; ++i)
      h = fnv1a("\x1f", fnv1a(tokens_[i % kGramTokens], h));
    grams_[grams_seen_++ % kWindowGrams] = h;
    if (grams_seen_ >= kWindowGrams) keep(*std::min_element(grams_, grams_ + kWindowGrams));
  }
  // A text of fewer grams than a window keeps its smallest.
  std::vector<std::uint64_t> finish() {
    if (grams_seen_ > 0 && grams_seen_ < kWindowGrams) keep(*std::min_element(grams_, grams_ + grams_seen_));
    std::sort(kept_.begin(), kept_.end());
    kept_.erase(std::unique(kept_.begin(), kept_.end()), kept_.end());
    return std::move(kept_);
  }

 private:
  void keep(std::uint64_t h) {
    if (kept_.empty() || kept_.back() != h) kept_.push_back(h);
  }
  std::string_view tokens_[kGramTokens];
  std::uint64_t grams_[kWindowGrams] = {};
  std::size_t tokens_seen_ = 0, grams_seen_ = 0;
  std::vector<std::uint64_t> kept_;
};

std::size_t shared_count(const std::vector<std::uint64_t>& a, const std::vector<std::uint64_t>& b) {
  std::size_t shared = 0;
  for (auto i = a.begin(), j = b.begin(); i != a.end() && j != b.end();) {
    if (*i < *j) {
      ++i;
    } else if (*j < *i) {
      ++j;
    } else {
      ++shared, ++i, ++j;
    }
  }
  return shared;
}

}  // namespace

std::vector<std::string> normalised_tokens(const std::string& src) {
  std::vector<std::string> out;
  for_each_token(src, [&out](std::string_view t) { out.emplace_back(t); });
  return out;
}

std::vector<std::uint64_t> fingerprints(const std::string& source, const std::vector<std::uint64_t>& skeleton) {
  Winnower w;
  for_each_token(source, [&w](std::string_view t) { w.token(t); });
  std::vector<std::uint64_t> all = w.finish();
  if (skeleton.empty()) return all;
  std::vector<std::uint64_t> own;
  std::set_difference(all.begin(), all.end(), skeleton.begin(), skeleton.end(), std::back_inserter(own));
  return own;
}

Fingerprint fingerprint(const std::string& student, const std::string& source,
                        const std::vector<std::uint64_t>& skeleton) {
  Fingerprint f{student, "", {}};
  if (source.empty()) return f;
  Sha256 h;
  h.update(source);
  f.sha256 = h.hex_digest();
  f.prints = fingerprints(source, skeleton);
  return f;
}

std::vector<SimilarPair> similar_pairs(const std::vector<Fingerprint>& entries, double threshold) {
  std::vector<SimilarPair> out;
  for (std::size_t i = 0; i < entries.size(); ++i)
    for (std::size_t j = i + 1; j < entries.size(); ++j) {
      const Fingerprint &a = entries[i], &b = entries[j];
      if (a.sha256.empty() || b.sha256.empty()) continue;  // nothing graded
      SimilarPair p{std::min(a.student, b.student), std::max(a.student, b.student), a.sha256 == b.sha256, 1.0};
      if (!p.identical) {
        // A skeleton handed in twice shares nothing once the skeleton is removed.
        const std::size_t smaller = std::min(a.prints.size(), b.prints.size());
        if (smaller == 0) continue;
        p.similarity = static_cast<double>(shared_count(a.prints, b.prints)) / static_cast<double>(smaller);
        if (p.similarity < threshold) continue;
      } else if (a.prints.empty()) {
        continue;  // both are the untouched skeleton: not a copy of each other
      }
      out.push_back(p);
    }
  std::stable_sort(out.begin(), out.end(), [](const SimilarPair& x, const SimilarPair& y) {
    if (x.identical != y.identical) return x.identical;
    if (x.similarity != y.similarity) return x.similarity > y.similarity;
    return x.a + '\n' + x.b < y.a + '\n' + y.b;
  });
  return out;
}

std::vector<SimilarPair> similar_pairs(const std::vector<SourceOf>& sources, const std::string& skeleton,
                                       double threshold) {
  const std::vector<std::uint64_t> base = fingerprints(skeleton);
  std::vector<Fingerprint> entries;
  for (const auto& s : sources) entries.push_back(fingerprint(s.student, s.source, base));
  return similar_pairs(entries, threshold);
}

std::string kernel_source(const std::string& submission_path) {
  std::error_code ec;
  const fs::path entry = fs::canonical(submission_path, ec);
  if (ec) return "";
  try {
    const LocatedSubmission located = locate_submission(entry.string());
    if (located.kernel.empty()) return "";
    return read_submission_text(located.kernel).text;  // "" when it is not what the grading read
  } catch (const UsageError&) {
    return "";
  }
}

ClassSimilarity compare_class(const std::vector<ClassMemberSource>& members, const std::string& skeleton_file) {
  const std::vector<std::uint64_t> base = fingerprints(kernel_source(skeleton_file));
  ClassSimilarity out;
  std::vector<Fingerprint> entries;
  for (const auto& m : members) {
    if (!m.left_out.empty())
      out.left_out.push_back({m.student, m.left_out});
    else
      entries.push_back(fingerprint(m.student, kernel_source(m.submission), base));
  }
  out.pairs = similar_pairs(entries);
  return out;
}

std::string similarity_csv(const std::vector<SimilarPair>& pairs) {
  std::string csv = "kind,student_a,student_b,similarity\r\n";
  auto cell = [](const std::string& raw) { return report::csv_text_cell(raw); };
  for (const auto& p : pairs)
    csv += std::string(p.identical ? "identical" : "near-identical") + "," + cell(p.a) + "," + cell(p.b) + "," +
           report::num(p.similarity, 3) + "\r\n";
  return csv;
}

std::string similarity_html(const std::vector<SimilarPair>& pairs, const std::vector<NotCompared>& left_out) {
  std::string h = "<h2 id=\"similarity\">Similar submissions</h2>\n<p>Identical kernels (same SHA-256 of kernel.cu) "
                  "and near-identical ones (winnowing fingerprints of the token stream with comments, whitespace "
                  "and names normalised). Each submission's kernel.cu is the one its grading graded (never a file "
                  "in a hidden folder or __MACOSX, never a link, at most 1 MiB). The handout's skeleton is "
                  "excluded from the comparison: code every student was given does not count. A pair is a lead "
                  "to look at, not a verdict.</p>\n";
  if (!left_out.empty()) {
    h += "<p>Not compared:</p>\n<ul>\n";
    for (const auto& n : left_out)
      h += "<li>" + report::xml_escape(n.student) + ": " + report::xml_escape(n.why) + "</li>\n";
    h += "</ul>\n";
  }
  if (pairs.empty()) return h + "<p>No similar pairs.</p>\n";
  h += "<table id=\"similar\">\n<tr><th>Kind</th><th>Student</th><th>Student</th><th>Similarity</th></tr>\n";
  for (const auto& p : pairs)
    h += "<tr><td>" + std::string(p.identical ? "identical" : "near-identical") + "</td><td>" +
         report::xml_escape(p.a) + "</td><td>" + report::xml_escape(p.b) + "</td><td class=\"num\">" +
         report::num(100 * p.similarity, 0) + "%</td></tr>\n";
  return h + "</table>\n";
}

}  // namespace sg::batch
