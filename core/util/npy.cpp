#include "core/util/npy.h"

#include <cctype>
#include <fstream>
#include <utility>

#include "core/util/error.h"

namespace moe {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr std::size_t kMagicLen = 6;
constexpr std::size_t kAlign = 64;

// Parser for the header dict numpy writes, e.g.
//   {'descr': '<i4', 'fortran_order': False, 'shape': (3, 4), }
// It accepts any key order and whitespace, as np.load does, and nothing else: the header is a
// Python literal, but only this fixed shape of it is legal.
class HeaderParser {
 public:
  HeaderParser(std::string text, const std::string& path) : s_(std::move(text)), path_(path) {}

  void parse(NpyArray& out) {
    bool haveDescr = false, haveOrder = false, haveShape = false;
    expect('{');
    while (true) {
      skipSpace();
      if (peek() == '}') break;
      const std::string key = quoted();
      expect(':');
      if (key == "descr") {
        out.dtype = quoted();
        haveDescr = true;
      } else if (key == "fortran_order") {
        skipSpace();
        if (!consumeWord("False")) {
          if (consumeWord("True")) fail("fortran_order True is not supported (C order only)");
          fail("fortran_order must be True or False");
        }
        haveOrder = true;
      } else if (key == "shape") {
        out.shape = tuple();
        haveShape = true;
      } else {
        fail("unexpected header key '" + key + "'");
      }
      skipSpace();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      skipSpace();
      if (peek() != '}') fail("expected ',' or '}' in header");
    }
    ++pos_;
    skipSpace();
    if (pos_ != s_.size()) fail("trailing characters after header dict");
    if (!haveDescr || !haveOrder || !haveShape) {
      fail("header must contain 'descr', 'fortran_order' and 'shape'");
    }
  }

 private:
  [[noreturn]] void fail(const std::string& rule) const {
    throw InputError(path_, "malformed npy header: " + rule);
  }
  char peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }
  void skipSpace() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  void expect(char c) {
    skipSpace();
    if (peek() != c) fail(std::string("expected '") + c + "'");
    ++pos_;
  }
  bool consumeWord(const std::string& w) {
    if (s_.compare(pos_, w.size(), w) != 0) return false;
    pos_ += w.size();
    return true;
  }
  std::string quoted() {
    skipSpace();
    const char q = peek();
    if (q != '\'' && q != '"') fail("expected a quoted string");
    const std::size_t end = s_.find(q, pos_ + 1);
    if (end == std::string::npos) fail("unterminated string");
    std::string v = s_.substr(pos_ + 1, end - pos_ - 1);
    pos_ = end + 1;
    return v;
  }
  std::vector<std::size_t> tuple() {
    std::vector<std::size_t> dims;
    expect('(');
    while (true) {
      skipSpace();
      if (peek() == ')') break;
      if (!std::isdigit(static_cast<unsigned char>(peek()))) fail("shape entries must be integers");
      std::size_t v = 0;
      while (std::isdigit(static_cast<unsigned char>(peek()))) {
        v = v * 10 + static_cast<std::size_t>(s_[pos_] - '0');
        // Stop before the accumulator could overflow; the element bound is checked later.
        if (v > kNpyMaxElements) fail("shape entry exceeds " + std::to_string(kNpyMaxElements));
        ++pos_;
      }
      if (peek() == 'L') ++pos_;  // Python 2 long suffix, still seen in old files
      dims.push_back(v);
      skipSpace();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      if (peek() != ')') fail("expected ',' or ')' in shape");
    }
    ++pos_;
    return dims;
  }

  std::string s_;
  const std::string& path_;
  std::size_t pos_ = 0;
};

std::string shapeText(const std::vector<std::size_t>& shape) {
  std::string t = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i) t += ", ";
    t += std::to_string(shape[i]);
  }
  if (shape.size() == 1) t += ",";  // Python's one-tuple
  return t + ")";
}

}  // namespace

std::size_t npyItemSize(const std::string& dtype) {
  if (dtype == "<i4" || dtype == "<f4") return 4;
  if (dtype == "<i8") return 8;
  if (dtype == "<u2" || dtype == "<f2") return 2;
  if (dtype == "|u1" || dtype == "|b1" || dtype == "|i1") return 1;
  return 0;
}

NpyArray makeNpyBool(std::vector<std::size_t> shape, const std::vector<std::uint8_t>& values) {
  NpyArray a{"|b1", std::move(shape), {}};
  if (a.elements() != values.size()) {
    throw std::invalid_argument("makeNpyBool: value count does not match shape");
  }
  a.data.reserve(values.size());
  for (std::uint8_t v : values) a.data.push_back(v ? 1 : 0);
  return a;
}

