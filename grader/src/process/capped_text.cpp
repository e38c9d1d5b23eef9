// Turning whatever a submission printed into bounded text that is valid
// UTF-8 and free of control characters, so that JSON, XML, Markdown and a
// terminal can all carry it as is.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "process/fd.h"
#include "process/process.h"

namespace sg {

namespace {

const char kReplacement[] = "\xEF\xBF\xBD";  // U+FFFD, for bytes that are not UTF-8
constexpr char kControl = '?';              // for control characters other than \n and \t

// Length of the UTF-8 sequence that `lead` starts and the allowed range of
// its second byte (excludes overlong forms, surrogates and > U+10FFFF);
// 0 when `lead` cannot start a sequence.
int sequence_length(unsigned char lead, unsigned char& low, unsigned char& high) {
  low = 0x80;
  high = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) return 2;
  if (lead == 0xE0) low = 0xA0;
  if (lead == 0xED) high = 0x9F;
  if (lead >= 0xE0 && lead <= 0xEF) return 3;
  if (lead == 0xF0) low = 0x90;
  if (lead == 0xF4) high = 0x8F;
  if (lead >= 0xF0 && lead <= 0xF4) return 4;
  return 0;
}

// `cut` says the bytes were cut off at the end by the cap: a sequence left
// incomplete there is dropped rather than reported as invalid.
std::string sanitize(const unsigned char* p, std::size_t n, bool cut) {
  std::string out;
  out.reserve(n);
  std::size_t i = 0;
  while (i < n) {
    const unsigned char lead = p[i];
    if (lead < 0x80) {
      const bool control = (lead < 0x20 && lead != '\n' && lead != '\t') || lead == 0x7F;
      out += control ? kControl : static_cast<char>(lead);
      ++i;
      continue;
    }
    unsigned char low, high;
    const int len = sequence_length(lead, low, high);
    if (len == 0) {
      out += kReplacement;
      ++i;
      continue;
    }
    // Check the continuation bytes; a bad one ends the maximal invalid part.
    int good = 1;
    while (good < len && i + good < n) {
      const unsigned char b = p[i + good];
      if (b < (good == 1 ? low : 0x80) || b > (good == 1 ? high : 0xBF)) break;
      ++good;
    }
    if (good < len) {
      if (i + good == n && cut) break;
      out += kReplacement;
      i += good;
      continue;
    }
    unsigned code = lead & (0xFF >> (len + 1));
    for (int j = 1; j < len; ++j) code = (code << 6) | (p[i + j] & 0x3F);
    if (code <= 0x9F)  // C1 controls (0x80-0x9F), e.g. the 8-bit terminal escape CSI
      out += kControl;
    else if (code == 0xFFFE || code == 0xFFFF)  // not characters; XML forbids them
      out += kReplacement;
    else
      out.append(reinterpret_cast<const char*>(p + i), len);
    i += len;
  }
  return out;
}

}  // namespace

std::string read_capped_text(const std::string& path, std::size_t cap) {
  // O_NOFOLLOW and the regular-file check: never read what a planted link
  // or a FIFO would hand over instead of the captured output.
  Fd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK));
  struct stat st {};
  if (!fd || fstat(fd.get(), &st) != 0) return "[output unavailable: " + path + ": " + std::strerror(errno) + "]";
  if (!S_ISREG(st.st_mode)) return "[output unavailable: " + path + " is not a regular file]";

  std::vector<unsigned char> bytes;
  bytes.resize(std::min<std::size_t>(cap, static_cast<std::size_t>(st.st_size)));
  std::size_t got = 0;
  while (got < bytes.size()) {
    const ssize_t n = read(fd.get(), bytes.data() + got, bytes.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  const bool cut = static_cast<std::size_t>(st.st_size) > got;
  std::string text = sanitize(bytes.data(), got, cut);
  if (cut) {
    if (!text.empty() && text.back() != '\n') text += '\n';
    text += "[output truncated: " + std::to_string(st.st_size) + " bytes in total]";
  }
  return text;
}

}  // namespace sg
