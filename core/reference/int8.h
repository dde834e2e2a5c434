#pragma once
// INT8 dispatch as Ascend's quantized dispatch does it: each token row is quantized
// dynamically, per token, with one fp32 scale s = amax / 127 (amax clamped below at 1e-4):
// q = round-to-nearest-even(x * 127 / amax), saturated to [-127, 127]; the receiver holds
// bf16(q * s). Plain loops: the golden reference of quantization and dequantization.
//
// Tolerance of a round trip x -> int8 -> bf16, per element:
//   |out - x| <= (2^-1 + 2^-9) s + 2^-8 |x|
// Derivation: v = x * (127 / amax) is exact to 2^-23 relative per fp32 operation; rounding
// to the nearest integer is off by at most 1/2, so |q s - x| <= s/2 plus ~2^-22 (|x| + s)
// from the fp32 products (|v| <= 127 keeps the saturation from cutting anything off). The
// bf16 rounding of q s adds at most 2^-9 |q s| <= 2^-9 (|x| + s/2). Together:
// s/2 + 2^-10 s + 2^-22 s <= (2^-1 + 2^-9) s, and 2^-9 |x| + 2^-22 |x| <= 2^-8 |x|.

#include <cstdint>

#include "core/util/bf16.h"

namespace moe {

constexpr float kInt8Max = 127.0f;

// One row of `hidden` elements: q[hidden] int8 codes, one fp32 scale.
float int8RowScale(const bf16* x, int hidden);
void quantizeRowInt8(const bf16* x, int hidden, std::int8_t* q, float* scale);
// out[h] = bf16(q[h] * scale).
void dequantizeRowInt8(const std::int8_t* q, float scale, int hidden, bf16* out);
// quantize then dequantize (what a receiver of an int8 dispatch holds).
void int8RoundTrip(const bf16* x, int hidden, bf16* out);
// The tolerance above for one element.
inline double int8RoundTripBound(float x, float scale) {
  return (0x1p-1 + 0x1p-9) * double(scale) + 0x1p-8 * (x < 0 ? -double(x) : double(x));
}

}  // namespace moe
