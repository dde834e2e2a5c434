// The Sweep view through the real window and its worker thread: the point count shows before
// a run, one axis gives a line per design, two axes a heat map with the invalid points marked
// and every one's reason listed, a click loads that point's scenario into the editor and the
// live run, cancel stops a sweep without blocking the GUI, and Save CSV writes the rows
// `moe-sim sweep --csv` writes.

#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QProgressBar>
#include <QPushButton>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <QtCharts/QLineSeries>

#include "by_name.h"
#include "core/run/design.h"
#include "core/scenario/scenario_json.h"
#include "core/studies/sweep_table.h"
#include "gui_test_registry.h"
#include "small_scenario.h"
#include "ui/widgets/heat_map_widget.h"
#include "ui/widgets/main_window.h"
#include "ui/widgets/scenario_editor.h"
#include "ui/widgets/sweep_view.h"

MOE_CHARTS_USE_NAMESPACE

namespace moe::ui::test {

namespace {

void setAxis(SweepView* v, int axis, const QString& field, const QString& values) {
  v->fieldCombo(axis)->setCurrentIndex(v->fieldCombo(axis)->findText(field));
  QCOMPARE(v->fieldCombo(axis)->currentText(), field);
  v->valuesEdit(axis)->setText(values);
}
}  // namespace

class SweepViewTest : public QObject {
  Q_OBJECT
 private slots:
  void offersTheEditorsFields() {
    MainWindow w;
    SweepView* v = byName<SweepView>(w, "sweep");
    QVERIFY(byName<QTabWidget>(w, "views")->indexOf(v) >= 0);
    const ScenarioEditor* editor = byName<ScenarioEditor>(w, "scenario");
    // Every field the editor shows for these groups is offered (same JSON paths).
    for (const char* f : {"model.tokens_per_rank", "rings.combine.chunk_bytes", "routing.alpha",
                          "hardware.overrides.hccs_gbps_per_pair", "eplb.redundant_experts"}) {
      QVERIFY2(v->fieldCombo(0)->findText(f) >= 0, f);
      QVERIFY2(editor->fieldEditor(f) != nullptr, f);
    }
    // A flat ring field tiles both stages: the editor shows it as each stage's field.
    QVERIFY(v->fieldCombo(0)->findText("rings.chunk_bytes") >= 0);
    QVERIFY(editor->fieldEditor("rings.dispatch.chunk_bytes") != nullptr);
    QCOMPARE(v->fieldCombo(1)->itemText(0), QString("(none)"));
    QCOMPARE(v->fieldCombo(0)->findText("dispatch_impl"), -1);
  }

  void oneAxisDrawsALinePerDesignAndAClickLoadsThePoint() {
    MainWindow w;
    w.loadScenario(smallScenario());
    SweepView* v = byName<SweepView>(w, "sweep");
    setAxis(v, 0, "rings.queue_chunks", "2, 4, 8");
    QVERIFY(v->start());
    QVERIFY(!v->runButton()->isEnabled());
    QVERIFY(v->cancelButton()->isEnabled());
    QVERIFY(QTest::qWaitFor([&] { return v->result() != nullptr; }, 120000));
    QCOMPARE(v->progressBar()->value(), 3);
    QVERIFY(!v->showsHeatMap());
    v->figureCombo()->setCurrentIndex(v->figureCombo()->findText("combine_us"));
    const auto series = v->lineChart()->chart()->series();
    // One line per design of the MoE layer: phased, streaming, flat.
    QCOMPARE(series.size(), static_cast<int>(designsOf(WorkloadKind::MoeLayer).size()));
    auto* streaming = qobject_cast<QLineSeries*>(series[1]);
    QVERIFY(streaming);
    QCOMPARE(streaming->name(), QString("streaming"));
    QCOMPARE(streaming->count(), 3);
    // The chart's y values are the rows' figures.
    for (int p = 0; p < 3; ++p) {
      QCOMPARE(streaming->at(p).x(), static_cast<double>(2 << p));
      QCOMPARE(streaming->at(p).y(), v->result()->points[p][1]["combine_us"].get<double>());
      QVERIFY(streaming->at(p).y() > 0);
    }
    // A click near x = 4 loads point 1: ring depth 4, everything else the small scenario.
    emit streaming->clicked(QPointF(4.2, streaming->at(1).y()));
    Scenario expect = smallScenario();
    expect.rings.setBoth(&RingTiling::queueChunks, 4);
    QVERIFY(QTest::qWaitFor([&] { return w.scenario() == expect; }, 5000));
    QCOMPARE(byName<ScenarioEditor>(w, "scenario")->scenario(), expect);
  }

