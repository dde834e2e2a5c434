#pragma once
// Waiting for a signal that a worker thread emits. QSignalSpy::wait waits for a *new* signal,
// but a spy on an object in a worker thread counts that thread's signal at once, in that
// thread: one emitted before the wait began was missed, and the wait timed out (a race a
// loaded machine lost, as CI's can). This waits until the spy holds at least one.

#include <QSignalSpy>
#include <QTest>

namespace moe::ui::test {

inline bool waitForFirst(QSignalSpy& spy, int timeoutMs) {
  return QTest::qWaitFor([&] { return spy.count() > 0; }, timeoutMs);
}

}  // namespace moe::ui::test
