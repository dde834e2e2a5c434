#pragma once
// "What am I looking at?": a short, plain-words explanation of each view, for the Help menu.

#include <QString>

namespace moe::ui {

// `view` is the tab's title as the window shows it ("Cluster", "Card", ...). Returns HTML.
QString viewHelp(const QString& view);

}  // namespace moe::ui
