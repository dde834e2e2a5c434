#pragma once
// Expert load before and after MoeUpdateExpert: Qt Charts bars per logical expert, per
// physical instance and per rank, each titled with its imbalance (max/mean). Chart code
// stays behind this widget so a later move to Qt Graphs touches one file.

#include <QWidget>

class QLabel;

#include "ui/run/expert_load.h"

#include <QtCharts/QChartGlobal>

QT_CHARTS_BEGIN_NAMESPACE
class QChartView;
QT_CHARTS_END_NAMESPACE
// Qt 5 puts the chart classes in a namespace, Qt 6 does not; the macro covers both.
QT_CHARTS_USE_NAMESPACE

namespace moe::ui {

class ExpertsView : public QWidget {
  Q_OBJECT
 public:
  explicit ExpertsView(QWidget* parent = nullptr);
  void setLoad(const ExpertLoad& load);
  // The "not applicable" text when the workload has no experts, else empty.
  QString notApplicableText() const;

 private:
  QLabel* notApplicable_;
  QChartView* experts_;
  QChartView* instances_;
  QChartView* ranks_;
};

}  // namespace moe::ui
