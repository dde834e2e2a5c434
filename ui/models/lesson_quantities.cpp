#include "ui/models/lesson_quantities.h"

#include <algorithm>
#include <functional>
#include <iterator>

#include "core/run/design.h"
#include "core/run/design_registry.h"

namespace moe::ui {

namespace {

// Cores are counted on the card the step shows, so a count speaks of the picture.
int countCores(const LessonState& st, const std::function<bool(const CoreSnap&)>& pick) {
  return static_cast<int>(std::count_if(
      st.snap.cores.begin(), st.snap.cores.end(),
      [&](const CoreSnap& c) { return (st.card < 0 || c.card == st.card) && pick(c); }));
}

int coresIn(const LessonState& st, Activity a) {
  return countCores(st, [a](const CoreSnap& c) { return c.activity == a; });
}

// Cores holding `role` right now, working or waiting: the ones the core grid colours.
int coresAs(const LessonState& st, Role r) {
  return countCores(st, [r](const CoreSnap& c) {
    return c.role == r && (isWorking(c.activity) || isWaiting(c.activity));
  });
}

bool isHccs(const LinkSnap& l) {
  return l.kind == LinkInfo::Kind::Hccs;
}
bool isNic(const LinkSnap& l) {
  return l.kind == LinkInfo::Kind::NicTx || l.kind == LinkInfo::Kind::NicRx;
}

int linksBusy(const LessonState& st, bool (*kind)(const LinkSnap&)) {
  return static_cast<int>(
      std::count_if(st.snap.links.begin(), st.snap.links.end(),
                    [kind](const LinkSnap& l) { return kind(l) && l.rateGBps > 0; }));
}

template <typename Field>
double ringSum(const LessonState& st, Field field) {
  double sum = 0;
  for (const RingSnap& r : st.snap.rings) sum += static_cast<double>(field(r));
  return sum;
}

const RingSnap* selectedRing(const LessonState& st) {
  if (st.selection.kind != Selection::Kind::Ring) return nullptr;
  for (const RingSnap& r : st.snap.rings)
    if (r.id == st.selection.id) return &r;
  return nullptr;
}

template <typename Field>
double ofSelectedRing(const LessonState& st, Field field) {
  const RingSnap* r = selectedRing(st);
  return r ? static_cast<double>(field(*r)) : 0.0;
}

// How long the run's design spent in stage `id` so far, in microseconds: the stage marks
// carry display names, which the design registry maps from the id.
double stageUs(const LessonState& st, StageId id) {
  const std::optional<Design> d = designFromName(st.snap.design);
  if (!d) return 0;
  for (const DesignStage& stage : designEntry(*d).stages) {
    if (stage.id != id) continue;
    for (auto it = st.snap.stageMarks.rbegin(); it != st.snap.stageMarks.rend(); ++it)
      if (it->name == stage.name) {
        const Time end = it->end >= 0 ? it->end : st.snap.now;
        return static_cast<double>(end - it->start) / static_cast<double>(kUs);
      }
  }
  return 0;
}

double maxOverMean(const LessonState& st, std::vector<double> ExpertLoad::*values) {
  return st.load ? imbalance(st.load->*values) : 0.0;
}

// The share of all routing that goes to the hotspot's hot experts (the busiest ones; one
// expert when the routing has no hotspot).
double hotShare(const LessonState& st) {
  if (!st.load || st.load->perExpert.empty()) return 0;
  std::vector<double> v = st.load->perExpert;
  std::sort(v.begin(), v.end(), std::greater<>());
  const int hot =
      st.scenario.routing.kind == RoutingKind::Hotspot
          ? std::clamp(st.scenario.routing.hotspotExperts, 1, static_cast<int>(v.size()))
          : 1;
  double top = 0, all = 0;
  for (std::size_t i = 0; i < v.size(); ++i) {
    all += v[i];
    if (static_cast<int>(i) < hot) top += v[i];
  }
  return all > 0 ? top / all : 0.0;
}

using S = const LessonState&;

// What the cores and links are doing now.
std::vector<LessonQuantity> coreAndLinkQuantities() {
  return {
      {"time_us", "the emulated time shown, in microseconds",
       [](S st) { return static_cast<double>(st.snap.now) / static_cast<double>(kUs); }},
      {"cores_working", "cores copying or computing (the core grid's busy cores)",
       [](S st) {
         return static_cast<double>(
             countCores(st, [](const CoreSnap& c) { return isWorking(c.activity); }));
       }},
      {"cores_waiting", "cores in wait-space, wait-data or wait-sync",
       [](S st) {
         return static_cast<double>(
             countCores(st, [](const CoreSnap& c) { return isWaiting(c.activity); }));
       }},
      {"cores_wait_space", "cores waiting for ring space (red border, hatched)",
       [](S st) { return static_cast<double>(coresIn(st, Activity::WaitSpace)); }},
      {"cores_wait_data", "cores waiting for ring data or a flag",
       [](S st) { return static_cast<double>(coresIn(st, Activity::WaitData)); }},
      {"cores_wait_sync", "cores waiting in a SyncAll barrier",
       [](S st) { return static_cast<double>(coresIn(st, Activity::WaitSync)); }},
      {"sender_cores", "cores in the sender role, working or waiting",
       [](S st) { return static_cast<double>(coresAs(st, Role::Sender)); }},
      {"forwarder_cores", "cores in the forwarder role, working or waiting",
       [](S st) { return static_cast<double>(coresAs(st, Role::Forwarder)); }},
      {"receiver_cores", "cores in the receiver role, working or waiting",
       [](S st) { return static_cast<double>(coresAs(st, Role::Receiver)); }},
      {"hccs_links_busy", "HCCS links carrying data now (the Cluster view's coloured links)",
       [](S st) { return static_cast<double>(linksBusy(st, isHccs)); }},
      {"nic_links_busy", "NIC links (RDMA, send or receive) carrying data now",
       [](S st) { return static_cast<double>(linksBusy(st, isNic)); }},
  };
}

// The rings and the fused operator's workspace.
std::vector<LessonQuantity> bufferQuantities() {
  return {
      {"rings_nonempty", "rings holding records not yet read",
       [](S st) { return ringSum(st, [](const RingSnap& r) { return r.occupied() > 0; }); }},
      {"rings_full", "rings with every chunk holding unread data",
       [](S st) {
         return ringSum(st, [](const RingSnap& r) { return r.occupied() >= r.capacity; });
       }},
      {"ring_space_waits", "times any writer had to stop for ring space, so far",
       [](S st) { return ringSum(st, [](const RingSnap& r) { return r.stats.spaceWaits; }); }},
      {"ring_wraps_max", "the most times any one ring went round",
       [](S st) {
         double m = 0;
         for (const RingSnap& r : st.snap.rings) m = std::max(m, double(r.stats.wraps));
         return m;
       }},
      {"selected_ring_records", "records written into the selected ring",
       [](S st) {
         return ofSelectedRing(st, [](const RingSnap& r) { return r.stats.recordsWritten; });
       }},
      {"selected_ring_wraps", "times the selected ring went round",
       [](S st) { return ofSelectedRing(st, [](const RingSnap& r) { return r.stats.wraps; }); }},
      {"selected_ring_space_waits", "times the selected ring's writer stopped for space",
       [](S st) {
         return ofSelectedRing(st, [](const RingSnap& r) { return r.stats.spaceWaits; });
       }},
      {"selected_ring_rereads_per_record",
       "head re-reads over the network per record written, for the selected ring",
       [](S st) {
         return ofSelectedRing(st, [](const RingSnap& r) {
           return r.stats.recordsWritten > 0
                      ? static_cast<double>(r.stats.headRereads) / r.stats.recordsWritten
                      : 0.0;
         });
       }},
      {"slots_occupied", "workspace slots in use on the shown card (the fused operator)",
       [](S st) {
         double n = 0;
         for (const StagesSnap& w : st.snap.workspace)
           if (st.card < 0 || w.card == st.card) n += w.occupied;
         return n;
       }},
  };
}

// The stages' times, the run's outcome and the experts' load.
std::vector<LessonQuantity> runAndLoadQuantities() {
  return {
      {"dispatch_us", "how long dispatch has run (its whole length once over)",
       [](S st) { return stageUs(st, StageId::Dispatch); }},
      {"experts_us", "how long the experts stage has run",
       [](S st) { return stageUs(st, StageId::Experts); }},
      {"combine_us", "how long combine has run",
       [](S st) { return stageUs(st, StageId::Combine); }},
      {"finished", "1 once the run has ended (every stage done), else 0",
       [](S st) { return st.snap.finished ? 1.0 : 0.0; }},
      {"deadlocked", "1 if the deadlock watch stopped the run, else 0",
       [](S st) { return st.snap.deadlocked ? 1.0 : 0.0; }},
      {"verified", "1 if the finished run matched the reference in every check, else 0",
       [](S st) { return st.verified ? 1.0 : 0.0; }},
      {"hot_share", "share of all routing that goes to the hot experts (a fraction)",
       [](S st) { return hotShare(st); }},
      {"load_max_mean_before", "busiest rank's load over the mean, before EPLB's mapping",
       [](S st) { return maxOverMean(st, &ExpertLoad::perRankBefore); }},
      {"load_max_mean_after", "busiest rank's load over the mean, after UpdateExpert's mapping",
       [](S st) { return maxOverMean(st, &ExpertLoad::perRankAfter); }},
      {"redundant_experts", "spare expert slots EPLB may fill with copies",
       [](S st) { return st.load ? double(st.load->redundantExperts) : 0.0; }},
  };
}

std::vector<LessonQuantity> build() {
  std::vector<LessonQuantity> all = coreAndLinkQuantities();
  for (auto part : {bufferQuantities, runAndLoadQuantities}) {
    std::vector<LessonQuantity> more = part();
    all.insert(all.end(), std::make_move_iterator(more.begin()),
               std::make_move_iterator(more.end()));
  }
  return all;
}

}  // namespace

const std::vector<LessonQuantity>& lessonQuantities() {
  static const std::vector<LessonQuantity> all = build();
  return all;
}

const LessonQuantity* findLessonQuantity(std::string_view name) {
  for (const LessonQuantity& q : lessonQuantities())
    if (q.name == name) return &q;
  return nullptr;
}

std::string lessonQuantityNames() {
  std::string out;
  for (const LessonQuantity& q : lessonQuantities()) {
    if (!out.empty()) out += ", ";
    out += q.name;
  }
  return out;
}

}  // namespace moe::ui
