#include "app/moe_sim/scenario_out.h"

#include <filesystem>
#include <ostream>

#include "core/scenario/scenario_json.h"
#include "core/util/output_file.h"

namespace moesim {

namespace {
// The loaded trace path is already resolved (against the input scenario's directory).
std::string tracePathFrom(const std::string& trace, const std::string& outFile) {
  namespace fs = std::filesystem;
  if (trace.empty()) return trace;
  const fs::path absTrace = fs::absolute(trace).lexically_normal();
  const fs::path outDir = fs::absolute(outFile).lexically_normal().parent_path();
  const fs::path rel = absTrace.lexically_relative(outDir);
  return rel.empty() ? absTrace.string() : rel.string();
}
}  // namespace

void writeScenarioFile(const moe::Scenario& sc, const std::string& path, const std::string& flag) {
  moe::Scenario out = sc;
  out.routing.traceFile = tracePathFrom(out.routing.traceFile, path);
  moe::writeFileAtomically(path, flag,
                           [&](std::ostream& o) { o << moe::scenarioToJson(out).dump(2) << "\n"; });
}

}  // namespace moesim
