#pragma once
// moe::Scenario crosses threads in queued signals and slots. Qt 6's moc names an argument's
// metatype in the generated code, so the declaration must come before any QObject header
// that takes a Scenario: each of them includes this.

#include <QMetaType>

#include "core/scenario/scenario.h"

Q_DECLARE_METATYPE(moe::Scenario)
