// The `moe_workbench` Python module: a front end over the core, like moe-sim, for kernel
// engineers who test in Python (op-plugin, DeepEP). Three entry points:
//   run(scenario=None, impl=None, verify=False) -> (figures: dict, digest: str)
//   op(name, strict=False, **inputs) -> dict of numpy arrays (and int scalars)
//   export_vectors(scenario, out, counts="counts", expand_idx="rows") -> manifest (dict)
// A scenario is None (the built-in default; for export_vectors the built-in vectors
// scenario, as moe-sim export-vectors), a path to a JSON file, or a dict in the scenario
// schema (docs/SCENARIO.md). Bad input raises ValueError with the field path and the rule, as
// moe-sim prints it; op() warnings are Python warnings (UserWarning).
//
// op() hands its inputs to the same JSON layer as `moe-sim op` (core/op_io), so the CLI and
// Python refuse and warn about exactly the same inputs. numpy arrays travel as
// {"dtype", "data"} with their dtype name; a uint16 array is a bf16 bit pattern (the export's
// encoding) and is widened to its float values first.

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/op_io/op_json.h"
#include "core/run/a2a_matmul_report.h"
#include "core/run/resolved_scenario.h"
#include "core/run/run_report.h"
#include "core/scenario/scenario_json.h"
#include "core/studies/vector_export.h"
#include "core/util/error.h"
#include "core/util/format_digest.h"

namespace py = pybind11;
using nlohmann::json;

