#include "core/protocol/ring_buffer.h"

#include <algorithm>
#include <stdexcept>

namespace moe {

RingBuffer::RingBuffer(Machine& m, int id, Label name, RingKind kind, int consumerCard,
                       int producerCard, std::int64_t chunkBytes, int queueChunks, bool activation)
    : m_(m),
      name_(std::move(name)),
      data_(nullptr),
      chunkBytes_(chunkBytes),
      capacity_(chunkBytes * queueChunks),
      id_(id),
      consumerCard_(consumerCard),
      producerCard_(producerCard),
      kind_(kind),
      head_{Label(*this, kHead), consumerCard},
      tail_{Label(*this, kTail), consumerCard} {
  data_ = m.allocRingData(
      consumerCard, chunkBytes, queueChunks, Label(*this, kData),
      [this] { return this->name() + ".data"; }, activation);
  // Control block: head and tail each on their own 128-B line (no false sharing).
  m.chargeGm(consumerCard, 2 * kControlLineBytes, [this] { return this->name() + ".ctrl"; });
  // One consumer writes the head and one producer the tail: the early deadlock watch may
  // judge waiters on them (Word::soleWriter).
  head_.soleWriter = true;
  tail_.soleWriter = true;
}

std::string RingBuffer::label(std::int64_t part) const {
  static constexpr const char* kSuffix[] = {".data", ".head", ".tail"};
  return "card" + std::to_string(consumerCard_) + "." + name() + kSuffix[part];
}

std::string RingBuffer::deliveryError() const {
  if (stats_.recordsRead == stats_.recordsWritten && records_.empty() && head_.value == tail_.value)
    return {};
  return name() + ": " + std::to_string(stats_.recordsWritten) + " records written, " +
         std::to_string(stats_.recordsRead) + " read (exactly-once delivery broken)";
}

const std::vector<std::string>& RingBuffer::violations() const {
  static const std::vector<std::string> kNone;
  return violations_ ? *violations_ : kNone;
}

void RingBuffer::violation(const std::string& what) {
  if (!violations_) violations_ = std::make_unique<std::vector<std::string>>();
  violations_->push_back(name() + ": " + what + " (at " + std::to_string(m_.sim().now()) + " ps)");
}

void RingBuffer::sample() {
  m_.observer().ringPointers(id_, m_.sim().now(), head_.value, tail_.value);
}

Task RingBuffer::waitSpace(AiCore& c, std::int64_t bytes) {
  if (bytes > capacity_)
    throw std::logic_error(name() + ": a write of " + std::to_string(bytes) + " B can never fit");
  // Fast path: the cached head says there is room, so no GM access at all.
  if (capacity_ - (localTail_ - headCache_) >= bytes) co_return;
  for (;;) {
    ++stats_.headRereads;
    headCache_ = co_await c.readWord(head_);
    if (capacity_ - (localTail_ - headCache_) >= bytes) co_return;
    ++stats_.spaceWaits;
    // Named, not a temporary: GCC 12 may destroy co_await temporaries twice.
    auto headMoved = c.changeOf(head_, headCache_, Activity::WaitSpace, [this, bytes] {
      return "waiting for " + std::to_string(bytes) + " B of space in " + describe();
    });
    co_await headMoved;
  }
}

template <typename CopyFn>
OpRef RingBuffer::writeSplit(std::int64_t n, const std::vector<RecordMeta>& metas,
                             std::int64_t recordBytes, CopyFn copy) {
  if (n <= 0 || n > capacity_)
    throw std::logic_error(name() + ": bad write size " + std::to_string(n));
  const std::int64_t begin = localTail_, end = localTail_ + n;
  if (end - head_.value > capacity_)
    violation("write of [" + std::to_string(begin) + ", " + std::to_string(end) +
              ") would overwrite unconsumed bytes (head " + std::to_string(head_.value) + ")");
  const std::int64_t pos = begin % capacity_;
  const std::int64_t first = std::min(n, capacity_ - pos);
  auto onLanded = [this](std::int64_t b, std::int64_t e) {
    return [this, b, e] {
      if (data_->pages) data_->pages->landed(b, e);
      if (e - head_.value > capacity_)
        violation("data [" + std::to_string(b) + ", " + std::to_string(e) +
                  ") landed over unconsumed bytes (head " + std::to_string(head_.value) + ")");
      if (!landedPending_ && b == landedEnd_) {  // in order, as nearly all are
        landedEnd_ = e;
        return;
      }
      if (!landedPending_) landedPending_ = std::make_unique<LandedRanges>();
      LandedRanges& pending = *landedPending_;
      pending.emplace_back(b, e);
      std::sort(pending.begin(), pending.end());
      while (!pending.empty() && pending.front().first == landedEnd_) {
        landedEnd_ = pending.front().second;
        pending.erase(pending.begin());
      }
      if (pending.empty()) landedPending_.reset();
    };
  };
  OpRef last = copy(Region{data_, pos, first}, 0, first);
  last.op()->onLand.push_back(onLanded(begin, begin + first));
  if (first < n) {  // wrap-around: the rest goes to the start of the data area
    ++stats_.wraps;
    last = copy(Region{data_, 0, n - first}, first, n - first);
    last.op()->onLand.push_back(onLanded(begin + first, end));
  }
  for (std::size_t i = 0; i < metas.size(); ++i)
    records_.push_back(begin + static_cast<std::int64_t>(i) * recordBytes, metas[i]);
  localTail_ = end;
  stats_.bytesWritten += n;
  stats_.recordsWritten += static_cast<std::int64_t>(metas.size());
  stats_.peakOccupancy = std::max(stats_.peakOccupancy, localTail_ - head_.value);
  return last;
}

OpRef RingBuffer::writeFromUb(AiCore& c, Region ubSrc, const std::vector<RecordMeta>& metas,
                              std::int64_t recordBytes) {
  return writeSplit(ubSrc.length, metas, recordBytes,
                    [&](Region dst, std::int64_t off, std::int64_t len) {
                      return c.copy(dst, ubSrc.sub(off, len));
                    });
}

OpRef RingBuffer::writeByRdma(AiCore& c, Region gmSrc, const std::vector<RecordMeta>& metas,
                              std::int64_t recordBytes) {
  return writeSplit(gmSrc.length, metas, recordBytes,
                    [&](Region dst, std::int64_t off, std::int64_t len) {
                      return c.rdmaWrite(dst, gmSrc.sub(off, len));
                    });
}

OpRef RingBuffer::publishTail(AiCore& c, const OpRef& lastData) {
  const std::int64_t value = localTail_;
  if (value == dropTail_) {  // injected fault: the write is lost
    c.noteLostWordWrite(tail_);
    return c.scalarWork(0);
  }
  OpRef op =
      kind_ == RingKind::Rdma ? c.rdmaWriteWord(tail_, value, lastData) : c.writeWord(tail_, value);
  op.op()->onLand.push_back([this, value] {
    if (value > landedEnd_)
      violation("tail " + std::to_string(value) +
                " published before its data landed (landed up to " + std::to_string(landedEnd_) +
                ")");
    if (value - head_.value > capacity_ || value < head_.value)
      violation("tail - head out of [0, capacity]: head " + std::to_string(head_.value) +
                ", tail " + std::to_string(value));
    sample();
  });
  return op;
}

Task RingBuffer::waitData(AiCore& c, std::int64_t bytes) {
  if (tailCache_ - readCursor_ >= bytes) co_return;
  for (;;) {
    tailCache_ = co_await c.readWord(tail_);
    if (tailCache_ - readCursor_ >= bytes) co_return;
    ++stats_.dataWaits;
    auto tailMoved = c.changeOf(tail_, tailCache_, Activity::WaitData, [this, bytes] {
      return "waiting for " + std::to_string(bytes) + " B of data in " + describe();
    });
    co_await tailMoved;
  }
}

OpRef RingBuffer::read(AiCore& c, Region ubDst, std::int64_t n) {
  if (readCursor_ + n > tail_.value)
    violation("read of [" + std::to_string(readCursor_) + ", " + std::to_string(readCursor_ + n) +
              ") past the published tail " + std::to_string(tail_.value));
  const std::int64_t pos = readCursor_ % capacity_;
  const std::int64_t first = std::min(n, capacity_ - pos);
  OpRef last = c.copy(ubDst.sub(0, first), Region{data_, pos, first});
  if (first < n) last = c.copy(ubDst.sub(first, n - first), Region{data_, 0, n - first});
  readCursor_ += n;
  return last;
}

void RingBuffer::skip(std::int64_t n) {
  if (readCursor_ + n > tail_.value)
    violation("skip past the published tail " + std::to_string(tail_.value));
  readCursor_ += n;
}

RecordMeta RingBuffer::takeRecord() {
  if (records_.empty()) {
    violation("record taken from an empty ring");
    return {};
  }
  auto [offset, meta] = records_.pop_front();
  if (offset != readCursor_)
    violation("record at " + std::to_string(offset) + " taken at cursor " +
              std::to_string(readCursor_));
  if (offset >= tail_.value)
    violation("record at " + std::to_string(offset) + " taken before the tail (" +
              std::to_string(tail_.value) + ") covered it");
  ++stats_.recordsRead;
  return meta;
}

OpRef RingBuffer::advanceHead(AiCore& c) {
  const std::int64_t value = readCursor_;
  OpRef op = c.writeWord(head_, value);
  op.op()->onLand.push_back([this, value] {
    if (value > tail_.value)
      violation("head " + std::to_string(value) + " advanced past tail " +
                std::to_string(tail_.value));
    // What the consumer has freed is no longer held on the host either.
    if (data_->pages) data_->pages->consumedTo(value);
    sample();
  });
  return op;
}

std::string RingBuffer::describe() const {
  return std::string(kind_ == RingKind::Ipc ? "IPC" : "RDMA") + " ring " + name() + " (capacity " +
         std::to_string(capacity_) + "): head " + std::to_string(head_.value) + ", tail " +
         std::to_string(tail_.value) + ", producer tail " + std::to_string(localTail_) +
         ", cached head " + std::to_string(headCache_) + ", consumer cursor " +
         std::to_string(readCursor_);
}

}  // namespace moe
