// `moe-sim op NAME --input CASE.json` (SPEC §6): runs one operator's golden reference on
// explicit inputs and prints its outputs as JSON. Every failure is a moe::InputError, which
// main() turns into "error: PATH: RULE" and exit code 2.

#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

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
  op->add_option("NAME", *name, "operator: update-expert | layout | eplb")->required();
  op->add_option("--input", *input, "case file (JSON object of the operator's inputs)")->required();
  op->callback([name, input, &exitCode] {
    const nlohmann::json out = moe::runOpJson(*name, readCase(*input));
    std::cout << out.dump(2) << "\n";
    exitCode = 0;
  });
});

}  // namespace
