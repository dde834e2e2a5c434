#pragma once
// The workspace stages of one card (WorkspaceStages strips, e.g. the fused operator's a2a
// input slots, the partial-sum slots of each AIC and the reduce-scatter buffer): one row
// per strip, one cell per slot, filled by the slot's state and labelled with its
// occupant. Painted with QPainter; long strips wrap onto several lines.

#include <QWidget>
#include <memory>

#include "core/observe/snapshot.h"

namespace moe::ui {

class WorkspaceStagesWidget : public QWidget {
  Q_OBJECT
 public:
  explicit WorkspaceStagesWidget(QWidget* parent = nullptr);
  void setSnapshot(std::shared_ptr<const Snapshot> s, int card);
  void setSelectedStrip(int id);
  int rowCount() const { return static_cast<int>(rows_.size()); }
  QSize sizeHint() const override;

 signals:
  void stripClicked(int stripId);

 protected:
  void paintEvent(QPaintEvent*) override;
  void resizeEvent(QResizeEvent* e) override;
  void mousePressEvent(QMouseEvent* e) override;
  bool event(QEvent* e) override;

 private:
  struct Row {
    int strip;  // index into snap_->workspace
    int top;    // y of its first line
    int lines;  // slot lines (a long strip wraps)
  };
  // One legend entry: its swatch and where its text starts (baseline).
  struct LegendItem {
    QRect swatch;
    QPoint text;
    SlotState state;
    bool usedBefore;
    QString label;
  };
  // Everything below is measured from the widget's font, so presenter mode's larger font
  // gets taller lines and wider columns instead of clipped text.
  void layoutRows();
  std::vector<LegendItem> legendLayout() const;  // wraps onto more lines when narrow
  QString caption() const;
  QRect captionRect() const;  // word-wrapped under the legend
  int lineH() const;
  int valueW() const;
  int contentHeight() const;
  // The strip row and slot under p; slot -1 over the label.
  std::pair<int, int> hit(const QPoint& p) const;
  QRect cellRect(const Row& row, int slot) const;
  int slotsPerLine() const;

  std::shared_ptr<const Snapshot> snap_;
  int card_ = 0;
  std::vector<Row> rows_;
  int labelW_ = 200;  // the widest strip label of this card, at least 200 px
  int headerH_ = 40;  // legend and caption
  int selected_ = -1;
};

// Fill colour of a slot state (free slots that held data before are drawn paler).
QColor slotColor(SlotState s, bool usedBefore);
QString slotStateText(SlotState s);

}  // namespace moe::ui