  void twoAxesDrawAHeatMapWithTheInvalidPointsNamed() {
    MainWindow w;
    w.loadScenario(smallScenario());
    SweepView* v = byName<SweepView>(w, "sweep");
    setAxis(v, 0, "rings.queue_chunks", "2, 4");
    setAxis(v, 1, "rings.sender_cores", "4, 64");
    QVERIFY(v->start());
    QVERIFY(QTest::qWaitFor([&] { return v->result() != nullptr; }, 120000));
    QVERIFY(v->showsHeatMap());
    HeatMapWidget* h = v->heatMap();
    QCOMPARE(h->columns(), 2);
    QCOMPARE(h->rows(), 2);
    QVERIFY(h->cell(0, 0).value.has_value());
    QVERIFY(h->cell(1, 0).value.has_value());
    QVERIFY(!h->cell(0, 1).value.has_value());  // 64 senders: more cores than a card has
    QCOMPARE(h->cell(0, 1).text, QString("invalid"));
    // Both points with 64 senders are invalid, and both are listed with the reason.
    QCOMPARE(h->cell(1, 1).text, QString("invalid"));
    QCOMPARE(v->problemsList()->count(), 2);
    for (int i = 0; i < 2; ++i)
      QVERIFY(v->problemsList()->item(i)->text().contains("rings: sender_cores"));
    // Clicking the cell of point 2 (queue 4, senders 4) loads it.
    QTest::mouseClick(h, Qt::LeftButton, {}, h->cellRect(1, 0).center());
    QVERIFY(QTest::qWaitFor([&] { return w.scenario().rings.combine.queueChunks == 4; }, 5000));
    QCOMPARE(w.scenario().rings.combine.senderCores, 4);
  }

  void everyInvalidPointGetsItsReason() {
    MainWindow w;
    w.loadScenario(smallScenario());
    SweepView* v = byName<SweepView>(w, "sweep");
    // Points (4, 4) run; (4, 0) breaks the ring depth rule, (64, 4) and (64, 0) the core
    // count rule: three invalid points, two different reasons.
    setAxis(v, 0, "rings.sender_cores", "4, 64");
    setAxis(v, 1, "rings.queue_chunks", "4, 0");
    QVERIFY(v->start());
    QVERIFY(QTest::qWaitFor([&] { return v->result() != nullptr; }, 120000));
    QListWidget* list = v->problemsList();
    QVERIFY(!list->isHidden());
    QCOMPARE(list->count(), 3);
    QVERIFY(v->statusLabel()->text().contains("3 invalid or failed"));
    // Each invalid point: its values, then the validation's field path and rule.
    QVERIFY(list->item(0)->text().startsWith(
        "point 1 (rings.sender_cores = 4, rings.queue_chunks = 0): invalid: rings"));
    QVERIFY(list->item(0)->text().endsWith("rings.queue_chunks: must be in [1, 4096], got 0"));
    QVERIFY(list->item(1)->text().startsWith(
        "point 2 (rings.sender_cores = 64, rings.queue_chunks = 4): invalid: rings"));
    QVERIFY(list->item(1)->text().contains(
        "sender_cores + forwarder_cores + receiver_cores = 80 must be <= the profile's aiv_cores"));
    QVERIFY(list->item(2)->text().startsWith("point 3 ("));
    // The heat map cell of each invalid point carries the same reason as its tooltip.
    HeatMapWidget* h = v->heatMap();
    QVERIFY(h->cell(0, 0).tip.isEmpty());
    QCOMPARE(h->cell(0, 1).tip, list->item(0)->text());
    QCOMPARE(h->cell(1, 0).tip, list->item(1)->text());
    QCOMPARE(h->cell(1, 1).tip, list->item(2)->text());
  }

