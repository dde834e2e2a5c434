#pragma once
// Flow-level bandwidth model (as in SimGrid): a transfer crosses a path of shared
// resources (a core's DMA port, HBM, an HCCS pair, NIC tx/rx). Active transfers share
// each resource max-min fairly, recomputed when transfers start or end.
//
// Only what a start or end changes is recomputed, and the result is still the exact
// max-min allocation (checked against core/reference/max_min_fair in tests). A max-min
// allocation is the one in which every flow crosses a saturated resource on which no flow
// runs faster (its bottleneck). After a change the solver refills a working set of flows
// with every other flow's rate held fixed. The set starts with the new flows and those
// bottlenecked on a saturated resource where a flow started or ended, and is closed over
// the saturated resources: a set flow will most likely change rate, and so the share of
// every saturated resource it crosses, so the flows bottlenecked there (by the old rates)
// join it, and theirs in turn. An outside flow then has all its bottlenecks where the set
// changes nothing, and keeps them. The fill is followed by a check of the bottleneck rule
// on the set: a set flow that breaks it is owed capacity that faster outside flows hold;
// they join (closed over in turn) and the fill runs again. The set only grows, so this
// ends; it ends with the exact allocation. Starts and ends at the same instant share one
// recompute. Before the closure, the check found the flows a change moves one layer per
// fill: a solve at 128 or 256 ranks refilled a growing set three to eight times.
//
// Cost: the solver visits the working set's flows and paths, and scans a resource's flow
// list only where the rule needs its fastest flow (a saturated resource the working set
// crosses). A resource's load is a running sum of its flows' rates (resummed every
// kExactEvery updates), so HBM's and the NICs' long lists are not summed per change. What
// remains proportional to the cluster is physical: when one of the k flows that share a
// saturated NIC ends, k rates really change (k grows with the servers a card sends to).
//
// Headroom: a resource that no allocation can saturate is left out of the solve. Every
// flow runs at most at the capacity of its narrowest resource, and the flows that share
// that resource at most at its capacity together. So a resource's load is at most the sum
// of the capacities of its flows' distinct narrowest resources (its headroom bound, an
// exact integer kept at every start and end). A resource whose bound is below its capacity
// is never the fill's smallest share and never saturated: the fill, the bottleneck check
// and the change tracking skip it, which changes no rate and no bit. Its load is still kept
// for observation. An HBM that only NICs and links feed is such a resource; a DMA port
// or a NIC is its own flows' narrowest, so it always takes part.
//
// Completion timers go by bottleneck class (core/machine/flow_classes): the flows that
// froze at one resource's share in a solve run at one rate and form a class with a single
// simulator timer, set for the member that ends first. When the solver changes that share
// for all of a class's members, the class takes the new rate once: one entry in its rate
// log and one timer re-armed, instead of a progress step and a re-armed timer per member.
// A flow moves to another class only when its rate changes apart from its class's.
// A member's bytes left are brought up to date lazily from its class's rate log, step by
// step with the same arithmetic a per-flow timer applied at each rate change, and its
// place among events at an equal time is the sequence number its own timer would have
// taken then (Simulator::reserveSeq). So every completion lands at the same picosecond
// and in the same order as with one timer per flow (Timers::PerFlow, kept as the
// reference the tests compare against).
//
// Handover: a max-min allocation depends only on the paths of the active flows. So when a
// transfer's completion starts another on the same path at once (the next write on a
// queue pair, the next DMA on a pipe: a fifth to a third of all ends), the allocation is
// unchanged: the new transfer takes the ended one's rate and class, the resources lose
// the change marks the end gave them, and no solve runs for the pair.

#include <algorithm>
#include <array>
#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/engine/simulator.h"
#include "core/machine/flow_classes.h"
#include "core/machine/pair_counts.h"

namespace moe {

// A transfer's route: the resources it crosses, at most FlowPath::kMax of them (DMA port,
// HCCS or switch ports, NIC tx, NIC rx, two HBMs). Held inline, so an operation record
// needs no allocation for its path.
class FlowPath {
 public:
  static constexpr int kMax = 6;
  FlowPath() = default;
  FlowPath(std::initializer_list<int> ids) {
    for (int r : ids) push_back(r);
  }
  explicit FlowPath(const std::vector<int>& ids) {
    for (int r : ids) push_back(r);
  }
  void push_back(int resource) {
    if (size_ == kMax)
      throw std::logic_error("FlowNetwork: a path of more than " + std::to_string(kMax) +
                             " resources");
    ids_[size_++] = resource;
  }
  void push_front(int resource) {
    push_back(resource);
    std::rotate(ids_.begin(), ids_.begin() + size_ - 1, ids_.begin() + size_);
  }
  void clear() { size_ = 0; }
  int size() const { return size_; }
  bool empty() const { return size_ == 0; }
  int operator[](int i) const { return ids_[i]; }
  const int* begin() const { return ids_.data(); }
  const int* end() const { return ids_.data() + size_; }

