#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "core/machine/hardware_profile_json.h"
#include "core/scenario/scenario_json.h"
#include "core/util/error.h"

using moe::InputError;
using moe::Scenario;
using nlohmann::json;

namespace {

json readJsonFile(const std::string& relPath) {
  std::ifstream in(std::string(MOE_SOURCE_DIR) + "/" + relPath);
  EXPECT_TRUE(in.good()) << relPath;
  return json::parse(in);
}

json defaultJson() {
  return moe::scenarioToJson(Scenario{});
}

// base with the value at JSON pointer ptr replaced (or added).
json with(json base, const std::string& ptr, json value) {
  base[json::json_pointer(ptr)] = std::move(value);
  return base;
}

// The path scenarioFromJson rejects j with, or "(accepted)".
std::string rejectedPath(const json& j) {
  try {
    moe::scenarioFromJson(j);
  } catch (const InputError& e) {
    return e.path();
  }
  return "(accepted)";
}

}  // namespace

TEST(ScenarioJson, EmbeddedDefaultEqualsDefaultConstructedScenario) {
  const Scenario fromFile = moe::defaultScenario();
  EXPECT_EQ(fromFile, Scenario{});
  EXPECT_EQ(moe::scenarioToJson(fromFile), moe::scenarioToJson(Scenario{}));
  // And the file on disk says the same, key for key.
  EXPECT_EQ(readJsonFile("resources/scenarios/default.json"), defaultJson());
}

TEST(ScenarioJson, EmptyObjectGivesAllDefaults) {
  EXPECT_EQ(moe::scenarioFromJson(json::object()), Scenario{});
  // null means "absent" anywhere in the schema.
  EXPECT_EQ(
      moe::scenarioFromJson(json::parse(R"({"model": null, "rings": {"queue_chunks": null}})")),
      Scenario{});
}

TEST(ScenarioJson, DefaultStructHardwareIsThe910B3Profile) {
  EXPECT_EQ(moe::builtinProfile("ascend-910b3"), moe::HardwareProfile{});
}

TEST(ScenarioJson, DefaultRoundTripsExactly) {
  const std::string text = defaultJson().dump(2);
  const Scenario back = moe::scenarioFromJson(json::parse(text));
  EXPECT_EQ(back, Scenario{});
  EXPECT_EQ(moe::scenarioToJson(back).dump(2), text);
}

