// The Scenario view lists the real CANN operators' limits the edited scenario exceeds on its
// profile's product, and the HCCL_BUFFSIZE they would need, as `moe-sim run` prints them.

#include <QLabel>
#include <QTest>

#include "by_name.h"
#include "core/machine/hardware_profile.h"
#include "core/plan/real_operator_limits.h"
#include "core/scenario/scenario_json.h"
#include "gui_test_registry.h"
#include "ui/widgets/scenario_editor.h"

namespace moe::ui::test {

class ScenarioLimitsTest : public QObject {
  Q_OBJECT
 private slots:
  void listsEveryExceededLimitAndTheBuffsizeOfTheEditedScenario() {
    ScenarioEditor ed;
    Scenario sc = defaultScenario();
    ed.setScenario(sc);
    auto* limits = byName<QLabel>(ed, "realOperatorLimits");
    QVERIFY(ed.isValid());
    // The default (an A2 part): the buffer size line, as the run summary prints it.
    QVERIFY2(limits->text().contains(QString::fromStdString(hcclBuffsizeLine(sc))),
             qPrintable(limits->text()));
    // Over the documented batch size: one warning per exceeded limit, naming the field.
    sc.model.tokensPerRank = 1024;
    sc.payload = PayloadMode::None;
    ed.setScenario(sc);
    QVERIFY(ed.isValid());
    const auto warnings = realOperatorWarnings(sc);
    QVERIFY(!warnings.empty());
    for (const LimitWarning& w : warnings)
      QVERIFY2(limits->text().contains(QString::fromStdString(w.message)),
               qPrintable(limits->text()));
    QVERIFY(limits->text().contains("model.tokens_per_rank"));
    // A profile with no CANN operators: nothing to list.
    sc.profileName = "h800-nvswitch";
    sc.hardware = builtinProfile("h800-nvswitch");
    sc.model.tokensPerRank = 128;
    ed.setScenario(sc);
    QVERIFY(ed.isValid());
    QVERIFY(limits->text().isEmpty());
    QVERIFY(limits->isHidden());
  }
};

static Register<ScenarioLimitsTest> reg;

}  // namespace moe::ui::test

#include "scenario_limits_test.moc"