 private:
  std::array<int, kMax> ids_{};
  int size_ = 0;
};

struct NetResource {
  // The solver reads capacity and activeRate for every resource it visits: they come first.
  double capacity = 0;  // bytes per picosecond
  // Observation: the summed rate of active flows, and bytes that finished crossing.
  double activeRate = 0;
  int activeFlows = 0;
  double bytesCarried = 0;
  double gbps = 0;
  std::string name;
};

class FlowNetwork {
 public:
  // The longest path a transfer may cross (DMA port, HCCS, NIC tx, NIC rx, two HBMs).
  static constexpr int kMaxPath = FlowPath::kMax;

  // How transfers' ends are timed: one timer per bottleneck class (the engine's), or one
  // per flow (the reference the class timing is tested against: same times, same order).
  enum class Timers { PerClass, PerFlow };
  // Whether resources with headroom are left out of solves (the engine's), or every
  // resource takes part (the reference the skip is tested against: the same bits).
  enum class Headroom { Skip, SolveAll };
  explicit FlowNetwork(Simulator& sim, Timers timers = Timers::PerClass,
                       Headroom headroom = Headroom::Skip)
      : sim_(sim), perFlow_(timers == Timers::PerFlow), solveAll_(headroom == Headroom::SolveAll) {}

  int addResource(std::string name, double gbps);
  const NetResource& resource(int id) const { return resources_[id]; }
  int resourceCount() const { return static_cast<int>(resources_.size()); }
  int activeFlowCount() const { return activeCount_; }
  // Whether some allocation of the active flows could saturate the resource: only such
  // resources take part in a solve (see "Headroom" above).
  bool canBind(int resource) const { return canBind_[resource] != 0; }
  // Engine statistics: how often rates were recomputed and over how many flows in total
  // (summed over the fills of each recompute).
  std::uint64_t recomputes() const { return recomputes_; }
  std::uint64_t flowsRecomputed() const { return flowsRecomputed_; }
  // How often a completion timer was (re)armed: once per class re-timed (or per flow
  // re-rated, with Timers::PerFlow).
  std::uint64_t timersArmed() const { return timersArmed_; }
  // How many transfers took over the rate of one that ended on their path (no solve).
  std::uint64_t handovers() const { return handovers_; }

  // At most one recompute per `interval` of emulated time (0, the default: at every start
  // and end, exact). A change after a quiet spell is solved at once; changes that follow
  // within the interval wait for the next solve together: a new transfer waits with rate 0
  // and capacity freed by an ending one stays idle until then (but for a handover, which
  // needs no solve). Each transfer can lose up to one interval, and a solve over a large
  // cluster's many changes costs about what one does (its working set is most of the flows
  // either way). Scenario field bandwidth_update_ns.
  void setMinRecomputeInterval(Time interval) { minInterval_ = interval; }

  // Starts moving `bytes` over `path` now; `onDone` runs when the last byte has crossed.
  // Per-hop latency is the caller's business (it is fixed, not shared). A resource may
  // appear at most once on a path.
  void start(const FlowPath& path, std::int64_t bytes, Action onDone);

  // Every active flow's path and current rate, for tests against the reference solver.
  struct FlowView {
    std::vector<int> path;
    double rate;
  };
  std::vector<FlowView> activeFlows() const;

 private:
  // The solver reads path, hops, the flags and rate of every flow it visits, and slotOn
  // when it updates the flow's members: they fill the record's first cache line.
  struct alignas(64) Flow {
    std::array<int, kMaxPath> path{};
    int hops = 0;
    bool active = false;
    double rate = 0;
    std::array<int, kMaxPath> slotOn{};  // this flow's index in each path resource's list
    double remaining = 0;
    Time lastUpdate = 0;
    std::uint32_t generation = 0;
    int narrowest = 0;       // the resource of least capacity on its path (the first, on a tie)
    TimerId end = kNoTimer;  // per-flow timing: the completion event, re-armed on a rate change
    // Class timing: `remaining` is as of lastUpdate, from which the flow ran at segRate until
    // its class's rate log entry logPos (if any). seq is the place in the order of equal-time
    // events that a per-flow timer re-armed at the flow's last rate change would have taken.
    double segRate = 0;
    std::size_t logPos = 0;
    std::uint64_t seq = 0;
    Action onDone;
  };
  // A flow as seen from one resource it crosses. The rate is a copy kept in step with the
  // Flow, so the solver's scans over a resource's flows read one contiguous array instead
  // of jumping to every flow (those cache misses were most of the solver's time once a NIC
  // or an HBM carried hundreds of flows). Whether the flow is in the working set is one
  // byte per flow in inSet_, small enough to stay in cache: a flag copied into every
  // member cost a write to up to six far-apart lists each time a flow joined or left.
  struct Member {
    int slot;
    double rate;
  };
  // One cache line for each pass that reads it: the fill, the bottleneck check, then what
  // only a start, an end or the apply step touches.
  struct alignas(64) ResourceState {
    std::vector<int> setOn;  // fill scratch: working-set flows crossing it
    double left = 0;         // fill scratch: capacity not yet given out
    double key = 0;          // fill scratch: its share in the heap (a lower bound)
    int unfrozen = 0;        // fill scratch: working-set flows still rising
    bool inFill = false;     // fill scratch: listed in fillResources_
    bool lowered = false;    // fill scratch: listed in lowered_

