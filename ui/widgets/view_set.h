#pragma once
// The views of the window, built from viewRegistry(): one tab each, and the Inspector that
// describes the selected element. It hands them what the registry says each one takes.

#include <QString>
#include <vector>

#include "ui/models/selection.h"
#include "ui/widgets/view_registry.h"

class QDockWidget;
class QMainWindow;
class QTabWidget;
class QTextBrowser;

namespace moe::ui {

class ViewSet {
 public:
  // Builds every view as a tab of the window's central widget, and the Inspector dock.
  ViewSet(QMainWindow& window, ViewHost& host);

  QTabWidget* tabs() const { return tabs_; }
  QDockWidget* inspectorDock() const { return inspectorDock_; }
  QWidget* page(const QString& id) const;
  template <typename V>
  V* view(const QString& id) const {
    return static_cast<V*>(page(id));
  }
  void show(const QString& id);  // makes its tab current
  const Selection& selection() const { return selection_; }

  void feed(const ViewFeed& f);  // a redraw tick, and the Inspector at that moment
  void append(const Frame& f);
  void clear();
  void select(const Selection& sel, const Snapshot* shown);
  void scenarioLoaded(const ScenarioChange& c);
  void lessonOpened(const QString& id, ViewHost& host);

 private:
  QTabWidget* tabs_;
  std::vector<QWidget*> pages_;  // in viewRegistry() order
  QTextBrowser* inspector_;
  QDockWidget* inspectorDock_;
  Selection selection_;
};

}  // namespace moe::ui
