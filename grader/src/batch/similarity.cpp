#include "batch/similarity.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "batch/content_hash.h"
#include "report/feedback.h"
#include "report/text_clean.h"

namespace sg::batch {
namespace {

namespace fs = std::filesystem;

// Words that carry a kernel's structure: kept, so that only names are normalised.
const std::set<std::string>& kept_words() {
  static const std::set<std::string> words = {
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

std::uint64_t fnv1a(const std::string& s, std::uint64_t h) {
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

}  // namespace

std::vector<std::string> normalised_tokens(const std::string& src) {
  std::vector<std::string> out;
  std::size_t i = 0;
  const std::size_t n = src.size();
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
      out.push_back("str");
    } else if (std::isdigit(static_cast<unsigned char>(c)) ||
               (c == '.' && i + 1 < n && std::isdigit(static_cast<unsigned char>(src[i + 1])))) {
      while (i < n && (word_char(src[i]) || src[i] == '.')) ++i;
      out.push_back("num");
    } else if (word_start(c)) {
      std::size_t j = i;
      while (j < n && word_char(src[j])) ++j;
      const std::string w = src.substr(i, j - i);
      out.push_back(kept_words().count(w) ? w : "id");
      i = j;
    } else {
      out.push_back(std::string(1, c));
      ++i;
    }
  }
  return out;
}

std::set<std::uint64_t> fingerprints(const std::vector<std::string>& tokens, std::size_t k, std::size_t w) {
  std::set<std::uint64_t> out;
  if (tokens.size() < k) return out;
  std::vector<std::uint64_t> grams;
  for (std::size_t i = 0; i + k <= tokens.size(); ++i) {
    std::uint64_t h = 1469598103934665603ull;
    for (std::size_t t = i; t < i + k; ++t) h = fnv1a(tokens[t] + '\x1f', h);
    grams.push_back(h);
  }
  if (grams.size() <= w) {
    out.insert(*std::min_element(grams.begin(), grams.end()));
    return out;
  }
  for (std::size_t i = 0; i + w <= grams.size(); ++i) out.insert(*std::min_element(grams.begin() + i, grams.begin() + i + w));
  return out;
}

std::vector<SimilarPair> similar_pairs(const std::vector<SourceOf>& sources, const std::string& skeleton,
                                       double threshold) {
  const std::set<std::uint64_t> base = fingerprints(normalised_tokens(skeleton));
  struct Entry {
    std::string student, hash;
    std::set<std::uint64_t> prints;
  };
  std::vector<Entry> entries;
  for (const auto& s : sources) {
    if (s.source.empty()) continue;
    Sha256 h;
    h.update(s.source);
    Entry e{s.student, h.hex_digest(), {}};
    for (std::uint64_t f : fingerprints(normalised_tokens(s.source)))
      if (!base.count(f)) e.prints.insert(f);
    entries.push_back(std::move(e));
  }
  std::vector<SimilarPair> out;
  for (std::size_t i = 0; i < entries.size(); ++i)
    for (std::size_t j = i + 1; j < entries.size(); ++j) {
      const Entry &a = entries[i], &b = entries[j];
      SimilarPair p{std::min(a.student, b.student), std::max(a.student, b.student), a.hash == b.hash, 1.0};
      if (!p.identical) {
        // A skeleton handed in twice shares nothing once the skeleton is removed.
        const std::size_t smaller = std::min(a.prints.size(), b.prints.size());
        if (smaller == 0) continue;
        std::size_t shared = 0;
        for (std::uint64_t f : a.prints) shared += b.prints.count(f);
        p.similarity = static_cast<double>(shared) / static_cast<double>(smaller);
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

std::string kernel_source(const std::string& path) {
  std::error_code ec;
  fs::path file;
  if (fs::is_regular_file(path, ec)) {
    file = path;
  } else if (fs::is_directory(path, ec)) {
    fs::path found;
    for (auto it = fs::recursive_directory_iterator(path, fs::directory_options::skip_permission_denied, ec);
         it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (ec) break;
      if (it->path().filename() == ".git") {
        it.disable_recursion_pending();
        continue;
      }
      if (it->path().filename() == "kernel.cu" && it->is_regular_file(ec) && (found.empty() || it->path() < found))
        found = it->path();
    }
    file = found;
  }
  if (file.empty()) return "";
  std::ifstream in(file, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string similarity_csv(const std::vector<SimilarPair>& pairs) {
  std::string csv = "kind,student_a,student_b,similarity\r\n";
  auto cell = [](const std::string& raw) { return report::csv_text_cell(raw); };
  for (const auto& p : pairs)
    csv += std::string(p.identical ? "identical" : "near-identical") + "," + cell(p.a) + "," + cell(p.b) + "," +
           report::num(p.similarity, 3) + "\r\n";
  return csv;
}

std::string similarity_html(const std::vector<SimilarPair>& pairs) {
  std::string h = "<h2 id=\"similarity\">Similar submissions</h2>\n<p>Identical kernels (same SHA-256 of kernel.cu) "
                  "and near-identical ones (winnowing fingerprints of the token stream with comments, whitespace "
                  "and names normalised). The handout's skeleton is excluded from the comparison: code every "
                  "student was given does not count. A pair is a lead to look at, not a verdict.</p>\n";
  if (pairs.empty()) return h + "<p>No similar pairs.</p>\n";
  h += "<table id=\"similar\">\n<tr><th>Kind</th><th>Student</th><th>Student</th><th>Similarity</th></tr>\n";
  for (const auto& p : pairs)
    h += "<tr><td>" + std::string(p.identical ? "identical" : "near-identical") + "</td><td>" +
         report::xml_escape(p.a) + "</td><td>" + report::xml_escape(p.b) + "</td><td class=\"num\">" +
         report::num(100 * p.similarity, 0) + "%</td></tr>\n";
  return h + "</table>\n";
}

}  // namespace sg::batch