namespace {

json toJson(const py::handle& obj) {
  const py::module_ pyjson = py::module_::import("json");
  return json::parse(pyjson.attr("dumps")(obj).cast<std::string>());
}

py::object fromJson(const json& j) {
  const py::module_ pyjson = py::module_::import("json");
  return pyjson.attr("loads")(j.dump());
}

moe::Scenario scenarioFrom(const py::object& scenario) {
  if (scenario.is_none()) return moe::defaultScenario();
  if (py::isinstance<py::str>(scenario)) return moe::loadScenarioFile(scenario.cast<std::string>());
  if (py::isinstance<py::dict>(scenario)) {
    moe::Scenario sc = moe::scenarioFromJson(toJson(scenario));
    moe::validateScenario(sc);
    return sc;
  }
  throw moe::InputError("scenario", "must be None, a path to a JSON file, or a dict");
}

py::tuple run(const py::object& scenario, const py::object& impl, bool verify) {
  moe::Scenario sc = scenarioFrom(scenario);
  if (!impl.is_none()) {
    const std::string i = impl.cast<std::string>();
    const auto parsed = moe::DesignSelection::fromName(i);
    if (!parsed) {
      std::string list;
      for (const std::string& n : moe::enumSpellings("dispatch_impl"))
        list += (list.empty() ? "" : ", ") + n;
      throw moe::InputError("impl", "must be one of: " + list + " (got \"" + i + "\")");
    }
    sc.dispatchImpl = *parsed;
  }
  json figures = json::object();
  std::uint64_t digest = 0;
  if (sc.workload.kind == moe::WorkloadKind::AlltoallMatmulRs) {
    py::gil_scoped_release release;
    const moe::A2aMatmulReport r =
        moe::runA2aMatmulWorkload(moe::ResolvedScenario::resolve(sc), verify);
    digest = r.digest();
    figures["workload"] = "alltoall-matmul-rs";
    figures["pipelined_us"] = moe::toMicroseconds(r.pipelined.run.end);
    figures["sequential_us"] = moe::toMicroseconds(r.sequential.run.end);
    figures["overlap_ratio"] = r.overlapRatio();
    figures["ok"] = r.ok();
  } else {
    py::gil_scoped_release release;
    const moe::RunReport r = moe::runScenario(moe::ResolvedScenario::resolve(sc), verify);
    digest = r.digest;
    figures["workload"] = "moe-layer";
    figures["ok"] = r.ok();
    json runs = json::array();
    for (const moe::RunResult& run : r.results) {
      json stages = json::array();
      for (const auto& s : run.stages)
        stages.push_back({{"name", std::string(s.label())},
                          {"start_us", moe::toMicroseconds(s.start)},
                          {"end_us", moe::toMicroseconds(s.end)},
                          {"hccs_bytes", s.hccsBytes},
                          {"nic_bytes", s.nicBytes}});
      json checks = json::array();
      for (const auto& c : run.verification)
        checks.push_back({{"name", c.name}, {"passed", c.ok}, {"detail", c.detail}});
      runs.push_back({{"design", run.design},
                      {"total_us", moe::toMicroseconds(run.end)},
                      {"comm_buffer_bytes", run.buffers.dispatchBytes},
                      {"stages", std::move(stages)},
                      {"checks", std::move(checks)}});
    }
    figures["runs"] = std::move(runs);
  }
  return py::make_tuple(fromJson(figures), moe::formatDigest(digest));
}

// One op() input to JSON: numpy arrays keep their dtype through the {"dtype", "data"} form.
json inputToJson(const py::handle& value) {
  const py::module_ np = py::module_::import("numpy");
  // numpy scalars (np.int64(3)) are not JSON-serialisable; .item() gives the Python value.
  if (!py::isinstance<py::array>(value))
    return toJson(py::hasattr(value, "item")
                      ? value.attr("item")()
                      : py::object(py::reinterpret_borrow<py::object>(value)));
  py::array a = py::reinterpret_borrow<py::array>(value);
  std::string dtype = py::str(a.attr("dtype").attr("name"));
  if (dtype == "uint16") {  // bf16 bit patterns, the export's encoding
    a = np.attr("left_shift")(a.attr("astype")(np.attr("uint32")), 16)
            .attr("view")(np.attr("float32"));
    dtype = "bfloat16";
  }
  json data = toJson(a.attr("tolist")());
  if (dtype == "bool" || a.ndim() == 0) return data;
  return {{"dtype", dtype}, {"data", std::move(data)}};
}

// dispatch and combine take plain nested values (bf16 as numbers): arrays become lists,
// uint16 arrays (bf16 bit patterns) their float values, recursively through lists and dicts.
json plainJson(const py::handle& value) {
  if (py::isinstance<py::array>(value)) {
    const json j = inputToJson(value);
    return j.is_object() && j.contains("data") ? j.at("data") : j;
  }
  if (py::isinstance<py::dict>(value)) {
    json out = json::object();
    for (const auto& [k, v] : py::reinterpret_borrow<py::dict>(value))
      out[py::str(k).cast<std::string>()] = plainJson(v);
    return out;
  }
  if (py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value)) {
    json out = json::array();
    for (const auto& v : value) out.push_back(plainJson(v));
    return out;
  }
  return inputToJson(value);
}

// JSON output back to numpy: booleans become bool arrays, integers take the dtype of the
// ids that went in (the real operator's outputs keep the input dtype), numbers float32.
py::object outputToNumpy(const json& v, const std::string& intDtype) {
  const py::module_ np = py::module_::import("numpy");
  if (v.is_array() && !v.empty() && v[0].is_object()) {  // per-rank dicts (dispatch, combine)
    py::list ranks;
    for (const json& rank : v) {
      py::dict d;
      for (const auto& [key, value] : rank.items())
        d[py::str(key)] = outputToNumpy(value, intDtype);
      ranks.append(d);
    }
    return ranks;
  }
  if (!v.is_array()) return fromJson(v);
  const json* leaf = &v;
  while (leaf->is_array() && !leaf->empty()) leaf = &(*leaf)[0];
  std::string dtype = "float32";
  if (leaf->is_boolean()) dtype = "bool";
  if (leaf->is_number_integer() || leaf->is_array()) dtype = intDtype;
  return np.attr("array")(fromJson(v), py::arg("dtype") = dtype);
}

