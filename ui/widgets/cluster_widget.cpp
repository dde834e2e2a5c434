#include "ui/widgets/cluster_widget.h"

#include "ui/style/chrome.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <algorithm>
#include <cmath>
#include <numbers>

#include "ui/style/palette.h"
#include "ui/widgets/card_view.h"
#include "ui/widgets/view_registry.h"

namespace moe::ui {

namespace {
constexpr double kCardR = 20;
constexpr double kFabricH = 40;

double segmentDistance(const QPointF& p, const QPointF& a, const QPointF& b) {
  const QPointF ab = b - a;
  const double len2 = QPointF::dotProduct(ab, ab);
  const double t = len2 > 0 ? std::clamp(QPointF::dotProduct(p - a, ab) / len2, 0.0, 1.0) : 0.0;
  const QPointF d = p - (a + t * ab);
  return std::hypot(d.x(), d.y());
}
}  // namespace

ClusterWidget::ClusterWidget(QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);
  setMinimumSize(400, 300);
}

void ClusterWidget::setSnapshot(std::shared_ptr<const Snapshot> s) {
  snap_ = std::move(s);
  update();
}

void ClusterWidget::setSelectedCard(int card) {
  selected_ = card;
  update();
}

void ClusterWidget::setSelectedLink(int link) {
  selectedLink_ = link;
  update();
}

QString ClusterWidget::headerText() const {
  if (!snap_) return {};
  return tr("%1 %2 x %3 cards at %4 — link colour = current load (grey idle, green "
            "light, red saturated); click a card to open it")
      .arg(snap_->servers)
      .arg(snap_->servers == 1 ? tr("server") : tr("servers"))
      .arg(snap_->cardsPerServer)
      .arg(timeText(snap_->now));
}

int ClusterWidget::headerHeight() const {
  // Every card's and link's position depends on it, so a paint asks hundreds of times:
  // wrapping the text each time was half of the window's paint time during a Run.
  const QString text = headerText();
  const int wrapWidth = std::max(50, width() - 16);
  if (header_.height < 0 || header_.width != wrapWidth || header_.font != font() ||
      header_.text != text) {
    // The line wraps on a narrow (or presenter-scaled) view instead of running off the edge.
    const QRect need =
        fontMetrics().boundingRect(QRect(0, 0, wrapWidth, 1000), Qt::TextWordWrap, text);
    header_ = {text, wrapWidth, font(), std::max(26, need.height() + 8)};
  }
  return header_.height;
}

QRectF ClusterWidget::serverRect(int server) const {
  const int n = std::max(1, snap_ ? snap_->servers : 1);
  const int cols = n <= 4 ? n : static_cast<int>(std::ceil(std::sqrt(n)));
  const int rows = (n + cols - 1) / cols;
  const double w = width() / static_cast<double>(cols);
  const int top = headerHeight();
  const double h = (height() - kFabricH - top - 4) / static_cast<double>(rows);
  return QRectF((server % cols) * w + 8, top + (server / cols) * h + 4, w - 16, h - 8);
}

QRectF ClusterWidget::fabricRect() const {
  return {width() * 0.25, height() - kFabricH + 6, width() * 0.5, kFabricH - 12};
}

QPointF ClusterWidget::fabricPoint(int card) const {
  const QRectF f = fabricRect();
  // The card's position across the view, scaled onto the box: the ends spread out in the
  // cards' order instead of piling up at the box's corners.
  const double across = std::clamp(cardCentre(card).x() / std::max(1, width()), 0.0, 1.0);
  return {f.left() + 8 + across * (f.width() - 16), f.top()};
}

QPointF ClusterWidget::linkEnd(const LinkSnap& l) const {
  switch (l.kind) {
    case LinkInfo::Kind::Hccs:
      return cardCentre(l.dstCard);
    case LinkInfo::Kind::SwitchTx:
    case LinkInfo::Kind::SwitchRx:  // the switch sits in the middle of its server
      return serverRect(snap_->cards[l.srcCard].server).center() + QPointF(0, 8);
    default:
      return fabricPoint(l.srcCard);
  }
}

QPointF ClusterWidget::cardCentre(int card) const {
  if (!snap_ || card < 0 || card >= static_cast<int>(snap_->cards.size())) return {};
  const CardSnap& c = snap_->cards[card];
  const QRectF box = serverRect(c.server);
  const double r = std::min(box.width(), box.height()) / 2 - kCardR - 14;
  const double a =
      2 * std::numbers::pi * c.local / std::max(1, snap_->cardsPerServer) - std::numbers::pi / 2;
  return box.center() + QPointF(r * std::cos(a), r * std::sin(a) + 8);
}

int ClusterWidget::cardAt(const QPointF& p) const {
  if (!snap_) return -1;
  for (const CardSnap& c : snap_->cards) {
    const QPointF d = p - cardCentre(c.id);
    if (std::hypot(d.x(), d.y()) <= kCardR) return c.id;
  }
  return -1;
}

