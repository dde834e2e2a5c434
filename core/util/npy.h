#pragma once
// NumPy .npy files (format 1.0), the exchange format for test vectors (DESIGN.md §7): inputs and
// golden outputs that real device kernels are checked against from Python.
//
// Only the little-endian, C-order dtypes the pipeline uses are supported:
//   '<i4' int32 (ids, counts), '<i8' int64 (traces written by numpy default ints),
//   '<f4' float32 (routing weights), '<u2' uint16 (bf16 bit patterns), '<f2' float16
//   (IEEE half, read and written as uint16 bit patterns: set dtype after makeNpy<uint16_t>),
//   '|u1' uint8 and '|b1' bool (masks).
// Reading never trusts the file: every malformed header, dtype, shape or size is an
// InputError naming the file, so a bad vector fails with a message rather than a crash.

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace moe {

static_assert(std::endian::native == std::endian::little,
              "npy I/O copies little-endian payloads byte for byte");

// Largest array readNpy accepts, in elements: a corrupt shape must not trigger a huge
// allocation, and no test vector of ours comes near it.
inline constexpr std::size_t kNpyMaxElements = std::size_t{1} << 31;

// dtype descriptor of a C++ element type. bool masks use uint8_t storage with '|b1'
// (std::vector<bool> is bit-packed and cannot alias the payload), see makeNpyBool.
template <typename T>
struct NpyDtype;
template <>
struct NpyDtype<std::int32_t> {
  static constexpr const char* descr = "<i4";
};
template <>
struct NpyDtype<std::int64_t> {
  static constexpr const char* descr = "<i8";
};
template <>
struct NpyDtype<float> {
  static constexpr const char* descr = "<f4";
};
template <>
struct NpyDtype<std::uint16_t> {
  static constexpr const char* descr = "<u2";
};
template <>
struct NpyDtype<std::uint8_t> {
  static constexpr const char* descr = "|u1";
};
template <>
struct NpyDtype<std::int8_t> {
  static constexpr const char* descr = "|i1";
};

// Bytes per element of a supported descr; 0 when the descr is not supported.
std::size_t npyItemSize(const std::string& dtype);

struct NpyArray {
  std::string dtype;               // numpy descr, e.g. "<i4"
  std::vector<std::size_t> shape;  // C order; empty = 0-d scalar (one element)
  std::vector<std::uint8_t> data;  // raw little-endian payload, elements() * itemsize bytes

  std::size_t elements() const {
    std::size_t n = 1;
    for (std::size_t d : shape) n *= d;
    return n;
  }

  // Copy of the payload as T. The dtype must match T exactly ('|b1' reads as uint8_t); a
  // mismatch is a caller bug (check dtype first), so it throws std::invalid_argument.
  template <typename T>
  std::vector<T> as() const {
    const bool match =
        dtype == NpyDtype<T>::descr || (std::is_same_v<T, std::uint8_t> && dtype == "|b1");
    if (!match) {
      throw std::invalid_argument(std::string("npy dtype is ") + dtype + ", requested " +
                                  NpyDtype<T>::descr);
    }
    if (data.size() != elements() * sizeof(T)) {
      throw std::invalid_argument("npy payload size does not match its shape");
    }
    std::vector<T> out(elements());
    if (!out.empty()) std::memcpy(out.data(), data.data(), data.size());
    return out;
  }
};

// Builds an array from values; values.size() must equal the product of shape.
template <typename T>
NpyArray makeNpy(std::vector<std::size_t> shape, const std::vector<T>& values) {
  NpyArray a{NpyDtype<T>::descr, std::move(shape), {}};
  if (a.elements() != values.size()) {
    throw std::invalid_argument("makeNpy: value count does not match shape");
  }
  a.data.resize(values.size() * sizeof(T));
  if (!values.empty()) std::memcpy(a.data.data(), values.data(), a.data.size());
  return a;
}

// A '|b1' array from 0/1 bytes (any non-zero byte is stored as 1, as numpy's bool is).
NpyArray makeNpyBool(std::vector<std::size_t> shape, const std::vector<std::uint8_t>& values);

// Writes format 1.0 with the header padded so the payload starts at a multiple of 64 bytes,
// as numpy does. I/O failure -> InputError(path, ...); an inconsistent array (unsupported
// dtype, payload size not matching shape) -> std::invalid_argument.
void writeNpy(const std::string& path, const NpyArray& array);

// Reads format 1.0 (and 2.0/3.0, which differ only in the header length field). Any problem
// (missing file, bad magic or version, unsupported dtype, fortran_order True, malformed
// header, more than kNpyMaxElements elements, payload size != shape x itemsize, a '|b1'
// byte other than 0/1) -> InputError(path, rule).
NpyArray readNpy(const std::string& path);

}  // namespace moe
