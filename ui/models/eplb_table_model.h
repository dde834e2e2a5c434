#pragma once
// The eplb_table as a readable grid (DESIGN.md §3.1): one row per logical expert with its routed
// load, its replicas, and each replica's instance and rank, coloured like its instance bars.

#include <QAbstractTableModel>

#include "ui/run/expert_load.h"
#include "ui/style/expert_colors.h"

namespace moe::ui {

class EplbTableModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { Expert, Routed, Instances, ColumnCount };
  static constexpr int SortRole = Qt::UserRole + 1;  // numbers for numeric columns
  using QAbstractTableModel::QAbstractTableModel;
  void setLoad(const ExpertLoad& load);
  const ExpertColors& colors() const { return colors_; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation o, int role) const override;

 private:
  ExpertLoad load_;
  ExpertColors colors_;
};

}  // namespace moe::ui
