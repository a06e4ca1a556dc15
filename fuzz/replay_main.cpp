// fuzz/replay_main.cpp - runs a fuzz target on files, without libFuzzer.
//
// Linked with a target's LLVMFuzzerTestOneInput, this makes a normal executable (built by
// GCC or Clang, with or without sanitizers) that feeds the target every file named on the
// command line, and every file under every directory named (recursively, in name order).
// ctest runs it on fuzz/corpus/<target>/ and fuzz/regressions/<target>/: a property that
// fails aborts, and the test fails. It fails as well when a path does not exist or when no
// file was found at all, so a missing corpus can never pass as an empty success.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <system_error>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

std::vector<std::uint8_t> read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  for (int i = 1; i < argc; ++i) {
    const fs::path arg(argv[i]);
    std::error_code ec;
    if (fs::is_directory(arg, ec)) {
      for (const auto& entry : fs::recursive_directory_iterator(arg))
        if (entry.is_regular_file()) files.push_back(entry.path());
    } else if (fs::is_regular_file(arg, ec)) {
      files.push_back(arg);
    } else {
      std::fprintf(stderr, "replay: %s: no such file or directory\n", argv[i]);
      return 2;
    }
  }
  if (files.empty()) {
    std::fprintf(stderr, "replay: no input files (usage: %s <file|dir>...)\n", argv[0]);
    return 2;
  }
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    const std::vector<std::uint8_t> data = read_file(f);
    // Print the name first: if the target aborts, the log says which file did it.
    std::fprintf(stderr, "replay: %s (%zu bytes)\n", f.c_str(), data.size());
    // A copy in its own allocation, so that sanitizers catch a read one byte past the end.
    std::vector<std::uint8_t> exact(data.begin(), data.end());
    LLVMFuzzerTestOneInput(exact.empty() ? nullptr : exact.data(), exact.size());
  }
  std::printf("replay: %zu inputs, all properties held\n", files.size());
  return 0;
}
