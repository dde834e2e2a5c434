#include "app/moe_sim/sweep_mpi.h"

#include <cstdlib>
#include <string>

#ifdef MOE_HAVE_MPI
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <future>
#include <thread>

#include "core/util/error.h"
#endif

namespace moe {

bool launchedByMpi() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE", "PMI_RANK"})
    if (std::getenv(v) != nullptr) return true;
  return false;
}

#ifdef MOE_HAVE_MPI

namespace {

constexpr int kTagRows = 1;  // worker -> rank 0: the last point's rows ("" on the first ask)
constexpr int kTagWork = 2;  // rank 0 -> worker: the next point, or -1 to stop
constexpr int kTagBeat = 3;  // worker -> rank 0: still running this point

double secondsNow() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void check(int rc, const char* what) {
  if (rc != MPI_SUCCESS) throw std::runtime_error(std::string("MPI: ") + what + " failed");
}

}  // namespace

MpiSession::MpiSession() {
  int provided = 0;
  check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

MpiSession::~MpiSession() {
  MPI_Finalize();
}

bool MpiSession::broadcast(bool ok) const {
  int flag = ok ? 1 : 0;
  check(MPI_Bcast(&flag, 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Bcast");
  return flag == 1;
}

std::optional<SweepRankWatch::Silent> serveSweepPoints(
    const std::vector<std::size_t>& todo,
    const std::function<void(std::size_t, const std::vector<SweepRow>&)>& onRows,
    std::optional<double> rankTimeout) {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  SweepRankWatch watch(rankTimeout);
  std::size_t next = 0;
  int working = size - 1;
  while (working > 0) {
    int ready = 0;
    MPI_Status status;
    check(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &ready, &status), "MPI_Iprobe");
    if (!ready) {
      if (const auto silent = watch.silent(secondsNow())) return silent;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      continue;
    }
    const int from = status.MPI_SOURCE;
    if (status.MPI_TAG == kTagBeat) {
      long long point = -1;
      check(MPI_Recv(&point, 1, MPI_LONG_LONG, from, kTagBeat, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
            "MPI_Recv");
      watch.heard(from, secondsNow());
      continue;
    }
    int bytes = 0;
    MPI_Get_count(&status, MPI_CHAR, &bytes);
    std::string message(static_cast<std::size_t>(bytes), '\0');
    check(MPI_Recv(message.data(), bytes, MPI_CHAR, from, kTagRows, MPI_COMM_WORLD,
                   MPI_STATUS_IGNORE),
          "MPI_Recv");
    if (!message.empty()) {
      const nlohmann::ordered_json j = nlohmann::ordered_json::parse(message);
      std::vector<SweepRow> rows(j["rows"].begin(), j["rows"].end());
      onRows(j["point"].get<std::size_t>(), rows);
    }
    watch.finished(from, secondsNow());
    long long point = -1;
    if (next < todo.size()) {
      point = static_cast<long long>(todo[next++]);
      watch.handedOut(from, static_cast<std::size_t>(point), secondsNow());
    } else {
      --working;
    }
    check(MPI_Send(&point, 1, MPI_LONG_LONG, from, kTagWork, MPI_COMM_WORLD), "MPI_Send");
  }
  return std::nullopt;
}

void workSweepPoints(const SweepSpec& spec, double heartbeatSeconds) {
  std::string message;  // nothing to report on the first ask
  const auto beat = std::chrono::duration<double>(heartbeatSeconds);
  for (;;) {
    check(MPI_Send(message.data(), static_cast<int>(message.size()), MPI_CHAR, 0, kTagRows,
                   MPI_COMM_WORLD),
          "MPI_Send");
    long long point = -1;
    check(MPI_Recv(&point, 1, MPI_LONG_LONG, 0, kTagWork, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
          "MPI_Recv");
    if (point < 0) return;
    // The point runs on its own thread; this one (the only one calling MPI) tells rank 0 it
    // is alive, so a long point is told apart from a stopped rank.
    std::future<std::vector<SweepRow>> rows = std::async(std::launch::async, [&spec, point] {
      return runSweepPoint(spec, static_cast<std::size_t>(point));
    });
    while (rows.wait_for(beat) != std::future_status::ready)
      check(MPI_Send(&point, 1, MPI_LONG_LONG, 0, kTagBeat, MPI_COMM_WORLD), "MPI_Send");
    nlohmann::ordered_json j;
    j["point"] = point;
    j["rows"] = rows.get();
    // Doubles are written with 17 significant digits, so rank 0 reads back the same bits and
    // formats the same CSV as a local run.
    message = j.dump();
  }
}

double sweepHeartbeatSeconds(std::optional<double> rankTimeout) {
  return rankTimeout ? std::clamp(*rankTimeout / 4, 0.05, 1.0) : 1.0;
}

void abortAllRanks(int code) {
  MPI_Abort(MPI_COMM_WORLD, code);
  std::_Exit(code);  // MPI_Abort does not return; this is for the compiler
}

#endif

}  // namespace moe