TEST(ScenarioJson, EveryFieldChangedRoundTripsExactly) {
  Scenario s;
  s.name = "every field changed";
  s.seed = 18446744073709551615ull;
  s.profileName = "atlas-a3-die";
  s.hardware = moe::builtinProfile("atlas-a3-die");
  s.hardware.hbmGBps = 1234.5;
  s.hardware.rdmaPostNs = 1999;
  s.hardware.fabric = "hccs-mesh";
  s.hardware.cardsPerServer = 4;
  s.hardware.hccsGBpsPerPair = 0.1 + 0.2;  // 0.30000000000000004: needs all 17 digits
  s.cluster = {3, 4};
  s.model = {100, 1024, 48, 6, 1536};
  s.routing.kind = moe::RoutingKind::GroupLimited;
  s.routing.alpha = 0.7;
  s.routing.hotspotFraction = 1.0 / 3.0;
  s.routing.hotspotExperts = 5;
  s.routing.groups = 6;
  s.routing.topkGroups = 3;
  s.routing.traceFile = "trace/ids.npy";
  s.eplb.placePerRank = 5;
  s.eplb.balanceMode = 1;
  for (int e = 0; e < 48; ++e) s.eplb.table.push_back({2, e, 59 - e});
  s.eplb.pruningThreshold = {0.1f, 0.05f, 0.3f, 0.0f, 1.0f, 0.123456789f};
  s.eplb.activeTokens = 77;
  // Each stage its own tiling (written as rings.dispatch and rings.combine).
  s.rings.dispatch = {131072, 16, 10, 12, 14};
  s.rings.combine = {32768, 6, 9, 11, 13};
  s.payload = moe::PayloadMode::None;
  s.dispatchImpl = moe::Design::Streaming;
  s.eventLogCapacity = 4096;
  s.workload = {moe::WorkloadKind::AlltoallMatmulRs, 16, 256, 96, 512, 16, 64, 32, 3};
  moe::validateScenario(s);

  const json j = moe::scenarioToJson(s);
  EXPECT_EQ(j["hardware"]["overrides"],
            json::parse(R"({"hbm_gbps": 1234.5, "rdma_post_ns": 1999, "fabric": "hccs-mesh",
                            "cards_per_server": 4, "hccs_gbps_per_pair": 0.30000000000000004})"));
  // A threshold typed as 0.1 is saved as 0.1, not as the float's double expansion.
  EXPECT_EQ(j["eplb"]["pruning_threshold"][0].dump(), "0.1");

  const std::string text = j.dump(2);
  const Scenario back = moe::scenarioFromJson(json::parse(text));
  EXPECT_EQ(back, s);
  EXPECT_EQ(moe::scenarioToJson(back).dump(2), text);

  // Every top-level section really differs from the default, so the test covers them all.
  const Scenario d;
  EXPECT_NE(s.name, d.name);
  EXPECT_NE(s.seed, d.seed);
  EXPECT_NE(s.profileName, d.profileName);
  EXPECT_NE(s.cluster.servers, d.cluster.servers);
  EXPECT_NE(s.cluster.cardsPerServer, d.cluster.cardsPerServer);
  EXPECT_NE(s.model.tokensPerRank, d.model.tokensPerRank);
  EXPECT_NE(s.model.hidden, d.model.hidden);
  EXPECT_NE(s.model.experts, d.model.experts);
  EXPECT_NE(s.model.topk, d.model.topk);
  EXPECT_NE(s.model.intermediate, d.model.intermediate);
  EXPECT_NE(s.routing.kind, d.routing.kind);
  EXPECT_NE(s.routing.alpha, d.routing.alpha);
  EXPECT_NE(s.routing.hotspotFraction, d.routing.hotspotFraction);
  EXPECT_NE(s.routing.hotspotExperts, d.routing.hotspotExperts);
  EXPECT_NE(s.routing.groups, d.routing.groups);
  EXPECT_NE(s.routing.topkGroups, d.routing.topkGroups);
  EXPECT_NE(s.routing.traceFile, d.routing.traceFile);
  EXPECT_NE(s.eplb.placePerRank, d.eplb.placePerRank);
  EXPECT_NE(s.eplb.balanceMode, d.eplb.balanceMode);
  EXPECT_NE(s.eplb.activeTokens, d.eplb.activeTokens);
  EXPECT_NE(s.rings.dispatch.chunkBytes, d.rings.dispatch.chunkBytes);
  EXPECT_NE(s.rings.combine.chunkBytes, d.rings.combine.chunkBytes);
  EXPECT_NE(s.rings.dispatch.queueChunks, d.rings.dispatch.queueChunks);
  EXPECT_NE(s.rings.combine.queueChunks, d.rings.combine.queueChunks);
  EXPECT_NE(s.rings.dispatch.senderCores, d.rings.dispatch.senderCores);
  EXPECT_NE(s.rings.combine.senderCores, d.rings.combine.senderCores);
  EXPECT_NE(s.rings.dispatch.forwarderCores, d.rings.dispatch.forwarderCores);
  EXPECT_NE(s.rings.combine.forwarderCores, d.rings.combine.forwarderCores);
  EXPECT_NE(s.rings.dispatch.receiverCores, d.rings.dispatch.receiverCores);
  EXPECT_NE(s.rings.combine.receiverCores, d.rings.combine.receiverCores);
  EXPECT_NE(s.payload, d.payload);
  EXPECT_NE(s.dispatchImpl, d.dispatchImpl);
  EXPECT_NE(s.eventLogCapacity, d.eventLogCapacity);
  EXPECT_NE(s.workload.kind, d.workload.kind);
  EXPECT_NE(s.workload.ranks, d.workload.ranks);
  EXPECT_NE(s.workload.m, d.workload.m);
  EXPECT_NE(s.workload.n, d.workload.n);
  EXPECT_NE(s.workload.k, d.workload.k);
  EXPECT_NE(s.workload.tileM, d.workload.tileM);
  EXPECT_NE(s.workload.tileN, d.workload.tileN);
  EXPECT_NE(s.workload.tileK, d.workload.tileK);
  EXPECT_NE(s.workload.stages, d.workload.stages);
}

