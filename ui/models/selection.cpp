#include "ui/models/selection.h"

#include "ui/style/palette.h"

namespace moe::ui {

namespace {

QString q(const std::string& s) {
  return QString::fromStdString(s).toHtmlEscaped();
}

QString capitalized(QString s) {
  if (!s.isEmpty()) s[0] = s[0].toUpper();
  return s;
}

QString coreHeadline(const Snapshot& s, const CoreSnap& c) {
  const QString who = QString("%1 %2 core %3 of card %4")
                          .arg(capitalized(roleText(c.role)), c.cube ? "AIC" : "AIV")
                          .arg(c.index)
                          .arg(c.card);
  QString what;
  switch (c.activity) {
    case Activity::Idle:
      what = "has no program yet";
      break;
    case Activity::Done:
      what = "has finished its program";
      break;
    case Activity::Copy:
      what = "is moving data (DMA or RDMA)";
      break;
    case Activity::Vector:
      what = "is computing on the vector unit";
      break;
    case Activity::Cube:
      what = "is computing on the cube unit";
      break;
    case Activity::WaitSpace:
    case Activity::WaitData:
    case Activity::WaitSync:
      what = c.waitText.empty() ? QString("is %1").arg(activityText(c.activity)) : q(c.waitText);
      break;
    case Activity::Count:
      break;
  }
  return QString("%1: %2 (since %3, now %4).").arg(who, what, timeText(c.since), timeText(s.now));
}

QString ringHeadline(const RingSnap& r) {
  const std::int64_t used = r.occupied();
  const double pct =
      r.capacity > 0 ? 100.0 * static_cast<double>(used) / static_cast<double>(r.capacity) : 0;
  QString state = used == 0            ? "empty"
                  : used >= r.capacity ? "full"
                                       : QString("%1% full").arg(pct, 0, 'f', 0);
  return QString("%1 ring on card %2, fed from card %3: %4 (%5 of %6 in flight, %7 records).")
      .arg(r.kind == RingKind::Ipc ? "IPC" : "RDMA")
      .arg(r.consumerCard)
      .arg(r.producerCard)
      .arg(state, bytesText(static_cast<double>(used)), bytesText(static_cast<double>(r.capacity)))
      .arg(r.recordsInFlight);
}

QString stagesHeadline(const StagesSnap& w) {
  int n[static_cast<int>(SlotState::Count)] = {};
  for (SlotState st : w.states) ++n[static_cast<int>(st)];
  return QString(
             "%1 (card %2): %3 of %4 slots in use — %5 filling, %6 full, %7 being read; peak %8.")
      .arg(q(w.name))
      .arg(w.card)
      .arg(w.occupied)
      .arg(w.slotCount())
      .arg(n[static_cast<int>(SlotState::Filling)])
      .arg(n[static_cast<int>(SlotState::Full)])
      .arg(n[static_cast<int>(SlotState::Reading)])
      .arg(w.stats.peakOccupied);
}

}  // namespace

QString roleDescription(Role r) {
  switch (r) {
    case Role::Idle:
      return "Has no program in this stage.";
    case Role::Sender:
      return "Sends rows out of its card: gathers them into UB and writes them into peers' ring "
             "buffers or windows.";
    case Role::Forwarder:
      return "Takes rows from the intra-server rings, reduces or regroups them, and forwards them "
             "to the destination server over RDMA.";
    case Role::Receiver:
      return "Takes rows from the rings into this card, does the final reduction and writes the "
             "outputs.";
    case Role::Mapper:
      return "MoeUpdateExpert: maps logical expert ids to physical instances for its range of "
             "elements.";
    case Role::LayoutExpert:
      return "Layout: counts the tokens routed to each of its experts.";
    case Role::LayoutRank:
      return "Layout: counts the tokens routed to each of its ranks.";
    case Role::Gemm:
      return "Runs matrix multiplications on the cube unit: the experts' FFN in the MoE layer; in "
             "the fused operator, A' tiles from the a2a workspace stages times W, accumulated in "
             "fp32, written into partial-sum stages.";
    case Role::A2A:
      return "All-to-all: pushes its rank's A tiles into the peers' a2a workspace stages (HCCS "
             "copy, or RDMA across servers) and sets each stage's flag behind the data.";
    case Role::ReduceScatter:
      return "Reduce-scatter: sends each partial-sum tile to the rank that owns its rows, or sums "
             "the r partials of an owned output tile in fp32 and writes it as fp16.";
    case Role::Count:
      break;
  }
  return {};
}

QString stagesTooltip(const StagesSnap& w) {
  return stagesHeadline(w);
}

QString slotTooltip(const StagesSnap& w, int slot) {
  if (slot < 0 || slot >= w.slotCount()) return stagesHeadline(w);
  const SlotState st = w.states[static_cast<std::size_t>(slot)];
  const std::int64_t item = w.items[static_cast<std::size_t>(slot)];
  QString what;
  switch (st) {
    case SlotState::Free:
      what = item < 0 ? "free, never used"
                      : QString("free; last held %1, read by all its readers").arg(item);
      break;
    case SlotState::Filling:
      what = QString("claimed for %1: data on its way, flag not set yet").arg(item);
      break;
    case SlotState::Full:
      what = QString("holds %1: flag set, waiting for (more) readers").arg(item);
      break;
    case SlotState::Reading:
      what = QString("holds %1: being read now").arg(item);
      break;
    case SlotState::Count:
      break;
  }
  return QString("%1, slot %2 (%3): %4; used %5 times.")
      .arg(QString::fromStdString(w.name))
      .arg(slot)
      .arg(bytesText(static_cast<double>(w.slotBytes)), what)
      .arg(w.uses[static_cast<std::size_t>(slot)]);
}

QString linkName(const LinkSnap& l) {
  switch (l.kind) {
    case LinkInfo::Kind::Hccs:
      return QString("HCCS card %1 -> card %2").arg(l.srcCard).arg(l.dstCard);
    case LinkInfo::Kind::NicTx:
      return QString("RDMA NIC tx of card %1").arg(l.srcCard);
    case LinkInfo::Kind::NicRx:
      return QString("RDMA NIC rx of card %1").arg(l.srcCard);
    case LinkInfo::Kind::SwitchTx:
      return QString("switch port of card %1, sending").arg(l.srcCard);
    case LinkInfo::Kind::SwitchRx:
      return QString("switch port of card %1, receiving").arg(l.srcCard);
    default:
      return QString("link of card %1").arg(l.srcCard);
  }
}

QString coreTooltip(const Snapshot& s, const CoreSnap& c) {
  return coreHeadline(s, c);
}

QString ringTooltip(const RingSnap& r) {
  return ringHeadline(r) + "\n" + QString::fromStdString(r.description);
}

namespace {
QString oneDirection(const LinkSnap& l) {
  return QString("%1: carrying %2 GB/s of %3 GB/s (%4% load); %5 carried so far.")
      .arg(linkName(l))
      .arg(l.rateGBps, 0, 'f', 1)
      .arg(l.capacityGBps, 0, 'f', 0)
      .arg(100.0 * l.load(), 0, 'f', 0)
      .arg(bytesText(l.bytesCarried));
}
}  // namespace

const LinkSnap* oppositeLink(const Snapshot& s, const LinkSnap& l) {
  for (const LinkSnap& o : s.links) {
    const bool hccsPair = l.kind == LinkInfo::Kind::Hccs && o.kind == LinkInfo::Kind::Hccs &&
                          o.srcCard == l.dstCard && o.dstCard == l.srcCard;
    const bool nicPair = o.srcCard == l.srcCard &&
                         ((l.kind == LinkInfo::Kind::NicTx && o.kind == LinkInfo::Kind::NicRx) ||
                          (l.kind == LinkInfo::Kind::NicRx && o.kind == LinkInfo::Kind::NicTx));
    const bool portPair =
        o.srcCard == l.srcCard &&
        ((l.kind == LinkInfo::Kind::SwitchTx && o.kind == LinkInfo::Kind::SwitchRx) ||
         (l.kind == LinkInfo::Kind::SwitchRx && o.kind == LinkInfo::Kind::SwitchTx));
    if (hccsPair || nicPair || portPair) return &o;
  }
  return nullptr;
}

QString linkTooltip(const Snapshot& s, const LinkSnap& l) {
  const LinkSnap* o = oppositeLink(s, l);
  return o ? oneDirection(l) + "\n" + oneDirection(*o) : oneDirection(l);
}

namespace {
// The Inspector's text for a selected card; empty if it does not exist in `s`.
QString describeCard(const Snapshot& s, int id) {
  QString html;
  if (id < 0 || id >= static_cast<int>(s.cards.size())) return {};
  const CardSnap& card = s.cards[id];
  int busy = 0, waiting = 0, done = 0;
  for (const CoreSnap& c : s.cores) {
    if (c.card != card.id) continue;
    busy += isWorking(c.activity);
    waiting += isWaiting(c.activity);
    done += c.activity == Activity::Done;
  }
  int rings = 0, strips = 0, slotsInUse = 0;
  for (const RingSnap& r : s.rings) rings += r.consumerCard == card.id;
  for (const StagesSnap& w : s.workspace)
    if (w.card == card.id) {
      ++strips;
      slotsInUse += w.occupied;
    }
  html = QString("<p><b>Card %1</b> (server %2, slot %3): %4 cores working, %5 waiting, %6 done; ")
             .arg(card.id)
             .arg(card.server)
             .arg(card.local)
             .arg(busy)
             .arg(waiting)
             .arg(done);
  html += strips > 0 ? QString("%1 workspace-stage strips, %2 slots holding data.</p>")
                           .arg(strips)
                           .arg(slotsInUse)
                     : QString("it receives through %1 rings.</p>").arg(rings);
  return html;
}

// The Inspector's text for a selected core; empty if it does not exist in `s`.
QString describeCore(const Snapshot& s, int id) {
  QString html;
  if (id < 0 || id >= static_cast<int>(s.cores.size())) return {};
  const CoreSnap& c = s.cores[id];
  html = "<p><b>" + coreHeadline(s, c) + "</b></p><p>" + roleDescription(c.role).toHtmlEscaped() +
         "</p><p>Time so far by activity:</p><ul>";
  for (int a = 0; a < static_cast<int>(Activity::Count); ++a)
    if (c.timeIn[a] > 0)
      html += QString("<li>%1: %2</li>")
                  .arg(activityText(static_cast<Activity>(a)), timeText(c.timeIn[a]));
  html += "</ul>";
  for (const RingSnap& r : s.rings) {
    if (r.producerCore == c.id) html += "<p>Produces into: " + q(r.description) + "</p>";
    if (r.consumerCore == c.id) html += "<p>Consumes from: " + q(r.description) + "</p>";
  }
  return html;
}

// The Inspector's text for a selected ring; empty if it does not exist in `s`.
QString describeRing(const Snapshot& s, int id) {
  QString html;
  const RingSnap* r = nullptr;
  for (const RingSnap& x : s.rings)
    if (x.id == id) r = &x;
  if (!r) return {};
  html = "<p><b>" + ringHeadline(*r) + "</b></p><p>" + q(r->description) + "</p>";
  html += QString(
              "<p>Head %1 (consumer has freed up to here), tail %2 (producer has published up to "
              "here), producer tail %3 (written, maybe not yet published), cached head %4 (the "
              "producer's last look at head: it re-reads only when it runs out of space), "
              "read cursor %5.</p>")
              .arg(r->head)
              .arg(r->tail)
              .arg(r->producerTail)
              .arg(r->cachedHead)
              .arg(r->consumerCursor);
  if (r->recordsInFlight > 0)
    html += QString("<p>Rows in flight: from rank %1 token %2 to rank %3 token %4.</p>")
                .arg(r->firstSrcRank)
                .arg(r->firstToken)
                .arg(r->lastSrcRank)
                .arg(r->lastToken);
  html += QString(
              "<p>So far: %1 written, %2 records, %3 wraps, peak %4, %5 space waits, %6 data "
              "waits, "
              "%7 remote head re-reads.</p>")
              .arg(bytesText(static_cast<double>(r->stats.bytesWritten)))
              .arg(r->stats.recordsWritten)
              .arg(r->stats.wraps)
              .arg(bytesText(static_cast<double>(r->stats.peakOccupancy)))
              .arg(r->stats.spaceWaits)
              .arg(r->stats.dataWaits)
              .arg(r->stats.headRereads);
  return html;
}

// The Inspector's text for a selected link; empty if it does not exist in `s`.
QString describeLink(const Snapshot& s, int id) {
  if (id < 0 || id >= static_cast<int>(s.links.size())) return {};
  const LinkSnap& l = s.links[id];
  const LinkSnap* o = oppositeLink(s, l);
  return "<p><b>" + oneDirection(l) + "</b></p>" +
         (o ? "<p><b>" + oneDirection(*o) + "</b></p>" : QString()) +
         "<p>The view draws both directions as one line, coloured by the busier one.</p>";
}

// The Inspector's text for a selected stages; empty if it does not exist in `s`.
QString describeStages(const Snapshot& s, int id) {
  QString html;
  const StagesSnap* w = nullptr;
  for (const StagesSnap& x : s.workspace)
    if (x.id == id) w = &x;
  if (!w) return {};
  html = "<p><b>" + stagesHeadline(*w) + "</b></p>";
  html += QString(
              "<p>Each slot holds %1. A producer claims a free slot, writes the data and sets "
              "the slot's "
              "flag behind it (full); consumers poll the flag, read the slot, and the slot is "
              "free again "
              "once every reader named at the claim has finished. A producer that finds no "
              "free slot "
              "waits: that is how the number of stages bounds the work in flight.</p>")
              .arg(bytesText(static_cast<double>(w->slotBytes)));
  html += QString("<p>So far: %1 fills, %2 reads, at most %3 of %4 slots in use at once.</p>")
              .arg(w->stats.fills)
              .arg(w->stats.reads)
              .arg(w->stats.peakOccupied)
              .arg(w->slotCount());
  return html;
}

}  // namespace

QString describeSelection(const Snapshot& s, const Selection& sel) {
  QString html;
  switch (sel.kind) {
    case Selection::Kind::None:
      return "<p>Click a card, core, ring or link to see what it is doing.</p>";
    case Selection::Kind::Card:
      html = describeCard(s, sel.id);
      break;
    case Selection::Kind::Core:
      html = describeCore(s, sel.id);
      break;
    case Selection::Kind::Ring:
      html = describeRing(s, sel.id);
      break;
    case Selection::Kind::Link:
      html = describeLink(s, sel.id);
      break;
    case Selection::Kind::Stages:
      html = describeStages(s, sel.id);
      break;
  }
  return html.isEmpty() ? "<p>The selected element does not exist in this run.</p>" : html;
}

}  // namespace moe::ui