  void thePointCountShowsBeforeRunning() {
    MainWindow w;
    SweepView* v = byName<SweepView>(w, "sweep");
    // The default axis, rings.chunk_bytes 16384:131072:*2, is 4 points.
    QCOMPARE(v->progressBar()->maximum(), 4);
    QCOMPARE(v->progressBar()->text(), QString("0 / 4 points"));
    setAxis(v, 0, "rings.queue_chunks", "2, 4, 8");
    QCOMPARE(v->progressBar()->text(), QString("0 / 3 points"));
    setAxis(v, 1, "rings.sender_cores", "4:16:4");
    QCOMPARE(v->progressBar()->text(), QString("0 / 12 points"));
    // Axes that are not a sweep yet say so, with the reason as the tooltip.
    v->valuesEdit(1)->setText("4:16:0");
    QCOMPARE(v->progressBar()->text(), QString("no points yet"));
    QVERIFY(v->progressBar()->toolTip().contains("axes[1].range.step: must not be 0"));
    setAxis(v, 1, "(none)", "");
    QCOMPARE(v->progressBar()->text(), QString("0 / 3 points"));
  }

  void cancelStopsTheSweepAndTheGuiKeepsResponding() {
    MainWindow w;
    w.loadScenario(smallScenario());
    SweepView* v = byName<SweepView>(w, "sweep");
    setAxis(v, 0, "seed", "1:40:1");
    QVERIFY(v->start());
    v->cancelButton()->click();
    // The GUI thread is free while the worker winds down: timers fire, widgets repaint.
    bool ticked = false;
    QTimer::singleShot(10, [&] { ticked = true; });
    QVERIFY(QTest::qWaitFor([&] { return ticked; }, 5000));
    QVERIFY(QTest::qWaitFor([&] { return v->result() != nullptr; }, 120000));
    QVERIFY(v->result()->cancelled);
    std::size_t ran = 0;
    for (const auto& p : v->result()->points) ran += p.empty() ? 0 : 1;
    QVERIFY(ran < 40);
    QVERIFY(v->runButton()->isEnabled());
    QVERIFY(v->statusLabel()->text().contains("cancelled"));
  }

  void savesTheCliCsv() {
    MainWindow w;
    w.loadScenario(smallScenario());
    SweepView* v = byName<SweepView>(w, "sweep");
    setAxis(v, 0, "rings.queue_chunks", "2, 4");
    QVERIFY(v->start());
    QVERIFY(QTest::qWaitFor([&] { return v->result() != nullptr; }, 120000));
    QTemporaryDir dir;
    const QString path = dir.filePath("sweep.csv");
    v->saveCsv(path);
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QList<QByteArray> lines = f.readAll().split('\n');
    // Header, 2 points x 3 designs (phased, streaming, flat), final newline.
    QCOMPARE(lines.size(), 1 + 2 * 3 + 1);
    QVERIFY(lines[0].startsWith("point,rings.queue_chunks,design,status,message,"));
    QVERIFY(lines[1].startsWith("0,2,phased,ok,,"));
    QVERIFY(lines[5].startsWith("1,4,streaming,ok,,"));
  }

  void aBadValueIsRefusedWithTheKeyPath() {
    MainWindow w;
    SweepView* v = byName<SweepView>(w, "sweep");
    setAxis(v, 0, "rings.queue_chunks", "2:8:0");
    QVERIFY(!v->start());
    QVERIFY(v->statusLabel()->text().contains("axes[0].range.step: must not be 0"));
    QVERIFY(v->runButton()->isEnabled());
  }
};

static Register<SweepViewTest> reg;

}  // namespace moe::ui::test

#include "sweep_view_test.moc"
