#include "core/plan/tiling_explain.h"

#include <algorithm>
#include <iterator>
#include <string>

#include "core/plan/combine_plan.h"
#include "core/plan/dispatch_tiling.h"
#include "core/runtime/record_layout.h"
#include "core/scenario/scenario_json.h"

namespace moe {

namespace {
std::string num(std::int64_t v) {
  return std::to_string(v);
}
std::string kib(std::int64_t v) {
  return v % 1024 == 0 ? num(v / 1024) + " KiB" : num(v) + " B";
}

// Why the chunk is its size, following proposeTiling's two branches: a size from the ladder
// when one fits UB, else the fallback of one record per chunk (with the ladder's smallest
// candidate's UB need, the reason none fitted).
std::string chunkReason(const Scenario& sc, int P) {
  const std::int64_t ladder[] = {512 * 1024, 256 * 1024, 128 * 1024, 64 * 1024};
  const std::int64_t chunk = sc.rings.dispatch.chunkBytes;  // the proposal: one for both
  if (std::find(std::begin(ladder), std::end(ladder), chunk) != std::end(ladder))
    return "the largest of 512/256/128/64 KiB (seed 000's range) whose sender, forwarder and "
           "receiver buffers all fit UB";
  const std::int64_t minChunk = std::max(recordLayout(sc).recordBytes, partialRecordBytes(sc));
  std::string why =
      "one record per chunk (the larger of a dispatch record and a combine "
      "partial, " +
      num(minChunk) + " B, rounded up to 32 B)";
  Scenario smallest = sc;
  std::int64_t smallestChunk = 0;
  for (std::int64_t c : ladder)
    if (c >= minChunk) smallestChunk = c;
  smallest.rings.setBoth(&RingTiling::chunkBytes, smallestChunk);
  if (smallestChunk == 0) return why + ": a record is larger than 512 KiB";
  const RoleUbNeeds need = streamingUbNeeds(smallest, P);
  const std::int64_t most = std::max({need.sender, need.forwarder, need.receiver});
  const char* role = most == need.sender      ? "sender"
                     : most == need.forwarder ? "forwarder"
                                              : "receiver";
  return why + ", because no size of 512/256/128/64 KiB fits UB: at " + kib(smallestChunk) +
         " the " + role + " would need " + num(most) + " B of the " + num(sc.hardware.ubBytes) +
         " B";
}

}  // namespace

std::vector<TilingLine> explainTiling(const Scenario& sc, int P) {
  const RingTiling& t = sc.rings.dispatch;  // a proposal: the same tiling for both stages
  const HardwareProfile& hw = sc.hardware;
  const RecordLayout rec = recordLayout(sc);
  const std::int64_t pb = partialRecordBytes(sc);
  const RoleUbNeeds need = streamingUbNeeds(sc, P);
  int lanes = 1, channels = 1;
  combineLanesAndChannels(sc, lanes, channels);
  const std::int64_t ringBytes = streamingRingBytesPerCard(sc);
  std::vector<TilingLine> out;
  out.push_back({"rings.chunk_bytes", kib(t.chunkBytes) + ": " + chunkReason(sc, P) +
                                          "; it holds " + num(t.chunkBytes / rec.recordBytes) +
                                          " dispatch records of " + num(rec.recordBytes) +
                                          " B and " + num(t.chunkBytes / pb) +
                                          " combine partials of " + num(pb) + " B"});
  out.push_back(
      {"rings.queue_chunks", num(t.queueChunks) +
                                 ": 8 chunks, halved (down to 2) while all rings of a card "
                                 "exceed 1/16 of HBM; rings now take " +
                                 num(ringBytes >> 20) + " MiB per card of a " +
                                 num(ringHbmBudget(sc) >> 20) + " MiB budget"});
  out.push_back({"rings.sender_cores",
                 num(t.senderCores) + ": 1/5 of the " + num(hw.aivCores) +
                     " AIV cores; each walks its targets' expert blocks and stages rows in UB"});
  out.push_back({"rings.forwarder_cores",
                 num(t.forwarderCores) +
                     ": 1/5 of the AIV cores; the combine splits each "
                     "destination server's tokens into " +
                     num(channels) + " channels, so " + num(lanes) +
                     " forwarder cores per card get (server, channel) pairs to forward"});
  out.push_back({"rings.receiver_cores",
                 num(t.receiverCores) +
                     ": 1/5 of the AIV cores; each drains the partial rings "
                     "of its token channels and writes XOut; " +
                     num(hw.aivCores - t.senderCores - t.forwarderCores - t.receiverCores) +
                     " AIV cores stay idle for other work"});
  out.push_back(
      {"combine.rdma_batch_bytes",
       kib(sc.combine.rdmaBatchBytes) + " (kept from the scenario): up to " +
           num(std::max<std::int64_t>(
               1, std::min(sc.combine.rdmaBatchBytes, t.chunkBytes * t.queueChunks) / pb)) +
           " partials per RDMA post; larger batches pay the post cost less often but "
           "hold partials back longer"});
  out.push_back({"combine.partial_dtype",
                 toString(sc.combine.partialDtype) +
                     " (kept from the scenario): bf16 halves the RDMA bytes and widens the "
                     "verification bound by 2^-8 of the terms"});
  out.push_back(
      {"combine.ub_window_rows",
       num(combineUbWindowRows(sc)) + " fp32 rows of " + num(partialAccumBytes(sc)) +
           " B in the forwarder's UB" +
           (sc.combine.ubWindowRows == 0 ? " (0 = what UB leaves beside the read batch)" : "")});
  // Constraints, each with its margin.
  out.push_back({"constraint", "UB per core (" + num(hw.ubBytes) + " B): sender needs " +
                                   num(need.sender) + " B, forwarder " + num(need.forwarder) +
                                   " B, receiver " + num(need.receiver) + " B"});
  out.push_back({"constraint", "a chunk holds at least one record: " + kib(t.chunkBytes) +
                                   " >= " + num(std::max(rec.recordBytes, pb)) + " B"});
  out.push_back({"constraint", "a ring has at least 2 chunks (one filling, one draining): " +
                                   num(t.queueChunks)});
  out.push_back({"constraint", "role cores fit the card: " +
                                   num(t.senderCores + t.forwarderCores + t.receiverCores) +
                                   " <= " + num(hw.aivCores) + " AIV cores"});
  out.push_back(
      {"note",
       "these are rules of thumb; `moe-sim tune` runs candidates on the engine and "
       "searches chunk, queue, the core split, batch bytes, partial dtype and UB window"});
  return out;
}

}  // namespace moe
