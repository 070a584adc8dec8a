// Files for tests: TempDir, a fresh directory for one test, and reading files (the test's own,
// or those committed under tests/data/).
// Thread safety: a TempDir is not thread-safe (one owner); the functions are thread-safe.
#ifndef SEGLOG_TESTS_SUPPORT_FILES_H_
#define SEGLOG_TESTS_SUPPORT_FILES_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "tests/support/source_path.h"

namespace seglog::testing {

// A fresh directory under the system temp dir, removed (with everything in it) when the object
// dies.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// The size of the file at `path` (it must exist).
int64_t FileSize(const std::string& path);

// The whole file at `path` (empty when it cannot be read).
std::vector<uint8_t> ReadFileBytes(const std::string& path);

// Damage for corruption tests: overwrites bytes of an existing file at `position`, or flips the
// bits of `mask` in the byte there. The file must be long enough.
void OverwriteBytes(const std::string& path, int64_t position, std::span<const uint8_t> bytes);
void FlipBits(const std::string& path, int64_t position, uint8_t mask);

}  // namespace seglog::testing

#endif  // SEGLOG_TESTS_SUPPORT_FILES_H_
