#include "core/runtime/stage_report.h"

namespace moe {

std::string_view stageIdName(StageId id) {
  switch (id) {
    case StageId::UpdateExpert:
      return "update-expert";
    case StageId::Layout:
      return "layout";
    case StageId::DispatchNotify:
      return "dispatch-notify";
    case StageId::Dispatch:
      return "dispatch";
    case StageId::Experts:
      return "experts";
    case StageId::Combine:
      return "combine";
    case StageId::AllToAll:
      return "all-to-all";
    case StageId::Matmul:
      return "matmul";
    case StageId::ReduceScatter:
      return "reduce-scatter";
    case StageId::A2aMatmulRs:
      return "a2a-matmul-rs";
  }
  return "unknown";
}

}  // namespace moe