TEST(ScenarioJson, UnknownKeysAreRejectedAtEveryLevel) {
  const json d = defaultJson();
  EXPECT_EQ(rejectedPath(with(d, "/alfa", 1)), "alfa");
  EXPECT_EQ(rejectedPath(with(d, "/hardware/alfa", 1)), "hardware.alfa");
  EXPECT_EQ(rejectedPath(with(d, "/hardware/overrides/alfa", 1)), "hardware.overrides.alfa");
  EXPECT_EQ(rejectedPath(with(d, "/cluster/alfa", 1)), "cluster.alfa");
  EXPECT_EQ(rejectedPath(with(d, "/model/alfa", 1)), "model.alfa");
  EXPECT_EQ(rejectedPath(with(d, "/routing/alfa", 1)), "routing.alfa");
  EXPECT_EQ(rejectedPath(with(d, "/eplb/alfa", 1)), "eplb.alfa");
  EXPECT_EQ(rejectedPath(with(d, "/rings/alfa", 1)), "rings.alfa");
  EXPECT_EQ(rejectedPath(with(d, "/workload/alfa", 1)), "workload.alfa");
}

TEST(ScenarioJson, WorkloadRangesNameTheField) {
  const json d = defaultJson();
  EXPECT_EQ(rejectedPath(with(d, "/workload", 5)), "workload");
  EXPECT_EQ(rejectedPath(with(d, "/workload/kind", "a2a")), "workload.kind");
  EXPECT_EQ(rejectedPath(with(d, "/workload/ranks", 1)), "workload.ranks");
  EXPECT_EQ(rejectedPath(with(d, "/workload/m", 0)), "workload.m");
  EXPECT_EQ(rejectedPath(with(d, "/workload/n", 65537)), "workload.n");
  EXPECT_EQ(rejectedPath(with(d, "/workload/k", "4096")), "workload.k");
  EXPECT_EQ(rejectedPath(with(d, "/workload/tile_m", 0)), "workload.tile_m");
  EXPECT_EQ(rejectedPath(with(d, "/workload/tile_n", -3)), "workload.tile_n");
  EXPECT_EQ(rejectedPath(with(d, "/workload/tile_k", 1.5)), "workload.tile_k");
  EXPECT_EQ(rejectedPath(with(d, "/workload/stages", 9)), "workload.stages");
  EXPECT_EQ(moe::scenarioFromJson(with(d, "/workload/kind", "alltoall-matmul-rs")).workload.kind,
            moe::WorkloadKind::AlltoallMatmulRs);
}

