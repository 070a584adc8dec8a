// Process resource counts; see process_resources.h.
#include "tests/support/process_resources.h"

#include <filesystem>
#include <fstream>

namespace seglog::testing {

int CountOpenFileDescriptors() {
  int n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator("/proc/self/fd")) ++n;
  return n - 1;  // the iterator's own
}

int CountMappingsUnder(const std::string& dir) {
  std::ifstream maps("/proc/self/maps");
  int n = 0;
  for (std::string line; std::getline(maps, line);) {
    if (line.find(" " + dir + "/") != std::string::npos) ++n;
  }
  return n;
}

}  // namespace seglog::testing
