#include "core/machine/causal_log.h"

#include <algorithm>

namespace moe {

int CausalLog::newOp(OpKind kind, OpPipe pipe, int core, Time now, int after, int word) {
  OpRecord r;
  r.kind = kind;
  r.pipe = pipe;
  r.core = core;
  r.issued = now;
  r.after = after;
  r.word = word;
  ops_.push_back(r);
  return static_cast<int>(ops_.size()) - 1;
}

// The bottleneck is judged among the path's saturated resources (their flows' rates sum to
// the capacity): the one giving each flow the least. A path with none saturated was not
// slowed by sharing; it keeps the least capacity per flow, whose excess will be about zero.
void CausalLog::sampleBottleneck(OpRecord& r, const FlowPath& path, const FlowNetwork* net) const {
  if (!net) return;
  for (int res : path) {
    const NetResource& n = net->resource(res);
    const float share = static_cast<float>(n.capacity / std::max(1, n.activeFlows));
    const bool saturated = n.activeFlows > 1 && n.activeRate >= 0.999 * n.capacity;
    if (r.bottleneck < 0 || (saturated && !r.bottleneckSaturated) ||
        (saturated == r.bottleneckSaturated && share < r.bottleneckShare)) {
      r.bottleneck = res;
      r.bottleneckShare = share;
      r.bottleneckSaturated = saturated;
    }
  }
}

void CausalLog::transferStarted(int op, Time now, std::int64_t bytes, const FlowPath& path,
                                const FlowNetwork* net) {
  OpRecord& r = ops_[static_cast<std::size_t>(op)];
  r.transferStart = now;
  r.bytes = bytes;
  r.pathCapacity = 0;
  if (net)
    for (int res : path) {
      const auto c = static_cast<float>(net->resource(res).capacity);
      r.pathCapacity = r.pathCapacity == 0 ? c : std::min(r.pathCapacity, c);
    }
  sampleBottleneck(r, path, net);
}

void CausalLog::transferEnded(int op, Time now, const FlowPath& path, const FlowNetwork* net) {
  OpRecord& r = ops_[static_cast<std::size_t>(op)];
  r.transferEnd = now;
  sampleBottleneck(r, path, net);
}

void CausalLog::programStarted(int core, Role role, Time now) {
  CoreLog& c = cores_[static_cast<std::size_t>(core)];
  c.programs.push_back(Program{role, now, -1});
}

void CausalLog::programEnded(int core, Time now) {
  CoreLog& c = cores_[static_cast<std::size_t>(core)];
  if (c.open) c.segments.back().end = now;
  c.open = false;
  if (!c.programs.empty()) c.programs.back().end = now;
}

void CausalLog::waitBegan(int core, Role role, Activity activity, WaitKind kind, int op, Time now) {
  CoreLog& c = cores_[static_cast<std::size_t>(core)];
  if (c.open) c.segments.back().end = now;
  Segment s;
  s.role = role;
  s.activity = activity;
  s.kind = kind;
  s.start = now;
  s.op = op;
  c.segments.push_back(s);
  c.open = true;
}

void CausalLog::wokenBy(int core, int writeOp) {
  CoreLog& c = cores_[static_cast<std::size_t>(core)];
  if (c.open) c.segments.back().wakeOp = writeOp;
}

void CausalLog::barrierReleased(int core, int lastCore, Time arrived) {
  CoreLog& c = cores_[static_cast<std::size_t>(core)];
  if (!c.open) return;
  c.segments.back().syncLast = lastCore;
  c.segments.back().syncArrived = arrived;
}

int CausalLog::wordId(const void* word, const Label& name) {
  auto [it, inserted] = wordIds_.try_emplace(word, static_cast<int>(wordNames_.size()));
  if (inserted) wordNames_.push_back(name.str());  // made once per word, not per op
  return it->second;
}

}  // namespace moe
