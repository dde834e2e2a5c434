#pragma once
// One emulated AI core (AIV or AIC) and the operations its program awaits (DESIGN.md §1.2).
// Each core has pipes (MTE2 GM->UB, MTE3 UB->GM, vector, scalar, cube). Operations on one
// pipe run in order; different pipes overlap. An operation is issued by calling e.g.
// copy(); awaiting the returned OpRef suspends the program until it completes, so double
// buffering is "issue now, co_await later".

#include <array>
#include <coroutine>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/engine/local_ptr.h"
#include "core/engine/simulator.h"
#include "core/machine/flow_network.h"
#include "core/machine/label.h"
#include "core/machine/land_hooks.h"
#include "core/machine/memory.h"
#include "core/machine/word_waiters.h"
#include "core/record/states.h"
#include "core/util/fifo.h"

namespace moe {

class Machine;
class AiCore;

enum class Pipe : std::uint8_t { Mte2, Mte3, Vector, Scalar, Cube, Count };

// DMAs below this size bypass the flow model (see AiCore::startOp).
constexpr std::int64_t kTinyCopyBytes = 1024;
enum class CoreKind : std::uint8_t { Aiv, Aic };

// A 64-bit word in GM that programs poll: ring head/tail, flags, counters. Waiters are
// suspended, never spinning the host; a change wakes them after the poll latency.
struct Word {
  Label name;
  int card = 0;
  // For the early deadlock watch (Machine::checkWaiters). `soleWriter`: by protocol only one
  // core ever writes this word (a ring's head or tail); `writer` is that core once it has
  // written, and `inFlightWrites` counts its writes issued but not landed. A waiter on such
  // a word whose writer has finished, with nothing in flight, can never be woken.
  int inFlightWrites = 0;
  std::int64_t value = 0;
  WordWaiters waiters{};
  AiCore* writer = nullptr;
  bool soleWriter = false;
};

struct Op;
// Ops are shared by the core's pipes, the kernels' OpRefs and the ops ordered behind them,
// all on the run's thread.
using OpPtr = LocalPtr<Op>;

// What only RDMA ops need, their order on a queue pair: kept in its own pooled record so
// the DataCopy and compute ops, nearly all of a run's ops, do not carry it.
struct RdmaLinks {
  OpPtr after;                 // word write: lands only after this op has landed
  OpPtr qpPrev;                // the previous op on the same queue pair (lands first)
  Op* qpNextToSend = nullptr;  // data: the next write waiting to transmit on its queue pair
  int qpPrevCausal = -1;       // the causal record of the op posted before it on its queue pair
  int qp = -1;                 // its queue pair on the posting core
  static void* operator new(std::size_t bytes);
  static void operator delete(void* p, std::size_t bytes) noexcept;
};

// A series of equal DataCopies, row i moving dst.offset + i * dstStride <- src.offset +
// i * srcStride, queued on its pipe as one op (AiCore::copyRows) whose rows cross and land
// one by one, each on its own events. A row needs no record of its own: a kernel that
// queues thousands of small row stores at once (the layout's is_token_in_rank, about a
// million rows at 256 ranks, all in flight together behind a fence) held an op record, a
// fence hook and an in-flight entry for every one.
struct CopyRows {
  Region dst, src;  // row 0
  std::int64_t dstStride = 0, srcStride = 0;
  int count = 0;
  int started = 0;  // rows put on the pipe so far
  int landed = 0;
  static void* operator new(std::size_t bytes);
  static void operator delete(void* p, std::size_t bytes) noexcept;
};

// Fields are ordered so that the record packs without holes: its size decides how much a
// run with many ops in flight holds (the pool rounds blocks to 64 B).
struct Op {
  enum class Kind : std::uint8_t { Copy, Compute, Rdma, WordWrite, WordRead, Fence, CopyRows };
  Kind kind = Kind::Compute;
  Pipe pipe = Pipe::Scalar;
  Activity activity = Activity::Copy;  // what the core is doing while it awaits this op
  bool done = false;
  bool pipeReleased = false;
  int fenceWaitingOn = 0;  // Fence: in-flight ops still to land
  int causalId = -1;       // its record in the machine's causal log, if one is kept
  AiCore* core = nullptr;
  Time duration = 0;  // Compute: pipe time; Rdma: post (issue) time
  Time latency = 0;
  std::int64_t wireBytes = 0;
  Region dst, src;
  Word* word = nullptr;
  std::int64_t wordValue = 0;
  std::unique_ptr<RdmaLinks> rdma;  // Rdma only
  std::unique_ptr<CopyRows> rows;   // CopyRows only
  LandHooks onLand;                 // run when the op lands (ring checks, fences)
  std::coroutine_handle<> waiter;
  int localRefs = 0;  // its OpPtrs (LocalPtr's count; it fills the path's padding)
  FlowPath path;
};

// A handle to an issued operation; co_await it to wait for completion.
class OpRef {
 public:
  OpRef() = default;
  explicit OpRef(OpPtr op) : op_(std::move(op)) {}
  bool done() const { return !op_ || op_->done; }
  const OpPtr& op() const { return op_; }

