#include "core/reference/update_expert.h"

#include <algorithm>
#include <cmath>
#include <cstddef>

#include "core/util/error.h"
#include "core/util/json_fields.h"

namespace moe {
namespace {

std::string cell(const std::string& path, std::int64_t r, std::int64_t c) {
  return path + "[" + std::to_string(r) + "][" + std::to_string(c) + "]";
}

std::string got(std::int64_t v) {
  return ", got " + std::to_string(v);
}

// Total instances over all rows; only call once every count is known to be in range.
std::int64_t totalInstances(const UpdateExpertArgs& a) {
  std::int64_t total = 0;
  for (int e = 0; e < a.numExperts; ++e) total += a.eplbTable[std::size_t(e) * a.tableCols];
  return total;
}

}  // namespace

namespace {

// The kind of a rule decides what happens to it under each UpdateExpertRules.
enum class Rule {
  Null,          // a required input is missing: [161001] on the real operator
  ShapeOrValue,  // the real operator refuses it too: [561002]
  Mode0,         // world_size / local_rank_id: the real tiling reads them in balance_mode 0 only
  Undefined,     // the real kernel does not check it but would read out of bounds
  PipelineOnly,  // the real operator accepts it; the pipeline cannot use it (warning)
};

class Checker {
 public:
  Checker(UpdateExpertRules rules, int balanceMode) : rules_(rules), mode_(balanceMode) {}

  void operator()(bool cond, const std::string& path, const std::string& rule, Rule kind) {
    if (cond) return;
    if (rules_ == UpdateExpertRules::Pipeline) {
      std::string why;
      if (kind == Rule::PipelineOnly || (kind == Rule::Mode0 && mode_ == 1))
        why =
            " (the real operator accepts this; the pipeline needs it, see "
            "`moe-sim op update-expert` for the real operator's rules)";
      throw InputError(path, rule + why);
    }
    switch (kind) {
      case Rule::Null:
        throw InputError(path, "[161001] " + rule);
      case Rule::ShapeOrValue:
        throw InputError(path, "[561002] " + rule);
      case Rule::Mode0:
        if (mode_ != 1) throw InputError(path, "[561002] " + rule);
        return;  // mode 1: the real tiling ignores the field
      case Rule::Undefined:
        throw InputError(path, rule +
                                   " (the real operator does not check this, but its kernel "
                                   "would read out of bounds: the result is undefined)");
      case Rule::PipelineOnly:
        warnings_.push_back({path, rule});
        return;
    }
  }
  std::vector<UpdateExpertWarning> take() { return std::move(warnings_); }
  bool warned() const { return !warnings_.empty(); }

