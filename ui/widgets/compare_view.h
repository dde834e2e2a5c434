#pragma once
// Compare mode: the designs of the scenario's workload side by side (phased, streaming and flat
// dispatch, or pipelined vs sequential AlltoAll-Matmul-ReduceScatter): a table of key
// figures, a chart of stage durations and why each design's dispatch and combine took
// their time (their critical paths).

#include <QWidget>
#include "ui/widgets/qt_charts.h"

#include "core/scenario/scenario.h"
#include "ui/models/compare_parts.h"
#include "ui/models/compare_table_model.h"

MOE_CHARTS_BEGIN_NAMESPACE
class QBarCategoryAxis;
class QChartView;
MOE_CHARTS_END_NAMESPACE
MOE_CHARTS_USE_NAMESPACE

class QLabel;
class QTabWidget;
class QPushButton;
class QTableView;

namespace moe::ui {

class SharedTimelines;

class CompareView : public QWidget {
  Q_OBJECT
 public:
  explicit CompareView(QWidget* parent = nullptr);
  void setResult(const CompareResult& r);
  void setBusy(const QString& message);
  // The button and tooltips name the designs this workload compares.
  void setWorkload(WorkloadKind kind);
  CompareTableModel* model() const { return model_; }
  // The scenario changed since these figures were computed: say so, grey them out and
  // offer the run button. A new result clears it.
  void setStale(bool stale);
  bool isStale() const { return stale_; }
  QString verdictText() const;
  QChartView* chartView() const { return chart_; }
  // Each design's run as a timeline, all on one time axis.
  SharedTimelines* timelines() const { return timelines_; }
  // The "Why" panel's text: each design's dispatch and combine critical-path lines.
  QString whyText() const;
  // Selects the part's tab (a lesson step shows the part its text talks about).
  void showPart(ComparePart part);
  ComparePart shownPart() const;
  void showWhy() { showPart(ComparePart::Why); }

 signals:
  void runRequested();

 private:
  CompareTableModel* model_;
  QTableView* table_;
  QChartView* chart_;
  SharedTimelines* timelines_;
  QLabel* verdict_;
  QPushButton* run_;
  QLabel* why_;
  QTabWidget* parts_;
  QLabel* staleLabel_;
  bool stale_ = false;
  bool hasResult_ = false;
  // Tall enough for every category's name beside its bars.
  void fitChartTo(const QBarCategoryAxis& categories);
};

}  // namespace moe::ui
