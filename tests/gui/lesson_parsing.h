#pragma once
// Lesson files in tests are parsed against the views the window really has (the view
// registry's lesson views), as the workbench parses its own.

#include <QByteArray>
#include <QString>

#include "ui/models/lesson.h"
#include "ui/widgets/view_registry.h"

namespace moe::ui::test {

inline Lesson parseWithRegistryViews(const QString& name, const QByteArray& json) {
  return parseLesson(name, json, lessonViews());
}

}  // namespace moe::ui::test
