#pragma once
// `moe-workbench --record DIR`: plays the loaded scenario headlessly through the same
// playback path as the Run button, paced by activity the same way, on a simulated wall clock
// (`--speed`, `--fps`), and writes numbered PNG frames plus frames.csv (frame, emulated time
// in ps, stage, view). Frames divided by fps is how long the Run button plays. With ffmpeg
// (Debian package `ffmpeg`) on the PATH it also writes record.gif and record.mp4 for slides.

#include <QString>

#include "ui/run/pacing.h"

namespace moe::ui {
class MainWindow;

struct RecordOptions {
  QString dir;
  double psPerWallSecond = kDefaultPlaySpeed;  // the Run button's: the video is a Run
  int fps = 10;
  QString view = "card";  // a view id: one of lessonViews()
};

// Returns the process exit code: 0 when the run reached its end and every frame was written.
int recordPlayback(MainWindow& w, const RecordOptions& o);
}  // namespace moe::ui
