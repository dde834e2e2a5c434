#pragma once
// Reads the file `moe-sim run --export-transfers` writes: the resource table from its '#'
// lines and one design's transfers from its CSV rows.

#include <cstdint>
#include <string>
#include <vector>

namespace peer {

struct Resource {
  std::string kind;  // hbm, mte, hccs, switch-tx, switch-rx, nic-tx, nic-rx
  std::string name;
  int srcCard = -1;
  int dstCard = -1;
  double bytesPerSecond = 0;
  std::int64_t latencyPs = 0;
};

struct Transfer {
  std::int64_t startPs = 0;
  std::int64_t bytes = 0;
  std::int64_t latencyPs = 0;
  std::vector<int> path;  // resource ids
};

struct TransferTrace {
  std::string design;
  std::vector<Resource> resources;  // by id
  std::vector<Transfer> transfers;  // in start order
  int cards = 0;
};

// This process's CPU time: on a shared host, a busy neighbour slows the wall clock of
// whichever engine runs at the time, not its CPU time.
double cpuSeconds();

// `design` empty: the first design in the file. Throws std::runtime_error naming the line.
TransferTrace readTransferTrace(const std::string& file, const std::string& design);

}  // namespace peer
