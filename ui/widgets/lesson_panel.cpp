#include "ui/widgets/lesson_panel.h"

#include <QRegularExpression>

#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QPushButton>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>

namespace moe::ui {

LessonPanel::LessonPanel(std::vector<LessonEntry> lessons, QWidget* parent)
    : QWidget(parent), lessons_(std::move(lessons)) {
  // The lessons as a menu and the chosen one's title as wrapped text: a combo box as wide
  // as the longest title made the column take half a projector's width.
  picker_ = new QToolButton;
  picker_->setText(tr("Lessons"));
  picker_->setPopupMode(QToolButton::InstantPopup);
  picker_->setToolButtonStyle(Qt::ToolButtonTextOnly);
  picker_->setToolTip(tr("Guided lessons: each step sets up a run, shows a view and explains it"));
  auto* menu = new QMenu(picker_);
  for (std::size_t i = 0; i < lessons_.size(); ++i) {
    const LessonEntry& e = lessons_[i];
    menu->addAction(e.lesson ? e.lesson->title : tr("%1 (cannot be used)").arg(e.name), this,
                    [this, i] { showStep(static_cast<int>(i), 0); });
  }
  picker_->setMenu(menu);
  title_ = new QLabel;
  title_->setWordWrap(true);
  title_->setTextFormat(Qt::PlainText);
  QFont bold = title_->font();
  bold.setBold(true);
  title_->setFont(bold);
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
  // A column beside the views: the lesson on one line, the step and its buttons on the
  // next, the narration under them.
  auto* head = new QHBoxLayout;
  head->addWidget(picker_);
  head->addWidget(position_, 1);
  head->addWidget(back_);
  head->addWidget(next_);
  auto* lay = new QVBoxLayout(this);
  lay->setContentsMargins(4, 4, 4, 4);
  lay->addLayout(head);
  lay->addWidget(title_);
  lay->addWidget(narration_, 1);
  connect(back_, &QPushButton::clicked, this, [this] { showStep(lesson_, step_ - 1); });
  connect(next_, &QPushButton::clicked, this, [this] { showStep(lesson_, step_ + 1); });
  refresh();
}

QString LessonPanel::narration() const {
  return narration_->text();
}

void LessonPanel::setFilledNarration(const QString& text) {
  narration_->setText(text);
  fitNarration();
}

void LessonPanel::fitNarration() {
  const int w = std::max(
      100, width() - layout()->contentsMargins().left() - layout()->contentsMargins().right());
  // QLabel's heightForWidth() is never below its minimum height: cleared first, or a long
  // step's height stayed for every shorter one after it.
  narration_->setMinimumHeight(0);
  narration_->setMinimumHeight(std::max(60, narration_->heightForWidth(w)));
  // The title wraps too (two lines at presenter scale): its lines count in the panel's
  // minimum, which the window gives the Lesson dock, or the narration's last line is cut.
  title_->setMinimumHeight(0);
  title_->setMinimumHeight(title_->heightForWidth(w));
}

void LessonPanel::resizeEvent(QResizeEvent* e) {
  QWidget::resizeEvent(e);
  fitNarration();
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
  refresh();
  if (e.lesson) emit stepRequested(*e.lesson, step_);
}

void LessonPanel::refresh() {
  const LessonEntry* e = lesson_ >= 0 ? &lessons_[static_cast<std::size_t>(lesson_)] : nullptr;
  const int steps = e && e->lesson ? static_cast<int>(e->lesson->steps.size()) : 0;
  back_->setEnabled(steps > 0 && step_ > 0);
  next_->setEnabled(steps > 0 && step_ + 1 < steps);
  position_->setText(steps > 0 ? tr("step %1 of %2").arg(step_ + 1).arg(steps) : QString());
  title_->setText(!e          ? tr("No lesson chosen")
                  : e->lesson ? e->lesson->title
                              : tr("%1 (cannot be used)").arg(e->name));
  if (!e)
    narration_->setText(
        tr("Pick a lesson under Lessons. Next runs the emulation to each step's moment "
           "and shows what to look at."));
  else if (!e->lesson)
    narration_->setText(tr("This lesson cannot be used: %1").arg(e->error));
  else {
    // Until the run reaches the step's moment its numbers are unknown: no stale values.
    static const QRegularExpression field(R"(\{[^{}]*\})");
    QString text = e->lesson->steps[static_cast<std::size_t>(step_)].narration;
    narration_->setText(text.replace(field, QStringLiteral("…")));
  }
  fitNarration();
}

}  // namespace moe::ui
