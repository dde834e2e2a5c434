#include "app/moe_sim/out_of_memory.h"

#include <atomic>
#include <cstdlib>
#include <new>

namespace moesim {
namespace {

std::atomic<void*> gReserve{nullptr};

// Called by operator new when malloc fails. It does not retry the allocation (the reserve
// is for the unwinding, not for the request that failed): it frees the block, uninstalls
// itself, and throws. A second failure then throws from operator new as usual.
void giveBackReserve() {
  std::set_new_handler(nullptr);
  std::free(gReserve.exchange(nullptr));
  throw std::bad_alloc();
}

}  // namespace

void reserveMemoryForUnwinding(std::size_t bytes) {
  void* block = std::malloc(bytes);
  if (block == nullptr) return;  // nothing to give back; main() still reports bad_alloc
  std::free(gReserve.exchange(block));
  std::set_new_handler(giveBackReserve);
}

}  // namespace moesim
