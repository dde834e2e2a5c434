#pragma once
// Key figures of the designs (phased, streaming, flat): one row per figure, one column per design.

#include <QAbstractTableModel>

#include "ui/run/compare_runner.h"

namespace moe::ui {

class CompareTableModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  using QAbstractTableModel::QAbstractTableModel;
  void setResult(const CompareResult& r);
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation o, int role) const override;

 private:
  CompareResult r_;
};

}  // namespace moe::ui
