#pragma once
// The CLI tests' small scenario: the default one shrunk to two servers of four cards, 16
// tokens per rank, H 256, top-4 of 16 experts and 4 KiB ring chunks, so a run takes well
// under a second. Each test edits the JSON it gets.

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

namespace moe::clitest {

inline nlohmann::json smallScenarioJson() {
  std::ifstream in(std::string(MOE_SOURCE_DIR) + "/resources/scenarios/default.json");
  nlohmann::json j = nlohmann::json::parse(in);
  j["cluster"]["servers"] = 2;
  j["cluster"]["cards_per_server"] = 4;
  j["hardware"]["overrides"]["cards_per_server"] = 4;
  j["model"]["tokens_per_rank"] = 16;
  j["model"]["hidden"] = 256;
  j["model"]["experts"] = 16;
  j["model"]["topk"] = 4;
  j["rings"]["chunk_bytes"] = 4096;
  return j;
}

}  // namespace moe::clitest
