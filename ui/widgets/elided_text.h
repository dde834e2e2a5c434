#pragma once
// Finds text the user cannot read in full: a label narrower or shorter than its text (cut
// descenders), a button, tab or combo box whose text does not fit, toolbar texts that run
// into the next one ("(scrubbed)stage:"), a chart title or axis label Qt Charts shortened
// with "...", and text a widget paints itself that did not fit its box (painted_text.h).
// Presenter mode and its test use it to show that every label fits at the target size.

#include <QStringList>

class QWidget;

namespace moe::ui {

// One line per clipped or elided text under `root` (visible widgets only), naming the
// widget and the text; empty when everything fits.
QStringList elidedTexts(QWidget* root);

}  // namespace moe::ui
