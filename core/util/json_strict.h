#pragma once
// Parsing untrusted JSON text: duplicate keys are refused (nlohmann keeps the last one
// silently, so a scenario could say one thing on screen and run another), numbers that
// overflow a double are refused, and syntax errors name the file, line and column without
// echoing the file's bytes (it may not even be JSON, or not meant to be shown). Nesting is
// capped: no input of ours nests more than a few levels, and a hostile file nested 100,000
// deep must be refused at once rather than parsed.

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>

namespace moe {

// The deepest nesting of objects and arrays accepted (the top-level value is level 1).
constexpr std::size_t kMaxJsonDepth = 64;

// Parses `text` read from `file`. Throws InputError: path `file` for syntax errors and
// overflowing numbers ("FILE: line L, column C: ..."), the key's JSON path for duplicates
// and for nesting deeper than kMaxJsonDepth.
nlohmann::json parseJsonStrict(const std::string& text, const std::string& file);

}  // namespace moe
