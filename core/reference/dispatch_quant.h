#pragma once
// The quantized dispatch payloads, one interface over both: FP8 (E4M3 codes, one fp32 scale
// per 128 elements; fp8.h) and INT8 (int8 codes, one fp32 scale per token; int8.h). On the
// wire a row is its H one-byte codes followed by its fp32 scales. The kernels pack and
// unpack records with these; the verification compares against the same round trip and
// bounds the error with the dtype's derived tolerance.

#include <cstdint>

#include "core/scenario/scenario.h"
#include "core/util/bf16.h"

namespace moe {

// Whether dispatch sends quantized rows (fp8 or int8) rather than bf16.
inline bool quantizedDispatch(DispatchDtype d) {
  return d != DispatchDtype::Bf16;
}
// The fp32 scales of one row: ceil(H / 128) for fp8, 1 for int8 (0 for bf16).
int quantScaleCount(DispatchDtype d, int hidden);
// Bytes of one row on the wire: H codes then the scales (2 H for bf16).
std::int64_t quantRowBytes(DispatchDtype d, int hidden);
// x (bf16[hidden]) to its wire bytes, and back to bf16.
void quantizeRow(DispatchDtype d, const bf16* x, int hidden, std::uint8_t* wire);
void dequantizeRow(DispatchDtype d, const std::uint8_t* wire, int hidden, bf16* out);
void quantRoundTrip(DispatchDtype d, const bf16* x, int hidden, bf16* out);
// The dtype's round-trip tolerance for every element of row x: bounds[hidden].
void quantRoundTripBounds(DispatchDtype d, const bf16* x, int hidden, double* bounds);
// "fp8" / "int8", and the format's name for messages ("E4M3", "int8 per-token").
const char* quantFormatName(DispatchDtype d);

}  // namespace moe
