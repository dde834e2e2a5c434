#include "ui/widgets/painted_text.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QVariant>
#include <QWidget>

namespace moe::ui {

namespace {
constexpr const char* kProperty = "moePaintedTextClips";
}

void beginPaintedText(QWidget* w) {
  w->setProperty(kProperty, QStringList{});
}

void notePaintedClip(QWidget* w, const QString& text, double need, double room) {
  QStringList clips = w->property(kProperty).toStringList();
  const QString line = QString("painted \"%1\" needs %2 px, has %3")
                           .arg(text)
                           .arg(static_cast<int>(need + 0.5))
                           .arg(static_cast<int>(room));
  if (!clips.contains(line)) clips << line;
  w->setProperty(kProperty, clips);
}

void drawFittedText(QPainter& p, QWidget* w, const QRectF& r, int flags, const QString& text) {
  const QFontMetricsF fm(p.font());
  // The box the text needs: wrapped text may grow taller, a single line only wider.
  // Half a pixel of slack: fractional metrics round differently from the raster.
  const QRectF need = fm.boundingRect(r, flags, text);
  if (flags & Qt::TextWordWrap) {
    if (need.height() > r.height() + 0.5)
      notePaintedClip(w, text + " (height)", need.height(), r.height());
  } else if (need.width() > r.width() + 0.5)
    notePaintedClip(w, text, need.width(), r.width());
  else if (fm.height() > r.height() + 0.5)
    notePaintedClip(w, text + " (height)", fm.height(), r.height());
  p.drawText(r, flags, text);
}

QStringList paintedTextClips(const QWidget* w) {
  return w->property(kProperty).toStringList();
}

}  // namespace moe::ui
