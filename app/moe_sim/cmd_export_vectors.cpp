// `moe-sim export-vectors [SCENARIO.json] --out DIR [--counts counts|prefix-sums]
//  [--expand-idx rows|slots] [--force]` (DESIGN.md §7): writes every operator's inputs and
// golden outputs, per rank, as .npy files named after the real operator's arguments, plus
// manifest.json; DIR is replaced whole once the export is complete. Without a scenario it
// exports the built-in vectors scenario (defaultVectorScenario), made to catch kernel bugs.
// The encodings that differ between CANN versions are chosen by the two flags and named in
// the manifest (see core/studies/vector_export.h).

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>

#include "app/moe_sim/command_registry.h"
#include "core/scenario/scenario_json.h"
#include "core/studies/vector_export.h"
#include "core/util/format_digest.h"
#include "core/util/output_file.h"

namespace {

struct ExportOptions {
  std::string scenarioFile;
  std::string out;
  std::string counts = "counts";
  std::string expandIdx = "rows";
  bool force = false;
};

const moesim::RegisterCommand kExportVectors([](CLI::App& app, int& exitCode) {
  auto opt = std::make_shared<ExportOptions>();
  auto* sub = app.add_subcommand(
      "export-vectors",
      "Write per-operator, per-rank .npy inputs and golden outputs plus manifest.json");
  sub->add_option("scenario", opt->scenarioFile,
                  "Scenario JSON file (default: the built-in vectors scenario, "
                  "resources/scenarios/vectors.json, not the run's default)")
      ->check(moesim::nonEmptyPath());
  sub->add_option("--out", opt->out,
                  "Output directory, replaced whole once the export is complete (created if "
                  "missing; if not empty, it must hold an earlier export, or pass --force)")
      ->required()
      ->check(moesim::nonEmptyPath());
  sub->add_option("--counts", opt->counts,
                  "Encoding of expert_token_nums / ep_recv_counts: counts or prefix-sums")
      ->check(CLI::IsMember({"counts", "prefix-sums"}));
  sub->add_option("--expand-idx", opt->expandIdx,
                  "Expand-index layout: rows ([A,3] on the receiver) or slots ([BS,K] on the "
                  "sender)")
      ->check(CLI::IsMember({"rows", "slots"}));
  sub->add_flag("--force", opt->force,
                "Replace --out even when it is not empty and holds no earlier export");
  sub->callback([opt, &exitCode] {
    // Without a file, the scenario made for vectors (vector_export.h), not run's default.
    const moe::Scenario sc = opt->scenarioFile.empty() ? moe::defaultVectorScenario()
                                                       : moe::loadScenarioFile(opt->scenarioFile);
    // The export replaces what is in --out: an input there would be overwritten or stranded.
    for (const std::string& in : {opt->scenarioFile, sc.routing.traceFile})
      if (!in.empty())
        moe::refuseOutputOverInput("--out", opt->out,
                                   {std::filesystem::absolute(in).parent_path().string()});
    moe::VectorExportOptions o;
    o.counts =
        opt->counts == "prefix-sums" ? moe::CountEncoding::PrefixSums : moe::CountEncoding::Counts;
    o.expandIdx =
        opt->expandIdx == "slots" ? moe::ExpandIdxLayout::Slots : moe::ExpandIdxLayout::Rows;
    o.force = opt->force;
    const moe::VectorExportResult r = moe::exportVectors(sc, opt->out, o);
    std::cout << "wrote " << r.files.size() << " .npy files and " << r.manifestPath << "\n"
              << "digest: " << moe::formatDigest(r.digest) << "\n"
              << "vectors digest: " << moe::formatDigest(r.vectorsDigest) << "\n";
    exitCode = 0;
  });
});

}  // namespace
