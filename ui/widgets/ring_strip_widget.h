#pragma once
// Every ring a card consumes, one row each: the capacity as a bar with chunk ticks, the
// occupied bytes between head and tail (split in two when they wrap), bytes written but
// not yet published, and markers for head, tail, producer tail and cached head.
// Rings come in groups of one kind (ui/models/ring_groups.h), each under a header row that
// counts its rings and how many hold data. Clicking a header folds the group into that one
// row, with a cell per ring shaded by how full it is. On a card with more than kFoldAbove
// rings every kind starts folded, so 80 rings open as a few lines.

#include <QString>
#include <QWidget>
#include <memory>
#include <set>
#include <string>

#include "core/observe/snapshot.h"
#include "ui/models/ring_groups.h"

namespace moe::ui {

class RingStripWidget : public QWidget {
  Q_OBJECT
 public:
  explicit RingStripWidget(QWidget* parent = nullptr);
  void setSnapshot(std::shared_ptr<const Snapshot> s, int card);
  void setSelectedRing(int id);
  // Rings listed (folded or not), and groups.
  int rowCount() const { return ringCount_; }
  int groupCount() const { return static_cast<int>(groups_.size()); }
  bool isFolded(int group) const;
  void setFolded(int group, bool folded);
  // Rings shown as rows of their own (not folded away).
  int visibleRingRows() const;
  QSize sizeHint() const override;

  static constexpr int kFoldAbove = 16;

 signals:
  void ringClicked(int ringId);

 protected:
  void paintEvent(QPaintEvent*) override;
  void mousePressEvent(QMouseEvent* e) override;
  // The key wraps to the width: a narrower view needs a taller header.
  void resizeEvent(QResizeEvent* e) override;
  bool event(QEvent* e) override;

 private:
  // One line of the strip: a group's header, or one of its rings.
  struct Line {
    int group;
    int ring;  // index into snap_->rings, or -1 for the header
  };
  const Line* lineAt(const QPoint& p) const;
  int lineTop(std::size_t line) const;
  int lineHeight(const Line& l) const;
  void relayout();
  int labelW() const;
  bool fullNames() const;  // the full names fit the name column
  void revealSelected();
  void scrollToRing(int ringIndex);  // into view in the enclosing scroll area
  void paintRing(class QPainter& p, const RingSnap& r, const QRect& row) const;
  void paintHeader(class QPainter& p, const RingGroup& g, bool folded, const QRect& row) const;

  std::shared_ptr<const Snapshot> snap_;
  std::vector<RingGroup> groups_;
  std::vector<Line> lines_;
  int ringCount_ = 0;
  std::set<std::string> folded_;      // group titles folded
  std::set<std::string> seenGroups_;  // titles whose starting fold was decided
  std::string kinds_;                 // the listed groups' titles, to see a stage change
  // The widest ring name, and the widest without its group's common words (shortNames_,
  // by snapshot ring index), for the name column (labelW).
  int nameW_ = 0, shortNameW_ = 0;
  std::vector<QString> shortNames_;
  int selected_ = -1;
  bool revealSelected_ = false;  // unfold the selected ring's group once it is listed
};

}  // namespace moe::ui
