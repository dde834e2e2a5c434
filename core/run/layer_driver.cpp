#include <utility>

#include "core/kernels/kernels.h"
#include "core/run/layer_run.h"

namespace moe {

// The host program of one layer: each stage is a kernel launch and a stream sync (see
// StageRunner). Between notify and dispatch the host learns the receive sizes and allocates
// the outputs, as after DeepEP's notify; dispatch's buffers are freed before the experts.
Task LayerRun::driver() {
  LayerContext& c = *ctx_;
  auto launcher = [&c](void (*launch)(LayerContext&, Latch&)) {
    return [&c, launch](Latch& l) { launch(c, l); };
  };
  const bool phased = impl_ == DispatchImpl::Phased, flat = impl_ == DispatchImpl::Flat;
  c.dropConsumedRows = freeWhenDead_;
  co_await stages_->run("update-expert", launcher(launchUpdateExpert));
  co_await stages_->run("layout", launcher(launchLayout));
  co_await stages_->run("dispatch-notify", launcher(launchDispatchNotify));
  allocateDispatchOutputs();
  if (phased)
    co_await stages_->run("dispatch-phased", launcher(launchDispatchPhased));
  else if (flat)
    co_await stages_->run("dispatch-flat", launcher(launchDispatchFlat));
  else
    co_await stages_->run("dispatch-streaming", launcher(launchDispatchStreaming));
  commBufferBytes_ = c.commBufferBytes;
  // The experts will overwrite expand_x in place: hash and check dispatch's rows now.
  if (freeWhenDead_) settleDispatch();
  // Dispatch's rings and windows are dead now: keep memory to one stage's worth.
  emu_->discardRingData();
  for (Buffer* b : c.stageScratch) emu_->machine().discard(b);
  c.stageScratch.clear();
  co_await stages_->run("experts", launcher(launchExperts));
  if (freeWhenDead_) settleThroughExperts();
  if (phased)
    co_await stages_->run("combine-phased", launcher(launchCombinePhased));
  else if (flat)
    co_await stages_->run("combine-flat", launcher(launchCombineFlat));
  else
    co_await stages_->run("combine-streaming", launcher(launchCombineStreaming));
  combineBufferBytes_ = c.combineBufferBytes;
  stages_->finish();
}

}  // namespace moe
