#pragma once
// The consumer loop shared by every streaming role that drains several rings: take
// whatever whole records are available on any ring (up to a batch), hand them to
// `consume`, free them (advance the head), and when no ring has data sleep until any of
// their tails moves. It never blocks on one ring while another has data, which is what
// keeps a sender that feeds several consumers from deadlocking.

#include <algorithm>
#include <string>
#include <vector>

#include "core/protocol/ring_buffer.h"

namespace moe {

struct PolledRing {
  RingBuffer* ring;
  int source;                  // whose data arrives on it (operator-specific)
  std::int64_t remaining = 0;  // records still expected (from the layout counts)
  int channel = -1;            // the token channel it carries, or -1 for all (dispatch)
};

// What a consumer holds back (a forwarder's unposted batches) and must let go before it
// sleeps: pending() says whether there is any, flush() posts it. Flushing before every
// sleep is what makes batching deadlock-free: nothing is held while nothing can arrive.
struct NothingHeld {
  bool pending() const { return false; }
  Task flush() { co_return; }
};

// consume(ring, metas) -> Task, called with the batch's records already read into `rx`
// at record offsets 0, recordBytes, ...
template <typename Consume, typename Held = NothingHeld>
Task pollRings(AiCore& core, std::vector<PolledRing> rings, Buffer* rx, std::int64_t batch,
               std::int64_t recordBytes, Consume consume, Held* held = nullptr) {
  // Only rings that still expect records are kept, in their order: a pass visits the rings
  // in that order, so dropping the finished ones changes no event, and a receiver that
  // drains hundreds of rings stops re-reading those it is done with.
  auto dropFinished = [&] {
    std::erase_if(rings, [](const PolledRing& p) { return p.remaining <= 0; });
  };
  dropFinished();
  // Kept across batches and sleeps, so polling allocates nothing once they have grown.
  std::vector<RecordMeta> metas;
  std::vector<Word*> tails;
  std::vector<std::int64_t> seen;
  while (!rings.empty()) {
    co_await core.pollWords();  // one sweep of tail reads
    bool progressed = false;
    for (auto& p : rings) {
      const std::int64_t avail = (p.ring->tail() - p.ring->consumerCursor()) / recordBytes;
      const std::int64_t n = std::min<std::int64_t>({avail, batch, p.remaining});
      if (n <= 0) continue;
      metas.clear();
      OpRef last;
      for (std::int64_t i = 0; i < n; ++i) {
        metas.push_back(p.ring->takeRecord());
        last = p.ring->read(core, Region{rx, i * recordBytes, recordBytes}, recordBytes);
      }
      co_await last;
      co_await consume(*p.ring, metas);
      co_await p.ring->advanceHead(core);
      p.remaining -= n;
      progressed = true;
    }
    if (progressed) {
      dropFinished();
      continue;
    }
    if (held != nullptr && held->pending()) {
      // Nothing to read right now: post what is held, then look again (the tails may have
      // moved meanwhile, so they are read afresh before any sleep).
      co_await held->flush();
      continue;
    }
    tails.clear();
    seen.clear();
    for (auto& p : rings) {
      tails.push_back(p.ring->tailWord());
      seen.push_back(p.ring->tail());
    }
    // Described only when asked (a deadlock diagnosis, a snapshot): the rings live in this
    // frame, which stays alive while the core sleeps here.
    auto describe = [&rings] {
      std::string what;
      for (const auto& p : rings)
        what += (what.empty() ? "" : "; ") + p.ring->describe() + ", " +
                std::to_string(p.remaining) + " records still expected";
      return "waiting for data: " + what;
    };
    // A named awaiter, not a temporary: GCC 12 destroys non-trivial temporaries of a
    // co_await full-expression twice.
    auto anyTail = core.changeOfAny(tails, seen, Activity::WaitData, describe);
    co_await anyTail;
  }
}

}  // namespace moe
