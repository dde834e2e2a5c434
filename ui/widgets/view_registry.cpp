#include "ui/widgets/view_registry.h"

#include <QCoreApplication>

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace moe::ui {

namespace {

// The entries registered before main() ran, by tab place. A function-local table, so that
// it exists before the first registerView() call whatever the order of static
// initialisation across files.
std::vector<std::pair<int, ViewEntry (*)()>>& registered() {
  static std::vector<std::pair<int, ViewEntry (*)()>> list;
  return list;
}

}  // namespace

bool registerView(int tabPlace, ViewEntry (*make)()) {
  registered().emplace_back(tabPlace, make);
  return true;
}

std::vector<ViewEntry> orderViews(std::vector<std::pair<int, ViewEntry (*)()>> list) {
  std::stable_sort(list.begin(), list.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<ViewEntry> out;
  for (std::size_t i = 0; i < list.size(); ++i) {
    out.push_back(list[i].second());
    for (std::size_t j = 0; j < i; ++j)
      if (out[j].id == out[i].id || list[j].first == list[i].first)
        throw std::logic_error("views '" + out[j].id.toStdString() + "' and '" +
                               out[i].id.toStdString() + "' share an id or a tab place (MOE_VIEW)");
  }
  return out;
}

const std::vector<ViewEntry>& viewRegistry() {
  static const std::vector<ViewEntry> views = orderViews(registered());
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
