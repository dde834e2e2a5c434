#include "ui/widgets/view_registry.h"

#include <QCoreApplication>

#include <QObject>
#include <algorithm>

#include "ui/run/frame.h"
#include "ui/run/run_controller.h"
#include "ui/widgets/ab_compare_view.h"
#include "ui/widgets/card_view.h"
#include "ui/widgets/cluster_widget.h"
#include "ui/widgets/compare_view.h"
#include "ui/widgets/core_grid_widget.h"
#include "ui/widgets/experts_view.h"
#include "ui/widgets/metrics_view.h"
#include "ui/widgets/ring_strip_widget.h"
#include "ui/widgets/scenario_editor.h"
#include "ui/widgets/sweep_view.h"
#include "ui/widgets/timeline_tab.h"
#include "ui/widgets/timeline_widget.h"
#include "ui/widgets/workspace_stages_widget.h"

namespace moe::ui {

namespace {

ViewEntry cluster() {
  return {
      .id = "cluster",
      .title = QT_TRANSLATE_NOOP("moe::ui::MainWindow", "Cluster"),
      .help = QT_TRANSLATE_NOOP(
          "moe::ui::ViewHelp",
          "<h3>Cluster</h3><p>Every card of every server, and the links between them. A line "
          "between two cards is an HCCS link inside a server; on a switch fabric (the "
          "h800-nvswitch profile) a line from a card to its server's switch is the card's switch "
          "port; a dashed line to the fabric is a card's RDMA NIC. Its colour and width are the "
          "current load of the busier direction "
          "(grey idle, then green to red as it fills up). The bar under a card shows its vector "
          "cores: working, "
          "waiting, idle.</p><p>Click a card to open it in the Card view; click a link to see "
          "both directions in the Inspector.</p>"),
      .create = [](ViewHost& host) -> QWidget* {
        auto* v = new ClusterWidget;
        QObject::connect(v, &ClusterWidget::selected, v,
                         [&host](const Selection& s) { host.select(s); });
        QObject::connect(v, &ClusterWidget::cardClicked, v, [&host](int c) {
          static_cast<CardView*>(host.page("card"))->showCard(c);
          host.showView("card");
        });
        return v;
      },
      .show = [](QWidget* w,
                 const ViewFeed& f) { static_cast<ClusterWidget*>(w)->setSnapshot(f.shown); },
      .select =
          [](QWidget* w, const Selection& sel) {
            static_cast<ClusterWidget*>(w)->setSelectedLink(
                sel.kind == Selection::Kind::Link ? sel.id : -1);
          },
  };
}

ViewEntry card() {
  return {
      .id = "card",
      .title = QT_TRANSLATE_NOOP("moe::ui::MainWindow", "Card"),
      .help = QT_TRANSLATE_NOOP(
          "moe::ui::ViewHelp",
          "<h3>Card</h3><p>The cores of one card and the buffers between them. Each core's fill "
          "colour is its role in the current stage (sender, forwarder, receiver, gemm, ...); its "
          "border is what it is doing now (copying, computing, or waiting — waiting cores are "
          "hatched). Idle cores have no program in this stage: pale grey with a thin plain "
          "border.</p><p>Each ring is a strip: "
          "filled chunks are written but not yet read. A sender waits when the ring is full "
          "(wait-space); a receiver waits when it is empty (wait-data). Rings of one kind (say, "
          "one per sending card) sit under one line; on a card with many rings each kind starts "
          "folded into that line, with one small cell per ring that darkens as the ring fills. "
          "Click the line to open or fold it. The fused operator shows its workspace slots "
          "instead.</p>"),
      .create = [](ViewHost& host) -> QWidget* {
        auto* v = new CardView;
        QObject::connect(v, &CardView::selected, v,
                         [&host](const Selection& s) { host.select(s); });
        return v;
      },
      .show = [](QWidget* w,
                 const ViewFeed& f) { static_cast<CardView*>(w)->setSnapshot(f.shown); },
      .select =
          [](QWidget* w, const Selection& sel) {
            auto* v = static_cast<CardView*>(w);
            if (sel.kind == Selection::Kind::Card) v->showCard(sel.id);
            // One highlight at a time: a core selected after a ring no longer marks the ring.
            v->grid()->setSelectedCore(sel.kind == Selection::Kind::Core ? sel.id : -1);
            v->rings()->setSelectedRing(sel.kind == Selection::Kind::Ring ? sel.id : -1);
            v->stages()->setSelectedStrip(sel.kind == Selection::Kind::Stages ? sel.id : -1);
          },
  };
}

ViewEntry experts() {
  return {
      .id = "experts",
      .title = QT_TRANSLATE_NOOP("moe::ui::MainWindow", "Experts"),
      .help = QT_TRANSLATE_NOOP(
          "moe::ui::ViewHelp",
          "<h3>Experts</h3><p>How the router spread tokens over the experts, and how that load "
          "lands on the ranks before and after MoeUpdateExpert maps each expert to one of its "
          "replicas. A max/mean of 1.0 is perfect balance.</p><p>\"Rebalance from this load\" "
          "asks EPLB for a new placement with spare (redundant) expert slots, re-runs the layer, "
          "and shows the previous and the rebalanced load side by side.</p>"),
      .create = [](ViewHost& host) -> QWidget* {
        auto* v = new ExpertsView;
        QObject::connect(host.controller(), &RunController::expertLoadReady, v,
                         &ExpertsView::setLoad);
        QObject::connect(v, &ExpertsView::rebalanceRequested, v,
                         [&host](const std::vector<double>& load, int redundant) {
                           host.rebalance(load, redundant);
                         });
        return v;
      },
      .scenario =
          [](QWidget* w, const ScenarioChange& c) {
            if (!c.workloadChanged) return;
            static_cast<ExpertsView*>(w)->setNotApplicable(
                c.scenario.workload.kind == WorkloadKind::AlltoallMatmulRs
                    ? QObject::tr("Not applicable: the AlltoAll-Matmul-ReduceScatter workload has "
                                  "no experts and no routing. Its cores, workspace stages and "
                                  "overlap are in the Card and Timeline views.")
                    : QString());
          },
  };
}

ViewEntry timeline() {
  return {
      .id = "timeline",
      .title = QT_TRANSLATE_NOOP("moe::ui::MainWindow", "Timeline"),
      .help = QT_TRANSLATE_NOOP(
          "moe::ui::ViewHelp",
          "<h3>Timeline</h3><p>Time runs left to right. Each lane is one core (colour = "
          "activity) or, per role, the share of that role's cores working (dark) and waiting "
          "(pale). Dotted lines mark where each stage begins. The red line is the time the "
          "other views show: click anywhere to see the whole machine at that moment.</p><p>For "
          "the fused operator the top lanes show communication hidden under compute (green) or "
          "exposed (red).</p>"),
      .create = [](ViewHost& host) -> QWidget* {
        auto* v = new TimelineTab;
        RunController* c = host.controller();
        QObject::connect(v->timeline(), &TimelineWidget::scrubbed, v,
                         [c](Time t) { c->requestScrub(t); });
        return v;
      },
      .show =
          [](QWidget* w, const ViewFeed& f) {
            TimelineWidget* t = static_cast<TimelineTab*>(w)->timeline();
            t->setSnapshot(f.live);  // the whole run so far; the cursor at the shown time
            t->setScrubTime(f.shown->now);
          },
      .append =
          [](QWidget* w, const Frame& f) {
            static_cast<TimelineTab*>(w)->timeline()->append(f.newIntervals);
          },
      .clear = [](QWidget* w) { static_cast<TimelineTab*>(w)->timeline()->clear(); },
      .scenario =
          [](QWidget* w, const ScenarioChange& c) {
            if (c.workloadChanged)
              static_cast<TimelineTab*>(w)->setLanesFor(c.scenario.workload.kind ==
                                                        WorkloadKind::AlltoallMatmulRs);
          },
  };
}

ViewEntry metrics() {
  return {
      .id = "metrics",
      .title = QT_TRANSLATE_NOOP("moe::ui::MainWindow", "Metrics"),
      .help = QT_TRANSLATE_NOOP(
          "moe::ui::ViewHelp",
          "<h3>Metrics</h3><p>Link bandwidth in use (HCCS, RDMA, HBM), how full the rings and "
          "workspace slots are, and how many cores work or wait, over emulated time.</p>"),
      .create = [](ViewHost&) -> QWidget* { return new MetricsView; },
      .show = [](QWidget* w, const ViewFeed&) { static_cast<MetricsView*>(w)->refresh(); },
      .append = [](QWidget* w,
                   const Frame& f) { static_cast<MetricsView*>(w)->append(f.newSamples); },
      .clear = [](QWidget* w) { static_cast<MetricsView*>(w)->clear(); },
  };
}

ViewEntry scenarioEditor() {
  return {
      .id = "scenario",
      .title = QT_TRANSLATE_NOOP("moe::ui::MainWindow", "Scenario"),
      .help = QT_TRANSLATE_NOOP(
          "moe::ui::ViewHelp",
          "<h3>Scenario</h3><p>Every input of the run: cluster size, model shape, routing, "
          "EPLB, ring sizes, hardware. Hover a field for its meaning and range (from "
          "docs/SCENARIO.md). A field with an error turns red and names the rule; Run stays "
          "disabled until the scenario is valid. Apply re-runs with it.</p>"),
      .create = [](ViewHost& host) -> QWidget* {
        auto* v = new ScenarioEditor;
        QObject::connect(v, &ScenarioEditor::validityChanged, v,
                         [&host](bool ok, const QString& why) { host.setScenarioValid(ok, why); });
        QObject::connect(v, &ScenarioEditor::applyRequested, v,
                         [&host](const Scenario& sc) { host.loadScenario(sc); });
        return v;
      },
      .scenario =
          [](QWidget* w, const ScenarioChange& c) {
            auto* v = static_cast<ScenarioEditor*>(w);
            if (!(v->scenario() == c.scenario)) v->setScenario(c.scenario);
          },
      .shotName = "editor",
  };
}

ViewEntry compare() {
  return {
      .id = "compare",
      .title = QT_TRANSLATE_NOOP("moe::ui::MainWindow", "Compare"),
      .help = QT_TRANSLATE_NOOP(
          "moe::ui::ViewHelp",
          "<h3>Compare</h3><p>Every design of this workload (phased, streaming and flat full-mesh "
          "dispatch/combine, or pipelined vs sequential fused operator) runs to the end on the "
          "same scenario and inputs, each checked against the golden reference. Its tabs: the "
          "timelines draw every run on one time axis, so a longer run is drawn longer; the stage "
          "chart and the table show where the time goes; Why names what each stage waited "
          "on. When the scenario changes, the old figures are marked stale.</p>"),
      .create = [](ViewHost& host) -> QWidget* {
        auto* v = new CompareView;
        QObject::connect(v, &CompareView::runRequested, v, [&host] { host.startCompare(); });
        return v;
      },
      .scenario =
          [](QWidget* w, const ScenarioChange& c) {
            auto* v = static_cast<CompareView*>(w);
            if (c.workloadChanged) v->setWorkload(c.scenario.workload.kind);
            v->setStale(!(c.scenario == c.compared));
          },
      .lessonOpened = [](QWidget*, ViewHost& host) { host.startCompare(); },
  };
}

ViewEntry ab() {
  return {
      .id = "ab",
      .title = QT_TRANSLATE_NOOP("moe::ui::MainWindow", "A/B"),
      .help = QT_TRANSLATE_NOOP(
          "moe::ui::ViewHelp",
          "<h3>A/B</h3><p>Pin the current run as A, change anything (a field, the hardware, the "
          "design) and run B: both run to the end, and their timelines (on one time axis), "
          "charts of stage durations and ring occupancy over time, and table of key figures sit "
          "side by side, B against A, each on a tab of its own. A side whose scenario or "
          "design is no longer the current one is marked stale and lists what changed.</p>"),
      .create = [](ViewHost& host) -> QWidget* {
        auto* v = new AbCompareView;
        QObject::connect(v, &AbCompareView::runRequested, v,
                         [&host](int side) { host.startAb(side); });
        return v;
      },
      .scenario =
          [](QWidget* w, const ScenarioChange& c) {
            static_cast<AbCompareView*>(w)->setCurrent(c.scenario, c.design);
          },
      .inLessons = false,
      .shotAfterRuns = true,
  };
}

ViewEntry sweep() {
  return {
      .id = "sweep",
      .title = QT_TRANSLATE_NOOP("moe::ui::MainWindow", "Sweep"),
      .help = QT_TRANSLATE_NOOP(
          "moe::ui::ViewHelp",
          "<h3>Sweep</h3><p>Runs the current scenario many times, varying one or two fields "
          "(values separated by commas, or from:to:step, or from:to:*factor), every design, on "
          "every core in a worker thread. One field gives a line per design, two a heat map for "
          "the chosen design. A point whose values break a scenario rule is not run and says "
          "which. Click a point to load its scenario; Save CSV writes what moe-sim sweep "
          "--csv writes.</p>"),
      .create = [](ViewHost& host) -> QWidget* {
        auto* v = new SweepView(host.sweepRunner());
        // A clicked sweep point becomes the scenario of the editor and the live run.
        QObject::connect(v, &SweepView::loadRequested, v,
                         [&host](const Scenario& sc) { host.loadScenario(sc); });
        return v;
      },
      .scenario =
          [](QWidget* w, const ScenarioChange& c) {
            static_cast<SweepView*>(w)->setScenario(c.scenario);
          },
      .inLessons = false,
      .shotAfterRuns = true,
  };
}

}  // namespace

const std::vector<ViewEntry>& viewRegistry() {
  static const std::vector<ViewEntry> views = {cluster(),  card(),    experts(),
                                               timeline(), metrics(), scenarioEditor(),
                                               compare(),  ab(),      sweep()};
  return views;
}

int viewIndex(const QString& id) {
  const auto& views = viewRegistry();
  const auto at =
      std::find_if(views.begin(), views.end(), [&](const ViewEntry& e) { return e.id == id; });
  return at == views.end() ? -1 : static_cast<int>(at - views.begin());
}

QString viewShotName(const ViewEntry& e) {
  return e.shotName.isEmpty() ? e.id : e.shotName;
}

const std::vector<QString>& lessonViews() {
  static const std::vector<QString> views = [] {
    std::vector<QString> ids;
    for (const ViewEntry& e : viewRegistry())
      if (e.inLessons) ids.push_back(e.id);
    return ids;
  }();
  return views;
}

QString viewHelp(const QString& title) {
  for (const ViewEntry& e : viewRegistry())
    if (QCoreApplication::translate("moe::ui::MainWindow", e.title) == title)
      return QCoreApplication::translate("moe::ui::ViewHelp", e.help);
  return QCoreApplication::translate("moe::ui::ViewHelp", "<p>No help for this view yet.</p>");
}

}  // namespace moe::ui
