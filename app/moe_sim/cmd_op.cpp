// `moe-sim op NAME --input CASE.json` (DESIGN.md §6): runs one operator's golden reference on
// explicit inputs and prints its outputs as JSON. Every failure is a moe::InputError, which
// main() turns into "error: PATH: RULE" and exit code 2. Inputs the real operator accepts
// but the pipeline could not use print "warning: PATH: RULE" on stderr; --strict refuses them.

#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/moe_sim/command_registry.h"
#include "core/op_io/op_json.h"
#include "core/util/bounded_file.h"
#include "core/util/error.h"
#include "core/util/json_strict.h"

namespace {

// A case file is hand-written or generated and small; the cap keeps a wrong path (a disk
// image, /dev/zero) from eating the machine.
constexpr std::uintmax_t kMaxCaseBytes = 256u << 20;

// Regular files under the cap, read with a bounded buffer; duplicate keys and overflowing
// numbers refused; errors name the file and position without echoing its bytes.
nlohmann::json readCase(const std::string& file) {
  const std::string text = moe::readBoundedFile(file, kMaxCaseBytes, "--input");
  try {
    return moe::parseJsonStrict(text, file);
  } catch (const moe::InputError& e) {
    throw moe::InputError("--input", "malformed JSON in " + std::string(e.what()));
  }
}

const moesim::RegisterCommand kRegisterOp([](CLI::App& app, int& exitCode) {
  CLI::App* op = app.add_subcommand(
      "op", "Run one operator's golden reference on explicit inputs; print its outputs as JSON");
  // The callback outlives this setup function, so the option targets live on the heap.
  auto name = std::make_shared<std::string>();
  auto input = std::make_shared<std::string>();
  auto strict = std::make_shared<bool>(false);
  op->add_option("NAME", *name, "operator: update-expert | layout | eplb | dispatch | combine")
      ->required();
  op->add_option("--input", *input, "case file (JSON object of the operator's inputs)")
      ->required()
      ->check(moesim::nonEmptyPath());
  op->add_flag("--strict", *strict,
               "Refuse inputs the real operator accepts but the pipeline could not use (each "
               "warning becomes an error, exit 2)");
  op->callback([name, input, strict, &exitCode] {
    std::vector<std::string> warnings;
    const moe::AllocationScope scope("the operator case (its JSON input and outputs)");
    const nlohmann::json out =
        moe::runOpJson(*name, readCase(*input), moe::OpOptions{*strict, &warnings});
    for (const auto& w : warnings) std::cerr << "warning: " << w << "\n";
    std::cout << out.dump(2) << "\n";
    exitCode = 0;
  });
});

}  // namespace
