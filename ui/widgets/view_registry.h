#pragma once
// Every view of the workbench, in tab order, in one table: its id (the name lessons,
// `--view` and `--screenshot` use), its tab title, how it is built and wired to the
// window, and what it takes on each redraw tick, new frame, selection and scenario.
// The window, the lesson parser, the screenshot writer and the recorder read this table,
// so a new view is one entry here plus its widget (docs/ARCHITECTURE.md, "How to add a
// view").

#include <QString>
#include <functional>
#include <memory>
#include <vector>

#include "core/observe/snapshot.h"
#include "core/run/design.h"
#include "core/runtime/layer_context.h"
#include "core/scenario/scenario.h"
#include "ui/models/selection.h"

class QWidget;

namespace moe::ui {

struct Frame;
class RunController;
class SweepRunner;

// What the views may ask of the window that holds them. The window implements it.
class ViewHost {
 public:
  virtual RunController* controller() const = 0;
  virtual SweepRunner* sweepRunner() const = 0;
  virtual QWidget* page(const QString& id) const = 0;  // another view's tab page
  virtual void showView(const QString& id) = 0;        // makes that tab current
  virtual void select(const Selection& sel) = 0;
  virtual void loadScenario(const Scenario& sc, Fault fault = Fault::None) = 0;
  virtual void startCompare() = 0;
  virtual void startAb(int side) = 0;
  virtual void rebalance(const std::vector<double>& perExpertLoad, int redundantExperts) = 0;
  // The editor's scenario became valid or invalid (Run is disabled while it is invalid).
  virtual void setScenarioValid(bool ok, const QString& why) = 0;

 protected:
  ~ViewHost() = default;
};

// The moment a redraw tick shows: live, or scrubbed back to an earlier time.
struct ViewFeed {
  std::shared_ptr<const Snapshot> shown;  // the displayed time, live or scrubbed
  std::shared_ptr<const Snapshot> live;   // the newest frame of the run
};

// A scenario was loaded into the live run.
struct ScenarioChange {
  const Scenario& scenario;
  Design design;
  bool workloadChanged;      // the first scenario, or another workload than before
  const Scenario& compared;  // the scenario the Compare figures are for
};

struct ViewEntry {
  QString id;         // lessons, --view and --screenshot: lower case, one word
  const char* title;  // the tab title, translated when shown
  const char* help;   // F1 ("What am I looking at?"): what the view shows, in rich text
  // Builds the tab page and connects its requests to the host.
  std::function<QWidget*(ViewHost&)> create;
  // Each redraw tick with a new moment (nullptr: the view takes no snapshots).
  std::function<void(QWidget*, const ViewFeed&)> show = nullptr;
  // Each new frame of the live run: its history since the last one.
  std::function<void(QWidget*, const Frame&)> append = nullptr;
  // A new run from time 0 (load, reset or restart): drop the history.
  std::function<void(QWidget*)> clear = nullptr;
  // The selected element (kind None: nothing), to highlight.
  std::function<void(QWidget*, const Selection&)> select = nullptr;
  std::function<void(QWidget*, const ScenarioChange&)> scenario = nullptr;
  // A lesson step opens this view (Compare starts its runs).
  std::function<void(QWidget*, ViewHost&)> lessonOpened = nullptr;
  bool inLessons = true;  // a lesson step and --view may name it
  // --screenshot: the file name (without .png), and whether the picture waits for the A/B
  // and sweep runs (they change the scenario, so every other view is taken before them).
  QString shotName = {};
  bool shotAfterRuns = false;
};

// Every view, in tab order.
const std::vector<ViewEntry>& viewRegistry();
// F1's text for the view whose tab reads `title` (as the window shows it, translated).
QString viewHelp(const QString& title);
// The ids of the views a lesson step may name, in tab order (entries with inLessons).
const std::vector<QString>& lessonViews();
// The position of `id` in viewRegistry() (its tab index), or -1.
int viewIndex(const QString& id);
// The --screenshot file name of an entry.
QString viewShotName(const ViewEntry& e);

}  // namespace moe::ui
