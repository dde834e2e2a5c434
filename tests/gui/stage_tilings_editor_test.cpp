// The Scenario view shows each streaming stage's ring tiling in its own group, whether the
// scenario is written flat or per stage; an edit changes only that stage, and an error is
// shown at the stage's own field.

#include <QLabel>
#include <QLineEdit>
#include <QTest>

#include "core/scenario/scenario_json.h"
#include "gui_test_registry.h"
#include "ui/widgets/scenario_editor.h"

namespace moe::ui::test {

class StageTilingsEditorTest : public QObject {
  Q_OBJECT
 private slots:
  void editsOneStagesTilingOnly() {
    ScenarioEditor ed;
    const Scenario sc = defaultScenario();
    ed.setScenario(sc);
    for (const char* p : {"rings.dispatch.chunk_bytes", "rings.combine.chunk_bytes",
                          "rings.dispatch.receiver_cores", "rings.combine.receiver_cores"})
      QVERIFY2(ed.fieldEditor(p), p);
    auto* queue = qobject_cast<QLineEdit*>(ed.fieldEditor("rings.combine.queue_chunks"));
    QVERIFY(queue);
    QCOMPARE(queue->text(), QString::number(sc.rings.combine.queueChunks));
    queue->setText("4");
    QVERIFY(ed.isValid());
    QCOMPARE(ed.scenario().rings.combine.queueChunks, 4);
    QCOMPARE(ed.scenario().rings.dispatch.queueChunks, sc.rings.dispatch.queueChunks);
    // A scenario written per stage shows each stage's own values.
    ed.setScenario(ed.scenario());
    auto* again = qobject_cast<QLineEdit*>(ed.fieldEditor("rings.combine.queue_chunks"));
    QVERIFY(again);
    QCOMPARE(again->text(), QString("4"));
    // A bad value is refused at that stage's field.
    again->setText("1");
    QVERIFY(!ed.isValid());
    QVERIFY(ed.fieldError("rings.combine.queue_chunks")->isVisibleTo(&ed));
    QVERIFY(!ed.fieldError("rings.dispatch.queue_chunks")->isVisibleTo(&ed));
  }
};

static Register<StageTilingsEditorTest> reg;

}  // namespace moe::ui::test

#include "stage_tilings_editor_test.moc"
