#pragma once
// Parsing untrusted JSON text: duplicate keys are refused (nlohmann keeps the last one
// silently, so a scenario could say one thing on screen and run another), numbers that
// overflow a double are refused, and syntax errors name the file, line and column without
// echoing the file's bytes (it may not even be JSON, or not meant to be shown).

#include <nlohmann/json.hpp>
#include <string>

namespace moe {

// Parses `text` read from `file`. Throws InputError: path `file` for syntax errors and
// overflowing numbers ("FILE: line L, column C: ..."), the key's JSON path for duplicates.
nlohmann::json parseJsonStrict(const std::string& text, const std::string& file);

}  // namespace moe
