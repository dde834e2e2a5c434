#pragma once
// The wire format of a token record in rings and windows, shared by the kernels that move
// records and by the tiling checks that size buffers for them.

#include <cstdint>

#include "core/scenario/scenario.h"

namespace moe {

// How a token travels in rings and windows: a header (source rank, token, card mask, K ids
// and weights), then the bf16 row, each part 32-B aligned.
// rowBytes/recordBytes are the bf16 record (combine, and dispatch with dispatch_dtype bf16);
// dispatchRowBytes/dispatchRecordBytes the record dispatch really sends: with fp8, H bytes of
// E4M3 then one fp32 scale per 128 elements; with int8, H bytes then one fp32 scale.
struct RecordLayout {
  std::int64_t rowBytes;
  std::int64_t metaBytes;
  std::int64_t recordBytes;
  std::int64_t dispatchRowBytes;
  std::int64_t dispatchRecordBytes;
};
inline std::int64_t alignUp(std::int64_t v, std::int64_t a) {
  return (v + a - 1) / a * a;
}
// One fp8 row on the wire: H E4M3 bytes, then ceil(H / 128) fp32 scales.
inline std::int64_t fp8RowBytes(std::int64_t hidden) {
  return hidden + 4 * ((hidden + 127) / 128);
}
inline RecordLayout recordLayout(const Scenario& sc) {
  const std::int64_t row = 2LL * sc.model.hidden;
  const std::int64_t meta = alignUp(32 + 8LL * sc.model.topk, 32);
  const std::int64_t wire = sc.model.dispatchDtype == DispatchDtype::Fp8
                                ? fp8RowBytes(sc.model.hidden)
                            : sc.model.dispatchDtype == DispatchDtype::Int8 ? sc.model.hidden + 4LL
                                                                            : row;
  return RecordLayout{row, meta, meta + alignUp(row, 32), wire, meta + alignUp(wire, 32)};
}
// A combine partial sum travels in fp32, or in bf16 when combine.partial_dtype says so
// (rounded once, at the forwarder).
inline std::int64_t partialRecordBytes(const Scenario& sc) {
  const std::int64_t elem = sc.combine.partialDtype == PartialDtype::Bf16 ? 2 : 4;
  return recordLayout(sc).metaBytes + alignUp(elem * sc.model.hidden, 32);
}
// The forwarder's fp32 running sum of one partial, in its UB window: the header space then
// the fp32 row, so a complete fp32 partial leaves UB as it is.
inline std::int64_t partialAccumBytes(const Scenario& sc) {
  return recordLayout(sc).metaBytes + alignUp(4LL * sc.model.hidden, 32);
}

// UB bytes a receiver needs per record for its side scratch when it places a row
// (placeRow in core/kernels/dispatch_common.h): 32 B per (slot, expandIdx/scale) pair.
inline std::int64_t placeSideBytes(int K) {
  return static_cast<std::int64_t>(K) * 2 * 32;
}

}  // namespace moe
