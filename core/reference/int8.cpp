#include "core/reference/int8.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace moe {

float int8RowScale(const bf16* x, int hidden) {
  float amax = 0;
  for (int h = 0; h < hidden; ++h) amax = std::max(amax, std::fabs(bf16ToFloat(x[h])));
  return std::max(amax, 1e-4f) / kInt8Max;
}

void quantizeRowInt8(const bf16* x, int hidden, std::int8_t* q, float* scale) {
  const float s = int8RowScale(x, hidden);
  const float inv = kInt8Max / (s * kInt8Max);  // 127 / amax
  *scale = s;
  for (int h = 0; h < hidden; ++h) {
    // nearbyint rounds half to even in the default rounding mode.
    const float v = std::nearbyint(bf16ToFloat(x[h]) * inv);
    q[h] = static_cast<std::int8_t>(std::clamp(v, -kInt8Max, kInt8Max));
  }
}

void dequantizeRowInt8(const std::int8_t* q, float scale, int hidden, bf16* out) {
  for (int h = 0; h < hidden; ++h) out[h] = floatToBf16(static_cast<float>(q[h]) * scale);
}

void int8RoundTrip(const bf16* x, int hidden, bf16* out) {
  std::vector<std::int8_t> q(static_cast<std::size_t>(hidden));
  float s = 0;
  quantizeRowInt8(x, hidden, q.data(), &s);
  dequantizeRowInt8(q.data(), s, hidden, out);
}

}  // namespace moe