  bool await_ready() const noexcept { return done(); }
  void await_suspend(std::coroutine_handle<> h) const noexcept;
  // For word reads: the value read.
  std::int64_t await_resume() const noexcept;

 private:
  OpPtr op_;
};

// A cross-card barrier (SyncAll). The last arrival releases everyone after syncAllNs.
class SyncBarrier {
 public:
  SyncBarrier(std::string name, int participants)
      : name_(std::move(name)), participants_(participants) {}
  const std::string& name() const { return name_; }
  int arrived() const { return arrived_; }
  int participants() const { return participants_; }

 private:
  friend class AiCore;
  std::string name_;
  int participants_;
  int arrived_ = 0;
  std::vector<std::pair<AiCore*, std::coroutine_handle<>>> waiting_;
};

class AiCore {
 public:
  AiCore(Machine& m, int id, int card, int index, CoreKind kind, int mtePort);

  int id() const { return id_; }
  int card() const { return card_; }
  int index() const { return index_; }
  int mtePort() const { return mtePort_; }  // its DMA port's flow resource
  CoreKind kind() const { return kind_; }
  const std::string& name() const { return name_; }
  Role role() const { return role_; }
  Activity activity() const { return activity_; }
  Time activitySince() const { return since_; }
  Machine& machine() { return m_; }
  Simulator& sim();
  std::int64_t ubUsed() const { return ubUsed_; }
  // Its RDMA queue pairs, one per card it has posted to since its program began (kept
  // across programs only under a causal log).
  int queuePairCount() const { return static_cast<int>(queuePairs_.size()); }
  // Time spent in each activity so far (closed intervals only).
  const std::array<Time, static_cast<int>(Activity::Count)>& activityTime() const {
    return timeIn_;
  }
  // The same, split by the role the core had at the time (a core changes role per stage).
  using ActivityTimes = std::array<Time, static_cast<int>(Activity::Count)>;
  const ActivityTimes& roleActivityTime(Role r) const;
  // What the core waits on, in words (empty if not waiting): for the inspector and the
  // deadlock diagnosis.
  std::string waitDescription() const { return waitWhat_ ? waitWhat_() : std::string(); }

  void setRole(Role r) {
    role_ = r;
    roleTimes_ = nullptr;
  }
  // No op queued on or in flight from `pipe`.
  bool pipeIdle(Pipe pipe) const {
    return pipes_[static_cast<int>(pipe)].empty() && inFlight_[static_cast<int>(pipe)].empty();
  }
  // A new kernel launch starts with an empty UB (and empty pipe queues, whose storage is
  // given back). Throws if an op is still outstanding.
  void resetUb();
  void setActivity(Activity a);
  // The program ended: waiters on words only this core writes may now be stuck for good.
  void finishProgram();
  // True when every word this core waits on is a sole-writer word whose writer has
  // finished with no write in flight: nothing can ever wake it.
  bool stuckForever() const;

