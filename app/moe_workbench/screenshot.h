#pragma once
// `moe-workbench --screenshot DIR`: runs the loaded scenario headlessly to a busy moment
// (the MoE layer: dispatch under way; AlltoAll-Matmul-ReduceScatter: mid-run), runs the
// comparison, and writes one PNG per view into DIR.

#include <QSize>
#include <QString>

namespace moe::ui {
class MainWindow;
// Returns the process exit code: 0 when all nine PNGs (seven views, A/B, Sweep) were written; with
// failOnElided, 3 when some view has clipped or elided text (each listed on stderr). `size` is the
// window size in device-independent pixels.
int writeScreenshots(MainWindow& w, const QString& dir, QSize size = QSize(1400, 900),
                     bool failOnElided = false);
// `moe-workbench --lesson NAME|all --screenshot DIR`: one PNG per lesson step,
// DIR/NAME-stepNN.png, and DIR/steps.json (per step: time, stage, narration as shown, each
// expectation with its measured value and whether it held). Exit code 2 when a named lesson
// does not exist or a lesson file is malformed (its error, naming lesson, step and field, on
// stderr; the others are written); 4 when some step's expectation did not hold (each on
// stderr); with failOnElided, 3 when some step's picture has clipped or elided text (each on
// stderr) and no expectation failed. `size` as for writeScreenshots.
int writeLessonScreenshots(MainWindow& w, const QString& dir, const QString& which,
                           QSize size = QSize(1400, 900), bool failOnElided = false);
}  // namespace moe::ui
