#pragma once
// A/B Compare: pin the current run as A, change anything (scenario, hardware, design), run
// B, and read the two side by side: key figures (with B against A), stage durations and the
// rings' occupancy over time. Each side remembers the scenario and design it ran; a side
// whose scenario or design is no longer the current one is marked stale (greyed, with the
// fields that changed), never shown as current.

#include <QWidget>
#include <optional>

#include "ui/run/ab_runner.h"
#include "ui/widgets/qt_charts.h"

MOE_CHARTS_BEGIN_NAMESPACE
class QChartView;
MOE_CHARTS_END_NAMESPACE
MOE_CHARTS_USE_NAMESPACE

class QLabel;
class QPushButton;
class QTableWidget;
class QTabWidget;

namespace moe::ui {

class SharedTimelines;

class AbCompareView : public QWidget {
  Q_OBJECT
 public:
  explicit AbCompareView(QWidget* parent = nullptr);
  // The scenario and design the live run shows now (what "stale" is measured against).
  void setCurrent(const Scenario& sc, Design design);
  void setBusy(int side);
  void setResult(int side, const AbSide& result);

  bool hasSide(int side) const { return sides_[side].has_value(); }
  const AbSide& side(int side) const { return *sides_[side]; }
  bool isStale(int side) const;
  QPushButton* pinButton() const { return pin_; }
  QPushButton* runBButton() const { return runB_; }
  QTableWidget* table() const { return table_; }
  QChartView* stageChart() const { return stages_; }
  QChartView* ringChart() const { return rings_; }
  // A's and B's runs as timelines on one time axis.
  SharedTimelines* timelines() const { return timelines_; }
  QLabel* sideLabel(int side) const { return label_[side]; }
  // Selects the tab with the stage and ring charts (the timelines' tab is first).
  void showCharts();

 signals:
  // Run the current scenario and design for side 0 (A, pin) or 1 (B).
  void runRequested(int side);

 private:
  // Redraws everything from the sides; each part below is one of the view's boxes.
  void refresh();
  void refreshLabels();
  void refreshTable();
  void refreshStageChart();
  void refreshRingChart();
  void refreshTimelines();

  Scenario current_;
  Design design_ = Design::Streaming;
  std::optional<AbSide> sides_[2];
  bool busy_[2] = {false, false};
  QPushButton* pin_;
  QPushButton* runB_;
  QLabel* label_[2];
  QTableWidget* table_;
  QTabWidget* parts_;
  QChartView* stages_;
  QChartView* rings_;
  SharedTimelines* timelines_;
};

}  // namespace moe::ui
