#include "core/observe/trace_export.h"

#include <map>
#include <nlohmann/json.hpp>
#include <utility>

#include "core/runtime/emulation.h"

namespace moe {

namespace {
double us(Time t) {
  return static_cast<double>(t) / 1e6;
}
}  // namespace

void writeChromeTrace(std::ostream& out, const std::vector<TraceSource>& sources) {
  using nlohmann::json;
  json events = json::array();
  int pidBase = 0;
  for (const TraceSource& src : sources) {
    const Emulation& emu = *src.emulation;
    const Machine& m = emu.machine();
    const std::string prefix = src.label.empty() ? "" : src.label + " ";
    for (int c = 0; c < m.cardCount(); ++c)
      events.push_back({{"ph", "M"},
                        {"name", "process_name"},
                        {"pid", pidBase + c},
                        {"args", {{"name", prefix + "card" + std::to_string(c)}}}});
    for (int i = 0; i < m.coreCount(); ++i) {
      const AiCore& core = m.core(i);
      events.push_back({{"ph", "M"},
                        {"name", "thread_name"},
                        {"pid", pidBase + core.card()},
                        {"tid", i},
                        {"args", {{"name", core.name()}}}});
    }
    for (const ActivityInterval& iv : emu.observer().activities().items()) {
      if (iv.activity == Activity::Idle || iv.activity == Activity::Done) continue;
      const AiCore& core = m.core(iv.core);
      events.push_back({{"ph", "X"},
                        {"name", std::string(activityName(iv.activity))},
                        {"cat", std::string(roleName(iv.role))},
                        {"pid", pidBase + core.card()},
                        {"tid", iv.core},
                        {"ts", us(iv.start)},
                        {"dur", us(iv.end - iv.start)}});
    }
    for (const RingPointerSample& s : emu.observer().ringSamples().items()) {
      const RingBuffer& r = emu.rings()[static_cast<std::size_t>(s.ring)];
      events.push_back({{"ph", "C"},
                        {"name", "ring " + r.name()},
                        {"pid", pidBase + r.consumerCard()},
                        {"ts", us(s.time)},
                        {"args", {{"occupied_bytes", s.tail - s.head}}}});
    }
    // Workspace stages: one counter per card and strip group (the partial-sum strips of
    // all AICs of a card sum into one), in slots in use.
    {
      const auto& strips = emu.workspaceStages();
      std::vector<int> occupied(strips.size(), 0);
      std::map<std::pair<int, std::string>, int> inUse;
      for (const WorkspaceSample& s : emu.observer().workspaceSamples().items()) {
        const WorkspaceStages& w = strips[static_cast<std::size_t>(s.strip)];
        int& total = inUse[{w.card(), w.group()}];
        total += s.occupied - occupied[static_cast<std::size_t>(s.strip)];
        occupied[static_cast<std::size_t>(s.strip)] = s.occupied;
        events.push_back({{"ph", "C"},
                          {"name", "workspace " + w.group() + " slots in use"},
                          {"pid", pidBase + w.card()},
                          {"ts", us(s.time)},
                          {"args", {{"slots", total}}}});
      }
    }
    // The stage track (tid -1 of the first card) gets a name like every core's track.
    events.push_back({{"ph", "M"},
                      {"name", "thread_name"},
                      {"pid", pidBase},
                      {"tid", -1},
                      {"args", {{"name", prefix + "pipeline stages"}}}});
    for (const StageMark& st : emu.observer().stages())
      events.push_back({{"ph", "X"},
                        {"name", st.name},
                        {"cat", "stage"},
                        {"pid", pidBase},
                        {"tid", -1},
                        {"ts", us(st.start)},
                        {"dur", us((st.end < 0 ? emu.sim().now() : st.end) - st.start)}});
    pidBase += m.cardCount();
  }
  out << json{{"traceEvents", events}, {"displayTimeUnit", "ns"}}.dump() << "\n";
}

}  // namespace moe
