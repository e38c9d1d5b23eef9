#include "services/inputs.h"

#include <functional>
#include <random>

namespace sg {
namespace {

void fill(std::vector<float>& v, Distribution d, std::mt19937_64& rng) {
  switch (d) {
    case Distribution::Uniform: {
      std::uniform_real_distribution<float> u(-1.0f, 1.0f);
      for (float& x : v) x = u(rng);
      break;
    }
    case Distribution::Positive: {
      std::uniform_real_distribution<float> u(0.0f, 1.0f);
      for (float& x : v) x = u(rng);
      break;
    }
    case Distribution::SmallInt: {
      std::uniform_int_distribution<int> u(-4, 4);
      for (float& x : v) x = static_cast<float>(u(rng));
      break;
    }
    case Distribution::Cancel: {
      // Magnitudes spread over six decades with random signs: large partial
      // sums cancel, so only a correctly accumulated result stays in bounds.
      std::uniform_real_distribution<float> expo(-3.0f, 3.0f);
      std::bernoulli_distribution sign(0.5);
      for (float& x : v) x = (sign(rng) ? 1.0f : -1.0f) * std::pow(10.0f, expo(rng));
      break;
    }
  }
}

}  // namespace

CaseInputs make_inputs(int m, int k, int n, Distribution d, std::uint64_t stream_seed) {
  std::mt19937_64 rng(stream_seed);
  CaseInputs in;
  in.a.resize(static_cast<std::size_t>(m) * k);
  in.b.resize(static_cast<std::size_t>(k) * n);
  fill(in.a, d, rng);
  fill(in.b, d, rng);
  return in;
}

CaseInputs make_inputs(const Case& c, std::uint64_t seed) {
  const std::uint64_t stream = seed ^ (std::hash<std::string>{}(c.name) * 0x9E3779B97F4A7C15ull);
  return make_inputs(c.m, c.k, c.n, c.inputs, stream);
}

std::uint64_t secret_seed() {
  std::random_device rd;
  return (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
}

}  // namespace sg
