#pragma once
// Metrics over emulated time, as Qt Charts lines: link bandwidth by type, ring and
// workspace-stage occupancy, and cores busy vs waiting. Points accumulate in preallocated
// vectors and each series is updated with one replace() per frame (the Qt Charts "audio"
// habit), not point by point.

#include <QVector>
#include <QWidget>
#include <vector>
#include "ui/widgets/qt_charts.h"

#include "ui/run/metrics_sample.h"

MOE_CHARTS_BEGIN_NAMESPACE
class QChartView;
class QLineSeries;
class QValueAxis;
MOE_CHARTS_END_NAMESPACE
MOE_CHARTS_USE_NAMESPACE

namespace moe::ui {

class MetricsView : public QWidget {
  Q_OBJECT
 public:
  explicit MetricsView(QWidget* parent = nullptr);
  void clear();
  void append(const std::vector<MetricsSample>& samples);
  // Pushes accumulated points into the series; called by the GUI's frame timer.
  void refresh();
  int pointCount() const { return static_cast<int>(points_[0].size()); }

 protected:
  void showEvent(QShowEvent* e) override;

 private:
  enum Series { Hccs, Nic, Hbm, RingFill, StageFill, Busy, Waiting, Count };
  QChartView* addChart(const QString& title, const QString& yTitle,
                       std::initializer_list<Series> series);

  QLineSeries* series_[Count] = {};
  QValueAxis* x_[3] = {};
  // Value axes: one per chart, and HBM's own on the bandwidth chart's right (kHbmAxis).
  static constexpr int kHbmAxis = 3;
  QValueAxis* y_[4] = {};
  QVector<QPointF> points_[Count];
  double yMax_[4] = {1, 1, 1, 1};
  bool dirty_ = false;
};

}  // namespace moe::ui
