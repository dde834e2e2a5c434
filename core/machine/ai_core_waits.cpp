// A core's waits: on a word's change (a ring's head or tail, a flag), on the first change
// of several words, and at a SyncAll barrier. Each wait shows as the core's activity, is
// named for the deadlock diagnosis (waitWhat_), and is recorded in the causal log.

#include <stdexcept>

#include "core/machine/ai_core.h"
#include "core/machine/machine.h"

namespace moe {

AiCore::WordChange AiCore::changeOf(Word& w, std::int64_t seen, Activity activity,
                                    std::function<std::string()> describe) {
  waitWhat_ = std::move(describe);
  return WordChange{this, &w, activity, seen};
}

void AiCore::WordChange::await_suspend(std::coroutine_handle<> h) {
  word->waiters.push_back(core, h);
  core->waitingOn_ = {word};
  core->setActivity(activity);
  if (CausalLog* log = core->m_.causalLog())
    log->waitBegan(core->id_, core->role_, activity, CausalLog::WaitKind::Word, -1,
                   core->m_.sim().now());
  core->m_.checkWaiters(*word);
}

AiCore::AnyWordChange AiCore::changeOfAny(const std::vector<Word*>& words,
                                          const std::vector<std::int64_t>& seen, Activity activity,
                                          std::function<std::string()> describe) {
  if (words.size() != seen.size())
    throw std::logic_error(name() + ": changeOfAny needs one seen value per word");
  waitWhat_ = std::move(describe);
  return AnyWordChange{this, &words, &seen, activity};
}

bool AiCore::AnyWordChange::await_ready() const noexcept {
  for (std::size_t i = 0; i < words->size(); ++i)
    if ((*words)[i]->value != (*seen)[i]) return true;
  return words->empty();
}

void AiCore::AnyWordChange::await_suspend(std::coroutine_handle<> h) {
  for (Word* w : *words) w->waiters.push_back(core, h);
  core->waitingOn_ = *words;
  core->setActivity(activity);
  if (CausalLog* log = core->m_.causalLog())
    log->waitBegan(core->id_, core->role_, activity, CausalLog::WaitKind::Word, -1,
                   core->m_.sim().now());
  if (!words->empty()) core->m_.checkWaiters(*words->front());
}

void AiCore::AnyWordChange::await_resume() noexcept {
  core->waitWhat_ = nullptr;
}

void AiCore::stopWaiting() {
  for (Word* w : waitingOn_) w->waiters.eraseCore(this);
  waitingOn_.clear();
}

void AiCore::WordChange::await_resume() noexcept {
  core->waitWhat_ = nullptr;
}

bool AiCore::SyncAwait::await_suspend(std::coroutine_handle<> h) {
  core->setActivity(Activity::WaitSync);
  CausalLog* log = core->m_.causalLog();
  if (log)
    log->waitBegan(core->id_, core->role_, Activity::WaitSync, CausalLog::WaitKind::Sync, -1,
                   core->m_.sim().now());
  SyncBarrier* b = barrier;
  core->waitWhat_ = [b] {
    return "SyncAll " + b->name() + ": " + std::to_string(b->arrived()) + " of " +
           std::to_string(b->participants()) + " cores arrived";
  };
  b->waiting_.emplace_back(core, h);
  if (++b->arrived_ == b->participants_) {
    Simulator& s = core->sim();
    const Time release = s.now() + nanoseconds(core->m_.hw().syncAllNs);
    for (auto& [c, handle] : b->waiting_) {
      if (log) log->barrierReleased(c->id_, core->id_, s.now());
      s.resumeAt(release, handle);
    }
    b->waiting_.clear();
    b->arrived_ = 0;
  }
  return true;
}

void AiCore::SyncAwait::await_resume() noexcept {
  core->waitWhat_ = nullptr;
}

}  // namespace moe
