#include "ui/widgets/experts_view.h"

#include "ui/style/chrome.h"

#include "ui/models/eplb_table_model.h"
#include "ui/run/run_controller.h"
#include "ui/widgets/chart_column.h"
#include "ui/widgets/instance_load_widget.h"
#include "ui/widgets/view_registry.h"

#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>
#include <QtCharts/QBarCategoryAxis>
#include <QtCharts/QBarSeries>
#include <QtCharts/QBarSet>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <QtCharts/QValueAxis>
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
void fill(QChartView* view, const QString& title, const QStringList& names,
          const std::vector<std::vector<double>>& sets, const QList<QColor>& colors) {
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
  // Past ten bars the numbers no longer fit (two-digit numbers under 16 narrow bars were
  // elided at 1400x900); tooltips name each bar, the experts' title their range. An axis
  // title would cost the short chart a row, and came out as "..." at 1920x1080.
  x->setLabelsVisible(n <= 10);
  auto* y = new QValueAxis;
  y->setRange(0, top * 1.1);
  // Three round values: the three charts share the view's height at 1920x1080, where five
  // ticks of the short axis came out as "...".
  y->setTickCount(3);
  y->applyNiceNumbers();
  // No y title: the charts are short, a vertical "token slots" did not fit; the chart
  // titles say what is counted.
  y->setLabelFormat("%.0f");
  chart->addAxis(x, Qt::AlignBottom);
  chart->addAxis(y, Qt::AlignLeft);
  series->attachAxis(x);
  series->attachAxis(y);
}

}  // namespace

ExpertsView::ExpertsView(QWidget* parent) : QWidget(parent) {
  summary_ = new QLabel;
  summary_->setWordWrap(true);
  summary_->setTextFormat(Qt::RichText);
  redundant_ = new QSpinBox;
  redundant_->setRange(0, 1024);
  redundant_->setPrefix(tr("redundant experts: "));
  redundant_->setToolTip(
      tr("Extra physical expert slots over the whole cluster for the rebalanced table; "
         "experts + redundant experts must divide by the rank count"));
  rebalance_ = new QPushButton(tr("Rebalance from this load"));
  rebalance_->setToolTip(
      tr("Run EPLB on the tokens each logical expert received in this run, store the table in the "
         "scenario and re-run the layer"));
  rebalance_->setEnabled(false);
  connect(rebalance_, &QPushButton::clicked, this,
          [this] { emit rebalanceRequested(load_.perExpert, redundant_->value()); });

  experts_ = makeView(
      tr("Token slots the router sent to each logical expert (EPLB does not change this)"));
  instances_ = new InstanceLoadWidget;
  ranks_ = makeView(
      tr("Token slots per rank: before = identity placement (expert e on rank e*R/E, no replicas), "
         "after = the instances MoeUpdateExpert chose"));
  model_ = new EplbTableModel(this);
  table_ = new QTableView;
  auto* sorted = new QSortFilterProxyModel(this);
  sorted->setSourceModel(model_);
  sorted->setSortRole(EplbTableModel::SortRole);
  table_->setModel(sorted);
  table_->setSortingEnabled(true);
  table_->sortByColumn(EplbTableModel::Routed,
                       Qt::DescendingOrder);  // hot experts and their replicas first
  table_->verticalHeader()->hide();
  table_->setAlternatingRowColors(true);
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table_->horizontalHeader()->setSectionResizeMode(EplbTableModel::Instances, QHeaderView::Stretch);
  table_->verticalHeader()->setSectionResizeMode(
      QHeaderView::ResizeToContents);  // wrapped replica lists
  table_->setWordWrap(true);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);

  // The summary spans the view; the rebalance controls sit over the placement table they
  // rewrite. Beside the summary they squeezed it to four or five lines at 1920x1080 in
  // presenter mode, which pushed the rank chart below the fold.
  // One above the other: side by side they widened the table's column past its share, and
  // the charts' titles beside it no longer fit.
  auto* tableColumn = new QWidget;
  auto* tableLay = new QVBoxLayout(tableColumn);
  tableLay->setContentsMargins(0, 0, 0, 0);
  tableLay->addWidget(redundant_);
  tableLay->addWidget(rebalance_);
  tableLay->addWidget(table_, 1);
  QWidget* charts = chartColumn({experts_, instances_, ranks_}, 7);
  auto* split = new QSplitter(Qt::Horizontal);
  split->addWidget(charts);
  split->addWidget(tableColumn);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  split->setSizes({560, 420});  // scaled to the real width when shown
  table_->setMinimumWidth(360);
  notApplicable_ = new QLabel;
  notApplicable_->setWordWrap(true);
  notApplicable_->setTextFormat(Qt::PlainText);
  notApplicable_->setAlignment(Qt::AlignCenter);
  notApplicable_->hide();
  content_ = new QWidget;
  auto* inner = new QVBoxLayout(content_);
  inner->setContentsMargins(0, 0, 0, 0);
  inner->addWidget(summary_);
  rebalanceResult_ = new QLabel;
  rebalanceResult_->setWordWrap(true);
  rebalanceResult_->hide();
  inner->addWidget(rebalanceResult_);
  inner->addWidget(split, 1);
  auto* lay = new QVBoxLayout(this);
  lay->addWidget(notApplicable_, 1);
  lay->addWidget(content_, 1);
}

void ExpertsView::setNotApplicable(const QString& why) {
  notApplicable_->setText(why);
  notApplicable_->setVisible(!why.isEmpty());
  content_->setVisible(why.isEmpty());
}

QString ExpertsView::notApplicableText() const {
  return notApplicable_->isHidden() ? QString() : notApplicable_->text();
}

