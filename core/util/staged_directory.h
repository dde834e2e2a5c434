#pragma once
// A directory written whole or not at all: the contents go into a fresh sibling directory
// (same parent, so the final rename stays on one filesystem), which then takes the target's
// place in one step. An interrupted or failed writer leaves the target as it was, two
// writers into one target leave one writer's complete output, and nothing of an earlier,
// larger output survives beside the new one.

#include <string>

namespace moe {

class StagedDirectory {
 public:
  // Creates the staging directory beside `target` (".NAME.staging.PID.N"). `option` names
  // the command-line option in errors ("--out").
  StagedDirectory(const std::string& target, const std::string& option);
  // Removes the staging directory unless commit() succeeded.
  ~StagedDirectory();
  StagedDirectory(const StagedDirectory&) = delete;
  StagedDirectory& operator=(const StagedDirectory&) = delete;

  // Where to write the contents.
  const std::string& path() const { return staging_; }
  // Puts the staged contents in the target's place: exchanged with an existing target
  // atomically where the filesystem can (renameat2 RENAME_EXCHANGE), else the old target is
  // moved aside first. The old contents are removed only once the new ones are in place.
  // Throws InputError(option, ...) when the target cannot be replaced.
  void commit();

 private:
  std::string target_, option_, staging_;
  bool committed_ = false;
};

}  // namespace moe
