#pragma once
// A heat map of one figure over two sweep axes: one cell per point, coloured from the
// smallest to the largest value (loadColor's ramp), the value printed in the cell, axis
// values along the edges. A cell without a value (an invalid point, or one a cancel
// skipped) is grey and says why; its tooltip gives the whole reason. Clicking a cell reports
// its column and row.

#include <QString>
#include <QStringList>
#include <QWidget>
#include <optional>
#include <vector>

namespace moe::ui {

class HeatMapWidget : public QWidget {
  Q_OBJECT
 public:
  explicit HeatMapWidget(QWidget* parent = nullptr);
  struct Cell {
    std::optional<double> value;
    QString text;  // what the cell shows (the value formatted, or why there is none)
    QString tip;   // the cell's tooltip (an invalid point's whole reason); "" for the default
  };
  // cells[row * columns + column]; columns along x (xTitle), rows along y (yTitle).
  void setData(const QString& title, const QString& xTitle, const QStringList& xLabels,
               const QString& yTitle, const QStringList& yLabels, std::vector<Cell> cells);
  int columns() const { return static_cast<int>(xLabels_.size()); }
  int rows() const { return static_cast<int>(yLabels_.size()); }
  const Cell& cell(int column, int row) const;
  // The cell under a widget position, or {-1, -1}.
  QPoint cellAt(QPoint pos) const;
  QRect cellRect(int column, int row) const;
  QSize minimumSizeHint() const override { return {320, 220}; }

 signals:
  void cellClicked(int column, int row);

 protected:
  void paintEvent(QPaintEvent*) override;
  void mousePressEvent(QMouseEvent* e) override;
  bool event(QEvent* e) override;

 private:
  QRect grid() const;
  QString title_, xTitle_, yTitle_;
  QStringList xLabels_, yLabels_;
  std::vector<Cell> cells_;
};

}  // namespace moe::ui
