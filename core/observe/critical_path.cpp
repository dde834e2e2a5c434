#include "core/observe/critical_path.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>
#include <utility>

namespace moe {

namespace {

using OpRec = CausalLog::OpRecord;

std::string cores(Role r) {
  return std::string(roleName(r)) + " cores";
}

// What a core awaiting `r` was doing, in words. A fence is the work it waited for.
std::string doing(const CausalLog& log, const OpRec& r) {
  switch (r.kind) {
    case CausalLog::OpKind::Copy:
      if (r.pipe == CausalLog::OpPipe::Mte2) return "copying GM to UB (DMA reads)";
      if (r.pipe == CausalLog::OpPipe::Mte3) return "copying UB to GM (DMA writes)";
      return "copying";
    case CausalLog::OpKind::Compute:
      if (r.pipe == CausalLog::OpPipe::Vector) return "computing on the vector unit";
      if (r.pipe == CausalLog::OpPipe::Cube) return "computing on the cube unit";
      return "polling and scalar work";
    case CausalLog::OpKind::Rdma:
      return r.word >= 0 ? "writing remote flags over RDMA" : "sending RDMA writes";
    case CausalLog::OpKind::WordWrite:
      return "writing flags";
    case CausalLog::OpKind::WordRead:
      return "reading flags";
    case CausalLog::OpKind::Fence:
      return r.fenceCause >= 0 ? doing(log, log.op(r.fenceCause)) : "fencing";
  }
  return "working";
}

// The op whose transfer a wait on `id` waited for: itself, a fence's releasing op, or a
// tail word's data.
const OpRec* transferOf(const CausalLog& log, int id) {
  if (id < 0) return nullptr;
  const OpRec* r = &log.op(id);
  if (r->kind == CausalLog::OpKind::Fence && r->fenceCause >= 0) r = &log.op(r->fenceCause);
  if (r->word >= 0 && r->after >= 0) r = &log.op(r->after);
  return r->transferStart >= 0 ? r : nullptr;
}

// A link in plain words: its kind ("NIC tx"), and which one ("of card 3").
struct LinkWords {
  std::string kind;
  std::string which;
};
LinkWords linkWords(const Machine& m, int resource) {
  for (const LinkInfo& l : m.links()) {
    if (l.resource != resource) continue;
    const std::string card = "card " + std::to_string(l.srcCard);
    switch (l.kind) {
      case LinkInfo::Kind::Hccs:
        return {"HCCS links", "from " + card};
      case LinkInfo::Kind::NicTx:
        return {"NIC tx", "of " + card};
      case LinkInfo::Kind::NicRx:
        return {"NIC rx", "of " + card};
      case LinkInfo::Kind::Hbm:
        return {"HBM", "of " + card};
      case LinkInfo::Kind::MtePort:
        return {"DMA ports", "of " + card + "'s cores"};
      case LinkInfo::Kind::SwitchTx:
        return {"switch tx ports", "of " + card};
      case LinkInfo::Kind::SwitchRx:
        return {"switch rx ports", "of " + card};
    }
  }
  return {m.net().resource(resource).name, ""};
}

// A word's ring or flag, without card and lane numbers, so a ring family adds up:
// "card5 combine IPC <- card2 lane1.tail" -> "combine IPC <- card lane".
std::string wordFamily(const std::string& word) {
  std::string name = word;
  for (const char* suffix : {".head", ".tail"})
    if (name.size() > 5 && name.ends_with(suffix)) name.resize(name.size() - 5);
  const auto dot = name.find('.');
  if (name.starts_with("card") && dot != std::string::npos) name = name.substr(dot + 1);
  std::string out;
  for (char ch : name)
    if (!std::isdigit(static_cast<unsigned char>(ch))) out += ch;
  while (out.starts_with("card ")) out = out.substr(5);
  return out;
}

class Tally {
 public:
  void add(CriticalPathItem::Kind kind, const std::string& label, Time t) {
    add(kind, label, label, "", t, 0, 0);
  }
  void add(CriticalPathItem::Kind kind, const std::string& group, const std::string& label,
           const std::string& detail, Time t, std::int64_t ops, std::int64_t bytes) {
    if (t <= 0 && ops == 0) return;
    CriticalPathItem& it = items_[{kind, label}];
    it.kind = kind;
    it.label = label;
    it.group = group;
    it.detail = detail;
    it.time += t;
    it.ops += ops;
    it.bytes += bytes;
  }
  // Names for the parts of a wait on a transfer: before it was on the wire (its pipe or
  // queue pair busy, an RDMA post), on the wire at the path's uncontended rate, and after
  // its last byte crossed (landing, a poll). A role's work uses one name for all three.
  struct Parts {
    CriticalPathItem::Kind kind;
    std::string group;
    std::string prefix;               // labels are "prefix detail"
    std::string before, wire, after;  // the details
  };
  // [a, b) waiting for transfer `tr`. The part by which a transfer ran slower than its
  // path's uncontended rate goes to its most shared link. Before `tr` started, an RDMA
  // write waited for the writes ahead of it on its queue pair: their wire time (and links)
  // count the same way, the gaps between them as `before`.
  void addDelivery(const Machine& m, const CausalLog& log, const OpRec* tr, Time a, Time b,
                   const Parts& p, std::int64_t ops) {
    add(p.kind, p.group, p.prefix + " " + p.wire, p.wire, 0, ops, tr ? tr->bytes : 0);
    if (!tr) {
      add(p.kind, p.group, p.prefix + " " + p.before, p.before, b - a, 0, 0);
      return;
    }
    Time hi = b;
    if (tr->transferEnd >= 0 && tr->transferEnd < hi) {
      const Time lo = std::max(a, tr->transferEnd);
      add(p.kind, p.group, p.prefix + " " + p.after, p.after, hi - lo, 0, 0);
      hi = lo;
    }
    // A queue pair's writes are on the wire one after the other: each earlier one covers
    // the time before the next started. Bounded, in case of a very long chain.
    for (int steps = 0; tr && hi > a && steps < 100000; ++steps) {
      if (tr->transferStart >= 0 && tr->transferStart < hi && tr->transferEnd >= 0) {
        const Time top = std::clamp(tr->transferEnd, a, hi);
        add(p.kind, p.group, p.prefix + " " + p.before, p.before, hi - top, 0, 0);
        const Time lo = std::max(a, tr->transferStart);
        addWire(m, tr, lo, top, p);
        hi = lo;
      }
      tr = tr->qpPrev >= 0 ? &log.op(tr->qpPrev) : nullptr;
    }
    add(p.kind, p.group, p.prefix + " " + p.before, p.before, hi - a, 0, 0);
  }
  // [a, b) of `tr` on the wire: the slowdown's share to the link, the rest as `p.wire`.
  void addWire(const Machine& m, const OpRec* tr, Time a, Time b, const Parts& p) {
    if (b <= a) return;
    Time link = 0;
    if (tr->transferEnd > tr->transferStart && tr->bottleneck >= 0 && tr->pathCapacity > 0) {
      const double actual = static_cast<double>(tr->transferEnd - tr->transferStart);
      const double ideal = static_cast<double>(tr->bytes) / tr->pathCapacity;
      const double excess = std::max(0.0, actual - ideal);
      link = std::clamp<Time>(std::llround(static_cast<double>(b - a) * excess / actual), 0, b - a);
    }
    if (link > 0) {
      // Links of a kind add up in the description ("NIC tx saturated 39%"), each named.
      const LinkWords w = linkWords(m, tr->bottleneck);
      const std::string label =
          w.which.empty() ? w.kind + " saturated" : w.kind + " " + w.which + " saturated";
      add(CriticalPathItem::Kind::Link, w.kind + " saturated", label, w.which, link, 0, 0);
    }
    add(p.kind, p.group, p.prefix + " " + p.wire, p.wire, b - a - link, 0, 0);
  }
  std::vector<CriticalPathItem> ranked(Time total) const {
    std::vector<CriticalPathItem> out;
    for (const auto& [key, it] : items_) out.push_back(it);
    std::stable_sort(out.begin(), out.end(),
                     [](const auto& x, const auto& y) { return x.time > y.time; });
    for (auto& it : out)
      it.share = total > 0 ? static_cast<double>(it.time) / static_cast<double>(total) : 0.0;
    return out;
  }

