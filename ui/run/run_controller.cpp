#include "ui/run/run_controller.h"

#include <QElapsedTimer>
#include <algorithm>
#include <fstream>
#include <sstream>

#include "core/machine/memory.h"
#include "core/observe/trace_export.h"
#include "core/run/a2a_matmul_report.h"
#include "core/run/a2a_matmul_run.h"
#include "core/run/layer_run.h"
#include "core/run/run_factory.h"
#include "core/run/run_report.h"
#include "core/scenario/scenario_json.h"
#include "core/util/error.h"
#include "ui/models/lesson.h"
#include "ui/run/paced_play.h"

namespace moe::ui {

namespace {
constexpr int kTickMs = 16;            // worker slices: about 60 per second
constexpr qint64 kSliceBudgetMs = 10;  // leaves the worker free for pause/step requests
constexpr Time kFirstSampleEvery = 250 * kNs;
constexpr std::int64_t kSamplesPerDoubling = 1000;  // bounds the chart history
constexpr std::size_t kMaxIntervalsPerFrame = 200000;
}  // namespace

void registerMetaTypes() {
  qRegisterMetaType<moe::ui::Frame>();
  qRegisterMetaType<moe::Snapshot>();
  qRegisterMetaType<moe::ui::ExpertLoad>();
  qRegisterMetaType<moe::ui::Verification>();
  qRegisterMetaType<moe::Scenario>();
}

RunController::RunController(QObject* parent)
    : QObject(parent), tickMs_(kTickMs), sliceBudgetMs_(kSliceBudgetMs) {}

RunController::~RunController() = default;

void RunController::requestScrub(Time t) {
  scrubTarget_.store(t);
  QMetaObject::invokeMethod(this, &RunController::serveScrub, Qt::QueuedConnection);
}

void RunController::setWallClock(std::shared_ptr<WallClock> clock) {
  wall_ = std::move(clock);
  lastTickNs_ = wall_->nowNs();
}

void RunController::setTickInterval(int ms) {
  tickMs_ = ms;
  if (!timer_) return;
  timer_->setInterval(ms);
  if (ms <= 0) timer_->stop();
}

void RunController::load(const Scenario& sc, Design design, Fault fault) {
  // The same scenario again (another design or fault, a lesson step): its resolution and
  // reference depend on neither, so they stay. Unless its routing comes from a trace file,
  // which may have changed on disk since: a load reads it again.
  const bool sameScenario =
      loaded_ && resolved_ && sc == resolved_->given() && sc.routing.traceFile.empty();
  fault_ = fault;
  loaded_ = false;
  // The runs may point at the old reference: they go first.
  scrub_.reset();
  run_.reset();
  design_ = workloadOf(design) == sc.workload.kind ? design : defaultDesign(sc.workload.kind);
  if (!sameScenario) {
    reference_.reset();
    resolved_.reset();
    expertLoad_.reset();
    try {
      resolved_ = ResolvedScenario::resolve(sc);
      sc_ = resolved_->scenario();  // a generated eplb table is computed once per load
      // The fused workload has no experts: the window tells the Experts view so.
      if (resolved_->gating()) expertLoad_ = computeExpertLoad(*resolved_);
      if (resolved_->workload() == WorkloadKind::MoeLayer)
        reference_ = std::make_unique<const ReferenceLayer>(computeReference(*resolved_));
    } catch (const std::exception& e) {
      emit failed(QString::fromStdString(e.what()));
      return;
    }
  }
  // Every load, as the window clears its views on each.
  if (expertLoad_) emit expertLoadReady(*expertLoad_);
  loaded_ = true;
  reset();
}

std::unique_ptr<SteppableRun> RunController::newRun() const {
  if (!reference_) return makeRun(*resolved_, design_, fault_);
  // Results and digest are those of a run that keeps everything; the views read no tensor.
  auto run = makeLayerRun(*resolved_, design_, fault_);
  run->freeTensorsWhenDead(reference_.get());
  return run;
}

void RunController::reset() {
  if (!loaded_) return;
  setMode(Mode::Paused);
  scrub_.reset();
  scrubServed_ = -1;
  try {
    run_ = newRun();
  } catch (const std::exception& e) {
    run_.reset();
    emit failed(QString::fromStdString(e.what()));
    return;
  }
  play_.reset();
  restartBookkeeping();
  sampleMetrics(true);
  emitFrame(true);
}

void RunController::restartBookkeeping() {
  ++runId_;
  intervalsSent_ = 0;
  pendingSamples_.clear();
  sampleEvery_ = kFirstSampleEvery;
  nextSample_ = 0;
  samplesTaken_ = 0;
  verified_ = false;
  emit verificationReady(
      Verification{runId_, false, false, tr("not verified yet (run to the end)"), {}});
}

void RunController::setMode(Mode m) {
  if (m != Mode::Paused && !timer_ && tickMs_ > 0) {
    // Created on first use, so it lives in the worker thread the controller was moved to.
    timer_ = new QTimer(this);
    timer_->setInterval(tickMs_);
    connect(timer_, &QTimer::timeout, this, &RunController::tick);
  }
  // Wall time spent paused does not count: playing resumes from the shown time.
  if (mode_ == Mode::Paused && m != Mode::Paused) lastTickNs_ = wall_->nowNs();
  mode_ = m;
  if (timer_) {
    if (m == Mode::Paused || tickMs_ <= 0)
      timer_->stop();
    else if (!timer_->isActive())
      timer_->start();
  }
  emit modeChanged(static_cast<int>(m));
}

void RunController::play() {
  if (!run_ || run_->finished() || run_->deadlocked()) return;
  // Pacing starts afresh from what is shown: a quiet stretch begins at the chosen speed.
  play_.setPace(dataMoving(run_->emulation()));
  setMode(Mode::Playing);
}

void RunController::pause() {
  setMode(Mode::Paused);
}

void RunController::stepEvent() {
  if (!run_) return;
  setMode(Mode::Paused);
  run_->step();
  play_.follow(run_->emulation().sim());
  sampleMetrics(false);
  emitFrame();
  verifyIfFinished();  // after the frame: the reference check may take a while
}

void RunController::stepStage() {
  if (!run_ || run_->finished()) return;
  stageAtStart_ = run_->currentStage();
  setMode(Mode::ToStageEnd);
}

void RunController::stepEvents(int n) {
  if (!run_) return;
  setMode(Mode::Paused);
  for (int i = 0; i < n && run_->step(); ++i)
    if (run_->emulation().sim().now() >= nextSample_) sampleMetrics(false);
  play_.follow(run_->emulation().sim());
  emitFrame();
  verifyIfFinished();  // after the frame: the reference check may take a while
}

void RunController::stepTime(Time dt) {
  if (!run_) return;
  setMode(Mode::Paused);
  // At most 100 us of emulated time: a bounded amount of work, done in one go so the step
  // lands exactly on shown + dt (the worker is busy meanwhile, the GUI is not).
  const Time target = play_.time() + std::max<Time>(0, dt);
  Simulator& sim = run_->emulation().sim();
  while (sim.pendingEvents() > 0 && sim.nextEventTime() <= target) {
    run_->step();
    if (sim.now() >= nextSample_) sampleMetrics(false);
  }
  play_.settle(sim, target);
  emitFrame();
  verifyIfFinished();  // after the frame: the reference check may take a while
}

template <typename More>
void RunController::rerun(More more) {
  setMode(Mode::Paused);
  try {
    run_ = newRun();
  } catch (const std::exception& e) {
    run_.reset();
    emit failed(QString::fromStdString(e.what()));
    return;
  }
  restartBookkeeping();
  sampleMetrics(true);
  stepWhile(more);
}

template <typename More>
void RunController::stepWhile(More more) {
  Simulator& sim = run_->emulation().sim();
  while (sim.pendingEvents() > 0 && more(static_cast<const SteppableRun&>(*run_))) {
    run_->step();
    if (sim.now() >= nextSample_) sampleMetrics(false);
  }
}

void RunController::stepBackEvents(int n) {
  if (!run_) return;
  const std::uint64_t done = run_->emulation().sim().eventsRun();
  const std::uint64_t target = done > static_cast<std::uint64_t>(n) ? done - n : 0;
  rerun([target](const SteppableRun& r) { return r.emulation().sim().eventsRun() < target; });
  if (!run_) return;
  play_.reset();
  play_.follow(run_->emulation().sim());
  emitFrame(true);
}

void RunController::stepBackTime(Time dt) {
  if (!run_) return;
  const Time target = std::max<Time>(0, play_.time() - std::max<Time>(0, dt));
  rerun([target](const SteppableRun& r) { return r.emulation().sim().nextEventTime() <= target; });
  if (!run_) return;
  play_.reset();
  play_.jumpTo(run_->emulation().sim(), target);
  emitFrame(true);
}

void RunController::stepBackStage() {
  if (!run_) return;
  // The stage to return to: the one shown, or the one before when the clock is at its start.
  const auto marks = run_->emulation().observer().stages();
  int back = -1;
  for (int i = 0; i < static_cast<int>(marks.size()); ++i)
    if (marks[static_cast<std::size_t>(i)].start < play_.time()) back = i;
  if (back < 0) return reset();
  const Time start = marks[static_cast<std::size_t>(back)].start;
  // Run until that stage has begun: its first event set the stage name.
  rerun([back](const SteppableRun& r) {
    return r.emulation().observer().stages().size() < static_cast<std::size_t>(back) + 1;
  });
  if (!run_) return;
  play_.reset();
  play_.jumpTo(run_->emulation().sim(), start);
  emitFrame(true);
}

void RunController::runFromStartTo(const LessonTarget& t) {
  if (loaded_) runToTarget(t, /*fromStart=*/true);
}

void RunController::continueTo(const LessonTarget& t) {
  if (loaded_) runToTarget(t, /*fromStart=*/!run_ || !stillAhead(t));
}

bool RunController::stillAhead(const LessonTarget& t) const {
  using K = LessonTarget::Kind;
  switch (t.kind) {
    case K::Stage: {
      if (std::any_of(run_->stages().begin(), run_->stages().end(),
                      [&t](const StageReport& s) { return s.name == t.stage; }))
        return false;  // over
      // Not begun: a fresh run would have taken the same events so far.
      if (run_->currentStage() != t.stage) return true;
      // Under way: a moment `after` its start is ahead until the run passes it. The first
      // moment its cores were at work (after 0) is known only to a run from time 0.
      if (t.after <= 0) return false;
      return run_->emulation().sim().now() <= stageStart() + t.after;
    }
    case K::Time:
      return run_->emulation().sim().now() <= t.time;
    case K::Busy:  // the first busy moment may lie behind: start again
      return false;
    case K::End:
      return true;
  }
  return false;
}

Time RunController::stageStart() const {
  return run_->emulation().observer().stages().back().start;
}

void RunController::runToTarget(const LessonTarget& t, bool fromStart) {
  using K = LessonTarget::Kind;
  Time jumpTo = t.kind == K::Time ? t.time : -1;
  // Going on inside the target stage (stillAhead): its moment is known already.
  if (!fromStart && t.kind == K::Stage && run_->currentStage() == t.stage)
    jumpTo = stageStart() + t.after;
  // A fresh run from time 0, or the live one going on (stillAhead), while `more` says so.
  const auto drive = [this, fromStart](auto more) {
    if (fromStart) {
      rerun(more);
      return;
    }
    setMode(Mode::Paused);
    stepWhile(more);
  };
  switch (t.kind) {
    case K::Stage:
      if (t.after > 0) {
        // A moment inside the stage: its start plus `after`, shown at exactly that time.
        drive([&t, &jumpTo](const SteppableRun& r) {
          const Simulator& sim = r.emulation().sim();
          if (jumpTo < 0) {
            if (r.currentStage() != t.stage) return true;
            jumpTo = sim.now() + t.after;
          }
          return sim.nextEventTime() <= jumpTo;
        });
        break;
      }
      {
        // Until the stage begins and its programs are at work: at the stage's first event
        // every core is still idle or done, so the core grid would show no roles. The instant
        // the first core starts is run to its end, so every program launched then has started.
        // A stage whose cores never work stops when the next stage begins.
        bool reached = false;
        Time started = -1;
        drive([&t, &reached, &started](const SteppableRun& r) {
          const Simulator& sim = r.emulation().sim();
          if (started >= 0) return sim.nextEventTime() == started;
          if (r.currentStage() != t.stage) return !reached;
          reached = true;
          const Machine& m = r.emulation().machine();
          for (int c = 0; c < m.coreCount(); ++c)
            if (isWorking(m.core(c).activity()) || isWaiting(m.core(c).activity())) {
              started = sim.now();
              return sim.nextEventTime() == started;
            }
          return true;
        });
        break;
      }
    case K::Time:
      drive([&t](const SteppableRun& r) { return r.emulation().sim().nextEventTime() <= t.time; });
      break;
    case K::Busy:
      drive([this](const SteppableRun&) { return !busy(); });
      break;
    case K::End:
      drive([](const SteppableRun&) { return true; });
      break;
  }
  if (!run_) return;
  play_.reset();
  if (jumpTo >= 0)
    play_.jumpTo(run_->emulation().sim(), jumpTo);
  else
    play_.follow(run_->emulation().sim());
  emitFrame(fromStart, /*sampleNow=*/false);
  // A step that runs to the end says "the status bar shows the result": the verdict comes
  // before the step counts as reached.
  verifyIfFinished();
  emit targetReached();
}

void RunController::runToEnd() {
  if (run_ && !run_->finished()) setMode(Mode::ToEnd);
}

void RunController::skipToNextChange() {
  if (!run_) return;
  Simulator& sim = run_->emulation().sim();
  if (sim.pendingEvents() == 0) return;
  // The shown state is the one after the emulation's last instant: every later event lies
  // after the play clock, so the first differing instant is the next moment to show. Run in
  // one go, as a lesson step's re-run is: the worker is busy, the GUI is not.
  const std::string stage = run_->currentStage();
  const bool moving = dataMoving(run_->emulation());
  while (sim.pendingEvents() > 0) {
    run_->step();
    if (sim.now() >= nextSample_) sampleMetrics(false);
    if (instantComplete(sim) &&
        (run_->currentStage() != stage || dataMoving(run_->emulation()) != moving))
      break;
  }
  play_.follow(sim);
  play_.setPace(dataMoving(run_->emulation()));
  if (sim.pendingEvents() == 0 && mode_ != Mode::Paused) setMode(Mode::Paused);
  emitFrame();
  verifyIfFinished();  // after the frame: the reference check may take a while
}

bool RunController::busy() const {
  const Emulation& emu = run_->emulation();
  if (resolved_->workload() == WorkloadKind::AlltoallMatmulRs) {
    std::int64_t arrived = 0, tiles = 0;
    for (const WorkspaceStages& w : emu.workspaceStages())
      if (w.group() == "reduce-scatter buffer") {
        tiles += w.slotCount();
        arrived += w.stats().fills;
      }
    return tiles > 0 && arrived * 10 >= tiles * 4;
  }
  if (run_->currentStageId() != StageId::Dispatch) return false;
  int nonEmpty = 0;
  for (const RingBuffer& r : emu.rings()) nonEmpty += r.tail() > r.head();
  double rate = 0;
  const Machine& m = emu.machine();
  for (const LinkInfo& l : m.links())
    if (l.kind == LinkInfo::Kind::Hccs || l.kind == LinkInfo::Kind::SwitchTx ||
        l.kind == LinkInfo::Kind::NicTx)
      rate += m.net().resource(l.resource).activeRate;
  return nonEmpty >= 3 && rate > 0;
}

void RunController::runUntilBusy() {
  if (!run_) return;
  setMode(Mode::Paused);
  const Simulator& sim = run_->emulation().sim();
  while (sim.pendingEvents() > 0 && !busy()) {
    run_->step();
    if (sim.now() >= nextSample_) sampleMetrics(false);
  }
  play_.follow(sim);
  emitFrame();
  emit busyReached();
}

void RunController::setSpeed(double psPerWallSecond) {
  speed_ = psPerWallSecond;
}

template <typename More>
void RunController::advance(More more, qint64 budgetMs) {
  QElapsedTimer t;
  t.start();
  Simulator& sim = run_->emulation().sim();
  int n = 0;
  while (sim.pendingEvents() > 0 && more(sim)) {
    run_->step();
    if (sim.now() >= nextSample_) sampleMetrics(false);
    // Checking the clock costs more than an event; every 64 events keeps the slice tight.
    if (budgetMs > 0 && (++n & 63) == 0 && t.elapsed() >= budgetMs) break;
  }
}

void RunController::tick() {
  if (!run_) return setMode(Mode::Paused);
  const std::int64_t nowNs = wall_->nowNs();
  const std::int64_t dtNs = std::max<std::int64_t>(0, nowNs - lastTickNs_);
  lastTickNs_ = nowNs;
  const Simulator& sim = run_->emulation().sim();
  switch (mode_) {
    case Mode::Playing: {
      // Aim from the play clock, not from the last event's time: across a gap with no
      // events the clock still moves, so playback never stalls. Its pace follows the
      // activity (pacing.h).
      QElapsedTimer budget;
      budget.start();
      const qint64 budgetMs = sliceBudgetMs_;
      playPaced(
          *run_, play_, speed_, dtNs,
          [this] {
            if (run_->emulation().sim().now() >= nextSample_) sampleMetrics(false);
          },
          [&budget, budgetMs] { return budgetMs > 0 && budget.elapsed() >= budgetMs; });
      break;
    }
    case Mode::ToStageEnd:
      advance([this](const Simulator&) { return run_->currentStage() == stageAtStart_; },
              kSliceBudgetMs);
      if (run_->currentStage() != stageAtStart_) setMode(Mode::Paused);
      break;
    case Mode::ToEnd:
      advance([](const Simulator&) { return true; }, kSliceBudgetMs);
      break;
    case Mode::Paused:
      break;
  }
  if (mode_ != Mode::Playing) play_.follow(sim);
  if (sim.pendingEvents() == 0 && mode_ != Mode::Paused) setMode(Mode::Paused);
  emitFrame();
  verifyIfFinished();  // after the frame: the reference check may take a while
}

void RunController::sampleMetrics(bool force) {
  if (!run_) return;
  const Emulation& emu = run_->emulation();
  const Machine& m = emu.machine();
  MetricsSample s;
  s.t = emu.sim().now();
  if (!force && s.t < nextSample_) return;
  for (const LinkInfo& l : m.links()) {
    const double gbps = m.net().resource(l.resource).activeRate * 1e3;  // bytes/ps -> GB/s
    if (l.kind == LinkInfo::Kind::Hccs || l.kind == LinkInfo::Kind::SwitchTx) s.hccsGBps += gbps;
    if (l.kind == LinkInfo::Kind::NicTx) s.nicGBps += gbps;
    if (l.kind == LinkInfo::Kind::Hbm) s.hbmGBps += gbps;
  }
  double capacity = 0;
  for (const RingBuffer& r : emu.rings()) {
    s.ringBytes += static_cast<double>(r.tail() - r.head());
    capacity += static_cast<double>(r.capacity());
  }
  s.ringFill = capacity > 0 ? s.ringBytes / capacity : 0;
  double stageBytes = 0, stageCapacity = 0;
  for (const WorkspaceStages& w : emu.workspaceStages()) {
    stageBytes += static_cast<double>(w.occupied()) * static_cast<double>(w.slotBytes());
    stageCapacity += static_cast<double>(w.slotCount()) * static_cast<double>(w.slotBytes());
  }
  s.stageFill = stageCapacity > 0 ? stageBytes / stageCapacity : 0;
  for (int i = 0; i < m.coreCount(); ++i) {
    const Activity a = m.core(i).activity();
    s.busyCores += isWorking(a);
    s.waitingCores += isWaiting(a);
  }
  pendingSamples_.push_back(s);
  nextSample_ = s.t + sampleEvery_;
  if (++samplesTaken_ == kSamplesPerDoubling) {
    samplesTaken_ = 0;
    sampleEvery_ *= 2;
  }
}

void RunController::emitFrame(bool restart, bool sampleNow) {
  if (!run_) return;
  if (!restart && sampleNow) sampleMetrics(true);  // the charts end at the time the views show
  Frame f;
  f.restart = restart;
  f.snapshot = takeSnapshot(*run_, runId_);
  // No event lies between the emulation's time and the play clock, so the state is the
  // state at the play clock: show that time (open activities extend to it).
  f.snapshot.now = play_.time();
  const auto& log = run_->emulation().observer().activities();
  const std::uint64_t total = log.dropped() + log.items().size();
  std::uint64_t from = std::max<std::uint64_t>(intervalsSent_, log.dropped());
  if (total - from > kMaxIntervalsPerFrame) from = total - kMaxIntervalsPerFrame;
  for (std::uint64_t i = from; i < total; ++i)
    f.newIntervals.push_back(log.items()[i - log.dropped()]);
  intervalsSent_ = total;
  f.newSamples.swap(pendingSamples_);
  emit frameReady(f);
}

void RunController::verifyIfFinished() {
  if (!run_ || verified_ || run_->emulation().sim().pendingEvents() > 0) return;
  verified_ = true;
  Verification v{runId_, true, false, {}, {}};
  if (run_->deadlocked()) {
    v.summary = tr("DEADLOCK (hover here for the diagnosis)");
    v.details = QString::fromStdString(run_->emulation().deadlockDiagnosis());
  } else {
    // A layer run was given reference_ (newRun) and checks against it.
    const auto checks = run_->verifyAgainstReference();
    int passed = 0;
    for (const VerificationCheck& c : checks) {
      passed += c.ok ? 1 : 0;
      v.details += QString("%1 %2: %3\n")
                       .arg(c.ok ? "PASS" : "FAIL", QString::fromStdString(c.name),
                            QString::fromStdString(c.detail));
    }
    v.ok = passed == static_cast<int>(checks.size());
    v.summary = v.ok ? tr("verified: %1/%1 checks pass").arg(checks.size())
                     : tr("FAILED: %1 of %2 checks").arg(checks.size() - passed).arg(checks.size());
  }
  // Nothing reads the finished run's tensors any more (its figures and digest are kept):
  // their memory goes back to the system, so a Run ends where it began.
  run_->releaseTensors();
  releaseWarmHostMemory();
  emit verificationReady(v);
}

void RunController::serveScrub() {
  const qint64 t = scrubTarget_.load();
  if (t < 0 || t == scrubServed_ || !loaded_) return;
  scrubServed_ = t;
  try {
    // Deterministic re-run: the same scenario and inputs give the same events, so running
    // a fresh run to t reproduces the live run's state at t exactly.
    if (!scrub_ || scrub_->emulation().sim().now() > t) scrub_ = newRun();
    Simulator& sim = scrub_->emulation().sim();
    while (sim.pendingEvents() > 0 && sim.nextEventTime() <= t) scrub_->step();
    Snapshot s = takeSnapshot(*scrub_, runId_);
    // The state after the events up to t is the state at t (the next event is later), so
    // the views show t itself; past the end they show the end.
    if (sim.pendingEvents() > 0) s.now = t;
    emit scrubReady(s);
  } catch (const std::exception& e) {
    emit failed(QString::fromStdString(e.what()));
  }
}

void RunController::exportTrace(const QString& path) {
  if (!run_) return;
  std::ofstream out(path.toStdString());
  writeChromeTrace(out, {TraceSource{&run_->emulation(), run_->design()}});
  emit exported(out ? tr("Chrome trace written to %1").arg(path) : tr("cannot write %1").arg(path));
}

void RunController::exportCsv(const QString& path) {
  if (!run_) return;
  std::ofstream out(path.toStdString());
  // The same CSV as `moe-sim run --csv` writes for this workload.
  if (resolved_->workload() == WorkloadKind::AlltoallMatmulRs)
    writeA2aMatmulPhasesCsv(out, {run_->result()});
  else
    writeStagesCsv(out, {run_->result()});
  emit exported(out ? tr("stage CSV written to %1").arg(path) : tr("cannot write %1").arg(path));
}

}  // namespace moe::ui
