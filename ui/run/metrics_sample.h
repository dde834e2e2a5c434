#pragma once
// One point of the metrics charts (link bandwidth by type, ring and workspace-stage
// occupancy, busy vs waiting cores), sampled by the worker on a grid of emulated time.

#include "core/engine/time.h"

namespace moe::ui {

struct MetricsSample {
  Time t = 0;
  double hccsGBps = 0;  // summed current rate over all HCCS pair links
  double nicGBps = 0;   // summed over NIC tx links (RDMA)
  double hbmGBps = 0;
  double ringBytes = 0;  // bytes in flight over all rings
  double ringFill = 0;   // ringBytes / total ring capacity
  double stageFill = 0;  // workspace-stage bytes holding data / all workspace-stage bytes
  int busyCores = 0;
  int waitingCores = 0;
};

}  // namespace moe::ui
