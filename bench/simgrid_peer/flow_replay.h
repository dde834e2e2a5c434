#pragma once
// Replays a transfer trace through this project's flow model alone: a Simulator and a
// FlowNetwork with the trace's resources, each transfer started at its recorded time. No
// kernels, no machine: what is timed is the bandwidth sharing and its events.

#include <vector>

#include "bench/simgrid_peer/transfer_trace.h"

namespace peer {

struct ReplayResult {
  std::vector<double> landSeconds;  // per transfer: last byte crossed, plus its latency
  double wallSeconds = 0;           // the replay's run, without building the resources
  double cpuSeconds = 0;            // this process's CPU time over the same span
};

ReplayResult replayOnFlowNetwork(const TransferTrace& trace);

}  // namespace peer
