// The tuner's bounds and bookkeeping on small scenarios: the budget counts every engine run,
// progress never passes it or goes back, a time limit (an injected clock, never the wall
// clock) bounds the whole search, the objective is the stage's time, numerics can be kept,
// the stand-in's leaders are confirmed at full shape, and a resumed run log gives the result
// of an uninterrupted tune, never slower than the tiling proposal.

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <vector>

#include "core/plan/dispatch_tiling.h"
#include "core/run/resolved_scenario.h"
#include "core/scenario/scenario_json.h"
#include "core/studies/streaming_tuner.h"
#include "core/studies/tune_eval.h"
#include "core/studies/tune_log.h"
#include "core/util/error.h"
#include "tests/core/small_streaming_scenario.h"

using namespace moe;

namespace {

Scenario tiny() {
  return test::smallStreamingScenario(2, 2, "tuner");
}

std::filesystem::path tempFile(const std::string& name) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("moe_tuner_test_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::filesystem::remove(dir / name);
  return dir / name;
}

std::vector<std::string> lines(const std::filesystem::path& f) {
  std::ifstream in(f);
  std::vector<std::string> out;
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

}  // namespace

TEST(StreamingTuner, BudgetCountsEveryRunAndProgressNeverPassesItNorGoesBack) {
  TuneOptions o;
  o.budget = 11;
  o.threads = 2;
  std::vector<std::pair<int, int>> seen;  // one call at a time (the tuner's promise)
  o.onProgress = [&](int done, int total) { seen.emplace_back(done, total); };
  const TuneResult r = tuneStreaming(tiny(), o);
  EXPECT_EQ(r.runs, 11);
  EXPECT_EQ(r.runs, 2 + static_cast<int>(r.evaluated.size()));  // baseline, phased, candidates
  ASSERT_EQ(seen.size(), 11u);
  for (std::size_t i = 0; i < seen.size(); ++i) {
    EXPECT_EQ(seen[i].first, static_cast<int>(i) + 1);
    EXPECT_EQ(seen[i].second, 11);
  }
  EXPECT_GT(r.neighbourChecks, 0);  // the budget keeps room for them
  EXPECT_EQ(r.stoppedBy, "budget");
}

TEST(StreamingTuner, TimeLimitBoundsTheWholeSearchByTheInjectedClock) {
  // Each clock read moves the clock one second on: a run reads it when it starts and ends,
  // and progress is reported right after the end's read.
  std::atomic<int> reads{0};
  double lastRead = 0, lastRunEnd = 0;
  TuneOptions o;
  o.budget = 1000;
  o.threads = 1;
  o.timeLimitSeconds = 30;
  o.clock = [&] {
    lastRead = ++reads;
    return lastRead;
  };
  o.onProgress = [&](int, int) { lastRunEnd = lastRead; };
  const TuneResult r = tuneStreaming(tiny(), o);
  EXPECT_EQ(r.stoppedBy, "time limit");
  EXPECT_LT(r.runs, 30);
  EXPECT_GT(r.runs, 5);
  EXPECT_LE(lastRunEnd, 30);        // every run ended by the limit
  EXPECT_GT(lastRunEnd, 25);        // and the search used the time it had
  EXPECT_GT(r.neighbourChecks, 0);  // the search left them room
  ASSERT_TRUE(r.best.ok);
  EXPECT_LE(r.best.totalUs, r.baseline.totalUs);
}

TEST(StreamingTuner, TheObjectiveIsTheStageTime) {
  TuneOptions o;
  o.budget = 14;
  o.threads = 2;
  for (TuneObjective obj : {TuneObjective::Combine, TuneObjective::Dispatch}) {
    o.objective = obj;
    const TuneResult r = tuneStreaming(tiny(), o);
    ASSERT_TRUE(r.best.ok);
    double least = tuneFigure(r.baseline, obj);
    for (const TuneEval& e : r.evaluated)
      if (e.ok) least = std::min(least, tuneFigure(e, obj));
    EXPECT_EQ(tuneFigure(r.best, obj), least) << toString(obj);
    EXPECT_EQ(tuneFigure(r.best, obj),
              obj == TuneObjective::Combine ? r.best.combineUs : r.best.dispatchUs);
  }
}

TEST(StreamingTuner, KeepNumericsNeverChangesPartialDtypeNorLocalSums) {
  TuneOptions o;
  o.budget = 24;
  o.threads = 2;
  auto changesNumerics = [](const TuneResult& r) {
    for (const TuneEval& e : r.evaluated)
      if (e.knobs.partialDtype != PartialDtype::Fp32 || e.knobs.sumLocalExperts) return true;
    return false;
  };
  EXPECT_TRUE(changesNumerics(tuneStreaming(tiny(), o)));  // the search does try them
  o.keepNumerics = true;
  const TuneResult kept = tuneStreaming(tiny(), o);
  EXPECT_FALSE(changesNumerics(kept));
  EXPECT_EQ(kept.tuned.combine.partialDtype, PartialDtype::Fp32);
  EXPECT_FALSE(kept.tuned.combine.sumLocalExperts);
  for (const TuneBinding& b : kept.bindings) {
    if (b.knob == "combine.partial_dtype" || b.knob == "combine.sum_local_experts") {
      EXPECT_EQ(b.why, "kept as given (numerics kept)");
    }
  }
}

TEST(StreamingTuner, NumericsAgainstPhasedAreNamed) {
  TuneKnobs k;
  EXPECT_EQ(numericsVsPhased(k), "");
  k.partialDtype = PartialDtype::Bf16;
  k.sumLocalExperts = true;
  EXPECT_EQ(numericsVsPhased(k),
            "streaming with bf16 partials and local sums vs phased fp32: different numerics");
  k.partialDtype = PartialDtype::Fp32;
  EXPECT_EQ(numericsVsPhased(k),
            "streaming with fp32 partials and local sums vs phased fp32: different numerics");
}

TEST(StreamingTuner, StandInLeadersAreConfirmedAtFullShape) {
  Scenario s = tiny();
  s.model.tokensPerRank = 1024;
  TuneOptions o;
  o.budget = 16;
  o.threads = 2;
  const TuneResult r = tuneStreaming(s, o);
  EXPECT_EQ(r.standInTokens, 128);
  EXPECT_EQ(r.runs, 16);
  ASSERT_FALSE(r.evaluated.empty());
  for (const TuneEval& e : r.evaluated) {
    EXPECT_TRUE(e.standIn);
    EXPECT_EQ(e.tokensPerRank, 128);
  }
  ASSERT_FALSE(r.confirmed.empty());
  EXPECT_LE(r.confirmed.size(), 3u);
  std::set<std::string> tilings;  // the best of distinct ring tilings
  for (const TuneEval& c : r.confirmed) {
    EXPECT_FALSE(c.standIn);
    EXPECT_EQ(c.tokensPerRank, 1024);
    const TuneKnobs& k = c.knobs;
    EXPECT_TRUE(tilings
                    .insert(std::to_string(k.chunkBytes) + "/" + std::to_string(k.queueChunks) +
                            "/" + std::to_string(k.senderCores) + "/" +
                            std::to_string(k.forwarderCores) + "/" +
                            std::to_string(k.receiverCores))
                    .second);
  }
  // The answer is a full-shape figure: the scenario's own or a confirmed one.
  EXPECT_FALSE(r.best.standIn);
  EXPECT_EQ(r.best.tokensPerRank, 1024);
  EXPECT_LE(r.best.totalUs, r.baseline.totalUs);
  EXPECT_EQ(r.tuned.model.tokensPerRank, 1024);
  // Off: every candidate at the full shape.
  o.standIn = false;
  const TuneResult full = tuneStreaming(s, o);
  EXPECT_EQ(full.standInTokens, 0);
  EXPECT_TRUE(full.confirmed.empty());
  for (const TuneEval& e : full.evaluated) EXPECT_EQ(e.tokensPerRank, 1024);
}

TEST(StreamingTuner, ResumedHalfLogGivesTheUninterruptedResult) {
  const auto logFile = tempFile("half.jsonl");
  TuneOptions o;
  o.budget = 14;
  o.threads = 2;
  o.logPath = logFile.string();
  const TuneResult whole = tuneStreaming(tiny(), o);
  const std::vector<std::string> all = lines(logFile);
  ASSERT_EQ(all.size(), 15u);  // the header and every run
  // Killed halfway: half the lines, and the next one cut short.
  {
    std::ofstream cut(logFile, std::ios::trunc);
    for (std::size_t i = 0; i < all.size() / 2; ++i) cut << all[i] << "\n";
    cut << all[all.size() / 2].substr(0, 30);
  }
  o.resume = true;
  const TuneResult resumed = tuneStreaming(tiny(), o);
  EXPECT_EQ(resumed.fromLog, static_cast<int>(all.size() / 2) - 1);
  EXPECT_EQ(resumed.runs, whole.runs);
  EXPECT_EQ(scenarioToJson(resumed.tuned).dump(), scenarioToJson(whole.tuned).dump());
  EXPECT_EQ(resumed.best.totalUs, whole.best.totalUs);
  ASSERT_EQ(resumed.bindings.size(), whole.bindings.size());
  for (std::size_t i = 0; i < whole.bindings.size(); ++i)
    EXPECT_EQ(resumed.bindings[i].why, whole.bindings[i].why);
  // The log is whole again: every line a JSON object, every run once.
  const std::vector<std::string> after = lines(logFile);
  EXPECT_EQ(after.size(), all.size());
  for (const std::string& l : after) EXPECT_TRUE(nlohmann::json::accept(l)) << l;
}

TEST(StreamingTuner, LogOfAnotherScenarioOrObjectiveIsRefusedNamingFileAndLine) {
  const auto logFile = tempFile("other.jsonl");
  TuneOptions o;
  o.budget = 3;
  o.logPath = logFile.string();
  (void)tuneStreaming(tiny(), o);
  o.resume = true;
  o.objective = TuneObjective::Combine;
  try {
    (void)tuneStreaming(tiny(), o);
    FAIL() << "a log of another objective was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.path(), "--log");
    EXPECT_NE(e.rule().find(logFile.string() + " line 1"), std::string::npos) << e.rule();
  }
  // Without --resume an existing log is never appended to.
  o.resume = false;
  o.objective = TuneObjective::Layer;
  EXPECT_THROW((void)tuneStreaming(tiny(), o), InputError);
}

// The answer is never slower than `moe-sim tiling`'s proposal for the stage, measured here on
// its own: at the full shape (every candidate) and on a stand-in (the proposal runs beside
// the baseline), whatever the stand-in ranks, with a budget too small for much search.
TEST(StreamingTuner, TheAnswerIsNeverSlowerThanTheTilingProposal) {
  for (const int tokens : {64, 1024}) {
    Scenario s = tiny();
    s.model.tokensPerRank = tokens;
    s.payload = PayloadMode::None;
    const RingTilings proposed = proposeTiling(s, placePerRankOf(s));
    const auto gating = ResolvedScenario::resolve(s).gating();
    for (const TuneObjective obj : {TuneObjective::Combine, TuneObjective::Dispatch}) {
      const RingTiling& t = obj == TuneObjective::Combine ? proposed.combine : proposed.dispatch;
      TuneKnobs k = knobsOf(s, obj);
      k.chunkBytes = t.chunkBytes;
      k.queueChunks = t.queueChunks;
      k.senderCores = t.senderCores;
      k.forwarderCores = t.forwarderCores;
      k.receiverCores = t.receiverCores;
      ASSERT_FALSE(k == knobsOf(s, obj)) << "the proposal is the scenario's own tiling";
      const TuneEval alone = evaluateTuneRun(s, k, obj, Design::Streaming, gating);
      ASSERT_TRUE(alone.ok) << alone.error;
      TuneOptions o;
      o.objective = obj;
      o.budget = 10;
      o.threads = 2;
      const TuneResult r = tuneStreaming(s, o);
      EXPECT_EQ(r.standInTokens, tokens >= kStandInFromTokens ? tokens / 8 : 0);
      ASSERT_TRUE(r.proposal.has_value()) << toString(obj);
      EXPECT_EQ(r.proposal->knobs, k);
      EXPECT_FALSE(r.proposal->standIn);
      EXPECT_EQ(tuneFigure(*r.proposal, obj), tuneFigure(alone, obj));
      ASSERT_TRUE(r.best.ok);
      EXPECT_FALSE(r.best.standIn);
      EXPECT_LE(tuneFigure(r.best, obj), tuneFigure(alone, obj)) << toString(obj);
    }
  }
}
