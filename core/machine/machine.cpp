#include "core/machine/machine.h"

#include "core/util/error.h"

#include <algorithm>
#include <cstdint>
#include <stdexcept>

namespace moe {

Machine::Machine(Simulator& sim, const HardwareProfile& hw, const ClusterShape& shape,
                 PayloadMode payload, Observer& obs)
    : sim_(sim),
      net_(sim),
      obs_(obs),
      hw_(hw),
      shape_(shape),
      payload_(payload),
      switch_(hw.fabric == "switch") {
  const int cps = shape.cardsPerServer;
  for (int s = 0; s < shape.servers; ++s)
    for (int l = 0; l < cps; ++l) {
      const int id = s * cps + l;
      const std::string cn = "card" + std::to_string(id);
      Card c{id,
             s,
             l,
             net_.addResource(cn + ".hbm", hw.hbmGBps),
             net_.addResource(cn + ".nic-tx", hw.nicGBps),
             net_.addResource(cn + ".nic-rx", hw.nicGBps),
             -1,
             -1,
             {},
             {},
             0};
      links_.push_back({LinkInfo::Kind::Hbm, c.hbm, id, id});
      links_.push_back({LinkInfo::Kind::NicTx, c.nicTx, id, id});
      links_.push_back({LinkInfo::Kind::NicRx, c.nicRx, id, id});
      if (switch_) {
        c.switchTx = net_.addResource(cn + ".switch-tx", hw.portGBps);
        c.switchRx = net_.addResource(cn + ".switch-rx", hw.portGBps);
        links_.push_back({LinkInfo::Kind::SwitchTx, c.switchTx, id, id});
        links_.push_back({LinkInfo::Kind::SwitchRx, c.switchRx, id, id});
      }
      auto addCore = [&](CoreKind kind, int index) {
        const int coreId = static_cast<int>(cores_.size());
        const std::string port =
            cn + (kind == CoreKind::Aiv ? ".aiv" : ".aic") + std::to_string(index) + ".mte";
        cores_.push_back(std::make_unique<AiCore>(*this, coreId, id, index, kind,
                                                  net_.addResource(port, hw.mteGBpsPerCore)));
        return coreId;
      };
      for (int i = 0; i < hw.aivCores; ++i) c.aiv.push_back(addCore(CoreKind::Aiv, i));
      for (int i = 0; i < hw.aicCores; ++i) c.aic.push_back(addCore(CoreKind::Aic, i));
      cards_.push_back(std::move(c));
    }
  // With payload "none" only metadata (ids, counts, ring control) has bytes: small chunks.
  const bool metadataOnly = payload != PayloadMode::Full;
  for (std::size_t i = 0; i < cards_.size(); ++i) {
    arenas_.emplace_back(true, metadataOnly);
    sparseArenas_.emplace_back(false, metadataOnly);
  }
  // HCCS: one resource per ordered card pair inside a server (full mesh, per direction).
  // A switch fabric has none: its ports, made above, are the only shared resources.
  hccs_.assign(static_cast<std::size_t>(cardCount()) * cps, -1);
  if (switch_) return;
  for (const Card& a : cards_)
    for (int l = 0; l < cps; ++l) {
      const int b = a.server * cps + l;
      if (b == a.id) continue;
      const int r = net_.addResource(
          "hccs card" + std::to_string(a.id) + "->card" + std::to_string(b), hw.hccsGBpsPerPair);
      hccs_[static_cast<std::size_t>(a.id) * cps + l] = r;
      links_.push_back({LinkInfo::Kind::Hccs, r, a.id, b});
    }
}

void Machine::chargeGm(int card, std::int64_t bytes, const std::function<std::string()>& what) {
  if (bytes < 0) throw std::logic_error("negative GM allocation " + what());
  Card& c = cards_[card];
  // Validation refuses what the memory estimate says cannot fit; this catches the rest (a
  // receive size known only after dispatch-notify) with the field to change.
  if (c.gmAllocated + bytes > hw_.hbmBytes)
    throw InputError("hardware.overrides.hbm_bytes",
                     std::to_string(hw_.hbmBytes) + " B cannot hold " + what() + " (" +
                         std::to_string(bytes) + " B) on card " + std::to_string(card) + " after " +
                         std::to_string(c.gmAllocated) + " B already allocated");
  c.gmAllocated += bytes;
}

Buffer* Machine::placeGm(int card, std::int64_t bytes, Label name, bool activation, bool sparse,
                         bool withBytes) {
  Buffer made{std::move(name), MemSpace::Gm, card, -1, bytes, {}, nullptr, {}};
  Buffer* spare = nullptr;
  if (!spareBuffers_.empty()) {
    spare = spareBuffers_.back();
    spareBuffers_.pop_back();
  }
  Buffer& b = spare ? (*spare = std::move(made)) : buffers_.emplace_back(std::move(made));
  if (withBytes && (!activation || payloadFull()))
    b.bytes = ByteStore::view(
        (sparse ? sparseArenas_ : arenas_)[card].allocate(static_cast<std::size_t>(bytes)),
        static_cast<std::size_t>(bytes));
  return &b;
}

Buffer* Machine::allocGm(int card, std::int64_t bytes, std::string name, bool activation,
                         bool sparse, bool withBytes) {
  chargeGm(card, bytes, [&name] { return name; });
  return placeGm(card, bytes, "card" + std::to_string(card) + "." + name, activation, sparse,
                 withBytes);
}

Buffer* Machine::allocGmSharing(Buffer* owner, std::string name) {
  Buffer* b = allocGm(owner->card, owner->size, std::move(name), /*activation=*/true,
                      /*sparse=*/false, /*withBytes=*/false);
  if (!owner->bytes.empty()) b->bytes = ByteStore::view(owner->data(), owner->bytes.size());
  return b;
}

Buffer* Machine::allocGmInput(int card, const void* host, std::int64_t bytes, std::string name) {
  Buffer* b = allocGm(card, bytes, std::move(name), /*activation=*/true, /*sparse=*/false,
                      /*withBytes=*/false);
  if (payloadFull() && bytes > 0)
    b->bytes = ByteStore::sharedInput(static_cast<const std::uint8_t*>(host),
                                      static_cast<std::size_t>(bytes));
  return b;
}

Buffer* Machine::allocRingData(int card, std::int64_t chunkBytes, int chunks, Label name,
                               const std::function<std::string()>& what, bool activation) {
  chargeGm(card, chunkBytes * chunks, what);
  if (!activation || !payloadFull() || chunkBytes <= 0 || chunks <= 0)
    return placeGm(card, chunkBytes * chunks, std::move(name), activation, false, true);
  Buffer* b = placeGm(card, chunkBytes * chunks, std::move(name), /*activation=*/true,
                      /*sparse=*/false, /*withBytes=*/false);
  // Pages of at most 16 KiB (a divisor of the chunk): a ring holding one unread record
  // holds about that record, not whole chunks, which counts once a card has hundreds of
  // rings (the streaming dispatch's channels).
  constexpr std::int64_t kMaxPage = 16 * 1024;
  const std::int64_t page = chunkBytes % kMaxPage == 0 ? kMaxPage : chunkBytes;
  auto& pool = pagePools_[static_cast<std::size_t>(page)];
  if (!pool) pool = std::make_unique<PagePool>(static_cast<std::size_t>(page));
  b->pages = std::make_unique<RingPages>(*pool, static_cast<int>(chunkBytes / page * chunks));
  return b;
}

Buffer* Machine::allocUb(AiCore& core, std::int64_t bytes, std::string name, bool activation,
                         bool withBytes) {
  const std::int64_t align = hw_.dmaAlignBytes;
  const std::int64_t rounded = (bytes + align - 1) / align * align;
  // An AIC core has no UB; its local buffer is L1.
  const std::int64_t capacity = core.kind() == CoreKind::Aiv ? hw_.ubBytes : hw_.l1Bytes;
  if (core.ubUsed_ + rounded > capacity)
    throw InputError(core.kind() == CoreKind::Aiv ? "hardware.overrides.ub_bytes"
                                                  : "hardware.overrides.l1_bytes",
                     std::to_string(capacity) + " B cannot hold " + name + " on " + core.name() +
                         ": it needs " + std::to_string(rounded) + " B, " +
                         std::to_string(capacity - core.ubUsed_) + " B are left");
  core.ubUsed_ += rounded;
  auto b = std::make_unique<Buffer>(Buffer{
      core.name() + ".ub." + name, MemSpace::Ub, core.card(), core.id(), bytes, {}, nullptr, {}});
  if (withBytes && (!activation || payloadFull()))
    b->bytes = ByteStore(static_cast<std::size_t>(bytes));
  return core.ubBuffers_.emplace_back(std::move(b)).get();
}

void Machine::releaseGmStorage() {
  for (Buffer& b : buffers_) {
    b.bytes = ByteStore();
    b.pages.reset();
  }
  // The last kernel's UB and L1 buffers of every core too: a finished run that a report
  // keeps would otherwise hold them (the experts' L1 tiles alone were 187 MiB by default).
  for (auto& core : cores_)
    for (auto& b : core->ubBuffers_) b->bytes = ByteStore();
  pagePools_.clear();
  for (GmArena& a : arenas_) a.release();
  for (GmArena& a : sparseArenas_) a.release();
}

void Machine::recycle(Buffer* b) {
  discard(b);
  *b = Buffer{};
  spareBuffers_.push_back(b);
}

void Machine::discard(Buffer* b, bool keepWarm) {
  b->pages.reset();  // a ring's pages go back to their pool
  if (b->bytes.empty() || b->space != MemSpace::Gm) return;
  // Back to its card's arena, zeroed where written, for later buffers of this run.
  for (auto* arenas : {&arenas_, &sparseArenas_}) {
    GmArena& a = (*arenas)[static_cast<std::size_t>(b->card)];
    if (a.owns(b->data())) {
      a.free(b->data(), b->bytes.size(), keepWarm);
      break;
    }
  }
  b->bytes = ByteStore();
  b->dead.reset();
}

std::size_t Machine::reservedGmBytes() const {
  std::size_t total = 0;
  for (const auto* arenas : {&arenas_, &sparseArenas_})
    for (const GmArena& a : *arenas) total += a.reservedBytes();
  for (const auto& [size, pool] : pagePools_) total += pool->heldBytes();
  return total;
}

void Machine::releaseIdleRingPages() {
  for (auto& [size, pool] : pagePools_) pool->releaseIfIdle();
}

std::size_t Machine::ringPagePeakBytes() const {
  std::size_t total = 0;  // pools of different page sizes peak apart: a bound
  for (const auto& [size, pool] : pagePools_) total += pool->peakInUseBytes();
  return total;
}

std::size_t Machine::residentGmBytes() const {
  std::size_t total = 0;
  for (const auto* arenas : {&arenas_, &sparseArenas_})
    for (const GmArena& a : *arenas) total += a.residentBytes();
  for (const auto& [size, pool] : pagePools_) total += pool->inUseBytes();
  return total;
}

void Machine::checkWaiters(const Word& w) {
  w.waiters.forEach([this](const WordWaiters::Waiter& waiter) {
    if (!waiter.core->stuckForever()) return;
    if (std::find(stuck_.begin(), stuck_.end(), waiter.core) == stuck_.end())
      stuck_.push_back(waiter.core);
    sim_.halt();
  });
}

Word* Machine::makeWord(int card, std::string name) {
  return &words_.emplace_back(Word{"card" + std::to_string(card) + "." + name, card});
}

Time Machine::wordLatency(const AiCore& from, const Word& w) const {
  if (w.card == from.card()) return nanoseconds(hw_.gmLatencyNs);
  if (serverOf(w.card) == serverOf(from.card())) return nanoseconds(hw_.hccsLatencyNs);
  return nanoseconds(hw_.rdmaLatencyNs);
}

void Machine::setWord(Word& w, std::int64_t value, const Op* writer) {
  if (w.value == value) return;
  w.value = value;
  const WordWaiters waiters = std::move(w.waiters);
  const Time wake = sim_.now() + nanoseconds(hw_.pollLatencyNs);
  waiters.forEach([&](const WordWaiters::Waiter& waiter) {
    waiter.core->stopWaiting();  // it may also wait on other words: wake it exactly once
    if (causalLog_ && writer) causalLog_->wokenBy(waiter.core->id(), writer->causalId);
    sim_.resumeAt(wake, waiter.handle);
  });
}

int Machine::hccsLink(int srcCard, int dstCard) const {
  const int r =
      hccs_[static_cast<std::size_t>(srcCard) * shape_.cardsPerServer + cards_[dstCard].local];
  if (r < 0 || serverOf(srcCard) != serverOf(dstCard))
    throw std::logic_error("no HCCS link card" + std::to_string(srcCard) + "->card" +
                           std::to_string(dstCard));
  return r;
}

void Machine::addIntraServerHop(int srcCard, int dstCard, FlowPath& path) const {
  if (!switch_) {
    path.push_back(hccsLink(srcCard, dstCard));
    return;
  }
  if (serverOf(srcCard) != serverOf(dstCard) || srcCard == dstCard)
    throw std::logic_error("no switch path card" + std::to_string(srcCard) + "->card" +
                           std::to_string(dstCard));
  path.push_back(cards_[srcCard].switchTx);
  path.push_back(cards_[dstCard].switchRx);
}

void Machine::routeCopy(const AiCore& core, const Region& dst, const Region& src, FlowPath& path,
                        Time& latency) const {
  const bool toUb = dst.buf->space == MemSpace::Ub;
  const Region& ub = toUb ? dst : src;
  const Region& gm = toUb ? src : dst;
  if (ub.buf->space != MemSpace::Ub || gm.buf->space != MemSpace::Gm)
    throw std::logic_error(core.name() + ": DataCopy moves between GM and UB (" +
                           src.buf->name.str() + " -> " + dst.buf->name.str() + ")");
  if (ub.buf->core != core.id())
    throw std::logic_error(core.name() + ": cannot DataCopy with another core's UB " +
                           ub.buf->name.str());
  const int gmCard = gm.buf->card;
  if (serverOf(gmCard) != serverOf(core.card()))
    throw std::logic_error(core.name() + ": DataCopy cannot reach another server's GM; use RDMA");
  path.clear();
  if (gmCard == core.card()) {
    latency = nanoseconds(hw_.gmLatencyNs);
  } else {
    if (toUb)
      addIntraServerHop(gmCard, core.card(), path);
    else
      addIntraServerHop(core.card(), gmCard, path);
    latency = nanoseconds(hw_.hccsLatencyNs);
  }
  path.push_back(cards_[gmCard].hbm);
}

void Machine::routeRdma(const Region& dst, const Region& src, FlowPath& path, Time& latency) const {
  if (dst.buf->space != MemSpace::Gm || src.buf->space != MemSpace::Gm)
    throw std::logic_error("RDMA moves GM to GM (" + src.buf->name.str() + " -> " +
                           dst.buf->name.str() + ")");
  const int s = src.buf->card, d = dst.buf->card;
  path.clear();
  path.push_back(cards_[s].hbm);
  if (s == d) {
    latency = nanoseconds(hw_.gmLatencyNs);
    return;
  }
  if (serverOf(s) == serverOf(d)) {
    addIntraServerHop(s, d, path);
    latency = nanoseconds(hw_.hccsLatencyNs);
  } else {
    path.push_back(cards_[s].nicTx);
    path.push_back(cards_[d].nicRx);
    latency = nanoseconds(hw_.rdmaLatencyNs);
  }
  path.push_back(cards_[d].hbm);
}

}  // namespace moe
