#include "core/machine/transfer_log.h"

#include <cstdio>

#include "core/machine/machine.h"

namespace moe {

namespace {

struct ResourceInfo {
  const char* kind = "?";
  int srcCard = -1;
  int dstCard = -1;
  Time latency = 0;
};

// What each flow resource is: the machine's links, plus one DMA port per core.
std::vector<ResourceInfo> describeResources(const Machine& m) {
  const HardwareProfile& hw = m.hw();
  const Time gm = nanoseconds(hw.gmLatencyNs);
  const Time hccs = nanoseconds(hw.hccsLatencyNs);
  const Time rdma = nanoseconds(hw.rdmaLatencyNs);
  std::vector<ResourceInfo> out(static_cast<std::size_t>(m.net().resourceCount()));
  for (const LinkInfo& l : m.links()) {
    ResourceInfo& r = out[static_cast<std::size_t>(l.resource)];
    switch (l.kind) {
      case LinkInfo::Kind::Hbm:
        r = {"hbm", l.srcCard, l.dstCard, gm};
        break;
      case LinkInfo::Kind::MtePort:
        r = {"mte", l.srcCard, l.dstCard, gm};
        break;
      case LinkInfo::Kind::Hccs:
        r = {"hccs", l.srcCard, l.dstCard, hccs};
        break;
      case LinkInfo::Kind::SwitchTx:
        r = {"switch-tx", l.srcCard, l.dstCard, hccs};
        break;
      case LinkInfo::Kind::SwitchRx:
        r = {"switch-rx", l.srcCard, l.dstCard, hccs};
        break;
      case LinkInfo::Kind::NicTx:
        r = {"nic-tx", l.srcCard, l.dstCard, rdma};
        break;
      case LinkInfo::Kind::NicRx:
        r = {"nic-rx", l.srcCard, l.dstCard, rdma};
        break;
    }
  }
  for (int c = 0; c < m.coreCount(); ++c) {
    const AiCore& core = m.core(c);
    out[static_cast<std::size_t>(core.mtePort())] = {"mte", core.card(), core.card(), gm};
  }
  return out;
}

}  // namespace

void writeTransferCsv(std::ostream& out, const Machine& m, const std::vector<TransferLog>& logs) {
  const std::vector<ResourceInfo> info = describeResources(m);
  out << "# moe-sim transfer trace: " << m.cardCount() << " cards, " << info.size()
      << " resources; capacity in bytes per second, times in ps\n";
  out << "# resource,id,kind,name,src_card,dst_card,capacity_Bps,latency_ps\n";
  char line[512];
  for (std::size_t id = 0; id < info.size(); ++id) {
    const ResourceInfo& r = info[id];
    const NetResource& res = m.net().resource(static_cast<int>(id));
    std::snprintf(line, sizeof line, "# resource,%zu,%s,%s,%d,%d,%.17g,%lld\n", id, r.kind,
                  res.name.c_str(), r.srcCard, r.dstCard, res.gbps * 1e9,
                  static_cast<long long>(r.latency));
    out << line;
  }
  out << "design,start_ps,bytes,latency_ps,path\n";
  for (const TransferLog& log : logs)
    for (const TransferRecord& t : log.transfers) {
      out << log.design << ',' << t.start << ',' << t.bytes << ',' << t.latency << ',';
      for (int i = 0; i < t.path.size(); ++i) out << (i ? ";" : "") << t.path[i];
      out << '\n';
    }
}

}  // namespace moe
