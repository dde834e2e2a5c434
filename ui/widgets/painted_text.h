#pragma once
// Text a widget paints itself (QPainter::drawText) has no QLabel for the clipped-text check
// to measure. Widgets draw such text through drawFittedText, which measures it against its
// rectangle with the painter's font and, when it does not fit (too wide, or too short for
// its descenders), records it on the widget; elidedTexts() lists what the last paint
// recorded. A paint starts with beginPaintedText, so only the current picture counts.

#include <QRectF>
#include <QString>
#include <QStringList>

class QPainter;
class QWidget;

namespace moe::ui {

// Forgets what the previous paint of `w` recorded.
void beginPaintedText(QWidget* w);

// Draws `text` in `r` with `flags` (as QPainter::drawText) and records it on `w` when it
// needs more room than `r` has.
void drawFittedText(QPainter& p, QWidget* w, const QRectF& r, int flags, const QString& text);

// Records a text `w` shortened or left incomplete on purpose ("dispat…") as clipped.
void notePaintedClip(QWidget* w, const QString& text, double need, double room);

// What the last paint of `w` recorded: one line per text that did not fit.
QStringList paintedTextClips(const QWidget* w);

}  // namespace moe::ui
