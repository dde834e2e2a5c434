#include "ui/run/tune_runner.h"

#include "core/studies/streaming_tuner.h"
#include "ui/run/warm_memory_given_back.h"

namespace moe::ui {

void TuneRunner::run(const moe::Scenario& sc, int budget) {
  const WarmMemoryGivenBackAtEnd givenBack;
  try {
    TuneOptions o;
    o.budget = budget;
    o.cancel = &cancel_;
    o.onProgress = [this](int done, int total) { emit progress(done, total); };
    const TuneResult r = tuneStreaming(sc, o);
    if (cancel_) return;
    const QString summary =
        tr("Tuned (%1 engine runs): streaming %2 us -> %3 us (phased %4 us); combine %5 us vs "
           "phased %6 us")
            .arg(r.runs)
            .arg(r.baseline.totalUs, 0, 'f', 1)
            .arg(r.best.totalUs, 0, 'f', 1)
            .arg(r.phased.totalUs, 0, 'f', 1)
            .arg(r.best.combineUs, 0, 'f', 1)
            .arg(r.phased.combineUs, 0, 'f', 1);
    // Say when the tuned streaming combine computes differently from the phased one.
    const std::string numerics = numericsVsPhased(r.best.knobs);
    emit finished(r.tuned, numerics.empty()
                               ? summary
                               : summary + QStringLiteral(" (") + QString::fromStdString(numerics) +
                                     QStringLiteral(")"));
  } catch (const std::exception& e) {
    emit failed(tr("Cannot tune: %1").arg(QString::fromStdString(e.what())));
  }
}

}  // namespace moe::ui
