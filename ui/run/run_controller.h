#pragma once
// The worker side of the workbench: owns the live LayerRun (and a second one for the
// timeline scrubber) and lives in its own QThread. The GUI talks to it only through queued
// slot calls and receives value Frames through queued signals, so the GUI thread never
// blocks on the emulation (SPEC §5 responsiveness).

#include <QElapsedTimer>
#include <QObject>
#include <QTimer>
#include <atomic>
#include <memory>

#include "core/pipeline/layer_run.h"
#include "ui/run/frame.h"

namespace moe::ui {

class RunController : public QObject {
  Q_OBJECT
 public:
  enum class Mode { Paused, Playing, ToStageEnd, ToEnd };

  explicit RunController(QObject* parent = nullptr);
  ~RunController() override;

  // Thread-safe: the newest scrub time the GUI asked for. Older queued requests are skipped.
  void requestScrub(Time t);

 public slots:
  void load(const moe::Scenario& sc, int dispatchImpl);  // DispatchImpl::Phased or Streaming
  void reset();
  void play();
  void pause();
  void stepEvent();
  void stepStage();
  void runToEnd();
  // Runs until dispatch is under way with data in some ring (for --screenshot and tests).
  void runUntilBusy();
  // Emulated picoseconds per wall-clock second while playing.
  void setSpeed(double psPerWallSecond);
  void serveScrub();
  void exportTrace(const QString& path);
  void exportCsv(const QString& path);

 signals:
  void frameReady(const moe::ui::Frame& f);
  void scrubReady(const moe::ui::Snapshot& s);
  void expertLoadReady(const moe::ui::ExpertLoad& l);
  void verificationReady(const moe::ui::Verification& v);
  void modeChanged(int mode);
  void failed(const QString& message);
  void exported(const QString& message);

 private:
  void tick();
  void setMode(Mode m);
  // Runs events while `more` says so, within a wall budget; samples metrics on the way.
  template <typename More>
  void advance(More more, qint64 budgetMs);
  void sampleMetrics(bool force);
  void emitFrame(bool restart = false);
  void verifyIfFinished();

  Scenario sc_;
  DispatchImpl impl_ = DispatchImpl::Streaming;
  std::shared_ptr<const std::vector<RankGating>> gating_;
  std::unique_ptr<LayerRun> run_;
  std::unique_ptr<LayerRun> scrub_;
  std::uint64_t runId_ = 0;
  Mode mode_ = Mode::Paused;
  double speed_ = 2e6;  // 2 us of emulated time per wall second
  QTimer* timer_ = nullptr;
  QElapsedTimer wall_;
  qint64 lastTickMs_ = 0;
  std::string stageAtStart_;
  std::uint64_t intervalsSent_ = 0;  // activity log records already handed out
  std::vector<MetricsSample> pendingSamples_;
  Time sampleEvery_ = 0;
  Time nextSample_ = 0;
  std::int64_t samplesTaken_ = 0;
  bool verified_ = false;
  std::atomic<qint64> scrubTarget_{-1};
  qint64 scrubServed_ = -1;
};

}  // namespace moe::ui
