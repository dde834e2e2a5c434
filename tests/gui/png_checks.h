#pragma once
// Checks on the PNGs that `moe-workbench --screenshot` writes, shared by the tests that start
// it: the screenshot test (one image per view) and the teaching test (one per lesson step).

#include <QCryptographicHash>
#include <QFile>
#include <QImage>
#include <QSet>
#include <QSize>
#include <QStringList>

namespace moe::ui::test {

// Every file is a real picture (many colours, at least minSize) and no two are the same; the
// error text, or empty.
inline QString distinctAndNonTrivial(const QStringList& files, QSize minSize) {
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

}  // namespace moe::ui::test