TEST(ScenarioJson, TypesEnumsAndRangesNameTheField) {
  const json d = defaultJson();
  EXPECT_EQ(rejectedPath(json::array()), "(top level)");
  EXPECT_EQ(rejectedPath(with(d, "/model", 5)), "model");
  EXPECT_EQ(rejectedPath(with(d, "/model/hidden", "7168")), "model.hidden");
  EXPECT_EQ(rejectedPath(with(d, "/model/hidden", 1e300)), "model.hidden");
  EXPECT_EQ(rejectedPath(with(d, "/model/hidden", 16385)), "model.hidden");
  // DeepEP-scale batches: up to 8192 tokens per rank (MoeUpdateExpert runs on slices of 512).
  // (With payload none: 8192 full-payload tokens at the default shape exceed the size guard.)
  EXPECT_EQ(rejectedPath(with(with(d, "/model/tokens_per_rank", 8192), "/payload", "none")),
            "(accepted)");
  EXPECT_EQ(rejectedPath(with(d, "/model/tokens_per_rank", 8193)), "model.tokens_per_rank");
  EXPECT_EQ(rejectedPath(with(d, "/model/intermediate", 0)), "model.intermediate");
  EXPECT_EQ(rejectedPath(with(d, "/model/experts", 1025)), "model.experts");
  EXPECT_EQ(rejectedPath(with(d, "/model/topk", 17)), "model.topk");
  EXPECT_EQ(rejectedPath(with(d, "/cluster/servers", 97)), "cluster.servers");
  EXPECT_EQ(rejectedPath(with(d, "/routing/distribution", "powerlaw")), "routing.distribution");
  EXPECT_EQ(rejectedPath(with(d, "/payload", "partial")), "payload");
  EXPECT_EQ(rejectedPath(with(d, "/dispatch_impl", "stream")), "dispatch_impl");
  EXPECT_EQ(rejectedPath(with(d, "/hardware/profile", "ascend-910c")), "hardware.profile");
  EXPECT_EQ(rejectedPath(with(d, "/name", 3)), "name");
  EXPECT_EQ(rejectedPath(with(d, "/seed", -1)), "seed");
  EXPECT_EQ(rejectedPath(with(d, "/seed", 1.5)), "seed");
  EXPECT_EQ(rejectedPath(with(d, "/event_log_capacity", 1023)), "event_log_capacity");
  EXPECT_EQ(rejectedPath(with(d, "/event_log_capacity", (1 << 26) + 1)), "event_log_capacity");
  EXPECT_EQ(rejectedPath(with(d, "/bandwidth_update_ns", -1)), "bandwidth_update_ns");
  EXPECT_EQ(rejectedPath(with(d, "/bandwidth_update_ns", 10001)), "bandwidth_update_ns");
  EXPECT_EQ(rejectedPath(with(d, "/bandwidth_update_ns", 2.5)), "bandwidth_update_ns");
  EXPECT_EQ(rejectedPath(with(d, "/eplb/table", json::parse("[[1, \"a\"]]"))), "eplb.table[0][1]");
  EXPECT_EQ(rejectedPath(with(d, "/eplb/balance_mode", 2)), "eplb.balance_mode");
  EXPECT_EQ(rejectedPath(with(d, "/routing/alpha", 10.5)), "routing.alpha");
  EXPECT_EQ(rejectedPath(with(d, "/routing/hotspot_fraction", -0.1)), "routing.hotspot_fraction");
  EXPECT_EQ(moe::scenarioFromJson(with(d, "/seed", 18446744073709551615ull)).seed,
            18446744073709551615ull);
}

TEST(ScenarioJson, ClusterRules) {
  const json d = defaultJson();
  EXPECT_EQ(rejectedPath(with(d, "/cluster/cards_per_server", 4)), "cluster.cards_per_server");
  // One server of one card: a single rank has nobody to exchange with.
  json one = with(with(d, "/cluster", {{"servers", 1}, {"cards_per_server", 1}}),
                  "/hardware/overrides/cards_per_server", 1);
  EXPECT_EQ(rejectedPath(with(one, "/model/experts", 1)), "cluster.servers");
  json big = with(with(d, "/cluster", {{"servers", 96}, {"cards_per_server", 16}}),
                  "/hardware/overrides/cards_per_server", 16);
  EXPECT_EQ(rejectedPath(big), "cluster.servers");
}

