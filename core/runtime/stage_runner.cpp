#include "core/runtime/stage_runner.h"

namespace moe {

namespace {
// Adds sign x the bytes every intra-server link (HCCS pair or switch tx port) and NIC
// transmitter has carried so far, the RDMA posts issued so far, and every core's time per
// (role, activity) so far: called at a stage's start (-1) and end (+1), it leaves the
// stage's share.
void addStageCounters(const Machine& m, StageReport& rep, double sign) {
  for (const LinkInfo& l : m.links()) {
    const double b = sign * m.net().resource(l.resource).bytesCarried;
    if (l.kind == LinkInfo::Kind::Hccs || l.kind == LinkInfo::Kind::SwitchTx) rep.hccsBytes += b;
    if (l.kind == LinkInfo::Kind::NicTx) rep.nicBytes += b;
  }
  const auto n = static_cast<std::int64_t>(sign);
  rep.rdmaPosts += n * m.rdmaPosts;
  rep.rdmaDataPosts += n * m.rdmaDataPosts;
  rep.rdmaDataBytes += n * m.rdmaDataBytes;
  for (int c = 0; c < m.coreCount(); ++c)
    for (int r = 0; r < static_cast<int>(Role::Count); ++r) {
      const auto& t = m.core(c).roleActivityTime(static_cast<Role>(r));
      for (int a = 0; a < static_cast<int>(Activity::Count); ++a)
        rep.roleActivity[r][a] += n * t[a];
    }
}
}  // namespace

Task StageRunner::run(StageId id, std::string name, std::function<void(Latch&)> launch) {
  Simulator& sim = emu_.sim();
  current_ = name;
  currentId_ = id;
  StageReport rep;
  rep.id = id;
  rep.name = name;
  rep.start = sim.now();
  addStageCounters(emu_.machine(), rep, -1.0);
  emu_.observer().stageBegin(name, sim.now());
  Latch latch(sim);
  launch(latch);
  co_await latch;
  rep.end = sim.now();
  addStageCounters(emu_.machine(), rep, 1.0);
  rep.linkBytes = rep.hccsBytes + rep.nicBytes;
  emu_.observer().stageEnd(sim.now());
  reports_.push_back(std::move(rep));
}

}  // namespace moe
