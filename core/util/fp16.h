#pragma once
// IEEE 754 binary16 (fp16) <-> float, bit exact: round to nearest even, subnormals,
// infinities and NaN. The AlltoAll-Matmul-ReduceScatter workload holds its inputs and
// outputs as fp16 bit patterns (as the device does) and accumulates in fp32.

#include <cstdint>
#include <cstring>

namespace moe {

using fp16 = std::uint16_t;

inline float fp16ToFloat(fp16 h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t exp = (h >> 10) & 0x1fu;
  std::uint32_t mant = h & 0x3ffu;
  std::uint32_t bits;
  if (exp == 0x1f) {
    bits = sign | 0x7f800000u | (mant << 13);  // inf, or NaN keeping its payload
  } else if (exp != 0) {
    bits = sign | ((exp + 112u) << 23) | (mant << 13);
  } else if (mant == 0) {
    bits = sign;  // signed zero
  } else {
    // Subnormal: normalize; the value is mant * 2^-24.
    int e = -1;
    do {
      mant <<= 1;
      ++e;
    } while ((mant & 0x400u) == 0);
    bits = sign | static_cast<std::uint32_t>(112 - e) << 23 | ((mant & 0x3ffu) << 13);
  }
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

inline fp16 floatToFp16(float f) {
  std::uint32_t x;
  std::memcpy(&x, &f, sizeof x);
  const std::uint32_t sign = (x >> 16) & 0x8000u;
  const std::uint32_t absx = x & 0x7fffffffu;
  if (absx >= 0x7f800000u)  // inf or NaN (NaN stays quiet NaN)
    return static_cast<fp16>(sign | 0x7c00u |
                             (absx > 0x7f800000u ? 0x200u | ((absx >> 13) & 0x3ffu) : 0u));
  if (absx >= 0x477ff000u) return static_cast<fp16>(sign | 0x7c00u);  // rounds to >= 65520: inf
  const int exp = static_cast<int>(absx >> 23) - 127;
  if (exp < -25) return static_cast<fp16>(sign);        // below half the smallest subnormal: zero
  std::uint32_t mant = (absx & 0x7fffffu) | 0x800000u;  // with the implicit bit
  // Bits to drop: 13 for normals; more for subnormals (exp < -14).
  const int shift = exp < -14 ? 13 + (-14 - exp) : 13;
  const std::uint32_t kept = mant >> shift;
  const std::uint32_t rest = mant & ((1u << shift) - 1u);
  const std::uint32_t half = 1u << (shift - 1);
  std::uint32_t r = kept + ((rest > half || (rest == half && (kept & 1u))) ? 1u : 0u);
  if (exp < -14)
    return static_cast<fp16>(sign | r);  // subnormal; a carry makes it the smallest normal
  // Normal: r holds 11 bits (implicit one included); a carry to 12 bits bumps the exponent.
  std::uint32_t e = static_cast<std::uint32_t>(exp + 15);
  if (r & 0x800u) {
    r >>= 1;
    ++e;
  }
  return static_cast<fp16>(sign | (e << 10) | (r & 0x3ffu));
}

}  // namespace moe
