#pragma once
// The ring buffer of seeds 000/004 and DESIGN.md §3.5(b), shared by dispatch and combine.
//
// Layout, in the consumer's GM: a control block with `head` and `tail` as absolute int64
// byte offsets, each on its own 128-B line, then a data area of queueChunks x chunkBytes.
// One producer core and one consumer core per ring:
//   producer: waitSpace (lazy head cache) -> write (split at wrap) -> fence -> publishTail
//   consumer: waitData -> read (split at wrap) -> ... -> advanceHead
// Every record (one row) carries a small header. Headers travel in a side table keyed by
// absolute offset, so payload "none" runs the very same protocol; their bytes are counted
// in the ring space and on the wire.
//
// The ring checks its own invariants as the run goes (recorded as violations, which fail
// verification): 0 <= tail - head <= capacity; no read past the published tail; no write
// over unconsumed bytes; no tail published before its data has landed; records read in
// the order written, each once.

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/engine/task.h"
#include "core/machine/machine.h"
#include "core/protocol/record_queue.h"

namespace moe {

constexpr int kMaxTopk = 16;
constexpr std::int64_t kControlLineBytes = 128;

// One row's header. Fields are generic so every operator can reuse the ring.
struct RecordMeta {
  std::int32_t srcRank = -1;
  std::int32_t token = -1;
  std::int32_t dstRank = -1;
  std::int32_t contributions = 0;
  std::uint64_t cardMask = 0;  // e.g. destination cards of a forwarded token
  std::int32_t k = 0;
  std::array<std::int32_t, kMaxTopk> ids{};
  std::array<float, kMaxTopk> weights{};
};

enum class RingKind : std::uint8_t { Ipc, Rdma };

struct RingStats {
  std::int64_t bytesWritten = 0;
  std::int64_t recordsWritten = 0;
  std::int64_t recordsRead = 0;
  std::int64_t peakOccupancy = 0;
  std::int64_t wraps = 0;
  std::int64_t headRereads = 0;  // remote head reads (lazy cache misses)
  std::int64_t spaceWaits = 0;   // times the producer had to suspend for space
  std::int64_t dataWaits = 0;
};

// A ring is a LabelSource: it names its data area and its head and tail words on demand
// from its own name, which is itself made on demand when the operator gives a Label with
// a source (a run of 256 ranks holds 155,392 rings; see label.h).
class RingBuffer final : public LabelSource {
 public:
  RingBuffer(Machine& m, int id, Label name, RingKind kind, int consumerCard, int producerCard,
             std::int64_t chunkBytes, int queueChunks, bool activation);
  RingBuffer(const RingBuffer&) = delete;
  RingBuffer& operator=(const RingBuffer&) = delete;

  int id() const { return id_; }
  std::string name() const { return name_.str(); }
  RingKind kind() const { return kind_; }
  int consumerCard() const { return consumerCard_; }
  int producerCard() const { return producerCard_; }
  std::int64_t capacity() const { return capacity_; }
  std::int64_t chunkBytes() const { return chunkBytes_; }
  std::int64_t head() const { return head_.value; }  // published words
  std::int64_t tail() const { return tail_.value; }
  Word* tailWord() { return &tail_; }
  std::int64_t producerTail() const { return localTail_; }  // written, maybe unpublished
  std::int64_t cachedHead() const { return headCache_; }
  std::int64_t consumerCursor() const { return readCursor_; }
  const RingStats& stats() const { return stats_; }
  const std::vector<std::string>& violations() const;
  // Records written and not yet taken, oldest first (offset in the ring's byte stream).
  using Records = RecordQueue<RecordMeta>;
  const Records& records() const { return records_; }
  int producerCore = -1;  // for observation: set by the operator that owns the roles
  int consumerCore = -1;

  // --- producer side ---
  Task waitSpace(AiCore& c, std::int64_t bytes);
  // Copies `n` bytes from the producer's UB (MTE3, over HCCS) to the ring, split at the
  // wrap; `metas` are the headers of the records in those bytes, each `recordBytes` long.
  OpRef writeFromUb(AiCore& c, Region ubSrc, const std::vector<RecordMeta>& metas,
                    std::int64_t recordBytes);
  // Same, from a GM staging area by RDMA (another server's ring).
  OpRef writeByRdma(AiCore& c, Region gmSrc, const std::vector<RecordMeta>& metas,
                    std::int64_t recordBytes);
  // Publishes everything written so far. Over HCCS the caller fences MTE3 first; over RDMA
  // the tail write is ordered behind `lastData` on the queue pair.
  OpRef publishTail(AiCore& c, const OpRef& lastData = {});

  // --- consumer side ---
  Task waitData(AiCore& c, std::int64_t bytes);
  // Copies the next `n` bytes (MTE2) into UB; split at the wrap.
  OpRef read(AiCore& c, Region ubDst, std::int64_t n);
  // Skips over the next `n` bytes without copying (payload "none").
  void skip(std::int64_t n);
  // The header of the next unread record; advances past it.
  RecordMeta takeRecord();
  // Frees everything read so far for the producer.
  OpRef advanceHead(AiCore& c);

  // Fault injection: the publish that would make the tail reach `tail` is lost.
  void dropPublishOfTail(std::int64_t tail) { dropTail_ = tail; }

  // The data area's bytes, for releasing them once the ring's stage is over.
  Buffer* dataBuffer() { return data_; }

  // Words in a run's inspector: "IPC ring card3<-card5: head 81920, tail 196608, ...".
  std::string describe() const;

  // The full names of its parts: "card3.<ring name>.data", ".head", ".tail".
  std::string label(std::int64_t part) const override;

  // "<name>: 3 records written, 2 read (exactly-once delivery broken)", or empty when every
  // record written was read and the ring is empty.
  std::string deliveryError() const;

 private:
  enum Part : std::int64_t { kData, kHead, kTail };
  void violation(const std::string& what);
  template <typename CopyFn>
  OpRef writeSplit(std::int64_t n, const std::vector<RecordMeta>& metas, std::int64_t recordBytes,
                   CopyFn copy);
  void sample();

  Machine& m_;
  Label name_;
  Buffer* data_;
  std::int64_t chunkBytes_, capacity_;
  int id_;
  int consumerCard_, producerCard_;
  RingKind kind_;
  // The control block's head and tail (its 256 B are counted against the card's GM; no copy
  // addresses them, so they have no buffer of their own).
  Word head_;
  Word tail_;
  // producer registers
  std::int64_t localTail_ = 0;
  std::int64_t headCache_ = 0;
  std::int64_t landedEnd_ = 0;  // data that has landed, contiguous from 0
  // Landings that arrived ahead of an earlier one, made on the first such landing and
  // dropped once they are contiguous again (rare: most land in order and never get here).
  using LandedRanges = std::vector<std::pair<std::int64_t, std::int64_t>>;
  std::unique_ptr<LandedRanges> landedPending_;
  // consumer registers
  std::int64_t tailCache_ = 0;
  std::int64_t readCursor_ = 0;
  // Pooled nodes, one per record: most rings hold none or a few at any one time.
  Records records_;
  RingStats stats_;
  std::unique_ptr<std::vector<std::string>> violations_;  // made on the first one
  std::int64_t dropTail_ = -1;
};

}  // namespace moe
