#pragma once
// The window's menus: File (export the view as PNG, the Chrome trace, the stage CSV; quit),
// View (presenter mode, the lesson panel) and Help (what the open view shows, lessons, keys).

#include <functional>

class QAction;
class QDockWidget;
class QMainWindow;
class QTabWidget;

namespace moe::ui {

class RunController;

// Adds the menus to `window`; returns the checkable presenter-mode action, which calls
// `setPresenter`.
QAction* buildWindowMenus(QMainWindow& window, QTabWidget* tabs, RunController* controller,
                          QDockWidget* lessonDock, std::function<void(bool)> setPresenter);

}  // namespace moe::ui
