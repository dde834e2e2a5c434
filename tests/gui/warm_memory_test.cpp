// An idle workbench holds no warm memory: each background request gives back what its runs
// left warm for a next run, whatever way it ended. A/B once kept it (only Run, Compare, Sweep
// and Tune gave it back), and Compare kept it after a fused-operator comparison or an error.

#include <QSignalSpy>
#include <QTest>

#include "core/machine/memory.h"
#include "core/run/resolved_scenario.h"
#include "core/run/run_factory.h"
#include "gui_test_registry.h"
#include "small_scenario.h"
#include "ui/run/ab_runner.h"
#include "ui/run/compare_runner.h"

namespace moe::ui::test {

namespace {
bool noWarmMemory() {
  const WarmHostMemory warm = warmHostMemory();
  return warm.residentBytes == 0 && warm.mappedBytes == 0;
}

// A run straight on the core, as a request's runs do: with its rings' pages (full payload),
// it leaves their slabs warm for a next run.
bool leaveWarmMemory() {
  Scenario sc = smallScenario();
  sc.payload = PayloadMode::Full;
  auto run = makeRun(ResolvedScenario::resolve(sc), Design::Streaming);
  run->runToEnd();
  run.reset();
  return !noWarmMemory();
}
}  // namespace

class WarmMemoryTest : public QObject {
  Q_OBJECT
 private slots:
  void anAbSideLeavesNoWarmMemory() {
    QVERIFY(leaveWarmMemory());
    Scenario sc = smallScenario();
    sc.payload = PayloadMode::Full;
    AbRunner runner;
    QSignalSpy done(&runner, &AbRunner::finished);
    runner.run(sc, static_cast<int>(Design::Streaming), 0);  // on this thread
    QCOMPARE(done.count(), 1);
    QVERIFY(done.at(0).at(1).value<AbSide>().error.isEmpty());
    QVERIFY(noWarmMemory());
  }

  void aCompareThatFailsLeavesNoWarmMemory() {
    QVERIFY(leaveWarmMemory());
    Scenario bad = smallScenario();
    bad.model.topk = 0;  // refused when resolved: Compare reports it and runs nothing
    CompareRunner runner;
    QSignalSpy failed(&runner, &CompareRunner::failed);
    runner.run(bad);
    QCOMPARE(failed.count(), 1);
    QVERIFY(noWarmMemory());
  }
};

static Register<WarmMemoryTest> reg;

}  // namespace moe::ui::test

#include "warm_memory_test.moc"
