#include "core/util/bounded_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>

#include "core/util/error.h"

namespace moe {
namespace {

// Closes the descriptor on every path out, including the throwing ones.
struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

std::string mib(std::uintmax_t bytes) {
  return std::to_string(bytes >> 20) + " MiB";
}

// Opens without blocking (a FIFO with no writer would otherwise wait forever), then checks
// the open descriptor, so the file checked is the file read.
int openChecked(const std::string& file, std::uintmax_t maxBytes, const std::string& field,
                std::uintmax_t& size) {
  require(!file.empty(), field, "names no file");
  const int fd = ::open(file.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT) throw InputError(field, "cannot read " + file + ": no such file");
  if (fd < 0) throw InputError(field, "cannot open " + file + " (" + std::strerror(errno) + ")");
  Fd guard{fd};
  struct stat st {};
  require(::fstat(fd, &st) == 0, field, "cannot read " + file);
  require(S_ISREG(st.st_mode), field, file + " is not a regular file");
  size = static_cast<std::uintmax_t>(st.st_size);
  require(size <= maxBytes, field,
          file + " is " + std::to_string(size) + " B, above the cap of " + mib(maxBytes));
  guard.fd = -1;
  return fd;
}

}  // namespace

void checkInputFile(const std::string& file, std::uintmax_t maxBytes, const std::string& field) {
  std::uintmax_t size = 0;
  Fd guard{openChecked(file, maxBytes, field, size)};
}

std::string readBoundedFile(const std::string& file, std::uintmax_t maxBytes,
                            const std::string& field) {
  std::uintmax_t size = 0;
  Fd guard{openChecked(file, maxBytes, field, size)};
  std::string text;
  std::array<char, 65536> buf{};
  for (;;) {
    const ssize_t n = ::read(guard.fd, buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw InputError(field, "cannot read " + file + " (" + std::strerror(errno) + ")");
    if (n == 0) break;
    // Some files (under /proc) report size 0 and then produce data: cap what is read, too.
    require(text.size() + static_cast<std::size_t>(n) <= maxBytes, field,
            file + " is larger than the cap of " + mib(maxBytes));
    text.append(buf.data(), static_cast<std::size_t>(n));
  }
  return text;
}

std::string printableExcerpt(const std::string& text, std::size_t maxChars) {
  std::string out;
  for (std::size_t i = 0; i < text.size() && i < maxChars; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    out += c >= 0x20 && c < 0x7f ? static_cast<char>(c) : '?';
  }
  if (text.size() > maxChars) out += "...";
  return out;
}

}  // namespace moe
