#pragma once
// Reading untrusted input files: regular files only (a FIFO would block, /dev/zero never
// ends), a stated size cap, and a fixed-size read buffer, so a mistaken path can neither
// hang the tool nor eat memory. Problems are InputErrors naming the scenario field (or the
// file itself) and the rule, never the file's content.

#include <cstdint>
#include <string>

namespace moe {

// 64 MiB: far above any real scenario (a 768-rank explicit EPLB table is ~2 MiB) and any
// trace (768 ranks x 512 tokens x top-16 int64 ids is 48 MiB in .npy). See docs/SCENARIO.md.
constexpr std::uintmax_t kMaxScenarioFileBytes = std::uintmax_t{64} << 20;
constexpr std::uintmax_t kMaxTraceFileBytes = std::uintmax_t{64} << 20;

// Reads all of `file`, refusing anything that is not a regular file or is larger than
// maxBytes. `field` is the error path: the scenario field that named the file, or the file.
std::string readBoundedFile(const std::string& file, std::uintmax_t maxBytes,
                            const std::string& field);

// The same checks without reading, for readers that stream the file themselves (npy).
void checkInputFile(const std::string& file, std::uintmax_t maxBytes, const std::string& field);

// A short, printable excerpt of untrusted text for an error message: at most maxChars,
// every byte outside printable ASCII shown as '?', and "..." when cut.
std::string printableExcerpt(const std::string& text, std::size_t maxChars = 40);

}  // namespace moe
