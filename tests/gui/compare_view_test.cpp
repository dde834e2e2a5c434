// The Compare view tells every design apart: the MoE layer compares three designs
// (phased, streaming, flat), each with its own colour in the chart, all named in the title
// and counted in the verdict. Two alternating colours once gave phased and flat the same.

#include <QSet>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableView>
#include <QTest>
#include <QtCharts/QAbstractBarSeries>
#include <QtCharts/QBarSet>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>

#include "gui_test_registry.h"
#include "small_scenario.h"
#include "ui/run/compare_runner.h"
#include "ui/widgets/compare_view.h"
#include "ui/widgets/shared_timelines.h"

MOE_CHARTS_USE_NAMESPACE

namespace moe::ui::test {

class CompareViewTest : public QObject {
  Q_OBJECT
 private slots:
  void threeDesignsHaveThreeColoursAndAreAllNamed() {
    CompareRunner runner;
    QSignalSpy done(&runner, &CompareRunner::finished);
    runner.run(smallScenario());  // on this thread: the runner itself has no thread
    QCOMPARE(done.count(), 1);
    const auto r = done.at(0).at(0).value<CompareResult>();
    QCOMPARE(r.impls, (QStringList{"phased", "streaming", "flat"}));
    QCOMPARE(r.chartTitle, QStringLiteral("Stage durations (us): phased vs streaming vs flat"));
    QVERIFY2(r.verdict.startsWith(QStringLiteral("All 3 designs verified")), qPrintable(r.verdict));

    CompareView view;
    view.setResult(r);
    QChart* chart = view.chartView()->chart();
    QCOMPARE(chart->title(), r.chartTitle);
    auto* bars = qobject_cast<QAbstractBarSeries*>(chart->series().at(0));
    QVERIFY(bars);
    QCOMPARE(bars->count(), 3);
    QSet<QRgb> colours;
    for (QBarSet* set : bars->barSets()) colours.insert(set->color().rgb());
    QCOMPARE(colours.size(), 3);
    QCOMPARE(bars->barSets().at(2)->label(), QStringLiteral("flat"));

    // The Why panel: each design's dispatch and combine, ranked from their critical paths.
    QCOMPARE(r.why.size(), 6);
    QVERIFY2(r.why.at(0).startsWith(QStringLiteral("phased dispatch ")), qPrintable(r.why.at(0)));
    QVERIFY2(r.why.at(5).startsWith(QStringLiteral("flat combine ")), qPrintable(r.why.at(5)));
    for (const QString& line : r.why)
      QVERIFY2(line.contains(QStringLiteral(" cores busy ")), qPrintable(line));
    QCOMPARE(view.whyText(), r.why.join("\n\n"));

    // Each part has a tab of its own; a part asked for before the result (as a lesson step
    // does) is the one shown once the result is in, and the others are hidden behind it.
    view.resize(900, 500);
    view.showPart(ComparePart::Table);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.setResult(r);
    auto* table = view.findChild<QTableView*>();
    QVERIFY(table);
    QCOMPARE(view.shownPart(), ComparePart::Table);
    QTRY_VERIFY(table->isVisible());
    QVERIFY(!view.timelines()->isVisible());
    QVERIFY(!view.chartView()->isVisible());
    view.showPart(ComparePart::Timelines);
    QVERIFY(view.timelines()->isVisible());
    QVERIFY(!table->isVisible());
    // The Why tab is there only while a result with why lines is shown.
    auto* tabs = view.findChild<QTabWidget*>();
    QVERIFY(tabs);
    QVERIFY(tabs->isTabVisible(static_cast<int>(ComparePart::Why)));
    view.setWorkload(WorkloadKind::MoeLayer);  // a new workload starts empty
    QVERIFY(!tabs->isTabVisible(static_cast<int>(ComparePart::Why)));
  }
};

static Register<CompareViewTest> reg;

}  // namespace moe::ui::test

#include "compare_view_test.moc"
