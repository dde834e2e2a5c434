#include "ui/widgets/redraw_tick.h"

#include <QElapsedTimer>
#include <QTimer>

#include "ui/run/frame.h"
#include "ui/widgets/frame_log.h"
#include "ui/widgets/run_controls.h"
#include "ui/widgets/view_set.h"

namespace moe::ui {

namespace {
constexpr int kFrameMs = 16;  // the coalescing redraw timer: at most ~60 redraws a second
}  // namespace

RedrawTick::RedrawTick(ViewSet& views, RunControls& controls, QObject* parent)
    : QObject(parent), views_(views), controls_(controls) {
  timer_ = new QTimer(this);
  timer_->setInterval(kFrameMs);
  connect(timer_, &QTimer::timeout, this, &RedrawTick::tick);
  timer_->start();
}

RedrawTick::~RedrawTick() = default;

void RedrawTick::tick() {
  if (!frameLog_) return redraw();
  QElapsedTimer took;
  took.start();
  redraw();
  if (!live_) return;
  const auto s = shown();
  frameLog_->tick(static_cast<double>(took.nsecsElapsed()) / 1e6, s->now, s->stage,
                  controls_.playing());
  if (live_->finished || live_->deadlocked) frameLog_->runEnded();
}

void RedrawTick::take(const Frame& f) {
  if (f.restart) views_.clear();
  live_ = std::make_shared<const Snapshot>(f.snapshot);
  views_.append(f);
  dirty_ = true;
}

void RedrawTick::takeScrub(const Snapshot& s) {
  scrub_ = std::make_shared<const Snapshot>(s);
  controls_.showScrubbed(s.now);
  redrawNow();
}

void RedrawTick::dropScrub() {
  scrub_.reset();
  controls_.hideLive();
}

void RedrawTick::showLive() {
  dropScrub();
  dirty_ = true;
}

void RedrawTick::redrawNow() {
  dirty_ = true;
  redraw();
}

void RedrawTick::redraw() {
  if (!dirty_ || !live_) return;
  dirty_ = false;
  const auto s = shown();
  controls_.showMoment(*s, scrub_ != nullptr);
  views_.feed({s, live_});
  emit redrawn();
}

bool RedrawTick::setFrameLog(const QString& path) {
  auto log = std::make_unique<FrameLog>();
  if (!log->open(path)) return false;
  frameLog_ = std::move(log);
  return true;
}

}  // namespace moe::ui
