#include "ui/run/sweep_runner.h"

#include "core/util/parallel_map.h"
#include "ui/run/warm_memory_given_back.h"

namespace moe::ui {

void SweepRunner::run(std::shared_ptr<const SweepSpec> spec) {
  const WarmMemoryGivenBackAtEnd givenBack;
  const std::size_t total = spec->pointCount();
  ParallelMapOptions options;
  options.cancel = &cancel_;
  options.onDone = [this](std::size_t done, std::size_t all) {
    emit progress(static_cast<int>(done), static_cast<int>(all));
  };
  auto rows = parallelMap<std::vector<SweepRow>>(
      total, [&](std::size_t i) { return runSweepPoint(*spec, i); }, options);
  auto result = std::make_shared<SweepResult>();
  result->spec = spec;
  result->cancelled = cancel_;
  result->points.resize(total);
  for (std::size_t i = 0; i < total; ++i)
    if (rows[i]) result->points[i] = std::move(*rows[i]);
  emit finished(result);
}

}  // namespace moe::ui
