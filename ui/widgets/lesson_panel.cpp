#include "ui/widgets/lesson_panel.h"

#include <QRegularExpression>

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>
#include <algorithm>

namespace moe::ui {

LessonPanel::LessonPanel(std::vector<LessonEntry> lessons, QWidget* parent)
    : QWidget(parent), lessons_(std::move(lessons)) {
  picker_ = new QComboBox;
  picker_->addItem(tr("Choose a lesson…"));
  for (const LessonEntry& e : lessons_)
    picker_->addItem(e.lesson ? e.lesson->title : tr("%1 (cannot be used)").arg(e.name));
  picker_->setToolTip(tr("Guided lessons: each step sets up a run, shows a view and explains it"));
  position_ = new QLabel;
  narration_ = new QLabel;
  narration_->setWordWrap(true);
  narration_->setTextFormat(Qt::PlainText);
  narration_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
  narration_->setMinimumHeight(60);
  back_ = new QPushButton(tr("Back"));
  next_ = new QPushButton(tr("Next"));
  back_->setToolTip(tr("The previous step (re-runs to its moment)"));
  next_->setToolTip(tr("The next step: runs the emulation to its moment and shows the view"));
  auto* head = new QHBoxLayout;
  head->addWidget(picker_, 1);
  head->addWidget(position_);
  head->addWidget(back_);
  head->addWidget(next_);
  auto* lay = new QVBoxLayout(this);
  lay->addLayout(head);
  lay->addWidget(narration_, 1);
  connect(picker_, qOverload<int>(&QComboBox::currentIndexChanged), this,
          [this](int i) { showStep(i - 1, 0); });
  connect(back_, &QPushButton::clicked, this, [this] { showStep(lesson_, step_ - 1); });
  connect(next_, &QPushButton::clicked, this, [this] { showStep(lesson_, step_ + 1); });
  refresh();
}

QString LessonPanel::narration() const {
  return narration_->text();
}

void LessonPanel::setFilledNarration(const QString& text) {
  narration_->setText(text);
}

void LessonPanel::showStep(int index, int step) {
  if (index < 0 || index >= static_cast<int>(lessons_.size())) {
    lesson_ = -1;
    refresh();
    return;
  }
  lesson_ = index;
  const LessonEntry& e = lessons_[static_cast<std::size_t>(index)];
  step_ = e.lesson ? std::clamp(step, 0, static_cast<int>(e.lesson->steps.size()) - 1) : 0;
  {
    QSignalBlocker block(picker_);
    picker_->setCurrentIndex(index + 1);
  }
  refresh();
  if (e.lesson) emit stepRequested(*e.lesson, step_);
}

void LessonPanel::refresh() {
  const LessonEntry* e = lesson_ >= 0 ? &lessons_[static_cast<std::size_t>(lesson_)] : nullptr;
  const int steps = e && e->lesson ? static_cast<int>(e->lesson->steps.size()) : 0;
  back_->setEnabled(steps > 0 && step_ > 0);
  next_->setEnabled(steps > 0 && step_ + 1 < steps);
  position_->setText(steps > 0 ? tr("step %1 of %2").arg(step_ + 1).arg(steps) : QString());
  if (!e)
    narration_->setText(
        tr("Pick a lesson above. Next runs the emulation to each step's moment "
           "and shows what to look at."));
  else if (!e->lesson)
    narration_->setText(tr("This lesson cannot be used: %1").arg(e->error));
  else {
    // Until the run reaches the step's moment its numbers are unknown: no stale values.
    static const QRegularExpression field(R"(\{[^{}]*\})");
    QString text = e->lesson->steps[static_cast<std::size_t>(step_)].narration;
    narration_->setText(text.replace(field, QStringLiteral("…")));
  }
}

}  // namespace moe::ui
