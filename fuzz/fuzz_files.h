// Files for the fuzz targets that read from disk (segment_recovery_fuzzer,
// remote_indexes_fuzzer): a scratch directory per process, removed at exit; writing an input
// file; and aborting with the target's name when a check fails (libFuzzer reports the abort).
// Thread safety: libFuzzer runs a target on one thread; FuzzScratchDir is created once.
#ifndef SEGLOG_FUZZ_FUZZ_FILES_H_
#define SEGLOG_FUZZ_FUZZ_FILES_H_

#include <fmt/format.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <span>
#include <string>
#include <system_error>

#include "io/file.h"

namespace seglog::fuzz {

// Prints "<target>: <what>" and aborts unless `ok`.
inline void Check(const char* target, bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "%s: %s\n", target, what);
    std::abort();
  }
}

// <tmp>/seglog-<name>-<pid>, created at the first call and removed when the process exits.
inline const std::string& ScratchDir(const char* name) {
  struct Dir {
    explicit Dir(const char* n)
        : path(fmt::format("{}/seglog-{}-{}", std::filesystem::temp_directory_path().string(), n,
                           ::getpid())) {
      std::filesystem::create_directories(path);
    }
    ~Dir() {
      std::error_code ec;
      std::filesystem::remove_all(path, ec);
    }
    std::string path;
  };
  static const Dir dir(name);
  return dir.path;
}

// Replaces the file at `path` with `bytes`.
inline void WriteInputFile(const char* target, const std::string& path,
                           std::span<const uint8_t> bytes) {
  (void)RemoveFile(path, true);
  auto f = File::Open(path, File::Mode::kCreate);
  Check(target, f.ok(), "cannot create an input file");
  if (!bytes.empty()) Check(target, (*f)->WriteAt(0, bytes).ok(), "cannot write an input file");
}

}  // namespace seglog::fuzz

#endif  // SEGLOG_FUZZ_FUZZ_FILES_H_
