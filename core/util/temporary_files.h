#pragma once
// Temporary files ("X.tmp.PID", written beside a target and renamed over it) must not
// outlive an interrupted process. While one is being written it is registered here; a
// process that installs the handler removes every registered file on SIGINT or SIGTERM,
// then dies of the signal as it would have.

#include <cstddef>
#include <string>

namespace moe {

// Registers `path` for the scope's lifetime. The string must outlive the scope.
class TemporaryFile {
 public:
  explicit TemporaryFile(const std::string& path);
  ~TemporaryFile();
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;

 private:
  std::size_t slot_;
};

// Installs the SIGINT/SIGTERM handler (front ends call it once at start-up).
void removeTemporaryFilesOnSignal();

}  // namespace moe
