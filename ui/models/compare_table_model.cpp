#include "ui/models/compare_table_model.h"

namespace moe::ui {

void CompareTableModel::setResult(const CompareResult& r) {
  beginResetModel();
  r_ = r;
  endResetModel();
}

int CompareTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(r_.figures.size());
}

int CompareTableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(r_.impls.size());
}

QVariant CompareTableModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount() || index.column() >= columnCount()) return {};
  const auto& row = r_.figures[index.row()];
  if (index.column() >= static_cast<int>(row.size())) return {};
  if (role == Qt::DisplayRole) return row[index.column()];
  if (role == Qt::TextAlignmentRole) return QVariant(Qt::AlignRight | Qt::AlignVCenter);
  if (role == Qt::ToolTipRole)
    return QString("%1, %2").arg(r_.figureNames[index.row()], r_.impls[index.column()]);
  return {};
}

QVariant CompareTableModel::headerData(int section, Qt::Orientation o, int role) const {
  if (role != Qt::DisplayRole || section < 0) return {};
  if (o == Qt::Horizontal)
    return section < r_.impls.size() ? QVariant(r_.impls[section]) : QVariant();
  return section < r_.figureNames.size() ? QVariant(r_.figureNames[section]) : QVariant();
}

}  // namespace moe::ui
