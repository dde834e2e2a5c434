#pragma once
// The cluster view: servers as boxes, cards on a circle inside each, HCCS pair links as
// chords coloured by their current load, and each card's RDMA NIC linked to the fabric
// between servers, coloured by the busier of tx/rx. Clicking a card opens it.

#include <QFont>
#include <QString>
#include <QWidget>
#include <memory>

#include "core/observe/snapshot.h"
#include "ui/models/selection.h"

class QPainter;

namespace moe::ui {

class ClusterWidget : public QWidget {
  Q_OBJECT
 public:
  explicit ClusterWidget(QWidget* parent = nullptr);
  void setSnapshot(std::shared_ptr<const Snapshot> s);
  void setSelectedCard(int card);
  // The link (index into Snapshot::links) drawn outlined and thicker; -1 for none.
  void setSelectedLink(int link);
  int selectedLink() const { return selectedLink_; }
  // The window hands a new snapshot to its views on the next redraw tick, not when it
  // arrives: a test clicks only once the view has one.
  bool hasSnapshot() const { return snap_ != nullptr; }
  QSize sizeHint() const override { return {800, 480}; }
  // Centre of a card's tile in widget coordinates (for tests and hit testing).
  QPointF cardCentre(int card) const;
  // The line above the servers: "2 servers x 8 cards at ...".
  QString headerText() const;

 signals:
  void cardClicked(int card);
  void selected(const moe::ui::Selection& sel);

 protected:
  void paintEvent(QPaintEvent*) override;
  void mousePressEvent(QMouseEvent* e) override;
  bool event(QEvent* e) override;

 private:
  int headerHeight() const;
  QRectF serverRect(int server) const;
  QRectF fabricRect() const;
  // Where a card's NIC line meets the fabric: on the box's top edge, in the cards' order, so the
  // lines do not cross out the fabric's name.
  QPointF fabricPoint(int card) const;
  // Where a link's line ends away from its source card: the peer card (HCCS pair), the
  // server's switch (switch ports) or the RDMA fabric (NIC).
  QPointF linkEnd(const LinkSnap& l) const;
  // The parts of paintEvent, in painting order (the fabric box between links and cards).
  void paintServers(QPainter& p) const;
  // A pair's chord, a card's switch spoke and its NIC line, each coloured by its busier
  // direction.
  void paintLinks(QPainter& p) const;
  void paintSelectedLink(QPainter& p) const;
  void paintCard(QPainter& p, const CardSnap& c) const;
  int cardAt(const QPointF& p) const;
  int linkAt(const QPointF& p) const;

  std::shared_ptr<const Snapshot> snap_;
  int selected_ = -1;
  int selectedLink_ = -1;
  // The header's wrapped height for the text, width and font it was measured with.
  struct HeaderLayout {
    QString text;
    int width = -1;
    QFont font;
    int height = -1;
  };
  mutable HeaderLayout header_;
};

}  // namespace moe::ui
