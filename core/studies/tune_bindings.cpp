#include "core/studies/tune_bindings.h"

#include <algorithm>
#include <cstdio>

#include "core/studies/tune_knobs.h"

namespace moe {

namespace {

// One neighbour of the answer: the rule that refuses it, or its measured time against the
// answer's (at full shape when it was confirmed there, else at the search's shape).
std::string neighbourVerdict(const TuneKnobs& k, const TuneBindingInputs& in) {
  if (const std::string why = tuneConstraint(withKnobs(in.full, k, in.objective)); !why.empty())
    return "limited by " + why;
  const auto confirmed = std::find_if(in.out.confirmed.begin(), in.out.confirmed.end(),
                                      [&](const TuneEval& e) { return e.knobs == k; });
  if (confirmed != in.out.confirmed.end() && confirmed->ok && in.out.best.ok) {
    const double fig = tuneFigure(*confirmed, in.objective);
    char num[96];
    std::snprintf(num, sizeof num, "%.1f us (%+.1f us), measured at full shape", fig,
                  fig - tuneFigure(in.out.best, in.objective));
    return num;
  }
  const TuneEval* ev = in.measured(k);
  if (ev == nullptr) return "not run within the bounds";
  if (!ev->ok) return "failed (" + ev->error.substr(0, 80) + ")";
  // Compared at the shape the candidates ran at (the stand-in's when there is one).
  const TuneEval* here = in.measured(in.out.best.knobs);
  const double fig = tuneFigure(*ev, in.objective);
  char num[128];
  if (here != nullptr && here->ok)
    std::snprintf(num, sizeof num, "%.1f us (%+.1f us), measured%s", fig,
                  fig - tuneFigure(*here, in.objective), ev->standIn ? " at the stand-in" : "");
  else
    std::snprintf(num, sizeof num, "%.1f us, measured%s", fig,
                  ev->standIn ? " at the stand-in" : "");
  return num;
}

}  // namespace

// Why a knob stops where it does: its neighbours, refused (the rule) or measured.
TuneBinding tuneBinding(const TuneKnob& kn, const TuneBindingInputs& in) {
  TuneBinding b;
  b.knob = knobPath(kn, in.objective);
  const std::int64_t cur = kn.get(in.out.best.knobs);
  b.value = kn.show(cur);
  if (std::find(in.searched.begin(), in.searched.end(), &kn) == in.searched.end()) {
    b.why = "kept as given (numerics kept)";
    return b;
  }
  const auto it = std::find(kn.values.begin(), kn.values.end(), cur);
  std::vector<std::int64_t> next;
  if (it == kn.values.end()) {
    next = {kn.values.front(), kn.values.back()};
  } else {
    if (it + 1 != kn.values.end()) next.push_back(*(it + 1));
    if (it != kn.values.begin()) next.push_back(*(it - 1));
  }
  for (std::int64_t v : next) {
    TuneKnobs k = in.out.best.knobs;
    kn.set(k, v);
    b.why += (b.why.empty() ? "" : "; ") + kn.show(v) + ": " + neighbourVerdict(k, in);
  }
  if (b.why.empty()) b.why = "the only value searched";
  return b;
}

}  // namespace moe
