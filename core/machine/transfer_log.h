#pragma once
// A record of every transfer the machine hands to its flow network: when it started, its
// bytes, its fixed landing latency and the resources it crosses. `moe-sim run
// --export-transfers` writes it, with the resources, so another flow engine can replay the
// same load (bench/simgrid_peer). Recording happens where the machine starts a transfer, so
// the log does not depend on how the network shares bandwidth.

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "core/engine/time.h"
#include "core/machine/flow_network.h"

namespace moe {

class Machine;

struct TransferRecord {
  Time start;
  std::int64_t bytes;
  Time latency;  // from the last byte crossing to the data landing
  FlowPath path;
};

// One run's transfers, in the order the machine started them.
struct TransferLog {
  std::string design;
  std::vector<TransferRecord> transfers;
};

// The resource table of `m` as '#' comment lines (id, kind, name, cards, capacity in bytes
// per second, and the profile's latency for its kind in ps), then a CSV of every log's
// transfers: design, start_ps, bytes, latency_ps (the transfer's own) and path (resource
// ids joined by ';').
void writeTransferCsv(std::ostream& out, const Machine& m, const std::vector<TransferLog>& logs);

}  // namespace moe
