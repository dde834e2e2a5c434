// What a teacher relies on: stepping forward and back by time and events, views that agree
// on one displayed time, Compare marked stale, Rebalance leaving a valid scenario, tooltips
// from the schema docs, the lessons, and `--help` without a display.

#include <algorithm>
#include <set>

#include <QAction>
#include <QComboBox>
#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QProcess>
#include <QProcessEnvironment>
#include <QPushButton>
#include <QSet>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QToolBar>

#include "by_name.h"
#include "core/run/design.h"
#include "core/scenario/scenario_json.h"
#include "gui_test_registry.h"
#include "lesson_parsing.h"
#include "png_checks.h"
#include "signal_wait.h"
#include "ui/models/field_docs.h"
#include "ui/models/lesson.h"
#include "ui/run/run_controller.h"
#include "ui/style/palette.h"
#include "ui/widgets/compare_view.h"
#include "ui/widgets/elided_text.h"
#include "ui/widgets/experts_view.h"
#include "ui/widgets/lesson_panel.h"
#include "ui/widgets/main_window.h"
#include "ui/widgets/scenario_editor.h"
#include "ui/widgets/timeline_legend.h"
#include "ui/widgets/timeline_widget.h"

namespace moe::ui::test {

namespace {
bool waitFirstFrame(MainWindow& w) {
  if (w.liveSnapshot()) return true;
  QSignalSpy spy(&w, &MainWindow::frameShown);
  return spy.wait(60000);
}

// Runs `call` in the worker and waits for the frame it produces to be shown.
template <typename Call>
bool inWorker(MainWindow& w, Call call) {
  QSignalSpy spy(w.controller(), &RunController::frameReady);
  QMetaObject::invokeMethod(w.controller(), [c = w.controller(), call] { call(c); });
  if (!waitForFirst(spy, 120000)) return false;
  QSignalSpy shown(&w, &MainWindow::frameShown);
  return shown.wait(5000) || true;  // a redraw may already have happened
}

// The index of the built-in lesson `name` in the panel, or -1.
int lessonIndex(LessonPanel& panel, const QString& name) {
  for (int i = 0; i < static_cast<int>(panel.lessons().size()); ++i)
    if (panel.lessons()[static_cast<std::size_t>(i)].name == name) return i;
  return -1;
}
}  // namespace

class TeachingTest : public QObject {
  Q_OBJECT
 private slots:
  void stepsForwardAndBackByTimeAndEvents() {
    MainWindow w;
    QVERIFY(waitFirstFrame(w));
    QVERIFY(inWorker(w, [](RunController* c) { c->stepTime(kUs); }));
    QTRY_VERIFY2_WITH_TIMEOUT(w.liveSnapshot()->now == Time{kUs},
                              qPrintable(QString("%1 != %2").arg(w.liveSnapshot()->now).arg(kUs)),
                              10000);
    QVERIFY(inWorker(w, [](RunController* c) { c->stepTime(10 * kUs); }));
    QTRY_VERIFY2_WITH_TIMEOUT(
        w.liveSnapshot()->now == Time{11 * kUs},
        qPrintable(QString("%1 != %2").arg(w.liveSnapshot()->now).arg(11 * kUs)), 10000);
    QVERIFY(inWorker(w, [](RunController* c) { c->stepBackTime(10 * kUs); }));
    QTRY_VERIFY2_WITH_TIMEOUT(w.liveSnapshot()->now == Time{kUs},
                              qPrintable(QString("%1 != %2").arg(w.liveSnapshot()->now).arg(kUs)),
                              10000);
    const std::uint64_t events = w.liveSnapshot()->events;
    QVERIFY(events > 0);
    QVERIFY(inWorker(w, [](RunController* c) { c->stepEvents(10); }));
    QTRY_COMPARE_WITH_TIMEOUT(w.liveSnapshot()->events, events + 10, 10000);
    // Back by the same events: the deterministic re-run lands on the same state.
    QVERIFY(inWorker(w, [](RunController* c) { c->stepBackEvents(10); }));
    QTRY_COMPARE_WITH_TIMEOUT(w.liveSnapshot()->events, events, 10000);
    // Next stage, then back to its start.
    QVERIFY(inWorker(w, [](RunController* c) { c->stepStage(); }));
    QTRY_VERIFY_WITH_TIMEOUT(
        w.liveSnapshot()->stage != "update-expert" && w.liveSnapshot()->stage != "not started",
        30000);
    const std::string stage = w.liveSnapshot()->stage;
    QVERIFY(inWorker(w, [](RunController* c) { c->stepTime(kUs); }));
    QVERIFY(inWorker(w, [](RunController* c) { c->stepBackStage(); }));
    QTRY_COMPARE_WITH_TIMEOUT(w.liveSnapshot()->stage, stage, 10000);
    QVERIFY(!w.liveSnapshot()->stageMarks.empty());
    QCOMPARE(w.liveSnapshot()->now, w.liveSnapshot()->stageMarks.back().start);
  }

