#pragma once
// Which host pages of a range have ever been written (are resident), from the kernel's page
// table: what a GM arena or a ring page slab must zero before reuse, and what it holds.

#include <sys/mman.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace moe {

// Calls f(offset, length) for each run of resident pages of [p, p + n), clipped to it. If
// the kernel cannot tell, the whole range counts as resident.
template <typename F>
void forEachResident(std::uint8_t* p, std::size_t n, F f) {
  constexpr std::uintptr_t kPage = 4096;
  if (n == 0) return;
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  const std::uintptr_t first = a / kPage * kPage, last = (a + n + kPage - 1) / kPage * kPage;
  std::vector<unsigned char> resident((last - first) / kPage);
  if (mincore(reinterpret_cast<void*>(first), last - first, resident.data()) != 0) {
    f(0, n);
    return;
  }
  for (std::size_t i = 0; i < resident.size();) {
    if (!(resident[i] & 1)) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < resident.size() && (resident[j] & 1)) ++j;
    const std::uintptr_t b = std::max(a, first + i * kPage), e = std::min(a + n, first + j * kPage);
    f(b - a, e - b);
    i = j;
  }
}

}  // namespace moe
