#include <utility>

#include "core/run/design_registry.h"
#include "core/run/layer_run.h"

namespace moe {

// The host program of one layer: the design's stages in order, each a kernel launch and a
// stream sync (see StageRunner). Between notify and dispatch the host learns the receive
// sizes and allocates the outputs, as after DeepEP's notify; dispatch's buffers are freed
// before the experts.
Task LayerRun::driver() {
  LayerContext& c = *ctx_;
  c.dropConsumedRows = freeWhenDead_;
  for (const DesignStage& stage : designEntry(design_).stages) {
    if (stage.id == StageId::Dispatch) allocateDispatchOutputs();
    co_await stages_->run(stage.id, std::string(stage.name),
                          [&c, launch = stage.layer](Latch& l) { launch(c, l); });
    if (stage.id == StageId::Dispatch) {
      commBufferBytes_ = c.commBufferBytes;
      // The experts will overwrite expand_x in place: hash and check dispatch's rows now.
      if (freeWhenDead_) settleDispatch();
      // Dispatch's rings and windows are dead now: keep memory to one stage's worth.
      emu_->discardRingData();
      if (retireRings_) emu_->retireRings();
      for (Buffer* b : c.stageScratch) emu_->machine().discard(b);
      c.stageScratch.clear();
    }
    if (stage.id == StageId::Experts && freeWhenDead_) settleThroughExperts();
    if (stage.id == StageId::Combine) combineBufferBytes_ = c.combineBufferBytes;
  }
  stages_->finish();
}

}  // namespace moe