TEST(ScenarioJson, ModelAndEplbRules) {
  const json d = defaultJson();
  json oneServer = with(with(d, "/cluster/servers", 1), "/model/experts", 8);
  EXPECT_EQ(rejectedPath(with(oneServer, "/model/topk", 9)), "model.topk");
  EXPECT_EQ(rejectedPath(with(d, "/model/experts", 60)), "model.experts");
  EXPECT_EQ(rejectedPath(with(d, "/eplb/place_per_rank", 65)), "eplb.place_per_rank");
  EXPECT_EQ(rejectedPath(with(d, "/eplb/place_per_rank", 3)), "eplb.place_per_rank");
  // With redundancy the experts need not divide the ranks.
  EXPECT_EQ(rejectedPath(with(with(d, "/eplb/place_per_rank", 4), "/model/experts", 60)),
            "(accepted)");

  EXPECT_EQ(rejectedPath(with(d, "/eplb/table", json::parse("[[1, 0]]"))), "eplb.table");
  // Generated tables (issue 6): each JSON-level rule names its key.
  EXPECT_EQ(rejectedPath(with(d, "/eplb/table_from", "sometimes")), "eplb.table_from");
  EXPECT_EQ(rejectedPath(with(d, "/eplb/table_from", 1)), "eplb.table_from");
  EXPECT_EQ(rejectedPath(with(d, "/eplb/groups", 0)), "eplb.groups");
  EXPECT_EQ(rejectedPath(with(d, "/eplb/redundant_experts", -1)), "eplb.redundant_experts");
  EXPECT_EQ(rejectedPath(with(d, "/eplb/redundant_experts", 16)),
            "eplb.table_from");  // no table source
  EXPECT_EQ(
      rejectedPath(with(with(d, "/eplb/redundant_experts", 16), "/eplb/table_from", "warm-up")),
      "(accepted)");
  json rows18 = json::array(), rows1 = json::array(), ragged = json::array(), good = json::array();
  for (int e = 0; e < 64; ++e) {
    rows18.push_back(std::vector<int>(18, 0));
    rows1.push_back({1});
    ragged.push_back(e == 5 ? json{1, e, 0} : json{1, e});
    good.push_back({1, e});
  }
  EXPECT_EQ(rejectedPath(with(d, "/eplb/table", rows18)), "eplb.table[0]");
  EXPECT_EQ(rejectedPath(with(d, "/eplb/table", rows1)), "eplb.table[0]");
  EXPECT_EQ(rejectedPath(with(d, "/eplb/table", ragged)), "eplb.table[5]");
  EXPECT_EQ(moe::scenarioFromJson(with(d, "/eplb/table", good)).eplb.table.size(), 64u);

  EXPECT_EQ(rejectedPath(with(d, "/eplb/pruning_threshold", {0.1, 0.1, 0.1})),
            "eplb.pruning_threshold");
  EXPECT_EQ(rejectedPath(with(d, "/eplb/pruning_threshold", {0, 0, 1.5, 0, 0, 0, 0, 0})),
            "eplb.pruning_threshold[2]");
  EXPECT_EQ(rejectedPath(with(d, "/eplb/active_tokens", 129)), "eplb.active_tokens");
  EXPECT_EQ(rejectedPath(with(d, "/eplb/active_tokens", -2)), "eplb.active_tokens");
  // Active tokens only decide what pruning applies to: alone they are refused.
  EXPECT_EQ(rejectedPath(with(d, "/eplb/active_tokens", 0)), "eplb.active_tokens");
  const json pruned = with(d, "/eplb/pruning_threshold", json::array({0, 0, 0, 0, 0, 0, 0, 0.5}));
  EXPECT_EQ(moe::scenarioFromJson(with(pruned, "/eplb/active_tokens", 0)).eplb.activeTokens, 0);
}

TEST(ScenarioJson, PayloadSizeGuardRefusesAbsurdSizes) {
  json huge = with(defaultJson(), "/cluster/servers", 64);
  huge = with(with(with(with(huge, "/model/experts", 1024), "/model/tokens_per_rank", 512),
                   "/model/hidden", 16384),
              "/model/topk", 16);
  try {
    moe::scenarioFromJson(huge);
    FAIL() << "expected the size guard";
  } catch (const InputError& e) {
    EXPECT_EQ(e.path(), "model");
    EXPECT_NE(e.rule().find("146028888064 bytes"), std::string::npos) << e.rule();
  }
  // Without payload the same shape is fine: nothing is allocated per byte.
  EXPECT_EQ(rejectedPath(with(huge, "/payload", "none")), "(accepted)");
}

TEST(ScenarioJson, RoutingRules) {
  const json d = defaultJson();
  json hot = with(d, "/routing/distribution", "hotspot");
  EXPECT_EQ(rejectedPath(with(hot, "/routing/hotspot_experts", 65)), "routing.hotspot_experts");
  EXPECT_EQ(rejectedPath(with(hot, "/routing/hotspot_experts", 64)), "(accepted)");
  // Parameters of other distributions are range-checked but not cross-checked.
  EXPECT_EQ(rejectedPath(with(d, "/routing/hotspot_experts", 65)), "(accepted)");

  json grp = with(d, "/routing/distribution", "group-limited");
  EXPECT_EQ(rejectedPath(with(grp, "/routing/groups", 7)), "routing.groups");
  EXPECT_EQ(rejectedPath(with(grp, "/routing/topk_groups", 9)), "routing.topk_groups");
  EXPECT_EQ(rejectedPath(with(with(grp, "/routing/groups", 16), "/routing/topk_groups", 1)),
            "model.topk");
  EXPECT_EQ(rejectedPath(with(with(grp, "/routing/groups", 16), "/routing/topk_groups", 2)),
            "(accepted)");

  json trace = with(d, "/routing/distribution", "trace");
  EXPECT_EQ(rejectedPath(trace), "routing.trace_file");
  EXPECT_EQ(rejectedPath(with(trace, "/routing/trace_file", "ids.csv")), "(accepted)");
}

