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
  void bytes(const void* data, std::size_t n) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (std::size_t i = 0; i < n; ++i) {
      h_ ^= p[i];
      h_ *= 0x100000001b3ull;
    }
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
