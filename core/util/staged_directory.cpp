#include "core/util/staged_directory.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "core/util/error.h"

namespace moe {
namespace {

namespace fs = std::filesystem;

// The target as a plain path with a file name ("out/" and "out/." name "out").
fs::path normalTarget(const std::string& target) {
  fs::path p = fs::absolute(target).lexically_normal();
  if (p.filename().empty()) p = p.parent_path();
  return p;
}

// A sibling name no other writer uses: this process's id and a per-process counter.
fs::path freshSibling(const fs::path& target, const char* kind) {
  static std::atomic<unsigned> counter{0};
  // Appended piece by piece: GCC 12 warns (-Wrestrict, a false positive) on
  // `"." + std::string&&` in optimized builds.
  std::string name = ".";
  name += target.filename().string();
  name += '.';
  name += kind;
  name += '.';
  name += std::to_string(::getpid());
  name += '.';
  name += std::to_string(counter++);
  return target.parent_path() / name;
}

}  // namespace

StagedDirectory::StagedDirectory(const std::string& target, const std::string& option)
    : option_(option) {
  const fs::path t = normalTarget(target);
  target_ = t.string();
  std::error_code ec;
  fs::create_directories(t.parent_path(), ec);
  require(!ec && fs::is_directory(t.parent_path()), option_,
          "cannot create directory '" + t.parent_path().string() + "'");
  const fs::path staging = freshSibling(t, "staging");
  require(fs::create_directory(staging, ec) && !ec, option_,
          "cannot create a directory in '" + t.parent_path().string() + "'");
  staging_ = staging.string();
}

StagedDirectory::~StagedDirectory() {
  if (committed_) return;
  std::error_code ec;
  fs::remove_all(staging_, ec);  // best effort: never throw from a destructor
}

void StagedDirectory::commit() {
  // A missing or empty target is simply replaced (rename(2) takes an empty directory's place).
  if (::rename(staging_.c_str(), target_.c_str()) == 0) {
    committed_ = true;
    return;
  }
  const int err = errno;
  require(err == ENOTEMPTY || err == EEXIST, option_,
          "cannot rename '" + staging_ + "' to '" + target_ + "': " + std::strerror(err));
  // One step where the filesystem can: afterwards the staging name holds the old contents.
  std::error_code ec;
  if (::renameat2(AT_FDCWD, staging_.c_str(), AT_FDCWD, target_.c_str(), RENAME_EXCHANGE) == 0) {
    committed_ = true;
    fs::remove_all(staging_, ec);
    return;
  }
  // Two steps: the old target aside, the new one in, then the old one removed. Should the
  // second step fail, the old target goes back.
  const fs::path aside = freshSibling(fs::path(target_), "replaced");
  require(::rename(target_.c_str(), aside.c_str()) == 0, option_,
          "cannot move '" + target_ + "' aside: " + std::strerror(errno));
  if (::rename(staging_.c_str(), target_.c_str()) != 0) {
    const int again = errno;
    ::rename(aside.c_str(), target_.c_str());
    throw InputError(
        option_, "cannot rename '" + staging_ + "' to '" + target_ + "': " + std::strerror(again));
  }
  committed_ = true;
  fs::remove_all(aside, ec);
}

}  // namespace moe
