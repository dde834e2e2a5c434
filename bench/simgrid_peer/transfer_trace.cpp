#include "bench/simgrid_peer/transfer_trace.h"

#include <ctime>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace peer {

namespace {

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string field;
  std::istringstream in(s);
  while (std::getline(in, field, sep)) out.push_back(field);
  return out;
}

Resource parseResource(const std::vector<std::string>& f) {
  // resource,id,kind,name,src_card,dst_card,capacity_Bps,latency_ps
  Resource r;
  r.kind = f[2];
  r.name = f[3];
  r.srcCard = std::stoi(f[4]);
  r.dstCard = std::stoi(f[5]);
  r.bytesPerSecond = std::stod(f[6]);
  r.latencyPs = std::stoll(f[7]);
  return r;
}

Transfer parseTransfer(const std::vector<std::string>& f, int resources) {
  // design,start_ps,bytes,latency_ps,path
  Transfer t;
  t.startPs = std::stoll(f[1]);
  t.bytes = std::stoll(f[2]);
  t.latencyPs = std::stoll(f[3]);
  for (const std::string& id : split(f[4], ';')) {
    const int r = std::stoi(id);
    if (r < 0 || r >= resources) throw std::runtime_error("resource id " + id + " out of range");
    t.path.push_back(r);
  }
  if (t.path.empty() || t.bytes <= 0) throw std::runtime_error("a transfer with no path or bytes");
  return t;
}

}  // namespace

double cpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

TransferTrace readTransferTrace(const std::string& file, const std::string& design) {
  std::ifstream in(file);
  if (!in) throw std::runtime_error(file + ": cannot open");
  TransferTrace trace;
  trace.design = design;
  std::string line;
  int lineNo = 0;
  bool header = false;
  try {
    while (std::getline(in, line)) {
      ++lineNo;
      if (line.rfind("# resource,", 0) == 0 && line.rfind("# resource,id,", 0) != 0) {
        const auto f = split(line.substr(2), ',');
        if (f.size() != 8 || std::stoul(f[1]) != trace.resources.size())
          throw std::runtime_error("bad resource line");
        trace.resources.push_back(parseResource(f));
        trace.cards = std::max(trace.cards, trace.resources.back().srcCard + 1);
        continue;
      }
      if (line.empty() || line[0] == '#') continue;
      if (!header) {
        if (line != "design,start_ps,bytes,latency_ps,path")
          throw std::runtime_error("unexpected CSV header");
        header = true;
        continue;
      }
      const auto f = split(line, ',');
      if (f.size() != 5) throw std::runtime_error("expected 5 fields");
      if (trace.design.empty()) trace.design = f[0];
      if (f[0] != trace.design) continue;
      trace.transfers.push_back(parseTransfer(f, static_cast<int>(trace.resources.size())));
    }
  } catch (const std::exception& e) {
    throw std::runtime_error(file + ":" + std::to_string(lineNo) + ": " + e.what());
  }
  if (trace.transfers.empty())
    throw std::runtime_error(file + ": no transfers" +
                             (design.empty() ? std::string() : " of design " + design));
  return trace;
}

}  // namespace peer