 private:
  std::map<std::pair<CriticalPathItem::Kind, std::string>, CriticalPathItem> items_;
};

// The program of `core` running at `t` (started before it), or nullptr.
const CausalLog::Program* programAt(const CausalLog::CoreLog& c, Time t) {
  auto it = std::partition_point(c.programs.begin(), c.programs.end(),
                                 [t](const auto& p) { return p.start < t; });
  return it == c.programs.begin() ? nullptr : &*std::prev(it);
}

// The last wait segment of `core` that began before `t`, or nullptr.
const CausalLog::Segment* segmentBefore(const CausalLog::CoreLog& c, Time t) {
  auto it = std::partition_point(c.segments.begin(), c.segments.end(),
                                 [t](const auto& s) { return s.start < t; });
  return it == c.segments.begin() ? nullptr : &*std::prev(it);
}

// A stage's length as the run summary reads: ms from 1 ms up, else us.
std::string formatDuration(Time t) {
  char buf[32];
  if (t >= 1000 * kUs)
    std::snprintf(buf, sizeof buf, "%.1f ms", static_cast<double>(t) / 1e9);
  else
    std::snprintf(buf, sizeof buf, "%.1f us", static_cast<double>(t) / 1e6);
  return buf;
}

std::string formatBytes(double b) {
  char buf[32];
  if (b >= 1024.0 * 1024.0)
    std::snprintf(buf, sizeof buf, "%.1f MiB", b / (1024.0 * 1024.0));
  else if (b >= 1024.0)
    std::snprintf(buf, sizeof buf, "%.1f KiB", b / 1024.0);
  else
    std::snprintf(buf, sizeof buf, "%.0f B", b);
  return buf;
}

// Where the backward walk stands: on a core, at a time, after some hops between cores.
struct Walk {
  int core;
  Time t;
  int hops = 0;
};

// One step of the walk back from w.t on w.core: charges what the core was doing or waiting
// for, and moves to the cause (earlier on this core, or to the core that woke it). False
// once the walk is back at the stage's launch. Every step moves w.t strictly back.
bool stepBack(const CausalLog& log, const Machine& m, const StageReport& stage, Walk& w,
              Tally& tally) {
  const CausalLog::CoreLog& cl = log.core(w.core);
  const CausalLog::Program* prog = programAt(cl, w.t);
  const CausalLog::Segment* seg = segmentBefore(cl, w.t);
  if (!prog || !seg || seg->start < prog->start) {
    // Back at the core's launch: programs start with the stage.
    tally.add(CriticalPathItem::Kind::Launch, "kernel launch", w.t - stage.start);
    return false;
  }
  const Time a = std::max(seg->start, stage.start);
  const std::string who = cores(seg->role);
  if (seg->kind == CausalLog::WaitKind::Op && seg->op >= 0) {
    const OpRec& op = log.op(seg->op);
    const OpRec* tr = transferOf(log, seg->op);
    const std::string what = doing(log, op);
    tally.addDelivery(m, log, tr, a, w.t,
                      {CriticalPathItem::Kind::Work, who + " busy", who, what, what, what}, 1);
    w.t = a;
    return true;
  }
  if (seg->kind == CausalLog::WaitKind::Word && seg->wakeOp >= 0 &&
      log.op(seg->wakeOp).issued < w.t) {
    const OpRec& wake = log.op(seg->wakeOp);
    const Time from = std::max(wake.issued, stage.start);
    const std::string family = wake.word >= 0 ? wordFamily(log.wordName(wake.word)) : "a flag";
    const OpRec* data = transferOf(log, seg->wakeOp);
    if (data)
      tally.addDelivery(
          m, log, data, from, w.t,
          {CriticalPathItem::Kind::Signal, "RDMA delivery to " + who + " (" + family + ")",
           "RDMA delivery to " + who + " (" + family + "):", "post and queue-pair wait",
           "wire time at the uncontended rate", "landing and poll"},
          0);
    else
      tally.add(CriticalPathItem::Kind::Signal,
                std::string(activityName(seg->activity)) + " on " + family +
                    ": signal latency (write, poll)",
                w.t - from);
    w.core = wake.core;
    w.t = from;
    ++w.hops;
    return true;
  }
  if (seg->kind == CausalLog::WaitKind::Sync && seg->syncLast >= 0 && seg->syncArrived < w.t) {
    const Time from = std::max(seg->syncArrived, stage.start);
    tally.add(CriticalPathItem::Kind::Barrier, "SyncAll barrier release", w.t - from);
    if (seg->syncLast != w.core) ++w.hops;
    w.core = seg->syncLast;
    w.t = from;
    return true;
  }
  // A wait whose cause was not recorded (the run started recording late): its own time.
  tally.add(CriticalPathItem::Kind::Work,
            who + " " + std::string(activityName(seg->activity)) + " (cause not recorded)",
            w.t - a);
  w.t = a;
  return true;
}

}  // namespace

CriticalPathAttribution attributeCriticalPath(const CausalLog& log, const Machine& m,
                                              const StageReport& stage) {
  CriticalPathAttribution out;
  out.stage = stage.id;
  out.stageName = stage.name;
  out.start = stage.start;
  out.end = stage.end;
  Tally tally;
  // The stage's last event: the latest end of a program the stage ran (lowest core on a tie).
  int core = -1;
  Time lastEnd = -1;
  for (int c = 0; c < log.coreCount(); ++c)
    for (const auto& p : log.core(c).programs)
      if (p.start >= stage.start && p.end >= 0 && p.end <= stage.end && p.end > lastEnd) {
        lastEnd = p.end;
        core = c;
      }
  if (core < 0) {
    tally.add(CriticalPathItem::Kind::Launch, "no core program ran", stage.duration());
    out.items = tally.ranked(stage.duration());
    return out;
  }
  out.lastCore = m.core(core).name();
  tally.add(CriticalPathItem::Kind::Launch, "host sync after the last program",
            stage.end - lastEnd);
  Walk w{core, lastEnd};
  while (w.t > stage.start && stepBack(log, m, stage, w, tally)) {
  }
  out.hops = w.hops;
  out.items = tally.ranked(stage.duration());
  return out;
}

std::string describeCriticalPath(const CriticalPathAttribution& a, int maxGroups) {
  // Groups in the order of their largest item's first appearance, then ranked by their sum.
  struct Group {
    std::string name;
    double share = 0;
    std::vector<const CriticalPathItem*> parts;
  };
  std::vector<Group> groups;
  for (const CriticalPathItem& it : a.items) {
    const std::string& name = it.group.empty() ? it.label : it.group;
    auto g =
        std::find_if(groups.begin(), groups.end(), [&](const Group& x) { return x.name == name; });
    if (g == groups.end()) g = groups.insert(groups.end(), Group{name, 0, {}});
    g->share += it.share;
    g->parts.push_back(&it);
  }
  std::stable_sort(groups.begin(), groups.end(),
                   [](const Group& x, const Group& y) { return x.share > y.share; });
  auto pct = [](double share) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "%.1f%%", 100.0 * share);
    return std::string(buf);
  };
  std::string text = std::string(stageIdName(a.stage)) + " " + formatDuration(a.duration()) + ":";
  double rest = 0;
  int shown = 0;
  for (const Group& g : groups) {
    // Rounding dust is left to "other".
    if (shown >= maxGroups || g.share < 0.0005) {
      rest += g.share;
      continue;
    }
    text += (shown ? "; " : " ") + g.name + " " + pct(g.share);
    std::string parts;
    int listed = 0;
    for (const CriticalPathItem* it : g.parts) {
      if (it->detail.empty() || listed == 2 || it->share < 0.0005) continue;
      parts += (listed ? ", " : "") + it->detail;
      // Appended piece by piece: GCC 12 warns (-Wrestrict, a false positive) on
      // `" " + std::string&&` here in optimized builds.
      if (it->ops > 0 && it->bytes > 0) {
        parts += ' ';
        parts += formatBytes(static_cast<double>(it->bytes) / static_cast<double>(it->ops));
        parts += " each";
      }
      parts += ' ';
      parts += pct(it->share);
      ++listed;
    }
    if (!parts.empty()) text += " (" + parts + ")";
    ++shown;
  }
  if (rest >= 0.0005) text += "; other " + pct(rest);
  return text;
}

}  // namespace moe
