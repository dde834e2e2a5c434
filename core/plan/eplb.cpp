#include "core/plan/eplb.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include "core/util/error.h"
#include "core/util/json_fields.h"

namespace moe {
namespace {

// Generous bounds that keep the O(slots * experts) loops and the outputs small.
constexpr int kMaxLayers = 4096;
constexpr int kMaxLogical = 1 << 14;
constexpr int kMaxReplicas = 1 << 16;

std::vector<int> inverse(const std::vector<int>& perm) {
  std::vector<int> inv(perm.size());
  for (std::size_t i = 0; i < perm.size(); ++i)
    inv[static_cast<std::size_t>(perm[i])] = static_cast<int>(i);
  return inv;
}

struct LayerPlacement {
  std::vector<int> phy2log, phyrank, logcnt;
};

// One layer of the hierarchical policy (groups -> nodes, replicas within a node,
// physical experts -> the node's GPUs). The global policy is this with one group and one node.
LayerPlacement hierarchical(const std::vector<double>& w, int numPhysical, int numGroups,
                            int numNodes, int numGpus, int maxReplicas) {
  const int E = static_cast<int>(w.size());
  const int groupSize = E / numGroups;
  const int groupsPerNode = numGroups / numNodes;
  const int logPerNode = E / numNodes;
  const int phyPerNode = numPhysical / numNodes;
  const int gpusPerNode = numGpus / numNodes;
  const int phyPerGpu = numPhysical / numGpus;

  // Step 1: groups onto nodes. Experts are renumbered node-major ("mlog"): node n holds
  // mlog ids [n*logPerNode, (n+1)*logPerNode), group by group in packing order.
  std::vector<double> groupLoad(static_cast<std::size_t>(numGroups), 0.0);
  for (int e = 0; e < E; ++e)
    groupLoad[static_cast<std::size_t>(e / groupSize)] += w[static_cast<std::size_t>(e)];
  const Packing groups = balancedPacking(groupLoad, numNodes);
  std::vector<int> log2mlog(static_cast<std::size_t>(E));
  for (int e = 0; e < E; ++e) {
    const auto g = static_cast<std::size_t>(e / groupSize);
    log2mlog[static_cast<std::size_t>(e)] =
        (groups.pack[g] * groupsPerNode + groups.rankInPack[g]) * groupSize + e % groupSize;
  }
  const std::vector<int> mlog2log = inverse(log2mlog);

  LayerPlacement out;
  out.phy2log.assign(static_cast<std::size_t>(numPhysical), -1);
  out.phyrank.assign(static_cast<std::size_t>(numPhysical), 0);
  out.logcnt.assign(static_cast<std::size_t>(E), 0);
  for (int n = 0; n < numNodes; ++n) {
    // Step 2: replicas inside the node.
    std::vector<double> nodeLoad(static_cast<std::size_t>(logPerNode));
    for (int i = 0; i < logPerNode; ++i)
      nodeLoad[static_cast<std::size_t>(i)] =
          w[static_cast<std::size_t>(mlog2log[static_cast<std::size_t>(n * logPerNode + i)])];
    const Replication rep = replicateExperts(nodeLoad, phyPerNode, maxReplicas);

    // Step 3: the node's physical experts onto its GPUs, each carrying its share of the load.
    std::vector<double> phyLoad(static_cast<std::size_t>(phyPerNode));
    for (int p = 0; p < phyPerNode; ++p) {
      const auto m = static_cast<std::size_t>(rep.phy2log[static_cast<std::size_t>(p)]);
      phyLoad[static_cast<std::size_t>(p)] = nodeLoad[m] / rep.logcnt[m];
    }
    const Packing gpus = balancedPacking(phyLoad, gpusPerNode);
    std::vector<int> phy2pphy(static_cast<std::size_t>(phyPerNode));
    for (int p = 0; p < phyPerNode; ++p)
      phy2pphy[static_cast<std::size_t>(p)] = gpus.pack[static_cast<std::size_t>(p)] * phyPerGpu +
                                              gpus.rankInPack[static_cast<std::size_t>(p)];
    const std::vector<int> pphy2phy = inverse(phy2pphy);

    for (int pp = 0; pp < phyPerNode; ++pp) {
      const auto p = static_cast<std::size_t>(pphy2phy[static_cast<std::size_t>(pp)]);
      const int mlog = n * logPerNode + rep.phy2log[p];
      const auto slot = static_cast<std::size_t>(n * phyPerNode + pp);
      out.phy2log[slot] = mlog2log[static_cast<std::size_t>(mlog)];
      out.phyrank[slot] = rep.rank[p];
    }
    for (int i = 0; i < logPerNode; ++i)
      out.logcnt[static_cast<std::size_t>(mlog2log[static_cast<std::size_t>(n * logPerNode + i)])] =
          rep.logcnt[static_cast<std::size_t>(i)];
  }
  return out;
}

}  // namespace

Packing balancedPacking(const std::vector<double>& weight, int numPacks) {
  const int n = static_cast<int>(weight.size());
  if (numPacks <= 0 || n % numPacks != 0)
    throw std::invalid_argument("balancedPacking: items not divisible by packs");
  const int perPack = n / numPacks;
  Packing out;
  out.pack.assign(static_cast<std::size_t>(n), 0);
  out.rankInPack.assign(static_cast<std::size_t>(n), 0);
  if (perPack == 1) {  // the published shortcut: item i is pack i
    std::iota(out.pack.begin(), out.pack.end(), 0);
    return out;
  }
  std::vector<int> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  // Heaviest first; a stable sort keeps equal weights in index order (lower index first).
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return weight[static_cast<std::size_t>(a)] > weight[static_cast<std::size_t>(b)];
  });
  std::vector<double> packWeight(static_cast<std::size_t>(numPacks), 0.0);
  std::vector<int> packItems(static_cast<std::size_t>(numPacks), 0);
  for (int item : order) {
    int best = -1;
    for (int p = 0; p < numPacks; ++p) {  // the lightest pack with room; lower index on ties
      if (packItems[static_cast<std::size_t>(p)] >= perPack) continue;
      if (best < 0 ||
          packWeight[static_cast<std::size_t>(p)] < packWeight[static_cast<std::size_t>(best)])
        best = p;
    }
    out.pack[static_cast<std::size_t>(item)] = best;
    out.rankInPack[static_cast<std::size_t>(item)] = packItems[static_cast<std::size_t>(best)]++;
    packWeight[static_cast<std::size_t>(best)] += weight[static_cast<std::size_t>(item)];
  }
  return out;
}

