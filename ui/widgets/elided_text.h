#pragma once
// Finds text the user cannot read in full: a label narrower than its text, a button or tab
// whose title does not fit, a chart title or axis label Qt Charts shortened with "...".
// Presenter mode and its test use it to show that every label fits at the target size.

#include <QStringList>

class QWidget;

namespace moe::ui {

// One line per clipped or elided text under `root` (visible widgets only), naming the
// widget and the text; empty when everything fits.
QStringList elidedTexts(QWidget* root);

}  // namespace moe::ui
