#include "screenshot.h"

#include <QDir>
#include <QEventLoop>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTabWidget>
#include <QTimer>
#include <cstdio>

#include <QComboBox>
#include <QLineEdit>
#include "ui/models/lesson.h"
#include "ui/run/run_controller.h"
#include "ui/widgets/ab_compare_view.h"
#include "ui/widgets/card_view.h"
#include "ui/widgets/compare_view.h"
#include "ui/widgets/elided_text.h"
#include "ui/widgets/lesson_panel.h"
#include "ui/widgets/main_window.h"
#include "ui/widgets/sweep_view.h"
#include "ui/widgets/timeline_widget.h"
#include "ui/widgets/view_registry.h"

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

namespace {
// Lets layouts and charts settle after a tab change.
void settle(int ms) {
  QEventLoop loop;
  QTimer::singleShot(ms, &loop, &QEventLoop::quit);
  loop.exec();
}

// Writes the window as DIR/NAME.png; with `elided`, reports clipped texts into it.
bool shoot(MainWindow& w, const QString& dir, const QString& name, bool* elided) {
  const QString file = QDir(dir).filePath(name + ".png");
  if (!w.grab().save(file)) {
    std::fprintf(stderr, "cannot write %s\n", qPrintable(file));
    return false;
  }
  std::printf("wrote %s\n", qPrintable(file));
  if (elided)
    for (const QString& e : elidedTexts(&w)) {
      std::fprintf(stderr, "%s: elided: %s\n", qPrintable(name), qPrintable(e));
      *elided = true;
    }
  return true;
}

// Every view of viewRegistry() whose picture waits for the runs (or does not), in tab order.
bool shootViews(MainWindow& w, const QString& dir, bool afterRuns, bool* elided) {
  for (const ViewEntry& e : viewRegistry()) {
    if (e.shotAfterRuns != afterRuns) continue;
    w.showView(e.id);
    settle(150);
    if (!shoot(w, dir, viewShotName(e), elided)) return false;
  }
  return true;
}

// Runs to a busy moment with Compare's runs done, and shows the busiest card: the one with
// the most bytes in its rings and workspace stages, so card.png shows traffic.
bool reachBusyMoment(MainWindow& w) {
  w.startCompare();
  // Run until rings and cores are busy (the MoE layer: dispatch under way; the fused
  // operator: mid-run). The frame showing that moment reaches the window before the signal.
  QMetaObject::invokeMethod(w.controller(), &RunController::runUntilBusy);
  if (!waitFor(w.controller(), &RunController::busyReached, 120000)) {
    std::fprintf(stderr, "the run did not reach a busy moment\n");
    return false;
  }
  if (!waitFor(&w, &MainWindow::compareDone, 300000)) {
    std::fprintf(stderr, "compare did not finish\n");
    return false;
  }
  const auto s = w.liveSnapshot();
  std::vector<std::int64_t> perCard(s->cards.size(), 0);
  for (const RingSnap& r : s->rings) perCard[r.consumerCard] += r.occupied();
  for (const StagesSnap& st : s->workspace) perCard[st.card] += st.occupied * st.slotBytes;
  w.cardView()->showCard(
      static_cast<int>(std::max_element(perCard.begin(), perCard.end()) - perCard.begin()));
  w.timeline()->fitAll();
  w.timeline()->setScrubTime(s->now);
  return true;
}

// A/B: the default run pinned as A, then B with half the ring chunk: A is marked stale
// (its scenario is no longer the current one) and the figures sit side by side.
bool runAb(MainWindow& w) {
  w.startAb(0);
  if (!waitFor(&w, &MainWindow::abDone, 300000)) {
    std::fprintf(stderr, "A/B: side A did not finish\n");
    return false;
  }
  // B also drops the payload bytes (the same times, much less work), so the sweep below,
  // which starts from the current scenario, stays cheap.
  Scenario b = w.scenario();
  b.rings.setBoth(&RingTiling::chunkBytes, b.rings.dispatch.chunkBytes / 2);
  b.payload = PayloadMode::None;
  w.loadScenario(b);
  w.startAb(1);
  if (!waitFor(&w, &MainWindow::abDone, 300000)) {
    std::fprintf(stderr, "A/B: side B did not finish\n");
    return false;
  }
  return true;
}

// Sweep: ring chunk x ring depth on the current scenario, as a heat map.
bool runSweep(MainWindow& w) {
  SweepView* sv = w.sweep();
  sv->fieldCombo(0)->setCurrentIndex(sv->fieldCombo(0)->findText("rings.chunk_bytes"));
  sv->valuesEdit(0)->setText("16384, 32768, 65536");
  sv->fieldCombo(1)->setCurrentIndex(sv->fieldCombo(1)->findText("rings.queue_chunks"));
  sv->valuesEdit(1)->setText("2, 4, 8");
  if (!sv->start() || !waitFor(sv, &SweepView::sweepDone, 600000)) {
    std::fprintf(stderr, "the sweep did not finish\n");
    return false;
  }
  // The combine's time where the workload has a combine (the fused operator has none: its
  // figure stays total_us rather than an empty box).
  if (const int combine = sv->figureCombo()->findText("combine_us"); combine >= 0)
    sv->figureCombo()->setCurrentIndex(combine);
  return true;
}
}  // namespace

