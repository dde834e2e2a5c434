#pragma once
// What the run emits for the UI, the trace and the digest (DESIGN.md §4): closed activity
// intervals of every core, ring pointer changes, workspace-stage occupancy and stage marks.
// Logs are bounded (oldest dropped); the digest hashes every activity, ring and stage
// record, dropped or not, so it pins the whole run. Workspace-stage samples are not hashed:
// they follow from the kernel's steps, which the activity records already pin, and hashing
// them would change every digest published before they were observed.

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "core/engine/time.h"
#include "core/record/states.h"
#include "core/util/hash.h"

namespace moe {

struct ActivityInterval {
  int core;
  Role role;
  Activity activity;
  Time start;
  Time end;
};

struct RingPointerSample {
  int ring;
  Time time;
  std::int64_t head;
  std::int64_t tail;
};

struct WorkspaceSample {
  int strip;  // WorkspaceStages id
  Time time;
  int occupied;  // slots in use after the change
};

struct StageMark {
  std::string name;
  Time start;
  Time end;  // -1 while running
};

template <typename T>
class BoundedLog {
 public:
  explicit BoundedLog(std::size_t capacity) : capacity_(capacity) {}
  void push(const T& v) {
    if (items_.size() == capacity_) {
      items_.pop_front();
      ++dropped_;
    }
    items_.push_back(v);
  }
  const std::deque<T>& items() const { return items_; }
  std::uint64_t dropped() const { return dropped_; }
  std::size_t capacity() const { return capacity_; }

 private:
  std::size_t capacity_;
  std::deque<T> items_;
  std::uint64_t dropped_ = 0;
};

class Observer {
 public:
  explicit Observer(std::size_t logCapacity)
      : activities_(logCapacity), ringSamples_(logCapacity), workspaceSamples_(logCapacity) {}

  // Whether the activity, ring and workspace logs are kept (the default). A run whose logs
  // nobody reads (moe-sim run without --trace) keeps only their digest: at 256 ranks the
  // logs held tens of MB. Stage marks and the digest are kept either way.
  void keepLogs(bool keep) { keepLogs_ = keep; }
  bool keepsLogs() const { return keepLogs_; }

  void activity(const ActivityInterval& iv) {
    hash_.value(iv.core);
    hash_.value(iv.activity);
    hash_.value(iv.start);
    hash_.value(iv.end);
    if (keepLogs_) activities_.push(iv);
  }
  void ringPointers(int ring, Time t, std::int64_t head, std::int64_t tail) {
    hash_.value(ring);
    hash_.value(t);
    hash_.value(head);
    hash_.value(tail);
    if (keepLogs_) ringSamples_.push(RingPointerSample{ring, t, head, tail});
  }
  void workspaceSlots(int strip, Time t, int occupied) {
    if (keepLogs_) workspaceSamples_.push(WorkspaceSample{strip, t, occupied});
  }
  void stageBegin(const std::string& name, Time t) {
    hash_.text(name);
    hash_.value(t);
    stages_.push_back(StageMark{name, t, -1});
  }
  void stageEnd(Time t) {
    hash_.value(t);
    stages_.back().end = t;
  }

  const BoundedLog<ActivityInterval>& activities() const { return activities_; }
  const BoundedLog<RingPointerSample>& ringSamples() const { return ringSamples_; }
  const BoundedLog<WorkspaceSample>& workspaceSamples() const { return workspaceSamples_; }
  const std::vector<StageMark>& stages() const { return stages_; }
  std::uint64_t eventDigest() const { return hash_.digest(); }

 private:
  BoundedLog<ActivityInterval> activities_;
  BoundedLog<RingPointerSample> ringSamples_;
  BoundedLog<WorkspaceSample> workspaceSamples_;
  std::vector<StageMark> stages_;
  Fnv1a hash_;
  bool keepLogs_ = true;
};

}  // namespace moe
