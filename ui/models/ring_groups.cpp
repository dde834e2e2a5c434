#include "ui/models/ring_groups.h"

#include <cctype>

namespace moe::ui {

std::string ringGroupTitle(const std::string& name) {
  std::size_t start = 0;
  // The consumer ("card3 ") is the card being shown: the same for every ring listed.
  if (name.rfind("card", 0) == 0) {
    const std::size_t space = name.find(' ');
    if (space != std::string::npos) start = space + 1;
  }
  std::string title;
  for (std::size_t i = start; i < name.size(); ++i) {
    if (std::isdigit(static_cast<unsigned char>(name[i]))) {
      title += '*';
      while (i + 1 < name.size() && std::isdigit(static_cast<unsigned char>(name[i + 1]))) ++i;
    } else {
      title += name[i];
    }
  }
  return title;
}

std::vector<RingGroup> ringGroups(const Snapshot& snap, int card) {
  std::vector<RingGroup> groups;
  for (std::size_t i = 0; i < snap.rings.size(); ++i) {
    if (snap.rings[i].consumerCard != card) continue;
    const std::string title = ringGroupTitle(snap.rings[i].name);
    RingGroup* g = nullptr;
    for (RingGroup& candidate : groups)
      if (candidate.title == title) g = &candidate;
    if (g == nullptr) g = &groups.emplace_back(RingGroup{title, {}});
    g->rings.push_back(static_cast<int>(i));
  }
  return groups;
}

}  // namespace moe::ui
