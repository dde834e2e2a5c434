#pragma once
// Reading JSON input field by field, so that every failure names the field path and the
// rule it broke (throws InputError). Used by scenario files and `moe-sim op` inputs.
// Paths look like "routing.alpha" or "expert_ids[3][1]".

#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "core/util/error.h"

namespace moe::jsonf {

using nlohmann::json;

inline std::string child(const std::string& path, std::string_view key) {
  return path.empty() ? std::string(key) : path + "." + std::string(key);
}
inline std::string index(const std::string& path, std::size_t i) {
  return path + "[" + std::to_string(i) + "]";
}

inline const json& object(const json& j, const std::string& path) {
  require(j.is_object(), path.empty() ? "(top level)" : path, "must be a JSON object");
  return j;
}

// Rejects any key of obj that is not in known, naming the first unknown key's path.
inline void rejectUnknownKeys(const json& obj, const std::string& path,
                              std::initializer_list<std::string_view> known) {
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    bool ok = false;
    for (auto k : known) ok = ok || (it.key() == k);
    require(ok, child(path, it.key()), "unknown key");
  }
}

inline std::int64_t integer(const json& j, const std::string& path, std::int64_t lo,
                            std::int64_t hi) {
  std::int64_t v = 0;
  if (j.is_number_unsigned()) {
    const std::uint64_t u = j.get<std::uint64_t>();
    v = u > static_cast<std::uint64_t>(INT64_MAX) ? INT64_MAX : static_cast<std::int64_t>(u);
  } else if (j.is_number_integer()) {
    v = j.get<std::int64_t>();
  } else if (j.is_number_float()) {
    // 3.0 is accepted as 3; the range check comes before the cast, which would be UB.
    const double d = j.get<double>();
    require(std::isfinite(d) && d == std::floor(d), path, "must be an integer");
    require(std::fabs(d) < 9.2e18, path,
            "must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
    v = static_cast<std::int64_t>(d);
  } else {
    throw InputError(path, "must be an integer");
  }
  require(v >= lo && v <= hi, path,
          "must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " +
              std::to_string(v));
  return v;
}

inline double number(const json& j, const std::string& path, double lo, double hi) {
  require(j.is_number(), path, "must be a number");
  const double v = j.get<double>();
  require(v >= lo && v <= hi, path,
          "must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " +
              std::to_string(v));
  return v;
}

inline bool boolean(const json& j, const std::string& path) {
  require(j.is_boolean(), path, "must be true or false");
  return j.get<bool>();
}

inline std::string string(const json& j, const std::string& path, std::size_t maxLen = 4096) {
  require(j.is_string(), path, "must be a string");
  const auto& s = j.get_ref<const std::string&>();
  require(s.size() <= maxLen, path, "must be at most " + std::to_string(maxLen) + " characters");
  // A NUL ends the string wherever it meets a C string: a path "ok.csv\0evil" would open
  // ok.csv. No field of ours has a use for one.
  require(s.find('\0') == std::string::npos, path, "must not contain a NUL character (\\u0000)");
  return s;
}

inline std::string oneOf(const json& j, const std::string& path,
                         std::initializer_list<std::string_view> allowed) {
  const std::string s = string(j, path);
  std::string list;
  for (auto a : allowed) {
    if (s == a) return s;
    list += (list.empty() ? "" : ", ") + std::string(a);
  }
  throw InputError(path, "must be one of: " + list + " (got \"" + s + "\")");
}

inline const json& array(const json& j, const std::string& path, std::size_t maxLen) {
  require(j.is_array(), path, "must be an array");
  require(j.size() <= maxLen, path, "must have at most " + std::to_string(maxLen) + " elements");
  return j;
}

// Optional member: returns nullptr when absent (an explicit null counts as absent).
inline const json* member(const json& obj, std::string_view key) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return nullptr;
  return &*it;
}

inline const json& requiredMember(const json& obj, const std::string& path, std::string_view key) {
  const json* m = member(obj, key);
  require(m != nullptr, child(path, key), "is required");
  return *m;
}

// A rectangular matrix of integers. cols < 0 means "any, but all rows equal".
inline std::vector<std::vector<std::int64_t>> intMatrix(const json& j, const std::string& path,
                                                        std::size_t maxRows, std::size_t maxCols,
                                                        std::int64_t lo, std::int64_t hi) {
  array(j, path, maxRows);
  std::vector<std::vector<std::int64_t>> out;
  out.reserve(j.size());
  for (std::size_t r = 0; r < j.size(); ++r) {
    const std::string rp = index(path, r);
    array(j[r], rp, maxCols);
    if (r > 0) require(j[r].size() == j[0].size(), rp, "must have as many elements as row 0");
    std::vector<std::int64_t> row;
    row.reserve(j[r].size());
    for (std::size_t c = 0; c < j[r].size(); ++c)
      row.push_back(integer(j[r][c], index(rp, c), lo, hi));
    out.push_back(std::move(row));
  }
  return out;
}

}  // namespace moe::jsonf