int writeScreenshots(MainWindow& w, const QString& dir, QSize size, bool failOnElided) {
  if (!QDir().mkpath(dir)) {
    std::fprintf(stderr, "cannot create %s\n", qPrintable(dir));
    return 1;
  }
  w.resize(size);
  w.show();
  bool elided = false;
  if (!reachBusyMoment(w) || !shootViews(w, dir, false, &elided)) return 1;
  // The Compare tab again, scrolled down to its Why panel.
  w.showView("compare");
  w.compare()->showWhy();
  settle(150);
  if (!shoot(w, dir, "compare-why", &elided)) return 1;
  // The A/B and Sweep runs change the scenario, so their views come last.
  if (!runAb(w) || !runSweep(w) || !shootViews(w, dir, true, &elided)) return 1;
  // The A/B tab again, on its charts' tab.
  w.showView("ab");
  w.abCompare()->showCharts();
  settle(150);
  if (!shoot(w, dir, "ab-charts", &elided)) return 1;
  return failOnElided && elided ? 3 : 0;
}

namespace {
// Shows step `step` of lesson number `lesson` through the panel (so the picture shows its
// narration too) and waits until the views show its moment and, for a Compare step,
// Compare's runs are done.
bool playLessonStep(MainWindow& w, const LessonEntry& e, int lesson, int step) {
  const bool compare = e.lesson->steps[static_cast<std::size_t>(step)].view == "compare";
  QEventLoop loop;
  bool shown = false, compared = !compare;
  auto c1 = QObject::connect(&w, &MainWindow::lessonStepShown, &loop, [&] {
    shown = true;
    if (compared) loop.quit();
  });
  auto c2 = QObject::connect(&w, &MainWindow::compareDone, &loop, [&] {
    compared = true;
    if (shown) loop.quit();
  });
  QTimer::singleShot(300000, &loop, &QEventLoop::quit);
  w.lessonPanel()->showStep(lesson, step);
  loop.exec();
  QObject::disconnect(c1);
  QObject::disconnect(c2);
  if (!shown || !compared)
    std::fprintf(stderr, "lesson %s, step %d: the run did not reach its moment\n",
                 qPrintable(e.name), step + 1);
  return shown && compared;
}

// What the shown step's picture is: its moment, narration, expectations (`missed` is set
// when one did not hold) and every lesson quantity, for steps.json.
QJsonObject stepRecord(const MainWindow& w, const LessonEntry& e, int step, const QString& png,
                       bool* missed) {
  QJsonArray checks;
  for (const LessonCheck& c : w.lessonChecks()) {
    checks.append(QJsonObject{{"expect", QString::fromStdString(c.what)},
                              {"measured", QString::fromStdString(c.measured)},
                              {"held", c.held}});
    if (!c.held) {
      std::fprintf(stderr, "lesson %s, step %d: expected %s, measured %s\n", qPrintable(e.name),
                   step + 1, c.what.c_str(), c.measured.c_str());
      *missed = true;
    }
  }
  QJsonObject values;
  for (const auto& [name, v] : w.lessonValues()) values[QString::fromStdString(name)] = v;
  const auto snap = w.liveSnapshot();
  return QJsonObject{{"lesson", e.name},
                     {"step", step + 1},
                     {"png", png},
                     {"time_us", static_cast<double>(snap->now) / kUs},
                     {"stage", QString::fromStdString(snap->stage)},
                     {"design", QString::fromStdString(snap->design)},
                     {"narration", w.lessonPanel()->narration()},
                     {"expectations", checks},
                     {"quantities", values}};
}

// One picture per step of lesson number `index`, each recorded into `steps`; 1 when a step
// cannot be shown or written.
int shootLesson(MainWindow& w, const LessonEntry& e, int index, const QString& dir,
                QJsonArray& steps, bool* missed, bool* elided) {
  for (int i = 0; i < static_cast<int>(e.lesson->steps.size()); ++i) {
    if (!playLessonStep(w, e, index, i)) return 1;
    w.timeline()->fitAll();
    settle(200);
    const QString name = QString("%1-step%2").arg(e.name).arg(i + 1, 2, 10, QChar('0'));
    const QString file = QDir(dir).filePath(name + ".png");
    if (!w.grab().save(file)) {
      std::fprintf(stderr, "cannot write %s\n", qPrintable(file));
      return 1;
    }
    std::printf("wrote %s\n", qPrintable(file));
    for (const QString& t : elidedTexts(&w)) {
      std::fprintf(stderr, "lesson %s, step %d: elided: %s\n", qPrintable(e.name), i + 1,
                   qPrintable(t));
      *elided = true;
    }
    steps.append(stepRecord(w, e, i, QFileInfo(file).fileName(), missed));
  }
  return 0;
}
}  // namespace

