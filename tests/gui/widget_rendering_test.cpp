// Rendering behaviour of the custom-painted widgets and the pure pixel<->time mapping.

#include <QImage>
#include <QTest>

#include "gui_test_registry.h"
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