    alignas(64) std::vector<Member> flows;  // active flows crossing it
    double load = 0;     // check scratch: summed rate (new rates for the working set)
    double fastest = 0;  // check scratch: the fastest flow's rate (-1: not yet known)
    double delta = 0;    // check scratch: the working set's rate changes on it (else 0)
    // Recompute scratch, once closed: every flow on it outside the working set runs slower
    // than this (-1: it was not saturated, so nothing is known).
    double closedAbove = -1;
    bool measured = false;  // check scratch: load/fastest are current
    bool closed = false;    // recompute scratch: its bottlenecked flows joined the set
    bool dirty = false;     // on a path that started or ended since the last recompute
    int sinceExact = 0;     // updates of the running rate sum since it was summed afresh

    alignas(64) double fastestBefore = -1;  // bottleneckRate() just before that change
    // Headroom bound: the capacities of its flows' distinct narrowest resources, but for
    // the `fillers`, flows whose narrowest resource alone could fill this one.
    std::int64_t bound = 0;
    int fillers = 0;
    std::int64_t boundUnits = 0;   // its own capacity in kBoundUnit, rounded up
    int target = -1;               // apply scratch: the class of the flows frozen here
    std::uint64_t targetMark = 0;  // apply scratch: target is this recompute's
    // Unused: 256 bytes make a resource's index one shift. At 192, LL EP 64 ran 1.4% more
    // instructions (an index is a multiply by three and a shift) and LL EP 128 took 2-3%
    // more CPU, for 5% fewer first-level cache misses.
    alignas(64) char spare[64];
  };
  static_assert(sizeof(ResourceState) == 4 * 64, "a pass's fields outgrew its cache line");
  // The transfer that has just ended, while its onDone runs (see "Handover" above).
  struct Ended {
    bool valid = false;
    FlowPath path;
    double rate = 0;
    int cls = FlowClasses::kNone;  // class timing: the class it left
    int frozenAt = 0;
    int narrowest = 0;
    std::size_t dirtyFrom = 0;  // dirty_ from here on is what its end marked
    bool boundHeld = false;     // its headroom bound is still counted (dropEndedBound)
    int retimeClass = -1;       // class timing: the class it left, re-armed after its completion
  };
  static void flowEvent(void* self, std::uint64_t arg);
  static void recomputeEvent(void* self, std::uint64_t);
  void touch(const Flow& f);  // marks the path dirty, remembering the old saturation
  // Counts a flow in (+1) or out (-1) of its path's headroom bounds; updates canBind_.
  void addBound(const int* path, int hops, int narrowest, int sign);
  void dropEndedBound();  // the ended transfer's bound, unless a handover took it
  void requestRecompute();
  void finish(int slot);
  int takeSlot();
  // A new active flow at `rate` (0 until a solve, or a handed-over rate). Unless it is
  // `handedOver`, its path's resources are marked for the next solve and its headroom
  // bound is counted (a handover keeps the ended transfer's).
  int addFlow(const FlowPath& path, std::int64_t bytes, Action onDone, double rate,
              bool handedOver);
  bool canHandOver(const FlowPath& path) const;
  void handOver(const FlowPath& path, std::int64_t bytes, Action onDone);
  void recompute();
  void addToSet(int slot);
  // Adds to the working set, from set_[from] on, the flows bottlenecked on the saturated
  // resources its flows cross (see recompute()).
  void closeOverBottlenecks(std::size_t from);
  // Adds r's flows that run at `rate` (its bottleneckRate()), once per recompute.
  void closeResource(int r, double rate);
  // The rate of the flows bottlenecked on r by the current rates (its fastest flow's), or -1
  // if r is not saturated.
  double bottleneckRate(int r) const;
  void setRate(Flow& f, double rate);  // on the flow and its members
  void fill();
  bool checkBottlenecks();  // false if the working set grew
  void measure(int r);
  double fastest(int r);              // measure(r) first
  void addRate(int r, double delta);  // the running sum of the rates on r (activeRate)
  double current(int slot) const;
  bool hasBottleneck(int slot);
  bool bottleneckOn(int r, double v);  // r saturated, and no flow on it faster than v
  // Moves `f` on to `to` at `rate` (never past its last byte) and returns the bytes moved:
  // the one progress step of the per-flow model, the class timing's rate-log replay and a
  // flow's move between classes.
  static double advance(Flow& f, double rate, Time to);
  void progress(Flow& f);
  void scheduleCompletion(int slot);
  // Class timing.
  struct RateStep {
    Time at;
    double rate;
  };
  struct ClassState {
    TimerId timer = kNoTimer;  // the end of `armed`, its first member to finish
    int armed = -1;
    std::vector<RateStep> log;  // the class's rate changes since its members' lastUpdate
    std::uint64_t mark = 0;     // apply scratch: count/group are this recompute's
    int count = 0;              // apply scratch: members whose rate changes
    int group = 0;              // apply scratch: where they froze (-2: not all at one place)
    bool touched = false;       // apply scratch: listed in touchedClasses_
  };
  static void classEvent(void* self, std::uint64_t cls);
  void applyByClass();
  // Its parts, in order: the working set's new rates written (changed_ lists the flows
  // whose rate changed); each class's changed members counted; classes that move whole
  // take the new rate once; the other changed flows join their resource's class.
  void writeNewRates();
  void countClassChanges();
  void moveWholeClasses(Time now);
  void regroupChanged(Time now);
  int newClass();
  void catchUp(int slot);  // replays the class's rate log into the flow's bytes left
  void credit(const Flow& f, double moved);
  void touchClass(int cls);
  void retime(int cls);  // arms the class's timer for its first member to finish

