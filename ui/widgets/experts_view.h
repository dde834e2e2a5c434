#pragma once
// The load-balancing story (DESIGN.md §4): tokens per logical expert, per physical
// instance (replicas of one expert linked by colour) and per rank before and after
// MoeUpdateExpert, the eplb_table as a grid, and a one-click rebalance that regenerates the
// table with EPLB from the current load and re-runs the layer. Chart code stays behind this
// widget so a later move to Qt Graphs touches one file.

#include <QWidget>
#include <vector>

#include "ui/run/expert_load.h"

#include "ui/widgets/qt_charts.h"

class QLabel;
class QPushButton;
class QSpinBox;
class QTableView;

MOE_CHARTS_BEGIN_NAMESPACE
class QChartView;
MOE_CHARTS_END_NAMESPACE
// Qt 5 puts the chart classes in a namespace, Qt 6 does not; the macro covers both.
MOE_CHARTS_USE_NAMESPACE

namespace moe::ui {

class EplbTableModel;
class InstanceLoadWidget;

class ExpertsView : public QWidget {
  Q_OBJECT
 public:
  explicit ExpertsView(QWidget* parent = nullptr);
  void setLoad(const ExpertLoad& load);
  // For a workload without experts (the fused AlltoAll-Matmul-ReduceScatter): shows `why`
  // instead of the charts; an empty text shows the charts again.
  void setNotApplicable(const QString& why);
  QString notApplicableText() const;
  const ExpertLoad& load() const { return load_; }
  EplbTableModel* tableModel() const { return model_; }
  QPushButton* rebalanceButton() const { return rebalance_; }
  QSpinBox* redundantSpin() const { return redundant_; }
  // The next load is the rebalanced run's: keep the current one to show beside it.
  void beginRebalance();
  // "previous table → rebalanced" figures after a rebalance; empty otherwise.
  QString rebalanceText() const;

 signals:
  // The user asked for a table generated from `perExpertLoad` with that many spare slots.
  void rebalanceRequested(const std::vector<double>& perExpertLoad, int redundantExperts);

 private:
  ExpertLoad load_;
  ExpertLoad beforeRebalance_;  // the load before "Rebalance", while comparing with it
  bool rebalancing_ = false;    // the next setLoad is the rebalanced run's
  bool compared_ = false;       // the view shows a before/after rebalance comparison
  QLabel* rebalanceResult_;
  QLabel* notApplicable_;
  QWidget* content_;
  QLabel* summary_;
  QSpinBox* redundant_;
  QPushButton* rebalance_;
  QChartView* experts_;
  InstanceLoadWidget* instances_;
  QChartView* ranks_;
  EplbTableModel* model_;
  QTableView* table_;
};

}  // namespace moe::ui
