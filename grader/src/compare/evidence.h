// The elements of one failing output sorted by what they hold, and the test a
// hypothesis must pass before it is offered: its prediction is compared with
// every kind of element (right, wrong, never written, written as NaN), so a
// hypothesis that explains some wrong elements but contradicts others (says
// an element is right that is wrong, or written that is not) is never offered.
#pragma once
#include <cmath>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "compare/hypotheses.h"

namespace sg::evidence {

// Tile edges students use, the assignment's first: hypotheses that depend on
// the tile try each.
constexpr int kTiles[] = {16, 8, 32};
constexpr std::size_t kMinEvidence = 4;  // fewer tested wrong elements prove nothing

struct Element {
  std::int64_t i, j;
};

// Right: within the FP32 bound; Wrong: finite and outside it; Unwritten: still
// the poison; NonFinite: written as NaN or Inf.
enum class State : std::uint8_t { Right, Wrong, Unwritten, NonFinite };
constexpr int kStates = 4;

// A predicted value with the magnitude sum that bounds its rounding error.
struct Predicted {
  double value = 0, magnitude = 0;
};

// What a hypothesis says one element holds: nothing it can tell (a read
// outside A or B), the poison (no thread stores there), or one of `values`
// (several where threads race for the element).
struct Prediction {
  enum class Kind { Unknown, Unwritten, Values } kind = Kind::Unknown;
  std::vector<Predicted> values;

  static Prediction unknown() { return {}; }
  static Prediction unwritten() { return {Kind::Unwritten, {}}; }
  static Prediction of(std::optional<Predicted> p) {
    return p ? Prediction{Kind::Values, {*p}} : Prediction{};
  }
};
using Model = std::function<Prediction(std::int64_t i, std::int64_t j)>;

class CaseView {
 public:
  explicit CaseView(const CaseData& d);

  // Outputs this large are not examined (each hypothesis scans C).
  bool examined() const { return examined_; }
  const CaseData& data() const { return d_; }
  State state(std::int64_t i, std::int64_t j) const { return State(states_[i * d_.n + j]); }
  std::int64_t count(State s) const { return counts_[int(s)]; }
  // Elements in state s: spread evenly over all of them, plus the first of
  // bands of rows and of columns (so a lone wrong row or column is seen).
  const std::vector<Element>& sample(State s) const { return samples_[int(s)]; }
  // The case's FP32 bound factor * gamma_k (times |A||B| per element).
  double scale() const { return scale_; }
  // Whether v is a right value for element (i, j).
  bool right_value(std::int64_t i, std::int64_t j, double v) const;

 private:
  const CaseData& d_;
  bool examined_ = false;
  double scale_ = 0;
  std::vector<std::uint8_t> states_;
  std::int64_t counts_[kStates] = {};
  std::vector<Element> samples_[kStates];
};

// Whether `model` explains the output: no sampled element contradicts it
// and, with `need_values`, enough wrong elements were tested and at least
// `share` of them reproduced (less than all only where the model guesses what
// lies outside A and B).
bool explains(const CaseView& v, const Model& model, bool need_values = true, double share = 1.0);

// Whether exactly the elements `predicted` says are never written hold the
// poison (and some, but not all, do).
bool unwritten_set_is(const CaseView& v, const std::function<bool(std::int64_t, std::int64_t)>& predicted);

// Whether every element that was written is right.
inline bool written_all_right(const CaseView& v) {
  return v.count(State::Wrong) == 0 && v.count(State::NonFinite) == 0;
}

// Sum over t in [0, count) of a(t) * b(t) with flat indices into A and B;
// nullopt where an index leaves A or B and what lies there is unknown.
template <typename IndexA, typename IndexB>
std::optional<Predicted> dot(const CaseData& d, std::int64_t count, IndexA ia, IndexB ib) {
  const std::int64_t size_a = std::int64_t(d.m) * d.k, size_b = std::int64_t(d.k) * d.n;
  Predicted p;
  for (std::int64_t t = 0; t < count; ++t) {
    const std::int64_t x = ia(t), y = ib(t);
    if (x < 0 || y < 0) continue;  // the index function's "this term is 0" (a guarded load)
    const bool a_in = x < size_a, b_in = y < size_b;
    if (!(a_in && b_in) && !d.outside_known) return std::nullopt;
    const double prod = double(a_in ? d.a[x] : d.outside_value) * double(b_in ? d.b[y] : d.outside_value);
    p.value += prod;
    p.magnitude += std::fabs(prod);
  }
  return p;
}

inline std::string str(std::int64_t v) { return std::to_string(v); }
inline std::int64_t ceil_to(std::int64_t x, int t) { return (x + t - 1) / t * t; }
// "1 row", "2 rows".
inline std::string count_of(std::int64_t n, const char* noun) {
  return str(n) + " " + noun + (n == 1 ? "" : "s");
}
// "3, 7-9, 12" for the indices where `present` holds, at most `cap` ranges.
std::string ranges_text(const std::vector<bool>& present, std::size_t cap = 6);

}  // namespace sg::evidence
