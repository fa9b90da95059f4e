// SPDX-License-Identifier: Apache-2.0
// Runs LLVMFuzzerTestOneInput on every file named on the command line (directories: every file in them), so
// the fuzz corpus is a regression test in every build, sanitized or not, without clang's libFuzzer.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int main(int argc, char** argv) {
  size_t files = 0;
  for (int i = 1; i < argc; ++i) {
    std::vector<std::filesystem::path> paths;
    if (std::filesystem::is_directory(argv[i])) {
      for (const auto& e : std::filesystem::directory_iterator(argv[i])) paths.push_back(e.path());
    } else {
      paths.emplace_back(argv[i]);
    }
    for (const auto& p : paths) {
      std::ifstream f(p, std::ios::binary);
      if (!f) {
        std::fprintf(stderr, "replay: cannot read %s\n", p.c_str());
        return 1;
      }
      const std::vector<char> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
      LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
      ++files;
    }
  }
  std::printf("replay: %zu inputs, no crash\n", files);
  return files > 0 ? 0 : 1;
}
