#pragma once
// Memory the kernels address: named buffers in a card's HBM (GM) or in one core's UB.
// With payload "none", activation buffers keep their size but hold no bytes, so huge
// clusters still run the protocol and timing (SPEC §2).

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace moe {

enum class MemSpace : std::uint8_t { Gm, Ub };

struct Buffer {
  std::string name;
  MemSpace space;
  int card;
  int core;  // owning core for UB, -1 for GM
  std::int64_t size;
  std::vector<std::uint8_t> bytes;  // empty when the buffer is virtual (payload none)

  bool hasBytes() const { return !bytes.empty() || size == 0; }
  std::uint8_t* data() { return bytes.data(); }
  const std::uint8_t* data() const { return bytes.data(); }
  template <typename T>
  T* as() {
    return reinterpret_cast<T*>(bytes.data());
  }
  template <typename T>
  const T* as() const {
    return reinterpret_cast<const T*>(bytes.data());
  }
};

// A byte range of one buffer.
struct Region {
  Buffer* buf = nullptr;
  std::int64_t offset = 0;
  std::int64_t length = 0;

  Region sub(std::int64_t off, std::int64_t len) const {
    if (off < 0 || len < 0 || off + len > length)
      throw std::out_of_range("sub-region outside " + (buf ? buf->name : std::string("?")));
    return Region{buf, offset + off, len};
  }
  std::uint8_t* ptr() const { return buf->bytes.empty() ? nullptr : buf->bytes.data() + offset; }
};

inline Region whole(Buffer* b) { return Region{b, 0, b->size}; }

}  // namespace moe
