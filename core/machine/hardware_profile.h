#pragma once
// A hardware profile: the numbers the machine model runs on. Built-ins live as JSON in
// resources/profiles/ (each field with its source) and every field can be overridden by a
// scenario. Bandwidths are GB/s (1e9 B/s); times are nanoseconds; sizes are bytes.

#include <cstdint>
#include <string>
#include <vector>

namespace moe {

struct HardwareProfile {
  std::string name = "ascend-910b3";
  // Inside a server: "hccs-mesh" (one link per ordered card pair at hccs_gbps_per_pair),
  // "supernode" (A3 dies, modelled as the same pair mesh) or "switch" (every card has one
  // port per direction at port_gbps into a non-blocking switch, as NVSwitch).
  std::string fabric = "hccs-mesh";
  // Which Ascend product family the part belongs to, as the CANN operator documents name
  // them: "A2" (910B), "A3" (910C, one rank per die) or "none" (not an Ascend part). It picks
  // the real operators' documented limits (resources/operators/); not overridable.
  std::string product = "A2";

  int aicCores = 20;              // cube cores per card
  int aivCores = 40;              // vector cores per card
  std::int64_t ubBytes = 196608;  // unified buffer per AIV core
  std::int64_t l1Bytes = 524288;
  std::int64_t l0aBytes = 65536;
  std::int64_t l0bBytes = 65536;
  std::int64_t l0cBytes = 131072;
  int clockMhz = 1800;
  int cubeMacsPerCycle = 4096;    // 16x16x16 fp16 MACs per cycle per AIC
  int vectorBytesPerCycle = 256;  // AIV vector width
  std::int64_t hbmBytes = 68719476736;
  double hbmGBps = 1600.0;
  int cardsPerServer = 8;
  double hccsGBpsPerPair = 56.0;  // per direction, per peer pair (fabric hccs-mesh/supernode)
  double portGBps = 392.0;        // per direction, one card's switch port (fabric switch)
  int hccsLatencyNs = 1000;       // one-way latency of the intra-server fabric, any kind
  double nicGBps = 25.0;          // RoCE 200 Gb/s per NPU
  int rdmaLatencyNs = 3000;
  int rdmaPostNs = 1500;          // issue cost of one RDMA post, paid by the posting core
  double mteGBpsPerCore = 100.0;  // one core's DMA engine (MTE2/MTE3) port
  int dmaAlignBytes = 32;         // DataCopy length/address alignment
  int gmLatencyNs = 500;          // one scalar read or write of local GM
  int pollLatencyNs = 200;        // from a watched word changing to the waiter resuming
  int syncAllNs = 5000;           // one cross-card SyncAll barrier, after the last arrival

  // Field names in JSON (snake_case) in declaration order, for validation messages,
  // the editor and docs. Defined in hardware_profile.cpp.
  static const std::vector<std::string>& fieldNames();

  bool operator==(const HardwareProfile&) const = default;
};

// The built-in profile names, in name order: one per file in resources/profiles/ (the
// default scenario uses ascend-910b3).
std::vector<std::string> builtinProfileNames();

// Loads a built-in profile by name. Throws InputError("hardware.profile", ...) if unknown.
HardwareProfile builtinProfile(const std::string& name);

}  // namespace moe
