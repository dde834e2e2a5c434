// `moe-workbench --screenshot DIR` writes one distinct, non-trivial PNG per view of the
// registry (today nine: the seven lesson views, A/B and Sweep); in presenter mode they are exactly
// 1920x1080 and none has an elided label; a --size that is not WxH is refused. The one image
// per lesson step of `--lesson all` is checked by the teaching test, in the same run that
// checks each step's expectations.

#include <QDir>
#include <QImage>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include "gui_test_registry.h"
#include "png_checks.h"
#include "ui/widgets/view_registry.h"

namespace moe::ui::test {

namespace {
// Starts moe-workbench and waits; the error text when it did not exit 0.
QString runWorkbench(const QStringList& args) {
  QProcess p;
  p.start(MOE_WORKBENCH_PATH, args);
  if (!p.waitForFinished(600000)) return "did not finish";
  if (p.exitStatus() != QProcess::NormalExit) return "crashed";
  if (p.exitCode() != 0)
    return QString("exit %1: %2").arg(p.exitCode()).arg(p.readAllStandardError().constData());
  return {};
}

// One picture per view of the registry, named by its entry (editor.png for the Scenario
// tab): cluster, card, experts, timeline, metrics, editor, compare, ab and sweep.
QStringList viewFiles(const QString& dir) {
  QStringList out;
  for (const ViewEntry& e : viewRegistry()) out << QDir(dir).filePath(viewShotName(e) + ".png");
  return out;
}
}  // namespace

class ScreenshotTest : public QObject {
  Q_OBJECT
 private slots:
  void writesOneDistinctNonTrivialPngPerView() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString error = runWorkbench({"--screenshot", dir.path()});
    QVERIFY2(error.isEmpty(), qPrintable(error));
    const QString bad = distinctAndNonTrivial(viewFiles(dir.path()), QSize(800, 600));
    QVERIFY2(bad.isEmpty(), qPrintable(bad));
  }

  void presenterModeAt1920x1080ElidesNoLabel() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    // --fail-on-elided exits 3 and lists every clipped or elided text on stderr.
    const QString error =
        runWorkbench({"--presenter", "--screenshot", dir.path(), "--fail-on-elided"});
    QVERIFY2(error.isEmpty(), qPrintable(error));
    const QString bad = distinctAndNonTrivial(viewFiles(dir.path()), QSize(1920, 1080));
    QVERIFY2(bad.isEmpty(), qPrintable(bad));
    // Exactly the projector: a window whose views need more grows past it (it was 1131 high).
    for (const QString& f : viewFiles(dir.path())) QCOMPARE(QImage(f).size(), QSize(1920, 1080));
  }

  void sizeMustBeWidthByHeight() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QProcess p;
    p.start(MOE_WORKBENCH_PATH, {"--screenshot", dir.path(), "--size", "1920by1080"});
    QVERIFY(p.waitForFinished(60000));
    QCOMPARE(p.exitCode(), 2);
    QVERIFY(p.readAllStandardError().contains("--size: must be WxH"));
  }
};

static Register<ScreenshotTest> reg;

}  // namespace moe::ui::test

#include "screenshot_test.moc"