int ClusterWidget::linkAt(const QPointF& p) const {
  if (!snap_) return -1;
  int best = -1;
  double bestD = 5;
  for (std::size_t i = 0; i < snap_->links.size(); ++i) {
    const LinkSnap& l = snap_->links[i];
    const QPointF a = cardCentre(l.srcCard);
    const double d = segmentDistance(p, a, linkEnd(l));
    if (d < bestD) {
      bestD = d;
      best = static_cast<int>(i);
    }
  }
  return best;
}

void ClusterWidget::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing);
  p.fillRect(rect(), palette().base());
  if (!snap_) return;
  p.setPen(palette().text().color());
  p.drawText(QRectF(8, 4, width() - 16, headerHeight() - 4),
             Qt::AlignLeft | Qt::AlignVCenter | Qt::TextWordWrap, headerText());
  paintServers(p);
  paintLinks(p);
  paintSelectedLink(p);
  // The fabric after its lines, which end on its top edge: its name stays readable.
  p.setBrush(fabricFill());
  p.setPen(QPen(fabricLine(), 1));
  p.drawRoundedRect(fabricRect(), 6, 6);
  p.setPen(palette().text().color());
  p.drawText(fabricRect(), Qt::AlignCenter, tr("RoCE RDMA fabric"));
  for (const CardSnap& c : snap_->cards) paintCard(p, c);
}

void ClusterWidget::paintServers(QPainter& p) const {
  for (int s = 0; s < snap_->servers; ++s) {
    p.setPen(QPen(frameLine(), 1));
    p.setBrush(serverFill());
    p.drawRoundedRect(serverRect(s), 8, 8);
    p.setPen(palette().text().color());
    p.drawText(serverRect(s).adjusted(8, 4, 0, 0), Qt::AlignTop | Qt::AlignLeft,
               tr("server %1").arg(s));
  }
}

void ClusterWidget::paintLinks(QPainter& p) const {
  // Links first so the cards sit on top. A pair's two directions share one chord showing
  // the busier one; a card's switch ports share one spoke to its server's switch, and its
  // NIC one dashed line to the fabric, each showing the busier of tx and rx.
  std::vector<double> nicLoad(snap_->cards.size(), 0.0), portLoad(snap_->cards.size(), -1.0);
  for (const LinkSnap& l : snap_->links) {
    if (l.kind == LinkInfo::Kind::Hccs) {
      if (l.srcCard > l.dstCard) continue;
      double load = l.load();
      for (const LinkSnap& o : snap_->links)
        if (o.kind == LinkInfo::Kind::Hccs && o.srcCard == l.dstCard && o.dstCard == l.srcCard)
          load = std::max(load, o.load());
      p.setPen(QPen(loadColor(load), 1.0 + 4.0 * load));
      p.drawLine(cardCentre(l.srcCard), cardCentre(l.dstCard));
    } else if (l.kind == LinkInfo::Kind::SwitchTx || l.kind == LinkInfo::Kind::SwitchRx) {
      portLoad[l.srcCard] = std::max(portLoad[l.srcCard], l.load());
    } else if (l.kind == LinkInfo::Kind::NicTx || l.kind == LinkInfo::Kind::NicRx) {
      nicLoad[l.srcCard] = std::max(nicLoad[l.srcCard], l.load());
    }
  }
  std::vector<bool> hasSwitch(static_cast<std::size_t>(snap_->servers), false);
  for (const CardSnap& c : snap_->cards) {
    if (portLoad[c.id] < 0) continue;
    hasSwitch[static_cast<std::size_t>(c.server)] = true;
    p.setPen(QPen(loadColor(portLoad[c.id]), 1.0 + 4.0 * portLoad[c.id]));
    p.drawLine(cardCentre(c.id), serverRect(c.server).center() + QPointF(0, 8));
  }
  for (int s = 0; s < snap_->servers; ++s) {
    if (!hasSwitch[static_cast<std::size_t>(s)]) continue;
    const QString name = tr("switch");
    const QSizeF box(fontMetrics().horizontalAdvance(name) + 16, fontMetrics().height() + 8);
    const QRectF sw(serverRect(s).center() + QPointF(-box.width() / 2, 8 - box.height() / 2), box);
    p.setBrush(fabricFill());
    p.setPen(QPen(fabricLine(), 1));
    p.drawRoundedRect(sw, 6, 6);
    p.setPen(palette().text().color());
    p.drawText(sw, Qt::AlignCenter, name);
  }
  if (snap_->servers > 1)
    for (const CardSnap& c : snap_->cards) {
      p.setPen(QPen(loadColor(nicLoad[c.id]), 1.0 + 4.0 * nicLoad[c.id], Qt::DashLine));
      p.drawLine(cardCentre(c.id), fabricPoint(c.id));
    }
}