  // --- Operations (issue now; co_await the OpRef to wait) ---
  // DataCopy between GM (any card of this server) and this core's UB. GM offsets and
  // lengths need not be aligned: the DMA over-reads to dmaAlign boundaries and crops in
  // UB (DataCopyPad-style); UB offsets must be aligned.
  OpRef copy(Region dst, Region src);
  // `count` DataCopies of dst.length bytes, row i to dst.offset + i * dstStride from
  // src.offset + i * srcStride, issued now in that order: the same transfers, times and
  // events as `count` calls of copy(), but one op record for them all. Nothing awaits a
  // single row; a fence on the pipe waits for them all.
  void copyRows(Region dst, std::int64_t dstStride, Region src, std::int64_t srcStride, int count);
  OpRef vector(std::int64_t elements, int bytesPerElement);  // vector-pipe work
  OpRef cube(double flops);                                  // cube-pipe work (AIC)
  OpRef scalarWork(Time t);
  // One scalar sweep that reads GM words (ring tails, flags): costs the GM access latency
  // of the profile, so a polling kernel never names a latency itself.
  OpRef pollWords();
  // RDMA write GM -> GM (another server): pays the post cost on the scalar pipe, then the
  // NIC moves it asynchronously; the OpRef completes when the data has landed.
  OpRef rdmaWrite(Region dst, Region src);
  // Scalar write of a GM word (local or a peer's over HCCS); lands after the latency.
  OpRef writeWord(Word& w, std::int64_t value);
  // RDMA write of a word, ordered behind `after` (same queue pair): lands after it. Issued
  // right behind its data write (nothing in between on the scalar pipe), it joins that
  // write's post, as in an HCCL BatchWrite, and costs no post of its own.
  OpRef rdmaWriteWord(Word& w, std::int64_t value, const OpRef& after);
  // Scalar read of a GM word; co_await gives the value.
  OpRef readWord(Word& w);
  // SetFlag/WaitFlag on `pipe`: completes when every op issued before it on that pipe has
  // landed (not just left the pipe); later ops on the pipe wait behind it.
  OpRef fence(Pipe pipe);

  // Suspends until the watched word changes, plus the poll latency. The caller loops on
  // its condition; `describe` explains the wait for the inspector and deadlock watch.
  struct WordChange {
    AiCore* core;
    Word* word;
    Activity activity;
    std::int64_t seen;  // the value the caller last saw: a change since then needs no wait
    bool await_ready() const noexcept { return word->value != seen; }
    void await_suspend(std::coroutine_handle<> h);
    void await_resume() noexcept;
  };
  WordChange changeOf(Word& w, std::int64_t seen, Activity activity,
                      std::function<std::string()> describe);

  // Suspends until any of `words` differs from the matching `seen` value (then after the
  // poll latency). A consumer serving several rings waits on all their tails at once, so it
  // never blocks on one ring while another has data.
  struct AnyWordChange {
    AiCore* core;
    const std::vector<Word*>* words;
    const std::vector<std::int64_t>* seen;
    Activity activity;
    bool await_ready() const noexcept;
    void await_suspend(std::coroutine_handle<> h);
    void await_resume() noexcept;
  };
  // `words` and `seen` are the caller's and must outlive the wait: a consumer that sleeps
  // thousands of times keeps them (and their capacity) in its own frame.
  AnyWordChange changeOfAny(const std::vector<Word*>& words, const std::vector<std::int64_t>& seen,
                            Activity activity, std::function<std::string()> describe);
  // Called by Machine::setWord for each waiter: unhooks the core from every word it waits on.
  void stopWaiting();

  struct SyncAwait {
    AiCore* core;
    SyncBarrier* barrier;
    bool await_ready() const noexcept { return false; }
    bool await_suspend(std::coroutine_handle<> h);
    void await_resume() noexcept;
  };
  SyncAwait syncAll(SyncBarrier& b) { return SyncAwait{this, &b}; }

  // An injected fault lost this core's write to `w` (it never lands): the core still counts
  // as the word's writer, so the early deadlock watch can judge waiters on it.
  void noteLostWordWrite(Word& w);

