#pragma once
// Everything the kernels of one MoE layer share: the emulation, the derived shape, and
// each card's GM buffers (the tensors the kernels read and write).

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "core/runtime/emulation.h"
#include "core/runtime/record_layout.h"

namespace moe {

// One card's GM tensors, grouped by the stage that writes them, each group named after
// that stage so a kernel takes the groups it reads and writes. Buffers named "activation"
// hold no bytes with payload "none". Shapes use the seeds' letters (LayerContext): A is the
// rows dispatch delivers to the card.

// The layer's inputs, written by the host before the first stage: the tokens, the gate's
// routing and the EPLB table.
struct InputTensors {
  Buffer* x = nullptr;            // [BS*H] bf16 (activation)
  Buffer* topkIds = nullptr;      // [BS*K] i32 logical experts
  Buffer* topkWeights = nullptr;  // [BS*K] f32
  Buffer* table = nullptr;        // [E*F] i32 eplb_table
  Buffer* active = nullptr;       // [BS] u8
};

// MoeUpdateExpert's outputs (seed 002).
struct ExpertUpdateTensors {
  Buffer* balancedIds = nullptr;  // [BS*K] i32 physical instances
  Buffer* mask = nullptr;         // [BS*K] u8 keep-mask
};

// get_dispatch_layout's outputs (seed 003).
struct LayoutTensors {
  Buffer* tokensPerRank = nullptr;      // [R] i32
  Buffer* tokensPerRdmaRank = nullptr;  // [S] i32
  Buffer* tokensPerExpert = nullptr;    // [R*P] i32
  Buffer* isTokenInRank = nullptr;      // [BS*R] u8
};

// Dispatch's: the notified counts, then the received rows and their tables.
struct DispatchTensors {
  // Counts written by every source rank, per token channel ch < C
  // (LayerContext::channels): [R][C * (2 + P)] i32
  //   [ch] tokens it sends to this rank, [C + ch] tokens it sends to this rank's server,
  //   [2C + le * C + ch] rows it sends to local expert le.
  Buffer* recvCounts = nullptr;
  // The outputs, allocated once the counts are known, as DeepEP's host sync does.
  Buffer* expandX = nullptr;          // [A*H] bf16 (activation)
  Buffer* expandScales = nullptr;     // [A] f32
  Buffer* expandIdx = nullptr;        // [A*3] i32
  Buffer* expertTokenNums = nullptr;  // [P] i32
  Buffer* offsets = nullptr;          // [P*R] i32
  Buffer* lengths = nullptr;          // [P*R] i32
  std::int64_t recvRows = 0;          // A
};

// The experts' output, row for row with dispatch's expandX.
struct ExpertTensors {
  Buffer* expertOut = nullptr;  // [A*H] bf16 (activation)
};

// The combine's outputs.
struct CombineTensors {
  Buffer* xOut = nullptr;   // [BS*H] bf16: the combined tokens (x_out with AddRmsNorm)
  Buffer* normY = nullptr;  // [BS*H] bf16: RMSNorm output (AddRmsNorm only)
  Buffer* rstd = nullptr;   // [BS] f32 (AddRmsNorm only)
};

struct CardTensors {
  InputTensors input;
  ExpertUpdateTensors update;
  LayoutTensors layout;
  DispatchTensors dispatch;
  ExpertTensors experts;
  CombineTensors combine;
};

// Faults injected on purpose, for teaching and tests (moe-sim run --fault): the deadlock
// watch must diagnose each of them with the ring and its pointer values.
enum class Fault : std::uint8_t {
  None,
  DropTail,   // one tail publish of a streaming-combine IPC ring is lost (its last one)
  StallCore,  // one streaming-combine forwarder core hangs before it starts
};

// "none", "drop-tail", "stall-core": the names moe-sim --fault and lesson files use.
std::string_view faultName(Fault f);
std::optional<Fault> faultFromName(std::string_view name);

// Kernels that walk a rank's routing (ids, keep-mask, weights: 9 B per slot) stage it in UB
// a window of at most this many tokens at a time, so DeepEP-scale batches (up to 8192
// tokens) fit UB. A batch of at most 512 tokens is one window, loaded once.
inline constexpr int kRoutingWindowTokens = 512;
inline int routingWindowTokens(int tokensPerRank) {
  return tokensPerRank < kRoutingWindowTokens ? tokensPerRank : kRoutingWindowTokens;
}

struct LayerContext {
  LayerContext(Emulation& e, int placePerRank, int tableCols);