TEST(ScenarioJson, RingRules) {
  const json d = defaultJson();
  EXPECT_EQ(rejectedPath(with(d, "/rings/chunk_bytes", 100)), "rings.chunk_bytes");
  EXPECT_EQ(rejectedPath(with(d, "/rings/chunk_bytes", 16)), "rings.chunk_bytes");
  EXPECT_EQ(rejectedPath(with(d, "/rings/chunk_bytes", (64 << 20) + 32)), "rings.chunk_bytes");
  EXPECT_EQ(rejectedPath(with(d, "/rings/chunk_bytes", 32)), "(accepted)");
  EXPECT_EQ(rejectedPath(with(d, "/rings/queue_chunks", 0)), "rings.queue_chunks");
  EXPECT_EQ(rejectedPath(with(d, "/rings/queue_chunks", 4097)), "rings.queue_chunks");
  EXPECT_EQ(rejectedPath(with(d, "/rings/sender_cores", 0)), "rings.sender_cores");
  EXPECT_EQ(rejectedPath(with(d, "/rings/forwarder_cores", 0)), "rings.forwarder_cores");
  EXPECT_EQ(rejectedPath(with(d, "/rings/receiver_cores", 0)), "rings.receiver_cores");
  json split = with(with(with(d, "/rings/sender_cores", 20), "/rings/forwarder_cores", 20),
                    "/rings/receiver_cores", 1);
  EXPECT_EQ(rejectedPath(split), "rings");  // 41 > 40 AIV cores on the 910B3
  EXPECT_EQ(rejectedPath(with(split, "/hardware/profile", "ascend-910b2")), "(accepted)");
  // An override of aiv_cores feeds the same rule.
  EXPECT_EQ(rejectedPath(with(d, "/hardware/overrides/aiv_cores", 20)), "rings");
}

TEST(ScenarioJson, OverridesApplyOnTopOfTheNamedProfile) {
  json j = with(defaultJson(), "/hardware/profile", "ascend-910b2");
  j = with(j, "/hardware/overrides",
           {{"nic_gbps", 50.0}, {"aiv_cores", 64}, {"fabric", "supernode"}});
  const Scenario s = moe::scenarioFromJson(j);
  moe::HardwareProfile expected = moe::builtinProfile("ascend-910b2");
  expected.nicGBps = 50.0;
  expected.aivCores = 64;
  expected.fabric = "supernode";
  EXPECT_EQ(s.hardware, expected);
  EXPECT_EQ(s.profileName, "ascend-910b2");
  // Written back as exactly those three differences.
  EXPECT_EQ(moe::scenarioToJson(s)["hardware"]["overrides"], j["hardware"]["overrides"]);
}

