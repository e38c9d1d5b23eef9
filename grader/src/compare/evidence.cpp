#include "compare/evidence.h"

#include <algorithm>

#include "compare/tolerance.h"

namespace sg::evidence {
namespace {

constexpr std::size_t kSpread = 96;     // elements of each state sampled evenly
constexpr std::int64_t kBand = 16;      // rows (columns) in a band
constexpr std::size_t kBands = 32;      // bands of rows (columns) sampled, spread evenly
// Rounding in another summation order: a few times FP32's bound.
constexpr double kOrderSlack = 4;

// The first element of each band that has one, for at most kBands bands spread evenly.
void add_band_firsts(const std::vector<std::int64_t>& first, std::int64_t n, std::vector<Element>& out) {
  std::vector<std::int64_t> present;
  for (std::int64_t x : first)
    if (x >= 0) present.push_back(x);
  const std::size_t step = std::max<std::size_t>(1, (present.size() + kBands - 1) / kBands);
  for (std::size_t b = 0; b < present.size(); b += step) out.push_back({present[b] / n, present[b] % n});
}

}  // namespace

CaseView::CaseView(const CaseData& d) : d_(d) {
  const std::int64_t m = d.m, n = d.n, total = m * n;
  // A pass over C per hypothesis: keep it bounded.
  if (m <= 0 || n <= 0 || total > (std::int64_t(1) << 26)) return;
  examined_ = true;
  scale_ = d.factor * gamma_k(d.k);
  states_.resize(total);
  const std::int64_t row_bands = (m + kBand - 1) / kBand, col_bands = (n + kBand - 1) / kBand;
  std::vector<std::int64_t> first_in_rows[kStates], first_in_cols[kStates];
  for (int s = 0; s < kStates; ++s) {
    first_in_rows[s].assign(row_bands, -1);
    first_in_cols[s].assign(col_bands, -1);
  }
  for (std::int64_t x = 0; x < total; ++x) {
    const float got = d.c[x];
    State s = State::Right;
    if (is_poison(got)) s = State::Unwritten;
    else if (!std::isfinite(got)) s = State::NonFinite;
    else if (!(std::fabs(double(got) - d.c64[x]) <= scale_ * d.abs_ab[x])) s = State::Wrong;
    states_[x] = std::uint8_t(s);
    ++counts_[int(s)];
    auto& r = first_in_rows[int(s)][x / n / kBand];
    if (r < 0) r = x;
    auto& c = first_in_cols[int(s)][x % n / kBand];
    if (c < 0) c = x;
  }
  for (int s = 0; s < kStates; ++s) {
    std::vector<Element>& out = samples_[s];
    const std::int64_t step = std::max<std::int64_t>(1, counts_[s] / std::int64_t(kSpread));
    std::int64_t seen = 0;
    for (std::int64_t x = 0; x < total && out.size() < kSpread; ++x)
      if (states_[x] == s && seen++ % step == 0) out.push_back({x / n, x % n});
    add_band_firsts(first_in_rows[s], n, out);
    add_band_firsts(first_in_cols[s], n, out);
    std::sort(out.begin(), out.end(), [](const Element& a, const Element& b) {
      return a.i != b.i ? a.i < b.i : a.j < b.j;
    });
    out.erase(std::unique(out.begin(), out.end(),
                          [](const Element& a, const Element& b) { return a.i == b.i && a.j == b.j; }),
              out.end());
  }
}

bool CaseView::right_value(std::int64_t i, std::int64_t j, double v) const {
  const std::int64_t x = i * d_.n + j;
  return std::fabs(v - d_.c64[x]) <= scale_ * d_.abs_ab[x];
}

bool explains(const CaseView& v, const Model& model, bool need_values, double share) {
  if (!v.examined()) return false;
  const CaseData& d = v.data();
  const double slack = kOrderSlack * v.scale() + 1e-12;
  auto reproduces = [&](double got, const Prediction& p) {
    for (const Predicted& q : p.values)
      if (std::fabs(got - q.value) <= slack * q.magnitude + 1e-30) return true;
    return false;
  };
  std::size_t tested = 0, matched = 0;
  for (int s = 0; s < kStates; ++s) {
    for (const Element& e : v.sample(State(s))) {
      const Prediction p = model(e.i, e.j);
      if (p.kind == Prediction::Kind::Unknown) continue;
      const double got = d.c[e.i * d.n + e.j];
      switch (State(s)) {
        case State::Unwritten:
          if (p.kind == Prediction::Kind::Values) return false;  // a thread would have stored there
          break;
        case State::NonFinite:
          return false;  // written NaN, where it predicts the poison or a finite sum of values inside A and B
        case State::Right:
          if (p.kind == Prediction::Kind::Unwritten || !reproduces(got, p)) return false;
          break;
        case State::Wrong:
          if (p.kind == Prediction::Kind::Unwritten) return false;
          ++tested;
          if (reproduces(got, p)) {
            ++matched;
          } else {
            // It says this element comes out right, and it does not.
            for (const Predicted& q : p.values)
              if (v.right_value(e.i, e.j, q.value)) return false;
          }
          break;
      }
    }
  }
  if (!need_values) return true;
  const std::size_t wrong = v.sample(State::Wrong).size();
  return tested >= kMinEvidence && tested * 4 >= wrong * 3 && matched >= share * tested;
}

bool unwritten_set_is(const CaseView& v, const std::function<bool(std::int64_t, std::int64_t)>& predicted) {
  if (!v.examined()) return false;
  const std::int64_t m = v.data().m, n = v.data().n;
  std::int64_t predicted_count = 0;
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      const bool p = predicted(i, j);
      if (p != (v.state(i, j) == State::Unwritten)) return false;
      predicted_count += p ? 1 : 0;
    }
  // Nothing or everything unwritten is what other diagnoses speak to.
  return predicted_count > 0 && predicted_count < m * n;
}

std::string ranges_text(const std::vector<bool>& present, std::size_t cap) {
  std::string out;
  std::size_t ranges = 0;
  std::int64_t left = 0;
  const std::int64_t size = std::int64_t(present.size());
  for (std::int64_t x = 0; x < size;) {
    if (!present[x]) {
      ++x;
      continue;
    }
    std::int64_t end = x;
    while (end + 1 < size && present[end + 1]) ++end;
    if (ranges < cap)
      out += (out.empty() ? "" : ", ") + (end == x ? str(x) : str(x) + "-" + str(end));
    else
      left += end - x + 1;
    ++ranges;
    x = end + 1;
  }
  if (left > 0) out += " and " + str(left) + " more";
  return out;
}

}  // namespace sg::evidence