 private:
  UpdateExpertRules rules_;
  int mode_;
  std::vector<UpdateExpertWarning> warnings_;
};

// The JSON paths of the arguments, as the messages name them.
struct ArgPaths {
  explicit ArgPaths(const std::string& prefix)
      : prefix(prefix),
        ids(jsonf::child(prefix, "expert_ids")),
        table(jsonf::child(prefix, "eplb_table")),
        worldSize(jsonf::child(prefix, "world_size")),
        scales(jsonf::child(prefix, "expert_scales")),
        threshold(jsonf::child(prefix, "pruning_threshold")),
        active(jsonf::child(prefix, "active_mask")) {}
  std::string prefix, ids, table, worldSize, scales, threshold, active;
};

// Shapes first: every later rule indexes these arrays.
void checkShapes(const UpdateExpertArgs& a, const ArgPaths& at, Checker& check, bool realMode1) {
  check(a.balanceMode == 0 || a.balanceMode == 1, jsonf::child(at.prefix, "balance_mode"),
        "must be 0 (by rank) or 1 (by token)" + got(a.balanceMode), Rule::ShapeOrValue);
  check(a.bs > 0 && a.bs <= kUpdateExpertMaxBs, at.ids,
        "BS (rows) must satisfy 0 < BS <= " + std::to_string(kUpdateExpertMaxBs) + got(a.bs),
        Rule::ShapeOrValue);
  check(a.k > 0 && a.k <= kUpdateExpertMaxK, at.ids,
        "K (columns) must satisfy 0 < K <= " + std::to_string(kUpdateExpertMaxK) + got(a.k),
        Rule::ShapeOrValue);
  check(a.numExperts > 0 && a.numExperts <= kUpdateExpertMaxExperts, at.table,
        "E (rows, logical experts) must satisfy 0 < E <= " +
            std::to_string(kUpdateExpertMaxExperts) + got(a.numExperts),
        Rule::ShapeOrValue);
  check(a.k <= a.numExperts, at.ids,
        "K (" + std::to_string(a.k) + ") must not exceed E, the eplb_table rows (" +
            std::to_string(a.numExperts) + ")",
        Rule::ShapeOrValue);
  check(a.expertIds.size() == std::size_t(a.bs) * a.k, at.ids,
        "must hold BS*K = " + std::to_string(a.bs * a.k) + " ids" +
            got(std::int64_t(a.expertIds.size())),
        Rule::ShapeOrValue);
  check(a.worldSize >= kUpdateExpertMinWorldSize && a.worldSize <= kUpdateExpertMaxWorldSize,
        at.worldSize,
        "must satisfy " + std::to_string(kUpdateExpertMinWorldSize) +
            " <= world_size <= " + std::to_string(kUpdateExpertMaxWorldSize) + got(a.worldSize),
        Rule::Mode0);
  if (realMode1) {
    check(a.tableCols >= 2, at.table, "F (columns) must be >= 2" + got(a.tableCols),
          Rule::ShapeOrValue);
  } else {
    check(a.tableCols >= 2 && a.tableCols <= a.worldSize + 1, at.table,
          "F (columns) must satisfy 2 <= F <= world_size+1 = " + std::to_string(a.worldSize + 1) +
              got(a.tableCols),
          Rule::ShapeOrValue);
  }
  check(a.eplbTable.size() == std::size_t(a.numExperts) * a.tableCols, at.table,
        "must hold E*F = " + std::to_string(a.numExperts * a.tableCols) + " entries" +
            got(std::int64_t(a.eplbTable.size())),
        Rule::ShapeOrValue);
}

// Column 0 of each row: how many instances the logical expert has. A count outside 1..F-1
// would make the kernel read outside the row. True when every count fits its row.
bool checkInstanceCounts(const UpdateExpertArgs& a, const ArgPaths& at, Checker& check,
                         UpdateExpertRules rules, bool realMode1) {
  const int maxCount = realMode1 ? a.tableCols - 1 : std::min(a.worldSize, a.tableCols - 1);
  bool countsInRow = true;
  for (int e = 0; e < a.numExperts; ++e) {
    const int32_t count = a.eplbTable[std::size_t(e) * a.tableCols];
    // Per-cell rules build their message only when they fail: a layer of 8192 tokens
    // checks millions of cells, and building each cell's path and rule text first was most
    // of a run's allocations.
    if (rules == UpdateExpertRules::RealOperator && !(count >= 1 && count <= a.tableCols - 1))
      check(false, cell(at.table, e, 0),
            "instance count must satisfy 1 <= count <= F-1 = " + std::to_string(a.tableCols - 1) +
                got(count),
            Rule::Undefined);
    if (!(count >= 1 && count <= maxCount))
      check(false, cell(at.table, e, 0),
            "instance count must satisfy 1 <= count <= min(world_size, F-1) = " +
                std::to_string(maxCount) + got(count),
            Rule::PipelineOnly);
    countsInRow = countsInRow && count <= maxCount;
  }
  return countsInRow;
}

void checkExpertIds(const UpdateExpertArgs& a, const ArgPaths& at, Checker& check) {
  for (int t = 0; t < a.bs; ++t) {
    for (int j = 0; j < a.k; ++j) {
      const int32_t e = a.expertIds[std::size_t(t) * a.k + j];
      if (!(e >= 0 && e < a.numExperts))
        check(false, cell(at.ids, t, j),
              "expert id must be in [0, E) = [0, " + std::to_string(a.numExperts) + ")" + got(e),
              Rule::Undefined);
    }
  }
}

// placePerRank is not an argument of the kernel; it is implied by the table. Instance p
// lives on rank p / placePerRank, so the instance ids must be exactly 0 .. total-1, which
// also gives every rank the same number of instances. The real operator copies whatever
// the row holds, so under its rules these are warnings (one per rule, the first cell).
void checkInstanceIds(const UpdateExpertArgs& a, const ArgPaths& at, Checker& check) {
  const std::int64_t total = totalInstances(a);
  const bool worldOk = a.worldSize >= 1;
  check(total <= kUpdateExpertMaxInstances, at.table,
        "total instances (place_per_rank * world_size) must be <= " +
            std::to_string(kUpdateExpertMaxInstances) + got(total),
        Rule::PipelineOnly);
  check(worldOk && total % a.worldSize == 0, at.table,
        "total instances (" + std::to_string(total) + ") must be a multiple of world_size (" +
            std::to_string(a.worldSize) + ") so every rank holds the same number of instances",
        Rule::PipelineOnly);
  if (total > kUpdateExpertMaxInstances) return;
  std::vector<int> seenAt(std::size_t(total), -1);  // row that used each instance id
  for (int e = 0; e < a.numExperts; ++e) {
    const int32_t* row = &a.eplbTable[std::size_t(e) * a.tableCols];
    for (int c = 1; c <= row[0]; ++c) {
      const int32_t p = row[c];
      if (!(p >= 0 && p < total)) {
        check(false, cell(at.table, e, c),
              "instance id must be in [0, world_size*place_per_rank) = [0, " +
                  std::to_string(total) + ")" + got(p),
              Rule::PipelineOnly);
        return;
      }
      if (seenAt[std::size_t(p)] >= 0) {
        check(false, cell(at.table, e, c),
              "instance id " + std::to_string(p) + " is already used in row " +
                  std::to_string(seenAt[std::size_t(p)]) + "; instance ids must be unique",
              Rule::PipelineOnly);
        return;
      }
      seenAt[std::size_t(p)] = e;
    }
  }
}

void checkPruningInputs(const UpdateExpertArgs& a, const ArgPaths& at, Checker& check) {
  check(a.expertScales.has_value() || !a.pruningThreshold.has_value(), at.scales,
        "is required when pruning_threshold is given (they are given together)", Rule::Null);
  check(a.pruningThreshold.has_value() || !a.expertScales.has_value(), at.threshold,
        "is required when expert_scales is given (they are given together)", Rule::Null);
  // Seed 002: an active mask only means something with pruning; accepting it alone would
  // silently ignore it because balanced_active_mask is only produced with pruning.
  check(!a.activeMask.has_value() || a.expertScales.has_value(), at.active,
        "requires expert_scales and pruning_threshold", Rule::Null);
  if (a.expertScales) {
    check(a.expertScales->size() == std::size_t(a.bs) * a.k, at.scales,
          "must have the shape of expert_ids, BS*K = " + std::to_string(a.bs * a.k) + " values" +
              got(std::int64_t(a.expertScales->size())),
          Rule::ShapeOrValue);
    for (int t = 0; t < a.bs; ++t) {
      for (int j = 0; j < a.k; ++j) {
        if (!std::isfinite((*a.expertScales)[std::size_t(t) * a.k + j]))
          check(false, cell(at.scales, t, j), "must be a finite number", Rule::ShapeOrValue);
      }
    }
  }
  if (a.pruningThreshold) {
    check(a.pruningThreshold->size() == std::size_t(a.k), at.threshold,
          "must have K = " + std::to_string(a.k) + " values" +
              got(std::int64_t(a.pruningThreshold->size())),
          Rule::ShapeOrValue);
    for (int j = 0; j < a.k; ++j) {
      check(std::isfinite((*a.pruningThreshold)[std::size_t(j)]), jsonf::index(at.threshold, j),
            "must be a finite number", Rule::ShapeOrValue);
    }
  }
  if (a.activeMask) {
    check(a.activeMask->size() == std::size_t(a.bs), at.active,
          "must have BS = " + std::to_string(a.bs) + " values" +
              got(std::int64_t(a.activeMask->size())),
          Rule::ShapeOrValue);
    // The pipeline's kernel treats the active tokens as a prefix; the real operator documents
    // that order but computes each token from its own flag.
    for (int t = 1; t < a.bs; ++t) {
      if ((*a.activeMask)[std::size_t(t)] && !(*a.activeMask)[std::size_t(t) - 1]) {
        check(false, jsonf::index(at.active, std::size_t(t)),
              "all true entries must come before any false entry (true after false at index " +
                  std::to_string(t) + ")",
              Rule::PipelineOnly);
        break;
      }
    }
  }
}

}  // namespace

void validateUpdateExpert(const UpdateExpertArgs& a, const std::string& pathPrefix) {
  validateUpdateExpert(a, pathPrefix, UpdateExpertRules::Pipeline);
}

std::vector<UpdateExpertWarning> validateUpdateExpert(const UpdateExpertArgs& a,
                                                      const std::string& pathPrefix,
                                                      UpdateExpertRules rules) {
  const ArgPaths at(pathPrefix);
  Checker check(rules, a.balanceMode);
  const bool realMode1 = rules == UpdateExpertRules::RealOperator && a.balanceMode == 1;
  checkShapes(a, at, check, realMode1);
  const bool countsInRow = checkInstanceCounts(a, at, check, rules, realMode1);
  checkExpertIds(a, at, check);
  if (countsInRow) checkInstanceIds(a, at, check);
  // Seed 002 only demands this range for balance_mode 0, but a rank id outside the world is
  // a mistake in either mode, so the pipeline checks it always.
  check(
      a.localRankId >= 0 && a.localRankId < a.worldSize, jsonf::child(pathPrefix, "local_rank_id"),
      "must be in [0, world_size) = [0, " + std::to_string(a.worldSize) + ")" + got(a.localRankId),
      Rule::Mode0);
  checkPruningInputs(a, at, check);
  return check.take();
}

int updateExpertPlacePerRank(const UpdateExpertArgs& a) {
  return static_cast<int>(totalInstances(a) / a.worldSize);
}

UpdateExpertResult updateExpertReference(const UpdateExpertArgs& a) {
  return updateExpertReference(a, UpdateExpertRules::Pipeline, nullptr);
}

UpdateExpertResult updateExpertReference(const UpdateExpertArgs& a, UpdateExpertRules rules,
                                         std::vector<UpdateExpertWarning>* warnings) {
  const std::vector<UpdateExpertWarning> w = validateUpdateExpert(a, "", rules);
  UpdateExpertResult r;
  // Instances per rank only exist for a table the pipeline can use.
  r.placePerRank = w.empty() ? updateExpertPlacePerRank(a) : 0;
  if (warnings) warnings->insert(warnings->end(), w.begin(), w.end());
  r.balancedIds.resize(std::size_t(a.bs) * a.k);

  for (int i = 0; i < a.bs * a.k; ++i) {
    const int32_t e = a.expertIds[std::size_t(i)];
    const int32_t* row = &a.eplbTable[std::size_t(e) * a.tableCols];
    const int count = row[0];
    const int token = i / a.k;
    int place = 0;
    if (count == 1) {
      place = 1;
    } else if (a.balanceMode == 0) {
      // ceil(worldSize / count) ranks share one instance; rank groups map to instances.
      const int ranksPerInstance = (a.worldSize + count - 1) / count;
      place = a.localRankId / ranksPerInstance + 1;
    } else {
      // DESIGN.md §3.1 fixes seed 002's "i % place_num": round-robin by token, not by element.
      place = token % count + 1;
    }
    r.balancedIds[std::size_t(i)] = row[place];
  }

  if (a.expertScales && a.pruningThreshold) {
    const auto& scales = *a.expertScales;
    const auto& threshold = *a.pruningThreshold;
    std::vector<uint8_t> mask(std::size_t(a.bs) * a.k, 0);
    for (int t = 0; t < a.bs; ++t) {
      const bool tokenActive = !a.activeMask || (*a.activeMask)[std::size_t(t)] != 0;
      if (!tokenActive) continue;  // an inactive token keeps its all-false row
      // fp32, summed in j order: the emulated kernel must reproduce this bit for bit.
      float sum = 0.0f;
      for (int j = 0; j < a.k; ++j) sum += scales[std::size_t(t) * a.k + j];
      for (int j = 0; j < a.k; ++j) {
        // DESIGN.md §3.1 fixes seed 002: keep when scale >= threshold[k] * sum (not the reverse).
        const float bound = threshold[std::size_t(j)] * sum;
        mask[std::size_t(t) * a.k + j] = scales[std::size_t(t) * a.k + j] >= bound ? 1 : 0;
      }
    }
    r.balancedActiveMask = std::move(mask);
  }
  return r;
}

}  // namespace moe
