#include "ui/widgets/card_view.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QScrollArea>
#include <QSplitter>
#include <QVBoxLayout>

#include "ui/style/palette.h"
#include "ui/widgets/core_grid_widget.h"
#include "ui/widgets/ring_strip_widget.h"
#include "ui/widgets/view_registry.h"
#include "ui/widgets/workspace_stages_widget.h"

namespace moe::ui {

CardView::CardView(QWidget* parent) : QWidget(parent) {
  auto* top = new QHBoxLayout;
  picker_ = new QComboBox;
  picker_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  picker_->setToolTip(
      tr("Which card to show; clicking a card in the cluster view also opens it here"));
  summary_ = new QLabel;
  summary_->setWordWrap(true);  // wraps rather than squeezing the picker
  top->addWidget(new QLabel(tr("Card:")));
  top->addWidget(picker_);
  top->addWidget(summary_, 1);
  grid_ = new CoreGridWidget;
  rings_ = new RingStripWidget;
  rings_->setToolTip(tr("Ring buffers this card receives through"));
  stages_ = new WorkspaceStagesWidget;
  stages_->hide();
  // Rings and workspace stages share the lower pane; each shows only when the card has some.
  auto* lower = new QWidget;
  auto* lowerLay = new QVBoxLayout(lower);
  lowerLay->setContentsMargins(0, 0, 0, 0);
  lowerLay->setSpacing(0);
  lowerLay->addWidget(rings_);
  lowerLay->addWidget(stages_);
  lowerLay->addStretch(1);
  auto* scroll = new QScrollArea;
  scroll->setWidget(lower);
  scroll->setWidgetResizable(true);
  auto* split = new QSplitter(Qt::Vertical);
  split->addWidget(grid_);
  split->addWidget(scroll);
  split->setStretchFactor(0, 1);
  split->setStretchFactor(1, 1);
  split->setSizes({420, 380});  // rings get room for several rows before scrolling
  auto* lay = new QVBoxLayout(this);
  lay->addLayout(top);
  lay->addWidget(split, 1);
  connect(picker_, qOverload<int>(&QComboBox::currentIndexChanged), this, [this](int i) {
    if (i >= 0 && i != card_) showCard(i);
  });
  connect(grid_, &CoreGridWidget::coreClicked, this, [this](int id) {
    emit selected(Selection{Selection::Kind::Core, id});
  });
  connect(rings_, &RingStripWidget::ringClicked, this, [this](int id) {
    emit selected(Selection{Selection::Kind::Ring, id});
  });
  connect(stages_, &WorkspaceStagesWidget::stripClicked, this, [this](int id) {
    emit selected(Selection{Selection::Kind::Stages, id});
  });
}

void CardView::setSnapshot(std::shared_ptr<const Snapshot> s) {
  snap_ = std::move(s);
  if (!snap_) return;
  const int n = static_cast<int>(snap_->cards.size());
  if (picker_->count() != n) {
    QSignalBlocker block(picker_);
    picker_->clear();
    for (const CardSnap& c : snap_->cards)
      picker_->addItem(tr("card %1 (server %2, slot %3)").arg(c.id).arg(c.server).arg(c.local));
    if (card_ >= n) card_ = 0;
    picker_->setCurrentIndex(card_);
  }
  showCard(card_);
}

void CardView::showCard(int card) {
  card_ = card;
  {
    QSignalBlocker block(picker_);
    picker_->setCurrentIndex(card);
  }
  grid_->setSnapshot(snap_, card);
  rings_->setSnapshot(snap_, card);
  stages_->setSnapshot(snap_, card);
  if (!snap_) return;
  // A workload with workspace stages and no rings (the fused operator) shows only the stages.
  const bool hasStages = stages_->rowCount() > 0;
  stages_->setVisible(hasStages);
  rings_->setVisible(rings_->rowCount() > 0 || !hasStages);
  int busy = 0, waiting = 0;
  for (const CoreSnap& c : snap_->cores) {
    if (c.card != card) continue;
    busy += isWorking(c.activity);
    waiting += isWaiting(c.activity);
  }
  QString buffers = tr("%1 rings").arg(rings_->rowCount());
  if (hasStages) {
    int inUse = 0, total = 0;
    for (const StagesSnap& w : snap_->workspace)
      if (w.card == card) {
        inUse += w.occupied;
        total += w.slotCount();
      }
    buffers = tr("workspace stages: %1 of %2 slots in use").arg(inUse).arg(total);
  }
  summary_->setText(tr("%1 run at %2, stage %3: %4 cores working, %5 waiting, %6")
                        .arg(QString::fromStdString(snap_->design), timeText(snap_->now),
                             QString::fromStdString(snap_->stage))
                        .arg(busy)
                        .arg(waiting)
                        .arg(buffers));
}

// This view's entry in the workbench's table of views (view_registry.h): its tab, help,
// wiring and what it takes on each tick, frame, selection and scenario.
namespace {

ViewEntry cardViewEntry() {
  return {
      .id = "card",
      .title = QT_TRANSLATE_NOOP("moe::ui::MainWindow", "Card"),
      .help = QT_TRANSLATE_NOOP(
          "moe::ui::ViewHelp",
          "<h3>Card</h3><p>The cores of one card and the buffers between them. Each core's fill "
          "colour is its role in the current stage (sender, forwarder, receiver, gemm, ...); its "
          "border is what it is doing now (copying, computing, or waiting — waiting cores are "
          "hatched). Idle cores have no program in this stage: pale grey with a thin plain "
          "border.</p><p>Each ring is a strip: "
          "filled chunks are written but not yet read. A sender waits when the ring is full "
          "(wait-space); a receiver waits when it is empty (wait-data). Rings of one kind (say, "
          "one per sending card) sit under one line; on a card with many rings each kind starts "
          "folded into that line, with one small cell per ring that darkens as the ring fills. "
          "Click the line to open or fold it. The fused operator shows its workspace slots "
          "instead.</p>"),
      .create = [](ViewHost& host) -> QWidget* {
        auto* v = new CardView;
        QObject::connect(v, &CardView::selected, v,
                         [&host](const Selection& s) { host.select(s); });
        return v;
      },
      .show = [](QWidget* w,
                 const ViewFeed& f) { static_cast<CardView*>(w)->setSnapshot(f.shown); },
      .select =
          [](QWidget* w, const Selection& sel) {
            auto* v = static_cast<CardView*>(w);
            if (sel.kind == Selection::Kind::Card) v->showCard(sel.id);
            // One highlight at a time: a core selected after a ring no longer marks the ring.
            v->grid()->setSelectedCore(sel.kind == Selection::Kind::Core ? sel.id : -1);
            v->rings()->setSelectedRing(sel.kind == Selection::Kind::Ring ? sel.id : -1);
            v->stages()->setSelectedStrip(sel.kind == Selection::Kind::Stages ? sel.id : -1);
          },
  };
}

}  // namespace

MOE_VIEW(20, cardViewEntry);

}  // namespace moe::ui
