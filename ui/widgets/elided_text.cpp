#include "ui/widgets/elided_text.h"

#include <QAbstractButton>
#include <QAbstractScrollArea>
#include <QComboBox>
#include <QGraphicsScene>
#include <QGraphicsSimpleTextItem>
#include <QGraphicsTextItem>
#include <QHeaderView>
#include <QLabel>
#include <QStyle>
#include <QStyleOptionComboBox>
#include <QTabBar>
#include <QTableView>
#include <QTextDocument>
#include <QToolBar>
#include <QToolButton>
#include <QtCharts/QChartView>
#include <algorithm>
#include <vector>

#include "ui/widgets/painted_text.h"
#include "ui/widgets/qt_charts.h"

MOE_CHARTS_USE_NAMESPACE

namespace moe::ui {

namespace {
QString who(const QWidget* w) {
  return QString("%1%2").arg(w->metaObject()->className(),
                             w->objectName().isEmpty() ? "" : " '" + w->objectName() + "'");
}

// Qt Charts ends a shortened text with "..."; a range like "0 … 63" is not shortened.
bool elided(const QString& s) {
  return s.endsWith("...") || s.endsWith(QChar(0x2026));
}

// The x where a plain one-line label's last glyph ends (left-aligned, as the toolbar's
// are): trailing spaces are part of the gap, not of the text.
int labelTextEnd(const QLabel* l) {
  QString text = l->text();
  while (!text.isEmpty() && text.back().isSpace()) text.chop(1);
  return l->x() + l->contentsRect().left() + l->margin() + std::max(0, l->indent()) +
         l->fontMetrics().horizontalAdvance(text);
}

// Toolbar texts closer than a space to the next widget read as one word.
void checkToolBar(const QToolBar* bar, QStringList& out) {
  std::vector<QWidget*> items;
  for (QAction* a : bar->actions())
    if (QWidget* w = bar->widgetForAction(a); w && w->isVisible()) items.push_back(w);
  std::sort(items.begin(), items.end(), [](QWidget* a, QWidget* b) { return a->x() < b->x(); });
  for (std::size_t i = 0; i + 1 < items.size(); ++i) {
    auto* l = qobject_cast<QLabel*>(items[i]);
    if (!l || l->text().trimmed().isEmpty() || Qt::mightBeRichText(l->text()) ||
        (l->alignment() & Qt::AlignHorizontal_Mask & ~Qt::AlignLeft))
      continue;
    // To where the next item's text starts (a label's margin and indent are empty space).
    auto* nl = qobject_cast<QLabel*>(items[i + 1]);
    const int nextStart =
        nl ? nl->x() + nl->contentsRect().left() + nl->margin() + std::max(0, nl->indent())
           : items[i + 1]->x();
    const int gap = nextStart - labelTextEnd(l);
    const QString next = nl ? nl->text() : "";
    if (gap < l->fontMetrics().horizontalAdvance(' '))
      out << QString("%1: \"%2\" runs into the next item%3 (gap %4 px)")
                 .arg(who(l), l->text(), next.isEmpty() ? "" : " \"" + next + "\"")
                 .arg(gap);
  }
}

// How much of `w`'s height its ancestors leave on screen: a dock or a layout that gives a
// panel less than it asked for cuts its last lines off while the label keeps its full
// height. Content in a scroll area counts as shown (it can be scrolled to).
int shownHeight(const QWidget* w) {
  QRect shown(w->mapTo(w->window(), QPoint(0, 0)), w->size());
  for (const QWidget* p = w->parentWidget(); p && !p->isWindow(); p = p->parentWidget()) {
    if (qobject_cast<const QAbstractScrollArea*>(p->parentWidget())) break;  // a viewport
    shown &= QRect(p->mapTo(p->window(), QPoint(0, 0)), p->size());
  }
  return std::max(0, shown.height());
}

// A combo box: the shown item must fit the box left of the arrow; an editable one scrolls.
void checkComboBox(const QComboBox* c, QStringList& out) {
  if (c->isEditable() || c->currentText().isEmpty()) return;
  QStyleOptionComboBox opt;
  opt.initFrom(c);
  opt.editable = false;
  opt.frame = c->hasFrame();
  const QRect field =
      c->style()->subControlRect(QStyle::CC_ComboBox, &opt, QStyle::SC_ComboBoxEditField, c);
  const int need = c->fontMetrics().horizontalAdvance(c->currentText());
  if (need > field.width())
    out << QString("%1: \"%2\" needs %3 px, has %4")
               .arg(who(c), c->currentText())
               .arg(need)
               .arg(field.width());
}

// A label: its text must fit its width, and its lines its height.
void checkLabel(const QLabel* l, QStringList& out) {
  if (l->text().isEmpty()) return;
  // A wrapped label must be as tall as its lines at its width (a narration cut after
  // three lines).
  if (l->wordWrap()) {
    const int need = l->heightForWidth(l->width());
    const int has = std::min(l->height(), shownHeight(l));
    if (need > has)
      out << QString("%1: \"%2\" needs %3 px high, has %4")
                 .arg(who(l), l->text().left(60))
                 .arg(need)
                 .arg(has);
    return;
  }
  // Rich text lays out over several lines; a plain one-line label must fit its width.
  if (Qt::mightBeRichText(l->text())) return;
  const int need = l->fontMetrics().horizontalAdvance(l->text());
  const int room = l->contentsRect().width() - 2 * l->margin() - 2 * l->indent();
  if (need > room)
    out << QString("%1: \"%2\" needs %3 px, has %4").arg(who(l), l->text()).arg(need).arg(room);
  // A label shorter than a line cuts the descenders (g, p, y) off.
  const int high = l->contentsRect().height() - 2 * l->margin();
  if (high < l->fontMetrics().height())
    out << QString("%1: \"%2\" needs %3 px high, has %4")
               .arg(who(l), l->text())
               .arg(l->fontMetrics().height())
               .arg(high);
}

// A button: its text must fit its width.
void checkButton(const QAbstractButton* b, QStringList& out) {
  if (b->text().isEmpty()) return;
  // A tool button drawn as an icon only shows no text to clip.
  if (auto* tb = qobject_cast<const QToolButton*>(b);
      tb && !tb->icon().isNull() && tb->toolButtonStyle() == Qt::ToolButtonIconOnly)
    return;
  const int need = b->fontMetrics().horizontalAdvance(QString(b->text()).remove('&'));
  if (need > b->width())
    out << QString("%1: \"%2\" needs %3 px, has %4")
               .arg(who(b), b->text())
               .arg(need)
               .arg(b->width());
}

// A tab bar: each tab's title must fit its tab.
void checkTabBar(const QTabBar* t, QStringList& out) {
  for (int i = 0; i < t->count(); ++i) {
    if (!t->isTabVisible(i)) continue;  // not drawn (Compare's Why when there is none)
    const int need = t->fontMetrics().horizontalAdvance(QString(t->tabText(i)).remove('&'));
    if (need > t->tabRect(i).width())
      out << QString("tab \"%1\" needs %2 px, has %3")
                 .arg(t->tabText(i))
                 .arg(need)
                 .arg(t->tabRect(i).width());
  }
}

// A table: each cell on screen must fit its column.
void checkTableView(const QTableView* tv, QStringList& out) {
  // Item views elide a cell's text that does not fit its column (and the row's height
  // when wrapped). Only the rows on screen are checked.
  const QAbstractItemModel* m = tv->model();
  if (!m) return;
  const QFontMetrics fm = tv->fontMetrics();
  const int margin = 2 * (tv->style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, tv) + 1);
  for (int r = 0; r < m->rowCount(); ++r) {
    if (tv->isRowHidden(r) || tv->rowViewportPosition(r) > tv->viewport()->height()) continue;
    if (tv->rowViewportPosition(r) + tv->rowHeight(r) < 0) continue;
    for (int c = 0; c < m->columnCount(); ++c) {
      if (tv->isColumnHidden(c)) continue;
      const QString text = m->index(r, c).data().toString();
      if (text.isEmpty()) continue;
      const int room = tv->columnWidth(c) - margin;
      const bool fits = tv->wordWrap() ? fm.boundingRect(QRect(0, 0, std::max(1, room), 100000),
                                                         Qt::TextWordWrap, text)
                                                     .height() <= tv->rowHeight(r) &&
                                             fm.horizontalAdvance(text.section(' ', 0, 0)) <= room
                                       : fm.horizontalAdvance(text) <= room;
      if (!fits)
        out << QString("%1: cell \"%2\" (row %3, column %4) has %5 px")
                   .arg(who(tv), text)
                   .arg(r)
                   .arg(c)
                   .arg(room);
    }
  }
}

// A chart: no title or axis label shortened.
void checkChartView(const QChartView* v, QStringList& out) {
  // Qt Charts shortens titles and axis labels that do not fit with "...".
  for (QGraphicsItem* item : v->scene()->items()) {
    if (!item->isVisible()) continue;
    QString text;
    if (auto* s = dynamic_cast<QGraphicsSimpleTextItem*>(item)) text = s->text();
    if (auto* x = dynamic_cast<QGraphicsTextItem*>(item)) text = x->toPlainText();
    if (elided(text)) out << QString("chart text \"%1\" in %2").arg(text, who(v));
  }
}

}  // namespace

QStringList elidedTexts(QWidget* root) {
  QStringList out;
  for (QWidget* w : root->findChildren<QWidget*>()) {
    if (!w->isVisible()) continue;
    for (const QString& clip : paintedTextClips(w)) out << QString("%1: %2").arg(who(w), clip);
    if (auto* bar = qobject_cast<QToolBar*>(w)) checkToolBar(bar, out);
    if (auto* c = qobject_cast<QComboBox*>(w))
      checkComboBox(c, out);
    else if (auto* l = qobject_cast<QLabel*>(w))
      checkLabel(l, out);
    else if (auto* b = qobject_cast<QAbstractButton*>(w))
      checkButton(b, out);
    else if (auto* t = qobject_cast<QTabBar*>(w))
      checkTabBar(t, out);
    else if (auto* tv = qobject_cast<QTableView*>(w))
      checkTableView(tv, out);
    else if (auto* v = qobject_cast<QChartView*>(w))
      checkChartView(v, out);
  }
  return out;
}

}  // namespace moe::ui
