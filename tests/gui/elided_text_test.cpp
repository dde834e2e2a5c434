// The clipped-text check behind --fail-on-elided flags each kind of cut text a projector
// showed, and stops flagging it once the widget has room: a combo box narrower than its
// item ("pipelined (fus"), toolbar texts that run together ("(scrubbed)stage:"), a label
// too short for its descenders, and text a widget paints itself outside its box ("card0
// combine IPC <- carc").

#include <QComboBox>
#include <QLabel>
#include <QMainWindow>
#include <QPainter>
#include <QTabWidget>
#include <QTest>
#include <QToolBar>
#include <QVBoxLayout>

#include "gui_test_registry.h"
#include "ui/widgets/elided_text.h"
#include "ui/widgets/painted_text.h"

namespace moe::ui::test {

namespace {
// Paints one text in a box `boxW` pixels wide, through drawFittedText.
class PaintsText : public QWidget {
 public:
  int boxW = 40;
  QString text = "card0 combine IPC <- card13";
  QSize sizeHint() const override { return {400, 40}; }

 protected:
  void paintEvent(QPaintEvent*) override {
    beginPaintedText(this);
    QPainter p(this);
    drawFittedText(p, this, QRect(0, 0, boxW, height()), Qt::AlignVCenter, text);
  }
};

bool mentions(const QStringList& found, const QString& what) {
  for (const QString& f : found)
    if (f.contains(what)) return true;
  return false;
}
}  // namespace

class ElidedTextTest : public QObject {
  Q_OBJECT
 private slots:
  void narrowComboBoxIsFlagged() {
    QWidget root;
    auto* lay = new QVBoxLayout(&root);
    auto* combo = new QComboBox;
    combo->addItem("pipelined (fused)");
    combo->setFixedWidth(combo->fontMetrics().horizontalAdvance("pipelined") + 10);
    lay->addWidget(combo);
    root.show();
    QVERIFY(QTest::qWaitForWindowExposed(&root));
    QVERIFY(mentions(elidedTexts(&root), "pipelined (fused)"));
    combo->setMinimumWidth(0);
    combo->setMaximumWidth(QWIDGETSIZE_MAX);
    combo->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    combo->adjustSize();
    QTest::qWait(20);
    QVERIFY2(elidedTexts(&root).isEmpty(), qPrintable(elidedTexts(&root).join("\n")));
  }

  void toolbarTextsRunningTogetherAreFlagged() {
    QMainWindow w;
    QToolBar* bar = w.addToolBar("status");
    auto* time = new QLabel("t = 1.000 us (scrubbed)");
    auto* stage = new QLabel("stage: dispatch");
    bar->addWidget(time);
    bar->addWidget(stage);
    w.resize(800, 200);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(mentions(elidedTexts(&w), "runs into the next item \"stage: dispatch\""));
    // The fix in the main window: a space's margin on each side.
    for (QLabel* l : {time, stage}) l->setMargin(l->fontMetrics().horizontalAdvance(' '));
    QTest::qWait(20);
    QVERIFY2(elidedTexts(&w).isEmpty(), qPrintable(elidedTexts(&w).join("\n")));
  }

  void labelTooShortForDescendersIsFlagged() {
    QWidget root;
    auto* lay = new QVBoxLayout(&root);
    auto* caption = new QLabel("Tokens per instance (replicas)");
    caption->setFixedHeight(caption->fontMetrics().ascent());
    lay->addWidget(caption);
    root.resize(600, 100);
    root.show();
    QVERIFY(QTest::qWaitForWindowExposed(&root));
    QVERIFY(mentions(elidedTexts(&root), "px high"));
    caption->setFixedHeight(caption->fontMetrics().height() + 2);
    QTest::qWait(20);
    QVERIFY2(elidedTexts(&root).isEmpty(), qPrintable(elidedTexts(&root).join("\n")));
  }

  void paintedTextOutsideItsBoxIsFlagged() {
    QWidget root;
    auto* lay = new QVBoxLayout(&root);
    auto* painted = new PaintsText;
    lay->addWidget(painted);
    root.resize(600, 100);
    root.show();
    QVERIFY(QTest::qWaitForWindowExposed(&root));
    root.grab();  // paints, as the screenshots do
    QVERIFY(mentions(elidedTexts(&root), "painted \"card0 combine IPC <- card13\""));
    painted->boxW = painted->fontMetrics().horizontalAdvance(painted->text) + 4;
    root.grab();
    QVERIFY2(elidedTexts(&root).isEmpty(), qPrintable(elidedTexts(&root).join("\n")));
  }

  // A tab too narrow for its title is flagged; a hidden tab (no room, not drawn) is not.
  void narrowTabIsFlaggedButHiddenTabIsNot() {
    QTabWidget tabs;
    tabs.addTab(new QLabel("page"), "Timelines");
    tabs.addTab(new QLabel("page"), "Why");
    tabs.setTabVisible(1, false);
    tabs.resize(400, 200);
    tabs.show();
    QVERIFY(QTest::qWaitForWindowExposed(&tabs));
    QVERIFY2(elidedTexts(&tabs).isEmpty(), qPrintable(elidedTexts(&tabs).join("\n")));
    tabs.setStyleSheet("QTabBar::tab { width: 12px; }");
    QTest::qWait(20);
    QVERIFY(mentions(elidedTexts(&tabs), "tab \"Timelines\""));
    QVERIFY(!mentions(elidedTexts(&tabs), "tab \"Why\""));
  }
};

static Register<ElidedTextTest> reg;

}  // namespace moe::ui::test

#include "elided_text_test.moc"