  void keyboardShortcutsExist() {
    MainWindow w;
    QStringList keys;
    for (QAction* a : w.findChildren<QAction*>())
      if (!a->shortcut().isEmpty()) keys << a->shortcut().toString();
    for (const char* k : {"Space", "Right", "Left", "Shift+Right", "Shift+Left", "Home", "End"})
      QVERIFY2(keys.contains(k), k);
  }

  void oneDisplayedTimeDrivesToolbarAndTimelineCursor() {
    MainWindow w;
    QVERIFY(waitFirstFrame(w));
    QVERIFY(inWorker(w, [](RunController* c) { c->stepTime(25 * kUs); }));
    QTRY_VERIFY2_WITH_TIMEOUT(
        w.liveSnapshot()->now == Time{25 * kUs},
        qPrintable(QString("%1 != %2").arg(w.liveSnapshot()->now).arg(25 * kUs)), 10000);
    const TimelineWidget* timeline = byName<TimelineWidget>(w, "timelineGantt");
    QTRY_VERIFY2_WITH_TIMEOUT(
        timeline->scrubTime() == Time{25 * kUs},
        qPrintable(QString("%1 != %2").arg(timeline->scrubTime()).arg(25 * kUs)), 5000);
    QLabel* timeLabel = byName<QLabel>(w, "time");
    QVERIFY(timeLabel->text().contains(timeText(25 * kUs)));
    // Scrubbed: the toolbar and cursor show the scrubbed time, and say so.
    QSignalSpy scrubbed(&w, &MainWindow::scrubShown);
    w.controller()->requestScrub(10 * kUs);
    QVERIFY(scrubbed.wait(60000));
    QCOMPARE(w.shownSnapshot()->now, 10 * kUs);
    QCOMPARE(timeline->scrubTime(), 10 * kUs);
    QVERIFY(timeLabel->text().contains(timeText(10 * kUs)));
    QVERIFY(timeLabel->text().contains("scrubbed"));
  }

  void compareIsStaleAfterTheScenarioChanges() {
    MainWindow w;
    QVERIFY(waitFirstFrame(w));
    Scenario small = w.scenario();
    small.model.tokensPerRank = 16;
    w.loadScenario(small);
    QSignalSpy done(&w, &MainWindow::compareDone);
    w.startCompare();
    QVERIFY(done.wait(300000));
    CompareView* compare = byName<CompareView>(w, "compare");
    QVERIFY(!compare->isStale());
    Scenario other = small;
    other.model.tokensPerRank = 24;
    w.loadScenario(other);
    QVERIFY(compare->isStale());
    w.loadScenario(small);  // back to the compared scenario: the figures are right again
    QVERIFY(!compare->isStale());
  }