Replication replicateExperts(const std::vector<double>& weight, int numPhysical, int maxReplicas) {
  const int E = static_cast<int>(weight.size());
  if (numPhysical < E || (maxReplicas > 0 && static_cast<long long>(maxReplicas) * E < numPhysical))
    throw std::invalid_argument("replicateExperts: slot count out of range");
  Replication out;
  out.phy2log.resize(static_cast<std::size_t>(numPhysical));
  out.rank.assign(static_cast<std::size_t>(numPhysical), 0);
  out.logcnt.assign(static_cast<std::size_t>(E), 1);
  std::iota(out.phy2log.begin(), out.phy2log.begin() + E, 0);
  for (int slot = E; slot < numPhysical; ++slot) {
    int best = -1;
    double bestLoad = 0;
    for (int e = 0; e < E; ++e) {
      const int cnt = out.logcnt[static_cast<std::size_t>(e)];
      if (maxReplicas > 0 && cnt >= maxReplicas) continue;
      const double perReplica = weight[static_cast<std::size_t>(e)] / cnt;
      if (best < 0 || perReplica > bestLoad) {  // strictly greater: the lower index keeps a tie
        best = e;
        bestLoad = perReplica;
      }
    }
    out.phy2log[static_cast<std::size_t>(slot)] = best;
    out.rank[static_cast<std::size_t>(slot)] = out.logcnt[static_cast<std::size_t>(best)]++;
  }
  return out;
}

