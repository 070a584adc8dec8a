// libFuzzer target for the parsers that read a .log *file*: FileBatchWalker (the plain walk of
// lookups and its read-ahead walk of recovery) and segment recovery after an unclean shutdown.
// The input is the file's bytes; its size also picks the read-ahead window, so that windows
// from one byte up cut batches at every place.
//
// Checked, beyond "no crash": the read-ahead walk sees exactly the batches, bytes and status of
// the plain walk; and after recovery the file holds only whole batches whose CRC checks (what
// recovery keeps), with nothing after the last one. Build with the `asan-ubsan` preset.
#include <fmt/format.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "fuzz_files.h"
#include "io/file.h"
#include "record/batch_walker.h"
#include "record/legacy_record_batch.h"
#include "seglog/log.h"
#include "seglog/record_batch.h"
#include "tests/support/batches.h"

using namespace seglog;  // NOLINT: a fuzz target

namespace {

constexpr const char* kTarget = "segment_recovery_fuzzer";

const std::string& Dir() { return fuzz::ScratchDir("recovery-fuzz"); }

void Check(bool ok, const char* what) { fuzz::Check(kTarget, ok, what); }

void WriteFile(const std::string& path, std::span<const uint8_t> bytes) {
  fuzz::WriteInputFile(kTarget, path, bytes);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const uint8_t> bytes(data, size);

  // 1. The read-ahead walk against the plain walk.
  {
    const std::string path = Dir() + "/walk.log";
    WriteFile(path, bytes);
    auto f = File::Open(path, File::Mode::kReadOnly);
    Check(f.ok(), "cannot open the input file");
    Status plain_status, ahead_status;
    const auto plain = testing::WalkFile(**f, static_cast<int64_t>(size), 0, &plain_status);
    const int64_t window = 1 + static_cast<int64_t>(size % 257);
    const auto ahead = testing::WalkFile(**f, static_cast<int64_t>(size), window, &ahead_status);
    Check(plain == ahead, "the read-ahead walk saw other batches than the plain walk");
    Check(plain_status.ok() == ahead_status.ok(), "the two walks disagree on an error");
  }

  // 2. Recovery of the bytes as the active segment of a log shut down uncleanly.
  {
    const std::string log_dir = Dir() + "/fuzz-0";
    std::filesystem::remove_all(log_dir);
    std::filesystem::create_directories(log_dir);
    const std::string log_path = log_dir + "/00000000000000000000.log";
    WriteFile(log_path, bytes);
    LogOptions options;
    options.had_clean_shutdown = false;
    options.recovery_point = 0;
    auto log = Log::Open(log_dir, LogConfig{}, options);
    if (log.ok()) {
      (void)(*log)->log_end_offset();
      (void)(*log)->Close();
      log->reset();
      // What recovery kept: whole batches with good CRCs, and nothing after them.
      auto f = File::Open(log_path, File::Mode::kReadOnly);
      if (f.ok()) {
        auto n = (*f)->Size();
        Check(n.ok() && *n <= static_cast<int64_t>(size), "recovery grew the file");
        std::vector<uint8_t> kept(static_cast<size_t>(*n));
        Check(*n == 0 || (*f)->ReadAt(0, kept).ok(), "cannot read the recovered file");
        LogBatchWalker w(kept);
        while (w.Next()) {
          if (w.current().magic >= kMagicV2) {
            auto v = RecordBatchView::Parse(w.current_bytes(), w.current().position);
            Check(v.ok() && v->ValidateCrc().ok(), "recovery kept a batch that does not check");
          } else {
            auto v = LegacyRecordBatchView::Parse(w.current_bytes(), w.current().position);
            Check(v.ok() && v->ValidateCrc().ok(), "recovery kept a message that does not check");
          }
        }
        Check(w.status().ok() && w.trailing_bytes() == 0, "recovery kept bytes after the batches");
      }
    }
  }
  return 0;
}