  Simulator& sim_;
  bool perFlow_;
  bool solveAll_;
  FlowClasses classes_;
  std::vector<ClassState> cls_;
  std::vector<int> freeClasses_;
  std::vector<int> touchedClasses_;
  std::vector<int> changed_;     // apply scratch: working-set flows whose rate changes
  std::vector<int> candidates_;  // retime scratch
  std::vector<int> frozenAt_;    // by slot: the resource whose share the last fill gave it
  std::uint64_t epoch_ = 0;      // counts recomputes, for the apply scratch marks
  static constexpr int kExactEvery = 4096;
  std::vector<NetResource> resources_;
  std::vector<ResourceState> state_;
  std::vector<Flow> flows_;
  std::vector<int> freeSlots_;
  int activeCount_ = 0;
  Ended ended_;
  std::uint64_t handovers_ = 0;
  std::vector<int> dirty_;     // resources touched since the last recompute
  std::vector<int> newFlows_;  // flows started since the last recompute
  bool recomputePending_ = false;
  Time minInterval_ = 0;
  Time lastRecompute_ = -kMaxEmulatedTime;  // long ago: the first change is solved at once
  std::uint64_t recomputes_ = 0;
  std::uint64_t flowsRecomputed_ = 0;
  std::uint64_t timersArmed_ = 0;
  // Scratch, kept between recomputes so the hot path does not allocate.
  struct HeapEntry {
    double share;
    int resource;
    bool operator>(const HeapEntry& o) const {
      return share > o.share || (share == o.share && resource > o.resource);
    }
  };
  std::vector<int> set_;            // the working set (flow slots)
  std::vector<int> fillResources_;  // resources the working set crosses (fill, then check)
  std::vector<int> lowered_;        // fill scratch: keys lowered while one bottleneck froze
  std::vector<int> measured_;       // resources whose load/fastest were computed
  std::vector<int> closed_;         // resources closeOverBottlenecks() has visited
  std::vector<int> grow_;           // flows joining the working set
  std::vector<HeapEntry> heap_;
  std::vector<double> newRate_;      // by slot
  std::vector<std::uint8_t> inSet_;  // by slot: in the working set of the current recompute
  // By resource: its flows' bounds sum to its capacity or more, so some allocation could
  // saturate it. Only such resources take part in a solve (one byte each, so the solver
  // reads it without touching the resource's state).
  std::vector<std::uint8_t> canBind_;
  // By (resource, narrowest resource): how many active flows on the first have the second
  // as their narrowest. The headroom bound counts each narrowest resource once.
  PairCounts narrowestOn_;
  // The unit of the bounds: 2^-30 bytes per picosecond (about 1 B/s). Capacities are rounded
  // up, so a bound is never below the true sum, and sums are exact: no drift.
  static constexpr double kBoundUnit = 1.0 / (1 << 30);
};

}  // namespace moe
