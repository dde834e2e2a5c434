#include "core/util/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "core/util/error.h"
#include "core/util/temporary_files.h"

namespace moe {
namespace {

namespace fs = std::filesystem;

// The same file, however it is spelled: resolves symlinks and "..". For a file that does not
// exist yet the lexical absolute form is the best there is.
fs::path identity(const std::string& p) {
  std::error_code ec;
  fs::path c = fs::weakly_canonical(fs::absolute(p), ec);
  return ec ? fs::absolute(p).lexically_normal() : c;
}

// Flushes the file's data to the device, so a full disk shows up here and not later.
bool syncFile(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = ::fsync(fd) == 0;
  return ::close(fd) == 0 && ok;
}

}  // namespace

void checkOutputPaths(const std::vector<OutputRequest>& outputs,
                      const std::vector<std::string>& inputs) {
  std::vector<std::pair<fs::path, std::string>> seen;  // identity, what it is
  for (const auto& in : inputs)
    if (!in.empty()) seen.emplace_back(identity(in), "the input " + in);
  for (const auto& out : outputs) {
    if (!out.given) continue;
    require(!out.path.empty(), out.option, "names no file (an empty path)");
    std::error_code ec;
    const auto st = fs::status(out.path, ec);
    if (fs::exists(st))
      require(fs::is_regular_file(st), out.option,
              out.path + " exists and is not a regular file; name a file to create or replace");
    const fs::path dir = fs::absolute(out.path).parent_path();
    require(fs::is_directory(dir, ec), out.option,
            "the directory " + dir.string() + " does not exist");
    const fs::path id = identity(out.path);
    for (const auto& [other, what] : seen)
      require(other != id, out.option, out.path + " is also " + what);
    refuseOutputOverInput(out.option, out.path, inputs);
    seen.emplace_back(id, "the " + out.option + " output");
  }
}

bool sameFile(const std::string& a, const std::string& b) {
  struct stat sa {};
  struct stat sb {};
  return !a.empty() && !b.empty() && ::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0 &&
         sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

void refuseOutputOverInput(const std::string& option, const std::string& output,
                           const std::vector<std::string>& inputs) {
  for (const auto& in : inputs)
    require(!sameFile(output, in), option,
            output + " is where the input " + in +
                " is (same device and inode): writing there would destroy the input");
}

void writeFileAtomically(const std::string& path, const std::string& option,
                         const std::function<void(std::ostream&)>& write) {
  // Beside the target, so the rename stays within one file system and is atomic.
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  const TemporaryFile removedOnSignal(tmp);
  auto fail = [&](const std::string& why) {
    std::remove(tmp.c_str());
    throw InputError(option, "cannot write " + path + ": " + why + "; nothing was written");
  };
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) fail(std::strerror(errno));
    try {
      write(out);
    } catch (...) {
      out.close();
      std::remove(tmp.c_str());
      throw;
    }
    out.flush();
    if (!out) fail("write failed (disk full?)");
    out.close();
    if (!out) fail("close failed (disk full?)");
  }
  if (!syncFile(tmp)) fail(std::string("sync failed: ") + std::strerror(errno));
  if (std::rename(tmp.c_str(), path.c_str()) != 0) fail(std::strerror(errno));
}

}  // namespace moe
