#include "ui/widgets/design_choices.h"

#include <QComboBox>
#include <QSignalBlocker>
#include <algorithm>

#include "core/run/design_registry.h"

namespace moe::ui {

void fillDesignChoices(QComboBox* box, WorkloadKind kind) {
  QSignalBlocker block(box);
  box->clear();
  // The design covers dispatch and combine both, so its name stays true during the combine.
  std::vector<Design> designs = designsOf(kind);
  std::stable_partition(designs.begin(), designs.end(),
                        [&](Design d) { return d == defaultDesign(kind); });
  QString tip = QObject::tr("Which design the live run uses (Compare runs them all):");
  for (Design d : designs) {
    const DesignEntry& e = designEntry(d);
    box->addItem(QString::fromStdString(std::string(e.name)), static_cast<int>(d));
    tip += QStringLiteral("\n") + QString::fromStdString(std::string(e.name)) + ": " +
           QString::fromStdString(std::string(e.description));
  }
  box->setToolTip(tip);
}

}  // namespace moe::ui
