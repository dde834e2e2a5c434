#pragma once
// The window's redraw tick: keeps the newest live frame (and a scrubbed snapshot, when the
// user scrubbed back) and hands it to the views on a coalescing timer, at most 60 redraws a
// second, never from the emulation itself. One displayed time, live or scrubbed, drives the
// toolbar, every view, the timeline cursor and the inspector. With --frame-log it times each
// tick.

#include <QObject>
#include <QString>
#include <memory>

#include "core/observe/snapshot.h"

class QTimer;

namespace moe::ui {

struct Frame;
class FrameLog;
class RunControls;
class ViewSet;

class RedrawTick : public QObject {
  Q_OBJECT
 public:
  RedrawTick(ViewSet& views, RunControls& controls, QObject* parent);
  ~RedrawTick() override;

  std::shared_ptr<const Snapshot> live() const { return live_; }
  std::shared_ptr<const Snapshot> shown() const { return scrub_ ? scrub_ : live_; }

  // A new frame of the live run: the views take its history now, its snapshot next tick.
  void take(const Frame& f);
  // A scrubbed snapshot, shown at once.
  void takeScrub(const Snapshot& s);
  // Back to the live run: at once (dropScrub) or with the next tick (showLive).
  void dropScrub();
  void showLive();
  // Shows the newest moment now rather than at the next tick.
  void redrawNow();

  // Logs every tick's timing into `path` (frame_log.h); false if it cannot be written.
  bool setFrameLog(const QString& path);
  FrameLog* frameLog() const { return frameLog_.get(); }

 signals:
  void redrawn();  // after the views took a new moment

 private:
  void redraw();
  void tick();

  ViewSet& views_;
  RunControls& controls_;
  QTimer* timer_;
  std::shared_ptr<const Snapshot> live_;
  std::shared_ptr<const Snapshot> scrub_;
  bool dirty_ = false;
  std::unique_ptr<FrameLog> frameLog_;
};

}  // namespace moe::ui