TEST(ScenarioJson, OverrideRangesNameTheField) {
  const json d = defaultJson();
  const std::string o = "/hardware/overrides/";
  const auto path = [](const std::string& k) { return "hardware.overrides." + k; };
  EXPECT_EQ(rejectedPath(with(d, o + "nosuch", 1)), path("nosuch"));
  EXPECT_EQ(rejectedPath(with(d, o + "aic_cores", 0)), path("aic_cores"));
  EXPECT_EQ(rejectedPath(with(d, o + "aiv_cores", 129)), path("aiv_cores"));
  EXPECT_EQ(rejectedPath(with(d, o + "hccs_gbps_per_pair", 0.0)), path("hccs_gbps_per_pair"));
  EXPECT_EQ(rejectedPath(with(d, o + "nic_gbps", 100000.5)), path("nic_gbps"));
  EXPECT_EQ(rejectedPath(with(d, o + "hbm_gbps", "fast")), path("hbm_gbps"));
  EXPECT_EQ(rejectedPath(with(d, o + "rdma_latency_ns", -1)), path("rdma_latency_ns"));
  EXPECT_EQ(rejectedPath(with(d, o + "sync_all_ns", 1000000001)), path("sync_all_ns"));
  EXPECT_EQ(rejectedPath(with(d, o + "dma_align_bytes", 48)), path("dma_align_bytes"));
  EXPECT_EQ(rejectedPath(with(d, o + "dma_align_bytes", 8192)), path("dma_align_bytes"));
  EXPECT_EQ(rejectedPath(with(d, o + "ub_bytes", 0)), path("ub_bytes"));
  EXPECT_EQ(rejectedPath(with(d, o + "hbm_bytes", 1e300)), path("hbm_bytes"));
  EXPECT_EQ(rejectedPath(with(d, o + "cards_per_server", 65)), path("cards_per_server"));
  EXPECT_EQ(rejectedPath(with(d, o + "fabric", "torus")), path("fabric"));
  EXPECT_EQ(rejectedPath(with(d, o + "fabric", "switch")), "(accepted)");
  EXPECT_EQ(rejectedPath(with(d, o + "port_gbps", 0.0)), path("port_gbps"));
  EXPECT_EQ(rejectedPath(with(d, o + "port_gbps", "fast")), path("port_gbps"));
  EXPECT_EQ(rejectedPath(with(d, o + "port_gbps", 2e5)), path("port_gbps"));
  EXPECT_EQ(rejectedPath(with(d, o + "dma_align_bytes", 64)), "(accepted)");
}

TEST(HardwareProfiles, BuiltinsLoadAndDifferAsSpecified) {
  const auto names = moe::builtinProfileNames();
  // Every file in resources/profiles/ is a built-in, listed in name order.
  ASSERT_EQ(names,
            (std::vector<std::string>{"ascend-910b2", "ascend-910b3", "ascend-910b3-hccs28",
                                      "atlas-a3-die", "atlas-a3-superpod", "h800-nvswitch"}));
  const auto b3 = moe::builtinProfile("ascend-910b3");
  const auto b2 = moe::builtinProfile("ascend-910b2");
  const auto a3 = moe::builtinProfile("atlas-a3-die");
  EXPECT_EQ(b3.aicCores, 20);
  EXPECT_EQ(b3.aivCores, 40);
  EXPECT_EQ(b3.fabric, "hccs-mesh");
  EXPECT_EQ(b2.aicCores, 24);
  EXPECT_EQ(b2.aivCores, 48);
  EXPECT_EQ(b2.fabric, "hccs-mesh");
  EXPECT_EQ(a3.aicCores, 24);
  EXPECT_EQ(a3.aivCores, 48);
  EXPECT_EQ(a3.fabric, "supernode");
  EXPECT_EQ(a3.hbmBytes, std::int64_t{64} << 30);
  // The supernode: every die its own UB ports into a non-blocking switch, an A3 part.
  const auto pod = moe::builtinProfile("atlas-a3-superpod");
  EXPECT_EQ(pod.fabric, "switch");
  EXPECT_EQ(pod.product, "A3");
  EXPECT_EQ(pod.portGBps, 196.0);
  EXPECT_EQ(pod.aivCores, 48);
  EXPECT_EQ(b3.ubBytes, 196608);
  EXPECT_EQ(b3.dmaAlignBytes, 32);
  EXPECT_EQ(b3.hccsGBpsPerPair, 56.0);
  EXPECT_EQ(b3.nicGBps, 25.0);
  EXPECT_EQ(b2.name, "ascend-910b2");
  EXPECT_NE(b3, b2);
  EXPECT_NE(b2, a3);
  EXPECT_NE(b3, a3);
  try {
    moe::builtinProfile("ascend-910c");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.path(), "hardware.profile");
    EXPECT_NE(e.rule().find("ascend-910b2, ascend-910b3, ascend-910b3-hccs28, atlas-a3-die"),
              std::string::npos);
  }
}

