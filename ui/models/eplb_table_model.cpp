#include "ui/models/eplb_table_model.h"

#include <QBrush>
#include <QStringList>

namespace moe::ui {

void EplbTableModel::setLoad(const ExpertLoad& load) {
  beginResetModel();
  load_ = load;
  std::vector<int> replicas;
  for (const auto& row : load_.table) replicas.push_back(row.empty() ? 0 : row[0]);
  colors_ = ExpertColors(replicas);
  endResetModel();
}

int EplbTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(load_.table.size());
}

int EplbTableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant EplbTableModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount) return {};
  const int e = index.row();
  const std::vector<int>& row = load_.table[static_cast<std::size_t>(e)];
  const int count = row.empty() ? 0 : row[0];
  const int P = std::max(1, load_.placePerRank);
  const double routed = e < static_cast<int>(load_.perExpert.size())
                            ? load_.perExpert[static_cast<std::size_t>(e)]
                            : 0;
  if (role == Qt::DisplayRole) {
    switch (index.column()) {
      case Expert:
        return QString::number(e);
      case Routed:
        return QString::number(routed, 'f', 0);
      case Instances: {
        // Each replica: its instance id, its rank, and the token slots it received.
        QStringList parts;
        for (int c = 1; c <= count && c < static_cast<int>(row.size()); ++c) {
          const int inst = row[static_cast<std::size_t>(c)];
          const double got = inst >= 0 && inst < static_cast<int>(load_.perInstanceAfter.size())
                                 ? load_.perInstanceAfter[static_cast<std::size_t>(inst)]
                                 : 0;
          parts << QString("#%1 r%2: %3").arg(inst).arg(inst / P).arg(got, 0, 'f', 0);
        }
        return parts.join(", ");
      }
    }
  }
  if (role == SortRole) {
    switch (index.column()) {
      case Expert:
        return e;
      case Routed:
        return routed;
      case Instances:
        return count;  // most replicated first when sorted descending
      default:
        return data(index, Qt::DisplayRole);
    }
  }
  if (role == Qt::DecorationRole && index.column() == Expert) return colors_.of(e);
  if (role == Qt::TextAlignmentRole && index.column() == Routed)
    return QVariant(Qt::AlignRight | Qt::AlignVCenter);
  if (role == Qt::ToolTipRole)
    return tr("Logical expert %1: %2 token slots routed to it, served by %3 instance(s); "
              "instance #p lives on rank p / %4")
        .arg(e)
        .arg(routed, 0, 'f', 0)
        .arg(count)
        .arg(P);
  return {};
}

QVariant EplbTableModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal) return {};
  // Short titles fit a narrow column at presenter scale; the tooltip says how to read a cell.
  if (role == Qt::ToolTipRole) {
    switch (section) {
      case Expert:
        return tr("The logical expert id");
      case Routed:
        return tr("Token slots the router sent to this expert");
      case Instances:
        return tr("Each instance of the expert: #instance id, the rank holding it, and the token "
                  "slots it received");
    }
    return {};
  }
  if (role != Qt::DisplayRole) return {};
  switch (section) {
    case Expert:
      return tr("Expert");
    case Routed:
      return tr("Routed");
    case Instances:
      return tr("Instances");
  }
  return {};
}

}  // namespace moe::ui
