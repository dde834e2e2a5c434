#include "core/studies/tune_log.h"

#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

#include "core/scenario/scenario_json.h"
#include "core/util/error.h"
#include "core/util/format_digest.h"
#include "core/util/hash.h"

namespace moe {

namespace {

constexpr int kLogFormat = 1;

nlohmann::json evalToJson(const std::string& key, const char* design, const TuneEval& e) {
  nlohmann::json knobs = nlohmann::json::object();
  for (const TuneKnob& kn : tuneKnobs()) knobs[kn.path] = kn.get(e.knobs);
  nlohmann::json stages = nlohmann::json::array();
  for (const auto& [name, us] : e.stageUs) stages.push_back({{"name", name}, {"us", us}});
  return {{"key", key},
          {"design", design},
          {"tokens_per_rank", e.tokensPerRank},
          {"stand_in", e.standIn},
          {"knobs", knobs},
          {"status", e.ok ? "ok" : "failed"},
          {"error", e.error},
          {"total_us", e.totalUs},
          {"dispatch_us", e.dispatchUs},
          {"combine_us", e.combineUs},
          {"stages", stages},
          {"combine_rdma_posts", e.combinePosts},
          {"combine_rdma_bytes", e.combineRdmaBytes}};
}

TuneEval evalFromJson(const nlohmann::json& j) {
  TuneEval e;
  for (const TuneKnob& kn : tuneKnobs())
    kn.set(e.knobs, j.at("knobs").at(kn.path).get<std::int64_t>());
  e.tokensPerRank = j.at("tokens_per_rank").get<int>();
  e.standIn = j.at("stand_in").get<bool>();
  e.ok = j.at("status").get<std::string>() == "ok";
  e.error = j.at("error").get<std::string>();
  e.totalUs = j.at("total_us").get<double>();
  e.dispatchUs = j.at("dispatch_us").get<double>();
  e.combineUs = j.at("combine_us").get<double>();
  for (const auto& s : j.at("stages"))
    e.stageUs.emplace_back(s.at("name").get<std::string>(), s.at("us").get<double>());
  e.combinePosts = j.at("combine_rdma_posts").get<std::int64_t>();
  e.combineRdmaBytes = j.at("combine_rdma_bytes").get<double>();
  e.fromLog = true;
  return e;
}

}  // namespace

std::string tuneRunKey(const char* design, int tokensPerRank, const TuneKnobs& k) {
  return std::string(design) + "@" + std::to_string(tokensPerRank) + ":" + tuneKnobKey(k);
}

std::string tuneLogHash(const Scenario& sc, TuneObjective objective) {
  Fnv1a h;
  h.text(scenarioToJson(sc).dump());
  h.text("\n");
  h.text(toString(objective));
  return formatDigest(h.digest());
}

TuneLog::TuneLog(const std::string& path, const std::string& hash, const std::string& what,
                 bool resume)
    : path_(path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const bool exists = fs::exists(path, ec);
  const auto size = exists ? fs::file_size(path, ec) : 0;
  bool writeHeader = !exists || size == 0;
  if (!writeHeader && !resume)
    throw InputError("--log", path +
                                  " already holds a tune log: pass --resume to continue it, "
                                  "or name another file");
  if (!writeHeader) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream buf;
    buf << in.rdbuf();
    const std::string text = buf.str();
    std::size_t pos = 0, good = 0;
    int lineNo = 0;
    while (pos < text.size()) {
      const std::size_t nl = text.find('\n', pos);
      ++lineNo;
      if (nl == std::string::npos) break;  // cut short: dropped below
      const std::string line = text.substr(pos, nl - pos);
      const std::string where = path + " line " + std::to_string(lineNo);
      nlohmann::json j;
      try {
        j = nlohmann::json::parse(line);
      } catch (const nlohmann::json::exception&) {
        throw InputError("--log", where + ": not JSON; a tune log holds one JSON object a line");
      }
      if (lineNo == 1) {
        if (!j.is_object() || !j.contains("tune_log") || !j.contains("hash"))
          throw InputError("--log", where + ": not a tune log header");
        if (j.at("hash") != hash)
          throw InputError("--log", where +
                                        ": written by a tune of another scenario or objective "
                                        "(hash " +
                                        j.at("hash").dump() + ", this tune's \"" + hash +
                                        "\"); remove it or name another file");
      } else {
        try {
          runs_.emplace(j.at("key").get<std::string>(), evalFromJson(j));
        } catch (const nlohmann::json::exception& e) {
          throw InputError("--log", where + ": not a tune run record (" + e.what() + ")");
        }
      }
      pos = nl + 1;
      good = pos;
    }
    if (good < text.size()) fs::resize_file(path, good);
    writeHeader = good == 0;
  }
  out_.open(path, std::ios::binary | std::ios::app);
  if (!out_) throw InputError("--log", "cannot open " + path + " for appending");
  if (writeHeader) {
    const nlohmann::json header = {{"tune_log", kLogFormat}, {"hash", hash}, {"of", what}};
    out_ << header.dump() << '\n' << std::flush;
  }
}

const TuneEval* TuneLog::find(const std::string& key) const {
  const auto it = runs_.find(key);
  return it == runs_.end() ? nullptr : &it->second;
}

void TuneLog::append(const std::string& key, const char* design, const TuneEval& e) {
  const std::string line = evalToJson(key, design, e).dump() + "\n";
  std::lock_guard lock(mutex_);
  out_ << line << std::flush;
  if (!out_) throw InputError("--log", "cannot write to " + path_);
}

}  // namespace moe