TEST(HardwareProfiles, H800IsASwitchFabricAndHccs28DiffersOnlyInTheHccsReading) {
  const auto h = moe::builtinProfile("h800-nvswitch");
  EXPECT_EQ(h.fabric, "switch");
  EXPECT_EQ(h.portGBps, 160.0);
  EXPECT_EQ(h.nicGBps, 50.0);
  EXPECT_EQ(h.aivCores, 24);  // the SMs DeepEP gives its normal-mode kernels
  EXPECT_EQ(h.cardsPerServer, 8);
  auto b3 = moe::builtinProfile("ascend-910b3");
  const auto b28 = moe::builtinProfile("ascend-910b3-hccs28");
  EXPECT_EQ(b28.hccsGBpsPerPair, 28.0);
  EXPECT_EQ(b3.hccsGBpsPerPair, 56.0);
  // The default's source names the disagreement and the variant that runs the other reading.
  const std::string src = moe::profileFieldSource("ascend-910b3", "hccs_gbps_per_pair");
  EXPECT_NE(src.find("disagree"), std::string::npos);
  EXPECT_NE(src.find("ascend-910b3-hccs28"), std::string::npos);
  b3.name = b28.name;
  b3.hccsGBpsPerPair = b28.hccsGBpsPerPair;
  b3.portGBps = b28.portGBps;  // unused by hccs-mesh; halved with the reading
  EXPECT_EQ(b3, b28);
}

TEST(HardwareProfiles, FieldNamesMatchTheDataFilesAndEveryFieldHasASource) {
  const auto& fields = moe::HardwareProfile::fieldNames();
  const std::set<std::string> fieldSet(fields.begin(), fields.end());
  EXPECT_EQ(fieldSet.size(), fields.size());
  for (const auto& name : moe::builtinProfileNames()) {
    const json doc = readJsonFile("resources/profiles/" + name + ".json");
    std::set<std::string> keys;
    for (auto it = doc["fields"].begin(); it != doc["fields"].end(); ++it) keys.insert(it.key());
    EXPECT_EQ(keys, fieldSet) << name;
    for (const auto& f : fields) {
      EXPECT_FALSE(moe::profileFieldSource(name, f).empty()) << name << " " << f;
      EXPECT_EQ(moe::profileFieldSource(name, f), doc["fields"][f]["source"].get<std::string>());
    }
    // profileToJson gives exactly the file's values.
    json values = json::object();
    for (const auto& f : fields) values[f] = doc["fields"][f]["value"];
    EXPECT_EQ(moe::profileToJson(moe::builtinProfile(name)), values) << name;
  }
  EXPECT_NE(moe::profileFieldSource("ascend-910b3", "aic_cores").find("CANN"), std::string::npos);
  EXPECT_EQ(moe::profileFieldSource("ascend-910b3", "no_such_field"), "");
}

TEST(HardwareProfiles, ApplyProfileFieldRoundTripsThroughProfileToJson) {
  moe::HardwareProfile p = moe::builtinProfile("atlas-a3-die");
  const json j = moe::profileToJson(p);
  moe::HardwareProfile q;  // the 910B3 numbers
  for (auto it = j.begin(); it != j.end(); ++it) moe::applyProfileField(q, it.key(), *it, it.key());
  q.name = p.name;
  q.product = p.product;  // like the name, which product it is is no overridable field
  EXPECT_EQ(q, p);
}

TEST(ScenarioFile, ReadErrorsNameTheFile) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("moe_scenario_json_test_" +
                    std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
  std::filesystem::create_directories(dir);
  const std::string missing = (dir / "missing.json").string();
  try {
    moe::loadScenarioFile(missing);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.path(), missing);
    EXPECT_NE(e.rule().find("no such file"), std::string::npos) << e.rule();
  }
  try {
    moe::loadScenarioFile(dir.string());
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.path(), dir.string());
  }
  const std::string bad = (dir / "bad.json").string();
  std::ofstream(bad) << R"({"model": {"hidden": 1,)";
  try {
    moe::loadScenarioFile(bad);
    FAIL();
  } catch (const InputError& e) {
    // The file is the path; the rule gives line and column and never echoes the bytes.
    EXPECT_EQ(e.path(), bad);
    EXPECT_NE(e.rule().find("line 1, column 24: not valid JSON"), std::string::npos) << e.rule();
    EXPECT_EQ(e.rule().find("hidden"), std::string::npos) << e.rule();
  }
  const std::string good = (dir / "good.json").string();
  std::ofstream(good) << R"({"model": {"hidden": 1024}})";
  EXPECT_EQ(moe::loadScenarioFile(good).model.hidden, 1024);
  std::filesystem::remove_all(dir);
}
