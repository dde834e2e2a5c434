#include "ui/models/selection.h"

#include "ui/widgets/palette.h"

namespace moe::ui {

namespace {

QString q(const std::string& s) { return QString::fromStdString(s).toHtmlEscaped(); }

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
    case Activity::Idle: what = "has no program yet"; break;
    case Activity::Done: what = "has finished its program"; break;
    case Activity::Copy: what = "is moving data (DMA or RDMA)"; break;
    case Activity::Vector: what = "is computing on the vector unit"; break;
    case Activity::Cube: what = "is computing on the cube unit"; break;
    case Activity::WaitSpace:
    case Activity::WaitData:
    case Activity::WaitSync:
      what = c.waitText.empty() ? QString("is %1").arg(activityText(c.activity)) : q(c.waitText);
      break;
    case Activity::Count: break;
  }
  return QString("%1: %2 (since %3, now %4).").arg(who, what, timeText(c.since), timeText(s.now));
}

QString ringHeadline(const RingSnap& r) {
  const std::int64_t used = r.occupied();
  const double pct = r.capacity > 0 ? 100.0 * static_cast<double>(used) / static_cast<double>(r.capacity) : 0;
  QString state = used == 0 ? "empty" : used >= r.capacity ? "full" : QString("%1% full").arg(pct, 0, 'f', 0);
  return QString("%1 ring on card %2, fed from card %3: %4 (%5 of %6 in flight, %7 records).")
      .arg(r.kind == RingKind::Ipc ? "IPC" : "RDMA")
      .arg(r.consumerCard)
      .arg(r.producerCard)
      .arg(state, bytesText(static_cast<double>(used)), bytesText(static_cast<double>(r.capacity)))
      .arg(r.recordsInFlight);
}

}  // namespace

QString linkName(const LinkSnap& l) {
  switch (l.kind) {
    case LinkInfo::Kind::Hccs: return QString("HCCS card %1 -> card %2").arg(l.srcCard).arg(l.dstCard);
    case LinkInfo::Kind::NicTx: return QString("RDMA NIC tx of card %1").arg(l.srcCard);
    case LinkInfo::Kind::NicRx: return QString("RDMA NIC rx of card %1").arg(l.srcCard);
    default: return QString("link of card %1").arg(l.srcCard);
  }
}

QString coreTooltip(const Snapshot& s, const CoreSnap& c) { return coreHeadline(s, c); }

QString ringTooltip(const RingSnap& r) {
  return ringHeadline(r) + "\n" + QString::fromStdString(r.description);
}

QString linkTooltip(const LinkSnap& l) {
  return QString("%1: carrying %2 GB/s of %3 GB/s (%4% load); %5 carried so far.")
      .arg(linkName(l))
      .arg(l.rateGBps, 0, 'f', 1)
      .arg(l.capacityGBps, 0, 'f', 0)
      .arg(100.0 * l.load(), 0, 'f', 0)
      .arg(bytesText(l.bytesCarried));
}

QString describeSelection(const Snapshot& s, const Selection& sel) {
  QString html;
  switch (sel.kind) {
    case Selection::Kind::None:
      return "<p>Click a card, core, ring or link to see what it is doing.</p>";
    case Selection::Kind::Card: {
      if (sel.id < 0 || sel.id >= static_cast<int>(s.cards.size())) break;
      const CardSnap& card = s.cards[sel.id];
      int busy = 0, waiting = 0, done = 0;
      for (const CoreSnap& c : s.cores) {
        if (c.card != card.id) continue;
        busy += c.activity == Activity::Copy || c.activity == Activity::Vector || c.activity == Activity::Cube;
        waiting += c.activity == Activity::WaitSpace || c.activity == Activity::WaitData ||
                   c.activity == Activity::WaitSync;
        done += c.activity == Activity::Done;
      }
      int rings = 0;
      for (const RingSnap& r : s.rings) rings += r.consumerCard == card.id;
      html = QString("<p><b>Card %1</b> (server %2, slot %3): %4 cores working, %5 waiting, %6 done; "
                     "it receives through %7 rings.</p>")
                 .arg(card.id).arg(card.server).arg(card.local).arg(busy).arg(waiting).arg(done).arg(rings);
      return html;
    }
    case Selection::Kind::Core: {
      if (sel.id < 0 || sel.id >= static_cast<int>(s.cores.size())) break;
      const CoreSnap& c = s.cores[sel.id];
      html = "<p><b>" + coreHeadline(s, c) + "</b></p><p>Time so far by activity:</p><ul>";
      for (int a = 0; a < static_cast<int>(Activity::Count); ++a)
        if (c.timeIn[a] > 0) html += QString("<li>%1: %2</li>").arg(activityText(static_cast<Activity>(a)), timeText(c.timeIn[a]));
      html += "</ul>";
      for (const RingSnap& r : s.rings) {
        if (r.producerCore == c.id) html += "<p>Produces into: " + q(r.description) + "</p>";
        if (r.consumerCore == c.id) html += "<p>Consumes from: " + q(r.description) + "</p>";
      }
      return html;
    }
    case Selection::Kind::Ring: {
      const RingSnap* r = nullptr;
      for (const RingSnap& x : s.rings)
        if (x.id == sel.id) r = &x;
      if (!r) break;
      html = "<p><b>" + ringHeadline(*r) + "</b></p><p>" + q(r->description) + "</p>";
      html += QString("<p>Head %1 (consumer has freed up to here), tail %2 (producer has published up to "
                      "here), producer tail %3 (written, maybe not yet published), cached head %4 (the "
                      "producer's last look at head: it re-reads only when it runs out of space), "
                      "read cursor %5.</p>")
                  .arg(r->head).arg(r->tail).arg(r->producerTail).arg(r->cachedHead).arg(r->consumerCursor);
      if (r->recordsInFlight > 0)
        html += QString("<p>Rows in flight: from rank %1 token %2 to rank %3 token %4.</p>")
                    .arg(r->firstSrcRank).arg(r->firstToken).arg(r->lastSrcRank).arg(r->lastToken);
      html += QString("<p>So far: %1 written, %2 records, %3 wraps, peak %4, %5 space waits, %6 data waits, "
                      "%7 remote head re-reads.</p>")
                  .arg(bytesText(static_cast<double>(r->stats.bytesWritten)))
                  .arg(r->stats.recordsWritten).arg(r->stats.wraps)
                  .arg(bytesText(static_cast<double>(r->stats.peakOccupancy)))
                  .arg(r->stats.spaceWaits).arg(r->stats.dataWaits).arg(r->stats.headRereads);
      return html;
    }
    case Selection::Kind::Link: {
      if (sel.id < 0 || sel.id >= static_cast<int>(s.links.size())) break;
      return "<p><b>" + linkTooltip(s.links[sel.id]) + "</b></p>";
    }
  }
  return "<p>The selected element does not exist in this run.</p>";
}

}  // namespace moe::ui
