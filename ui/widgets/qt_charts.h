#pragma once
// Qt Charts on Qt 5.15 and Qt 6 alike. Qt 5 puts the chart classes in their own namespace
// behind QT_CHARTS_* macros; Qt 6 puts them in Qt's namespace and drops those macros. Headers
// forward-declare chart classes between MOE_CHARTS_BEGIN/END_NAMESPACE and then say
// MOE_CHARTS_USE_NAMESPACE.

#include <QtCharts/qchartglobal.h>
#include <QtGlobal>

#if QT_VERSION >= QT_VERSION_CHECK(6, 0, 0)
#define MOE_CHARTS_BEGIN_NAMESPACE QT_BEGIN_NAMESPACE
#define MOE_CHARTS_END_NAMESPACE QT_END_NAMESPACE
#define MOE_CHARTS_USE_NAMESPACE
#else
#define MOE_CHARTS_BEGIN_NAMESPACE QT_CHARTS_BEGIN_NAMESPACE
#define MOE_CHARTS_END_NAMESPACE QT_CHARTS_END_NAMESPACE
#define MOE_CHARTS_USE_NAMESPACE QT_CHARTS_USE_NAMESPACE
#endif
