#pragma once
// Where playback reads wall-clock time. The workbench uses the steady clock; tests and the
// headless recorder install a manual clock they advance themselves, so playback at a given
// speed is deterministic and independent of how fast the machine is.

#include <atomic>
#include <chrono>
#include <cstdint>

namespace moe::ui {

class WallClock {
 public:
  virtual ~WallClock() = default;
  // Nanoseconds since some fixed origin; never decreases.
  virtual std::int64_t nowNs() const = 0;
};

class SteadyWallClock final : public WallClock {
 public:
  std::int64_t nowNs() const override {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
};

// Moves only when told to. Thread-safe: a test thread advances it while the worker reads it.
class ManualWallClock final : public WallClock {
 public:
  std::int64_t nowNs() const override { return ns_.load(); }
  void advance(std::int64_t ns) { ns_.fetch_add(ns); }

 private:
  std::atomic<std::int64_t> ns_{0};
};

}  // namespace moe::ui
