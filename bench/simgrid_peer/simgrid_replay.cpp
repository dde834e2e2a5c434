#include "bench/simgrid_peer/simgrid_replay.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <map>
#include <set>
#include <stdexcept>

#include <simgrid/s4u.hpp>

namespace sg4 = simgrid::s4u;
using simgrid::kernel::routing::NetPoint;

namespace peer {

namespace {

constexpr double kHostSpeed = 1e9;  // flops; no host computes here
constexpr double kFatPipe = 1e18;   // B/s: a link that carries only a latency

std::vector<sg4::LinkInRoute> route(std::initializer_list<const sg4::Link*> links) {
  std::vector<sg4::LinkInRoute> out;
  for (const sg4::Link* l : links) out.emplace_back(l);
  return out;
}

struct CardZone {
  sg4::NetZone* zone = nullptr;
  NetPoint* gateway = nullptr;
  sg4::Host* gm = nullptr;
  sg4::Host* loop = nullptr;  // the far end of an RDMA from a card to itself
};

// The platform: built once from the trace's resources and the routes its transfers take.
class Platform {
 public:
  Platform(const TransferTrace& trace, bool latencyOnLinks);
  std::pair<sg4::Host*, sg4::Host*> endpoints(const Transfer& t);
  void checkRoute(const Transfer& t, sg4::Host* from, sg4::Host* to);

 private:
  sg4::Link* makeLink(sg4::NetZone* zone, const Resource& r, double latency);
  void buildCard(int card);
  void addInterCardRoute(const Transfer& t);
  double latency(const Resource& r) const { return latencyOnLinks_ ? r.latencyPs * 1e-12 : 0; }

