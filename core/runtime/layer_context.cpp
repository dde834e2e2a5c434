#include "core/runtime/layer_context.h"

#include "core/protocol/ring_buffer.h"

namespace moe {

LayerContext::LayerContext(Emulation& e, int placePerRank, int tableCols)
    : emu(e),
      sc(e.scenario()),
      m(e.machine()),
      ranks(sc.cluster.ranks()),
      servers(sc.cluster.servers),
      cardsPerServer(sc.cluster.cardsPerServer),
      tokensPerRank(sc.model.tokensPerRank),
      hidden(sc.model.hidden),
      topK(sc.model.topk),
      experts(sc.model.experts),
      placePerRank(placePerRank),
      tableCols(tableCols),
      pruning(!sc.eplb.pruningThreshold.empty()),
      rowBytes(recordLayout(sc).rowBytes),
      metaBytes(recordLayout(sc).metaBytes),
      recordBytes(recordLayout(sc).recordBytes),
      dispatchDtype(sc.model.dispatchDtype),
      quantizedDispatch(sc.model.dispatchDtype != DispatchDtype::Bf16),
      dispatchRowBytes(recordLayout(sc).dispatchRowBytes),
      dispatchRecordBytes(recordLayout(sc).dispatchRecordBytes),
      cards(sc.cluster.ranks()) {}

std::string_view faultName(Fault f) {
  switch (f) {
    case Fault::DropTail:
      return "drop-tail";
    case Fault::StallCore:
      return "stall-core";
    case Fault::None:
      break;
  }
  return "none";
}

std::optional<Fault> faultFromName(std::string_view name) {
  for (Fault f : {Fault::None, Fault::DropTail, Fault::StallCore})
    if (faultName(f) == name) return f;
  return std::nullopt;
}

}  // namespace moe
