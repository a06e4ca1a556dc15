// Uses an installed mpk: its headers (the umbrella header, the writer) and its compiled
// library (buffer growth and the error messages live in libmpk). Exits 0 and prints one
// line when everything works.
#include <mpk/mpk.hpp>

#include <cstddef>
#include <cstdio>
#include <cstring>

int main() {
  mpk::buffer buf;  // starts empty: the first write goes through the library's grow path
  mpk::writer w(buf);
  w.begin_array(2);
  w.write(1);
  w.write(nullptr);
  const std::byte expected[] = {std::byte{0x92}, std::byte{0x01}, std::byte{0xc0}};  // [1, nil]
  if (w.error() || buf.size() != sizeof expected ||
      std::memcmp(buf.data(), expected, sizeof expected) != 0) {
    std::fprintf(stderr, "consumer: writing [1, nil] into an mpk::buffer failed\n");
    return 1;
  }
  const char* text = mpk::message(mpk::errc::truncated);
  if (text == nullptr || *text == '\0') {
    std::fprintf(stderr, "consumer: mpk::message returned no text\n");
    return 1;
  }
  std::printf("consumer: %zu bytes buffered; errc::truncated is \"%s\"\n", buf.size(), text);
  return 0;
}
