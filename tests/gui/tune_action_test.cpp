// The workbench's Tune action: the search runs in its own thread (the GUI keeps its event
// loop), reports progress in the status bar, then asks before changing anything: a dialog
// lists every changed field old → new with the numerics fields marked. Apply loads the tuned
// scenario; Keep current leaves the scenario and the run as they were.

#include <QAction>
#include <QPushButton>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTableWidget>
#include <QTest>

#include "by_name.h"
#include "core/studies/streaming_tuner.h"
#include "gui_test_registry.h"
#include "ui/widgets/main_window.h"
#include "ui/widgets/tune_diff_dialog.h"

namespace moe::ui::test {

namespace {

Scenario tuneScenario() {
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
  s.rings.setBoth(RingTiling{2048, 4, 2, 2, 2});
  return s;
}

// Starts Tune on `s` and returns the dialog it opens (the search must change something).
TuneDiffDialog* tuneAndWaitForDialog(MainWindow& w) {
  QSignalSpy offered(&w, &MainWindow::tuneOffered);
  w.startTune(3);
  if (byName<QAction>(w, "tune")->isEnabled()) return nullptr;  // one search at a time
  if (!offered.wait(120000)) return nullptr;
  return w.findChild<TuneDiffDialog*>();
}

}  // namespace

class TuneActionTest : public QObject {
  Q_OBJECT
 private slots:
  void tuneShowsEveryChangedFieldAndApplyLoadsIt() {
    MainWindow w;
    const Scenario s = tuneScenario();
    w.loadScenario(s);
    TuneDiffDialog* d = tuneAndWaitForDialog(w);
    QVERIFY(d != nullptr);
    QVERIFY(d->isVisible());
    QVERIFY(byName<QAction>(w, "tune")->isEnabled());
    QCOMPARE(w.scenario(), s);  // nothing applied yet
    // The search is deterministic: the dialog offers what tuneStreaming finds.
    TuneOptions o;
    o.budget = 3;
    const TuneResult r = tuneStreaming(s, o);
    QCOMPARE(d->tuned(), r.tuned);
    // Every changed field is a row, old → new, none left out.
    const std::vector<FieldChange> expect = scenarioChanges(s, r.tuned);
    QVERIFY(!expect.empty());
    QCOMPARE(d->table()->rowCount(), static_cast<int>(expect.size()));
    for (int i = 0; i < d->table()->rowCount(); ++i) {
      const FieldChange& c = expect[static_cast<std::size_t>(i)];
      QVERIFY(d->table()->item(i, 0)->text().endsWith(QString::fromStdString(c.path)));
      QCOMPARE(d->table()->item(i, 1)->text(), QString::fromStdString(c.from));
      QCOMPARE(d->table()->item(i, 2)->text(), QString::fromStdString(c.to));
      // A numerics field says so in words, a tiling field says it changes speed only.
      const bool numerics =
          c.path == "combine.partial_dtype" || c.path == "combine.sum_local_experts";
      QCOMPARE(TuneDiffDialog::changesNumerics(c.path), numerics);
      QCOMPARE(d->table()->item(i, 3)->text().startsWith("CHANGES THE NUMBERS"), numerics);
      QCOMPARE(d->table()->item(i, 0)->text().startsWith("⚠"), numerics);
    }
    QSignalSpy done(&w, &MainWindow::tuneDone);
    QTest::mouseClick(d->applyButton(), Qt::LeftButton);
    QVERIFY(done.count() == 1 || done.wait(5000));
    QCOMPARE(w.scenario(), r.tuned);
    QVERIFY(knobsOf(w.scenario()) == r.best.knobs);
    QCOMPARE(w.scenario().model, s.model);
    QVERIFY2(w.statusBar()->currentMessage().startsWith("Applied: Tuned ("),
             qPrintable(w.statusBar()->currentMessage()));
  }

