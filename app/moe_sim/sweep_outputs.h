#pragma once
// Where a sweep's rows go: the --csv and --jsonl files (or, with neither, the CSV on stdout
// at the end). Rows are appended and flushed as points finish, so a stopped sweep leaves
// every finished point on disk for --resume; at the end each file is rewritten in point
// order (atomically), so the bytes never depend on -j, on MPI ranks or on what was resumed.

#include <cstddef>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/studies/sweep_table.h"

namespace moe {

class SweepOutputs {
 public:
  // Checks the paths (InputError naming the option); with `resume`, keeps the finished
  // points of existing files (a point counts as done when every output has all its rows
  // intact, sweep_resume.h) and says on stderr which damaged lines make a point run again.
  // `spec` must outlive this.
  SweepOutputs(const SweepSpec& spec, const std::string& sweepFile, const std::string& csvPath,
               bool csvGiven, const std::string& jsonlPath, bool jsonlGiven, bool resume);

  // Points already in the outputs (--resume): the sweep skips them.
  const std::set<std::size_t>& donePoints() const { return done_; }
  // Appends one point's rows (one per design) to every output.
  void add(std::size_t point, const std::vector<SweepRow>& rows);
  // Rewrites every output in point order; with no output file, prints the CSV to stdout.
  void finish();

 private:
  struct Output {
    std::string option, path;
    bool csv = true;
    std::map<std::size_t, std::vector<std::string>> lines;
    std::ofstream append;
  };
  std::string text(const Output& o) const;

  SweepTable table_;
  std::vector<std::unique_ptr<Output>> outputs_;
  std::map<std::size_t, std::vector<std::string>> stdoutLines_;
  std::set<std::size_t> done_;
};

}  // namespace moe