void validateEplb(const EplbInput& in, const std::string& prefix) {
  const auto path = [&](const char* key) { return jsonf::child(prefix, key); };
  const std::string weight = path("weight");
  require(!in.weight.empty() && static_cast<int>(in.weight.size()) <= kMaxLayers, weight,
          "must have between 1 and " + std::to_string(kMaxLayers) + " layers (rows), got " +
              std::to_string(in.weight.size()));
  const auto E = static_cast<int>(in.weight.front().size());
  require(E >= 1 && E <= kMaxLogical, jsonf::index(weight, 0),
          "must list between 1 and " + std::to_string(kMaxLogical) + " logical experts, got " +
              std::to_string(E));
  for (std::size_t l = 0; l < in.weight.size(); ++l) {
    require(static_cast<int>(in.weight[l].size()) == E, jsonf::index(weight, l),
            "every layer must list the same number of logical experts (" + std::to_string(E) +
                "), got " + std::to_string(in.weight[l].size()));
    for (std::size_t e = 0; e < in.weight[l].size(); ++e) {
      const double v = in.weight[l][e];
      require(std::isfinite(v) && v >= 0, jsonf::index(jsonf::index(weight, l), e),
              "load must be a finite number >= 0");
    }
  }
  require(in.numGroups >= 1, path("num_groups"),
          "must be >= 1, got " + std::to_string(in.numGroups));
  require(in.numNodes >= 1, path("num_nodes"), "must be >= 1, got " + std::to_string(in.numNodes));
  require(in.numGpus >= 1, path("num_gpus"), "must be >= 1, got " + std::to_string(in.numGpus));
  require(in.numReplicas >= 1 && in.numReplicas <= kMaxReplicas, path("num_replicas"),
          "must be in [1, " + std::to_string(kMaxReplicas) + "], got " +
              std::to_string(in.numReplicas));
  require(E % in.numGroups == 0, path("num_groups"),
          "the number of logical experts (" + std::to_string(E) +
              ") must be divisible by num_groups (" + std::to_string(in.numGroups) + ")");
  require(in.numGpus % in.numNodes == 0, path("num_gpus"),
          "must be divisible by num_nodes (" + std::to_string(in.numNodes) + "), got " +
              std::to_string(in.numGpus));
  require(in.numReplicas % in.numGpus == 0, path("num_replicas"),
          "must be divisible by num_gpus (" + std::to_string(in.numGpus) + "), got " +
              std::to_string(in.numReplicas));
  require(in.numReplicas >= E, path("num_replicas"),
          "must be >= the number of logical experts (" + std::to_string(E) + "), got " +
              std::to_string(in.numReplicas));
  require(in.maxReplicas >= 0, path("max_replicas"),
          "must be >= 0 (0 = no cap), got " + std::to_string(in.maxReplicas));
  if (in.maxReplicas > 0) {
    // Replicas are made inside a node, so the cap must leave room for the node's slots.
    const int nodes = in.numGroups % in.numNodes == 0 ? in.numNodes : 1;
    const long long room = static_cast<long long>(in.maxReplicas) * (E / nodes);
    require(room >= in.numReplicas / nodes, path("max_replicas"),
            "too small: " + std::to_string(E / nodes) + " experts per node with at most " +
                std::to_string(in.maxReplicas) + " replicas each cannot fill " +
                std::to_string(in.numReplicas / nodes) + " physical slots per node");
  }
}

EplbResult rebalanceExperts(const EplbInput& in) {
  validateEplb(in);
  EplbResult out;
  out.hierarchical = in.numGroups % in.numNodes == 0;
  const int groups = out.hierarchical ? in.numGroups : 1;
  const int nodes = out.hierarchical ? in.numNodes : 1;
  for (const std::vector<double>& w : in.weight) {
    LayerPlacement p = hierarchical(w, in.numReplicas, groups, nodes, in.numGpus, in.maxReplicas);
    const int maxCnt = *std::max_element(p.logcnt.begin(), p.logcnt.end());
    std::vector<std::vector<int>> l2p(w.size(),
                                      std::vector<int>(static_cast<std::size_t>(maxCnt), -1));
    for (std::size_t slot = 0; slot < p.phy2log.size(); ++slot)
      l2p[static_cast<std::size_t>(p.phy2log[slot])][static_cast<std::size_t>(p.phyrank[slot])] =
          static_cast<int>(slot);
    out.phy2log.push_back(std::move(p.phy2log));
    out.logcnt.push_back(std::move(p.logcnt));
    out.log2phy.push_back(std::move(l2p));
  }
  return out;
}

UpdateExpertTable toUpdateExpertTable(const std::vector<int>& phy2log, int numLogical,
                                      int numGpus) {
  if (numGpus <= 0 || phy2log.size() % static_cast<std::size_t>(numGpus) != 0)
    throw std::invalid_argument("toUpdateExpertTable: slots not divisible by GPUs");
  std::vector<std::vector<int>> instances(static_cast<std::size_t>(numLogical));
  for (std::size_t p = 0; p < phy2log.size(); ++p)
    instances.at(static_cast<std::size_t>(phy2log[p])).push_back(static_cast<int>(p));
  std::size_t maxCount = 1;
  for (const auto& v : instances) maxCount = std::max(maxCount, v.size());
  UpdateExpertTable t;
  t.placePerRank = static_cast<int>(phy2log.size()) / numGpus;
  for (const auto& v : instances) {  // ascending instance ids: rank group i uses replica i
    std::vector<int> row{static_cast<int>(v.size())};
    row.insert(row.end(), v.begin(), v.end());
    row.resize(maxCount + 1, -1);
    t.rows.push_back(std::move(row));
  }
  return t;
}

std::vector<double> cardLoad(const std::vector<double>& weight, const std::vector<int>& phy2log,
                             int numGpus) {
  std::vector<int> cnt(weight.size(), 0);
  for (int l : phy2log) ++cnt[static_cast<std::size_t>(l)];
  std::vector<double> load(static_cast<std::size_t>(numGpus), 0.0);
  const std::size_t perGpu = phy2log.size() / static_cast<std::size_t>(numGpus);
  for (std::size_t p = 0; p < phy2log.size(); ++p) {
    const auto l = static_cast<std::size_t>(phy2log[p]);
    load[p / perGpu] += weight[l] / cnt[l];
  }
  return load;
}

