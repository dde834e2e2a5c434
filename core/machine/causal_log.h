#pragma once
// What made each core wait, recorded so a finished run's critical path can be walked back
// (core/observe/critical_path.h). Off by default: the machine writes it only when one is
// set (Machine::setCausalLog), and writing it schedules no event and hashes nothing, so a
// run with it has the same events and digest as one without.
//
// Per core it keeps the programs it ran and every suspension of its program (a wait
// segment): what the core awaited (an op, a word change, a barrier) from when it suspended
// until it next suspended or ended (a program runs in zero emulated time between awaits, so
// the next suspension starts where this one was resumed). A word wait records the write
// that woke it, a barrier wait the last core to arrive. Ops record when they were issued,
// when their transfer was on the flow network (with its path's uncontended rate and its
// most shared resource), the data op a tail word was ordered behind, the op before an
// RDMA write on its queue pair, and for a fence, the op whose landing released it.

#include <cstdint>
#include <deque>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/engine/time.h"
#include "core/machine/flow_network.h"
#include "core/machine/label.h"
#include "core/record/states.h"

namespace moe {

class CausalLog {
 public:
  enum class OpKind : std::uint8_t { Copy, Compute, Rdma, WordWrite, WordRead, Fence };
  enum class OpPipe : std::uint8_t { Mte2, Mte3, Vector, Scalar, Cube };

  // Kept small: a run issues millions of ops.
  struct OpRecord {
    OpKind kind = OpKind::Compute;
    OpPipe pipe = OpPipe::Scalar;
    bool bottleneckSaturated = false;
    int core = -1;
    Time issued = -1;
    Time transferStart = -1;  // on the flow network (or a tiny DMA's port time) ...
    Time transferEnd = -1;    // ... until its last byte crossed
    std::int64_t bytes = 0;
    // The path's most shared resource seen while the transfer ran (a saturated one giving
    // the least per flow, sampled at its start and end), and the path's uncontended rate.
    int bottleneck = -1;
    float bottleneckShare = 0;  // bytes per ps
    float pathCapacity = 0;     // bytes per ps: the smallest capacity on the path
    int after = -1;             // a tail word's data op (it lands only after it)
    int qpPrev = -1;            // RDMA: the op posted before it on its queue pair
    int fenceCause = -1;        // a fence: the op whose landing released it
    int word = -1;              // word ops: the word (wordName)
  };

  enum class WaitKind : std::uint8_t { Op, Word, Sync };
  struct Segment {
    Role role = Role::Idle;
    Activity activity = Activity::Idle;
    WaitKind kind = WaitKind::Op;
    Time start = 0;
    Time end = -1;          // when the core next suspended or ended its program
    int op = -1;            // Op: the awaited op
    int wakeOp = -1;        // Word: the write that woke it (-1: not woken by a write)
    int syncLast = -1;      // Sync: the core whose arrival released the barrier ...
    Time syncArrived = -1;  // ... and when it arrived
  };
  struct Program {
    Role role = Role::Idle;
    Time start = 0;
    Time end = -1;
  };
  struct CoreLog {
    std::vector<Program> programs;
    std::vector<Segment> segments;
    bool open = false;  // the last segment has no end yet
  };

  explicit CausalLog(int cores) : cores_(static_cast<std::size_t>(cores)) {}

  // --- Written by the machine and the emulation ---
  int newOp(OpKind kind, OpPipe pipe, int core, Time now, int after, int word);
  void transferStarted(int op, Time now, std::int64_t bytes, const FlowPath& path,
                       const FlowNetwork* net);
  void transferEnded(int op, Time now, const FlowPath& path, const FlowNetwork* net);
  void queuedBehind(int op, int prev) { ops_[static_cast<std::size_t>(op)].qpPrev = prev; }
  void fenceReleasedBy(int fence, int cause) {
    ops_[static_cast<std::size_t>(fence)].fenceCause = cause;
  }
  void programStarted(int core, Role role, Time now);
  void programEnded(int core, Time now);
  void waitBegan(int core, Role role, Activity activity, WaitKind kind, int op, Time now);
  void wokenBy(int core, int writeOp);
  void barrierReleased(int core, int lastCore, Time arrived);
  int wordId(const void* word, const Label& name);

  // --- Read by the walk ---
  int coreCount() const { return static_cast<int>(cores_.size()); }
  const CoreLog& core(int c) const { return cores_[static_cast<std::size_t>(c)]; }
  const OpRecord& op(int id) const { return ops_[static_cast<std::size_t>(id)]; }
  const std::string& wordName(int id) const { return wordNames_[static_cast<std::size_t>(id)]; }

 private:
  void sampleBottleneck(OpRecord& r, const FlowPath& path, const FlowNetwork* net) const;
  std::vector<CoreLog> cores_;
  std::deque<OpRecord> ops_;  // no copy of millions of records when it grows
  std::vector<std::string> wordNames_;
  std::unordered_map<const void*, int> wordIds_;
};

}  // namespace moe
