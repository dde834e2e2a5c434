// Every item model of the workbench passes QAbstractItemModelTester, empty and filled.

#include <QAbstractItemModelTester>
#include <QTest>

#include "gui_test_registry.h"
#include "ui/models/compare_table_model.h"

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
};

static Register<ModelTest> reg;

}  // namespace moe::ui::test

#include "model_test.moc"
