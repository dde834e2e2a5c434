#include "core/run/layer_run.h"
#include "core/util/hash.h"

namespace moe {

std::uint64_t LayerRun::dispatchOutputsHash() const {
  Fnv1a h;
  for (const CardTensors& t : ctx_->cards)
    for (const Buffer* b :
         {t.update.balancedIds, t.update.mask, t.layout.tokensPerRank, t.layout.tokensPerRdmaRank,
          t.layout.tokensPerExpert, t.layout.isTokenInRank, t.dispatch.expandX,
          t.dispatch.expandScales, t.dispatch.expandIdx, t.dispatch.expertTokenNums,
          t.dispatch.offsets, t.dispatch.lengths})
      if (b) h.bytes(b->data(), b->bytes.size());
  return h.digest();
}

std::uint64_t LayerRun::expertOutputsHash() const {
  Fnv1a h;
  for (const CardTensors& t : ctx_->cards)
    if (t.experts.expertOut)
      h.bytes(t.experts.expertOut->data(), t.experts.expertOut->bytes.size());
  return h.digest();
}

// In two parts, so that a run whose experts overwrite expand_x (freeTensorsWhenDead) hashes
// the same: dispatch's part was taken when dispatch ended.
std::uint64_t LayerRun::outputHash() const {
  if (released_ || settled_) return outputHash_;
  Fnv1a h;
  h.value(dispatchSettled_ ? dispatchHash_ : dispatchOutputsHash());
  h.value(expertOutputsHash());
  return h.digest();
}

std::uint64_t LayerRun::digest() const {
  Fnv1a h;
  h.value(emu_->observer().eventDigest());
  h.value(emu_->sim().now());
  h.value(outputHash());
  h.value(combineHash());
  return h.digest();
}

std::uint64_t LayerRun::combineHash() const {
  if (released_) return combineHash_;
  Fnv1a h;
  for (const CardTensors& t : ctx_->cards)
    for (const Buffer* b : {t.combine.xOut, t.combine.normY, t.combine.rstd})
      if (b) h.bytes(b->data(), b->bytes.size());
  return h.digest();
}

void LayerRun::releaseTensors() {
  if (released_) return;
  outputHash_ = outputHash();
  combineHash_ = combineHash();
  released_ = true;
  emu_->machine().releaseGmStorage();
}

}  // namespace moe
