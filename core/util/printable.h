#pragma once
// User strings (scenario names, unknown keys, file paths) shown on a terminal or in a text
// report. A newline in a name could print a fake "verification: passed" line, and an escape
// sequence could rewrite the screen, so control characters are shown as escapes instead.

#include <cstdio>
#include <string>
#include <string_view>

namespace moe {

// True for a byte the terminal would act on: C0 controls and DEL. (C1 controls arrive as
// the two-byte UTF-8 sequences C2 80..C2 9F; see isControlAt.)
inline bool isControlByte(unsigned char c) {
  return c < 0x20 || c == 0x7f;
}

// The length of the control character starting at s[i] (1 or 2 bytes), or 0 if there is none.
inline std::size_t controlLengthAt(std::string_view s, std::size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  if (isControlByte(c)) return 1;
  if (c == 0xc2 && i + 1 < s.size()) {
    const auto d = static_cast<unsigned char>(s[i + 1]);
    if (d >= 0x80 && d <= 0x9f) return 2;
  }
  return 0;
}

// True when s holds no control character (C0, DEL or C1): what a name may contain.
inline bool isPrintable(std::string_view s) {
  for (std::size_t i = 0; i < s.size(); ++i)
    if (controlLengthAt(s, i) > 0) return false;
  return true;
}

// One control byte as an escape: \n, \t, \r or \xHH.
inline std::string escapedByte(unsigned char c) {
  if (c == '\n') return "\\n";
  if (c == '\t') return "\\t";
  if (c == '\r') return "\\r";
  char hex[5];
  std::snprintf(hex, sizeof hex, "\\x%02x", c);
  return hex;
}

// s with every control character written as escapes (a C1 control as its two bytes'). With
// keepNewlines, '\n' stays: for messages of several lines that we wrote ourselves.
inline std::string printable(std::string_view s, bool keepNewlines = false) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    const std::size_t n = controlLengthAt(s, i);
    if (n == 0 || (keepNewlines && s[i] == '\n')) {
      out += s[i];
      continue;
    }
    for (std::size_t k = 0; k < n; ++k) out += escapedByte(static_cast<unsigned char>(s[i + k]));
    i += n - 1;
  }
  return out;
}

}  // namespace moe