  void aTuneThatChangesNothingAsksNothing() {
    // A budget of two engine runs (the scenario itself and phased) tries no other knobs:
    // nothing to offer, so no dialog, and the status says so.
    TuneOptions o;
    o.budget = 2;
    const Scenario s = tuneScenario();
    QVERIFY(scenarioChanges(s, tuneStreaming(s, o).tuned).empty());
    MainWindow w;
    w.loadScenario(s);
    QSignalSpy offered(&w, &MainWindow::tuneOffered);
    QSignalSpy done(&w, &MainWindow::tuneDone);
    w.startTune(2);
    QVERIFY(done.wait(120000));
    QCOMPARE(offered.count(), 0);
    QVERIFY(w.findChild<TuneDiffDialog*>() == nullptr);
    QCOMPARE(w.scenario(), s);
    QVERIFY2(
        w.statusBar()->currentMessage().endsWith("nothing to change: the current tiling stays"),
        qPrintable(w.statusBar()->currentMessage()));
  }

  void theNumericsKnobsAreMarked() {
    // A tuned scenario that flips both numerics knobs and one tiling knob.
    Scenario a = tuneScenario();
    Scenario b = a;
    b.combine.partialDtype = PartialDtype::Bf16;
    b.combine.sumLocalExperts = !a.combine.sumLocalExperts;
    b.combine.rdmaBatchBytes = a.combine.rdmaBatchBytes + 65536;
    TuneDiffDialog d(a, b, "summary");
    QCOMPARE(d.table()->rowCount(), 3);
    int marked = 0;
    for (int i = 0; i < 3; ++i) marked += d.table()->item(i, 0)->text().startsWith("⚠") ? 1 : 0;
    QCOMPARE(marked, 2);
    const QList<QTableWidgetItem*> dtype =
        d.table()->findItems("combine.partial_dtype", Qt::MatchEndsWith);
    QCOMPARE(dtype.size(), 1);
    QCOMPARE(d.table()->item(dtype[0]->row(), 1)->text(), QString("fp32"));
    QCOMPARE(d.table()->item(dtype[0]->row(), 2)->text(), QString("bf16"));
    const QList<QTableWidgetItem*> batch =
        d.table()->findItems("combine.rdma_batch_bytes", Qt::MatchExactly);
    QCOMPARE(batch.size(), 1);
    QCOMPARE(d.table()->item(batch[0]->row(), 3)->text(), QString("speed only"));
  }

  void aFieldEditedWhileTuneRanIsNamedAsSuch() {
    // The dialog compares with the scenario as it is when the search ends: a field edited
    // meanwhile is listed too, and Apply would put its old value back, so it says so.
    Scenario tuned = tuneScenario();
    Scenario current = tuned;
    current.model.tokensPerRank = 32;
    current.rings.combine.queueChunks = 8;  // a stage's own ring knob is still a knob
    TuneDiffDialog d(current, tuned, "summary");
    QCOMPARE(d.table()->rowCount(), 2);
    const QList<QTableWidgetItem*> tokens =
        d.table()->findItems("model.tokens_per_rank", Qt::MatchExactly);
    QCOMPARE(tokens.size(), 1);
    QVERIFY(d.table()->item(tokens[0]->row(), 3)->text().startsWith("not a Tune knob"));
    QVERIFY(TuneDiffDialog::isTuneKnob("rings.combine.queue_chunks"));
    QVERIFY(!TuneDiffDialog::isTuneKnob("model.tokens_per_rank"));
  }

  void keepCurrentLeavesTheScenarioAndTheRun() {
    MainWindow w;
    const Scenario s = tuneScenario();
    w.loadScenario(s);
    w.step(true);  // the run has moved on from t = 0
    QVERIFY(QTest::qWaitFor([&] { return w.liveSnapshot() && w.liveSnapshot()->now > 0; }, 60000));
    const Time before = w.liveSnapshot()->now;
    TuneDiffDialog* d = tuneAndWaitForDialog(w);
    QVERIFY(d != nullptr);
    QSignalSpy done(&w, &MainWindow::tuneDone);
    QTest::mouseClick(d->keepButton(), Qt::LeftButton);
    QVERIFY(done.count() == 1 || done.wait(5000));
    QCOMPARE(w.scenario(), s);
    QTest::qWait(200);  // a reload would have sent a t = 0 frame by now
    QCOMPARE(w.liveSnapshot()->now, before);
    QVERIFY(w.statusBar()->currentMessage().startsWith("Kept the current scenario"));
    QVERIFY(byName<QAction>(w, "tune")->isEnabled());
  }
};

static Register<TuneActionTest> reg;

}  // namespace moe::ui::test

#include "tune_action_test.moc"
