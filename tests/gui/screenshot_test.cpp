// `moe-workbench --screenshot DIR` writes nine distinct (the seven views, A/B and Sweep),
// non-trivial PNGs.

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QImage>
#include <QProcess>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

#include "gui_test_registry.h"

namespace moe::ui::test {

class ScreenshotTest : public QObject {
  Q_OBJECT
 private slots:
  void writesNineDistinctNonTrivialPngs() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QProcess p;
    p.start(MOE_WORKBENCH_PATH, {"--screenshot", dir.path()});
    QVERIFY(p.waitForFinished(240000));
    QCOMPARE(p.exitStatus(), QProcess::NormalExit);
    QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
    QSet<QByteArray> hashes;
    for (const char* name : {"cluster", "card", "experts", "timeline", "metrics", "editor",
                             "compare", "ab", "sweep"}) {
      const QString file = QDir(dir.path()).filePath(QString(name) + ".png");
      QFile f(file);
      QVERIFY2(f.open(QIODevice::ReadOnly), qPrintable(file));
      hashes.insert(QCryptographicHash::hash(f.readAll(), QCryptographicHash::Sha256));
      const QImage img(file);
      QVERIFY(img.width() >= 800 && img.height() >= 600);
      // Non-trivial: many distinct colours, not a blank window.
      QSet<QRgb> colours;
      for (int y = 0; y < img.height(); y += 7)
        for (int x = 0; x < img.width(); x += 7) colours.insert(img.pixel(x, y));
      QVERIFY2(colours.size() > 20,
               qPrintable(QString("%1 has only %2 colours").arg(name).arg(colours.size())));
    }
    QCOMPARE(hashes.size(), 9);
  }
};

static Register<ScreenshotTest> reg;

}  // namespace moe::ui::test

#include "screenshot_test.moc"
