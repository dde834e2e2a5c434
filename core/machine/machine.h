#pragma once
// The emulated cluster: servers x cards, each card with HBM, AIV/AIC cores (each with UB
// and a DMA port), an intra-server fabric (HCCS pair links, or one port per direction into
// a non-blocking switch) and a NIC for RDMA between servers.
// It is the one seam between kernels and the hardware model: kernels only call AiCore
// operations and Machine allocation; paths, bandwidths and latencies are decided here.

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/engine/simulator.h"
#include "core/machine/ai_core.h"
#include "core/machine/causal_log.h"
#include "core/machine/cluster_shape.h"
#include "core/machine/flow_network.h"
#include "core/machine/hardware_profile.h"
#include "core/machine/memory.h"
#include "core/machine/transfer_log.h"
#include "core/record/observer.h"

namespace moe {

struct Card {
  int id;
  int server;
  int local;  // index within its server
  int hbm;    // flow-network resource ids
  int nicTx;
  int nicRx;
  int switchTx = -1;  // fabric "switch": this card's port into / out of the switch
  int switchRx = -1;
  std::vector<int> aiv;  // global core ids
  std::vector<int> aic;
  std::int64_t gmAllocated = 0;
};

struct LinkInfo {
  enum class Kind : std::uint8_t { Hccs, NicTx, NicRx, Hbm, MtePort, SwitchTx, SwitchRx };
  Kind kind;
  int resource;
  int srcCard;
  int dstCard;  // == srcCard for HBM, NIC and ports
};

class Machine {
 public:
  Machine(Simulator& sim, const HardwareProfile& hw, const ClusterShape& shape, PayloadMode payload,
          Observer& obs);
  Machine(const Machine&) = delete;
  Machine& operator=(const Machine&) = delete;

  Simulator& sim() { return sim_; }
  FlowNetwork& net() { return net_; }
  const FlowNetwork& net() const { return net_; }
  Observer& observer() { return obs_; }
  const HardwareProfile& hw() const { return hw_; }
  const ClusterShape& shape() const { return shape_; }
  bool payloadFull() const { return payload_ == PayloadMode::Full; }

  int cardCount() const { return static_cast<int>(cards_.size()); }
  const Card& card(int i) const { return cards_[i]; }
  int serverOf(int card) const { return cards_[card].server; }
  int coreCount() const { return static_cast<int>(cores_.size()); }
  AiCore& core(int id) { return *cores_[id]; }
  const AiCore& core(int id) const { return *cores_[id]; }
  AiCore& aiv(int card, int i) { return *cores_[cards_[card].aiv[i]]; }
  AiCore& aic(int card, int i) { return *cores_[cards_[card].aic[i]]; }
  const std::vector<LinkInfo>& links() const { return links_; }

  // GM on a card. `activation` buffers hold no bytes when payload is "none". `sparse`
  // buffers (worst-case windows, mostly unwritten) avoid huge pages so the untouched
  // part costs no memory. `withBytes` false: counted, but its storage is set up by the
  // caller (allocRingData).
  Buffer* allocGm(int card, std::int64_t bytes, std::string name, bool activation,
                  bool sparse = false, bool withBytes = true);
  // Counts `bytes` of GM against a card without a buffer (a ring's control block, which no
  // copy addresses); `what` names it in the error when the card's HBM cannot hold it.
  void chargeGm(int card, std::int64_t bytes, const std::function<std::string()>& what);
  // A ring's data area on a card: `chunks` slots of `chunkBytes`, counted in full against the
  // card's GM, but its bytes (payload "full") live in pages that are held only while they
  // have unread data (see RingPages). `name` is its full name, made on demand; `what` names
  // it in an error.
  Buffer* allocRingData(int card, std::int64_t chunkBytes, int chunks, Label name,
                        const std::function<std::string()>& what, bool activation);
  // UB of one core; throws if the core's UB would overflow (tiling checks this earlier).
  // `withBytes` false: the buffer takes its UB/L1 space but holds no host bytes (a kernel
  // that computes its result elsewhere, like the experts' L1 tiles).
  Buffer* allocUb(AiCore& core, std::int64_t bytes, std::string name, bool activation,
                  bool withBytes = true);
  Word* makeWord(int card, std::string name);
  // Frees the bytes of every GM buffer and of every core's UB (sizes stay): for dropping a
  // finished run's tensors.
  void releaseGmStorage();
  // Frees a dead GM buffer (its bytes read as absent afterwards): its memory is zeroed
  // where written and reused by later buffers, e.g. a stage's communication buffers once
  // the stage is over.
  // `keepWarm` false: its pages go back to the OS instead (nothing later in the run would
  // reuse them, e.g. a tensor freed during the last stage).
  void discard(Buffer* b, bool keepWarm = true);
  // Discards `b` and gives its record to the next GM buffer of this run: for a buffer that
  // nothing points at any more (a retired ring's data area). Records are otherwise kept
  // for the whole run, as `Buffer*` is handed out everywhere.
  void recycle(Buffer* b);
  // A GM buffer of `owner`'s size on its card that takes its own HBM but shares its host
  // bytes: for a tensor that overwrites another in place. Discard only one of the two.
  Buffer* allocGmSharing(Buffer* owner, std::string name);
  // A GM buffer of `bytes` on `card` that takes its HBM but reads its host bytes from
  // `host`, which the caller keeps alive and unchanged: an input that several runs read
  // (the layer's tokens, the same for every design) is then held once, not once per run.
  // Nothing may write it; it reads as absent once discarded or released.
  Buffer* allocGmInput(int card, const void* host, std::int64_t bytes, std::string name);
  // GM bytes the host really holds now: resident pages of the live buffers of every card.
  std::size_t residentGmBytes() const;
  // The most host bytes of ring data pages (see allocRingData) in use at once so far.
  std::size_t ringPagePeakBytes() const;
  // Gives the ring page pools with no page in use back to the OS (their rings are
  // discarded): a stage's rings then cost no memory in the next stage, which may need fewer.
  void releaseIdleRingPages();
  // Host address space the cards' GM arenas hold (touched or not).
  std::size_t reservedGmBytes() const;
  // Scalar access latency from a core to a word's card.
  Time wordLatency(const AiCore& from, const Word& w) const;
  // Writes a word now (host-side init or a landed write) and wakes its waiters.
  // `writer`: the op whose landing writes it (the causal log names it as the waiters' wake).
  void setWord(Word& w, std::int64_t value, const Op* writer = nullptr);
  // The early deadlock watch: records every waiter of `w` that can never be woken (see
  // Word::soleWriter) and halts the simulator, so a lost publish is diagnosed when the
  // last chance to fix it has passed, not when the whole layer has drained.
  void checkWaiters(const Word& w);
  const std::vector<const AiCore*>& stuckCores() const { return stuck_; }

