#pragma once
// Every view of the workbench, in tab order, in one table: its id (the name lessons,
// `--view` and `--screenshot` use), its tab title, how it is built and wired to the
// window, and what it takes on each redraw tick, new frame, selection and scenario.
// The window, the lesson parser, the screenshot writer and the recorder read this table.
// Each view adds its own entry from its own .cpp (MOE_VIEW), so a new view is its widget's
// two files and nothing else (docs/ARCHITECTURE.md, "How to add a view").

#include <QString>
#include <functional>
#include <memory>
#include <utility>
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

// Every view, in tab order. Built on first use from the registered entries; a duplicate
// id or tab place is a programming error and throws std::logic_error naming both.
const std::vector<ViewEntry>& viewRegistry();
// Adds a view: `make` builds its entry, `tabPlace` orders the tabs (smaller first). Called
// once per view before main() runs, through MOE_VIEW in the view's .cpp. The executables
// link moe_ui whole (ui/CMakeLists.txt), so no view's object file is left out.
bool registerView(int tabPlace, ViewEntry (*make)());
// The table that viewRegistry() builds from (tab place, entry) pairs: sorted by place,
// checked for a duplicate id or place.
std::vector<ViewEntry> orderViews(std::vector<std::pair<int, ViewEntry (*)()>> list);
#define MOE_VIEW(tabPlace, make)                                  \
  [[maybe_unused]] static const bool moe_view_registered_##make = \
      ::moe::ui::registerView(tabPlace, make)
// F1's text for the view whose tab reads `title` (as the window shows it, translated).
QString viewHelp(const QString& title);
// The ids of the views a lesson step may name, in tab order (entries with inLessons).
const std::vector<QString>& lessonViews();
// The position of `id` in viewRegistry() (its tab index), or -1.
int viewIndex(const QString& id);
// The --screenshot file name of an entry.
QString viewShotName(const ViewEntry& e);

}  // namespace moe::ui
