#pragma once
// FP8 (E4M3, the OCP "fn" variant: 4 exponent bits with bias 7, 3 mantissa bits, no
// infinities, largest finite 448, 0x7f/0xff NaN) as DeepEP's FP8 dispatch uses it: each
// token row is cut into blocks of 128 elements, each block scaled by 448 / amax (amax
// clamped below at 1e-4) so it fills the E4M3 range, and the fp32 scale amax / 448 travels
// with the row. Plain loops: the golden reference of quantization and dequantization.
//
// Tolerance of a round trip x -> E4M3 -> bf16, per element, with s the block's scale:
//   |out - x| <= (2^-4 + 2^-8) |x| + 2^-9 s
// Derivation: v = x * (448 / amax) has |v| <= 448 (up to fp32 rounding, 2^-23 relative per
// operation). E4M3 rounding to nearest: a normal v (|v| >= 2^-6) has 3 mantissa bits, so the
// error is at most half an ulp, 2^-4 |v|; a subnormal v has step 2^-9, error <= 2^-10. Back
// in x units (times s) that is 2^-4 |x| + 2^-10 s, plus ~2^-21 |x| from the fp32 scale
// products. The bf16 rounding of the dequantized value adds at most 2^-9 of it, i.e.
// 2^-9 (1 + 2^-4) |x| + 2^-19 s. Both extras fit in the margins: 2^-8 > 2^-9 (1 + 2^-4) +
// 2^-21, and 2^-9 s > 2^-10 s + 2^-19 s.

#include <cstdint>

#include "core/util/bf16.h"

namespace moe {

constexpr int kFp8Block = 128;  // elements per scale
constexpr float kE4m3Max = 448.0f;

// Round to nearest even, saturating at +-448; NaN -> 0x7f.
std::uint8_t floatToE4m3(float f);
float e4m3ToFloat(std::uint8_t v);

// One row of `hidden` elements: q[hidden] E4M3 codes, scales[ceil(hidden / 128)] fp32.
void quantizeRowFp8(const bf16* x, int hidden, std::uint8_t* q, float* scales);
// out[h] = bf16(e4m3(q[h]) * scales[h / 128]).
void dequantizeRowFp8(const std::uint8_t* q, const float* scales, int hidden, bf16* out);
// quantize then dequantize (what a receiver of an fp8 dispatch holds).
void fp8RoundTrip(const bf16* x, int hidden, bf16* out);
// The block scale quantizeRowFp8 uses for block b of x (amax / 448, amax >= 1e-4).
float fp8BlockScale(const bf16* x, int hidden, int block);
// The tolerance above for one element.
inline double fp8RoundTripBound(float x, float scale) {
  return (0x1p-4 + 0x1p-8) * (x < 0 ? -double(x) : double(x)) + 0x1p-9 * double(scale);
}

}  // namespace moe