void writeNpy(const std::string& path, const NpyArray& array) {
  const std::size_t item = npyItemSize(array.dtype);
  if (item == 0) throw std::invalid_argument("writeNpy: unsupported dtype '" + array.dtype + "'");
  if (array.data.size() != array.elements() * item) {
    throw std::invalid_argument("writeNpy: payload size does not match shape");
  }
  std::string header = "{'descr': '" + array.dtype +
                       "', 'fortran_order': False, 'shape': " + shapeText(array.shape) + ", }";
  // magic(6) + version(2) + header_len(2) + header + '\n' must be a multiple of 64, so the
  // payload is aligned for memory-mapping, as numpy guarantees.
  const std::size_t prefix = kMagicLen + 2 + 2;
  const std::size_t total = prefix + header.size() + 1;
  header.append((kAlign - total % kAlign) % kAlign, ' ');
  header.push_back('\n');
  if (header.size() > 0xffff) throw std::invalid_argument("writeNpy: header too long");

  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) throw InputError(path, "cannot open for writing");
  const auto len = static_cast<std::uint16_t>(header.size());
  const char lenBytes[2] = {static_cast<char>(len & 0xff), static_cast<char>(len >> 8)};
  f.write(kMagic, kMagicLen);
  f.put('\x01');
  f.put('\x00');
  f.write(lenBytes, 2);
  f.write(header.data(), static_cast<std::streamsize>(header.size()));
  f.write(reinterpret_cast<const char*>(array.data.data()),
          static_cast<std::streamsize>(array.data.size()));
  f.close();
  if (!f) throw InputError(path, "write failed");
}

NpyArray readNpy(const std::string& path) {
  std::ifstream f(path, std::ios::binary | std::ios::ate);
  if (!f) throw InputError(path, "cannot open npy file");
  const std::streamoff end = f.tellg();
  if (end < 0) throw InputError(path, "cannot determine file size (not a regular file?)");
  const auto fileSize = static_cast<std::size_t>(end);
  f.seekg(0);
  // Reads exactly n bytes at the current position, or reports the file as truncated. The
  // payload is read only after the header has been validated, so a corrupt shape never
  // drives a large allocation.
  auto readBytes = [&](std::size_t n, const char* what) {
    std::string buf(n, '\0');
    if (n && !f.read(buf.data(), static_cast<std::streamsize>(n))) {
      throw InputError(path, std::string("truncated npy ") + what);
    }
    return buf;
  };

  const std::string lead = fileSize >= kMagicLen + 2 ? readBytes(kMagicLen + 2, "header") : "";
  if (lead.size() < kMagicLen + 2 || lead.compare(0, kMagicLen, kMagic, kMagicLen) != 0) {
    throw InputError(path, "not an npy file (bad magic)");
  }
  const auto major = static_cast<unsigned char>(lead[kMagicLen]);
  const auto minor = static_cast<unsigned char>(lead[kMagicLen + 1]);
  if (major < 1 || major > 3 || minor != 0) {
    throw InputError(
        path, "unsupported npy version " + std::to_string(major) + "." + std::to_string(minor));
  }
  // 1.0 has a 16-bit header length; 2.0 and 3.0 widen it to 32 bits.
  const std::size_t lenBytes = major == 1 ? 2 : 4;
  const std::string lenText = readBytes(lenBytes, "header");
  std::size_t headerLen = 0;
  for (std::size_t i = 0; i < lenBytes; ++i) {
    headerLen |= static_cast<std::size_t>(static_cast<unsigned char>(lenText[i])) << (8 * i);
  }
  const std::size_t dataAt = kMagicLen + 2 + lenBytes + headerLen;
  if (fileSize < dataAt) throw InputError(path, "truncated npy header");

  NpyArray a;
  HeaderParser(readBytes(headerLen, "header"), path).parse(a);
  const std::size_t item = npyItemSize(a.dtype);
  if (item == 0) {
    throw InputError(path,
                     "unsupported dtype '" + a.dtype + "' (supported: <i4 <i8 <f4 <u2 |u1 |b1)");
  }
  std::size_t n = 1;
  for (std::size_t d : a.shape) {
    // Checked per dimension so the product cannot overflow before the bound trips.
    if (d != 0 && n > kNpyMaxElements / d) {
      throw InputError(path,
                       "array has more than " + std::to_string(kNpyMaxElements) + " elements");
    }
    n *= d;
  }
  const std::size_t payload = fileSize - dataAt;
  if (payload != n * item) {
    throw InputError(path, "payload is " + std::to_string(payload) + " bytes, shape " +
                               shapeText(a.shape) + " x " + std::to_string(item) + " needs " +
                               std::to_string(n * item));
  }
  a.data.resize(payload);
  if (payload &&
      !f.read(reinterpret_cast<char*>(a.data.data()), static_cast<std::streamsize>(payload))) {
    throw InputError(path, "read failed");
  }
  if (a.dtype == "|b1") {
    for (std::uint8_t v : a.data) {
      if (v > 1) throw InputError(path, "bool payload holds a byte other than 0 or 1");
    }
  }
  return a;
}

}  // namespace moe
