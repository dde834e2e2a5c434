// Runs compared side by side share one time axis: in Compare (every design) and in A/B
// (the two sides) each run's timeline maps the same time to the same x, the axis ends at a
// round value at or past the longest run, and a shorter run's end sits proportionally
// further left, so a run three times longer is drawn three times wider.

#include <QSignalSpy>
#include <QTabWidget>
#include <QTest>

#include "by_name.h"
#include "core/engine/time.h"
#include "gui_test_registry.h"
#include "small_scenario.h"
#include "ui/widgets/ab_compare_view.h"
#include "ui/widgets/compare_view.h"
#include "ui/widgets/main_window.h"
#include "ui/widgets/nice_scale.h"
#include "ui/widgets/run_timeline_widget.h"
#include "ui/widgets/shared_timelines.h"

namespace moe::ui::test {

namespace {
// Every timeline maps the same times to the same x; each run's end is at its share of
// the axis.
void checkShared(const SharedTimelines* box, int runs) {
  QCOMPARE(box->count(), runs);
  Time longest = 0;
  for (int i = 0; i < runs; ++i) longest = std::max(longest, box->timeline(i)->data().end);
  QVERIFY(box->axisEndUs() * kUs >= static_cast<double>(longest));
  QVERIFY(box->axisEndUs() * kUs < 2.0 * static_cast<double>(longest));
  const RunTimelineWidget* first = box->timeline(0);
  QVERIFY(first->width() > 200);
  for (int i = 1; i < runs; ++i) {
    const RunTimelineWidget* other = box->timeline(i);
    QCOMPARE(other->width(), first->width());
    for (double f : {0.0, 0.25, 0.5, 1.0}) {
      const Time t = static_cast<Time>(f * static_cast<double>(longest));
      QCOMPARE(other->xAt(t), first->xAt(t));
    }
  }
  // Lengths on screen in the ratio of the run times.
  const TimeAxis ax = first->axis();
  for (int i = 0; i < runs; ++i) {
    const Time end = box->timeline(i)->data().end;
    const double drawn = box->timeline(i)->xAt(end) - ax.left;
    QVERIFY(std::abs(drawn - static_cast<double>(end) / ax.psPerPx) < 1e-6);
  }
  // The round axis end sits at the plot's right end, the same for all.
  QCOMPARE(first->xAt(static_cast<Time>(box->axisEndUs() * kUs)),
           box->timeline(runs - 1)->xAt(static_cast<Time>(box->axisEndUs() * kUs)));
}
}  // namespace

class SharedTimelineTest : public QObject {
  Q_OBJECT
 private slots:
  void niceScaleEndsOnARoundTick() {
    const NiceScale s = niceScale(1234, 7);
    QCOMPARE(s.step, 200.0);
    QCOMPARE(s.end, 1400.0);
    QCOMPARE(niceScale(1234, 6).step, 500.0);  // 200 would make 7 intervals
    QCOMPARE(niceScale(100, 5).end, 100.0);
    QCOMPARE(niceScale(0.37, 4).step, 0.1);
  }

  void compareDesignsShareOneTimeAxis() {
    MainWindow w;
    w.resize(1400, 900);
    w.loadScenario(smallScenario());
    w.show();
    CompareView* compare = byName<CompareView>(w, "compare");
    byName<QTabWidget>(w, "views")->setCurrentWidget(compare);
    QSignalSpy done(&w, &MainWindow::compareDone);
    w.startCompare();
    QVERIFY(done.wait(120000) || done.count() > 0);
    QTest::qWait(50);  // layouts settle
    SharedTimelines* box = compare->timelines();
    QVERIFY(box->isVisible());
    checkShared(box, 3);
    QCOMPARE(box->timeline(0)->data().name, QStringLiteral("phased"));
    // The designs differ in length, and the drawing shows it.
    QVERIFY(box->timeline(0)->data().end != box->timeline(1)->data().end);
    QVERIFY(!box->timeline(0)->data().roles.empty());
  }

  void abSidesShareOneTimeAxis() {
    MainWindow w;
    w.resize(1400, 900);
    w.loadScenario(smallScenario());
    w.show();
    AbCompareView* ab = byName<AbCompareView>(w, "ab");
    byName<QTabWidget>(w, "views")->setCurrentWidget(ab);
    for (int side : {0, 1}) {
      if (side == 1) {
        Scenario b = smallScenario();
        b.rings.setBoth(&RingTiling::queueChunks, 2);
        w.loadScenario(b);
      }
      QSignalSpy done(&w, &MainWindow::abDone);
      w.startAb(side);
      QVERIFY(done.wait(120000) || done.count() > 0);
    }
    QTest::qWait(50);
    SharedTimelines* box = ab->timelines();
    QVERIFY(box->isVisible());
    checkShared(box, 2);
    QVERIFY(box->timeline(0)->data().name.startsWith("A: streaming"));
    QVERIFY(box->timeline(0)->data().name.endsWith("(stale)"));
    QVERIFY(box->timeline(1)->data().name.startsWith("B: streaming"));
  }
};

static Register<SharedTimelineTest> reg;

}  // namespace moe::ui::test

#include "shared_timeline_test.moc"