  // Resolves the path of a DataCopy issued by `core`; throws std::logic_error for copies
  // the hardware cannot do (UB of another core, MTE across servers).
  void routeCopy(const AiCore& core, const Region& dst, const Region& src, FlowPath& path,
                 Time& latency) const;
  void routeRdma(const Region& dst, const Region& src, FlowPath& path, Time& latency) const;
  int hccsLink(int srcCard, int dstCard) const;
  bool switchFabric() const { return switch_; }
  // Appends the intra-server fabric resources from one card to another of its server: the
  // pair link (hccs-mesh, supernode) or the source's tx port and the target's rx port.
  void addIntraServerHop(int srcCard, int dstCard, FlowPath& path) const;

  // Starts a transfer on the flow network (`latency`: from its last byte crossing to
  // landing, which the caller schedules) and records it in the transfer log, if one is set.
  void startTransfer(const FlowPath& path, std::int64_t bytes, Time latency, Action onDone) {
    if (transferLog_ && bytes > 0 && !path.empty())
      transferLog_->transfers.push_back({sim_.now(), bytes, latency, path});
    net_.start(path, bytes, onDone);
  }
  // Records every later transfer in `log` (nullptr: none). The log outlives the recording.
  void setTransferLog(TransferLog* log) { transferLog_ = log; }
  // Records every later wait's cause in `log` (nullptr: none; causal_log.h). The log
  // outlives the recording; recording changes no event.
  void setCausalLog(CausalLog* log) { causalLog_ = log; }
  CausalLog* causalLog() const { return causalLog_; }

  // Totals for the summary.
  std::int64_t overreadBytes = 0;  // extra bytes moved by DMA alignment (over-read + crop)
  std::int64_t rdmaPosts = 0;      // every RDMA post: data writes and remote word writes
  std::int64_t rdmaDataPosts = 0;  // the data writes among them
  std::int64_t rdmaDataBytes = 0;  // bytes those data writes carried

 private:
  // A GM buffer already counted by chargeGm.
  Buffer* placeGm(int card, std::int64_t bytes, Label name, bool activation, bool sparse,
                  bool withBytes);

  Simulator& sim_;
  FlowNetwork net_;
  Observer& obs_;
  HardwareProfile hw_;
  ClusterShape shape_;
  PayloadMode payload_;
  bool switch_ = false;
  std::vector<Card> cards_;
  std::vector<std::unique_ptr<AiCore>> cores_;
  std::vector<int> hccs_;  // [src * cardsPerServer + dstLocal], per server block
  std::vector<LinkInfo> links_;
  // Before buffers_: the ring pages of buffers_ go back to these pools when destroyed.
  std::map<std::size_t, std::unique_ptr<PagePool>> pagePools_;  // by page size
  std::deque<Buffer> buffers_;
  std::vector<Buffer*> spareBuffers_;  // recycled records, reused before buffers_ grows
  std::vector<GmArena> arenas_;        // one per card, huge pages
  std::vector<GmArena> sparseArenas_;  // one per card, 4 KiB pages
  std::deque<Word> words_;
  std::vector<const AiCore*> stuck_;
  TransferLog* transferLog_ = nullptr;
  CausalLog* causalLog_ = nullptr;
};

}  // namespace moe
