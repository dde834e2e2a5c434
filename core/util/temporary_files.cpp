#include "core/util/temporary_files.h"

#include <signal.h>
#include <unistd.h>

#include <array>
#include <atomic>

namespace moe {
namespace {

// A fixed table of C strings: the signal handler may neither allocate nor lock. Writers
// run a few files at once (a sweep's outputs, a run's trace and CSV), far below the size.
constexpr std::size_t kSlots = 64;
std::array<std::atomic<const char*>, kSlots> gLive{};

extern "C" void removeAndReraise(int sig) {
  for (auto& slot : gLive)
    if (const char* p = slot.load()) ::unlink(p);
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

}  // namespace

TemporaryFile::TemporaryFile(const std::string& path) : slot_(kSlots) {
  for (std::size_t i = 0; i < kSlots; ++i) {
    const char* expected = nullptr;
    if (gLive[i].compare_exchange_strong(expected, path.c_str())) {
      slot_ = i;
      return;
    }
  }
  // Table full: the file is still written and renamed, only not removed on a signal.
}

TemporaryFile::~TemporaryFile() {
  if (slot_ < kSlots) gLive[slot_].store(nullptr);
}

void removeTemporaryFilesOnSignal() {
  struct sigaction sa {};
  sa.sa_handler = removeAndReraise;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGINT, SIGTERM}) ::sigaction(sig, &sa, nullptr);
}

}  // namespace moe
