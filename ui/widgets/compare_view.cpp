#include "ui/widgets/compare_view.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>
#include <QtCharts/QBarCategoryAxis>
#include <QtCharts/QBarSet>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <QtCharts/QHorizontalBarSeries>
#include <QtCharts/QValueAxis>

namespace moe::ui {

CompareView::CompareView(QWidget* parent) : QWidget(parent) {
  model_ = new CompareTableModel(this);
  run_ = new QPushButton(tr("Run phased and streaming"));
  run_->setToolTip(tr("Runs both dispatch designs to the end on the current scenario (in a worker thread) and "
                      "verifies both against the golden reference"));
  verdict_ = new QLabel(tr("Not run yet."));
  verdict_->setWordWrap(true);
  table_ = new QTableView;
  table_->setModel(model_);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
  table_->setToolTip(tr("Key figures of each dispatch design on the same scenario and gating"));
  chart_ = new QChartView(new QChart);
  chart_->setRenderHint(QPainter::Antialiasing);
  chart_->setToolTip(tr("Duration of each stage, per design"));
  auto* top = new QHBoxLayout;
  top->addWidget(run_);
  top->addWidget(verdict_, 1);
  auto* body = new QHBoxLayout;
  body->addWidget(table_, 1);
  body->addWidget(chart_, 1);
  auto* lay = new QVBoxLayout(this);
  lay->addLayout(top);
  lay->addLayout(body, 1);
  connect(run_, &QPushButton::clicked, this, &CompareView::runRequested);
}

void CompareView::setBusy(const QString& message) {
  verdict_->setText(message);
  run_->setEnabled(false);
}

void CompareView::setResult(const CompareResult& r) {
  run_->setEnabled(true);
  verdict_->setText(r.verdict);
  model_->setResult(r);
  QChart* chart = chart_->chart();
  chart->removeAllSeries();
  for (QAbstractAxis* a : chart->axes()) {
    chart->removeAxis(a);
    delete a;
  }
  chart->setTitle(tr("Stage durations (us): phased vs streaming"));
  auto* series = new QHorizontalBarSeries;
  const QColor colors[] = {QColor(0xb0, 0x7a, 0xe8), QColor(0x3c, 0xa0, 0x6a)};
  double top = 0;
  for (std::size_t i = 0; i < r.stageUs.size(); ++i) {
    auto* set = new QBarSet(r.impls.value(static_cast<int>(i)));
    set->setColor(colors[i % 2]);
    for (double v : r.stageUs[i]) {
      *set << v;
      top = std::max(top, v);
    }
    series->append(set);
  }
  chart->addSeries(series);
  auto* y = new QBarCategoryAxis;
  y->append(r.stageNames);
  auto* x = new QValueAxis;
  x->setRange(0, top * 1.1 + 1e-9);
  x->setTitleText(tr("us"));
  chart->addAxis(y, Qt::AlignLeft);
  chart->addAxis(x, Qt::AlignBottom);
  series->attachAxis(x);
  series->attachAxis(y);
}

}  // namespace moe::ui
