#pragma once
// Presenter mode, for a projector: everything larger (fonts, lines and cells together, via
// Qt's device-independent scale factor) and a high-contrast palette. The scale must be set
// before the QApplication exists, so `--presenter` applies it at start-up; the View menu
// toggles the palette and a larger font at run time.

class QApplication;
class QPalette;

namespace moe::ui {

constexpr double kPresenterMinScale = 1.25;
constexpr double kPresenterMaxScale = 2.0;
constexpr double kPresenterDefaultScale = 1.5;

// Before QApplication: scale the whole UI by `scale` (in [kPresenterMinScale,
// kPresenterMaxScale]). Does nothing when the user already set QT_SCALE_FACTOR.
void requestPresenterScale(double scale);
// Black on white, saturated selection, no grey-on-grey.
QPalette highContrastPalette();
// Switches the application's high-contrast palette on or off.
void setHighContrast(QApplication& app, bool on);

}  // namespace moe::ui
