#include "core/reference/dispatch_quant.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "core/reference/fp8.h"
#include "core/reference/int8.h"

namespace moe {

int quantScaleCount(DispatchDtype d, int hidden) {
  switch (d) {
    case DispatchDtype::Fp8:
      return (hidden + kFp8Block - 1) / kFp8Block;
    case DispatchDtype::Int8:
      return 1;
    case DispatchDtype::Bf16:
      break;
  }
  return 0;
}

std::int64_t quantRowBytes(DispatchDtype d, int hidden) {
  if (!quantizedDispatch(d)) return 2LL * hidden;
  return hidden + 4LL * quantScaleCount(d, hidden);
}

namespace {
// The scales of one row, on the stack: the kernels pack and unpack every record through
// quantizeRow/dequantizeRow, so no allocation per row. 128 scales cover model.hidden's
// largest valid value (16384) at one scale per 128 elements.
using RowScales = std::array<float, 128>;

std::size_t scaleCount(DispatchDtype d, int hidden) {
  const auto n = static_cast<std::size_t>(quantScaleCount(d, hidden));
  if (n > RowScales().size()) throw std::logic_error("dispatch_quant: hidden size too large");
  return n;
}
}  // namespace

void quantizeRow(DispatchDtype d, const bf16* x, int hidden, std::uint8_t* wire) {
  RowScales scales;
  const std::size_t n = scaleCount(d, hidden);
  if (d == DispatchDtype::Fp8)
    quantizeRowFp8(x, hidden, wire, scales.data());
  else
    quantizeRowInt8(x, hidden, reinterpret_cast<std::int8_t*>(wire), scales.data());
  std::memcpy(wire + hidden, scales.data(), n * sizeof(float));
}

void dequantizeRow(DispatchDtype d, const std::uint8_t* wire, int hidden, bf16* out) {
  RowScales scales;
  std::memcpy(scales.data(), wire + hidden, scaleCount(d, hidden) * sizeof(float));
  if (d == DispatchDtype::Fp8)
    dequantizeRowFp8(wire, scales.data(), hidden, out);
  else
    dequantizeRowInt8(reinterpret_cast<const std::int8_t*>(wire), scales[0], hidden, out);
}

void quantRoundTrip(DispatchDtype d, const bf16* x, int hidden, bf16* out) {
  std::vector<std::uint8_t> wire(static_cast<std::size_t>(quantRowBytes(d, hidden)));
  quantizeRow(d, x, hidden, wire.data());
  dequantizeRow(d, wire.data(), hidden, out);
}

void quantRoundTripBounds(DispatchDtype d, const bf16* x, int hidden, double* bounds) {
  if (d == DispatchDtype::Fp8) {
    for (int b = 0; b * kFp8Block < hidden; ++b) {
      const float scale = fp8BlockScale(x, hidden, b);
      for (int h = b * kFp8Block; h < std::min(hidden, (b + 1) * kFp8Block); ++h)
        bounds[h] = fp8RoundTripBound(bf16ToFloat(x[h]), scale);
    }
    return;
  }
  const float scale = int8RowScale(x, hidden);
  for (int h = 0; h < hidden; ++h) bounds[h] = int8RoundTripBound(bf16ToFloat(x[h]), scale);
}

const char* quantFormatName(DispatchDtype d) {
  return d == DispatchDtype::Fp8 ? "E4M3" : "int8 per-token";
}

}  // namespace moe
