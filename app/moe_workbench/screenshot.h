#pragma once
// `moe-workbench --screenshot DIR`: runs the loaded scenario headlessly to a busy moment
// (the MoE layer: dispatch under way; AlltoAll-Matmul-ReduceScatter: mid-run), runs the
// comparison, and writes one PNG per view into DIR.

#include <QString>

namespace moe::ui {
class MainWindow;
// Returns the process exit code: 0 when all seven PNGs were written.
int writeScreenshots(MainWindow& w, const QString& dir);
}  // namespace moe::ui