  Emulation& emu;
  const Scenario& sc;
  Machine& m;
  // The layer's shape (the seeds' pseudo-code calls them R, S, cps, BS, H, K, E, P and F;
  // a kernel may name its locals so).
  int ranks, servers, cardsPerServer;
  int tokensPerRank;  // BS
  int hidden;         // H
  int topK;           // K
  int experts;        // E: logical experts
  int placePerRank;   // P: physical expert instances per rank
  int tableCols;      // F: columns of one expert's row of the EPLB table
  bool pruning;
  std::int64_t rowBytes;     // H * 2
  std::int64_t metaBytes;    // one record header on the wire, 32-B aligned
  std::int64_t recordBytes;  // metaBytes + rowBytes rounded to 32
  // What dispatch sends (recordLayout): the bf16 record, or with fp8 / int8 the one-byte
  // codes and their fp32 scales (core/reference/dispatch_quant.h).
  DispatchDtype dispatchDtype;
  bool quantizedDispatch;
  std::int64_t dispatchRowBytes;
  std::int64_t dispatchRecordBytes;
  std::vector<CardTensors> cards;
  // Token channels of the dispatch: a rank's tokens split into `channels` contiguous ranges
  // (DeepEP's channels), each crossing its own RDMA ring in the streaming design so every
  // forwarder core drains one (dispatchRdmaChannels). 1 for the other designs.
  int channels = 1;
  // Physical instance -> the logical expert whose weights it holds (from the eplb table);
  // replicas of one expert compute the same function.
  std::vector<int> instanceLogical;
  std::int64_t commBufferBytes = 0;     // dispatch's rings or windows, for the footprint report
  std::int64_t combineBufferBytes = 0;  // combine's rings or windows
  Fault fault = Fault::None;
  // A stage's communication buffers (windows, GM staging), released once the stage is over.
  std::vector<Buffer*> stageScratch;
  // Set by the host once the outputs through the experts are hashed and verified (a CLI
  // run, LayerRun::freeTensorsWhenDead): a kernel may then free a card tensor as soon as
  // its last reader is done with it, e.g. the phased combine frees expert_out after GM2IPC.
  bool freeDeadTensors = false;
  // Set for the whole layer by the same host: a kernel gives back the host pages of rows it
  // has consumed for good (a window row forwarded, an expert row sent, a finished fp32
  // partial), so a tensor read once shrinks while it is read (dropDeadBytes).
  bool dropConsumedRows = false;
  void consumed(const Region& r) const {
    if (dropConsumedRows && r.buf != nullptr) dropDeadBytes(*r.buf, r.offset, r.length);
  }

  int serverOf(int rank) const { return rank / cardsPerServer; }
  int localOf(int rank) const { return rank % cardsPerServer; }
  int rankOfInstance(int instance) const { return instance / placePerRank; }
  // Token t's dispatch channel, and the first token of channel ch (BS when ch == channels).
  int channelOf(int token) const {
    return static_cast<int>(static_cast<std::int64_t>(token) * channels / tokensPerRank);
  }
  int channelFirst(int ch) const {
    return static_cast<int>((static_cast<std::int64_t>(ch) * tokensPerRank + channels - 1) /
                            channels);
  }
  // Columns of one source's row of recvCounts, and where each count sits in it.
  int countCols() const { return channels * (2 + placePerRank); }
  int colToRank(int ch) const { return ch; }
  int colToServer(int ch) const { return channels + ch; }
  int colRows(int le, int ch) const { return 2 * channels + le * channels + ch; }

  // One int32/f32/u8 element of a card tensor.
  template <typename T>
  T& at(Buffer* b, std::int64_t i) const {
    return b->as<T>()[i];
  }
};

}  // namespace moe
