#pragma once
// Replays a transfer trace through SimGrid's s4u engine on the same topology: one netzone
// per card holding a host for its GM and one per AI core (the core's DMA port is its link
// to the card's gateway, HBM the GM host's), and between the cards' zones the HCCS pair
// links or switch ports, or NIC tx and rx. Every transfer is a Comm::sendto_async between
// the two hosts whose route crosses exactly its recorded resources (checked).

#include <string>
#include <vector>

#include "bench/simgrid_peer/transfer_trace.h"

namespace peer {

struct SimGridResult {
  std::vector<double> landSeconds;  // per transfer: when its data landed
  double wallSeconds = 0;           // Engine::run only, without building the platform
  double cpuSeconds = 0;            // this process's CPU time over the same span
};

// `argv`: SimGrid's --cfg options. `latencyOnLinks` false: the links carry no latency and
// each transfer's is added after its last byte, as this project's machine does.
SimGridResult replayOnSimGrid(const TransferTrace& trace, int argc, char** argv,
                              bool latencyOnLinks);

}  // namespace peer
