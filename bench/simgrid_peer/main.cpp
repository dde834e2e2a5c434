// simgrid_peer TRACE [--design NAME] [--first N] [--latency-after] [--cfg=name:value ...]
//
// Replays one design's transfers, exported by `moe-sim run --export-transfers TRACE`,
// through this project's flow model and through SimGrid's s4u engine, in this process, and
// prints each engine's wall time per transfer, their ratio and both completion times of
// the last transfer. Both are max-min sharing, so those times should agree within 1%.
// SimGrid runs its CM02 model (plain max-min: no bandwidth or latency factors, no TCP
// window bound, no cross traffic), timing to 0.1 ps (transfers start picoseconds apart),
// unless --cfg options say otherwise.
// --first N: only the first N transfers (in start order), for a trace too long for SimGrid.
// --latency-after: SimGrid's links carry no latency; each transfer's is added after its
// last byte, as this project's machine does (otherwise the links carry the profile's).

#include <algorithm>
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/simgrid_peer/flow_replay.h"
#include "bench/simgrid_peer/simgrid_replay.h"
#include "bench/simgrid_peer/transfer_trace.h"

namespace {

struct Options {
  std::string trace;
  std::string design;
  bool latencyAfter = false;
  std::size_t first = 0;  // 0: every transfer
  std::vector<std::string> simgridArgs{"simgrid_peer", "--cfg=network/model:CM02",
                                       "--cfg=network/crosstraffic:0", "--cfg=network/TCP-gamma:0",
                                       "--cfg=surf/precision:1e-13"};
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--design" && i + 1 < argc)
      o.design = argv[++i];
    else if (a == "--first" && i + 1 < argc)
      o.first = std::stoul(argv[++i]);
    else if (a == "--latency-after")
      o.latencyAfter = true;
    else if (a.rfind("--cfg=", 0) == 0 || a.rfind("--log=", 0) == 0)
      o.simgridArgs.push_back(a);
    else if (o.trace.empty() && a[0] != '-')
      o.trace = a;
    else
      throw std::runtime_error("unknown argument " + a);
  }
  if (o.trace.empty())
    throw std::runtime_error(
        "usage: simgrid_peer TRACE [--design NAME] [--first N] [--latency-after] "
        "[--cfg=name:value ...]");
  return o;
}

double last(const std::vector<double>& v) {
  double m = 0;
  for (double x : v) m = std::max(m, x);
  return m;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    Options o = parse(argc, argv);
    peer::TransferTrace trace = peer::readTransferTrace(o.trace, o.design);
    if (o.first > 0 && o.first < trace.transfers.size()) trace.transfers.resize(o.first);
    const double n = static_cast<double>(trace.transfers.size());
    std::printf("trace %s: design %s, %zu transfers, %zu resources, %d cards\n", o.trace.c_str(),
                trace.design.c_str(), trace.transfers.size(), trace.resources.size(), trace.cards);
    const peer::ReplayResult ours = peer::replayOnFlowNetwork(trace);
    std::vector<char*> args;
    for (std::string& s : o.simgridArgs) args.push_back(s.data());
    args.push_back(nullptr);
    const peer::SimGridResult theirs = peer::replayOnSimGrid(
        trace, static_cast<int>(args.size()) - 1, args.data(), !o.latencyAfter);
    std::printf("this engine: %.3f s wall, %.1f ns per transfer (CPU %.1f ns)\n", ours.wallSeconds,
                ours.wallSeconds / n * 1e9, ours.cpuSeconds / n * 1e9);
    std::printf("SimGrid:     %.3f s wall, %.1f ns per transfer (CPU %.1f ns)\n",
                theirs.wallSeconds, theirs.wallSeconds / n * 1e9, theirs.cpuSeconds / n * 1e9);
    std::printf("ratio (this engine / SimGrid): %.4f\n", ours.wallSeconds / theirs.wallSeconds);
    std::printf("CPU ratio (this engine / SimGrid): %.4f\n", ours.cpuSeconds / theirs.cpuSeconds);
    const double a = last(ours.landSeconds), b = last(theirs.landSeconds);
    std::printf("last transfer lands: this engine %.6f us, SimGrid %.6f us (%+.4f%%)\n", a * 1e6,
                b * 1e6, (a - b) / b * 100);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "simgrid_peer: %s\n", e.what());
    return 2;
  }
}
