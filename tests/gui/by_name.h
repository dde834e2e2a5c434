#pragma once
// Tests reach the window's widgets by the object names it gives them (QObject::findChild),
// not by getters kept only for tests: a view by its id in viewRegistry() ("cluster",
// "card", ...), the tab widget "views", the run controls "run", "tune", "design",
// "step-size" and "time", the Timeline tab's "timelineGantt" and "timelineLanes", and the
// lesson dock's "lessonPanel".

#include <QByteArray>
#include <QList>
#include <QObject>
#include <QTest>
#include <source_location>
#include <stdexcept>

namespace moe::ui::test {

// The one object of type T named `name` under `root`. None, or several, is a broken test:
// it fails with the name, the type and the line that asked, and stops the run there, as a
// null widget would crash it later with no word of why.
template <class T>
T* byName(const QObject& root, const char* name,
          std::source_location at = std::source_location::current()) {
  const QList<T*> found = root.findChildren<T*>(QString::fromLatin1(name));
  if (found.size() == 1) return found.front();
  const QByteArray why = QByteArray::number(found.size()) + " objects of type " +
                         T::staticMetaObject.className() + " named \"" + name + "\" under " +
                         root.metaObject()->className() + ", expected one";
  QTest::qFail(why.constData(), at.file_name(), static_cast<int>(at.line()));
  throw std::logic_error(why.toStdString());
}

}  // namespace moe::ui::test
