#pragma once
// The worker side of the workbench: owns the live run (and a second one for the timeline
// scrubber) and lives in its own QThread. The run is a LayerRun or an A2aMatmulRun,
// chosen by the scenario's workload; the controller drives either through SteppableRun. The GUI
// talks to it only through queued slot calls and receives value Frames through queued signals, so
// the GUI thread never blocks on the emulation (DESIGN.md §5 responsiveness).

#include <QObject>
#include <QTimer>
#include <atomic>
#include <memory>

#include <optional>

#include "core/run/design.h"
#include "core/run/reference_chain.h"
#include "core/run/resolved_scenario.h"
#include "core/runtime/layer_context.h"
#include "core/runtime/steppable_run.h"
#include "ui/run/frame.h"
#include "ui/run/pacing.h"
#include "ui/run/play_clock.h"
#include "ui/run/wall_clock.h"

namespace moe::ui {

struct LessonTarget;

class RunController : public QObject {
  Q_OBJECT
 public:
  enum class Mode { Paused, Playing, ToStageEnd, ToEnd };

  explicit RunController(QObject* parent = nullptr);
  ~RunController() override;

  // Thread-safe: the newest scrub time the GUI asked for. Older queued requests are skipped.
  void requestScrub(Time t);
  // Call before the first play (or from the worker thread): where playback reads wall time.
  // Tests and the recorder install a ManualWallClock.
  void setWallClock(std::shared_ptr<WallClock> clock);
  // Worker slices while playing run every `ms`; 0 means no timer: whoever installed a manual
  // clock calls tick() after advancing it (the recorder, tests).
  void setTickInterval(int ms);
  // Wall-time budget of one playing slice (default 10 ms, keeps the worker responsive); 0
  // means none: every slice runs all events up to the play clock, so frames land exactly on
  // speed x frame time whatever the machine's speed (the recorder).
  void setSliceBudget(qint64 ms) { sliceBudgetMs_ = ms; }

 public slots:
  // Resolves the scenario once (core's ResolvedScenario) and builds runs of `design` with
  // the run factory; a design of the other workload picks this workload's default design.
  // `fault` is planted in every run of this load (lessons: the deadlock watch at work).
  void load(const moe::Scenario& sc, moe::Design design, moe::Fault fault = moe::Fault::None);
  void reset();
  void play();
  void pause();
  void stepEvent();
  void stepStage();
  // Teaching steps. Forward: n events, or dt of emulated time (the clock shows exactly
  // shown + dt, even inside a gap). Back: the same amounts, or to the start of the stage
  // (the previous one when already at a start), by the deterministic re-run the scrubber
  // uses: a fresh run of the same scenario reproduces every earlier state exactly.
  void stepEvents(int n);
  void stepTime(moe::Time dt);
  void stepBackEvents(int n);
  void stepBackTime(moe::Time dt);
  void stepBackStage();
  // A lesson step: a fresh run from time 0 to the target (a stage's start, a time, the
  // first busy moment or the end), then paused; targetReached follows its frame.
  void runFromStartTo(const moe::ui::LessonTarget& target);
  // The next lesson step on the same load: the run goes on from where it is when the target
  // still lies ahead of it, as far as a fresh run would go, else it starts again from 0.
  // Either way the state shown is the same: the run is deterministic, and the events it has
  // taken all come before the target.
  void continueTo(const moe::ui::LessonTarget& target);
  void runToEnd();
  // Skip to the next interesting moment: runs until the stage changes or data starts or
  // stops moving between cards (pacing.h), and shows that instant. Playing goes on from
  // there; paused stays paused. At the end, nothing happens.
  void skipToNextChange();
  // Runs to a busy moment, for --screenshot and tests: the MoE layer until dispatch is
  // under way with data in some rings; the fused operator until 40% of the partial tiles
  // have reached their owner (mid-run: in the pipelined kernel all three roles are at work).
  void runUntilBusy();
  // Emulated picoseconds per wall-clock second while data moves between cards; quiet
  // stretches fast-forward from it (pacing.h).
  void setSpeed(double psPerWallSecond);
  void serveScrub();
  void exportTrace(const QString& path);
  void exportCsv(const QString& path);
  // One slice of work in the current mode; playing advances the play clock by the wall time
  // since the previous slice.
  void tick();

 signals:
  void frameReady(const moe::ui::Frame& f);
  void scrubReady(const moe::Snapshot& s);
  void expertLoadReady(const moe::ui::ExpertLoad& l);
  void verificationReady(const moe::ui::Verification& v);
  void modeChanged(int mode);
  void failed(const QString& message);
  void exported(const QString& message);
  // runUntilBusy reached its busy moment (after the frame showing it).
  void busyReached();
  void targetReached();

 private:
  void setMode(Mode m);
  // Runs events while `more` says so, within a wall budget; samples metrics on the way.
  template <typename More>
  void advance(More more, qint64 budgetMs);
  void sampleMetrics(bool force);
  // `sampleNow`: end the charts at the time shown with a sample taken now (not for a
  // restart frame, nor for a lesson step, which shows what a fresh run samples).
  void emitFrame(bool restart = false, bool sampleNow = true);
  void verifyIfFinished();
  // A fresh run of the loaded scenario and design, at time 0.
  std::unique_ptr<SteppableRun> newRun() const;
  // Replaces the live run with a fresh one run while `more` says so (a step back); the
  // views get a restart frame with the whole history up to there.
  template <typename More>
  void rerun(More more);
  // Steps the live run while `more` says so, sampling metrics on the way.
  template <typename More>
  void stepWhile(More more);
  // A lesson step from time 0 (fromStart), or on from the live run's state.
  void runToTarget(const moe::ui::LessonTarget& target, bool fromStart);
  // Whether the live run has taken no event at or past the target's moment.
  bool stillAhead(const moe::ui::LessonTarget& target) const;
  // When the live run's current stage began.
  Time stageStart() const;
  // The run starts over (load, reset, step back): history and samples restart.
  void restartBookkeeping();
  bool busy() const;

  Scenario sc_;
  bool loaded_ = false;
  Design design_ = Design::Streaming;
  Fault fault_ = Fault::None;
  std::optional<ResolvedScenario> resolved_;  // the loaded scenario, resolved once
  // The MoE layer's golden reference, computed once per load: the live run checks each
  // stage against it as it ends and frees the tensors no later stage reads, as a CLI run
  // does, so a Run holds what `moe-sim run` holds (the fused workload: none).
  std::unique_ptr<const ReferenceLayer> reference_;
  std::optional<ExpertLoad> expertLoad_;  // of the loaded scenario, for the Experts view
  std::unique_ptr<SteppableRun> run_;
  std::unique_ptr<SteppableRun> scrub_;
  std::uint64_t runId_ = 0;
  Mode mode_ = Mode::Paused;
  double speed_ = kDefaultPlaySpeed;
  QTimer* timer_ = nullptr;
  int tickMs_;
  qint64 sliceBudgetMs_;
  std::shared_ptr<WallClock> wall_ = std::make_shared<SteadyWallClock>();
  std::int64_t lastTickNs_ = 0;
  PlayClock play_;  // the emulated time every frame shows
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
