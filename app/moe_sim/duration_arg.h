#pragma once
// A duration on the command line: "90s", "10m", "1.5h" or plain seconds ("600").

#include <string>

namespace moesim {

// Seconds; InputError naming `flag` unless `text` is a positive duration.
double parseDurationSeconds(const std::string& text, const std::string& flag);

}  // namespace moesim