  const TransferTrace& trace_;
  bool latencyOnLinks_;
  sg4::NetZone* root_ = nullptr;
  std::vector<CardZone> cards_;
  std::vector<sg4::Link*> links_;        // by resource id
  std::map<const sg4::Link*, int> ids_;  // back from a link to its resource
  std::map<int, sg4::Host*> coreHosts_;  // by DMA port resource id
  std::set<std::pair<int, int>> interCard_;
  std::set<std::pair<const sg4::Host*, const sg4::Host*>> checked_;
};

sg4::Link* Platform::makeLink(sg4::NetZone* zone, const Resource& r, double lat) {
  sg4::Link* l = zone->create_link(r.name, r.bytesPerSecond)->set_latency(lat)->seal();
  links_[static_cast<std::size_t>(&r - trace_.resources.data())] = l;
  ids_[l] = static_cast<int>(&r - trace_.resources.data());
  return l;
}

void Platform::buildCard(int card) {
  CardZone& z = cards_[static_cast<std::size_t>(card)];
  const std::string name = "card" + std::to_string(card);
  z.zone = sg4::create_full_zone(name)->set_parent(root_);
  z.gateway = z.zone->create_router(name + ".gw");
  z.gm = z.zone->create_host(name + ".gm", kHostSpeed);
  z.loop = z.zone->create_host(name + ".loop", kHostSpeed);
  const Resource* hbmRes = nullptr;
  for (const Resource& r : trace_.resources)
    if (r.kind == "hbm" && r.srcCard == card) hbmRes = &r;
  if (!hbmRes) throw std::runtime_error(name + " has no hbm resource");
  sg4::Link* hbm = makeLink(z.zone, *hbmRes, 0);
  // A transfer that stays on the card takes the GM latency: a fat pipe carries it.
  sg4::Link* gmLatency = z.zone->create_link(name + ".gm-latency", kFatPipe)
                             ->set_sharing_policy(sg4::Link::SharingPolicy::FATPIPE)
                             ->set_latency(latency(*hbmRes))
                             ->seal();
  z.zone->add_route(z.gm->get_netpoint(), z.gateway, nullptr, nullptr, route({hbm}), true);
  z.zone->add_route(z.gm->get_netpoint(), z.loop->get_netpoint(), nullptr, nullptr,
                    route({hbm, gmLatency}), true);
  for (const Resource& r : trace_.resources) {
    if (r.kind != "mte" || r.srcCard != card) continue;
    sg4::Host* core = z.zone->create_host(r.name, kHostSpeed);
    sg4::Link* port = makeLink(z.zone, r, 0);
    coreHosts_[static_cast<int>(&r - trace_.resources.data())] = core;
    z.zone->add_route(core->get_netpoint(), z.gateway, nullptr, nullptr, route({port}), true);
    z.zone->add_route(core->get_netpoint(), z.gm->get_netpoint(), nullptr, nullptr,
                      route({port, hbm, gmLatency}), true);
  }
  z.zone->seal();
}

Platform::Platform(const TransferTrace& trace, bool latencyOnLinks)
    : trace_(trace), latencyOnLinks_(latencyOnLinks) {
  links_.assign(trace.resources.size(), nullptr);
  root_ = sg4::create_full_zone("cluster");
  cards_.resize(static_cast<std::size_t>(trace.cards));
  for (int c = 0; c < trace.cards; ++c) buildCard(c);
  // Only the first hop of a switch or NIC pair carries the hop's latency.
  for (const Resource& r : trace.resources)
    if (r.kind == "hccs" || r.kind == "switch-tx" || r.kind == "nic-tx")
      makeLink(root_, r, latency(r));
    else if (r.kind == "switch-rx" || r.kind == "nic-rx")
      makeLink(root_, r, 0);
  for (const Transfer& t : trace.transfers) addInterCardRoute(t);
  root_->seal();
}

// The resources of `t` between two cards (HCCS, switch ports, NIC): the route between the
// two cards' zones. Returns the cards through `from`/`to` (-1 when it stays on a card).
void interCardHops(const TransferTrace& trace, const Transfer& t, std::vector<int>& hops, int& from,
                   int& to) {
  hops.clear();
  from = to = -1;
  for (int id : t.path) {
    const Resource& r = trace.resources[static_cast<std::size_t>(id)];
    if (r.kind == "hbm" || r.kind == "mte") continue;
    hops.push_back(id);
    if (r.kind == "hccs") from = r.srcCard, to = r.dstCard;
    if (r.kind == "switch-tx" || r.kind == "nic-tx") from = r.srcCard;
    if (r.kind == "switch-rx" || r.kind == "nic-rx") to = r.srcCard;
  }
  if (!hops.empty() && (from < 0 || to < 0)) throw std::runtime_error("a half inter-card path");
}

void Platform::addInterCardRoute(const Transfer& t) {
  std::vector<int> hops;
  int from, to;
  interCardHops(trace_, t, hops, from, to);
  if (hops.empty() || !interCard_.insert({from, to}).second) return;
  std::vector<sg4::LinkInRoute> links;
  for (int id : hops) links.emplace_back(links_[static_cast<std::size_t>(id)]);
  const CardZone& a = cards_[static_cast<std::size_t>(from)];
  const CardZone& b = cards_[static_cast<std::size_t>(to)];
  root_->add_route(a.zone->get_netpoint(), b.zone->get_netpoint(), a.gateway, b.gateway, links,
                   false);
}

std::pair<sg4::Host*, sg4::Host*> Platform::endpoints(const Transfer& t) {
  std::vector<int> hops;
  int from, to;
  interCardHops(trace_, t, hops, from, to);
  int core = -1, hbmCard = -1;
  for (int id : t.path) {
    const Resource& r = trace_.resources[static_cast<std::size_t>(id)];
    if (r.kind == "mte") core = id;
    if (r.kind == "hbm") hbmCard = r.srcCard;
  }
  if (hops.empty()) {  // on one card: a DMA between a core and GM, or GM to GM
    const CardZone& z = cards_[static_cast<std::size_t>(hbmCard)];
    return core >= 0 ? std::pair{coreHosts_.at(core), z.gm} : std::pair{z.gm, z.loop};
  }
  sg4::Host* src = cards_[static_cast<std::size_t>(from)].gm;
  sg4::Host* dst = cards_[static_cast<std::size_t>(to)].gm;
  if (core >= 0) {  // a DMA writes from its core to the far GM, or reads from it
    const int coreCard = trace_.resources[static_cast<std::size_t>(core)].srcCard;
    (coreCard == from ? src : dst) = coreHosts_.at(core);
  }
  return {src, dst};
}

// The route SimGrid found must cross exactly the recorded resources, with the transfer's
// latency when links carry it: otherwise the comparison would measure a different load.
void Platform::checkRoute(const Transfer& t, sg4::Host* from, sg4::Host* to) {
  if (!checked_.insert({from, to}).second) return;
  std::vector<sg4::Link*> links;
  double lat = 0;
  from->route_to(to, links, &lat);
  std::vector<int> got;
  for (const sg4::Link* l : links)
    if (auto it = ids_.find(l); it != ids_.end()) got.push_back(it->second);
  std::vector<int> want = t.path;
  std::sort(got.begin(), got.end());
  std::sort(want.begin(), want.end());
  const double wantLat = latencyOnLinks_ ? t.latencyPs * 1e-12 : 0;
  if (got != want || std::abs(lat - wantLat) > 1e-15)
    throw std::runtime_error("SimGrid route " + from->get_name() + " -> " + to->get_name() +
                             " does not match the recorded path");
}

}  // namespace

SimGridResult replayOnSimGrid(const TransferTrace& trace, int argc, char** argv,
                              bool latencyOnLinks) {
  sg4::Engine engine(&argc, argv);
  Platform platform(trace, latencyOnLinks);
  const std::size_t n = trace.transfers.size();
  std::vector<std::pair<sg4::Host*, sg4::Host*>> ends;
  ends.reserve(n);
  for (const Transfer& t : trace.transfers) {
    ends.push_back(platform.endpoints(t));
    platform.checkRoute(t, ends.back().first, ends.back().second);
  }
  std::vector<sg4::CommPtr> comms(n);
  sg4::Actor::create("replay", ends.front().first, [&trace, &ends, &comms] {
    for (std::size_t i = 0; i < comms.size(); ++i) {
      const double start = static_cast<double>(trace.transfers[i].startPs) * 1e-12;
      // (Starts a picosecond apart differ by far more than the clock's rounding.)
      if (start - sg4::Engine::get_clock() > 1e-13) sg4::this_actor::sleep_until(start);
      comms[i] = sg4::Comm::sendto_async(ends[i].first, ends[i].second,
                                         static_cast<std::uint64_t>(trace.transfers[i].bytes));
    }
    sg4::Comm::wait_all(comms);
  });
  const auto begin = std::chrono::steady_clock::now();
  const double cpuBegin = cpuSeconds();
  engine.run();
  SimGridResult out;
  out.wallSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  out.cpuSeconds = cpuSeconds() - cpuBegin;
  out.landSeconds.reserve(n);
  for (std::size_t i = 0; i < n; ++i)
    out.landSeconds.push_back(comms[i]->get_finish_time() +
                              (latencyOnLinks ? 0 : trace.transfers[i].latencyPs * 1e-12));
  return out;
}

}  // namespace peer
