#include "core/machine/ai_core.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "core/engine/block_pool.h"
#include "core/machine/machine.h"
#include "core/util/error.h"

namespace moe {

// The causal log names op kinds and pipes by the same numbers.
static_assert(static_cast<int>(CausalLog::OpKind::Fence) == static_cast<int>(Op::Kind::Fence));
static_assert(static_cast<int>(CausalLog::OpPipe::Cube) == static_cast<int>(Pipe::Cube));

namespace {
// Op records come from the engine's block pool: a run makes and drops millions of them.
OpPtr newOp() {
  return OpPtr::make();
}

Time cyclesToPs(double cycles, int clockMhz) {
  return checkedPs(cycles * 1e6 / clockMhz);
}

// Row i of a copyRows series whose row 0 is `row0`, the rows `stride` bytes apart.
Region rowOf(const Region& row0, std::int64_t stride, std::int64_t i) {
  return Region{row0.buf, row0.offset + i * stride, row0.length};
}
}  // namespace

void* RdmaLinks::operator new(std::size_t bytes) {
  return BlockPool::allocate(bytes);
}

void RdmaLinks::operator delete(void* p, std::size_t bytes) noexcept {
  BlockPool::release(p, bytes);
}

void* CopyRows::operator new(std::size_t bytes) {
  return BlockPool::allocate(bytes);
}

void CopyRows::operator delete(void* p, std::size_t bytes) noexcept {
  BlockPool::release(p, bytes);
}

void OpRef::await_suspend(std::coroutine_handle<> h) const noexcept {
  op_->waiter = h;
  AiCore* core = op_->core;
  core->setActivity(op_->activity);
  if (CausalLog* log = core->machine().causalLog())
    log->waitBegan(core->id(), core->role(), op_->activity, CausalLog::WaitKind::Op, op_->causalId,
                   core->sim().now());
}

std::int64_t OpRef::await_resume() const noexcept {
  return op_ ? op_->wordValue : 0;
}

AiCore::AiCore(Machine& m, int id, int card, int index, CoreKind kind, int mtePort)
    : m_(m), id_(id), card_(card), index_(index), kind_(kind), mtePort_(mtePort) {
  name_ = "card" + std::to_string(card) + (kind == CoreKind::Aiv ? ".aiv" : ".aic") +
          std::to_string(index);
}

Simulator& AiCore::sim() {
  return m_.sim();
}

void AiCore::resetUb() {
  for (int p = 0; p < static_cast<int>(Pipe::Count); ++p)
    if (!pipes_[p].empty() || !inFlight_[p].empty())
      throw std::logic_error(name_ + ": kernel ended with operations still outstanding (its " +
                             std::string(roleName(role_)) + " program left pipe " +
                             std::to_string(p) + " busy)");
  ubBuffers_.clear();
  ubUsed_ = 0;
  // The pipe queues and in-flight lists are empty now; their storage goes too (the layout
  // stage grows each core's to a few KB, which every later stage would otherwise keep).
  for (auto& q : pipes_) q.releaseStorage();
  for (auto& f : inFlight_) f = std::vector<OpPtr>();
  // Every post has landed, so every queue pair is idle and holds nothing a later post
  // reads, but for the causal log's link to the last post: without that log they go too
  // (dispatch's cores post to every card of the cluster; 256 ranks: 6.7 MB).
  if (!m_.causalLog()) {
    qpCards_ = std::vector<int>();
    queuePairs_ = std::vector<QueuePair>();
    lastQp_ = 0;
  }
}

void AiCore::finishProgram() {
  setActivity(Activity::Done);
  if (CausalLog* log = m_.causalLog()) log->programEnded(id_, m_.sim().now());
  for (Word* w : writesTo_) m_.checkWaiters(*w);
  writesTo_.clear();
}

bool AiCore::stuckForever() const {
  if (waitingOn_.empty()) return false;
  for (const Word* w : waitingOn_)
    if (!w->soleWriter || w->writer == nullptr || w->writer->activity() != Activity::Done ||
        w->inFlightWrites > 0)
      return false;
  return true;
}

void AiCore::noteWordWrite(Word& w) {
  ++w.inFlightWrites;
  if (!w.soleWriter || w.writer == this) return;
  if (w.writer == nullptr) {
    w.writer = this;
    writesTo_.push_back(&w);
  } else {
    w.soleWriter = false;  // a second writer: the watch no longer judges this word
  }
}

void AiCore::noteLostWordWrite(Word& w) {
  noteWordWrite(w);
  --w.inFlightWrites;  // issued, but nothing will land
}

const AiCore::ActivityTimes& AiCore::roleActivityTime(Role r) const {
  static const ActivityTimes kNever{};
  for (const RoleTimes& t : timeByRole_)
    if (t.role == r) return t.times;
  return kNever;
}

AiCore::ActivityTimes& AiCore::timesOf(Role r) {
  for (RoleTimes& t : timeByRole_)
    if (t.role == r) return t.times;
  return timeByRole_.emplace_back(RoleTimes{r, {}}).times;
}

void AiCore::setActivity(Activity a) {
  if (a == activity_) return;
  const Time now = m_.sim().now();
  if (now > since_) {
    timeIn_[static_cast<int>(activity_)] += now - since_;
    if (!roleTimes_) roleTimes_ = &timesOf(role_);
    (*roleTimes_)[static_cast<int>(activity_)] += now - since_;
    m_.observer().activity(ActivityInterval{id_, role_, activity_, since_, now});
  }
  activity_ = a;
  since_ = now;
}

OpRef AiCore::issue(OpPtr op) {
  op->core = this;
  if (CausalLog* log = m_.causalLog()) {
    const int word = op->word ? log->wordId(op->word, op->word->name) : -1;
    op->causalId = log->newOp(static_cast<CausalLog::OpKind>(op->kind),
                              static_cast<CausalLog::OpPipe>(op->pipe), id_, m_.sim().now(),
                              op->rdma && op->rdma->after ? op->rdma->after->causalId : -1, word);
    if (op->rdma && op->rdma->qpPrevCausal >= 0)
      log->queuedBehind(op->causalId, op->rdma->qpPrevCausal);
  }
  auto& q = pipes_[static_cast<int>(op->pipe)];
  q.push_back(op);
  if (q.size() == 1) startOp(op);
  return OpRef(std::move(op));
}

void AiCore::startOp(const OpPtr& op) {
  Simulator& s = m_.sim();
  switch (op->kind) {
    case Op::Kind::Compute:
    case Op::Kind::WordWrite:
    case Op::Kind::WordRead:
      s.after(op->duration, Action{&AiCore::opLanded, op.get(), 0});
      break;
    case Op::Kind::Copy:
      startCopyTransfer(op->wireBytes, op->path, op->latency,
                        Action{&AiCore::opCrossed, op.get(), 0});
      if (CausalLog* log = m_.causalLog())
        log->transferStarted(op->causalId, s.now(), op->wireBytes, op->path,
                             op->wireBytes < kTinyCopyBytes ? nullptr : &m_.net());
      break;
    case Op::Kind::Rdma:
      s.after(op->duration, Action{&AiCore::rdmaPosted, op.get(), 0});
      break;
    case Op::Kind::CopyRows:
      startRow(*op);
      break;
    case Op::Kind::Fence: {
      auto& flying = inFlight_[static_cast<int>(op->pipe)];
      op->fenceWaitingOn = static_cast<int>(flying.size());
      if (op->fenceWaitingOn == 0) {
        s.after(0, Action{&AiCore::opLanded, op.get(), 0});
        break;
      }
      Op* fence = op.get();
      // Without a causal log the hook captures two pointers, which std::function holds
      // without allocating; the log's hook also notes which landing released the fence.
      CausalLog* log = m_.causalLog();
      for (auto& f : flying) {
        if (!log) {
          f->onLand.push_back([fence, &s] {
            if (--fence->fenceWaitingOn == 0) s.after(0, Action{&AiCore::opLanded, fence, 0});
          });
          continue;
        }
        const int cause = f->causalId;
        f->onLand.push_back([fence, &s, log, cause] {
          if (--fence->fenceWaitingOn != 0) return;
          log->fenceReleasedBy(fence->causalId, cause);
          s.after(0, Action{&AiCore::opLanded, fence, 0});
        });
      }
      break;
    }
  }
}

void AiCore::leavePipe(Op* op) {
  auto& q = pipes_[static_cast<int>(op->pipe)];
  inFlight_[static_cast<int>(op->pipe)].push_back(q.front());
  releasePipe(op);
}

// Tiny DMAs (a scale, an index triple) are latency-bound: they take their port time
// directly instead of entering the shared-bandwidth model, which would cost a rate
// recompute for a few bytes.
void AiCore::startCopyTransfer(std::int64_t wireBytes, const FlowPath& path, Time latency,
                               Action crossed) {
  if (wireBytes < kTinyCopyBytes)
    m_.sim().after(transferTime(wireBytes, m_.hw().mteGBpsPerCore), crossed);
  else
    m_.startTransfer(path, wireBytes, latency, crossed);
}

// A DataCopy over-reads (or pads) its GM side to alignment boundaries and crops in UB: the
// bytes on the wire, with the over-read counted.
std::int64_t AiCore::gmWireBytes(const Region& gm) {
  const std::int64_t align = m_.hw().dmaAlignBytes;
  const std::int64_t a0 = (gm.offset / align) * align;
  const std::int64_t a1 = ((gm.offset + gm.length + align - 1) / align) * align;
  const std::int64_t wire = gm.length == 0 ? 0 : a1 - a0;
  m_.overreadBytes += wire - gm.length;
  return wire;
}

// A row of a series starts as copy() and startOp would start it as an op of its own, with
// the series and the row number as its events' argument.
void AiCore::startRow(Op& series) {
  CopyRows& r = *series.rows;
  const std::int64_t i = r.started++;
  const bool toUb = r.dst.buf->space == MemSpace::Ub;
  const std::int64_t wireBytes =
      gmWireBytes(toUb ? rowOf(r.src, r.srcStride, i) : rowOf(r.dst, r.dstStride, i));
  startCopyTransfer(wireBytes, series.path, series.latency,
                    Action{&AiCore::rowCrossed, &series, static_cast<std::uint64_t>(i)});
}

// As opCrossed for a single copy: the next row (or, after the last, the next op) takes the
// pipe, then the row lands after the hop latency.
void AiCore::rowCrossed(void* p, std::uint64_t row) {
  Op* series = static_cast<Op*>(p);
  AiCore& c = *series->core;
  if (series->rows->started < series->rows->count)
    c.startRow(*series);
  else
    c.leavePipe(series);  // in flight until its last row lands
  c.m_.sim().after(series->latency, Action{&AiCore::rowLanded, series, row});
}

// Each row's bytes land as a single copy's would; the series itself lands (land(): its
// hooks, such as a fence waiting for it, and its place in flight) with its last row, which
// is when the last of the rows it stands for has landed.
void AiCore::rowLanded(void* p, std::uint64_t row) {
  Op* series = static_cast<Op*>(p);
  CopyRows& r = *series->rows;
  const auto i = static_cast<std::int64_t>(row);
  copyBytes(rowOf(r.dst, r.dstStride, i), rowOf(r.src, r.srcStride, i));
  if (++r.landed == r.count) series->core->land(series);
}

// The last byte of a DataCopy or an RDMA write crossed its path: the pipe can take the
// next op (posted writes), and the data lands after the fixed hop latency.
void AiCore::opCrossed(void* p, std::uint64_t) {
  Op* op = static_cast<Op*>(p);
  AiCore& c = *op->core;
  if (op->kind == Op::Kind::Copy) c.leavePipe(op);
  if (op->kind == Op::Kind::Rdma) c.sentOnQueuePair(op);
  if (CausalLog* log = c.m_.causalLog())
    log->transferEnded(
        op->causalId, c.m_.sim().now(), op->path,
        op->kind == Op::Kind::Copy && op->wireBytes < kTinyCopyBytes ? nullptr : &c.m_.net());
  c.m_.sim().after(op->latency, Action{&AiCore::opLanded, op, 0});
}

// An RDMA post has been issued: the scalar pipe is free and the NIC takes over.
void AiCore::rdmaPosted(void* p, std::uint64_t) {
  Op* op = static_cast<Op*>(p);
  AiCore& c = *op->core;
  Simulator& s = c.m_.sim();
  c.leavePipe(op);
  if (op->word == nullptr) {
    c.sendOnQueuePair(op);
    return;
  }
  // A word write on the same queue pair as `after`: it cannot overtake that data.
  const Time landAt = s.now() + c.m_.wordLatency(c, *op->word);
  if (const auto& after = op->rdma->after; after && !after->done) {
    after->onLand.push_back([op, landAt, &s] {
      s.at(std::max(landAt, s.now()), Action{&AiCore::opLanded, op, 0});
    });
  } else {
    s.at(landAt, Action{&AiCore::opLanded, op, 0});
  }
}

// An RC queue pair's send queue goes out in order, one message after the other: a write
// posted while an earlier one on the same queue pair is still on the wire waits for it.
// Only different queue pairs (cores, destination cards) share the NIC concurrently. (Sharing
// it among every posted write also over-coupled the flow model: in the flat design each
// transfer's start re-rated hundreds of others.)
void AiCore::sendOnQueuePair(Op* op) {
  QueuePair& q = queuePair(op->dst.buf->card);
  if (q.sending) {
    (q.lastWaiting ? q.lastWaiting->rdma->qpNextToSend : q.firstWaiting) = op;
    q.lastWaiting = op;
    return;
  }
  q.sending = op;
  m_.startTransfer(op->path, op->wireBytes, op->latency, Action{&AiCore::opCrossed, op, 0});
  if (CausalLog* log = m_.causalLog())
    log->transferStarted(op->causalId, m_.sim().now(), op->wireBytes, op->path, &m_.net());
}

void AiCore::sentOnQueuePair(Op* op) {
  QueuePair& q = queuePair(op->dst.buf->card);
  if (q.sending != op) throw std::logic_error("queue pair order broken on " + name_);
  Op* next = q.firstWaiting;
  q.sending = next;
  if (!next) return;
  q.firstWaiting = next->rdma->qpNextToSend;
  if (!q.firstWaiting) q.lastWaiting = nullptr;
  next->rdma->qpNextToSend = nullptr;
  m_.startTransfer(next->path, next->wireBytes, next->latency, Action{&AiCore::opCrossed, next, 0});
  if (CausalLog* log = m_.causalLog())
    log->transferStarted(next->causalId, m_.sim().now(), next->wireBytes, next->path, &m_.net());
}

void AiCore::opLanded(void* p, std::uint64_t) {
  Op* op = static_cast<Op*>(p);
  // RDMA on one queue pair is delivered in order: a transfer that crossed early (it was
  // smaller, or shared less bandwidth) becomes visible only after its predecessor, so a
  // later tail write can never be overtaken by an earlier one.
  if (op->rdma && op->rdma->qpPrev && !op->rdma->qpPrev->done) {
    op->rdma->qpPrev->onLand.push_back([op] { op->core->land(op); });
    return;
  }
  op->core->land(op);
}

AiCore::QueuePair& AiCore::queuePair(int dstCard) {
  // The reference is used before anything else can post from this core (a new entry may
  // move the list).
  if (lastQp_ < qpCards_.size() && qpCards_[lastQp_] == dstCard) return queuePairs_[lastQp_];
  const auto it = std::find(qpCards_.begin(), qpCards_.end(), dstCard);
  lastQp_ = static_cast<std::size_t>(it - qpCards_.begin());
  if (it != qpCards_.end()) return queuePairs_[lastQp_];
  qpCards_.push_back(dstCard);
  return queuePairs_.emplace_back();
}

void AiCore::chainOnQueuePair(const OpPtr& op, int dstCard) {
  QueuePair& qp = queuePair(dstCard);
  auto& last = qp.lastPosted;
  if (last && !last->done) op->rdma->qpPrev = last;
  op->rdma->qpPrevCausal = last ? last->causalId : qp.lastCausal;
  op->rdma->qp = static_cast<int>(lastQp_);
  last = op;
}

void AiCore::forgetLanded(Op* op) {
  if (!op->rdma) return;
  op->rdma->after.reset();  // a landed word write no longer orders behind its data
  QueuePair& qp = queuePairs_[static_cast<std::size_t>(op->rdma->qp)];
  if (qp.lastPosted.get() != op) return;
  qp.lastCausal = op->causalId;
  qp.lastPosted.reset();  // the caller still holds op
}

void AiCore::land(Op* op) {
  Simulator& s = m_.sim();
  if ((op->kind == Op::Kind::Copy || op->kind == Op::Kind::Rdma) && op->word == nullptr) {
    copyBytes(op->dst, op->src);
  }
  if (op->kind == Op::Kind::WordWrite || (op->kind == Op::Kind::Rdma && op->word)) {
    --op->word->inFlightWrites;
    m_.setWord(*op->word, op->wordValue, op);
    // The same value wakes nobody: if that was the writer's last word, its waiters are stuck.
    m_.checkWaiters(*op->word);
  }
  if (op->kind == Op::Kind::WordRead) op->wordValue = op->word->value;
  op->done = true;
  if (op->rdma) op->rdma->qpPrev.reset();  // no chains of finished ops kept alive
  // Taken out before they run: a hook that adds a hook to this op must not extend the list
  // being run.
  std::exchange(op->onLand, LandHooks()).run();
  if (op->waiter) s.resumeAt(s.now(), std::exchange(op->waiter, {}));
  if (op->pipeReleased) {
    forgetLanded(op);
    auto& flying = inFlight_[static_cast<int>(op->pipe)];
    auto it =
        std::find_if(flying.begin(), flying.end(), [op](const auto& o) { return o.get() == op; });
    if (it != flying.end()) flying.erase(it);  // last use of op: it may be freed here
  } else {
    releasePipe(op);
  }
}

void AiCore::releasePipe(Op* op) {
  auto& q = pipes_[static_cast<int>(op->pipe)];
  if (q.empty() || q.front().get() != op) throw std::logic_error("pipe order broken on " + name_);
  op->pipeReleased = true;
  auto keep = q.front();  // op must outlive the pop
  q.pop_front();
  if (op->done) forgetLanded(op);
  if (!q.empty()) startOp(q.front());
}

void AiCore::copyRows(Region dst, std::int64_t dstStride, Region src, std::int64_t srcStride,
                      int count) {
  if (count <= 0) return;
  // The causal log numbers ops as they are issued: under it every row is issued now.
  if (count == 1 || m_.causalLog()) {
    for (int i = 0; i < count; ++i) copy(rowOf(dst, dstStride, i), rowOf(src, srcStride, i));
    return;
  }
  // A bad row fails here, at its issue, as copy() would.
  for (int i = 0; i < count; ++i) checkCopy(rowOf(dst, dstStride, i), rowOf(src, srcStride, i));
  auto series = newOp();
  series->kind = Op::Kind::CopyRows;
  series->activity = Activity::Copy;
  series->pipe = dst.buf->space == MemSpace::Ub ? Pipe::Mte2 : Pipe::Mte3;
  // Every row takes row 0's route: the route depends only on the buffers.
  m_.routeCopy(*this, dst, src, series->path, series->latency);
  series->path.push_front(mtePort_);
  series->rows.reset(new CopyRows{dst, src, dstStride, srcStride, count, 0, 0});
  issue(std::move(series));
}

void AiCore::checkCopy(const Region& dst, const Region& src) const {
  if (dst.length != src.length)
    throw std::logic_error(name_ + ": DataCopy with different source and destination lengths");
  const bool toUb = dst.buf->space == MemSpace::Ub;
  const Region& ub = toUb ? dst : src;
  const std::int64_t align = m_.hw().dmaAlignBytes;
  // The kernels lay UB out in 32-byte blocks, the profiles' DataCopy alignment. Off that
  // grid is a kernel bug; on it but off a coarser dma_align_bytes is the scenario's choice,
  // which the hardware would refuse: exit 2 naming the field.
  if (ub.offset % align != 0) {
    if (ub.offset % 32 != 0)
      throw std::logic_error(name_ + ": UB address " + std::to_string(ub.offset) + " in " +
                             ub.buf->name.str() + " is not 32-byte aligned");
    throw InputError("hardware.overrides.dma_align_bytes",
                     std::to_string(align) + " B is coarser than the kernels' 32-byte UB layout: " +
                         ub.buf->name.str() + " is used at offset " + std::to_string(ub.offset) +
                         " (" + name_ + ")");
  }
}

OpRef AiCore::copy(Region dst, Region src) {
  checkCopy(dst, src);
  auto op = newOp();
  op->kind = Op::Kind::Copy;
  op->activity = Activity::Copy;
  op->dst = dst;
  op->src = src;
  const bool toUb = dst.buf->space == MemSpace::Ub;
  op->pipe = toUb ? Pipe::Mte2 : Pipe::Mte3;
  op->wireBytes = gmWireBytes(toUb ? src : dst);
  m_.routeCopy(*this, dst, src, op->path, op->latency);
  op->path.push_front(mtePort_);
  return issue(std::move(op));
}

OpRef AiCore::vector(std::int64_t elements, int bytesPerElement) {
  auto op = newOp();
  op->kind = Op::Kind::Compute;
  op->pipe = Pipe::Vector;
  op->activity = Activity::Vector;
  const double cycles =
      std::ceil(static_cast<double>(elements) * bytesPerElement / m_.hw().vectorBytesPerCycle);
  op->duration = cyclesToPs(cycles, m_.hw().clockMhz);
  return issue(std::move(op));
}

OpRef AiCore::cube(double flops) {
  auto op = newOp();
  op->kind = Op::Kind::Compute;
  op->pipe = Pipe::Cube;
  op->activity = Activity::Cube;
  op->duration = cyclesToPs(std::ceil(flops / (2.0 * m_.hw().cubeMacsPerCycle)), m_.hw().clockMhz);
  return issue(std::move(op));
}

OpRef AiCore::scalarWork(Time t) {
  auto op = newOp();
  op->kind = Op::Kind::Compute;
  op->pipe = Pipe::Scalar;
  op->activity = Activity::Copy;
  op->duration = t;
  return issue(std::move(op));
}

OpRef AiCore::pollWords() {
  return scalarWork(nanoseconds(m_.hw().gmLatencyNs));
}

OpRef AiCore::rdmaWrite(Region dst, Region src) {
  if (dst.length != src.length)
    throw std::logic_error(name_ + ": RDMA write with different lengths");
  auto op = newOp();
  op->kind = Op::Kind::Rdma;
  op->rdma = std::make_unique<RdmaLinks>();
  op->pipe = Pipe::Scalar;
  op->activity = Activity::Copy;
  op->duration = nanoseconds(m_.hw().rdmaPostNs);
  op->dst = dst;
  op->src = src;
  op->wireBytes = dst.length;
  m_.routeRdma(dst, src, op->path, op->latency);
  ++m_.rdmaPosts;
  ++m_.rdmaDataPosts;
  m_.rdmaDataBytes += dst.length;
  chainOnQueuePair(op, dst.buf->card);
  return issue(std::move(op));
}

OpRef AiCore::writeWord(Word& w, std::int64_t value) {
  auto op = newOp();
  op->kind = Op::Kind::WordWrite;
  op->pipe = Pipe::Scalar;
  op->activity = Activity::Copy;
  op->word = &w;
  op->wordValue = value;
  op->duration = m_.wordLatency(*this, w);
  noteWordWrite(w);
  return issue(std::move(op));
}

OpRef AiCore::rdmaWriteWord(Word& w, std::int64_t value, const OpRef& after) {
  auto op = newOp();
  op->kind = Op::Kind::Rdma;
  op->rdma = std::make_unique<RdmaLinks>();
  op->pipe = Pipe::Scalar;
  op->activity = Activity::Copy;
  // BatchWrite: a flag that follows its own data to the same card, with nothing issued on
  // the scalar pipe in between, goes in the data's post (an HCCL BatchWrite is one post of
  // a descriptor list). It costs no second post; it still lands only after the data.
  const auto& scalar = pipes_[static_cast<int>(Pipe::Scalar)];
  const Op* data = after.op().get();
  const bool inDataPost = data && data->kind == Op::Kind::Rdma && data->word == nullptr &&
                          data->core == this && !scalar.empty() && scalar.back().get() == data &&
                          queuePair(w.card).lastPosted.get() == data;
  op->duration = inDataPost ? 0 : nanoseconds(m_.hw().rdmaPostNs);
  op->word = &w;
  op->wordValue = value;
  op->rdma->after = after.op();
  if (!inDataPost) ++m_.rdmaPosts;
  noteWordWrite(w);
  chainOnQueuePair(op, w.card);
  return issue(std::move(op));
}

OpRef AiCore::readWord(Word& w) {
  auto op = newOp();
  op->kind = Op::Kind::WordRead;
  op->pipe = Pipe::Scalar;
  op->activity = Activity::Copy;
  op->word = &w;
  op->duration = m_.wordLatency(*this, w);
  return issue(std::move(op));
}

OpRef AiCore::fence(Pipe pipe) {
  auto op = newOp();
  op->kind = Op::Kind::Fence;
  op->pipe = pipe;
  op->activity = pipe == Pipe::Vector ? Activity::Vector : Activity::Copy;
  op->duration = 0;
  return issue(std::move(op));
}

}  // namespace moe
