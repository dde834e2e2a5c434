#include "ui/widgets/experts_view.h"

#include <QtCharts/QBarCategoryAxis>
#include <QtCharts/QBarSeries>
#include <QtCharts/QBarSet>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <QtCharts/QValueAxis>
#include <QLabel>
#include <QVBoxLayout>
#include <algorithm>

namespace moe::ui {

namespace {

QChartView* makeView(const QString& tip) {
  auto* v = new QChartView(new QChart);
  v->setRenderHint(QPainter::Antialiasing);
  v->setToolTip(tip);
  v->chart()->legend()->setAlignment(Qt::AlignRight);
  v->chart()->setMargins(QMargins(4, 4, 4, 4));
  return v;
}

// Replaces the chart's content with one bar set per list (all the same length).
void fill(QChartView* view, const QString& title, const QStringList& names, const std::vector<std::vector<double>>& sets,
          const QList<QColor>& colors) {
  QChart* chart = view->chart();
  chart->removeAllSeries();
  for (QAbstractAxis* a : chart->axes()) {
    chart->removeAxis(a);
    delete a;
  }
  chart->setTitle(title);
  auto* series = new QBarSeries;
  double top = 1;
  std::size_t n = 0;
  for (std::size_t i = 0; i < sets.size(); ++i) {
    auto* set = new QBarSet(names[static_cast<int>(i)]);
    set->setColor(colors[static_cast<int>(i)]);
    set->setBorderColor(colors[static_cast<int>(i)]);
    for (double v : sets[i]) {
      *set << v;
      top = std::max(top, v);
    }
    n = std::max(n, sets[i].size());
    series->append(set);
  }
  series->setBarWidth(0.9);
  chart->addSeries(series);
  auto* x = new QBarCategoryAxis;
  QStringList cats;
  // Category labels must be unique, so every bar keeps its number; long axes turn them.
  for (std::size_t i = 0; i < n; ++i) cats << QString::number(i);
  x->append(cats);
  x->setLabelsAngle(n > 32 ? -90 : 0);
  auto* y = new QValueAxis;
  y->setRange(0, top * 1.1);
  y->setTitleText("token slots");
  y->setLabelFormat("%.0f");
  chart->addAxis(x, Qt::AlignBottom);
  chart->addAxis(y, Qt::AlignLeft);
  series->attachAxis(x);
  series->attachAxis(y);
}

}  // namespace

ExpertsView::ExpertsView(QWidget* parent) : QWidget(parent) {
  experts_ = makeView(tr("Token slots the router sent to each logical expert (EPLB does not change this)"));
  instances_ = makeView(tr("Token slots per physical expert instance: before = identity placement, after = the "
                           "instances MoeUpdateExpert chose"));
  ranks_ = makeView(tr("Token slots per rank (instance / instances-per-rank), before and after MoeUpdateExpert"));
  notApplicable_ = new QLabel;
  notApplicable_->setWordWrap(true);
  notApplicable_->setTextFormat(Qt::PlainText);
  notApplicable_->setAlignment(Qt::AlignCenter);
  notApplicable_->hide();
  auto* lay = new QVBoxLayout(this);
  lay->addWidget(notApplicable_, 1);
  lay->addWidget(experts_);
  lay->addWidget(instances_);
  lay->addWidget(ranks_);
}

QString ExpertsView::notApplicableText() const { return notApplicable_->isHidden() ? QString() : notApplicable_->text(); }

void ExpertsView::setLoad(const ExpertLoad& L) {
  const bool na = !L.notApplicable.empty();
  notApplicable_->setVisible(na);
  notApplicable_->setText(QString::fromStdString(L.notApplicable));
  for (QChartView* v : {experts_, instances_, ranks_}) v->setVisible(!na);
  if (na) return;
  const QList<QColor> one{QColor(0x4e, 0x9a, 0xf1)};
  const QList<QColor> two{QColor(0xb0, 0xb0, 0xb0), QColor(0x3c, 0xa0, 0x6a)};
  fill(experts_, tr("Tokens per logical expert — imbalance (max/mean) %1").arg(imbalance(L.perExpert), 0, 'f', 2),
       {tr("routed")}, {L.perExpert}, one);
  fill(instances_,
       tr("Tokens per physical instance — imbalance before %1, after UpdateExpert %2")
           .arg(imbalance(L.perInstanceBefore), 0, 'f', 2)
           .arg(imbalance(L.perInstanceAfter), 0, 'f', 2),
       {tr("before"), tr("after")}, {L.perInstanceBefore, L.perInstanceAfter}, two);
  fill(ranks_,
       tr("Tokens per rank (%1 instances each) — imbalance before %2, after %3")
           .arg(L.placePerRank)
           .arg(imbalance(L.perRankBefore), 0, 'f', 2)
           .arg(imbalance(L.perRankAfter), 0, 'f', 2),
       {tr("before"), tr("after")}, {L.perRankBefore, L.perRankAfter}, two);
}

}  // namespace moe::ui
