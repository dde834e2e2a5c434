#pragma once
// `--frame-log FILE`: one CSV row per tick of the window's redraw timer, saying how long the
// GUI thread took to hand the newest frame to the views (redraw), how long painting the
// window then took, and how long it was since the previous tick (a tick late by more than
// its 16 ms interval is time the window did not answer a click). A summary keeps the worst of
// each over the ticks while the run played, the wall time each stage was shown, and the
// process's resident memory when playing began and when the run ended. A measurement aid:
// it reads the steady clock, and nothing the workbench shows depends on it.

#include <QElapsedTimer>
#include <QFile>
#include <QString>
#include <QTextStream>
#include <string>
#include <utility>
#include <vector>

#include "core/engine/time.h"

namespace moe::ui {

class FrameLog {
 public:
  struct Summary {
    int ticks = 0;             // redraw timer ticks while playing
    double worstGapMs = 0;     // longest time between two ticks
    double worstRedrawMs = 0;  // longest hand-over of a frame to the views
    double worstPaintMs = 0;   // longest paint of the window
    double playedMs = 0;       // wall time from the first playing tick to the run's end
    double rssStartMiB = 0;    // when playing began
    double rssEndMiB = 0;      // when the run ended
    std::vector<std::pair<std::string, double>> stageMs;  // wall time each stage was shown
  };

  // Opens (truncates) `path` and writes the header; false if it cannot be written.
  bool open(const QString& path);
  bool isOpen() const { return file_.isOpen(); }
  // The window's painting: time between these two calls counts as paint for the next tick.
  void paintBegan() { paint_.start(); }
  void paintEnded();
  // The redraw timer ticked: `redrawMs` spent handing the frame over, now showing `shown`
  // in `stage`; `playing` says whether a run is under way (only those ticks are summarised).
  void tick(double redrawMs, Time shown, const std::string& stage, bool playing);
  // The run's last frame was shown: the summary's wall time ends here.
  void runEnded();
  // The run's verdict is in (the workbench then releases the run's tensors): the memory.
  void verdictIn();
  const Summary& summary() const { return summary_; }
  // The summary as lines for stdout.
  QString summaryText() const;
  // This process's resident set size (VmRSS) in MiB; 0 where /proc is not available.
  static double residentMiB();

 private:
  QFile file_;
  QTextStream out_;
  QElapsedTimer clock_;  // since open()
  QElapsedTimer paint_;
  double paintMs_ = 0;  // paint since the previous tick
  double lastTickMs_ = -1;
  bool played_ = false;  // a playing tick was seen
  bool ended_ = false;
  double playStartMs_ = 0;
  Summary summary_;
};

}  // namespace moe::ui
