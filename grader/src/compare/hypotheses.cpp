#include "compare/hypotheses.h"

#include <string>
#include <vector>

#include "compare/candidates.h"

namespace sg {

using evidence::ceil_to;
using evidence::Prediction;
using evidence::State;
using evidence::str;

// Elements computed as NaN or Inf (written, not the poison) carry no value
// to test, but where they are says something: a wrong index or a load
// without a bounds check reads past the end of A or B only for some
// elements, and on a GPU what lies there (another matrix's poison, stale
// memory) turns sums non-finite. A candidate explains the output when every
// sampled non-finite element is one it reads outside for, and the elements
// it reads only inside A and B for hold what it computes.
std::optional<Diagnosis> outside_read_hypotheses(const evidence::CaseView& v) {
  const CaseData& d = v.data();
  const std::int64_t m = d.m, k = d.k, n = d.n, size_a = m * k, size_b = k * n;
  struct Reader {
    DiagnosisId id;
    std::string what;      // how the kernel reads, for the text
    const char* matrix;    // the one it reads past
    std::function<bool(std::int64_t, std::int64_t)> outside;
    evidence::Model values;  // what it computes where it reads inside (empty: not modelled)
  };
  const auto row_a = [k](std::int64_t i) { return [i, k](std::int64_t t) { return i * k + t; }; };
  const auto col_b = [n](std::int64_t j) { return [j, n](std::int64_t t) { return t * n + j; }; };
  std::vector<Reader> readers;
  if (k != n)
    readers.push_back({DiagnosisId::LdBUsesK,
                       "a wrong leading dimension: B is read with rows of length k = " + str(k) +
                           " (B[t*k + col]; its rows have n = " + str(n) + " elements: read B[t*n + col])",
                       "B", [=](std::int64_t, std::int64_t j) { return (k - 1) * k + j >= size_b; },
                       [&, k](std::int64_t i, std::int64_t j) {
                         return Prediction::of(evidence::dot(d, k, row_a(i), [j, k](std::int64_t t) { return t * k + j; }));
                       }});
  if (m != k)
    readers.push_back({DiagnosisId::LdAUsesM,
                       "a wrong leading dimension: A is read with rows of length m = " + str(m) +
                           " (A[row*m + t]; its rows have k = " + str(k) + " elements: read A[row*k + t])",
                       "A", [=](std::int64_t i, std::int64_t) { return i * m + k - 1 >= size_a; },
                       [&, m, k](std::int64_t i, std::int64_t j) {
                         return Prediction::of(evidence::dot(d, k, [i, m](std::int64_t t) { return i * m + t; }, col_b(j)));
                       }});
  if (n != k)
    readers.push_back({DiagnosisId::LdAUsesN,
                       "a wrong leading dimension: A is read with rows of length n = " + str(n) +
                           " (A[row*n + t]; its rows have k = " + str(k) + " elements: read A[row*k + t])",
                       "A", [=](std::int64_t i, std::int64_t) { return i * n + k - 1 >= size_a; },
                       [&, n, k](std::int64_t i, std::int64_t j) {
                         return Prediction::of(evidence::dot(d, k, [i, n](std::int64_t t) { return i * n + t; }, col_b(j)));
                       }});
  for (const int T : evidence::kTiles) {
    const std::int64_t K = ceil_to(k, T);
    if (K == k) continue;
    readers.push_back(
        {DiagnosisId::LoadUnguarded,
         "the tiles are loaded without a bounds check on k: the last, partial K tile of " + str(T) + " reads columns " +
             str(k) + "-" + str(K - 1) + " of A and rows " + str(k) + "-" + str(K - 1) +
             " of B, which do not exist (load 0 when the index "
             "is >= k, and do not read at all)",
         "B",
         [=](std::int64_t i, std::int64_t j) { return i * k + K - 1 >= size_a || (K - 1) * n + j >= size_b; },
         {}});
    // A guard of B's row against m instead of k reads the rows from k up to min(m, K) of B.
    if (m > k)
      readers.push_back(
          {DiagnosisId::GuardKVsM,
           "a tile load compares its K index with m = " + str(m) + " instead of k = " + str(k) +
               " (p*TILE_SIZE + ty < m): the last, partial K tile of " + str(T) + " reads rows " + str(k) + "-" +
               str(std::min<std::int64_t>(m, K) - 1) + " of B, which do not exist",
           "B",
           [=](std::int64_t, std::int64_t j) { return (std::min<std::int64_t>(m, K) - 1) * n + j >= size_b; },
           {}});
    break;  // the padding reads of one tile edge already decide it; others read past the same ends
  }
  const auto& nonfinite = v.sample(State::NonFinite);
  if (readers.empty() || nonfinite.size() < evidence::kMinEvidence) return std::nullopt;
  std::vector<const Reader*> fit;
  bool discriminating = false;  // some fitting reader reads only inside A and B for some element
  for (const Reader& r : readers) {
    bool all = true;
    for (const evidence::Element& e : nonfinite) all = all && r.outside(e.i, e.j);
    if (!all || (r.values && !evidence::explains(v, r.values, false))) continue;
    // Every element it reads only inside for must have been computed from finite values.
    std::int64_t inside = 0;
    for (std::int64_t i = 0; i < m && all; ++i)
      for (std::int64_t j = 0; j < n && all; ++j)
        if (!r.outside(i, j)) {
          ++inside;
          all = v.state(i, j) != State::NonFinite;
        }
    if (!all) continue;
    discriminating = discriminating || inside > 0;
    fit.push_back(&r);
  }
  if (fit.empty()) return std::nullopt;
  // A read that reaches past A or B for every element fits any output that is
  // NaN throughout: the text says it fits, not that it is the cause.
  const std::string head = discriminating ? "the NaN or Inf values in C were computed (not left unwritten), and each "
                                            "of them comes from an out-of-bounds read: "
                                          : "the NaN or Inf values in C were computed (not left unwritten); on this "
                                            "shape an out-of-bounds read reaches every element, so they fit it, as "
                                            "they fit NaN from anywhere else (shared memory never loaded, a NaN "
                                            "stored): ";
  if (fit.size() == 1)
    return make_diagnosis(fit[0]->id, head + fit[0]->what + " reads past the end of " + fit[0]->matrix +
                                          (discriminating ? " for exactly such elements" : " for every element") +
                                          ", and what lies there is not part of the matrix");
  std::string either;
  for (const Reader* r : fit) either += std::string(either.empty() ? "" : "; or ") + r->what;
  return make_diagnosis(DiagnosisId::MemoryReadsOutside,
                        head +
                            (discriminating ? "computed as written, every such element reads past the end of A or "
                                              "B, either because "
                                            : "every element reads past the end of A or B if ") +
                            either);
}

namespace {

bool usable(const CaseData& d) {
  return d.a && d.b && d.c && d.c64 && d.abs_ab && d.m > 0 && d.n > 0 && d.k > 0;
}

}  // namespace

bool is_confirmed_hypothesis(const Diagnosis& d) {
  const DiagnosisEntry* e = find_diagnosis(d.id);
  return e && e->basis == DiagnosisBasis::Reproduced;
}

std::vector<Diagnosis> matching_hypotheses(const CaseData& d) {
  std::vector<Diagnosis> out;
  if (!usable(d)) return out;
  const evidence::CaseView v(d);
  if (!v.examined()) return out;
  std::optional<Diagnosis> pattern = pattern_hypotheses(v);
  std::optional<Diagnosis> value = value_hypotheses(v);
  // A hypothesis that reads past A or B can still be tested where what lies
  // there is known: unused GPU memory is often 0. (The CPU backend's red
  // zones hold NaN, as C's poison past B often does on a GPU: elements that
  // read it are not finite and outside_read_hypotheses names them.)
  if (!value) value = value_hypotheses_reading_zeros(v);
  // A leading dimension found from the values is the more precise account of
  // the same bug as one found from the unwritten elements.
  const auto leading_dimension = [](const Diagnosis& d) { return find_diagnosis(d.id)->leading_dimension; };
  if (pattern && value && leading_dimension(*pattern) && leading_dimension(*value)) pattern.reset();
  // The same bug found both ways: the pattern's account names the elements.
  if (pattern && value && pattern->id == value->id) value.reset();
  if (pattern) out.push_back(*pattern);
  if (value) out.push_back(*value);
  if (out.empty())
    if (auto misplaced = misplaced_store_hypotheses(v)) out.push_back(*misplaced);
  if (out.empty())
    if (auto outside = outside_read_hypotheses(v)) out.push_back(*outside);
  return out;
}

std::optional<Diagnosis> describe_wrong_elements(const CaseData& d) {
  if (!usable(d)) return std::nullopt;
  const evidence::CaseView v(d);
  if (!v.examined()) return std::nullopt;
  return where_wrong(v);
}

}  // namespace sg