void ExpertsView::beginRebalance() {
  beforeRebalance_ = load_;
  rebalancing_ = true;
}

QString ExpertsView::rebalanceText() const {
  return rebalanceResult_->isHidden() ? QString() : rebalanceResult_->text();
}

void ExpertsView::setLoad(const ExpertLoad& L) {
  // A rebalance's own result is compared with the load it started from; any other new load
  // (another scenario) ends the comparison.
  compared_ = rebalancing_ && beforeRebalance_.perRankAfter.size() == L.perRankAfter.size();
  rebalancing_ = false;
  rebalanceResult_->setVisible(compared_);
  if (compared_)
    rebalanceResult_->setText(
        tr("<b>Rebalanced.</b> Per-rank token load max/mean after UpdateExpert: %1 with the "
           "previous table → %2 with the rebalanced one (%3 redundant experts). The rank chart "
           "shows both.")
            .arg(imbalance(beforeRebalance_.perRankAfter), 0, 'f', 2)
            .arg(imbalance(L.perRankAfter), 0, 'f', 2)
            .arg(L.redundantExperts));
  load_ = L;
  const int ranks = static_cast<int>(L.perRankAfter.size());
  redundant_->setSingleStep(std::max(1, ranks));
  if (L.redundantExperts > 0)
    redundant_->setValue(L.redundantExperts);
  else if (redundant_->value() == 0)
    redundant_->setValue(ranks);  // one spare slot per rank
  rebalance_->setEnabled(!L.perExpert.empty());
  summary_->setText(
      tr("<b>Per-rank token load max/mean: %1 before mapping → %2 after UpdateExpert</b><br>"
         "%3 instances (%4 logical + %5 redundant), %6 per rank")
          .arg(imbalance(L.perRankBefore), 0, 'f', 2)
          .arg(imbalance(L.perRankAfter), 0, 'f', 2)
          .arg(L.placePerRank * ranks)
          .arg(L.perExpert.size())
          .arg(L.redundantExperts)
          .arg(L.placePerRank) +
      (L.idleReplicas > 0 ? tr(" · <span style='color:%2'>%1 replica(s) idle: balance mode 0 "
                               "(by rank) uses only "
                               "ceil(R / ceil(R / count)) replicas of an expert</span>")
                                .arg(QString::number(L.idleReplicas), errorText().name())
                          : QString()));
  model_->setLoad(L);
  const QList<QColor> one{loadSeries()};
  const QList<QColor> two{beforeSeries(), afterSeries()};
  fill(experts_,
       tr("Tokens per expert 0 … %1: max/mean %2")
           .arg(std::max<std::size_t>(L.perExpert.size(), 1) - 1)
           .arg(imbalance(L.perExpert), 0, 'f', 2),
       {tr("routed")}, {L.perExpert}, one);
  instances_->setLoad(L, model_->colors());
  if (compared_) {
    const QList<QColor> three{beforeSeries(), previousSeries(), afterSeries()};
    fill(ranks_,
         tr("Tokens per rank: max/mean %1 previous, %2 rebalanced")
             .arg(imbalance(beforeRebalance_.perRankAfter), 0, 'f', 2)
             .arg(imbalance(L.perRankAfter), 0, 'f', 2),
         {tr("identity"), tr("previous table"), tr("rebalanced")},
         {L.perRankBefore, beforeRebalance_.perRankAfter, L.perRankAfter}, three);
    return;
  }
  fill(ranks_,
       tr("Tokens per rank: max/mean %1 before, %2 after")
           .arg(imbalance(L.perRankBefore), 0, 'f', 2)
           .arg(imbalance(L.perRankAfter), 0, 'f', 2),
       {tr("before"), tr("after")}, {L.perRankBefore, L.perRankAfter}, two);
}

// This view's entry in the workbench's table of views (view_registry.h): its tab, help,
// wiring and what it takes on each tick, frame, selection and scenario.
namespace {

ViewEntry expertsViewEntry() {
  return {
      .id = "experts",
      .title = QT_TRANSLATE_NOOP("moe::ui::MainWindow", "Experts"),
      .help = QT_TRANSLATE_NOOP(
          "moe::ui::ViewHelp",
          "<h3>Experts</h3><p>How the router spread tokens over the experts, and how that load "
          "lands on the ranks before and after MoeUpdateExpert maps each expert to one of its "
          "replicas. A max/mean of 1.0 is perfect balance.</p><p>\"Rebalance from this load\" "
          "asks EPLB for a new placement with spare (redundant) expert slots, re-runs the layer, "
          "and shows the previous and the rebalanced load side by side.</p>"),
      .create = [](ViewHost& host) -> QWidget* {
        auto* v = new ExpertsView;
        QObject::connect(host.controller(), &RunController::expertLoadReady, v,
                         &ExpertsView::setLoad);
        QObject::connect(v, &ExpertsView::rebalanceRequested, v,
                         [&host](const std::vector<double>& load, int redundant) {
                           host.rebalance(load, redundant);
                         });
        return v;
      },
      .scenario =
          [](QWidget* w, const ScenarioChange& c) {
            if (!c.workloadChanged) return;
            static_cast<ExpertsView*>(w)->setNotApplicable(
                c.scenario.workload.kind == WorkloadKind::AlltoallMatmulRs
                    ? QObject::tr("Not applicable: the AlltoAll-Matmul-ReduceScatter workload has "
                                  "no experts and no routing. Its cores, workspace stages and "
                                  "overlap are in the Card and Timeline views.")
                    : QString());
          },
  };
}

}  // namespace

MOE_VIEW(30, expertsViewEntry);

}  // namespace moe::ui
