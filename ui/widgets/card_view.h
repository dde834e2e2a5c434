#pragma once
// The card view: a card picker, the card's core grid, and below it the card's rings and
// workspace stages (each shown when the running operator has any on this card).

#include <QWidget>
#include <memory>

#include "core/observe/snapshot.h"
#include "ui/models/selection.h"

class QComboBox;
class QLabel;

namespace moe::ui {

class CoreGridWidget;
class RingStripWidget;
class WorkspaceStagesWidget;

class CardView : public QWidget {
  Q_OBJECT
 public:
  explicit CardView(QWidget* parent = nullptr);
  void setSnapshot(std::shared_ptr<const Snapshot> s);
  void showCard(int card);
  int card() const { return card_; }
  CoreGridWidget* grid() const { return grid_; }
  RingStripWidget* rings() const { return rings_; }
  WorkspaceStagesWidget* stages() const { return stages_; }

 signals:
  void selected(const moe::ui::Selection& sel);

 private:
  std::shared_ptr<const Snapshot> snap_;
  int card_ = 0;
  QComboBox* picker_;
  QLabel* summary_;
  CoreGridWidget* grid_;
  RingStripWidget* rings_;
  WorkspaceStagesWidget* stages_;
};

}  // namespace moe::ui
