#include "ui/widgets/view_registry.h"

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

}  // namespace moe::ui
