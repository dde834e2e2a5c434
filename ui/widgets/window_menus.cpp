#include "ui/widgets/window_menus.h"

#include "ui/widgets/view_registry.h"

#include <QAction>
#include <QDockWidget>
#include <QFileDialog>
#include <QMainWindow>
#include <QMenuBar>
#include <QMessageBox>
#include <QStatusBar>
#include <QTabWidget>

#include "ui/run/run_controller.h"

namespace moe::ui {

namespace {
QString tr(const char* text) {
  return QMainWindow::tr(text);
}

void exportPng(QMainWindow& window, QTabWidget* tabs) {
  const QString f =
      QFileDialog::getSaveFileName(&window, tr("Export view"), "view.png", tr("PNG (*.png)"));
  if (!f.isEmpty())
    window.statusBar()->showMessage(tabs->currentWidget()->grab().save(f)
                                        ? tr("wrote %1").arg(f)
                                        : tr("cannot write %1").arg(f),
                                    8000);
}

void buildFileMenu(QMainWindow& window, QTabWidget* tabs, RunController* c) {
  QMainWindow* w = &window;
  QMenu* file = window.menuBar()->addMenu(tr("&File"));
  file->addAction(tr("Export view as PNG…"), w, [w, tabs] { exportPng(*w, tabs); });
  file->addAction(tr("Export Chrome trace…"), w, [w, c] {
    const QString f =
        QFileDialog::getSaveFileName(w, tr("Chrome trace"), "trace.json", tr("JSON (*.json)"));
    if (!f.isEmpty()) QMetaObject::invokeMethod(c, [c, f] { c->exportTrace(f); });
  });
  file->addAction(tr("Export stage CSV…"), w, [w, c] {
    const QString f =
        QFileDialog::getSaveFileName(w, tr("Stage CSV"), "stages.csv", tr("CSV (*.csv)"));
    if (!f.isEmpty()) QMetaObject::invokeMethod(c, [c, f] { c->exportCsv(f); });
  });
  file->addSeparator();
  file->addAction(tr("Quit"), w, &QWidget::close);
}

void buildHelpMenu(QMainWindow& window, QTabWidget* tabs, QDockWidget* lessonDock) {
  QMainWindow* w = &window;
  QMenu* help = window.menuBar()->addMenu(tr("&Help"));
  auto* what = help->addAction(tr("What am I looking at?"), w, [w, tabs] {
    QMessageBox box(w);
    box.setWindowTitle(tr("What am I looking at?"));
    box.setTextFormat(Qt::RichText);
    box.setText(viewHelp(tabs->tabText(tabs->currentIndex()).remove('&')));
    box.exec();
  });
  what->setShortcut(QKeySequence::HelpContents);
  what->setToolTip(tr("Explains the view that is open now (F1)"));
  help->addAction(tr("Guided lessons…"), w, [lessonDock] { lessonDock->show(); });
  help->addAction(tr("Keyboard shortcuts"), w, [w] {
    QMessageBox::information(
        w, tr("Keyboard shortcuts"),
        tr("Space: play / pause\nRight / Left: step forward / back by the chosen amount\n"
           "Shift+Right: next stage; Shift+Left: back to the stage start\nCtrl+Right: skip to "
           "the next interesting moment\nHome: reset; End: run to the end\nF1: what am I "
           "looking at?"));
  });
}
}  // namespace

QAction* buildWindowMenus(QMainWindow& window, QTabWidget* tabs, RunController* controller,
                          QDockWidget* lessonDock, std::function<void(bool)> setPresenter) {
  buildFileMenu(window, tabs, controller);
  QMenu* view = window.menuBar()->addMenu(tr("&View"));
  QAction* presenter = view->addAction(tr("Presenter mode (high contrast)"), &window,
                                       [setPresenter](bool on) { setPresenter(on); });
  presenter->setCheckable(true);
  QAction* lessonsAction = lessonDock->toggleViewAction();
  lessonsAction->setText(tr("Lesson panel"));
  lessonsAction->setToolTip(tr("Guided lessons, step by step with Back and Next"));
  view->addAction(lessonsAction);
  presenter->setToolTip(
      tr("High-contrast palette for a projector. Start with --presenter (and --scale 1.25 to 2) "
         "to also make text, lines and cells larger"));
  buildHelpMenu(window, tabs, lessonDock);
  return presenter;
}

}  // namespace moe::ui
