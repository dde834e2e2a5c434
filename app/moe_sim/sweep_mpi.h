#pragma once
// `mpirun -np N moe-sim sweep ...`: the points of a sweep spread over MPI ranks. Rank 0
// hands out one point at a time to whichever rank asks (a rank asks again when it has sent
// its rows back), gathers the rows and owns the output files; ranks 1..N-1 run points. A
// point that fails comes back as its rows (status invalid/error), so the sweep goes on.
// Only built when OpenMPI is found (MOE_HAVE_MPI); launchedByMpi() is always there, so a
// build without MPI refuses an mpirun launch instead of running the sweep N times.

#include <cstddef>
#include <functional>
#include <optional>
#include <vector>

#include "core/studies/sweep_rank_watch.h"
#include "core/studies/sweep_row.h"

namespace moe {

// True when an MPI launcher (mpirun, or srun with PMI/PMIx) started this process.
bool launchedByMpi();

#ifdef MOE_HAVE_MPI
// MPI_Init on construction (funneled: a rank runs its point on a second thread while the
// main thread heartbeats), MPI_Finalize on destruction.
class MpiSession {
 public:
  MpiSession();
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
  int rank() const { return rank_; }
  int size() const { return size_; }
  // Rank 0's `ok` to every rank (so a bad output path stops every rank, not just rank 0).
  bool broadcast(bool ok) const;

 private:
  int rank_ = 0;
  int size_ = 1;
};

// Rank 0 (size > 1): hands out `todo` in order and calls onRows for each point's rows as
// they arrive, until every worker has been told to stop. Never blocks on one rank: it polls
// (MPI_Iprobe) for rows and heartbeats, and returns the silent rank when one that holds a
// point has not been heard from for the watch's timeout (`rankTimeout`, or the default).
std::optional<SweepRankWatch::Silent> serveSweepPoints(
    const std::vector<std::size_t>& todo,
    const std::function<void(std::size_t, const std::vector<SweepRow>&)>& onRows,
    std::optional<double> rankTimeout);
// Ranks 1..N-1: asks rank 0 for points and runs them until told to stop, sending rank 0 a
// heartbeat every `heartbeatSeconds` while a point runs.
void workSweepPoints(const SweepSpec& spec, double heartbeatSeconds);
// The heartbeat period for a rank timeout: a quarter of it, between 50 ms and 1 s.
double sweepHeartbeatSeconds(std::optional<double> rankTimeout);
// Ends every rank at once with `code` (a stopped rank cannot take part in MPI_Finalize).
[[noreturn]] void abortAllRanks(int code);
#endif

}  // namespace moe
