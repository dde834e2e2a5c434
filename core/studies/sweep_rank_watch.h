#pragma once
// Rank 0's watch over the MPI ranks of a sweep: which point each rank holds, when it was last
// heard from (rows or a heartbeat), and whether one has been silent past the timeout: a rank
// that was stopped (SIGSTOP, a hung node) would otherwise leave rank 0 waiting forever. No
// MPI and no clock here: the caller passes the time, so tests can drive it.

#include <cstddef>
#include <map>
#include <optional>
#include <string>

namespace moe {

class SweepRankWatch {
 public:
  // The timeout when none is given: this many times the slowest point so far, at least
  // kMinDefaultSeconds (a rank heartbeats every second or so while it runs a point).
  static constexpr double kSlowestPointFactor = 10.0;
  static constexpr double kMinDefaultSeconds = 60.0;

  // `timeoutSeconds`: --rank-timeout, or nullopt for the default.
  explicit SweepRankWatch(std::optional<double> timeoutSeconds) : timeout_(timeoutSeconds) {}

  // Rank `rank` was given `point` at `now` (seconds on any steady clock).
  void handedOut(int rank, std::size_t point, double now);
  // A heartbeat (or any message) from `rank`.
  void heard(int rank, double now);
  // `rank` sent its point's rows: it holds nothing now, and the point's time counts.
  void finished(int rank, double now);

  double timeoutSeconds() const;
  double slowestPointSeconds() const { return slowest_; }

  struct Silent {
    int rank = 0;
    std::size_t point = 0;
    double seconds = 0;  // since it was last heard from
    // "rank 3 silent for 60 s on point 7"
    std::string message() const;
  };
  // The rank holding a point that has been silent longest, when past the timeout.
  std::optional<Silent> silent(double now) const;

 private:
  struct Holding {
    std::size_t point = 0;
    double since = 0, lastHeard = 0;
  };
  std::optional<double> timeout_;
  double slowest_ = 0;
  std::map<int, Holding> holding_;
};

}  // namespace moe