int writeLessonScreenshots(MainWindow& w, const QString& dir, const QString& which, QSize size,
                           bool failOnElided) {
  if (!QDir().mkpath(dir)) {
    std::fprintf(stderr, "cannot create %s\n", qPrintable(dir));
    return 1;
  }
  const std::vector<LessonEntry> all = builtinLessons(lessonViews());
  bool found = false, malformed = false, missed = false, elided = false;
  QJsonArray steps;  // steps.json: what each step showed and whether its expectations held
  w.resize(size);
  w.show();
  for (const LessonEntry& e : all) {
    if (which != "all" && which != e.name) continue;
    found = true;
    if (!e.lesson) {
      std::fprintf(stderr, "%s\n", qPrintable(e.error));
      malformed = true;
      continue;
    }
    const int index = static_cast<int>(&e - all.data());
    if (shootLesson(w, e, index, dir, steps, &missed, &elided) != 0) return 1;
  }
  if (!found) {
    std::fprintf(stderr, "--lesson: no lesson named %s; the lessons are:", qPrintable(which));
    for (const LessonEntry& e : all) std::fprintf(stderr, " %s", qPrintable(e.name));
    std::fprintf(stderr, " (or all)\n");
    return 2;
  }
  QFile out(QDir(dir).filePath("steps.json"));
  if (!out.open(QIODevice::WriteOnly | QIODevice::Truncate) ||
      out.write(QJsonDocument(steps).toJson()) < 0) {
    std::fprintf(stderr, "cannot write %s\n", qPrintable(out.fileName()));
    return 1;
  }
  std::printf("wrote %s\n", qPrintable(out.fileName()));
  return malformed ? 2 : missed ? 4 : failOnElided && elided ? 3 : 0;
}

}  // namespace moe::ui
