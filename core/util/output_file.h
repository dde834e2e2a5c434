#pragma once
// Writing result files (trace, CSV) so that a failure is never silent and never leaves a
// truncated file: paths are checked before the run, the content goes to a temporary file
// beside the target, every write, the flush, the sync and the close are checked, and only
// then is the temporary renamed over the target. A failed write leaves the old file (or
// none) and throws InputError naming the option.

#include <functional>
#include <ostream>
#include <string>
#include <vector>

namespace moe {

struct OutputRequest {
  std::string option;  // "--trace", "--csv": the error path
  std::string path;
  bool given = false;  // the option was on the command line (even as an empty string)
};

// Refuses, before any work is done: an empty path, a target that exists and is not a
// regular file (/dev/full, a directory, a FIFO), a missing directory, and two outputs (or an
// output and one of `inputs`) that name the same file.
void checkOutputPaths(const std::vector<OutputRequest>& outputs,
                      const std::vector<std::string>& inputs = {});

// Whether a and b both exist and are one file (same device and inode): a hard link or a
// symlink to an input is still the input.
bool sameFile(const std::string& a, const std::string& b);

// Throws InputError(option, ...) when `output` is one of `inputs` (sameFile). Every command
// that writes a file calls it, through checkOutputPaths or directly.
void refuseOutputOverInput(const std::string& option, const std::string& output,
                           const std::vector<std::string>& inputs);

// Writes `path` atomically with `write`, as described above.
void writeFileAtomically(const std::string& path, const std::string& option,
                         const std::function<void(std::ostream&)>& write);

}  // namespace moe
