#pragma once
// A whole `moe-sim run`: one LayerRun per dispatch design on the same gating output, the
// verification against the golden chain, and the printable summary.

#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <vector>
#include "core/pipeline/expert_balance.h"

#include "core/pipeline/layer_run.h"

namespace moe {

struct RunReport {
  Scenario given;     // as loaded
  Scenario scenario;  // as run: a generated eplb table in place (withEplbTable)
  std::vector<std::unique_ptr<LayerRun>> runs;  // phased and/or streaming, in that order
  bool verified = false;
  std::vector<std::vector<VerificationCheck>> checks;  // per run
  std::vector<VerificationCheck> crossChecks;          // phased vs streaming
  std::vector<std::string> deadlocks;                  // per run: diagnosis, empty if none
  std::uint64_t digest = 0;
  ExpertLoad load;  // token slots per rank before and after MoeUpdateExpert

  bool ok() const;
};

RunReport runScenario(const Scenario& sc, bool verify, Fault fault = Fault::None);
// A stage's name without its design suffix ("dispatch-streaming" -> "dispatch"), so the
// two designs' stages line up side by side.
std::string stageLabel(const std::string& stageName);
void printReport(std::ostream& out, const RunReport& r);
void writeReportTrace(std::ostream& out, const RunReport& r);
void writeReportCsv(std::ostream& out, const RunReport& r);

}  // namespace moe