  void rebalanceLeavesAValidScenarioAndShowsBeforeAndAfter() {
    MainWindow w;
    QVERIFY(waitFirstFrame(w));
    Scenario hot = w.scenario();
    hot.model.tokensPerRank = 32;
    hot.routing.kind = RoutingKind::Hotspot;
    QSignalSpy load(w.controller(), &RunController::expertLoadReady);
    w.loadScenario(hot);
    QVERIFY(waitForFirst(load, 60000));
    ExpertsView* experts = byName<ExpertsView>(w, "experts");
    QTRY_VERIFY_WITH_TIMEOUT(!experts->load().perExpert.empty(), 10000);
    QSignalSpy again(w.controller(), &RunController::expertLoadReady);
    w.rebalance(experts->load().perExpert, 16);
    QVERIFY(waitForFirst(again, 60000));
    QTRY_VERIFY_WITH_TIMEOUT(!experts->rebalanceText().isEmpty(), 10000);
    QVERIFY2(byName<ScenarioEditor>(w, "scenario")->isValid(),
             "the editor must hold a valid scenario after Rebalance");
    QVERIFY(byName<QAction>(w, "run")->isEnabled());
    QCOMPARE(w.scenario().eplb.redundantExperts, 16);
    QVERIFY(!w.scenario().eplb.table.empty());
  }

  void everyToolbarControlAndScenarioFieldHasHelp() {
    MainWindow w;
    for (QToolBar* bar : w.findChildren<QToolBar*>()) {
      for (QAction* a : bar->actions()) {
        if (a->isSeparator()) continue;
        QWidget* widget = bar->widgetForAction(a);
        const bool isLabel = qobject_cast<QLabel*>(widget) != nullptr;
        if (isLabel) continue;  // captions next to their control
        const QString tip =
            widget && !widget->toolTip().isEmpty() ? widget->toolTip() : a->toolTip();
        QVERIFY2(!tip.isEmpty() && tip != a->text(), qPrintable("no tooltip: " + a->text()));
      }
    }
    // Field tooltips are docs/SCENARIO.md's rows.
    QVERIFY(fieldDoc("model.hidden").contains("16384"));
    QVERIFY(fieldDoc("eplb.table_from").contains("expected-load"));
    QVERIFY(fieldDoc("hardware.overrides.hbm_gbps").contains("number"));
    ScenarioEditor* editor = byName<ScenarioEditor>(w, "scenario");
    auto* hidden = editor->fieldEditor("model.hidden");
    QVERIFY(hidden);
    QVERIFY(hidden->toolTip().contains(fieldDoc("model.hidden")));
    int fields = 0, documented = 0;
    for (QLineEdit* e : editor->findChildren<QLineEdit*>()) {
      ++fields;
      documented += !fieldDoc(e->objectName()).isEmpty();
    }
    for (QComboBox* e : editor->findChildren<QComboBox*>()) {
      ++fields;
      documented += !fieldDoc(e->objectName()).isEmpty();
    }
    QVERIFY(fields > 20);
    QCOMPARE(documented, fields);
  }

  void noElidedTextAt1400x900() {
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    QVERIFY(waitFirstFrame(w));
    QVERIFY(inWorker(w, [](RunController* c) { c->runUntilBusy(); }));
    QTabWidget* tabs = byName<QTabWidget>(w, "views");
    for (int i = 0; i < tabs->count(); ++i) {
      tabs->setCurrentIndex(i);
      QTest::qWait(150);
      const QStringList bad = elidedTexts(&w);
      QVERIFY2(bad.isEmpty(), qPrintable(tabs->tabText(i) + ": " + bad.join("; ")));
    }
  }

  void shippedLessonsAreValid() {
    const auto lessons = builtinLessons(lessonViews());
    QVERIFY(lessons.size() >= 5);
    for (const LessonEntry& e : lessons) QVERIFY2(e.lesson, qPrintable(e.name + ": " + e.error));
  }