py::dict op(const std::string& name, bool strict, const py::kwargs& inputs) {
  json in = json::object();
  std::string intDtype = "int32";
  const bool collective = name == "dispatch" || name == "combine";
  for (const auto& [key, value] : inputs) {
    const std::string k = py::str(key);
    in[k] = collective ? plainJson(value) : inputToJson(value);
    if ((k == "expert_ids" || k == "topk_idx") && in[k].is_object() &&
        in[k].value("dtype", "") == "int64")
      intDtype = "int64";
  }
  // The layout inputs take plain integer lists (DeepEP's int64 topk_idx carries no meaning
  // beyond the values); the update-expert ids keep their dtype.
  if (name == "layout" && in.contains("topk_idx") && in["topk_idx"].is_object())
    in["topk_idx"] = json(in["topk_idx"]["data"]);
  std::vector<std::string> warnings;
  const json out = moe::runOpJson(name, in, moe::OpOptions{strict, &warnings});
  for (const auto& w : warnings)
    if (PyErr_WarnEx(PyExc_UserWarning, w.c_str(), 1) != 0) throw py::error_already_set();
  py::dict result;
  for (const auto& [key, value] : out.items()) {
    const std::string dt = key == "balanced_expert_ids" ? intDtype : "int32";
    result[py::str(key)] = outputToNumpy(value, dt);
  }
  return result;
}

py::object exportVectors(const py::object& scenario, const std::string& out,
                         const std::string& counts, const std::string& expandIdx) {
  moe::VectorExportOptions o;
  if (counts != "counts" && counts != "prefix-sums")
    throw moe::InputError("counts", "must be counts or prefix-sums, got \"" + counts + "\"");
  if (expandIdx != "rows" && expandIdx != "slots")
    throw moe::InputError("expand_idx", "must be rows or slots, got \"" + expandIdx + "\"");
  o.counts = counts == "counts" ? moe::CountEncoding::Counts : moe::CountEncoding::PrefixSums;
  o.expandIdx = expandIdx == "rows" ? moe::ExpandIdxLayout::Rows : moe::ExpandIdxLayout::Slots;
  // None exports the vectors scenario, as `moe-sim export-vectors` without a file does.
  const moe::Scenario sc =
      scenario.is_none() ? moe::defaultVectorScenario() : scenarioFrom(scenario);
  std::string manifest;
  {
    py::gil_scoped_release release;
    manifest = moe::exportVectors(sc, out, o).manifestPath;
  }
  const py::module_ pyjson = py::module_::import("json");
  const py::module_ builtins = py::module_::import("builtins");
  py::object f = builtins.attr("open")(manifest);
  py::object m = pyjson.attr("load")(f);
  f.attr("close")();
  return m;
}

}  // namespace

PYBIND11_MODULE(moe_workbench, m) {
  m.doc() = "MoE Pipeline Workbench: run scenarios, call operator references, export vectors";
  m.attr("__version__") = moe::toolVersion();
  // Bad input is the caller's mistake: ValueError, with moe-sim's "PATH: RULE" message.
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const moe::InputError& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    }
  });
  m.def("run", &run, py::arg("scenario") = py::none(), py::arg("impl") = py::none(),
        py::arg("verify") = false,
        "Emulate the scenario; returns (figures, digest). figures: per design the stages "
        "(start/end in us, link bytes), the total time and, with verify, the checks.");
  m.def("op", &op, py::arg("name"), py::kw_only(), py::arg("strict") = false,
        "Run one operator's golden reference (update-expert, layout, eplb, dispatch, combine) "
        "on the given inputs "
        "(numpy arrays or ints, named as the real operator's arguments); returns its outputs "
        "as numpy arrays. strict=True refuses inputs that would only warn.");
  m.def("export_vectors", &exportVectors, py::arg("scenario"), py::arg("out"),
        py::arg("counts") = "counts", py::arg("expand_idx") = "rows",
        "Write per-operator, per-rank .npy inputs and goldens and manifest.json into `out`; "
        "returns the manifest.");
}
