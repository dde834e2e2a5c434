// The workbench's Tune action: the search runs in its own thread (the GUI keeps its event
// loop), reports progress in the status bar, and loads the tuned scenario when done.

#include <QAction>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTest>

#include "core/studies/streaming_tuner.h"
#include "gui_test_registry.h"
#include "ui/widgets/main_window.h"

namespace moe::ui::test {

class TuneActionTest : public QObject {
  Q_OBJECT
 private slots:
  void tuneRunsInTheBackgroundAndLoadsTheResult() {
    MainWindow w;
    Scenario s;
    s.name = "tune-gui";
    s.cluster.servers = 2;
    s.cluster.cardsPerServer = 2;
    s.hardware.cardsPerServer = 2;
    s.model.tokensPerRank = 16;
    s.model.hidden = 64;
    s.model.topk = 4;
    s.model.experts = 8;
    s.model.intermediate = 32;
    s.rings.setBoth(&RingTiling::chunkBytes, 2048);
    s.rings.setBoth(&RingTiling::queueChunks, 4);
    s.rings.setBoth(&RingTiling::senderCores, 2);
    s.rings.setBoth(&RingTiling::forwarderCores, 2);
    s.rings.setBoth(&RingTiling::receiverCores, 2);
    w.loadScenario(s);
    QSignalSpy done(&w, &MainWindow::tuneDone);
    w.startTune(3);
    QVERIFY(!w.tuneAction()->isEnabled());  // one search at a time
    QVERIFY(done.wait(120000));
    QVERIFY(w.tuneAction()->isEnabled());
    QVERIFY2(w.statusBar()->currentMessage().startsWith("Tuned ("),
             qPrintable(w.statusBar()->currentMessage()));
    // The window now holds the tuned knobs on the same model: what tuneStreaming finds.
    TuneOptions o;
    o.budget = 3;
    const TuneResult r = tuneStreaming(s, o);
    QVERIFY(knobsOf(w.scenario()) == r.best.knobs);
    QCOMPARE(w.scenario().model, s.model);
  }
};

static Register<TuneActionTest> reg;

}  // namespace moe::ui::test

#include "tune_action_test.moc"