  void malformedLessonNamesLessonStepAndField() {
    const QByteArray bad =
        R"({"title": "t", "steps": [{"narration": "a", "run_to": {"end": true}, "view": "card",
                                     "expect": {"stage": "done"}},
            {"narration": "b", "run_to": {"time_us": -1}, "view": "card"}]})";
    try {
      (void)parseWithRegistryViews("broken", bad);
      QFAIL("a negative time was accepted");
    } catch (const std::exception& e) {
      QCOMPARE(QString(e.what()),
               QString("lesson broken, step 2, run_to.time_us: must be a number >= 0"));
    }
    try {
      (void)parseWithRegistryViews(
          "broken",
          R"({"title": "t", "steps": [{"narration": "a", "run_to": {"end": true}, "view": "nowhere"}]})");
      QFAIL("an unknown view was accepted");
    } catch (const std::exception& e) {
      QVERIFY(QString(e.what()).startsWith("lesson broken, step 1, view: "));
    }
    try {
      (void)parseWithRegistryViews(
          "broken", R"({"title": "t", "scenario": {"model": {"hidden": -3}}, "steps": []})");
      QFAIL("a bad scenario was accepted");
    } catch (const std::exception& e) {
      QVERIFY2(QString(e.what()).startsWith(
                   "lesson broken, scenario: not a valid scenario: model.hidden"),
               e.what());
    }
    try {
      (void)parseWithRegistryViews("broken", "{not json");
      QFAIL("broken JSON was accepted");
    } catch (const std::exception& e) {
      QVERIFY(QString(e.what()).startsWith("lesson broken, (file): not valid JSON"));
    }
  }

  // A target the step's design can never reach is refused when the file is loaded (it
  // would otherwise run silently to the end), and so is a name the vocabulary lacks.
  void unreachableTargetsAndUnknownNamesAreLoadErrors() {
    const auto error = [](const std::string& step) {
      try {
        (void)parseWithRegistryViews(
            "broken", QByteArray::fromStdString(R"({"title": "t", "steps": [{"narration": "a", )" +
                                                step + "}]}"));
      } catch (const std::exception& e) {
        return QString(e.what());
      }
      return QString("accepted");
    };
    const std::string view = R"("view": "card", )";
    QCOMPARE(error(view + R"("design": "phased", "run_to": {"busy": true},
                             "expect": {"stage": "done"})"),
             QString("lesson broken, step 1, run_to.busy: the phased design never becomes busy "
                     "(only streaming, by its rings, and pipelined, by its workspace, do); run "
                     "to a stage or a time"));
    QVERIFY(
        error(view + R"("design": "flat", "run_to": {"busy": true}, "expect": {"stage": "done"})")
            .startsWith("lesson broken, step 1, run_to.busy: the flat design never"));
    QCOMPARE(error(view + R"("design": "phased", "run_to": {"stage": "dispatch-streaming"},
                             "expect": {"stage": "done"})"),
             QString("lesson broken, step 1, run_to.stage: the phased design never runs "
                     "\"dispatch-streaming\"; its stages are update-expert, layout, "
                     "dispatch-notify, dispatch-phased, experts, combine-phased"));
    // No design named: the workload's default (streaming), never the toolbar's.
    QVERIFY(error(view + R"("run_to": {"stage": "combine-phased"}, "expect": {"stage": "done"})")
                .startsWith("lesson broken, step 1, run_to.stage: the streaming design never"));
    QVERIFY(error(view + R"("run_to": {"end": true})")
                .startsWith("lesson broken, step 1, expect: is required"));
    QVERIFY(error(view + R"("run_to": {"end": true}, "expect": {"stage": "combine-phased"})")
                .startsWith("lesson broken, step 1, expect.stage: the streaming design never "
                            "shows \"combine-phased\""));
    QVERIFY(
        error(view + R"("run_to": {"end": true},
                            "expect": {"stage": "done", "that": ["verified == 1", "cores_busy > 2"]})")
            .startsWith("lesson broken, step 1, expect.that[1]: unknown quantity \"cores_busy\" "
                        "(known: time_us, cores_working"));
    QVERIFY(error(view +
                  R"("run_to": {"end": true}, "expect": {"stage": "done", "that": ["verified"]})")
                .startsWith("lesson broken, step 1, expect.that[0]: must read"));
    QVERIFY(
        error(view + R"("run_to": {"stage": "experts", "plus_us": 0}, "expect": {"stage": "done"})")
            .startsWith("lesson broken, step 1, run_to.plus_us: must be a number > 0"));
    QVERIFY(error(view + R"("run_to": {"end": true, "plus_us": 3}, "expect": {"stage": "done"})")
                .startsWith("lesson broken, step 1, run_to.plus_us: goes with run_to.stage only"));
    // "show" names a part of the Compare view's figures, and only there.
    QCOMPARE(
        error(view + R"("show": "table", "run_to": {"end": true}, "expect": {"stage": "done"})"),
        QString("lesson broken, step 1, show: is for the compare view only (its timelines, "
                "chart, table or why)"));
    QCOMPARE(error(R"("view": "compare", "show": "bottom", "run_to": {"end": true},
                      "expect": {"stage": "done"})"),
             QString("lesson broken, step 1, show: must be one of timelines, chart, table, why"));
    QCOMPARE(error(R"("view": "compare", "show": "chart", "run_to": {"end": true},
                      "expect": {"stage": "done"})"),
             QString("accepted"));
    try {
      (void)parseWithRegistryViews("broken",
                                   R"({"title": "t", "steps": [{"narration": "{hot_shar:%} hot",
          "view": "card", "run_to": {"end": true}, "expect": {"stage": "done"}}]})");
      QFAIL("an unknown narration field was accepted");
    } catch (const std::exception& e) {
      QVERIFY2(QString(e.what()).startsWith(
                   "lesson broken, step 1, narration: unknown quantity \"{hot_shar}\""),
               e.what());
    }
  }

  void everyShippedLessonFixesItsDesignAndExpectsAStage() {
    const auto lessons = builtinLessons(lessonViews());
    QVERIFY(lessons.size() >= 8);
    bool combineLesson = false, eplbTimeLesson = false;
    for (const LessonEntry& e : lessons) {
      QVERIFY2(e.lesson, qPrintable(e.name + ": " + e.error));
      for (const LessonStep& s : e.lesson->steps) {
        QVERIFY2(designFromName(s.design), qPrintable(e.name));
        QVERIFY(!s.expectStage.empty());
        combineLesson |= s.expectStage == "combine-phased";
        for (const auto& c : s.expect) eplbTimeLesson |= c.quantity->name == "experts_us";
      }
    }
    QVERIFY2(combineLesson, "no lesson shows the phased combine");
    QVERIFY2(eplbTimeLesson, "no lesson checks what EPLB does to the experts stage's time");
  }

  // The core counts speak of the card the step shows; narration fields are filled from the
  // same state the checks read.
  void lessonQuantitiesAreMeasuredOnTheShownState() {
    Snapshot snap;
    snap.stage = "dispatch-streaming";
    const auto core = [](int card, Role role, Activity a) {
      CoreSnap c;
      c.card = card;
      c.role = role;
      c.activity = a;
      return c;
    };
    snap.cores = {core(0, Role::Sender, Activity::WaitSpace), core(0, Role::Sender, Activity::Copy),
                  core(1, Role::Sender, Activity::WaitSpace),
                  core(1, Role::Receiver, Activity::WaitData)};
    const Scenario sc = defaultScenario();
    ExpertLoad load;
    load.perExpert = {6, 2, 1, 1};
    LessonState st{snap, sc, &load, {}, 0, false};
    std::string err;
    const auto c1 = parseLessonCondition("cores_wait_space == 1", err);
    const auto c2 = parseLessonCondition("receiver_cores >= 1", err);
    QVERIFY(c1 && c2);
    auto checks = checkLessonStep("dispatch-streaming", {*c1, *c2}, st);
    QCOMPARE(checks.size(), std::size_t(3));
    QVERIFY(checks[0].held && checks[1].held);
    QVERIFY(!checks[2].held);  // card 0 has no receiver
    QCOMPARE(checks[2].measured, std::string("0"));
    st.card = -1;
    checks = checkLessonStep("experts", {*c1, *c2}, st);
    QVERIFY(!checks[0].held && !checks[1].held && checks[2].held);
    QCOMPARE(checks[1].measured, std::string("2"));
    // Uniform routing: the single busiest expert's share.
    QCOMPARE(fillLessonNarration("{cores_wait_space} wait; hot {hot_share:%}, {hot_share:2}", st),
             QString("2 wait; hot 60%, 0.60"));
  }

  void aLessonRunsItsOwnDesignWhateverTheToolbarShows() {
    MainWindow w;
    QVERIFY(waitFirstFrame(w));
    auto* design = byName<QComboBox>(w, "design");
    design->setCurrentIndex(design->findText("phased"));
    LessonPanel* panel = byName<LessonPanel>(w, "lessonPanel");
    const int load = lessonIndex(*panel, "4-load-balancing");
    QVERIFY(load >= 0);
    QSignalSpy shown(&w, &MainWindow::lessonStepShown);
    panel->showStep(load, 2);
    QVERIFY(shown.wait(120000));
    QCOMPARE(w.liveSnapshot()->stage, std::string("dispatch-streaming"));
    QCOMPARE(w.liveSnapshot()->design, std::string("streaming"));
    QVERIFY(!w.lessonChecks().empty());
    for (const LessonCheck& c : w.lessonChecks()) QVERIFY2(c.held, c.what.c_str());
    QVERIFY(!panel->narration().contains('{'));
  }

  // Every step of every shipped lesson, as `--lesson all --screenshot` plays it: each
  // expectation must hold, steps.json says so step by step, and each step has an image of its
  // own. One run checks both: it plays every lesson, which takes a minute or two.
  void everyLessonStepShowsWhatItExpectsInAnImageOfItsOwn() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QProcess p;
    p.start(MOE_WORKBENCH_PATH, {"--lesson", "all", "--screenshot", dir.path()});
    QVERIFY(p.waitForFinished(1200000));
    QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
    QFile f(QDir(dir.path()).filePath("steps.json"));
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QJsonArray steps = QJsonDocument::fromJson(f.readAll()).array();
    std::size_t expected = 0;
    for (const LessonEntry& e : builtinLessons(lessonViews())) expected += e.lesson->steps.size();
    QCOMPARE(static_cast<std::size_t>(steps.size()), expected);
    for (const QJsonValue& v : steps) {
      const QJsonObject s = v.toObject();
      const QString where = s["lesson"].toString() + " step " + QString::number(s["step"].toInt());
      const QJsonArray checks = s["expectations"].toArray();
      QVERIFY2(!checks.isEmpty(), qPrintable(where));
      QCOMPARE(checks[0].toObject()["measured"].toString(), s["stage"].toString());
      for (const QJsonValue& c : checks)
        QVERIFY2(c.toObject()["held"].toBool(),
                 qPrintable(where + ": " + c.toObject()["expect"].toString() + ", measured " +
                            c.toObject()["measured"].toString()));
      QVERIFY2(!s["narration"].toString().contains('{'), qPrintable(where));
      QVERIFY(QFile::exists(QDir(dir.path()).filePath(s["png"].toString())));
    }
    QStringList files;
    QSet<QString> lessons;
    for (const QString& f : QDir(dir.path()).entryList({"*-step*.png"}, QDir::Files, QDir::Name)) {
      files << QDir(dir.path()).filePath(f);
      lessons.insert(f.left(f.indexOf("-step")));
    }
    QCOMPARE(static_cast<std::size_t>(files.size()), expected);
    QVERIFY2(lessons.size() >= 5, qPrintable(QStringList(lessons.values()).join(", ")));
    const QString bad = distinctAndNonTrivial(files, QSize(800, 600));
    QVERIFY2(bad.isEmpty(), qPrintable(bad));
  }

  void aLessonStepCanPlantAFaultForTheDeadlockWatch() {
    // The combine lesson ends with a lost tail publish: the run must end in a diagnosed
    // deadlock, which only the streaming design of the MoE layer can have.
    bool planted = false;
    for (const LessonEntry& e : builtinLessons(lessonViews()))
      if (e.lesson)
        for (const LessonStep& s : e.lesson->steps) planted |= s.fault == Fault::DropTail;
    QVERIFY(planted);
    const auto error = [](const char* json) {
      try {
        (void)parseWithRegistryViews("broken", json);
      } catch (const std::exception& e) {
        return QString(e.what());
      }
      return QString("accepted");
    };
    QCOMPARE(error(R"({"title": "t", "steps": [{"narration": "a", "run_to": {"end": true},
                      "view": "card", "fault": "lose-everything"}]})"),
             QString("lesson broken, step 1, fault: must be none, drop-tail or stall-core"));
    QCOMPARE(error(R"({"title": "t", "steps": [{"narration": "a", "run_to": {"end": true},
                      "view": "card", "design": "phased", "fault": "drop-tail"}]})"),
             QString("lesson broken, step 1, fault: needs the moe-layer workload with the "
                     "streaming design"));
  }

  void theDeadlockStepEndsInADiagnosedDeadlock() {
    MainWindow w;
    QVERIFY(waitFirstFrame(w));
    LessonPanel* panel = byName<LessonPanel>(w, "lessonPanel");
    for (int i = 0; i < static_cast<int>(panel->lessons().size()); ++i) {
      const LessonEntry& entry = panel->lessons()[static_cast<std::size_t>(i)];
      if (!entry.lesson) continue;
      const Lesson& lesson = *entry.lesson;
      for (int k = 0; k < static_cast<int>(lesson.steps.size()); ++k) {
        if (lesson.steps[static_cast<std::size_t>(k)].fault != Fault::DropTail) continue;
        QSignalSpy verified(w.controller(), &RunController::verificationReady);
        QSignalSpy shown(&w, &MainWindow::lessonStepShown);
        panel->showStep(i, k);
        QVERIFY(shown.wait(120000));
        QVERIFY(w.liveSnapshot()->deadlocked);
        QVERIFY(verified.count() > 0 || verified.wait(10000));
        const auto v = verified.last().at(0).value<Verification>();
        QVERIFY(v.summary.startsWith("DEADLOCK"));
        // The diagnosis names the waiting core and the ring with its pointers.
        QVERIFY2(v.details.contains("forwarder") && v.details.contains("IPC ring") &&
                     v.details.contains("producer tail"),
                 qPrintable(v.details));
        return;
      }
    }
    QFAIL("no lesson step plants drop-tail");
  }

  void timelineKeyExplainsTheLanesShown() {
    const QString perCore = timelineLegendHtml({true, {}, false});
    for (const char* a : {"copy", "vector", "cube", "wait-space", "wait-data", "wait-sync"})
      QVERIFY2(perCore.contains(a), qPrintable(perCore));
    const QString byRole = timelineLegendHtml({false, {Role::Gemm, Role::A2A}, true});
    QVERIFY(byRole.contains("gemm") && byRole.contains("a2a") && byRole.contains("pale: waiting"));
    QVERIFY(byRole.contains(roleColor(Role::Gemm).darker(115).name()));
    QVERIFY(byRole.contains("communication exposed"));
    QVERIFY(!perCore.contains("communication exposed"));
  }

  // A step that runs to a stage stops once the stage's programs are at work, so the core
  // grid shows its roles (at the stage's first event every core was still idle or done).
  void aStepAtAStageShowsTheStagesRoles() {
    MainWindow w;
    QVERIFY(waitFirstFrame(w));
    LessonPanel* panel = byName<LessonPanel>(w, "lessonPanel");
    const int combine = lessonIndex(*panel, "3-combine-roles");
    QVERIFY(combine >= 0);
    QSignalSpy shown(&w, &MainWindow::lessonStepShown);
    panel->showStep(combine, 0);
    QVERIFY(shown.wait(120000));
    const auto snap = w.liveSnapshot();
    QCOMPARE(snap->stage, std::string("combine-streaming"));
    std::set<Role> roles;
    for (const CoreSnap& c : snap->cores)
      if (c.card == 0 && (isWorking(c.activity) || isWaiting(c.activity))) roles.insert(c.role);
    QVERIFY(roles.count(Role::Sender) && roles.count(Role::Forwarder) &&
            roles.count(Role::Receiver));
  }

  void lessonPanelNextDrivesTheRunAndTheView() {
    MainWindow w;
    QVERIFY(waitFirstFrame(w));
    LessonPanel* panel = byName<LessonPanel>(w, "lessonPanel");
    const int ring = lessonIndex(*panel, "1-ring-flow-control");
    QVERIFY(ring >= 0);
    QSignalSpy shown(&w, &MainWindow::lessonStepShown);
    panel->showStep(ring, 0);
    QVERIFY(shown.wait(120000));
    QCOMPARE(byName<QTabWidget>(w, "views")->currentIndex(), 1);  // card
    QCOMPARE(w.liveSnapshot()->stage, std::string("dispatch-streaming"));
    QCOMPARE(w.scenario().rings.combine.queueChunks, 2);
    QVERIFY(!panel->narration().isEmpty());
    QVERIFY(panel->nextButton()->isEnabled());
    QVERIFY(!panel->backButton()->isEnabled());
    panel->nextButton()->click();
    QVERIFY(shown.wait(120000));
    QCOMPARE(panel->currentStep(), 1);
    QVERIFY(w.liveSnapshot()->now > 0);
    // The ring the lesson points at is one of card 0's, and it already carries data: the
    // narration talks about a filling ring and the Inspector shows its counts. (Ring ids
    // follow creation order, so a kernel that makes its rings in another order moves it.)
    const Selection sel =
        panel->lessons()[static_cast<std::size_t>(ring)].lesson->steps[1].selection;
    QCOMPARE(sel.kind, Selection::Kind::Ring);
    const auto& rings = w.liveSnapshot()->rings;
    const auto it =
        std::find_if(rings.begin(), rings.end(), [&](const RingSnap& r) { return r.id == sel.id; });
    QVERIFY(it != rings.end());
    QCOMPARE(it->consumerCard, 0);
    QVERIFY2(it->stats.recordsWritten > 0, it->name.c_str());
  }

  void recordWritesIncreasingFramesToTheEnd() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QProcess p;
    // 500 us of emulated time per second while data moves, fast-forward through the experts
    // stage, at 2 frames a second: about seven frames.
    p.start(MOE_WORKBENCH_PATH, {"--record", dir.path(), "--speed", "500", "--fps", "2"});
    QVERIFY(p.waitForFinished(600000));
    QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
    QFile csv(QDir(dir.path()).filePath("frames.csv"));
    QVERIFY(csv.open(QIODevice::ReadOnly));
    const QStringList rows = QString(csv.readAll()).split('\n', Qt::SkipEmptyParts);
    QCOMPARE(rows.value(0), QString("frame,time_ps,stage,view"));
    QVERIFY(rows.size() >= 4);
    qint64 last = -1;
    QSet<QByteArray> images;
    for (int i = 1; i < rows.size(); ++i) {
      const QStringList f = rows[i].split(',');
      QCOMPARE(f.size(), 4);
      QCOMPARE(f[0].toInt(), i);
      const qint64 t = f[1].toLongLong();
      QVERIFY2(t > last, qPrintable(rows[i]));
      last = t;
      QFile png(QDir(dir.path()).filePath(QString("frame_%1.png").arg(i, 5, 10, QChar('0'))));
      QVERIFY(png.open(QIODevice::ReadOnly));
      images.insert(QCryptographicHash::hash(png.readAll(), QCryptographicHash::Sha256));
    }
    QCOMPARE(rows.last().split(',').value(2), QString("done"));
    QCOMPARE(images.size(), rows.size() - 1);  // every frame differs from every other
  }

  void helpWorksWithoutADisplay() {
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove("DISPLAY");
    env.remove("WAYLAND_DISPLAY");
    env.remove("QT_QPA_PLATFORM");
    p.setProcessEnvironment(env);
    p.start(MOE_WORKBENCH_PATH, {"--help"});
    QVERIFY(p.waitForFinished(30000));
    QCOMPARE(p.exitStatus(), QProcess::NormalExit);
    QCOMPARE(p.exitCode(), 0);
    const QString out = p.readAllStandardOutput();
    QVERIFY(out.contains("--screenshot"));
    QVERIFY(out.contains("--presenter"));
    QVERIFY(out.contains("--lesson"));
  }
};

static Register<TeachingTest> reg;

}  // namespace moe::ui::test

#include "teaching_test.moc"
