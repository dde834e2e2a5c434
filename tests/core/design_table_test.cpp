// The design table is the one list of designs' identities: every name reads back as its
// design, dispatch_impl accepts exactly the MoE layer's designs and the sets "both" and
// "all" (the spellings scenario files and saved sweeps already use), and a set expands to
// its designs in report order.

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/plan/real_operator_limits.h"
#include "core/scenario/design_table.h"
#include "core/scenario/scenario_enums.h"

namespace moe {
namespace {

TEST(DesignTable, EveryNameReadsBackAsItsDesign) {
  for (const DesignInfo& row : kDesigns) {
    EXPECT_EQ(&designInfo(row.design), &row);
    EXPECT_EQ(designName(row.design), row.name);
    EXPECT_EQ(designFromName(row.name), row.design);
    EXPECT_EQ(workloadOf(row.design), row.workload);
  }
  EXPECT_EQ(designFromName("both"), std::nullopt);
}

// The enumerators are 0..N-1, one row each, so an array indexed by a design (the sweep's
// list of wanted designs) has a slot for every design: a new design's enumerator goes at the
// end of the enum and its row in the table.
TEST(DesignTable, EveryEnumeratorHasExactlyOneRow) {
  const std::size_t n = std::size(kDesigns);
  std::vector<int> rows(n, 0);
  for (const DesignInfo& row : kDesigns) {
    const auto value = static_cast<std::size_t>(row.design);
    ASSERT_LT(value, n) << row.name << ": its enumerator is past the table's size";
    ++rows[value];
  }
  for (std::size_t v = 0; v < n; ++v) EXPECT_EQ(rows[v], 1) << "design value " << v;
}

// The lists the table is made of: the MoE layer's rows first, then the fused operator's,
// each row of the workload its list says.
TEST(DesignTable, TheRowListsGiveEachRowItsWorkload) {
  std::vector<Design> layer, fused;
#define MOE_TEST_COLLECT_LAYER(id, ...) layer.push_back(Design::id);
#define MOE_TEST_COLLECT_FUSED(id, ...) fused.push_back(Design::id);
  MOE_LAYER_DESIGNS(MOE_TEST_COLLECT_LAYER)
  MOE_FUSED_OPERATOR_DESIGNS(MOE_TEST_COLLECT_FUSED)
#undef MOE_TEST_COLLECT_LAYER
#undef MOE_TEST_COLLECT_FUSED
  EXPECT_EQ(layer, designsOf(WorkloadKind::MoeLayer));
  EXPECT_EQ(fused, designsOf(WorkloadKind::AlltoallMatmulRs));
  ASSERT_EQ(layer.size() + fused.size(), std::size(kDesigns));
  for (std::size_t i = 0; i < layer.size(); ++i) EXPECT_EQ(kDesigns[i].design, layer[i]);
}

TEST(DesignTable, EachWorkloadHasOneDesignShownFirst) {
  for (WorkloadKind w : {WorkloadKind::MoeLayer, WorkloadKind::AlltoallMatmulRs}) {
    const std::vector<Design> designs = designsOf(w);
    ASSERT_FALSE(designs.empty());
    EXPECT_EQ(std::count_if(designs.begin(), designs.end(),
                            [](Design d) { return designInfo(d).preferred; }),
              1);
    EXPECT_TRUE(designInfo(defaultDesign(w)).preferred);
  }
}

TEST(DesignTable, DispatchImplKeepsItsSpellings) {
  // Scenario files, docs/SCENARIO.md and saved sweep files spell dispatch_impl these ways.
  const std::vector<std::string> kept = {"phased", "streaming", "flat", "both", "all"};
  EXPECT_EQ(designSelectionSpellings(), kept);
  EXPECT_EQ(enumSpellings("dispatch_impl"), kept);
  for (const std::string& name : kept) {
    const auto sel = DesignSelection::fromName(name);
    ASSERT_TRUE(sel) << name;
    EXPECT_EQ(sel->name(), name);
  }
  for (Design d : designsOf(WorkloadKind::AlltoallMatmulRs))
    EXPECT_EQ(DesignSelection::fromName(designName(d)), std::nullopt) << designName(d);
  EXPECT_EQ(DesignSelection::fromName("Both"), std::nullopt);
}

TEST(DesignTable, ASetExpandsToItsDesignsInReportOrder) {
  EXPECT_EQ(DesignSelection::both().designs(),
            (std::vector<Design>{Design::Phased, Design::Streaming}));
  EXPECT_EQ(DesignSelection::all().designs(), designsOf(WorkloadKind::MoeLayer));
  EXPECT_EQ(*DesignSelection::fromName("both"), DesignSelection::both());
  EXPECT_EQ(*DesignSelection::fromName("all"), DesignSelection::all());
  EXPECT_EQ(DesignSelection::both().single(), std::nullopt);
  for (Design d : designsOf(WorkloadKind::MoeLayer)) {
    EXPECT_EQ(DesignSelection(d).designs(), std::vector<Design>{d});
    EXPECT_EQ(DesignSelection(d).single(), d);
    EXPECT_NE(DesignSelection(d), DesignSelection::both());
  }
  // Report order is the table's: every expansion is a subsequence of it.
  const std::vector<Design> order = designsOf(WorkloadKind::MoeLayer);
  for (const std::string& name : designSelectionSpellings()) {
    std::vector<Design> designs = DesignSelection::fromName(name)->designs();
    std::vector<std::size_t> at;
    for (Design d : designs) at.push_back(std::find(order.begin(), order.end(), d) - order.begin());
    EXPECT_TRUE(std::is_sorted(at.begin(), at.end())) << name;
    EXPECT_LT(at.back(), order.size()) << name;
  }
}

TEST(DesignTable, TheCommunicationAlgorithmsComeFromTheRows) {
  EXPECT_EQ(commAlgsFor(Design::Phased), std::vector<std::string>{"hierarchy"});
  EXPECT_EQ(commAlgsFor(Design::Flat), std::vector<std::string>{"fullmesh"});
  EXPECT_EQ(commAlgsFor(DesignSelection::both()), std::vector<std::string>{"hierarchy"});
  EXPECT_EQ(commAlgsFor(DesignSelection::all()),
            (std::vector<std::string>{"hierarchy", "fullmesh"}));
}

TEST(DesignTable, TheChoicesReadAsTheHelpTextAlwaysDid) {
  EXPECT_EQ(designSelectionHelp(),
            "streaming, phased, flat (full-mesh, no forwarder), both (phased and streaming) or "
            "all");
  EXPECT_EQ(nameList({"a"}, "or"), "a");
  EXPECT_EQ(nameList({"a", "b"}, "and"), "a and b");
  EXPECT_EQ(nameList({"a", "b", "c"}, "or"), "a, b or c");
  EXPECT_EQ(designNames(streamingCombineDesigns()), std::vector<std::string>{"streaming"});
}

}  // namespace
}  // namespace moe
