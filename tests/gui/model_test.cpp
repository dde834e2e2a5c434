// Every item model of the workbench passes QAbstractItemModelTester, empty and filled.

#include <QAbstractItemModelTester>
#include <QTest>

#include "gui_test_registry.h"
#include "ui/models/compare_table_model.h"
#include "ui/models/eplb_table_model.h"

namespace moe::ui::test {

class ModelTest : public QObject {
  Q_OBJECT
 private slots:
  void compareTableModelIsConsistent() {
    CompareTableModel m;
    QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(m.rowCount(), 0);
    CompareResult r;
    r.impls = QStringList{"phased", "streaming"};
    r.figureNames = QStringList{"total", "dispatch"};
    r.figures = {{"10 us", "8 us"}, {"6 us", "4 us"}};
    m.setResult(r);
    QCOMPARE(m.rowCount(), 2);
    QCOMPARE(m.columnCount(), 2);
    QCOMPARE(m.data(m.index(1, 1), Qt::DisplayRole).toString(), QString("4 us"));
    QCOMPARE(m.headerData(0, Qt::Vertical, Qt::DisplayRole).toString(), QString("total"));
    m.setResult(CompareResult{});
    QCOMPARE(m.rowCount(), 0);
  }

  void eplbTableModelIsConsistentAndReadsTheTable() {
    EplbTableModel m;
    QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(m.rowCount(), 0);
    // 3 experts on 2 ranks x 2 instances: expert 0 has replicas #0 (rank 0) and #2 (rank 1).
    ExpertLoad L;
    L.perExpert = {10, 4, 6};
    L.table = {{2, 0, 2}, {1, 1, -1}, {1, 3, -1}};
    L.instanceLogical = {0, 1, 0, 2};
    L.perInstanceAfter = {5, 4, 5, 6};
    L.placePerRank = 2;
    m.setLoad(L);
    QCOMPARE(m.rowCount(), 3);
    QCOMPARE(m.columnCount(), int(EplbTableModel::ColumnCount));
    QCOMPARE(m.data(m.index(0, EplbTableModel::Instances), Qt::DisplayRole).toString(),
             QString("#0 r0: 5, #2 r1: 5"));
    QCOMPARE(m.data(m.index(0, EplbTableModel::Routed), EplbTableModel::SortRole).toDouble(), 10.0);
    // Replicated experts get a colour of their own; single-instance experts share one.
    const QColor c0 = m.data(m.index(0, 0), Qt::DecorationRole).value<QColor>();
    const QColor c1 = m.data(m.index(1, 0), Qt::DecorationRole).value<QColor>();
    QVERIFY(c0 != c1);
    QCOMPARE(c1, m.data(m.index(2, 0), Qt::DecorationRole).value<QColor>());
    m.setLoad(ExpertLoad{});
    QCOMPARE(m.rowCount(), 0);
  }
};

static Register<ModelTest> reg;

}  // namespace moe::ui::test

#include "model_test.moc"
