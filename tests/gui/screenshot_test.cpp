// `moe-workbench --screenshot DIR` writes one distinct, non-trivial PNG per view of the
// registry (today nine: the seven lesson views, A/B and Sweep); in presenter mode they are exactly
// 1920x1080 and none has an elided label; a --size that is not WxH is refused;
// `--lesson all` writes one distinct image per step of every shipped lesson.

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QImage>
#include <QProcess>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

#include "gui_test_registry.h"
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

// Every file is a real picture (many colours, at least minSize) and no two are the same.
QString distinctAndNonTrivial(const QStringList& files, QSize minSize) {
  QSet<QByteArray> hashes;
  for (const QString& file : files) {
    QFile f(file);
    if (!f.open(QIODevice::ReadOnly)) return "cannot read " + file;
    hashes.insert(QCryptographicHash::hash(f.readAll(), QCryptographicHash::Sha256));
    const QImage img(file);
    if (img.width() < minSize.width() || img.height() < minSize.height())
      return QString("%1 is %2x%3").arg(file).arg(img.width()).arg(img.height());
    QSet<QRgb> colours;
    for (int y = 0; y < img.height(); y += 7)
      for (int x = 0; x < img.width(); x += 7) colours.insert(img.pixel(x, y));
    if (colours.size() <= 20)
      return QString("%1 has only %2 colours").arg(file).arg(colours.size());
  }
  if (hashes.size() != files.size())
    return QString("%1 distinct images of %2").arg(hashes.size()).arg(files.size());
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

  void everyLessonStepGetsItsOwnImage() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString error = runWorkbench({"--lesson", "all", "--screenshot", dir.path()});
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QStringList files;
    QSet<QString> lessons;
    for (const QString& f : QDir(dir.path()).entryList({"*-step*.png"}, QDir::Files, QDir::Name)) {
      files << QDir(dir.path()).filePath(f);
      lessons.insert(f.left(f.indexOf("-step")));
    }
    QVERIFY2(lessons.size() >= 5, qPrintable(QStringList(lessons.values()).join(", ")));
    const QString bad = distinctAndNonTrivial(files, QSize(800, 600));
    QVERIFY2(bad.isEmpty(), qPrintable(bad));
  }
};

static Register<ScreenshotTest> reg;

}  // namespace moe::ui::test

#include "screenshot_test.moc"
