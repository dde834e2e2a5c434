#include "core/run/a2a_matmul_run.h"

#include <algorithm>
#include <map>

#include "core/run/design_registry.h"
#include "core/util/hash.h"

namespace moe {

Scenario a2aMatmulMachineScenario(const Scenario& base, const A2aMatmulShape& s) {
  Scenario sc = base;
  sc.cluster.cardsPerServer = sc.hardware.cardsPerServer;
  sc.cluster.servers = std::max(1, s.ranks / sc.hardware.cardsPerServer);
  sc.payload = PayloadMode::Full;
  return sc;
}

A2aMatmulRun::A2aMatmulRun(const Scenario& sc, std::shared_ptr<const A2aMatmulInputs> in,
                           bool pipelined, std::shared_ptr<const A2aReferenceOnce> reference)
    : in_(std::move(in)),
      reference_(reference ? std::move(reference) : std::make_shared<const A2aReferenceOnce>(in_)) {
  validateA2aMatmul(in_->shape, sc.hardware);
  emu_ = std::make_unique<Emulation>(a2aMatmulMachineScenario(sc, in_->shape));
  kernel_ = std::make_unique<A2aMatmulContext>(*emu_, *in_, pipelined);
  stages_ = std::make_unique<StageRunner>(*emu_);
  driverProgram_ = emu_->sim().spawn(driver(), "host");
}

A2aMatmulRun::A2aMatmulRun(const ResolvedScenario& rs, bool pipelined)
    : A2aMatmulRun(rs.scenario(), rs.a2aInputs(), pipelined, rs.a2aReference()) {}

// The host program: the design's stages in order, each a kernel launch and a stream sync.
Task A2aMatmulRun::driver() {
  A2aMatmulContext& k = *kernel_;
  for (const DesignStage& stage :
       designEntry(k.pipelined() ? Design::Pipelined : Design::Sequential).stages)
    co_await stages_->run(stage.id, std::string(stage.name),
                          [&k, launch = stage.fused](Latch& l) { launch(k, l); });
  stages_->finish();
}

A2aMatmulRun::~A2aMatmulRun() = default;

bool A2aMatmulRun::step() {
  if (!emu_->sim().step()) return false;
  return !finished();
}

void A2aMatmulRun::runToEnd() {
  emu_->sim().run();
}

bool A2aMatmulRun::finished() const {
  // Done when the driver has finished and every operation it left in flight has landed
  // (a last RDMA word write can land after the last core finished): stepping event by
  // event then ends at the same time as runToEnd.
  return emu_->sim().programDone(driverProgram_) && emu_->sim().pendingEvents() == 0;
}

VerificationCheck A2aMatmulRun::completion() const {
  VerificationCheck c{design() + " run completed", false, {}};
  if (!finished()) {
    c.detail = emu_->sim().pendingEvents() > 0 ? "the run has not reached its end"
                                               : emulation().deadlockDiagnosis();
    return c;
  }
  const auto v = emu_->violations();
  c.ok = v.empty();
  c.detail = c.ok ? "all programs finished"
                  : std::to_string(v.size()) + " protocol violations, first: " + v.front();
  return c;
}

VerificationCheck A2aMatmulRun::verify(const A2aMatmulReference& ref) const {
  const std::string mm = compareWithReference(ref, outputs());
  return {design() + " == reference GEMM", mm.empty(),
          mm.empty() ? "|got - ref| <= 2^-10|ref| + 1e-3 sum|a w| + 1e-6" : mm};
}

std::vector<VerificationCheck> A2aMatmulRun::verifyAgainstReference() const {
  return {completion(), verify(reference_->get())};
}

std::uint64_t A2aMatmulRun::digest() const {
  Fnv1a h;
  h.value(emu_->observer().eventDigest());
  h.value(emu_->sim().now());
  for (const auto& o : outputs()) h.bytes(o.data(), o.size() * 2);
  return h.digest();
}

RunBuffers A2aMatmulRun::buffers() const {
  RunBuffers b;
  b.workspaceBytes = workspaceBytes();
  return b;
}

A2aMatmulRunResult A2aMatmulRun::fusedResult() const {
  A2aMatmulRunResult res;
  res.run = result();
  res.completed = completion();
  res.out = outputs();
  std::map<int, std::int64_t> inUse;  // per card
  for (const WorkspaceStages& w : emu_->workspaceStages())
    inUse[w.card()] += static_cast<std::int64_t>(w.stats().peakOccupied) * w.slotBytes();
  for (const auto& [card, bytes] : inUse)
    res.workspacePeakInUseBytes = std::max(res.workspacePeakInUseBytes, bytes);
  return res;
}

A2aMatmulRunResult runA2aMatmul(const Scenario& sc, const A2aMatmulInputs& in, bool pipelined) {
  // Borrows `in` for the call: an aliasing pointer that owns nothing.
  A2aMatmulRun run(sc, std::shared_ptr<const A2aMatmulInputs>(std::shared_ptr<void>(), &in),
                   pipelined);
  run.runToEnd();
  return run.fusedResult();
}

}  // namespace moe
