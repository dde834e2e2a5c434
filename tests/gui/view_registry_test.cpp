// The views come from one table (view_registry.h): the window's tabs are its entries in
// order with their titles, an id finds its tab, the names lessons and --view accept are its
// lesson views, a lesson naming another view is refused with that list, and the window hands
// a selection to the views whose entry highlights it.

#include <QCoreApplication>
#include <QSet>
#include <QTabWidget>
#include <QTest>

#include "by_name.h"
#include "gui_test_registry.h"
#include "lesson_parsing.h"
#include "small_scenario.h"
#include "ui/models/lesson.h"
#include "ui/widgets/cluster_widget.h"
#include "ui/widgets/main_window.h"
#include "ui/widgets/view_registry.h"

namespace moe::ui::test {

class ViewRegistryTest : public QObject {
  Q_OBJECT
 private slots:
  void tabsAreTheRegistryInOrder() {
    MainWindow w;
    const auto& views = viewRegistry();
    QTabWidget* tabs = byName<QTabWidget>(w, "views");
    QCOMPARE(tabs->count(), static_cast<int>(views.size()));
    QSet<QString> ids, shots;
    for (int i = 0; i < static_cast<int>(views.size()); ++i) {
      const ViewEntry& e = views[static_cast<std::size_t>(i)];
      QCOMPARE(tabs->tabText(i), QString(e.title));
      QCOMPARE(w.page(e.id), tabs->widget(i));
      QCOMPARE(byName<QWidget>(w, qPrintable(e.id)), tabs->widget(i));  // named by its id
      QCOMPARE(viewIndex(e.id), i);
      ids.insert(e.id);
      shots.insert(viewShotName(e));
      w.showView(e.id);
      QCOMPARE(tabs->currentIndex(), i);
    }
    // Ids and screenshot names are unique: each is one tab and one PNG.
    QCOMPARE(ids.size(), static_cast<int>(views.size()));
    QCOMPARE(shots.size(), static_cast<int>(views.size()));
    QCOMPARE(viewIndex("nowhere"), -1);
    QVERIFY(w.page("nowhere") == nullptr);
    // Tests find a view by its id and its type.
    QCOMPARE(static_cast<QWidget*>(byName<ClusterWidget>(w, "cluster")), w.page("cluster"));
    QCOMPARE(static_cast<QWidget*>(byName<SweepView>(w, "sweep")), w.page("sweep"));
  }

  void lessonViewsAreTheRegistrysLessonEntries() {
    QStringList expected;
    for (const ViewEntry& e : viewRegistry())
      if (e.inLessons) expected << e.id;
    const auto& lessons = lessonViews();
    QCOMPARE(QStringList(lessons.begin(), lessons.end()), expected);
    QCOMPARE(expected, QStringList({"cluster", "card", "experts", "timeline", "metrics", "scenario",
                                    "compare"}));
    // A view outside the lesson list (A/B needs its own runs) is refused, naming the list.
    try {
      (void)parseWithRegistryViews("broken", R"({"title": "t", "steps": [{"narration": "a",
                                       "run_to": {"end": true}, "view": "ab"}]})");
      QFAIL("a view lessons cannot show was accepted");
    } catch (const std::exception& e) {
      QCOMPARE(QString(e.what()),
               QString("lesson broken, step 1, view: must be one of " + expected.join(", ")));
    }
  }

  void aSelectionReachesTheViewsThatMarkIt() {
    MainWindow w;
    w.loadScenario(smallScenario());
    w.select(Selection{Selection::Kind::Link, 2});
    ClusterWidget* cluster = byName<ClusterWidget>(w, "cluster");
    QCOMPARE(cluster->selectedLink(), 2);
    w.select(Selection{Selection::Kind::Core, 0});
    QCOMPARE(cluster->selectedLink(), -1);  // one highlight at a time
  }

  // F1's text comes from each view's entry, found by the tab title the window shows.
  void everyViewHasItsOwnHelp() {
    QSet<QString> texts;
    for (const ViewEntry& e : viewRegistry()) {
      const QString help = viewHelp(QCoreApplication::translate("moe::ui::MainWindow", e.title));
      QVERIFY2(help.contains(QString("<h3>%1</h3>").arg(e.title)), qPrintable(help));
      texts.insert(help);
    }
    QCOMPARE(texts.size(), static_cast<int>(viewRegistry().size()));
    QVERIFY(viewHelp("No such tab").contains("No help"));
  }

  // Each view registers itself from its own file with a tab place; the table sorts by
  // place, whatever the order the files registered in, and refuses two views on one id or
  // one place, naming both.
  void registeredViewsAreOrderedByPlaceAndDuplicatesAreRefused() {
    auto a = [] { return ViewEntry{.id = "alpha", .title = "Alpha", .help = "", .create = {}}; };
    auto b = [] { return ViewEntry{.id = "beta", .title = "Beta", .help = "", .create = {}}; };
    auto alsoA = [] { return ViewEntry{.id = "alpha", .title = "A2", .help = "", .create = {}}; };
    const auto ordered = orderViews({{20, +a}, {10, +b}});
    QCOMPARE(ordered.size(), std::size_t{2});
    QCOMPARE(ordered[0].id, QString("beta"));
    QCOMPARE(ordered[1].id, QString("alpha"));
    auto refusal = [](std::vector<std::pair<int, ViewEntry (*)()>> list) {
      try {
        orderViews(std::move(list));
      } catch (const std::logic_error& e) {
        return QString(e.what());
      }
      return QString();
    };
    QCOMPARE(refusal({{10, +a}, {20, +alsoA}}),
             QString("views 'alpha' and 'alpha' share an id or a tab place (MOE_VIEW)"));
    QCOMPARE(refusal({{10, +a}, {10, +b}}),
             QString("views 'alpha' and 'beta' share an id or a tab place (MOE_VIEW)"));
  }
};

static Register<ViewRegistryTest> reg;

}  // namespace moe::ui::test

#include "view_registry_test.moc"
