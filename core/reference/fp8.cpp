#include "core/reference/fp8.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace moe {

std::uint8_t floatToE4m3(float f) {
  if (std::isnan(f)) return 0x7f;
  const std::uint8_t sign = std::signbit(f) ? 0x80 : 0x00;
  const float a = std::fabs(f);
  if (a >= kE4m3Max) return sign | 0x7e;  // saturate (448 = 1.75 x 2^8)
  if (a < 0x1p-6f) {
    // Subnormal: steps of 2^-9; 8 steps is the smallest normal, which is code 0x08 too.
    const auto m = static_cast<int>(std::nearbyint(a * 0x1p9f));
    return sign | static_cast<std::uint8_t>(m);
  }
  int e = 0;
  const float frac = std::frexp(a, &e);  // a = frac * 2^e, frac in [0.5, 1)
  --e;                                   // a = (2 frac) * 2^e, 2 frac in [1, 2)
  int m = static_cast<int>(std::nearbyint((2.0f * frac - 1.0f) * 8.0f));
  if (m == 8) {  // rounded up into the next binade
    m = 0;
    ++e;
  }
  const int biased = e + 7;
  if (biased > 15 || (biased == 15 && m == 7)) return sign | 0x7e;
  return sign | static_cast<std::uint8_t>(biased << 3 | m);
}

float e4m3ToFloat(std::uint8_t v) {
  const int e = (v >> 3) & 0xf, m = v & 7;
  const float sign = (v & 0x80) ? -1.0f : 1.0f;
  if (e == 15 && m == 7) return std::nanf("");
  if (e == 0) return sign * static_cast<float>(m) * 0x1p-9f;
  return sign * (1.0f + static_cast<float>(m) / 8.0f) * std::ldexp(1.0f, e - 7);
}

float fp8BlockScale(const bf16* x, int hidden, int block) {
  float amax = 0;
  const int end = std::min(hidden, (block + 1) * kFp8Block);
  for (int h = block * kFp8Block; h < end; ++h) amax = std::max(amax, std::fabs(bf16ToFloat(x[h])));
  return std::max(amax, 1e-4f) / kE4m3Max;
}

void quantizeRowFp8(const bf16* x, int hidden, std::uint8_t* q, float* scales) {
  const int blocks = (hidden + kFp8Block - 1) / kFp8Block;
  for (int b = 0; b < blocks; ++b) {
    const float scale = fp8BlockScale(x, hidden, b);
    const float inv = kE4m3Max / (scale * kE4m3Max);  // 448 / amax
    scales[b] = scale;
    const int end = std::min(hidden, (b + 1) * kFp8Block);
    for (int h = b * kFp8Block; h < end; ++h) q[h] = floatToE4m3(bf16ToFloat(x[h]) * inv);
  }
}

void dequantizeRowFp8(const std::uint8_t* q, const float* scales, int hidden, bf16* out) {
  for (int h = 0; h < hidden; ++h) out[h] = floatToBf16(e4m3ToFloat(q[h]) * scales[h / kFp8Block]);
}

void fp8RoundTrip(const bf16* x, int hidden, bf16* out) {
  std::vector<std::uint8_t> q(static_cast<std::size_t>(hidden));
  std::vector<float> s(static_cast<std::size_t>((hidden + kFp8Block - 1) / kFp8Block));
  quantizeRowFp8(x, hidden, q.data(), s.data());
  dequantizeRowFp8(q.data(), s.data(), hidden, out);
}

}  // namespace moe
