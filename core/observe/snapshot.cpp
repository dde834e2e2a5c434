#include "core/observe/snapshot.h"

#include "core/runtime/steppable_run.h"

namespace moe {

namespace {
constexpr double kBytesPerPsToGBps = 1e12 / 1e9;

RingSnap ringSnap(const RingBuffer& r) {
  RingSnap s;
  s.id = r.id();
  s.name = r.name();
  s.kind = r.kind();
  s.consumerCard = r.consumerCard();
  s.producerCard = r.producerCard();
  s.producerCore = r.producerCore;
  s.consumerCore = r.consumerCore;
  s.capacity = r.capacity();
  s.chunkBytes = r.chunkBytes();
  s.head = r.head();
  s.tail = r.tail();
  s.producerTail = r.producerTail();
  s.cachedHead = r.cachedHead();
  s.consumerCursor = r.consumerCursor();
  const auto& recs = r.records();
  s.recordsInFlight = recs.size();
  if (!recs.empty()) {
    s.firstSrcRank = recs.front().meta.srcRank;
    s.firstToken = recs.front().meta.token;
    s.lastSrcRank = recs.back().meta.srcRank;
    s.lastToken = recs.back().meta.token;
  }
  s.stats = r.stats();
  s.description = r.describe();
  return s;
}

StagesSnap stagesSnap(const WorkspaceStages& w) {
  StagesSnap s;
  s.id = w.id();
  s.name = w.name();
  s.group = w.group();
  s.card = w.card();
  s.slotBytes = w.slotBytes();
  s.states.reserve(static_cast<std::size_t>(w.slotCount()));
  for (int i = 0; i < w.slotCount(); ++i) {
    s.states.push_back(w.state(i));
    s.items.push_back(w.item(i));
    s.uses.push_back(w.uses(i));
  }
  s.occupied = w.occupied();
  s.stats = w.stats();
  return s;
}
}  // namespace

int Snapshot::busyCores() const {
  int n = 0;
  for (const CoreSnap& c : cores) n += isWorking(c.activity) ? 1 : 0;
  return n;
}

int Snapshot::waitingCores() const {
  int n = 0;
  for (const CoreSnap& c : cores) n += isWaiting(c.activity) ? 1 : 0;
  return n;
}

Snapshot takeSnapshot(const SteppableRun& run, std::uint64_t runId) {
  const Emulation& emu = run.emulation();
  const Machine& m = emu.machine();
  Snapshot s;
  s.runId = runId;
  s.design = run.design();
  s.now = emu.sim().now();
  s.stage = run.currentStage();
  s.events = emu.sim().eventsRun();
  s.finished = run.finished();
  s.deadlocked = run.deadlocked();
  if (s.deadlocked) s.deadlock = emu.deadlockDiagnosis();
  s.servers = m.shape().servers;
  s.cardsPerServer = m.shape().cardsPerServer;
  s.cards.reserve(m.cardCount());
  for (int i = 0; i < m.cardCount(); ++i) {
    const Card& c = m.card(i);
    s.cards.push_back(CardSnap{c.id, c.server, c.local, c.aiv, c.aic});
  }
  // A core keeps the role of the last program launched on it; only cores at work in the
  // current stage show theirs. Any working core is in it (stages run one after another); a
  // done core is if it finished after the stage began. A core whose program finished
  // exactly at the start reads as idle, which is what it is for this stage.
  const auto& marks = emu.observer().stages();
  const Time stageStart = marks.empty() ? Time{-1} : marks.back().start;
  s.cores.reserve(m.coreCount());
  for (int i = 0; i < m.coreCount(); ++i) {
    const AiCore& c = m.core(i);
    CoreSnap cs;
    cs.id = c.id();
    cs.card = c.card();
    cs.index = c.index();
    cs.cube = c.kind() == CoreKind::Aic;
    cs.name = c.name();
    cs.activity = c.activity();
    cs.since = c.activitySince();
    cs.role = c.role();
    cs.waitText = c.waitDescription();
    cs.timeIn = c.activityTime();
    s.cores.push_back(std::move(cs));
  }
  // A role is the current stage's when some core took it in this stage: one still running,
  // or one whose program finished after the stage began. A core whose program finished
  // before (the layout stage's mappers during combine) shows idle; a finished core of a role
  // still at work (an a2a core done early in the fused kernel) keeps it.
  std::array<bool, static_cast<int>(Role::Count)> current{};
  auto stale = [stageStart](const CoreSnap& c) {
    return c.activity == Activity::Done && c.since <= stageStart;
  };
  for (const CoreSnap& c : s.cores)
    if (!stale(c)) current[static_cast<std::size_t>(c.role)] = true;
  for (CoreSnap& c : s.cores)
    if (stale(c) && !current[static_cast<std::size_t>(c.role)]) c.role = Role::Idle;
  for (const RingBuffer& r : emu.rings()) s.rings.push_back(ringSnap(r));
  for (const WorkspaceStages& w : emu.workspaceStages()) s.workspace.push_back(stagesSnap(w));
  for (const LinkInfo& l : m.links()) {
    if (l.kind == LinkInfo::Kind::Hbm || l.kind == LinkInfo::Kind::MtePort)
      continue;  // inside a card: not drawn between cards
    const NetResource& res = m.net().resource(l.resource);
    s.links.push_back(LinkSnap{l.kind, l.srcCard, l.dstCard, res.activeRate * kBytesPerPsToGBps,
                               res.gbps, res.bytesCarried});
  }
  s.stageMarks = emu.observer().stages();
  return s;
}

}  // namespace moe
