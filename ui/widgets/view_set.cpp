#include "ui/widgets/view_set.h"

#include <QCoreApplication>
#include <QDockWidget>
#include <QMainWindow>
#include <QTabWidget>
#include <QTextBrowser>

#include "ui/run/frame.h"

namespace moe::ui {

ViewSet::ViewSet(QMainWindow& window, ViewHost& host) {
  tabs_ = new QTabWidget;
  tabs_->setObjectName("views");
  for (const ViewEntry& e : viewRegistry()) {
    pages_.push_back(e.create(host));
    pages_.back()->setObjectName(e.id);  // tests find a view by its id (findChild)
    tabs_->addTab(pages_.back(), QCoreApplication::translate("moe::ui::MainWindow", e.title));
  }
  window.setCentralWidget(tabs_);

  inspector_ = new QTextBrowser;
  inspector_->setToolTip(QCoreApplication::translate(
      "moe::ui::MainWindow", "What the selected element is doing now, in words"));
  inspectorDock_ = new QDockWidget(QCoreApplication::translate("moe::ui::MainWindow", "Inspector"));
  inspectorDock_->setWidget(inspector_);
  inspectorDock_->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
  window.addDockWidget(Qt::RightDockWidgetArea, inspectorDock_);
  window.resizeDocks({inspectorDock_}, {340}, Qt::Horizontal);
}

QWidget* ViewSet::page(const QString& id) const {
  const int i = viewIndex(id);
  return i < 0 ? nullptr : pages_[static_cast<std::size_t>(i)];
}

void ViewSet::show(const QString& id) {
  if (const int i = viewIndex(id); i >= 0) tabs_->setCurrentIndex(i);
}

void ViewSet::feed(const ViewFeed& f) {
  const auto& views = viewRegistry();
  for (std::size_t i = 0; i < views.size(); ++i)
    if (views[i].show) views[i].show(pages_[i], f);
  inspector_->setHtml(describeSelection(*f.shown, selection_));
}

void ViewSet::append(const Frame& f) {
  const auto& views = viewRegistry();
  for (std::size_t i = 0; i < views.size(); ++i)
    if (views[i].append) views[i].append(pages_[i], f);
}

void ViewSet::clear() {
  const auto& views = viewRegistry();
  for (std::size_t i = 0; i < views.size(); ++i)
    if (views[i].clear) views[i].clear(pages_[i]);
}

void ViewSet::select(const Selection& sel, const Snapshot* shown) {
  selection_ = sel;
  const auto& views = viewRegistry();
  for (std::size_t i = 0; i < views.size(); ++i)
    if (views[i].select) views[i].select(pages_[i], sel);
  if (shown) inspector_->setHtml(describeSelection(*shown, selection_));
}

void ViewSet::scenarioLoaded(const ScenarioChange& c) {
  const auto& views = viewRegistry();
  for (std::size_t i = 0; i < views.size(); ++i)
    if (views[i].scenario) views[i].scenario(pages_[i], c);
}

void ViewSet::lessonOpened(const QString& id, ViewHost& host) {
  const int i = viewIndex(id);
  if (i < 0) return;
  show(id);
  if (const auto& opened = viewRegistry()[static_cast<std::size_t>(i)].lessonOpened)
    opened(pages_[static_cast<std::size_t>(i)], host);
}

}  // namespace moe::ui
