#pragma once
// Compare mode's worker: runs phased and streaming dispatch on the same scenario and gating
// (core's runScenario, verified) in its own thread and hands back the key figures as values.

#include <QMetaType>
#include <QObject>
#include <QString>
#include <QStringList>
#include <vector>

#include "core/scenario/scenario.h"

namespace moe::ui {

struct CompareResult {
  QStringList impls;                  // "phased", "streaming"
  QStringList figureNames;
  std::vector<std::vector<QString>> figures;  // [figure][impl]
  QStringList stageNames;
  std::vector<std::vector<double>> stageUs;   // [impl][stage] durations in us
  QString verdict;                    // verification and cross-check summary
};

class CompareRunner : public QObject {
  Q_OBJECT
 public slots:
  void run(const moe::Scenario& sc);

 signals:
  void finished(const moe::ui::CompareResult& r);
  void failed(const QString& message);
};

}  // namespace moe::ui

Q_DECLARE_METATYPE(moe::ui::CompareResult)