int identityCard(int e, int numLogical, int numGpus) {
  return static_cast<int>(static_cast<long long>(e) * numGpus / numLogical);
}

double maxOverMean(const std::vector<double>& load) {
  const double sum = std::accumulate(load.begin(), load.end(), 0.0);
  if (load.empty() || sum <= 0) return 1.0;
  return *std::max_element(load.begin(), load.end()) / (sum / static_cast<double>(load.size()));
}

namespace {

// The identity placement with every card's spare slots filled (see placeExperts).
std::vector<int> identityWithReplicas(const std::vector<double>& w, int numReplicas, int numGpus,
                                      int maxReplicas) {
  const int E = static_cast<int>(w.size());
  const int P = numReplicas / numGpus;
  std::vector<std::vector<int>> onCard(static_cast<std::size_t>(numGpus));
  for (int e = 0; e < E; ++e)
    onCard[static_cast<std::size_t>(identityCard(e, E, numGpus))].push_back(e);
  std::vector<int> cnt(static_cast<std::size_t>(E), 1);
  const auto perReplica = [&](int e) {
    return w[static_cast<std::size_t>(e)] / cnt[static_cast<std::size_t>(e)];
  };
  const auto open = [&](int e) {
    return maxReplicas == 0 || cnt[static_cast<std::size_t>(e)] < maxReplicas;
  };
  // The heaviest expert per replica among `among` that may take another replica; -1 if none.
  const auto heaviest = [&](const std::vector<int>& among) {
    int best = -1;
    for (int e : among)
      if (open(e) && (best < 0 || perReplica(e) > perReplica(best))) best = e;
    return best;
  };
  std::vector<int> all(static_cast<std::size_t>(E));
  std::iota(all.begin(), all.end(), 0);
  std::vector<int> phy2log;
  for (int c = 0; c < numGpus; ++c) {
    std::vector<int> slots = onCard[static_cast<std::size_t>(c)];
    const std::vector<int> own = slots;
    while (static_cast<int>(slots.size()) < P) {
      int e = heaviest(own);  // a local replica leaves the card's load as it was
      if (e < 0)
        e = heaviest(all);  // a remote one moves load off the heaviest: never raises the max
      if (e < 0)
        e = own.empty() ? all.front() : own.front();  // only past the cap; placeExperts refuses it
      ++cnt[static_cast<std::size_t>(e)];
      slots.push_back(e);
    }
    phy2log.insert(phy2log.end(), slots.begin(), slots.end());
  }
  return phy2log;
}

}  // namespace

Placement placeExperts(const std::vector<double>& weight, int numReplicas, int numGroups,
                       int numNodes, int numGpus, int maxReplicas) {
  EplbInput in;
  in.weight = {weight};
  in.numReplicas = numReplicas;
  in.numGroups = numGroups;
  in.numNodes = numNodes;
  in.numGpus = numGpus;
  in.maxReplicas = maxReplicas;
  const EplbResult r = rebalanceExperts(in);
  const int E = static_cast<int>(weight.size());
  std::vector<int> identity(static_cast<std::size_t>(E));
  std::iota(identity.begin(), identity.end(), 0);
  // cardLoad needs equal slots per card, so the identity's loads are summed directly.
  std::vector<double> identityLoad(static_cast<std::size_t>(numGpus), 0.0);
  for (int e = 0; e < E; ++e)
    identityLoad[static_cast<std::size_t>(identityCard(e, E, numGpus))] +=
        weight[static_cast<std::size_t>(e)];

  Placement p;
  p.hierarchical = r.hierarchical;
  p.identityMaxOverMean = maxOverMean(identityLoad);
  p.phy2log = r.phy2log.front();
  p.maxOverMean = maxOverMean(cardLoad(weight, p.phy2log, numGpus));
  if (p.maxOverMean > p.identityMaxOverMean) {
    std::vector<int> fallback = identityWithReplicas(weight, numReplicas, numGpus, maxReplicas);
    std::vector<int> cnt(static_cast<std::size_t>(E), 0);
    for (int l : fallback) ++cnt[static_cast<std::size_t>(l)];
    // A cap (MoeUpdateExpert's count <= world size) that the fallback would break keeps EPLB's.
    const bool withinCap =
        maxReplicas == 0 || *std::max_element(cnt.begin(), cnt.end()) <= maxReplicas;
    const double m = maxOverMean(cardLoad(weight, fallback, numGpus));
    if (withinCap && m < p.maxOverMean) {
      p.phy2log = std::move(fallback);
      p.maxOverMean = m;
      p.keptIdentity = true;
    }
  }
  return p;
}

}  // namespace moe
