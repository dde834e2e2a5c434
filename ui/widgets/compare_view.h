#pragma once
// Compare mode: phased vs streaming dispatch side by side on the same scenario: a table of
// key figures and a chart of stage durations.

#include <QWidget>
#include <QtCharts/QChartGlobal>

#include "ui/models/compare_table_model.h"

QT_CHARTS_BEGIN_NAMESPACE
class QChartView;
QT_CHARTS_END_NAMESPACE
QT_CHARTS_USE_NAMESPACE

class QLabel;
class QPushButton;
class QTableView;

namespace moe::ui {

class CompareView : public QWidget {
  Q_OBJECT
 public:
  explicit CompareView(QWidget* parent = nullptr);
  void setResult(const CompareResult& r);
  void setBusy(const QString& message);
  CompareTableModel* model() const { return model_; }

 signals:
  void runRequested();

 private:
  CompareTableModel* model_;
  QTableView* table_;
  QChartView* chart_;
  QLabel* verdict_;
  QPushButton* run_;
};

}  // namespace moe::ui
