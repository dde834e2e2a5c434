#include "core/scenario/design_table.h"

#include <algorithm>
#include <stdexcept>

namespace moe {

namespace {

// The named sets of dispatch_impl. "both" lists its designs (it means these two, whatever
// designs join the MoE layer later); "all" takes every design of the MoE layer.
struct DesignSet {
  std::string_view name;
  std::vector<Design> members;  // empty: every design of the MoE layer
};

const std::vector<DesignSet>& designSets() {
  static const std::vector<DesignSet> sets = {{"both", {Design::Phased, Design::Streaming}},
                                              {"all", {}}};
  return sets;
}

constexpr int kBoth = 0;
constexpr int kAll = 1;

}  // namespace

const DesignInfo& designInfo(Design d) {
  for (const DesignInfo& i : kDesigns)
    if (i.design == d) return i;
  throw std::logic_error("design missing from the design table");
}

std::string_view designName(Design d) {
  return designInfo(d).name;
}

std::optional<Design> designFromName(std::string_view name) {
  for (const DesignInfo& i : kDesigns)
    if (i.name == name) return i.design;
  return std::nullopt;
}

WorkloadKind workloadOf(Design d) {
  return designInfo(d).workload;
}

std::vector<Design> designsOf(WorkloadKind w) {
  std::vector<Design> out;
  for (const DesignInfo& i : kDesigns)
    if (i.workload == w) out.push_back(i.design);
  return out;
}

Design defaultDesign(WorkloadKind w) {
  for (const DesignInfo& i : kDesigns)
    if (i.workload == w && i.preferred) return i.design;
  return designsOf(w).front();
}

std::vector<Design> streamingCombineDesigns(bool runIt) {
  std::vector<Design> out;
  for (Design d : designsOf(WorkloadKind::MoeLayer))
    if (designInfo(d).streamingCombine == runIt) out.push_back(d);
  return out;
}

std::string nameList(const std::vector<std::string>& names, std::string_view conjunction) {
  std::string text;
  for (std::size_t k = 0; k < names.size(); ++k) {
    if (k + 1 == names.size() && k > 0) {
      text += ' ';
      text += conjunction;
      text += ' ';
    } else if (k > 0) {
      text += ", ";
    }
    text += names[k];
  }
  return text;
}

std::vector<std::string> designNames(const std::vector<Design>& designs) {
  std::vector<std::string> out;
  for (Design d : designs) out.emplace_back(designName(d));
  return out;
}

DesignSelection DesignSelection::ofSet(int set) {
  DesignSelection s(Design::Phased);
  s.set_ = set;
  return s;
}

DesignSelection DesignSelection::both() {
  return ofSet(kBoth);
}

DesignSelection DesignSelection::all() {
  return ofSet(kAll);
}

std::optional<DesignSelection> DesignSelection::fromName(std::string_view name) {
  for (Design d : designsOf(WorkloadKind::MoeLayer))
    if (designName(d) == name) return DesignSelection(d);
  const auto& sets = designSets();
  for (std::size_t i = 0; i < sets.size(); ++i)
    if (sets[i].name == name) return ofSet(static_cast<int>(i));
  return std::nullopt;
}

std::string_view DesignSelection::name() const {
  return set_ < 0 ? designName(design_) : designSets()[static_cast<std::size_t>(set_)].name;
}

std::vector<Design> DesignSelection::designs() const {
  if (set_ < 0) return {design_};
  const std::vector<Design>& members = designSets()[static_cast<std::size_t>(set_)].members;
  std::vector<Design> out;
  for (Design d : designsOf(WorkloadKind::MoeLayer))
    if (members.empty() || std::find(members.begin(), members.end(), d) != members.end())
      out.push_back(d);
  return out;
}

std::optional<Design> DesignSelection::single() const {
  if (set_ < 0) return design_;
  return std::nullopt;
}

std::vector<std::string> designSelectionSpellings() {
  std::vector<std::string> out;
  for (Design d : designsOf(WorkloadKind::MoeLayer)) out.emplace_back(designName(d));
  for (const DesignSet& s : designSets()) out.emplace_back(s.name);
  return out;
}

std::string designSelectionHelp() {
  std::vector<std::string> items;
  const Design first = defaultDesign(WorkloadKind::MoeLayer);
  std::vector<Design> order = {first};
  for (Design d : designsOf(WorkloadKind::MoeLayer))
    if (d != first) order.push_back(d);
  for (Design d : order) {
    const DesignInfo& i = designInfo(d);
    items.push_back(std::string(i.name) +
                    (i.choiceNote.empty() ? "" : " (" + std::string(i.choiceNote) + ")"));
  }
  for (const DesignSet& s : designSets())
    items.push_back(
        std::string(s.name) +
        (s.members.empty() ? "" : " (" + nameList(designNames(s.members), "and") + ")"));
  return nameList(items, "or");
}

}  // namespace moe
