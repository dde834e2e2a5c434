#include "screenshot.h"

#include <QDir>
#include <QEventLoop>
#include <QTabWidget>
#include <QTimer>
#include <cstdio>

#include "ui/run/run_controller.h"
#include "ui/widgets/card_view.h"
#include "ui/widgets/main_window.h"
#include "ui/widgets/timeline_widget.h"

namespace moe::ui {

namespace {
// Waits for `signal` of `obj` (or the timeout); returns false on timeout.
template <typename Obj, typename Signal>
bool waitFor(Obj* obj, Signal signal, int timeoutMs) {
  QEventLoop loop;
  bool fired = false;
  auto c = QObject::connect(obj, signal, &loop, [&] {
    fired = true;
    loop.quit();
  });
  QTimer::singleShot(timeoutMs, &loop, &QEventLoop::quit);
  loop.exec();
  QObject::disconnect(c);
  return fired;
}
}  // namespace

int writeScreenshots(MainWindow& w, const QString& dir) {
  if (!QDir().mkpath(dir)) {
    std::fprintf(stderr, "cannot create %s\n", qPrintable(dir));
    return 1;
  }
  w.resize(1400, 900);
  w.show();
  w.startCompare();
  // Run until rings and cores are busy (the MoE layer: dispatch under way; the fused
  // operator: mid-run). The frame showing that moment reaches the window before the signal.
  QMetaObject::invokeMethod(w.controller(), &RunController::runUntilBusy);
  if (!waitFor(w.controller(), &RunController::busyReached, 120000)) {
    std::fprintf(stderr, "the run did not reach a busy moment\n");
    return 1;
  }
  if (!waitFor(&w, &MainWindow::compareDone, 300000)) {
    std::fprintf(stderr, "compare did not finish\n");
    return 1;
  }
  // The busiest card: the one with the most bytes in its rings and workspace stages, so
  // card.png shows traffic.
  const auto s = w.liveSnapshot();
  std::vector<std::int64_t> perCard(s->cards.size(), 0);
  for (const RingSnap& r : s->rings) perCard[r.consumerCard] += r.occupied();
  for (const StagesSnap& st : s->workspace) perCard[st.card] += st.occupied * st.slotBytes;
  w.cardView()->showCard(
      static_cast<int>(std::max_element(perCard.begin(), perCard.end()) - perCard.begin()));
  w.timeline()->fitAll();
  w.timeline()->setScrubTime(s->now);
  const char* names[] = {"cluster", "card", "experts", "timeline", "metrics", "editor", "compare"};
  for (int i = 0; i < 7; ++i) {
    w.tabs()->setCurrentIndex(i);
    QEventLoop loop;
    QTimer::singleShot(150, &loop, &QEventLoop::quit);  // let layouts and charts settle
    loop.exec();
    const QString file = QDir(dir).filePath(QString(names[i]) + ".png");
    if (!w.grab().save(file)) {
      std::fprintf(stderr, "cannot write %s\n", qPrintable(file));
      return 1;
    }
    std::printf("wrote %s\n", qPrintable(file));
  }
  return 0;
}

}  // namespace moe::ui
