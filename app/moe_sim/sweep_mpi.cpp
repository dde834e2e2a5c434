#include "app/moe_sim/sweep_mpi.h"

#include <cstdlib>
#include <string>

#ifdef MOE_HAVE_MPI
#include <mpi.h>

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

void check(int rc, const char* what) {
  if (rc != MPI_SUCCESS) throw std::runtime_error(std::string("MPI: ") + what + " failed");
}

}  // namespace

MpiSession::MpiSession() {
  check(MPI_Init(nullptr, nullptr), "MPI_Init");
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

void serveSweepPoints(
    const std::vector<std::size_t>& todo,
    const std::function<void(std::size_t, const std::vector<SweepRow>&)>& onRows) {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::size_t next = 0;
  int working = size - 1;
  while (working > 0) {
    MPI_Status status;
    check(MPI_Probe(MPI_ANY_SOURCE, kTagRows, MPI_COMM_WORLD, &status), "MPI_Probe");
    int bytes = 0;
    MPI_Get_count(&status, MPI_CHAR, &bytes);
    std::string message(static_cast<std::size_t>(bytes), '\0');
    check(MPI_Recv(message.data(), bytes, MPI_CHAR, status.MPI_SOURCE, kTagRows, MPI_COMM_WORLD,
                   MPI_STATUS_IGNORE),
          "MPI_Recv");
    if (!message.empty()) {
      const nlohmann::ordered_json j = nlohmann::ordered_json::parse(message);
      std::vector<SweepRow> rows(j["rows"].begin(), j["rows"].end());
      onRows(j["point"].get<std::size_t>(), rows);
    }
    long long point = -1;
    if (next < todo.size())
      point = static_cast<long long>(todo[next++]);
    else
      --working;
    check(MPI_Send(&point, 1, MPI_LONG_LONG, status.MPI_SOURCE, kTagWork, MPI_COMM_WORLD),
          "MPI_Send");
  }
}

void workSweepPoints(const SweepSpec& spec) {
  std::string message;  // nothing to report on the first ask
  for (;;) {
    check(MPI_Send(message.data(), static_cast<int>(message.size()), MPI_CHAR, 0, kTagRows,
                   MPI_COMM_WORLD),
          "MPI_Send");
    long long point = -1;
    check(MPI_Recv(&point, 1, MPI_LONG_LONG, 0, kTagWork, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
          "MPI_Recv");
    if (point < 0) return;
    const std::vector<SweepRow> rows = runSweepPoint(spec, static_cast<std::size_t>(point));
    nlohmann::ordered_json j;
    j["point"] = point;
    j["rows"] = rows;
    // Doubles are written with 17 significant digits, so rank 0 reads back the same bits and
    // formats the same CSV as a local run.
    message = j.dump();
  }
}

#endif

}  // namespace moe
