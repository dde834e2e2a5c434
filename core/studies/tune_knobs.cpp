#include "core/studies/tune_knobs.h"

#include <cstdio>

namespace moe {

TuneKnobs knobsOf(const Scenario& sc, TuneObjective objective) {
  const RingTiling& t = objective == TuneObjective::Combine ? sc.rings.combine : sc.rings.dispatch;
  return TuneKnobs{t.chunkBytes,
                   t.queueChunks,
                   t.senderCores,
                   t.forwarderCores,
                   t.receiverCores,
                   sc.combine.rdmaBatchBytes,
                   sc.combine.partialDtype,
                   sc.combine.ubWindowRows,
                   sc.combine.sumLocalExperts};
}

Scenario withKnobs(const Scenario& sc, const TuneKnobs& k, TuneObjective objective) {
  Scenario s = sc;
  const RingTiling t{k.chunkBytes, k.queueChunks, k.senderCores, k.forwarderCores, k.receiverCores};
  if (objective != TuneObjective::Combine) s.rings.dispatch = t;
  if (objective != TuneObjective::Dispatch) s.rings.combine = t;
  s.combine.rdmaBatchBytes = k.rdmaBatchBytes;
  s.combine.partialDtype = k.partialDtype;
  s.combine.ubWindowRows = k.ubWindowRows;
  s.combine.sumLocalExperts = k.sumLocalExperts;
  return s;
}

std::string knobPath(const TuneKnob& knob, TuneObjective objective) {
  const std::string path = knob.path;
  if (objective == TuneObjective::Layer || path.rfind("rings.", 0) != 0) return path;
  return std::string(objective == TuneObjective::Combine ? "rings.combine." : "rings.dispatch.") +
         path.substr(6);
}

namespace {

std::string showInt(std::int64_t v) {
  return std::to_string(v);
}
std::string showBytes(std::int64_t v) {
  if (v == 0) return "0";
  if (v % 1024 == 0) return std::to_string(v / 1024) + " KiB";
  return std::to_string(v) + " B";
}
std::string showDtype(std::int64_t v) {
  return v == 0 ? "fp32" : "bf16";
}
std::string showSwitch(std::int64_t v) {
  return v == 0 ? "false" : "true";
}
std::string showWindow(std::int64_t v) {
  return v == 0 ? "0 (auto)" : std::to_string(v);
}

}  // namespace

const std::vector<TuneKnob>& tuneKnobs() {
  static const std::vector<TuneKnob> k = {
      {"combine.rdma_batch_bytes",
       {0, 32 << 10, 64 << 10, 128 << 10, 256 << 10, 512 << 10, 1 << 20},
       [](const TuneKnobs& t) { return t.rdmaBatchBytes; },
       [](TuneKnobs& t, std::int64_t v) { t.rdmaBatchBytes = v; },
       showBytes},
      {"combine.partial_dtype",
       {0, 1},
       [](const TuneKnobs& t) { return std::int64_t{t.partialDtype == PartialDtype::Bf16}; },
       [](TuneKnobs& t, std::int64_t v) {
         t.partialDtype = v ? PartialDtype::Bf16 : PartialDtype::Fp32;
       },
       showDtype,
       true},
      {"combine.sum_local_experts",
       {0, 1},
       [](const TuneKnobs& t) { return std::int64_t{t.sumLocalExperts}; },
       [](TuneKnobs& t, std::int64_t v) { t.sumLocalExperts = v != 0; },
       showSwitch,
       true},
      // Forwarders every 2 cores from 4: the forwarder paces the combine, and on 4 x 8 x 4096
      // the combine at 10 and 14 forwarders was 14-21% faster than at 12.
      {"rings.forwarder_cores",
       {1, 2, 4, 6, 8, 10, 12, 14, 16},
       [](const TuneKnobs& t) { return std::int64_t{t.forwarderCores}; },
       [](TuneKnobs& t, std::int64_t v) { t.forwarderCores = static_cast<int>(v); },
       showInt},
      {"rings.sender_cores",
       {2, 4, 6, 8, 12, 16},
       [](const TuneKnobs& t) { return std::int64_t{t.senderCores}; },
       [](TuneKnobs& t, std::int64_t v) { t.senderCores = static_cast<int>(v); },
       showInt},
      {"rings.receiver_cores",
       {2, 4, 6, 8, 12, 16},
       [](const TuneKnobs& t) { return std::int64_t{t.receiverCores}; },
       [](TuneKnobs& t, std::int64_t v) { t.receiverCores = static_cast<int>(v); },
       showInt},
      {"rings.queue_chunks",
       {2, 4, 8, 16, 32},
       [](const TuneKnobs& t) { return std::int64_t{t.queueChunks}; },
       [](TuneKnobs& t, std::int64_t v) { t.queueChunks = static_cast<int>(v); },
       showInt},
      {"rings.chunk_bytes",
       {16 << 10, 32 << 10, 64 << 10, 128 << 10, 256 << 10, 512 << 10},
       [](const TuneKnobs& t) { return t.chunkBytes; },
       [](TuneKnobs& t, std::int64_t v) { t.chunkBytes = v; },
       showBytes},
      {"combine.ub_window_rows",
       {0, 1, 2, 4, 8},
       [](const TuneKnobs& t) { return std::int64_t{t.ubWindowRows}; },
       [](TuneKnobs& t, std::int64_t v) { t.ubWindowRows = static_cast<int>(v); },
       showWindow},
  };
  return k;
}

std::string tuneKnobKey(const TuneKnobs& k) {
  char b[160];
  std::snprintf(b, sizeof b, "%lld/%d/%d/%d/%d/%lld/%d/%d/%d", static_cast<long long>(k.chunkBytes),
                k.queueChunks, k.senderCores, k.forwarderCores, k.receiverCores,
                static_cast<long long>(k.rdmaBatchBytes), static_cast<int>(k.partialDtype),
                k.ubWindowRows, int{k.sumLocalExperts});
  return b;
}

std::string numericsVsPhased(const TuneKnobs& s) {
  // The phased combine reads neither knob: its partials are fp32 and every expert's row is
  // sent and summed at the token's home.
  const bool bf16 = s.partialDtype == PartialDtype::Bf16;
  if (!bf16 && !s.sumLocalExperts) return "";
  std::string what = "streaming with ";
  what += bf16 ? "bf16 partials" : "fp32 partials";
  if (s.sumLocalExperts) what += " and local sums";
  return what + " vs phased fp32: different numerics";
}

}  // namespace moe
