#pragma once
// Why a stage took the time it did: its critical path, walked backwards from the stage's
// last event over a run's causal log (core/machine/causal_log.h), and its time attributed
// to what made it up (docs/ARCHITECTURE.md, "Why a stage took its time").
//
// The walk starts on the core whose program ended last, at the stage's end. On a core it
// steps back one wait segment at a time. A segment awaiting the core's own op (a copy, a
// vector or cube op, a fence) is the core's work: its time goes to the core's role and what
// the op did, except the part by which a transfer ran slower than its path's uncontended
// rate, which goes to the transfer's most shared link ("NIC tx of card 3 saturated"). A
// segment waiting on a word (ring data, ring space, a flag) jumps to the core whose write
// woke it, at the time it issued that write; the time from the issue to the wake is the
// signal's latency (an RDMA tail's is its data's delivery: queue-pair wait, wire time,
// landing, split the same way; the writes ahead on its queue pair count as its wire time).
// A barrier jumps to its last arrival. So the path covers the stage from start to end once,
// and the shares sum to 100%.

#include <cstdint>
#include <string>
#include <vector>

#include "core/machine/causal_log.h"
#include "core/machine/machine.h"
#include "core/runtime/stage_report.h"

namespace moe {

struct CriticalPathItem {
  enum class Kind : std::uint8_t { Work, Link, Signal, Barrier, Launch };
  Kind kind = Kind::Work;
  std::string label;  // plain words: "forwarder cores copying GM to UB (DMA reads)"
  // What the one-line description adds it up under, and its part there: a role's work
  // ("forwarder cores busy" / "copying GM to UB (DMA reads)"); other kinds are their own
  // group, with no detail.
  std::string group;
  std::string detail;
  Time time = 0;           // on the critical path
  double share = 0;        // of the stage's time, 0..1
  std::int64_t ops = 0;    // Work: awaited ops on the path, and ...
  std::int64_t bytes = 0;  // ... the bytes their transfers moved
};

struct CriticalPathAttribution {
  StageId stage = StageId::Dispatch;
  std::string stageName;
  Time start = 0;
  Time end = 0;
  std::string lastCore;                 // the core whose program ended the stage
  int hops = 0;                         // jumps from a waiting core to the core that released it
  std::vector<CriticalPathItem> items;  // largest first; times sum to end - start
  Time duration() const { return end - start; }
};

// The attribution of `stage` of a run whose `log` was recorded on `m` from the run's start.
CriticalPathAttribution attributeCriticalPath(const CausalLog& log, const Machine& m,
                                              const StageReport& stage);

// One line: "combine 67.0 ms: forwarder cores busy 61.0% (copying GM to UB (DMA reads, 28.0
// KiB each) 40.0%, ...); HCCS links from card 3 saturated 24.0%; ..." with the `maxGroups`
// largest groups (each with its two largest parts), then what the rest add up to.
std::string describeCriticalPath(const CriticalPathAttribution& a, int maxGroups = 4);

}  // namespace moe
