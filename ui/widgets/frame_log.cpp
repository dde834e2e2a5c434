#include "ui/widgets/frame_log.h"

#include <algorithm>

namespace moe::ui {

bool FrameLog::open(const QString& path) {
  file_.setFileName(path);
  if (!file_.open(QIODevice::WriteOnly | QIODevice::Truncate | QIODevice::Text)) return false;
  out_.setDevice(&file_);
  out_ << "wall_ms,gap_ms,redraw_ms,paint_ms,emulated_ps,stage,playing,rss_mib\n";
  clock_.start();
  return true;
}

void FrameLog::paintEnded() {
  if (paint_.isValid()) paintMs_ += static_cast<double>(paint_.nsecsElapsed()) / 1e6;
  paint_.invalidate();
}

void FrameLog::tick(double redrawMs, Time shown, const std::string& stage, bool playing) {
  if (!isOpen()) return;
  const double now = static_cast<double>(clock_.nsecsElapsed()) / 1e6;
  const double gap = lastTickMs_ < 0 ? 0 : now - lastTickMs_;
  lastTickMs_ = now;
  const double paint = paintMs_;
  paintMs_ = 0;
  // Memory is read every second or so: /proc costs more than a tick should.
  const bool withRss =
      static_cast<long long>(now) / 1000 != static_cast<long long>(now - gap) / 1000;
  out_ << QString::number(now, 'f', 3) << ',' << QString::number(gap, 'f', 3) << ','
       << QString::number(redrawMs, 'f', 3) << ',' << QString::number(paint, 'f', 3) << ',' << shown
       << ',' << QString::fromStdString(stage) << ',' << (playing ? 1 : 0) << ','
       << (withRss ? QString::number(residentMiB(), 'f', 1) : QString()) << '\n';
  if (!playing || ended_) return;
  if (!played_) {
    played_ = true;
    playStartMs_ = now;
    summary_.rssStartMiB = residentMiB();
  } else {
    // The first playing tick's gap includes the idle time before Run was pressed.
    summary_.worstGapMs = std::max(summary_.worstGapMs, gap);
    auto it = std::find_if(summary_.stageMs.begin(), summary_.stageMs.end(),
                           [&](const auto& s) { return s.first == stage; });
    if (it == summary_.stageMs.end())
      it = summary_.stageMs.insert(summary_.stageMs.end(), {stage, 0.0});
    it->second += gap;
  }
  ++summary_.ticks;
  summary_.worstRedrawMs = std::max(summary_.worstRedrawMs, redrawMs);
  summary_.worstPaintMs = std::max(summary_.worstPaintMs, paint);
}

void FrameLog::runEnded() {
  if (!isOpen() || ended_ || !played_) return;
  ended_ = true;
  summary_.playedMs = static_cast<double>(clock_.nsecsElapsed()) / 1e6 - playStartMs_;
  out_.flush();
}

void FrameLog::verdictIn() {
  if (isOpen() && played_) summary_.rssEndMiB = residentMiB();
}

QString FrameLog::summaryText() const {
  const Summary& s = summary_;
  QString t = QString("frame log: %1 ticks while playing, %2 s of wall time\n")
                  .arg(s.ticks)
                  .arg(s.playedMs / 1000, 0, 'f', 1);
  for (const auto& [stage, ms] : s.stageMs)
    t += QString("  %1 %2 s\n").arg(QString::fromStdString(stage), -20).arg(ms / 1000, 7, 'f', 1);
  t += QString("worst gap between redraws %1 ms, worst redraw %2 ms, worst paint %3 ms\n")
           .arg(s.worstGapMs, 0, 'f', 1)
           .arg(s.worstRedrawMs, 0, 'f', 1)
           .arg(s.worstPaintMs, 0, 'f', 1);
  t += QString("resident memory %1 MiB when playing began, %2 MiB after the verdict (%3%4 MiB)\n")
           .arg(s.rssStartMiB, 0, 'f', 1)
           .arg(s.rssEndMiB, 0, 'f', 1)
           .arg(s.rssEndMiB >= s.rssStartMiB ? "+" : "")
           .arg(s.rssEndMiB - s.rssStartMiB, 0, 'f', 1);
  return t;
}

double FrameLog::residentMiB() {
  QFile status("/proc/self/status");
  if (!status.open(QIODevice::ReadOnly | QIODevice::Text)) return 0;
  for (QByteArray line = status.readLine(); !line.isEmpty(); line = status.readLine())
    if (line.startsWith("VmRSS:"))
      return line.mid(6).trimmed().split(' ').value(0).toDouble() / 1024;
  return 0;
}

}  // namespace moe::ui
