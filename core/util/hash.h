#pragma once
// FNV-1a 64-bit: the run digest hashes the event sequence and the output bytes with it.
// Not cryptographic; it only has to change when the bytes change.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace moe {

class Fnv1a {
 public:
  // Eight bytes per step (FNV-1a over little-endian 64-bit words, then the tail bytes):
  // output tensors are hundreds of MB, and byte-at-a-time hashing dominated a run.
  void bytes(const void* data, std::size_t n) {
    const auto* p = static_cast<const unsigned char*>(data);
    std::size_t i = 0;
    for (; i + 8 <= n; i += 8) {
      std::uint64_t w;
      std::memcpy(&w, p + i, 8);
      h_ = (h_ ^ w) * 0x100000001b3ull;
    }
    for (; i < n; ++i) h_ = (h_ ^ p[i]) * 0x100000001b3ull;
  }
  template <typename T>
  void value(const T& v) {
    bytes(&v, sizeof(T));
  }
  void text(std::string_view s) { bytes(s.data(), s.size()); }
  std::uint64_t digest() const { return h_; }

 private:
  std::uint64_t h_ = 0xcbf29ce484222325ull;
};

}  // namespace moe
