// HCCL_BUFFSIZE as the CANN mc2 operator documents give it (their formulas, with "/" an
// integer division and MB = 2^20 B), for the scenario's shape: maxBS = BS (every rank
// sends the same batch), localExpertNum = instances per rank, sharedExpertNum = 0 (the
// scenario's shared expert runs on every rank and enters combine as sharedExpertX, not
// as shared-expert ranks).

#include <algorithm>

#include "core/plan/real_operator_limits.h"

namespace moe {
namespace {

constexpr std::int64_t kMiB = std::int64_t{1} << 20;

std::int64_t alignUp(std::int64_t x, std::int64_t a) {
  return (x + a - 1) / a * a;
}

// The A3 dispatch and combine formulas differ only in the per-row metadata bytes (64, 44).
std::int64_t a3Bytes(std::int64_t bs, std::int64_t h, std::int64_t k, std::int64_t ep,
                     std::int64_t local, std::int64_t meta) {
  const std::int64_t bytes = 2 * (local * bs * ep * alignUp(alignUp(2 * h, 32) + meta, 512) +
                                  k * bs * alignUp(2 * h, 512));
  return std::max(bytes, 2 * kMiB);
}

std::int64_t bufferBytes(const std::string& formula, const Scenario& sc) {
  const std::int64_t bs = sc.model.tokensPerRank;
  const std::int64_t h = sc.model.hidden;
  const std::int64_t k = sc.model.topk;
  const std::int64_t ep = sc.cluster.ranks();
  const std::int64_t local = sc.placePerRank();
  if (formula == "a2-fullmesh") return 2 * (bs * ep * std::min(local, k) * h * 2 + 2 * kMiB);
  if (formula == "a2-hierarchy")
    return (local * ep + ep / 4) * alignUp(bs * (h * 2 + 16 * alignUp(k, 8)), 512) + 8 * kMiB;
  if (formula == "a3-dispatch") return a3Bytes(bs, h, k, ep, local, 64);
  if (formula == "a3-combine") return a3Bytes(bs, h, k, ep, local, 44);
  // a3-combine-add-rms-norm: 2^20 * (HCCL_BUFFSIZE - 2) / 2 >= Bs*2*(H+128)*(ep*local+K+1)
  return 2 * kMiB + 2 * bs * 2 * (h + 128) * (ep * local + k + 1);
}

}  // namespace

std::vector<BuffsizeNeed> hcclBuffsizeNeeds(const Scenario& sc) {
  std::vector<BuffsizeNeed> needs;
  for (const OperatorEntry& e : realOperatorTable()) {
    if (e.buffsizeFormula.empty() || !entryApplies(sc, e)) continue;
    const std::int64_t mb = (bufferBytes(e.buffsizeFormula, sc) + kMiB - 1) / kMiB;
    auto it = std::find_if(needs.begin(), needs.end(),
                           [&](const BuffsizeNeed& n) { return n.commAlg == e.commAlg; });
    if (it == needs.end())
      needs.push_back({e.commAlg, mb, e.op});
    else if (mb > it->megabytes)
      *it = {e.commAlg, mb, e.op};
  }
  // In design order (hierarchy before fullmesh for --impl all), not table order.
  const auto algs = commAlgsFor(sc.dispatchImpl);
  const auto rank = [&](const BuffsizeNeed& n) {
    return std::find(algs.begin(), algs.end(), n.commAlg) - algs.begin();
  };
  std::stable_sort(needs.begin(), needs.end(),
                   [&](const BuffsizeNeed& a, const BuffsizeNeed& b) { return rank(a) < rank(b); });
  return needs;
}

std::string hcclBuffsizeLine(const Scenario& sc) {
  const auto needs = hcclBuffsizeNeeds(sc);
  if (needs.empty()) return "";
  std::string line = "real CANN operators on " + sc.hardware.product + ": HCCL_BUFFSIZE >= ";
  for (std::size_t i = 0; i < needs.size(); ++i) {
    const BuffsizeNeed& n = needs[i];
    line += (i ? "; >= " : "") + std::to_string(n.megabytes) + " MB per card (" +
            (n.commAlg.empty() ? "" : "commAlg " + n.commAlg + ", ") + "set by " + n.op + ")";
  }
  return line;
}

}  // namespace moe
