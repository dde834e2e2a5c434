#pragma once
// Text files from resources/ compiled into the core (see cmake/EmbedResources.cmake).

#include <optional>
#include <string_view>
#include <vector>

namespace moe {

struct EmbeddedFile {
  std::string_view name;  // path below resources/, e.g. "profiles/ascend-910b3.json"
  std::string_view text;
};

const std::vector<EmbeddedFile>& embeddedFiles();

inline std::optional<std::string_view> embeddedFile(std::string_view name) {
  for (const auto& f : embeddedFiles())
    if (f.name == name) return f.text;
  return std::nullopt;
}

}  // namespace moe
