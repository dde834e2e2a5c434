#include "ui/style/presenter.h"

#include <QApplication>
#include <QPalette>

namespace moe::ui {

void requestPresenterScale(double scale) {
  if (!qEnvironmentVariableIsEmpty("QT_SCALE_FACTOR")) return;
  qputenv("QT_SCALE_FACTOR", QByteArray::number(scale, 'f', 2));
}

QPalette highContrastPalette() {
  QPalette p;
  const QColor black(0, 0, 0), white(255, 255, 255), blue(0, 0x3c, 0xa8);
  for (auto group : {QPalette::Active, QPalette::Inactive}) {
    p.setColor(group, QPalette::Window, white);
    p.setColor(group, QPalette::WindowText, black);
    p.setColor(group, QPalette::Base, white);
    p.setColor(group, QPalette::AlternateBase, QColor(0xe8, 0xe8, 0xe8));
    p.setColor(group, QPalette::Text, black);
    p.setColor(group, QPalette::Button, QColor(0xf0, 0xf0, 0xf0));
    p.setColor(group, QPalette::ButtonText, black);
    p.setColor(group, QPalette::Highlight, blue);
    p.setColor(group, QPalette::HighlightedText, white);
    p.setColor(group, QPalette::ToolTipBase, QColor(0xff, 0xff, 0xd0));
    p.setColor(group, QPalette::ToolTipText, black);
    p.setColor(group, QPalette::Mid, QColor(0x40, 0x40, 0x40));
    p.setColor(group, QPalette::Dark, QColor(0x20, 0x20, 0x20));
  }
  // Disabled text stays readable on a projector: dark grey, not pale grey.
  p.setColor(QPalette::Disabled, QPalette::WindowText, QColor(0x50, 0x50, 0x50));
  p.setColor(QPalette::Disabled, QPalette::Text, QColor(0x50, 0x50, 0x50));
  p.setColor(QPalette::Disabled, QPalette::ButtonText, QColor(0x50, 0x50, 0x50));
  return p;
}

void setHighContrast(QApplication& app, bool on) {
  static const QPalette normal = app.palette();
  app.setPalette(on ? highContrastPalette() : normal);
}

}  // namespace moe::ui