void ClusterWidget::paintSelectedLink(QPainter& p) const {
  // The selected link over the others: a black outline around its load colour, thicker,
  // so it stands out among a server's chords.
  if (selectedLink_ >= 0 && selectedLink_ < static_cast<int>(snap_->links.size())) {
    const LinkSnap& l = snap_->links[static_cast<std::size_t>(selectedLink_)];
    const QPointF a = cardCentre(l.srcCard), b = linkEnd(l);
    const double w = 1.0 + 4.0 * l.load();
    p.setPen(QPen(selectionInk(), w + 6, Qt::SolidLine, Qt::RoundCap));
    p.drawLine(a, b);
    p.setPen(QPen(loadColor(l.load()), w + 2, Qt::SolidLine, Qt::RoundCap));
    p.drawLine(a, b);
  }
}

void ClusterWidget::paintCard(QPainter& p, const CardSnap& c) const {
  int busy = 0, waiting = 0, total = 0;
  for (int id : c.aiv) {
    const Activity a = snap_->cores[id].activity;
    ++total;
    busy += isWorking(a);
    waiting += isWaiting(a);
  }
  const QPointF ctr = cardCentre(c.id);
  const QRectF tile(ctr.x() - kCardR, ctr.y() - kCardR, 2 * kCardR, 2 * kCardR);
  p.setBrush(cardFill());
  p.setPen(QPen(c.id == selected_ ? selectionInk() : cardBorder(), c.id == selected_ ? 3 : 1));
  p.drawRoundedRect(tile, 5, 5);
  // A small bar: share of AIV cores working (blue) and waiting (orange).
  if (total > 0) {
    const QRectF barR(tile.left() + 3, tile.bottom() - 8, tile.width() - 6, 5);
    p.fillRect(barR, emptyBar());
    p.fillRect(QRectF(barR.left(), barR.top(), barR.width() * busy / total, barR.height()),
               activityColor(Activity::Copy));
    p.fillRect(QRectF(barR.left() + barR.width() * busy / total, barR.top(),
                      barR.width() * waiting / total, barR.height()),
               activityColor(Activity::WaitData));
  }
  p.setPen(inkOnLight());
  p.drawText(tile.adjusted(0, -4, 0, -4), Qt::AlignCenter, QString::number(c.id));
}

void ClusterWidget::mousePressEvent(QMouseEvent* e) {
  const int card = cardAt(e->pos());
  if (card >= 0) {
    setSelectedCard(card);
    emit selected(Selection{Selection::Kind::Card, card});
    emit cardClicked(card);
    return;
  }
  const int link = linkAt(e->pos());
  if (link >= 0) {
    setSelectedLink(link);
    emit selected(Selection{Selection::Kind::Link, link});
  }
}

bool ClusterWidget::event(QEvent* e) {
  if (e->type() == QEvent::ToolTip && snap_) {
    auto* he = static_cast<QHelpEvent*>(e);
    const int card = cardAt(he->pos());
    const int link = card < 0 ? linkAt(he->pos()) : -1;
    if (card >= 0)
      QToolTip::showText(he->globalPos(),
                         describeSelection(*snap_, Selection{Selection::Kind::Card, card}), this);
    else if (link >= 0)
      QToolTip::showText(he->globalPos(), linkTooltip(*snap_, snap_->links[link]), this);
    else
      QToolTip::showText(he->globalPos(),
                         tr("Servers, cards and links; the bar under a card number is its AIV "
                            "cores working (blue) and waiting (orange)"),
                         this);
    return true;
  }
  return QWidget::event(e);
}

// This view's entry in the workbench's table of views (view_registry.h): its tab, help,
// wiring and what it takes on each tick, frame, selection and scenario.
namespace {

ViewEntry clusterViewEntry() {
  return {
      .id = "cluster",
      .title = QT_TRANSLATE_NOOP("moe::ui::MainWindow", "Cluster"),
      .help = QT_TRANSLATE_NOOP(
          "moe::ui::ViewHelp",
          "<h3>Cluster</h3><p>Every card of every server, and the links between them. A line "
          "between two cards is an HCCS link inside a server; on a switch fabric (the "
          "h800-nvswitch profile) a line from a card to its server's switch is the card's switch "
          "port; a dashed line to the fabric is a card's RDMA NIC. Its colour and width are the "
          "current load of the busier direction "
          "(grey idle, then green to red as it fills up). The bar under a card shows its vector "
          "cores: working, "
          "waiting, idle.</p><p>Click a card to open it in the Card view; click a link to see "
          "both directions in the Inspector.</p>"),
      .create = [](ViewHost& host) -> QWidget* {
        auto* v = new ClusterWidget;
        QObject::connect(v, &ClusterWidget::selected, v,
                         [&host](const Selection& s) { host.select(s); });
        QObject::connect(v, &ClusterWidget::cardClicked, v, [&host](int c) {
          static_cast<CardView*>(host.page("card"))->showCard(c);
          host.showView("card");
        });
        return v;
      },
      .show = [](QWidget* w,
                 const ViewFeed& f) { static_cast<ClusterWidget*>(w)->setSnapshot(f.shown); },
      .select =
          [](QWidget* w, const Selection& sel) {
            static_cast<ClusterWidget*>(w)->setSelectedLink(
                sel.kind == Selection::Kind::Link ? sel.id : -1);
          },
  };
}

}  // namespace

MOE_VIEW(10, clusterViewEntry);

}  // namespace moe::ui
