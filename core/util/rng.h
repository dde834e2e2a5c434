#pragma once
// A small, fully specified PRNG (SplitMix64 seeding + xoshiro256**). std::mt19937 is
// portable but std:: distributions are not, so every draw here is defined bit for bit:
// the same seed gives the same tokens on every compiler and platform.

#include <cmath>
#include <cstdint>

namespace moe {

class Rng {
 public:
  explicit Rng(std::uint64_t seed) {
    for (auto& s : s_) s = splitmix(seed);
  }

  std::uint64_t next() {
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }

  // Uniform in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  // Uniform in (0, 1): safe to take log of.
  double uniformOpen() { return (static_cast<double>(next() >> 11) + 0.5) * 0x1.0p-53; }
  // Uniform integer in [0, n), n > 0 (Lemire's multiply-shift; bias < 2^-64 * n).
  std::uint64_t below(std::uint64_t n) {
    __extension__ using u128 = unsigned __int128;  // GCC/Clang builtin; silences -Wpedantic
    return static_cast<std::uint64_t>((static_cast<u128>(next()) * n) >> 64);
  }
  // Standard normal via Box-Muller (one value per call; deterministic).
  double normal() {
    const double u1 = uniformOpen(), u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }
  // Two independent standard normals from one Box-Muller draw (both branches): half the
  // transcendental work of calling normal() twice, for bulk activations.
  void normalPair(double& a, double& b) {
    const double u1 = uniformOpen(), u2 = uniform();
    const double r = std::sqrt(-2.0 * std::log(u1)), t = 6.283185307179586 * u2;
    a = r * std::cos(t);
    b = r * std::sin(t);
  }
  // Standard Gumbel(0,1): adding it to log-weights and taking the top k samples k items
  // without replacement in proportion to the weights.
  double gumbel() { return gumbelOf(uniformOpen()); }
  static double gumbelOf(double u) { return -std::log(-std::log(u)); }  // u in (0, 1)

  // A child stream derived from this seed and a label, so that e.g. rank r's tokens do
  // not depend on how many draws rank r-1 made.
  static std::uint64_t derive(std::uint64_t seed, std::uint64_t label) {
    std::uint64_t s = seed ^ (label * 0x9e3779b97f4a7c15ull);
    return splitmix(s);
  }

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  static std::uint64_t splitmix(std::uint64_t& x) {
    std::uint64_t z = (x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  std::uint64_t s_[4];
};

}  // namespace moe
