// Rendering behaviour of the custom-painted widgets and the pure pixel<->time mapping.

#include <QImage>
#include <QTest>

#include "gui_test_registry.h"
#include "ui/models/ring_groups.h"
#include "ui/widgets/ring_strip_widget.h"
#include "ui/widgets/timeline_widget.h"

namespace moe::ui::test {

class WidgetRenderingTest : public QObject {
  Q_OBJECT
 private slots:
  void ringRenderingChangesWithOccupancy() {
    auto snap = std::make_shared<Snapshot>();
    snap->cards.push_back(CardSnap{0, 0, 0, {}, {}});
    RingSnap r;
    r.name = "card0<-card1";
    r.capacity = 8 * 65536;
    r.chunkBytes = 65536;
    snap->rings.push_back(r);
    RingStripWidget w;
    w.resize(700, 80);
    w.setSnapshot(snap, 0);
    const QImage empty = w.grab().toImage();

    auto fuller = std::make_shared<Snapshot>(*snap);
    fuller->rings[0].tail = fuller->rings[0].producerTail = 5 * 65536;
    w.setSnapshot(fuller, 0);
    const QImage occupied = w.grab().toImage();
    QVERIFY(empty != occupied);

    // Wrapped: the same 5 chunks in flight, but straddling the end of the buffer.
    auto wrapped = std::make_shared<Snapshot>(*fuller);
    wrapped->rings[0].head = 6 * 65536;
    wrapped->rings[0].tail = wrapped->rings[0].producerTail = 11 * 65536;
    w.setSnapshot(wrapped, 0);
    QVERIFY(w.grab().toImage() != occupied);
  }

  void ringGroupsAreTheNamesWithoutTheirNumbers() {
    QCOMPARE(ringGroupTitle("card3 IPC <- card9 fwd from server1 ch12"),
             std::string("IPC <- card* fwd from server* ch*"));
    QCOMPARE(ringGroupTitle("card10 combine RDMA <- card2 ch0"),
             std::string("combine RDMA <- card* ch*"));
    Snapshot snap;
    for (const char* name : {"card0 IPC <- card1", "card1 IPC <- card0", "card0 RDMA <- card8 ch0",
                             "card0 IPC <- card2", "card0 RDMA <- card8 ch1"}) {
      RingSnap r;
      r.id = static_cast<int>(snap.rings.size());
      r.name = name;
      r.consumerCard = name[4] - '0';
      snap.rings.push_back(r);
    }
    const std::vector<RingGroup> g = ringGroups(snap, 0);
    QCOMPARE(g.size(), std::size_t{2});
    QCOMPARE(g[0].title, std::string("IPC <- card*"));
    QCOMPARE(g[0].rings, (std::vector<int>{0, 3}));  // card1's ring is not card 0's
    QCOMPARE(g[1].rings, (std::vector<int>{2, 4}));
  }

  // A card with many rings opens with each kind folded into one line; a click on a kind's
  // line unfolds it, and a ring selected elsewhere unfolds its kind so it can be seen.
  void manyRingsStartFoldedByKindAndUnfoldOnClick() {
    auto snap = std::make_shared<Snapshot>();
    snap->cards.push_back(CardSnap{0, 0, 0, {}, {}});
    for (int i = 0; i < 20; ++i) {
      RingSnap r;
      r.id = i;
      r.name = i < 4 ? "card0 IPC <- card" + std::to_string(i)
                     : "card0 IPC <- card1 fwd from server1 ch" + std::to_string(i);
      r.capacity = 4 * 65536;
      r.chunkBytes = 65536;
      snap->rings.push_back(r);
    }
    RingStripWidget w;
    w.resize(900, 600);
    w.setSnapshot(snap, 0);
    QCOMPARE(w.rowCount(), 20);
    QCOMPARE(w.groupCount(), 2);
    QVERIFY(w.isFolded(0) && w.isFolded(1));
    QCOMPARE(w.visibleRingRows(), 0);
    const int firstHeaderY = w.fontMetrics().height() * 2 + 4 + 5;  // below the key
    QTest::mouseClick(&w, Qt::LeftButton, {}, QPoint(50, firstHeaderY));
    QVERIFY(!w.isFolded(0));
    QCOMPARE(w.visibleRingRows(), 4);
    // The choice stands across snapshots; a selected ring's kind unfolds.
    w.setSnapshot(snap, 0);
    QCOMPARE(w.visibleRingRows(), 4);
    w.setSelectedRing(12);
    QVERIFY(!w.isFolded(1));
    QCOMPARE(w.visibleRingRows(), 20);
    // Few rings: nothing starts folded.
    auto few = std::make_shared<Snapshot>(*snap);
    few->rings.resize(3);
    for (RingSnap& r : few->rings) r.name = "card0 combine IPC <- card" + std::to_string(r.id);
    w.setSnapshot(few, 0);
    QCOMPARE(w.visibleRingRows(), 3);
  }

  void timeAxisMapsPixelsAndTimeBothWays_data() {
    QTest::addColumn<double>("t0");
    QTest::addColumn<double>("psPerPx");
    QTest::addColumn<double>("x");
    QTest::addColumn<double>("t");
    QTest::newRow("origin") << 0.0 << 1000.0 << 90.0 << 0.0;
    QTest::newRow("zoomed") << 0.0 << 1000.0 << 190.0 << 100000.0;
    QTest::newRow("panned") << 5e6 << 10.0 << 100.0 << 5e6 + 100.0;
  }
  void timeAxisMapsPixelsAndTimeBothWays() {
    QFETCH(double, t0);
    QFETCH(double, psPerPx);
    QFETCH(double, x);
    QFETCH(double, t);
    TimeAxis a{t0, psPerPx, 90};
    QCOMPARE(a.t(x), t);
    QCOMPARE(a.x(t), x);
  }
};

static Register<WidgetRenderingTest> reg;

}  // namespace moe::ui::test

#include "widget_rendering_test.moc"
