#pragma once
// The shape of the emulated cluster and whether token bytes really move. The machine needs
// both to build itself; the scenario holds them. Kept in a header of its own, depending on
// nothing, so the machine never has to know what a scenario is.

namespace moe {

enum class PayloadMode { Full, None };

struct ClusterShape {
  int servers = 2;
  int cardsPerServer = 8;  // must equal the profile's cardsPerServer
  int ranks() const { return servers * cardsPerServer; }
  bool operator==(const ClusterShape&) const = default;
};

}  // namespace moe