  // Called by the machine.
  void wake(Word& w);
  static void opLanded(void* op, std::uint64_t);
  static void opCrossed(void* op, std::uint64_t);
  static void rdmaPosted(void* op, std::uint64_t);

 private:
  friend class OpRef;
  OpRef issue(OpPtr op);
  void checkCopy(const Region& dst, const Region& src) const;
  std::int64_t gmWireBytes(const Region& gm);  // counts the over-read
  void startCopyTransfer(std::int64_t wireBytes, const FlowPath& path, Time latency,
                         Action crossed);
  // Puts the series' next row on the pipe.
  void startRow(Op& series);
  static void rowCrossed(void* series, std::uint64_t row);
  static void rowLanded(void* series, std::uint64_t row);
  void startOp(const OpPtr& op);
  void land(Op* op);
  void releasePipe(Op* op);
  void leavePipe(Op* op);  // release the pipe but keep the op in flight until it lands

  Machine& m_;
  int id_, card_, index_;
  CoreKind kind_;
  int mtePort_;
  std::string name_;
  Role role_ = Role::Idle;
  Activity activity_ = Activity::Idle;
  Time since_ = 0;
  std::array<Time, static_cast<int>(Activity::Count)> timeIn_{};
  // Only the roles this core has had (a few at most): a table over every role was 640 B
  // per core, and most of a large cluster's 15,000 cores run one or two roles or none.
  struct RoleTimes {
    Role role;
    ActivityTimes times{};
  };
  std::vector<RoleTimes> timeByRole_;
  ActivityTimes* roleTimes_ = nullptr;  // role_'s entry, found on first use after setRole
  ActivityTimes& timesOf(Role r);
  std::array<Fifo<OpPtr>, static_cast<int>(Pipe::Count)> pipes_;
  // Ops that left their pipe (their last byte crossed) but have not landed yet, per pipe.
  std::array<std::vector<OpPtr>, static_cast<int>(Pipe::Count)> inFlight_;
  std::int64_t ubUsed_ = 0;
  std::vector<std::unique_ptr<Buffer>> ubBuffers_;
  std::function<std::string()> waitWhat_;
  std::vector<Word*> waitingOn_;
  std::vector<Word*> writesTo_;  // sole-writer words this core writes (early deadlock watch)
  void noteWordWrite(Word& w);
  // RDMA queue pairs, one per destination card. Ops on one land in issue order, and its data
  // writes go on the wire one at a time, in post order (an RC send queue's messages go out
  // back to back): the one on the wire, and those waiting behind it.
  // lastPosted is dropped once it has landed and left its pipe (forgetLanded): nothing
  // chains behind a landed op, and every queue pair of a run keeping one record alive held
  // tens of MB at 256 ranks. Its causal record stays for the next post's queuedBehind.
  struct QueuePair {
    OpPtr lastPosted;
    int lastCausal = -1;  // lastPosted's causal record, kept after it is dropped
    Op* sending = nullptr;
    Op* firstWaiting = nullptr;
    Op* lastWaiting = nullptr;
  };
  // A queue pair per destination card, made on the first post to that card: a list, not
  // a table over every card (that was 10 KB per posting core at 256 ranks, 42 MB). The
  // cards are searched in an array of their own, 4 bytes each: a core that posts to every
  // card of a 256-rank cluster (dispatch's notify) would otherwise walk 12 KB of queue
  // pairs per lookup. Lookups come in runs for one card (post, send, sent), so the last
  // hit is tried first.
  std::vector<int> qpCards_;
  std::vector<QueuePair> queuePairs_;
  std::size_t lastQp_ = 0;
  QueuePair& queuePair(int dstCard);
  void chainOnQueuePair(const OpPtr& op, int dstCard);
  void forgetLanded(Op* op);  // op has landed and left its pipe
  void sendOnQueuePair(Op* op);
  void sentOnQueuePair(Op* op);
  friend class Machine;
};

}  // namespace moe
