#pragma once
// The rows of a sweep: one per point and design, with the axis values, each stage's time,
// the buffer footprints, peak ring occupancy, RDMA posts, events, the verification status
// and the digest. A row is a JSON object whose keys are the columns in order, so the CSV,
// the JSON lines, the MPI transfer and the workbench's chart all read the same values.

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/studies/sweep_spec.h"

namespace moe {

using SweepRow = nlohmann::ordered_json;

// Every column of the sweep's rows, in order: "point", one per axis (its field path),
// "design", "status", "message", "<stage>_us" per stage of the workload, "total_us",
// "dispatch_buffer_bytes", "combine_buffer_bytes", "peak_ring_occupancy_bytes",
// "rdma_posts", "events", "verification", "digest".
std::vector<std::string> sweepColumns(const SweepSpec& spec);

// The numeric figures a front end can chart (the stage times and the counters).
std::vector<std::string> sweepFigureColumns(const SweepSpec& spec);

// Runs every design of point `index` and returns one row per design, in spec.designs order.
// Never throws for a bad point: a value that breaks a scenario rule (before or during the
// run) gives status "invalid" and the message "FIELD: RULE"; any other failure "error".
// Status "deadlock" when a run stopped with cores waiting; otherwise "ok". verification is
// "passed", "failed" or "skipped" (spec.verify off, or the point did not run).
std::vector<SweepRow> runSweepPoint(const SweepSpec& spec, std::size_t index);

}  // namespace moe
