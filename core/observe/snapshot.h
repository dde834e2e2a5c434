#pragma once
// A plain-value picture of one run (LayerRun or A2aMatmulRun) at one emulated time (DESIGN.md §4).
// The worker thread builds it; the GUI thread only ever sees these copies, never the live
// emulation, so the two threads share no mutable state.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/engine/time.h"
#include "core/machine/machine.h"
#include "core/protocol/ring_buffer.h"
#include "core/protocol/workspace_stages.h"
#include "core/record/observer.h"
#include "core/record/states.h"

namespace moe {

class SteppableRun;

struct CoreSnap {
  int id = 0;
  int card = 0;
  int index = 0;      // within its kind on the card
  bool cube = false;  // AIC (cube) or AIV (vector)
  std::string name;
  Role role = Role::Idle;
  Activity activity = Activity::Idle;
  Time since = 0;
  std::string waitText;
  std::array<Time, static_cast<int>(Activity::Count)> timeIn{};
};

struct RingSnap {
  int id = 0;
  std::string name;
  RingKind kind = RingKind::Ipc;
  int consumerCard = 0;
  int producerCard = 0;
  int producerCore = -1;
  int consumerCore = -1;
  std::int64_t capacity = 0;
  std::int64_t chunkBytes = 0;
  std::int64_t head = 0;
  std::int64_t tail = 0;
  std::int64_t producerTail = 0;
  std::int64_t cachedHead = 0;
  std::int64_t consumerCursor = 0;
  std::int64_t recordsInFlight = 0;  // written but not yet read
  int firstSrcRank = -1;             // owner rows of the oldest and newest record in flight
  int firstToken = -1;
  int lastSrcRank = -1;
  int lastToken = -1;
  RingStats stats;
  std::string description;
  std::int64_t occupied() const { return tail - head; }
};

// One strip of workspace stages (WorkspaceStages): the state and occupant of every slot.
struct StagesSnap {
  int id = 0;
  std::string name;
  std::string group;  // "a2a input", "partial sums", "reduce-scatter buffer", ...
  int card = 0;
  std::int64_t slotBytes = 0;
  std::vector<SlotState> states;    // per slot
  std::vector<std::int64_t> items;  // per slot: occupant (or last occupant), -1 never used
  std::vector<std::int64_t> uses;   // per slot: claims so far
  int occupied = 0;
  WorkspaceStagesStats stats;
  int slotCount() const { return static_cast<int>(states.size()); }
};

struct LinkSnap {
  LinkInfo::Kind kind = LinkInfo::Kind::Hccs;
  int srcCard = 0;
  int dstCard = 0;
  double rateGBps = 0;      // current
  double capacityGBps = 0;  // peak
  double bytesCarried = 0;
  double load() const { return capacityGBps > 0 ? rateGBps / capacityGBps : 0.0; }
};

struct CardSnap {
  int id = 0;
  int server = 0;
  int local = 0;
  std::vector<int> aiv;  // core ids
  std::vector<int> aic;
};

struct Snapshot {
  std::uint64_t runId = 0;  // which run (reset) produced it: stale snapshots are dropped
  std::string design;       // "streaming", "phased", "pipelined", "sequential"
  Time now = 0;
  std::string stage;
  std::uint64_t events = 0;  // events run so far
  bool finished = false;
  bool deadlocked = false;
  std::string deadlock;
  int servers = 0;
  int cardsPerServer = 0;
  std::vector<CardSnap> cards;
  std::vector<CoreSnap> cores;
  std::vector<RingSnap> rings;
  std::vector<StagesSnap> workspace;  // workspace-stage strips (the fused operator's slots)
  std::vector<LinkSnap> links;        // HCCS pairs and NIC tx/rx only (the cluster view's links)
  std::vector<StageMark> stageMarks;

  int busyCores() const;
  int waitingCores() const;
};

// O(entities): cores, rings, workspace slots and links are each visited once.
Snapshot takeSnapshot(const SteppableRun& run, std::uint64_t runId);

}  // namespace moe
