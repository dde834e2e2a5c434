#include "ui/widgets/tune_diff_dialog.h"

#include "ui/style/chrome.h"

#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>

#include "core/studies/tune_knobs.h"

namespace moe::ui {

namespace {

// Why a numerics field matters, in words a student can check against the phased design.
QString numericsNote(const std::string& path) {
  if (path.find("partial_dtype") != std::string::npos)
    return QObject::tr(
        "CHANGES THE NUMBERS: the experts' partial results are sent at this "
        "precision, so the layer's output is rounded differently from the "
        "phased design's (fp32)");
  if (path.find("sum_local_experts") != std::string::npos)
    return QObject::tr(
        "CHANGES THE NUMBERS: experts on the same card are added up before "
        "sending, so the sum is taken in a different order than the phased "
        "design's and can differ in the last bits");
  return QObject::tr("CHANGES THE NUMBERS: what the combine computes, not only how fast");
}

// A long value (a list such as an EPLB table) may wrap after its commas instead of widening
// the table past the screen; short values stay exactly as the scenario file writes them.
QString wrappable(QString value) {
  if (value.size() > 32) value.replace(QLatin1Char(','), QStringLiteral(",\u200b"));
  return value;
}

}  // namespace

bool TuneDiffDialog::isTuneKnob(const std::string& path) {
  // A ring knob is "rings.<field>" for both stages, or a stage's own "rings.<stage>.<field>".
  std::string flat = path;
  for (const char* stage : {"rings.dispatch.", "rings.combine."})
    if (path.rfind(stage, 0) == 0) flat = "rings." + path.substr(std::string(stage).size());
  for (const TuneKnob& k : tuneKnobs())
    if (flat == k.path) return true;
  return false;
}

bool TuneDiffDialog::changesNumerics(const std::string& path) {
  for (const TuneKnob& k : tuneKnobs())
    if (k.numerics && path == k.path) return true;
  return false;
}

TuneDiffDialog::TuneDiffDialog(const Scenario& current, const Scenario& tuned,
                               const QString& summary, QWidget* parent)
    : QDialog(parent), tuned_(tuned), changes_(scenarioChanges(current, tuned)) {
  setWindowTitle(tr("Apply the tuned scenario?"));
  auto* lay = new QVBoxLayout(this);
  // Never smaller than its contents: the note must not slide over the table's last rows.
  lay->setSizeConstraint(QLayout::SetMinimumSize);
  auto* top = new QLabel(summary);
  top->setWordWrap(true);
  lay->addWidget(top);
  int numerics = 0;
  for (const FieldChange& c : changes_) numerics += changesNumerics(c.path) ? 1 : 0;
  auto* intro =
      new QLabel(changes_.size() == 1
                     ? tr("Applying it changes this field and restarts the run at t = 0:")
                     : tr("Applying it changes these %1 fields and restarts the run at t = 0:")
                           .arg(changes_.size()));
  intro->setWordWrap(true);
  lay->addWidget(intro);

  buildTable();
  lay->addWidget(table_, 1);

  if (numerics > 0) {
    auto* note = new QLabel(
        tr("⚠ The marked field%1 what the layer computes, not only how fast it runs: "
           "after Apply, the streaming design's output no longer matches the phased design's "
           "bit for bit.")
            .arg(numerics == 1 ? tr(" changes") : tr("s change")));
    note->setWordWrap(true);
    note->setStyleSheet(textStyle(warningText()) + "font-weight:bold");
    lay->addWidget(note);
  }

  auto* buttons = new QDialogButtonBox;
  apply_ = buttons->addButton(tr("Apply tuned scenario"), QDialogButtonBox::AcceptRole);
  keep_ = buttons->addButton(tr("Keep current"), QDialogButtonBox::RejectRole);
  apply_->setToolTip(tr("Load the tuned scenario; the run restarts at t = 0"));
  keep_->setToolTip(tr("Leave the scenario and the run as they are"));
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  lay->addWidget(buttons);
  // A layout sizes word-wrapped labels for an unknown width and can leave the dialog too
  // short; give each its height at the table's width so nothing overlaps.
  for (QLabel* label : findChildren<QLabel*>())
    if (label->wordWrap()) label->setMinimumHeight(label->heightForWidth(table_->minimumWidth()));
}

void TuneDiffDialog::buildTable() {
  table_ = new QTableWidget(static_cast<int>(changes_.size()), 4);
  table_->setHorizontalHeaderLabels(
      {tr("Field"), tr("Current"), tr("Tuned"), tr("What it changes")});
  table_->verticalHeader()->hide();
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setSelectionMode(QAbstractItemView::NoSelection);
  table_->setWordWrap(true);
  const QColor warn = numericsRow();
  for (int r = 0; r < static_cast<int>(changes_.size()); ++r) {
    const FieldChange& c = changes_[static_cast<std::size_t>(r)];
    const bool num = changesNumerics(c.path);
    const QString cells[4] = {
        (num ? QStringLiteral("⚠ ") : QString()) + QString::fromStdString(c.path),
        wrappable(QString::fromStdString(c.from)), wrappable(QString::fromStdString(c.to)),
        num ? numericsNote(c.path)
        : isTuneKnob(c.path)
            ? tr("speed only")
            : tr("not a Tune knob: edited while Tune ran, and Apply puts back the value "
                 "Tune started from")};
    for (int col = 0; col < 4; ++col) {
      auto* item = new QTableWidgetItem(cells[col]);
      if (num) {
        item->setBackground(warn);
        item->setForeground(inkOnLight());
        QFont f = item->font();
        f.setBold(true);
        item->setFont(f);
      }
      table_->setItem(r, col, item);
    }
  }
  // Widths first, then row heights: the wrapped explanations size their rows to this width.
  table_->setFocusPolicy(Qt::NoFocus);
  table_->resizeColumnsToContents();
  for (int c = 0; c < 3; ++c) table_->setColumnWidth(c, std::min(table_->columnWidth(c), 320));
  table_->setColumnWidth(3, 430);
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->resizeRowsToContents();
  // Wide and tall enough for every cell and row (a scroll bar only past what a screen holds).
  int width = 2 * table_->frameWidth() + 4, height = width;
  for (int c = 0; c < table_->columnCount(); ++c) width += table_->columnWidth(c);
  height += table_->horizontalHeader()->sizeHint().height();
  for (int r = 0; r < table_->rowCount(); ++r) height += table_->rowHeight(r);
  table_->setMinimumSize(width, std::min(height, 560));
  if (height <= 560) table_->setMaximumHeight(height);
  table_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
}

}  // namespace moe::ui
