#include "app/moe_sim/sweep_outputs.h"

#include <filesystem>
#include <iostream>

#include "core/studies/sweep_point.h"
#include "core/studies/sweep_resume.h"
#include "core/util/bounded_file.h"
#include "core/util/error.h"
#include "core/util/output_file.h"

namespace moe {

namespace {
// An output being resumed is read whole; rows are ~300 bytes, so this is ~1M rows.
constexpr std::uintmax_t kMaxResumeBytes = std::uintmax_t{512} << 20;

// The files a sweep reads, which no output may replace: the sweep file, its base scenario
// when "base" names a file, the base's routing trace and any routing trace an axis names.
std::vector<std::string> sweepInputs(const SweepSpec& spec, const std::string& sweepFile) {
  std::vector<std::string> inputs{sweepFile, spec.base.routing.traceFile, spec.basePath};
  for (std::size_t a = 0; a < spec.axes.size(); ++a) {
    if (spec.axes[a].field != "routing.trace_file") continue;
    for (std::size_t v = 0; v < spec.axes[a].values.size(); ++v) {
      // The path as the point reads it (relative to the sweep file's directory).
      std::vector<nlohmann::json> values(spec.axes.size(), nlohmann::json());
      for (std::size_t b = 0; b < spec.axes.size(); ++b) values[b] = spec.axes[b].values[0];
      values[a] = spec.axes[a].values[v];
      const nlohmann::json j = sweepPointJson(spec, values);
      if (j["routing"]["trace_file"].is_string())
        inputs.push_back(j["routing"]["trace_file"].get<std::string>());
    }
  }
  return inputs;
}

// At most this many damaged lines are listed per output; the rest are counted.
constexpr std::size_t kMaxNotes = 20;

}  // namespace

SweepOutputs::SweepOutputs(const SweepSpec& spec, const std::string& sweepFile,
                           const std::string& csvPath, bool csvGiven, const std::string& jsonlPath,
                           bool jsonlGiven, bool resume)
    : table_(spec) {
  checkOutputPaths({{"--csv", csvPath, csvGiven}, {"--jsonl", jsonlPath, jsonlGiven}},
                   sweepInputs(spec, sweepFile));
  require(!resume || csvGiven || jsonlGiven, "--resume",
          "needs --csv or --jsonl (the file whose finished points are skipped)");
  bool first = true;
  for (auto [option, path, given, csv] :
       {std::tuple{"--csv", csvPath, csvGiven, true}, {"--jsonl", jsonlPath, jsonlGiven, false}}) {
    if (!given) continue;
    auto o = std::make_unique<Output>();
    o->option = option;
    o->path = path;
    o->csv = csv;
    if (resume && std::filesystem::exists(path)) {
      const std::string old = readBoundedFile(path, kMaxResumeBytes, option);
      SweepResume kept = csv ? readSweepCsvForResume(table_, old, option)
                             : readSweepJsonlForResume(table_, old, option);
      for (std::size_t n = 0; n < kept.notes.size() && n < kMaxNotes; ++n)
        std::cerr << option << ": " << kept.notes[n] << "\n";
      if (kept.notes.size() > kMaxNotes)
        std::cerr << option << ": " << kept.notes.size() - kMaxNotes
                  << " more damaged line(s); their points are run again\n";
      o->lines = std::move(kept.lines);
    }
    std::set<std::size_t> have;
    for (const auto& [point, lines] : o->lines) have.insert(point);
    if (first) {
      done_ = have;
    } else {
      std::set<std::size_t> both;
      for (std::size_t p : done_)
        if (have.count(p)) both.insert(p);
      done_ = both;
    }
    first = false;
    outputs_.push_back(std::move(o));
  }
  for (auto& o : outputs_) {
    // A point only one output finished is run again: drop its lines there.
    for (auto it = o->lines.begin(); it != o->lines.end();)
      it = done_.count(it->first) ? std::next(it) : o->lines.erase(it);
    writeFileAtomically(o->path, o->option, [&](std::ostream& out) { out << text(*o); });
    o->append.open(o->path, std::ios::app | std::ios::binary);
    require(o->append.good(), o->option, "cannot open " + o->path + " for appending");
  }
}

std::string SweepOutputs::text(const Output& o) const {
  std::string t = o.csv ? table_.csvHeader() : std::string();
  for (const auto& [point, lines] : o.lines)
    for (const std::string& l : lines) t += l;
  return t;
}

void SweepOutputs::add(std::size_t point, const std::vector<SweepRow>& rows) {
  if (outputs_.empty()) {
    for (const SweepRow& r : rows) stdoutLines_[point].push_back(table_.csvLine(r));
    return;
  }
  for (auto& o : outputs_) {
    std::vector<std::string>& lines = o->lines[point];
    lines.clear();
    for (const SweepRow& r : rows) lines.push_back(o->csv ? table_.csvLine(r) : table_.jsonLine(r));
    for (const std::string& l : lines) o->append << l;
    o->append.flush();
    require(o->append.good(), o->option, "writing " + o->path + " failed");
  }
}

void SweepOutputs::finish() {
  if (outputs_.empty()) {
    std::cout << table_.csvHeader();
    for (const auto& [point, lines] : stdoutLines_)
      for (const std::string& l : lines) std::cout << l;
    std::cout.flush();
    return;
  }
  for (auto& o : outputs_) {
    o->append.close();
    writeFileAtomically(o->path, o->option, [&](std::ostream& out) { out << text(*o); });
  }
}

}  // namespace moe
